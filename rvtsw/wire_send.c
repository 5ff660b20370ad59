// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The send engine of an RC or UC QP whose peer is reached over the wire.
 *
 * One run of it at a time per QP (RVT_S_BUSY, set and cleared under
 * s_lock, as rdmavt's loopback engine does): it builds a packet's headers
 * with the QP's r_lock and s_lock held (wire_req.c for requests,
 * wire_reply.c for an RC responder's responses, which go first), drops
 * both while it copies the payload and sends the packet (wire_tx.c),
 * then takes them again to account for it: an RC request's PSN is no
 * longer being sent (wire_comp.c), a response's MR reference goes, a UC
 * request whose last packet went completes. Both locks, in rdmavt's
 * order, because a completion may find the send CQ full, and rdmavt then
 * moves the QP to the error state, which needs both.
 *
 * The engine stops when there is nothing to send, when the QP must wait
 * (for an ACK, credits, an RNR timer, room for its packets in flight:
 * each of those schedules it again), or after RVTSW_WIRE_BUDGET packets,
 * when it hands the rest to the QP's work item. rdmavt runs it from
 * post_send (in the poster's context), the work item, and, through
 * schedule_send, from its timers and the receive path.
 */
#include "wire.h"

/* Packets one run sends before it lets the work item go on. */
#define RVTSW_WIRE_BUDGET 64

/*
 * Take the engine, if no other run has it and the QP has anything to
 * send: requests (or their flush, in an error state), or responses.
 */
static bool rvtsw_wire_claim(struct rvt_qp *qp)
	__must_hold(&qp->s_lock)
{
	if (qp->s_flags & RVT_S_BUSY)
		return false;
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND) &&
	    !(qp->s_flags & RVT_S_RESP_PENDING))
		return false;
	qp->s_flags |= RVT_S_BUSY;
	return true;
}

/* A packet went: account for it. */
static void rvtsw_wire_sent(struct rvt_qp *qp, const struct rvtsw_tx *tx)
	__must_hold(&qp->r_lock) __must_hold(&qp->s_lock)
{
	switch (tx->kind) {
	case RVTSW_TX_REQUEST:
		rvtsw_rc_sent(qp, tx);
		break;
	case RVTSW_TX_RESPONSE:
		qp->s_rdma_ack_cnt--;
		if (qp->s_rdma_mr) {
			rvt_put_mr(qp->s_rdma_mr);
			qp->s_rdma_mr = NULL;
		}
		break;
	case RVTSW_TX_UC:
		if (tx->wqe)
			rvt_send_complete(qp, tx->wqe, IB_WC_SUCCESS);
		break;
	}
}

/**
 * rvtsw_wire_send - run the send engine of a connected QP
 * @qp: the RC or UC QP
 *
 * Context: any; takes the QP's locks with interrupts saved; no lock held.
 */
void rvtsw_wire_send(struct rvt_qp *qp)
{
	int (*make)(struct rvt_qp *qp, struct rvtsw_tx *tx);
	unsigned int budget = RVTSW_WIRE_BUDGET;
	unsigned long flags;
	struct rvtsw_tx tx;
	int made;

	make = qp->ibqp.qp_type == IB_QPT_RC ? rvtsw_rc_make_req :
					       rvtsw_uc_make_req;
	rvtsw_qp_lock(qp, &flags);
	if (!rvtsw_wire_claim(qp))
		goto unlock;
	while (budget) {
		if (!rvtsw_tx_room(qp))
			break;
		made = make(qp, &tx);
		if (made < 0)
			break;
		budget--;
		if (!made)
			continue;
		rvtsw_qp_unlock(qp, flags);
		rvtsw_conn_transmit(qp, &tx);
		rvtsw_qp_lock(qp, &flags);
		rvtsw_wire_sent(qp, &tx);
	}
	if (!budget)
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	qp->s_flags &= ~RVT_S_BUSY;
unlock:
	rvtsw_qp_unlock(qp, flags);
}
