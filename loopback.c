// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RC/UC loopback engine: the send engine of a QP whose peer is on the
 * same device. A driver's send engine calls rvt_ruc_loopback() when the
 * destination LID is one of the device's own; the request then goes
 * straight into the responder QP (loopback_ops.c), and both sides
 * complete as they would after a round trip on a wire.
 *
 * The requester side, here: one engine per QP at a time (RVT_S_BUSY),
 * requests carried out in order from s_last, each completed before the
 * next starts. The engine holds the requester's r_lock and s_lock (in
 * that order, as everywhere) only to pick and complete a request, never
 * while the responder works, so no QP's locks nest in another's, and a QP
 * connected to itself works too. What the responder could not take makes
 * the requester wait, with the engine released:
 *
 * - an RNR NAK: for the responder's RNR timer (rvt_add_rnr_timer(), whose
 *   expiry reschedules the engine), at most rnr_retry times (7: forever);
 * - a lost request (no responder, or one in a state that drops it): for
 *   the QP's ACK timeout (the retry timer), at most retry_cnt times, then
 *   the request completes with IB_WC_RETRY_EXC_ERR.
 *
 * A request completing with an error moves the requester to the error
 * state, after which the engine flushes the rest with IB_WC_WR_FLUSH_ERR.
 *
 * Exported symbols' CRCs depend on the types visible here: keep the
 * include set of the upstream file that exports them
 * (Documentation/abi.rst, the qp.c row).
 */
#include <linux/hash.h>
#include <linux/bitops.h>
#include <linux/lockdep.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_hdrs.h>
#include <rdma/opa_addr.h>
#include <rdma/uverbs_ioctl.h>
#include <linux/tracepoint.h>
#include <linux/trace_seq.h>
#include "vt.h"
#include "qp.h"
#include "loopback.h"

/* What keeps an engine from starting: another one, or a wait. */
#define RVT_LB_HOLD (RVT_S_BUSY | RVT_S_ANY_WAIT | RVT_S_TIMER)

/* An RNR retry count of 7 means retry for ever (IBTA 9.7.5.2.8). */
#define RVT_RNR_RETRY_FOREVER 7

/**
 * struct rvt_lb_run - one run of a requester's engine
 * @sqp: the requester
 * @flags: interrupt state saved when its locks were taken
 * @lastwqe: IB_EVENT_QP_LAST_WQE_REACHED is due once the locks are gone
 */
struct rvt_lb_run {
	struct rvt_qp *sqp;
	unsigned long flags;
	bool lastwqe;
};

static void rvt_lb_lock(struct rvt_lb_run *run)
	__acquires(&run->sqp->r_lock) __acquires(&run->sqp->s_lock)
{
	spin_lock_irqsave(&run->sqp->r_lock, run->flags);
	spin_lock(&run->sqp->s_lock);
}

static void rvt_lb_unlock(struct rvt_lb_run *run)
	__releases(&run->sqp->s_lock) __releases(&run->sqp->r_lock)
{
	spin_unlock(&run->sqp->s_lock);
	spin_unlock_irqrestore(&run->sqp->r_lock, run->flags);
}

/* The responder named by the requester's destination QPN, referenced. */
static struct rvt_qp *rvt_lb_find_responder(struct rvt_qp *sqp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(sqp->ibqp.device);
	struct rvt_qp *rqp;

	rcu_read_lock();
	rqp = rvt_lookup_qpn(rdi, rvt_to_iport(sqp), sqp->remote_qpn);
	/* A destroy waits for this reference after its grace period. */
	if (rqp)
		rvt_get_qp(rqp);
	rcu_read_unlock();
	return rqp;
}

/* Nothing took the request: RC retries later, UC never knows. */
static enum rvt_lb_outcome rvt_lb_lost(struct rvt_lb *lb)
{
	rvt_to_iport(lb->sqp)->n_pkt_drops++;
	return lb->sqp->ibqp.qp_type == IB_QPT_RC ? RVT_LB_LOST : RVT_LB_DONE;
}

/* A fast registration or invalidation, which has no responder. */
static enum rvt_lb_outcome rvt_lb_local(struct rvt_lb *lb)
{
	struct rvt_swqe *wqe = lb->wqe;

	/* Only an invalidation that had to wait still has work to do. */
	if (wqe->wr.opcode == IB_WR_LOCAL_INV &&
	    !(wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY) &&
	    rvt_invalidate_rkey(lb->sqp, wqe->wr.ex.invalidate_rkey))
		lb->send_status = IB_WC_LOC_PROT_ERR;
	return RVT_LB_DONE;
}

static bool rvt_lb_is_local(const struct rvt_swqe *wqe)
{
	return wqe->wr.opcode == IB_WR_REG_MR ||
	       wqe->wr.opcode == IB_WR_LOCAL_INV;
}

/*
 * Carry out @lb->wqe, with none of the requester's locks held. A
 * responder in RTR that receives its first message has its connection
 * established.
 */
static enum rvt_lb_outcome rvt_lb_execute(struct rvt_lb *lb)
{
	struct rvt_qp *rqp;
	enum rvt_lb_outcome outcome;
	unsigned long flags;

	lb->send_status = IB_WC_SUCCESS;
	if (rvt_lb_is_local(lb->wqe))
		return rvt_lb_local(lb);
	rqp = rvt_lb_find_responder(lb->sqp);
	if (!rqp)
		return rvt_lb_lost(lb);

	spin_lock_irqsave(&rqp->r_lock, flags);
	if (!(ib_rvt_state_ops[rqp->state] & RVT_PROCESS_RECV_OK) ||
	    rqp->ibqp.qp_type != lb->sqp->ibqp.qp_type) {
		outcome = rvt_lb_lost(lb);
	} else {
		if (rqp->state == IB_QPS_RTR &&
		    !(rqp->r_flags & RVT_R_COMM_EST))
			rvt_comm_est(rqp);
		lb->rqp = rqp;
		outcome = rvt_lb_respond(lb);
		lb->rqp = NULL;
	}
	spin_unlock_irqrestore(&rqp->r_lock, flags);
	rvt_put_qp(rqp);
	return outcome;
}

/*
 * Complete the request at s_last. An error completion puts the requester
 * in the error state (IBTA 10.8.3.3); the engine then flushes the rest.
 */
static void rvt_lb_complete(struct rvt_lb_run *run, struct rvt_swqe *wqe,
			    enum ib_wc_status status)
{
	struct rvt_qp *sqp = run->sqp;
	/* An invalidation that had to wait counted in local_ops_pending. */
	bool waited = wqe->wr.opcode == IB_WR_LOCAL_INV &&
		      !(wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY);

	rvt_send_complete(sqp, wqe, status);
	if (waited)
		atomic_dec(&sqp->local_ops_pending);
	if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR &&
	    rvt_error_qp(sqp, IB_WC_WR_FLUSH_ERR))
		run->lastwqe = true;
}

/*
 * An RNR NAK: wait for the responder's RNR timer and try again, unless
 * the retries are used up. Return: whether the engine goes on.
 */
static bool rvt_lb_rnr(struct rvt_lb_run *run, struct rvt_lb *lb)
{
	struct rvt_qp *sqp = run->sqp;

	rvt_to_iport(sqp)->n_rnr_naks++;
	if (!sqp->s_rnr_retry) {
		rvt_lb_complete(run, lb->wqe, IB_WC_RNR_RETRY_EXC_ERR);
		return true;
	}
	if (sqp->s_rnr_retry_cnt < RVT_RNR_RETRY_FOREVER)
		sqp->s_rnr_retry--;
	rvt_add_rnr_timer(sqp, (u32)lb->rnr_timer << IB_AETH_CREDIT_SHIFT);
	return false;
}

/*
 * No responder answered: wait for the ACK timeout and try again, unless
 * the retries are used up. Return: whether the engine goes on.
 */
static bool rvt_lb_retry(struct rvt_lb_run *run, struct rvt_lb *lb)
{
	struct rvt_qp *sqp = run->sqp;

	if (!sqp->s_retry) {
		rvt_lb_complete(run, lb->wqe, IB_WC_RETRY_EXC_ERR);
		return true;
	}
	sqp->s_retry--;
	rvt_add_retry_timer(sqp);
	return false;
}

/*
 * Settle the request the responder worked on, with the requester's locks
 * held again. Return: whether the engine goes on.
 */
static bool rvt_lb_settle(struct rvt_lb_run *run, struct rvt_lb *lb,
			  enum rvt_lb_outcome outcome)
{
	struct rvt_qp *sqp = run->sqp;
	int ops = ib_rvt_state_ops[sqp->state];

	/* A reset meanwhile took the request away with everything else. */
	if (!(ops & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	/* An error meanwhile: no waiting, the flush completes the request. */
	if (outcome != RVT_LB_DONE && !(ops & RVT_PROCESS_NEXT_SEND_OK))
		return true;

	switch (outcome) {
	case RVT_LB_RNR:
		return rvt_lb_rnr(run, lb);
	case RVT_LB_LOST:
		return rvt_lb_retry(run, lb);
	default:
		rvt_to_iport(sqp)->n_loop_pkts++;
		/* An answer restores the retry budgets of the next request. */
		sqp->s_rnr_retry = sqp->s_rnr_retry_cnt;
		sqp->s_retry = sqp->s_retry_cnt;
		rvt_lb_complete(run, lb->wqe, lb->send_status);
		return true;
	}
}

/*
 * One request: flush it in the error states, else carry it out with the
 * locks dropped and settle it. Return: whether the engine goes on.
 */
static bool rvt_lb_step(struct rvt_lb_run *run)
{
	struct rvt_qp *sqp = run->sqp;
	int ops = ib_rvt_state_ops[sqp->state];
	struct rvt_lb lb = { .sqp = sqp };
	enum rvt_lb_outcome outcome;

	/* Pairs with the release of s_head in rvt_post_send(). */
	if (sqp->s_last == smp_load_acquire(&sqp->s_head))
		return false;
	lb.wqe = rvt_get_swqe_ptr(sqp, sqp->s_last);
	if (!(ops & RVT_PROCESS_NEXT_SEND_OK)) {
		if (!(ops & RVT_FLUSH_SEND))
			return false;
		rvt_lb_complete(run, lb.wqe, IB_WC_WR_FLUSH_ERR);
		return true;
	}
	/* s_cur past s_last marks the request at s_last as in progress. */
	if (sqp->s_cur == sqp->s_last)
		sqp->s_cur = rvt_qp_swqe_incr(sqp, sqp->s_cur);

	rvt_lb_unlock(run);
	outcome = rvt_lb_execute(&lb);
	rvt_lb_lock(run);
	return rvt_lb_settle(run, &lb, outcome);
}

/**
 * rvt_ruc_loopback - run an RC or UC QP's send queue into a local QP
 * @sqp: the requester, whose destination QP is on the same device
 *
 * Carries out the requests of @sqp's send queue, in order, on the QP
 * named by its destination QPN: SEND (with immediate data or
 * invalidation), RDMA WRITE (with immediate data), RDMA READ, the
 * atomics, and the local invalidations left for the send queue; both
 * sides complete as after a round trip. Returns when the queue is empty,
 * the requester must wait (RNR NAK, lost request: see the top of this
 * file), or its state stops the send queue; in the error states the
 * requests are completed with IB_WC_WR_FLUSH_ERR. Does nothing while
 * another run is in progress or a wait is pending: that run picks up what
 * was posted meanwhile, the wait's end reschedules the engine.
 *
 * Context: any, including interrupt context (a driver's do_send() called
 * from post_send); without @sqp's locks. Takes @sqp's r_lock and s_lock,
 * then, apart from them, the responder's r_lock.
 */
void rvt_ruc_loopback(struct rvt_qp *sqp)
{
	struct rvt_lb_run run = { .sqp = sqp };

	rvt_lb_lock(&run);
	if ((sqp->s_flags & RVT_LB_HOLD) ||
	    !(ib_rvt_state_ops[sqp->state] & RVT_PROCESS_OR_FLUSH_SEND)) {
		rvt_lb_unlock(&run);
		return;
	}
	sqp->s_flags |= RVT_S_BUSY;
	while (rvt_lb_step(&run))
		;
	/* With the check for more work, under the same lock hold. */
	sqp->s_flags &= ~RVT_S_BUSY;
	rvt_lb_unlock(&run);

	if (run.lastwqe)
		rvt_qp_event(sqp, IB_EVENT_QP_LAST_WQE_REACHED);
}
EXPORT_SYMBOL(rvt_ruc_loopback);
