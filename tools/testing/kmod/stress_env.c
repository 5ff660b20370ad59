// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: what every case runs in. st_env holds the device, the PD
 * and the parameters (stress_main.c sets it up before the first case).
 * During a flow st_fail() counts what goes wrong, the first violation
 * being its case's diagnostic in the case's KTAP result.
 */
#include "stress.h"

#define ST_FAILS_LOGGED 5	/* violations of a case that go to the log */

struct st_env st_env;

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
