/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Device, port and user-context verbs (device.c).
 */
#ifndef RVT_DEVICE_H
#define RVT_DEVICE_H

#include <rdma/rdma_vt.h>

int rvt_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		     struct ib_udata *uhw);
int rvt_modify_device(struct ib_device *ibdev, int mask,
		      struct ib_device_modify *modify);
int rvt_get_numa_node(struct ib_device *ibdev);
int rvt_query_port(struct ib_device *ibdev, u32 port_num,
		   struct ib_port_attr *props);
int rvt_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
		    struct ib_port_modify *props);
int rvt_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		   u16 *pkey);
int rvt_query_gid(struct ib_device *ibdev, u32 port_num, int index,
		  union ib_gid *gid);
int rvt_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_immutable *immutable);
int rvt_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void rvt_dealloc_ucontext(struct ib_ucontext *uctx);

#endif /* RVT_DEVICE_H */
