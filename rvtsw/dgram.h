/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Datagrams between ud.c, which sends them, and ud_recv.c, which
 * delivers them to their receiving QPs.
 */
#ifndef RVTSW_DGRAM_H
#define RVTSW_DGRAM_H

#include "rvtsw.h"

/**
 * struct rvtsw_datagram - one datagram on its way to its receivers
 * @type: the sending QP's type (GSI is UD here; SMI for QP0's)
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
 * @buf: the payload, when @wqe is NULL (a packet's)
 * @length: the payload's length
 * @solicited: the solicited event bit
 * @has_imm: whether it carries @imm
 * @imm: immediate data
 * @words: its length on a link in 4-byte words, the LRH's PktLen
 */
struct rvtsw_datagram {
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

/*
 * A private cursor over a request's SGEs: several receivers may read the
 * same request, and the request's own state stays the sender's.
 */
static inline struct rvt_sge_state rvtsw_wqe_cursor(struct rvt_swqe *wqe)
{
	return (struct rvt_sge_state) {
		.sge = wqe->sg_list[0],
		.sg_list = wqe->sg_list + 1,
		.num_sge = wqe->wr.num_sge,
	};
}

/* ud_recv.c */
void rvtsw_ud_to_port(const struct rvtsw_datagram *dg,
		      struct rvtsw_port *dport);
bool rvtsw_ud_to_group(const struct rvtsw_datagram *dg,
		       struct rvtsw_port *dport);

#endif /* RVTSW_DGRAM_H */
