// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: receiver not ready: RNR NAKs retried for ever (rnr_retry 7);
 * rnr_retry 0 is one of the refusals (dp_refusals.c).
 */
#include "dp_test.h"

/* rnr_retry 7 retries for ever: the send waits until a receive comes. */
void test_rnr_retry_7(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct rvt_ibport *rvp = ib_to_rvt(env.ibdev)->ports[0];
	const char *why = "setup";
	struct dpt_buf buf;
	struct dpt_pair p;
	struct ib_sge sg;
	u64 naks;
	bool ok = false;

	o.min_rnr_timer = 14;	/* 1.28 ms */
	if (buf_alloc(&buf) || pair_create(&p, &o))
		goto out;
	naks = rvp->n_rnr_naks;
	fill(buf.va, 64, 1);
	sg = dma_sge(&buf, 0, 64);
	why = "post";
	if (send_op(p.a, IB_WR_SEND, 11, &sg, 1))
		goto out_pair;
	why = "completed without a receive";
	if (!stays_empty(p.cq_a) || !stays_empty(p.cq_b) ||
	    rvp->n_rnr_naks < naks + 2)
		goto out_pair;
	sg = dma_sge(&buf, 1024, 64);
	why = "post recv";
	if (post_recv(p.b, 0xaa, &sg, 1))
		goto out_pair;
	ok = expect_wc(p.cq_a, 11, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why) &&
	     expect_wc(p.cq_b, 0xaa, IB_WC_SUCCESS, IB_WC_RECV, NULL, &why) &&
	     !memcmp(buf.va, buf.va + 1024, 64);
out_pair:
	pair_destroy(&p);
out:
	buf_free(&buf);
	if (ok)
		report(ok, "rnr_retry_7", "%llu RNR NAKs",
		       (unsigned long long)(rvp->n_rnr_naks - naks));
	else
		report(ok, "rnr_retry_7", "%s", why);
}
