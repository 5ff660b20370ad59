// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An uplink: a switch port whose link is an Ethernet interface, to the
 * uplink of another host's switch. IB packets cross it in Ethernet
 * frames of ethertype 0x88B5 (IEEE 802's Local Experimental Ethertype 1),
 * after a four-byte header (struct rvtsw_uplink_hdr) that says what
 * follows (an IB packet, LRH to VCRC, or a heartbeat) and how long it is,
 * since Ethernet pads short frames. Documentation/wire.rst, "Uplinks".
 *
 * Receiving: the packet_type handler runs in the interface's receive
 * softirq. A frame too short for the header, of an unknown kind or
 * version, or shorter than its header says is dropped and counted on the
 * uplink (drop_short, drop_malformed, drop_bad_length). An IB packet goes
 * into the switch as one from any link (rvtsw_switch_receive()), which
 * checks what a link checks; what it drops it counts on the uplink
 * (the link end's lost()). Its receiver checks the rest (the ICRC).
 *
 * Sending: the switch hands the uplink a packet in its sender's context,
 * which may hold a QP's locks with interrupts off (an ACK flush), where
 * dev_queue_xmit() must not run. So the packet is queued (at most
 * RVTSW_UPLINK_TXQ_MAX) and a worker of the BH workqueue hands the queue
 * to the interface. A packet leaves the QP that sent it once the uplink
 * takes it (skb_orphan(): the interface's stack owns skb->cb), as a
 * NIC's DMA would free its sender's buffer.
 *
 * Heartbeat: every RVTSW_UPLINK_HELLO_MS the timer broadcasts a hello
 * that carries the switch's GUID, a number and the last number heard
 * from the peer. A hello that echoes one of the last
 * RVTSW_UPLINK_ECHO_WINDOW numbers sent is an answer: the peer hears us
 * and we hear it. The link is alive for RVTSW_UPLINK_DEAD_MS after an
 * answer, while the interface is up with its carrier and its MTU carries
 * IB packets of 256 bytes; the switch port trains up (INIT, or ACTIVE
 * unmanaged) when it becomes alive and goes DOWN when it stops being so.
 * Its IB MTU is the largest whose packets, with every header, fit the
 * interface's MTU. A hello from a new peer GUID ends the old peer's link.
 *
 * Locking: the receiver writes the heartbeat's state (@alive_until,
 * @echo, @peer_guid, @peer_mac) with WRITE_ONCE; the timer and the
 * transmit worker read it with READ_ONCE: a heartbeat tolerates a stale
 * read. @state_lock makes each training step (reading whether the link
 * is alive, writing the port's state under the switch's lock) whole, so
 * the receiver, the timer, the netdev notifier and the SM's retrain never
 * leave the port in a state another's step undid. The packet path takes
 * only the transmit queue's lock; no global lock.
 *
 * Teardown (rvtsw_uplink_stop()), in this order: @stopping set (no
 * training step finds the link alive, the timer re-arms no more), the
 * handler removed (synchronize_net(): no receiver runs after, nor a
 * retrain by the SM, which runs under RCU), the timer stopped
 * (del_timer_sync()), the switch port unlinked and DOWN (synchronize_rcu():
 * no sender hands a packet after, so nothing queues the worker), the
 * worker cancelled (it may have re-queued itself) and its queue purged.
 * Only then does the uplink let go of its interface
 * (rvtsw_uplink_put_netdev()): nothing that runs reads @ndev after.
 *
 * References on the interface: two, the uplink's own (@tracker, from
 * rvtsw_uplink_init()) and the IB core's (the ib_device's netdev, from
 * ib_device_set_netdev()). Each path out lets go of both: a making that
 * fails, through dealloc_driver (rvtsw_uplink_free()) and the IB core's
 * free_netdevs(); `rdma link delete` and the module's unload, through the
 * device's unregistration, the same two; NETDEV_UNREGISTER, in the
 * notifier itself, under RTNL, once the uplink is stopped, so that the
 * interface's unregistration never waits for the device's, which is
 * queued (uplink_dev.c).
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include "../compat.h"
#include "uplink.h"
#include "wire.h"

/* Frames the transmit worker sends a run. */
#define RVTSW_UPLINK_TX_BUDGET 64

/* What an IB packet adds to its payload at most, on the uplink. */
#define RVTSW_UPLINK_OVERHEAD (sizeof(struct rvtsw_uplink_hdr) + \
			       RVTSW_MAX_HDR_BYTES + RVTSW_TRAILER_BYTES)

static struct rvtsw_uplink *rvtsw_end_uplink(struct rvtsw_link_end *end)
{
	return container_of(end, struct rvtsw_uplink, end);
}

/**
 * rvtsw_uplink_ib_mtu - the IB MTU an Ethernet MTU carries
 * @eth_mtu: the interface's MTU
 *
 * Context: any.
 * Return: the largest enum ib_mtu whose packets, with the uplink header
 * and every IB header, fit in @eth_mtu; 0 if not even IB_MTU_256 does.
 */
u8 rvtsw_uplink_ib_mtu(unsigned int eth_mtu)
{
	u8 mtu;

	for (mtu = IB_MTU_4096; mtu >= IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) + RVTSW_UPLINK_OVERHEAD <= eth_mtu)
			return mtu;
	return 0;
}

/**
 * rvtsw_uplink_read - the current value of one of an uplink's counters
 * @up: the uplink
 * @counter: an enum rvtsw_counter or enum rvtsw_uplink_counter
 *
 * Context: any; a sum of per-CPU parts, each read without a lock.
 * Return: the sum over every CPU.
 */
u64 rvtsw_uplink_read(struct rvtsw_uplink *up, unsigned int counter)
{
	return rvtsw_percpu_sum(&up->stats->count[counter]);
}

/* Is the link alive: answered lately, over an interface that carries it? */
static bool rvtsw_uplink_alive(struct rvtsw_uplink *up)
{
	struct net_device *ndev = up->ndev;

	return !READ_ONCE(up->stopping) && READ_ONCE(up->end.mtu) &&
	       netif_running(ndev) && netif_carrier_ok(ndev) &&
	       time_before(jiffies, READ_ONCE(up->alive_until));
}

/*
 * Train the switch port's link if whether it is alive changed since the
 * last step, or always if @force (the SM asked for it).
 */
static void rvtsw_uplink_train(struct rvtsw_uplink *up, bool force)
{
	unsigned long flags;
	bool alive;

	spin_lock_irqsave(&up->state_lock, flags);
	alive = rvtsw_uplink_alive(up);
	if (force || alive != up->up) {
		up->up = alive;
		rvtsw_link_end_train(up->sw, up->num, alive);
	}
	spin_unlock_irqrestore(&up->state_lock, flags);
}

/**
 * rvtsw_uplink_check - see whether an uplink's link is still alive
 * @up: the uplink
 *
 * Its interface went up or down, or lost or found its carrier.
 *
 * Context: any but hard interrupt.
 */
void rvtsw_uplink_check(struct rvtsw_uplink *up)
{
	rvtsw_uplink_train(up, false);
}

/**
 * rvtsw_uplink_set_mtu - follow the interface's MTU
 * @up: the uplink
 *
 * A new IB MTU retrains the link: it goes DOWN, and comes up at the next
 * answered heartbeat, which the SM hears of and reads the new MTU.
 *
 * Context: process context, RTNL held (the netdev notifier).
 */
void rvtsw_uplink_set_mtu(struct rvtsw_uplink *up)
{
	u8 mtu = rvtsw_uplink_ib_mtu(READ_ONCE(up->ndev->mtu));

	if (mtu == READ_ONCE(up->end.mtu))
		return;
	WRITE_ONCE(up->end.mtu, mtu);
	WRITE_ONCE(up->alive_until, jiffies);
	rvtsw_uplink_train(up, false);
}

/*
 * Put the uplink header and the Ethernet header on @skb, @kind of it,
 * for @dest, and send it. Return: true if the interface took it.
 */
static bool rvtsw_uplink_xmit(struct rvtsw_uplink *up, struct sk_buff *skb,
			      u8 kind, const u8 *dest)
{
	struct net_device *ndev = up->ndev;
	struct rvtsw_uplink_hdr *hdr;
	unsigned int len = skb->len;
	int ret;

	if (skb_cow_head(skb, LL_RESERVED_SPACE(ndev) + sizeof(*hdr))) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_NOMEM);
		kfree_skb(skb);
		return false;
	}
	hdr = skb_push(skb, sizeof(*hdr));
	hdr->kind = kind;
	hdr->version = RVTSW_UPLINK_VERSION;
	hdr->len = cpu_to_be16(len);
	skb_reset_network_header(skb);
	skb->dev = ndev;
	skb->protocol = htons(RVTSW_UPLINK_ETHERTYPE);
	if (dev_hard_header(skb, ndev, RVTSW_UPLINK_ETHERTYPE, dest, NULL,
			    skb->len) < 0) {
		rvtsw_uplink_count(up, RVTSW_UP_DROP_TX_ERROR);
		kfree_skb(skb);
		return false;
	}
	/* net_xmit_eval() reads its argument twice. */
	ret = dev_queue_xmit(skb);
	if (net_xmit_eval(ret)) {
		rvtsw_uplink_count(up, RVTSW_UP_DROP_TX_ERROR);
		return false;
	}
	return true;
}

/* Can the interface send now? */
static bool rvtsw_uplink_carrier(struct rvtsw_uplink *up)
{
	return netif_running(up->ndev) && netif_carrier_ok(up->ndev);
}

/* Broadcast a heartbeat. */
static void rvtsw_uplink_send_hello(struct rvtsw_uplink *up)
{
	struct net_device *ndev = up->ndev;
	struct rvtsw_uplink_hello *hello;
	struct sk_buff *skb;
	u32 seq;

	if (!rvtsw_uplink_carrier(up))
		return;
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + sizeof(struct rvtsw_uplink_hdr) +
			sizeof(*hello) + ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_NOMEM);
		return;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(ndev) +
		    sizeof(struct rvtsw_uplink_hdr));
	seq = up->seq + 1 ?: 1;
	WRITE_ONCE(up->seq, seq);
	hello = skb_put(skb, sizeof(*hello));
	hello->guid = up->sw->guid;
	hello->seq = cpu_to_be32(seq);
	hello->echo = cpu_to_be32(READ_ONCE(up->echo));
	if (rvtsw_uplink_xmit(up, skb, RVTSW_UPLINK_HELLO, ndev->broadcast))
		rvtsw_uplink_count(up, RVTSW_UP_TX_HELLOS);
}

/* The timer: a heartbeat, unless the SM disabled the port; then training. */
static void rvtsw_uplink_tick(struct timer_list *t)
{
	struct rvtsw_uplink *up = from_timer(up, t, timer);

	if (!READ_ONCE(up->sw->port_disabled[up->num]))
		rvtsw_uplink_send_hello(up);
	rvtsw_uplink_train(up, false);
	if (!READ_ONCE(up->stopping))
		mod_timer(&up->timer,
			  jiffies + msecs_to_jiffies(RVTSW_UPLINK_HELLO_MS));
}

/* A heartbeat arrived, from @mac. */
static void rvtsw_uplink_rx_hello(struct rvtsw_uplink *up,
				  struct sk_buff *skb, u64 mac)
{
	struct rvtsw_uplink_hello buf;
	const struct rvtsw_uplink_hello *hello;
	u32 seq, echo;
	u64 guid;

	hello = skb_header_pointer(skb, 0, sizeof(buf), &buf);
	if (!hello || skb->len != sizeof(buf)) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_LENGTH);
		return;
	}
	guid = be64_to_cpu(hello->guid);
	seq = be32_to_cpu(hello->seq);
	echo = be32_to_cpu(hello->echo);
	/* Our own, come back (a loop), or not a heartbeat at all. */
	if (hello->guid == up->sw->guid || !seq) {
		rvtsw_uplink_count(up, RVTSW_UP_DROP_HELLO);
		return;
	}
	rvtsw_uplink_count(up, RVTSW_UP_RX_HELLOS);
	if (guid != READ_ONCE(up->peer_guid)) {
		/* Another peer: the old one's link ends. */
		WRITE_ONCE(up->peer_guid, guid);
		WRITE_ONCE(up->alive_until, jiffies);
		rvtsw_uplink_train(up, false);
	}
	WRITE_ONCE(up->peer_mac, mac);
	WRITE_ONCE(up->echo, seq);
	/* An answer echoes one of our last few (unsigned: none ahead). */
	if (!echo || READ_ONCE(up->seq) - echo >= RVTSW_UPLINK_ECHO_WINDOW)
		return;
	WRITE_ONCE(up->alive_until,
		   jiffies + msecs_to_jiffies(RVTSW_UPLINK_DEAD_MS));
	if (!READ_ONCE(up->up))
		rvtsw_uplink_train(up, false);
}

/* An IB packet arrived: into the switch, as from any link. */
static void rvtsw_uplink_rx_data(struct rvtsw_uplink *up, struct sk_buff *skb)
{
	/* The engine reads packets whole and may change them (its fault knob). */
	if (skb_linearize(skb) || skb_unclone(skb, GFP_ATOMIC)) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_NOMEM);
		kfree_skb(skb);
		return;
	}
	memset(skb->cb, 0, sizeof(skb->cb));
	skb->dev = NULL;
	rvtsw_uplink_count(up, RVTSW_UP_RX_FRAMES);
	rvtsw_switch_receive(up->sw, up->num, skb);
}

/* The packet_type handler: a frame of the uplink's ethertype arrived. */
static int rvtsw_uplink_rcv(struct sk_buff *skb, struct net_device *ndev,
			    struct packet_type *pt, struct net_device *orig)
{
	struct rvtsw_uplink *up = container_of(pt, struct rvtsw_uplink, ptype);
	const struct rvtsw_uplink_hdr *hdr;
	unsigned int len, why;
	u64 mac;
	u8 kind;

	/* Another host's (a promiscuous interface), or our own. */
	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_LOOPBACK) {
		consume_skb(skb);
		return NET_RX_SUCCESS;
	}
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_NOMEM);
		return NET_RX_DROP;
	}
	why = RVTSW_CNT_DROP_SHORT;
	if (!pskb_may_pull(skb, sizeof(*hdr)))
		goto drop;
	hdr = (const struct rvtsw_uplink_hdr *)skb->data;
	len = be16_to_cpu(hdr->len);
	why = RVTSW_CNT_DROP_MALFORMED;
	if (hdr->version != RVTSW_UPLINK_VERSION ||
	    (hdr->kind != RVTSW_UPLINK_DATA && hdr->kind != RVTSW_UPLINK_HELLO))
		goto drop;
	why = RVTSW_CNT_DROP_LENGTH;
	if (len > skb->len - sizeof(*hdr))
		goto drop;
	mac = ether_addr_to_u64(eth_hdr(skb)->h_source);
	kind = hdr->kind;
	skb_pull(skb, sizeof(*hdr));
	/* Ethernet's padding is not the uplink's. */
	why = RVTSW_CNT_DROP_NOMEM;
	if (pskb_trim(skb, len))
		goto drop;
	if (kind == RVTSW_UPLINK_DATA) {
		rvtsw_uplink_rx_data(up, skb);
		return NET_RX_SUCCESS;
	}
	rvtsw_uplink_rx_hello(up, skb, mac);
	consume_skb(skb);
	return NET_RX_SUCCESS;
drop:
	rvtsw_uplink_count(up, why);
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* Send one IB packet to the peer. */
static void rvtsw_uplink_send_data(struct rvtsw_uplink *up,
				   struct sk_buff *skb)
{
	u8 dest[ETH_ALEN];

	if (skb->len + sizeof(struct rvtsw_uplink_hdr) >
	    READ_ONCE(up->ndev->mtu)) {
		rvtsw_uplink_count(up, RVTSW_UP_DROP_TX_OVERSIZE);
		kfree_skb(skb);
		return;
	}
	if (!rvtsw_uplink_carrier(up)) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_LINK);
		kfree_skb(skb);
		return;
	}
	u64_to_ether_addr(READ_ONCE(up->peer_mac), dest);
	if (rvtsw_uplink_xmit(up, skb, RVTSW_UPLINK_DATA, dest))
		rvtsw_uplink_count(up, RVTSW_UP_TX_FRAMES);
}

/* The transmit worker: the queue to the interface, a budget a run. */
static void rvtsw_uplink_tx_work(struct work_struct *work)
{
	struct rvtsw_uplink *up = container_of(work, struct rvtsw_uplink,
					       tx_work);
	unsigned int budget = RVTSW_UPLINK_TX_BUDGET;
	struct sk_buff *skb;

	local_bh_disable();
	while (budget-- && (skb = skb_dequeue(&up->txq)))
		rvtsw_uplink_send_data(up, skb);
	local_bh_enable();
	if (!skb_queue_empty_lockless(&up->txq))
		queue_work(rvt_bh_wq, work);
}

/*
 * A packet built in this host leaves its CRCs out (rvtsw_pkt_finish():
 * trusted); one that leaves the host gets them, on bytes of its own if a
 * multicast clone shares them. Return: false if there was no memory.
 */
static bool rvtsw_uplink_seal(struct sk_buff *skb)
{
	if (!rvtsw_skb_cb(skb)->trusted)
		return true;
	if (skb_unclone(skb, GFP_ATOMIC))
		return false;
	rvtsw_pkt_seal(skb);
	return true;
}

/* The switch sends a packet out of the uplink's port. */
static void rvtsw_uplink_end_receive(struct rvtsw_link_end *end,
				     struct sk_buff *skb)
{
	struct rvtsw_uplink *up = rvtsw_end_uplink(end);
	struct sk_buff_head *q = &up->txq;
	unsigned long flags;
	bool full;

	if (!rvtsw_uplink_seal(skb)) {
		rvtsw_uplink_count(up, RVTSW_CNT_DROP_NOMEM);
		kfree_skb(skb);
		return;
	}
	skb_orphan(skb);
	spin_lock_irqsave(&q->lock, flags);
	full = skb_queue_len(q) >= RVTSW_UPLINK_TXQ_MAX;
	if (!full)
		__skb_queue_tail(q, skb);
	spin_unlock_irqrestore(&q->lock, flags);
	if (full) {
		rvtsw_uplink_count(up, RVTSW_UP_DROP_TX_QUEUE_FULL);
		kfree_skb(skb);
		return;
	}
	queue_work(rvt_bh_wq, &up->tx_work);
}

/* The switch dropped a packet that came by the uplink. */
static void rvtsw_uplink_end_lost(struct rvtsw_link_end *end,
				  enum rvtsw_counter why)
{
	rvtsw_uplink_count(rvtsw_end_uplink(end), why);
}

/* The SM asked the port to retrain (a Set of DOWN, disabled, enabled). */
static void rvtsw_uplink_end_retrain(struct rvtsw_link_end *end)
{
	rvtsw_uplink_train(rvtsw_end_uplink(end), true);
}

static const struct rvtsw_link_ops rvtsw_uplink_link_ops = {
	.receive = rvtsw_uplink_end_receive,
	.lost = rvtsw_uplink_end_lost,
	.retrain = rvtsw_uplink_end_retrain,
};

/**
 * rvtsw_uplink_init - set an uplink up on an interface
 * @up: the uplink, zeroed but for its ib_device; its switch and port set
 * @ndev: the interface
 *
 * Nothing flows until rvtsw_uplink_start(). Whatever happens,
 * rvtsw_uplink_free() frees what this took.
 *
 * Context: process context.
 * Return: 0, or -ENOMEM.
 */
int rvtsw_uplink_init(struct rvtsw_uplink *up, struct net_device *ndev)
{
	up->stats = alloc_percpu(struct rvtsw_uplink_stats);
	if (!up->stats)
		return -ENOMEM;
	netdev_hold(ndev, &up->tracker, GFP_KERNEL);
	up->ndev = ndev;
	spin_lock_init(&up->state_lock);
	skb_queue_head_init(&up->txq);
	INIT_WORK(&up->tx_work, rvtsw_uplink_tx_work);
	timer_setup(&up->timer, rvtsw_uplink_tick, 0);
	up->ptype.type = htons(RVTSW_UPLINK_ETHERTYPE);
	up->ptype.dev = ndev;
	up->ptype.func = rvtsw_uplink_rcv;
	up->end.ops = &rvtsw_uplink_link_ops;
	up->end.mtu = rvtsw_uplink_ib_mtu(ndev->mtu);
	up->alive_until = jiffies;
	return 0;
}

/**
 * rvtsw_uplink_start - link an uplink to its switch port and start it
 * @up: the uplink, from rvtsw_uplink_init()
 *
 * The port is DOWN until the peer answers a heartbeat.
 *
 * Context: process context.
 */
void rvtsw_uplink_start(struct rvtsw_uplink *up)
{
	rvtsw_link_end_attach(up->sw, up->num, &up->end);
	dev_add_pack(&up->ptype);
	up->started = true;
	mod_timer(&up->timer, jiffies);
}

/**
 * rvtsw_uplink_stop - stop an uplink for good
 * @up: the uplink; started or not
 *
 * Returns with nothing of the uplink running: no frame received, no
 * packet sent, no heartbeat; the switch port DOWN, with nothing linked.
 *
 * Context: process context; sleeps.
 */
void rvtsw_uplink_stop(struct rvtsw_uplink *up)
{
	if (!up->started)
		return;
	up->started = false;
	WRITE_ONCE(up->stopping, true);
	dev_remove_pack(&up->ptype);
	del_timer_sync(&up->timer);
	rvtsw_link_end_detach(up->sw, up->num);
	cancel_work_sync(&up->tx_work);
	skb_queue_purge(&up->txq);
}

/**
 * rvtsw_uplink_put_netdev - let go of the uplink's reference on its interface
 * @up: the uplink, stopped or never started
 *
 * Nothing of the uplink reads @up->ndev after this. Does nothing the
 * second time.
 *
 * Context: process context.
 */
void rvtsw_uplink_put_netdev(struct rvtsw_uplink *up)
{
	netdev_put(up->ndev, &up->tracker);
	up->ndev = NULL;
}

/**
 * rvtsw_uplink_free - free what rvtsw_uplink_init() took
 * @up: the uplink, stopped; rvtsw_uplink_init() may have failed or not
 *	run; its ib_device is the IB core's to free
 *
 * Context: process context.
 */
void rvtsw_uplink_free(struct rvtsw_uplink *up)
{
	free_percpu(up->stats);
	up->stats = NULL;
	rvtsw_uplink_put_netdev(up);
}
