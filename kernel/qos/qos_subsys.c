// SPDX-License-Identifier: GPL-2.0
/*
 * qos_subsys.c - how the QoS subsystem plugs into the core: which
 * backends a port gets when it attaches, the hooks (re-apply when a device
 * or port comes back, follow renames, drop a backend a driver left
 * behind), the netlink commands, and the debugfs files (port<N>/qos/state, the
 * qos_backend line of port<N>/info).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "core/fabriq.h"
#include "qos.h"

/* An InfiniBand port: SMPs to its SMA. */
static const struct fabriq_qos_port_kind fabriq_qos_ib_port = {
	.link_layer = FABRIQ_LINK_LAYER_INFINIBAND,
	.fields = FABRIQ_QOS_IB_FIELDS,
	.ops = { &fabriq_qos_ib_ops },
};

/*
 * A RoCE port: its netdev's DCB; trust through DCB APP trust or else the
 * driver's backend; ECN through the driver's backend or else RED qdiscs.
 */
static const struct fabriq_qos_port_kind fabriq_qos_roce_port = {
	.link_layer = FABRIQ_LINK_LAYER_ETHERNET,
	.fields = FABRIQ_QOS_ROCE_FIELDS,
	.netdev = true,
	.ops = { &fabriq_qos_dcb_ops, &fabriq_qos_driver_ops, &fabriq_qos_red_ops },
};

/* A port's backends are chosen once, by its link layer, when it attaches. */
static int fabriq_qos_port_init(struct fabriq_port *port)
{
	struct fabriq_qos_port *qp = kzalloc(sizeof(*qp), GFP_KERNEL);

	if (!qp)
		return -ENOMEM;
	qp->kind = &fabriq_qos_roce_port;
	if (rdma_port_get_link_layer(port->fdev->ibdev, port->num) == IB_LINK_LAYER_INFINIBAND)
		qp->kind = &fabriq_qos_ib_port;
	fabriq_port_set_data(port, &fabriq_qos_subsys, qp);
	return 0;
}

static void fabriq_qos_port_release(struct fabriq_port *port)
{
	kfree(fabriq_port_data(port, &fabriq_qos_subsys));
	fabriq_port_set_data(port, &fabriq_qos_subsys, NULL);
}

/* Context: any, while the port exists. */
struct fabriq_qos_port *fabriq_qos_port(struct fabriq_port *port)
{
	return fabriq_port_data(port, &fabriq_qos_subsys);
}

/**
 * fabriq_qos_port_kind() - the backends of a port
 * @port: the port
 *
 * Context: any; the choice never changes while the port exists.
 */
const struct fabriq_qos_port_kind *fabriq_qos_port_kind(struct fabriq_port *port)
{
	return fabriq_qos_port(port)->kind;
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
	debugfs_create_file("state", 0444, dir, port, &fabriq_port_qos_fops);
}

struct fabriq_subsys fabriq_qos_subsys = {
	.name = "qos",
	.init = fabriq_qos_init,
	.exit = fabriq_qos_exit,
	.nl_ops = fabriq_qos_nl_ops,
	.port_init = fabriq_qos_port_init,
	.port_release = fabriq_qos_port_release,
	.dev_add = fabriq_qos_dev_added,
	.dev_gone = fabriq_qos_backend_unregister,
	.dev_rename = fabriq_qos_dev_renamed,
	.port_active = fabriq_qos_port_active,
	.debugfs_port = fabriq_qos_subsys_debugfs_port,
	.port_info = fabriq_qos_subsys_port_info,
};
