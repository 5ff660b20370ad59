// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Completion queues.
 *
 * A CQ is a ring of ibcq.cqe + 1 slots (one stays empty so that a full
 * ring differs from an empty one); head is the next slot the producer
 * fills, tail the next one the consumer reads, both in 0..ibcq.cqe.
 *
 * - Kernel CQs, and user CQs whose provider gave no room for an mmap
 *   cookie, keep a struct rvt_k_cq_wc ring (cq->kqueue, cq->ip NULL),
 *   drained by rvt_poll_cq().
 * - User CQs keep a struct rvt_cq_wc ring (cq->queue) in vmalloc_user()
 *   memory that the provider maps (cq->ip) and polls by itself. The
 *   process can write anything into that page, so every index read from
 *   it is clamped into the ring before use; the kernel publishes an entry
 *   with a release store of head and reads tail with an acquire load,
 *   pairing with the provider's acquire of head and release of tail.
 *
 * Locking: cq->lock (irqsave: completions arrive from any context)
 * guards the kernel side of the ring, cq->notify, cq->triggered,
 * cq->cq_full, and the ring pointers and ibcq.cqe, which only resize
 * changes. rdi->n_cqs_lock guards rdi->n_cqs_allocated.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>
#include "cq.h"
#include "exports.h"
#include "mmap.h"
#include "count.h"
/* The distro module's CQ code sees the tracepoint types: rvt_cq_enter's CRC. */
#include <linux/tracepoint.h>
#include <linux/trace_seq.h>
#include "trace_cq.h"

/*
 * Runs completion handlers. It exists from module load to unload, so
 * every CQ of every device can use it without further checks.
 */
static struct workqueue_struct *rvt_cq_wq;

/**
 * rvt_cq_module_init - create the completion workqueue
 *
 * Storage ULPs (SRP, iSER, NFS/RDMA) complete I/O through these
 * handlers, so the queue must make progress under memory pressure.
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int rvt_cq_module_init(void)
{
	rvt_cq_wq = alloc_workqueue("rdmavt_cq", WQ_HIGHPRI | WQ_CPU_INTENSIVE |
				    WQ_MEM_RECLAIM, 0);
	return rvt_cq_wq ? 0 : -ENOMEM;
}

/**
 * rvt_cq_module_exit - destroy the completion workqueue
 *
 * Context: module exit; no device, hence no CQ, is left.
 */
void rvt_cq_module_exit(void)
{
	destroy_workqueue(rvt_cq_wq);
}

/**
 * rvt_driver_cq_init - prepare CQ accounting at registration
 * @rdi: the device
 *
 * Context: process context, before the device is visible.
 */
void rvt_driver_cq_init(struct rvt_dev_info *rdi)
{
	spin_lock_init(&rdi->n_cqs_lock);
	rdi->n_cqs_allocated = 0;
}

static bool rvt_cq_size_ok(struct rvt_dev_info *rdi, u32 entries)
{
	int max_cqe = rdi->dparms.props.max_cqe;

	return entries >= 1 && max_cqe > 0 && entries <= (u32)max_cqe;
}

static size_t rvt_cq_ring_size(bool user, u32 entries)
{
	if (user)
		return struct_size_t(struct rvt_cq_wc, uqueue, entries + 1);
	return struct_size_t(struct rvt_k_cq_wc, kqueue, entries + 1);
}

/*
 * A zeroed ring: user rings come from vmalloc_user() so they can be
 * mapped; kernel rings from kvzalloc(), a slab object when small, which
 * spares creation and destruction vmalloc's page-table work.
 */
static void *rvt_cq_alloc_ring(struct rvt_dev_info *rdi, bool user,
			       u32 entries)
{
	size_t size = rvt_cq_ring_size(user, entries);

	if (user)
		return vmalloc_user(size);
	return kvzalloc_node(size, GFP_KERNEL, rdi->dparms.node);
}

static u32 rvt_cq_advance(const struct rvt_cq *cq, u32 index)
{
	return index >= (u32)cq->ibcq.cqe ? 0 : index + 1;
}

/* Read the ring's indices, clamped into the ring; needs cq->lock. */
static void rvt_cq_indices(struct rvt_cq *cq, u32 *head, u32 *tail)
{
	u32 last = cq->ibcq.cqe;

	lockdep_assert_held(&cq->lock);
	if (cq->ip) {
		*head = RDMA_READ_UAPI_ATOMIC(cq->queue->head);
		*tail = RDMA_READ_UAPI_ATOMIC(cq->queue->tail);
	} else {
		*head = cq->kqueue->head;
		*tail = cq->kqueue->tail;
	}
	*head = min(*head, last);
	*tail = min(*tail, last);
}

/*
 * The user ABI's completion: struct ib_wc without kernel pointers. Field
 * by field into the shared ring, every byte of the slot written (reserved
 * too: the slot may hold an older completion): a compound literal would
 * be built on the stack, zeroed and copied, on every completion.
 */
static void rvt_cq_store_user(struct rvt_cq_wc *ring, u32 slot,
			      const struct ib_wc *wc)
{
	struct ib_uverbs_wc *uwc = &ring->uqueue[slot];

	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = wc->wc_flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = ib_lid_cpu16(wc->slid);
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
	uwc->reserved = 0;
}

/*
 * An overrun is an error of the CQ: completions have been lost, so the
 * CQ stays in error and refuses every later one.
 */
static void rvt_cq_overrun(struct rvt_cq *cq, bool first)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (first)
		ibdev_err_ratelimited(cq->ibcq.device,
				      "CQ of %d entries overrun, completions lost\n",
				      cq->ibcq.cqe);
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

static bool rvt_cq_wants_event(const struct rvt_cq *cq,
			       const struct ib_wc *entry, bool solicited)
{
	switch (cq->notify) {
	case IB_CQ_NEXT_COMP:
		return true;
	case IB_CQ_SOLICITED:
		/* An error completion ends a solicited-only wait too. */
		return solicited || entry->status != IB_WC_SUCCESS;
	default:
		return false;
	}
}

/**
 * rvt_cq_enter - add a completion to a completion queue
 * @cq: the completion queue
 * @entry: the completion; entry->qp must be set
 * @solicited: the completion is for a solicited event
 *
 * If the CQ is armed for this completion it is disarmed and its handler
 * is scheduled on the CQ's CPU. On overrun the CQ goes into error and its
 * event handler gets IB_EVENT_CQ_ERR.
 *
 * Context: any; callers often hold QP locks. Takes cq->lock with
 * interrupts off; the event handler is called without it.
 * Return: true if the completion was queued, false if the CQ is full or
 * in error.
 */
bool rvt_cq_enter(struct rvt_cq *cq, struct ib_wc *entry, bool solicited)
{
	unsigned long flags;
	u32 head, tail, next;
	bool first;

	spin_lock_irqsave(&cq->lock, flags);
	rvt_cq_indices(cq, &head, &tail);
	next = rvt_cq_advance(cq, head);
	if (unlikely(next == tail || cq->cq_full)) {
		first = !cq->cq_full;
		cq->cq_full = 1;
		spin_unlock_irqrestore(&cq->lock, flags);
		rvt_cq_overrun(cq, first);
		return false;
	}

	trace_rvt_cq_enter(cq, entry, head);
	if (cq->ip) {
		rvt_cq_store_user(cq->queue, head, entry);
		RDMA_WRITE_UAPI_ATOMIC(cq->queue->head, next);
	} else {
		cq->kqueue->kqueue[head] = *entry;
		cq->kqueue->head = next;
	}

	if (rvt_cq_wants_event(cq, entry, solicited)) {
		cq->notify = RVT_CQ_NONE;
		cq->triggered++;
		queue_work_on(cq->comp_vector_cpu, rvt_cq_wq, &cq->comptask);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return true;
}
EXPORT_SYMBOL(rvt_cq_enter);

/*
 * Call the consumer's completion handler. A completion that arms and
 * fires again while this runs queues the work anew, so nothing is lost.
 */
static void rvt_cq_comp_work(struct work_struct *work)
{
	struct rvt_cq *cq = container_of(work, struct rvt_cq, comptask);

	if (!cq->ibcq.comp_handler)
		return;
	/* ULPs such as IPoIB-CM expect to be called as from a softirq. */
	local_bh_disable();
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	local_bh_enable();
}

/*
 * The CPU that runs the CQ's handler: the driver's choice if it has one,
 * else the completion vector spread over the device's node.
 */
static int rvt_cq_pick_cpu(struct rvt_dev_info *rdi, u32 comp_vector)
{
	int vector = comp_vector % rdi->ibdev.num_comp_vectors;
	int cpu = -1;

	if (rdi->driver_f.comp_vect_cpu_lookup)
		cpu = rdi->driver_f.comp_vect_cpu_lookup(rdi, vector);
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		cpu = cpumask_local_spread(vector, rdi->dparms.node);
	return cpu;
}

/*
 * Give a user CQ its ring: describe it for mmap() and tell the provider
 * the cookie. On failure the ring is freed.
 */
static int rvt_cq_attach_user_ring(struct rvt_cq *cq, struct rvt_cq_wc *ring,
				   u32 entries, struct ib_udata *udata)
{
	struct rvt_mmap_info *ip;
	int ret;

	ip = rvt_create_mmap_info(cq->rdi, rvt_cq_ring_size(true, entries),
				  udata, ring);
	if (IS_ERR(ip)) {
		vfree(ring);
		return PTR_ERR(ip);
	}
	ret = ib_copy_to_udata(udata, &ip->offset, sizeof(ip->offset));
	if (ret) {
		rvt_put_mmap_info(ip);
		return ret;
	}
	cq->ip = ip;
	cq->queue = ring;
	return 0;
}

static int rvt_cq_setup_ring(struct rvt_cq *cq, u32 entries,
			     struct ib_udata *udata)
{
	/* Without room for the cookie the provider polls through the kernel. */
	bool user = udata && udata->outlen >= sizeof(__u64);
	void *ring;

	ring = rvt_cq_alloc_ring(cq->rdi, user, entries);
	if (!ring)
		return -ENOMEM;
	if (user)
		return rvt_cq_attach_user_ring(cq, ring, entries, udata);
	cq->kqueue = ring;
	return 0;
}

/**
 * rvt_create_cq - create a completion queue (ib_device_ops.create_cq)
 * @ibcq: the CQ, allocated and partly initialised by the IB core
 * @attr: requested size, completion vector and flags
 * @attrs: the uverbs bundle of a user CQ, or NULL for a kernel CQ
 *
 * A user CQ whose response has room for a __u64 gets a ring mapped by the
 * provider; the response then holds the ring's mmap() cookie.
 *
 * Context: process context; may sleep.
 * Return: 0; -EOPNOTSUPP for creation flags; -EINVAL for a size outside
 * 1..max_cqe; -ENOMEM when max_cq CQs exist or memory is short; -EFAULT
 * if the response cannot be written.
 */
int rvt_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct rvt_dev_info *rdi = ib_to_rvt(ibcq->device);
	struct rvt_cq *cq = ibcq_to_rvtcq(ibcq);
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!rvt_cq_size_ok(rdi, attr->cqe))
		return -EINVAL;
	ret = rvt_count_get(&rdi->n_cqs_lock, &rdi->n_cqs_allocated,
			    rdi->dparms.props.max_cq) ? 0 : -ENOMEM;
	if (ret)
		return ret;

	cq->rdi = rdi;
	cq->ibcq.cqe = attr->cqe;
	ret = rvt_cq_setup_ring(cq, attr->cqe, udata);
	if (ret) {
		rvt_count_put(&rdi->n_cqs_lock, &rdi->n_cqs_allocated);
		return ret;
	}

	spin_lock_init(&cq->lock);
	INIT_WORK(&cq->comptask, rvt_cq_comp_work);
	cq->notify = RVT_CQ_NONE;
	cq->comp_vector_cpu = rvt_cq_pick_cpu(rdi, attr->comp_vector);
	/* Mappable only now that the CQ is complete. */
	if (cq->ip)
		rvt_publish_mmap_info(rdi, cq->ip);
	trace_rvt_create_cq(cq, attr);
	return 0;
}

/**
 * rvt_destroy_cq - destroy a completion queue (ib_device_ops.destroy_cq)
 * @ibcq: the CQ; the IB core guarantees no QP uses it any more
 * @udata: user data, or NULL for a kernel CQ
 *
 * A pending handler call is cancelled, not run: the consumer is tearing
 * the CQ down. A mapped user ring lives on until the process unmaps it.
 *
 * Context: process context; waits for a running handler.
 * Return: 0.
 */
int rvt_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rvt_cq *cq = ibcq_to_rvtcq(ibcq);

	cancel_work_sync(&cq->comptask);
	if (cq->ip)
		rvt_put_mmap_info(cq->ip);
	else
		kvfree(cq->kqueue);
	rvt_count_put(&cq->rdi->n_cqs_lock, &cq->rdi->n_cqs_allocated);
	return 0;
}

/* Entries between tail and head, both already clamped into the ring. */
static u32 rvt_cq_count(const struct rvt_cq *cq, u32 head, u32 tail)
{
	return head >= tail ? head - tail : (u32)cq->ibcq.cqe + 1 - tail + head;
}

/*
 * Move the queued entries, oldest first, to the start of @ring, a ring of
 * @entries slots, and make it the CQ's ring. Needs cq->lock.
 * Return: the old ring, or NULL if @ring cannot hold the entries.
 */
static void *rvt_cq_swap_ring(struct rvt_cq *cq, void *ring, u32 entries)
{
	struct rvt_k_cq_wc *kring = ring;
	struct rvt_cq_wc *uring = ring;
	void *old = cq->ip ? (void *)cq->queue : cq->kqueue;
	u32 head, tail, n;

	rvt_cq_indices(cq, &head, &tail);
	if (rvt_cq_count(cq, head, tail) > entries)
		return NULL;
	for (n = 0; tail != head; n++, tail = rvt_cq_advance(cq, tail)) {
		if (cq->ip)
			uring->uqueue[n] = cq->queue->uqueue[tail];
		else
			kring->kqueue[n] = cq->kqueue->kqueue[tail];
	}
	cq->ibcq.cqe = entries;
	if (cq->ip) {
		RDMA_WRITE_UAPI_ATOMIC(uring->tail, 0);
		RDMA_WRITE_UAPI_ATOMIC(uring->head, n);
		cq->queue = uring;
	} else {
		kring->tail = 0;
		kring->head = n;
		cq->kqueue = kring;
	}
	return old;
}

/*
 * Describe a user CQ's new ring for mmap() and check that the response
 * can take its cookie (written once the move is done); frees @ring on
 * failure.
 */
static struct rvt_mmap_info *rvt_cq_new_user_ring(struct rvt_cq *cq,
						  void *ring, u32 entries,
						  struct ib_udata *udata)
{
	struct rvt_mmap_info *ip;
	__u64 none = 0;
	int ret;

	ip = rvt_create_mmap_info(cq->rdi, rvt_cq_ring_size(true, entries),
				  udata, ring);
	if (IS_ERR(ip)) {
		vfree(ring);
		return ip;
	}
	ret = ib_copy_to_udata(udata, &none, sizeof(none));
	if (ret) {
		rvt_put_mmap_info(ip);
		return ERR_PTR(ret);
	}
	return ip;
}

/**
 * rvt_resize_cq - change the number of entries of a CQ
 *		   (ib_device_ops.resize_cq)
 * @ibcq: the CQ
 * @cqe: the new number of entries
 * @udata: user data, or NULL for a kernel CQ
 *
 * Queued completions move to a new ring. A user CQ's new ring gets a new
 * mmap() cookie, returned in the response; the old ring stays valid for
 * as long as the process keeps it mapped.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL for a size outside 1..max_cqe, smaller than the
 * completions queued, or a mapped CQ without room for the new cookie;
 * -ENOMEM; -EFAULT if the response cannot be written.
 */
int rvt_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rvt_cq *cq = ibcq_to_rvtcq(ibcq);
	struct rvt_mmap_info *ip = NULL, *old_ip;
	bool user = !!cq->ip;	/* a CQ never changes kind */
	void *ring, *old;

	if (cqe < 1 || !rvt_cq_size_ok(cq->rdi, cqe))
		return -EINVAL;
	if (user && (!udata || udata->outlen < sizeof(__u64)))
		return -EINVAL;

	ring = rvt_cq_alloc_ring(cq->rdi, user, cqe);
	if (!ring)
		return -ENOMEM;
	if (user) {
		ip = rvt_cq_new_user_ring(cq, ring, cqe, udata);
		if (IS_ERR(ip))
			return PTR_ERR(ip);
	}

	/* uverbs lets two resizes of one CQ run at once: swap under the lock. */
	spin_lock_irq(&cq->lock);
	old_ip = cq->ip;
	old = rvt_cq_swap_ring(cq, ring, cqe);
	if (old && user)
		cq->ip = ip;
	spin_unlock_irq(&cq->lock);

	if (!old) {
		rvt_free_ring(ring, ip);
		return -EINVAL;
	}
	rvt_free_ring(old, old_ip);
	return user ? rvt_publish_ring(cq->rdi, ip, udata) : 0;
}

/**
 * rvt_poll_cq - take completions off a kernel-polled CQ
 *		 (ib_device_ops.poll_cq)
 * @ibcq: the CQ
 * @num_entries: room in @entry
 * @entry: where to copy the completions, oldest first
 *
 * Context: any; takes cq->lock with interrupts off.
 * Return: the number of completions copied, or -EINVAL for a CQ whose
 * ring userspace maps and polls itself.
 */
int rvt_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *entry)
{
	struct rvt_cq *cq = ibcq_to_rvtcq(ibcq);
	unsigned long flags;
	u32 head, tail;
	int n;

	if (cq->ip)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	rvt_cq_indices(cq, &head, &tail);
	for (n = 0; n < num_entries && tail != head; n++) {
		trace_rvt_cq_poll(cq, &cq->kqueue->kqueue[tail], n);
		entry[n] = cq->kqueue->kqueue[tail];
		tail = rvt_cq_advance(cq, tail);
	}
	cq->kqueue->tail = tail;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * rvt_cq_forget_qp - drop a destroyed QP's completions from a CQ that a
 *		      process polls through the kernel
 * @ibcq: the QP's send or receive CQ, or NULL
 * @qp: the QP being destroyed, which makes no more completions
 *
 * A kernel-polled ring holds whole struct ib_wc entries, pointer to the
 * QP included, and ib_uverbs_poll_cq() reads wc->qp->qp_num of each one
 * it hands out: a process that destroys a QP and then polls its CQ would
 * have the kernel read the freed QP (found by uverbs_fuzz under KASAN;
 * upstream keeps the entries). Such a QP's completions go, the others
 * keep their order, as a hardware driver cleans its CQ of a destroyed
 * QP's entries. Kernel consumers drain a QP before they destroy it and
 * keep upstream's behaviour; rings userspace maps carry QP numbers, not
 * pointers, and are left alone.
 *
 * Context: process context, from rvt_destroy_qp(); takes cq->lock with
 * interrupts off.
 */
void rvt_cq_forget_qp(struct ib_cq *ibcq, struct ib_qp *qp)
{
	struct rvt_cq *cq = ibcq ? ibcq_to_rvtcq(ibcq) : NULL;
	struct rvt_k_cq_wc *ring;
	unsigned long flags;
	u32 head, from, to;

	if (!cq || !ibcq->uobject)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	if (!cq->ip) {
		ring = cq->kqueue;
		rvt_cq_indices(cq, &head, &from);
		for (to = from; from != head; from = rvt_cq_advance(cq, from)) {
			if (ring->kqueue[from].qp == qp)
				continue;
			if (to != from)
				ring->kqueue[to] = ring->kqueue[from];
			to = rvt_cq_advance(cq, to);
		}
		ring->head = to;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * rvt_req_notify_cq - arm a CQ for its next completion event
 *		       (ib_device_ops.req_notify_cq)
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	   IB_CQ_REPORT_MISSED_EVENTS
 *
 * A CQ armed for the next completion stays so when asked for solicited
 * ones only (IBTA C11-31/32).
 *
 * Context: any; takes cq->lock with interrupts off.
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS was given and the CQ holds
 * completions, else 0.
 */
int rvt_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rvt_cq *cq = ibcq_to_rvtcq(ibcq);
	unsigned long irqflags;
	u32 head, tail;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		rvt_cq_indices(cq, &head, &tail);
		ret = head != tail;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
