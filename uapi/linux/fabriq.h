/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fabriq: the only contract between fabriq.ko and its tools.
 *
 * Generic netlink family "fabriq": commands, attribute sets, multicast
 * groups and the enums their values use.  Documentation/netlink/fabriq.yaml
 * describes the same family; keep them in step.
 */
#ifndef _UAPI_LINUX_FABRIQ_H
#define _UAPI_LINUX_FABRIQ_H

#define FABRIQ_GENL_NAME	"fabriq"
#define FABRIQ_GENL_VERSION	1
#define FABRIQ_MCGRP_EVENTS	"events"

/* Longest RDMA device name, including the terminating NUL (IB_DEVICE_NAME_MAX). */
#define FABRIQ_DEV_NAME_MAX	64

enum fabriq_cmd {
	FABRIQ_CMD_UNSPEC,
	FABRIQ_CMD_DEV_GET,		/* do: by index or name; dump: all */
	FABRIQ_CMD_DEV_ADD_NTF,		/* events: a device was added */
	FABRIQ_CMD_DEV_DEL_NTF,		/* events: a device was removed */
	FABRIQ_CMD_DEV_RENAME_NTF,	/* events: carries DEV_OLD_NAME */
	FABRIQ_CMD_PORT_CHANGE_NTF,	/* events: port state/LID/GID change */

	__FABRIQ_CMD_MAX,
	FABRIQ_CMD_MAX = __FABRIQ_CMD_MAX - 1
};

/* attribute set "dev" */
enum fabriq_dev_attr {
	FABRIQ_A_DEV_UNSPEC,
	FABRIQ_A_DEV_PAD,
	FABRIQ_A_DEV_INDEX,		/* u32: RDMA device index */
	FABRIQ_A_DEV_NAME,		/* string: RDMA device name */
	FABRIQ_A_DEV_OLD_NAME,		/* string: name before a rename */
	FABRIQ_A_DEV_NODE_TYPE,		/* u8: enum fabriq_node_type */
	FABRIQ_A_DEV_TRANSPORT,		/* u8: enum fabriq_transport */
	FABRIQ_A_DEV_NODE_GUID,		/* u64: host byte order */
	FABRIQ_A_DEV_NUM_PORTS,		/* u32 */
	FABRIQ_A_DEV_UNSUPPORTED,	/* flag: listed, never used by fabriq */
	FABRIQ_A_DEV_UNSUPPORTED_REASON,/* string */
	FABRIQ_A_DEV_PORT,		/* nest, multi: attribute set "port" */

	__FABRIQ_A_DEV_MAX,
	FABRIQ_A_DEV_MAX = __FABRIQ_A_DEV_MAX - 1
};

/* attribute set "port" */
enum fabriq_port_attr {
	FABRIQ_A_PORT_UNSPEC,
	FABRIQ_A_PORT_NUM,		/* u32 */
	FABRIQ_A_PORT_LINK_LAYER,	/* u8: enum fabriq_link_layer */
	FABRIQ_A_PORT_STATE,		/* u8: enum fabriq_port_state */
	FABRIQ_A_PORT_PHYS_STATE,	/* u8: enum fabriq_port_phys_state */
	FABRIQ_A_PORT_ACTIVE_SPEED,	/* u32: IB speed bit (1 SDR .. 256 XDR) */
	FABRIQ_A_PORT_ACTIVE_WIDTH,	/* u8: IB width bit (1 1X, 2 4X, 4 8X, 8 12X, 16 2X) */
	FABRIQ_A_PORT_RATE_MBPS,	/* u32: width x per-lane data rate */
	FABRIQ_A_PORT_ACTIVE_MTU,	/* u32: bytes */
	FABRIQ_A_PORT_LID,		/* u32: InfiniBand only */
	FABRIQ_A_PORT_SM_LID,		/* u32: InfiniBand only */
	FABRIQ_A_PORT_GID_TBL_LEN,	/* u32 */
	FABRIQ_A_PORT_NETDEV_IFINDEX,	/* u32: RoCE only, when bound */
	FABRIQ_A_PORT_NETDEV_NAME,	/* string: RoCE only, when bound */

	__FABRIQ_A_PORT_MAX,
	FABRIQ_A_PORT_MAX = __FABRIQ_A_PORT_MAX - 1
};

/* Values are NodeInfo:NodeType and the kernel's rdma_node_type. */
enum fabriq_node_type {
	FABRIQ_NODE_UNKNOWN,
	FABRIQ_NODE_CA,
	FABRIQ_NODE_SWITCH,
	FABRIQ_NODE_ROUTER,
	FABRIQ_NODE_RNIC,
	FABRIQ_NODE_USNIC,
	FABRIQ_NODE_USNIC_UDP,
	FABRIQ_NODE_UNSPECIFIED,
};

enum fabriq_transport {
	FABRIQ_TRANSPORT_IB,		/* InfiniBand and RoCE */
	FABRIQ_TRANSPORT_IWARP,
	FABRIQ_TRANSPORT_USNIC,
	FABRIQ_TRANSPORT_USNIC_UDP,
	FABRIQ_TRANSPORT_UNKNOWN,
};

enum fabriq_link_layer {
	FABRIQ_LINK_LAYER_UNSPECIFIED,
	FABRIQ_LINK_LAYER_INFINIBAND,
	FABRIQ_LINK_LAYER_ETHERNET,
};

/* Values are PortInfo:PortState. */
enum fabriq_port_state {
	FABRIQ_PORT_NOP,
	FABRIQ_PORT_DOWN,
	FABRIQ_PORT_INIT,
	FABRIQ_PORT_ARMED,
	FABRIQ_PORT_ACTIVE,
	FABRIQ_PORT_ACTIVE_DEFER,
};

/* Values are PortInfo:PortPhysicalState. */
enum fabriq_port_phys_state {
	FABRIQ_PHYS_UNKNOWN,
	FABRIQ_PHYS_SLEEP,
	FABRIQ_PHYS_POLLING,
	FABRIQ_PHYS_DISABLED,
	FABRIQ_PHYS_CONFIG_TRAINING,
	FABRIQ_PHYS_LINK_UP,
	FABRIQ_PHYS_LINK_ERROR_RECOVERY,
	FABRIQ_PHYS_PHY_TEST,
};

/*
 * The words for these values, as debugfs and the fabriq CLI print them.
 * Initializers for "static const char *const x[] = FABRIQ_..._NAMES;".
 */
#define FABRIQ_NODE_TYPE_NAMES {					\
	[FABRIQ_NODE_UNKNOWN] = "unknown", [FABRIQ_NODE_CA] = "ca",	\
	[FABRIQ_NODE_SWITCH] = "switch", [FABRIQ_NODE_ROUTER] = "router",	\
	[FABRIQ_NODE_RNIC] = "rnic", [FABRIQ_NODE_USNIC] = "usnic",	\
	[FABRIQ_NODE_USNIC_UDP] = "usnic_udp",				\
	[FABRIQ_NODE_UNSPECIFIED] = "unspecified" }

#define FABRIQ_TRANSPORT_NAMES {					\
	[FABRIQ_TRANSPORT_IB] = "ib", [FABRIQ_TRANSPORT_IWARP] = "iwarp",	\
	[FABRIQ_TRANSPORT_USNIC] = "usnic",				\
	[FABRIQ_TRANSPORT_USNIC_UDP] = "usnic_udp",			\
	[FABRIQ_TRANSPORT_UNKNOWN] = "unknown" }

#define FABRIQ_LINK_LAYER_NAMES {					\
	[FABRIQ_LINK_LAYER_UNSPECIFIED] = "unspecified",		\
	[FABRIQ_LINK_LAYER_INFINIBAND] = "infiniband",			\
	[FABRIQ_LINK_LAYER_ETHERNET] = "ethernet" }

#define FABRIQ_PORT_STATE_NAMES {					\
	[FABRIQ_PORT_NOP] = "NOP", [FABRIQ_PORT_DOWN] = "DOWN",		\
	[FABRIQ_PORT_INIT] = "INIT", [FABRIQ_PORT_ARMED] = "ARMED",	\
	[FABRIQ_PORT_ACTIVE] = "ACTIVE",				\
	[FABRIQ_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER" }

#define FABRIQ_PHYS_STATE_NAMES {					\
	[FABRIQ_PHYS_UNKNOWN] = "UNKNOWN", [FABRIQ_PHYS_SLEEP] = "SLEEP",	\
	[FABRIQ_PHYS_POLLING] = "POLLING",				\
	[FABRIQ_PHYS_DISABLED] = "DISABLED",				\
	[FABRIQ_PHYS_CONFIG_TRAINING] = "PORT_CONFIGURATION_TRAINING",	\
	[FABRIQ_PHYS_LINK_UP] = "LINK_UP",				\
	[FABRIQ_PHYS_LINK_ERROR_RECOVERY] = "LINK_ERROR_RECOVERY",	\
	[FABRIQ_PHYS_PHY_TEST] = "PHY_TEST" }

#endif /* _UAPI_LINUX_FABRIQ_H */
