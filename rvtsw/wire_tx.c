// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Packets leave an HCA port here: onto the port's link to its switch,
 * or, for one of the port's own LIDs, straight back into the port's own
 * receive queue, as an HCA loops back what it sends itself.
 *
 * Flow control: every packet a QP sends is charged to it until the
 * packet is freed, wherever that happens (its receiver, once done with
 * it; a queue or a switch that drops it). A QP has at most
 * RVTSW_TX_INFLIGHT packets charged; its send engine asks
 * rvtsw_tx_room() before it builds one, and when there is none it stops
 * with RVTSW_TX_WAITING set, and the packet whose release makes room
 * again schedules the engine. A charged packet holds a reference on its
 * QP (rvt_get_qp()), which a QP's destruction waits for, so the release
 * never meets a freed QP. Nothing else queues packets but the receive
 * queues, which are bounded (wire_rx.c): no path holds an unbounded
 * number of packets.
 *
 * The module parameter wire_all sends everything through this path,
 * traffic to a port's own LIDs included, which otherwise takes rdmavt's
 * loopback engine (RC, UC) or direct delivery (UD), so that every test
 * of the verbs can run over the packet engine.
 */
#include "wire.h"

static bool wire_all;
module_param(wire_all, bool, 0444);
MODULE_PARM_DESC(wire_all,
		 "Send everything as packets, traffic to a port's own LID too, instead of rdmavt's loopback engine (RC, UC) and direct delivery (UD) (default N)");

/* Packets a QP may have charged at once. */
#define RVTSW_TX_INFLIGHT 64
/* Bit of rvtsw_qp_priv.tx_flags: the engine waits for room. */
#define RVTSW_TX_WAITING 0

/**
 * rvtsw_wire_all - does everything go through the packet engine?
 *
 * Context: any.
 * Return: the module parameter wire_all, fixed at load.
 */
bool rvtsw_wire_all(void)
{
	return wire_all;
}

/**
 * rvtsw_sge_copy_out - copy a payload out of SGEs
 * @ss: the SGE state, advanced past what is copied; no MR reference is
 *	dropped
 * @dst: where to
 * @len: how much; the SGEs hold at least that
 *
 * Context: any.
 */
void rvtsw_sge_copy_out(struct rvt_sge_state *ss, void *dst, u32 len)
{
	while (len) {
		u32 n = rvt_get_sge_length(&ss->sge, len);

		if (!n)		/* cannot happen: the SGEs hold @len */
			break;
		memcpy(dst, ss->sge.vaddr, n);
		rvt_update_sge(ss, n, false);
		dst += n;
		len -= n;
	}
}

/**
 * rvtsw_conn_hdr - start the headers of a connected QP's packet
 * @qp: the RC or UC QP
 * @hdr: the headers to build
 * @opcode: the packet's opcode
 * @psn: its PSN, with IB_BTH_REQ_ACK to ask for an ACK
 *
 * LRH and GRH from the QP's address vector, BTH with the QP's P_Key and
 * its peer's QPN; the caller adds the extension headers.
 *
 * Context: any, the QP's s_lock held (the address vector is stable).
 */
void rvtsw_conn_hdr(struct rvt_qp *qp, struct rvtsw_hdr *hdr, u8 opcode,
		    u32 psn)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rdma_ah_attr *ah = &qp->remote_ah_attr;
	struct rvtsw_port *port = rvtsw_qp_port(qp);
	struct rvtsw_lrh_fields lrh = {
		.dlid = rdma_ah_get_dlid(ah),
		.slid = READ_ONCE(port->lid) | rdma_ah_get_path_bits(ah),
		.sl = rdma_ah_get_sl(ah),
	};
	struct ib_grh grh;
	bool global = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;

	if (global)
		rvtsw_grh_init(&grh, port, ah);
	rvtsw_hdr_init(hdr, &lrh, global ? &grh : NULL);
	rvtsw_hdr_bth(hdr, opcode,
		      rvt_get_pkey(rdi, qp->port_num - 1, qp->s_pkey_index),
		      qp->remote_qpn, psn);
	if (qp->s_mig_state == IB_MIG_MIGRATED)
		hdr->ohdr->bth[0] |= cpu_to_be32(IB_BTH_MIG_REQ);
}

/**
 * rvtsw_conn_transmit - send what a connected QP's engine built
 * @qp: the QP
 * @tx: the packet's headers, and where its payload comes from
 *
 * The payload is copied out of @tx->ss, which advances past it whether
 * or not the packet could be made (a packet lost for want of memory is
 * lost as on a wire: RC sends it again).
 *
 * Context: the QP's send engine (RVT_S_BUSY), no lock held.
 */
void rvtsw_conn_transmit(struct rvt_qp *qp, struct rvtsw_tx *tx)
{
	struct rvtsw_port *port = rvtsw_qp_port(qp);
	struct sk_buff *skb;
	void *payload;

	skb = rvtsw_pkt_alloc(&tx->hdr, tx->len, &payload);
	if (!skb) {
		if (tx->len)
			rvt_skip_sge(tx->ss, tx->len, false);
		rvtsw_count(port, RVTSW_CNT_DROP_NOMEM);
		return;
	}
	if (tx->len)
		rvtsw_sge_copy_out(tx->ss, payload, tx->len);
	rvtsw_pkt_finish(skb);
	rvtsw_tx_charge(qp, skb);
	rvtsw_port_xmit(port, skb);
}

/* A charged packet is freed: release its charge, and its QP. */
static void rvtsw_tx_release(struct sk_buff *skb)
{
	struct rvt_qp *qp = rvtsw_skb_cb(skb)->owner;
	struct rvtsw_qp_priv *priv = qp->priv;

	if (atomic_dec_return(&priv->tx_inflight) < RVTSW_TX_INFLIGHT / 2 &&
	    test_and_clear_bit(RVTSW_TX_WAITING, &priv->tx_flags))
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	rvt_put_qp(qp);
}

/**
 * rvtsw_tx_charge - charge a packet to the QP that sends it
 * @qp: the QP
 * @skb: the packet, just built
 *
 * Context: any.
 */
void rvtsw_tx_charge(struct rvt_qp *qp, struct sk_buff *skb)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	rvt_get_qp(qp);
	atomic_inc(&priv->tx_inflight);
	rvtsw_skb_cb(skb)->owner = qp;
	skb->destructor = rvtsw_tx_release;
}

/**
 * rvtsw_tx_room - may a QP's engine build another packet?
 * @qp: the QP
 *
 * If not, the engine must stop: the release of one of the QP's packets
 * schedules it again. The flag is set before the count is read again,
 * and a release clears it after its decrement, so a release between
 * the two reads is not missed.
 *
 * Context: the QP's send engine (RVT_S_BUSY).
 * Return: true if the QP has room for a packet.
 */
bool rvtsw_tx_room(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	if (atomic_read(&priv->tx_inflight) < RVTSW_TX_INFLIGHT)
		return true;
	set_bit(RVTSW_TX_WAITING, &priv->tx_flags);
	/* The flag before the count: pairs with the release's decrement. */
	smp_mb__after_atomic();
	if (atomic_read(&priv->tx_inflight) < RVTSW_TX_INFLIGHT / 2) {
		clear_bit(RVTSW_TX_WAITING, &priv->tx_flags);
		return true;
	}
	return false;
}

/*
 * Can @port's link carry @skb now? Subnet management (VL15) crosses a
 * link that is up, anything else needs the port ACTIVE.
 */
static bool rvtsw_port_carries(struct rvtsw_port *port, struct sk_buff *skb)
{
	if (rvtsw_skb_vl15(skb))
		return rvtsw_port_link_up(port);
	return rvtsw_port_active(port);
}

/**
 * rvtsw_port_loop - hand a packet to a port's own receive side
 * @port: the port
 * @skb: the packet, finished; the port's now
 *
 * Context: any; does not sleep.
 */
void rvtsw_port_loop(struct rvtsw_port *port, struct sk_buff *skb)
{
	port->end.ops->receive(&port->end, skb);
}

/**
 * rvtsw_port_xmit - send a packet out of a port
 * @port: the port
 * @skb: the packet, finished; the port's now
 *
 * The port counts it as sent on its link. If the link cannot carry it,
 * it is dropped and counted; if it is for one of the port's own LIDs,
 * it goes to the port's own receive queue; anything else crosses the
 * link to the switch.
 *
 * Context: any; does not sleep.
 */
void rvtsw_port_xmit(struct rvtsw_port *port, struct sk_buff *skb)
{
	rvtsw_count(port, RVTSW_CNT_TX_LINK);
	rvtsw_count_n(port, RVTSW_CNT_TX_WORDS,
		      (skb->len - RVTSW_VCRC_BYTES) / 4);
	if (!rvtsw_port_carries(port, skb)) {
		rvtsw_count(port, RVTSW_CNT_DROP_LINK);
		kfree_skb(skb);
		return;
	}
	if (rvtsw_port_owns_lid(port, rvtsw_skb_dlid(skb))) {
		rvtsw_port_loop(port, skb);
		return;
	}
	rvtsw_switch_receive(port->sw, port->sw_port, skb);
}
