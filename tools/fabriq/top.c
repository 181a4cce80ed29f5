// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - `fabriq top`: a refreshing view of the busiest ports and peers.
 *
 *   fabriq top [interval SEC] [count N]
 *
 * Ports are ranked by their packet rate (or fabriq's own byte rate where
 * the device counts no packets), peers by the bytes moved since the last
 * refresh.  The screen is cleared between refreshes only on a terminal.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabriq.h"
#include "stats.h"

#define TOP_ROWS	10

void top_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq top [interval SEC] [count N]\n"
		"       fabriq top help\n"
		"where  SEC := seconds between refreshes, 1-3600 (default 1)\n"
		"       N := refreshes before exiting, 1-1000000 (default: until interrupted)\n");
}

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	top_stop = 1;
}

static uint64_t port_load(const struct st_port *p)
{
	return p->rate[FABRIQ_CTR_TX_PKTS] + p->rate[FABRIQ_CTR_RX_PKTS] +
	       (p->rate[FABRIQ_CTR_OWN_TX_BYTES] + p->rate[FABRIQ_CTR_OWN_RX_BYTES]) / 1024;
}

static int cmp_ports(const void *a, const void *b)
{
	uint64_t x = port_load(a), y = port_load(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

struct top_peer {
	const struct st_comm *c;
	const struct st_peer *p;
	double tx_bps, rx_bps;
};

static int cmp_peers(const void *a, const void *b)
{
	const struct top_peer *x = a, *y = b;
	double lx = x->tx_bps + x->rx_bps, ly = y->tx_bps + y->rx_bps;

	return lx < ly ? 1 : lx > ly ? -1 : 0;
}

static const struct st_peer *old_peer(const struct st_snap *old, const struct st_comm *c,
				      uint32_t rank)
{
	const struct st_comm *oc = st_find_comm(old, c->id, c->rank);
	int i;

	for (i = 0; oc && i < oc->npeers; i++)
		if (oc->peers[i].rank == rank)
			return &oc->peers[i];
	return NULL;
}

static void show_ports(struct st_snap *s)
{
	int i;

	qsort(s->ports, s->nports, sizeof(*s->ports), cmp_ports);
	printf("%-16s %4s %10s %10s %10s %10s %10s %12s %8s\n", "DEV", "PORT", "TX_PKT/s",
	       "RX_PKT/s", "FQ_TX_KB/s", "FQ_RX_KB/s", "PAUSE/s", "XMITWAIT/s", "ERRORS");
	for (i = 0; i < s->nports && i < TOP_ROWS; i++) {
		const struct st_port *p = &s->ports[i];
		uint64_t errs = p->ctr[FABRIQ_CTR_SEQ_ERR] + p->ctr[FABRIQ_CTR_OUT_OF_SEQ] +
				p->ctr[FABRIQ_CTR_SYMBOL_ERRORS] + p->ctr[FABRIQ_CTR_OWN_ERRORS];
		char tx[24] = "-", rx[24] = "-", pause[24] = "-", xw[24] = "-";

		if (p->has[FABRIQ_CTR_TX_PKTS])
			snprintf(tx, sizeof(tx), "%llu", (unsigned long long)p->rate[FABRIQ_CTR_TX_PKTS]);
		if (p->has[FABRIQ_CTR_RX_PKTS])
			snprintf(rx, sizeof(rx), "%llu", (unsigned long long)p->rate[FABRIQ_CTR_RX_PKTS]);
		if (p->has[FABRIQ_CTR_TX_PAUSE])
			snprintf(pause, sizeof(pause), "%llu",
				 (unsigned long long)(p->rate[FABRIQ_CTR_TX_PAUSE] +
						      p->rate[FABRIQ_CTR_RX_PAUSE]));
		if (p->has[FABRIQ_CTR_XMIT_WAIT])
			snprintf(xw, sizeof(xw), "%llu",
				 (unsigned long long)p->rate[FABRIQ_CTR_XMIT_WAIT]);
		printf("%-16s %4u %10s %10s %10.1f %10.1f %10s %12s %8llu\n", p->dev, p->port, tx, rx,
		       p->rate[FABRIQ_CTR_OWN_TX_BYTES] / 1024.0,
		       p->rate[FABRIQ_CTR_OWN_RX_BYTES] / 1024.0, pause, xw,
		       (unsigned long long)errs);
	}
}

static void show_peers(const struct st_snap *s, const struct st_snap *old, double dt)
{
	struct top_peer *t = NULL;
	int i, j, n = 0;

	for (i = 0; i < s->ncomms; i++)
		n += s->comms[i].npeers;
	t = calloc(n ? n : 1, sizeof(*t));
	if (!t)
		return;
	for (n = 0, i = 0; i < s->ncomms; i++)
		for (j = 0; j < s->comms[i].npeers; j++) {
			const struct st_peer *p = &s->comms[i].peers[j];
			const struct st_peer *o = old_peer(old, &s->comms[i], p->rank);

			t[n].c = &s->comms[i];
			t[n].p = p;
			if (o && dt > 0) {
				t[n].tx_bps = (p->tx_bytes - o->tx_bytes) / dt;
				t[n].rx_bps = (p->rx_bytes - o->rx_bytes) / dt;
			}
			n++;
		}
	qsort(t, n, sizeof(*t), cmp_peers);
	printf("\n%-18s %5s %5s %-16s %10s %10s %10s %12s %4s\n", "COMM", "RANK", "PEER",
	       "ADDRESS", "TX_KB/s", "RX_KB/s", "CQE_us", "WAIT_LAST_ms", "SLOW");
	for (i = 0; i < n && i < TOP_ROWS; i++)
		printf("0x%-16llx %5u %5u %-16s %10.1f %10.1f %10.1f %12.3f %4s\n",
		       (unsigned long long)t[i].c->id, t[i].c->rank, t[i].p->rank, t[i].p->addr,
		       t[i].tx_bps / 1024, t[i].rx_bps / 1024, t[i].p->cqe_avg_ns / 1e3,
		       t[i].p->wait_last_ns / 1e6, t[i].p->slow ? "yes" : "no");
	free(t);
}

int do_top(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct st_snap cur, old = {};
	struct st_filter f = {};
	long interval = 1, count = -1;
	uint64_t v;
	bool tty = isatty(STDOUT_FILENO);

	while (argc > 0) {
		if (match(argv[0], "help")) {
			top_usage();
			return 0;
		} else if (match(argv[0], "interval")) {
			if (fq_parse_range("top", "interval", argc > 1 ? argv[1] : NULL, 10, 1, 3600,
					   &v))
				return 1;
			interval = v;
		} else if (match(argv[0], "count")) {
			if (fq_parse_range("top", "count", argc > 1 ? argv[1] : NULL, 10, 1, 1000000,
					   &v))
				return 1;
			count = v;
		} else {
			return usage_error("top", "unknown argument '%s' (valid: interval, count, help)",
					   argv[0]);
		}
		argc -= 2, argv += 2;
	}
	if (out_is_json())
		return usage_error("top", "no JSON output; use 'fabriq -j stats show'");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (fq_nl_open())
		return 1;
	while (!top_stop && count != 0) {
		if (st_collect(&f, &cur)) {
			fq_nl_close();
			st_free(&old);
			return 1;
		}
		if (tty)
			printf("\033[H\033[2J");
		printf("fabriq top: %d ports, %d communicators (every %lds)\n\n", cur.nports,
		       cur.ncomms, interval);
		show_ports(&cur);
		show_peers(&cur, &old, old.nports || old.ncomms ? interval : 0);
		printf("\n");
		fflush(stdout);
		st_free(&old);
		old = cur;
		if (count > 0 && --count == 0)
			break;
		sleep(interval);
	}
	st_free(&old);
	fq_nl_close();
	return 0;
}
