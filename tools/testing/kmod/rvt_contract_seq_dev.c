// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Sequences on the device as a whole: queries, modify_device,
 * modify_port (capability mask traps, shutdown), get_numa_node, address
 * handles (rvt_check_ah() and the driver's check_ah/notify_new_ah, in
 * process and in atomic context), completion queues (comp_vect_cpu_lookup,
 * rvt_cq_enter() directly, overflow, notification, resize).
 */
#include <linux/delay.h>
#include "rvt_contract.h"

static void ct_log_port_attr(u32 port, int ret, struct ib_port_attr *a)
{
	ct_log("port %u -> %d state=%d phys=%d lid=%#x lmc=%u sm_lid=%#x sm_sl=%u",
	       port, ret, a->state, a->phys_state, a->lid, a->lmc, a->sm_lid,
	       a->sm_sl);
	ct_log("  cap=%#x cap2=%#x gid_tbl=%d pkey_tbl=%u max_msg=%#x mtu=%d/%d",
	       a->port_cap_flags, a->port_cap_flags2, a->gid_tbl_len,
	       a->pkey_tbl_len, a->max_msg_sz, a->max_mtu, a->active_mtu);
	ct_log("  width=%u speed=%u vl=%u subnet_timeout=%u init_type=%u",
	       a->active_width, a->active_speed, a->max_vl_num,
	       a->subnet_timeout, a->init_type_reply);
	ct_log("  qkey_viol=%u bad_pkey=%u", a->qkey_viol_cntr,
	       a->bad_pkey_cntr);
}

static void ct_dev_query(void)
{
	struct ib_device *ibdev = ct_ibdev();
	struct ib_device_attr *a = &ibdev->attrs;
	struct ib_device_attr q = {};
	struct ib_udata uhw = {};
	int ret;

	ct_step("device.attrs");
	ct_log("attrs max_qp=%d max_qp_wr=%d max_sge=%d/%d/%d max_cq=%d max_cqe=%d",
	       a->max_qp, a->max_qp_wr, a->max_send_sge, a->max_recv_sge,
	       a->max_sge_rd, a->max_cq, a->max_cqe);
	ct_log("  max_mr=%d max_pd=%d max_ah=%d max_srq=%d/%d/%d rd_atom=%d/%d",
	       a->max_mr, a->max_pd, a->max_ah, a->max_srq, a->max_srq_wr,
	       a->max_srq_sge, a->max_qp_rd_atom, a->max_qp_init_rd_atom);
	ct_log("  mcast=%d/%d/%d pkeys=%u cap=%#llx kcap=%#llx frpl=%u ack_delay=%u",
	       a->max_mcast_grp, a->max_mcast_qp_attach,
	       a->max_total_mcast_qp_attach, a->max_pkeys,
	       a->device_cap_flags, a->kernel_cap_flags,
	       a->max_fast_reg_page_list_len, a->local_ca_ack_delay);
	ret = ibdev->ops.query_device(ibdev, &q, &uhw);
	ct_log("query_device -> %d max_mr=%d max_qp=%d", ret, q.max_mr,
	       q.max_qp);
	ct_log("node_type=%d phys_port_cnt=%u num_comp_vectors=%d uverbs_cmd_mask=%#llx",
	       ibdev->node_type, ibdev->phys_port_cnt,
	       ibdev->num_comp_vectors, ibdev->uverbs_cmd_mask);
	ct_end_step();
}

static void ct_dev_ports(void)
{
	struct ib_device *ibdev = ct_ibdev();
	struct ib_port_immutable imm;
	struct ib_port_attr pa;
	union ib_gid gid;
	u16 pkey, i;
	u32 port;
	int ret;

	for (port = 1; port <= ct_nports(); port++) {
		ct_step("device.port%u", port);
		memset(&pa, 0, sizeof(pa));
		ret = ib_query_port(ibdev, port, &pa);
		ct_log_port_attr(port, ret, &pa);
		for (i = 0; i <= ibdev->attrs.max_pkeys; i++) {
			pkey = 0;
			ret = ibdev->ops.query_pkey(ibdev, port, i, &pkey);
			ct_log("pkey %u -> %d %#x", i, ret, pkey);
		}
		for (i = 0; i < 2; i++) {
			memset(&gid, 0, sizeof(gid));
			ret = ibdev->ops.query_gid(ibdev, port, i, &gid);
			ct_log("gid %u -> %d %016llx:%016llx", i, ret,
			       be64_to_cpu(gid.global.subnet_prefix),
			       be64_to_cpu(gid.global.interface_id));
		}
		memset(&imm, 0, sizeof(imm));
		ret = ibdev->ops.get_port_immutable(ibdev, port, &imm);
		ct_log("immutable -> %d pkeys=%d gids=%d caps=%#x mad=%u", ret,
		       imm.pkey_tbl_len, imm.gid_tbl_len, imm.core_cap_flags,
		       imm.max_mad_size);
		ct_end_step();
	}
	ct_step("device.numa");
	ct_log("get_numa_node -> %s",
	       ibdev->ops.get_numa_node(ibdev) == first_online_node ?
	       "dparms.node" : "other");
	ct_end_step();
}

static void ct_dev_modify(void)
{
	struct ib_device *ibdev = ct_ibdev();
	struct ib_device_modify m = {};
	int ret;

	ct_step("device.modify_device");
	ct_log("ops.modify_device is the %s's",
	       ibdev->ops.modify_device == ct_modify_device ? "driver" : "core");
	strscpy(m.node_desc, "rvt_contract renamed", sizeof(m.node_desc));
	ret = ib_modify_device(ibdev, IB_DEVICE_MODIFY_NODE_DESC, &m);
	ct_log("node_desc -> %d \"%s\"", ret, ibdev->node_desc);
	m.sys_image_guid = 0x1122334455667788ULL;
	ret = ib_modify_device(ibdev, IB_DEVICE_MODIFY_SYS_IMAGE_GUID, &m);
	ct_log("sys_image_guid -> %d", ret);
	ret = ib_modify_device(ibdev, 0x80, &m);
	ct_log("unknown bit -> %d", ret);
	ct_end_step();
}

static void ct_modify_port(const char *name, u32 port, int mask, u32 set,
			   u32 clr)
{
	struct ib_port_modify pm = {
		.set_port_cap_mask = set, .clr_port_cap_mask = clr,
	};
	struct rvt_ibport *rvp;
	int ret;

	ct_step("port.%s", name);
	ret = ib_modify_port(ct_ibdev(), port, mask, &pm);
	if (port > rdma_end_port(ct_ibdev())) {
		/* no such port: nothing of ours to show (KASAN saw the read) */
		ct_log("modify_port %u mask=%#x set=%#x clr=%#x -> %d",
		       port, mask, set, clr, ret);
		ct_end_step();
		return;
	}
	rvp = &ct_port(port)->rvp;
	ct_log("modify_port %u mask=%#x set=%#x clr=%#x -> %d cap=%#x cap3=%#x qkey_viol=%u",
	       port, mask, set, clr, ret, rvp->port_cap_flags,
	       rvp->port_cap3_flags, rvp->qkey_violations);
	ct_end_step();
}

/*
 * The capability masks on port 1; an OPA capability, a shutdown and its
 * recovery on the last port (port 2 of a qib, hfi1's only port); a port
 * the device lacks.
 */
static void ct_dev_ports_modify(void)
{
	u32 last = ct_nports();
	struct ib_port_attr pa;

	ct_modify_port("nothing", 1, 0, 0, 0);
	ct_modify_port("set_cap", 1, 0, IB_PORT_DEVICE_MGMT_SUP, 0);
	ct_modify_port("clr_cap", 1, 0, 0, IB_PORT_DEVICE_MGMT_SUP);
	ct_modify_port("set_cap_again", 1, 0, IB_PORT_CM_SUP, 0);
	ct_modify_port("opa_cap3", last, IB_PORT_OPA_MASK_CHG, 0x4, 0);
	ct_port(1)->rvp.qkey_violations = 3;
	ct_modify_port("reset_qkey", 1, IB_PORT_RESET_QKEY_CNTR, 0, 0);
	ct_modify_port("shutdown", last, IB_PORT_SHUTDOWN, 0, 0);
	ct_step("port.after_shutdown");
	ib_query_port(ct_ibdev(), last, &pa);
	ct_log_port_attr(last, 0, &pa);
	/* The link comes back: the rest of the round uses the port. */
	ct_port(last)->down = false;
	ct_end_step();
	ct_modify_port("bad_port", last + 1, 0, IB_PORT_CM_SUP, 0);
}

/**
 * ct_seq_device - queries and modifications of the device and its ports
 *
 * Context: the script.
 */
void ct_seq_device(void)
{
	ct_dev_query();
	ct_dev_ports();
	ct_dev_modify();
	ct_dev_ports_modify();
}

/* ---- address handles ----------------------------------------------- */

static void ct_ah_try(const char *name, struct rdma_ah_attr *attr, u32 flags)
{
	struct rdma_ah_attr q;
	struct ib_ah *ah;
	unsigned long irqs;
	int ret;

	ct_step("ah.%s", name);
	if (flags & RDMA_CREATE_AH_SLEEPABLE) {
		ah = rdma_create_ah(ct.pd, attr, flags);
	} else {
		/* As qib and hfi1 make their SM AH: under a spinlock. */
		local_irq_save(irqs);
		ah = rdma_create_ah(ct.pd, attr, flags);
		local_irq_restore(irqs);
	}
	if (IS_ERR(ah)) {
		ct_log("create_ah -> %ld", PTR_ERR(ah));
		ct_end_step();
		return;
	}
	memset(&q, 0, sizeof(q));
	ret = rdma_query_ah(ah, &q);
	ct_log("create_ah -> ok; query -> %d dlid=%#x sl=%u port=%u rate=%u vl=%u log_pmtu=%u",
	       ret, rdma_ah_get_dlid(&q), rdma_ah_get_sl(&q),
	       rdma_ah_get_port_num(&q), rdma_ah_get_static_rate(&q),
	       ibah_to_rvtah(ah)->vl, ibah_to_rvtah(ah)->log_pmtu);
	rdma_ah_set_sl(attr, 3);
	ret = rdma_modify_ah(ah, attr);
	ct_log("modify_ah sl=3 -> %d", ret);
	rdma_ah_set_sl(attr, 16);
	ret = rdma_modify_ah(ah, attr);
	ct_log("modify_ah sl=16 -> %d", ret);
	rdma_ah_set_port_num(attr, 3);
	ret = rdma_modify_ah(ah, attr);
	ct_log("modify_ah port=3 -> %d", ret);
	memset(&q, 0, sizeof(q));
	rdma_query_ah(ah, &q);
	ct_log("after: dlid=%#x sl=%u port=%u", rdma_ah_get_dlid(&q),
	       rdma_ah_get_sl(&q), rdma_ah_get_port_num(&q));
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ct_log("destroy_ah");
	ct_end_step();
}

static void ct_check_ah(const char *name, struct rdma_ah_attr *attr)
{
	int ret;

	ct_ex(EX_CHECK_AH);
	ret = rvt_check_ah(ct_ibdev(), attr);
	ct_log("rvt_check_ah %s -> %d", name, ret);
}

/**
 * ct_seq_ah - address handles: the driver's checks and the core's
 *
 * Context: the script.
 */
void ct_seq_ah(void)
{
	u32 last = ct_nports();
	struct rdma_ah_attr a;

	ct_set_av(&a, 1, 2, 0);
	ct_ah_try("sleepable", &a, RDMA_CREATE_AH_SLEEPABLE);
	ct_set_av(&a, last, 1, 1);
	ct_ah_try("atomic", &a, 0);
	ct_set_av(&a, 1, 0, 0);
	ct_ah_try("dlid0", &a, RDMA_CREATE_AH_SLEEPABLE);
	ct_set_av(&a, 1, 0xc001, 0);
	ct_ah_try("mcast_no_grh", &a, RDMA_CREATE_AH_SLEEPABLE);
	ct_set_av(&a, 1, 2, 16);
	ct_ah_try("sl16", &a, RDMA_CREATE_AH_SLEEPABLE);
	ct_set_av(&a, 1, 2, 0);
	rdma_ah_set_static_rate(&a, 0x3f);
	ct_ah_try("bad_rate", &a, RDMA_CREATE_AH_SLEEPABLE);
	ct_set_av(&a, last + 1, 2, 0);
	ct_ah_try("no_port", &a, RDMA_CREATE_AH_SLEEPABLE);

	ct_step("ah.rvt_check_ah");
	ct_set_av(&a, 1, 2, 0);
	ct_check_ah("plain", &a);
	rdma_ah_set_port_num(&a, 0);
	ct_check_ah("port0", &a);
	ct_set_av(&a, last, 2, 0);
	rdma_ah_set_static_rate(&a, IB_RATE_10_GBPS);
	ct_check_ah("rate10", &a);
	rdma_ah_set_static_rate(&a, 0x3f);
	ct_check_ah("rate_bad", &a);
	ct_set_av(&a, 1, 2, 0);
	rdma_ah_set_grh(&a, NULL, 0, 0, 64, 0);
	ct_check_ah("grh_sgid0", &a);
	rdma_ah_set_grh(&a, NULL, 0, 1, 64, 0);
	ct_check_ah("grh_sgid1", &a);
	ct_set_av(&a, 1, 2, 20);
	ct_check_ah("sl20", &a);
	ct_end_step();
}

/* ---- completion queues --------------------------------------------- */

static atomic_t ct_cq_comps = ATOMIC_INIT(0);

static void ct_cq_comp(struct ib_cq *cq, void *ctx)
{
	atomic_inc(&ct_cq_comps);
}

static void ct_cq_event(struct ib_event *ev, void *ctx)
{
	ct_log("event %s cq", ib_event_msg(ev->event));
}

static struct ib_cq *ct_make_cq(int cqe, int vector)
{
	struct ib_cq_init_attr ca = { .cqe = cqe, .comp_vector = vector };
	struct ib_cq *cq;

	cq = ib_create_cq(ct_ibdev(), ct_cq_comp, ct_cq_event, NULL, &ca);
	ct_log("create_cq cqe=%d vector=%d -> %ld", cqe, vector,
	       IS_ERR(cq) ? PTR_ERR(cq) : (long)cq->cqe);
	return IS_ERR(cq) ? NULL : cq;
}

/* A CQ that should not have been created must not leak. */
static void ct_drop_cq(struct ib_cq *cq)
{
	if (cq) {
		ib_destroy_cq(cq);
		ct_log("destroy_cq");
	}
}

static void ct_cq_enter(struct ib_cq *cq, u64 wr_id, bool solicited)
{
	struct ib_wc wc = {
		.wr_id = wr_id, .status = IB_WC_SUCCESS, .opcode = IB_WC_RECV,
		.byte_len = 4,
	};
	bool ok;

	ct_ex(EX_CQ_ENTER);
	ok = rvt_cq_enter(ibcq_to_rvtcq(cq), &wc, solicited);
	ct_log("rvt_cq_enter wr_id=%#llx solicited=%d -> %d", wr_id,
	       solicited, ok);
}

/* The completion handler runs from rdmavt's workqueue: wait for it. */
static void ct_wait_comps(int want)
{
	int i;

	for (i = 0; i < 200 && atomic_read(&ct_cq_comps) < want; i++)
		usleep_range(5000, 6000);
	/* A second one, if it is coming, comes now. */
	msleep(20);
	ct_log("completion handler calls: %d", atomic_read(&ct_cq_comps));
}

static void ct_cq_notify(struct ib_cq *cq)
{
	int ret;

	ct_step("cq.notify");
	atomic_set(&ct_cq_comps, 0);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	ct_log("req_notify next -> %d", ret);
	ct_cq_enter(cq, 0x10, false);
	ct_wait_comps(1);
	ret = ib_req_notify_cq(cq, IB_CQ_SOLICITED);
	ct_log("req_notify solicited -> %d", ret);
	ct_cq_enter(cq, 0x11, false);
	ct_wait_comps(1);
	ct_cq_enter(cq, 0x12, true);
	ct_wait_comps(2);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	ct_log("req_notify missed -> %d", ret);
	ct_wait_comps(2);
	ct_poll(cq);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	ct_log("req_notify missed, empty -> %d", ret);
	ct_end_step();
}

static void ct_cq_overflow(void)
{
	struct ib_cq *cq;
	int i, ret;

	ct_step("cq.overflow");
	cq = ct_make_cq(2, 0);
	if (!cq)
		return;
	for (i = 0; i < 4; i++)
		ct_cq_enter(cq, 0x20 + i, false);
	ct_log("polled %d", ct_poll(cq));
	ct_cq_enter(cq, 0x30, false);
	ct_log("polled after overflow %d", ct_poll(cq));
	ret = ib_resize_cq(cq, 4);
	ct_log("resize 4 -> %d cqe=%d", ret, cq->cqe);
	for (i = 0; i < 3; i++)
		ct_cq_enter(cq, 0x40 + i, false);
	ret = ib_resize_cq(cq, 1);
	ct_log("resize 1 with 3 queued -> %d cqe=%d", ret, cq->cqe);
	ct_log("polled %d", ct_poll(cq));
	ib_destroy_cq(cq);
	ct_log("destroy_cq");
	ct_end_step();
}

/**
 * ct_seq_cq - completion queues, entered directly as drivers do
 *
 * Context: the script.
 */
void ct_seq_cq(void)
{
	struct ib_cq *cq;

	ct_step("cq.create");
	cq = ct_make_cq(8, 1);
	ct_drop_cq(ct_make_cq(0, 0));
	/* One more than the device's max_cqe (hfi1's and qib's differ). */
	ct_drop_cq(ct_make_cq(ct_ibdev()->attrs.max_cqe + 1, 0));
	ct_end_step();
	if (cq) {
		ct_cq_notify(cq);
		ct_step("cq.destroy");
		ib_destroy_cq(cq);
		ct_log("destroy_cq");
		ct_end_step();
	}
	ct_step("cq.vector5");
	cq = ct_make_cq(4, 5);
	if (cq) {
		ib_destroy_cq(cq);
		ct_log("destroy_cq");
	}
	ct_end_step();
	ct_cq_overflow();
}
