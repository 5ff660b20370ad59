// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The performance management agent: PortCounters and
 * PortCountersExtended (IBTA vol. 1, 16.1.3), from rvtsw's per-port
 * counters of what crossed each port's link (every packet, of every
 * transport; rdmavt's RC/UC loopback inside a device never reaches a
 * link),
 * and ClassPortInfo, which tells the 64-bit counters are there. sysfs
 * reads ports/N/counters through this agent, perfquery through QP1.
 *
 * Counters start at 0 and a PMA Set clears those its CounterSelect names:
 * each counter reads as the running sum less the baseline the last Set
 * left. The 32-bit PortCounters stop at their maximum, as IBTA requires;
 * so do the 16-bit PortRcvErrors (packets dropped for what a link or its
 * receiver found wrong in them: length, headers, VCRC, ICRC, a full
 * receive queue) and PortXmitDiscards (packets sent while a port or link
 * on the way was not up). Error counters rvtsw cannot have (symbol
 * errors, link recovery, ...) read 0.
 *
 * Locking: the baselines (rvtsw_port.pma_base) are guarded by the port's
 * rvp.lock; the running sums are per-CPU and read without a lock.
 */
#include <rdma/ib_mad.h>
#include "rvtsw.h"

#define RVTSW_PMA_RESP_TIME 18

/* A counter's running sum, from rvtsw's own counters. */
static u64 rvtsw_pma_sum(struct rvtsw_port *port, enum rvtsw_pma_counter c)
{
	switch (c) {
	case RVTSW_PMA_XMIT_DATA:
		return rvtsw_read_counter(port, RVTSW_CNT_TX_WORDS);
	case RVTSW_PMA_RCV_DATA:
		return rvtsw_read_counter(port, RVTSW_CNT_RX_WORDS);
	case RVTSW_PMA_XMIT_PKTS:
		return rvtsw_read_counter(port, RVTSW_CNT_TX_LINK);
	case RVTSW_PMA_RCV_PKTS:
		return rvtsw_read_counter(port, RVTSW_CNT_RX_LINK);
	case RVTSW_PMA_UNI_XMIT_PKTS:
		return rvtsw_read_counter(port, RVTSW_CNT_TX_LINK) -
		       rvtsw_read_counter(port, RVTSW_CNT_TX_MCAST);
	case RVTSW_PMA_UNI_RCV_PKTS:
		return rvtsw_read_counter(port, RVTSW_CNT_RX_LINK) -
		       rvtsw_read_counter(port, RVTSW_CNT_RX_LINK_MCAST);
	case RVTSW_PMA_MULTI_XMIT_PKTS:
		return rvtsw_read_counter(port, RVTSW_CNT_TX_MCAST);
	case RVTSW_PMA_MULTI_RCV_PKTS:
		return rvtsw_read_counter(port, RVTSW_CNT_RX_LINK_MCAST);
	case RVTSW_PMA_RCV_ERRORS:
		/* Packets with errors a link or its receiver finds in them. */
		return rvtsw_read_counter(port, RVTSW_CNT_DROP_SHORT) +
		       rvtsw_read_counter(port, RVTSW_CNT_DROP_LENGTH) +
		       rvtsw_read_counter(port, RVTSW_CNT_DROP_MALFORMED) +
		       rvtsw_read_counter(port, RVTSW_CNT_DROP_VCRC) +
		       rvtsw_read_counter(port, RVTSW_CNT_DROP_ICRC) +
		       rvtsw_read_counter(port, RVTSW_CNT_DROP_RX_FULL);
	case RVTSW_PMA_XMIT_DISCARDS:
		/* Packets sent while a port or link on the way was not up. */
		return rvtsw_read_counter(port, RVTSW_CNT_DROP_LINK);
	default:
		return 0;
	}
}

/* Every counter as a PMA Get reports it, before any saturation. */
static void rvtsw_pma_read(struct rvtsw_port *port,
			   u64 value[RVTSW_PMA_NUM_COUNTERS])
{
	unsigned long flags;
	unsigned int c;

	spin_lock_irqsave(&port->rvp.lock, flags);
	for (c = 0; c < RVTSW_PMA_NUM_COUNTERS; c++)
		value[c] = rvtsw_pma_sum(port, c) - port->pma_base[c];
	spin_unlock_irqrestore(&port->rvp.lock, flags);
}

/* Clear the counters in the bit mask @which (BIT(enum rvtsw_pma_counter)). */
static void rvtsw_pma_clear(struct rvtsw_port *port, unsigned long which)
{
	unsigned long flags;
	unsigned int c;

	spin_lock_irqsave(&port->rvp.lock, flags);
	for_each_set_bit(c, &which, RVTSW_PMA_NUM_COUNTERS)
		port->pma_base[c] = rvtsw_pma_sum(port, c);
	spin_unlock_irqrestore(&port->rvp.lock, flags);
}

static __be32 rvtsw_pma_sat32(u64 value)
{
	return cpu_to_be32(min_t(u64, value, U32_MAX));
}

static __be16 rvtsw_pma_sat16(u64 value)
{
	return cpu_to_be16(min_t(u64, value, U16_MAX));
}

static __be16 rvtsw_pma_bad_field(void)
{
	return cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
}

/* The port a PortSelect names; a CA's PMA has no AllPortSelect. */
static struct rvtsw_port *rvtsw_pma_port(struct rvtsw_dev *dev, u8 select)
{
	if (!select || select > dev->rdi.dparms.nports)
		return NULL;
	return &dev->ports[select - 1];
}

static __be16 rvtsw_pma_class_port_info(struct ib_pma_mad *pmp)
{
	struct ib_class_port_info *cpi = (struct ib_class_port_info *)pmp->data;

	memset(pmp->data, 0, sizeof(pmp->data));
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	cpi->cap_mask2_resp_time = cpu_to_be32(RVTSW_PMA_RESP_TIME);
	return 0;
}

/*
 * Start a PortCounters or PortCountersExtended response: both begin with
 * PortSelect and CounterSelect, which it keeps; the rest is cleared. Then
 * read the counters of the port selected into @value. Return: the MAD
 * status, "invalid attribute modifier" for a port the device lacks.
 */
static __be16 rvtsw_pma_begin_counters(struct rvtsw_dev *dev,
				       struct ib_pma_mad *pmp,
				       u64 value[RVTSW_PMA_NUM_COUNTERS])
{
	struct ib_pma_portcounters *pc = (void *)pmp->data;
	struct rvtsw_port *port = rvtsw_pma_port(dev, pc->port_select);
	u8 select = pc->port_select;
	__be16 counter_select = pc->counter_select;

	BUILD_BUG_ON(offsetof(struct ib_pma_portcounters_ext, counter_select) !=
		     offsetof(struct ib_pma_portcounters, counter_select));
	memset(pmp->data, 0, sizeof(pmp->data));
	pc->port_select = select;
	pc->counter_select = counter_select;
	if (!port)
		return rvtsw_pma_bad_field();
	rvtsw_pma_read(port, value);
	return 0;
}

static __be16 rvtsw_pma_port_counters(struct rvtsw_dev *dev,
				      struct ib_pma_mad *pmp)
{
	struct ib_pma_portcounters *pc = (void *)pmp->data;
	u64 value[RVTSW_PMA_NUM_COUNTERS];
	__be16 status = rvtsw_pma_begin_counters(dev, pmp, value);

	if (status)
		return status;
	pc->port_xmit_data = rvtsw_pma_sat32(value[RVTSW_PMA_XMIT_DATA]);
	pc->port_rcv_data = rvtsw_pma_sat32(value[RVTSW_PMA_RCV_DATA]);
	pc->port_xmit_packets = rvtsw_pma_sat32(value[RVTSW_PMA_XMIT_PKTS]);
	pc->port_rcv_packets = rvtsw_pma_sat32(value[RVTSW_PMA_RCV_PKTS]);
	pc->port_rcv_errors = rvtsw_pma_sat16(value[RVTSW_PMA_RCV_ERRORS]);
	pc->port_xmit_discards =
		rvtsw_pma_sat16(value[RVTSW_PMA_XMIT_DISCARDS]);
	return 0;
}

static __be16 rvtsw_pma_port_counters_ext(struct rvtsw_dev *dev,
					  struct ib_pma_mad *pmp)
{
	struct ib_pma_portcounters_ext *pc = (void *)pmp->data;
	u64 value[RVTSW_PMA_NUM_COUNTERS];
	__be16 status = rvtsw_pma_begin_counters(dev, pmp, value);

	if (status)
		return status;
	pc->port_xmit_data = cpu_to_be64(value[RVTSW_PMA_XMIT_DATA]);
	pc->port_rcv_data = cpu_to_be64(value[RVTSW_PMA_RCV_DATA]);
	pc->port_xmit_packets = cpu_to_be64(value[RVTSW_PMA_XMIT_PKTS]);
	pc->port_rcv_packets = cpu_to_be64(value[RVTSW_PMA_RCV_PKTS]);
	pc->port_unicast_xmit_packets =
		cpu_to_be64(value[RVTSW_PMA_UNI_XMIT_PKTS]);
	pc->port_unicast_rcv_packets =
		cpu_to_be64(value[RVTSW_PMA_UNI_RCV_PKTS]);
	pc->port_multicast_xmit_packets =
		cpu_to_be64(value[RVTSW_PMA_MULTI_XMIT_PKTS]);
	pc->port_multicast_rcv_packets =
		cpu_to_be64(value[RVTSW_PMA_MULTI_RCV_PKTS]);
	return 0;
}

/**
 * rvtsw_pma_get - fill in the attribute a PMA Get asks for
 * @dev: the device
 * @pmp: the response being built, a copy of the request
 * @status: where the MAD status goes
 *
 * Context: process context, or any that may take the port lock with
 * interrupts saved; does not sleep.
 * Return: false if the attribute is not the PMA's (the MAD goes on to
 * the agents); true with the MAD status in *@status otherwise.
 */
bool rvtsw_pma_get(struct rvtsw_dev *dev, struct ib_pma_mad *pmp,
		   __be16 *status)
{
	switch (pmp->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		*status = rvtsw_pma_class_port_info(pmp);
		return true;
	case IB_PMA_PORT_COUNTERS:
		*status = rvtsw_pma_port_counters(dev, pmp);
		return true;
	case IB_PMA_PORT_COUNTERS_EXT:
		*status = rvtsw_pma_port_counters_ext(dev, pmp);
		return true;
	default:
		return false;
	}
}

/* The counters a PortCounters CounterSelect names, for rvtsw_pma_clear(). */
static unsigned long rvtsw_pma_select(__be16 select)
{
	unsigned long which = 0;

	if (select & IB_PMA_SEL_PORT_XMIT_DATA)
		which |= BIT(RVTSW_PMA_XMIT_DATA);
	if (select & IB_PMA_SEL_PORT_RCV_DATA)
		which |= BIT(RVTSW_PMA_RCV_DATA);
	if (select & IB_PMA_SEL_PORT_XMIT_PACKETS)
		which |= BIT(RVTSW_PMA_XMIT_PKTS);
	if (select & IB_PMA_SEL_PORT_RCV_PACKETS)
		which |= BIT(RVTSW_PMA_RCV_PKTS);
	if (select & IB_PMA_SEL_PORT_RCV_ERRORS)
		which |= BIT(RVTSW_PMA_RCV_ERRORS);
	if (select & IB_PMA_SEL_PORT_XMIT_DISCARDS)
		which |= BIT(RVTSW_PMA_XMIT_DISCARDS);
	return which;
}

/* ... and a PortCountersExtended CounterSelect, bit for bit in order. */
static unsigned long rvtsw_pma_select_ext(__be16 select)
{
	BUILD_BUG_ON(RVTSW_PMA_MULTI_RCV_PKTS != 7);
	return be16_to_cpu(select) & GENMASK(RVTSW_PMA_MULTI_RCV_PKTS, 0);
}

/**
 * rvtsw_pma_set - clear counters, then report them as a Get would
 * @dev: the device
 * @pmp: the response being built, a copy of the request
 * @status: where the MAD status goes
 *
 * Only PortCounters and PortCountersExtended can be set, and only to
 * clear them: a Set clears the counters its CounterSelect names,
 * whatever values it carries.
 *
 * Context: as rvtsw_pma_get().
 * Return: as rvtsw_pma_get(); ClassPortInfo is read-only.
 */
bool rvtsw_pma_set(struct rvtsw_dev *dev, struct ib_pma_mad *pmp,
		   __be16 *status)
{
	struct ib_pma_portcounters *pc = (void *)pmp->data;
	struct rvtsw_port *port = rvtsw_pma_port(dev, pc->port_select);
	unsigned long which;

	switch (pmp->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		rvtsw_pma_get(dev, pmp, status);
		*status = cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		return true;
	case IB_PMA_PORT_COUNTERS:
		which = rvtsw_pma_select(pc->counter_select);
		break;
	case IB_PMA_PORT_COUNTERS_EXT:
		which = rvtsw_pma_select_ext(pc->counter_select);
		break;
	default:
		return false;
	}
	if (port)
		rvtsw_pma_clear(port, which);
	return rvtsw_pma_get(dev, pmp, status);
}
