// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: QP numbers: unique over many create/destroy cycles, never
 * reused at once, looked up only while in the table.
 */
#include <linux/vmalloc.h>
#include "qp.h"

#define LIVE_WINDOW 32		/* QPs alive at once */

static unsigned int cycles = 100000;
module_param(cycles, uint, 0444);
MODULE_PARM_DESC(cycles, "QP create/destroy cycles of the QPN test");

static bool lookup_cycle(void)
{
	struct ib_qp *qp = qpt_qp(IB_QPT_UC, 1, NULL);
	u32 qpn;
	bool ok;

	if (IS_ERR(qp))
		return false;
	qpn = qp->qp_num;
	ok = !qpt_lookup(qpn) && !qpt_to_init(qp, 0) && qpt_lookup(qpn);
	ib_destroy_qp(qp);
	return ok && !qpt_lookup(qpn);
}

void qp_qpn_unique(struct kt_test *t)
{
	struct ib_qp *live[LIVE_WINDOW] = { };
	unsigned long *used, start = jiffies;
	unsigned int i, dup = 0, reuse = 0, lookups = 0;
	u32 last_freed = 0;
	long err = 0;

	used = vzalloc(BITS_TO_LONGS(RVT_QPN_MAX) * sizeof(long));
	if (!used) {
		kt_result(t, false, "no memory");
		return;
	}
	for (i = 0; i < cycles && !err; i++) {
		unsigned int slot = i % LIVE_WINDOW;
		struct ib_qp *qp;

		if (live[slot]) {
			last_freed = live[slot]->qp_num;
			clear_bit(last_freed, used);
			ib_destroy_qp(live[slot]);
			live[slot] = NULL;
		}
		qp = qpt_qp(i & 1 ? IB_QPT_RC : IB_QPT_UD, 1, NULL);
		if (IS_ERR(qp)) {
			err = PTR_ERR(qp);
			break;
		}
		live[slot] = qp;
		dup += test_and_set_bit(qp->qp_num, used);
		reuse += qp->qp_num == last_freed;
		if (i % 4096 == 0)
			lookups += !lookup_cycle();
	}
	for (i = 0; i < LIVE_WINDOW; i++)
		if (live[i])
			ib_destroy_qp(live[i]);
	vfree(used);
	kt_result(t, !err && !dup && !reuse && !lookups,
		  "%u cycles in %u ms: error %ld, duplicates %u, immediate reuse %u, lookup failures %u",
		  cycles, jiffies_to_msecs(jiffies - start), err, dup, reuse,
		  lookups);
}
