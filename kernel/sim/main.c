// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - fabriq_sim.ko: module init/exit and device control.
 *
 * Devices are created and destroyed the netdevsim way, through the bus
 * files of the "fabriq_sim" bus:
 *
 *   echo "ID PORTS LINK_LAYER" > /sys/bus/fabriq_sim/new_device
 *   echo ID > /sys/bus/fabriq_sim/del_device
 *
 * ID is 0-9999, PORTS 1-4, LINK_LAYER "ib", "eth", or "eth-plain" (an
 * Ethernet device whose driver offers fabriq no QoS backend, as most NIC
 * drivers do, so fabriq falls back to RED qdiscs for ECN).  Each device is a
 * registered RDMA device named fqsim<ID>.  Test-only: fabriq.ko never
 * depends on this module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "core/compat.h"
#include "fqsim.h"

/* protects fqsim_devs; held across create/destroy so ids stay unique */
static DEFINE_MUTEX(fqsim_devs_lock);
static LIST_HEAD(fqsim_devs);

static struct fqsim_dev *fqsim_find(u32 id)
{
	struct fqsim_dev *sdev;

	lockdep_assert_held(&fqsim_devs_lock);
	list_for_each_entry(sdev, &fqsim_devs, list)
		if (sdev->id == id)
			return sdev;
	return NULL;
}

static int fqsim_parse_new(const char *buf, u32 *id, u32 *ports, enum rdma_link_layer *ll,
			   bool *no_backend)
{
	char kind[10], extra;
	int n;

	n = sscanf(buf, "%u %u %9s %c", id, ports, kind, &extra);
	if (n != 3 || *id > FQSIM_MAX_ID || *ports < 1 || *ports > FQSIM_MAX_PORTS)
		return -EINVAL;
	*no_backend = false;
	if (!strcmp(kind, "ib")) {
		*ll = IB_LINK_LAYER_INFINIBAND;
	} else if (!strcmp(kind, "eth")) {
		*ll = IB_LINK_LAYER_ETHERNET;
	} else if (!strcmp(kind, "eth-plain")) {
		*ll = IB_LINK_LAYER_ETHERNET;
		*no_backend = true;
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t new_device_store(FABRIQ_BUS_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	enum rdma_link_layer ll;
	struct fqsim_dev *sdev;
	bool no_backend;
	u32 id, ports;
	int err;

	err = fqsim_parse_new(buf, &id, &ports, &ll, &no_backend);
	if (err) {
		pr_err("new_device: expected \"ID PORTS LINK_LAYER\" with ID 0-%u, PORTS 1-%u, LINK_LAYER ib, eth or eth-plain\n",
		       FQSIM_MAX_ID, FQSIM_MAX_PORTS);
		return err;
	}

	mutex_lock(&fqsim_devs_lock);
	if (fqsim_find(id)) {
		pr_err("new_device: fqsim%u already exists\n", id);
		err = -EEXIST;
		goto out;
	}
	sdev = fqsim_dev_create(id, ports, ll, no_backend);
	if (IS_ERR(sdev)) {
		err = PTR_ERR(sdev);
		pr_err("new_device: cannot create fqsim%u: %pe\n", id, sdev);
		goto out;
	}
	list_add_tail(&sdev->list, &fqsim_devs);
out:
	mutex_unlock(&fqsim_devs_lock);
	return err ? err : count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(FABRIQ_BUS_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	struct fqsim_dev *sdev;
	char extra;
	u32 id;
	int err = 0;

	if (sscanf(buf, "%u %c", &id, &extra) != 1 || id > FQSIM_MAX_ID) {
		pr_err("del_device: expected \"ID\" with ID 0-%u\n", FQSIM_MAX_ID);
		return -EINVAL;
	}

	mutex_lock(&fqsim_devs_lock);
	sdev = fqsim_find(id);
	if (sdev) {
		list_del(&sdev->list);
		fqsim_dev_destroy(sdev);
	} else {
		pr_err("del_device: no device fqsim%u\n", id);
		err = -ENODEV;
	}
	mutex_unlock(&fqsim_devs_lock);
	return err ? err : count;
}
static BUS_ATTR_WO(del_device);

static struct attribute *fqsim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(fqsim_bus);

static struct bus_type fqsim_bus = {
	.name = "fabriq_sim",
	.bus_groups = fqsim_bus_groups,
};

/* fabriq.ko came up after our devices: offer it their QoS backends. */
static int fqsim_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;
	struct fqsim_dev *sdev;

	if (state != MODULE_STATE_LIVE || strcmp(mod->name, "fabriq"))
		return NOTIFY_DONE;
	mutex_lock(&fqsim_devs_lock);
	list_for_each_entry(sdev, &fqsim_devs, list)
		fqsim_qos_attach(sdev);
	mutex_unlock(&fqsim_devs_lock);
	return NOTIFY_OK;
}

static struct notifier_block fqsim_module_nb = {
	.notifier_call = fqsim_module_event,
};

static int __init fqsim_init(void)
{
	int err;

	fqsim_debugfs_init();
	err = register_module_notifier(&fqsim_module_nb);
	if (err)
		goto err_debugfs;
	err = bus_register(&fqsim_bus);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	unregister_module_notifier(&fqsim_module_nb);
err_debugfs:
	fqsim_debugfs_exit();
	return err;
}

static void __exit fqsim_exit(void)
{
	struct fqsim_dev *sdev, *tmp;

	bus_unregister(&fqsim_bus);
	unregister_module_notifier(&fqsim_module_nb);
	mutex_lock(&fqsim_devs_lock);
	list_for_each_entry_safe(sdev, tmp, &fqsim_devs, list) {
		list_del(&sdev->list);
		fqsim_dev_destroy(sdev);
	}
	mutex_unlock(&fqsim_devs_lock);
	fqsim_debugfs_exit();
}

module_init(fqsim_init);
module_exit(fqsim_exit);

MODULE_AUTHOR("fabriq developers");
MODULE_DESCRIPTION("fabriq_sim: simulated InfiniBand/RoCE HCA for fabriq's tests");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
