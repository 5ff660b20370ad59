// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_contract's send engine, modelled on what qib and hfi1 do around
 * rdmavt (written for this test; see their qib_do_send()/hfi1_do_send(),
 * qib_make_ud_req()/ud_loopback(), qib_restart_rc()):
 *
 * - RC and UC requests to the QP's own port LID go through
 *   rvt_ruc_loopback(), as both drivers do;
 * - RC requests to any other LID leave on the "wire", where nothing ever
 *   answers: the retry timer runs, notify_restart_rc() rewinds or gives
 *   up. ct_rc_ack() plays an ACK arriving on the receive path;
 * - UC requests to another LID complete as sent;
 * - UD, GSI and SMI datagrams to a port of the device are delivered to
 *   the destination QP as the drivers' ud_loopback() does (QP lookup,
 *   P_Key and Q_Key checks, rvt_get_rwqe(), rvt_copy_sge(), the GRH),
 *   multicast through rvt_mcast_find(); to any other LID they leave.
 *
 * schedule_send() only marks a QP as pending; the script runs pending
 * engines itself, in order, between its steps (ct_pump()), so that the
 * log does not depend on a worker's timing. do_send() runs the engine at
 * once, in the caller's context, as the drivers do.
 */
#include <linux/delay.h>
#include <rdma/ib_hdrs.h>
#include "rvt_contract.h"

/* Stops a send engine that keeps rescheduling itself. */
#define CT_PUMP_MAX 1000

static bool ct_dlid_local(struct rvt_qp *qp)
{
	struct ct_port *port = ct_port(qp->port_num);
	u32 dlid = rdma_ah_get_dlid(&qp->remote_ah_attr);

	return (dlid & ~((1U << port->lmc) - 1)) == port->lid;
}

static u32 ct_next(struct rvt_qp *qp, u32 n)
{
	return ++n >= qp->s_size ? 0 : n;
}

/* Complete every request left with IB_WC_WR_FLUSH_ERR; s_lock held. */
static void ct_flush_send(struct rvt_qp *qp)
	__must_hold(&qp->s_lock)
{
	struct ct_qp *priv = qp->priv;

	while (qp->s_last != qp->s_head) {
		struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_last);
		u32 last = qp->s_last;

		ct_log("engine %s flush ssn=%u", priv->label, wqe->ssn);
		ct_ex(EX_SEND_COMPLETE);
		rvt_send_complete(qp, wqe, IB_WC_WR_FLUSH_ERR);
		if (qp->s_last == last) {
			ct_log("engine %s flush stuck at %u", priv->label, last);
			break;
		}
	}
	priv->wire = 0;
}

/* RC/UC requests to a LID not on this device. */
static void ct_wire_send(struct rvt_qp *qp)
{
	struct ct_qp *priv = qp->priv;
	unsigned long flags;

	spin_lock_irqsave(&qp->s_lock, flags);
	ct_ex(EX_STATE_OPS);
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_SEND_OK)) {
		if (ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND)
			ct_flush_send(qp);
		goto unlock;
	}
	if (qp->s_flags & (RVT_S_BUSY | RVT_S_ANY_WAIT))
		goto unlock;
	while (qp->s_cur != qp->s_head) {
		struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_cur);

		qp->s_cur = ct_next(qp, qp->s_cur);
		if (qp->ibqp.qp_type == IB_QPT_UC) {
			ct_log("engine %s wire uc ssn=%u", priv->label,
			       wqe->ssn);
			ct_ex(EX_SEND_COMPLETE);
			rvt_send_complete(qp, wqe, IB_WC_SUCCESS);
			continue;
		}
		qp->s_psn = wqe->lpsn + 1;
		priv->wire++;
		ct_log("engine %s wire rc ssn=%u psn=%#x-%#x", priv->label,
		       wqe->ssn, wqe->psn, wqe->lpsn);
		if (!(qp->s_flags & RVT_S_TIMER)) {
			ct_ex(EX_ADD_RETRY_TIMER_EXT);
			rvt_add_retry_timer(qp);
		}
	}
unlock:
	spin_unlock_irqrestore(&qp->s_lock, flags);
}

/* The receiving port of a datagram sent to @dlid, or NULL (off device). */
static struct ct_port *ct_lid_port(struct rvt_qp *sqp, u32 dlid)
{
	int i;

	if (dlid == be16_to_cpu(IB_LID_PERMISSIVE))
		return ct_port(sqp->port_num);
	for (i = 0; i < ct_nports(); i++) {
		struct ct_port *port = &ct.dev->port[i];

		if ((dlid & ~((1U << port->lmc) - 1)) == port->lid)
			return port;
	}
	return NULL;
}

static bool ct_pkey_ok(struct ct_port *sport, struct rvt_qp *sqp,
		       struct ct_port *dport, struct rvt_qp *dqp)
{
	u16 a = sport->pkeys[sqp->s_pkey_index];
	u16 b = dport->pkeys[dqp->s_pkey_index];

	return !((a ^ b) & 0x7fff) && ((a | b) & 0x8000);
}

/* Q_Key, P_Key and type checks of ud_loopback(); RCU held. */
static const char *ct_ud_refuse(struct rvt_qp *sqp, struct rvt_swqe *wqe,
				struct ct_port *dport, struct rvt_qp *dqp)
{
	enum ib_qp_type st = sqp->ibqp.qp_type, dt = dqp->ibqp.qp_type;
	u32 qkey;

	if (st == IB_QPT_GSI)
		st = IB_QPT_UD;
	if (dt == IB_QPT_GSI)
		dt = IB_QPT_UD;
	if (st != dt || !(ib_rvt_state_ops[dqp->state] & RVT_PROCESS_RECV_OK))
		return "type or state";
	if (dqp->ibqp.qp_num > 1 &&
	    !ct_pkey_ok(ct_port(sqp->port_num), sqp, dport, dqp)) {
		dport->rvp.pkey_violations++;
		return "pkey";
	}
	if (dqp->ibqp.qp_num) {
		qkey = rvt_get_swqe_remote_qkey(wqe);
		if ((int)qkey < 0)
			qkey = sqp->qkey;
		if (qkey != dqp->qkey) {
			dport->rvp.qkey_violations++;
			return "qkey";
		}
	}
	return NULL;
}

/* Copy the request's data into the receive buffer; dqp->r_lock held. */
static void ct_ud_copy(struct rvt_qp *dqp, struct rvt_swqe *wqe)
	__must_hold(&dqp->r_lock)
{
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	struct rvt_sge_state ss = {
		.sg_list = wqe->sg_list + 1,
		.sge = wqe->sg_list[0],
		.total_len = wqe->length,
		.num_sge = wqe->wr.num_sge,
	};
	u32 length = wqe->length;

	ct_ex(EX_COPY_SGE);
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		struct ib_grh grh = {};

		grh.version_tclass_flow = cpu_to_be32(6U << 28);
		grh.paylen = cpu_to_be16(length);
		grh.next_hdr = IB_GRH_NEXT_HDR;
		grh.hop_limit = rdma_ah_read_grh(ah)->hop_limit;
		grh.dgid = rdma_ah_read_grh(ah)->dgid;
		rvt_copy_sge(dqp, &dqp->r_sge, &grh, sizeof(grh), true, false);
	} else {
		rvt_skip_sge(&dqp->r_sge, sizeof(struct ib_grh), true);
	}
	while (length && ss.num_sge) {
		u32 len = rvt_get_sge_length(&ss.sge, length);

		rvt_copy_sge(dqp, &dqp->r_sge, ss.sge.vaddr, len, true, false);
		rvt_update_sge(&ss, len, false);
		length -= len;
	}
	rvt_put_ss(&dqp->r_sge);
}

static void ct_ud_complete(struct rvt_qp *sqp, struct rvt_swqe *wqe,
			   struct rvt_qp *dqp)
	__must_hold(&dqp->r_lock)
{
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	struct ct_port *sport = ct_port(sqp->port_num);
	struct ib_wc wc = {
		.wr_id = dqp->r_wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp = &dqp->ibqp,
		.src_qp = sqp->ibqp.qp_num,
		.byte_len = wqe->length + sizeof(struct ib_grh),
		.slid = sport->lid | (rdma_ah_get_path_bits(ah) &
				      ((1U << sport->lmc) - 1)),
		.sl = rdma_ah_get_sl(ah),
		.port_num = dqp->port_num,
	};

	if (dqp->ibqp.qp_type == IB_QPT_GSI || dqp->ibqp.qp_type == IB_QPT_SMI)
		wc.pkey_index = rvt_get_swqe_pkey_index(wqe);
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH)
		wc.wc_flags |= IB_WC_GRH;
	if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = wqe->wr.ex.imm_data;
	}
	rvt_recv_cq(dqp, &wc, wqe->wr.send_flags & IB_SEND_SOLICITED);
}

/* Deliver one datagram to @dqp on @dport; RCU held. */
static void ct_ud_to_qp(struct rvt_qp *sqp, struct rvt_swqe *wqe,
			struct ct_port *dport, struct rvt_qp *dqp)
{
	const char *why;
	unsigned long flags;
	int ret;

	why = ct_ud_refuse(sqp, wqe, dport, dqp);
	if (why)
		goto drop;
	spin_lock_irqsave(&dqp->r_lock, flags);
	if (dqp->r_flags & RVT_R_REUSE_SGE) {
		dqp->r_flags &= ~RVT_R_REUSE_SGE;
	} else {
		ct_ex(EX_GET_RWQE);
		ret = rvt_get_rwqe(dqp, false);
		if (ret < 0) {
			ct_ex(EX_RC_ERROR);
			rvt_rc_error(dqp, IB_WC_LOC_QP_OP_ERR);
			spin_unlock_irqrestore(&dqp->r_lock, flags);
			why = "bad receive";
			goto drop;
		}
		if (!ret) {
			spin_unlock_irqrestore(&dqp->r_lock, flags);
			why = "no receive";
			goto drop;
		}
	}
	if (wqe->length + sizeof(struct ib_grh) > dqp->r_len) {
		dqp->r_flags |= RVT_R_REUSE_SGE;
		spin_unlock_irqrestore(&dqp->r_lock, flags);
		why = "too long";
		goto drop;
	}
	ct_ud_copy(dqp, wqe);
	if (test_and_clear_bit(RVT_R_WRID_VALID, &dqp->r_aflags))
		ct_ud_complete(sqp, wqe, dqp);
	dport->rvp.n_loop_pkts++;
	spin_unlock_irqrestore(&dqp->r_lock, flags);
	ct_log("engine ud %s -> %s delivered len=%u", ct_label(sqp),
	       ct_label(dqp), wqe->length);
	return;
drop:
	dport->rvp.n_pkt_drops++;
	ct_log("engine ud %s -> %s dropped: %s", ct_label(sqp), ct_label(dqp),
	       why);
}

/* A datagram to a multicast LID: every attached QP but the sender. */
static void ct_ud_mcast(struct rvt_qp *sqp, struct rvt_swqe *wqe, u32 dlid)
{
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	struct ct_port *port = ct_port(sqp->port_num);
	struct rvt_mcast_qp *p;
	struct rvt_mcast *mc;
	union ib_gid mgid;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH)) {
		ct_log("engine ud %s mcast %#x without GRH: dropped",
		       ct_label(sqp), dlid);
		return;
	}
	mgid = rdma_ah_read_grh(ah)->dgid;
	rcu_read_lock();
	ct_ex(EX_MCAST_FIND);
	mc = rvt_mcast_find(&port->rvp, &mgid, dlid);
	if (!mc) {
		rcu_read_unlock();
		port->rvp.n_pkt_drops++;
		ct_log("engine ud %s mcast %#x: no group", ct_label(sqp), dlid);
		return;
	}
	ct_log("engine ud %s mcast %#x: group of %d, refcount %d",
	       ct_label(sqp), dlid, mc->n_attached,
	       atomic_read(&mc->refcount));
	list_for_each_entry_rcu(p, &mc->qp_list, list)
		if (p->qp != sqp)
			ct_ud_to_qp(sqp, wqe, port, p->qp);
	if (atomic_dec_return(&mc->refcount) <= 1)
		wake_up(&mc->wait);
	rcu_read_unlock();
}

static void ct_ud_deliver(struct rvt_qp *sqp, struct rvt_swqe *wqe)
{
	struct rdma_ah_attr *ah = rvt_get_swqe_ah_attr(wqe);
	u32 dlid = rdma_ah_get_dlid(ah);
	u32 dqpn = rvt_get_swqe_remote_qpn(wqe);
	struct ct_port *dport;
	struct rvt_qp *dqp;

	if (dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	    dlid != be16_to_cpu(IB_LID_PERMISSIVE)) {
		ct_ud_mcast(sqp, wqe, dlid);
		return;
	}
	dport = ct_lid_port(sqp, dlid);
	if (!dport) {
		ct_log("engine ud %s -> lid %#x qpn %#x: left the device",
		       ct_label(sqp), dlid, dqpn);
		return;
	}
	rcu_read_lock();
	dqp = rvt_lookup_qpn(&ct.dev->rdi, &dport->rvp, dqpn);
	if (dqp) {
		ct_ud_to_qp(sqp, wqe, dport, dqp);
	} else {
		dport->rvp.n_pkt_drops++;
		ct_log("engine ud %s -> qpn %#x: no such QP", ct_label(sqp),
		       dqpn);
	}
	rcu_read_unlock();
}

/* UD, GSI and SMI: qib_make_ud_req()'s loop, one datagram at a time. */
static void ct_engine_ud(struct rvt_qp *qp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&qp->s_lock, flags);
	for (n = 0; n < CT_PUMP_MAX; n++) {
		struct rvt_swqe *wqe;

		if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK)) {
			if (ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND)
				ct_flush_send(qp);
			break;
		}
		if (qp->s_cur == qp->s_head)
			break;
		wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
		qp->s_cur = ct_next(qp, qp->s_cur);
		spin_unlock_irqrestore(&qp->s_lock, flags);
		ct_ud_deliver(qp, wqe);
		spin_lock_irqsave(&qp->s_lock, flags);
		ct_ex(EX_SEND_COMPLETE);
		rvt_send_complete(qp, wqe, IB_WC_SUCCESS);
	}
	spin_unlock_irqrestore(&qp->s_lock, flags);
}

/**
 * ct_engine - run a QP's send engine once
 * @qp: the QP
 *
 * Context: process context, no QP lock held (do_send() and the pump).
 */
void ct_engine(struct rvt_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		if (ct_dlid_local(qp)) {
			ct_ex(EX_RUC_LOOPBACK);
			rvt_ruc_loopback(qp);
		} else {
			ct_wire_send(qp);
		}
		break;
	default:
		ct_engine_ud(qp);
		break;
	}
}

/**
 * ct_schedule - a schedule_send callback: ask for a QP's send engine to
 *		 run, and log the call
 * @qp: the QP
 * @cb: CB_SCHEDULE_SEND or CB_SCHEDULE_SEND_NO_LOCK
 * @may_queue: false if the driver would not send now (qib_send_ok())
 *
 * rdmavt's timers call this on any CPU while the script pumps on another.
 * The line is logged under pend_lock, which ct_pump() holds while it takes
 * a QP off the list and logs that: the log shows a queueing before the
 * run it caused, on both cores alike. The caller's context is read before
 * that lock is taken.
 *
 * Context: any.
 * Return: true if the QP was queued (it was not pending yet).
 */
bool ct_schedule(struct rvt_qp *qp, enum ct_cb cb, bool may_queue)
{
	struct ct_qp *priv = qp->priv;
	struct ct_dev *dev = priv->dev;
	unsigned long flags;
	bool queued = false;
	char where[64];

	ct_cb_context(where, sizeof(where), qp);
	spin_lock_irqsave(&dev->pend_lock, flags);
	if (may_queue && list_empty(&priv->pend)) {
		list_add_tail(&priv->pend, &dev->pending);
		queued = true;
	}
	if (cb == CB_SCHEDULE_SEND)
		ct_cb_at(cb, qp, where, "s_flags=%#x queued=%d", qp->s_flags,
			 queued);
	else
		ct_cb_at(cb, qp, where, "queued=%d", queued);
	spin_unlock_irqrestore(&dev->pend_lock, flags);
	return queued;
}

/**
 * ct_unpend - forget a pending request for a QP's send engine
 * @qp: the QP
 *
 * Context: any.
 */
void ct_unpend(struct rvt_qp *qp)
{
	struct ct_qp *priv = qp->priv;
	unsigned long flags;

	if (!priv)
		return;
	spin_lock_irqsave(&priv->dev->pend_lock, flags);
	list_del_init(&priv->pend);
	spin_unlock_irqrestore(&priv->dev->pend_lock, flags);
}

/**
 * ct_pump - run every pending send engine, in the order they were asked for
 *
 * Context: the script.
 */
void ct_pump(void)
{
	struct ct_dev *dev = ct.dev;
	struct ct_qp *priv;
	unsigned long flags;
	int n;

	for (n = 0; n < CT_PUMP_MAX; n++) {
		spin_lock_irqsave(&dev->pend_lock, flags);
		priv = list_first_entry_or_null(&dev->pending, struct ct_qp,
						pend);
		if (priv) {
			list_del_init(&priv->pend);
			/* Under the lock: see ct_schedule(). */
			ct_log("pump %s", priv->label);
		}
		spin_unlock_irqrestore(&dev->pend_lock, flags);
		if (!priv)
			return;
		ct_engine(priv->qp);
	}
	ct_log("pump: engines still pending after %d runs", n);
}

/*
 * Is a QP's timer armed or its callback under way? rdmavt's timer
 * callbacks clear RVT_S_TIMER or RVT_S_WAIT_RNR and call schedule_send()
 * in one s_lock section, so under s_lock a timer that is no longer pending
 * has either not got that far (the flag is still set) or has asked for
 * the engine already.
 */
static bool ct_timer_busy(struct rvt_qp *qp)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&qp->s_lock, flags);
	busy = timer_pending(&qp->s_timer) ||
	       hrtimer_active(&qp->s_rnr_timer) ||
	       (qp->s_flags & (RVT_S_TIMER | RVT_S_WAIT_RNR));
	spin_unlock_irqrestore(&qp->s_lock, flags);
	return busy;
}

/*
 * Is anything left to do: an armed timer or a pending engine? Timers
 * first: one that fires between the two checks leaves its engine pending.
 */
static bool ct_busy(void)
{
	struct ct_dev *dev = ct.dev;
	struct ct_qp *priv;
	unsigned long flags;
	bool busy = false;

	spin_lock_irqsave(&dev->qps_lock, flags);
	list_for_each_entry(priv, &dev->qps, all) {
		if (ct_timer_busy(priv->qp)) {
			busy = true;
			break;
		}
	}
	spin_unlock_irqrestore(&dev->qps_lock, flags);
	if (busy)
		return true;
	spin_lock_irqsave(&dev->pend_lock, flags);
	busy = !list_empty(&dev->pending);
	spin_unlock_irqrestore(&dev->pend_lock, flags);
	return busy;
}

/**
 * ct_settle - run pending engines until nothing is pending or armed
 * @ms: how long to wait for timers at most
 *
 * Context: the script; sleeps.
 * Return: 0, or -ETIMEDOUT (logged) if still busy after @ms.
 */
int ct_settle(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		ct_pump();
		if (!ct_busy())
			return 0;
		if (time_after(jiffies, end)) {
			ct_log("settle: still busy after %u ms", ms);
			return -ETIMEDOUT;
		}
		usleep_range(500, 1000);
	}
}

/**
 * ct_restart_rc - notify_restart_rc(): the retry timer expired
 * @qp: the RC QP
 * @psn: the PSN to resend from
 * @wait: set RVT_S_SEND_ONE (wait for an ACK before sending more)
 *
 * As qib_restart_rc(): out of retries, the first outstanding request
 * completes with IB_WC_RETRY_EXC_ERR and the QP goes to ERR; otherwise
 * the engine rewinds to the first unacknowledged request.
 *
 * Context: r_lock and s_lock held (rdmavt's retry timer).
 */
void ct_restart_rc(struct rvt_qp *qp, u32 psn, int wait)
{
	struct ct_qp *priv = qp->priv;
	struct rvt_swqe *wqe;
	u32 len, left;

	if (qp->s_acked == qp->s_head) {
		ct_log("restart %s: nothing outstanding", priv->label);
		return;
	}
	wqe = rvt_get_swqe_ptr(qp, qp->s_acked);
	if (!qp->s_retry) {
		if (qp->s_last != qp->s_acked)
			return;
		ct_ex(EX_SEND_COMPLETE);
		rvt_send_complete(qp, wqe, IB_WC_RETRY_EXC_ERR);
		ct_ex(EX_ERROR_QP);
		rvt_error_qp(qp, IB_WC_WR_FLUSH_ERR);
		priv->wire = 0;
		return;
	}
	qp->s_retry--;
	ct_port(qp->port_num)->rvp.n_rc_resends +=
		(qp->s_psn - psn) & ct.dev->rdi.dparms.psn_mask;
	qp->s_flags &= ~(RVT_S_WAIT_FENCE | RVT_S_WAIT_RDMAR |
			 RVT_S_WAIT_SSN_CREDIT | RVT_S_WAIT_PSN |
			 RVT_S_WAIT_ACK);
	if (wait)
		qp->s_flags |= RVT_S_SEND_ONE;
	qp->s_cur = qp->s_acked;
	qp->s_psn = psn;
	priv->wire = 0;
	len = ((psn - wqe->psn) & ct.dev->rdi.dparms.psn_mask) * qp->pmtu;
	ct_ex(EX_RESTART_SGE);
	left = rvt_restart_sge(&qp->s_sge, wqe, min(len, wqe->length));
	ct_log("restart %s: psn=%#x retry=%u restart_sge(%u)=%u num_sge=%u",
	       priv->label, psn, qp->s_retry, len, left, qp->s_sge.num_sge);
}

/**
 * ct_rc_ack - an ACK for every request up to @aeth arrives
 * @qp: the requester, an RC QP sending on the wire
 * @aeth: the AETH of the ACK, as the responder computed it
 *
 * What a driver's RC receive path does with an ACK: take the credit
 * (rvt_get_credit()), complete the acknowledged requests, stop or restart
 * the retry timer.
 *
 * Context: the script.
 */
void ct_rc_ack(struct rvt_qp *qp, u32 aeth)
{
	struct ct_qp *priv = qp->priv;
	unsigned long flags;

	spin_lock_irqsave(&qp->s_lock, flags);
	ct_ex(EX_GET_CREDIT);
	rvt_get_credit(qp, aeth);
	while (qp->s_acked != qp->s_cur && qp->s_last == qp->s_acked) {
		struct rvt_swqe *wqe = rvt_get_swqe_ptr(qp, qp->s_acked);

		qp->s_last_psn = wqe->lpsn;
		ct_ex(EX_SEND_COMPLETE);
		rvt_send_complete(qp, wqe, IB_WC_SUCCESS);
		if (priv->wire)
			priv->wire--;
	}
	qp->s_retry = qp->s_retry_cnt;
	if (qp->s_acked == qp->s_cur) {
		ct_ex(EX_STOP_RC_TIMERS);
		rvt_stop_rc_timers(qp);
	} else {
		rvt_mod_retry_timer(qp);
	}
	ct_log("ack %s aeth=%#x s_lsn=%#x s_flags=%#x", priv->label, aeth,
	       qp->s_lsn, qp->s_flags);
	spin_unlock_irqrestore(&qp->s_lock, flags);
}
