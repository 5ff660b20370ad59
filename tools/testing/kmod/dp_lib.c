// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_dp_test's helpers: kernel buffers and their MRs, waiting for
 * completions and events, connected QP pairs, posting requests.
 */
#include "dp.h"

/* The device and its PD; dp_main.c sets them up before the first test. */
struct kt_env env;

/* ---- buffers and memory regions ------------------------------------ */

int buf_alloc(struct dpt_buf *b)
{
	b->mr = NULL;
	b->va = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
				       get_order(BUF_SIZE));
	return b->va ? 0 : -ENOMEM;
}

void buf_free(struct dpt_buf *b)
{
	if (b->mr)
		ib_dereg_mr(b->mr);
	if (b->va)
		free_pages((unsigned long)b->va, get_order(BUF_SIZE));
	b->va = NULL;
	b->mr = NULL;
}

u64 buf_addr(const struct dpt_buf *b, size_t off)
{
	return (uintptr_t)b->va + off;
}

void fill(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 7;
}

struct ib_sge dma_sge(const struct dpt_buf *b, size_t off, u32 len)
{
	return (struct ib_sge){
		.addr = buf_addr(b, off),
		.length = len,
		.lkey = env.pd->local_dma_lkey,
	};
}

/* ---- polling ----------------------------------------------------------- */

bool wait_wc(struct ib_cq *cq, struct ib_wc *wc, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	do {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(200, 400);
	} while (time_before(jiffies, end));
	return false;
}

/* Does @cq stay empty for a while? */
bool stays_empty(struct ib_cq *cq)
{
	struct ib_wc wc;

	return !wait_wc(cq, &wc, QUIET_MS);
}

bool wait_async(const int *ev, int want)
{
	unsigned long end = jiffies + msecs_to_jiffies(WAIT_MS);

	while (READ_ONCE(*ev) != want && time_before(jiffies, end))
		usleep_range(200, 400);
	return READ_ONCE(*ev) == want;
}

int qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;

	if (ib_query_qp(qp, &a, IB_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* ---- QP pairs -------------------------------------------------------- */

struct dpt_opts opts(enum ib_qp_type type)
{
	return (struct dpt_opts){
		.type = type, .rnr_retry = 7, .retry_cnt = 7, .timeout = 12,
		.min_rnr_timer = 12, .b_access = FULL_ACCESS, .cqe = 64,
		.max_send_wr = 16,
	};
}

/* The ladder's attributes @o asks for, with @access, towards @dest. */
struct kt_path dp_path(const struct dpt_opts *o, int access, u32 dest)
{
	return (struct kt_path){
		.access = access, .dlid = o->dlid ?: env.lid,
		.dest_qpn = dest, .mtu = IB_MTU_1024, .rq_psn = 0x10,
		.sq_psn = 0x10, .max_dest_rd_atomic = o->no_rd_atomic ? 0 : 4,
		.min_rnr_timer = o->min_rnr_timer, .timeout = o->timeout,
		.retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
		.max_rd_atomic = 4,
	};
}

static struct kt_qp_spec dp_qp_spec(const struct dpt_opts *o)
{
	return (struct kt_qp_spec){
		.type = o->type, .send_wr = o->max_send_wr, .recv_wr = 16,
		.sge = 4,
	};
}

struct ib_qp *dp_qp(const struct dpt_opts *o, struct ib_cq *cq,
		    struct ib_srq *srq, int *ev)
{
	struct kt_qp_spec s = dp_qp_spec(o);

	s.cq = cq;
	s.srq = srq;
	s.event = ev;
	return kt_qp_create(env.pd, &s);
}

/* Returns 0 or an errno, with everything created so far destroyed. */
int pair_create(struct kt_pair *p, const struct dpt_opts *o)
{
	struct kt_pair_spec s = {
		.qp = dp_qp_spec(o), .srq_b = o->srq, .cqe_a = o->cqe,
		.cqe_b = 64, .path_a = dp_path(o, FULL_ACCESS, o->dest),
		.path_b = dp_path(o, o->b_access, 0), .b_rtr = o->b_rtr,
	};

	return kt_pair_create(&env, p, &s);
}

/*
 * The end of a test on a pair and one or two buffers (@b may be NULL):
 * all freed, the verdict given.
 */
void dp_end(struct kt_test *t, struct kt_pair *p, struct dpt_buf *a,
	    struct dpt_buf *b, bool ok, const char *why)
{
	kt_pair_destroy(p);
	buf_free(a);
	if (b)
		buf_free(b);
	kt_result(t, ok, ok ? NULL : "%s", why);
}

/* ---- posting ----------------------------------------------------------- */

int post_recv(struct ib_qp *qp, u64 wr_id, struct ib_sge *sg, int n)
{
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = n };

	return ib_post_recv(qp, &wr, NULL);
}

int post_send(struct ib_qp *qp, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(qp, wr, &bad);

	/* A failure names the request it stopped at. */
	if (ret && bad != wr)
		return -EFAULT;
	return ret;
}

int send_op(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sg, int n)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .sg_list = sg, .num_sge = n,
		.send_flags = IB_SEND_SIGNALED,
	};

	return post_send(qp, &wr);
}

int rdma_op(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
	    struct ib_sge *sg, int n, u64 raddr, u32 rkey)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .opcode = op, .sg_list = sg,
			.num_sge = n, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0xfeed0000 | (u32)wr_id),
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return post_send(qp, &wr.wr);
}

int atomic_op(struct ib_qp *qp, enum ib_wr_opcode op,
	      struct ib_sge *result, u64 raddr, u32 rkey, u64 cmp_add,
	      u64 swap)
{
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = op, .opcode = op, .sg_list = result,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.compare_add = cmp_add,
		.swap = swap,
		.rkey = rkey,
	};

	return post_send(qp, &wr.wr);
}

/*
 * Register @b for remote access with a fast-registration WR posted on
 * @qp (in RTS), whose CQ is @cq. Return: 0 with b->mr set, or an errno.
 */
int buf_reg(struct dpt_buf *b, struct ib_qp *qp, struct ib_cq *cq,
	    int access)
{
	struct scatterlist sg;
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 0x4e6, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = access,
	};
	struct ib_wc wc;
	int ret;

	b->mr = ib_alloc_mr(env.pd, IB_MR_TYPE_MEM_REG, BUF_SIZE / PAGE_SIZE);
	if (IS_ERR(b->mr)) {
		ret = PTR_ERR(b->mr);
		b->mr = NULL;
		return ret;
	}
	sg_init_one(&sg, b->va, BUF_SIZE);
	if (ib_dma_map_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	ret = ib_map_mr_sg(b->mr, &sg, 1, NULL, PAGE_SIZE);
	ib_dma_unmap_sg(env.ibdev, &sg, 1, DMA_BIDIRECTIONAL);
	if (ret != 1)
		return -EIO;
	ib_update_fast_reg_key(b->mr, ib_inc_rkey(b->mr->rkey));
	wr.mr = b->mr;
	wr.key = b->mr->rkey;
	ret = post_send(qp, &wr.wr);
	if (ret)
		return ret;
	if (!wait_wc(cq, &wc, WAIT_MS) || wc.status != IB_WC_SUCCESS ||
	    wc.opcode != IB_WC_REG_MR || wc.wr_id != 0x4e6)
		return -EIO;
	return 0;
}

/* Wait for one completion and check it. */
bool expect_wc(struct ib_cq *cq, u64 wr_id, enum ib_wc_status status,
	       int opcode, struct ib_wc *out, const char **why)
{
	struct ib_wc wc = { };

	if (!wait_wc(cq, &wc, WAIT_MS)) {
		*why = "no completion";
		return false;
	}
	if (out)
		*out = wc;
	if (wc.wr_id != wr_id || wc.status != status) {
		pr_info("rvt_dp_test: wc wr_id %llx status %d (%s) opcode %d, want %llx %d\n",
			wc.wr_id, wc.status, ib_wc_status_msg(wc.status),
			wc.opcode, wr_id, status);
		*why = ib_wc_status_msg(wc.status);
		return false;
	}
	if (status == IB_WC_SUCCESS && opcode >= 0 && wc.opcode != opcode) {
		*why = "wrong opcode";
		return false;
	}
	return true;
}
