/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rvtsw's uplinks: a switch port whose link is an Ethernet interface, to
 * another host's switch. Documentation/wire.rst, "Uplinks", describes the
 * frames and the heartbeat.
 */
#ifndef RVTSW_UPLINK_H
#define RVTSW_UPLINK_H

#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include "rvtsw.h"

/* IEEE 802's Local Experimental Ethertype 1 carries every uplink frame. */
#define RVTSW_UPLINK_ETHERTYPE ETH_P_802_EX1

/* What follows the uplink header (struct rvtsw_uplink_hdr.kind). */
#define RVTSW_UPLINK_DATA 0x01	/* an IB packet, LRH to VCRC */
#define RVTSW_UPLINK_HELLO 0x02	/* a heartbeat (struct rvtsw_uplink_hello) */
#define RVTSW_UPLINK_VERSION 0

/**
 * struct rvtsw_uplink_hdr - what every uplink frame starts with
 * @kind: RVTSW_UPLINK_DATA or RVTSW_UPLINK_HELLO
 * @version: RVTSW_UPLINK_VERSION
 * @len: the bytes that follow this header; Ethernet may pad the frame
 *	 past them
 */
struct rvtsw_uplink_hdr {
	u8 kind;
	u8 version;
	__be16 len;
} __packed;

/**
 * struct rvtsw_uplink_hello - a heartbeat
 * @guid: the sender's switch's node GUID
 * @seq: this heartbeat's number, from 1, 0 never
 * @echo: the @seq of the last heartbeat the sender heard from the other
 *	  end, 0 if none
 */
struct rvtsw_uplink_hello {
	__be64 guid;
	__be32 seq;
	__be32 echo;
} __packed;

/* Heartbeats go every RVTSW_UPLINK_HELLO_MS; the link dies without an
 * answer for RVTSW_UPLINK_DEAD_MS, or to a heartbeat more than
 * RVTSW_UPLINK_ECHO_WINDOW old.
 */
#define RVTSW_UPLINK_HELLO_MS 100
#define RVTSW_UPLINK_DEAD_MS 1000
#define RVTSW_UPLINK_ECHO_WINDOW (RVTSW_UPLINK_DEAD_MS / RVTSW_UPLINK_HELLO_MS)

/* Frames waiting for the transmit worker, at most. */
#define RVTSW_UPLINK_TXQ_MAX 1024

/*
 * The uplink's own counters, after the engine's (enum rvtsw_counter),
 * which count the packets the switch lost that came by the uplink and
 * the frames the uplink found bad: drop_short (shorter than the uplink
 * header), drop_bad_length (its length more than the frame holds, or a
 * heartbeat of the wrong length) and drop_malformed (an unknown kind or
 * version).
 */
enum rvtsw_uplink_counter {
	RVTSW_UP_TX_FRAMES = RVTSW_NUM_COUNTERS, /* IB packets sent */
	RVTSW_UP_RX_FRAMES,		/* IB packets that arrived */
	RVTSW_UP_TX_HELLOS,
	RVTSW_UP_RX_HELLOS,
	RVTSW_UP_DROP_HELLO,		/* our own heartbeat came back */
	RVTSW_UP_DROP_TX_OVERSIZE,	/* an IB packet too big for the MTU */
	RVTSW_UP_DROP_TX_QUEUE_FULL,
	RVTSW_UP_DROP_TX_ERROR,		/* the interface refused it */
	RVTSW_UP_NUM_COUNTERS
};

/**
 * struct rvtsw_uplink_stats - one CPU's share of an uplink's counters
 * @count: indexed by enum rvtsw_counter, then enum rvtsw_uplink_counter
 */
struct rvtsw_uplink_stats {
	u64 count[RVTSW_UP_NUM_COUNTERS];
};

/**
 * struct rvtsw_uplink - an uplink, and the ib_device users know it by
 * @ibdev: its ib_device (`rdma link`), whose port 1 reports the link; must
 *	   stay first
 * @sw: the switch; fixed
 * @num: the switch port the uplink is linked to; fixed
 * @index: which of the switch's uplink ports (0 for the first); fixed
 * @end: the uplink as the end of the switch port's link
 * @ndev: the interface, held from rvtsw_uplink_init() to
 *	  rvtsw_uplink_put_netdev(), NULL after; read by the packet path
 *	  and the timer only while started; written under the module's
 *	  uplink mutex once the uplink is in its table
 * @tracker: the reference on @ndev
 * @ptype: receives the uplink's frames from @ndev
 * @timer: sends the heartbeats and sees whether they are answered
 * @txq: frames for @ndev, oldest first; its own lock
 * @tx_work: sends @txq's frames (rvt_bh_wq)
 * @stats: per-CPU counters
 * @started: the frames flow and the timer runs; guarded by the module's
 *	     uplink mutex (uplink_dev.c)
 * @dead: dealloc_driver ran: everything of the uplink's is freed but its
 *	  ib_device, which its port of the table keeps until that port is
 *	  reclaimed; guarded by that mutex
 * @stopping: rvtsw_uplink_stop() began: the link trains down from now on,
 *	      and the timer arms itself no more
 * @state_lock: makes the link's training one step at a time
 * @up: whether the switch port's link was last trained up; guarded by
 *	@state_lock
 * @alive_until: the link is alive until then (jiffies): an answered
 *		 heartbeat moves it on; written by the receiver, read anywhere
 * @seq: the last heartbeat's number; the timer's alone
 * @echo: the last number heard from the peer; written by the receiver
 * @peer_guid: the peer switch's GUID; written by the receiver
 * @peer_mac: the peer's MAC address (ether_addr_to_u64()), where data
 *	      goes; written by the receiver
 */
struct rvtsw_uplink {
	struct ib_device ibdev;
	struct rvtsw_switch *sw;
	unsigned int num;
	unsigned int index;
	struct rvtsw_link_end end;
	struct net_device *ndev;
	netdevice_tracker tracker;
	struct packet_type ptype;
	struct timer_list timer;
	struct sk_buff_head txq;
	struct work_struct tx_work;
	struct rvtsw_uplink_stats __percpu *stats;
	bool started;
	bool dead;
	bool stopping;
	spinlock_t state_lock; /* the link's training */
	bool up;
	unsigned long alive_until;
	u32 seq;
	u32 echo;
	u64 peer_guid;
	u64 peer_mac;
};

static inline void rvtsw_uplink_count(struct rvtsw_uplink *up,
				      unsigned int counter)
{
	this_cpu_inc(up->stats->count[counter]);
}

/* uplink.c */
int rvtsw_uplink_init(struct rvtsw_uplink *up, struct net_device *ndev);
void rvtsw_uplink_start(struct rvtsw_uplink *up);
void rvtsw_uplink_stop(struct rvtsw_uplink *up);
void rvtsw_uplink_put_netdev(struct rvtsw_uplink *up);
void rvtsw_uplink_free(struct rvtsw_uplink *up);
void rvtsw_uplink_check(struct rvtsw_uplink *up);
void rvtsw_uplink_set_mtu(struct rvtsw_uplink *up);
u8 rvtsw_uplink_ib_mtu(unsigned int eth_mtu);
u64 rvtsw_uplink_read(struct rvtsw_uplink *up, unsigned int counter);

/* uplink_dev.c */
int rvtsw_uplinks_init(struct rvtsw_switch *sw, unsigned int first,
		       unsigned int count, u64 guid_base);
int rvtsw_uplink_add(const char *name, struct net_device *ndev);
void rvtsw_uplinks_exit(void);

#endif /* RVTSW_UPLINK_H */
