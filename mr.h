/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Memory regions: the lkey table and the MR verbs.
 */
#ifndef RVT_MR_H
#define RVT_MR_H

#include <rdma/rdma_vt.h>

/**
 * struct rvt_mr - a memory region
 * @ibmr: the IB core's view
 * @umem: the pinned user memory of a user MR, else NULL
 * @dma_next: next DMA MR waiting to take over lkey 0 (see mr.c); guarded
 *	      by rdi->lkey_table.lock
 * @fast_reg: from alloc_mr(): registered and invalidated by work requests
 * @mapped: segments filled by map_mr_sg() in a fast-registration MR
 * @draining: dereg has unpublished the region and killed its reference;
 *	      a dereg retried after a timeout only waits again
 * @mr: the region itself; its map[] makes it the last member
 */
struct rvt_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct rvt_mr *dma_next;
	bool fast_reg;
	u32 mapped;
	bool draining;
	struct rvt_mregion mr;
};

static inline struct rvt_mr *to_rvt_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct rvt_mr, ibmr);
}

int rvt_driver_mr_init(struct rvt_dev_info *rdi);
void rvt_mr_exit(struct rvt_dev_info *rdi);

struct ib_mr *rvt_get_dma_mr(struct ib_pd *ibpd, int acc);
struct ib_mr *rvt_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt_addr, int acc, struct ib_udata *udata);
int rvt_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *rvt_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			   u32 max_num_sg);
int rvt_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);

#endif /* RVT_MR_H */
