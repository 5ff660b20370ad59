// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RC/UC loopback engine: the send engine of a QP whose peer is on the
 * same device. A driver's send engine calls rvt_ruc_loopback() when the
 * destination LID is one of the device's own; the request then goes
 * straight into the responder QP (rvt_lb_respond(), first below), and
 * both sides complete as they would after a round trip on a wire.
 *
 * The requester side, here: one engine per QP at a time (RVT_S_BUSY),
 * requests carried out in order from s_last, each completed before the
 * next starts. The engine holds the requester's s_lock only to pick and
 * complete a request, never while the responder works, so no QP's locks
 * nest in another's, and a QP connected to itself works too. It takes the
 * requester's r_lock (before s_lock, as everywhere) only to move it to the
 * error state, which flushes its receive queue; completing a request into
 * a send CQ with room needs s_lock alone (rvt_send_complete_cq()).
 *
 * The responder is found by QPN for each request and used inside an RCU
 * read section, without a reference: a reset or destroy of it unlinks it
 * from the QP table and lets a grace period pass before it clears or frees
 * anything (_rvt_reset_qp()), and its state, read under its r_lock, turns
 * the request away once that reset has begun.
 *
 * An RNR NAK makes the requester wait, with the engine released, for the
 * responder's RNR timer (rvt_add_rnr_timer(), whose expiry reschedules
 * the engine), at most rnr_retry times (7: forever). A request nobody
 * takes (no responder, or one of another type or in a state that drops
 * packets) is dropped and counted in n_pkt_drops; as upstream does, an RC
 * requester then completes it at once with IB_WC_RETRY_EXC_ERR instead of
 * retrying on its ACK timeout: loopback knows no later try can succeed,
 * and hfi1's and qib's retry handling (notify_restart_rc) is not meant
 * for loopback QPs. A UC requester completes it as sent.
 *
 * A request completing with an error moves the requester to the error
 * state, after which the engine flushes the rest with IB_WC_WR_FLUSH_ERR.
 */
#include "qp_exports.h"
#include <linux/atomic.h>
#include "qp.h"

/**
 * enum rvt_lb_outcome - what became of a request at the responder
 * @RVT_LB_DONE: it is finished: complete it with send_status
 * @RVT_LB_RNR: an RC responder had no receive request for it (RNR NAK)
 * @RVT_LB_LOST: no responder took it (no such QP, or one of another type
 *		 or in a state that drops packets): it is dropped
 */
enum rvt_lb_outcome {
	RVT_LB_DONE,
	RVT_LB_RNR,
	RVT_LB_LOST,
};

/**
 * struct rvt_lb - one request carried from a requester to its responder
 * @sqp: the requester, whose send engine runs (RVT_S_BUSY held)
 * @rqp: the responder, referenced, with its r_lock held while it works
 * @wqe: the request, the entry at sqp->s_last
 * @send_status: the requester's completion status, with RVT_LB_DONE
 * @rnr_timer: the responder's RNR NAK timer code, with RVT_LB_RNR
 * @refused: not carried out: refused by the responder or not one loopback
 *	     knows; such requests are not counted in n_loop_pkts, as
 *	     upstream counts only what went through
 */
struct rvt_lb {
	struct rvt_qp *sqp;
	struct rvt_qp *rqp;
	struct rvt_swqe *wqe;
	enum ib_wc_status send_status;
	u8 rnr_timer;
	bool refused;
};

/*
 * The responder's side of a loopback request, by opcode class: SEND (and
 * its immediate and invalidate forms), RDMA WRITE (and with immediate),
 * RDMA READ, and the two atomics.
 *
 * Each runs with the responder's r_lock held and the requester's send
 * engine owned by the caller (RVT_S_BUSY), so the request's entry and its
 * SGEs are stable. Data moves straight between the two QPs' regions.
 *
 * Errors follow the IBTA's responder classes, with the statuses upstream's
 * loopback and hfi1's and qib's RC receive paths give them. On RC, a
 * request the responder refuses is NAKed and the responder goes to the
 * error state: an invalid request (the QP lacks the remote access flag,
 * no responder resources, a misaligned atomic, a message longer than the
 * receive request) with the Invalid Request NAK, which the requester
 * completes with IB_WC_REM_INV_REQ_ERR and a receive in progress with
 * IB_WC_LOC_QP_OP_ERR; a key the region or its bounds refuse with the
 * Remote Access Error NAK (IB_WC_REM_ACCESS_ERR, IB_WC_LOC_PROT_ERR). A
 * UC responder silently drops what it refuses, keeping a receive request
 * it had taken for the next message; UC requesters never hear of it. A
 * responder's own fault (an unusable receive request, already completed
 * in error) puts it in the error state on either transport; an RC
 * requester then sees IB_WC_REM_OP_ERR.
 */
static bool rvt_lb_is_uc(const struct rvt_lb *lb)
{
	return lb->rqp->ibqp.qp_type == IB_QPT_UC;
}

/*
 * The responder refuses the request: @send_status for an RC requester,
 * @recv_status for the receive the responder had in progress, if any.
 */
static enum rvt_lb_outcome rvt_lb_refuse(struct rvt_lb *lb,
					 enum ib_wc_status send_status,
					 enum ib_wc_status recv_status)
{
	lb->refused = true;
	if (rvt_lb_is_uc(lb))
		return RVT_LB_DONE;
	lb->send_status = send_status;
	rvt_rc_error(lb->rqp, recv_status);
	return RVT_LB_DONE;
}

/* An invalid request: the Invalid Request NAK. */
static enum rvt_lb_outcome rvt_lb_invalid(struct rvt_lb *lb)
{
	return rvt_lb_refuse(lb, IB_WC_REM_INV_REQ_ERR, IB_WC_LOC_QP_OP_ERR);
}

/* A key, bounds or region access refused: the Remote Access Error NAK. */
static enum rvt_lb_outcome rvt_lb_access_err(struct rvt_lb *lb)
{
	return rvt_lb_refuse(lb, IB_WC_REM_ACCESS_ERR, IB_WC_LOC_PROT_ERR);
}

/* The receive request the responder took was unusable. */
static enum rvt_lb_outcome rvt_lb_responder_fault(struct rvt_lb *lb)
{
	lb->refused = true;
	if (!rvt_lb_is_uc(lb))
		lb->send_status = IB_WC_REM_OP_ERR;
	rvt_rc_error(lb->rqp, IB_WC_LOC_QP_OP_ERR);
	return RVT_LB_DONE;
}

/*
 * No receive request for the message (@ret 0): RC answers with an RNR
 * NAK, UC drops the message. An unusable one (@ret < 0): the responder's
 * fault.
 */
static enum rvt_lb_outcome rvt_lb_no_rwqe(struct rvt_lb *lb, int ret)
{
	if (ret < 0)
		return rvt_lb_responder_fault(lb);
	if (rvt_lb_is_uc(lb))
		return RVT_LB_DONE;
	lb->rnr_timer = lb->rqp->r_min_rnr_timer;
	return RVT_LB_RNR;
}

/*
 * Take the responder's next receive request, or the one a dropped UC
 * message left (RVT_R_REUSE_SGE). With @wr_id_only its buffer is not
 * wanted. Return: as rvt_get_rwqe().
 */
static int rvt_lb_take_rwqe(struct rvt_qp *rqp, bool wr_id_only)
{
	if (!(rqp->r_flags & RVT_R_REUSE_SGE))
		return rvt_get_rwqe(rqp, wr_id_only);
	rqp->r_flags &= ~RVT_R_REUSE_SGE;
	if (wr_id_only)
		rvt_put_ss(&rqp->r_sge);
	return 1;
}

/* The SGE state of a request's own SGEs, for reading or filling them. */
static void rvt_lb_wqe_sges(struct rvt_swqe *wqe, struct rvt_sge_state *ss)
{
	/* Without SGEs, sg_list[0] may lie beyond the entry. */
	if (!wqe->wr.num_sge) {
		memset(ss, 0, sizeof(*ss));
		return;
	}
	ss->sge = wqe->sg_list[0];
	ss->sg_list = wqe->sg_list + 1;
	ss->num_sge = wqe->wr.num_sge;
	ss->total_len = wqe->length;
}

/**
 * rvt_lb_copy - move data between two SGE states
 * @qp: the QP whose device's copy mode applies
 * @dst: where the data goes; @len bytes of room
 * @src: where it comes from; @len bytes
 * @len: bytes to move
 * @release_src: drop each source region's reference once it is used up
 * @release_dst: the same for the destination
 * @copy_last: write the final 8 bytes last, in order (see rvt_copy_sge())
 */
static void rvt_lb_copy(struct rvt_qp *qp, struct rvt_sge_state *dst,
			struct rvt_sge_state *src, u32 len, bool release_src,
			bool release_dst, bool copy_last)
{
	while (len) {
		u32 chunk = rvt_get_sge_length(&src->sge, len);

		/* Callers check both sides' lengths first. */
		if (WARN_ON_ONCE(!chunk))
			break;
		rvt_copy_sge(qp, dst, src->sge.vaddr, chunk, release_dst,
			     copy_last && chunk == len);
		rvt_update_sge(src, chunk, release_src);
		len -= chunk;
	}
}

/*
 * Move a SEND's or WRITE's data from the request's SGEs into @dst, whose
 * regions are released as they fill (see rvt_lb_copy()). Most requests
 * have all of it in the first segment of their first SGE: that takes one
 * rvt_copy_sge() from there, without an SGE state for the source.
 */
static void rvt_lb_copy_request(struct rvt_qp *qp, struct rvt_sge_state *dst,
				struct rvt_swqe *wqe, bool copy_last)
{
	struct rvt_sge_state src;

	/* Without data, sg_list[0] may lie beyond the entry. */
	if (!wqe->length)
		return;
	if (rvt_get_sge_length(&wqe->sg_list[0], wqe->length) == wqe->length) {
		rvt_copy_sge(qp, dst, wqe->sg_list[0].vaddr, wqe->length, true,
			     copy_last);
		return;
	}
	rvt_lb_wqe_sges(wqe, &src);
	rvt_lb_copy(qp, dst, &src, wqe->length, false, true, copy_last);
}

/* Complete the responder's receive request for the message. */
static void rvt_lb_recv_done(struct rvt_lb *lb, enum ib_wc_opcode opcode,
			     int wc_flags)
{
	struct rvt_qp *rqp = lb->rqp;
	struct rvt_swqe *wqe = lb->wqe;
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = opcode,
		.wc_flags = wc_flags,
		.byte_len = wqe->length,
		.qp = &rqp->ibqp,
		.src_qp = lb->sqp->ibqp.qp_num,
		.slid = rdma_ah_get_dlid(&rqp->remote_ah_attr) & U16_MAX,
		.sl = rdma_ah_get_sl(&rqp->remote_ah_attr),
		.port_num = rqp->port_num,
	};

	if (!test_and_clear_bit(RVT_R_WRID_VALID, &rqp->r_aflags))
		return;
	wc.wr_id = rqp->r_wr_id;
	if (wc_flags & IB_WC_WITH_IMM)
		wc.ex.imm_data = wqe->wr.ex.imm_data;
	else if (wc_flags & IB_WC_WITH_INVALIDATE)
		wc.ex.invalidate_rkey = wqe->wr.ex.invalidate_rkey;
	/* An overrun receive CQ is the responder's error, not the sender's. */
	if (!rvt_cq_enter(ibcq_to_rvtcq(rqp->ibqp.recv_cq), &wc,
			  wqe->wr.send_flags & IB_SEND_SOLICITED))
		rvt_rc_error(rqp, IB_WC_LOC_QP_OP_ERR);
}

/*
 * A message longer than the receive buffer: IBTA class C (RC) or D (UC).
 * On RC the receive completes with IB_WC_LOC_QP_OP_ERR, not
 * IB_WC_LOC_LEN_ERR: what hfi1's and qib's RC receive paths report for
 * the same message from another node (Documentation/datapath.rst).
 */
static enum rvt_lb_outcome rvt_lb_too_long(struct rvt_lb *lb)
{
	if (rvt_lb_is_uc(lb)) {
		/* The request waits for the next message. */
		lb->rqp->r_flags |= RVT_R_REUSE_SGE;
		return RVT_LB_DONE;
	}
	return rvt_lb_invalid(lb);
}

/* SEND, SEND_WITH_IMM, SEND_WITH_INV: into the next receive request. */
static enum rvt_lb_outcome rvt_lb_send(struct rvt_lb *lb)
{
	struct rvt_qp *rqp = lb->rqp;
	struct rvt_swqe *wqe = lb->wqe;
	int wc_flags = 0;
	int ret;

	ret = rvt_lb_take_rwqe(rqp, false);
	if (ret <= 0)
		return rvt_lb_no_rwqe(lb, ret);
	if (wqe->length > rqp->r_len)
		return rvt_lb_too_long(lb);

	rvt_lb_copy_request(rqp, &rqp->r_sge, wqe, false);
	rvt_put_ss(&rqp->r_sge);
	if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM)
		wc_flags = IB_WC_WITH_IMM;
	/* A key that cannot be invalidated is not reported as invalidated. */
	if (wqe->wr.opcode == IB_WR_SEND_WITH_INV &&
	    !rvt_invalidate_rkey(rqp, wqe->wr.ex.invalidate_rkey))
		wc_flags = IB_WC_WITH_INVALIDATE;
	rvt_lb_recv_done(lb, IB_WC_RECV, wc_flags);
	return RVT_LB_DONE;
}

/*
 * RDMA WRITE, RDMA WRITE_WITH_IMM: into the region the rkey names.
 *
 * A write with immediate data consumes a receive request. An RC responder
 * takes it before it checks the key, as upstream's loopback does: without
 * one the write is RNR NAKed whatever its key, and a refused key then
 * completes the receive in error. A UC responder takes it after the key,
 * as hfi1's and qib's UC receive paths do, so that a message dropped for
 * its key leaves the receive to the next message.
 */
static enum rvt_lb_outcome rvt_lb_write(struct rvt_lb *lb)
{
	struct rvt_qp *rqp = lb->rqp;
	struct rvt_swqe *wqe = lb->wqe;
	bool imm = wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool rwqe_first = imm && !rvt_lb_is_uc(lb);
	struct rvt_sge_state dst = { };
	int ret;

	if (!(rqp->qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return rvt_lb_invalid(lb);
	if (rwqe_first) {
		ret = rvt_lb_take_rwqe(rqp, true);
		if (ret <= 0)
			return rvt_lb_no_rwqe(lb, ret);
	}
	/* A zero-length write names no memory: its key is not checked. */
	if (wqe->length) {
		if (!rvt_rkey_ok(rqp, &dst.sge, wqe->length,
				 wqe->rdma_wr.remote_addr, wqe->rdma_wr.rkey,
				 IB_ACCESS_REMOTE_WRITE))
			return rvt_lb_access_err(lb);
		dst.num_sge = 1;
		dst.total_len = wqe->length;
	}
	if (imm && !rwqe_first) {
		ret = rvt_lb_take_rwqe(rqp, true);
		if (ret <= 0) {
			rvt_put_ss(&dst);
			return rvt_lb_no_rwqe(lb, ret);
		}
	}

	/* Processes may poll a plain write's last bytes for its arrival. */
	rvt_lb_copy_request(rqp, &dst, wqe, !imm && rvt_is_user_qp(rqp));
	rvt_put_ss(&dst);
	if (imm)
		rvt_lb_recv_done(lb, IB_WC_RECV_RDMA_WITH_IMM, IB_WC_WITH_IMM);
	return RVT_LB_DONE;
}

/*
 * RDMA READ and atomics use responder resources the consumer negotiated
 * with max_dest_rd_atomic; without any, they are invalid requests.
 */
static bool rvt_lb_has_rd_atomic(const struct rvt_lb *lb)
{
	return lb->rqp->r_max_rd_atomic;
}

/* RDMA READ: from the region the rkey names into the request's SGEs. */
static enum rvt_lb_outcome rvt_lb_read(struct rvt_lb *lb)
{
	struct rvt_qp *rqp = lb->rqp;
	struct rvt_swqe *wqe = lb->wqe;
	struct rvt_sge_state src = { };
	struct rvt_sge_state dst;

	if (!(rqp->qp_access_flags & IB_ACCESS_REMOTE_READ) ||
	    !rvt_lb_has_rd_atomic(lb))
		return rvt_lb_invalid(lb);
	if (!wqe->length)
		return RVT_LB_DONE;
	if (!rvt_rkey_ok(rqp, &src.sge, wqe->length, wqe->rdma_wr.remote_addr,
			 wqe->rdma_wr.rkey, IB_ACCESS_REMOTE_READ))
		return rvt_lb_access_err(lb);
	src.num_sge = 1;
	src.total_len = wqe->length;

	rvt_lb_wqe_sges(wqe, &dst);
	rvt_lb_copy(lb->sqp, &dst, &src, wqe->length, true, false, false);
	rvt_put_ss(&src);
	return RVT_LB_DONE;
}

/* Run the atomic on @target; return the value it held before. */
static u64 rvt_lb_do_atomic(const struct rvt_swqe *wqe, u64 *target)
{
	const struct ib_atomic_wr *aw = &wqe->atomic_wr;

	if (wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
		return atomic64_fetch_add(aw->compare_add, (atomic64_t *)target);
	return cmpxchg64(target, aw->compare_add, aw->swap);
}

/* CMP_SWAP, FETCH_ADD: 8 aligned bytes; the old value goes back. */
static enum rvt_lb_outcome rvt_lb_atomic(struct rvt_lb *lb)
{
	struct rvt_qp *rqp = lb->rqp;
	struct rvt_swqe *wqe = lb->wqe;
	struct rvt_sge_state dst;
	struct rvt_sge target;
	u64 old;

	if (!(rqp->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC) ||
	    !rvt_lb_has_rd_atomic(lb) ||
	    !IS_ALIGNED(wqe->atomic_wr.remote_addr, sizeof(u64)))
		return rvt_lb_invalid(lb);
	if (!rvt_rkey_ok(rqp, &target, sizeof(u64), wqe->atomic_wr.remote_addr,
			 wqe->atomic_wr.rkey, IB_ACCESS_REMOTE_ATOMIC))
		return rvt_lb_access_err(lb);
	/* The region's IB address may be aligned where its pages are not. */
	if (!IS_ALIGNED((uintptr_t)target.vaddr, sizeof(u64)) ||
	    target.length < sizeof(u64)) {
		rvt_put_mr(target.mr);
		return rvt_lb_invalid(lb);
	}
	old = rvt_lb_do_atomic(wqe, target.vaddr);
	rvt_put_mr(target.mr);

	rvt_lb_wqe_sges(wqe, &dst);
	rvt_copy_sge(lb->sqp, &dst, &old, sizeof(old), false, false);
	return RVT_LB_DONE;
}

/**
 * rvt_lb_respond - carry out a request at its responder
 * @lb: the request; lb->rqp is of the requester's type and in a state
 *	that processes receives
 *
 * Context: the responder's r_lock held, interrupts off; the requester's
 * send engine owned by the caller.
 * Return: what became of the request (lb->send_status is set for
 * RVT_LB_DONE, lb->rnr_timer for RVT_LB_RNR).
 */
static enum rvt_lb_outcome rvt_lb_respond(struct rvt_lb *lb)
{
	lockdep_assert_held(&lb->rqp->r_lock);
	switch (lb->wqe->wr.opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		return rvt_lb_send(lb);
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return rvt_lb_write(lb);
	case IB_WR_RDMA_READ:
		return rvt_lb_read(lb);
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return rvt_lb_atomic(lb);
	default:
		/*
		 * An opcode the driver's table allows but loopback lacks
		 * (hfi1's OPFN): the requester's own error, as upstream has
		 * it; the responder never sees the request.
		 */
		lb->send_status = IB_WC_LOC_QP_OP_ERR;
		lb->refused = true;
		return RVT_LB_DONE;
	}
}

/* What keeps an engine from starting: another one, or a wait. */
#define RVT_LB_HOLD (RVT_S_BUSY | RVT_S_ANY_WAIT | RVT_S_TIMER)

/* An RNR retry count of 7 means retry for ever (IBTA 9.7.5.2.8). */
#define RVT_RNR_RETRY_FOREVER 7

/**
 * struct rvt_lb_run - one run of a requester's engine
 * @sqp: the requester
 * @flags: interrupt state saved when its s_lock was taken
 * @lastwqe: IB_EVENT_QP_LAST_WQE_REACHED is due once the locks are gone
 */
struct rvt_lb_run {
	struct rvt_qp *sqp;
	unsigned long flags;
	bool lastwqe;
};

static void rvt_lb_lock(struct rvt_lb_run *run)
	__acquires(&run->sqp->s_lock)
{
	spin_lock_irqsave(&run->sqp->s_lock, run->flags);
}

static void rvt_lb_unlock(struct rvt_lb_run *run)
	__releases(&run->sqp->s_lock)
{
	spin_unlock_irqrestore(&run->sqp->s_lock, run->flags);
}

/*
 * Move the requester to the error state (@err for a receive it has in
 * progress). That needs its r_lock, which comes before s_lock: s_lock is
 * dropped for a moment, RVT_S_BUSY keeping the send queue the engine's,
 * and the state is looked at again under both.
 */
static void rvt_lb_error(struct rvt_lb_run *run, enum ib_wc_status err)
	__must_hold(&run->sqp->s_lock)
{
	struct rvt_qp *sqp = run->sqp;

	spin_unlock(&sqp->s_lock);
	spin_lock(&sqp->r_lock);
	spin_lock(&sqp->s_lock);
	if (rvt_error_qp(sqp, err))
		run->lastwqe = true;
	spin_unlock(&sqp->r_lock);
}

/* Nothing took the request: it is dropped. */
static enum rvt_lb_outcome rvt_lb_lost(struct rvt_lb *lb)
{
	rvt_to_iport(lb->sqp)->n_pkt_drops++;
	return RVT_LB_LOST;
}

/* A fast registration or invalidation, which has no responder. */
static enum rvt_lb_outcome rvt_lb_local(struct rvt_lb *lb)
{
	struct rvt_swqe *wqe = lb->wqe;

	/* Only an invalidation that had to wait still has work to do. */
	if (wqe->wr.opcode == IB_WR_LOCAL_INV &&
	    !(wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY) &&
	    rvt_invalidate_rkey(lb->sqp, wqe->wr.ex.invalidate_rkey))
		lb->send_status = IB_WC_LOC_PROT_ERR;
	return RVT_LB_DONE;
}

static bool rvt_lb_is_local(const struct rvt_swqe *wqe)
{
	return wqe->wr.opcode == IB_WR_REG_MR ||
	       wqe->wr.opcode == IB_WR_LOCAL_INV;
}

/*
 * Hand the request to @rqp, found by its QPN. A responder in RTR that
 * receives its first message has its connection established.
 *
 * Context: in the RCU read section of the lookup (see the top of the file).
 */
static enum rvt_lb_outcome rvt_lb_deliver(struct rvt_lb *lb,
					  struct rvt_qp *rqp)
{
	enum rvt_lb_outcome outcome;
	unsigned long flags;

	spin_lock_irqsave(&rqp->r_lock, flags);
	if (!(ib_rvt_state_ops[rqp->state] & RVT_PROCESS_RECV_OK) ||
	    rqp->ibqp.qp_type != lb->sqp->ibqp.qp_type) {
		outcome = rvt_lb_lost(lb);
	} else {
		if (rqp->state == IB_QPS_RTR &&
		    !(rqp->r_flags & RVT_R_COMM_EST))
			rvt_comm_est(rqp);
		lb->rqp = rqp;
		outcome = rvt_lb_respond(lb);
		lb->rqp = NULL;
	}
	spin_unlock_irqrestore(&rqp->r_lock, flags);
	return outcome;
}

/* Carry out @lb->wqe, with none of the requester's locks held. */
static enum rvt_lb_outcome rvt_lb_execute(struct rvt_lb *lb)
{
	struct rvt_qp *sqp = lb->sqp;
	enum rvt_lb_outcome outcome;
	struct rvt_qp *rqp;

	lb->send_status = IB_WC_SUCCESS;
	if (rvt_lb_is_local(lb->wqe))
		return rvt_lb_local(lb);

	rcu_read_lock();
	rqp = rvt_lookup_qpn(ib_to_rvt(sqp->ibqp.device), rvt_to_iport(sqp),
			     sqp->remote_qpn);
	outcome = rqp ? rvt_lb_deliver(lb, rqp) : rvt_lb_lost(lb);
	rcu_read_unlock();
	return outcome;
}

/*
 * Complete the request at s_last. An error completion puts the requester
 * in the error state (IBTA 10.8.3.3), and so does a send CQ with no room
 * for the completion; the engine then flushes the rest.
 */
static void rvt_lb_complete(struct rvt_lb_run *run, struct rvt_swqe *wqe,
			    enum ib_wc_status status)
{
	struct rvt_qp *sqp = run->sqp;
	/* An invalidation that had to wait counted in local_ops_pending. */
	bool waited = wqe->wr.opcode == IB_WR_LOCAL_INV &&
		      !(wqe->wr.send_flags & RVT_SEND_COMPLETION_ONLY);

	bool queued = rvt_send_complete_cq(sqp, wqe, status);

	if (waited)
		atomic_dec(&sqp->local_ops_pending);
	if (!queued)
		rvt_lb_error(run, IB_WC_LOC_QP_OP_ERR);
	else if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR)
		rvt_lb_error(run, IB_WC_WR_FLUSH_ERR);
}

/*
 * An RNR NAK: wait for the responder's RNR timer and try again, unless
 * the retries are used up. Return: whether the engine goes on.
 */
static bool rvt_lb_rnr(struct rvt_lb_run *run, struct rvt_lb *lb)
{
	struct rvt_qp *sqp = run->sqp;

	rvt_to_iport(sqp)->n_rnr_naks++;
	if (!sqp->s_rnr_retry) {
		rvt_lb_complete(run, lb->wqe, IB_WC_RNR_RETRY_EXC_ERR);
		return true;
	}
	if (sqp->s_rnr_retry_cnt < RVT_RNR_RETRY_FOREVER)
		sqp->s_rnr_retry--;
	rvt_add_rnr_timer(sqp, (u32)lb->rnr_timer << IB_AETH_CREDIT_SHIFT);
	return false;
}

/*
 * Settle the request the responder worked on, with the requester's locks
 * held again. Return: whether the engine goes on.
 */
static bool rvt_lb_settle(struct rvt_lb_run *run, struct rvt_lb *lb,
			  enum rvt_lb_outcome outcome)
{
	struct rvt_qp *sqp = run->sqp;
	int ops = ib_rvt_state_ops[sqp->state];

	/* A reset meanwhile took the request away with everything else. */
	if (!(ops & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	/* An error meanwhile: no waiting, the flush completes the request. */
	if (outcome != RVT_LB_DONE && !(ops & RVT_PROCESS_NEXT_SEND_OK))
		return true;

	switch (outcome) {
	case RVT_LB_RNR:
		return rvt_lb_rnr(run, lb);
	case RVT_LB_LOST:
		/* See the top of this file: no retries on loopback. */
		rvt_lb_complete(run, lb->wqe,
				sqp->ibqp.qp_type == IB_QPT_RC ?
				IB_WC_RETRY_EXC_ERR : IB_WC_SUCCESS);
		return true;
	default:
		/* What went through restores the next request's RNR budget. */
		if (!lb->refused) {
			rvt_to_iport(sqp)->n_loop_pkts++;
			sqp->s_rnr_retry = sqp->s_rnr_retry_cnt;
		}
		rvt_lb_complete(run, lb->wqe, lb->send_status);
		return true;
	}
}

/*
 * One request: flush it in the error states, else carry it out with the
 * locks dropped and settle it. Return: whether the engine goes on.
 */
static bool rvt_lb_step(struct rvt_lb_run *run)
{
	struct rvt_qp *sqp = run->sqp;
	int ops = ib_rvt_state_ops[sqp->state];
	struct rvt_lb lb = { .sqp = sqp };
	enum rvt_lb_outcome outcome;

	/* Pairs with the release of s_head in rvt_post_send(). */
	if (sqp->s_last == smp_load_acquire(&sqp->s_head))
		return false;
	lb.wqe = rvt_get_swqe_ptr(sqp, sqp->s_last);
	if (!(ops & RVT_PROCESS_NEXT_SEND_OK)) {
		if (!(ops & RVT_FLUSH_SEND))
			return false;
		rvt_lb_complete(run, lb.wqe, IB_WC_WR_FLUSH_ERR);
		return true;
	}
	/* s_cur past s_last marks the request at s_last as in progress. */
	if (sqp->s_cur == sqp->s_last)
		sqp->s_cur = rvt_qp_swqe_incr(sqp, sqp->s_cur);

	rvt_lb_unlock(run);
	outcome = rvt_lb_execute(&lb);
	rvt_lb_lock(run);
	return rvt_lb_settle(run, &lb, outcome);
}

/**
 * rvt_ruc_loopback - run an RC or UC QP's send queue into a local QP
 * @sqp: the requester, whose destination QP is on the same device
 *
 * Carries out the requests of @sqp's send queue, in order, on the QP
 * named by its destination QPN: SEND (with immediate data or
 * invalidation), RDMA WRITE (with immediate data), RDMA READ, the
 * atomics, and the local invalidations left for the send queue; both
 * sides complete as after a round trip. Returns when the queue is empty,
 * the requester must wait for an RNR NAK's timer, or its state stops the
 * send queue; in the error states the
 * requests are completed with IB_WC_WR_FLUSH_ERR. Does nothing while
 * another run is in progress or a wait is pending: that run picks up what
 * was posted meanwhile, the wait's end reschedules the engine.
 *
 * Context: any, including interrupt context (a driver's do_send() called
 * from post_send); without @sqp's locks. Takes @sqp's s_lock (and its
 * r_lock before it, only to move @sqp to the error state), then, apart
 * from them, the responder's r_lock inside an RCU read section.
 */
void rvt_ruc_loopback(struct rvt_qp *sqp)
{
	struct rvt_lb_run run = { .sqp = sqp };

	rvt_lb_lock(&run);
	if ((sqp->s_flags & RVT_LB_HOLD) ||
	    !(ib_rvt_state_ops[sqp->state] & RVT_PROCESS_OR_FLUSH_SEND)) {
		rvt_lb_unlock(&run);
		return;
	}
	sqp->s_flags |= RVT_S_BUSY;
	while (rvt_lb_step(&run))
		;
	/* With the check for more work, under the same lock hold. */
	sqp->s_flags &= ~RVT_S_BUSY;
	rvt_lb_unlock(&run);

	if (run.lastwqe)
		rvt_qp_event(sqp, IB_EVENT_QP_LAST_WQE_REACHED);
}
EXPORT_SYMBOL(rvt_ruc_loopback);
