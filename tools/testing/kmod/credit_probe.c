// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Asks rdmavt, as a driver's RC receive path would, how many credits a
 * QP's next ACK advertises: rvt_compute_aeth() on the QP numbered qpn=
 * of device dev=, port port=. The credit count comes from the QP's
 * receive ring, which for a user QP the process may have scribbled on;
 * rvtsw itself never builds ACKs, so this is the only way a test reaches
 * that reader of the ring.
 *
 * Loading the module does the lookup once and keeps the answer, the
 * AETH's 5-bit credit code in decimal, in
 * /sys/kernel/debug/rvt_credit_probe/credit_code until the module is
 * removed. A QP that cannot be found fails the load with -ENOENT.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_hdrs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Reads the RC credits rdmavt advertises for a QP");

static char *dev = "rvtsw_0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "rdmavt device (default rvtsw_0)");

static uint qpn;
module_param(qpn, uint, 0444);
MODULE_PARM_DESC(qpn, "number of an RC QP in the QP table");

static uint port = 1;
module_param(port, uint, 0444);
MODULE_PARM_DESC(port, "the QP's port (default 1)");

static char answer[16];
static struct debugfs_blob_wrapper answer_blob;
static struct dentry *debugfs_dir;

/* The credit code of @qp's next ACK, as its r_lock holder would see it. */
static u32 probe_credit_code(struct rvt_qp *qp)
{
	unsigned long flags;
	__be32 aeth;

	spin_lock_irqsave(&qp->r_lock, flags);
	aeth = rvt_compute_aeth(qp);
	spin_unlock_irqrestore(&qp->r_lock, flags);
	return (be32_to_cpu(aeth) >> IB_AETH_CREDIT_SHIFT) &
	       IB_AETH_CREDIT_MASK;
}

static int probe_qp(struct rvt_dev_info *rdi, u32 *code)
{
	struct rvt_qp *qp;

	if (port < 1 || port > rdi->dparms.nports)
		return -EINVAL;
	rcu_read_lock();
	qp = rvt_lookup_qpn(rdi, rdi->ports[port - 1], qpn);
	if (qp)
		rvt_get_qp(qp);
	rcu_read_unlock();
	if (!qp)
		return -ENOENT;
	*code = probe_credit_code(qp);
	rvt_put_qp(qp);
	return 0;
}

static int __init probe_init(void)
{
	struct ib_device *ibdev;
	u32 code;
	int ret;

	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return -ENODEV;
	ret = probe_qp(ib_to_rvt(ibdev), &code);
	ib_device_put(ibdev);
	if (ret)
		return ret;

	answer_blob.data = answer;
	answer_blob.size = scnprintf(answer, sizeof(answer), "%u\n", code);
	debugfs_dir = debugfs_create_dir("rvt_credit_probe", NULL);
	debugfs_create_blob("credit_code", 0444, debugfs_dir, &answer_blob);
	return 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
}

module_init(probe_init);
module_exit(probe_exit);
