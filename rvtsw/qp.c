// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvtsw's QPs: their send engine, and the QP half of rdmavt's driver
 * contract.
 *
 * Each QP owns a work item that runs its send engine in process context,
 * and one that runs it in softirq context (rvtsw_schedule_send(): for an
 * RC or UC QP on the wire, scheduled with bottom halves off); rdmavt
 * schedules them through schedule_send() and stops them through
 * stop_send_queue(), and quiesce_qp() waits for a run of the engine from
 * post_send. There is no DMA and no driver wait list, so the other hooks
 * have nothing to do.
 *
 * RC and UC requests to a port of the same device go through rdmavt's
 * loopback engine, rvt_ruc_loopback(), which plays both ends of the
 * connection. Datagrams (UD, GSI, SMI) go out as packets (ud.c), which
 * reach the ports of every rvtsw device. RC and UC requests to any other
 * LID have nowhere to go (see rvtsw_send_lost()).
 *
 * The engine runs from rdmavt's post_send (do_send, in the poster's
 * context, which may be atomic; and schedule_send_no_lock, for a QP on
 * the wire in a preemptible poster) and from the QP's work items. Any
 * of them may run at once: RVT_S_BUSY in s_flags, set and cleared under s_lock, lets
 * one of them work the queue at a time, as rvt_ruc_loopback() does. The
 * one that finds the queue empty clears RVT_S_BUSY in the same s_lock
 * section, so a request posted meanwhile is seen by it or by the next
 * engine, which then finds RVT_S_BUSY clear.
 *
 * The engine holds r_lock as well as s_lock (in that order) whenever it
 * holds either, and neither while it transmits: completing a request may
 * find the send CQ full, and then rdmavt's rvt_send_cq() moves the QP to
 * the error state, which flushes the receive queue and needs both.
 */
#include <linux/delay.h>
#include <linux/workqueue.h>
#include "../compat.h"
#include "rvtsw.h"
#include "wire.h"

/* Requests one engine run handles before handing over to the work item. */
#define RVTSW_SEND_BUDGET 64

/* The largest message IBTA allows. */
#define RVTSW_MAX_MSG_SIZE 0x80000000U
/* How long a reset waits on a send engine run before saying so. */
#define RVTSW_QUIESCE_REPORT (10 * HZ)

/* What the engine does with one request; returns its completion status. */
typedef enum ib_wc_status (*rvtsw_xmit_t)(struct rvt_qp *qp,
					  struct rvt_swqe *wqe);

/* Send engines of all rvtsw QPs; unbound so a busy CPU does not stall one. */
static struct workqueue_struct *rvtsw_wq;

static bool rvtsw_qp_loops_back(struct rvt_qp *qp);
static void rvtsw_do_send(struct rvt_qp *qp);

/*
 * Does @qp's send engine send packets over the wire, as an RC or UC QP
 * whose peer is not behind its own port does?
 */
static bool rvtsw_qp_on_wire(struct rvt_qp *qp)
{
	return (qp->ibqp.qp_type == IB_QPT_RC ||
		qp->ibqp.qp_type == IB_QPT_UC) && !rvtsw_qp_loops_back(qp);
}

/**
 * rvtsw_schedule_send - have a work item run the QP's send engine
 * @qp: the QP
 *
 * rdmavt's schedule_send callback. A connected QP on the wire scheduled
 * with bottom halves off (the receive worker, a packet's release,
 * rdmavt's timers, an engine run out of budget) runs from its BH work
 * item: on this CPU, as soon as bottom halves are on again, with no task
 * to wake. Its engine is scheduled there by what the other end sent
 * (ACKs that free the window or bring credits, a READ to answer), and a
 * kworker would wait for a CPU that busy-polling processes hold, up to
 * a scheduler tick. Anything else runs from the unbound work item.
 *
 * Context: any, often with s_lock held or from a timer; does not sleep.
 * Return: true if a work item was queued, false if it already was.
 */
static bool rvtsw_schedule_send(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	if (in_softirq() && !in_hardirq() && rvtsw_qp_on_wire(qp))
		return queue_work(rvt_bh_wq, &priv->send_bh_work);
	return queue_work(rvtsw_wq, &priv->send_work);
}

/**
 * rvtsw_schedule_send_no_lock - run a QP's send engine soon, no lock held
 * @qp: the QP
 *
 * rdmavt's schedule_send_no_lock callback: post_send calls it when
 * requests were already queued. A connected QP on the wire in a
 * preemptible task runs its engine at once, in the poster's context, as
 * post_send's do_send does, instead of waking a kworker for it (see
 * rvtsw_schedule_send()); RVT_S_BUSY lets one run work the queue.
 *
 * Context: any; no QP lock held; does not sleep.
 * Return: true.
 */
static bool rvtsw_schedule_send_no_lock(struct rvt_qp *qp)
{
	if (preemptible() && rvtsw_qp_on_wire(qp))
		rvtsw_do_send(qp);
	else
		rvtsw_schedule_send(qp);
	return true;
}

/* Take the send queue for this engine run, if nobody else has it. */
static bool rvtsw_claim_sq(struct rvt_qp *qp)
	__must_hold(&qp->s_lock)
{
	if (qp->s_flags & (RVT_S_BUSY | RVT_S_ANY_WAIT))
		return false;
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	qp->s_flags |= RVT_S_BUSY;
	return true;
}

/* In an error state: complete the oldest request with a flush error. */
static bool rvtsw_flush_one(struct rvt_qp *qp)
	__must_hold(&qp->s_lock)
{
	if (!(ib_rvt_state_ops[qp->state] & RVT_FLUSH_SEND) ||
	    qp->s_last == READ_ONCE(qp->s_head))
		return false;
	rvt_send_complete(qp, rvt_get_swqe_ptr(qp, qp->s_last),
			  IB_WC_WR_FLUSH_ERR);
	return true;
}

/*
 * A connected request failed: the QP goes to the error state, as an RC
 * requester does when its retries run out. rvt_rc_error() takes s_lock
 * itself, under the r_lock the engine holds.
 */
static void rvtsw_sq_error(struct rvt_qp *qp)
	__must_hold(&qp->r_lock) __must_hold(&qp->s_lock)
{
	spin_unlock(&qp->s_lock);
	rvt_rc_error(qp, IB_WC_WR_FLUSH_ERR);
	spin_lock(&qp->s_lock);
}

/*
 * Handle the next request: transmit it with the engine's locks dropped,
 * then complete it. Return: false when there is nothing (more) to do.
 */
static bool rvtsw_sq_step(struct rvt_qp *qp, rvtsw_xmit_t xmit,
			  unsigned long *flags)
	__must_hold(&qp->r_lock) __must_hold(&qp->s_lock)
{
	enum ib_wc_status status;
	struct rvt_swqe *wqe;

	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_NEXT_SEND_OK))
		return rvtsw_flush_one(qp);
	/* Pairs with the barrier before rvt_post_send() advances s_head. */
	if (qp->s_cur == smp_load_acquire(&qp->s_head))
		return false;
	/* Too many of its packets on their way: one's release calls again. */
	if (!rvtsw_tx_room(qp))
		return false;

	wqe = rvt_get_swqe_ptr(qp, qp->s_cur);
	if (++qp->s_cur >= qp->s_size)
		qp->s_cur = 0;
	/* RVT_S_BUSY keeps the request ours; posters need only s_hlock. */
	rvtsw_qp_unlock(qp, *flags);
	status = xmit(qp, wqe);
	rvtsw_qp_lock(qp, flags);

	/* A reset meanwhile discards the request without a completion. */
	if (!(ib_rvt_state_ops[qp->state] & RVT_PROCESS_OR_FLUSH_SEND))
		return false;
	rvt_send_complete(qp, wqe, status);
	if (status != IB_WC_SUCCESS)
		rvtsw_sq_error(qp);
	return true;
}

/*
 * Work the send queue with @xmit until it is empty, or hand the rest to
 * the work item after RVTSW_SEND_BUDGET requests.
 */
static void rvtsw_run_sq(struct rvt_qp *qp, rvtsw_xmit_t xmit)
{
	unsigned int budget = RVTSW_SEND_BUDGET;
	unsigned long flags;

	rvtsw_qp_lock(qp, &flags);
	if (!rvtsw_claim_sq(qp))
		goto unlock;
	while (rvtsw_sq_step(qp, xmit, &flags)) {
		if (--budget == 0) {
			rvtsw_schedule_send(qp);
			break;
		}
	}
	qp->s_flags &= ~RVT_S_BUSY;
unlock:
	rvtsw_qp_unlock(qp, flags);
}

/*
 * Does a connected QP's peer sit behind its own port, so that rdmavt's
 * loopback engine can play both ends (as qib's and hfi1's do)? Not with
 * wire_all, and not while the port is not ACTIVE: the packet engine
 * then finds its packets dropped, and retries.
 */
static bool rvtsw_qp_loops_back(struct rvt_qp *qp)
{
	struct rvtsw_port *port = rvtsw_qp_port(qp);

	return !rvtsw_wire_all() && rvtsw_port_active(port) &&
	       rvtsw_port_owns_lid(port,
				   rdma_ah_get_dlid(&qp->remote_ah_attr));
}

/*
 * Run a send engine that sends packets. Each packet that reaches a port
 * of this host queues that port's receive work on this CPU's BH
 * workqueue (wire_rx.c), which raises a softirq; raised from a task, a
 * softirq wakes ksoftirqd, and the packets wait for it to be scheduled
 * on this CPU, where the receive work runs anyway. In a preemptible
 * task (a work item, a verbs call) the engine runs with bottom halves
 * off instead: turning them back on runs the receive work at once, for
 * everything the run sent, in this context. Anywhere else (bottom
 * halves or interrupts already off, an atomic poster) it runs as it is.
 */
static void rvtsw_send_packets(struct rvt_qp *qp,
			       void (*engine)(struct rvt_qp *qp))
{
	bool bh_off = preemptible();

	if (bh_off)
		local_bh_disable();
	engine(qp);
	if (bh_off)
		local_bh_enable();
}

/* The datagram send engine, as rvtsw_send_packets() runs it. */
static void rvtsw_ud_engine(struct rvt_qp *qp)
{
	rvtsw_run_sq(qp, rvtsw_ud_send);
}

/**
 * rvtsw_do_send - run a QP's send engine
 * @qp: the QP
 *
 * rdmavt's do_send callback, and the body of the QP's work item.
 *
 * Context: any; takes the QP's locks with interrupts saved; no lock held.
 */
static void rvtsw_do_send(struct rvt_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
		if (rvtsw_qp_loops_back(qp))
			rvt_ruc_loopback(qp);
		else
			rvtsw_send_packets(qp, rvtsw_wire_send);
		break;
	default:
		rvtsw_send_packets(qp, rvtsw_ud_engine);
		break;
	}
}

static bool rvtsw_send_busy(struct rvt_qp *qp)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&qp->s_lock, flags);
	busy = qp->s_flags & RVT_S_BUSY;
	spin_unlock_irqrestore(&qp->s_lock, flags);
	return busy;
}

/**
 * rvtsw_quiesce_send - wait until no send engine run can touch a QP
 * @qp: the QP, just moved to RESET
 *
 * rdmavt's quiesce_qp callback, called after stop_send_queue() and after
 * the QP's timers are gone. A timer that fired between those two steps
 * may have queued the work item again, so it is cancelled once more here,
 * now that nothing can queue it. A run from post_send may still be
 * transmitting a request that the reset is about to release: runs see
 * the new state at their next step and stop, and no new run starts.
 *
 * Context: process context, no QP lock held; sleeps.
 */
static void rvtsw_quiesce_send(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;
	unsigned long report = jiffies + RVTSW_QUIESCE_REPORT;
	bool reported = false;

	cancel_work_sync(&priv->send_work);
	cancel_work_sync(&priv->send_bh_work);
	while (rvtsw_send_busy(qp)) {
		/*
		 * A run ends within one request; one that does not is a bug
		 * this wait would hide (the hung-task detector never sees a
		 * task that keeps waking), so say which QP, once.
		 */
		if (!reported && time_after(jiffies, report)) {
			ibdev_err(qp->ibqp.device,
				  "QP %u: send engine still running %d s after reset (s_flags %#x)\n",
				  qp->ibqp.qp_num, RVTSW_QUIESCE_REPORT / HZ,
				  READ_ONCE(qp->s_flags));
			reported = true;
		}
		usleep_range(10, 50);
	}
}

/**
 * rvtsw_setup_wqe - check a send request as rdmavt posts it
 * @qp: the QP
 * @wqe: the request, filled in
 * @call_send: whether rdmavt will run the engine from post_send; kept
 *
 * A datagram must fit the path MTU, as on a wire; an RC or UC message
 * must not exceed IBTA's 2^31 bytes.
 *
 * Context: post_send, s_hlock held.
 * Return: 0, or -EINVAL to fail the post.
 */
static int rvtsw_setup_wqe(struct rvt_qp *qp, struct rvt_swqe *wqe,
			   bool *call_send)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
	case IB_QPT_SMI:
		if (wqe->length > 1U << rvt_get_swqe_ah(wqe)->log_pmtu)
			return -EINVAL;
		break;
	default:
		if (wqe->length > RVTSW_MAX_MSG_SIZE)
			return -EINVAL;
		break;
	}
	return 0;
}

static void rvtsw_send_worker(struct work_struct *work)
{
	struct rvtsw_qp_priv *priv =
		container_of(work, struct rvtsw_qp_priv, send_work);

	rvtsw_do_send(priv->qp);
}

static void rvtsw_send_bh_worker(struct work_struct *work)
{
	struct rvtsw_qp_priv *priv =
		container_of(work, struct rvtsw_qp_priv, send_bh_work);

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
	INIT_WORK(&priv->send_bh_work, rvtsw_send_bh_worker);
	return priv;
}

/*
 * The QP's last packet released its charge before rdmavt let the QP go
 * (each holds a reference), but may have scheduled the work item after
 * the reset cancelled it.
 */
static void rvtsw_qp_priv_free(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	cancel_work_sync(&priv->send_work);
	cancel_work_sync(&priv->send_bh_work);
	kfree(priv);
}

static void rvtsw_stop_send_queue(struct rvt_qp *qp)
{
	struct rvtsw_qp_priv *priv = qp->priv;

	cancel_work_sync(&priv->send_work);
	cancel_work_sync(&priv->send_bh_work);
}

/* Nothing of rvtsw's outlives an error, nor waits on a list of rvtsw's. */
static void rvtsw_qp_nop(struct rvt_qp *qp)
{
}

/*
 * A reset QP starts afresh: no request resumes, no response is being
 * sent, and the ACK queue holds no entry a duplicate could match
 * (rdmavt dropped their MR references already).
 */
static void rvtsw_notify_qp_reset(struct rvt_qp *qp)
{
	struct rvt_dev_info *rdi = ib_to_rvt(qp->ibqp.device);
	struct rvtsw_qp_priv *priv = qp->priv;

	priv->s_resume = false;
	qp->s_rdma_ack_cnt = 0;
	if (qp->s_ack_queue)
		memset(qp->s_ack_queue, 0,
		       rvt_max_atomic(rdi) * sizeof(*qp->s_ack_queue));
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
	f->schedule_send_no_lock = rvtsw_schedule_send_no_lock;
	f->do_send = rvtsw_do_send;
	f->setup_wqe = rvtsw_setup_wqe;
	f->qp_priv_alloc = rvtsw_qp_priv_alloc;
	f->qp_priv_free = rvtsw_qp_priv_free;
	f->notify_qp_reset = rvtsw_notify_qp_reset;
	f->flush_qp_waiters = rvtsw_qp_nop;
	f->stop_send_queue = rvtsw_stop_send_queue;
	f->quiesce_qp = rvtsw_quiesce_send;
	f->notify_error_qp = rvtsw_qp_nop;
	f->notify_restart_rc = rvtsw_rc_restart;
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
