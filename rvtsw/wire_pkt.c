// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * InfiniBand packets as a wire carries them (IBTA vol. 1, chapters 7
 * and 9): an LRH, a GRH when the packet has one, a BTH, the extension
 * headers its opcode calls for (DETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH, in that order), the payload padded to four
 * bytes, the ICRC and the VCRC (wire_crc.c).
 *
 * A sender builds the headers in a struct rvtsw_hdr, then
 * rvtsw_pkt_alloc() lays them out in a new sk_buff with room for the
 * payload, which the sender copies in, and rvtsw_pkt_finish() ends it.
 * A receiver checks what a link checks (rvtsw_pkt_check_link(): the
 * lengths, the LRH and the VCRC) and then what a transport checks
 * (rvtsw_pkt_parse(): the GRH, the BTH, the extension headers' and the
 * payload's lengths, the ICRC). Every length in a packet is checked
 * against the others and against what arrived before anything reads
 * past the LRH, so no field of a bad packet makes a reader leave it.
 *
 * The CRCs guard bytes on a wire. A packet built here that never leaves
 * this host's memory crosses no wire: rvtsw_pkt_finish() leaves its
 * CRCs out and marks it trusted (struct rvtsw_skb_cb), and no receiver
 * checks them, as a NIC does not checksum what it loops back; the two
 * table-driven CRC passes over every byte cost far more than the copies
 * (Documentation/wire.rst, Performance). What changes a packet's bytes
 * (the switch's fault knob) seals it first, with rvtsw_pkt_seal(), so
 * that the change is caught as on a wire. The module parameter
 * local_crc seals every packet and checks every CRC.
 */
#include "wire.h"

static bool local_crc;
module_param(local_crc, bool, 0444);
MODULE_PARM_DESC(local_crc,
		 "Compute and check the ICRC and VCRC of packets that stay in this host too (default N: a packet built here and not changed on its way carries none, and no receiver checks them)");

/* Room before the LRH for the link layer a packet may travel over. */
#define RVTSW_SKB_HEADROOM 64

#define OPF_SEND (RVTSW_OPF_VALID | RVTSW_OPF_PAYLOAD)
#define OPF_FIRST RVTSW_OPF_FIRST
#define OPF_LAST RVTSW_OPF_LAST
#define OPF_ONLY (RVTSW_OPF_FIRST | RVTSW_OPF_LAST)
#define OPF_NODATA RVTSW_OPF_VALID
#define OP(kind) IB_OPCODE_##kind

/*
 * What each operation carries, the same on every transport that has it
 * (the low five bits of an opcode); UD adds its DETH.
 */
static const struct rvtsw_opcode_info rvtsw_ops[32] = {
	[OP(SEND_FIRST)] = { OPF_SEND | OPF_FIRST },
	[OP(SEND_MIDDLE)] = { OPF_SEND },
	[OP(SEND_LAST)] = { OPF_SEND | OPF_LAST },
	[OP(SEND_LAST_WITH_IMMEDIATE)] = {
		OPF_SEND | OPF_LAST | RVTSW_OPF_IMM, RVTSW_IMM_BYTES },
	[OP(SEND_ONLY)] = { OPF_SEND | OPF_ONLY },
	[OP(SEND_ONLY_WITH_IMMEDIATE)] = {
		OPF_SEND | OPF_ONLY | RVTSW_OPF_IMM, RVTSW_IMM_BYTES },
	[OP(RDMA_WRITE_FIRST)] = {
		OPF_SEND | OPF_FIRST | RVTSW_OPF_RETH, RVTSW_RETH_BYTES },
	[OP(RDMA_WRITE_MIDDLE)] = { OPF_SEND },
	[OP(RDMA_WRITE_LAST)] = { OPF_SEND | OPF_LAST },
	[OP(RDMA_WRITE_LAST_WITH_IMMEDIATE)] = {
		OPF_SEND | OPF_LAST | RVTSW_OPF_IMM, RVTSW_IMM_BYTES },
	[OP(RDMA_WRITE_ONLY)] = {
		OPF_SEND | OPF_ONLY | RVTSW_OPF_RETH, RVTSW_RETH_BYTES },
	[OP(RDMA_WRITE_ONLY_WITH_IMMEDIATE)] = {
		OPF_SEND | OPF_ONLY | RVTSW_OPF_RETH | RVTSW_OPF_IMM,
		RVTSW_RETH_BYTES + RVTSW_IMM_BYTES },
	[OP(RDMA_READ_REQUEST)] = {
		OPF_NODATA | OPF_ONLY | RVTSW_OPF_RETH, RVTSW_RETH_BYTES },
	[OP(RDMA_READ_RESPONSE_FIRST)] = {
		OPF_SEND | OPF_FIRST | RVTSW_OPF_AETH, RVTSW_AETH_BYTES },
	[OP(RDMA_READ_RESPONSE_MIDDLE)] = { OPF_SEND },
	[OP(RDMA_READ_RESPONSE_LAST)] = {
		OPF_SEND | OPF_LAST | RVTSW_OPF_AETH, RVTSW_AETH_BYTES },
	[OP(RDMA_READ_RESPONSE_ONLY)] = {
		OPF_SEND | OPF_ONLY | RVTSW_OPF_AETH, RVTSW_AETH_BYTES },
	[OP(ACKNOWLEDGE)] = {
		OPF_NODATA | OPF_ONLY | RVTSW_OPF_AETH, RVTSW_AETH_BYTES },
	[OP(ATOMIC_ACKNOWLEDGE)] = {
		OPF_NODATA | OPF_ONLY | RVTSW_OPF_AETH | RVTSW_OPF_ATOMIC_ACK,
		RVTSW_AETH_BYTES + RVTSW_ATOMIC_ACK_BYTES },
	[OP(COMPARE_SWAP)] = {
		OPF_NODATA | OPF_ONLY | RVTSW_OPF_ATOMIC,
		RVTSW_ATOMIC_ETH_BYTES },
	[OP(FETCH_ADD)] = {
		OPF_NODATA | OPF_ONLY | RVTSW_OPF_ATOMIC,
		RVTSW_ATOMIC_ETH_BYTES },
	[OP(SEND_LAST_WITH_INVALIDATE)] = {
		OPF_SEND | OPF_LAST | RVTSW_OPF_IETH, RVTSW_IETH_BYTES },
	[OP(SEND_ONLY_WITH_INVALIDATE)] = {
		OPF_SEND | OPF_ONLY | RVTSW_OPF_IETH, RVTSW_IETH_BYTES },
};

/* The UD operations, each with its DETH. */
static const struct rvtsw_opcode_info rvtsw_ud_ops[] = {
	[0] = { OPF_SEND | OPF_ONLY | RVTSW_OPF_DETH, RVTSW_DETH_BYTES },
	[1] = { OPF_SEND | OPF_ONLY | RVTSW_OPF_DETH | RVTSW_OPF_IMM,
		RVTSW_DETH_BYTES + RVTSW_IMM_BYTES },
};

static const struct rvtsw_opcode_info rvtsw_op_unknown;

/**
 * rvtsw_opcode_info - what a BTH opcode carries
 * @opcode: the opcode
 *
 * RC has every operation; UC only sends and RDMA writes; UD only
 * SEND_ONLY, with or without immediate data. Every other opcode,
 * reliable datagrams' and vendors' included, is unknown.
 *
 * Context: any.
 * Return: the opcode's description; its flags are 0 if unknown.
 */
const struct rvtsw_opcode_info *rvtsw_opcode_info(u8 opcode)
{
	u8 op = opcode & 0x1f;

	switch (opcode & ~0x1f) {
	case IB_OPCODE_RC:
		return &rvtsw_ops[op];
	case IB_OPCODE_UC:
		if (op <= OP(RDMA_WRITE_ONLY_WITH_IMMEDIATE))
			return &rvtsw_ops[op];
		break;
	case IB_OPCODE_UD:
		if (op == OP(SEND_ONLY))
			return &rvtsw_ud_ops[0];
		if (op == OP(SEND_ONLY_WITH_IMMEDIATE))
			return &rvtsw_ud_ops[1];
		break;
	}
	return &rvtsw_op_unknown;
}

/**
 * rvtsw_op_follows - may a packet follow another of its connection?
 * @prev: the opcode of the last packet the responder took
 * @opcode: the new packet's
 *
 * A SEND's or WRITE's FIRST and MIDDLE packets are followed by its
 * MIDDLE or LAST ones; any other packet by a message's first packet.
 *
 * Context: any.
 * Return: true if @opcode may come after @prev (RC or UC).
 */
bool rvtsw_op_follows(u8 prev, u8 opcode)
{
	u8 op = opcode & 0x1f;

	switch (prev & 0x1f) {
	case OP(SEND_FIRST):
	case OP(SEND_MIDDLE):
		return op == OP(SEND_MIDDLE) || op == OP(SEND_LAST) ||
		       op == OP(SEND_LAST_WITH_IMMEDIATE) ||
		       op == OP(SEND_LAST_WITH_INVALIDATE);
	case OP(RDMA_WRITE_FIRST):
	case OP(RDMA_WRITE_MIDDLE):
		return op == OP(RDMA_WRITE_MIDDLE) || op == OP(RDMA_WRITE_LAST) ||
		       op == OP(RDMA_WRITE_LAST_WITH_IMMEDIATE);
	default:
		return rvtsw_opcode_info(opcode)->flags & RVTSW_OPF_FIRST;
	}
}

/**
 * rvtsw_grh_init - the GRH a packet to an address handle carries
 * @grh: the GRH to fill in; its PayLen is left for rvtsw_pkt_alloc()
 * @sport: the port that sends it, whose one GID is the source
 * @ah: the address, with a global route
 *
 * Context: any.
 */
void rvtsw_grh_init(struct ib_grh *grh, const struct rvtsw_port *sport,
		    const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *route = rdma_ah_read_grh(ah);

	grh->version_tclass_flow =
		cpu_to_be32(IB_GRH_VERSION << IB_GRH_VERSION_SHIFT |
			    route->traffic_class << IB_GRH_TCLASS_SHIFT |
			    (route->flow_label & IB_GRH_FLOW_MASK));
	grh->paylen = 0;
	grh->next_hdr = IB_GRH_NEXT_HDR;
	grh->hop_limit = route->hop_limit;
	grh->sgid.global.subnet_prefix = sport->rvp.gid_prefix;
	grh->sgid.global.interface_id = sport->guid;
	grh->dgid = route->dgid;
}

/**
 * rvtsw_hdr_init - start a packet's headers: its LRH, and GRH if any
 * @hdr: the headers to build
 * @lrh: the LRH's fields
 * @grh: the GRH, or NULL for a local packet; its PayLen is filled in by
 *	 rvtsw_pkt_alloc()
 *
 * Context: any.
 */
void rvtsw_hdr_init(struct rvtsw_hdr *hdr, const struct rvtsw_lrh_fields *lrh,
		    const struct ib_grh *grh)
{
	u16 lrh0 = lrh->vl << RVTSW_LRH_VL_SHIFT | lrh->sl << RVTSW_LRH_SL_SHIFT;

	memset(&hdr->ib, 0, sizeof(hdr->ib));
	hdr->grh = grh;
	if (grh) {
		hdr->ib.u.l.grh = *grh;
		hdr->ohdr = &hdr->ib.u.l.oth;
		lrh0 |= RVTSW_LNH_IBA_GLOBAL;
	} else {
		hdr->ohdr = &hdr->ib.u.oth;
		lrh0 |= RVTSW_LNH_IBA_LOCAL;
	}
	hdr->ib.lrh[0] = cpu_to_be16(lrh0);
	hdr->ib.lrh[1] = cpu_to_be16(lrh->dlid);
	hdr->ib.lrh[3] = cpu_to_be16(lrh->slid);
}

/**
 * rvtsw_hdr_bth - fill in a packet's BTH
 * @hdr: the headers, after rvtsw_hdr_init()
 * @opcode: the opcode
 * @pkey: the P_Key
 * @dqpn: the destination QP
 * @psn: the PSN, with IB_BTH_REQ_ACK set to ask for an ACK
 *
 * The caller adds the SE and MigReq bits and the extension headers;
 * rvtsw_pkt_alloc() adds the pad count.
 *
 * Context: any.
 */
void rvtsw_hdr_bth(struct rvtsw_hdr *hdr, u8 opcode, u16 pkey, u32 dqpn,
		   u32 psn)
{
	struct ib_other_headers *ohdr = hdr->ohdr;

	ohdr->bth[0] = cpu_to_be32((u32)opcode << IB_BTH_OPCODE_SHIFT | pkey);
	ohdr->bth[1] = cpu_to_be32(dqpn & RVTSW_MULTICAST_QPN);
	ohdr->bth[2] = cpu_to_be32(psn & (IB_BTH_REQ_ACK | RVTSW_PSN_MASK));
}

/**
 * rvtsw_hdr_bytes - the length of a packet's headers
 * @hdr: the headers, their BTH filled in
 *
 * Context: any.
 * Return: LRH, GRH, BTH and the extension headers its opcode has.
 */
unsigned int rvtsw_hdr_bytes(const struct rvtsw_hdr *hdr)
{
	u8 opcode = ib_bth_get_opcode(hdr->ohdr);

	return RVTSW_LRH_BYTES + (hdr->grh ? RVTSW_GRH_BYTES : 0) +
	       RVTSW_BTH_BYTES + rvtsw_opcode_info(opcode)->ext_bytes;
}

/**
 * rvtsw_pkt_alloc - lay a packet out in a new sk_buff
 * @hdr: its headers, complete but for the lengths and pad count
 * @paylen: the length of its payload
 * @payload: where the caller copies the payload to
 *
 * PktLen, the GRH's PayLen and the BTH's pad count are filled in; the
 * pad is zeroed. The caller copies the payload and calls
 * rvtsw_pkt_seal().
 *
 * Context: any; allocates with GFP_ATOMIC.
 * Return: the sk_buff, or NULL if out of memory.
 */
struct sk_buff *rvtsw_pkt_alloc(struct rvtsw_hdr *hdr, u32 paylen,
				void **payload)
{
	unsigned int hbytes = rvtsw_hdr_bytes(hdr);
	u32 pad = -paylen & 3;
	u32 len = hbytes + paylen + pad + RVTSW_TRAILER_BYTES;
	struct sk_buff *skb;
	u8 *data;

	skb = alloc_skb(RVTSW_SKB_HEADROOM + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, RVTSW_SKB_HEADROOM);
	hdr->ib.lrh[2] = cpu_to_be16((len - RVTSW_VCRC_BYTES) / 4);
	if (hdr->grh)
		hdr->ib.u.l.grh.paylen = cpu_to_be16(len - RVTSW_VCRC_BYTES -
						     RVTSW_LRH_BYTES -
						     RVTSW_GRH_BYTES);
	hdr->ohdr->bth[0] |= cpu_to_be32(pad << IB_BTH_PAD_SHIFT);
	data = skb_put(skb, len);
	memcpy(data, &hdr->ib, hbytes);
	memset(data + hbytes + paylen, 0, pad);
	*payload = data + hbytes;
	return skb;
}

/**
 * rvtsw_pkt_seal - add a packet's ICRC and VCRC
 * @skb: the packet from rvtsw_pkt_alloc(), its payload copied in, or a
 *	 packet whose bytes are about to change or to leave the host
 *
 * The packet is no longer trusted: its receivers check both CRCs.
 *
 * Context: any.
 */
void rvtsw_pkt_seal(struct sk_buff *skb)
{
	unsigned int icrc_at = skb->len - RVTSW_TRAILER_BYTES;
	__le32 icrc = cpu_to_le32(rvtsw_icrc(skb->data, icrc_at));
	__le16 vcrc;

	memcpy(skb->data + icrc_at, &icrc, sizeof(icrc));
	vcrc = cpu_to_le16(rvtsw_vcrc(skb->data, icrc_at + RVTSW_ICRC_BYTES));
	memcpy(skb->data + icrc_at + RVTSW_ICRC_BYTES, &vcrc, sizeof(vcrc));
	rvtsw_skb_cb(skb)->trusted = false;
}

/**
 * rvtsw_pkt_finish - end a packet built in this host, to be sent
 * @skb: the packet from rvtsw_pkt_alloc(), its payload copied in
 *
 * With local_crc, the packet is sealed. Otherwise its ICRC and VCRC are
 * left zero and it is marked trusted: until something seals it, its
 * receivers take its CRCs as right.
 *
 * Context: any.
 */
void rvtsw_pkt_finish(struct sk_buff *skb)
{
	if (local_crc) {
		rvtsw_pkt_seal(skb);
		return;
	}
	memset(skb->data + skb->len - RVTSW_TRAILER_BYTES, 0,
	       RVTSW_TRAILER_BYTES);
	rvtsw_skb_cb(skb)->trusted = true;
}

/**
 * rvtsw_pkt_check_link - what a link checks of a packet that arrived
 * @skb: the packet, from its LRH to its VCRC, linear
 * @lrh: where its LRH's fields go
 *
 * The length must be whole words plus the VCRC and agree with PktLen;
 * the LRH must be version 0 and name an IBA transport header; the VCRC
 * must be right, unless the packet is trusted (rvtsw_pkt_finish()).
 *
 * Context: any.
 * Return: RVTSW_PKT_OK with @lrh filled in, or why the packet is bad.
 */
enum rvtsw_pkt_verdict rvtsw_pkt_check_link(struct sk_buff *skb,
					    struct rvtsw_lrh_fields *lrh)
{
	const struct ib_header *ib = (const void *)skb->data;
	u32 len = skb->len;
	__le16 vcrc;
	u16 lrh0;

	if (skb_is_nonlinear(skb))
		return RVTSW_PKT_MALFORMED;
	if (len < RVTSW_LRH_BYTES + RVTSW_BTH_BYTES + RVTSW_TRAILER_BYTES)
		return RVTSW_PKT_SHORT;
	if ((len - RVTSW_VCRC_BYTES) % 4 ||
	    (be16_to_cpu(ib->lrh[2]) & RVTSW_LRH_PKTLEN_MASK) !=
	    (len - RVTSW_VCRC_BYTES) / 4)
		return RVTSW_PKT_BAD_LENGTH;
	lrh0 = be16_to_cpu(ib->lrh[0]);
	if ((lrh0 >> RVTSW_LRH_LVER_SHIFT) & IB_LVER_MASK ||
	    (lrh0 & IB_LNH_MASK) < RVTSW_LNH_IBA_LOCAL)
		return RVTSW_PKT_MALFORMED;
	memcpy(&vcrc, skb->data + len - RVTSW_VCRC_BYTES, sizeof(vcrc));
	if (!rvtsw_skb_cb(skb)->trusted &&
	    le16_to_cpu(vcrc) != rvtsw_vcrc(skb->data, len - RVTSW_VCRC_BYTES))
		return RVTSW_PKT_BAD_VCRC;
	lrh->vl = lrh0 >> RVTSW_LRH_VL_SHIFT;
	lrh->sl = (lrh0 >> RVTSW_LRH_SL_SHIFT) & IB_SL_MASK;
	lrh->dlid = be16_to_cpu(ib->lrh[1]);
	lrh->slid = be16_to_cpu(ib->lrh[3]);
	return RVTSW_PKT_OK;
}

/*
 * The GRH of a global packet of @len bytes (VCRC excluded): IP version
 * 6, IBA's next header, a PayLen that counts the rest to the ICRC.
 * Return: the GRH, or NULL if it is not as IBTA says.
 */
static const struct ib_grh *rvtsw_pkt_grh(const u8 *data, u32 len)
{
	const struct ib_grh *grh = (const void *)(data + RVTSW_LRH_BYTES);
	u32 rest = len - RVTSW_LRH_BYTES - RVTSW_GRH_BYTES;

	if (len < RVTSW_LRH_BYTES + RVTSW_GRH_BYTES + RVTSW_BTH_BYTES +
		  RVTSW_ICRC_BYTES ||
	    (be32_to_cpu(grh->version_tclass_flow) >> IB_GRH_VERSION_SHIFT) !=
	    IB_GRH_VERSION || grh->next_hdr != IB_GRH_NEXT_HDR ||
	    be16_to_cpu(grh->paylen) != rest)
		return NULL;
	return grh;
}

/* Fill in @pkt from its BTH: opcode, flags and the BTH's fields. */
static void rvtsw_pkt_read_bth(struct rvtsw_pkt *pkt)
{
	u32 bth0 = be32_to_cpu(pkt->ohdr->bth[0]);
	u32 bth2 = be32_to_cpu(pkt->ohdr->bth[2]);

	pkt->opcode = bth0 >> IB_BTH_OPCODE_SHIFT;
	pkt->flags = rvtsw_opcode_info(pkt->opcode)->flags;
	pkt->solicited = bth0 & IB_BTH_SOLICITED;
	pkt->pkey = bth0 & IB_BTH_PKEY_MASK;
	pkt->dqpn = be32_to_cpu(pkt->ohdr->bth[1]) & RVTSW_MULTICAST_QPN;
	pkt->ack_req = bth2 & IB_BTH_REQ_ACK;
	pkt->psn = bth2 & RVTSW_PSN_MASK;
}

/*
 * Check the transport headers of @pkt, which passed the link's checks:
 * the GRH if the LNH says there is one, a known opcode of transport
 * version 0, and room for its extension headers, its payload and pad.
 */
static enum rvtsw_pkt_verdict rvtsw_pkt_transport(struct rvtsw_pkt *pkt)
{
	struct sk_buff *skb = pkt->skb;
	u32 len = skb->len - RVTSW_VCRC_BYTES, hbytes = RVTSW_LRH_BYTES;
	const struct rvtsw_opcode_info *info;
	u32 pad;

	pkt->grh = NULL;
	if ((skb->data[1] & IB_LNH_MASK) == RVTSW_LNH_IBA_GLOBAL) {
		pkt->grh = rvtsw_pkt_grh(skb->data, len);
		if (!pkt->grh)
			return RVTSW_PKT_MALFORMED;
		hbytes += RVTSW_GRH_BYTES;
	}
	pkt->ohdr = (void *)(skb->data + hbytes);
	rvtsw_pkt_read_bth(pkt);
	info = rvtsw_opcode_info(pkt->opcode);
	pad = ib_bth_get_pad(pkt->ohdr);
	if (!info->flags || (be32_to_cpu(pkt->ohdr->bth[0]) >>
			     IB_BTH_TVER_SHIFT) & IB_BTH_TVER_MASK)
		return RVTSW_PKT_MALFORMED;
	hbytes += RVTSW_BTH_BYTES + info->ext_bytes;
	if (len < hbytes + pad + RVTSW_ICRC_BYTES)
		return RVTSW_PKT_MALFORMED;
	pkt->payload = skb->data + hbytes;
	pkt->paylen = len - hbytes - pad - RVTSW_ICRC_BYTES;
	/* Only an operation that carries data may carry some, or a pad. */
	if (!(info->flags & RVTSW_OPF_PAYLOAD) && (pkt->paylen || pad))
		return RVTSW_PKT_MALFORMED;
	return RVTSW_PKT_OK;
}

/**
 * rvtsw_pkt_parse - check a packet that arrived, and take it apart
 * @skb: the packet, from its LRH to its VCRC, linear
 * @pkt: where its fields go
 *
 * Its CRCs are checked unless it is trusted (rvtsw_pkt_finish()).
 *
 * Context: any.
 * Return: RVTSW_PKT_OK with @pkt filled in, or why the packet is bad.
 */
enum rvtsw_pkt_verdict rvtsw_pkt_parse(struct sk_buff *skb,
				       struct rvtsw_pkt *pkt)
{
	enum rvtsw_pkt_verdict verdict;
	unsigned int icrc_at;
	__le32 icrc;

	pkt->skb = skb;
	verdict = rvtsw_pkt_check_link(skb, &pkt->lrh);
	if (verdict != RVTSW_PKT_OK)
		return verdict;
	verdict = rvtsw_pkt_transport(pkt);
	if (verdict != RVTSW_PKT_OK)
		return verdict;
	icrc_at = skb->len - RVTSW_TRAILER_BYTES;
	memcpy(&icrc, skb->data + icrc_at, sizeof(icrc));
	if (!rvtsw_skb_cb(skb)->trusted &&
	    le32_to_cpu(icrc) != rvtsw_icrc(skb->data, icrc_at))
		return RVTSW_PKT_BAD_ICRC;
	pkt->words = icrc_at / 4 + 1;
	return RVTSW_PKT_OK;
}

/**
 * rvtsw_pkt_drop_counter - the port counter of a reason to drop a packet
 * @verdict: what rvtsw_pkt_check_link() or rvtsw_pkt_parse() found, not
 *	     RVTSW_PKT_OK
 *
 * Context: any.
 * Return: the counter.
 */
enum rvtsw_counter rvtsw_pkt_drop_counter(enum rvtsw_pkt_verdict verdict)
{
	switch (verdict) {
	case RVTSW_PKT_BAD_VCRC:
		return RVTSW_CNT_DROP_VCRC;
	case RVTSW_PKT_BAD_ICRC:
		return RVTSW_CNT_DROP_ICRC;
	case RVTSW_PKT_SHORT:
		return RVTSW_CNT_DROP_SHORT;
	case RVTSW_PKT_BAD_LENGTH:
		return RVTSW_CNT_DROP_LENGTH;
	default:
		return RVTSW_CNT_DROP_MALFORMED;
	}
}
