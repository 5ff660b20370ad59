// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RC flow control credits (IBTA 9.7.7.2) and SGE rewinding for RC
 * retransmission: helpers the drivers' RC protocol engines call.
 *
 * ABI: this file must see rdmavt_qp.h and nothing that pulls in
 * linux/pci.h or linux/tracepoint.h (no exports.h), or the CRCs of its exports
 * differ from the distro's. See Documentation/abi.rst.
 */
#include <rdma/rdmavt_qp.h>
#include <rdma/ib_hdrs.h>
#include "rq.h"

/* The largest credit code; it stands for 32768 or more receive WQEs. */
#define RVT_AETH_CREDIT_MAX 30

/*
 * The AETH credit code is a 5-bit floating point number: codes 0-3 mean
 * 0-3 credits; from there each pair of codes 2n, 2n+1 stands for 2^n and
 * 1.5 * 2^n credits (4, 6, 8, 12, ... 32768).
 */
static u32 rvt_credit_code_to_count(u32 code)
{
	if (code < 4)
		return code;
	return (2 + (code & 1)) << ((code >> 1) - 1);
}

/* The largest code whose credit count does not exceed @count. */
static u32 rvt_count_to_credit_code(u32 count)
{
	u32 msb, code;

	if (count < 4)
		return count;
	msb = fls(count) - 1;
	code = 2 * msb + !!(count & BIT(msb - 1));
	return min_t(u32, code, RVT_AETH_CREDIT_MAX);
}

/*
 * Receive WQEs available on @qp's own receive queue, from the ring's
 * indices (upstream's consumer keeps an estimate in kwq->count; ours
 * keeps none, and two loads cost no more than reading it). A user ring's
 * indices are written by userspace, so out-of-range values count as
 * empty (rq.h).
 */
static u32 rvt_rq_credits(struct rvt_qp *qp)
{
	struct rvt_rq *rq = &qp->r_rq;
	u32 head, tail;

	if (!rvt_rq_load(rq, qp->ip, &head, &tail))
		return 0;
	/* The two reads may race a producer: ACKs to come will correct it. */
	return rvt_get_rq_count(rq, head, tail);
}

/**
 * rvt_compute_aeth - build the AETH of an ACK: credit code and MSN
 * @qp: the responder QP
 *
 * A QP on a shared receive queue advertises no credits (the invalid code),
 * which lets the requester send without limit.
 *
 * Context: any; the responder's r_lock or the driver's equivalent
 * serialisation keeps r_msn stable.
 * Return: the AETH in network byte order, with the ACK syndrome bits 0.
 */
__be32 rvt_compute_aeth(struct rvt_qp *qp)
{
	u32 code;

	if (qp->ibqp.srq)
		code = IB_AETH_CREDIT_INVAL;
	else
		code = rvt_count_to_credit_code(rvt_rq_credits(qp));
	return cpu_to_be32((qp->r_msn & IB_MSN_MASK) |
			   code << IB_AETH_CREDIT_SHIFT);
}
EXPORT_SYMBOL(rvt_compute_aeth);

/* Let a send queue blocked on credits go again. */
static void rvt_credit_arrived(struct rvt_qp *qp)
{
	if (!(qp->s_flags & RVT_S_WAIT_SSN_CREDIT))
		return;
	qp->s_flags &= ~RVT_S_WAIT_SSN_CREDIT;
	ib_to_rvt(qp->ibqp.device)->driver_f.schedule_send(qp);
}

/**
 * rvt_get_credit - take the credits a received AETH grants
 * @qp: the requester QP
 * @aeth: the AETH, in host byte order
 *
 * The invalid credit code lifts the limit for good; any other code moves
 * the limit sequence number s_lsn forward (never back). Either way a send
 * queue waiting for credits is rescheduled.
 *
 * Context: the QP's s_lock held; does not sleep.
 */
void rvt_get_credit(struct rvt_qp *qp, u32 aeth)
{
	u32 code = (aeth >> IB_AETH_CREDIT_SHIFT) & IB_AETH_CREDIT_MASK;
	u32 lsn;

	lockdep_assert_held(&qp->s_lock);
	if (qp->s_flags & RVT_S_UNLIMITED_CREDIT)
		return;
	if (code == IB_AETH_CREDIT_INVAL) {
		qp->s_flags |= RVT_S_UNLIMITED_CREDIT;
		rvt_credit_arrived(qp);
		return;
	}
	lsn = (aeth + rvt_credit_code_to_count(code)) & IB_MSN_MASK;
	if (rvt_cmp_msn(lsn, qp->s_lsn) > 0) {
		qp->s_lsn = lsn;
		rvt_credit_arrived(qp);
	}
}
EXPORT_SYMBOL(rvt_get_credit);

/**
 * rvt_restart_sge - position an SGE state inside a send WQE
 * @ss: the SGE state to set
 * @wqe: the send WQE whose data is to be resent
 * @len: how many bytes from the start of the WQE's data to skip
 *
 * Used to retransmit from the middle of a message.
 *
 * Context: the QP's s_lock held; does not sleep.
 * Return: the number of bytes left from @len to the end of the WQE.
 */
u32 rvt_restart_sge(struct rvt_sge_state *ss, struct rvt_swqe *wqe, u32 len)
{
	ss->sge = wqe->sg_list[0];
	ss->sg_list = wqe->sg_list + 1;
	ss->num_sge = wqe->wr.num_sge;
	ss->total_len = wqe->length;
	rvt_skip_sge(ss, len, false);
	return wqe->length - len;
}
EXPORT_SYMBOL(rvt_restart_sge);
