// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Creating and destroying QPs.
 *
 * A new QP is in RESET, with its send queue, its receive queue (unless it
 * uses an SRQ), its driver state and its QP number, but not in the QP
 * table: receive paths find it only from RESET->INIT on (qp_modify.c).
 *
 * The device's QP counts (n_qps_allocated against props.max_qp, n_rc_qps
 * and the busy_jiffies derived from it) are guarded by rdi->n_qps_lock.
 */
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include "vt.h"
#include "qp.h"
#include "mmap.h"

/* s_max_sge and r_rq.max_sge are u8. */
#define RVT_MAX_SGE U8_MAX

/**
 * rvt_check_qp_type - whether rdmavt supports a QP type as asked
 * @rdi: the device
 * @init_attr: the creation attributes
 * @udata: non-NULL for a user QP
 *
 * QP0 and QP1 are kernel QPs of a valid port.
 *
 * Context: any.
 * Return: 0, -EINVAL for an SMI/GSI QP from userspace or without a valid
 * port, -EOPNOTSUPP for a type other than RC, UC, UD, SMI and GSI.
 */
static int rvt_check_qp_type(struct rvt_dev_info *rdi,
			     struct ib_qp_init_attr *init_attr,
			     struct ib_udata *udata)
{
	switch (init_attr->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		return 0;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (udata || init_attr->port_num < 1 ||
		    init_attr->port_num > rdi->ibdev.phys_port_cnt)
			return -EINVAL;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * rvt_check_qp_caps - check the queue sizes asked for
 * @rdi: the device
 * @init_attr: the creation attributes
 *
 * Receive queue sizes do not matter with an SRQ.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a size beyond the device's limits or a QP with
 * no queue at all.
 */
static int rvt_check_qp_caps(struct rvt_dev_info *rdi,
			     struct ib_qp_init_attr *init_attr)
{
	const struct ib_device_attr *props = &rdi->dparms.props;
	const struct ib_qp_cap *cap = &init_attr->cap;
	u32 max_wr = props->max_qp_wr;

	if (cap->max_send_wr > max_wr ||
	    cap->max_send_sge > min_t(u32, props->max_send_sge, RVT_MAX_SGE))
		return -EINVAL;
	if (init_attr->srq)
		return 0;
	if (cap->max_recv_wr > max_wr ||
	    cap->max_recv_sge > min_t(u32, props->max_recv_sge, RVT_MAX_SGE))
		return -EINVAL;
	/* A QP that can neither send nor receive is a mistake. */
	if (!cap->max_send_wr && !cap->max_send_sge &&
	    !cap->max_recv_wr && !cap->max_recv_sge)
		return -EINVAL;
	return 0;
}

/**
 * rvt_check_qp_init_attr - check everything create_qp is asked for
 * @rdi: the device
 * @init_attr: the creation attributes
 * @udata: non-NULL for a user QP
 *
 * Context: any.
 * Return: 0, -EINVAL or -EOPNOTSUPP (see rvt_create_qp()).
 */
static int rvt_check_qp_init_attr(struct rvt_dev_info *rdi,
				  struct ib_qp_init_attr *init_attr,
				  struct ib_udata *udata)
{
	int ret;

	ret = rvt_check_qp_type(rdi, init_attr, udata);
	if (ret)
		return ret;
	if (init_attr->create_flags & ~IB_QP_CREATE_NETDEV_USE)
		return -EOPNOTSUPP;
	if (init_attr->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init_attr->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	return rvt_check_qp_caps(rdi, init_attr);
}

/**
 * rvt_count_qp - count a new QP against props.max_qp
 * @rdi: the device
 * @type: the QP's type; RC QPs also stretch the retry timeouts
 *	  (busy_jiffies grows by one every RC_QP_SCALING_INTERVAL RC QPs)
 *
 * Context: process context; takes n_qps_lock.
 * Return: 0, or -ENOMEM if the device has max_qp QPs already.
 */
static int rvt_count_qp(struct rvt_dev_info *rdi, enum ib_qp_type type)
{
	int ret = 0;

	spin_lock(&rdi->n_qps_lock);
	if (rdi->n_qps_allocated >= rdi->dparms.props.max_qp) {
		ret = -ENOMEM;
	} else {
		rdi->n_qps_allocated++;
		if (type == IB_QPT_RC) {
			rdi->n_rc_qps++;
			rdi->busy_jiffies =
				rdi->n_rc_qps / RC_QP_SCALING_INTERVAL;
		}
	}
	spin_unlock(&rdi->n_qps_lock);
	return ret;
}

/**
 * rvt_uncount_qp - undo rvt_count_qp()
 * @rdi: the device
 * @type: the QP's type
 *
 * Context: process context; takes n_qps_lock.
 */
static void rvt_uncount_qp(struct rvt_dev_info *rdi, enum ib_qp_type type)
{
	spin_lock(&rdi->n_qps_lock);
	rdi->n_qps_allocated--;
	if (type == IB_QPT_RC) {
		rdi->n_rc_qps--;
		rdi->busy_jiffies = rdi->n_rc_qps / RC_QP_SCALING_INTERVAL;
	}
	spin_unlock(&rdi->n_qps_lock);
}

/**
 * get_allowed_ops - the opcode class of a QP type's packets
 * @type: RC, UC, UD, SMI or GSI
 *
 * Context: any.
 * Return: IB_OPCODE_RC, IB_OPCODE_UC, or IB_OPCODE_UD for the datagram
 * types.
 */
static u8 get_allowed_ops(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return IB_OPCODE_RC;
	case IB_QPT_UC:
		return IB_OPCODE_UC;
	default:
		return IB_OPCODE_UD;
	}
}

/**
 * rvt_setup_qp - initialise what the IB core leaves zeroed and no reset
 *		  touches: locks, reference count, wait queue, timers, type
 * @qp: the new QP
 * @init_attr: its creation attributes
 *
 * Context: process context, before the QP is visible to anyone.
 */
static void rvt_setup_qp(struct rvt_qp *qp, struct ib_qp_init_attr *init_attr)
{
	spin_lock_init(&qp->r_lock);
	spin_lock_init(&qp->s_hlock);
	spin_lock_init(&qp->s_lock);
	atomic_set(&qp->refcount, 0);
	atomic_set(&qp->local_ops_pending, 0);
	init_waitqueue_head(&qp->wait);
	INIT_LIST_HEAD(&qp->rspwait);
	RCU_INIT_POINTER(qp->next, NULL);
	rvt_init_qp_timers(qp);
	qp->state = IB_QPS_RESET;
	qp->allowed_ops = get_allowed_ops(init_attr->qp_type);
	if (init_attr->sq_sig_type == IB_SIGNAL_REQ_WR)
		qp->s_flags = RVT_S_SIGNAL_REQ_WR;
	qp->timeout_jiffies = rvt_timeout_to_jiffies(qp->timeout);
}

/**
 * alloc_ud_wq_attr - give each send queue entry of a datagram QP room for
 *		      an address vector
 * @qp: a UD, SMI or GSI QP with its send queue allocated
 * @node: NUMA node
 *
 * Posting a UD send copies the AH's attributes into the entry (the AH may
 * be destroyed before the send completes); the room is allocated here, as
 * one array, so that posting never allocates.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
static int alloc_ud_wq_attr(struct rvt_qp *qp, int node)
{
	struct rdma_ah_attr *attrs;
	u32 i;

	attrs = kvcalloc_node(qp->s_size, sizeof(*attrs), GFP_KERNEL, node);
	if (!attrs)
		return -ENOMEM;
	for (i = 0; i < qp->s_size; i++)
		rvt_get_swqe_ptr(qp, i)->ud_wr.attr = &attrs[i];
	return 0;
}

/**
 * free_ud_wq_attr - free the address vectors of alloc_ud_wq_attr()
 * @qp: the QP; nothing happens unless it is a datagram QP that has them
 *
 * Context: process context.
 */
static void free_ud_wq_attr(struct rvt_qp *qp)
{
	if (qp->allowed_ops != IB_OPCODE_UD || !qp->s_wq)
		return;
	kvfree(rvt_get_swqe_ptr(qp, 0)->ud_wr.attr);
}

/**
 * rvt_alloc_sq - allocate a QP's send side
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 *
 * The send queue holds max_send_wr requests plus the driver's reserved
 * operations, plus the slot that tells a full ring from an empty one.
 * Datagram QPs get room for an address vector per entry, RC QPs their
 * queue of RDMA read and atomic responses (rvt_max_atomic() entries).
 *
 * Context: process context.
 * Return: 0 or -ENOMEM; what was allocated is freed by
 * rvt_free_qp_queues().
 */
static int rvt_alloc_sq(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			struct ib_qp_init_attr *init_attr)
{
	const struct ib_qp_cap *cap = &init_attr->cap;
	int node = rdi->dparms.node;
	u32 entries = cap->max_send_wr + 1 + rdi->dparms.reserved_operations;
	size_t stride = struct_size_t(struct rvt_swqe, sg_list,
				      cap->max_send_sge);

	qp->s_wq = vzalloc_node(array_size(stride, entries), node);
	if (!qp->s_wq)
		return -ENOMEM;
	qp->s_size = entries;
	qp->s_max_sge = cap->max_send_sge;
	qp->s_avail = cap->max_send_wr;

	if (qp->allowed_ops == IB_OPCODE_UD && alloc_ud_wq_attr(qp, node))
		return -ENOMEM;
	if (init_attr->qp_type == IB_QPT_RC) {
		qp->s_ack_queue = kcalloc_node(rvt_max_atomic(rdi),
					       sizeof(*qp->s_ack_queue),
					       GFP_KERNEL, node);
		if (!qp->s_ack_queue)
			return -ENOMEM;
	}
	return 0;
}

/**
 * rvt_alloc_qp_rq - allocate a QP's receive side
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 * @udata: non-NULL for a user QP, whose ring the process maps
 *
 * The receive queue, unless an SRQ stands in for it, and the SGE list the
 * receive path validates a request into.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM; what was allocated is freed by
 * rvt_free_qp_queues().
 */
static int rvt_alloc_qp_rq(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			   struct ib_qp_init_attr *init_attr,
			   struct ib_udata *udata)
{
	int node = rdi->dparms.node;
	u8 max_sge;
	int ret;

	if (init_attr->srq) {
		max_sge = ibsrq_to_rvtsrq(init_attr->srq)->rq.max_sge;
	} else {
		max_sge = init_attr->cap.max_recv_sge;
		ret = rvt_alloc_rq(&qp->r_rq, init_attr->cap.max_recv_wr + 1,
				   max_sge, node, udata);
		if (ret)
			return ret;
	}
	qp->r_sg_list = kcalloc_node(max_t(u8, max_sge, 1),
				     sizeof(*qp->r_sg_list), GFP_KERNEL, node);
	return qp->r_sg_list ? 0 : -ENOMEM;
}

/**
 * rvt_free_qp_queues - free what rvt_alloc_sq() and rvt_alloc_qp_rq()
 *			allocated, however far they got
 * @qp: the QP
 *
 * A user receive ring handed to the mmap machinery is only released: it
 * lives on until the process unmaps it.
 *
 * Context: process context.
 */
static void rvt_free_qp_queues(struct rvt_qp *qp)
{
	free_ud_wq_attr(qp);
	vfree(qp->s_wq);
	qp->s_wq = NULL;
	kfree(qp->s_ack_queue);
	qp->s_ack_queue = NULL;
	kfree(qp->r_sg_list);
	qp->r_sg_list = NULL;
	if (qp->ip) {
		/* The mapping owns the user ring now; it frees it last. */
		rvt_put_mmap_info(qp->ip);
		qp->ip = NULL;
		qp->r_rq.wq = NULL;
	}
	rvt_free_rq(&qp->r_rq);
}

/**
 * rvt_assign_qpn - give a new QP its number, and QP0/QP1 their port
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 *
 * Other types get their port from the RESET->INIT transition; a valid
 * port in @init_attr is only recorded for query_qp.
 *
 * Context: process context.
 * Return: 0 or rvt_alloc_qpn()'s errno.
 */
static int rvt_assign_qpn(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			  struct ib_qp_init_attr *init_attr)
{
	bool aip = init_attr->create_flags & IB_QP_CREATE_NETDEV_USE;
	u32 port_num = init_attr->port_num;
	int qpn;

	qpn = rvt_alloc_qpn(rdi, &rdi->qp_dev->qpn_table, init_attr->qp_type,
			    port_num, aip);
	if (qpn < 0)
		return qpn;
	qp->ibqp.qp_num = aip ? qpn | RVT_AIP_QP_BASE : qpn;
	/* Other types get their port from RESET->INIT. */
	if (port_num >= 1 && port_num <= rdi->ibdev.phys_port_cnt)
		qp->port_num = port_num;
	return 0;
}

/**
 * rvt_qp_user_response - tell the process where to map its receive ring
 * @rdi: the device
 * @qp: a user QP, complete but not yet published
 * @udata: the create_qp response
 *
 * The driver part of the response is the u64 mmap offset of the ring, or
 * 0 when the QP uses an SRQ and has no ring.
 *
 * Context: process context.
 * Return: 0; -EINVAL if the response has no room for the offset of a ring
 * the process would then be unable to map; -ENOMEM; or -EFAULT.
 */
static int rvt_qp_user_response(struct rvt_dev_info *rdi, struct rvt_qp *qp,
				struct ib_udata *udata)
{
	u64 offset = 0;

	qp->pid = current->pid;
	if (qp->r_rq.wq) {
		size_t size = sizeof(struct rvt_rwq) +
			      (size_t)qp->r_rq.size *
			      rvt_rwqe_size(qp->r_rq.max_sge);

		/* Without room for the offset the ring could not be mapped. */
		if (udata->outlen < sizeof(offset))
			return -EINVAL;
		qp->ip = rvt_create_mmap_info(rdi, size, udata, qp->r_rq.wq);
		if (IS_ERR(qp->ip)) {
			int ret = PTR_ERR(qp->ip);

			qp->ip = NULL;
			return ret;
		}
		offset = qp->ip->offset;
	}
	if (udata->outlen < sizeof(offset))
		return 0;
	return ib_copy_to_udata(udata, &offset, sizeof(offset));
}

/**
 * rvt_build_qp - everything create_qp does after the checks and the count
 * @rdi: the device
 * @qp: the QP
 * @init_attr: its creation attributes
 * @udata: the process's request and response, or NULL
 *
 * Context: process context; may sleep.
 * Return: 0 with the QP complete, or an errno with nothing left
 * allocated.
 */
static int rvt_build_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			struct ib_qp_init_attr *init_attr,
			struct ib_udata *udata)
{
	void *priv;
	int ret;

	rvt_setup_qp(qp, init_attr);
	ret = rvt_alloc_sq(rdi, qp, init_attr) ?:
	      rvt_alloc_qp_rq(rdi, qp, init_attr, udata);
	if (ret)
		goto free_queues;

	priv = rdi->driver_f.qp_priv_alloc(rdi, qp);
	if (IS_ERR(priv)) {
		ret = PTR_ERR(priv);
		goto free_queues;
	}
	qp->priv = priv;

	ret = rvt_assign_qpn(rdi, qp, init_attr);
	if (ret)
		goto free_priv;
	rvt_init_qp(rdi, qp, init_attr->qp_type);
	if (rdi->driver_f.qp_priv_init) {
		ret = rdi->driver_f.qp_priv_init(rdi, qp, init_attr);
		if (ret)
			goto free_qpn;
	}
	if (udata) {
		ret = rvt_qp_user_response(rdi, qp, udata);
		if (ret)
			goto free_qpn;
	}
	return 0;

free_qpn:
	rvt_free_qpn(&rdi->qp_dev->qpn_table, qp->ibqp.qp_num,
		     init_attr->qp_type, qp->port_num);
free_priv:
	rdi->driver_f.qp_priv_free(rdi, qp);
free_queues:
	rvt_free_qp_queues(qp);
	return ret;
}

/**
 * rvt_create_qp - create a queue pair (ib_device_ops.create_qp)
 * @ibqp: the QP, allocated and zeroed by the IB core (which sets all but
 *	  its number)
 * @init_attr: type, CQs, optional SRQ, queue sizes, signalling mode and,
 *	       for QP0 (SMI) and QP1 (GSI), the port
 * @udata: the process's request and response for a user QP, or NULL
 *
 * Supports RC, UC, UD, SMI and GSI QPs, one SMI and one GSI per port.
 * Queue sizes are checked against the device's limits (scatter/gather
 * entries also against the 255 the QP's fields hold); the send queue has
 * room for max_send_wr requests plus the driver's reserved operations.
 * Inline data is not supported: cap.max_inline_data is returned as 0.
 * A user QP's receive queue is a ring the process maps: its mmap offset
 * is the u64 driver response, 0 if the QP uses an SRQ. The QP starts in
 * RESET, outside the QP table.
 *
 * Context: process context; may sleep.
 * Return: 0; -EOPNOTSUPP for another QP type or creation flag; -EINVAL
 * for sizes beyond the device's limits, an SMI/GSI QP without a valid
 * port or from userspace, or a user response too short for the ring
 * offset; -EBUSY if the port already has that SMI or GSI QP; -ENOMEM if
 * out of memory, QP numbers, or QPs (props.max_qp); or the driver's errno.
 */
int rvt_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		  struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);
	int ret;

	ret = rvt_check_qp_init_attr(rdi, init_attr, udata);
	if (ret)
		return ret;
	ret = rvt_count_qp(rdi, init_attr->qp_type);
	if (ret)
		return ret;
	ret = rvt_build_qp(rdi, qp, init_attr, udata);
	if (ret) {
		rvt_uncount_qp(rdi, init_attr->qp_type);
		return ret;
	}
	init_attr->cap.max_inline_data = 0;
	/* Only now, with the QP complete, may the process map its ring. */
	if (qp->ip)
		rvt_publish_mmap_info(rdi, qp->ip);
	return 0;
}

/**
 * rvt_destroy_qp - destroy a queue pair (ib_device_ops.destroy_qp)
 * @ibqp: the QP, which may still be sending and receiving
 * @udata: the process's request, unused
 *
 * Resets the QP (out of the QP table, send engine and timers stopped,
 * memory references dropped), waits until no one holds a reference any
 * more, then frees its number and memory. A user receive ring lives on
 * until the process unmaps it.
 *
 * Context: process context; sleeps.
 * Return: 0.
 */
int rvt_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibqp->device);
	struct rvt_qp *qp = ibqp_to_rvtqp(ibqp);

	rvt_reset_qp(rdi, qp, ibqp->qp_type);
	wait_event(qp->wait, !atomic_read(&qp->refcount));
	/* Out of the table for a grace period: the number may go. */
	rvt_free_qpn(&rdi->qp_dev->qpn_table, ibqp->qp_num, ibqp->qp_type,
		     qp->port_num);
	rvt_uncount_qp(rdi, ibqp->qp_type);

	rdma_destroy_ah_attr(&qp->remote_ah_attr);
	rdma_destroy_ah_attr(&qp->alt_ah_attr);
	rdi->driver_f.qp_priv_free(rdi, qp);
	rvt_free_qp_queues(qp);
	return 0;
}
