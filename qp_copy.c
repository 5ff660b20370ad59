// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copying a message's data into the memory an SGE state describes: the
 * receive buffers of an incoming SEND, the region of an RDMA WRITE, the
 * requester's buffers of an RDMA READ response.
 *
 * dparms.sge_copy_mode lets a driver ask for non-temporal copies of large
 * transfers (RVT_SGE_COPY_CACHELESS, or RVT_SGE_COPY_ADAPTIVE once the
 * working set outgrows the cache). This core copies with memcpy() in
 * every mode: the data written is the same, only the cache footprint
 * differs, and no driver depends on it for correctness.
 *
 * Exported symbols' CRCs depend on the types visible here: keep the
 * include set of the upstream file that exports them
 * (Documentation/abi.rst, the qp.c row).
 */
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
#include "vt.h"

/* The bytes a process may poll on to see a message has arrived. */
#define RVT_COPY_LAST_BYTES 8

/* Copy one byte at a time, in address order, each store on its own. */
static void rvt_copy_in_order(void *dst, const void *src, u32 len)
{
	u8 *d = dst;
	const u8 *s = src;
	u32 i;

	for (i = 0; i < len; i++)
		WRITE_ONCE(d[i], s[i]);
}

/* Copy @length bytes into @ss; return the first byte of @data not copied. */
static const void *rvt_copy_to_sges(struct rvt_sge_state *ss,
				    const void *data, u32 length,
				    bool release, bool in_order)
{
	while (length) {
		u32 len = rvt_get_sge_length(&ss->sge, length);

		/* Callers never copy more than the SGEs hold. */
		if (WARN_ON_ONCE(!len))
			break;
		if (in_order)
			rvt_copy_in_order(ss->sge.vaddr, data, len);
		else
			memcpy(ss->sge.vaddr, data, len);
		rvt_update_sge(ss, len, release);
		data += len;
		length -= len;
	}
	return data;
}

/**
 * rvt_copy_sge - copy data into the memory of an SGE state
 * @qp: the QP the data arrived on (its device's copy mode applies)
 * @ss: the SGE state, advanced past the data
 * @data: the data
 * @length: its length; @ss must describe at least that much memory
 * @release: drop the reference on each SGE's region once it is filled
 * @copy_last: write the last 8 bytes after all the others, one byte at a
 *	       time in address order, for processes that poll on the end of
 *	       a buffer to learn that an RDMA WRITE has landed
 *
 * Context: any; the caller holds what keeps @ss stable (the receiving
 * QP's r_lock, or the requester's send engine).
 */
void rvt_copy_sge(struct rvt_qp *qp, struct rvt_sge_state *ss,
		  void *data, u32 length, bool release, bool copy_last)
{
	u32 last = copy_last ? min_t(u32, length, RVT_COPY_LAST_BYTES) : 0;
	const void *rest;

	rest = rvt_copy_to_sges(ss, data, length - last, release, false);
	if (!last)
		return;
	/* Everything before the last bytes is visible once they are. */
	smp_wmb();
	rvt_copy_to_sges(ss, rest, last, release, true);
}
EXPORT_SYMBOL(rvt_copy_sge);
