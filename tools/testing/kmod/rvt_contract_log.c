// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_contract's log: one line per event, "<step>|<text>", kept in a
 * buffer that debugfs shows as /sys/kernel/debug/rvt_contract/log. The
 * running script's state (ct), whose steps the lines are logged under, is
 * here too, below every other file of the module.
 *
 * Callbacks run in any context, hard interrupts included (rdmavt's RNR
 * timer is an hrtimer), so the buffer is guarded by a spinlock taken with
 * interrupts off and nothing here sleeps.
 *
 * After each step ct_snap() logs what a driver reads of rdmavt's
 * structures, each section only when it differs from the last time it was
 * logged: the device's counters and QP tables, every port, every QP.
 */
#include <linux/debugfs.h>
#include <linux/jhash.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>
#include "rvt_contract.h"

#define CT_LOG_SIZE (8 * 1024 * 1024)
#define CT_LINE 1024
/* Snapshot sections are built in static buffers: only the script snaps. */
#define CT_SNAP_LEN 4096

/* The running script, whose steps every line is logged under. */
struct ct_state ct;

/**
 * ct_port - a port of the current round's device
 * @port_num: 1-based
 *
 * Context: any, during a round.
 * Return: the port.
 */
struct ct_port *ct_port(u32 port_num)
{
	return &ct.dev->port[port_num - 1];
}

/**
 * ct_ibdev - the current round's ib_device
 *
 * Context: any, during a round.
 * Return: the device.
 */
struct ib_device *ct_ibdev(void)
{
	return &ct.dev->rdi.ibdev;
}

/**
 * ct_nports - how many ports the current round's device has
 *
 * Context: any, during a round.
 * Return: 1 (hfi1) or 2 (qib).
 */
u32 ct_nports(void)
{
	return ct.dev->rdi.dparms.nports;
}

/**
 * ct_port_lid - the base LID of a port of the current round's device
 * @port_num: 1-based
 *
 * Context: any, during a round.
 * Return: the LID.
 */
u32 ct_port_lid(u32 port_num)
{
	return CT_BASE_LID + port_num - 1;
}

/* Guards ct_log_buf/ct_log_len; any context. */
static DEFINE_SPINLOCK(ct_log_lock);
static char *ct_log_buf;
static size_t ct_log_len;
static bool ct_log_full;
static struct debugfs_blob_wrapper ct_log_blob;
static struct dentry *ct_debugfs;

/* Hashes of the device and port sections last logged (QPs keep theirs). */
static u32 ct_dev_hash;
static u32 ct_port_hash[CT_MAX_PORTS];

static const char * const ct_cb_names[CB_MAX] = {
	[CB_SCHEDULE_SEND] = "schedule_send",
	[CB_SCHEDULE_SEND_NO_LOCK] = "schedule_send_no_lock",
	[CB_SETUP_WQE] = "setup_wqe",
	[CB_DO_SEND] = "do_send",
	[CB_GET_PCI_DEV] = "get_pci_dev",
	[CB_QP_PRIV_ALLOC] = "qp_priv_alloc",
	[CB_QP_PRIV_INIT] = "qp_priv_init",
	[CB_QP_PRIV_FREE] = "qp_priv_free",
	[CB_NOTIFY_QP_RESET] = "notify_qp_reset",
	[CB_GET_PMTU_FROM_ATTR] = "get_pmtu_from_attr",
	[CB_FLUSH_QP_WAITERS] = "flush_qp_waiters",
	[CB_STOP_SEND_QUEUE] = "stop_send_queue",
	[CB_QUIESCE_QP] = "quiesce_qp",
	[CB_NOTIFY_ERROR_QP] = "notify_error_qp",
	[CB_MTU_FROM_QP] = "mtu_from_qp",
	[CB_MTU_TO_PATH_MTU] = "mtu_to_path_mtu",
	[CB_GET_GUID_BE] = "get_guid_be",
	[CB_QUERY_PORT_STATE] = "query_port_state",
	[CB_SHUT_DOWN_PORT] = "shut_down_port",
	[CB_CAP_MASK_CHG] = "cap_mask_chg",
	[CB_FREE_ALL_QPS] = "free_all_qps",
	[CB_CHECK_AH] = "check_ah",
	[CB_NOTIFY_NEW_AH] = "notify_new_ah",
	[CB_ALLOC_QPN] = "alloc_qpn",
	[CB_CHECK_MODIFY_QP] = "check_modify_qp",
	[CB_MODIFY_QP] = "modify_qp",
	[CB_NOTIFY_CREATE_MAD_AGENT] = "notify_create_mad_agent",
	[CB_NOTIFY_FREE_MAD_AGENT] = "notify_free_mad_agent",
	[CB_NOTIFY_RESTART_RC] = "notify_restart_rc",
	[CB_COMP_VECT_CPU_LOOKUP] = "comp_vect_cpu_lookup",
};

static const char * const ct_ex_names[EX_MAX] = {
	[EX_ALLOC_DEVICE] = "rvt_alloc_device",
	[EX_DEALLOC_DEVICE] = "rvt_dealloc_device",
	[EX_REGISTER_DEVICE] = "rvt_register_device",
	[EX_UNREGISTER_DEVICE] = "rvt_unregister_device",
	[EX_INIT_PORT] = "rvt_init_port",
	[EX_CHECK_AH] = "rvt_check_ah",
	[EX_CQ_ENTER] = "rvt_cq_enter",
	[EX_FAST_REG_MR] = "rvt_fast_reg_mr",
	[EX_INVALIDATE_RKEY] = "rvt_invalidate_rkey",
	[EX_LKEY_OK] = "rvt_lkey_ok",
	[EX_RKEY_OK] = "rvt_rkey_ok",
	[EX_STATE_OPS] = "ib_rvt_state_ops",
	[EX_ERROR_QP] = "rvt_error_qp",
	[EX_GET_RWQE] = "rvt_get_rwqe",
	[EX_COMM_EST] = "rvt_comm_est",
	[EX_RC_ERROR] = "rvt_rc_error",
	[EX_RNR_TBL_TO_USEC] = "rvt_rnr_tbl_to_usec",
	[EX_ADD_RETRY_TIMER_EXT] = "rvt_add_retry_timer_ext",
	[EX_ADD_RNR_TIMER] = "rvt_add_rnr_timer",
	[EX_STOP_RC_TIMERS] = "rvt_stop_rc_timers",
	[EX_DEL_TIMERS_SYNC] = "rvt_del_timers_sync",
	[EX_RC_RNR_RETRY] = "rvt_rc_rnr_retry",
	[EX_QP_ITER_INIT] = "rvt_qp_iter_init",
	[EX_QP_ITER_NEXT] = "rvt_qp_iter_next",
	[EX_QP_ITER] = "rvt_qp_iter",
	[EX_SEND_COMPLETE] = "rvt_send_complete",
	[EX_COPY_SGE] = "rvt_copy_sge",
	[EX_RUC_LOOPBACK] = "rvt_ruc_loopback",
	[EX_MCAST_FIND] = "rvt_mcast_find",
	[EX_COMPUTE_AETH] = "rvt_compute_aeth",
	[EX_GET_CREDIT] = "rvt_get_credit",
	[EX_RESTART_SGE] = "rvt_restart_sge",
};

const char *ct_cb_name(enum ct_cb cb)
{
	return ct_cb_names[cb];
}

const char *ct_ex_name(enum ct_export ex)
{
	return ct_ex_names[ex];
}

/* Append "<step>|<head><text>\n"; takes ct_log_lock, any context. */
static void ct_append(const char *head, const char *text)
{
	unsigned long flags;
	size_t room;

	spin_lock_irqsave(&ct_log_lock, flags);
	if (!ct_log_buf || ct_log_full)
		goto out;
	room = CT_LOG_SIZE - ct_log_len;
	if (strlen(ct.step) + strlen(head) + strlen(text) + 64 > room) {
		ct_log_len += scnprintf(ct_log_buf + ct_log_len, room,
					"-|log full\n");
		ct_log_full = true;
		goto out;
	}
	ct_log_len += scnprintf(ct_log_buf + ct_log_len, room, "%s|%s%s\n",
				ct.step[0] ? ct.step : "-", head, text);
out:
	ct_log_blob.size = ct_log_len;
	spin_unlock_irqrestore(&ct_log_lock, flags);
}

/**
 * ct_log - log a line in the current step
 * @fmt: printf format
 *
 * Context: any.
 */
void ct_log(const char *fmt, ...)
{
	char line[CT_LINE];
	va_list args;

	va_start(args, fmt);
	vscnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	ct_append("", line);
}

/**
 * ct_step - start a step: what follows is logged under its name
 * @fmt: printf format of the name; names are unique within a round, and
 *	 the round's name comes first
 *
 * Context: the script.
 */
void ct_step(const char *fmt, ...)
{
	va_list args;
	int n;

	n = scnprintf(ct.step, sizeof(ct.step), "%s%s", ct.round,
		      ct.round[0] ? "." : "");
	va_start(args, fmt);
	vscnprintf(ct.step + n, sizeof(ct.step) - n, fmt, args);
	va_end(args);
	ct_append("", "begin");
}

/**
 * ct_ex - note that the script called one of rdmavt's exports
 * @ex: which
 *
 * Context: any.
 */
void ct_ex(enum ct_export ex)
{
	set_bit(ex, ct.ex_hits);
}

/**
 * ct_label - the log's name of a QP
 * @qp: the QP, or NULL
 *
 * Context: any.
 * Return: its label; "-" for NULL, "?" for a QP without our private part.
 */
const char *ct_label(struct rvt_qp *qp)
{
	struct ct_qp *priv;

	if (!qp)
		return "-";
	priv = qp->priv;
	return priv ? priv->label : "?";
}

/**
 * ct_ibqp_label - ct_label() for an ib_qp
 * @ibqp: the QP, or NULL
 *
 * Context: any.
 * Return: its label.
 */
const char *ct_ibqp_label(struct ib_qp *ibqp)
{
	return ibqp ? ct_label(ibqp_to_rvtqp(ibqp)) : "-";
}

/*
 * Is @lock held, by anyone? Callbacks run while the script or rdmavt's
 * timers are the only actors on a QP, so "anyone" is the caller. Not a
 * lock assertion: the log records what rdmavt holds, right or wrong.
 */
static const char *ct_locked(spinlock_t *lock, const char *name)
{
	return raw_spin_is_locked(&lock->rlock) ? name : "-";
}

/**
 * ct_cb_context - where a callback runs, and which of its QP's locks are
 *		   held
 * @buf: where to write it, "[where atomic irqsoff locks=rhs]"
 * @len: its size
 * @qp: the QP, or NULL
 *
 * Context: any; read before the callback takes locks of its own.
 */
void ct_cb_context(char *buf, size_t len, struct rvt_qp *qp)
{
	const char *where;

	if (in_hardirq())
		where = "hardirq";
	else if (in_serving_softirq())
		where = "softirq";
	else if (current == ct.script)
		where = "script";
	else
		where = "task";
	/* preempt_count(): in_atomic(), which checkpatch keeps for the core. */
	scnprintf(buf, len, "[%s%s%s%s%s%s%s]", where,
		  preempt_count() ? " atomic" : "",
		  irqs_disabled() ? " irqsoff" : "",
		  qp ? " locks=" : "",
		  qp ? ct_locked(&qp->r_lock, "r") : "",
		  qp ? ct_locked(&qp->s_hlock, "h") : "",
		  qp ? ct_locked(&qp->s_lock, "s") : "");
}

static __printf(4, 0) void ct_vcb(enum ct_cb cb, struct rvt_qp *qp,
				   const char *where, const char *fmt,
				   va_list va)
{
	char args[CT_LINE / 2];

	set_bit(cb, ct.cb_hits);
	vscnprintf(args, sizeof(args), fmt, va);
	ct_log("cb %s%s%s %s %s", ct_cb_names[cb], qp ? " qp=" : "",
	       qp ? ct_label(qp) : "", args, where);
}

/**
 * ct_cb - log a callback from rdmavt into the driver
 * @cb: which
 * @qp: the QP it concerns, or NULL
 * @fmt: printf format of its arguments
 *
 * Context: any.
 */
void ct_cb(enum ct_cb cb, struct rvt_qp *qp, const char *fmt, ...)
{
	char where[64];
	va_list va;

	ct_cb_context(where, sizeof(where), qp);
	va_start(va, fmt);
	ct_vcb(cb, qp, where, fmt, va);
	va_end(va);
}

/**
 * ct_cb_at - log a callback whose context was read earlier
 * @cb: which
 * @qp: the QP it concerns, or NULL
 * @where: ct_cb_context()'s, read on entry to the callback
 * @fmt: printf format of its arguments
 *
 * For a callback that logs under a lock of its own, which must not show
 * as rdmavt's context.
 *
 * Context: any.
 */
void ct_cb_at(enum ct_cb cb, struct rvt_qp *qp, const char *where,
	      const char *fmt, ...)
{
	va_list va;

	va_start(va, fmt);
	ct_vcb(cb, qp, where, fmt, va);
	va_end(va);
}

const char *ct_status(enum ib_wc_status status)
{
	return ib_wc_status_msg(status);
}

const char *ct_state_name(int state)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	if (state < 0 || state >= ARRAY_SIZE(names))
		return "BAD";
	return names[state];
}

static const char *ct_type_name(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_SMI: return "SMI";
	case IB_QPT_GSI: return "GSI";
	case IB_QPT_RC: return "RC";
	case IB_QPT_UC: return "UC";
	case IB_QPT_UD: return "UD";
	default: return "other";
	}
}

/* Log @text as section @what if its hash differs from *@hash. */
static void ct_log_if_changed(const char *what, const char *text, u32 *hash)
{
	u32 h = jhash(text, strlen(text), 0);

	if (h == *hash)
		return;
	*hash = h;
	ct_append(what, text);
}

static size_t ct_ah_text(char *buf, size_t len, struct rdma_ah_attr *ah)
{
	return scnprintf(buf, len, "(dlid=%#x sl=%u port=%u rate=%u bits=%u grh=%u)",
			 rdma_ah_get_dlid(ah), rdma_ah_get_sl(ah),
			 rdma_ah_get_port_num(ah),
			 rdma_ah_get_static_rate(ah),
			 rdma_ah_get_path_bits(ah),
			 !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH));
}

static u32 ct_rq_count(struct rvt_qp *qp)
{
	struct rvt_krwq *kwq = qp->r_rq.kwq;

	if (qp->ibqp.srq || !kwq)
		return 0;
	return rvt_get_rq_count(&qp->r_rq, kwq->head, kwq->tail);
}

/* The send side of a QP as drivers read it. */
static size_t ct_qp_send_text(char *buf, size_t len, struct rvt_qp *qp)
{
	return scnprintf(buf, len,
			 "s_state=%u s_flags=%#x s_head=%u s_tail=%u s_cur=%u s_acked=%u s_last=%u s_avail=%u s_size=%u s_max_sge=%u s_ssn=%u s_lsn=%#x s_psn=%#x s_next_psn=%#x s_last_psn=%#x s_sending=%#x-%#x s_retry=%u/%u s_rnr_retry=%u/%u s_num_rd_atomic=%u s_draining=%u s_tail_ack=%u s_acked_ack=%u s_max_rd_atomic=%u timeout=%u/%lu reserved=%d local_ops=%d timer=%d rnr_timer=%d ",
			 qp->s_state, qp->s_flags, qp->s_head, qp->s_tail,
			 qp->s_cur, qp->s_acked, qp->s_last, qp->s_avail,
			 qp->s_size, qp->s_max_sge, qp->s_ssn, qp->s_lsn,
			 qp->s_psn, qp->s_next_psn, qp->s_last_psn,
			 qp->s_sending_psn, qp->s_sending_hpsn, qp->s_retry,
			 qp->s_retry_cnt, qp->s_rnr_retry, qp->s_rnr_retry_cnt,
			 qp->s_num_rd_atomic, qp->s_draining,
			 qp->s_tail_ack_queue, qp->s_acked_ack_queue,
			 qp->s_max_rd_atomic, qp->timeout, qp->timeout_jiffies,
			 atomic_read(&qp->s_reserved_used),
			 atomic_read(&qp->local_ops_pending),
			 timer_pending(&qp->s_timer),
			 hrtimer_active(&qp->s_rnr_timer));
}

/* The receive side and the rest. */
static size_t ct_qp_recv_text(char *buf, size_t len, struct rvt_qp *qp)
{
	size_t n;

	n = scnprintf(buf, len,
		      "r_state=%u r_flags=%#x r_aflags=%#lx r_psn=%#x r_msn=%#x r_nak_state=%u r_head_ack=%u r_max_rd_atomic=%u r_min_rnr_timer=%u r_len=%u rq=%u/%u/%u pmtu=%u/%u remote_qpn=%#x qkey=%#x pkey=%u/%u mig=%u access=%#x srate=%u allowed_ops=%#x ref=%d ah=",
		      qp->r_state, qp->r_flags, qp->r_aflags, qp->r_psn,
		      qp->r_msn, qp->r_nak_state, qp->r_head_ack_queue,
		      qp->r_max_rd_atomic, qp->r_min_rnr_timer, qp->r_len,
		      ct_rq_count(qp), qp->r_rq.size, qp->r_rq.max_sge,
		      qp->pmtu, qp->log_pmtu, qp->remote_qpn, qp->qkey,
		      qp->s_pkey_index, qp->s_alt_pkey_index, qp->s_mig_state,
		      qp->qp_access_flags, qp->s_srate, qp->allowed_ops,
		      atomic_read(&qp->refcount));
	n += ct_ah_text(buf + n, len - n, &qp->remote_ah_attr);
	n += scnprintf(buf + n, len - n, " alt=");
	n += ct_ah_text(buf + n, len - n, &qp->alt_ah_attr);
	return n;
}

static void ct_snap_qp(struct ct_qp *priv)
{
	struct rvt_qp *qp = priv->qp;
	static char text[CT_SNAP_LEN];
	char what[CT_LABEL_LEN + 16];
	size_t n;

	n = scnprintf(text, sizeof(text), "qpn=%#x type=%s port=%u state=%s ",
		      qp->ibqp.qp_num, ct_type_name(qp->ibqp.qp_type),
		      qp->port_num, ct_state_name(qp->state));
	n += ct_qp_send_text(text + n, sizeof(text) - n, qp);
	ct_qp_recv_text(text + n, sizeof(text) - n, qp);
	scnprintf(what, sizeof(what), "snap qp %s ", priv->label);
	ct_log_if_changed(what, text, &priv->snap_hash);
}

static const char *ct_special_label(struct rvt_ibport *rvp, int n)
{
	struct rvt_qp *qp = rcu_dereference(rvp->qp[n]);

	return ct_label(qp);
}

/* A port's multicast groups: "lid:gid-tail:attached:refs:qps". */
static size_t ct_mcast_text(char *buf, size_t len, struct rvt_ibport *rvp)
{
	struct rb_node *node;
	unsigned long flags;
	size_t n = 0;

	spin_lock_irqsave(&rvp->lock, flags);
	for (node = rb_first(&rvp->mcast_tree); node; node = rb_next(node)) {
		struct rvt_mcast *mc = rb_entry(node, struct rvt_mcast,
						rb_node);
		struct rvt_mcast_qp *p;

		n += scnprintf(buf + n, len - n, " %#x:%08x:%d:%d:",
			       mc->mcast_addr.lid,
			       get_unaligned_be32(&mc->mcast_addr.mgid.raw[12]),
			       mc->n_attached, atomic_read(&mc->refcount));
		list_for_each_entry_rcu(p, &mc->qp_list, list)
			n += scnprintf(buf + n, len - n, "%s,",
				       ct_label(p->qp));
	}
	spin_unlock_irqrestore(&rvp->lock, flags);
	return n;
}

static void ct_snap_port(struct ct_dev *dev, int i)
{
	struct rvt_ibport *rvp = &dev->port[i].rvp;
	static char text[CT_SNAP_LEN];
	char what[24];
	size_t n;

	rcu_read_lock();
	n = scnprintf(text, sizeof(text),
		      "lid=%#x sm_lid=%#x cap=%#x agent=%s sm_ah=%s qp0=%s qp1=%s viol=%u/%u/%u resends=%llu seq_naks=%llu rdma_seq=%llu rnr_naks=%llu other_naks=%llu loop=%llu drops=%llu vl15=%llu timeouts=%llu dmawait=%llu unaligned=%llu dupreq=%llu seqnak=%llu crwaits=%llu mcast=",
		      dev->port[i].lid, rvp->sm_lid, rvp->port_cap_flags,
		      rvp->send_agent ? "set" : "none",
		      rvp->sm_ah ? "set" : "none",
		      ct_special_label(rvp, 0), ct_special_label(rvp, 1),
		      rvp->pkey_violations, rvp->qkey_violations,
		      rvp->mkey_violations, rvp->n_rc_resends,
		      rvp->n_seq_naks, rvp->n_rdma_seq, rvp->n_rnr_naks,
		      rvp->n_other_naks, rvp->n_loop_pkts, rvp->n_pkt_drops,
		      rvp->n_vl15_dropped, rvp->n_rc_timeouts, rvp->n_dmawait,
		      rvp->n_unaligned, rvp->n_rc_dupreq, rvp->n_rc_seqnak,
		      rvp->n_rc_crwaits);
	ct_mcast_text(text + n, sizeof(text) - n, rvp);
	rcu_read_unlock();
	scnprintf(what, sizeof(what), "snap port%d ", i + 1);
	ct_log_if_changed(what, text, &ct_port_hash[i]);
}

/* The QP hash table, bucket by bucket: "b<index>:<labels>". */
static size_t ct_table_text(char *buf, size_t len, struct rvt_qp_ibdev *qpd)
{
	size_t n = 0;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < qpd->qp_table_size && n < len - 64; i++) {
		struct rvt_qp *qp = rcu_dereference(qpd->qp_table[i]);

		if (!qp)
			continue;
		n += scnprintf(buf + n, len - n, " b%u:", i);
		for (; qp; qp = rcu_dereference(qp->next))
			n += scnprintf(buf + n, len - n, "%s,", ct_label(qp));
	}
	rcu_read_unlock();
	return n;
}

static void ct_snap_dev(struct ct_dev *dev)
{
	struct rvt_dev_info *rdi = &dev->rdi;
	struct rvt_qp_ibdev *qpd = rdi->qp_dev;
	static char text[CT_SNAP_LEN];
	size_t n;

	n = scnprintf(text, sizeof(text),
		      "pds=%d ahs=%d srqs=%u qps=%u rc_qps=%u busy_jiffies=%u cqs=%u mcast=%u dma_mr=%s",
		      rdi->n_pds_allocated, rdi->n_ahs_allocated,
		      rdi->n_srqs_allocated, rdi->n_qps_allocated,
		      rdi->n_rc_qps, rdi->busy_jiffies, rdi->n_cqs_allocated,
		      rdi->n_mcast_grps_allocated,
		      rcu_access_pointer(rdi->dma_mr) ? "set" : "none");
	if (qpd) {
		struct rvt_qpn_table *qpt = &qpd->qpn_table;

		n += scnprintf(text + n, sizeof(text) - n,
			       " table=%u/%u qpn(flags=%#x last=%#x nmaps=%u incr=%u)",
			       qpd->qp_table_size, qpd->qp_table_bits,
			       qpt->flags, qpt->last, qpt->nmaps, qpt->incr);
		ct_table_text(text + n, sizeof(text) - n, qpd);
	}
	ct_log_if_changed("snap dev ", text, &ct_dev_hash);
}

/**
 * ct_snap - log what changed, for a driver's eyes, since the last snapshot
 *
 * Context: the script, at a quiet point (no send engine running, no timer
 * armed that matters).
 */
void ct_snap(void)
{
	struct ct_dev *dev = ct.dev;
	struct ct_qp *priv;
	unsigned long flags;
	int i;

	if (!dev)
		return;
	ct_snap_dev(dev);
	for (i = 0; i < dev->rdi.dparms.nports; i++)
		ct_snap_port(dev, i);
	spin_lock_irqsave(&dev->qps_lock, flags);
	list_for_each_entry(priv, &dev->qps, all)
		ct_snap_qp(priv);
	spin_unlock_irqrestore(&dev->qps_lock, flags);
}

/**
 * ct_snap_reset - make the next snapshot log every section
 *
 * Context: the script.
 */
void ct_snap_reset(void)
{
	ct_dev_hash = 0;
	memset(ct_port_hash, 0, sizeof(ct_port_hash));
}

/**
 * ct_selfcheck - log the callbacks and exports the run never reached
 * @personality: the personality's name, for the log
 *
 * The suite reads these lines: a callback the personality sets that no
 * step reached, or an export the script never called, fails it.
 *
 * Context: the script, after the last round.
 */
void ct_selfcheck(const char *personality)
{
	static char line[CT_LINE];
	size_t n = 0;
	int i;

	ct.round[0] = '\0';
	strscpy(ct.step, "selfcheck", sizeof(ct.step));
	for (i = 0; i < CB_MAX; i++)
		if (test_bit(i, ct.cb_set) && !test_bit(i, ct.cb_hits))
			n += scnprintf(line + n, sizeof(line) - n, " %s",
				       ct_cb_names[i]);
	ct_log("callbacks-set-not-called %s:%s", personality, n ? line : " none");
	n = 0;
	for (i = 0; i < EX_MAX; i++)
		if (!test_bit(i, ct.ex_hits))
			n += scnprintf(line + n, sizeof(line) - n, " %s",
				       ct_ex_names[i]);
	ct_log("exports-not-called %s:%s", personality, n ? line : " none");
	n = 0;
	for (i = 0; i < CB_MAX; i++)
		if (test_bit(i, ct.cb_set))
			n += scnprintf(line + n, sizeof(line) - n, " %s",
				       ct_cb_names[i]);
	ct_log("callbacks-set %s:%s", personality, line);
}

/**
 * ct_log_init - allocate the log and show it in debugfs
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int ct_log_init(void)
{
	ct_log_buf = vzalloc(CT_LOG_SIZE);
	if (!ct_log_buf)
		return -ENOMEM;
	ct_log_blob.data = ct_log_buf;
	ct_log_blob.size = 0;
	ct_debugfs = debugfs_create_dir("rvt_contract", NULL);
	debugfs_create_blob("log", 0444, ct_debugfs, &ct_log_blob);
	return 0;
}

/**
 * ct_log_exit - remove the log
 *
 * Context: module exit.
 */
void ct_log_exit(void)
{
	debugfs_remove_recursive(ct_debugfs);
	vfree(ct_log_buf);
	ct_log_buf = NULL;
}
