/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rdmavt's trace events: what every trace header of ours shares.
 *
 * The events are upstream's, by trace system and name, fired at the same
 * moments (Documentation/tracing.rst lists them with their fields):
 *
 *   trace_rvt.h  rvt     rvt_dbg
 *   trace_cq.h   rvt_cq  rvt_create_cq, rvt_cq_enter, rvt_cq_poll
 *   trace_mr.h   rvt_mr  rvt_mr_page_seg, rvt_mr_fmr_seg, rvt_mr_user_seg,
 *                        rvt_sge_adjacent, rvt_sge_new, rvt_map_mr_sg
 *   trace_qp.h   rvt_qp  rvt_qpinsert, rvt_qpremove, rvt_rnrnak_add,
 *                        rvt_rnrnak_timeout, rvt_rnrnak_stop
 *   trace_rc.h   rvt_rc  rvt_rc_timeout
 *   trace_tx.h   rvt_tx  rvt_post_one_wr, rvt_qp_send_completion
 *
 * A file that fires events includes the header of their system; trace.c,
 * which exports nothing, defines them all (CREATE_TRACE_POINTS).
 *
 * ABI: a trace header brings in linux/tracepoint.h, which decides the
 * modversions CRCs of the file's exports. Only the vt, cq, mr and qp files
 * may include one; never ah.c, mcast.c or rc.c (Documentation/abi.rst,
 * "Tracing"). For the same reason nothing here defines a type.
 *
 * Events record values, never kernel addresses, so that their output
 * leaks no pointer. rdmavt devices do no DMA: the addresses in a kernel
 * consumer's SGEs and fast-registration MRs are kernel virtual addresses,
 * so the MR events record addresses for user PDs only (0 otherwise) and
 * offsets into the region instead.
 */
#ifndef RVT_TRACE_H
#define RVT_TRACE_H

#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>

/* Every event starts with the device's name. */
#define RVT_TRACE_DEV(rdi)	__string(dev, rvt_get_ibdev_name(rdi))
#define RVT_TRACE_DEV_ASSIGN()	__assign_str(dev)

/*
 * What every QP event records first: the device and the QP's number (qp
 * names the event's QP), then the event's own fields or statements.
 */
#define RVT_TRACE_QP_ENTRY(...)						\
	TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(qp->ibqp.device))	\
		__field(u32, qpn)					\
		__VA_ARGS__)
#define RVT_TRACE_QP_ASSIGN(...)					\
	TP_fast_assign(RVT_TRACE_DEV_ASSIGN();				\
		__entry->qpn = qp->ibqp.qp_num;				\
		__VA_ARGS__)

/*
 * What the CQ events record of the completion (wc) in ring slot idx of
 * a CQ (cq): their TP_STRUCT__entry and TP_fast_assign, each taking the
 * event's own fields or statements as arguments.
 */
#define RVT_TRACE_WC_ENTRY(...)						\
	TP_STRUCT__entry(RVT_TRACE_DEV(cq->rdi)				\
		__field(u64, wr_id)					\
		__field(u32, idx)					\
		__field(u32, status)					\
		__field(u32, opcode)					\
		__field(u32, byte_len)					\
		__field(u32, wc_flags)					\
		__field(u32, imm)					\
		__field(u32, src_qp)					\
		__field(bool, user)					\
		__VA_ARGS__)
#define RVT_TRACE_WC_ASSIGN(...)					\
	TP_fast_assign(RVT_TRACE_DEV_ASSIGN();				\
		__entry->wr_id = wc->wr_id;				\
		__entry->idx = idx;					\
		__entry->status = wc->status;				\
		__entry->opcode = wc->opcode;				\
		__entry->byte_len = wc->byte_len;			\
		__entry->wc_flags = wc->wc_flags;			\
		__entry->imm = be32_to_cpu(wc->ex.imm_data);		\
		__entry->src_qp = wc->src_qp;				\
		__entry->user = cq->ibcq.uobject;			\
		__VA_ARGS__)

/*
 * What the send queue events record of a request (wqe) of a QP (qp), in
 * the same way.
 */
#define RVT_TRACE_SWQE_ENTRY(...)					\
	RVT_TRACE_QP_ENTRY(__field(u64, wr_id)				\
		__field(u32, qpt)					\
		__field(u32, opcode)					\
		__field(u32, send_flags)				\
		__field(u32, psn)					\
		__field(u32, lpsn)					\
		__field(u32, ssn)					\
		__field(u32, length)					\
		__field(bool, user)					\
		__VA_ARGS__)
#define RVT_TRACE_SWQE_ASSIGN(...)					\
	RVT_TRACE_QP_ASSIGN(__entry->wr_id = wqe->wr.wr_id;		\
		__entry->qpt = qp->ibqp.qp_type;			\
		__entry->opcode = wqe->wr.opcode;			\
		__entry->send_flags = wqe->wr.send_flags;		\
		__entry->psn = wqe->psn;				\
		__entry->lpsn = wqe->lpsn;				\
		__entry->ssn = wqe->ssn;				\
		__entry->length = wqe->length;				\
		__entry->user = qp->ibqp.uobject;			\
		__VA_ARGS__)

struct trace_seq;

/*
 * A work request's wr_id, for TP_printk(): as it is for a user consumer,
 * hashed like a %p pointer for a kernel one, whose wr_ids are mostly
 * pointers (struct ib_cqe). Defined in trace.c.
 */
const char *rvt_trace_wr_id(struct trace_seq *p, u64 wr_id, bool user);

struct rvt_mregion;

/*
 * Fire rvt_mr_user_seg for each segment of a new user MR. Called once
 * the MR has its key (given after its pages are mapped), so that the
 * events carry it. Defined in trace.c.
 */
void rvt_trace_mr_user_segs(const struct rvt_mregion *mr);

/*
 * Names for the enums the events print. The values are recorded; tracefs
 * text shows the names.
 */
#define rvt_show_wr_opcode(op)						\
	__print_symbolic(op,						\
			 { IB_WR_RDMA_WRITE, "RDMA_WRITE" },		\
			 { IB_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM" }, \
			 { IB_WR_SEND, "SEND" },			\
			 { IB_WR_SEND_WITH_IMM, "SEND_WITH_IMM" },	\
			 { IB_WR_RDMA_READ, "RDMA_READ" },		\
			 { IB_WR_ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP" }, \
			 { IB_WR_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD" }, \
			 { IB_WR_BIND_MW, "BIND_MW" },			\
			 { IB_WR_LSO, "LSO" },				\
			 { IB_WR_SEND_WITH_INV, "SEND_WITH_INV" },	\
			 { IB_WR_RDMA_READ_WITH_INV, "RDMA_READ_WITH_INV" }, \
			 { IB_WR_LOCAL_INV, "LOCAL_INV" },		\
			 { IB_WR_MASKED_ATOMIC_CMP_AND_SWP, "MASKED_ATOMIC_CMP_AND_SWP" }, \
			 { IB_WR_MASKED_ATOMIC_FETCH_AND_ADD, "MASKED_ATOMIC_FETCH_AND_ADD" }, \
			 { IB_WR_FLUSH, "FLUSH" },			\
			 { IB_WR_ATOMIC_WRITE, "ATOMIC_WRITE" },	\
			 { IB_WR_REG_MR, "REG_MR" },			\
			 { IB_WR_REG_MR_INTEGRITY, "REG_MR_INTEGRITY" })

#define rvt_show_wc_opcode(op)						\
	__print_symbolic(op,						\
			 { IB_WC_SEND, "SEND" },			\
			 { IB_WC_RDMA_WRITE, "RDMA_WRITE" },		\
			 { IB_WC_RDMA_READ, "RDMA_READ" },		\
			 { IB_WC_COMP_SWAP, "COMP_SWAP" },		\
			 { IB_WC_FETCH_ADD, "FETCH_ADD" },		\
			 { IB_WC_BIND_MW, "BIND_MW" },			\
			 { IB_WC_LOCAL_INV, "LOCAL_INV" },		\
			 { IB_WC_LSO, "LSO" },				\
			 { IB_WC_ATOMIC_WRITE, "ATOMIC_WRITE" },	\
			 { IB_WC_REG_MR, "REG_MR" },			\
			 { IB_WC_MASKED_COMP_SWAP, "MASKED_COMP_SWAP" }, \
			 { IB_WC_MASKED_FETCH_ADD, "MASKED_FETCH_ADD" }, \
			 { IB_WC_FLUSH, "FLUSH" },			\
			 { IB_WC_RECV, "RECV" },			\
			 { IB_WC_RECV_RDMA_WITH_IMM, "RECV_RDMA_WITH_IMM" })

#define rvt_show_wc_status(status)					\
	__print_symbolic(status,					\
			 { IB_WC_SUCCESS, "SUCCESS" },			\
			 { IB_WC_LOC_LEN_ERR, "LOC_LEN_ERR" },		\
			 { IB_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR" },	\
			 { IB_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR" },	\
			 { IB_WC_LOC_PROT_ERR, "LOC_PROT_ERR" },	\
			 { IB_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR" },	\
			 { IB_WC_MW_BIND_ERR, "MW_BIND_ERR" },		\
			 { IB_WC_BAD_RESP_ERR, "BAD_RESP_ERR" },	\
			 { IB_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR" },	\
			 { IB_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR" },	\
			 { IB_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR" },	\
			 { IB_WC_REM_OP_ERR, "REM_OP_ERR" },		\
			 { IB_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR" },	\
			 { IB_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR" }, \
			 { IB_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR" }, \
			 { IB_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR" }, \
			 { IB_WC_REM_ABORT_ERR, "REM_ABORT_ERR" },	\
			 { IB_WC_INV_EECN_ERR, "INV_EECN_ERR" },	\
			 { IB_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR" }, \
			 { IB_WC_FATAL_ERR, "FATAL_ERR" },		\
			 { IB_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR" }, \
			 { IB_WC_GENERAL_ERR, "GENERAL_ERR" })

#define rvt_show_qp_type(type)						\
	__print_symbolic(type,						\
			 { IB_QPT_SMI, "SMI" },				\
			 { IB_QPT_GSI, "GSI" },				\
			 { IB_QPT_RC, "RC" },				\
			 { IB_QPT_UC, "UC" },				\
			 { IB_QPT_UD, "UD" })

#endif /* RVT_TRACE_H */
