// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The virtual switch: every port of every rvtsw device is linked to one
 * of its external ports, and everything that leaves a port for another
 * one crosses it, forwarded by its tables as an IB switch forwards
 * (IBTA vol. 1, 18.2.4): a unicast DLID by the LinearForwardingTable, a
 * multicast DLID by the MulticastForwardingTable. A wrong entry really
 * sends a packet to the wrong port, or nowhere.
 *
 * Its ports: 0 is the switch's own (base port 0, where its SMA lives and
 * its LID belongs); port N + 1 links HCA port N + 1 of the numbering
 * rvtsw_init_port() gives every port of every device (device U, port P
 * of a device with K ports: U * K + P), so the switch has exactly as many
 * external ports as there are HCA ports.
 *
 * A switch is an object: rvtsw builds one at module init and links every
 * device's ports to it, but nothing in it assumes it is alone. Each
 * external port knows what is at the other end of its link only as a
 * struct rvtsw_link_end, which an HCA port embeds today and anything
 * else a link may join to a switch port can embed as well. Unmanaged, it has the
 * tables a subnet manager would have programmed for the LIDs rvtsw gives
 * its ports (each LID to its port, every multicast LID to every port)
 * and every port ACTIVE. Managed, it starts as a switch out of its box:
 * no LID, empty tables, its ports in INIT; the SM programs it through
 * its SMA (switch_sma.c). Data crosses it only between ACTIVE ports;
 * subnet management packets between ports whose links are up (link.c).
 *
 * Locking: the tables are read on every packet without a lock, one
 * entry at a time (READ_ONCE), and written under @lock (WRITE_ONCE), so a
 * packet sees an entry either before or after a change, never a torn
 * one. The peers are RCU pointers, written under @lock as links are made
 * and taken apart (link.c).
 */
#include <linux/vmalloc.h>
#include "rvtsw.h"

/* A subnet manager's view of a fresh fabric: LID N on port N. */
static void rvtsw_switch_program(struct rvtsw_switch *sw)
{
	unsigned int lid, pos;

	/* The first LID after the HCAs'. */
	sw->lid = sw->nports + 1;
	for (lid = 1; lid <= sw->nports; lid++)
		sw->lft[lid] = lid;
	sw->lft[sw->lid] = 0;
	sw->lft_top = sw->lid;
	/* Flood: every multicast LID to every external port. */
	for (pos = 0; pos < RVTSW_MFT_POSITIONS; pos++) {
		u16 mask = rvtsw_switch_port_mask(sw, pos);
		unsigned int i;

		for (i = 0; i < RVTSW_MFT_CAP; i++)
			sw->mft[pos][i] = mask;
	}
	sw->mft_top = RVTSW_MLID_BASE + RVTSW_MFT_CAP - 1;
}

/**
 * rvtsw_switch_port_mask - the external ports in one MFT position
 * @sw: the switch
 * @pos: the position: ports 16 * @pos to 16 * @pos + 15
 *
 * Context: any.
 * Return: a bit for each of those ports that exists, port 0 excluded.
 */
u16 rvtsw_switch_port_mask(const struct rvtsw_switch *sw, unsigned int pos)
{
	u16 mask = 0;
	unsigned int bit;

	for (bit = 0; bit < RVTSW_MFT_PORTS_PER_POS; bit++) {
		unsigned int port = pos * RVTSW_MFT_PORTS_PER_POS + bit;

		if (port && port <= sw->nports)
			mask |= BIT(bit);
	}
	return mask;
}

/**
 * rvtsw_switch_create - build a switch
 * @nports: its external ports
 * @guid: its node GUID
 * @managed: leave it to a subnet manager to program the switch
 *
 * Context: process context; sleeps.
 * Return: the switch, with no port linked, or NULL if out of memory.
 */
struct rvtsw_switch *rvtsw_switch_create(unsigned int nports, u64 guid,
					 bool managed)
{
	struct rvtsw_switch *sw;

	if (nports > RVTSW_SW_MAX_PORTS)
		return NULL;
	sw = vzalloc(sizeof(*sw));
	if (!sw)
		return NULL;
	spin_lock_init(&sw->lock);
	sw->managed = managed;
	sw->nports = nports;
	sw->guid = cpu_to_be64(guid);
	snprintf(sw->node_desc, sizeof(sw->node_desc),
		 "rvtsw virtual switch");
	rvtsw_fault_init(&sw->fault);
	/* No entry is valid: every LID to no port (0xff, IBTA 14.2.5.10). */
	memset(sw->lft, RVTSW_SW_NO_PORT, sizeof(sw->lft));
	if (!managed)
		rvtsw_switch_program(sw);
	return sw;
}

/**
 * rvtsw_switch_destroy - free a switch
 * @sw: the switch, with no port linked to it any more and its trap work
 *	stopped (rvtsw_trap_switch_stop())
 *
 * Context: process context.
 */
void rvtsw_switch_destroy(struct rvtsw_switch *sw)
{
	rvtsw_fault_exit(&sw->fault);
	vfree(sw);
}

/**
 * rvtsw_switch_attach - link a registered device's ports to their switch
 * @dev: the device; each port knows its switch and switch port
 *
 * Context: module init; takes the switch's lock and each port's.
 */
void rvtsw_switch_attach(struct rvtsw_dev *dev)
{
	u32 i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		rvtsw_link_attach(dev->ports[i].sw, &dev->ports[i]);
}

/**
 * rvtsw_switch_detach - unlink a device's ports
 * @dev: the device, still registered
 *
 * Returns once no sender is delivering to the device's ports any more.
 *
 * Context: process context; sleeps.
 */
void rvtsw_switch_detach(struct rvtsw_dev *dev)
{
	u32 i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		rvtsw_link_detach(dev->ports[i].sw, &dev->ports[i]);
	synchronize_rcu();
}

/**
 * rvtsw_switch_lft - where the switch forwards a unicast LID
 * @sw: the switch
 * @lid: the DLID
 *
 * Context: any.
 * Return: the output port (0 is the switch itself), or RVTSW_SW_NO_PORT
 * if the table has none for @lid.
 */
u8 rvtsw_switch_lft(struct rvtsw_switch *sw, u16 lid)
{
	/* Entries above LinearFDBTop are not valid (IBTA 14.2.5.4). */
	if (lid >= RVTSW_LFT_CAP || lid > READ_ONCE(sw->lft_top))
		return RVTSW_SW_NO_PORT;
	return READ_ONCE(sw->lft[lid]);
}

/**
 * rvtsw_switch_port_mtu - the largest MTU an external port's link carries
 * @sw: the switch
 * @num: the external port
 *
 * Context: RCU read side.
 * Return: an enum ib_mtu: what the far end says (an uplink's interface
 * may carry less), or RVTSW_MTU.
 */
u8 rvtsw_switch_port_mtu(struct rvtsw_switch *sw, unsigned int num)
	__must_hold(RCU)
{
	struct rvtsw_link_end *end;
	u8 mtu = 0;

	if (num && num <= sw->nports) {
		end = rcu_dereference(sw->peer[num]);
		if (end)
			mtu = READ_ONCE(end->mtu);
	}
	return mtu ?: RVTSW_MTU;
}

/**
 * rvtsw_switch_mft_has - does the switch forward a multicast LID to a port?
 * @sw: the switch
 * @mlid: the multicast DLID
 * @port: the output port
 *
 * Context: any.
 * Return: true if the MFT entry of @mlid has @port.
 */
bool rvtsw_switch_mft_has(struct rvtsw_switch *sw, u16 mlid, unsigned int port)
{
	unsigned int index = mlid - RVTSW_MLID_BASE;
	unsigned int pos = port / RVTSW_MFT_PORTS_PER_POS;

	if (mlid < RVTSW_MLID_BASE || index >= RVTSW_MFT_CAP ||
	    pos >= RVTSW_MFT_POSITIONS)
		return false;
	return READ_ONCE(sw->mft[pos][index]) &
	       BIT(port % RVTSW_MFT_PORTS_PER_POS);
}

/**
 * rvtsw_switch_route - the port a unicast packet reaches
 * @sw: the switch
 * @sport: the port that sends it
 * @dlid: its DLID
 * @out: where the switch port the LFT names goes (0: the switch itself;
 *	 RVTSW_SW_NO_PORT: none, or the packet never left the HCA)
 *
 * A packet to one of the sending port's own LIDs never leaves the HCA,
 * as a real HCA loops it back; any other crosses the switch, which sends
 * it where its LFT says. The port it reaches may not own @dlid (a wrong
 * entry): that port then drops it.
 *
 * Context: RCU read side; the port stays valid until it ends.
 * Return: the port, or NULL if the packet reaches none (no entry, the
 * switch's own port 0, or a port with nothing linked).
 */
struct rvtsw_port *rvtsw_switch_route(struct rvtsw_switch *sw,
				      struct rvtsw_port *sport, u16 dlid,
				      u8 *out)
	__must_hold(RCU)
{
	*out = RVTSW_SW_NO_PORT;
	if (rvtsw_port_owns_lid(sport, dlid))
		return sport;
	*out = rvtsw_switch_lft(sw, dlid);
	return rvtsw_switch_link(sw, *out);
}

/* Is switch port @num (0: the switch itself) at least in @state? */
static bool rvtsw_switch_port_in(struct rvtsw_switch *sw, unsigned int num,
				 u8 state)
{
	if (!num)
		return true;
	return num <= sw->nports && READ_ONCE(sw->port_state[num]) >= state;
}

/**
 * rvtsw_switch_carries - can a unicast packet go the way it was routed?
 * @sw: the switch
 * @sport: the port that sends it
 * @out: the switch port rvtsw_switch_route() gave it
 * @smp: whether it is a subnet management packet
 *
 * Context: any.
 * Return: true if it never leaves the HCA (@out is RVTSW_SW_NO_PORT),
 * or crosses the switch (rvtsw_switch_passes()).
 */
bool rvtsw_switch_carries(struct rvtsw_switch *sw, struct rvtsw_port *sport,
			  u8 out, bool smp)
{
	return out == RVTSW_SW_NO_PORT ||
	       rvtsw_switch_passes(sw, sport->sw_port, out, smp);
}

/**
 * rvtsw_switch_passes - may a packet cross the switch between two ports?
 * @sw: the switch
 * @in: the port it arrives by (0: the switch sends it)
 * @out: the port it leaves by (0: for the switch itself)
 * @smp: whether it is a subnet management packet
 *
 * An SMP crosses ports whose links are up, data only ACTIVE ports, and
 * data is never for the switch itself (it has no QPs but QP0).
 *
 * Context: any.
 * Return: true if the packet crosses.
 */
bool rvtsw_switch_passes(struct rvtsw_switch *sw, unsigned int in,
			 unsigned int out, bool smp)
{
	u8 need = smp ? IB_PORT_INIT : IB_PORT_ACTIVE;

	if (!out && !smp)
		return false;
	return rvtsw_switch_port_in(sw, in, need) &&
	       rvtsw_switch_port_in(sw, out, need);
}
