// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
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
#include <linux/bitmap.h>
#include <linux/gfp.h>
#include "vt.h"
#include "qp.h"

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
int rvt_init_qpn_table(struct rvt_dev_info *rdi, struct rvt_qpn_table *qpt)
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

	ret = rvt_qpn_reserve(qpt, 0, RVT_QPN_FIRST_BITMAP - 1) ?:
	      rvt_qpn_reserve(qpt, dp->qpn_res_start, dp->qpn_res_end);
	if (ret)
		rvt_free_qpn_table(qpt);
	return ret;
}

/**
 * rvt_free_qpn_table - free the bitmap pages of a QP number table
 * @qpt: the table; pages a driver's alloc_qpn() installed are freed too
 *
 * Context: process context, once no QP of the device exists.
 */
void rvt_free_qpn_table(struct rvt_qpn_table *qpt)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(qpt->map); i++) {
		free_page((unsigned long)qpt->map[i].page);
		qpt->map[i].page = NULL;
	}
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
 * Return: 0 or 1 (the QPN), -EBUSY if the port has it already, -EINVAL
 * for a port beyond the 16 that the flags have room for.
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
		ret = -EBUSY;
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
 * Return: the QPN; -EBUSY if the port already has the QP0 or QP1 asked
 * for, -EINVAL if the port has no room for them, -ENOMEM if the space is
 * exhausted or a page cannot be allocated, or the driver's errno.
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
