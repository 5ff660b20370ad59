// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The QP table at scale: what one QP costs to create, move to INIT, find
 * by number, walk with rvt_qp_iter() and destroy, with 1k, 10k, ... QPs
 * alive, on whichever rdmavt core is loaded under rvtsw.
 *
 * Loading the module runs every size of counts= in turn on the device
 * named by dev= and keeps the figures in /sys/kernel/debug/
 * rvt_scale_bench/results, one line each:
 *
 *   <live QPs> <figure> <value> <unit>
 *
 * create, init, lookup, iter and destroy in ns per QP, memory in bytes
 * per QP (free pages before creating and after the moves to INIT: a
 * rough figure), chain in thousandths of a QP: how many QPs a lookup
 * walks past, on average, before it finds its own (0 when every QP heads
 * its bucket). Destroy is timed on the first destroy_sample QPs, one
 * after the other as a process tearing down its QPs does; the rest go
 * from many workers at once, so that their grace periods overlap and a
 * large size does not take an hour on a core that waits one per QP.
 *
 * With cost_qps= set, the first size also measures what a destroy costs
 * the other CPUs (see measure_destroy_cost()) on QPs after the timed
 * sample.
 *
 * A size the device cannot hold ends the run with -ENOSPC; rvtsw must be
 * loaded with a max_qp above the largest count.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/workqueue.h>
#include <linux/mm.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/sched/clock.h>
#include <linux/sort.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Per-QP costs of an rdmavt core with many QPs alive");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device (default rvtsw_0)");

static unsigned int counts[8] = { 1000, 10000 };
static int ncounts = 2;
module_param_array(counts, uint, &ncounts, 0444);
MODULE_PARM_DESC(counts, "Numbers of live QPs to measure at (default 1000,10000)");

static unsigned int destroy_sample = 500;
module_param(destroy_sample, uint, 0444);
MODULE_PARM_DESC(destroy_sample,
		 "QPs whose destruction is timed, one by one (default 500)");

static unsigned int cost_qps;
module_param(cost_qps, uint, 0444);
MODULE_PARM_DESC(cost_qps,
		 "QPs destroyed per measurement of the cost to the other CPUs, at the first size (default 0: not measured)");

static unsigned int lookup_rounds = 4;
module_param(lookup_rounds, uint, 0444);
MODULE_PARM_DESC(lookup_rounds, "Lookups of every QP (default 4)");

#define RESULTS_SIZE 4096
/* Workers that destroy the QPs past the timed sample. */
#define BULK_DESTROYERS 64
/* Destroy windows of a cost measurement, each followed by an idle one. */
#define COST_CHUNKS 10

static struct {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp **qps;
	char *results;
	size_t len;
} bench;

static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

static void report(unsigned int n, const char *figure, u64 value,
		   const char *unit)
{
	bench.len += scnprintf(bench.results + bench.len,
			       RESULTS_SIZE - bench.len, "%u %s %llu %s\n",
			       n, figure, value, unit);
}

/* A signed figure in hundredths, printed as a decimal ("-0.25"). */
static void report_hundredths(unsigned int n, const char *figure, s64 value,
			      const char *unit)
{
	u64 abs = value < 0 ? -value : value;
	u32 frac = do_div(abs, 100);

	bench.len += scnprintf(bench.results + bench.len,
			       RESULTS_SIZE - bench.len, "%u %s %s%llu.%02u %s\n",
			       n, figure, value < 0 ? "-" : "", abs, frac, unit);
}

static u64 per_qp(u64 start_ns, unsigned int n)
{
	return n ? div_u64(ktime_get_ns() - start_ns, n) : 0;
}

/* Create @n QPs; *@created says how many exist, whatever the outcome. */
static int create_qps(unsigned int n, unsigned int *created)
{
	struct ib_qp_init_attr attr = {
		.send_cq = bench.cq,
		.recv_cq = bench.cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	u64 start = ktime_get_ns();
	struct ib_qp *qp;

	for (*created = 0; *created < n; (*created)++) {
		qp = ib_create_qp(bench.pd, &attr);
		if (IS_ERR(qp)) {
			pr_err("rvt_scale_bench: QP %u of %u: %ld\n",
			       *created, n, PTR_ERR(qp));
			return PTR_ERR(qp) == -ENOMEM ? -ENOSPC : PTR_ERR(qp);
		}
		bench.qps[*created] = qp;
	}
	report(n, "create", per_qp(start, n), "ns");
	return 0;
}

static int init_qps(unsigned int n)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = 0,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
		   IB_QP_ACCESS_FLAGS;
	u64 start = ktime_get_ns();
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ib_modify_qp(bench.qps[i], &attr, mask);
		if (ret)
			return ret;
	}
	report(n, "init", per_qp(start, n), "ns");
	return 0;
}

/*
 * The table's own share of a lookup: the QPs walked past in the bucket
 * that rdmavt_qp.h's rvt_lookup_qpn() hashes to, counted, not timed. A
 * lookup slower at 100k QPs with this figure flat is slower in memory
 * (caches, TLB), not in the table.
 */
static void chain_depth(unsigned int n)
{
	struct rvt_qp_ibdev *qp_dev = ib_to_rvt(bench.ibdev)->qp_dev;
	u64 passed = 0;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		u32 qpn = bench.qps[i]->qp_num;
		u32 bucket = hash_32(qpn, qp_dev->qp_table_bits);
		struct rvt_qp *qp;

		for (qp = rcu_dereference(qp_dev->qp_table[bucket]);
		     qp && qp->ibqp.qp_num != qpn;
		     qp = rcu_dereference(qp->next))
			passed++;
	}
	rcu_read_unlock();
	report(n, "chain", div_u64(passed * 1000, n), "permille");
}

/* Every QP by number, the way a driver's receive path finds it. */
static int lookup_qps(unsigned int n)
{
	struct rvt_dev_info *rdi = ib_to_rvt(bench.ibdev);
	struct rvt_ibport *rvp = rdi->ports[0];
	unsigned int round, i, missed = 0;
	u64 start = ktime_get_ns();

	for (round = 0; round < lookup_rounds; round++) {
		rcu_read_lock();
		for (i = 0; i < n; i++) {
			u32 qpn = bench.qps[i]->qp_num;
			struct rvt_qp *qp = rvt_lookup_qpn(rdi, rvp, qpn);

			missed += !qp || &qp->ibqp != bench.qps[i];
		}
		rcu_read_unlock();
		cond_resched();
	}
	if (missed) {
		pr_err("rvt_scale_bench: %u lookups missed\n", missed);
		return -EIO;
	}
	report(n, "lookup", per_qp(start, n * lookup_rounds), "ns");
	chain_depth(n);
	return 0;
}

static void count_qp(struct rvt_qp *qp, u64 v)
{
	(*(unsigned int *)(uintptr_t)v)++;
}

static int iterate_qps(unsigned int n)
{
	unsigned int seen = 0;
	u64 start = ktime_get_ns();

	rvt_qp_iter(ib_to_rvt(bench.ibdev), (u64)(uintptr_t)&seen, count_qp);
	/* QP0 and QP1 of each port are walked too. */
	if (seen < n) {
		pr_err("rvt_scale_bench: the walk saw %u of %u QPs\n", seen, n);
		return -EIO;
	}
	report(n, "iter", per_qp(start, seen), "ns");
	return 0;
}

struct bulk_destroy {
	struct work_struct work;
	unsigned int first, end;
};

static void bulk_destroy_work(struct work_struct *work)
{
	struct bulk_destroy *bd = container_of(work, struct bulk_destroy, work);
	unsigned int i;

	for (i = bd->first; i < bd->end; i += BULK_DESTROYERS)
		ib_destroy_qp(bench.qps[i]);
}

/* Destroy QPs [@from, @end) from BULK_DESTROYERS workers at once. */
static void destroy_in_bulk(unsigned int from, unsigned int end)
{
	struct bulk_destroy *bd;
	unsigned int w;

	bd = kcalloc(BULK_DESTROYERS, sizeof(*bd), GFP_KERNEL);
	if (!bd) {
		for (w = from; w < end; w++)
			ib_destroy_qp(bench.qps[w]);
		return;
	}
	for (w = 0; w < BULK_DESTROYERS; w++) {
		bd[w].first = from + w;
		bd[w].end = end;
		INIT_WORK(&bd[w].work, bulk_destroy_work);
		queue_work(system_unbound_wq, &bd[w].work);
	}
	for (w = 0; w < BULK_DESTROYERS; w++)
		flush_work(&bd[w].work);
	kfree(bd);
}

/*
 * What a destroy costs the other CPUs. A core that waits for an expedited
 * grace period has RCU interrupt every CPU that is not idle, a
 * function-call IPI each, where a normal grace period waits for their
 * next tick or context switch instead. So QPs are destroyed one after the
 * other on one CPU while a spinning thread keeps each of @busy other CPUs
 * busy (the rest stay idle), in COST_CHUNKS windows, each followed by an
 * idle window as long, in which the destroyer sleeps; the two kinds of
 * window are compared:
 *
 *   destroy_busy_<c>cpu   ns per destroy with c CPUs busy: the
 *                         destroyer's and the spinners'
 *   destroy_ipis_<c>cpu   function-call and rescheduling interrupts (CAL
 *                         and RES of /proc/interrupts) the busy other CPUs
 *                         took per destroy, less those of the idle windows
 *   destroy_steal_<c>cpu  ns per destroy the busy other CPUs lost: their
 *                         interruptions per destroy (IPIs and switches to
 *                         another task, less those of the idle windows),
 *                         each at the median length of one in the destroy
 *                         windows
 *
 * for c = 2 and every online CPU. A spinner reads the clock at every turn
 * of its loop, and a gap between two turns in which its CPU took an IPI
 * or switched tasks is one interruption. The median, not the sum, of
 * their lengths: under TCG a gap can also hold the host's scheduler
 * taking the vCPU's thread away, for milliseconds, more often while the
 * destroyer's vCPU is busy than while it sleeps, and a sum would count
 * that as the destroys' (see spin() for the gaps it leaves out).
 */
#define GAP_SAMPLES 256

struct spinner {
	struct task_struct *task;
	u64 events;			/* interruptions so far */
	bool record;			/* keep the gaps: a destroy window */
	unsigned int ngaps;
	u32 gaps[GAP_SAMPLES];		/* ns, the first of destroy windows */
	u64 mark;			/* events at a window's start */
	u64 destroy_events, idle_events;
	u64 ipis_mark, destroy_ipis, idle_ipis;
};

struct destroy_cost {
	unsigned int destroyer;		/* the CPU that destroys */
	struct spinner *spinners;	/* indexed by CPU */
	struct ib_qp **qps;
	unsigned int nqps;
	u64 destroy_ns, idle_ns;
};

/* The IPIs @cpu took so far: CAL and RES of /proc/interrupts on x86. */
static u64 cpu_ipis(unsigned int cpu)
{
#if defined(CONFIG_X86) && defined(CONFIG_SMP)
	return READ_ONCE(per_cpu(irq_stat, cpu).irq_call_count) +
	       READ_ONCE(per_cpu(irq_stat, cpu).irq_resched_count);
#else
	return 0;
#endif
}

/* What takes a spinner's CPU from it: IPIs, switches to another task. */
static u64 spinner_events(unsigned int cpu)
{
	return cpu_ipis(cpu) + current->nvcsw + current->nivcsw;
}

/* The local timer interrupts @cpu took so far (LOC on x86). */
static u64 cpu_ticks(unsigned int cpu)
{
#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
	return READ_ONCE(per_cpu(irq_stat, cpu).apic_timer_irqs);
#else
	return 0;
#endif
}

static void keep_gap(struct spinner *sp, u64 gap)
{
	if (READ_ONCE(sp->record) && sp->ngaps < GAP_SAMPLES)
		sp->gaps[sp->ngaps++] = min(gap, (u64)U32_MAX);
}

/*
 * Turn after turn: read the clock, then the events. An interruption seen
 * at one turn took its time in that turn's gap or, if it came between the
 * two reads, in the next one: the longer of the two is its length. A gap
 * that also holds a timer tick is counted but not kept as a length: a
 * vCPU the host's scheduler took away comes back with a tick due.
 */
static int spin(void *data)
{
	struct spinner *sp = data;
	unsigned int cpu = raw_smp_processor_id();
	u64 last = local_clock(), seen = spinner_events(cpu);
	u64 ticks = cpu_ticks(cpu), pending = 0, pending_ticks = 0;
	u64 now, events, gap;

	while (!kthread_should_stop()) {
		cond_resched();
		now = local_clock();
		events = spinner_events(cpu);
		gap = now - last;
		if (pending && cpu_ticks(cpu) == pending_ticks)
			keep_gap(sp, max(pending, gap));
		pending = 0;
		if (events != seen) {
			WRITE_ONCE(sp->events, sp->events + 1);
			seen = events;
			pending = gap;
			pending_ticks = ticks;
		}
		ticks = cpu_ticks(cpu);
		last = now;
	}
	return 0;
}

/*
 * One window: destroy @n QPs from @qps or, with @qps NULL, sleep @sleep_ns;
 * its time and the spinners' interruptions and IPIs go to the totals of
 * its kind. Return: its length in ns.
 */
static u64 cost_window(struct destroy_cost *dc, struct ib_qp **qps,
		       unsigned int n, u64 sleep_ns)
{
	struct spinner *sp;
	unsigned int cpu, i;
	u64 start, ns;

	for_each_online_cpu(cpu) {
		sp = &dc->spinners[cpu];
		sp->mark = READ_ONCE(sp->events);
		sp->ipis_mark = cpu_ipis(cpu);
		WRITE_ONCE(sp->record, !!qps);
	}
	start = ktime_get_ns();
	if (qps) {
		for (i = 0; i < n; i++)
			ib_destroy_qp(qps[i]);
	} else {
		fsleep(div_u64(sleep_ns, NSEC_PER_USEC));
	}
	ns = ktime_get_ns() - start;
	for_each_online_cpu(cpu) {
		sp = &dc->spinners[cpu];
		WRITE_ONCE(sp->record, false);
		*(qps ? &sp->destroy_events : &sp->idle_events) +=
			READ_ONCE(sp->events) - sp->mark;
		*(qps ? &sp->destroy_ipis : &sp->idle_ipis) +=
			cpu_ipis(cpu) - sp->ipis_mark;
	}
	*(qps ? &dc->destroy_ns : &dc->idle_ns) += ns;
	return ns;
}

/* The windows in turn, on the destroyer's CPU. */
static void cost_windows(struct destroy_cost *dc)
{
	unsigned int chunk, done = 0, n;
	u64 ns;

	for (chunk = 1; chunk <= COST_CHUNKS; chunk++) {
		n = dc->nqps * chunk / COST_CHUNKS - done;
		ns = cost_window(dc, dc->qps + done, n, 0);
		done += n;
		cost_window(dc, NULL, 0, ns);
	}
}

static void stop_spinners(struct destroy_cost *dc)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		if (dc->spinners[cpu].task)
			kthread_stop(dc->spinners[cpu].task);
	}
}

static int start_spinners(struct destroy_cost *dc, unsigned int busy)
{
	struct task_struct *task;
	unsigned int cpu;

	memset(dc->spinners, 0, nr_cpu_ids * sizeof(*dc->spinners));
	for_each_online_cpu(cpu) {
		if (!busy)
			break;
		if (cpu == dc->destroyer)
			continue;
		task = kthread_create_on_cpu(spin, &dc->spinners[cpu], cpu,
					     "rvt_spin/%u");
		if (IS_ERR(task)) {
			stop_spinners(dc);
			return PTR_ERR(task);
		}
		dc->spinners[cpu].task = task;
		wake_up_process(task);
		busy--;
	}
	return 0;
}

/* @count of the idle windows, scaled to the destroy windows' length. */
static u64 idle_share(struct destroy_cost *dc, u64 count)
{
	return dc->idle_ns ?
		mul_u64_u64_div_u64(count, dc->destroy_ns, dc->idle_ns) : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* The median length of the spinners' interruptions in destroy windows. */
static u64 median_gap(struct destroy_cost *dc)
{
	unsigned int cpu, n = 0;
	u32 *all;
	u64 median;

	all = kcalloc(num_online_cpus(), sizeof(dc->spinners->gaps),
		      GFP_KERNEL);
	if (!all)
		return 0;
	for_each_online_cpu(cpu) {
		memcpy(all + n, dc->spinners[cpu].gaps,
		       dc->spinners[cpu].ngaps * sizeof(*all));
		n += dc->spinners[cpu].ngaps;
	}
	sort(all, n, sizeof(*all), cmp_u32, NULL);
	median = n ? all[n / 2] : 0;

	kfree(all);
	return median;
}

static void report_cost(struct destroy_cost *dc, unsigned int n,
			unsigned int busy)
{
	s64 ipis = 0, events = 0;
	struct spinner *sp;
	char figure[32];
	unsigned int cpu, c = busy + 1;

	for_each_online_cpu(cpu) {
		sp = &dc->spinners[cpu];
		if (!sp->task)
			continue;
		ipis += sp->destroy_ipis - idle_share(dc, sp->idle_ipis);
		events += sp->destroy_events - idle_share(dc, sp->idle_events);
	}
	snprintf(figure, sizeof(figure), "destroy_busy_%ucpu", c);
	report(n, figure, div_u64(dc->destroy_ns, dc->nqps), "ns");
	snprintf(figure, sizeof(figure), "destroy_ipis_%ucpu", c);
	report_hundredths(n, figure, div_s64(ipis * 100, dc->nqps), "IPI");
	snprintf(figure, sizeof(figure), "destroy_steal_%ucpu", c);
	report_hundredths(n, figure,
			  div_s64(events * median_gap(dc) * 100, dc->nqps),
			  "ns");
}

/* One measurement with @busy spinners, on @nqps QPs from @qps. */
static int measure_cost(struct destroy_cost *dc, unsigned int n,
			unsigned int busy, struct ib_qp **qps,
			unsigned int nqps)
{
	int ret;

	dc->qps = qps;
	dc->nqps = nqps;
	dc->destroy_ns = 0;
	dc->idle_ns = 0;
	ret = start_spinners(dc, busy);
	if (ret)
		return ret;
	cost_windows(dc);
	stop_spinners(dc);
	report_cost(dc, n, busy);
	return 0;
}

/*
 * Measure the cost with a spinner on one other CPU and on every other
 * CPU, on QPs [@first, @created) of a size of @n, as many as there are up
 * to cost_qps each, from this task bound to the first online CPU.
 * Return: how many QPs it destroyed.
 */
static unsigned int measure_destroy_cost(unsigned int n, unsigned int first,
					 unsigned int created)
{
	unsigned int others = num_online_cpus() - 1, busy[2] = { 1, others };
	unsigned int configs = min(others, 2U), nqps, i, done = 0;
	struct destroy_cost dc = { .destroyer = cpumask_first(cpu_online_mask) };
	cpumask_var_t saved;
	int ret = 0;

	if (!configs)
		return 0;
	nqps = min(cost_qps, (created - first) / configs);
	if (nqps < COST_CHUNKS || !alloc_cpumask_var(&saved, GFP_KERNEL))
		return 0;
	dc.spinners = kcalloc(nr_cpu_ids, sizeof(*dc.spinners), GFP_KERNEL);
	cpumask_copy(saved, current->cpus_ptr);
	if (!dc.spinners ||
	    set_cpus_allowed_ptr(current, cpumask_of(dc.destroyer)))
		goto out;
	for (i = 0; i < configs && !ret; i++) {
		ret = measure_cost(&dc, n, busy[i], bench.qps + first + done,
				   nqps);
		if (!ret)
			done += nqps;
	}
	if (ret)
		pr_err("rvt_scale_bench: no spinner threads: %d\n", ret);
	set_cpus_allowed_ptr(current, saved);
out:
	kfree(dc.spinners);
	free_cpumask_var(saved);
	return done;
}

/*
 * Destroy the @created QPs of a size of @n, timing the first
 * destroy_sample of them if @timed, and at the first size measuring
 * what destroys cost the other CPUs if asked.
 */
static void destroy_qps(unsigned int n, unsigned int created, bool timed)
{
	unsigned int sample = min(created, destroy_sample), i;
	u64 start = ktime_get_ns();

	for (i = 0; i < sample; i++)
		ib_destroy_qp(bench.qps[i]);
	if (timed)
		report(n, "destroy", per_qp(start, sample), "ns");
	if (timed && cost_qps && n == counts[0])
		sample += measure_destroy_cost(n, sample, created);
	destroy_in_bulk(sample, created);
}

static unsigned long free_bytes(void)
{
	return global_zone_page_state(NR_FREE_PAGES) << PAGE_SHIFT;
}

static int run_size(unsigned int n)
{
	unsigned long before = free_bytes(), after;
	unsigned int created;
	int ret;

	bench.qps = kvcalloc(n, sizeof(*bench.qps), GFP_KERNEL);
	if (!bench.qps)
		return -ENOMEM;
	ret = create_qps(n, &created) ?: init_qps(n);
	if (!ret) {
		after = free_bytes();
		report(n, "memory", before > after ? (before - after) / n : 0,
		       "B/QP");
		ret = lookup_qps(n) ?: iterate_qps(n);
	}
	destroy_qps(n, created, !ret);
	kvfree(bench.qps);
	bench.qps = NULL;
	return ret;
}

static int setup(void)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 1 };

	bench.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_QIB);
	if (!bench.ibdev) {
		pr_err("rvt_scale_bench: no device %s\n", dev);
		return -ENODEV;
	}
	bench.pd = ib_alloc_pd(bench.ibdev, 0);
	if (IS_ERR(bench.pd))
		goto put_dev;
	bench.cq = ib_create_cq(bench.ibdev, NULL, NULL, NULL, &cq_attr);
	if (!IS_ERR(bench.cq))
		return 0;
	ib_dealloc_pd(bench.pd);
put_dev:
	ib_device_put(bench.ibdev);
	return -EIO;
}

static void teardown(void)
{
	ib_destroy_cq(bench.cq);
	ib_dealloc_pd(bench.pd);
	ib_device_put(bench.ibdev);
}

static int __init rvt_scale_bench_init(void)
{
	int i, ret;

	bench.results = kzalloc(RESULTS_SIZE, GFP_KERNEL);
	if (!bench.results)
		return -ENOMEM;
	ret = setup();
	if (ret)
		goto free;
	for (i = 0; !ret && i < ncounts; i++)
		ret = run_size(counts[i]);
	teardown();
	if (ret)
		goto free;
	results_blob.data = bench.results;
	results_blob.size = bench.len;
	debugfs_dir = debugfs_create_dir("rvt_scale_bench", NULL);
	debugfs_create_blob("results", 0444, debugfs_dir, &results_blob);
	return 0;
free:
	kfree(bench.results);
	return ret;
}
module_init(rvt_scale_bench_init);

static void __exit rvt_scale_bench_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	kfree(bench.results);
}
module_exit(rvt_scale_bench_exit);
