// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The packet format's self-test, run at module load: a module whose
 * packets would come out wrong refuses to load, rather than have every
 * packet dropped as bad at the other end.
 *
 * Its known answers are a UD SEND_ONLY packet from LID 1 to LID 2 (SL 0,
 * VL 0, P_Key 0xffff, QP 1 to QP 0x12, PSN 0x123, Q_Key 0x80010000,
 * payload "rvtsw"), local and with a GRH, as IBTA lays it out, and the
 * ICRC and VCRC an implementation written apart from wire_crc.c (bit by
 * bit, from IBTA's polynomials) gives each. The test builds the local
 * packet with the same calls the senders use and compares it byte for
 * byte, parses it back, and checks that a corrupt payload fails the
 * ICRC and a corrupt byte on the link the VCRC.
 */
#include "wire.h"

/* What both samples have after the LRH (and GRH). */
static const u8 rvtsw_sample_tail[] = {
	0x64, 0x30, 0xff, 0xff, 0x00, 0x00, 0x00, 0x12,	/* BTH, pad 3 */
	0x00, 0x00, 0x01, 0x23,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* DETH */
	'r', 'v', 't', 's', 'w', 0x00, 0x00, 0x00,	/* payload, pad */
};

static const u8 rvtsw_sample_local_head[] = {
	0x00, 0x02, 0x00, 0x02, 0x00, 0x0a, 0x00, 0x01,	/* LRH, LNH 2 */
};

static const u8 rvtsw_sample_global_head[] = {
	0x00, 0x03, 0x00, 0x02, 0x00, 0x14, 0x00, 0x01,	/* LRH, LNH 3 */
	0x61, 0x23, 0x45, 0x67, 0x00, 0x20, 0x1b, 0x40,	/* GRH */
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};

/**
 * struct rvtsw_sample - a known packet
 * @name: what the log calls it
 * @head: its LRH, and GRH if any; rvtsw_sample_tail follows
 * @head_len: the length of @head
 * @icrc: its ICRC
 * @vcrc: its VCRC
 */
struct rvtsw_sample {
	const char *name;
	const u8 *head;
	unsigned int head_len;
	u32 icrc;
	u16 vcrc;
};

static const struct rvtsw_sample rvtsw_samples[] = {
	{ "local", rvtsw_sample_local_head, sizeof(rvtsw_sample_local_head),
	  0x04f1dcb5, 0x8afb },
	{ "global", rvtsw_sample_global_head,
	  sizeof(rvtsw_sample_global_head), 0x8960b84e, 0x6b8e },
};

#define RVTSW_SAMPLE_MAX (sizeof(rvtsw_sample_global_head) + \
			  sizeof(rvtsw_sample_tail) + RVTSW_TRAILER_BYTES)
#define RVTSW_SAMPLE_PAYLOAD "rvtsw"
#define RVTSW_SAMPLE_PAYLEN 5

/* @sample, with its CRCs, in @buf. Return: its length. */
static unsigned int rvtsw_sample_bytes(const struct rvtsw_sample *sample,
				       u8 buf[RVTSW_SAMPLE_MAX])
{
	unsigned int len = sample->head_len + sizeof(rvtsw_sample_tail);

	memcpy(buf, sample->head, sample->head_len);
	memcpy(buf + sample->head_len, rvtsw_sample_tail,
	       sizeof(rvtsw_sample_tail));
	put_unaligned_le32(sample->icrc, buf + len);
	put_unaligned_le16(sample->vcrc, buf + len + RVTSW_ICRC_BYTES);
	return len + RVTSW_TRAILER_BYTES;
}

/* Do @sample's ICRC and VCRC come out as it carries them? */
static bool rvtsw_selftest_crcs(const struct rvtsw_sample *sample)
{
	u8 buf[RVTSW_SAMPLE_MAX];
	unsigned int icrc_at = rvtsw_sample_bytes(sample, buf) -
			       RVTSW_TRAILER_BYTES;
	u32 icrc = rvtsw_icrc(buf, icrc_at);
	u16 vcrc = rvtsw_vcrc(buf, icrc_at + RVTSW_ICRC_BYTES);

	if (icrc == sample->icrc && vcrc == sample->vcrc)
		return true;
	pr_err(RVTSW_NAME ": packet self-test: the %s packet's ICRC comes out %#010x, its VCRC %#06x\n",
	       sample->name, icrc, vcrc);
	return false;
}

/* The local sample, built as a UD sender builds its packets. */
static struct sk_buff *rvtsw_selftest_build(void)
{
	struct rvtsw_lrh_fields lrh = { .dlid = 2, .slid = 1 };
	struct rvtsw_hdr hdr;
	struct sk_buff *skb;
	void *payload;

	rvtsw_hdr_init(&hdr, &lrh, NULL);
	rvtsw_hdr_bth(&hdr, IB_OPCODE_UD_SEND_ONLY, IB_DEFAULT_PKEY_FULL, 0x12,
		      0x123);
	hdr.ohdr->u.ud.deth[0] = cpu_to_be32(0x80010000);
	hdr.ohdr->u.ud.deth[1] = cpu_to_be32(1);
	skb = rvtsw_pkt_alloc(&hdr, RVTSW_SAMPLE_PAYLEN, &payload);
	if (!skb)
		return NULL;
	memcpy(payload, RVTSW_SAMPLE_PAYLOAD, RVTSW_SAMPLE_PAYLEN);
	rvtsw_pkt_seal(skb);
	return skb;
}

/* Does the parser read back what the sample says? */
static bool rvtsw_selftest_fields(const struct rvtsw_pkt *pkt)
{
	return pkt->lrh.dlid == 2 && pkt->lrh.slid == 1 && !pkt->lrh.sl &&
	       !pkt->grh && pkt->opcode == IB_OPCODE_UD_SEND_ONLY &&
	       pkt->pkey == IB_DEFAULT_PKEY_FULL && pkt->dqpn == 0x12 &&
	       pkt->psn == 0x123 && !pkt->ack_req &&
	       pkt->paylen == RVTSW_SAMPLE_PAYLEN &&
	       !memcmp(pkt->payload, RVTSW_SAMPLE_PAYLOAD, pkt->paylen) &&
	       pkt->words == 10 && ib_get_sqpn(pkt->ohdr) == 1;
}

/*
 * Parse @skb, corrupt its payload and parse it again, then corrupt it on
 * the link (its VCRC left stale); then finish it for this host (it
 * parses, trusted or sealed anew), seal it and change a byte: caught
 * again. Return: the first step that failed, or NULL.
 */
static const char *rvtsw_selftest_parse(struct sk_buff *skb)
{
	unsigned int vcrc_at = skb->len - RVTSW_VCRC_BYTES;
	struct rvtsw_pkt pkt;
	u16 vcrc;

	if (rvtsw_pkt_parse(skb, &pkt) != RVTSW_PKT_OK)
		return "parsing the packet built";
	if (!rvtsw_selftest_fields(&pkt))
		return "the parsed fields";
	/* A payload bit flipped, and the link's CRC made to match. */
	skb->data[skb->len - RVTSW_TRAILER_BYTES - 4] ^= 1;
	vcrc = rvtsw_vcrc(skb->data, vcrc_at);
	put_unaligned_le16(vcrc, skb->data + vcrc_at);
	if (rvtsw_pkt_parse(skb, &pkt) != RVTSW_PKT_BAD_ICRC)
		return "a corrupt payload";
	skb->data[0] ^= 0x10;
	if (rvtsw_pkt_parse(skb, &pkt) != RVTSW_PKT_BAD_VCRC)
		return "a byte corrupted on the link";
	rvtsw_pkt_finish(skb);
	if (rvtsw_pkt_parse(skb, &pkt) != RVTSW_PKT_OK)
		return "a packet finished for this host";
	rvtsw_pkt_seal(skb);
	skb->data[0] ^= 0x10;
	if (rvtsw_pkt_parse(skb, &pkt) != RVTSW_PKT_BAD_VCRC)
		return "a sealed packet changed";
	return NULL;
}

/**
 * rvtsw_wire_selftest - check the packet format against known answers
 *
 * Context: module init, after rvtsw_crc_init(); sleeps.
 * Return: 0, -EINVAL if a check failed (the log says which), or -ENOMEM.
 */
int rvtsw_wire_selftest(void)
{
	const char *failed = NULL;
	u8 local[RVTSW_SAMPLE_MAX];
	struct sk_buff *skb;
	unsigned int i, len;

	for (i = 0; i < ARRAY_SIZE(rvtsw_samples); i++)
		if (!rvtsw_selftest_crcs(&rvtsw_samples[i]))
			return -EINVAL;
	skb = rvtsw_selftest_build();
	if (!skb)
		return -ENOMEM;
	len = rvtsw_sample_bytes(&rvtsw_samples[0], local);
	if (skb->len != len || memcmp(skb->data, local, len))
		failed = "building the local packet";
	else
		failed = rvtsw_selftest_parse(skb);
	kfree_skb(skb);
	if (!failed)
		return 0;
	pr_err(RVTSW_NAME ": packet self-test failed: %s\n", failed);
	return -EINVAL;
}
