// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The fabric: which rvtsw port owns which LID.
 *
 * All rvtsw devices share one LID space (rvtsw_init_port() numbers the
 * ports of every device consecutively), as if every port hung off one
 * switch. A datagram finds its destination port, on whichever device, by
 * LID alone. Connected traffic goes through rdmavt's loopback engine,
 * which only reaches QPs of the sending device; rvtsw_dev_owns_lid() tells
 * the send engine when that is the case.
 *
 * The map is written only at module init and exit, which never run
 * concurrently, and read under RCU. A device leaves the map, and readers
 * have finished with its ports, before it unregisters.
 */
#include "rvtsw.h"

static struct rvtsw_port __rcu *rvtsw_lids[RVTSW_MAX_LID + 1];

/**
 * rvtsw_fabric_attach - make a registered device's ports reachable
 * @dev: the device
 *
 * Context: module init.
 */
void rvtsw_fabric_attach(struct rvtsw_dev *dev)
{
	u32 i;

	for (i = 0; i < dev->rdi.dparms.nports; i++) {
		struct rvtsw_port *port = &dev->ports[i];

		rcu_assign_pointer(rvtsw_lids[port->lid], port);
	}
}

/**
 * rvtsw_fabric_detach - make a device's ports unreachable
 * @dev: the device, still registered
 *
 * Returns once no sender is delivering to the device's ports any more.
 *
 * Context: process context; sleeps.
 */
void rvtsw_fabric_detach(struct rvtsw_dev *dev)
{
	u32 i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		RCU_INIT_POINTER(rvtsw_lids[dev->ports[i].lid], NULL);
	synchronize_rcu();
}

/* The base LID of @lid: the LID without its path bits. */
static u16 rvtsw_base_lid(u16 lid)
{
	return lid & ~((1U << RVTSW_LMC) - 1);
}

/**
 * rvtsw_fabric_port - the port that owns a unicast LID
 * @lid: the destination LID
 *
 * Context: RCU read side; the port stays valid until it ends.
 * Return: the port, or NULL if no rvtsw port owns @lid.
 */
struct rvtsw_port *rvtsw_fabric_port(u16 lid)
	__must_hold(RCU)
{
	u16 base = rvtsw_base_lid(lid);

	if (!base || base > RVTSW_MAX_LID)
		return NULL;
	return rcu_dereference(rvtsw_lids[base]);
}

/**
 * rvtsw_fabric_next_port - walk every reachable port
 * @port: the port returned last, or NULL to start
 *
 * Context: RCU read side, for the whole walk.
 * Return: the port with the next higher LID, or NULL at the end.
 */
struct rvtsw_port *rvtsw_fabric_next_port(struct rvtsw_port *port)
	__must_hold(RCU)
{
	u16 lid = port ? port->lid + 1 : 1;

	for (; lid <= RVTSW_MAX_LID; lid++) {
		port = rcu_dereference(rvtsw_lids[lid]);
		if (port)
			return port;
	}
	return NULL;
}

/**
 * rvtsw_dev_owns_lid - is a LID one of a device's own ports?
 * @dev: the device
 * @dlid: a destination LID
 *
 * Context: any.
 * Return: true if @dlid, without path bits, is the LID of a port of @dev.
 */
bool rvtsw_dev_owns_lid(struct rvtsw_dev *dev, u16 dlid)
{
	u16 base = rvtsw_base_lid(dlid);
	u32 i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		if (dev->ports[i].lid == base)
			return true;
	return false;
}
