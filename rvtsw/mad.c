// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The MADs the IB core offers the driver: rvtsw's process_mad.
 *
 * The IB core's MAD layer hands every MAD that arrives on QP0 or QP1, and
 * every directed-route SMP that ends at a local port, to process_mad
 * before any MAD agent sees it; sysfs asks it for the PMA's counters.
 * rvtsw answers, as an HCA's firmware would, the Get and Set requests of
 * two classes: subnet management (LID-routed and directed-route SMPs,
 * for the SMA in sma.c) and performance management (the PMA in pma.c).
 * Everything else (responses, traps, other classes, SMInfo, which belongs
 * to a subnet manager) goes on to the agents registered for it:
 * IB_MAD_RESULT_SUCCESS without a reply. If none is registered, the MAD
 * layer answers a MAD that came in by a QP as unsupported itself.
 *
 * SMPs for the SMA pass the port's M_Key check first (mkey.c); one that
 * fails is consumed without an answer. A TrapRepress, the SM's answer to
 * one of the port's traps, is consumed too: rvtsw sends each trap once,
 * so there is nothing to stop (trap.c).
 *
 * The hop pointer and paths of a directed-route SMP are the MAD layer's
 * business (the SMI, IBTA 14.2.2); the SMA only sets the response's
 * direction bit.
 *
 * Context: everything here runs in process context (the MAD layer's
 * work items, a sender's system call, a sysfs read) and holds no lock of
 * its own; sma.c and pma.c say what guards the fields they read.
 */
#include <rdma/ib_mad.h>
#include "rvtsw.h"

/* The class version both classes have had since IBTA 1.0. */
#define RVTSW_MGMT_CLASS_VERSION 1

static bool rvtsw_mad_is_smp(const struct ib_mad_hdr *hdr)
{
	return hdr->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	       hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
}

/* A request rvtsw answers: a Get or Set, of a class it serves. */
static bool rvtsw_mad_is_ours(const struct ib_mad_hdr *hdr)
{
	if (hdr->base_version != IB_MGMT_BASE_VERSION)
		return false;
	if (hdr->method != IB_MGMT_METHOD_GET &&
	    hdr->method != IB_MGMT_METHOD_SET)
		return false;
	return rvtsw_mad_is_smp(hdr) ||
	       hdr->mgmt_class == IB_MGMT_CLASS_PERF_MGMT;
}

/* A request the SMA answers, under M_Key protection: SMInfo is the SM's. */
static bool rvtsw_mad_is_for_sma(const struct ib_mad_hdr *hdr)
{
	return rvtsw_mad_is_smp(hdr) &&
	       hdr->base_version == IB_MGMT_BASE_VERSION &&
	       (hdr->method == IB_MGMT_METHOD_GET ||
		hdr->method == IB_MGMT_METHOD_SET ||
		hdr->method == IB_MGMT_METHOD_TRAP_REPRESS) &&
	       hdr->attr_id != IB_SMP_ATTR_SM_INFO;
}

/*
 * An SMP for the SMA (sma.c answers Gets, sma_set.c carries out Sets). A
 * request that fails gets its response with no data; @mkey says whether
 * a PortInfo it reads shows its M_Key. SMInfo, Get or Set, is the SM's
 * (14.2.5.13): not answered here, it goes on to the SM's own agent.
 */
static bool rvtsw_mad_smp(struct rvtsw_dev *dev, u32 port_num,
			  struct ib_smp *smp, enum rvtsw_mkey mkey,
			  __be16 *status)
{
	if (smp->attr_id == IB_SMP_ATTR_SM_INFO)
		return false;
	if (smp->method == IB_MGMT_METHOD_SET)
		*status = rvtsw_sma_set(dev, port_num, smp);
	else
		*status = rvtsw_sma_get(dev, port_num, smp);
	if (*status)
		memset(smp->data, 0, sizeof(smp->data));
	else if (mkey == RVTSW_MKEY_HIDE &&
		 smp->attr_id == IB_SMP_ATTR_PORT_INFO)
		((struct ib_port_info *)smp->data)->mkey = 0;
	return true;
}

static bool rvtsw_mad_pma(struct rvtsw_dev *dev, struct ib_pma_mad *pmp,
			  __be16 *status)
{
	if (pmp->mad_hdr.method == IB_MGMT_METHOD_SET)
		return rvtsw_pma_set(dev, pmp, status);
	return rvtsw_pma_get(dev, pmp, status);
}

/**
 * rvtsw_process_mad - answer a MAD addressed to the HCA's own agents
 * @ibdev: the IB device
 * @mad_flags: IB_MAD_IGNORE_* flags; IB_MAD_IGNORE_MKEY skips the M_Key
 *	       check
 * @port_num: the port the MAD arrived on, or that sysfs asks about
 * @in_wc: the MAD's receive completion, or NULL (sysfs, local SMPs)
 * @in_grh: its GRH, or NULL; unused
 * @in: the MAD
 * @out: the response, if there is one
 * @out_mad_size: in, the room at @out; out, the size of the response
 * @out_mad_pkey_index: the response's P_Key index; an IB response takes
 *			the request's, so it is left as it is
 *
 * Context: process context; does not sleep.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY with the response
 * in @out for a request the SMA or the PMA answers;
 * IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED for an SMP the M_Key
 * check refused, or a TrapRepress; IB_MAD_RESULT_SUCCESS alone for any
 * other MAD, which the MAD layer then gives to its agents.
 */
int rvtsw_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct rvtsw_dev *dev = rdi_to_rvtsw(ib_to_rvt(ibdev));
	enum rvtsw_mkey mkey = RVTSW_MKEY_OK;
	__be16 status = 0;
	bool answered;

	if (rvtsw_mad_is_for_sma(&in->mad_hdr)) {
		mkey = rvtsw_mkey_check(&dev->ports[port_num - 1],
					(const struct ib_smp *)in, mad_flags,
					in_wc ? in_wc->slid : 0);
		if (mkey == RVTSW_MKEY_REFUSED ||
		    in->mad_hdr.method == IB_MGMT_METHOD_TRAP_REPRESS)
			return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	}
	if (!rvtsw_mad_is_ours(&in->mad_hdr) || *out_mad_size < sizeof(*out))
		return IB_MAD_RESULT_SUCCESS;
	memcpy(out, in, sizeof(*out));
	if (in->mad_hdr.class_version != RVTSW_MGMT_CLASS_VERSION) {
		status = cpu_to_be16(IB_MGMT_MAD_STATUS_BAD_VERSION);
		answered = true;
	} else if (rvtsw_mad_is_smp(&in->mad_hdr)) {
		answered = rvtsw_mad_smp(dev, port_num, (struct ib_smp *)out,
					 mkey, &status);
	} else {
		answered = rvtsw_mad_pma(dev, (struct ib_pma_mad *)out,
					 &status);
	}
	if (!answered)
		return IB_MAD_RESULT_SUCCESS;
	rvtsw_mad_make_reply(out, status);
	*out_mad_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
