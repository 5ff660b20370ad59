// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Multicast groups: which UD QPs of a port receive what is sent to an
 * MGID/MLID pair.
 *
 * Each port keeps its groups in an rb-tree keyed by MGID, guarded by the
 * port's lock; each group lists its QPs in an RCU list. Drivers deliver
 * multicast by taking a reference with rvt_mcast_find(), walking the QP
 * list under RCU and dropping the reference with atomic_dec_return(),
 * waking mcast->wait when it falls to 1 or below (that protocol is
 * compiled into hfi1 and qib). The tree itself holds one reference on each
 * group, so detaching waits for the count to fall to 1 before freeing a
 * list entry, and for 0 before freeing the group.
 *
 * Each entry holds a reference on its QP (rvt_get_qp()), as upstream's
 * do: drivers see it in qp->refcount, and destroy_qp() waits for it.
 *
 * The port's lock is taken with interrupts off, since rvt_mcast_find()
 * runs in drivers' receive and transmit paths (softirq). The device's
 * group count, rdi->n_mcast_grps_allocated, is guarded by
 * rdi->n_mcast_grps_lock, which attach and detach take inside the port's
 * lock: so it too is taken with interrupts off wherever it is taken.
 *
 * ABI: rvt_mcast_find()'s CRC requires that this file see no linux/pci.h
 * and no linux/tracepoint.h: do not include exports.h here.
 */
#include <linux/slab.h>
#include <linux/rculist.h>
#include <linux/rbtree.h>
#include "mcast.h"
#include "count.h"

/**
 * rvt_driver_mcast_init - prepare multicast accounting at registration
 * @rdi: the device
 *
 * Context: process context, before the device is visible.
 */
void rvt_driver_mcast_init(struct rvt_dev_info *rdi)
{
	spin_lock_init(&rdi->n_mcast_grps_lock);
	rdi->n_mcast_grps_allocated = 0;
}

static int rvt_mgid_cmp(const union ib_gid *mgid, const struct rb_node *node)
{
	const struct rvt_mcast *mcast =
		rb_entry(node, struct rvt_mcast, rb_node);

	return memcmp(mgid->raw, mcast->mcast_addr.mgid.raw, sizeof(*mgid));
}

static int rvt_mcast_node_cmp(const void *key, const struct rb_node *node)
{
	return rvt_mgid_cmp(key, node);
}

static bool rvt_mcast_less(struct rb_node *a, const struct rb_node *b)
{
	return rvt_mgid_cmp(&rb_entry(a, struct rvt_mcast,
				      rb_node)->mcast_addr.mgid, b) < 0;
}

/* The port's group for @mgid; the port lock must be held. */
static struct rvt_mcast *rvt_mcast_lookup(struct rvt_ibport *ibp,
					  const union ib_gid *mgid)
{
	struct rb_node *node;

	node = rb_find(mgid, &ibp->mcast_tree, rvt_mcast_node_cmp);
	return node ? rb_entry(node, struct rvt_mcast, rb_node) : NULL;
}

/**
 * rvt_mcast_find - find a port's multicast group and take a reference
 * @ibp: the port
 * @mgid: the destination MGID
 * @lid: the destination MLID, which must be the group's
 *
 * The caller may walk the group's qp_list under rcu_read_lock() while it
 * holds the reference, and releases it with atomic_dec_return(), waking
 * mcast->wait when the result is 1 or less.
 *
 * Context: any; takes the port lock with interrupts saved.
 * Return: the group, or NULL if none matches both @mgid and @lid.
 */
struct rvt_mcast *rvt_mcast_find(struct rvt_ibport *ibp, union ib_gid *mgid,
				 u16 lid)
{
	struct rvt_mcast *mcast;
	unsigned long flags;

	spin_lock_irqsave(&ibp->lock, flags);
	mcast = rvt_mcast_lookup(ibp, mgid);
	if (mcast && mcast->mcast_addr.lid == lid)
		atomic_inc(&mcast->refcount);
	else
		mcast = NULL;
	spin_unlock_irqrestore(&ibp->lock, flags);
	return mcast;
}
EXPORT_SYMBOL(rvt_mcast_find);

static struct rvt_mcast *rvt_mcast_alloc(const union ib_gid *mgid, u16 lid)
{
	struct rvt_mcast *mcast = kzalloc(sizeof(*mcast), GFP_KERNEL);

	if (!mcast)
		return NULL;
	mcast->mcast_addr.mgid = *mgid;
	mcast->mcast_addr.lid = lid;
	INIT_LIST_HEAD(&mcast->qp_list);
	init_waitqueue_head(&mcast->wait);
	atomic_set(&mcast->refcount, 1);	/* the tree's */
	return mcast;
}

static struct rvt_mcast_qp *rvt_mcast_entry(struct rvt_mcast *mcast,
					    struct rvt_qp *qp)
{
	struct rvt_mcast_qp *mqp;

	list_for_each_entry(mqp, &mcast->qp_list, list)
		if (mqp->qp == qp)
			return mqp;
	return NULL;
}

/*
 * Attach @mqp to the group @mgid of @ibp, creating it from *@newp if there
 * is none (then *@newp is consumed and set to NULL). Port lock held.
 * Return: 0 if attached, 1 if the QP already was, or a negative errno.
 */
static int rvt_mcast_add(struct rvt_dev_info *rdi, struct rvt_ibport *ibp,
			 struct rvt_mcast **newp, struct rvt_mcast_qp *mqp)
{
	struct rvt_mcast *mcast;

	mcast = rvt_mcast_lookup(ibp, &(*newp)->mcast_addr.mgid);
	if (mcast) {
		if (mcast->mcast_addr.lid != (*newp)->mcast_addr.lid)
			return -EINVAL;
		if (rvt_mcast_entry(mcast, mqp->qp))
			return 1;
		if (mcast->n_attached >= rdi->dparms.props.max_mcast_qp_attach)
			return -ENOMEM;
	} else {
		if (!rvt_count_get(&rdi->n_mcast_grps_lock,
				   &rdi->n_mcast_grps_allocated,
				   rdi->dparms.props.max_mcast_grp))
			return -ENOMEM;
		mcast = *newp;
		*newp = NULL;
		rb_add(&mcast->rb_node, &ibp->mcast_tree, rvt_mcast_less);
	}
	mcast->n_attached++;
	list_add_tail_rcu(&mqp->list, &mcast->qp_list);
	return 0;
}

/*
 * The port whose groups @qp joins: the one it was given on the way to
 * INIT. A QP that never left RESET has none (port_num 0) and so cannot be
 * attached; without this check its rdi->ports[-1] would be read.
 */
static struct rvt_ibport *rvt_mcast_qp_port(struct rvt_dev_info *rdi,
					    struct rvt_qp *qp)
{
	u32 port = READ_ONCE(qp->port_num);

	if (port < 1 || port > rdi->ibdev.phys_port_cnt)
		return NULL;
	return rdi->ports[port - 1];
}

/**
 * rvt_attach_mcast - attach a UD QP to a multicast group
 * @ibqp: the QP; the IB core has checked its type, the MGID and the MLID
 * @gid: the group's MGID
 * @lid: the group's MLID; a group keeps the MLID it was created with
 *
 * Attaching a QP that is already attached succeeds and changes nothing.
 *
 * Context: process context; takes the port lock. May sleep (allocation).
 * Return: 0; -EINVAL for a special QP, a QP in RESET or an MLID other than
 * the group's; -ENOMEM at max_mcast_grp groups or max_mcast_qp_attach QPs
 * in the group, or without memory.
 */
int rvt_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_ibport *ibp = rvt_mcast_qp_port(rdi, qp);
	struct rvt_mcast *mcast;
	struct rvt_mcast_qp *mqp;
	int ret;

	if (ibqp->qp_num <= 1 || READ_ONCE(qp->state) == IB_QPS_RESET || !ibp)
		return -EINVAL;

	mcast = rvt_mcast_alloc(gid, lid);
	mqp = kzalloc(sizeof(*mqp), GFP_KERNEL);
	if (!mcast || !mqp) {
		ret = -ENOMEM;
		goto out;
	}
	mqp->qp = qp;

	/* The entry's reference, taken before a receiver can see it. */
	rvt_get_qp(qp);
	spin_lock_irq(&ibp->lock);
	ret = rvt_mcast_add(rdi, ibp, &mcast, mqp);
	spin_unlock_irq(&ibp->lock);
	if (ret == 0)
		mqp = NULL;
	else
		rvt_put_qp(qp);
out:
	kfree(mqp);
	kfree(mcast);
	return ret < 0 ? ret : 0;
}

/*
 * Unlink @qp from the group @mgid/@lid of @ibp, and the group from the
 * tree if it was the last QP. Port lock held.
 * Return: the unlinked entry, or NULL if @qp was not attached there.
 */
static struct rvt_mcast_qp *rvt_mcast_unlink(struct rvt_ibport *ibp,
					     const union ib_gid *mgid,
					     u16 lid, struct rvt_qp *qp,
					     struct rvt_mcast **mcastp,
					     bool *last)
{
	struct rvt_mcast *mcast = rvt_mcast_lookup(ibp, mgid);
	struct rvt_mcast_qp *mqp;

	if (!mcast || mcast->mcast_addr.lid != lid)
		return NULL;
	mqp = rvt_mcast_entry(mcast, qp);
	if (!mqp)
		return NULL;
	list_del_rcu(&mqp->list);
	mcast->n_attached--;
	*last = list_empty(&mcast->qp_list);
	if (*last)
		rb_erase(&mcast->rb_node, &ibp->mcast_tree);
	*mcastp = mcast;
	return mqp;
}

/*
 * One group fewer on the device. The count's lock nests inside the port
 * lock in rvt_mcast_add(), and that lock is taken in softirq (by
 * rvt_mcast_find()): taken here with interrupts on, a softirq on this CPU
 * could wait for the port lock whose holder, on another CPU, waits for
 * this one.
 */
static void rvt_mcast_uncount_group(struct rvt_dev_info *rdi)
{
	spin_lock_irq(&rdi->n_mcast_grps_lock);
	rdi->n_mcast_grps_allocated--;
	spin_unlock_irq(&rdi->n_mcast_grps_lock);
}

/**
 * rvt_detach_mcast - detach a QP from a multicast group
 * @ibqp: the QP
 * @gid: the group's MGID
 * @lid: the group's MLID
 *
 * Waits until no receiver is walking the group's QP list before freeing
 * the QP's entry, and the group itself once its last QP has left.
 *
 * Context: process context; takes the port lock; sleeps.
 * Return: 0, or -EINVAL if the QP is special, has no port yet (never left
 * RESET) or is not attached to that MGID/MLID pair.
 */
int rvt_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_ibport *ibp = rvt_mcast_qp_port(rdi, qp);
	struct rvt_mcast *mcast = NULL;
	struct rvt_mcast_qp *mqp;
	bool last = false;

	if (ibqp->qp_num <= 1 || !ibp)
		return -EINVAL;

	spin_lock_irq(&ibp->lock);
	mqp = rvt_mcast_unlink(ibp, gid, lid, qp, &mcast, &last);
	spin_unlock_irq(&ibp->lock);
	if (!mqp)
		return -EINVAL;

	wait_event(mcast->wait, atomic_read(&mcast->refcount) <= 1);
	/* Walkers under plain RCU, without a reference, may remain. */
	kfree_rcu_mightsleep(mqp);
	rvt_put_qp(qp);
	if (last) {
		atomic_dec(&mcast->refcount);
		wait_event(mcast->wait, !atomic_read(&mcast->refcount));
		kfree_rcu_mightsleep(mcast);
		rvt_mcast_uncount_group(rdi);
	}
	return 0;
}

/**
 * rvt_mcast_groups_left - count the multicast groups still attached
 * @rdi: the device
 *
 * Context: process context, when the device is going away.
 * Return: the number of groups over all ports; 0 unless a QP was
 * destroyed while still attached.
 */
unsigned int rvt_mcast_groups_left(struct rvt_dev_info *rdi)
{
	unsigned int n;

	/* Interrupts off, as everywhere (see the top of this file). */
	spin_lock_irq(&rdi->n_mcast_grps_lock);
	n = rdi->n_mcast_grps_allocated;
	spin_unlock_irq(&rdi->n_mcast_grps_lock);
	return n;
}
