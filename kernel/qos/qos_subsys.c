// SPDX-License-Identifier: GPL-2.0
/*
 * qos_subsys.c - how the QoS subsystem plugs into the core: its hooks
 * (re-apply when a device or port comes back, follow renames, drop a
 * backend a driver left behind), its netlink commands, and its debugfs
 * files (port<N>/qos, the qos_backend line of port<N>/info).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "core/fabriq.h"
#include "qos.h"

static void fabriq_qos_subsys_dev_add(struct fabriq_dev *fdev)
{
	fabriq_qos_dev_added(fdev->ibdev);
}

static void fabriq_qos_subsys_dev_rename(struct fabriq_dev *fdev, const char *old_name)
{
	fabriq_qos_dev_renamed(old_name, fdev->name);
}

/* Context: fdev->lock held, fdev->ibdev set. */
static void fabriq_qos_subsys_port_info(struct seq_file *s, struct fabriq_dev *fdev)
{
	char backend[32];

	fabriq_qos_backend_name(fdev->ibdev, backend, sizeof(backend));
	seq_printf(s, "qos_backend %s\n", backend);
}

static int fabriq_port_qos_show(struct seq_file *s, void *unused)
{
	struct fabriq_port *port = s->private;

	return fabriq_qos_debugfs_show(s, port->fdev, port);
}
DEFINE_SHOW_ATTRIBUTE(fabriq_port_qos);

static void fabriq_qos_subsys_debugfs_port(struct fabriq_port *port, struct dentry *dir)
{
	debugfs_create_file("qos", 0444, dir, port, &fabriq_port_qos_fops);
}

struct fabriq_subsys fabriq_qos_subsys = {
	.name = "qos",
	.init = fabriq_qos_init,
	.exit = fabriq_qos_exit,
	.nl_ops = fabriq_qos_nl_ops,
	.dev_add = fabriq_qos_subsys_dev_add,
	.dev_gone = fabriq_qos_backend_unregister,
	.dev_rename = fabriq_qos_subsys_dev_rename,
	.port_active = fabriq_qos_port_active,
	.debugfs_port = fabriq_qos_subsys_debugfs_port,
	.port_info = fabriq_qos_subsys_port_info,
};
