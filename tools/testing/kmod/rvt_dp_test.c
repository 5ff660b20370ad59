// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * In-kernel tests of rdmavt's data path on an rvtsw device: posting, the
 * RC/UC loopback engine and its error completions, SRQs, through the
 * kernel verbs.
 *
 * Loading the module runs every test once against the device named by
 * dev= (port 1) and keeps the results, in KTAP, in
 * /sys/kernel/debug/rvt_dp_test/results until the module is removed.
 * Each test builds its own pair of connected QPs, requester "a" and
 * responder "b", each with its own CQ, and tears it down again.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Tests of rdmavt's data path");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

static bool skip_cq_overrun;
module_param(skip_cq_overrun, bool, 0444);
MODULE_PARM_DESC(skip_cq_overrun,
		 "report cq_overrun as skipped instead of running it");

#define RESULTS_SIZE (32 * 1024)
#define WAIT_MS 5000		/* for a completion that must come */
#define QUIET_MS 100		/* for one that must not */
#define BUF_SIZE (2 * PAGE_SIZE)
#define FULL_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
#define NO_EVENT (-1)

/**
 * struct dpt_env - what every test works with
 * @ibdev: the device under test
 * @pd: a kernel PD; its local_dma_lkey reaches all kernel memory
 * @lid: port 1's LID, the destination of every test's path
 * @ntests: tests reported so far
 * @results: the KTAP text
 * @len: its length
 */
struct dpt_env {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 lid;
	unsigned int ntests;
	char *results;
	size_t len;
};

static struct dpt_env env;
static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

static __printf(3, 4) void report(bool ok, const char *name,
				  const char *fmt, ...)
{
	char diag[200] = "";
	va_list args;

	if (fmt) {
		va_start(args, fmt);
		vscnprintf(diag, sizeof(diag), fmt, args);
		va_end(args);
	}
	env.ntests++;
	env.len += scnprintf(env.results + env.len, RESULTS_SIZE - env.len,
			     "%sok %u %s%s%s\n", ok ? "" : "not ",
			     env.ntests, name, *diag ? " # " : "", diag);
	pr_info("rvt_dp_test: %sok %u %s %s\n", ok ? "" : "not ",
		env.ntests, name, diag);
}

/* ---- buffers and memory regions ------------------------------------ */

struct dpt_buf {
	u8 *va;
	struct ib_mr *mr;
};

static int buf_alloc(struct dpt_buf *b)
{
	b->mr = NULL;
	b->va = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
				       get_order(BUF_SIZE));
	return b->va ? 0 : -ENOMEM;
}

static void buf_free(struct dpt_buf *b)
{
	if (b->mr)
		ib_dereg_mr(b->mr);
	if (b->va)
		free_pages((unsigned long)b->va, get_order(BUF_SIZE));
	b->va = NULL;
	b->mr = NULL;
}

static u64 buf_addr(const struct dpt_buf *b, size_t off)
{
	return (uintptr_t)b->va + off;
}

static void fill(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 7;
}

static struct ib_sge dma_sge(const struct dpt_buf *b, size_t off, u32 len)
{
	return (struct ib_sge){
		.addr = buf_addr(b, off),
		.length = len,
		.lkey = env.pd->local_dma_lkey,
	};
}

/* ---- polling ----------------------------------------------------------- */

static bool wait_wc(struct ib_cq *cq, struct ib_wc *wc, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(200, 400);
	} while (time_before(jiffies, end));
	return false;
}

/* Does @cq stay empty for a while? */
static bool stays_empty(struct ib_cq *cq)
{
	struct ib_wc wc;

	return !wait_wc(cq, &wc, QUIET_MS);
}

static bool wait_async(const int *ev, int want)
{
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);

	while (READ_ONCE(*ev) != want && time_before(jiffies, end))
		usleep_range(200, 400);
	return READ_ONCE(*ev) == want;
}

static int qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	if (ib_query_qp(qp, &a, IB_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* ---- QP pairs -------------------------------------------------------- */

/**
 * struct dpt_opts - how a test wants its QP pair
 * @type: IB_QPT_RC or IB_QPT_UC
 * @rnr_retry: the requester's RNR retry count (7: for ever)
 * @retry_cnt: the requester's retry count
 * @timeout: the requester's ACK timeout code
 * @min_rnr_timer: the responder's RNR NAK timer code
 * @b_access: the responder's QP access flags
 * @dest: the requester's destination QPN, 0 for the responder
 * @srq: an SRQ for the responder, or NULL
 * @cqe: entries of each CQ
 * @max_send_wr: send queue size of each QP
 * @b_rtr: leave the responder in RTR
 * @no_rd_atomic: the responder takes no RDMA READ or atomic requests
 */
struct dpt_opts {
	enum ib_qp_type type;
	u8 rnr_retry;
	u8 retry_cnt;
	u8 timeout;
	u8 min_rnr_timer;
	int b_access;
	u32 dest;
	struct ib_srq *srq;
	int cqe;
	u32 max_send_wr;
	bool b_rtr;
	bool no_rd_atomic;
};

static struct dpt_opts opts(enum ib_qp_type type)
{
	return (struct dpt_opts){
		.type = type, .rnr_retry = 7, .retry_cnt = 7, .timeout = 12,
		.min_rnr_timer = 12, .b_access = FULL_ACCESS, .cqe = 64,
		.max_send_wr = 16,
	};
}

/**
 * struct dpt_pair - two connected QPs
 * @cq_a: completions of the requester (send and receive)
 * @cq_b: completions of the responder
 * @a: the requester
 * @b: the responder
 * @ev_a: last asynchronous event of @a, or NO_EVENT
 * @ev_b: last asynchronous event of @b, or NO_EVENT
 * @cq_ev: last asynchronous event of either CQ, or NO_EVENT
 */
struct dpt_pair {
	struct ib_cq *cq_a, *cq_b;
	struct ib_qp *a, *b;
	int ev_a, ev_b, cq_ev;
};

static void qp_event(struct ib_event *ev, void *ctx)
{
	WRITE_ONCE(*(int *)ctx, ev->event);
}

static void cq_event(struct ib_event *ev, void *ctx)
{
	WRITE_ONCE(((struct dpt_pair *)ctx)->cq_ev, ev->event);
}

static int to_init(struct ib_qp *qp, int access)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = access,
	};

	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

static int to_rtr(struct ib_qp *qp, u32 dest, const struct dpt_opts *o)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR, .path_mtu = IB_MTU_1024,
		.dest_qp_num = dest, .rq_psn = 0x10,
		.max_dest_rd_atomic = o->no_rd_atomic ? 0 : 4,
		.min_rnr_timer = o->min_rnr_timer,
	};
	int mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		   IB_QP_RQ_PSN;

	a.ah_attr.type = rdma_ah_find_type(env.ibdev, 1);
	rdma_ah_set_dlid(&a.ah_attr, env.lid);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	if (qp->qp_type == IB_QPT_RC)
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	return ib_modify_qp(qp, &a, mask);
}

static int to_rts(struct ib_qp *qp, const struct dpt_opts *o)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS, .sq_psn = 0x10, .timeout = o->timeout,
		.retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
		.max_rd_atomic = 4,
	};
	int mask = IB_QP_STATE | IB_QP_SQ_PSN;

	if (qp->qp_type == IB_QPT_RC)
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	return ib_modify_qp(qp, &a, mask);
}

static struct ib_qp *make_qp(const struct dpt_opts *o, struct ib_cq *cq,
			     struct ib_srq *srq, int *ev)
{
	struct ib_qp_init_attr ia = {
		.event_handler = qp_event,
		.qp_context = ev,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {
			.max_send_wr = o->max_send_wr, .max_recv_wr = 16,
			.max_send_sge = 4, .max_recv_sge = 4,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = o->type,
	};

	*ev = NO_EVENT;
	return ib_create_qp(env.pd, &ia);
}

static struct ib_cq *make_cq(struct dpt_pair *p, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };

	return ib_create_cq(env.ibdev, NULL, cq_event, p, &attr);
}

static void pair_destroy(struct dpt_pair *p)
{
	if (!IS_ERR_OR_NULL(p->a))
		ib_destroy_qp(p->a);
	if (!IS_ERR_OR_NULL(p->b))
		ib_destroy_qp(p->b);
	if (!IS_ERR_OR_NULL(p->cq_a))
		ib_destroy_cq(p->cq_a);
	if (!IS_ERR_OR_NULL(p->cq_b))
		ib_destroy_cq(p->cq_b);
	memset(p, 0, sizeof(*p));
}

/* Returns 0 or an errno, with everything created so far destroyed. */
static int pair_create(struct dpt_pair *p, const struct dpt_opts *o)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->cq_ev = NO_EVENT;
	p->cq_a = make_cq(p, o->cqe);
	p->cq_b = make_cq(p, 64);
	if (IS_ERR(p->cq_a) || IS_ERR(p->cq_b)) {
		ret = -ENOMEM;
		goto fail;
	}
	p->a = make_qp(o, p->cq_a, NULL, &p->ev_a);
	p->b = make_qp(o, p->cq_b, o->srq, &p->ev_b);
	if (IS_ERR(p->a) || IS_ERR(p->b)) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = to_init(p->a, FULL_ACCESS) ?:
	      to_rtr(p->a, o->dest ?: p->b->qp_num, o) ?:
	      to_rts(p->a, o) ?:
	      to_init(p->b, o->b_access) ?:
	      to_rtr(p->b, p->a->qp_num, o) ?:
	      (o->b_rtr ? 0 : to_rts(p->b, o));
	if (!ret)
		return 0;
fail:
	pr_err("rvt_dp_test: QP pair setup failed: %d\n", ret);
	pair_destroy(p);
	return ret;
}

/* ---- posting ----------------------------------------------------------- */

static int post_recv(struct ib_qp *qp, u64 wr_id, struct ib_sge *sg, int n)
{
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = n };

	return ib_post_recv(qp, &wr, NULL);
}

static int post_send(struct ib_qp *qp, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(qp, wr, &bad);

	/* A failure names the request it stopped at. */
	if (ret && bad != wr)
		return -EFAULT;
	return ret;
}

static int send_op(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		   struct ib_sge *sg, int n)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .sg_list = sg, .num_sge = n,
		.send_flags = IB_SEND_SIGNALED,
	};

	return post_send(qp, &wr);
}

static int rdma_op(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		   struct ib_sge *sg, int n, u64 raddr, u32 rkey)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op, .sg_list = sg,
			.num_sge = n, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0xfeed0000 | (u32)wr_id),
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return post_send(qp, &wr.wr);
}

static int atomic_op(struct ib_qp *qp, enum ib_wr_opcode op,
		     struct ib_sge *result, u64 raddr, u32 rkey, u64 cmp_add,
		     u64 swap)
{
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = op, .opcode = op, .sg_list = result,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.compare_add = cmp_add,
		.swap = swap,
		.rkey = rkey,
	};

	return post_send(qp, &wr.wr);
}

/*
 * Register @b for remote access with a fast-registration WR posted on
 * @qp (in RTS), whose CQ is @cq. Return: 0 with b->mr set, or an errno.
 */
static int buf_reg(struct dpt_buf *b, struct ib_qp *qp, struct ib_cq *cq,
		   int access)
{
	struct scatterlist sg;
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 0x4e6, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = access,
	};
	struct ib_wc wc;
	int ret;

	b->mr = ib_alloc_mr(env.pd, IB_MR_TYPE_MEM_REG, BUF_SIZE / PAGE_SIZE);
	if (IS_ERR(b->mr)) {
		ret = PTR_ERR(b->mr);
		b->mr = NULL;
		return ret;
	}
	sg_init_one(&sg, b->va, BUF_SIZE);
	if (ib_dma_map_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	ret = ib_map_mr_sg(b->mr, &sg, 1, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL);
	if (ret != 1)
		return -EIO;
	ib_update_fast_reg_key(b->mr, ib_inc_rkey(b->mr->rkey));
	wr.mr = b->mr;
	wr.key = b->mr->rkey;
	ret = post_send(qp, &wr.wr);
	if (ret)
		return ret;
	if (!wait_wc(cq, &wc, WAIT_MS) || wc.status != IB_WC_SUCCESS ||
	    wc.opcode != IB_WC_REG_MR || wc.wr_id != 0x4e6)
		return -EIO;
	return 0;
}

/* Wait for one completion and check it. */
static bool expect_wc(struct ib_cq *cq, u64 wr_id, enum ib_wc_status status,
		      int opcode, struct ib_wc *out, const char **why)
{
	struct ib_wc wc = { };

	if (!wait_wc(cq, &wc, WAIT_MS)) {
		*why = "no completion";
		return false;
	}
	if (out)
		*out = wc;
	if (wc.wr_id != wr_id || wc.status != status) {
		pr_info("rvt_dp_test: wc wr_id %llx status %d (%s) opcode %d, want %llx %d\n",
			wc.wr_id, wc.status, ib_wc_status_msg(wc.status),
			wc.opcode, wr_id, status);
		*why = ib_wc_status_msg(wc.status);
		return false;
	}
	if (status == IB_WC_SUCCESS && opcode >= 0 && wc.opcode != opcode) {
		*why = "wrong opcode";
		return false;
	}
	return true;
}

/* ---- data movement --------------------------------------------------- */

/*
 * A message gathered from two SGEs of @a lands in two SGEs of @b's
 * receive request, with immediate data.
 */
static void test_send(enum ib_qp_type type, const char *name)
{
	struct dpt_opts o = opts(type);
	struct dpt_buf src, dst;
	struct ib_sge ssg[2], rsg[2];
	struct ib_send_wr wr = {
		.wr_id = 1, .opcode = IB_WR_SEND_WITH_IMM, .sg_list = ssg,
		.num_sge = 2, .send_flags = IB_SEND_SIGNALED,
		.ex.imm_data = cpu_to_be32(0x1234abcd),
	};
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o))
		goto out_bufs;
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
	pair_destroy(&p);
out_bufs:
	buf_free(&src);
	buf_free(&dst);
	report(ok, name, ok ? NULL : "%s", why);
}

/*
 * RDMA WRITE into the middle of a registered region, nothing around it
 * touched and no receive consumed; then WRITE_WITH_IMM, which consumes
 * one; then a zero-length WRITE, whose key is not checked.
 */
static void test_write(enum ib_qp_type type, const char *name)
{
	struct dpt_opts o = opts(type);
	struct dpt_buf src, dst;
	struct ib_sge sg;
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o) ||
	    buf_reg(&dst, p.a, p.cq_a, FULL_ACCESS))
		goto out_bufs;
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
	pair_destroy(&p);
out_bufs:
	buf_free(&src);
	buf_free(&dst);
	report(ok, name, ok ? NULL : "%s", why);
}

/* RDMA READ of 6000 bytes into two local SGEs. */
static void test_read(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf src, dst;
	struct ib_sge sg[2];
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&src) || buf_alloc(&dst) || pair_create(&p, &o) ||
	    buf_reg(&src, p.a, p.cq_a, IB_ACCESS_REMOTE_READ))
		goto out_bufs;
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
	pair_destroy(&p);
out_bufs:
	buf_free(&src);
	buf_free(&dst);
	report(ok, "rc_read_data", ok ? NULL : "%s", why);
}

/* FETCH_ADD and CMP_SWAP (a hit and a miss), original values returned. */
static void test_atomics(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf tgt, res;
	struct ib_sge sg;
	u64 *target, *result;
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;
	u64 raddr;

	if (buf_alloc(&tgt) || buf_alloc(&res) || pair_create(&p, &o) ||
	    buf_reg(&tgt, p.a, p.cq_a, IB_ACCESS_LOCAL_WRITE |
		    IB_ACCESS_REMOTE_ATOMIC))
		goto out_bufs;
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
	pair_destroy(&p);
out_bufs:
	buf_free(&tgt);
	buf_free(&res);
	report(ok, "rc_atomics", ok ? NULL : "%s", why);
}

/*
 * SEND_WITH_INV invalidates the responder's MR and says so; a later
 * WRITE with that key fails.
 */
static void test_send_inv(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf buf;
	const char *why = "setup";
	struct ib_send_wr wr = {
		.wr_id = 6, .opcode = IB_WR_SEND_WITH_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct dpt_pair p;
	struct ib_sge sg;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o) ||
	    buf_reg(&buf, p.b, p.cq_b, FULL_ACCESS))
		goto out_bufs;
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
	pair_destroy(&p);
out_bufs:
	buf_free(&buf);
	report(ok, "rc_send_with_inv", ok ? NULL : "%s", why);
}

/* LOCAL_INV of the requester's own MR, then a WRITE to it fails. */
static void test_local_inv(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf buf;
	struct ib_send_wr wr = {
		.wr_id = 8, .opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	const char *why = "setup";
	struct dpt_pair p;
	struct ib_sge sg;
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o) ||
	    buf_reg(&buf, p.a, p.cq_a, FULL_ACCESS))
		goto out_bufs;
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
	pair_destroy(&p);
out_bufs:
	buf_free(&buf);
	report(ok, "local_inv", ok ? NULL : "%s", why);
}

/* ---- receiver not ready ------------------------------------------------ */

/* rnr_retry 0: the first RNR NAK fails the request and the requester. */
static void test_rnr_retry_0(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;

	o.rnr_retry = 0;
	o.min_rnr_timer = 1;
	if (pair_create(&p, &o))
		goto out;
	why = "post";
	if (send_op(p.a, IB_WR_SEND, 10, NULL, 0))
		goto out_pair;
	if (!expect_wc(p.cq_a, 10, IB_WC_RNR_RETRY_EXC_ERR, -1, NULL, &why))
		goto out_pair;
	why = "states";
	ok = qp_state(p.a) == IB_QPS_ERR && qp_state(p.b) == IB_QPS_RTS;
out_pair:
	pair_destroy(&p);
out:
	report(ok, "rnr_retry_0", ok ? NULL : "%s", why);
}

/* rnr_retry 7 retries for ever: the send waits until a receive comes. */
static void test_rnr_retry_7(void)
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

/* ---- requests the responder refuses ------------------------------------ */

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

static void test_write_faults(void)
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

static void test_recv_faults(void)
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
static void rd_atomic_fault(const char *name, bool no_rd_atomic,
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
static void test_uc_too_long(void)
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

/* ---- posting errors ------------------------------------------------------ */

/* Requests refused when posted: errno, bad_wr, nothing queued. */
static void test_post_checks(void)
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
static void test_wrong_states(void)
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
	report(bad_ok, "post_wrong_state_sets_bad_wr", NULL);
}

/* A send queue holds max_send_wr requests; completions make room. */
static void test_sq_full(void)
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

/* A full send CQ: IB_EVENT_CQ_ERR, and the QP goes to ERR. */
static void test_cq_overrun(void)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct ib_send_wr wr[4];
	const char *why = "setup";
	struct dpt_pair p;
	bool ok = false;
	int i;

	if (skip_cq_overrun) {
		report(true, "cq_overrun", "SKIP on request");
		return;
	}
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
	why = "no CQ error event";
	if (!wait_async(&p.cq_ev, IB_EVENT_CQ_ERR))
		goto out_pair;
	why = "requester state";
	ok = qp_state(p.a) == IB_QPS_ERR;
out_pair:
	pair_destroy(&p);
out:
	report(ok, "cq_overrun", ok ? NULL : "%s", why);
}

/* ---- destinations ---------------------------------------------------------- */

/*
 * A destination that does not take the request: RC fails it at once with
 * IB_WC_RETRY_EXC_ERR, as upstream does, without waiting for its retry
 * timer (here 2^31 * 4.096 us, hours: only an immediate completion passes
 * the test); UC never knows.
 */
static void lost_request(const char *name, enum ib_qp_type type,
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
static void test_self(void)
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
static void test_comm_est(void)
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

/* ---- shared receive queues ------------------------------------------------ */

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
static bool srq_traffic(struct dpt_pair *p, u64 first, int n,
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
static void test_srq(void)
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
	struct dpt_pair p;
	int srq_ev = NO_EVENT;
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
	    !srq_traffic(&p, 1, 1, &why) || srq_ev != NO_EVENT)
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
	pair_destroy(&p);
out_srq:
	ib_destroy_srq(srq);
out:
	buf_free(&buf);
	report(ok, "srq_limit_resize", ok ? NULL : "%s", why);
}

/* ---- setup ------------------------------------------------------------ */

static void run_tests(void)
{
	test_send(IB_QPT_RC, "rc_send_imm_data");
	test_send(IB_QPT_UC, "uc_send_imm_data");
	test_write(IB_QPT_RC, "rc_write_data");
	test_write(IB_QPT_UC, "uc_write_data");
	test_read();
	test_atomics();
	test_send_inv();
	test_local_inv();
	test_self();
	test_rnr_retry_0();
	test_rnr_retry_7();
	test_post_checks();
	test_wrong_states();
	test_sq_full();
	test_cq_overrun();
	test_write_faults();
	test_recv_faults();
	rd_atomic_fault("read_without_responder_resources", true,
			IB_WR_RDMA_READ, 0);
	rd_atomic_fault("atomic_misaligned", false,
			IB_WR_ATOMIC_FETCH_AND_ADD, 4);
	test_uc_too_long();
	lost_request("rc_no_destination", IB_QPT_RC, false);
	lost_request("rc_destination_wrong_type", IB_QPT_RC, true);
	lost_request("uc_no_destination", IB_QPT_UC, false);
	test_comm_est();
	test_srq();
}

static int setup_env(void)
{
	struct ib_port_attr pa;

	env.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_QIB);
	if (!env.ibdev) {
		pr_err("rvt_dp_test: no device %s\n", dev);
		return -ENODEV;
	}
	if (ib_query_port(env.ibdev, 1, &pa) || !pa.lid)
		goto put_dev;
	env.lid = pa.lid;
	env.pd = ib_alloc_pd(env.ibdev, 0);
	if (IS_ERR(env.pd))
		goto put_dev;
	return 0;

put_dev:
	ib_device_put(env.ibdev);
	pr_err("rvt_dp_test: cannot set up on %s\n", dev);
	return -EIO;
}

static int __init rvt_dp_test_init(void)
{
	int ret;

	env.results = kvzalloc(RESULTS_SIZE, GFP_KERNEL);
	if (!env.results)
		return -ENOMEM;
	ret = setup_env();
	if (ret) {
		kvfree(env.results);
		return ret;
	}
	env.len = scnprintf(env.results, RESULTS_SIZE, "KTAP version 1\n");
	run_tests();
	env.len += scnprintf(env.results + env.len, RESULTS_SIZE - env.len,
			     "1..%u\n", env.ntests);
	ib_dealloc_pd(env.pd);
	ib_device_put(env.ibdev);

	results_blob.data = env.results;
	results_blob.size = env.len;
	debugfs_dir = debugfs_create_dir("rvt_dp_test", NULL);
	debugfs_create_blob("results", 0444, debugfs_dir, &results_blob);
	return 0;
}
module_init(rvt_dp_test_init);

static void __exit rvt_dp_test_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	kvfree(env.results);
}
module_exit(rvt_dp_test_exit);
