// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Device, port and user-context verbs.
 *
 * The driver owns the port state: rdmavt reports what the driver keeps in
 * its struct rvt_ibport and asks it, through driver_f, for whatever only
 * the link knows (state, LID, MTU, GUIDs).
 */
#include "device.h"

/**
 * rvt_port_index - convert an IB port number into an index of rdi->ports
 * @port_num: 1-based port number, already validated by the IB core
 *
 * Return: the 0-based index.
 */
static u32 rvt_port_index(u32 port_num)
{
	return port_num - 1;
}

/**
 * rvt_port - the driver's port structure for an IB port number
 * @rdi: the rdmavt device
 * @port_num: 1-based port number, already validated by the IB core
 *
 * Return: the port registered with rvt_init_port().
 */
static struct rvt_ibport *rvt_port(struct rvt_dev_info *rdi, u32 port_num)
{
	return rdi->ports[rvt_port_index(port_num)];
}

/**
 * rvt_query_device - report the device attributes
 * @ibdev: the IB device
 * @props: filled with the attributes the driver put in dparms.props
 * @uhw: vendor data from userspace; rdmavt defines none
 *
 * Context: process context; may be called concurrently.
 * Return: 0, or -EINVAL if userspace passed vendor data.
 */
int rvt_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		     struct ib_udata *uhw)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);

	if (uhw->inlen || uhw->outlen)
		return -EINVAL;
	*props = rdi->dparms.props;
	return 0;
}

/**
 * rvt_modify_device - change device attributes (ib_device_ops.modify_device)
 * @ibdev: the IB device
 * @mask: IB_DEVICE_MODIFY_* bits
 * @modify: the new values
 *
 * The node description and system image GUID are the driver's: hfi1, qib
 * and rvtsw install their own modify_device, which takes precedence. For
 * a driver that does not, nothing can change, as with upstream's core.
 *
 * Context: process context.
 * Return: -EOPNOTSUPP.
 */
int rvt_modify_device(struct ib_device *ibdev, int mask,
		      struct ib_device_modify *modify)
{
	return -EOPNOTSUPP;
}

/**
 * rvt_get_numa_node - NUMA node the device's memory should come from
 * @ibdev: the IB device
 *
 * Context: any.
 * Return: dparms.node as the driver set it.
 */
int rvt_get_numa_node(struct ib_device *ibdev)
{
	return ib_to_rvt(ibdev)->dparms.node;
}

/**
 * rvt_query_port - report a port's attributes
 * @ibdev: the IB device
 * @port_num: 1-based port number, validated by the IB core
 * @props: zeroed by the caller; filled here and by the driver
 *
 * rdmavt fills what it keeps in the port structure; the driver's
 * query_port_state() adds the link's own state.
 *
 * Context: any; reached in atomic context through rvt_check_ah(), so
 * neither this nor the driver callback may sleep.
 * Return: 0 or the driver's negative errno.
 */
int rvt_query_port(struct ib_device *ibdev, u32 port_num,
		   struct ib_port_attr *props)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);
	struct rvt_ibport *rvp = rvt_port(rdi, port_num);

	props->sm_lid = rvp->sm_lid;
	props->sm_sl = rvp->sm_sl;
	props->port_cap_flags = rvp->port_cap_flags;
	props->max_msg_sz = 0x80000000;
	props->pkey_tbl_len = rvt_get_npkeys(rdi);
	props->bad_pkey_cntr = rvp->pkey_violations;
	props->qkey_viol_cntr = rvp->qkey_violations;
	props->subnet_timeout = rvp->subnet_timeout;
	return rdi->driver_f.query_port_state(rdi, port_num, props);
}

/**
 * rvt_modify_port - change a port's capability mask or shut it down
 * @ibdev: the IB device
 * @port_num: 1-based port number, validated by the IB core
 * @mask: IB_PORT_* modification bits
 * @props: bits to set and clear in the capability mask
 *
 * The capability flags are changed under the port lock, then the driver is
 * told (so it can trap to the SM) and asked to shut the port down if
 * requested.
 *
 * Context: process context; takes rvp->lock.
 * Return: 0 or the driver's negative errno from shut_down_port().
 */
int rvt_modify_port(struct ib_device *ibdev, u32 port_num, int mask,
		    struct ib_port_modify *props)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);
	struct rvt_ibport *rvp = rvt_port(rdi, port_num);
	int ret = 0;

	spin_lock_irq(&rvp->lock);
	if (mask & IB_PORT_OPA_MASK_CHG) {
		rvp->port_cap3_flags |= props->set_port_cap_mask;
		rvp->port_cap3_flags &= ~props->clr_port_cap_mask;
	} else {
		rvp->port_cap_flags |= props->set_port_cap_mask;
		rvp->port_cap_flags &= ~props->clr_port_cap_mask;
	}
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		rvp->qkey_violations = 0;
	spin_unlock_irq(&rvp->lock);

	if (props->set_port_cap_mask || props->clr_port_cap_mask)
		rdi->driver_f.cap_mask_chg(rdi, port_num);
	if (mask & IB_PORT_SHUTDOWN)
		ret = rdi->driver_f.shut_down_port(rdi, port_num);
	return ret;
}

/**
 * rvt_query_pkey - read one entry of a port's P_Key table
 * @ibdev: the IB device
 * @port_num: 1-based port number, validated by the IB core
 * @index: table index
 * @pkey: where to store the P_Key
 *
 * The driver keeps the table current; a racing update may be seen either
 * way, as on hardware.
 *
 * Context: any.
 * Return: 0, or -EINVAL if @index is beyond the table.
 */
int rvt_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		   u16 *pkey)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);

	if (index >= rvt_get_npkeys(rdi))
		return -EINVAL;
	*pkey = rvt_get_pkey(rdi, rvt_port_index(port_num), index);
	return 0;
}

/**
 * rvt_query_gid - build a port GID from the subnet prefix and a GUID
 * @ibdev: the IB device
 * @port_num: 1-based port number, validated by the IB core
 * @index: GID table index, passed to the driver as a GUID index
 * @gid: where to store the GID
 *
 * Context: any.
 * Return: 0 or the driver's negative errno for an index it does not have.
 */
int rvt_query_gid(struct ib_device *ibdev, u32 port_num, int index,
		  union ib_gid *gid)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);
	struct rvt_ibport *rvp = rvt_port(rdi, port_num);

	gid->global.subnet_prefix = rvp->gid_prefix;
	return rdi->driver_f.get_guid_be(rdi, rvp, index,
					 &gid->global.interface_id);
}

/**
 * rvt_get_port_immutable - report the port attributes that never change
 * @ibdev: the IB device
 * @port_num: 1-based port number
 * @immutable: filled with capabilities and table sizes
 *
 * Context: process context, during ib_register_device().
 * Return: 0 or the negative errno of the port query.
 */
int rvt_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_immutable *immutable)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	immutable->core_cap_flags = rdi->dparms.core_cap_flags;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = rdi->dparms.max_mad_size;
	return 0;
}

/**
 * rvt_alloc_ucontext - set up a user context
 * @uctx: the context, allocated by the IB core
 * @udata: the provider's request; rdmavt's ABI carries nothing in it
 *
 * Everything a user process maps is set up per object (CQ, QP, SRQ), so
 * the context itself holds no state.
 *
 * Context: process context.
 * Return: 0.
 */
int rvt_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	return 0;
}

/**
 * rvt_dealloc_ucontext - tear down a user context
 * @uctx: the context; its objects were destroyed by the IB core first
 *
 * Context: process context.
 */
void rvt_dealloc_ucontext(struct ib_ucontext *uctx)
{
}
