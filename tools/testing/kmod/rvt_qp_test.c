// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * In-kernel tests of rdmavt's QP core, run on an rvtsw device through the
 * kernel verbs and rdmavt's exported API.
 *
 * Loading the module runs every test once against the device named by
 * dev= and keeps the results, in KTAP, in
 * /sys/kernel/debug/rvt_qp_test/results until the module is removed.
 * The device's MAD layer owns QP0 and QP1 of every port; the tests
 * account for them.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <rdma/ib_hdrs.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Tests of rdmavt's QP core");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to test (default rvtsw_0)");

static unsigned int cycles = 100000;
module_param(cycles, uint, 0444);
MODULE_PARM_DESC(cycles, "QP create/destroy cycles of the QPN test");

#define RESULTS_SIZE (64 * 1024)
#define LIVE_WINDOW 32		/* QPs alive at once in the QPN test */
#define STABLE_QPS 48		/* QPs present throughout the iterator test */

/**
 * struct qpt_env - what every test works with
 * @ibdev: the device under test
 * @rdi: its rdmavt view
 * @pd: a kernel PD
 * @cq: a directly polled CQ, send and receive side of every test QP
 * @ntests: tests reported so far
 * @results: the KTAP text
 * @len: its length
 */
struct qpt_env {
	struct ib_device *ibdev;
	struct rvt_dev_info *rdi;
	struct ib_pd *pd;
	struct ib_cq *cq;
	unsigned int ntests;
	char *results;
	size_t len;
};

static struct qpt_env env;
static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

static __printf(3, 4) void report(bool ok, const char *name,
				  const char *fmt, ...)
{
	char diag[160] = "";
	va_list args;

	if (fmt) {
		va_start(args, fmt);
		vscnprintf(diag, sizeof(diag), fmt, args);
		va_end(args);
	}
	env.ntests++;
	env.len += scnprintf(env.results + env.len, RESULTS_SIZE - env.len,
			     "%sok %u %s%s%s\n", ok ? "" : "not ",
			     env.ntests, name, *diag ? " # " : "", diag);
	pr_info("rvt_qp_test: %sok %u %s %s\n", ok ? "" : "not ",
		env.ntests, name, diag);
}

/* ---- QP helpers ---------------------------------------------------- */

static void qpt_event(struct ib_event *ev, void *ctx)
{
	int *last = ctx;

	if (last)
		WRITE_ONCE(*last, ev->event);
}

static struct ib_qp *make_qp(enum ib_qp_type type, u32 port, void *ctx)
{
	struct ib_qp_init_attr ia = {
		.event_handler = qpt_event,
		.qp_context = ctx,
		.send_cq = env.cq,
		.recv_cq = env.cq,
		.cap = {
			.max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 2, .max_recv_sge = 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
		.port_num = port,
	};

	return ib_create_qp(env.pd, &ia);
}

static int to_init(struct ib_qp *qp, int access)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = access, .qkey = 0x11111111,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX;

	if (qp->qp_type == IB_QPT_UD)
		mask |= IB_QP_PORT | IB_QP_QKEY;
	else
		mask |= IB_QP_PORT | IB_QP_ACCESS_FLAGS;
	return ib_modify_qp(qp, &a, mask);
}

static void set_av(struct rdma_ah_attr *ah, u32 dlid, u8 sl)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(env.ibdev, 1);
	rdma_ah_set_dlid(ah, dlid);
	rdma_ah_set_sl(ah, sl);
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_static_rate(ah, IB_RATE_PORT_CURRENT);
}

static int to_rtr(struct ib_qp *qp, struct ib_qp_attr *a)
{
	int mask = IB_QP_STATE;

	a->qp_state = IB_QPS_RTR;
	if (qp->qp_type == IB_QPT_UD)
		return ib_modify_qp(qp, a, mask);
	set_av(&a->ah_attr, 1, 3);
	a->path_mtu = IB_MTU_1024;
	a->dest_qp_num = 0x123456;
	a->rq_psn = 0xabcdef;
	mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	if (qp->qp_type == IB_QPT_RC) {
		a->max_dest_rd_atomic = 4;
		a->min_rnr_timer = 12;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	return ib_modify_qp(qp, a, mask);
}

static int to_rts(struct ib_qp *qp, struct ib_qp_attr *a)
{
	int mask = IB_QP_STATE | IB_QP_SQ_PSN;

	a->qp_state = IB_QPS_RTS;
	a->sq_psn = 0x654321;
	if (qp->qp_type == IB_QPT_RC) {
		a->timeout = 14;
		a->retry_cnt = 5;
		a->rnr_retry = 6;
		a->max_rd_atomic = 3;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	return ib_modify_qp(qp, a, mask);
}

static int to_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

static int query(struct ib_qp *qp, struct ib_qp_attr *a,
		 struct ib_qp_init_attr *ia, int mask)
{
	memset(a, 0, sizeof(*a));
	memset(ia, 0, sizeof(*ia));
	return ib_query_qp(qp, a, mask, ia);
}

static bool qp_found(u32 qpn, u32 port)
	__must_hold(RCU)
{
	struct rvt_ibport *rvp = env.rdi->ports[port - 1];

	return rvt_lookup_qpn(env.rdi, rvp, qpn);
}

static bool lookup(u32 qpn)
{
	bool found;

	rcu_read_lock();
	found = qp_found(qpn, 1);
	rcu_read_unlock();
	return found;
}

/* ---- the exported tables ------------------------------------------- */

static void test_state_ops(void)
{
	bool ok = ib_rvt_state_ops[IB_QPS_RESET] == 0 &&
		  ib_rvt_state_ops[IB_QPS_INIT] == RVT_POST_RECV_OK &&
		  (ib_rvt_state_ops[IB_QPS_RTS] & RVT_PROCESS_NEXT_SEND_OK) &&
		  !(ib_rvt_state_ops[IB_QPS_SQD] & RVT_PROCESS_NEXT_SEND_OK) &&
		  (ib_rvt_state_ops[IB_QPS_SQE] & RVT_FLUSH_SEND) &&
		  (ib_rvt_state_ops[IB_QPS_ERR] & RVT_FLUSH_RECV) &&
		  (ib_rvt_state_ops[IB_QPS_ERR] & RVT_POST_SEND_OK);

	report(ok, "state_ops_table", NULL);
}

static void test_rnr_table(void)
{
	bool ok = rvt_rnr_tbl_to_usec(0) == 655360 &&
		  rvt_rnr_tbl_to_usec(1) == 10 &&
		  rvt_rnr_tbl_to_usec(14) == 1280 &&
		  rvt_rnr_tbl_to_usec(31) == 491520 &&
		  rvt_rnr_tbl_to_usec(32 + 1) == 10;

	report(ok, "rnr_tbl_to_usec", NULL);
}

/* ---- creation ------------------------------------------------------ */

static void test_create_types(void)
{
	static const enum ib_qp_type types[] = { IB_QPT_RC, IB_QPT_UC,
						 IB_QPT_UD };
	struct ib_qp *qps[ARRAY_SIZE(types)] = { };
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	bool ok = true;
	int i;

	for (i = 0; i < ARRAY_SIZE(types) && ok; i++) {
		qps[i] = make_qp(types[i], 1, NULL);
		if (IS_ERR(qps[i])) {
			report(false, "create_rc_uc_ud", "type %d: %ld",
			       types[i], PTR_ERR(qps[i]));
			qps[i] = NULL;
			ok = false;
			break;
		}
		ok = !query(qps[i], &a, &ia, 0) && a.qp_state == IB_QPS_RESET &&
		     ia.qp_type == types[i] && a.cap.max_send_wr == 4 &&
		     a.cap.max_recv_wr == 4 && a.cap.max_send_sge == 2 &&
		     a.cap.max_recv_sge == 2 && qps[i]->qp_num > 1 &&
		     ia.sq_sig_type == IB_SIGNAL_REQ_WR && !lookup(qps[i]->qp_num);
	}
	if (ok)
		ok = qps[0]->qp_num != qps[1]->qp_num &&
		     qps[1]->qp_num != qps[2]->qp_num &&
		     qps[0]->qp_num != qps[2]->qp_num;
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (qps[i])
			ib_destroy_qp(qps[i]);
	report(ok, "create_rc_uc_ud", NULL);
}

static void test_create_limits(void)
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
	qp = ib_create_qp(env.pd, &ia);
	e1 = PTR_ERR_OR_ZERO(qp);
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_sge = props->max_recv_sge + 1;
	qp = ib_create_qp(env.pd, &ia);
	e2 = PTR_ERR_OR_ZERO(qp);
	ia.cap.max_recv_sge = 0;
	ia.qp_type = IB_QPT_XRC_INI;
	qp = ib_create_qp(env.pd, &ia);
	e3 = PTR_ERR_OR_ZERO(qp);
	ia.qp_type = IB_QPT_RC;
	ia.create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	qp = ib_create_qp(env.pd, &ia);
	e4 = PTR_ERR_OR_ZERO(qp);
	report(e1 == -EINVAL && e2 == -EINVAL && e3 == -EOPNOTSUPP &&
	       e4 == -EOPNOTSUPP, "create_limits",
	       "wr %ld sge %ld xrc %ld flags %ld", e1, e2, e3, e4);
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
	found = qp_found(0, port);
	rcu_read_unlock();
	return found;
}

/* Create, look up and destroy QP0 of @port, twice. */
static const char *qp0_cycle(u32 port)
{
	struct ib_qp *qp, *second;
	int round;

	for (round = 0; round < 2; round++) {
		qp = make_qp(IB_QPT_SMI, port, NULL);
		if (IS_ERR(qp))
			return round ? "not released by destroy" : "create";
		second = make_qp(IB_QPT_SMI, port, NULL);
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
static void test_qp0_recreate(void)
{
	u32 port, nports = env.ibdev->phys_port_cnt;
	const char *failed = NULL;

	if (rdma_cap_ib_smi(env.ibdev, 1)) {
		report(true, "qp0_recreated_after_destroy",
		       "SKIP the MAD layer holds QP0 (load rvtsw with smi=0)");
		return;
	}
	for (port = 1; port <= nports && !failed; port++)
		failed = qp0_cycle(port);
	report(!failed, "qp0_recreated_after_destroy",
	       failed ? "port %u: %s" : NULL, port - 1, failed);
}

static void test_special_qps(void)
{
	u32 nports = env.ibdev->phys_port_cnt;
	long busy0, busy1, bad0, bad1;
	struct ib_qp *qp;

	if (!rdma_cap_ib_smi(env.ibdev, 1)) {
		report(true, "qp0_qp1_one_per_port",
		       "SKIP no MAD layer QP0 to collide with");
		return;
	}
	qp = make_qp(IB_QPT_SMI, 1, NULL);
	busy0 = PTR_ERR_OR_ZERO(qp);
	qp = make_qp(IB_QPT_GSI, nports, NULL);
	busy1 = PTR_ERR_OR_ZERO(qp);
	qp = make_qp(IB_QPT_GSI, 0, NULL);
	bad0 = PTR_ERR_OR_ZERO(qp);
	qp = make_qp(IB_QPT_SMI, nports + 1, NULL);
	bad1 = PTR_ERR_OR_ZERO(qp);
	/* -EINVAL for a taken QP0/QP1 too, as upstream answers. */
	report(busy0 == -EINVAL && busy1 == -EINVAL && bad0 == -EINVAL &&
	       bad1 == -EINVAL, "qp0_qp1_one_per_port",
	       "second QP0 %ld, second QP1 %ld, port 0 %ld, port %u %ld",
	       busy0, busy1, bad0, nports + 1, bad1);
}

/* ---- query after each transition ------------------------------------ */

static bool check_init(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	if (query(qp, &a, &ia, IB_QP_STATE) || a.qp_state != IB_QPS_INIT ||
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

	if (query(qp, &a, &ia, 0) || a.qp_state != IB_QPS_RTR)
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

	if (query(qp, &a, &ia, 0) || a.qp_state != IB_QPS_RTS ||
	    a.sq_psn != 0x654321)
		return false;
	return qp->qp_type != IB_QPT_RC ||
	       (a.timeout == 14 && a.retry_cnt == 5 && a.rnr_retry == 6 &&
		a.max_rd_atomic == 3);
}

static bool check_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	return !query(qp, &a, &ia, 0) && a.qp_state == state &&
	       a.cur_qp_state == state && !a.sq_draining;
}

/* RESET -> INIT -> RTR -> RTS -> SQD -> RTS -> ERR -> RESET. */
static const char *walk_states(struct ib_qp *qp)
{
	struct ib_qp_attr a = { };

	if (to_init(qp, IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ) ||
	    !check_init(qp) || !lookup(qp->qp_num))
		return "INIT";
	if (to_rtr(qp, &a) || !check_rtr(qp))
		return "RTR";
	memset(&a, 0, sizeof(a));
	if (to_rts(qp, &a) || !check_rts(qp))
		return "RTS";
	if (to_state(qp, IB_QPS_SQD) || !check_state(qp, IB_QPS_SQD))
		return "SQD";
	if (to_state(qp, IB_QPS_RTS) || !check_rts(qp))
		return "SQD->RTS";
	if (to_state(qp, IB_QPS_ERR) || !check_state(qp, IB_QPS_ERR) ||
	    !lookup(qp->qp_num))
		return "ERR";
	if (to_state(qp, IB_QPS_RESET) || !check_state(qp, IB_QPS_RESET) ||
	    lookup(qp->qp_num))
		return "RESET";
	return NULL;
}

static void test_transitions(void)
{
	static const enum ib_qp_type types[] = { IB_QPT_RC, IB_QPT_UC,
						 IB_QPT_UD };
	char name[32];
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct ib_qp *qp = make_qp(types[i], 1, NULL);
		const char *failed;

		snprintf(name, sizeof(name), "query_after_transitions_%s",
			 types[i] == IB_QPT_RC ? "rc" :
			 types[i] == IB_QPT_UC ? "uc" : "ud");
		if (IS_ERR(qp)) {
			report(false, name, "create: %ld", PTR_ERR(qp));
			continue;
		}
		failed = walk_states(qp);
		report(!failed, name, failed ? "at %s" : NULL, failed);
		ib_destroy_qp(qp);
	}
}

static void test_attr_mask_ignored(void)
{
	struct ib_qp_init_attr ia0, ia1;
	struct ib_qp_attr a0, a1;
	struct ib_qp *qp;
	int r0, r1;

	qp = make_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		report(false, "query_ignores_attr_mask", "create failed");
		return;
	}
	to_init(qp, IB_ACCESS_REMOTE_READ);
	r0 = query(qp, &a0, &ia0, 0);
	r1 = query(qp, &a1, &ia1, ~0);
	report(r0 == 0 && r1 == 0 && !memcmp(&a0, &a1, sizeof(a0)) &&
	       !memcmp(&ia0, &ia1, sizeof(ia0)) &&
	       a0.qp_state == IB_QPS_INIT && ia0.recv_cq == env.cq,
	       "query_ignores_attr_mask", "returns %d/%d", r0, r1);
	ib_destroy_qp(qp);
}

static void test_illegal_unchanged(void)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a = { };
	struct ib_qp *qp;
	int bad_state, bad_cur, bad_port, bad_timeout;

	qp = make_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		report(false, "illegal_modify_leaves_qp", "create failed");
		return;
	}
	bad_state = to_state(qp, IB_QPS_RTS);	/* RESET -> RTS */
	to_init(qp, IB_ACCESS_REMOTE_READ);
	a.qp_state = IB_QPS_INIT;
	a.cur_qp_state = IB_QPS_RTR;
	bad_cur = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_CUR_STATE);
	/* The IB core trusts kernel callers' port numbers: go direct. */
	a.port_num = env.ibdev->phys_port_cnt + 1;
	bad_port = env.ibdev->ops.modify_qp(qp, &a, IB_QP_STATE | IB_QP_PORT,
					    NULL);
	memset(&a, 0, sizeof(a));
	to_rtr(qp, &a);
	a.qp_state = IB_QPS_RTS;
	a.timeout = 32;
	a.sq_psn = 1;
	bad_timeout = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
				   IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				   IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
	report(bad_state == -EINVAL && bad_cur == -EINVAL &&
	       bad_port == -EINVAL && bad_timeout == -EINVAL &&
	       check_rtr(qp) && !query(qp, &a, &ia, 0) && a.sq_psn == 0,
	       "illegal_modify_leaves_qp", "%d %d %d %d", bad_state, bad_cur,
	       bad_port, bad_timeout);
	ib_destroy_qp(qp);
}

/* ---- receive queue flush --------------------------------------------- */

static int post_recvs(struct ib_qp *qp, int n)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = { };
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		wr.wr_id = 1000 + i;
		ret = ib_post_recv(qp, &wr, &bad);
	}
	return ret;
}

static int drain_cq(int want_status, int *bad)
{
	struct ib_wc wc[8];
	int n, i, total = 0;

	while ((n = ib_poll_cq(env.cq, ARRAY_SIZE(wc), wc)) > 0) {
		for (i = 0; i < n; i++)
			if (wc[i].status != want_status)
				(*bad)++;
		total += n;
	}
	return total;
}

static void test_error_flush(void)
{
	int bad = 0, reset_post, full, flushed, discarded, late;
	struct ib_qp *qp;

	qp = make_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		report(false, "error_flushes_rq", "create failed");
		return;
	}
	drain_cq(IB_WC_SUCCESS, &bad);
	reset_post = post_recvs(qp, 1);
	to_init(qp, 0);
	full = post_recvs(qp, 5);	/* 4 fit */
	to_state(qp, IB_QPS_ERR);
	flushed = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	post_recvs(qp, 1);		/* completed at once in ERR */
	late = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	to_state(qp, IB_QPS_RESET);
	to_init(qp, 0);
	post_recvs(qp, 3);
	to_state(qp, IB_QPS_RESET);	/* discards without completions */
	to_init(qp, 0);
	to_state(qp, IB_QPS_ERR);
	discarded = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	report(reset_post == -EINVAL && full == -ENOMEM && flushed == 4 &&
	       late == 1 && discarded == 0 && !bad, "error_flushes_rq",
	       "reset %d full %d flushed %d late %d discarded %d bad %d",
	       reset_post, full, flushed, late, discarded, bad);
	ib_destroy_qp(qp);
}

static void test_comm_est_rc_error(void)
{
	int last = -1, bad = 0, flushed;
	struct rvt_qp *rqp;
	struct ib_qp *qp;
	bool est;

	qp = make_qp(IB_QPT_RC, 1, &last);
	if (IS_ERR(qp)) {
		report(false, "comm_est_and_rc_error", "create failed");
		return;
	}
	rqp = ibqp_to_rvtqp(qp);
	to_init(qp, 0);
	post_recvs(qp, 2);
	rvt_comm_est(rqp);
	est = last == IB_EVENT_COMM_EST && (rqp->r_flags & RVT_R_COMM_EST);
	spin_lock_irq(&rqp->r_lock);
	rvt_rc_error(rqp, IB_WC_LOC_QP_OP_ERR);
	spin_unlock_irq(&rqp->r_lock);
	flushed = drain_cq(IB_WC_WR_FLUSH_ERR, &bad);
	report(est && check_state(qp, IB_QPS_ERR) && flushed == 2 && !bad,
	       "comm_est_and_rc_error", "event %d flushed %d", last, flushed);
	ib_destroy_qp(qp);
}

/* ---- MR deregistration ----------------------------------------------- */

/* A registered fast-registration MR over the mapped page @sg. */
static struct ib_mr *frmr(struct rvt_qp *qp, struct scatterlist *sg)
{
	struct ib_mr *mr;

	mr = ib_alloc_mr(env.pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr))
		return mr;
	if (ib_map_mr_sg(mr, sg, 1, NULL, PAGE_SIZE) != 1 ||
	    rvt_fast_reg_mr(qp, mr, mr->rkey, IB_ACCESS_LOCAL_WRITE)) {
		ib_dereg_mr(mr);
		return ERR_PTR(-EINVAL);
	}
	return mr;
}

/* As the receive path does: validate an SGE into the QP's r_sge. */
static bool hold_in_r_sge(struct rvt_qp *qp, struct ib_mr *mr)
{
	struct ib_sge isge = {
		.addr = mr->iova, .length = 64, .lkey = mr->lkey,
	};
	int ret;

	spin_lock_irq(&qp->r_lock);
	qp->r_sge.sg_list = qp->r_sg_list;
	ret = rvt_lkey_ok(&env.rdi->lkey_table, ibpd_to_rvtpd(env.pd),
			  &qp->r_sge.sge, NULL, &isge, IB_ACCESS_LOCAL_WRITE);
	qp->r_sge.num_sge = ret == 1;
	spin_unlock_irq(&qp->r_lock);
	return ret == 1;
}

/* Deregister an MR @user holds; report what happened to both QPs. */
static void dereg_held_mr(struct ib_qp *user, struct ib_qp *bystander,
			  struct scatterlist *sg)
{
	struct rvt_qp *rqp = ibqp_to_rvtqp(user);
	unsigned long start;
	struct ib_mr *mr;
	bool held;
	int ret;

	mr = frmr(rqp, sg);
	if (IS_ERR(mr)) {
		report(false, "mr_dereg_cleans_qps", "MR: %ld", PTR_ERR(mr));
		return;
	}
	held = hold_in_r_sge(rqp, mr);
	start = jiffies;
	ret = ib_dereg_mr(mr);
	if (ret) {	/* not cleaned: let go ourselves, then free it */
		spin_lock_irq(&rqp->r_lock);
		rvt_put_ss(&rqp->r_sge);
		spin_unlock_irq(&rqp->r_lock);
		ib_dereg_mr(mr);
	}
	report(held && !ret && check_state(user, IB_QPS_ERR) &&
	       check_state(bystander, IB_QPS_INIT) && !rqp->r_sge.num_sge,
	       "mr_dereg_cleans_qps", "held %d, dereg %d after %u ms", held,
	       ret, jiffies_to_msecs(jiffies - start));
}

/*
 * Deregistering an MR that a QP still uses moves that QP (only) to ERR,
 * which drops the reference, instead of waiting for it in vain.
 */
static void test_dereg_cleans_qps(void)
{
	struct ib_qp *user, *bystander;
	struct ib_qp_attr a = { };
	struct scatterlist sg;
	void *buf;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	user = make_qp(IB_QPT_RC, 1, NULL);
	bystander = make_qp(IB_QPT_RC, 1, NULL);
	if (!buf || IS_ERR(user) || IS_ERR(bystander)) {
		report(false, "mr_dereg_cleans_qps", "setup failed");
		goto out;
	}
	to_init(user, 0);
	to_rtr(user, &a);
	to_init(bystander, 0);
	sg_init_one(&sg, buf, PAGE_SIZE);
	if (ib_dma_map_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL) != 1) {
		report(false, "mr_dereg_cleans_qps", "DMA mapping failed");
		goto out;
	}
	dereg_held_mr(user, bystander, &sg);
	ib_dma_unmap_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL);
out:
	if (!IS_ERR(user))
		ib_destroy_qp(user);
	if (!IS_ERR(bystander))
		ib_destroy_qp(bystander);
	kfree(buf);
}

/* ---- timers ---------------------------------------------------------- */

static bool wait_flag_clear(struct rvt_qp *qp, u32 flag, unsigned int ms)
{
	while (ms--) {
		if (!(READ_ONCE(qp->s_flags) & flag))
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

static void test_timers(void)
{
	struct rvt_ibport *rvp = env.rdi->ports[0];
	struct ib_qp_attr a = { };
	bool armed, stopped, rnr, retry;
	u64 timeouts;
	struct rvt_qp *rqp;
	struct ib_qp *qp;

	qp = make_qp(IB_QPT_RC, 1, NULL);
	if (IS_ERR(qp)) {
		report(false, "rc_timers", "create failed");
		return;
	}
	rqp = ibqp_to_rvtqp(qp);
	to_init(qp, 0);
	to_rtr(qp, &a);
	memset(&a, 0, sizeof(a));
	to_rts(qp, &a);		/* timeout 14: the retry timer takes ~70 ms */

	spin_lock_irq(&rqp->s_lock);
	rvt_add_retry_timer_ext(rqp, 10);	/* long: we stop it */
	armed = (rqp->s_flags & RVT_S_TIMER) && timer_pending(&rqp->s_timer);
	rvt_stop_rc_timers(rqp);
	stopped = !(rqp->s_flags & RVT_S_TIMER) &&
		  !timer_pending(&rqp->s_timer);
	rvt_add_rnr_timer(rqp, 1 << IB_AETH_CREDIT_SHIFT);	/* 10 us */
	spin_unlock_irq(&rqp->s_lock);
	rnr = wait_flag_clear(rqp, RVT_S_WAIT_RNR, 1000);

	timeouts = rvp->n_rc_timeouts;
	spin_lock_irq(&rqp->s_lock);
	rvt_add_retry_timer(rqp);
	spin_unlock_irq(&rqp->s_lock);
	retry = wait_flag_clear(rqp, RVT_S_TIMER, 2000) &&
		rvp->n_rc_timeouts == timeouts + 1;
	rvt_del_timers_sync(rqp);
	report(armed && stopped && rnr && retry, "rc_timers",
	       "armed %d stopped %d rnr fired %d retry fired %d", armed,
	       stopped, rnr, retry);
	ib_destroy_qp(qp);
}

/* ---- multicast -------------------------------------------------------- */

#define QPT_MLID 0xc0de

/*
 * What a driver's receive path does: rvt_mcast_find() in softirq, then
 * the reference dropped as rdma_vt.h's protocol has it.
 */
struct qpt_mcast_probe {
	struct timer_list timer;
	struct completion done;
	struct rvt_ibport *rvp;
	union ib_gid mgid;
	int members;	/* QPs in the group found, or -1: none found */
	bool in_softirq;
};

static void qpt_mcast_probe_fn(struct timer_list *t)
{
	struct qpt_mcast_probe *pr = from_timer(pr, t, timer);
	struct rvt_mcast *mc;

	pr->in_softirq = in_serving_softirq();
	mc = rvt_mcast_find(pr->rvp, &pr->mgid, QPT_MLID);
	pr->members = mc ? mc->n_attached : -1;
	if (mc && atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
	complete(&pr->done);
}

static int qpt_mcast_probe(struct qpt_mcast_probe *pr)
{
	init_completion(&pr->done);
	timer_setup_on_stack(&pr->timer, qpt_mcast_probe_fn, 0);
	mod_timer(&pr->timer, jiffies + 1);
	wait_for_completion(&pr->done);
	del_timer_sync(&pr->timer);
	destroy_timer_on_stack(&pr->timer);
	return pr->members;
}

/*
 * A group found from softirq, as drivers' receive paths find it, then
 * left by its last QP. The port lock is softirq-safe and the device's
 * group count nests in it: on a lockdep kernel the detach of the last
 * QP (which uncounts the group) must take that count's lock with
 * interrupts off, or lockdep reports an inversion here.
 */
static void test_mcast_find_in_softirq(void)
{
	struct qpt_mcast_probe pr = { .rvp = env.rdi->ports[0] };
	int attach, detach, before, after;
	struct ib_qp *qp;

	pr.mgid.raw[0] = 0xff;
	pr.mgid.raw[1] = 0x12;
	pr.mgid.raw[15] = 0x51;
	qp = make_qp(IB_QPT_UD, 1, NULL);
	if (IS_ERR(qp)) {
		report(false, "mcast_find_in_softirq", "create failed");
		return;
	}
	to_init(qp, 0);
	attach = ib_attach_mcast(qp, &pr.mgid, QPT_MLID);
	before = qpt_mcast_probe(&pr);
	detach = ib_detach_mcast(qp, &pr.mgid, QPT_MLID);
	after = qpt_mcast_probe(&pr);
	report(!attach && before == 1 && !detach && after == -1 &&
	       pr.in_softirq, "mcast_find_in_softirq",
	       "attach %d members %d detach %d then %d softirq %d", attach,
	       before, detach, after, pr.in_softirq);
	ib_destroy_qp(qp);
}

/* ---- iteration -------------------------------------------------------- */

/* The MAD layer's QPs: QP1 on every port, QP0 where there is an SMI. */
static u32 mad_qps(void)
{
	u32 port, n = 0;

	rdma_for_each_port(env.ibdev, port)
		n += rdma_cap_ib_smi(env.ibdev, port) ? 2 : 1;
	return n;
}

/* Shared with the callbacks: one iteration at a time. */
static struct {
	unsigned long *seen;	/* bitmap over the QPN space */
	unsigned int visits, matches, dups, specials, sleeps;
	unsigned int churned;	/* QPs the churn thread created meanwhile */
	bool sleep;
} it;

static void count_cb(struct rvt_qp *qp, u64 v)
{
	u32 qpn = qp->ibqp.qp_num;

	it.visits++;
	if (qp->ibqp.qp_type == (enum ib_qp_type)v)
		it.matches++;
	/* QP0/QP1 of every port share numbers: key them by port too. */
	if (qpn <= 1) {
		qpn = RVT_QPN_MAX - 2 * qp->port_num + qpn;
		it.specials++;
	}
	if (test_and_set_bit(qpn, it.seen))
		it.dups++;
	if (it.sleep) {
		might_sleep();
		usleep_range(3000, 4000);	/* long enough for churn */
		it.sleeps++;
	}
}

static void reset_it(bool sleep)
{
	bitmap_zero(it.seen, RVT_QPN_MAX);
	it.visits = 0;
	it.matches = 0;
	it.dups = 0;
	it.specials = 0;
	it.sleeps = 0;
	it.churned = 0;
	it.sleep = sleep;
}

static int churn_fn(void *unused)
{
	while (!kthread_should_stop()) {
		struct ib_qp *qp = make_qp(IB_QPT_UD, 1, NULL);

		if (IS_ERR(qp))
			break;
		to_init(qp, 0);
		WRITE_ONCE(it.churned, it.churned + 1);
		if (it.churned & 1)	/* half leave the table by a reset */
			to_state(qp, IB_QPS_RESET);
		ib_destroy_qp(qp);
		cond_resched();
	}
	return 0;
}

static bool all_seen(struct ib_qp **qps, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!test_bit(qps[i]->qp_num, it.seen))
			return false;
	return true;
}

static void iterate_checks(struct ib_qp **qps, int nud)
{
	u32 specials = mad_qps();
	struct task_struct *churn;
	bool ok;

	reset_it(false);
	rvt_qp_iter(env.rdi, IB_QPT_UD, count_cb);
	ok = it.matches == nud && it.visits == STABLE_QPS + specials &&
	     it.specials == specials && !it.dups && all_seen(qps, STABLE_QPS);
	report(ok, "iter_filter_by_v", "visits %u UD %u/%d specials %u dups %u",
	       it.visits, it.matches, nud, it.specials, it.dups);

	reset_it(true);
	churn = kthread_run(churn_fn, NULL, "rvt_qp_churn");
	rvt_qp_iter(env.rdi, IB_QPT_RC, count_cb);
	if (!IS_ERR(churn))
		kthread_stop(churn);
	ok = !IS_ERR(churn) && it.sleeps == it.visits && it.churned &&
	     it.matches == STABLE_QPS - nud && it.specials == specials &&
	     !it.dups && all_seen(qps, STABLE_QPS);
	report(ok, "iter_sleeping_cb_with_churn",
	       "visits %u RC %u specials %u dups %u, %u QPs churned meanwhile",
	       it.visits, it.matches, it.specials, it.dups, it.churned);
}

static void test_iteration(void)
{
	struct ib_qp *qps[STABLE_QPS] = { };
	int i, nud = 0;

	it.seen = vzalloc(BITS_TO_LONGS(RVT_QPN_MAX) * sizeof(long));
	if (!it.seen) {
		report(false, "iter_filter_by_v", "no memory");
		return;
	}
	for (i = 0; i < STABLE_QPS; i++) {
		enum ib_qp_type type = i % 3 ? IB_QPT_RC : IB_QPT_UD;

		qps[i] = make_qp(type, 1, NULL);
		if (IS_ERR(qps[i]) || to_init(qps[i], 0)) {
			report(false, "iter_filter_by_v", "QP %d failed", i);
			qps[i] = IS_ERR(qps[i]) ? NULL : qps[i];
			goto out;
		}
		nud += type == IB_QPT_UD;
	}
	iterate_checks(qps, nud);
out:
	for (i = 0; i < STABLE_QPS; i++)
		if (qps[i])
			ib_destroy_qp(qps[i]);
	vfree(it.seen);
}

/* The iterator's own interface, as a seq_file uses it. */
static void test_iter_next(void)
{
	u32 nports = env.ibdev->phys_port_cnt;
	struct rvt_qp_iter *iter;
	unsigned int n = 0, specials = 0;
	int last_n = -1;
	bool ordered = true;

	iter = rvt_qp_iter_init(env.rdi, 0, NULL);
	if (!iter) {
		report(false, "iter_next_specials", "no memory");
		return;
	}
	rcu_read_lock();
	while (!rvt_qp_iter_next(iter)) {
		ordered &= iter->n >= last_n;
		last_n = iter->n;
		if (iter->qp->ibqp.qp_num <= 1) {
			/* slot 2 * port index + QPN */
			ordered &= iter->n == 2 * (iter->qp->port_num - 1) +
					      iter->qp->ibqp.qp_num;
			specials++;
		}
		n++;
	}
	rcu_read_unlock();
	kfree(iter);
	report(ordered && specials == mad_qps() && n == specials,
	       "iter_next_specials", "%u QPs, %u special, %u ports", n,
	       specials, nports);
}

/* ---- QP numbers ------------------------------------------------------- */

static bool lookup_cycle(void)
{
	struct ib_qp *qp = make_qp(IB_QPT_UC, 1, NULL);
	u32 qpn;
	bool ok;

	if (IS_ERR(qp))
		return false;
	qpn = qp->qp_num;
	ok = !lookup(qpn) && !to_init(qp, 0) && lookup(qpn);
	ib_destroy_qp(qp);
	return ok && !lookup(qpn);
}

static void test_qpn_unique(void)
{
	struct ib_qp *live[LIVE_WINDOW] = { };
	unsigned long *used, start = jiffies;
	unsigned int i, dup = 0, reuse = 0, lookups = 0;
	u32 last_freed = 0;
	long err = 0;

	used = vzalloc(BITS_TO_LONGS(RVT_QPN_MAX) * sizeof(long));
	if (!used) {
		report(false, "qpn_unique_over_cycles", "no memory");
		return;
	}
	for (i = 0; i < cycles && !err; i++) {
		unsigned int slot = i % LIVE_WINDOW;
		struct ib_qp *qp;

		if (live[slot]) {
			last_freed = live[slot]->qp_num;
			clear_bit(last_freed, used);
			ib_destroy_qp(live[slot]);
			live[slot] = NULL;
		}
		qp = make_qp(i & 1 ? IB_QPT_RC : IB_QPT_UD, 1, NULL);
		if (IS_ERR(qp)) {
			err = PTR_ERR(qp);
			break;
		}
		live[slot] = qp;
		dup += test_and_set_bit(qp->qp_num, used);
		reuse += qp->qp_num == last_freed;
		if (i % 4096 == 0)
			lookups += !lookup_cycle();
	}
	for (i = 0; i < LIVE_WINDOW; i++)
		if (live[i])
			ib_destroy_qp(live[i]);
	vfree(used);
	report(!err && !dup && !reuse && !lookups, "qpn_unique_over_cycles",
	       "%u cycles in %u ms: error %ld, duplicates %u, immediate reuse %u, lookup failures %u",
	       cycles, jiffies_to_msecs(jiffies - start), err, dup, reuse,
	       lookups);
}

/* ---- setup ------------------------------------------------------------ */

static void run_tests(void)
{
	test_state_ops();
	test_rnr_table();
	test_create_types();
	test_create_limits();
	test_special_qps();
	test_qp0_recreate();
	test_transitions();
	test_attr_mask_ignored();
	test_illegal_unchanged();
	test_error_flush();
	test_comm_est_rc_error();
	test_dereg_cleans_qps();
	test_timers();
	test_mcast_find_in_softirq();
	test_iter_next();
	test_iteration();
	test_qpn_unique();
}

static int setup_env(void)
{
	env.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_QIB);
	if (!env.ibdev) {
		pr_err("rvt_qp_test: no device %s\n", dev);
		return -ENODEV;
	}
	env.rdi = ib_to_rvt(env.ibdev);
	env.pd = ib_alloc_pd(env.ibdev, 0);
	if (IS_ERR(env.pd))
		goto put_dev;
	env.cq = ib_alloc_cq(env.ibdev, NULL, 256, 0, IB_POLL_DIRECT);
	if (IS_ERR(env.cq))
		goto free_pd;
	return 0;

free_pd:
	ib_dealloc_pd(env.pd);
put_dev:
	ib_device_put(env.ibdev);
	pr_err("rvt_qp_test: cannot set up PD and CQ on %s\n", dev);
	return -EIO;
}

static void teardown_env(void)
{
	ib_free_cq(env.cq);
	ib_dealloc_pd(env.pd);
	ib_device_put(env.ibdev);
}

static int __init rvt_qp_test_init(void)
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
	teardown_env();

	results_blob.data = env.results;
	results_blob.size = env.len;
	debugfs_dir = debugfs_create_dir("rvt_qp_test", NULL);
	debugfs_create_blob("results", 0444, debugfs_dir, &results_blob);
	return 0;
}
module_init(rvt_qp_test_init);

static void __exit rvt_qp_test_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	kvfree(env.results);
}
module_exit(rvt_qp_test_exit);
