// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: the objects of a flow. One CQ for every QP; senders and
 * receivers connected on port 1 (RC through rdmavt's loopback engine, UD
 * through the driver's delivery, to a receiver's QPN or to a multicast
 * group); for RC, fast-registration MRs over the senders' local area and
 * the receivers' remote area; receive pools filled to ST_RQ_DEPTH.
 */
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <linux/vmalloc.h>
#include "stress.h"

#define ST_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		   IB_ACCESS_REMOTE_READ)

/* The area of the senders and of the receivers, in pages. */
#define ST_LOCAL_BYTES (ST_MAX_THREADS * 2 * ST_SLOTS * ST_MSG_MAX)
#define ST_REMOTE_BYTES ((ST_MAX_THREADS * ST_SLOTS + ST_READ_SRCS) * \
			 ST_MSG_MAX)

/* Not const: ib_attach_mcast() takes a plain pointer. */
union ib_gid st_mgid = {
	.raw = { 0xff, 0x12, 0x40, 0x1b, [14] = 0x57, [15] = 0x52 },
};

/* Asynchronous events: a CQ overrun loses completions, which fails. */
static void st_cq_event(struct ib_event *ev, void *ctx)
{
	st_fail(ctx, "CQ event %s", ib_event_msg(ev->event));
}

/* QP events follow from the cases' own errors; the ledger judges those. */
static void st_qp_event(struct ib_event *ev, void *ctx)
{
}

static struct ib_qp *st_make_qp(struct st_flow *f, struct ib_srq *srq,
				u32 max_send_wr)
{
	struct ib_qp_init_attr ia = {
		.event_handler = st_qp_event,
		.qp_context = f,
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.srq = srq,
		.cap = {
			.max_send_wr = max_send_wr,
			.max_recv_wr = srq ? 0 : ST_RQ_DEPTH,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = f->c->type,
	};

	return ib_create_qp(st_env.pd, &ia);
}

int st_qp_to_err(struct ib_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

/* INIT, RTR, RTS; @dest is the RC peer's QPN. */
static int st_connect(struct ib_qp *qp, u32 dest)
{
	bool rc = qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = ST_ACCESS, .qkey = ST_QKEY,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	int ret;

	ret = ib_modify_qp(qp, &a, mask | (rc ? IB_QP_ACCESS_FLAGS :
					   IB_QP_QKEY));
	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (rc) {
		a.path_mtu = IB_MTU_4096;
		a.dest_qp_num = dest;
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		a.ah_attr.type = rdma_ah_find_type(st_env.ibdev, 1);
		rdma_ah_set_dlid(&a.ah_attr, st_env.lid);
		rdma_ah_set_port_num(&a.ah_attr, 1);
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER;
	}
	ret = ib_modify_qp(qp, &a, mask);
	if (ret)
		return ret;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (rc)
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	return ib_modify_qp(qp, &a, mask);
}

/* Poll for the one completion of setup's REG_MR. */
static int st_wait_reg(struct st_flow *f)
{
	unsigned long end = jiffies + msecs_to_jiffies(5000);
	struct ib_wc wc;

	do {
		if (ib_poll_cq(f->cq, 1, &wc) == 1)
			return st_id_kind(wc.wr_id) == ST_REG &&
			       wc.status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(100, 200);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

/* A fast-registration MR over @order pages at @buf, registered on a[0]. */
static int st_reg_mr(struct st_flow *f, u8 *buf, unsigned int order,
		     int access, struct ib_mr **out)
{
	size_t size = PAGE_SIZE << order;
	struct ib_reg_wr wr = {
		.wr = { .wr_id = st_wr_id(ST_REG, 0, 0),
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = access,
	};
	struct scatterlist sg;
	struct ib_mr *mr;
	int ret;

	mr = ib_alloc_mr(st_env.pd, IB_MR_TYPE_MEM_REG, size >> PAGE_SHIFT);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	*out = mr;
	sg_init_one(&sg, buf, size);
	if (ib_dma_map_sg(st_env.ibdev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	ret = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(st_env.ibdev, &sg, 1, DMA_BIDIRECTIONAL);
	if (ret != 1)
		return -EIO;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.mr = mr;
	wr.key = mr->rkey;
	ret = ib_post_send(f->a[0], &wr.wr, NULL);
	return ret ?: st_wait_reg(f);
}

static int st_alloc_area(u8 **area, unsigned int *order, size_t bytes)
{
	*order = get_order(bytes);
	*area = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, *order);
	return *area ? 0 : -ENOMEM;
}

/* The senders' local area, and for RC the receivers' remote area. */
static int st_make_memory(struct st_flow *f)
{
	unsigned int i;
	int ret;

	ret = st_alloc_area(&f->local, &f->local_order, ST_LOCAL_BYTES);
	if (ret)
		return ret;
	/* UD takes no REG_MR: its datagrams come from the PD's DMA MR. */
	if (f->c->type != IB_QPT_RC) {
		f->lkey = st_env.pd->local_dma_lkey;
		return 0;
	}
	ret = st_reg_mr(f, f->local, f->local_order, IB_ACCESS_LOCAL_WRITE,
			&f->local_mr);
	if (ret)
		return ret;
	f->lkey = f->local_mr->lkey;
	ret = st_alloc_area(&f->remote, &f->remote_order, ST_REMOTE_BYTES) ?:
	      st_reg_mr(f, f->remote, f->remote_order, ST_ACCESS,
			&f->remote_mr);
	if (ret)
		return ret;
	f->rkey = f->remote_mr->rkey;
	/* RDMA READ sources: a message each, never written again. */
	for (i = 0; i < ST_READ_SRCS; i++) {
		struct st_hdr *h = (struct st_hdr *)st_read_src(f, i);

		st_fill(h, ST_MAX_THREADS, ST_READ, i);
		f->read_csum[i] = h->csum;
	}
	return 0;
}

/* The UD senders' address: the first receiver, or the group. */
static int st_make_ah(struct st_flow *f)
{
	struct rdma_ah_attr attr = {};
	unsigned int i;
	int ret;

	attr.type = rdma_ah_find_type(st_env.ibdev, 1);
	rdma_ah_set_port_num(&attr, 1);
	if (f->c->mcast) {
		rdma_ah_set_dlid(&attr, ST_MLID);
		rdma_ah_set_grh(&attr, &st_mgid, 0, 0, 1, 0);
		f->remote_qpn = IB_MULTICAST_QPN;
		for (i = 0; i < f->nrx; i++) {
			ret = ib_attach_mcast(f->b[i], &st_mgid, ST_MLID);
			if (ret)
				return ret;
		}
	} else {
		rdma_ah_set_dlid(&attr, st_env.lid);
		f->remote_qpn = f->b[0]->qp_num;
	}
	f->ah = rdma_create_ah(st_env.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(f->ah)) {
		ret = PTR_ERR(f->ah);
		f->ah = NULL;
		return ret;
	}
	return 0;
}

/* Does a message of poster @t reach receive pool @rxi? */
bool st_reaches(const struct st_flow *f, unsigned int t, unsigned int rxi)
{
	if (f->c->mcast)
		return true;
	if (f->c->srq)
		return rxi == 0;
	return rxi == t % f->c->pairs;
}

int st_post_rx(struct st_flow *f, unsigned int rxi, unsigned int slot)
{
	struct st_rx *rx = &f->rx[rxi];
	struct ib_sge sge = {
		.addr = (uintptr_t)(rx->bufs + slot * ST_RX_SLOT),
		.length = ST_RX_SLOT,
		.lkey = st_env.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = st_recv_id(rxi, slot), .sg_list = &sge, .num_sge = 1,
	};
	int ret;

	/* Marked first: the completion may be polled before the call returns. */
	atomic_set(&rx->slot_posted[slot], 1);
	ret = rx->srq ? ib_post_srq_recv(rx->srq, &wr, NULL) :
			ib_post_recv(rx->qp, &wr, NULL);
	if (ret)
		atomic_set(&rx->slot_posted[slot], 0);
	else
		atomic_inc(&rx->posted);
	return ret;
}

static int st_make_rx(struct st_flow *f, unsigned int rxi)
{
	struct st_rx *rx = &f->rx[rxi];
	unsigned int slot;
	int ret;

	rx->bufs = vzalloc(ST_RQ_DEPTH * ST_RX_SLOT);
	if (!rx->bufs)
		return -ENOMEM;
	for (slot = 0; slot < ST_RQ_DEPTH; slot++) {
		ret = st_post_rx(f, rxi, slot);
		if (ret)
			return ret;
	}
	atomic_set(&rx->credits, ST_RQ_DEPTH);
	return 0;
}

static int st_make_qps(struct st_flow *f)
{
	const struct st_case *c = f->c;
	unsigned int i, nb = c->mcast ? ST_MAX_RX : c->pairs;
	int ret;

	for (i = 0; i < c->pairs; i++) {
		f->a[i] = st_make_qp(f, NULL, ST_SQ_DEPTH);
		if (IS_ERR(f->a[i]))
			goto bad_a;
		atomic_set(&f->sq_credits[i], ST_SQ_DEPTH);
	}
	for (i = 0; i < nb; i++) {
		f->b[i] = st_make_qp(f, f->srq, 1);
		if (IS_ERR(f->b[i]))
			goto bad_b;
	}
	for (i = 0; i < c->pairs; i++) {
		ret = st_connect(f->a[i], f->b[i]->qp_num);
		if (ret)
			return ret;
	}
	for (i = 0; i < nb; i++) {
		ret = st_connect(f->b[i], f->a[c->mcast ? 0 : i]->qp_num);
		if (ret)
			return ret;
	}
	return 0;
bad_a:
	ret = PTR_ERR(f->a[i]);
	f->a[i] = NULL;
	return ret;
bad_b:
	ret = PTR_ERR(f->b[i]);
	f->b[i] = NULL;
	return ret;
}

/*
 * Everything but the threads and the ledger; on failure,
 * st_flow_destroy() cleans up.
 */
int st_flow_create(struct st_flow *f, const struct st_case *c)
{
	struct ib_cq_init_attr cqa = { .cqe = ST_CQE };
	struct ib_srq_init_attr sia = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = ST_RQ_DEPTH, .max_sge = 1 },
	};
	unsigned int i;
	int ret;

	f->c = c;
	f->nthreads = st_env.threads;
	f->npollers = st_env.pollers;
	spin_lock_init(&f->why_lock);
	init_rwsem(&f->teardown);
	f->cq = ib_create_cq(st_env.ibdev, NULL, st_cq_event, f, &cqa);
	if (IS_ERR(f->cq)) {
		ret = PTR_ERR(f->cq);
		f->cq = NULL;
		return ret;
	}
	if (c->srq) {
		f->srq = ib_create_srq(st_env.pd, &sia);
		if (IS_ERR(f->srq)) {
			ret = PTR_ERR(f->srq);
			f->srq = NULL;
			return ret;
		}
	}
	f->nrx = c->srq ? 1 : c->mcast ? ST_MAX_RX : c->pairs;
	ret = st_make_qps(f) ?: st_make_memory(f) ?:
	      (c->type == IB_QPT_UD ? st_make_ah(f) : 0);
	if (ret)
		return ret;
	for (i = 0; i < f->nrx; i++) {
		f->rx[i].qp = c->srq ? NULL : f->b[i];
		f->rx[i].srq = f->srq;
		ret = st_make_rx(f, i);
		if (ret)
			return ret;
	}
	return 0;
}

void st_flow_destroy(struct st_flow *f)
{
	unsigned int i;

	for (i = 0; i < ST_MAX_PAIRS; i++) {
		if (!IS_ERR_OR_NULL(f->b[i]) && f->c->mcast && !f->rx[i].detached)
			ib_detach_mcast(f->b[i], &st_mgid, ST_MLID);
		if (!IS_ERR_OR_NULL(f->b[i]))
			ib_destroy_qp(f->b[i]);
		if (!IS_ERR_OR_NULL(f->a[i]))
			ib_destroy_qp(f->a[i]);
	}
	if (f->srq)
		ib_destroy_srq(f->srq);
	if (f->ah)
		rdma_destroy_ah(f->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (f->local_mr)
		ib_dereg_mr(f->local_mr);
	if (f->remote_mr)
		ib_dereg_mr(f->remote_mr);
	if (f->cq)
		ib_destroy_cq(f->cq);
	if (f->local)
		free_pages((unsigned long)f->local, f->local_order);
	if (f->remote)
		free_pages((unsigned long)f->remote, f->remote_order);
	for (i = 0; i < ST_MAX_RX; i++)
		vfree(f->rx[i].bufs);
}
