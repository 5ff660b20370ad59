/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The ports' SMI send agents (mad.c).
 */
#ifndef RVT_MAD_H
#define RVT_MAD_H

#include <rdma/rdma_vt.h>

int rvt_create_mad_agents(struct rvt_dev_info *rdi);
void rvt_free_mad_agents(struct rvt_dev_info *rdi);

#endif /* RVT_MAD_H */
