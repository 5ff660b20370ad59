// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * In-kernel tests of rdmavt's data path on an rvtsw device: posting, the
 * RC/UC loopback engine and its error completions, SRQs, through the
 * kernel verbs.
 *
 * Loading the module runs the table below once against the device named
 * by dev= (port 1) and keeps the results, in KTAP, in
 * /sys/kernel/debug/rvt_dp_test/results until the module is removed
 * (ktest.h). Each test builds its own pair of connected QPs, requester
 * "a" and responder "b", each with its own CQ, and tears it down again.
 */
#include "dp.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Tests of rdmavt's data path");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

static const struct kt_case dp_cases[] = {
	KT_CASE_ARG("rc_send_imm_data", dp_send, IB_QPT_RC),
	KT_CASE_ARG("uc_send_imm_data", dp_send, IB_QPT_UC),
	KT_CASE_ARG("rc_write_data", dp_write, IB_QPT_RC),
	KT_CASE_ARG("uc_write_data", dp_write, IB_QPT_UC),
	KT_CASE("rc_read_data", dp_read),
	KT_CASE("rc_atomics", dp_atomics),
	KT_CASE("rc_send_with_inv", dp_send_inv),
	KT_CASE("local_inv", dp_local_inv),
	KT_CASE("rc_connected_to_itself", dp_self),
	KT_CASE("rnr_retry_7", dp_rnr_retry_7),
	KT_CASE("post_refused", dp_post_checks),
	KT_CASE("post_wrong_states", dp_wrong_states),
	KT_CASE("post_wrong_state_sets_bad_wr", dp_wrong_state_bad_wr),
	KT_CASE("send_queue_full", dp_sq_full),
	KT_CASE("cq_overrun", dp_cq_overrun),
	KT_CASE("uc_lost_cq_overrun", dp_uc_lost_cq_overrun),
	KT_CASE_ARG("write_qp_without_remote_write", dp_refusal,
		    DP_REF_WRITE_QP_WITHOUT_REMOTE_WRITE),
	KT_CASE_ARG("write_imm_qp_without_remote_write", dp_refusal,
		    DP_REF_WRITE_IMM_QP_WITHOUT_REMOTE_WRITE),
	KT_CASE_ARG("read_qp_without_remote_read", dp_refusal,
		    DP_REF_READ_QP_WITHOUT_REMOTE_READ),
	KT_CASE_ARG("atomic_qp_without_remote_atomic", dp_refusal,
		    DP_REF_ATOMIC_QP_WITHOUT_REMOTE_ATOMIC),
	KT_CASE_ARG("write_bad_rkey", dp_refusal, DP_REF_WRITE_BAD_RKEY),
	KT_CASE_ARG("write_imm_bad_rkey", dp_refusal,
		    DP_REF_WRITE_IMM_BAD_RKEY),
	KT_CASE_ARG("read_bad_rkey", dp_refusal, DP_REF_READ_BAD_RKEY),
	KT_CASE_ARG("atomic_bad_rkey", dp_refusal, DP_REF_ATOMIC_BAD_RKEY),
	KT_CASE_ARG("write_out_of_bounds", dp_refusal,
		    DP_REF_WRITE_OUT_OF_BOUNDS),
	KT_CASE_ARG("write_mr_without_remote_write", dp_refusal,
		    DP_REF_WRITE_MR_WITHOUT_REMOTE_WRITE),
	KT_CASE_ARG("read_without_responder_resources", dp_refusal,
		    DP_REF_READ_WITHOUT_RESPONDER_RESOURCES),
	KT_CASE_ARG("atomic_misaligned", dp_refusal, DP_REF_ATOMIC_MISALIGNED),
	KT_CASE_ARG("send_too_long", dp_refusal, DP_REF_SEND_TOO_LONG),
	KT_CASE_ARG("recv_bad_lkey", dp_refusal, DP_REF_RECV_BAD_LKEY),
	KT_CASE_ARG("rnr_retry_0", dp_refusal, DP_REF_RNR_RETRY_0),
	KT_CASE("uc_too_long_dropped", dp_uc_too_long),
	KT_CASE("uc_write_qp_without_remote_write_dropped",
		dp_uc_write_qp_refused),
	KT_CASE("uc_write_bad_rkey_dropped", dp_uc_write_rkey_refused),
	KT_CASE_ARG("rc_no_destination", dp_no_destination, IB_QPT_RC),
	KT_CASE("rc_destination_wrong_type", dp_destination_wrong_type),
	KT_CASE_ARG("uc_no_destination", dp_no_destination, IB_QPT_UC),
	KT_CASE("comm_est_in_rtr", dp_comm_est),
	KT_CASE("srq_limit_resize", dp_srq),
};

static int dp_setup(void)
{
	return kt_env_get(&env, dev, true);
}

static void dp_teardown(void)
{
	kt_env_put(&env);
}

static struct kt_suite dp_suite = {
	.name = "rvt_dp_test",
	.cases = dp_cases,
	.ncases = ARRAY_SIZE(dp_cases),
	.setup = dp_setup,
	.teardown = dp_teardown,
};

static int __init dp_init(void)
{
	return kt_suite_run(&dp_suite);
}
module_init(dp_init);

static void __exit dp_exit(void)
{
	kt_suite_exit(&dp_suite);
}
module_exit(dp_exit);
