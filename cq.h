/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Completion queues: verbs, and the module-wide completion workqueue.
 */
#ifndef RVT_CQ_H
#define RVT_CQ_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_cq.h>
#include "compat.h"

int rvt_cq_module_init(void);
void rvt_cq_module_exit(void);
void rvt_driver_cq_init(struct rvt_dev_info *rdi);

int rvt_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  RVT_CREATE_CQ_UDATA *udata_arg);
int rvt_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rvt_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *entry);
int rvt_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int rvt_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
void rvt_cq_forget_qp(struct ib_cq *ibcq, struct ib_qp *qp);

#endif /* RVT_CQ_H */
