/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - one STATS_GET dump as the CLI holds it: ports and
 * communicators, with every counter marked present or absent; and the
 * detectors' counts from CONFIG_GET.  Read by
 * `stats show` (stats.c), `stats show --prometheus` (stats_prom.c) and
 * `top` (top.c); filled by stats_model.c.
 */
#ifndef FABRIQ_CLI_STATS_H
#define FABRIQ_CLI_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/fabriq.h>

#define ST_NUM_PRIO	8

struct st_port {
	char dev[FABRIQ_DEV_NAME_MAX];
	uint32_t dev_index;
	uint32_t port;
	uint8_t link_layer;
	uint64_t time_ns;
	uint32_t interval_ms;
	uint32_t samples;
	uint64_t sample_ns;
	bool has[__FABRIQ_CTR_MAX];
	uint64_t ctr[__FABRIQ_CTR_MAX];
	bool has_rates;
	uint64_t rate[__FABRIQ_CTR_MAX];
	bool has_prio;
	uint64_t pause[ST_NUM_PRIO][FABRIQ_PAUSE_NUM];
	uint64_t pause_rate[ST_NUM_PRIO][FABRIQ_PAUSE_NUM];
	uint32_t vl_mask;
	uint64_t vl_wait[FABRIQ_NUM_VL];
	uint64_t vl_rate[FABRIQ_NUM_VL];
};

struct st_coll {
	uint8_t type;
	uint64_t count, sum_ns, min_ns, max_ns, p50_ns, p99_ns, p999_ns;
	uint64_t buckets[FABRIQ_HIST_BUCKETS];	/* bucket b: [2^b, 2^(b+1)) ns */
};

struct st_peer {
	uint32_t rank;
	char addr[64];
	uint64_t tx_bytes, rx_bytes, tx_wrs, rx_wrs, errors;
	uint32_t outstanding;
	uint64_t cqe_avg_ns, cqe_max_ns;
	uint64_t steps, wait_ns, wait_max_ns, wait_last_ns;
	bool slow;
};

struct st_comm {
	uint64_t id;
	uint32_t rank, nranks;
	int ncoll;
	struct st_coll coll[__FABRIQ_COLL_MAX];
	int npeers;
	struct st_peer *peers;
};

/* a detector's state (CONFIG_GET) */
struct st_det {
	uint8_t id;
	bool enabled;
	uint64_t raised, cleared;
};

struct st_snap {
	int nports;
	struct st_port *ports;
	int ncomms;
	struct st_comm *comms;
	int ndets;
	struct st_det dets[__FABRIQ_DET_MAX];
	bool has_suppressed;
	uint64_t events_suppressed;
};

/* stats_model.c: filters: dev (NULL: all), port (0: all), comm (0: all) */
struct st_filter {
	const char *dev;
	uint32_t port;
	uint64_t comm;
};
int st_collect(const struct st_filter *f, struct st_snap *snap);
void st_free(struct st_snap *snap);
const struct st_port *st_find_port(const struct st_snap *s, const char *dev, uint32_t port);
const struct st_comm *st_find_comm(const struct st_snap *s, uint64_t id, uint32_t rank);

/* stats_prom.c */
void st_print_prometheus(const struct st_snap *s);

#endif
