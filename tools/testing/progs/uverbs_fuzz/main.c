// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: a seeded, reproducible hostile client of the uverbs
 * interface of one RDMA device (issue 10, suite 68-fuzz).
 *
 * Usage: uverbs_fuzz --device NAME [--seed S] [--seconds N] [--steps N]
 *                    [--avoid BUG,...] [--no-fork] [--verbose]
 *
 * Each round opens /dev/infiniband/uverbsX, creates a user context with
 * GET_CONTEXT through write(), and then takes random steps, half of them
 * sane (live handles, valid pointers, the ABI's sizes: objects get made,
 * QPs wired to each other and traffic sent), the others hostile:
 *  - write() commands (the ones rdmavt implements, the extended ones and
 *    random command numbers) with fields drawn from sensible values,
 *    boundaries and random ones; handles of live objects, destroyed ones
 *    and random numbers; response pointers valid, NULL, unmapped,
 *    read-only or in the kernel's half; in and out sizes short, exact
 *    and long;
 *  - RDMA_VERBS_IOCTL methods, well-formed (QUERY_CONTEXT, QUERY_PORT,
 *    INFO_HANDLES, the GID queries, CQ and QP creation, the destroy
 *    methods) with occasional damage, and random object, method and
 *    attribute ids and lengths;
 *  - mmap() of the rings whose cookies the create and resize responses
 *    return (CQ, QP receive queue, SRQ: the ipathverbs ABI), mmap() at
 *    random offsets and lengths, partial munmap();
 *  - scribbles on those rings' head and tail indices and entries, and
 *    receive requests and CQ polls through the rings as the provider
 *    does them, with hostile SGE counts now and then.
 * Now and then a round forks a child that fuzzes on its own context, or
 * on the parent's, and is killed with SIGKILL or exits with its objects
 * live: the kernel must clean up. Rounds end by closing everything in a
 * random order, with objects still live.
 *
 * Receives land only in MRs on memory of ours; the summary counts the
 * completions seen. --avoid names known kernel bugs to keep away from
 * (avoidable[]), so that a run finds the next one.
 *
 * Every call runs under a 20 s alarm: a call that blocks longer is a
 * failure (reported with its step and arguments, and the program exits).
 * A call may fail with any errno (counted per command in the summary).
 * Failures, each reported with the step and the call:
 *  - a write() that returns anything but the size passed or -1;
 *  - an ioctl() that returns anything but 0 or -1;
 *  - a success that leaves unwritten a response field the ABI promises;
 *  - EFAULT when every pointer was valid and every size the ABI's;
 *  - the kernel writing past the response length it was given, or into
 *    a read-only page;
 *  - the exact size of a fresh ring's mapping refused;
 *  - a child that does not die within 20 s of SIGKILL;
 *  - after fuzzing, an RC SEND between two new QPs that does not arrive.
 *
 * The program must not harm the guest it runs in: it caps pinned memory
 * (RLIMIT_MEMLOCK, CAP_IPC_LOCK dropped: root would bypass the limit),
 * keeps the rings it asks for under a budget, never passes the kernel a
 * pointer to memory it does not own except ones that cannot be mapped
 * (NULL, low pages, a PROT_NONE guard, the kernel's half), and writes
 * only to memory it mapped itself.
 *
 * The seed replays the sequence of calls: with --no-fork, --steps N and
 * --seconds long enough, up to kernel timing (how far the kernel got
 * through a ring decides whether a receive is posted), the same calls in
 * the same order. Exit status: 0 no failure, 1 failures, 2 usage or setup error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define PAGE			4096UL
#define RESP_BYTES		(4UL << 20)	/* room for any response */
#define SCRATCH_BYTES		(64UL << 10)
#define ARENA_BYTES		(4UL << 20)	/* memory for MRs */
#define MEMLOCK_BYTES		(16UL << 20)
#define KMEM_BUDGET		(160UL << 20)	/* rings and queues asked for */
#define CALL_TIMEOUT		20		/* seconds a call may take */
#define PATTERN			0xa5
#define PATTERN32		0xa5a5a5a5u
#define PATTERN64		0xa5a5a5a5a5a5a5a5ull
#define CANARY			64
#define MAX_OBJS		256
#define MAX_LIVE		40		/* live objects of one kind */
#define MAX_RINGS		96
#define MAX_COOKIES		256
#define MAX_CHANS		4
#define MAX_ERRNO		134
#define WBUF_BYTES		(64UL << 10)
#define UVERBS_WC_BYTES		sizeof(struct ib_uverbs_wc)
#define RWQE_BYTES		16		/* struct rvt_rwqe without SGEs */
#define SGE_BYTES		16		/* struct rvt_wqe_sge */
#define RING_HDR		8		/* head and tail */
#define EXIT_HANG		3
#define EXIT_CRASH		4
#define KERNEL_PTR		0xffff888000000000ull
#define NONCANON_PTR		0x0000800000000000ull
#define QKEY			0x11111111u
#define MCAST_LID_BASE		0xc000

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIT(n)			(1u << (n))

/* IB QP states and attribute mask bits (enum ib_qp_state, ib_qp_attr_mask) */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };
#define QPA_STATE		BIT(0)
#define QPA_CUR_STATE		BIT(1)
#define QPA_EN_SQD_ASYNC	BIT(2)
#define QPA_ACCESS		BIT(3)
#define QPA_PKEY		BIT(4)
#define QPA_PORT		BIT(5)
#define QPA_QKEY		BIT(6)
#define QPA_AV			BIT(7)
#define QPA_PATH_MTU		BIT(8)
#define QPA_TIMEOUT		BIT(9)
#define QPA_RETRY		BIT(10)
#define QPA_RNR_RETRY		BIT(11)
#define QPA_RQ_PSN		BIT(12)
#define QPA_MAX_RD		BIT(13)
#define QPA_ALT_PATH		BIT(14)
#define QPA_MIN_RNR		BIT(15)
#define QPA_SQ_PSN		BIT(16)
#define QPA_MAX_DEST_RD		BIT(17)
#define QPA_DEST_QPN		BIT(20)
#define ACC_LOCAL_WRITE		1u
#define ACC_REMOTE_WRITE	2u
#define ACC_REMOTE_READ		4u
#define ACC_REMOTE_ATOMIC	8u
#define ACC_MW_BIND		16u
#define ACC_WRITABLE		(ACC_LOCAL_WRITE | ACC_REMOTE_WRITE | \
				 ACC_REMOTE_ATOMIC | ACC_MW_BIND)
#define SEND_SIGNALED		2u
#define SRQ_MAX_WR		1u
#define SRQ_LIMIT		2u
#define MTU_4096		5

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static size_t div_up(size_t n, size_t d)
{
	return (n + d - 1) / d;
}

/* ---- what is counted ---------------------------------------------------- */

/* One entry per call kind, for the summary. */
enum op {
	OP_GET_CONTEXT,
	OP_QUERY_DEVICE,
	OP_QUERY_PORT,
	OP_ALLOC_PD,
	OP_DEALLOC_PD,
	OP_CREATE_AH,
	OP_DESTROY_AH,
	OP_REG_MR,
	OP_REREG_MR,
	OP_DEREG_MR,
	OP_ALLOC_MW,
	OP_CREATE_COMP_CHANNEL,
	OP_CREATE_CQ,
	OP_RESIZE_CQ,
	OP_DESTROY_CQ,
	OP_POLL_CQ,
	OP_REQ_NOTIFY_CQ,
	OP_CREATE_QP,
	OP_QUERY_QP,
	OP_MODIFY_QP,
	OP_DESTROY_QP,
	OP_POST_SEND,
	OP_POST_RECV,
	OP_ATTACH_MCAST,
	OP_DETACH_MCAST,
	OP_CREATE_SRQ,
	OP_MODIFY_SRQ,
	OP_QUERY_SRQ,
	OP_DESTROY_SRQ,
	OP_POST_SRQ_RECV,
	OP_OPEN_XRCD,
	OP_OPEN_QP,
	OP_EX_QUERY_DEVICE,
	OP_EX_CREATE_CQ,
	OP_EX_CREATE_QP,
	OP_EX_MODIFY_QP,
	OP_EX_MODIFY_CQ,
	OP_EX_OTHER,
	OP_RANDOM_CMD,
	OP_RAW_WRITE,
	OP_IOCTL_RANDOM,
	OP_IOCTL_QUERY_CONTEXT,
	OP_IOCTL_QUERY_PORT,
	OP_IOCTL_INFO_HANDLES,
	OP_IOCTL_GID,
	OP_IOCTL_INVOKE_WRITE,
	OP_IOCTL_CREATE_CQ,
	OP_IOCTL_CREATE_QP,
	OP_IOCTL_DESTROY,
	OP_IOCTL_OTHER,
	OP_MMAP_RING,
	OP_MMAP_RANDOM,
	OP_MUNMAP,
	OP_EVENT_READ,
	OP_OPEN,
	NR_OPS
};

static const char *const op_names[] = {
	[OP_GET_CONTEXT] = "GET_CONTEXT",
	[OP_QUERY_DEVICE] = "QUERY_DEVICE",
	[OP_QUERY_PORT] = "QUERY_PORT",
	[OP_ALLOC_PD] = "ALLOC_PD",
	[OP_DEALLOC_PD] = "DEALLOC_PD",
	[OP_CREATE_AH] = "CREATE_AH",
	[OP_DESTROY_AH] = "DESTROY_AH",
	[OP_REG_MR] = "REG_MR",
	[OP_REREG_MR] = "REREG_MR",
	[OP_DEREG_MR] = "DEREG_MR",
	[OP_ALLOC_MW] = "ALLOC_MW",
	[OP_CREATE_COMP_CHANNEL] = "CREATE_COMP_CHANNEL",
	[OP_CREATE_CQ] = "CREATE_CQ",
	[OP_RESIZE_CQ] = "RESIZE_CQ",
	[OP_DESTROY_CQ] = "DESTROY_CQ",
	[OP_POLL_CQ] = "POLL_CQ",
	[OP_REQ_NOTIFY_CQ] = "REQ_NOTIFY_CQ",
	[OP_CREATE_QP] = "CREATE_QP",
	[OP_QUERY_QP] = "QUERY_QP",
	[OP_MODIFY_QP] = "MODIFY_QP",
	[OP_DESTROY_QP] = "DESTROY_QP",
	[OP_POST_SEND] = "POST_SEND",
	[OP_POST_RECV] = "POST_RECV",
	[OP_ATTACH_MCAST] = "ATTACH_MCAST",
	[OP_DETACH_MCAST] = "DETACH_MCAST",
	[OP_CREATE_SRQ] = "CREATE_SRQ",
	[OP_MODIFY_SRQ] = "MODIFY_SRQ",
	[OP_QUERY_SRQ] = "QUERY_SRQ",
	[OP_DESTROY_SRQ] = "DESTROY_SRQ",
	[OP_POST_SRQ_RECV] = "POST_SRQ_RECV",
	[OP_OPEN_XRCD] = "OPEN_XRCD",
	[OP_OPEN_QP] = "OPEN_QP",
	[OP_EX_QUERY_DEVICE] = "EX_QUERY_DEVICE",
	[OP_EX_CREATE_CQ] = "EX_CREATE_CQ",
	[OP_EX_CREATE_QP] = "EX_CREATE_QP",
	[OP_EX_MODIFY_QP] = "EX_MODIFY_QP",
	[OP_EX_MODIFY_CQ] = "EX_MODIFY_CQ",
	[OP_EX_OTHER] = "EX_OTHER",
	[OP_RANDOM_CMD] = "RANDOM_CMD",
	[OP_RAW_WRITE] = "RAW_WRITE",
	[OP_IOCTL_RANDOM] = "IOCTL_RANDOM",
	[OP_IOCTL_QUERY_CONTEXT] = "IOCTL_QUERY_CONTEXT",
	[OP_IOCTL_QUERY_PORT] = "IOCTL_QUERY_PORT",
	[OP_IOCTL_INFO_HANDLES] = "IOCTL_INFO_HANDLES",
	[OP_IOCTL_GID] = "IOCTL_GID",
	[OP_IOCTL_INVOKE_WRITE] = "IOCTL_INVOKE_WRITE",
	[OP_IOCTL_CREATE_CQ] = "IOCTL_CREATE_CQ",
	[OP_IOCTL_CREATE_QP] = "IOCTL_CREATE_QP",
	[OP_IOCTL_DESTROY] = "IOCTL_DESTROY",
	[OP_IOCTL_OTHER] = "IOCTL_OTHER",
	[OP_MMAP_RING] = "MMAP_RING",
	[OP_MMAP_RANDOM] = "MMAP_RANDOM",
	[OP_MUNMAP] = "MUNMAP",
	[OP_EVENT_READ] = "EVENT_READ",
	[OP_OPEN] = "OPEN",
};

/**
 * struct op_stat - what the calls of one kind returned
 * @calls: calls made
 * @ok: calls that succeeded
 * @err: failed calls, per errno
 */
struct op_stat {
	unsigned long calls, ok;
	unsigned long err[MAX_ERRNO];
};

static struct op_stat stats[NR_OPS];
static unsigned long failures, step, rounds, scribbles, ring_posts;
/* A child's failures, which its parent adds to its own when it reaps it
 * (a killed child cannot report them otherwise); MAP_SHARED.
 */
static unsigned long *child_failures;
static unsigned long wcs_polled, ring_wcs;	/* completions seen */
static unsigned long children, children_killed, children_exited;
static bool verbose, is_child;
/* The call being made, for failure reports and the hang message. */
static char desc[384];
static char hang_msg[512];

/* ---- the random sequence ------------------------------------------------ */

static __u64 rng;

/* splitmix64: one 64-bit state, so a seed is the whole sequence. */
static __u64 next64(void)
{
	__u64 z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static __u32 rnd(__u32 n)
{
	return n ? (__u32)(next64() % n) : 0;
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

/*
 * This step draws only sensible values: live handles, valid pointers,
 * the ABI's sizes. Half the steps are, so that objects get made, wired
 * and used, and the hostile half has something to break.
 */
static bool sane;
/* The setup and the data check: only calls as the ABI says. */
static bool exact_mode;

/*
 * Known kernel bugs the fuzzer can be told to keep away from (--avoid),
 * so that a run finds the next one instead of the same crash again.
 */
#define AV_POST_SEND_NO_WR	BIT(0)
#define AV_RESIZE_CQ_COOKIE	BIT(1)
#define AV_RQ_SGE_COUNT		BIT(2)
#define AV_MCAST_NO_PORT	BIT(3)
#define AV_CREATE_QP_RESP	BIT(4)
#define AV_RC_SEND		BIT(5)
#define AV_IOCTL_GET_CONTEXT	BIT(6)

static const struct {
	const char *name;
	unsigned int bit;
} avoidable[] = {
	/* rvt_post_send() dereferences wr, NULL for a POST_SEND of no WR */
	{ "post-send-no-wr", AV_POST_SEND_NO_WR },
	/*
	 * upstream's rvt_resize_cq() takes the kind of ring from the udata:
	 * resize only CQs whose kind is sure, with room for a cookie
	 * exactly when they have a ring
	 */
	{ "resize-cq-no-cookie", AV_RESIZE_CQ_COOKIE },
	/* upstream trusts a user ring's SGE counts */
	{ "rq-sge-count", AV_RQ_SGE_COUNT },
	/* rvt_attach_mcast() indexes rdi->ports[port_num - 1], port 0 too */
	{ "mcast-no-port", AV_MCAST_NO_PORT },
	/*
	 * upstream's rvt_create_qp() frees a user RQ ring twice when it
	 * cannot write the ring's cookie (an invalid response pointer)
	 */
	{ "create-qp-response", AV_CREATE_QP_RESP },
	/*
	 * upstream deadlocks when a destroy or a modify of an RC or UC QP
	 * meets the loopback engine still sending on it (r_lock and s_lock
	 * taken in the two orders): only UD QPs get sends, on live handles
	 */
	{ "rc-send", AV_RC_SEND },
	/*
	 * ib_uverbs (ib_core, not rdmavt) leaks a reference to the calling
	 * task when the ioctl GET_CONTEXT fails in ib_init_ucontext(), as
	 * on a file that has its context already: the context is freed
	 * without rdma_restrack_put() (uverbs_std_types_device.c)
	 */
	{ "ioctl-get-context", AV_IOCTL_GET_CONTEXT },
};

static unsigned int avoid;

static bool parse_avoid(const char *list)
{
	char *copy = strdup(list), *name, *save = NULL;
	unsigned int i;
	bool ok = true;

	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(avoidable); i++)
			if (!strcmp(name, avoidable[i].name))
				break;
		if (i == ARRAY_SIZE(avoidable)) {
			fprintf(stderr, "unknown bug to avoid: %s\n", name);
			ok = false;
		} else {
			avoid |= avoidable[i].bit;
		}
	}
	free(copy);
	return ok;
}

/* A write() command number that would run into an avoided bug. */
static bool cmd_avoided(__u32 cmd)
{
	return ((avoid & (AV_POST_SEND_NO_WR | AV_RC_SEND)) &&
		cmd == IB_USER_VERBS_CMD_POST_SEND) ||
	       ((avoid & AV_RESIZE_CQ_COOKIE) &&
		cmd == IB_USER_VERBS_CMD_RESIZE_CQ) ||
	       ((avoid & AV_MCAST_NO_PORT) &&
		(cmd == IB_USER_VERBS_CMD_ATTACH_MCAST ||
		 cmd == IB_USER_VERBS_CMD_DETACH_MCAST)) ||
	       ((avoid & AV_CREATE_QP_RESP) &&
		cmd == IB_USER_VERBS_CMD_CREATE_QP);
}

/* The values around a limit, and the ones that break signed arithmetic. */
static __u32 boundary(__u32 max)
{
	const __u32 b[] = { 0, 1, max - 1, max, max + 1, 0xffffffffu,
			    0x80000000u, 0x7fffffffu };

	return b[rnd(ARRAY_SIZE(b))];
}

/* A count: mostly sensible (lo..hi), else a boundary of max, or anything. */
static __u32 pick_u32(__u32 lo, __u32 hi, __u32 max)
{
	__u32 r = rnd(20);

	if (sane || r < 13)
		return lo + rnd(hi - lo + 1);
	if (r < 17)
		return boundary(max);
	if (r < 19)
		return rnd(256);
	return (__u32)next64();
}

/* A small field (u8): sensible, its boundaries, or anything. */
static __u8 pick_u8(__u8 sensible, __u8 max)
{
	__u32 r = rnd(10);

	if (sane || r < 7)
		return sensible;
	if (r < 9)
		return (__u8)boundary(max);
	return (__u8)rnd(256);
}

/* ---- memory the program owns -------------------------------------------- */

static char *resp_buf;		/* responses; a PROT_NONE guard follows */
static char *guard;		/* PROT_NONE: any access faults */
static char *ro_page;		/* read-only, filled with PATTERN */
static char *scratch;		/* what random pointers may point at */
static char *arena;		/* what MRs are registered on */

enum ptr_kind { PK_VALID, PK_NULL, PK_GUARD, PK_RO, PK_KERNEL, PK_NONCANON,
		PK_EDGE, PK_LOW, NR_PK };

/* A pointer of a kind; PK_VALID is @valid. None is memory of another. */
static __u64 ptr_of(enum ptr_kind k, void *valid)
{
	switch (k) {
	case PK_VALID:
		return (__u64)(unsigned long)valid;
	case PK_NULL:
		return 0;
	case PK_GUARD:
		return (__u64)(unsigned long)guard;
	case PK_RO:
		return (__u64)(unsigned long)ro_page;
	case PK_KERNEL:
		return KERNEL_PTR + rnd(1u << 20) * 8;
	case PK_NONCANON:
		return NONCANON_PTR;
	case PK_EDGE:	/* the last 8 bytes before the guard */
		return (__u64)(unsigned long)(guard - 8);
	default:	/* below mmap_min_addr: never mapped */
		return rnd(65536);
	}
}

static enum ptr_kind pick_ptr_kind(void)
{
	return sane || chance(82) ? PK_VALID : (enum ptr_kind)(1 + rnd(NR_PK - 1));
}

/*
 * A word for a field of unknown meaning (random commands and attributes):
 * when the kernel takes it for a pointer it is the scratch buffer or one
 * that cannot be mapped, never other memory of ours.
 */
static __u64 safe_word(void)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return rnd(16);
	case 2:
		return rnd(65536);
	case 3:
		return (__u64)(unsigned long)scratch + rnd(SCRATCH_BYTES - 256);
	case 4:
		return ptr_of((enum ptr_kind)(1 + rnd(NR_PK - 1)), NULL);
	case 5:
		return ~0ull;
	case 6:
		return next64() | (1ull << 63);	/* never a user address */
	default:
		return boundary(0x10000);
	}
}

static void fill_safe(void *p, size_t len)
{
	__u64 w;
	size_t i;

	for (i = 0; i < len; i += sizeof(w)) {
		w = safe_word();
		memcpy((char *)p + i, &w, min_sz(sizeof(w), len - i));
	}
}

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void setup_memory(void)
{
	resp_buf = map_anon(RESP_BYTES + PAGE, PROT_READ | PROT_WRITE);
	guard = resp_buf + RESP_BYTES;
	if (mprotect(guard, PAGE, PROT_NONE)) {
		perror("mprotect");
		exit(2);
	}
	/* Written before it turns read-only: a page of its own, not zero's. */
	ro_page = map_anon(PAGE, PROT_READ | PROT_WRITE);
	memset(ro_page, PATTERN, PAGE);
	if (mprotect(ro_page, PAGE, PROT_READ)) {
		perror("mprotect");
		exit(2);
	}
	/*
	 * Twice the room pointers into it are drawn from, and a guard: a
	 * length field is at most 64 KiB, so what the kernel writes at such
	 * a pointer stays in the buffer or faults.
	 */
	scratch = map_anon(2 * SCRATCH_BYTES + PAGE, PROT_READ | PROT_WRITE);
	if (mprotect(scratch + 2 * SCRATCH_BYTES, PAGE, PROT_NONE)) {
		perror("mprotect");
		exit(2);
	}
	child_failures = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_failures == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	arena = map_anon(ARENA_BYTES, PROT_READ | PROT_WRITE);
	memset(arena, 0, ARENA_BYTES);
}

/* ---- reports -------------------------------------------------------------- */

static const char *who(void)
{
	return is_child ? "child " : "";
}

static void failf(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %sstep %lu round %lu: %s: ", who(), step, rounds, desc);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
	if (is_child)
		__atomic_add_fetch(child_failures, 1, __ATOMIC_RELAXED);
}

static void describe(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	if (verbose)
		printf("%sstep %lu%s: %s\n", who(), step, sane ? "*" : "",
		       desc);
}

static void on_alarm(int sig)
{
	ssize_t n = write(STDOUT_FILENO, hang_msg, strlen(hang_msg));

	(void)sig;
	(void)n;
	_exit(EXIT_HANG);
}

static void on_crash(int sig)
{
	static const char msg[] = "FAIL: the fuzzer itself crashed, at: ";
	ssize_t n;

	(void)sig;
	n = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	n = write(STDOUT_FILENO, desc, strlen(desc));
	n = write(STDOUT_FILENO, "\n", 1);
	(void)n;
	_exit(EXIT_CRASH);
}

/* Arm the per-call timer; the message names the call in @desc. */
static void timer_on(void)
{
	snprintf(hang_msg, sizeof(hang_msg),
		 "FAIL %sstep %lu round %lu: %s: blocked for more than %d s\n",
		 who(), step, rounds, desc, CALL_TIMEOUT);
	alarm(CALL_TIMEOUT);
}

static void timer_off(void)
{
	alarm(0);
}

/* Count the outcome of a call of kind @op: 0 or -1 with errno @err. */
static void count(enum op op, bool ok, int err)
{
	stats[op].calls++;
	if (ok)
		stats[op].ok++;
	else
		stats[op].err[err > 0 && err < MAX_ERRNO ? err : 0]++;
	if (verbose)
		printf("%s  -> %s\n", who(), ok ? "ok" : strerrorname_np(err));
}

/* ---- the objects of the current context --------------------------------- */

enum kind { K_PD, K_MR, K_CQ, K_QP, K_SRQ, K_AH, NR_KINDS };

/**
 * struct obj - an object this process created, live or destroyed
 * @used: the slot holds an object
 * @live: not destroyed (as far as this process knows)
 * @kind: what it is
 * @handle: its uverbs handle; handles are reused once freed
 * @pd: the handle of the PD it was made in (MR, QP, SRQ, AH)
 * @cost: kernel memory its queues take, estimated, for KMEM_BUDGET
 * @mr: an MR's IOVA range, keys and access
 * @cq: a CQ's size, and whether the kernel polls it (no user ring)
 * @qp: a QP's number, type, state as last set, whether it was given a
 *	port, and whether it has an SRQ
 * @srq: an SRQ's size
 */
struct obj {
	bool used, live;
	enum kind kind;
	__u32 handle, pd;
	size_t cost;
	union {
		struct {
			__u64 iova, len;
			__u32 lkey, rkey, access;
		} mr;
		struct {
			__u32 cqe;
			bool kernel_polled;
			/*
			 * kernel_polled is sure: not after a damaged ioctl
			 * create, which may have sent the ring's cookie
			 * where the fuzzer does not look
			 */
			bool ring_known;
		} cq;
		struct {
			__u32 qpn, type, state;
			bool has_port, has_srq;
		} qp;
		struct {
			__u32 max_wr, max_sge;
		} srq;
	};
};

static struct obj objs[MAX_OBJS];
static size_t kmem_live;	/* sum of the live objects' cost */

static unsigned int live_count(enum kind k)
{
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++)
		n += objs[i].used && objs[i].live && objs[i].kind == k;
	return n;
}

/* A random live object of kind @k (any kind if @k is NR_KINDS), or NULL. */
static struct obj *pick_live(enum kind k)
{
	struct obj *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (!o->used || !o->live || (k != NR_KINDS && o->kind != k))
			continue;
		if (rnd(++n) == 0)
			found = o;
	}
	return found;
}

/* A random live QP in state @state (any if negative), or NULL. */
static struct obj *pick_qp_in(int state)
{
	struct obj *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (!o->used || !o->live || o->kind != K_QP ||
		    (state >= 0 && o->qp.state != (__u32)state))
			continue;
		if (rnd(++n) == 0)
			found = o;
	}
	return found;
}

/* A live QP of @qp's type other than @qp; @qp itself if there is none. */
static struct obj *pick_peer(struct obj *qp)
{
	struct obj *found = qp;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (!o->used || !o->live || o->kind != K_QP || o == qp ||
		    o->qp.type != qp->qp.type)
			continue;
		if (rnd(++n) == 0)
			found = o;
	}
	return found;
}

/* A live @k made in PD @pd, or NULL. */
static struct obj *pick_in_pd(enum kind k, __u32 pd)
{
	struct obj *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (!o->used || !o->live || o->kind != k || o->pd != pd)
			continue;
		if (rnd(++n) == 0)
			found = o;
	}
	return found;
}

static struct obj *pick_dead(void)
{
	struct obj *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		if (!objs[i].used || objs[i].live)
			continue;
		if (rnd(++n) == 0)
			found = &objs[i];
	}
	return found;
}

/*
 * The first live PD of the table: sane steps make most objects there, so that the
 * QPs, MRs and AHs that would work together share one.
 */
static struct obj *home_pd(void)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJS; i++)
		if (objs[i].used && objs[i].live && objs[i].kind == K_PD)
			return &objs[i];
	return NULL;
}

/*
 * A handle for a command on a @k: a live one, a destroyed one, one of
 * another kind, or a number. *@op is set to the live object, else NULL.
 */
static __u32 pick_handle(enum kind k, struct obj **op)
{
	__u32 r = rnd(100);
	struct obj *o = NULL;

	*op = NULL;
	if (sane && k == K_PD && r < 80)
		o = home_pd();
	else if (sane || r < 82)
		o = pick_live(k);
	else if (r < 90)
		o = pick_dead();
	else if (r < 94)
		o = pick_live(NR_KINDS);
	if (o) {
		if (o->live && o->kind == k)
			*op = o;
		return o->handle;
	}
	return r < 97 ? rnd(64) : boundary(0x10000);
}

static struct obj *find_live_handle(__u32 handle)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJS; i++)
		if (objs[i].used && objs[i].live && objs[i].handle == handle)
			return &objs[i];
	return NULL;
}

static void kill_obj(struct obj *o)
{
	if (!o || !o->live)
		return;
	o->live = false;
	kmem_live -= o->cost;
	o->cost = 0;
}

/*
 * Record a new object. Its handle is now live, so an older record with
 * the same handle is forgotten; when the table is full a destroyed one
 * makes room. NULL when there is no room (the object stays untracked).
 */
static struct obj *add_obj(enum kind k, __u32 handle, size_t cost)
{
	struct obj *slot = NULL;
	unsigned int i;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (o->used && o->handle == handle) {
			kill_obj(o);
			o->used = false;
		}
		if (!o->used && !slot)
			slot = o;
	}
	if (!slot)
		slot = pick_dead();
	if (!slot)
		return NULL;
	memset(slot, 0, sizeof(*slot));
	slot->used = true;
	slot->live = true;
	slot->kind = k;
	slot->handle = handle;
	slot->cost = cost;
	kmem_live += cost;
	return slot;
}

/* A creation of a @k may be tried: not too many live, within budget. */
static bool room_for(enum kind k)
{
	return live_count(k) < MAX_LIVE;
}

/* @cost fits the budget of ring and queue memory. */
static bool affordable(size_t cost)
{
	return kmem_live + cost <= KMEM_BUDGET;
}

/* ---- the device ----------------------------------------------------------- */

static char dev_path[64];
static int fd = -1;		/* the current uverbs file */
static int async_fd = -1;
static int chans[MAX_CHANS];
static unsigned int nchans;
static __u32 ncomp = 1;		/* the context's completion vectors */
static bool fd_shared;		/* a child uses this fd too */

/* The device's limits, from QUERY_DEVICE and QUERY_PORT at the start. */
static struct {
	__u32 max_qp_wr, max_sge, max_cqe, max_srq_wr, max_srq_sge;
	__u32 max_pd, max_ah, max_mcast_attach;
	__u16 lid;
	__u8 ports;
} lim;

/* Cookies the kernel returned on this fd, for mmap() at a known offset. */
static __u64 cookies[MAX_COOKIES];
static unsigned int ncookies;

static void note_cookie(__u64 cookie)
{
	cookies[ncookies++ % MAX_COOKIES] = cookie;
}

/* ---- rings ---------------------------------------------------------------- */

enum ring_kind { RING_CQ, RING_RQ, RING_SRQ, RING_OTHER };

/**
 * struct ring - a mapping of the uverbs file this process made
 * @addr: where it is mapped
 * @len: bytes mapped
 * @writable: mapped with PROT_WRITE (scribbles only there)
 * @kind: what the cookie was for, or RING_OTHER
 * @slots: entries of the ring (cqe + 1, max_wr + 1)
 * @stride: bytes per entry
 * @max_sge: SGEs per receive entry
 * @pd: the PD of its QP or SRQ (receive rings)
 */
struct ring {
	char *addr;
	size_t len;
	bool writable;
	enum ring_kind kind;
	__u32 slots, stride, max_sge, pd;
};

static struct ring rings[MAX_RINGS];
static unsigned int nrings;

static size_t page_align(size_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

static struct ring *pick_ring(bool need_writable, int kind)
{
	struct ring *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < nrings; i++) {
		struct ring *r = &rings[i];

		if ((need_writable && !r->writable) ||
		    (kind >= 0 && r->kind != (enum ring_kind)kind))
			continue;
		if (rnd(++n) == 0)
			found = r;
	}
	return found;
}

static void forget_ring(struct ring *r)
{
	*r = rings[--nrings];
}

static void unmap_ring(struct ring *r)
{
	describe("munmap ring %p len %zu", (void *)r->addr, r->len);
	timer_on();
	if (munmap(r->addr, r->len))
		failf("munmap of our own mapping: %s", strerror(errno));
	timer_off();
	forget_ring(r);
}

static void unmap_all_rings(void)
{
	while (nrings)
		unmap_ring(&rings[nrings - 1]);
}

/* Bytes of a receive ring of @slots entries of @sge SGEs (rvt_rwq). */
static size_t rq_bytes(__u32 slots, __u32 sge)
{
	return RING_HDR + (size_t)slots * (RWQE_BYTES + (size_t)sge * SGE_BYTES);
}

static size_t cq_bytes(__u32 cqe)
{
	return RING_HDR + ((size_t)cqe + 1) * UVERBS_WC_BYTES;
}

/*
 * Map the ring a create or resize just returned @cookie for, as the
 * provider does: @bytes is what the provider would map. The kernel must
 * take that size for a fresh cookie of this context.
 */
static void map_new_ring(__u64 cookie, size_t bytes, enum ring_kind kind,
			 __u32 slots, __u32 stride, __u32 max_sge, __u32 pd)
{
	size_t len = page_align(bytes);
	struct ring *r;
	void *p;
	int err;

	note_cookie(cookie);
	if (!cookie || nrings == MAX_RINGS || (!exact_mode && chance(12)))
		return;	/* sometimes never mapped: the kernel frees it alone */
	describe("mmap ring kind %d cookie %#llx len %zu", kind,
		 (unsigned long long)cookie, len);
	timer_on();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, cookie);
	err = errno;
	timer_off();
	count(OP_MMAP_RING, p != MAP_FAILED, err);
	if (p == MAP_FAILED) {
		if (err == EINVAL && !fd_shared)
			failf("the ring's own size refused for a fresh cookie");
		return;
	}
	r = &rings[nrings++];
	*r = (struct ring){ .addr = p, .len = len, .writable = true,
			    .kind = kind, .slots = slots, .stride = stride,
			    .max_sge = max_sge, .pd = pd };
}

static __u32 ring_load(struct ring *r, size_t off)
{
	return __atomic_load_n((__u32 *)(r->addr + off), __ATOMIC_ACQUIRE);
}

static void ring_store(struct ring *r, size_t off, __u32 v)
{
	__atomic_store_n((__u32 *)(r->addr + off), v, __ATOMIC_RELEASE);
}

/* An index value for a ring of @slots: in range, at its edges, or wild. */
static __u32 pick_index(__u32 slots)
{
	return rnd(3) ? rnd(slots ? slots : 1) : boundary(slots);
}

/* Write something hostile on a mapped ring, where the kernel reads. */
static void scribble(void)
{
	struct ring *r = pick_ring(true, -1);
	size_t off, entry;
	__u32 v;

	if (!r)
		return;
	scribbles++;
	switch (rnd(8)) {
	case 0:
	case 1:
		off = 0;	/* head */
		v = pick_index(r->slots);
		break;
	case 2:
	case 3:
		off = 4;	/* tail */
		v = pick_index(r->slots);
		break;
	case 4:
		/* an entry's SGE count, which the kernel must bound */
		if ((r->kind != RING_RQ && r->kind != RING_SRQ) ||
		    (avoid & AV_RQ_SGE_COUNT))
			return;
		entry = RING_HDR + (size_t)rnd(r->slots) * r->stride + 8;
		if (entry + 4 > r->len)
			return;
		v = rnd(2) ? r->max_sge + rnd(3) : rnd(256);
		r->addr[entry] = (char)v;
		if (verbose)
			printf("%sstep %lu: num_sge at +%zu := %u\n",
			       who(), step, entry, v & 0xff);
		return;
	default:
		off = (RING_HDR + rnd(r->len - RING_HDR)) & ~3ul;
		v = rnd(2) ? (__u32)next64() : boundary(r->slots);
		/* any entry word of a receive ring may be an SGE count */
		if ((avoid & AV_RQ_SGE_COUNT) && r->kind != RING_CQ)
			off = 4 * rnd(2);
		break;
	}
	if (off + 4 > r->len)
		return;
	if (verbose)
		printf("%sstep %lu: ring %p +%zu := %#x\n", who(), step,
		       (void *)r->addr, off, v);
	ring_store(r, off, v);
}

/* ---- write() commands: framing -------------------------------------------- */

/**
 * struct wreq - one write() command
 * @op: its kind, for the summary
 * @cmd: the command number (the extended flag is added for @ex)
 * @ex: an extended command (ib_uverbs_ex_cmd_hdr)
 * @core: the command struct; for a non-extended command with a response
 *	the first u64 is the response pointer, which the framing fills
 * @core_len: its bytes
 * @drv_in: driver (provider) input appended, or NULL
 * @drv_in_len: its bytes
 * @resp_len: the core response's bytes; 0: the command has none
 * @drv_out: driver response bytes the provider gives room for
 * @extent: bytes after the response the kernel may write (POLL_CQ)
 * @check_off: offset of a u32 of the core response a success must write,
 *	or -1
 * @embedded_ok: every pointer inside the command is valid
 * @force_clean: frame it as the ABI says, valid pointers (no fuzzing)
 * @ok: out: the call succeeded
 * @resp: out: the response, when @ok and readable, else NULL
 * @out_len: out: core response bytes the kernel was given room for
 * @drv_out_len: out: driver response bytes the kernel was given room for
 */
struct wreq {
	enum op op;
	__u32 cmd;
	bool ex;
	void *core;
	size_t core_len;
	const void *drv_in;
	size_t drv_in_len;
	size_t resp_len, drv_out, extent;
	int check_off;
	bool embedded_ok, force_clean;
	bool ok;
	char *resp;
	size_t out_len, drv_out_len;
};

static bool clean;	/* this call is framed as the ABI says */
static __u64 wbuf_words[WBUF_BYTES / 8];
static char *const wbuf = (char *)wbuf_words;

/**
 * struct frame - how a command was framed
 * @len: bytes passed to write()
 * @ptr: the response pointer's kind
 * @out_bytes: response room declared, core and driver
 * @valid: sizes as the ABI says (or longer), every pointer valid
 */
struct frame {
	size_t len;
	enum ptr_kind ptr;
	size_t out_bytes;
	bool valid;
};

enum { SZ_EXACT, SZ_LONG, SZ_SHORT, SZ_CORE, SZ_WILD };

static int pick_in_size(void)
{
	__u32 r = rnd(100);

	if (exact_mode || clean || r < 80)
		return SZ_EXACT;
	if (r < 88)
		return SZ_LONG;
	if (r < 95)
		return SZ_SHORT;
	return SZ_WILD;
}

static int pick_out_size(void)
{
	__u32 r = rnd(100);

	if (exact_mode || clean || r < 75)
		return SZ_EXACT;
	if (r < 83)
		return SZ_CORE;
	if (r < 88)
		return SZ_SHORT;
	if (r < 95)
		return SZ_LONG;
	return SZ_WILD;
}

/* Append @len bytes of the command's input to wbuf at *@pos. */
static void put(size_t *pos, const void *src, size_t len)
{
	memcpy(wbuf + *pos, src, len);
	*pos += len;
}

/* Input bytes after the core command: the driver's, maybe changed. */
static size_t put_input_tail(struct wreq *w, size_t *pos, int in, size_t unit)
{
	size_t extra = 0;

	if (w->drv_in_len)
		put(pos, w->drv_in, w->drv_in_len);
	if (in == SZ_LONG) {
		extra = unit * (1 + rnd(16));
		fill_safe(wbuf + *pos, extra);
		*pos += extra;
	}
	return w->drv_in_len + extra;
}

/* Response room for an output size choice, in bytes. */
static size_t out_room(struct wreq *w, int out, size_t unit)
{
	size_t exact = w->resp_len + w->drv_out;

	switch (out) {
	case SZ_EXACT:
		return exact;
	case SZ_CORE:
		return w->resp_len;
	case SZ_SHORT:
		return exact ? rnd(exact) / unit * unit : 0;
	case SZ_LONG:
		return exact + unit * (1 + rnd(64));
	default:
		return rnd(2) ? 0 : (size_t)rnd(0x10000) * unit;
	}
}

static void frame_plain(struct wreq *w, struct frame *f)
{
	struct ib_uverbs_cmd_hdr hdr = { .command = w->cmd };
	int in = pick_in_size(), out = pick_out_size();
	size_t pos = sizeof(hdr), room;
	__u64 resp;

	f->ptr = exact_mode || clean ? PK_VALID : pick_ptr_kind();
	room = w->resp_len ? out_room(w, out, 4) : 0;
	resp = ptr_of(f->ptr, resp_buf);
	if (w->resp_len)
		memcpy(w->core, &resp, sizeof(resp));
	put(&pos, w->core, w->core_len);
	put_input_tail(w, &pos, in, 4);
	if (in == SZ_SHORT)
		pos = sizeof(hdr) + rnd(pos - sizeof(hdr)) / 4 * 4;
	hdr.in_words = (__u16)(pos / 4);
	if (in == SZ_WILD)
		hdr.in_words = rnd(3) ? (__u16)(pos / 4 + 1) : (__u16)next64();
	hdr.out_words = (__u16)min_sz(room / 4, 0xffffu);
	memcpy(wbuf, &hdr, sizeof(hdr));
	f->len = pos;
	f->out_bytes = hdr.out_words * 4ul;
	f->valid = (in == SZ_EXACT || in == SZ_LONG) &&
		   (out == SZ_EXACT || out == SZ_LONG || !w->resp_len) &&
		   f->ptr == PK_VALID;
}

static void frame_ex(struct wreq *w, struct frame *f)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = w->cmd | IB_USER_VERBS_CMD_FLAG_EXTENDED };
	struct ib_uverbs_ex_cmd_hdr ex = { 0 };
	int in = pick_in_size(), out = pick_out_size();
	size_t pos = sizeof(hdr) + sizeof(ex), core = w->core_len, tail;
	size_t room;

	f->ptr = exact_mode || clean ? PK_VALID : pick_ptr_kind();
	put(&pos, w->core, core);
	if (core % 8) {		/* the core part is counted in u64s */
		memset(wbuf + pos, 0, 8 - core % 8);
		pos += 8 - core % 8;
	}
	tail = put_input_tail(w, &pos, in, 8);
	room = out_room(w, out, 8);
	hdr.in_words = (__u16)div_up(core, 8);
	ex.provider_in_words = (__u16)div_up(tail, 8);
	hdr.out_words = (__u16)min_sz(div_up(min_sz(room, w->resp_len), 8),
				   0xffffu);
	ex.provider_out_words = (__u16)min_sz((room - min_sz(room, w->resp_len)) / 8,
					   0xffffu);
	ex.response = ptr_of(f->ptr, resp_buf);
	if (in == SZ_SHORT)
		hdr.in_words = (__u16)rnd(hdr.in_words);
	if (in == SZ_WILD)
		ex.provider_in_words = (__u16)next64();
	if (!exact_mode && !clean && chance(3))
		ex.cmd_hdr_reserved = (__u32)next64();
	if (!exact_mode && !clean && chance(3)) {	/* no response wanted */
		ex.response = 0;
		hdr.out_words = 0;
		ex.provider_out_words = 0;
	}
	memcpy(wbuf, &hdr, sizeof(hdr));
	memcpy(wbuf + sizeof(hdr), &ex, sizeof(ex));
	f->len = pos;
	f->out_bytes = (hdr.out_words + ex.provider_out_words) * 8ul;
	f->valid = in == SZ_EXACT && (out == SZ_EXACT || out == SZ_LONG) &&
		   f->ptr == PK_VALID && !ex.cmd_hdr_reserved && ex.response;
}

/* How far a response may reach: its room, or what the command writes. */
static size_t reach(struct wreq *w, struct frame *f)
{
	size_t n = f->out_bytes > w->extent ? f->out_bytes : w->extent;

	return min_sz(n, RESP_BYTES - CANARY);
}

/* The kernel's writes stayed within the response and off read-only memory. */
static void check_bounds(struct wreq *w, struct frame *f)
{
	size_t end = reach(w, f), i;

	if (f->ptr == PK_VALID && end + CANARY <= RESP_BYTES) {
		for (i = end; i < end + CANARY; i++) {
			if ((unsigned char)resp_buf[i] != PATTERN) {
				failf("kernel wrote byte %zu of the response, past its %zu",
				      i, f->out_bytes);
				break;
			}
		}
	}
	if (f->ptr == PK_RO) {
		for (i = 0; i < PAGE; i++) {
			if ((unsigned char)ro_page[i] != PATTERN) {
				failf("the kernel wrote to a read-only page");
				break;
			}
		}
	}
}

/* What a write() returned, judged against what the ABI promises. */
static void judge_write(struct wreq *w, struct frame *f, ssize_t ret, int err)
{
	__u32 v;

	if (ret != -1 && (ret < 0 || (size_t)ret != f->len)) {
		failf("write() of %zu bytes returned %zd", f->len, ret);
		return;
	}
	check_bounds(w, f);
	if (ret == -1) {
		if (err == EFAULT && f->valid && w->embedded_ok)
			failf("EFAULT, with every pointer valid and the ABI's sizes");
		return;
	}
	if (f->ptr != PK_VALID || w->check_off < 0 ||
	    f->out_bytes < (size_t)w->check_off + 4)
		return;
	memcpy(&v, resp_buf + w->check_off, sizeof(v));
	if (v == PATTERN32)
		failf("success, but the response's u32 at %d left unwritten",
		      w->check_off);
}

/* Issue @w as write() on the current fd; true if it succeeded. */
static bool wsubmit(struct wreq *w)
{
	struct frame f;
	ssize_t ret;
	int err;

	clean = w->force_clean || sane || chance(20);
	if (w->ex)
		frame_ex(w, &f);
	else
		frame_plain(w, &f);
	memset(resp_buf, PATTERN, reach(w, &f) + CANARY);
	timer_on();
	ret = write(fd, wbuf, f.len);
	err = errno;
	timer_off();
	count(w->op, ret >= 0, err);
	judge_write(w, &f, ret, err);
	w->ok = ret >= 0 && (size_t)ret == f.len;
	w->resp = w->ok && f.ptr == PK_VALID ? resp_buf : NULL;
	if (w->resp && w->ex) {
		w->out_len = min_sz(f.out_bytes, div_up(w->resp_len, 8) * 8);
		w->drv_out_len = f.out_bytes - w->out_len;
	} else if (w->resp) {
		w->out_len = min_sz(f.out_bytes, w->resp_len);
		w->drv_out_len = f.out_bytes - w->out_len;
	}
	errno = err;
	return w->ok;
}

static void wreq_init(struct wreq *w, enum op kind, __u32 cmd, void *core,
		      size_t core_len, size_t resp_len)
{
	memset(w, 0, sizeof(*w));
	w->op = kind;
	w->cmd = cmd;
	w->core = core;
	w->core_len = core_len;
	w->resp_len = resp_len;
	w->check_off = -1;
	w->embedded_ok = true;
}

/*
 * The driver part of a create response: the ring cookie, if the kernel
 * was given room for it and wrote it. The ex framing rounds the core
 * response up to u64s.
 */
static bool resp_cookie(struct wreq *w, __u64 *cookie)
{
	size_t off = w->ex ? div_up(w->resp_len, 8) * 8 : w->resp_len;

	if (!w->resp || w->drv_out_len < sizeof(*cookie))
		return false;
	memcpy(cookie, w->resp + off, sizeof(*cookie));
	return *cookie != PATTERN64;
}

/* ---- write() commands: the device and the context ------------------------ */

static void set_nonblock(int efd)
{
	int fl = fcntl(efd, F_GETFL);

	if (fl >= 0)
		fcntl(efd, F_SETFL, fl | O_NONBLOCK);
}

static bool cmd_get_context(bool exact)
{
	struct ib_uverbs_get_context c = { 0 };
	struct ib_uverbs_get_context_resp r;
	struct wreq w;
	bool saved = exact_mode;

	describe("GET_CONTEXT");
	wreq_init(&w, OP_GET_CONTEXT, IB_USER_VERBS_CMD_GET_CONTEXT, &c,
		  sizeof(c), sizeof(r));
	w.check_off = offsetof(struct ib_uverbs_get_context_resp,
			       num_comp_vectors);
	exact_mode = exact || saved;
	wsubmit(&w);
	exact_mode = saved;
	if (!w.resp)
		return w.ok;
	memcpy(&r, w.resp, sizeof(r));
	if (async_fd < 0) {
		async_fd = (int)r.async_fd;
		set_nonblock(async_fd);
	}
	ncomp = r.num_comp_vectors ? r.num_comp_vectors : 1;
	return true;
}

static void cmd_query_device(void)
{
	struct ib_uverbs_query_device c = { 0 };
	struct ib_uverbs_query_device_resp r;
	struct wreq w;

	describe("QUERY_DEVICE");
	wreq_init(&w, OP_QUERY_DEVICE, IB_USER_VERBS_CMD_QUERY_DEVICE, &c,
		  sizeof(c), sizeof(r));
	w.check_off = offsetof(struct ib_uverbs_query_device_resp, max_qp);
	if (!wsubmit(&w) || !w.resp || !exact_mode)
		return;
	memcpy(&r, w.resp, sizeof(r));
	lim.max_qp_wr = r.max_qp_wr;
	lim.max_sge = r.max_sge;
	lim.max_cqe = r.max_cqe;
	lim.max_srq_wr = r.max_srq_wr;
	lim.max_srq_sge = r.max_srq_sge;
	lim.max_pd = r.max_pd;
	lim.max_ah = r.max_ah;
	lim.max_mcast_attach = r.max_mcast_qp_attach;
	lim.ports = r.phys_port_cnt;
}

static __u8 pick_port(void)
{
	return pick_u8(1 + rnd(lim.ports ? lim.ports : 1), lim.ports);
}

static void cmd_query_port(void)
{
	struct ib_uverbs_query_port c = { .port_num = pick_port() };
	struct ib_uverbs_query_port_resp r;
	struct wreq w;

	if (exact_mode)
		c.port_num = 1;
	describe("QUERY_PORT port %u", c.port_num);
	wreq_init(&w, OP_QUERY_PORT, IB_USER_VERBS_CMD_QUERY_PORT, &c,
		  sizeof(c), sizeof(r));
	w.check_off = offsetof(struct ib_uverbs_query_port_resp, gid_tbl_len);
	if (!exact_mode && chance(5))
		c.reserved[rnd(7)] = (__u8)next64();
	if (!wsubmit(&w) || !w.resp || !exact_mode)
		return;
	memcpy(&r, w.resp, sizeof(r));
	lim.lid = r.lid;
}

static void cmd_create_comp_channel(void)
{
	struct ib_uverbs_create_comp_channel c = { 0 };
	struct ib_uverbs_create_comp_channel_resp r;
	struct wreq w;

	if (nchans == MAX_CHANS)
		return;
	describe("CREATE_COMP_CHANNEL");
	wreq_init(&w, OP_CREATE_COMP_CHANNEL,
		  IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &c, sizeof(c),
		  sizeof(r));
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	set_nonblock((int)r.fd);
	chans[nchans++] = (int)r.fd;
}

/* ---- write() commands: PD, MR, AH, multicast ----------------------------- */

static void cmd_alloc_pd(void)
{
	struct ib_uverbs_alloc_pd c = { 0 };
	struct ib_uverbs_alloc_pd_resp r;
	struct wreq w;

	if (!room_for(K_PD))
		return;
	describe("ALLOC_PD");
	wreq_init(&w, OP_ALLOC_PD, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c),
		  sizeof(r));
	w.check_off = 0;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	add_obj(K_PD, r.pd_handle, 0);
}

/* A destroy command of a u32 handle and nothing else, or a handle and a
 * reserved word with a response (@resp_len).
 */
static void cmd_destroy(enum op op, __u32 cmd, enum kind k, size_t resp_len)
{
	struct { __u64 response; __u32 handle, reserved; } c = { 0 };
	struct obj *o;
	struct wreq w;
	__u32 h = pick_handle(k, &o);

	describe("%s handle %u%s", op_names[op], h, o ? " (live)" : "");
	if (resp_len) {
		c.handle = h;
		c.reserved = chance(95) ? 0 : (__u32)next64();
		wreq_init(&w, op, cmd, &c, sizeof(c), resp_len);
	} else {
		wreq_init(&w, op, cmd, &c.handle, sizeof(c.handle), 0);
		c.handle = h;
	}
	if (wsubmit(&w))
		kill_obj(find_live_handle(h));
}

/* Where an MR starts, and how many bytes of memory of ours follow it. */
static __u64 mr_start(size_t *room, bool *readonly)
{
	__u32 r = rnd(100);
	struct ring *ring;
	size_t off;

	*readonly = false;
	if (sane || r < 75) {
		off = rnd(ARENA_BYTES / PAGE) * PAGE;
		if (chance(20))
			off += rnd(PAGE);
		*room = ARENA_BYTES - off;
		return (__u64)(unsigned long)(arena + off);
	}
	if (r < 83) {
		*readonly = true;
		*room = PAGE;
		return (__u64)(unsigned long)ro_page;
	}
	ring = r < 90 ? pick_ring(false, -1) : NULL;
	if (ring) {
		*room = 0;	/* ours, but whether it pins is the kernel's say */
		return (__u64)(unsigned long)ring->addr;
	}
	*room = 0;
	return ptr_of((enum ptr_kind)(1 + rnd(NR_PK - 1)), NULL);
}

static __u64 mr_length(size_t room)
{
	const __u64 b[] = { 0, 1, room, room + 1, MEMLOCK_BYTES,
			    MEMLOCK_BYTES + 1, ~0ull, 1ull << 32, 1ull << 40,
			    ~0ull - PAGE };

	if (room && (sane || chance(75)))
		return 1 + rnd(min_sz(room, 256ul << 10));
	return b[rnd(ARRAY_SIZE(b))];
}

static __u32 pick_access(void)
{
	__u32 r = rnd(10);

	if (sane || r < 5)
		return ACC_LOCAL_WRITE | ACC_REMOTE_WRITE | ACC_REMOTE_READ |
		       ACC_REMOTE_ATOMIC;
	if (r < 8)
		return rnd(32);
	return (__u32)next64();
}

static void cmd_reg_mr(void)
{
	struct ib_uverbs_reg_mr c = { 0 };
	struct ib_uverbs_reg_mr_resp r;
	struct obj *pd, *mr;
	struct wreq w;
	bool readonly;
	size_t room;

	if (!room_for(K_MR))
		return;
	c.start = mr_start(&room, &readonly);
	c.length = mr_length(room);
	c.hca_va = sane || chance(80) ? c.start : c.start + rnd(16) * PAGE;
	if (!sane && chance(5))
		c.hca_va = next64();
	c.pd_handle = pick_handle(K_PD, &pd);
	c.access_flags = pick_access();
	describe("REG_MR start %#llx len %#llx va %#llx pd %u access %#x",
		 (unsigned long long)c.start, (unsigned long long)c.length,
		 (unsigned long long)c.hca_va, c.pd_handle, c.access_flags);
	wreq_init(&w, OP_REG_MR, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c),
		  sizeof(r));
	w.check_off = 0;
	w.embedded_ok = room && c.length <= room &&
			!(readonly && (c.access_flags & ACC_WRITABLE));
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	mr = add_obj(K_MR, r.mr_handle, 0);
	if (!mr)
		return;
	mr->pd = c.pd_handle;
	mr->mr.iova = c.hca_va;
	mr->mr.len = c.length;
	mr->mr.lkey = r.lkey;
	mr->mr.rkey = r.rkey;
	mr->mr.access = c.access_flags;
}

static void cmd_rereg_mr(void)
{
	struct ib_uverbs_rereg_mr c = { 0 };
	struct ib_uverbs_rereg_mr_resp r;
	struct obj *o;
	struct wreq w;
	bool readonly;
	size_t room;

	c.mr_handle = pick_handle(K_MR, &o);
	c.flags = chance(70) ? 1 + rnd(7) : (__u32)next64();
	c.start = mr_start(&room, &readonly);
	c.length = mr_length(room);
	c.hca_va = c.start;
	c.pd_handle = pick_handle(K_PD, &o);
	c.access_flags = pick_access();
	describe("REREG_MR mr %u flags %#x start %#llx len %#llx",
		 c.mr_handle, c.flags, (unsigned long long)c.start,
		 (unsigned long long)c.length);
	wreq_init(&w, OP_REREG_MR, IB_USER_VERBS_CMD_REREG_MR, &c, sizeof(c),
		  sizeof(r));
	w.embedded_ok = room && c.length <= room && !readonly;
	wsubmit(&w);
}

static void cmd_alloc_mw(void)
{
	struct ib_uverbs_alloc_mw c = { 0 };
	struct obj *o;
	struct wreq w;

	c.pd_handle = pick_handle(K_PD, &o);
	c.mw_type = (__u8)(chance(80) ? 1 + rnd(2) : rnd(256));
	describe("ALLOC_MW pd %u type %u", c.pd_handle, c.mw_type);
	wreq_init(&w, OP_ALLOC_MW, IB_USER_VERBS_CMD_ALLOC_MW, &c, sizeof(c),
		  sizeof(struct ib_uverbs_alloc_mw_resp));
	wsubmit(&w);
}

/* An address vector: mostly the port's own LID, else edges and noise. */
static void fill_ah_attr(struct ib_uverbs_ah_attr *a)
{
	__u32 r = rnd(10);

	memset(a, 0, sizeof(*a));
	if (sane || r < 6)
		a->dlid = lim.lid;
	else if (r < 8)
		a->dlid = (__u16)(MCAST_LID_BASE + rnd(0x3fff));
	else
		a->dlid = (__u16)boundary(0xffff);
	a->sl = pick_u8(0, 15);
	a->src_path_bits = pick_u8(0, 0);
	a->static_rate = pick_u8(0, 18);
	a->port_num = pick_port();
	a->is_global = (__u8)(sane || chance(70) ? 0 : chance(80) ? 1 :
			      rnd(256));
	if (a->is_global || (!sane && chance(10))) {
		a->grh.dgid[0] = 0xff;
		if (chance(50))
			fill_safe(a->grh.dgid, sizeof(a->grh.dgid));
		a->grh.flow_label = chance(80) ? 0 : (__u32)next64();
		a->grh.sgid_index = pick_u8(0, 0);
		a->grh.hop_limit = pick_u8(1, 255);
		a->grh.traffic_class = pick_u8(0, 255);
	}
}

static void cmd_create_ah(void)
{
	struct ib_uverbs_create_ah c = { 0 };
	struct ib_uverbs_create_ah_resp r;
	struct obj *o;
	struct wreq w;

	if (!room_for(K_AH))
		return;
	c.user_handle = next64();
	c.pd_handle = pick_handle(K_PD, &o);
	fill_ah_attr(&c.attr);
	describe("CREATE_AH pd %u dlid %#x port %u global %u sgid %u",
		 c.pd_handle, c.attr.dlid, c.attr.port_num, c.attr.is_global,
		 c.attr.grh.sgid_index);
	wreq_init(&w, OP_CREATE_AH, IB_USER_VERBS_CMD_CREATE_AH, &c,
		  sizeof(c), sizeof(r));
	w.check_off = 0;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	o = add_obj(K_AH, r.ah_handle, 0);
	if (o)
		o->pd = c.pd_handle;
}

static void cmd_mcast(bool attach)
{
	struct ib_uverbs_attach_mcast c = { 0 };
	struct obj *o;
	struct wreq w;

	c.gid[0] = 0xff;
	c.gid[1] = (__u8)(chance(80) ? 0x12 : rnd(256));
	c.gid[15] = (__u8)rnd(4);	/* a few groups, so they get shared */
	if (chance(10))
		fill_safe(c.gid, sizeof(c.gid));
	c.qp_handle = pick_handle(K_QP, &o);
	if ((avoid & AV_MCAST_NO_PORT) && (!o || !o->qp.has_port))
		return;
	c.mlid = (__u16)(chance(80) ? MCAST_LID_BASE + rnd(4) :
			 boundary(0xffff));
	if (chance(5))
		c.reserved = (__u16)next64();
	describe("%s qp %u mlid %#x gid ..%02x", attach ? "ATTACH_MCAST" :
		 "DETACH_MCAST", c.qp_handle, c.mlid, c.gid[15]);
	wreq_init(&w, attach ? OP_ATTACH_MCAST : OP_DETACH_MCAST,
		  attach ? IB_USER_VERBS_CMD_ATTACH_MCAST :
		  IB_USER_VERBS_CMD_DETACH_MCAST, &c, sizeof(c), 0);
	wsubmit(&w);
}

/* ---- write() commands: CQs ------------------------------------------------ */

static int pick_comp_channel(void)
{
	__u32 r = rnd(20);

	if (r < 15 || (sane && !nchans))
		return -1;
	if (r < 18 && nchans)
		return chans[rnd(nchans)];
	return (int)boundary(64);
}

static __u32 pick_cqe(void)
{
	__u32 cqe = pick_u32(1, 256, lim.max_cqe);

	/* A big ring that would not fit the budget becomes a small one. */
	if (!affordable(cq_bytes(cqe)) && cqe <= lim.max_cqe)
		cqe = 1 + rnd(64);
	return cqe;
}

/*
 * Record a CQ the kernel made, and map its ring if it has one. Without
 * @size_known (@cqe is only what was asked for) the ring stays unmapped:
 * its size is not known.
 */
static struct obj *new_cq(struct wreq *w, __u32 handle, __u32 cqe,
			  bool size_known)
{
	struct obj *o;
	__u64 cookie;
	bool ring = resp_cookie(w, &cookie);

	o = add_obj(K_CQ, handle, cq_bytes(cqe));
	if (o) {
		o->cq.cqe = cqe;
		o->cq.kernel_polled = !ring;
		o->cq.ring_known = true;
	}
	if (ring && !size_known)
		note_cookie(cookie);
	else if (ring)
		map_new_ring(cookie, cq_bytes(cqe), RING_CQ, cqe + 1,
			     UVERBS_WC_BYTES, 0, 0);
	return o;
}

static void cmd_create_cq(void)
{
	struct ib_uverbs_create_cq c = { 0 };
	struct ib_uverbs_create_cq_resp r;
	struct wreq w;

	if (!room_for(K_CQ))
		return;
	c.user_handle = next64();
	c.cqe = exact_mode ? 16 : pick_cqe();
	c.comp_vector = sane || chance(80) ? rnd(ncomp) : boundary(ncomp);
	c.comp_channel = exact_mode ? -1 : pick_comp_channel();
	c.reserved = sane || chance(95) ? 0 : (__u32)next64();
	describe("CREATE_CQ cqe %u vector %u channel %d", c.cqe,
		 c.comp_vector, c.comp_channel);
	wreq_init(&w, OP_CREATE_CQ, IB_USER_VERBS_CMD_CREATE_CQ, &c,
		  sizeof(c), sizeof(r));
	/* no room for a cookie: a CQ the kernel polls (POLL_CQ) */
	w.drv_out = exact_mode || chance(25) ? 0 : sizeof(__u64);
	w.check_off = 0;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	new_cq(&w, r.cq_handle, r.cqe, true);
}

static void cmd_ex_create_cq(void)
{
	struct ib_uverbs_ex_create_cq c = { 0 };
	struct ib_uverbs_ex_create_cq_resp r;
	struct wreq w;

	if (!room_for(K_CQ))
		return;
	c.user_handle = next64();
	c.cqe = pick_cqe();
	c.comp_vector = chance(80) ? rnd(ncomp) : boundary(ncomp);
	c.comp_channel = pick_comp_channel();
	c.comp_mask = chance(85) ? 0 : (__u32)next64();
	c.flags = chance(80) ? 0 : rnd(8);
	describe("EX_CREATE_CQ cqe %u vector %u channel %d mask %#x flags %#x",
		 c.cqe, c.comp_vector, c.comp_channel, c.comp_mask, c.flags);
	wreq_init(&w, OP_EX_CREATE_CQ, IB_USER_VERBS_EX_CMD_CREATE_CQ, &c,
		  sizeof(c), sizeof(r));
	w.ex = true;
	w.drv_out = sizeof(__u64);
	w.check_off = 0;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	new_cq(&w, r.base.cq_handle, r.base.cqe, true);
}

static void cmd_resize_cq(void)
{
	struct ib_uverbs_resize_cq c = { 0 };
	struct ib_uverbs_resize_cq_resp r;
	struct obj *o;
	struct wreq w;
	__u64 cookie;

	c.cq_handle = pick_handle(K_CQ, &o);
	c.cqe = pick_cqe();
	if ((avoid & AV_RESIZE_CQ_COOKIE) && (!o || !o->cq.ring_known))
		return;
	describe("RESIZE_CQ cq %u cqe %u", c.cq_handle, c.cqe);
	wreq_init(&w, OP_RESIZE_CQ, IB_USER_VERBS_CMD_RESIZE_CQ, &c,
		  sizeof(c), sizeof(r));
	w.drv_out = sizeof(__u64);
	w.check_off = 0;
	if (avoid & AV_RESIZE_CQ_COOKIE) {
		/* room for a cookie exactly when the CQ has a ring */
		w.force_clean = true;
		w.drv_out = o->cq.kernel_polled ? 0 : sizeof(__u64);
	}
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	o = find_live_handle(c.cq_handle);
	if (o && o->kind == K_CQ) {
		kmem_live += cq_bytes(r.cqe) - o->cost;
		o->cost = cq_bytes(r.cqe);
		o->cq.cqe = r.cqe;
	}
	if (resp_cookie(&w, &cookie))
		map_new_ring(cookie, cq_bytes(r.cqe), RING_CQ, r.cqe + 1,
			     UVERBS_WC_BYTES, 0, 0);
}

/* A live CQ without a user ring, or NULL. */
static struct obj *pick_kernel_cq(void)
{
	struct obj *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (!o->used || !o->live || o->kind != K_CQ ||
		    !o->cq.kernel_polled)
			continue;
		if (rnd(++n) == 0)
			found = o;
	}
	return found;
}

/* POLL_CQ: the kernel writes as many WCs as it finds, up to ne. */
static int cmd_poll_cq(__u32 handle, __u32 ne, struct ib_uverbs_wc *wc)
{
	struct ib_uverbs_poll_cq c = { .cq_handle = handle, .ne = ne };
	struct ib_uverbs_poll_cq_resp r;
	struct obj *o;
	struct wreq w;

	if (!exact_mode) {
		o = pick_kernel_cq();
		c.cq_handle = o && chance(70) ? o->handle :
			      pick_handle(K_CQ, &o);
		c.ne = pick_u32(1, 16, 1u << 16);
	}
	describe("POLL_CQ cq %u ne %u", c.cq_handle, c.ne);
	wreq_init(&w, OP_POLL_CQ, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c),
		  sizeof(r) + (size_t)min_sz(c.ne, 4096u) * UVERBS_WC_BYTES);
	w.extent = sizeof(r) + (size_t)c.ne * UVERBS_WC_BYTES;
	w.check_off = 0;
	/* With more WCs than the buffer holds, faulting is the kernel's due. */
	w.embedded_ok = w.extent <= RESP_BYTES - CANARY;
	if (!wsubmit(&w) || !w.resp)
		return -1;
	memcpy(&r, w.resp, sizeof(r));
	if (r.count <= c.ne)
		wcs_polled += r.count;
	if (wc && r.count <= ne)
		memcpy(wc, w.resp + sizeof(r), r.count * UVERBS_WC_BYTES);
	return (int)r.count;
}

static void cmd_req_notify_cq(void)
{
	struct ib_uverbs_req_notify_cq c = { 0 };
	struct obj *o;
	struct wreq w;

	c.cq_handle = pick_handle(K_CQ, &o);
	c.solicited_only = chance(80) ? rnd(2) : (__u32)next64();
	describe("REQ_NOTIFY_CQ cq %u solicited %u", c.cq_handle,
		 c.solicited_only);
	wreq_init(&w, OP_REQ_NOTIFY_CQ, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &c,
		  sizeof(c), 0);
	wsubmit(&w);
}

/* ---- write() commands: QPs and SRQs --------------------------------------- */

static __u8 pick_qp_type(void)
{
	const __u8 odd[] = { 0, 1, 5, 6, 7, 8, 9, 10, 0xff };
	__u32 r = rnd(100);

	if (sane || r < 90)
		return (__u8)(IB_UVERBS_QPT_RC + rnd(3));	/* RC UC UD */
	return odd[rnd(ARRAY_SIZE(odd))];
}

/* Kernel memory of a QP's queues, estimated (a send WQE with its SGEs). */
static size_t qp_cost(__u32 swr, __u32 ssge, __u32 rwr, __u32 rsge)
{
	return ((size_t)swr + 1) * (256 + 48 * (size_t)min_sz(ssge, 1024u)) +
	       rq_bytes(rwr + 1, min_sz(rsge, 1024u));
}

/* The QP caps of a create: sensible, boundary or wild, within budget. */
static void pick_qp_caps(__u32 *swr, __u32 *rwr, __u32 *ssge, __u32 *rsge)
{
	*swr = pick_u32(1, 64, lim.max_qp_wr);
	*rwr = pick_u32(1, 64, lim.max_qp_wr);
	*ssge = pick_u32(1, 4, lim.max_sge);
	*rsge = pick_u32(1, 4, lim.max_sge);
	if (!affordable(qp_cost(*swr, *ssge, *rwr, *rsge)) &&
	    *swr <= lim.max_qp_wr && *rwr <= lim.max_qp_wr &&
	    *ssge <= lim.max_sge && *rsge <= lim.max_sge) {
		*swr = 1 + rnd(16);
		*rwr = 1 + rnd(16);
		*ssge = 1 + rnd(2);
		*rsge = 1 + rnd(2);
	}
}

/* Record a QP the kernel made, and map its receive ring if it has one. */
static void new_qp(struct wreq *w, const struct ib_uverbs_create_qp_resp *r,
		   __u8 type, bool srq, __u32 pd)
{
	struct obj *o;
	__u64 cookie;

	o = add_obj(K_QP, r->qp_handle,
		    qp_cost(r->max_send_wr, r->max_send_sge, r->max_recv_wr,
			    r->max_recv_sge));
	if (o) {
		o->qp.qpn = r->qpn;
		o->qp.type = type;
		o->qp.state = QPS_RESET;
		o->qp.has_srq = srq;
		o->pd = pd;
	}
	if (resp_cookie(w, &cookie) && cookie)
		map_new_ring(cookie, rq_bytes(r->max_recv_wr + 1,
					      r->max_recv_sge),
			     RING_RQ, r->max_recv_wr + 1,
			     RWQE_BYTES + r->max_recv_sge * SGE_BYTES,
			     r->max_recv_sge, pd);
}

/* The handles and caps of a create_qp, plain or extended. */
struct qp_args {
	__u32 pd, scq, rcq, srq, swr, rwr, ssge, rsge, inl;
	__u8 type, is_srq, sig_all;
	bool srq_live;
};

static void pick_qp_args(struct qp_args *a)
{
	struct obj *o;

	a->pd = pick_handle(K_PD, &o);
	a->scq = pick_handle(K_CQ, &o);
	a->rcq = chance(70) ? a->scq : pick_handle(K_CQ, &o);
	a->is_srq = (__u8)(chance(75) ? 0 : sane || chance(90) ? 1 : rnd(256));
	a->srq = a->is_srq ? pick_handle(K_SRQ, &o) : 0;
	a->srq_live = a->is_srq && o;
	pick_qp_caps(&a->swr, &a->rwr, &a->ssge, &a->rsge);
	a->inl = sane || chance(80) ? 0 : pick_u32(0, 64, 0x10000);
	a->type = pick_qp_type();
	a->sig_all = (__u8)(chance(90) ? rnd(2) : rnd(256));
}

static void cmd_create_qp(void)
{
	struct ib_uverbs_create_qp c = { 0 };
	struct ib_uverbs_create_qp_resp r;
	struct qp_args a;
	struct wreq w;

	if (!room_for(K_QP))
		return;
	pick_qp_args(&a);
	c.user_handle = next64();
	c.pd_handle = a.pd;
	c.send_cq_handle = a.scq;
	c.recv_cq_handle = a.rcq;
	c.srq_handle = a.srq;
	c.max_send_wr = a.swr;
	c.max_recv_wr = a.rwr;
	c.max_send_sge = a.ssge;
	c.max_recv_sge = a.rsge;
	c.max_inline_data = a.inl;
	c.sq_sig_all = a.sig_all;
	c.qp_type = a.type;
	c.is_srq = a.is_srq;
	describe("CREATE_QP type %u pd %u cq %u/%u srq %u(%u) wr %u/%u sge %u/%u inline %u",
		 c.qp_type, c.pd_handle, c.send_cq_handle, c.recv_cq_handle,
		 c.srq_handle, c.is_srq, c.max_send_wr, c.max_recv_wr,
		 c.max_send_sge, c.max_recv_sge, c.max_inline_data);
	wreq_init(&w, OP_CREATE_QP, IB_USER_VERBS_CMD_CREATE_QP, &c,
		  sizeof(c), sizeof(r));
	w.drv_out = sizeof(__u64);
	w.check_off = 0;
	w.force_clean = avoid & AV_CREATE_QP_RESP;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	new_qp(&w, &r, c.qp_type, a.is_srq, a.pd);
}

static void cmd_ex_create_qp(void)
{
	struct ib_uverbs_ex_create_qp c = { 0 };
	struct ib_uverbs_ex_create_qp_resp r;
	struct qp_args a;
	struct wreq w;

	if (!room_for(K_QP))
		return;
	pick_qp_args(&a);
	c.user_handle = next64();
	c.pd_handle = a.pd;
	c.send_cq_handle = a.scq;
	c.recv_cq_handle = a.rcq;
	c.srq_handle = a.srq;
	c.max_send_wr = a.swr;
	c.max_recv_wr = a.rwr;
	c.max_send_sge = a.ssge;
	c.max_recv_sge = a.rsge;
	c.max_inline_data = a.inl;
	c.sq_sig_all = a.sig_all;
	c.qp_type = a.type;
	c.is_srq = a.is_srq;
	c.comp_mask = chance(85) ? 0 : (__u32)next64();
	c.create_flags = chance(85) ? 0 : 1u << rnd(32);
	c.rwq_ind_tbl_handle = chance(90) ? 0 : rnd(64);
	c.source_qpn = chance(90) ? 0 : (__u32)next64();
	describe("EX_CREATE_QP type %u pd %u cq %u/%u srq %u wr %u/%u mask %#x flags %#x",
		 c.qp_type, c.pd_handle, c.send_cq_handle, c.recv_cq_handle,
		 c.srq_handle, c.max_send_wr, c.max_recv_wr, c.comp_mask,
		 c.create_flags);
	wreq_init(&w, OP_EX_CREATE_QP, IB_USER_VERBS_EX_CMD_CREATE_QP, &c,
		  sizeof(c), sizeof(r));
	w.ex = true;
	w.drv_out = sizeof(__u64);
	w.check_off = 0;
	w.force_clean = avoid & AV_CREATE_QP_RESP;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	new_qp(&w, &r.base, c.qp_type, a.is_srq, a.pd);
}

/* The attribute mask IBTA requires to move a QP of @type to @to. */
static __u32 transition_mask(__u32 type, __u32 to)
{
	bool rc = type == IB_UVERBS_QPT_RC, ud = type == IB_UVERBS_QPT_UD;

	switch (to) {
	case QPS_INIT:
		return QPA_STATE | QPA_PKEY | QPA_PORT |
		       (ud ? QPA_QKEY : QPA_ACCESS);
	case QPS_RTR:
		if (ud)
			return QPA_STATE;
		return QPA_STATE | QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN |
		       QPA_RQ_PSN |
		       (rc ? QPA_MAX_DEST_RD | QPA_MIN_RNR : 0);
	case QPS_RTS:
		return QPA_STATE | QPA_SQ_PSN |
		       (rc ? QPA_TIMEOUT | QPA_RETRY | QPA_RNR_RETRY |
			QPA_MAX_RD : 0);
	case QPS_SQD:
		return QPA_STATE | (chance(50) ? QPA_EN_SQD_ASYNC : 0);
	default:
		return QPA_STATE;
	}
}

/* Sensible modify attributes: loopback to @peer_qpn on the port's LID. */
static void fill_modify(struct ib_uverbs_modify_qp *m, __u32 type, __u32 to,
			__u32 peer_qpn)
{
	m->attr_mask = transition_mask(type, to);
	m->qp_state = (__u8)to;
	m->pkey_index = 0;
	m->port_num = 1;
	m->qkey = QKEY;
	m->qp_access_flags = ACC_REMOTE_WRITE | ACC_REMOTE_READ |
			     ACC_REMOTE_ATOMIC;
	m->dest.dlid = lim.lid;
	m->dest.port_num = 1;
	m->path_mtu = MTU_4096;
	m->dest_qp_num = peer_qpn;
	m->rq_psn = 0;
	m->sq_psn = 0;
	m->max_dest_rd_atomic = 4;
	m->max_rd_atomic = 4;
	m->min_rnr_timer = 1;
	m->timeout = 14;
	m->retry_cnt = 7;
	m->rnr_retry = 7;
}

/* Damage one thing of a modify: the mask or a field. */
static void damage_modify(struct ib_uverbs_modify_qp *m)
{
	switch (rnd(12)) {
	case 0:
		m->attr_mask ^= 1u << rnd(26);
		break;
	case 1:
		m->attr_mask = (__u32)next64();
		break;
	case 2:
		m->qp_state = (__u8)(chance(50) ? rnd(8) : rnd(256));
		break;
	case 3:
		m->cur_qp_state = (__u8)rnd(256);
		m->attr_mask |= QPA_CUR_STATE;
		break;
	case 4:
		m->path_mtu = pick_u8(MTU_4096, 5);
		break;
	case 5:
		m->port_num = pick_u8(1, lim.ports);
		m->dest.port_num = pick_u8(1, lim.ports);
		break;
	case 6:
		m->pkey_index = (__u16)boundary(1);
		break;
	case 7:
		m->timeout = pick_u8(14, 31);
		m->retry_cnt = pick_u8(7, 7);
		m->rnr_retry = pick_u8(7, 7);
		break;
	case 8:
		m->dest.is_global = 1;
		m->dest.sgid_index = pick_u8(0, 0);
		m->dest.hop_limit = pick_u8(1, 255);
		break;
	case 9:
		m->dest.dlid = (__u16)boundary(0xbfff);
		break;
	case 10:
		m->max_rd_atomic = pick_u8(4, 16);
		m->max_dest_rd_atomic = pick_u8(4, 16);
		break;
	default:
		m->dest_qp_num = boundary(0xffffff);
		m->alt_port_num = pick_u8(1, lim.ports);
		m->attr_mask |= chance(50) ? QPA_ALT_PATH : 0;
		break;
	}
}

/* The state a QP would go to next, or a random one. */
static __u32 next_state(struct obj *qp)
{
	if (!qp || (!sane && chance(15)))
		return rnd(7);
	switch (qp->qp.state) {
	case QPS_RESET:
		return QPS_INIT;
	case QPS_INIT:
		return QPS_RTR;
	case QPS_RTR:
		return QPS_RTS;
	case QPS_RTS:
		return chance(80) ? QPS_SQD : QPS_ERR;
	case QPS_SQD:
		return QPS_RTS;
	default:
		return QPS_RESET;
	}
}

/* MODIFY_QP (or the extended one) of @qp (NULL: a drawn handle) to @to. */
static bool cmd_modify_qp(struct obj *qp, __u32 to, __u32 peer_qpn,
			  bool damage)
{
	struct ib_uverbs_ex_modify_qp c = { 0 };
	struct ib_uverbs_modify_qp *m = &c.base;
	bool ex = !exact_mode && chance(20);
	struct wreq w;
	__u32 handle = qp ? qp->handle : pick_handle(K_QP, &qp);

	m->qp_handle = handle;
	fill_modify(m, qp ? qp->qp.type : IB_UVERBS_QPT_RC, to, peer_qpn);
	if (damage)
		damage_modify(m);
	if (ex && chance(30))
		c.rate_limit = (__u32)next64();
	describe("%sMODIFY_QP qp %u state %u mask %#x dlid %#x dqpn %#x port %u mtu %u",
		 ex ? "EX_" : "", handle, m->qp_state, m->attr_mask,
		 m->dest.dlid, m->dest_qp_num, m->port_num, m->path_mtu);
	if (ex) {
		wreq_init(&w, OP_EX_MODIFY_QP, IB_USER_VERBS_EX_CMD_MODIFY_QP,
			  &c, sizeof(c),
			  sizeof(struct ib_uverbs_ex_modify_qp_resp));
		w.ex = true;
	} else {
		wreq_init(&w, OP_MODIFY_QP, IB_USER_VERBS_CMD_MODIFY_QP, m,
			  sizeof(*m), 0);
	}
	if (!wsubmit(&w))
		return false;
	qp = find_live_handle(handle);
	if (qp && qp->kind == K_QP && (m->attr_mask & QPA_STATE))
		qp->qp.state = m->qp_state;
	if (qp && qp->kind == K_QP && (m->attr_mask & QPA_PORT))
		qp->qp.has_port = true;
	return true;
}

static void act_modify_qp(void)
{
	struct obj *qp = pick_live(K_QP), *peer = pick_live(K_QP);

	cmd_modify_qp(sane || chance(85) ? qp : NULL, next_state(qp),
		      peer ? peer->qp.qpn : rnd(64), !sane && chance(30));
}

/* Bring two QPs of one type (or one QP, to itself) to RTS, talking. */
static void act_wire_pair(void)
{
	struct obj *a = pick_live(K_QP), *b;
	__u32 s;

	if (!a)
		return;
	b = pick_peer(a);
	for (s = QPS_INIT; s <= QPS_RTS; s++) {
		if (a->qp.state < s)
			cmd_modify_qp(a, s, b->qp.qpn, chance(5));
		if (b->qp.state < s)
			cmd_modify_qp(b, s, a->qp.qpn, chance(5));
	}
}

static void cmd_query_qp(void)
{
	struct ib_uverbs_query_qp c = { 0 };
	struct obj *o;
	struct wreq w;

	c.qp_handle = pick_handle(K_QP, &o);
	c.attr_mask = chance(70) ? 0x1fffff : (__u32)next64();
	describe("QUERY_QP qp %u mask %#x", c.qp_handle, c.attr_mask);
	wreq_init(&w, OP_QUERY_QP, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c),
		  sizeof(struct ib_uverbs_query_qp_resp));
	w.check_off = offsetof(struct ib_uverbs_query_qp_resp, max_send_wr);
	wsubmit(&w);
}

static void cmd_create_srq(void)
{
	struct ib_uverbs_create_srq c = { 0 };
	struct ib_uverbs_create_srq_resp r;
	struct obj *o;
	struct wreq w;
	__u64 cookie;

	if (!room_for(K_SRQ))
		return;
	c.user_handle = next64();
	c.pd_handle = pick_handle(K_PD, &o);
	c.max_wr = pick_u32(1, 64, lim.max_srq_wr);
	c.max_sge = pick_u32(1, 4, lim.max_srq_sge);
	c.srq_limit = chance(70) ? 0 : pick_u32(0, 64, c.max_wr);
	if (!affordable(rq_bytes(c.max_wr + 1, min_sz(c.max_sge, 1024u))) &&
	    c.max_wr <= lim.max_srq_wr && c.max_sge <= lim.max_srq_sge)
		c.max_wr = 1 + rnd(64);
	describe("CREATE_SRQ pd %u wr %u sge %u limit %u", c.pd_handle,
		 c.max_wr, c.max_sge, c.srq_limit);
	wreq_init(&w, OP_CREATE_SRQ, IB_USER_VERBS_CMD_CREATE_SRQ, &c,
		  sizeof(c), sizeof(r));
	w.drv_out = sizeof(__u64);
	w.check_off = 0;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	o = add_obj(K_SRQ, r.srq_handle, rq_bytes(r.max_wr + 1, r.max_sge));
	if (o) {
		o->srq.max_wr = r.max_wr;
		o->srq.max_sge = r.max_sge;
		o->pd = c.pd_handle;
	}
	if (resp_cookie(&w, &cookie))
		map_new_ring(cookie, rq_bytes(r.max_wr + 1, r.max_sge),
			     RING_SRQ, r.max_wr + 1,
			     RWQE_BYTES + r.max_sge * SGE_BYTES, r.max_sge,
			     c.pd_handle);
}

/*
 * MODIFY_SRQ: a resize returns the new ring's cookie at the address the
 * provider puts in its driver data (ipathverbs' offset_addr).
 */
static void cmd_modify_srq(void)
{
	struct ib_uverbs_modify_srq c = { 0 };
	enum ptr_kind pk = pick_ptr_kind();
	struct obj *o;
	struct wreq w;
	__u64 offset_addr = ptr_of(pk, scratch), cookie;

	c.srq_handle = pick_handle(K_SRQ, &o);
	c.attr_mask = chance(85) ? 1 + rnd(3) : (__u32)next64();
	c.max_wr = pick_u32(1, 128, lim.max_srq_wr);
	c.srq_limit = pick_u32(0, 16, c.max_wr);
	if ((c.attr_mask & SRQ_MAX_WR) && o &&
	    !affordable(rq_bytes(c.max_wr + 1, min_sz(o->srq.max_sge, 1024u))))
		c.max_wr = 1 + rnd(128);
	describe("MODIFY_SRQ srq %u mask %#x wr %u limit %u offset_addr %#llx",
		 c.srq_handle, c.attr_mask, c.max_wr, c.srq_limit,
		 (unsigned long long)offset_addr);
	memcpy(scratch, &(__u64){ PATTERN64 }, sizeof(__u64));
	wreq_init(&w, OP_MODIFY_SRQ, IB_USER_VERBS_CMD_MODIFY_SRQ, &c,
		  sizeof(c), 0);
	if (chance(90)) {
		w.drv_in = &offset_addr;
		w.drv_in_len = sizeof(offset_addr);
	}
	/* without it, words the framing appends are read as the address */
	w.embedded_ok = pk == PK_VALID && w.drv_in;
	if (!wsubmit(&w) || !(c.attr_mask & SRQ_MAX_WR) || !o || !w.drv_in ||
	    pk != PK_VALID)
		return;
	memcpy(&cookie, scratch, sizeof(cookie));
	if (cookie == PATTERN64)
		return;
	kmem_live += rq_bytes(c.max_wr + 1, o->srq.max_sge) - o->cost;
	o->cost = rq_bytes(c.max_wr + 1, o->srq.max_sge);
	o->srq.max_wr = c.max_wr;
	map_new_ring(cookie, rq_bytes(c.max_wr + 1, o->srq.max_sge), RING_SRQ,
		     c.max_wr + 1, RWQE_BYTES + o->srq.max_sge * SGE_BYTES,
		     o->srq.max_sge, o->pd);
}

static void cmd_query_srq(void)
{
	struct ib_uverbs_query_srq c = { 0 };
	struct obj *o;
	struct wreq w;

	c.srq_handle = pick_handle(K_SRQ, &o);
	describe("QUERY_SRQ srq %u", c.srq_handle);
	wreq_init(&w, OP_QUERY_SRQ, IB_USER_VERBS_CMD_QUERY_SRQ, &c, sizeof(c),
		  sizeof(struct ib_uverbs_query_srq_resp));
	w.check_off = 0;
	wsubmit(&w);
}

/* ---- write() commands: posting work -------------------------------------- */

/* The PD of the QP or SRQ whose work is being built, for its SGEs. */
static __u32 post_pd;

/* An MR for an SGE: sane, one of the PD of the work; else any. */
static struct obj *pick_mr(void)
{
	struct obj *mr = sane || chance(70) ? pick_in_pd(K_MR, post_pd) : NULL;

	return mr ? mr : pick_live(K_MR);
}

/* An SGE: in a live MR (within it, its key), or anything. */
static void pick_sge(struct ib_uverbs_sge *s)
{
	struct obj *mr = pick_mr();

	if (mr && mr->mr.len && mr->mr.len < (1ull << 32) &&
	    (sane || chance(80))) {
		__u64 off = rnd((__u32)mr->mr.len);

		s->addr = mr->mr.iova + off;
		/* sane: within a UD MTU */
		s->length = 1 + rnd((__u32)min_sz(mr->mr.len - off,
						  sane ? 1024 : 8192));
		s->lkey = mr->mr.lkey;
		return;
	}
	s->addr = safe_word();
	s->length = pick_u32(1, 4096, 1u << 31);
	s->lkey = mr ? mr->mr.lkey + rnd(3) : (__u32)next64();
}

/* The target of an RDMA or atomic: a live MR's range and rkey, or noise. */
static void pick_remote(__u64 *addr, __u32 *rkey)
{
	struct obj *mr = pick_mr();

	if (mr && mr->mr.len >= 8 && mr->mr.len < (1ull << 32) &&
	    (sane || chance(80))) {
		*addr = (mr->mr.iova + rnd((__u32)mr->mr.len - 7)) & ~7ull;
		*rkey = mr->mr.rkey;
		return;
	}
	*addr = safe_word();
	*rkey = (__u32)next64();
}

/* The type of the QP a POST_SEND being built goes to (UD: AH and QPN). */
static __u32 post_qp_type;

static void fill_send_wr(struct ib_uverbs_send_wr *wr, __u32 num_sge)
{
	struct obj *o;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = step;
	wr->num_sge = num_sge;
	wr->opcode = sane || chance(90) ?
		     rnd(IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD + 1) :
		     (__u32)next64();
	if (chance(60) || (sane && wr->opcode > IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD))
		wr->opcode = IB_UVERBS_WR_SEND;
	wr->send_flags = sane || chance(80) ? SEND_SIGNALED : rnd(32);
	wr->ex.imm_data = (__u32)next64();
	switch (wr->opcode) {
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		pick_remote(&wr->wr.atomic.remote_addr, &wr->wr.atomic.rkey);
		wr->wr.atomic.compare_add = next64();
		wr->wr.atomic.swap = next64();
		break;
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
		/* UD: the same bytes hold the AH, QPN and Q_Key */
		if (post_qp_type == IB_UVERBS_QPT_UD ? chance(95) : chance(5)) {
			struct obj *ud = pick_live(K_QP);

			o = sane ? pick_in_pd(K_AH, post_pd) : NULL;
			wr->wr.ud.ah = o ? o->handle : pick_handle(K_AH, &o);
			wr->wr.ud.remote_qpn = ud ? ud->qp.qpn : rnd(4);
			wr->wr.ud.remote_qkey = chance(80) ? QKEY :
						(__u32)next64();
			break;
		}
		pick_remote(&wr->wr.rdma.remote_addr, &wr->wr.rdma.rkey);
		break;
	default:
		pick_remote(&wr->wr.rdma.remote_addr, &wr->wr.rdma.rkey);
		break;
	}
}

/* A post command's layout: header, WRs of wqe_size, then the SGEs. */
struct post_layout {
	__u32 wr_count, sge_count, wqe_size, per_wr;
};

static void pick_layout(struct post_layout *l, size_t wr_bytes)
{
	l->wr_count = sane || chance(90) ? 1 + rnd(4) : pick_u32(1, 8, 64);
	l->per_wr = sane ? 1 : chance(90) ? 1 + rnd(2) : pick_u32(0, 3, 32);
	l->wqe_size = (__u32)wr_bytes;
	if (!sane && chance(8))
		l->wqe_size = pick_u32((__u32)wr_bytes, (__u32)wr_bytes + 32,
				       (__u32)wr_bytes);
	l->sge_count = min_sz(l->wr_count, 64u) * min_sz(l->per_wr, 32u);
	if (!sane && chance(5))
		l->sge_count = boundary(l->sge_count);
}

/*
 * Bytes of a post body in @body for @l, the WRs written by @fill_wr:
 * as many WRs and SGEs as fit, which the kernel must check against its
 * counts.
 */
static size_t build_post(char *body, size_t hdr_len, size_t max,
			 struct post_layout *l, size_t wr_bytes,
			 void (*fill_wr)(void *wr, __u32 num_sge))
{
	size_t pos = hdr_len, room = min_sz(l->wqe_size, 256u);
	/* a WR is written whole even where wqe_size says it is shorter */
	size_t fill = room > wr_bytes ? room : wr_bytes;
	__u32 i;

	for (i = 0; i < l->wr_count && i < 512 && pos + fill <= max; i++) {
		memset(body + pos, 0, fill);
		fill_wr(body + pos, sane || chance(95) ? l->per_wr :
			pick_u32(0, 3, 32));
		pos += room;
		if (l->wqe_size > room)
			break;	/* a wqe_size too big to build: truncated */
	}
	for (i = 0; i < l->sge_count && pos + SGE_BYTES <= max; i++) {
		pick_sge((struct ib_uverbs_sge *)(body + pos));
		pos += SGE_BYTES;
	}
	return pos;
}

static void send_wr_cb(void *wr, __u32 num_sge)
{
	fill_send_wr(wr, num_sge);
}

static void recv_wr_cb(void *p, __u32 num_sge)
{
	struct ib_uverbs_recv_wr *wr = p;

	wr->wr_id = step;
	wr->num_sge = num_sge;
	wr->reserved = chance(95) ? 0 : (__u32)next64();
}

static __u64 post_words[1024];
static char *const post_body = (char *)post_words;

/* POST_SEND, POST_RECV or POST_SRQ_RECV with a drawn layout. */
static void cmd_post(enum op op)
{
	struct ib_uverbs_post_send *h = (void *)post_body;
	bool send = op == OP_POST_SEND;
	size_t wr_bytes = send ? sizeof(struct ib_uverbs_send_wr) :
				 sizeof(struct ib_uverbs_recv_wr);
	struct post_layout l;
	struct obj *o;
	struct wreq w;
	size_t len;
	__u32 cmd = send ? IB_USER_VERBS_CMD_POST_SEND :
		    op == OP_POST_RECV ? IB_USER_VERBS_CMD_POST_RECV :
		    IB_USER_VERBS_CMD_POST_SRQ_RECV;

	o = pick_qp_in(send ? QPS_RTS : QPS_INIT + rnd(3));
	if (send && (avoid & AV_RC_SEND) &&
	    (!o || o->qp.type != IB_UVERBS_QPT_UD))
		return;
	if (send && (avoid & AV_RC_SEND))
		h->qp_handle = o->handle;
	else if (op == OP_POST_SRQ_RECV || !o || (!sane && chance(30)))
		h->qp_handle = pick_handle(op == OP_POST_SRQ_RECV ? K_SRQ :
					   K_QP, &o);
	else
		h->qp_handle = o->handle;
	post_qp_type = o && o->kind == K_QP ? o->qp.type : 0;
	post_pd = o ? o->pd : ~0u;
	pick_layout(&l, wr_bytes);
	if (send && !l.wr_count && (avoid & AV_POST_SEND_NO_WR))
		l.wr_count = 1;
	len = build_post(post_body, sizeof(*h), sizeof(post_words), &l,
			 wr_bytes, send ? send_wr_cb : recv_wr_cb);
	h->wr_count = l.wr_count;
	h->sge_count = l.sge_count;
	h->wqe_size = l.wqe_size;
	describe("%s handle %u (type %u state %d) wrs %u sges %u wqe_size %u opcode %u (%zu bytes)",
		 op_names[op], h->qp_handle, post_qp_type,
		 o && o->kind == K_QP ? (int)o->qp.state : -1, l.wr_count,
		 l.sge_count, l.wqe_size,
		 send ? ((struct ib_uverbs_send_wr *)(h + 1))->opcode : 0, len);
	wreq_init(&w, op, cmd, post_body, len,
		  sizeof(struct ib_uverbs_post_send_resp));
	w.check_off = 0;
	wsubmit(&w);
}

/* ---- write() commands: extended and random ------------------------------- */

static void cmd_ex_query_device(void)
{
	struct ib_uverbs_ex_query_device c = { 0 };
	struct wreq w;

	c.comp_mask = chance(85) ? 0 : (__u32)next64();
	c.reserved = chance(90) ? 0 : (__u32)next64();
	describe("EX_QUERY_DEVICE mask %#x reserved %#x", c.comp_mask,
		 c.reserved);
	wreq_init(&w, OP_EX_QUERY_DEVICE, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		  &c, sizeof(c),
		  sizeof(struct ib_uverbs_ex_query_device_resp));
	w.ex = true;
	w.check_off = offsetof(struct ib_uverbs_ex_query_device_resp,
			       response_length);
	wsubmit(&w);
}

static void cmd_ex_modify_cq(void)
{
	struct ib_uverbs_ex_modify_cq c = { 0 };
	struct obj *o;
	struct wreq w;

	c.cq_handle = pick_handle(K_CQ, &o);
	c.attr_mask = chance(80) ? 1 : (__u32)next64();
	c.attr.cq_count = (__u16)next64();
	c.attr.cq_period = (__u16)next64();
	describe("EX_MODIFY_CQ cq %u mask %#x", c.cq_handle, c.attr_mask);
	wreq_init(&w, OP_EX_MODIFY_CQ, IB_USER_VERBS_EX_CMD_MODIFY_CQ, &c,
		  sizeof(c), 0);
	w.ex = true;
	wsubmit(&w);
}

/* The other extended commands (flows, WQs, indirection tables): noise. */
static void cmd_ex_other(void)
{
	__u64 body[16];
	struct wreq w;
	__u32 cmd = IB_USER_VERBS_EX_CMD_CREATE_FLOW + rnd(8);

	fill_safe(body, sizeof(body));
	if (chance(50))
		body[0] = pick_handle(K_QP, &(struct obj *){ NULL }) |
			  (__u64)pick_handle(K_CQ, &(struct obj *){ NULL })
			  << 32;
	describe("EX command %u", cmd);
	wreq_init(&w, OP_EX_OTHER, cmd, body, 8 * (1 + rnd(16)), 24);
	w.ex = true;
	w.embedded_ok = false;
	wsubmit(&w);
}

static void cmd_open_xrcd_qp(void)
{
	__u64 body[8];
	struct wreq w;
	bool xrcd = chance(50);

	fill_safe(body, sizeof(body));
	body[1] = chance(50) ? 0xffffffffull : (__u64)rnd(8);	/* fd, or qpn */
	describe("%s", xrcd ? "OPEN_XRCD" : "OPEN_QP");
	wreq_init(&w, xrcd ? OP_OPEN_XRCD : OP_OPEN_QP,
		  xrcd ? IB_USER_VERBS_CMD_OPEN_XRCD :
		  IB_USER_VERBS_CMD_OPEN_QP, body, xrcd ? 16 : 32,
		  xrcd ? 8 : sizeof(struct ib_uverbs_create_qp_resp));
	w.embedded_ok = false;
	wsubmit(&w);
}

/* A command number of any kind with a body of safe words. */
static void cmd_random(void)
{
	__u64 body[64];
	struct wreq w;
	__u32 cmd = chance(80) ? rnd(64) : (__u32)next64();

	if (cmd_avoided(cmd))
		return;
	fill_safe(body, sizeof(body));
	describe("random command %#x", cmd);
	wreq_init(&w, OP_RANDOM_CMD, cmd & ~IB_USER_VERBS_CMD_FLAG_EXTENDED,
		  body, 8 * rnd(33), 8 * rnd(32));
	w.ex = (cmd & IB_USER_VERBS_CMD_FLAG_EXTENDED) || chance(20);
	w.embedded_ok = false;
	w.drv_out = 8 * rnd(4);
	wsubmit(&w);
}

/* write() framings the header check must refuse: short, unmapped. */
static void cmd_raw_write(void)
{
	struct ib_uverbs_cmd_hdr hdr = { .command = rnd(40) };
	const void *buf = &hdr;
	size_t len = rnd(sizeof(hdr) + 1);
	ssize_t ret;
	int err;

	hdr.in_words = (__u16)rnd(8);
	hdr.out_words = (__u16)rnd(8);
	if (chance(30)) {
		buf = chance(50) ? (const void *)guard : (const void *)(guard - 4);
		len = 8 + rnd(64);
	}
	describe("raw write of %zu bytes from %p", len, buf);
	timer_on();
	ret = write(fd, buf, len);
	err = errno;
	timer_off();
	count(OP_RAW_WRITE, ret >= 0, err);
	if (ret != -1 && ret != (ssize_t)len)
		failf("write() of %zu bytes returned %zd", len, ret);
}

/* ---- ioctl methods ------------------------------------------------------- */

#define MAX_ATTRS 16
/* A constant input attribute is a u64, whatever its type. */
#define CONST_IN 8

/**
 * struct ioc - an RDMA_VERBS_IOCTL call being built
 * @hdr: the header
 * @attrs: its attributes (follow the header in memory)
 */
struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[MAX_ATTRS];
};

/* The device's driver id, which every ioctl must name (learn_device). */
static __u32 driver_id;

static void ioc_init(struct ioc *c, __u16 object, __u16 method)
{
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->hdr.driver_id = driver_id;
}

/* Add an attribute; a pointer attribute's @data is its address. */
static struct ib_uverbs_attr *ioc_attr(struct ioc *c, __u16 id, __u16 len,
				       __u64 data, __u16 flags)
{
	struct ib_uverbs_attr *a = &c->attrs[c->hdr.num_attrs++];

	a->attr_id = id;
	a->len = len;
	a->flags = flags;
	a->data = data;
	return a;
}

static __u64 out_ptr(size_t off)
{
	return (__u64)(unsigned long)(scratch + off);
}

/* Whether the last isubmit() damaged its call. */
static bool ioc_damaged;

/* Damage a well-formed call now and then; true if it is still valid. */
static bool ioc_damage(struct ioc *c)
{
	struct ib_uverbs_attr *a;

	if (exact_mode || sane || !c->hdr.num_attrs || chance(80))
		return true;
	a = &c->attrs[rnd(c->hdr.num_attrs)];
	switch (rnd(7)) {
	case 0:
		a->len = (__u16)(chance(50) ? rnd(16) : next64());
		break;
	case 1:
		a->flags = (__u16)next64();
		break;
	case 2:
		a->attr_id = (__u16)(chance(50) ? rnd(16) : next64());
		break;
	case 3:
		a->data = safe_word();
		break;
	case 4:
		a->attr_data.reserved = (__u16)next64();
		break;
	case 5:
		c->hdr.reserved1 = next64();
		break;
	default:
		if (c->hdr.num_attrs < MAX_ATTRS)
			ioc_attr(c, (__u16)rnd(16), (__u16)rnd(16),
				 safe_word(), 0);
		break;
	}
	return false;
}

/* Issue @c; judge the return; true if it succeeded. */
static bool isubmit(enum op op, struct ioc *c, bool valid)
{
	int ret, err;

	if (!c->hdr.length)
		c->hdr.length = (__u16)(sizeof(c->hdr) +
					c->hdr.num_attrs * sizeof(c->attrs[0]));
	ioc_damaged = false;
	if (!((avoid & AV_CREATE_QP_RESP) &&
	      c->hdr.object_id == UVERBS_OBJECT_QP &&
	      c->hdr.method_id == UVERBS_METHOD_QP_CREATE))
		ioc_damaged = !ioc_damage(c);
	valid = valid && !ioc_damaged;
	timer_on();
	ret = ioctl(fd, RDMA_VERBS_IOCTL, c);
	err = errno;
	timer_off();
	count(op, ret == 0, err);
	if (ret != 0 && ret != -1)
		failf("ioctl() returned %d", ret);
	else if (ret == -1 && err == EFAULT && valid)
		failf("EFAULT, with every pointer valid");
	errno = err;
	return ret == 0;
}

static void ioc_query_context(void)
{
	struct ioc c;

	describe("ioctl QUERY_CONTEXT");
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	ioc_attr(&c, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, 4,
		 out_ptr(0), 0);
	ioc_attr(&c, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, 8, out_ptr(8), 0);
	isubmit(OP_IOCTL_QUERY_CONTEXT, &c, true);
}

static void ioc_query_port(void)
{
	struct ioc c;
	__u8 port = pick_port();

	describe("ioctl QUERY_PORT port %u", port);
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, CONST_IN, port,
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_RESP,
		 sizeof(struct ib_uverbs_query_port_resp_ex), out_ptr(0),
		 UVERBS_ATTR_F_MANDATORY);
	isubmit(OP_IOCTL_QUERY_PORT, &c, true);
}

static void ioc_info_handles(void)
{
	struct ioc c;
	__u16 object = (__u16)(chance(80) ? rnd(17) : next64());
	__u16 len = (__u16)(chance(80) ? 4 * (1 + rnd(64)) : rnd(4096));

	describe("ioctl INFO_HANDLES object %u list %u bytes", object, len);
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	ioc_attr(&c, UVERBS_ATTR_INFO_OBJECT_ID, CONST_IN, object, 0);
	ioc_attr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, 4, out_ptr(0), 0);
	ioc_attr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, len, out_ptr(64), 0);
	isubmit(OP_IOCTL_INFO_HANDLES, &c, len < SCRATCH_BYTES - 64);
}

static void ioc_gid(void)
{
	struct ioc c;
	bool table = chance(50);
	__u32 n = chance(80) ? 1 + rnd(4) : rnd(64);

	describe("ioctl %s", table ? "QUERY_GID_TABLE" : "QUERY_GID_ENTRY");
	if (table) {
		ioc_init(&c, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_TABLE);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 8,
			 chance(85) ? sizeof(struct ib_uverbs_gid_entry) :
			 rnd(64), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
			 (__u16)(n * sizeof(struct ib_uverbs_gid_entry)),
			 out_ptr(64), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, 8,
			 out_ptr(0), 0);
	} else {
		ioc_init(&c, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_ENTRY);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, CONST_IN, pick_port(),
			 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, CONST_IN,
			 pick_u32(0, 0, 1), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4,
			 chance(90) ? 0 : rnd(8), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
			 sizeof(struct ib_uverbs_gid_entry), out_ptr(0), 0);
	}
	isubmit(OP_IOCTL_GID, &c, true);
}

/* A write() command through the ioctl path (UVERBS_METHOD_INVOKE_WRITE). */
static void ioc_invoke_write(void)
{
	struct ioc c;
	__u64 *in = (__u64 *)(scratch + 2048);
	__u32 cmd = chance(80) ? rnd(40) : (__u32)next64();
	__u16 in_len = (__u16)(8 * rnd(16)), out_len = (__u16)(8 * rnd(16));

	if (cmd_avoided(cmd))
		return;
	fill_safe(in, in_len);
	describe("ioctl INVOKE_WRITE command %#x in %u out %u", cmd, in_len,
		 out_len);
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	ioc_attr(&c, UVERBS_ATTR_WRITE_CMD, CONST_IN, cmd, UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CORE_IN, in_len,
		 in_len > 8 ? (__u64)(unsigned long)in : in[0], 0);
	if (chance(80))
		ioc_attr(&c, UVERBS_ATTR_CORE_OUT, out_len, out_ptr(0), 0);
	isubmit(OP_IOCTL_INVOKE_WRITE, &c, false);
}

static void ioc_create_cq(void)
{
	struct ioc c;
	struct ib_uverbs_attr *h;
	struct wreq w = { .drv_out = sizeof(__u64), .resp = scratch,
			  .drv_out_len = sizeof(__u64) };
	__u32 cqe = pick_cqe(), got;
	bool ring = chance(85);
	struct obj *o;

	if (!room_for(K_CQ))
		return;
	describe("ioctl CQ_CREATE cqe %u%s", cqe, ring ? " ring" : "");
	memset(scratch, PATTERN, 64);
	ioc_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	h = ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, PATTERN64,
		     UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_CQE, 4, cqe, UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, next64(),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, rnd(ncomp),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, out_ptr(8),
		 UVERBS_ATTR_F_MANDATORY);
	if (ring)
		ioc_attr(&c, UVERBS_ATTR_UHW_OUT, 8, out_ptr(0), 0);
	if (!isubmit(OP_IOCTL_CREATE_CQ, &c, true))
		return;
	if (h->data == PATTERN64)
		failf("success, but the new CQ's handle left unwritten");
	memcpy(&got, scratch + 8, sizeof(got));
	w.resp_len = 0;
	if (!ring)
		w.drv_out_len = 0;
	/*
	 * Unwritten here, the size went where a damaged RESP_CQE pointed
	 * (ioc_damage() may move it and the call still succeed).
	 */
	o = new_cq(&w, (__u32)h->data, got == PATTERN32 ? cqe : got,
		   got != PATTERN32);
	if (o)
		o->cq.ring_known = !ioc_damaged;
}

static void ioc_create_qp(void)
{
	struct ioc c;
	struct ib_uverbs_attr *h;
	struct ib_uverbs_qp_cap *cap = (void *)(scratch + 256);
	struct ib_uverbs_create_qp_resp r = { 0 };
	struct wreq w = { .resp = scratch, .drv_out_len = sizeof(__u64) };
	struct qp_args a;
	__u8 type;

	if (!room_for(K_QP))
		return;
	pick_qp_args(&a);
	type = a.type;
	*cap = (struct ib_uverbs_qp_cap){ a.swr, a.rwr, a.ssge, a.rsge, a.inl };
	describe("ioctl QP_CREATE type %u pd %u cq %u/%u wr %u/%u sge %u/%u",
		 type, a.pd, a.scq, a.rcq, a.swr, a.rwr, a.ssge, a.rsge);
	memset(scratch, PATTERN, 128);
	ioc_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE);
	h = ioc_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE, 0, PATTERN64,
		     UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_PD_HANDLE, 0, a.pd, 0);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, 0, a.scq, 0);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, 0, a.rcq, 0);
	if (a.is_srq)
		ioc_attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, a.srq, 0);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_USER_HANDLE, 8, next64(),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_CAP, sizeof(*cap),
		 (__u64)(unsigned long)cap, UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_TYPE, CONST_IN, type,
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_CAP, sizeof(*cap),
		 out_ptr(16), UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, 4, out_ptr(8),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_UHW_OUT, 8, out_ptr(0), 0);
	if (!isubmit(OP_IOCTL_CREATE_QP, &c, true))
		return;
	if (h->data == PATTERN64)
		failf("success, but the new QP's handle left unwritten");
	r.qp_handle = (__u32)h->data;
	memcpy(&r.qpn, scratch + 8, sizeof(r.qpn));
	memcpy(&r.max_send_wr, scratch + 16, sizeof(*cap));
	/*
	 * Caps unwritten here went where a damaged RESP_CAP pointed: the RQ
	 * ring's size is not known, so its cookie is noted, never mapped.
	 */
	if (r.max_recv_wr == PATTERN32 || r.max_recv_sge == PATTERN32) {
		__u64 cookie;

		if (resp_cookie(&w, &cookie))
			note_cookie(cookie);
		w.drv_out_len = 0;
	}
	new_qp(&w, &r, type, a.is_srq, a.pd);
}

/* The destroy methods: PD, CQ, QP, SRQ, AH, MR. */
static void ioc_destroy(void)
{
	static const struct { __u16 object, method, resp_len; enum kind k; }
	d[] = {
		{ UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 0, K_PD },
		{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY,
		  sizeof(struct ib_uverbs_destroy_cq_resp), K_CQ },
		{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY,
		  sizeof(struct ib_uverbs_destroy_qp_resp), K_QP },
		{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY,
		  sizeof(struct ib_uverbs_destroy_srq_resp), K_SRQ },
		{ UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY, 0, K_AH },
		{ UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 0, K_MR },
	};
	unsigned int i = rnd(ARRAY_SIZE(d));
	struct obj *o;
	struct ioc c;
	__u32 h = pick_handle(d[i].k, &o);

	describe("ioctl destroy object %u handle %u%s", d[i].object, h,
		 o ? " (live)" : "");
	ioc_init(&c, d[i].object, d[i].method);
	ioc_attr(&c, 0, 0, h, UVERBS_ATTR_F_MANDATORY);
	if (d[i].resp_len)
		ioc_attr(&c, 1, d[i].resp_len, out_ptr(0),
			 UVERBS_ATTR_F_MANDATORY);
	if (isubmit(OP_IOCTL_DESTROY, &c, true))
		kill_obj(find_live_handle(h));
}

/* Any object, method and attributes, of safe words. */
static void ioc_random(void)
{
	struct ioc c;
	unsigned int i, n = rnd(MAX_ATTRS + 1);
	__u16 object = (__u16)(chance(80) ? rnd(18) : next64());
	__u16 method = (__u16)(chance(80) ? rnd(8) : next64());

	if ((avoid & AV_CREATE_QP_RESP) && object == UVERBS_OBJECT_QP &&
	    method == UVERBS_METHOD_QP_CREATE)
		return;
	if ((avoid & AV_IOCTL_GET_CONTEXT) && object == UVERBS_OBJECT_DEVICE &&
	    method == UVERBS_METHOD_GET_CONTEXT)
		return;
	describe("ioctl object %u method %u attrs %u", object, method, n);
	ioc_init(&c, object, method);
	for (i = 0; i < n; i++) {
		__u16 id = (__u16)(chance(70) ? rnd(16) : chance(50) ?
				   UVERBS_ATTR_UHW_IN + rnd(2) : next64());

		ioc_attr(&c, id, (__u16)(chance(70) ? 1u << rnd(7) : rnd(4096)),
			 safe_word(), (__u16)(chance(70) ? rnd(2) : next64()));
		if (chance(10))
			c.attrs[i].attr_data.enum_data.elem_id = (__u8)rnd(8);
	}
	if (chance(10))
		c.hdr.length = (__u16)next64();
	if (chance(5))
		c.hdr.driver_id = (__u32)next64();
	isubmit(OP_IOCTL_RANDOM, &c, false);
}

/* Other ioctl numbers on the uverbs file. */
static void ioc_other(void)
{
	unsigned long nr = _IOC(rnd(4), chance(70) ? RDMA_IOCTL_MAGIC : rnd(256),
				rnd(8), rnd(64));
	int ret, err;

	describe("ioctl %#lx", nr);
	timer_on();
	ret = ioctl(fd, nr, scratch);
	err = errno;
	timer_off();
	count(OP_IOCTL_OTHER, ret == 0, err);
	if (ret != 0 && ret != -1)
		failf("ioctl() returned %d", ret);
}

/* ---- mmap and events ------------------------------------------------------ */

static __u64 pick_mmap_offset(void)
{
	__u64 c = ncookies ? cookies[rnd(min_sz(ncookies, MAX_COOKIES))] : 0;

	switch (rnd(8)) {
	case 0:
	case 1:
		return c;
	case 2:
		return c + PAGE;
	case 3:
		return c - PAGE;
	case 4:
		return 0;
	case 5:
		return (__u64)rnd(1u << 20) * PAGE;
	case 6:
		return (__u64)boundary(0xfffff) * PAGE;
	default:
		return next64() & ~(PAGE - 1) & ((1ull << 44) - 1);
	}
}

static void act_mmap_random(void)
{
	const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE,
			      PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC };
	const size_t lens[] = { PAGE, 2 * PAGE, 16 * PAGE, 1ul << 30, 0,
				PAGE + 1, 257 * PAGE };
	__u64 off = pick_mmap_offset();
	size_t len = lens[rnd(ARRAY_SIZE(lens))];
	int prot = chance(70) ? prots[0] : prots[rnd(ARRAY_SIZE(prots))];
	int flags = chance(80) ? MAP_SHARED : chance(50) ? MAP_PRIVATE :
		    MAP_SHARED | MAP_POPULATE;
	void *p;
	int err;

	if (nrings == MAX_RINGS)
		return;
	describe("mmap offset %#llx len %zu prot %#x flags %#x",
		 (unsigned long long)off, len, prot, flags);
	timer_on();
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	err = errno;
	timer_off();
	count(OP_MMAP_RANDOM, p != MAP_FAILED, err);
	if (p == MAP_FAILED)
		return;
	rings[nrings++] = (struct ring){ .addr = p, .len = page_align(len),
		.writable = (prot & PROT_WRITE) && (flags & MAP_SHARED),
		.kind = RING_OTHER, .slots = 1, .stride = 1 };
}

/* Unmap a ring, or only its last page (the VMA splits). */
static void act_munmap(void)
{
	struct ring *r = pick_ring(false, -1);
	int ret, err;

	if (!r)
		return;
	if (r->len <= PAGE || chance(60)) {
		unmap_ring(r);
		count(OP_MUNMAP, true, 0);
		return;
	}
	describe("munmap last page of %p len %zu", (void *)r->addr, r->len);
	timer_on();
	ret = munmap(r->addr + r->len - PAGE, PAGE);
	err = errno;
	timer_off();
	count(OP_MUNMAP, ret == 0, err);
	if (ret)
		failf("munmap of our own mapping: %s", strerror(err));
	else
		r->len -= PAGE;
}

/* Read events that are there (the files are non-blocking). */
static void act_read_events(void)
{
	struct pollfd p[MAX_CHANS + 1];
	unsigned int i, n = 0;
	ssize_t ret;
	size_t len;

	if (async_fd >= 0)
		p[n++] = (struct pollfd){ .fd = async_fd, .events = POLLIN };
	for (i = 0; i < nchans; i++)
		p[n++] = (struct pollfd){ .fd = chans[i], .events = POLLIN };
	describe("poll and read %u event files", n);
	timer_on();
	if (poll(p, n, 0) < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		if (!(p[i].revents & POLLIN))
			continue;
		len = chance(80) ? 16 : rnd(64);
		ret = read(p[i].fd, scratch, len);
		count(OP_EVENT_READ, ret >= 0, errno);
	}
	timer_off();
}

/* ---- the provider's side of the rings -------------------------------------- */

/* Post a receive into a ring as ipathverbs does, SGEs from our MRs. */
static void act_ring_post_recv(void)
{
	struct ring *r = pick_ring(true, chance(50) ? RING_RQ : RING_SRQ);
	__u32 head, tail, next, n, i;
	char *e;

	if (!r || r->len < rq_bytes(r->slots, r->max_sge) || r->slots < 2)
		return;
	head = ring_load(r, 0);
	tail = ring_load(r, 4);
	if (head >= r->slots || tail >= r->slots) {
		if (chance(50))
			return;
		/* repair what a scribble broke */
		if (tail >= r->slots)
			tail = 0;
		head = tail;
		ring_store(r, 4, tail);
	}
	next = head + 1 == r->slots ? 0 : head + 1;
	if (next == tail)
		return;
	e = r->addr + RING_HDR + (size_t)head * r->stride;
	n = r->max_sge ? 1 + rnd(r->max_sge) : 0;
	post_pd = r->pd;
	memcpy(e, &(__u64){ step }, sizeof(__u64));
	e[8] = (char)(chance(95) || (avoid & AV_RQ_SGE_COUNT) ? n :
		      r->max_sge + 1 + rnd(4));
	for (i = 0; i < n; i++)
		pick_sge((struct ib_uverbs_sge *)(e + RWQE_BYTES +
						  i * SGE_BYTES));
	ring_store(r, 0, next);
	ring_posts++;
	if (verbose)
		printf("%sstep %lu: ring post recv at %u, %u sges\n", who(),
		       step, head, n);
}

/* Take a completion from a mapped CQ ring as the provider does. */
static void act_ring_poll(void)
{
	struct ring *r = pick_ring(true, RING_CQ);
	__u32 head, tail;

	if (!r || r->len < cq_bytes(r->slots - 1))
		return;
	head = ring_load(r, 0);
	tail = ring_load(r, 4);
	if (head >= r->slots || tail >= r->slots || head == tail)
		return;
	memcpy(scratch, r->addr + RING_HDR + (size_t)tail * UVERBS_WC_BYTES,
	       UVERBS_WC_BYTES);
	ring_wcs++;
	ring_store(r, 4, tail + 1 == r->slots ? 0 : tail + 1);
}

/* ---- rounds ----------------------------------------------------------------- */

static void destroy_pd_cmd(void)
{
	cmd_destroy(OP_DEALLOC_PD, IB_USER_VERBS_CMD_DEALLOC_PD, K_PD, 0);
}

static void destroy_mr_cmd(void)
{
	cmd_destroy(OP_DEREG_MR, IB_USER_VERBS_CMD_DEREG_MR, K_MR, 0);
}

static void destroy_ah_cmd(void)
{
	cmd_destroy(OP_DESTROY_AH, IB_USER_VERBS_CMD_DESTROY_AH, K_AH, 0);
}

static void destroy_cq_cmd(void)
{
	cmd_destroy(OP_DESTROY_CQ, IB_USER_VERBS_CMD_DESTROY_CQ, K_CQ,
		    sizeof(struct ib_uverbs_destroy_cq_resp));
}

static void destroy_qp_cmd(void)
{
	cmd_destroy(OP_DESTROY_QP, IB_USER_VERBS_CMD_DESTROY_QP, K_QP,
		    sizeof(struct ib_uverbs_destroy_qp_resp));
}

static void destroy_srq_cmd(void)
{
	cmd_destroy(OP_DESTROY_SRQ, IB_USER_VERBS_CMD_DESTROY_SRQ, K_SRQ,
		    sizeof(struct ib_uverbs_destroy_srq_resp));
}

static void poll_cq_cmd(void)
{
	cmd_poll_cq(0, 0, NULL);
}

static void post_send_cmd(void)
{
	cmd_post(OP_POST_SEND);
}

static void post_recv_cmd(void)
{
	cmd_post(OP_POST_RECV);
}

static void post_srq_recv_cmd(void)
{
	cmd_post(OP_POST_SRQ_RECV);
}

static void get_context_again(void)
{
	cmd_get_context(false);
}

static void attach_cmd(void)
{
	cmd_mcast(true);
}

static void detach_cmd(void)
{
	cmd_mcast(false);
}

/**
 * struct action - one kind of step, and how often it is taken
 * @weight: relative frequency
 * @run: the step
 */
struct action {
	unsigned int weight;
	void (*run)(void);
};

static const struct action actions[] = {
	{ 6, cmd_alloc_pd }, { 2, destroy_pd_cmd }, { 6, cmd_reg_mr },
	{ 2, destroy_mr_cmd }, { 1, cmd_rereg_mr }, { 1, cmd_alloc_mw },
	{ 3, cmd_create_ah }, { 2, destroy_ah_cmd }, { 2, attach_cmd },
	{ 2, detach_cmd }, { 1, cmd_create_comp_channel },
	{ 6, cmd_create_cq }, { 2, cmd_ex_create_cq }, { 3, cmd_resize_cq },
	{ 2, destroy_cq_cmd }, { 3, poll_cq_cmd }, { 2, cmd_req_notify_cq },
	{ 7, cmd_create_qp }, { 2, cmd_ex_create_qp }, { 6, act_modify_qp },
	{ 4, act_wire_pair }, { 2, cmd_query_qp }, { 2, destroy_qp_cmd },
	{ 8, post_send_cmd }, { 3, post_recv_cmd }, { 4, cmd_create_srq },
	{ 3, cmd_modify_srq }, { 1, cmd_query_srq }, { 2, destroy_srq_cmd },
	{ 3, post_srq_recv_cmd }, { 1, cmd_query_device },
	{ 1, cmd_query_port }, { 1, get_context_again },
	{ 1, cmd_open_xrcd_qp }, { 1, cmd_ex_query_device },
	{ 1, cmd_ex_modify_cq }, { 1, cmd_ex_other }, { 3, cmd_random },
	{ 1, cmd_raw_write }, { 3, ioc_random }, { 1, ioc_query_context },
	{ 1, ioc_query_port }, { 1, ioc_info_handles }, { 1, ioc_gid },
	{ 1, ioc_invoke_write }, { 2, ioc_create_cq }, { 2, ioc_create_qp },
	{ 3, ioc_destroy }, { 1, ioc_other }, { 3, act_mmap_random },
	{ 2, act_munmap }, { 1, act_read_events }, { 8, act_ring_post_recv },
	{ 4, act_ring_poll },
};

static void random_action(void)
{
	unsigned int i, total = 0, r;

	for (i = 0; i < ARRAY_SIZE(actions); i++)
		total += actions[i].weight;
	r = rnd(total);
	for (i = 0; r >= actions[i].weight; i++)
		r -= actions[i].weight;
	actions[i].run();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool open_device(void)
{
	describe("open %s", dev_path);
	timer_on();
	fd = open(dev_path, O_RDWR | O_CLOEXEC);
	timer_off();
	count(OP_OPEN, fd >= 0, errno);
	if (fd < 0) {
		failf("cannot open %s: %s", dev_path, strerror(errno));
		return false;
	}
	return true;
}

static void forget_context(void)
{
	memset(objs, 0, sizeof(objs));
	kmem_live = 0;
	ncookies = 0;
	nchans = 0;
	async_fd = -1;
	fd_shared = false;
}

/* Destroy what is live, in a random order (some refused: still in use). */
static void destroy_some(void)
{
	void (*const d[])(void) = { destroy_qp_cmd, destroy_srq_cmd,
		destroy_cq_cmd, destroy_mr_cmd, destroy_ah_cmd,
		destroy_pd_cmd, ioc_destroy };
	unsigned int i, n = 8 + rnd(40);

	for (i = 0; i < n; i++, step++)
		d[rnd(ARRAY_SIZE(d))]();
}

/*
 * End a round: maybe destroy some objects, then close the files and
 * unmap the rings in either order, with whatever is still live. Every
 * file above stderr goes, also ones random commands created.
 */
static void end_round(void)
{
	bool unmap_first = chance(50);

	if (chance(30))
		destroy_some();
	if (unmap_first)
		unmap_all_rings();
	describe("close the uverbs file and its event files");
	timer_on();
	close_range(3, ~0u, 0);
	timer_off();
	fd = -1;
	if (!unmap_first) {
		/* the rings are the file's last users now */
		while (nrings && chance(70)) {
			scribble();
			step++;
		}
		unmap_all_rings();
	}
	forget_context();
}

/* ---- children ----------------------------------------------------------------- */

static struct {
	pid_t pid;
	unsigned long kill_at;	/* parent step at which it gets SIGKILL */
} child;

static void fuzz_steps(unsigned long n, double deadline, unsigned long max);

/* The child: fuzz a while, on its own context or on the parent's, and
 * _exit() with whatever is live.
 */
static void child_main(__u64 seed, bool share)
{
	unsigned long n;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	is_child = true;
	rng = seed;
	failures = 0;
	fd_shared = share;	/* the parent may map our new cookies */
	if (!share) {
		memset(objs, 0, sizeof(objs));
		kmem_live = 0;
		ncookies = 0;
		if (!open_device() || !cmd_get_context(true))
			_exit(failures ? 1 : 0);
	}
	n = 50 + rnd(400);
	fuzz_steps(n, now() + 3600, ~0ul);
	fflush(stdout);
	_exit(failures ? 1 : 0);
}

static void spawn_child(void)
{
	__u64 seed = next64();
	bool share = chance(30);
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0)
		child_main(seed, share);
	children++;
	child.pid = pid;
	child.kill_at = step + 5 + rnd(300);
	fd_shared |= share;
	if (verbose)
		printf("step %lu: child %d (seed %#llx%s)\n", step, pid,
		       (unsigned long long)seed, share ? ", shares the fd" : "");
}

/* The child's end: its failures, a hang or crash, a death not by SIGKILL. */
static void reap_child(int status, bool killed)
{
	/* status 1: failures it counted in child_failures */
	if (WIFEXITED(status) && WEXITSTATUS(status) > 1) {
		failf("the child (pid %d) exited with status %d", child.pid,
		      WEXITSTATUS(status));
	} else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
		failf("the child (pid %d) died of signal %d", child.pid,
		      WTERMSIG(status));
	}
	if (killed)
		children_killed++;
	else
		children_exited++;
	failures += __atomic_exchange_n(child_failures, 0, __ATOMIC_RELAXED);
	child.pid = 0;
}

/* Kill the child; it must be gone within CALL_TIMEOUT seconds. */
static void kill_child(void)
{
	double until = now() + CALL_TIMEOUT;
	int status;

	snprintf(desc, sizeof(desc), "SIGKILL to the child (pid %d)", child.pid);
	kill(child.pid, SIGKILL);
	while (waitpid(child.pid, &status, WNOHANG) == 0) {
		if (now() > until) {
			failf("the child is not gone %d s after SIGKILL",
			      CALL_TIMEOUT);
			child.pid = 0;
			return;
		}
		usleep(10000);
	}
	reap_child(status, true);
}

static void tend_child(void)
{
	int status;

	if (!child.pid)
		return;
	if (waitpid(child.pid, &status, WNOHANG) == child.pid)
		reap_child(status, false);
	else if (step >= child.kill_at)
		kill_child();
}

/* @n steps (or until @deadline, or step @max), each maybe after a scribble. */
static void fuzz_steps(unsigned long n, double deadline, unsigned long max)
{
	unsigned long i;

	for (i = 0; i < n && step < max; i++, step++) {
		if ((i & 15) == 0 && now() > deadline)
			break;
		sane = chance(50);
		if (chance(25))
			scribble();
		random_action();
		if (!is_child) {
			tend_child();
			if (!child.pid && !exact_mode && !rnd(200) &&
			    !getenv("UVERBS_FUZZ_NO_FORK"))
				spawn_child();
		}
	}
}

static void fuzz_round(double deadline, unsigned long max)
{
	rounds++;
	if (!open_device())
		return;
	/* now and then commands before there is a context */
	if (chance(5))
		fuzz_steps(1 + rnd(5), deadline, max);
	cmd_get_context(chance(90));
	fuzz_steps(20 + rnd(300), deadline, max);
	end_round();
}

/* ---- setup ---------------------------------------------------------------------- */

/*
 * Cap what the process can pin: root's CAP_IPC_LOCK bypasses
 * RLIMIT_MEMLOCK, so it is dropped from every set first.
 */
static void limit_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct rlimit rl = { MEMLOCK_BYTES, MEMLOCK_BYTES };
	unsigned int bit = CAP_IPC_LOCK;

	if (syscall(SYS_capget, &h, d)) {
		perror("capget");
		exit(2);
	}
	d[bit / 32].effective &= ~(1u << (bit % 32));
	d[bit / 32].permitted &= ~(1u << (bit % 32));
	d[bit / 32].inheritable &= ~(1u << (bit % 32));
	if (syscall(SYS_capset, &h, d)) {
		perror("capset");
		exit(2);
	}
	prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0);
	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		perror("setrlimit");
		exit(2);
	}
	if (syscall(SYS_capget, &h, d) ||
	    (d[bit / 32].effective & (1u << (bit % 32)))) {
		fprintf(stderr, "CAP_IPC_LOCK still effective\n");
		exit(2);
	}
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* /dev/infiniband/uverbsN of the device named @name. */
static bool find_uverbs(const char *name)
{
	DIR *d = opendir("/sys/class/infiniband_verbs");
	struct dirent *e;
	char path[320], ibdev[64];
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_verbs/%s/ibdev", e->d_name);
		if (!read_line(path, ibdev, sizeof(ibdev)) ||
		    strcmp(ibdev, name))
			continue;
		snprintf(dev_path, sizeof(dev_path), "/dev/infiniband/%.40s",
			 e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

static void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_crash;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * The driver id the ioctl path wants: the one with which QUERY_PORT of
 * port 1 works (any other is EINVAL before the method is looked at).
 */
static bool learn_driver_id(void)
{
	for (driver_id = 0; driver_id < 64; driver_id++) {
		struct ioc c;

		ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
		ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, CONST_IN, 1, 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_RESP,
			 sizeof(struct ib_uverbs_query_port_resp_ex),
			 out_ptr(0), 0);
		c.hdr.length = (__u16)(sizeof(c.hdr) + 2 * sizeof(c.attrs[0]));
		if (!ioctl(fd, RDMA_VERBS_IOCTL, &c))
			return true;
	}
	return false;
}

/* The device's limits, the port's LID, the driver id, with exact calls. */
static bool learn_device(void)
{
	bool ok;

	exact_mode = true;
	sane = true;
	ok = open_device() && cmd_get_context(true);
	if (ok) {
		cmd_query_device();
		cmd_query_port();
		ok = learn_driver_id();
	}
	close_range(3, ~0u, 0);
	fd = -1;
	forget_context();
	exact_mode = false;
	if (!ok || !lim.max_cqe || !lim.lid) {
		fprintf(stderr, "cannot query %s\n", dev_path);
		return false;
	}
	printf("device: max_cqe %u max_qp_wr %u max_sge %u max_srq_wr %u\n",
	       lim.max_cqe, lim.max_qp_wr, lim.max_sge, lim.max_srq_wr);
	printf("device: ports %u lid %u driver_id %u\n", lim.ports, lim.lid,
	       driver_id);
	return true;
}

/* ---- the data check -------------------------------------------------------------- */

#define DC_BYTES 64

static struct obj *dc_qp(__u32 pd, __u32 cq)
{
	struct ib_uverbs_create_qp c = {
		.pd_handle = pd, .send_cq_handle = cq, .recv_cq_handle = cq,
		.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
		.max_recv_sge = 1, .qp_type = IB_UVERBS_QPT_RC };
	struct ib_uverbs_create_qp_resp r;
	struct wreq w;

	describe("data check: CREATE_QP");
	wreq_init(&w, OP_CREATE_QP, IB_USER_VERBS_CMD_CREATE_QP, &c,
		  sizeof(c), sizeof(r));
	w.drv_out = sizeof(__u64);
	if (!wsubmit(&w) || !w.resp)
		return NULL;
	memcpy(&r, w.resp, sizeof(r));
	new_qp(&w, &r, IB_UVERBS_QPT_RC, false, pd);
	return find_live_handle(r.qp_handle);
}

/* Post the receive of the data check into the newest RQ ring. */
static bool dc_post_recv(struct obj *mr)
{
	struct ring *r = nrings ? &rings[nrings - 1] : NULL;
	struct ib_uverbs_sge s = { mr->mr.iova + PAGE, DC_BYTES, mr->mr.lkey };
	char *e;

	if (!r || r->kind != RING_RQ)
		return false;
	e = r->addr + RING_HDR;
	memcpy(e, &(__u64){ 0xb }, sizeof(__u64));
	e[8] = 1;
	memcpy(e + RWQE_BYTES, &s, sizeof(s));
	ring_store(r, 4, 0);
	ring_store(r, 0, 1);
	return true;
}

static bool dc_post_send(struct obj *qp, struct obj *mr)
{
	struct {
		struct ib_uverbs_post_send h;
		struct ib_uverbs_send_wr wr;
		struct ib_uverbs_sge sge;
	} c = { 0 };
	struct wreq w;

	c.h.qp_handle = qp->handle;
	c.h.wr_count = 1;
	c.h.sge_count = 1;
	c.h.wqe_size = sizeof(c.wr);
	c.wr.wr_id = 0xa;
	c.wr.num_sge = 1;
	c.wr.opcode = IB_UVERBS_WR_SEND;
	c.wr.send_flags = SEND_SIGNALED;
	c.sge = (struct ib_uverbs_sge){ mr->mr.iova, DC_BYTES, mr->mr.lkey };
	describe("data check: POST_SEND");
	wreq_init(&w, OP_POST_SEND, IB_USER_VERBS_CMD_POST_SEND, &c,
		  sizeof(c), sizeof(struct ib_uverbs_post_send_resp));
	return wsubmit(&w);
}

/* Wait for the two completions (send 0xa, receive 0xb), both successful. */
static bool dc_completions(__u32 cq)
{
	struct ib_uverbs_wc wc[4];
	double until = now() + 10;
	int n, got = 0, i;

	while (got < 2 && now() < until) {
		n = cmd_poll_cq(cq, 4, wc);
		if (n < 0)
			return false;
		for (i = 0; i < n; i++) {
			if (wc[i].status) {
				printf("data check: wr %llu status %u\n",
				       (unsigned long long)wc[i].wr_id,
				       wc[i].status);
				return false;
			}
		}
		got += n;
		if (got < 2)
			usleep(10000);
	}
	return got == 2;
}

static bool dc_setup(struct obj **mr, __u32 *cq)
{
	struct ib_uverbs_reg_mr m = { 0 };
	struct wreq w;
	struct obj *pd;

	cmd_alloc_pd();
	pd = pick_live(K_PD);
	if (!pd)
		return false;
	m.start = (__u64)(unsigned long)arena;
	m.length = 2 * PAGE;
	m.hca_va = m.start;
	m.pd_handle = pd->handle;
	m.access_flags = ACC_LOCAL_WRITE | ACC_REMOTE_WRITE | ACC_REMOTE_READ;
	describe("data check: REG_MR");
	wreq_init(&w, OP_REG_MR, IB_USER_VERBS_CMD_REG_MR, &m, sizeof(m),
		  sizeof(struct ib_uverbs_reg_mr_resp));
	if (!wsubmit(&w) || !w.resp)
		return false;
	*mr = add_obj(K_MR, *(__u32 *)w.resp, 0);
	(*mr)->pd = pd->handle;
	(*mr)->mr.iova = m.hca_va;
	(*mr)->mr.len = m.length;
	memcpy(&(*mr)->mr.lkey, w.resp + 4, 4);
	cmd_create_cq();	/* exact mode: kernel-polled, no ring */
	if (!pick_live(K_CQ))
		return false;
	*cq = pick_live(K_CQ)->handle;
	return true;
}

/*
 * After fuzzing: a new context, two RC QPs wired to each other, one SEND
 * of DC_BYTES: it must complete on both sides with the data intact.
 * Return: NULL if it did, else what went wrong (the call is in desc).
 */
static const char *data_check_steps(void)
{
	struct obj *mr, *a, *b;
	__u32 cq, s, pd;
	unsigned int i;

	if (!open_device() || !cmd_get_context(true))
		return "no context";
	if (!dc_setup(&mr, &cq))
		return "no PD, MR or CQ";
	pd = mr->pd;
	a = dc_qp(pd, cq);
	b = dc_qp(pd, cq);
	if (!a || !b)
		return "no QP";
	if (!dc_post_recv(mr))
		return "no receive ring mapped";
	for (s = QPS_INIT; s <= QPS_RTS; s++)
		if (!cmd_modify_qp(a, s, b->qp.qpn, false) ||
		    !cmd_modify_qp(b, s, a->qp.qpn, false))
			return "modify refused";
	for (i = 0; i < DC_BYTES; i++)
		arena[i] = (char)next64();
	memset(arena + PAGE, 0, DC_BYTES);
	if (!dc_post_send(a, mr))
		return "post refused";
	if (!dc_completions(cq))
		return "no completions, or failed ones";
	if (memcmp(arena, arena + PAGE, DC_BYTES))
		return "the bytes received differ from those sent";
	return NULL;
}

static void data_check(void)
{
	const char *why;

	exact_mode = true;
	sane = true;
	why = data_check_steps();
	if (why)
		failf("data check after fuzzing (an RC SEND between two new QPs): %s",
		      why);
	unmap_all_rings();
	close_range(3, ~0u, 0);
	fd = -1;
	forget_context();
	exact_mode = false;
}

/* ---- main ---------------------------------------------------------------------- */

static void print_summary(__u64 seed)
{
	unsigned int i, e;

	printf("summary: seed %llu, %lu rounds, %lu steps, %lu scribbles, %lu ring receives\n",
	       (unsigned long long)seed, rounds, step, scribbles, ring_posts);
	printf("summary: completions %lu polled through the kernel, %lu from rings\n",
	       wcs_polled, ring_wcs);
	printf("summary: children %lu (killed %lu, exited %lu)\n", children,
	       children_killed, children_exited);
	printf("%-22s %8s %8s  errnos\n", "call", "calls", "ok");
	for (i = 0; i < NR_OPS; i++) {
		if (!stats[i].calls)
			continue;
		printf("%-22s %8lu %8lu ", op_names[i], stats[i].calls,
		       stats[i].ok);
		for (e = 0; e < MAX_ERRNO; e++)
			if (stats[i].err[e])
				printf(" %s:%lu", e ? strerrorname_np(e) : "?",
				       stats[i].err[e]);
		printf("\n");
	}
	printf("failures: %lu\n", failures);
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: uverbs_fuzz --device NAME [--seed S] [--seconds N] [--steps N]\n"
		"                   [--avoid BUG,...] [--no-fork] [--verbose]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	__u64 seed = 1;
	double seconds = 60, deadline;
	unsigned long max_steps = ~0ul;
	bool bad_avoid = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			dev = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			max_steps = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--avoid") && i + 1 < argc)
			bad_avoid |= !parse_avoid(argv[++i]);
		else if (!strcmp(argv[i], "--no-fork"))
			setenv("UVERBS_FUZZ_NO_FORK", "1", 1);
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else
			print_usage();
	}
	if (!dev || bad_avoid)
		print_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!find_uverbs(dev)) {
		fprintf(stderr, "no uverbs device for %s\n", dev);
		return 2;
	}
	printf("uverbs_fuzz: device %s (%s), seed %llu, %.0f s, avoiding %#x\n",
	       dev, dev_path, (unsigned long long)seed, seconds, avoid);
	install_handlers();
	limit_privileges();
	setup_memory();
	rng = seed;
	if (!learn_device())
		return 2;
	deadline = now() + seconds;
	while (now() < deadline && step < max_steps)
		fuzz_round(deadline, max_steps);
	if (child.pid)
		kill_child();
	data_check();
	print_summary(seed);
	return failures ? 1 : 0;
}
