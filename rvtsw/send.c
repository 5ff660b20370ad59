// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The send engine: what rvtsw does with the requests on a QP's send queue.
 *
 * RC and UC requests to a port of the same device go through rdmavt's
 * loopback engine, rvt_ruc_loopback(), which plays both ends of the
 * connection. Datagrams (UD, GSI, SMI) go through rvtsw's own delivery
 * (ud.c), which reaches the ports of every rvtsw device. RC and UC
 * requests to any other LID have nowhere to go (see rvtsw_send_lost()).
 *
 * The engine runs from rdmavt's post_send (do_send, in the poster's
 * context, which may be atomic) and from the QP's work item. Both may
 * run at once: RVT_S_BUSY in s_flags, set and cleared under s_lock, lets
 * one of them work the queue at a time, as rvt_ruc_loopback() does. The
 * one that finds the queue empty clears RVT_S_BUSY in the same s_lock
 * section, so a request posted meanwhile is seen by it or by the next
 * engine, which then finds RVT_S_BUSY clear.
 */
#include <linux/delay.h>
#include "rvtsw.h"

/* Requests one engine run handles before handing over to the work item. */
#define RVTSW_SEND_BUDGET 64

/* The largest message IBTA allows. */
#define RVTSW_MAX_MSG_SIZE 0x80000000U

/* What the engine does with one request; returns its completion status. */
typedef enum ib_wc_status (*rvtsw_xmit_t)(struct rvt_qp *qp,
					  struct rvt_swqe *wqe);

/* Take the send queue for this engine run, if nobody else has it. */
static bool rvtsw_claim_sq(struct rvt_qp *qp)
	__must_hold(&qp->s_lock)
{
	if (qp->s_flags & (RVT_S_BUSY | RVT_S_ANY_WAIT))
		return false;
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	qp->s_flags |= RVT_S_BUSY;
	return true;
}

/* In an error state: complete the oldest request with a flush error. */
static bool rvtsw_flush_one(struct rvt_qp *qp)
	__must_hold(&qp->s_lock)
{
	if (!(ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND) ||
	    qp->s_last == READ_ONCE(qp->s_head))
		return false;
	rvt_send_complete(qp, rvt_get_swqe_ptr(qp, qp->s_last),
			  IB_WC_WR_FLUSH_ERR);
	return true;
}

/*
 * A connected request failed: the QP goes to the error state, as an RC
 * requester does when its retries run out. The caller's s_lock is dropped
 * to take r_lock first, as the lock order wants.
 */
static void rvtsw_sq_error(struct rvt_qp *qp, unsigned long *flags)
	__must_hold(&qp->s_lock)
{
	spin_unlock_irqrestore(&qp->s_lock, *flags);
	spin_lock_irqsave(&qp->r_lock, *flags);
	rvt_rc_error(qp, IB_WC_WR_FLUSH_ERR);
	spin_unlock_irqrestore(&qp->r_lock, *flags);
	spin_lock_irqsave(&qp->s_lock, *flags);
}

/*
 * Handle the next request: transmit it with s_lock dropped, then complete
 * it. Return: false when there is nothing (more) to do.
 */
static bool rvtsw_sq_step(struct rvt_qp *qp, rvtsw_xmit_t xmit,
			  unsigned long *flags)
	__must_hold(&qp->s_lock)
{
	enum ib_wc_status status;
	struct rvt_swqe *wqe;

	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK))
		return rvtsw_flush_one(qp);
	/* Pairs with the barrier before rvt_post_send() advances s_head. */
	if (qp->s_cur == smp_load_acquire(&qp->s_head))
		return false;

	wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
	if (++qp->s_cur >= qp->s_size)
		qp->s_cur = 0;
	/* RVT_S_BUSY keeps the request ours; posters need only s_hlock. */
	spin_unlock_irqrestore(&qp->s_lock, *flags);
	status = xmit(qp, wqe);
	spin_lock_irqsave(&qp->s_lock, *flags);

	/* A reset meanwhile discards the request without a completion. */
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	rvt_send_complete(qp, wqe, status);
	if (status != IB_WC_SUCCESS)
		rvtsw_sq_error(qp, flags);
	return true;
}

/*
 * Work the send queue with @xmit until it is empty, or hand the rest to
 * the work item after RVTSW_SEND_BUDGET requests.
 */
static void rvtsw_run_sq(struct rvt_qp *qp, rvtsw_xmit_t xmit)
{
	unsigned int budget = RVTSW_SEND_BUDGET;
	unsigned long flags;

	spin_lock_irqsave(&qp->s_lock, flags);
	if (!rvtsw_claim_sq(qp))
		goto unlock;
	while (rvtsw_sq_step(qp, xmit, &flags)) {
		if (--budget == 0) {
			rvtsw_schedule_send(qp);
			break;
		}
	}
	qp->s_flags &= ~RVT_S_BUSY;
unlock:
	spin_unlock_irqrestore(&qp->s_lock, flags);
}

/* A local operation (REG_MR, LOCAL_INV) the poster left to the engine. */
static enum ib_wc_status rvtsw_send_local(struct rvt_qp *qp,
					  struct rvt_swqe *wqe)
{
	enum ib_wc_status status = IB_WC_SUCCESS;

	if (wqe->wr.opcode != IB_WR_LOCAL_INV ||
	    (wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY))
		return status;
	/* rdmavt deferred this invalidation behind earlier requests. */
	if (rvt_invalidate_rkey(qp, wqe->wr.ex.invalidate_rkey))
		status = IB_WC_LOC_PROT_ERR;
	atomic_dec(&qp->local_ops_pending);
	return status;
}

/*
 * An RC or UC request to a LID outside the device: there is no wire for
 * it. UC does not know that (the request completes, the message is
 * lost); RC finds out when its retries run out, and the QP goes to the
 * error state.
 */
static enum ib_wc_status rvtsw_send_lost(struct rvt_qp *qp,
					 struct rvt_swqe *wqe)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);

	if (rdi->post_parms[wqe->wr.opcode].flags & RVT_OPERATION_LOCAL)
		return rvtsw_send_local(qp, wqe);
	rvtsw_count(rvtsw_qp_port(qp), RVTSW_CNT_DROP_UNKNOWN_LID);
	if (qp->ibqp.qp_type == IB_QPT_RC)
		return IB_WC_RETRY_EXC_ERR;
	return IB_WC_SUCCESS;
}

/**
 * rvtsw_do_send - run a QP's send engine
 * @qp: the QP
 *
 * rdmavt's do_send callback, and the body of the QP's work item.
 *
 * Context: any; takes the QP's locks with interrupts saved; no lock held.
 */
void rvtsw_do_send(struct rvt_qp *qp)
{
	struct rvtsw_dev *dev = rdi_to_rvtsw(ib_to_rvt(qp->ibqp.device));
	u16 dlid;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		dlid = rdma_ah_get_dlid(&qp->remote_ah_attr);
		if (rvtsw_dev_owns_lid(dev, dlid))
			rvt_ruc_loopback(qp);
		else
			rvtsw_run_sq(qp, rvtsw_send_lost);
		break;
	default:
		rvtsw_run_sq(qp, rvtsw_ud_send);
		break;
	}
}

static bool rvtsw_send_busy(struct rvt_qp *qp)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&qp->s_lock, flags);
	busy = qp->s_flags & RVT_S_BUSY;
	spin_unlock_irqrestore(&qp->s_lock, flags);
	return busy;
}

/**
 * rvtsw_quiesce_send - wait until no send engine run can touch a QP
 * @qp: the QP, just moved to RESET
 *
 * rdmavt's quiesce_qp callback, called after stop_send_queue() and after
 * the QP's timers are gone. A timer that fired between those two steps
 * may have queued the work item again, so it is cancelled once more here,
 * now that nothing can queue it. A run from post_send may still be
 * transmitting a request that the reset is about to release: runs see
 * the new state at their next step and stop, and no new run starts.
 *
 * Context: process context, no QP lock held; sleeps.
 */
void rvtsw_quiesce_send(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	cancel_work_sync(&priv->send_work);
	while (rvtsw_send_busy(qp))
		usleep_range(10, 50);
}

/**
 * rvtsw_setup_wqe - check a send request as rdmavt posts it
 * @qp: the QP
 * @wqe: the request, filled in
 * @call_send: whether rdmavt will run the engine from post_send; kept
 *
 * A datagram must fit the path MTU, as on a wire; an RC or UC message
 * must not exceed IBTA's 2^31 bytes.
 *
 * Context: post_send, s_hlock held.
 * Return: 0, or -EINVAL to fail the post.
 */
int rvtsw_setup_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe, bool *call_send)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
	case IB_QPT_SMI:
		if (wqe->length > 1U << rvt_get_swqe_ah(wqe)->log_pmtu)
			return -EINVAL;
		break;
	default:
		if (wqe->length > RVTSW_MAX_MSG_SIZE)
			return -EINVAL;
		break;
	}
	return 0;
}
