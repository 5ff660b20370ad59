// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: data movement through the RC/UC loopback engine: send
 * with immediate data, RDMA WRITE and READ, atomics, send with
 * invalidate, local invalidate, with the data checked.
 */
#include "dp.h"

/*
 * A message gathered from two SGEs of @a lands in two SGEs of @b's
 * receive request, with immediate data.
 */
void dp_send(struct kt_test *t)
{
	struct dpt_opts o = opts(t->c->arg);
	struct dpt_buf src = { }, dst = { };
	struct ib_sge ssg[2], rsg[2];
	struct ib_send_wr wr = {
		.wr_id = 1, .opcode = IB_WR_SEND_WITH_IMM, .sg_list = ssg,
		.num_sge = 2, .send_flags = IB_SEND_SIGNALED,
		.ex.imm_data = cpu_to_be32(0x1234abcd),
	};
	const char *why = "setup";
	struct kt_pair p = { };
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o))
		goto out;
	fill(src.va, 6000, 3);
	ssg[0] = dma_sge(&src, 0, 2500);
	ssg[1] = dma_sge(&src, 2500, 3500);
	rsg[0] = dma_sge(&dst, 0, 1000);
	rsg[1] = dma_sge(&dst, 1024, 7000);
	why = "post";
	if (post_recv(p.b, 0x77, rsg, 2) || post_send(p.a, &wr))
		goto out;
	if (!expect_wc(p.cq_a, 1, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why) ||
	    !expect_wc(p.cq_b, 0x77, IB_WC_SUCCESS, IB_WC_RECV, &wc, &why))
		goto out;
	why = "receive completion fields";
	if (wc.byte_len != 6000 || !(wc.wc_flags & IB_WC_WITH_IMM) ||
	    wc.ex.imm_data != cpu_to_be32(0x1234abcd) ||
	    wc.src_qp != p.a->qp_num || wc.qp != p.b)
		goto out;
	why = "data";
	ok = !memcmp(dst.va, src.va, 1000) &&
	     !memcmp(dst.va + 1024, src.va + 1000, 5000) &&
	     !dst.va[1000] && !dst.va[1024 + 5000];
out:
	dp_end(t, &p, &src, &dst, ok, why);
}

/*
 * RDMA WRITE into the middle of a registered region, nothing around it
 * touched and no receive consumed; then WRITE_WITH_IMM, which consumes
 * one; then a zero-length WRITE, whose key is not checked.
 */
void dp_write(struct kt_test *t)
{
	struct dpt_opts o = opts(t->c->arg);
	struct dpt_buf src = { }, dst = { };
	struct ib_sge sg;
	const char *why = "setup";
	struct kt_pair p = { };
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o) ||
	    buf_reg(&dst, p.a, p.cq_a, FULL_ACCESS))
		goto out;
	fill(src.va, BUF_SIZE, 9);
	sg = dma_sge(&src, 0, 5000);
	why = "post write";
	if (rdma_op(p.a, IB_WR_RDMA_WRITE, 2, &sg, 1, dst.mr->iova + 100,
		    dst.mr->rkey))
		goto out;
	if (!expect_wc(p.cq_a, 2, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, NULL, &why))
		goto out;
	why = "written data";
	if (memcmp(dst.va + 100, src.va, 5000) || dst.va[99] ||
	    dst.va[5100] || !stays_empty(p.cq_b))
		goto out;

	why = "post write with immediate";
	sg = dma_sge(&src, 0, 10);
	if (post_recv(p.b, 0x88, NULL, 0) ||
	    rdma_op(p.a, IB_WR_RDMA_WRITE_WITH_IMM, 3, &sg, 1, dst.mr->iova,
		    dst.mr->rkey))
		goto out;
	if (!expect_wc(p.cq_a, 3, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, NULL,
		       &why) ||
	    !expect_wc(p.cq_b, 0x88, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
		       &wc, &why))
		goto out;
	why = "immediate";
	if (wc.byte_len != 10 || !(wc.wc_flags & IB_WC_WITH_IMM) ||
	    wc.ex.imm_data != cpu_to_be32(0xfeed0003))
		goto out;

	why = "zero-length write";
	if (rdma_op(p.a, IB_WR_RDMA_WRITE, 4, NULL, 0, 0, 0xbad))
		goto out;
	ok = expect_wc(p.cq_a, 4, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, NULL, &why);
out:
	dp_end(t, &p, &src, &dst, ok, why);
}

/* RDMA READ of 6000 bytes into two local SGEs. */
void dp_read(struct kt_test *t)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf src = { }, dst = { };
	struct ib_sge sg[2];
	const char *why = "setup";
	struct kt_pair p = { };
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o) ||
	    buf_reg(&src, p.a, p.cq_a, IB_ACCESS_REMOTE_READ))
		goto out;
	fill(src.va, BUF_SIZE, 21);
	sg[0] = dma_sge(&dst, 0, 100);
	sg[1] = dma_sge(&dst, 200, 5900);
	why = "post";
	if (rdma_op(p.a, IB_WR_RDMA_READ, 5, sg, 2, src.mr->iova + 50,
		    src.mr->rkey))
		goto out;
	if (!expect_wc(p.cq_a, 5, IB_WC_SUCCESS, IB_WC_RDMA_READ, &wc, &why))
		goto out;
	why = "data";
	ok = wc.byte_len == 6000 && !memcmp(dst.va, src.va + 50, 100) &&
	     !memcmp(dst.va + 200, src.va + 150, 5900) && !dst.va[100] &&
	     stays_empty(p.cq_b);
out:
	dp_end(t, &p, &src, &dst, ok, why);
}

/* FETCH_ADD and CMP_SWAP (a hit and a miss), original values returned. */
void dp_atomics(struct kt_test *t)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf tgt = { }, res = { };
	struct ib_sge sg;
	u64 *target, *result;
	const char *why = "setup";
	struct kt_pair p = { };
	bool ok = false;
	u64 raddr;

	if (buf_alloc(&tgt) || buf_alloc(&res) || pair_create(&p, &o) ||
	    buf_reg(&tgt, p.a, p.cq_a, IB_ACCESS_LOCAL_WRITE |
		    IB_ACCESS_REMOTE_ATOMIC))
		goto out;
	target = (u64 *)(tgt.va + 64);
	result = (u64 *)(res.va + 8);
	*target = 100;
	raddr = tgt.mr->iova + 64;
	sg = dma_sge(&res, 8, 8);
	why = "fetch_add";
	if (atomic_op(p.a, IB_WR_ATOMIC_FETCH_AND_ADD, &sg, raddr,
		      tgt.mr->rkey, 5, 0) ||
	    !expect_wc(p.cq_a, IB_WR_ATOMIC_FETCH_AND_ADD, IB_WC_SUCCESS,
		       IB_WC_FETCH_ADD, NULL, &why) ||
	    *result != 100 || *target != 105)
		goto out;
	why = "cmp_swap hit";
	if (atomic_op(p.a, IB_WR_ATOMIC_CMP_AND_SWP, &sg, raddr, tgt.mr->rkey,
		      105, 7) ||
	    !expect_wc(p.cq_a, IB_WR_ATOMIC_CMP_AND_SWP, IB_WC_SUCCESS,
		       IB_WC_COMP_SWAP, NULL, &why) ||
	    *result != 105 || *target != 7)
		goto out;
	why = "cmp_swap miss";
	if (atomic_op(p.a, IB_WR_ATOMIC_CMP_AND_SWP, &sg, raddr, tgt.mr->rkey,
		      1, 9) ||
	    !expect_wc(p.cq_a, IB_WR_ATOMIC_CMP_AND_SWP, IB_WC_SUCCESS,
		       IB_WC_COMP_SWAP, NULL, &why) ||
	    *result != 7 || *target != 7)
		goto out;
	ok = true;
out:
	dp_end(t, &p, &tgt, &res, ok, why);
}

/*
 * SEND_WITH_INV invalidates the responder's MR and says so; a later
 * WRITE with that key fails.
 */
void dp_send_inv(struct kt_test *t)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf buf = { };
	const char *why = "setup";
	struct ib_send_wr wr = {
		.wr_id = 6, .opcode = IB_WR_SEND_WITH_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct kt_pair p = { };
	struct ib_sge sg;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o) ||
	    buf_reg(&buf, p.b, p.cq_b, FULL_ACCESS))
		goto out;
	wr.ex.invalidate_rkey = buf.mr->rkey;
	why = "post";
	if (post_recv(p.b, 0x99, NULL, 0) || post_send(p.a, &wr))
		goto out;
	if (!expect_wc(p.cq_a, 6, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why) ||
	    !expect_wc(p.cq_b, 0x99, IB_WC_SUCCESS, IB_WC_RECV, &wc, &why))
		goto out;
	why = "no invalidation reported";
	if (!(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc.ex.invalidate_rkey != buf.mr->rkey)
		goto out;
	sg = dma_sge(&buf, 0, 8);
	why = "write after invalidation";
	if (rdma_op(p.a, IB_WR_RDMA_WRITE, 7, &sg, 1, buf.mr->iova,
		    buf.mr->rkey))
		goto out;
	ok = expect_wc(p.cq_a, 7, IB_WC_REM_ACCESS_ERR, -1, NULL, &why);
out:
	dp_end(t, &p, &buf, NULL, ok, why);
}

/* LOCAL_INV of the requester's own MR, then a WRITE to it fails. */
void dp_local_inv(struct kt_test *t)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf buf = { };
	struct ib_send_wr wr = {
		.wr_id = 8, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	const char *why = "setup";
	struct kt_pair p = { };
	struct ib_sge sg;
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o) ||
	    buf_reg(&buf, p.a, p.cq_a, FULL_ACCESS))
		goto out;
	wr.ex.invalidate_rkey = buf.mr->rkey;
	why = "local invalidate";
	if (post_send(p.a, &wr) ||
	    !expect_wc(p.cq_a, 8, IB_WC_SUCCESS, IB_WC_LOCAL_INV, NULL, &why))
		goto out;
	sg = dma_sge(&buf, 0, 8);
	why = "write after invalidation";
	if (rdma_op(p.a, IB_WR_RDMA_WRITE, 9, &sg, 1, buf.mr->iova,
		    buf.mr->rkey))
		goto out;
	ok = expect_wc(p.cq_a, 9, IB_WC_REM_ACCESS_ERR, -1, NULL, &why);
out:
	dp_end(t, &p, &buf, NULL, ok, why);
}
