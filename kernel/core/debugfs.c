// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the /sys/kernel/debug/fabriq/ tree (human-readable, not ABI).
 *
 *   fabriq/devices/<dev>/port<N>/info     port snapshot, one "key value" per
 *                                         line (subsystems add lines: port_info)
 *   fabriq/devices/<dev>/port<N>/<subsys>/  a directory of each subsystem
 *                                         that has files there (debugfs_port)
 *   fabriq/...                            each subsystem's own files at the root
 *
 * Files point at fabriq_port objects; debugfs_remove_recursive() waits for
 * readers in flight, and device.c removes a device's tree before it lets
 * the ib_device go, so a reader never sees a freed port.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "fabriq.h"
#include "subsys.h"

static struct dentry *fabriq_dbg_root;
static struct dentry *fabriq_dbg_devices;

static const char *const fabriq_link_layer_names[] = FABRIQ_LINK_LAYER_NAMES;
static const char *const fabriq_port_state_names[] = FABRIQ_PORT_STATE_NAMES;
static const char *const fabriq_phys_state_names[] = FABRIQ_PHYS_STATE_NAMES;

static const char *fabriq_name(const char *const *names, size_t n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

static int fabriq_port_info_show(struct seq_file *s, void *unused)
{
	struct fabriq_port *port = s->private;
	struct fabriq_dev *fdev = port->fdev;
	const struct fabriq_subsys *ss;
	struct fabriq_port_info pi;
	unsigned int i;
	int err;

	mutex_lock(&fdev->lock);
	err = fabriq_port_query(fdev, port, &pi);
	if (!err) {
		seq_printf(s, "device %s\nindex %u\nport %u\n", fdev->name, fdev->index, pi.num);
		seq_printf(s, "unsupported %s\n", fdev->unsupported ? "yes" : "no");
		fabriq_for_each_subsys(i, ss)
			if (ss->port_info)
				ss->port_info(s, fdev);
	}
	mutex_unlock(&fdev->lock);
	if (err)
		return err;

	seq_printf(s, "link_layer %s\n",
		   fabriq_name(fabriq_link_layer_names,
			       ARRAY_SIZE(fabriq_link_layer_names), pi.link_layer));
	seq_printf(s, "state %s\n",
		   fabriq_name(fabriq_port_state_names,
			       ARRAY_SIZE(fabriq_port_state_names), pi.state));
	seq_printf(s, "phys_state %s\n",
		   fabriq_name(fabriq_phys_state_names,
			       ARRAY_SIZE(fabriq_phys_state_names), pi.phys_state));
	seq_printf(s, "active_speed %u\nactive_width %u\nrate_mbps %u\n",
		   pi.active_speed, pi.active_width, pi.rate_mbps);
	seq_printf(s, "active_mtu %u\ngid_tbl_len %u\n", pi.active_mtu, pi.gid_tbl_len);
	if (pi.link_layer == FABRIQ_LINK_LAYER_INFINIBAND)
		seq_printf(s, "lid %u\nsm_lid %u\n", pi.lid, pi.sm_lid);
	if (pi.netdev_ifindex)
		seq_printf(s, "netdev %s\nnetdev_ifindex %d\n",
			   pi.netdev_name, pi.netdev_ifindex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fabriq_port_info);

/**
 * fabriq_debugfs_dev_add() - create devices/<dev>/port<N>/ with info and
 * a directory of files for every subsystem that has some
 * @fdev: a device that is not yet visible to readers of this tree
 *
 * Context: process context.
 */
void fabriq_debugfs_dev_add(struct fabriq_dev *fdev)
{
	const struct fabriq_subsys *ss;
	unsigned int j;
	char name[16];
	u32 i;

	fdev->dbg_dir = debugfs_create_dir(fdev->name, fabriq_dbg_devices);
	for (i = 0; i < fdev->num_ports; i++) {
		struct fabriq_port *port = &fdev->ports[i];

		snprintf(name, sizeof(name), "port%u", port->num);
		port->dbg_dir = debugfs_create_dir(name, fdev->dbg_dir);
		debugfs_create_file("info", 0444, port->dbg_dir, port,
				    &fabriq_port_info_fops);
		fabriq_for_each_subsys(j, ss)
			if (ss->debugfs_port)
				ss->debugfs_port(port, debugfs_create_dir(ss->name, port->dbg_dir));
	}
}

/**
 * fabriq_debugfs_dev_del() - remove a device's tree, waiting for readers
 * @fdev: the device
 *
 * Context: process context; must not hold fdev->lock (readers take it).
 */
void fabriq_debugfs_dev_del(struct fabriq_dev *fdev)
{
	debugfs_remove_recursive(fdev->dbg_dir);
	fdev->dbg_dir = NULL;
}

/**
 * fabriq_debugfs_dev_rename() - follow a device rename
 * @fdev: the device, with its new name already stored
 *
 * Context: process context, called by the ib_client rename callback only.
 */
void fabriq_debugfs_dev_rename(struct fabriq_dev *fdev)
{
	struct dentry *d;

	if (IS_ERR_OR_NULL(fdev->dbg_dir))
		return;
	d = debugfs_rename(fabriq_dbg_devices, fdev->dbg_dir, fabriq_dbg_devices,
			   fdev->name);
	if (IS_ERR(d))
		pr_warn("debugfs: cannot rename to %s: %pe\n", fdev->name, d);
}

/* the root, for the files the subsystems own */
struct dentry *fabriq_debugfs_root(void)
{
	return fabriq_dbg_root;
}

/**
 * fabriq_debugfs_init() - create the root of the tree
 *
 * Failure is not fatal: debugfs is a debugging aid.
 *
 * Context: module init.
 */
void fabriq_debugfs_init(void)
{
	fabriq_dbg_root = debugfs_create_dir("fabriq", NULL);
	fabriq_dbg_devices = debugfs_create_dir("devices", fabriq_dbg_root);
}

/**
 * fabriq_debugfs_exit() - remove the whole tree
 *
 * Context: module exit.
 */
void fabriq_debugfs_exit(void)
{
	debugfs_remove_recursive(fabriq_dbg_root);
}
