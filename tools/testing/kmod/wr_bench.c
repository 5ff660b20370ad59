// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What a work request costs the rdmavt core itself: SENDs posted and
 * their completions polled from inside the kernel, with no system call
 * and no user library in the way, on RC and UC (rdmavt's loopback
 * engine) and UD (rvtsw's delivery), for several message sizes.
 *
 * Loading the module runs every case on the device named by dev= (port
 * 1) and keeps the figures in /sys/kernel/debug/rvt_wr_bench/results, one
 * line per case:
 *
 *   <type> <bytes> <ns per work request> <MB/s> <recv> <send> <poll>
 *
 * where the last three split the ns per request by where the poster
 * spent them: in ib_post_recv(), in ib_post_send() (which may run the
 * send engine itself, see rvt_post_send()) and in polling the CQ (while
 * a driver's worker runs the engine, or the CQ's entries are taken).
 *
 * A round posts WINDOW receives on the responder and WINDOW signaled
 * SENDs on the requester, then polls both completions of each; iters=
 * messages are sent in all. Every completion must come, successful, within
 * WAIT_MS: anything else fails the load.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <rdma/ib_verbs.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Per-work-request cost of an rdmavt core, from the kernel");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device (default rvtsw_0)");

static unsigned int iters = 20000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "Messages per case (default 20000)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only,
		 "Run one case, named <type><bytes> (e.g. rc8; default all)");

#define RESULTS_SIZE 4096
#define WINDOW 32
/* Completions taken per poll: ib_wc is large, this is on the stack. */
#define POLL_BATCH 8
#define WAIT_MS 5000
#define MAX_MSG SZ_64K
#define UD_QKEY 0x11111111
/* Room for the GRH a UD receive gets in front of the payload. */
#define GRH_BYTES 40

struct wrb_case {
	enum ib_qp_type type;
	u32 bytes;
};

static const struct wrb_case cases[] = {
	{ IB_QPT_RC, 8 }, { IB_QPT_RC, 64 }, { IB_QPT_RC, 4096 },
	{ IB_QPT_RC, MAX_MSG },
	{ IB_QPT_UC, 8 }, { IB_QPT_UC, 64 }, { IB_QPT_UC, 4096 },
	{ IB_QPT_UC, MAX_MSG },
	{ IB_QPT_UD, 8 }, { IB_QPT_UD, 64 }, { IB_QPT_UD, 2048 },
};

static struct {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 lid;
	void *sbuf, *rbuf;
	char *results;
	size_t len;
} wrb;

/* Two QPs, requester @a and responder @b, sharing one CQ. */
struct wrb_pair {
	struct ib_cq *cq;
	struct ib_qp *a, *b;
	struct ib_ah *ah;
};

static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

static const char *type_name(enum ib_qp_type type)
{
	return type == IB_QPT_RC ? "rc" : type == IB_QPT_UC ? "uc" : "ud";
}

static int to_init(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = UD_QKEY,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;

	mask |= qp->qp_type == IB_QPT_UD ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS;
	return ib_modify_qp(qp, &a, mask);
}

static int to_rtr(struct ib_qp *qp, u32 dest)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR, .path_mtu = IB_MTU_4096,
		.dest_qp_num = dest, .rq_psn = 0, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
	};
	int mask = IB_QP_STATE;

	if (qp->qp_type == IB_QPT_UD)
		return ib_modify_qp(qp, &a, mask);
	a.ah_attr.type = rdma_ah_find_type(wrb.ibdev, 1);
	rdma_ah_set_dlid(&a.ah_attr, wrb.lid);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	if (qp->qp_type == IB_QPT_RC)
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	return ib_modify_qp(qp, &a, mask);
}

static int to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS, .sq_psn = 0, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1,
	};
	int mask = IB_QP_STATE | IB_QP_SQ_PSN;

	if (qp->qp_type == IB_QPT_RC)
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	return ib_modify_qp(qp, &a, mask);
}

static struct ib_qp *make_qp(struct wrb_pair *p, enum ib_qp_type type)
{
	struct ib_qp_init_attr ia = {
		.send_cq = p->cq,
		.recv_cq = p->cq,
		.cap = { .max_send_wr = WINDOW, .max_recv_wr = WINDOW,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
	};

	return ib_create_qp(wrb.pd, &ia);
}

static struct ib_ah *make_ah(void)
{
	struct rdma_ah_attr attr = {};

	attr.type = rdma_ah_find_type(wrb.ibdev, 1);
	rdma_ah_set_dlid(&attr, wrb.lid);
	rdma_ah_set_port_num(&attr, 1);
	return rdma_create_ah(wrb.pd, &attr, 0);
}

static void pair_destroy(struct wrb_pair *p)
{
	if (!IS_ERR_OR_NULL(p->ah))
		rdma_destroy_ah(p->ah, 0);
	if (!IS_ERR_OR_NULL(p->a))
		ib_destroy_qp(p->a);
	if (!IS_ERR_OR_NULL(p->b))
		ib_destroy_qp(p->b);
	if (!IS_ERR_OR_NULL(p->cq))
		ib_destroy_cq(p->cq);
}

static int pair_connect(struct wrb_pair *p)
{
	return to_init(p->a) ?: to_init(p->b) ?:
	       to_rtr(p->a, p->b->qp_num) ?: to_rtr(p->b, p->a->qp_num) ?:
	       to_rts(p->a) ?: to_rts(p->b);
}

static int pair_create(struct wrb_pair *p, enum ib_qp_type type)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 2 * WINDOW };

	*p = (struct wrb_pair){};
	p->cq = ib_create_cq(wrb.ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(p->cq))
		return PTR_ERR(p->cq);
	p->a = make_qp(p, type);
	if (IS_ERR(p->a))
		return PTR_ERR(p->a);
	p->b = make_qp(p, type);
	if (IS_ERR(p->b))
		return PTR_ERR(p->b);
	if (type == IB_QPT_UD) {
		p->ah = make_ah();
		if (IS_ERR(p->ah))
			return PTR_ERR(p->ah);
	}
	return pair_connect(p);
}

static int post_recvs(struct wrb_pair *p, u32 bytes, unsigned int n)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)wrb.rbuf,
		.length = bytes + (p->ah ? GRH_BYTES : 0),
		.lkey = wrb.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ib_post_recv(p->b, &wr, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int post_sends(struct wrb_pair *p, u32 bytes, unsigned int n)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)wrb.sbuf,
		.length = bytes,
		.lkey = wrb.pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = { .sg_list = &sge, .num_sge = 1, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED },
		.ah = p->ah,
		.remote_qpn = p->b->qp_num,
		.remote_qkey = UD_QKEY,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ib_post_send(p->a, &wr.wr, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/* Poll until @n successful completions came, or fail. */
static int reap(struct ib_cq *cq, unsigned int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	struct ib_wc wc[POLL_BATCH];
	int got, i;

	while (n) {
		got = ib_poll_cq(cq, min_t(unsigned int, n, POLL_BATCH), wc);
		for (i = 0; i < got; i++)
			if (wc[i].status != IB_WC_SUCCESS) {
				pr_err("rvt_wr_bench: completion status %d\n",
				       wc[i].status);
				return -EIO;
			}
		n -= got;
		if (got)
			continue;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		cond_resched();
	}
	return 0;
}

/* Where a case's time went: ns in each phase of its rounds. */
struct wrb_phases {
	u64 recv, send, poll;
};

/* One round of @n messages, each phase's time added to @t. */
static int run_round(struct wrb_pair *p, u32 bytes, unsigned int n,
		     struct wrb_phases *t)
{
	u64 t0 = ktime_get_ns(), t1, t2;
	int ret;

	ret = post_recvs(p, bytes, n);
	t1 = ktime_get_ns();
	ret = ret ?: post_sends(p, bytes, n);
	t2 = ktime_get_ns();
	ret = ret ?: reap(p->cq, 2 * n);
	t->recv += t1 - t0;
	t->send += t2 - t1;
	t->poll += ktime_get_ns() - t2;
	return ret;
}

static int run_case(const struct wrb_case *c)
{
	struct wrb_phases t = {};
	unsigned int done, n;
	struct wrb_pair p;
	u64 ns;
	int ret;

	ret = pair_create(&p, c->type);
	for (done = 0; !ret && done < iters; done += n) {
		n = min(iters - done, WINDOW);
		ret = run_round(&p, c->bytes, n, &t);
	}
	pair_destroy(&p);
	if (ret) {
		pr_err("rvt_wr_bench: %s %u bytes: %d\n", type_name(c->type),
		       c->bytes, ret);
		return ret;
	}
	ns = t.recv + t.send + t.poll;
	/* bytes per microsecond are MB/s */
	wrb.len += scnprintf(wrb.results + wrb.len, RESULTS_SIZE - wrb.len,
			     "%s %u %llu %llu %llu %llu %llu\n",
			     type_name(c->type), c->bytes, div_u64(ns, iters),
			     div64_u64((u64)c->bytes * iters * 1000, ns ?: 1),
			     div_u64(t.recv, iters), div_u64(t.send, iters),
			     div_u64(t.poll, iters));
	return 0;
}

/* Whether only= names @c (or is unset). */
static bool case_selected(const struct wrb_case *c)
{
	char name[16];

	if (!only || !*only)
		return true;
	snprintf(name, sizeof(name), "%s%u", type_name(c->type), c->bytes);
	return sysfs_streq(only, name);
}

static int setup(void)
{
	struct ib_port_attr pa;

	wrb.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_QIB);
	if (!wrb.ibdev) {
		pr_err("rvt_wr_bench: no device %s\n", dev);
		return -ENODEV;
	}
	if (ib_query_port(wrb.ibdev, 1, &pa) || !pa.lid)
		goto put_dev;
	wrb.lid = pa.lid;
	wrb.pd = ib_alloc_pd(wrb.ibdev, 0);
	if (IS_ERR(wrb.pd))
		goto put_dev;
	wrb.sbuf = kvzalloc(MAX_MSG, GFP_KERNEL);
	wrb.rbuf = kvzalloc(MAX_MSG + GRH_BYTES, GFP_KERNEL);
	if (wrb.sbuf && wrb.rbuf)
		return 0;
	kvfree(wrb.sbuf);
	kvfree(wrb.rbuf);
	ib_dealloc_pd(wrb.pd);
put_dev:
	ib_device_put(wrb.ibdev);
	return -EIO;
}

static void teardown(void)
{
	kvfree(wrb.sbuf);
	kvfree(wrb.rbuf);
	ib_dealloc_pd(wrb.pd);
	ib_device_put(wrb.ibdev);
}

static int __init rvt_wr_bench_init(void)
{
	unsigned int i;
	int ret;

	if (!iters)
		return -EINVAL;
	wrb.results = kzalloc(RESULTS_SIZE, GFP_KERNEL);
	if (!wrb.results)
		return -ENOMEM;
	ret = setup();
	if (ret)
		goto free;
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		if (case_selected(&cases[i]))
			ret = run_case(&cases[i]);
	teardown();
	if (ret)
		goto free;
	results_blob.data = wrb.results;
	results_blob.size = wrb.len;
	debugfs_dir = debugfs_create_dir("rvt_wr_bench", NULL);
	debugfs_create_blob("results", 0444, debugfs_dir, &results_blob);
	return 0;
free:
	kfree(wrb.results);
	return ret;
}
module_init(rvt_wr_bench_init);

static void __exit rvt_wr_bench_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	kfree(wrb.results);
}
module_exit(rvt_wr_bench_exit);
