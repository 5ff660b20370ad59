// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Address handles, and the address vector checks QPs share with them.
 *
 * An AH is a copy of its rdma_ah_attr (with its own reference on the
 * source GID entry). The device counts AHs against props.max_ah;
 * rdi->n_ahs_allocated is guarded by rdi->n_ahs_lock, taken with
 * interrupts saved as AHs may be created in atomic context.
 *
 * Exported symbols' CRCs depend on the types visible here: keep the
 * include set of the upstream file that exports them.
 */
#include <linux/slab.h>
#include "exports.h"
#include "ah.h"

/**
 * rvt_check_ah - check an address vector
 * @ibdev: the device
 * @ah_attr: the address vector of an AH or a QP path
 *
 * The port must exist, the static rate be the port's current one or a
 * defined IB rate, and a GRH's source GID index be within the port's GID
 * table. The driver's check_ah(), if any, then has the last word.
 *
 * Context: any (it queries the port, which must not sleep).
 * Return: 0, -EINVAL, or the driver's errno.
 */
int rvt_check_ah(struct ib_device *ibdev,
		 struct rdma_ah_attr *ah_attr)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibdev);
	u32 port_num = rdma_ah_get_port_num(ah_attr);
	u8 rate = rdma_ah_get_static_rate(ah_attr);
	struct ib_port_attr port_attr;

	if (port_num < 1 || port_num > ibdev->phys_port_cnt)
		return -EINVAL;
	if (ib_query_port(ibdev, port_num, &port_attr))
		return -EINVAL;
	if (rate != IB_RATE_PORT_CURRENT && ib_rate_to_mbps(rate) < 0)
		return -EINVAL;
	if ((rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH) &&
	    rdma_ah_read_grh(ah_attr)->sgid_index >= port_attr.gid_tbl_len)
		return -EINVAL;
	if (rdi->driver_f.check_ah)
		return rdi->driver_f.check_ah(ibdev, ah_attr);
	return 0;
}
EXPORT_SYMBOL(rvt_check_ah);

/**
 * rvt_driver_ah_init - set up a device's AH accounting
 * @rdi: the device being registered
 *
 * Context: process context, before the device is visible.
 */
void rvt_driver_ah_init(struct rvt_dev_info *rdi)
{
	spin_lock_init(&rdi->n_ahs_lock);
	rdi->n_ahs_allocated = 0;
}

/**
 * rvt_create_ah - create an address handle (ib_device_ops.create_ah and
 *		   create_user_ah)
 * @ibah: the AH, allocated by the IB core
 * @init_attr: its address vector (and flags: it may be created in atomic
 *	       context)
 * @udata: the process's request for a user AH, unused
 *
 * The driver's notify_new_ah() may fill in its own fields of the AH.
 *
 * Context: any.
 * Return: 0, -EINVAL if rvt_check_ah() refuses the address vector, or
 * -ENOMEM if the device has props.max_ah AHs already.
 */
int rvt_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		  struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibah->device);
	struct rvt_ah *ah = ibah_to_rvtah(ibah);
	unsigned long flags;
	int ret = 0;

	if (rvt_check_ah(ibah->device, init_attr->ah_attr))
		return -EINVAL;

	spin_lock_irqsave(&rdi->n_ahs_lock, flags);
	if (rdi->n_ahs_allocated >= rdi->dparms.props.max_ah)
		ret = -ENOMEM;
	else
		rdi->n_ahs_allocated++;
	spin_unlock_irqrestore(&rdi->n_ahs_lock, flags);
	if (ret)
		return ret;

	rdma_copy_ah_attr(&ah->attr, init_attr->ah_attr);
	if (rdi->driver_f.notify_new_ah)
		rdi->driver_f.notify_new_ah(ibah->device, init_attr->ah_attr,
					    ah);
	return 0;
}

/**
 * rvt_destroy_ah - destroy an address handle (ib_device_ops.destroy_ah)
 * @ibah: the AH
 * @destroy_flags: RDMA_DESTROY_AH_SLEEPABLE or 0; nothing here sleeps
 *
 * Send requests posted with the AH carry their own copy of its address
 * vector, so the AH may go before they complete.
 *
 * Context: any.
 * Return: 0.
 */
int rvt_destroy_ah(struct ib_ah *ibah, u32 destroy_flags)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibah->device);
	struct rvt_ah *ah = ibah_to_rvtah(ibah);
	unsigned long flags;

	spin_lock_irqsave(&rdi->n_ahs_lock, flags);
	rdi->n_ahs_allocated--;
	spin_unlock_irqrestore(&rdi->n_ahs_lock, flags);
	rdma_destroy_ah_attr(&ah->attr);
	return 0;
}

/**
 * rvt_modify_ah - change an address handle's address vector
 *		   (ib_device_ops.modify_ah)
 * @ibah: the AH
 * @ah_attr: the new address vector
 *
 * Context: any.
 * Return: 0, or -EINVAL if rvt_check_ah() refuses @ah_attr (the AH is then
 * unchanged).
 */
int rvt_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	struct rvt_ah *ah = ibah_to_rvtah(ibah);

	if (rvt_check_ah(ibah->device, ah_attr))
		return -EINVAL;
	rdma_replace_ah_attr(&ah->attr, ah_attr);
	return 0;
}

/**
 * rvt_query_ah - read an address handle's address vector
 *		  (ib_device_ops.query_ah)
 * @ibah: the AH
 * @ah_attr: filled with the address vector
 *
 * Context: any.
 * Return: 0.
 */
int rvt_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	*ah_attr = ibah_to_rvtah(ibah)->attr;
	return 0;
}
