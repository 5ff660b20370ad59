// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: write() commands on CQs. */
#include "fuzz.h"

static int pick_comp_channel(void)
{
	__u32 r = rnd(20);

	if (r < 15 || (sane && !nchans))
		return -1;
	if (r < 18 && nchans)
		return chans[rnd(nchans)];
	return (int)boundary(64);
}

__u32 pick_cqe(void)
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
struct obj *new_cq(struct wreq *w, __u32 handle, __u32 cqe, bool size_known)
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

void cmd_create_cq(void)
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

void cmd_ex_create_cq(void)
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

void cmd_resize_cq(void)
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
		set_cost(o, cq_bytes(r.cqe));
		o->cq.cqe = r.cqe;
	}
	if (resp_cookie(&w, &cookie))
		map_new_ring(cookie, cq_bytes(r.cqe), RING_CQ, r.cqe + 1,
			     UVERBS_WC_BYTES, 0, 0);
}

/* POLL_CQ: the kernel writes as many WCs as it finds, up to ne. */
int cmd_poll_cq(__u32 handle, __u32 ne, struct ib_uverbs_wc *wc)
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

void cmd_req_notify_cq(void)
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

void cmd_ex_modify_cq(void)
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
