// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the ib_client: one refcounted fabriq_dev per RDMA device.
 *
 * Owns the device list, device add/remove/rename, async port events and the
 * port query that every reader (netlink, debugfs) goes through.  What the
 * subsystems do with a device happens in their hooks (subsys.h), which
 * this file calls at each step.  A reader
 * finds a device with a reference, then takes fabriq_dev.lock and checks
 * that ibdev is still set; removal clears ibdev under that lock, so a reader
 * never touches an ib_device that the core has already let go of.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "fabriq.h"
#include "subsys.h"

/* protects fabriq_devs and every fabriq_dev.list; also fabriq_dev.name writes */
static DEFINE_MUTEX(fabriq_devs_lock);
static LIST_HEAD(fabriq_devs);

static struct ib_client fabriq_ib_client;

static void fabriq_dev_release(struct kref *ref)
{
	struct fabriq_dev *fdev = container_of(ref, struct fabriq_dev, ref);
	const struct fabriq_subsys *ss;
	unsigned int j;
	u32 i;

	for (i = 0; i < fdev->num_ports; i++)
		fabriq_for_each_subsys(j, ss)
			if (ss->port_release)
				ss->port_release(&fdev->ports[i]);
	mutex_destroy(&fdev->lock);
	kfree(fdev);
}

/**
 * fabriq_dev_put() - drop a reference taken by one of the lookups
 * @fdev: the device, or NULL
 *
 * Context: any context that may sleep.
 */
void fabriq_dev_put(struct fabriq_dev *fdev)
{
	if (fdev)
		kref_put(&fdev->ref, fabriq_dev_release);
}

/**
 * fabriq_dev_get_by_index() - find a device by RDMA device index
 * @index: the index
 *
 * Context: process context.  Return: the device with a reference, or NULL.
 */
struct fabriq_dev *fabriq_dev_get_by_index(u32 index)
{
	struct fabriq_dev *fdev, *found = NULL;

	mutex_lock(&fabriq_devs_lock);
	list_for_each_entry(fdev, &fabriq_devs, list) {
		if (fdev->index == index) {
			kref_get(&fdev->ref);
			found = fdev;
			break;
		}
	}
	mutex_unlock(&fabriq_devs_lock);
	return found;
}

/**
 * fabriq_dev_get_by_name() - find a device by its current name
 * @name: NUL-terminated device name
 *
 * Context: process context.  Return: the device with a reference, or NULL.
 */
struct fabriq_dev *fabriq_dev_get_by_name(const char *name)
{
	struct fabriq_dev *fdev, *found = NULL;

	mutex_lock(&fabriq_devs_lock);
	list_for_each_entry(fdev, &fabriq_devs, list) {
		if (!strcmp(fdev->name, name)) {
			kref_get(&fdev->ref);
			found = fdev;
			break;
		}
	}
	mutex_unlock(&fabriq_devs_lock);
	return found;
}

/**
 * fabriq_dev_get_next() - the device with the lowest index >= @index
 * @index: where a dump continues
 *
 * Dumps keep only an index as their cursor, so a device that goes away
 * between two dump passes is simply not seen again.
 *
 * Context: process context.  Return: the device with a reference, or NULL.
 */
struct fabriq_dev *fabriq_dev_get_next(u32 index)
{
	struct fabriq_dev *fdev, *found = NULL;

	mutex_lock(&fabriq_devs_lock);
	list_for_each_entry(fdev, &fabriq_devs, list) {
		if (fdev->index >= index) {
			kref_get(&fdev->ref);
			found = fdev;
			break;
		}
	}
	mutex_unlock(&fabriq_devs_lock);
	return found;
}

/* Per-lane data rate in Mb/s for each IB speed bit (1 SDR ... 256 XDR). */
static u32 fabriq_lane_mbps(u16 speed)
{
	switch (speed) {
	case 1:   return 2500;		/* SDR */
	case 2:   return 5000;		/* DDR */
	case 4:   return 10000;		/* QDR */
	case 8:   return 10000;		/* FDR10 */
	case 16:  return 14000;		/* FDR */
	case 32:  return 25000;		/* EDR */
	case 64:  return 50000;		/* HDR */
	case 128: return 100000;	/* NDR */
	case 256: return 200000;	/* XDR */
	default:  return 0;
	}
}

static void fabriq_port_query_netdev(struct ib_device *ibdev, u32 num,
				     struct fabriq_port_info *info)
{
	struct net_device *ndev;

	if (info->link_layer != FABRIQ_LINK_LAYER_ETHERNET)
		return;
	ndev = fabriq_port_netdev(ibdev, num);
	if (!ndev)
		return;
	info->netdev_ifindex = ndev->ifindex;
	/* A concurrent rename may tear this copy; the ifindex stays exact. */
	strscpy(info->netdev_name, ndev->name, sizeof(info->netdev_name));
	dev_put(ndev);
}

/**
 * fabriq_port_query() - read the current state of a port from the device
 * @fdev: the device
 * @port: one of @fdev's ports
 * @info: filled on success
 *
 * Context: process context, fdev->lock held.
 * Return: 0, -ENODEV if the device is gone, or the driver's error.
 */
int fabriq_port_query(struct fabriq_dev *fdev, struct fabriq_port *port,
		      struct fabriq_port_info *info)
{
	struct ib_device *ibdev = fdev->ibdev;
	struct ib_port_attr attr;
	int width, err;

	lockdep_assert_held(&fdev->lock);
	if (!ibdev)
		return -ENODEV;

	err = ib_query_port(ibdev, port->num, &attr);
	if (err)
		return err;

	memset(info, 0, sizeof(*info));
	info->num = port->num;
	info->link_layer = rdma_port_get_link_layer(ibdev, port->num);
	info->state = attr.state;
	info->phys_state = attr.phys_state;
	info->active_width = attr.active_width;
	info->active_speed = attr.active_speed;
	width = ib_width_enum_to_int(attr.active_width);
	info->rate_mbps = width > 0 ? width * fabriq_lane_mbps(attr.active_speed) : 0;
	info->active_mtu = max(ib_mtu_enum_to_int(attr.active_mtu), 0);
	info->gid_tbl_len = attr.gid_tbl_len;
	if (info->link_layer == FABRIQ_LINK_LAYER_INFINIBAND) {
		info->lid = attr.lid;
		info->sm_lid = attr.sm_lid;
	}
	fabriq_port_query_netdev(ibdev, port->num, info);
	return 0;
}

/**
 * fabriq_dev_port() - a device's port by number
 * @fdev: the device
 * @num: port number as the verbs know it
 *
 * Return: the port, or NULL if the device has no such port.
 */
struct fabriq_port *fabriq_dev_port(struct fabriq_dev *fdev, u32 num)
{
	if (num < fdev->start_port || num - fdev->start_port >= fdev->num_ports)
		return NULL;
	return &fdev->ports[num - fdev->start_port];
}

static void fabriq_port_event_work(struct work_struct *work)
{
	struct fabriq_port *port = container_of(work, struct fabriq_port, event_work);
	const struct fabriq_subsys *ss;
	struct fabriq_port_info pi;
	unsigned int i;
	int err;

	fabriq_nl_notify_port(port->fdev, port);

	/* A port that came up may have lost its QoS with the link. */
	mutex_lock(&port->fdev->lock);
	err = fabriq_port_query(port->fdev, port, &pi);
	mutex_unlock(&port->fdev->lock);
	if (err || pi.state != FABRIQ_PORT_ACTIVE)
		return;
	fabriq_for_each_subsys(i, ss)
		if (ss->port_active)
			ss->port_active(port->fdev, port);
}

static void fabriq_event_handler(struct ib_event_handler *handler,
				 struct ib_event *event)
{
	struct fabriq_dev *fdev = container_of(handler, struct fabriq_dev, event_handler);
	u32 num = event->element.port_num;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		if (num < fdev->start_port || num - fdev->start_port >= fdev->num_ports)
			return;
		schedule_work(&fdev->ports[num - fdev->start_port].event_work);
		break;
	default:
		break;
	}
}

static void fabriq_dev_classify(struct fabriq_dev *fdev, struct ib_device *ibdev)
{
	fdev->node_type = ibdev->node_type <= RDMA_NODE_USNIC_UDP ?
			  ibdev->node_type : FABRIQ_NODE_UNKNOWN;
	switch (rdma_node_get_transport(ibdev->node_type)) {
	case RDMA_TRANSPORT_IB:
		fdev->transport = FABRIQ_TRANSPORT_IB;
		break;
	case RDMA_TRANSPORT_IWARP:
		fdev->transport = FABRIQ_TRANSPORT_IWARP;
		fdev->unsupported = true;
		fdev->unsupported_reason = "iWARP transport is not supported";
		break;
	case RDMA_TRANSPORT_USNIC:
	case RDMA_TRANSPORT_USNIC_UDP:
		fdev->transport = FABRIQ_TRANSPORT_USNIC;
		fdev->unsupported = true;
		fdev->unsupported_reason = "usNIC transport is not supported";
		break;
	default:
		fdev->transport = FABRIQ_TRANSPORT_UNKNOWN;
		fdev->unsupported = true;
		fdev->unsupported_reason = "unknown transport";
		break;
	}
}

static struct fabriq_dev *fabriq_dev_alloc(struct ib_device *ibdev)
{
	u32 num_ports = rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1;
	const struct fabriq_subsys *ss;
	struct fabriq_dev *fdev;
	unsigned int j;
	u32 i;

	fdev = kzalloc(struct_size(fdev, ports, num_ports), GFP_KERNEL);
	if (!fdev)
		return NULL;

	kref_init(&fdev->ref);
	mutex_init(&fdev->lock);
	INIT_LIST_HEAD(&fdev->list);
	fdev->ibdev = ibdev;
	fdev->index = ibdev->index;
	strscpy(fdev->name, dev_name(&ibdev->dev), sizeof(fdev->name));
	fdev->node_guid = be64_to_cpu(ibdev->node_guid);
	fdev->start_port = rdma_start_port(ibdev);
	fdev->num_ports = num_ports;
	fabriq_dev_classify(fdev, ibdev);
	for (i = 0; i < num_ports; i++) {
		fdev->ports[i].fdev = fdev;
		fdev->ports[i].num = fdev->start_port + i;
		INIT_WORK(&fdev->ports[i].event_work, fabriq_port_event_work);
		fabriq_for_each_subsys(j, ss)
			if (ss->port_init && ss->port_init(&fdev->ports[i]))
				goto err_free;
	}
	return fdev;

err_free:
	fabriq_dev_put(fdev);
	return NULL;
}

/* Keep the list sorted by index so dumps can resume from an index. */
static void fabriq_dev_link(struct fabriq_dev *fdev)
{
	struct fabriq_dev *pos;

	mutex_lock(&fabriq_devs_lock);
	list_for_each_entry(pos, &fabriq_devs, list) {
		if (pos->index > fdev->index)
			break;
	}
	list_add_tail(&fdev->list, &pos->list);
	mutex_unlock(&fabriq_devs_lock);
}

static int fabriq_ib_add(struct ib_device *ibdev)
{
	const struct fabriq_subsys *ss;
	struct fabriq_dev *fdev;
	unsigned int i;

	fdev = fabriq_dev_alloc(ibdev);
	if (!fdev)
		return -ENOMEM;

	INIT_IB_EVENT_HANDLER(&fdev->event_handler, ibdev, fabriq_event_handler);
	ib_register_event_handler(&fdev->event_handler);

	ib_set_client_data(ibdev, &fabriq_ib_client, fdev);
	fabriq_dev_link(fdev);
	fabriq_debugfs_dev_add(fdev);
	fabriq_nl_notify_dev(fdev, FABRIQ_CMD_DEV_ADD_NTF, NULL);
	if (!fdev->unsupported)
		fabriq_for_each_subsys(i, ss)
			if (ss->dev_add)
				ss->dev_add(fdev);
	dev_dbg(&ibdev->dev, "fabriq: attached%s\n", fdev->unsupported ? " (unsupported)" : "");
	return 0;
}

static void fabriq_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct fabriq_dev *fdev = client_data;
	const struct fabriq_subsys *ss;
	unsigned int n;
	u32 i;

	/*
	 * The subsystems let go first, last added first: communicators hold
	 * rdma_cm ids, PDs and QPs on the device (fabriq's client is removed
	 * before rdma_cm's, so nothing waits for them later), and samplers
	 * call into the driver.  Every device, supported or not.
	 */
	for (n = fabriq_n_subsystems; n--; ) {
		ss = fabriq_subsystems[n];
		if (ss->dev_remove)
			ss->dev_remove(fdev);
	}

	ib_unregister_event_handler(&fdev->event_handler);
	for (i = 0; i < fdev->num_ports; i++)
		cancel_work_sync(&fdev->ports[i].event_work);

	/* Waits for debugfs readers, which query the device. */
	fabriq_debugfs_dev_del(fdev);

	mutex_lock(&fabriq_devs_lock);
	list_del_init(&fdev->list);
	mutex_unlock(&fabriq_devs_lock);

	/* Waits for netlink readers; nobody reaches ibdev after this. */
	mutex_lock(&fdev->lock);
	fdev->ibdev = NULL;
	mutex_unlock(&fdev->lock);

	/* e.g. a driver that forgot to withdraw its QoS backend */
	fabriq_for_each_subsys(n, ss)
		if (ss->dev_gone)
			ss->dev_gone(ibdev);

	fabriq_nl_notify_dev(fdev, FABRIQ_CMD_DEV_DEL_NTF, NULL);
	fabriq_dev_put(fdev);
}

static void fabriq_ib_rename(struct ib_device *ibdev, void *client_data)
{
	struct fabriq_dev *fdev = client_data;
	char old_name[FABRIQ_DEV_NAME_MAX];
	const struct fabriq_subsys *ss;
	unsigned int i;

	mutex_lock(&fabriq_devs_lock);
	mutex_lock(&fdev->lock);
	strscpy(old_name, fdev->name, sizeof(old_name));
	strscpy(fdev->name, dev_name(&ibdev->dev), sizeof(fdev->name));
	mutex_unlock(&fdev->lock);
	mutex_unlock(&fabriq_devs_lock);

	fabriq_for_each_subsys(i, ss)
		if (ss->dev_rename)
			ss->dev_rename(fdev, old_name);
	fabriq_debugfs_dev_rename(fdev);
	fabriq_nl_notify_dev(fdev, FABRIQ_CMD_DEV_RENAME_NTF, old_name);
}

static struct ib_client fabriq_ib_client = {
	.name = "fabriq",
	.add = fabriq_ib_add,
	.remove = fabriq_ib_remove,
	.rename = fabriq_ib_rename,
};

/**
 * fabriq_device_init() - register the ib_client
 *
 * The core calls fabriq_ib_add() for every device already present.
 *
 * Context: module init.  Return: 0 or a negative errno.
 */
int fabriq_device_init(void)
{
	return ib_register_client(&fabriq_ib_client);
}

/**
 * fabriq_device_exit() - unregister the ib_client
 *
 * The core calls fabriq_ib_remove() for every device, so the list is empty
 * when this returns.
 *
 * Context: module exit.
 */
void fabriq_device_exit(void)
{
	ib_unregister_client(&fabriq_ib_client);
	WARN_ON(!list_empty(&fabriq_devs));
}
