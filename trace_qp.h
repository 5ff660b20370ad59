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
		    RVT_TRACE_QP_ENTRY(__field(u32, bucket)
				       __field(u32, type)
				       __field(u8, port)),
		    RVT_TRACE_QP_ASSIGN(__entry->bucket = bucket;
					__entry->type = qp->ibqp.qp_type;
					__entry->port = qp->port_num;),
		    TP_printk("[%s] qpn 0x%x type %s port %u bucket %u",
			      __get_str(dev), __entry->qpn,
			      rvt_show_qp_type(__entry->type), __entry->port,
			      __entry->bucket)
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
 * The RNR NAK timer of an RC requester: usec is the wait for
 * rvt_rnrnak_add, 0 for the others; rnr_retry the retries left (7: for
 * ever).
 */
DECLARE_EVENT_CLASS(rvt_rnrnak_template,
		    TP_PROTO(const struct rvt_qp *qp, u32 usec),
		    TP_ARGS(qp, usec),
		    RVT_TRACE_QP_ENTRY(__field(u32, s_flags)
				       __field(u32, usec)
				       __field(u32, s_psn)
				       __field(u8, rnr_retry)),
		    RVT_TRACE_QP_ASSIGN(__entry->s_flags = qp->s_flags;
					__entry->usec = usec;
					__entry->s_psn = qp->s_psn;
					__entry->rnr_retry = qp->s_rnr_retry;),
		    TP_printk("[%s] qpn 0x%x s_flags 0x%x timeout %u us s_psn 0x%x rnr_retry %u",
			      __get_str(dev), __entry->qpn, __entry->s_flags,
			      __entry->usec, __entry->s_psn,
			      __entry->rnr_retry)
);

/* rvt_rnrnak_add - an RNR NAK: the timer is armed for usec. */
DEFINE_EVENT(rvt_rnrnak_template, rvt_rnrnak_add,
	     TP_PROTO(const struct rvt_qp *qp, u32 usec),
	     TP_ARGS(qp, usec));

/*
 * rvt_rnrnak_timeout - the RNR timer's callback ran: the send engine is
 * rescheduled (whether or not the wait had been called off meanwhile).
 */
DEFINE_EVENT(rvt_rnrnak_template, rvt_rnrnak_timeout,
	     TP_PROTO(const struct rvt_qp *qp, u32 usec),
	     TP_ARGS(qp, usec));

/*
 * rvt_rnrnak_stop - the timer's callback clears RVT_S_WAIT_RNR of a wait
 * still pending, just before rvt_rnrnak_timeout.
 */
DEFINE_EVENT(rvt_rnrnak_template, rvt_rnrnak_stop,
	     TP_PROTO(const struct rvt_qp *qp, u32 usec),
	     TP_ARGS(qp, usec));

#endif /* RVT_TRACE_QP_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_qp
#include <trace/define_trace.h>
