// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Allocation-failure sweep (issue 10, suite 66-failnth): one call at a
 * time, fail its 1st kernel allocation, then its 2nd, ... until the call
 * makes fewer allocations than the one armed, with the kernel's per-task
 * fault injection (/proc/thread-self/fail-nth, which counts the slab and
 * page allocations of this task only).
 *
 * Usage: failnth user DEVICE OP...    verbs through libibverbs (uverbs)
 *        failnth kernel OP...         kernel verbs, through rvt_failnth.ko
 *        failnth load MODULE.ko [PARAMS]  loading a driver (registration)
 *        failnth load-sampled NAME MODULE.ko [PARAMS]
 *                                     the same, failing the first 64
 *                                     allocations, then the 128th, 256th,
 *                                     ...; the verdict line is named NAME
 *
 * For every call: prepare what it needs (unarmed), arm the Nth allocation,
 * make the call, see whether the injection fired, undo. A call may fail
 * only when an injection fired, and then with an errno; it may also
 * succeed (a failure the code absorbs, e.g. a fallback). One line per OP:
 *   OP NAME points P failed F absorbed A errnos ENOMEM:n,... verdict
 * and exit status 0 if every OP held. Leaks are kmemleak's to find (the
 * suite scans after this), and the suite sends traffic afterwards.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_POINTS 5000
#define PROGRESS_EVERY 100
#define MAX_ERRNO 134
#define MR_BYTES (64 * 1024)
#define MCAST_LID 0xc001
#define KOP_PATH "/sys/kernel/debug/rvt_failnth/op"

/* ---- fail-nth ---------------------------------------------------------- */

static int nth_fd = -1;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void nth_write(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		die("write fail-nth");
}

/* Arm the n-th allocation of this task from now on to fail. */
static void arm(unsigned int n)
{
	nth_write(n);
}

/*
 * Fail-nth counts down at every allocation of the task: armed far beyond
 * reach, what is left after a call tells how many the call made.
 */
#define COUNT_ONLY 1000000000U

static unsigned int nth_left(void)
{
	char buf[16];
	ssize_t len = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		die("read fail-nth");
	buf[len] = '\0';
	return strtoul(buf, NULL, 10);
}

/* Disarm; true if the armed allocation was reached (and failed). */
static bool disarm(void)
{
	if (nth_left() == 0)
		return true;
	nth_write(0);
	return false;
}

/* ---- one sweep ----------------------------------------------------------- */

/**
 * struct op - one call to sweep
 * @name: its name on the command line
 * @prepare: builds what @call needs, unarmed; 0 or an errno
 * @call: the call; 0 or an errno
 * @undo: destroys everything @prepare and @call built
 */
struct op {
	const char *name;
	int (*prepare)(void);
	int (*call)(void);
	void (*undo)(void);
};

struct tally {
	unsigned int points, failed, absorbed, bad;
	unsigned int errnos[MAX_ERRNO];
};

static void print_tally(const char *name, const struct tally *t)
{
	int e, sep = ' ';

	printf("OP %s points %u failed %u absorbed %u errnos", name,
	       t->points, t->failed, t->absorbed);
	for (e = 1; e < MAX_ERRNO; e++) {
		if (!t->errnos[e])
			continue;
		printf("%c%s:%u", sep, strerrorname_np(e) ?: "?", t->errnos[e]);
		sep = ',';
	}
	if (sep == ' ')
		printf(" -");
	printf(" %s\n", t->bad ? "FAIL" : "PASS");
	fflush(stdout);
}

/* What one armed call did; false if it broke the rules. */
static bool judge(const char *name, unsigned int n, int ret, bool fired,
		  struct tally *t)
{
	if (ret == 0) {
		t->absorbed += fired;
		return true;
	}
	if (!fired) {
		printf("# %s: failed with %s without an injected failure (n=%u)\n",
		       name, strerror(ret), n);
		return false;
	}
	if (ret < 0 || ret >= MAX_ERRNO) {
		printf("# %s: allocation %u failed: returned %d, no errno\n",
		       name, n, ret);
		return false;
	}
	t->failed++;
	t->errnos[ret]++;
	return true;
}

/*
 * How many allocations one unarmed call makes: the sweep's length, shown
 * with its progress (a sweep of a module load runs for long on the debug
 * kernel). Only an estimate: a call may allocate more or less next time.
 */
static unsigned int count_allocations(const struct op *op)
{
	unsigned int left;

	if (op->prepare && op->prepare())
		return 0;
	nth_write(COUNT_ONLY);
	op->call();
	left = nth_left();
	nth_write(0);
	op->undo();
	return COUNT_ONLY - left;
}

static void show_progress(const struct op *op, unsigned int n,
			  unsigned int total, bool sampled)
{
	if (sampled || n % PROGRESS_EVERY == 0)
		fprintf(stderr, "failnth: %s: allocation %u of about %u\n",
			op->name, n, total);
}

/*
 * The next allocation to fail after the n-th: every one, or (sampled)
 * every one of the first SAMPLED_DENSE and then the double, for calls
 * whose allocations are too many to fail one by one. A module load's
 * first ones are the registration's own (ib_alloc_device(), the port
 * data, sysfs): the IB core fails the registration for those, while it
 * absorbs the later ones, its clients' (a client that fails to add is
 * left out).
 */
#define SAMPLED_DENSE 64

static unsigned int next_point(unsigned int n, bool sampled)
{
	return sampled && n >= SAMPLED_DENSE ? 2 * n : n + 1;
}

static bool sweep(const struct op *op, bool sampled)
{
	unsigned int n, total = count_allocations(op);
	struct tally t = {};
	bool fired;
	int ret;

	fprintf(stderr, "failnth: %s: about %u allocations", op->name, total);
	if (sampled)
		fprintf(stderr, ", failing the first %u, then the double\n",
			SAMPLED_DENSE);
	else
		fprintf(stderr, " to fail\n");
	for (n = 1; n <= MAX_POINTS; n = next_point(n, sampled)) {
		show_progress(op, n, total, sampled);
		ret = op->prepare ? op->prepare() : 0;
		if (ret) {
			printf("# %s: prepare failed: %s\n", op->name,
			       strerror(ret));
			t.bad++;
			break;
		}
		arm(n);
		ret = op->call();
		fired = disarm();
		op->undo();
		t.bad += !judge(op->name, n, ret, fired, &t);
		if (!fired)
			break;
		t.points++;
	}
	if (n > MAX_POINTS) {
		printf("# %s: still injecting after %u points\n", op->name, n);
		t.bad++;
	}
	print_tally(op->name, &t);
	return !t.bad;
}

static const struct op *find_op(const struct op *ops, size_t n,
				const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	fprintf(stderr, "failnth: no op %s\n", name);
	exit(2);
}

/* ---- user verbs (libibverbs) ------------------------------------------ */

static struct {
	struct ibv_device *dev;
	struct ibv_context *ctx;	/* held across calls, but for ucontext */
	struct ibv_context *new_ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	bool attached;
	uint16_t lid;
	void *buf;
} u;

static const union ibv_gid mcast_gid = {
	.raw = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x42 },
};

/* libibverbs' object-returning calls: 0, or the errno they left. */
static int made(const void *obj)
{
	return obj ? 0 : (errno ?: EIO);
}

static int u_pd(void) { return made(u.pd = ibv_alloc_pd(u.ctx)); }

static int u_cq(void)
{
	return made(u.cq = ibv_create_cq(u.ctx, 64, NULL, NULL, 0));
}

static int u_qp(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = u.cq, .recv_cq = u.cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = type,
	};

	return made(u.qp = ibv_create_qp(u.pd, &attr));
}

static int u_srq(void)
{
	struct ibv_srq_init_attr attr = {
		.attr = { .max_wr = 16, .max_sge = 2 },
	};

	return made(u.srq = ibv_create_srq(u.pd, &attr));
}

/* u.qp, an RC QP connected to itself, one state on. */
static int u_qp_to(enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask = IBV_QP_STATE;

	if (state == IBV_QPS_INIT) {
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (state == IBV_QPS_RTR) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = u.qp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.dlid = u.lid;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	} else if (state == IBV_QPS_RTS) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(u.qp, &a, mask);
}

static int u_rc_before(enum ibv_qp_state state)
{
	int s, ret = u_pd() ?: u_cq() ?: u_qp(IBV_QPT_RC);

	for (s = IBV_QPS_INIT; !ret && s < (int)state; s++)
		ret = u_qp_to(s);
	return ret;
}

static void u_undo(void)
{
	if (u.attached)
		ibv_detach_mcast(u.qp, &mcast_gid, MCAST_LID);
	u.attached = false;
	if (u.ah)
		ibv_destroy_ah(u.ah);
	if (u.mr)
		ibv_dereg_mr(u.mr);
	if (u.qp)
		ibv_destroy_qp(u.qp);
	if (u.srq)
		ibv_destroy_srq(u.srq);
	if (u.cq)
		ibv_destroy_cq(u.cq);
	if (u.pd)
		ibv_dealloc_pd(u.pd);
	if (u.new_ctx)
		ibv_close_device(u.new_ctx);
	u.ah = NULL;
	u.mr = NULL;
	u.qp = NULL;
	u.srq = NULL;
	u.cq = NULL;
	u.pd = NULL;
	u.new_ctx = NULL;
}

static int u_call_ucontext(void)
{
	return made(u.new_ctx = ibv_open_device(u.dev));
}

static int u_call_resize_cq(void) { return ibv_resize_cq(u.cq, 512); }

static int u_call_resize_srq(void)
{
	struct ibv_srq_attr attr = { .max_wr = 256 };

	return ibv_modify_srq(u.srq, &attr, IBV_SRQ_MAX_WR);
}

static int u_call_mr(void)
{
	return made(u.mr = ibv_reg_mr(u.pd, u.buf, MR_BYTES,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE));
}

static int u_call_ah(void)
{
	struct ibv_ah_attr attr = { .dlid = u.lid, .port_num = 1 };

	return made(u.ah = ibv_create_ah(u.pd, &attr));
}

static int u_call_attach(void)
{
	int ret = ibv_attach_mcast(u.qp, &mcast_gid, MCAST_LID);

	u.attached = !ret;
	return ret;
}

static int u_prep_pd_cq(void) { return u_pd() ?: u_cq(); }
static int u_prep_cq(void) { return u_cq(); }
static int u_prep_srq(void) { return u_pd() ?: u_srq(); }
/* A UD QP in INIT: attaching one that never left RESET (no port) fails. */
static int u_ud_to_init(void)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
	};

	return ibv_modify_qp(u.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY);
}

static int u_prep_ud(void)
{
	return u_prep_pd_cq() ?: u_qp(IBV_QPT_UD) ?: u_ud_to_init();
}

static int u_prep_init(void) { return u_rc_before(IBV_QPS_INIT); }
static int u_prep_rtr(void) { return u_rc_before(IBV_QPS_RTR); }
static int u_prep_rts(void) { return u_rc_before(IBV_QPS_RTS); }
static int u_call_rc(void) { return u_qp(IBV_QPT_RC); }
static int u_call_uc(void) { return u_qp(IBV_QPT_UC); }
static int u_call_ud(void) { return u_qp(IBV_QPT_UD); }
static int u_call_init(void) { return u_qp_to(IBV_QPS_INIT); }
static int u_call_rtr(void) { return u_qp_to(IBV_QPS_RTR); }
static int u_call_rts(void) { return u_qp_to(IBV_QPS_RTS); }

static const struct op user_ops[] = {
	{ "ucontext", NULL, u_call_ucontext, u_undo },
	{ "pd", NULL, u_pd, u_undo },
	{ "cq", NULL, u_cq, u_undo },
	{ "cq-resize", u_prep_cq, u_call_resize_cq, u_undo },
	{ "qp-rc", u_prep_pd_cq, u_call_rc, u_undo },
	{ "qp-uc", u_prep_pd_cq, u_call_uc, u_undo },
	{ "qp-ud", u_prep_pd_cq, u_call_ud, u_undo },
	{ "qp-init", u_prep_init, u_call_init, u_undo },
	{ "qp-rtr", u_prep_rtr, u_call_rtr, u_undo },
	{ "qp-rts", u_prep_rts, u_call_rts, u_undo },
	{ "srq", u_pd, u_srq, u_undo },
	{ "srq-resize", u_prep_srq, u_call_resize_srq, u_undo },
	{ "mr", u_pd, u_call_mr, u_undo },
	{ "ah", u_pd, u_call_ah, u_undo },
	{ "mcast-attach", u_prep_ud, u_call_attach, u_undo },
};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void user_setup(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			u.dev = list[i];
	if (!u.dev) {
		fprintf(stderr, "failnth: no device %s\n", name);
		exit(2);
	}
	u.ctx = ibv_open_device(u.dev);
	if (!u.ctx || ibv_query_port(u.ctx, 1, &pa))
		die("open device");
	u.lid = pa.lid;
	u.buf = mmap(NULL, MR_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (u.buf == MAP_FAILED)
		die("mmap");
}

/* ---- kernel verbs (rvt_failnth.ko) ------------------------------------ */

static int kop_fd = -1;
static const char *kop_name;

static int kop(const char *verb)
{
	char cmd[48];
	int len = snprintf(cmd, sizeof(cmd), "%s%s%s", verb,
			   kop_name ? " " : "", kop_name ?: "");

	return pwrite(kop_fd, cmd, len, 0) == len ? 0 : errno;
}

static int k_prepare(void) { return kop("prepare"); }
static int k_call(void) { return kop("call"); }

static void k_undo(void)
{
	const char *name = kop_name;

	kop_name = NULL;
	if (kop("reset"))
		die("rvt_failnth reset");
	kop_name = name;
}

static bool kernel_sweep(const char *name)
{
	const struct op op = { name, k_prepare, k_call, k_undo };

	kop_name = name;
	return sweep(&op, false);
}

/* ---- module load ---------------------------------------------------------- */

static int ko_fd = -1;
static const char *ko_params = "";
static char ko_name[64];

static int load_call(void)
{
	return syscall(SYS_finit_module, ko_fd, ko_params, 0) ? errno : 0;
}

static void load_undo(void)
{
	/* A loaded module goes again; a failed load left nothing. */
	if (syscall(SYS_delete_module, ko_name, O_NONBLOCK) && errno != ENOENT)
		die("delete_module");
}

static bool load_sweep(const char *name, const char *path,
		       const char *params, bool sampled)
{
	const struct op op = { name, NULL, load_call, load_undo };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(ko_name, sizeof(ko_name), "%.*s",
		 (int)strcspn(base, "."), base);
	ko_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ko_fd < 0)
		die(path);
	ko_params = params;
	return sweep(&op, sampled);
}

/* ---- main ------------------------------------------------------------------- */

static void bad_usage(void)
{
	fputs("usage: failnth user DEVICE OP... | kernel OP...\n"
	      "       failnth load MODULE.ko [PARAMS]\n"
	      "       failnth load-sampled NAME MODULE.ko [PARAMS]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	bool ok = true;
	int i;

	if (argc < 3)
		bad_usage();
	/* No page faults of ours may meet an armed allocation. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		die("/proc/thread-self/fail-nth");
	if (!strcmp(argv[1], "load"))
		return load_sweep("load", argv[2], argc > 3 ? argv[3] : "",
				  false) ? 0 : 1;
	if (!strcmp(argv[1], "load-sampled") && argc > 3)
		return load_sweep(argv[2], argv[3], argc > 4 ? argv[4] : "",
				  true) ? 0 : 1;
	if (!strcmp(argv[1], "kernel")) {
		kop_fd = open(KOP_PATH, O_WRONLY | O_CLOEXEC);
		if (kop_fd < 0)
			die(KOP_PATH);
		for (i = 2; i < argc; i++)
			ok &= kernel_sweep(argv[i]);
		return ok ? 0 : 1;
	}
	if (strcmp(argv[1], "user") || argc < 4)
		bad_usage();
	user_setup(argv[2]);
	for (i = 3; i < argc; i++)
		ok &= sweep(find_op(user_ops, NELEMS(user_ops), argv[i]),
			    false);
	return ok ? 0 : 1;
}
