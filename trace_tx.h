/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt_tx: the send queue (see trace.h).
 */
#if !defined(RVT_TRACE_TX_H) || defined(TRACE_HEADER_MULTI_READ)
#define RVT_TRACE_TX_H

#include <linux/tracepoint.h>
#include <rdma/rdmavt_qp.h>
#include "trace.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rvt_tx

/*
 * rvt_post_one_wr - post_send() accepted a request into slot head of the
 * send queue and is about to hand it to the send engine: its sequence
 * numbers, length, SGEs (num_sge after merging, of wr_num_sge posted),
 * and the queue's size, free entries (this one's included) and oldest
 * entry (last).
 */
TRACE_EVENT(rvt_post_one_wr,
	    TP_PROTO(const struct rvt_qp *qp, const struct rvt_swqe *wqe,
		     int wr_num_sge),
	    TP_ARGS(qp, wqe, wr_num_sge),
	    RVT_TRACE_SWQE_ENTRY(__field(int, num_sge)
				 __field(int, wr_num_sge)
				 __field(u32, size)
				 __field(u32, avail)
				 __field(u32, head)
				 __field(u32, last)
				 __field(pid_t, pid)),
	    RVT_TRACE_SWQE_ASSIGN(__entry->num_sge = wqe->wr.num_sge;
				  __entry->wr_num_sge = wr_num_sge;
				  __entry->size = qp->s_size;
				  __entry->avail = qp->s_avail;
				  __entry->head = qp->s_head;
				  __entry->last = READ_ONCE(qp->s_last);
				  __entry->pid = qp->pid;),
	    TP_printk("[%s] qpn 0x%x qpt %s wr_id %s opcode %s send_flags 0x%x psn 0x%x lpsn 0x%x ssn %u length %u num_sge %d wr_num_sge %d size %u avail %u head %u last %u pid %d",
		      __get_str(dev), __entry->qpn,
		      rvt_show_qp_type(__entry->qpt),
		      rvt_trace_wr_id(p, __entry->wr_id, __entry->user),
		      rvt_show_wr_opcode(__entry->opcode), __entry->send_flags,
		      __entry->psn, __entry->lpsn, __entry->ssn,
		      __entry->length, __entry->num_sge, __entry->wr_num_sge,
		      __entry->size, __entry->avail, __entry->head,
		      __entry->last, __entry->pid)
);

/*
 * rvt_qp_send_completion - the request in slot idx, the oldest of the
 * send queue, is completed with status (rvt_send_complete(); the CQ gets
 * a completion if the request was signaled or failed).
 */
TRACE_EVENT(rvt_qp_send_completion,
	    TP_PROTO(const struct rvt_qp *qp, const struct rvt_swqe *wqe,
		     u32 idx, enum ib_wc_status status),
	    TP_ARGS(qp, wqe, idx, status),
	    RVT_TRACE_SWQE_ENTRY(__field(u32, idx)
				 __field(u32, status)),
	    RVT_TRACE_SWQE_ASSIGN(__entry->idx = idx;
				  __entry->status = status;),
	    TP_printk("[%s] qpn 0x%x qpt %s idx %u wr_id %s opcode %s send_flags 0x%x psn 0x%x lpsn 0x%x ssn %u length %u status %s",
		      __get_str(dev), __entry->qpn,
		      rvt_show_qp_type(__entry->qpt), __entry->idx,
		      rvt_trace_wr_id(p, __entry->wr_id, __entry->user),
		      rvt_show_wr_opcode(__entry->opcode), __entry->send_flags,
		      __entry->psn, __entry->lpsn, __entry->ssn,
		      __entry->length, rvt_show_wc_status(__entry->status))
);

#endif /* RVT_TRACE_TX_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_tx
#include <trace/define_trace.h>
