// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The two CRCs of an InfiniBand packet (IBTA vol. 1, 7.8).
 *
 * The ICRC is end to end: a CRC-32 (Ethernet's polynomial, computed as
 * rxe computes RoCE's: crc32_le() seeded with all ones, the result
 * inverted and sent least significant byte first) over every field from
 * the LRH to the end of the payload and its pad, with the fields that may
 * change on the way read as all ones: the LRH's VL in a local packet, the
 * whole LRH in a global one (a router rewrites it), the GRH's traffic
 * class, flow label and hop limit, and the BTH's reserved byte.
 *
 * The VCRC is per link: a CRC-16 (polynomial 0x100B, seeded with all
 * ones, bits taken least significant first, the result inverted and sent
 * least significant byte first) over everything from the LRH to the end
 * of the ICRC, variant fields included. Its table is built at module
 * init; wire_selftest.c then checks both CRCs against known answers.
 */
#include <linux/crc32.h>
#include "wire.h"

/* 0x100B, bit-reversed: the VCRC polynomial for bits taken LSB first. */
#define RVTSW_VCRC_POLY_REFLECTED 0xd008

/*
 * The VCRC tables, filled once by rvtsw_crc_init(): [0] is the CRC of
 * each byte value, [k] that of the byte followed by k zero bytes, so
 * four bytes go at a time.
 */
static u16 rvtsw_vcrc_table[4][256] __ro_after_init;

/* The LRH, GRH and BTH bytes the ICRC reads as all ones (7.8.1). */
#define RVTSW_LRH_VL_MASK 0xf0		/* byte 0 of the LRH */
#define RVTSW_BTH_RESV8A 4		/* byte 4 of the BTH */

/*
 * The invariant view of a packet's first headers: its LRH, GRH (if the
 * LNH says there is one) and BTH, with the variant fields set to ones.
 * Return: how many bytes of @pkt it covers.
 */
static unsigned int rvtsw_icrc_mask(const u8 *pkt, unsigned int len, u8 *out)
{
	bool global = (pkt[1] & IB_LNH_MASK) == RVTSW_LNH_IBA_GLOBAL;
	unsigned int bth, n;

	bth = RVTSW_LRH_BYTES + (global ? RVTSW_GRH_BYTES : 0);
	n = min(len, bth + RVTSW_BTH_BYTES);
	memcpy(out, pkt, n);
	if (global) {
		u8 *grh = out + RVTSW_LRH_BYTES;

		memset(out, 0xff, RVTSW_LRH_BYTES);
		if (n >= bth) {
			/* IPVer stays; TClass and FlowLabel go to ones. */
			grh[0] |= 0x0f;
			memset(grh + 1, 0xff, 3);
			grh[7] = 0xff;	/* HopLmt */
		}
	} else {
		out[0] |= RVTSW_LRH_VL_MASK;
	}
	if (n > bth + RVTSW_BTH_RESV8A)
		out[bth + RVTSW_BTH_RESV8A] = 0xff;
	return n;
}

/**
 * rvtsw_icrc - compute a packet's ICRC
 * @pkt: the packet, from its LRH
 * @len: the bytes it covers: up to the ICRC's place
 *
 * Context: any.
 * Return: the ICRC, to be stored with cpu_to_le32().
 */
u32 rvtsw_icrc(const void *pkt, unsigned int len)
{
	u8 head[RVTSW_LRH_BYTES + RVTSW_GRH_BYTES + RVTSW_BTH_BYTES];
	unsigned int n = rvtsw_icrc_mask(pkt, len, head);
	u32 crc;

	crc = crc32_le(~0U, head, n);
	crc = crc32_le(crc, (const u8 *)pkt + n, len - n);
	return ~crc;
}

/**
 * rvtsw_vcrc - compute a packet's VCRC
 * @pkt: the packet, from its LRH
 * @len: the bytes it covers: up to the VCRC's place (the ICRC included)
 *
 * Context: any, after rvtsw_crc_init().
 * Return: the VCRC, to be stored with cpu_to_le16().
 */
u16 rvtsw_vcrc(const void *pkt, unsigned int len)
{
	const u16 (*t)[256] = rvtsw_vcrc_table;
	const u8 *p = pkt;
	u32 crc = 0xffff;

	for (; len >= 4; len -= 4, p += 4) {
		crc ^= get_unaligned_le32(p);
		crc = t[3][crc & 0xff] ^ t[2][(crc >> 8) & 0xff] ^
		      t[1][(crc >> 16) & 0xff] ^ t[0][crc >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

/**
 * rvtsw_crc_init - build the VCRC's table
 *
 * Context: module init, before any packet is built or checked.
 */
void rvtsw_crc_init(void)
{
	u16 (*t)[256] = rvtsw_vcrc_table;
	unsigned int byte, bit, k;

	for (byte = 0; byte < 256; byte++) {
		u16 crc = byte;

		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^
			      ((crc & 1) ? RVTSW_VCRC_POLY_REFLECTED : 0);
		t[0][byte] = crc;
	}
	for (k = 1; k < ARRAY_SIZE(rvtsw_vcrc_table); k++)
		for (byte = 0; byte < 256; byte++)
			t[k][byte] = (t[k - 1][byte] >> 8) ^
				     t[0][t[k - 1][byte] & 0xff];
}
