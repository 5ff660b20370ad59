// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The verbs the sequences use, each logged: QP creation, destruction and
 * state changes, posts, polls, and the end of a step (let the work run,
 * log its completions and a snapshot).
 */
#include <linux/module.h>
#include "contract.h"

static void ct_qp_event(struct ib_event *ev, void *ctx)
{
	ct_log("event %s qp=%s", ib_event_msg(ev->event),
	       ct_ibqp_label(ev->element.qp));
}

/**
 * ct_create_qp_ia - the script creates a kernel QP from init attributes
 * @label: its name in the log ("veto..." makes qp_priv_alloc() refuse)
 * @ia: the attributes; the event handler and CQs default to the script's
 *
 * Context: the script.
 * Return: the QP, or NULL (the error is logged).
 */
struct ib_qp *ct_create_qp_ia(const char *label, struct ib_qp_init_attr *ia)
{
	struct ib_qp *qp;

	if (!ia->event_handler)
		ia->event_handler = ct_qp_event;
	if (!ia->send_cq)
		ia->send_cq = ct.cq;
	if (!ia->recv_cq)
		ia->recv_cq = ct.cq;
	ct.label = label;
	qp = ib_create_qp(ct.pd, ia);
	ct.label = NULL;
	if (IS_ERR(qp)) {
		ct_log("create %s type=%d port=%u flags=%#x -> %ld", label,
		       ia->qp_type, ia->port_num, ia->create_flags,
		       PTR_ERR(qp));
		return NULL;
	}
	ct_log("create %s type=%d port=%u flags=%#x -> qpn %#x cap(%u %u %u %u %u)",
	       label, ia->qp_type, ia->port_num, ia->create_flags, qp->qp_num,
	       ia->cap.max_send_wr, ia->cap.max_recv_wr, ia->cap.max_send_sge,
	       ia->cap.max_recv_sge, ia->cap.max_inline_data);
	return qp;
}

/**
 * ct_create_qp - the script creates a kernel QP
 * @label: its name in the log
 * @type: the QP type
 * @port: port_num of the init attributes
 * @srq: an SRQ, or NULL
 * @send_wr: max_send_wr
 * @recv_wr: max_recv_wr (ignored with an SRQ)
 *
 * Context: the script.
 * Return: the QP, or NULL (the error is logged).
 */
struct ib_qp *ct_create_qp(const char *label, enum ib_qp_type type,
			   u32 port, struct ib_srq *srq, int send_wr,
			   int recv_wr)
{
	struct ib_qp_init_attr ia = {
		.srq = srq,
		.cap = {
			.max_send_wr = send_wr, .max_recv_wr = srq ? 0 : recv_wr,
			.max_send_sge = 2, .max_recv_sge = srq ? 0 : 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
		.port_num = port,
	};

	return ct_create_qp_ia(label, &ia);
}

/**
 * ct_destroy_qp - destroy a QP the script created
 * @qp: the QP, or NULL
 *
 * Context: the script.
 */
void ct_destroy_qp(struct ib_qp *qp)
{
	char label[CT_LABEL_LEN];
	int ret;

	if (!qp)
		return;
	strscpy(label, ct_ibqp_label(qp), sizeof(label));
	ret = ib_destroy_qp(qp);
	ct_log("destroy %s -> %d", label, ret);
}

/**
 * ct_modify - ib_modify_qp(), logged
 * @qp: the QP
 * @attr: attributes
 * @mask: IB_QP_* mask
 *
 * Context: the script.
 * Return: ib_modify_qp()'s.
 */
int ct_modify(struct ib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	int ret = ib_modify_qp(qp, attr, mask);

	ct_log("modify %s mask=%#x to=%s -> %d", ct_ibqp_label(qp), mask,
	       mask & IB_QP_STATE ? ct_state_name(attr->qp_state) : "-", ret);
	return ret;
}

/**
 * ct_modify_driver - the core's modify_qp itself, logged as ct_modify()
 * @qp: the QP
 * @attr: attributes
 * @mask: IB_QP_* mask
 *
 * For a port the device lacks: ib_modify_qp() reads that port's data
 * (rdma_ib_or_roce()) before the core sees the call, past ib_core's
 * array (KASAN, debug lane). Kernel callers are trusted to pass a valid
 * port and uverbs checks a process's, so only the core's own answer is
 * of interest here.
 *
 * Context: the script.
 * Return: the core's modify_qp()'s.
 */
int ct_modify_driver(struct ib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	int ret = qp->device->ops.modify_qp(qp, attr, mask, NULL);

	ct_log("modify %s mask=%#x to=%s -> %d", ct_ibqp_label(qp), mask,
	       mask & IB_QP_STATE ? ct_state_name(attr->qp_state) : "-", ret);
	return ret;
}

/**
 * ct_set_av - an address vector on a port of the device
 * @ah: filled in
 * @port: the port
 * @dlid: destination LID
 * @sl: service level
 *
 * Context: any.
 */
void ct_set_av(struct rdma_ah_attr *ah, u32 port, u32 dlid, u8 sl)
{
	memset(ah, 0, sizeof(*ah));
	/*
	 * rdma_ah_find_type() reads the port's data: a port the device lacks
	 * (the bad-port steps) would read past it (KASAN, debug lane). The
	 * test devices' ports are all InfiniBand.
	 */
	if (rdma_is_port_valid(ct_ibdev(), port))
		ah->type = rdma_ah_find_type(ct_ibdev(), port);
	else
		ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(ah, dlid);
	rdma_ah_set_sl(ah, sl);
	rdma_ah_set_port_num(ah, port);
	rdma_ah_set_static_rate(ah, IB_RATE_PORT_CURRENT);
}

/**
 * ct_full_pkey - the index of P_Key 0xffff in the ports' tables
 *
 * Context: during a round.
 * Return: the index.
 */
u16 ct_full_pkey(void)
{
	u16 i;

	for (i = 0; i < CT_MAX_PKEYS; i++)
		if (ct.dev->port[0].pkeys[i] == 0xffff)
			return i;
	return 0;
}

/**
 * ct_to_rts - take a QP from RESET to RTS
 * @qp: the QP
 * @port: its port
 * @dlid: RC/UC: the destination LID
 * @dqpn: RC/UC: the destination QPN
 *
 * RC timers are short so that the timer sequences finish quickly:
 * timeout 4 (64 us, a jiffy), 3 retries, min_rnr_timer 1 (10 us).
 *
 * Context: the script.
 * Return: 0 or the first failing modify's errno.
 */
int ct_to_rts(struct ib_qp *qp, u32 port, u32 dlid, u32 dqpn)
{
	const struct ct_path path = {
		.port = port, .dlid = dlid, .dqpn = dqpn, .timeout = 4,
		.retry = 3, .rnr_retry = 3, .rd_atomic = 4, .min_rnr_timer = 1,
	};

	return ct_ladder(qp, &path);
}

/**
 * ct_ladder - RESET to RTS, each move logged
 * @qp: the QP; RC and UC get remote write, read and atomic access and
 *	@l's path, the others the Q_Key 0x11111111
 * @l: the path
 *
 * Context: the script.
 * Return: 0 or the first failing modify's errno.
 */
int ct_ladder(struct ib_qp *qp, const struct ct_path *l)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = ct_full_pkey(),
		.port_num = l->port, .qkey = 0x11111111,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	bool ud = qp->qp_type != IB_QPT_RC && qp->qp_type != IB_QPT_UC;
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX;
	int ret;

	if (qp->qp_type == IB_QPT_UD || !ud)
		mask |= IB_QP_PORT;
	mask |= ud ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS;
	ret = ct_modify(qp, &a, mask);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (!ud) {
		ct_set_av(&a.ah_attr, l->port, l->dlid, 0);
		a.path_mtu = IB_MTU_1024;
		a.dest_qp_num = l->dqpn;
		a.rq_psn = 0x100;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN;
		if (qp->qp_type == IB_QPT_RC) {
			a.max_dest_rd_atomic = l->rd_atomic;
			a.min_rnr_timer = l->min_rnr_timer;
			mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
		}
	}
	ret = ct_modify(qp, &a, mask);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x100;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (qp->qp_type == IB_QPT_RC) {
		a.timeout = l->timeout;
		a.retry_cnt = l->retry;
		a.rnr_retry = l->rnr_retry;
		a.max_rd_atomic = l->rd_atomic;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	return ct_modify(qp, &a, mask);
}

/**
 * ct_post_send - ib_post_send(), logged
 * @qp: the QP
 * @wr: the request list
 *
 * Context: the script.
 * Return: ib_post_send()'s.
 */
int ct_post_send(struct ib_qp *qp, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad = NULL;
	int ret = ib_post_send(qp, wr, &bad);

	ct_log("post %s op=%d wr_id=%#llx -> %d bad=%s", ct_ibqp_label(qp),
	       wr->opcode, wr->wr_id, ret,
	       !bad ? "none" : bad == wr ? "first" : "later");
	return ret;
}

/**
 * ct_post_recv - post one receive of a kernel buffer
 * @qp: the QP
 * @wr_id: its ID
 * @buf: the buffer (kernel virtual address, the DMA MR's lkey)
 * @len: its length
 *
 * Context: the script.
 * Return: ib_post_recv()'s.
 */
int ct_post_recv(struct ib_qp *qp, u64 wr_id, void *buf, u32 len)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)buf, .length = len,
		.lkey = ct.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;
	int ret = ib_post_recv(qp, &wr, &bad);

	ct_log("recv %s wr_id=%#llx len=%u -> %d", ct_ibqp_label(qp), wr_id,
	       len, ret);
	return ret;
}

/**
 * ct_poll - log every completion waiting on a CQ
 * @cq: a directly polled CQ
 *
 * Context: the script.
 * Return: how many.
 */
int ct_poll(struct ib_cq *cq)
{
	struct ib_wc wc[8];
	char text[192];
	int n, i, total = 0;

	while ((n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc)) > 0) {
		for (i = 0; i < n; i++) {
			scnprintf(text, sizeof(text),
				  "qp=%s wr_id=%#llx %s op=%d len=%u src_qp=%#x flags=%#x imm=%#x",
				  ct_ibqp_label(wc[i].qp), wc[i].wr_id,
				  ct_status(wc[i].status), wc[i].opcode,
				  wc[i].byte_len, wc[i].src_qp,
				  wc[i].wc_flags,
				  be32_to_cpu(wc[i].ex.imm_data));
			ct_log("wc %s pkey=%u slid=%#x sl=%u bits=%u port=%u",
			       text, wc[i].pkey_index, wc[i].slid, wc[i].sl,
			       wc[i].dlid_path_bits, wc[i].port_num);
		}
		total += n;
	}
	if (n < 0)
		ct_log("poll -> %d", n);
	return total;
}

/**
 * ct_end_step - let the step's work finish, log completions and a snapshot
 *
 * Context: the script.
 */
void ct_end_step(void)
{
	ct_settle(3000);
	ct_poll(ct.cq);
	ct_snap();
}
