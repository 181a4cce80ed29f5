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
	FABRIQ_CMD_STATS_GET,		/* dump: telemetry (set "stats"), filter by dev/port/comm */
	FABRIQ_CMD_CONFIG_GET,		/* do: sampler and detector settings (set "config") */
	FABRIQ_CMD_CONFIG_SET,		/* do, CAP_NET_ADMIN: change them */
	FABRIQ_CMD_EVENT_NTF,		/* events: a detector raised or cleared (set "event") */

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
	FABRIQ_A_COMM_QPS,		/* u32: QPs held now (data channels and the
					 * control connection, per peer)
					 */
	FABRIQ_A_COMM_OPS_DONE,		/* u64 */
	FABRIQ_A_COMM_OPS_FAILED,	/* u64 */
	FABRIQ_A_COMM_OPS_QUEUED,	/* u32 */
	FABRIQ_A_COMM_BYTES,		/* u64: payload sent */
	FABRIQ_A_COMM_PEER,		/* nest, multi: set "comm-peer" */
	FABRIQ_A_COMM_STATUS,		/* nest, set "rank-status": this rank's */
	FABRIQ_A_COMM_PEER_TIMEOUT_MS,	/* u32: silence after which a peer is dead */

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
	FABRIQ_A_COMM_PEER_TCLASS,	/* u8: traffic class its connections' route carries */
	FABRIQ_A_COMM_PEER_SL,		/* u8: their service level (IB: the port's "sl"
					 * intent, else the SA's; RoCE: what rdma_cm
					 * derives from the class, the VLAN egress
					 * map's or the netdev's priority, else 0)
					 */
	FABRIQ_A_COMM_PEER_STATUS,	/* nest, set "rank-status": the peer's, as
					 * its last heartbeat told
					 */

	__FABRIQ_A_COMM_PEER_MAX,
	FABRIQ_A_COMM_PEER_MAX = __FABRIQ_A_COMM_PEER_MAX - 1
};

/* what a rank is to the one that reports it */
enum fabriq_rank_state {
	FABRIQ_RANK_UNKNOWN,	/* no heartbeat from it yet */
	FABRIQ_RANK_SELF,
	FABRIQ_RANK_ALIVE,
	FABRIQ_RANK_DEAD,	/* silent for peer_timeout_ms, or unreachable */
	FABRIQ_RANK_CLOSED,	/* it closed its communicator */
	__FABRIQ_RANK_MAX
};

#define FABRIQ_RANK_STATE_NAMES {					\
	[FABRIQ_RANK_UNKNOWN] = "unknown", [FABRIQ_RANK_SELF] = "self",	\
	[FABRIQ_RANK_ALIVE] = "alive", [FABRIQ_RANK_DEAD] = "dead",	\
	[FABRIQ_RANK_CLOSED] = "closed" }

/*
 * attribute set "rank-status": where one rank of a communicator is, as
 * this host knows it (its own engine, or a peer's last heartbeat), and
 * whom it holds up.  A rank that waits on a rank that itself waits has
 * inherited that much of its wait; following the waits from rank to rank
 * ends at the origin: a rank that waits on nobody (it is late, or
 * computing), a dead one, or, when the waits go round, the one of the
 * round that has waited longest (the first to stop) -- or, when one rank
 * of the round is the link suspect, that one.
 *
 * Each rank also measures its links (the latency of its sends to each
 * peer against that link's own baseline) and its heartbeats say how many
 * it finds slow and which is slowest.  Each such report blames both ends
 * of a link, the reporter once per slow link; the rank with the most
 * blame, at least 2 and alone, is the link suspect: a rank whose links
 * are slow wherever they are measured from.  One slow link blames its two
 * ends alike: no suspect.
 */
enum fabriq_rank_status_attr {
	FABRIQ_A_RSTAT_UNSPEC,
	FABRIQ_A_RSTAT_PAD,
	FABRIQ_A_RSTAT_STATE,		/* u8: enum fabriq_rank_state */
	FABRIQ_A_RSTAT_HEARD_MS,	/* u32: since its last heartbeat (peers) */
	FABRIQ_A_RSTAT_RUNNING,		/* u8: in a call */
	FABRIQ_A_RSTAT_OP_SEQ,		/* u64: the call it runs or last ran */
	FABRIQ_A_RSTAT_OPS_DONE,	/* u64 */
	FABRIQ_A_RSTAT_STEP,		/* u32: the step it has got to */
	FABRIQ_A_RSTAT_WAIT_RANK,	/* u32: whom it waits on (absent: nobody) */
	FABRIQ_A_RSTAT_WAIT_NS,		/* u64: for how long */
	FABRIQ_A_RSTAT_INHERITED_NS,	/* u64: of that, waited because its peer waits */
	FABRIQ_A_RSTAT_ORIGIN,		/* u8: the waits of others end here */
	FABRIQ_A_RSTAT_BLOCKS,		/* u32: ranks whose waits end here */
	FABRIQ_A_RSTAT_SLOW_LINKS,	/* u32: its links it finds slow (link-latency) */
	FABRIQ_A_RSTAT_SLOW_RANK,	/* u32: the slowest of them (absent: none) */
	FABRIQ_A_RSTAT_SLOW_RATIO,	/* u32: its latency / its baseline, x100 */
	FABRIQ_A_RSTAT_LINK_BLAME,	/* u32: slow links reported that end at it */
	FABRIQ_A_RSTAT_LINK_SUSPECT,	/* u8: it alone has the most (link-latency) */

	__FABRIQ_A_RSTAT_MAX,
	FABRIQ_A_RSTAT_MAX = __FABRIQ_A_RSTAT_MAX - 1
};

/*
 * Telemetry.  The counter catalogue: every counter fabriq samples on a
 * port, whatever its source (rdma_hw_stats, IB PMA, the netdev's ethtool
 * statistics, or fabriq's own traffic).  The values double as attribute
 * types of the COUNTERS and RATES nests of set "stats"; a counter the
 * device lacks is left out, never reported as 0.
 */
enum fabriq_ctr {
	FABRIQ_CTR_UNSPEC,
	FABRIQ_CTR_TX_BYTES,		/* u64: bytes sent on the port */
	FABRIQ_CTR_RX_BYTES,
	FABRIQ_CTR_TX_PKTS,
	FABRIQ_CTR_RX_PKTS,
	FABRIQ_CTR_CNP_SENT,		/* RoCE congestion: CNPs sent (notification point) */
	FABRIQ_CTR_CNP_HANDLED,		/* CNPs acted on (reaction point) */
	FABRIQ_CTR_CNP_IGNORED,
	FABRIQ_CTR_ECN_MARKED,		/* ECN-marked packets received */
	FABRIQ_CTR_OUT_OF_SEQ,		/* out-of-sequence requests received */
	FABRIQ_CTR_SEQ_ERR,		/* sequence error NAKs received */
	FABRIQ_CTR_RETRANSMITS,
	FABRIQ_CTR_RNR_NAK_RCVD,
	FABRIQ_CTR_RNR_NAK_SENT,
	FABRIQ_CTR_RNR_RETRY_EXC,	/* RNR retries exhausted */
	FABRIQ_CTR_TIMEOUTS,		/* local ACK timeouts / transport retries exhausted */
	FABRIQ_CTR_LINK_DOWNED,
	FABRIQ_CTR_SYMBOL_ERRORS,
	FABRIQ_CTR_RX_ERRORS,		/* IB PortRcvErrors */
	FABRIQ_CTR_TX_DISCARDS,		/* IB PortXmitDiscards */
	FABRIQ_CTR_XMIT_WAIT,		/* IB PortXmitWait, ticks */
	FABRIQ_CTR_TX_PAUSE,		/* RoCE: pause frames, all priorities */
	FABRIQ_CTR_RX_PAUSE,
	FABRIQ_CTR_TX_PAUSE_DURATION,	/* microseconds, all priorities */
	FABRIQ_CTR_RX_PAUSE_DURATION,
	FABRIQ_CTR_OWN_TX_BYTES,	/* fabriq's own traffic on the port */
	FABRIQ_CTR_OWN_RX_BYTES,
	FABRIQ_CTR_OWN_TX_WRS,
	FABRIQ_CTR_OWN_RX_WRS,
	FABRIQ_CTR_OWN_ERRORS,		/* work completions in error */
	FABRIQ_CTR_OWN_CQE_NS,		/* sum of send post -> completion times */
	FABRIQ_CTR_ECN_MARKED_TX,	/* packets the port's own queueing marked CE (RED) */

	__FABRIQ_CTR_MAX,
	FABRIQ_CTR_MAX = __FABRIQ_CTR_MAX - 1
};

#define FABRIQ_CTR_NAMES {						\
	[FABRIQ_CTR_TX_BYTES] = "tx_bytes", [FABRIQ_CTR_RX_BYTES] = "rx_bytes",	\
	[FABRIQ_CTR_TX_PKTS] = "tx_pkts", [FABRIQ_CTR_RX_PKTS] = "rx_pkts",	\
	[FABRIQ_CTR_CNP_SENT] = "cnp_sent", [FABRIQ_CTR_CNP_HANDLED] = "cnp_handled",	\
	[FABRIQ_CTR_CNP_IGNORED] = "cnp_ignored",			\
	[FABRIQ_CTR_ECN_MARKED] = "ecn_marked",				\
	[FABRIQ_CTR_OUT_OF_SEQ] = "out_of_seq", [FABRIQ_CTR_SEQ_ERR] = "seq_err",	\
	[FABRIQ_CTR_RETRANSMITS] = "retransmits",			\
	[FABRIQ_CTR_RNR_NAK_RCVD] = "rnr_nak_rcvd",			\
	[FABRIQ_CTR_RNR_NAK_SENT] = "rnr_nak_sent",			\
	[FABRIQ_CTR_RNR_RETRY_EXC] = "rnr_retry_exc",			\
	[FABRIQ_CTR_TIMEOUTS] = "timeouts",				\
	[FABRIQ_CTR_LINK_DOWNED] = "link_downed",			\
	[FABRIQ_CTR_SYMBOL_ERRORS] = "symbol_errors",			\
	[FABRIQ_CTR_RX_ERRORS] = "rx_errors",				\
	[FABRIQ_CTR_TX_DISCARDS] = "tx_discards",			\
	[FABRIQ_CTR_XMIT_WAIT] = "xmit_wait",				\
	[FABRIQ_CTR_TX_PAUSE] = "tx_pause", [FABRIQ_CTR_RX_PAUSE] = "rx_pause",	\
	[FABRIQ_CTR_TX_PAUSE_DURATION] = "tx_pause_duration",		\
	[FABRIQ_CTR_RX_PAUSE_DURATION] = "rx_pause_duration",		\
	[FABRIQ_CTR_OWN_TX_BYTES] = "own_tx_bytes",			\
	[FABRIQ_CTR_OWN_RX_BYTES] = "own_rx_bytes",			\
	[FABRIQ_CTR_OWN_TX_WRS] = "own_tx_wrs",				\
	[FABRIQ_CTR_OWN_RX_WRS] = "own_rx_wrs",				\
	[FABRIQ_CTR_OWN_ERRORS] = "own_errors",				\
	[FABRIQ_CTR_OWN_CQE_NS] = "own_cqe_ns",				\
	[FABRIQ_CTR_ECN_MARKED_TX] = "ecn_marked_tx" }

/* Per-priority pause counters (set "stats-prio"), RoCE ports. */
enum fabriq_pause_ctr {
	FABRIQ_PAUSE_RX,
	FABRIQ_PAUSE_TX,
	FABRIQ_PAUSE_RX_DURATION,	/* microseconds */
	FABRIQ_PAUSE_TX_DURATION,
	FABRIQ_PAUSE_NUM
};

#define FABRIQ_PAUSE_NAMES {						\
	[FABRIQ_PAUSE_RX] = "rx_pause", [FABRIQ_PAUSE_TX] = "tx_pause",	\
	[FABRIQ_PAUSE_RX_DURATION] = "rx_pause_duration",		\
	[FABRIQ_PAUSE_TX_DURATION] = "tx_pause_duration" }

#define FABRIQ_NUM_VL		16

/*
 * attribute set "stats": FABRIQ_CMD_STATS_GET.  A request may carry
 * DEV_INDEX or DEV_NAME (and PORT), or COMM_ID, to filter.  The dump has
 * one message per port (PORT present) and one per communicator (COMM_ID).
 */
enum fabriq_stats_attr {
	FABRIQ_A_STATS_UNSPEC,
	FABRIQ_A_STATS_PAD,
	FABRIQ_A_STATS_DEV_INDEX,	/* u32 */
	FABRIQ_A_STATS_DEV_NAME,	/* string */
	FABRIQ_A_STATS_PORT,		/* u32 */
	FABRIQ_A_STATS_LINK_LAYER,	/* u8: enum fabriq_link_layer */
	FABRIQ_A_STATS_TIME_NS,		/* u64: CLOCK_MONOTONIC of the newest sample */
	FABRIQ_A_STATS_INTERVAL_MS,	/* u32: the sampler's interval (0: off) */
	FABRIQ_A_STATS_SAMPLES,		/* u32: samples in the ring now */
	FABRIQ_A_STATS_SAMPLE_NS,	/* u64: mean time one sample of this port took */
	FABRIQ_A_STATS_COUNTERS,	/* nest: attribute type = enum fabriq_ctr, u64 values */
	FABRIQ_A_STATS_RATES,		/* nest: the same counters, per second */
	FABRIQ_A_STATS_PRIO,		/* nest, multi: set "stats-prio" */
	FABRIQ_A_STATS_VL,		/* nest, multi: set "stats-vl" */
	FABRIQ_A_STATS_COMM_ID,		/* u64 */
	FABRIQ_A_STATS_COMM_RANK,	/* u32 */
	FABRIQ_A_STATS_COMM_NRANKS,	/* u32 */
	FABRIQ_A_STATS_COLL,		/* nest, multi: set "stats-coll" */
	FABRIQ_A_STATS_PEER,		/* nest, multi: set "stats-peer" */

	__FABRIQ_A_STATS_MAX,
	FABRIQ_A_STATS_MAX = __FABRIQ_A_STATS_MAX - 1
};

enum fabriq_stats_prio_attr {
	FABRIQ_A_STATS_PRIO_UNSPEC,
	FABRIQ_A_STATS_PRIO_PAD,
	FABRIQ_A_STATS_PRIO_PRIO,	/* u8: 0-7 */
	FABRIQ_A_STATS_PRIO_COUNTERS,	/* nest: type = enum fabriq_pause_ctr + 1, u64 */
	FABRIQ_A_STATS_PRIO_RATES,	/* nest: the same, per second */

	__FABRIQ_A_STATS_PRIO_MAX,
	FABRIQ_A_STATS_PRIO_MAX = __FABRIQ_A_STATS_PRIO_MAX - 1
};

enum fabriq_stats_vl_attr {
	FABRIQ_A_STATS_VL_UNSPEC,
	FABRIQ_A_STATS_VL_PAD,
	FABRIQ_A_STATS_VL_VL,		/* u8: 0-15 */
	FABRIQ_A_STATS_VL_XMIT_WAIT,	/* u64: PortVLXmitWait ticks */
	FABRIQ_A_STATS_VL_XMIT_WAIT_RATE,	/* u64: ticks per second */

	__FABRIQ_A_STATS_VL_MAX,
	FABRIQ_A_STATS_VL_MAX = __FABRIQ_A_STATS_VL_MAX - 1
};

#define FABRIQ_HIST_BUCKETS	64	/* bucket b: durations in [2^b, 2^(b+1)) ns */

enum fabriq_stats_coll_attr {
	FABRIQ_A_STATS_COLL_UNSPEC,
	FABRIQ_A_STATS_COLL_PAD,
	FABRIQ_A_STATS_COLL_TYPE,	/* u8: enum fabriq_coll_type */
	FABRIQ_A_STATS_COLL_COUNT,	/* u64: operations that completed */
	FABRIQ_A_STATS_COLL_SUM_NS,	/* u64 */
	FABRIQ_A_STATS_COLL_MIN_NS,	/* u64 */
	FABRIQ_A_STATS_COLL_MAX_NS,	/* u64 */
	FABRIQ_A_STATS_COLL_P50_NS,	/* u64: upper bound of the bucket holding it */
	FABRIQ_A_STATS_COLL_P99_NS,	/* u64 */
	FABRIQ_A_STATS_COLL_P999_NS,	/* u64 */
	FABRIQ_A_STATS_COLL_BUCKETS,	/* binary: u64 counts, host order, from BUCKET_FIRST on */
	FABRIQ_A_STATS_COLL_BUCKET_FIRST,	/* u8: the bucket BUCKETS starts with */

	__FABRIQ_A_STATS_COLL_MAX,
	FABRIQ_A_STATS_COLL_MAX = __FABRIQ_A_STATS_COLL_MAX - 1
};

enum fabriq_stats_peer_attr {
	FABRIQ_A_STATS_PEER_UNSPEC,
	FABRIQ_A_STATS_PEER_PAD,
	FABRIQ_A_STATS_PEER_RANK,	/* u32 */
	FABRIQ_A_STATS_PEER_ADDR,	/* binary[4|16] */
	FABRIQ_A_STATS_PEER_TX_BYTES,	/* u64: over all its QPs */
	FABRIQ_A_STATS_PEER_RX_BYTES,	/* u64 */
	FABRIQ_A_STATS_PEER_TX_WRS,	/* u64: sends posted */
	FABRIQ_A_STATS_PEER_RX_WRS,	/* u64: receives completed */
	FABRIQ_A_STATS_PEER_ERRORS,	/* u64: completions in error */
	FABRIQ_A_STATS_PEER_OUTSTANDING,	/* u32: sends in flight now */
	FABRIQ_A_STATS_PEER_CQE_AVG_NS,	/* u64: send post -> completion, mean */
	FABRIQ_A_STATS_PEER_CQE_MAX_NS,	/* u64 */
	FABRIQ_A_STATS_PEER_STEPS,	/* u64: steps that waited for this peer */
	FABRIQ_A_STATS_PEER_WAIT_NS,	/* u64: total step wait for this peer */
	FABRIQ_A_STATS_PEER_WAIT_MAX_NS,	/* u64 */
	FABRIQ_A_STATS_PEER_WAIT_LAST_NS,	/* u64: in the last operation */
	FABRIQ_A_STATS_PEER_SLOW,	/* flag: the slow-peer detector has it raised */

	__FABRIQ_A_STATS_PEER_MAX,
	FABRIQ_A_STATS_PEER_MAX = __FABRIQ_A_STATS_PEER_MAX - 1
};

/* The detectors; the thresholds and windows are in set "config-det". */
enum fabriq_detector {
	FABRIQ_DET_SLOW_PEER,		/* value: wait / median of the others, x100 */
	FABRIQ_DET_LINK_DEGRADED,	/* value: active rate Mbps (or link_downed rise) */
	FABRIQ_DET_PFC_STORM,		/* value: percent of the interval paused (tx) */
	FABRIQ_DET_ECN_ANOMALY,		/* value: ECN marks without CNP, or CNPs ignored */
	FABRIQ_DET_VL_CONGESTION,	/* value: parts per million of the interval in XmitWait */
	FABRIQ_DET_ERROR_RATE,		/* value: errors per million packets */
	FABRIQ_DET_LATENCY,		/* value: mean completion latency, ns */
	FABRIQ_DET_BW_DROP,		/* value: percent below the rolling baseline */
	FABRIQ_DET_LINK_LATENCY,	/* value: the suspect's slowest link / its baseline, x100 */
	__FABRIQ_DET_MAX
};

#define FABRIQ_DET_NAMES {						\
	[FABRIQ_DET_SLOW_PEER] = "slow-peer",				\
	[FABRIQ_DET_LINK_DEGRADED] = "link-degraded",			\
	[FABRIQ_DET_PFC_STORM] = "pfc-storm",				\
	[FABRIQ_DET_ECN_ANOMALY] = "ecn-anomaly",			\
	[FABRIQ_DET_VL_CONGESTION] = "vl-congestion",			\
	[FABRIQ_DET_ERROR_RATE] = "error-rate",				\
	[FABRIQ_DET_LATENCY] = "latency",				\
	[FABRIQ_DET_BW_DROP] = "bw-drop",				\
	[FABRIQ_DET_LINK_LATENCY] = "link-latency" }

/*
 * The range of each detector's threshold, in its unit: initializers for
 * "static const __u64 x[] = FABRIQ_DET_THRESHOLD_MIN;" and _MAX.
 */
#define FABRIQ_DET_THRESHOLD_MIN {					\
	[FABRIQ_DET_SLOW_PEER] = 100,					\
	[FABRIQ_DET_LINK_LATENCY] = 110 }
#define FABRIQ_DET_THRESHOLD_MAX {					\
	[FABRIQ_DET_SLOW_PEER] = 100000,	/* 1000x the median */	\
	[FABRIQ_DET_LINK_DEGRADED] = 0,		/* no threshold */	\
	[FABRIQ_DET_PFC_STORM] = 100,		/* percent */		\
	[FABRIQ_DET_ECN_ANOMALY] = 1000000000,	/* count per sample */	\
	[FABRIQ_DET_VL_CONGESTION] = 1000000,	/* ppm */		\
	[FABRIQ_DET_ERROR_RATE] = 1000000,	/* ppm */		\
	[FABRIQ_DET_LATENCY] = 60000000000ULL,	/* ns */		\
	[FABRIQ_DET_BW_DROP] = 100,		/* percent */		\
	[FABRIQ_DET_LINK_LATENCY] = 100000 }	/* 1000x the baseline */
#define FABRIQ_DET_SLOW_PEER_OPS_MAX	1000	/* LIMIT of slow-peer: operations */

enum fabriq_severity {
	FABRIQ_SEV_INFO,
	FABRIQ_SEV_WARNING,
	FABRIQ_SEV_CRITICAL,
};

#define FABRIQ_SEV_NAMES {						\
	[FABRIQ_SEV_INFO] = "info", [FABRIQ_SEV_WARNING] = "warning",	\
	[FABRIQ_SEV_CRITICAL] = "critical" }

/* attribute set "config": CONFIG_GET reply, CONFIG_SET request */
enum fabriq_config_attr {
	FABRIQ_A_CONFIG_UNSPEC,
	FABRIQ_A_CONFIG_PAD,
	FABRIQ_A_CONFIG_INTERVAL_MS,	/* u32: sampler interval, 1-60000; 0 stops sampling */
	FABRIQ_A_CONFIG_RING_SAMPLES,	/* u32: samples kept per port, 2-4096 */
	FABRIQ_A_CONFIG_DET,		/* nest, multi: set "config-det" */
	FABRIQ_A_CONFIG_EVENTS_PER_SEC,	/* u32: event rate limit, 1-10000 */
	FABRIQ_A_CONFIG_EVENTS_SUPPRESSED,	/* u64, reply only: events the limit dropped */

	__FABRIQ_A_CONFIG_MAX,
	FABRIQ_A_CONFIG_MAX = __FABRIQ_A_CONFIG_MAX - 1
};

enum fabriq_config_det_attr {
	FABRIQ_A_CONFIG_DET_UNSPEC,
	FABRIQ_A_CONFIG_DET_PAD,
	FABRIQ_A_CONFIG_DET_ID,		/* u8: enum fabriq_detector (required) */
	FABRIQ_A_CONFIG_DET_ENABLED,	/* u8: 0 or 1 */
	FABRIQ_A_CONFIG_DET_THRESHOLD,	/* u64: in the detector's unit (enum fabriq_detector) */
	FABRIQ_A_CONFIG_DET_WINDOW_MS,	/* u32: how long the condition must hold, 0-3600000 */
	FABRIQ_A_CONFIG_DET_LIMIT,	/* u64: second limit (see Documentation/telemetry.md) */
	FABRIQ_A_CONFIG_DET_RAISED,	/* u64, reply only: conditions raised since the load */
	FABRIQ_A_CONFIG_DET_CLEARED,	/* u64, reply only: conditions cleared since the load */

	__FABRIQ_A_CONFIG_DET_MAX,
	FABRIQ_A_CONFIG_DET_MAX = __FABRIQ_A_CONFIG_DET_MAX - 1
};

/* attribute set "event": FABRIQ_CMD_EVENT_NTF */
enum fabriq_event_attr {
	FABRIQ_A_EVENT_UNSPEC,
	FABRIQ_A_EVENT_PAD,
	FABRIQ_A_EVENT_DETECTOR,	/* u8: enum fabriq_detector */
	FABRIQ_A_EVENT_SEVERITY,	/* u8: enum fabriq_severity */
	FABRIQ_A_EVENT_CLEARED,		/* flag: the condition ended */
	FABRIQ_A_EVENT_DEV_INDEX,	/* u32 */
	FABRIQ_A_EVENT_DEV_NAME,	/* string */
	FABRIQ_A_EVENT_PORT,		/* u32 */
	FABRIQ_A_EVENT_PRIO,		/* u8: the priority (PFC storm) */
	FABRIQ_A_EVENT_VL,		/* u8: the VL (VL congestion) */
	FABRIQ_A_EVENT_COMM_ID,		/* u64 */
	FABRIQ_A_EVENT_PEER_RANK,	/* u32 */
	FABRIQ_A_EVENT_PEER_ADDR,	/* binary[4|16] */
	FABRIQ_A_EVENT_VALUE,		/* u64: measured, in the detector's unit */
	FABRIQ_A_EVENT_THRESHOLD,	/* u64 */
	FABRIQ_A_EVENT_WINDOW_MS,	/* u32 */
	FABRIQ_A_EVENT_TIME_NS,		/* u64: CLOCK_REALTIME */
	FABRIQ_A_EVENT_MESSAGE,		/* string: for people */
	FABRIQ_A_EVENT_COMM_RANK,	/* u32: the rank that observed it (slow-peer) */

	__FABRIQ_A_EVENT_MAX,
	FABRIQ_A_EVENT_MAX = __FABRIQ_A_EVENT_MAX - 1
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
#define FABRIQ_KEY_MIN		16	/* bytes of a communicator key */
#define FABRIQ_KEY_MAX		64
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

#define FABRIQ_COLL_NAMES {						\
	[FABRIQ_COLL_ALLREDUCE] = "allreduce", [FABRIQ_COLL_ALLGATHER] = "allgather",	\
	[FABRIQ_COLL_REDUCESCATTER] = "reducescatter",			\
	[FABRIQ_COLL_BROADCAST] = "broadcast", [FABRIQ_COLL_REDUCE] = "reduce",	\
	[FABRIQ_COLL_BARRIER] = "barrier", [FABRIQ_COLL_ALLTOALL] = "alltoall" }

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
 * @key_len: bytes at @key, FABRIQ_KEY_MIN..FABRIQ_KEY_MAX; required when
 *           @nranks > 1 (0 only for a single rank)
 * @key: user pointer to the communicator's secret key, the same on every
 *       rank and known to nobody else (a job launcher draws it at random,
 *       as it draws the id).  Every connection proves it (HMAC-SHA256 in
 *       the rdma_cm private data, both ways); it is never readable back.
 * @peer_timeout_ms: a dead peer is found at most this long after its
 *	last heartbeat, and every call fails with -EHOSTDOWN (0: 5000;
 *	100..600000).  Each rank sends a heartbeat to every peer every fifth
 *	of it; a peer silent for four fifths of it is dead.
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
	__u32 key_len;
	__u64 key;
	__u32 peer_timeout_ms;
	__u32 reserved;
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

/**
 * struct fabriq_reg - FABRIQ_IOC_REG: pin and map a buffer once for every
 * call of the communicator that uses it (as ncclCommRegister does)
 * @addr: user address
 * @len: bytes, 1 B..1 GiB; charged to RLIMIT_MEMLOCK until FABRIQ_IOC_DEREG
 * @handle: out: for FABRIQ_IOC_DEREG (a __u32 argument)
 *
 * Calls cache the buffers they use anyway (module parameter
 * max_regs_per_comm entries); a registered one is never evicted.  A
 * buffer unmapped or remapped is never served stale: later calls pin what
 * the address maps then.
 */
struct fabriq_reg {
	__u64 addr;
	__u64 len;
	__u32 handle;
	__u32 reserved;
};

#define FABRIQ_IOC_MAGIC	0xfb
#define FABRIQ_IOC_COMM_INIT	_IOW(FABRIQ_IOC_MAGIC, 1, struct fabriq_comm_init)
#define FABRIQ_IOC_COMM_DESTROY	_IO(FABRIQ_IOC_MAGIC, 2)
#define FABRIQ_IOC_COLL		_IOWR(FABRIQ_IOC_MAGIC, 3, struct fabriq_coll)
#define FABRIQ_IOC_REG		_IOWR(FABRIQ_IOC_MAGIC, 4, struct fabriq_reg)
#define FABRIQ_IOC_DEREG	_IOW(FABRIQ_IOC_MAGIC, 5, __u32)

#endif /* _UAPI_LINUX_FABRIQ_H */
