/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvtsw's packet engine: InfiniBand packets as a wire carries them, built
 * and checked by wire_pkt.c (headers) and wire_crc.c (ICRC, VCRC).
 * Documentation/wire.rst describes the format and the engine.
 */
#ifndef RVTSW_WIRE_H
#define RVTSW_WIRE_H

#include <linux/skbuff.h>
#include <rdma/ib_hdrs.h>
#include "rvtsw.h"

/* Sizes on the wire, in bytes. */
#define RVTSW_LRH_BYTES 8
#define RVTSW_GRH_BYTES 40
#define RVTSW_BTH_BYTES 12
#define RVTSW_DETH_BYTES 8
#define RVTSW_RETH_BYTES 16
#define RVTSW_AETH_BYTES 4
#define RVTSW_ATOMIC_ETH_BYTES 28
#define RVTSW_ATOMIC_ACK_BYTES 8
#define RVTSW_IMM_BYTES 4
#define RVTSW_IETH_BYTES 4
#define RVTSW_ICRC_BYTES 4
#define RVTSW_VCRC_BYTES 2
/* The longest header: LRH, GRH, BTH and the longest extension (AtomicETH). */
#define RVTSW_MAX_HDR_BYTES (RVTSW_LRH_BYTES + RVTSW_GRH_BYTES + \
			     RVTSW_BTH_BYTES + RVTSW_ATOMIC_ETH_BYTES)
/* What a packet carries besides its headers and payload. */
#define RVTSW_TRAILER_BYTES (RVTSW_ICRC_BYTES + RVTSW_VCRC_BYTES)

/* LRH fields (IBTA vol. 1, 7.7). */
#define RVTSW_LRH_VL_SHIFT 12
#define RVTSW_LRH_LVER_SHIFT 8
#define RVTSW_LRH_SL_SHIFT 4
#define RVTSW_LNH_IBA_LOCAL 2	/* BTH follows the LRH */
#define RVTSW_LNH_IBA_GLOBAL 3	/* GRH, then BTH */
#define RVTSW_LRH_PKTLEN_MASK 0x7ff
/* Subnet management's own virtual lane. */
#define RVTSW_VL15 15

/* What a BTH's DestQP names for a multicast datagram. */
#define RVTSW_MULTICAST_QPN 0xffffff
/* PSNs are 24 bits. */
#define RVTSW_PSN_MASK 0xffffff

/* What an opcode's packet carries (rvtsw_opcode_info()). */
#define RVTSW_OPF_VALID BIT(0)
#define RVTSW_OPF_PAYLOAD BIT(1)	/* may carry data */
#define RVTSW_OPF_IMM BIT(2)		/* ImmDt */
#define RVTSW_OPF_RETH BIT(3)
#define RVTSW_OPF_AETH BIT(4)
#define RVTSW_OPF_ATOMIC BIT(5)	/* AtomicETH */
#define RVTSW_OPF_ATOMIC_ACK BIT(6)	/* AtomicAckETH */
#define RVTSW_OPF_IETH BIT(7)
#define RVTSW_OPF_DETH BIT(8)
#define RVTSW_OPF_FIRST BIT(9)		/* first or only packet of a message */
#define RVTSW_OPF_LAST BIT(10)		/* last or only packet of a message */

/**
 * struct rvtsw_opcode_info - what a BTH opcode means for the packet
 * @flags: RVTSW_OPF_* bits; 0 for an opcode rvtsw does not know
 * @ext_bytes: the length of its extension headers after the BTH
 */
struct rvtsw_opcode_info {
	u16 flags;
	u8 ext_bytes;
};

/**
 * struct rvtsw_hdr - the headers of a packet being built
 * @ib: LRH, GRH if any, BTH and extension headers, as on the wire; the
 *	extensions are at the start of @ib.u's other headers union, whose
 *	members lay them out in IBTA's order for every opcode rvtsw sends
 * @ohdr: the BTH within @ib (after the GRH, or the LRH)
 * @grh: whether @ib has a GRH
 */
struct rvtsw_hdr {
	struct ib_header ib;
	struct ib_other_headers *ohdr;
	bool grh;
};

/**
 * struct rvtsw_lrh_fields - what a packet's LRH says
 * @dlid: destination LID
 * @slid: source LID
 * @sl: service level
 * @vl: virtual lane (15 for subnet management, 0 for the rest)
 */
struct rvtsw_lrh_fields {
	u16 dlid;
	u16 slid;
	u8 sl;
	u8 vl;
};

/**
 * struct rvtsw_pkt - a packet that arrived, parsed and checked
 * @skb: the packet, from its LRH to its VCRC, in the linear area
 * @lrh: its LRH's fields
 * @grh: its GRH, or NULL
 * @ohdr: its BTH and the extension headers after it
 * @opcode: the BTH opcode
 * @flags: what the opcode carries (RVTSW_OPF_*)
 * @psn: the BTH's PSN
 * @ack_req: the BTH's AckReq bit
 * @solicited: the BTH's SE bit
 * @pkey: the BTH's P_Key
 * @dqpn: the BTH's DestQP
 * @payload: its payload (after the extension headers)
 * @paylen: the payload's length, pad excluded
 * @words: its length as the LRH's PktLen counts it, in 4-byte words
 */
struct rvtsw_pkt {
	struct sk_buff *skb;
	struct rvtsw_lrh_fields lrh;
	const struct ib_grh *grh;
	struct ib_other_headers *ohdr;
	u8 opcode;
	u16 flags;
	u32 psn;
	bool ack_req;
	bool solicited;
	u16 pkey;
	u32 dqpn;
	void *payload;
	u32 paylen;
	u32 words;
};

/* Why a packet that arrived was not taken: each is a port counter. */
enum rvtsw_pkt_verdict {
	RVTSW_PKT_OK,
	RVTSW_PKT_MALFORMED,	/* LRH, GRH, BTH or extensions not as IBTA says */
	RVTSW_PKT_SHORT,	/* too short for LRH, BTH, ICRC and VCRC */
	RVTSW_PKT_BAD_LENGTH,	/* not whole words, or not the LRH's PktLen */
	RVTSW_PKT_BAD_VCRC,
	RVTSW_PKT_BAD_ICRC,
};

/* What a connected QP's send engine built (struct rvtsw_tx.kind). */
enum rvtsw_tx_kind {
	RVTSW_TX_REQUEST,	/* an RC request: its PSN is being sent */
	RVTSW_TX_RESPONSE,	/* an RC READ or atomic response */
	RVTSW_TX_UC,		/* a UC packet */
};

/**
 * struct rvtsw_tx - a packet a connected QP's send engine is sending
 * @hdr: its headers, built under the QP's locks
 * @ss: where its payload comes from (the QP's s_sge or s_ack_rdma_sge,
 *	which the engine alone advances, under RVT_S_BUSY), or NULL
 * @len: the payload's length
 * @psn: its PSN
 * @ack_req: whether it asks for an ACK
 * @kind: what it is
 * @wqe: UC: the request its last packet completes, or NULL
 */
struct rvtsw_tx {
	struct rvtsw_hdr hdr;
	struct rvt_sge_state *ss;
	u32 len;
	u32 psn;
	bool ack_req;
	enum rvtsw_tx_kind kind;
	struct rvt_swqe *wqe;
};

/* Compare two PSNs, 24 bits, as IBTA orders them. */
static inline int rvtsw_cmp_psn(u32 a, u32 b)
{
	return (((int)a) - ((int)b)) << 8;
}

/**
 * struct rvtsw_skb_cb - what rvtsw keeps in a packet's sk_buff
 * @owner: the QP the packet is charged to (wire_tx.c), or NULL
 * @in: the switch port a packet the switch's fault knob holds came by
 * @trusted: the packet was built in this host by rvtsw_pkt_finish() and
 *	     nothing has changed it since: its ICRC and VCRC were not
 *	     computed (the bytes are zero) and no receiver checks them.
 *	     Whatever changes a packet's bytes, or would let them leave
 *	     the host, seals it first (rvtsw_pkt_seal() clears the flag);
 *	     a packet that comes from outside must arrive with it clear.
 */
struct rvtsw_skb_cb {
	struct rvt_qp *owner;
	unsigned int in;
	bool trusted;
};

static inline struct rvtsw_skb_cb *rvtsw_skb_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rvtsw_skb_cb) > sizeof(skb->cb));
	return (struct rvtsw_skb_cb *)skb->cb;
}

/* The DLID of a packet being sent, from its LRH. */
static inline u16 rvtsw_skb_dlid(const struct sk_buff *skb)
{
	return get_unaligned_be16(skb->data + 2);
}

/* Is a packet being sent one of subnet management's, on VL15? */
static inline bool rvtsw_skb_vl15(const struct sk_buff *skb)
{
	return skb->data[0] >> 4 == RVTSW_VL15;
}

/* wire_crc.c */
u32 rvtsw_icrc(const void *pkt, unsigned int len);
u16 rvtsw_vcrc(const void *pkt, unsigned int len);
void rvtsw_crc_init(void);

/* wire_pkt.c */
const struct rvtsw_opcode_info *rvtsw_opcode_info(u8 opcode);
bool rvtsw_op_follows(u8 prev, u8 opcode);
void rvtsw_grh_init(struct ib_grh *grh, const struct rvtsw_port *sport,
		    const struct rdma_ah_attr *ah);
void rvtsw_hdr_init(struct rvtsw_hdr *hdr, const struct rvtsw_lrh_fields *lrh,
		    const struct ib_grh *grh);
void rvtsw_hdr_bth(struct rvtsw_hdr *hdr, u8 opcode, u16 pkey, u32 dqpn,
		   u32 psn);
unsigned int rvtsw_hdr_bytes(const struct rvtsw_hdr *hdr);
struct sk_buff *rvtsw_pkt_alloc(struct rvtsw_hdr *hdr, u32 paylen,
				void **payload);
void rvtsw_pkt_seal(struct sk_buff *skb);
void rvtsw_pkt_finish(struct sk_buff *skb);
enum rvtsw_pkt_verdict rvtsw_pkt_check_link(struct sk_buff *skb,
					    struct rvtsw_lrh_fields *lrh);
enum rvtsw_pkt_verdict rvtsw_pkt_parse(struct sk_buff *skb,
				       struct rvtsw_pkt *pkt);
enum rvtsw_counter rvtsw_pkt_drop_counter(enum rvtsw_pkt_verdict verdict);

/* wire_tx.c */
bool rvtsw_wire_all(void);
void rvtsw_sge_copy_out(struct rvt_sge_state *ss, void *dst, u32 len);
void rvtsw_conn_hdr(struct rvt_qp *qp, struct rvtsw_hdr *hdr, u8 opcode,
		    u32 psn);
void rvtsw_conn_transmit(struct rvt_qp *qp, struct rvtsw_tx *tx);
void rvtsw_tx_charge(struct rvt_qp *qp, struct sk_buff *skb);
bool rvtsw_tx_room(struct rvt_qp *qp);
void rvtsw_port_xmit(struct rvtsw_port *port, struct sk_buff *skb);
void rvtsw_port_loop(struct rvtsw_port *port, struct sk_buff *skb);

/* wire_rx.c */
void rvtsw_rx_init(struct rvtsw_port *port);
void rvtsw_rx_stop(struct rvtsw_port *port);

/* wire_send.c */
void rvtsw_wire_send(struct rvt_qp *qp);

/* wire_req.c */
int rvtsw_rc_make_req(struct rvt_qp *qp, struct rvtsw_tx *tx);
int rvtsw_uc_make_req(struct rvt_qp *qp, struct rvtsw_tx *tx);
void rvtsw_rc_restart(struct rvt_qp *qp, u32 psn, int wait);
void rvtsw_rc_reset_psn(struct rvt_qp *qp, u32 psn);

/* wire_comp.c */
void rvtsw_rc_sent(struct rvt_qp *qp, const struct rvtsw_tx *tx);
struct rvt_swqe *rvtsw_rc_complete(struct rvt_qp *qp, struct rvt_swqe *wqe);

/* wire_ack.c */
void rvtsw_rc_rx_resp(struct rvt_qp *qp, const struct rvtsw_pkt *pkt);

/* wire_resp.c */
void rvtsw_rc_rx_req(struct rvtsw_port *port, struct rvt_qp *qp,
		     const struct rvtsw_pkt *pkt);
int rvtsw_conn_write_target(struct rvt_qp *qp, const struct rvtsw_pkt *pkt);

/* wire_reply.c */
int rvtsw_rc_make_resp(struct rvt_qp *qp, struct rvtsw_tx *tx);
void rvtsw_rc_queue_ack(struct rvtsw_port *port, struct rvt_qp *qp);
void rvtsw_rc_nak_now(struct rvt_qp *qp);
void rvtsw_rc_flush_acks(struct rvtsw_port *port);

/* wire_uc.c */
void rvtsw_uc_rx(struct rvt_qp *qp, const struct rvtsw_pkt *pkt);

/* ud_recv.c */
void rvtsw_ud_rx(struct rvtsw_port *port, const struct rvtsw_pkt *pkt);
void rvtsw_count_outcome(struct rvtsw_port *port, enum rvtsw_counter outcome);

/* wire_selftest.c */
int rvtsw_wire_selftest(void);

#endif /* RVTSW_WIRE_H */
