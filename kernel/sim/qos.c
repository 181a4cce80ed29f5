// SPDX-License-Identifier: GPL-2.0
/*
 * qos.c - the simulated HCA as a fabriq QoS backend: per-port,
 * per-priority ECN marking (enable, thresholds, probability) and the trust
 * mode (for kernels without DCB APP trust) that fabriq drives through the
 * ops table of fabriq_backend.h.
 *
 * fabriq_sim must load and work without fabriq.ko, so it finds fabriq's
 * registration functions with symbol_get() when a device is created, and
 * a module notifier registers every existing device when fabriq.ko comes
 * up later.  fabriq drops a device's table by itself when it goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>

#include "qos/fabriq_backend.h"
#include "fqsim.h"

static int fqsim_ecn_get(struct ib_device *ibdev, u32 port_num, u8 prio,
			 struct fabriq_ecn_prio *ecn)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);
	struct fqsim_port *port;

	if (port_num < 1 || port_num > sdev->num_ports || prio >= FQSIM_NUM_PRIO)
		return -EINVAL;
	port = &sdev->ports[port_num - 1];
	spin_lock(&port->lock);
	*ecn = port->ecn[prio];
	spin_unlock(&port->lock);
	return 0;
}

static int fqsim_ecn_set(struct ib_device *ibdev, u32 port_num, u8 prio,
			 const struct fabriq_ecn_prio *ecn, struct netlink_ext_ack *extack)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);
	struct fqsim_port *port;

	if (port_num < 1 || port_num > sdev->num_ports || prio >= FQSIM_NUM_PRIO)
		return -EINVAL;
	if (sdev->link_layer != IB_LINK_LAYER_ETHERNET) {
		NL_SET_ERR_MSG(extack, "fabriq_sim: ECN marking is a RoCE port setting");
		return -EOPNOTSUPP;
	}
	port = &sdev->ports[port_num - 1];
	spin_lock(&port->lock);
	port->ecn[prio] = *ecn;
	spin_unlock(&port->lock);
	return 0;
}

/* The netdev of a RoCE port, or NULL. */
static struct net_device *fqsim_port_ndev(struct ib_device *ibdev, u32 port_num)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);

	if (port_num < 1 || port_num > sdev->num_ports)
		return NULL;
	return sdev->ports[port_num - 1].netdev;
}

static int fqsim_trust_get(struct ib_device *ibdev, u32 port_num, u8 *trust)
{
	struct net_device *ndev = fqsim_port_ndev(ibdev, port_num);

	if (!ndev)
		return -EOPNOTSUPP;
	rtnl_lock();
	*trust = ((struct fqsim_netdev *)netdev_priv(ndev))->trust;
	rtnl_unlock();
	return 0;
}

static int fqsim_trust_set(struct ib_device *ibdev, u32 port_num, u8 trust,
			   struct netlink_ext_ack *extack)
{
	struct net_device *ndev = fqsim_port_ndev(ibdev, port_num);
	struct fqsim_netdev *priv;
	int err = 0;

	if (!ndev) {
		NL_SET_ERR_MSG(extack, "fabriq_sim: trust is a RoCE port setting");
		return -EOPNOTSUPP;
	}
	priv = netdev_priv(ndev);
	rtnl_lock();
	if (atomic_dec_if_positive(&priv->fail_dcb) >= 0)
		err = -EIO;
	else
		priv->trust = trust;
	rtnl_unlock();
	return err;
}

static const struct fabriq_qos_backend_ops fqsim_qos_ops = {
	.name = "fabriq_sim",
	.owner = THIS_MODULE,
	.ecn_get = fqsim_ecn_get,
	.ecn_set = fqsim_ecn_set,
	.trust_get = fqsim_trust_get,
	.trust_set = fqsim_trust_set,
};

/**
 * fqsim_qos_attach() - offer a device's QoS backend to fabriq, if loaded
 * @sdev: a registered device; one created "eth-plain" offers none
 *
 * Context: process context.
 */
void fqsim_qos_attach(struct fqsim_dev *sdev)
{
	int (*reg)(struct ib_device *ibdev, const struct fabriq_qos_backend_ops *ops);
	int err;

	if (sdev->no_backend)
		return;
	reg = symbol_get(fabriq_qos_backend_register);
	if (!reg)
		return;
	err = reg(&sdev->ibdev, &fqsim_qos_ops);
	symbol_put(fabriq_qos_backend_register);
	if (err && err != -EEXIST)
		dev_warn(&sdev->ibdev.dev, "cannot register with fabriq: %d\n", err);
}

/**
 * fqsim_qos_detach() - withdraw a device's QoS backend from fabriq
 * @sdev: the device, before it is unregistered
 *
 * Context: process context.
 */
void fqsim_qos_detach(struct fqsim_dev *sdev)
{
	void (*unreg)(struct ib_device *ibdev);

	unreg = symbol_get(fabriq_qos_backend_unregister);
	if (!unreg)
		return;
	unreg(&sdev->ibdev);
	symbol_put(fabriq_qos_backend_unregister);
}

/**
 * fqsim_ecn_show() - the port's ECN marking, for debugfs
 * @s: the seq_file
 * @port: the port
 *
 * Context: process context.
 */
void fqsim_ecn_show(struct seq_file *s, struct fqsim_port *port)
{
	struct fabriq_ecn_prio ecn[FQSIM_NUM_PRIO];
	int i;

	spin_lock(&port->lock);
	memcpy(ecn, port->ecn, sizeof(ecn));
	spin_unlock(&port->lock);
	for (i = 0; i < FQSIM_NUM_PRIO; i++)
		seq_printf(s, "prio %d enable %u min %u max %u prob %u\n", i, ecn[i].enable,
			   ecn[i].min_bytes, ecn[i].max_bytes, ecn[i].max_prob);
	if (port->netdev) {
		rtnl_lock();
		i = ((struct fqsim_netdev *)netdev_priv(port->netdev))->trust;
		rtnl_unlock();
		seq_printf(s, "trust %s\n", i == FABRIQ_QOS_TRUST_DSCP ? "dscp" : "pcp");
	}
}
