/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt_cq: completion queues (see trace.h).
 */
#if !defined(RVT_TRACE_CQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define RVT_TRACE_CQ_H

#include <linux/tracepoint.h>
#include <rdma/rdmavt_cq.h>
#include "trace.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rvt_cq

/*
 * rvt_create_cq - a CQ was created: its size, completion vector, the CPU
 * its handler runs on, and whether userspace maps its ring.
 */
TRACE_EVENT(rvt_create_cq,
	    TP_PROTO(const struct rvt_cq *cq,
		     const struct ib_cq_init_attr *attr),
	    TP_ARGS(cq, attr),
	    TP_STRUCT__entry(RVT_TRACE_DEV(cq->rdi)
		    __field(u32, cqe)
		    __field(u32, comp_vector)
		    __field(int, cpu)
		    __field(u32, flags)
		    __field(bool, mapped)
	    ),
	    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
		    __entry->cqe = cq->ibcq.cqe;
		    __entry->comp_vector = attr->comp_vector;
		    __entry->cpu = cq->comp_vector_cpu;
		    __entry->flags = attr->flags;
		    __entry->mapped = cq->ip;
	    ),
	    TP_printk("[%s] cqe %u comp_vector %u cpu %d flags 0x%x ring %s",
		      __get_str(dev), __entry->cqe, __entry->comp_vector,
		      __entry->cpu, __entry->flags,
		      __entry->mapped ? "mapped" : "kernel")
);

/*
 * rvt_cq_enter - a completion goes into slot idx of a CQ's ring (one the
 * CQ has no room for does not get here).
 */
TRACE_EVENT(rvt_cq_enter,
	    TP_PROTO(const struct rvt_cq *cq, const struct ib_wc *wc, u32 idx),
	    TP_ARGS(cq, wc, idx),
	    RVT_TRACE_WC_ENTRY(__field(u32, qpn)),
	    RVT_TRACE_WC_ASSIGN(__entry->qpn = wc->qp->qp_num;),
	    TP_printk("[%s] idx %u qpn 0x%x wr_id %s status %s opcode %s len %u wc_flags 0x%x imm 0x%x src_qp 0x%x",
		      __get_str(dev), __entry->idx, __entry->qpn,
		      rvt_trace_wr_id(p, __entry->wr_id, __entry->user),
		      rvt_show_wc_status(__entry->status),
		      rvt_show_wc_opcode(__entry->opcode), __entry->byte_len,
		      __entry->wc_flags, __entry->imm, __entry->src_qp)
);

/*
 * rvt_cq_poll - a kernel consumer takes the completion in slot idx
 * (rvt_poll_cq(); userspace polls its mapped ring without the kernel).
 * No QPN: the completion's QP may be gone by the time it is polled, and
 * the event must not read through a stale wc->qp.
 */
TRACE_EVENT(rvt_cq_poll,
	    TP_PROTO(const struct rvt_cq *cq, const struct ib_wc *wc, u32 idx),
	    TP_ARGS(cq, wc, idx),
	    RVT_TRACE_WC_ENTRY(),
	    RVT_TRACE_WC_ASSIGN(),
	    TP_printk("[%s] idx %u wr_id %s status %s opcode %s len %u wc_flags 0x%x imm 0x%x src_qp 0x%x",
		      __get_str(dev), __entry->idx,
		      rvt_trace_wr_id(p, __entry->wr_id, __entry->user),
		      rvt_show_wc_status(__entry->status),
		      rvt_show_wc_opcode(__entry->opcode), __entry->byte_len,
		      __entry->wc_flags, __entry->imm, __entry->src_qp)
);

#endif /* RVT_TRACE_CQ_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_cq
#include <trace/define_trace.h>
