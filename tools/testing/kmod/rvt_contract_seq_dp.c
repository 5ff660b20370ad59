// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Data path sequences: posting and the driver's vetoes, RC/UC loopback
 * through rvt_ruc_loopback() (every opcode, and to dead, INIT, RESET,
 * ERR and wrong-type QPs), RNR and retry timers, error flush, reset, SQD,
 * UD/GSI delivery with its checks, multicast, SRQs.
 */
#include <linux/slab.h>
#include <rdma/ib_hdrs.h>
#include "rvt_contract_dp.h"

/* ---- posting ------------------------------------------------------ */

static void ct_post_states(void)
{
	struct ib_qp *qp;
	u8 *buf = kzalloc(256, GFP_KERNEL);

	if (!buf)
		return;
	ct_step("post.reset");
	qp = ct_create_qp("p_rst", IB_QPT_RC, 1, NULL, 4, 4);
	if (qp) {
		ct_send(qp, IB_WR_SEND, 1, buf, 16, 0);
		ct_post_recv(qp, 2, buf, 64);
		ct_end_step();
		ct_step("post.init");
		ct_modify(qp, &(struct ib_qp_attr){ .qp_state = IB_QPS_INIT,
			  .pkey_index = ct_full_pkey(), .port_num = 1 },
			  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			  IB_QP_ACCESS_FLAGS);
		ct_send(qp, IB_WR_SEND, 3, buf, 16, 0);
		ct_post_recv(qp, 4, buf, 64);
		ct_end_step();
		ct_step("post.reset_again");
		ct_modify(qp, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
			  IB_QP_STATE);
		ct_end_step();
		ct_step("post.rst_destroy");
		ct_destroy_qp(qp);
	}
	ct_end_step();
	kfree(buf);
}

static void ct_post_vetoes(struct ct_pair *p)
{
	struct ib_sge sge[3] = {};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = sge, .num_sge = 1,
		.send_flags = IB_SEND_SIGNALED,
	};
	int i;

	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)p->abuf + 64 * i;
		sge[i].length = 64;
		sge[i].lkey = ct.pd->local_dma_lkey;
	}
	ct_step("post.veto_wrid");
	wr.wr_id = CT_VETO_WRID;
	ct_post_send(p->a, &wr);
	ct_end_step();
	ct_step("post.veto_2g");
	wr.wr_id = 0x2;
	sge[0].length = 0x80000001;
	ct_post_send(p->a, &wr);
	sge[0].length = 64;
	ct_end_step();
	ct_step("post.too_many_sge");
	wr.num_sge = 3;
	ct_post_send(p->a, &wr);
	wr.num_sge = 1;
	ct_end_step();
	ct_step("post.bad_lkey");
	sge[0].lkey = 0x12345600;
	ct_post_send(p->a, &wr);
	sge[0].lkey = ct.pd->local_dma_lkey;
	ct_end_step();
	ct_step("post.bad_opcode");
	wr.opcode = IB_WR_RESERVED10;
	ct_post_send(p->a, &wr);
	wr.opcode = IB_WR_LOCAL_INV;
	wr.ex.invalidate_rkey = 0x1234;
	ct_post_send(p->a, &wr);
	wr.opcode = IB_WR_SEND;
	ct_end_step();
	ct_step("post.atomic_short_sge");
	{
		struct ib_atomic_wr aw = {
			.wr = { .wr_id = 0x3,
				.opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
				.sg_list = sge, .num_sge = 1,
				.send_flags = IB_SEND_SIGNALED },
			.remote_addr = 0x1000, .rkey = 0x1234, .compare_add = 1,
		};

		sge[0].length = 4;
		ct_post_send(p->a, &aw.wr);
		sge[0].length = 8;
		sge[0].addr += 4;
		aw.wr.wr_id = 0x4;
		ct_post_send(p->a, &aw.wr);
		sge[0].addr -= 4;
		sge[0].length = 64;
	}
	ct_end_step();
}

static void ct_post_schedule(struct ct_pair *p)
{
	struct ib_sge sge[2] = {
		{ (uintptr_t)p->abuf, 64, ct.pd->local_dma_lkey },
		{ (uintptr_t)p->abuf + 64, 64, ct.pd->local_dma_lkey },
	};
	struct ib_send_wr w2 = {
		.wr_id = 0x22, .opcode = IB_WR_SEND, .sg_list = &sge[1],
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_send_wr w1 = {
		.wr_id = 0x21, .opcode = IB_WR_SEND, .sg_list = &sge[0],
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED, .next = &w2,
	};

	ct_step("post.long");
	memset(p->abuf, 0xa5, CT_BUF);
	ct_post_recv(p->b, 0x10, p->bbuf, 4096);
	ct_send(p->a, IB_WR_SEND, 0x11, p->abuf, 2000, 0);
	ct_end_step();
	ct_sum("b", p->bbuf, 2000);
	ct_step("post.two");
	ct_post_recv(p->b, 0x12, p->bbuf, 256);
	ct_post_recv(p->b, 0x13, p->bbuf + 256, 256);
	ct_post_send(p->a, &w1);
	ct_end_step();
	ct_step("post.unsignaled");
	ct_post_recv(p->b, 0x14, p->bbuf, 256);
	w1.next = NULL;
	w1.send_flags = 0;
	ct_post_send(p->a, &w1);
	ct_end_step();
	ct_step("post.reserved_op");
	w1.opcode = IB_WR_RESERVED3;
	w1.send_flags = IB_SEND_SIGNALED;
	ct_post_recv(p->b, 0x15, p->bbuf, 256);
	ct_post_send(p->a, &w1);
	ct_end_step();
}

static void ct_post_recv_limits(struct ct_pair *p)
{
	struct ib_sge sge[3] = {
		{ (uintptr_t)p->bbuf, 64, ct.pd->local_dma_lkey },
		{ (uintptr_t)p->bbuf + 64, 64, ct.pd->local_dma_lkey },
		{ (uintptr_t)p->bbuf + 128, 64, ct.pd->local_dma_lkey },
	};
	struct ib_recv_wr wr = { .wr_id = 0x30, .sg_list = sge, .num_sge = 3 };
	const struct ib_recv_wr *bad;
	int i;

	ct_step("post.recv_too_many_sge");
	ct_log("post_recv 3 sge -> %d", ib_post_recv(p->b, &wr, &bad));
	ct_end_step();
	ct_step("post.recv_full");
	for (i = 0; i < 10; i++)
		ct_post_recv(p->b, 0x40 + i, p->bbuf, 64);
	ct_end_step();
}

/* A wire RC QP's send queue fills: nobody ACKs. */
static void ct_post_sq_full(void)
{
	struct ib_qp *qp;
	u8 *buf = kzalloc(64, GFP_KERNEL);
	int i;

	if (!buf)
		return;
	ct_step("post.sq_full");
	qp = ct_create_qp("p_full", IB_QPT_RC, 1, NULL, 4, 2);
	if (qp && !ct_rc_qp(qp, 1, CT_WIRE_LID, 0x99, 14, 1, 1, 1))
		for (i = 0; i < 6; i++)
			ct_send(qp, IB_WR_SEND, 0x50 + i, buf, 16, 0);
	ct_end_step();
	ct_step("post.sq_full_destroy");
	ct_destroy_qp(qp);
	ct_end_step();
	kfree(buf);
}

static void ct_post_ud(void)
{
	struct ib_qp *qp;
	struct ib_ah *ah, *ah15, *other = NULL;
	struct ib_pd *pd2;
	u8 *buf = kzalloc(CT_BUF, GFP_KERNEL);

	if (!buf)
		return;
	ct_step("post.ud");
	qp = ct_create_qp("p_ud", IB_QPT_UD, 1, NULL, 4, 4);
	ah = ct_ah(1, CT_WIRE_LID, 0, NULL);
	ah15 = ct_ah(1, CT_WIRE_LID, 15, NULL);
	pd2 = ib_alloc_pd(ct_ibdev(), 0);
	if (!IS_ERR(pd2)) {
		struct rdma_ah_attr attr;

		ct_set_av(&attr, 1, CT_WIRE_LID, 0);
		other = rdma_create_ah(pd2, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(other))
			other = NULL;
	}
	if (qp && ah && !ct_to_rts(qp, 1, 0, 0)) {
		ct_ud_send(qp, ah, 0x99, 0x11111111, 0x60, buf, 64,
			   IB_WR_SEND);
		ct_ud_send(qp, ah, 0x99, 0x11111111, 0x61, buf, 5000,
			   IB_WR_SEND);
		if (ah15)
			ct_ud_send(qp, ah15, 0x99, 0x11111111, 0x62, buf, 64,
				   IB_WR_SEND);
		if (other)
			ct_ud_send(qp, other, 0x99, 0x11111111, 0x63, buf, 64,
				   IB_WR_SEND);
		ct_ud_send(qp, ah, 0x99, 0x11111111, 0x64, buf, 64,
			   IB_WR_RDMA_WRITE);
	}
	ct_end_step();
	ct_step("post.ud_teardown");
	ct_destroy_qp(qp);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (ah15)
		rdma_destroy_ah(ah15, RDMA_DESTROY_AH_SLEEPABLE);
	if (other)
		rdma_destroy_ah(other, RDMA_DESTROY_AH_SLEEPABLE);
	if (!IS_ERR(pd2))
		ib_dealloc_pd(pd2);
	ct_end_step();
	kfree(buf);
}

/**
 * ct_seq_post - posting: states, vetoes (the driver's setup_wqe() and
 * rdmavt's checks), do_send() or schedule_send_no_lock(), full queues
 *
 * Context: the script.
 */
void ct_seq_post(void)
{
	struct ct_pair p;

	ct_post_states();
	ct_step("post.pair");
	if (ct_pair_up(&p, "p_a", "p_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	ct_end_step();
	ct_post_vetoes(&p);
	ct_post_schedule(&p);
	ct_post_recv_limits(&p);
	ct_step("post.pair_down");
	ct_pair_down(&p);
	ct_end_step();
	ct_post_sq_full();
	ct_post_ud();
}

/* ---- loopback ----------------------------------------------------- */

static void ct_loop_sends(struct ct_pair *p, const char *t)
{
	ct_step("loop.%s.send", t);
	memset(p->abuf, 0x3c, CT_BUF);
	ct_post_recv(p->b, 0x100, p->bbuf, 4096);
	ct_send(p->a, IB_WR_SEND, 0x101, p->abuf, 64, 0);
	ct_end_step();
	ct_sum("b", p->bbuf, 4096);
	ct_step("loop.%s.send3000", t);
	ct_post_recv(p->b, 0x102, p->bbuf, 4096);
	ct_send(p->a, IB_WR_SEND, 0x103, p->abuf + 7, 3000, 0);
	ct_end_step();
	ct_sum("b", p->bbuf, 4096);
	ct_step("loop.%s.send_imm", t);
	ct_post_recv(p->b, 0x104, p->bbuf, 4096);
	ct_send(p->a, IB_WR_SEND_WITH_IMM, 0x105, p->abuf, 10,
		IB_SEND_SOLICITED);
	ct_end_step();
	ct_step("loop.%s.send_empty", t);
	ct_post_recv(p->b, 0x106, p->bbuf, 4096);
	ct_send(p->a, IB_WR_SEND, 0x107, p->abuf, 0, 0);
	ct_end_step();
}

static void ct_loop_rdma(struct ct_pair *p, const char *t, struct ib_mr *mr)
{
	bool rc = p->a->qp_type == IB_QPT_RC;
	u64 iova = mr->iova;

	ct_step("loop.%s.write", t);
	ct_rdma(p->a, IB_WR_RDMA_WRITE, 0x110, p->abuf, 100, iova + 8,
		mr->rkey);
	ct_end_step();
	ct_step("loop.%s.write_imm", t);
	ct_post_recv(p->b, 0x111, p->bbuf, 64);
	ct_rdma(p->a, IB_WR_RDMA_WRITE_WITH_IMM, 0x112, p->abuf, 2500,
		iova + 100, mr->rkey);
	ct_end_step();
	ct_step("loop.%s.write_bad_rkey", t);
	/* Another generation of the MR's slot; never 0, the DMA MR's key. */
	ct_rdma(p->a, IB_WR_RDMA_WRITE, 0x113, p->abuf, 10, iova,
		mr->rkey ^ 0x4000);
	ct_end_step();
	if (!rc)
		return;
	ct_step("loop.%s.read", t);
	memset(p->abuf, 0, 512);
	ct_rdma(p->a, IB_WR_RDMA_READ, 0x114, p->abuf, 200, iova + 8,
		mr->rkey);
	ct_end_step();
	ct_sum("a", p->abuf, 512);
	ct_step("loop.%s.atomics", t);
	ct_atomic(p->a, IB_WR_ATOMIC_FETCH_AND_ADD, 0x115, p->abuf, iova + 512,
		  mr->rkey, 5, 0);
	ct_atomic(p->a, IB_WR_ATOMIC_CMP_AND_SWP, 0x116, p->abuf + 8,
		  iova + 512, mr->rkey, 5, 0x77);
	ct_atomic(p->a, IB_WR_ATOMIC_CMP_AND_SWP, 0x117, p->abuf + 16,
		  iova + 516, mr->rkey, 5, 0x77);
	ct_end_step();
	ct_log("a.atomic %llx %llx", *(u64 *)p->abuf, *(u64 *)(p->abuf + 8));
	ct_step("loop.%s.send_inv", t);
	ct_post_recv(p->b, 0x118, p->bbuf, 64);
	{
		struct ib_sge sge = { (uintptr_t)p->abuf, 8,
				      ct.pd->local_dma_lkey };
		struct ib_send_wr wr = {
			.wr_id = 0x119, .opcode = IB_WR_SEND_WITH_INV,
			.sg_list = &sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
			.ex.invalidate_rkey = mr->rkey,
		};

		ct_post_send(p->a, &wr);
	}
	ct_end_step();
	ct_step("loop.%s.write_after_inv", t);
	ct_rdma(p->a, IB_WR_RDMA_WRITE, 0x11a, p->abuf, 10, iova, mr->rkey);
	ct_end_step();
}

static void ct_loop_type(enum ib_qp_type type, const char *t)
{
	struct ct_pair p;
	struct ib_mr *mr;
	char a[8], b[8];

	snprintf(a, sizeof(a), "l%s_a", t);
	snprintf(b, sizeof(b), "l%s_b", t);
	ct_step("loop.%s.up", t);
	if (ct_pair_up(&p, a, b, type, 1)) {
		ct_end_step();
		return;
	}
	ct_end_step();
	ct_loop_sends(&p, t);
	ct_step("loop.%s.mr", t);
	mr = ct_fastreg(p.b, p.bbuf, 2, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_ATOMIC);
	ct_end_step();
	if (mr) {
		ct_loop_rdma(&p, t, mr);
		ct_sum("b", p.bbuf, CT_BUF);
	}
	ct_step("loop.%s.down", t);
	ct_pair_down(&p);
	ct_mr_free(mr);
	ct_end_step();
}

/* A requester whose responder is missing, not ready or of another type. */
static void ct_loop_dead_one(const char *name, enum ib_qp_type type,
			     u32 dqpn)
{
	struct ib_qp *qp;
	u8 *buf = kzalloc(64, GFP_KERNEL);
	char label[CT_LABEL_LEN];

	ct_step("dead.%s.%s", type == IB_QPT_RC ? "rc" : "uc", name);
	snprintf(label, sizeof(label), "d%s_%s", type == IB_QPT_RC ? "r" : "u",
		 name);
	qp = ct_create_qp(label, type, 1, NULL, 4, 4);
	if (qp && buf && !ct_rc_qp(qp, 1, CT_BASE_LID, dqpn, 14, 2, 2, 1)) {
		ct_send(qp, IB_WR_SEND, 0x200, buf, 16, 0);
		ct_end_step();
		ct_step("dead.%s.%s.after", type == IB_QPT_RC ? "rc" : "uc",
			name);
		ct_send(qp, IB_WR_SEND, 0x201, buf, 16, 0);
	}
	ct_end_step();
	ct_step("dead.%s.%s.destroy", type == IB_QPT_RC ? "rc" : "uc", name);
	ct_destroy_qp(qp);
	ct_end_step();
	kfree(buf);
}

static void ct_loop_dead(void)
{
	struct ib_qp *init, *rst, *err, *ud;
	int t;

	ct_step("dead.targets");
	init = ct_create_qp("tgt_init", IB_QPT_RC, 1, NULL, 4, 4);
	rst = ct_create_qp("tgt_rst", IB_QPT_RC, 1, NULL, 4, 4);
	err = ct_create_qp("tgt_err", IB_QPT_RC, 1, NULL, 4, 4);
	ud = ct_create_qp("tgt_ud", IB_QPT_UD, 1, NULL, 4, 4);
	if (init)
		ct_modify(init, &(struct ib_qp_attr){ .qp_state = IB_QPS_INIT,
			  .pkey_index = ct_full_pkey(), .port_num = 1,
			  .qp_access_flags = IB_ACCESS_REMOTE_WRITE },
			  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			  IB_QP_ACCESS_FLAGS);
	if (err) {
		ct_to_rts(err, 1, CT_BASE_LID, 0x99);
		ct_modify(err, &(struct ib_qp_attr){ .qp_state = IB_QPS_ERR },
			  IB_QP_STATE);
	}
	if (ud)
		ct_to_rts(ud, 1, 0, 0);
	if (init)
		ct_post_recv(init, 0x210, NULL, 0);
	ct_end_step();
	for (t = 0; t < 2; t++) {
		enum ib_qp_type type = t ? IB_QPT_UC : IB_QPT_RC;

		ct_loop_dead_one("missing", type, 0x7ff0);
		if (init)
			ct_loop_dead_one("init", type, init->qp_num);
		if (rst)
			ct_loop_dead_one("reset", type, rst->qp_num);
		if (err)
			ct_loop_dead_one("error", type, err->qp_num);
		if (ud)
			ct_loop_dead_one("ud", type, ud->qp_num);
	}
	ct_step("dead.teardown");
	ct_destroy_qp(init);
	ct_destroy_qp(rst);
	ct_destroy_qp(err);
	ct_destroy_qp(ud);
	ct_end_step();
}

/* The responder refuses: no rd_atomic resources, access, length. */
static void ct_loop_refusals(void)
{
	struct ct_pair p;
	struct ib_mr *mr;

	ct_step("refuse.up");
	if (ct_pair_up(&p, "rf_a", "rf_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	ct_modify(p.b, &(struct ib_qp_attr){ .qp_state = IB_QPS_RTS,
		  .qp_access_flags = IB_ACCESS_REMOTE_READ },
		  IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	mr = ct_fastreg(p.b, p.bbuf, 2, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	ct_end_step();
	if (mr) {
		ct_step("refuse.write_no_access");
		ct_rdma(p.a, IB_WR_RDMA_WRITE, 0x220, p.abuf, 10, mr->iova,
			mr->rkey);
		ct_end_step();
	}
	ct_step("refuse.down");
	ct_pair_down(&p);
	ct_mr_free(mr);
	ct_end_step();

	ct_step("refuse.long_up");
	if (ct_pair_up(&p, "rl_a", "rl_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	ct_end_step();
	ct_step("refuse.send_too_long");
	ct_post_recv(p.b, 0x230, p.bbuf, 16);
	ct_send(p.a, IB_WR_SEND, 0x231, p.abuf, 100, 0);
	ct_end_step();
	ct_step("refuse.long_down");
	ct_pair_down(&p);
	ct_end_step();
}

/**
 * ct_seq_loopback - RC and UC through rvt_ruc_loopback()
 *
 * Context: the script.
 */
void ct_seq_loopback(void)
{
	ct_loop_type(IB_QPT_RC, "rc");
	ct_loop_type(IB_QPT_UC, "uc");
	ct_loop_dead();
	ct_loop_refusals();
}

/* ---- timers ------------------------------------------------------- */

static void ct_timer_rnr(void)
{
	struct ct_pair p;

	ct_step("timer.rnr_up");
	if (ct_pair_up(&p, "r_a", "r_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	ct_end_step();
	ct_step("timer.rnr_exhaust");
	ct_send(p.a, IB_WR_SEND, 0x300, p.abuf, 16, 0);
	ct_end_step();
	ct_step("timer.rnr_down");
	ct_pair_down(&p);
	ct_end_step();
}

static void ct_timer_wire(void)
{
	struct ib_qp *qp;
	u8 *buf = kzalloc(256, GFP_KERNEL);

	if (!buf)
		return;
	ct_step("timer.retry_up");
	qp = ct_create_qp("w_a", IB_QPT_RC, 1, NULL, 4, 4);
	if (qp && ct_rc_qp(qp, 1, CT_WIRE_LID, 0x99, 14, 2, 2, 1)) {
		ct_destroy_qp(qp);
		qp = NULL;
	}
	ct_end_step();
	if (qp) {
		ct_step("timer.retry_exhaust");
		ct_send(qp, IB_WR_SEND, 0x310, buf, 100, 0);
		ct_send(qp, IB_WR_SEND, 0x311, buf, 100, 0);
		ct_end_step();
		ct_step("timer.retry_destroy");
		ct_destroy_qp(qp);
		ct_end_step();
	}
	kfree(buf);
}

/* rdmavt's timer exports, called as hfi1 and qib call them. */
static void ct_timer_exports(void)
{
	struct rvt_qp *qp;
	struct ib_qp *ibqp;
	unsigned long flags;
	int i;

	ct_step("timer.exports_up");
	ibqp = ct_create_qp("t_a", IB_QPT_RC, 1, NULL, 4, 4);
	/*
	 * A 4 s ACK timeout: the steps below arm the retry timer and stop it
	 * a few lines later, and a guest stalled by its host for more than a
	 * 67 ms timeout (code 14) would see it fire in between, on one core
	 * and not the other.
	 */
	if (!ibqp || ct_rc_qp(ibqp, 1, CT_WIRE_LID, 0x99, 20, 2, 2, 1)) {
		ct_destroy_qp(ibqp);
		ct_end_step();
		return;
	}
	ct_end_step();
	qp = ibqp_to_rvtqp(ibqp);
	/*
	 * The timer is stopped before interrupts come back on: both cores
	 * arm it pinned to this CPU, so it cannot fire in between, however
	 * long the host stalls the guest (one stall outlasted even the
	 * longest RNR wait, 655 ms, between this step and the next).
	 */
	ct_step("timer.add_rnr");
	spin_lock_irqsave(&qp->s_lock, flags);
	ct_ex(EX_ADD_RNR_TIMER);
	rvt_add_rnr_timer(qp, 0 << IB_AETH_CREDIT_SHIFT);
	ct_log("s_flags=%#x", qp->s_flags);
	rvt_stop_rc_timers(qp);
	ct_log("stopped: s_flags=%#x", qp->s_flags);
	spin_unlock_irqrestore(&qp->s_lock, flags);
	ct_end_step();
	ct_step("timer.add_retry_stop");
	spin_lock_irqsave(&qp->s_lock, flags);
	ct_ex(EX_ADD_RETRY_TIMER_EXT);
	rvt_add_retry_timer_ext(qp, 3);
	ct_log("s_flags=%#x pending=%d", qp->s_flags,
	       timer_pending(&qp->s_timer));
	ct_ex(EX_STOP_RC_TIMERS);
	rvt_stop_rc_timers(qp);
	ct_log("s_flags=%#x pending=%d", qp->s_flags,
	       timer_pending(&qp->s_timer));
	spin_unlock_irqrestore(&qp->s_lock, flags);
	ct_end_step();
	ct_step("timer.add_retry_del_sync");
	spin_lock_irqsave(&qp->s_lock, flags);
	rvt_add_retry_timer_ext(qp, 0);
	spin_unlock_irqrestore(&qp->s_lock, flags);
	ct_ex(EX_DEL_TIMERS_SYNC);
	rvt_del_timers_sync(qp);
	ct_log("s_flags=%#x pending=%d", qp->s_flags,
	       timer_pending(&qp->s_timer));
	spin_lock_irqsave(&qp->s_lock, flags);
	rvt_stop_rc_timers(qp);
	spin_unlock_irqrestore(&qp->s_lock, flags);
	ct_end_step();
	ct_step("timer.rnr_retry_direct");
	ct_ex(EX_RC_RNR_RETRY);
	ct_log("rvt_rc_rnr_retry -> %d", rvt_rc_rnr_retry(&qp->s_rnr_timer));
	ct_end_step();
	ct_step("timer.rnr_table");
	ct_ex(EX_RNR_TBL_TO_USEC);
	for (i = 0; i < 34; i += 3)
		ct_log("rnr_tbl_to_usec %d -> %lu", i, rvt_rnr_tbl_to_usec(i));
	ct_end_step();
	ct_step("timer.exports_down");
	ct_destroy_qp(ibqp);
	ct_end_step();
}

/**
 * ct_seq_timers - RNR NAK timer, retry timer on the wire, timer exports
 *
 * Context: the script.
 */
void ct_seq_timers(void)
{
	ct_timer_rnr();
	ct_timer_wire();
	ct_timer_exports();
}

/* ---- error flush, reset, SQD -------------------------------------- */

static void ct_post_list(struct ct_pair *p, u64 wr_id, int n)
{
	struct ib_sge sge = { (uintptr_t)p->abuf, 32, ct.pd->local_dma_lkey };
	struct ib_send_wr wr[4] = {};
	int i;

	for (i = 0; i < n && i < ARRAY_SIZE(wr); i++) {
		wr[i].wr_id = wr_id + i;
		wr[i].opcode = IB_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].send_flags = IB_SEND_SIGNALED;
		if (i + 1 < n)
			wr[i].next = &wr[i + 1];
	}
	ct_post_send(p->a, wr);
}

static void ct_flush_error(void)
{
	struct ct_pair p;

	ct_step("flush.up");
	if (ct_pair_up(&p, "f_a", "f_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	ct_post_recv(p.b, 0x400, p.bbuf, 64);
	ct_post_recv(p.b, 0x401, p.bbuf + 64, 64);
	ct_end_step();
	ct_step("flush.error_with_sends");
	ct_post_list(&p, 0x410, 3);
	ct_modify(p.a, &(struct ib_qp_attr){ .qp_state = IB_QPS_ERR },
		  IB_QP_STATE);
	ct_end_step();
	ct_step("flush.error_with_recvs");
	ct_modify(p.b, &(struct ib_qp_attr){ .qp_state = IB_QPS_ERR },
		  IB_QP_STATE);
	ct_end_step();
	ct_step("flush.post_in_error");
	ct_send(p.a, IB_WR_SEND, 0x420, p.abuf, 8, 0);
	ct_post_recv(p.b, 0x421, p.bbuf, 64);
	ct_end_step();
	ct_step("flush.down");
	ct_pair_down(&p);
	ct_end_step();
}

static void ct_flush_reset(void)
{
	struct ct_pair p;

	ct_step("reset.up");
	if (ct_pair_up(&p, "z_a", "z_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	ct_post_recv(p.b, 0x430, p.bbuf, 64);
	ct_post_recv(p.b, 0x431, p.bbuf + 64, 64);
	ct_end_step();
	ct_step("reset.with_sends");
	ct_post_list(&p, 0x440, 2);
	ct_modify(p.a, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
		  IB_QP_STATE);
	ct_end_step();
	ct_step("reset.with_recvs");
	ct_modify(p.b, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
		  IB_QP_STATE);
	ct_post_recv(p.b, 0x432, p.bbuf, 64);
	ct_end_step();
	ct_step("reset.reconnect");
	ct_rc_qp(p.a, 1, CT_BASE_LID, p.b->qp_num, 14, 3, 3, 4);
	ct_rc_qp(p.b, 1, CT_BASE_LID, p.a->qp_num, 14, 3, 3, 4);
	ct_post_recv(p.b, 0x433, p.bbuf, 64);
	ct_send(p.a, IB_WR_SEND, 0x434, p.abuf, 8, 0);
	ct_end_step();
	ct_step("reset.sqd");
	ct_post_recv(p.b, 0x435, p.bbuf, 64);
	ct_post_recv(p.b, 0x436, p.bbuf, 64);
	ct_post_list(&p, 0x450, 2);
	ct_modify(p.a, &(struct ib_qp_attr){ .qp_state = IB_QPS_SQD },
		  IB_QP_STATE);
	ct_query_qp(p.a);
	ct_end_step();
	ct_step("reset.sqd_to_rts");
	ct_modify(p.a, &(struct ib_qp_attr){ .qp_state = IB_QPS_RTS },
		  IB_QP_STATE);
	ct_end_step();
	ct_step("reset.destroy_busy");
	ct_post_list(&p, 0x460, 2);
	ct_pair_down(&p);
	ct_end_step();
}

/* rvt_error_qp(), rvt_rc_error(), rvt_comm_est() called as drivers do. */
static void ct_flush_exports(void)
{
	struct ct_pair p;
	struct rvt_qp *a, *b;
	unsigned long flags;
	int ret;

	ct_step("export.up");
	if (ct_pair_up(&p, "e_a", "e_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	a = ibqp_to_rvtqp(p.a);
	b = ibqp_to_rvtqp(p.b);
	ct_post_recv(p.b, 0x470, p.bbuf, 64);
	ct_end_step();
	ct_step("export.error_qp");
	spin_lock_irqsave(&b->r_lock, flags);
	spin_lock(&b->s_lock);
	ct_ex(EX_ERROR_QP);
	ret = rvt_error_qp(b, IB_WC_REM_ABORT_ERR);
	ct_log("rvt_error_qp -> %d", ret);
	ret = rvt_error_qp(b, IB_WC_REM_ABORT_ERR);
	ct_log("rvt_error_qp again -> %d", ret);
	spin_unlock(&b->s_lock);
	spin_unlock_irqrestore(&b->r_lock, flags);
	ct_end_step();
	ct_step("export.rc_error");
	spin_lock_irqsave(&a->r_lock, flags);
	ct_ex(EX_RC_ERROR);
	rvt_rc_error(a, IB_WC_LOC_PROT_ERR);
	spin_unlock_irqrestore(&a->r_lock, flags);
	ct_end_step();
	ct_step("export.comm_est");
	ct_rc_qp(p.a, 1, CT_BASE_LID, p.b->qp_num, 14, 3, 3, 4);
	ct_modify(p.a, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
		  IB_QP_STATE);
	ct_modify(p.a, &(struct ib_qp_attr){ .qp_state = IB_QPS_INIT,
		  .pkey_index = ct_full_pkey(), .port_num = 1 },
		  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
		  IB_QP_ACCESS_FLAGS);
	spin_lock_irqsave(&a->r_lock, flags);
	ct_ex(EX_COMM_EST);
	rvt_comm_est(a);
	ct_log("r_flags=%#x", a->r_flags);
	rvt_comm_est(a);
	spin_unlock_irqrestore(&a->r_lock, flags);
	ct_end_step();
	ct_step("export.down");
	ct_pair_down(&p);
	ct_end_step();
}

/**
 * ct_seq_flush - errors, resets and drains with work outstanding
 *
 * Context: the script.
 */
void ct_seq_flush(void)
{
	ct_flush_error();
	ct_flush_reset();
	ct_flush_exports();
}

/* ---- UD ----------------------------------------------------------- */

static const union ib_gid ct_mgid = {
	.raw = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
		 0, 0, 0, 0, 0, 0, 0, 1 },
};

static struct ib_qp *ct_ud_qp(const char *label, u32 port, u16 pkey_index)
{
	struct ib_qp *qp = ct_create_qp(label, IB_QPT_UD, port, NULL, 8, 8);
	struct ib_qp_attr a = {};
	int ret;

	if (!qp)
		return NULL;
	a.qp_state = IB_QPS_INIT;
	a.pkey_index = pkey_index;
	a.port_num = port;
	a.qkey = 0x11111111;
	ret = ct_modify(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			IB_QP_QKEY);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	ret = ret ?: ct_modify(qp, &a, IB_QP_STATE);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 1;
	ret = ret ?: ct_modify(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret) {
		ct_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

struct ct_ud {
	struct ib_qp *a, *b, *c, *d, *e;
	struct ib_ah *to1, *to1g, *to2, *wire, *mc;
	u8 *buf;
};

static void ct_ud_unicast(struct ct_ud *u)
{
	u8 *in = u->buf + 4096;

	ct_step("ud.plain");
	ct_post_recv(u->b, 0x500, in, 1024);
	ct_ud_send(u->a, u->to1, u->b->qp_num, 0x11111111, 0x501, u->buf, 100,
		   IB_WR_SEND);
	ct_end_step();
	ct_sum("b", in, 1024);
	ct_step("ud.grh_imm");
	ct_post_recv(u->b, 0x502, in, 1024);
	ct_ud_send(u->a, u->to1g, u->b->qp_num, 0x11111111, 0x503, u->buf, 60,
		   IB_WR_SEND_WITH_IMM);
	ct_end_step();
	ct_sum("b", in, 1024);
	ct_step("ud.qkey_bad");
	ct_post_recv(u->b, 0x504, in, 1024);
	ct_ud_send(u->a, u->to1, u->b->qp_num, 0x22222222, 0x505, u->buf, 10,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("ud.qkey_own");
	ct_ud_send(u->a, u->to1, u->b->qp_num, 0x80000000, 0x506, u->buf, 10,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("ud.no_recv");
	ct_ud_send(u->a, u->to1, u->b->qp_num, 0x11111111, 0x507, u->buf, 10,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("ud.too_long");
	ct_post_recv(u->b, 0x508, in, 64);
	ct_ud_send(u->a, u->to1, u->b->qp_num, 0x11111111, 0x509, u->buf, 200,
		   IB_WR_SEND);
	ct_ud_send(u->a, u->to1, u->b->qp_num, 0x11111111, 0x50a, u->buf, 8,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("ud.last_port");
	ct_post_recv(u->d, 0x50b, in, 1024);
	ct_ud_send(u->a, u->to2, u->d->qp_num, 0x11111111, 0x50c, u->buf, 30,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("ud.wire_and_missing");
	ct_ud_send(u->a, u->wire, 0x99, 0x11111111, 0x50d, u->buf, 30,
		   IB_WR_SEND);
	ct_ud_send(u->a, u->to1, 0xabcd, 0x11111111, 0x50e, u->buf, 30,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("ud.pkey_limited");
	ct_post_recv(u->e, 0x50f, in, 1024);
	ct_ud_send(u->c, u->to1, u->e->qp_num, 0x11111111, 0x510, u->buf, 30,
		   IB_WR_SEND);
	ct_end_step();
}

static int ct_mcast(const char *name, struct ib_qp *qp, u16 lid, bool attach)
{
	int ret = attach ? ib_attach_mcast(qp, (union ib_gid *)&ct_mgid, lid) :
			   ib_detach_mcast(qp, (union ib_gid *)&ct_mgid, lid);

	ct_log("%s %s %s lid=%#x -> %d", attach ? "attach" : "detach", name,
	       ct_ibqp_label(qp), lid, ret);
	return ret;
}

static void ct_ud_multicast(struct ct_ud *u)
{
	u8 *in = u->buf + 4096;
	struct rvt_mcast *mc;
	union ib_gid mgid = ct_mgid;
	int ret;

	ct_step("mcast.attach");
	ct_mcast("b", u->b, 0xc001, true);
	ct_mcast("c", u->c, 0xc001, true);
	ret = ct_mcast("dup", u->b, 0xc001, true);
	/*
	 * rdmavt takes a second attach of a QP to a group as success
	 * without a second entry, but the IB core counted it in the QP's
	 * usecnt, which only a successful detach gives back: the QP could
	 * never be destroyed. Give the count back so that it can.
	 */
	ct_log("usecnt %d", atomic_read(&u->b->usecnt));
	if (!ret)
		atomic_dec(&u->b->usecnt);
	ct_mcast("other_lid", u->e, 0xc002, true);
	ct_end_step();
	ct_step("mcast.find");
	rcu_read_lock();
	ct_ex(EX_MCAST_FIND);
	mc = rvt_mcast_find(&ct_port(1)->rvp, &mgid, 0xc001);
	ct_log("find 0xc001 -> %s n=%d ref=%d", mc ? "found" : "none",
	       mc ? mc->n_attached : 0, mc ? atomic_read(&mc->refcount) : 0);
	if (mc && atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
	mc = rvt_mcast_find(&ct_port(1)->rvp, &mgid, 0xc003);
	ct_log("find 0xc003 -> %s", mc ? "found" : "none");
	if (mc && atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
	mc = rvt_mcast_find(&ct_port(ct_nports())->rvp, &mgid, 0xc001);
	ct_log("find last port -> %s", mc ? "found" : "none");
	if (mc && atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
	rcu_read_unlock();
	ct_end_step();
	ct_step("mcast.send");
	ct_post_recv(u->b, 0x520, in, 1024);
	ct_post_recv(u->c, 0x521, in + 1024, 1024);
	ct_ud_send(u->a, u->mc, 0xffffff, 0x11111111, 0x522, u->buf, 40,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("mcast.detach");
	ct_mcast("c", u->c, 0xc001, false);
	ct_mcast("c_again", u->c, 0xc001, false);
	ct_mcast("b", u->b, 0xc001, false);
	ct_mcast("e", u->e, 0xc002, false);
	ct_end_step();
	ct_step("mcast.send_no_group");
	ct_ud_send(u->a, u->mc, 0xffffff, 0x11111111, 0x523, u->buf, 40,
		   IB_WR_SEND);
	ct_end_step();
	ct_step("mcast.last_port");
	ct_mcast("d_last_port", u->d, 0xc001, true);
	ct_ud_send(u->a, u->mc, 0xffffff, 0x11111111, 0x524, u->buf, 40,
		   IB_WR_SEND);
	ct_mcast("d_last_port", u->d, 0xc001, false);
	ct_end_step();
}

static void ct_ud_setup(struct ct_ud *u)
{
	union ib_gid gid = {};

	gid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid.global.interface_id =
		cpu_to_be64(be64_to_cpu(ct_ibdev()->node_guid) + 1);
	u->a = ct_ud_qp("u_a", 1, ct_full_pkey());
	u->b = ct_ud_qp("u_b", 1, ct_full_pkey());
	u->c = ct_ud_qp("u_c", 1, 0);
	/* On the last port: port 2 of a qib, hfi1's only port. */
	u->d = ct_ud_qp("u_d", ct_nports(), ct_full_pkey());
	u->e = ct_ud_qp("u_e", 1, 0);
	u->to1 = ct_ah(1, CT_BASE_LID, 0, NULL);
	u->to1g = ct_ah(1, CT_BASE_LID, 0, &gid);
	u->to2 = ct_ah(1, ct_port_lid(ct_nports()), 0, NULL);
	u->wire = ct_ah(1, CT_WIRE_LID, 0, NULL);
	u->mc = ct_ah(1, 0xc001, 0, &ct_mgid);
}

static void ct_ud_teardown(struct ct_ud *u)
{
	struct ib_ah *ahs[] = { u->to1, u->to1g, u->to2, u->wire, u->mc };
	int i;

	ct_destroy_qp(u->a);
	ct_destroy_qp(u->b);
	ct_destroy_qp(u->c);
	ct_destroy_qp(u->d);
	ct_destroy_qp(u->e);
	for (i = 0; i < ARRAY_SIZE(ahs); i++)
		if (ahs[i])
			rdma_destroy_ah(ahs[i], RDMA_DESTROY_AH_SLEEPABLE);
}

/**
 * ct_seq_ud - datagrams through the test driver's UD engine
 *
 * Context: the script.
 */
void ct_seq_ud(void)
{
	struct ct_ud u = {};

	u.buf = kzalloc(CT_BUF, GFP_KERNEL);
	if (!u.buf)
		return;
	memset(u.buf, 0x5b, 4096);
	ct_step("ud.setup");
	ct_ud_setup(&u);
	ct_end_step();
	if (u.a && u.b && u.c && u.d && u.e && u.to1 && u.to1g && u.to2 &&
	    u.wire && u.mc) {
		ct_ud_unicast(&u);
		ct_ud_multicast(&u);
	}
	ct_step("ud.teardown");
	ct_ud_teardown(&u);
	ct_end_step();
	kfree(u.buf);
}

/* ---- SRQ ---------------------------------------------------------- */

static void ct_srq_event(struct ib_event *ev, void *ctx)
{
	ct_log("event %s srq", ib_event_msg(ev->event));
}

static struct ib_srq *ct_make_srq(u32 wr, u32 sge)
{
	struct ib_srq_init_attr ia = {
		.event_handler = ct_srq_event,
		.attr = { .max_wr = wr, .max_sge = sge },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq = ib_create_srq(ct.pd, &ia);

	ct_log("create_srq wr=%u sge=%u -> %ld (%u %u)", wr, sge,
	       IS_ERR(srq) ? PTR_ERR(srq) : 0L, ia.attr.max_wr,
	       ia.attr.max_sge);
	return IS_ERR(srq) ? NULL : srq;
}

static void ct_srq_post(struct ib_srq *srq, u64 wr_id, void *buf)
{
	struct ib_sge sge = { (uintptr_t)buf, 256, ct.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	ct_log("post_srq_recv %#llx -> %d", wr_id,
	       ib_post_srq_recv(srq, &wr, &bad));
}

static void ct_srq_modify(struct ib_srq *srq, u32 max_wr, u32 limit,
			  int mask)
{
	struct ib_srq_attr a = { .max_wr = max_wr, .srq_limit = limit };
	int ret = ib_modify_srq(srq, &a, mask);

	memset(&a, 0, sizeof(a));
	ib_query_srq(srq, &a);
	ct_log("modify_srq mask=%#x wr=%u limit=%u -> %d now %u/%u", mask,
	       max_wr, limit, ret, a.max_wr, a.srq_limit);
}

static void ct_srq_traffic(struct ib_srq *srq, u8 *buf)
{
	struct ib_qp *a, *b;
	struct rvt_qp *rb;
	unsigned long flags;
	int i;

	a = ct_create_qp("s_a", IB_QPT_RC, 1, NULL, 8, 8);
	b = ct_create_qp("s_b", IB_QPT_RC, 1, srq, 8, 0);
	if (!a || !b || ct_rc_qp(a, 1, CT_BASE_LID, b->qp_num, 14, 3, 3, 4) ||
	    ct_rc_qp(b, 1, CT_BASE_LID, a->qp_num, 14, 3, 3, 4))
		goto out;
	ct_end_step();
	for (i = 0; i < 3; i++) {
		ct_step("srq.send%d", i);
		ct_send(a, IB_WR_SEND, 0x600 + i, buf, 32, 0);
		ct_end_step();
	}
	ct_step("srq.aeth");
	rb = ibqp_to_rvtqp(b);
	spin_lock_irqsave(&rb->s_lock, flags);
	ct_ex(EX_COMPUTE_AETH);
	ct_log("rvt_compute_aeth srq -> %#x",
	       be32_to_cpu(rvt_compute_aeth(rb)));
	spin_unlock_irqrestore(&rb->s_lock, flags);
	ct_end_step();
	ct_step("srq.resize");
	ct_srq_modify(srq, 16, 0, IB_SRQ_MAX_WR);
	ct_srq_modify(srq, 4, 20, IB_SRQ_LIMIT);
	ct_end_step();
	ct_step("srq.qp_error");
	ct_modify(b, &(struct ib_qp_attr){ .qp_state = IB_QPS_ERR },
		  IB_QP_STATE);
out:
	ct_end_step();
	ct_step("srq.qps_down");
	ct_destroy_qp(a);
	ct_destroy_qp(b);
}

/**
 * ct_seq_srq - shared receive queues: limits, the limit event, resize,
 * LAST_WQE_REACHED
 *
 * Context: the script.
 */
void ct_seq_srq(void)
{
	struct ib_srq *srq, *bad;
	u8 *buf = kzalloc(4096, GFP_KERNEL);
	int i;

	if (!buf)
		return;
	ct_step("srq.create");
	bad = ct_make_srq(0x20000, 1);
	if (bad)
		ib_destroy_srq(bad);
	bad = ct_make_srq(4, 200);
	if (bad)
		ib_destroy_srq(bad);
	srq = ct_make_srq(4, 2);
	if (!srq) {
		ct_end_step();
		kfree(buf);
		return;
	}
	for (i = 0; i < 6; i++)
		ct_srq_post(srq, 0x610 + i, buf + 256 * i);
	ct_srq_modify(srq, 0, 3, IB_SRQ_LIMIT);
	ct_srq_traffic(srq, buf);
	ct_end_step();
	ct_step("srq.destroy");
	ib_destroy_srq(srq);
	ct_log("destroy_srq");
	ct_end_step();
	kfree(buf);
}
