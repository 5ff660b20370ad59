/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The QP core, shared between its files. Each file's exports are those of
 * upstream's qp.c (see qp_exports.h), except where noted:
 *
 *   qp.c        the life of a QP: create and destroy,
 *               reset and error, events, MR references, the device's QP
 *               layer (rvt_driver_qp_init(), rvt_qp_exit())
 *   qp_modify.c the consumer's state machine: modify_qp, query_qp
 *   qp_table.c  QP numbers, the QPN -> QP table, iteration over all QPs
 *   qp_timer.c  the RC retry and RNR timers
 *   qp_send.c   the send queue: post_send, rvt_send_complete()
 *   qp_sq.c     the send queue's memory: allocation and freeing
 *   qp_recv.c   the receive queue: allocation, kernel post_recv, flushes
 *   qp_rwqe.c   the receive side's consumer: rvt_get_rwqe(),
 *               rvt_copy_sge()
 *   loopback.c  rvt_ruc_loopback(): the RC/UC engine between two QPs of
 *               one device, requester and responder
 *   rc.c        RC credits and rewinds (upstream's rc.c exports)
 *   srq.c       shared receive queues (srq.h)
 *   qp_state.c  what each QP state allows (ib_rvt_state_ops)
 *
 * Calls go one way, down this list's dependencies: qp_modify.c and
 * loopback.c call qp.c, qp.c calls qp_table.c, qp_timer.c, qp_recv.c;
 * nothing calls back up.
 *
 * Locking, in the order taken: qp->r_lock, qp->s_hlock, qp->s_lock (the
 * QP's state and attributes change only with all three held); then
 * qp_dev->qpt_lock (writers of the QP table; readers use RCU only); then
 * rdi->n_qps_lock (the QP counts). qpn_table.lock only guards the
 * installation of bitmap pages and the QP0/QP1 flags.
 */
#ifndef RVT_QP_H
#define RVT_QP_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

/* qp.c */
int rvt_driver_qp_init(struct rvt_dev_info *rdi);
void rvt_qp_exit(struct rvt_dev_info *rdi);
int rvt_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		  struct ib_udata *udata);
int rvt_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void _rvt_reset_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
		   enum ib_qp_type type);
void rvt_qp_event(struct rvt_qp *qp, enum ib_event_type type);

/* qp_modify.c */
int rvt_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		  int attr_mask, struct ib_udata *udata);
int rvt_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		 int attr_mask, struct ib_qp_init_attr *init_attr);

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

/* qp_send.c */
int rvt_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
bool rvt_send_complete_cq(struct rvt_qp *qp, struct rvt_swqe *wqe,
			  enum ib_wc_status status);

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

/**
 * rvt_qp_lock - take a QP's three locks, in their order
 * @qp: the QP
 *
 * Context: process or softirq context; disables interrupts.
 */
static inline void rvt_qp_lock(struct rvt_qp *qp)
	__acquires(&qp->r_lock) __acquires(&qp->s_hlock)
	__acquires(&qp->s_lock)
{
	spin_lock_irq(&qp->r_lock);
	spin_lock(&qp->s_hlock);
	spin_lock(&qp->s_lock);
}

/**
 * rvt_qp_unlock - release the locks taken by rvt_qp_lock()
 * @qp: the QP
 *
 * Context: re-enables interrupts.
 */
static inline void rvt_qp_unlock(struct rvt_qp *qp)
	__releases(&qp->s_lock) __releases(&qp->s_hlock)
	__releases(&qp->r_lock)
{
	spin_unlock(&qp->s_lock);
	spin_unlock(&qp->s_hlock);
	spin_unlock_irq(&qp->r_lock);
}

#endif /* RVT_QP_H */
