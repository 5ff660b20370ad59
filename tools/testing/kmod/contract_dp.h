/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Helpers the data path sequences share (contract_dp.c).
 */
#ifndef RVT_CONTRACT_DP_H
#define RVT_CONTRACT_DP_H

#include "contract.h"

#define CT_BUF 8192

/**
 * struct ct_pair - two connected QPs of one type on one port
 * @a: the requester
 * @b: the responder
 * @abuf: a buffer of CT_BUF bytes for @a
 * @bbuf: a buffer of CT_BUF bytes for @b
 */
struct ct_pair {
	struct ib_qp *a;
	struct ib_qp *b;
	u8 *abuf;
	u8 *bbuf;
};

int ct_pair_up(struct ct_pair *p, const char *a, const char *b,
	       enum ib_qp_type type, u32 port);
void ct_pair_down(struct ct_pair *p);
int ct_send(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id, void *buf,
	    u32 len, int flags);
int ct_rdma(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id, void *buf,
	    u32 len, u64 raddr, u32 rkey);
int ct_atomic(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id, void *buf,
	      u64 raddr, u32 rkey, u64 compare, u64 swap);
void ct_sum(const char *what, const void *buf, size_t len);
struct ib_ah *ct_ah(u32 port, u32 dlid, u8 sl, const union ib_gid *dgid);
int ct_ud_send(struct ib_qp *qp, struct ib_ah *ah, u32 dqpn, u32 qkey,
	       u64 wr_id, void *buf, u32 len, enum ib_wr_opcode op);
struct ib_mr *ct_fastreg(struct ib_qp *qp, void *buf, u32 pages, int access);
void ct_mr_free(struct ib_mr *mr);
int ct_rc_qp(struct ib_qp *qp, u32 port, u32 dlid, u32 dqpn, u8 timeout,
	     u8 retry, u8 rnr_retry, u8 rd_atomic);

#endif /* RVT_CONTRACT_DP_H */
