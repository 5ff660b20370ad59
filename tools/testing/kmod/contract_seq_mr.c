// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Memory regions and the helpers of a driver's RC receive path: fast
 * registration (posted and through rvt_fast_reg_mr()), invalidation,
 * rvt_lkey_ok()/rvt_rkey_ok() as the send and receive paths call them,
 * rkey 0, rvt_compute_aeth()/rvt_get_credit()/rvt_restart_sge(),
 * rvt_get_rwqe()/rvt_copy_sge()/rvt_send_complete() called directly.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_hdrs.h>
#include "contract_dp.h"

/* Register @mr with @key: posted IB_WR_REG_MR if the driver has it. */
static int ct_reg(struct ib_qp *qp, struct ib_mr *mr, u32 key, int access)
{
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 0x700, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr, .key = key, .access = access,
	};
	int ret;

	if (ct.dev->rdi.post_parms[IB_WR_REG_MR].length &&
	    qp->qp_type == IB_QPT_RC)
		return ct_post_send(qp, &wr.wr);
	ct_ex(EX_FAST_REG_MR);
	ret = rvt_fast_reg_mr(ibqp_to_rvtqp(qp), mr, key, access);
	ct_log("rvt_fast_reg_mr %s -> %d", ct_ibqp_label(qp), ret);
	return ret;
}

/**
 * ct_fastreg - allocate, map and register a fast-registration MR
 * @qp: the QP that registers it
 * @buf: page-aligned buffer of @pages pages
 * @pages: number of pages
 * @access: access flags
 *
 * Context: the script.
 * Return: the MR, or NULL (logged).
 */
struct ib_mr *ct_fastreg(struct ib_qp *qp, void *buf, u32 pages, int access)
{
	struct scatterlist sg[4];
	struct ib_mr *mr;
	int i, n, ret;

	mr = ib_alloc_mr(ct.pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(mr)) {
		ct_log("alloc_mr %u -> %ld", pages, PTR_ERR(mr));
		return NULL;
	}
	sg_init_table(sg, pages);
	for (i = 0; i < pages; i++)
		sg_set_buf(&sg[i], buf + i * PAGE_SIZE, PAGE_SIZE);
	n = ib_dma_map_sg(ct_ibdev(), sg, pages, DMA_BIDIRECTIONAL);
	ret = ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(ct_ibdev(), sg, pages, DMA_BIDIRECTIONAL);
	ct_log("map_mr_sg %d -> %d aligned=%d iova=buf:%d length=%llu page=%u",
	       n, ret, IS_ALIGNED((uintptr_t)buf, PAGE_SIZE),
	       mr->iova == (uintptr_t)buf, mr->length, mr->page_size);
	ct_log("  lkey=%#x rkey=%#x", mr->lkey, mr->rkey);
	ct_reg(qp, mr, mr->rkey, access);
	ct_settle(1000);
	ct_poll(ct.cq);
	return mr;
}

/**
 * ct_mr_free - deregister an MR
 * @mr: the MR, or NULL
 *
 * Context: the script.
 */
void ct_mr_free(struct ib_mr *mr)
{
	if (mr)
		ct_log("dereg_mr -> %d", ib_dereg_mr(mr));
}

/* rvt_lkey_ok() as post_send calls it; a reference taken is dropped. */
static void ct_lkey_ok(const char *name, struct ib_sge *sge,
		       struct rvt_sge *last, int acc, const void *base)
{
	struct rvt_dev_info *rdi = &ct.dev->rdi;
	struct rvt_sge isge = {};
	int ret;

	ct_ex(EX_LKEY_OK);
	ret = rvt_lkey_ok(&rdi->lkey_table, ibpd_to_rvtpd(ct.pd), &isge, last,
			  sge, acc);
	ct_log("rvt_lkey_ok %s -> %d length=%u sge_length=%u m=%u n=%u off=%ld",
	       name, ret, isge.length, isge.sge_length, isge.m, isge.n,
	       ret > 0 ? (long)(isge.vaddr - base) : 0L);
	if (last)
		ct_log("  last: length=%u sge_length=%u", last->length,
		       last->sge_length);
	if (ret > 0 && isge.mr)
		rvt_put_mr(isge.mr);
}

/* The first SGE of a request, kept to be merged with the next. */
static void ct_lkey_first(struct ib_sge *sge, struct rvt_sge *first,
			  int acc, const void *base)
{
	struct rvt_dev_info *rdi = &ct.dev->rdi;
	int ret;

	memset(first, 0, sizeof(*first));
	ct_ex(EX_LKEY_OK);
	ret = rvt_lkey_ok(&rdi->lkey_table, ibpd_to_rvtpd(ct.pd), first, NULL,
			  sge, acc);
	ct_log("rvt_lkey_ok first -> %d length=%u sge_length=%u off=%ld", ret,
	       first->length, first->sge_length,
	       ret > 0 ? (long)(first->vaddr - base) : 0L);
	if (ret <= 0)
		first->mr = NULL;
}

static void ct_lkeys(struct ib_mr *mr, u8 *buf)
{
	struct ib_sge sge = { (uintptr_t)buf, 100, 0 };
	struct rvt_sge first;

	ct_step("mr.lkey_ok");
	ct_lkey_first(&sge, &first, 0, buf);
	sge.addr += 100;
	if (first.mr) {
		ct_lkey_ok("dma_adjacent", &sge, &first, 0, buf);
		rvt_put_mr(first.mr);
	}
	sge = (struct ib_sge){ mr->iova + 10, 200, mr->lkey };
	ct_lkey_first(&sge, &first, IB_ACCESS_LOCAL_WRITE, buf);
	sge.addr += 200;
	if (first.mr) {
		ct_lkey_ok("mr_adjacent", &sge, &first, IB_ACCESS_LOCAL_WRITE,
			   buf);
		rvt_put_mr(first.mr);
	}
	sge = (struct ib_sge){ mr->iova + PAGE_SIZE + 100, 50, mr->lkey };
	ct_lkey_ok("mr_page2", &sge, NULL, 0, buf);
	sge = (struct ib_sge){ mr->iova - 8, 50, mr->lkey };
	ct_lkey_ok("mr_before", &sge, NULL, 0, buf);
	sge = (struct ib_sge){ mr->iova + 2 * PAGE_SIZE - 8, 50, mr->lkey };
	ct_lkey_ok("mr_after", &sge, NULL, 0, buf);
	sge = (struct ib_sge){ mr->iova, 8, mr->lkey ^ 0x100 };
	ct_lkey_ok("wrong_key", &sge, NULL, 0, buf);
	sge = (struct ib_sge){ mr->iova, 8, mr->lkey };
	ct_lkey_ok("atomic_access", &sge, NULL, IB_ACCESS_REMOTE_ATOMIC, buf);
	sge = (struct ib_sge){ mr->iova, 8, 0 };
	ct_lkey_ok("dma_of_mr_address", &sge, NULL, IB_ACCESS_LOCAL_WRITE, buf);
	ct_end_step();
}

static void ct_rkey_ok(const char *name, struct ib_qp *qp, u32 len,
		       u64 vaddr, u32 rkey, int acc)
{
	struct rvt_sge sge = {};
	int ret;

	ct_ex(EX_RKEY_OK);
	ret = rvt_rkey_ok(ibqp_to_rvtqp(qp), &sge, len, vaddr, rkey, acc);
	ct_log("rvt_rkey_ok %s -> %d length=%u m=%u n=%u", name, ret,
	       sge.length, sge.m, sge.n);
	if (ret > 0 && sge.mr)
		rvt_put_mr(sge.mr);
}

static void ct_rkeys(struct ib_qp *qp, struct ib_mr *mr, u8 *buf)
{
	ct_step("mr.rkey_ok");
	ct_rkey_ok("write", qp, 64, mr->iova + 16, mr->rkey,
		   IB_ACCESS_REMOTE_WRITE);
	ct_rkey_ok("page2", qp, 64, mr->iova + PAGE_SIZE + 16, mr->rkey,
		   IB_ACCESS_REMOTE_READ);
	ct_rkey_ok("beyond", qp, 64, mr->iova + 2 * PAGE_SIZE - 8, mr->rkey,
		   IB_ACCESS_REMOTE_WRITE);
	ct_rkey_ok("atomic_not_granted", qp, 8, mr->iova, mr->rkey,
		   IB_ACCESS_REMOTE_ATOMIC);
	ct_rkey_ok("wrong_key", qp, 8, mr->iova, mr->rkey ^ 0x100,
		   IB_ACCESS_REMOTE_WRITE);
	ct_rkey_ok("rkey0_write", qp, 8, (uintptr_t)buf, 0,
		   IB_ACCESS_REMOTE_WRITE);
	ct_rkey_ok("rkey0_read", qp, 8, (uintptr_t)buf, 0,
		   IB_ACCESS_REMOTE_READ);
	ct_rkey_ok("zero_length", qp, 0, 0x1234, mr->rkey,
		   IB_ACCESS_REMOTE_WRITE);
	ct_end_step();
}

static void ct_invalidate(struct ib_qp *qp, struct ib_mr *mr)
{
	struct rvt_qp *rqp = ibqp_to_rvtqp(qp);
	int ret;

	ct_step("mr.invalidate");
	ct_ex(EX_INVALIDATE_RKEY);
	ret = rvt_invalidate_rkey(rqp, mr->rkey);
	ct_log("rvt_invalidate_rkey mr -> %d", ret);
	ct_rkey_ok("after_invalidate", qp, 64, mr->iova, mr->rkey,
		   IB_ACCESS_REMOTE_WRITE);
	ret = rvt_invalidate_rkey(rqp, mr->rkey);
	ct_log("rvt_invalidate_rkey again -> %d", ret);
	ret = rvt_invalidate_rkey(rqp, 0);
	ct_log("rvt_invalidate_rkey 0 -> %d", ret);
	ret = rvt_invalidate_rkey(rqp, 0x7fff00);
	ct_log("rvt_invalidate_rkey unknown -> %d", ret);
	ct_end_step();
}

static void ct_fast_reg_direct(struct ib_qp *qp, struct ib_mr *mr)
{
	struct rvt_qp *rqp = ibqp_to_rvtqp(qp);
	int ret;

	ct_step("mr.fast_reg_direct");
	ct_ex(EX_FAST_REG_MR);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	ret = rvt_fast_reg_mr(rqp, mr, mr->rkey, IB_ACCESS_LOCAL_WRITE |
			      IB_ACCESS_REMOTE_WRITE);
	ct_log("rvt_fast_reg_mr new key -> %d", ret);
	ret = rvt_fast_reg_mr(rqp, mr, mr->rkey ^ 0x10000, IB_ACCESS_LOCAL_WRITE);
	ct_log("rvt_fast_reg_mr other index -> %d", ret);
	ret = rvt_fast_reg_mr(rqp, mr, mr->rkey, IB_ACCESS_LOCAL_WRITE |
			      IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	ct_log("rvt_fast_reg_mr same key -> %d", ret);
	ct_rkey_ok("reregistered", qp, 64, mr->iova, mr->rkey,
		   IB_ACCESS_REMOTE_WRITE);
	ct_end_step();
}

/* Posted LOCAL_INV, unfenced and fenced behind a send. */
static void ct_local_inv(struct ct_pair *p, struct ib_mr *mr)
{
	struct ib_send_wr inv = {
		.wr_id = 0x710, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = mr->rkey,
	};

	ct_step("mr.local_inv");
	ct_post_send(p->a, &inv);
	ct_end_step();
	ct_step("mr.local_inv_fenced");
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	ct_reg(p->a, mr, mr->rkey, IB_ACCESS_LOCAL_WRITE |
	       IB_ACCESS_REMOTE_WRITE);
	ct_post_recv(p->b, 0x711, p->bbuf, 64);
	ct_send(p->a, IB_WR_SEND, 0x712, p->abuf, 8, 0);
	inv.wr_id = 0x713;
	inv.send_flags |= IB_SEND_FENCE;
	inv.ex.invalidate_rkey = mr->rkey;
	ct_post_send(p->a, &inv);
	ct_end_step();
}

/* RDMA with rkey 0 from a kernel PD: the DMA MR, any kernel address. */
static void ct_rkey0(struct ct_pair *p)
{
	u64 *target = kmalloc(64, GFP_KERNEL);

	if (!target)
		return;
	memset(target, 0x11, 64);
	memset(p->abuf, 0xee, 64);
	ct_step("rkey0.write");
	ct_sum("target", target, 64);
	ct_rdma(p->a, IB_WR_RDMA_WRITE, 0x720, p->abuf, 16,
		(uintptr_t)target, 0);
	ct_end_step();
	ct_sum("target", target, 64);
	ct_step("rkey0.reconnect");
	ct_modify(p->a, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
		  IB_QP_STATE);
	ct_modify(p->b, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
		  IB_QP_STATE);
	ct_rc_qp(p->a, 1, CT_BASE_LID, p->b->qp_num, 14, 3, 3, 4);
	ct_rc_qp(p->b, 1, CT_BASE_LID, p->a->qp_num, 14, 3, 3, 4);
	ct_end_step();
	ct_step("rkey0.read");
	memset(p->abuf, 0, 64);
	ct_rdma(p->a, IB_WR_RDMA_READ, 0x721, p->abuf, 16,
		(uintptr_t)target, 0);
	ct_end_step();
	ct_sum("a", p->abuf, 64);
	kfree(target);
}

/**
 * ct_seq_mr - memory regions, keys, invalidation, rkey 0
 *
 * Context: the script.
 */
void ct_seq_mr(void)
{
	struct ct_pair p;
	struct ib_mr *mr, *bad;
	struct ib_pd *pd2;

	ct_step("mr.up");
	if (ct_pair_up(&p, "mr_a", "mr_b", IB_QPT_RC, 1)) {
		ct_end_step();
		return;
	}
	bad = ib_alloc_mr(ct.pd, IB_MR_TYPE_SG_GAPS, 4);
	ct_log("alloc_mr sg_gaps -> %ld", IS_ERR(bad) ? PTR_ERR(bad) : 0L);
	if (!IS_ERR(bad))
		ib_dereg_mr(bad);
	mr = ct_fastreg(p.b, p.bbuf, 2, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	ct_end_step();
	if (mr) {
		ct_lkeys(mr, p.bbuf);
		ct_rkeys(p.b, mr, p.bbuf);
		ct_invalidate(p.b, mr);
		ct_fast_reg_direct(p.b, mr);
		ct_local_inv(&p, mr);
		ct_step("mr.other_pd");
		pd2 = ib_alloc_pd(ct_ibdev(), 0);
		if (!IS_ERR(pd2)) {
			bad = ib_alloc_mr(pd2, IB_MR_TYPE_MEM_REG, 1);
			if (!IS_ERR(bad)) {
				ct_ex(EX_FAST_REG_MR);
				ct_log("rvt_fast_reg_mr other pd -> %d",
				       rvt_fast_reg_mr(ibqp_to_rvtqp(p.a), bad,
						       bad->rkey, 0));
				ib_dereg_mr(bad);
			}
			ib_dealloc_pd(pd2);
		}
		ct_end_step();
	}
	ct_rkey0(&p);
	ct_step("mr.down");
	ct_pair_down(&p);
	ct_mr_free(mr);
	ct_end_step();
}

/* ---- RC receive path helpers -------------------------------------- */

static void ct_aeth(struct ib_qp *qp, const char *what)
{
	struct rvt_qp *rqp = ibqp_to_rvtqp(qp);
	unsigned long flags;
	u32 aeth;

	spin_lock_irqsave(&rqp->s_lock, flags);
	ct_ex(EX_COMPUTE_AETH);
	aeth = be32_to_cpu(rvt_compute_aeth(rqp));
	spin_unlock_irqrestore(&rqp->s_lock, flags);
	ct_log("rvt_compute_aeth %s -> %#x", what, aeth);
}

static void ct_credit(struct rvt_qp *qp, u32 aeth, u32 set_flags)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->s_lock, flags);
	qp->s_flags |= set_flags;
	ct_ex(EX_GET_CREDIT);
	rvt_get_credit(qp, aeth);
	ct_log("rvt_get_credit %#x -> s_lsn=%#x s_flags=%#x", aeth, qp->s_lsn,
	       qp->s_flags);
	spin_unlock_irqrestore(&qp->s_lock, flags);
}

static void ct_restart_sges(struct rvt_qp *qp, u8 *buf)
{
	struct rvt_sge_state ss;
	struct rvt_swqe *wqe;
	static const u32 lens[] = { 0, 50, 100, 150, 300 };
	unsigned long flags;
	int i;
	u32 left;

	spin_lock_irqsave(&qp->s_lock, flags);
	wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(&ss, 0, sizeof(ss));
		ct_ex(EX_RESTART_SGE);
		left = rvt_restart_sge(&ss, wqe, lens[i]);
		ct_log("rvt_restart_sge %u -> %u num_sge=%u total=%u length=%u",
		       lens[i], left, ss.num_sge, ss.total_len, ss.sge.length);
		ct_log("  sge_length=%u off=%ld", ss.sge.sge_length,
		       (long)(ss.sge.vaddr - (void *)buf));
	}
	spin_unlock_irqrestore(&qp->s_lock, flags);
}

static void ct_rwqe_direct(struct ib_qp *ibqp, u8 *data)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .opcode = IB_WC_RECV,
			    .qp = ibqp };
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&qp->r_lock, flags);
	ct_ex(EX_GET_RWQE);
	ret = rvt_get_rwqe(qp, true);
	ct_log("rvt_get_rwqe wr_id_only -> %d wr_id=%#llx valid=%d r_len=%u",
	       ret, qp->r_wr_id, test_bit(RVT_R_WRID_VALID, &qp->r_aflags),
	       qp->r_len);
	if (test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags)) {
		wc.wr_id = qp->r_wr_id;
		rvt_recv_cq(qp, &wc, false);
	}
	ret = rvt_get_rwqe(qp, false);
	ct_log("rvt_get_rwqe -> %d wr_id=%#llx valid=%d r_len=%u num_sge=%u",
	       ret, qp->r_wr_id, test_bit(RVT_R_WRID_VALID, &qp->r_aflags),
	       qp->r_len, qp->r_sge.num_sge);
	if (ret > 0) {
		ct_ex(EX_COPY_SGE);
		rvt_copy_sge(qp, &qp->r_sge, data, 50, true, true);
		rvt_put_ss(&qp->r_sge);
	}
	if (test_and_clear_bit(RVT_R_WRID_VALID, &qp->r_aflags)) {
		wc.wr_id = qp->r_wr_id;
		wc.byte_len = 50;
		rvt_recv_cq(qp, &wc, false);
	}
	ret = rvt_get_rwqe(qp, false);
	ct_log("rvt_get_rwqe empty -> %d", ret);
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

static void ct_send_complete_direct(struct ib_qp *ibqp)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->s_lock, flags);
	if (qp->s_last != qp->s_head) {
		ct_ex(EX_SEND_COMPLETE);
		rvt_send_complete(qp, rvt_get_swqe_ptr(qp, qp->s_last),
				  IB_WC_SUCCESS);
	}
	rvt_stop_rc_timers(qp);
	ct_log("after: s_last=%u s_acked=%u s_cur=%u s_flags=%#x", qp->s_last,
	       qp->s_acked, qp->s_cur, qp->s_flags);
	spin_unlock_irqrestore(&qp->s_lock, flags);
}

static void ct_helpers_credit(struct ib_qp *ha, struct ib_qp *hb, u8 *buf)
{
	struct rvt_qp *a = ibqp_to_rvtqp(ha);
	int i;

	ct_step("helpers.aeth");
	ct_aeth(hb, "empty");
	ct_post_recv(hb, 0x800, buf + 1024, 256);
	ct_aeth(hb, "one");
	for (i = 0; i < 4; i++)
		ct_post_recv(hb, 0x801 + i, buf + 1024, 256);
	ct_aeth(hb, "five");
	ibqp_to_rvtqp(hb)->r_msn = 5;
	ct_aeth(hb, "msn5");
	ct_end_step();
	ct_step("helpers.credit");
	ct_credit(a, (IB_AETH_CREDIT_INVAL << IB_AETH_CREDIT_SHIFT) | 3, 0);
	ct_credit(a, (2 << IB_AETH_CREDIT_SHIFT) | 3, 0);
	a->s_flags &= ~RVT_S_UNLIMITED_CREDIT;
	ct_credit(a, (2 << IB_AETH_CREDIT_SHIFT) | 3, 0);
	ct_credit(a, (5 << IB_AETH_CREDIT_SHIFT) | 4, RVT_S_WAIT_SSN_CREDIT);
	ct_credit(a, (0 << IB_AETH_CREDIT_SHIFT) | 1, 0);
	ct_end_step();
}

/**
 * ct_seq_rc_helpers - what a driver's RC receive path calls in rdmavt
 *
 * Context: the script.
 */
void ct_seq_rc_helpers(void)
{
	struct ib_qp *ha, *hb;
	struct ib_sge sge[2];
	struct ib_send_wr wr = {
		.wr_id = 0x810, .opcode = IB_WR_SEND, .sg_list = sge,
		.num_sge = 2, .send_flags = IB_SEND_SIGNALED,
	};
	u8 *buf = kzalloc(CT_BUF, GFP_KERNEL);

	if (!buf)
		return;
	memset(buf, 0x42, 1024);
	sge[0] = (struct ib_sge){ (uintptr_t)buf, 100, ct.pd->local_dma_lkey };
	sge[1] = (struct ib_sge){ (uintptr_t)buf + 512, 200,
				  ct.pd->local_dma_lkey };
	ct_step("helpers.up");
	ha = ct_create_qp("h_a", IB_QPT_RC, 1, NULL, 4, 4);
	hb = ct_create_qp("h_b", IB_QPT_RC, 1, NULL, 4, 8);
	/* A 4 s ACK timeout: the script ACKs long before it expires. */
	if (!ha || !hb || ct_rc_qp(ha, 1, CT_WIRE_LID, 0x99, 20, 3, 3, 1) ||
	    ct_rc_qp(hb, 1, CT_WIRE_LID, 0x98, 20, 3, 3, 1))
		goto out;
	ct_end_step();
	ct_helpers_credit(ha, hb, buf);
	/* Sent, rewound as a restart would, then ACKed: the timer never fires. */
	ct_step("helpers.restart_sge_and_ack");
	ct_post_send(ha, &wr);
	ct_restart_sges(ibqp_to_rvtqp(ha), buf);
	ibqp_to_rvtqp(hb)->r_msn = 1;
	{
		struct rvt_qp *b = ibqp_to_rvtqp(hb);
		unsigned long flags;
		u32 aeth;

		spin_lock_irqsave(&b->s_lock, flags);
		ct_ex(EX_COMPUTE_AETH);
		aeth = be32_to_cpu(rvt_compute_aeth(b));
		spin_unlock_irqrestore(&b->s_lock, flags);
		ct_rc_ack(ibqp_to_rvtqp(ha), aeth);
	}
	ct_end_step();
	ct_step("helpers.rwqe");
	ct_rwqe_direct(hb, buf);
	ct_end_step();
	ct_sum("hb", buf + 1024, 256);
	ct_step("helpers.send_complete");
	wr.num_sge = 1;
	wr.wr_id = 0x811;
	ct_post_send(ha, &wr);
	ct_send_complete_direct(ha);
out:
	ct_end_step();
	ct_step("helpers.down");
	ct_destroy_qp(ha);
	ct_destroy_qp(hb);
	ct_end_step();
	kfree(buf);
}
