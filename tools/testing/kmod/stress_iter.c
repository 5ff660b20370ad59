// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: rdmavt's QP iterator (rvt_qp_iter_init()/next() and
 * rvt_qp_iter()) walking a device's QPs again and again while other
 * kthreads create QPs, move them in and out of the QP table and destroy
 * them. Every "stable" QP, in the table for the whole case, must be seen
 * by every walk exactly once.
 *
 * The first walk leaves the RCU read section every few QPs, as a
 * seq_file's reads do, and resumes after the slot and QPN where it
 * stopped: right where QPs are sorted by QPN within a slot, which our
 * core guarantees and upstream's (newest first) does not. The second is
 * rvt_qp_iter() with a callback that sleeps. The third is rvt_qp_iter()
 * with a callback that resets the QP it is called for and destroys the
 * QPs behind it.
 */
#include <linux/delay.h>
#include <linux/sort.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include "stress.h"

#define ST_STABLE 48		/* QPs in the table for the whole case */
#define ST_CHURNERS 2
#define ST_CHURN_RING 8		/* QPs each churner keeps alive */
#define ST_WALK_CHUNK 4		/* QPs a walk takes per read section */
#define ST_SEEN_MAX 4096
#define ST_VICTIMS 16		/* QPs the striking callback destroys */
/* A busy wait per QP in the read section, for the churners to change
 * the chains under the walk; a read section must not sleep.
 */
#define ST_WALK_DWELL_US 20

/**
 * struct st_iter - one iterator case's state
 * @cq: the CQ of every QP of the case
 * @stable: the stable QPs
 * @stable_qpn: their numbers, sorted
 * @seen: the QPNs the current walk has seen; written by the walker only
 * @nseen: how many
 * @churned: QPs the churners created
 * @churn_err: a churner's first error
 * @walks: walks done
 * @missed: stable QPs a walk missed, summed over the walks
 * @twice: stable QPs a walk saw more than once, summed
 * @why: the first of those, or another failure
 */
struct st_iter {
	struct ib_cq *cq;
	struct ib_qp *stable[ST_STABLE];
	u32 stable_qpn[ST_STABLE];
	u32 *seen;
	unsigned int nseen;
	atomic_t churned;
	int churn_err;
	unsigned int walks;
	unsigned int missed;
	unsigned int twice;
	char why[ST_WHY_LEN];
};

static struct ib_qp *st_iter_qp(struct st_iter *it, enum ib_qp_type type)
{
	const struct kt_qp_spec s = {
		.type = type, .cq = it->cq, .send_wr = 1, .recv_wr = 1,
		.sge = 1,
	};

	return kt_qp_create(st_env.kt.pd, &s);
}

/* To @state: INIT puts a QP in the table, RESET takes it out. */
static int st_iter_move(struct ib_qp *qp, enum ib_qp_state state)
{
	const struct kt_path p = { .qkey = ST_QKEY };

	if (state == IB_QPS_INIT)
		return kt_qp_to_init(qp, &p);
	return kt_qp_to_state(qp, state);
}

/* Create, add to the table, and retire the oldest by reset or destroy. */
static int st_churn_fn(void *data)
{
	struct st_iter *it = data;
	struct ib_qp *ring[ST_CHURN_RING] = { };
	unsigned int n = 0, i;
	int ret = 0;

	while (!kthread_should_stop() && !ret) {
		struct ib_qp **slot = &ring[n % ST_CHURN_RING];

		if (*slot) {
			if (n & 1)
				ret = st_iter_move(*slot, IB_QPS_RESET);
			ib_destroy_qp(*slot);
			*slot = NULL;
		}
		*slot = st_iter_qp(it, n & 2 ? IB_QPT_RC : IB_QPT_UD);
		if (IS_ERR(*slot)) {
			ret = PTR_ERR(*slot);
			*slot = NULL;
			break;
		}
		ret = ret ?: st_iter_move(*slot, IB_QPS_INIT);
		atomic_inc(&it->churned);
		n++;
		cond_resched();
	}
	if (ret && !it->churn_err)
		it->churn_err = ret;
	for (i = 0; i < ST_CHURN_RING; i++)
		if (ring[i])
			ib_destroy_qp(ring[i]);
	while (!kthread_should_stop())
		usleep_range(5000, 10000);
	return 0;
}

static int st_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static void st_seen(struct st_iter *it, u32 qpn)
{
	if (it->nseen < ST_SEEN_MAX)
		it->seen[it->nseen] = qpn;
	it->nseen++;
}

/* After a walk: each stable QP seen exactly once? */
static void st_judge_walk(struct st_iter *it)
{
	unsigned int i, j = 0, count;

	it->walks++;
	if (it->nseen > ST_SEEN_MAX) {
		scnprintf(it->why, sizeof(it->why), "a walk saw %u QPs",
			  it->nseen);
		it->missed++;
		return;
	}
	sort(it->seen, it->nseen, sizeof(u32), st_cmp_u32, NULL);
	for (i = 0; i < ST_STABLE; i++) {
		u32 qpn = it->stable_qpn[i];

		while (j < it->nseen && it->seen[j] < qpn)
			j++;
		for (count = 0; j < it->nseen && it->seen[j] == qpn; j++)
			count++;
		if (count == 1)
			continue;
		if (count)
			it->twice++;
		else
			it->missed++;
		if (!it->why[0])
			scnprintf(it->why, sizeof(it->why),
				  "walk %u: stable QPN %#x seen %u times",
				  it->walks, qpn, count);
	}
}

/*
 * Take up to ST_WALK_CHUNK QPs after (*@slot, *@last) in one read
 * section. Return: 1 at the end of the walk, 0 if there are more, or
 * -ENOMEM.
 */
static int st_walk_chunk(struct st_iter *it, struct rvt_dev_info *rdi,
			 int *slot, u32 *last)
{
	struct rvt_qp_iter *iter = rvt_qp_iter_init(rdi, 0, NULL);
	unsigned int taken = 0;
	int done;

	if (!iter)
		return -ENOMEM;
	rcu_read_lock();
	while (!(done = rvt_qp_iter_next(iter))) {
		/* iter->n is the slot: the port's QP0/QP1, then a bucket. */
		u32 qpn = iter->qp->ibqp.qp_num;

		if (iter->n < *slot || (iter->n == *slot && qpn <= *last))
			continue;
		st_seen(it, qpn);
		*slot = iter->n;
		*last = qpn;
		udelay(ST_WALK_DWELL_US);
		if (++taken == ST_WALK_CHUNK)
			break;
	}
	rcu_read_unlock();
	kfree(iter);
	return done;
}

static int st_walk_resumable(struct st_iter *it, struct rvt_dev_info *rdi)
{
	int slot = -1, ret;
	u32 last = 0;

	it->nseen = 0;
	while (!(ret = st_walk_chunk(it, rdi, &slot, &last)))
		usleep_range(100, 200);
	if (ret < 0)
		return ret;
	st_judge_walk(it);
	return 0;
}

static struct st_iter *st_cb_iter;

static void st_walk_cb(struct rvt_qp *qp, u64 v)
{
	st_seen(st_cb_iter, qp->ibqp.qp_num);
	/* rvt_qp_iter() calls back outside RCU: a sleep is allowed. */
	if (st_cb_iter->nseen % ST_WALK_CHUNK == 0)
		usleep_range(100, 200);
}

static int st_walk_callback(struct st_iter *it, struct rvt_dev_info *rdi)
{
	it->nseen = 0;
	st_cb_iter = it;
	rvt_qp_iter(rdi, 0, st_walk_cb);
	st_judge_walk(it);
	return 0;
}

/*
 * The deterministic form of what the churners do by chance: at the first
 * "victim" QP it meets, the callback takes that QP out of the table
 * (RESET) and destroys every other victim, among them the QPs that
 * follow it in its bucket. The walk must go on from where it stood.
 */
static struct {
	struct ib_qp *victims[ST_VICTIMS];
	bool struck;
} st_strike;

static void st_strike_cb(struct rvt_qp *qp, u64 v)
{
	unsigned int i, hit = ST_VICTIMS;

	st_seen(st_cb_iter, qp->ibqp.qp_num);
	for (i = 0; i < ST_VICTIMS && !st_strike.struck; i++)
		if (st_strike.victims[i] == &qp->ibqp)
			hit = i;
	if (hit == ST_VICTIMS)
		return;
	st_strike.struck = true;
	/* Pinned by the walk: a reset only unlinks it, a destroy would wait. */
	if (st_iter_move(&qp->ibqp, IB_QPS_RESET))
		st_cb_iter->churn_err = -EIO;
	for (i = 0; i < ST_VICTIMS; i++) {
		if (i == hit)
			continue;
		ib_destroy_qp(st_strike.victims[i]);
		st_strike.victims[i] = NULL;
	}
}

static void st_strike_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < ST_VICTIMS; i++) {
		if (st_strike.victims[i])
			ib_destroy_qp(st_strike.victims[i]);
		st_strike.victims[i] = NULL;
	}
}

static int st_walk_strike(struct st_iter *it, struct rvt_dev_info *rdi)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ST_VICTIMS && !ret; i++) {
		st_strike.victims[i] = st_iter_qp(it, IB_QPT_UD);
		if (IS_ERR(st_strike.victims[i])) {
			ret = PTR_ERR(st_strike.victims[i]);
			st_strike.victims[i] = NULL;
		} else {
			ret = st_iter_move(st_strike.victims[i], IB_QPS_INIT);
		}
	}
	if (!ret) {
		st_strike.struck = false;
		it->nseen = 0;
		st_cb_iter = it;
		rvt_qp_iter(rdi, 0, st_strike_cb);
		st_judge_walk(it);
		if (!st_strike.struck && !it->why[0])
			scnprintf(it->why, sizeof(it->why),
				  "walk %u met no victim", it->walks);
		it->missed += !st_strike.struck;
	}
	st_strike_cleanup();
	return ret;
}

static int st_iter_setup(struct st_iter *it)
{
	struct ib_cq_init_attr cqa = { .cqe = 16 };
	unsigned int i;
	int ret;

	it->seen = vmalloc(ST_SEEN_MAX * sizeof(u32));
	if (!it->seen)
		return -ENOMEM;
	it->cq = ib_create_cq(st_env.kt.ibdev, NULL, NULL, NULL, &cqa);
	if (IS_ERR(it->cq)) {
		ret = PTR_ERR(it->cq);
		it->cq = NULL;
		return ret;
	}
	for (i = 0; i < ST_STABLE; i++) {
		it->stable[i] = st_iter_qp(it, i & 1 ? IB_QPT_RC : IB_QPT_UD);
		if (IS_ERR(it->stable[i])) {
			ret = PTR_ERR(it->stable[i]);
			it->stable[i] = NULL;
			return ret;
		}
		ret = st_iter_move(it->stable[i], IB_QPS_INIT);
		if (ret)
			return ret;
		it->stable_qpn[i] = it->stable[i]->qp_num;
	}
	sort(it->stable_qpn, ST_STABLE, sizeof(u32), st_cmp_u32, NULL);
	return 0;
}

static void st_iter_teardown(struct st_iter *it)
{
	unsigned int i;

	for (i = 0; i < ST_STABLE; i++)
		if (it->stable[i])
			ib_destroy_qp(it->stable[i]);
	if (it->cq)
		ib_destroy_cq(it->cq);
	vfree(it->seen);
}

/* Walk with @walk until the run time is up, churners running. */
static int st_iter_churn(struct st_iter *it,
			 int (*walk)(struct st_iter *it,
				     struct rvt_dev_info *rdi))
{
	struct rvt_dev_info *rdi = ib_to_rvt(st_env.kt.ibdev);
	struct task_struct *churn[ST_CHURNERS] = { };
	unsigned long end = jiffies + st_env.seconds * HZ;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ST_CHURNERS && !ret; i++) {
		churn[i] = kthread_run(st_churn_fn, it, "rvt_stress_q%u", i);
		if (IS_ERR(churn[i])) {
			ret = PTR_ERR(churn[i]);
			churn[i] = NULL;
		}
	}
	while (!ret && time_before(jiffies, end))
		ret = walk(it, rdi);
	for (i = 0; i < ST_CHURNERS; i++)
		if (churn[i])
			kthread_stop(churn[i]);
	return ret ?: it->churn_err;
}

static void st_run_iter(struct kt_test *t,
			int (*walk)(struct st_iter *it,
				    struct rvt_dev_info *rdi))
{
	struct st_iter *it = kzalloc(sizeof(*it), GFP_KERNEL);
	int ret;

	if (!it) {
		kt_result(t, false, "no memory");
		return;
	}
	ret = st_iter_setup(it) ?: st_iter_churn(it, walk);
	st_iter_teardown(it);
	if (ret)
		kt_result(t, false, "failed: %d", ret);
	else
		kt_result(t, it->walks && !it->missed && !it->twice &&
			  atomic_read(&it->churned),
			  "walks %u, %u stable QPs: %u missed, %u twice; %d QPs churned%s%s",
			  it->walks, ST_STABLE, it->missed, it->twice,
			  atomic_read(&it->churned), it->why[0] ? "; " : "",
			  it->why);
	kfree(it);
}

void st_run_iter_walk(struct kt_test *t, const struct st_case *c)
{
	st_run_iter(t, st_walk_resumable);
}

void st_run_iter_cb(struct kt_test *t, const struct st_case *c)
{
	st_run_iter(t, st_walk_callback);
}

void st_run_iter_strike(struct kt_test *t, const struct st_case *c)
{
	st_run_iter(t, st_walk_strike);
}
