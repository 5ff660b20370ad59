// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An RC responder receives requests (IBTA vol. 1, 9.7.4 and 9.7.5.2).
 *
 * A request with the PSN the responder expects (r_psn) is executed: a
 * SEND's data goes into a receive WQE (rvt_get_rwqe(); none: RNR NAK),
 * an RDMA WRITE's into the memory its RETH names (rvt_rkey_ok()); an
 * RDMA READ or an atomic takes an entry of the ACK queue (s_ack_queue,
 * from r_head_ack_queue), which the send engine answers from
 * (wire_reply.c). An atomic is executed once, when it arrives: the ACK
 * queue keeps its result.
 *
 * A request ahead of r_psn means some were lost: a sequence NAK asks for
 * r_psn (once, until a request in sequence comes). A request behind it
 * is a duplicate (its ACK was lost): nothing is executed again. A READ
 * is answered again from its ACK queue entry (its range may be the tail
 * of the original's), an atomic with the result the entry kept, a SEND
 * or WRITE with an ACK, coalesced with the newest. A request the
 * responder cannot take (opcode out of sequence, no access, bad length
 * or key) gets the NAK IBTA names, and the responder's QP goes to the
 * error state.
 *
 * ACKs wait for the end of the receive worker's run (wire_reply.c), so
 * one ACK answers every request of a burst that asked for one.
 *
 * Locking: the receive path holds the QP's r_lock, which guards the
 * responder's state (r_psn, r_msn, r_state, r_sge, r_nak_state); the ACK
 * queue and s_flags are s_lock's too, taken inside it.
 */
#include "wire.h"

#define OP(x) IB_OPCODE_RC_##x

/* What the responder made of a request. */
enum rvtsw_rc_verdict {
	RVTSW_RC_DONE,		/* executed: r_psn moves on */
	RVTSW_RC_QUEUED,	/* a READ or atomic, in the ACK queue */
	RVTSW_RC_RNR,		/* no receive WQE: RNR NAK */
	RVTSW_RC_INVALID,	/* NAK: invalid request */
	RVTSW_RC_ACCESS,	/* NAK: remote access error */
	RVTSW_RC_OP_ERR,	/* NAK: remote operational error */
};

/* Take the next receive WQE for a message. */
static enum rvtsw_rc_verdict rvtsw_rc_take_rwqe(struct rvt_qp *qp,
						bool wr_id_only)
{
	int ret = rvt_get_rwqe(qp, wr_id_only);

	if (ret < 0)
		return RVTSW_RC_OP_ERR;
	return ret ? RVTSW_RC_DONE : RVTSW_RC_RNR;
}

/*
 * The message in r_sge ends: its receive completes (a SEND, or a WRITE
 * with immediate data, @write).
 */
static void rvtsw_rc_recv_done(struct rvt_qp *qp, const struct rvtsw_pkt *pkt,
			       u32 byte_len, bool write)
{
	struct ib_other_headers *ohdr = pkt->ohdr;
	u16 flags = pkt->flags;
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.qp = &qp->ibqp,
		.src_qp = qp->remote_qpn,
		.slid = rdma_ah_get_dlid(&qp->remote_ah_attr),
		.sl = rdma_ah_get_sl(&qp->remote_ah_attr),
		.byte_len = byte_len,
		.opcode = write ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV,
	};

	rvt_put_ss(&qp->r_sge);
	qp->r_msn++;
	if (!test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags))
		return;
	wc.wr_id = qp->r_wr_id;
	if (flags & RVTSW_OPF_IMM) {
		wc.wc_flags = IB_WC_WITH_IMM;
		wc.ex.imm_data = (flags & RVTSW_OPF_RETH) ? ohdr->u.rc.imm_data :
							    ohdr->u.imm_data;
	} else if (flags & RVTSW_OPF_IETH) {
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = be32_to_cpu(ohdr->u.ieth);
		if (rvt_invalidate_rkey(qp, wc.ex.invalidate_rkey))
			wc.wc_flags = 0;
	}
	rvt_recv_cq(qp, &wc, pkt->solicited);
}

/*
 * Data of a SEND or WRITE into r_sge: a FIRST or MIDDLE carries a full
 * path MTU; a LAST or ONLY what is left, within the receive buffer (or
 * the WRITE's length). Return: DONE, or INVALID for a bad length.
 */
static enum rvtsw_rc_verdict rvtsw_rc_take_data(struct rvt_qp *qp,
						const struct rvtsw_pkt *pkt)
{
	bool last = pkt->flags & RVTSW_OPF_LAST;

	if (!last && pkt->paylen != qp->pmtu)
		return RVTSW_RC_INVALID;
	if (qp->r_rcv_len + pkt->paylen > qp->r_len)
		return RVTSW_RC_INVALID;
	qp->r_rcv_len += pkt->paylen;
	rvt_copy_sge(qp, &qp->r_sge, pkt->payload, pkt->paylen, true, false);
	return RVTSW_RC_DONE;
}

/* A SEND packet: FIRST and ONLY take a receive WQE, LAST and ONLY complete it. */
static enum rvtsw_rc_verdict rvtsw_rc_send(struct rvt_qp *qp,
					   const struct rvtsw_pkt *pkt)
{
	enum rvtsw_rc_verdict v;

	if (pkt->flags & RVTSW_OPF_FIRST) {
		v = rvtsw_rc_take_rwqe(qp, false);
		if (v != RVTSW_RC_DONE)
			return v;
		qp->r_rcv_len = 0;
	}
	v = rvtsw_rc_take_data(qp, pkt);
	if (v == RVTSW_RC_DONE && (pkt->flags & RVTSW_OPF_LAST))
		rvtsw_rc_recv_done(qp, pkt, qp->r_rcv_len, false);
	return v;
}

/**
 * rvtsw_conn_write_target - where an RDMA WRITE's data goes
 * @qp: the RC or UC QP
 * @pkt: the WRITE's first (or only) packet
 *
 * The memory its RETH names, checked, becomes r_sge, and its length
 * r_len; a WRITE of nothing has none.
 *
 * Context: the receive worker, r_lock held.
 * Return: 0; -EPERM if the QP takes no remote writes, -EACCES if the
 * key does not allow this one.
 */
int rvtsw_conn_write_target(struct rvt_qp *qp, const struct rvtsw_pkt *pkt)
	__must_hold(&qp->r_lock)
{
	struct ib_reth *reth = &pkt->ohdr->u.rc.reth;

	if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return -EPERM;
	qp->r_len = be32_to_cpu(reth->length);
	qp->r_rcv_len = 0;
	qp->r_sge.sg_list = NULL;
	qp->r_sge.num_sge = 0;
	memset(&qp->r_sge.sge, 0, sizeof(qp->r_sge.sge));
	if (!qp->r_len)
		return 0;
	if (!rvt_rkey_ok(qp, &qp->r_sge.sge, qp->r_len,
			 get_ib_reth_vaddr(reth), be32_to_cpu(reth->rkey),
			 IB_ACCESS_REMOTE_WRITE))
		return -EACCES;
	qp->r_sge.num_sge = 1;
	return 0;
}

/*
 * A WRITE packet. Its last carries immediate data only if it takes a
 * receive WQE, whose completion reports the WRITE; the data must fill
 * exactly the length the RETH named.
 */
static enum rvtsw_rc_verdict rvtsw_rc_write(struct rvt_qp *qp,
					    const struct rvtsw_pkt *pkt)
{
	bool last = pkt->flags & RVTSW_OPF_LAST;
	enum rvtsw_rc_verdict v;

	if (pkt->flags & RVTSW_OPF_RETH) {
		switch (rvtsw_conn_write_target(qp, pkt)) {
		case -EPERM:
			return RVTSW_RC_INVALID;
		case -EACCES:
			return RVTSW_RC_ACCESS;
		}
	}
	if (last && qp->r_rcv_len + pkt->paylen != qp->r_len)
		return RVTSW_RC_INVALID;
	if (last && (pkt->flags & RVTSW_OPF_IMM)) {
		v = rvtsw_rc_take_rwqe(qp, true);
		if (v != RVTSW_RC_DONE) {
			rvt_put_ss(&qp->r_sge);
			return v;
		}
	}
	v = rvtsw_rc_take_data(qp, pkt);
	if (v != RVTSW_RC_DONE || !last)
		return v;
	if (pkt->flags & RVTSW_OPF_IMM) {
		rvtsw_rc_recv_done(qp, pkt, qp->r_len, true);
	} else {
		rvt_put_ss(&qp->r_sge);
		qp->r_msn++;
	}
	return RVTSW_RC_DONE;
}

/*
 * The ACK queue entry a READ or atomic takes, at r_head_ack_queue. The
 * oldest entry is reused once its response has gone; if it has not, the
 * requester asked for more than max_dest_rd_atomic. Return: the entry,
 * or NULL.
 */
static struct rvt_ack_entry *rvtsw_rc_ack_entry(struct rvt_qp *qp, u8 *next)
	__must_hold(&qp->s_lock)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_ack_entry *e;

	*next = qp->r_head_ack_queue + 1;
	if (*next > rvt_size_atomic(rdi))
		*next = 0;
	if (*next == qp->s_tail_ack_queue) {
		if (!qp->s_ack_queue[*next].sent)
			return NULL;
		qp->s_tail_ack_queue = *next + 1 > rvt_size_atomic(rdi) ?
				       0 : *next + 1;
		qp->s_ack_state = OP(ACKNOWLEDGE);
	}
	e = &qp->s_ack_queue[qp->r_head_ack_queue];
	if (e->rdma_sge.mr) {
		rvt_put_mr(e->rdma_sge.mr);
		e->rdma_sge.mr = NULL;
	}
	return e;
}

/*
 * Point @e at the memory a READ of @len bytes from @reth reads; none for
 * a READ of nothing. Return: false if the key does not allow it.
 */
static bool rvtsw_rc_read_target(struct rvt_qp *qp, struct rvt_ack_entry *e,
				 const struct ib_reth *reth, u32 len)
{
	memset(&e->rdma_sge, 0, sizeof(e->rdma_sge));
	if (!len)
		return true;
	return rvt_rkey_ok(qp, &e->rdma_sge, len,
			   get_ib_reth_vaddr((struct ib_reth *)reth),
			   be32_to_cpu(reth->rkey), IB_ACCESS_REMOTE_READ);
}

/* Execute an atomic on the memory its AtomicETH names; @e keeps the result. */
static enum rvtsw_rc_verdict rvtsw_rc_do_atomic(struct rvt_qp *qp,
						const struct rvtsw_pkt *pkt,
						struct rvt_ack_entry *e)
{
	struct ib_atomic_eth *ateth = &pkt->ohdr->u.atomic_eth;
	u64 vaddr = get_ib_ateth_vaddr(ateth);
	u64 swap = get_ib_ateth_swap(ateth);
	u64 *target;

	if (vaddr & (sizeof(u64) - 1))
		return RVTSW_RC_INVALID;
	if (!rvt_rkey_ok(qp, &qp->r_sge.sge, sizeof(u64), vaddr,
			 be32_to_cpu(ateth->rkey), IB_ACCESS_REMOTE_ATOMIC))
		return RVTSW_RC_ACCESS;
	target = qp->r_sge.sge.vaddr;
	if (pkt->opcode == OP(FETCH_ADD))
		e->atomic_data = (u64)atomic64_add_return(swap,
							  (atomic64_t *)target) -
				 swap;
	else
		e->atomic_data = cmpxchg(target, get_ib_ateth_compare(ateth),
					 swap);
	rvt_put_mr(qp->r_sge.sge.mr);
	qp->r_sge.num_sge = 0;
	return RVTSW_RC_DONE;
}

/*
 * A READ or atomic: into the ACK queue, and the send engine told to
 * answer it. Return: QUEUED, or the NAK.
 */
static enum rvtsw_rc_verdict rvtsw_rc_rd_atomic(struct rvt_qp *qp,
						const struct rvtsw_pkt *pkt)
	__must_hold(&qp->s_lock)
{
	bool read = pkt->opcode == OP(RDMA_READ_REQUEST);
	struct ib_reth *reth = &pkt->ohdr->u.rc.reth;
	enum rvtsw_rc_verdict v = RVTSW_RC_DONE;
	struct rvt_ack_entry *e;
	u32 len = 0;
	u8 next;

	if (!(qp->qp_access_flags & (read ? IB_ACCESS_REMOTE_READ :
					     IB_ACCESS_REMOTE_ATOMIC)))
		return RVTSW_RC_INVALID;
	e = rvtsw_rc_ack_entry(qp, &next);
	if (!e)
		return RVTSW_RC_INVALID;
	if (read) {
		len = be32_to_cpu(reth->length);
		if (!rvtsw_rc_read_target(qp, e, reth, len))
			return RVTSW_RC_ACCESS;
	} else {
		v = rvtsw_rc_do_atomic(qp, pkt, e);
		if (v != RVTSW_RC_DONE)
			return v;
	}
	e->opcode = pkt->opcode;
	e->sent = 0;
	e->psn = pkt->psn;
	/* A READ's responses take a PSN each. */
	e->lpsn = (pkt->psn + (len ? rvt_div_mtu(qp, len - 1) : 0)) &
		  RVTSW_PSN_MASK;
	/* Counted now: a duplicate must not count it again. */
	qp->r_msn++;
	qp->r_psn = e->lpsn + 1;
	qp->r_state = pkt->opcode;
	qp->r_nak_state = 0;
	qp->r_head_ack_queue = next;
	qp->s_flags |= RVT_S_RESP_PENDING;
	ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	return RVTSW_RC_QUEUED;
}

/* Execute a request in sequence. Return: what became of it. */
static enum rvtsw_rc_verdict rvtsw_rc_execute(struct rvt_qp *qp,
					      const struct rvtsw_pkt *pkt)
{
	enum rvtsw_rc_verdict v;

	switch (pkt->opcode) {
	case OP(RDMA_READ_REQUEST):
	case OP(COMPARE_SWAP):
	case OP(FETCH_ADD):
		spin_lock(&qp->s_lock);
		v = rvtsw_rc_rd_atomic(qp, pkt);
		spin_unlock(&qp->s_lock);
		return v;
	case OP(RDMA_WRITE_FIRST):
	case OP(RDMA_WRITE_MIDDLE):
	case OP(RDMA_WRITE_LAST):
	case OP(RDMA_WRITE_LAST_WITH_IMMEDIATE):
	case OP(RDMA_WRITE_ONLY):
	case OP(RDMA_WRITE_ONLY_WITH_IMMEDIATE):
		return rvtsw_rc_write(qp, pkt);
	default:
		return rvtsw_rc_send(qp, pkt);
	}
}

/*
 * Answer a request that could not be taken with a NAK, at r_psn; one
 * that refuses the request (not RNR) also ends the QP, once it is sent.
 */
static void rvtsw_rc_refuse(struct rvtsw_port *port, struct rvt_qp *qp,
			    enum rvtsw_rc_verdict v)
{
	static const u8 nak[] = {
		[RVTSW_RC_INVALID] = IB_NAK_INVALID_REQUEST,
		[RVTSW_RC_ACCESS] = IB_NAK_REMOTE_ACCESS_ERROR,
		[RVTSW_RC_OP_ERR] = IB_NAK_REMOTE_OPERATIONAL_ERROR,
	};

	qp->r_ack_psn = qp->r_psn;
	if (v == RVTSW_RC_RNR) {
		qp->r_nak_state = IB_RNR_NAK | qp->r_min_rnr_timer;
		rvtsw_rc_queue_ack(port, qp);
		return;
	}
	qp->r_nak_state = nak[v];
	rvtsw_rc_nak_now(qp);
	rvt_rc_error(qp, v == RVTSW_RC_ACCESS ? IB_WC_LOC_PROT_ERR :
						 IB_WC_LOC_QP_OP_ERR);
}

/*
 * Where a duplicate request with @psn falls among the READs and atomics
 * the ACK queue holds: the newest entry at or before @psn, or NULL if
 * none is (the request is older than them all, or newer). *@after is the
 * index past that entry. *@old_req is true if the send engine has yet
 * to reach an entry before it (it will answer the duplicate's turn
 * anyway).
 */
static struct rvt_ack_entry *rvtsw_rc_dup_entry(struct rvt_qp *qp, u32 psn,
						u8 *after, bool *old_req)
	__must_hold(&qp->s_lock)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_ack_entry *e;
	u8 i, prev;

	*old_req = true;
	for (i = qp->r_head_ack_queue; ; i = prev) {
		if (i == qp->s_tail_ack_queue)
			*old_req = false;
		prev = i ? i - 1 : rvt_size_atomic(rdi);
		*after = i;
		if (prev == qp->r_head_ack_queue)
			return NULL;
		e = &qp->s_ack_queue[prev];
		if (!e->opcode)
			return NULL;
		if (rvtsw_cmp_psn(psn, e->psn) >= 0) {
			if (prev == qp->s_tail_ack_queue &&
			    rvtsw_cmp_psn(psn, e->lpsn) <= 0)
				*old_req = false;
			return e;
		}
	}
}

/*
 * A duplicate READ: answer it again from its entry, for the range it
 * asks for now (the tail of the original, at a path MTU boundary).
 * Return: true if the send engine must answer from the entry.
 */
static bool rvtsw_rc_dup_read(struct rvt_qp *qp, const struct rvtsw_pkt *pkt,
			      struct rvt_ack_entry *e, bool old_req)
	__must_hold(&qp->s_lock)
{
	struct ib_reth *reth = &pkt->ohdr->u.rc.reth;
	u32 offset, len = be32_to_cpu(reth->length);

	if (!e || e->opcode != OP(RDMA_READ_REQUEST) ||
	    rvtsw_cmp_psn(pkt->psn, e->lpsn) > 0)
		return false;
	offset = ((pkt->psn - e->psn) & RVTSW_PSN_MASK) * qp->pmtu;
	if (offset + len != e->rdma_sge.sge_length)
		return false;
	if (e->rdma_sge.mr) {
		rvt_put_mr(e->rdma_sge.mr);
		e->rdma_sge.mr = NULL;
	}
	if (!rvtsw_rc_read_target(qp, e, reth, len))
		return false;
	e->psn = pkt->psn;
	return !old_req;
}

/*
 * A duplicate SEND or WRITE that asks for an ACK: the newest ACK if no
 * READ or atomic came after it, else the ACK just before the first that
 * did (the engine answers those in order anyway if it is answering).
 * Return: true if the send engine must answer from the entry at @after.
 */
static bool rvtsw_rc_dup_ack(struct rvtsw_port *port, struct rvt_qp *qp,
			     u8 after)
	__must_hold(&qp->s_lock)
{
	if (after == qp->r_head_ack_queue) {
		qp->r_ack_psn = qp->r_psn - 1;
	} else if (!(qp->s_flags & RVT_S_RESP_PENDING)) {
		qp->r_ack_psn = qp->s_ack_queue[after].psn - 1;
	} else {
		qp->s_tail_ack_queue = after;
		return true;
	}
	qp->r_nak_state = 0;
	rvtsw_rc_queue_ack(port, qp);
	return false;
}

/*
 * A duplicate request (its PSN behind r_psn): nothing is executed again;
 * a READ or atomic is answered again from the ACK queue, a SEND or
 * WRITE acknowledged again if it asks.
 */
static void rvtsw_rc_dup(struct rvtsw_port *port, struct rvt_qp *qp,
			 const struct rvtsw_pkt *pkt)
{
	struct rvt_ack_entry *e;
	bool old_req, answer;
	u8 after;

	rvt_to_iport(qp)->n_rc_dupreq++;
	spin_lock(&qp->s_lock);
	e = rvtsw_rc_dup_entry(qp, pkt->psn, &after, &old_req);
	switch (pkt->opcode) {
	case OP(RDMA_READ_REQUEST):
		answer = rvtsw_rc_dup_read(qp, pkt, e, old_req);
		break;
	case OP(COMPARE_SWAP):
	case OP(FETCH_ADD):
		/* The result the entry kept: never executed twice. */
		answer = e && e->opcode == pkt->opcode && !old_req;
		break;
	default:
		/* The engine goes back to the entry @after, if at all. */
		answer = pkt->ack_req && !old_req &&
			 rvtsw_rc_dup_ack(port, qp, after);
		e = NULL;
		break;
	}
	if (answer) {
		if (e)
			qp->s_tail_ack_queue = e - qp->s_ack_queue;
		qp->s_ack_state = OP(ACKNOWLEDGE);
		qp->s_flags |= RVT_S_RESP_PENDING;
		qp->r_nak_state = 0;
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	}
	spin_unlock(&qp->s_lock);
}

/*
 * A request ahead of r_psn: some were lost. A sequence NAK asks for
 * r_psn, once until a request in sequence comes.
 */
static void rvtsw_rc_seq_error(struct rvtsw_port *port, struct rvt_qp *qp)
{
	if (qp->r_nak_state)
		return;
	rvt_to_iport(qp)->n_rc_seqnak++;
	qp->r_nak_state = IB_NAK_PSN_ERROR;
	qp->r_ack_psn = qp->r_psn;
	rvtsw_rc_queue_ack(port, qp);
}

/**
 * rvtsw_rc_rx_req - an RC responder receives a request
 * @port: the port it arrived at
 * @qp: the QP, checked by the receive path
 * @pkt: the request packet
 *
 * Context: the port's receive worker (softirq), the QP's r_lock held
 * with interrupts off; takes s_lock.
 */
void rvtsw_rc_rx_req(struct rvtsw_port *port, struct rvt_qp *qp,
		     const struct rvtsw_pkt *pkt)
	__must_hold(&qp->r_lock)
{
	int diff = rvtsw_cmp_psn(pkt->psn, qp->r_psn);
	enum rvtsw_rc_verdict v;

	if (pkt->ack_req)
		rvtsw_count(port, RVTSW_CNT_RC_ACK_REQS);
	if (diff > 0) {
		rvtsw_count(port, RVTSW_CNT_DROP_PSN);
		rvtsw_rc_seq_error(port, qp);
		return;
	}
	if (diff < 0) {
		rvtsw_rc_dup(port, qp, pkt);
		return;
	}
	if (!rvtsw_op_follows(qp->r_state, pkt->opcode)) {
		rvtsw_count(port, RVTSW_CNT_DROP_OPCODE_SEQ);
		rvtsw_rc_refuse(port, qp, RVTSW_RC_INVALID);
		return;
	}
	if (qp->state == IB_QPS_RTR && !(qp->r_flags & RVT_R_COMM_EST))
		rvt_comm_est(qp);
	v = rvtsw_rc_execute(qp, pkt);
	if (v == RVTSW_RC_QUEUED)
		return;
	if (v != RVTSW_RC_DONE) {
		rvtsw_rc_refuse(port, qp, v);
		return;
	}
	qp->r_psn++;
	qp->r_state = pkt->opcode;
	qp->r_ack_psn = pkt->psn;
	qp->r_nak_state = 0;
	if (pkt->ack_req)
		rvtsw_rc_queue_ack(port, qp);
}
