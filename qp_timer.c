// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The two timers of an RC requester.
 *
 * s_timer, the retry timer, fires when an ACK is overdue: the driver
 * restarts the send from the last acknowledged PSN. s_rnr_timer, an
 * hrtimer, waits out a receiver-not-ready NAK before sending again. Both
 * are armed and disarmed under s_lock, with RVT_S_TIMER and RVT_S_WAIT_RNR
 * in s_flags saying which one is meant to be running; the callbacks check
 * the flag, so a callback racing a disarm does nothing.
 */
#include "qp_exports.h"
#include "qp_parts.h"
#include "trace_qp.h"
#include "trace_rc.h"

/*
 * The RNR NAK timer field of an AETH (IBTA table 45), in microseconds:
 * code 0 is the longest wait, 655.36 ms; codes 1 to 31 grow from 0.01 ms
 * to 491.52 ms.
 */
static const u32 rvt_rnr_usec[32] = {
	655360,     10,     20,     30,     40,     60,     80,    120,
	   160,    240,    320,    480,    640,    960,   1280,   1920,
	  2560,   3840,   5120,   7680,  10240,  15360,  20480,  30720,
	 40960,  61440,  81920, 122880, 163840, 245760, 327680, 491520,
};

/**
 * rvt_rnr_tbl_to_usec - the time an RNR NAK timer code stands for
 * @index: the 5-bit code; higher bits are ignored
 *
 * Context: any.
 * Return: the time in microseconds.
 */
unsigned long rvt_rnr_tbl_to_usec(u32 index)
{
	return rvt_rnr_usec[index & IB_AETH_CREDIT_MASK];
}
EXPORT_SYMBOL(rvt_rnr_tbl_to_usec);

/**
 * rvt_rc_timeout - the retry timer's callback
 * @t: the QP's s_timer
 *
 * An ACK is overdue: count the timeout and have the driver resend from
 * the oldest unacknowledged PSN, unless the timer was called off meanwhile.
 *
 * Context: timer (softirq) context; takes r_lock and s_lock.
 */
static void rvt_rc_timeout(struct timer_list *t)
{
	struct rvt_qp *qp = from_timer(qp, t, s_timer);
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	unsigned long flags;

	spin_lock_irqsave(&qp->r_lock, flags);
	spin_lock(&qp->s_lock);
	if (qp->s_flags & RVT_S_TIMER) {
		qp->s_flags &= ~RVT_S_TIMER;
		rvt_to_iport(qp)->n_rc_timeouts++;
		trace_rvt_rc_timeout(qp, qp->s_last_psn + 1);
		trace_rvt_rc_timeout_retries(qp);
		if (rdi->driver_f.notify_restart_rc)
			rdi->driver_f.notify_restart_rc(qp,
							qp->s_last_psn + 1, 1);
		rdi->driver_f.schedule_send(qp);
	}
	spin_unlock(&qp->s_lock);
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

/**
 * rvt_init_qp_timers - set up a new QP's timers, disarmed
 * @qp: the QP
 *
 * Context: process context, at creation.
 */
void rvt_init_qp_timers(struct rvt_qp *qp)
{
	timer_setup(&qp->s_timer, rvt_rc_timeout, 0);
	hrtimer_init(&qp->s_rnr_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	qp->s_rnr_timer.function = rvt_rc_rnr_retry;
}

/**
 * rvt_add_retry_timer_ext - arm the retry timer
 * @qp: the QP
 * @shift: left shift applied to the QP's timeout, to wait for several
 *	   packets' worth of responses
 *
 * The timer fires after the QP's timeout (4.096 us << timeout) << @shift,
 * plus the device's busy_jiffies, which grow with the number of RC QPs.
 *
 * Context: any; s_lock held.
 */
void rvt_add_retry_timer_ext(struct rvt_qp *qp, u8 shift)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);

	lockdep_assert_held(&qp->s_lock);
	qp->s_flags |= RVT_S_TIMER;
	mod_timer(&qp->s_timer, jiffies + rdi->busy_jiffies +
		  (qp->timeout_jiffies << shift));
}
EXPORT_SYMBOL(rvt_add_retry_timer_ext);

/**
 * rvt_add_rnr_timer - wait out an RNR NAK
 * @qp: the QP
 * @aeth: the AETH of the NAK (or one made up by a loopback), whose RNR
 *	  timer code says how long
 *
 * When the time is up, rvt_rc_rnr_retry() reschedules the send engine.
 *
 * Context: any; s_lock held.
 */
void rvt_add_rnr_timer(struct rvt_qp *qp, u32 aeth)
{
	u32 usec;

	lockdep_assert_held(&qp->s_lock);
	qp->s_flags |= RVT_S_WAIT_RNR;
	usec = rvt_rnr_tbl_to_usec(aeth >> IB_AETH_CREDIT_SHIFT);
	trace_rvt_rnrnak_add(qp, usec);
	trace_rvt_rc_rnrnak_retries(qp);
	hrtimer_start(&qp->s_rnr_timer, ns_to_ktime(usec * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED);
}
EXPORT_SYMBOL(rvt_add_rnr_timer);

/**
 * rvt_stop_rc_timers - disarm both RC timers
 * @qp: the QP
 *
 * Does not wait for a callback already running; it finds its flag clear
 * and does nothing. rvt_del_timers_sync() waits.
 *
 * Context: any; s_lock held.
 */
void rvt_stop_rc_timers(struct rvt_qp *qp)
{
	lockdep_assert_held(&qp->s_lock);
	if (!(qp->s_flags & (RVT_S_TIMER | RVT_S_WAIT_RNR)))
		return;
	qp->s_flags &= ~(RVT_S_TIMER | RVT_S_WAIT_RNR);
	timer_delete(&qp->s_timer);
	hrtimer_try_to_cancel(&qp->s_rnr_timer);
}
EXPORT_SYMBOL(rvt_stop_rc_timers);

/**
 * rvt_stop_rnr_timer - note that the RNR wait is over
 * @qp: the QP
 *
 * Context: any; s_lock held.
 */
static void rvt_stop_rnr_timer(struct rvt_qp *qp)
{
	lockdep_assert_held(&qp->s_lock);
	if (!(qp->s_flags & RVT_S_WAIT_RNR))
		return;
	qp->s_flags &= ~RVT_S_WAIT_RNR;
	trace_rvt_rnrnak_stop(qp, 0);
}

/**
 * rvt_del_timers_sync - disarm both RC timers and wait for their callbacks
 * @qp: the QP
 *
 * Context: process context without s_lock or r_lock, which the callbacks
 * take; may sleep.
 */
void rvt_del_timers_sync(struct rvt_qp *qp)
{
	timer_delete_sync(&qp->s_timer);
	hrtimer_cancel(&qp->s_rnr_timer);
}
EXPORT_SYMBOL(rvt_del_timers_sync);

/**
 * rvt_rc_rnr_retry - the RNR timer's callback
 * @t: the QP's s_rnr_timer
 *
 * Ends the RNR wait and reschedules the send engine, whether or not the
 * wait was called off meanwhile, as upstream does: drivers' schedule_send
 * callbacks check the QP's state, and a reset stops the driver's send
 * engine again after waiting for this callback (quiesce_qp).
 *
 * Context: hrtimer (hard interrupt) context; takes s_lock.
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart rvt_rc_rnr_retry(struct hrtimer *t)
{
	struct rvt_qp *qp = container_of(t, struct rvt_qp, s_rnr_timer);
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	unsigned long flags;

	spin_lock_irqsave(&qp->s_lock, flags);
	rvt_stop_rnr_timer(qp);
	trace_rvt_rnrnak_timeout(qp, 0);
	rdi->driver_f.schedule_send(qp);
	spin_unlock_irqrestore(&qp->s_lock, flags);
	return HRTIMER_NORESTART;
}
EXPORT_SYMBOL(rvt_rc_rnr_retry);
