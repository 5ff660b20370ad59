// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Datagrams arrive: UD, GSI and SMI datagrams, from a packet that
 * arrived at a port (wire_rx.c) or straight from a sender of the same
 * port (ud.c), are placed in their receiving QPs' receive queues.
 *
 * A unicast datagram goes to the QP its destination QPN names on the
 * port; a multicast one to every QP attached to its group there (the
 * GRH's MGID). Whatever the receiver refuses (no such QP, the wrong
 * type, wrong Q_Key or P_Key, no receive posted, a receive too small) is
 * dropped and counted on the receiving port, as a datagram lost on a
 * wire would be.
 *
 * Locking: the receiving QPs are found and used under rcu_read_lock()
 * (rvt_lookup_qpn(), the group's member list), which every caller holds:
 * a QP leaves the QP table, and a group its member, before they go away.
 * Each receiving QP is worked on under its r_lock, which guards its
 * receive state (r_sge, r_flags, r_wr_id); its state is checked under
 * the same lock.
 */
#include <rdma/ib_hdrs.h>
#include "dgram.h"
#include "wire.h"

/**
 * rvtsw_count_outcome - count what became of a packet that arrived
 * @port: the port it arrived at
 * @outcome: the counter
 *
 * A key mismatch counts in IBTA's violation counters too, which
 * saturate and which the port's lock guards.
 *
 * Context: any; takes the port's lock with interrupts saved.
 */
void rvtsw_count_outcome(struct rvtsw_port *port,
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

/**
 * rvtsw_ud_to_port - deliver a unicast datagram at its port
 * @dg: the datagram, for one of @dport's LIDs (or a directed-route SMP)
 * @dport: the port it reached
 *
 * Context: RCU read side, any context; takes the receiving QP's r_lock
 * with interrupts saved.
 */
void rvtsw_ud_to_port(const struct rvtsw_datagram *dg,
		      struct rvtsw_port *dport)
	__must_hold(RCU)
{
	struct rvt_qp *dqp;

	dqp = rvt_lookup_qpn(&dport->dev->rdi, &dport->rvp, dg->dqpn);
	if (!dqp) {
		rvtsw_count(dport, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	rvtsw_ud_receive(dg, dport, dqp);
}

/**
 * rvtsw_ud_to_group - deliver a multicast datagram at a port
 * @dg: the datagram, with a GRH whose DGID names the group
 * @dport: the port it reached
 *
 * Every QP attached to the group on @dport gets it; a port with no such
 * group drops it and counts an unknown LID.
 *
 * Context: as rvtsw_ud_to_port().
 * Return: true if the port has the group.
 */
bool rvtsw_ud_to_group(const struct rvtsw_datagram *dg,
		       struct rvtsw_port *dport)
	__must_hold(RCU)
{
	/* A copy: rdmavt's lookup takes no const MGID. */
	union ib_gid mgid = dg->grh.dgid;
	struct rvt_mcast_qp *member;
	struct rvt_mcast *mcast;

	/* The reference keeps the group's members attached meanwhile. */
	mcast = dg->has_grh ? rvt_mcast_find(&dport->rvp, &mgid, dg->dlid) :
			      NULL;
	if (!mcast) {
		rvtsw_count(dport, RVTSW_CNT_DROP_UNKNOWN_LID);
		return false;
	}
	list_for_each_entry_rcu(member, &mcast->qp_list, list)
		rvtsw_ud_receive(dg, dport, member->qp);
	/* Detach waits for the count to fall back to the tree's own. */
	if (atomic_dec_return(&mcast->refcount) <= 1)
		wake_up(&mcast->wait);
	return true;
}

/* The datagram a UD packet carries, its payload left in the packet. */
static void rvtsw_dg_from_pkt(struct rvtsw_datagram *dg,
			      const struct rvtsw_pkt *pkt)
{
	struct ib_other_headers *ohdr = pkt->ohdr;

	memset(dg, 0, sizeof(*dg));
	dg->type = pkt->dqpn ? IB_QPT_UD : IB_QPT_SMI;
	dg->src_qpn = ib_get_sqpn(ohdr);
	dg->slid = pkt->lrh.slid;
	dg->dlid = pkt->lrh.dlid;
	dg->dqpn = pkt->dqpn;
	dg->sl = pkt->lrh.sl;
	dg->qkey = ib_get_qkey(ohdr);
	dg->pkey = pkt->pkey;
	if (pkt->grh) {
		dg->has_grh = true;
		dg->grh = *pkt->grh;
	}
	dg->buf = pkt->payload;
	dg->length = pkt->paylen;
	dg->solicited = pkt->solicited;
	if (pkt->flags & RVTSW_OPF_IMM) {
		dg->has_imm = true;
		dg->imm = ohdr->u.ud.imm_data;
	}
	dg->words = pkt->words;
}

/**
 * rvtsw_ud_rx - a UD packet arrived at a port
 * @port: the port; the packet is for it (wire_rx.c checked its DLID)
 * @pkt: the packet, checked
 *
 * Context: the port's receive worker (softirq), RCU read side.
 */
void rvtsw_ud_rx(struct rvtsw_port *port, const struct rvtsw_pkt *pkt)
	__must_hold(RCU)
{
	struct rvtsw_datagram dg;

	rvtsw_dg_from_pkt(&dg, pkt);
	if (pkt->dqpn == RVTSW_MULTICAST_QPN)
		rvtsw_ud_to_group(&dg, port);
	else
		rvtsw_ud_to_port(&dg, port);
}
