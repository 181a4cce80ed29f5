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
const char *fq_dev_attr_name(unsigned int v) { return NAME(dev_attrs, v); }

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
