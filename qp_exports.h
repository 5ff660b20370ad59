/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The headers upstream's qp.c sees, for every file of ours that exports
 * one of the 17 symbols upstream's qp.c exports. Include it first.
 *
 * genksyms computes an export's modversions CRC from the type definitions
 * visible where EXPORT_SYMBOL() stands, and hfi1.ko and ib_qib.ko carry
 * the CRCs upstream's qp.c produced: a header added here, or missing, and
 * they refuse to load on this module. The four that decide it are
 * rdma/rdmavt_qp.h and linux/pci.h (through exports.h), linux/tracepoint.h and
 * rdma/uverbs_ioctl.h; the rest complete upstream's set. Documentation/
 * abi.rst explains the rule, and tools/abi-check checks it.
 */
#ifndef RVT_QP_EXPORTS_H
#define RVT_QP_EXPORTS_H

#include <linux/hash.h>
#include <linux/bitops.h>
#include <linux/lockdep.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_hdrs.h>
#include <rdma/opa_addr.h>
#include <rdma/uverbs_ioctl.h>
#include <linux/tracepoint.h>
#include <linux/trace_seq.h>
#include "exports.h"

#endif /* RVT_QP_EXPORTS_H */
