// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test's helpers: QPs on the test CQ, the ladder with the
 * attributes the tests check (qp_modify.c), queries and lookups.
 */
#include "qp.h"

/* What every test works with; qp_main.c sets it up before the first. */
struct qpt_env env;

/* What the ladder sets; qp_modify.c checks that a query gives it back. */
static const struct kt_path qpt_path = {
	.qkey = 0x11111111, .dlid = 1, .sl = 3, .dest_qpn = 0x123456,
	.mtu = IB_MTU_1024, .rq_psn = 0xabcdef, .sq_psn = 0x654321,
	.max_dest_rd_atomic = 4, .min_rnr_timer = 12, .timeout = 14,
	.retry_cnt = 5, .rnr_retry = 6, .max_rd_atomic = 3,
};

/* A QP of @type on the test CQ, 4 requests of 2 SGEs each way. */
struct ib_qp *qpt_qp(enum ib_qp_type type, u32 port, int *event)
{
	const struct kt_qp_spec s = {
		.type = type, .cq = env.cq, .port = port, .send_wr = 4,
		.recv_wr = 4, .sge = 2, .event = event,
	};

	return kt_qp_create(env.kt.pd, &s);
}

int qpt_to_init(struct ib_qp *qp, int access)
{
	struct kt_path p = qpt_path;

	p.access = access;
	return kt_qp_to_init(qp, &p);
}

int qpt_to_rtr(struct ib_qp *qp)
{
	return kt_qp_to_rtr(qp, &qpt_path);
}

int qpt_to_rts(struct ib_qp *qp)
{
	return kt_qp_to_rts(qp, &qpt_path);
}

int qpt_query(struct ib_qp *qp, struct ib_qp_attr *a,
	      struct ib_qp_init_attr *ia, int mask)
{
	memset(a, 0, sizeof(*a));
	memset(ia, 0, sizeof(*ia));
	return ib_query_qp(qp, a, mask, ia);
}

bool qpt_found(u32 qpn, u32 port)
	__must_hold(RCU)
{
	struct rvt_ibport *rvp = env.rdi->ports[port - 1];

	return rvt_lookup_qpn(env.rdi, rvp, qpn);
}

bool qpt_lookup(u32 qpn)
{
	bool found;

	rcu_read_lock();
	found = qpt_found(qpn, 1);
	rcu_read_unlock();
	return found;
}

/* In @state, settled: no transition in progress, no draining. */
bool qpt_check_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	return !qpt_query(qp, &a, &ia, 0) && a.qp_state == state &&
	       a.cur_qp_state == state && !a.sq_draining;
}
