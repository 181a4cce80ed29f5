// SPDX-License-Identifier: GPL-2.0
/*
 * stats_prom.c - `fabriq stats show --prometheus`: the Prometheus text
 * exposition format (version 0.0.4), as the node_exporter textfile
 * collector reads it.
 *
 * Every metric starts with "fabriq_"; each family has one HELP and one
 * TYPE line and its samples together; counters end in "_total"; labels
 * are device, port, priority, vl for ports, comm, rank, peer for
 * communicators and detector for the detectors.  Absent counters produce
 * no sample.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fabriq.h"
#include "stats.h"
#include "../lib/libfabriq.h"

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newline escaped. */
static void label_value(const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			printf("\\n");
		else
			putchar(*v);
	}
}

static void port_labels(const struct st_port *p)
{
	printf("{device=\"");
	label_value(p->dev);
	printf("\",port=\"%u\"", p->port);
}

static void port_counters(const struct st_snap *s)
{
	char name[96], help[160];
	int c, i;

	for (c = 1; c < __FABRIQ_CTR_MAX; c++) {
		bool any = false;

		for (i = 0; i < s->nports; i++)
			any |= s->ports[i].has[c];
		if (!any)
			continue;
		snprintf(name, sizeof(name), "fabriq_port_%s_total", fq_ctr_name(c));
		snprintf(help, sizeof(help), "Port counter %s (fabriq catalogue).", fq_ctr_name(c));
		family(name, "counter", help);
		for (i = 0; i < s->nports; i++) {
			if (!s->ports[i].has[c])
				continue;
			printf("%s", name);
			port_labels(&s->ports[i]);
			printf("} %" PRIu64 "\n", s->ports[i].ctr[c]);
		}
	}
}

static void port_prio_vl(const struct st_snap *s)
{
	char name[96], help[160];
	int c, i, prio, vl;
	bool any = false;

	for (i = 0; i < s->nports; i++)
		any |= s->ports[i].has_prio;
	for (c = 0; any && c < FABRIQ_PAUSE_NUM; c++) {
		snprintf(name, sizeof(name), "fabriq_port_prio_%s_total", fq_pause_name(c));
		snprintf(help, sizeof(help), "Per-priority %s%s.", fq_pause_name(c),
			 c >= FABRIQ_PAUSE_RX_DURATION ? " in microseconds" : " frames");
		family(name, "counter", help);
		for (i = 0; i < s->nports; i++)
			for (prio = 0; s->ports[i].has_prio && prio < ST_NUM_PRIO; prio++) {
				printf("%s", name);
				port_labels(&s->ports[i]);
				printf(",priority=\"%d\"} %" PRIu64 "\n", prio, s->ports[i].pause[prio][c]);
			}
	}
	any = false;
	for (i = 0; i < s->nports; i++)
		any |= s->ports[i].vl_mask != 0;
	if (!any)
		return;
	family("fabriq_port_vl_xmit_wait_total", "counter", "PortVLXmitWait ticks per VL.");
	for (i = 0; i < s->nports; i++)
		for (vl = 0; vl < FABRIQ_NUM_VL; vl++) {
			if (!(s->ports[i].vl_mask & (1u << vl)))
				continue;
			printf("fabriq_port_vl_xmit_wait_total");
			port_labels(&s->ports[i]);
			printf(",vl=\"%d\"} %" PRIu64 "\n", vl, s->ports[i].vl_wait[vl]);
		}
}

/* One per-port gauge family; @get picks the value, printed with @digits decimals. */
static void port_gauge(const struct st_snap *s, const char *name, const char *help,
		       int digits, double (*get)(const struct st_port *p))
{
	int i;

	family(name, "gauge", help);
	for (i = 0; i < s->nports; i++) {
		printf("%s", name);
		port_labels(&s->ports[i]);
		printf("} %.*f\n", digits, get(&s->ports[i]));
	}
}

static double p_sample(const struct st_port *p) { return p->sample_ns / 1e9; }
static double p_interval(const struct st_port *p) { return p->interval_ms / 1e3; }

static void port_sampler(const struct st_snap *s)
{
	if (!s->nports)
		return;
	port_gauge(s, "fabriq_port_sample_duration_seconds",
		   "Mean time one sample of the port took.", 9, p_sample);
	port_gauge(s, "fabriq_port_sample_interval_seconds",
		   "The sampler's interval (0: sampling is off).", 3, p_interval);
}

static void comm_labels(const struct st_comm *c)
{
	printf("{comm=\"0x%" PRIx64 "\",rank=\"%u\"", c->id, c->rank);
}

static void comm_histograms(const struct st_snap *s)
{
	const char *n = "fabriq_comm_op_duration_seconds";
	int i, k, b, top;

	for (i = 0; i < s->ncomms; i++)
		if (s->comms[i].ncoll)
			break;
	if (i == s->ncomms)
		return;
	family(n, "histogram", "Collective operation time, submission to completion.");
	for (i = 0; i < s->ncomms; i++) {
		const struct st_comm *c = &s->comms[i];

		for (k = 0; k < c->ncoll; k++) {
			const struct st_coll *h = &c->coll[k];
			const char *coll = fabriq_coll_name(h->type) ?: "unknown";
			uint64_t cum = 0;

			for (top = FABRIQ_HIST_BUCKETS - 1; top > 0 && !h->buckets[top]; top--)
				;
			for (b = 0; b <= top && b < FABRIQ_HIST_BUCKETS - 1; b++) {
				cum += h->buckets[b];
				printf("%s_bucket", n);
				comm_labels(c);
				printf(",collective=\"%s\",le=\"%.9g\"} %" PRIu64 "\n", coll,
				       (double)(2ULL << b) / 1e9, cum);
			}
			printf("%s_bucket", n);
			comm_labels(c);
			printf(",collective=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", coll, h->count);
			printf("%s_sum", n);
			comm_labels(c);
			printf(",collective=\"%s\"} %.9f\n", coll, h->sum_ns / 1e9);
			printf("%s_count", n);
			comm_labels(c);
			printf(",collective=\"%s\"} %" PRIu64 "\n", coll, h->count);
		}
	}
}

/* One per-peer family; @get picks the value out of a peer. */
static void peer_family(const struct st_snap *s, const char *name, const char *type,
			const char *help, double (*get)(const struct st_peer *p))
{
	int i, j;
	bool any = false;

	for (i = 0; i < s->ncomms; i++)
		any |= s->comms[i].npeers > 0;
	if (!any)
		return;
	family(name, type, help);
	for (i = 0; i < s->ncomms; i++)
		for (j = 0; j < s->comms[i].npeers; j++) {
			const struct st_peer *p = &s->comms[i].peers[j];

			printf("%s", name);
			comm_labels(&s->comms[i]);
			printf(",peer=\"%u\",address=\"", p->rank);
			label_value(p->addr);
			printf("\"} %.17g\n", get(p));
		}
}

static double p_tx_bytes(const struct st_peer *p) { return p->tx_bytes; }
static double p_rx_bytes(const struct st_peer *p) { return p->rx_bytes; }
static double p_tx_wrs(const struct st_peer *p) { return p->tx_wrs; }
static double p_rx_wrs(const struct st_peer *p) { return p->rx_wrs; }
static double p_errors(const struct st_peer *p) { return p->errors; }
static double p_outstanding(const struct st_peer *p) { return p->outstanding; }
static double p_cqe_avg(const struct st_peer *p) { return p->cqe_avg_ns / 1e9; }
static double p_wait(const struct st_peer *p) { return p->wait_ns / 1e9; }
static double p_wait_last(const struct st_peer *p) { return p->wait_last_ns / 1e9; }
static double p_slow(const struct st_peer *p) { return p->slow; }

/* the detectors: what each raised and cleared since the load, whether it is on */
static void detectors(const struct st_snap *s)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{ "fabriq_detector_raised_total", "counter",
		  "Conditions the detector raised since fabriq was loaded (also those whose event the rate limit dropped)." },
		{ "fabriq_detector_cleared_total", "counter",
		  "Conditions the detector cleared since fabriq was loaded." },
		{ "fabriq_detector_enabled", "gauge", "1 while the detector is on." },
	};
	unsigned int f;
	int i;

	for (f = 0; s->ndets && f < sizeof(fam) / sizeof(fam[0]); f++) {
		family(fam[f].name, fam[f].type, fam[f].help);
		for (i = 0; i < s->ndets; i++) {
			const struct st_det *d = &s->dets[i];

			printf("%s{detector=\"%s\"} %" PRIu64 "\n", fam[f].name, fq_det_name(d->id),
			       f == 0 ? d->raised : f == 1 ? d->cleared : (uint64_t)d->enabled);
		}
	}
	if (s->has_suppressed) {
		family("fabriq_events_suppressed_total", "counter",
		       "Detector events the rate limit kept off netlink.");
		printf("fabriq_events_suppressed_total %" PRIu64 "\n", s->events_suppressed);
	}
}

void st_print_prometheus(const struct st_snap *s)
{
	port_counters(s);
	port_prio_vl(s);
	port_sampler(s);
	comm_histograms(s);
	peer_family(s, "fabriq_peer_tx_bytes_total", "counter", "Payload bytes sent to the peer.",
		    p_tx_bytes);
	peer_family(s, "fabriq_peer_rx_bytes_total", "counter",
		    "Payload bytes received from the peer.", p_rx_bytes);
	peer_family(s, "fabriq_peer_tx_wrs_total", "counter", "Sends to the peer completed.",
		    p_tx_wrs);
	peer_family(s, "fabriq_peer_rx_wrs_total", "counter", "Messages from the peer received.",
		    p_rx_wrs);
	peer_family(s, "fabriq_peer_errors_total", "counter", "Work completions in error.",
		    p_errors);
	peer_family(s, "fabriq_peer_outstanding", "gauge", "Sends to the peer in flight.",
		    p_outstanding);
	peer_family(s, "fabriq_peer_cqe_latency_seconds", "gauge",
		    "Mean send post to completion time.", p_cqe_avg);
	peer_family(s, "fabriq_peer_step_wait_seconds_total", "counter",
		    "Time steps waited for the peer's data.", p_wait);
	peer_family(s, "fabriq_peer_step_wait_last_seconds", "gauge",
		    "Step wait for the peer in the last operation.", p_wait_last);
	peer_family(s, "fabriq_peer_slow", "gauge", "1 while the slow-peer detector is raised.",
		    p_slow);
	detectors(s);
}
