// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The callbacks hfi1 and qib both give rdmavt, as the test driver has
 * them: each logs its call (ct_cb()) and then does what the drivers do in
 * substance, without hardware: QP private structures, send scheduling,
 * port state, GUIDs, and the SM traps that hfi1 and qib send through the
 * port's send_agent (capability mask, node description and system image
 * GUID changes).
 */
#include <rdma/ib_smi.h>
#include "rvt_contract.h"

/* IB_NOTICE_TRAP_* numbers of the traps the test driver sends. */
#define CT_TRAP_CAP_MASK_CHG 144
#define CT_TRAP_SYS_GUID_CHG 145
#define CT_TRAP_NODE_DESC_CHG 144

static bool ct_schedule_send(struct rvt_qp *qp)
{
	/* Like qib_send_ok(): not while busy or waiting for a resource. */
	return ct_schedule(qp, CB_SCHEDULE_SEND,
			   !(qp->s_flags & (RVT_S_BUSY | RVT_S_ANY_WAIT_IO)) &&
			   (qp->s_hdrwords ||
			    (qp->s_flags & RVT_S_ACK_PENDING) ||
			    !(qp->s_flags & RVT_S_ANY_WAIT_SEND)));
}

static bool ct_schedule_send_no_lock(struct rvt_qp *qp)
{
	return ct_schedule(qp, CB_SCHEDULE_SEND_NO_LOCK, true);
}

static void ct_do_send(struct rvt_qp *qp)
{
	ct_cb(CB_DO_SEND, qp, "s_head=%u s_cur=%u", qp->s_head, qp->s_cur);
	ct_engine(qp);
}

static struct pci_dev *ct_get_pci_dev(struct rvt_dev_info *rdi)
{
	ct_cb(CB_GET_PCI_DEV, NULL, "-");
	return rdi_to_ct(rdi)->pdev;
}

static const char *ct_qpt(enum ib_qp_type type)
{
	static const char * const names[] = {
		[IB_QPT_SMI] = "smi", [IB_QPT_GSI] = "gsi", [IB_QPT_RC] = "rc",
		[IB_QPT_UC] = "uc", [IB_QPT_UD] = "ud",
	};

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "x";
}

static void *ct_qp_priv_alloc(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct ct_dev *dev = rdi_to_ct(rdi);
	struct ct_qp *priv;
	unsigned long flags;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	priv->qp = qp;
	priv->dev = dev;
	INIT_LIST_HEAD(&priv->pend);
	/* The script names its QPs; the MAD layer's get a name of their own. */
	if (current == ct.script && ct.label)
		strscpy(priv->label, ct.label, sizeof(priv->label));
	else
		snprintf(priv->label, sizeof(priv->label), "ext%u-%s%u",
			 ct.nqp++, ct_qpt(qp->ibqp.qp_type), qp->ibqp.port);
	ct_cb(CB_QP_PRIV_ALLOC, NULL, "label=%s type=%s port=%u qpn=%#x",
	      priv->label, ct_qpt(qp->ibqp.qp_type), qp->ibqp.port,
	      qp->ibqp.qp_num);
	/* A label of "veto..." makes the driver refuse the QP. */
	if (!strncmp(priv->label, "veto", 4)) {
		kfree(priv);
		return ERR_PTR(-ENOSPC);
	}
	spin_lock_irqsave(&dev->qps_lock, flags);
	list_add_tail(&priv->all, &dev->qps);
	spin_unlock_irqrestore(&dev->qps_lock, flags);
	return priv;
}

static void ct_qp_priv_free(struct rvt_dev_info *rdi, struct rvt_qp *qp)
{
	struct ct_dev *dev = rdi_to_ct(rdi);
	struct ct_qp *priv = qp->priv;
	unsigned long flags;

	ct_cb(CB_QP_PRIV_FREE, qp, "qpn=%#x state=%s", qp->ibqp.qp_num,
	      ct_state_name(qp->state));
	if (!priv)
		return;
	ct_unpend(qp);
	spin_lock_irqsave(&dev->qps_lock, flags);
	list_del(&priv->all);
	spin_unlock_irqrestore(&dev->qps_lock, flags);
	ct_log("gone %s", priv->label);
	qp->priv = NULL;
	kfree(priv);
}

static void ct_notify_qp_reset(struct rvt_qp *qp)
{
	ct_cb(CB_NOTIFY_QP_RESET, qp, "state=%s s_flags=%#x",
	      ct_state_name(qp->state), qp->s_flags);
}

static void ct_flush_qp_waiters(struct rvt_qp *qp)
{
	ct_cb(CB_FLUSH_QP_WAITERS, qp, "state=%s", ct_state_name(qp->state));
}

static void ct_stop_send_queue(struct rvt_qp *qp)
{
	ct_cb(CB_STOP_SEND_QUEUE, qp, "state=%s", ct_state_name(qp->state));
	ct_unpend(qp);
}

static void ct_quiesce_qp(struct rvt_qp *qp)
{
	ct_cb(CB_QUIESCE_QP, qp, "state=%s", ct_state_name(qp->state));
}

static void ct_notify_error_qp(struct rvt_qp *qp)
{
	ct_cb(CB_NOTIFY_ERROR_QP, qp, "state=%s s_flags=%#x s_last=%u s_head=%u",
	      ct_state_name(qp->state), qp->s_flags, qp->s_last, qp->s_head);
}

static struct ct_port *ct_rvp_port(struct ct_dev *dev, struct rvt_ibport *rvp)
{
	return container_of(rvp, struct ct_port, rvp);
}

static int ct_get_guid_be(struct rvt_dev_info *rdi, struct rvt_ibport *rvp,
			  int guid_index, __be64 *guid)
{
	struct ct_dev *dev = rdi_to_ct(rdi);
	int port = ct_rvp_port(dev, rvp) - dev->port;

	ct_cb(CB_GET_GUID_BE, NULL, "port_idx=%d index=%d", port, guid_index);
	if (guid_index)
		return -EINVAL;
	*guid = cpu_to_be64(be64_to_cpu(rdi->ibdev.node_guid) + port + 1);
	return 0;
}

static int ct_query_port_state(struct rvt_dev_info *rdi, u32 port_num,
			       struct ib_port_attr *props)
{
	struct ct_dev *dev = rdi_to_ct(rdi);
	struct ct_port *port = &dev->port[port_num - 1];

	ct_cb(CB_QUERY_PORT_STATE, NULL,
	      "port=%u sm_lid=%#x cap=%#x pkey_tbl_len=%u max_msg_sz=%#x",
	      port_num, props->sm_lid, props->port_cap_flags,
	      props->pkey_tbl_len, props->max_msg_sz);
	props->state = port->down ? IB_PORT_DOWN : IB_PORT_ACTIVE;
	props->phys_state = port->down ? IB_PORT_PHYS_STATE_DISABLED :
					 IB_PORT_PHYS_STATE_LINK_UP;
	props->lid = port->lid;
	props->lmc = port->lmc;
	props->gid_tbl_len = 1;
	props->max_mtu = IB_MTU_4096;
	props->active_mtu = IB_MTU_4096;
	props->active_width = IB_WIDTH_4X;
	props->active_speed = IB_SPEED_EDR;
	props->max_vl_num = 4;
	return 0;
}

static int ct_shut_down_port(struct rvt_dev_info *rdi, u32 port_num)
{
	ct_cb(CB_SHUT_DOWN_PORT, NULL, "port=%u", port_num);
	rdi_to_ct(rdi)->port[port_num - 1].down = true;
	return 0;
}

static void ct_cap_mask_chg(struct rvt_dev_info *rdi, u32 port_num)
{
	struct ct_dev *dev = rdi_to_ct(rdi);

	ct_cb(CB_CAP_MASK_CHG, NULL, "port=%u cap=%#x", port_num,
	      dev->port[port_num - 1].rvp.port_cap_flags);
	ct_send_trap(dev, port_num, CT_TRAP_CAP_MASK_CHG);
}

static unsigned int ct_free_all_qps(struct rvt_dev_info *rdi)
{
	ct_cb(CB_FREE_ALL_QPS, NULL, "-");
	return 0;
}

static void ct_notify_restart_rc(struct rvt_qp *qp, u32 psn, int wait)
{
	ct_cb(CB_NOTIFY_RESTART_RC, qp, "psn=%#x wait=%d s_retry=%u s_acked=%u s_cur=%u",
	      psn, wait, qp->s_retry, qp->s_acked, qp->s_cur);
	ct_restart_rc(qp, psn, wait);
}

/**
 * ct_set_common_callbacks - the callbacks hfi1 and qib both set
 * @f: the device's driver_f
 *
 * Context: before registration.
 */
void ct_set_common_callbacks(struct rvt_driver_provided *f)
{
	f->schedule_send = ct_schedule_send;
	f->schedule_send_no_lock = ct_schedule_send_no_lock;
	f->do_send = ct_do_send;
	f->get_pci_dev = ct_get_pci_dev;
	f->qp_priv_alloc = ct_qp_priv_alloc;
	f->qp_priv_free = ct_qp_priv_free;
	f->notify_qp_reset = ct_notify_qp_reset;
	f->flush_qp_waiters = ct_flush_qp_waiters;
	f->stop_send_queue = ct_stop_send_queue;
	f->quiesce_qp = ct_quiesce_qp;
	f->notify_error_qp = ct_notify_error_qp;
	f->get_guid_be = ct_get_guid_be;
	f->query_port_state = ct_query_port_state;
	f->shut_down_port = ct_shut_down_port;
	f->cap_mask_chg = ct_cap_mask_chg;
	f->free_all_qps = ct_free_all_qps;
	f->notify_restart_rc = ct_notify_restart_rc;
}

/* An address handle to the SM for QP0, on QP0's PD; rvp->lock held. */
static struct ib_ah *ct_sm_ah(struct ct_dev *dev, u32 port_num)
	__must_hold(&dev->port[port_num - 1].rvp.lock)
{
	struct rvt_ibport *rvp = &dev->port[port_num - 1].rvp;
	struct rdma_ah_attr attr = {};
	struct ib_ah *ah = ERR_PTR(-EINVAL);
	struct rvt_qp *qp0;

	attr.type = rdma_ah_find_type(&dev->rdi.ibdev, port_num);
	rdma_ah_set_dlid(&attr, rvp->sm_lid);
	rdma_ah_set_port_num(&attr, port_num);
	rcu_read_lock();
	qp0 = rcu_dereference(rvp->qp[0]);
	if (qp0)
		ah = rdma_create_ah(qp0->ibqp.pd, &attr, 0);
	rcu_read_unlock();
	return ah;
}

/*
 * Fill in and post a trap; the caller made it. Returns 0 or the errno
 * of the address handle or the post.
 */
static int ct_post_trap(struct ct_dev *dev, u32 port_num,
			struct ib_mad_send_buf *buf, u16 trap_num)
{
	struct ct_port *port = &dev->port[port_num - 1];
	struct ib_mad_notice_attr *notice;
	struct ib_smp *smp = buf->mad;
	unsigned long flags;
	int ret = 0;

	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = cpu_to_be64(++port->trap_tid);
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	notice = (struct ib_mad_notice_attr *)smp->data;
	notice->generic_type = IB_NOTICE_TYPE_INFO;
	notice->prod_type_lsb = IB_NOTICE_PROD_CA;
	notice->trap_num = cpu_to_be16(trap_num);
	notice->issuer_lid = cpu_to_be16(port->lid);

	/* As qib and hfi1: the SM's AH is made once, under the port lock. */
	spin_lock_irqsave(&port->rvp.lock, flags);
	if (!port->rvp.sm_ah) {
		struct ib_ah *ah = ct_sm_ah(dev, port_num);

		if (IS_ERR(ah))
			ret = PTR_ERR(ah);
		else
			port->rvp.sm_ah = ibah_to_rvtah(ah);
	}
	if (!ret)
		buf->ah = &port->rvp.sm_ah->ibah;
	spin_unlock_irqrestore(&port->rvp.lock, flags);
	return ret ?: ib_post_send_mad(buf, NULL);
}

/**
 * ct_send_trap - send an SM trap through the port's send_agent
 * @dev: the device
 * @port_num: 1-based port
 * @trap_num: the notice's trap number
 *
 * Without a send_agent (a core that did not create one) the trap is lost,
 * as on hfi1 and qib.
 *
 * Context: process context, possibly atomic.
 */
void ct_send_trap(struct ct_dev *dev, u32 port_num, u16 trap_num)
{
	struct ib_mad_agent *agent = dev->port[port_num - 1].rvp.send_agent;
	struct ib_mad_send_buf *buf;
	int ret;

	if (!agent) {
		ct_log("trap %u port %u: no send_agent, dropped", trap_num,
		       port_num);
		return;
	}
	buf = ib_create_send_mad(agent, 0, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_ATOMIC,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		ct_log("trap %u port %u: no send buffer %ld", trap_num,
		       port_num, PTR_ERR(buf));
		return;
	}
	ret = ct_post_trap(dev, port_num, buf, trap_num);
	if (ret)
		ib_free_send_mad(buf);
	ct_log("trap %u port %u: sent %d", trap_num, port_num, ret);
}

/**
 * ct_modify_device - the driver's modify_device verb
 * @ibdev: the device
 * @mask: IB_DEVICE_MODIFY_* bits
 * @props: the new values
 *
 * rdmavt makes every driver supply this verb (upstream's check_support);
 * the test driver's does what qib's does: take the new node description
 * or system image GUID and tell the SM on every port.
 *
 * Context: process context.
 * Return: 0, or -EOPNOTSUPP for other bits.
 */
int ct_modify_device(struct ib_device *ibdev, int mask,
		     struct ib_device_modify *props)
{
	struct ct_dev *dev = ibdev_to_ct(ibdev);
	u32 p;

	ct_log("driver modify_device mask=%#x", mask);
	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC) {
		memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
		for (p = 1; p <= dev->rdi.dparms.nports; p++)
			ct_send_trap(dev, p, CT_TRAP_NODE_DESC_CHG);
	}
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID) {
		dev->rdi.dparms.props.sys_image_guid =
			cpu_to_be64(props->sys_image_guid);
		for (p = 1; p <= dev->rdi.dparms.nports; p++)
			ct_send_trap(dev, p, CT_TRAP_SYS_GUID_CHG);
	}
	return 0;
}
