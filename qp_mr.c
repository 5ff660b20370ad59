// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A QP's references on memory regions.
 *
 * A QP holds an MR reference for every SGE it has validated and not yet
 * finished with: the send requests between s_last and s_head, the receive
 * in progress (r_sge), an RDMA read being received (s_rdma_read_sge,
 * while RVT_R_REWIND_SGE is set), the MR of an RDMA read or atomic
 * response being sent (s_rdma_mr) and the responses queued in
 * s_ack_queue. Deregistering an MR waits for its references, so a reset or
 * error must give them back, and deregistration asks QPs still using the
 * MR to let go (rvt_qp_mr_clean()).
 */
#include "vt.h"
#include "qp.h"

/**
 * rvt_swqe_has_lkey - whether a send request uses an MR
 * @wqe: the send queue entry
 * @lkey: the MR's key
 *
 * Context: s_lock held.
 * Return: true if one of the request's SGEs is in the MR.
 */
static bool rvt_swqe_has_lkey(struct rvt_swqe *wqe, u32 lkey)
{
	u32 i;

	for (i = 0; i < wqe->wr.num_sge; i++)
		if (rvt_mr_has_lkey(wqe->sg_list[i].mr, lkey))
			return true;
	return false;
}

/**
 * rvt_qp_sends_has_lkey - whether a QP's send side uses an MR
 * @qp: the QP
 * @lkey: the MR's key
 *
 * Context: s_hlock and s_lock held.
 * Return: true if a posted, uncompleted send request or the response
 * being sent uses the MR.
 */
static bool rvt_qp_sends_has_lkey(struct rvt_qp *qp, u32 lkey)
{
	u32 i;

	for (i = qp->s_last; i != qp->s_head; i = rvt_qp_swqe_incr(qp, i))
		if (rvt_swqe_has_lkey(rvt_get_swqe_ptr(qp, i), lkey))
			return true;
	return rvt_mr_has_lkey(qp->s_rdma_mr, lkey);
}

/**
 * rvt_qp_acks_has_lkey - whether a QP's queued responses use an MR
 * @qp: the QP
 * @lkey: the MR's key
 *
 * Context: s_lock held.
 * Return: true if an RDMA read response in s_ack_queue uses the MR.
 */
static bool rvt_qp_acks_has_lkey(struct rvt_qp *qp, u32 lkey)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	u32 i;

	if (!qp->s_ack_queue)
		return false;
	for (i = 0; i < rvt_max_atomic(rdi); i++)
		if (rvt_mr_has_lkey(qp->s_ack_queue[i].rdma_sge.mr, lkey))
			return true;
	return false;
}

/**
 * rvt_qp_mr_clean - make a QP let go of an MR being deregistered
 * @qp: the QP
 * @lkey: the MR's key
 *
 * A QP that still uses the MR is moved to ERR with IB_WC_LOC_PROT_ERR,
 * which drops its references. QP0 and QP1 are left alone: they only use
 * the kernel's own memory.
 *
 * Context: process context, without the QP's locks (from MR
 * deregistration through rvt_qp_iter()).
 */
void rvt_qp_mr_clean(struct rvt_qp *qp, u32 lkey)
{
	bool lastwqe = false;

	if (rvt_qp_is_special(qp->ibqp.qp_type))
		return;
	rvt_qp_lock(qp);
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET &&
	    (rvt_ss_has_lkey(&qp->r_sge, lkey) ||
	     rvt_qp_sends_has_lkey(qp, lkey) ||
	     rvt_qp_acks_has_lkey(qp, lkey)))
		lastwqe = rvt_error_qp(qp, IB_WC_LOC_PROT_ERR);
	rvt_qp_unlock(qp);
	if (lastwqe)
		rvt_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * rvt_put_sends - drop the references of every uncompleted send request
 * @qp: a QP being reset
 *
 * Context: QP locks held.
 */
static void rvt_put_sends(struct rvt_qp *qp)
{
	u32 last;

	for (last = qp->s_last; last != qp->s_head;
	     last = rvt_qp_swqe_incr(qp, last))
		rvt_put_qp_swqe(qp, rvt_get_swqe_ptr(qp, last));
	/* Pairs with the acquire in the post path's free-space check. */
	smp_store_release(&qp->s_last, last);
	if (qp->s_rdma_mr) {
		rvt_put_mr(qp->s_rdma_mr);
		qp->s_rdma_mr = NULL;
	}
}

/**
 * rvt_put_acks - drop the references of queued RDMA read responses
 * @qp: the QP
 *
 * Context: s_lock held.
 */
static void rvt_put_acks(struct rvt_qp *qp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	u32 i;

	if (!qp->s_ack_queue)
		return;
	for (i = 0; i < rvt_max_atomic(rdi); i++) {
		struct rvt_ack_entry *e = &qp->s_ack_queue[i];

		if (e->rdma_sge.mr) {
			rvt_put_mr(e->rdma_sge.mr);
			e->rdma_sge.mr = NULL;
		}
	}
}

/**
 * rvt_clear_mr_refs - drop a QP's memory region references
 * @qp: the QP, in RESET or ERR
 * @clr_sends: also drop those of the send queue: true on reset, false on
 *	       error, where the send engine still completes the requests
 *	       (with a flush error) and drops their references itself
 *
 * Context: r_lock, s_hlock and s_lock held (s_hlock only needed with
 * @clr_sends).
 */
void rvt_clear_mr_refs(struct rvt_qp *qp, bool clr_sends)
{
	if (test_and_clear_bit(RVT_R_REWIND_SGE, &qp->r_aflags))
		rvt_put_ss(&qp->s_rdma_read_sge);
	rvt_put_ss(&qp->r_sge);
	if (clr_sends)
		rvt_put_sends(qp);
	rvt_put_acks(qp);
}
