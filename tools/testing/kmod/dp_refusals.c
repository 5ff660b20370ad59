// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: requests the responder refuses: access and key faults,
 * receive faults, RDMA READ/atomic without responder resources, a UC
 * message too long.
 */
#include "dp_test.h"

static bool both_in_error(struct dpt_pair *p, const char **why)
{
	*why = "QP states";
	return qp_state(p->a) == IB_QPS_ERR && qp_state(p->b) == IB_QPS_ERR;
}

static bool all_zero(const u8 *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * An RDMA WRITE of @len bytes at offset @off of a region registered with
 * @mr_access, on a responder QP allowing @qp_access, with the rkey's key
 * byte changed by @key_flip: the requester completes with @want, both
 * QPs end in ERR, the region is untouched.
 */
static void write_fault(const char *name, int mr_access, int qp_access,
			u64 off, u32 len, u32 key_flip, enum ib_wc_status want)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf src, dst;
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_sge sg;
	bool ok = false;

	o.b_access = qp_access;
	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o) ||
	    buf_reg(&dst, p.a, p.cq_a, mr_access))
		goto out_bufs;
	fill(src.va, len, 5);
	sg = dma_sge(&src, 0, len);
	why = "post";
	if (rdma_op(p.a, IB_WR_RDMA_WRITE, 20, &sg, 1, dst.mr->iova + off,
		    dst.mr->rkey ^ key_flip))
		goto out;
	if (!expect_wc(p.cq_a, 20, want, -1, NULL, &why) ||
	    !both_in_error(&p, &why))
		goto out;
	why = "region written";
	ok = all_zero(dst.va, BUF_SIZE);
out:
	pair_destroy(&p);
out_bufs:
	buf_free(&src);
	buf_free(&dst);
	report(ok, name, ok ? NULL : "%s", why);
}

void test_write_faults(void)
{
	write_fault("write_bad_rkey", FULL_ACCESS, FULL_ACCESS, 0, 64, 1,
		    IB_WC_REM_ACCESS_ERR);
	write_fault("write_out_of_bounds", FULL_ACCESS, FULL_ACCESS,
		    BUF_SIZE - 10, 20, 0, IB_WC_REM_ACCESS_ERR);
	write_fault("write_mr_without_remote_write", FULL_ACCESS &
		    ~IB_ACCESS_REMOTE_WRITE, FULL_ACCESS, 0, 64, 0,
		    IB_WC_REM_ACCESS_ERR);
	write_fault("write_qp_without_remote_write", FULL_ACCESS,
		    FULL_ACCESS & ~IB_ACCESS_REMOTE_WRITE, 0, 64, 0,
		    IB_WC_REM_ACCESS_ERR);
}

/*
 * A request the responder refuses while it has a receive request @recv
 * in progress or posted: @a_want for the requester, @b_want for the
 * receive, both QPs in ERR.
 */
static void recv_fault(const char *name, struct ib_sge *recv,
		       struct ib_send_wr *wr, enum ib_wc_status a_want,
		       enum ib_wc_status b_want)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;

	if (pair_create(&p, &o))
		goto out;
	why = "post";
	if (post_recv(p.b, 0xbb, recv, 1) || post_send(p.a, wr))
		goto out_pair;
	ok = expect_wc(p.cq_a, wr->wr_id, a_want, -1, NULL, &why) &&
	     expect_wc(p.cq_b, 0xbb, b_want, -1, NULL, &why) &&
	     both_in_error(&p, &why);
out_pair:
	pair_destroy(&p);
out:
	report(ok, name, ok ? NULL : "%s", why);
}

void test_recv_faults(void)
{
	struct ib_send_wr wr = {
		.wr_id = 21, .opcode = IB_WR_SEND, .num_sge = 1,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_sge rsg, ssg;
	struct dpt_buf buf;

	if (buf_alloc(&buf)) {
		report(false, "recv_faults", "no memory");
		return;
	}
	wr.sg_list = &ssg;
	ssg = dma_sge(&buf, 0, 200);
	rsg = dma_sge(&buf, 1024, 100);
	recv_fault("send_too_long", &rsg, &wr, IB_WC_REM_INV_REQ_ERR,
		   IB_WC_LOC_LEN_ERR);
	rsg.lkey = 0x12345600;
	recv_fault("recv_bad_lkey", &rsg, &wr, IB_WC_REM_OP_ERR,
		   IB_WC_LOC_PROT_ERR);
	buf_free(&buf);
}

/* RDMA READ and atomics need responder resources and proper alignment. */
void rd_atomic_fault(const char *name, bool no_rd_atomic,
		     enum ib_wr_opcode op, u64 off)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf rem, loc;
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_sge sg;
	bool ok = false;
	int ret;

	o.no_rd_atomic = no_rd_atomic;
	if (buf_alloc(&rem) || buf_alloc(&loc) || pair_create(&p, &o) ||
	    buf_reg(&rem, p.a, p.cq_a, FULL_ACCESS))
		goto out_bufs;
	sg = dma_sge(&loc, 0, 8);
	why = "post";
	if (op == IB_WR_RDMA_READ)
		ret = rdma_op(p.a, op, op, &sg, 1, rem.mr->iova + off,
			      rem.mr->rkey);
	else
		ret = atomic_op(p.a, op, &sg, rem.mr->iova + off,
				rem.mr->rkey, 1, 2);
	if (ret)
		goto out;
	ok = expect_wc(p.cq_a, op, IB_WC_REM_INV_REQ_ERR, -1, NULL, &why) &&
	     both_in_error(&p, &why);
out:
	pair_destroy(&p);
out_bufs:
	buf_free(&rem);
	buf_free(&loc);
	report(ok, name, ok ? NULL : "%s", why);
}

/*
 * UC drops what it cannot take, silently: a message too long for the
 * receive request leaves the request for the next message.
 */
void test_uc_too_long(void)
{
	struct dpt_opts o = opts(IB_QPT_UC);
	const char *why = "setup";
	struct ib_sge rsg, ssg;
	struct dpt_buf buf;
	struct dpt_pair p;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o))
		goto out;
	fill(buf.va, 200, 77);
	rsg = dma_sge(&buf, 4096, 100);
	ssg = dma_sge(&buf, 0, 200);
	why = "post";
	if (post_recv(p.b, 0xcc, &rsg, 1) ||
	    send_op(p.a, IB_WR_SEND, 22, &ssg, 1))
		goto out_pair;
	if (!expect_wc(p.cq_a, 22, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why))
		goto out_pair;
	why = "too long a message completed the receive";
	if (!stays_empty(p.cq_b) || qp_state(p.b) != IB_QPS_RTS)
		goto out_pair;
	ssg.length = 50;
	why = "post again";
	if (send_op(p.a, IB_WR_SEND, 23, &ssg, 1))
		goto out_pair;
	ok = expect_wc(p.cq_a, 23, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why) &&
	     expect_wc(p.cq_b, 0xcc, IB_WC_SUCCESS, IB_WC_RECV, &wc, &why) &&
	     wc.byte_len == 50 && !memcmp(buf.va + 4096, buf.va, 50);
out_pair:
	pair_destroy(&p);
out:
	buf_free(&buf);
	report(ok, "uc_too_long_dropped", ok ? NULL : "%s", why);
}
