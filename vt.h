/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rdmavt internal declarations shared by every core file.
 *
 * Every exported symbol's modversions CRC is computed by genksyms from the
 * type definitions visible in the translation unit that exports it, so the
 * include set here is part of the ABI: the distro's vt.c, ah.c, cq.c, mr.c
 * and qp.c all see the QP and CQ structures and struct pci_dev fully
 * defined, and so must ours, or hfi1.ko and ib_qib.ko refuse to load on
 * top of this module.
 *
 * Hence nothing that only some of those files see belongs here:
 * linux/tracepoint.h (not seen by ah.c) and rdma/uverbs_ioctl.h (seen by
 * cq.c and qp.c only) are included by the files that need them, and the
 * files exporting what mcast.c and rc.c export must not include this at
 * all (no pci.h there). The rule for every file, and how to check it:
 * Documentation/abi.rst.
 */
#ifndef RVT_VT_H
#define RVT_VT_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/rdmavt_cq.h>
#include <linux/pci.h>

/* Userspace ABI revision: rdma-core's ipathverbs uses mmap'd rings from 2 on. */
#define RVT_UVERBS_ABI_VERSION 2

/**
 * rvt_port_index - convert an IB port number into an index of rdi->ports
 * @port_num: 1-based port number, already validated by the IB core
 *
 * Return: the 0-based index.
 */
static inline u32 rvt_port_index(u32 port_num)
{
	return port_num - 1;
}

/**
 * rvt_port - the driver's port structure for an IB port number
 * @rdi: the rdmavt device
 * @port_num: 1-based port number, already validated by the IB core
 *
 * Return: the port registered with rvt_init_port().
 */
static inline struct rvt_ibport *rvt_port(struct rvt_dev_info *rdi,
					  u32 port_num)
{
	return rdi->ports[rvt_port_index(port_num)];
}

/* device.c: device and port verbs */
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

/* pd.c: protection domains */
void rvt_driver_pd_init(struct rvt_dev_info *rdi);
int rvt_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rvt_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* RVT_VT_H */
