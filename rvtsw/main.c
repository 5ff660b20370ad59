// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rvtsw module: creates the software HCAs and registers them with rdmavt.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/log2.h>
#include <linux/etherdevice.h>
#include "rvtsw.h"
#include "uplink.h"
#include "wire.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Software RDMA HCA on rdmavt");
MODULE_ALIAS("rdma-link-rvtsw");

/* First GUID of device 0; devices step by 0x100, ports add 1..n. */
#define RVTSW_GUID_BASE 0x0002c90300a00000ULL
/* The virtual switch's node GUID, past every device's. */
#define RVTSW_SWITCH_GUID (RVTSW_GUID_BASE + 0xffff00)
/* The uplinks' ib_devices, before the switch's. */
#define RVTSW_UPLINK_GUID (RVTSW_GUID_BASE + 0xfffe00)
/*
 * GUIDs from an uplink's MAC address: its 48 bits, then 16 bits of
 * rvtsw's (devices from 0, uplinks from 0xfe00, the switch 0xff00), so
 * that hosts whose interfaces' addresses differ never share one.
 */
#define RVTSW_MAC_UPLINK_GUID 0xfe00
#define RVTSW_MAC_SWITCH_GUID 0xff00

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of rvtsw devices (1-16, default 1)");

static unsigned int ports = 1;
module_param(ports, uint, 0444);
MODULE_PARM_DESC(ports, "Ports per device (1-4, default 1)");

static ushort extra_pkey;
module_param(extra_pkey, ushort, 0444);
MODULE_PARM_DESC(extra_pkey,
		 "A second P_Key for every port's table, after 0xffff (default none)");

static unsigned int max_pd = 4096;
module_param(max_pd, uint, 0444);
MODULE_PARM_DESC(max_pd, "Protection domains per device (default 4096)");

static unsigned int max_cq = 131071;
module_param(max_cq, uint, 0444);
MODULE_PARM_DESC(max_cq, "Completion queues per device (default 131071)");

static unsigned int max_qp = 16384;
module_param(max_qp, uint, 0444);
MODULE_PARM_DESC(max_qp,
		 "Queue pairs per device, QP0 and QP1 included (default 16384)");

/*
 * Handed to rdmavt as they are: testing its checks is their purpose. Left
 * at -1, the QP table gets a bucket per QP rvtsw allows (max_qp rounded
 * up to a power of 2), so that a lookup stays one step however many QPs
 * live: 8 bytes per QP.
 */
#define RVTSW_QPN_SPACE BIT(24)
static int qp_table_size = -1;
module_param(qp_table_size, int, 0444);
MODULE_PARM_DESC(qp_table_size,
		 "Buckets of the QP table, not 0 (default -1: max_qp rounded up to a power of 2)");

static unsigned int sge_copy_mode = RVT_SGE_COPY_MEMCPY;
module_param(sge_copy_mode, uint, 0444);
MODULE_PARM_DESC(sge_copy_mode,
		 "How rdmavt copies large transfers: 0 memcpy, 1 around the cache, 2 around it once the working set outgrows it (default 0)");

static int qpn_res_start;
module_param(qpn_res_start, int, 0444);
MODULE_PARM_DESC(qpn_res_start,
		 "First QP number kept from verbs QPs (default 0)");

static int qpn_res_end;
module_param(qpn_res_end, int, 0444);
MODULE_PARM_DESC(qpn_res_end,
		 "Last QP number kept from verbs QPs (default 0)");

static bool smi = true;
module_param(smi, bool, 0444);
MODULE_PARM_DESC(smi,
		 "Ports have a subnet management interface, QP0, which the MAD layer then holds (default Y)");

static bool managed;
module_param(managed, bool, 0444);
MODULE_PARM_DESC(managed,
		 "A subnet manager (OpenSM) brings the fabric up: ports start in INIT with LID 0, the switch unprogrammed (default N: ports ACTIVE, LIDs fixed)");

static char *uplink;
module_param(uplink, charp, 0444);
MODULE_PARM_DESC(uplink,
		 "Ethernet interface linked to the switch's first uplink port at load, as rvtsw_up0 (rdma link add makes more); every GUID then derives from its MAC address (default none)");

static unsigned int uplinks;
module_param(uplinks, uint, 0444);
MODULE_PARM_DESC(uplinks,
		 "Switch ports for uplinks to other hosts (0-4, default 0; at least 1 with uplink=)");

static char *parent;
module_param(parent, charp, 0444);
MODULE_PARM_DESC(parent,
		 "PCI device (DDDD:BB:DD.F) reported as the HCA's parent (default: none; rdmavt cores that log through one get the system's first)");

/* Guarded by module init/exit, which never run concurrently. */
static struct rvtsw_dev *rvtsw_devs[RVTSW_MAX_DEVICES];
/*
 * What get_pci_dev() returns, and whether parent= named it
 * (rvtsw_find_parent()): written at module init only, read-only after.
 */
static struct pci_dev *rvtsw_parent;
static bool rvtsw_parent_named;
/* The switch every device's ports are linked to. */
static struct rvtsw_switch *rvtsw_sw;
/* The GUIDs: device 0's node GUID, the first uplink's, the switch's. */
static u64 rvtsw_guid_base = RVTSW_GUID_BASE;
static u64 rvtsw_uplink_guid = RVTSW_UPLINK_GUID;
static u64 rvtsw_switch_guid = RVTSW_SWITCH_GUID;

static const struct attribute_group *rvtsw_port_groups[] = { NULL };

static const struct ib_device_ops rvtsw_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_QIB,
	.port_groups = rvtsw_port_groups,
	.modify_device = rvtsw_modify_device,
	.process_mad = rvtsw_process_mad,
	.alloc_hw_port_stats = rvtsw_alloc_hw_port_stats,
	.get_hw_stats = rvtsw_get_hw_stats,
};

static struct pci_dev *rvtsw_get_pci_dev(struct rvt_dev_info *rdi)
{
	return rdi_to_rvtsw(rdi)->parent;
}

static u16 rvtsw_npkeys(void)
{
	return extra_pkey ? 2 : 1;
}

static void rvtsw_set_props(struct rvtsw_dev *dev)
{
	struct ib_device_attr *props = &dev->rdi.dparms.props;

	props->fw_ver = 1ULL << 32;
	props->sys_image_guid = dev->rdi.ibdev.node_guid;
	props->vendor_id = 0x1175;	/* the QLogic OUI, as qib reports */
	props->vendor_part_id = 0x5357;	/* "SW" */
	props->hw_ver = 1;
	props->max_mr_size = U64_MAX;
	props->page_size_cap = PAGE_SIZE;
	props->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				  IB_DEVICE_BAD_QKEY_CNTR |
				  IB_DEVICE_SHUTDOWN_PORT |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_RC_RNR_NAK_GEN |
				  IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_SRQ_RESIZE |
				  IB_DEVICE_MEM_MGT_EXTENSIONS;
	props->max_qp = max_qp;
	props->max_qp_wr = 16383;
	props->max_send_sge = 96;
	props->max_recv_sge = 96;
	props->max_sge_rd = 96;
	props->max_cq = max_cq;
	props->max_cqe = 1048575;
	props->max_pd = max_pd;
	props->max_ah = 65535;
	props->max_srq = 16384;
	props->max_srq_wr = 16383;
	props->max_srq_sge = 96;
	props->max_qp_rd_atom = 16;
	props->max_qp_init_rd_atom = 16;
	props->max_res_rd_atom = props->max_qp_rd_atom * props->max_qp;
	props->atomic_cap = IB_ATOMIC_GLOB;
	props->max_mcast_grp = 16384;
	props->max_mcast_qp_attach = 16;
	props->max_total_mcast_qp_attach = props->max_mcast_qp_attach *
					   props->max_mcast_grp;
	props->max_pkeys = rvtsw_npkeys();
	props->local_ca_ack_delay = 15;
	props->max_fast_reg_page_list_len = 512;
}

static void rvtsw_set_params(struct rvtsw_dev *dev)
{
	struct rvt_driver_params *dparms = &dev->rdi.dparms;

	rvtsw_set_props(dev);
	dparms->lkey_table_size = 16;
	dparms->qp_table_size = qp_table_size >= 0 ? qp_table_size :
		roundup_pow_of_two(clamp(max_qp, 2U, RVTSW_QPN_SPACE));
	dparms->sge_copy_mode = sge_copy_mode;
	/*
	 * The adaptive mode's estimate (hfi1's defaults): copies go around
	 * the cache once the pages written recently fill 80% of the last
	 * level cache; every 256th copy forgets a word of pages. Left 0, a
	 * period would forget at every copy and the estimate stay near 0.
	 */
	dparms->wss_threshold = 80;
	dparms->wss_clean_period = 256;
	dparms->qpn_start = 1;
	dparms->qpn_inc = 1;
	dparms->qos_shift = 0;
	dparms->qpn_res_start = qpn_res_start;
	dparms->qpn_res_end = qpn_res_end;
	dparms->nports = ports;
	dparms->npkeys = rvtsw_npkeys();
	dparms->node = first_online_node;
	dparms->psn_mask = 0xffffff;
	dparms->psn_shift = 8;
	dparms->psn_modify_mask = 0xffffff;
	dparms->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	if (!smi)
		dparms->core_cap_flags &= ~RDMA_CORE_CAP_IB_SMI;
	dparms->max_mad_size = IB_MGMT_MAD_SIZE;
	dparms->max_rdma_atomic = 16;
	dparms->extra_rdma_atomic = 0;
	dparms->reserved_operations = 1;
}

static void rvtsw_set_callbacks(struct rvtsw_dev *dev)
{
	struct rvt_driver_provided *f = &dev->rdi.driver_f;

	f->get_pci_dev = rvtsw_get_pci_dev;
	f->query_port_state = rvtsw_query_port_state;
	f->get_guid_be = rvtsw_get_guid_be;
	f->shut_down_port = rvtsw_shut_down_port;
	f->cap_mask_chg = rvtsw_cap_mask_chg;
	f->check_ah = rvtsw_check_ah;
	f->notify_new_ah = rvtsw_notify_new_ah;
	rvtsw_set_qp_callbacks(f);
	dev->rdi.post_parms = rvtsw_post_parms;
	dev->rdi.wc_opcode = rvtsw_wc_opcode;
}

static void rvtsw_free(struct rvtsw_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		rvtsw_free_port(&dev->ports[i]);
	rvt_dealloc_device(&dev->rdi);
}

/*
 * What rvt_set_ibdev_name() does, but checked: that helper ignores
 * dev_set_name()'s failure to allocate the name and then copies from the
 * NULL name it left (found by 66-failnth's load sweep: an oops in
 * strscpy() at rvtsw's load).
 */
static int rvtsw_set_name(struct rvt_dev_info *rdi, unsigned int unit)
{
	struct device *dev = &rdi->ibdev.dev;
	int ret;

	ret = dev_set_name(dev, "%s_%u", RVTSW_NAME, unit);
	if (ret)
		return ret;
	strscpy(rdi->ibdev.name, dev_name(dev), IB_DEVICE_NAME_MAX);
	return 0;
}

static struct rvtsw_dev *rvtsw_alloc(unsigned int unit)
{
	struct rvt_dev_info *rdi;
	struct rvtsw_dev *dev;
	struct ib_device *ibdev;
	unsigned int i;

	rdi = rvt_alloc_device(struct_size(dev, ports, ports), ports);
	if (!rdi)
		return NULL;
	dev = rdi_to_rvtsw(rdi);
	ibdev = &rdi->ibdev;
	dev->unit = unit;
	dev->parent = rvtsw_parent;
	if (rvtsw_set_name(rdi, unit)) {
		rvt_dealloc_device(rdi);
		return NULL;
	}

	ib_set_device_ops(ibdev, &rvtsw_dev_ops);
	ibdev->phys_port_cnt = ports;
	ibdev->node_guid = cpu_to_be64(rvtsw_guid_base + unit * 0x100);
	snprintf(ibdev->node_desc, sizeof(ibdev->node_desc),
		 "rvtsw software HCA %u", unit);
	if (rvtsw_parent_named)
		ibdev->dev.parent = &rvtsw_parent->dev;

	rvtsw_set_params(dev);
	rvtsw_set_callbacks(dev);
	for (i = 0; i < ports; i++) {
		if (rvtsw_init_port(dev, i, extra_pkey, rvtsw_sw)) {
			rvtsw_free(dev);
			return NULL;
		}
	}
	return dev;
}

static int rvtsw_add_device(unsigned int unit)
{
	struct rvtsw_dev *dev;
	int ret;

	dev = rvtsw_alloc(unit);
	if (!dev)
		return -ENOMEM;
	ret = rvt_register_device(&dev->rdi);
	if (ret) {
		rvtsw_free(dev);
		return ret;
	}
	rvtsw_devs[unit] = dev;
	rvtsw_switch_attach(dev);
	rvtsw_debugfs_add(dev);
	return 0;
}

/* Stop the receive side of an unregistered device's ports. */
static void rvtsw_stop_ports(struct rvtsw_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->rdi.dparms.nports; i++)
		rvtsw_rx_stop(&dev->ports[i]);
}

static void rvtsw_remove_devices(void)
{
	unsigned int unit;

	for (unit = 0; unit < RVTSW_MAX_DEVICES; unit++) {
		struct rvtsw_dev *dev = rvtsw_devs[unit];

		if (!dev)
			continue;
		rvtsw_debugfs_remove(dev);
		rvtsw_switch_detach(dev);
		rvtsw_trap_stop(dev);
		rvt_unregister_device(&dev->rdi);
		rvtsw_stop_ports(dev);
		rvtsw_free(dev);
		rvtsw_devs[unit] = NULL;
	}
}

/*
 * Without parent=, get_pci_dev() returns the system's first PCI device,
 * for the core's log lines alone (not the ib_device's parent in sysfs).
 * With no PCI device at all, rvtsw refuses to load: a core that logs
 * through it would be handed NULL.
 */
static int rvtsw_find_log_device(void)
{
	rvtsw_parent = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, NULL);
	if (!rvtsw_parent) {
		pr_err(RVTSW_NAME ": no PCI device for rdmavt to log through (get_pci_dev())\n");
		return -ENODEV;
	}
	return 0;
}

/*
 * The PCI device get_pci_dev() reports. The distro's rdmavt prints its
 * log lines through it (dev_info() on its struct device): a NULL one
 * oopses it. Ours never asks. parent= names the device, which then is
 * also the ib_device's parent in sysfs.
 */
static int rvtsw_find_parent(void)
{
	unsigned int domain, bus, slot, fn;

	if (!parent || !*parent)
		return rvtsw_find_log_device();
	if (sscanf(parent, "%x:%x:%x.%x", &domain, &bus, &slot, &fn) != 4) {
		pr_err(RVTSW_NAME ": parent=%s is not DDDD:BB:DD.F\n", parent);
		return -EINVAL;
	}
	rvtsw_parent = pci_get_domain_bus_and_slot(domain, bus,
						   PCI_DEVFN(slot, fn));
	if (!rvtsw_parent) {
		pr_err(RVTSW_NAME ": no PCI device %s\n", parent);
		return -ENODEV;
	}
	rvtsw_parent_named = true;
	return 0;
}

static int rvtsw_check_params(void)
{
	if (devices < 1 || devices > RVTSW_MAX_DEVICES ||
	    ports < 1 || ports > RVTSW_MAX_PORTS || max_pd < 1 ||
	    max_cq < 1 || max_cq > INT_MAX || max_qp < 1 || max_qp > RVT_QPN_MAX) {
		pr_err(RVTSW_NAME ": devices=1-%d, ports=1-%d, max_pd>=1, max_cq=1-%d, max_qp=1-%lu\n",
		       RVTSW_MAX_DEVICES, RVTSW_MAX_PORTS, INT_MAX, RVT_QPN_MAX);
		return -EINVAL;
	}
	if (uplinks > RVTSW_MAX_UPLINKS) {
		pr_err(RVTSW_NAME ": uplinks=0-%d\n", RVTSW_MAX_UPLINKS);
		return -EINVAL;
	}
	if (extra_pkey && !(extra_pkey & 0x7fff)) {
		pr_err(RVTSW_NAME ": extra_pkey=%#x is not a valid P_Key\n",
		       extra_pkey);
		return -EINVAL;
	}
	return 0;
}

/*
 * The interface of uplink=, held until the uplink is made; every GUID
 * from its MAC address.
 */
static int rvtsw_find_uplink(struct net_device **ndev)
{
	u64 mac;

	*ndev = NULL;
	if (!uplink || !*uplink)
		return 0;
	*ndev = dev_get_by_name(&init_net, uplink);
	if (!*ndev) {
		pr_err(RVTSW_NAME ": uplink=%s: no such interface\n", uplink);
		return -ENODEV;
	}
	uplinks = max(uplinks, 1U);
	mac = ether_addr_to_u64((*ndev)->dev_addr);
	rvtsw_guid_base = mac << 16;
	rvtsw_uplink_guid = rvtsw_guid_base + RVTSW_MAC_UPLINK_GUID;
	rvtsw_switch_guid = rvtsw_guid_base + RVTSW_MAC_SWITCH_GUID;
	return 0;
}

/* The uplinks: their ports, `rdma link add`, and uplink='s. */
static int rvtsw_add_uplinks(struct net_device *ndev)
{
	int ret;

	ret = rvtsw_uplinks_init(rvtsw_sw, devices * ports + 1, uplinks,
				 rvtsw_uplink_guid);
	if (ret || !ndev)
		return ret;
	ret = rvtsw_uplink_add(RVTSW_NAME "_up%d", ndev);
	if (ret)
		pr_err(RVTSW_NAME ": uplink=%s: %d\n", uplink, ret);
	return ret;
}

static void rvtsw_cleanup(void)
{
	rvtsw_uplinks_exit();
	rvtsw_remove_devices();
	rvtsw_debugfs_remove_switch(rvtsw_sw);
	rvtsw_trap_switch_stop(rvtsw_sw);
	rvtsw_switch_destroy(rvtsw_sw);
	rvtsw_sw = NULL;
	rvtsw_debugfs_exit();
	rvtsw_qp_exit();
	pci_dev_put(rvtsw_parent);
	rvtsw_parent = NULL;
}

/* Everything but the uplinks. Return: 0, or an error with nothing left. */
static int rvtsw_start(void)
{
	unsigned int unit;
	int ret;

	rvtsw_crc_init();
	ret = rvtsw_wire_selftest() ?: rvtsw_find_parent();
	if (ret)
		return ret;
	rvtsw_sw = rvtsw_switch_create(devices * ports + uplinks,
				       rvtsw_switch_guid, managed);
	if (!rvtsw_sw) {
		pci_dev_put(rvtsw_parent);
		return -ENOMEM;
	}
	rvtsw_trap_switch_init(rvtsw_sw);
	ret = rvtsw_qp_init();
	if (ret) {
		rvtsw_switch_destroy(rvtsw_sw);
		rvtsw_sw = NULL;
		pci_dev_put(rvtsw_parent);
		return ret;
	}
	rvtsw_debugfs_init();
	rvtsw_debugfs_add_switch(rvtsw_sw, "switch");
	for (unit = 0; unit < devices; unit++) {
		ret = rvtsw_add_device(unit);
		if (ret) {
			pr_err(RVTSW_NAME ": device %u: %d\n", unit, ret);
			rvtsw_cleanup();
			return ret;
		}
	}
	return 0;
}

static int __init rvtsw_init(void)
{
	struct net_device *ndev;
	int ret;

	ret = rvtsw_check_params() ?: rvtsw_find_uplink(&ndev);
	if (ret)
		return ret;
	ret = rvtsw_start();
	if (!ret)
		ret = rvtsw_add_uplinks(ndev);
	if (ret && rvtsw_sw)
		rvtsw_cleanup();
	dev_put(ndev);
	return ret;
}
module_init(rvtsw_init);

static void __exit rvtsw_exit(void)
{
	rvtsw_cleanup();
}
module_exit(rvtsw_exit);
