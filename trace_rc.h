/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt_rc: the RC requester's retries (see trace.h).
 */
#if !defined(RVT_TRACE_RC_H) || defined(TRACE_HEADER_MULTI_READ)
#define RVT_TRACE_RC_H

#include <linux/tracepoint.h>
#include <rdma/rdmavt_qp.h>
#include "trace.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rvt_rc

/*
 * rvt_rc_timeout - the retry timer expired while armed: the driver is
 * told to restart from psn (the oldest unacknowledged PSN) and its send
 * engine is rescheduled.
 */
TRACE_EVENT(rvt_rc_timeout,
	    TP_PROTO(const struct rvt_qp *qp, u32 psn),
	    TP_ARGS(qp, psn),
	    RVT_TRACE_QP_ENTRY(__field(u32, s_flags)
			       __field(u32, psn)
			       __field(u32, s_psn)
			       __field(u32, s_next_psn)
			       __field(u32, s_sending_psn)
			       __field(u32, s_sending_hpsn)
			       __field(u32, r_psn)),
	    RVT_TRACE_QP_ASSIGN(__entry->s_flags = qp->s_flags;
				__entry->psn = psn;
				__entry->s_psn = qp->s_psn;
				__entry->s_next_psn = qp->s_next_psn;
				__entry->s_sending_psn = qp->s_sending_psn;
				__entry->s_sending_hpsn = qp->s_sending_hpsn;
				__entry->r_psn = qp->r_psn;),
	    TP_printk("[%s] qpn 0x%x s_flags 0x%x psn 0x%x s_psn 0x%x s_next_psn 0x%x s_sending_psn 0x%x sending_hpsn 0x%x r_psn 0x%x",
		      __get_str(dev), __entry->qpn, __entry->s_flags,
		      __entry->psn, __entry->s_psn, __entry->s_next_psn,
		      __entry->s_sending_psn, __entry->s_sending_hpsn,
		      __entry->r_psn)
);

/*
 * Ours, not upstream's: the retries an RC requester has left, of those
 * its QP was given (an RNR count of 7 retries for ever), when a retry
 * starts. Upstream's events beside them do not record the counters, and
 * a QP that ends in RETRY_EXC_ERR or RNR_RETRY_EXC_ERR is explained by
 * them.
 */
DECLARE_EVENT_CLASS(rvt_rc_retries_template,
		    TP_PROTO(const struct rvt_qp *qp),
		    TP_ARGS(qp),
		    RVT_TRACE_QP_ENTRY(__field(u8, retry)
				       __field(u8, retry_cnt)
				       __field(u8, rnr_retry)
				       __field(u8, rnr_retry_cnt)),
		    RVT_TRACE_QP_ASSIGN(__entry->retry = qp->s_retry;
					__entry->retry_cnt = qp->s_retry_cnt;
					__entry->rnr_retry = qp->s_rnr_retry;
					__entry->rnr_retry_cnt =
						qp->s_rnr_retry_cnt;),
		    TP_printk("[%s] qpn 0x%x retry %u of %u rnr_retry %u of %u",
			      __get_str(dev), __entry->qpn, __entry->retry,
			      __entry->retry_cnt, __entry->rnr_retry,
			      __entry->rnr_retry_cnt)
);

/* rvt_rc_timeout_retries - right after rvt_rc_timeout. */
DEFINE_EVENT(rvt_rc_retries_template, rvt_rc_timeout_retries,
	     TP_PROTO(const struct rvt_qp *qp),
	     TP_ARGS(qp));

/* rvt_rc_rnrnak_retries - right after rvt_rnrnak_add. */
DEFINE_EVENT(rvt_rc_retries_template, rvt_rc_rnrnak_retries,
	     TP_PROTO(const struct rvt_qp *qp),
	     TP_ARGS(qp));

#endif /* RVT_TRACE_RC_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_rc
#include <trace/define_trace.h>
