// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: running a flow, and the events its case makes happen while
 * traffic flows. A flow runs its pollers and posters for the module's
 * seconds=, with the event at event_pct of that; then the posters stop,
 * everything they posted must complete within ST_DRAIN_MS, the pollers
 * stop, the receivers go to ERR and every receive still posted must
 * flush. Every wait is bounded: what does not come is a violation.
 */
#include <linux/delay.h>
#include <linux/vmalloc.h>
#include "stress.h"

/* Sleep until @when (jiffies), if it is still ahead. */
static void st_sleep_until(unsigned long when)
{
	long left = (long)(when - jiffies);

	if (left > 0)
		schedule_timeout_uninterruptible(left);
}

static int st_start_threads(struct st_flow *f)
{
	struct task_struct *task;
	unsigned int i;

	for (i = 0; i < f->npollers; i++) {
		task = kthread_run(st_poller_fn, f, "rvt_stress_c%u", i);
		if (IS_ERR(task))
			return PTR_ERR(task);
		f->pollers[i] = task;
	}
	f->start = jiffies;
	f->deadline = f->start + st_env.seconds * HZ;
	for (i = 0; i < f->nthreads; i++) {
		task = kthread_run(st_poster_fn, &f->posters[i],
				   "rvt_stress_p%u", i);
		if (IS_ERR(task))
			return PTR_ERR(task);
		f->posters[i].task = task;
	}
	return 0;
}

/* Wait (bounded) until every poster has stopped posting; stop them. */
static void st_stop_posters(struct st_flow *f)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_DRAIN_MS);
	unsigned int i;
	bool idle;

	for (i = 0; i < f->nthreads; i++) {
		struct st_poster *p = &f->posters[i];

		if (!p->task)
			continue;
		for (;;) {
			/* Pairs with the poster's release: its counts are final. */
			idle = smp_load_acquire(&p->idle);
			if (idle || !time_before(jiffies, end))
				break;
			usleep_range(5000, 10000);
		}
		if (!idle)
			st_fail(f, "poster %u still posting after the deadline",
				i);
		kthread_stop(p->task);
		p->task = NULL;
	}
}

static u64 st_posted(struct st_flow *f)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < f->nthreads; i++)
		n += READ_ONCE(f->posters[i].posted);
	return n;
}

static void st_stop_pollers(struct st_flow *f)
{
	unsigned int i;

	for (i = 0; i < f->npollers; i++) {
		if (f->pollers[i])
			kthread_stop(f->pollers[i]);
		f->pollers[i] = NULL;
	}
}

/* Has every receive of every live QP's pool completed? */
static bool st_pools_flushed(struct st_flow *f)
{
	unsigned int i;

	for (i = 0; i < f->nrx; i++) {
		struct st_rx *rx = &f->rx[i];

		if (!rx->dead && !rx->srq &&
		    atomic_read(&rx->completed) != atomic_read(&rx->posted))
			return false;
	}
	return true;
}

/*
 * After the posters: the sends must all complete; then the receivers go
 * to ERR and their pools must flush. The pollers stop once the sends are
 * in, and this thread polls the rest.
 */
static void st_drain(struct st_flow *f)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_DRAIN_MS);
	u64 posted = st_posted(f);
	unsigned int i;

	while (atomic64_read(&f->completions) < posted &&
	       time_before(jiffies, end))
		usleep_range(2000, 5000);
	st_stop_pollers(f);
	WRITE_ONCE(f->flushing, true);
	while (st_poll_some(f))
		;
	for (i = 0; i < ST_MAX_PAIRS; i++)
		if (f->b[i] && st_qp_to_err(f->b[i]))
			st_fail(f, "receiver %u: modify to ERR failed", i);
	end = jiffies + msecs_to_jiffies(ST_DRAIN_MS);
	while (!st_pools_flushed(f) && time_before(jiffies, end))
		if (!st_poll_some(f))
			usleep_range(100, 200);
	/* Anything left now would be extra: count it in. */
	while (st_poll_some(f))
		;
}

static void st_traffic(struct st_flow *f)
{
	const struct st_case *c = f->c;
	int ret;

	ret = st_start_threads(f);
	if (ret)
		st_fail(f, "starting threads: %d", ret);
	if (!ret && c->event) {
		st_sleep_until(f->start +
			       st_env.seconds * HZ * c->event_pct / 100);
		WRITE_ONCE(f->event_started, true);
		ret = c->event(f);
		if (ret)
			st_fail(f, "the event failed: %d", ret);
		/* Posts that see it begin after the event (first_after). */
		smp_store_release(&f->event_done, true);
	}
	st_sleep_until(f->deadline);
	st_stop_posters(f);
	st_drain(f);
}

void st_run_flow(const struct st_case *c)
{
	struct st_flow *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		st_report(false, c->name, "no memory");
		return;
	}
	ret = st_flow_create(f, c) ?: st_ledger_alloc(f);
	if (ret)
		st_fail(f, "setup failed: %d", ret);
	else
		st_traffic(f);
	st_stop_pollers(f);
	if (!ret)
		st_ledger_verdict(f);
	st_flow_destroy(f);
	st_ledger_free(f);
	if (atomic_read(&f->violations))
		st_report(false, c->name, "%s (%d violations)", f->why,
			  atomic_read(&f->violations));
	else
		st_report(true, c->name, "%s", f->info);
	kfree(f);
}

/* ---- events ----------------------------------------------------------- */

/* Every sender to ERR: what follows must flush. */
int st_event_sender_err(struct st_flow *f)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < f->c->pairs && !ret; i++)
		ret = st_qp_to_err(f->a[i]);
	return ret;
}

/* Stop the pollers' reposting to every pool, for good. */
static void st_kill_pools(struct st_flow *f)
{
	unsigned int i;

	down_write(&f->teardown);
	for (i = 0; i < f->nrx; i++)
		WRITE_ONCE(f->rx[i].dead, true);
	up_write(&f->teardown);
}

static void st_destroy_receivers(struct st_flow *f)
{
	unsigned int i;

	for (i = 0; i < ST_MAX_PAIRS; i++) {
		if (f->b[i])
			ib_destroy_qp(f->b[i]);
		f->b[i] = NULL;
	}
}

/* The receivers destroyed while the senders send to them. */
int st_event_destroy_rx(struct st_flow *f)
{
	st_kill_pools(f);
	st_destroy_receivers(f);
	return 0;
}

/* The SRQ destroyed after its QPs, while their peers still send. */
int st_event_destroy_srq(struct st_flow *f)
{
	st_kill_pools(f);
	st_destroy_receivers(f);
	f->rx[0].srq = NULL;
	ib_destroy_srq(f->srq);
	f->srq = NULL;
	return 0;
}

/*
 * The MRs that requests in flight use deregistered: the remote one that
 * WRITEs and READs target, then the local one of every request's SGE.
 * Nothing may land in the remote area after that (a copy is kept for the
 * verdict); later posts may be refused.
 */
int st_event_dereg_mr(struct st_flow *f)
{
	size_t size = PAGE_SIZE << f->remote_order;
	int ret;

	ret = ib_dereg_mr(f->remote_mr);
	if (ret)
		return ret;
	f->remote_mr = NULL;
	f->snap = vmalloc(size);
	if (f->snap)
		memcpy(f->snap, f->remote, size);
	ret = ib_dereg_mr(f->local_mr);
	if (ret)
		return ret;
	f->local_mr = NULL;
	return f->snap ? 0 : -ENOMEM;
}

/*
 * Resize the CQ up and down until just before the deadline. Down is to
 * just above what the credits let be outstanding, so it never overflows;
 * a resize below what is queued may be refused (-EINVAL).
 */
int st_event_resize_cq(struct st_flow *f)
{
	int small = f->c->pairs * ST_SQ_DEPTH + f->nrx * ST_RQ_DEPTH + 16;
	unsigned int up = 0, down = 0, refused = 0;
	unsigned long end = f->deadline - HZ / 10;
	int ret;

	while (time_before(jiffies, end)) {
		bool grow = (up + down + refused) & 1;

		ret = ib_resize_cq(f->cq, grow ? 2 * ST_CQE : small);
		if (ret == -EINVAL && !grow)
			refused++;
		else if (ret)
			return ret;
		else if (grow)
			up++;
		else
			down++;
		usleep_range(5000, 10000);
	}
	if (!up || !down)
		st_fail(f, "resizes: %u up, %u down, %u refused", up, down,
			refused);
	return 0;
}

/* One member leaves the group while datagrams to it flow. */
int st_event_detach(struct st_flow *f)
{
	int ret = ib_detach_mcast(f->b[0], &st_mgid, ST_MLID);

	if (!ret)
		WRITE_ONCE(f->rx[0].detached, true);
	return ret;
}
