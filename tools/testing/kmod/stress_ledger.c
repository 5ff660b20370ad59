// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: the ledger. Every completion is recorded where it belongs:
 * a send completion in its poster's bitmap of sequence numbers (a second
 * one is a duplicate), a receive in its pool's slot (one not posted is a
 * duplicate) and in its poster's bitmap of what that pool received. Each
 * payload is checked where it landed: a receive in its buffer, a WRITE
 * with immediate in the write slot its immediate names, a plain WRITE in
 * its write slot once it completed, a READ in its local slot. At the end
 * the verdict compares the bitmaps with what was posted: none missing,
 * none extra, the receives the case's rule asks for.
 */
#include <linux/crc32.h>
#include <linux/vmalloc.h>
#include "stress.h"

#define ST_BITMAP_BYTES (BITS_TO_LONGS(ST_MAX_SEQ) * sizeof(long))

int st_ledger_alloc(struct st_flow *f)
{
	unsigned int t, i;

	for (t = 0; t < f->nthreads; t++) {
		struct st_poster *p = &f->posters[t];

		p->f = f;
		p->idx = t;
		p->first_after = ST_NO_SEQ;
		atomic_set(&p->max_ok, -1);
		atomic_set(&p->min_err, INT_MAX);
		p->sent = vzalloc(ST_BITMAP_BYTES);
		p->want_rx = vzalloc(ST_BITMAP_BYTES);
		if (!p->sent || !p->want_rx)
			return -ENOMEM;
		for (i = 0; i < f->nrx; i++) {
			p->rcvd[i] = vzalloc(ST_BITMAP_BYTES);
			if (!p->rcvd[i])
				return -ENOMEM;
		}
	}
	return 0;
}

void st_ledger_free(struct st_flow *f)
{
	unsigned int t, i;

	for (t = 0; t < ST_MAX_THREADS; t++) {
		vfree(f->posters[t].sent);
		vfree(f->posters[t].want_rx);
		for (i = 0; i < ST_MAX_RX; i++)
			vfree(f->posters[t].rcvd[i]);
	}
	vfree(f->snap);
}

static void st_atomic_max(atomic_t *v, int x)
{
	int old = atomic_read(v);

	while (old < x && !atomic_try_cmpxchg(v, &old, x))
		;
}

static void st_atomic_min(atomic_t *v, int x)
{
	int old = atomic_read(v);

	while (old > x && !atomic_try_cmpxchg(v, &old, x))
		;
}

/* A plain WRITE or a READ that succeeded: is its data where it belongs? */
static void st_verify_rdma(struct st_flow *f, unsigned int t,
			   enum st_kind kind, u32 seq)
{
	unsigned int slot = seq % ST_SLOTS, src = seq % ST_READ_SRCS;
	const struct st_hdr *h;

	if (kind == ST_WRITE) {
		h = (const struct st_hdr *)st_write_slot(f, t, slot);
		if (!st_check(h, 0, t, seq, ~0U))
			st_fail(f, "poster %u seq %u: WRITE landed corrupt", t,
				seq);
	} else if (kind == ST_READ) {
		h = (const struct st_hdr *)st_local_slot(f, t, true, slot);
		if (!st_check(h, 0, ST_MAX_THREADS, src, ~0U) ||
		    h->csum != f->read_csum[src])
			st_fail(f, "poster %u seq %u: READ returned corrupt data",
				t, seq);
	}
}

static void st_send_ok(struct st_flow *f, struct st_poster *p,
		       enum st_kind kind, u32 seq, bool after)
{
	st_atomic_max(&p->max_ok, seq);
	if (f->c->rule == ST_ERR_AFTER && after)
		st_fail(f, "poster %u seq %u: success after the event",
			p->idx, seq);
	st_verify_rdma(f, p->idx, kind, seq);
	if (st_consumes_rx(kind))
		set_bit(seq, p->want_rx);
}

/* Give back a receive credit of every pool a message of poster @t reaches. */
void st_give_credits(struct st_flow *f, unsigned int t)
{
	unsigned int i;

	for (i = 0; i < f->nrx; i++)
		if (st_reaches(f, t, i))
			atomic_inc(&f->rx[i].credits);
}

static void st_send_err(struct st_flow *f, struct st_poster *p,
			enum st_kind kind, u32 seq, enum ib_wc_status status)
{
	st_atomic_min(&p->min_err, seq);
	if (f->c->rule == ST_ALL_OK || !(f->c->allowed & BIT(status)))
		st_fail(f, "poster %u seq %u: %s", p->idx, seq,
			ib_wc_status_msg(status));
	/* No receive may take it; over-crediting after an error is harmless. */
	if (st_consumes_rx(kind))
		st_give_credits(f, p->idx);
}

/* Give back what the request held: its slots and its send queue entry. */
static void st_release(struct st_flow *f, struct st_poster *p,
		       enum st_kind kind, u32 seq)
{
	unsigned int slot = seq % ST_SLOTS;

	if (kind == ST_READ) {
		atomic_dec(&p->read_ref[slot]);
	} else {
		atomic_dec(&p->send_ref[slot]);
		if (kind != ST_SEND)
			atomic_dec(&p->write_ref[slot]);
	}
	atomic_inc(&f->sq_credits[p->idx % f->c->pairs]);
}

void st_account_send(struct st_flow *f, const struct ib_wc *wc)
{
	enum st_kind kind = st_id_kind(wc->wr_id);
	unsigned int t = st_id_thread(wc->wr_id);
	u32 seq = st_id_seq(wc->wr_id);
	struct st_poster *p;

	if (kind < ST_SEND || kind > ST_READ || t >= f->nthreads ||
	    seq >= ST_MAX_SEQ) {
		st_fail(f, "completion of unknown wr_id %#llx, %s", wc->wr_id,
			ib_wc_status_msg(wc->status));
		return;
	}
	p = &f->posters[t];
	if (test_and_set_bit(seq, p->sent)) {
		st_fail(f, "poster %u seq %u completed twice", t, seq);
		return;
	}
	atomic64_inc(&f->completions);
	if (wc->status == IB_WC_SUCCESS)
		st_send_ok(f, p, kind, seq, seq >= READ_ONCE(p->first_after));
	else
		st_send_err(f, p, kind, seq, wc->status);
	st_release(f, p, kind, seq);
}

/* Repost a consumed receive, unless its pool is gone or being flushed. */
static void st_recycle(struct st_flow *f, unsigned int rxi, unsigned int slot)
{
	struct st_rx *rx = &f->rx[rxi];
	int ret;

	if (READ_ONCE(f->flushing))
		return;
	down_read(&f->teardown);
	if (!rx->dead) {
		ret = st_post_rx(f, rxi, slot);
		if (ret)
			st_fail(f, "repost of a receive: %d", ret);
		else
			atomic_inc(&rx->credits);
	}
	up_read(&f->teardown);
}

/*
 * The message a successful receive delivered. Return: its header, with
 * *@t its poster, or NULL (and a violation) if it is not intact.
 */
static const struct st_hdr *st_received(struct st_flow *f,
					const struct ib_wc *wc, const u8 *buf,
					unsigned int *t)
{
	const struct st_hdr *h = (const struct st_hdr *)buf;
	unsigned int len = wc->byte_len;
	u32 imm;

	if (wc->opcode == IB_WC_RECV_RDMA_WITH_IMM &&
	    (wc->wc_flags & IB_WC_WITH_IMM)) {
		imm = be32_to_cpu(wc->ex.imm_data);
		*t = imm >> 24;
		if (*t >= f->nthreads)
			goto bad;
		h = (const struct st_hdr *)st_write_slot(f, *t,
							 imm % ST_SLOTS);
		if (!st_check(h, len, *t, imm, 0xffffff) ||
		    h->kind != ST_WRITE_IMM)
			goto bad;
		return h;
	}
	if (wc->opcode != IB_WC_RECV)
		goto bad;
	if (f->c->type == IB_QPT_UD) {
		/* A multicast datagram comes with the GRH its AH asked for. */
		if (len < ST_GRH || wc->src_qp != f->a[0]->qp_num ||
		    (f->c->mcast && !(wc->wc_flags & IB_WC_GRH)))
			goto bad;
		h = (const struct st_hdr *)(buf + ST_GRH);
		len -= ST_GRH;
	}
	*t = h->thread;
	if (*t >= f->nthreads || !st_check(h, len, *t, h->seq, ~0U) ||
	    h->kind != ST_SEND)
		goto bad;
	return h;
bad:
	st_fail(f, "receive (opcode %d, %u bytes) delivered a corrupt message",
		wc->opcode, wc->byte_len);
	return NULL;
}

/* May a receive complete with @status now? */
static bool st_rx_status_ok(struct st_flow *f, enum ib_wc_status status)
{
	if (status == IB_WC_WR_FLUSH_ERR && READ_ONCE(f->flushing))
		return true;
	/* A failed request may take its responder to ERR with it. */
	return f->c->rule == ST_ERR_AFTER && READ_ONCE(f->event_started) &&
	       (f->c->allowed & BIT(status));
}

void st_account_recv(struct st_flow *f, const struct ib_wc *wc)
{
	unsigned int rxi = st_id_thread(wc->wr_id), slot = wc->wr_id & 0xffff;
	const struct st_hdr *h;
	struct st_poster *p;
	struct st_rx *rx;
	unsigned int t;

	if (rxi >= f->nrx || slot >= ST_RQ_DEPTH) {
		st_fail(f, "receive of unknown wr_id %#llx", wc->wr_id);
		return;
	}
	rx = &f->rx[rxi];
	if (!atomic_xchg(&rx->slot_posted[slot], 0)) {
		st_fail(f, "pool %u slot %u: a receive completed twice", rxi,
			slot);
		return;
	}
	atomic_inc(&rx->completed);
	if (wc->status != IB_WC_SUCCESS) {
		/* The QP is in ERR: reposting would only flush again. */
		if (!st_rx_status_ok(f, wc->status))
			st_fail(f, "pool %u: receive %s", rxi,
				ib_wc_status_msg(wc->status));
		return;
	}
	h = st_received(f, wc, rx->bufs + slot * ST_RX_SLOT, &t);
	if (h) {
		p = &f->posters[t];
		if (h->seq >= ST_MAX_SEQ || !st_reaches(f, t, rxi))
			st_fail(f, "pool %u received poster %u seq %u, not for it",
				rxi, t, h->seq);
		else if (test_and_set_bit(h->seq, p->rcvd[rxi]))
			st_fail(f, "pool %u received poster %u seq %u twice",
				rxi, t, h->seq);
		if (h->kind == ST_WRITE_IMM)
			atomic_dec(&p->write_ref[h->seq % ST_SLOTS]);
	}
	st_recycle(f, rxi, slot);
}

/* ---- the verdict ------------------------------------------------------ */

/* Every posted request completed once; nothing else completed. */
static void st_check_sent(struct st_flow *f, struct st_poster *p, u32 posted)
{
	unsigned long first;

	first = find_first_zero_bit(p->sent, posted);
	if (first < posted)
		st_fail(f, "poster %u: %u of %u requests never completed, first seq %lu",
			p->idx, posted - bitmap_weight(p->sent, posted),
			posted, first);
	first = find_next_bit(p->sent, ST_MAX_SEQ, posted);
	if (first < ST_MAX_SEQ)
		st_fail(f, "poster %u: seq %lu completed, never posted",
			p->idx, first);
	/* A send queue that failed one request completes no later one. */
	if (atomic_read(&p->max_ok) > atomic_read(&p->min_err))
		st_fail(f, "poster %u: seq %d succeeded after seq %d failed",
			p->idx, atomic_read(&p->max_ok),
			atomic_read(&p->min_err));
}

static void st_check_rcvd(struct st_flow *f, struct st_poster *p, u32 posted,
			  unsigned int rxi)
{
	unsigned long *rcvd = p->rcvd[rxi];
	unsigned long beyond;

	beyond = find_next_bit(rcvd, ST_MAX_SEQ, posted);
	if (beyond < ST_MAX_SEQ) {
		st_fail(f, "pool %u: poster %u seq %lu received, never posted",
			rxi, p->idx, beyond);
		return;
	}
	switch (f->c->rx[rxi]) {
	case ST_RX_EXACT:
		if (!bitmap_equal(rcvd, p->want_rx, posted))
			st_fail(f, "pool %u, poster %u: %u received, %u sent",
				rxi, p->idx, bitmap_weight(rcvd, posted),
				bitmap_weight(p->want_rx, posted));
		break;
	case ST_RX_COVERS:
		if (!bitmap_subset(p->want_rx, rcvd, posted) ||
		    !bitmap_subset(rcvd, p->sent, posted))
			st_fail(f, "pool %u, poster %u: %u received, %u sent successfully",
				rxi, p->idx, bitmap_weight(rcvd, posted),
				bitmap_weight(p->want_rx, posted));
		break;
	case ST_RX_BEFORE:
		if (!bitmap_subset(rcvd, p->want_rx, posted))
			st_fail(f, "pool %u, poster %u: a message received that was not sent",
				rxi, p->idx);
		else if (find_next_bit(rcvd, posted, p->first_after) < posted)
			st_fail(f, "pool %u, poster %u: received seq %lu, posted after the event",
				rxi, p->idx,
				find_next_bit(rcvd, posted, p->first_after));
		break;
	}
}

/* After the final flush every receive of a live QP's pool completed. */
static void st_check_pools(struct st_flow *f)
{
	unsigned int i;

	for (i = 0; i < f->nrx; i++) {
		struct st_rx *rx = &f->rx[i];

		if (rx->dead || rx->srq)
			continue;
		if (atomic_read(&rx->posted) != atomic_read(&rx->completed))
			st_fail(f, "pool %u: %d receives posted, %d completed",
				i, atomic_read(&rx->posted),
				atomic_read(&rx->completed));
	}
}

/* The case did something: traffic, and traffic after its event. */
static void st_check_traffic(struct st_flow *f, u64 posted, u64 after,
			     unsigned long refused, bool any_ok)
{
	if (posted < 100 || !any_ok)
		st_fail(f, "too little traffic: %llu requests", posted);
	if (f->c->event && f->c->event_pct && !after && !refused)
		st_fail(f, "nothing posted after the event");
}

void st_ledger_verdict(struct st_flow *f)
{
	unsigned long refused = 0, retries = 0;
	u64 posted = 0, after = 0, rcvd = 0;
	bool any_ok = false, capped = false;
	unsigned int t, i;

	for (t = 0; t < f->nthreads; t++) {
		struct st_poster *p = &f->posters[t];
		u32 n = READ_ONCE(p->posted);

		st_check_sent(f, p, n);
		for (i = 0; i < f->nrx; i++) {
			if (st_reaches(f, t, i))
				st_check_rcvd(f, p, n, i);
			else if (bitmap_weight(p->rcvd[i], ST_MAX_SEQ))
				st_fail(f, "pool %u received from poster %u",
					i, t);
			rcvd += bitmap_weight(p->rcvd[i], n);
		}
		posted += n;
		if (p->first_after < n)
			after += n - p->first_after;
		refused += p->refused;
		retries += p->retries;
		any_ok |= atomic_read(&p->max_ok) >= 0;
		capped |= p->capped;
	}
	st_check_pools(f);
	st_check_traffic(f, posted, after, refused, any_ok);
	if (f->snap && memcmp(f->snap, f->remote, PAGE_SIZE << f->remote_order))
		st_fail(f, "the remote area changed after its MR was deregistered");
	scnprintf(f->info, sizeof(f->info),
		  "%llu requests (%llu after the event, %lu refused), %llu received, %lu retries%s",
		  posted, after, refused, rcvd, retries,
		  capped ? ", capped" : "");
}
