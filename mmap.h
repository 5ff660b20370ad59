/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Rings shared with userspace through mmap() of the uverbs file.
 *
 * A user CQ, QP receive queue or SRQ keeps its ring in vmalloc_user()
 * memory described by a struct rvt_mmap_info. The verb that creates (or
 * resizes) the object returns ip->offset to the provider, which passes it
 * to mmap() as the file offset; rvt_mmap() then maps the ring.
 *
 * Lifetime: ip->ref counts the object's own reference plus one per VMA
 * mapping the ring. The object drops its reference with
 * rvt_put_mmap_info() when it is destroyed or replaces its ring; the
 * ring is freed when the last mapping goes away, so a process may keep
 * reading a ring after the object is gone without touching freed memory.
 */
#ifndef RVT_MMAP_H
#define RVT_MMAP_H

#include <rdma/rdma_vt.h>

void rvt_mmap_init(struct rvt_dev_info *rdi);
struct rvt_mmap_info *rvt_create_mmap_info(struct rvt_dev_info *rdi,
					   size_t size,
					   struct ib_udata *udata, void *obj);
void rvt_publish_mmap_info(struct rvt_dev_info *rdi, struct rvt_mmap_info *ip);
void rvt_release_mmap_info(struct kref *ref);
void rvt_put_mmap_info(struct rvt_mmap_info *ip);
void rvt_free_ring(void *ring, struct rvt_mmap_info *ip);
int rvt_publish_ring(struct rvt_dev_info *rdi, struct rvt_mmap_info *ip,
		     struct ib_udata *udata);
int rvt_mmap(struct ib_ucontext *context, struct vm_area_struct *vma);

#endif /* RVT_MMAP_H */
