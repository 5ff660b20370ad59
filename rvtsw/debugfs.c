// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvtsw's debugfs: /sys/kernel/debug/rvtsw/rvtsw_N/qp_stats lists every QP
 * of device N that is in the QP table (INIT to ERR), one line each;
 * /sys/kernel/debug/rvtsw/switch/ holds the switch's fault knob.
 *
 * The file is a seq_file over rdmavt's QP iterator. Each start() allocates
 * an iterator and enters an RCU read section, which stop() leaves, freeing
 * the iterator: nothing is held between two reads. To go on where the
 * previous read stopped, stop() remembers where the iterator stood: its
 * slot, the QPN there and how many QPs came before it in that slot (or
 * the end). start() for the next position finds that QP again in its
 * slot; if it has gone meanwhile, it takes the QP that now stands at its
 * index in the slot. This assumes no order within a slot: our rdmavt
 * keeps each bucket sorted by QPN, upstream's puts new QPs first. A QP
 * present throughout a read of the whole file appears in it, and every
 * read ends: each restart begins at a QP not shown yet, or at most a
 * slot's worth of QPs before one when the QP it stopped at went away.
 * Position 0, and any position other than the remembered one (after a
 * seek), is found by counting from the first QP.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "rvtsw.h"

static struct dentry *rvtsw_debugfs_root;

/* The slot after every slot: where a read that reached the end stopped. */
#define RVTSW_QP_SEQ_END INT_MAX

/**
 * struct rvtsw_qp_seq - the state of one open qp_stats file
 * @rdi: the device
 * @iter: the iterator, from start() to stop() (the RCU read section)
 * @in_slot: how many QPs come before @iter's in its slot
 * @pos: the position whose QP @slot, @qpn and @index describe
 * @slot: the iterator slot of that QP; RVTSW_QP_SEQ_END past the last one
 * @qpn: its QP number
 * @index: how many QPs came before it in its slot
 * @resume: @pos, @slot, @qpn and @index describe where the last read
 *	    stopped
 *
 * One per open file, touched only by the seq_file callbacks, which the
 * seq_file's own mutex serialises: no lock of rvtsw's guards it.
 */
struct rvtsw_qp_seq {
	struct rvt_dev_info *rdi;
	struct rvt_qp_iter *iter;
	unsigned int in_slot;
	loff_t pos;
	int slot;
	u32 qpn;
	unsigned int index;
	bool resume;
};

/**
 * rvtsw_qp_seq_step - advance the iterator, counting QPs within a slot
 * @st: the file's state
 *
 * Context: within the RCU read section.
 * Return: true with the iterator on the next QP, false at the end.
 */
static bool rvtsw_qp_seq_step(struct rvtsw_qp_seq *st)
	__must_hold(RCU)
{
	struct rvt_qp_iter *iter = st->iter;
	bool had_qp = iter->qp;
	int slot = iter->n;

	if (rvt_qp_iter_next(iter))
		return false;
	st->in_slot = had_qp && iter->n == slot ? st->in_slot + 1 : 0;
	return true;
}

/**
 * rvtsw_qp_seq_refind - move the iterator to where the last read stopped
 * @st: the file's state, its iterator on the first QP
 *
 * The iterator's state is its QP and its slot, so a copy of it is a
 * bookmark from which the search within the slot can start over.
 *
 * Context: within the RCU read section.
 * Return: true with the iterator on the remembered QP, or if that has
 * gone on the one now at its index in the slot (or the first one after
 * the slot); false if no QP is left from there on.
 */
static bool rvtsw_qp_seq_refind(struct rvtsw_qp_seq *st)
	__must_hold(RCU)
{
	struct rvt_qp_iter *iter = st->iter;
	struct rvt_qp_iter slot_start;

	while (iter->n < st->slot)
		if (!rvtsw_qp_seq_step(st))
			return false;
	if (iter->n > st->slot)
		return true;
	slot_start = *iter;
	do {
		if (iter->qp->ibqp.qp_num == st->qpn)
			return true;
	} while (rvtsw_qp_seq_step(st) && iter->n == st->slot);

	*iter = slot_start;
	st->in_slot = 0;
	while (st->in_slot < st->index && iter->n == st->slot)
		if (!rvtsw_qp_seq_step(st))
			return false;
	return true;
}

/**
 * rvtsw_qp_seq_seek - move a fresh iterator to a position
 * @st: the file's state, with a fresh iterator
 * @pos: the position
 *
 * Context: within the RCU read section.
 * Return: true with the iterator on the QP at @pos, false if there is
 * none.
 */
static bool rvtsw_qp_seq_seek(struct rvtsw_qp_seq *st, loff_t pos)
	__must_hold(RCU)
{
	loff_t i;

	st->in_slot = 0;
	if (!rvtsw_qp_seq_step(st))
		return false;
	if (pos && st->resume && pos == st->pos)
		return st->slot != RVTSW_QP_SEQ_END && rvtsw_qp_seq_refind(st);
	for (i = 0; i < pos; i++)
		if (!rvtsw_qp_seq_step(st))
			return false;
	return true;
}

/**
 * rvtsw_qp_seq_start - seq_file start: an iterator and the read lock
 * @s: the seq_file
 * @pos: the position to show
 *
 * Context: process context; allocates, then enters an RCU read section
 * that rvtsw_qp_seq_stop() leaves, whatever this returns.
 * Return: the iterator, NULL past the last QP, or ERR_PTR(-ENOMEM).
 */
static void *rvtsw_qp_seq_start(struct seq_file *s, loff_t *pos)
	__acquires(RCU)
{
	struct rvtsw_qp_seq *st = s->private;

	/* Allocate first: no sleeping inside the read section. */
	st->iter = rvt_qp_iter_init(st->rdi, 0, NULL);
	/* stop() always follows, and always unlocks. */
	rcu_read_lock();
	if (!st->iter)
		return ERR_PTR(-ENOMEM);
	return rvtsw_qp_seq_seek(st, *pos) ? st->iter : NULL;
}

/**
 * rvtsw_qp_seq_next - seq_file next
 * @s: the seq_file
 * @v: the iterator
 * @pos: the position, advanced
 *
 * Context: within the RCU read section.
 * Return: the iterator on the next QP, or NULL.
 */
static void *rvtsw_qp_seq_next(struct seq_file *s, void *v, loff_t *pos)
	__must_hold(RCU)
{
	struct rvtsw_qp_seq *st = s->private;

	++*pos;
	return rvtsw_qp_seq_step(st) ? st->iter : NULL;
}

/**
 * rvtsw_qp_seq_stop - seq_file stop: remember the place, free the iterator
 * @s: the seq_file
 * @v: the iterator on the QP not shown yet, NULL at the end, or an error
 *
 * Context: leaves the RCU read section rvtsw_qp_seq_start() entered.
 */
static void rvtsw_qp_seq_stop(struct seq_file *s, void *v)
	__releases(RCU)
{
	struct rvtsw_qp_seq *st = s->private;

	/*
	 * v is the QP at s->index, not shown yet or not completely, or NULL
	 * at the end: then a QP created since must not shift the count and
	 * show one already seen.
	 */
	st->resume = !IS_ERR(v);		/* an error: start() failed */
	if (st->resume) {
		st->pos = s->index;
		st->slot = v ? st->iter->n : RVTSW_QP_SEQ_END;
		st->qpn = v ? st->iter->qp->ibqp.qp_num : 0;
		st->index = v ? st->in_slot : 0;
	}
	rcu_read_unlock();
	kfree(st->iter);
	st->iter = NULL;
}

/**
 * rvtsw_qp_type_name - a QP type as qp_stats shows it
 * @type: the type
 *
 * Context: any.
 * Return: the name.
 */
static const char *rvtsw_qp_type_name(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_SMI:
		return "SMI";
	case IB_QPT_GSI:
		return "GSI";
	case IB_QPT_RC:
		return "RC";
	case IB_QPT_UC:
		return "UC";
	case IB_QPT_UD:
		return "UD";
	default:
		return "?";
	}
}

/**
 * rvtsw_qp_state_name - a QP state as qp_stats shows it
 * @state: the state
 *
 * Context: any.
 * Return: the name.
 */
static const char *rvtsw_qp_state_name(u8 state)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

/**
 * rvtsw_qp_show_rq - the receive queue part of a qp_stats line
 * @s: the seq_file
 * @qp: the QP
 *
 * A user ring's indices are whatever the process wrote there.
 *
 * Context: within the RCU read section.
 */
static void rvtsw_qp_show_rq(struct seq_file *s, struct rvt_qp *qp)
{
	struct rvt_rq *rq = &qp->r_rq;
	u32 head, tail;

	if (qp->ibqp.srq || !rq->kwq) {
		seq_puts(s, " RQ srq");
		return;
	}
	if (qp->ip) {
		head = RDMA_READ_UAPI_ATOMIC(rq->wq->head);
		tail = RDMA_READ_UAPI_ATOMIC(rq->wq->tail);
	} else {
		head = READ_ONCE(rq->kwq->head);
		tail = READ_ONCE(rq->kwq->tail);
	}
	seq_printf(s, " RQ head %u tail %u size %u", head, tail, rq->size);
}

/**
 * rvtsw_qp_seq_show - seq_file show: one line per QP
 * @s: the seq_file
 * @v: the iterator
 *
 * The fields are read without the QP's locks: a line may mix values from
 * before and after a concurrent change.
 *
 * Context: within the RCU read section.
 * Return: 0.
 */
static int rvtsw_qp_seq_show(struct seq_file *s, void *v)
	__must_hold(RCU)
{
	struct rvt_qp_iter *iter = v;
	struct rvt_qp *qp = iter->qp;

	seq_printf(s, "N %d QPN 0x%06x %s %s R %d port %u RQPN 0x%06x",
		   iter->n, qp->ibqp.qp_num,
		   rvtsw_qp_type_name(qp->ibqp.qp_type),
		   rvtsw_qp_state_name(READ_ONCE(qp->state)),
		   atomic_read(&qp->refcount), qp->port_num, qp->remote_qpn);
	seq_printf(s, " SPSN 0x%06x RPSN 0x%06x",
		   READ_ONCE(qp->s_next_psn), READ_ONCE(qp->r_psn));
	seq_printf(s, " SQ last %u acked %u cur %u tail %u head %u size %u",
		   READ_ONCE(qp->s_last), READ_ONCE(qp->s_acked),
		   READ_ONCE(qp->s_cur), READ_ONCE(qp->s_tail),
		   READ_ONCE(qp->s_head), qp->s_size);
	rvtsw_qp_show_rq(s, qp);
	seq_printf(s, " PID %d\n", qp->pid);
	return 0;
}

static const struct seq_operations rvtsw_qp_seq_ops = {
	.start = rvtsw_qp_seq_start,
	.next = rvtsw_qp_seq_next,
	.stop = rvtsw_qp_seq_stop,
	.show = rvtsw_qp_seq_show,
};

/**
 * rvtsw_qp_stats_open - open qp_stats
 * @inode: its inode; i_private is the device
 * @file: the file
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
static int rvtsw_qp_stats_open(struct inode *inode, struct file *file)
{
	struct rvtsw_qp_seq *st;

	st = __seq_open_private(file, &rvtsw_qp_seq_ops, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->rdi = inode->i_private;
	return 0;
}

static const struct file_operations rvtsw_qp_stats_fops = {
	.owner = THIS_MODULE,
	.open = rvtsw_qp_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/*
 * copy_mode: the sge_copy_mode rdmavt was given and, in the adaptive
 * mode, its working-set estimate (struct rvt_wss): pages counted and the
 * count from which large copies go around the cache. The counters are
 * atomics rdmavt updates as it copies; a read is a snapshot.
 */
static int rvtsw_copy_mode_show(struct seq_file *s, void *unused)
{
	struct rvt_dev_info *rdi = s->private;
	struct rvt_wss *wss = rdi->wss;

	seq_printf(s, "mode %u\n", rdi->dparms.sge_copy_mode);
	if (wss)
		seq_printf(s, "working_set_pages %d\nthreshold_pages %d\n",
			   atomic_read(&wss->total_count), wss->threshold);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rvtsw_copy_mode);

/**
 * rvtsw_debugfs_add - create a device's debugfs directory
 * @dev: the device, registered
 *
 * Failure is not an error: debugfs is optional.
 *
 * Context: process context.
 */
void rvtsw_debugfs_add(struct rvtsw_dev *dev)
{
	dev->debugfs = debugfs_create_dir(rvt_get_ibdev_name(&dev->rdi),
					  rvtsw_debugfs_root);
	debugfs_create_file("qp_stats", 0444, dev->debugfs, &dev->rdi,
			    &rvtsw_qp_stats_fops);
	debugfs_create_file("copy_mode", 0444, dev->debugfs, &dev->rdi,
			    &rvtsw_copy_mode_fops);
}

/**
 * rvtsw_debugfs_remove - remove a device's debugfs directory
 * @dev: the device, before it is unregistered
 *
 * Returns once no read of its files is in progress; reads of files still
 * open afterwards fail.
 *
 * Context: process context; may sleep.
 */
void rvtsw_debugfs_remove(struct rvtsw_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

/* fault_release: written, sends the packets the knob holds on. */
static ssize_t rvtsw_fault_release_write(struct file *file,
					 const char __user *buf, size_t len,
					 loff_t *ppos)
{
	rvtsw_switch_release_held(file->private_data);
	return len;
}

static const struct file_operations rvtsw_fault_release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rvtsw_fault_release_write,
	.llseek = noop_llseek,
};

/* fault_held: how many packets the knob holds. */
static int rvtsw_fault_held_get(void *data, u64 *val)
{
	struct rvtsw_switch *sw = data;

	*val = skb_queue_len_lockless(&sw->fault.held);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rvtsw_fault_held_fops, rvtsw_fault_held_get, NULL,
			 "%llu\n");

/* fault_action: what the knob does to the packets it picks, by name. */
static ssize_t rvtsw_fault_action_read(struct file *file, char __user *buf,
				       size_t len, loff_t *ppos)
{
	struct rvtsw_switch *sw = file->private_data;
	char text[16];
	int n;

	n = scnprintf(text, sizeof(text), "%s\n",
		      rvtsw_fault_action_name(atomic_read(&sw->fault.action)));
	return simple_read_from_buffer(buf, len, ppos, text, n);
}

static ssize_t rvtsw_fault_action_write(struct file *file,
					const char __user *buf, size_t len,
					loff_t *ppos)
{
	struct rvtsw_switch *sw = file->private_data;
	char text[16];
	int ret;

	if (len >= sizeof(text))
		return -EINVAL;
	if (copy_from_user(text, buf, len))
		return -EFAULT;
	text[len] = '\0';
	ret = rvtsw_fault_set_action(&sw->fault, text);
	return ret ? ret : len;
}

static const struct file_operations rvtsw_fault_action_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rvtsw_fault_action_read,
	.write = rvtsw_fault_action_write,
	.llseek = default_llseek,
};

/**
 * rvtsw_debugfs_add_switch - create a switch's debugfs directory
 * @sw: the switch
 * @name: the directory's name, under /sys/kernel/debug/rvtsw
 *
 * Its fault knob picks packets of one BTH opcode as they cross the
 * switch, and drops, holds or changes them (switch_fault.c).
 *
 * Context: process context, after rvtsw_debugfs_init().
 */
void rvtsw_debugfs_add_switch(struct rvtsw_switch *sw, const char *name)
{
	struct rvtsw_fault *fault = &sw->fault;
	struct dentry *dir;

	dir = debugfs_create_dir(name, rvtsw_debugfs_root);
	sw->debugfs = dir;
	debugfs_create_atomic_t("fault_opcode", 0600, dir, &fault->opcode);
	debugfs_create_atomic_t("fault_skip", 0600, dir, &fault->skip);
	debugfs_create_atomic_t("fault_count", 0600, dir, &fault->count);
	debugfs_create_file("fault_action", 0600, dir, sw,
			    &rvtsw_fault_action_fops);
	debugfs_create_file("fault_release", 0200, dir, sw,
			    &rvtsw_fault_release_fops);
	debugfs_create_file_unsafe("fault_held", 0400, dir, sw,
				   &rvtsw_fault_held_fops);
}

/**
 * rvtsw_debugfs_remove_switch - remove a switch's debugfs directory
 * @sw: the switch
 *
 * Context: process context; may sleep.
 */
void rvtsw_debugfs_remove_switch(struct rvtsw_switch *sw)
{
	debugfs_remove_recursive(sw->debugfs);
	sw->debugfs = NULL;
}

/**
 * rvtsw_debugfs_init - create /sys/kernel/debug/rvtsw
 *
 * Context: module init.
 */
void rvtsw_debugfs_init(void)
{
	rvtsw_debugfs_root = debugfs_create_dir(RVTSW_NAME, NULL);
}

/**
 * rvtsw_debugfs_exit - remove /sys/kernel/debug/rvtsw
 *
 * Context: module exit, after every device's directory is gone.
 */
void rvtsw_debugfs_exit(void)
{
	debugfs_remove_recursive(rvtsw_debugfs_root);
	rvtsw_debugfs_root = NULL;
}
