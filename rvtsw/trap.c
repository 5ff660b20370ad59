// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Traps: the notices an SMA sends its subnet manager unasked (IBTA vol.
 * 1, 13.4.8 and 14.2.5.1), SubnTrap(Notice) SMPs to the SM LID the SM
 * gave the port.
 *
 * An HCA port sends them through rdmavt's send agent on its QP0
 * (rvt_ibport.send_agent, made by rdmavt once the device is registered),
 * to the address handle kept in rvt_ibport.sm_ah:
 * - 144, local changes: the capability mask changed (ib_modify_port(),
 *   e.g. the CM or an SM on the port), or the node description did;
 * - 256, bad M_Key: an SMP the port's M_Key protection refused (mkey.c).
 * A port sends at most one trap per subnet timeout (4.096 us *
 * 2^SubnetTimeOut), so that a stream of bad SMPs does not become a
 * stream of traps; a trap in that window is not sent. Traps go only from
 * an ACTIVE port that knows its SM.
 *
 * The switch sends trap 128, link state change, from its port 0 when
 * SwitchInfo's PortStateChange becomes set (link.c schedules it); the SM
 * then sweeps the fabric again. It goes from a work item, as the
 * switch's own packet (switch_fwd.c), to the SM LID the SM set in port
 * 0's PortInfo, by the switch's LFT.
 *
 * The SM answers each trap with a TrapRepress; rvtsw sends every trap
 * once, so the repress has nothing to stop (mad.c, switch_sma.c).
 *
 * Locking: a port's trap window, transaction IDs and sm_ah are guarded
 * by its rvp.lock. Senders hold rcu_read_lock() around their use of the
 * send agent, and check dev->traps_stopped first: rvtsw_trap_stop()
 * sets it and waits for them before the device is unregistered and
 * rdmavt frees the agents (and sm_ah).
 */
#include <linux/jiffies.h>
#include <rdma/ib_mad.h>
#include "rvtsw.h"

/* Trap 128 has no constant in ib_smi.h. */
#define RVTSW_TRAP_LINK_STATE cpu_to_be16(128)
/* Trap 144's LocalChanges bit: a change other than the capability mask. */
#define RVTSW_TRAP_OTHER_LOCAL_CHANGES 0x01
/* The room trap 256 has for the return path of a directed-route SMP. */
#define RVTSW_TRAP_RETURN_HOPS 30

/*
 * The Notice attribute (IBTA 13.4.8.2, table 117) as an SMP carries it:
 * its first 64 bytes. An SMP has no room for IssuerGID; the SM finds the
 * issuer by its LID.
 */
struct rvtsw_notice {
	u8 generic_type;	/* IsGeneric, Type: IB_NOTICE_TYPE_* */
	u8 producer_msb;	/* ProducerType, 24 bits */
	__be16 producer;
	__be16 trap_num;
	__be16 issuer_lid;
	__be16 toggle_count;
	union {
		u8 raw[54];
		struct {
			__be16 lid;
		} __packed link_state;		/* 128 */
		struct {
			__be16 reserved;
			__be16 lid;
			u8 reserved2;
			u8 local_changes;
			__be32 cap_mask;
			__be16 change_flags;
			__be16 cap_mask2;
		} __packed local_changes;	/* 144 */
		struct {
			__be16 reserved;
			__be16 lid;
			__be16 dr_slid;
			u8 method;
			u8 reserved2;
			__be16 attr_id;
			__be32 attr_mod;
			__be64 mkey;
			u8 reserved3;
			u8 dr_trunc_hop;
			u8 dr_return_path[RVTSW_TRAP_RETURN_HOPS];
		} __packed bad_mkey;		/* 256 */
	} details;
} __packed;

static_assert(sizeof(struct rvtsw_notice) == IB_SMP_DATA_SIZE);

static void rvtsw_notice_init(struct rvtsw_notice *n, u8 type, __be16 producer,
			      __be16 trap, u16 issuer)
{
	memset(n, 0, sizeof(*n));
	n->generic_type = type;
	n->producer = producer;
	n->trap_num = trap;
	n->issuer_lid = cpu_to_be16(issuer);
}

/* A SubnTrap(Notice) carrying @n. */
static void rvtsw_trap_smp_init(struct ib_smp *smp, const struct rvtsw_notice *n,
				__be64 mkey, u64 tid)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = cpu_to_be64(tid);
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	smp->mkey = mkey;
	memcpy(smp->data, n, sizeof(*n));
}

/* The trap window: how long after one trap the next may go. */
static unsigned long rvtsw_trap_window(u8 subnet_timeout)
{
	return nsecs_to_jiffies(4096ULL << subnet_timeout) ?: 1;
}

/*
 * Open the port's trap window if it is not open and the port may send a
 * trap now. Return: the SM's LID and SL, the trap's TID and the port's
 * M_Key, or false if no trap goes.
 */
static bool rvtsw_trap_claim(struct rvtsw_port *port, u32 hi_tid,
			     struct rdma_ah_attr *sm, u64 *tid, __be64 *mkey)
{
	struct rvt_ibport *rvp = &port->rvp;
	unsigned long flags;
	bool go;

	spin_lock_irqsave(&rvp->lock, flags);
	go = port->state == IB_PORT_ACTIVE && rvtsw_lid_is_unicast(rvp->sm_lid) &&
	     (!rvp->trap_timeout || time_after_eq(jiffies, rvp->trap_timeout));
	if (go) {
		rvp->trap_timeout = jiffies +
				    rvtsw_trap_window(rvp->subnet_timeout);
		*tid = (u64)hi_tid << 32 | lower_32_bits(++rvp->tid);
		*mkey = rvp->mkey;
		memset(sm, 0, sizeof(*sm));
		sm->type = RDMA_AH_ATTR_TYPE_IB;
		rdma_ah_set_port_num(sm, port->port_num);
		rdma_ah_set_dlid(sm, rvp->sm_lid);
		rdma_ah_set_sl(sm, rvp->sm_sl);
	}
	spin_unlock_irqrestore(&rvp->lock, flags);
	return go;
}

/*
 * The port's address handle for its SM, made on first use and moved to
 * @sm's LID and SL when the SM has changed since. Return: NULL if there
 * is none and none can be made now.
 */
static struct ib_ah *rvtsw_trap_sm_ah(struct rvtsw_port *port,
				      struct ib_mad_agent *agent,
				      struct rdma_ah_attr *sm)
	__must_hold(RCU)
{
	struct rvt_ibport *rvp = &port->rvp;
	struct ib_ah *made = NULL;
	unsigned long flags;
	struct rvt_ah *ah;

	ah = READ_ONCE(rvp->sm_ah);
	if (!ah) {
		/* Not sleepable: the MAD layer may call us in atomic context. */
		made = rdma_create_ah(agent->qp->pd, sm, 0);
		if (IS_ERR(made))
			return NULL;
		spin_lock_irqsave(&rvp->lock, flags);
		if (!rvp->sm_ah) {
			WRITE_ONCE(rvp->sm_ah, ibah_to_rvtah(made));
			made = NULL;
		}
		ah = rvp->sm_ah;
		spin_unlock_irqrestore(&rvp->lock, flags);
		if (made)
			rdma_destroy_ah(made, 0);
	}
	if (rdma_ah_get_dlid(&ah->attr) != rdma_ah_get_dlid(sm) ||
	    rdma_ah_get_sl(&ah->attr) != rdma_ah_get_sl(sm))
		rdma_modify_ah(&ah->ibah, sm);
	return &ah->ibah;
}

/* Send @n from @port to its SM, if the port may send one now. */
static void rvtsw_trap_send(struct rvtsw_port *port,
			    const struct rvtsw_notice *n)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad_agent *agent;
	struct rdma_ah_attr sm;
	struct ib_ah *ah;
	__be64 mkey;
	u64 tid;

	rcu_read_lock();
	agent = READ_ONCE(port->rvp.send_agent);
	if (READ_ONCE(port->dev->traps_stopped) || !agent ||
	    !rvtsw_trap_claim(port, agent->hi_tid, &sm, &tid, &mkey))
		goto out;
	ah = rvtsw_trap_sm_ah(port, agent, &sm);
	if (!ah)
		goto out;
	buf = ib_create_send_mad(agent, 0, 0, false, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_ATOMIC,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		goto out;
	rvtsw_trap_smp_init(buf->mad, n, mkey, tid);
	buf->ah = ah;
	/* rdmavt's send handler frees it once it is sent. */
	if (ib_post_send_mad(buf, NULL))
		ib_free_send_mad(buf);
out:
	rcu_read_unlock();
}

/* Trap 144 from @port: @local_changes and @change_flags say what changed. */
static void rvtsw_trap_local_changes(struct rvtsw_port *port, u8 local_changes,
				     u16 change_flags)
{
	u16 lid = READ_ONCE(port->lid);
	struct rvtsw_notice n;

	rvtsw_notice_init(&n, IB_NOTICE_TYPE_INFO, IB_NOTICE_PROD_CA,
			  IB_NOTICE_TRAP_CAP_MASK_CHG, lid);
	n.details.local_changes.lid = cpu_to_be16(lid);
	n.details.local_changes.local_changes = local_changes;
	n.details.local_changes.cap_mask =
		cpu_to_be32(READ_ONCE(port->rvp.port_cap_flags));
	n.details.local_changes.change_flags = cpu_to_be16(change_flags);
	rvtsw_trap_send(port, &n);
}

/**
 * rvtsw_trap_cap_mask - tell the SM that a port's capability mask changed
 * @port: the port
 *
 * Context: process context, or the MAD layer's; does not sleep.
 */
void rvtsw_trap_cap_mask(struct rvtsw_port *port)
{
	rvtsw_trap_local_changes(port, 0, 0);
}

/**
 * rvtsw_trap_node_desc - tell the SM that a device's NodeDescription changed
 * @dev: the device; every port tells its SM
 *
 * Context: process context; does not sleep.
 */
void rvtsw_trap_node_desc(struct rvtsw_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		rvtsw_trap_local_changes(&dev->ports[i],
					 RVTSW_TRAP_OTHER_LOCAL_CHANGES,
					 IB_NOTICE_TRAP_NODE_DESC_CHG);
}

/**
 * rvtsw_trap_bad_mkey - tell the SM of an SMP that had the wrong M_Key
 * @port: the port that refused it
 * @smp: the SMP
 * @slid: its SLID (the permissive LID on a directed route, 0 if local)
 *
 * A directed-route SMP's notice carries its DrSLID and as much of its
 * return path (hops 1 to HopCount) as fits.
 *
 * Context: the MAD layer's (process_mad); does not sleep.
 */
void rvtsw_trap_bad_mkey(struct rvtsw_port *port, const struct ib_smp *smp,
			 u16 slid)
{
	struct rvtsw_notice n;
	u8 hops;

	rvtsw_notice_init(&n, IB_NOTICE_TYPE_SECURITY, IB_NOTICE_PROD_CA,
			  IB_NOTICE_TRAP_BAD_MKEY, READ_ONCE(port->lid));
	n.details.bad_mkey.lid = cpu_to_be16(slid);
	n.details.bad_mkey.method = smp->method;
	n.details.bad_mkey.attr_id = smp->attr_id;
	n.details.bad_mkey.attr_mod = smp->attr_mod;
	n.details.bad_mkey.mkey = smp->mkey;
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		hops = min_t(u8, smp->hop_cnt, IB_SMP_MAX_PATH_HOPS - 1);
		n.details.bad_mkey.dr_slid = smp->dr_slid;
		n.details.bad_mkey.dr_trunc_hop = IB_NOTICE_TRAP_DR_NOTICE;
		if (hops > RVTSW_TRAP_RETURN_HOPS) {
			n.details.bad_mkey.dr_trunc_hop |= IB_NOTICE_TRAP_DR_TRUNC;
			hops = RVTSW_TRAP_RETURN_HOPS;
		}
		n.details.bad_mkey.dr_trunc_hop |= hops;
		memcpy(n.details.bad_mkey.dr_return_path, &smp->return_path[1],
		       hops);
	}
	rvtsw_trap_send(port, &n);
}

/**
 * rvtsw_trap_stop - let no more traps go from a device's ports
 * @dev: a device about to be unregistered
 *
 * Waits for senders already past the check: after it, rdmavt may free
 * the ports' send agents and SM address handles.
 *
 * Context: process context; sleeps.
 */
void rvtsw_trap_stop(struct rvtsw_dev *dev)
{
	WRITE_ONCE(dev->traps_stopped, true);
	synchronize_rcu();
}

/* Trap 128 from the switch's port 0, if the SM has configured it. */
static void rvtsw_trap_switch_work(struct work_struct *work)
{
	struct rvtsw_switch *sw = container_of(work, struct rvtsw_switch,
					       trap_work);
	u16 lid = READ_ONCE(sw->lid), sm_lid = READ_ONCE(sw->sm_lid);
	struct rvtsw_notice n;
	struct ib_smp smp;

	if (!rvtsw_lid_is_unicast(lid) || !rvtsw_lid_is_unicast(sm_lid))
		return;
	rvtsw_notice_init(&n, IB_NOTICE_TYPE_URGENT, IB_NOTICE_PROD_SWITCH,
			  RVTSW_TRAP_LINK_STATE, lid);
	n.details.link_state.lid = cpu_to_be16(lid);
	/* The work item runs one at a time: the TID needs no lock. */
	rvtsw_trap_smp_init(&smp, &n, 0, ++sw->trap_tid);
	rvtsw_switch_send_smp(sw, &smp, sm_lid);
}

/**
 * rvtsw_trap_switch_init - get the switch ready to send traps
 * @sw: the switch, before any port is linked to it
 *
 * Context: module init.
 */
void rvtsw_trap_switch_init(struct rvtsw_switch *sw)
{
	INIT_WORK(&sw->trap_work, rvtsw_trap_switch_work);
}

/**
 * rvtsw_trap_switch_stop - wait for the switch's last trap
 * @sw: the switch, with no port linked to it any more
 *
 * Context: module exit; sleeps.
 */
void rvtsw_trap_switch_stop(struct rvtsw_switch *sw)
{
	cancel_work_sync(&sw->trap_work);
}
