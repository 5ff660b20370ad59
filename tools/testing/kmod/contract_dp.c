// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Data path helpers of the sequences: connected pairs, work requests,
 * address handles, checksums of buffers.
 */
#include <linux/crc32.h>
#include <linux/slab.h>
#include "contract_dp.h"

/**
 * ct_rc_qp - take an RC or UC QP to RTS with chosen timers
 * @qp: the QP, in RESET
 * @port: its port
 * @dlid: destination LID
 * @dqpn: destination QPN
 * @timeout: local ACK timeout code; 14 (67 ms) or more, so that a retry
 *	     never races the script's own next line
 * @retry: retry_cnt
 * @rnr_retry: rnr_retry
 * @rd_atomic: max_rd_atomic and max_dest_rd_atomic
 *
 * Context: the script.
 * Return: 0 or the failing modify's errno.
 */
int ct_rc_qp(struct ib_qp *qp, u32 port, u32 dlid, u32 dqpn, u8 timeout,
	     u8 retry, u8 rnr_retry, u8 rd_atomic)
{
	const struct ct_path path = {
		.port = port, .dlid = dlid, .dqpn = dqpn, .timeout = timeout,
		.retry = retry, .rnr_retry = rnr_retry, .rd_atomic = rd_atomic,
		/* 10.24 ms: an RNR NAK's retry never races the next step. */
		.min_rnr_timer = 20,
	};

	return ct_ladder(qp, &path);
}

/**
 * ct_pair_up - create two QPs connected to each other through loopback
 * @p: filled in
 * @a: label of the requester
 * @b: label of the responder
 * @type: RC or UC
 * @port: the port both use (LID of that port: rvt_ruc_loopback())
 *
 * Context: the script.
 * Return: 0 or -ENOMEM/-EINVAL (logged).
 */
int ct_pair_up(struct ct_pair *p, const char *a, const char *b,
	       enum ib_qp_type type, u32 port)
{
	u32 lid = ct_port(port)->lid;

	memset(p, 0, sizeof(*p));
	p->abuf = kzalloc(CT_BUF, GFP_KERNEL);
	p->bbuf = kzalloc(CT_BUF, GFP_KERNEL);
	p->a = ct_create_qp(a, type, port, NULL, 8, 8);
	p->b = ct_create_qp(b, type, port, NULL, 8, 8);
	if (!p->abuf || !p->bbuf || !p->a || !p->b) {
		ct_pair_down(p);
		return -ENOMEM;
	}
	if (ct_rc_qp(p->a, port, lid, p->b->qp_num, 14, 3, 3, 4) ||
	    ct_rc_qp(p->b, port, lid, p->a->qp_num, 14, 3, 3, 4)) {
		ct_pair_down(p);
		return -EINVAL;
	}
	return 0;
}

/**
 * ct_pair_down - destroy a pair
 * @p: the pair; what was created of it
 *
 * Context: the script.
 */
void ct_pair_down(struct ct_pair *p)
{
	ct_destroy_qp(p->a);
	ct_destroy_qp(p->b);
	kfree(p->abuf);
	kfree(p->bbuf);
	memset(p, 0, sizeof(*p));
}

/**
 * ct_send - post one send-type request of a kernel buffer
 * @qp: the QP
 * @op: IB_WR_SEND, IB_WR_SEND_WITH_IMM, IB_WR_SEND_WITH_INV, ...
 * @wr_id: its ID
 * @buf: the data
 * @len: its length (0: no SGE)
 * @flags: send_flags; IB_SEND_SIGNALED is added
 *
 * Context: the script.
 * Return: ib_post_send()'s.
 */
int ct_send(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id, void *buf,
	    u32 len, int flags)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = len,
		.lkey = ct.pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .sg_list = &sge,
		.num_sge = len ? 1 : 0, .send_flags = flags | IB_SEND_SIGNALED,
		.ex.imm_data = cpu_to_be32(0x1234),
	};

	return ct_post_send(qp, &wr);
}

/**
 * ct_rdma - post an RDMA WRITE (with immediate) or READ
 * @qp: the QP
 * @op: the opcode
 * @wr_id: its ID
 * @buf: the local buffer
 * @len: its length
 * @raddr: remote address
 * @rkey: remote key
 *
 * Context: the script.
 * Return: ib_post_send()'s.
 */
int ct_rdma(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id, void *buf,
	    u32 len, u64 raddr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = len,
		.lkey = ct.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0x5678),
		},
		.remote_addr = raddr, .rkey = rkey,
	};

	return ct_post_send(qp, &wr.wr);
}

/**
 * ct_atomic - post an atomic request
 * @qp: the QP
 * @op: IB_WR_ATOMIC_CMP_AND_SWP or IB_WR_ATOMIC_FETCH_AND_ADD
 * @wr_id: its ID
 * @buf: 8 bytes for the original value
 * @raddr: remote address
 * @rkey: remote key
 * @compare: compare value / addend
 * @swap: swap value
 *
 * Context: the script.
 * Return: ib_post_send()'s.
 */
int ct_atomic(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id, void *buf,
	      u64 raddr, u32 rkey, u64 compare, u64 swap)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = 8,
		.lkey = ct.pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op, .sg_list = &sge,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr, .rkey = rkey,
		.compare_add = compare, .swap = swap,
	};

	return ct_post_send(qp, &wr.wr);
}

/**
 * ct_sum - log a checksum of a buffer
 * @what: its name
 * @buf: the buffer
 * @len: its length
 *
 * Context: any.
 */
void ct_sum(const char *what, const void *buf, size_t len)
{
	ct_log("sum %s %08x", what, crc32_le(0, buf, len));
}

/**
 * ct_ah - create an address handle on the script's PD
 * @port: the port
 * @dlid: destination LID
 * @sl: service level
 * @dgid: with a GRH to this GID, or NULL
 *
 * Context: the script.
 * Return: the AH, or NULL (logged).
 */
struct ib_ah *ct_ah(u32 port, u32 dlid, u8 sl, const union ib_gid *dgid)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah;

	ct_set_av(&attr, port, dlid, sl);
	if (dgid)
		rdma_ah_set_grh(&attr, (union ib_gid *)dgid, 0, 0, 64, 0);
	ah = rdma_create_ah(ct.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		ct_log("ah port=%u dlid=%#x sl=%u -> %ld", port, dlid, sl,
		       PTR_ERR(ah));
		return NULL;
	}
	return ah;
}

/**
 * ct_ud_send - post one datagram
 * @qp: a UD, GSI or SMI QP
 * @ah: the address handle
 * @dqpn: destination QPN
 * @qkey: Q_Key (bit 31 set: the QP's own)
 * @wr_id: its ID
 * @buf: the data
 * @len: its length
 * @op: IB_WR_SEND or IB_WR_SEND_WITH_IMM
 *
 * Context: the script.
 * Return: ib_post_send()'s.
 */
int ct_ud_send(struct ib_qp *qp, struct ib_ah *ah, u32 dqpn, u32 qkey,
	       u64 wr_id, void *buf, u32 len, enum ib_wr_opcode op)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = len,
		.lkey = ct.pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op, .sg_list = &sge,
			.num_sge = len ? 1 : 0, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0x9abc),
		},
		.ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey,
		.pkey_index = ct_full_pkey(),
	};

	return ct_post_send(qp, &wr.wr);
}
