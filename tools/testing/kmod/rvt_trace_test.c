// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Kernel-side traffic for the trace suite (tools/testing/suites/
 * 64-trace.sh): what only a kernel consumer, or a driver, can make rdmavt
 * do, so that the rdmavt trace events it fires can be seen on both cores.
 *
 *   sges_kernel_poll  a send gathered from two adjacent lkey 0 SGEs, and
 *                     completions taken with ib_poll_cq()
 *   fast_reg          ib_alloc_mr(), ib_map_mr_sg() and an IB_WR_REG_MR
 *   rnr_exhausted     a send without a receive, one RNR retry allowed
 *   retry_timer       the retry timer armed on an RTS QP, as a driver's
 *                     send engine arms it after a request, left to expire
 *
 * Each step checks what rdmavt answered; the suite checks the events.
 * Loading the module runs the steps once against dev= (port 1) and keeps
 * their results, in KTAP, in /sys/kernel/debug/rvt_trace_test/results
 * until the module is removed.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Kernel-side traffic for the rdmavt trace suite");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to use (default rvtsw_0)");

#define RESULTS_SIZE 4096
#define WAIT_MS 5000
#define BUF_SIZE (2 * PAGE_SIZE)
#define ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		IB_ACCESS_REMOTE_READ)

/**
 * struct trt_env - what every step works with
 * @ibdev: the device
 * @pd: a kernel PD; its local_dma_lkey (0 on rdmavt) reaches all kernel
 *	memory
 * @lid: port 1's LID
 * @ntests: steps reported so far
 * @results: the KTAP text
 * @len: its length
 */
struct trt_env {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 lid;
	unsigned int ntests;
	char *results;
	size_t len;
};

static struct trt_env env;
static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

static void report(bool ok, const char *name, const char *why)
{
	env.ntests++;
	env.len += scnprintf(env.results + env.len, RESULTS_SIZE - env.len,
			     "%sok %u %s%s%s\n", ok ? "" : "not ", env.ntests,
			     name, ok ? "" : " # ", ok ? "" : why);
}

/**
 * struct trt_pair - a requester and a responder, connected, on port 1
 * @cq_a: the requester's CQ
 * @cq_b: the responder's CQ
 * @a: the requester
 * @b: the responder
 */
struct trt_pair {
	struct ib_cq *cq_a, *cq_b;
	struct ib_qp *a, *b;
};

static struct ib_cq *make_cq(void)
{
	struct ib_cq_init_attr attr = { .cqe = 16 };

	return ib_create_cq(env.ibdev, NULL, NULL, NULL, &attr);
}

static struct ib_qp *make_qp(struct ib_cq *cq)
{
	struct ib_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 8, .max_recv_wr = 8,
			.max_send_sge = 2, .max_recv_sge = 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(env.pd, &ia);
}

/*
 * RESET to RTS, towards @dest: RNR NAKs wait 0.01 ms, one RNR retry and
 * no other retry allowed, an ACK timeout of 4 ms.
 */
static int connect_qp(struct ib_qp *qp, u32 dest)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1,
		.qp_access_flags = ACCESS,
	};
	int ret;

	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	a = (struct ib_qp_attr){
		.qp_state = IB_QPS_RTR, .path_mtu = IB_MTU_1024,
		.dest_qp_num = dest, .rq_psn = 0x10, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
	};
	a.ah_attr.type = rdma_ah_find_type(env.ibdev, 1);
	rdma_ah_set_dlid(&a.ah_attr, env.lid);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	a = (struct ib_qp_attr){
		.qp_state = IB_QPS_RTS, .sq_psn = 0x10, .timeout = 10,
		.retry_cnt = 0, .rnr_retry = 1, .max_rd_atomic = 1,
	};
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static void pair_destroy(struct trt_pair *p)
{
	if (!IS_ERR_OR_NULL(p->a))
		ib_destroy_qp(p->a);
	if (!IS_ERR_OR_NULL(p->b))
		ib_destroy_qp(p->b);
	if (!IS_ERR_OR_NULL(p->cq_a))
		ib_destroy_cq(p->cq_a);
	if (!IS_ERR_OR_NULL(p->cq_b))
		ib_destroy_cq(p->cq_b);
}

/* Return: 0, or -EIO with everything created so far destroyed. */
static int pair_create(struct trt_pair *p)
{
	*p = (struct trt_pair){ };
	p->cq_a = make_cq();
	p->cq_b = make_cq();
	if (IS_ERR(p->cq_a) || IS_ERR(p->cq_b))
		goto fail;
	p->a = make_qp(p->cq_a);
	p->b = make_qp(p->cq_b);
	if (IS_ERR(p->a) || IS_ERR(p->b) ||
	    connect_qp(p->a, p->b->qp_num) || connect_qp(p->b, p->a->qp_num))
		goto fail;
	return 0;
fail:
	pair_destroy(p);
	return -EIO;
}

/* Wait for one completion on @cq: it must be @wr_id's, with @status. */
static bool expect_wc(struct ib_cq *cq, u64 wr_id, enum ib_wc_status status,
		      u32 byte_len)
{
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);
	struct ib_wc wc;

	do {
		if (ib_poll_cq(cq, 1, &wc) == 1)
			return wc.wr_id == wr_id && wc.status == status &&
			       (status != IB_WC_SUCCESS ||
				wc.byte_len == byte_len);
		usleep_range(200, 400);
	} while (time_before(jiffies, end));
	return false;
}

static struct ib_sge dma_sge(void *va, u32 len)
{
	return (struct ib_sge){
		.addr = (uintptr_t)va, .length = len,
		.lkey = env.pd->local_dma_lkey,
	};
}

/*
 * A send gathered from two adjacent lkey 0 SGEs (rdmavt merges them) into
 * a receive of one SGE; both completions polled by the kernel.
 */
static void step_sges_kernel_poll(void)
{
	struct trt_pair p;
	struct ib_sge ssg[2], rsg;
	struct ib_send_wr wr = {
		.wr_id = 0x5e, .opcode = IB_WR_SEND, .sg_list = ssg,
		.num_sge = 2, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr rwr = { .wr_id = 0x7e, .sg_list = &rsg,
				  .num_sge = 1 };
	const char *why = "setup";
	bool ok = false;
	u8 *buf;

	buf = kzalloc(BUF_SIZE, GFP_KERNEL);
	if (!buf || pair_create(&p))
		goto out;
	memset(buf, 0xa5, 300);
	ssg[0] = dma_sge(buf, 100);
	ssg[1] = dma_sge(buf + 100, 200);
	rsg = dma_sge(buf + PAGE_SIZE, 300);
	why = "post";
	if (ib_post_recv(p.b, &rwr, NULL) || ib_post_send(p.a, &wr, NULL))
		goto out_pair;
	why = "completions";
	ok = expect_wc(p.cq_a, 0x5e, IB_WC_SUCCESS, 300) &&
	     expect_wc(p.cq_b, 0x7e, IB_WC_SUCCESS, 300) &&
	     !memcmp(buf, buf + PAGE_SIZE, 300);
out_pair:
	pair_destroy(&p);
out:
	kfree(buf);
	report(ok, "sges_kernel_poll", why);
}

/* Map two pages into a fast-registration MR and register it. */
static int fast_reg(struct ib_qp *qp, struct ib_cq *cq, struct ib_mr *mr,
		    void *buf)
{
	struct scatterlist sg;
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 0x4e, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.access = ACCESS,
	};
	int n;

	sg_init_one(&sg, buf, BUF_SIZE);
	if (ib_dma_map_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL);
	if (n != 1 || mr->length != BUF_SIZE)
		return -EIO;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.key = mr->rkey;
	if (ib_post_send(qp, &wr.wr, NULL))
		return -EIO;
	return expect_wc(cq, 0x4e, IB_WC_SUCCESS, 0) ? 0 : -EIO;
}

static void step_fast_reg(void)
{
	const char *why = "setup";
	struct ib_mr *mr = NULL;
	struct trt_pair p;
	bool ok = false;
	void *buf;

	buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
				       get_order(BUF_SIZE));
	if (!buf || pair_create(&p))
		goto out;
	mr = ib_alloc_mr(env.pd, IB_MR_TYPE_MEM_REG, BUF_SIZE / PAGE_SIZE);
	why = "ib_alloc_mr";
	if (IS_ERR(mr))
		goto out_pair;
	why = "registration";
	ok = !fast_reg(p.a, p.cq_a, mr, buf);
	ib_dereg_mr(mr);
out_pair:
	pair_destroy(&p);
out:
	if (buf)
		free_pages((unsigned long)buf, get_order(BUF_SIZE));
	report(ok, "fast_reg", why);
}

/*
 * A send to a responder without a receive: an RNR NAK, a wait, a second
 * RNR NAK, and the single retry allowed is used up.
 */
static void step_rnr_exhausted(void)
{
	struct ib_send_wr wr = {
		.wr_id = 0x3e, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const char *why = "setup";
	struct trt_pair p;
	bool ok = false;

	if (pair_create(&p))
		goto out;
	why = "post";
	if (ib_post_send(p.a, &wr, NULL))
		goto out_pair;
	why = "completion";
	ok = expect_wc(p.cq_a, 0x3e, IB_WC_RNR_RETRY_EXC_ERR, 0);
out_pair:
	pair_destroy(&p);
out:
	report(ok, "rnr_exhausted", why);
}

/*
 * The retry timer, armed as a driver's send engine arms it once a request
 * is on the wire (rvt_add_retry_timer_ext() under s_lock), expires: the
 * port counts it in n_rc_timeouts.
 */
static void step_retry_timer(void)
{
	struct rvt_ibport *rvp = ib_to_rvt(env.ibdev)->ports[0];
	unsigned long end, flags;
	const char *why = "setup";
	struct trt_pair p;
	struct rvt_qp *qp;
	bool ok = false;
	u64 before;

	if (pair_create(&p))
		goto out;
	qp = ibqp_to_rvtqp(p.a);
	before = READ_ONCE(rvp->n_rc_timeouts);
	spin_lock_irqsave(&qp->s_lock, flags);
	rvt_add_retry_timer_ext(qp, 0);
	spin_unlock_irqrestore(&qp->s_lock, flags);
	why = "no timeout counted";
	end = jiffies + msecs_to_jiffies(WAIT_MS);
	while (!ok && time_before(jiffies, end)) {
		usleep_range(1000, 2000);
		ok = READ_ONCE(rvp->n_rc_timeouts) == before + 1;
	}
	pair_destroy(&p);
out:
	report(ok, "retry_timer", why);
}

static int setup_env(void)
{
	struct ib_port_attr pa;

	env.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_QIB);
	if (!env.ibdev) {
		pr_err("rvt_trace_test: no device %s\n", dev);
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
	pr_err("rvt_trace_test: cannot set up on %s\n", dev);
	return -EIO;
}

static int __init rvt_trace_test_init(void)
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
	step_sges_kernel_poll();
	step_fast_reg();
	step_rnr_exhausted();
	step_retry_timer();
	env.len += scnprintf(env.results + env.len, RESULTS_SIZE - env.len,
			     "1..%u\n", env.ntests);
	ib_dealloc_pd(env.pd);
	ib_device_put(env.ibdev);

	results_blob.data = env.results;
	results_blob.size = env.len;
	debugfs_dir = debugfs_create_dir("rvt_trace_test", NULL);
	debugfs_create_blob("results", 0444, debugfs_dir, &results_blob);
	return 0;
}
module_init(rvt_trace_test_init);

static void __exit rvt_trace_test_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	kvfree(env.results);
}
module_exit(rvt_trace_test_exit);
