/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Address handle verbs.
 */
#ifndef RVT_AH_H
#define RVT_AH_H

#include <rdma/rdma_vt.h>

void rvt_driver_ah_init(struct rvt_dev_info *rdi);
int rvt_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		  struct ib_udata *udata);
int rvt_destroy_ah(struct ib_ah *ibah, u32 destroy_flags);
int rvt_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);
int rvt_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);

#endif /* RVT_AH_H */
