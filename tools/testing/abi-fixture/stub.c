// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The five exports of our vt.c as empty stubs, compiled with the include
 * set Documentation/abi.rst prescribes for vt.c, so that tools/abi-check
 * passes on this module unless one ABI_TEST_ macro plants a defect:
 *
 * ABI_TEST_NO_TRACEPOINT  drop linux/tracepoint.h: every CRC changes
 * ABI_TEST_GPL            export with EXPORT_SYMBOL_GPL
 * ABI_TEST_NS             export into a symbol namespace
 * ABI_TEST_EXTRA          export a symbol the distro rdmavt.ko lacks
 * ABI_TEST_PROPRIETARY    a licence the kernel does not treat as GPL
 */
#include <linux/module.h>
#ifndef ABI_TEST_NO_TRACEPOINT
#include <linux/tracepoint.h>
#endif
#include <rdma/rdmavt_qp.h>
#include <linux/pci.h>

#if defined(ABI_TEST_GPL)
#define ABI_TEST_EXPORT(sym) EXPORT_SYMBOL_GPL(sym)
#elif defined(ABI_TEST_NS)
#define ABI_TEST_EXPORT(sym) EXPORT_SYMBOL_NS(sym, RDMAVT_TEST)
#else
#define ABI_TEST_EXPORT(sym) EXPORT_SYMBOL(sym)
#endif

#ifdef ABI_TEST_PROPRIETARY
MODULE_LICENSE("Proprietary");
#else
MODULE_LICENSE("Dual BSD/GPL");
#endif
MODULE_DESCRIPTION("abi-check test fixture, never loaded");

struct rvt_dev_info *rvt_alloc_device(size_t size, int nports)
{
	return NULL;
}

void rvt_dealloc_device(struct rvt_dev_info *rdi)
{
}

int rvt_register_device(struct rvt_dev_info *rdi)
{
	return -ENODEV;
}

void rvt_unregister_device(struct rvt_dev_info *rdi)
{
}

int rvt_init_port(struct rvt_dev_info *rdi, struct rvt_ibport *port,
		  int port_index, u16 *pkey_table)
{
	return 0;
}

ABI_TEST_EXPORT(rvt_alloc_device);
ABI_TEST_EXPORT(rvt_dealloc_device);
ABI_TEST_EXPORT(rvt_register_device);
ABI_TEST_EXPORT(rvt_unregister_device);
ABI_TEST_EXPORT(rvt_init_port);

#ifdef ABI_TEST_EXTRA
int rvt_abi_test_extra(void);
int rvt_abi_test_extra(void)
{
	return 0;
}

ABI_TEST_EXPORT(rvt_abi_test_extra);
#endif
