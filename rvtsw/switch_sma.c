// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The virtual switch's subnet management: its SMI, which moves
 * directed-route SMPs along their paths (IBTA vol. 1, 14.2.2), and its
 * SMA on port 0, which answers a switch's attributes (14.2.5): NodeInfo,
 * NodeDescription, SwitchInfo, PortInfo of every port, the linear and
 * multicast forwarding tables, P_KeyTable, SLtoVLMappingTable and
 * VLArbitrationTable.
 *
 * An HCA's MAD layer does its own half of the directed-route rules; the
 * switch does what a switch node does with an SMP that arrives by one of
 * its ports: record the arrival port in the return path and forward it
 * by the next hop of the initial path, or, back the other way, by the
 * return path, or give it to its SMA when the path ends here. Paths that
 * end in a LID-routed part (a DrDLID or DrSLID other than the permissive
 * LID) are not supported: such SMPs are dropped, as an SMI drops what it
 * cannot forward.
 *
 * The switch keeps no M_Key (0: every request is allowed) and one VL;
 * its external ports' states are their links' (link.c), which an SM
 * moves by PortInfo Sets.
 *
 * Locking: the SMA runs in the sender's context (ud.c), any number at
 * once. It reads the tables entry by entry without a lock and writes
 * them, and SwitchInfo, under the switch's lock (switch.c).
 */
#include <linux/bitfield.h>
#include <rdma/ib_mad.h>
#include "rvtsw.h"

/* What rvtsw's NodeInfo says of the switch (the HCAs' vendor). */
#define RVTSW_SW_VENDOR_ID 0x1175
#define RVTSW_SW_DEVICE_ID 0x5358
#define RVTSW_SW_REVISION 1

/* SwitchInfo (IBTA 14.2.5.4, table 147). */
struct rvtsw_switch_info {
	__be16 linear_cap;
	__be16 random_cap;
	__be16 mcast_cap;
	__be16 linear_top;
	u8 def_port[3];
	u8 life_state;
	__be16 lids_per_port;
	__be16 enforce_cap;
	u8 flags;
	u8 reserved;
	__be16 mcast_top;
} __packed;

/* LifeTimeValue, PortStateChange and the SL-to-VL bits of life_state. */
#define RVTSW_SI_LIFE_TIME GENMASK(7, 3)

/* The two halves of an MFT modifier: position and block. */
#define RVTSW_MFT_MOD_POSITION GENMASK(31, 28)
#define RVTSW_MFT_MOD_BLOCK GENMASK(8, 0)

/* A PortInfo, SLtoVL or P_KeyTable modifier's port fields. */
#define RVTSW_SW_MOD_PORT GENMASK(7, 0)

static bool rvtsw_switch_smp_is_request(const struct ib_smp *smp)
{
	return smp->base_version == IB_MGMT_BASE_VERSION &&
	       smp->class_version == 1 &&
	       (smp->method == IB_MGMT_METHOD_GET ||
		smp->method == IB_MGMT_METHOD_SET);
}

static bool rvtsw_switch_is_set(const struct ib_smp *smp)
{
	return smp->method == IB_MGMT_METHOD_SET;
}

static __be16 rvtsw_switch_get_node_desc(struct rvtsw_switch *sw,
					 struct ib_smp *smp)
{
	memcpy(smp->data, sw->node_desc, sizeof(sw->node_desc));
	return 0;
}

static __be16 rvtsw_switch_get_node_info(struct rvtsw_switch *sw, u8 in,
					 struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;

	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_SWITCH;
	ni->num_ports = sw->nports;
	ni->sys_guid = sw->guid;
	ni->node_guid = sw->guid;
	/* A switch's ports all have port 0's GUID. */
	ni->port_guid = sw->guid;
	ni->partition_cap = cpu_to_be16(1);
	ni->device_id = cpu_to_be16(RVTSW_SW_DEVICE_ID);
	ni->revision = cpu_to_be32(RVTSW_SW_REVISION);
	ni->local_port_num = in;
	ni->vendor_id[0] = RVTSW_SW_VENDOR_ID >> 16;
	ni->vendor_id[1] = RVTSW_SW_VENDOR_ID >> 8;
	ni->vendor_id[2] = RVTSW_SW_VENDOR_ID & 0xff;
	return 0;
}

static void rvtsw_switch_fill_info(struct rvtsw_switch *sw,
				   struct rvtsw_switch_info *si)
{
	si->linear_cap = cpu_to_be16(RVTSW_LFT_CAP);
	si->mcast_cap = cpu_to_be16(RVTSW_MFT_CAP);
	si->linear_top = cpu_to_be16(READ_ONCE(sw->lft_top));
	si->def_port[0] = READ_ONCE(sw->def_port[0]);
	si->def_port[1] = READ_ONCE(sw->def_port[1]);
	si->def_port[2] = READ_ONCE(sw->def_port[2]);
	si->life_state = READ_ONCE(sw->life_state);
	si->mcast_top = cpu_to_be16(READ_ONCE(sw->mft_top));
}

/*
 * SwitchInfo. A Set writes what the SM may set: LinearFDBTop, the
 * default ports, LifeTimeValue and MulticastFDBTop; a PortStateChange of
 * 1 clears that bit (IBTA 14.2.5.4).
 */
static __be16 rvtsw_switch_switch_info(struct rvtsw_switch *sw,
				       struct ib_smp *smp)
{
	struct rvtsw_switch_info *si = (struct rvtsw_switch_info *)smp->data;
	unsigned long flags;

	if (smp->attr_mod)
		return rvtsw_sma_bad_field();
	if (rvtsw_switch_is_set(smp)) {
		u16 top = be16_to_cpu(si->linear_top);
		u8 life = sw->life_state;

		if (top >= RVTSW_LFT_CAP)
			return rvtsw_sma_bad_field();
		spin_lock_irqsave(&sw->lock, flags);
		WRITE_ONCE(sw->lft_top, top);
		WRITE_ONCE(sw->mft_top, be16_to_cpu(si->mcast_top));
		WRITE_ONCE(sw->def_port[0], si->def_port[0]);
		WRITE_ONCE(sw->def_port[1], si->def_port[1]);
		WRITE_ONCE(sw->def_port[2], si->def_port[2]);
		life = (life & ~RVTSW_SI_LIFE_TIME) |
		       (si->life_state & RVTSW_SI_LIFE_TIME);
		if (si->life_state & RVTSW_SI_PORT_STATE_CHANGE)
			life &= ~RVTSW_SI_PORT_STATE_CHANGE;
		WRITE_ONCE(sw->life_state, life);
		spin_unlock_irqrestore(&sw->lock, flags);
	}
	memset(smp->data, 0, sizeof(smp->data));
	rvtsw_switch_fill_info(sw, si);
	return 0;
}

/*
 * PortInfo of port 0 (the switch's own: its LID and SM LID) or of an
 * external port (a link, in the state link.c keeps).
 */
static __be16 rvtsw_switch_get_port_info(struct rvtsw_switch *sw, u8 in,
					 struct ib_smp *smp)
{
	struct ib_port_info *pi = (struct ib_port_info *)smp->data;
	unsigned int num = be32_to_cpu(smp->attr_mod) & RVTSW_SW_MOD_PORT;

	if (num > sw->nports)
		return rvtsw_sma_bad_field();
	memset(smp->data, 0, sizeof(smp->data));
	if (num) {
		u8 mtu = rvtsw_switch_port_mtu(sw, num);

		rvtsw_sma_fill_link(smp, READ_ONCE(sw->port_state[num]),
				    rvtsw_link_switch_phys(sw, num));
		/* NeighborMTU and MTUCap: what the port's link carries. */
		pi->neighbormtu_mastersmsl = mtu << 4;
		pi->inittypereply_mtucap = mtu;
	} else {
		rvtsw_sma_fill_link(smp, IB_PORT_ACTIVE,
				    IB_PORT_PHYS_STATE_LINK_UP);
	}
	pi->local_port_num = in;
	if (!num) {
		/* Port 0's CapabilityMask speaks for every port's speeds. */
		pi->lid = cpu_to_be16(READ_ONCE(sw->lid));
		pi->sm_lid = cpu_to_be16(READ_ONCE(sw->sm_lid));
		pi->gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
		pi->cap_mask = cpu_to_be32(IB_PORT_EXTENDED_SPEEDS_SUP);
	}
	return 0;
}

/*
 * PortInfo Set. Port 0 takes its LID and SM LID; its state, a base port
 * 0's, is ACTIVE and stays so. An external port takes a new state (link.c
 * says which changes are allowed).
 */
static __be16 rvtsw_switch_set_port_info(struct rvtsw_switch *sw, u8 in,
					 struct ib_smp *smp)
	__must_hold(RCU)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)smp->data;
	unsigned int num = be32_to_cpu(smp->attr_mod) & RVTSW_SW_MOD_PORT;
	u16 lid = be16_to_cpu(pi->lid), sm_lid = be16_to_cpu(pi->sm_lid);
	unsigned long flags;
	u8 state, phys;
	__be16 status;

	if (num > sw->nports)
		return rvtsw_sma_bad_field();
	status = rvtsw_sma_check_link_set(pi, &state, &phys);
	if (status)
		return status;
	if (num) {
		if (rvtsw_link_set_switch(sw, num, state, phys))
			return rvtsw_sma_bad_field();
	} else {
		if (!rvtsw_lid_is_unicast(lid) ||
		    (sm_lid && !rvtsw_lid_is_unicast(sm_lid)))
			return rvtsw_sma_bad_field();
		spin_lock_irqsave(&sw->lock, flags);
		WRITE_ONCE(sw->lid, lid);
		WRITE_ONCE(sw->sm_lid, sm_lid);
		spin_unlock_irqrestore(&sw->lock, flags);
	}
	return rvtsw_switch_get_port_info(sw, in, smp);
}

/* LinearForwardingTable: 64 LIDs a block, the modifier the block. */
static __be16 rvtsw_switch_lft_block(struct rvtsw_switch *sw,
				     struct ib_smp *smp)
{
	u32 block = be32_to_cpu(smp->attr_mod);
	unsigned long flags;
	unsigned int i;
	u8 *entry;

	if (block >= RVTSW_LFT_CAP / RVTSW_LFT_BLOCK)
		return rvtsw_sma_bad_field();
	entry = &sw->lft[block * RVTSW_LFT_BLOCK];
	if (rvtsw_switch_is_set(smp)) {
		spin_lock_irqsave(&sw->lock, flags);
		for (i = 0; i < RVTSW_LFT_BLOCK; i++)
			WRITE_ONCE(entry[i], smp->data[i]);
		spin_unlock_irqrestore(&sw->lock, flags);
	}
	memset(smp->data, 0, sizeof(smp->data));
	for (i = 0; i < RVTSW_LFT_BLOCK; i++)
		smp->data[i] = READ_ONCE(entry[i]);
	return 0;
}

/*
 * MulticastForwardingTable: 32 multicast LIDs a block, each a mask of 16
 * ports; the modifier names the block and the position (which 16).
 * Entries past the table's end (the permissive LID) read 0 and take no
 * Set.
 */
static __be16 rvtsw_switch_mft_block(struct rvtsw_switch *sw,
				     struct ib_smp *smp)
{
	u32 mod = be32_to_cpu(smp->attr_mod);
	unsigned int pos = FIELD_GET(RVTSW_MFT_MOD_POSITION, mod);
	unsigned int first = FIELD_GET(RVTSW_MFT_MOD_BLOCK, mod) *
			     RVTSW_MFT_BLOCK;
	__be16 *mask = (__be16 *)smp->data;
	unsigned long flags;
	unsigned int i, n;
	u16 *entry;

	if (mod & ~(RVTSW_MFT_MOD_POSITION | RVTSW_MFT_MOD_BLOCK) ||
	    pos >= RVTSW_MFT_POSITIONS || first >= RVTSW_MFT_CAP)
		return rvtsw_sma_bad_field();
	entry = &sw->mft[pos][first];
	n = min(RVTSW_MFT_BLOCK, RVTSW_MFT_CAP - first);
	if (rvtsw_switch_is_set(smp)) {
		u16 valid = rvtsw_switch_port_mask(sw, pos) | (pos ? 0 : 1);

		spin_lock_irqsave(&sw->lock, flags);
		for (i = 0; i < n; i++)
			WRITE_ONCE(entry[i], be16_to_cpu(mask[i]) & valid);
		spin_unlock_irqrestore(&sw->lock, flags);
	}
	memset(smp->data, 0, sizeof(smp->data));
	for (i = 0; i < n; i++)
		mask[i] = cpu_to_be16(READ_ONCE(entry[i]));
	return 0;
}

/*
 * P_KeyTable: the modifier's upper half names the port, its lower half
 * the block. The switch enforces no partitions (PartitionEnforcementCap
 * 0); each of its ports reports the default P_Key alone.
 */
static __be16 rvtsw_switch_get_pkey_table(struct rvtsw_switch *sw,
					  struct ib_smp *smp)
{
	u32 mod = be32_to_cpu(smp->attr_mod);
	__be16 *entry = (__be16 *)smp->data;

	if ((mod >> 16) > sw->nports || (mod & 0xffff))
		return rvtsw_sma_bad_field();
	entry[0] = cpu_to_be16(IB_DEFAULT_PKEY_FULL);
	return 0;
}

/* Every SL goes to VL0, whatever an SM sets: the switch has one VL. */
static __be16 rvtsw_switch_sl_to_vl(struct rvtsw_switch *sw,
				    struct ib_smp *smp)
{
	u32 mod = be32_to_cpu(smp->attr_mod);

	if (((mod >> 8) & 0xff) > sw->nports ||
	    (mod & RVTSW_SW_MOD_PORT) > sw->nports)
		return rvtsw_sma_bad_field();
	memset(smp->data, 0, sizeof(smp->data));
	return 0;
}

/* The SMA's answer to one request, in @smp; returns the MAD status. */
static __be16 rvtsw_switch_sma(struct rvtsw_switch *sw, u8 in,
			       struct ib_smp *smp)
{
	bool set = rvtsw_switch_is_set(smp);

	switch (smp->attr_id) {
	case IB_SMP_ATTR_SWITCH_INFO:
		return rvtsw_switch_switch_info(sw, smp);
	case IB_SMP_ATTR_LINEAR_FORWARD_TABLE:
		return rvtsw_switch_lft_block(sw, smp);
	case IB_SMP_ATTR_MCAST_FORWARD_TABLE:
		return rvtsw_switch_mft_block(sw, smp);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return rvtsw_switch_sl_to_vl(sw, smp);
	case IB_SMP_ATTR_PORT_INFO:
		if (set)
			return rvtsw_switch_set_port_info(sw, in, smp);
		return rvtsw_switch_get_port_info(sw, in, smp);
	}
	memset(smp->data, 0, sizeof(smp->data));
	if (set)
		return cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	switch (smp->attr_id) {
	case IB_SMP_ATTR_NODE_DESC:
		return rvtsw_switch_get_node_desc(sw, smp);
	case IB_SMP_ATTR_NODE_INFO:
		return rvtsw_switch_get_node_info(sw, in, smp);
	case IB_SMP_ATTR_PKEY_TABLE:
		return rvtsw_switch_get_pkey_table(sw, smp);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return rvtsw_sma_get_vl_arb(smp);
	default:
		/* SMInfo included: the switch has no SM. */
		return cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
}

/* Answer @smp in place; its data is zeroed when the status is not 0. */
static void rvtsw_switch_answer(struct rvtsw_switch *sw, u8 in,
				struct ib_smp *smp)
{
	__be16 status = rvtsw_switch_sma(sw, in, smp);

	if (status)
		memset(smp->data, 0, sizeof(smp->data));
	rvtsw_mad_make_reply((struct ib_mad *)smp, status);
}

/*
 * An outgoing SMP (direction bit clear) at hop @hop of its path, having
 * arrived by port @in. Returns the port to send it out of, 0 to drop it.
 */
static u8 rvtsw_switch_dr_out(struct rvtsw_switch *sw, struct ib_smp *smp,
			      u8 in)
{
	u8 hop = smp->hop_ptr, out;

	/* C14-9:1: the sender has already stepped past hop 0. */
	if (!hop || hop > smp->hop_cnt)
		return 0;
	smp->return_path[hop] = in;
	if (hop < smp->hop_cnt) {
		/* C14-9:2: an intermediate hop, on by the initial path. */
		out = smp->initial_path[hop + 1];
		if (!out || out > sw->nports)
			return 0;
		smp->hop_ptr = hop + 1;
		return out;
	}
	/* C14-9:3: the path ends here; the SMA answers. */
	if (smp->dr_dlid != IB_LID_PERMISSIVE ||
	    !rvtsw_switch_smp_is_request(smp))
		return 0;
	rvtsw_switch_answer(sw, in, smp);
	/* C14-13:1: the response starts back where the request came in. */
	return in;
}

/* A returning SMP (direction bit set): on by its return path. */
static u8 rvtsw_switch_dr_back(struct rvtsw_switch *sw, struct ib_smp *smp)
{
	u8 hop = smp->hop_ptr, out;

	/* C14-13:2; at hop 1 the path would have begun at this switch. */
	if (hop < 2 || hop > smp->hop_cnt)
		return 0;
	out = smp->return_path[hop - 1];
	if (!out || out > sw->nports)
		return 0;
	smp->hop_ptr = hop - 1;
	return out;
}

/**
 * rvtsw_switch_dr_smp - a directed-route SMP arrives at the switch
 * @sw: the switch
 * @smp: the SMP, a copy the switch may change
 * @in: the port it arrived by
 *
 * Moves the SMP one hop along its path, or, where the path ends at the
 * switch, turns it into its SMA's response, which starts back at once.
 *
 * Context: the sender's context, RCU read side; does not sleep.
 * Return: the external port to send @smp out of, or 0 to drop it.
 */
u8 rvtsw_switch_dr_smp(struct rvtsw_switch *sw, struct ib_smp *smp, u8 in)
{
	if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE ||
	    smp->hop_cnt >= IB_SMP_MAX_PATH_HOPS)
		return 0;
	if (ib_get_smp_direction(smp))
		return rvtsw_switch_dr_back(sw, smp);
	return rvtsw_switch_dr_out(sw, smp, in);
}

/**
 * rvtsw_switch_lr_smp - a LID-routed SMP for the switch's own LID
 * @sw: the switch
 * @smp: the SMP, a copy the switch may change
 * @in: the port it arrived by
 *
 * Context: the sender's context, RCU read side; does not sleep.
 * Return: RVTSW_SWITCH_ANSWER with the response in @smp, to go back to
 * the request's SLID; RVTSW_SWITCH_CONSUMED for the SM's TrapRepress;
 * RVTSW_SWITCH_DROP for anything else that is not a request.
 */
enum rvtsw_switch_verdict rvtsw_switch_lr_smp(struct rvtsw_switch *sw,
					      struct ib_smp *smp, u8 in)
{
	if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED)
		return RVTSW_SWITCH_DROP;
	/*
	 * The SM's answer to a trap of the switch's (trap.c). The switch
	 * sends each trap once, so there is no repeat for it to stop.
	 */
	if (smp->method == IB_MGMT_METHOD_TRAP_REPRESS)
		return RVTSW_SWITCH_CONSUMED;
	if (!rvtsw_switch_smp_is_request(smp))
		return RVTSW_SWITCH_DROP;
	rvtsw_switch_answer(sw, in, smp);
	return RVTSW_SWITCH_ANSWER;
}
