// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: shared receive queues: traffic, resize and limit event.
 */
#include "dp.h"

static void srq_event(struct ib_event *ev, void *ctx)
{
	WRITE_ONCE(*(int *)ctx, ev->event);
}

static int post_srq(struct ib_srq *srq, struct dpt_buf *buf, u64 first,
		    int n)
{
	struct ib_sge sg;
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct ib_recv_wr wr = {
			.wr_id = first + i, .sg_list = &sg, .num_sge = 1,
		};

		sg = dma_sge(buf, (first + i) * 64, 64);
		ret = ib_post_srq_recv(srq, &wr, NULL);
	}
	return ret;
}

/* Send @n messages and check they took SRQ requests @first.. in order. */
static bool srq_traffic(struct kt_pair *p, u64 first, int n,
			const char **why)
{
	int i;

	for (i = 0; i < n; i++) {
		if (send_op(p->a, IB_WR_SEND, 100 + i, NULL, 0)) {
			*why = "post send";
			return false;
		}
		if (!expect_wc(p->cq_a, 100 + i, IB_WC_SUCCESS, IB_WC_SEND,
			       NULL, why) ||
		    !expect_wc(p->cq_b, first + i, IB_WC_SUCCESS, IB_WC_RECV,
			       NULL, why))
			return false;
	}
	return true;
}

static bool srq_has(struct ib_srq *srq, u32 max_wr, u32 limit)
{
	struct ib_srq_attr a = { };

	return !ib_query_srq(srq, &a) && a.max_wr == max_wr &&
	       a.srq_limit == limit && a.max_sge == 1;
}

/*
 * The limit event fires once, when fewer requests than the limit remain;
 * a resize keeps the posted requests in order; a resize too small for
 * them, or a limit above max_wr, is refused.
 */
void dp_srq(struct kt_test *t)
{
	struct ib_srq_init_attr sia = {
		.event_handler = srq_event, .srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct dpt_opts o = opts(IB_QPT_RC);
	struct ib_srq_attr attr = { };
	const char *why = "setup";
	struct ib_srq *srq;
	struct dpt_buf buf;
	struct kt_pair p;
	int srq_ev = KT_NO_EVENT;
	bool ok = false;

	sia.srq_context = &srq_ev;
	if (buf_alloc(&buf))
		goto out;
	srq = ib_create_srq(env.pd, &sia);
	if (IS_ERR(srq))
		goto out;
	o.srq = srq;
	if (pair_create(&p, &o))
		goto out_srq;
	why = "post srq";
	if (post_srq(srq, &buf, 1, 6))
		goto out_pair;
	attr.srq_limit = 5;
	why = "arm";
	if (ib_modify_srq(srq, &attr, IB_SRQ_LIMIT) || !srq_has(srq, 8, 5) ||
	    !srq_traffic(&p, 1, 1, &why) || srq_ev != KT_NO_EVENT)
		goto out_pair;
	if (!srq_traffic(&p, 2, 1, &why))
		goto out_pair;
	why = "limit event";
	if (!wait_async(&srq_ev, IB_EVENT_SRQ_LIMIT_REACHED) ||
	    !srq_has(srq, 8, 0))
		goto out_pair;
	why = "resize";
	attr.max_wr = 16;
	if (ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR) || !srq_has(srq, 16, 0) ||
	    post_srq(srq, &buf, 7, 10) || !srq_traffic(&p, 3, 14, &why))
		goto out_pair;
	why = "shrink below the posted requests";
	attr.max_wr = 2;
	attr.srq_limit = 17;
	if (post_srq(srq, &buf, 17, 4) ||
	    ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR) != -EINVAL ||
	    ib_modify_srq(srq, &attr, IB_SRQ_LIMIT) != -EINVAL ||
	    !srq_has(srq, 16, 0))
		goto out_pair;
	ok = srq_traffic(&p, 17, 4, &why);
out_pair:
	kt_pair_destroy(&p);
out_srq:
	ib_destroy_srq(srq);
out:
	buf_free(&buf);
	kt_result(t, ok, ok ? NULL : "%s", why);
}
