// SPDX-License-Identifier: GPL-2.0
/*
 * netdev.c - the netdev behind each simulated RoCE port.
 *
 * An Ethernet device in the spirit of dummy/netdevsim: it drops what it
 * is given and counts it, has carrier while administratively up, and is
 * named fqsim<ID>p<PORT>.  DCB (dcb.c) and ethtool statistics (ethtool.c)
 * hang off it.  Its private data stands alone (no pointer back
 * to the HCA), so it may outlive the RDMA device by the time it takes to
 * unregister.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "fqsim.h"

/* How far the wire may run ahead of now before the queue stops. */
#define FQSIM_TX_BURST_NS	(200 * NSEC_PER_USEC)

/*
 * With a line rate set (debugfs tx_rate, kbit/s), the port behaves like a
 * NIC at that rate: each frame occupies the wire for its length at the
 * rate, and the queue stops while the wire is booked further ahead than a
 * short burst, so a backlog builds in the qdisc as it would on real
 * hardware.  Frames are then dropped: nothing is on the other end.
 */
static netdev_tx_t fqsim_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	u32 rate = READ_ONCE(priv->tx_rate_kbps);
	u64 now, start;

	if (rate) {
		now = ktime_get_ns();
		spin_lock(&priv->tx_lock);
		start = max(now, priv->tx_next);
		priv->tx_next = start + div_u64((u64)skb->len * 8 * USEC_PER_SEC, rate);
		if (priv->tx_next > now + FQSIM_TX_BURST_NS) {
			netif_stop_queue(ndev);
			hrtimer_start(&priv->tx_timer,
				      ns_to_ktime(priv->tx_next - FQSIM_TX_BURST_NS),
				      HRTIMER_MODE_ABS);
		}
		spin_unlock(&priv->tx_lock);
	}
	dev_sw_netstats_tx_add(ndev, 1, skb->len);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static enum hrtimer_restart fqsim_tx_wake(struct hrtimer *timer)
{
	struct fqsim_netdev *priv = container_of(timer, struct fqsim_netdev, tx_timer);

	netif_wake_queue(priv->ndev);
	return HRTIMER_NORESTART;
}

static const struct net_device_ops fqsim_netdev_ops = {
	.ndo_start_xmit = fqsim_xmit,
	.ndo_get_stats64 = dev_get_tstats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static void fqsim_netdev_setup(struct net_device *ndev)
{
	ether_setup(ndev);
	ndev->netdev_ops = &fqsim_netdev_ops;
	ndev->ethtool_ops = &fqsim_ethtool_ops;
	ndev->dcbnl_ops = &fqsim_dcbnl_ops;
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = 9000;
	ndev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
}

/**
 * fqsim_netdev_create() - create and register the netdev for one port
 * @id: device id
 * @port: port number
 *
 * Context: process context; takes rtnl_lock.
 * Return: the netdev, or an ERR_PTR.
 */
struct net_device *fqsim_netdev_create(u32 id, u32 port)
{
	struct fqsim_netdev *priv;
	struct net_device *ndev;
	char name[IFNAMSIZ];
	int err;

	snprintf(name, sizeof(name), "fqsim%up%u", id, port);
	ndev = alloc_netdev(sizeof(*priv), name, NET_NAME_USER, fqsim_netdev_setup);
	if (!ndev)
		return ERR_PTR(-ENOMEM);
	priv = netdev_priv(ndev);
	priv->id = id;
	priv->port = port;
	priv->ndev = ndev;
	spin_lock_init(&priv->tx_lock);
	hrtimer_init(&priv->tx_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	priv->tx_timer.function = fqsim_tx_wake;
	fqsim_dcb_init(priv);
	eth_hw_addr_random(ndev);

	err = register_netdev(ndev);
	if (err) {
		free_netdev(ndev);
		return ERR_PTR(err);
	}
	return ndev;
}

/**
 * fqsim_netdev_destroy() - unregister and free a port's netdev
 * @ndev: the netdev; no RDMA device may still hold it
 *
 * Context: process context; takes rtnl_lock.
 */
void fqsim_netdev_destroy(struct net_device *ndev)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);

	unregister_netdev(ndev);
	hrtimer_cancel(&priv->tx_timer);
	free_netdev(ndev);
}

/**
 * fqsim_netdev_link_up() - whether the port's link is up
 * @ndev: the port's netdev
 *
 * Context: any.  Return: true when up and with carrier.
 */
bool fqsim_netdev_link_up(struct net_device *ndev)
{
	return ndev && netif_running(ndev) && netif_carrier_ok(ndev);
}
