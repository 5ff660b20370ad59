/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt_rc: the RC requester's retry timer (see trace.h).
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
 * engine is rescheduled. retry is the retries left.
 */
TRACE_EVENT(rvt_rc_timeout,
	    TP_PROTO(const struct rvt_qp *qp, u32 psn),
	    TP_ARGS(qp, psn),
	    RVT_TRACE_QP_ENTRY(__field(u32, s_flags)
			       __field(u32, psn)
			       __field(u32, s_psn)
			       __field(u32, s_next_psn)
			       __field(u32, s_last_psn)
			       __field(u32, s_sending_psn)
			       __field(u32, s_sending_hpsn)
			       __field(u32, r_psn)
			       __field(u8, retry)),
	    RVT_TRACE_QP_ASSIGN(__entry->s_flags = qp->s_flags;
				__entry->psn = psn;
				__entry->s_psn = qp->s_psn;
				__entry->s_next_psn = qp->s_next_psn;
				__entry->s_last_psn = qp->s_last_psn;
				__entry->s_sending_psn = qp->s_sending_psn;
				__entry->s_sending_hpsn = qp->s_sending_hpsn;
				__entry->r_psn = qp->r_psn;
				__entry->retry = qp->s_retry;),
	    TP_printk("[%s] qpn 0x%x s_flags 0x%x psn 0x%x s_psn 0x%x s_next_psn 0x%x s_last_psn 0x%x s_sending_psn 0x%x s_sending_hpsn 0x%x r_psn 0x%x retry %u",
		      __get_str(dev), __entry->qpn, __entry->s_flags,
		      __entry->psn, __entry->s_psn, __entry->s_next_psn,
		      __entry->s_last_psn, __entry->s_sending_psn,
		      __entry->s_sending_hpsn, __entry->r_psn, __entry->retry)
);

#endif /* RVT_TRACE_RC_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_rc
#include <trace/define_trace.h>
