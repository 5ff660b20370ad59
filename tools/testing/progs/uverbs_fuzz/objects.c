// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: the objects of the current context, as this process
 * knows them, and what work requests point at in them.
 */
#include "fuzz.h"

static struct obj objs[MAX_OBJS];
static size_t kmem_live;	/* sum of the live objects' cost */

/* A slot holding an object not destroyed, of kind @k (NR_KINDS: any). */
static bool live_as(const struct obj *o, enum kind k)
{
	return o->used && o->live && (k == NR_KINDS || o->kind == k);
}

static unsigned int live_count(enum kind k)
{
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++)
		n += live_as(&objs[i], k);
	return n;
}

/*
 * One of the objects @match takes with @arg, each as likely as the other
 * (one draw per match, in table order), or @none if it takes none.
 */
static struct obj *pick_where(bool (*match)(const struct obj *o,
					    const void *arg),
			      const void *arg, struct obj *none)
{
	struct obj *found = none;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_OBJS; i++)
		if (match(&objs[i], arg) && rnd(++n) == 0)
			found = &objs[i];
	return found;
}

static bool match_kind(const struct obj *o, const void *kind)
{
	return live_as(o, *(const enum kind *)kind);
}

/* A random live object of kind @k (any kind if @k is NR_KINDS), or NULL. */
struct obj *pick_live(enum kind k)
{
	return pick_where(match_kind, &k, NULL);
}

static bool match_qp_state(const struct obj *o, const void *state)
{
	int s = *(const int *)state;

	return live_as(o, K_QP) && (s < 0 || o->qp.state == (__u32)s);
}

/* A random live QP in state @state (any if negative), or NULL. */
struct obj *pick_qp_in(int state)
{
	return pick_where(match_qp_state, &state, NULL);
}

static bool match_peer(const struct obj *o, const void *qp)
{
	const struct obj *self = qp;

	return live_as(o, K_QP) && o != self && o->qp.type == self->qp.type;
}

/* A live QP of @qp's type other than @qp; @qp itself if there is none. */
struct obj *pick_peer(struct obj *qp)
{
	return pick_where(match_peer, qp, qp);
}

/* What pick_in_pd() looks for. */
struct in_pd {
	enum kind kind;
	__u32 pd;
};

static bool match_in_pd(const struct obj *o, const void *want)
{
	const struct in_pd *w = want;

	return live_as(o, w->kind) && o->pd == w->pd;
}

/* A live @k made in PD @pd, or NULL. */
struct obj *pick_in_pd(enum kind k, __u32 pd)
{
	struct in_pd want = { k, pd };

	return pick_where(match_in_pd, &want, NULL);
}

static bool match_dead(const struct obj *o, const void *unused)
{
	(void)unused;
	return o->used && !o->live;
}

static struct obj *pick_dead(void)
{
	return pick_where(match_dead, NULL, NULL);
}

static bool match_kernel_cq(const struct obj *o, const void *unused)
{
	(void)unused;
	return live_as(o, K_CQ) && o->cq.kernel_polled;
}

/* A live CQ without a user ring, or NULL. */
struct obj *pick_kernel_cq(void)
{
	return pick_where(match_kernel_cq, NULL, NULL);
}

/*
 * The first live PD of the table: sane steps make most objects there, so
 * that the QPs, MRs and AHs that would work together share one.
 */
static struct obj *home_pd(void)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJS; i++)
		if (live_as(&objs[i], K_PD))
			return &objs[i];
	return NULL;
}

/*
 * A handle for a command on a @k: a live one, a destroyed one, one of
 * another kind, or a number. *@op is set to the live object, else NULL.
 */
__u32 pick_handle(enum kind k, struct obj **op)
{
	__u32 r = rnd(100);
	struct obj *o = NULL;

	*op = NULL;
	if (sane && k == K_PD && r < 80)
		o = home_pd();
	else if (sane || r < 82)
		o = pick_live(k);
	else if (r < 90)
		o = pick_dead();
	else if (r < 94)
		o = pick_live(NR_KINDS);
	if (o) {
		if (o->live && o->kind == k)
			*op = o;
		return o->handle;
	}
	return r < 97 ? rnd(64) : boundary(0x10000);
}

struct obj *find_live_handle(__u32 handle)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJS; i++)
		if (live_as(&objs[i], NR_KINDS) && objs[i].handle == handle)
			return &objs[i];
	return NULL;
}

void kill_obj(struct obj *o)
{
	if (!o || !o->live)
		return;
	o->live = false;
	kmem_live -= o->cost;
	o->cost = 0;
}

/*
 * Record a new object. Its handle is now live, so an older record with
 * the same handle is forgotten; when the table is full a destroyed one
 * makes room. NULL when there is no room (the object stays untracked).
 */
struct obj *add_obj(enum kind k, __u32 handle, size_t cost)
{
	struct obj *slot = NULL;
	unsigned int i;

	for (i = 0; i < MAX_OBJS; i++) {
		struct obj *o = &objs[i];

		if (o->used && o->handle == handle) {
			kill_obj(o);
			o->used = false;
		}
		if (!o->used && !slot)
			slot = o;
	}
	if (!slot)
		slot = pick_dead();
	if (!slot)
		return NULL;
	memset(slot, 0, sizeof(*slot));
	slot->used = true;
	slot->live = true;
	slot->kind = k;
	slot->handle = handle;
	slot->cost = cost;
	kmem_live += cost;
	return slot;
}

/* A creation of a @k may be tried: not too many live, within budget. */
bool room_for(enum kind k)
{
	return live_count(k) < MAX_LIVE;
}

/* @cost fits the budget of ring and queue memory. */
bool affordable(size_t cost)
{
	return kmem_live + cost <= KMEM_BUDGET;
}

/* A live object's queues now take @cost (a resize). */
void set_cost(struct obj *o, size_t cost)
{
	kmem_live += cost - o->cost;
	o->cost = cost;
}

/* A new context: none of these objects is there. */
void forget_objects(void)
{
	memset(objs, 0, sizeof(objs));
	kmem_live = 0;
}

/* The PD of the QP or SRQ whose work is being built, for its SGEs. */
__u32 post_pd;

/* An MR for an SGE: sane, one of the PD of the work; else any. */
static struct obj *pick_mr(void)
{
	struct obj *mr = sane || chance(70) ? pick_in_pd(K_MR, post_pd) : NULL;

	return mr ? mr : pick_live(K_MR);
}

/* An SGE: in a live MR (within it, its key), or anything. */
void pick_sge(struct ib_uverbs_sge *s)
{
	struct obj *mr = pick_mr();

	if (mr && mr->mr.len && mr->mr.len < (1ull << 32) &&
	    (sane || chance(80))) {
		__u64 off = rnd((__u32)mr->mr.len);

		s->addr = mr->mr.iova + off;
		/* sane: within a UD MTU */
		s->length = 1 + rnd((__u32)min_sz(mr->mr.len - off,
						  sane ? 1024 : 8192));
		s->lkey = mr->mr.lkey;
		return;
	}
	s->addr = safe_word();
	s->length = pick_u32(1, 4096, 1u << 31);
	s->lkey = mr ? mr->mr.lkey + rnd(3) : (__u32)next64();
}

/* The target of an RDMA or atomic: a live MR's range and rkey, or noise. */
void pick_remote(__u64 *addr, __u32 *rkey)
{
	struct obj *mr = pick_mr();

	if (mr && mr->mr.len >= 8 && mr->mr.len < (1ull << 32) &&
	    (sane || chance(80))) {
		*addr = (mr->mr.iova + rnd((__u32)mr->mr.len - 7)) & ~7ull;
		*rkey = mr->mr.rkey;
		return;
	}
	*addr = safe_word();
	*rkey = (__u32)next64();
}
