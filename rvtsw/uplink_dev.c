// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * How users make and see uplinks: `rdma link add NAME type rvtsw netdev
 * IFNAME` (or the module parameter uplink=IFNAME, main.c) links an
 * Ethernet interface to one of the switch's uplink ports, and NAME is an
 * ib_device of its own that stands for that switch port: its port 1
 * reports the switch port's state, physical state and MTU, its netdev
 * the interface (`rdma link show`), its hw_counters the uplink's
 * counters (`rdma statistic show link NAME/1`). `rdma link delete NAME`
 * takes the uplink apart. The device has no verbs: it is no HCA, so no
 * kernel ULP and no user context attaches to it (the IB core gives
 * devices without the mandatory verbs to no such client), and its port
 * is a raw-packet port of an Ethernet link layer, with no GIDs, P_Keys
 * or MADs. The switch's uplink ports are there from the module's load
 * (its `uplinks` parameter), as a switch's ports are there from its
 * making; each link takes a free one.
 *
 * The interface is held from the link's making until the uplink is
 * stopped for good, by the uplink and by the IB core (uplink.c says who
 * lets go of each, on which path). An interface that goes away
 * (NETDEV_UNREGISTER) stops its uplink at once, lets go of both
 * references there and then, and queues its ib_device's unregistration,
 * as rxe does; NETDEV_UP, NETDEV_DOWN and NETDEV_CHANGE see whether the
 * link is still alive; NETDEV_CHANGEMTU follows the MTU.
 *
 * Locking: rvtsw_uplinks.mutex guards the table of uplink ports, each
 * uplink's @started, @dead and (once in the table) @ndev. It is taken
 * inside RTNL (the notifier; the making of a link, to see the interface
 * is still registered) and inside the IB core's unregistration of a
 * device (dealloc_driver); inside it are taken only the IB core's
 * per-port netdev lock (ib_device_set_netdev()) and a device's release.
 *
 * Lifetime: a port of the table holds a reference on its uplink's
 * ib_device (get_device()) from the reservation until the port is
 * reclaimed, after dealloc_driver marked the uplink @dead: by the next
 * reservation, or by the module's unload. The unload calls
 * ib_unregister_device() on every uplink it reclaims, dead or not: the
 * IB core holds a device's unregistration lock across dealloc_driver, so
 * that call returns only once no unregistration of it (rdma link
 * delete's, a queued one, its own) is still in rvtsw's code.
 */
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include "uplink.h"

/**
 * struct rvtsw_uplinks - the switch's uplink ports
 * @mutex: guards @slot, and the uplinks' @started and @dead
 * @sw: the switch; NULL before rvtsw_uplinks_init()
 * @first: its first uplink port
 * @count: how many it has
 * @guid_base: the node GUID of the first uplink's ib_device; the others
 *	       follow
 * @slot: the uplink on each port, from its making to its freeing
 */
struct rvtsw_uplinks {
	struct mutex mutex; /* the table and the uplinks' lifetimes */
	struct rvtsw_switch *sw;
	unsigned int first;
	unsigned int count;
	u64 guid_base;
	struct rvtsw_uplink *slot[RVTSW_MAX_UPLINKS];
};

static struct rvtsw_uplinks rvtsw_uplinks = {
	.mutex = __MUTEX_INITIALIZER(rvtsw_uplinks.mutex),
};

/* The hw_counters' names: the engine's, then the uplink's own. */
static struct rdma_stat_desc rvtsw_uplink_descs[RVTSW_UP_NUM_COUNTERS];

static const char *const rvtsw_uplink_names[] = {
	[RVTSW_UP_TX_FRAMES - RVTSW_NUM_COUNTERS] = "uplink_tx_frames",
	[RVTSW_UP_RX_FRAMES - RVTSW_NUM_COUNTERS] = "uplink_rx_frames",
	[RVTSW_UP_TX_HELLOS - RVTSW_NUM_COUNTERS] = "uplink_tx_heartbeats",
	[RVTSW_UP_RX_HELLOS - RVTSW_NUM_COUNTERS] = "uplink_rx_heartbeats",
	[RVTSW_UP_DROP_HELLO - RVTSW_NUM_COUNTERS] = "drop_own_heartbeat",
	[RVTSW_UP_DROP_TX_OVERSIZE - RVTSW_NUM_COUNTERS] = "drop_tx_over_mtu",
	[RVTSW_UP_DROP_TX_QUEUE_FULL - RVTSW_NUM_COUNTERS] =
		"drop_tx_queue_full",
	[RVTSW_UP_DROP_TX_ERROR - RVTSW_NUM_COUNTERS] = "drop_tx_error",
};

static struct rvtsw_uplink *rvtsw_ib_uplink(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rvtsw_uplink, ibdev);
}

/**
 * rvtsw_uplink_query_device - what an uplink's device says of itself
 * @ibdev: the uplink's ib_device
 * @props: filled: `rdma link delete` may take it apart, its image GUID
 * @udata: unused: no user context attaches to it
 *
 * Context: process context.
 * Return: 0.
 */
static int rvtsw_uplink_query_device(struct ib_device *ibdev,
				     struct ib_device_attr *props,
				     struct ib_udata *udata)
{
	props->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	props->sys_image_guid = ibdev->node_guid;
	return 0;
}

/**
 * rvtsw_uplink_query_port - the uplink's switch port, as port 1
 * @ibdev: the uplink's ib_device
 * @port_num: 1, its one port
 * @props: filled: the switch port's state, physical state and IB MTU
 *
 * Context: any; reads the switch port's state without its lock.
 * Return: 0.
 */
static int rvtsw_uplink_query_port(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attr *props)
{
	struct rvtsw_uplink *up = rvtsw_ib_uplink(ibdev);
	u8 mtu = READ_ONCE(up->end.mtu);

	props->state = READ_ONCE(up->sw->port_state[up->num]);
	props->phys_state = rvtsw_link_switch_phys(up->sw, up->num);
	props->max_mtu = IB_MTU_4096;
	props->active_mtu = mtu ?: IB_MTU_256;
	props->active_speed = IB_SPEED_QDR;
	props->active_width = IB_WIDTH_4X;
	props->max_msg_sz = ib_mtu_enum_to_int(props->active_mtu);
	return 0;
}

/**
 * rvtsw_uplink_port_immutable - port 1 is a raw-packet port
 * @ibdev: the uplink's ib_device
 * @port_num: 1
 * @immutable: filled: no GIDs, no P_Keys, no MADs
 *
 * Context: process context (the device's registration).
 * Return: 0.
 */
static int rvtsw_uplink_port_immutable(struct ib_device *ibdev, u32 port_num,
				       struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_RAW_PACKET;
	return 0;
}

/**
 * rvtsw_uplink_link_layer - the link layer of port 1
 * @ibdev: the uplink's ib_device
 * @port_num: 1
 *
 * Context: any.
 * Return: IB_LINK_LAYER_ETHERNET: the interface's.
 */
static enum rdma_link_layer rvtsw_uplink_link_layer(struct ib_device *ibdev,
						    u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/**
 * rvtsw_uplink_alloc_stats - the hw_counters of port 1
 * @ibdev: the uplink's ib_device
 * @port_num: 1
 *
 * Context: process context (the device's registration).
 * Return: the engine's counters and the uplink's own, or NULL.
 */
static struct rdma_hw_stats *rvtsw_uplink_alloc_stats(struct ib_device *ibdev,
						      u32 port_num)
{
	return rdma_alloc_hw_stats_struct(rvtsw_uplink_descs,
					  RVTSW_UP_NUM_COUNTERS, 0);
}

/**
 * rvtsw_uplink_get_stats - read the uplink's counters
 * @ibdev: the uplink's ib_device
 * @stats: from rvtsw_uplink_alloc_stats()
 * @port_num: 1
 * @index: unused: every counter is read
 *
 * Context: process context; sums per-CPU parts without a lock.
 * Return: how many counters were read, or -EINVAL for another layout.
 */
static int rvtsw_uplink_get_stats(struct ib_device *ibdev,
				  struct rdma_hw_stats *stats, u32 port_num,
				  int index)
{
	struct rvtsw_uplink *up = rvtsw_ib_uplink(ibdev);
	unsigned int i;

	if (stats->num_counters != RVTSW_UP_NUM_COUNTERS)
		return -EINVAL;
	for (i = 0; i < RVTSW_UP_NUM_COUNTERS; i++)
		stats->value[i] = rvtsw_uplink_read(up, i);
	return RVTSW_UP_NUM_COUNTERS;
}

/**
 * rvtsw_uplink_dealloc - the IB core takes an uplink's device apart
 * @ibdev: the uplink's ib_device
 *
 * On `rdma link delete`, the interface gone, the module's unload, or a
 * failed making at any step: the uplink stops and frees what it took
 * (its reference on the interface included); its port of the table is
 * reclaimed later. The core frees the device.
 *
 * Context: process context, inside the IB core's unregistration lock of
 * the device (or its ib_dealloc_device()); sleeps.
 */
static void rvtsw_uplink_dealloc(struct ib_device *ibdev)
{
	struct rvtsw_uplink *up = rvtsw_ib_uplink(ibdev);
	struct rvtsw_uplinks *ups = &rvtsw_uplinks;

	mutex_lock(&ups->mutex);
	rvtsw_uplink_stop(up);
	rvtsw_uplink_free(up);
	/* Its port is reclaimed later, the device kept until then. */
	up->dead = true;
	mutex_unlock(&ups->mutex);
}

static const struct ib_device_ops rvtsw_uplink_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.query_device = rvtsw_uplink_query_device,
	.query_port = rvtsw_uplink_query_port,
	.get_port_immutable = rvtsw_uplink_port_immutable,
	.get_link_layer = rvtsw_uplink_link_layer,
	.alloc_hw_port_stats = rvtsw_uplink_alloc_stats,
	.get_hw_stats = rvtsw_uplink_get_stats,
	.dealloc_driver = rvtsw_uplink_dealloc,
};

/* The uplink on @ndev, if there is one. */
static struct rvtsw_uplink *rvtsw_uplink_on(struct net_device *ndev)
	__must_hold(&rvtsw_uplinks.mutex)
{
	struct rvtsw_uplinks *ups = &rvtsw_uplinks;
	unsigned int i;

	for (i = 0; i < ups->count; i++)
		if (ups->slot[i] && !ups->slot[i]->dead &&
		    ups->slot[i]->ndev == ndev)
			return ups->slot[i];
	return NULL;
}

/* Take port @i from the table; its device is the caller's to put. */
static struct rvtsw_uplink *rvtsw_uplink_unslot(unsigned int i)
	__must_hold(&rvtsw_uplinks.mutex)
{
	struct rvtsw_uplink *up = rvtsw_uplinks.slot[i];

	rvtsw_uplinks.slot[i] = NULL;
	return up;
}

/* Give back the ports of uplinks whose dealloc_driver ran. */
static void rvtsw_uplinks_reclaim(void)
	__must_hold(&rvtsw_uplinks.mutex)
{
	struct rvtsw_uplinks *ups = &rvtsw_uplinks;
	unsigned int i;

	for (i = 0; i < ups->count; i++)
		if (ups->slot[i] && ups->slot[i]->dead)
			put_device(&rvtsw_uplink_unslot(i)->ibdev.dev);
}

/* Give @up a free uplink port. Return: 0, -EEXIST or -ENOSPC. */
static int rvtsw_uplink_reserve(struct rvtsw_uplink *up)
{
	struct rvtsw_uplinks *ups = &rvtsw_uplinks;
	unsigned int i;
	int ret = -ENOSPC;

	mutex_lock(&ups->mutex);
	rvtsw_uplinks_reclaim();
	if (rvtsw_uplink_on(up->ndev)) {
		ret = -EEXIST;
		goto out;
	}
	for (i = 0; i < ups->count; i++) {
		if (ups->slot[i])
			continue;
		ups->slot[i] = up;
		get_device(&up->ibdev.dev);
		up->index = i;
		up->sw = ups->sw;
		up->num = ups->first + i;
		ret = 0;
		break;
	}
out:
	mutex_unlock(&ups->mutex);
	return ret;
}

/*
 * Start a registered uplink, unless its device was taken apart already
 * or its interface is going away (whose NETDEV_UNREGISTER then found it
 * not started). Return: 0 or -ENODEV.
 */
static int rvtsw_uplink_go(struct rvtsw_uplink *up)
{
	int ret = -ENODEV;

	rtnl_lock();
	mutex_lock(&rvtsw_uplinks.mutex);
	if (!up->dead && up->ndev->reg_state == NETREG_REGISTERED) {
		rvtsw_uplink_start(up);
		ret = 0;
	}
	mutex_unlock(&rvtsw_uplinks.mutex);
	rtnl_unlock();
	return ret;
}

/* What @up's ib_device says of itself, and its interface. */
static int rvtsw_uplink_describe(struct rvtsw_uplink *up)
{
	struct ib_device *ibdev = &up->ibdev;

	ibdev->node_type = RDMA_NODE_UNSPECIFIED;
	ibdev->phys_port_cnt = 1;
	ibdev->node_guid = cpu_to_be64(rvtsw_uplinks.guid_base + up->index);
	snprintf(ibdev->node_desc, sizeof(ibdev->node_desc),
		 "rvtsw uplink %s", netdev_name(up->ndev));
	return ib_device_set_netdev(ibdev, up->ndev, 1);
}

/**
 * rvtsw_uplink_add - make an uplink on an interface
 * @name: its ib_device's name (a %d in it is numbered)
 * @ndev: the interface, an Ethernet one, held by the caller
 *
 * Context: process context, RTNL not held; sleeps.
 * Return: 0; -EINVAL if @ndev is no Ethernet interface or its MTU carries
 * no IB packet; -EEXIST if it has an uplink already; -ENOSPC if every
 * uplink port of the switch is taken; -ENODEV if it went away meanwhile;
 * -ENOMEM, or what registering the ib_device returned.
 */
int rvtsw_uplink_add(const char *name, struct net_device *ndev)
{
	struct rvtsw_uplink *up;
	struct ib_device *ibdev;
	int ret;

	if (ndev->type != ARPHRD_ETHER || !rvtsw_uplink_ib_mtu(ndev->mtu))
		return -EINVAL;
	up = ib_alloc_device(rvtsw_uplink, ibdev);
	if (!up)
		return -ENOMEM;
	ibdev = &up->ibdev;
	/*
	 * The ops first: ib_dealloc_device() calls dealloc_driver only if
	 * it is set, and it is what lets go of what each step below took.
	 */
	ib_set_device_ops(ibdev, &rvtsw_uplink_dev_ops);
	ret = rvtsw_uplink_init(up, ndev) ?: rvtsw_uplink_reserve(up) ?:
	      rvtsw_uplink_describe(up) ?: ib_register_device(ibdev, name, NULL);
	if (ret) {
		/* Not registered: ours to free, dealloc_driver undoing it. */
		ib_dealloc_device(ibdev);
		return ret;
	}
	/* Kept while it starts, should someone delete it meanwhile. */
	get_device(&ibdev->dev);
	ret = rvtsw_uplink_go(up);
	if (ret)
		ib_unregister_device(ibdev);
	put_device(&ibdev->dev);
	return ret;
}

static int rvtsw_uplink_newlink(const char *name, struct net_device *ndev)
{
	return rvtsw_uplink_add(name, ndev);
}

static struct rdma_link_ops rvtsw_uplink_link_ops = {
	.type = RVTSW_NAME,
	.newlink = rvtsw_uplink_newlink,
};

/* An interface's event, for the uplink on it if there is one. */
static int rvtsw_uplink_netdev_event(struct notifier_block *nb,
				     unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct rvtsw_uplink *up;

	mutex_lock(&rvtsw_uplinks.mutex);
	up = rvtsw_uplink_on(ndev);
	if (!up || !up->started)
		goto out;
	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Both references go now, the IB core's as its
		 * ib_device_set_netdev() asks of a NETDEV_UNREGISTER, so
		 * that the interface does not wait for the device.
		 */
		rvtsw_uplink_stop(up);
		ib_device_set_netdev(&up->ibdev, NULL, 1);
		rvtsw_uplink_put_netdev(up);
		/* Unless it is being unregistered already. */
		if (ib_device_try_get(&up->ibdev)) {
			ib_unregister_device_queued(&up->ibdev);
			ib_device_put(&up->ibdev);
		}
		break;
	case NETDEV_CHANGEMTU:
		rvtsw_uplink_set_mtu(up);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		rvtsw_uplink_check(up);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&rvtsw_uplinks.mutex);
	return NOTIFY_DONE;
}

static struct notifier_block rvtsw_uplink_nb = {
	.notifier_call = rvtsw_uplink_netdev_event,
};

/**
 * rvtsw_uplinks_init - the switch's uplink ports, and `rdma link add`
 * @sw: the switch
 * @first: its first uplink port
 * @count: how many it has (0 to RVTSW_MAX_UPLINKS)
 * @guid_base: the node GUID of the first uplink's ib_device
 *
 * Context: module init.
 * Return: 0, or what registering the netdev notifier returned.
 */
int rvtsw_uplinks_init(struct rvtsw_switch *sw, unsigned int first,
		       unsigned int count, u64 guid_base)
{
	struct rvtsw_uplinks *ups = &rvtsw_uplinks;
	unsigned int i;
	int ret;

	for (i = 0; i < RVTSW_NUM_COUNTERS; i++)
		rvtsw_uplink_descs[i].name = rvtsw_counter_name(i);
	for (; i < RVTSW_UP_NUM_COUNTERS; i++)
		rvtsw_uplink_descs[i].name =
			rvtsw_uplink_names[i - RVTSW_NUM_COUNTERS];
	ups->first = first;
	ups->count = count;
	ups->guid_base = guid_base;
	ret = register_netdevice_notifier(&rvtsw_uplink_nb);
	if (ret)
		return ret;
	ups->sw = sw;
	rdma_link_register(&rvtsw_uplink_link_ops);
	return 0;
}

/**
 * rvtsw_uplinks_exit - take every uplink apart
 *
 * Nothing to do if rvtsw_uplinks_init() did not succeed.
 *
 * Context: module exit, before the switch goes; sleeps.
 */
void rvtsw_uplinks_exit(void)
{
	struct rvtsw_uplinks *ups = &rvtsw_uplinks;
	struct rvtsw_uplink *up;
	unsigned int i;

	if (!ups->sw)
		return;
	/* Waits for a link being made: none is made after. */
	rdma_link_unregister(&rvtsw_uplink_link_ops);
	for (i = 0; i < ups->count; i++) {
		mutex_lock(&ups->mutex);
		up = rvtsw_uplink_unslot(i);
		mutex_unlock(&ups->mutex);
		if (!up)
			continue;
		/*
		 * Dead or not: returns once no unregistration of it (a
		 * deletion's, a queued one) is still in dealloc_driver.
		 */
		ib_unregister_device(&up->ibdev);
		put_device(&up->ibdev.dev);
	}
	unregister_netdevice_notifier(&rvtsw_uplink_nb);
	ups->sw = NULL;
	ups->count = 0;
}
