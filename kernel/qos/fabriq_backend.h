/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabriq_backend.h - the in-kernel contract between fabriq.ko and RDMA
 * drivers: a QoS backend ops table through which fabriq drives settings
 * that have no generic kernel interface, starting with per-priority ECN
 * marking at the device.
 *
 * A driver registers one table per RDMA device it owns after
 * ib_register_device() and unregisters it before ib_unregister_device().
 * fabriq forgets a device's table by itself when the device goes away, and
 * calls the ops with its backend lock held, so they must not call back
 * into fabriq.  To avoid a load-time dependency on fabriq.ko, drivers
 * look the two functions up with symbol_get() (see kernel/sim/qos.c).
 */
#ifndef _FABRIQ_BACKEND_H
#define _FABRIQ_BACKEND_H

#include <linux/module.h>
#include <linux/types.h>
#include <linux/fabriq.h>

struct ib_device;
struct netlink_ext_ack;

/**
 * struct fabriq_ecn_prio - ECN marking of one priority at the device
 * @enable: mark ECN-capable packets of this priority
 * @min_bytes: queue depth where marking starts
 * @max_bytes: queue depth where marking reaches @max_prob
 * @max_prob: marking probability at @max_bytes, percent (1-100)
 */
struct fabriq_ecn_prio {
	bool enable;
	u32 min_bytes;
	u32 max_bytes;
	u8 max_prob;
};

/**
 * struct fabriq_qos_backend_ops - what a driver lets fabriq drive
 * @name: shown to users (debugfs, netlink)
 * @owner: the driver's module
 * @ecn_get: read one priority's ECN marking from the device
 * @ecn_set: program one priority's ECN marking; fabriq has checked
 *	min_bytes <= max_bytes and max_prob 1-100 already
 * @trust_get: optional; read which header field (enum fabriq_qos_trust)
 *	classifies received packets, for kernels whose DCB has no APP trust
 *	table (dcbnl_setapptrust, 6.2 and later); called without rtnl_lock
 * @trust_set: optional; program it
 */
struct fabriq_qos_backend_ops {
	const char *name;
	struct module *owner;
	int (*ecn_get)(struct ib_device *ibdev, u32 port, u8 prio,
		       struct fabriq_ecn_prio *ecn);
	int (*ecn_set)(struct ib_device *ibdev, u32 port, u8 prio,
		       const struct fabriq_ecn_prio *ecn, struct netlink_ext_ack *extack);
	int (*trust_get)(struct ib_device *ibdev, u32 port, u8 *trust);
	int (*trust_set)(struct ib_device *ibdev, u32 port, u8 trust,
			 struct netlink_ext_ack *extack);
};

int fabriq_qos_backend_register(struct ib_device *ibdev,
				const struct fabriq_qos_backend_ops *ops);
void fabriq_qos_backend_unregister(struct ib_device *ibdev);

#endif /* _FABRIQ_BACKEND_H */
