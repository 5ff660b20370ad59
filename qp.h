/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The QP core. This header declares the life of a QP (qp.c) and the verbs
 * above it; qp_parts.h, which it includes, what a QP is made of.
 *
 * The core's files, top down, as tools/testing/host/layers.txt places
 * them (make check holds each file to it, and this list to its order):
 * a file calls only files of its own level or below it, never up.
 *
 *   loopback.c  rvt_ruc_loopback(): the RC/UC engine between two QPs of
 *               one device, requester and responder
 *   qp_send.c   the send queue's producer and completer: post_send,
 *               rvt_send_complete()
 *   qp_rwqe.c   the receive side's consumer: rvt_get_rwqe(),
 *               rvt_copy_sge()
 *   qp_modify.c the consumer's state machine: modify_qp, query_qp
 *   qp.c        the life of a QP: create and destroy, reset and error,
 *               events, MR references, the device's QP layer
 *               (rvt_driver_qp_init(), rvt_qp_exit())
 *   srq.c       shared receive queues (srq.h), on qp_recv.c's rings
 *   rc.c        RC credits and rewinds, for the drivers' RC engines
 *   qp_table.c  QP numbers, the QPN -> QP table, iteration over all QPs
 *   qp_timer.c  the RC retry and RNR timers
 *   qp_sq.c     send queues: allocation and freeing
 *   qp_recv.c   receive queues: allocation, kernel post_recv, flushes
 *   qp_parts.h  what a QP is made of: the four files above
 *   qp_state.c  what each QP state allows (ib_rvt_state_ops)
 *
 * mr.c stands between qp.c and the posting paths: deregistering an MR
 * resets the QPs that use it (rvt_qp_mr_clean()), posting checks keys.
 * The files that export some of what upstream's qp.c exports include
 * qp_exports.h first; rc.c exports what upstream's rc.c does; srq.c,
 * qp_modify.c, qp_sq.c and qp_recv.c export nothing.
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
#include "qp_parts.h"

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

/* qp_send.c */
int rvt_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
bool rvt_send_complete_cq(struct rvt_qp *qp, struct rvt_swqe *wqe,
			  enum ib_wc_status status);

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
