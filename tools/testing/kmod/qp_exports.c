// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: the tables rdmavt exports: QP state operations and the RNR
 * timer codes.
 */
#include "qp.h"

void qp_state_ops(struct kt_test *t)
{
	bool ok = ib_rvt_state_ops[IB_QPS_RESET] == 0 &&
		  ib_rvt_state_ops[IB_QPS_INIT] == RVT_POST_RECV_OK &&
		  (ib_rvt_state_ops[IB_QPS_RTS] & RVT_PROCESS_NEXT_SEND_OK) &&
		  !(ib_rvt_state_ops[IB_QPS_SQD] & RVT_PROCESS_NEXT_SEND_OK) &&
		  (ib_rvt_state_ops[IB_QPS_SQE] & RVT_FLUSH_SEND) &&
		  (ib_rvt_state_ops[IB_QPS_ERR] & RVT_FLUSH_RECV) &&
		  (ib_rvt_state_ops[IB_QPS_ERR] & RVT_POST_SEND_OK);

	kt_result(t, ok, NULL);
}

void qp_rnr_table(struct kt_test *t)
{
	bool ok = rvt_rnr_tbl_to_usec(0) == 655360 &&
		  rvt_rnr_tbl_to_usec(1) == 10 &&
		  rvt_rnr_tbl_to_usec(14) == 1280 &&
		  rvt_rnr_tbl_to_usec(31) == 491520 &&
		  rvt_rnr_tbl_to_usec(32 + 1) == 10;

	kt_result(t, ok, NULL);
}
