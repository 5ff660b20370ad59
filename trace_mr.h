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
 * A segment (map[m]->segs[n]: len bytes of kernel memory at v) of a
 * region being built. The region's key, addresses, length (mr_len) and
 * offset are as they stand at that moment: a fast-registration MR's
 * length counts the pages mapped so far, and its addresses and offset
 * are those of its previous mapping until the mapping ends.
 */
DECLARE_EVENT_CLASS(rvt_mr_template,
		    TP_PROTO(const struct rvt_mregion *mr, u16 m, u16 n,
			     void *v, size_t len),
		    TP_ARGS(mr, m, n, v, len),
		    TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(mr->pd->device))
			    __field(void *, vaddr)
			    __field(struct page *, page)
			    __field(u64, iova)
			    __field(u64, user_base)
			    __field(size_t, len)
			    __field(size_t, length)
			    __field(u32, lkey)
			    __field(u32, offset)
			    __field(u16, m)
			    __field(u16, n)
		    ),
		    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
			    __entry->vaddr = v;
			    __entry->page = virt_to_page(v);
			    __entry->iova = mr->iova;
			    __entry->user_base = mr->user_base;
			    __entry->len = len;
			    __entry->length = mr->length;
			    __entry->lkey = mr->lkey;
			    __entry->offset = mr->offset;
			    __entry->m = m;
			    __entry->n = n;
		    ),
		    TP_printk("[%s] lkey %x iova %llx user_base %llx mr_len %lu vaddr %llx page %p m %u n %u len %lu off %u",
			      __get_str(dev), __entry->lkey, __entry->iova,
			      __entry->user_base, __entry->length,
			      (unsigned long long)__entry->vaddr, __entry->page,
			      __entry->m, __entry->n, __entry->len,
			      __entry->offset)
);

/* rvt_mr_page_seg - map_mr_sg() added a page to a fast-registration MR. */
DEFINE_EVENT(rvt_mr_template, rvt_mr_page_seg,
	     TP_PROTO(const struct rvt_mregion *mr, u16 m, u16 n, void *v,
		      size_t len),
	     TP_ARGS(mr, m, n, v, len));

/*
 * rvt_mr_fmr_seg - upstream's event for FMR segments. FMRs are gone from
 * the kernel: nothing fires it, here as upstream.
 */
DEFINE_EVENT(rvt_mr_template, rvt_mr_fmr_seg,
	     TP_PROTO(const struct rvt_mregion *mr, u16 m, u16 n, void *v,
		      size_t len),
	     TP_ARGS(mr, m, n, v, len));

/*
 * rvt_mr_user_seg - a pinned page of a new user MR: reg_user_mr() fires
 * one per page once the MR has its key (given after all its pages are
 * mapped, see rvt_trace_mr_user_segs()).
 */
DEFINE_EVENT(rvt_mr_template, rvt_mr_user_seg,
	     TP_PROTO(const struct rvt_mregion *mr, u16 m, u16 n, void *v,
		      size_t len),
	     TP_ARGS(mr, m, n, v, len));

/*
 * A consumer's SGE (isge) as rvt_lkey_ok() turned it into an rdmavt SGE
 * (sge): sge_length bytes in all, length of them in its segment m, n, at
 * vaddr; the region's key and whether its PD is a user one.
 */
DECLARE_EVENT_CLASS(rvt_sge_template,
		    TP_PROTO(struct rvt_sge *sge, struct ib_sge *isge),
		    TP_ARGS(sge, isge),
		    TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(sge->mr->pd->device))
			    __field(struct rvt_mregion *, mr)
			    __field(struct rvt_sge *, sge)
			    __field(struct ib_sge *, isge)
			    __field(void *, vaddr)
			    __field(u64, ivaddr)
			    __field(u32, lkey)
			    __field(u32, sge_length)
			    __field(u32, length)
			    __field(u32, ilength)
			    __field(int, user)
			    __field(u16, m)
			    __field(u16, n)
		    ),
		    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
			    __entry->mr = sge->mr;
			    __entry->sge = sge;
			    __entry->isge = isge;
			    __entry->vaddr = sge->vaddr;
			    __entry->ivaddr = isge->addr;
			    __entry->lkey = sge->mr->lkey;
			    __entry->sge_length = sge->sge_length;
			    __entry->length = sge->length;
			    __entry->ilength = isge->length;
			    __entry->user = ibpd_to_rvtpd(sge->mr->pd)->user;
			    __entry->m = sge->m;
			    __entry->n = sge->n;
		    ),
		    TP_printk("[%s] mr %p sge %p isge %p vaddr %p ivaddr %llx lkey %x sge_length %u length %u ilength %u m %u n %u user %u",
			      __get_str(dev), __entry->mr, __entry->sge,
			      __entry->isge, __entry->vaddr, __entry->ivaddr,
			      __entry->lkey, __entry->sge_length,
			      __entry->length, __entry->ilength, __entry->m,
			      __entry->n, __entry->user)
);

/*
 * rvt_sge_adjacent - the SGE continues the previous one of its request
 * and was merged into it (sge_length is the merged length).
 */
DEFINE_EVENT(rvt_sge_template, rvt_sge_adjacent,
	     TP_PROTO(struct rvt_sge *sge, struct ib_sge *isge),
	     TP_ARGS(sge, isge));

/* rvt_sge_new - the SGE was checked and became a new rdmavt SGE. */
DEFINE_EVENT(rvt_sge_template, rvt_sge_new,
	     TP_PROTO(struct rvt_sge *sge, struct ib_sge *isge),
	     TP_ARGS(sge, isge));

/*
 * rvt_map_mr_sg - map_mr_sg() mapped sg_nents scatterlist entries into a
 * fast-registration MR: the IB address and length the IB core computed,
 * which become the region's iova, user_base and length, whether or not
 * the mapping succeeded.
 */
TRACE_EVENT(rvt_map_mr_sg,
	    TP_PROTO(const struct ib_mr *ibmr, int sg_nents,
		     const unsigned int *sg_offset),
	    TP_ARGS(ibmr, sg_nents, sg_offset),
	    TP_STRUCT__entry(RVT_TRACE_DEV(ib_to_rvt(ibmr->device))
		    __field(u64, iova)
		    __field(u64, ibmr_iova)
		    __field(u64, user_base)
		    __field(u64, ibmr_length)
		    __field(int, sg_nents)
		    __field(uint, sg_offset)
	    ),
	    TP_fast_assign(RVT_TRACE_DEV_ASSIGN();
		    __entry->iova = ibmr->iova;
		    __entry->ibmr_iova = ibmr->iova;
		    __entry->user_base = ibmr->iova;
		    __entry->ibmr_length = ibmr->length;
		    __entry->sg_nents = sg_nents;
		    __entry->sg_offset = sg_offset ? *sg_offset : 0;
	    ),
	    TP_printk("[%s] ibmr_iova %llx iova %llx user_base %llx length %llx sg_nents %d sg_offset %u",
		      __get_str(dev), __entry->ibmr_iova, __entry->iova,
		      __entry->user_base, __entry->ibmr_length,
		      __entry->sg_nents, __entry->sg_offset)
);

#endif /* RVT_TRACE_MR_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_mr
#include <trace/define_trace.h>
