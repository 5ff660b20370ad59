// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: destinations: requests that cannot arrive, a QP sending to
 * itself, and the communication-established event.
 */
#include "dp.h"

/*
 * A destination that does not take the request: RC fails it at once with
 * IB_WC_RETRY_EXC_ERR, as upstream does, without waiting for its retry
 * timer (here 2^31 * 4.096 us, hours: only an immediate completion passes
 * the test); UC never knows.
 */
static void lost_request(struct kt_test *t, enum ib_qp_type type,
			 bool wrong_type)
{
	struct dpt_opts o = opts(type), uo = opts(IB_QPT_UC);
	struct kt_pair p, other = { };
	const char *why = "setup";
	bool ok = false;
	bool rc = type == IB_QPT_RC;

	o.retry_cnt = 7;
	o.timeout = 31;
	o.dest = 0xabcde;
	if (wrong_type) {
		if (pair_create(&other, &uo))
			goto out;
		o.dest = other.b->qp_num;
	}
	if (pair_create(&p, &o))
		goto out;
	why = "post";
	if (send_op(p.a, IB_WR_SEND, 80, NULL, 0))
		goto out_pair;
	ok = expect_wc(p.cq_a, 80, rc ? IB_WC_RETRY_EXC_ERR : IB_WC_SUCCESS,
		       rc ? -1 : IB_WC_SEND, NULL, &why) &&
	     qp_state(p.a) == (rc ? IB_QPS_ERR : IB_QPS_RTS);
out_pair:
	kt_pair_destroy(&p);
out:
	if (wrong_type)
		kt_pair_destroy(&other);
	kt_result(t, ok, ok ? NULL : "%s", why);
}

/* No QP at the destination QPN: the table's line gives the type. */
void dp_no_destination(struct kt_test *t)
{
	lost_request(t, t->c->arg, false);
}

/* An RC request to a UC QP. */
void dp_destination_wrong_type(struct kt_test *t)
{
	lost_request(t, IB_QPT_RC, true);
}

/* A QP connected to itself: both ends' locks are one QP's. */
void dp_self(struct kt_test *t)
{
	struct ib_qp_attr reset = { .qp_state = IB_QPS_RESET };
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct kt_path path;
	struct kt_pair p;
	struct ib_sge sg;
	struct dpt_buf buf;
	struct ib_wc wc[2];
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o))
		goto out;
	why = "reconnect to itself";
	path = dp_path(&o, FULL_ACCESS, p.a->qp_num);
	if (ib_modify_qp(p.a, &reset, IB_QP_STATE) ||
	    kt_qp_connect(p.a, &path))
		goto out_pair;
	fill(buf.va, 300, 44);
	sg = dma_sge(&buf, 2048, 300);
	why = "post";
	if (post_recv(p.a, 0xdd, &sg, 1))
		goto out_pair;
	sg = dma_sge(&buf, 0, 300);
	if (send_op(p.a, IB_WR_SEND, 90, &sg, 1))
		goto out_pair;
	why = "completions";
	if (!wait_wc(p.cq_a, &wc[0], WAIT_MS) ||
	    !wait_wc(p.cq_a, &wc[1], WAIT_MS))
		goto out_pair;
	ok = wc[0].status == IB_WC_SUCCESS && wc[1].status == IB_WC_SUCCESS &&
	     wc[0].wr_id + wc[1].wr_id == 90 + 0xdd &&
	     !memcmp(buf.va, buf.va + 2048, 300);
out_pair:
	kt_pair_destroy(&p);
out:
	buf_free(&buf);
	kt_result(t, ok, ok ? NULL : "%s", why);
}

/* The first message to a responder in RTR establishes the connection. */
void dp_comm_est(struct kt_test *t)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct kt_pair p;
	bool ok = false;

	o.b_rtr = true;
	if (pair_create(&p, &o))
		goto out;
	why = "post";
	if (post_recv(p.b, 0xee, NULL, 0) ||
	    send_op(p.a, IB_WR_SEND, 91, NULL, 0))
		goto out_pair;
	ok = expect_wc(p.cq_b, 0xee, IB_WC_SUCCESS, IB_WC_RECV, NULL, &why) &&
	     expect_wc(p.cq_a, 91, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why);
	why = "no IB_EVENT_COMM_EST";
	ok = ok && wait_async(&p.ev_b, IB_EVENT_COMM_EST);
out_pair:
	kt_pair_destroy(&p);
out:
	kt_result(t, ok, ok ? NULL : "%s", why);
}
