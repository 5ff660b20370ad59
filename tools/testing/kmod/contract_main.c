// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvt_contract module: registers the test device (hfi1 or qib
 * personality) once per round, runs the round's sequences, unregisters
 * it, and keeps the log in /sys/kernel/debug/rvt_contract/log until the
 * module is removed. Everything runs from module init, in one task: the
 * script.
 *
 * Rounds: "main" (qp_table_size 256, every sequence), "nosmi" (ports
 * without SMI, so that QP0 is the script's to create and destroy),
 * "qpt<N>" (the QP table with N buckets, N not always a power of 2).
 */
#include <linux/module.h>
#include <linux/pci.h>
#include "contract.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("rdmavt contract test: an hfi1- or qib-like test driver");

static char *personality = "qib";
module_param(personality, charp, 0444);
MODULE_PARM_DESC(personality, "hfi1 or qib (default qib)");

static char *parent;
module_param(parent, charp, 0444);
MODULE_PARM_DESC(parent,
		 "PCI device (DDDD:BB:DD.F) get_pci_dev() returns; the distro core needs one");

static char *rounds = "main,nosmi,qpt1000,qpt3,qpt2";
module_param(rounds, charp, 0444);
MODULE_PARM_DESC(rounds, "rounds to run, comma separated (default all)");

static struct pci_dev *ct_pdev;
static const struct attribute_group *ct_port_groups[] = { NULL };

static const struct ib_device_ops ct_hfi1_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_HFI1,
	.port_groups = ct_port_groups,
	.modify_device = ct_modify_device,
};

static const struct ib_device_ops ct_qib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_QIB,
	.port_groups = ct_port_groups,
	.modify_device = ct_modify_device,
};

static void ct_init_port(struct ct_dev *dev, int i)
{
	struct ct_port *port = &dev->port[i];
	struct rvt_ibport *rvp = &port->rvp;

	spin_lock_init(&rvp->lock);
	rvp->mcast_tree = RB_ROOT;
	RCU_INIT_POINTER(rvp->qp[0], NULL);
	RCU_INIT_POINTER(rvp->qp[1], NULL);
	rvp->gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
	rvp->sm_lid = CT_SM_LID;
	rvp->subnet_timeout = 18;
	rvp->port_cap_flags = dev->pers->port_cap_flags;
	port->lid = CT_BASE_LID + i;
	dev->pers->init_pkeys(port->pkeys);
	ct_ex(EX_INIT_PORT);
	rvt_init_port(&dev->rdi, rvp, i, port->pkeys);
}

/* rdmavt's two tables by opcode, post_parms and wc_opcode, from @pers' rows. */
static void ct_set_wr_ops(struct ct_dev *dev, const struct ct_pers *pers)
{
	const struct ct_wr_op *op;
	int i;

	for (i = 0; i < RVT_OPERATION_MAX; i++) {
		op = &pers->wr_ops[i];
		if (pers->more_wr_ops &&
		    memchr_inv(&pers->more_wr_ops[i], 0, sizeof(*op)))
			op = &pers->more_wr_ops[i];
		dev->post[i] = op->post;
		dev->wc[i] = op->wc;
	}
	dev->rdi.post_parms = dev->post;
	dev->rdi.wc_opcode = dev->wc;
}

static struct ct_dev *ct_alloc(const struct ct_pers *pers,
			       unsigned int qp_table_size, bool nosmi)
{
	struct rvt_dev_info *rdi;
	struct ct_dev *dev;
	int i;

	ct_ex(EX_ALLOC_DEVICE);
	rdi = rvt_alloc_device(sizeof(*dev), pers->nports);
	if (!rdi)
		return NULL;
	dev = rdi_to_ct(rdi);
	dev->pers = pers;
	dev->pdev = ct_pdev;
	dev->nosmi = nosmi;
	spin_lock_init(&dev->qps_lock);
	INIT_LIST_HEAD(&dev->qps);
	spin_lock_init(&dev->pend_lock);
	INIT_LIST_HEAD(&dev->pending);
	rvt_set_ibdev_name(rdi, "%s_%d", pers->opa ? "ct_hfi" : "ct_qib", 0);
	ib_set_device_ops(&rdi->ibdev, pers->opa ? &ct_hfi1_ops : &ct_qib_ops);
	rdi->ibdev.phys_port_cnt = pers->nports;
	rdi->ibdev.node_guid = cpu_to_be64(0x0011750000c70000ULL);
	strscpy(rdi->ibdev.node_desc, "rvt_contract", sizeof(rdi->ibdev.node_desc));
	if (ct_pdev)
		rdi->ibdev.dev.parent = &ct_pdev->dev;
	pers->set_params(dev, qp_table_size);
	rdi->dparms.props.sys_image_guid = rdi->ibdev.node_guid;
	rdi->dparms.nports = pers->nports;
	rdi->dparms.node = first_online_node;
	if (nosmi)
		rdi->dparms.core_cap_flags &= ~RDMA_CORE_CAP_IB_SMI;
	pers->set_callbacks(&rdi->driver_f);
	ct_set_wr_ops(dev, pers);
	for (i = 0; i < pers->nports; i++)
		ct_init_port(dev, i);
	return dev;
}

/* Which callbacks does the personality set? For the self-check. */
static void ct_note_callbacks(struct rvt_driver_provided *f)
{
	void * const *slot = (void * const *)f;
	int i;

	BUILD_BUG_ON(sizeof(*f) != CB_MAX * sizeof(void *));
	for (i = 0; i < CB_MAX; i++)
		if (slot[i])
			set_bit(i, ct.cb_set);
}

static int ct_script_objects(void)
{
	struct ib_cq_init_attr cqa = { .cqe = 512 };

	ct_step("setup");
	ct.pd = ib_alloc_pd(ct_ibdev(), 0);
	if (IS_ERR(ct.pd)) {
		ct_log("alloc_pd -> %ld", PTR_ERR(ct.pd));
		ct.pd = NULL;
		return -ENOMEM;
	}
	ct.cq = ib_create_cq(ct_ibdev(), NULL, NULL, NULL, &cqa);
	if (IS_ERR(ct.cq)) {
		ct_log("create_cq -> %ld", PTR_ERR(ct.cq));
		ct.cq = NULL;
		return -ENOMEM;
	}
	ct_log("pd lkey=%#x cq cqe=%d", ct.pd->local_dma_lkey, ct.cq->cqe);
	ct_end_step();
	return 0;
}

static void ct_free_script_objects(void)
{
	if (ct.cq)
		ib_destroy_cq(ct.cq);
	if (ct.pd)
		ib_dealloc_pd(ct.pd);
	ct.cq = NULL;
	ct.pd = NULL;
}

static void ct_main_round(void)
{
	ct_seq_device();
	ct_seq_ah();
	ct_seq_cq();
	ct_seq_qp_types();
	ct_seq_modify();
	ct_seq_post();
	ct_seq_loopback();
	ct_seq_timers();
	ct_seq_flush();
	ct_seq_ud();
	ct_seq_srq();
	ct_seq_mr();
	ct_seq_rc_helpers();
	ct_seq_iter();
}

/* Register, run @body, unregister; everything logged under @name. */
static void ct_round(const struct ct_pers *pers, const char *name,
		     unsigned int qp_table_size, bool nosmi,
		     void (*body)(void))
{
	struct ct_dev *dev;
	int ret;

	strscpy(ct.round, name, sizeof(ct.round));
	ct.nqp = 0;
	ct_step("register");
	dev = ct_alloc(pers, qp_table_size, nosmi);
	if (!dev) {
		ct_log("rvt_alloc_device failed");
		return;
	}
	ct_note_callbacks(&dev->rdi.driver_f);
	ct.dev = dev;
	ct_snap_reset();
	ct_ex(EX_REGISTER_DEVICE);
	ret = rvt_register_device(&dev->rdi);
	ct_log("rvt_register_device qp_table_size=%u -> %d", qp_table_size,
	       ret);
	if (!ret) {
		ct_snap();
		if (!ct_script_objects())
			body();
		ct_step("unregister");
		ct_settle(3000);
		ct_free_script_objects();
		ct_snap();
		ct_ex(EX_UNREGISTER_DEVICE);
		rvt_unregister_device(&dev->rdi);
		ct_log("unregistered");
	}
	ct.dev = NULL;
	ct_ex(EX_DEALLOC_DEVICE);
	rvt_dealloc_device(&dev->rdi);
}

static void ct_run(const struct ct_pers *pers)
{
	char *list, *cur, *name;
	unsigned int size;

	list = kstrdup(rounds, GFP_KERNEL);
	if (!list)
		return;
	cur = list;
	while ((name = strsep(&cur, ","))) {
		if (!strcmp(name, "main"))
			ct_round(pers, "main", 256, false, ct_main_round);
		else if (!strcmp(name, "nosmi"))
			ct_round(pers, "nosmi", 256, true, ct_seq_special_qps);
		else if (sscanf(name, "qpt%u", &size) == 1)
			ct_round(pers, name, size, false, ct_seq_table);
	}
	kfree(list);
	ct_selfcheck(pers->name);
}

static int ct_find_parent(void)
{
	unsigned int domain, bus, slot, fn;

	if (!parent || !*parent)
		return 0;
	if (sscanf(parent, "%x:%x:%x.%x", &domain, &bus, &slot, &fn) != 4)
		return -EINVAL;
	ct_pdev = pci_get_domain_bus_and_slot(domain, bus,
					      PCI_DEVFN(slot, fn));
	return ct_pdev ? 0 : -ENODEV;
}

static int __init ct_init(void)
{
	const struct ct_pers *pers;
	int ret;

	if (!strcmp(personality, "hfi1"))
		pers = &ct_hfi1;
	else if (!strcmp(personality, "qib"))
		pers = &ct_qib;
	else
		return -EINVAL;
	ret = ct_find_parent();
	if (ret)
		return ret;
	ret = ct_log_init();
	if (ret) {
		pci_dev_put(ct_pdev);
		return ret;
	}
	ct.script = current;
	ct_run(pers);
	ct.script = NULL;
	return 0;
}
module_init(ct_init);

static void __exit ct_exit(void)
{
	ct_log_exit();
	pci_dev_put(ct_pdev);
}
module_exit(ct_exit);
