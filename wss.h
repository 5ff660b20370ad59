/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The copy mode of large transfers (wss.c). Only declares functions: it
 * is included by a file whose exports' CRCs must not change.
 */
#ifndef RVT_WSS_H
#define RVT_WSS_H

#include <rdma/rdma_vt.h>

int rvt_wss_init(struct rvt_dev_info *rdi);
void rvt_wss_exit(struct rvt_dev_info *rdi);
bool rvt_copy_cacheless(struct rvt_dev_info *rdi, const void *dst,
			u32 length);
void rvt_copy_nontemporal(void *dst, const void *src, u32 len);

#endif /* RVT_WSS_H */
