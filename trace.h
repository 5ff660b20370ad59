/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rdmavt's trace events: what every trace header of ours shares.
 *
 * Upstream's 18 events keep upstream's trace systems, names, fields (name,
 * type and order) and print formats, so that their tracefs format files
 * are those of the distro's rdmavt.ko and a filter, a trace-cmd or perf
 * script written for upstream works on ours (tools/testing/suites/
 * 64-trace.sh compares them). They record the values upstream records, at
 * the moments it records them (Documentation/tracing.rst lists where
 * ours differs). What we show beyond them goes into events of our own,
 * under names upstream does not use; never into one of upstream's.
 *
 *   trace_rvt.h  rvt     rvt_dbg
 *   trace_cq.h   rvt_cq  rvt_create_cq, rvt_cq_enter, rvt_cq_poll
 *   trace_mr.h   rvt_mr  rvt_mr_page_seg, rvt_mr_fmr_seg, rvt_mr_user_seg,
 *                        rvt_sge_adjacent, rvt_sge_new, rvt_map_mr_sg
 *   trace_qp.h   rvt_qp  rvt_qpinsert, rvt_qpremove, rvt_rnrnak_add,
 *                        rvt_rnrnak_timeout, rvt_rnrnak_stop
 *   trace_rc.h   rvt_rc  rvt_rc_timeout; ours: rvt_rc_timeout_retries,
 *                        rvt_rnrnak_retries
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
 * A format file shows each field's type as spelled in its __field() and
 * the TP_printk() arguments as the preprocessor expands and stringifies
 * them: spelling, token spacing and the symbol tables below are part of
 * the interface, not style.
 */
#ifndef RVT_TRACE_H
#define RVT_TRACE_H

#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>

/* Every event starts with the device's name. */
#define RVT_TRACE_DEV(rdi)	__string(dev, rvt_get_ibdev_name(rdi))
#define RVT_TRACE_DEV_ASSIGN()	__assign_str(dev)

/*
 * What the QP table and timer events record first: the device and the
 * QP's number (qp names the event's QP), then the event's own fields or
 * statements.
 */
#define RVT_TRACE_QP_ENTRY(...)						\
	TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(qp->ibqp.device))	\
		__field(u32, qpn)					\
		__VA_ARGS__)
#define RVT_TRACE_QP_ASSIGN(...)					\
	TP_fast_assign(RVT_TRACE_DEV_ASSIGN();				\
		__entry->qpn = qp->ibqp.qp_num;				\
		__VA_ARGS__)

struct rvt_mregion;

/*
 * Fire rvt_mr_user_seg for each segment of a new user MR. Called once
 * the MR has its key (given after its pages are mapped), so that the
 * events carry it. Defined in trace.c.
 */
void rvt_trace_mr_user_segs(const struct rvt_mregion *mr);

/*
 * The opcode names the events print: upstream's tables, which name only
 * these opcodes (the others print as their number alone).
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
			 { IB_WR_LSO, "LSO" },				\
			 { IB_WR_SEND_WITH_INV, "SEND_WITH_INV" },	\
			 { IB_WR_RDMA_READ_WITH_INV, "RDMA_READ_WITH_INV" }, \
			 { IB_WR_LOCAL_INV, "LOCAL_INV" },		\
			 { IB_WR_MASKED_ATOMIC_CMP_AND_SWP, "MASKED_ATOMIC_CMP_AND_SWP" }, \
			 { IB_WR_MASKED_ATOMIC_FETCH_AND_ADD, "MASKED_ATOMIC_FETCH_AND_ADD" }, \
			 { IB_WR_RESERVED1, "RESERVED1" },		\
			 { IB_WR_RESERVED2, "RESERVED2" },		\
			 { IB_WR_RESERVED3, "RESERVED3" },		\
			 { IB_WR_RESERVED4, "RESERVED4" },		\
			 { IB_WR_RESERVED5, "RESERVED5" },		\
			 { IB_WR_RESERVED6, "RESERVED6" },		\
			 { IB_WR_RESERVED7, "RESERVED7" },		\
			 { IB_WR_RESERVED8, "RESERVED8" },		\
			 { IB_WR_RESERVED9, "RESERVED9" },		\
			 { IB_WR_RESERVED10, "RESERVED10" })

#define rvt_show_wc_opcode(op)						\
	__print_symbolic(op,						\
			 { IB_WC_SEND, "SEND" },			\
			 { IB_WC_RDMA_WRITE, "RDMA_WRITE" },		\
			 { IB_WC_RDMA_READ, "RDMA_READ" },		\
			 { IB_WC_COMP_SWAP, "COMP_SWAP" },		\
			 { IB_WC_FETCH_ADD, "FETCH_ADD" },		\
			 { IB_WC_LSO, "LSO" },				\
			 { IB_WC_LOCAL_INV, "LOCAL_INV" },		\
			 { IB_WC_REG_MR, "REG_MR" },			\
			 { IB_WC_MASKED_COMP_SWAP, "MASKED_COMP_SWAP" }, \
			 { IB_WC_RECV, "RECV" },			\
			 { IB_WC_RECV_RDMA_WITH_IMM, "RECV_RDMA_WITH_IMM" })

#endif /* RVT_TRACE_H */
