// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_stress: the messages. A message's length and bytes derive from its
 * poster and sequence number, after a header whose CRC32 covers the rest
 * (st_fill()), so wherever one lands it can be checked (st_check()). The
 * slots are where a poster's messages are written and read in a flow's
 * two areas: its send and read slots in the senders' local area, its
 * write slots and the RDMA READ sources in the receivers' remote area.
 */
#include <linux/crc32.h>
#include "stress.h"

/* A message's length, from its poster and sequence number. */
u16 st_msg_len(unsigned int t, u32 seq)
{
	u32 h = (seq * 2654435761U) ^ (t * 40503U);

	return sizeof(struct st_hdr) +
	       (h >> 7) % (ST_MSG_MAX - sizeof(struct st_hdr) + 1);
}

/* The message of (@t, @seq) at @h: a header, then xorshift bytes. */
void st_fill(struct st_hdr *h, unsigned int t, enum st_kind kind, u32 seq)
{
	u16 len = st_msg_len(t, seq);
	u8 *data = (u8 *)(h + 1);
	u32 x = (t + 1) * 0x9e3779b9U ^ seq * 0x85ebca6bU;
	unsigned int i;

	x |= 1;
	for (i = 0; i < len - sizeof(*h); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = x >> 24;
	}
	h->magic = ST_MAGIC;
	h->thread = t;
	h->kind = kind;
	h->len = len;
	h->seq = seq;
	h->csum = crc32_le(~0U, data, len - sizeof(*h));
}

/*
 * Is @h the intact message of poster @t whose sequence number matches
 * @seq in the bits of @seq_mask, @len bytes long (0: not known)?
 */
bool st_check(const struct st_hdr *h, unsigned int len, unsigned int t,
	      u32 seq, u32 seq_mask)
{
	if (h->magic != ST_MAGIC || h->thread != t ||
	    (h->seq & seq_mask) != (seq & seq_mask) ||
	    h->len != st_msg_len(t, h->seq) || (len && h->len != len))
		return false;
	return crc32_le(~0U, (const u8 *)(h + 1), h->len - sizeof(*h)) ==
	       h->csum;
}

u8 *st_local_slot(struct st_flow *f, unsigned int t, bool read,
		  unsigned int slot)
{
	return f->local + ((t * 2 + read) * ST_SLOTS + slot) * ST_MSG_MAX;
}

u8 *st_write_slot(struct st_flow *f, unsigned int t, unsigned int slot)
{
	return f->remote + (t * ST_SLOTS + slot) * ST_MSG_MAX;
}

u8 *st_read_src(struct st_flow *f, unsigned int src)
{
	return f->remote + (ST_MAX_THREADS * ST_SLOTS + src) * ST_MSG_MAX;
}
