// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: the traffic. Posters post to the senders until the flow's
 * deadline, each taking what its work request needs first: a send slot
 * for the message it writes (SEND, WRITE), a remote write slot (WRITE),
 * a local read slot (READ), a receive credit of each receive pool the
 * message will reach (SEND, WRITE with immediate), and a send queue
 * entry. The ledger gives them back as the completions come, so no
 * buffer is reused while a request may still read or write it, no
 * message finds its receive queue empty (no RNR, no UD drop) and no post
 * finds the send queue full. Pollers poll the one CQ and hand each
 * completion to the ledger.
 */
#include <linux/delay.h>
#include "stress.h"

static enum st_kind st_pick_kind(const struct st_flow *f, u32 seq)
{
	static const enum st_kind rc_mix[] = {
		ST_SEND, ST_WRITE_IMM, ST_SEND, ST_WRITE, ST_READ,
	};

	if (f->c->type != IB_QPT_RC)
		return ST_SEND;
	return rc_mix[seq % ARRAY_SIZE(rc_mix)];
}

/* Take a credit of every live pool the message reaches, or none. */
static bool st_take_credits(struct st_flow *f, unsigned int t)
{
	unsigned int i, taken = 0;

	for (i = 0; i < f->nrx; i++) {
		struct st_rx *rx = &f->rx[i];

		if (!st_reaches(f, t, i) || READ_ONCE(rx->dead) ||
		    READ_ONCE(rx->detached))
			continue;
		if (!atomic_add_unless(&rx->credits, -1, 0))
			goto give_back;
		taken |= BIT(i);
	}
	return true;
give_back:
	for (i = 0; i < f->nrx; i++)
		if (taken & BIT(i))
			atomic_inc(&f->rx[i].credits);
	return false;
}

/*
 * Claim the slots for @kind; a busy write or read slot turns the request
 * into a SEND. Return: the kind claimed, or 0 if the send slot is busy.
 */
static enum st_kind st_claim_slots(struct st_poster *p, enum st_kind kind,
				   unsigned int slot)
{
	if (kind == ST_READ) {
		if (!atomic_cmpxchg(&p->read_ref[slot], 0, 1))
			return ST_READ;
		kind = ST_SEND;
	}
	if (atomic_cmpxchg(&p->send_ref[slot], 0, 1))
		return 0;
	if (kind == ST_WRITE || kind == ST_WRITE_IMM) {
		/* A WRITE with immediate is also released by its receive. */
		int refs = kind == ST_WRITE_IMM ? 2 : 1;

		if (atomic_cmpxchg(&p->write_ref[slot], 0, refs))
			kind = ST_SEND;
	}
	return kind;
}

/* Undo st_claim_slots() for a request that was not posted. */
static void st_unclaim_slots(struct st_poster *p, enum st_kind kind,
			     unsigned int slot)
{
	if (kind == ST_READ) {
		atomic_set(&p->read_ref[slot], 0);
		return;
	}
	atomic_set(&p->send_ref[slot], 0);
	if (kind != ST_SEND)
		atomic_set(&p->write_ref[slot], 0);
}

/* Build and post the request; its buffers and credits are taken. */
static int st_post(struct st_poster *p, enum st_kind kind, u32 seq,
		   struct ib_qp *qp)
{
	struct st_flow *f = p->f;
	unsigned int t = p->idx, slot = seq % ST_SLOTS;
	struct ib_sge sge = { .lkey = f->lkey };
	union {
		struct ib_send_wr wr;
		struct ib_rdma_wr rdma;
		struct ib_ud_wr ud;
	} u = { };
	static const enum ib_wr_opcode opcode[] = {
		[ST_SEND] = IB_WR_SEND,
		[ST_WRITE_IMM] = IB_WR_RDMA_WRITE_WITH_IMM,
		[ST_WRITE] = IB_WR_RDMA_WRITE,
		[ST_READ] = IB_WR_RDMA_READ,
	};

	if (kind == ST_READ) {
		unsigned int src = seq % ST_READ_SRCS;
		struct st_hdr *dst = (struct st_hdr *)st_local_slot(f, t, true,
								    slot);

		/* A READ that wrote nothing must not pass for one that did. */
		memset(dst, 0, sizeof(*dst));
		sge.addr = (uintptr_t)dst;
		sge.length = st_msg_len(ST_MAX_THREADS, src);
		u.rdma.remote_addr = (uintptr_t)st_read_src(f, src);
		u.rdma.rkey = f->rkey;
	} else {
		struct st_hdr *h = (struct st_hdr *)st_local_slot(f, t, false,
								  slot);

		st_fill(h, t, kind, seq);
		sge.addr = (uintptr_t)h;
		sge.length = h->len;
	}
	u.wr.wr_id = st_wr_id(kind, t, seq);
	u.wr.opcode = opcode[kind];
	u.wr.send_flags = IB_SEND_SIGNALED;
	u.wr.sg_list = &sge;
	u.wr.num_sge = 1;
	u.wr.ex.imm_data = cpu_to_be32(t << 24 | (seq & 0xffffff));
	if (f->c->type == IB_QPT_UD) {
		u.ud.ah = f->ah;
		u.ud.remote_qpn = f->remote_qpn;
		u.ud.remote_qkey = ST_QKEY;
	} else if (kind == ST_WRITE || kind == ST_WRITE_IMM) {
		u.rdma.remote_addr = (uintptr_t)st_write_slot(f, t, slot);
		u.rdma.rkey = f->rkey;
	}
	return ib_post_send(qp, &u.wr, NULL);
}

/*
 * Post sequence number @seq of poster @p. Return: 0 when posted, -EAGAIN
 * to try it again (resources busy, queue full, or a refusal the case
 * allows), or another errno when the poster must stop.
 */
static int st_post_one(struct st_poster *p, u32 seq)
{
	struct st_flow *f = p->f;
	unsigned int pair = p->idx % f->c->pairs, slot = seq % ST_SLOTS;
	/* Pairs with the controller's release once the event is over. */
	bool after = smp_load_acquire(&f->event_done);
	enum st_kind kind;
	int ret;

	kind = st_claim_slots(p, st_pick_kind(f, seq), slot);
	if (!kind)
		goto busy;
	if (st_consumes_rx(kind) && !st_take_credits(f, p->idx))
		goto unclaim;
	if (!atomic_add_unless(&f->sq_credits[pair], -1, 0))
		goto uncredit;
	/* Set before the post: its completion may be polled at once. */
	if (after && p->first_after == ST_NO_SEQ)
		WRITE_ONCE(p->first_after, seq);
	ret = st_post(p, kind, seq, f->a[pair]);
	if (!ret)
		return 0;
	atomic_inc(&f->sq_credits[pair]);
	if (st_consumes_rx(kind))
		st_give_credits(f, p->idx);
	st_unclaim_slots(p, kind, slot);
	if (ret == -ENOMEM) {
		p->retries++;
		goto busy;
	}
	if (f->c->refuse_after && READ_ONCE(f->event_started)) {
		p->refused++;
		usleep_range(100, 200);
		return -EAGAIN;
	}
	st_fail(f, "poster %u seq %u: post refused: %d", p->idx, seq, ret);
	return ret;

uncredit:
	if (st_consumes_rx(kind))
		st_give_credits(f, p->idx);
unclaim:
	st_unclaim_slots(p, kind, slot);
busy:
	usleep_range(20, 50);
	return -EAGAIN;
}

int st_poster_fn(void *data)
{
	struct st_poster *p = data;
	struct st_flow *f = p->f;
	u32 seq = 0;
	int ret;

	while (!kthread_should_stop() && time_before(jiffies, f->deadline)) {
		if (seq == ST_MAX_SEQ) {
			p->capped = true;
			break;
		}
		ret = st_post_one(p, seq);
		if (!ret)
			WRITE_ONCE(p->posted, ++seq);
		else if (ret != -EAGAIN)
			break;
	}
	/* Publishes posted and the counters to st_stop_posters(). */
	smp_store_release(&p->idle, true);
	/* kthread_stop() wants the thread alive. */
	while (!kthread_should_stop())
		usleep_range(5000, 10000);
	return 0;
}

/* Poll a batch and account for it. Return: how many completions. */
int st_poll_some(struct st_flow *f)
{
	struct ib_wc wc[8];
	int i, n;

	n = ib_poll_cq(f->cq, ARRAY_SIZE(wc), wc);
	for (i = 0; i < n; i++) {
		if (st_id_kind(wc[i].wr_id) == ST_RECV)
			st_account_recv(f, &wc[i]);
		else
			st_account_send(f, &wc[i]);
	}
	return max(n, 0);
}

int st_poller_fn(void *data)
{
	struct st_flow *f = data;

	while (!kthread_should_stop())
		if (!st_poll_some(f))
			usleep_range(50, 100);
	return 0;
}
