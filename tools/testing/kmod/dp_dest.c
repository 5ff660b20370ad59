// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: destinations: requests that cannot arrive, a QP sending to
 * itself, and the communication-established event.
 */
#include "dp_test.h"

/*
 * A destination that does not take the request: RC fails it at once with
 * IB_WC_RETRY_EXC_ERR, as upstream does, without waiting for its retry
 * timer (here 2^31 * 4.096 us, hours: only an immediate completion passes
 * the test); UC never knows.
 */
void lost_request(const char *name, enum ib_qp_type type,
		  bool wrong_type)
{
	struct dpt_opts o = opts(type), uo = opts(IB_QPT_UC);
	struct dpt_pair p, other = { };
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
	pair_destroy(&p);
out:
	if (wrong_type)
		pair_destroy(&other);
	report(ok, name, ok ? NULL : "%s", why);
}

/* A QP connected to itself: both ends' locks are one QP's. */
void test_self(void)
{
	struct ib_qp_attr reset = { .qp_state = IB_QPS_RESET };
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_sge sg;
	struct dpt_buf buf;
	struct ib_wc wc[2];
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o))
		goto out;
	why = "reconnect to itself";
	if (ib_modify_qp(p.a, &reset, IB_QP_STATE) ||
	    to_init(p.a, FULL_ACCESS) || to_rtr(p.a, p.a->qp_num, &o) ||
	    to_rts(p.a, &o))
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
	pair_destroy(&p);
out:
	buf_free(&buf);
	report(ok, "rc_connected_to_itself", ok ? NULL : "%s", why);
}

/* The first message to a responder in RTR establishes the connection. */
void test_comm_est(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct dpt_pair p;
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
	pair_destroy(&p);
out:
	report(ok, "comm_est_in_rtr", ok ? NULL : "%s", why);
}
