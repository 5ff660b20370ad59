// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: the receive queue in ERR and RESET, and the errors a driver
 * raises (rvt_comm_est(), rvt_rc_error()).
 */
#include "qp.h"

static int post_recvs(struct ib_qp *qp, int n)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = { };
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		wr.wr_id = 1000 + i;
		ret = ib_post_recv(qp, &wr, &bad);
	}
	return ret;
}

static int drain_cq(int want_status, int *bad)
{
	struct ib_wc wc[8];
	int n, i, total = 0;

	while ((n = ib_poll_cq(env.cq, ARRAY_SIZE(wc), wc)) > 0) {
		for (i = 0; i < n; i++)
			if (wc[i].status != want_status)
				(*bad)++;
		total += n;
	}
	return total;
}

void qp_error_flush(struct kt_test *t)
{
	int bad = 0, reset_post, full, flushed, discarded, late;
	struct ib_qp *qp;

	qp = qpt_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		kt_result(t, false, "create failed");
		return;
	}
	drain_cq(IB_WC_SUCCESS, &bad);
	reset_post = post_recvs(qp, 1);
	qpt_to_init(qp, 0);
	full = post_recvs(qp, 5);	/* 4 fit */
	kt_qp_to_state(qp, IB_QPS_ERR);
	flushed = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	post_recvs(qp, 1);		/* completed at once in ERR */
	late = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	kt_qp_to_state(qp, IB_QPS_RESET);
	qpt_to_init(qp, 0);
	post_recvs(qp, 3);
	kt_qp_to_state(qp, IB_QPS_RESET);	/* discards without completions */
	qpt_to_init(qp, 0);
	kt_qp_to_state(qp, IB_QPS_ERR);
	discarded = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	kt_result(t, reset_post == -EINVAL && full == -ENOMEM && flushed == 4 &&
		  late == 1 && discarded == 0 && !bad,
		  "reset %d full %d flushed %d late %d discarded %d bad %d",
		  reset_post, full, flushed, late, discarded, bad);
	ib_destroy_qp(qp);
}

void qp_comm_est_rc_error(struct kt_test *t)
{
	int last = -1, bad = 0, flushed;
	struct rvt_qp *rqp;
	struct ib_qp *qp;
	bool est;

	qp = qpt_qp(IB_QPT_RC, 1, &last);
	if (IS_ERR(qp)) {
		kt_result(t, false, "create failed");
		return;
	}
	rqp = ibqp_to_rvtqp(qp);
	qpt_to_init(qp, 0);
	post_recvs(qp, 2);
	rvt_comm_est(rqp);
	est = last == IB_EVENT_COMM_EST && (rqp->r_flags & RVT_R_COMM_EST);
	spin_lock_irq(&rqp->r_lock);
	rvt_rc_error(rqp, IB_WC_LOC_QP_OP_ERR);
	spin_unlock_irq(&rqp->r_lock);
	flushed = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	kt_result(t, est && qpt_check_state(qp, IB_QPS_ERR) && flushed == 2 &&
		  !bad, "event %d flushed %d", last, flushed);
	ib_destroy_qp(qp);
}
