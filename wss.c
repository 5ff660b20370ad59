// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * How rvt_copy_sge() copies large transfers: the driver's
 * dparms.sge_copy_mode, and the working-set estimate behind its adaptive
 * mode.
 *
 * RVT_SGE_COPY_MEMCPY (hfi1's and qib's default) copies through the cache.
 * RVT_SGE_COPY_CACHELESS copies transfers of a page or more with
 * non-temporal stores, which leave the receiver's cache alone.
 * RVT_SGE_COPY_ADAPTIVE does so only once the pages large transfers land
 * in outgrow the last-level cache: a bitmap with a bit per page of a
 * cache-sized window of addresses (struct rvt_wss, rdma_vt.h) counts the
 * pages written to; the count is taken as the working set, and copies go
 * around the cache while it is above dparms.wss_threshold percent of the
 * cache. So that the estimate follows the present, every
 * dparms.wss_clean_period-th large copy clears one word of the bitmap, in
 * turn.
 *
 * Locking: none. The bitmap and counters are updated with atomic
 * operations from any context; the estimate only steers how data is
 * copied, never what, so a race costs at most one copy through the cache
 * that could have gone around it, or the reverse.
 *
 * Exports nothing, so it may see any header (Documentation/abi.rst).
 */
#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/uaccess.h>
#include <rdma/rdma_vt.h>
#include "compat.h"
#include "wss.h"

/* dparms.wss_threshold outside 1-100 percent means this. */
#define RVT_WSS_DEFAULT_THRESHOLD 80
/* A clean period beyond this is taken for a mistake, and means this. */
#define RVT_WSS_MAX_CLEAN_PERIOD 1000000
#define RVT_WSS_DEFAULT_CLEAN_PERIOD 256

/* The last-level cache, in bytes, as the boot CPU reports it. */
static unsigned long rvt_wss_llc_bytes(void)
{
	return (unsigned long)boot_cpu_data.x86_cache_size * 1024;
}

/* The driver's threshold percentage and clean period, made sane. */
static void rvt_wss_params(const struct rvt_driver_params *dp,
			   unsigned int *percent, unsigned int *period)
{
	*percent = dp->wss_threshold;
	if (*percent < 1 || *percent > 100)
		*percent = RVT_WSS_DEFAULT_THRESHOLD;
	*period = dp->wss_clean_period;
	if (*period > RVT_WSS_MAX_CLEAN_PERIOD)
		*period = RVT_WSS_DEFAULT_CLEAN_PERIOD;
	if (!*period)
		*period = 1;
}

/**
 * rvt_wss_init - set up the working-set estimate of an adaptive device
 * @rdi: the device being registered
 *
 * Only devices whose driver asks for RVT_SGE_COPY_ADAPTIVE get one; for
 * the others rdi->wss stays NULL.
 *
 * Context: process context, at registration.
 * Return: 0 or -ENOMEM.
 */
int rvt_wss_init(struct rvt_dev_info *rdi)
{
	int node = rdi->dparms.node;
	unsigned long llc = rvt_wss_llc_bytes();
	unsigned long window_pages, llc_pages;
	unsigned int percent, period;
	struct rvt_wss *wss;

	rdi->wss = NULL;
	if (rdi->dparms.sge_copy_mode != RVT_SGE_COPY_ADAPTIVE)
		return 0;
	rvt_wss_params(&rdi->dparms, &percent, &period);
	/* A window of addresses a power of 2 pages wide, a word at least. */
	llc_pages = max(llc / PAGE_SIZE, 1UL);
	window_pages = max_t(unsigned long, roundup_pow_of_two(llc_pages),
			     BITS_PER_LONG);

	wss = kzalloc_node(sizeof(*wss), GFP_KERNEL, node);
	if (!wss)
		return -ENOMEM;
	wss->num_entries = window_pages / BITS_PER_LONG;
	wss->entries = kcalloc_node(wss->num_entries, sizeof(*wss->entries),
				    GFP_KERNEL, node);
	if (!wss->entries) {
		kfree(wss);
		return -ENOMEM;
	}
	wss->pages_mask = window_pages - 1;
	wss->threshold = max(llc_pages * percent / 100, 1UL);
	wss->clean_period = period;
	atomic_set(&wss->clean_counter, period);
	rdi->wss = wss;
	return 0;
}

/**
 * rvt_wss_exit - free a device's working-set estimate
 * @rdi: the device, unregistered
 *
 * Context: process context.
 */
void rvt_wss_exit(struct rvt_dev_info *rdi)
{
	if (!rdi->wss)
		return;
	kfree(rdi->wss->entries);
	kfree(rdi->wss);
	rdi->wss = NULL;
}

/* Every clean_period-th call, forget the pages of the next bitmap word. */
static void rvt_wss_age(struct rvt_wss *wss)
{
	unsigned long forgotten;
	int word;

	if (!atomic_dec_and_test(&wss->clean_counter))
		return;
	atomic_set(&wss->clean_counter, wss->clean_period);
	/* num_entries is a power of 2: the index wraps with the counter. */
	word = (atomic_inc_return(&wss->clean_entry) - 1) &
	       (wss->num_entries - 1);
	forgotten = xchg(&wss->entries[word], 0);
	if (forgotten)
		atomic_sub(hweight_long(forgotten), &wss->total_count);
}

/* Count the page of @addr as part of the working set. */
static void rvt_wss_note(struct rvt_wss *wss, const void *addr)
{
	unsigned long page = ((unsigned long)addr >> PAGE_SHIFT) &
			     wss->pages_mask;

	if (!test_and_set_bit(page % BITS_PER_LONG,
			      &wss->entries[page / BITS_PER_LONG]))
		atomic_inc(&wss->total_count);
	rvt_wss_age(wss);
}

/**
 * rvt_copy_cacheless - whether a copy should go around the cache
 * @rdi: the device
 * @dst: where the copy starts
 * @length: its length
 *
 * What dparms.sge_copy_mode asks for a copy of @length bytes to @dst
 * (and, in the adaptive mode, the pages that follow, taken to be
 * contiguous); in the adaptive mode the copy's first two pages count in
 * the working set.
 *
 * Context: any.
 * Return: true for a non-temporal copy (rvt_copy_nontemporal()).
 */
bool rvt_copy_cacheless(struct rvt_dev_info *rdi, const void *dst,
			u32 length)
{
	struct rvt_wss *wss = rdi->wss;

	switch (rdi->dparms.sge_copy_mode) {
	case RVT_SGE_COPY_CACHELESS:
		return length >= PAGE_SIZE;
	case RVT_SGE_COPY_ADAPTIVE:
		if (!wss)
			return false;
		if (length < PAGE_SIZE) {
			rvt_wss_age(wss);
			return false;
		}
		rvt_wss_note(wss, dst);
		if (length >= 2 * PAGE_SIZE)
			rvt_wss_note(wss, dst + PAGE_SIZE);
		return atomic_read(&wss->total_count) >= wss->threshold;
	default:
		return false;
	}
}

/**
 * rvt_copy_nontemporal - copy with stores that bypass the cache
 * @dst: the destination, kernel memory
 * @src: the source, kernel memory
 * @len: bytes
 *
 * Context: any.
 */
void rvt_copy_nontemporal(void *dst, const void *src, u32 len)
{
	/* Kernel to kernel: the fault handling is never needed. */
	rvt_copy_to_nontemporal(dst, src, len);
}
