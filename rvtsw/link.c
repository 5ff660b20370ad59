// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The links between the HCA ports and the switch's external ports, and
 * the port state machine at both of their ends (IBTA vol. 1, 7.2 and
 * 14.2.5.6).
 *
 * A link is up when neither of its ends is disabled. A link that comes
 * up trains to INIT at both ends; a subnet manager then moves each end
 * to ARMED and to ACTIVE by PortInfo Sets; a Set of DOWN retrains the
 * link, back to INIT. A link that goes down takes both ends DOWN, and the
 * end that was not disabled polls (PortPhysicalState Polling) until the
 * other is enabled again. In a fabric no subnet manager manages, a link
 * that comes up is ACTIVE at once, as rvtsw's ports always were.
 *
 * Whenever a link trains again or goes down, SwitchInfo's PortStateChange
 * bit is set (IBTA 14.2.5.4: a switch port went from DOWN to INIT or to
 * DOWN), which makes the SM sweep the fabric again; the SM's own moves to
 * ARMED and ACTIVE do not set it. The HCA's end
 * dispatches IB_EVENT_PORT_ACTIVE and IB_EVENT_PORT_ERR as it enters and
 * leaves ACTIVE.
 *
 * Locking: each write of a link's state holds the switch's lock and then
 * the HCA port's rvp.lock; nothing takes them in the other order. The
 * data path reads the states with READ_ONCE and no lock.
 */
#include "rvtsw.h"

/*
 * A change to one end of a link, as a PortInfo Set asks for it: the
 * PortState (0: no change) and PortPhysicalState (0: no change).
 */
struct rvtsw_link_request {
	u8 state;
	u8 phys;
};

/**
 * rvtsw_link_state_valid - may a PortInfo Set move a port's state so?
 * @from: the port's state
 * @to: the PortState of the Set; 0 asks for no change
 *
 * DOWN may be asked for in any state; ARMED only in INIT, ACTIVE only in
 * ARMED (IBTA 14.2.5.6, table 155), or in the state itself, which
 * changes nothing. INIT comes only from the link training.
 *
 * Context: any.
 * Return: true if the Set may ask for @to.
 */
bool rvtsw_link_state_valid(u8 from, u8 to)
{
	switch (to) {
	case IB_PORT_NOP:
	case IB_PORT_DOWN:
		return true;
	case IB_PORT_ARMED:
		return from == IB_PORT_INIT || from == IB_PORT_ARMED;
	case IB_PORT_ACTIVE:
		return from == IB_PORT_ARMED || from == IB_PORT_ACTIVE;
	default:
		return false;
	}
}

/**
 * rvtsw_link_phys_valid - may a PortInfo Set ask for this physical state?
 * @phys: its PortPhysicalState
 *
 * Context: any.
 * Return: true for no change (0), Polling (enable) and Disabled.
 */
bool rvtsw_link_phys_valid(u8 phys)
{
	return !phys || phys == IB_PORT_PHYS_STATE_POLLING ||
	       phys == IB_PORT_PHYS_STATE_DISABLED;
}

/*
 * Apply @req to one end of a link, whose logical state is *@state and
 * which is disabled if *@disabled. Return: -EINVAL for a change the end's
 * state does not allow; 0, with *@retrain set if the link must train
 * again.
 */
static int rvtsw_link_request_end(const struct rvtsw_link_request *req,
				  u8 *state, bool *disabled, bool *retrain)
{
	if (!rvtsw_link_state_valid(*state, req->state) ||
	    !rvtsw_link_phys_valid(req->phys))
		return -EINVAL;
	if (req->phys) {
		bool off = req->phys == IB_PORT_PHYS_STATE_DISABLED;

		if (off != *disabled)
			*retrain = true;
		WRITE_ONCE(*disabled, off);
	}
	if (req->state == IB_PORT_DOWN)
		*retrain = true;
	else if (req->state)
		WRITE_ONCE(*state, req->state);
	return 0;
}

/* HCA port @port was in state @before: dispatch what its change means. */
static void rvtsw_link_hca_changed(struct rvtsw_port *port, u8 before)
{
	u8 after = READ_ONCE(port->state);
	struct ib_event event = {
		.device = &port->dev->rdi.ibdev,
		.element.port_num = port->port_num,
	};

	if (before != IB_PORT_ACTIVE && after == IB_PORT_ACTIVE)
		event.event = IB_EVENT_PORT_ACTIVE;
	else if (before == IB_PORT_ACTIVE && after != IB_PORT_ACTIVE)
		event.event = IB_EVENT_PORT_ERR;
	else
		return;
	ib_dispatch_event(&event);
}

/* The link trains: both ends INIT (or ACTIVE, unmanaged), or DOWN. */
static void rvtsw_link_train(struct rvtsw_switch *sw, struct rvtsw_port *port)
	__must_hold(&sw->lock) __must_hold(&port->rvp.lock)
{
	unsigned int num = port->sw_port;
	bool up = !port->disabled && !sw->port_disabled[num];
	u8 state = IB_PORT_DOWN, phys = IB_PORT_PHYS_STATE_POLLING;

	if (up) {
		state = sw->managed ? IB_PORT_INIT : IB_PORT_ACTIVE;
		phys = IB_PORT_PHYS_STATE_LINK_UP;
	} else if (port->disabled) {
		phys = IB_PORT_PHYS_STATE_DISABLED;
	}
	WRITE_ONCE(port->state, state);
	WRITE_ONCE(port->phys_state, phys);
	WRITE_ONCE(sw->port_state[num], state);
}

/* A switch port's link trained again or went down: the SM must hear. */
static void rvtsw_link_state_change(struct rvtsw_switch *sw)
	__must_hold(&sw->lock)
{
	/* Trap 128 goes when the bit becomes set, not while it stays set. */
	if (!(sw->life_state & RVTSW_SI_PORT_STATE_CHANGE))
		schedule_work(&sw->trap_work);
	WRITE_ONCE(sw->life_state, sw->life_state | RVTSW_SI_PORT_STATE_CHANGE);
}

/* The link trains again, a change the SM must hear of. */
static void rvtsw_link_retrain(struct rvtsw_switch *sw, struct rvtsw_port *port)
	__must_hold(&sw->lock) __must_hold(&port->rvp.lock)
{
	rvtsw_link_train(sw, port);
	rvtsw_link_state_change(sw);
}

/*
 * Apply @req to the HCA end (@hca) or the switch end of @port's link,
 * and retrain the link if it asks for that. Return: 0 or -EINVAL.
 */
static int rvtsw_link_request(struct rvtsw_switch *sw, struct rvtsw_port *port,
			      const struct rvtsw_link_request *req, bool hca)
{
	unsigned int num = port->sw_port;
	bool retrain = false;
	unsigned long flags;
	u8 before;
	int ret;

	spin_lock_irqsave(&sw->lock, flags);
	spin_lock(&port->rvp.lock);
	before = port->state;
	if (hca)
		ret = rvtsw_link_request_end(req, &port->state, &port->disabled,
					     &retrain);
	else
		ret = rvtsw_link_request_end(req, &sw->port_state[num],
					     &sw->port_disabled[num], &retrain);
	if (!ret && retrain)
		rvtsw_link_retrain(sw, port);
	spin_unlock(&port->rvp.lock);
	spin_unlock_irqrestore(&sw->lock, flags);
	rvtsw_link_hca_changed(port, before);
	return ret;
}

/**
 * rvtsw_link_set_hca - a PortInfo Set, or a shutdown, at an HCA's port
 * @sw: the switch
 * @port: the port
 * @state: the PortState asked for (0: no change)
 * @phys: the PortPhysicalState asked for (0: no change)
 *
 * Context: process context or the sender's; takes the switch's lock and
 * the port's, interrupts saved; no lock held.
 * Return: 0, or -EINVAL if @state or @phys is not allowed (nothing
 * changes then).
 */
int rvtsw_link_set_hca(struct rvtsw_switch *sw, struct rvtsw_port *port,
		       u8 state, u8 phys)
{
	struct rvtsw_link_request req = { .state = state, .phys = phys };

	return rvtsw_link_request(sw, port, &req, true);
}

/**
 * rvtsw_link_set_switch - a PortInfo Set at a switch's external port
 * @sw: the switch
 * @num: the external port
 * @state: the PortState asked for (0: no change)
 * @phys: the PortPhysicalState asked for (0: no change)
 *
 * A port with nothing linked to it stays DOWN; only whether it is
 * disabled changes. One whose far end is no HCA port (an uplink) is
 * retrained by that end when the Set asks for it.
 *
 * Context: the sender's context, RCU read side; takes the switch's lock
 * and the linked port's, interrupts saved.
 * Return: 0, or -EINVAL if @state or @phys is not allowed (nothing
 * changes then).
 */
int rvtsw_link_set_switch(struct rvtsw_switch *sw, unsigned int num,
			  u8 state, u8 phys)
	__must_hold(RCU)
{
	struct rvtsw_link_request req = { .state = state, .phys = phys };
	struct rvtsw_port *port = rvtsw_switch_link(sw, num);
	struct rvtsw_link_end *end;
	bool retrain = false;
	unsigned long flags;
	int ret;

	if (port)
		return rvtsw_link_request(sw, port, &req, false);
	spin_lock_irqsave(&sw->lock, flags);
	/* Unlinked, it is DOWN, from which only DOWN may be asked. */
	ret = rvtsw_link_request_end(&req, &sw->port_state[num],
				     &sw->port_disabled[num], &retrain);
	spin_unlock_irqrestore(&sw->lock, flags);
	/* Another kind of end (an uplink) trains its link itself. */
	end = rcu_dereference(sw->peer[num]);
	if (!ret && retrain && end && end->ops->retrain)
		end->ops->retrain(end);
	return ret;
}

/**
 * rvtsw_link_switch_phys - a switch port's PortPhysicalState
 * @sw: the switch
 * @num: the external port
 *
 * Context: any.
 * Return: LinkUp, Disabled (by the SM), or Polling (its link is down).
 */
u8 rvtsw_link_switch_phys(struct rvtsw_switch *sw, unsigned int num)
{
	if (READ_ONCE(sw->port_state[num]) != IB_PORT_DOWN)
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (READ_ONCE(sw->port_disabled[num]))
		return IB_PORT_PHYS_STATE_DISABLED;
	return IB_PORT_PHYS_STATE_POLLING;
}

/**
 * rvtsw_link_attach - link an HCA port to its switch port
 * @sw: the switch
 * @port: the port, of a registered device
 *
 * The link trains at once; the switch's end comes up as the HCA's did
 * at rvtsw_init_port(). A managed switch's SM hears of it; an unmanaged
 * one is as an SM would have left it, its PortStateChange clear.
 *
 * Context: module init; takes the switch's lock and the port's.
 */
void rvtsw_link_attach(struct rvtsw_switch *sw, struct rvtsw_port *port)
{
	unsigned int num = port->sw_port;
	unsigned long flags;
	u8 before;

	spin_lock_irqsave(&sw->lock, flags);
	spin_lock(&port->rvp.lock);
	before = port->state;
	sw->port_disabled[num] = false;
	rcu_assign_pointer(sw->peer[num], &port->end);
	if (sw->managed)
		rvtsw_link_retrain(sw, port);
	else
		rvtsw_link_train(sw, port);
	spin_unlock(&port->rvp.lock);
	spin_unlock_irqrestore(&sw->lock, flags);
	rvtsw_link_hca_changed(port, before);
}

/**
 * rvtsw_link_detach - unlink an HCA port from the switch
 * @sw: the switch
 * @port: the port, of a device about to be unregistered
 *
 * The switch's end goes DOWN; the caller waits for RCU readers.
 *
 * Context: process context; takes the switch's lock.
 */
void rvtsw_link_detach(struct rvtsw_switch *sw, struct rvtsw_port *port)
{
	unsigned int num = port->sw_port;
	unsigned long flags;

	spin_lock_irqsave(&sw->lock, flags);
	RCU_INIT_POINTER(sw->peer[num], NULL);
	WRITE_ONCE(sw->port_state[num], IB_PORT_DOWN);
	spin_unlock_irqrestore(&sw->lock, flags);
}

/**
 * rvtsw_link_end_train - a switch port's link to another kind of end trains
 * @sw: the switch
 * @num: the external port, whose far end is no HCA port (an uplink)
 * @up: whether the far end is there
 *
 * The port comes up to INIT (ACTIVE in an unmanaged fabric) unless the SM
 * disabled it, or goes DOWN; either way the SM hears of it
 * (PortStateChange).
 *
 * Context: any but hard interrupt; takes the switch's lock, interrupts
 * saved.
 */
void rvtsw_link_end_train(struct rvtsw_switch *sw, unsigned int num, bool up)
{
	u8 state = IB_PORT_DOWN;
	unsigned long flags;

	spin_lock_irqsave(&sw->lock, flags);
	if (up && !sw->port_disabled[num])
		state = sw->managed ? IB_PORT_INIT : IB_PORT_ACTIVE;
	WRITE_ONCE(sw->port_state[num], state);
	if (sw->managed)
		rvtsw_link_state_change(sw);
	spin_unlock_irqrestore(&sw->lock, flags);
}

/**
 * rvtsw_link_end_attach - link another kind of end to a switch port
 * @sw: the switch
 * @num: the external port, with nothing linked to it
 * @end: the end (an uplink), ready for packets
 *
 * The port stays DOWN until the end trains the link
 * (rvtsw_link_end_train()).
 *
 * Context: process context; takes the switch's lock.
 */
void rvtsw_link_end_attach(struct rvtsw_switch *sw, unsigned int num,
			   struct rvtsw_link_end *end)
{
	unsigned long flags;

	spin_lock_irqsave(&sw->lock, flags);
	sw->port_disabled[num] = false;
	WRITE_ONCE(sw->port_state[num], IB_PORT_DOWN);
	rcu_assign_pointer(sw->peer[num], end);
	spin_unlock_irqrestore(&sw->lock, flags);
}

/**
 * rvtsw_link_end_detach - unlink another kind of end from a switch port
 * @sw: the switch
 * @num: the external port
 *
 * The port goes DOWN, and the SM hears of it. Returns once no sender is
 * handing the end a packet any more.
 *
 * Context: process context; sleeps.
 */
void rvtsw_link_end_detach(struct rvtsw_switch *sw, unsigned int num)
{
	unsigned long flags;

	spin_lock_irqsave(&sw->lock, flags);
	RCU_INIT_POINTER(sw->peer[num], NULL);
	WRITE_ONCE(sw->port_state[num], IB_PORT_DOWN);
	if (sw->managed)
		rvtsw_link_state_change(sw);
	spin_unlock_irqrestore(&sw->lock, flags);
	synchronize_rcu();
}
