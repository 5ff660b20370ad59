// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: the RC retry and RNR timers.
 */
#include <linux/timer.h>
#include <rdma/ib_hdrs.h>
#include "qp.h"

static bool wait_flag_clear(struct rvt_qp *qp, u32 flag, unsigned int ms)
{
	while (ms--) {
		if (!(READ_ONCE(qp->s_flags) & flag))
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

void qp_timers(struct kt_test *t)
{
	struct rvt_ibport *rvp = env.rdi->ports[0];
	bool armed, stopped, rnr, retry;
	u64 timeouts;
	struct rvt_qp *rqp;
	struct ib_qp *qp;

	qp = qpt_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		kt_result(t, false, "create failed");
		return;
	}
	rqp = ibqp_to_rvtqp(qp);
	qpt_to_init(qp, 0);
	qpt_to_rtr(qp);
	qpt_to_rts(qp);		/* timeout 14: the retry timer takes ~70 ms */

	spin_lock_irq(&rqp->s_lock);
	rvt_add_retry_timer_ext(rqp, 10);	/* long: we stop it */
	armed = (rqp->s_flags & RVT_S_TIMER) && timer_pending(&rqp->s_timer);
	rvt_stop_rc_timers(rqp);
	stopped = !(rqp->s_flags & RVT_S_TIMER) &&
		  !timer_pending(&rqp->s_timer);
	rvt_add_rnr_timer(rqp, 1 << IB_AETH_CREDIT_SHIFT);	/* 10 us */
	spin_unlock_irq(&rqp->s_lock);
	rnr = wait_flag_clear(rqp, RVT_S_WAIT_RNR, 1000);

	timeouts = rvp->n_rc_timeouts;
	spin_lock_irq(&rqp->s_lock);
	rvt_add_retry_timer(rqp);
	spin_unlock_irq(&rqp->s_lock);
	retry = wait_flag_clear(rqp, RVT_S_TIMER, 2000) &&
		rvp->n_rc_timeouts == timeouts + 1;
	rvt_del_timers_sync(rqp);
	kt_result(t, armed && stopped && rnr && retry,
		  "armed %d stopped %d rnr fired %d retry fired %d", armed,
		  stopped, rnr, retry);
	ib_destroy_qp(qp);
}
