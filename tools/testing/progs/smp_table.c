// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * smp_table: read, or write, one entry of a switch's forwarding tables
 * with LID-routed SubnGet/SubnSet SMPs, as a subnet manager programs
 * them (infiniband-diags can read the tables, ibroute, but not write
 * them).
 *
 *   smp_table CA PORT lft SWITCH_LID LID [OUT_PORT]
 *   smp_table CA PORT mft SWITCH_LID MLID [PORT_MASK]
 *
 * lft: the output port of LID; mft: the mask of ports 0-15 of MLID
 * (position 0). With the last argument the entry is set first (the rest
 * of its block as it was). Prints "LID PORT" or "MLID 0xMASK", as the
 * switch answered. Exit status: 0, 1 if an SMP failed or was refused
 * (its MAD status printed), 2 for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#define LFT_BLOCK 64
#define MFT_BLOCK 32
#define MLID_BASE 0xc000
#define TIMEOUT_MS 2000

static struct ibmad_port *srcport;
static ib_portid_t sw;

/* One SMP; returns 0 or prints what went wrong and returns 1. */
static int smp(int set, unsigned int attr, unsigned int mod, uint8_t *data)
{
	int status = 0;
	uint8_t *ok;

	if (set)
		ok = smp_set_status_via(data, &sw, attr, mod, TIMEOUT_MS,
					&status, srcport);
	else
		ok = smp_query_status_via(data, &sw, attr, mod, TIMEOUT_MS,
					  &status, srcport);
	if (!ok || status) {
		fprintf(stderr, "Subn%s(%#x, mod %#x): %s, MAD status %#x\n",
			set ? "Set" : "Get", attr, mod,
			ok ? "refused" : "no answer", status);
		return 1;
	}
	return 0;
}

static int lft(unsigned int lid, const char *out)
{
	uint8_t block[IB_SMP_DATA_SIZE] = { 0 };
	unsigned int mod = lid / LFT_BLOCK;

	if (smp(0, IB_ATTR_LINEARFORWTBL, mod, block))
		return 1;
	if (out) {
		block[lid % LFT_BLOCK] = strtoul(out, NULL, 0);
		if (smp(1, IB_ATTR_LINEARFORWTBL, mod, block))
			return 1;
	}
	printf("%u %u\n", lid, block[lid % LFT_BLOCK]);
	return 0;
}

static int mft(unsigned int mlid, const char *mask)
{
	uint8_t block[IB_SMP_DATA_SIZE] = { 0 };
	unsigned int index = mlid - MLID_BASE;
	unsigned int mod = index / MFT_BLOCK;	/* position 0 */
	uint8_t *entry = block + 2 * (index % MFT_BLOCK);

	if (mlid < MLID_BASE) {
		fprintf(stderr, "%#x is not a multicast LID\n", mlid);
		return 2;
	}
	if (smp(0, IB_ATTR_MULTICASTFORWTBL, mod, block))
		return 1;
	if (mask) {
		unsigned long m = strtoul(mask, NULL, 0);

		entry[0] = m >> 8;
		entry[1] = m & 0xff;
		if (smp(1, IB_ATTR_MULTICASTFORWTBL, mod, block))
			return 1;
	}
	printf("%#x %#x\n", mlid, entry[0] << 8 | entry[1]);
	return 0;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	unsigned int entry;

	if (argc < 6 || argc > 7 ||
	    (strcmp(argv[3], "lft") && strcmp(argv[3], "mft"))) {
		fprintf(stderr,
			"usage: %s CA PORT lft|mft SWITCH_LID LID [VALUE]\n",
			argv[0]);
		return 2;
	}
	srcport = mad_rpc_open_port(argv[1], atoi(argv[2]), classes, 2);
	if (!srcport) {
		fprintf(stderr, "cannot open %s port %s\n", argv[1], argv[2]);
		return 1;
	}
	ib_portid_set(&sw, strtoul(argv[4], NULL, 0), 0, 0);
	entry = strtoul(argv[5], NULL, 0);
	if (!strcmp(argv[3], "lft"))
		return lft(entry, argc == 7 ? argv[6] : NULL);
	return mft(entry, argc == 7 ? argv[6] : NULL);
}
