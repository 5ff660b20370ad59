// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rdmavt: the verbs software transport core.
 *
 * A driver allocates its device with rvt_alloc_device(), describes itself
 * in rdi->dparms and rdi->driver_f, hands each port over with
 * rvt_init_port() and calls rvt_register_device(). From then on rdmavt
 * implements the verbs and calls back into the driver only for what the
 * link itself must do.
 */
#include <linux/module.h>
/*
 * ABI: the distro's build of this file sees struct trace_eval_map
 * (through its trace headers) and genksyms reaches it from every export
 * via struct module: without this include all five CRCs differ from the
 * distro's. See Documentation/abi.rst.
 */
#include <linux/tracepoint.h>
#include "exports.h"
#include "ah.h"
#include "cq.h"
#include "device.h"
#include "mad.h"
#include "mcast.h"
#include "mmap.h"
#include "mr.h"
#include "pd.h"
#include "qp.h"
#include "srq.h"
#include "wss.h"
#include "trace_rvt.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("RDMA verbs software transport core");

/* Userspace ABI revision: rdma-core's ipathverbs uses mmap'd rings from 2 on. */
#define RVT_UVERBS_ABI_VERSION 2

/**
 * rvt_alloc_device - allocate a device and its port array
 * @size: size of the driver's device structure, which begins with a
 *	  struct rvt_dev_info
 * @nports: number of ports the device will have
 *
 * Context: process context; may sleep.
 * Return: the zeroed device, or NULL on bad arguments or lack of memory.
 */
struct rvt_dev_info *rvt_alloc_device(size_t size, int nports)
{
	struct ib_device *ibdev;
	struct rvt_dev_info *rdi;

	if (size < sizeof(*rdi) || nports < 1)
		return NULL;

	ibdev = _ib_alloc_device(size);
	if (!ibdev)
		return NULL;
	rdi = ib_to_rvt(ibdev);

	rdi->ports = kcalloc(nports, sizeof(*rdi->ports), GFP_KERNEL);
	if (!rdi->ports) {
		ib_dealloc_device(ibdev);
		return NULL;
	}
	return rdi;
}
EXPORT_SYMBOL(rvt_alloc_device);

/**
 * rvt_dealloc_device - free a device from rvt_alloc_device()
 * @rdi: the device; unregistered, or never registered
 *
 * Context: process context.
 */
void rvt_dealloc_device(struct rvt_dev_info *rdi)
{
	kfree(rdi->ports);
	rdi->ports = NULL;
	ib_dealloc_device(&rdi->ibdev);
}
EXPORT_SYMBOL(rvt_dealloc_device);

/**
 * rvt_init_port - hand a port's structure to rdmavt
 * @rdi: the device
 * @port: the driver's port structure, initialised by the driver (lock,
 *	  multicast tree, special QP slots, GID prefix, capability flags)
 * @port_index: 0-based index (IB port number minus one)
 * @pkey_table: the port's P_Key table, dparms.npkeys entries, kept
 *		current by the driver
 *
 * Ports are never detached; they live as long as the device.
 *
 * Context: process context, before rvt_register_device().
 * Return: 0.
 */
int rvt_init_port(struct rvt_dev_info *rdi, struct rvt_ibport *port,
		  int port_index, u16 *pkey_table)
{
	port->pkey_table = pkey_table;
	rdi->ports[port_index] = port;
	return 0;
}
EXPORT_SYMBOL(rvt_init_port);

static const struct ib_device_ops rvt_dev_ops = {
	.uverbs_abi_ver = RVT_UVERBS_ABI_VERSION,

	.alloc_mr = rvt_alloc_mr,
	.alloc_pd = rvt_alloc_pd,
	.alloc_ucontext = rvt_alloc_ucontext,
	.attach_mcast = rvt_attach_mcast,
	.create_ah = rvt_create_ah,
	.create_cq = rvt_create_cq,
	.create_qp = rvt_create_qp,
	.create_srq = rvt_create_srq,
	.create_user_ah = rvt_create_ah,
	.dealloc_pd = rvt_dealloc_pd,
	.dealloc_ucontext = rvt_dealloc_ucontext,
	.dereg_mr = rvt_dereg_mr,
	.destroy_ah = rvt_destroy_ah,
	.destroy_cq = rvt_destroy_cq,
	.destroy_qp = rvt_destroy_qp,
	.destroy_srq = rvt_destroy_srq,
	.detach_mcast = rvt_detach_mcast,
	.get_dma_mr = rvt_get_dma_mr,
	.get_numa_node = rvt_get_numa_node,
	.get_port_immutable = rvt_get_port_immutable,
	.map_mr_sg = rvt_map_mr_sg,
	.mmap = rvt_mmap,
	.modify_ah = rvt_modify_ah,
	.modify_device = rvt_modify_device,
	.modify_port = rvt_modify_port,
	.modify_qp = rvt_modify_qp,
	.modify_srq = rvt_modify_srq,
	.poll_cq = rvt_poll_cq,
	.post_recv = rvt_post_recv,
	.post_send = rvt_post_send,
	.post_srq_recv = rvt_post_srq_recv,
	.query_ah = rvt_query_ah,
	.query_device = rvt_query_device,
	.query_gid = rvt_query_gid,
	.query_pkey = rvt_query_pkey,
	.query_port = rvt_query_port,
	.query_qp = rvt_query_qp,
	.query_srq = rvt_query_srq,
	.reg_user_mr = rvt_reg_user_mr,
	.req_notify_cq = rvt_req_notify_cq,
	.resize_cq = rvt_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, rvt_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, rvt_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, rvt_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, rvt_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, rvt_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rvt_ucontext, ibucontext),
};

/*
 * A driver callback rdmavt needs in order to implement a verb, unless the
 * driver implements that verb itself (driver ops are installed first and
 * win over ours). A zero verb offset marks a callback that is always
 * required.
 */
struct rvt_requirement {
	const char *verb;
	size_t verb_offset;
	const char *callback;
	size_t callback_offset;
};

#define RVT_NEEDS(_verb, _cb) {						\
	.verb = #_verb,							\
	.verb_offset = offsetof(typeof_member(struct ib_device, ops), _verb), \
	.callback = #_cb,						\
	.callback_offset = offsetof(struct rvt_driver_provided, _cb),	\
}

static const struct rvt_requirement rvt_requirements[] = {
	RVT_NEEDS(query_port, query_port_state),
	RVT_NEEDS(modify_port, cap_mask_chg),
	RVT_NEEDS(modify_port, shut_down_port),
	RVT_NEEDS(query_gid, get_guid_be),
	RVT_NEEDS(create_qp, qp_priv_alloc),
	RVT_NEEDS(create_qp, qp_priv_free),
	RVT_NEEDS(create_qp, notify_qp_reset),
	RVT_NEEDS(create_qp, flush_qp_waiters),
	RVT_NEEDS(create_qp, stop_send_queue),
	RVT_NEEDS(create_qp, quiesce_qp),
	RVT_NEEDS(modify_qp, notify_qp_reset),
	RVT_NEEDS(modify_qp, schedule_send),
	RVT_NEEDS(modify_qp, get_pmtu_from_attr),
	RVT_NEEDS(modify_qp, flush_qp_waiters),
	RVT_NEEDS(modify_qp, stop_send_queue),
	RVT_NEEDS(modify_qp, quiesce_qp),
	RVT_NEEDS(modify_qp, notify_error_qp),
	RVT_NEEDS(modify_qp, mtu_from_qp),
	RVT_NEEDS(modify_qp, mtu_to_path_mtu),
	RVT_NEEDS(destroy_qp, qp_priv_free),
	RVT_NEEDS(destroy_qp, notify_qp_reset),
	RVT_NEEDS(destroy_qp, flush_qp_waiters),
	RVT_NEEDS(destroy_qp, stop_send_queue),
	RVT_NEEDS(destroy_qp, quiesce_qp),
	RVT_NEEDS(query_qp, mtu_to_path_mtu),
	RVT_NEEDS(post_send, schedule_send),
	RVT_NEEDS(post_send, schedule_send_no_lock),
	RVT_NEEDS(post_send, do_send),
};

static bool rvt_slot_set(const void *base, size_t offset)
{
	return *(void * const *)((const char *)base + offset);
}

static int rvt_check_callbacks(struct rvt_dev_info *rdi)
{
	const struct rvt_requirement *req;

	for (req = rvt_requirements;
	     req < rvt_requirements + ARRAY_SIZE(rvt_requirements); req++) {
		if (rvt_slot_set(&rdi->ibdev.ops, req->verb_offset) ||
		    rvt_slot_set(&rdi->driver_f, req->callback_offset))
			continue;
		ibdev_err(&rdi->ibdev,
			  "driver implements neither %s nor the %s callback\n",
			  req->verb, req->callback);
		return -EINVAL;
	}
	return 0;
}

static int rvt_check_ports(struct rvt_dev_info *rdi)
{
	u32 i;

	if (!rdi->ibdev.phys_port_cnt ||
	    rdi->ibdev.phys_port_cnt != rdi->dparms.nports) {
		ibdev_err(&rdi->ibdev, "phys_port_cnt %u, dparms.nports %d\n",
			  rdi->ibdev.phys_port_cnt, rdi->dparms.nports);
		return -EINVAL;
	}
	for (i = 0; i < rdi->ibdev.phys_port_cnt; i++) {
		if (!rdi->ports[i] || !rdi->ports[i]->pkey_table) {
			ibdev_err(&rdi->ibdev, "port %u not initialised\n",
				  i + 1);
			return -EINVAL;
		}
	}
	if (rdi->dparms.npkeys < 1) {
		ibdev_err(&rdi->ibdev, "a port needs at least one P_Key\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Refuse a driver that has not given rdmavt what it will dereference
 * later: failing registration with a message beats an oops in a verb.
 */
static int rvt_check_driver(struct rvt_dev_info *rdi)
{
	if (!rdi->ibdev.ops.port_groups) {
		ibdev_err(&rdi->ibdev, "driver must set ops.port_groups\n");
		return -EINVAL;
	}
	/* Our post_send checks requests against them; completions map. */
	if (!rdi->ibdev.ops.post_send && (!rdi->post_parms || !rdi->wc_opcode)) {
		ibdev_err(&rdi->ibdev,
			  "driver must set post_parms and wc_opcode\n");
		return -EINVAL;
	}
	return rvt_check_callbacks(rdi) ?: rvt_check_ports(rdi);
}

/* Settings that only rdmavt, not the driver, can know. */
static void rvt_set_core_attrs(struct rvt_dev_info *rdi)
{
	struct ib_device *ibdev = &rdi->ibdev;

	/* The provider polls CQs and posts receives on mmap'd rings but
	 * still sends these commands; the IB core refuses them unless the
	 * device asks for them.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POLL_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV);
	ibdev->node_type = RDMA_NODE_IB_CA;
	if (!ibdev->num_comp_vectors)
		ibdev->num_comp_vectors = 1;
}

/**
 * rvt_init_device_state - set up what rdmavt keeps per device
 * @rdi: the device being registered
 *
 * The QP table and counts, rdmavt's verbs (under the driver's own), the
 * per-object counts, the lkey table and the copy mode's working-set
 * estimate.
 *
 * Context: process context.
 * Return: 0, -EINVAL for unusable QP table parameters, or -ENOMEM.
 */
static int rvt_init_device_state(struct rvt_dev_info *rdi)
{
	int ret;

	ret = rvt_driver_qp_init(rdi);
	if (ret)
		return ret;
	ib_set_device_ops(&rdi->ibdev, &rvt_dev_ops);
	rvt_driver_pd_init(rdi);
	rvt_driver_cq_init(rdi);
	rvt_mmap_init(rdi);
	rvt_driver_ah_init(rdi);
	rvt_driver_mcast_init(rdi);
	rvt_driver_srq_init(rdi);
	ret = rvt_driver_mr_init(rdi);
	if (ret)
		goto qp_exit;
	ret = rvt_wss_init(rdi);
	if (ret)
		goto mr_exit;
	return 0;

mr_exit:
	rvt_mr_exit(rdi);
qp_exit:
	rvt_qp_exit(rdi);
	return ret;
}

/**
 * rvt_exit_device_state - undo rvt_init_device_state()
 * @rdi: the device, unregistered from the IB core or never registered
 *
 * QPs first: resetting those left drops their memory region references.
 *
 * Context: process context; may sleep.
 */
static void rvt_exit_device_state(struct rvt_dev_info *rdi)
{
	rvt_qp_exit(rdi);
	rvt_mr_exit(rdi);
	rvt_wss_exit(rdi);
}

/**
 * rvt_register_device - check a driver's device and register it with
 *			 the IB core
 * @rdi: the device, from rvt_alloc_device(), with dparms, driver_f, the
 *	 driver's own ib_device_ops and every port filled in, and named with
 *	 rvt_set_ibdev_name()
 *
 * Verbs the driver implemented itself take precedence over rdmavt's.
 * Once the IB core has the device, every port that has a QP0 gets its SMI
 * send agent (rvt_ibport.send_agent) and the driver's
 * notify_create_mad_agent() is called for it (mad.c).
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if the driver left out something rdmavt needs,
 * -ENOMEM if the lkey table cannot be allocated, or the IB core's
 * negative errno.
 */
int rvt_register_device(struct rvt_dev_info *rdi)
{
	int ret;

	if (!rdi)
		return -EINVAL;
	ret = rvt_check_driver(rdi);
	if (ret)
		return ret;

	trace_rvt_dbg(rdi, "Driver attempting registration");
	ret = rvt_init_device_state(rdi);
	if (ret)
		return ret;
	rvt_set_core_attrs(rdi);

	ret = ib_register_device(&rdi->ibdev, dev_name(&rdi->ibdev.dev), NULL);
	if (ret) {
		ibdev_err(&rdi->ibdev, "IB core registration failed: %d\n",
			  ret);
		rvt_exit_device_state(rdi);
		return ret;
	}
	/* As upstream: a port without QP0 has no agent, and that is fine. */
	ret = rvt_create_mad_agents(rdi);
	if (ret)
		ibdev_dbg(&rdi->ibdev, "no SMI send agents: %d\n", ret);
	/* Upstream's words, which logs and scripts may look for. */
	ibdev_info(&rdi->ibdev, "Registration with rdmavt done.\n");
	return 0;
}
EXPORT_SYMBOL(rvt_register_device);

/**
 * rvt_unregister_device - remove a device from the IB core
 * @rdi: a device registered with rvt_register_device(), or NULL
 *
 * First removes the ports' SMI send agents and the SM address handles the
 * driver made for its traps, calling notify_free_mad_agent() for every
 * port (mad.c). Returns once no client and no user context can reach the
 * device; the driver then frees it with rvt_dealloc_device().
 *
 * Context: process context; sleeps until users are gone.
 */
void rvt_unregister_device(struct rvt_dev_info *rdi)
{
	unsigned int groups;

	if (!rdi)
		return;
	trace_rvt_dbg(rdi, "Driver is unregistering.");
	rvt_free_mad_agents(rdi);
	ib_unregister_device(&rdi->ibdev);
	rvt_exit_device_state(rdi);
	groups = rvt_mcast_groups_left(rdi);
	if (groups)
		ibdev_err(&rdi->ibdev, "%u multicast group(s) leaked\n",
			  groups);
}
EXPORT_SYMBOL(rvt_unregister_device);

static int __init rvt_module_init(void)
{
	return rvt_cq_module_init();
}
module_init(rvt_module_init);

static void __exit rvt_module_exit(void)
{
	rvt_cq_module_exit();
}
module_exit(rvt_module_exit);
