/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvt_dp_test's shared part: buffers, polling, QP pairs and posting
 * (dp_lib.c, on the library's ktest.h), and the tests each dp_*.c file
 * holds; dp_main.c's table runs them.
 */
#ifndef RVT_DP_TEST_H
#define RVT_DP_TEST_H

#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include "ktest.h"

#define RESULTS_SIZE (32 * 1024)
#define WAIT_MS 5000		/* for a completion that must come */
#define QUIET_MS 100		/* for one that must not */
#define BUF_SIZE (2 * PAGE_SIZE)
#define FULL_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

struct dpt_buf {
	u8 *va;
	struct ib_mr *mr;
};

/**
 * struct dpt_opts - how a test wants its QP pair
 * @type: IB_QPT_RC or IB_QPT_UC
 * @rnr_retry: the requester's RNR retry count (7: for ever)
 * @retry_cnt: the requester's retry count
 * @timeout: the requester's ACK timeout code
 * @min_rnr_timer: the responder's RNR NAK timer code
 * @b_access: the responder's QP access flags
 * @dest: the requester's destination QPN, 0 for the responder
 * @srq: an SRQ for the responder, or NULL
 * @cqe: entries of each CQ
 * @max_send_wr: send queue size of each QP
 * @b_rtr: leave the responder in RTR
 * @no_rd_atomic: the responder takes no RDMA READ or atomic requests
 */
struct dpt_opts {
	enum ib_qp_type type;
	u8 rnr_retry;
	u8 retry_cnt;
	u8 timeout;
	u8 min_rnr_timer;
	int b_access;
	u32 dest;
	u16 dlid;
	struct ib_srq *srq;
	int cqe;
	u32 max_send_wr;
	bool b_rtr;
	bool no_rd_atomic;
};

extern struct kt_env env;

/* dp_lib.c */
int buf_alloc(struct dpt_buf *b);
void buf_free(struct dpt_buf *b);
u64 buf_addr(const struct dpt_buf *b, size_t off);
void fill(u8 *p, size_t len, u8 seed);
struct ib_sge dma_sge(const struct dpt_buf *b, size_t off, u32 len);
bool wait_wc(struct ib_cq *cq, struct ib_wc *wc, unsigned int ms);
bool stays_empty(struct ib_cq *cq);
bool wait_async(const int *ev, int want);
int qp_state(struct ib_qp *qp);
struct dpt_opts opts(enum ib_qp_type type);
struct kt_path dp_path(const struct dpt_opts *o, int access, u32 dest);
struct ib_qp *dp_qp(const struct dpt_opts *o, struct ib_cq *cq,
		    struct ib_srq *srq, int *ev);
int pair_create(struct kt_pair *p, const struct dpt_opts *o);
void dp_end(struct kt_test *t, struct kt_pair *p, struct dpt_buf *a,
	    struct dpt_buf *b, bool ok, const char *why);
int post_recv(struct ib_qp *qp, u64 wr_id, struct ib_sge *sg, int n);
int post_send(struct ib_qp *qp, struct ib_send_wr *wr);
int send_op(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sg, int n);
int rdma_op(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sg, int n, u64 raddr, u32 rkey);
int atomic_op(struct ib_qp *qp, enum ib_wr_opcode op,
	      struct ib_sge *result, u64 raddr, u32 rkey, u64 cmp_add,
	      u64 swap);
int buf_reg(struct dpt_buf *b, struct ib_qp *qp, struct ib_cq *cq,
	    int access);
bool expect_wc(struct ib_cq *cq, u64 wr_id, enum ib_wc_status status,
	       int opcode, struct ib_wc *out, const char **why);

/* dp_data.c */
void dp_send(struct kt_test *t);
void dp_write(struct kt_test *t);
void dp_read(struct kt_test *t);
void dp_atomics(struct kt_test *t);
void dp_send_inv(struct kt_test *t);
void dp_local_inv(struct kt_test *t);

/* dp_rnr.c */
void dp_rnr_retry_7(struct kt_test *t);

/* dp_refusals.c: the refusals, by the table's line */
enum dp_refusal {
	DP_REF_WRITE_QP_WITHOUT_REMOTE_WRITE,
	DP_REF_WRITE_IMM_QP_WITHOUT_REMOTE_WRITE,
	DP_REF_READ_QP_WITHOUT_REMOTE_READ,
	DP_REF_ATOMIC_QP_WITHOUT_REMOTE_ATOMIC,
	DP_REF_WRITE_BAD_RKEY,
	DP_REF_WRITE_IMM_BAD_RKEY,
	DP_REF_READ_BAD_RKEY,
	DP_REF_ATOMIC_BAD_RKEY,
	DP_REF_WRITE_OUT_OF_BOUNDS,
	DP_REF_WRITE_MR_WITHOUT_REMOTE_WRITE,
	DP_REF_READ_WITHOUT_RESPONDER_RESOURCES,
	DP_REF_ATOMIC_MISALIGNED,
	DP_REF_SEND_TOO_LONG,
	DP_REF_RECV_BAD_LKEY,
	DP_REF_RNR_RETRY_0,
};

void dp_refusal(struct kt_test *t);
void dp_uc_too_long(struct kt_test *t);
void dp_uc_write_qp_refused(struct kt_test *t);
void dp_uc_write_rkey_refused(struct kt_test *t);

/* dp_posting.c */
void dp_post_checks(struct kt_test *t);
void dp_wrong_states(struct kt_test *t);
void dp_wrong_state_bad_wr(struct kt_test *t);
void dp_sq_full(struct kt_test *t);
void dp_cq_overrun(struct kt_test *t);
void dp_uc_lost_cq_overrun(struct kt_test *t);

/* dp_dest.c */
void dp_no_destination(struct kt_test *t);
void dp_destination_wrong_type(struct kt_test *t);
void dp_self(struct kt_test *t);
void dp_comm_est(struct kt_test *t);

/* dp_srq.c */
void dp_srq(struct kt_test *t);

#endif /* RVT_DP_TEST_H */
