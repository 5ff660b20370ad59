// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Packets arrive at an HCA port here: the port's end of its link takes
 * them into the port's receive queue, and the port's worker checks each
 * (wire_pkt.c) and hands it to its transport's receiver.
 *
 * The queue holds at most RVTSW_RXQ_MAX packets; one that finds it full
 * is dropped and counted, as a port's receive buffers overflow. The
 * worker is a work item of system_bh_wq: it runs in softirq context, one
 * run at a time per port, RVTSW_RX_BUDGET packets a run before it lets
 * others have the CPU. It looks a packet's QP up under rcu_read_lock()
 * (rvt_lookup_qpn()), which it holds for the whole run: a QP leaves
 * rdmavt's table, and an RCU grace period passes, before it is freed.
 * The receivers take the QP's locks in rdmavt's order, r_lock before
 * s_lock, and never one QP's lock inside another's.
 *
 * A device's ports stop receiving after the device is unregistered
 * (rvtsw_rx_stop()): by then every QP is gone, and the packets still
 * queued are dropped.
 */
#include "wire.h"

/* Packets a port's receive queue holds at most. */
#define RVTSW_RXQ_MAX 1024
/* Packets the worker handles a run. */
#define RVTSW_RX_BUDGET 64

/*
 * Is @pkt for @port at all? Subnet management needs the link up,
 * anything else the port ACTIVE; the DLID must be the port's own, a
 * multicast LID for a UD datagram to the multicast QPN, or the
 * permissive LID for a directed-route SMP.
 */
static bool rvtsw_rx_for_port(struct rvtsw_port *port,
			      const struct rvtsw_pkt *pkt)
{
	bool smp = pkt->lrh.vl == RVTSW_VL15;
	u16 dlid = pkt->lrh.dlid;

	if (smp ? !rvtsw_port_link_up(port) : !rvtsw_port_active(port))
		return false;
	if (rvtsw_lid_is_multicast(dlid))
		return (pkt->opcode & ~0x1f) == IB_OPCODE_UD &&
		       pkt->dqpn == RVTSW_MULTICAST_QPN;
	if (dlid == be16_to_cpu(IB_LID_PERMISSIVE))
		return smp;
	return rvtsw_port_owns_lid(port, dlid);
}

/* Count a packet's arrival on the port's link, whatever becomes of it. */
static void rvtsw_rx_arrived(struct rvtsw_port *port, struct sk_buff *skb)
{
	rvtsw_count(port, RVTSW_CNT_RX_LINK);
	rvtsw_count_n(port, RVTSW_CNT_RX_WORDS,
		      (skb->len - RVTSW_VCRC_BYTES) / 4);
	if (skb->len >= RVTSW_LRH_BYTES &&
	    rvtsw_lid_is_multicast(rvtsw_skb_dlid(skb)))
		rvtsw_count(port, RVTSW_CNT_RX_LINK_MCAST);
}

/*
 * Is @pkt from @qp's peer? A connected QP takes packets only from the
 * address it is connected to: the SLID its path names, with its P_Key,
 * and with a GRH from the path's GID if the path has one.
 */
static bool rvtsw_rx_from_peer(struct rvtsw_port *port, struct rvt_qp *qp,
			       const struct rvtsw_pkt *pkt)
{
	struct rdma_ah_attr *ah = &qp->remote_ah_attr;
	bool global = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;
	u16 pkey = rvt_get_pkey(&port->dev->rdi, qp->port_num - 1,
				qp->s_pkey_index);

	if (!rvtsw_pkeys_match(pkt->pkey, pkey)) {
		rvtsw_count_outcome(port, RVTSW_CNT_DROP_PKEY);
		return false;
	}
	if (pkt->lrh.slid != rdma_ah_get_dlid(ah) || global != !!pkt->grh ||
	    (global && memcmp(&pkt->grh->sgid, &rdma_ah_read_grh(ah)->dgid,
			      sizeof(union ib_gid)))) {
		rvtsw_count(port, RVTSW_CNT_DROP_NO_QP);
		return false;
	}
	return true;
}

/* An RC or UC packet: to its QP's responder, or to its requester. */
static void rvtsw_rx_connected(struct rvtsw_port *port,
			       const struct rvtsw_pkt *pkt)
	__must_hold(RCU)
{
	struct rvt_qp *qp;
	unsigned long flags;
	u8 op = pkt->opcode & 0x1f;

	qp = rvt_lookup_qpn(&port->dev->rdi, &port->rvp, pkt->dqpn);
	if (!qp || qp->port_num != port->port_num ||
	    (pkt->opcode & ~0x1f) != qp->allowed_ops) {
		rvtsw_count(port, RVTSW_CNT_DROP_NO_QP);
		return;
	}
	if (!rvtsw_rx_from_peer(port, qp, pkt))
		return;
	spin_lock_irqsave(&qp->r_lock, flags);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK))
		rvtsw_count(port, RVTSW_CNT_DROP_NO_QP);
	else if (pkt->paylen > qp->pmtu)
		rvtsw_count(port, RVTSW_CNT_DROP_OVERSIZE);
	else if (qp->ibqp.qp_type == IB_QPT_UC)
		rvtsw_uc_rx(qp, pkt);
	else if (op >= IB_OPCODE_RDMA_READ_RESPONSE_FIRST &&
		 op <= IB_OPCODE_ATOMIC_ACKNOWLEDGE)
		rvtsw_rc_rx_resp(qp, pkt);
	else
		rvtsw_rc_rx_req(port, qp, pkt);
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

/* Take one packet: check it, and hand it to its transport's receiver. */
static void rvtsw_rx_one(struct rvtsw_port *port, struct sk_buff *skb)
	__must_hold(RCU)
{
	enum rvtsw_pkt_verdict verdict;
	struct rvtsw_pkt pkt;
	bool vl15, qp0;

	rvtsw_rx_arrived(port, skb);
	verdict = rvtsw_pkt_parse(skb, &pkt);
	if (verdict != RVTSW_PKT_OK) {
		rvtsw_count(port, rvtsw_pkt_drop_counter(verdict));
		kfree_skb(skb);
		return;
	}
	if (!rvtsw_rx_for_port(port, &pkt)) {
		rvtsw_count(port, RVTSW_CNT_DROP_UNKNOWN_LID);
		kfree_skb(skb);
		return;
	}
	/* QP0, and QP0 alone, is subnet management's, on VL15. */
	vl15 = pkt.lrh.vl == RVTSW_VL15;
	qp0 = !pkt.dqpn;
	if (vl15 != qp0) {
		rvtsw_count(port, RVTSW_CNT_DROP_NO_QP);
		kfree_skb(skb);
		return;
	}
	if ((pkt.opcode & ~0x1f) == IB_OPCODE_UD)
		rvtsw_ud_rx(port, &pkt);
	else
		rvtsw_rx_connected(port, &pkt);
	consume_skb(skb);
}

static void rvtsw_rx_work(struct work_struct *work)
{
	struct rvtsw_port *port = container_of(work, struct rvtsw_port,
					       rxq.work);
	struct rvtsw_rxq *rxq = &port->rxq;
	unsigned int budget = RVTSW_RX_BUDGET;
	struct sk_buff *skb;

	rcu_read_lock();
	while (budget-- && (skb = skb_dequeue(&rxq->queue)))
		rvtsw_rx_one(port, skb);
	rcu_read_unlock();
	rvtsw_rc_flush_acks(port);
	if (!skb_queue_empty_lockless(&rxq->queue))
		queue_work(system_bh_wq, work);
}

/* A packet crossed the port's link: queue it for the worker. */
static void rvtsw_rx_receive(struct rvtsw_link_end *end, struct sk_buff *skb)
{
	struct rvtsw_port *port = end->hca;
	struct rvtsw_rxq *rxq = &port->rxq;
	unsigned long flags;
	bool full;

	spin_lock_irqsave(&rxq->queue.lock, flags);
	full = skb_queue_len(&rxq->queue) >= RVTSW_RXQ_MAX;
	if (!full)
		__skb_queue_tail(&rxq->queue, skb);
	spin_unlock_irqrestore(&rxq->queue.lock, flags);
	if (full) {
		rvtsw_count(port, RVTSW_CNT_DROP_RX_FULL);
		kfree_skb(skb);
		return;
	}
	queue_work(system_bh_wq, &rxq->work);
}

/* The switch dropped a packet this port sent into it. */
static void rvtsw_rx_lost(struct rvtsw_link_end *end, enum rvtsw_counter why)
{
	rvtsw_count(end->hca, why);
}

static const struct rvtsw_link_ops rvtsw_hca_link_ops = {
	.receive = rvtsw_rx_receive,
	.lost = rvtsw_rx_lost,
};

/**
 * rvtsw_rx_init - get a port's receive side ready
 * @port: the port, before its device is registered
 *
 * Context: process context.
 */
void rvtsw_rx_init(struct rvtsw_port *port)
{
	struct rvtsw_rxq *rxq = &port->rxq;

	port->end.ops = &rvtsw_hca_link_ops;
	skb_queue_head_init(&rxq->queue);
	INIT_WORK(&rxq->work, rvtsw_rx_work);
	INIT_LIST_HEAD(&rxq->ack_wait);
}

/**
 * rvtsw_rx_stop - stop a port's receive side for good
 * @port: the port, of a device unregistered, or never registered: no QP
 *	  of it is left, and no packet can reach it any more
 *
 * Context: process context; sleeps.
 */
void rvtsw_rx_stop(struct rvtsw_port *port)
{
	cancel_work_sync(&port->rxq.work);
	skb_queue_purge(&port->rxq.queue);
}
