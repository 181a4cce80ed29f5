// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - `fabriq monitor`: print events from the "events" group as
 * they happen, one line (or one JSON object) each: device and QoS
 * notifications and the telemetry detectors' events.
 *
 *   fabriq monitor [count N]
 */
#include <arpa/inet.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"

void monitor_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq monitor [count N]\n"
		"       fabriq monitor help\n"
		"where  N := events to print before exiting (1-%d; default: until interrupted)\n"
		"Events: dev-add, dev-del, dev-rename, port-change, qos-drift, qos-warn,\n"
		"        and the detectors' (raised and cleared): slow-peer, link-degraded,\n"
		"        pfc-storm, ecn-anomaly, vl-congestion, error-rate, latency, bw-drop,\n"
		"        link-latency.\n"
		"Needs CAP_NET_ADMIN.\n",
		INT_MAX);
}

static const char *const event_names[] = {
	[FABRIQ_CMD_DEV_ADD_NTF] = "dev-add",
	[FABRIQ_CMD_DEV_DEL_NTF] = "dev-del",
	[FABRIQ_CMD_DEV_RENAME_NTF] = "dev-rename",
	[FABRIQ_CMD_PORT_CHANGE_NTF] = "port-change",
	[FABRIQ_CMD_QOS_DRIFT_NTF] = "qos-drift",
	[FABRIQ_CMD_QOS_WARN_NTF] = "qos-warn",
	[FABRIQ_CMD_EVENT_NTF] = "detector",
};

static struct nla_policy event_policy[FABRIQ_A_EVENT_MAX + 1] = {
	[FABRIQ_A_EVENT_DETECTOR] = { .type = NLA_U8 },
	[FABRIQ_A_EVENT_SEVERITY] = { .type = NLA_U8 },
	[FABRIQ_A_EVENT_CLEARED] = { .type = NLA_FLAG },
	[FABRIQ_A_EVENT_DEV_INDEX] = { .type = NLA_U32 },
	[FABRIQ_A_EVENT_DEV_NAME] = { .type = NLA_STRING },
	[FABRIQ_A_EVENT_PORT] = { .type = NLA_U32 },
	[FABRIQ_A_EVENT_PRIO] = { .type = NLA_U8 },
	[FABRIQ_A_EVENT_VL] = { .type = NLA_U8 },
	[FABRIQ_A_EVENT_COMM_ID] = { .type = NLA_U64 },
	[FABRIQ_A_EVENT_PEER_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_EVENT_COMM_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_EVENT_VALUE] = { .type = NLA_U64 },
	[FABRIQ_A_EVENT_THRESHOLD] = { .type = NLA_U64 },
	[FABRIQ_A_EVENT_WINDOW_MS] = { .type = NLA_U32 },
	[FABRIQ_A_EVENT_TIME_NS] = { .type = NLA_U64 },
};

/* A detector's event: "pfc-storm raised critical dev D port 1 prio 3 value ..." */
static void event_print(struct nl_msg *msg)
{
	struct nlattr *tb[FABRIQ_A_EVENT_MAX + 1];
	char buf[INET6_ADDRSTRLEN] = "";
	struct nlattr *a;

	if (fq_nl_parse(msg, tb, FABRIQ_A_EVENT_MAX, event_policy) || !tb[FABRIQ_A_EVENT_DETECTOR])
		return;
	out_begin_object(NULL);
	out_str("event", "%s ", "detector");
	out_str("detector", "%s ", fq_det_name(nla_get_u8(tb[FABRIQ_A_EVENT_DETECTOR])));
	out_str("state", "%s ", tb[FABRIQ_A_EVENT_CLEARED] ? "cleared" : "raised");
	if (tb[FABRIQ_A_EVENT_SEVERITY])
		out_str("severity", "severity %s ", fq_sev_name(nla_get_u8(tb[FABRIQ_A_EVENT_SEVERITY])));
	if (tb[FABRIQ_A_EVENT_DEV_NAME])
		out_str("dev", "dev %s ", nla_get_string(tb[FABRIQ_A_EVENT_DEV_NAME]));
	if (tb[FABRIQ_A_EVENT_PORT])
		out_uint("port", "port %llu ", nla_get_u32(tb[FABRIQ_A_EVENT_PORT]));
	if (tb[FABRIQ_A_EVENT_PRIO])
		out_uint("priority", "prio %llu ", nla_get_u8(tb[FABRIQ_A_EVENT_PRIO]));
	if (tb[FABRIQ_A_EVENT_VL])
		out_uint("vl", "vl %llu ", nla_get_u8(tb[FABRIQ_A_EVENT_VL]));
	if (tb[FABRIQ_A_EVENT_COMM_ID])
		out_hex("comm", "comm %s ", nla_get_u64(tb[FABRIQ_A_EVENT_COMM_ID]));
	if (tb[FABRIQ_A_EVENT_COMM_RANK])
		out_uint("rank", "rank %llu ", nla_get_u32(tb[FABRIQ_A_EVENT_COMM_RANK]));
	if (tb[FABRIQ_A_EVENT_PEER_RANK])
		out_uint("peer", "peer %llu ", nla_get_u32(tb[FABRIQ_A_EVENT_PEER_RANK]));
	a = tb[FABRIQ_A_EVENT_PEER_ADDR];
	if (a && fq_nla_addr(a, buf, sizeof(buf)))
		out_str("address", "address %s ", buf);
	if (tb[FABRIQ_A_EVENT_VALUE])
		out_uint("value", "value %llu ", nla_get_u64(tb[FABRIQ_A_EVENT_VALUE]));
	if (tb[FABRIQ_A_EVENT_THRESHOLD])
		out_uint("threshold", "threshold %llu ", nla_get_u64(tb[FABRIQ_A_EVENT_THRESHOLD]));
	if (tb[FABRIQ_A_EVENT_WINDOW_MS])
		out_uint("window_ms", "window_ms %llu", nla_get_u32(tb[FABRIQ_A_EVENT_WINDOW_MS]));
	if (tb[FABRIQ_A_EVENT_TIME_NS] && out_is_json())
		out_uint("time_ns", "", nla_get_u64(tb[FABRIQ_A_EVENT_TIME_NS]));
	out_end_record();
}

static long remaining = -1;

static int on_event(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));

	if (gh->cmd >= sizeof(event_names) / sizeof(event_names[0]) || !event_names[gh->cmd])
		return 0;
	if (gh->cmd == FABRIQ_CMD_EVENT_NTF)
		event_print(msg);
	else if (gh->cmd == FABRIQ_CMD_QOS_DRIFT_NTF || gh->cmd == FABRIQ_CMD_QOS_WARN_NTF)
		qos_event_print(msg, event_names[gh->cmd]);
	else
		dev_print(msg, event_names[gh->cmd]);
	return remaining > 0 && --remaining == 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int do_monitor(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	while (argc > 0) {
		if (match(argv[0], "help")) {
			monitor_usage();
			return 0;
		} else if (match(argv[0], "count")) {
			uint64_t v;

			if (argc < 2)
				return usage_error("monitor", "count: missing value (valid: 1-%d)", INT_MAX);
			if (fq_parse_range("monitor", "count", argv[1], 10, 1, INT_MAX, &v))
				return 1;
			remaining = v;
			argc -= 2, argv += 2;
		} else {
			return usage_error("monitor", "unknown argument '%s' (valid: count, help)",
					   argv[0]);
		}
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (fq_nl_open())
		return 1;
	if (fq_nl_subscribe_events()) {
		fq_nl_close();
		return 1;
	}
	err = fq_nl_listen(on_event, NULL, &stop);
	fq_nl_close();
	if (err) {
		fprintf(stderr, "%s: monitor: %s\n", prog, nl_geterror(err));
		return 1;
	}
	return 0;
}
