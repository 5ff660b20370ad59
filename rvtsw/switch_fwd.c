// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The switch forwards packets (IBTA vol. 1, 18.2.4): one that arrives by
 * an external port leaves by the port its tables name, to whatever is
 * at the other end of that port's link (struct rvtsw_link_end). A
 * unicast DLID goes by the LinearForwardingTable, a multicast one to
 * every port of its MulticastForwardingTable entry but the one it came
 * by. Subnet management packets for the switch itself (directed-route
 * SMPs, and LID-routed ones to its LID, which the LFT sends to port 0)
 * go to its SMI and SMA (switch_sma.c), which forward them along their
 * path or answer them with packets of their own.
 *
 * A port checks what a link checks of every packet that arrives (its
 * lengths, LRH and VCRC); a packet for the switch's SMA is checked
 * whole, ICRC included. A packet an HCA of this host built and nothing
 * changed since is trusted: its CRCs are not checked (wire_pkt.c). A
 * fault knob (debugfs, for tests) drops chosen packets of one opcode,
 * as a wire might lose them. Data crosses the switch between ACTIVE
 * ports, subnet management between ports whose links are up (link.c). The
 * switch keeps no counters of its own: a packet it drops is counted, by
 * the reason, on the end of the link it came from (for an HCA port, in
 * that port's counters).
 *
 * Context and locking: the switch forwards in the sender's context (an
 * HCA port's transmit), any number of packets at once; it reads its
 * tables entry by entry without a lock (switch.c) and its peers under
 * rcu_read_lock().
 */
#include <rdma/ib_mad.h>
#include "wire.h"

/* Count a packet that came by port @in (0: the switch's own) as lost. */
static void rvtsw_switch_lost(struct rvtsw_switch *sw, unsigned int in,
			      enum rvtsw_counter why)
	__must_hold(RCU)
{
	struct rvtsw_link_end *end;

	if (!in || in > sw->nports)
		return;
	end = rcu_dereference(sw->peer[in]);
	if (end)
		end->ops->lost(end, why);
}

/*
 * Send @skb, which came by port @in (0: the switch's own), out of port
 * @out, if the ports' states let it cross; @blame is the port whose
 * sender hears of a loss (the request's, for an SMA's answer).
 */
static void rvtsw_switch_egress(struct rvtsw_switch *sw, unsigned int in,
				unsigned int out, unsigned int blame,
				struct sk_buff *skb)
	__must_hold(RCU)
{
	struct rvtsw_link_end *peer = NULL;
	enum rvtsw_counter why = RVTSW_CNT_DROP_UNKNOWN_LID;

	/* Port 0 is the switch's own: no data for it crosses. */
	if (out <= sw->nports) {
		why = RVTSW_CNT_DROP_LINK;
		if (out && rvtsw_switch_passes(sw, in, out,
					       rvtsw_skb_vl15(skb))) {
			why = RVTSW_CNT_DROP_UNKNOWN_LID;
			peer = rcu_dereference(sw->peer[out]);
		}
	}
	if (!peer) {
		rvtsw_switch_lost(sw, blame, why);
		kfree_skb(skb);
		return;
	}
	peer->ops->receive(peer, skb);
}

/*
 * The packet an SMP of the switch's makes: a UD SEND_ONLY from QP0 to
 * QP0 on VL15, from @slid to @dlid. Return: the packet, or NULL.
 */
static struct sk_buff *rvtsw_switch_smp_packet(const struct ib_smp *smp,
					       u16 slid, u16 dlid)
{
	struct rvtsw_lrh_fields lrh = {
		.dlid = dlid, .slid = slid, .vl = RVTSW_VL15,
	};
	struct rvtsw_hdr hdr;
	struct sk_buff *skb;
	void *payload;

	rvtsw_hdr_init(&hdr, &lrh, NULL);
	rvtsw_hdr_bth(&hdr, IB_OPCODE_UD_SEND_ONLY, IB_DEFAULT_PKEY_FULL, 0, 0);
	skb = rvtsw_pkt_alloc(&hdr, sizeof(*smp), &payload);
	if (!skb)
		return NULL;
	memcpy(payload, smp, sizeof(*smp));
	rvtsw_pkt_finish(skb);
	return skb;
}

/*
 * Send an SMP of the switch's, its answer to a request that came by port
 * @blame or its own trap (@blame 0), to @dlid out of port @out.
 */
static void rvtsw_switch_send(struct rvtsw_switch *sw, const struct ib_smp *smp,
			      u16 slid, u16 dlid, unsigned int out,
			      unsigned int blame)
	__must_hold(RCU)
{
	struct sk_buff *skb = rvtsw_switch_smp_packet(smp, slid, dlid);

	if (!skb) {
		rvtsw_switch_lost(sw, blame, RVTSW_CNT_DROP_NOMEM);
		return;
	}
	rvtsw_switch_egress(sw, 0, out, blame, skb);
}

/*
 * Is @pkt a whole SMP, a QP0 datagram on VL15 of the size every SMP has?
 * If so, copy it to @smp.
 */
static bool rvtsw_switch_get_smp(const struct rvtsw_pkt *pkt,
				 struct ib_smp *smp)
{
	if (pkt->opcode != IB_OPCODE_UD_SEND_ONLY || pkt->dqpn ||
	    pkt->lrh.vl != RVTSW_VL15 || pkt->paylen != sizeof(*smp))
		return false;
	memcpy(smp, pkt->payload, sizeof(*smp));
	return true;
}

/*
 * A directed-route SMP: the switch's SMI moves it a hop along its path,
 * or its SMA answers it, and it leaves by the port the path names.
 */
static void rvtsw_switch_dr(struct rvtsw_switch *sw, unsigned int in,
			    const struct rvtsw_pkt *pkt)
	__must_hold(RCU)
{
	u16 permissive = be16_to_cpu(IB_LID_PERMISSIVE);
	struct ib_smp smp;
	u8 out;

	if (!rvtsw_switch_get_smp(pkt, &smp)) {
		rvtsw_switch_lost(sw, in, RVTSW_CNT_DROP_UNKNOWN_LID);
		return;
	}
	out = rvtsw_switch_dr_smp(sw, &smp, in);
	if (!out) {
		rvtsw_switch_lost(sw, in, RVTSW_CNT_DROP_UNKNOWN_LID);
		return;
	}
	rvtsw_switch_send(sw, &smp, permissive, permissive, out, in);
}

/*
 * A LID-routed SMP to the switch's own LID: its SMA answers it, to the
 * request's SLID, by the switch's LFT.
 */
static void rvtsw_switch_lr(struct rvtsw_switch *sw, unsigned int in,
			    const struct rvtsw_pkt *pkt)
	__must_hold(RCU)
{
	u16 slid = pkt->lrh.slid;
	struct ib_smp smp;

	if (!rvtsw_switch_get_smp(pkt, &smp)) {
		rvtsw_switch_lost(sw, in, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	switch (rvtsw_switch_lr_smp(sw, &smp, in)) {
	case RVTSW_SWITCH_ANSWER:
		rvtsw_switch_send(sw, &smp, READ_ONCE(sw->lid), slid,
				  rvtsw_switch_lft(sw, slid), in);
		break;
	case RVTSW_SWITCH_CONSUMED:
		break;
	default:
		rvtsw_switch_lost(sw, in, RVTSW_CNT_DROP_NO_QP);
		break;
	}
}

/*
 * A packet for the switch itself (a directed-route SMP, or a LID-routed
 * one to its LID): checked whole, then handed to the SMI or the SMA.
 */
static void rvtsw_switch_local(struct rvtsw_switch *sw, unsigned int in,
			       struct sk_buff *skb, bool directed)
	__must_hold(RCU)
{
	enum rvtsw_pkt_verdict verdict;
	struct rvtsw_pkt pkt;

	verdict = rvtsw_pkt_parse(skb, &pkt);
	if (verdict != RVTSW_PKT_OK)
		rvtsw_switch_lost(sw, in, rvtsw_pkt_drop_counter(verdict));
	else if (directed)
		rvtsw_switch_dr(sw, in, &pkt);
	else
		rvtsw_switch_lr(sw, in, &pkt);
	consume_skb(skb);
}

/*
 * A multicast packet leaves by every port of its MLID's MFT entry but
 * the one it came by, each a copy; none if the entry names none.
 */
static void rvtsw_switch_flood(struct rvtsw_switch *sw, unsigned int in,
			       u16 mlid, struct sk_buff *skb)
	__must_hold(RCU)
{
	unsigned int port;

	for (port = 1; port <= sw->nports; port++) {
		struct sk_buff *copy;

		if (port == in || !rvtsw_switch_mft_has(sw, mlid, port) ||
		    !rcu_access_pointer(sw->peer[port]))
			continue;
		copy = skb_clone(skb, GFP_ATOMIC);
		if (!copy) {
			rvtsw_switch_lost(sw, in, RVTSW_CNT_DROP_NOMEM);
			continue;
		}
		rvtsw_switch_egress(sw, in, port, in, copy);
	}
	consume_skb(skb);
}

/*
 * A unicast packet: by the LFT to a port, or, an SMP whose LFT entry is
 * port 0, to the switch's own SMA (data is not for the switch).
 */
static void rvtsw_switch_unicast(struct rvtsw_switch *sw, unsigned int in,
				 const struct rvtsw_lrh_fields *lrh,
				 struct sk_buff *skb)
	__must_hold(RCU)
{
	u8 out = rvtsw_switch_lft(sw, lrh->dlid);

	if (!out && lrh->vl == RVTSW_VL15)
		rvtsw_switch_local(sw, in, skb, false);
	else
		rvtsw_switch_egress(sw, in, out, in, skb);
}

/* Send @skb, which came by port @in and whose LRH says @lrh, on. */
static void rvtsw_switch_forward_to(struct rvtsw_switch *sw, unsigned int in,
				    const struct rvtsw_lrh_fields *lrh,
				    struct sk_buff *skb)
{
	rcu_read_lock();
	if (lrh->dlid == be16_to_cpu(IB_LID_PERMISSIVE))
		rvtsw_switch_local(sw, in, skb, true);
	else if (rvtsw_lid_is_multicast(lrh->dlid))
		rvtsw_switch_flood(sw, in, lrh->dlid, skb);
	else
		rvtsw_switch_unicast(sw, in, lrh, skb);
	rcu_read_unlock();
}

/* Count a packet that came by port @in as lost, for @why, and free it. */
static void rvtsw_switch_drop(struct rvtsw_switch *sw, unsigned int in,
			      struct sk_buff *skb, enum rvtsw_counter why)
{
	rcu_read_lock();
	rvtsw_switch_lost(sw, in, why);
	rcu_read_unlock();
	kfree_skb(skb);
}

/**
 * rvtsw_switch_release_held - send on what the fault knob holds
 * @sw: the switch
 *
 * The held packets go on in the order they came, as they came.
 *
 * Context: process context.
 */
void rvtsw_switch_release_held(struct rvtsw_switch *sw)
{
	struct rvtsw_lrh_fields lrh;
	enum rvtsw_pkt_verdict verdict;
	struct sk_buff_head list;
	struct sk_buff *skb;
	unsigned int in;

	__skb_queue_head_init(&list);
	rvtsw_fault_take_held(&sw->fault, &list);
	local_bh_disable();
	while ((skb = __skb_dequeue(&list))) {
		in = rvtsw_skb_cb(skb)->in;
		verdict = rvtsw_pkt_check_link(skb, &lrh);
		if (verdict != RVTSW_PKT_OK)
			rvtsw_switch_drop(sw, in, skb,
					  rvtsw_pkt_drop_counter(verdict));
		else
			rvtsw_switch_forward_to(sw, in, &lrh, skb);
	}
	local_bh_enable();
}

/**
 * rvtsw_switch_receive - a packet arrives at a switch port
 * @sw: the switch
 * @in: the external port it arrives by
 * @skb: the packet, from its LRH to its VCRC; the switch's now
 *
 * Context: any; does not sleep.
 */
void rvtsw_switch_receive(struct rvtsw_switch *sw, unsigned int in,
			  struct sk_buff *skb)
{
	struct rvtsw_lrh_fields lrh;
	enum rvtsw_pkt_verdict verdict;

	verdict = rvtsw_pkt_check_link(skb, &lrh);
	if (verdict != RVTSW_PKT_OK) {
		rvtsw_switch_drop(sw, in, skb, rvtsw_pkt_drop_counter(verdict));
		return;
	}
	/* A packet the knob changes goes on by its LRH as it came. */
	switch (rvtsw_fault_apply(sw, in, skb)) {
	case RVTSW_FAULT_DROP:
		rvtsw_switch_drop(sw, in, skb, RVTSW_CNT_DROP_FAULT);
		return;
	case RVTSW_FAULT_HOLD:
		return;
	default:
		break;
	}
	rvtsw_switch_forward_to(sw, in, &lrh, skb);
}

/**
 * rvtsw_switch_send_smp - send an SMP from the switch's own port 0
 * @sw: the switch
 * @smp: the SMP, LID-routed (a trap)
 * @dlid: its destination, reached by the switch's LFT
 *
 * A packet that cannot go is lost, as on a wire; no sender counts it.
 *
 * Context: process context, no lock held.
 */
void rvtsw_switch_send_smp(struct rvtsw_switch *sw, const struct ib_smp *smp,
			   u16 dlid)
{
	rcu_read_lock();
	rvtsw_switch_send(sw, smp, READ_ONCE(sw->lid), dlid,
			  rvtsw_switch_lft(sw, dlid), 0);
	rcu_read_unlock();
}
