/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Counting a device's objects against its limits (dparms.props.max_cq,
 * max_srq, max_mcast_grp): each count in struct rvt_dev_info has a
 * spinlock of its own, never taken from interrupt context. One of them
 * nests inside an interrupt-safe lock, the multicast group count inside
 * the port lock, so mcast.c uncounts a group with its own spin_lock_irq()
 * rather than rvt_count_put().
 *
 * Only inline functions: mcast.c includes this, and the types its
 * export's CRC sees must not change (Documentation/abi.rst).
 */
#ifndef RVT_COUNT_H
#define RVT_COUNT_H

#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * rvt_count_get - count one more object, unless the limit is reached
 * @lock: the spinlock guarding @count
 * @count: the device's count of such objects
 * @max: the limit, from dparms.props (never negative)
 *
 * Context: not interrupt context; takes @lock.
 * Return: true if counted, false if @max objects exist already.
 */
static inline bool rvt_count_get(spinlock_t *lock, u32 *count, int max)
{
	bool ok;

	spin_lock(lock);
	ok = *count < (u32)max;
	if (ok)
		(*count)++;
	spin_unlock(lock);
	return ok;
}

/**
 * rvt_count_put - uncount an object counted by rvt_count_get()
 * @lock: the spinlock guarding @count
 * @count: the device's count of such objects
 *
 * Context: not interrupt context; takes @lock.
 */
static inline void rvt_count_put(spinlock_t *lock, u32 *count)
{
	spin_lock(lock);
	(*count)--;
	spin_unlock(lock);
}

#endif /* RVT_COUNT_H */
