// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What an RC responder sends back: ACKs and NAKs, RDMA READ responses
 * and atomic acknowledgments (IBTA vol. 1, 9.7.5.1 and 9.7.5.2).
 *
 * ACKs are coalesced: a request that asks for one puts its QP on its
 * port's ack_wait list (qp->rspwait, holding a reference on the QP), and
 * when the receive worker's run ends (rvtsw_rc_flush_acks()) each QP on
 * it sends one ACK, for the newest PSN it executed (r_ack_psn), with
 * its credits (rvt_compute_aeth()). An RNR or sequence NAK goes the
 * same way; a NAK that ends the QP (invalid request, access or
 * operational error) goes at once, before the QP enters the error state
 * in which it sends nothing more.
 *
 * READ responses and atomic acknowledgments come from the ACK queue
 * (s_ack_queue, s_tail_ack_queue up to r_head_ack_queue), built by the
 * QP's send engine (rvtsw_rc_make_resp(), ahead of its requests). An
 * ACK must not pass them: while any is pending (RVT_S_RESP_PENDING) or
 * being sent (s_rdma_ack_cnt), the ACK is left to the engine too
 * (RVT_S_ACK_PENDING, s_ack_psn, s_nak_state). A READ response's data
 * is copied out of the entry's memory without the QP's locks; a
 * reference on its MR (s_rdma_mr) keeps it while a new request reuses
 * the entry.
 *
 * Locking: the QP's r_lock, then s_lock, around everything here but the
 * transmission; the ack_wait list is the port's receive worker's alone.
 */
#include "wire.h"

#define OP(x) IB_OPCODE_RC_##x

/* The AETH of a NAK with @syndrome, or of an ACK if it is 0. */
static __be32 rvtsw_rc_aeth(struct rvt_qp *qp, u8 syndrome)
{
	if (!syndrome)
		return rvt_compute_aeth(qp);
	return cpu_to_be32((qp->r_msn & IB_MSN_MASK) |
			   (u32)syndrome << IB_AETH_CREDIT_SHIFT);
}

/* An ACK or NAK packet for @psn. Return: the packet, or NULL. */
static struct sk_buff *rvtsw_rc_ack_packet(struct rvt_qp *qp, u32 psn,
					   __be32 aeth)
{
	struct rvtsw_hdr hdr;
	struct sk_buff *skb;
	void *payload;

	rvtsw_conn_hdr(qp, &hdr, OP(ACKNOWLEDGE), psn & RVTSW_PSN_MASK);
	hdr.ohdr->u.aeth = aeth;
	skb = rvtsw_pkt_alloc(&hdr, 0, &payload);
	if (skb)
		rvtsw_pkt_finish(skb);
	return skb;
}

/* Send @skb, an ACK or NAK of @qp's, from the QP's port. */
static void rvtsw_rc_ack_xmit(struct rvt_qp *qp, struct sk_buff *skb)
{
	struct rvtsw_port *port = rvtsw_qp_port(qp);

	if (!skb) {
		rvtsw_count(port, RVTSW_CNT_DROP_NOMEM);
		return;
	}
	rvtsw_count(port, RVTSW_CNT_RC_ACKS);
	rvtsw_port_xmit(port, skb);
}

/**
 * rvtsw_rc_nak_now - send a NAK that ends the QP, before it does
 * @qp: the QP, still in a state that receives; r_nak_state and
 *	r_ack_psn say what to send
 *
 * Context: the receive worker, r_lock held.
 */
void rvtsw_rc_nak_now(struct rvt_qp *qp)
	__must_hold(&qp->r_lock)
{
	__be32 aeth = rvtsw_rc_aeth(qp, qp->r_nak_state);

	rvtsw_rc_ack_xmit(qp, rvtsw_rc_ack_packet(qp, qp->r_ack_psn, aeth));
}

/**
 * rvtsw_rc_queue_ack - have a QP ACK (or NAK) at the end of the run
 * @port: the port whose receive worker runs
 * @qp: the QP; r_nak_state and r_ack_psn say what to send
 *
 * Context: the port's receive worker, r_lock held.
 */
void rvtsw_rc_queue_ack(struct rvtsw_port *port, struct rvt_qp *qp)
	__must_hold(&qp->r_lock)
{
	if (!list_empty(&qp->rspwait))
		return;
	rvt_get_qp(qp);
	list_add_tail(&qp->rspwait, &port->rxq.ack_wait);
}

/*
 * The ACK or NAK a QP owes: sent from here, or left to the send engine
 * if responses it must not pass are pending. Return: the packet to send,
 * or NULL.
 */
static struct sk_buff *rvtsw_rc_owed_ack(struct rvt_qp *qp)
	__must_hold(&qp->r_lock) __must_hold(&qp->s_lock)
{
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK))
		return NULL;
	if ((qp->s_flags & RVT_S_RESP_PENDING) || qp->s_rdma_ack_cnt) {
		qp->s_flags |= RVT_S_ACK_PENDING | RVT_S_RESP_PENDING;
		qp->s_nak_state = qp->r_nak_state;
		qp->s_ack_psn = qp->r_ack_psn;
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
		return NULL;
	}
	return rvtsw_rc_ack_packet(qp, qp->r_ack_psn,
				   rvtsw_rc_aeth(qp, qp->r_nak_state));
}

/**
 * rvtsw_rc_flush_acks - the ACKs and NAKs a receive run owes
 * @port: the port whose run ends
 *
 * Context: the port's receive worker (softirq), no QP lock held.
 */
void rvtsw_rc_flush_acks(struct rvtsw_port *port)
{
	struct list_head *wait = &port->rxq.ack_wait;
	struct rvt_qp *qp;
	struct sk_buff *skb;
	unsigned long flags;

	while (!list_empty(wait)) {
		qp = list_first_entry(wait, struct rvt_qp, rspwait);
		list_del_init(&qp->rspwait);
		rvtsw_qp_lock(qp, &flags);
		skb = rvtsw_rc_owed_ack(qp);
		rvtsw_qp_unlock(qp, flags);
		if (skb)
			rvtsw_rc_ack_xmit(qp, skb);
		rvt_put_qp(qp);
	}
}

/* The send engine builds the ACK that had to wait for the responses. */
static void rvtsw_rc_resp_ack(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	qp->s_ack_state = OP(SEND_ONLY);
	qp->s_flags &= ~RVT_S_ACK_PENDING;
	tx->psn = qp->s_ack_psn & RVTSW_PSN_MASK;
	rvtsw_conn_hdr(qp, &tx->hdr, OP(ACKNOWLEDGE), tx->psn);
	tx->hdr.ohdr->u.aeth = rvtsw_rc_aeth(qp, qp->s_nak_state);
}

/*
 * A READ response of @len bytes of the entry being answered, its opcode
 * in s_ack_state; @last: the entry's last.
 */
static void rvtsw_rc_resp_data(struct rvt_qp *qp, struct rvtsw_tx *tx,
			       u32 len, bool last)
{
	struct rvt_ack_entry *e = &qp->s_ack_queue[qp->s_tail_ack_queue];

	tx->psn = qp->s_ack_rdma_psn++ & RVTSW_PSN_MASK;
	rvtsw_conn_hdr(qp, &tx->hdr, qp->s_ack_state, tx->psn);
	/* The first and last responses carry an AETH. */
	if (qp->s_ack_state != OP(RDMA_READ_RESPONSE_MIDDLE))
		tx->hdr.ohdr->u.aeth = rvt_compute_aeth(qp);
	if (last)
		e->sent = 1;
	/* The entry's MR may be let go meanwhile: hold it for the copy. */
	qp->s_rdma_mr = qp->s_ack_rdma_sge.sge.mr;
	if (qp->s_rdma_mr)
		rvt_get_mr(qp->s_rdma_mr);
	tx->ss = len ? &qp->s_ack_rdma_sge : NULL;
	tx->len = len;
}

/* The READ response after a FIRST or MIDDLE: a MIDDLE, or the LAST. */
static void rvtsw_rc_resp_more(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	u32 len = qp->s_ack_rdma_sge.sge.sge_length;
	bool last = len <= qp->pmtu;

	qp->s_ack_state = last ? OP(RDMA_READ_RESPONSE_LAST) :
				 OP(RDMA_READ_RESPONSE_MIDDLE);
	rvtsw_rc_resp_data(qp, tx, last ? len : qp->pmtu, last);
}

/* The atomic acknowledgment of the entry at s_tail_ack_queue. */
static void rvtsw_rc_resp_atomic(struct rvt_qp *qp, struct rvtsw_tx *tx,
				 struct rvt_ack_entry *e)
{
	struct ib_other_headers *ohdr;

	qp->s_ack_state = OP(ATOMIC_ACKNOWLEDGE);
	tx->psn = e->psn & RVTSW_PSN_MASK;
	rvtsw_conn_hdr(qp, &tx->hdr, qp->s_ack_state, tx->psn);
	ohdr = tx->hdr.ohdr;
	ohdr->u.at.aeth = rvt_compute_aeth(qp);
	ib_u64_put(e->atomic_data, &ohdr->u.at.atomic_ack_eth);
	e->sent = 1;
}

/*
 * The first response to the entry at s_tail_ack_queue. Return: false if
 * it cannot go.
 */
static bool rvtsw_rc_resp_start(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	struct rvt_ack_entry *e = &qp->s_ack_queue[qp->s_tail_ack_queue];
	u32 len = e->rdma_sge.sge_length;
	bool last = len <= qp->pmtu;

	if (e->opcode != OP(RDMA_READ_REQUEST)) {
		rvtsw_rc_resp_atomic(qp, tx, e);
		return true;
	}
	/*
	 * An entry whose last response went has given its MR back: it is
	 * answered again only once its duplicate request checked the key
	 * again (wire_resp.c).
	 */
	if (len && !e->rdma_sge.mr) {
		qp->s_tail_ack_queue = qp->r_head_ack_queue;
		return false;
	}
	qp->s_ack_rdma_sge.sge = e->rdma_sge;
	qp->s_ack_rdma_sge.num_sge = 1;
	qp->s_ack_rdma_psn = e->psn;
	qp->s_ack_state = last ? OP(RDMA_READ_RESPONSE_ONLY) :
				 OP(RDMA_READ_RESPONSE_FIRST);
	rvtsw_rc_resp_data(qp, tx, last ? len : qp->pmtu, last);
	return true;
}

/* The response after the last one built: the next entry's, an ACK, or none. */
static bool rvtsw_rc_resp_next(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_ack_entry *e;

	switch (qp->s_ack_state) {
	case OP(RDMA_READ_RESPONSE_LAST):
	case OP(RDMA_READ_RESPONSE_ONLY):
		/* Its last response went: the entry's memory is done with. */
		e = &qp->s_ack_queue[qp->s_tail_ack_queue];
		if (e->rdma_sge.mr) {
			rvt_put_mr(e->rdma_sge.mr);
			e->rdma_sge.mr = NULL;
		}
		fallthrough;
	case OP(ATOMIC_ACKNOWLEDGE):
		if (++qp->s_tail_ack_queue > rvt_size_atomic(rdi))
			qp->s_tail_ack_queue = 0;
		break;
	case OP(RDMA_READ_RESPONSE_FIRST):
	case OP(RDMA_READ_RESPONSE_MIDDLE):
		rvtsw_rc_resp_more(qp, tx);
		return true;
	default:
		break;
	}
	if (qp->r_head_ack_queue != qp->s_tail_ack_queue &&
	    rvtsw_rc_resp_start(qp, tx))
		return true;
	if (!(qp->s_flags & RVT_S_ACK_PENDING))
		return false;
	rvtsw_rc_resp_ack(qp, tx);
	return true;
}

/**
 * rvtsw_rc_make_resp - build a responder's next response
 * @qp: the RC QP, with RVT_S_RESP_PENDING set
 * @tx: where the packet goes (its kind already a response)
 *
 * Context: the QP's send engine, r_lock and s_lock held.
 * Return: 1 with a packet in @tx, 0 if there is none to send (then no
 * response is pending any more).
 */
int rvtsw_rc_make_resp(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	if ((ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK) &&
	    rvtsw_rc_resp_next(qp, tx)) {
		qp->s_rdma_ack_cnt++;
		return 1;
	}
	qp->s_ack_state = OP(ACKNOWLEDGE);
	qp->s_flags &= ~(RVT_S_RESP_PENDING | RVT_S_ACK_PENDING);
	return 0;
}
