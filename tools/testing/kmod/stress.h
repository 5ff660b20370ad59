/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvt_stress: concurrency under traffic, through the kernel verbs.
 *
 * A "flow" is one case's traffic: sender QPs ("a") connected to receiver
 * QPs ("b") on port 1 of the device, every QP on one CQ. Several poster
 * kthreads post to the senders, several poller kthreads poll the CQ and
 * repost the receives they consume. Every work request's wr_id names its
 * poster and sequence number; every payload starts with a header whose
 * CRC32 covers the rest, and its bytes are derived from (poster, seq), so
 * each receive, RDMA WRITE and RDMA READ is checked where it lands. The
 * ledger (stress_ledger.c) records every completion in per-poster
 * bitmaps and says at the end whether any was lost, duplicated or had a
 * status the case does not allow.
 *
 * Files, top down; each calls only files below it: stress_main.c
 * (module, the cases' table); stress_cases.c (running a flow, the
 * mid-traffic events) and stress_iter.c (rvt_qp_iter walks under QP
 * churn); stress_traffic.c (posters and pollers); stress_ledger.c
 * (accounting, credits given back, verdicts); stress_flow.c (objects of a
 * flow); stress_msg.c (messages and their slots); stress_env.c (the
 * environment, the KTAP results, violations).
 */
#ifndef RVT_STRESS_H
#define RVT_STRESS_H

#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/rwsem.h>
#include <rdma/ib_verbs.h>

#define ST_MAX_THREADS 8	/* posters */
#define ST_MAX_POLLERS 4
#define ST_MAX_PAIRS 2		/* sender QPs (and unicast receivers) */
#define ST_MAX_RX 2		/* receive pools: QPs, or one SRQ */
#define ST_MSG_MAX 512		/* largest message, header included */
#define ST_GRH 40		/* what a UD receive buffer starts with */
#define ST_RX_SLOT (ST_GRH + ST_MSG_MAX)
#define ST_SLOTS 8		/* send, write and read slots per poster */
#define ST_READ_SRCS 16		/* RDMA READ sources in the remote area */
#define ST_SQ_DEPTH 128
#define ST_RQ_DEPTH 128
#define ST_CQE 1024
#define ST_MAX_SEQ BIT(21)	/* work requests per poster and case */
#define ST_QKEY 0x51570001
#define ST_MLID 0xc00a
#define ST_MAGIC 0x57524553	/* "SERW" */
#define ST_WHY_LEN 160
#define ST_DRAIN_MS 20000	/* for what must complete after the posters */
#define ST_NO_SEQ U32_MAX

/* What a wr_id's top byte says its work request was. */
enum st_kind {
	ST_SEND = 1,
	ST_WRITE_IMM,
	ST_WRITE,
	ST_READ,
	ST_RECV,
	ST_REG,
};

/* Which completion statuses a case allows on the send side. */
enum st_status_rule {
	ST_ALL_OK,	/* IB_WC_SUCCESS only */
	ST_ERR_AFTER,	/* success or an allowed error; after the event only errors */
};

/* What a receive pool must have received, against the sends' outcomes. */
enum st_rx_rule {
	ST_RX_EXACT,	/* exactly the messages whose send succeeded */
	ST_RX_COVERS,	/* those, and maybe some whose send then failed */
	ST_RX_BEFORE,	/* some of those, none posted after the event */
};

/* Payload header; the message's remaining bytes follow, under csum. */
struct st_hdr {
	u32 magic;
	u8 thread;
	u8 kind;
	u16 len;	/* of the whole message */
	u32 seq;
	u32 csum;	/* crc32_le(~0) of the bytes after the header */
};

struct st_flow;

/**
 * struct st_case - one case of the module
 * @name: its KTAP name
 * @type: IB_QPT_RC or IB_QPT_UD
 * @pairs: sender QPs; each has its own receiver, except with @srq or
 *	   @mcast
 * @srq: the receivers share one SRQ
 * @mcast: one UD sender to a multicast group of two receivers
 * @event_pct: when @event runs, in percent of the run time
 * @event: what happens while traffic flows (NULL: nothing), returns 0
 *	   or fails the case with the reason set by st_fail()
 * @rule: the send side's allowed statuses
 * @allowed: errors allowed under ST_ERR_AFTER, a bitmask of 1 << status
 * @rx: each receive pool's rule
 * @refuse_after: posts may be refused with -EINVAL after the event
 * @upstream_hazard: why the case does not run on upstream's rdmavt, or
 *		     NULL: it deadlocks or crashes there
 * @run: for cases that are no flow (the QP iterator walks)
 */
struct st_case {
	const char *name;
	enum ib_qp_type type;
	unsigned int pairs;
	bool srq;
	bool mcast;
	unsigned int event_pct;
	int (*event)(struct st_flow *f);
	enum st_status_rule rule;
	u32 allowed;
	enum st_rx_rule rx[ST_MAX_RX];
	bool refuse_after;
	const char *upstream_hazard;
	void (*run)(const struct st_case *c);
};

/**
 * struct st_poster - one posting kthread and its ledger
 * @f: its flow
 * @idx: its number, in every wr_id it posts
 * @task: the kthread
 * @posted: sequence numbers posted so far (0..posted-1); written by the
 *	    poster only
 * @first_after: the first sequence number whose post began after the
 *		 event, or ST_NO_SEQ; written by the poster before it posts
 * @refused: posts refused after the event (@refuse_after)
 * @retries: posts that found the send queue full and were tried again
 * @capped: stopped at ST_MAX_SEQ
 * @idle: the poster has stopped posting; set with release semantics,
 *	  after which the fields above (the poster's alone) are final
 * @max_ok: highest sequence number completed successfully, or -1
 * @min_err: lowest sequence number completed with an error
 *
 * The atomics and bitmaps are shared by the pollers, which update them
 * with atomic operations only; no lock guards a poster.
 * @send_ref: references on each send slot (its work request)
 * @write_ref: on each remote write slot (the WRITE's completion, and the
 *	       receive of a WRITE with immediate)
 * @read_ref: on each local read slot
 * @sent: bitmap: sequence numbers whose completion was seen
 * @want_rx: bitmap: those that consumed a receive and succeeded
 * @rcvd: bitmaps: those each receive pool received
 */
struct st_poster {
	struct st_flow *f;
	unsigned int idx;
	struct task_struct *task;
	u32 posted;
	u32 first_after;
	unsigned long refused;
	unsigned long retries;
	bool capped;
	bool idle;
	atomic_t max_ok;
	atomic_t min_err;
	atomic_t send_ref[ST_SLOTS];
	atomic_t write_ref[ST_SLOTS];
	atomic_t read_ref[ST_SLOTS];
	unsigned long *sent;
	unsigned long *want_rx;
	unsigned long *rcvd[ST_MAX_RX];
};

/**
 * struct st_rx - a receive pool: ST_RQ_DEPTH buffers posted to a QP or an
 * SRQ, reposted by the pollers as they consume them
 * @qp: the receiving QP (NULL for an SRQ pool)
 * @srq: the SRQ, or NULL
 * @bufs: ST_RQ_DEPTH buffers of ST_RX_SLOT bytes
 * @slot_posted: 1 while a slot's receive is posted
 * @credits: receives posted and not yet claimed by a poster
 * @posted: receives posted in all
 * @completed: receive completions seen
 * @dead: its QP (or SRQ) was destroyed; guarded by the flow's teardown
 *	  rwsem, under which the pollers repost
 * @detached: left the multicast group; posters take no credit from it
 */
struct st_rx {
	struct ib_qp *qp;
	struct ib_srq *srq;
	u8 *bufs;
	atomic_t slot_posted[ST_RQ_DEPTH];
	atomic_t credits;
	atomic_t posted;
	atomic_t completed;
	bool dead;
	bool detached;
};

/**
 * struct st_flow - one case's traffic
 * @c: the case
 * @nthreads: posters
 * @npollers: pollers
 * @cq: the one CQ of every QP of the flow
 * @a: the sender QPs
 * @b: the receiver QPs (unicast pairs and multicast members)
 * @srq: the shared receive queue, or NULL
 * @ah: the UD senders' address handle
 * @remote_qpn: the UD destination (IB_MULTICAST_QPN for the group)
 * @rx: the receive pools
 * @nrx: how many
 * @sq_credits: free send queue entries of each sender
 * @local: the senders' area: per poster ST_SLOTS send and ST_SLOTS read
 *	   slots of ST_MSG_MAX
 * @remote: the RC receivers' area: per poster ST_SLOTS write slots, then
 *	    ST_READ_SRCS read sources
 * @read_csum: the CRC32 of each read source
 * @local_mr: the MR over @local (local SGEs), NULL once deregistered
 * @remote_mr: the MR over @remote (rkey), NULL once deregistered
 * @lkey: @local_mr's lkey, kept after deregistration
 * @rkey: @remote_mr's rkey, kept after deregistration
 * @local_order: page order of @local
 * @remote_order: page order of @remote
 * @teardown: taken for writing to destroy a receiver, for reading to
 *	      repost to one
 * @posters: the posters
 * @pollers: the poller kthreads
 * @start: jiffies when traffic started
 * @deadline: jiffies when posting stops
 * @event_started: the event has begun
 * @event_done: the event has completed (release/acquire with the posters)
 * @flushing: the final flush is on: no reposting, flush errors allowed
 * @completions: send completions seen
 * @violations: anything the ledger counts against the case
 * @why_lock: guards @why
 * @why: the first violation, the case's KTAP diagnostic
 * @snap: the remote area as it was when its MR was deregistered
 * @info: what the case reports when it passes
 */
struct st_flow {
	const struct st_case *c;
	unsigned int nthreads;
	unsigned int npollers;
	struct ib_cq *cq;
	struct ib_qp *a[ST_MAX_PAIRS];
	struct ib_qp *b[ST_MAX_PAIRS];
	struct ib_srq *srq;
	struct ib_ah *ah;
	u32 remote_qpn;
	struct st_rx rx[ST_MAX_RX];
	unsigned int nrx;
	atomic_t sq_credits[ST_MAX_PAIRS];
	u8 *local;
	u8 *remote;
	u32 read_csum[ST_READ_SRCS];
	struct ib_mr *local_mr;
	struct ib_mr *remote_mr;
	u32 lkey;
	u32 rkey;
	unsigned int local_order;
	unsigned int remote_order;
	struct rw_semaphore teardown;
	struct st_poster posters[ST_MAX_THREADS];
	struct task_struct *pollers[ST_MAX_POLLERS];
	unsigned long start;
	unsigned long deadline;
	bool event_started;
	bool event_done;
	bool flushing;
	atomic64_t completions;
	atomic_t violations;
	spinlock_t why_lock;	/* guards why */
	char why[ST_WHY_LEN];
	u8 *snap;
	char info[ST_WHY_LEN];
};

/**
 * struct st_env - what every case works with
 * @ibdev: the device under test
 * @pd: a kernel PD
 * @lid: port 1's LID
 * @seconds: run time of each case
 * @threads: posters per flow
 * @pollers: pollers per flow
 * @skip_hazards: skip the cases that deadlock or crash upstream's rdmavt
 */
struct st_env {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 lid;
	unsigned int seconds;
	unsigned int threads;
	unsigned int pollers;
	bool skip_hazards;
};

extern struct st_env st_env;
extern union ib_gid st_mgid;

/* stress_env.c */
int st_results_open(unsigned int cases);
void st_report(bool ok, const char *name, const char *fmt, ...) __printf(3, 4);
void st_results_publish(void);
void st_results_close(void);
void st_fail(struct st_flow *f, const char *fmt, ...) __printf(2, 3);

/* stress_msg.c */
u16 st_msg_len(unsigned int t, u32 seq);
void st_fill(struct st_hdr *h, unsigned int t, enum st_kind kind, u32 seq);
bool st_check(const struct st_hdr *h, unsigned int len, unsigned int t,
	      u32 seq, u32 seq_mask);
u8 *st_local_slot(struct st_flow *f, unsigned int t, bool read,
		  unsigned int slot);
u8 *st_write_slot(struct st_flow *f, unsigned int t, unsigned int slot);
u8 *st_read_src(struct st_flow *f, unsigned int src);

/* stress_flow.c */
int st_flow_create(struct st_flow *f, const struct st_case *c);
void st_flow_destroy(struct st_flow *f);
int st_post_rx(struct st_flow *f, unsigned int rxi, unsigned int slot);
int st_qp_to_err(struct ib_qp *qp);
bool st_reaches(const struct st_flow *f, unsigned int t, unsigned int rxi);

/* stress_traffic.c */
int st_poster_fn(void *data);
int st_poller_fn(void *data);
int st_poll_some(struct st_flow *f);

/* stress_ledger.c */
int st_ledger_alloc(struct st_flow *f);
void st_ledger_free(struct st_flow *f);
void st_give_credits(struct st_flow *f, unsigned int t);
void st_account_send(struct st_flow *f, const struct ib_wc *wc);
void st_account_recv(struct st_flow *f, const struct ib_wc *wc);
void st_ledger_verdict(struct st_flow *f);

/* stress_cases.c */
void st_run_flow(const struct st_case *c);
int st_event_sender_err(struct st_flow *f);
int st_event_destroy_rx(struct st_flow *f);
int st_event_dereg_mr(struct st_flow *f);
int st_event_resize_cq(struct st_flow *f);
int st_event_detach(struct st_flow *f);
int st_event_destroy_srq(struct st_flow *f);

/* stress_iter.c */
void st_run_iter_walk(const struct st_case *c);
void st_run_iter_cb(const struct st_case *c);
void st_run_iter_strike(const struct st_case *c);

static inline u64 st_wr_id(enum st_kind kind, unsigned int t, u32 seq)
{
	return (u64)kind << 56 | (u64)t << 48 | seq;
}

static inline u64 st_recv_id(unsigned int rxi, unsigned int slot)
{
	return (u64)ST_RECV << 56 | (u64)rxi << 48 | slot;
}

static inline enum st_kind st_id_kind(u64 wr_id)
{
	return wr_id >> 56;
}

static inline unsigned int st_id_thread(u64 wr_id)
{
	return (wr_id >> 48) & 0xff;
}

static inline u32 st_id_seq(u64 wr_id)
{
	return (u32)wr_id;
}

/* Does a work request of this kind consume a receive? */
static inline bool st_consumes_rx(enum st_kind kind)
{
	return kind == ST_SEND || kind == ST_WRITE_IMM;
}

#endif /* RVT_STRESS_H */
