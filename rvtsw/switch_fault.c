// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The switch's fault knob, for tests (debugfs, /sys/kernel/debug/rvtsw/
 * switch/): what a wire and its far end may do to a packet, done on
 * purpose to chosen ones. Packets of one BTH opcode (fault_opcode, -1:
 * none) pass fault_skip at a time; the next fault_count of them then
 * meet fault_action:
 *
 * - drop: lost, as on a wire (counted drop_fault_injected on the port
 *   that sent it);
 * - hold: kept by the switch until fault_release is written, then sent
 *   on in the order they came, after whatever passed meanwhile (late,
 *   reordered packets); the knob holds at most RVTSW_FAULT_HOLD_MAX and
 *   drops (uncounted) what comes beyond;
 * - short, length, vcrc, icrc, qpn, pkey, qkey, psn, oversize, opcode:
 *   changed as a broken sender or a bad link would change them, with the
 *   CRCs made right again where the fault is not in them, and sent on:
 *   the receiver must drop the packet and count the reason (opcode: one
 *   out of sequence, rvtsw_fault_bad_opcode()).
 *
 * Context and locking: the knob's settings are atomics the forwarding
 * path reads without a lock; the held packets are in a queue with its
 * own lock. A held packet is no QP's any more (skb_orphan()): a QP can
 * be destroyed while a packet it sent is held, as while one is on a wire.
 */
#include "wire.h"

#define RVTSW_FAULT_HOLD_MAX 256
/* An unknown QPN (not multicast's), and a P_Key in no port's table. */
#define RVTSW_BAD_QPN 0xfffffe
#define RVTSW_BAD_PKEY 0x7ffe
/* How far ahead a bad PSN is: half the PSN space, outside any window. */
#define RVTSW_BAD_PSN_AHEAD 0x400000
/* How many bytes an oversize packet gains. */
#define RVTSW_OVERSIZE_BYTES 256

static const char *const rvtsw_fault_names[RVTSW_FAULT_NUM] = {
	[RVTSW_FAULT_DROP] = "drop",
	[RVTSW_FAULT_HOLD] = "hold",
	[RVTSW_FAULT_SHORT] = "short",
	[RVTSW_FAULT_LENGTH] = "length",
	[RVTSW_FAULT_VCRC] = "vcrc",
	[RVTSW_FAULT_ICRC] = "icrc",
	[RVTSW_FAULT_QPN] = "qpn",
	[RVTSW_FAULT_PKEY] = "pkey",
	[RVTSW_FAULT_QKEY] = "qkey",
	[RVTSW_FAULT_PSN] = "psn",
	[RVTSW_FAULT_OVERSIZE] = "oversize",
	[RVTSW_FAULT_OPCODE] = "opcode",
};

/**
 * rvtsw_fault_init - a switch's fault knob, set to nothing
 * @fault: the knob
 *
 * Context: any.
 */
void rvtsw_fault_init(struct rvtsw_fault *fault)
{
	atomic_set(&fault->opcode, -1);
	atomic_set(&fault->skip, 0);
	atomic_set(&fault->count, 0);
	atomic_set(&fault->action, RVTSW_FAULT_DROP);
	skb_queue_head_init(&fault->held);
}

/**
 * rvtsw_fault_exit - free what a switch's fault knob holds
 * @fault: the knob, of a switch no packet reaches any more
 *
 * Context: any.
 */
void rvtsw_fault_exit(struct rvtsw_fault *fault)
{
	skb_queue_purge(&fault->held);
}

/* The offset of @skb's BTH, which the switch's link check let through. */
static unsigned int rvtsw_fault_bth(const struct sk_buff *skb)
{
	if ((skb->data[1] & IB_LNH_MASK) == RVTSW_LNH_IBA_GLOBAL)
		return RVTSW_LRH_BYTES + RVTSW_GRH_BYTES;
	return RVTSW_LRH_BYTES;
}

/* The VCRC made right again after a change before it. */
static void rvtsw_fault_vcrc(struct sk_buff *skb)
{
	unsigned int at = skb->len - RVTSW_VCRC_BYTES;
	__le16 vcrc = cpu_to_le16(rvtsw_vcrc(skb->data, at));

	memcpy(skb->data + at, &vcrc, sizeof(vcrc));
}

/* Rewrite a big-endian 32-bit header word's bits @mask to @value. */
static void rvtsw_fault_set32(struct sk_buff *skb, unsigned int at, u32 mask,
			      u32 value)
{
	u32 word = get_unaligned_be32(skb->data + at);

	put_unaligned_be32((word & ~mask) | (value & mask), skb->data + at);
}

/*
 * Grow @skb's payload by RVTSW_OVERSIZE_BYTES zero bytes, before its
 * ICRC, with PktLen (and a GRH's PayLen) to match. Return: false if
 * there was no memory (the packet goes on unchanged).
 */
static bool rvtsw_fault_grow(struct sk_buff *skb)
{
	unsigned int grow = RVTSW_OVERSIZE_BYTES;
	u16 lrh2;

	if (skb_tailroom(skb) < grow &&
	    pskb_expand_head(skb, 0, grow, GFP_ATOMIC))
		return false;
	skb_trim(skb, skb->len - RVTSW_TRAILER_BYTES);
	skb_put_zero(skb, grow + RVTSW_TRAILER_BYTES);
	lrh2 = get_unaligned_be16(skb->data + 4) + grow / 4;
	put_unaligned_be16(lrh2, skb->data + 4);
	if (rvtsw_fault_bth(skb) != RVTSW_LRH_BYTES) {
		struct ib_grh *grh = (void *)(skb->data + RVTSW_LRH_BYTES);

		be16_add_cpu(&grh->paylen, grow);
	}
	return true;
}

/*
 * The opcode (its low five bits; the transport's stay) an "opcode" fault
 * gives a packet of @op: one with the same headers that cannot come where
 * the packet does. A SEND's only packet becomes a middle one, which
 * nothing started; a SEND's middle packet a first one, a new message
 * inside one; an RDMA WRITE's last packet a SEND's, a SEND ending inside
 * a WRITE. Any other packet becomes a SEND's middle one.
 */
static u8 rvtsw_fault_bad_opcode(u8 op)
{
	switch (op & 0x1f) {
	case IB_OPCODE_SEND_MIDDLE:
		return IB_OPCODE_SEND_FIRST;
	case IB_OPCODE_RDMA_WRITE_LAST:
		return IB_OPCODE_SEND_LAST;
	default:
		return IB_OPCODE_SEND_MIDDLE;
	}
}

/* Change @skb as @action says; the packet goes on. */
static void rvtsw_fault_mutate(struct sk_buff *skb, enum rvtsw_fault_action action)
{
	unsigned int bth = rvtsw_fault_bth(skb);
	u8 op = skb->data[bth];

	switch (action) {
	case RVTSW_FAULT_SHORT:
		skb_trim(skb, RVTSW_LRH_BYTES + RVTSW_BTH_BYTES);
		return;
	case RVTSW_FAULT_LENGTH:
		put_unaligned_be16(get_unaligned_be16(skb->data + 4) + 1,
				   skb->data + 4);
		rvtsw_fault_vcrc(skb);
		return;
	case RVTSW_FAULT_VCRC:
		skb->data[skb->len - 1] ^= 0x5a;
		return;
	case RVTSW_FAULT_ICRC:
		/* The last byte before the ICRC is in no variant field. */
		skb->data[skb->len - RVTSW_TRAILER_BYTES - 1] ^= 0x5a;
		rvtsw_fault_vcrc(skb);
		return;
	case RVTSW_FAULT_QPN:
		rvtsw_fault_set32(skb, bth + 4, RVTSW_MULTICAST_QPN,
				  RVTSW_BAD_QPN);
		break;
	case RVTSW_FAULT_PKEY:
		rvtsw_fault_set32(skb, bth, IB_BTH_PKEY_MASK, RVTSW_BAD_PKEY);
		break;
	case RVTSW_FAULT_QKEY:
		/* The Q_Key is a DETH's first word, a datagram's alone. */
		if ((op & ~0x1f) != IB_OPCODE_UD)
			return;
		rvtsw_fault_set32(skb, bth + RVTSW_BTH_BYTES, ~0U,
				  get_unaligned_be32(skb->data + bth +
						     RVTSW_BTH_BYTES) ^ 1);
		break;
	case RVTSW_FAULT_PSN:
		rvtsw_fault_set32(skb, bth + 8, RVTSW_PSN_MASK,
				  get_unaligned_be32(skb->data + bth + 8) +
				  RVTSW_BAD_PSN_AHEAD);
		break;
	case RVTSW_FAULT_OVERSIZE:
		if (!rvtsw_fault_grow(skb))
			return;
		break;
	case RVTSW_FAULT_OPCODE:
		skb->data[bth] = (op & ~0x1f) | rvtsw_fault_bad_opcode(op);
		break;
	default:
		return;
	}
	rvtsw_pkt_seal(skb);
}

/* Hold @skb, which came by port @in, until fault_release. */
static void rvtsw_fault_hold(struct rvtsw_fault *fault, unsigned int in,
			     struct sk_buff *skb)
{
	unsigned long flags;
	bool full;

	skb_orphan(skb);
	rvtsw_skb_cb(skb)->owner = NULL;
	rvtsw_skb_cb(skb)->in = in;
	spin_lock_irqsave(&fault->held.lock, flags);
	full = skb_queue_len(&fault->held) >= RVTSW_FAULT_HOLD_MAX;
	if (!full)
		__skb_queue_tail(&fault->held, skb);
	spin_unlock_irqrestore(&fault->held.lock, flags);
	if (full)
		kfree_skb(skb);
}

/**
 * rvtsw_fault_apply - the fault knob meets a packet crossing the switch
 * @sw: the switch
 * @in: the port the packet came by
 * @skb: the packet, through the link's checks
 *
 * Context: the switch's forwarding (any; does not sleep).
 * Return: RVTSW_FAULT_NONE if the packet goes on (perhaps changed),
 * RVTSW_FAULT_DROP if it is to be dropped, RVTSW_FAULT_HOLD if the knob
 * took it.
 */
enum rvtsw_fault_action rvtsw_fault_apply(struct rvtsw_switch *sw,
					  unsigned int in, struct sk_buff *skb)
{
	struct rvtsw_fault *fault = &sw->fault;
	int opcode = atomic_read(&fault->opcode);
	enum rvtsw_fault_action action;

	if (opcode < 0 || skb->len <= rvtsw_fault_bth(skb) ||
	    skb->data[rvtsw_fault_bth(skb)] != opcode ||
	    atomic_add_unless(&fault->skip, -1, 0) ||
	    !atomic_add_unless(&fault->count, -1, 0))
		return RVTSW_FAULT_NONE;
	action = atomic_read(&fault->action);
	if (action == RVTSW_FAULT_DROP)
		return action;
	if (action == RVTSW_FAULT_HOLD) {
		rvtsw_fault_hold(fault, in, skb);
		return action;
	}
	rvtsw_fault_mutate(skb, action);
	return RVTSW_FAULT_NONE;
}

/**
 * rvtsw_fault_take_held - take the packets a switch's fault knob holds
 * @fault: the knob
 * @list: where they go, oldest first, each with its port in its
 *	  rvtsw_skb_cb's @in
 *
 * Context: process context.
 */
void rvtsw_fault_take_held(struct rvtsw_fault *fault, struct sk_buff_head *list)
{
	spin_lock_irq(&fault->held.lock);
	skb_queue_splice_tail_init(&fault->held, list);
	spin_unlock_irq(&fault->held.lock);
}

/**
 * rvtsw_fault_action_name - the name of one of the knob's actions
 * @action: the action, below RVTSW_FAULT_NUM
 *
 * Context: any.
 * Return: its name, as the knob's fault_action file shows and takes it.
 */
const char *rvtsw_fault_action_name(enum rvtsw_fault_action action)
{
	return rvtsw_fault_names[action];
}

/**
 * rvtsw_fault_set_action - set the knob's action by its name
 * @fault: the knob
 * @name: the action's name, perhaps with a newline after it
 *
 * Context: any.
 * Return: 0, or -EINVAL for a name that is none of the actions'.
 */
int rvtsw_fault_set_action(struct rvtsw_fault *fault, const char *name)
{
	int action = sysfs_match_string(rvtsw_fault_names, name);

	if (action < 0)
		return action;
	atomic_set(&fault->action, action);
	return 0;
}
