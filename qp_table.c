// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The QP table: how receive paths find a QP by number.
 *
 * Its layout is fixed by rvt_lookup_qpn(), an inline in rdmavt_qp.h that
 * drivers compile into themselves: QP0 and QP1 of each port sit in that
 * port's rvt_ibport.qp[], every other QP in a bucket of rdi->qp_dev->qp_table
 * chosen by hash_32(qpn, qp_table_bits) and chained through rvt_qp.next.
 *
 * Readers (lookups, iterators) walk the table under rcu_read_lock() alone.
 * Writers serialise on qp_dev->qpt_lock. A QP is in the table from its
 * RESET->INIT transition until it goes back to RESET or is destroyed, and
 * the table holds a reference on it for that time; a removed QP's memory
 * and number stay untouched until a grace period has passed.
 *
 * Chains are kept sorted by QPN. Lookups do not care, but an iterator that
 * had to leave the RCU read section (rvt_qp_iter() calls its callback
 * outside it) can then resume after "the last QPN seen" in its bucket and
 * still visit each QP once, whatever was inserted or removed meanwhile.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "vt.h"
#include "qp.h"

/* The largest table we allocate: 2^20 buckets, 8 MiB of pointers. */
#define RVT_QP_TABLE_MAX_BITS 20

/**
 * rvt_check_qp_table_size - check the driver's dparms.qp_table_size
 * @rdi: the device being registered
 *
 * hash_32() of 0 bits would shift by 32 in every lookup.
 *
 * Context: process context.
 * Return: 0, or -EINVAL unless it is a power of 2 from 2 to 2^20.
 */
static int rvt_check_qp_table_size(struct rvt_dev_info *rdi)
{
	u32 size = rdi->dparms.qp_table_size;

	/* hash_32() of 0 bits would shift by 32 in every lookup. */
	if (size < 2 || !is_power_of_2(size) ||
	    size > BIT(RVT_QP_TABLE_MAX_BITS)) {
		ibdev_err(&rdi->ibdev,
			  "qp_table_size %u: must be a power of 2 from 2 to %lu\n",
			  size, BIT(RVT_QP_TABLE_MAX_BITS));
		return -EINVAL;
	}
	return 0;
}

/**
 * rvt_driver_qp_init - set up a device's QP table and QPN allocator
 * @rdi: the device being registered
 *
 * Context: process context, from rvt_register_device().
 * Return: 0, -EINVAL if dparms.qp_table_size or the QPN parameters are
 * unusable, or -ENOMEM.
 */
int rvt_driver_qp_init(struct rvt_dev_info *rdi)
{
	struct rvt_qp_ibdev *qp_dev;
	int node = rdi->dparms.node;
	int ret;

	ret = rvt_check_qp_table_size(rdi);
	if (ret)
		return ret;

	qp_dev = kzalloc_node(sizeof(*qp_dev), GFP_KERNEL, node);
	if (!qp_dev)
		return -ENOMEM;
	qp_dev->qp_table_size = rdi->dparms.qp_table_size;
	qp_dev->qp_table_bits = ilog2(qp_dev->qp_table_size);
	/* Zeroed memory is a table of NULL RCU pointers. */
	qp_dev->qp_table = kvcalloc_node(qp_dev->qp_table_size,
					 sizeof(*qp_dev->qp_table),
					 GFP_KERNEL, node);
	if (!qp_dev->qp_table) {
		ret = -ENOMEM;
		goto free_dev;
	}
	spin_lock_init(&qp_dev->qpt_lock);
	ret = rvt_init_qpn_table(rdi, &qp_dev->qpn_table);
	if (ret)
		goto free_table;

	spin_lock_init(&rdi->n_qps_lock);
	rdi->n_qps_allocated = 0;
	rdi->n_rc_qps = 0;
	rdi->busy_jiffies = 0;
	rdi->qp_dev = qp_dev;
	return 0;

free_table:
	kvfree(qp_dev->qp_table);
free_dev:
	kfree(qp_dev);
	return ret;
}

/**
 * rvt_qp_exit - tear down a device's QP table
 * @rdi: the device, unregistered from the IB core
 *
 * Every QP should have been destroyed by its owner by now; any left over
 * is reset (so it holds no reference and is out of the table), counted
 * and reported, but not freed: its memory belongs to the IB core object.
 *
 * Context: process context, from rvt_unregister_device(); may sleep.
 */
void rvt_qp_exit(struct rvt_dev_info *rdi)
{
	struct rvt_qp_ibdev *qp_dev = rdi->qp_dev;
	unsigned int leaked, reset;

	if (!qp_dev)
		return;
	spin_lock(&rdi->n_qps_lock);
	leaked = rdi->n_qps_allocated;
	spin_unlock(&rdi->n_qps_lock);
	reset = rvt_free_all_qps(rdi);
	if (leaked || reset)
		ibdev_err(&rdi->ibdev,
			  "%u QP(s) not destroyed by their owners, %u reset out of the QP table\n",
			  leaked, reset);
	rvt_free_qpn_table(&qp_dev->qpn_table);
	kvfree(qp_dev->qp_table);
	kfree(qp_dev);
	rdi->qp_dev = NULL;
}

/**
 * rvt_qp_bucket - the bucket of a QP number, as rvt_lookup_qpn() finds it
 * @qp_dev: the device's QP table
 * @qpn: the number
 *
 * Context: any.
 * Return: the bucket index.
 */
static u32 rvt_qp_bucket(struct rvt_qp_ibdev *qp_dev, u32 qpn)
{
	return hash_32(qpn, qp_dev->qp_table_bits);
}

/**
 * rvt_qp_home - the slot of the table that holds a QP
 * @rdi: the device
 * @qp: the QP
 *
 * Context: qpt_lock held.
 * Return: its port's QP0 or QP1 pointer, or the head of its bucket.
 */
static struct rvt_qp __rcu **rvt_qp_home(struct rvt_dev_info *rdi,
					 struct rvt_qp *qp)
{
	u32 qpn = qp->ibqp.qp_num;

	if (qpn <= 1)
		return &rdi->ports[qp->port_num - 1]->qp[qpn];
	return &rdi->qp_dev->qp_table[rvt_qp_bucket(rdi->qp_dev, qpn)];
}

/**
 * rvt_qpt_deref - read a table link as its writer
 * @rdi: the device
 * @slot: a bucket head, port slot or rvt_qp.next
 *
 * Context: qpt_lock held.
 * Return: the QP it points to, or NULL.
 */
static struct rvt_qp *rvt_qpt_deref(struct rvt_dev_info *rdi,
				    struct rvt_qp __rcu *const *slot)
{
	return rcu_dereference_protected(*slot,
					 lockdep_is_held(&rdi->qp_dev->qpt_lock));
}

/**
 * rvt_insert_qp - make a QP findable by its number
 * @rdi: the device
 * @qp: a QP entering INIT from RESET, with its port set
 *
 * The table takes a reference on the QP, dropped by rvt_release_qp_link().
 *
 * Context: any; takes qpt_lock with interrupts saved.
 */
void rvt_insert_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct rvt_qp __rcu **link;
	struct rvt_qp *next;
	unsigned long flags;

	rvt_get_qp(qp);
	spin_lock_irqsave(&rdi->qp_dev->qpt_lock, flags);
	link = rvt_qp_home(rdi, qp);
	/* Keep the chain sorted by QPN (see the top of this file). */
	while ((next = rvt_qpt_deref(rdi, link)) &&
	       next->ibqp.qp_num < qp->ibqp.qp_num)
		link = &next->next;
	RCU_INIT_POINTER(qp->next, next);
	rcu_assign_pointer(*link, qp);
	spin_unlock_irqrestore(&rdi->qp_dev->qpt_lock, flags);
}

/**
 * rvt_unlink_qp - take a QP out of the table
 * @rdi: the device
 * @qp: the QP; nothing happens if it is not in the table
 *
 * Lookups already under way may still find the QP: the caller must let a
 * grace period pass before it reuses or frees anything a reader looks at,
 * then drop the table's reference (rvt_release_qp_link()).
 *
 * Context: any; takes qpt_lock with interrupts saved.
 * Return: true if the QP was in the table.
 */
bool rvt_unlink_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct rvt_qp __rcu **link;
	struct rvt_qp *cur;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&rdi->qp_dev->qpt_lock, flags);
	link = rvt_qp_home(rdi, qp);
	while ((cur = rvt_qpt_deref(rdi, link))) {
		if (cur == qp) {
			/* Readers standing on @qp still go on through next. */
			rcu_assign_pointer(*link, rvt_qpt_deref(rdi, &qp->next));
			found = true;
			break;
		}
		link = &cur->next;
	}
	spin_unlock_irqrestore(&rdi->qp_dev->qpt_lock, flags);
	return found;
}

/**
 * rvt_release_qp_link - finish rvt_unlink_qp()
 * @qp: a QP rvt_unlink_qp() took out of the table
 *
 * Returns once no RCU reader can still hold the QP from a lookup, with
 * the table's reference dropped.
 *
 * Context: process context; sleeps in synchronize_rcu().
 */
void rvt_release_qp_link(struct rvt_qp *qp)
{
	synchronize_rcu();
	rvt_put_qp(qp);
}

/**
 * rvt_qp_slot_head - first QP of an iterator slot
 * @rdi: the device
 * @slot: 0 to 2 * ports - 1 for each port's QP0 and QP1 (port by port),
 *	  then one slot per bucket of the table
 *
 * Context: within an RCU read-side critical section.
 * Return: the QP, or NULL if the slot is empty.
 */
struct rvt_qp *rvt_qp_slot_head(struct rvt_dev_info *rdi, int slot)
	__must_hold(RCU)
{
	int specials = 2 * rdi->ibdev.phys_port_cnt;

	if (slot < specials)
		return rcu_dereference(rdi->ports[slot / 2]->qp[slot % 2]);
	return rcu_dereference(rdi->qp_dev->qp_table[slot - specials]);
}

/**
 * rvt_qp_bucket_after - the QP following a number in a bucket
 * @rdi: the device
 * @bucket: bucket index
 * @qpn: a QP number, which need not be in the table any more
 *
 * Context: within an RCU read-side critical section.
 * Return: the QP of the bucket with the smallest number above @qpn, or
 * NULL.
 */
struct rvt_qp *rvt_qp_bucket_after(struct rvt_dev_info *rdi, u32 bucket,
				   u32 qpn)
	__must_hold(RCU)
{
	struct rvt_qp *qp;

	for (qp = rcu_dereference(rdi->qp_dev->qp_table[bucket]); qp;
	     qp = rcu_dereference(qp->next))
		if (qp->ibqp.qp_num > qpn)
			break;
	return qp;
}
