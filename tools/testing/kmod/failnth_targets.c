// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The kernel verbs of an rdmavt device, one call at a time, for the
 * allocation-failure sweep (tools/testing/progs/failnth.c, suite
 * 66-failnth): the sweep arms its own /proc/thread-self/fail-nth, and the
 * call must run in its task, so the call is made by a write() of the
 * sweep to /sys/kernel/debug/rvt_failnth/op:
 *
 *   "prepare OP"  build, unarmed, what OP's call needs (a PD, a CQ, a QP
 *                 in the state before the one OP moves it to, ...)
 *   "call OP"     make the one call under test; the write fails with the
 *                 call's errno, or succeeds
 *   "reset"       destroy every object the module holds
 *
 * Parsing works on the stack, so nothing between the sweep's arming and
 * the call allocates. The module holds its device (dev=, rvtsw_0 by
 * default) until it is unloaded: unload it before the device's driver.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Kernel verbs one call at a time, for fault-injection sweeps");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device to call (default rvtsw_0)");

#define MCAST_LID 0xc001

/**
 * struct failnth_objs - what the module holds between writes
 * @ibdev: the device, held from load to unload
 * @lid: port 1's LID
 * @pd: a PD
 * @cq: a CQ
 * @qp: a QP
 * @srq: an SRQ
 * @mr: a fast-registration MR
 * @ah: an address handle
 * @attached: @qp is attached to the test's multicast group
 *
 * All guarded by failnth_lock: one command at a time.
 */
struct failnth_objs {
	struct ib_device *ibdev;
	u32 lid;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_srq *srq;
	struct ib_mr *mr;
	struct ib_ah *ah;
	bool attached;
};

static struct failnth_objs objs;
static DEFINE_MUTEX(failnth_lock);
static struct dentry *failnth_dir;

/* Not const: ib_attach_mcast() takes a plain pointer. */
static union ib_gid mcast_gid = {
	.raw = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x42 },
};

/* ---- building blocks: each returns 0 or a negative errno ------------- */

static int get_pd(unsigned int flags)
{
	struct ib_pd *pd = ib_alloc_pd(objs.ibdev, flags);

	if (IS_ERR(pd))
		return PTR_ERR(pd);
	objs.pd = pd;
	return 0;
}

static int get_cq(int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq = ib_create_cq(objs.ibdev, NULL, NULL, NULL, &attr);

	if (IS_ERR(cq))
		return PTR_ERR(cq);
	objs.cq = cq;
	return 0;
}

static int get_qp(enum ib_qp_type type)
{
	struct ib_qp_init_attr attr = {
		.send_cq = objs.cq, .recv_cq = objs.cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
	};
	struct ib_qp *qp = ib_create_qp(objs.pd, &attr);

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	objs.qp = qp;
	return 0;
}

static int get_srq(void)
{
	struct ib_srq_init_attr attr = {
		.attr = { .max_wr = 16, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq *srq = ib_create_srq(objs.pd, &attr);

	if (IS_ERR(srq))
		return PTR_ERR(srq);
	objs.srq = srq;
	return 0;
}

/* Moves objs.qp (an RC QP, connected to itself) one state on. */
static int qp_to(enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };
	int mask = IB_QP_STATE;

	switch (state) {
	case IB_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
		mask |= IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS;
		break;
	case IB_QPS_RTR:
		a.path_mtu = IB_MTU_1024;
		a.dest_qp_num = objs.qp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.type = rdma_ah_find_type(objs.ibdev, 1);
		rdma_ah_set_dlid(&a.ah_attr, objs.lid);
		rdma_ah_set_port_num(&a.ah_attr, 1);
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER;
		break;
	case IB_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		break;
	}
	return ib_modify_qp(objs.qp, &a, mask);
}

/* An RC QP in the state before @state (INIT, RTR or RTS). */
static int rc_qp_before(enum ib_qp_state state)
{
	enum ib_qp_state s;
	int ret;

	ret = get_pd(0) ?: get_cq(64) ?: get_qp(IB_QPT_RC);
	for (s = IB_QPS_INIT; !ret && s < state; s++)
		ret = qp_to(s);
	return ret;
}

/* ---- the calls under test -------------------------------------------- */

static int call_resize_cq(void)
{
	return ib_resize_cq(objs.cq, 512);
}

static int call_resize_srq(void)
{
	struct ib_srq_attr attr = { .max_wr = 256 };

	return ib_modify_srq(objs.srq, &attr, IB_SRQ_MAX_WR);
}

static int call_fast_reg_mr(void)
{
	struct ib_mr *mr = ib_alloc_mr(objs.pd, IB_MR_TYPE_MEM_REG, 16);

	if (IS_ERR(mr))
		return PTR_ERR(mr);
	objs.mr = mr;
	return 0;
}

static int call_ah(void)
{
	struct rdma_ah_attr attr = {};
	struct ib_ah *ah;

	attr.type = rdma_ah_find_type(objs.ibdev, 1);
	rdma_ah_set_dlid(&attr, objs.lid);
	rdma_ah_set_port_num(&attr, 1);
	ah = rdma_create_ah(objs.pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	objs.ah = ah;
	return 0;
}

static int call_attach_mcast(void)
{
	int ret = ib_attach_mcast(objs.qp, &mcast_gid, MCAST_LID);

	objs.attached = !ret;
	return ret;
}

static int prep_pd(void) { return get_pd(0); }
static int prep_pd_cq(void) { return get_pd(0) ?: get_cq(64); }
static int prep_cq(void) { return get_cq(16); }
static int prep_srq(void) { return get_pd(0) ?: get_srq(); }
/* A UD QP in INIT: attaching one that never left RESET (no port) fails. */
static int ud_qp_to_init(void)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
	};

	return ib_modify_qp(objs.qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_QKEY);
}

static int prep_ud_qp(void)
{
	return prep_pd_cq() ?: get_qp(IB_QPT_UD) ?: ud_qp_to_init();
}

static int prep_init(void) { return rc_qp_before(IB_QPS_INIT); }
static int prep_rtr(void) { return rc_qp_before(IB_QPS_RTR); }
static int prep_rts(void) { return rc_qp_before(IB_QPS_RTS); }
static int prep_err(void) { return prep_rts() ?: qp_to(IB_QPS_RTS); }

static int call_pd(void) { return get_pd(0); }
static int call_pd_dma_mr(void) { return get_pd(IB_PD_UNSAFE_GLOBAL_RKEY); }
static int call_cq(void) { return get_cq(64); }
static int call_rc_qp(void) { return get_qp(IB_QPT_RC); }
static int call_uc_qp(void) { return get_qp(IB_QPT_UC); }
static int call_ud_qp(void) { return get_qp(IB_QPT_UD); }
static int call_srq(void) { return get_srq(); }
static int call_init(void) { return qp_to(IB_QPS_INIT); }
static int call_rtr(void) { return qp_to(IB_QPS_RTR); }
static int call_rts(void) { return qp_to(IB_QPS_RTS); }
static int call_err(void) { return qp_to(IB_QPS_ERR); }

/**
 * struct failnth_op - one call the sweep can make
 * @name: its name on the command line
 * @prepare: builds what it needs, or NULL
 * @call: the call
 */
struct failnth_op {
	const char *name;
	int (*prepare)(void);
	int (*call)(void);
};

static const struct failnth_op failnth_ops[] = {
	{ "pd", NULL, call_pd },
	{ "pd-dma-mr", NULL, call_pd_dma_mr },
	{ "cq", NULL, call_cq },
	{ "cq-resize", prep_cq, call_resize_cq },
	{ "qp-rc", prep_pd_cq, call_rc_qp },
	{ "qp-uc", prep_pd_cq, call_uc_qp },
	{ "qp-ud", prep_pd_cq, call_ud_qp },
	{ "qp-init", prep_init, call_init },
	{ "qp-rtr", prep_rtr, call_rtr },
	{ "qp-rts", prep_rts, call_rts },
	{ "qp-err", prep_err, call_err },
	{ "srq", prep_pd, call_srq },
	{ "srq-resize", prep_srq, call_resize_srq },
	{ "mr-fast-reg", prep_pd, call_fast_reg_mr },
	{ "ah", prep_pd, call_ah },
	{ "mcast-attach", prep_ud_qp, call_attach_mcast },
};

/* ---- commands ---------------------------------------------------------- */

static void reset_objs(void)
{
	if (objs.attached)
		ib_detach_mcast(objs.qp, &mcast_gid, MCAST_LID);
	objs.attached = false;
	if (objs.ah)
		rdma_destroy_ah(objs.ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (objs.mr)
		ib_dereg_mr(objs.mr);
	if (objs.qp)
		ib_destroy_qp(objs.qp);
	if (objs.srq)
		ib_destroy_srq(objs.srq);
	if (objs.cq)
		ib_destroy_cq(objs.cq);
	if (objs.pd)
		ib_dealloc_pd(objs.pd);
	objs.ah = NULL;
	objs.mr = NULL;
	objs.qp = NULL;
	objs.srq = NULL;
	objs.cq = NULL;
	objs.pd = NULL;
}

static const struct failnth_op *find_op(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(failnth_ops); i++)
		if (!strcmp(failnth_ops[i].name, name))
			return &failnth_ops[i];
	return NULL;
}

/* "prepare OP" or "call OP": 0 or a negative errno. */
static int run_command(char *cmd)
{
	const struct failnth_op *op;
	char *name = strchr(cmd, ' ');

	if (!strcmp(cmd, "reset")) {
		reset_objs();
		return 0;
	}
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	op = find_op(name);
	if (!op)
		return -ENOENT;
	if (!strcmp(cmd, "prepare")) {
		reset_objs();
		return op->prepare ? op->prepare() : 0;
	}
	if (!strcmp(cmd, "call"))
		return op->call();
	return -EINVAL;
}

static ssize_t op_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	char cmd[48];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	mutex_lock(&failnth_lock);
	ret = run_command(strim(cmd));
	mutex_unlock(&failnth_lock);
	return ret ? ret : len;
}

static const struct file_operations op_fops = {
	.owner = THIS_MODULE,
	.write = op_write,
};

static int __init rvt_failnth_init(void)
{
	struct ib_port_attr pa;

	objs.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!objs.ibdev)
		return -ENODEV;
	if (ib_query_port(objs.ibdev, 1, &pa)) {
		ib_device_put(objs.ibdev);
		return -EIO;
	}
	objs.lid = pa.lid;
	failnth_dir = debugfs_create_dir("rvt_failnth", NULL);
	debugfs_create_file("op", 0200, failnth_dir, NULL, &op_fops);
	return 0;
}

static void __exit rvt_failnth_exit(void)
{
	debugfs_remove(failnth_dir);
	mutex_lock(&failnth_lock);
	reset_objs();
	mutex_unlock(&failnth_lock);
	ib_device_put(objs.ibdev);
}

module_init(rvt_failnth_init);
module_exit(rvt_failnth_exit);
