/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvtsw: a software HCA on the public rdmavt API. No hardware: its ports
 * link to a virtual switch, and traffic between its QPs goes by loopback.
 */
#ifndef RVTSW_H
#define RVTSW_H

#include <linux/skbuff.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_pma.h>

#define RVTSW_NAME "rvtsw"
#define RVTSW_MAX_DEVICES 16
#define RVTSW_MAX_PORTS 4
/* Switch ports for uplinks to other hosts (uplink.c), past the HCAs'. */
#define RVTSW_MAX_UPLINKS 4
/* The default P_Key, and optionally one more (module parameter). */
#define RVTSW_MAX_PKEYS 2
#define RVTSW_MTU IB_MTU_4096
/* Every port has one LID: no LMC, no path bits. */
#define RVTSW_LMC 0
/* LIDs are 1..RVTSW_MAX_LID, unique across every rvtsw device. */
#define RVTSW_MAX_LID (RVTSW_MAX_DEVICES * RVTSW_MAX_PORTS)

/*
 * The virtual switch (switch.c): an external port per HCA port and per
 * uplink, every
 * unicast LID in its linear table, every multicast LID in its multicast
 * table (0xc000 to 0xfffe), 16 ports to an MFT position.
 */
#define RVTSW_SW_MAX_PORTS (RVTSW_MAX_LID + RVTSW_MAX_UPLINKS)
#define RVTSW_SW_NO_PORT 0xff
#define RVTSW_LFT_CAP 0xc000
#define RVTSW_LFT_BLOCK 64
#define RVTSW_MLID_BASE 0xc000
#define RVTSW_MFT_CAP 0x3fff
#define RVTSW_MFT_BLOCK 32
#define RVTSW_MFT_PORTS_PER_POS 16
#define RVTSW_MFT_POSITIONS \
	DIV_ROUND_UP(RVTSW_SW_MAX_PORTS + 1, RVTSW_MFT_PORTS_PER_POS)
/* SwitchInfo's PortStateChange bit: a port of the switch changed state. */
#define RVTSW_SI_PORT_STATE_CHANGE BIT(2)

/*
 * Per-port counters, exposed as hw_counters (rdma statistic). Each is
 * per CPU: the send and receive paths bump them without a shared lock.
 * A packet dropped at the receiver counts on the receiving port; one the
 * switch drops (no route, a port not ACTIVE), on the port that sent it
 * into the switch.
 */
enum rvtsw_counter {
	RVTSW_CNT_TX,			/* datagrams sent (UD, GSI, SMI) */
	RVTSW_CNT_TX_MCAST,		/* ... of which to a multicast LID */
	RVTSW_CNT_RX,			/* datagrams placed in a receive WQE */
	RVTSW_CNT_DROP_UNKNOWN_LID,	/* no port owns the DLID / group */
	RVTSW_CNT_DROP_NO_QP,		/* no such QP, or wrong type/state */
	RVTSW_CNT_DROP_QKEY,		/* Q_Key mismatch */
	RVTSW_CNT_DROP_PKEY,		/* P_Key mismatch */
	RVTSW_CNT_DROP_NO_RWQE,		/* no receive WQE posted */
	RVTSW_CNT_DROP_TOO_LONG,	/* receive WQE too small */
	RVTSW_CNT_DROP_LINK,		/* a port or link on the way not ACTIVE */
	RVTSW_CNT_DROP_MALFORMED,	/* headers not as IBTA says */
	RVTSW_CNT_DROP_SHORT,		/* shorter than LRH, BTH and CRCs */
	RVTSW_CNT_DROP_LENGTH,		/* LRH PktLen not the packet's length */
	RVTSW_CNT_DROP_VCRC,		/* bad VCRC: corrupted on a link */
	RVTSW_CNT_DROP_ICRC,		/* bad ICRC: corrupted on the way */
	RVTSW_CNT_DROP_RX_FULL,		/* the port's receive queue was full */
	RVTSW_CNT_DROP_NOMEM,		/* no memory for a packet */
	RVTSW_CNT_DROP_CONN,		/* RC/UC packet the QP could not take */
	RVTSW_CNT_DROP_FAULT,		/* dropped by the switch's fault knob */
	RVTSW_CNT_DROP_PSN,		/* RC/UC PSN outside what is expected */
	RVTSW_CNT_DROP_OVERSIZE,	/* payload longer than the path MTU */
	RVTSW_CNT_DROP_OPCODE_SEQ,	/* opcode out of sequence */
	RVTSW_CNT_RC_ACK_REQS,		/* RC requests that asked for an ACK */
	RVTSW_CNT_RC_ACKS,		/* RC ACKs and NAKs sent (coalesced) */
	RVTSW_CNT_RC_DELAYED_COMP,	/* RC completions that waited a send */
	/*
	 * What crossed the port's link, for the PMA: packets sent (of
	 * every transport) and those that arrived (whatever then became of
	 * them), and their 4-byte words as the LRH's PktLen counts them
	 * (LRH to ICRC). rdmavt's RC/UC loopback inside a device never
	 * reaches the link.
	 */
	RVTSW_CNT_TX_LINK,
	RVTSW_CNT_TX_WORDS,
	RVTSW_CNT_RX_LINK,
	RVTSW_CNT_RX_LINK_MCAST,
	RVTSW_CNT_RX_WORDS,
	RVTSW_NUM_COUNTERS
};

/*
 * The PMA's counters (PortCounters and PortCountersExtended share them).
 * A PMA Set clears a counter by moving its baseline to the current sum.
 */
enum rvtsw_pma_counter {
	RVTSW_PMA_XMIT_DATA,
	RVTSW_PMA_RCV_DATA,
	RVTSW_PMA_XMIT_PKTS,
	RVTSW_PMA_RCV_PKTS,
	RVTSW_PMA_UNI_XMIT_PKTS,
	RVTSW_PMA_UNI_RCV_PKTS,
	RVTSW_PMA_MULTI_XMIT_PKTS,
	RVTSW_PMA_MULTI_RCV_PKTS,
	RVTSW_PMA_RCV_ERRORS,		/* PortCounters only, 16 bits */
	RVTSW_PMA_XMIT_DISCARDS,	/* PortCounters only, 16 bits */
	RVTSW_PMA_NUM_COUNTERS
};

/**
 * struct rvtsw_port_stats - one CPU's share of a port's counters
 * @count: indexed by enum rvtsw_counter
 */
struct rvtsw_port_stats {
	u64 count[RVTSW_NUM_COUNTERS];
};

struct rvtsw_port;

struct rvtsw_link_end;

/**
 * struct rvtsw_link_ops - what the end of a link does with packets
 * @receive: take a packet that crossed the link to this end (it is the
 *	     receiver's now); any context, never sleeps
 * @lost: count a packet this end sent that the switch dropped, and why
 * @retrain: the SM asked the switch port to retrain its link (a Set of
 *	     DOWN, or of its physical state); optional, for an end that is
 *	     no HCA port: it trains the link again (rvtsw_link_end_train())
 */
struct rvtsw_link_ops {
	void (*receive)(struct rvtsw_link_end *end, struct sk_buff *skb);
	void (*lost)(struct rvtsw_link_end *end, enum rvtsw_counter why);
	void (*retrain)(struct rvtsw_link_end *end);
};

/**
 * struct rvtsw_link_end - what is at one end of a link to a switch port
 * @ops: what it does with packets
 * @hca: the HCA port, if this end is one; NULL for any other kind of
 *	 end (another switch's port, an uplink)
 * @mtu: the largest IB MTU (enum ib_mtu) the link carries; 0 for
 *	 RVTSW_MTU. An uplink's follows its interface (READ_ONCE)
 *
 * A switch port knows its peer only by this: whatever a link can join
 * to a switch (an HCA port today) embeds one.
 */
struct rvtsw_link_end {
	const struct rvtsw_link_ops *ops;
	struct rvtsw_port *hca;
	u8 mtu;
};

/**
 * struct rvtsw_rxq - a port's receive queue and its worker
 * @queue: packets that arrived, oldest first; at most RVTSW_RXQ_MAX,
 *	   guarded by its own lock
 * @work: drains @queue in softirq context (system_bh_wq); one run at a
 *	  time per port, as for every work item
 * @ack_wait: RC QPs whose ACK or NAK waits for the end of the run (ACKs
 *	      are coalesced); @work's alone
 */
struct rvtsw_rxq {
	struct sk_buff_head queue;
	struct work_struct work;
	struct list_head ack_wait;
};

/**
 * struct rvtsw_port - one port of an rvtsw device
 * @rvp: rdmavt's port structure; its lock guards the fields below that
 *	 change after registration (and rdmavt's sm_lid, sm_sl, mkey and
 *	 the other fields the SMA sets)
 * @dev: the device this port belongs to
 * @port_num: 1-based port number; fixed
 * @lid: base LID, unique among all rvtsw ports; 0 until a subnet manager
 *	 assigns one in a managed fabric; guarded by @rvp.lock
 * @sw: the switch this port is linked to; fixed
 * @sw_port: the switch port this port is linked to; fixed
 * @end: this port as the end of its link, which the switch knows it by
 * @rxq: packets that arrived at this port, waiting for their receiver
 * @guid: port GUID; fixed
 * @state: the logical port state (DOWN, INIT, ARMED, ACTIVE); guarded by
 *	   @rvp.lock and the switch's lock, both held to write it (link.c)
 * @phys_state: IB_PORT_PHYS_STATE_LINK_UP, _POLLING (the other end is
 *		disabled) or _DISABLED; guarded as @state
 * @disabled: this end of the link was disabled (PortPhysicalState Set, or
 *	      a shutdown request); guarded as @state
 * @pkeys: the P_Key table handed to rdmavt; an SM may set it, under
 *	   @rvp.lock
 * @stats: per-CPU counters, bumped with this_cpu_inc()
 * @pma_base: what each PMA counter read when a PMA Set last cleared it;
 *	      guarded by @rvp.lock
 */
struct rvtsw_port {
	struct rvt_ibport rvp;
	struct rvtsw_dev *dev;
	u32 port_num;
	u16 lid;
	struct rvtsw_switch *sw;
	u8 sw_port;
	struct rvtsw_link_end end;
	struct rvtsw_rxq rxq;
	__be64 guid;
	u8 state;
	u8 phys_state;
	bool disabled;
	u16 pkeys[RVTSW_MAX_PKEYS];
	struct rvtsw_port_stats __percpu *stats;
	u64 pma_base[RVTSW_PMA_NUM_COUNTERS];
};

/**
 * struct rvtsw_dev - an rvtsw device
 * @rdi: the rdmavt device; must stay first (rvt_alloc_device())
 * @unit: device number, the N of rvtsw_N
 * @parent: PCI device reported by get_pci_dev(): parent=, or without it
 *	    the system's first; rdmavt cores that print through it need one
 * @debugfs: the device's debugfs directory, while registered
 * @traps_stopped: set before unregistration: no port sends a trap any
 *		   more; read under rcu_read_lock() (trap.c)
 * @ports: the ports, dparms.nports of them
 */
struct rvtsw_dev {
	struct rvt_dev_info rdi;
	unsigned int unit;
	struct pci_dev *parent;
	struct dentry *debugfs;
	bool traps_stopped;
	struct rvtsw_port ports[];
};

/* What the switch's fault knob does to the packets it picks. */
enum rvtsw_fault_action {
	RVTSW_FAULT_DROP,
	RVTSW_FAULT_HOLD,
	RVTSW_FAULT_SHORT,
	RVTSW_FAULT_LENGTH,
	RVTSW_FAULT_VCRC,
	RVTSW_FAULT_ICRC,
	RVTSW_FAULT_QPN,
	RVTSW_FAULT_PKEY,
	RVTSW_FAULT_QKEY,
	RVTSW_FAULT_PSN,
	RVTSW_FAULT_OVERSIZE,
	RVTSW_FAULT_OPCODE,
	RVTSW_FAULT_NUM,
	RVTSW_FAULT_NONE = RVTSW_FAULT_NUM,	/* the packet goes on */
};

/**
 * struct rvtsw_fault - a switch's fault knob (switch_fault.c)
 * @opcode: the BTH opcode of the packets it picks, or -1: none
 * @skip: how many of those pass before it picks any
 * @count: how many it picks then
 * @action: what it does to them (enum rvtsw_fault_action)
 * @held: the packets it holds (RVTSW_FAULT_HOLD), with their ports in
 *	  their rvtsw_skb_cb; its own lock
 */
struct rvtsw_fault {
	atomic_t opcode;
	atomic_t skip;
	atomic_t count;
	atomic_t action;
	struct sk_buff_head held;
};

/**
 * struct rvtsw_switch - a virtual switch, to which HCA ports are linked
 * @lock: guards the writers of the fields below that change; taken
 *	  before a port's rvp.lock where both are held (link.c)
 * @managed: a subnet manager programs the switch and brings its ports
 *	     up; otherwise it starts programmed, every port ACTIVE; fixed
 * @nports: external ports, 1 to @nports; fixed
 * @guid: node GUID, also port 0's; fixed
 * @node_desc: NodeDescription; fixed
 * @lid: port 0's LID, as the SM set it (0 before)
 * @sm_lid: port 0's MasterSMLID, as the SM set it
 * @port_state: each external port's logical state (DOWN to ACTIVE);
 *		also written under the linked HCA port's rvp.lock
 * @port_disabled: each external port was disabled by the SM
 * @lft_top: LinearFDBTop: entries above it are not valid
 * @mft_top: MulticastFDBTop, as the SM last set it (a multicast LID; not
 *	     enforced: the switch does not claim IsMulticastFDBTopSupported)
 * @life_state: SwitchInfo's LifeTimeValue and PortStateChange byte
 * @def_port: DefaultPort, DefaultMulticastPrimaryPort and
 *	      DefaultMulticastNotPrimaryPort, as the SM last set them
 * @lft: LinearForwardingTable: the output port of each LID
 * @mft: MulticastForwardingTable: for each position, each multicast LID's
 *	 port mask
 * @peer: the far end of each external port's link, or NULL; RCU,
 *	  written under @lock
 * @trap_work: sends trap 128 when PortStateChange becomes set (trap.c)
 * @trap_tid: the last trap's transaction ID; @trap_work's alone
 * @fault: the fault knob (debugfs; switch_fault.c)
 * @debugfs: the switch's debugfs directory
 *
 * A host may hold several switches: nothing in one refers to another
 * except through a link end.
 */
struct rvtsw_switch {
	spinlock_t lock; /* serializes the SMA's writes, and link changes */
	bool managed;
	unsigned int nports;
	__be64 guid;
	char node_desc[IB_DEVICE_NODE_DESC_MAX];
	u16 lid;
	u16 sm_lid;
	u8 port_state[RVTSW_SW_MAX_PORTS + 1];
	bool port_disabled[RVTSW_SW_MAX_PORTS + 1];
	u16 lft_top;
	u16 mft_top;
	u8 life_state;
	u8 def_port[3];
	u8 lft[RVTSW_LFT_CAP];
	u16 mft[RVTSW_MFT_POSITIONS][RVTSW_MFT_CAP];
	struct rvtsw_link_end __rcu *peer[RVTSW_SW_MAX_PORTS + 1];
	struct work_struct trap_work;
	u64 trap_tid;
	struct rvtsw_fault fault;
	struct dentry *debugfs;
};

/**
 * struct rvtsw_qp_priv - rvtsw's per-QP state (qp->priv)
 * @qp: the QP this belongs to
 * @send_work: runs the send engine in process context
 * @send_bh_work: runs it in softirq context (rvt_bh_wq), for a wire QP
 *		  scheduled with bottom halves off (qp.c)
 * @tx_inflight: packets the QP sent that are not freed yet (wire_tx.c)
 * @tx_flags: RVTSW_TX_WAITING: the engine stopped for @tx_inflight
 * @s_resume: an RC requester goes back into the request at s_cur, at
 *	      s_psn, after a restart (wire_req.c); guarded by s_lock
 */
struct rvtsw_qp_priv {
	struct rvt_qp *qp;
	struct work_struct send_work;
	struct work_struct send_bh_work;
	atomic_t tx_inflight;
	unsigned long tx_flags;
	bool s_resume;
};

static inline struct rvtsw_dev *rdi_to_rvtsw(struct rvt_dev_info *rdi)
{
	return container_of(rdi, struct rvtsw_dev, rdi);
}

static inline struct rvtsw_port *rvtsw_port(struct rvt_dev_info *rdi,
					    u32 port_num)
{
	return &rdi_to_rvtsw(rdi)->ports[port_num - 1];
}

static inline struct rvtsw_port *rvtsw_qp_port(struct rvt_qp *qp)
{
	return rvtsw_port(ib_to_rvt(qp->ibqp.device), qp->port_num);
}

static inline void rvtsw_count(struct rvtsw_port *port,
			       enum rvtsw_counter counter)
{
	this_cpu_inc(port->stats->count[counter]);
}

static inline void rvtsw_count_n(struct rvtsw_port *port,
				 enum rvtsw_counter counter, u64 n)
{
	this_cpu_add(port->stats->count[counter], n);
}

/**
 * rvtsw_switch_link - the HCA port at the other end of an external port
 * @sw: the switch
 * @port: the switch's port number
 *
 * Context: RCU read side; the port stays valid until it ends.
 * Return: the HCA port, or NULL for port 0, a port the switch does not
 * have, one whose link is not made, or one whose peer is no HCA port.
 */
static inline struct rvtsw_port *rvtsw_switch_link(struct rvtsw_switch *sw,
						   unsigned int port)
	__must_hold(RCU)
{
	struct rvtsw_link_end *end;

	if (!port || port > sw->nports)
		return NULL;
	end = rcu_dereference(sw->peer[port]);
	return end ? end->hca : NULL;
}

/* Is @lid a unicast LID, one an SM may give a port (1 to 0xbfff)? */
static inline bool rvtsw_lid_is_unicast(u16 lid)
{
	return lid && lid < be16_to_cpu(IB_MULTICAST_LID_BASE);
}

/* A QP's send engine locks, in rdmavt's order: r_lock, then s_lock. */
static inline void rvtsw_qp_lock(struct rvt_qp *qp, unsigned long *flags)
	__acquires(&qp->r_lock) __acquires(&qp->s_lock)
{
	spin_lock_irqsave(&qp->r_lock, *flags);
	spin_lock(&qp->s_lock);
}

static inline void rvtsw_qp_unlock(struct rvt_qp *qp, unsigned long flags)
	__releases(&qp->s_lock) __releases(&qp->r_lock)
{
	spin_unlock(&qp->s_lock);
	spin_unlock_irqrestore(&qp->r_lock, flags);
}

/* Do two P_Keys match: the same partition, not both limited members? */
static inline bool rvtsw_pkeys_match(u16 a, u16 b)
{
	u16 partition = a & 0x7fff;

	return partition && partition == (b & 0x7fff) && ((a | b) & 0x8000);
}

/* Is @lid a multicast LID (0xc000 to 0xfffe)? */
static inline bool rvtsw_lid_is_multicast(u16 lid)
{
	return lid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	       lid != be16_to_cpu(IB_LID_PERMISSIVE);
}

/* Can a port carry data (anything but subnet management)? */
static inline bool rvtsw_port_active(const struct rvtsw_port *port)
{
	return READ_ONCE(port->state) == IB_PORT_ACTIVE;
}

/* Subnet management packets cross a link that is up, in any state. */
static inline bool rvtsw_port_link_up(const struct rvtsw_port *port)
{
	return READ_ONCE(port->phys_state) == IB_PORT_PHYS_STATE_LINK_UP;
}

/*
 * Is @lid, without its path bits, @port's LID? A port with no LID yet
 * (0, before an SM assigns one) owns none.
 */
static inline bool rvtsw_port_owns_lid(const struct rvtsw_port *port, u16 lid)
{
	u16 own = READ_ONCE(port->lid);

	return own && (lid & ~((1U << RVTSW_LMC) - 1)) == own;
}

/**
 * rvtsw_mad_make_reply - turn a copy of a request into its response
 * @out: the copy
 * @status: the response's MAD status
 *
 * The method becomes GetResp; a directed-route response carries the
 * direction bit (IBTA 14.2.2.2).
 *
 * Shared by the HCAs' SMA and PMA (mad.c) and the switch's SMA.
 *
 * Context: any.
 */
static inline void rvtsw_mad_make_reply(struct ib_mad *out, __be16 status)
{
	struct ib_mad_hdr *hdr = &out->mad_hdr;

	hdr->method = IB_MGMT_METHOD_GET_RESP;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		status |= IB_SMP_DIRECTION;
	hdr->status = status;
}

/* port.c */
int rvtsw_init_port(struct rvtsw_dev *dev, unsigned int index, u16 pkey2,
		    struct rvtsw_switch *sw);
void rvtsw_free_port(struct rvtsw_port *port);
int rvtsw_query_port_state(struct rvt_dev_info *rdi, u32 port_num,
			   struct ib_port_attr *props);
int rvtsw_get_guid_be(struct rvt_dev_info *rdi, struct rvt_ibport *rvp,
		      int guid_index, __be64 *guid);
int rvtsw_shut_down_port(struct rvt_dev_info *rdi, u32 port_num);
void rvtsw_cap_mask_chg(struct rvt_dev_info *rdi, u32 port_num);
int rvtsw_modify_device(struct ib_device *ibdev, int mask,
			struct ib_device_modify *modify);
int rvtsw_check_ah(struct ib_device *ibdev, struct rdma_ah_attr *ah_attr);
void rvtsw_notify_new_ah(struct ib_device *ibdev,
			 struct rdma_ah_attr *ah_attr, struct rvt_ah *ah);

/* link.c */
void rvtsw_link_attach(struct rvtsw_switch *sw, struct rvtsw_port *port);
void rvtsw_link_detach(struct rvtsw_switch *sw, struct rvtsw_port *port);
bool rvtsw_link_state_valid(u8 from, u8 to);
bool rvtsw_link_phys_valid(u8 phys);
int rvtsw_link_set_hca(struct rvtsw_switch *sw, struct rvtsw_port *port,
		       u8 state, u8 phys);
int rvtsw_link_set_switch(struct rvtsw_switch *sw, unsigned int num,
			  u8 state, u8 phys);
u8 rvtsw_link_switch_phys(struct rvtsw_switch *sw, unsigned int num);
void rvtsw_link_end_train(struct rvtsw_switch *sw, unsigned int num, bool up);
void rvtsw_link_end_attach(struct rvtsw_switch *sw, unsigned int num,
			   struct rvtsw_link_end *end);
void rvtsw_link_end_detach(struct rvtsw_switch *sw, unsigned int num);

/* switch.c */
struct rvtsw_switch *rvtsw_switch_create(unsigned int nports, u64 guid,
					 bool managed);
void rvtsw_switch_destroy(struct rvtsw_switch *sw);
void rvtsw_switch_attach(struct rvtsw_dev *dev);
void rvtsw_switch_detach(struct rvtsw_dev *dev);
u8 rvtsw_switch_lft(struct rvtsw_switch *sw, u16 lid);
u8 rvtsw_switch_port_mtu(struct rvtsw_switch *sw, unsigned int num);
bool rvtsw_switch_mft_has(struct rvtsw_switch *sw, u16 mlid,
			  unsigned int port);
u16 rvtsw_switch_port_mask(const struct rvtsw_switch *sw, unsigned int pos);
bool rvtsw_switch_passes(struct rvtsw_switch *sw, unsigned int in,
			 unsigned int out, bool smp);
bool rvtsw_switch_carries(struct rvtsw_switch *sw, struct rvtsw_port *sport,
			  u8 out, bool smp);
struct rvtsw_port *rvtsw_switch_route(struct rvtsw_switch *sw,
				      struct rvtsw_port *sport, u16 dlid,
				      u8 *out);

/* switch_fwd.c */
void rvtsw_switch_release_held(struct rvtsw_switch *sw);
void rvtsw_switch_receive(struct rvtsw_switch *sw, unsigned int in,
			  struct sk_buff *skb);
void rvtsw_switch_send_smp(struct rvtsw_switch *sw, const struct ib_smp *smp,
			   u16 dlid);

/* switch_fault.c */
void rvtsw_fault_init(struct rvtsw_fault *fault);
void rvtsw_fault_exit(struct rvtsw_fault *fault);
enum rvtsw_fault_action rvtsw_fault_apply(struct rvtsw_switch *sw,
					  unsigned int in, struct sk_buff *skb);
void rvtsw_fault_take_held(struct rvtsw_fault *fault,
			   struct sk_buff_head *list);
const char *rvtsw_fault_action_name(enum rvtsw_fault_action action);
int rvtsw_fault_set_action(struct rvtsw_fault *fault, const char *name);

/* switch_sma.c */

/* What the switch's SMA made of a LID-routed SMP to its LID. */
enum rvtsw_switch_verdict {
	RVTSW_SWITCH_DROP,	/* not for the SMA: counted as a drop */
	RVTSW_SWITCH_ANSWER,	/* the response is in the SMP */
	RVTSW_SWITCH_CONSUMED,	/* taken, nothing to send back */
};

u8 rvtsw_switch_dr_smp(struct rvtsw_switch *sw, struct ib_smp *smp, u8 in);
enum rvtsw_switch_verdict rvtsw_switch_lr_smp(struct rvtsw_switch *sw,
					      struct ib_smp *smp, u8 in);

/* ud.c */
enum ib_wc_status rvtsw_ud_send(struct rvt_qp *sqp, struct rvt_swqe *wqe);

/* stats.c */
struct rdma_hw_stats *rvtsw_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int rvtsw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);
u64 rvtsw_percpu_sum(u64 __percpu *count);
u64 rvtsw_read_counter(struct rvtsw_port *port, enum rvtsw_counter counter);
const char *rvtsw_counter_name(enum rvtsw_counter counter);

/* mad.c */
int rvtsw_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);

/* sma.c */
__be16 rvtsw_sma_get(struct rvtsw_dev *dev, u32 port_num, struct ib_smp *smp);
struct rvtsw_port *rvtsw_sma_port(struct rvtsw_dev *dev, u32 arrival,
				  u32 mod);
__be16 rvtsw_sma_get_port_info(struct rvtsw_dev *dev, u32 arrival,
			       struct ib_smp *smp);
__be16 rvtsw_sma_get_pkey_table(struct rvtsw_dev *dev, u32 arrival,
				struct ib_smp *smp);
void rvtsw_sma_fill_link(struct ib_smp *smp, u8 state, u8 phys);

/* sma_set.c */
__be16 rvtsw_sma_set(struct rvtsw_dev *dev, u32 port_num, struct ib_smp *smp);
__be16 rvtsw_sma_check_link_set(const struct ib_port_info *pi, u8 *state,
				u8 *phys);
__be16 rvtsw_sma_get_vl_arb(struct ib_smp *smp);
__be16 rvtsw_sma_bad_field(void);

/* mkey.c */
enum rvtsw_mkey {
	RVTSW_MKEY_OK,		/* answer the SMP */
	RVTSW_MKEY_HIDE,	/* answer it, PortInfo's M_Key read as 0 */
	RVTSW_MKEY_REFUSED,	/* drop it: a violation */
};

enum rvtsw_mkey rvtsw_mkey_check(struct rvtsw_port *port,
				 const struct ib_smp *smp, int mad_flags,
				 u16 slid);

/* trap.c */
void rvtsw_trap_cap_mask(struct rvtsw_port *port);
void rvtsw_trap_node_desc(struct rvtsw_dev *dev);
void rvtsw_trap_bad_mkey(struct rvtsw_port *port, const struct ib_smp *smp,
			 u16 slid);
void rvtsw_trap_stop(struct rvtsw_dev *dev);
void rvtsw_trap_switch_init(struct rvtsw_switch *sw);
void rvtsw_trap_switch_stop(struct rvtsw_switch *sw);

/* pma.c */
bool rvtsw_pma_get(struct rvtsw_dev *dev, struct ib_pma_mad *pmp,
		   __be16 *status);
bool rvtsw_pma_set(struct rvtsw_dev *dev, struct ib_pma_mad *pmp,
		   __be16 *status);

/* qp.c */
int rvtsw_qp_init(void);
void rvtsw_qp_exit(void);
void rvtsw_set_qp_callbacks(struct rvt_driver_provided *f);

/* debugfs.c */
void rvtsw_debugfs_init(void);
void rvtsw_debugfs_exit(void);
void rvtsw_debugfs_add(struct rvtsw_dev *dev);
void rvtsw_debugfs_remove(struct rvtsw_dev *dev);
void rvtsw_debugfs_add_switch(struct rvtsw_switch *sw, const char *name);
void rvtsw_debugfs_remove_switch(struct rvtsw_switch *sw);

/* ops.c */
extern const struct rvt_operation_params rvtsw_post_parms[RVT_OPERATION_MAX];
extern const enum ib_wc_opcode rvtsw_wc_opcode[];

#endif /* RVTSW_H */
