// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: write() commands on QPs and SRQs. */
#include "fuzz.h"

static __u8 pick_qp_type(void)
{
	const __u8 odd[] = { 0, 1, 5, 6, 7, 8, 9, 10, 0xff };
	__u32 r = rnd(100);

	if (sane || r < 90)
		return (__u8)(IB_UVERBS_QPT_RC + rnd(3));	/* RC UC UD */
	return odd[rnd(NELEMS(odd))];
}

/* Kernel memory of a QP's queues, estimated (a send WQE with its SGEs). */
static size_t qp_cost(__u32 swr, __u32 ssge, __u32 rwr, __u32 rsge)
{
	return ((size_t)swr + 1) * (256 + 48 * (size_t)min_sz(ssge, 1024u)) +
	       rq_bytes(rwr + 1, min_sz(rsge, 1024u));
}

/* The QP caps of a create: sensible, boundary or wild, within budget. */
static void pick_qp_caps(__u32 *swr, __u32 *rwr, __u32 *ssge, __u32 *rsge)
{
	*swr = pick_u32(1, 64, lim.max_qp_wr);
	*rwr = pick_u32(1, 64, lim.max_qp_wr);
	*ssge = pick_u32(1, 4, lim.max_sge);
	*rsge = pick_u32(1, 4, lim.max_sge);
	if (!affordable(qp_cost(*swr, *ssge, *rwr, *rsge)) &&
	    *swr <= lim.max_qp_wr && *rwr <= lim.max_qp_wr &&
	    *ssge <= lim.max_sge && *rsge <= lim.max_sge) {
		*swr = 1 + rnd(16);
		*rwr = 1 + rnd(16);
		*ssge = 1 + rnd(2);
		*rsge = 1 + rnd(2);
	}
}

/* Record a QP the kernel made, and map its receive ring if it has one. */
void new_qp(struct wreq *w, const struct ib_uverbs_create_qp_resp *r,
	    __u8 type, bool srq, __u32 pd)
{
	struct obj *o;
	__u64 cookie;

	o = add_obj(K_QP, r->qp_handle,
		    qp_cost(r->max_send_wr, r->max_send_sge, r->max_recv_wr,
			    r->max_recv_sge));
	if (o) {
		o->qp.qpn = r->qpn;
		o->qp.type = type;
		o->qp.state = QPS_RESET;
		o->qp.has_srq = srq;
		o->pd = pd;
	}
	if (resp_cookie(w, &cookie) && cookie)
		map_rq_ring(cookie, RING_RQ, r->max_recv_wr, r->max_recv_sge, pd);
}

/* The args of a QP to create; false (none drawn) if no more may be tried. */
bool pick_qp_args(struct qp_args *a)
{
	struct obj *o;

	if (!room_for(K_QP))
		return false;
	a->pd = pick_handle(K_PD, &o);
	a->scq = pick_handle(K_CQ, &o);
	a->rcq = chance(70) ? a->scq : pick_handle(K_CQ, &o);
	a->is_srq = (__u8)(chance(75) ? 0 : sane || chance(90) ? 1 : rnd(256));
	a->srq = a->is_srq ? pick_handle(K_SRQ, &o) : 0;
	a->srq_live = a->is_srq && o;
	pick_qp_caps(&a->swr, &a->rwr, &a->ssge, &a->rsge);
	a->inl = sane || chance(80) ? 0 : pick_u32(0, 64, 0x10000);
	a->type = pick_qp_type();
	a->sig_all = (__u8)(chance(90) ? rnd(2) : rnd(256));
	return true;
}

/*
 * The extended CREATE_QP's fields up to is_srq are the plain one's, less
 * its response pointer (ib_user_verbs.h), so one filling serves both.
 */
#define CREATE_QP_SHARED (offsetof(struct ib_uverbs_create_qp, driver_data) - \
			  offsetof(struct ib_uverbs_create_qp, user_handle))
static_assert(offsetof(struct ib_uverbs_ex_create_qp, comp_mask) ==
	       CREATE_QP_SHARED, "the plain and extended CREATE_QP differ");

static void fill_create_qp(struct ib_uverbs_create_qp *c,
			   const struct qp_args *a)
{
	c->user_handle = next64();
	c->pd_handle = a->pd;
	c->send_cq_handle = a->scq;
	c->recv_cq_handle = a->rcq;
	c->srq_handle = a->srq;
	c->max_send_wr = a->swr;
	c->max_recv_wr = a->rwr;
	c->max_send_sge = a->ssge;
	c->max_recv_sge = a->rsge;
	c->max_inline_data = a->inl;
	c->sq_sig_all = a->sig_all;
	c->qp_type = a->type;
	c->is_srq = a->is_srq;
}

/* Issue a create of the QP drawn in @a; record what the kernel made. */
static void submit_create_qp(struct wreq *w, const struct qp_args *a)
{
	struct ib_uverbs_create_qp_resp r;

	w->drv_out = sizeof(__u64);
	w->check_off = 0;
	w->force_clean = avoid & AV_CREATE_QP_RESP;
	if (!wsubmit(w) || !w->resp)
		return;
	memcpy(&r, w->resp, sizeof(r));
	new_qp(w, &r, a->type, a->is_srq, a->pd);
}

void cmd_create_qp(void)
{
	struct ib_uverbs_create_qp c = { 0 };
	struct qp_args a;
	struct wreq w;

	if (!pick_qp_args(&a))
		return;
	fill_create_qp(&c, &a);
	describe("CREATE_QP type %u pd %u cq %u/%u srq %u(%u) wr %u/%u sge %u/%u inline %u",
		 c.qp_type, c.pd_handle, c.send_cq_handle, c.recv_cq_handle,
		 c.srq_handle, c.is_srq, c.max_send_wr, c.max_recv_wr,
		 c.max_send_sge, c.max_recv_sge, c.max_inline_data);
	wreq_init(&w, OP_CREATE_QP, IB_USER_VERBS_CMD_CREATE_QP, &c,
		  sizeof(c), sizeof(struct ib_uverbs_create_qp_resp));
	submit_create_qp(&w, &a);
}

void cmd_ex_create_qp(void)
{
	struct ib_uverbs_ex_create_qp c = { 0 };
	struct ib_uverbs_create_qp plain = { 0 };
	struct qp_args a;
	struct wreq w;

	if (!pick_qp_args(&a))
		return;
	fill_create_qp(&plain, &a);
	memcpy(&c.user_handle, &plain.user_handle, CREATE_QP_SHARED);
	c.comp_mask = chance(85) ? 0 : (__u32)next64();
	c.create_flags = chance(85) ? 0 : 1u << rnd(32);
	c.rwq_ind_tbl_handle = chance(90) ? 0 : rnd(64);
	c.source_qpn = chance(90) ? 0 : (__u32)next64();
	describe("EX_CREATE_QP type %u pd %u cq %u/%u srq %u wr %u/%u mask %#x flags %#x",
		 c.qp_type, c.pd_handle, c.send_cq_handle, c.recv_cq_handle,
		 c.srq_handle, c.max_send_wr, c.max_recv_wr, c.comp_mask,
		 c.create_flags);
	wreq_init(&w, OP_EX_CREATE_QP, IB_USER_VERBS_EX_CMD_CREATE_QP, &c,
		  sizeof(c), sizeof(struct ib_uverbs_ex_create_qp_resp));
	w.ex = true;
	submit_create_qp(&w, &a);
}

/* The attribute mask IBTA requires to move a QP of @type to @to. */
static __u32 transition_mask(__u32 type, __u32 to)
{
	bool rc = type == IB_UVERBS_QPT_RC, ud = type == IB_UVERBS_QPT_UD;

	switch (to) {
	case QPS_INIT:
		return QPA_STATE | QPA_PKEY | QPA_PORT |
		       (ud ? QPA_QKEY : QPA_ACCESS);
	case QPS_RTR:
		if (ud)
			return QPA_STATE;
		return QPA_STATE | QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN |
		       QPA_RQ_PSN |
		       (rc ? QPA_MAX_DEST_RD | QPA_MIN_RNR : 0);
	case QPS_RTS:
		return QPA_STATE | QPA_SQ_PSN |
		       (rc ? QPA_TIMEOUT | QPA_RETRY | QPA_RNR_RETRY |
			QPA_MAX_RD : 0);
	case QPS_SQD:
		return QPA_STATE | (chance(50) ? QPA_EN_SQD_ASYNC : 0);
	default:
		return QPA_STATE;
	}
}

/* Sensible modify attributes: loopback to @peer_qpn on the port's LID. */
static void fill_modify(struct ib_uverbs_modify_qp *m, __u32 type, __u32 to,
			__u32 peer_qpn)
{
	m->attr_mask = transition_mask(type, to);
	m->qp_state = (__u8)to;
	m->pkey_index = 0;
	m->port_num = 1;
	m->qkey = QKEY;
	m->qp_access_flags = ACC_REMOTE_WRITE | ACC_REMOTE_READ |
			     ACC_REMOTE_ATOMIC;
	m->dest.dlid = lim.lid;
	m->dest.port_num = 1;
	m->path_mtu = MTU_4096;
	m->dest_qp_num = peer_qpn;
	m->rq_psn = 0;
	m->sq_psn = 0;
	m->max_dest_rd_atomic = 4;
	m->max_rd_atomic = 4;
	m->min_rnr_timer = 1;
	m->timeout = 14;
	m->retry_cnt = 7;
	m->rnr_retry = 7;
}

/* Damage one thing of a modify: the mask or a field. */
static void damage_modify(struct ib_uverbs_modify_qp *m)
{
	switch (rnd(12)) {
	case 0:
		m->attr_mask ^= 1u << rnd(26);
		break;
	case 1:
		m->attr_mask = (__u32)next64();
		break;
	case 2:
		m->qp_state = (__u8)(chance(50) ? rnd(8) : rnd(256));
		break;
	case 3:
		m->cur_qp_state = (__u8)rnd(256);
		m->attr_mask |= QPA_CUR_STATE;
		break;
	case 4:
		m->path_mtu = pick_u8(MTU_4096, 5);
		break;
	case 5:
		m->port_num = pick_u8(1, lim.ports);
		m->dest.port_num = pick_u8(1, lim.ports);
		break;
	case 6:
		m->pkey_index = (__u16)boundary(1);
		break;
	case 7:
		m->timeout = pick_u8(14, 31);
		m->retry_cnt = pick_u8(7, 7);
		m->rnr_retry = pick_u8(7, 7);
		break;
	case 8:
		m->dest.is_global = 1;
		m->dest.sgid_index = pick_u8(0, 0);
		m->dest.hop_limit = pick_u8(1, 255);
		break;
	case 9:
		m->dest.dlid = (__u16)boundary(0xbfff);
		break;
	case 10:
		m->max_rd_atomic = pick_u8(4, 16);
		m->max_dest_rd_atomic = pick_u8(4, 16);
		break;
	default:
		m->dest_qp_num = boundary(0xffffff);
		m->alt_port_num = pick_u8(1, lim.ports);
		m->attr_mask |= chance(50) ? QPA_ALT_PATH : 0;
		break;
	}
}

/* The state a QP would go to next, or a random one. */
static __u32 next_state(struct obj *qp)
{
	if (!qp || (!sane && chance(15)))
		return rnd(7);
	switch (qp->qp.state) {
	case QPS_RESET:
		return QPS_INIT;
	case QPS_INIT:
		return QPS_RTR;
	case QPS_RTR:
		return QPS_RTS;
	case QPS_RTS:
		return chance(80) ? QPS_SQD : QPS_ERR;
	case QPS_SQD:
		return QPS_RTS;
	default:
		return QPS_RESET;
	}
}

/* MODIFY_QP (or the extended one) of @qp (NULL: a drawn handle) to @to. */
bool cmd_modify_qp(struct obj *qp, __u32 to, __u32 peer_qpn, bool damage)
{
	struct ib_uverbs_ex_modify_qp c = { 0 };
	struct ib_uverbs_modify_qp *m = &c.base;
	bool ex = !exact_mode && chance(20);
	struct wreq w;
	__u32 handle = qp ? qp->handle : pick_handle(K_QP, &qp);

	m->qp_handle = handle;
	fill_modify(m, qp ? qp->qp.type : IB_UVERBS_QPT_RC, to, peer_qpn);
	if (damage)
		damage_modify(m);
	if (ex && chance(30))
		c.rate_limit = (__u32)next64();
	describe("%sMODIFY_QP qp %u state %u mask %#x dlid %#x dqpn %#x port %u mtu %u",
		 ex ? "EX_" : "", handle, m->qp_state, m->attr_mask,
		 m->dest.dlid, m->dest_qp_num, m->port_num, m->path_mtu);
	if (ex) {
		wreq_init(&w, OP_EX_MODIFY_QP, IB_USER_VERBS_EX_CMD_MODIFY_QP,
			  &c, sizeof(c),
			  sizeof(struct ib_uverbs_ex_modify_qp_resp));
		w.ex = true;
	} else {
		wreq_init(&w, OP_MODIFY_QP, IB_USER_VERBS_CMD_MODIFY_QP, m,
			  sizeof(*m), 0);
	}
	if (!wsubmit(&w))
		return false;
	qp = find_live_handle(handle);
	if (qp && qp->kind == K_QP && (m->attr_mask & QPA_STATE))
		qp->qp.state = m->qp_state;
	if (qp && qp->kind == K_QP && (m->attr_mask & QPA_PORT))
		qp->qp.has_port = true;
	return true;
}

void act_modify_qp(void)
{
	struct obj *qp = pick_live(K_QP), *peer = pick_live(K_QP);

	cmd_modify_qp(sane || chance(85) ? qp : NULL, next_state(qp),
		      peer ? peer->qp.qpn : rnd(64), !sane && chance(30));
}

/* Bring two QPs of one type (or one QP, to itself) to RTS, talking. */
void act_wire_pair(void)
{
	struct obj *a = pick_live(K_QP), *b;
	__u32 s;

	if (!a)
		return;
	b = pick_peer(a);
	for (s = QPS_INIT; s <= QPS_RTS; s++) {
		if (a->qp.state < s)
			cmd_modify_qp(a, s, b->qp.qpn, chance(5));
		if (b->qp.state < s)
			cmd_modify_qp(b, s, a->qp.qpn, chance(5));
	}
}

void cmd_query_qp(void)
{
	struct ib_uverbs_query_qp c = { 0 };
	struct obj *o;
	struct wreq w;

	c.qp_handle = pick_handle(K_QP, &o);
	c.attr_mask = chance(70) ? 0x1fffff : (__u32)next64();
	describe("QUERY_QP qp %u mask %#x", c.qp_handle, c.attr_mask);
	wreq_init(&w, OP_QUERY_QP, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c),
		  sizeof(struct ib_uverbs_query_qp_resp));
	w.check_off = offsetof(struct ib_uverbs_query_qp_resp, max_send_wr);
	wsubmit(&w);
}

void cmd_create_srq(void)
{
	struct ib_uverbs_create_srq c = { 0 };
	struct ib_uverbs_create_srq_resp r;
	struct obj *o;
	struct wreq w;
	__u64 cookie;

	if (!room_for(K_SRQ))
		return;
	c.user_handle = next64();
	c.pd_handle = pick_handle(K_PD, &o);
	c.max_wr = pick_u32(1, 64, lim.max_srq_wr);
	c.max_sge = pick_u32(1, 4, lim.max_srq_sge);
	c.srq_limit = chance(70) ? 0 : pick_u32(0, 64, c.max_wr);
	if (!affordable(rq_bytes(c.max_wr + 1, min_sz(c.max_sge, 1024u))) &&
	    c.max_wr <= lim.max_srq_wr && c.max_sge <= lim.max_srq_sge)
		c.max_wr = 1 + rnd(64);
	describe("CREATE_SRQ pd %u wr %u sge %u limit %u", c.pd_handle,
		 c.max_wr, c.max_sge, c.srq_limit);
	wreq_init(&w, OP_CREATE_SRQ, IB_USER_VERBS_CMD_CREATE_SRQ, &c,
		  sizeof(c), sizeof(r));
	w.drv_out = sizeof(__u64);
	w.check_off = 0;
	if (!wsubmit(&w) || !w.resp)
		return;
	memcpy(&r, w.resp, sizeof(r));
	o = add_obj(K_SRQ, r.srq_handle, rq_bytes(r.max_wr + 1, r.max_sge));
	if (o) {
		o->srq.max_wr = r.max_wr;
		o->srq.max_sge = r.max_sge;
		o->pd = c.pd_handle;
	}
	if (resp_cookie(&w, &cookie))
		map_rq_ring(cookie, RING_SRQ, r.max_wr, r.max_sge, c.pd_handle);
}

/*
 * MODIFY_SRQ: a resize returns the new ring's cookie at the address the
 * provider puts in its driver data (ipathverbs' offset_addr).
 */
void cmd_modify_srq(void)
{
	struct ib_uverbs_modify_srq c = { 0 };
	enum ptr_kind pk = pick_ptr_kind();
	struct obj *o;
	struct wreq w;
	__u64 offset_addr = ptr_of(pk, scratch), cookie;

	c.srq_handle = pick_handle(K_SRQ, &o);
	c.attr_mask = chance(85) ? 1 + rnd(3) : (__u32)next64();
	c.max_wr = pick_u32(1, 128, lim.max_srq_wr);
	c.srq_limit = pick_u32(0, 16, c.max_wr);
	if ((c.attr_mask & SRQ_MAX_WR) && o &&
	    !affordable(rq_bytes(c.max_wr + 1, min_sz(o->srq.max_sge, 1024u))))
		c.max_wr = 1 + rnd(128);
	describe("MODIFY_SRQ srq %u mask %#x wr %u limit %u offset_addr %#llx",
		 c.srq_handle, c.attr_mask, c.max_wr, c.srq_limit,
		 (unsigned long long)offset_addr);
	memcpy(scratch, &(__u64){ PATTERN64 }, sizeof(__u64));
	wreq_init(&w, OP_MODIFY_SRQ, IB_USER_VERBS_CMD_MODIFY_SRQ, &c,
		  sizeof(c), 0);
	if (chance(90)) {
		w.drv_in = &offset_addr;
		w.drv_in_len = sizeof(offset_addr);
	}
	/* without it, words the framing appends are read as the address */
	w.embedded_ok = pk == PK_VALID && w.drv_in;
	if (!wsubmit(&w) || !(c.attr_mask & SRQ_MAX_WR) || !o || !w.drv_in ||
	    pk != PK_VALID)
		return;
	memcpy(&cookie, scratch, sizeof(cookie));
	if (cookie == PATTERN64)
		return;
	set_cost(o, rq_bytes(c.max_wr + 1, o->srq.max_sge));
	o->srq.max_wr = c.max_wr;
	map_rq_ring(cookie, RING_SRQ, c.max_wr, o->srq.max_sge, o->pd);
}

void cmd_query_srq(void)
{
	struct ib_uverbs_query_srq c = { 0 };
	struct obj *o;
	struct wreq w;

	c.srq_handle = pick_handle(K_SRQ, &o);
	describe("QUERY_SRQ srq %u", c.srq_handle);
	wreq_init(&w, OP_QUERY_SRQ, IB_USER_VERBS_CMD_QUERY_SRQ, &c, sizeof(c),
		  sizeof(struct ib_uverbs_query_srq_resp));
	w.check_off = 0;
	wsubmit(&w);
}
