// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: what every case runs in and reports to. st_env holds the
 * device, the PD and the parameters (stress_main.c sets it up before the
 * first case). The results are KTAP text, shown in
 * /sys/kernel/debug/rvt_stress/results once every case has run: a line
 * per case from st_report(); during a flow st_fail() counts what goes
 * wrong, the first violation being its case's diagnostic.
 */
#include <linux/debugfs.h>
#include <linux/vmalloc.h>
#include "stress.h"

#define RESULTS_SIZE (16 * 1024)
#define ST_FAILS_LOGGED 5	/* violations of a case that go to the log */

struct st_env st_env;

static struct {
	char *text;
	size_t len;
	unsigned int n;
} results;

static struct debugfs_blob_wrapper results_blob;
static struct dentry *debugfs_dir;

/* The results, with the KTAP header of a plan of @cases. */
int st_results_open(unsigned int cases)
{
	results.text = kvzalloc(RESULTS_SIZE, GFP_KERNEL);
	if (!results.text)
		return -ENOMEM;
	results.len = scnprintf(results.text, RESULTS_SIZE,
				"KTAP version 1\n1..%u\n", cases);
	return 0;
}

void st_report(bool ok, const char *name, const char *fmt, ...)
{
	char diag[ST_WHY_LEN * 2] = "";
	va_list args;

	va_start(args, fmt);
	vscnprintf(diag, sizeof(diag), fmt, args);
	va_end(args);
	results.n++;
	results.len += scnprintf(results.text + results.len,
				 RESULTS_SIZE - results.len, "%sok %u %s%s%s\n",
				 ok ? "" : "not ", results.n, name,
				 *diag ? " # " : "", diag);
	pr_info("rvt_stress: %sok %u %s %s\n", ok ? "" : "not ", results.n,
		name, diag);
}

/* Show the results in debugfs, until st_results_close(). */
void st_results_publish(void)
{
	results_blob.data = results.text;
	results_blob.size = results.len;
	debugfs_dir = debugfs_create_dir("rvt_stress", NULL);
	debugfs_create_blob("results", 0444, debugfs_dir, &results_blob);
}

void st_results_close(void)
{
	debugfs_remove_recursive(debugfs_dir);
	kvfree(results.text);
}

/* Count a violation; the first one is the case's diagnostic. */
void st_fail(struct st_flow *f, const char *fmt, ...)
{
	unsigned long flags;
	va_list args;
	char why[ST_WHY_LEN];
	int n;

	n = atomic_inc_return(&f->violations);
	if (n > ST_FAILS_LOGGED)
		return;
	va_start(args, fmt);
	vscnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (n == 1) {
		spin_lock_irqsave(&f->why_lock, flags);
		strscpy(f->why, why, sizeof(f->why));
		spin_unlock_irqrestore(&f->why_lock, flags);
	}
	pr_info("rvt_stress: %s: %s\n", f->c->name, why);
}
