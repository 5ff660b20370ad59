// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_ktest: runs a test module's table and writes its KTAP, the one
 * KTAP writer of tools/testing/kmod. The plan is the table's size and is
 * written before the first case runs; each case adds one result line.
 */
#include <linux/vmalloc.h>
#include "ktest.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("The library of rdmavt's kernel test modules");

#define KT_HEADER_LEN 64
#define KT_LINE_LEN (KT_DIAG_LEN + 96)	/* "not ok N name # diag\n" */

static void kt_write(struct kt_suite *s, bool ok, const char *name,
		     const char *diag)
{
	s->n++;
	s->len += scnprintf(s->text + s->len, s->size - s->len,
			    "%sok %u %s%s%s\n", ok ? "" : "not ", s->n, name,
			    *diag ? " # " : "", diag);
	/* Readable as it grows: a crash leaves what came before it. */
	WRITE_ONCE(s->blob.size, s->len);
	pr_info("%s: %sok %u %s %s\n", s->name, ok ? "" : "not ", s->n, name,
		diag);
}

static __printf(4, 0) void kt_verdict(struct kt_test *t, bool ok,
				      const char *prefix, const char *fmt,
				      va_list args)
{
	size_t len;

	if (++t->verdicts > 1) {
		t->ok = false;
		strscpy(t->diag, "more than one verdict", sizeof(t->diag));
		return;
	}
	t->ok = ok;
	len = strscpy(t->diag, prefix, sizeof(t->diag));
	if (fmt)
		vscnprintf(t->diag + len, sizeof(t->diag) - len, fmt, args);
}

/**
 * kt_result - the verdict of the running case
 * @t: the case
 * @ok: passed
 * @fmt: its diagnostic, or NULL for none
 *
 * A case gives one verdict; a second one fails it.
 *
 * Context: the case's own thread, from its run function.
 */
void kt_result(struct kt_test *t, bool ok, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	kt_verdict(t, ok, "", fmt, args);
	va_end(args);
}
EXPORT_SYMBOL(kt_result);

/**
 * kt_skip - the running case did not run, and why
 * @t: the case
 * @fmt: the reason
 *
 * Context: the case's own thread, from its run function.
 */
void kt_skip(struct kt_test *t, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	kt_verdict(t, true, "SKIP ", fmt, args);
	va_end(args);
}
EXPORT_SYMBOL(kt_skip);

static void kt_run_case(struct kt_suite *s, const struct kt_case *c)
{
	const char *why = s->skip ? s->skip(c) : NULL;
	struct kt_test t = { .c = c };

	if (why) {
		snprintf(t.diag, sizeof(t.diag), "SKIP %s", why);
		kt_write(s, true, c->name, t.diag);
		return;
	}
	c->run(&t);
	if (!t.verdicts) {
		t.ok = false;
		strscpy(t.diag, "no verdict", sizeof(t.diag));
	}
	kt_write(s, t.ok, c->name, t.diag);
}

/**
 * kt_suite_run - run a test module's table and publish its results
 * @s: the module's suite
 *
 * Writes the plan, shows the results in debugfs, sets up, runs every
 * case in order (each "not ok" when the setup failed) and tears down.
 *
 * Return: 0, or -ENOMEM when there is no room for the results.
 * Context: process context (module init); sleeps.
 */
int kt_suite_run(struct kt_suite *s)
{
	unsigned int i;
	int ret;

	s->size = KT_HEADER_LEN + s->ncases * KT_LINE_LEN;
	s->text = kvzalloc(s->size, GFP_KERNEL);
	if (!s->text)
		return -ENOMEM;
	s->n = 0;
	s->len = scnprintf(s->text, s->size, "KTAP version 1\n1..%u\n",
			   s->ncases);
	s->blob.data = s->text;
	s->blob.size = s->len;
	s->dir = debugfs_create_dir(s->name, NULL);
	debugfs_create_blob("results", 0444, s->dir, &s->blob);

	ret = s->setup ? s->setup() : 0;
	if (ret)
		pr_err("%s: setup failed: %d\n", s->name, ret);
	for (i = 0; i < s->ncases; i++) {
		if (ret)
			kt_write(s, false, s->cases[i].name,
				 "not run: setup failed");
		else
			kt_run_case(s, &s->cases[i]);
	}
	if (!ret && s->teardown)
		s->teardown();
	return 0;
}
EXPORT_SYMBOL(kt_suite_run);

/**
 * kt_suite_exit - remove a test module's results
 * @s: the module's suite
 *
 * Context: process context (module exit).
 */
void kt_suite_exit(struct kt_suite *s)
{
	debugfs_remove_recursive(s->dir);
	kvfree(s->text);
}
EXPORT_SYMBOL(kt_suite_exit);
