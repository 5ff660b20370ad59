// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: creating QPs: types, limits, and QP0/QP1 of each port, which
 * the MAD layer may hold.
 */
#include "qp.h"

void qp_create_types(struct kt_test *t)
{
	static const enum ib_qp_type types[] = { IB_QPT_RC, IB_QPT_UC,
						 IB_QPT_UD };
	struct ib_qp *qps[ARRAY_SIZE(types)] = { };
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	long err = 0;
	bool ok = true;
	int i;

	for (i = 0; i < ARRAY_SIZE(types) && ok; i++) {
		qps[i] = qpt_qp(types[i], 1, NULL);
		if (IS_ERR(qps[i])) {
			err = PTR_ERR(qps[i]);
			qps[i] = NULL;
			ok = false;
			break;
		}
		ok = !qpt_query(qps[i], &a, &ia, 0) && a.qp_state == IB_QPS_RESET &&
		     ia.qp_type == types[i] && a.cap.max_send_wr == 4 &&
		     a.cap.max_recv_wr == 4 && a.cap.max_send_sge == 2 &&
		     a.cap.max_recv_sge == 2 && qps[i]->qp_num > 1 &&
		     ia.sq_sig_type == IB_SIGNAL_REQ_WR && !qpt_lookup(qps[i]->qp_num);
	}
	if (ok)
		ok = qps[0]->qp_num != qps[1]->qp_num &&
		     qps[1]->qp_num != qps[2]->qp_num &&
		     qps[0]->qp_num != qps[2]->qp_num;
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (qps[i])
			ib_destroy_qp(qps[i]);
	kt_result(t, ok, err ? "create: %ld" : NULL, err);
}

void qp_create_limits(struct kt_test *t)
{
	const struct ib_device_attr *props = &env.rdi->dparms.props;
	struct ib_qp_init_attr ia = {
		.send_cq = env.cq, .recv_cq = env.cq, .qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1 },
	};
	struct ib_qp *qp;
	long e1, e2, e3, e4;

	ia.cap.max_send_wr = props->max_qp_wr + 1;
	qp = ib_create_qp(env.kt.pd, &ia);
	e1 = PTR_ERR_OR_ZERO(qp);
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_sge = props->max_recv_sge + 1;
	qp = ib_create_qp(env.kt.pd, &ia);
	e2 = PTR_ERR_OR_ZERO(qp);
	ia.cap.max_recv_sge = 0;
	ia.qp_type = IB_QPT_XRC_INI;
	qp = ib_create_qp(env.kt.pd, &ia);
	e3 = PTR_ERR_OR_ZERO(qp);
	ia.qp_type = IB_QPT_RC;
	ia.create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	qp = ib_create_qp(env.kt.pd, &ia);
	e4 = PTR_ERR_OR_ZERO(qp);
	kt_result(t, e1 == -EINVAL && e2 == -EINVAL && e3 == -EOPNOTSUPP &&
		  e4 == -EOPNOTSUPP, "wr %ld sge %ld xrc %ld flags %ld", e1, e2,
		  e3, e4);
}

static bool smi_to_init(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .qkey = 0,
	};

	return !ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			     IB_QP_QKEY);
}

static bool qp0_found(u32 port)
{
	bool found;

	rcu_read_lock();
	found = qpt_found(0, port);
	rcu_read_unlock();
	return found;
}

/* Create, look up and destroy QP0 of @port, twice. */
static const char *qp0_cycle(u32 port)
{
	struct ib_qp *qp, *second;
	int round;

	for (round = 0; round < 2; round++) {
		qp = qpt_qp(IB_QPT_SMI, port, NULL);
		if (IS_ERR(qp))
			return round ? "not released by destroy" : "create";
		second = qpt_qp(IB_QPT_SMI, port, NULL);
		if (PTR_ERR_OR_ZERO(second) != -EINVAL) {
			if (!IS_ERR(second))
				ib_destroy_qp(second);
			ib_destroy_qp(qp);
			return "second QP0 not refused";
		}
		if (qp->qp_num != 0 || qp0_found(port) || !smi_to_init(qp) ||
		    !qp0_found(port)) {
			ib_destroy_qp(qp);
			return "number or lookup";
		}
		ib_destroy_qp(qp);
		if (qp0_found(port))
			return "found after destroy";
	}
	return NULL;
}

/* Without an SMI the MAD layer leaves QP0 alone: ours to create. */
void qp_qp0_recreate(struct kt_test *t)
{
	u32 port, nports = env.kt.ibdev->phys_port_cnt;
	const char *failed = NULL;

	if (rdma_cap_ib_smi(env.kt.ibdev, 1)) {
		kt_skip(t, "the MAD layer holds QP0 (load rvtsw with smi=0)");
		return;
	}
	for (port = 1; port <= nports && !failed; port++)
		failed = qp0_cycle(port);
	kt_result(t, !failed, failed ? "port %u: %s" : NULL, port - 1, failed);
}

void qp_special_qps(struct kt_test *t)
{
	u32 nports = env.kt.ibdev->phys_port_cnt;
	long busy0, busy1, bad0, bad1;
	struct ib_qp *qp;

	if (!rdma_cap_ib_smi(env.kt.ibdev, 1)) {
		kt_skip(t, "no MAD layer QP0 to collide with");
		return;
	}
	qp = qpt_qp(IB_QPT_SMI, 1, NULL);
	busy0 = PTR_ERR_OR_ZERO(qp);
	qp = qpt_qp(IB_QPT_GSI, nports, NULL);
	busy1 = PTR_ERR_OR_ZERO(qp);
	qp = qpt_qp(IB_QPT_GSI, 0, NULL);
	bad0 = PTR_ERR_OR_ZERO(qp);
	qp = qpt_qp(IB_QPT_SMI, nports + 1, NULL);
	bad1 = PTR_ERR_OR_ZERO(qp);
	/* -EINVAL for a taken QP0/QP1 too, as upstream answers. */
	kt_result(t, busy0 == -EINVAL && busy1 == -EINVAL && bad0 == -EINVAL &&
		  bad1 == -EINVAL,
		  "second QP0 %ld, second QP1 %ld, port 0 %ld, port %u %ld",
		  busy0, busy1, bad0, nports + 1, bad1);
}
