/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Protection domains (pd.c).
 */
#ifndef RVT_PD_H
#define RVT_PD_H

#include <rdma/rdma_vt.h>

void rvt_driver_pd_init(struct rvt_dev_info *rdi);
int rvt_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rvt_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* RVT_PD_H */
