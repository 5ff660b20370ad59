// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Datagram delivery: UD, GSI and SMI send requests, from the sending QP's
 * send queue straight into the receiving QPs' receive queues.
 *
 * The destination is found as a switch would: by DLID, among the ports of
 * every rvtsw device (fabric.c), then by QPN on that port (unicast) or
 * through the port's multicast group (a multicast DLID and the GRH's
 * MGID). Whatever the receiver refuses (no such QP, wrong Q_Key or P_Key,
 * no receive posted, a receive too small) is dropped and counted, as a
 * datagram lost on a wire would be; the sender's request completes
 * successfully all the same.
 *
 * Locking: the sender holds no lock while it delivers (qp.c keeps the
 * request its own with RVT_S_BUSY). The destination port and QPs are
 * found and used under rcu_read_lock(): a QP leaves the QP table, and a
 * device the fabric, before they go away. Each receiving QP is worked on
 * under its r_lock, which guards its receive state (r_sge, r_flags,
 * r_wr_id); its state is checked under the same lock.
 */
#include <rdma/ib_hdrs.h>
#include <rdma/ib_pack.h>
#include "rvtsw.h"

/**
 * struct rvtsw_datagram - one send request on its way to its receivers
 * @sqp: the sending QP
 * @wqe: its request
 * @ah: the request's copy of the address vector
 * @sport: the sending port
 * @qkey: the Q_Key it carries (the request's, or the sending QP's)
 * @pkey: the P_Key it carries
 * @grh: the GRH it carries, if @ah has one
 * @words: its length on a link in 4-byte words, the LRH's PktLen
 */
struct rvtsw_datagram {
	struct rvt_qp *sqp;
	struct rvt_swqe *wqe;
	struct rdma_ah_attr *ah;
	struct rvtsw_port *sport;
	u32 qkey;
	u16 pkey;
	struct ib_grh grh;
	u32 words;
};

/* A datagram's PktLen: LRH, GRH if any, BTH, DETH, padded payload, ICRC. */
static u32 rvtsw_dg_words(const struct rvtsw_datagram *dg, bool grh)
{
	u32 bytes = IB_LRH_BYTES + IB_BTH_BYTES + IB_DETH_BYTES +
		    ALIGN(dg->wqe->length, 4) + IB_ICRC_BYTES;

	if (grh)
		bytes += IB_GRH_BYTES;
	return bytes / 4;
}

static bool rvtsw_dg_has_grh(const struct rvtsw_datagram *dg)
{
	return rdma_ah_get_ah_flags(dg->ah) & IB_AH_GRH;
}

/* The GRH a wire would have carried; rvtsw's ports have one GID each. */
static void rvtsw_dg_make_grh(struct rvtsw_datagram *dg)
{
	const struct ib_global_route *route = rdma_ah_read_grh(dg->ah);
	struct ib_grh *grh = &dg->grh;
	u32 paylen = IB_BTH_BYTES + IB_DETH_BYTES + ALIGN(dg->wqe->length, 4) +
		     IB_ICRC_BYTES;

	grh->version_tclass_flow =
		cpu_to_be32(IB_GRH_VERSION << IB_GRH_VERSION_SHIFT |
			    route->traffic_class << IB_GRH_TCLASS_SHIFT |
			    (route->flow_label & IB_GRH_FLOW_MASK));
	grh->paylen = cpu_to_be16(paylen);
	grh->next_hdr = IB_GRH_NEXT_HDR;
	grh->hop_limit = route->hop_limit;
	grh->sgid.global.subnet_prefix = dg->sport->rvp.gid_prefix;
	grh->sgid.global.interface_id = dg->sport->guid;
	grh->dgid = route->dgid;
}

static void rvtsw_dg_init(struct rvtsw_datagram *dg, struct rvt_qp *sqp,
			  struct rvt_swqe *wqe)
{
	struct rvt_dev_info *rdi = ib_to_rvt(sqp->ibqp.device);
	u32 qkey = rvt_get_swqe_remote_qkey(wqe);
	u16 pkey_index;

	dg->sqp = sqp;
	dg->wqe = wqe;
	dg->ah = rvt_get_swqe_ah_attr(wqe);
	dg->sport = rvtsw_qp_port(sqp);
	/* A Q_Key with the high bit set means "use the QP's" (IBTA 10.2.5). */
	dg->qkey = (qkey & BIT(31)) ? sqp->qkey : qkey;
	/* GSI picks the P_Key per request; other QPs have theirs. */
	pkey_index = sqp->ibqp.qp_type == IB_QPT_GSI ?
		     rvt_get_swqe_pkey_index(wqe) : sqp->s_pkey_index;
	dg->pkey = rvt_get_pkey(rdi, sqp->port_num - 1, pkey_index);
	if (rvtsw_dg_has_grh(dg))
		rvtsw_dg_make_grh(dg);
	dg->words = rvtsw_dg_words(dg, rvtsw_dg_has_grh(dg));
}

/* @dg arrived at @dport over its link. */
static void rvtsw_dg_arrived(const struct rvtsw_datagram *dg,
			     struct rvtsw_port *dport, bool multicast)
{
	rvtsw_count(dport, RVTSW_CNT_RX_LINK);
	rvtsw_count_n(dport, RVTSW_CNT_RX_WORDS, dg->words);
	if (multicast)
		rvtsw_count(dport, RVTSW_CNT_RX_LINK_MCAST);
}

/* Two P_Keys match: same partition, not both limited members. */
static bool rvtsw_pkeys_match(u16 a, u16 b)
{
	u16 partition = a & 0x7fff;

	return partition && partition == (b & 0x7fff) && ((a | b) & 0x8000);
}

/*
 * The P_Key index the receiver reports, or -1 if @dg's P_Key is not
 * accepted: QP0 takes any P_Key, QP1 any in its port's table, other QPs
 * only one matching their own.
 */
static int rvtsw_pkey_index(const struct rvtsw_datagram *dg,
			    struct rvtsw_port *dport, struct rvt_qp *dqp)
{
	struct rvt_dev_info *rdi = &dport->dev->rdi;
	unsigned int i;
	u16 own;

	switch (dqp->ibqp.qp_num) {
	case 0:
		return 0;
	case 1:
		for (i = 0; i < rvt_get_npkeys(rdi); i++)
			if (rvtsw_pkeys_match(dg->pkey, dport->pkeys[i]))
				return i;
		return -1;
	default:
		own = rvt_get_pkey(rdi, dport->port_num - 1, dqp->s_pkey_index);
		return rvtsw_pkeys_match(dg->pkey, own) ? dqp->s_pkey_index : -1;
	}
}

/*
 * Count what became of a datagram at @port; a key mismatch also in the
 * IBTA violation counters, which saturate and which the port lock guards.
 */
static void rvtsw_count_outcome(struct rvtsw_port *port,
				enum rvtsw_counter outcome)
{
	unsigned long flags;
	u16 *violations;

	rvtsw_count(port, outcome);
	if (outcome == RVTSW_CNT_DROP_PKEY)
		violations = &port->rvp.pkey_violations;
	else if (outcome == RVTSW_CNT_DROP_QKEY)
		violations = &port->rvp.qkey_violations;
	else
		return;
	spin_lock_irqsave(&port->rvp.lock, flags);
	if (*violations != U16_MAX)
		(*violations)++;
	spin_unlock_irqrestore(&port->rvp.lock, flags);
}

/* Can @dqp take a datagram from @sqp at all? GSI QPs are UD QPs here. */
static bool rvtsw_ud_types_match(struct rvt_qp *sqp, struct rvt_qp *dqp)
{
	enum ib_qp_type stype = sqp->ibqp.qp_type, dtype = dqp->ibqp.qp_type;

	if (stype == IB_QPT_GSI)
		stype = IB_QPT_UD;
	if (dtype == IB_QPT_GSI)
		dtype = IB_QPT_UD;
	return stype == dtype;
}

/*
 * Does @dqp, on @dport, accept @dg? If so, set *@pkey_index to the index
 * it reports; if not, set *@why to the counter of the reason.
 */
static bool rvtsw_ud_accept(const struct rvtsw_datagram *dg,
			    struct rvtsw_port *dport, struct rvt_qp *dqp,
			    u16 *pkey_index, enum rvtsw_counter *why)
	__must_hold(&dqp->r_lock)
{
	int index;

	if (dqp->port_num != dport->port_num ||
	    !rvtsw_ud_types_match(dg->sqp, dqp) ||
	    !(ib_rvt_state_ops[dqp->state] & RVT_PROCESS_RECV_OK)) {
		*why = RVTSW_CNT_DROP_NO_QP;
		return false;
	}
	index = rvtsw_pkey_index(dg, dport, dqp);
	if (index < 0) {
		*why = RVTSW_CNT_DROP_PKEY;
		return false;
	}
	/* QP0 takes any Q_Key (IBTA 9.6.1.4.1). */
	if (dqp->ibqp.qp_num != 0 && dg->qkey != dqp->qkey) {
		*why = RVTSW_CNT_DROP_QKEY;
		return false;
	}
	*pkey_index = index;
	return true;
}

/*
 * Make @dqp's next receive WQE current, for a message of @byte_len
 * bytes. If there is none, or it is too small, set *@why to the counter
 * of the reason and return false. A WQE too small stays current for the
 * next datagram (RVT_R_REUSE_SGE).
 */
static bool rvtsw_ud_take_rwqe(struct rvt_qp *dqp, u32 byte_len,
			       enum rvtsw_counter *why)
	__must_hold(&dqp->r_lock)
{
	int ret;

	if (dqp->r_flags & RVT_R_REUSE_SGE) {
		dqp->r_flags &= ~RVT_R_REUSE_SGE;
	} else {
		ret = rvt_get_rwqe(dqp, false);
		if (ret < 0)	/* a corrupt receive ring */
			rvt_rc_error(dqp, IB_WC_LOC_QP_OP_ERR);
		if (ret <= 0) {
			*why = RVTSW_CNT_DROP_NO_RWQE;
			return false;
		}
	}
	if (byte_len > dqp->r_len) {
		dqp->r_flags |= RVT_R_REUSE_SGE;
		*why = RVTSW_CNT_DROP_TOO_LONG;
		return false;
	}
	return true;
}

/* Copy the request's payload into @dqp's current receive WQE. */
static void rvtsw_ud_copy_payload(struct rvt_qp *dqp, struct rvt_swqe *wqe)
	__must_hold(&dqp->r_lock)
{
	/* A private cursor: several receivers may read the same request. */
	struct rvt_sge_state src = {
		.sge = wqe->sg_list[0],
		.sg_list = wqe->sg_list + 1,
		.num_sge = wqe->wr.num_sge,
	};
	u32 left = wqe->length;

	while (left) {
		u32 len = rvt_get_sge_length(&src.sge, left);

		if (!len)	/* cannot happen: length is the SGEs' sum */
			break;
		rvt_copy_sge(dqp, &dqp->r_sge, src.sge.vaddr, len, true, false);
		rvt_update_sge(&src, len, false);
		left -= len;
	}
}

/*
 * Place @dg in @dqp's receive WQE: the GRH, or 40 bytes left untouched
 * where it would be (a UD receive buffer always starts with them), then
 * the payload; then complete the receive.
 */
static void rvtsw_ud_place(const struct rvtsw_datagram *dg,
			   struct rvt_qp *dqp, struct ib_wc *wc)
	__must_hold(&dqp->r_lock)
{
	if (rvtsw_dg_has_grh(dg)) {
		rvt_copy_sge(dqp, &dqp->r_sge, (void *)&dg->grh,
			     sizeof(dg->grh), true, false);
		wc->wc_flags |= IB_WC_GRH;
	} else {
		rvt_skip_sge(&dqp->r_sge, sizeof(struct ib_grh), true);
	}
	rvtsw_ud_copy_payload(dqp, dg->wqe);
	rvt_put_ss(&dqp->r_sge);

	if (!test_and_clear_bit(RVT_R_WRID_VALID, &dqp->r_aflags))
		return;
	wc->wr_id = dqp->r_wr_id;
	rvt_recv_cq(dqp, wc, dg->wqe->wr.send_flags & IB_SEND_SOLICITED);
}

/* The receive completion @dg gives @dqp on @dport, before placement. */
static void rvtsw_ud_init_wc(struct ib_wc *wc,
			     const struct rvtsw_datagram *dg,
			     struct rvtsw_port *dport, struct rvt_qp *dqp,
			     u16 pkey_index)
{
	const struct ib_send_wr *wr = &dg->wqe->wr;

	memset(wc, 0, sizeof(*wc));
	wc->status = IB_WC_SUCCESS;
	wc->opcode = IB_WC_RECV;
	wc->qp = &dqp->ibqp;
	wc->byte_len = dg->wqe->length + sizeof(struct ib_grh);
	if (wr->opcode == IB_WR_SEND_WITH_IMM) {
		wc->wc_flags = IB_WC_WITH_IMM;
		wc->ex.imm_data = wr->ex.imm_data;
	}
	wc->src_qp = dg->sqp->ibqp.qp_num;
	wc->pkey_index = pkey_index;
	wc->slid = dg->sport->lid;
	wc->sl = rdma_ah_get_sl(dg->ah);
	wc->dlid_path_bits = rdma_ah_get_dlid(dg->ah) &
			     ((1U << RVTSW_LMC) - 1);
	wc->port_num = dport->port_num;
}

/* Deliver @dg to one receiving QP, or drop it and count why. */
static void rvtsw_ud_receive(const struct rvtsw_datagram *dg,
			     struct rvtsw_port *dport, struct rvt_qp *dqp)
	__must_hold(RCU)
{
	enum rvtsw_counter outcome = RVTSW_CNT_RX;
	unsigned long flags;
	struct ib_wc wc;
	u16 pkey_index;

	spin_lock_irqsave(&dqp->r_lock, flags);
	if (rvtsw_ud_accept(dg, dport, dqp, &pkey_index, &outcome)) {
		rvtsw_ud_init_wc(&wc, dg, dport, dqp, pkey_index);
		if (rvtsw_ud_take_rwqe(dqp, wc.byte_len, &outcome))
			rvtsw_ud_place(dg, dqp, &wc);
	}
	spin_unlock_irqrestore(&dqp->r_lock, flags);
	rvtsw_count_outcome(dport, outcome);
}

static void rvtsw_ud_unicast(const struct rvtsw_datagram *dg, u16 dlid)
	__must_hold(RCU)
{
	struct rvtsw_port *dport = rvtsw_fabric_port(dlid);
	struct rvt_qp *dqp;

	if (!dport || READ_ONCE(dport->state) != IB_PORT_ACTIVE) {
		rvtsw_count(dg->sport, RVTSW_CNT_DROP_UNKNOWN_LID);
		return;
	}
	rvtsw_dg_arrived(dg, dport, false);
	dqp = rvt_lookup_qpn(&dport->dev->rdi, &dport->rvp,
			     rvt_get_swqe_remote_qpn(dg->wqe));
	if (!dqp) {
		rvtsw_count(dport, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	rvtsw_ud_receive(dg, dport, dqp);
}

/*
 * Deliver @dg to every QP attached to its group on @dport. Return: false
 * if the port has no such group.
 */
static bool rvtsw_ud_to_group(const struct rvtsw_datagram *dg,
			      struct rvtsw_port *dport, u16 mlid)
	__must_hold(RCU)
{
	union ib_gid mgid = rdma_ah_read_grh(dg->ah)->dgid;
	struct rvt_mcast_qp *member;
	struct rvt_mcast *mcast;

	/* The reference keeps the group's members attached meanwhile. */
	mcast = rvt_mcast_find(&dport->rvp, &mgid, mlid);
	if (!mcast)
		return false;
	rvtsw_dg_arrived(dg, dport, true);
	list_for_each_entry_rcu(member, &mcast->qp_list, list)
		rvtsw_ud_receive(dg, dport, member->qp);
	/* Detach waits for the count to fall back to the tree's own. */
	if (atomic_dec_return(&mcast->refcount) <= 1)
		wake_up(&mcast->wait);
	return true;
}

/* A multicast datagram reaches the group's members on every port. */
static void rvtsw_ud_multicast(const struct rvtsw_datagram *dg, u16 mlid)
	__must_hold(RCU)
{
	struct rvtsw_port *dport = NULL;
	bool delivered = false;

	rvtsw_count(dg->sport, RVTSW_CNT_TX_MCAST);
	/* rvtsw_check_ah() lets no multicast AH without a GRH through. */
	if (!rvtsw_dg_has_grh(dg))
		goto unknown;
	while ((dport = rvtsw_fabric_next_port(dport))) {
		if (READ_ONCE(dport->state) == IB_PORT_ACTIVE &&
		    rvtsw_ud_to_group(dg, dport, mlid))
			delivered = true;
	}
	if (delivered)
		return;
unknown:
	rvtsw_count(dg->sport, RVTSW_CNT_DROP_UNKNOWN_LID);
}

static bool rvtsw_lid_is_multicast(u16 lid)
{
	return lid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	       lid != be16_to_cpu(IB_LID_PERMISSIVE);
}

/**
 * rvtsw_ud_send - deliver a datagram send request
 * @sqp: the sending UD, GSI or SMI QP
 * @wqe: its request
 *
 * Context: the send engine, no lock held, RVT_S_BUSY set on @sqp.
 * Return: IB_WC_SUCCESS: a datagram sender never learns its fate.
 */
enum ib_wc_status rvtsw_ud_send(struct rvt_qp *sqp, struct rvt_swqe *wqe)
{
	struct rvtsw_datagram dg;
	u16 dlid;

	rvtsw_dg_init(&dg, sqp, wqe);
	dlid = rdma_ah_get_dlid(dg.ah);
	rvtsw_count(dg.sport, RVTSW_CNT_TX);
	rvtsw_count_n(dg.sport, RVTSW_CNT_TX_WORDS, dg.words);

	rcu_read_lock();
	if (rvtsw_lid_is_multicast(dlid))
		rvtsw_ud_multicast(&dg, dlid);
	else
		rvtsw_ud_unicast(&dg, dlid);
	rcu_read_unlock();
	return IB_WC_SUCCESS;
}
