// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: the memory the program owns, and pointers drawn into it. */
#include "fuzz.h"

char *resp_buf;		/* responses; a PROT_NONE guard follows */
char *guard;		/* PROT_NONE: any access faults */
char *ro_page;		/* read-only, filled with PATTERN */
char *scratch;		/* what random pointers may point at */
char *arena;		/* what MRs are registered on */

/*
 * A child's failures, which its parent adds to its own when it reaps it
 * (a killed child cannot report them otherwise); MAP_SHARED.
 */
unsigned long *child_failures;

/* A pointer of a kind; PK_VALID is @valid. None is memory of another. */
__u64 ptr_of(enum ptr_kind k, void *valid)
{
	switch (k) {
	case PK_VALID:
		return (__u64)(unsigned long)valid;
	case PK_NULL:
		return 0;
	case PK_GUARD:
		return (__u64)(unsigned long)guard;
	case PK_RO:
		return (__u64)(unsigned long)ro_page;
	case PK_KERNEL:
		return KERNEL_PTR + rnd(1u << 20) * 8;
	case PK_NONCANON:
		return NONCANON_PTR;
	case PK_EDGE:	/* the last 8 bytes before the guard */
		return (__u64)(unsigned long)(guard - 8);
	default:	/* below mmap_min_addr: never mapped */
		return rnd(65536);
	}
}

enum ptr_kind pick_ptr_kind(void)
{
	return sane || chance(82) ? PK_VALID : (enum ptr_kind)(1 + rnd(NR_PK - 1));
}

/*
 * A word for a field of unknown meaning (random commands and attributes):
 * when the kernel takes it for a pointer it is the scratch buffer or one
 * that cannot be mapped, never other memory of ours.
 */
__u64 safe_word(void)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return rnd(16);
	case 2:
		return rnd(65536);
	case 3:
		return (__u64)(unsigned long)scratch + rnd(SCRATCH_BYTES - 256);
	case 4:
		return ptr_of((enum ptr_kind)(1 + rnd(NR_PK - 1)), NULL);
	case 5:
		return ~0ull;
	case 6:
		return next64() | (1ull << 63);	/* never a user address */
	default:
		return boundary(0x10000);
	}
}

void fill_safe(void *p, size_t len)
{
	__u64 w;
	size_t i;

	for (i = 0; i < len; i += sizeof(w)) {
		w = safe_word();
		memcpy((char *)p + i, &w, min_sz(sizeof(w), len - i));
	}
}

static void *map_or_die(size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void *map_anon(size_t len, int prot)
{
	return map_or_die(len, prot, MAP_PRIVATE);
}

static void protect(void *p, size_t len, int prot)
{
	if (mprotect(p, len, prot)) {
		perror("mprotect");
		exit(2);
	}
}

void setup_memory(void)
{
	resp_buf = map_anon(RESP_BYTES + PAGE, PROT_READ | PROT_WRITE);
	guard = resp_buf + RESP_BYTES;
	protect(guard, PAGE, PROT_NONE);
	/* Written before it turns read-only: a page of its own, not zero's. */
	ro_page = map_anon(PAGE, PROT_READ | PROT_WRITE);
	memset(ro_page, PATTERN, PAGE);
	protect(ro_page, PAGE, PROT_READ);
	/*
	 * Twice the room pointers into it are drawn from, and a guard: a
	 * length field is at most 64 KiB, so what the kernel writes at such
	 * a pointer stays in the buffer or faults.
	 */
	scratch = map_anon(2 * SCRATCH_BYTES + PAGE, PROT_READ | PROT_WRITE);
	protect(scratch + 2 * SCRATCH_BYTES, PAGE, PROT_NONE);
	child_failures = map_or_die(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED);
	arena = map_anon(ARENA_BYTES, PROT_READ | PROT_WRITE);
	memset(arena, 0, ARENA_BYTES);
}
