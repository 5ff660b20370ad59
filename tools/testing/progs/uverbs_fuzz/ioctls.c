// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: RDMA_VERBS_IOCTL methods. */
#include "fuzz.h"

#define MAX_ATTRS 16
/* A constant input attribute is a u64, whatever its type. */
#define CONST_IN 8

/**
 * struct ioc - an RDMA_VERBS_IOCTL call being built
 * @hdr: the header
 * @attrs: its attributes (follow the header in memory)
 */
struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[MAX_ATTRS];
};

/* The device's driver id, which every ioctl must name (learn_driver_id()). */
__u32 driver_id;

static void ioc_init(struct ioc *c, __u16 object, __u16 method)
{
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->hdr.driver_id = driver_id;
}

/* Add an attribute; a pointer attribute's @data is its address. */
static struct ib_uverbs_attr *ioc_attr(struct ioc *c, __u16 id, __u16 len,
				       __u64 data, __u16 flags)
{
	struct ib_uverbs_attr *a = &c->attrs[c->hdr.num_attrs++];

	a->attr_id = id;
	a->len = len;
	a->flags = flags;
	a->data = data;
	return a;
}

static __u64 out_ptr(size_t off)
{
	return (__u64)(unsigned long)(scratch + off);
}

/* Whether the last isubmit() damaged its call. */
static bool ioc_damaged;

/* Damage a well-formed call now and then; true if it is still valid. */
static bool ioc_damage(struct ioc *c)
{
	struct ib_uverbs_attr *a;

	if (exact_mode || sane || !c->hdr.num_attrs || chance(80))
		return true;
	a = &c->attrs[rnd(c->hdr.num_attrs)];
	switch (rnd(7)) {
	case 0:
		a->len = (__u16)(chance(50) ? rnd(16) : next64());
		break;
	case 1:
		a->flags = (__u16)next64();
		break;
	case 2:
		a->attr_id = (__u16)(chance(50) ? rnd(16) : next64());
		break;
	case 3:
		a->data = safe_word();
		break;
	case 4:
		a->attr_data.reserved = (__u16)next64();
		break;
	case 5:
		c->hdr.reserved1 = next64();
		break;
	default:
		if (c->hdr.num_attrs < MAX_ATTRS)
			ioc_attr(c, (__u16)rnd(16), (__u16)rnd(16),
				 safe_word(), 0);
		break;
	}
	return false;
}

/* Issue @c; judge the return; true if it succeeded. */
static bool isubmit(enum fuzz_op op, struct ioc *c, bool valid)
{
	int ret, err;

	if (!c->hdr.length)
		c->hdr.length = (__u16)(sizeof(c->hdr) +
					c->hdr.num_attrs * sizeof(c->attrs[0]));
	ioc_damaged = false;
	if (!((avoid & AV_CREATE_QP_RESP) &&
	      c->hdr.object_id == UVERBS_OBJECT_QP &&
	      c->hdr.method_id == UVERBS_METHOD_QP_CREATE))
		ioc_damaged = !ioc_damage(c);
	valid = valid && !ioc_damaged;
	timer_on();
	ret = ioctl(fd, RDMA_VERBS_IOCTL, c);
	err = errno;
	timer_off();
	count(op, ret == 0, err);
	if (ret != 0 && ret != -1)
		failf("ioctl() returned %d", ret);
	else if (ret == -1 && err == EFAULT && valid)
		failf("EFAULT, with every pointer valid");
	errno = err;
	return ret == 0;
}

void ioc_query_context(void)
{
	struct ioc c;

	describe("ioctl QUERY_CONTEXT");
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	ioc_attr(&c, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, 4,
		 out_ptr(0), 0);
	ioc_attr(&c, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, 8, out_ptr(8), 0);
	isubmit(OP_IOCTL_QUERY_CONTEXT, &c, true);
}

void ioc_query_port(void)
{
	struct ioc c;
	__u8 port = pick_port();

	describe("ioctl QUERY_PORT port %u", port);
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, CONST_IN, port,
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_RESP,
		 sizeof(struct ib_uverbs_query_port_resp_ex), out_ptr(0),
		 UVERBS_ATTR_F_MANDATORY);
	isubmit(OP_IOCTL_QUERY_PORT, &c, true);
}

void ioc_info_handles(void)
{
	struct ioc c;
	__u16 object = (__u16)(chance(80) ? rnd(17) : next64());
	__u16 len = (__u16)(chance(80) ? 4 * (1 + rnd(64)) : rnd(4096));

	describe("ioctl INFO_HANDLES object %u list %u bytes", object, len);
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	ioc_attr(&c, UVERBS_ATTR_INFO_OBJECT_ID, CONST_IN, object, 0);
	ioc_attr(&c, UVERBS_ATTR_INFO_TOTAL_HANDLES, 4, out_ptr(0), 0);
	ioc_attr(&c, UVERBS_ATTR_INFO_HANDLES_LIST, len, out_ptr(64), 0);
	isubmit(OP_IOCTL_INFO_HANDLES, &c, len < SCRATCH_BYTES - 64);
}

void ioc_gid(void)
{
	struct ioc c;
	bool table = chance(50);
	__u32 n = chance(80) ? 1 + rnd(4) : rnd(64);

	describe("ioctl %s", table ? "QUERY_GID_TABLE" : "QUERY_GID_ENTRY");
	if (table) {
		ioc_init(&c, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_TABLE);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 8,
			 chance(85) ? sizeof(struct ib_uverbs_gid_entry) :
			 rnd(64), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
			 (__u16)(n * sizeof(struct ib_uverbs_gid_entry)),
			 out_ptr(64), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, 8,
			 out_ptr(0), 0);
	} else {
		ioc_init(&c, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_GID_ENTRY);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, CONST_IN, pick_port(),
			 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, CONST_IN,
			 pick_u32(0, 0, 1), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4,
			 chance(90) ? 0 : rnd(8), 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
			 sizeof(struct ib_uverbs_gid_entry), out_ptr(0), 0);
	}
	isubmit(OP_IOCTL_GID, &c, true);
}

/* A write() command through the ioctl path (UVERBS_METHOD_INVOKE_WRITE). */
void ioc_invoke_write(void)
{
	struct ioc c;
	__u64 *in = (__u64 *)(scratch + 2048);
	__u32 cmd = chance(80) ? rnd(40) : (__u32)next64();
	__u16 in_len = (__u16)(8 * rnd(16)), out_len = (__u16)(8 * rnd(16));

	if (cmd_avoided(cmd))
		return;
	fill_safe(in, in_len);
	describe("ioctl INVOKE_WRITE command %#x in %u out %u", cmd, in_len,
		 out_len);
	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	ioc_attr(&c, UVERBS_ATTR_WRITE_CMD, CONST_IN, cmd, UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CORE_IN, in_len,
		 in_len > 8 ? (__u64)(unsigned long)in : in[0], 0);
	if (chance(80))
		ioc_attr(&c, UVERBS_ATTR_CORE_OUT, out_len, out_ptr(0), 0);
	isubmit(OP_IOCTL_INVOKE_WRITE, &c, false);
}

void ioc_create_cq(void)
{
	struct ioc c;
	struct ib_uverbs_attr *h;
	struct wreq w = { .drv_out = sizeof(__u64), .resp = scratch,
			  .drv_out_len = sizeof(__u64) };
	__u32 cqe = pick_cqe(), got;
	bool ring = chance(85);
	struct obj *o;

	if (!room_for(K_CQ))
		return;
	describe("ioctl CQ_CREATE cqe %u%s", cqe, ring ? " ring" : "");
	memset(scratch, PATTERN, 64);
	ioc_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	h = ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, PATTERN64,
		     UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_CQE, 4, cqe, UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, next64(),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, rnd(ncomp),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, out_ptr(8),
		 UVERBS_ATTR_F_MANDATORY);
	if (ring)
		ioc_attr(&c, UVERBS_ATTR_UHW_OUT, 8, out_ptr(0), 0);
	if (!isubmit(OP_IOCTL_CREATE_CQ, &c, true))
		return;
	if (h->data == PATTERN64)
		failf("success, but the new CQ's handle left unwritten");
	memcpy(&got, scratch + 8, sizeof(got));
	w.resp_len = 0;
	if (!ring)
		w.drv_out_len = 0;
	/*
	 * Unwritten here, the size went where a damaged RESP_CQE pointed
	 * (ioc_damage() may move it and the call still succeed).
	 */
	o = new_cq(&w, (__u32)h->data, got == PATTERN32 ? cqe : got,
		   got != PATTERN32);
	if (o)
		o->cq.ring_known = !ioc_damaged;
}

void ioc_create_qp(void)
{
	struct ioc c;
	struct ib_uverbs_attr *h;
	struct ib_uverbs_qp_cap *cap = (void *)(scratch + 256);
	struct ib_uverbs_create_qp_resp r = { 0 };
	struct wreq w = { .resp = scratch, .drv_out_len = sizeof(__u64) };
	struct qp_args a;
	__u8 type;

	if (!pick_qp_args(&a))
		return;
	type = a.type;
	*cap = (struct ib_uverbs_qp_cap){ a.swr, a.rwr, a.ssge, a.rsge, a.inl };
	describe("ioctl QP_CREATE type %u pd %u cq %u/%u wr %u/%u sge %u/%u",
		 type, a.pd, a.scq, a.rcq, a.swr, a.rwr, a.ssge, a.rsge);
	memset(scratch, PATTERN, 128);
	ioc_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE);
	h = ioc_attr(&c, UVERBS_ATTR_CREATE_QP_HANDLE, 0, PATTERN64,
		     UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_PD_HANDLE, 0, a.pd, 0);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, 0, a.scq, 0);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, 0, a.rcq, 0);
	if (a.is_srq)
		ioc_attr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, 0, a.srq, 0);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_USER_HANDLE, 8, next64(),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_CAP, sizeof(*cap),
		 (__u64)(unsigned long)cap, UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_TYPE, CONST_IN, type,
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_CAP, sizeof(*cap),
		 out_ptr(16), UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, 4, out_ptr(8),
		 UVERBS_ATTR_F_MANDATORY);
	ioc_attr(&c, UVERBS_ATTR_UHW_OUT, 8, out_ptr(0), 0);
	if (!isubmit(OP_IOCTL_CREATE_QP, &c, true))
		return;
	if (h->data == PATTERN64)
		failf("success, but the new QP's handle left unwritten");
	r.qp_handle = (__u32)h->data;
	memcpy(&r.qpn, scratch + 8, sizeof(r.qpn));
	memcpy(&r.max_send_wr, scratch + 16, sizeof(*cap));
	/*
	 * Caps unwritten here went where a damaged RESP_CAP pointed: the RQ
	 * ring's size is not known, so its cookie is noted, never mapped.
	 */
	if (r.max_recv_wr == PATTERN32 || r.max_recv_sge == PATTERN32) {
		__u64 cookie;

		if (resp_cookie(&w, &cookie))
			note_cookie(cookie);
		w.drv_out_len = 0;
	}
	new_qp(&w, &r, type, a.is_srq, a.pd);
}

/* The destroy methods: PD, CQ, QP, SRQ, AH, MR. */
void ioc_destroy(void)
{
	static const struct { __u16 object, method, resp_len; enum kind k; }
	d[] = {
		{ UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 0, K_PD },
		{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY,
		  sizeof(struct ib_uverbs_destroy_cq_resp), K_CQ },
		{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY,
		  sizeof(struct ib_uverbs_destroy_qp_resp), K_QP },
		{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY,
		  sizeof(struct ib_uverbs_destroy_srq_resp), K_SRQ },
		{ UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY, 0, K_AH },
		{ UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 0, K_MR },
	};
	unsigned int i = rnd(NELEMS(d));
	struct obj *o;
	struct ioc c;
	__u32 h = pick_handle(d[i].k, &o);

	describe("ioctl destroy object %u handle %u%s", d[i].object, h,
		 o ? " (live)" : "");
	ioc_init(&c, d[i].object, d[i].method);
	ioc_attr(&c, 0, 0, h, UVERBS_ATTR_F_MANDATORY);
	if (d[i].resp_len)
		ioc_attr(&c, 1, d[i].resp_len, out_ptr(0),
			 UVERBS_ATTR_F_MANDATORY);
	if (isubmit(OP_IOCTL_DESTROY, &c, true))
		kill_obj(find_live_handle(h));
}

/* Any object, method and attributes, of safe words. */
void ioc_random(void)
{
	struct ioc c;
	unsigned int i, n = rnd(MAX_ATTRS + 1);
	__u16 object = (__u16)(chance(80) ? rnd(18) : next64());
	__u16 method = (__u16)(chance(80) ? rnd(8) : next64());

	if ((avoid & AV_CREATE_QP_RESP) && object == UVERBS_OBJECT_QP &&
	    method == UVERBS_METHOD_QP_CREATE)
		return;
	if ((avoid & AV_IOCTL_GET_CONTEXT) && object == UVERBS_OBJECT_DEVICE &&
	    method == UVERBS_METHOD_GET_CONTEXT)
		return;
	describe("ioctl object %u method %u attrs %u", object, method, n);
	ioc_init(&c, object, method);
	for (i = 0; i < n; i++) {
		__u16 id = (__u16)(chance(70) ? rnd(16) : chance(50) ?
				   UVERBS_ATTR_UHW_IN + rnd(2) : next64());

		ioc_attr(&c, id, (__u16)(chance(70) ? 1u << rnd(7) : rnd(4096)),
			 safe_word(), (__u16)(chance(70) ? rnd(2) : next64()));
		if (chance(10))
			c.attrs[i].attr_data.enum_data.elem_id = (__u8)rnd(8);
	}
	if (chance(10))
		c.hdr.length = (__u16)next64();
	if (chance(5))
		c.hdr.driver_id = (__u32)next64();
	isubmit(OP_IOCTL_RANDOM, &c, false);
}

/* Other ioctl numbers on the uverbs file. */
void ioc_other(void)
{
	unsigned long nr = _IOC(rnd(4), chance(70) ? RDMA_IOCTL_MAGIC : rnd(256),
				rnd(8), rnd(64));
	int ret, err;

	describe("ioctl %#lx", nr);
	timer_on();
	ret = ioctl(fd, nr, scratch);
	err = errno;
	timer_off();
	count(OP_IOCTL_OTHER, ret == 0, err);
	if (ret != 0 && ret != -1)
		failf("ioctl() returned %d", ret);
}

/*
 * The driver id the ioctl path wants: the one with which QUERY_PORT of
 * port 1 works (any other is EINVAL before the method is looked at).
 */
bool learn_driver_id(void)
{
	for (driver_id = 0; driver_id < 64; driver_id++) {
		struct ioc c;

		ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
		ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_PORT_NUM, CONST_IN, 1, 0);
		ioc_attr(&c, UVERBS_ATTR_QUERY_PORT_RESP,
			 sizeof(struct ib_uverbs_query_port_resp_ex),
			 out_ptr(0), 0);
		c.hdr.length = (__u16)(sizeof(c.hdr) + 2 * sizeof(c.attrs[0]));
		if (!ioctl(fd, RDMA_VERBS_IOCTL, &c))
			return true;
	}
	return false;
}
