// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* uverbs_fuzz: posting work requests through write(). */
#include "fuzz.h"

/* The type of the QP a POST_SEND being built goes to (UD: AH and QPN). */
static __u32 post_qp_type;

static void fill_send_wr(struct ib_uverbs_send_wr *wr, __u32 num_sge)
{
	struct obj *o;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = step;
	wr->num_sge = num_sge;
	wr->opcode = sane || chance(90) ?
		     rnd(IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD + 1) :
		     (__u32)next64();
	if (chance(60) || (sane && wr->opcode > IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD))
		wr->opcode = IB_UVERBS_WR_SEND;
	wr->send_flags = sane || chance(80) ? SEND_SIGNALED : rnd(32);
	wr->ex.imm_data = (__u32)next64();
	switch (wr->opcode) {
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		pick_remote(&wr->wr.atomic.remote_addr, &wr->wr.atomic.rkey);
		wr->wr.atomic.compare_add = next64();
		wr->wr.atomic.swap = next64();
		break;
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
		/* UD: the same bytes hold the AH, QPN and Q_Key */
		if (post_qp_type == IB_UVERBS_QPT_UD ? chance(95) : chance(5)) {
			struct obj *ud = pick_live(K_QP);

			o = sane ? pick_in_pd(K_AH, post_pd) : NULL;
			wr->wr.ud.ah = o ? o->handle : pick_handle(K_AH, &o);
			wr->wr.ud.remote_qpn = ud ? ud->qp.qpn : rnd(4);
			wr->wr.ud.remote_qkey = chance(80) ? QKEY :
						(__u32)next64();
			break;
		}
		pick_remote(&wr->wr.rdma.remote_addr, &wr->wr.rdma.rkey);
		break;
	default:
		pick_remote(&wr->wr.rdma.remote_addr, &wr->wr.rdma.rkey);
		break;
	}
}

/* A post command's layout: header, WRs of wqe_size, then the SGEs. */
struct post_layout {
	__u32 wr_count, sge_count, wqe_size, per_wr;
};

static void pick_layout(struct post_layout *l, size_t wr_bytes)
{
	l->wr_count = sane || chance(90) ? 1 + rnd(4) : pick_u32(1, 8, 64);
	l->per_wr = sane ? 1 : chance(90) ? 1 + rnd(2) : pick_u32(0, 3, 32);
	l->wqe_size = (__u32)wr_bytes;
	if (!sane && chance(8))
		l->wqe_size = pick_u32((__u32)wr_bytes, (__u32)wr_bytes + 32,
				       (__u32)wr_bytes);
	l->sge_count = min_sz(l->wr_count, 64u) * min_sz(l->per_wr, 32u);
	if (!sane && chance(5))
		l->sge_count = boundary(l->sge_count);
}

/*
 * Bytes of a post body in @body for @l, the WRs written by @fill_wr:
 * as many WRs and SGEs as fit, which the kernel must check against its
 * counts.
 */
static size_t build_post(char *body, size_t hdr_len, size_t max,
			 struct post_layout *l, size_t wr_bytes,
			 void (*fill_wr)(void *wr, __u32 num_sge))
{
	size_t pos = hdr_len, room = min_sz(l->wqe_size, 256u);
	/* a WR is written whole even where wqe_size says it is shorter */
	size_t fill = room > wr_bytes ? room : wr_bytes;
	__u32 i;

	for (i = 0; i < l->wr_count && i < 512 && pos + fill <= max; i++) {
		memset(body + pos, 0, fill);
		fill_wr(body + pos, sane || chance(95) ? l->per_wr :
			pick_u32(0, 3, 32));
		pos += room;
		if (l->wqe_size > room)
			break;	/* a wqe_size too big to build: truncated */
	}
	for (i = 0; i < l->sge_count && pos + SGE_BYTES <= max; i++) {
		pick_sge((struct ib_uverbs_sge *)(body + pos));
		pos += SGE_BYTES;
	}
	return pos;
}

static void send_wr_cb(void *wr, __u32 num_sge)
{
	fill_send_wr(wr, num_sge);
}

static void recv_wr_cb(void *p, __u32 num_sge)
{
	struct ib_uverbs_recv_wr *wr = p;

	wr->wr_id = step;
	wr->num_sge = num_sge;
	wr->reserved = chance(95) ? 0 : (__u32)next64();
}

static __u64 post_words[1024];
static char *const post_body = (char *)post_words;

/* POST_SEND, POST_RECV or POST_SRQ_RECV with a drawn layout. */
void cmd_post(enum fuzz_op op)
{
	struct ib_uverbs_post_send *h = (void *)post_body;
	bool send = op == OP_POST_SEND;
	size_t wr_bytes = send ? sizeof(struct ib_uverbs_send_wr) :
				 sizeof(struct ib_uverbs_recv_wr);
	struct post_layout l;
	struct obj *o;
	struct wreq w;
	size_t len;
	__u32 cmd = send ? IB_USER_VERBS_CMD_POST_SEND :
		    op == OP_POST_RECV ? IB_USER_VERBS_CMD_POST_RECV :
		    IB_USER_VERBS_CMD_POST_SRQ_RECV;

	o = pick_qp_in(send ? QPS_RTS : QPS_INIT + rnd(3));
	if (send && (avoid & AV_RC_SEND) &&
	    (!o || o->qp.type != IB_UVERBS_QPT_UD))
		return;
	if (send && (avoid & AV_RC_SEND))
		h->qp_handle = o->handle;
	else if (op == OP_POST_SRQ_RECV || !o || (!sane && chance(30)))
		h->qp_handle = pick_handle(op == OP_POST_SRQ_RECV ? K_SRQ :
					   K_QP, &o);
	else
		h->qp_handle = o->handle;
	post_qp_type = o && o->kind == K_QP ? o->qp.type : 0;
	post_pd = o ? o->pd : ~0u;
	pick_layout(&l, wr_bytes);
	if (send && !l.wr_count && (avoid & AV_POST_SEND_NO_WR))
		l.wr_count = 1;
	len = build_post(post_body, sizeof(*h), sizeof(post_words), &l,
			 wr_bytes, send ? send_wr_cb : recv_wr_cb);
	h->wr_count = l.wr_count;
	h->sge_count = l.sge_count;
	h->wqe_size = l.wqe_size;
	describe("%s handle %u (type %u state %d) wrs %u sges %u wqe_size %u opcode %u (%zu bytes)",
		 op_names[op], h->qp_handle, post_qp_type,
		 o && o->kind == K_QP ? (int)o->qp.state : -1, l.wr_count,
		 l.sge_count, l.wqe_size,
		 send ? ((struct ib_uverbs_send_wr *)(h + 1))->opcode : 0, len);
	wreq_init(&w, op, cmd, post_body, len,
		  sizeof(struct ib_uverbs_post_send_resp));
	w.check_off = 0;
	wsubmit(&w);
}
