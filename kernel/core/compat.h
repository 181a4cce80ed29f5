/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels fabriq builds against
 * (Debian's 6.1 and 6.12) lives here, and nowhere else.  Differences are
 * detected by feature (FABRIQ_HAVE_*, set by Kbuild), not by version, but
 * for a bug of a range of kernels (FABRIQ_RXE_INLINE_BROKEN).
 */
#ifndef _FABRIQ_COMPAT_H
#define _FABRIQ_COMPAT_H

#include <linux/netlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

/**
 * fabriq_port_netdev() - the netdev a RoCE port is bound to, with a reference
 * @ibdev: the RDMA device
 * @port: port number
 *
 * Kernels that export ib_device_get_netdev() (6.12; Kbuild probes the
 * target's Module.symvers) get it directly.  Older ones (6.1) ask the driver
 * first, then fall back to the netdev behind the port's default GID (index
 * 0), which the core creates for every RoCE port.
 *
 * Context: process context.  Return: the netdev (release with dev_put()) or NULL.
 */
#ifdef FABRIQ_HAVE_IB_DEVICE_GET_NETDEV
static inline struct net_device *fabriq_port_netdev(struct ib_device *ibdev, u32 port)
{
	return ib_device_get_netdev(ibdev, port);
}
#else
static inline struct net_device *fabriq_port_netdev(struct ib_device *ibdev, u32 port)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev = NULL;

	if (ibdev->ops.get_netdev)
		return ibdev->ops.get_netdev(ibdev, port);

	attr = rdma_get_gid_attr(ibdev, port, 0);
	if (IS_ERR(attr))
		return NULL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ndev = NULL;
	else
		dev_hold(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return ndev;
}
#endif

/* Bus attribute callbacks take a const bus_type since 6.4. */
#ifdef FABRIQ_HAVE_CONST_BUS_TYPE
#define FABRIQ_BUS_CONST const
#else
#define FABRIQ_BUS_CONST
#endif

/*
 * rxe of 6.4 to 6.9 copies IB_SEND_INLINE data from the struct page its
 * address would have (ib_virt_dma_to_page(); fixed in 6.10 by using
 * ib_virt_dma_to_ptr()): wrong bytes, and no error.
 */
#ifdef FABRIQ_RXE_INLINE_BROKEN
#define FABRIQ_RXE_SENDS_INLINE	false
#else
#define FABRIQ_RXE_SENDS_INLINE	true
#endif

/* ib_device_ops.create_cq takes the uverbs attribute bundle since 6.11. */
#ifdef FABRIQ_HAVE_CREATE_CQ_ATTRS
struct uverbs_attr_bundle;
#define FABRIQ_CREATE_CQ_UARG struct uverbs_attr_bundle *attrs
#else
#define FABRIQ_CREATE_CQ_UARG struct ib_udata *udata
#endif

/**
 * fabriq_extack_msg() - NL_SET_ERR_MSG() for a message chosen at run time
 * @extack: the request's extack, or NULL
 * @msg: a string with static storage, as netlink requires
 */
static inline void fabriq_extack_msg(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack)
		extack->_msg = msg;
}

/*
 * Formatted extack messages exist since 6.2 (at most 79 characters).  On
 * older kernels the message must be a static string: @fixed says the same
 * without the values.
 */
#ifdef NL_SET_ERR_MSG_FMT
#define FABRIQ_ERR_FMT(extack, fixed, fmt, ...) NL_SET_ERR_MSG_FMT(extack, fmt, ##__VA_ARGS__)
#else
#define FABRIQ_ERR_FMT(extack, fixed, fmt, ...) do {			\
	fabriq_extack_msg(extack, fixed);				\
	no_printk(fmt, ##__VA_ARGS__);					\
} while (0)
#endif

/* The attributes a dump request carried: struct genl_info in the dump since 6.6. */
#ifdef FABRIQ_HAVE_GENL_INFO_DUMP
#define fabriq_dump_attrs(cb) (genl_info_dump(cb)->attrs)
#else
#define fabriq_dump_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

#endif /* _FABRIQ_COMPAT_H */
