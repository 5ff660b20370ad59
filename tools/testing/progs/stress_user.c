// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Concurrency under traffic from userspace (libibverbs, pthreads): the
 * user side of rvt_stress.ko (tools/testing/kmod/stress_*.c).
 *
 * Usage:
 *   stress_user traffic DEV rc|ud SECONDS POSTERS POLLERS
 *   stress_user kill DEV rc|ud READY_FILE
 *   stress_user hold DEV READY_FILE
 *
 * traffic: a sender QP and a receiver QP on port 1 of DEV, connected in
 * this process (RC: to each other; UD: an AH to the receiver), one CQ
 * for both. POSTERS threads post to the sender for SECONDS (RC: SEND,
 * RDMA WRITE with immediate, RDMA WRITE, RDMA READ; UD: SEND), POLLERS
 * threads poll the CQ and repost the receives. Every wr_id is (kind,
 * poster, sequence number); every message a header whose CRC32 covers
 * the rest, its bytes derived from (poster, seq), checked where it
 * lands. At the end every request posted must have completed exactly
 * once and successfully, every message received exactly once, every
 * receive still posted flushed once. Prints a summary; exits 0 if all
 * of that holds, 1 if not.
 *
 * kill: the same traffic for ever; creates READY_FILE once it flows, for
 * the suite to SIGKILL it mid-traffic.
 *
 * hold: opens DEV with a PD, a CQ and a QP, creates READY_FILE, and
 * holds them until killed.
 */
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "verbs_device.h"

#define MSG_MAX 512
#define GRH 40
#define RX_SLOT (GRH + MSG_MAX)
#define SLOTS 8			/* send, write and read slots per poster */
#define READ_SRCS 16
#define SQ_DEPTH 128
#define RQ_DEPTH 128
#define CQE 1024
#define MAX_POSTERS 8
#define MAX_POLLERS 4
#define MAX_SEQ (2U * 1024 * 1024)	/* requests per poster */
#define QKEY 0x51570002
#define MAGIC 0x57524553
#define DRAIN_SECONDS 20
#define READY_AFTER 500	/* completions before kill mode says ready */
#define NO_SEQ UINT32_MAX

enum wr_kind { K_SEND = 1, K_WRITE_IMM, K_WRITE, K_READ, K_RECV };

struct hdr {
	unsigned int magic;
	unsigned char poster;
	unsigned char kind;
	unsigned short len;		/* of the whole message */
	unsigned int seq;
	unsigned int csum;		/* crc32 of the bytes after the header */
};

#define BITMAP_WORDS (MAX_SEQ / 64)

/* One posting thread and its ledger; the bitmaps are set atomically. */
struct poster {
	unsigned int idx;
	pthread_t thread;
	unsigned int posted;	/* written by the poster, read after join */
	int send_ref[SLOTS];
	int write_ref[SLOTS];
	int read_ref[SLOTS];
	unsigned long long *sent;		/* completion seen */
	unsigned long long *want_rx;	/* consumed a receive and succeeded */
	unsigned long long *rcvd;		/* received */
};

/* Everything of the run; the atomics are the threads' only contact. */
static struct {
	bool rc, forever;
	const char *ready;
	unsigned int nposters, npollers;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah;
	unsigned short lid;
	unsigned char *local, *remote, *rxbuf;
	struct ibv_mr *local_mr, *remote_mr, *rx_mr;
	unsigned int read_csum[READ_SRCS];
	int slot_posted[RQ_DEPTH];
	int rx_credits, sq_credits;
	int rx_posted, rx_completed;
	long long completions;
	int stop_posting, stop_polling, flushing;
	int violations;
	struct poster posters[MAX_POSTERS];
	pthread_t pollers[MAX_POLLERS];
	unsigned int seconds;
	long long deadline;	/* now_ms() when posting stops */
} s;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("stress_user: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

/* A violation: the first few are printed, all are counted. */
static void bad(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&s.violations, 1, __ATOMIC_RELAXED) >= 5)
		return;
	va_start(ap, fmt);
	fputs("stress_user: FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

static bool test_and_set(unsigned long long *map, unsigned int bit)
{
	unsigned long long m = 1ULL << (bit % 64);

	return __atomic_fetch_or(&map[bit / 64], m, __ATOMIC_RELAXED) & m;
}

static bool test(const unsigned long long *map, unsigned int bit)
{
	return __atomic_load_n(&map[bit / 64], __ATOMIC_RELAXED) &
	       (1ULL << (bit % 64));
}

static bool take(int *counter)
{
	int v = __atomic_load_n(counter, __ATOMIC_RELAXED);

	while (v > 0)
		if (__atomic_compare_exchange_n(counter, &v, v - 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

static void give(int *counter, int n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_ACQ_REL);
}

static bool claim(int *ref, int refs)
{
	int zero = 0;

	return __atomic_compare_exchange_n(ref, &zero, refs, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* ---- messages ---------------------------------------------------------- */

static unsigned short msg_len(unsigned int p, unsigned int seq)
{
	unsigned int h = (seq * 2654435761U) ^ (p * 40503U);

	return sizeof(struct hdr) + (h >> 7) % (MSG_MAX - sizeof(struct hdr) + 1);
}

static unsigned int data_csum(const struct hdr *h)
{
	return crc32(0, (const unsigned char *)(h + 1), h->len - sizeof(*h));
}

static void fill(struct hdr *h, unsigned int p, enum wr_kind kind, unsigned int seq)
{
	unsigned int x = ((p + 1) * 0x9e3779b9U ^ seq * 0x85ebca6bU) | 1;
	unsigned char *data = (unsigned char *)(h + 1);
	unsigned int i;

	h->len = msg_len(p, seq);
	for (i = 0; i < h->len - sizeof(*h); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = x >> 24;
	}
	h->magic = MAGIC;
	h->poster = p;
	h->kind = kind;
	h->seq = seq;
	h->csum = data_csum(h);
}

/* Is @h poster @p's intact message, its seq matching in @mask's bits? */
static bool check(const struct hdr *h, unsigned int len, unsigned int p,
		  unsigned int seq, unsigned int mask)
{
	return h->magic == MAGIC && h->poster == p &&
	       (h->seq & mask) == (seq & mask) &&
	       h->len == msg_len(p, h->seq) && (!len || h->len == len) &&
	       data_csum(h) == h->csum;
}

static unsigned char *send_slot(unsigned int p, unsigned int slot, bool read)
{
	return s.local + ((p * 2 + read) * SLOTS + slot) * MSG_MAX;
}

static unsigned char *write_slot(unsigned int p, unsigned int slot)
{
	return s.remote + (p * SLOTS + slot) * MSG_MAX;
}

static unsigned char *read_src(unsigned int src)
{
	return s.remote + (MAX_POSTERS * SLOTS + src) * MSG_MAX;
}

static unsigned long long wr_id(enum wr_kind kind, unsigned int p, unsigned int seq)
{
	return (unsigned long long)kind << 56 | (unsigned long long)p << 48 | seq;
}

/* ---- setup --------------------------------------------------------------- */

static struct ibv_context *open_device(const char *name)
{
	struct ibv_context *ctx = open_named_device(name);

	if (!ctx)
		die("cannot open %s", name);
	return ctx;
}

static struct ibv_qp *make_qp(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s.cq, .recv_cq = s.cq,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = RQ_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = s.rc ? IBV_QPT_RC : IBV_QPT_UD,
	};
	struct ibv_qp *qp = ibv_create_qp(s.pd, &ia);

	if (!qp)
		die("create QP failed");
	return qp;
}

static void connect_qp(struct ibv_qp *qp, unsigned int dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (ibv_modify_qp(qp, &a, mask | (s.rc ? IBV_QP_ACCESS_FLAGS :
					  IBV_QP_QKEY)))
		die("INIT failed");
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (s.rc) {
		a.path_mtu = IBV_MTU_4096;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		a.ah_attr.dlid = s.lid;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("RTR failed");
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (s.rc)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	if (ibv_modify_qp(qp, &a, mask))
		die("RTS failed");
}

static unsigned char *area(size_t bytes, struct ibv_mr **mr, int access)
{
	unsigned char *p = calloc(1, bytes);

	if (!p)
		die("no memory");
	*mr = ibv_reg_mr(s.pd, p, bytes, access);
	if (!*mr)
		die("register MR failed");
	return p;
}

static int post_rx(unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s.rxbuf + slot * RX_SLOT),
		.length = RX_SLOT, .lkey = s.rx_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id(K_RECV, 0, slot), .sg_list = &sge, .num_sge = 1,
	}, *bad_wr;
	int ret;

	__atomic_store_n(&s.slot_posted[slot], 1, __ATOMIC_RELEASE);
	ret = ibv_post_recv(s.b, &wr, &bad_wr);
	if (ret)
		__atomic_store_n(&s.slot_posted[slot], 0, __ATOMIC_RELEASE);
	else
		give(&s.rx_posted, 1);
	return ret;
}

static void setup(const char *dev)
{
	struct ibv_port_attr pa;
	unsigned int i;

	s.ctx = open_device(dev);
	if (ibv_query_port(s.ctx, 1, &pa) || !pa.lid)
		die("port 1 of %s has no LID", dev);
	s.lid = pa.lid;
	s.pd = ibv_alloc_pd(s.ctx);
	s.cq = s.pd ? ibv_create_cq(s.ctx, CQE, NULL, NULL, 0) : NULL;
	if (!s.cq)
		die("PD or CQ failed");
	s.a = make_qp();
	s.b = make_qp();
	connect_qp(s.a, s.b->qp_num);
	connect_qp(s.b, s.a->qp_num);
	s.local = area(MAX_POSTERS * 2 * SLOTS * MSG_MAX, &s.local_mr,
		       IBV_ACCESS_LOCAL_WRITE);
	s.remote = area((MAX_POSTERS * SLOTS + READ_SRCS) * MSG_MAX,
			&s.remote_mr, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	s.rxbuf = area(RQ_DEPTH * RX_SLOT, &s.rx_mr, IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < READ_SRCS; i++) {
		fill((struct hdr *)read_src(i), MAX_POSTERS, K_READ, i);
		s.read_csum[i] = ((struct hdr *)read_src(i))->csum;
	}
	if (!s.rc) {
		struct ibv_ah_attr aa = { .dlid = s.lid, .port_num = 1 };

		s.ah = ibv_create_ah(s.pd, &aa);
		if (!s.ah)
			die("create AH failed");
	}
	for (i = 0; i < RQ_DEPTH; i++)
		if (post_rx(i))
			die("post receive failed");
	s.rx_credits = RQ_DEPTH;
	s.sq_credits = SQ_DEPTH;
	for (i = 0; i < s.nposters; i++) {
		struct poster *p = &s.posters[i];

		p->idx = i;
		p->sent = calloc(BITMAP_WORDS, 8);
		p->want_rx = calloc(BITMAP_WORDS, 8);
		p->rcvd = calloc(BITMAP_WORDS, 8);
		if (!p->sent || !p->want_rx || !p->rcvd)
			die("no memory");
	}
}

/* ---- posting ------------------------------------------------------------- */

static enum wr_kind pick_kind(unsigned int seq)
{
	static const enum wr_kind mix[] = {
		K_SEND, K_WRITE_IMM, K_SEND, K_WRITE, K_READ,
	};

	return s.rc ? mix[seq % 5] : K_SEND;
}

/* Claim the slots for @kind (a busy write/read slot makes it a SEND). */
static enum wr_kind claim_slots(struct poster *p, enum wr_kind kind,
				unsigned int slot)
{
	if (kind == K_READ) {
		if (claim(&p->read_ref[slot], 1))
			return K_READ;
		kind = K_SEND;
	}
	if (!claim(&p->send_ref[slot], 1))
		return 0;
	if ((kind == K_WRITE || kind == K_WRITE_IMM) &&
	    !claim(&p->write_ref[slot], kind == K_WRITE_IMM ? 2 : 1))
		kind = K_SEND;
	return kind;
}

static void unclaim_slots(struct poster *p, enum wr_kind kind, unsigned int slot)
{
	if (kind == K_READ) {
		__atomic_store_n(&p->read_ref[slot], 0, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&p->send_ref[slot], 0, __ATOMIC_RELEASE);
	if (kind != K_SEND)
		__atomic_store_n(&p->write_ref[slot], 0, __ATOMIC_RELEASE);
}

static int post(struct poster *p, enum wr_kind kind, unsigned int seq)
{
	static const enum ibv_wr_opcode opcode[] = {
		[K_SEND] = IBV_WR_SEND,
		[K_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
		[K_WRITE] = IBV_WR_RDMA_WRITE,
		[K_READ] = IBV_WR_RDMA_READ,
	};
	unsigned int slot = seq % SLOTS, src = seq % READ_SRCS;
	struct ibv_sge sge = { .lkey = s.local_mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id(kind, p->idx, seq), .opcode = opcode[kind],
		.send_flags = IBV_SEND_SIGNALED, .sg_list = &sge,
		.num_sge = 1,
		.imm_data = htonl(p->idx << 24 | (seq & 0xffffff)),
	}, *bad_wr;

	if (kind == K_READ) {
		struct hdr *dst = (struct hdr *)send_slot(p->idx, slot, true);

		memset(dst, 0, sizeof(*dst));
		sge.addr = (uintptr_t)dst;
		sge.length = msg_len(MAX_POSTERS, src);
		wr.wr.rdma.remote_addr = (uintptr_t)read_src(src);
	} else {
		struct hdr *h = (struct hdr *)send_slot(p->idx, slot, false);

		fill(h, p->idx, kind, seq);
		sge.addr = (uintptr_t)h;
		sge.length = h->len;
		wr.wr.rdma.remote_addr = (uintptr_t)write_slot(p->idx, slot);
	}
	if (s.rc) {
		wr.wr.rdma.rkey = s.remote_mr->rkey;
	} else {
		wr.wr.ud.ah = s.ah;
		wr.wr.ud.remote_qpn = s.b->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
	}
	return ibv_post_send(s.a, &wr, &bad_wr);
}

static bool posting(void)
{
	return !__atomic_load_n(&s.stop_posting, __ATOMIC_ACQUIRE);
}

/* Post @seq; false if it must be tried again. */
static bool post_one(struct poster *p, unsigned int seq)
{
	unsigned int slot = seq % SLOTS;
	enum wr_kind kind = claim_slots(p, pick_kind(seq), slot);
	bool rx = kind == K_SEND || kind == K_WRITE_IMM;
	int ret;

	if (!kind)
		goto busy;
	if (rx && !take(&s.rx_credits))
		goto unclaim;
	if (!take(&s.sq_credits)) {
		if (rx)
			give(&s.rx_credits, 1);
		goto unclaim;
	}
	ret = post(p, kind, seq);
	if (!ret)
		return true;
	give(&s.sq_credits, 1);
	if (rx)
		give(&s.rx_credits, 1);
	if (ret != ENOMEM) {
		bad("poster %u seq %u: post refused: %s", p->idx, seq,
		    strerror(ret));
		__atomic_store_n(&s.stop_posting, 1, __ATOMIC_RELEASE);
	}
unclaim:
	unclaim_slots(p, kind, slot);
busy:
	usleep(20);
	return false;
}

static void *poster_fn(void *arg)
{
	struct poster *p = arg;
	unsigned int seq = 0;

	while (posting() && seq < MAX_SEQ && (s.forever || now_ms() < s.deadline))
		if (post_one(p, seq))
			__atomic_store_n(&p->posted, ++seq, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- completions --------------------------------------------------------- */

static void send_done(const struct ibv_wc *wc)
{
	enum wr_kind kind = wc->wr_id >> 56;
	unsigned int pi = (wc->wr_id >> 48) & 0xff;
	unsigned int seq = (unsigned int)wc->wr_id, slot = seq % SLOTS;
	struct poster *p;
	const struct hdr *h;

	if (kind < K_SEND || kind > K_READ || pi >= s.nposters || seq >= MAX_SEQ) {
		bad("completion of unknown wr_id %#llx", (unsigned long long)wc->wr_id);
		return;
	}
	p = &s.posters[pi];
	if (test_and_set(p->sent, seq)) {
		bad("poster %u seq %u completed twice", pi, seq);
		return;
	}
	__atomic_fetch_add(&s.completions, 1, __ATOMIC_RELAXED);
	if (wc->status != IBV_WC_SUCCESS) {
		bad("poster %u seq %u: %s", pi, seq, ibv_wc_status_str(wc->status));
	} else if (kind == K_WRITE) {
		h = (const struct hdr *)write_slot(pi, slot);
		if (!check(h, 0, pi, seq, ~0U))
			bad("poster %u seq %u: WRITE landed corrupt", pi, seq);
	} else if (kind == K_READ) {
		h = (const struct hdr *)send_slot(pi, slot, true);
		if (!check(h, 0, MAX_POSTERS, seq % READ_SRCS, ~0U) ||
		    h->csum != s.read_csum[seq % READ_SRCS])
			bad("poster %u seq %u: READ returned corrupt data", pi, seq);
	}
	if (wc->status == IBV_WC_SUCCESS && (kind == K_SEND || kind == K_WRITE_IMM))
		test_and_set(p->want_rx, seq);
	if (kind == K_READ) {
		give(&p->read_ref[slot], -1);
	} else {
		give(&p->send_ref[slot], -1);
		if (kind != K_SEND)
			give(&p->write_ref[slot], -1);
	}
	give(&s.sq_credits, 1);
}

/* The message a successful receive delivered, or NULL if not intact. */
static const struct hdr *received(const struct ibv_wc *wc, const unsigned char *buf,
				  unsigned int *pi)
{
	const struct hdr *h = (const struct hdr *)buf;
	unsigned int len = wc->byte_len;
	unsigned int imm;

	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		imm = ntohl(wc->imm_data);
		*pi = imm >> 24;
		if (*pi >= s.nposters)
			return NULL;
		h = (const struct hdr *)write_slot(*pi, imm % SLOTS);
		return check(h, len, *pi, imm, 0xffffff) &&
		       h->kind == K_WRITE_IMM ? h : NULL;
	}
	if (wc->opcode != IBV_WC_RECV)
		return NULL;
	if (!s.rc) {
		if (len < GRH || wc->src_qp != s.a->qp_num)
			return NULL;
		h = (const struct hdr *)(buf + GRH);
		len -= GRH;
	}
	*pi = h->poster;
	return *pi < s.nposters && check(h, len, *pi, h->seq, ~0U) &&
	       h->kind == K_SEND ? h : NULL;
}

static void recv_done(const struct ibv_wc *wc)
{
	unsigned int slot = wc->wr_id & 0xffff, pi;
	const struct hdr *h;

	if (slot >= RQ_DEPTH ||
	    !__atomic_exchange_n(&s.slot_posted[slot], 0, __ATOMIC_ACQ_REL)) {
		bad("receive slot %u completed twice (or unknown)", slot);
		return;
	}
	give(&s.rx_completed, 1);
	if (wc->status != IBV_WC_SUCCESS) {
		if (!(wc->status == IBV_WC_WR_FLUSH_ERR &&
		      __atomic_load_n(&s.flushing, __ATOMIC_ACQUIRE)))
			bad("receive: %s", ibv_wc_status_str(wc->status));
		return;
	}
	h = received(wc, s.rxbuf + slot * RX_SLOT, &pi);
	if (!h) {
		bad("receive (opcode %d, %u bytes) delivered a corrupt message",
		    wc->opcode, wc->byte_len);
	} else {
		if (h->seq >= MAX_SEQ || test_and_set(s.posters[pi].rcvd, h->seq))
			bad("poster %u seq %u received twice", pi, h->seq);
		if (h->kind == K_WRITE_IMM)
			give(&s.posters[pi].write_ref[h->seq % SLOTS], -1);
	}
	if (!__atomic_load_n(&s.flushing, __ATOMIC_ACQUIRE)) {
		if (post_rx(slot))
			bad("repost of a receive failed");
		else
			give(&s.rx_credits, 1);
	}
}

static int poll_some(void)
{
	struct ibv_wc wc[8];
	int i, n = ibv_poll_cq(s.cq, 8, wc);

	if (n < 0)
		bad("poll CQ: %d", n);
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id >> 56 == K_RECV)
			recv_done(&wc[i]);
		else
			send_done(&wc[i]);
	}
	return n > 0 ? n : 0;
}

/* Kill mode: traffic flows, the suite may kill us now. */
static void say_ready(void)
{
	const char *ready = __atomic_exchange_n(&s.ready, NULL,
						__ATOMIC_ACQ_REL);
	FILE *f = ready ? fopen(ready, "w") : NULL;

	if (f)
		fclose(f);
}

static void *poller_fn(void *arg)
{
	while (!__atomic_load_n(&s.stop_polling, __ATOMIC_ACQUIRE)) {
		if (!poll_some())
			usleep(50);
		if (__atomic_load_n(&s.completions, __ATOMIC_RELAXED) >=
		    READY_AFTER)
			say_ready();
	}
	return arg;
}

/* ---- the run --------------------------------------------------------------- */

static long long total_posted(void)
{
	long long n = 0;
	unsigned int i;

	for (i = 0; i < s.nposters; i++)
		n += __atomic_load_n(&s.posters[i].posted, __ATOMIC_ACQUIRE);
	return n;
}

static void start(void)
{
	unsigned int i;

	/* From now: setting up may take a while under emulation. */
	s.deadline = now_ms() + s.seconds * 1000LL;
	for (i = 0; i < s.npollers; i++)
		if (pthread_create(&s.pollers[i], NULL, poller_fn, NULL))
			die("pthread_create failed");
	for (i = 0; i < s.nposters; i++)
		if (pthread_create(&s.posters[i].thread, NULL, poster_fn,
				   &s.posters[i]))
			die("pthread_create failed");
}

static int to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* Join the posters, drain, flush the receiver; everything bounded. */
static void finish(void)
{
	long long end;
	unsigned int i;

	for (i = 0; i < s.nposters; i++)
		pthread_join(s.posters[i].thread, NULL);
	end = now_ms() + DRAIN_SECONDS * 1000;
	while (__atomic_load_n(&s.completions, __ATOMIC_RELAXED) < total_posted() &&
	       now_ms() < end)
		usleep(1000);
	__atomic_store_n(&s.stop_polling, 1, __ATOMIC_RELEASE);
	for (i = 0; i < s.npollers; i++)
		pthread_join(s.pollers[i], NULL);
	__atomic_store_n(&s.flushing, 1, __ATOMIC_RELEASE);
	while (poll_some())
		;
	if (to_err(s.b))
		bad("receiver to ERR failed");
	end = now_ms() + DRAIN_SECONDS * 1000;
	while (s.rx_completed != s.rx_posted && now_ms() < end)
		if (!poll_some())
			usleep(100);
	while (poll_some())
		;
}

/* Is any bit of @map set from @from on? */
static bool any_from(const unsigned long long *map, unsigned int from)
{
	unsigned int w = from / 64;

	if (from % 64 && map[w++] >> (from % 64))
		return true;
	for (; w < BITMAP_WORDS; w++)
		if (map[w])
			return true;
	return false;
}

/* Poster @p: every request completed once, every successful send received. */
static long long verdict_poster(const struct poster *p)
{
	long long received = 0;
	unsigned int seq;

	for (seq = 0; seq < p->posted; seq++) {
		if (!test(p->sent, seq))
			bad("poster %u seq %u: never completed", p->idx, seq);
		if (test(p->rcvd, seq) != test(p->want_rx, seq))
			bad("poster %u seq %u: %s", p->idx, seq,
			    test(p->rcvd, seq) ? "received, not sent" :
			    "sent, never received");
		received += test(p->rcvd, seq);
	}
	if (any_from(p->sent, p->posted) || any_from(p->rcvd, p->posted))
		bad("poster %u: completed or received beyond seq %u, never posted",
		    p->idx, p->posted);
	return received;
}

static long long verdict(void)
{
	long long received = 0;
	unsigned int i;

	for (i = 0; i < s.nposters; i++)
		received += verdict_poster(&s.posters[i]);
	if (s.rx_completed != s.rx_posted)
		bad("%d receives posted, %d completed", s.rx_posted, s.rx_completed);
	if (total_posted() < 100)
		bad("too little traffic: %lld requests", total_posted());
	return received;
}

static void hold(const char *dev, const char *ready)
{
	FILE *f;

	s.rc = true;
	s.ctx = open_device(dev);
	s.pd = ibv_alloc_pd(s.ctx);
	s.cq = s.pd ? ibv_create_cq(s.ctx, 16, NULL, NULL, 0) : NULL;
	if (!s.cq)
		die("PD or CQ failed");
	s.a = make_qp();
	f = fopen(ready, "w");
	if (!f)
		die("cannot create %s", ready);
	fclose(f);
	for (;;)
		pause();
}

static void traffic(const char *dev, const char *type)
{
	long long received;

	if (strcmp(type, "rc") && strcmp(type, "ud"))
		die("type must be rc or ud");
	s.rc = !strcmp(type, "rc");
	if (!s.nposters || s.nposters > MAX_POSTERS || !s.npollers ||
	    s.npollers > MAX_POLLERS)
		die("1-%d posters, 1-%d pollers", MAX_POSTERS, MAX_POLLERS);
	setup(dev);
	start();
	finish();
	received = verdict();
	printf("stress_user: %s: %lld posted, %lld completed, %lld received, %d violations\n",
	       type, total_posted(), s.completions, received, s.violations);
	exit(s.violations ? 1 : 0);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "hold"))
		hold(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "kill")) {
		s.forever = true;
		s.ready = argv[4];
		s.nposters = 4;
		s.npollers = 2;
		traffic(argv[2], argv[3]);
	}
	if (argc == 7 && !strcmp(argv[1], "traffic")) {
		s.seconds = atoi(argv[4]);
		s.nposters = atoi(argv[5]);
		s.npollers = atoi(argv[6]);
		traffic(argv[2], argv[3]);
	}
	fprintf(stderr, "usage: stress_user traffic DEV rc|ud SECONDS POSTERS POLLERS\n"
		"       stress_user kill DEV rc|ud READY_FILE\n"
		"       stress_user hold DEV READY_FILE\n");
	return 2;
}
