// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * M_Key protection of an HCA port's SMA (IBTA vol. 1, 14.2.4).
 *
 * A port whose M_Key is not 0 checks the M_Key of every SMP that asks its
 * SMA something (Get, Set, TrapRepress). A wrong key is refused as its
 * M_KeyProtectBits say:
 *   0: a Get succeeds, M_Key and all; Set and TrapRepress fail;
 *   1: a Get succeeds, but PortInfo's M_Key reads 0;
 *   2, 3: every request fails.
 * A request that fails is dropped without a response, counted in
 * M_KeyViolations (which stops at 0xffff), and reported to the SM with
 * trap 256 (trap.c). The violation also starts the lease: if no request
 * with the right key comes within M_KeyLeasePeriod seconds, the protect
 * bits fall back to 0, so that a new SM can take over a port whose old SM
 * left with the key. A lease period of 0 never expires; a request with
 * the right key stops the countdown.
 *
 * SMInfo is the SM's attribute, not the SMA's (it has its SM_Key), and
 * is not checked here; nor are MADs the local stack asks for with
 * IB_MAD_IGNORE_MKEY. The switch keeps no M_Key (switch_sma.c).
 *
 * Locking: the port's M_Key, protect bits, lease and violation counter
 * are read and written under its rvp.lock (sma_set.c sets them there).
 */
#include <rdma/ib_mad.h>
#include "rvtsw.h"

/* The lowest M_KeyProtectBits at which a Get with a wrong key fails. */
#define RVTSW_MKEY_PROT_NO_GET 2
/* At this level a Get with a wrong key reads PortInfo's M_Key as 0. */
#define RVTSW_MKEY_PROT_HIDE 1

/* The lease ran out: the protection bits are cleared. */
static void rvtsw_mkey_expire_lease(struct rvt_ibport *rvp)
	__must_hold(&rvp->lock)
{
	if (rvp->mkey_lease_timeout &&
	    time_after_eq(jiffies, rvp->mkey_lease_timeout)) {
		rvp->mkey_lease_timeout = 0;
		WRITE_ONCE(rvp->mkeyprot, 0);
	}
}

/* A violation: counted, and the lease starts if it has a period. */
static void rvtsw_mkey_violation(struct rvt_ibport *rvp)
	__must_hold(&rvp->lock)
{
	if (rvp->mkey_violations != U16_MAX)
		WRITE_ONCE(rvp->mkey_violations, rvp->mkey_violations + 1);
	if (!rvp->mkey_lease_timeout && rvp->mkey_lease_period)
		rvp->mkey_lease_timeout =
			(jiffies + rvp->mkey_lease_period * HZ) ?: 1;
}

/*
 * Decide @smp under the port's lock. Return: the outcome; a violation is
 * already counted.
 */
static enum rvtsw_mkey rvtsw_mkey_decide(struct rvt_ibport *rvp,
					 const struct ib_smp *smp)
	__must_hold(&rvp->lock)
{
	rvtsw_mkey_expire_lease(rvp);
	if (!rvp->mkey || smp->mkey == rvp->mkey) {
		rvp->mkey_lease_timeout = 0;
		return RVTSW_MKEY_OK;
	}
	if (smp->method == IB_MGMT_METHOD_GET &&
	    rvp->mkeyprot < RVTSW_MKEY_PROT_NO_GET)
		return rvp->mkeyprot == RVTSW_MKEY_PROT_HIDE ?
		       RVTSW_MKEY_HIDE : RVTSW_MKEY_OK;
	rvtsw_mkey_violation(rvp);
	return RVTSW_MKEY_REFUSED;
}

/**
 * rvtsw_mkey_check - check an SMP for the SMA against a port's M_Key
 * @port: the port the SMP arrived on
 * @smp: a Get, Set or TrapRepress for the SMA
 * @mad_flags: process_mad()'s flags; IB_MAD_IGNORE_MKEY skips the check
 * @slid: the SMP's SLID, for the trap
 *
 * Context: the MAD layer's (process_mad); takes the port's rvp.lock, and
 * does not sleep.
 * Return: RVTSW_MKEY_OK to answer it, RVTSW_MKEY_HIDE to answer it with
 * PortInfo's M_Key read as 0, RVTSW_MKEY_REFUSED to drop it (the trap is
 * sent).
 */
enum rvtsw_mkey rvtsw_mkey_check(struct rvtsw_port *port,
				 const struct ib_smp *smp, int mad_flags,
				 u16 slid)
{
	struct rvt_ibport *rvp = &port->rvp;
	enum rvtsw_mkey outcome;
	unsigned long flags;

	if (mad_flags & IB_MAD_IGNORE_MKEY)
		return RVTSW_MKEY_OK;
	spin_lock_irqsave(&rvp->lock, flags);
	outcome = rvtsw_mkey_decide(rvp, smp);
	spin_unlock_irqrestore(&rvp->lock, flags);
	if (outcome == RVTSW_MKEY_REFUSED)
		rvtsw_trap_bad_mkey(port, smp, slid);
	return outcome;
}
