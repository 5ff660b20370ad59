// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Datagrams leave: UD, GSI and SMI send requests become packets (a UD
 * SEND_ONLY, with its DETH, on VL15 for QP0), which leave the sending
 * port for the switch (wire_tx.c, switch_fwd.c). The receivers are
 * ud_recv.c's.
 *
 * A datagram to one of the sending port's own LIDs stays in the HCA:
 * it is delivered to its receiver straight from the request's buffers,
 * one copy, unless the module parameter wire_all sends it through the
 * port's own receive queue as a packet. A multicast datagram reaches the
 * group's QPs on the sending port the same way, and every other port of
 * its LID's MFT entry through the switch. Subnet management leaves a
 * port whose link is up, data only an ACTIVE one: until then the link
 * would not carry it. The sender's request completes successfully
 * whatever becomes of the datagram.
 *
 * Locking: the sender holds no lock while it sends (qp.c keeps the
 * request its own with RVT_S_BUSY); a direct delivery runs under
 * rcu_read_lock(), as ud_recv.c requires.
 */
#include <rdma/ib_hdrs.h>
#include <rdma/ib_pack.h>
#include "dgram.h"
#include "wire.h"

/*
 * What follows the GRH of a datagram's packet, as its PayLen counts it:
 * BTH, DETH, ImmDt, the payload padded, ICRC.
 */
static u32 rvtsw_dg_paylen(const struct rvtsw_datagram *dg)
{
	return RVTSW_BTH_BYTES + RVTSW_DETH_BYTES +
	       (dg->has_imm ? RVTSW_IMM_BYTES : 0) + ALIGN(dg->length, 4) +
	       RVTSW_ICRC_BYTES;
}

/* A datagram's PktLen: LRH, GRH if any, and the rest to the ICRC. */
static u32 rvtsw_dg_words(const struct rvtsw_datagram *dg)
{
	return (RVTSW_LRH_BYTES + (dg->has_grh ? RVTSW_GRH_BYTES : 0) +
		rvtsw_dg_paylen(dg)) / 4;
}

/* The datagram a send request makes. */
static void rvtsw_dg_init(struct rvtsw_datagram *dg, struct rvt_qp *sqp,
			  struct rvtsw_port *sport, struct rvt_swqe *wqe)
{
	struct rvt_dev_info *rdi = ib_to_rvt(sqp->ibqp.device);
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	u32 qkey = rvt_get_swqe_remote_qkey(wqe);
	u16 pkey_index;

	memset(dg, 0, sizeof(*dg));
	dg->type = sqp->ibqp.qp_type == IB_QPT_GSI ? IB_QPT_UD :
						     sqp->ibqp.qp_type;
	dg->src_qpn = sqp->ibqp.qp_num;
	dg->slid = READ_ONCE(sport->lid);
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
	if (dg->has_grh) {
		rvtsw_grh_init(&dg->grh, sport, ah);
		dg->grh.paylen = cpu_to_be16(rvtsw_dg_paylen(dg));
	}
	dg->words = rvtsw_dg_words(dg);
}

/*
 * The packet @dg makes, with the request's PSN: a UD SEND_ONLY (with
 * immediate data if it has some). Return: the packet, finished, or NULL
 * if out of memory.
 */
static struct sk_buff *rvtsw_dg_packet(const struct rvtsw_datagram *dg,
				       u32 psn)
{
	struct rvtsw_lrh_fields lrh = {
		.dlid = dg->dlid,
		.slid = dg->slid,
		.sl = dg->sl,
		.vl = dg->type == IB_QPT_SMI ? RVTSW_VL15 : 0,
	};
	u32 dqpn = rvtsw_lid_is_multicast(dg->dlid) ? RVTSW_MULTICAST_QPN :
						      dg->dqpn;
	struct rvt_sge_state cursor;
	struct ib_other_headers *ohdr;
	struct rvtsw_hdr hdr;
	struct sk_buff *skb;
	void *payload;

	rvtsw_hdr_init(&hdr, &lrh, dg->has_grh ? &dg->grh : NULL);
	rvtsw_hdr_bth(&hdr, dg->has_imm ? IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE :
					  IB_OPCODE_UD_SEND_ONLY,
		      dg->pkey, dqpn, psn);
	ohdr = hdr.ohdr;
	if (dg->solicited)
		ohdr->bth[0] |= cpu_to_be32(IB_BTH_SOLICITED);
	ohdr->u.ud.deth[0] = cpu_to_be32(dg->qkey);
	ohdr->u.ud.deth[1] = cpu_to_be32(dg->src_qpn & IB_QPN_MASK);
	ohdr->u.ud.imm_data = dg->imm;
	skb = rvtsw_pkt_alloc(&hdr, dg->length, &payload);
	if (!skb)
		return NULL;
	cursor = rvtsw_wqe_cursor(dg->wqe);
	rvtsw_sge_copy_out(&cursor, payload, dg->length);
	rvtsw_pkt_finish(skb);
	return skb;
}

/* @dg arrived at @dport without crossing a link: count it as if. */
static void rvtsw_dg_looped(const struct rvtsw_datagram *dg,
			    struct rvtsw_port *dport, bool multicast)
{
	rvtsw_count(dport, RVTSW_CNT_TX_LINK);
	rvtsw_count_n(dport, RVTSW_CNT_TX_WORDS, dg->words);
	rvtsw_count(dport, RVTSW_CNT_RX_LINK);
	rvtsw_count_n(dport, RVTSW_CNT_RX_WORDS, dg->words);
	if (multicast)
		rvtsw_count(dport, RVTSW_CNT_RX_LINK_MCAST);
}

/*
 * Send @dg as a packet out of @sport, charged to @sqp; also to @sport's
 * own receive side if @loop (a multicast datagram's local members, with
 * wire_all).
 */
static void rvtsw_dg_send(const struct rvtsw_datagram *dg,
			  struct rvtsw_port *sport, struct rvt_qp *sqp,
			  struct rvt_swqe *wqe, bool loop)
{
	struct sk_buff *skb = rvtsw_dg_packet(dg, wqe->psn), *copy;

	if (!skb) {
		rvtsw_count(sport, RVTSW_CNT_DROP_NOMEM);
		return;
	}
	rvtsw_tx_charge(sqp, skb);
	if (loop) {
		copy = skb_clone(skb, GFP_ATOMIC);
		if (copy)
			rvtsw_port_loop(sport, copy);
		else
			rvtsw_count(sport, RVTSW_CNT_DROP_NOMEM);
	}
	rvtsw_port_xmit(sport, skb);
}

/*
 * A multicast datagram reaches the group's members on the sending port,
 * and through the switch every other port its MFT entry names.
 */
static void rvtsw_ud_multicast(const struct rvtsw_datagram *dg,
			       struct rvtsw_port *sport, struct rvt_qp *sqp,
			       struct rvt_swqe *wqe)
	__must_hold(RCU)
{
	bool wire = rvtsw_wire_all();

	rvtsw_count(sport, RVTSW_CNT_TX_MCAST);
	if (!wire) {
		rvtsw_count(sport, RVTSW_CNT_RX_LINK);
		rvtsw_count_n(sport, RVTSW_CNT_RX_WORDS, dg->words);
		rvtsw_count(sport, RVTSW_CNT_RX_LINK_MCAST);
		rvtsw_ud_to_group(dg, sport);
	}
	rvtsw_dg_send(dg, sport, sqp, wqe, wire);
}

/**
 * rvtsw_ud_send - send a datagram send request
 * @sqp: the sending UD, GSI or SMI QP
 * @wqe: its request
 *
 * Context: the send engine, no lock held, RVT_S_BUSY set on @sqp.
 * Return: IB_WC_SUCCESS: a datagram sender never learns its fate.
 */
enum ib_wc_status rvtsw_ud_send(struct rvt_qp *sqp, struct rvt_swqe *wqe)
{
	struct rvtsw_port *sport = rvtsw_qp_port(sqp);
	struct rvtsw_datagram dg;

	rvtsw_dg_init(&dg, sqp, sport, wqe);
	if (dg.type == IB_QPT_SMI ? !rvtsw_port_link_up(sport) :
				    !rvtsw_port_active(sport)) {
		rvtsw_count(sport, RVTSW_CNT_DROP_LINK);
		return IB_WC_SUCCESS;
	}
	rvtsw_count(sport, RVTSW_CNT_TX);

	rcu_read_lock();
	if (rvtsw_lid_is_multicast(dg.dlid)) {
		rvtsw_ud_multicast(&dg, sport, sqp, wqe);
	} else if (!rvtsw_wire_all() && rvtsw_port_owns_lid(sport, dg.dlid)) {
		rvtsw_dg_looped(&dg, sport, false);
		rvtsw_ud_to_port(&dg, sport);
	} else {
		rvtsw_dg_send(&dg, sport, sqp, wqe, false);
	}
	rcu_read_unlock();
	return IB_WC_SUCCESS;
}
