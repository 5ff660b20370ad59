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
 * until the module is removed (ktest.h).
 */
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include "ktest.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Kernel-side traffic for the rdmavt trace suite");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to use (default rvtsw_0)");

#define WAIT_MS 5000
#define BUF_SIZE (2 * PAGE_SIZE)
#define ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		IB_ACCESS_REMOTE_READ)

static struct kt_env env;

/*
 * A requester and a responder on port 1, connected: RNR NAKs wait
 * 0.01 ms, one RNR retry and no other retry allowed, an ACK timeout of
 * 4 ms.
 */
static int pair_create(struct kt_pair *p)
{
	const struct kt_path path = {
		.access = ACCESS, .dlid = env.lid, .mtu = IB_MTU_1024,
		.rq_psn = 0x10, .sq_psn = 0x10, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1, .timeout = 10, .retry_cnt = 0,
		.rnr_retry = 1, .max_rd_atomic = 1,
	};
	const struct kt_pair_spec s = {
		.qp = { .type = IB_QPT_RC, .send_wr = 8, .recv_wr = 8,
			.sge = 2 },
		.cqe_a = 16, .cqe_b = 16, .path_a = path, .path_b = path,
	};

	return kt_pair_create(&env, p, &s);
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
static void step_sges_kernel_poll(struct kt_test *t)
{
	struct kt_pair p;
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
	kt_pair_destroy(&p);
out:
	kfree(buf);
	kt_result(t, ok, ok ? NULL : "%s", why);
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

static void step_fast_reg(struct kt_test *t)
{
	const char *why = "setup";
	struct ib_mr *mr = NULL;
	struct kt_pair p;
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
	kt_pair_destroy(&p);
out:
	if (buf)
		free_pages((unsigned long)buf, get_order(BUF_SIZE));
	kt_result(t, ok, ok ? NULL : "%s", why);
}

/*
 * A send to a responder without a receive: an RNR NAK, a wait, a second
 * RNR NAK, and the single retry allowed is used up.
 */
static void step_rnr_exhausted(struct kt_test *t)
{
	struct ib_send_wr wr = {
		.wr_id = 0x3e, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const char *why = "setup";
	struct kt_pair p;
	bool ok = false;

	if (pair_create(&p))
		goto out;
	why = "post";
	if (ib_post_send(p.a, &wr, NULL))
		goto out_pair;
	why = "completion";
	ok = expect_wc(p.cq_a, 0x3e, IB_WC_RNR_RETRY_EXC_ERR, 0);
out_pair:
	kt_pair_destroy(&p);
out:
	kt_result(t, ok, ok ? NULL : "%s", why);
}

/*
 * The retry timer, armed as a driver's send engine arms it once a request
 * is on the wire (rvt_add_retry_timer_ext() under s_lock), expires: the
 * port counts it in n_rc_timeouts.
 */
static void step_retry_timer(struct kt_test *t)
{
	struct rvt_ibport *rvp = ib_to_rvt(env.ibdev)->ports[0];
	unsigned long end, flags;
	const char *why = "setup";
	struct kt_pair p;
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
	kt_pair_destroy(&p);
out:
	kt_result(t, ok, ok ? NULL : "%s", why);
}

static int trt_setup(void)
{
	return kt_env_get(&env, dev, true);
}

static void trt_teardown(void)
{
	kt_env_put(&env);
}

static const struct kt_case trt_cases[] = {
	KT_CASE("sges_kernel_poll", step_sges_kernel_poll),
	KT_CASE("fast_reg", step_fast_reg),
	KT_CASE("rnr_exhausted", step_rnr_exhausted),
	KT_CASE("retry_timer", step_retry_timer),
};

static struct kt_suite trt_suite = {
	.name = "rvt_trace_test",
	.cases = trt_cases,
	.ncases = ARRAY_SIZE(trt_cases),
	.setup = trt_setup,
	.teardown = trt_teardown,
};

static int __init trt_init(void)
{
	return kt_suite_run(&trt_suite);
}
module_init(trt_init);

static void __exit trt_exit(void)
{
	kt_suite_exit(&trt_suite);
}
module_exit(trt_exit);
