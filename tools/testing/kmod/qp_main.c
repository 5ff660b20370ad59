// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * In-kernel tests of rdmavt's QP core, run on an rvtsw device through the
 * kernel verbs and rdmavt's exported API; the tests by concern in
 * qp_*.c.
 *
 * Loading the module runs the table below once against the device named
 * by dev= and keeps the results, in KTAP, in
 * /sys/kernel/debug/rvt_qp_test/results until the module is removed
 * (ktest.h). The device's MAD layer owns QP0 and QP1 of every port; the
 * tests account for them.
 */
#include "qp.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Tests of rdmavt's QP core");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

static const struct kt_case qp_cases[] = {
	KT_CASE("state_ops_table", qp_state_ops),
	KT_CASE("rnr_tbl_to_usec", qp_rnr_table),
	KT_CASE("create_rc_uc_ud", qp_create_types),
	KT_CASE("create_limits", qp_create_limits),
	KT_CASE("qp0_qp1_one_per_port", qp_special_qps),
	KT_CASE("qp0_recreated_after_destroy", qp_qp0_recreate),
	KT_CASE_ARG("query_after_transitions_rc", qp_transitions, IB_QPT_RC),
	KT_CASE_ARG("query_after_transitions_uc", qp_transitions, IB_QPT_UC),
	KT_CASE_ARG("query_after_transitions_ud", qp_transitions, IB_QPT_UD),
	KT_CASE("query_ignores_attr_mask", qp_attr_mask_ignored),
	KT_CASE("illegal_modify_leaves_qp", qp_illegal_unchanged),
	KT_CASE("error_flushes_rq", qp_error_flush),
	KT_CASE("comm_est_and_rc_error", qp_comm_est_rc_error),
	KT_CASE("mr_dereg_cleans_qps", qp_dereg_cleans_qps),
	KT_CASE("rc_timers", qp_timers),
	KT_CASE("mcast_find_in_softirq", qp_mcast_find_in_softirq),
	KT_CASE("iter_next_specials", qp_iter_next),
	KT_CASE("iter_filter_by_v", qp_iter_filter),
	KT_CASE("iter_sleeping_cb_with_churn", qp_iter_sleeping),
	KT_CASE("qpn_unique_over_cycles", qp_qpn_unique),
};

static int qp_setup(void)
{
	int ret = kt_env_get(&env.kt, dev, false);

	if (ret)
		return ret;
	env.rdi = ib_to_rvt(env.kt.ibdev);
	env.cq = ib_alloc_cq(env.kt.ibdev, NULL, 256, 0, IB_POLL_DIRECT);
	if (!IS_ERR(env.cq))
		return 0;
	kt_env_put(&env.kt);
	return PTR_ERR(env.cq);
}

static void qp_teardown(void)
{
	ib_free_cq(env.cq);
	kt_env_put(&env.kt);
}

static struct kt_suite qp_suite = {
	.name = "rvt_qp_test",
	.cases = qp_cases,
	.ncases = ARRAY_SIZE(qp_cases),
	.setup = qp_setup,
	.teardown = qp_teardown,
};

static int __init qp_init(void)
{
	return kt_suite_run(&qp_suite);
}
module_init(qp_init);

static void __exit qp_exit(void)
{
	kt_suite_exit(&qp_suite);
}
module_exit(qp_exit);
