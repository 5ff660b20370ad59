// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An RC requester hears from its responder (IBTA vol. 1, 9.7.5.1): ACKs,
 * NAKs, RDMA READ responses and atomic acknowledgments.
 *
 * An ACK with PSN p acknowledges every request whose last PSN is at or
 * before p; a NAK acknowledges those before p and refuses p. A READ or
 * an atomic is acknowledged only by its own response: an ACK past one
 * means its response was lost, and the requester asks again from it
 * (rdmavt's n_rdma_seq counts those). The AETH of every ACK carries the
 * responder's credits (rvt_get_credit()).
 *
 * - RNR NAK: the responder had no receive WQE; the requester waits the
 *   time the NAK names (rvt_add_rnr_timer()) and sends again from p, at
 *   most s_rnr_retry_cnt times (7: for ever).
 * - Sequence NAK: the responder expected p; the requester goes back to
 *   it (n_seq_naks).
 * - Other NAKs end the request with the error they name, and the QP goes
 *   to the error state.
 *
 * READ response data goes straight into the READ's buffers, packet by
 * packet in order; a middle or last response out of order makes the
 * requester ask again from the first PSN not received.
 *
 * Locking: the receive path holds the QP's r_lock; this file takes
 * s_lock inside it, for the send queue's state. Holding r_lock keeps the
 * READ's buffers: every completion of a request takes it first.
 */
#include "wire.h"

#define OP(x) IB_OPCODE_RC_##x

static bool rvtsw_wqe_is_atomic(const struct rvt_swqe *wqe)
{
	return wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wqe->wr.opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * A READ or atomic ended (or was given up): free its slot, and let a
 * request that waited for one go.
 */
static void rvtsw_rc_rd_atomic_done(struct rvt_qp *qp)
{
	if (!qp->s_num_rd_atomic)
		return;
	qp->s_num_rd_atomic--;
	if ((qp->s_flags & RVT_S_WAIT_FENCE) && !qp->s_num_rd_atomic) {
		qp->s_flags &= ~(RVT_S_WAIT_FENCE | RVT_S_WAIT_ACK);
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	} else if (qp->s_flags & RVT_S_WAIT_RDMAR) {
		qp->s_flags &= ~(RVT_S_WAIT_RDMAR | RVT_S_WAIT_ACK);
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	}
}

/*
 * The response to a READ or atomic the responder answered past was
 * lost: ask again from the first PSN not acknowledged. Responses up to
 * the one asked for again are then ignored (RVT_R_RDMAR_SEQ).
 */
static void rvtsw_rc_rdma_seq(struct rvt_qp *qp)
{
	if (qp->r_flags & RVT_R_RDMAR_SEQ)
		return;
	qp->r_flags |= RVT_R_RDMAR_SEQ;
	rvt_to_iport(qp)->n_rdma_seq++;
	rvtsw_rc_restart(qp, qp->s_last_psn + 1, 0);
	ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
}

/*
 * Acknowledge the requests an ACK, NAK or response with PSN @psn and
 * opcode @opcode covers. Return: false if the requester went back to
 * ask again for a READ or atomic (the rest of the packet is moot).
 */
static bool rvtsw_rc_ack_upto(struct rvt_qp *qp, u32 psn, u8 opcode,
			      u64 atomic_val)
{
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	int diff;

	while (qp->s_acked != qp->s_tail &&
	       (diff = rvtsw_cmp_psn(psn, wqe->lpsn)) >= 0) {
		/* A READ's data comes with its responses: not done yet. */
		if (wqe->wr.opcode == IB_WR_RDMA_READ &&
		    opcode == OP(RDMA_READ_RESPONSE_ONLY) && !diff)
			return true;
		if ((wqe->wr.opcode == IB_WR_RDMA_READ &&
		     (opcode != OP(RDMA_READ_RESPONSE_LAST) || diff)) ||
		    (rvtsw_wqe_is_atomic(wqe) &&
		     (opcode != OP(ATOMIC_ACKNOWLEDGE) || diff))) {
			rvtsw_rc_rdma_seq(qp);
			return false;
		}
		if (rvtsw_wqe_is_atomic(wqe))
			*(u64 *)wqe->sg_list[0].vaddr = atomic_val;
		if (wqe->wr.opcode == IB_WR_RDMA_READ ||
		    rvtsw_wqe_is_atomic(wqe))
			rvtsw_rc_rd_atomic_done(qp);
		wqe = rvtsw_rc_complete(qp, wqe);
	}
	return true;
}

/* An ACK: the requests up to @psn are done; more credits, maybe. */
static void rvtsw_rc_got_ack(struct rvt_qp *qp, u32 psn, u32 aeth)
{
	if (qp->s_acked != qp->s_tail) {
		/* More to come: the timer restarts for them. */
		rvt_mod_retry_timer(qp);
		/* Sending again what the responder has is moot. */
		if (rvtsw_cmp_psn(qp->s_psn, psn) <= 0)
			rvtsw_rc_reset_psn(qp, psn + 1);
	} else {
		rvt_stop_rc_timers(qp);
		if (rvtsw_cmp_psn(qp->s_psn, psn) <= 0) {
			qp->s_state = OP(SEND_LAST);
			qp->s_psn = psn + 1;
		}
	}
	if (qp->s_flags & RVT_S_WAIT_ACK) {
		qp->s_flags &= ~RVT_S_WAIT_ACK;
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	}
	rvt_get_credit(qp, aeth);
	qp->s_rnr_retry = qp->s_rnr_retry_cnt;
	qp->s_retry = qp->s_retry_cnt;
	qp->s_last_psn = psn;
}

/* The oldest request ends with @status, and the QP goes to the error state. */
static void rvtsw_rc_req_error(struct rvt_qp *qp, enum ib_wc_status status)
{
	if (qp->s_last != qp->s_acked)
		return;
	rvt_send_complete(qp, rvt_get_swqe_ptr(qp, qp->s_acked), status);
	rvt_error_qp(qp, IB_WC_WR_FLUSH_ERR);
}

/* An RNR NAK: wait as long as it says, then send again from @psn. */
static void rvtsw_rc_got_rnr(struct rvt_qp *qp, u32 psn, u32 aeth)
{
	struct rvt_ibport *rvp = rvt_to_iport(qp);

	rvp->n_rnr_naks++;
	if (qp->s_acked == qp->s_tail || (qp->s_flags & RVT_S_WAIT_RNR))
		return;
	if (!qp->s_rnr_retry) {
		rvtsw_rc_req_error(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	/* 7 means: retry for ever. */
	if (qp->s_rnr_retry_cnt < 7)
		qp->s_rnr_retry--;
	qp->s_last_psn = psn - 1;
	rvp->n_rc_resends += (qp->s_psn - psn) & RVTSW_PSN_MASK;
	rvtsw_rc_reset_psn(qp, psn);
	qp->s_flags &= ~(RVT_S_WAIT_SSN_CREDIT | RVT_S_WAIT_ACK);
	rvt_stop_rc_timers(qp);
	rvt_add_rnr_timer(qp, aeth);
}

/* A NAK: a sequence error sends again from @psn; the rest end the QP. */
static void rvtsw_rc_got_nak(struct rvt_qp *qp, u32 psn, u32 aeth)
{
	struct rvt_ibport *rvp = rvt_to_iport(qp);
	enum ib_wc_status status;

	if (qp->s_acked == qp->s_tail)
		return;
	qp->s_last_psn = psn - 1;
	switch ((aeth >> IB_AETH_CREDIT_SHIFT) & IB_AETH_CREDIT_MASK) {
	case IB_NAK_PSN_ERROR & IB_AETH_CREDIT_MASK:
		rvp->n_seq_naks++;
		rvtsw_rc_restart(qp, psn, 0);
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
		goto retries;
	case IB_NAK_INVALID_REQUEST & IB_AETH_CREDIT_MASK:
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	case IB_NAK_REMOTE_ACCESS_ERROR & IB_AETH_CREDIT_MASK:
		status = IB_WC_REM_ACCESS_ERR;
		break;
	case IB_NAK_REMOTE_OPERATIONAL_ERROR & IB_AETH_CREDIT_MASK:
		status = IB_WC_REM_OP_ERR;
		break;
	default:
		return;		/* reserved codes are ignored */
	}
	rvp->n_other_naks++;
	rvtsw_rc_req_error(qp, status);
retries:
	qp->s_retry = qp->s_retry_cnt;
	qp->s_rnr_retry = qp->s_rnr_retry_cnt;
}

/*
 * An ACK, NAK, or the AETH of a response: acknowledge what it covers,
 * then act on its kind. Return: true if it acknowledged @psn itself (the
 * response's data may be taken).
 */
static bool rvtsw_rc_do_ack(struct rvt_qp *qp, u32 aeth, u32 psn, u8 opcode,
			    u64 atomic_val)
{
	u32 kind = aeth >> IB_AETH_NAK_SHIFT;

	/* A NAK acknowledges what comes before the PSN it refuses. */
	if (!rvtsw_rc_ack_upto(qp, kind ? psn - 1 : psn, opcode, atomic_val)) {
		rvt_stop_rc_timers(qp);
		return false;
	}
	switch (kind) {
	case 0:
		rvtsw_rc_got_ack(qp, psn, aeth);
		return true;
	case 1:
		rvtsw_rc_got_rnr(qp, psn, aeth);
		return false;
	case 3:
		rvtsw_rc_got_nak(qp, psn, aeth);
		break;
	}
	rvt_stop_rc_timers(qp);
	return false;
}

/* A request failed here, at the requester: @status, and the QP to error. */
static void rvtsw_rc_resp_error(struct rvt_qp *qp, enum ib_wc_status status)
{
	rvtsw_rc_req_error(qp, status);
}

/*
 * A READ response middle or last out of sequence: the requests before
 * the READ (or atomic) are done, the READ is asked for again from the
 * first PSN the requester did not get.
 */
static void rvtsw_rc_resp_seq(struct rvt_qp *qp, u32 psn)
{
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_acked);

	rvt_stop_rc_timers(qp);
	while (qp->s_acked != qp->s_tail &&
	       rvtsw_cmp_psn(psn, wqe->lpsn) > 0 &&
	       wqe->wr.opcode != IB_WR_RDMA_READ && !rvtsw_wqe_is_atomic(wqe))
		wqe = rvtsw_rc_complete(qp, wqe);
	rvtsw_rc_rdma_seq(qp);
}

/* Where the READ's data from response @psn on goes: its buffers, at its offset. */
static void rvtsw_rc_read_at(struct rvt_qp *qp, struct rvt_swqe *wqe, u32 psn)
{
	u32 done = ((psn - wqe->psn) & RVTSW_PSN_MASK) * qp->pmtu;

	qp->s_rdma_read_len = rvt_restart_sge(&qp->s_rdma_read_sge, wqe, done);
}

/*
 * A READ response that is not the last: a full path MTU of data for the
 * READ at s_acked. The copy runs with s_lock dropped (r_lock keeps the
 * buffers). Return: the error status, or IB_WC_SUCCESS.
 */
static enum ib_wc_status rvtsw_rc_read_middle(struct rvt_qp *qp,
					      const struct rvtsw_pkt *pkt)
	__must_hold(&qp->s_lock)
{
	if (pkt->paylen != qp->pmtu || qp->pmtu >= qp->s_rdma_read_len)
		return IB_WC_LOC_LEN_ERR;
	/* A response came: the READ is alive. */
	rvt_mod_retry_timer(qp);
	if (qp->s_flags & RVT_S_WAIT_ACK) {
		qp->s_flags &= ~RVT_S_WAIT_ACK;
		ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
	}
	if (pkt->opcode == OP(RDMA_READ_RESPONSE_MIDDLE))
		qp->s_retry = qp->s_retry_cnt;
	qp->s_rdma_read_len -= qp->pmtu;
	qp->s_last_psn = pkt->psn;
	spin_unlock(&qp->s_lock);
	rvt_copy_sge(qp, &qp->s_rdma_read_sge, pkt->payload, qp->pmtu, false,
		     false);
	spin_lock(&qp->s_lock);
	return IB_WC_SUCCESS;
}

/*
 * The last (or only) READ response: the rest of the READ's data, then
 * the READ is done. Return: the error status, or IB_WC_SUCCESS.
 */
static enum ib_wc_status rvtsw_rc_read_last(struct rvt_qp *qp,
					    const struct rvtsw_pkt *pkt)
{
	if (pkt->paylen != qp->s_rdma_read_len)
		return IB_WC_LOC_LEN_ERR;
	rvt_copy_sge(qp, &qp->s_rdma_read_sge, pkt->payload, pkt->paylen,
		     false, false);
	rvtsw_rc_do_ack(qp, be32_to_cpu(pkt->ohdr->u.aeth), pkt->psn,
			OP(RDMA_READ_RESPONSE_LAST), 0);
	return IB_WC_SUCCESS;
}

/*
 * A response with an AETH: ACK, atomic acknowledgment, READ response
 * first or only. Return: the error status, or IB_WC_SUCCESS.
 */
static enum ib_wc_status rvtsw_rc_resp_aeth(struct rvt_qp *qp,
					    const struct rvtsw_pkt *pkt)
	__must_hold(&qp->s_lock)
{
	u32 aeth = be32_to_cpu(pkt->ohdr->u.aeth);
	struct rvt_swqe *wqe;
	u64 val = 0;

	if (pkt->opcode == OP(ATOMIC_ACKNOWLEDGE))
		val = ib_u64_get(&pkt->ohdr->u.at.atomic_ack_eth);
	if (!rvtsw_rc_do_ack(qp, aeth, pkt->psn, pkt->opcode, val) ||
	    (pkt->opcode != OP(RDMA_READ_RESPONSE_FIRST) &&
	     pkt->opcode != OP(RDMA_READ_RESPONSE_ONLY)))
		return IB_WC_SUCCESS;
	wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	if (qp->s_acked == qp->s_tail || wqe->wr.opcode != IB_WR_RDMA_READ)
		return IB_WC_LOC_QP_OP_ERR;
	/* A response to a READ asked for again lands at its offset. */
	rvtsw_rc_read_at(qp, wqe, pkt->psn);
	if (pkt->opcode == OP(RDMA_READ_RESPONSE_FIRST))
		return rvtsw_rc_read_middle(qp, pkt);
	return rvtsw_rc_read_last(qp, pkt);
}

/*
 * A response the requester takes: one for the PSN after the last it
 * processed, or an ACK or NAK for any PSN after it. Return: the error
 * status, or IB_WC_SUCCESS.
 */
static enum ib_wc_status rvtsw_rc_resp(struct rvt_qp *qp,
				       const struct rvtsw_pkt *pkt)
	__must_hold(&qp->s_lock)
{
	struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_acked);

	switch (pkt->opcode) {
	case OP(RDMA_READ_RESPONSE_MIDDLE):
	case OP(RDMA_READ_RESPONSE_LAST):
		if (rvtsw_cmp_psn(pkt->psn, qp->s_last_psn + 1)) {
			rvtsw_rc_resp_seq(qp, pkt->psn);
			return IB_WC_SUCCESS;
		}
		if (wqe->wr.opcode != IB_WR_RDMA_READ)
			return IB_WC_LOC_QP_OP_ERR;
		if (pkt->opcode == OP(RDMA_READ_RESPONSE_MIDDLE))
			return rvtsw_rc_read_middle(qp, pkt);
		/* A last response carries some of the READ's data. */
		if (!pkt->paylen)
			return IB_WC_LOC_LEN_ERR;
		return rvtsw_rc_read_last(qp, pkt);
	default:
		return rvtsw_rc_resp_aeth(qp, pkt);
	}
}

/*
 * Is @pkt a response to take, in the QP's state? A response to a PSN
 * never sent, or one already processed, is not (a duplicate ACK may
 * still carry credits), nor one before the PSN a READ or atomic was
 * asked for again from.
 */
static bool rvtsw_rc_resp_wanted(struct rvt_qp *qp, const struct rvtsw_pkt *pkt)
	__must_hold(&qp->s_lock)
{
	int diff;

	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_RECV_OK))
		return false;
	/* A response to a PSN never sent is not a late one: count it. */
	if (rvtsw_cmp_psn(pkt->psn, READ_ONCE(qp->s_next_psn)) >= 0) {
		rvtsw_count(rvtsw_qp_port(qp), RVTSW_CNT_DROP_PSN);
		return false;
	}
	diff = rvtsw_cmp_psn(pkt->psn, qp->s_last_psn);
	if (diff <= 0) {
		u32 aeth = be32_to_cpu(pkt->ohdr->u.aeth);

		if (!diff && pkt->opcode == OP(ACKNOWLEDGE) &&
		    !(aeth >> IB_AETH_NAK_SHIFT))
			rvt_get_credit(qp, aeth);
		return false;
	}
	if (qp->r_flags & RVT_R_RDMAR_SEQ) {
		if (rvtsw_cmp_psn(pkt->psn, qp->s_last_psn + 1))
			return false;
		qp->r_flags &= ~RVT_R_RDMAR_SEQ;
	}
	return qp->s_acked != qp->s_tail;
}

/**
 * rvtsw_rc_rx_resp - an RC requester receives a response
 * @qp: the QP, checked by the receive path
 * @pkt: the packet: an ACK, NAK, READ response or atomic acknowledgment
 *
 * Context: the port's receive worker (softirq), the QP's r_lock held
 * with interrupts off; takes s_lock.
 */
void rvtsw_rc_rx_resp(struct rvt_qp *qp, const struct rvtsw_pkt *pkt)
	__must_hold(&qp->r_lock)
{
	enum ib_wc_status status;

	spin_lock(&qp->s_lock);
	if (rvtsw_rc_resp_wanted(qp, pkt)) {
		status = rvtsw_rc_resp(qp, pkt);
		if (status != IB_WC_SUCCESS)
			rvtsw_rc_resp_error(qp, status);
	}
	spin_unlock(&qp->s_lock);
}
