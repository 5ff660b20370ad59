/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Shared receive queues (srq.c). Only declares functions: it is included
 * by files whose exports' CRCs must not change.
 */
#ifndef RVT_SRQ_H
#define RVT_SRQ_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

void rvt_driver_srq_init(struct rvt_dev_info *rdi);
int rvt_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		   struct ib_udata *udata);
int rvt_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask attr_mask, struct ib_udata *udata);
int rvt_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rvt_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int rvt_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
void rvt_srq_event(struct rvt_srq *srq, enum ib_event_type type);

#endif /* RVT_SRQ_H */
