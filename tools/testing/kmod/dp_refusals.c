// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test: requests the responder refuses. On RC, each case checks
 * what both sides see: the requester's completions (the refused request's
 * and the flush of the one behind it) and state, the completion of the
 * receive the responder had posted and its state, no asynchronous event,
 * the port's loopback counters, and that no data moved. These are the
 * statuses hfi1's and qib's RC receive paths give a peer on another node,
 * and the ones upstream's loopback gives: the distro's core must pass
 * every case as ours does, but read_without_responder_resources
 * (60-dp-kernel.sh's KNOWN_DIFF). UC drops what it refuses.
 */
#include "dp_test.h"

#define WR_REFUSED 0x21		/* the request the responder refuses */
#define WR_BEHIND 0x22		/* a SEND posted behind it */
#define WR_RECV 0xbb		/* the receive the responder posted */
#define RESULT_OFF PAGE_SIZE	/* READ and atomic results, in loc */
#define RECV_OFF PAGE_SIZE	/* the posted receive's buffer, in rem */

/**
 * struct dpt_refusal - a request an RC responder refuses
 * @name: the test's name
 * @op: its opcode
 * @len: its length (8 for an atomic)
 * @off: its remote address's offset into the responder's region
 * @key_flip: bits flipped in the region's rkey
 * @qp_deny: access flags the responder QP lacks
 * @mr_deny: access flags the region lacks
 * @no_rd_atomic: the responder has no RDMA READ or atomic resources
 * @recv_len: the responder's posted receive's length (default 64)
 * @bad_recv_lkey: that receive's lkey is no key
 * @no_recv: the responder posts no receive
 * @rnr_retry_0: the requester's rnr_retry is 0 (else 7)
 * @a_status: the requester's completion of the request
 * @b_status: the completion of the responder's receive
 * @b_rts: the responder stays in RTS (else it goes to ERR)
 * @rnr_naks: RNR NAKs the port counts
 */
struct dpt_refusal {
	const char *name;
	enum ib_wr_opcode op;
	u32 len;
	u64 off;
	u32 key_flip;
	int qp_deny;
	int mr_deny;
	bool no_rd_atomic;
	u32 recv_len;
	bool bad_recv_lkey;
	bool no_recv;
	bool rnr_retry_0;
	enum ib_wc_status a_status;
	enum ib_wc_status b_status;
	bool b_rts;
	unsigned int rnr_naks;
};

static const struct dpt_refusal refusals[] = {
	/* The QP lacks the access flag: Invalid Request NAK. */
	{ .name = "write_qp_without_remote_write", .op = IB_WR_RDMA_WRITE,
	  .len = 64, .qp_deny = IB_ACCESS_REMOTE_WRITE,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "write_imm_qp_without_remote_write",
	  .op = IB_WR_RDMA_WRITE_WITH_IMM, .len = 64,
	  .qp_deny = IB_ACCESS_REMOTE_WRITE,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "read_qp_without_remote_read", .op = IB_WR_RDMA_READ,
	  .len = 64, .qp_deny = IB_ACCESS_REMOTE_READ,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "atomic_qp_without_remote_atomic",
	  .op = IB_WR_ATOMIC_FETCH_AND_ADD, .len = 8,
	  .qp_deny = IB_ACCESS_REMOTE_ATOMIC,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	/* The region refuses the key: Remote Access Error NAK. */
	{ .name = "write_bad_rkey", .op = IB_WR_RDMA_WRITE, .len = 64,
	  .key_flip = 1,
	  .a_status = IB_WC_REM_ACCESS_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	/* The receive is taken before the key is checked, as upstream does. */
	{ .name = "write_imm_bad_rkey", .op = IB_WR_RDMA_WRITE_WITH_IMM,
	  .len = 64, .key_flip = 1,
	  .a_status = IB_WC_REM_ACCESS_ERR, .b_status = IB_WC_LOC_PROT_ERR },
	{ .name = "read_bad_rkey", .op = IB_WR_RDMA_READ, .len = 64,
	  .key_flip = 1,
	  .a_status = IB_WC_REM_ACCESS_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "atomic_bad_rkey", .op = IB_WR_ATOMIC_CMP_AND_SWP, .len = 8,
	  .key_flip = 1,
	  .a_status = IB_WC_REM_ACCESS_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "write_out_of_bounds", .op = IB_WR_RDMA_WRITE, .len = 20,
	  .off = BUF_SIZE - 10,
	  .a_status = IB_WC_REM_ACCESS_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "write_mr_without_remote_write", .op = IB_WR_RDMA_WRITE,
	  .len = 64, .mr_deny = IB_ACCESS_REMOTE_WRITE,
	  .a_status = IB_WC_REM_ACCESS_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	/* No responder resources, a misaligned atomic: invalid requests. */
	{ .name = "read_without_responder_resources", .op = IB_WR_RDMA_READ,
	  .len = 8, .no_rd_atomic = true,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	{ .name = "atomic_misaligned", .op = IB_WR_ATOMIC_FETCH_AND_ADD,
	  .len = 8, .off = 4,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_WR_FLUSH_ERR },
	/* Too long: an invalid request; the receive in progress fails. */
	{ .name = "send_too_long", .op = IB_WR_SEND, .len = 200,
	  .recv_len = 100,
	  .a_status = IB_WC_REM_INV_REQ_ERR, .b_status = IB_WC_LOC_QP_OP_ERR },
	/* The responder's own fault: Remote Operational Error NAK. */
	{ .name = "recv_bad_lkey", .op = IB_WR_SEND, .len = 32,
	  .bad_recv_lkey = true,
	  .a_status = IB_WC_REM_OP_ERR, .b_status = IB_WC_LOC_PROT_ERR },
	/* An RNR NAK with no retries left: the responder is untouched. */
	{ .name = "rnr_retry_0", .op = IB_WR_SEND, .len = 32, .no_recv = true,
	  .rnr_retry_0 = true, .a_status = IB_WC_RNR_RETRY_EXC_ERR,
	  .b_rts = true, .rnr_naks = 1 },
};

/* The port counters loopback keeps. */
struct dpt_counts {
	u64 loop, rnr_naks, other_naks, drops;
};

static struct dpt_counts counts(void)
{
	const struct rvt_ibport *rvp = ib_to_rvt(env.ibdev)->ports[0];

	return (struct dpt_counts){
		.loop = READ_ONCE(rvp->n_loop_pkts),
		.rnr_naks = READ_ONCE(rvp->n_rnr_naks),
		.other_naks = READ_ONCE(rvp->n_other_naks),
		.drops = READ_ONCE(rvp->n_pkt_drops),
	};
}

/*
 * Post the request, with a SEND behind it, from @loc (data at 0, READ and
 * atomic results at RESULT_OFF) to @rem's region.
 */
static int post_refused(struct ib_qp *qp, const struct dpt_refusal *c,
			const struct dpt_buf *loc, const struct dpt_buf *rem)
{
	struct ib_send_wr behind = {
		.wr_id = WR_BEHIND, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_sge data = dma_sge(loc, 0, c->len);
	struct ib_sge result = dma_sge(loc, RESULT_OFF, c->len);
	u64 raddr = rem->mr->iova + c->off;
	u32 rkey = rem->mr->rkey ^ c->key_flip;
	struct ib_atomic_wr aw = {
		.remote_addr = raddr, .rkey = rkey, .swap = 1,
		.compare_add = c->op == IB_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ib_rdma_wr rw = { .remote_addr = raddr, .rkey = rkey };
	struct ib_send_wr sw = { };
	struct ib_send_wr *wr = &sw;

	switch (c->op) {
	case IB_WR_RDMA_READ:
		data = result;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wr = &rw.wr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		data = result;
		wr = &aw.wr;
		break;
	default:
		break;
	}
	wr->wr_id = WR_REFUSED;
	wr->opcode = c->op;
	wr->sg_list = &data;
	wr->num_sge = 1;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->ex.imm_data = cpu_to_be32(0xfeed);
	wr->next = &behind;
	return post_send(qp, wr);
}

/* Both sides' completions, states and events. */
static bool refusal_seen(struct dpt_pair *p, const struct dpt_refusal *c,
			 const char **why)
{
	if (!expect_wc(p->cq_a, WR_REFUSED, c->a_status, -1, NULL, why) ||
	    !expect_wc(p->cq_a, WR_BEHIND, IB_WC_WR_FLUSH_ERR, -1, NULL, why))
		return false;
	if (!c->no_recv &&
	    !expect_wc(p->cq_b, WR_RECV, c->b_status, -1, NULL, why))
		return false;
	*why = "a completion too many";
	if (!stays_empty(p->cq_a) || !stays_empty(p->cq_b))
		return false;
	*why = "requester not in ERR";
	if (qp_state(p->a) != IB_QPS_ERR)
		return false;
	*why = "responder's state";
	if (qp_state(p->b) != (c->b_rts ? IB_QPS_RTS : IB_QPS_ERR))
		return false;
	*why = "asynchronous event";
	return READ_ONCE(p->ev_a) == NO_EVENT && READ_ONCE(p->ev_b) == NO_EVENT;
}

/* Nothing counted but the RNR NAKs the case expects. */
static bool counted(const struct dpt_counts *before,
		    const struct dpt_refusal *c, const char **why)
{
	struct dpt_counts now = counts();

	*why = "port counters";
	return now.loop == before->loop && now.other_naks == before->other_naks &&
	       now.drops == before->drops &&
	       now.rnr_naks - before->rnr_naks == c->rnr_naks;
}

static void refusal(const struct dpt_refusal *c)
{
	struct dpt_opts o = opts(IB_QPT_RC);
	struct dpt_buf loc = {}, rem = {};
	const char *why = "setup";
	struct dpt_counts before;
	struct dpt_pair p = {};
	struct ib_sge rsg;
	bool ok = false;

	o.b_access = FULL_ACCESS & ~c->qp_deny;
	o.no_rd_atomic = c->no_rd_atomic;
	if (c->rnr_retry_0) {
		o.rnr_retry = 0;
		o.min_rnr_timer = 1;
	}
	if (buf_alloc(&loc) || buf_alloc(&rem) || pair_create(&p, &o) ||
	    buf_reg(&rem, p.a, p.cq_a, FULL_ACCESS & ~c->mr_deny))
		goto out;
	fill(loc.va, c->len, 5);
	rsg = dma_sge(&rem, RECV_OFF, c->recv_len ?: 64);
	if (c->bad_recv_lkey)
		rsg.lkey = 0x12345600;
	before = counts();
	why = "post";
	if ((!c->no_recv && post_recv(p.b, WR_RECV, &rsg, 1)) ||
	    post_refused(p.a, c, &loc, &rem))
		goto out;
	if (!refusal_seen(&p, c, &why) || !counted(&before, c, &why))
		goto out;
	why = "data moved";
	ok = !memchr_inv(rem.va, 0, BUF_SIZE) &&
	     !memchr_inv(loc.va + RESULT_OFF, 0, BUF_SIZE - RESULT_OFF);
out:
	pair_destroy(&p);
	buf_free(&loc);
	buf_free(&rem);
	report(ok, c->name, ok ? NULL : "%s", why);
}

void test_refusals(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refusals); i++)
		refusal(&refusals[i]);
}

/*
 * UC drops what it cannot take, silently: a message too long for the
 * receive request leaves the request for the next message.
 */
void test_uc_too_long(void)
{
	struct dpt_opts o = opts(IB_QPT_UC);
	const char *why = "setup";
	struct ib_sge rsg, ssg;
	struct dpt_buf buf;
	struct dpt_pair p;
	struct ib_wc wc;
	bool ok = false;

	if (buf_alloc(&buf) || pair_create(&p, &o))
		goto out;
	fill(buf.va, 200, 77);
	rsg = dma_sge(&buf, 4096, 100);
	ssg = dma_sge(&buf, 0, 200);
	why = "post";
	if (post_recv(p.b, 0xcc, &rsg, 1) ||
	    send_op(p.a, IB_WR_SEND, 22, &ssg, 1))
		goto out_pair;
	if (!expect_wc(p.cq_a, 22, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why))
		goto out_pair;
	why = "too long a message completed the receive";
	if (!stays_empty(p.cq_b) || qp_state(p.b) != IB_QPS_RTS)
		goto out_pair;
	ssg.length = 50;
	why = "post again";
	if (send_op(p.a, IB_WR_SEND, 23, &ssg, 1))
		goto out_pair;
	ok = expect_wc(p.cq_a, 23, IB_WC_SUCCESS, IB_WC_SEND, NULL, &why) &&
	     expect_wc(p.cq_b, 0xcc, IB_WC_SUCCESS, IB_WC_RECV, &wc, &why) &&
	     wc.byte_len == 50 && !memcmp(buf.va + 4096, buf.va, 50);
out_pair:
	pair_destroy(&p);
out:
	buf_free(&buf);
	report(ok, "uc_too_long_dropped", ok ? NULL : "%s", why);
}

/*
 * A UC RDMA WRITE the responder refuses: hfi1's and qib's UC receive paths
 * drop it (hfi1/uc.c, qib_uc.c: "goto drop" on the QP's access flag and on
 * rvt_rkey_ok()), so the requester completes it as sent, nothing moves and
 * the responder takes the next message.
 */
static void uc_write_refused(const char *name, int qp_deny, u32 key_flip)
{
	struct dpt_opts o = opts(IB_QPT_UC);
	struct dpt_buf loc = {}, rem = {};
	const char *why = "setup";
	struct dpt_pair p = {};
	struct ib_sge ssg, rsg;
	struct ib_wc wc;
	bool ok = false;

	o.b_access = FULL_ACCESS & ~qp_deny;
	if (buf_alloc(&loc) || buf_alloc(&rem) || pair_create(&p, &o) ||
	    buf_reg(&rem, p.a, p.cq_a, FULL_ACCESS))
		goto out;
	fill(loc.va, 64, 9);
	ssg = dma_sge(&loc, 0, 64);
	why = "post";
	if (rdma_op(p.a, IB_WR_RDMA_WRITE, WR_REFUSED, &ssg, 1,
		    rem.mr->iova, rem.mr->rkey ^ key_flip))
		goto out;
	if (!expect_wc(p.cq_a, WR_REFUSED, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		       NULL, &why))
		goto out;
	why = "the refused write moved data";
	if (memchr_inv(rem.va, 0, BUF_SIZE))
		goto out;
	why = "responder left RTS";
	if (qp_state(p.b) != IB_QPS_RTS || !stays_empty(p.cq_b))
		goto out;
	rsg = dma_sge(&rem, RECV_OFF, 64);
	why = "post a send behind it";
	if (post_recv(p.b, WR_RECV, &rsg, 1) ||
	    send_op(p.a, IB_WR_SEND, WR_BEHIND, &ssg, 1))
		goto out;
	ok = expect_wc(p.cq_a, WR_BEHIND, IB_WC_SUCCESS, IB_WC_SEND, NULL,
		       &why) &&
	     expect_wc(p.cq_b, WR_RECV, IB_WC_SUCCESS, IB_WC_RECV, &wc, &why) &&
	     wc.byte_len == 64 && !memcmp(rem.va + RECV_OFF, loc.va, 64);
out:
	pair_destroy(&p);
	buf_free(&loc);
	buf_free(&rem);
	report(ok, name, ok ? NULL : "%s", why);
}

void test_uc_write_refused(void)
{
	uc_write_refused("uc_write_qp_without_remote_write_dropped",
			 IB_ACCESS_REMOTE_WRITE, 0);
	uc_write_refused("uc_write_bad_rkey_dropped", 0, 1);
}
