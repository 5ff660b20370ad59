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
 * A size the device cannot hold ends the run with -ENOSPC; rvtsw must be
 * loaded with a max_qp above the largest count.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/workqueue.h>
#include <linux/mm.h>
#include <linux/ktime.h>
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

static unsigned int lookup_rounds = 4;
module_param(lookup_rounds, uint, 0444);
MODULE_PARM_DESC(lookup_rounds, "Lookups of every QP (default 4)");

#define RESULTS_SIZE 4096
/* Workers that destroy the QPs past the timed sample. */
#define BULK_DESTROYERS 64

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
 * Destroy the @created QPs of a size of @n, timing the first
 * destroy_sample of them if @timed.
 */
static void destroy_qps(unsigned int n, unsigned int created, bool timed)
{
	unsigned int sample = min(created, destroy_sample), i;
	u64 start = ktime_get_ns();

	for (i = 0; i < sample; i++)
		ib_destroy_qp(bench.qps[i]);
	if (timed)
		report(n, "destroy", per_qp(start, sample), "ns");
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
