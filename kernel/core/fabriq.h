/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabriq.h - private structures of fabriq.ko and the prototypes of each file.
 *
 * Lock order: fabriq_devs_lock, then fabriq_dev.lock (qos.h has the rest).
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

struct dentry;
struct fabriq_dev;
struct fq_tm_port;

/**
 * struct fabriq_port - one port of an RDMA device
 * @fdev: the device that owns this port
 * @num: port number as the verbs know it
 * @event_work: refreshes listeners after an async port event
 * @dbg_dir: debugfs directory devices/<dev>/port<N>
 * @tm: the port's telemetry sampler (telemetry.h); lives as long as @fdev
 */
struct fabriq_port {
	struct fabriq_dev *fdev;
	u32 num;
	struct work_struct event_work;
	struct dentry *dbg_dir;
	struct fq_tm_port *tm;
};

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

/* qos_backend.c (the driver-facing half is in fabriq_backend.h) */
struct fabriq_ecn_prio;
void fabriq_qos_backend_name(struct ib_device *ibdev, char *buf, size_t len);
int fabriq_qos_ecn_get(struct ib_device *ibdev, u32 port, u8 prio,
		       struct fabriq_ecn_prio *ecn);
int fabriq_qos_ecn_set(struct ib_device *ibdev, u32 port, u8 prio,
		       const struct fabriq_ecn_prio *ecn, struct netlink_ext_ack *extack);

/* qos_ib.c: the local SMA, for telemetry */
int fabriq_smp_get(struct ib_device *ibdev, u32 port, __be16 attr_id, u32 attr_mod,
		   void *out, size_t len);

/* qos.c: what the device and debugfs files tell the QoS intent store */
struct seq_file;
void fabriq_qos_dev_added(struct ib_device *ibdev);
void fabriq_qos_port_active(struct fabriq_dev *fdev, struct fabriq_port *port);
void fabriq_qos_dev_renamed(const char *old_name, const char *new_name);
int fabriq_qos_tclass(const char *dev_name, u32 port, u8 *tclass);
int fabriq_qos_debugfs_show(struct seq_file *s, struct fabriq_dev *fdev,
			    struct fabriq_port *port);

/* ping.c */
/**
 * struct fabriq_ping_result - what one fabriq ping used and measured
 * @dev_name: the RDMA device the destination resolved to
 * @port: its port
 * @has_tclass: @tclass was set on the connection (the port's "tc" intent)
 * @tclass: traffic class
 * @sent: round trips started
 * @received: round trips answered in time
 * @rtt_min_ns: fastest round trip
 * @rtt_max_ns: slowest round trip
 * @rtt_total_ns: sum of the answered round trips
 */
struct fabriq_ping_result {
	char dev_name[FABRIQ_DEV_NAME_MAX];
	u32 port;
	bool has_tclass;
	u8 tclass;
	u32 sent;
	u32 received;
	u64 rtt_min_ns;
	u64 rtt_max_ns;
	u64 rtt_total_ns;
};

/**
 * struct fabriq_ping_opts - how to ping
 * @count: round trips, 1-1000
 * @timeout_ms: how long each may take
 * @interval_ms: pause between round trips
 */
struct fabriq_ping_opts {
	u32 count;
	u32 timeout_ms;
	u32 interval_ms;
};

struct sockaddr;
int fabriq_ping_init(void);
void fabriq_ping_exit(void);
int fabriq_ping(struct sockaddr *src, struct sockaddr *dst, const struct fabriq_ping_opts *opts,
		struct fabriq_ping_result *res, struct netlink_ext_ack *extack);
int fabriq_nl_ping_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy fabriq_nl_ping_policy[FABRIQ_A_PING_MAX + 1];

/* debugfs.c */
void fabriq_debugfs_init(void);
void fabriq_debugfs_exit(void);
void fabriq_debugfs_dev_add(struct fabriq_dev *fdev);
void fabriq_debugfs_dev_del(struct fabriq_dev *fdev);
void fabriq_debugfs_dev_rename(struct fabriq_dev *fdev);
struct dentry *fabriq_debugfs_root(void);

#endif /* _FABRIQ_H */
