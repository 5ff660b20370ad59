/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvt_qp_test's shared part: the device, its PD and a directly polled
 * CQ (qp_main.c), QPs and the moves every test makes (qp_lib.c), and the
 * tests each qp_*.c file holds, which qp_main.c's table runs.
 */
#ifndef RVT_QP_TEST_H
#define RVT_QP_TEST_H

#include <linux/delay.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include "ktest.h"

/**
 * struct qpt_env - what every test works with
 * @kt: the device and a kernel PD
 * @rdi: the device's rdmavt view
 * @cq: a directly polled CQ, send and receive side of every test QP
 */
struct qpt_env {
	struct kt_env kt;
	struct rvt_dev_info *rdi;
	struct ib_cq *cq;
};

extern struct qpt_env env;

/* qp_lib.c */
struct ib_qp *qpt_qp(enum ib_qp_type type, u32 port, int *event);
int qpt_to_init(struct ib_qp *qp, int access);
int qpt_to_rtr(struct ib_qp *qp);
int qpt_to_rts(struct ib_qp *qp);
int qpt_query(struct ib_qp *qp, struct ib_qp_attr *a,
	      struct ib_qp_init_attr *ia, int mask);
bool qpt_found(u32 qpn, u32 port) __must_hold(RCU);
bool qpt_lookup(u32 qpn);
bool qpt_check_state(struct ib_qp *qp, enum ib_qp_state state);

/* qp_exports.c */
void qp_state_ops(struct kt_test *t);
void qp_rnr_table(struct kt_test *t);

/* qp_create.c */
void qp_create_types(struct kt_test *t);
void qp_create_limits(struct kt_test *t);
void qp_special_qps(struct kt_test *t);
void qp_qp0_recreate(struct kt_test *t);

/* qp_modify.c */
void qp_transitions(struct kt_test *t);
void qp_attr_mask_ignored(struct kt_test *t);
void qp_illegal_unchanged(struct kt_test *t);

/* qp_flush.c */
void qp_error_flush(struct kt_test *t);
void qp_comm_est_rc_error(struct kt_test *t);

/* qp_mr.c */
void qp_dereg_cleans_qps(struct kt_test *t);

/* qp_timers.c */
void qp_timers(struct kt_test *t);

/* qp_mcast.c */
void qp_mcast_find_in_softirq(struct kt_test *t);

/* qp_iter.c */
void qp_iter_next(struct kt_test *t);
void qp_iter_filter(struct kt_test *t);
void qp_iter_sleeping(struct kt_test *t);

/* qp_qpn.c */
void qp_qpn_unique(struct kt_test *t);

#endif /* RVT_QP_TEST_H */
