// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * MAD agents: one send-only agent on QP0 of every port, kept in
 * rvt_ibport.send_agent. hfi1 and qib send their SM traps through it (bad
 * P_Key or M_Key, capability mask, node description and system image GUID
 * changes), and qib starts its congestion sampling when told the agent
 * exists (driver_f.notify_create_mad_agent).
 *
 * The agents are created once the device is registered with the IB core,
 * whose MAD layer must have opened the ports' QP0 first, and removed
 * before it is unregistered. A port without a subnet management interface
 * has no QP0 and so no agent; the device works all the same, as with
 * upstream rdmavt, which also ignores the failure.
 *
 * send_agent and sm_ah are written here only, in process context, while
 * the driver registers or unregisters the device; drivers read them
 * without a lock in their trap paths and must not send traps while the
 * device is being unregistered. The driver creates sm_ah (under the
 * port's lock); rdmavt destroys it with the agent.
 */
#include <rdma/ib_mad.h>
#include "mad.h"

/* A trap has gone out (or failed): its buffer is ours to free. */
static void rvt_mad_send_done(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *send_wc)
{
	ib_free_send_mad(send_wc->send_buf);
}

/* Unregister a port's agent, if it has one. */
static bool rvt_drop_agent(struct rvt_ibport *rvp)
{
	struct ib_mad_agent *agent = rvp->send_agent;

	if (!agent)
		return false;
	WRITE_ONCE(rvp->send_agent, NULL);
	ib_unregister_mad_agent(agent);
	return true;
}

/**
 * rvt_create_mad_agents - give every port an SMI send agent
 * @rdi: a device just registered with the IB core
 *
 * Ports are done in order; after each agent is in place the driver's
 * notify_create_mad_agent() is called with the port's index. If a port
 * cannot have one, the agents made so far are removed again, each with
 * notify_free_mad_agent().
 *
 * Context: process context; may sleep.
 * Return: 0, or the MAD layer's negative errno (-EPROTONOSUPPORT for a
 * port without QP0).
 */
int rvt_create_mad_agents(struct rvt_dev_info *rdi)
{
	struct ib_mad_agent *agent;
	int p;

	for (p = 0; p < rdi->dparms.nports; p++) {
		agent = ib_register_mad_agent(&rdi->ibdev, p + 1, IB_QPT_SMI,
					      NULL, 0, rvt_mad_send_done,
					      NULL, NULL, 0);
		if (IS_ERR(agent))
			goto undo;
		WRITE_ONCE(rdi->ports[p]->send_agent, agent);
		if (rdi->driver_f.notify_create_mad_agent)
			rdi->driver_f.notify_create_mad_agent(rdi, p);
	}
	return 0;

undo:
	for (p = 0; p < rdi->dparms.nports; p++)
		if (rvt_drop_agent(rdi->ports[p]) &&
		    rdi->driver_f.notify_free_mad_agent)
			rdi->driver_f.notify_free_mad_agent(rdi, p);
	return PTR_ERR(agent);
}

/**
 * rvt_free_mad_agents - remove the ports' send agents and SM AHs
 * @rdi: a registered device, about to be unregistered
 *
 * For every port, whether it had an agent or not, as upstream does: the
 * agent is unregistered, the SM address handle the driver made for its
 * traps is destroyed, and the driver's notify_free_mad_agent() is called.
 *
 * Context: process context; may sleep.
 */
void rvt_free_mad_agents(struct rvt_dev_info *rdi)
{
	struct rvt_ibport *rvp;
	int p;

	for (p = 0; p < rdi->dparms.nports; p++) {
		rvp = rdi->ports[p];
		rvt_drop_agent(rvp);
		if (rvp->sm_ah) {
			rdma_destroy_ah(&rvp->sm_ah->ibah,
					RDMA_DESTROY_AH_SLEEPABLE);
			rvp->sm_ah = NULL;
		}
		if (rdi->driver_f.notify_free_mad_agent)
			rdi->driver_f.notify_free_mad_agent(rdi, p);
	}
}
