// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: concurrency under traffic on an rdmavt device, through the
 * kernel verbs (and rdmavt's exported QP iterator).
 *
 * Loading the module runs every case once, for seconds= each, on port 1
 * of the device named by dev=, with threads= posting kthreads and
 * pollers= polling ones, and keeps the results in KTAP in
 * /sys/kernel/debug/rvt_stress/results until the module is removed.
 * skip_hazards=1 (the suite sets it on upstream's rdmavt) skips the cases
 * that deadlock or crash upstream's core; cases= runs only the cases
 * named (comma-separated) and skips the others, for debugging.
 */
#include <linux/module.h>
#include <linux/string.h>
#include "stress.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Concurrency under traffic on an rdmavt device");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

static unsigned int seconds = 5;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "run time of each case (default 5)");

static unsigned int threads = 4;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "posting kthreads per case, 1-8 (default 4)");

static unsigned int pollers = 2;
module_param(pollers, uint, 0444);
MODULE_PARM_DESC(pollers, "polling kthreads per case, 1-4 (default 2)");

static bool skip_hazards;
module_param(skip_hazards, bool, 0444);
MODULE_PARM_DESC(skip_hazards,
		 "skip the cases that deadlock or crash upstream's rdmavt");

static char *cases;
module_param(cases, charp, 0444);
MODULE_PARM_DESC(cases, "run only these cases (comma-separated names)");

/* The loopback engine's lock order against modify/destroy (s_lock, r_lock). */
#define LOOPBACK_DEADLOCK \
	"deadlocks upstream rdmavt: rvt_modify_qp() takes the sender's r_lock then s_lock, rvt_ruc_loopback() holds s_lock and takes r_lock to complete each request (Documentation/differences.rst)"
#define MR_CLEAN_DEADLOCK \
	"deadlocks upstream rdmavt: rvt_dereg_mr()'s rvt_qp_mr_clean() takes the sender's r_lock then s_lock, rvt_ruc_loopback() holds s_lock and takes r_lock"
#define ITER_CB_UAF \
	"use-after-free in upstream rvt_qp_iter(): after the callback it follows the next link of a QP unlinked meanwhile, to a QP that may be freed meanwhile (Documentation/differences.rst)"

#define BIT_STATUS(s) BIT(IB_WC_##s)

static const struct st_case st_cases[] = {
	{ .name = "rc_mt_post_poll", .type = IB_QPT_RC, .pairs = 1,
	  .rule = ST_ALL_OK, .rx = { ST_RX_EXACT } },
	{ .name = "ud_mt_post_poll", .type = IB_QPT_UD, .pairs = 1,
	  .rule = ST_ALL_OK, .rx = { ST_RX_EXACT } },
	{ .name = "rc_sender_to_err", .type = IB_QPT_RC, .pairs = 1,
	  .event = st_event_sender_err, .event_pct = 50,
	  .rule = ST_ERR_AFTER, .allowed = BIT_STATUS(WR_FLUSH_ERR),
	  .rx = { ST_RX_COVERS }, .upstream_hazard = LOOPBACK_DEADLOCK },
	{ .name = "ud_sender_to_err", .type = IB_QPT_UD, .pairs = 1,
	  .event = st_event_sender_err, .event_pct = 50,
	  .rule = ST_ERR_AFTER, .allowed = BIT_STATUS(WR_FLUSH_ERR),
	  .rx = { ST_RX_COVERS } },
	{ .name = "rc_destroy_receiver", .type = IB_QPT_RC, .pairs = 1,
	  .event = st_event_destroy_rx, .event_pct = 50,
	  .rule = ST_ERR_AFTER,
	  .allowed = BIT_STATUS(WR_FLUSH_ERR) | BIT_STATUS(RETRY_EXC_ERR),
	  .rx = { ST_RX_COVERS } },
	{ .name = "ud_destroy_receiver", .type = IB_QPT_UD, .pairs = 1,
	  .event = st_event_destroy_rx, .event_pct = 50,
	  .rule = ST_ALL_OK, .rx = { ST_RX_BEFORE } },
	{ .name = "rc_dereg_mr", .type = IB_QPT_RC, .pairs = 1,
	  .event = st_event_dereg_mr, .event_pct = 50,
	  .rule = ST_ERR_AFTER,
	  .allowed = BIT_STATUS(WR_FLUSH_ERR) | BIT_STATUS(LOC_PROT_ERR) |
		     BIT_STATUS(REM_ACCESS_ERR),
	  .rx = { ST_RX_COVERS }, .refuse_after = true,
	  .upstream_hazard = MR_CLEAN_DEADLOCK },
	{ .name = "rc_resize_cq", .type = IB_QPT_RC, .pairs = 1,
	  .event = st_event_resize_cq, .event_pct = 0,
	  .rule = ST_ALL_OK, .rx = { ST_RX_EXACT } },
	{ .name = "ud_mcast_detach", .type = IB_QPT_UD, .pairs = 1,
	  .mcast = true, .event = st_event_detach, .event_pct = 50,
	  .rule = ST_ALL_OK, .rx = { ST_RX_BEFORE, ST_RX_EXACT } },
	{ .name = "rc_destroy_srq", .type = IB_QPT_RC, .pairs = 2,
	  .srq = true, .event = st_event_destroy_srq, .event_pct = 50,
	  .rule = ST_ERR_AFTER,
	  .allowed = BIT_STATUS(WR_FLUSH_ERR) | BIT_STATUS(RETRY_EXC_ERR),
	  .rx = { ST_RX_COVERS } },
	{ .name = "qp_iter_resume_walk", .run = st_run_iter_walk },
	{ .name = "qp_iter_sleeping_cb", .run = st_run_iter_cb,
	  .upstream_hazard = ITER_CB_UAF },
	{ .name = "qp_iter_cb_destroys", .run = st_run_iter_strike,
	  .upstream_hazard = ITER_CB_UAF },
};

/* Is @name in the comma-separated cases= list (or is there none)? */
static bool st_selected(const char *name)
{
	size_t len = strlen(name);
	const char *p = cases;

	if (!p || !*p)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == cases || p[-1] == ',') &&
		    (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

static void st_run_cases(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(st_cases); i++) {
		const struct st_case *c = &st_cases[i];

		if (!st_selected(c->name))
			st_report(true, c->name, "SKIP not selected by cases=");
		else if (c->upstream_hazard && st_env.skip_hazards)
			st_report(true, c->name, "SKIP %s", c->upstream_hazard);
		else if (c->run)
			c->run(c);
		else
			st_run_flow(c);
	}
}

static int st_setup_env(void)
{
	struct ib_port_attr pa;

	st_env.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!st_env.ibdev) {
		pr_err("rvt_stress: no device %s\n", dev);
		return -ENODEV;
	}
	if (ib_query_port(st_env.ibdev, 1, &pa) || !pa.lid)
		goto put_dev;
	st_env.lid = pa.lid;
	st_env.pd = ib_alloc_pd(st_env.ibdev, 0);
	if (IS_ERR(st_env.pd))
		goto put_dev;
	st_env.seconds = max(seconds, 1U);
	st_env.threads = clamp(threads, 1U, (unsigned int)ST_MAX_THREADS);
	st_env.pollers = clamp(pollers, 1U, (unsigned int)ST_MAX_POLLERS);
	st_env.skip_hazards = skip_hazards;
	return 0;

put_dev:
	ib_device_put(st_env.ibdev);
	pr_err("rvt_stress: cannot set up on %s\n", dev);
	return -EIO;
}

static int __init rvt_stress_init(void)
{
	int ret;

	ret = st_results_open(ARRAY_SIZE(st_cases));
	if (ret)
		return ret;
	ret = st_setup_env();
	if (ret) {
		st_results_close();
		return ret;
	}
	st_run_cases();
	ib_dealloc_pd(st_env.pd);
	ib_device_put(st_env.ibdev);
	st_results_publish();
	return 0;
}
module_init(rvt_stress_init);

static void __exit rvt_stress_exit(void)
{
	st_results_close();
}
module_exit(rvt_stress_exit);
