// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The two personalities of the test driver: the parameters and callbacks
 * of hfi1 (hfi1/verbs.c hfi1_register_ib_device(), hfi1/qp.c) and of qib
 * (qib/qib_verbs.c qib_register_ib_device(), qib/qib_qp.c), as facts about
 * those drivers, written for this test. Where a driver's callback depends
 * on its hardware (SC and VL tables, send contexts, congestion timers) the
 * test keeps the decision the callback makes and fakes the table.
 */
#include <rdma/opa_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_hdrs.h>
#include <rdma/tid_rdma_defs.h>
#include "contract.h"

#define CT_PIOTHRESHOLD 256	/* hfi1: send at once when this short */
#define CT_VL15_MTU 2048	/* hfi1: SMI packets go on VL15 */
#define CT_QIB_KD_QP 0x656b78	/* qib: the QPN kept for the kernel driver */

/* ---- shared by both ------------------------------------------------ */

static void ct_set_props(struct ib_device_attr *p, bool opa)
{
	p->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
			      IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_SHUTDOWN_PORT |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_SRQ_RESIZE;
	p->page_size_cap = PAGE_SIZE;
	/* Both from Intel's (formerly QLogic's) OUI 00:11:75. */
	p->vendor_id = 0x1175;
	p->hw_ver = 1;
	p->max_mr_size = U64_MAX;
	p->max_qp_wr = 0x3fff;
	p->max_send_sge = 0x60;
	p->max_recv_sge = 0x60;
	p->max_sge_rd = 0x60;
	p->max_cq = 0x1ffff;
	p->max_pd = 0xffff;
	p->max_ah = 0xffff;
	p->max_srq = 1024;
	p->max_srq_wr = 0x1ffff;
	p->max_srq_sge = 128;
	p->max_qp_rd_atom = 16;
	p->max_qp_init_rd_atom = 255;
	p->atomic_cap = IB_ATOMIC_GLOB;
	p->max_mcast_grp = 16384;
	p->max_mcast_qp_attach = 16;
	p->max_total_mcast_qp_attach = 16 * 16384;
	if (opa) {
		/* hfi1_fill_device_attr(), with hfi1's module defaults */
		p->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		p->vendor_part_id = 0x24f0;
		p->max_qp = 32768;
		p->max_cqe = 0x2fffff;
		p->max_fast_reg_page_list_len = UINT_MAX;
	} else {
		/* qib_fill_device_attr(), with qib's, for a QLE7342 */
		p->vendor_part_id = 0x7322;
		p->max_qp = 16384;
		p->max_cqe = 0x2ffff;
	}
}

/*
 * hfi1's operations: IB_WR_OPFN (a reserved operation, hfi1/opfn.h) and
 * TID RDMA (IB_WR_TID_RDMA_WRITE/READ, rdma/tid_rdma_defs.h).
 */
#define CT_WR_OPFN IB_WR_RESERVED3
#define CT_ALL_UD (BIT(IB_QPT_UD) | BIT(IB_QPT_SMI) | BIT(IB_QPT_GSI))
#define CT_RC_UC (BIT(IB_QPT_RC) | BIT(IB_QPT_UC))
#define CT_ATOMIC_SGE (RVT_OPERATION_ATOMIC | RVT_OPERATION_ATOMIC_SGE)

/*
 * An operation a driver's post_send takes: its request's type, the QP
 * types and flags of its post table entry, its completion's opcode.
 */
#define CT_WR_OP(req, qpts, opflags, wc_op) \
	{ .post = { sizeof(struct req), (qpts), (opflags) }, .wc = (wc_op) }

/*
 * What both drivers post and how each completes (all of qib's tables,
 * qib/qib_verbs.c and qib/qib_qp.c); hfi1 handles more.
 */
static const struct ct_wr_op ct_ib_wr_ops[RVT_OPERATION_MAX] = {
	[IB_WR_RDMA_WRITE] =
		CT_WR_OP(ib_rdma_wr, CT_RC_UC, 0, IB_WC_RDMA_WRITE),
	[IB_WR_RDMA_WRITE_WITH_IMM] =
		CT_WR_OP(ib_rdma_wr, CT_RC_UC, 0, IB_WC_RDMA_WRITE),
	[IB_WR_SEND] =
		CT_WR_OP(ib_send_wr, CT_RC_UC | CT_ALL_UD, 0, IB_WC_SEND),
	[IB_WR_SEND_WITH_IMM] =
		CT_WR_OP(ib_send_wr, CT_RC_UC | CT_ALL_UD, 0, IB_WC_SEND),
	[IB_WR_RDMA_READ] = CT_WR_OP(ib_rdma_wr, BIT(IB_QPT_RC),
				  RVT_OPERATION_ATOMIC, IB_WC_RDMA_READ),
	[IB_WR_ATOMIC_CMP_AND_SWP] = CT_WR_OP(ib_atomic_wr, BIT(IB_QPT_RC),
					   CT_ATOMIC_SGE, IB_WC_COMP_SWAP),
	[IB_WR_ATOMIC_FETCH_AND_ADD] = CT_WR_OP(ib_atomic_wr, BIT(IB_QPT_RC),
					     CT_ATOMIC_SGE, IB_WC_FETCH_ADD),
};

/*
 * RC and UC requests, as both drivers take them: up to 2 GB; one longer
 * than the path MTU is left to the send engine (no call_send).
 */
static int ct_rc_uc_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			bool *call_send)
{
	if (wqe->length > 0x80000000U)
		return -EINVAL;
	if (wqe->length > qp->pmtu)
		*call_send = false;
	return 0;
}

/* The end of setup_wqe(): the script's veto (CT_VETO_WRID), the log. */
static int ct_wqe_done(struct rvt_qp *qp, struct rvt_swqe *wqe, bool in,
		       bool call_send, int ret)
{
	if (wqe->wr.wr_id == CT_VETO_WRID)
		ret = -EINVAL;
	ct_cb(CB_SETUP_WQE, qp, "op=%d len=%u ssn=%u psn=%#x-%#x sge=%d call_send=%d->%d -> %d",
	      wqe->wr.opcode, wqe->length, wqe->ssn, wqe->psn, wqe->lpsn,
	      wqe->wr.num_sge, in, call_send, ret);
	return ret;
}

/* ---- hfi1 --------------------------------------------------------- */

/* hfi1's SL to SC table, faked: SL 15 maps to the unusable SC 0xf. */
static u8 ct_hfi1_sc(u8 sl)
{
	return sl == 15 ? 0xf : sl;
}

static void ct_hfi1_params(struct ct_dev *dev, unsigned int qp_table_size)
{
	struct rvt_driver_params *d = &dev->rdi.dparms;

	ct_set_props(&d->props, true);
	d->props.max_pkeys = CT_MAX_PKEYS;
	d->props.kernel_cap_flags = IBK_RDMA_NETDEV_OPA;
	d->qp_table_size = qp_table_size;
	d->qpn_start = 0;
	d->qpn_inc = 1;
	d->qos_shift = 1;
	d->qpn_res_start = RVT_KDETH_QP_BASE;
	d->qpn_res_end = RVT_AIP_QP_MAX;
	d->max_rdma_atomic = 16;
	d->extra_rdma_atomic = 8;
	d->psn_mask = 0x7fffffff;
	d->psn_shift = 1;
	d->psn_modify_mask = 0xffffff;
	d->core_cap_flags = RDMA_CORE_PORT_INTEL_OPA | RDMA_CORE_CAP_OPA_AH;
	d->max_mad_size = OPA_MGMT_MAD_SIZE;
	d->lkey_table_size = 16;
	d->npkeys = CT_MAX_PKEYS;
	d->sge_copy_mode = RVT_SGE_COPY_MEMCPY;
	d->wss_threshold = 80;
	d->wss_clean_period = 256;
	d->reserved_operations = 1;
	dev->rdi.ibdev.num_comp_vectors = 2;
}

static void ct_hfi1_pkeys(u16 *pkeys)
{
	pkeys[0] = 0x8001;	/* hfi1's limited management P_Key first */
	pkeys[1] = 0xffff;
}

static int ct_hfi1_mtu_enum_to_int(int mtu)
{
	return mtu == OPA_MTU_8192 || mtu == OPA_MTU_10240 ?
	       opa_mtu_enum_to_int(mtu) : ib_mtu_enum_to_int(mtu);
}

static int ct_hfi1_get_pmtu(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			    struct ib_qp_attr *attr)
{
	int mtu = ct_hfi1_mtu_enum_to_int(attr->path_mtu);
	int ret = mtu < 0 ? -EINVAL : mtu > 8192 ? OPA_MTU_8192 :
		  attr->path_mtu;

	ct_cb(CB_GET_PMTU_FROM_ATTR, qp, "path_mtu=%d -> %d", attr->path_mtu,
	      ret);
	return ret;
}

static u32 ct_hfi1_mtu_from_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			       u32 pmtu)
{
	int mtu = ct_hfi1_mtu_enum_to_int(pmtu);

	/* SL 15's VL is VL15, whose MTU is 2048. */
	if (qp->ibqp.qp_type != IB_QPT_UD &&
	    ct_hfi1_sc(rdma_ah_get_sl(&qp->remote_ah_attr)) == 0xf)
		mtu = min(mtu, CT_VL15_MTU);
	ct_cb(CB_MTU_FROM_QP, qp, "pmtu=%u -> %d", pmtu, mtu);
	return mtu;
}

static int ct_hfi1_mtu_to_path_mtu(u32 mtu)
{
	int ret = mtu == 8192 ? OPA_MTU_8192 : mtu == 10240 ? OPA_MTU_10240 :
		  ib_mtu_int_to_enum(mtu);

	ct_cb(CB_MTU_TO_PATH_MTU, NULL, "mtu=%u -> %d", mtu, ret);
	return ret;
}

static int ct_hfi1_check_ah(struct ib_device *ibdev, struct rdma_ah_attr *ah)
{
	int ret = rdma_ah_get_sl(ah) >= 32 ? -EINVAL : 0;

	ct_cb(CB_CHECK_AH, NULL, "type=%d dlid=%#x sl=%u port=%u -> %d",
	      ah->type, rdma_ah_get_dlid(ah), rdma_ah_get_sl(ah),
	      rdma_ah_get_port_num(ah), ret);
	return ret;
}

static void ct_hfi1_notify_new_ah(struct ib_device *ibdev,
				  struct rdma_ah_attr *attr, struct rvt_ah *ah)
{
	u8 sc = ct_hfi1_sc(rdma_ah_get_sl(attr));

	ah->vl = sc == 0xf ? 15 : sc & 7;
	ah->log_pmtu = ilog2(sc == 0xf ? CT_VL15_MTU : 4096);
	ct_cb(CB_NOTIFY_NEW_AH, NULL, "type=%d dlid=%#x sl=%u -> vl=%u log_pmtu=%u",
	      attr->type, rdma_ah_get_dlid(attr), rdma_ah_get_sl(attr),
	      ah->vl, ah->log_pmtu);
}

static int ct_hfi1_qp_priv_init(struct rvt_dev_info *rdi, struct rvt_qp *qp,
				struct ib_qp_init_attr *init_attr)
{
	ct_cb(CB_QP_PRIV_INIT, qp, "qpn=%#x type=%d port=%u send_wr=%u recv_wr=%u srq=%d",
	      qp->ibqp.qp_num, init_attr->qp_type, init_attr->port_num,
	      init_attr->cap.max_send_wr, init_attr->cap.max_recv_wr,
	      !!init_attr->srq);
	return 0;
}

static int ct_hfi1_check_modify_qp(struct rvt_qp *qp, struct ib_qp_attr *attr,
				   int attr_mask, struct ib_udata *udata)
{
	int ret = 0;

	if ((attr_mask & IB_QP_AV) &&
	    ct_hfi1_sc(rdma_ah_get_sl(&attr->ah_attr)) == 0xf)
		ret = -EINVAL;
	if ((attr_mask & IB_QP_ALT_PATH) &&
	    ct_hfi1_sc(rdma_ah_get_sl(&attr->alt_ah_attr)) == 0xf)
		ret = -EINVAL;
	ct_cb(CB_CHECK_MODIFY_QP, qp, "mask=%#x state=%s -> %d", attr_mask,
	      ct_state_name(qp->state), ret);
	return ret;
}

static void ct_hfi1_modify_qp(struct rvt_qp *qp, struct ib_qp_attr *attr,
			      int attr_mask, struct ib_udata *udata)
{
	ct_cb(CB_MODIFY_QP, qp, "mask=%#x state=%s pmtu=%u remote_qpn=%#x",
	      attr_mask, ct_state_name(qp->state), qp->pmtu, qp->remote_qpn);
}

static int ct_hfi1_setup_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			     bool *call_send)
{
	bool in = *call_send;
	int ret = 0;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		ret = ct_rc_uc_wqe(qp, wqe, call_send);
		break;
	case IB_QPT_SMI:
		if (wqe->length > CT_VL15_MTU)
			ret = -EINVAL;
		break;
	default:
		if (wqe->length > (1U << rvt_get_swqe_ah(wqe)->log_pmtu) ||
		    ct_hfi1_sc(rdma_ah_get_sl(rvt_get_swqe_ah_attr(wqe))) == 0xf)
			ret = -EINVAL;
		break;
	}
	if (!ret && wqe->length <= CT_PIOTHRESHOLD)
		*call_send = true;
	return ct_wqe_done(qp, wqe, in, *call_send, ret);
}

static int ct_hfi1_comp_vect(struct rvt_dev_info *rdi, int comp_vect)
{
	int cpu = cpumask_first(cpu_online_mask);

	ct_cb(CB_COMP_VECT_CPU_LOOKUP, NULL, "vect=%d -> first online cpu",
	      comp_vect);
	return cpu;
}

static void ct_hfi1_callbacks(struct rvt_driver_provided *f)
{
	ct_set_common_callbacks(f);
	f->get_pmtu_from_attr = ct_hfi1_get_pmtu;
	f->mtu_from_qp = ct_hfi1_mtu_from_qp;
	f->mtu_to_path_mtu = ct_hfi1_mtu_to_path_mtu;
	f->check_ah = ct_hfi1_check_ah;
	f->notify_new_ah = ct_hfi1_notify_new_ah;
	f->qp_priv_init = ct_hfi1_qp_priv_init;
	f->check_modify_qp = ct_hfi1_check_modify_qp;
	f->modify_qp = ct_hfi1_modify_qp;
	f->setup_wqe = ct_hfi1_setup_wqe;
	f->comp_vect_cpu_lookup = ct_hfi1_comp_vect;
}

/* hfi1's operations beyond qib's (hfi1/qp.c, hfi1/verbs.c). */
static const struct ct_wr_op ct_hfi1_more_wr_ops[RVT_OPERATION_MAX] = {
	[IB_WR_REG_MR] = CT_WR_OP(ib_reg_wr, CT_RC_UC, RVT_OPERATION_LOCAL,
			       IB_WC_REG_MR),
	[IB_WR_LOCAL_INV] = CT_WR_OP(ib_send_wr, CT_RC_UC, RVT_OPERATION_LOCAL,
				  IB_WC_LOCAL_INV),
	[IB_WR_SEND_WITH_INV] =
		CT_WR_OP(ib_send_wr, BIT(IB_QPT_RC), 0, IB_WC_SEND),
	/* hfi1's completion table has no entry for it: 0 */
	[CT_WR_OPFN] = CT_WR_OP(ib_atomic_wr, BIT(IB_QPT_RC),
			     RVT_OPERATION_USE_RESERVE, 0),
	[IB_WR_TID_RDMA_WRITE] = CT_WR_OP(ib_rdma_wr, BIT(IB_QPT_RC),
				       RVT_OPERATION_IGN_RNR_CNT,
				       IB_WC_RDMA_WRITE),
	/* Not in the post table (hfi1 makes these itself): a completion. */
	[IB_WR_TID_RDMA_READ] = { .wc = IB_WC_RDMA_READ },
};

const struct ct_pers ct_hfi1 = {
	.name = "hfi1",
	.driver_id = RDMA_DRIVER_HFI1,
	.opa = true,
	/* NUM_IB_PORTS (hfi1/init.c) */
	.nports = 1,
	/* init_ibport() (hfi1/verbs.c): OPA's capability mask bits only */
	.port_cap_flags = IB_PORT_AUTO_MIGR_SUP | IB_PORT_CAP_MASK_NOTICE_SUP,
	.set_params = ct_hfi1_params,
	.set_callbacks = ct_hfi1_callbacks,
	.init_pkeys = ct_hfi1_pkeys,
	.wr_ops = ct_ib_wr_ops,
	.more_wr_ops = ct_hfi1_more_wr_ops,
};

/* ---- qib ---------------------------------------------------------- */

static void ct_qib_params(struct ct_dev *dev, unsigned int qp_table_size)
{
	struct rvt_driver_params *d = &dev->rdi.dparms;

	ct_set_props(&d->props, false);
	d->props.max_pkeys = 4;
	d->qp_table_size = qp_table_size;
	d->qpn_start = 1;
	d->qpn_inc = 1;
	d->qos_shift = 1;
	d->qpn_res_start = CT_QIB_KD_QP;
	d->qpn_res_end = CT_QIB_KD_QP;
	d->max_rdma_atomic = 16;
	d->psn_mask = 0xffffff;
	d->psn_shift = 8;
	d->psn_modify_mask = 0xffffff;
	d->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	d->max_mad_size = IB_MGMT_MAD_SIZE;
	d->lkey_table_size = 16;
	d->npkeys = 4;
	d->sge_copy_mode = RVT_SGE_COPY_MEMCPY;
}

static void ct_qib_pkeys(u16 *pkeys)
{
	pkeys[0] = 0xffff;
}

static int ct_qib_get_pmtu(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   struct ib_qp_attr *attr)
{
	int mtu = ib_mtu_enum_to_int(attr->path_mtu);
	int ret = mtu < 0 ? -EINVAL : mtu > 4096 ? IB_MTU_4096 : attr->path_mtu;

	ct_cb(CB_GET_PMTU_FROM_ATTR, qp, "path_mtu=%d -> %d", attr->path_mtu,
	      ret);
	return ret;
}

static u32 ct_qib_mtu_from_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			      u32 pmtu)
{
	int mtu = ib_mtu_enum_to_int(pmtu);

	ct_cb(CB_MTU_FROM_QP, qp, "pmtu=%u -> %d", pmtu, mtu);
	return mtu;
}

static int ct_qib_mtu_to_path_mtu(u32 mtu)
{
	int ret = ib_mtu_int_to_enum(mtu);

	ct_cb(CB_MTU_TO_PATH_MTU, NULL, "mtu=%u -> %d", mtu, ret);
	return ret;
}

static int ct_qib_check_ah(struct ib_device *ibdev, struct rdma_ah_attr *ah)
{
	u32 dlid = rdma_ah_get_dlid(ah);
	int ret = 0;

	if (rdma_ah_get_sl(ah) > 15 || !dlid)
		ret = -EINVAL;
	else if (dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
		 dlid != be16_to_cpu(IB_LID_PERMISSIVE) &&
		 !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		ret = -EINVAL;
	ct_cb(CB_CHECK_AH, NULL, "type=%d dlid=%#x sl=%u port=%u -> %d",
	      ah->type, dlid, rdma_ah_get_sl(ah), rdma_ah_get_port_num(ah),
	      ret);
	return ret;
}

static void ct_qib_notify_new_ah(struct ib_device *ibdev,
				 struct rdma_ah_attr *attr, struct rvt_ah *ah)
{
	ah->vl = rdma_ah_get_sl(attr) & 7;
	ah->log_pmtu = ilog2(4096);
	ct_cb(CB_NOTIFY_NEW_AH, NULL, "type=%d dlid=%#x sl=%u -> vl=%u log_pmtu=%u",
	      attr->type, rdma_ah_get_dlid(attr), rdma_ah_get_sl(attr),
	      ah->vl, ah->log_pmtu);
}

static int ct_qib_setup_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			    bool *call_send)
{
	bool connected = qp->ibqp.qp_type == IB_QPT_RC ||
			 qp->ibqp.qp_type == IB_QPT_UC;
	bool in = *call_send;
	int ret = -EINVAL;

	if (connected) {
		ret = ct_rc_uc_wqe(qp, wqe, call_send);
	} else if (wqe->length <= (1U << rvt_get_swqe_ah(wqe)->log_pmtu)) {
		/* a datagram that fits goes out at once */
		*call_send = true;
		ret = 0;
	}
	return ct_wqe_done(qp, wqe, in, *call_send, ret);
}

/* A page of the QPN bitmap, installed under the table's lock as qib does. */
static unsigned long *ct_qib_map_page(struct rvt_qpn_table *qpt, u32 index)
{
	struct rvt_qpn_map *map = &qpt->map[index];
	unsigned long page;

	if (map->page)
		return map->page;
	page = get_zeroed_page(GFP_KERNEL);
	if (!page)
		return NULL;
	spin_lock(&qpt->lock);
	if (map->page)
		free_page(page);
	else
		map->page = (void *)page;
	if (index >= qpt->nmaps)
		qpt->nmaps = index + 1;
	spin_unlock(&qpt->lock);
	return map->page;
}

/*
 * qib picks QPNs itself: two ahead of the last one handed out, then the
 * first free one upwards, wrapping to 2 at the top of the space.
 */
static int ct_qib_scan_qpn(struct rvt_qpn_table *qpt)
{
	u32 qpn = qpt->last + 2, scanned = 0;

	while (scanned < RVT_QPN_MAX) {
		u32 index, bit;
		unsigned long *page;

		if (qpn >= RVT_QPN_MAX)
			qpn = 2;
		index = qpn / RVT_BITS_PER_PAGE;
		page = ct_qib_map_page(qpt, index);
		if (!page)
			return -ENOMEM;
		bit = find_next_zero_bit(page, RVT_BITS_PER_PAGE,
					 qpn & RVT_BITS_PER_PAGE_MASK);
		if (bit < RVT_BITS_PER_PAGE) {
			qpn = index * RVT_BITS_PER_PAGE + bit;
			if (!test_and_set_bit(bit, page)) {
				qpt->last = qpn;
				return qpn;
			}
			continue;
		}
		scanned += RVT_BITS_PER_PAGE - (qpn & RVT_BITS_PER_PAGE_MASK);
		qpn = (index + 1) * RVT_BITS_PER_PAGE;
	}
	return -ENOMEM;
}

static int ct_qib_alloc_qpn(struct rvt_dev_info *rdi, struct rvt_qpn_table *qpt,
			    enum ib_qp_type type, u32 port_num)
{
	int ret;

	if (type == IB_QPT_SMI || type == IB_QPT_GSI) {
		u32 bit = BIT((type == IB_QPT_GSI) + 2 * (port_num - 1));

		ret = type == IB_QPT_GSI;
		spin_lock(&qpt->lock);
		if (qpt->flags & bit)
			ret = -EINVAL;
		else
			qpt->flags |= bit;
		spin_unlock(&qpt->lock);
	} else {
		ret = ct_qib_scan_qpn(qpt);
	}
	ct_cb(CB_ALLOC_QPN, NULL, "type=%d port=%u -> %#x", type, port_num,
	      ret);
	return ret;
}

static void ct_qib_notify_create_mad_agent(struct rvt_dev_info *rdi,
					   int port_idx)
{
	struct rvt_ibport *rvp = rdi->ports[port_idx];

	ct_cb(CB_NOTIFY_CREATE_MAD_AGENT, NULL, "port_idx=%d agent=%s qp0=%s qp1=%s",
	      port_idx, rvp->send_agent ? "set" : "none",
	      rcu_access_pointer(rvp->qp[0]) ? "set" : "none",
	      rcu_access_pointer(rvp->qp[1]) ? "set" : "none");
}

static void ct_qib_notify_free_mad_agent(struct rvt_dev_info *rdi,
					 int port_idx)
{
	struct rvt_ibport *rvp = rdi->ports[port_idx];

	ct_cb(CB_NOTIFY_FREE_MAD_AGENT, NULL, "port_idx=%d agent=%s sm_ah=%s qp0=%s qp1=%s",
	      port_idx, rvp->send_agent ? "set" : "none",
	      rvp->sm_ah ? "set" : "none",
	      rcu_access_pointer(rvp->qp[0]) ? "set" : "none",
	      rcu_access_pointer(rvp->qp[1]) ? "set" : "none");
}

static void ct_qib_callbacks(struct rvt_driver_provided *f)
{
	ct_set_common_callbacks(f);
	f->get_pmtu_from_attr = ct_qib_get_pmtu;
	f->mtu_from_qp = ct_qib_mtu_from_qp;
	f->mtu_to_path_mtu = ct_qib_mtu_to_path_mtu;
	f->check_ah = ct_qib_check_ah;
	f->notify_new_ah = ct_qib_notify_new_ah;
	f->setup_wqe = ct_qib_setup_wqe;
	f->alloc_qpn = ct_qib_alloc_qpn;
	f->notify_create_mad_agent = ct_qib_notify_create_mad_agent;
	f->notify_free_mad_agent = ct_qib_notify_free_mad_agent;
}

const struct ct_pers ct_qib = {
	.name = "qib",
	.driver_id = RDMA_DRIVER_QIB,
	.opa = false,
	/* a QLE7342: the dual-port member of qib's family (qib_iba7322.c) */
	.nports = 2,
	/* init_ibport() (qib/qib_verbs.c), no link latency support */
	.port_cap_flags = IB_PORT_SYS_IMAGE_GUID_SUP |
			  IB_PORT_CLIENT_REG_SUP | IB_PORT_SL_MAP_SUP |
			  IB_PORT_TRAP_SUP | IB_PORT_AUTO_MIGR_SUP |
			  IB_PORT_DR_NOTICE_SUP |
			  IB_PORT_CAP_MASK_NOTICE_SUP |
			  IB_PORT_OTHER_LOCAL_CHANGES_SUP,
	.set_params = ct_qib_params,
	.set_callbacks = ct_qib_callbacks,
	.init_pkeys = ct_qib_pkeys,
	.wr_ops = ct_ib_wr_ops,
};
