// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The subnet management agent's Sets: what a subnet manager writes into
 * an HCA port (IBTA vol. 1, 14.2.5): PortInfo (LID, SM LID and SL,
 * M_Key and its lease and protection, GID prefix, subnet timeout, the
 * violation counters, the port's logical and physical state, client
 * reregistration) and P_KeyTable. SLtoVLMappingTable takes only VL0, the
 * one VL a port has.
 *
 * A Set is checked as a whole before anything changes: a field the port
 * cannot take (a multicast LID, an LMC, more VLs or a larger MTU than it
 * has, a state change the state machine forbids) fails the whole Set with
 * "invalid attribute value". Its response is then the attribute as a Get
 * reads it. Fields the port has no use for (thresholds, HOQLife, the
 * enabled widths and speeds, which are the ones it has) are checked for
 * valid encodings and otherwise ignored.
 *
 * The IB core learns of each change by the event it causes: LID, SM,
 * GID and P_Key changes, client reregistration, and (from link.c) the
 * port entering or leaving ACTIVE. Its caches, the SA client, IPoIB and
 * the CM follow those events.
 *
 * Locking: the fields are written under the port's rvp.lock, with
 * WRITE_ONCE for their lockless readers; the state under link.c's locks.
 * Events are dispatched after the locks are dropped.
 */
#include "rvtsw.h"

/* PortInfo's settable encodings (IBTA 14.2.5.6, table 155). */
#define RVTSW_PI_WIDTH_ALL	0xff	/* enable every supported width */
#define RVTSW_PI_WIDTH_SUPPORTED 0x03	/* 1X and 4X */
#define RVTSW_PI_SPEED_ALL	0xf	/* enable every supported speed */
#define RVTSW_PI_SPEED_SUPPORTED 0x7	/* SDR, DDR, QDR */
#define RVTSW_PI_LINKDOWN_MAX	2	/* Polling */
#define RVTSW_PI_CLIENT_REREG	BIT(7)
#define RVTSW_PI_SUBNET_TIMEOUT	GENMASK(4, 0)
#define RVTSW_PI_MKEYPROT_SHIFT	6
#define RVTSW_PI_LMC		GENMASK(2, 0)
#define RVTSW_SL_TO_VL_BYTES	8	/* 16 SLs, a nibble each */

static bool rvtsw_sma_enable_valid(u8 value, u8 all, u8 supported)
{
	return value == all || !(value & ~supported);
}

/**
 * rvtsw_sma_check_link_set - check a PortInfo Set's link fields
 * @pi: the PortInfo of the Set
 * @state: where the PortState it asks for goes (0: no change)
 * @phys: where the PortPhysicalState it asks for goes (0: no change)
 *
 * The fields every port checks alike, an HCA's and the switch's: the
 * state encodings (whether the port's state allows the change is
 * link.c's to say), LinkDownDefaultState, the enabled widths and speeds,
 * the LMC (every rvtsw port has one LID), NeighborMTU and OperationalVLs.
 *
 * Context: any.
 * Return: 0, or the MAD status of a field the port cannot take.
 */
__be16 rvtsw_sma_check_link_set(const struct ib_port_info *pi, u8 *state,
				u8 *phys)
{
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 vls = pi->operationalvl_pei_peo_fpi_fpo >> 4;

	*state = pi->linkspeed_portstate & 0xf;
	*phys = pi->portphysstate_linkdown >> 4;
	/* INIT comes from the link training alone. */
	if (*state == IB_PORT_INIT || *state > IB_PORT_ACTIVE)
		return rvtsw_sma_bad_field();
	if (!rvtsw_link_phys_valid(*phys) ||
	    (pi->portphysstate_linkdown & 0xf) > RVTSW_PI_LINKDOWN_MAX)
		return rvtsw_sma_bad_field();
	if (!rvtsw_sma_enable_valid(pi->link_width_enabled, RVTSW_PI_WIDTH_ALL,
				    RVTSW_PI_WIDTH_SUPPORTED) ||
	    !rvtsw_sma_enable_valid(pi->linkspeedactive_enabled & 0xf,
				    RVTSW_PI_SPEED_ALL,
				    RVTSW_PI_SPEED_SUPPORTED))
		return rvtsw_sma_bad_field();
	if ((pi->mkeyprot_resv_lmc & RVTSW_PI_LMC) != RVTSW_LMC ||
	    mtu < IB_MTU_256 || mtu > RVTSW_MTU || vls > 1)
		return rvtsw_sma_bad_field();
	return 0;
}

/* Queue @event for @port if @happened. */
static void rvtsw_sma_event(struct rvtsw_port *port, enum ib_event_type event,
			    bool happened)
{
	struct ib_event ev = {
		.device = &port->dev->rdi.ibdev,
		.element.port_num = port->port_num,
		.event = event,
	};

	if (happened)
		ib_dispatch_event(&ev);
}

/* Write a checked PortInfo's fields (not the state) into @port. */
static void rvtsw_sma_store_port_info(struct rvtsw_port *port,
				      const struct ib_port_info *pi)
{
	struct rvt_ibport *rvp = &port->rvp;
	bool lid, sm, gid;
	unsigned long flags;

	u16 new_lid = be16_to_cpu(pi->lid), new_sm_lid = be16_to_cpu(pi->sm_lid);
	u8 new_sm_sl = pi->neighbormtu_mastersmsl & 0xf;

	spin_lock_irqsave(&rvp->lock, flags);
	lid = port->lid != new_lid;
	sm = rvp->sm_lid != new_sm_lid || rvp->sm_sl != new_sm_sl;
	gid = rvp->gid_prefix != pi->gid_prefix;
	WRITE_ONCE(port->lid, new_lid);
	WRITE_ONCE(rvp->sm_lid, new_sm_lid);
	WRITE_ONCE(rvp->sm_sl, new_sm_sl);
	WRITE_ONCE(rvp->gid_prefix, pi->gid_prefix);
	WRITE_ONCE(rvp->mkey, pi->mkey);
	WRITE_ONCE(rvp->mkey_lease_period, be16_to_cpu(pi->mkey_lease_period));
	WRITE_ONCE(rvp->mkeyprot,
		   pi->mkeyprot_resv_lmc >> RVTSW_PI_MKEYPROT_SHIFT);
	WRITE_ONCE(rvp->subnet_timeout,
		   pi->clientrereg_resv_subnetto & RVTSW_PI_SUBNET_TIMEOUT);
	WRITE_ONCE(rvp->mkey_violations, be16_to_cpu(pi->mkey_violations));
	WRITE_ONCE(rvp->pkey_violations, be16_to_cpu(pi->pkey_violations));
	WRITE_ONCE(rvp->qkey_violations, be16_to_cpu(pi->qkey_violations));
	spin_unlock_irqrestore(&rvp->lock, flags);

	rvtsw_sma_event(port, IB_EVENT_LID_CHANGE, lid);
	rvtsw_sma_event(port, IB_EVENT_SM_CHANGE, sm);
	rvtsw_sma_event(port, IB_EVENT_GID_CHANGE, gid);
	rvtsw_sma_event(port, IB_EVENT_CLIENT_REREGISTER,
			pi->clientrereg_resv_subnetto & RVTSW_PI_CLIENT_REREG);
}

/*
 * PortInfo Set of an HCA port: the fields first, so that a port that goes
 * ACTIVE in the same Set already has its new LID when it says so.
 */
static __be16 rvtsw_sma_set_port_info(struct rvtsw_dev *dev, u32 arrival,
				      struct ib_smp *smp)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)smp->data;
	struct rvtsw_port *port;
	u8 state, phys;
	__be16 status;

	port = rvtsw_sma_port(dev, arrival, be32_to_cpu(smp->attr_mod));
	if (!port)
		return rvtsw_sma_bad_field();
	status = rvtsw_sma_check_link_set(pi, &state, &phys);
	if (status)
		return status;
	/* The SM LID may still be 0: no SM yet. */
	if (!rvtsw_lid_is_unicast(be16_to_cpu(pi->lid)) ||
	    (pi->sm_lid && !rvtsw_lid_is_unicast(be16_to_cpu(pi->sm_lid))) ||
	    !rvtsw_link_state_valid(READ_ONCE(port->state), state))
		return rvtsw_sma_bad_field();
	rvtsw_sma_store_port_info(port, pi);
	/* Checked above; only a racing change of state makes this fail. */
	if (rvtsw_link_set_hca(port->sw, port, state, phys))
		status = rvtsw_sma_bad_field();
	memset(smp->data, 0, sizeof(smp->data));
	return status ?: rvtsw_sma_get_port_info(dev, arrival, smp);
}

/*
 * P_KeyTable Set: the block's entries, as many as the port's table
 * holds, replace the table. A port's P_Keys are the only ones its QPs
 * may then use (rdmavt reads the table at each check).
 */
static __be16 rvtsw_sma_set_pkey_table(struct rvtsw_dev *dev, u32 arrival,
				       struct ib_smp *smp)
{
	const __be16 *entry = (const __be16 *)smp->data;
	struct rvtsw_port *port = &dev->ports[arrival - 1];
	u32 block = be32_to_cpu(smp->attr_mod) & 0xffff;
	bool changed = false;
	unsigned long flags;
	unsigned int i;

	if (block)
		return rvtsw_sma_bad_field();
	spin_lock_irqsave(&port->rvp.lock, flags);
	for (i = 0; i < dev->rdi.dparms.npkeys; i++) {
		u16 pkey = be16_to_cpu(entry[i]);

		changed |= port->pkeys[i] != pkey;
		WRITE_ONCE(port->pkeys[i], pkey);
	}
	spin_unlock_irqrestore(&port->rvp.lock, flags);
	rvtsw_sma_event(port, IB_EVENT_PKEY_CHANGE, changed);
	memset(smp->data, 0, sizeof(smp->data));
	return rvtsw_sma_get_pkey_table(dev, arrival, smp);
}

/* SLtoVLMappingTable Set: every SL must map to VL0. */
static __be16 rvtsw_sma_set_sl_to_vl(struct ib_smp *smp)
{
	if (memchr_inv(smp->data, 0, RVTSW_SL_TO_VL_BYTES))
		return rvtsw_sma_bad_field();
	memset(smp->data, 0, sizeof(smp->data));
	return 0;
}

/**
 * rvtsw_sma_set - carry out an SMP's Set
 * @dev: the device
 * @port_num: the port the SMP came in by
 * @smp: the request, which becomes the response's data; not SMInfo,
 *	 which is the SM's (rvtsw_process_mad() leaves it to the agents)
 *
 * Context: process context (the MAD layer); takes the port's lock and
 * the switch's; no lock held.
 * Return: the MAD status (a failed Set's response goes with no data:
 * rvtsw_process_mad()).
 */
__be16 rvtsw_sma_set(struct rvtsw_dev *dev, u32 port_num, struct ib_smp *smp)
{
	switch (smp->attr_id) {
	case IB_SMP_ATTR_PORT_INFO:
		return rvtsw_sma_set_port_info(dev, port_num, smp);
	case IB_SMP_ATTR_PKEY_TABLE:
		return rvtsw_sma_set_pkey_table(dev, port_num, smp);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return rvtsw_sma_set_sl_to_vl(smp);
	default:
		/* Read-only attributes, and those rvtsw does not have. */
		return cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
}
