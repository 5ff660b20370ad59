// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: after fuzzing, an RC SEND between two new QPs must arrive. */
#include "fuzz.h"

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
	struct ring *r = newest_ring();
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

void data_check(void)
{
	const char *why;

	exact_mode = true;
	sane = true;
	why = data_check_steps();
	if (why)
		failf("data check after fuzzing (an RC SEND between two new QPs): %s",
		      why);
	unmap_all_rings();
	close_context();
	exact_mode = false;
}
