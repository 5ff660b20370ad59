// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Iteration over every QP of a device.
 *
 * The iterator walks "slots": first QP0 and QP1 of each port (slot
 * 2 * port_index + qpn), then the buckets of the QP table. struct
 * rvt_qp_iter's n is the slot of iter->qp.
 *
 * rvt_qp_iter_next() is the seq_file-friendly primitive: the caller holds
 * the RCU read lock across calls, and iter->qp is only valid inside it.
 * rvt_qp_iter() is built on it for callbacks that may sleep: it pins the
 * current QP with a reference, leaves the read section for the callback,
 * and resumes by number (bucket chains are sorted, see qp_table.c), so
 * each QP present for the whole walk is visited exactly once.
 *
 * Exported symbols' CRCs depend on the types visible here: keep the
 * include set of the upstream file that exports them.
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
#include "qp.h"
#include "vt.h"

/**
 * rvt_qp_iter_setup - set an iterator before the first QP
 * @iter: the iterator
 * @rdi: the device
 * @v: the caller's value
 * @cb: the caller's callback, or NULL
 *
 * Context: any.
 */
static void rvt_qp_iter_setup(struct rvt_qp_iter *iter,
			      struct rvt_dev_info *rdi, u64 v,
			      void (*cb)(struct rvt_qp *qp, u64 v))
{
	iter->qp = NULL;
	iter->rdi = rdi;
	iter->cb = cb;
	iter->v = v;
	iter->specials = 2 * rdi->ibdev.phys_port_cnt;
	iter->n = 0;
}

/**
 * rvt_qp_iter_init - start an iteration over a device's QPs
 * @rdi: the device
 * @v: a value for @cb, kept in the iterator
 * @cb: a callback for the caller's own use, kept in the iterator;
 *	rvt_qp_iter_next() never calls it; may be NULL
 *
 * The iterator starts before the first QP; rvt_qp_iter_next() moves it.
 * It holds no reference and no lock, so it may be kept between the RCU
 * read sections of a seq_file's start and stop, but iter->qp is only
 * meaningful within the read section in which rvt_qp_iter_next() set it.
 *
 * Context: process context; allocates with GFP_KERNEL, so call it before
 * rcu_read_lock().
 * Return: the iterator, which the caller frees with kfree(), or NULL if
 * out of memory.
 */
struct rvt_qp_iter *rvt_qp_iter_init(struct rvt_dev_info *rdi,
				     u64 v,
				     void (*cb)(struct rvt_qp *qp, u64 v))
{
	struct rvt_qp_iter *iter;

	iter = kzalloc(sizeof(*iter), GFP_KERNEL);
	if (!iter)
		return NULL;
	rvt_qp_iter_setup(iter, rdi, v, cb);
	return iter;
}
EXPORT_SYMBOL(rvt_qp_iter_init);

/**
 * rvt_qp_iter_scan - settle an iterator on a QP
 * @iter: the iterator
 * @n: the slot to look in
 * @qp: the QP of slot @n to settle on, or NULL to take the first QP of
 *	slot @n or of a later slot
 *
 * Context: within an RCU read-side critical section.
 * Return: 0 with iter->qp and iter->n set, or 1 past the last slot.
 */
static int rvt_qp_iter_scan(struct rvt_qp_iter *iter, int n,
			    struct rvt_qp *qp)
	__must_hold(RCU)
{
	int slots = iter->specials + iter->rdi->qp_dev->qp_table_size;

	while (!qp && n < slots) {
		qp = rvt_qp_slot_head(iter->rdi, n);
		if (!qp)
			n++;
	}
	iter->qp = qp;
	iter->n = n;
	return qp ? 0 : 1;
}

/**
 * rvt_qp_iter_next - move an iterator to the next QP
 * @iter: the iterator, from rvt_qp_iter_init()
 *
 * The step for seq_file users (a debugfs file's start and next) and for
 * rvt_qp_iter(). Each port's QP0 and QP1 come first, then the QPs of the
 * table in bucket order. The caller must stay in one RCU read-side
 * critical section from the call that returned the current iter->qp to
 * this one: the walk goes on from that QP's chain link. A QP created meanwhile may or may not be
 * seen; one destroyed meanwhile is seen at most once.
 *
 * Context: within rcu_read_lock(); does not sleep.
 * Return: 0 with iter->qp (valid until rcu_read_unlock()) and iter->n
 * set, or 1 when there are no more QPs.
 */
int rvt_qp_iter_next(struct rvt_qp_iter *iter)
	__must_hold(RCU)
{
	struct rvt_qp *qp = NULL;
	int n = iter->n;

	if (iter->qp) {
		/* A special QP is alone in its slot; buckets are chains. */
		if (n >= iter->specials)
			qp = rcu_dereference(iter->qp->next);
		if (!qp)
			n++;
	}
	return rvt_qp_iter_scan(iter, n, qp);
}
EXPORT_SYMBOL(rvt_qp_iter_next);

/**
 * rvt_qp_iter_resume - move to the next QP after the read lock was dropped
 * @iter: an iterator whose QP was pinned by a reference meanwhile
 *
 * Like rvt_qp_iter_next(), but the QP's chain link may be stale: it may
 * have been taken out of the table, so its successor is found by number.
 *
 * Context: within an RCU read-side critical section.
 * Return: 0 with iter->qp and iter->n set, or 1 when there are no more.
 */
static int rvt_qp_iter_resume(struct rvt_qp_iter *iter)
	__must_hold(RCU)
{
	struct rvt_qp *qp = NULL;
	int n = iter->n;

	if (n >= iter->specials)
		qp = rvt_qp_bucket_after(iter->rdi, n - iter->specials,
					 iter->qp->ibqp.qp_num);
	if (!qp)
		n++;
	return rvt_qp_iter_scan(iter, n, qp);
}

/**
 * rvt_qp_iter - call a function for every QP of a device
 * @rdi: the device
 * @v: a 64-bit value passed to every call of @cb, for the callback's own
 *     filtering or processing (a service level, a counter's address, a
 *     memory region ...): criteria that are not part of the rvt_qp
 * @cb: the callback, called as @cb(qp, @v) once for every QP that is in
 *	the QP table (INIT to ERR) for the whole iteration; QPs created or
 *	reset meanwhile may or may not be visited
 *
 * @cb runs outside any RCU read section, holding a reference on the QP
 * that keeps it from being freed (destroy waits for it), so it may sleep,
 * take the QP's locks, or even reset the QP. Built on the iterator that
 * rvt_qp_iter_init() and rvt_qp_iter_next() give seq_file users.
 *
 * Context: process context; may sleep if @cb does.
 */
void rvt_qp_iter(struct rvt_dev_info *rdi,
		 u64 v,
		 void (*cb)(struct rvt_qp *qp, u64 v))
{
	struct rvt_qp_iter iter;
	struct rvt_qp *qp;
	int done;

	rvt_qp_iter_setup(&iter, rdi, v, cb);
	rcu_read_lock();
	done = rvt_qp_iter_next(&iter);
	while (!done) {
		qp = iter.qp;
		/* Found under RCU, so the table's reference is still held. */
		rvt_get_qp(qp);
		rcu_read_unlock();
		iter.cb(qp, iter.v);
		rcu_read_lock();
		done = rvt_qp_iter_resume(&iter);
		rvt_put_qp(qp);
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL(rvt_qp_iter);

/**
 * rvt_free_qp_cb - rvt_qp_iter() callback of rvt_free_all_qps()
 * @qp: a QP left in the table of an unregistered device
 * @v: the address of the count of QPs reset, as a u64
 *
 * Context: process context; sleeps.
 */
static void rvt_free_qp_cb(struct rvt_qp *qp, u64 v)
{
	unsigned int *reset = (unsigned int *)(uintptr_t)v;

	rvt_reset_qp(ib_to_rvt(qp->ibqp.device), qp, qp->ibqp.qp_type);
	(*reset)++;
}

/**
 * rvt_free_all_qps - reset every QP still in a device's QP table
 * @rdi: the device, unregistered from the IB core
 *
 * Leaves no QP in the table and no table reference held.
 *
 * Context: process context; may sleep.
 * Return: how many QPs were reset.
 */
unsigned int rvt_free_all_qps(struct rvt_dev_info *rdi)
{
	unsigned int reset = 0;

	rvt_qp_iter(rdi, (u64)(uintptr_t)&reset, rvt_free_qp_cb);
	return reset;
}
