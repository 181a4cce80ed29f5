/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabriq.h - the core's objects (devices, ports) and what the core offers
 * every subsystem: lookups, port queries, SMPs to the local SMA, netlink
 * helpers, debugfs root.
 *
 * Lock order: the module has one, in Documentation/design.md; here,
 * fabriq_devs_lock before fabriq_dev.lock.
 */
#ifndef _FABRIQ_H
#define _FABRIQ_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <linux/fabriq.h>

#include "subsys.h"

struct dentry;
struct fabriq_dev;

/**
 * struct fabriq_port - one port of an RDMA device
 * @fdev: the device that owns this port
 * @num: port number as the verbs know it
 * @event_work: refreshes listeners after an async port event
 * @dbg_dir: debugfs directory devices/<dev>/port<N>
 * @subsys_data: each subsystem's state for this port, by fabriq_subsys.id
 *		 (set in its port_init hook, freed in port_release); lives as
 *		 long as @fdev
 */
struct fabriq_port {
	struct fabriq_dev *fdev;
	u32 num;
	struct work_struct event_work;
	struct dentry *dbg_dir;
	void *subsys_data[FABRIQ_SUBSYS_MAX];
};

/* a subsystem's state for @port */
static inline void *fabriq_port_data(const struct fabriq_port *port,
				     const struct fabriq_subsys *ss)
{
	return port->subsys_data[ss->id];
}

static inline void fabriq_port_set_data(struct fabriq_port *port,
					const struct fabriq_subsys *ss, void *data)
{
	port->subsys_data[ss->id] = data;
}

/**
 * struct fabriq_port_info - a snapshot of one port, read from the device
 *
 * Filled by fabriq_port_query(); plain data, safe to use unlocked.
 */
struct fabriq_port_info {
	u32 num;
	u8 link_layer;		/* enum fabriq_link_layer */
	u8 state;		/* enum fabriq_port_state */
	u8 phys_state;		/* enum fabriq_port_phys_state */
	u8 active_width;
	u16 active_speed;
	u32 rate_mbps;
	u32 active_mtu;
	u32 lid;
	u32 sm_lid;
	u32 gid_tbl_len;
	int netdev_ifindex;	/* 0: no netdev bound */
	char netdev_name[IFNAMSIZ];
};

/**
 * struct fabriq_dev - fabriq's view of one RDMA device
 * @ref: one for the device list, one for each thread that looked it up
 * @list: entry on fabriq_devs, sorted by @index
 * @index: the RDMA device index; never changes
 * @lock: protects @ibdev and serialises port queries against removal
 * @ibdev: the device; NULL once the ib_client removed it
 * @name: current name; written under fabriq_devs_lock and @lock, read under either
 * @node_type: enum fabriq_node_type
 * @transport: enum fabriq_transport
 * @node_guid: NodeGUID, host order
 * @unsupported: the device is listed but fabriq never uses it
 * @unsupported_reason: why, for users
 * @event_handler: async event handler registered with the core
 * @dbg_dir: debugfs directory devices/<dev>
 * @start_port: first port number (0 for a switch, else 1)
 * @num_ports: entries in @ports
 * @ports: one per port
 */
struct fabriq_dev {
	struct kref ref;
	struct list_head list;
	u32 index;
	struct mutex lock;		/* protects ibdev; see above */
	struct ib_device *ibdev;
	char name[FABRIQ_DEV_NAME_MAX];
	u8 node_type;
	u8 transport;
	u64 node_guid;
	bool unsupported;
	const char *unsupported_reason;
	struct ib_event_handler event_handler;
	struct dentry *dbg_dir;
	u32 start_port;
	u32 num_ports;
	struct fabriq_port ports[] __counted_by(num_ports);
};

/* device.c */
int fabriq_device_init(void);
void fabriq_device_exit(void);
struct fabriq_dev *fabriq_dev_get_by_index(u32 index);
struct fabriq_dev *fabriq_dev_get_by_name(const char *name);
struct fabriq_dev *fabriq_dev_get_next(u32 index);
void fabriq_dev_put(struct fabriq_dev *fdev);
struct fabriq_port *fabriq_dev_port(struct fabriq_dev *fdev, u32 num);
int fabriq_port_query(struct fabriq_dev *fdev, struct fabriq_port *port,
		      struct fabriq_port_info *info);

/* netlink.c */
int fabriq_nl_init(void);
void fabriq_nl_exit(void);
void fabriq_nl_notify_dev(struct fabriq_dev *fdev, u8 cmd, const char *old_name);
void fabriq_nl_notify_port(struct fabriq_dev *fdev, struct fabriq_port *port);
struct genl_info;
struct fabriq_dev *fabriq_nl_dev_lookup(struct genl_info *info, int index_type,
					int name_type);
void *fabriq_nl_put_hdr(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd);
void fabriq_nl_event(u8 cmd, int (*fill)(struct sk_buff *msg, const void *arg), const void *arg);

/* smp.c: SMPs to a local port's SMA */
#define FABRIQ_SMP_DATA_LEN	64	/* the attribute data of an SMP */
int fabriq_smp(struct ib_device *ibdev, u32 port, u8 method, __be16 attr_id, u32 attr_mod,
	       u8 *data, u16 *status);
int fabriq_smp_get(struct ib_device *ibdev, u32 port, __be16 attr_id, u32 attr_mod,
		   void *out, size_t len);

/* debugfs.c */
void fabriq_debugfs_init(void);
void fabriq_debugfs_exit(void);
void fabriq_debugfs_dev_add(struct fabriq_dev *fdev);
void fabriq_debugfs_dev_del(struct fabriq_dev *fdev);
void fabriq_debugfs_dev_rename(struct fabriq_dev *fdev);
struct dentry *fabriq_debugfs_root(void);

#endif /* _FABRIQ_H */
