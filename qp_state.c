// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * QP states: what each one allows, and the transitions rdmavt makes itself
 * or on behalf of modify_qp and destroy: reset and error.
 *
 * Exported symbols' CRCs depend on the types visible here: keep the
 * include set of the upstream file that exports them.
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
#include "qp.h"
#include "vt.h"

/*
 * What may happen to work requests in each state. Sends may be posted in
 * SQE and ERR: the send engine completes them with a flush error, as IBTA
 * C10-96 wants.
 */
const int ib_rvt_state_ops[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = 0,
	[IB_QPS_INIT] = RVT_POST_RECV_OK,
	[IB_QPS_RTR] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK,
	[IB_QPS_RTS] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK |
		       RVT_POST_SEND_OK | RVT_PROCESS_SEND_OK |
		       RVT_PROCESS_NEXT_SEND_OK,
	/* SQD finishes the request in progress but starts no new one. */
	[IB_QPS_SQD] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK |
		       RVT_POST_SEND_OK | RVT_PROCESS_SEND_OK,
	[IB_QPS_SQE] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK |
		       RVT_POST_SEND_OK | RVT_FLUSH_SEND,
	[IB_QPS_ERR] = RVT_POST_RECV_OK | RVT_FLUSH_RECV |
		       RVT_POST_SEND_OK | RVT_FLUSH_SEND,
};
EXPORT_SYMBOL(ib_rvt_state_ops);

/**
 * rvt_qp_event - deliver an asynchronous event about a QP to its owner
 * @qp: the QP
 * @type: the event
 *
 * Context: any, without the QP's locks (the handler may post or modify).
 */
void rvt_qp_event(struct rvt_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * rvt_init_send_state - the RESET values of a QP's send side
 * @qp: the QP
 * @type: its type
 *
 * Context: at creation, or with the QP's locks held.
 */
static void rvt_init_send_state(struct rvt_qp *qp, enum ib_qp_type type)
{
	qp->s_flags &= RVT_S_SIGNAL_REQ_WR;	/* fixed at creation */
	qp->s_state = type == IB_QPT_RC ? IB_OPCODE_RC_SEND_LAST :
					  IB_OPCODE_UC_SEND_LAST;
	qp->s_ack_state = IB_OPCODE_RC_ACKNOWLEDGE;
	qp->s_hdrwords = 0;
	qp->s_wqe = NULL;
	qp->s_draining = 0;
	qp->s_next_psn = 0;
	qp->s_last_psn = 0;
	qp->s_sending_psn = 0;
	qp->s_sending_hpsn = 0;
	qp->s_psn = 0;
	qp->s_head = 0;
	qp->s_tail = 0;
	qp->s_cur = 0;
	qp->s_acked = 0;
	qp->s_last = 0;
	qp->s_ssn = 1;
	qp->s_lsn = 0;
	qp->s_mig_state = IB_MIG_MIGRATED;
	qp->s_num_rd_atomic = 0;
	atomic_set(&qp->s_reserved_used, 0);
}

/**
 * rvt_init_recv_state - the RESET values of a QP's receive side
 * @qp: the QP
 * @type: its type
 *
 * Context: at creation, or with the QP's locks held.
 */
static void rvt_init_recv_state(struct rvt_qp *qp, enum ib_qp_type type)
{
	qp->r_state = type == IB_QPT_RC ? IB_OPCODE_RC_SEND_LAST :
					  IB_OPCODE_UC_SEND_LAST;
	qp->r_psn = 0;
	qp->r_msn = 0;
	qp->r_nak_state = 0;
	qp->r_aflags = 0;
	qp->r_flags = 0;
	qp->r_sge.num_sge = 0;
	qp->r_head_ack_queue = 0;
	qp->s_tail_ack_queue = 0;
	qp->s_acked_ack_queue = 0;
}

/**
 * rvt_init_qp - put a QP's protocol state into its RESET values
 * @rdi: the device
 * @qp: the QP, new or being reset
 * @type: its type
 *
 * Clears what a connection leaves behind: PSNs, queue indices, the
 * remote QPN, Q_Key and access flags. The path attributes (port, P_Key
 * index, address vectors, MTU, timeouts) stay as they were; the next
 * RESET->INIT and INIT->RTR must set them again anyway.
 *
 * Context: at creation, or with the QP's three locks held.
 */
void rvt_init_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		 enum ib_qp_type type)
{
	qp->remote_qpn = 0;
	qp->qkey = 0;
	qp->qp_access_flags = 0;
	rvt_init_send_state(qp, type);
	rvt_init_recv_state(qp, type);
}

/**
 * rvt_quiesce_qp - wait for everything that could still touch a QP
 * @rdi: the device
 * @qp: a QP entering RESET
 * @unlinked: it was just taken out of the QP table
 *
 * The driver's send engine, the timers, the driver's in-flight work, and
 * lookups that found the QP in the table before it was unlinked (whose
 * reference is then dropped).
 *
 * Context: process context, without the QP's locks; sleeps.
 */
static void rvt_quiesce_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   bool unlinked)
{
	rdi->driver_f.stop_send_queue(qp);
	rvt_del_timers_sync(qp);
	rdi->driver_f.quiesce_qp(qp);
	if (unlinked)
		rvt_release_qp_link(qp);
}

/**
 * _rvt_reset_qp - move a QP to RESET
 * @rdi: the device
 * @qp: the QP
 * @type: its type
 *
 * Takes the QP out of the QP table, waits for its send engine and timers
 * to stop, drops its memory region references and discards the work
 * requests of its queues without completions. A QP already in RESET only
 * has its protocol state re-initialised.
 *
 * Context: process context, with r_lock, s_hlock and s_lock held (taken by
 * rvt_qp_lock()); drops them while it sleeps and returns with them held.
 */
void _rvt_reset_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		   enum ib_qp_type type)
	__must_hold(&qp->r_lock) __must_hold(&qp->s_hlock)
	__must_hold(&qp->s_lock)
{
	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_hlock);
	lockdep_assert_held(&qp->s_lock);

	if (qp->state != IB_QPS_RESET) {
		bool unlinked;

		/* From here on nothing posts, processes or arms timers. */
		qp->state = IB_QPS_RESET;
		rdi->driver_f.flush_qp_waiters(qp);
		rvt_stop_rc_timers(qp);
		qp->s_flags &= ~(RVT_S_TIMER | RVT_S_ANY_WAIT);
		/*
		 * Unlink while still holding the locks, so that "in the
		 * table" and "not in RESET" change together: a RESET->INIT
		 * racing with the rest of this reset re-links the QP once,
		 * never twice.
		 */
		unlinked = rvt_unlink_qp(rdi, qp);

		rvt_qp_unlock(qp);
		rvt_quiesce_qp(rdi, qp, unlinked);
		rvt_qp_lock(qp);

		rvt_clear_mr_refs(qp, true);
		rvt_discard_rq(qp);
		rdi->driver_f.notify_qp_reset(qp);
	}
	rvt_init_qp(rdi, qp, type);
}

/**
 * rvt_reset_qp - move a QP to RESET, taking its locks
 * @rdi: the device
 * @qp: the QP
 * @type: its type
 *
 * See _rvt_reset_qp().
 *
 * Context: process context without the QP's locks; may sleep.
 */
void rvt_reset_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		  enum ib_qp_type type)
{
	rvt_qp_lock(qp);
	_rvt_reset_qp(rdi, qp, type);
	rvt_qp_unlock(qp);
}

/**
 * rvt_fail_current_recv - complete the receive in progress, if any
 * @qp: the QP
 * @err: the completion status
 *
 * Context: r_lock held.
 */
static void rvt_fail_current_recv(struct rvt_qp *qp, enum ib_wc_status err)
{
	struct ib_wc wc = {
		.qp = &qp->ibqp,
		.opcode = IB_WC_RECV,
		.status = err,
	};

	if (!test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags))
		return;
	wc.wr_id = qp->r_wr_id;
	if (qp->ibqp.recv_cq)
		rvt_cq_enter(ibcq_to_rvtcq(qp->ibqp.recv_cq), &wc, true);
}

/**
 * rvt_error_qp - move a QP to the error state
 * @qp: the QP
 * @err: the completion status for the receive in progress, if any
 *
 * Stops the RC timers, tells the driver, schedules the send engine to
 * flush the send queue (it completes each request with
 * IB_WC_WR_FLUSH_ERR), drops the QP's receive-side memory references and
 * completes every posted receive with IB_WC_WR_FLUSH_ERR. Nothing happens
 * if the QP is in RESET or already in ERR.
 *
 * Context: any; r_lock and s_lock held, interrupts disabled.
 * Return: 1 if the QP takes its receives from an SRQ and has an event
 * handler, in which case the caller must deliver
 * IB_EVENT_QP_LAST_WQE_REACHED once it has dropped the locks; else 0.
 */
int rvt_error_qp(struct rvt_qp *qp, enum ib_wc_status err)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);

	lockdep_assert_held(&qp->r_lock);
	lockdep_assert_held(&qp->s_lock);
	if (qp->state == IB_QPS_ERR || qp->state == IB_QPS_RESET)
		return 0;

	qp->state = IB_QPS_ERR;
	rvt_stop_rc_timers(qp);
	qp->s_flags &= ~RVT_S_ANY_WAIT_SEND;
	rdi->driver_f.notify_error_qp(qp);
	if (READ_ONCE(qp->s_last) != qp->s_head)
		rdi->driver_f.schedule_send(qp);
	rvt_clear_mr_refs(qp, false);

	rvt_fail_current_recv(qp, err);
	if (qp->r_rq.kwq) {
		rvt_flush_rq(qp);
		return 0;
	}
	return qp->ibqp.event_handler ? 1 : 0;
}
EXPORT_SYMBOL(rvt_error_qp);

/**
 * rvt_comm_est - note that a connection is established
 * @qp: an RC or UC QP in RTR that received its first packet
 *
 * Sets RVT_R_COMM_EST (cleared again by a transition to RTR) and delivers
 * IB_EVENT_COMM_EST.
 *
 * Context: receive path, r_lock held.
 */
void rvt_comm_est(struct rvt_qp *qp)
{
	qp->r_flags |= RVT_R_COMM_EST;
	rvt_qp_event(qp, IB_EVENT_COMM_EST);
}
EXPORT_SYMBOL(rvt_comm_est);

/**
 * rvt_rc_error - move a QP to the error state from its receive path
 * @qp: the QP
 * @err: the completion status for the receive in progress
 *
 * Delivers IB_EVENT_QP_LAST_WQE_REACHED when rvt_error_qp() asks for it.
 *
 * Context: receive path, r_lock held, s_lock not held; takes s_lock.
 */
void rvt_rc_error(struct rvt_qp *qp, enum ib_wc_status err)
{
	unsigned long flags;
	int lastwqe;

	spin_lock_irqsave(&qp->s_lock, flags);
	lastwqe = rvt_error_qp(qp, err);
	spin_unlock_irqrestore(&qp->s_lock, flags);

	if (lastwqe)
		rvt_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}
EXPORT_SYMBOL(rvt_rc_error);
