// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Receive queues: the ring of receive work requests of a QP (or an SRQ).
 *
 * A kernel QP's ring lives in its struct rvt_krwq, after the indices. A
 * user QP's ring is a struct rvt_rwq in vmalloc_user() memory that the
 * process maps and posts to directly (rdma-core's ipathverbs/hfi1verbs);
 * its rvt_krwq then only holds the locks, with curr_wq pointing into the
 * user ring. Entries are variable-sized (rvt_get_rwqe_ptr()).
 *
 * The producer (post_recv, or the user process) writes an entry, then
 * publishes head with a release store; the consumer (the receive path,
 * rvt_get_rwqe(), or a flush) reads head with an acquire load and owns
 * tail. kwq->p_lock serialises kernel producers, kwq->c_lock consumers.
 * Indices read from a user ring are checked before use: the process can
 * write anything there.
 */
#include <linux/overflow.h>
#include <linux/vmalloc.h>
#include "qp_parts.h"
#include "rq.h"
#include "mmap.h"

/**
 * rvt_rwqe_size - bytes per receive queue entry
 * @max_sge: scatter/gather entries per request
 *
 * Context: any.
 * Return: the entry stride, as rvt_get_rwqe_ptr() and the user library
 * compute it.
 */
u32 rvt_rwqe_size(u8 max_sge)
{
	/* rvt_get_rwqe_ptr() strides by ib_sge, the ring holds rvt_wqe_sge */
	BUILD_BUG_ON(sizeof(struct ib_sge) != sizeof(struct rvt_wqe_sge));
	return struct_size_t(struct rvt_rwqe, sg_list, max_sge);
}

/**
 * rvt_alloc_rq - allocate a receive queue's ring
 * @rq: the queue; size and max_sge are set here
 * @entries: ring entries (one more than the requests it can hold)
 * @max_sge: scatter/gather entries per request
 * @node: NUMA node for kernel memory
 * @udata: non-NULL for a user QP or SRQ, whose ring is mapped by the
 *	   process
 *
 * Context: process context.
 * Return: 0, or -ENOMEM; on failure nothing is left allocated.
 */
int rvt_alloc_rq(struct rvt_rq *rq, u32 entries, u8 max_sge, int node,
		 struct ib_udata *udata)
{
	size_t ring = array_size(entries, rvt_rwqe_size(max_sge));

	rq->size = entries;
	rq->max_sge = max_sge;
	spin_lock_init(&rq->lock);
	if (udata) {
		rq->wq = vmalloc_user(size_add(sizeof(struct rvt_rwq), ring));
		rq->kwq = kzalloc_node(sizeof(*rq->kwq), GFP_KERNEL, node);
		if (!rq->wq || !rq->kwq)
			goto fail;
		rq->kwq->curr_wq = rq->wq->wq;
	} else {
		rq->kwq = kvzalloc_node(size_add(sizeof(struct rvt_krwq), ring),
					GFP_KERNEL, node);
		if (!rq->kwq)
			goto fail;
		rq->kwq->curr_wq = rq->kwq->wq;
	}
	spin_lock_init(&rq->kwq->p_lock);
	spin_lock_init(&rq->kwq->c_lock);
	return 0;

fail:
	rvt_free_rq(rq);
	return -ENOMEM;
}

/**
 * rvt_release_rq - free a receive ring, or leave a user ring to its mapping
 * @rq: the ring of a QP or SRQ that is going away
 * @ip: where the mmap descriptor of a user ring is (&qp->ip or &srq->ip);
 *	set to NULL. The process may still have the ring mapped: the
 *	descriptor owns the ring then and frees it after munmap().
 *
 * Context: process context.
 */
void rvt_release_rq(struct rvt_rq *rq, struct rvt_mmap_info **ip)
{
	if (*ip) {
		rvt_put_mmap_info(*ip);
		*ip = NULL;
		rq->wq = NULL;
	}
	rvt_free_rq(rq);
}

/**
 * rvt_flush_recv_wr - complete a receive request with a flush error
 * @qp: the QP
 * @wr_id: the request's ID
 *
 * Context: any; p_lock or c_lock held.
 */
static void rvt_flush_recv_wr(struct rvt_qp *qp, u64 wr_id)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};

	if (qp->ibqp.recv_cq)
		rvt_cq_enter(ibcq_to_rvtcq(qp->ibqp.recv_cq), &wc, true);
}

/**
 * rvt_rq_produce - queue one receive request on a kernel ring
 * @rq: the ring, of a kernel QP or SRQ
 * @wr: the request, with at most rq->max_sge SGEs
 *
 * Context: any; p_lock held.
 * Return: 0, or -ENOMEM if the ring is full.
 */
static int rvt_rq_produce(struct rvt_rq *rq, const struct ib_recv_wr *wr)
{
	struct rvt_krwq *kwq = rq->kwq;
	u32 next = rvt_rq_next(rq, kwq->head);
	struct rvt_rwqe *wqe;
	int i;

	lockdep_assert_held(&kwq->p_lock);
	/* Pairs with the consumer's release of tail: it is done reading. */
	if (next == smp_load_acquire(&kwq->tail))
		return -ENOMEM;
	wqe = rvt_get_rwqe_ptr(rq, kwq->head);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sg_list[i].addr = wr->sg_list[i].addr;
		wqe->sg_list[i].length = wr->sg_list[i].length;
		wqe->sg_list[i].lkey = wr->sg_list[i].lkey;
	}
	/* The entry before the index that hands it to the consumer. */
	smp_store_release(&kwq->head, next);
	return 0;
}

/**
 * rvt_rq_post_one - queue one receive request on a kernel ring
 * @rq: the ring, of a kernel QP or SRQ
 * @qp: the QP whose own ring it is, or NULL for an SRQ's
 * @wr: the request
 *
 * A QP in the ERR state completes the request at once with a flush error
 * instead.
 *
 * Context: any; takes p_lock with interrupts saved.
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM if the ring is full.
 */
static int rvt_rq_post_one(struct rvt_rq *rq, struct rvt_qp *qp,
			   const struct ib_recv_wr *wr)
{
	unsigned long flags;
	int ret = 0;

	/* Malformed requests are refused in every state, ERR included. */
	if (wr->num_sge < 0 || wr->num_sge > rq->max_sge)
		return -EINVAL;
	spin_lock_irqsave(&rq->kwq->p_lock, flags);
	/* Re-read under p_lock: see rvt_flush_rq(). */
	if (qp && (ib_rvt_state_ops[READ_ONCE(qp->state)] & RVT_FLUSH_RECV))
		rvt_flush_recv_wr(qp, wr->wr_id);
	else
		ret = rvt_rq_produce(rq, wr);
	spin_unlock_irqrestore(&rq->kwq->p_lock, flags);
	return ret;
}

/**
 * rvt_rq_post_list - queue a list of receive requests on a kernel ring
 * @rq: the ring, of a kernel QP or SRQ
 * @qp: the QP whose own ring it is (see rvt_rq_post_one()), or NULL
 * @wr: the first request of the list
 * @bad_wr: set to the first request not queued, on error
 *
 * Context: any; takes p_lock with interrupts saved.
 * Return: 0, or the error of the first request not queued; the requests
 * before it are queued.
 */
int rvt_rq_post_list(struct rvt_rq *rq, struct rvt_qp *qp,
		     const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	int ret;

	for (; wr; wr = wr->next) {
		ret = rvt_rq_post_one(rq, qp, wr);
		if (ret) {
			*bad_wr = wr;
			return ret;
		}
	}
	return 0;
}

/**
 * rvt_post_recv - post receive work requests on a kernel QP
 * @ibqp: the QP, which has its own receive queue
 * @wr: the first request of a list
 * @bad_wr: set to the first request not posted, on error
 *
 * In the ERR state each request is completed at once with
 * IB_WC_WR_FLUSH_ERR instead of being queued. User QPs post on their
 * mapped ring and are refused here.
 *
 * Context: any, including interrupt context.
 * Return: 0; -EINVAL if the QP is in RESET, has no receive queue of its
 * own, belongs to a process, or a request has too many SGEs; -ENOMEM if
 * the queue is full.
 */
int rvt_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);

	if (!(ib_rvt_state_ops[READ_ONCE(qp->state)] & RVT_POST_RECV_OK) ||
	    !qp->r_rq.kwq || qp->ip) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return rvt_rq_post_list(&qp->r_rq, qp, wr, bad_wr);
}

/**
 * rvt_drain_rq - consume every request posted on a QP's receive ring
 * @qp: the QP
 * @complete: complete each with a flush error, else drop them silently
 *
 * p_lock keeps kernel producers out meanwhile: a producer either finished
 * before (its request is drained here) or sees the QP's new state after
 * and deals with the request itself. A user ring with an index out of
 * range counts as empty (rq.h): nothing is drained from it.
 *
 * Context: r_lock held, interrupts disabled; takes c_lock and p_lock.
 */
static void rvt_drain_rq(struct rvt_qp *qp, bool complete)
{
	struct rvt_rq *rq = &qp->r_rq;
	u32 head, tail;

	if (!rq->kwq)
		return;
	spin_lock(&rq->kwq->c_lock);
	spin_lock(&rq->kwq->p_lock);
	if (rvt_rq_load(rq, qp->ip, &head, &tail)) {
		for (; complete && tail != head; tail = rvt_rq_next(rq, tail))
			rvt_flush_recv_wr(qp, rvt_get_rwqe_ptr(rq, tail)->wr_id);
		rvt_rq_store_tail(rq, qp->ip, head);
	}
	spin_unlock(&rq->kwq->p_lock);
	spin_unlock(&rq->kwq->c_lock);
}

/**
 * rvt_flush_rq - complete every posted receive with IB_WC_WR_FLUSH_ERR
 * @qp: a QP that has just entered ERR, with its own receive queue
 *
 * Context: r_lock held, interrupts disabled.
 */
void rvt_flush_rq(struct rvt_qp *qp)
{
	lockdep_assert_held(&qp->r_lock);
	rvt_drain_rq(qp, true);
}

/**
 * rvt_discard_rq - drop every posted receive without completions
 * @qp: a QP being reset
 *
 * Context: r_lock held, interrupts disabled.
 */
void rvt_discard_rq(struct rvt_qp *qp)
{
	lockdep_assert_held(&qp->r_lock);
	rvt_drain_rq(qp, false);
}
