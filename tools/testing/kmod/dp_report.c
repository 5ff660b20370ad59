// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test's state and its KTAP report: every test's verdict goes
 * through report(), which numbers it and appends it to the results that
 * dp_main.c publishes in debugfs.
 */
#include "dp_test.h"

struct dpt_env env;

void report(bool ok, const char *name, const char *fmt, ...)
{
	char diag[200] = "";
	va_list args;

	if (fmt) {
		va_start(args, fmt);
		vscnprintf(diag, sizeof(diag), fmt, args);
		va_end(args);
	}
	env.ntests++;
	env.len += scnprintf(env.results + env.len, RESULTS_SIZE - env.len,
			     "%sok %u %s%s%s\n", ok ? "" : "not ",
			     env.ntests, name, *diag ? " # " : "", diag);
	pr_info("rvt_dp_test: %sok %u %s %s\n", ok ? "" : "not ",
		env.ntests, name, diag);
}
