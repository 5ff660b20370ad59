/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Receive rings' indices: the one place they are read and published.
 *
 * A receive ring (a QP's receive queue or an SRQ's) has rq->size slots,
 * a producer's index (head) and a consumer's index (tail). A kernel
 * ring's indices live in its struct rvt_krwq, and only the kernel writes
 * them. A user ring's live in the struct rvt_rwq the process maps: the
 * process writes head, and it can write anything into either index at
 * any time.
 *
 * The policy, the same for every reader: both indices are read once, and
 * if either is out of range the ring counts as empty. No slot is selected
 * from it, no entry is consumed, flushed or counted, and nothing is
 * written back into it, until the process puts valid indices back. So a
 * process that scribbles on its ring only harms its own QPs: their
 * incoming messages meet an empty queue (an RC requester gets RNR NAKs, a
 * datagram is dropped), an error flush completes nothing, an RC ACK
 * advertises no credits, and an SRQ resize is refused.
 *
 * Ordering: a producer writes an entry, then publishes head with a
 * release store; rvt_rq_load() reads head with an acquire load. A
 * consumer reads its entry completely, then publishes tail with a
 * release store (rvt_rq_store_tail()), which the producer's acquire of
 * tail pairs with, so an entry is never overwritten while it is read.
 *
 * Only inline functions: rc.c includes this, and the types its exports'
 * CRCs see must not change (Documentation/abi.rst).
 */
#ifndef RVT_RQ_H
#define RVT_RQ_H

#include <rdma/rdmavt_qp.h>

/**
 * rvt_rq_load - read a receive ring's indices
 * @rq: the ring
 * @user: the ring is mapped by a process (qp->ip or srq->ip is set)
 * @head: set to the producer's index
 * @tail: set to the consumer's index
 *
 * Context: any. Acting on the result needs the ring's kwq->c_lock, which
 * keeps tail from moving (the process only moves it by breaking the ring).
 * Return: true if both indices are in range. False if the process has put
 * one out of range: then the ring counts as empty, and @head and @tail
 * are both 0 for callers that only count.
 */
static inline bool __must_check rvt_rq_load(const struct rvt_rq *rq,
					    bool user, u32 *head, u32 *tail)
{
	if (user) {
		/* Acquire: pairs with the process's release of head. */
		*head = RDMA_READ_UAPI_ATOMIC(rq->wq->head);
		*tail = RDMA_READ_UAPI_ATOMIC(rq->wq->tail);
	} else {
		/* Pairs with the producer's release of head. */
		*head = smp_load_acquire(&rq->kwq->head);
		*tail = READ_ONCE(rq->kwq->tail);
	}
	if (likely(*head < rq->size && *tail < rq->size))
		return true;
	*head = 0;
	*tail = 0;
	return false;
}

/**
 * rvt_rq_store_tail - hand consumed entries back to the producer
 * @rq: the ring
 * @user: the ring is mapped by a process
 * @tail: the new consumer index, from rvt_rq_load() and rvt_rq_next()
 *
 * Context: kwq->c_lock held.
 */
static inline void rvt_rq_store_tail(struct rvt_rq *rq, bool user, u32 tail)
{
	if (user)
		RDMA_WRITE_UAPI_ATOMIC(rq->wq->tail, tail);
	else /* pairs with the producer's acquire of tail */
		smp_store_release(&rq->kwq->tail, tail);
}

/**
 * rvt_rq_next - the slot after @index, wrapping at the ring's end
 * @rq: the ring
 * @index: an index in range
 *
 * Context: any.
 * Return: the next index.
 */
static inline u32 rvt_rq_next(const struct rvt_rq *rq, u32 index)
{
	return index + 1 >= rq->size ? 0 : index + 1;
}

#endif /* RVT_RQ_H */
