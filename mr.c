// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Memory regions and the lkey table.
 *
 * An lkey (also the rkey) names a region in rdi->lkey_table: its top
 * lkey_table_size bits index the table, the next 24 - lkey_table_size
 * bits are a generation so that a stale key of a reused slot does not
 * match, and the low 8 bits are the consumer's key byte, which fast
 * registration may change. Key 0 is the DMA MR's: it covers all kernel
 * memory and only kernel PDs may use it.
 *
 * A region is described by segments (struct rvt_seg, kernel virtual
 * address and length), RVT_SEGSZ to a page of mr->map[], all
 * 1 << mr->page_shift bytes long: user MRs map their pinned pages,
 * fast-registration MRs the pages handed to map_mr_sg(). Both describe
 * the region's IB virtual address space, which starts at mr->iova;
 * mr->offset is where mr->iova falls in the first segment.
 *
 * Locking and lifetime:
 * - rkt->lock serialises writers of rkt->table, rdi->dma_mr, the
 *   allocation cursor and the DMA MR chain; lookups read the table and
 *   rdi->dma_mr under RCU only, taking a reference (mr->refcount) on
 *   what they find, which every user of a struct rvt_sge drops with
 *   rvt_put_mr().
 * - Deregistration unpublishes the region, waits for an RCU grace period
 *   (no lookup can still be about to take a reference), kills the
 *   reference and waits for users to drop theirs.
 * - Fields of a published region change only through fast registration
 *   and invalidation, which the consumer orders with its own work
 *   requests.
 *
 * Deregistration asks the QPs that still use a region to let go of it
 * (rvt_qp_mr_clean()); the key tests it relies on, rvt_mr_has_lkey() and
 * rvt_ss_has_lkey(), are in qp.c, so that the QP core never calls here.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_umem.h>
#include <rdma/rdma_vt.h>
#include "exports.h"
#include "mr.h"
/* The distro module's MR code sees the tracepoint types: part of the CRCs. */
#include <linux/tracepoint.h>
#include <linux/trace_seq.h>
#include "trace_mr.h"

/* The consumer-owned low byte of a key (ib_update_fast_reg_key()). */
#define RVT_KEY_BYTE_MASK 0xffU

/* How long dereg waits for QPs to drop their references. */
#define RVT_MR_DRAIN_TIMEOUT_SECS 5

/*
 * What a PD created with IB_PD_UNSAFE_GLOBAL_RKEY grants the remote side
 * through rkey 0: ib_alloc_pd() asks its DMA MR for exactly this.
 */
#define RVT_GLOBAL_RKEY_ACCESS (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)

/**
 * rvt_driver_mr_init - set up the lkey table at registration
 * @rdi: the device; dparms.lkey_table_size is the table's size in bits
 *
 * A size beyond RVT_MAX_LKEY_TABLE_BITS is reduced to it, leaving keys
 * at least one generation bit. dparms.props.max_mr becomes the table
 * size.
 *
 * Context: process context, before the device is visible.
 * Return: 0, -EINVAL for a table size of 0, -ENOMEM.
 */
int rvt_driver_mr_init(struct rvt_dev_info *rdi)
{
	struct rvt_lkey_table *rkt = &rdi->lkey_table;
	unsigned int bits = rdi->dparms.lkey_table_size;

	if (!bits) {
		ibdev_err(&rdi->ibdev, "dparms.lkey_table_size must be 1..%d bits\n",
			  RVT_MAX_LKEY_TABLE_BITS);
		return -EINVAL;
	}
	if (bits > RVT_MAX_LKEY_TABLE_BITS) {
		ibdev_warn(&rdi->ibdev, "lkey table of %u bits reduced to %d\n",
			   bits, RVT_MAX_LKEY_TABLE_BITS);
		bits = RVT_MAX_LKEY_TABLE_BITS;
		rdi->dparms.lkey_table_size = bits;
	}

	spin_lock_init(&rkt->lock);
	rkt->max = BIT(bits);
	rkt->shift = 32 - bits;
	rkt->next = 0;
	rkt->gen = 0;
	/* Zeroed memory: every slot starts as a NULL RCU pointer. */
	rkt->table = vzalloc_node(array_size(rkt->max, sizeof(*rkt->table)),
				  rdi->dparms.node);
	if (!rkt->table)
		return -ENOMEM;
	RCU_INIT_POINTER(rdi->dma_mr, NULL);
	rdi->dparms.props.max_mr = rkt->max;
	return 0;
}

/**
 * rvt_mr_exit - free the lkey table
 * @rdi: the device, unregistered (or never registered): no MR is left
 *
 * Context: process context.
 */
void rvt_mr_exit(struct rvt_dev_info *rdi)
{
	if (rcu_access_pointer(rdi->dma_mr))
		ibdev_warn(&rdi->ibdev, "a DMA MR outlived the device\n");
	vfree(rdi->lkey_table.table);
	rdi->lkey_table.table = NULL;
}

static void rvt_mregion_released(struct percpu_ref *ref)
{
	struct rvt_mregion *mr = container_of(ref, struct rvt_mregion,
					      refcount);

	complete(&mr->comp);
}

static void rvt_mr_free(struct rvt_mr *mr)
{
	u32 i;

	for (i = 0; i < mr->mr.mapsz; i++)
		kfree(mr->mr.map[i]);
	/* Safe on a reference never initialised: the MR is zeroed. */
	percpu_ref_exit(&mr->mr.refcount);
	ib_umem_release(mr->umem);
	kvfree(mr);
}

/*
 * An unpublished MR of @pd with room for @nsegs segments, holding its
 * initial reference (dropped by the kill in dereg).
 */
static struct rvt_mr *rvt_mr_alloc(struct ib_pd *pd, u32 nsegs)
{
	struct rvt_dev_info *rdi = ib_to_rvt(pd->device);
	u32 nmaps = DIV_ROUND_UP(nsegs, RVT_SEGSZ);
	int node = rdi->dparms.node;
	struct rvt_mr *mr;

	mr = kvzalloc_node(struct_size(mr, mr.map, nmaps), GFP_KERNEL, node);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	for (; mr->mr.mapsz < nmaps; mr->mr.mapsz++) {
		mr->mr.map[mr->mr.mapsz] = kzalloc_node(sizeof(*mr->mr.map[0]),
							GFP_KERNEL, node);
		if (!mr->mr.map[mr->mr.mapsz])
			goto fail;
	}
	init_completion(&mr->mr.comp);
	if (percpu_ref_init(&mr->mr.refcount, rvt_mregion_released, 0,
			    GFP_KERNEL))
		goto fail;
	mr->mr.pd = pd;
	mr->mr.max_segs = nsegs;
	return mr;

fail:
	rvt_mr_free(mr);
	return ERR_PTR(-ENOMEM);
}

/* Next key for slot @index: a new generation, key byte 0, never 0. */
static u32 rvt_lkey_for_slot(struct rvt_lkey_table *rkt, u32 index)
{
	u32 gen_mask = BIT(rkt->shift - 8) - 1;
	u32 lkey;

	lockdep_assert_held(&rkt->lock);
	do {
		rkt->gen++;
		lkey = (index << rkt->shift) | ((rkt->gen & gen_mask) << 8);
	} while (!lkey);
	return lkey;
}

/* Give @mr a key and make it findable. Return: 0 or -ENOMEM if full. */
static int rvt_lkey_publish(struct rvt_dev_info *rdi, struct rvt_mr *mr)
{
	struct rvt_lkey_table *rkt = &rdi->lkey_table;
	u32 mask = rkt->max - 1;
	u32 n, index = 0;

	spin_lock(&rkt->lock);
	for (n = 0; n < rkt->max; n++) {
		index = (rkt->next + n) & mask;
		if (!rcu_access_pointer(rkt->table[index]))
			break;
	}
	if (n == rkt->max) {
		spin_unlock(&rkt->lock);
		return -ENOMEM;
	}
	rkt->next = (index + 1) & mask;
	mr->mr.lkey = rvt_lkey_for_slot(rkt, index);
	mr->mr.lkey_published = 1;
	rcu_assign_pointer(rkt->table[index], &mr->mr);
	spin_unlock(&rkt->lock);

	mr->ibmr.lkey = mr->mr.lkey;
	mr->ibmr.rkey = mr->mr.lkey;
	return 0;
}

static struct rvt_mr *rvt_dma_mr_head(struct rvt_dev_info *rdi)
{
	struct rvt_mregion *head;

	head = rcu_dereference_protected(rdi->dma_mr,
					 lockdep_is_held(&rdi->lkey_table.lock));
	return head ? container_of(head, struct rvt_mr, mr) : NULL;
}

/*
 * Every kernel PD has a DMA MR, and all of them stand for the same thing,
 * so lkey 0 resolves to whichever is published in rdi->dma_mr. The others
 * wait in a chain behind it (head->dma_next) to take over when it is
 * deregistered, so lkey 0 keeps working while any DMA MR exists.
 */
static void rvt_dma_mr_publish(struct rvt_dev_info *rdi, struct rvt_mr *mr)
{
	struct rvt_mr *head;

	spin_lock(&rdi->lkey_table.lock);
	head = rvt_dma_mr_head(rdi);
	if (head) {
		mr->dma_next = head->dma_next;
		head->dma_next = mr;
	} else {
		mr->mr.lkey_published = 1;
		rcu_assign_pointer(rdi->dma_mr, &mr->mr);
	}
	spin_unlock(&rdi->lkey_table.lock);
}

static void rvt_dma_mr_unpublish(struct rvt_dev_info *rdi, struct rvt_mr *mr)
{
	struct rvt_mr *head, **link;

	spin_lock(&rdi->lkey_table.lock);
	head = rvt_dma_mr_head(rdi);
	if (head == mr) {
		head = mr->dma_next;
		if (head)
			head->mr.lkey_published = 1;
		rcu_assign_pointer(rdi->dma_mr, head ? &head->mr : NULL);
		mr->mr.lkey_published = 0;
	} else {
		for (link = &head->dma_next; *link != mr;
		     link = &(*link)->dma_next)
			;
		*link = mr->dma_next;
	}
	mr->dma_next = NULL;
	spin_unlock(&rdi->lkey_table.lock);
}

static void rvt_lkey_unpublish(struct rvt_dev_info *rdi, struct rvt_mr *mr)
{
	struct rvt_lkey_table *rkt = &rdi->lkey_table;

	if (!mr->mr.lkey) {
		rvt_dma_mr_unpublish(rdi, mr);
		return;
	}
	spin_lock(&rkt->lock);
	RCU_INIT_POINTER(rkt->table[mr->mr.lkey >> rkt->shift], NULL);
	mr->mr.lkey_published = 0;
	spin_unlock(&rkt->lock);
}

/**
 * rvt_get_dma_mr - the DMA MR of a kernel PD (ib_device_ops.get_dma_mr)
 * @ibpd: the PD
 * @acc: IB_ACCESS_* flags
 *
 * The region is all of kernel memory under lkey 0; ib_alloc_pd() asks
 * for one per kernel PD.
 *
 * Context: process context; may sleep.
 * Return: the MR, or ERR_PTR(-EPERM) for a user PD, ERR_PTR(-ENOMEM).
 */
struct ib_mr *rvt_get_dma_mr(struct ib_pd *ibpd, int acc)
{
	struct rvt_mr *mr;

	if (ibpd_to_rvtpd(ibpd)->user)
		return ERR_PTR(-EPERM);
	mr = rvt_mr_alloc(ibpd, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->mr.access_flags = acc;
	rvt_dma_mr_publish(ib_to_rvt(ibpd->device), mr);
	return &mr->ibmr;
}

/* Describe the pinned pages of @mr->umem as its segments. */
static int rvt_mr_map_umem(struct rvt_mr *mr)
{
	struct sg_page_iter iter;
	u32 i = 0;

	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		struct rvt_seg *seg;
		void *vaddr = page_address(sg_page_iter_page(&iter));

		if (!vaddr || i == mr->mr.max_segs)
			return -EINVAL;
		seg = &mr->mr.map[i / RVT_SEGSZ]->segs[i % RVT_SEGSZ];
		seg->vaddr = vaddr;
		seg->length = PAGE_SIZE;
		i++;
	}
	return i == mr->mr.max_segs ? 0 : -EINVAL;
}

/**
 * rvt_reg_user_mr - register user memory (ib_device_ops.reg_user_mr)
 * @ibpd: the PD
 * @start: the memory's user virtual address
 * @length: its length in bytes
 * @virt_addr: the IB virtual address the region starts at, which work
 *	       requests use
 * @acc: IB_ACCESS_* flags, already checked for consistency by the IB core
 * @udata: user data; rdmavt defines none
 *
 * The pages are pinned for the life of the region.
 *
 * Context: process context; may sleep.
 * Return: the MR, or an ERR_PTR: -EINVAL for an empty or too long region,
 * ib_umem_get()'s error for memory that cannot be pinned, -ENOMEM also
 * when the lkey table is full.
 */
struct ib_mr *rvt_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 virt_addr, int acc, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibpd->device);
	struct ib_umem *umem;
	struct rvt_mr *mr;
	size_t npages;
	int ret;

	if (!length || length > rdi->dparms.props.max_mr_size)
		return ERR_PTR(-EINVAL);
	umem = ib_umem_get(ibpd->device, start, length, acc);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	npages = ib_umem_num_pages(umem);
	if (npages > U32_MAX) {
		ib_umem_release(umem);
		return ERR_PTR(-EINVAL);
	}
	mr = rvt_mr_alloc(ibpd, npages);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->umem = umem;
	mr->mr.user_base = start;
	mr->mr.iova = virt_addr;
	mr->mr.length = length;
	mr->mr.offset = ib_umem_offset(umem);
	mr->mr.access_flags = acc;
	mr->mr.page_shift = PAGE_SHIFT;
	ret = rvt_mr_map_umem(mr) ?: rvt_lkey_publish(rdi, mr);
	if (ret) {
		rvt_mr_free(mr);
		return ERR_PTR(ret);
	}
	if (trace_rvt_mr_user_seg_enabled())
		rvt_trace_mr_user_segs(&mr->mr);
	return &mr->ibmr;
}

/* rvt_qp_iter() callback: a QP of the region's PD lets go of it. */
static void rvt_mr_clean_qp(struct rvt_qp *qp, u64 v)
{
	struct rvt_mregion *mr = (struct rvt_mregion *)(uintptr_t)v;

	if (qp->ibqp.pd == mr->pd)
		rvt_qp_mr_clean(qp, mr->lkey);
}

/*
 * Stop lookups from finding @mr and let the references drain. After an
 * RCU grace period no lookup can still be about to take one; killing the
 * initial reference then lets the last user complete mr->comp. As for a
 * QP leaving the QP table (qp_table.c), the wait is only for what is left
 * of a grace period begun at the unpublish, expedited.
 */
static void rvt_mr_start_drain(struct rvt_dev_info *rdi, struct rvt_mr *mr)
{
	unsigned long gp;

	rvt_lkey_unpublish(rdi, mr);
	gp = get_state_synchronize_rcu();
	/*
	 * QPs may hold references in SGE states that only end when they are
	 * flushed: QPs of the region's PD that still use it go to ERR. The
	 * DMA MR (key 0) is shared by every kernel QP and left alone.
	 */
	if (mr->mr.lkey)
		rvt_qp_iter(rdi, (u64)(uintptr_t)&mr->mr, rvt_mr_clean_qp);
	cond_synchronize_rcu_expedited(gp);
	percpu_ref_kill(&mr->mr.refcount);
	mr->draining = true;
}

/**
 * rvt_dereg_mr - deregister and free a memory region
 *		  (ib_device_ops.dereg_mr)
 * @ibmr: the MR, of any kind
 * @udata: user data, or NULL for a kernel MR
 *
 * Waits for work requests that still use the region. If they do not
 * finish in time the region stays unusable but allocated, and a later
 * call (the IB core retries when the user context goes) tries again.
 *
 * Context: process context; may sleep for what is left of an RCU grace
 * period, and up to RVT_MR_DRAIN_TIMEOUT_SECS.
 * Return: 0, or -EBUSY if references remain after the timeout.
 */
int rvt_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibmr->device);
	struct rvt_mr *mr = to_rvt_mr(ibmr);

	if (!mr->draining)
		rvt_mr_start_drain(rdi, mr);
	if (!wait_for_completion_timeout(&mr->mr.comp,
					 RVT_MR_DRAIN_TIMEOUT_SECS * HZ)) {
		ibdev_err(&rdi->ibdev,
			  "MR with lkey %#x still in use after %d s; not freed\n",
			  mr->mr.lkey, RVT_MR_DRAIN_TIMEOUT_SECS);
		return -EBUSY;
	}
	rvt_mr_free(mr);
	return 0;
}

/**
 * rvt_alloc_mr - allocate a fast-registration MR (ib_device_ops.alloc_mr)
 * @ibpd: the PD
 * @mr_type: must be IB_MR_TYPE_MEM_REG
 * @max_num_sg: how many pages map_mr_sg() may map into it
 *
 * The region is invalid until a REG_MR work request registers it.
 *
 * Context: process context; may sleep.
 * Return: the MR, or an ERR_PTR: -EINVAL for another type or a size of 0
 * or beyond max_fast_reg_page_list_len (when the driver sets one),
 * -ENOMEM also when the lkey table is full.
 */
struct ib_mr *rvt_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			   u32 max_num_sg)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibpd->device);
	u32 limit = rdi->dparms.props.max_fast_reg_page_list_len;
	struct rvt_mr *mr;
	int ret;

	if (mr_type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    (limit && max_num_sg > limit))
		return ERR_PTR(-EINVAL);
	mr = rvt_mr_alloc(ibpd, max_num_sg);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->fast_reg = true;
	atomic_set(&mr->mr.lkey_invalid, 1);
	ret = rvt_lkey_publish(rdi, mr);
	if (ret) {
		rvt_mr_free(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/*
 * ib_sg_to_pages() callback: append the page at @addr as a segment. Until
 * rvt_map_mr_sg() sets the region's length, it counts the bytes mapped so
 * far, which rvt_mr_page_seg records as upstream's does.
 */
static int rvt_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rvt_mr *mr = to_rvt_mr(ibmr);
	struct rvt_seg *seg;

	if (mr->mapped == mr->mr.max_segs)
		return -ENOMEM;
	seg = &mr->mr.map[mr->mapped / RVT_SEGSZ]->segs[mr->mapped % RVT_SEGSZ];
	seg->vaddr = (void *)(uintptr_t)addr;
	seg->length = ibmr->page_size;
	mr->mr.length += seg->length;
	trace_rvt_mr_page_seg(&mr->mr, mr->mapped / RVT_SEGSZ,
			      mr->mapped % RVT_SEGSZ, seg->vaddr, seg->length);
	mr->mapped++;
	return 0;
}

/**
 * rvt_map_mr_sg - map a scatterlist into a fast-registration MR
 *		   (ib_device_ops.map_mr_sg)
 * @ibmr: the MR, from rvt_alloc_mr(), not registered
 * @sg: the scatterlist, mapped with ib_dma_map_sg() (kernel addresses:
 *	rdmavt devices use virtual DMA)
 * @sg_nents: entries in @sg
 * @sg_offset: offset into the first entry, updated as ib_sg_to_pages()
 *	       documents
 *
 * The IB core has set ibmr->page_size; ibmr->iova and ibmr->length come
 * out of ib_sg_to_pages() and become the region's.
 *
 * Context: process context.
 * Return: the number of entries mapped, or a negative errno.
 */
int rvt_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct rvt_mr *mr = to_rvt_mr(ibmr);
	u64 first, covered;
	int ret;

	if (!is_power_of_2(ibmr->page_size))
		return -EINVAL;
	mr->mapped = 0;
	mr->mr.length = 0;
	mr->mr.page_shift = ilog2(ibmr->page_size);
	ret = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rvt_set_page);
	trace_rvt_map_mr_sg(ibmr, sg_nents, sg_offset);
	if (ret <= 0 || !mr->mapped) {
		mr->mr.length = 0;
		return ret < 0 ? ret : -EINVAL;
	}

	first = (uintptr_t)mr->mr.map[0]->segs[0].vaddr;
	mr->mr.iova = ibmr->iova;
	mr->mr.user_base = ibmr->iova;
	mr->mr.offset = ibmr->iova - first;
	mr->mr.length = ibmr->length;
	/* Never let the region reach past the pages it was given. */
	covered = (u64)mr->mapped << mr->mr.page_shift;
	if (mr->mr.offset >= ibmr->page_size ||
	    mr->mr.offset + mr->mr.length > covered) {
		mr->mr.length = 0;
		return -EINVAL;
	}
	return ret;
}

/**
 * rvt_fast_reg_mr - register a fast-registration MR for an IB_WR_REG_MR
 * @qp: the QP the work request was posted on
 * @ibmr: the MR, mapped with ib_map_mr_sg()
 * @key: the new lkey and rkey: the MR's with a new key byte
 * @access: IB_ACCESS_* flags for the registration
 *
 * Context: any; the caller holds the QP's send lock. The consumer must
 * not use the MR through other QPs meanwhile.
 * Return: 0, -EACCES if the MR belongs to another PD, -EINVAL for an MR
 * that is not a fast-registration MR or a key naming another MR.
 */
int rvt_fast_reg_mr(struct rvt_qp *qp, struct ib_mr *ibmr, u32 key,
		    int access)
{
	struct rvt_mr *mr = to_rvt_mr(ibmr);

	if (qp->ibqp.pd != mr->mr.pd)
		return -EACCES;
	if (!mr->fast_reg ||
	    (key & ~RVT_KEY_BYTE_MASK) != (mr->mr.lkey & ~RVT_KEY_BYTE_MASK))
		return -EINVAL;

	ibmr->lkey = key;
	ibmr->rkey = key;
	mr->mr.access_flags = access;
	mr->mr.iova = ibmr->iova;
	mr->mr.user_base = ibmr->iova;
	WRITE_ONCE(mr->mr.lkey, key);
	/* Lookups that see the region valid see its new attributes. */
	atomic_set_release(&mr->mr.lkey_invalid, 0);
	return 0;
}
EXPORT_SYMBOL(rvt_fast_reg_mr);

/**
 * rvt_invalidate_rkey - invalidate a fast-registration MR
 * @qp: the QP of the IB_WR_LOCAL_INV or of the received SEND_WITH_INV
 * @rkey: the key to invalidate
 *
 * Only a fast-registration MR of the QP's PD can be invalidated; it stays
 * invalid until registered again.
 *
 * Context: any.
 * Return: 0, or -EINVAL if @rkey names no such MR.
 */
int rvt_invalidate_rkey(struct rvt_qp *qp, u32 rkey)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_lkey_table *rkt = &rdi->lkey_table;
	struct rvt_mregion *mr;
	int ret = -EINVAL;

	if (!rkey)
		return -EINVAL;
	rcu_read_lock();
	mr = rcu_dereference(rkt->table[rkey >> rkt->shift]);
	if (mr && READ_ONCE(mr->lkey) == rkey && mr->pd == qp->ibqp.pd &&
	    container_of(mr, struct rvt_mr, mr)->fast_reg) {
		atomic_set(&mr->lkey_invalid, 1);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL(rvt_invalidate_rkey);

/*
 * Find the valid region named by non-zero @key in @pd and take a
 * reference to it. Return: the region, or NULL.
 */
static struct rvt_mregion *rvt_mr_get_by_key(struct rvt_lkey_table *rkt,
					     struct ib_pd *pd, u32 key)
{
	struct rvt_mregion *mr;

	rcu_read_lock();
	mr = rcu_dereference(rkt->table[key >> rkt->shift]);
	if (mr && !percpu_ref_tryget_live_rcu(&mr->refcount))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return NULL;
	if (atomic_read_acquire(&mr->lkey_invalid) ||
	    READ_ONCE(mr->lkey) != key || mr->pd != pd) {
		rvt_put_mr(mr);
		return NULL;
	}
	return mr;
}

/* The DMA region, with a reference taken; NULL if there is none. */
static struct rvt_mregion *rvt_dma_mr_get(struct rvt_dev_info *rdi)
{
	struct rvt_mregion *mr;

	rcu_read_lock();
	mr = rcu_dereference(rdi->dma_mr);
	if (mr && !percpu_ref_tryget_live_rcu(&mr->refcount))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/*
 * May @len bytes at IB virtual address @vaddr of @mr be accessed with
 * all of @acc? A zero length is refused: no caller has a use for it, and
 * at the region's end it would name a segment past the map.
 */
static bool rvt_mr_allows(const struct rvt_mregion *mr, u64 vaddr, u32 len,
			  int acc)
{
	u64 off = vaddr - mr->iova;

	return vaddr >= mr->iova && off < mr->length && len &&
	       len <= mr->length - off && (mr->access_flags & acc) == acc;
}

/*
 * Point @sge at @len bytes at offset @off of @mr's IB address space. The
 * segment is read before @sge is written, which the compiler cannot
 * assume does not alias the map.
 */
static void rvt_sge_set(struct rvt_sge *sge, struct rvt_mregion *mr, u64 off,
			u32 len)
{
	const struct rvt_seg *seg;
	u64 n;

	off += mr->offset;
	n = off >> mr->page_shift;
	off &= BIT_ULL(mr->page_shift) - 1;
	seg = &mr->map[n / RVT_SEGSZ]->segs[n % RVT_SEGSZ];
	sge->vaddr = seg->vaddr + off;
	sge->length = seg->length - off;
	sge->sge_length = len;
	sge->mr = mr;
	sge->m = n / RVT_SEGSZ;
	sge->n = n % RVT_SEGSZ;
}

/* Point @sge at @len bytes of kernel memory at @vaddr through the DMA MR. */
static void rvt_sge_set_dma(struct rvt_sge *sge, struct rvt_mregion *mr,
			    u64 vaddr, u32 len)
{
	sge->mr = mr;
	sge->vaddr = (void *)(uintptr_t)vaddr;
	sge->length = len;
	sge->sge_length = len;
	sge->m = 0;
	sge->n = 0;
}

/*
 * Extend @last, a DMA SGE, by @sge if it continues it in kernel memory.
 * Only DMA SGEs are merged: their vaddr is the address the consumer
 * gave, so contiguity is a plain comparison.
 */
static bool rvt_sge_merge_dma(struct rvt_sge *last, struct ib_sge *sge)
{
	if (!last || last->mr->lkey ||
	    (uintptr_t)last->vaddr + last->length != sge->addr ||
	    sge->length > U32_MAX - last->sge_length)
		return false;
	last->length += sge->length;
	last->sge_length += sge->length;
	trace_rvt_sge_adjacent(last, sge);
	return true;
}

static int rvt_lkey_ok_dma(struct rvt_pd *pd, struct rvt_sge *isge,
			   struct rvt_sge *last_sge, struct ib_sge *sge)
{
	struct rvt_mregion *mr;

	if (pd->user || !sge->length)
		return -EINVAL;
	if (rvt_sge_merge_dma(last_sge, sge))
		return 0;
	mr = rvt_dma_mr_get(ib_to_rvt(pd->ibpd.device));
	if (!mr)
		return -EINVAL;
	rvt_sge_set_dma(isge, mr, sge->addr, sge->length);
	trace_rvt_sge_new(isge, sge);
	return 1;
}

/**
 * rvt_lkey_ok - check a local SGE and turn it into an rdmavt SGE
 * @rkt: the device's lkey table
 * @pd: the PD of the QP or SRQ the SGE was posted to
 * @isge: where to put the new SGE
 * @last_sge: the SGE made from the previous ib_sge of the same request,
 *	      or NULL; a DMA SGE continuing it is merged into it
 * @sge: the SGE to check; its address is in the region's IB virtual
 *	 address space (kernel virtual for lkey 0)
 * @acc: IB_ACCESS_* flags the region must grant (IB_ACCESS_LOCAL_WRITE
 *	 for data written into it, 0 to read it)
 *
 * The SGE must lie wholly inside a valid region of @pd; lkey 0 (all of
 * kernel memory) is for kernel PDs only.
 *
 * Context: any.
 * Return: 1 with @isge set and a reference taken on its region, 0 if
 * merged into @last_sge, -EINVAL if the SGE is not allowed.
 */
int rvt_lkey_ok(struct rvt_lkey_table *rkt, struct rvt_pd *pd,
		struct rvt_sge *isge, struct rvt_sge *last_sge,
		struct ib_sge *sge, int acc)
{
	struct rvt_mregion *mr;

	if (!sge->lkey)
		return rvt_lkey_ok_dma(pd, isge, last_sge, sge);

	mr = rvt_mr_get_by_key(rkt, &pd->ibpd, sge->lkey);
	if (!mr)
		return -EINVAL;
	if (!rvt_mr_allows(mr, sge->addr, sge->length, acc)) {
		rvt_put_mr(mr);
		return -EINVAL;
	}
	rvt_sge_set(isge, mr, sge->addr - mr->iova, sge->length);
	trace_rvt_sge_new(isge, sge);
	return 1;
}
EXPORT_SYMBOL(rvt_lkey_ok);

/*
 * rkey 0 reaches all kernel memory: only for PDs whose owner asked for
 * that with IB_PD_UNSAFE_GLOBAL_RKEY, and only for what it grants.
 */
static int rvt_rkey_ok_global(struct ib_pd *pd, struct rvt_sge *sge, u32 len,
			      u64 vaddr, int acc)
{
	struct rvt_mregion *mr;

	if (ibpd_to_rvtpd(pd)->user || !(pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) ||
	    (acc & ~RVT_GLOBAL_RKEY_ACCESS) || !len)
		return 0;
	mr = rvt_dma_mr_get(ib_to_rvt(pd->device));
	if (!mr)
		return 0;
	rvt_sge_set_dma(sge, mr, vaddr, len);
	return 1;
}

/**
 * rvt_rkey_ok - check a remote access and turn it into an rdmavt SGE
 * @qp: the QP the request arrived on
 * @sge: where to put the SGE
 * @len: length of the access, not 0
 * @vaddr: the IB virtual address the request names
 * @rkey: the rkey the request names
 * @acc: the IB_ACCESS_REMOTE_* flag(s) the access needs, all of which the
 *	 region must grant
 *
 * The access must lie wholly inside a valid region of the QP's PD.
 *
 * Context: any.
 * Return: 1 with @sge set and a reference taken on its region, else 0.
 */
int rvt_rkey_ok(struct rvt_qp *qp, struct rvt_sge *sge,
		u32 len, u64 vaddr, u32 rkey, int acc)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvt_mregion *mr;

	if (!rkey)
		return rvt_rkey_ok_global(qp->ibqp.pd, sge, len, vaddr, acc);

	mr = rvt_mr_get_by_key(&rdi->lkey_table, qp->ibqp.pd, rkey);
	if (!mr)
		return 0;
	if (!rvt_mr_allows(mr, vaddr, len, acc)) {
		rvt_put_mr(mr);
		return 0;
	}
	rvt_sge_set(sge, mr, vaddr - mr->iova, len);
	return 1;
}
EXPORT_SYMBOL(rvt_rkey_ok);
