// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: multicast groups found from softirq.
 */
#include <linux/completion.h>
#include <linux/timer.h>
#include "qp.h"

#define QPT_MLID 0xc0de

/*
 * What a driver's receive path does: rvt_mcast_find() in softirq, then
 * the reference dropped as rdma_vt.h's protocol has it.
 */
struct qpt_mcast_probe {
	struct timer_list timer;
	struct completion done;
	struct rvt_ibport *rvp;
	union ib_gid mgid;
	int members;	/* QPs in the group found, or -1: none found */
	bool in_softirq;
};

static void qpt_mcast_probe_fn(struct timer_list *t)
{
	struct qpt_mcast_probe *pr = from_timer(pr, t, timer);
	struct rvt_mcast *mc;

	pr->in_softirq = in_serving_softirq();
	mc = rvt_mcast_find(pr->rvp, &pr->mgid, QPT_MLID);
	pr->members = mc ? mc->n_attached : -1;
	if (mc && atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
	complete(&pr->done);
}

static int qpt_mcast_probe(struct qpt_mcast_probe *pr)
{
	init_completion(&pr->done);
	timer_setup_on_stack(&pr->timer, qpt_mcast_probe_fn, 0);
	mod_timer(&pr->timer, jiffies + 1);
	wait_for_completion(&pr->done);
	del_timer_sync(&pr->timer);
	destroy_timer_on_stack(&pr->timer);
	return pr->members;
}

/*
 * A group found from softirq, as drivers' receive paths find it, then
 * left by its last QP. The port lock is softirq-safe and the device's
 * group count nests in it: on a lockdep kernel the detach of the last
 * QP (which uncounts the group) must take that count's lock with
 * interrupts off, or lockdep reports an inversion here.
 */
void qp_mcast_find_in_softirq(struct kt_test *t)
{
	struct qpt_mcast_probe pr = { .rvp = env.rdi->ports[0] };
	int attach, detach, before, after;
	struct ib_qp *qp;

	pr.mgid.raw[0] = 0xff;
	pr.mgid.raw[1] = 0x12;
	pr.mgid.raw[15] = 0x51;
	qp = qpt_qp(IB_QPT_UD, 1, NULL);
	if (IS_ERR(qp)) {
		kt_result(t, false, "create failed");
		return;
	}
	qpt_to_init(qp, 0);
	attach = ib_attach_mcast(qp, &pr.mgid, QPT_MLID);
	before = qpt_mcast_probe(&pr);
	detach = ib_detach_mcast(qp, &pr.mgid, QPT_MLID);
	after = qpt_mcast_probe(&pr);
	kt_result(t, !attach && before == 1 && !detach && after == -1 &&
		  pr.in_softirq,
		  "attach %d members %d detach %d then %d softirq %d", attach,
		  before, detach, after, pr.in_softirq);
	ib_destroy_qp(qp);
}
