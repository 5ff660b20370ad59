// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: modify and query: the attributes after each transition, the
 * mask query ignores, illegal moves that leave the QP as it was.
 */
#include "qp.h"

static bool check_init(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	if (qpt_query(qp, &a, &ia, IB_QP_STATE) || a.qp_state != IB_QPS_INIT ||
	    a.cur_qp_state != IB_QPS_INIT || a.port_num != 1 ||
	    a.pkey_index != 0 || ia.port_num != 1)
		return false;
	if (qp->qp_type == IB_QPT_UD)
		return a.qkey == 0x11111111;
	return a.qp_access_flags == (IB_ACCESS_REMOTE_WRITE |
				     IB_ACCESS_REMOTE_READ);
}

static bool check_rtr(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	if (qpt_query(qp, &a, &ia, 0) || a.qp_state != IB_QPS_RTR)
		return false;
	if (qp->qp_type == IB_QPT_UD)
		return true;
	if (rdma_ah_get_dlid(&a.ah_attr) != 1 ||
	    rdma_ah_get_sl(&a.ah_attr) != 3 ||
	    rdma_ah_get_port_num(&a.ah_attr) != 1 ||
	    a.path_mtu != IB_MTU_1024 || a.dest_qp_num != 0x123456 ||
	    a.rq_psn != 0xabcdef)
		return false;
	return qp->qp_type != IB_QPT_RC ||
	       (a.max_dest_rd_atomic == 4 && a.min_rnr_timer == 12);
}

static bool check_rts(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	if (qpt_query(qp, &a, &ia, 0) || a.qp_state != IB_QPS_RTS ||
	    a.sq_psn != 0x654321)
		return false;
	return qp->qp_type != IB_QPT_RC ||
	       (a.timeout == 14 && a.retry_cnt == 5 && a.rnr_retry == 6 &&
		a.max_rd_atomic == 3);
}

/* RESET -> INIT -> RTR -> RTS -> SQD -> RTS -> ERR -> RESET. */
static const char *walk_states(struct ib_qp *qp)
{
	if (qpt_to_init(qp, IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ) ||
	    !check_init(qp) || !qpt_lookup(qp->qp_num))
		return "INIT";
	if (qpt_to_rtr(qp) || !check_rtr(qp))
		return "RTR";
	if (qpt_to_rts(qp) || !check_rts(qp))
		return "RTS";
	if (kt_qp_to_state(qp, IB_QPS_SQD) || !qpt_check_state(qp, IB_QPS_SQD))
		return "SQD";
	if (kt_qp_to_state(qp, IB_QPS_RTS) || !check_rts(qp))
		return "SQD->RTS";
	if (kt_qp_to_state(qp, IB_QPS_ERR) || !qpt_check_state(qp, IB_QPS_ERR) ||
	    !qpt_lookup(qp->qp_num))
		return "ERR";
	if (kt_qp_to_state(qp, IB_QPS_RESET) || !qpt_check_state(qp, IB_QPS_RESET) ||
	    qpt_lookup(qp->qp_num))
		return "RESET";
	return NULL;
}

/* The table's line gives the QP type. */
void qp_transitions(struct kt_test *t)
{
	struct ib_qp *qp = qpt_qp(t->c->arg, 1, NULL);
	const char *failed;

	if (IS_ERR(qp)) {
		kt_result(t, false, "create: %ld", PTR_ERR(qp));
		return;
	}
	failed = walk_states(qp);
	kt_result(t, !failed, failed ? "at %s" : NULL, failed);
	ib_destroy_qp(qp);
}

void qp_attr_mask_ignored(struct kt_test *t)
{
	struct ib_qp_init_attr ia0, ia1;
	struct ib_qp_attr a0, a1;
	struct ib_qp *qp;
	int r0, r1;

	qp = qpt_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		kt_result(t, false, "create failed");
		return;
	}
	qpt_to_init(qp, IB_ACCESS_REMOTE_READ);
	r0 = qpt_query(qp, &a0, &ia0, 0);
	r1 = qpt_query(qp, &a1, &ia1, ~0);
	kt_result(t, r0 == 0 && r1 == 0 && !memcmp(&a0, &a1, sizeof(a0)) &&
		  !memcmp(&ia0, &ia1, sizeof(ia0)) &&
		  a0.qp_state == IB_QPS_INIT && ia0.recv_cq == env.cq,
		  "returns %d/%d", r0, r1);
	ib_destroy_qp(qp);
}

void qp_illegal_unchanged(struct kt_test *t)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a = { };
	struct ib_qp *qp;
	int bad_state, bad_cur, bad_port, bad_timeout;

	qp = qpt_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		kt_result(t, false, "create failed");
		return;
	}
	bad_state = kt_qp_to_state(qp, IB_QPS_RTS);	/* RESET -> RTS */
	qpt_to_init(qp, IB_ACCESS_REMOTE_READ);
	a.qp_state = IB_QPS_INIT;
	a.cur_qp_state = IB_QPS_RTR;
	bad_cur = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_CUR_STATE);
	/* The IB core trusts kernel callers' port numbers: go direct. */
	a.port_num = env.kt.ibdev->phys_port_cnt + 1;
	bad_port = env.kt.ibdev->ops.modify_qp(qp, &a, IB_QP_STATE | IB_QP_PORT,
					    NULL);
	qpt_to_rtr(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 32;
	a.sq_psn = 1;
	bad_timeout = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
				   IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				   IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
	kt_result(t, bad_state == -EINVAL && bad_cur == -EINVAL &&
		  bad_port == -EINVAL && bad_timeout == -EINVAL &&
		  check_rtr(qp) && !qpt_query(qp, &a, &ia, 0) && a.sq_psn == 0,
		  "%d %d %d %d", bad_state, bad_cur, bad_port, bad_timeout);
	ib_destroy_qp(qp);
}
