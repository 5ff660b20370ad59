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
 * rvt_create_cq - a CQ was created: the size and vector asked for, the
 * CPU its handler runs on, and whether userspace maps its ring (ip, the
 * mmap cookie's address; printed as true or false).
 */
TRACE_EVENT(rvt_create_cq,
	    TP_PROTO(const struct rvt_cq *cq,
		     const struct ib_cq_init_attr *attr),
	    TP_ARGS(cq, attr),
	    TP_STRUCT__entry(RVT_TRACE_DEV(cq->rdi)
		    __field(struct rvt_mmap_info *, ip)
		    __field(unsigned int, cqe)
		    __field(int, comp_vector)
		    __field(int, comp_vector_cpu)
		    __field(u32, flags)
	    ),
	    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
		    __entry->ip = cq->ip;
		    __entry->cqe = attr->cqe;
		    __entry->comp_vector = attr->comp_vector;
		    __entry->comp_vector_cpu = cq->comp_vector_cpu;
		    __entry->flags = attr->flags;
	    ),
	    TP_printk("[%s] user cq %s cqe %u comp_vector %d comp_vector_cpu %d flags %x",
		      __get_str(dev), __entry->ip ? "true" : "false",
		      __entry->cqe, __entry->comp_vector,
		      __entry->comp_vector_cpu, __entry->flags)
);

/*
 * A completion (wc) and an index: its ring slot for rvt_cq_enter, its
 * place in the caller's array for rvt_cq_poll. qpn is the completing
 * QP's own number (wc->qp's; src_qp, the remote one, is not recorded).
 */
DECLARE_EVENT_CLASS(rvt_cq_entry_template,
		    TP_PROTO(const struct rvt_cq *cq, const struct ib_wc *wc,
			     u32 idx),
		    TP_ARGS(cq, wc, idx),
		    TP_STRUCT__entry(RVT_TRACE_DEV(cq->rdi)
			    __field(u64, wr_id)
			    __field(u32, status)
			    __field(u32, opcode)
			    __field(u32, qpn)
			    __field(u32, length)
			    __field(u32, idx)
			    __field(u32, flags)
			    __field(u32, imm)
		    ),
		    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
			    __entry->wr_id = wc->wr_id;
			    __entry->status = wc->status;
			    __entry->opcode = wc->opcode;
			    __entry->qpn = wc->qp ? wc->qp->qp_num : 0;
			    __entry->length = wc->byte_len;
			    __entry->idx = idx;
			    __entry->flags = wc->wc_flags;
			    __entry->imm = be32_to_cpu(wc->ex.imm_data);
		    ),
		    TP_printk("[%s] idx %u wr_id %llx status %u opcode %u,%s length %u qpn %x flags %x imm %x",
			      __get_str(dev), __entry->idx, __entry->wr_id,
			      __entry->status, __entry->opcode,
			      rvt_show_wc_opcode(__entry->opcode),
			      __entry->length, __entry->qpn, __entry->flags,
			      __entry->imm)
);

/*
 * rvt_cq_enter - a completion goes into slot idx of a CQ's ring (one the
 * CQ has no room for does not get here).
 */
DEFINE_EVENT(rvt_cq_entry_template, rvt_cq_enter,
	     TP_PROTO(const struct rvt_cq *cq, const struct ib_wc *wc, u32 idx),
	     TP_ARGS(cq, wc, idx));

/*
 * rvt_cq_poll - a kernel consumer's rvt_poll_cq() takes a completion, the
 * idx-th of this call (userspace polls its mapped ring without the
 * kernel). The QP number is read through the completion's QP, as
 * upstream does: kernel consumers drain a QP before destroying it, and a
 * destroyed QP's completions are dropped from the rings that userspace
 * polls through the kernel (rvt_cq_forget_qp()).
 */
DEFINE_EVENT(rvt_cq_entry_template, rvt_cq_poll,
	     TP_PROTO(const struct rvt_cq *cq, const struct ib_wc *wc, u32 idx),
	     TP_ARGS(cq, wc, idx));

#endif /* RVT_TRACE_CQ_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_cq
#include <trace/define_trace.h>
