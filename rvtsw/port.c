// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvtsw ports, each linked to a port of the virtual switch, with its own
 * GUID.
 *
 * By default no subnet manager is needed: each port starts ACTIVE with
 * the LID a freshly configured subnet would have given it. In a managed
 * fabric (module parameter managed) it starts in INIT with LID 0, and
 * the SM's PortInfo Sets (sma.c) give it its LID and bring it up; the
 * state machine itself is link.c's.
 */
#include "rvtsw.h"
#include "wire.h"

/* The physical link rvtsw pretends to have. */
#define RVTSW_WIDTH IB_WIDTH_4X
#define RVTSW_SPEED IB_SPEED_EDR
/* The link-local subnet prefix a port has before an SM assigns one. */
#define RVTSW_GID_PREFIX 0xfe80000000000000ULL

/**
 * rvtsw_init_port - set up a port before registration
 * @dev: the device
 * @index: 0-based port index
 * @pkey2: a second P_Key for the port's table, or 0 for the default
 *	   P_Key alone
 * @sw: the switch the port will be linked to; a managed one's subnet
 *	manager assigns the LID and brings the port up
 *
 * Context: process context, before rvt_register_device().
 * Return: 0, or -ENOMEM.
 */
int rvtsw_init_port(struct rvtsw_dev *dev, unsigned int index, u16 pkey2,
		    struct rvtsw_switch *sw)
{
	struct rvtsw_port *port = &dev->ports[index];
	struct rvt_ibport *rvp = &port->rvp;
	u32 nports = dev->rdi.dparms.nports;

	port->stats = alloc_percpu(struct rvtsw_port_stats);
	if (!port->stats)
		return -ENOMEM;

	spin_lock_init(&rvp->lock);
	rvp->mcast_tree = RB_ROOT;
	RCU_INIT_POINTER(rvp->qp[0], NULL);
	RCU_INIT_POINTER(rvp->qp[1], NULL);
	rvp->gid_prefix = cpu_to_be64(RVTSW_GID_PREFIX);
	/* Extended speeds: the SMA reports EDR in LinkSpeedExtActive. */
	rvp->port_cap_flags = IB_PORT_SYS_IMAGE_GUID_SUP |
			      IB_PORT_CLIENT_REG_SUP |
			      IB_PORT_EXTENDED_SPEEDS_SUP;
	rvp->subnet_timeout = 18;

	port->dev = dev;
	port->port_num = index + 1;
	port->sw = sw;
	port->end.hca = port;
	rvtsw_rx_init(port);
	/* The switch has a port per HCA port, numbered across devices. */
	port->sw_port = dev->unit * nports + index + 1;
	/* Unmanaged, each port's LID is its switch port's number. */
	port->lid = sw->managed ? 0 : port->sw_port;
	port->guid = cpu_to_be64(be64_to_cpu(dev->rdi.ibdev.node_guid) +
				 index + 1);
	/* The link trains as the switch attaches it; it will be up. */
	port->state = sw->managed ? IB_PORT_INIT : IB_PORT_ACTIVE;
	port->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	port->pkeys[0] = IB_DEFAULT_PKEY_FULL;
	port->pkeys[1] = pkey2;

	rvt_init_port(&dev->rdi, rvp, index, port->pkeys);
	return 0;
}

/**
 * rvtsw_free_port - release what rvtsw_init_port() allocated
 * @port: the port; its device is unregistered or was never registered
 *
 * Context: process context.
 */
void rvtsw_free_port(struct rvtsw_port *port)
{
	free_percpu(port->stats);
	port->stats = NULL;
}

/**
 * rvtsw_query_port_state - report the link's side of a port query
 * @rdi: the device
 * @port_num: 1-based port number
 * @props: partly filled by rdmavt; completed here
 *
 * Context: any, may be atomic (rdmavt reaches it from AH creation).
 * Return: 0.
 */
int rvtsw_query_port_state(struct rvt_dev_info *rdi, u32 port_num,
			   struct ib_port_attr *props)
{
	struct rvtsw_port *port = rvtsw_port(rdi, port_num);

	props->state = READ_ONCE(port->state);
	props->phys_state = READ_ONCE(port->phys_state);
	props->lid = READ_ONCE(port->lid);
	props->lmc = 0;
	props->gid_tbl_len = 1;
	props->max_mtu = RVTSW_MTU;
	props->active_mtu = RVTSW_MTU;
	props->max_vl_num = 1;
	props->active_width = RVTSW_WIDTH;
	props->active_speed = RVTSW_SPEED;
	return 0;
}

/**
 * rvtsw_get_guid_be - a port's GUID, by GID table index
 * @rdi: the device
 * @rvp: the port
 * @guid_index: GID table index; rvtsw has one entry
 * @guid: where to store the GUID
 *
 * Context: any.
 * Return: 0, or -EINVAL for an index beyond the table.
 */
int rvtsw_get_guid_be(struct rvt_dev_info *rdi, struct rvt_ibport *rvp,
		      int guid_index, __be64 *guid)
{
	if (guid_index != 0)
		return -EINVAL;
	*guid = container_of(rvp, struct rvtsw_port, rvp)->guid;
	return 0;
}

/**
 * rvtsw_shut_down_port - take a port's link down
 * @rdi: the device
 * @port_num: 1-based port number
 *
 * The port is disabled, as a shut-down physical port is, until a
 * PortInfo Set enables it again (ibportstate enable) or the module is
 * reloaded.
 *
 * Context: process context; takes the switch's lock and the port's.
 * Return: 0.
 */
int rvtsw_shut_down_port(struct rvt_dev_info *rdi, u32 port_num)
{
	struct rvtsw_port *port = rvtsw_port(rdi, port_num);

	return rvtsw_link_set_hca(port->sw, port, IB_PORT_DOWN,
				  IB_PORT_PHYS_STATE_DISABLED);
}

/**
 * rvtsw_cap_mask_chg - the port's capability mask changed
 * @rdi: the device
 * @port_num: 1-based port number
 *
 * The new mask is already the port's (rdmavt set it); the SM hears of it
 * by trap 144, and reads it again.
 *
 * Context: process context.
 */
void rvtsw_cap_mask_chg(struct rvt_dev_info *rdi, u32 port_num)
{
	rvtsw_trap_cap_mask(rvtsw_port(rdi, port_num));
}

/**
 * rvtsw_modify_device - change the node description
 * @ibdev: the IB device
 * @mask: IB_DEVICE_MODIFY_* bits
 * @modify: the new values
 *
 * Every rdmavt core requires the driver to provide this verb. Each port
 * tells its SM of a new description by trap 144.
 *
 * Context: process context.
 * Return: 0, or -EOPNOTSUPP for anything but the node description.
 */
int rvtsw_modify_device(struct ib_device *ibdev, int mask,
			struct ib_device_modify *modify)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC) {
		memcpy(ibdev->node_desc, modify->node_desc,
		       IB_DEVICE_NODE_DESC_MAX);
		rvtsw_trap_node_desc(rdi_to_rvtsw(ib_to_rvt(ibdev)));
	}
	return 0;
}

/**
 * rvtsw_check_ah - driver checks on an address handle's attributes
 * @ibdev: the IB device
 * @ah_attr: the attributes, already checked by rdmavt
 *
 * A multicast DLID needs a GRH, which carries the group's MGID: without
 * one the datagram could not be delivered.
 *
 * Context: any, may be atomic.
 * Return: 0, or -EINVAL.
 */
int rvtsw_check_ah(struct ib_device *ibdev, struct rdma_ah_attr *ah_attr)
{
	u16 dlid = rdma_ah_get_dlid(ah_attr);

	if (rdma_ah_get_sl(ah_attr) > 15)
		return -EINVAL;
	if (dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	    dlid != be16_to_cpu(IB_LID_PERMISSIVE) &&
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	return 0;
}

/**
 * rvtsw_notify_new_ah - fill in rvtsw's part of a new address handle
 * @ibdev: the IB device
 * @ah_attr: the attributes
 * @ah: the AH being created
 *
 * rdmavt and rvtsw_setup_wqe() size UD messages by ah->log_pmtu: every
 * rvtsw path has the port's MTU.
 *
 * Context: any, may be atomic.
 */
void rvtsw_notify_new_ah(struct ib_device *ibdev,
			 struct rdma_ah_attr *ah_attr, struct rvt_ah *ah)
{
	ah->vl = 0;
	ah->log_pmtu = ilog2(ib_mtu_enum_to_int(RVTSW_MTU));
}
