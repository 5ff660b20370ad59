// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The requester's packets: an RC or UC QP's send requests become
 * request packets, one path MTU of payload at a time (IBTA vol. 1,
 * 9.7.1 and 9.8).
 *
 * The send queue's indices, as rdmavt keeps them: s_last is the oldest
 * request not completed, s_acked the oldest not acknowledged, s_cur the
 * one being sent, s_tail the next one never sent, s_head where posters
 * add. s_psn is the PSN of the next packet, s_state the opcode of the
 * last one built: a FIRST or MIDDLE means the request at s_cur goes on.
 *
 * RC: a request starts only when the responder has room for it: a SEND
 * (or a WRITE with immediate) needs a credit (rvt_rc_credit_avail()), a
 * READ or an atomic one of the s_max_rd_atomic it may have outstanding,
 * and a fenced request waits for those to end. Local operations wait
 * for every request before them to complete. The last packet of each
 * request asks for an ACK, and so does every RVTSW_PSN_CREDIT-th packet
 * of a long one, so ACKs keep coming.
 *
 * When an ACK or NAK, or the retry timer, says the responder wants an
 * earlier PSN, rvtsw_rc_reset_psn() points s_cur and s_psn back there;
 * if that is inside a request, priv->s_resume tells the next build to
 * rewind that request's SGEs (rvt_restart_sge()) to the PSN. The retry
 * timer comes back through rdmavt (notify_restart_rc, rvtsw_rc_restart()).
 *
 * UC has no ACKs: a request is done once its last packet is sent.
 *
 * Locking: every function here runs with the QP's r_lock and s_lock
 * held (the send engine, the receive path, rdmavt's retry timer).
 */
#include "wire.h"

#define OP(x) IB_OPCODE_RC_##x
#define UC(x) IB_OPCODE_UC_##x

/* Every so many packets of a long request ask for an ACK. */
#define RVTSW_PSN_CREDIT 16

/* Is @wqe a READ or an atomic, which take an s_max_rd_atomic slot? */
static bool rvtsw_wqe_rd_atomic(const struct rvt_swqe *wqe)
{
	return wqe->wr.opcode == IB_WR_RDMA_READ ||
	       wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static u32 rvtsw_next_swqe(struct rvt_qp *qp, u32 n)
{
	return rvt_qp_swqe_incr(qp, n);
}

/* The request's last packet was built: the next one is the next request. */
static void rvtsw_req_done(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	qp->s_cur = rvtsw_next_swqe(qp, qp->s_cur);
	tx->ack_req = true;
}

/* The payload of the next packet: up to a path MTU of what is left. */
static u32 rvtsw_req_take(struct rvt_qp *qp, bool *last)
{
	u32 len = qp->s_len;

	*last = len <= qp->pmtu;
	if (!*last)
		len = qp->pmtu;
	qp->s_len -= len;
	return len;
}

/* Immediate data, or the rkey to invalidate, in the packet's last header. */
static void rvtsw_req_imm(struct rvtsw_tx *tx, const struct rvt_swqe *wqe)
{
	struct ib_other_headers *ohdr = tx->hdr.ohdr;

	if (wqe->wr.opcode == IB_WR_SEND_WITH_INV)
		ohdr->u.ieth = cpu_to_be32(wqe->wr.ex.invalidate_rkey);
	else
		ohdr->u.imm_data = wqe->wr.ex.imm_data;
}

/* The opcode of a SEND's last (or only) packet; @base is RC's or UC's. */
static u8 rvtsw_send_last_op(const struct rvt_swqe *wqe, u8 base, bool only)
{
	switch (wqe->wr.opcode) {
	case IB_WR_SEND_WITH_IMM:
		return base + (only ? IB_OPCODE_SEND_ONLY_WITH_IMMEDIATE :
				      IB_OPCODE_SEND_LAST_WITH_IMMEDIATE);
	case IB_WR_SEND_WITH_INV:
		return base + (only ? IB_OPCODE_SEND_ONLY_WITH_INVALIDATE :
				      IB_OPCODE_SEND_LAST_WITH_INVALIDATE);
	default:
		return base + (only ? IB_OPCODE_SEND_ONLY : IB_OPCODE_SEND_LAST);
	}
}

/* ... and of an RDMA WRITE's. */
static u8 rvtsw_write_last_op(const struct rvt_swqe *wqe, u8 base, bool only)
{
	if (wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		return base + (only ? IB_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE :
				      IB_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE);
	return base + (only ? IB_OPCODE_RDMA_WRITE_ONLY :
			      IB_OPCODE_RDMA_WRITE_LAST);
}

/*
 * The headers of a request packet of @wqe with @opcode at s_psn, its
 * extension headers, and its payload; s_psn moves past it. @first: the
 * packet is the request's first (a WRITE's carries the RETH).
 */
static void rvtsw_req_packet(struct rvt_qp *qp, struct rvt_swqe *wqe,
			     struct rvtsw_tx *tx, u8 opcode, u32 len)
{
	const struct rvtsw_opcode_info *info = rvtsw_opcode_info(opcode);
	struct ib_other_headers *ohdr;

	tx->psn = qp->s_psn & RVTSW_PSN_MASK;
	rvtsw_conn_hdr(qp, &tx->hdr, opcode, tx->psn);
	ohdr = tx->hdr.ohdr;
	if (info->flags & RVTSW_OPF_RETH) {
		ohdr->u.rc.reth.vaddr = cpu_to_be64(wqe->rdma_wr.remote_addr);
		ohdr->u.rc.reth.rkey = cpu_to_be32(wqe->rdma_wr.rkey);
		ohdr->u.rc.reth.length = cpu_to_be32(wqe->length);
		if (info->flags & RVTSW_OPF_IMM)
			ohdr->u.rc.imm_data = wqe->wr.ex.imm_data;
	} else if (info->flags & (RVTSW_OPF_IMM | RVTSW_OPF_IETH)) {
		rvtsw_req_imm(tx, wqe);
	}
	if ((info->flags & RVTSW_OPF_LAST) &&
	    (wqe->wr.send_flags & IB_SEND_SOLICITED))
		ohdr->bth[0] |= cpu_to_be32(IB_BTH_SOLICITED);
	tx->ss = len ? &qp->s_sge : NULL;
	tx->len = len;
	qp->s_state = opcode;
	qp->s_psn++;
}

/* Point s_sge at the start of @wqe's buffers. */
static void rvtsw_req_start_sge(struct rvt_qp *qp, struct rvt_swqe *wqe)
{
	qp->s_sge.sge = wqe->sg_list[0];
	qp->s_sge.sg_list = wqe->sg_list + 1;
	qp->s_sge.num_sge = wqe->wr.num_sge;
	qp->s_sge.total_len = wqe->length;
	qp->s_len = wqe->length;
}

/*
 * The next packet of a SEND or WRITE: its first (@first: a request's
 * first), or, once that went, a MIDDLE; the LAST (or ONLY) when what is
 * left fits a path MTU. @base: RC's or UC's opcodes.
 */
static void rvtsw_req_data(struct rvt_qp *qp, struct rvt_swqe *wqe,
			   struct rvtsw_tx *tx, u8 base, bool first)
{
	bool write = wqe->wr.opcode == IB_WR_RDMA_WRITE ||
		     wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool last;
	u32 len = rvtsw_req_take(qp, &last);
	u8 opcode;

	if (last && write)
		opcode = rvtsw_write_last_op(wqe, base, first);
	else if (last)
		opcode = rvtsw_send_last_op(wqe, base, first);
	else if (write)
		opcode = base + (first ? IB_OPCODE_RDMA_WRITE_FIRST :
					 IB_OPCODE_RDMA_WRITE_MIDDLE);
	else
		opcode = base + (first ? IB_OPCODE_SEND_FIRST :
					 IB_OPCODE_SEND_MIDDLE);
	rvtsw_req_packet(qp, wqe, tx, opcode, len);
	if (last)
		rvtsw_req_done(qp, tx);
}

/* Take one of the READs and atomics the QP may have outstanding. */
static bool rvtsw_rc_rd_atomic_slot(struct rvt_qp *qp, bool newreq)
{
	if (!newreq)
		return true;
	if (qp->s_num_rd_atomic >= qp->s_max_rd_atomic) {
		qp->s_flags |= RVT_S_WAIT_RDMAR;
		return false;
	}
	qp->s_num_rd_atomic++;
	/* It uses no receive WQE: keep the credit count in step. */
	if (!(qp->s_flags & RVT_S_UNLIMITED_CREDIT))
		qp->s_lsn++;
	return true;
}

/*
 * An RDMA READ request, for what of the READ is left from s_psn (the
 * whole of it, unless a restart asks for the rest).
 */
static void rvtsw_rc_read(struct rvt_qp *qp, struct rvt_swqe *wqe,
			  struct rvtsw_tx *tx)
{
	u32 done = ((qp->s_psn - wqe->psn) & RVTSW_PSN_MASK) * qp->pmtu;
	struct ib_other_headers *ohdr;

	tx->psn = qp->s_psn & RVTSW_PSN_MASK;
	rvtsw_conn_hdr(qp, &tx->hdr, OP(RDMA_READ_REQUEST), tx->psn);
	ohdr = tx->hdr.ohdr;
	ohdr->u.rc.reth.vaddr = cpu_to_be64(wqe->rdma_wr.remote_addr + done);
	ohdr->u.rc.reth.rkey = cpu_to_be32(wqe->rdma_wr.rkey);
	ohdr->u.rc.reth.length = cpu_to_be32(wqe->length - done);
	tx->ss = NULL;
	tx->len = 0;
	qp->s_state = OP(RDMA_READ_REQUEST);
	/* The responses take the PSNs up to the READ's last. */
	qp->s_psn = wqe->lpsn + 1;
	rvtsw_req_done(qp, tx);
}

/* An atomic request: compare and swap, or fetch and add. */
static void rvtsw_rc_atomic(struct rvt_qp *qp, struct rvt_swqe *wqe,
			    struct rvtsw_tx *tx)
{
	bool cas = wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP;
	struct ib_atomic_eth *ateth;

	tx->psn = qp->s_psn & RVTSW_PSN_MASK;
	rvtsw_conn_hdr(qp, &tx->hdr, cas ? OP(COMPARE_SWAP) : OP(FETCH_ADD),
		       tx->psn);
	ateth = &tx->hdr.ohdr->u.atomic_eth;
	put_ib_ateth_vaddr(wqe->atomic_wr.remote_addr, ateth);
	ateth->rkey = cpu_to_be32(wqe->atomic_wr.rkey);
	put_ib_ateth_swap(cas ? wqe->atomic_wr.swap :
				wqe->atomic_wr.compare_add, ateth);
	put_ib_ateth_compare(cas ? wqe->atomic_wr.compare_add : 0, ateth);
	tx->ss = NULL;
	tx->len = 0;
	qp->s_state = cas ? OP(COMPARE_SWAP) : OP(FETCH_ADD);
	qp->s_psn++;
	rvtsw_req_done(qp, tx);
}

/*
 * A local operation (REG_MR, LOCAL_INV) at the head of the queue, done
 * once every request before it is complete (RC: acknowledged; an ACK
 * ends the wait). Return: 0 if done, -1 if it must wait.
 */
static int rvtsw_req_local(struct rvt_qp *qp, struct rvt_swqe *wqe)
{
	bool deferred = !(wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY);
	int err = 0;

	if (qp->s_last != qp->s_cur) {
		qp->s_flags |= RVT_S_WAIT_ACK;
		return -1;
	}
	qp->s_cur = rvtsw_next_swqe(qp, qp->s_cur);
	qp->s_tail = rvtsw_next_swqe(qp, qp->s_tail);
	/* rdmavt left an invalidation behind earlier requests to us. */
	if (deferred)
		err = rvt_invalidate_rkey(qp, wqe->wr.ex.invalidate_rkey);
	rvt_send_complete(qp, wqe, err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
	if (deferred)
		atomic_dec(&qp->local_ops_pending);
	return 0;
}

/*
 * The first packet of a request the requester starts, or starts again
 * from its beginning. Return: 1 with a packet in @tx, 0 for a local
 * operation done, -1 if it must wait.
 */
static int rvtsw_rc_begin(struct rvt_qp *qp, struct rvt_swqe *wqe,
			  struct rvtsw_tx *tx, bool newreq)
{
	switch (wqe->wr.opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/* They take a receive WQE: the responder must have one. */
		if (!rvt_rc_credit_avail(qp, wqe))
			return -1;
		break;
	case IB_WR_RDMA_WRITE:
		if (newreq && !(qp->s_flags & RVT_S_UNLIMITED_CREDIT))
			qp->s_lsn++;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!rvtsw_rc_rd_atomic_slot(qp, newreq))
			return -1;
		break;
	default:
		return rvtsw_req_local(qp, wqe);
	}
	if (newreq)
		qp->s_tail = rvtsw_next_swqe(qp, qp->s_tail);
	rvtsw_req_start_sge(qp, wqe);
	if (wqe->wr.opcode == IB_WR_RDMA_READ)
		rvtsw_rc_read(qp, wqe, tx);
	else if (rvtsw_wqe_rd_atomic(wqe))
		rvtsw_rc_atomic(qp, wqe, tx);
	else
		rvtsw_req_data(qp, wqe, tx, IB_OPCODE_RC, true);
	return 1;
}

/*
 * Go back into the request at s_cur at s_psn, after a restart: a READ
 * asks again for the rest; a SEND or WRITE rewinds its SGEs there and
 * goes on with MIDDLE packets (its FIRST, and a WRITE's RETH, went).
 */
static void rvtsw_rc_resume(struct rvt_qp *qp, struct rvt_swqe *wqe,
			    struct rvtsw_tx *tx)
{
	u32 done = ((qp->s_psn - wqe->psn) & RVTSW_PSN_MASK) * qp->pmtu;

	if (wqe->wr.opcode == IB_WR_RDMA_READ) {
		rvtsw_rc_read(qp, wqe, tx);
		return;
	}
	qp->s_len = rvt_restart_sge(&qp->s_sge, wqe, done);
	rvtsw_req_data(qp, wqe, tx, IB_OPCODE_RC, false);
}

/* Is the request at s_cur under way: its FIRST or a MIDDLE sent? */
static bool rvtsw_req_under_way(u8 state)
{
	switch (state & 0x1f) {
	case IB_OPCODE_SEND_FIRST:
	case IB_OPCODE_SEND_MIDDLE:
	case IB_OPCODE_RDMA_WRITE_FIRST:
	case IB_OPCODE_RDMA_WRITE_MIDDLE:
		return true;
	default:
		return false;
	}
}

/*
 * In an error state, complete the oldest request: with success if it
 * was acknowledged (its completion waited for its last packet to go),
 * else as flushed. Return: 0 if one was, -1 if none is left.
 */
static int rvtsw_req_flush(struct rvt_qp *qp)
{
	if (!(ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND) ||
	    qp->s_last == READ_ONCE(qp->s_head))
		return -1;
	rvt_send_complete(qp, rvt_get_swqe_ptr(qp, qp->s_last),
			  qp->s_last != qp->s_acked ? IB_WC_SUCCESS :
						      IB_WC_WR_FLUSH_ERR);
	return 0;
}

/* Ask for an ACK now and then in a long request, and after a timeout. */
static void rvtsw_rc_ack_req(struct rvt_qp *qp, struct rvt_swqe *wqe,
			     struct rvtsw_tx *tx)
{
	u32 delta = (tx->psn - wqe->psn) & RVTSW_PSN_MASK;

	if (delta && delta % RVTSW_PSN_CREDIT == 0)
		tx->ack_req = true;
	/* After a timeout: one packet, then wait for its ACK. */
	if (qp->s_flags & RVT_S_SEND_ONE) {
		qp->s_flags &= ~RVT_S_SEND_ONE;
		qp->s_flags |= RVT_S_WAIT_ACK;
		tx->ack_req = true;
	}
	if (tx->ack_req)
		tx->hdr.ohdr->bth[2] |= cpu_to_be32(IB_BTH_REQ_ACK);
}

/*
 * The next request packet of an RC QP whose state lets it send. Return:
 * as rvtsw_rc_make_req().
 */
static int rvtsw_rc_next(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	struct rvtsw_qp_priv *priv = qp->priv;
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
	bool newreq = false;
	int ret = 1;

	if (priv->s_resume) {
		priv->s_resume = false;
		rvtsw_rc_resume(qp, wqe, tx);
	} else if (rvtsw_req_under_way(qp->s_state)) {
		rvtsw_req_data(qp, wqe, tx, IB_OPCODE_RC, false);
	} else {
		if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK))
			return -1;
		if (qp->s_cur == qp->s_tail) {
			if (qp->s_tail == READ_ONCE(qp->s_head))
				return -1;
			if ((wqe->wr.send_flags & IB_SEND_FENCE) &&
			    qp->s_num_rd_atomic) {
				qp->s_flags |= RVT_S_WAIT_FENCE;
				return -1;
			}
			newreq = true;
			qp->s_psn = wqe->psn;
		}
		ret = rvtsw_rc_begin(qp, wqe, tx, newreq);
	}
	if (ret != 1)
		return ret;
	/* The request's buffers are being read: see rvtsw_rc_complete(). */
	if (tx->len) {
		qp->s_sending_psn = tx->psn;
		qp->s_sending_hpsn = tx->psn;
	}
	rvtsw_rc_ack_req(qp, wqe, tx);
	return 1;
}

/**
 * rvtsw_rc_make_req - build an RC QP's next packet
 * @qp: the QP
 * @tx: where the packet goes
 *
 * Responses (READ data, atomic results, ACKs that had to wait) go
 * before new requests.
 *
 * Context: the QP's send engine, r_lock and s_lock held.
 * Return: 1 with a packet in @tx; 0 if the QP made progress without one
 * (a request completed in an error state, a local operation done); -1 if
 * there is nothing to do now.
 */
int rvtsw_rc_make_req(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	memset(tx, 0, sizeof(*tx));
	tx->kind = RVTSW_TX_RESPONSE;
	if ((qp->s_flags & RVT_S_RESP_PENDING) && rvtsw_rc_make_resp(qp, tx))
		return 1;
	tx->kind = RVTSW_TX_REQUEST;
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_SEND_OK))
		return rvtsw_req_flush(qp);
	if (qp->s_flags & (RVT_S_WAIT_RNR | RVT_S_WAIT_ACK))
		return -1;
	return rvtsw_rc_next(qp, tx);
}

/**
 * rvtsw_uc_make_req - build a UC QP's next packet
 * @qp: the QP
 * @tx: where the packet goes
 *
 * Context: the QP's send engine, r_lock and s_lock held.
 * Return: as rvtsw_rc_make_req().
 */
int rvtsw_uc_make_req(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	struct rvt_swqe *wqe;

	memset(tx, 0, sizeof(*tx));
	tx->kind = RVTSW_TX_UC;
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_SEND_OK))
		return rvtsw_req_flush(qp);
	wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
	if (rvtsw_req_under_way(qp->s_state)) {
		rvtsw_req_data(qp, wqe, tx, IB_OPCODE_UC, false);
	} else {
		if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK) ||
		    qp->s_cur == READ_ONCE(qp->s_head))
			return -1;
		if (wqe->wr.opcode != IB_WR_SEND &&
		    wqe->wr.opcode != IB_WR_SEND_WITH_IMM &&
		    wqe->wr.opcode != IB_WR_RDMA_WRITE &&
		    wqe->wr.opcode != IB_WR_RDMA_WRITE_WITH_IMM)
			return rvtsw_req_local(qp, wqe);
		qp->s_psn = wqe->psn;
		rvtsw_req_start_sge(qp, wqe);
		rvtsw_req_data(qp, wqe, tx, IB_OPCODE_UC, true);
	}
	/* UC asks for no ACK; its last packet completes the request. */
	if (tx->ack_req) {
		tx->ack_req = false;
		tx->wqe = wqe;
	}
	return 1;
}

/*
 * Point the requester at @psn within the request at s_acked or after
 * it: a request's start, or inside it (priv->s_resume).
 */
void rvtsw_rc_reset_psn(struct rvt_qp *qp, u32 psn)
{
	struct rvtsw_qp_priv *priv = qp->priv;
	u32 n = qp->s_acked;
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, n);

	qp->s_cur = n;
	priv->s_resume = false;
	qp->s_state = OP(SEND_LAST);
	qp->s_psn = psn;
	if (rvtsw_cmp_psn(psn, wqe->psn) <= 0)
		return;
	/* The request the PSN falls in: the last one starting at or before it. */
	for (n = rvtsw_next_swqe(qp, n); n != qp->s_tail;
	     n = rvtsw_next_swqe(qp, n)) {
		int diff;

		wqe = rvt_get_swqe_ptr(qp, n);
		diff = rvtsw_cmp_psn(psn, wqe->psn);
		if (diff < 0)
			break;
		qp->s_cur = n;
		if (diff == 0)
			return;
	}
	wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
	if (rvtsw_cmp_psn(psn, wqe->lpsn) <= 0) {
		priv->s_resume = true;
		return;
	}
	/* Past the request's last PSN: the next one, from its start. */
	qp->s_cur = rvtsw_next_swqe(qp, qp->s_cur);
	if (qp->s_cur != qp->s_tail)
		qp->s_psn = rvt_get_swqe_ptr(qp, qp->s_cur)->psn;
}

/**
 * rvtsw_rc_restart - send again from an earlier PSN
 * @qp: the RC QP
 * @psn: the first PSN to send again
 * @wait: after a timeout: send one packet, then wait for its ACK
 *
 * Each restart uses one of the QP's retries (s_retry); with none left
 * the oldest request completes with IB_WC_RETRY_EXC_ERR and the QP goes
 * to the error state. rdmavt's retry timer calls it (notify_restart_rc),
 * and so do a sequence NAK and a response out of sequence.
 *
 * Context: r_lock and s_lock held; any context (the timer: softirq).
 */
void rvtsw_rc_restart(struct rvt_qp *qp, u32 psn, int wait)
{
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	struct rvt_ibport *rvp = rvt_to_iport(qp);

	if (qp->s_acked == qp->s_tail)
		return;
	if (!qp->s_retry) {
		/* Requests acknowledged but not completed go first. */
		if (qp->s_last == qp->s_acked) {
			rvt_send_complete(qp, wqe, IB_WC_RETRY_EXC_ERR);
			rvt_error_qp(qp, IB_WC_WR_FLUSH_ERR);
		}
		return;
	}
	qp->s_retry--;
	if (wqe->wr.opcode == IB_WR_RDMA_READ)
		rvp->n_rc_resends++;
	else
		rvp->n_rc_resends += (qp->s_psn - psn) & RVTSW_PSN_MASK;
	qp->s_flags &= ~(RVT_S_WAIT_FENCE | RVT_S_WAIT_RDMAR |
			 RVT_S_WAIT_SSN_CREDIT | RVT_S_WAIT_PSN |
			 RVT_S_WAIT_ACK);
	if (wait)
		qp->s_flags |= RVT_S_SEND_ONE;
	rvtsw_rc_reset_psn(qp, psn);
}
