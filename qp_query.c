// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * query_qp: a QP's current attributes and its creation attributes.
 */
#include "vt.h"
#include "qp.h"

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
