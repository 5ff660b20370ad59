/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What differs between the kernels this tree builds for: Debian 12's 6.1
 * and 6.12 (Documentation/abi.rst, "Kernels"). Every difference lives
 * here, as a wrapper the files call instead of the kernel's spelling.
 *
 * ABI: a modversions CRC is computed from the type definitions visible in
 * the file that exports the symbol, and several files that export include
 * this header (through trace_common.h). So it includes nothing that defines a
 * type, and defines none: only macros, each expanded at its call site
 * where the caller's own includes supply what it names.
 *
 * Where a kernel feature is a macro (kvcalloc_node, copy_to_nontemporal)
 * its presence is tested; otherwise the kernel version that brought it.
 */
#ifndef RVT_COMPAT_H
#define RVT_COMPAT_H

#include <linux/version.h>

/*
 * ib_device_ops.create_cq: from 6.11 the core passes the uverbs bundle,
 * whose driver_udata is the user data (NULL for a kernel CQ); before, the
 * user data itself. Upstream's cq.c includes rdma/uverbs_ioctl.h for the
 * bundle's definition from 6.11 on and not before, and rvt_cq_enter's
 * CRC (exported by cq.c) follows: cq.c includes RVT_CQ_UVERBS_H, which
 * is that header where upstream includes it and, elsewhere, ib_verbs.h
 * (already seen by every file of ours, so including it changes nothing).
 */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define RVT_CQ_UVERBS_H		"rdma/uverbs_ioctl.h"
#define RVT_CREATE_CQ_UDATA	struct uverbs_attr_bundle
#define rvt_create_cq_udata(arg) ({					\
	struct uverbs_attr_bundle *__rvt_attrs = (arg);			\
									\
	__rvt_attrs ? &__rvt_attrs->driver_udata : NULL;		\
})
#else
#define RVT_CQ_UVERBS_H		"rdma/ib_verbs.h"
#define RVT_CREATE_CQ_UDATA	struct ib_udata
#define rvt_create_cq_udata(arg)	(arg)
#endif

/*
 * __assign_str() takes the source again before 6.10; from 6.10 it copies
 * what __string() named. src must be __string()'s source expression; from
 * 6.10 it is only type-checked (not evaluated), so that a wrong one
 * breaks the build there too.
 */
#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
#define rvt_assign_str(dst, src) \
	do { (void)sizeof(src); __assign_str(dst); } while (0)
#else
#define rvt_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * A zeroed array of n elements of size bytes on a NUMA node, NULL if n *
 * size overflows. Before kvcalloc_node() existed: the same from
 * check_mul_overflow() and kvzalloc_node(), as its caller includes them.
 */
#ifdef kvcalloc_node
#define rvt_kvcalloc_node(n, size, flags, node) \
	kvcalloc_node(n, size, flags, node)
#else
#define rvt_kvcalloc_node(n, size, flags, node) ({			\
	size_t __rvt_bytes;						\
									\
	check_mul_overflow((size_t)(n), (size_t)(size), &__rvt_bytes) ?	\
		NULL : kvzalloc_node(__rvt_bytes, flags, node);		\
})
#endif

/*
 * A kernel-to-kernel copy whose stores bypass the cache. Before
 * copy_to_nontemporal() existed, x86's __copy_user_nocache() did it; its
 * source is nominally a user pointer and its last argument (zero the
 * rest after a fault) is the form 6.1 takes. A kernel source never
 * faults, so no fault handling is in play.
 */
#ifdef copy_to_nontemporal
#define rvt_copy_to_nontemporal(dst, src, len) \
	copy_to_nontemporal(dst, src, len)
#else
#define rvt_copy_to_nontemporal(dst, src, len) \
	__copy_user_nocache(dst, (__force const void __user *)(src), len, 0)
#endif

/*
 * A workqueue for work that must run with bottom halves off (rvtsw's
 * packet receive worker). From 6.9 the BH workqueue runs it in softirq
 * context; before, a high-priority workqueue runs it in a kworker. Such
 * work disables bottom halves itself, which nests harmlessly in softirq
 * context, so one work function serves both.
 */
#if KERNEL_VERSION(6, 9, 0) <= LINUX_VERSION_CODE
#define rvt_bh_wq	system_bh_wq
#else
#define rvt_bh_wq	system_highpri_wq
#endif

#endif /* RVT_COMPAT_H */
