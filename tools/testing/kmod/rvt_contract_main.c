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
#include "rvt_contract.h"

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

struct ct_state ct;

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
	rvp->port_cap_flags = IB_PORT_SYS_IMAGE_GUID_SUP |
			      IB_PORT_CLIENT_REG_SUP | IB_PORT_SL_MAP_SUP |
			      IB_PORT_TRAP_SUP | IB_PORT_AUTO_MIGR_SUP |
			      IB_PORT_DR_NOTICE_SUP |
			      IB_PORT_CAP_MASK_NOTICE_SUP |
			      IB_PORT_OTHER_LOCAL_CHANGES_SUP;
	port->lid = CT_BASE_LID + i;
	dev->pers->init_pkeys(port->pkeys);
	ct_ex(EX_INIT_PORT);
	rvt_init_port(&dev->rdi, rvp, i, port->pkeys);
}

static struct ct_dev *ct_alloc(const struct ct_pers *pers,
			       unsigned int qp_table_size, bool nosmi)
{
	struct rvt_dev_info *rdi;
	struct ct_dev *dev;
	int i;

	ct_ex(EX_ALLOC_DEVICE);
	rdi = rvt_alloc_device(sizeof(*dev), CT_NPORTS);
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
	rdi->ibdev.phys_port_cnt = CT_NPORTS;
	rdi->ibdev.node_guid = cpu_to_be64(0x0011750000c70000ULL);
	strscpy(rdi->ibdev.node_desc, "rvt_contract", sizeof(rdi->ibdev.node_desc));
	if (ct_pdev)
		rdi->ibdev.dev.parent = &ct_pdev->dev;
	pers->set_params(dev, qp_table_size);
	rdi->dparms.props.sys_image_guid = rdi->ibdev.node_guid;
	rdi->dparms.nports = CT_NPORTS;
	rdi->dparms.node = first_online_node;
	if (nosmi)
		rdi->dparms.core_cap_flags &= ~RDMA_CORE_CAP_IB_SMI;
	pers->set_callbacks(&rdi->driver_f);
	rdi->post_parms = pers->post_parms;
	rdi->wc_opcode = pers->wc_opcode;
	for (i = 0; i < CT_NPORTS; i++)
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
	ah->type = rdma_ah_find_type(ct_ibdev(), port);
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
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = ct_full_pkey(),
		.port_num = port, .qkey = 0x11111111,
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
		ct_set_av(&a.ah_attr, port, dlid, 0);
		a.path_mtu = IB_MTU_1024;
		a.dest_qp_num = dqpn;
		a.rq_psn = 0x100;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN;
		if (qp->qp_type == IB_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
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
		a.timeout = 4;
		a.retry_cnt = 3;
		a.rnr_retry = 3;
		a.max_rd_atomic = 4;
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
