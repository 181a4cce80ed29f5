// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - `fabriq dev`: the RDMA devices fabriq is attached to.
 *
 *   fabriq dev show [DEV]
 *
 * dev_print() is also how `fabriq monitor` prints device events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"

static struct nla_policy dev_policy[FABRIQ_A_DEV_MAX + 1] = {
	[FABRIQ_A_DEV_INDEX] = { .type = NLA_U32 },
	[FABRIQ_A_DEV_NAME] = { .type = NLA_STRING },
	[FABRIQ_A_DEV_OLD_NAME] = { .type = NLA_STRING },
	[FABRIQ_A_DEV_NODE_TYPE] = { .type = NLA_U8 },
	[FABRIQ_A_DEV_TRANSPORT] = { .type = NLA_U8 },
	[FABRIQ_A_DEV_NODE_GUID] = { .type = NLA_U64 },
	[FABRIQ_A_DEV_NUM_PORTS] = { .type = NLA_U32 },
	[FABRIQ_A_DEV_UNSUPPORTED] = { .type = NLA_FLAG },
	[FABRIQ_A_DEV_UNSUPPORTED_REASON] = { .type = NLA_STRING },
	[FABRIQ_A_DEV_PORT] = { .type = NLA_NESTED },
};

static struct nla_policy port_policy[FABRIQ_A_PORT_MAX + 1] = {
	[FABRIQ_A_PORT_NUM] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_LINK_LAYER] = { .type = NLA_U8 },
	[FABRIQ_A_PORT_STATE] = { .type = NLA_U8 },
	[FABRIQ_A_PORT_PHYS_STATE] = { .type = NLA_U8 },
	[FABRIQ_A_PORT_ACTIVE_SPEED] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_ACTIVE_WIDTH] = { .type = NLA_U8 },
	[FABRIQ_A_PORT_RATE_MBPS] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_ACTIVE_MTU] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_LID] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_SM_LID] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_GID_TBL_LEN] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_NETDEV_IFINDEX] = { .type = NLA_U32 },
	[FABRIQ_A_PORT_NETDEV_NAME] = { .type = NLA_STRING },
};

void dev_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq dev show [DEV]\n"
		"       fabriq dev help\n"
		"where  DEV := RDMA device name (1-%d characters), as `rdma dev` lists it\n",
		FABRIQ_DEV_NAME_MAX - 1);
}

static void print_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48) & 0xffff, (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	out_str("node_guid", "node_guid %s ", buf);
}

static void print_rate(uint32_t mbps)
{
	char buf[32];

	if (mbps % 1000)
		snprintf(buf, sizeof(buf), "%.1fGb/s", mbps / 1000.0);
	else
		snprintf(buf, sizeof(buf), "%uGb/s", mbps / 1000);
	out_uint("rate_mbps", NULL, mbps);
	out_text("rate %s ", buf);
}

static void print_port(struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_PORT_MAX + 1];

	if (nla_parse_nested(tb, FABRIQ_A_PORT_MAX, nest, port_policy) ||
	    !tb[FABRIQ_A_PORT_NUM])
		return;
	out_begin_object(NULL);
	out_text("\n    ");
	out_uint("port", "port %llu ", nla_get_u32(tb[FABRIQ_A_PORT_NUM]));
	if (tb[FABRIQ_A_PORT_LINK_LAYER])
		out_str("link_layer", "link_layer %s ",
			fq_link_layer_name(nla_get_u8(tb[FABRIQ_A_PORT_LINK_LAYER])));
	if (tb[FABRIQ_A_PORT_STATE])
		out_str("state", "state %s ",
			fq_port_state_name(nla_get_u8(tb[FABRIQ_A_PORT_STATE])));
	if (tb[FABRIQ_A_PORT_PHYS_STATE])
		out_str("physical_state", "physical_state %s ",
			fq_phys_state_name(nla_get_u8(tb[FABRIQ_A_PORT_PHYS_STATE])));
	if (tb[FABRIQ_A_PORT_RATE_MBPS])
		print_rate(nla_get_u32(tb[FABRIQ_A_PORT_RATE_MBPS]));
	if (tb[FABRIQ_A_PORT_ACTIVE_SPEED])
		out_str("active_speed", "speed %s ",
			fq_speed_name(nla_get_u32(tb[FABRIQ_A_PORT_ACTIVE_SPEED])));
	if (tb[FABRIQ_A_PORT_ACTIVE_WIDTH])
		out_str("active_width", "width %s ",
			fq_width_name(nla_get_u8(tb[FABRIQ_A_PORT_ACTIVE_WIDTH])));
	if (tb[FABRIQ_A_PORT_ACTIVE_MTU])
		out_uint("active_mtu", "mtu %llu ", nla_get_u32(tb[FABRIQ_A_PORT_ACTIVE_MTU]));
	if (tb[FABRIQ_A_PORT_LID])
		out_uint("lid", "lid %llu ", nla_get_u32(tb[FABRIQ_A_PORT_LID]));
	if (tb[FABRIQ_A_PORT_SM_LID])
		out_uint("sm_lid", "sm_lid %llu ", nla_get_u32(tb[FABRIQ_A_PORT_SM_LID]));
	if (tb[FABRIQ_A_PORT_GID_TBL_LEN])
		out_uint("gid_tbl_len", "gid_tbl_len %llu ",
			 nla_get_u32(tb[FABRIQ_A_PORT_GID_TBL_LEN]));
	if (tb[FABRIQ_A_PORT_NETDEV_NAME])
		out_str("netdev", "netdev %s ", nla_get_string(tb[FABRIQ_A_PORT_NETDEV_NAME]));
	if (tb[FABRIQ_A_PORT_NETDEV_IFINDEX])
		out_uint("netdev_index", "netdev_index %llu ",
			 nla_get_u32(tb[FABRIQ_A_PORT_NETDEV_IFINDEX]));
	out_end_object();
}

static void print_ports(struct nl_msg *msg)
{
	struct nlattr *a;
	int rem;

	out_begin_array("ports");
	fq_msg_for_each_attr(a, msg, rem)
		if (nla_type(a) == FABRIQ_A_DEV_PORT)
			print_port(a);
	out_end_array();
}

/*
 * Print one device message.  @event names the notification for monitor
 * ("dev-add", ...) or is NULL for `dev show`.
 */
int dev_print(struct nl_msg *msg, const char *event)
{
	struct nlattr *tb[FABRIQ_A_DEV_MAX + 1];

	if (fq_nl_parse(msg, tb, FABRIQ_A_DEV_MAX, dev_policy) ||
	    !tb[FABRIQ_A_DEV_INDEX] || !tb[FABRIQ_A_DEV_NAME])
		return 0;
	out_begin_object(NULL);
	if (event)
		out_str("event", "[%s] ", event);
	out_uint("index", "%llu: ", nla_get_u32(tb[FABRIQ_A_DEV_INDEX]));
	out_str("name", "%s: ", nla_get_string(tb[FABRIQ_A_DEV_NAME]));
	if (tb[FABRIQ_A_DEV_OLD_NAME])
		out_str("old_name", "old_name %s ", nla_get_string(tb[FABRIQ_A_DEV_OLD_NAME]));
	if (tb[FABRIQ_A_DEV_NODE_TYPE])
		out_str("node_type", "node_type %s ",
			fq_node_type_name(nla_get_u8(tb[FABRIQ_A_DEV_NODE_TYPE])));
	if (tb[FABRIQ_A_DEV_TRANSPORT])
		out_str("transport", "transport %s ",
			fq_transport_name(nla_get_u8(tb[FABRIQ_A_DEV_TRANSPORT])));
	if (tb[FABRIQ_A_DEV_NODE_GUID])
		print_guid(nla_get_u64(tb[FABRIQ_A_DEV_NODE_GUID]));
	if (tb[FABRIQ_A_DEV_NUM_PORTS])
		out_uint("num_ports", "ports %llu ", nla_get_u32(tb[FABRIQ_A_DEV_NUM_PORTS]));
	out_bool("unsupported", "unsupported ", tb[FABRIQ_A_DEV_UNSUPPORTED]);
	if (tb[FABRIQ_A_DEV_UNSUPPORTED_REASON])
		out_str("unsupported_reason", "reason \"%s\" ",
			nla_get_string(tb[FABRIQ_A_DEV_UNSUPPORTED_REASON]));
	if (tb[FABRIQ_A_DEV_PORT])
		print_ports(msg);
	out_end_record();
	return 0;
}

static int show_one(struct nl_msg *msg, void *arg)
{
	return dev_print(msg, NULL);
}

static int dev_show(int argc, char **argv)
{
	const char *name = NULL;
	struct nl_msg *msg;
	int err;

	if (argc > 0) {
		name = argv[0];
		if (strlen(name) == 0 || strlen(name) >= FABRIQ_DEV_NAME_MAX) {
			fprintf(stderr, "%s: dev show: device name '%s' is %zu characters long "
				"(valid: 1-%d)\n", prog, name, strlen(name), FABRIQ_DEV_NAME_MAX - 1);
			return 1;
		}
		argc--, argv++;
	}
	if (argc > 0)
		return usage_error("dev", "show: unexpected argument '%s' (expected: [DEV])",
				   argv[0]);
	if (fq_nl_open())
		return 1;
	msg = fq_nl_new(FABRIQ_CMD_DEV_GET, name ? 0 : NLM_F_DUMP);
	if (!msg || (name && nla_put_string(msg, FABRIQ_A_DEV_NAME, name))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	out_begin_array(NULL);
	err = fq_nl_request(msg, show_one, NULL, name ? "dev show" : "dev show (dump)");
	out_end_array();
	fq_nl_close();
	if (err == -ENODEV && name)
		fprintf(stderr, "%s: dev show: no RDMA device named '%s' (see 'rdma dev')\n",
			prog, name);
	return err ? 1 : 0;
}

int do_dev(int argc, char **argv)
{
	if (argc == 0 || match(argv[0], "show") || match(argv[0], "list"))
		return dev_show(argc ? argc - 1 : 0, argc ? argv + 1 : argv);
	if (match(argv[0], "help")) {
		dev_usage();
		return 0;
	}
	return usage_error("dev", "unknown command '%s' (valid: show, help)", argv[0]);
}
