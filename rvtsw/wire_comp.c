// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An RC requester's completions: a request completes once the responder
 * has acknowledged all of it (wire_ack.c calls rvtsw_rc_complete()), but
 * not while one of its packets is being built.
 *
 * The send engine copies a packet's payload out of the request's
 * buffers without the QP's locks, and an ACK for an earlier copy of the
 * same PSNs (the request is being sent again) may come meanwhile.
 * Completing the request would drop its MR references under the copy.
 * So the engine marks the PSN it is sending, s_sending_psn to
 * s_sending_hpsn (one packet; the range is empty, s_sending_psn past
 * s_sending_hpsn, when nothing is being sent), and a request that
 * reaches into it is only acknowledged: s_acked moves on, s_last stays,
 * and rvtsw_rc_sent() completes it, with rvt_qp_complete_swqe(), once
 * the packet is out. Completions stay in order: once one waits, every
 * later one does too, until the packet is out.
 *
 * rvtsw_rc_sent() also starts rdmavt's retry timer when a packet that
 * asks for an ACK goes and none is running.
 *
 * Locking: the QP's r_lock and s_lock are held throughout.
 */
#include "wire.h"

/* Is the packet being sent, if any, reading from @wqe's buffers? */
static bool rvtsw_rc_wqe_sending(struct rvt_qp *qp, const struct rvt_swqe *wqe)
{
	return rvtsw_cmp_psn(qp->s_sending_psn, qp->s_sending_hpsn) <= 0 &&
	       rvtsw_cmp_psn(wqe->lpsn, qp->s_sending_psn) >= 0;
}

/* Complete the request at s_last, which the responder acknowledged. */
static void rvtsw_rc_complete_last(struct rvt_qp *qp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_last);

	rvt_qp_complete_swqe(qp, wqe, rdi->wc_opcode[wqe->wr.opcode],
			     IB_WC_SUCCESS);
}

/**
 * rvtsw_rc_sent - an RC request packet has gone
 * @qp: the QP
 * @tx: the packet
 *
 * Context: the QP's send engine, r_lock and s_lock held.
 */
void rvtsw_rc_sent(struct rvt_qp *qp, const struct rvtsw_tx *tx)
{
	if (!(ib_rvt_state_ops[qp->state] & RVT_SEND_OR_FLUSH_OR_RECV_OK))
		return;
	/* Nothing is being sent any more. */
	qp->s_sending_psn = qp->s_sending_hpsn + 1;
	if (tx->ack_req && qp->s_acked != qp->s_tail &&
	    !(qp->s_flags & (RVT_S_TIMER | RVT_S_WAIT_RNR)) &&
	    (ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK))
		rvt_add_retry_timer(qp);
	while (qp->s_last != qp->s_acked)
		rvtsw_rc_complete_last(qp);
}

/**
 * rvtsw_rc_complete - the responder acknowledged a whole request
 * @qp: the QP
 * @wqe: the request, the one at s_acked
 *
 * The request completes, or waits to (see above) if a packet being sent
 * reads from its buffers. A request being sent again stops being sent:
 * the responder has it.
 *
 * Context: r_lock and s_lock held.
 * Return: the request at s_acked now.
 */
struct rvt_swqe *rvtsw_rc_complete(struct rvt_qp *qp, struct rvt_swqe *wqe)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	if (qp->s_last == qp->s_acked && !rvtsw_rc_wqe_sending(qp, wqe))
		rvtsw_rc_complete_last(qp);
	else
		rvtsw_count(rvtsw_qp_port(qp), RVTSW_CNT_RC_DELAYED_COMP);
	qp->s_retry = qp->s_retry_cnt;
	qp->s_last_psn = wqe->lpsn;
	if (qp->s_acked == qp->s_cur) {
		qp->s_cur = rvt_qp_swqe_incr(qp, qp->s_cur);
		qp->s_acked = qp->s_cur;
		priv->s_resume = false;
		if (qp->s_acked != qp->s_tail) {
			qp->s_state = IB_OPCODE_RC_SEND_LAST;
			qp->s_psn = rvt_get_swqe_ptr(qp, qp->s_cur)->psn;
		}
	} else {
		qp->s_acked = rvt_qp_swqe_incr(qp, qp->s_acked);
		if (qp->state == IB_QPS_SQD && qp->s_acked == qp->s_cur)
			qp->s_draining = 0;
	}
	return rvt_get_swqe_ptr(qp, qp->s_acked);
}
