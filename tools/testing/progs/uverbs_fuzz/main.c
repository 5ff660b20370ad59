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
 *
 * The program's files, by concern, are listed in fuzz.h.
 */
#include "fuzz.h"

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
	close_context();
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
	stop_child();
	data_check();
	print_summary(seed);
	return failures ? 1 : 0;
}
