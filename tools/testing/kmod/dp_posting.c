// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: errors at post time: bad requests, wrong QP states, a full
 * send queue, and a CQ overrun.
 */
#include <linux/module.h>
#include "dp_test.h"

static bool cq_overrun_race;
module_param(cq_overrun_race, bool, 0444);
MODULE_PARM_DESC(cq_overrun_race,
		 "cq_overrun destroys its QPs without waiting for the send engine (reproduces upstream's loopback deadlock; never in make check)");

/* Requests refused when posted: errno, bad_wr, nothing queued. */
void test_post_checks(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf buf, ro;
	const char *why = "setup";
	struct ib_sge sg[5];
	int e[6] = { };
	struct dpt_pair p;
	bool ok = false;
	int i;

	if (buf_alloc(&buf) || buf_alloc(&ro) || pair_create(&p, &o) ||
	    buf_reg(&buf, p.a, p.cq_a, FULL_ACCESS) ||
	    buf_reg(&ro, p.a, p.cq_a, IB_ACCESS_REMOTE_READ))
		goto out_bufs;
	sg[0] = (struct ib_sge){ buf.mr->iova, 8, buf.mr->lkey ^ 1 };
	e[0] = send_op(p.a, IB_WR_SEND, 30, sg, 1);
	sg[0] = (struct ib_sge){ buf.mr->iova + BUF_SIZE - 10, 20,
				 buf.mr->lkey };
	e[1] = send_op(p.a, IB_WR_SEND, 31, sg, 1);
	for (i = 0; i < 5; i++)
		sg[i] = dma_sge(&buf, i * 8, 8);
	e[2] = send_op(p.a, IB_WR_SEND, 32, sg, 5);
	e[3] = send_op(p.a, IB_WR_LSO, 33, sg, 1);
	sg[0] = dma_sge(&buf, 0, 4);
	e[4] = atomic_op(p.a, IB_WR_ATOMIC_FETCH_AND_ADD, sg, buf.mr->iova,
			 buf.mr->rkey, 1, 0);
	/* A READ writes into its local buffer: read-only memory will not do. */
	sg[0] = (struct ib_sge){ ro.mr->iova, 8, ro.mr->lkey };
	e[5] = rdma_op(p.a, IB_WR_RDMA_READ, 35, sg, 1, buf.mr->iova,
		       buf.mr->rkey);
	why = "errnos";
	for (i = 0; i < ARRAY_SIZE(e); i++)
		if (e[i] != -EINVAL)
			goto out;
	why = "something was queued";
	ok = stays_empty(p.cq_a) && qp_state(p.a) == IB_QPS_RTS;
out:
	pair_destroy(&p);
out_bufs:
	buf_free(&buf);
	buf_free(&ro);
	report(ok, "post_refused", ok ? NULL : "%s: %d %d %d %d %d %d", why,
	       e[0], e[1], e[2], e[3], e[4], e[5]);
}

/* Post one send and note whether bad_wr named it. */
static int state_send(struct ib_qp *qp, bool *bad_ok)
{
	struct ib_send_wr wr = { .wr_id = 40, .opcode = IB_WR_SEND };
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(qp, &wr, &bad);

	if (ret && bad != &wr)
		*bad_ok = false;
	return ret;
}

/*
 * Sends need RTS (or later), receives INIT (or later); a refused list
 * names its first request in bad_wr.
 */
void test_wrong_states(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	int e[5] = { 1, 1, 1, 1, 1 };
	struct dpt_pair p = { };
	bool bad_ok = true;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ev;

	cq = make_cq(&p, 16);
	if (IS_ERR(cq)) {
		report(false, "post_wrong_states", "no CQ");
		return;
	}
	qp = make_qp(&o, cq, NULL, &ev);
	if (!IS_ERR(qp)) {
		e[0] = state_send(qp, &bad_ok);
		e[1] = post_recv(qp, 41, NULL, 0);
		if (!to_init(qp, 0)) {
			e[2] = state_send(qp, &bad_ok);
			e[3] = post_recv(qp, 43, NULL, 0);
		}
		if (!to_rtr(qp, qp->qp_num, &o))
			e[4] = state_send(qp, &bad_ok);
		ib_destroy_qp(qp);
	}
	ib_destroy_cq(cq);
	report(e[0] == -EINVAL && e[1] == -EINVAL && e[2] == -EINVAL &&
	       !e[3] && e[4] == -EINVAL, "post_wrong_states",
	       "reset send %d recv %d, init send %d recv %d, rtr send %d",
	       e[0], e[1], e[2], e[3], e[4]);
	report(bad_ok, "post_wrong_state_sets_bad_wr",
	       bad_ok ? NULL : "bad_wr not set to the refused WR");
}

/* A send queue holds max_send_wr requests; completions make room. */
void test_sq_full(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;
	int i, full;

	o.max_send_wr = 4;
	o.min_rnr_timer = 14;
	if (pair_create(&p, &o))
		goto out;
	why = "post";
	/* No receives yet: the first send waits on RNR, the rest queue. */
	for (i = 0; i < 4; i++)
		if (send_op(p.a, IB_WR_SEND, 50 + i, NULL, 0))
			goto out_pair;
	full = send_op(p.a, IB_WR_SEND, 54, NULL, 0);
	why = "fifth request accepted";
	if (full != -ENOMEM)
		goto out_pair;
	why = "post recv";
	for (i = 0; i < 8; i++)
		if (post_recv(p.b, 0x100 + i, NULL, 0))
			goto out_pair;
	for (i = 0; i < 4; i++)
		if (!expect_wc(p.cq_a, 50 + i, IB_WC_SUCCESS, IB_WC_SEND, NULL,
			       &why))
			goto out_pair;
	why = "post after completions";
	for (i = 0; i < 4; i++)
		if (send_op(p.a, IB_WR_SEND, 60 + i, NULL, 0))
			goto out_pair;
	for (i = 0; i < 4; i++)
		if (!expect_wc(p.cq_a, 60 + i, IB_WC_SUCCESS, IB_WC_SEND, NULL,
			       &why))
			goto out_pair;
	ok = true;
out_pair:
	pair_destroy(&p);
out:
	report(ok, "send_queue_full", ok ? NULL : "%s", why);
}

/*
 * Has the QP's send engine flushed everything and let go? Upstream's
 * rvt_ruc_loopback() takes the requester's s_lock, then its r_lock, to
 * complete each request; a destroy takes r_lock, then s_lock. A destroy
 * that meets the engine mid-flush deadlocks the distro core with
 * interrupts off (Documentation/differences.rst), so the test waits.
 */
static bool send_engine_idle(struct ib_qp *ibqp)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);

	while (READ_ONCE(qp->s_last) != READ_ONCE(qp->s_head) ||
	       (READ_ONCE(qp->s_flags) & RVT_S_BUSY)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 400);
	}
	return true;
}

/*
 * What a full send CQ must lead to: IB_EVENT_CQ_ERR, the requester in ERR
 * and its engine done flushing (unless @racing). NULL, or what went wrong.
 */
static const char *overrun_outcome(struct dpt_pair *p, bool racing)
{
	if (!wait_async(&p->cq_ev, IB_EVENT_CQ_ERR))
		return "no CQ error event";
	if (qp_state(p->a) != IB_QPS_ERR)
		return "requester state";
	if (!racing && !send_engine_idle(p->a))
		return "send queue not flushed";
	return NULL;
}

/*
 * A full send CQ: IB_EVENT_CQ_ERR, the QP goes to ERR and its engine
 * flushes the rest of the send queue.
 */
void test_cq_overrun(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct ib_send_wr wr[4];
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;
	int i;

	o.cqe = 2;
	if (pair_create(&p, &o))
		goto out;
	why = "post";
	for (i = 0; i < 4; i++) {
		if (post_recv(p.b, 0x200 + i, NULL, 0))
			goto out_pair;
		wr[i] = (struct ib_send_wr){
			.wr_id = 70 + i, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.next = i < 3 ? &wr[i + 1] : NULL,
		};
	}
	if (post_send(p.a, wr))
		goto out_pair;
	why = overrun_outcome(&p, cq_overrun_race);
	ok = !why;
out_pair:
	pair_destroy(&p);
out:
	report(ok, "cq_overrun", ok ? NULL : "%s", why);
}

/*
 * The same through rvtsw's own engine: UC requests to a LID no port of
 * the device has complete at once (the message is lost), and the third
 * finds the send CQ of 2 full. rdmavt then moves the QP to ERR from
 * inside the completion, which needs both QP locks (lockdep's assertion
 * on the debug kernel, make check-debug, fails the run if they are not).
 */
void test_uc_lost_cq_overrun(void)
{
	struct dpt_opts o = opts(IB_QPT_UC);
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;
	int i;

	o.cqe = 2;
	o.dlid = 0x3fff;
	if (pair_create(&p, &o))
		goto out;
	why = "post";
	for (i = 0; i < 4; i++)
		if (send_op(p.a, IB_WR_SEND, 90 + i, NULL, 0))
			goto out_pair;
	why = overrun_outcome(&p, false);
	ok = !why;
out_pair:
	pair_destroy(&p);
out:
	report(ok, "uc_lost_cq_overrun", ok ? NULL : "%s", why);
}
