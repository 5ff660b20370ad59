/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Multicast groups. Included by mcast.c, which must not see linux/pci.h
 * (Documentation/abi.rst), so this header includes no more than the
 * public rdmavt headers.
 */
#ifndef RVT_MCAST_H
#define RVT_MCAST_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

void rvt_driver_mcast_init(struct rvt_dev_info *rdi);
int rvt_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int rvt_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
unsigned int rvt_mcast_groups_left(struct rvt_dev_info *rdi);

#endif /* RVT_MCAST_H */
