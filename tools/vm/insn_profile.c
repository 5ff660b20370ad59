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
 * Marks cut one boot into several profiles: each time the guest runs the
 * mark instruction (tools/vm/insn_mark.c runs it once), the counts since
 * the previous mark (or the boot) go to FILE.1, FILE.2, ..., and counting
 * starts again from zero; FILE then holds what ran after the last mark.
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
static unsigned int marks;

/*
 * The mark: a seven-byte NOP whose displacement spells "RVTM" (nopl
 * 0x4d545652(%rax)), which no compiler emits.
 */
static const uint8_t mark_insn[] = { 0x0f, 0x1f, 0x80, 'R', 'V', 'T', 'M' };

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

static void marked(unsigned int vcpu_index, void *userdata);

static int has_mark(const struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t size = qemu_plugin_insn_size(insn);
		const uint8_t *data = qemu_plugin_insn_data(insn);

		/* Prefixes allowed (real mode needs an address size one) */
		if (size >= sizeof(mark_insn) &&
		    !memcmp(data + size - sizeof(mark_insn), mark_insn,
			    sizeof(mark_insn)))
			return 1;
	}
	return 0;
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
	if (has_mark(tb))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, marked,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
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

/* The counts so far into PATH; the caller holds lock. */
static void write_profile(const char *path)
{
	struct total *t;
	size_t n, i;
	FILE *f;

	t = totals(&n);
	f = fopen(path, "w");
	if (!t || !f) {
		fprintf(stderr, "insn_profile: cannot write %s\n", path);
		if (f)
			fclose(f);
		goto out;
	}
	for (i = 0; i < n && t[i].insns; i++)
		fprintf(f, "%llx %llu\n", (unsigned long long)t[i].vaddr,
			(unsigned long long)t[i].insns);
	fclose(f);
out:
	free(t);
}

/*
 * The guest ran the mark: the profile since the last one to FILE.N, and
 * every count back to zero. Exact with one host thread for all vCPUs
 * (--icount): no other vCPU counts while this one writes and clears.
 */
static void marked(unsigned int vcpu_index, void *userdata)
{
	char path[4096];
	struct chunk *c;
	size_t i;

	(void)vcpu_index;
	(void)userdata;
	pthread_mutex_lock(&lock);
	snprintf(path, sizeof(path), "%s.%u", out_path, ++marks);
	write_profile(path);
	for (c = chunks; c; c = c->next)
		for (i = 0; i < c->used; i++)
			c->blocks[i].runs = 0;
	pthread_mutex_unlock(&lock);
}

static void finished(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	pthread_mutex_lock(&lock);
	write_profile(out_path);
	pthread_mutex_unlock(&lock);
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
