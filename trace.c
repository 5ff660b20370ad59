// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Defines rdmavt's trace events (trace.h).
 *
 * CREATE_TRACE_POINTS brings in linux/trace_events.h, which changes the
 * modversions CRC of any export that sees it: this file must never export
 * anything (Documentation/abi.rst, "Tracing").
 */
#include <linux/mm.h>

#define CREATE_TRACE_POINTS
#include "trace_rvt.h"
#include "trace_cq.h"
#include "trace_mr.h"
#include "trace_qp.h"
#include "trace_rc.h"
#include "trace_tx.h"

void rvt_trace_mr_user_segs(const struct rvt_mregion *mr)
{
	const struct rvt_seg *seg;
	u32 i;

	for (i = 0; i < mr->max_segs; i++) {
		seg = &mr->map[i / RVT_SEGSZ]->segs[i % RVT_SEGSZ];
		trace_rvt_mr_user_seg(mr, i / RVT_SEGSZ, i % RVT_SEGSZ,
				      seg->vaddr, seg->length);
	}
}
