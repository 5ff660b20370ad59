/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The include set of the files that export what upstream's vt.c, ah.c,
 * cq.c, mr.c and qp.c export (the QP files through qp_exports.h).
 *
 * Every exported symbol's modversions CRC is computed by genksyms from the
 * type definitions visible in the translation unit that exports it, so
 * this include set is part of the ABI: the distro's vt.c, ah.c, cq.c, mr.c
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
#ifndef RVT_EXPORTS_H
#define RVT_EXPORTS_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/rdmavt_cq.h>
#include <linux/pci.h>

#endif /* RVT_EXPORTS_H */
