/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvt_dp_test's shared framework: the module's state and KTAP report
 * (dp_report.c), buffers, polling, QP pairs and posting (dp_lib.c), and
 * the tests each dp_*.c file holds, in the order dp_main.c runs them.
 */
#ifndef RVT_DP_TEST_H
#define RVT_DP_TEST_H

#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

#define RESULTS_SIZE (32 * 1024)
#define WAIT_MS 5000		/* for a completion that must come */
#define QUIET_MS 100		/* for one that must not */
#define BUF_SIZE (2 * PAGE_SIZE)
#define FULL_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
#define NO_EVENT (-1)

/**
 * struct dpt_env - what every test works with
 * @ibdev: the device under test
 * @pd: a kernel PD; its local_dma_lkey reaches all kernel memory
 * @lid: port 1's LID, the destination of every test's path
 * @ntests: tests reported so far
 * @results: the KTAP text
 * @len: its length
 */
struct dpt_env {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 lid;
	unsigned int ntests;
	char *results;
	size_t len;
};

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

/**
 * struct dpt_pair - two connected QPs
 * @cq_a: completions of the requester (send and receive)
 * @cq_b: completions of the responder
 * @a: the requester
 * @b: the responder
 * @ev_a: last asynchronous event of @a, or NO_EVENT
 * @ev_b: last asynchronous event of @b, or NO_EVENT
 * @cq_ev: last asynchronous event of either CQ, or NO_EVENT
 */
struct dpt_pair {
	struct ib_cq *cq_a, *cq_b;
	struct ib_qp *a, *b;
	int ev_a, ev_b, cq_ev;
};

extern struct dpt_env env;

/* dp_report.c */
void report(bool ok, const char *name, const char *fmt, ...) __printf(3, 4);

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
void qp_event(struct ib_event *ev, void *ctx);
void cq_event(struct ib_event *ev, void *ctx);
int to_init(struct ib_qp *qp, int access);
int to_rtr(struct ib_qp *qp, u32 dest, const struct dpt_opts *o);
int to_rts(struct ib_qp *qp, const struct dpt_opts *o);
struct ib_qp *make_qp(const struct dpt_opts *o, struct ib_cq *cq,
		      struct ib_srq *srq, int *ev);
struct ib_cq *make_cq(struct dpt_pair *p, int cqe);
void pair_destroy(struct dpt_pair *p);
int pair_create(struct dpt_pair *p, const struct dpt_opts *o);
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
void test_send(enum ib_qp_type type, const char *name);
void test_write(enum ib_qp_type type, const char *name);
void test_read(void);
void test_atomics(void);
void test_send_inv(void);
void test_local_inv(void);

/* dp_rnr.c */
void test_rnr_retry_7(void);

/* dp_refusals.c */
void test_refusals(void);
void test_uc_too_long(void);

/* dp_posting.c */
void test_post_checks(void);
void test_wrong_states(void);
void test_sq_full(void);
void test_cq_overrun(void);
void test_uc_lost_cq_overrun(void);

/* dp_dest.c */
void lost_request(const char *name, enum ib_qp_type type,
		  bool wrong_type);
void test_self(void);
void test_comm_est(void);

/* dp_srq.c */
void test_srq(void);

#endif /* RVT_DP_TEST_H */
