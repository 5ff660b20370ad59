/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt_qp: the QP table and the RNR NAK timer (see trace.h).
 */
#if !defined(RVT_TRACE_QP_H) || defined(TRACE_HEADER_MULTI_READ)
#define RVT_TRACE_QP_H

#include <linux/tracepoint.h>
#include <rdma/rdmavt_qp.h>
#include "trace.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rvt_qp

/*
 * A QP entered or left a bucket of the QPN table (rvt_lookup_qpn()'s).
 * QP0 and QP1 sit in their port's slots, in no bucket: no event for them.
 */
DECLARE_EVENT_CLASS(rvt_qphash_template,
		    TP_PROTO(const struct rvt_qp *qp, u32 bucket),
		    TP_ARGS(qp, bucket),
		    RVT_TRACE_QP_ENTRY(__field(u32, bucket)),
		    RVT_TRACE_QP_ASSIGN(__entry->bucket = bucket;),
		    TP_printk("[%s] qpn 0x%x bucket %u", __get_str(dev),
			      __entry->qpn, __entry->bucket)
);

/* rvt_qpinsert - the QP became findable by its number (RESET to INIT). */
DEFINE_EVENT_CONDITION(rvt_qphash_template, rvt_qpinsert,
		       TP_PROTO(const struct rvt_qp *qp, u32 bucket),
		       TP_ARGS(qp, bucket),
		       TP_CONDITION(qp->ibqp.qp_num > 1));

/* rvt_qpremove - the QP left the table (back to RESET, or destroyed). */
DEFINE_EVENT_CONDITION(rvt_qphash_template, rvt_qpremove,
		       TP_PROTO(const struct rvt_qp *qp, u32 bucket),
		       TP_ARGS(qp, bucket),
		       TP_CONDITION(qp->ibqp.qp_num > 1));

/*
 * The RNR NAK timer of an RC requester: the timer's address, the QP's
 * flags, and the wait (to, in microseconds) for rvt_rnrnak_add, 0 for
 * the others.
 */
DECLARE_EVENT_CLASS(rvt_rnrnak_template,
		    TP_PROTO(struct rvt_qp *qp, u32 to),
		    TP_ARGS(qp, to),
		    RVT_TRACE_QP_ENTRY(__field(void *, hrtimer)
				       __field(u32, s_flags)
				       __field(u32, to)),
		    RVT_TRACE_QP_ASSIGN(__entry->hrtimer = &qp->s_rnr_timer;
					__entry->s_flags = qp->s_flags;
					__entry->to = to;),
		    TP_printk("[%s] qpn 0x%x hrtimer 0x%p s_flags 0x%x timeout %u us",
			      __get_str(dev), __entry->qpn, __entry->hrtimer,
			      __entry->s_flags, __entry->to)
);

/* rvt_rnrnak_add - an RNR NAK: the timer is armed for to microseconds. */
DEFINE_EVENT(rvt_rnrnak_template, rvt_rnrnak_add,
	     TP_PROTO(struct rvt_qp *qp, u32 to),
	     TP_ARGS(qp, to));

/*
 * rvt_rnrnak_timeout - the RNR timer's callback ran: the send engine is
 * rescheduled (whether or not the wait had been called off meanwhile).
 */
DEFINE_EVENT(rvt_rnrnak_template, rvt_rnrnak_timeout,
	     TP_PROTO(struct rvt_qp *qp, u32 to),
	     TP_ARGS(qp, to));

/*
 * rvt_rnrnak_stop - the timer's callback clears RVT_S_WAIT_RNR of a wait
 * still pending, just before rvt_rnrnak_timeout.
 */
DEFINE_EVENT(rvt_rnrnak_template, rvt_rnrnak_stop,
	     TP_PROTO(struct rvt_qp *qp, u32 to),
	     TP_ARGS(qp, to));

#endif /* RVT_TRACE_QP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_qp
#include <trace/define_trace.h>
