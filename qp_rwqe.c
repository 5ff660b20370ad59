// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The receive side's consumer: taking the next receive work request off
 * a QP's receive queue or its SRQ for an incoming message, and copying
 * the message's data into the memory it describes.
 *
 * The ring's layout and its producer side are described in qp_recv.c
 * (QPs) and srq.c (SRQs). Consumers of one ring are serialised by its
 * kwq->c_lock; the entry is read completely before the new tail is
 * published with a release store, so a producer never overwrites an entry
 * still being read. A user ring is the process's memory: every index and
 * every field read from it may be anything, at any time, so each is read
 * once and checked before use; the indices through rq.h, which treats a
 * ring with one out of range as empty.
 */
#include "qp_exports.h"
#include <linux/overflow.h>
#include "srq.h"
#include "rq.h"
#include "wss.h"

/**
 * struct rvt_rwqe_source - where a QP's receive requests come from
 * @rq: the ring: the QP's own receive queue or its SRQ's
 * @srq: the SRQ, or NULL
 * @pd: the PD the requests' SGEs must belong to
 * @user: the ring is mapped by a process, indices live in rq->wq
 */
struct rvt_rwqe_source {
	struct rvt_rq *rq;
	struct rvt_srq *srq;
	struct ib_pd *pd;
	bool user;
};

static void rvt_rwqe_source(struct rvt_qp *qp, struct rvt_rwqe_source *src)
{
	if (qp->ibqp.srq) {
		src->srq = ibsrq_to_rvtsrq(qp->ibqp.srq);
		src->rq = &src->srq->rq;
		src->pd = qp->ibqp.srq->pd;
		src->user = !!src->srq->ip;
	} else {
		src->srq = NULL;
		src->rq = &qp->r_rq;
		src->pd = qp->ibqp.pd;
		src->user = !!qp->ip;
	}
}

/* Complete a receive request the QP cannot use, without consuming data. */
static void rvt_fail_rwqe(struct rvt_qp *qp, u64 wr_id,
			  enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};

	rvt_cq_enter(ibcq_to_rvtcq(qp->ibqp.recv_cq), &wc, true);
}

/**
 * rvt_rwqe_map_sges - validate a receive request's SGEs into qp->r_sge
 * @qp: the receiving QP
 * @src: where the request comes from
 * @wqe: the request, possibly in a process's ring
 *
 * Each field of the entry is read exactly once. Zero-length SGEs are
 * skipped.
 *
 * Context: c_lock of the ring held.
 * Return: IB_WC_SUCCESS with r_sge, r_len set and a reference held on
 * each SGE's region; else the completion status for the request, with no
 * reference held: IB_WC_LOC_QP_OP_ERR for more SGEs than the ring allows
 * or a total length beyond 4 GiB, IB_WC_LOC_PROT_ERR for an SGE outside a
 * writable region of the PD.
 */
static enum ib_wc_status rvt_rwqe_map_sges(struct rvt_qp *qp,
					   const struct rvt_rwqe_source *src,
					   struct rvt_rwqe *wqe)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_sge_state *ss = &qp->r_sge;
	u8 num_sge = READ_ONCE(wqe->num_sge);
	enum ib_wc_status status = IB_WC_LOC_QP_OP_ERR;
	u32 n = 0, len = 0, i;

	if (num_sge > src->rq->max_sge)
		goto fail;
	ss->sg_list = qp->r_sg_list;
	for (i = 0; i < num_sge; i++) {
		struct ib_sge sge = {
			.addr = READ_ONCE(wqe->sg_list[i].addr),
			.length = READ_ONCE(wqe->sg_list[i].length),
			.lkey = READ_ONCE(wqe->sg_list[i].lkey),
		};
		struct rvt_sge *slot = n ? &ss->sg_list[n - 1] : &ss->sge;

		if (!sge.length)
			continue;
		if (check_add_overflow(len, sge.length, &len))
			goto fail;
		if (rvt_lkey_ok(&rdi->lkey_table, ibpd_to_rvtpd(src->pd), slot,
				NULL, &sge, IB_ACCESS_LOCAL_WRITE) <= 0) {
			status = IB_WC_LOC_PROT_ERR;
			goto fail;
		}
		n++;
	}
	ss->num_sge = n;
	ss->total_len = len;
	qp->r_len = len;
	return IB_WC_SUCCESS;

fail:
	while (n) {
		n--;
		rvt_put_mr(n ? ss->sg_list[n - 1].mr : ss->sge.mr);
	}
	ss->num_sge = 0;
	return status;
}

/*
 * An SRQ armed with a limit fires once its posted requests fall below the
 * limit, and is disarmed until the consumer arms it again. Return: true
 * if the event is due.
 */
static bool rvt_srq_limit_hit(const struct rvt_rwqe_source *src, u32 tail)
{
	struct rvt_srq *srq = src->srq;
	u32 head, ignored;

	if (!srq || !srq->limit)
		return false;
	if (!rvt_rq_load(src->rq, src->user, &head, &ignored))
		return false;
	if (rvt_get_rq_count(src->rq, head, tail) >= srq->limit)
		return false;
	srq->limit = 0;
	return true;
}

/**
 * rvt_get_rwqe - take the next receive request for an incoming message
 * @qp: the receiving QP, in a state that processes receives
 * @wr_id_only: take only the request's ID (an RDMA WRITE with immediate
 *		data consumes a request but no buffer); leave r_sge alone
 *
 * The request comes from the QP's receive queue or its SRQ. Its SGEs are
 * checked against the PD of that queue (its owner's PD for the QP's own
 * queue) and become qp->r_sge; the request is consumed either way. A
 * request the QP cannot use is completed at once on the receive CQ with
 * IB_WC_LOC_PROT_ERR (an SGE outside a local-write region) or
 * IB_WC_LOC_QP_OP_ERR (more SGEs than allowed). On success
 * RVT_R_WRID_VALID is set in qp->r_aflags and qp->r_wr_id holds the ID.
 * Taking a request that leaves an armed SRQ below its limit disarms it
 * and delivers IB_EVENT_SRQ_LIMIT_REACHED.
 *
 * Context: any, including interrupt context; qp->r_lock held. Takes the
 * ring's c_lock; the SRQ event handler runs without it.
 * Return: 1 on success, 0 if no request is posted (or the QP does not
 * process receives), -1 if the request was unusable.
 */
int rvt_get_rwqe(struct rvt_qp *qp, bool wr_id_only)
{
	enum ib_wc_status status = IB_WC_SUCCESS;
	struct rvt_rwqe_source src;
	struct rvt_rwqe *wqe;
	unsigned long flags;
	bool limit_hit;
	u32 head, tail;
	u64 wr_id;

	rvt_rwqe_source(qp, &src);
	spin_lock_irqsave(&src.rq->kwq->c_lock, flags);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK) ||
	    !rvt_rq_load(src.rq, src.user, &head, &tail) || head == tail) {
		spin_unlock_irqrestore(&src.rq->kwq->c_lock, flags);
		return 0;
	}
	wqe = rvt_get_rwqe_ptr(src.rq, tail);
	wr_id = READ_ONCE(wqe->wr_id);
	if (!wr_id_only)
		status = rvt_rwqe_map_sges(qp, &src, wqe);
	/* Done with the entry: the producer may reuse it. */
	tail = rvt_rq_next(src.rq, tail);
	rvt_rq_store_tail(src.rq, src.user, tail);
	if (status == IB_WC_SUCCESS) {
		qp->r_wr_id = wr_id;
		set_bit(RVT_R_WRID_VALID, &qp->r_aflags);
	}
	limit_hit = rvt_srq_limit_hit(&src, tail);
	spin_unlock_irqrestore(&src.rq->kwq->c_lock, flags);

	if (limit_hit)
		rvt_srq_event(src.srq, IB_EVENT_SRQ_LIMIT_REACHED);
	if (status != IB_WC_SUCCESS) {
		rvt_fail_rwqe(qp, wr_id, status);
		return -1;
	}
	return 1;
}
EXPORT_SYMBOL(rvt_get_rwqe);

/*
 * Copying a message's data into the memory an SGE state describes: the
 * receive buffers of an incoming SEND, the region of an RDMA WRITE, the
 * requester's buffers of an RDMA READ response.
 *
 * dparms.sge_copy_mode lets a driver ask for non-temporal copies of large
 * transfers (RVT_SGE_COPY_CACHELESS, or RVT_SGE_COPY_ADAPTIVE once the
 * working set outgrows the cache): wss.c decides, copy by copy.
 */

/* The bytes a process may poll on to see a message has arrived. */
#define RVT_COPY_LAST_BYTES 8

/* How rvt_copy_to_sges() stores the data. */
enum rvt_copy_how {
	RVT_COPY_CACHED,	/* memcpy() */
	RVT_COPY_AROUND_CACHE,	/* non-temporal stores */
	RVT_COPY_IN_ORDER,	/* a byte at a time, in address order */
};

/* Copy one byte at a time, in address order, each store on its own. */
static void rvt_copy_in_order(void *dst, const void *src, u32 len)
{
	u8 *d = dst;
	const u8 *s = src;
	u32 i;

	for (i = 0; i < len; i++)
		WRITE_ONCE(d[i], s[i]);
}

/* Copy @length bytes into @ss; return the first byte of @data not copied. */
static const void *rvt_copy_to_sges(struct rvt_sge_state *ss,
				    const void *data, u32 length,
				    bool release, enum rvt_copy_how how)
{
	while (length) {
		u32 len = rvt_get_sge_length(&ss->sge, length);

		/* Callers never copy more than the SGEs hold. */
		if (WARN_ON_ONCE(!len))
			break;
		if (how == RVT_COPY_IN_ORDER)
			rvt_copy_in_order(ss->sge.vaddr, data, len);
		else if (how == RVT_COPY_AROUND_CACHE)
			rvt_copy_nontemporal(ss->sge.vaddr, data, len);
		else
			memcpy(ss->sge.vaddr, data, len);
		rvt_update_sge(ss, len, release);
		data += len;
		length -= len;
	}
	return data;
}

/*
 * Whether a copy of @length bytes goes through the cache without asking
 * wss.c: always in the memcpy mode, below a page in the cacheless one.
 * The adaptive mode counts every copy in its working set, so it is asked.
 */
static bool rvt_copy_is_cached(const struct rvt_dev_info *rdi, u32 length)
{
	switch (rdi->dparms.sge_copy_mode) {
	case RVT_SGE_COPY_MEMCPY:
		return true;
	case RVT_SGE_COPY_CACHELESS:
		return length < PAGE_SIZE;
	default:
		return false;
	}
}

/**
 * rvt_copy_sge - copy data into the memory of an SGE state
 * @qp: the QP the data arrived on (its device's copy mode applies)
 * @ss: the SGE state, advanced past the data
 * @data: the data
 * @length: its length; @ss must describe at least that much memory
 * @release: drop the reference on each SGE's region once it is filled
 * @copy_last: write the last 8 bytes after all the others, one byte at a
 *	       time in address order, for processes that poll on the end of
 *	       a buffer to learn that an RDMA WRITE has landed
 *
 * Context: any; the caller holds what keeps @ss stable (the receiving
 * QP's r_lock, or the requester's send engine).
 */
void rvt_copy_sge(struct rvt_qp *qp, struct rvt_sge_state *ss,
		  void *data, u32 length, bool release, bool copy_last)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	u32 last = copy_last ? min_t(u32, length, RVT_COPY_LAST_BYTES) : 0;
	enum rvt_copy_how how = RVT_COPY_CACHED;
	const void *rest;

	/* Most copies: through the cache, all of it into the SGE in hand. */
	if (!last && length && rvt_copy_is_cached(rdi, length) &&
	    rvt_get_sge_length(&ss->sge, length) == length) {
		memcpy(ss->sge.vaddr, data, length);
		rvt_update_sge(ss, length, release);
		return;
	}
	if (rvt_copy_cacheless(rdi, ss->sge.vaddr, length))
		how = RVT_COPY_AROUND_CACHE;
	rest = rvt_copy_to_sges(ss, data, length - last, release, how);
	if (!last)
		return;
	/* Everything before the last bytes is visible once they are. */
	if (how == RVT_COPY_AROUND_CACHE)
		wmb();	/* smp_wmb() does not order non-temporal stores */
	else
		smp_wmb();	/* pairs with the poller's read of the last bytes */
	rvt_copy_to_sges(ss, rest, last, release, RVT_COPY_IN_ORDER);
}
EXPORT_SYMBOL(rvt_copy_sge);
