// SPDX-License-Identifier: GPL-2.0
/*
 * names.c - words for the values of the uapi enums, as `rdma` prints them.
 */
#include <stddef.h>

#include "fabriq.h"

#define NAME(tbl, v) ((v) < sizeof(tbl) / sizeof(tbl[0]) && (tbl)[v] ? (tbl)[v] : "unknown")

static const char *const link_layers[] = FABRIQ_LINK_LAYER_NAMES;
static const char *const port_states[] = FABRIQ_PORT_STATE_NAMES;
static const char *const phys_states[] = FABRIQ_PHYS_STATE_NAMES;
static const char *const node_types[] = FABRIQ_NODE_TYPE_NAMES;
static const char *const transports[] = FABRIQ_TRANSPORT_NAMES;

/* Attribute names as Documentation/netlink/fabriq.yaml spells them. */
static const char *const dev_attrs[] = {
	[FABRIQ_A_DEV_PAD] = "pad",
	[FABRIQ_A_DEV_INDEX] = "dev-index",
	[FABRIQ_A_DEV_NAME] = "dev-name",
	[FABRIQ_A_DEV_OLD_NAME] = "old-name",
	[FABRIQ_A_DEV_NODE_TYPE] = "node-type",
	[FABRIQ_A_DEV_TRANSPORT] = "transport",
	[FABRIQ_A_DEV_NODE_GUID] = "node-guid",
	[FABRIQ_A_DEV_NUM_PORTS] = "num-ports",
	[FABRIQ_A_DEV_UNSUPPORTED] = "unsupported",
	[FABRIQ_A_DEV_UNSUPPORTED_REASON] = "unsupported-reason",
	[FABRIQ_A_DEV_PORT] = "port",
};

const char *fq_link_layer_name(unsigned int v) { return NAME(link_layers, v); }
const char *fq_port_state_name(unsigned int v) { return NAME(port_states, v); }
const char *fq_phys_state_name(unsigned int v) { return NAME(phys_states, v); }
const char *fq_node_type_name(unsigned int v) { return NAME(node_types, v); }
const char *fq_transport_name(unsigned int v) { return NAME(transports, v); }

/* Set "qos" and its nests "qos-cfg" and "qos-ecn". */
static const char *const qos_attrs[] = {
	[FABRIQ_A_QOS_DEV_INDEX] = "dev-index",
	[FABRIQ_A_QOS_DEV_NAME] = "dev-name",
	[FABRIQ_A_QOS_PORT] = "port",
	[FABRIQ_A_QOS_LINK_LAYER] = "link-layer",
	[FABRIQ_A_QOS_INTENT] = "intent",
	[FABRIQ_A_QOS_HW] = "hw",
	[FABRIQ_A_QOS_DRIFT] = "drift",
	[FABRIQ_A_QOS_FIELD] = "field",
	[FABRIQ_A_QOS_MESSAGE] = "message",
	[FABRIQ_A_QOS_VL_CAP] = "vl-cap",
	[FABRIQ_A_QOS_VLARB_HIGH_CAP] = "vlarb-high-cap",
	[FABRIQ_A_QOS_VLARB_LOW_CAP] = "vlarb-low-cap",
	[FABRIQ_A_QOS_ECN_BACKEND] = "ecn-backend",
	[FABRIQ_A_QOS_NETDEV_NAME] = "netdev-name",
	[FABRIQ_A_QOS_VALIDATE_ONLY] = "validate-only",
};

static const char *const qos_cfg_attrs[] = {
	[FABRIQ_A_QOS_CFG_SL2VL] = "intent sl2vl",
	[FABRIQ_A_QOS_CFG_VLARB_HIGH] = "intent vlarb-high",
	[FABRIQ_A_QOS_CFG_VLARB_LOW] = "intent vlarb-low",
	[FABRIQ_A_QOS_CFG_VL_HIGH_LIMIT] = "intent vl-high-limit",
	[FABRIQ_A_QOS_CFG_OPER_VLS] = "intent oper-vls",
	[FABRIQ_A_QOS_CFG_PFC] = "intent pfc",
	[FABRIQ_A_QOS_CFG_TRUST] = "intent trust",
	[FABRIQ_A_QOS_CFG_DSCP_PRIO] = "intent dscp-prio",
	[FABRIQ_A_QOS_CFG_ETS_PRIO_TC] = "intent ets-prio-tc",
	[FABRIQ_A_QOS_CFG_ETS_TC_BW] = "intent ets-tc-bw",
	[FABRIQ_A_QOS_CFG_ETS_TC_TSA] = "intent ets-tc-tsa",
	[FABRIQ_A_QOS_CFG_ECN] = "intent ecn",
	[FABRIQ_A_QOS_CFG_TCLASS] = "intent tclass",
	[FABRIQ_A_QOS_CFG_SL] = "intent sl",
};

static const char *const qos_ecn_attrs[] = {
	[FABRIQ_A_QOS_ECN_PRIO] = "intent ecn prio",
	[FABRIQ_A_QOS_ECN_ENABLE] = "intent ecn enable",
	[FABRIQ_A_QOS_ECN_MIN_BYTES] = "intent ecn min-bytes",
	[FABRIQ_A_QOS_ECN_MAX_BYTES] = "intent ecn max-bytes",
	[FABRIQ_A_QOS_ECN_PROB] = "intent ecn prob",
};

static const char *const ping_attrs[] = {
	[FABRIQ_A_PING_DST] = "dst",
	[FABRIQ_A_PING_SRC] = "src",
	[FABRIQ_A_PING_COUNT] = "count",
	[FABRIQ_A_PING_TIMEOUT_MS] = "timeout-ms",
	[FABRIQ_A_PING_INTERVAL_MS] = "interval-ms",
};

/*
 * The name of attribute @type in a request of command @cmd; @outer is the
 * nest it sits in (NULL at the top level).
 */
/* Sets "config" and "config-det", and "stats" (STATS_GET filters). */
static const char *const config_attrs[] = {
	[FABRIQ_A_CONFIG_INTERVAL_MS] = "interval-ms",
	[FABRIQ_A_CONFIG_RING_SAMPLES] = "ring-samples",
	[FABRIQ_A_CONFIG_DET] = "det",
	[FABRIQ_A_CONFIG_EVENTS_PER_SEC] = "events-per-sec",
	[FABRIQ_A_CONFIG_EVENTS_SUPPRESSED] = "events-suppressed",
};

static const char *const config_det_attrs[] = {
	[FABRIQ_A_CONFIG_DET_ID] = "det id",
	[FABRIQ_A_CONFIG_DET_ENABLED] = "det enabled",
	[FABRIQ_A_CONFIG_DET_THRESHOLD] = "det threshold",
	[FABRIQ_A_CONFIG_DET_WINDOW_MS] = "det window-ms",
	[FABRIQ_A_CONFIG_DET_LIMIT] = "det limit",
};

static const char *const stats_attrs[] = {
	[FABRIQ_A_STATS_DEV_INDEX] = "dev-index",
	[FABRIQ_A_STATS_DEV_NAME] = "dev-name",
	[FABRIQ_A_STATS_PORT] = "port",
	[FABRIQ_A_STATS_COMM_ID] = "comm-id",
};

static const char *const det_names[] = FABRIQ_DET_NAMES;
static const char *const sev_names[] = FABRIQ_SEV_NAMES;
static const char *const ctr_names[] = FABRIQ_CTR_NAMES;
static const char *const pause_names[] = FABRIQ_PAUSE_NAMES;

const char *fq_det_name(unsigned int v) { return NAME(det_names, v); }
const char *fq_sev_name(unsigned int v) { return NAME(sev_names, v); }
const char *fq_ctr_name(unsigned int v) { return NAME(ctr_names, v); }
const char *fq_pause_name(unsigned int v) { return NAME(pause_names, v); }

int fq_det_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(det_names) / sizeof(det_names[0]); i++)
		if (match(name, det_names[i]))
			return i;
	return -1;
}

const char *fq_attr_name(uint8_t cmd, const struct nlattr *outer, unsigned int type)
{
	if (cmd == FABRIQ_CMD_PING)
		return NAME(ping_attrs, type);
	if (cmd == FABRIQ_CMD_STATS_GET)
		return NAME(stats_attrs, type);
	if (cmd == FABRIQ_CMD_CONFIG_SET || cmd == FABRIQ_CMD_CONFIG_GET)
		return outer ? NAME(config_det_attrs, type) : NAME(config_attrs, type);
	if (cmd != FABRIQ_CMD_QOS_GET && cmd != FABRIQ_CMD_QOS_SET)
		return NAME(dev_attrs, type);
	if (!outer)
		return NAME(qos_attrs, type);
	if (nla_type(outer) == FABRIQ_A_QOS_INTENT)
		return NAME(qos_cfg_attrs, type);
	return NAME(qos_ecn_attrs, type);
}

const char *fq_speed_name(unsigned int v)
{
	switch (v) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	case 8: return "FDR10";
	case 16: return "FDR";
	case 32: return "EDR";
	case 64: return "HDR";
	case 128: return "NDR";
	case 256: return "XDR";
	default: return "unknown";
	}
}

const char *fq_width_name(unsigned int v)
{
	switch (v) {
	case 1: return "1X";
	case 2: return "4X";
	case 4: return "8X";
	case 8: return "12X";
	case 16: return "2X";
	default: return "unknown";
	}
}
