// SPDX-License-Identifier: GPL-2.0
/*
 * ping.c - `fabriq ping`: RC round trips from this fabriq to the fabriq at
 * ADDR, over rdma_cm, with the traffic class of the port the address
 * resolves to (its `qos set ... tc` intent).
 *
 *   fabriq ping ADDR [from ADDR] [count N] [timeout MS] [interval MS]
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"

void ping_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq ping ADDR [from ADDR] [count N] [timeout MS] [interval MS]\n"
		"       fabriq ping help\n"
		"where  ADDR := IPv4 or IPv6 address of an RDMA port where fabriq runs\n"
		"       N := 1-1000 round trips (default 5); timeout: 1-60000 ms per round trip\n"
		"       (default 1000); interval: 1-60000 ms between round trips (default none)\n"
		"Needs CAP_NET_ADMIN.  The connection uses the traffic class of the local port\n"
		"('fabriq qos set dev DEV tc N').\n");
}

static int put_addr(struct nl_msg *msg, int type, const char *what, const char *s)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, s, buf) == 1)
		return nla_put(msg, type, 4, buf);
	if (inet_pton(AF_INET6, s, buf) == 1)
		return nla_put(msg, type, 16, buf);
	fprintf(stderr, "%s: ping: %s: '%s' is not an address (valid: IPv4 or IPv6)\n", prog,
		what, s);
	return 1;
}

static int put_num(struct nl_msg *msg, int type, const char *what, const char *s,
		   unsigned long max)
{
	uint64_t v;

	if (!fq_parse_u64(s, 10, 1, max, &v)) {
		fprintf(stderr, "%s: ping: %s: '%s' is out of range (valid: 1-%lu)\n", prog, what,
			s ? s : "", max);
		return 1;
	}
	return nla_put_u32(msg, type, v);
}

static int print_result(struct nl_msg *msg, void *arg)
{
	static struct nla_policy pol[FABRIQ_A_PING_MAX + 1] = {
		[FABRIQ_A_PING_DEV_NAME] = { .type = NLA_STRING },
		[FABRIQ_A_PING_PORT] = { .type = NLA_U32 },
		[FABRIQ_A_PING_TCLASS] = { .type = NLA_U8 },
		[FABRIQ_A_PING_SENT] = { .type = NLA_U32 },
		[FABRIQ_A_PING_RECEIVED] = { .type = NLA_U32 },
		[FABRIQ_A_PING_RTT_MIN_NS] = { .type = NLA_U64 },
		[FABRIQ_A_PING_RTT_AVG_NS] = { .type = NLA_U64 },
		[FABRIQ_A_PING_RTT_MAX_NS] = { .type = NLA_U64 },
	};
	struct nlattr *tb[FABRIQ_A_PING_MAX + 1];
	const char *dst = arg;
	char rtt[96];

	if (fq_nl_parse(msg, tb, FABRIQ_A_PING_MAX, pol) || !tb[FABRIQ_A_PING_DEV_NAME] ||
	    !tb[FABRIQ_A_PING_SENT] || !tb[FABRIQ_A_PING_RECEIVED])
		return 0;
	out_begin_object(NULL);
	out_str("dst", "ping %s", dst);
	out_str("dev", " via %s", nla_get_string(tb[FABRIQ_A_PING_DEV_NAME]));
	if (tb[FABRIQ_A_PING_PORT])
		out_uint("port", " port %llu", nla_get_u32(tb[FABRIQ_A_PING_PORT]));
	if (tb[FABRIQ_A_PING_TCLASS])
		out_uint("tc", " tc %llu", nla_get_u8(tb[FABRIQ_A_PING_TCLASS]));
	out_uint("sent", ": %llu sent", nla_get_u32(tb[FABRIQ_A_PING_SENT]));
	out_uint("received", ", %llu received", nla_get_u32(tb[FABRIQ_A_PING_RECEIVED]));
	if (tb[FABRIQ_A_PING_RTT_MIN_NS] && tb[FABRIQ_A_PING_RTT_AVG_NS] &&
	    tb[FABRIQ_A_PING_RTT_MAX_NS]) {
		out_uint("rtt_min_ns", NULL, nla_get_u64(tb[FABRIQ_A_PING_RTT_MIN_NS]));
		out_uint("rtt_avg_ns", NULL, nla_get_u64(tb[FABRIQ_A_PING_RTT_AVG_NS]));
		out_uint("rtt_max_ns", NULL, nla_get_u64(tb[FABRIQ_A_PING_RTT_MAX_NS]));
		snprintf(rtt, sizeof(rtt), ", rtt min/avg/max %.3f/%.3f/%.3f ms",
			 nla_get_u64(tb[FABRIQ_A_PING_RTT_MIN_NS]) / 1e6,
			 nla_get_u64(tb[FABRIQ_A_PING_RTT_AVG_NS]) / 1e6,
			 nla_get_u64(tb[FABRIQ_A_PING_RTT_MAX_NS]) / 1e6);
		out_text("%s", rtt);
	}
	out_text("\n");
	out_end_object();
	return 0;
}

int do_ping(int argc, char **argv)
{
	struct nl_msg *msg;
	const char *dst;
	int err = 0, i;

	if (argc == 0)
		return usage_error("ping", "an address is required");
	if (match(argv[0], "help")) {
		ping_usage();
		return 0;
	}
	if (fq_nl_open())
		return 1;
	dst = argv[0];
	msg = fq_nl_new(FABRIQ_CMD_PING, 0);
	if (!msg) {
		fq_nl_close();
		return 1;
	}
	err = put_addr(msg, FABRIQ_A_PING_DST, "ADDR", dst);
	for (i = 1; !err && i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (match(argv[i], "from") && v)
			err = put_addr(msg, FABRIQ_A_PING_SRC, "from", v);
		else if (match(argv[i], "count"))
			err = put_num(msg, FABRIQ_A_PING_COUNT, "count", v, 1000);
		else if (match(argv[i], "timeout"))
			err = put_num(msg, FABRIQ_A_PING_TIMEOUT_MS, "timeout", v, 60000);
		else if (match(argv[i], "interval"))
			err = put_num(msg, FABRIQ_A_PING_INTERVAL_MS, "interval", v, 60000);
		else
			err = usage_error("ping", "unexpected argument '%s' (valid: from, count, timeout, interval)",
					  argv[i]);
	}
	if (err) {
		nlmsg_free(msg);
		fq_nl_close();
		return 1;
	}
	out_begin_array(NULL);
	err = fq_nl_request_later(msg, print_result, (void *)dst, "ping");
	out_end_array();
	fq_nl_close();
	return err ? 1 : 0;
}
