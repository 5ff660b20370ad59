// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The life of a QP: creation, the transitions rdmavt makes on its own
 * (reset and error), the memory region references a QP holds,
 * destruction, and the device's QP layer as a whole.
 *
 * A new QP is in RESET, with its send queue, its receive queue (unless it
 * uses an SRQ), its driver state and its QP number, but not in the QP
 * table: receive paths find it only from RESET->INIT on (qp_modify.c).
 * Reset takes it out of the table again; destruction resets it first.
 *
 * The device's QP counts (n_qps_allocated against props.max_qp, n_rc_qps
 * and the busy_jiffies derived from it) are guarded by rdi->n_qps_lock.
 */
#include "qp_exports.h"
#include <linux/sched.h>
#include "qp.h"
#include "mmap.h"
#include "cq.h"

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
 * MR to let go (rvt_qp_mr_clean()). The key tests rdmavt_mr.h declares,
 * rvt_mr_has_lkey() and rvt_ss_has_lkey() (upstream's mr.c), live here
 * with their only user, so that mr.c calls into the QP core and never the
 * other way round.
 */

/**
 * rvt_mr_has_lkey - does a region currently have a given key
 * @mr: the region, or NULL
 * @lkey: the key
 *
 * Context: any.
 * Return: true if @mr is set and its key is @lkey.
 */
bool rvt_mr_has_lkey(struct rvt_mregion *mr, u32 lkey)
{
	return mr && READ_ONCE(mr->lkey) == lkey;
}

/**
 * rvt_ss_has_lkey - does an SGE state use a region with a given key
 * @ss: the SGE state: the current SGE and num_sge - 1 more in sg_list
 * @lkey: the key
 *
 * Context: the caller keeps @ss stable (holds the lock of its QP).
 * Return: true if any SGE still to be used is in a region keyed @lkey.
 */
bool rvt_ss_has_lkey(struct rvt_sge_state *ss, u32 lkey)
{
	u32 i;

	if (!ss->num_sge)
		return false;
	if (rvt_mr_has_lkey(ss->sge.mr, lkey))
		return true;
	for (i = 0; i + 1 < ss->num_sge; i++)
		if (rvt_mr_has_lkey(ss->sg_list[i].mr, lkey))
			return true;
	return false;
}

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
static void rvt_clear_mr_refs(struct rvt_qp *qp, bool clr_sends)
{
	if (test_and_clear_bit(RVT_R_REWIND_SGE, &qp->r_aflags))
		rvt_put_ss(&qp->s_rdma_read_sge);
	rvt_put_ss(&qp->r_sge);
	if (clr_sends)
		rvt_put_sends(qp);
	rvt_put_acks(qp);
}

/* s_max_sge and r_rq.max_sge are u8. */
#define RVT_MAX_SGE U8_MAX

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
static void rvt_init_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
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
 * @gp: if so, the RCU state rvt_unlink_qp() gave
 *
 * The driver's send engine, the timers, the driver's in-flight work, and
 * lookups that found the QP in the table before it was unlinked (whose
 * reference is then dropped). The lookups come last: the rest takes long
 * enough that their grace period has often passed by then.
 *
 * Context: process context, without the QP's locks; sleeps.
 */
static void rvt_quiesce_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   bool unlinked, unsigned long gp)
{
	rdi->driver_f.stop_send_queue(qp);
	rvt_del_timers_sync(qp);
	rdi->driver_f.quiesce_qp(qp);
	if (unlinked)
		rvt_release_qp_link(qp, gp);
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
		unsigned long gp = 0;
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
		unlinked = rvt_unlink_qp(rdi, qp, &gp);

		rvt_qp_unlock(qp);
		rvt_quiesce_qp(rdi, qp, unlinked, gp);
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
static void rvt_reset_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
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

/**
 * rvt_check_qp_type - whether rdmavt supports a QP type as asked
 * @rdi: the device
 * @init_attr: the creation attributes
 * @udata: non-NULL for a user QP
 *
 * QP0 and QP1 are kernel QPs of a valid port.
 *
 * Context: any.
 * Return: 0, -EINVAL for an SMI/GSI QP from userspace or without a valid
 * port, -EOPNOTSUPP for a type other than RC, UC, UD, SMI and GSI.
 */
static int rvt_check_qp_type(struct rvt_dev_info *rdi,
			     struct ib_qp_init_attr *init_attr,
			     struct ib_udata *udata)
{
	switch (init_attr->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		return 0;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (udata || init_attr->port_num < 1 ||
		    init_attr->port_num > rdi->ibdev.phys_port_cnt)
			return -EINVAL;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * rvt_check_qp_caps - check the queue sizes asked for
 * @rdi: the device
 * @init_attr: the creation attributes
 *
 * Receive queue sizes do not matter with an SRQ.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a size beyond the device's limits or a QP with
 * no queue at all.
 */
static int rvt_check_qp_caps(struct rvt_dev_info *rdi,
			     struct ib_qp_init_attr *init_attr)
{
	const struct ib_device_attr *props = &rdi->dparms.props;
	const struct ib_qp_cap *cap = &init_attr->cap;
	u32 max_wr = props->max_qp_wr;

	if (cap->max_send_wr > max_wr ||
	    cap->max_send_sge > min_t(u32, props->max_send_sge, RVT_MAX_SGE))
		return -EINVAL;
	if (init_attr->srq)
		return 0;
	if (cap->max_recv_wr > max_wr ||
	    cap->max_recv_sge > min_t(u32, props->max_recv_sge, RVT_MAX_SGE))
		return -EINVAL;
	/* A QP that can neither send nor receive is a mistake. */
	if (!cap->max_send_wr && !cap->max_send_sge &&
	    !cap->max_recv_wr && !cap->max_recv_sge)
		return -EINVAL;
	return 0;
}

/**
 * rvt_check_qp_init_attr - check everything create_qp is asked for
 * @rdi: the device
 * @init_attr: the creation attributes
 * @udata: non-NULL for a user QP
 *
 * Context: any.
 * Return: 0, -EINVAL or -EOPNOTSUPP (see rvt_create_qp()).
 */
static int rvt_check_qp_init_attr(struct rvt_dev_info *rdi,
				  struct ib_qp_init_attr *init_attr,
				  struct ib_udata *udata)
{
	int ret;

	ret = rvt_check_qp_type(rdi, init_attr, udata);
	if (ret)
		return ret;
	if (init_attr->create_flags & ~IB_QP_CREATE_NETDEV_USE)
		return -EOPNOTSUPP;
	if (init_attr->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init_attr->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	return rvt_check_qp_caps(rdi, init_attr);
}

/**
 * rvt_count_qp - count a new QP against props.max_qp
 * @rdi: the device
 * @type: the QP's type; RC QPs also stretch the retry timeouts
 *	  (busy_jiffies grows by one every RC_QP_SCALING_INTERVAL RC QPs)
 *
 * Context: process context; takes n_qps_lock.
 * Return: 0, or -ENOMEM if the device has max_qp QPs already.
 */
static int rvt_count_qp(struct rvt_dev_info *rdi, enum ib_qp_type type)
{
	int ret = 0;

	spin_lock(&rdi->n_qps_lock);
	if (rdi->n_qps_allocated >= rdi->dparms.props.max_qp) {
		ret = -ENOMEM;
	} else {
		rdi->n_qps_allocated++;
		if (type == IB_QPT_RC) {
			rdi->n_rc_qps++;
			rdi->busy_jiffies =
				rdi->n_rc_qps / RC_QP_SCALING_INTERVAL;
		}
	}
	spin_unlock(&rdi->n_qps_lock);
	return ret;
}

/**
 * rvt_uncount_qp - undo rvt_count_qp()
 * @rdi: the device
 * @type: the QP's type
 *
 * Context: process context; takes n_qps_lock.
 */
static void rvt_uncount_qp(struct rvt_dev_info *rdi, enum ib_qp_type type)
{
	spin_lock(&rdi->n_qps_lock);
	rdi->n_qps_allocated--;
	if (type == IB_QPT_RC) {
		rdi->n_rc_qps--;
		rdi->busy_jiffies = rdi->n_rc_qps / RC_QP_SCALING_INTERVAL;
	}
	spin_unlock(&rdi->n_qps_lock);
}

/**
 * get_allowed_ops - the opcode class of a QP type's packets
 * @type: RC, UC, UD, SMI or GSI
 *
 * Context: any.
 * Return: IB_OPCODE_RC, IB_OPCODE_UC, or IB_OPCODE_UD for the datagram
 * types.
 */
static u8 get_allowed_ops(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return IB_OPCODE_RC;
	case IB_QPT_UC:
		return IB_OPCODE_UC;
	default:
		return IB_OPCODE_UD;
	}
}

/**
 * rvt_setup_qp - initialise what the IB core leaves zeroed and no reset
 *		  touches: locks, reference count, wait queue, timers, type
 * @qp: the new QP
 * @init_attr: its creation attributes
 *
 * Context: process context, before the QP is visible to anyone.
 */
static void rvt_setup_qp(struct rvt_qp *qp, struct ib_qp_init_attr *init_attr)
{
	spin_lock_init(&qp->r_lock);
	spin_lock_init(&qp->s_hlock);
	spin_lock_init(&qp->s_lock);
	atomic_set(&qp->refcount, 0);
	atomic_set(&qp->local_ops_pending, 0);
	init_waitqueue_head(&qp->wait);
	INIT_LIST_HEAD(&qp->rspwait);
	RCU_INIT_POINTER(qp->next, NULL);
	rvt_init_qp_timers(qp);
	qp->state = IB_QPS_RESET;
	qp->allowed_ops = get_allowed_ops(init_attr->qp_type);
	if (init_attr->sq_sig_type == IB_SIGNAL_REQ_WR)
		qp->s_flags = RVT_S_SIGNAL_REQ_WR;
	/*
	 * 4.096 us << timeout, as upstream computes it at creation: 1 jiffy
	 * for the timeout 0 of a new QP. modify_qp uses the header's
	 * rvt_timeout_to_jiffies(), which rounds differently (4 jiffies);
	 * drivers read this before the first modify sets a timeout.
	 */
	qp->timeout_jiffies = usecs_to_jiffies((4096UL << qp->timeout) / 1000);
}

/**
 * rvt_alloc_qp_rq - allocate a QP's receive side
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 * @udata: non-NULL for a user QP, whose ring the process maps
 *
 * The receive queue, unless an SRQ stands in for it, and the SGE list the
 * receive path validates a request into.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM; what was allocated is freed by
 * rvt_free_qp_queues().
 */
static int rvt_alloc_qp_rq(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   struct ib_qp_init_attr *init_attr,
			   struct ib_udata *udata)
{
	int node = rdi->dparms.node;
	u8 max_sge;
	int ret;

	if (init_attr->srq) {
		max_sge = ibsrq_to_rvtsrq(init_attr->srq)->rq.max_sge;
	} else {
		max_sge = init_attr->cap.max_recv_sge;
		ret = rvt_alloc_rq(&qp->r_rq, init_attr->cap.max_recv_wr + 1,
				   max_sge, node, udata);
		if (ret)
			return ret;
	}
	qp->r_sg_list = kcalloc_node(max_t(u8, max_sge, 1),
				     sizeof(*qp->r_sg_list), GFP_KERNEL, node);
	return qp->r_sg_list ? 0 : -ENOMEM;
}

/**
 * rvt_free_qp_queues - free what rvt_alloc_sq() and rvt_alloc_qp_rq()
 *			allocated, however far they got
 * @qp: the QP
 *
 * A user receive ring handed to the mmap machinery is only released: it
 * lives on until the process unmaps it.
 *
 * Context: process context.
 */
static void rvt_free_qp_queues(struct rvt_qp *qp)
{
	rvt_free_sq(qp);
	kfree(qp->r_sg_list);
	qp->r_sg_list = NULL;
	rvt_release_rq(&qp->r_rq, &qp->ip);
}

/**
 * rvt_assign_qpn - give a new QP its number, and QP0/QP1 their port
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 *
 * Other types get their port from the RESET->INIT transition; a valid
 * port in @init_attr is only recorded for query_qp.
 *
 * Context: process context.
 * Return: 0 or rvt_alloc_qpn()'s errno.
 */
static int rvt_assign_qpn(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			  struct ib_qp_init_attr *init_attr)
{
	bool aip = init_attr->create_flags & IB_QP_CREATE_NETDEV_USE;
	u32 port_num = init_attr->port_num;
	int qpn;

	qpn = rvt_alloc_qpn(rdi, &rdi->qp_dev->qpn_table, init_attr->qp_type,
			    port_num, aip);
	if (qpn < 0)
		return qpn;
	qp->ibqp.qp_num = aip ? qpn | RVT_AIP_QP_BASE : qpn;
	/* Other types get their port from RESET->INIT. */
	if (port_num >= 1 && port_num <= rdi->ibdev.phys_port_cnt)
		qp->port_num = port_num;
	return 0;
}

/**
 * rvt_qp_user_response - tell the process where to map its receive ring
 * @rdi: the device
 * @qp: a user QP, complete but not yet published
 * @udata: the create_qp response
 *
 * The driver part of the response is the u64 mmap offset of the ring, or
 * 0 when the QP uses an SRQ and has no ring.
 *
 * Context: process context.
 * Return: 0; -EINVAL if the response has no room for the offset of a ring
 * the process would then be unable to map; -ENOMEM; or -EFAULT.
 */
static int rvt_qp_user_response(struct rvt_dev_info *rdi, struct rvt_qp *qp,
				struct ib_udata *udata)
{
	u64 offset = 0;

	qp->pid = current->pid;
	if (qp->r_rq.wq) {
		size_t size = sizeof(struct rvt_rwq) +
			      (size_t)qp->r_rq.size *
			      rvt_rwqe_size(qp->r_rq.max_sge);

		/* Without room for the offset the ring could not be mapped. */
		if (udata->outlen < sizeof(offset))
			return -EINVAL;
		qp->ip = rvt_create_mmap_info(rdi, size, udata, qp->r_rq.wq);
		if (IS_ERR(qp->ip)) {
			int ret = PTR_ERR(qp->ip);

			qp->ip = NULL;
			return ret;
		}
		offset = qp->ip->offset;
	}
	if (udata->outlen < sizeof(offset))
		return 0;
	return ib_copy_to_udata(udata, &offset, sizeof(offset));
}

/**
 * rvt_build_qp - everything create_qp does after the checks and the count
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 * @udata: the process's request and response, or NULL
 *
 * Context: process context; may sleep.
 * Return: 0 with the QP complete, or an errno with nothing left
 * allocated.
 */
static int rvt_build_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			struct ib_qp_init_attr *init_attr,
			struct ib_udata *udata)
{
	void *priv;
	int ret;

	rvt_setup_qp(qp, init_attr);
	ret = rvt_alloc_sq(rdi, qp, init_attr) ?:
	      rvt_alloc_qp_rq(rdi, qp, init_attr, udata);
	if (ret)
		goto free_queues;

	priv = rdi->driver_f.qp_priv_alloc(rdi, qp);
	if (IS_ERR(priv)) {
		ret = PTR_ERR(priv);
		goto free_queues;
	}
	qp->priv = priv;

	ret = rvt_assign_qpn(rdi, qp, init_attr);
	if (ret)
		goto free_priv;
	rvt_init_qp(rdi, qp, init_attr->qp_type);
	if (rdi->driver_f.qp_priv_init) {
		ret = rdi->driver_f.qp_priv_init(rdi, qp, init_attr);
		if (ret)
			goto free_qpn;
	}
	if (udata) {
		ret = rvt_qp_user_response(rdi, qp, udata);
		if (ret)
			goto free_qpn;
	}
	return 0;

free_qpn:
	rvt_free_qpn(&rdi->qp_dev->qpn_table, qp->ibqp.qp_num,
		     init_attr->qp_type, qp->port_num);
free_priv:
	rdi->driver_f.qp_priv_free(rdi, qp);
free_queues:
	rvt_free_qp_queues(qp);
	return ret;
}

/**
 * rvt_create_qp - create a queue pair (ib_device_ops.create_qp)
 * @ibqp: the QP, allocated and zeroed by the IB core (which sets all but
 *	  its number)
 * @init_attr: type, CQs, optional SRQ, queue sizes, signalling mode and,
 *	       for QP0 (SMI) and QP1 (GSI), the port
 * @udata: the process's request and response for a user QP, or NULL
 *
 * Supports RC, UC, UD, SMI and GSI QPs, one SMI and one GSI per port.
 * Queue sizes are checked against the device's limits (scatter/gather
 * entries also against the 255 the QP's fields hold); the send queue has
 * room for max_send_wr requests plus the driver's reserved operations.
 * Inline data is not supported: cap.max_inline_data is returned as 0.
 * A user QP's receive queue is a ring the process maps: its mmap offset
 * is the u64 driver response, 0 if the QP uses an SRQ. The QP starts in
 * RESET, outside the QP table.
 *
 * Context: process context; may sleep.
 * Return: 0; -EOPNOTSUPP for another QP type or creation flag; -EINVAL
 * for sizes beyond the device's limits, an SMI/GSI QP without a valid
 * port, from userspace, or that the port already has, or a user response
 * too short for the ring offset; -ENOMEM if out of memory, QP numbers,
 * or QPs (props.max_qp); or the driver's errno.
 */
int rvt_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		  struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	int ret;

	ret = rvt_check_qp_init_attr(rdi, init_attr, udata);
	if (ret)
		return ret;
	ret = rvt_count_qp(rdi, init_attr->qp_type);
	if (ret)
		return ret;
	ret = rvt_build_qp(rdi, qp, init_attr, udata);
	if (ret) {
		rvt_uncount_qp(rdi, init_attr->qp_type);
		return ret;
	}
	init_attr->cap.max_inline_data = 0;
	/* Only now, with the QP complete, may the process map its ring. */
	if (qp->ip)
		rvt_publish_mmap_info(rdi, qp->ip);
	return 0;
}

/**
 * rvt_destroy_qp - destroy a queue pair (ib_device_ops.destroy_qp)
 * @ibqp: the QP, which may still be sending and receiving
 * @udata: the process's request, unused
 *
 * Resets the QP (out of the QP table, send engine and timers stopped,
 * memory references dropped), waits until no one holds a reference any
 * more, drops its completions from the CQs a process polls through the
 * kernel (rvt_cq_forget_qp()), then frees its number and memory. A user
 * receive ring lives on until the process unmaps it.
 *
 * Context: process context; sleeps.
 * Return: 0.
 */
int rvt_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);

	rvt_reset_qp(rdi, qp, ibqp->qp_type);
	wait_event(qp->wait, !atomic_read(&qp->refcount));
	rvt_cq_forget_qp(ibqp->send_cq, ibqp);
	if (ibqp->recv_cq != ibqp->send_cq)
		rvt_cq_forget_qp(ibqp->recv_cq, ibqp);
	/* Out of the table for a grace period: the number may go. */
	rvt_free_qpn(&rdi->qp_dev->qpn_table, ibqp->qp_num, ibqp->qp_type,
		     qp->port_num);
	rvt_uncount_qp(rdi, ibqp->qp_type);

	rdma_destroy_ah_attr(&qp->remote_ah_attr);
	rdma_destroy_ah_attr(&qp->alt_ah_attr);
	rdi->driver_f.qp_priv_free(rdi, qp);
	rvt_free_qp_queues(qp);
	return 0;
}

/*
 * The device's QP layer, set up at registration and torn down at
 * unregistration: the QP table and QPN allocator (qp_table.c) and the QP
 * counts.
 */

/**
 * rvt_driver_qp_init - set up a device's QP layer
 * @rdi: the device being registered
 *
 * Context: process context, from rvt_register_device().
 * Return: 0, -EINVAL if dparms.qp_table_size or the QPN parameters are
 * unusable, or -ENOMEM.
 */
int rvt_driver_qp_init(struct rvt_dev_info *rdi)
{
	spin_lock_init(&rdi->n_qps_lock);
	rdi->n_qps_allocated = 0;
	rdi->n_rc_qps = 0;
	rdi->busy_jiffies = 0;
	return rvt_qp_table_init(rdi);
}

/**
 * rvt_free_qp_cb - rvt_qp_iter() callback of rvt_free_all_qps()
 * @qp: a QP left in the table of an unregistered device
 * @v: the address of the count of QPs reset, as a u64
 *
 * Context: process context; sleeps.
 */
static void rvt_free_qp_cb(struct rvt_qp *qp, u64 v)
{
	unsigned int *reset = (unsigned int *)(uintptr_t)v;

	rvt_reset_qp(ib_to_rvt(qp->ibqp.device), qp, qp->ibqp.qp_type);
	(*reset)++;
}

/**
 * rvt_free_all_qps - reset every QP still in a device's QP table
 * @rdi: the device, unregistered from the IB core
 *
 * Leaves no QP in the table and no table reference held.
 *
 * Context: process context; may sleep.
 * Return: how many QPs were reset.
 */
static unsigned int rvt_free_all_qps(struct rvt_dev_info *rdi)
{
	unsigned int reset = 0;

	rvt_qp_iter(rdi, (u64)(uintptr_t)&reset, rvt_free_qp_cb);
	return reset;
}

/**
 * rvt_qp_exit - tear down a device's QP layer
 * @rdi: the device, unregistered from the IB core
 *
 * Every QP should have been destroyed by its owner by now; any left over
 * is reset (so it holds no reference and is out of the table), counted
 * and reported, but not freed: its memory belongs to the IB core object.
 *
 * Context: process context, from rvt_unregister_device(); may sleep.
 */
void rvt_qp_exit(struct rvt_dev_info *rdi)
{
	unsigned int leaked, reset;

	if (!rdi->qp_dev)
		return;
	spin_lock(&rdi->n_qps_lock);
	leaked = rdi->n_qps_allocated;
	spin_unlock(&rdi->n_qps_lock);
	reset = rvt_free_all_qps(rdi);
	if (leaked || reset)
		ibdev_err(&rdi->ibdev,
			  "%u QP(s) not destroyed by their owners, %u reset out of the QP table\n",
			  leaked, reset);
	rvt_qp_table_free(rdi);
}
