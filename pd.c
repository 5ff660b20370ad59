// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Protection domains.
 *
 * A PD carries no state beyond whether it belongs to a user process (user
 * PDs may not use the DMA MR's lkey 0). The device counts them to enforce
 * dparms.props.max_pd; rdi->n_pds_allocated is guarded by rdi->n_pds_lock.
 */
#include "pd.h"

/**
 * rvt_driver_pd_init - prepare PD accounting at registration
 * @rdi: the rdmavt device
 *
 * Context: process context, before the device is visible.
 */
void rvt_driver_pd_init(struct rvt_dev_info *rdi)
{
	spin_lock_init(&rdi->n_pds_lock);
	rdi->n_pds_allocated = 0;
}

/**
 * rvt_alloc_pd - allocate a protection domain
 * @ibpd: the PD, allocated by the IB core
 * @udata: user data, or NULL for a kernel PD
 *
 * Context: process context; takes rdi->n_pds_lock.
 * Return: 0, or -ENOMEM once max_pd PDs exist.
 */
int rvt_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibpd->device);
	struct rvt_pd *pd = ibpd_to_rvtpd(ibpd);
	int ret = 0;

	spin_lock(&rdi->n_pds_lock);
	if (rdi->n_pds_allocated >= rdi->dparms.props.max_pd)
		ret = -ENOMEM;
	else
		rdi->n_pds_allocated++;
	spin_unlock(&rdi->n_pds_lock);

	pd->user = !!udata;
	return ret;
}

/**
 * rvt_dealloc_pd - free a protection domain
 * @ibpd: the PD; the IB core guarantees nothing uses it any more
 * @udata: user data, or NULL for a kernel PD
 *
 * Context: process context; takes rdi->n_pds_lock.
 * Return: 0.
 */
int rvt_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rvt_dev_info *rdi = ib_to_rvt(ibpd->device);

	spin_lock(&rdi->n_pds_lock);
	rdi->n_pds_allocated--;
	spin_unlock(&rdi->n_pds_lock);
	return 0;
}
