// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: write() commands on the context, the device, PDs, MRs,
 * AHs and multicast groups, and the extended and random ones.
 */
#include "fuzz.h"

bool cmd_get_context(bool exact)
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

void cmd_query_device(void)
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

__u8 pick_port(void)
{
	return pick_u8(1 + rnd(lim.ports ? lim.ports : 1), lim.ports);
}

void cmd_query_port(void)
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

void cmd_create_comp_channel(void)
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

void cmd_alloc_pd(void)
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
void cmd_destroy(enum fuzz_op op, __u32 cmd, enum kind k, size_t resp_len)
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
	return b[rnd(NELEMS(b))];
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

void cmd_reg_mr(void)
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

void cmd_rereg_mr(void)
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

void cmd_alloc_mw(void)
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

void cmd_create_ah(void)
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

void cmd_mcast(bool attach)
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

void cmd_ex_query_device(void)
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

/* The other extended commands (flows, WQs, indirection tables): noise. */
void cmd_ex_other(void)
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

void cmd_open_xrcd_qp(void)
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
void cmd_random(void)
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
void cmd_raw_write(void)
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
