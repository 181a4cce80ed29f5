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

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

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
	FABRIQ_CMD_QOS_GET,		/* do: one port; dump: every port (set "qos") */
	FABRIQ_CMD_QOS_SET,		/* do, CAP_NET_ADMIN: change a port's intent */
	FABRIQ_CMD_QOS_DRIFT_NTF,	/* events: hardware differs from the intent */
	FABRIQ_CMD_QOS_WARN_NTF,	/* events: settings that disagree (QOS_MESSAGE) */
	FABRIQ_CMD_PING,		/* do, CAP_NET_ADMIN: RC round trips to a peer fabriq */
	FABRIQ_CMD_COMM_GET,		/* dump: communicators (set "comm"), filter by COMM_ID */

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

/*
 * attribute set "qos": requests and replies of QOS_GET/QOS_SET and the
 * QoS notifications.  A port is selected by DEV_INDEX or DEV_NAME, plus PORT.
 */
enum fabriq_qos_attr {
	FABRIQ_A_QOS_UNSPEC,
	FABRIQ_A_QOS_DEV_INDEX,		/* u32 */
	FABRIQ_A_QOS_DEV_NAME,		/* string */
	FABRIQ_A_QOS_PORT,		/* u32: port number */
	FABRIQ_A_QOS_LINK_LAYER,	/* u8: enum fabriq_link_layer */
	FABRIQ_A_QOS_INTENT,		/* nest "qos-cfg": the stored intent; QOS_SET: changes */
	FABRIQ_A_QOS_HW,		/* nest "qos-cfg": read back from the device */
	FABRIQ_A_QOS_DRIFT,		/* u32: bitmask of enum fabriq_qos_field that differ */
	FABRIQ_A_QOS_FIELD,		/* string: the field a notification is about */
	FABRIQ_A_QOS_MESSAGE,		/* string: an explanation for people */
	FABRIQ_A_QOS_VL_CAP,		/* u8: data VLs the port supports (IB) */
	FABRIQ_A_QOS_VLARB_HIGH_CAP,	/* u8: entries in the high VLArb table (IB) */
	FABRIQ_A_QOS_VLARB_LOW_CAP,	/* u8: entries in the low VLArb table (IB) */
	FABRIQ_A_QOS_ECN_BACKEND,	/* string: what programs ECN ("red", a driver) */
	FABRIQ_A_QOS_NETDEV_NAME,	/* string: RoCE: the port's netdev */
	FABRIQ_A_QOS_VALIDATE_ONLY,	/* flag, QOS_SET: check, change nothing */

	__FABRIQ_A_QOS_MAX,
	FABRIQ_A_QOS_MAX = __FABRIQ_A_QOS_MAX - 1
};

/*
 * attribute set "qos-cfg": the QoS settings of one port.  In QOS_SET each
 * attribute present replaces that field of the intent; absent fields keep
 * their intent.  Lists are byte arrays indexed as documented.
 */
enum fabriq_qos_cfg_attr {
	FABRIQ_A_QOS_CFG_UNSPEC,
	FABRIQ_A_QOS_CFG_SL2VL,		/* binary[16]: VL of SL 0..15 (IB) */
	FABRIQ_A_QOS_CFG_VLARB_HIGH,	/* binary: (VL, weight) byte pairs (IB) */
	FABRIQ_A_QOS_CFG_VLARB_LOW,	/* binary: (VL, weight) byte pairs (IB) */
	FABRIQ_A_QOS_CFG_VL_HIGH_LIMIT,	/* u8 (IB) */
	FABRIQ_A_QOS_CFG_OPER_VLS,	/* u8: data VLs in use: 1, 2, 4, 8 or 15 (IB) */
	FABRIQ_A_QOS_CFG_PFC,		/* u32: bit n = PFC on priority n, n 0-7 (RoCE) */
	FABRIQ_A_QOS_CFG_TRUST,		/* u8: enum fabriq_qos_trust (RoCE) */
	FABRIQ_A_QOS_CFG_DSCP_PRIO,	/* binary[64]: priority of DSCP n, 0xff none (RoCE) */
	FABRIQ_A_QOS_CFG_ETS_PRIO_TC,	/* binary[8]: traffic class of priority n (RoCE) */
	FABRIQ_A_QOS_CFG_ETS_TC_BW,	/* binary[8]: percent of TC n (RoCE) */
	FABRIQ_A_QOS_CFG_ETS_TC_TSA,	/* binary[8]: enum fabriq_qos_tsa of TC n (RoCE) */
	FABRIQ_A_QOS_CFG_ECN,		/* nest multi "qos-ecn": one per priority (RoCE) */
	FABRIQ_A_QOS_CFG_TCLASS,	/* u8: traffic class byte of fabriq's QPs (RoCE) */
	FABRIQ_A_QOS_CFG_SL,		/* u8: SL of fabriq's QPs (IB) */

	__FABRIQ_A_QOS_CFG_MAX,
	FABRIQ_A_QOS_CFG_MAX = __FABRIQ_A_QOS_CFG_MAX - 1
};

/* attribute set "qos-ecn": ECN marking of one priority */
enum fabriq_qos_ecn_attr {
	FABRIQ_A_QOS_ECN_UNSPEC,
	FABRIQ_A_QOS_ECN_PRIO,		/* u8: 0-7 */
	FABRIQ_A_QOS_ECN_ENABLE,	/* u8: 0 or 1 */
	FABRIQ_A_QOS_ECN_MIN_BYTES,	/* u32: marking starts at this queue depth */
	FABRIQ_A_QOS_ECN_MAX_BYTES,	/* u32: marking reaches PROB at this depth */
	FABRIQ_A_QOS_ECN_PROB,		/* u8: percent, 1-100 */

	__FABRIQ_A_QOS_ECN_MAX,
	FABRIQ_A_QOS_ECN_MAX = __FABRIQ_A_QOS_ECN_MAX - 1
};

/* The fields of a port's QoS; bits of FABRIQ_A_QOS_DRIFT. */
enum fabriq_qos_field {
	FABRIQ_QOS_F_SL2VL,
	FABRIQ_QOS_F_VLARB_HIGH,
	FABRIQ_QOS_F_VLARB_LOW,
	FABRIQ_QOS_F_VL_HIGH_LIMIT,
	FABRIQ_QOS_F_OPER_VLS,
	FABRIQ_QOS_F_PFC,
	FABRIQ_QOS_F_TRUST,
	FABRIQ_QOS_F_DSCP_PRIO,
	FABRIQ_QOS_F_ETS_PRIO_TC,
	FABRIQ_QOS_F_ETS_TC_BW,
	FABRIQ_QOS_F_ETS_TC_TSA,
	FABRIQ_QOS_F_ECN,
	FABRIQ_QOS_F_TCLASS,
	FABRIQ_QOS_F_SL,
	FABRIQ_QOS_F_NUM
};

enum fabriq_qos_trust {
	FABRIQ_QOS_TRUST_PCP = 1,
	FABRIQ_QOS_TRUST_DSCP = 2,
};

/* Values are IEEE_8021QAZ_TSA_*. */
enum fabriq_qos_tsa {
	FABRIQ_QOS_TSA_STRICT = 0,
	FABRIQ_QOS_TSA_CBS = 1,
	FABRIQ_QOS_TSA_ETS = 2,
	FABRIQ_QOS_TSA_VENDOR = 255,
};

#define FABRIQ_QOS_NUM_SL		16
#define FABRIQ_QOS_NUM_PRIO		8
#define FABRIQ_QOS_NUM_DSCP		64
#define FABRIQ_QOS_VLARB_MAX		64	/* entries in one VLArb table */
#define FABRIQ_QOS_DSCP_NONE		0xff

/* Field names, as the CLI's grammar, drift events and debugfs spell them. */
#define FABRIQ_QOS_FIELD_NAMES {					\
	[FABRIQ_QOS_F_SL2VL] = "sl2vl",					\
	[FABRIQ_QOS_F_VLARB_HIGH] = "vlarb-high",			\
	[FABRIQ_QOS_F_VLARB_LOW] = "vlarb-low",				\
	[FABRIQ_QOS_F_VL_HIGH_LIMIT] = "vl-high-limit",			\
	[FABRIQ_QOS_F_OPER_VLS] = "oper-vls",				\
	[FABRIQ_QOS_F_PFC] = "pfc",					\
	[FABRIQ_QOS_F_TRUST] = "trust",					\
	[FABRIQ_QOS_F_DSCP_PRIO] = "dscp-prio",				\
	[FABRIQ_QOS_F_ETS_PRIO_TC] = "ets prio-tc",			\
	[FABRIQ_QOS_F_ETS_TC_BW] = "ets tc-bw",				\
	[FABRIQ_QOS_F_ETS_TC_TSA] = "ets tc-tsa",			\
	[FABRIQ_QOS_F_ECN] = "ecn",					\
	[FABRIQ_QOS_F_TCLASS] = "tc",					\
	[FABRIQ_QOS_F_SL] = "sl" }

/*
 * attribute set "ping": FABRIQ_CMD_PING.  The request carries DST (and
 * optionally SRC, COUNT, TIMEOUT_MS); the reply what was used and measured.
 */
enum fabriq_ping_attr {
	FABRIQ_A_PING_UNSPEC,
	FABRIQ_A_PING_PAD,
	FABRIQ_A_PING_DST,		/* binary[4|16]: IPv4 or IPv6 address, network order */
	FABRIQ_A_PING_SRC,		/* binary[4|16]: source address (default: routed) */
	FABRIQ_A_PING_COUNT,		/* u32: round trips, 1-1000 (default 5) */
	FABRIQ_A_PING_TIMEOUT_MS,	/* u32: per round trip, 1-60000 (default 1000) */
	FABRIQ_A_PING_DEV_NAME,		/* string: the RDMA device the address resolved to */
	FABRIQ_A_PING_PORT,		/* u32: its port */
	FABRIQ_A_PING_TCLASS,		/* u8: traffic class used (the port's "tc" intent) */
	FABRIQ_A_PING_SENT,		/* u32 */
	FABRIQ_A_PING_RECEIVED,		/* u32 */
	FABRIQ_A_PING_RTT_MIN_NS,	/* u64 */
	FABRIQ_A_PING_RTT_AVG_NS,	/* u64 */
	FABRIQ_A_PING_RTT_MAX_NS,	/* u64 */
	FABRIQ_A_PING_INTERVAL_MS,	/* u32: wait between round trips, 0-60000 (default 0) */

	__FABRIQ_A_PING_MAX,
	FABRIQ_A_PING_MAX = __FABRIQ_A_PING_MAX - 1
};

/* attribute set "comm": FABRIQ_CMD_COMM_GET, one message per communicator */
enum fabriq_comm_attr {
	FABRIQ_A_COMM_UNSPEC,
	FABRIQ_A_COMM_PAD,
	FABRIQ_A_COMM_ID,		/* u64; in a request: only this id */
	FABRIQ_A_COMM_RANK,		/* u32 */
	FABRIQ_A_COMM_NRANKS,		/* u32 */
	FABRIQ_A_COMM_STATE,		/* string: connecting, ready, failed, dead */
	FABRIQ_A_COMM_ERROR,		/* s32: the error that failed it (0: none) */
	FABRIQ_A_COMM_DEV_NAME,		/* string: the RDMA device (absent once released) */
	FABRIQ_A_COMM_ADDR,		/* binary[4|16]: this rank's address */
	FABRIQ_A_COMM_PORT,		/* u32: the port this rank listens on */
	FABRIQ_A_COMM_ALGO,		/* u8: enum fabriq_algo preferred */
	FABRIQ_A_COMM_CHUNK,		/* u32: bytes per message */
	FABRIQ_A_COMM_CHANNELS,		/* u32: QPs per peer */
	FABRIQ_A_COMM_QPS,		/* u32: QPs held now */
	FABRIQ_A_COMM_OPS_DONE,		/* u64 */
	FABRIQ_A_COMM_OPS_FAILED,	/* u64 */
	FABRIQ_A_COMM_OPS_QUEUED,	/* u32 */
	FABRIQ_A_COMM_BYTES,		/* u64: payload sent */
	FABRIQ_A_COMM_PEER,		/* nest, multi: set "comm-peer" */

	__FABRIQ_A_COMM_MAX,
	FABRIQ_A_COMM_MAX = __FABRIQ_A_COMM_MAX - 1
};

enum fabriq_comm_peer_attr {
	FABRIQ_A_COMM_PEER_UNSPEC,
	FABRIQ_A_COMM_PEER_PAD,
	FABRIQ_A_COMM_PEER_RANK,	/* u32 */
	FABRIQ_A_COMM_PEER_ADDR,	/* binary[4|16] */
	FABRIQ_A_COMM_PEER_UP,		/* u8: every channel connected */
	FABRIQ_A_COMM_PEER_MSGS_TX,	/* u64 */
	FABRIQ_A_COMM_PEER_MSGS_RX,	/* u64 */
	FABRIQ_A_COMM_PEER_BYTES_TX,	/* u64 */
	FABRIQ_A_COMM_PEER_BYTES_RX,	/* u64 */

	__FABRIQ_A_COMM_PEER_MAX,
	FABRIQ_A_COMM_PEER_MAX = __FABRIQ_A_COMM_PEER_MAX - 1
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

/*
 * /dev/fabriq: collectives offloaded into the kernel.
 *
 * Each open file holds at most one communicator.  FABRIQ_IOC_COMM_INIT
 * connects it (rank r listens on addrs[r] port base_port + r and connects
 * to every lower rank), FABRIQ_IOC_COLL runs one collective, synchronously
 * or (FABRIQ_COLL_F_ASYNC) queued, in which case read() returns one
 * struct fabriq_completion per finished operation, in submission order,
 * and poll() reports EPOLLIN when one is ready.  close() tears it down.
 */
#define FABRIQ_DEV_NODE		"fabriq"
#define FABRIQ_MAX_RANKS	1024
#define FABRIQ_MAX_CHANNELS	4
#define FABRIQ_MAX_INFLIGHT	64	/* async operations queued on one communicator */

/* Values follow NCCL's ncclDataType_t. */
enum fabriq_dtype {
	FABRIQ_INT8,
	FABRIQ_UINT8,
	FABRIQ_INT32,
	FABRIQ_UINT32,
	FABRIQ_INT64,
	FABRIQ_UINT64,
	FABRIQ_FLOAT16,
	FABRIQ_FLOAT32,
	FABRIQ_FLOAT64,
	FABRIQ_BFLOAT16,
	__FABRIQ_DTYPE_MAX
};

/* Values follow NCCL's ncclRedOp_t; the bitwise ops are fabriq's (integers only). */
enum fabriq_redop {
	FABRIQ_OP_SUM,
	FABRIQ_OP_PROD,
	FABRIQ_OP_MAX,
	FABRIQ_OP_MIN,
	FABRIQ_OP_AVG,		/* floating-point types only */
	FABRIQ_OP_BAND,
	FABRIQ_OP_BOR,
	FABRIQ_OP_BXOR,
	__FABRIQ_OP_MAX
};

enum fabriq_coll_type {
	FABRIQ_COLL_ALLREDUCE,
	FABRIQ_COLL_ALLGATHER,
	FABRIQ_COLL_REDUCESCATTER,
	FABRIQ_COLL_BROADCAST,
	FABRIQ_COLL_REDUCE,
	FABRIQ_COLL_BARRIER,
	FABRIQ_COLL_ALLTOALL,
	__FABRIQ_COLL_MAX
};

enum fabriq_algo {
	FABRIQ_ALGO_AUTO,	/* by size: see fabriq_comm_init.small_bytes */
	FABRIQ_ALGO_RING,	/* allreduce, allgather, reducescatter, broadcast, reduce */
	FABRIQ_ALGO_RD,		/* recursive doubling: allreduce, barrier */
	FABRIQ_ALGO_TREE,	/* binomial tree: broadcast, reduce; allreduce = Rabenseifner */
	FABRIQ_ALGO_DIRECT,	/* pairwise exchange: alltoall */
	__FABRIQ_ALGO_MAX
};

/**
 * struct fabriq_addr - one rank's address
 * @family: AF_INET or AF_INET6
 * @addr: the address, network order (IPv4 in the first 4 bytes)
 */
struct fabriq_addr {
	__u16 family;
	__u16 reserved;
	__u8 addr[16];
};

#define FABRIQ_COMM_F_TCLASS	_BITUL(0)	/* use @tclass, not the port's tc intent */
#define FABRIQ_COMM_F_BOUNCE	_BITUL(1)	/* copy sends through slots, never zero-copy */

/**
 * struct fabriq_comm_init - FABRIQ_IOC_COMM_INIT
 * @comm_id: the communicator's id; the same on every rank
 * @nranks: 1..FABRIQ_MAX_RANKS
 * @rank: this process's rank, < @nranks
 * @addrs: user pointer to @nranks struct fabriq_addr
 * @base_port: rank r listens on base_port + r (RDMA_PS_TCP)
 * @algo: enum fabriq_algo preferred for every call (AUTO: by size)
 * @tclass: traffic class of the QPs when FABRIQ_COMM_F_TCLASS is set
 * @flags: FABRIQ_COMM_F_*
 * @chunk_bytes: bytes per message, 4 KiB..1 MiB, a multiple of 8 (0: 64 KiB)
 * @channels: QPs per peer, 1..FABRIQ_MAX_CHANNELS (0: 1)
 * @connect_timeout_ms: how long to wait for every peer (0: 30000)
 * @op_timeout_ms: an operation that makes no progress this long fails (0: 30000)
 * @small_bytes: AUTO uses latency-bound schedules below this many bytes (0: 32768)
 */
struct fabriq_comm_init {
	__u64 comm_id;
	__u32 nranks;
	__u32 rank;
	__u64 addrs;
	__u16 base_port;
	__u8 algo;
	__u8 tclass;
	__u32 flags;
	__u32 chunk_bytes;
	__u32 channels;
	__u32 connect_timeout_ms;
	__u32 op_timeout_ms;
	__u32 small_bytes;
	__u32 reserved[5];
};

#define FABRIQ_COLL_F_ASYNC	_BITUL(0)	/* queue it; the completion is read() from the fd */

/**
 * struct fabriq_coll - FABRIQ_IOC_COLL
 * @coll: enum fabriq_coll_type
 * @dtype: enum fabriq_dtype
 * @redop: enum fabriq_redop (reductions only)
 * @algo: enum fabriq_algo; AUTO uses the communicator's choice, anything
 *        else forces that schedule (-EINVAL if @coll has no such schedule)
 * @root: broadcast and reduce
 * @flags: FABRIQ_COLL_F_*
 * @count: elements, as NCCL counts them: per rank for allgather (send),
 *         reducescatter (receive) and alltoall (to each peer)
 * @sendbuf: user address of the input
 * @recvbuf: user address of the output; in place as NCCL defines it
 * @seq: out: the operation's sequence number (1, 2, ... per communicator)
 * @ns: out: how long a synchronous operation took
 */
struct fabriq_coll {
	__u8 coll;
	__u8 dtype;
	__u8 redop;
	__u8 algo;
	__u32 root;
	__u32 flags;
	__u32 reserved;
	__u64 count;
	__u64 sendbuf;
	__u64 recvbuf;
	__u64 seq;
	__u64 ns;
};

/**
 * struct fabriq_completion - read() from the fd, one per async operation
 * @seq: fabriq_coll.seq of the operation
 * @status: 0 or a negative errno
 * @ns: submission to completion
 */
struct fabriq_completion {
	__u64 seq;
	__s32 status;
	__u32 reserved;
	__u64 ns;
};

#define FABRIQ_IOC_MAGIC	0xfb
#define FABRIQ_IOC_COMM_INIT	_IOW(FABRIQ_IOC_MAGIC, 1, struct fabriq_comm_init)
#define FABRIQ_IOC_COMM_DESTROY	_IO(FABRIQ_IOC_MAGIC, 2)
#define FABRIQ_IOC_COLL		_IOWR(FABRIQ_IOC_MAGIC, 3, struct fabriq_coll)

#endif /* _UAPI_LINUX_FABRIQ_H */
