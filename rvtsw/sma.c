// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The subnet management agent: the attributes an SM reads from an HCA
 * (IBTA vol. 1, 14.2.5), filled from the same fields that query_port and
 * query_device report, so that smpquery, ibstat and ibv_devinfo agree.
 *
 * rvtsw's link is a 4X port, enabled for 1X and 4X, at EDR: an extended
 * speed, so LinkSpeedActive holds the fastest classic speed (QDR) and
 * LinkSpeedExtActive the real one, as IBTA 1.2.1's ports report it. Each
 * port has one VL (VL0), one GUID and the P_Keys rvtsw_init_port() gave
 * it, until an SM sets others (sma_set.c). The M_Key an SM sets is kept
 * and reported, not yet enforced: every request is allowed.
 *
 * Locking: the port fields that change after registration (LID, state,
 * SM LID and SL, M_Key, violation counters) are read with READ_ONCE, each
 * on its own; the port lock that guards their writers is not taken, so a
 * PortInfo is a snapshot of each field, not of all of them at once.
 */
#include "rvtsw.h"

/* PortInfo's encodings (IBTA 14.2.5.6, table 155). */
#define RVTSW_PI_WIDTH_1X	1
#define RVTSW_PI_WIDTH_4X	2
#define RVTSW_PI_SPEED_SDR_DDR_QDR 7	/* supported and enabled */
#define RVTSW_PI_SPEED_QDR	4
#define RVTSW_PI_SPEED_EXT_FDR_EDR 3	/* supported and enabled */
#define RVTSW_PI_SPEED_EXT_EDR	2
#define RVTSW_PI_LINKDOWN_POLLING 2
#define RVTSW_PI_VLCAP_VL0	1
#define RVTSW_PI_OPER_VLS_VL0	1
#define RVTSW_PI_RESP_TIME	18	/* 4.096 us << 18: about 1 s */
/* After the 60 bytes struct ib_port_info holds (IBTA 1.2.1 on). */
#define RVTSW_PI_SPEED_EXT_OFFSET 62

/* P_KeyTable and GUIDInfo blocks. */
#define RVTSW_PKEYS_PER_BLOCK	32
#define RVTSW_GUIDS_PER_BLOCK	8
/* VLArbitrationTable: one entry for VL0 in each priority table. */
#define RVTSW_VLARB_ENTRIES	1

/**
 * rvtsw_sma_bad_field - the MAD status of a request with a bad field
 *
 * Context: any.
 * Return: "invalid attribute or modifier" (IBTA 13.4.7).
 */
__be16 rvtsw_sma_bad_field(void)
{
	return cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

/*
 * The port a PortInfo modifier names: its low byte is the port number, 0
 * for the one the SMP came in by; bit 31 says the SM supports extended
 * speeds (IBTA 1.3), which rvtsw reports to any SM. Other bits are
 * reserved.
 */
#define RVTSW_PI_MOD_SM_EXT_SPEEDS BIT(31)
#define RVTSW_PI_MOD_PORT GENMASK(7, 0)

/**
 * rvtsw_sma_port - the port a PortInfo modifier names
 * @dev: the device
 * @arrival: the port the SMP came in by
 * @mod: the attribute modifier
 *
 * Context: any.
 * Return: the port, or NULL for a modifier that names none.
 */
struct rvtsw_port *rvtsw_sma_port(struct rvtsw_dev *dev, u32 arrival,
				  u32 mod)
{
	u32 num = mod & RVTSW_PI_MOD_PORT;

	if (mod & ~(RVTSW_PI_MOD_SM_EXT_SPEEDS | RVTSW_PI_MOD_PORT))
		return NULL;
	if (!num)
		num = arrival;
	if (num > dev->rdi.dparms.nports)
		return NULL;
	return &dev->ports[num - 1];
}

static __be16 rvtsw_get_node_desc(struct rvtsw_dev *dev, struct ib_smp *smp)
{
	BUILD_BUG_ON(sizeof(dev->rdi.ibdev.node_desc) > IB_SMP_DATA_SIZE);
	memcpy(smp->data, dev->rdi.ibdev.node_desc,
	       sizeof(dev->rdi.ibdev.node_desc));
	return 0;
}

static __be16 rvtsw_get_node_info(struct rvtsw_dev *dev, u32 arrival,
				  struct ib_smp *smp)
{
	const struct ib_device_attr *props = &dev->rdi.dparms.props;
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;

	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = dev->rdi.dparms.nports;
	ni->sys_guid = props->sys_image_guid;
	ni->node_guid = dev->rdi.ibdev.node_guid;
	ni->port_guid = dev->ports[arrival - 1].guid;
	ni->partition_cap = cpu_to_be16(dev->rdi.dparms.npkeys);
	ni->device_id = cpu_to_be16(props->vendor_part_id);
	ni->revision = cpu_to_be32(props->hw_ver);
	ni->local_port_num = arrival;
	ni->vendor_id[0] = props->vendor_id >> 16;
	ni->vendor_id[1] = props->vendor_id >> 8;
	ni->vendor_id[2] = props->vendor_id;
	return 0;
}

static u8 rvtsw_nibbles(u8 high, u8 low)
{
	return high << 4 | (low & 0xf);
}

/**
 * rvtsw_sma_fill_link - a PortInfo's link fields
 * @smp: the response, its data zeroed
 * @state: the port's PortState
 * @phys: its PortPhysicalState
 *
 * Width, speed, MTU and VLs: the same on both ends of every rvtsw link,
 * an HCA's port and the switch's.
 *
 * Context: any.
 */
void rvtsw_sma_fill_link(struct ib_smp *smp, u8 state, u8 phys)
{
	struct ib_port_info *pi = (struct ib_port_info *)smp->data;
	u8 *ext = smp->data + RVTSW_PI_SPEED_EXT_OFFSET;
	u8 mtu = RVTSW_MTU;

	BUILD_BUG_ON(RVTSW_PI_SPEED_EXT_OFFSET <
		     offsetofend(struct ib_port_info, link_roundtrip_latency));

	pi->link_width_enabled = RVTSW_PI_WIDTH_1X | RVTSW_PI_WIDTH_4X;
	pi->link_width_supported = RVTSW_PI_WIDTH_1X | RVTSW_PI_WIDTH_4X;
	pi->link_width_active = RVTSW_PI_WIDTH_4X;
	pi->linkspeed_portstate =
		rvtsw_nibbles(RVTSW_PI_SPEED_SDR_DDR_QDR, state);
	pi->portphysstate_linkdown =
		rvtsw_nibbles(phys, RVTSW_PI_LINKDOWN_POLLING);
	pi->linkspeedactive_enabled =
		rvtsw_nibbles(RVTSW_PI_SPEED_QDR, RVTSW_PI_SPEED_SDR_DDR_QDR);
	/* LinkSpeedExtActive, ...Supported; then ...Enabled (5 bits). */
	ext[0] = rvtsw_nibbles(RVTSW_PI_SPEED_EXT_EDR,
			       RVTSW_PI_SPEED_EXT_FDR_EDR);
	ext[1] = RVTSW_PI_SPEED_EXT_FDR_EDR;

	/* NeighborMTU; the low nibble, MasterSMSL, is the caller's. */
	pi->neighbormtu_mastersmsl = rvtsw_nibbles(mtu, 0);
	pi->vlcap_inittype = rvtsw_nibbles(RVTSW_PI_VLCAP_VL0, 0);
	pi->vl_arb_high_cap = RVTSW_VLARB_ENTRIES;
	pi->vl_arb_low_cap = RVTSW_VLARB_ENTRIES;
	pi->inittypereply_mtucap = mtu;
	pi->operationalvl_pei_peo_fpi_fpo =
		rvtsw_nibbles(RVTSW_PI_OPER_VLS_VL0, 0);
	pi->resv_resptimevalue = RVTSW_PI_RESP_TIME;
}

/**
 * rvtsw_sma_get_port_info - an HCA port's PortInfo
 * @dev: the device
 * @arrival: the port the SMP came in by
 * @smp: the response, its data zeroed
 *
 * Context: any.
 * Return: the MAD status.
 */
__be16 rvtsw_sma_get_port_info(struct rvtsw_dev *dev, u32 arrival,
			       struct ib_smp *smp)
{
	struct ib_port_info *pi = (struct ib_port_info *)smp->data;
	struct rvtsw_port *port;
	struct rvt_ibport *rvp;

	port = rvtsw_sma_port(dev, arrival, be32_to_cpu(smp->attr_mod));
	if (!port)
		return rvtsw_sma_bad_field();
	rvp = &port->rvp;

	pi->mkey = READ_ONCE(rvp->mkey);
	pi->gid_prefix = READ_ONCE(rvp->gid_prefix);
	pi->lid = cpu_to_be16(READ_ONCE(port->lid));
	pi->sm_lid = cpu_to_be16(READ_ONCE(rvp->sm_lid));
	pi->cap_mask = cpu_to_be32(READ_ONCE(rvp->port_cap_flags));
	pi->mkey_lease_period = cpu_to_be16(READ_ONCE(rvp->mkey_lease_period));
	pi->local_port_num = arrival;
	rvtsw_sma_fill_link(smp, READ_ONCE(port->state),
			    READ_ONCE(port->phys_state));
	pi->mkeyprot_resv_lmc = READ_ONCE(rvp->mkeyprot) << 6 | RVTSW_LMC;
	pi->neighbormtu_mastersmsl |= READ_ONCE(rvp->sm_sl) & 0xf;
	pi->mkey_violations = cpu_to_be16(READ_ONCE(rvp->mkey_violations));
	pi->pkey_violations = cpu_to_be16(READ_ONCE(rvp->pkey_violations));
	pi->qkey_violations = cpu_to_be16(READ_ONCE(rvp->qkey_violations));
	pi->guid_cap = 1;
	pi->clientrereg_resv_subnetto = READ_ONCE(rvp->subnet_timeout) & 0x1f;
	/* Unused: the link never fails, and rvtsw keeps no credits. */
	pi->max_credit_hint = 0;
	return 0;
}

/**
 * rvtsw_sma_get_pkey_table - a block of an HCA port's P_KeyTable
 * @dev: the device
 * @arrival: the port the SMP came in by, whose table it is
 * @smp: the response, its data zeroed
 *
 * Context: any.
 * Return: the MAD status.
 */
__be16 rvtsw_sma_get_pkey_table(struct rvtsw_dev *dev, u32 arrival,
				struct ib_smp *smp)
{
	__be16 *entry = (__be16 *)smp->data;
	struct rvtsw_port *port = &dev->ports[arrival - 1];
	u32 block = be32_to_cpu(smp->attr_mod) & 0xffff;
	unsigned int i;

	/*
	 * The modifier's upper half names a switch's port; an HCA answers
	 * for the port the SMP came in by.
	 */
	if (block * RVTSW_PKEYS_PER_BLOCK >= dev->rdi.dparms.npkeys)
		return rvtsw_sma_bad_field();
	for (i = 0; i < dev->rdi.dparms.npkeys; i++)
		entry[i] = cpu_to_be16(READ_ONCE(port->pkeys[i]));
	return 0;
}

static __be16 rvtsw_get_guid_info(struct rvtsw_dev *dev, u32 arrival,
				  struct ib_smp *smp)
{
	__be64 *entry = (__be64 *)smp->data;

	if (smp->attr_mod)
		return rvtsw_sma_bad_field();
	entry[0] = dev->ports[arrival - 1].guid;
	return 0;
}

/* Every SL goes to VL0: the table's 16 nibbles stay 0. */
static __be16 rvtsw_get_sl_to_vl(struct rvtsw_dev *dev, struct ib_smp *smp)
{
	return 0;
}

/**
 * rvtsw_sma_get_vl_arb - a VLArbitrationTable
 * @smp: the response, its data zeroed
 *
 * The modifier's upper half names the part: 1 and 2 the low-priority
 * table's two halves, 3 and 4 the high-priority one's; its lower half a
 * switch's output port, the same for all. VL0 has the first entry of
 * each, weight 1 (64 bytes at a time); the rest are 0, skipped.
 *
 * Context: any.
 * Return: the MAD status.
 */
__be16 rvtsw_sma_get_vl_arb(struct ib_smp *smp)
{
	struct ib_vl_weight_elem *elem = (struct ib_vl_weight_elem *)smp->data;
	u32 part = be32_to_cpu(smp->attr_mod) >> 16;

	if (part < 1 || part > 4)
		return rvtsw_sma_bad_field();
	if (part == 1 || part == 3) {
		elem[0].vl = 0;
		elem[0].weight = 1;
	}
	return 0;
}

/**
 * rvtsw_sma_get - fill in the attribute an SMP asks for
 * @dev: the device
 * @port_num: the port the SMP came in by
 * @smp: the response being built, a copy of the request; not SMInfo,
 *	 which is the SM's (rvtsw_process_mad() leaves it to the agents)
 *
 * Context: process context; no lock held.
 * Return: the MAD status: 0, "invalid attribute modifier" or
 * "unsupported attribute" (whose responses rvtsw_process_mad() sends
 * with no data).
 */
__be16 rvtsw_sma_get(struct rvtsw_dev *dev, u32 port_num, struct ib_smp *smp)
{
	memset(smp->data, 0, sizeof(smp->data));
	switch (smp->attr_id) {
	case IB_SMP_ATTR_NODE_DESC:
		return rvtsw_get_node_desc(dev, smp);
	case IB_SMP_ATTR_NODE_INFO:
		return rvtsw_get_node_info(dev, port_num, smp);
	case IB_SMP_ATTR_PORT_INFO:
		return rvtsw_sma_get_port_info(dev, port_num, smp);
	case IB_SMP_ATTR_PKEY_TABLE:
		return rvtsw_sma_get_pkey_table(dev, port_num, smp);
	case IB_SMP_ATTR_GUID_INFO:
		return rvtsw_get_guid_info(dev, port_num, smp);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return rvtsw_get_sl_to_vl(dev, smp);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return rvtsw_sma_get_vl_arb(smp);
	default:
		/*
		 * A switch's attributes and any other: IBTA's "unsupported"
		 * (13.4.7). The MAD layer would not answer a directed-route
		 * SMP to the local port itself; it would drop it.
		 */
		return cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	}
}
