// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A QEMU TCG plugin that counts the instructions the guest runs, by the
 * address of the translation block they belong to: an exact instruction
 * profile of a guest, where the guest's own perf cannot see into code that
 * runs with interrupts off (TCG has no PMU; a timer's sample lands where
 * interrupts come back on).
 *
 * Usage (tools/vm/run.sh --insn-profile FILE does this):
 *   qemu-system-x86_64 ... -plugin insn_profile.so,out=FILE
 * At exit FILE gets a line per block address that ran:
 *   <address, hex> <instructions run there>
 * most first. tools/vm/insn_profile.py turns that into functions, with a
 * /proc/kallsyms taken in the guest.
 *
 * Blocks count their executions with an inline add, which is not atomic:
 * exact when one host thread runs every vCPU (run.sh --icount), a close
 * estimate otherwise.
 *
 * Built against QEMU's plugin API version 1 (QEMU 7.x): see
 * qemu_plugin_api.h.
 */
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* One translation of a block; a block translated again gets another. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t runs;	/* the inline add's target */
};

/*
 * Blocks are allocated in chunks that never move, since the generated
 * code holds the address of each counter. The list of chunks is guarded
 * by lock (translations may run on several host threads).
 */
#define CHUNK 65536

struct chunk {
	struct chunk *next;
	size_t used;
	struct block blocks[CHUNK];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;
static const char *out_path;

static struct block *new_block(void)
{
	struct chunk *c = chunks;

	if (!c || c->used == CHUNK) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->next = chunks;
		chunks = c;
	}
	return &c->blocks[c->used++];
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b;

	(void)id;
	pthread_mutex_lock(&lock);
	b = new_block();
	if (b) {
		b->vaddr = qemu_plugin_tb_vaddr(tb);
		b->insns = qemu_plugin_tb_n_insns(tb);
	}
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &b->runs, 1);
}

struct total {
	uint64_t vaddr;
	uint64_t insns;
};

static int by_vaddr(const void *a, const void *b)
{
	const struct total *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int by_insns(const void *a, const void *b)
{
	const struct total *x = a, *y = b;

	return x->insns > y->insns ? -1 : x->insns < y->insns;
}

/* The blocks' instruction counts, summed by address; sets *n. */
static struct total *totals(size_t *n)
{
	size_t count = 0, i, j = 0;
	struct total *t;
	struct chunk *c;

	for (c = chunks; c; c = c->next)
		count += c->used;
	t = calloc(count ? count : 1, sizeof(*t));
	if (!t)
		return NULL;
	for (c = chunks; c; c = c->next)
		for (i = 0; i < c->used; i++, j++) {
			t[j].vaddr = c->blocks[i].vaddr;
			t[j].insns = c->blocks[i].insns * c->blocks[i].runs;
		}
	qsort(t, count, sizeof(*t), by_vaddr);
	for (i = 0, j = 0; i < count; i++) {
		if (j && t[j - 1].vaddr == t[i].vaddr)
			t[j - 1].insns += t[i].insns;
		else
			t[j++] = t[i];
	}
	*n = j;
	qsort(t, j, sizeof(*t), by_insns);
	return t;
}

static void finished(qemu_plugin_id_t id, void *userdata)
{
	struct total *t;
	size_t n, i;
	FILE *f;

	(void)id;
	(void)userdata;
	t = totals(&n);
	f = fopen(out_path, "w");
	if (!t || !f) {
		fprintf(stderr, "insn_profile: cannot write %s\n", out_path);
		goto out;
	}
	for (i = 0; i < n && t[i].insns; i++)
		fprintf(f, "%llx %llu\n", (unsigned long long)t[i].vaddr,
			(unsigned long long)t[i].insns);
	fclose(f);
out:
	free(t);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "insn_profile: out=FILE is missing\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, finished, NULL);
	return 0;
}
