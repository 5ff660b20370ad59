// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: what is counted and reported: the calls and their
 * outcomes, failures, the call being made and its timer, the summary.
 */
#include "fuzz.h"

const char *const op_names[] = {
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
unsigned long failures, step, rounds, scribbles, ring_posts;
unsigned long wcs_polled, ring_wcs;	/* completions seen */
unsigned long children, children_killed, children_exited;
bool verbose, is_child;
/* The call being made, for failure reports and the hang message. */
char desc[384];
static char hang_msg[512];

const char *who(void)
{
	return is_child ? "child " : "";
}

void failf(const char *fmt, ...)
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

void describe(const char *fmt, ...)
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
void timer_on(void)
{
	snprintf(hang_msg, sizeof(hang_msg),
		 "FAIL %sstep %lu round %lu: %s: blocked for more than %d s\n",
		 who(), step, rounds, desc, CALL_TIMEOUT);
	alarm(CALL_TIMEOUT);
}

void timer_off(void)
{
	alarm(0);
}

/* Count the outcome of a call of kind @op: 0 or -1 with errno @err. */
void count(enum fuzz_op op, bool ok, int err)
{
	stats[op].calls++;
	if (ok)
		stats[op].ok++;
	else
		stats[op].err[err > 0 && err < MAX_ERRNO ? err : 0]++;
	if (verbose)
		printf("%s  -> %s\n", who(), ok ? "ok" : strerrorname_np(err));
}

void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_crash;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void print_summary(__u64 seed)
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
