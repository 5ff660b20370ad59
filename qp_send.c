// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The send queue: posting work requests and completing them.
 *
 * The send queue is a ring of qp->s_size variable-sized entries, indexed
 * through rvt_get_swqe_ptr(). Posters fill the entry at s_head under
 * s_hlock; the driver's send engine (or rvt_ruc_loopback()) works on the
 * entries from s_cur on and completes them at s_last under s_lock. Each
 * side owns one index and only reads the other's:
 *
 * - s_head is written by the poster, with a release store once the entry
 *   is complete, and read by the engine with an acquire load.
 * - s_last is written by the completer with a release store once it is
 *   done with the entry (rvt_retire_swqe()), and read by the poster
 *   with an acquire load when its cached free count runs out.
 *
 * s_avail (s_hlock) is that cached count: the entries a poster may still
 * fill without looking at s_last. dparms.reserved_operations entries are
 * kept back for the driver's own operations (RVT_OPERATION_USE_RESERVE),
 * counted in s_reserved_used, so consumers can never take them.
 */
#include "qp_exports.h"
#include <linux/overflow.h>
#include "qp.h"
#include "trace_tx.h"

/* send_flags bits that rdmavt keeps for itself in a queued entry. */
#define RVT_SEND_INTERNAL_FLAGS (~(IB_SEND_RESERVED_START - 1))

/* Whether an operation writes into the requester's own buffers. */
static bool rvt_wr_writes_local(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
		return true;
	default:
		return false;
	}
}

/* The first SGE of an atomic receives the 8-byte original value. */
static bool rvt_atomic_sge_ok(const struct ib_send_wr *wr)
{
	return wr->num_sge >= 1 && wr->sg_list[0].length >= sizeof(u64) &&
	       IS_ALIGNED(wr->sg_list[0].addr, sizeof(u64));
}

/* Checks of a UD, SMI or GSI request's address handle. */
static int rvt_check_ud_wr(struct rvt_qp *qp, const struct ib_send_wr *wr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	if (!ud->ah || ud->ah->pd != qp->ibqp.pd)
		return -EINVAL;
	return sizeof(*ud);
}

/**
 * rvt_check_send_wr - check a work request against the driver's table
 * @qp: the QP it is posted on
 * @parms: rdi->post_parms, indexed by opcode
 * @wr: the request
 *
 * Context: s_hlock held.
 * Return: the number of bytes of @wr to copy into the send queue entry,
 * or -EINVAL for an opcode the driver does not support on this QP type,
 * a privileged opcode from a user PD, a malformed atomic, too many SGEs.
 */
static int rvt_check_send_wr(struct rvt_qp *qp,
			     const struct rvt_operation_params *parms,
			     const struct ib_send_wr *wr)
{
	const struct rvt_operation_params *op;

	if (wr->num_sge < 0 || wr->num_sge > qp->s_max_sge ||
	    wr->opcode >= RVT_OPERATION_MAX)
		return -EINVAL;
	op = &parms[wr->opcode];
	if (!op->length || !(op->qpt_support & BIT(qp->ibqp.qp_type)))
		return -EINVAL;
	if ((op->flags & RVT_OPERATION_PRIV) &&
	    ibpd_to_rvtpd(qp->ibqp.pd)->user)
		return -EINVAL;
	if ((op->flags & RVT_OPERATION_ATOMIC_SGE) && !rvt_atomic_sge_ok(wr))
		return -EINVAL;
	/* Reads and atomics need initiator resources negotiated for them. */
	if ((op->flags & RVT_OPERATION_ATOMIC) && !qp->s_max_rd_atomic)
		return -EINVAL;
	if (qp->allowed_ops == IB_OPCODE_UD)
		return rvt_check_ud_wr(qp, wr);
	/* A driver table asking for more would overwrite the entry's fields. */
	if (op->length > offsetof(struct rvt_swqe, psn))
		return -EINVAL;
	return op->length;
}

/**
 * rvt_sq_has_room - whether the send queue can take one more entry
 * @qp: the QP
 * @rdi: its device
 * @reserved_op: the entry is one of the driver's reserved operations
 *
 * Refreshes s_avail from s_last when the cached count is used up.
 *
 * Context: s_hlock held; s_last may move under us (it only grows room).
 * Return: true if there is room.
 */
static bool rvt_sq_has_room(struct rvt_qp *qp, struct rvt_dev_info *rdi,
			    bool reserved_op)
{
	u32 reserved = rdi->dparms.reserved_operations;
	u32 last, used, free, kept;

	/* Pairs with the barrier in rvt_qp_wqe_unreserve(). */
	smp_mb__before_atomic();
	if (unlikely(reserved_op))
		return atomic_read(&qp->s_reserved_used) < reserved;
	if (likely(qp->s_avail))
		return true;

	/* Pairs with the release in rvt_retire_swqe(). */
	last = smp_load_acquire(&qp->s_last);
	used = qp->s_head >= last ? qp->s_head - last :
				    qp->s_size - last + qp->s_head;
	free = qp->s_size - 1 - used;
	/* Reserved entries not in use stay out of the consumer's reach. */
	kept = reserved - min_t(u32, reserved,
				atomic_read(&qp->s_reserved_used));
	if (free <= kept)
		return false;
	qp->s_avail = free - kept;
	return true;
}

/* Drop the MR references taken for the first @n SGEs of @wqe. */
static void rvt_swqe_put_sges(struct rvt_swqe *wqe, u32 n)
{
	while (n)
		rvt_put_mr(wqe->sg_list[--n].mr);
}

/**
 * rvt_swqe_map_sges - validate a request's SGEs into its queue entry
 * @rdi: the device
 * @qp: the QP
 * @wqe: the entry, whose wr part is already copied
 * @wr: the request
 *
 * Zero-length SGEs are skipped; adjacent DMA SGEs are merged.
 *
 * Context: s_hlock held.
 * Return: 0 with wqe->wr.num_sge and wqe->length set and a reference held
 * for each SGE, or -EINVAL (no reference held) for an SGE outside a valid
 * region of the QP's PD or without the access it needs, or a total
 * length beyond 4 GiB.
 */
static int rvt_swqe_map_sges(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			     struct rvt_swqe *wqe, const struct ib_send_wr *wr)
{
	struct rvt_pd *pd = ibpd_to_rvtpd(qp->ibqp.pd);
	int acc = rvt_wr_writes_local(wr->opcode) ? IB_ACCESS_LOCAL_WRITE : 0;
	struct rvt_sge *last = NULL;
	u32 n = 0, total = 0;
	int i, ret;

	for (i = 0; i < wr->num_sge; i++) {
		struct ib_sge *sge = &wr->sg_list[i];

		if (!sge->length)
			continue;
		if (check_add_overflow(total, sge->length, &total))
			goto fail;
		ret = rvt_lkey_ok(&rdi->lkey_table, pd, &wqe->sg_list[n], last,
				  sge, acc);
		if (ret < 0)
			goto fail;
		if (ret) {
			last = &wqe->sg_list[n];
			n++;
		}
	}
	wqe->wr.num_sge = n;
	wqe->length = total;
	return 0;

fail:
	rvt_swqe_put_sges(wqe, n);
	return -EINVAL;
}

/*
 * How a local operation (REG_MR, LOCAL_INV) is carried out. Registration
 * happens at once: the requests posted after it may use the new key, and
 * their keys are checked when they are posted. An invalidation waits in
 * the queue behind a fence or an earlier waiting invalidation; otherwise
 * it happens at once too. Either way the queue only carries an entry if
 * the consumer wants a completion (or the invalidation still has to run).
 */
struct rvt_local_op {
	bool queue;
	bool deferred;
};

static int rvt_plan_local_op(struct rvt_qp *qp, const struct ib_send_wr *wr,
			     struct rvt_local_op *plan)
{
	bool signaled = !(qp->s_flags & RVT_S_SIGNAL_REQ_WR) ||
			(wr->send_flags & IB_SEND_SIGNALED);

	/* Fast-registration MRs belong to kernel consumers only. */
	if (rvt_is_user_qp(qp))
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_REG_MR:
		if (!reg_wr(wr)->mr)
			return -EINVAL;
		plan->deferred = false;
		break;
	case IB_WR_LOCAL_INV:
		plan->deferred = (wr->send_flags & IB_SEND_FENCE) ||
				 atomic_read(&qp->local_ops_pending);
		break;
	default:
		return -EINVAL;
	}
	plan->queue = plan->deferred || signaled;
	return 0;
}

static int rvt_do_local_op(struct rvt_qp *qp, const struct ib_send_wr *wr)
{
	if (wr->opcode == IB_WR_REG_MR)
		return rvt_fast_reg_mr(qp, reg_wr(wr)->mr, reg_wr(wr)->key,
				       reg_wr(wr)->access);
	return rvt_invalidate_rkey(qp, wr->ex.invalidate_rkey);
}

/* Sequence numbers of a new entry; s_ssn and s_next_psn move on later. */
static void rvt_swqe_set_psns(struct rvt_qp *qp, struct rvt_swqe *wqe,
			      bool local)
{
	u8 log_pmtu = qp->log_pmtu;

	if (local) {
		wqe->ssn = 0;
		wqe->psn = 0;
		wqe->lpsn = 0;
		return;
	}
	if (qp->allowed_ops == IB_OPCODE_UD)
		log_pmtu = rvt_get_swqe_ah(wqe)->log_pmtu;
	wqe->ssn = qp->s_ssn;
	wqe->psn = qp->s_next_psn;
	wqe->lpsn = wqe->psn +
		    (wqe->length ? (wqe->length - 1) >> log_pmtu : 0);
}

/*
 * Fill the entry at s_head from @wr: the request itself (its sg_list and
 * next pointers are not to be used later), its checked SGEs, a copy of a
 * datagram's address vector (the AH may go before the send completes),
 * its sequence numbers. Undone completely on failure.
 */
static int rvt_fill_swqe(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			 struct rvt_swqe *wqe, const struct ib_send_wr *wr,
			 size_t cplen, bool local, bool *call_send)
{
	int ret;

	memcpy(&wqe->ud_wr, wr, cplen);
	wqe->wr.next = NULL;
	wqe->wr.sg_list = NULL;
	wqe->wr.send_flags &= ~RVT_SEND_INTERNAL_FLAGS;
	ret = rvt_swqe_map_sges(rdi, qp, wqe, wr);
	if (ret)
		return ret;
	if (qp->allowed_ops == IB_OPCODE_UD)
		rdma_copy_ah_attr(wqe->ud_wr.attr,
				  &ibah_to_rvtah(ud_wr(wr)->ah)->attr);
	rvt_swqe_set_psns(qp, wqe, local);

	/* The entry is complete: the driver may check and adjust it. */
	if (rdi->driver_f.setup_wqe) {
		ret = rdi->driver_f.setup_wqe(qp, wqe, call_send);
		if (ret < 0) {
			rvt_put_qp_swqe(qp, wqe);
			return ret;
		}
	}
	return 0;
}

/*
 * Count a filled entry as used and hand it to the send engine. The
 * rvt_post_one_wr event records it in between, as upstream's does.
 */
static void rvt_push_swqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			  const struct rvt_local_op *plan, bool local,
			  bool reserved_op, int wr_num_sge)
{
	if (local) {
		if (plan->deferred)
			atomic_inc(&qp->local_ops_pending);
		else
			wqe->wr.send_flags |= RVT_SEND_COMPLETION_ONLY;
	} else {
		qp->s_ssn++;
		qp->s_next_psn = wqe->lpsn + 1;
	}
	if (unlikely(reserved_op)) {
		wqe->wr.send_flags |= RVT_SEND_RESERVE_USED;
		rvt_qp_wqe_reserve(qp, wqe);
	} else {
		qp->s_avail--;
	}
	trace_rvt_post_one_wr(qp, wqe, wr_num_sge);
	/* The entry before the index that hands it to the send engine. */
	smp_store_release(&qp->s_head, rvt_qp_swqe_incr(qp, qp->s_head));
}

/**
 * rvt_post_one_wr - post one send work request
 * @qp: the QP
 * @wr: the request
 * @call_send: cleared by the driver's setup_wqe() if the request must not
 *	       be sent from the poster's context
 *
 * Context: s_hlock held, interrupts disabled.
 * Return: 1 if an entry was queued, 0 if the request was carried out
 * without one (an unsignaled local operation), or a negative errno with
 * nothing changed but for a local operation's own effect.
 */
static int rvt_post_one_wr(struct rvt_qp *qp, const struct ib_send_wr *wr,
			   bool *call_send)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	const struct rvt_operation_params *op;
	struct rvt_local_op plan = { .queue = true };
	bool local, reserved_op;
	struct rvt_swqe *wqe;
	int ret;

	ret = rvt_check_send_wr(qp, rdi->post_parms, wr);
	if (ret < 0)
		return ret;
	op = &rdi->post_parms[wr->opcode];
	local = op->flags & RVT_OPERATION_LOCAL;
	reserved_op = op->flags & RVT_OPERATION_USE_RESERVE;
	if (local) {
		int err = rvt_plan_local_op(qp, wr, &plan);

		if (err)
			return err;
	}
	if (plan.queue && !rvt_sq_has_room(qp, rdi, reserved_op))
		return -ENOMEM;
	if (local && !plan.deferred) {
		int err = rvt_do_local_op(qp, wr);

		if (err || !plan.queue)
			return err;
	}

	wqe = rvt_get_swqe_ptr(qp, qp->s_head);
	ret = rvt_fill_swqe(rdi, qp, wqe, wr, ret, local, call_send);
	if (ret)
		return ret;
	rvt_push_swqe(qp, wqe, &plan, local, reserved_op, wr->num_sge);
	return 1;
}

/**
 * rvt_post_send - post send work requests (ib_device_ops.post_send)
 * @ibqp: the QP
 * @wr: the first request of a list
 * @bad_wr: set to the first request not posted, on error
 *
 * Each request is checked against the driver's rdi->post_parms for the
 * QP's type, its SGEs against the QP's PD (rvt_lkey_ok()); it is copied
 * into the send queue and the SGEs' regions are held until it completes.
 * IB_SEND_INLINE is not supported as such (max_inline_data is 0): an
 * inline request's SGEs are checked like any other's. Fast registrations
 * and invalidations (kernel QPs only) take effect at once unless fenced
 * behind an earlier invalidation; they take a queue entry only for their
 * completion. Requests may be posted in RTS, SQD, SQE and ERR; in the
 * error states the send engine completes them with IB_WC_WR_FLUSH_ERR.
 *
 * When this posted exactly one request on an idle send queue, and the
 * driver's setup_wqe() allows it, the driver's do_send() runs it from
 * here; otherwise the driver's schedule_send_no_lock() is asked to.
 *
 * Context: any, including interrupt context; takes s_hlock.
 * Return: 0 (also for an empty list, @wr NULL); -EINVAL for a QP in
 * RESET, INIT or RTR, or a request the QP cannot take (see above);
 * -ENOMEM if the send queue is full; or the driver's errno. The requests
 * before *@bad_wr are posted.
 */
int rvt_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	unsigned long flags;
	unsigned int queued = 0;
	bool call_send;
	int ret = 0;

	spin_lock_irqsave(&qp->s_hlock, flags);
	/* The state changes only with s_hlock (among others) held. */
	if (unlikely(!(ib_rvt_state_ops[qp->state] & RVT_POST_SEND_OK))) {
		spin_unlock_irqrestore(&qp->s_hlock, flags);
		*bad_wr = wr;
		return -EINVAL;
	}
	/*
	 * A POST_SEND of no request reaches us as wr == NULL (uverbs passes
	 * an empty list on): nothing to post, and nothing to dereference.
	 */
	call_send = wr && !wr->next && qp->s_head == READ_ONCE(qp->s_last);
	for (; wr; wr = wr->next) {
		ret = rvt_post_one_wr(qp, wr, &call_send);
		if (ret < 0) {
			*bad_wr = wr;
			break;
		}
		queued += ret;
	}
	spin_unlock_irqrestore(&qp->s_hlock, flags);

	if (queued == 1 && call_send)
		rdi->driver_f.do_send(qp);
	else if (queued)
		rdi->driver_f.schedule_send_no_lock(qp);
	return ret < 0 ? ret : 0;
}

/* Queue a send completion; false if the send CQ had no room. */
static bool rvt_queue_send_wc(struct rvt_qp *qp, u64 wr_id, u32 byte_len,
			      enum ib_wc_opcode opcode,
			      enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp = &qp->ibqp,
	};

	return rvt_cq_enter(ibcq_to_rvtcq(qp->ibqp.send_cq), &wc,
			    status != IB_WC_SUCCESS);
}

/*
 * Free the entry at s_last for posters and queue its completion, if one is
 * due (IBTA 10.7.3.1: every error, and the successes the consumer asked
 * for). The header's rvt_qp_complete_swqe() does the same for drivers but
 * moves the QP to ERR itself when the CQ is full, which needs r_lock; here
 * the caller decides. The completion is only built when it is due: most
 * requests of a streaming consumer are unsignaled. Return: false if the
 * send CQ had no room.
 */
static __always_inline bool
rvt_retire_swqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
		enum ib_wc_opcode opcode, enum ib_wc_status status, u32 *last)
{
	int flags = wqe->wr.send_flags;
	bool signal = !(flags & RVT_SEND_RESERVE_USED) &&
		      (!(qp->s_flags & RVT_S_SIGNAL_REQ_WR) ||
		       (flags & IB_SEND_SIGNALED) || status != IB_WC_SUCCESS);
	u64 wr_id = wqe->wr.wr_id;
	u32 byte_len = wqe->length;

	rvt_qp_wqe_unreserve(qp, flags);
	rvt_put_qp_swqe(qp, wqe);
	*last = rvt_qp_swqe_incr(qp, qp->s_last);
	/* The entry is the posters' from here on: read it all above. */
	smp_store_release(&qp->s_last, *last);
	return !signal ||
	       rvt_queue_send_wc(qp, wr_id, byte_len, opcode, status);
}

/*
 * The body of rvt_send_complete() and rvt_send_complete_cq(), inlined into
 * both: one is the send engines' path for every request.
 */
static __always_inline bool rvt_send_complete_one(struct rvt_qp *qp,
						  struct rvt_swqe *wqe,
						  enum ib_wc_status status)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	u32 old_last, last;
	bool queued;

	lockdep_assert_held(&qp->s_lock);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND))
		return true;
	old_last = qp->s_last;
	trace_rvt_qp_send_completion(qp, wqe, old_last);
	queued = rvt_retire_swqe(qp, wqe, rdi->wc_opcode[wqe->wr.opcode],
				 status, &last);
	if (qp->s_acked == old_last)
		qp->s_acked = last;
	if (qp->s_cur == old_last)
		qp->s_cur = last;
	if (qp->s_tail == old_last)
		qp->s_tail = last;
	if (qp->state == IB_QPS_SQD && last == qp->s_cur)
		qp->s_draining = 0;
	return queued;
}

/**
 * rvt_send_complete_cq - complete the oldest entry, leaving a full CQ to
 *			  the caller
 * @qp: the QP
 * @wqe: the entry at s_last
 * @status: its completion status
 *
 * rvt_send_complete() without the move to the error state when the send
 * CQ is full, so that an engine holding only s_lock can complete requests
 * and take r_lock for the rare error alone. As there, nothing happens in
 * RESET, INIT or RTR.
 *
 * Context: any; s_lock held.
 * Return: false if the send CQ had no room for the completion: the caller
 * must move the QP to the error state (rvt_error_qp(), with r_lock); true
 * otherwise, including when nothing happened.
 */
bool rvt_send_complete_cq(struct rvt_qp *qp, struct rvt_swqe *wqe,
			  enum ib_wc_status status)
{
	return rvt_send_complete_one(qp, wqe, status);
}

/**
 * rvt_send_complete - complete the oldest entry of a send queue
 * @qp: the QP
 * @wqe: the entry at s_last
 * @status: its completion status
 *
 * Drops the entry's references, frees it for posters and, if the
 * consumer asked for one (or @status is an error), queues a completion
 * with the opcode rdi->wc_opcode gives for the request. s_acked, s_cur
 * and s_tail move on with s_last if they pointed at the entry; a QP in
 * SQD whose queue is now drained stops draining. Nothing happens in
 * RESET, INIT or RTR.
 *
 * A full send CQ moves the QP to the error state.
 *
 * Context: any; s_lock held, and r_lock too unless the caller knows the
 * send CQ cannot overflow (rvt_error_qp() needs both).
 */
void rvt_send_complete(struct rvt_qp *qp, struct rvt_swqe *wqe,
		       enum ib_wc_status status)
{
	if (!rvt_send_complete_one(qp, wqe, status))
		rvt_error_qp(qp, IB_WC_LOC_QP_OP_ERR);
}
EXPORT_SYMBOL(rvt_send_complete);
