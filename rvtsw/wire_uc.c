// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A UC responder receives (IBTA vol. 1, 9.8): packets in sequence build
 * messages; nothing is acknowledged, and nothing is sent again.
 *
 * A packet out of sequence (a PSN other than r_psn, or an opcode that
 * cannot follow the last) ends the message under way, which is lost:
 * the receive WQE a SEND had taken is kept for the next SEND (rdmavt's
 * RVT_R_REWIND_SGE, with s_rdma_read_sge holding its SGEs and their MR
 * references), a WRITE's memory is let go. If the packet starts a
 * message, that message is taken from it on; otherwise it is dropped.
 * Whatever the responder cannot take (no receive WQE, a bad length, a
 * bad key) is dropped and counted: UC's sender never learns.
 *
 * Locking: the receive path holds the QP's r_lock throughout.
 */
#include "wire.h"

#define OP(x) IB_OPCODE_UC_##x

/* The message under way is lost. */
static void rvtsw_uc_abort(struct rvt_qp *qp)
{
	if (qp->r_state == OP(SEND_FIRST) || qp->r_state == OP(SEND_MIDDLE)) {
		set_bit(RVT_R_REWIND_SGE, &qp->r_aflags);
		qp->r_sge.num_sge = 0;
	} else {
		rvt_put_ss(&qp->r_sge);
	}
	qp->r_state = OP(SEND_LAST);
}

/* A receive completes: a SEND, or a WRITE with immediate data. */
static void rvtsw_uc_recv_done(struct rvt_qp *qp, const struct rvtsw_pkt *pkt,
			       u32 byte_len, bool write)
{
	struct ib_other_headers *ohdr = pkt->ohdr;
	struct ib_wc wc = {
		.wr_id = qp->r_wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = write ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV,
		.qp = &qp->ibqp,
		.src_qp = qp->remote_qpn,
		.slid = rdma_ah_get_dlid(&qp->remote_ah_attr),
		.sl = rdma_ah_get_sl(&qp->remote_ah_attr),
		.byte_len = byte_len,
	};

	if (pkt->flags & RVTSW_OPF_IMM) {
		wc.wc_flags = IB_WC_WITH_IMM;
		wc.ex.imm_data = (pkt->flags & RVTSW_OPF_RETH) ?
				 ohdr->u.rc.imm_data : ohdr->u.imm_data;
	}
	rvt_recv_cq(qp, &wc, pkt->solicited);
}

/*
 * A SEND packet. The first takes a receive WQE (or the one a lost SEND
 * left), whose SGEs s_rdma_read_sge keeps; the data goes in through a
 * copy, r_sge. Return: false to drop it.
 */
static bool rvtsw_uc_send(struct rvt_qp *qp, const struct rvtsw_pkt *pkt)
{
	bool last = pkt->flags & RVTSW_OPF_LAST;
	int ret;

	if (pkt->flags & RVTSW_OPF_FIRST) {
		if (test_and_clear_bit(RVT_R_REWIND_SGE, &qp->r_aflags)) {
			qp->r_sge = qp->s_rdma_read_sge;
		} else {
			ret = rvt_get_rwqe(qp, false);
			if (ret < 0)
				rvt_rc_error(qp, IB_WC_LOC_QP_OP_ERR);
			if (ret <= 0)
				return false;
			qp->s_rdma_read_sge = qp->r_sge;
		}
		qp->r_rcv_len = 0;
	}
	if ((!last && pkt->paylen != qp->pmtu) ||
	    qp->r_rcv_len + pkt->paylen > qp->r_len) {
		set_bit(RVT_R_REWIND_SGE, &qp->r_aflags);
		qp->r_sge.num_sge = 0;
		return false;
	}
	qp->r_rcv_len += pkt->paylen;
	rvt_copy_sge(qp, &qp->r_sge, pkt->payload, pkt->paylen, false, false);
	if (last) {
		/*
		 * r_sge is a copy of s_rdma_read_sge, not references of its
		 * own: they go once, and r_sge keeps none for an abort or a
		 * reset to let go of again.
		 */
		rvt_put_ss(&qp->s_rdma_read_sge);
		qp->r_sge.num_sge = 0;
		rvtsw_uc_recv_done(qp, pkt, qp->r_rcv_len, false);
	}
	return true;
}

/*
 * The receive WQE a WRITE with immediate data completes: the one a lost
 * SEND left (its SGEs are not needed), or the next.
 */
static bool rvtsw_uc_write_rwqe(struct rvt_qp *qp)
{
	int ret;

	if (test_and_clear_bit(RVT_R_REWIND_SGE, &qp->r_aflags)) {
		rvt_put_ss(&qp->s_rdma_read_sge);
		return true;
	}
	ret = rvt_get_rwqe(qp, true);
	if (ret < 0)
		rvt_rc_error(qp, IB_WC_LOC_QP_OP_ERR);
	return ret > 0;
}

/* A WRITE packet. Return: false to drop it. */
static bool rvtsw_uc_write(struct rvt_qp *qp, const struct rvtsw_pkt *pkt)
{
	bool last = pkt->flags & RVTSW_OPF_LAST;
	u32 end;

	if ((pkt->flags & RVTSW_OPF_RETH) && rvtsw_conn_write_target(qp, pkt))
		return false;
	/* A last packet ends the WRITE; the others carry a path MTU. */
	end = qp->r_rcv_len + pkt->paylen;
	if (last ? end != qp->r_len :
		   pkt->paylen != qp->pmtu || end > qp->r_len)
		return false;
	if (last && (pkt->flags & RVTSW_OPF_IMM) && !rvtsw_uc_write_rwqe(qp))
		return false;
	qp->r_rcv_len += pkt->paylen;
	rvt_copy_sge(qp, &qp->r_sge, pkt->payload, pkt->paylen, true, false);
	if (!last)
		return true;
	rvt_put_ss(&qp->r_sge);
	if (pkt->flags & RVTSW_OPF_IMM)
		rvtsw_uc_recv_done(qp, pkt, qp->r_len, true);
	return true;
}

/**
 * rvtsw_uc_rx - a UC responder receives a packet
 * @qp: the QP, checked by the receive path
 * @pkt: the packet
 *
 * Context: the port's receive worker (softirq), the QP's r_lock held.
 */
void rvtsw_uc_rx(struct rvt_qp *qp, const struct rvtsw_pkt *pkt)
	__must_hold(&qp->r_lock)
{
	enum rvtsw_counter why = RVTSW_CNT_DROP_CONN;
	u8 op = pkt->opcode & 0x1f;
	bool ok;

	if (pkt->psn != qp->r_psn ||
	    !rvtsw_op_follows(qp->r_state, pkt->opcode)) {
		/* Whatever came before is lost; a new message may start. */
		why = pkt->psn != qp->r_psn ? RVTSW_CNT_DROP_PSN :
					      RVTSW_CNT_DROP_OPCODE_SEQ;
		qp->r_psn = pkt->psn;
		rvtsw_uc_abort(qp);
		if (!(pkt->flags & RVTSW_OPF_FIRST))
			goto drop;
		why = RVTSW_CNT_DROP_CONN;
	}
	if (qp->state == IB_QPS_RTR && !(qp->r_flags & RVT_R_COMM_EST))
		rvt_comm_est(qp);
	if (op >= IB_OPCODE_RDMA_WRITE_FIRST)
		ok = rvtsw_uc_write(qp, pkt);
	else
		ok = rvtsw_uc_send(qp, pkt);
	if (!ok)
		goto drop;
	qp->r_psn = (qp->r_psn + 1) & RVTSW_PSN_MASK;
	qp->r_state = pkt->opcode;
	return;
drop:
	rvtsw_count(rvtsw_qp_port(qp), why);
}
