/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Trace system rvt_mr: memory regions and the SGEs made from them (see
 * trace.h).
 */
#if !defined(RVT_TRACE_MR_H) || defined(TRACE_HEADER_MULTI_READ)
#define RVT_TRACE_MR_H

#include <linux/tracepoint.h>
#include <rdma/rdmavt_mr.h>
#include "trace.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM rvt_mr

/*
 * A segment (map[m]->segs[n], len bytes) of a region being built. The
 * region's key, length and offset (of its start in the first segment)
 * are as they stand at that moment: a fast-registration MR gets its new
 * length and offset when the mapping ends (see rvt_map_mr_sg). A kernel
 * PD's addresses are kernel addresses: iova and user_base are recorded
 * for user MRs only, 0 otherwise.
 */
DECLARE_EVENT_CLASS(rvt_mr_seg_template,
		    TP_PROTO(const struct rvt_mregion *mr, u32 m, u32 n,
			     u32 len),
		    TP_ARGS(mr, m, n, len),
		    TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(mr->pd->device))
			    __field(u64, iova)
			    __field(u64, user_base)
			    __field(u64, mr_len)
			    __field(u32, lkey)
			    __field(u32, offset)
			    __field(u32, m)
			    __field(u32, n)
			    __field(u32, len)
			    __field(bool, user)
		    ),
		    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
			    __entry->user = ibpd_to_rvtpd(mr->pd)->user;
			    __entry->iova = __entry->user ? mr->iova : 0;
			    __entry->user_base =
				    __entry->user ? mr->user_base : 0;
			    __entry->mr_len = mr->length;
			    __entry->lkey = mr->lkey;
			    __entry->offset = mr->offset;
			    __entry->m = m;
			    __entry->n = n;
			    __entry->len = len;
		    ),
		    TP_printk("[%s] lkey 0x%x pd %s iova 0x%llx user_base 0x%llx mr_len %llu offset %u m %u n %u len %u",
			      __get_str(dev), __entry->lkey,
			      __entry->user ? "user" : "kernel", __entry->iova,
			      __entry->user_base, __entry->mr_len,
			      __entry->offset, __entry->m, __entry->n,
			      __entry->len)
);

/* rvt_mr_page_seg - map_mr_sg() added a page to a fast-registration MR. */
DEFINE_EVENT(rvt_mr_seg_template, rvt_mr_page_seg,
	     TP_PROTO(const struct rvt_mregion *mr, u32 m, u32 n, u32 len),
	     TP_ARGS(mr, m, n, len));

/*
 * rvt_mr_fmr_seg - upstream's event for FMR segments. FMRs are gone from
 * the kernel: nothing fires it, here as upstream.
 */
DEFINE_EVENT(rvt_mr_seg_template, rvt_mr_fmr_seg,
	     TP_PROTO(const struct rvt_mregion *mr, u32 m, u32 n, u32 len),
	     TP_ARGS(mr, m, n, len));

/*
 * rvt_mr_user_seg - a pinned page of a new user MR: reg_user_mr() fires
 * one per page once the MR has its key (given after all its pages are
 * mapped, see rvt_trace_mr_user_segs()).
 */
DEFINE_EVENT(rvt_mr_seg_template, rvt_mr_user_seg,
	     TP_PROTO(const struct rvt_mregion *mr, u32 m, u32 n, u32 len),
	     TP_ARGS(mr, m, n, len));

/*
 * A consumer's SGE (lkey, ilen bytes at IB address addr) as rvt_lkey_ok()
 * turned it into an rdmavt SGE: sge_len bytes in all, from offset off of
 * the region (0 for lkey 0, which covers all kernel memory), len of them
 * in its segment m, n. A kernel PD's addresses are kernel addresses: addr
 * is recorded for user PDs only, 0 otherwise.
 */
DECLARE_EVENT_CLASS(rvt_sge_template,
		    TP_PROTO(const struct rvt_sge *sge,
			     const struct ib_sge *isge),
		    TP_ARGS(sge, isge),
		    TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(sge->mr->pd->device))
			    __field(u64, addr)
			    __field(u64, off)
			    __field(u32, lkey)
			    __field(u32, ilen)
			    __field(u32, sge_len)
			    __field(u32, len)
			    __field(u16, m)
			    __field(u16, n)
			    __field(bool, user)
		    ),
		    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
			    __entry->user = ibpd_to_rvtpd(sge->mr->pd)->user;
			    __entry->addr = __entry->user ? isge->addr : 0;
			    __entry->off = isge->lkey ?
				    isge->addr - sge->mr->iova : 0;
			    __entry->lkey = isge->lkey;
			    __entry->ilen = isge->length;
			    __entry->sge_len = sge->sge_length;
			    __entry->len = sge->length;
			    __entry->m = sge->m;
			    __entry->n = sge->n;
		    ),
		    TP_printk("[%s] lkey 0x%x pd %s addr 0x%llx off %llu ilen %u sge_len %u len %u m %u n %u",
			      __get_str(dev), __entry->lkey,
			      __entry->user ? "user" : "kernel", __entry->addr,
			      __entry->off, __entry->ilen, __entry->sge_len,
			      __entry->len, __entry->m, __entry->n)
);

/*
 * rvt_sge_adjacent - the SGE continues the previous one of its request
 * and was merged into it (sge_len is the merged length).
 */
DEFINE_EVENT(rvt_sge_template, rvt_sge_adjacent,
	     TP_PROTO(const struct rvt_sge *sge, const struct ib_sge *isge),
	     TP_ARGS(sge, isge));

/* rvt_sge_new - the SGE was checked and became a new rdmavt SGE. */
DEFINE_EVENT(rvt_sge_template, rvt_sge_new,
	     TP_PROTO(const struct rvt_sge *sge, const struct ib_sge *isge),
	     TP_ARGS(sge, isge));

/*
 * rvt_map_mr_sg - map_mr_sg() mapped sg_nents scatterlist entries into a
 * fast-registration MR: the length the IB core computed, where the
 * region starts in its first page (its IB address, a kernel address, is
 * not recorded), and the number of entries mapped or a negative errno.
 */
TRACE_EVENT(rvt_map_mr_sg,
	    TP_PROTO(const struct ib_mr *ibmr, int sg_nents,
		     const unsigned int *sg_offset, int mapped),
	    TP_ARGS(ibmr, sg_nents, sg_offset, mapped),
	    TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(ibmr->device))
		    __field(u64, length)
		    __field(u32, lkey)
		    __field(u32, page_size)
		    __field(u32, offset)
		    __field(int, sg_nents)
		    __field(u32, sg_offset)
		    __field(int, mapped)
	    ),
	    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
		    __entry->length = ibmr->length;
		    __entry->lkey = ibmr->lkey;
		    __entry->page_size = ibmr->page_size;
		    __entry->offset = ibmr->page_size ?
			    ibmr->iova & (ibmr->page_size - 1) : 0;
		    __entry->sg_nents = sg_nents;
		    __entry->sg_offset = sg_offset ? *sg_offset : 0;
		    __entry->mapped = mapped;
	    ),
	    TP_printk("[%s] lkey 0x%x length %llu page_size %u offset %u sg_nents %d sg_offset %u mapped %d",
		      __get_str(dev), __entry->lkey, __entry->length,
		      __entry->page_size, __entry->offset, __entry->sg_nents,
		      __entry->sg_offset, __entry->mapped)
);

#endif /* RVT_TRACE_MR_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_mr
#include <trace/define_trace.h>
