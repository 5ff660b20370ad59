// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Send queues: the ring of a QP's send work requests, and what comes with
 * it, allocated when the QP is created and freed when it is destroyed (as
 * qp_recv.c does for receive queues).
 *
 * The ring, s_wq, holds s_size entries of struct rvt_swqe with s_max_sge
 * SGEs each (rvt_get_swqe_ptr()); post_send fills them (qp_send.c) and the
 * driver's send engine consumes them. A datagram QP's entries each point
 * into one array of address vectors; an RC QP has its queue of RDMA read
 * and atomic responses, s_ack_queue, beside the ring. Nothing here takes a
 * lock: no one else sees the QP yet, or any more.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include "qp_parts.h"

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
 * Return: 0 or -ENOMEM; what was allocated is freed by rvt_free_sq().
 */
int rvt_alloc_sq(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		 struct ib_qp_init_attr *init_attr)
{
	const struct ib_qp_cap *cap = &init_attr->cap;
	int node = rdi->dparms.node;
	u32 entries = cap->max_send_wr + 1 + rdi->dparms.reserved_operations;
	size_t stride = struct_size_t(struct rvt_swqe, sg_list,
				      cap->max_send_sge);

	qp->s_wq = kvzalloc_node(array_size(stride, entries), GFP_KERNEL, node);
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
 * rvt_free_sq - free what rvt_alloc_sq() allocated, however far it got
 * @qp: the QP
 *
 * Context: process context.
 */
void rvt_free_sq(struct rvt_qp *qp)
{
	free_ud_wq_attr(qp);
	kvfree(qp->s_wq);
	qp->s_wq = NULL;
	kfree(qp->s_ack_queue);
	qp->s_ack_queue = NULL;
}
