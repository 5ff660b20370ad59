// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvtsw's side of the QP contract with rdmavt.
 *
 * Each QP owns a work item that runs its send engine in process context;
 * rdmavt schedules it through schedule_send() and stops it through
 * stop_send_queue(). There is no DMA and no driver wait list, so the
 * quiesce and flush hooks have nothing to wait for.
 */
#include <linux/workqueue.h>
#include "rvtsw.h"

/* Send engines of all rvtsw QPs; unbound so a busy CPU does not stall one. */
static struct workqueue_struct *rvtsw_wq;

/*
 * The send engine. RC and UC go through rdmavt's loopback engine; UD is
 * not delivered yet and stays on the send queue.
 */
static void rvtsw_do_send(struct rvt_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		rvt_ruc_loopback(qp);
}

static void rvtsw_send_worker(struct work_struct *work)
{
	struct rvtsw_qp_priv *priv =
		container_of(work, struct rvtsw_qp_priv, send_work);

	rvtsw_do_send(priv->qp);
}

static void *rvtsw_qp_priv_alloc(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv;

	priv = kzalloc_node(sizeof(*priv), GFP_KERNEL, rdi->dparms.node);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	priv->qp = qp;
	INIT_WORK(&priv->send_work, rvtsw_send_worker);
	return priv;
}

static void rvtsw_qp_priv_free(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	kfree(qp->priv);
}

/* Called with s_lock held, possibly from a timer: must not sleep. */
static bool rvtsw_schedule_send(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	return queue_work(rvtsw_wq, &priv->send_work);
}

static void rvtsw_stop_send_queue(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	cancel_work_sync(&priv->send_work);
}

/* Nothing of rvtsw's outlives a reset, an error or a quiesce. */
static void rvtsw_qp_nop(struct rvt_qp *qp)
{
}

static void rvtsw_notify_restart_rc(struct rvt_qp *qp, u32 psn, int wait)
{
}

/* rdmavt counts and frees the QPs itself; rvtsw has none of its own. */
static unsigned int rvtsw_free_all_qps(struct rvt_dev_info *rdi)
{
	return 0;
}

static int rvtsw_get_pmtu_from_attr(struct rvt_dev_info *rdi,
				    struct rvt_qp *qp,
				    struct ib_qp_attr *attr)
{
	if (ib_mtu_enum_to_int(attr->path_mtu) < 0)
		return -EINVAL;
	return min_t(int, attr->path_mtu, RVTSW_MTU);
}

static u32 rvtsw_mtu_from_qp(struct rvt_dev_info *rdi, struct rvt_qp *qp,
			     u32 pmtu)
{
	return ib_mtu_enum_to_int(pmtu);
}

static int rvtsw_mtu_to_path_mtu(u32 mtu)
{
	return ib_mtu_int_to_enum(mtu);
}

/**
 * rvtsw_set_qp_callbacks - fill in the QP half of the driver contract
 * @f: the device's driver_f
 *
 * Context: process context, before registration.
 */
void rvtsw_set_qp_callbacks(struct rvt_driver_provided *f)
{
	f->schedule_send = rvtsw_schedule_send;
	f->schedule_send_no_lock = rvtsw_schedule_send;
	f->do_send = rvtsw_do_send;
	f->qp_priv_alloc = rvtsw_qp_priv_alloc;
	f->qp_priv_free = rvtsw_qp_priv_free;
	f->notify_qp_reset = rvtsw_qp_nop;
	f->flush_qp_waiters = rvtsw_qp_nop;
	f->stop_send_queue = rvtsw_stop_send_queue;
	f->quiesce_qp = rvtsw_qp_nop;
	f->notify_error_qp = rvtsw_qp_nop;
	f->notify_restart_rc = rvtsw_notify_restart_rc;
	f->free_all_qps = rvtsw_free_all_qps;
	f->get_pmtu_from_attr = rvtsw_get_pmtu_from_attr;
	f->mtu_from_qp = rvtsw_mtu_from_qp;
	f->mtu_to_path_mtu = rvtsw_mtu_to_path_mtu;
}

/**
 * rvtsw_qp_init - create the send engines' workqueue
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int rvtsw_qp_init(void)
{
	rvtsw_wq = alloc_workqueue(RVTSW_NAME "_send", WQ_UNBOUND, 0);
	return rvtsw_wq ? 0 : -ENOMEM;
}

/**
 * rvtsw_qp_exit - destroy the send engines' workqueue
 *
 * Context: module exit, after every device is gone.
 */
void rvtsw_qp_exit(void)
{
	destroy_workqueue(rvtsw_wq);
}
