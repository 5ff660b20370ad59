// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Datagram delivery: UD, GSI and SMI send requests, from the sending QP's
 * send queue straight into the receiving QPs' receive queues.
 *
 * A datagram to one of the sending port's own LIDs stays in the HCA; any
 * other crosses the virtual switch (switch.c), which forwards it by its
 * tables: by DLID to one port (unicast), where it goes to a QP by QPN, or
 * to the ports of a multicast LID, where it goes to the QPs attached to
 * its group (the GRH's MGID) on each; a multicast datagram also reaches
 * the group's QPs on the sending port. Subnet management packets (SMI,
 * QP0) to the permissive LID are directed-route SMPs: the switch moves
 * them along their path, or its SMA answers them (switch_sma.c); so it
 * does with LID-routed SMPs to its own LID. Data leaves an ACTIVE port
 * and crosses the switch between ACTIVE ports; subnet management needs
 * only links that are up (link.c). Whatever the receiver refuses
 * (no such QP, wrong Q_Key or P_Key, no receive posted, a receive too
 * small, a DLID not its own) is dropped and counted, as a datagram lost
 * on a wire would be; the sender's request completes successfully all
 * the same.
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
 * struct rvtsw_datagram - one datagram on its way to its receivers
 * @sport: the port that sent it; NULL if the switch did
 * @type: the sending QP's type (GSI is UD here)
 * @src_qpn: the sending QP's number
 * @slid: its SLID
 * @dlid: its DLID
 * @dqpn: the destination QP (unicast)
 * @sl: its SL
 * @qkey: the Q_Key it carries (the request's, or the sending QP's)
 * @pkey: the P_Key it carries
 * @has_grh: whether it carries @grh
 * @grh: the GRH it carries
 * @wqe: the send request whose SGEs hold the payload, or NULL
 * @buf: the payload, when @wqe is NULL
 * @length: the payload's length
 * @solicited: the solicited event bit
 * @has_imm: whether it carries @imm
 * @imm: immediate data
 * @words: its length on a link in 4-byte words, the LRH's PktLen
 */
struct rvtsw_datagram {
	struct rvtsw_port *sport;
	enum ib_qp_type type;
	u32 src_qpn;
	u16 slid;
	u16 dlid;
	u32 dqpn;
	u8 sl;
	u32 qkey;
	u16 pkey;
	bool has_grh;
	struct ib_grh grh;
	struct rvt_swqe *wqe;
	const void *buf;
	u32 length;
	bool solicited;
	bool has_imm;
	__be32 imm;
	u32 words;
};

/* A datagram's PktLen: LRH, GRH if any, BTH, DETH, padded payload, ICRC. */
static u32 rvtsw_dg_words(const struct rvtsw_datagram *dg)
{
	u32 bytes = IB_LRH_BYTES + IB_BTH_BYTES + IB_DETH_BYTES +
		    ALIGN(dg->length, 4) + IB_ICRC_BYTES;

	if (dg->has_grh)
		bytes += IB_GRH_BYTES;
	return bytes / 4;
}

/* The GRH a wire would have carried; rvtsw's ports have one GID each. */
static void rvtsw_dg_make_grh(struct rvtsw_datagram *dg,
			      const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *route = rdma_ah_read_grh(ah);
	struct ib_grh *grh = &dg->grh;
	u32 paylen = IB_BTH_BYTES + IB_DETH_BYTES + ALIGN(dg->length, 4) +
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

/* The datagram a send request makes. */
static void rvtsw_dg_init(struct rvtsw_datagram *dg, struct rvt_qp *sqp,
			  struct rvt_swqe *wqe)
{
	struct rvt_dev_info *rdi = ib_to_rvt(sqp->ibqp.device);
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	u32 qkey = rvt_get_swqe_remote_qkey(wqe);
	u16 pkey_index;

	memset(dg, 0, sizeof(*dg));
	dg->sport = rvtsw_qp_port(sqp);
	dg->type = sqp->ibqp.qp_type == IB_QPT_GSI ? IB_QPT_UD :
						     sqp->ibqp.qp_type;
	dg->src_qpn = sqp->ibqp.qp_num;
	dg->slid = READ_ONCE(dg->sport->lid);
	dg->dlid = rdma_ah_get_dlid(ah);
	dg->dqpn = rvt_get_swqe_remote_qpn(wqe);
	dg->sl = rdma_ah_get_sl(ah);
	/* A Q_Key with the high bit set means "use the QP's" (IBTA 10.2.5). */
	dg->qkey = (qkey & BIT(31)) ? sqp->qkey : qkey;
	/* GSI picks the P_Key per request; other QPs have theirs. */
	pkey_index = sqp->ibqp.qp_type == IB_QPT_GSI ?
		     rvt_get_swqe_pkey_index(wqe) : sqp->s_pkey_index;
	dg->pkey = rvt_get_pkey(rdi, sqp->port_num - 1, pkey_index);
	dg->wqe = wqe;
	dg->length = wqe->length;
	dg->solicited = wqe->wr.send_flags & IB_SEND_SOLICITED;
	if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM) {
		dg->has_imm = true;
		dg->imm = wqe->wr.ex.imm_data;
	}
	dg->has_grh = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;
	if (dg->has_grh)
		rvtsw_dg_make_grh(dg, ah);
	dg->words = rvtsw_dg_words(dg);
}

/*
 * The datagram the switch sends an HCA's QP0: an SMP it forwards or
 * answers, in @smp, from @slid (the permissive LID on a directed route).
 * @sport, the port the request came from, counts it if it is dropped.
 */
static void rvtsw_dg_init_smp(struct rvtsw_datagram *dg,
			      struct rvtsw_port *sport,
			      const struct ib_smp *smp, u16 slid, u16 dlid)
{
	memset(dg, 0, sizeof(*dg));
	dg->sport = sport;
	dg->type = IB_QPT_SMI;
	dg->slid = slid;
	dg->dlid = dlid;
	dg->pkey = IB_DEFAULT_PKEY_FULL;
	dg->buf = smp;
	dg->length = sizeof(*smp);
	dg->words = rvtsw_dg_words(dg);
}

/*
 * A private cursor over a request's SGEs: several receivers may read the
 * same request, and the request's own state stays the sender's.
 */
static struct rvt_sge_state rvtsw_wqe_cursor(struct rvt_swqe *wqe)
{
	return (struct rvt_sge_state) {
		.sge = wqe->sg_list[0],
		.sg_list = wqe->sg_list + 1,
		.num_sge = wqe->wr.num_sge,
	};
}

/* Copy a request's payload, exactly @len bytes of it, to @buf. */
static void rvtsw_dg_copy_out(const struct rvtsw_datagram *dg, void *buf,
			      u32 len)
{
	struct rvt_sge_state src = rvtsw_wqe_cursor(dg->wqe);

	while (len) {
		u32 n = rvt_get_sge_length(&src.sge, len);

		if (!n)
			break;
		memcpy(buf, src.sge.vaddr, n);
		rvt_update_sge(&src, n, false);
		buf += n;
		len -= n;
	}
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

/* Can @dqp take a datagram of @dg's type at all? GSI is UD here. */
static bool rvtsw_ud_types_match(const struct rvtsw_datagram *dg,
				 struct rvt_qp *dqp)
{
	enum ib_qp_type dtype = dqp->ibqp.qp_type;

	if (dtype == IB_QPT_GSI)
		dtype = IB_QPT_UD;
	return dg->type == dtype;
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
	    !rvtsw_ud_types_match(dg, dqp) ||
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

/* Copy the datagram's payload into @dqp's current receive WQE. */
static void rvtsw_ud_copy_payload(struct rvt_qp *dqp,
				  const struct rvtsw_datagram *dg)
	__must_hold(&dqp->r_lock)
{
	struct rvt_sge_state src;
	u32 left = dg->length;

	if (!dg->wqe) {
		rvt_copy_sge(dqp, &dqp->r_sge, (void *)dg->buf, left, true,
			     false);
		return;
	}
	src = rvtsw_wqe_cursor(dg->wqe);

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
	if (dg->has_grh) {
		rvt_copy_sge(dqp, &dqp->r_sge, (void *)&dg->grh,
			     sizeof(dg->grh), true, false);
		wc->wc_flags |= IB_WC_GRH;
	} else {
		rvt_skip_sge(&dqp->r_sge, sizeof(struct ib_grh), true);
	}
	rvtsw_ud_copy_payload(dqp, dg);
	rvt_put_ss(&dqp->r_sge);

	if (!test_and_clear_bit(RVT_R_WRID_VALID, &dqp->r_aflags))
		return;
	wc->wr_id = dqp->r_wr_id;
	rvt_recv_cq(dqp, wc, dg->solicited);
}

/* The receive completion @dg gives @dqp on @dport, before placement. */
static void rvtsw_ud_init_wc(struct ib_wc *wc,
			     const struct rvtsw_datagram *dg,
			     struct rvtsw_port *dport, struct rvt_qp *dqp,
			     u16 pkey_index)
{
	memset(wc, 0, sizeof(*wc));
	wc->status = IB_WC_SUCCESS;
	wc->opcode = IB_WC_RECV;
	wc->qp = &dqp->ibqp;
	wc->byte_len = dg->length + sizeof(struct ib_grh);
	if (dg->has_imm) {
		wc->wc_flags = IB_WC_WITH_IMM;
		wc->ex.imm_data = dg->imm;
	}
	wc->src_qp = dg->src_qpn;
	wc->pkey_index = pkey_index;
	wc->slid = dg->slid;
	wc->sl = dg->sl;
	wc->dlid_path_bits = dg->dlid & ((1U << RVTSW_LMC) - 1);
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

/*
 * Can @dport take @dg at all? Its link must be up, and ACTIVE for all but
 * subnet management; the DLID must be its own, or the permissive LID of
 * a directed-route SMP.
 */
static bool rvtsw_ud_port_accepts(const struct rvtsw_datagram *dg,
				  struct rvtsw_port *dport)
{
	if (dg->type == IB_QPT_SMI)
		return rvtsw_port_link_up(dport) &&
		       (dg->dlid == be16_to_cpu(IB_LID_PERMISSIVE) ||
			rvtsw_port_owns_lid(dport, dg->dlid));
	return rvtsw_port_active(dport) && rvtsw_port_owns_lid(dport, dg->dlid);
}

/* @dg reaches @dport (or nothing): hand it to the QP it names. */
static void rvtsw_ud_to_port(const struct rvtsw_datagram *dg,
			     struct rvtsw_port *dport)
	__must_hold(RCU)
{
	struct rvt_qp *dqp;

	if (!dport) {
		rvtsw_count(dg->sport, RVTSW_CNT_DROP_UNKNOWN_LID);
		return;
	}
	rvtsw_dg_arrived(dg, dport, false);
	if (!rvtsw_ud_port_accepts(dg, dport)) {
		rvtsw_count(dport, RVTSW_CNT_DROP_UNKNOWN_LID);
		return;
	}
	dqp = rvt_lookup_qpn(&dport->dev->rdi, &dport->rvp, dg->dqpn);
	if (!dqp) {
		rvtsw_count(dport, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	rvtsw_ud_receive(dg, dport, dqp);
}

/* Is @dg a whole SMP, a QP0 datagram of the size every SMP has? */
static bool rvtsw_dg_is_smp(const struct rvtsw_datagram *dg)
{
	return dg->type == IB_QPT_SMI && !dg->dqpn &&
	       dg->length == sizeof(struct ib_smp);
}

/*
 * A directed-route SMP leaves its port for the switch, which moves it on
 * a hop (or answers it) and sends it out of the port the path says.
 */
static void rvtsw_ud_dr_smp(const struct rvtsw_datagram *dg)
	__must_hold(RCU)
{
	struct rvtsw_switch *sw = dg->sport->sw;
	struct rvtsw_datagram out;
	struct ib_smp smp;
	u8 port;

	if (!rvtsw_dg_is_smp(dg)) {
		rvtsw_count(dg->sport, RVTSW_CNT_DROP_UNKNOWN_LID);
		return;
	}
	rvtsw_dg_copy_out(dg, &smp, sizeof(smp));
	port = rvtsw_switch_dr_smp(sw, &smp, dg->sport->sw_port);
	rvtsw_dg_init_smp(&out, dg->sport, &smp,
			  be16_to_cpu(IB_LID_PERMISSIVE),
			  be16_to_cpu(IB_LID_PERMISSIVE));
	rvtsw_ud_to_port(&out, rvtsw_switch_link(sw, port));
}

/*
 * A LID-routed SMP to the switch's own LID: its SMA answers it, to the
 * request's SLID, by the switch's LFT.
 */
static void rvtsw_ud_to_switch(const struct rvtsw_datagram *dg)
	__must_hold(RCU)
{
	struct rvtsw_switch *sw = dg->sport->sw;
	struct rvtsw_datagram out;
	struct ib_smp smp;

	if (!rvtsw_dg_is_smp(dg)) {
		rvtsw_count(dg->sport, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	rvtsw_dg_copy_out(dg, &smp, sizeof(smp));
	switch (rvtsw_switch_lr_smp(sw, &smp, dg->sport->sw_port)) {
	case RVTSW_SWITCH_ANSWER:
		break;
	case RVTSW_SWITCH_CONSUMED:
		return;
	default:
		rvtsw_count(dg->sport, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	rvtsw_dg_init_smp(&out, dg->sport, &smp, READ_ONCE(sw->lid), dg->slid);
	rvtsw_ud_to_port(&out, rvtsw_switch_link(sw,
						 rvtsw_switch_lft(sw, dg->slid)));
}

/**
 * rvtsw_ud_from_switch - an SMP the switch sends on its own, a trap
 * @sw: the switch
 * @smp: the SMP, LID-routed
 * @slid: the switch's LID
 * @dlid: the destination, by the switch's LFT
 *
 * Context: process context, no lock held.
 */
void rvtsw_ud_from_switch(struct rvtsw_switch *sw, const struct ib_smp *smp,
			  u16 slid, u16 dlid)
{
	struct rvtsw_datagram dg;
	struct rvtsw_port *dport;

	rcu_read_lock();
	dport = rvtsw_switch_link(sw, rvtsw_switch_lft(sw, dlid));
	/* No port there: lost, as on a wire; no sender to count it. */
	if (dport) {
		rvtsw_dg_init_smp(&dg, NULL, smp, slid, dlid);
		rvtsw_ud_to_port(&dg, dport);
	}
	rcu_read_unlock();
}

static void rvtsw_ud_unicast(const struct rvtsw_datagram *dg)
	__must_hold(RCU)
{
	struct rvtsw_switch *sw = dg->sport->sw;
	bool smp = dg->type == IB_QPT_SMI;
	struct rvtsw_port *dport;
	u8 out;

	dport = rvtsw_switch_route(sw, dg->sport, dg->dlid, &out);
	if (!rvtsw_switch_carries(sw, dg->sport, out, smp))
		rvtsw_count(dg->sport, RVTSW_CNT_DROP_LINK);
	else if (!dport && !out)
		rvtsw_ud_to_switch(dg);
	else
		rvtsw_ud_to_port(dg, dport);
}

/*
 * Deliver @dg to every QP attached to its group on @dport. Return: false
 * if the port has no such group.
 */
static bool rvtsw_ud_to_group(const struct rvtsw_datagram *dg,
			      struct rvtsw_port *dport)
	__must_hold(RCU)
{
	/* A copy: rdmavt's lookup takes no const MGID. */
	union ib_gid mgid = dg->grh.dgid;
	struct rvt_mcast_qp *member;
	struct rvt_mcast *mcast;

	if (!rvtsw_port_active(dport))
		return false;
	/* The reference keeps the group's members attached meanwhile. */
	mcast = rvt_mcast_find(&dport->rvp, &mgid, dg->dlid);
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

/*
 * A multicast datagram reaches the group's members on the sending port,
 * and through the switch on every other port its MFT entry names.
 */
static void rvtsw_ud_multicast(const struct rvtsw_datagram *dg)
	__must_hold(RCU)
{
	struct rvtsw_switch *sw = dg->sport->sw;
	bool delivered;
	unsigned int port;

	rvtsw_count(dg->sport, RVTSW_CNT_TX_MCAST);
	/* rvtsw_check_ah() lets no multicast AH without a GRH through. */
	if (!dg->has_grh)
		goto unknown;
	delivered = rvtsw_ud_to_group(dg, dg->sport);
	for (port = 1; port <= sw->nports; port++) {
		struct rvtsw_port *dport;

		if (port == dg->sport->sw_port ||
		    !rvtsw_switch_mft_has(sw, dg->dlid, port) ||
		    !rvtsw_switch_passes(sw, dg->sport->sw_port, port, false))
			continue;
		dport = rvtsw_switch_link(sw, port);
		if (dport && rvtsw_ud_to_group(dg, dport))
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

	rvtsw_dg_init(&dg, sqp, wqe);
	/* A port sends subnet management while its link is up, data once
	 * it is ACTIVE: until then, the link would not carry it.
	 */
	if (dg.type == IB_QPT_SMI ? !rvtsw_port_link_up(dg.sport) :
				    !rvtsw_port_active(dg.sport)) {
		rvtsw_count(dg.sport, RVTSW_CNT_DROP_LINK);
		return IB_WC_SUCCESS;
	}
	rvtsw_count(dg.sport, RVTSW_CNT_TX);
	rvtsw_count_n(dg.sport, RVTSW_CNT_TX_WORDS, dg.words);

	rcu_read_lock();
	if (dg.dlid == be16_to_cpu(IB_LID_PERMISSIVE))
		rvtsw_ud_dr_smp(&dg);
	else if (rvtsw_lid_is_multicast(dg.dlid))
		rvtsw_ud_multicast(&dg);
	else
		rvtsw_ud_unicast(&dg);
	rcu_read_unlock();
	return IB_WC_SUCCESS;
}
