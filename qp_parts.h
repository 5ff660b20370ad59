/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a QP is made of, below its life (qp.h): its number and its place in
 * the QP table (qp_table.c), its timers (qp_timer.c), its send and receive
 * queues (qp_sq.c, qp_recv.c). These files include this header, not
 * qp.h: they call nothing of the QP's life, nor of anything above it.
 */
#ifndef RVT_QP_PARTS_H
#define RVT_QP_PARTS_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

/* qp_table.c */
int rvt_qp_table_init(struct rvt_dev_info *rdi);
void rvt_qp_table_free(struct rvt_dev_info *rdi);
int rvt_alloc_qpn(struct rvt_dev_info *rdi, struct rvt_qpn_table *qpt,
		  enum ib_qp_type type, u32 port_num, bool aip);
void rvt_free_qpn(struct rvt_qpn_table *qpt, u32 qpn, enum ib_qp_type type,
		  u32 port_num);
void rvt_insert_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp);
bool rvt_unlink_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		   unsigned long *gp);
void rvt_release_qp_link(struct rvt_qp *qp, unsigned long gp);

/* qp_timer.c */
void rvt_init_qp_timers(struct rvt_qp *qp);

/* qp_sq.c */
int rvt_alloc_sq(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		 struct ib_qp_init_attr *init_attr);
void rvt_free_sq(struct rvt_qp *qp);

/* qp_recv.c */
int rvt_alloc_rq(struct rvt_rq *rq, u32 entries, u8 max_sge, int node,
		 struct ib_udata *udata);
u32 rvt_rwqe_size(u8 max_sge);
void rvt_release_rq(struct rvt_rq *rq, struct rvt_mmap_info **ip);
int rvt_rq_post_list(struct rvt_rq *rq, struct rvt_qp *qp,
		     const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
int rvt_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
void rvt_flush_rq(struct rvt_qp *qp);
void rvt_discard_rq(struct rvt_qp *qp);

/**
 * rvt_qp_is_special - whether a QP type is one of a port's QP0/QP1
 * @type: the QP type
 *
 * Return: true for SMI (QP0) and GSI (QP1).
 */
static inline bool rvt_qp_is_special(enum ib_qp_type type)
{
	return type == IB_QPT_SMI || type == IB_QPT_GSI;
}

#endif /* RVT_QP_PARTS_H */
