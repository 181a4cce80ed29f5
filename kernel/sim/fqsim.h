/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fqsim.h - private structures of fabriq_sim.ko, the simulated IB/RoCE HCA
 * used by fabriq's tests, and the prototypes of each of its files.
 *
 * Lock order: fqsim_devs_lock, then rtnl_lock.
 */
#ifndef _FQSIM_H
#define _FQSIM_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#define FQSIM_MAX_PORTS		4
#define FQSIM_MAX_ID		9999

struct fqsim_dev;

/**
 * struct fqsim_port - one simulated port
 * @sdev: owning device
 * @num: port number (1-based)
 * @netdev: Ethernet ports: the netdev that backs the port, else NULL
 * @lid: InfiniBand ports: LID
 */
struct fqsim_port {
	struct fqsim_dev *sdev;
	u32 num;
	struct net_device *netdev;
	u16 lid;
};

/**
 * struct fqsim_dev - one simulated HCA
 * @ibdev: the registered RDMA device; must stay first (ib_alloc_device)
 * @dev: the device on the fabriq_sim bus, parent of @ibdev
 * @list: entry on the device list, under fqsim_devs_lock
 * @id: user-chosen id; the RDMA device is named fqsim<id>
 * @link_layer: IB_LINK_LAYER_INFINIBAND or IB_LINK_LAYER_ETHERNET
 * @num_ports: ports in @ports
 * @ports: the ports
 */
struct fqsim_dev {
	struct ib_device ibdev;
	struct device dev;
	struct list_head list;
	u32 id;
	enum rdma_link_layer link_layer;
	u32 num_ports;
	struct fqsim_port ports[FQSIM_MAX_PORTS];
};

static inline struct fqsim_dev *to_fqsim(struct ib_device *ibdev)
{
	return container_of(ibdev, struct fqsim_dev, ibdev);
}

/* ibdev.c */
struct fqsim_dev *fqsim_dev_create(u32 id, u32 num_ports, enum rdma_link_layer ll);
void fqsim_dev_destroy(struct fqsim_dev *sdev);

/* netdev.c */
struct net_device *fqsim_netdev_create(u32 id, u32 port);
void fqsim_netdev_destroy(struct net_device *ndev);
bool fqsim_netdev_link_up(struct net_device *ndev);

#endif /* _FQSIM_H */
