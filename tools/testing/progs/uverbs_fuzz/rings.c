// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * uverbs_fuzz: the mappings of the uverbs file: the rings the create and
 * resize responses return cookies for, random mappings, scribbles, and
 * the provider's side of the rings.
 */
#include "fuzz.h"

/* Cookies the kernel returned on this fd, for mmap() at a known offset. */
static __u64 cookies[MAX_COOKIES];
static unsigned int ncookies;

void note_cookie(__u64 cookie)
{
	cookies[ncookies++ % MAX_COOKIES] = cookie;
}

/* A new uverbs file: no cookie of the old one means anything on it. */
void forget_cookies(void)
{
	ncookies = 0;
}

static struct ring rings[MAX_RINGS];
static unsigned int nrings;

/* The ring mapped last, or NULL. */
struct ring *newest_ring(void)
{
	return nrings ? &rings[nrings - 1] : NULL;
}

static size_t page_align(size_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

struct ring *pick_ring(bool need_writable, int kind)
{
	struct ring *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < nrings; i++) {
		struct ring *r = &rings[i];

		if ((need_writable && !r->writable) ||
		    (kind >= 0 && r->kind != (enum ring_kind)kind))
			continue;
		if (rnd(++n) == 0)
			found = r;
	}
	return found;
}

static void forget_ring(struct ring *r)
{
	*r = rings[--nrings];
}

static void unmap_ring(struct ring *r)
{
	describe("munmap ring %p len %zu", (void *)r->addr, r->len);
	timer_on();
	if (munmap(r->addr, r->len))
		failf("munmap of our own mapping: %s", strerror(errno));
	timer_off();
	forget_ring(r);
}

void unmap_all_rings(void)
{
	while (nrings)
		unmap_ring(&rings[nrings - 1]);
}

/* Bytes of a receive ring of @slots entries of @sge SGEs (rvt_rwq). */
size_t rq_bytes(__u32 slots, __u32 sge)
{
	return RING_HDR + (size_t)slots * (RWQE_BYTES + (size_t)sge * SGE_BYTES);
}

size_t cq_bytes(__u32 cqe)
{
	return RING_HDR + ((size_t)cqe + 1) * UVERBS_WC_BYTES;
}

/*
 * Map the ring a create or resize just returned @cookie for, as the
 * provider does: @bytes is what the provider would map. The kernel must
 * take that size for a fresh cookie of this context.
 */
void map_new_ring(__u64 cookie, size_t bytes, enum ring_kind kind,
		  __u32 slots, __u32 stride, __u32 max_sge, __u32 pd)
{
	size_t len = page_align(bytes);
	struct ring *r;
	void *p;
	int err;

	note_cookie(cookie);
	if (!cookie || nrings == MAX_RINGS || (!exact_mode && chance(12)))
		return;	/* sometimes never mapped: the kernel frees it alone */
	describe("mmap ring kind %d cookie %#llx len %zu", kind,
		 (unsigned long long)cookie, len);
	timer_on();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, cookie);
	err = errno;
	timer_off();
	count(OP_MMAP_RING, p != MAP_FAILED, err);
	if (p == MAP_FAILED) {
		if (err == EINVAL && !fd_shared)
			failf("the ring's own size refused for a fresh cookie");
		return;
	}
	r = &rings[nrings++];
	*r = (struct ring){ .addr = p, .len = len, .writable = true,
			    .kind = kind, .slots = slots, .stride = stride,
			    .max_sge = max_sge, .pd = pd };
}

/* Map a receive ring (RQ or SRQ) of @max_wr entries of @max_sge SGEs. */
void map_rq_ring(__u64 cookie, enum ring_kind kind, __u32 max_wr,
		 __u32 max_sge, __u32 pd)
{
	map_new_ring(cookie, rq_bytes(max_wr + 1, max_sge), kind, max_wr + 1,
		     RWQE_BYTES + max_sge * SGE_BYTES, max_sge, pd);
}

static __u32 ring_load(struct ring *r, size_t off)
{
	return __atomic_load_n((__u32 *)(r->addr + off), __ATOMIC_ACQUIRE);
}

void ring_store(struct ring *r, size_t off, __u32 v)
{
	__atomic_store_n((__u32 *)(r->addr + off), v, __ATOMIC_RELEASE);
}

/* An index value for a ring of @slots: in range, at its edges, or wild. */
static __u32 pick_index(__u32 slots)
{
	return rnd(3) ? rnd(slots ? slots : 1) : boundary(slots);
}

/* Write something hostile on a mapped ring, where the kernel reads. */
void scribble(void)
{
	struct ring *r = pick_ring(true, -1);
	size_t off, entry;
	__u32 v;

	if (!r)
		return;
	scribbles++;
	switch (rnd(8)) {
	case 0:
	case 1:
		off = 0;	/* head */
		v = pick_index(r->slots);
		break;
	case 2:
	case 3:
		off = 4;	/* tail */
		v = pick_index(r->slots);
		break;
	case 4:
		/* an entry's SGE count, which the kernel must bound */
		if ((r->kind != RING_RQ && r->kind != RING_SRQ) ||
		    (avoid & AV_RQ_SGE_COUNT))
			return;
		entry = RING_HDR + (size_t)rnd(r->slots) * r->stride + 8;
		if (entry + 4 > r->len)
			return;
		v = rnd(2) ? r->max_sge + rnd(3) : rnd(256);
		r->addr[entry] = (char)v;
		if (verbose)
			printf("%sstep %lu: num_sge at +%zu := %u\n",
			       who(), step, entry, v & 0xff);
		return;
	default:
		off = (RING_HDR + rnd(r->len - RING_HDR)) & ~3ul;
		v = rnd(2) ? (__u32)next64() : boundary(r->slots);
		/* any entry word of a receive ring may be an SGE count */
		if ((avoid & AV_RQ_SGE_COUNT) && r->kind != RING_CQ)
			off = 4 * rnd(2);
		break;
	}
	if (off + 4 > r->len)
		return;
	if (verbose)
		printf("%sstep %lu: ring %p +%zu := %#x\n", who(), step,
		       (void *)r->addr, off, v);
	ring_store(r, off, v);
}

static __u64 pick_mmap_offset(void)
{
	__u64 c = ncookies ? cookies[rnd(min_sz(ncookies, MAX_COOKIES))] : 0;

	switch (rnd(8)) {
	case 0:
	case 1:
		return c;
	case 2:
		return c + PAGE;
	case 3:
		return c - PAGE;
	case 4:
		return 0;
	case 5:
		return (__u64)rnd(1u << 20) * PAGE;
	case 6:
		return (__u64)boundary(0xfffff) * PAGE;
	default:
		return next64() & ~(PAGE - 1) & ((1ull << 44) - 1);
	}
}

void act_mmap_random(void)
{
	const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE,
			      PROT_NONE, PROT_READ | PROT_WRITE | PROT_EXEC };
	const size_t lens[] = { PAGE, 2 * PAGE, 16 * PAGE, 1ul << 30, 0,
				PAGE + 1, 257 * PAGE };
	__u64 off = pick_mmap_offset();
	size_t len = lens[rnd(NELEMS(lens))];
	int prot = chance(70) ? prots[0] : prots[rnd(NELEMS(prots))];
	int flags = chance(80) ? MAP_SHARED : chance(50) ? MAP_PRIVATE :
		    MAP_SHARED | MAP_POPULATE;
	void *p;
	int err;

	if (nrings == MAX_RINGS)
		return;
	describe("mmap offset %#llx len %zu prot %#x flags %#x",
		 (unsigned long long)off, len, prot, flags);
	timer_on();
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	err = errno;
	timer_off();
	count(OP_MMAP_RANDOM, p != MAP_FAILED, err);
	if (p == MAP_FAILED)
		return;
	rings[nrings++] = (struct ring){ .addr = p, .len = page_align(len),
		.writable = (prot & PROT_WRITE) && (flags & MAP_SHARED),
		.kind = RING_OTHER, .slots = 1, .stride = 1 };
}

/* Unmap a ring, or only its last page (the VMA splits). */
void act_munmap(void)
{
	struct ring *r = pick_ring(false, -1);
	int ret, err;

	if (!r)
		return;
	if (r->len <= PAGE || chance(60)) {
		unmap_ring(r);
		count(OP_MUNMAP, true, 0);
		return;
	}
	describe("munmap last page of %p len %zu", (void *)r->addr, r->len);
	timer_on();
	ret = munmap(r->addr + r->len - PAGE, PAGE);
	err = errno;
	timer_off();
	count(OP_MUNMAP, ret == 0, err);
	if (ret)
		failf("munmap of our own mapping: %s", strerror(err));
	else
		r->len -= PAGE;
}

/* Post a receive into a ring as ipathverbs does, SGEs from our MRs. */
void act_ring_post_recv(void)
{
	struct ring *r = pick_ring(true, chance(50) ? RING_RQ : RING_SRQ);
	__u32 head, tail, next, n, i;
	char *e;

	if (!r || r->len < rq_bytes(r->slots, r->max_sge) || r->slots < 2)
		return;
	head = ring_load(r, 0);
	tail = ring_load(r, 4);
	if (head >= r->slots || tail >= r->slots) {
		if (chance(50))
			return;
		/* repair what a scribble broke */
		if (tail >= r->slots)
			tail = 0;
		head = tail;
		ring_store(r, 4, tail);
	}
	next = head + 1 == r->slots ? 0 : head + 1;
	if (next == tail)
		return;
	e = r->addr + RING_HDR + (size_t)head * r->stride;
	n = r->max_sge ? 1 + rnd(r->max_sge) : 0;
	post_pd = r->pd;
	memcpy(e, &(__u64){ step }, sizeof(__u64));
	e[8] = (char)(chance(95) || (avoid & AV_RQ_SGE_COUNT) ? n :
		      r->max_sge + 1 + rnd(4));
	for (i = 0; i < n; i++)
		pick_sge((struct ib_uverbs_sge *)(e + RWQE_BYTES +
						  i * SGE_BYTES));
	ring_store(r, 0, next);
	ring_posts++;
	if (verbose)
		printf("%sstep %lu: ring post recv at %u, %u sges\n", who(),
		       step, head, n);
}

/* Take a completion from a mapped CQ ring as the provider does. */
void act_ring_poll(void)
{
	struct ring *r = pick_ring(true, RING_CQ);
	__u32 head, tail;

	if (!r || r->len < cq_bytes(r->slots - 1))
		return;
	head = ring_load(r, 0);
	tail = ring_load(r, 4);
	if (head >= r->slots || tail >= r->slots || head == tail)
		return;
	memcpy(scratch, r->addr + RING_HDR + (size_t)tail * UVERBS_WC_BYTES,
	       UVERBS_WC_BYTES);
	ring_wcs++;
	ring_store(r, 4, tail + 1 == r->slots ? 0 : tail + 1);
}
