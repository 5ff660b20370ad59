// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: the random sequence, and the values drawn from it. */
#include "fuzz.h"

__u64 rng;

/* splitmix64: one 64-bit state, so a seed is the whole sequence. */
__u64 next64(void)
{
	__u64 z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

__u32 rnd(__u32 n)
{
	return n ? (__u32)(next64() % n) : 0;
}

bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

/*
 * This step draws only sensible values: live handles, valid pointers,
 * the ABI's sizes. Half the steps are, so that objects get made, wired
 * and used, and the hostile half has something to break.
 */
bool sane;
/* The setup and the data check: only calls as the ABI says. */
bool exact_mode;

/* The values around a limit, and the ones that break signed arithmetic. */
__u32 boundary(__u32 max)
{
	const __u32 b[] = { 0, 1, max - 1, max, max + 1, 0xffffffffu,
			    0x80000000u, 0x7fffffffu };

	return b[rnd(NELEMS(b))];
}

/* A count: mostly sensible (lo..hi), else a boundary of max, or anything. */
__u32 pick_u32(__u32 lo, __u32 hi, __u32 max)
{
	__u32 r = rnd(20);

	if (sane || r < 13)
		return lo + rnd(hi - lo + 1);
	if (r < 17)
		return boundary(max);
	if (r < 19)
		return rnd(256);
	return (__u32)next64();
}

/* A small field (u8): sensible, its boundaries, or anything. */
__u8 pick_u8(__u8 sensible, __u8 max)
{
	__u32 r = rnd(10);

	if (sane || r < 7)
		return sensible;
	if (r < 9)
		return (__u8)boundary(max);
	return (__u8)rnd(256);
}
