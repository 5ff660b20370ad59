// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Shared receive queues.
 *
 * An SRQ is a ring of receive requests that the QPs attached to it take
 * their requests from (rvt_get_rwqe()). Unlike a QP's receive queue it can
 * be resized, so its entries do not live in its struct rvt_krwq:
 *
 * - srq->rq.kwq is allocated once and never replaced. It holds the locks
 *   and, for a kernel SRQ, the head and tail indices; kwq->curr_wq points
 *   at the entries of the current ring.
 * - srq->rq.wq is the current ring. A user SRQ's ring is vmalloc_user()
 *   memory the process maps (rdma-core's ipathverbs/hfi1verbs post to it
 *   directly) and its indices are the ring's own head and tail; it
 *   belongs to srq->ip and lives until the process unmaps it. A kernel
 *   SRQ's ring is plain vzalloc() memory whose head and tail are unused.
 *
 * Locking: kwq->c_lock serialises consumers, kwq->p_lock kernel
 * producers. A resize holds both (c_lock first, as every path that takes
 * both) while it moves the entries and swaps the ring, so whoever holds
 * either sees the ring, rq.size and the indices agree. srq->limit is
 * guarded by c_lock. rdi->n_srqs_lock guards rdi->n_srqs_allocated.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/overflow.h>
#include <rdma/uverbs_ioctl.h>
#include "qp_parts.h"
#include "mmap.h"
#include "srq.h"
#include "rq.h"
#include "count.h"

/* rq.max_sge is a u8. */
#define RVT_SRQ_MAX_SGE U8_MAX

/**
 * rvt_driver_srq_init - set up a device's SRQ accounting
 * @rdi: the device, being registered
 *
 * Context: process context, before the device is visible.
 */
void rvt_driver_srq_init(struct rvt_dev_info *rdi)
{
	spin_lock_init(&rdi->n_srqs_lock);
	rdi->n_srqs_allocated = 0;
}

/**
 * rvt_srq_event - deliver an asynchronous event about an SRQ to its owner
 * @srq: the SRQ
 * @type: the event
 *
 * Context: any, without the SRQ's locks.
 */
void rvt_srq_event(struct rvt_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

static size_t rvt_srq_ring_size(u32 entries, u8 max_sge)
{
	return size_add(sizeof(struct rvt_rwq),
			array_size(entries, rvt_rwqe_size(max_sge)));
}

static struct rvt_rwq *rvt_srq_alloc_ring(struct rvt_dev_info *rdi,
					  u32 entries, u8 max_sge, bool user)
{
	size_t size = rvt_srq_ring_size(entries, max_sge);

	if (user)
		return vmalloc_user(size);
	return vzalloc_node(size, rdi->dparms.node);
}

static int rvt_srq_check_init_attr(struct rvt_dev_info *rdi,
				   const struct ib_srq_init_attr *init_attr)
{
	const struct ib_device_attr *props = &rdi->dparms.props;
	const struct ib_srq_attr *attr = &init_attr->attr;

	if (init_attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_sge ||
	    attr->max_sge > min_t(u32, props->max_srq_sge, RVT_SRQ_MAX_SGE) ||
	    !attr->max_wr || attr->max_wr > props->max_srq_wr)
		return -EINVAL;
	return 0;
}

/* The ring and its locks; a user SRQ's ring also gets its mmap cookie. */
static int rvt_srq_init_queue(struct rvt_dev_info *rdi, struct rvt_srq *srq,
			      const struct ib_srq_attr *attr,
			      struct ib_udata *udata)
{
	struct rvt_rq *rq = &srq->rq;
	u32 entries = attr->max_wr + 1;

	rq->size = entries;
	rq->max_sge = attr->max_sge;
	spin_lock_init(&rq->lock);
	rq->kwq = kzalloc_node(sizeof(*rq->kwq), GFP_KERNEL, rdi->dparms.node);
	if (!rq->kwq)
		return -ENOMEM;
	spin_lock_init(&rq->kwq->p_lock);
	spin_lock_init(&rq->kwq->c_lock);
	rq->wq = rvt_srq_alloc_ring(rdi, entries, rq->max_sge, udata);
	if (!rq->wq)
		return -ENOMEM;
	rq->kwq->curr_wq = rq->wq->wq;
	if (!udata)
		return 0;

	srq->ip = rvt_create_mmap_info(rdi,
				       rvt_srq_ring_size(entries, rq->max_sge),
				       udata, rq->wq);
	if (IS_ERR(srq->ip)) {
		int ret = PTR_ERR(srq->ip);

		srq->ip = NULL;
		return ret;
	}
	return ib_copy_to_udata(udata, &srq->ip->offset,
				sizeof(srq->ip->offset));
}

/**
 * rvt_create_srq - create a shared receive queue
 *		    (ib_device_ops.create_srq)
 * @ibsrq: the SRQ, allocated and zeroed by the IB core
 * @init_attr: its type (only IB_SRQT_BASIC) and attributes: max_wr and
 *	       max_sge within the device's limits (max_sge also within 255),
 *	       srq_limit (0: not armed)
 * @udata: the process's request and response for a user SRQ, or NULL
 *
 * A user SRQ's ring is mapped by the process, at the offset returned as
 * the u64 driver response.
 *
 * Context: process context; may sleep.
 * Return: 0; -EOPNOTSUPP for another SRQ type; -EINVAL for sizes out of
 * range or a user response without room for the offset; -ENOMEM if out of
 * memory or SRQs (props.max_srq); -EFAULT if the response cannot be
 * written.
 */
int rvt_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibsrq->device);
	struct rvt_srq *srq = ibsrq_to_rvtsrq(ibsrq);
	int ret;

	ret = rvt_srq_check_init_attr(rdi, init_attr);
	if (ret)
		return ret;
	/* Without room for the offset the process could not map the ring. */
	if (udata && udata->outlen < sizeof(__u64))
		return -EINVAL;
	ret = rvt_count_get(&rdi->n_srqs_lock, &rdi->n_srqs_allocated,
			    rdi->dparms.props.max_srq) ? 0 : -ENOMEM;
	if (ret)
		return ret;
	ret = rvt_srq_init_queue(rdi, srq, &init_attr->attr, udata);
	if (ret) {
		rvt_release_rq(&srq->rq, &srq->ip);
		rvt_count_put(&rdi->n_srqs_lock, &rdi->n_srqs_allocated);
		return ret;
	}
	srq->limit = init_attr->attr.srq_limit;
	if (srq->ip)
		rvt_publish_mmap_info(rdi, srq->ip);
	return 0;
}

/*
 * A user SRQ's modify command carries the address of a u64 in the
 * process where the new ring's mmap offset goes (rdma-core's
 * ipath_modify_srq_cmd). Point the response at it and check that it can
 * be written before anything changes.
 */
static int rvt_srq_offset_response(struct ib_udata *udata)
{
	__u64 offset_addr, none = 0;
	int ret;

	if (!udata || udata->inlen < sizeof(offset_addr))
		return -EINVAL;
	ret = ib_copy_from_udata(&offset_addr, udata, sizeof(offset_addr));
	if (ret)
		return ret;
	udata->outbuf = u64_to_user_ptr(offset_addr);
	udata->outlen = sizeof(__u64);
	return ib_copy_to_udata(udata, &none, sizeof(none));
}

/*
 * Move the posted requests, oldest first, to the start of @ring, which has
 * @entries slots, and make it the SRQ's ring. Needs c_lock and p_lock.
 * Return: the old ring, or NULL if @ring cannot hold them all or the
 * process has corrupted the indices.
 */
static struct rvt_rwq *rvt_srq_swap_ring(struct rvt_srq *srq,
					 struct rvt_rwq *ring, u32 entries)
{
	struct rvt_rq *rq = &srq->rq;
	struct rvt_rwq *old = rq->wq;
	u32 stride = rvt_rwqe_size(rq->max_sge);
	u32 head, tail, n;

	if (!rvt_rq_load(rq, srq->ip, &head, &tail) ||
	    rvt_get_rq_count(rq, head, tail) >= entries)
		return NULL;
	for (n = 0; tail != head; n++, tail = rvt_rq_next(rq, tail))
		memcpy((char *)ring->wq + (size_t)n * stride,
		       rvt_get_rwqe_ptr(rq, tail), stride);
	rq->wq = ring;
	rq->kwq->curr_wq = ring->wq;
	rq->size = entries;
	if (srq->ip) {
		RDMA_WRITE_UAPI_ATOMIC(ring->tail, 0);
		RDMA_WRITE_UAPI_ATOMIC(ring->head, n);
	} else {
		rq->kwq->tail = 0;
		rq->kwq->head = n;
	}
	return old;
}

/* The part of a resize done under the locks. Return: the old ring. */
static struct rvt_rwq *rvt_srq_resize_locked(struct rvt_srq *srq,
					     struct rvt_rwq *ring,
					     struct rvt_mmap_info **ip,
					     const struct ib_srq_attr *attr,
					     enum ib_srq_attr_mask mask)
{
	struct rvt_krwq *kwq = srq->rq.kwq;
	u32 limit = mask & IB_SRQ_LIMIT ? attr->srq_limit : srq->limit;
	struct rvt_rwq *old = NULL;

	spin_lock_irq(&kwq->c_lock);
	spin_lock(&kwq->p_lock);
	if (limit <= attr->max_wr)
		old = rvt_srq_swap_ring(srq, ring, attr->max_wr + 1);
	if (old) {
		srq->limit = limit;
		swap(srq->ip, *ip);
	}
	spin_unlock(&kwq->p_lock);
	spin_unlock_irq(&kwq->c_lock);
	return old;
}

/*
 * Resize to attr->max_wr requests, keeping the ones posted; also set the
 * limit if asked. A user SRQ gets its new ring's mmap offset written
 * where the command said.
 */
static int rvt_srq_resize(struct rvt_dev_info *rdi, struct rvt_srq *srq,
			  const struct ib_srq_attr *attr,
			  enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	u32 entries = attr->max_wr + 1;
	bool user = !!srq->ip;	/* an SRQ never changes kind */
	struct rvt_mmap_info *ip = NULL;
	struct rvt_rwq *ring, *old;
	int ret;

	if (!attr->max_wr || attr->max_wr > rdi->dparms.props.max_srq_wr)
		return -EINVAL;
	if (user) {
		ret = rvt_srq_offset_response(udata);
		if (ret)
			return ret;
	}
	ring = rvt_srq_alloc_ring(rdi, entries, srq->rq.max_sge, user);
	if (!ring)
		return -ENOMEM;
	if (user) {
		ip = rvt_create_mmap_info(rdi, rvt_srq_ring_size(entries,
								 srq->rq.max_sge),
					  udata, ring);
		if (IS_ERR(ip)) {
			vfree(ring);
			return PTR_ERR(ip);
		}
	}

	old = rvt_srq_resize_locked(srq, ring, &ip, attr, mask);
	if (!old) {
		rvt_free_ring(ring, ip);
		return -EINVAL;
	}
	/* ip is now the old ring's descriptor, if a user ring. */
	rvt_free_ring(old, ip);
	return user ? rvt_publish_ring(rdi, srq->ip, udata) : 0;
}

static int rvt_srq_set_limit(struct rvt_srq *srq, u32 limit)
{
	struct rvt_krwq *kwq = srq->rq.kwq;
	int ret = 0;

	spin_lock_irq(&kwq->c_lock);
	if (limit >= srq->rq.size)
		ret = -EINVAL;
	else
		srq->limit = limit;
	spin_unlock_irq(&kwq->c_lock);
	return ret;
}

/**
 * rvt_modify_srq - resize an SRQ or arm its limit
 *		    (ib_device_ops.modify_srq)
 * @ibsrq: the SRQ
 * @attr: max_wr for IB_SRQ_MAX_WR, srq_limit for IB_SRQ_LIMIT
 * @attr_mask: IB_SRQ_MAX_WR and/or IB_SRQ_LIMIT
 * @udata: for a user SRQ, the process's request: a u64 holding the
 *	   address where the new ring's mmap offset is to be written
 *
 * Resizing keeps the requests posted, which must fit; a user SRQ's old
 * ring stays mapped until the process unmaps it, and the process maps the
 * new one at the offset written for it (0 is written there first, while
 * checking that it can be). A limit (at most max_wr; 0 disarms) arms the
 * SRQ: IB_EVENT_SRQ_LIMIT_REACHED is delivered once fewer requests than
 * that remain, and the SRQ is disarmed again.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for other attributes, a size out of range or too
 * small for the requests posted, a limit above max_wr, or a user resize
 * without an offset address; -ENOMEM; -EFAULT if the offset cannot be
 * written (nothing is changed if the first write fails).
 */
int rvt_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask attr_mask, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibsrq->device);
	struct rvt_srq *srq = ibsrq_to_rvtsrq(ibsrq);

	if (attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (attr_mask & IB_SRQ_MAX_WR)
		return rvt_srq_resize(rdi, srq, attr, attr_mask, udata);
	if (attr_mask & IB_SRQ_LIMIT)
		return rvt_srq_set_limit(srq, attr->srq_limit);
	return 0;
}

/**
 * rvt_query_srq - report an SRQ's attributes (ib_device_ops.query_srq)
 * @ibsrq: the SRQ
 * @attr: filled with max_wr, max_sge and the armed limit (0 if none)
 *
 * Context: process context.
 * Return: 0.
 */
int rvt_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rvt_srq *srq = ibsrq_to_rvtsrq(ibsrq);
	struct rvt_krwq *kwq = srq->rq.kwq;

	spin_lock_irq(&kwq->c_lock);
	attr->max_wr = srq->rq.size - 1;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irq(&kwq->c_lock);
	return 0;
}

/**
 * rvt_destroy_srq - destroy an SRQ (ib_device_ops.destroy_srq)
 * @ibsrq: the SRQ; the IB core has checked that no QP uses it
 * @udata: the process's request, unused
 *
 * A user SRQ's ring lives on until the process unmaps it.
 *
 * Context: process context.
 * Return: 0.
 */
int rvt_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct rvt_srq *srq = ibsrq_to_rvtsrq(ibsrq);

	struct rvt_dev_info *rdi = ib_to_rvt(ibsrq->device);

	rvt_release_rq(&srq->rq, &srq->ip);
	rvt_count_put(&rdi->n_srqs_lock, &rdi->n_srqs_allocated);
	return 0;
}

/**
 * rvt_post_srq_recv - post receive requests on a kernel SRQ
 *		       (ib_device_ops.post_srq_recv)
 * @ibsrq: the SRQ
 * @wr: the first request of a list
 * @bad_wr: set to the first request not posted, on error
 *
 * The requests' SGEs are checked when a QP takes them. A user SRQ is
 * posted to by its process, directly on the mapped ring.
 *
 * Context: any, including interrupt context; takes the SRQ's p_lock.
 * Return: 0; -EINVAL for a user SRQ or a request with too many SGEs;
 * -ENOMEM if the SRQ is full. The requests before *@bad_wr are posted.
 */
int rvt_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct rvt_srq *srq = ibsrq_to_rvtsrq(ibsrq);

	if (srq->ip) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return rvt_rq_post_list(&srq->rq, NULL, wr, bad_wr);
}
