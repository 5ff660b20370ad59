// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_ktest: what the test modules set up through the kernel verbs: the
 * device and its PD, QPs, the RESET -> INIT -> RTR -> RTS ladder, and
 * connected pairs of QPs on port 1.
 */
#include <rdma/rdma_vt.h>
#include "ktest.h"

/**
 * kt_env_get - hold the device under test and give it a PD
 * @env: filled in
 * @dev: the device's name; it must be an rdmavt device (rvtsw's driver id)
 * @need_lid: fail when port 1 has no LID (tests that send need one)
 *
 * Return: 0, -ENODEV when there is no such device, or -EIO.
 * Context: process context; sleeps.
 */
int kt_env_get(struct kt_env *env, const char *dev, bool need_lid)
{
	struct ib_port_attr pa;

	env->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_QIB);
	if (!env->ibdev) {
		pr_err("rvt_ktest: no device %s\n", dev);
		return -ENODEV;
	}
	if (ib_query_port(env->ibdev, 1, &pa) || (need_lid && !pa.lid))
		goto put_dev;
	env->lid = pa.lid;
	env->pd = ib_alloc_pd(env->ibdev, 0);
	if (IS_ERR(env->pd))
		goto put_dev;
	return 0;

put_dev:
	ib_device_put(env->ibdev);
	pr_err("rvt_ktest: cannot set up on %s\n", dev);
	return -EIO;
}
EXPORT_SYMBOL(kt_env_get);

/**
 * kt_env_put - undo kt_env_get()
 * @env: what it filled in
 *
 * Context: process context; sleeps.
 */
void kt_env_put(struct kt_env *env)
{
	ib_dealloc_pd(env->pd);
	ib_device_put(env->ibdev);
}
EXPORT_SYMBOL(kt_env_put);

static void kt_qp_event(struct ib_event *ev, void *ctx)
{
	int *last = ctx;

	if (last)
		WRITE_ONCE(*last, ev->event);
}

/**
 * kt_qp_create - create a QP as @s says, signalling requested WRs only
 * @pd: its PD
 * @s: what it is
 *
 * Return: the QP, or an ERR_PTR.
 * Context: process context; sleeps.
 */
struct ib_qp *kt_qp_create(struct ib_pd *pd, const struct kt_qp_spec *s)
{
	struct ib_qp_init_attr ia = {
		.event_handler = kt_qp_event,
		.qp_context = s->event,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.srq = s->srq,
		.cap = {
			.max_send_wr = s->send_wr, .max_recv_wr = s->recv_wr,
			.max_send_sge = s->sge, .max_recv_sge = s->sge,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = s->type,
		.port_num = s->port,
	};

	if (s->event)
		*s->event = KT_NO_EVENT;
	return ib_create_qp(pd, &ia);
}
EXPORT_SYMBOL(kt_qp_create);

/**
 * kt_qp_to_init - RESET to INIT on port 1, P_Key index 0
 * @qp: the QP
 * @p: its access flags (RC, UC) or Q_Key (UD)
 *
 * Return: ib_modify_qp()'s.
 * Context: process context; sleeps.
 */
int kt_qp_to_init(struct ib_qp *qp, const struct kt_path *p)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = p->access, .qkey = p->qkey,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;

	mask |= qp->qp_type == IB_QPT_UD ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS;
	return ib_modify_qp(qp, &a, mask);
}
EXPORT_SYMBOL(kt_qp_to_init);

/**
 * kt_qp_to_rtr - INIT to RTR: for RC and UC towards @p's destination
 * @qp: the QP
 * @p: the path
 *
 * Return: ib_modify_qp()'s.
 * Context: process context; sleeps.
 */
int kt_qp_to_rtr(struct ib_qp *qp, const struct kt_path *p)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR, .path_mtu = p->mtu,
		.dest_qp_num = p->dest_qpn, .rq_psn = p->rq_psn,
		.max_dest_rd_atomic = p->max_dest_rd_atomic,
		.min_rnr_timer = p->min_rnr_timer,
	};
	int mask = IB_QP_STATE;

	if (qp->qp_type == IB_QPT_UD)
		return ib_modify_qp(qp, &a, mask);
	a.ah_attr.type = rdma_ah_find_type(qp->device, 1);
	rdma_ah_set_dlid(&a.ah_attr, p->dlid);
	rdma_ah_set_sl(&a.ah_attr, p->sl);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN;
	if (qp->qp_type == IB_QPT_RC)
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	return ib_modify_qp(qp, &a, mask);
}
EXPORT_SYMBOL(kt_qp_to_rtr);

/**
 * kt_qp_to_rts - RTR to RTS, with @p's send PSN and (RC) retries
 * @qp: the QP
 * @p: the path
 *
 * Return: ib_modify_qp()'s.
 * Context: process context; sleeps.
 */
int kt_qp_to_rts(struct ib_qp *qp, const struct kt_path *p)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS, .sq_psn = p->sq_psn,
		.timeout = p->timeout, .retry_cnt = p->retry_cnt,
		.rnr_retry = p->rnr_retry, .max_rd_atomic = p->max_rd_atomic,
	};
	int mask = IB_QP_STATE | IB_QP_SQ_PSN;

	if (qp->qp_type == IB_QPT_RC)
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	return ib_modify_qp(qp, &a, mask);
}
EXPORT_SYMBOL(kt_qp_to_rts);

/**
 * kt_qp_to_state - a move that takes no attribute but the state
 * @qp: the QP
 * @state: SQD, RTS from SQD, SQE, ERR or RESET
 *
 * Return: ib_modify_qp()'s.
 * Context: process context; sleeps.
 */
int kt_qp_to_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}
EXPORT_SYMBOL(kt_qp_to_state);

/**
 * kt_qp_connect - the whole ladder, RESET to RTS
 * @qp: the QP
 * @p: the path
 *
 * Return: 0, or the first failed move's error.
 * Context: process context; sleeps.
 */
int kt_qp_connect(struct ib_qp *qp, const struct kt_path *p)
{
	return kt_qp_to_init(qp, p) ?: kt_qp_to_rtr(qp, p) ?:
	       kt_qp_to_rts(qp, p);
}
EXPORT_SYMBOL(kt_qp_connect);

static void kt_cq_event(struct ib_event *ev, void *ctx)
{
	WRITE_ONCE(((struct kt_pair *)ctx)->cq_ev, ev->event);
}

/**
 * kt_pair_destroy - destroy what kt_pair_create() made
 * @p: the pair; zeroed
 *
 * Context: process context; sleeps.
 */
void kt_pair_destroy(struct kt_pair *p)
{
	if (!IS_ERR_OR_NULL(p->a))
		ib_destroy_qp(p->a);
	if (!IS_ERR_OR_NULL(p->b))
		ib_destroy_qp(p->b);
	if (!IS_ERR_OR_NULL(p->cq_a))
		ib_destroy_cq(p->cq_a);
	if (!IS_ERR_OR_NULL(p->cq_b))
		ib_destroy_cq(p->cq_b);
	memset(p, 0, sizeof(*p));
}
EXPORT_SYMBOL(kt_pair_destroy);

static struct ib_qp *kt_pair_qp(const struct kt_env *env,
				const struct kt_pair_spec *s,
				struct ib_cq *cq, struct ib_srq *srq,
				int *event)
{
	struct kt_qp_spec q = s->qp;

	q.cq = cq;
	q.srq = srq;
	q.event = event;
	return kt_qp_create(env->pd, &q);
}

/**
 * kt_pair_create - two QPs of @s's type, connected to each other
 * @env: the device
 * @p: the pair
 * @s: how
 *
 * Return: 0, or an errno with everything created so far destroyed.
 * Context: process context; sleeps.
 */
int kt_pair_create(const struct kt_env *env, struct kt_pair *p,
		   const struct kt_pair_spec *s)
{
	struct ib_cq_init_attr cq_a = { .cqe = s->cqe_a };
	struct ib_cq_init_attr cq_b = { .cqe = s->cqe_b };
	struct kt_path pa = s->path_a, pb = s->path_b;
	int ret = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->cq_ev = KT_NO_EVENT;
	p->cq_a = ib_create_cq(env->ibdev, NULL, kt_cq_event, p, &cq_a);
	p->cq_b = ib_create_cq(env->ibdev, NULL, kt_cq_event, p, &cq_b);
	if (IS_ERR(p->cq_a) || IS_ERR(p->cq_b))
		goto fail;
	p->a = kt_pair_qp(env, s, p->cq_a, NULL, &p->ev_a);
	p->b = kt_pair_qp(env, s, p->cq_b, s->srq_b, &p->ev_b);
	if (IS_ERR(p->a) || IS_ERR(p->b))
		goto fail;
	pa.dest_qpn = pa.dest_qpn ?: p->b->qp_num;
	pb.dest_qpn = p->a->qp_num;
	ret = kt_qp_connect(p->a, &pa) ?: kt_qp_to_init(p->b, &pb) ?:
	      kt_qp_to_rtr(p->b, &pb) ?:
	      (s->b_rtr ? 0 : kt_qp_to_rts(p->b, &pb));
	if (!ret)
		return 0;
fail:
	pr_err("rvt_ktest: QP pair setup failed: %d\n", ret);
	kt_pair_destroy(p);
	return ret;
}
EXPORT_SYMBOL(kt_pair_create);
