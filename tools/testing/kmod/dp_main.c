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
#include "dp_test.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Tests of rdmavt's data path");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

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
	test_rnr_retry_7();
	test_post_checks();
	test_wrong_states();
	test_sq_full();
	test_cq_overrun();
	test_uc_lost_cq_overrun();
	test_refusals();
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
