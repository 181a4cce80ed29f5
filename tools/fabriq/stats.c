// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - `fabriq stats`: telemetry and the sampler/detector settings.
 *
 *   fabriq stats show [dev DEV [port N]] [comm ID] [--prometheus]
 *   fabriq stats config show
 *   fabriq stats config set [interval MS] [samples K] [events-per-sec N]
 *                           [detector NAME [enabled on|off] [threshold X]
 *                                          [window MS] [limit L]]...
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"
#include "stats.h"
#include "../lib/libfabriq.h"

static const uint64_t thr_min[__FABRIQ_DET_MAX] = FABRIQ_DET_THRESHOLD_MIN;
static const uint64_t thr_max[__FABRIQ_DET_MAX] = FABRIQ_DET_THRESHOLD_MAX;

void stats_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq stats show [dev DEV [port N]] [comm ID] [--prometheus]\n"
		"       fabriq stats config show\n"
		"       fabriq stats config set [interval MS] [samples K] [events-per-sec N]\n"
		"                               [detector NAME [enabled { on | off }] [threshold X]\n"
		"                                              [window MS] [limit L]]...\n"
		"       fabriq stats help\n"
		"where  MS := interval 0-60000 (0 stops sampling), window 0-3600000\n"
		"       K := samples kept per port, 2-4096\n"
		"       N := events per second before the rate limit, 1-10000\n"
		"       NAME := { slow-peer | link-degraded | pfc-storm | ecn-anomaly |\n"
		"                 vl-congestion | error-rate | latency | bw-drop |\n"
		"                 link-latency }\n"
		"Units and ranges of X and L: Documentation/telemetry.md.\n"
		"config set needs CAP_NET_ADMIN.\n");
}

static void print_ctrs(const char *key, const struct st_port *p, const uint64_t *vals,
		       bool rates)
{
	int c;

	out_begin_object(key);
	for (c = 1; c < __FABRIQ_CTR_MAX; c++)
		if (p->has[c])
			out_uint_unit(fq_ctr_name(c), rates ? "/s" : "", vals[c]);
	out_end_object();
}

static void print_port(const struct st_port *p)
{
	int c, prio, vl;

	out_begin_object(NULL);
	out_str("dev", "dev %s ", p->dev);
	out_uint("port", "port %llu ", p->port);
	out_str("link_layer", "link_layer %s ", fq_link_layer_name(p->link_layer));
	out_uint("interval_ms", "interval_ms %llu ", p->interval_ms);
	out_uint("samples", "samples %llu ", p->samples);
	out_uint("sample_ns", "sample_ns %llu", p->sample_ns);
	out_text("\n    ");
	print_ctrs("counters", p, p->ctr, false);
	if (p->has_rates) {
		out_text("\n    ");
		print_ctrs("rates", p, p->rate, true);
	}
	out_begin_array("absent");
	if (!out_is_json())
		out_text("\n    absent");
	for (c = 1; c < __FABRIQ_CTR_MAX; c++)
		if (!p->has[c])
			out_str(NULL, " %s", fq_ctr_name(c));
	out_end_array();
	out_begin_array("prio");
	for (prio = 0; p->has_prio && prio < ST_NUM_PRIO; prio++) {
		out_begin_object(NULL);
		out_text("\n    ");
		out_uint("prio", "prio %llu ", prio);
		for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
			out_uint_unit(fq_pause_name(c), "", p->pause[prio][c]);
		out_begin_object("rates");
		for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
			out_uint_unit(fq_pause_name(c), "/s", p->pause_rate[prio][c]);
		out_end_object();
		out_end_object();
	}
	out_end_array();
	out_begin_array("vl");
	for (vl = 0; vl < FABRIQ_NUM_VL; vl++) {
		if (!(p->vl_mask & (1u << vl)))
			continue;
		out_begin_object(NULL);
		out_text("\n    ");
		out_uint("vl", "vl %llu ", vl);
		out_uint("xmit_wait", "xmit_wait %llu ", p->vl_wait[vl]);
		out_uint("xmit_wait_rate", "xmit_wait %llu/s", p->vl_rate[vl]);
		out_end_object();
	}
	out_end_array();
	out_end_record();
}

static void print_comm(const struct st_comm *c)
{
	int i;

	out_begin_object(NULL);
	out_hex("comm", "comm %s ", c->id);
	out_uint("rank", "rank %llu ", c->rank);
	out_uint("nranks", "nranks %llu", c->nranks);
	out_begin_array("ops");
	for (i = 0; i < c->ncoll; i++) {
		const struct st_coll *k = &c->coll[i];

		out_begin_object(NULL);
		out_text("\n    ");
		out_str("collective", "%s ", fabriq_coll_name(k->type) ?: "unknown");
		out_uint("count", "count %llu ", k->count);
		out_uint("mean_ns", "mean_ns %llu ", k->count ? k->sum_ns / k->count : 0);
		out_uint("min_ns", "min_ns %llu ", k->min_ns);
		out_uint("max_ns", "max_ns %llu ", k->max_ns);
		out_uint("p50_ns", "p50_ns %llu ", k->p50_ns);
		out_uint("p99_ns", "p99_ns %llu ", k->p99_ns);
		out_uint("p999_ns", "p999_ns %llu", k->p999_ns);
		out_end_object();
	}
	out_end_array();
	out_begin_array("peers");
	for (i = 0; i < c->npeers; i++) {
		const struct st_peer *p = &c->peers[i];

		out_begin_object(NULL);
		out_text("\n    ");
		out_uint("peer", "peer %llu ", p->rank);
		out_str("address", "address %s ", p->addr);
		out_uint("tx_bytes", "tx_bytes %llu ", p->tx_bytes);
		out_uint("rx_bytes", "rx_bytes %llu ", p->rx_bytes);
		out_uint("tx_wrs", "tx_wrs %llu ", p->tx_wrs);
		out_uint("rx_wrs", "rx_wrs %llu ", p->rx_wrs);
		out_uint("errors", "errors %llu ", p->errors);
		out_uint("outstanding", "outstanding %llu ", p->outstanding);
		out_uint("cqe_avg_ns", "cqe_avg_ns %llu ", p->cqe_avg_ns);
		out_uint("cqe_max_ns", "cqe_max_ns %llu ", p->cqe_max_ns);
		out_uint("steps", "steps %llu ", p->steps);
		out_uint("wait_ns", "wait_ns %llu ", p->wait_ns);
		out_uint("wait_max_ns", "wait_max_ns %llu ", p->wait_max_ns);
		out_uint("wait_last_ns", "wait_last_ns %llu ", p->wait_last_ns);
		out_bool("slow", "slow", p->slow);
		out_end_object();
	}
	out_end_array();
	out_end_record();
}

static int stats_show(int argc, char **argv)
{
	struct st_filter f = {};
	bool prom = false;
	struct st_snap s;
	uint64_t v;
	int i, err;

	while (argc > 0) {
		if (match(argv[0], "dev") && argc > 1) {
			f.dev = argv[1];
		} else if (match(argv[0], "port") && f.dev) {
			if (fq_parse_range("stats", "port", argc > 1 ? argv[1] : NULL, 0, 1, 255, &v))
				return 1;
			f.port = v;
		} else if (match(argv[0], "comm")) {
			if (fq_parse_range("stats", "comm", argc > 1 ? argv[1] : NULL, 0, 1, UINT64_MAX, &v))
				return 1;
			f.comm = v;
		} else if (match(argv[0], "--prometheus") || match(argv[0], "prometheus")) {
			prom = true;
			argc--, argv++;
			continue;
		} else {
			return usage_error("stats", "show: unexpected argument '%s' "
					   "(expected: [dev DEV [port N]] [comm ID] [--prometheus])",
					   argv[0]);
		}
		argc -= 2, argv += 2;
	}
	if (fq_nl_open())
		return 1;
	err = st_collect(&f, &s);
	fq_nl_close();
	if (err)
		return 1;
	if (prom) {
		st_print_prometheus(&s);
	} else {
		out_begin_object(NULL);
		out_begin_array("ports");
		for (i = 0; i < s.nports; i++)
			print_port(&s.ports[i]);
		out_end_array();
		out_begin_array("comms");
		for (i = 0; i < s.ncomms; i++)
			print_comm(&s.comms[i]);
		out_end_array();
		out_end_object();
		out_flush_record();
	}
	st_free(&s);
	return 0;
}

static struct nla_policy config_policy[FABRIQ_A_CONFIG_MAX + 1] = {
	[FABRIQ_A_CONFIG_INTERVAL_MS] = { .type = NLA_U32 },
	[FABRIQ_A_CONFIG_RING_SAMPLES] = { .type = NLA_U32 },
	[FABRIQ_A_CONFIG_EVENTS_PER_SEC] = { .type = NLA_U32 },
	[FABRIQ_A_CONFIG_EVENTS_SUPPRESSED] = { .type = NLA_U64 },
};

static void print_det(const struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_CONFIG_DET_MAX + 1];

	fq_nest_tb(nest, tb, FABRIQ_A_CONFIG_DET_MAX);
	if (!tb[FABRIQ_A_CONFIG_DET_ID])
		return;
	out_begin_object(NULL);
	out_text("\n");
	out_str("detector", "detector %s ", fq_det_name(nla_get_u8(tb[FABRIQ_A_CONFIG_DET_ID])));
	if (tb[FABRIQ_A_CONFIG_DET_ENABLED])
		out_str("enabled", "enabled %s ",
			nla_get_u8(tb[FABRIQ_A_CONFIG_DET_ENABLED]) ? "on" : "off");
	if (tb[FABRIQ_A_CONFIG_DET_THRESHOLD])
		out_uint("threshold", "threshold %llu ", nla_get_u64(tb[FABRIQ_A_CONFIG_DET_THRESHOLD]));
	if (tb[FABRIQ_A_CONFIG_DET_WINDOW_MS])
		out_uint("window_ms", "window %llu ", nla_get_u32(tb[FABRIQ_A_CONFIG_DET_WINDOW_MS]));
	if (tb[FABRIQ_A_CONFIG_DET_LIMIT])
		out_uint("limit", "limit %llu ", nla_get_u64(tb[FABRIQ_A_CONFIG_DET_LIMIT]));
	if (tb[FABRIQ_A_CONFIG_DET_RAISED])
		out_uint("raised", "# raised %llu ", nla_get_u64(tb[FABRIQ_A_CONFIG_DET_RAISED]));
	if (tb[FABRIQ_A_CONFIG_DET_CLEARED])
		out_uint("cleared", "cleared %llu", nla_get_u64(tb[FABRIQ_A_CONFIG_DET_CLEARED]));
	out_end_object();
}

static int config_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[FABRIQ_A_CONFIG_MAX + 1], *a;
	int rem;

	if (fq_nl_parse(msg, tb, FABRIQ_A_CONFIG_MAX, config_policy))
		return 0;
	out_begin_object(NULL);
	if (tb[FABRIQ_A_CONFIG_INTERVAL_MS])
		out_uint("interval_ms", "interval %llu ", nla_get_u32(tb[FABRIQ_A_CONFIG_INTERVAL_MS]));
	if (tb[FABRIQ_A_CONFIG_RING_SAMPLES])
		out_uint("samples", "samples %llu ", nla_get_u32(tb[FABRIQ_A_CONFIG_RING_SAMPLES]));
	if (tb[FABRIQ_A_CONFIG_EVENTS_PER_SEC])
		out_uint("events_per_sec", "events-per-sec %llu",
			 nla_get_u32(tb[FABRIQ_A_CONFIG_EVENTS_PER_SEC]));
	out_begin_array("detectors");
	fq_msg_for_each_attr(a, msg, rem)
		if (nla_type(a) == FABRIQ_A_CONFIG_DET)
			print_det(a);
	out_end_array();
	if (tb[FABRIQ_A_CONFIG_EVENTS_SUPPRESSED]) {
		out_text("\n# ");
		out_uint("events_suppressed", "events suppressed by the rate limit: %llu",
			 nla_get_u64(tb[FABRIQ_A_CONFIG_EVENTS_SUPPRESSED]));
	}
	out_end_record();
	return 0;
}

/* One "detector NAME ..." group into a nest; returns the words used, or -1. */
static int parse_detector(struct nl_msg *msg, int argc, char **argv)
{
	struct nlattr *nest;
	int det, used = 2;
	uint64_t v;

	det = argc > 1 ? fq_det_lookup(argv[1]) : -1;
	if (det < 0) {
		fprintf(stderr, "%s: stats: detector '%s' is not valid (valid: slow-peer, "
			"link-degraded, pfc-storm, ecn-anomaly, vl-congestion, error-rate, "
			"latency, bw-drop)\n", prog, argc > 1 ? argv[1] : "");
		return -1;
	}
	nest = nla_nest_start(msg, FABRIQ_A_CONFIG_DET);
	if (!nest || nla_put_u8(msg, FABRIQ_A_CONFIG_DET_ID, det))
		return -1;
	while (used < argc && !match(argv[used], "detector")) {
		const char *key = argv[used], *val = used + 1 < argc ? argv[used + 1] : NULL;
		int err;

		if (match(key, "enabled")) {
			if (!match(val, "on") && !match(val, "off")) {
				fprintf(stderr, "%s: stats: enabled '%s' is not valid (valid: on, off)\n",
					prog, val ? val : "");
				return -1;
			}
			err = nla_put_u8(msg, FABRIQ_A_CONFIG_DET_ENABLED, match(val, "on"));
		} else if (match(key, "threshold")) {
			if (fq_parse_range("stats", "threshold", val, 0, thr_min[det], thr_max[det], &v))
				return -1;
			err = nla_put_u64(msg, FABRIQ_A_CONFIG_DET_THRESHOLD, v);
		} else if (match(key, "window")) {
			if (fq_parse_range("stats", "window", val, 0, 0, 3600000, &v))
				return -1;
			err = nla_put_u32(msg, FABRIQ_A_CONFIG_DET_WINDOW_MS, v);
		} else if (match(key, "limit")) {
			if (fq_parse_range("stats", "limit", val, 0, 0, UINT64_MAX, &v))
				return -1;
			err = nla_put_u64(msg, FABRIQ_A_CONFIG_DET_LIMIT, v);
		} else {
			usage_error("stats", "config set: unknown detector setting '%s' "
				    "(valid: enabled, threshold, window, limit)", key);
			return -1;
		}
		if (err)
			return -1;
		used += 2;
	}
	nla_nest_end(msg, nest);
	return used;
}

static int config_set(int argc, char **argv)
{
	struct nl_msg *msg;
	uint64_t v;
	int err = 0, n;

	if (argc == 0)
		return usage_error("stats", "config set: nothing to set");
	if (fq_nl_open())
		return 1;
	msg = fq_nl_new(FABRIQ_CMD_CONFIG_SET, 0);
	if (!msg)
		return 1;
	while (argc > 0 && !err) {
		const char *val = argc > 1 ? argv[1] : NULL;

		if (match(argv[0], "detector")) {
			n = parse_detector(msg, argc, argv);
			if (n < 0)
				return 1;
			argc -= n, argv += n;
			continue;
		}
		if (match(argv[0], "interval")) {
			err = fq_parse_range("stats", "interval", val, 0, 0, 60000, &v) ||
			      nla_put_u32(msg, FABRIQ_A_CONFIG_INTERVAL_MS, v);
		} else if (match(argv[0], "samples")) {
			err = fq_parse_range("stats", "samples", val, 0, 2, 4096, &v) ||
			      nla_put_u32(msg, FABRIQ_A_CONFIG_RING_SAMPLES, v);
		} else if (match(argv[0], "events-per-sec")) {
			err = fq_parse_range("stats", "events-per-sec", val, 0, 1, 10000, &v) ||
			      nla_put_u32(msg, FABRIQ_A_CONFIG_EVENTS_PER_SEC, v);
		} else {
			return usage_error("stats", "config set: unknown setting '%s' (valid: "
					   "interval, samples, events-per-sec, detector)", argv[0]);
		}
		argc -= 2, argv += 2;
	}
	if (err)
		return 1;
	err = fq_nl_request(msg, NULL, NULL, "stats config set");
	fq_nl_close();
	return err ? 1 : 0;
}

static int config_show(void)
{
	struct nl_msg *msg;
	int err;

	if (fq_nl_open())
		return 1;
	msg = fq_nl_new(FABRIQ_CMD_CONFIG_GET, 0);
	if (!msg)
		return 1;
	err = fq_nl_request(msg, config_print, NULL, "stats config show");
	fq_nl_close();
	return err ? 1 : 0;
}

int do_stats(int argc, char **argv)
{
	if (argc == 0 || match(argv[0], "show"))
		return stats_show(argc ? argc - 1 : 0, argc ? argv + 1 : argv);
	if (match(argv[0], "config")) {
		if (argc == 1 || match(argv[1], "show"))
			return config_show();
		if (match(argv[1], "set"))
			return config_set(argc - 2, argv + 2);
		return usage_error("stats", "config: unknown command '%s' (valid: show, set)",
				   argv[1]);
	}
	if (match(argv[0], "help")) {
		stats_usage();
		return 0;
	}
	return usage_error("stats", "unknown command '%s' (valid: show, config, help)", argv[0]);
}
