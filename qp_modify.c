// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The consumer's view of a QP's state machine: modify_qp and query_qp.
 *
 * modify_qp: everything is checked before anything changes, all under the QP's three
 * locks: a refused modification leaves the QP exactly as it was. The
 * legal transitions and the attributes each one requires or allows are
 * the IBTA's, as the IB core's ib_modify_qp_is_ok() encodes them; the
 * values are checked here, then the driver may veto (check_modify_qp).
 */
#include "qp_exports.h"
#include "qp.h"

/* IBTA field widths of the timer and retry attributes. */
#define RVT_MAX_TIMEOUT 31
#define RVT_MAX_RETRY 7

/**
 * struct rvt_modify - what checking a modification worked out
 * @cur: the QP's state now
 * @next: the state asked for (@cur if the state does not change)
 * @pmtu: the path MTU (enum ib_mtu) the driver allows, with IB_QP_PATH_MTU
 * @migrate: an armed alternate path is to become the primary
 */
struct rvt_modify {
	enum ib_qp_state cur;
	enum ib_qp_state next;
	int pmtu;
	bool migrate;
};

/**
 * rvt_check_qp_av - check an address vector for a QP path
 * @rdi: the device
 * @ah_attr: the primary or alternate path's address vector
 *
 * The destination must be a unicast LID, then the address vector must
 * pass rvt_check_ah() (which asks the driver): in that order, so that the
 * driver sees the same calls as under upstream's rdmavt.
 *
 * Context: any (the port query does not sleep).
 * Return: 0, or -EINVAL (or the driver's errno).
 */
static int rvt_check_qp_av(struct rvt_dev_info *rdi,
			   struct rdma_ah_attr *ah_attr)
{
	u32 dlid = rdma_ah_get_dlid(ah_attr);
	u32 mcast_base = be16_to_cpu(IB_MULTICAST_LID_BASE);

	if (rdma_cap_opa_ah(&rdi->ibdev, rdma_ah_get_port_num(ah_attr)))
		mcast_base = opa_get_mcast_base(OPA_MCAST_NR);
	if (dlid >= mcast_base)
		return -EINVAL;
	return rvt_check_ah(&rdi->ibdev, ah_attr);
}

/**
 * rvt_check_paths - check the address vectors and P_Key indices
 * @rdi: the device
 * @attr: the new values
 * @mask: which of them to use
 *
 * Context: QP locks held.
 * Return: 0 or -EINVAL.
 */
static int rvt_check_paths(struct rvt_dev_info *rdi, struct ib_qp_attr *attr,
			   int mask)
{
	u32 npkeys = rvt_get_npkeys(rdi);

	if ((mask & IB_QP_AV) && rvt_check_qp_av(rdi, &attr->ah_attr))
		return -EINVAL;
	if ((mask & IB_QP_ALT_PATH) &&
	    (rvt_check_qp_av(rdi, &attr->alt_ah_attr) ||
	     attr->alt_pkey_index >= npkeys))
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= npkeys)
		return -EINVAL;
	return 0;
}

/**
 * rvt_check_transport - check the port, destination and retry attributes
 * @rdi: the device
 * @attr: the new values
 * @mask: which of them to use
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
static int rvt_check_transport(struct rvt_dev_info *rdi,
			       struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_MIN_RNR_TIMER) &&
	    attr->min_rnr_timer > RVT_MAX_TIMEOUT)
		return -EINVAL;
	if ((mask & IB_QP_PORT) &&
	    (attr->port_num < 1 || attr->port_num > rdi->ibdev.phys_port_cnt))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > RVT_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > RVT_MAX_RETRY)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > RVT_MAX_RETRY)
		return -EINVAL;
	return 0;
}

/**
 * rvt_check_mig_state - check a path migration state change
 * @qp: the QP
 * @attr: the new values
 * @mask: which of them to use
 * @m: the transition; @m->migrate is set if the QP is to migrate
 *
 * The consumer may rearm a migrated QP in RTS (the driver arms it once the
 * alternate path is loaded), or force an armed QP in RTS or SQD onto its
 * alternate path; ARMED is the device's to set.
 *
 * Context: QP locks held.
 * Return: 0 or -EINVAL.
 */
static int rvt_check_mig_state(struct rvt_qp *qp, struct ib_qp_attr *attr,
			       int mask, struct rvt_modify *m)
{
	if (!(mask & IB_QP_PATH_MIG_STATE))
		return 0;
	switch (attr->path_mig_state) {
	case IB_MIG_REARM:
		if (qp->s_mig_state == IB_MIG_ARMED || m->next != IB_QPS_RTS)
			return -EINVAL;
		return 0;
	case IB_MIG_MIGRATED:
		if (qp->s_mig_state == IB_MIG_REARM ||
		    (m->next != IB_QPS_RTS && m->next != IB_QPS_SQD))
			return -EINVAL;
		m->migrate = qp->s_mig_state == IB_MIG_ARMED;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * rvt_check_field_widths - what upstream's rdmavt takes but the IBTA does not
 * @attr: the new values
 * @mask: which of them to use
 *
 * Timeouts beyond their 5-bit IBTA fields (Documentation/differences.rst).
 * Checked last, after every check upstream makes, so that a driver sees
 * the same calls up to the refusal. Access flags and the initiator depth
 * are taken as upstream takes them: any flags, any max_rd_atomic.
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
static int rvt_check_field_widths(struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > RVT_MAX_TIMEOUT)
		return -EINVAL;
	if ((mask & IB_QP_ALT_PATH) && attr->alt_timeout > RVT_MAX_TIMEOUT)
		return -EINVAL;
	return 0;
}

/**
 * rvt_check_modify - check a whole modification before anything changes
 * @rdi: the device
 * @qp: the QP
 * @attr: the new values
 * @mask: which of them to use
 * @udata: the process's request, for the driver's check
 * @m: filled with the transition and what the checks worked out
 *
 * In upstream's order, callbacks included: the transition, the driver's
 * check_modify_qp(), the paths (check_ah), the transport values, the
 * path MTU (get_pmtu_from_attr()), the migration state, the responder's
 * resources; then the checks only this core makes.
 *
 * Context: QP locks held.
 * Return: 0, -EINVAL, or the driver's errno.
 */
static int rvt_check_modify(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			    struct ib_qp_attr *attr, int mask,
			    struct ib_udata *udata, struct rvt_modify *m)
{
	int ret;

	m->cur = qp->state;
	/* A consumer's idea of the current state must be right. */
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != m->cur)
		return -EINVAL;
	m->next = mask & IB_QP_STATE ? attr->qp_state : m->cur;
	if (!ib_modify_qp_is_ok(m->cur, m->next, qp->ibqp.qp_type, mask))
		return -EINVAL;
	if (rdi->driver_f.check_modify_qp &&
	    rdi->driver_f.check_modify_qp(qp, attr, mask, udata))
		return -EINVAL;
	if (rvt_check_paths(rdi, attr, mask) ||
	    rvt_check_transport(rdi, attr, mask))
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU) {
		/* The driver clamps to what the port supports, or refuses. */
		m->pmtu = rdi->driver_f.get_pmtu_from_attr(rdi, qp, attr);
		if (m->pmtu < 0)
			return -EINVAL;
	}
	ret = rvt_check_mig_state(qp, attr, mask, m);
	if (ret)
		return ret;
	/* The responder's resources are the s_ack_queue entries. */
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > rdi->dparms.max_rdma_atomic)
		return -EINVAL;
	return rvt_check_field_widths(attr, mask);
}

/**
 * rvt_enter_state - make a checked transition
 * @rdi: the device
 * @qp: the QP
 * @m: the transition
 *
 * Entering RESET resets the QP (dropping and retaking its locks), ERR
 * flushes it, RTR re-enables COMM_EST, SQD notes whether the send queue
 * is still draining; requests posted while the QP drained in SQD are
 * scheduled on its way back to RTS (sqd-resume in
 * Documentation/contract-differences.txt).
 *
 * Context: QP locks held; process context for RESET.
 * Return: 1 if IB_EVENT_QP_LAST_WQE_REACHED is due, else 0.
 */
static int rvt_enter_state(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   const struct rvt_modify *m)
{
	switch (m->next) {
	case IB_QPS_RESET:
		if (m->cur != IB_QPS_RESET)
			_rvt_reset_qp(rdi, qp, qp->ibqp.qp_type);
		return 0;
	case IB_QPS_ERR:
		return rvt_error_qp(qp, IB_WC_WR_FLUSH_ERR);
	case IB_QPS_RTR:
		/* Let the first packet raise COMM_EST again. */
		qp->r_flags &= ~RVT_R_COMM_EST;
		break;
	case IB_QPS_SQD:
		qp->s_draining = qp->s_last != qp->s_cur;
		break;
	default:
		break;
	}
	qp->state = m->next;
	/* Requests posted while the QP drained go out now. */
	if (m->next == IB_QPS_RTS && m->cur == IB_QPS_SQD &&
	    qp->s_last != qp->s_head)
		rdi->driver_f.schedule_send(qp);
	return 0;
}

/**
 * rvt_migrate - make the alternate path the primary one
 * @qp: an armed QP
 *
 * Context: QP locks held.
 */
static void rvt_migrate(struct rvt_qp *qp)
{
	rdma_replace_ah_attr(&qp->remote_ah_attr, &qp->alt_ah_attr);
	qp->port_num = rdma_ah_get_port_num(&qp->alt_ah_attr);
	qp->s_pkey_index = qp->s_alt_pkey_index;
}

/**
 * rvt_set_path - apply checked path attributes
 * @rdi: the device
 * @qp: the QP
 * @attr: the new values
 * @mask: which of them to use
 * @m: the transition and the driver's path MTU
 *
 * Context: QP locks held.
 */
static void rvt_set_path(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			 struct ib_qp_attr *attr, int mask,
			 const struct rvt_modify *m)
{
	if (mask & IB_QP_PKEY_INDEX)
		qp->s_pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		qp->port_num = attr->port_num;
	if (mask & IB_QP_AV) {
		rdma_replace_ah_attr(&qp->remote_ah_attr, &attr->ah_attr);
		qp->s_srate = rdma_ah_get_static_rate(&attr->ah_attr);
		qp->srate_mbps = ib_rate_to_mbps(qp->s_srate);
	}
	if (mask & IB_QP_ALT_PATH) {
		rdma_replace_ah_attr(&qp->alt_ah_attr, &attr->alt_ah_attr);
		qp->s_alt_pkey_index = attr->alt_pkey_index;
		qp->alt_timeout = attr->alt_timeout;
	}
	if (mask & IB_QP_PATH_MIG_STATE) {
		qp->s_mig_state = attr->path_mig_state;
		if (m->migrate)
			rvt_migrate(qp);
	}
	if (mask & IB_QP_PATH_MTU) {
		/* After the AV: the driver may look at its service level. */
		u32 pmtu = rdi->driver_f.mtu_from_qp(rdi, qp, m->pmtu);

		if (pmtu) {
			qp->pmtu = pmtu;
			qp->log_pmtu = ilog2(pmtu);
		}
	}
}

/**
 * rvt_set_psns - apply new packet sequence numbers
 * @rdi: the device; its psn_modify_mask applies
 * @qp: the QP
 * @attr: the new values
 * @mask: which of them to use
 *
 * A new send PSN restarts every send-side PSN from it.
 *
 * Context: QP locks held.
 */
static void rvt_set_psns(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			 struct ib_qp_attr *attr, int mask)
{
	u32 psn_mask = rdi->dparms.psn_modify_mask;

	if (mask & IB_QP_SQ_PSN) {
		qp->s_next_psn = attr->sq_psn & psn_mask;
		qp->s_psn = qp->s_next_psn;
		qp->s_sending_psn = qp->s_next_psn;
		qp->s_last_psn = qp->s_next_psn - 1;
		qp->s_sending_hpsn = qp->s_last_psn;
	}
	if (mask & IB_QP_RQ_PSN)
		qp->r_psn = attr->rq_psn & psn_mask;
}

/**
 * rvt_set_transport - apply checked transport attributes
 * @qp: the QP
 * @attr: the new values
 * @mask: which of them to use
 *
 * Context: QP locks held.
 */
static void rvt_set_transport(struct rvt_qp *qp, struct ib_qp_attr *attr,
			      int mask)
{
	if (mask & IB_QP_DEST_QPN)
		qp->remote_qpn = attr->dest_qp_num;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_TIMEOUT) {
		qp->timeout = attr->timeout;
		qp->timeout_jiffies = rvt_timeout_to_jiffies(qp->timeout);
	}
	if (mask & IB_QP_RETRY_CNT) {
		qp->s_retry_cnt = attr->retry_cnt;
		qp->s_retry = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		qp->s_rnr_retry_cnt = attr->rnr_retry;
		qp->s_rnr_retry = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->r_min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->s_max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->r_max_rd_atomic = attr->max_dest_rd_atomic;
}

/**
 * rvt_modify_qp - change a QP's state and attributes
 *		   (ib_device_ops.modify_qp)
 * @ibqp: the QP
 * @attr: the new values
 * @attr_mask: IB_QP_* bits naming the values of @attr to use; IB_QP_STATE
 *	       asks for a transition
 * @udata: the process's request, passed on to the driver's hooks
 *
 * The transition must be legal for the QP's type and supply every
 * attribute the IBTA requires for it and no other than it allows; with
 * IB_QP_CUR_STATE, attr->cur_qp_state must be the QP's state. Values are
 * checked: port and P_Key index exist; address vectors pass
 * rvt_check_ah() and name a unicast LID; the driver accepts the path
 * MTU; timeouts fit 5 bits and retry counts 3; max_dest_rd_atomic is
 * within the device's; the destination QPN fits 24 bits. Access flags
 * and max_rd_atomic are taken as given, as upstream takes them. PSNs are
 * masked with dparms.psn_modify_mask. Entering INIT from RESET puts the QP
 * in the QP table; entering RESET takes it out and discards its queues;
 * ERR flushes them; SQD notes whether the send queue is still draining
 * (en_sqd_async_notify is accepted but no SQ drained event is raised).
 * The driver's check_modify_qp() may refuse and its modify_qp() sees the
 * result, with the QP's locks held.
 *
 * Context: process context; sleeps when entering RESET. Takes the QP's
 * locks (interrupts disabled) around the checks and the changes, and
 * qpt_lock to insert the QP.
 * Return: 0; -EOPNOTSUPP for attribute bits beyond the standard ones; or
 * -EINVAL (or the driver's errno) for anything refused, with the QP left
 * unchanged.
 */
int rvt_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		  int attr_mask, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	struct rvt_modify m = { };
	int lastwqe;
	int ret;

	if (attr_mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	rvt_qp_lock(qp);
	ret = rvt_check_modify(rdi, qp, attr, attr_mask, udata, &m);
	if (ret) {
		rvt_qp_unlock(qp);
		return ret;
	}
	lastwqe = rvt_enter_state(rdi, qp, &m);
	rvt_set_path(rdi, qp, attr, attr_mask, &m);
	rvt_set_psns(rdi, qp, attr, attr_mask);
	rvt_set_transport(qp, attr, attr_mask);
	if (rdi->driver_f.modify_qp)
		rdi->driver_f.modify_qp(qp, attr, attr_mask, udata);
	/* Findable only once complete, and atomically with the state. */
	if (m.cur == IB_QPS_RESET && m.next == IB_QPS_INIT)
		rvt_insert_qp(rdi, qp);
	rvt_qp_unlock(qp);

	if (lastwqe)
		rvt_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	if (m.migrate)
		rvt_qp_event(qp, IB_EVENT_PATH_MIG);
	return 0;
}

/*
 * query_qp: a QP's current attributes and its creation attributes.
 */

/**
 * rvt_query_caps - a QP's queue sizes as the consumer asked for them
 * @rdi: the device
 * @qp: the QP
 * @cap: filled in
 *
 * Context: any.
 */
static void rvt_query_caps(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   struct ib_qp_cap *cap)
{
	cap->max_send_wr = qp->s_size - 1 - rdi->dparms.reserved_operations;
	cap->max_send_sge = qp->s_max_sge;
	/* A QP on an SRQ has no receive queue of its own. */
	cap->max_recv_wr = qp->ibqp.srq ? 0 : qp->r_rq.size - 1;
	cap->max_recv_sge = qp->ibqp.srq ? 0 : qp->r_rq.max_sge;
	cap->max_inline_data = 0;
}

/**
 * rvt_query_path - a QP's path attributes
 * @rdi: the device
 * @qp: the QP
 * @attr: filled in
 *
 * Context: any.
 */
static void rvt_query_path(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   struct ib_qp_attr *attr)
{
	attr->path_mtu = rdi->driver_f.mtu_to_path_mtu(qp->pmtu);
	attr->path_mig_state = qp->s_mig_state;
	attr->ah_attr = qp->remote_ah_attr;
	attr->alt_ah_attr = qp->alt_ah_attr;
	attr->pkey_index = qp->s_pkey_index;
	attr->alt_pkey_index = qp->s_alt_pkey_index;
	attr->port_num = qp->port_num;
	attr->alt_port_num = rdma_ah_get_port_num(&qp->alt_ah_attr);
	attr->timeout = qp->timeout;
	attr->alt_timeout = qp->alt_timeout;
}

/**
 * rvt_query_transport - a QP's transport attributes
 * @rdi: the device; its psn_mask applies to the PSNs
 * @qp: the QP
 * @attr: filled in
 *
 * Context: any.
 */
static void rvt_query_transport(struct rvt_dev_info *rdi, struct rvt_qp *qp,
				struct ib_qp_attr *attr)
{
	u32 psn_mask = rdi->dparms.psn_mask;

	attr->qkey = qp->qkey;
	attr->rq_psn = qp->r_psn & psn_mask;
	attr->sq_psn = qp->s_next_psn & psn_mask;
	attr->dest_qp_num = qp->remote_qpn;
	attr->qp_access_flags = qp->qp_access_flags;
	attr->en_sqd_async_notify = 0;
	attr->sq_draining = qp->s_draining;
	attr->max_rd_atomic = qp->s_max_rd_atomic;
	attr->max_dest_rd_atomic = qp->r_max_rd_atomic;
	attr->min_rnr_timer = qp->r_min_rnr_timer;
	attr->retry_cnt = qp->s_retry_cnt;
	attr->rnr_retry = qp->s_rnr_retry_cnt;
}

/**
 * rvt_query_init_attr - a QP's creation attributes
 * @qp: the QP
 * @init_attr: filled in
 * @cap: its queue sizes, from rvt_query_caps()
 *
 * Context: any.
 */
static void rvt_query_init_attr(struct rvt_qp *qp,
				struct ib_qp_init_attr *init_attr,
				const struct ib_qp_cap *cap)
{
	init_attr->event_handler = qp->ibqp.event_handler;
	init_attr->qp_context = qp->ibqp.qp_context;
	init_attr->send_cq = qp->ibqp.send_cq;
	init_attr->recv_cq = qp->ibqp.recv_cq;
	init_attr->srq = qp->ibqp.srq;
	init_attr->cap = *cap;
	init_attr->sq_sig_type = qp->s_flags & RVT_S_SIGNAL_REQ_WR ?
				 IB_SIGNAL_REQ_WR : IB_SIGNAL_ALL_WR;
	init_attr->qp_type = qp->ibqp.qp_type;
	init_attr->port_num = qp->port_num;
}

/**
 * rvt_query_qp - query a QP (ib_device_ops.query_qp)
 * @ibqp: the IB QP to query
 * @attr: filled with the QP's current attributes, all of them
 * @attr_mask: ignored: every attribute is returned whatever it asks for
 * @init_attr: filled with the attributes the QP was created with (CQs,
 *	       SRQ, queue sizes, signalling mode, type, port)
 *
 * Fills in both @attr and @init_attr. PSNs are reported masked with
 * dparms.psn_mask, the path MTU as the driver's mtu_to_path_mtu() gives
 * it; inline data and SQ drained notification are reported as 0, as they
 * are not supported. The QP's locks are not taken (a query may come from
 * one of its event handlers): a query racing a modification may see part
 * of it.
 *
 * Context: any.
 * Return: always 0.
 */
int rvt_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		 int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);

	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	rvt_query_caps(rdi, qp, &attr->cap);
	rvt_query_path(rdi, qp, attr);
	rvt_query_transport(rdi, qp, attr);
	rvt_query_init_attr(qp, init_attr, &attr->cap);
	return 0;
}
