/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The kernel-test library of tools/testing/kmod (rvt_ktest.ko), in the
 * shape of the kernel's kselftest_module.h and KUnit: a test module is a
 * table of cases, one KTAP result each, which ktest_run.c runs in order
 * and reports; ktest_verbs.c gives every module the device, its PD, QPs
 * and the RESET -> INIT -> RTR -> RTS ladder.
 *
 * A module's results are in /sys/kernel/debug/<suite name>/results:
 *   KTAP version 1
 *   1..N              the plan, the size of the table, before any case runs
 *   ok 1 name [# diagnostic]
 *   not ok 2 name # why
 *   ok 3 name # SKIP why
 * The file exists from the start of the run, so that what a module
 * reported before it crashed can still be read; a run that stops early
 * leaves fewer results than its plan, which the suites count as failures
 * (kt_run in tools/testing/lib/suite.sh).
 *
 * Adding a test: one function taking a struct kt_test, giving exactly
 * one verdict (kt_result() or kt_skip()), and one line in the table.
 */
#ifndef RVT_KTEST_H
#define RVT_KTEST_H

#include <linux/debugfs.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#define KT_NO_EVENT (-1)	/* no asynchronous event seen */
#define KT_DIAG_LEN 200

struct kt_case;

/**
 * struct kt_test - one case while it runs
 * @c: its line of the table
 * @verdicts: kt_result() and kt_skip() calls so far; exactly one is right
 * @ok: the verdict
 * @diag: the verdict's diagnostic, or ""
 */
struct kt_test {
	const struct kt_case *c;
	unsigned int verdicts;
	bool ok;
	char diag[KT_DIAG_LEN];
};

/**
 * struct kt_case - a line of a module's table
 * @name: the KTAP name of its result
 * @run: the test; gives one verdict
 * @arg: for tests that serve several lines (a QP type, a variant)
 */
struct kt_case {
	const char *name;
	void (*run)(struct kt_test *t);
	long arg;
};

#define KT_CASE(name, fn) { name, fn, 0 }
#define KT_CASE_ARG(name, fn, arg) { name, fn, arg }

/**
 * struct kt_suite - a test module
 * @name: the module's name: debugfs directory and log prefix
 * @cases: its table
 * @ncases: the table's size, the plan
 * @setup: sets up what every case works with; on failure every case
 *	   is reported "not ok" (the plan holds)
 * @teardown: undoes @setup, after the last case
 * @skip: when not NULL and it returns a reason, the case is skipped
 *	  with that reason (module parameters that select cases)
 * @text: the KTAP text (private)
 * @len: its length (private)
 * @size: its buffer's size (private)
 * @n: results written (private)
 * @blob: @text in debugfs (private)
 * @dir: the debugfs directory (private)
 */
struct kt_suite {
	const char *name;
	const struct kt_case *cases;
	unsigned int ncases;
	int (*setup)(void);
	void (*teardown)(void);
	const char *(*skip)(const struct kt_case *c);
	char *text;
	size_t len, size;
	unsigned int n;
	struct debugfs_blob_wrapper blob;
	struct dentry *dir;
};

int kt_suite_run(struct kt_suite *s);
void kt_suite_exit(struct kt_suite *s);
void kt_result(struct kt_test *t, bool ok, const char *fmt, ...)
	__printf(3, 4);
void kt_skip(struct kt_test *t, const char *fmt, ...) __printf(2, 3);

/* ---- the device, QPs and the ladder (ktest_verbs.c) ------------------ */

/**
 * struct kt_env - the device under test
 * @ibdev: the device, held
 * @pd: a kernel PD; its local_dma_lkey reaches all kernel memory
 * @lid: port 1's LID (0 when the port has none)
 */
struct kt_env {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 lid;
};

int kt_env_get(struct kt_env *env, const char *dev, bool need_lid);
void kt_env_put(struct kt_env *env);

/**
 * struct kt_qp_spec - a QP to create
 * @type: its type
 * @cq: send and receive CQ
 * @srq: an SRQ, or NULL
 * @port: port_num of the init attributes (QP0/QP1), or 0
 * @send_wr: send queue size
 * @recv_wr: receive queue size
 * @sge: SGEs per send and per receive request
 * @event: where the QP's last asynchronous event goes, or NULL
 */
struct kt_qp_spec {
	enum ib_qp_type type;
	struct ib_cq *cq;
	struct ib_srq *srq;
	u32 port;
	u32 send_wr, recv_wr, sge;
	int *event;
};

struct ib_qp *kt_qp_create(struct ib_pd *pd, const struct kt_qp_spec *s);

/**
 * struct kt_path - what the ladder sets, on port 1
 * @access: QP access flags (RC, UC)
 * @qkey: Q_Key (UD)
 * @dlid: destination LID (RC, UC)
 * @sl: service level (RC, UC)
 * @dest_qpn: destination QPN (RC, UC)
 * @mtu: path MTU (RC, UC)
 * @rq_psn: receive PSN (RC, UC)
 * @sq_psn: send PSN
 * @max_dest_rd_atomic: responder resources (RC)
 * @min_rnr_timer: RNR NAK timer code (RC)
 * @timeout: ACK timeout code (RC)
 * @retry_cnt: retry count (RC)
 * @rnr_retry: RNR retry count (RC)
 * @max_rd_atomic: initiator depth (RC)
 */
struct kt_path {
	int access;
	u32 qkey;
	u32 dlid;
	u8 sl;
	u32 dest_qpn;
	enum ib_mtu mtu;
	u32 rq_psn, sq_psn;
	u8 max_dest_rd_atomic, min_rnr_timer;
	u8 timeout, retry_cnt, rnr_retry, max_rd_atomic;
};

int kt_qp_to_init(struct ib_qp *qp, const struct kt_path *p);
int kt_qp_to_rtr(struct ib_qp *qp, const struct kt_path *p);
int kt_qp_to_rts(struct ib_qp *qp, const struct kt_path *p);
int kt_qp_to_state(struct ib_qp *qp, enum ib_qp_state state);
int kt_qp_connect(struct ib_qp *qp, const struct kt_path *p);

/**
 * struct kt_pair - requester @a and responder @b, connected, each with a
 * CQ of its own
 * @cq_a: completions of @a
 * @cq_b: completions of @b
 * @a: the requester
 * @b: the responder
 * @ev_a: last asynchronous event of @a, or KT_NO_EVENT
 * @ev_b: last asynchronous event of @b, or KT_NO_EVENT
 * @cq_ev: last asynchronous event of either CQ, or KT_NO_EVENT
 */
struct kt_pair {
	struct ib_cq *cq_a, *cq_b;
	struct ib_qp *a, *b;
	int ev_a, ev_b, cq_ev;
};

/**
 * struct kt_pair_spec - how a test wants its pair
 * @qp: the QPs' type, queue sizes and SGEs (cq, srq and event unused)
 * @srq_b: an SRQ for @b, or NULL
 * @cqe_a: entries of @a's CQ
 * @cqe_b: entries of @b's CQ
 * @path_a: @a's path; a dest_qpn of 0 is @b's QPN
 * @path_b: @b's path; its dest_qpn is always @a's QPN
 * @b_rtr: leave @b in RTR
 */
struct kt_pair_spec {
	struct kt_qp_spec qp;
	struct ib_srq *srq_b;
	int cqe_a, cqe_b;
	struct kt_path path_a, path_b;
	bool b_rtr;
};

int kt_pair_create(const struct kt_env *env, struct kt_pair *p,
		   const struct kt_pair_spec *s);
void kt_pair_destroy(struct kt_pair *p);

#endif /* RVT_KTEST_H */
