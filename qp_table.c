// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Finding QPs: QP numbers, the QPN -> QP table receive paths look QPs up
 * in, and iteration over every QP of a device.
 *
 * Three sections, each with its own rules: the QPN allocator
 * (qp_dev->qpn_table), the table (qp_dev->qp_table and the ports' qp[]),
 * and the iterators, which only read the table.
 */
#include "qp_exports.h"
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/bitmap.h>
#include <linux/gfp.h>
#include "qp_parts.h"
#include "trace_qp.h"

/*
 * QP numbers.
 *
 * QPNs 0 and 1 are every port's QP0 (SMI) and QP1 (GSI); a bit per port
 * and per number in qpt->flags says which of them exist. Every other QPN
 * comes from a bitmap over the 24-bit space whose pages are allocated the
 * first time a number in them is handed out, so a device with a few QPs
 * spends a page, not 2 MiB.
 *
 * Numbers are handed out round robin from a cursor (qpt->last) in steps of
 * qpt->incr = qpn_inc << qos_shift, which lets a driver keep the low bits
 * of every QPN clear for its own use (hfi1 keys receive contexts on them).
 * At the top of the space the walk starts again at incr, on the other value
 * of bit 0, so a step of 2^k still reaches twice 2^24 / 2^k numbers. Round
 * robin means a freed number is not handed out again soon, which keeps late
 * packets for a destroyed QP from reaching its successor.
 *
 * Bits are claimed with test_and_set_bit(), so allocation takes no lock; the
 * cursor is only a hint. qpt->lock guards the installation of bitmap pages
 * and qpt->flags.
 */

/* 0 and 1 are QP0 and QP1, never in the bitmap's gift. */
#define RVT_QPN_FIRST_BITMAP 2
/* QP0 and QP1 flags exist for this many ports: two bits each in a u32. */
#define RVT_QPN_SPECIAL_PORTS 16

/**
 * rvt_qpn_page - a bitmap page of the QPN table, allocated on first use
 * @qpt: the table
 * @index: the map entry
 *
 * Pages are only ever installed, never removed until the table is freed:
 * readers load the pointer without the lock. The acquire pairs with the
 * release that publishes a zeroed page.
 *
 * Context: process context; may allocate; takes qpt->lock.
 * Return: the page, or NULL if out of memory.
 */
static unsigned long *rvt_qpn_page(struct rvt_qpn_table *qpt, u32 index)
{
	struct rvt_qpn_map *map = &qpt->map[index];
	unsigned long fresh;
	void *page;

	/* Pairs with the release below: a page seen is a zeroed page. */
	page = smp_load_acquire(&map->page);
	if (page)
		return page;

	fresh = get_zeroed_page(GFP_KERNEL);
	if (!fresh)
		return NULL;
	spin_lock(&qpt->lock);
	page = map->page;
	if (!page) {
		page = (void *)fresh;
		/* The zeroing before the pointer, for lockless readers. */
		smp_store_release(&map->page, page);
		fresh = 0;
	}
	spin_unlock(&qpt->lock);
	free_page(fresh);	/* lost a race: someone else installed one */
	return page;
}

/**
 * rvt_qpn_reserve - mark a range of QP numbers as taken
 * @qpt: the table
 * @first: the first number
 * @last: the last number
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
static int rvt_qpn_reserve(struct rvt_qpn_table *qpt, u32 first, u32 last)
{
	u32 qpn = first;

	while (qpn <= last) {
		u32 bit = qpn & RVT_BITS_PER_PAGE_MASK;
		u32 n = min(last - qpn + 1, RVT_BITS_PER_PAGE - bit);
		unsigned long *page;

		page = rvt_qpn_page(qpt, qpn / RVT_BITS_PER_PAGE);
		if (!page)
			return -ENOMEM;
		bitmap_set(page, bit, n);
		qpn += n;
	}
	return 0;
}

/**
 * rvt_check_qpn_params - check the driver's QPN parameters
 * @rdi: the device being registered
 *
 * Context: process context.
 * Return: 0, or -EINVAL for a reserved range or start outside the QPN
 * space, or a step (qpn_inc << qos_shift) below 1 or above 255.
 */
static int rvt_check_qpn_params(struct rvt_dev_info *rdi)
{
	const struct rvt_driver_params *dp = &rdi->dparms;
	u32 incr = (u32)dp->qpn_inc << dp->qos_shift;

	if (dp->qpn_res_start < 0 || dp->qpn_res_end < dp->qpn_res_start ||
	    dp->qpn_res_end >= RVT_QPN_MAX) {
		ibdev_err(&rdi->ibdev, "bad reserved QPN range %#x-%#x\n",
			  dp->qpn_res_start, dp->qpn_res_end);
		return -EINVAL;
	}
	if (dp->qpn_inc < 1 || dp->qos_shift >= 8 || incr > U8_MAX ||
	    dp->qpn_start < 0 || dp->qpn_start >= RVT_QPN_MAX) {
		ibdev_err(&rdi->ibdev,
			  "bad QPN start %d, increment %d, QoS shift %u\n",
			  dp->qpn_start, dp->qpn_inc, dp->qos_shift);
		return -EINVAL;
	}
	return 0;
}

/**
 * rvt_free_qpn_table - free the bitmap pages of a QP number table
 * @qpt: the table; pages a driver's alloc_qpn() installed are freed too
 *
 * Context: process context, once no QP of the device exists.
 */
static void rvt_free_qpn_table(struct rvt_qpn_table *qpt)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(qpt->map); i++) {
		free_page((unsigned long)qpt->map[i].page);
		qpt->map[i].page = NULL;
	}
}

/**
 * rvt_init_qpn_table - set up the QP number allocator of a device
 * @rdi: the device, with dparms.qpn_* and qos_shift set by the driver
 * @qpt: the (zeroed) table to set up
 *
 * Marks QPN 0 and 1 and the driver's reserved range qpn_res_start to
 * qpn_res_end (numbers the driver uses without QPs, such as hfi1's PSM and
 * AIP contexts) as taken. @qpt->nmaps is set to the number of bitmap pages
 * below the end of the reserved range, as drivers with their own
 * alloc_qpn() expect; rdmavt's own allocator does not need it.
 *
 * Context: process context, at registration.
 * Return: 0, -EINVAL for parameters outside the QPN space, or -ENOMEM.
 */
static int rvt_init_qpn_table(struct rvt_dev_info *rdi,
			      struct rvt_qpn_table *qpt)
{
	const struct rvt_driver_params *dp = &rdi->dparms;
	int ret;

	ret = rvt_check_qpn_params(rdi);
	if (ret)
		return ret;

	spin_lock_init(&qpt->lock);
	qpt->last = dp->qpn_start;
	qpt->incr = dp->qpn_inc << dp->qos_shift;
	qpt->nmaps = (dp->qpn_res_end + 1) / RVT_BITS_PER_PAGE;

	/* Upstream's words, which logs and scripts may look for. */
	ibdev_info(&rdi->ibdev,
		   "Reserving QPNs from 0x%x to 0x%x for non-verbs use\n",
		   dp->qpn_res_start, dp->qpn_res_end);
	ret = rvt_qpn_reserve(qpt, 0, RVT_QPN_FIRST_BITMAP - 1) ?:
	      rvt_qpn_reserve(qpt, dp->qpn_res_start, dp->qpn_res_end);
	if (ret)
		rvt_free_qpn_table(qpt);
	return ret;
}

/**
 * rvt_special_flag - the qpt->flags bit of a port's QP0 or QP1
 * @type: IB_QPT_SMI or IB_QPT_GSI
 * @port_num: the port, 1 to 16
 *
 * Context: any.
 * Return: the bit.
 */
static u32 rvt_special_flag(enum ib_qp_type type, u32 port_num)
{
	return BIT((type == IB_QPT_GSI) + 2 * (port_num - 1));
}

/**
 * rvt_claim_special - take a port's QP0 or QP1
 * @qpt: the table
 * @type: IB_QPT_SMI or IB_QPT_GSI
 * @port_num: the port
 *
 * Context: process context; takes qpt->lock.
 * Return: 0 or 1 (the QPN); -EINVAL if the port has it already (as
 * upstream answers) or for a port beyond the 16 the flags have room for.
 */
static int rvt_claim_special(struct rvt_qpn_table *qpt, enum ib_qp_type type,
			     u32 port_num)
{
	u32 flag;
	int ret = type == IB_QPT_GSI;

	if (port_num < 1 || port_num > RVT_QPN_SPECIAL_PORTS)
		return -EINVAL;
	flag = rvt_special_flag(type, port_num);
	spin_lock(&qpt->lock);
	if (qpt->flags & flag)
		ret = -EINVAL;
	else
		qpt->flags |= flag;
	spin_unlock(&qpt->lock);
	return ret;
}

/**
 * rvt_claim_in_page - claim the first free number of a bitmap page
 * @qpt: the table
 * @qpn: the number to start from; on failure, moved to the first number
 *	 of the walk beyond this page
 * @max: the end of the space being allocated from
 *
 * Tries *@qpn and every qpt->incr-th number after it, to the end of its
 * page or @max.
 *
 * Context: process context; may allocate the page.
 * Return: 0 with *@qpn claimed, -ENOSPC if the page had none free, or
 * -ENOMEM.
 */
static int rvt_claim_in_page(struct rvt_qpn_table *qpt, u32 *qpn, u32 max)
{
	u32 index = *qpn / RVT_BITS_PER_PAGE;
	u32 base = index * RVT_BITS_PER_PAGE;
	u32 end = min_t(u32, RVT_BITS_PER_PAGE, max - base);
	u32 bit = *qpn - base;
	unsigned long *page;

	page = rvt_qpn_page(qpt, index);
	if (!page)
		return -ENOMEM;
	while (bit < end) {
		if (qpt->incr == 1) {
			bit = find_next_zero_bit(page, end, bit);
			if (bit >= end)
				break;
		}
		if (!test_and_set_bit(bit, page)) {
			*qpn = base + bit;
			return 0;
		}
		bit += qpt->incr;
	}
	*qpn = base + bit;
	return -ENOSPC;
}

/**
 * rvt_qpn_wrap - where the walk goes on past the top of the space
 * @qpt: the table
 * @qpn: the number past the top
 *
 * The walk starts again at incr, on the other value of bit 0.
 *
 * Context: any.
 * Return: the number to go on from.
 */
static u32 rvt_qpn_wrap(const struct rvt_qpn_table *qpt, u32 qpn)
{
	return qpt->incr | ((qpn & 1) ^ 1);
}

/**
 * rvt_claim_qpn - claim a free number from the bitmap, round robin
 * @qpt: the table
 * @max: the end of the space (2^24, or 2^16 for AIP QPs)
 *
 * Context: process context; may allocate a page.
 * Return: the number, or -ENOMEM if none is free or a page cannot be
 * allocated.
 */
static int rvt_claim_qpn(struct rvt_qpn_table *qpt, u32 max)
{
	/* Both values of bit 0 over every page, and the first page again. */
	u32 budget = 2 * (max / RVT_BITS_PER_PAGE) + 2;
	u32 qpn = READ_ONCE(qpt->last) + qpt->incr;
	int ret;

	while (budget--) {
		if (qpn >= max)
			qpn = rvt_qpn_wrap(qpt, qpn);
		ret = rvt_claim_in_page(qpt, &qpn, max);
		if (!ret) {
			WRITE_ONCE(qpt->last, qpn);
			return qpn;
		}
		if (ret != -ENOSPC)
			return ret;
	}
	return -ENOMEM;
}

/**
 * rvt_alloc_qpn - allocate a QP number
 * @rdi: the device
 * @qpt: its QP number table
 * @type: the QP type; SMI and GSI get 0 and 1
 * @port_num: the port of an SMI or GSI QP (1-based, validated by the
 *	      caller)
 * @aip: the QPN is for an accelerated IPoIB QP and must fit in 16 bits
 *
 * A driver's alloc_qpn() callback, if any, replaces the allocator.
 *
 * Context: process context; may allocate a bitmap page.
 * Return: the QPN; -EINVAL if the port already has the QP0 or QP1 asked
 * for or has no room for them, -ENOMEM if the space is exhausted or a
 * page cannot be allocated, or the driver's errno.
 */
int rvt_alloc_qpn(struct rvt_dev_info *rdi, struct rvt_qpn_table *qpt,
		  enum ib_qp_type type, u32 port_num, bool aip)
{
	if (rdi->driver_f.alloc_qpn)
		return rdi->driver_f.alloc_qpn(rdi, qpt, type, port_num);
	if (rvt_qp_is_special(type))
		return rvt_claim_special(qpt, type, port_num);
	return rvt_claim_qpn(qpt, aip ? RVT_AIP_QPN_MAX : RVT_QPN_MAX);
}

/**
 * rvt_free_qpn - return a QP number to the allocator
 * @qpt: the QP number table
 * @qpn: the number, possibly with the AIP prefix
 * @type: the type of the QP that had it
 * @port_num: that QP's port, for QP0 and QP1
 *
 * QP0 and QP1 are released too, so that a port's special QPs can be
 * created again once destroyed (the MAD layer does, when a device is
 * re-enabled).
 *
 * Context: process context. The caller guarantees that no lookup can find
 * the QP any more (it is out of the QP table and an RCU grace period has
 * passed), so the number's next owner cannot be mistaken for it.
 */
void rvt_free_qpn(struct rvt_qpn_table *qpt, u32 qpn, enum ib_qp_type type,
		  u32 port_num)
{
	unsigned long *page;

	if (rvt_qp_is_special(type)) {
		if (port_num < 1 || port_num > RVT_QPN_SPECIAL_PORTS)
			return;
		spin_lock(&qpt->lock);
		qpt->flags &= ~rvt_special_flag(type, port_num);
		spin_unlock(&qpt->lock);
		return;
	}
	if ((qpn & RVT_AIP_QP_PREFIX_MASK) == RVT_AIP_QP_BASE)
		qpn &= RVT_AIP_QP_SUFFIX;
	qpn &= RVT_QPN_MASK;
	if (qpn < RVT_QPN_FIRST_BITMAP)
		return;
	/* See rvt_qpn_page(). */
	page = smp_load_acquire(&qpt->map[qpn / RVT_BITS_PER_PAGE].page);
	if (page)
		clear_bit(qpn & RVT_BITS_PER_PAGE_MASK, page);
}

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
 * That grace period is what a QP's teardown costs: a normal one is
 * milliseconds, and a job that destroys 100k QPs one after the other
 * would wait minutes. So removal notes the RCU state at unlink
 * (get_state_synchronize_rcu(), after the unlink's store), and the
 * release waits only if no grace period has ended since, and then for an
 * expedited one. Safe because a reader can only find the QP if its read
 * section began before the unlink was visible, hence before the noted
 * state; any grace period that ends after that state waited for it, normal
 * or expedited. Often none is left to wait for: stopping the send engine
 * and the timers between unlink and release takes a while. Kernels that
 * must not expedite (rcupdate.rcu_normal, which PREEMPT_RT turns on after
 * boot) get a normal grace period from the same call. mr.c frees lkeys
 * the same way.
 *
 * Chains are kept sorted by QPN. Lookups do not care, but an iterator that
 * had to leave the RCU read section (rvt_qp_iter() calls its callback
 * outside it) can then resume after "the last QPN seen" in its bucket and
 * still visit each QP once, whatever was inserted or removed meanwhile.
 */

/* QPNs have 24 bits: more buckets than that would never be used. */
#define RVT_QP_TABLE_MAX_BUCKETS BIT(24)

/**
 * rvt_qp_table_buckets - how many buckets a driver's qp_table_size gives
 * @size: dparms.qp_table_size, which hfi1 and qib take from a module
 *	  parameter of theirs
 *
 * Any size but 0 is taken, as upstream takes it. rvt_lookup_qpn() hashes
 * a QPN to ilog2(size) bits, so only the first power of 2 of the buckets
 * are ever used; all are allocated, as drivers may walk qp_table_size
 * buckets. A size of 1 would hash to 0 bits, which shifts a 32-bit value
 * by 32 in every lookup (upstream then reads far past its table): it gets
 * two buckets instead. Sizes beyond the QPN space are cut to it.
 *
 * Context: any.
 * Return: the number of buckets, 0 for a size of 0.
 */
static u32 rvt_qp_table_buckets(u32 size)
{
	if (!size)
		return 0;
	return clamp_t(u32, size, 2, RVT_QP_TABLE_MAX_BUCKETS);
}

/**
 * rvt_qp_table_init - allocate a device's QP table and QPN allocator
 * @rdi: the device being registered
 *
 * Context: process context, from rvt_driver_qp_init().
 * Return: 0, -EINVAL if dparms.qp_table_size or the QPN parameters are
 * unusable, or -ENOMEM.
 */
int rvt_qp_table_init(struct rvt_dev_info *rdi)
{
	u32 buckets = rvt_qp_table_buckets(rdi->dparms.qp_table_size);
	struct rvt_qp_ibdev *qp_dev;
	int node = rdi->dparms.node;
	int ret;

	if (!buckets) {
		ibdev_err(&rdi->ibdev, "dparms.qp_table_size is 0\n");
		return -EINVAL;
	}
	qp_dev = kzalloc_node(sizeof(*qp_dev), GFP_KERNEL, node);
	if (!qp_dev)
		return -ENOMEM;
	qp_dev->qp_table_size = buckets;
	qp_dev->qp_table_bits = ilog2(buckets);
	/* Zeroed memory is a table of NULL RCU pointers. */
	qp_dev->qp_table = kvcalloc_node(qp_dev->qp_table_size,
					 sizeof(*qp_dev->qp_table),
					 GFP_KERNEL | __GFP_NOWARN, node);
	if (!qp_dev->qp_table) {
		ret = -ENOMEM;
		goto free_dev;
	}
	spin_lock_init(&qp_dev->qpt_lock);
	ret = rvt_init_qpn_table(rdi, &qp_dev->qpn_table);
	if (ret)
		goto free_table;
	rdi->qp_dev = qp_dev;
	return 0;

free_table:
	kvfree(qp_dev->qp_table);
free_dev:
	kfree(qp_dev);
	return ret;
}

/**
 * rvt_qp_table_free - free a device's QP table and QPN allocator
 * @rdi: the device, unregistered, whose table is empty
 *
 * Context: process context, from rvt_qp_exit().
 */
void rvt_qp_table_free(struct rvt_dev_info *rdi)
{
	struct rvt_qp_ibdev *qp_dev = rdi->qp_dev;

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
	trace_rvt_qpinsert(qp, rvt_qp_bucket(rdi->qp_dev, qp->ibqp.qp_num));
	spin_unlock_irqrestore(&rdi->qp_dev->qpt_lock, flags);
}

/**
 * rvt_unlink_qp - take a QP out of the table
 * @rdi: the device
 * @qp: the QP; nothing happens if it is not in the table
 *
 * @gp: set, if the QP was in the table, to the RCU state after which no
 *	lookup can find it
 *
 * Lookups already under way may still find the QP: the caller must let a
 * grace period pass before it reuses or frees anything a reader looks at,
 * then drop the table's reference: rvt_release_qp_link(@qp, *@gp).
 *
 * Context: any; takes qpt_lock with interrupts saved.
 * Return: true if the QP was in the table.
 */
bool rvt_unlink_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		   unsigned long *gp)
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
			trace_rvt_qpremove(qp, rvt_qp_bucket(rdi->qp_dev,
							     qp->ibqp.qp_num));
			found = true;
			break;
		}
		link = &cur->next;
	}
	spin_unlock_irqrestore(&rdi->qp_dev->qpt_lock, flags);
	/* Full ordering: the unlink is visible before the state is read. */
	if (found)
		*gp = get_state_synchronize_rcu();
	return found;
}

/**
 * rvt_release_qp_link - finish rvt_unlink_qp()
 * @qp: a QP rvt_unlink_qp() took out of the table
 * @gp: the RCU state rvt_unlink_qp() gave
 *
 * Returns once no RCU reader can still hold the QP from a lookup (at
 * once if a grace period has ended since @gp; see the top of the table's
 * section), with the table's reference dropped.
 *
 * Context: process context; may sleep for an expedited grace period.
 */
void rvt_release_qp_link(struct rvt_qp *qp, unsigned long gp)
{
	cond_synchronize_rcu_expedited(gp);
	rvt_put_qp(qp);
}

/**
 * rvt_qp_special_slot - the QP of one of the iterator's first slots
 * @rdi: the device
 * @slot: 0 to 2 * ports - 1, for each port's QP0 and QP1 (port by port)
 *
 * Context: within an RCU read-side critical section.
 * Return: the QP, or NULL if it does not exist.
 */
static struct rvt_qp *rvt_qp_special_slot(struct rvt_dev_info *rdi, int slot)
	__must_hold(RCU)
{
	return rcu_dereference(rdi->ports[slot / 2]->qp[slot % 2]);
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
static struct rvt_qp *rvt_qp_bucket_after(struct rvt_dev_info *rdi,
					  u32 bucket, u32 qpn)
	__must_hold(RCU)
{
	struct rvt_qp *qp;

	for (qp = rcu_dereference(rdi->qp_dev->qp_table[bucket]); qp;
	     qp = rcu_dereference(qp->next))
		if (qp->ibqp.qp_num > qpn)
			break;
	return qp;
}

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
 * and resumes by number (bucket chains are sorted, see above), so
 * each QP present for the whole walk is visited exactly once.
 */

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
	struct rvt_qp_ibdev *qp_dev = iter->rdi->qp_dev;
	u32 bucket;

	while (!qp && n < iter->specials) {
		qp = rvt_qp_special_slot(iter->rdi, n);
		if (!qp)
			n++;
	}
	if (!qp) {
		/*
		 * A table sized for max_qp is mostly empty buckets when few
		 * QPs are alive: skip them in a loop of its own.
		 */
		for (bucket = n - iter->specials;
		     bucket < qp_dev->qp_table_size; bucket++) {
			qp = rcu_dereference(qp_dev->qp_table[bucket]);
			if (qp)
				break;
		}
		n = iter->specials + bucket;
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
