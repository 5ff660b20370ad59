// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_qp_test: rdmavt's QP iterator: specials, the filter, a sleeping callback
 * while QPs churn.
 */
#include <linux/kthread.h>
#include <linux/vmalloc.h>
#include "qp.h"

#define STABLE_QPS 48		/* QPs present throughout the iterator test */

/* The MAD layer's QPs: QP1 on every port, QP0 where there is an SMI. */
static u32 mad_qps(void)
{
	u32 port, n = 0;

	rdma_for_each_port(env.kt.ibdev, port)
		n += rdma_cap_ib_smi(env.kt.ibdev, port) ? 2 : 1;
	return n;
}

/* Shared with the callbacks: one iteration at a time. */
static struct {
	unsigned long *seen;	/* bitmap over the QPN space */
	unsigned int visits, matches, dups, specials, sleeps;
	unsigned int churned;	/* QPs the churn thread created meanwhile */
	bool sleep;
} it;

static void count_cb(struct rvt_qp *qp, u64 v)
{
	u32 qpn = qp->ibqp.qp_num;

	it.visits++;
	if (qp->ibqp.qp_type == (enum ib_qp_type)v)
		it.matches++;
	/* QP0/QP1 of every port share numbers: key them by port too. */
	if (qpn <= 1) {
		qpn = RVT_QPN_MAX - 2 * qp->port_num + qpn;
		it.specials++;
	}
	if (test_and_set_bit(qpn, it.seen))
		it.dups++;
	if (it.sleep) {
		might_sleep();
		usleep_range(3000, 4000);	/* long enough for churn */
		it.sleeps++;
	}
}

static void reset_it(bool sleep)
{
	bitmap_zero(it.seen, RVT_QPN_MAX);
	it.visits = 0;
	it.matches = 0;
	it.dups = 0;
	it.specials = 0;
	it.sleeps = 0;
	it.churned = 0;
	it.sleep = sleep;
}

static int churn_fn(void *unused)
{
	while (!kthread_should_stop()) {
		struct ib_qp *qp = qpt_qp(IB_QPT_UD, 1, NULL);

		if (IS_ERR(qp))
			break;
		qpt_to_init(qp, 0);
		WRITE_ONCE(it.churned, it.churned + 1);
		if (it.churned & 1)	/* half leave the table by a reset */
			kt_qp_to_state(qp, IB_QPS_RESET);
		ib_destroy_qp(qp);
		cond_resched();
	}
	return 0;
}

static bool all_seen(struct ib_qp **qps, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!test_bit(qps[i]->qp_num, it.seen))
			return false;
	return true;
}

/* Walk the UD QPs: every QP visited once, only UD ones matched. */
static void iter_filter(struct kt_test *t, struct ib_qp **qps, int nud)
{
	u32 specials = mad_qps();
	bool ok;

	reset_it(false);
	rvt_qp_iter(env.rdi, IB_QPT_UD, count_cb);
	ok = it.matches == nud && it.visits == STABLE_QPS + specials &&
	     it.specials == specials && !it.dups && all_seen(qps, STABLE_QPS);
	kt_result(t, ok, "visits %u UD %u/%d specials %u dups %u",
		  it.visits, it.matches, nud, it.specials, it.dups);
}

/* Walk the RC QPs with a sleeping callback while a thread churns QPs. */
static void iter_sleeping(struct kt_test *t, struct ib_qp **qps, int nud)
{
	u32 specials = mad_qps();
	struct task_struct *churn;
	bool ok;

	reset_it(true);
	churn = kthread_run(churn_fn, NULL, "rvt_qp_churn");
	rvt_qp_iter(env.rdi, IB_QPT_RC, count_cb);
	if (!IS_ERR(churn))
		kthread_stop(churn);
	ok = !IS_ERR(churn) && it.sleeps == it.visits && it.churned &&
	     it.matches == STABLE_QPS - nud && it.specials == specials &&
	     !it.dups && all_seen(qps, STABLE_QPS);
	kt_result(t, ok,
		  "visits %u RC %u specials %u dups %u, %u QPs churned meanwhile",
		  it.visits, it.matches, it.specials, it.dups, it.churned);
}

/*
 * STABLE_QPS QPs in the table, a third of them UD, throughout @walk.
 */
static void iter_over_stable(struct kt_test *t,
			     void (*walk)(struct kt_test *t,
					  struct ib_qp **qps, int nud))
{
	struct ib_qp *qps[STABLE_QPS] = { };
	int i, nud = 0;

	it.seen = vzalloc(BITS_TO_LONGS(RVT_QPN_MAX) * sizeof(long));
	if (!it.seen) {
		kt_result(t, false, "no memory");
		return;
	}
	for (i = 0; i < STABLE_QPS; i++) {
		enum ib_qp_type type = i % 3 ? IB_QPT_RC : IB_QPT_UD;

		qps[i] = qpt_qp(type, 1, NULL);
		if (IS_ERR(qps[i]) || qpt_to_init(qps[i], 0)) {
			kt_result(t, false, "QP %d failed", i);
			qps[i] = IS_ERR(qps[i]) ? NULL : qps[i];
			goto out;
		}
		nud += type == IB_QPT_UD;
	}
	walk(t, qps, nud);
out:
	for (i = 0; i < STABLE_QPS; i++)
		if (qps[i])
			ib_destroy_qp(qps[i]);
	vfree(it.seen);
}

void qp_iter_filter(struct kt_test *t)
{
	iter_over_stable(t, iter_filter);
}

void qp_iter_sleeping(struct kt_test *t)
{
	iter_over_stable(t, iter_sleeping);
}

/* The iterator's own interface, as a seq_file uses it. */
void qp_iter_next(struct kt_test *t)
{
	u32 nports = env.kt.ibdev->phys_port_cnt;
	struct rvt_qp_iter *iter;
	unsigned int n = 0, specials = 0;
	int last_n = -1;
	bool ordered = true;

	iter = rvt_qp_iter_init(env.rdi, 0, NULL);
	if (!iter) {
		kt_result(t, false, "no memory");
		return;
	}
	rcu_read_lock();
	while (!rvt_qp_iter_next(iter)) {
		ordered &= iter->n >= last_n;
		last_n = iter->n;
		if (iter->qp->ibqp.qp_num <= 1) {
			/* slot 2 * port index + QPN */
			ordered &= iter->n == 2 * (iter->qp->port_num - 1) +
					      iter->qp->ibqp.qp_num;
			specials++;
		}
		n++;
	}
	rcu_read_unlock();
	kfree(iter);
	kt_result(t, ordered && specials == mad_qps() && n == specials,
		  "%u QPs, %u special, %u ports", n, specials, nports);
}
