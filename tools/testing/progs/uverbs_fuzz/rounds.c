// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: steps, rounds, and the children forked to fuzz beside the
 * parent.
 */
#include "fuzz.h"

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

	for (i = 0; i < NELEMS(actions); i++)
		total += actions[i].weight;
	r = rnd(total);
	for (i = 0; r >= actions[i].weight; i++)
		r -= actions[i].weight;
	actions[i].run();
}

/* The uverbs file is closed: nothing of its context is there any more. */
void forget_context(void)
{
	forget_objects();
	forget_cookies();
	forget_files();
}

/* Close every file above stderr, and forget the context they held. */
void close_context(void)
{
	close_range(3, ~0u, 0);
	fd = -1;
	forget_context();
}

/* Destroy what is live, in a random order (some refused: still in use). */
static void destroy_some(void)
{
	void (*const d[])(void) = { destroy_qp_cmd, destroy_srq_cmd,
		destroy_cq_cmd, destroy_mr_cmd, destroy_ah_cmd,
		destroy_pd_cmd, ioc_destroy };
	unsigned int i, n = 8 + rnd(40);

	for (i = 0; i < n; i++, step++)
		d[rnd(NELEMS(d))]();
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
		while (newest_ring() && chance(70)) {
			scribble();
			step++;
		}
		unmap_all_rings();
	}
	forget_context();
}

/* The child fuzzing beside this process, if there is one. */
static struct {
	pid_t pid;
	unsigned long kill_at;	/* parent step at which it gets SIGKILL */
} child;

static void fuzz_steps(unsigned long n, double deadline, unsigned long max);

/*
 * The child: fuzz a while, on its own context or on the parent's, and
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
		forget_objects();
		forget_cookies();
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

void fuzz_round(double deadline, unsigned long max)
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

/* The run is over: a child still fuzzing is killed, and must go. */
void stop_child(void)
{
	if (child.pid)
		kill_child();
}
