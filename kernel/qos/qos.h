/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qos.h - the QoS settings of one port as fabriq holds them (intent) and
 * reads them back (hardware), and the calls between the QoS files:
 *
 *   qos.c          intent store, set/get, re-apply, drift check; it only
 *                  calls the backends of a port through struct fabriq_qos_ops
 *   qos_ib.c       backend: InfiniBand ports, SMPs to the local SMA (core/smp.c)
 *   qos_dcb.c      backend: RoCE ports, the netdev's DCB (IEEE 802.1Qaz) ops
 *   qos_backend.c  backend: a driver's registered ops (fabriq_backend.h)
 *   qos_red.c      backend: ECN on netdevs without a driver backend, RED qdiscs
 *   qos_netlink.c  QOS_GET, QOS_SET and the QoS notifications
 *   qos_subsys.c   the hooks into the core; which backends a port gets
 *
 * Lock order (the module's one order is in Documentation/design.md):
 * fabriq_qos_lock, fabriq_devs_lock, fabriq_dev.lock, rtnl_lock, the
 * backends lock; the marks spinlock is a leaf.
 */
#ifndef _FABRIQ_QOS_H
#define _FABRIQ_QOS_H

#include <net/genetlink.h>
#include <linux/netdevice.h>
#include <linux/types.h>
#include <linux/fabriq.h>

#include "fabriq_backend.h"
#include "qos_path.h"

struct fabriq_dev;
struct fabriq_port;
struct genl_info;
struct netlink_callback;
struct netlink_ext_ack;
struct seq_file;
struct sk_buff;

/* One VL arbitration table: @len (VL, weight) entries; the rest zero. */
struct fabriq_qos_vlarb {
	u8 len;
	struct {
		u8 vl;
		u8 weight;
	} e[FABRIQ_QOS_VLARB_MAX];
};

/**
 * struct fabriq_qos_cfg - the QoS settings of one port
 * @present: BIT(enum fabriq_qos_field) for each field that is set
 * @ecn_prios: with FABRIQ_QOS_F_ECN: bit n when @ecn[n] is set
 *
 * The other members are the fields of enum fabriq_qos_field, in the
 * units of the uapi ("qos-cfg").
 */
struct fabriq_qos_cfg {
	u32 present;
	u8 sl2vl[FABRIQ_QOS_NUM_SL];
	struct fabriq_qos_vlarb vlarb_high;
	struct fabriq_qos_vlarb vlarb_low;
	u8 vl_high_limit;
	u8 oper_vls;
	u8 pfc;
	u8 trust;
	u8 dscp_prio[FABRIQ_QOS_NUM_DSCP];
	u8 prio_tc[FABRIQ_QOS_NUM_PRIO];
	u8 tc_bw[FABRIQ_QOS_NUM_PRIO];
	u8 tc_tsa[FABRIQ_QOS_NUM_PRIO];
	u8 ecn_prios;
	struct fabriq_ecn_prio ecn[FABRIQ_QOS_NUM_PRIO];
	u8 tclass;
	u8 sl;
};

#define FABRIQ_QOS_IB_FIELDS	(BIT(FABRIQ_QOS_F_SL2VL) | BIT(FABRIQ_QOS_F_VLARB_HIGH) | \
				 BIT(FABRIQ_QOS_F_VLARB_LOW) | BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT) | \
				 BIT(FABRIQ_QOS_F_OPER_VLS) | BIT(FABRIQ_QOS_F_SL))
#define FABRIQ_QOS_DCB_FIELDS	(BIT(FABRIQ_QOS_F_PFC) | BIT(FABRIQ_QOS_F_TRUST) | \
				 BIT(FABRIQ_QOS_F_DSCP_PRIO) | BIT(FABRIQ_QOS_F_ETS_PRIO_TC) | \
				 BIT(FABRIQ_QOS_F_ETS_TC_BW) | BIT(FABRIQ_QOS_F_ETS_TC_TSA))
#define FABRIQ_QOS_ETS_FIELDS	(BIT(FABRIQ_QOS_F_ETS_PRIO_TC) | BIT(FABRIQ_QOS_F_ETS_TC_BW) | \
				 BIT(FABRIQ_QOS_F_ETS_TC_TSA))
#define FABRIQ_QOS_ROCE_FIELDS	(FABRIQ_QOS_DCB_FIELDS | BIT(FABRIQ_QOS_F_ECN) | \
				 BIT(FABRIQ_QOS_F_TCLASS))
/* Fields that live in fabriq itself, not in the hardware. */
#define FABRIQ_QOS_SOFT_FIELDS	(BIT(FABRIQ_QOS_F_TCLASS) | BIT(FABRIQ_QOS_F_SL))

/* the most backends one port has (struct fabriq_qos_port_kind) */
#define FABRIQ_QOS_PORT_OPS_MAX	3

/**
 * struct fabriq_qos_caps - what a port can take, read with its hardware state
 * @link_layer: enum fabriq_link_layer
 * @vl_cap: IB: data VLs the port supports (PortInfo:VLCap as a count)
 * @vlarb_high_cap: IB: entries in the high-priority VLArb table
 * @vlarb_low_cap: IB: entries in the low-priority VLArb table
 * @netdev: RoCE: the port's netdev name ("" when none is bound)
 * @dcb: RoCE: the netdev has IEEE DCB ops
 * @trust: RoCE: trust can be programmed (APP trust or the backend)
 * @ecn_backend: RoCE: what programs ECN: a driver backend, "red", or ""
 * @owned: by backend of the port's kind (its @ops index): the fields it
 *	owns on this port now
 * @owned_all: the fields some backend of the port owns now
 */
struct fabriq_qos_caps {
	u8 link_layer;
	u8 vl_cap;
	u8 vlarb_high_cap;
	u8 vlarb_low_cap;
	char netdev[IFNAMSIZ];
	bool dcb;
	bool trust;
	char ecn_backend[32];
	u32 owned[FABRIQ_QOS_PORT_OPS_MAX];
	u32 owned_all;
};

/*
 * Where a field lives in struct fabriq_qos_cfg (@len 0: FABRIQ_QOS_F_ECN,
 * which is per priority).  VLArb tables compare as a whole, so entries past
 * their @len are kept zero.
 */
struct fabriq_qos_field_desc {
	u16 off;
	u16 len;
};

extern const struct fabriq_qos_field_desc fabriq_qos_fields[FABRIQ_QOS_F_NUM];

/* Where field @f's value for the port comes from: @c if it sets @f, else @hw. */
static inline const struct fabriq_qos_cfg *
fabriq_qos_src(const struct fabriq_qos_cfg *c, const struct fabriq_qos_cfg *hw, int f)
{
	return (c->present & BIT(f)) ? c : hw;
}

/* The words of enum fabriq_qos_field. */
extern const char *const fabriq_qos_field_names[FABRIQ_QOS_F_NUM];

/**
 * struct fabriq_qos_hwport - the port a backend call works on
 * @ibdev: the device (present: fdev->lock is held across the call)
 * @port: port number
 * @ndev: a RoCE port's netdev (a reference is held), or NULL
 */
struct fabriq_qos_hwport {
	struct ib_device *ibdev;
	u32 port;
	struct net_device *ndev;
};

/**
 * struct fabriq_qos_ops - one way of reaching a port's QoS hardware
 * @name: the backend kind, for messages
 * @fields: the fields (BIT(enum fabriq_qos_field)) it can ever program
 * @read: read what it can of @want into @hw (setting @hw->present) and
 *	fill its part of @caps; *@owned receives the fields of @want it can
 *	program on this port right now
 * @validate: optional; check the values of @fields of @c (the fields of the
 *	request that this is the first backend of the port to name), with
 *	@hw and @caps as read just before; refuse a field that no backend
 *	of the port owns (@caps->owned_all) and say why
 * @write: program @fields of @cfg, all of them owned by this backend;
 *	@old is the state read just before
 * @show_caps: optional; "key value" lines of its capabilities (debugfs)
 *
 * Context of every call: process context, fdev->lock held, rtnl_lock not
 * held.  Each backend's file says what it takes beyond that.
 */
struct fabriq_qos_ops {
	const char *name;
	u32 fields;
	int (*read)(const struct fabriq_qos_hwport *hp, u32 want, struct fabriq_qos_cfg *hw,
		    struct fabriq_qos_caps *caps, u32 *owned);
	int (*validate)(const struct fabriq_qos_cfg *c, u32 fields,
			const struct fabriq_qos_cfg *hw, const struct fabriq_qos_caps *caps,
			struct netlink_ext_ack *extack);
	int (*write)(const struct fabriq_qos_hwport *hp, const struct fabriq_qos_cfg *cfg,
		     u32 fields, const struct fabriq_qos_cfg *old,
		     const struct fabriq_qos_caps *caps, struct netlink_ext_ack *extack);
	void (*show_caps)(struct seq_file *s, const struct fabriq_qos_caps *caps);
};

/**
 * struct fabriq_qos_port_kind - the backends of one kind of port, chosen
 * once per port when the port attaches (qos_subsys.c)
 * @link_layer: enum fabriq_link_layer
 * @fields: the fields a port of this kind takes; others are refused
 * @netdev: the port carries a netdev (RoCE)
 * @ops: its backends, in the order they are read and written; a field
 *	belongs to the first that owns it (NULL-terminated)
 */
struct fabriq_qos_port_kind {
	u8 link_layer;
	u32 fields;
	bool netdev;
	const struct fabriq_qos_ops *ops[FABRIQ_QOS_PORT_OPS_MAX + 1];
};

/* the backend kinds: qos_ib.c, qos_dcb.c, qos_backend.c, qos_red.c */
extern const struct fabriq_qos_ops fabriq_qos_ib_ops;
extern const struct fabriq_qos_ops fabriq_qos_dcb_ops;
extern const struct fabriq_qos_ops fabriq_qos_driver_ops;
extern const struct fabriq_qos_ops fabriq_qos_red_ops;

/* qos.c */
int fabriq_qos_init(void);
void fabriq_qos_exit(void);
int fabriq_qos_set(struct fabriq_dev *fdev, struct fabriq_port *port,
		   const struct fabriq_qos_cfg *req, bool validate_only,
		   struct netlink_ext_ack *extack);
int fabriq_qos_get(struct fabriq_dev *fdev, struct fabriq_port *port,
		   struct fabriq_qos_cfg *intent, struct fabriq_qos_cfg *hw,
		   struct fabriq_qos_caps *caps, u32 *drift, char *warning, size_t wlen,
		   bool fresh);

/* qos_netlink.c */
void fabriq_nl_qos_notify(u8 cmd, const char *dev_name, u32 port, u32 drift,
			  const char *field, const char *message);

/* qos_backend.c (the driver-facing half is in fabriq_backend.h) */
void fabriq_qos_backend_name(struct ib_device *ibdev, char *buf, size_t len);

/* qos.c: what the device hooks and debugfs tell the QoS intent store */
void fabriq_qos_dev_added(struct fabriq_dev *fdev);
void fabriq_qos_port_active(struct fabriq_dev *fdev, struct fabriq_port *port);
void fabriq_qos_dev_renamed(struct fabriq_dev *fdev, const char *old_name);
void fabriq_qos_path_intent(const char *dev_name, u32 port, struct fabriq_qos_path *want);
int fabriq_qos_debugfs_show(struct seq_file *s, struct fabriq_dev *fdev,
			    struct fabriq_port *port);
/**
 * struct fabriq_qos_port - the QoS subsystem's data of one port
 * @kind: its backends, chosen when it attached
 * @snap_valid: @snap_hw and @snap_caps hold a read of the hardware
 * @snap_time: jiffies of that read
 * @snap_err: its result
 * @snap_hw: the state read
 * @snap_caps: the capabilities read
 *
 * The snapshot serves unprivileged QOS_GET: a user without CAP_NET_ADMIN
 * gets the last hardware read (by anyone: QOS_GET, QOS_SET, the intent
 * check) if it is younger than FABRIQ_QOS_SNAP_MS, or that read's error,
 * so that a loop of dumps costs at most one read (SMPs, rtnl, a qdisc
 * dump) per port and interval.  A write through fabriq drops it.  Under
 * fabriq_dev.lock.
 */
struct fabriq_qos_port {
	const struct fabriq_qos_port_kind *kind;
	bool snap_valid;
	unsigned long snap_time;
	int snap_err;
	struct fabriq_qos_cfg snap_hw;
	struct fabriq_qos_caps snap_caps;
};

#define FABRIQ_QOS_SNAP_MS	1000

const struct fabriq_qos_port_kind *fabriq_qos_port_kind(struct fabriq_port *port);
struct fabriq_qos_port *fabriq_qos_port(struct fabriq_port *port);

/* qos_netlink.c, qos_subsys.c */
extern const struct genl_ops fabriq_qos_nl_ops[];
extern struct fabriq_subsys fabriq_qos_subsys;

#endif /* _FABRIQ_QOS_H */
