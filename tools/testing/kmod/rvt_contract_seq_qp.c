// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Sequences on QPs as objects: every type on every port created,
 * destroyed and created again (SMI and GSI too: in the main round the MAD
 * layer holds them, in the nosmi round QP0 is the script's), refused
 * creations, every state transition with the attributes it needs, invalid
 * attribute values, query_qp, the QP table with qp_table_size values that
 * are not powers of 2, and the QP iterators.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include "rvt_contract.h"

/**
 * ct_query_qp - ib_query_qp(), everything logged
 * @qp: the QP
 *
 * Context: the script.
 */
void ct_query_qp(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia = {};
	struct ib_qp_attr a = {};
	int ret;

	ret = ib_query_qp(qp, &a, IB_QP_STATE, &ia);
	ct_log("query %s -> %d state=%s cur=%s mtu=%d mig=%d qkey=%#x rq_psn=%#x",
	       ct_ibqp_label(qp), ret, ct_state_name(a.qp_state),
	       ct_state_name(a.cur_qp_state), a.path_mtu, a.path_mig_state,
	       a.qkey, a.rq_psn);
	ct_log("  sq_psn=%#x dqpn=%#x access=%#x cap(%u %u %u %u %u) pkey=%u/%u",
	       a.sq_psn, a.dest_qp_num, a.qp_access_flags, a.cap.max_send_wr,
	       a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	       a.cap.max_inline_data, a.pkey_index, a.alt_pkey_index);
	ct_log("  sqd=%u rd_atomic=%u/%u rnr=%u port=%u timeout=%u retry=%u rnr_retry=%u",
	       a.sq_draining, a.max_rd_atomic, a.max_dest_rd_atomic,
	       a.min_rnr_timer, a.port_num, a.timeout, a.retry_cnt,
	       a.rnr_retry);
	ct_log("  alt_port=%u alt_timeout=%u dlid=%#x sl=%u sig=%d type=%d init_port=%u",
	       a.alt_port_num, a.alt_timeout, rdma_ah_get_dlid(&a.ah_attr),
	       rdma_ah_get_sl(&a.ah_attr), ia.sq_sig_type, ia.qp_type,
	       ia.port_num);
}

/* ---- types, creation and destruction -------------------------------- */

static const char *ct_tname(enum ib_qp_type t)
{
	return t == IB_QPT_RC ? "rc" : t == IB_QPT_UC ? "uc" :
	       t == IB_QPT_UD ? "ud" : t == IB_QPT_SMI ? "smi" : "gsi";
}

static void ct_type_cycle(enum ib_qp_type type, u32 port)
{
	char label[CT_LABEL_LEN];
	struct ib_qp *qp;

	ct_step("qp_types.%s_p%u", ct_tname(type), port);
	snprintf(label, sizeof(label), "%s%u", ct_tname(type), port);
	qp = ct_create_qp(label, type, port, NULL, 4, 4);
	if (qp) {
		ct_query_qp(qp);
		ct_end_step();
		ct_step("qp_types.%s_p%u_destroy", ct_tname(type), port);
		ct_destroy_qp(qp);
	}
	ct_end_step();
	ct_step("qp_types.%s_p%u_again", ct_tname(type), port);
	snprintf(label, sizeof(label), "%s%ub", ct_tname(type), port);
	qp = ct_create_qp(label, type, port, NULL, 4, 4);
	if (qp && (type == IB_QPT_UD || type == IB_QPT_RC ||
		   type == IB_QPT_UC)) {
		ct_to_rts(qp, port, CT_BASE_LID + port - 1, 0x55);
		ct_query_qp(qp);
	}
	ct_end_step();
	ct_step("qp_types.%s_p%u_destroy_again", ct_tname(type), port);
	ct_destroy_qp(qp);
	ct_end_step();
}

static void ct_create_refused(const char *name, struct ib_qp_init_attr *ia)
{
	struct ib_qp *qp;

	ct_step("qp_create.%s", name);
	qp = ct_create_qp_ia(name, ia);
	if (qp) {
		ct_query_qp(qp);
		ct_destroy_qp(qp);
	}
	ct_end_step();
}

/* Init attributes of a small QP, to be spoiled by one field. */
static struct ib_qp_init_attr ct_ia(enum ib_qp_type type, u32 port)
{
	struct ib_qp_init_attr ia = {
		.qp_type = type, .port_num = port,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ia;
}

static void ct_creates(void)
{
	struct ib_qp_init_attr ia;

	ia = ct_ia(IB_QPT_RC, 1);
	ia.cap.max_send_sge = 0x61;
	ct_create_refused("too_many_sge", &ia);
	ia = ct_ia(IB_QPT_RC, 1);
	ia.cap.max_send_wr = 0x4000;
	ct_create_refused("too_many_wr", &ia);
	ia = ct_ia(IB_QPT_UD, 1);
	ia.cap = (struct ib_qp_cap){};
	ct_create_refused("no_caps", &ia);
	ia = ct_ia(IB_QPT_RC, 1);
	ia.cap.max_send_wr = 0;
	ia.cap.max_send_sge = 0;
	ct_create_refused("recv_only", &ia);
	ia = ct_ia(IB_QPT_GSI, ct_nports() + 1);
	ct_create_refused("gsi_no_port", &ia);
	ia = ct_ia(IB_QPT_RAW_PACKET, 1);
	ct_create_refused("raw", &ia);
	ia = ct_ia(IB_QPT_UD, 1);
	ia.create_flags = IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	ct_create_refused("block_mcast_flag", &ia);
	ia = ct_ia(IB_QPT_UD, 1);
	ia.create_flags = IB_QP_CREATE_NETDEV_USE;
	ct_create_refused("netdev_use", &ia);
	ia = ct_ia(IB_QPT_RC, ct_nports());
	ct_create_refused("veto_priv", &ia);
	ia = ct_ia(IB_QPT_RC, 0);
	ct_create_refused("rc_port0", &ia);
}

/**
 * ct_seq_qp_types - every QP type on every port, twice, and refusals
 *
 * Context: the script, main round (the MAD layer holds QP0 and QP1).
 */
void ct_seq_qp_types(void)
{
	static const enum ib_qp_type types[] = {
		IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_SMI, IB_QPT_GSI,
	};
	u32 port;
	int i;

	for (port = 1; port <= ct_nports(); port++)
		for (i = 0; i < ARRAY_SIZE(types); i++)
			ct_type_cycle(types[i], port);
	ct_creates();
}

/* ---- state transitions -------------------------------------------- */

/* The attributes a transition needs; the mask of a lone state change else. */
static int ct_attrs_for(struct ib_qp *qp, struct ib_qp_attr *a, int cur,
			int new)
{
	bool rc = qp->qp_type == IB_QPT_RC;
	bool conn = rc || qp->qp_type == IB_QPT_UC;
	bool special = qp->qp_type == IB_QPT_SMI || qp->qp_type == IB_QPT_GSI;
	int mask = IB_QP_STATE;

	memset(a, 0, sizeof(*a));
	a->qp_state = new;
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT) {
		a->pkey_index = ct_full_pkey();
		a->port_num = 1;
		a->qkey = 0x11111111;
		a->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
		mask |= IB_QP_PKEY_INDEX | (special ? 0 : IB_QP_PORT) |
			(conn ? IB_QP_ACCESS_FLAGS : IB_QP_QKEY);
	} else if (cur == IB_QPS_INIT && new == IB_QPS_RTR && conn) {
		ct_set_av(&a->ah_attr, 1, CT_BASE_LID, 0);
		a->path_mtu = IB_MTU_2048;
		a->dest_qp_num = 0x123;
		a->rq_psn = 0x10;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN;
		if (rc) {
			a->max_dest_rd_atomic = 1;
			a->min_rnr_timer = 1;
			mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
		}
	} else if (cur == IB_QPS_RTR && new == IB_QPS_RTS) {
		a->sq_psn = 0x20;
		mask |= IB_QP_SQ_PSN;
		if (rc) {
			a->timeout = 4;
			a->retry_cnt = 1;
			a->rnr_retry = 1;
			a->max_rd_atomic = 1;
			mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		}
	}
	return mask;
}

/* Take a QP to @state along the legal path (not SQE). */
static int ct_goto(struct ib_qp *qp, int state)
{
	static const int path[] = {
		IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD,
	};
	struct ib_qp_attr a;
	int i, ret;

	ret = ct_modify(qp, &(struct ib_qp_attr){ .qp_state = IB_QPS_RESET },
			IB_QP_STATE);
	if (ret || state == IB_QPS_RESET)
		return ret;
	if (state == IB_QPS_ERR)
		return ct_modify(qp, &(struct ib_qp_attr){
				 .qp_state = IB_QPS_ERR }, IB_QP_STATE);
	for (i = 1; i < ARRAY_SIZE(path); i++) {
		int mask = ct_attrs_for(qp, &a, path[i - 1], path[i]);

		ret = ct_modify(qp, &a, mask);
		if (ret || path[i] == state)
			return ret;
	}
	return -EINVAL;
}

static void ct_transitions(struct ib_qp *qp, const char *name)
{
	static const int from[] = {
		IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD,
		IB_QPS_ERR,
	};
	struct ib_qp_attr a;
	int i, to, mask;

	for (i = 0; i < ARRAY_SIZE(from); i++) {
		for (to = IB_QPS_RESET; to <= IB_QPS_ERR; to++) {
			ct_step("modify.%s.%s_%s", name,
				ct_state_name(from[i]), ct_state_name(to));
			if (ct_goto(qp, from[i])) {
				ct_log("could not reach %s",
				       ct_state_name(from[i]));
				ct_end_step();
				continue;
			}
			mask = ct_attrs_for(qp, &a, from[i], to);
			ct_modify(qp, &a, mask);
			ct_end_step();
		}
	}
}

/* How a step hands its modify over: ct_modify() or ct_modify_driver(). */
typedef int (*ct_modify_fn)(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int mask);

/* One modify with a bad value, from the state @from, through @modify. */
static void ct_bad_via(struct ib_qp *qp, const char *name, int from,
		       struct ib_qp_attr *a, int mask, ct_modify_fn modify)
{
	ct_step("modify_bad.%s", name);
	ct_goto(qp, from);
	ct_snap();
	ct_log("attempt:");
	modify(qp, a, mask);
	ct_query_qp(qp);
	ct_end_step();
}

static void ct_bad(struct ib_qp *qp, const char *name, int from,
		   struct ib_qp_attr *a, int mask)
{
	ct_bad_via(qp, name, from, a, mask, ct_modify);
}

static void ct_bad_init(struct ib_qp *qp)
{
	struct ib_qp_attr a;
	int mask;

	mask = ct_attrs_for(qp, &a, IB_QPS_RESET, IB_QPS_INIT);
	a.pkey_index = ct.dev->rdi.dparms.npkeys;
	ct_bad(qp, "pkey_index", IB_QPS_RESET, &a, mask);
	mask = ct_attrs_for(qp, &a, IB_QPS_RESET, IB_QPS_INIT);
	a.port_num = ct_nports() + 1;
	/* A port the device lacks: see ct_modify_driver(). */
	ct_bad_via(qp, "no_port", IB_QPS_RESET, &a, mask, ct_modify_driver);
	mask = ct_attrs_for(qp, &a, IB_QPS_RESET, IB_QPS_INIT);
	ct_bad(qp, "init_with_qkey", IB_QPS_RESET, &a, mask | IB_QP_QKEY);
	mask = ct_attrs_for(qp, &a, IB_QPS_RESET, IB_QPS_INIT);
	a.cur_qp_state = IB_QPS_RTS;
	ct_bad(qp, "cur_state_wrong", IB_QPS_RESET, &a, mask | IB_QP_CUR_STATE);
	mask = ct_attrs_for(qp, &a, IB_QPS_RESET, IB_QPS_INIT);
	ct_bad(qp, "rate_limit_bit", IB_QPS_RESET, &a, mask | IB_QP_RATE_LIMIT);
}

static void ct_bad_rtr(struct ib_qp *qp)
{
	struct ib_qp_attr a;
	int mask;

#define CT_RTR() (mask = ct_attrs_for(qp, &a, IB_QPS_INIT, IB_QPS_RTR))
	CT_RTR();
	a.min_rnr_timer = 32;
	ct_bad(qp, "min_rnr_timer32", IB_QPS_INIT, &a, mask);
	CT_RTR();
	a.dest_qp_num = 1 << 24;
	ct_bad(qp, "dest_qpn_2e24", IB_QPS_INIT, &a, mask);
	CT_RTR();
	a.path_mtu = 0;
	ct_bad(qp, "path_mtu0", IB_QPS_INIT, &a, mask);
	CT_RTR();
	a.path_mtu = IB_MTU_4096 + 1;
	ct_bad(qp, "path_mtu6", IB_QPS_INIT, &a, mask);
	CT_RTR();
	a.path_mtu = (enum ib_mtu)OPA_MTU_10240;
	ct_bad(qp, "path_mtu10240", IB_QPS_INIT, &a, mask);
	CT_RTR();
	a.max_dest_rd_atomic = 17;
	ct_bad(qp, "max_dest_rd_atomic17", IB_QPS_INIT, &a, mask);
	CT_RTR();
	rdma_ah_set_dlid(&a.ah_attr, 0xc001);
	ct_bad(qp, "av_mcast_dlid", IB_QPS_INIT, &a, mask);
	CT_RTR();
	rdma_ah_set_sl(&a.ah_attr, 15);
	ct_bad(qp, "av_sl15", IB_QPS_INIT, &a, mask);
	CT_RTR();
	rdma_ah_set_port_num(&a.ah_attr, ct_nports() + 1);
	ct_bad(qp, "av_no_port", IB_QPS_INIT, &a, mask);
	CT_RTR();
	rdma_ah_set_static_rate(&a.ah_attr, 0x3f);
	ct_bad(qp, "av_rate", IB_QPS_INIT, &a, mask);
	CT_RTR();
	ct_set_av(&a.alt_ah_attr, 1, CT_BASE_LID, 0);
	a.alt_pkey_index = ct.dev->rdi.dparms.npkeys;
	a.alt_port_num = 1;
	a.alt_timeout = 4;
	ct_bad(qp, "alt_pkey", IB_QPS_INIT, &a, mask | IB_QP_ALT_PATH);
	CT_RTR();
	ct_set_av(&a.alt_ah_attr, 1, CT_BASE_LID, 15);
	a.alt_port_num = 1;
	ct_bad(qp, "alt_sl15", IB_QPS_INIT, &a, mask | IB_QP_ALT_PATH);
	CT_RTR();
	ct_set_av(&a.alt_ah_attr, ct_nports(), ct_port_lid(ct_nports()), 1);
	a.alt_port_num = ct_nports();
	a.alt_timeout = 5;
	ct_bad(qp, "alt_path_ok", IB_QPS_INIT, &a, mask | IB_QP_ALT_PATH);
#undef CT_RTR
}

static void ct_bad_rts(struct ib_qp *qp)
{
	struct ib_qp_attr a;
	int mask;

#define CT_RTS() (mask = ct_attrs_for(qp, &a, IB_QPS_RTR, IB_QPS_RTS))
	CT_RTS();
	a.retry_cnt = 8;
	ct_bad(qp, "retry_cnt8", IB_QPS_RTR, &a, mask);
	CT_RTS();
	a.rnr_retry = 8;
	ct_bad(qp, "rnr_retry8", IB_QPS_RTR, &a, mask);
	CT_RTS();
	a.path_mig_state = IB_MIG_REARM;
	ct_bad(qp, "mig_rearm", IB_QPS_RTR, &a, mask | IB_QP_PATH_MIG_STATE);
	CT_RTS();
	a.path_mig_state = IB_MIG_MIGRATED;
	ct_bad(qp, "mig_migrated", IB_QPS_RTR, &a, mask | IB_QP_PATH_MIG_STATE);
	CT_RTS();
	a.path_mig_state = 7;
	ct_bad(qp, "mig_bad", IB_QPS_RTR, &a, mask | IB_QP_PATH_MIG_STATE);
	CT_RTS();
	a.sq_psn = 0xfffffff;
	ct_bad(qp, "sq_psn_wide", IB_QPS_RTR, &a, mask);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	ct_set_av(&a.ah_attr, 1, CT_BASE_LID, 2);
	ct_bad(qp, "rts_rts_av", IB_QPS_RTS, &a, IB_QP_STATE | IB_QP_AV);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.min_rnr_timer = 5;
	a.qp_access_flags = IB_ACCESS_REMOTE_READ;
	ct_bad(qp, "rts_rts_ok", IB_QPS_RTS, &a, IB_QP_STATE |
	       IB_QP_MIN_RNR_TIMER | IB_QP_ACCESS_FLAGS);
	/*
	 * Access flags beyond the remote ones (an MR's flags, an optional
	 * one): both cores take them and query returns them.
	 */
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_ON_DEMAND |
			    IB_ACCESS_RELAXED_ORDERING;
	ct_bad(qp, "rts_rts_access_other", IB_QPS_RTS, &a,
	       IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	/*
	 * The most initiator depth a u8 holds: both drivers advertise it as
	 * max_qp_init_rd_atom, so no larger value can be asked for.
	 */
	CT_RTS();
	a.max_rd_atomic = U8_MAX;
	ct_bad(qp, "max_rd_atomic255", IB_QPS_RTR, &a, mask);
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_SQE;
	ct_bad(qp, "to_sqe", IB_QPS_RTS, &a, IB_QP_STATE);
#undef CT_RTS
}

/**
 * ct_seq_modify - every transition, every type; bad values
 *
 * Context: the script.
 */
void ct_seq_modify(void)
{
	struct ib_qp *rc, *uc, *ud;

	ct_step("modify.setup");
	rc = ct_create_qp("m_rc", IB_QPT_RC, 1, NULL, 4, 4);
	uc = ct_create_qp("m_uc", IB_QPT_UC, 1, NULL, 4, 4);
	ud = ct_create_qp("m_ud", IB_QPT_UD, 1, NULL, 4, 4);
	ct_end_step();
	if (rc)
		ct_transitions(rc, "rc");
	if (uc)
		ct_transitions(uc, "uc");
	if (ud)
		ct_transitions(ud, "ud");
	if (rc) {
		ct_bad_init(rc);
		ct_bad_rtr(rc);
		ct_bad_rts(rc);
	}
	if (ud)
		ct_bad_init(ud);
	ct_step("modify.teardown");
	ct_destroy_qp(rc);
	ct_destroy_qp(uc);
	ct_destroy_qp(ud);
	ct_end_step();
}

/* ---- special QPs (nosmi round) ------------------------------------ */

static struct ib_qp *ct_smi(const char *label, u32 port)
{
	struct ib_qp *qp = ct_create_qp(label, IB_QPT_SMI, port, NULL, 4, 4);

	if (qp)
		ct_to_rts(qp, port, 0, 0);
	return qp;
}

static void ct_smi_send(struct ib_qp *from, u32 port, u32 dlid, u32 len,
			void *buf)
{
	struct rdma_ah_attr attr;
	struct ib_ud_wr wr = {};
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = len,
		.lkey = ct.pd->local_dma_lkey,
	};
	struct ib_ah *ah;

	ct_set_av(&attr, port, dlid, 0);
	ah = rdma_create_ah(ct.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ct_log("smi ah -> %ld", PTR_ERR(ah));
		return;
	}
	wr.wr.wr_id = len;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.ah = ah;
	wr.remote_qpn = 0;
	wr.pkey_index = ct_full_pkey();
	ct_post_send(from, &wr.wr);
	ct_settle(2000);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/**
 * ct_seq_special_qps - QP0 of each port: create, use, destroy, create
 *
 * On a two-port device SMPs go between the ports' QP0s; on one port
 * (hfi1) QP0 sends to its own port.
 *
 * Context: the script, nosmi round (the MAD layer has no QP0 there and
 * could not create a send_agent).
 */
void ct_seq_special_qps(void)
{
	struct ib_qp *s1, *s2 = NULL, *dup, *g;
	void *buf = kzalloc(4096, GFP_KERNEL);
	u32 port, last = ct_nports();

	if (!buf)
		return;
	ct_step("special.create");
	s1 = ct_smi("smi1", 1);
	if (last > 1)
		s2 = ct_smi("smi2", 2);
	for (port = 1; port <= last; port++) {
		g = ct_create_qp("gsi_dup", IB_QPT_GSI, port, NULL, 4, 4);
		ct_destroy_qp(g);
	}
	dup = ct_create_qp("smi_dup", IB_QPT_SMI, last, NULL, 4, 4);
	ct_destroy_qp(dup);
	ct_end_step();
	ct_step("special.loop");
	if (s1 && (s2 || last == 1)) {
		if (s2)
			ct_post_recv(s2, 0x5a1, buf, 512);
		ct_post_recv(s1, 0x5a2, buf + 1024, 512);
		ct_smi_send(s1, 1, ct_port_lid(last), 256, buf + 2048);
		if (s2)
			ct_smi_send(s2, 2, ct_port_lid(2), 128, buf + 2048);
		ct_smi_send(s1, 1, be16_to_cpu(IB_LID_PERMISSIVE), 64,
			    buf + 2048);
		ct_smi_send(s1, 1, CT_BASE_LID, 3000, buf);
	}
	ct_end_step();
	ct_step("special.trap_without_agent");
	ib_modify_port(ct_ibdev(), 1, 0, &(struct ib_port_modify){
		       .set_port_cap_mask = IB_PORT_CM_SUP });
	ct_end_step();
	ct_step("special.destroy");
	ct_destroy_qp(s1);
	ct_end_step();
	ct_step("special.recreate");
	s1 = ct_smi("smi1b", 1);
	ct_end_step();
	ct_step("special.teardown");
	ct_destroy_qp(s1);
	ct_destroy_qp(s2);
	ct_end_step();
	kfree(buf);
}

/* ---- the QP table ------------------------------------------------- */

static void ct_lookup_all(struct ib_qp **qps, int n)
{
	struct rvt_qp *found;
	int i;

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		if (!qps[i])
			continue;
		found = rvt_lookup_qpn(&ct.dev->rdi, &ct_port(1)->rvp,
				       qps[i]->qp_num);
		ct_log("lookup %#x -> %s", qps[i]->qp_num, ct_label(found));
	}
	found = rvt_lookup_qpn(&ct.dev->rdi, &ct_port(1)->rvp, 0xfffff0);
	ct_log("lookup 0xfffff0 -> %s", ct_label(found));
	rcu_read_unlock();
}

/**
 * ct_seq_table - the QP hash table with the round's qp_table_size
 *
 * Context: the script, qpt<N> rounds.
 */
void ct_seq_table(void)
{
	struct ib_qp *qps[10] = {};
	char label[CT_LABEL_LEN];
	int i;

	ct_step("table.fill");
	for (i = 0; i < ARRAY_SIZE(qps); i++) {
		snprintf(label, sizeof(label), "t%d", i);
		qps[i] = ct_create_qp(label, i & 1 ? IB_QPT_UD : IB_QPT_RC, 1,
				      NULL, 2, 2);
		if (qps[i])
			ct_to_rts(qps[i], 1, CT_BASE_LID, 0x77);
	}
	ct_end_step();
	ct_step("table.lookup");
	ct_lookup_all(qps, ARRAY_SIZE(qps));
	ct_end_step();
	ct_seq_iter();
	ct_step("table.drain");
	for (i = 0; i < ARRAY_SIZE(qps); i += 2) {
		ct_destroy_qp(qps[i]);
		qps[i] = NULL;
	}
	ct_lookup_all(qps, ARRAY_SIZE(qps));
	ct_end_step();
	ct_step("table.empty");
	for (i = 1; i < ARRAY_SIZE(qps); i += 2)
		ct_destroy_qp(qps[i]);
	ct_end_step();
}

/* ---- iterators ---------------------------------------------------- */

/*
 * Where a walk finds @qp: "special" for a port's QP0 or QP1, else its
 * bucket, as rvt_lookup_qpn() hashes (the layout rdmavt_qp.h fixes). The
 * comparison lets the QPs of one bucket come in any order, nothing else.
 */
static void ct_qp_slot(char *buf, size_t len, struct rvt_qp *qp)
{
	u32 qpn = qp->ibqp.qp_num;

	if (qpn <= 1)
		strscpy(buf, "special", len);
	else
		snprintf(buf, len, "bucket=%u",
			 hash_32(qpn, ct.dev->rdi.qp_dev->qp_table_bits));
}

static void ct_iter_cb(struct rvt_qp *qp, u64 v)
{
	char slot[24];

	ct_qp_slot(slot, sizeof(slot), qp);
	ct_log("iter cb %s %s v=%llu state=%s", ct_label(qp), slot, v,
	       ct_state_name(qp->state));
}

/**
 * ct_seq_iter - rvt_qp_iter_init()/rvt_qp_iter_next() as debugfs walks,
 * and rvt_qp_iter() as hfi1 calls it
 *
 * Each QP a walk visits is logged with its state and where the walk
 * found it.
 *
 * Context: the script.
 */
void ct_seq_iter(void)
{
	struct rvt_qp_iter *iter;
	int n = 0;

	ct_step("iter.next");
	ct_ex(EX_QP_ITER_INIT);
	iter = rvt_qp_iter_init(&ct.dev->rdi, 0, NULL);
	if (!iter) {
		ct_log("iter_init -> NULL");
	} else {
		rcu_read_lock();
		ct_ex(EX_QP_ITER_NEXT);
		while (!rvt_qp_iter_next(iter) && n++ < 1000)
			ct_log("iter n=%d %s state=%s", iter->n,
			       ct_label(iter->qp),
			       ct_state_name(iter->qp->state));
		rcu_read_unlock();
		kfree(iter);
	}
	ct_end_step();
	ct_step("iter.cb");
	ct_ex(EX_QP_ITER);
	rvt_qp_iter(&ct.dev->rdi, 7, ct_iter_cb);
	ct_end_step();
}
