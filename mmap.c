// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mmap() of user rings: offset cookies, the pending list, the VMA
 * reference that keeps a ring alive until munmap().
 *
 * Locking:
 * - rdi->mmap_offset_lock guards rdi->mmap_offset, the next free cookie.
 * - rdi->pending_lock guards rdi->pending_mmaps, the rings created but
 *   not mapped yet, and the list linkage of every struct rvt_mmap_info.
 *   qib also uses it for its own lists, from interrupt context, so it is
 *   always taken with interrupts off here.
 * - ip->ref (see mmap.h) decides when a ring is freed; the other fields
 *   of a struct rvt_mmap_info are fixed once it is published.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>
#include "mmap.h"

/*
 * Cookies live in a 32-bit space of file offsets. Capping the size of one
 * ring keeps the arithmetic simple; the largest ring any driver asks for
 * (a CQ of hfi1's max_cqe) is far below it.
 */
#define RVT_MMAP_MAX_SIZE SZ_1G

/**
 * rvt_mmap_init - prepare a device's mmap bookkeeping at registration
 * @rdi: the device
 *
 * Context: process context, before the device is visible.
 */
void rvt_mmap_init(struct rvt_dev_info *rdi)
{
	INIT_LIST_HEAD(&rdi->pending_mmaps);
	spin_lock_init(&rdi->pending_lock);
	spin_lock_init(&rdi->mmap_offset_lock);
	/* Offset 0 is never a cookie, so a zeroed response is "no ring". */
	rdi->mmap_offset = PAGE_SIZE;
}

/*
 * Hand out the next cookie: offsets advance by the ring's size rounded up
 * to SHMLBA, so two rings never share a page of the offset space. After
 * 4 GiB of rings the counter starts again at PAGE_SIZE; a clash would need
 * a ring of the same user context that is still waiting for its mmap()
 * after a million others were created, and could only give that process
 * one of its own rings.
 */
static u32 rvt_next_mmap_offset(struct rvt_dev_info *rdi, u32 size)
{
	u32 span = ALIGN(size, SHMLBA);
	u32 offset;

	spin_lock(&rdi->mmap_offset_lock);
	if (rdi->mmap_offset < PAGE_SIZE || span > U32_MAX - rdi->mmap_offset)
		rdi->mmap_offset = PAGE_SIZE;
	offset = rdi->mmap_offset;
	rdi->mmap_offset += span;
	spin_unlock(&rdi->mmap_offset_lock);
	return offset;
}

/**
 * rvt_create_mmap_info - describe a ring that userspace will map
 * @rdi: the device
 * @size: the ring's size in bytes
 * @udata: the creating verb's user data; names the user context that
 *	   alone may map the ring
 * @obj: the ring, from vmalloc_user(); owned by the result from now on
 *	 (freed when the last reference goes) unless this fails
 *
 * The caller returns ip->offset to userspace and, once the object is
 * fully set up, makes the ring mappable with rvt_publish_mmap_info().
 *
 * Context: process context; may sleep.
 * Return: the new descriptor holding the object's reference, or an
 * ERR_PTR: -EINVAL without user data or for a ring too big to map,
 * -ENOMEM.
 */
struct rvt_mmap_info *rvt_create_mmap_info(struct rvt_dev_info *rdi,
					   size_t size,
					   struct ib_udata *udata, void *obj)
{
	struct rvt_mmap_info *ip;

	if (!udata || !size || size > RVT_MMAP_MAX_SIZE)
		return ERR_PTR(-EINVAL);

	ip = kzalloc_node(sizeof(*ip), GFP_KERNEL, rdi->dparms.node);
	if (!ip)
		return ERR_PTR(-ENOMEM);

	INIT_LIST_HEAD(&ip->pending_mmaps);
	ip->context = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	ip->obj = obj;
	/* mmap() lengths are whole pages: allow the rounded-up size. */
	ip->size = PAGE_ALIGN(size);
	ip->offset = rvt_next_mmap_offset(rdi, ip->size);
	kref_init(&ip->ref);
	return ip;
}

/**
 * rvt_publish_mmap_info - let userspace map a ring
 * @rdi: the device
 * @ip: the ring's descriptor from rvt_create_mmap_info()
 *
 * Context: process context; takes rdi->pending_lock.
 */
void rvt_publish_mmap_info(struct rvt_dev_info *rdi, struct rvt_mmap_info *ip)
{
	spin_lock_irq(&rdi->pending_lock);
	list_add_tail(&ip->pending_mmaps, &rdi->pending_mmaps);
	spin_unlock_irq(&rdi->pending_lock);
}

/**
 * rvt_release_mmap_info - free a ring once nothing refers to it
 * @ref: the descriptor's reference count, now zero
 *
 * Only ever called through kref_put(). The user context named in the
 * descriptor is still alive: every mapping holds the uverbs file, and the
 * context goes only when that file is released.
 *
 * Context: process context; takes rdi->pending_lock.
 */
void rvt_release_mmap_info(struct kref *ref)
{
	struct rvt_mmap_info *ip = container_of(ref, struct rvt_mmap_info, ref);
	struct rvt_dev_info *rdi = ib_to_rvt(ip->context->device);

	/* A ring never mapped is still on the pending list. */
	spin_lock_irq(&rdi->pending_lock);
	list_del(&ip->pending_mmaps);
	spin_unlock_irq(&rdi->pending_lock);

	vfree(ip->obj);
	kfree(ip);
}

/**
 * rvt_put_mmap_info - drop the owning object's reference to its ring
 * @ip: the descriptor; may be freed before this returns
 *
 * Context: process context.
 */
void rvt_put_mmap_info(struct rvt_mmap_info *ip)
{
	kref_put(&ip->ref, rvt_release_mmap_info);
}

/**
 * rvt_free_ring - free a CQ's or SRQ's ring that a resize does not keep
 * @ring: the ring, from vmalloc_user(), or vzalloc() or kvzalloc() for a
 *	  kernel consumer's
 * @ip: its descriptor if it is a user ring, else NULL. The descriptor
 *	owns a user ring, which the process may still have mapped: the ring
 *	goes with the last reference.
 *
 * Context: process context.
 */
void rvt_free_ring(void *ring, struct rvt_mmap_info *ip)
{
	if (ip)
		rvt_put_mmap_info(ip);
	else
		kvfree(ring);
}

/**
 * rvt_publish_ring - let the process map a new ring, and tell it where
 * @rdi: the device
 * @ip: the ring's descriptor
 * @udata: the verb's response, whose driver part is the u64 offset
 *
 * Context: process context; takes rdi->pending_lock.
 * Return: 0, or -EFAULT if the response cannot be written.
 */
int rvt_publish_ring(struct rvt_dev_info *rdi, struct rvt_mmap_info *ip,
		     struct ib_udata *udata)
{
	rvt_publish_mmap_info(rdi, ip);
	return ib_copy_to_udata(udata, &ip->offset, sizeof(ip->offset));
}

/* A VMA copied by fork() or split by a partial munmap(). */
static void rvt_vma_open(struct vm_area_struct *vma)
{
	struct rvt_mmap_info *ip = vma->vm_private_data;

	kref_get(&ip->ref);
}

static void rvt_vma_close(struct vm_area_struct *vma)
{
	rvt_put_mmap_info(vma->vm_private_data);
}

static const struct vm_operations_struct rvt_vm_ops = {
	.open = rvt_vma_open,
	.close = rvt_vma_close,
};

/*
 * Take the pending ring @context may map at @offset off the list, with a
 * reference for the caller: an object being destroyed meanwhile cannot
 * free it, and a ring whose last reference is already going is skipped.
 */
static struct rvt_mmap_info *rvt_claim_pending(struct rvt_dev_info *rdi,
					       struct ib_ucontext *context,
					       u64 offset, unsigned long size)
{
	struct rvt_mmap_info *ip, *found = NULL;

	spin_lock_irq(&rdi->pending_lock);
	list_for_each_entry(ip, &rdi->pending_mmaps, pending_mmaps) {
		if (ip->context != context || ip->offset != offset)
			continue;
		if (size > ip->size || !kref_get_unless_zero(&ip->ref))
			break;
		/* One mapping per cookie: a second mmap() finds nothing. */
		list_del_init(&ip->pending_mmaps);
		found = ip;
		break;
	}
	spin_unlock_irq(&rdi->pending_lock);
	return found;
}

/**
 * rvt_mmap - map a ring created by this user context (ib_device_ops.mmap)
 * @context: the user context of the mmap() call
 * @vma: the new mapping; vm_pgoff holds the cookie the verb returned
 *
 * Each cookie can be mapped once, by the context that created the ring,
 * for at most the ring's size.
 *
 * Context: process context, mmap lock held; takes rdi->pending_lock.
 * Return: 0, or -EINVAL for an unknown or already mapped cookie, another
 * context's ring or a mapping larger than the ring; the error from
 * remap_vmalloc_range() otherwise.
 */
int rvt_mmap(struct ib_ucontext *context, struct vm_area_struct *vma)
{
	struct rvt_dev_info *rdi = ib_to_rvt(context->device);
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	struct rvt_mmap_info *ip;
	int ret;

	ip = rvt_claim_pending(rdi, context, offset,
			       vma->vm_end - vma->vm_start);
	if (!ip)
		return -EINVAL;

	ret = remap_vmalloc_range(vma, ip->obj, 0);
	if (ret) {
		rvt_put_mmap_info(ip);
		return ret;
	}
	/* The claimed reference now belongs to the mapping. */
	vma->vm_ops = &rvt_vm_ops;
	vma->vm_private_data = ip;
	return 0;
}
