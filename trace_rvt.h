/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt: the device's life with rdmavt (see trace.h).
 */
#if !defined(RVT_TRACE_RVT_H) || defined(TRACE_HEADER_MULTI_READ)
#define RVT_TRACE_RVT_H

#include <linux/tracepoint.h>
#include "trace.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rvt

/*
 * rvt_dbg - a message about a device: upstream's words when
 * rvt_register_device() starts registering it, its driver having passed
 * the checks, and when rvt_unregister_device() starts taking it down.
 */
TRACE_EVENT(rvt_dbg,
	    TP_PROTO(const struct rvt_dev_info *rdi, const char *msg),
	    TP_ARGS(rdi, msg),
	    TP_STRUCT__entry(RVT_TRACE_DEV(rdi)
		    __string(msg, msg)
	    ),
	    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
		    __assign_str(msg);
	    ),
	    TP_printk("[%s]: %s", __get_str(dev), __get_str(msg))
);

#endif /* RVT_TRACE_RVT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_rvt
#include <trace/define_trace.h>
