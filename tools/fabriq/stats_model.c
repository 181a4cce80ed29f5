// SPDX-License-Identifier: GPL-2.0
/*
 * stats_model.c - run one STATS_GET dump and keep it as struct st_snap,
 * with the detectors' counts of a CONFIG_GET.
 *
 * A communicator whose peers did not fit in one message comes in several;
 * they are merged by (id, rank).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"
#include "stats.h"

static struct nla_policy stats_policy[FABRIQ_A_STATS_MAX + 1] = {
	[FABRIQ_A_STATS_DEV_INDEX] = { .type = NLA_U32 },
	[FABRIQ_A_STATS_DEV_NAME] = { .type = NLA_STRING },
	[FABRIQ_A_STATS_PORT] = { .type = NLA_U32 },
	[FABRIQ_A_STATS_LINK_LAYER] = { .type = NLA_U8 },
	[FABRIQ_A_STATS_TIME_NS] = { .type = NLA_U64 },
	[FABRIQ_A_STATS_INTERVAL_MS] = { .type = NLA_U32 },
	[FABRIQ_A_STATS_SAMPLES] = { .type = NLA_U32 },
	[FABRIQ_A_STATS_SAMPLE_NS] = { .type = NLA_U64 },
	[FABRIQ_A_STATS_COUNTERS] = { .type = NLA_NESTED },
	[FABRIQ_A_STATS_RATES] = { .type = NLA_NESTED },
	[FABRIQ_A_STATS_COMM_ID] = { .type = NLA_U64 },
	[FABRIQ_A_STATS_COMM_RANK] = { .type = NLA_U32 },
	[FABRIQ_A_STATS_COMM_NRANKS] = { .type = NLA_U32 },
};

static void *grow(void *arr, int n, size_t size)
{
	void *p = realloc(arr, (size_t)(n + 1) * size);

	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	memset((char *)p + (size_t)n * size, 0, size);
	return p;
}

/* A nest of u64 attributes whose types index @vals; @has marks them. */
static void get_u64s(const struct nlattr *nest, uint64_t *vals, bool *has, int max)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		int t = nla_type(a);

		if (t <= 0 || t > max || nla_len(a) != 8)
			continue;
		vals[t] = nla_get_u64(a);
		if (has)
			has[t] = true;
	}
}

static void get_prio(struct st_port *p, const struct nlattr *nest)
{
	uint64_t v[FABRIQ_PAUSE_NUM + 1] = {}, r[FABRIQ_PAUSE_NUM + 1] = {};
	struct nlattr *a;
	int rem, prio = -1, c;
	bool rates = false;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == FABRIQ_A_STATS_PRIO_PRIO)
			prio = nla_get_u8(a);
		else if (nla_type(a) == FABRIQ_A_STATS_PRIO_COUNTERS)
			get_u64s(a, v, NULL, FABRIQ_PAUSE_NUM);
		else if (nla_type(a) == FABRIQ_A_STATS_PRIO_RATES)
			get_u64s(a, r, NULL, FABRIQ_PAUSE_NUM), rates = true;
	}
	if (prio < 0 || prio >= ST_NUM_PRIO)
		return;
	p->has_prio = true;
	for (c = 0; c < FABRIQ_PAUSE_NUM; c++) {
		p->pause[prio][c] = v[c + 1];
		p->pause_rate[prio][c] = rates ? r[c + 1] : 0;
	}
}

static void get_vl(struct st_port *p, const struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_STATS_VL_MAX + 1];
	int vl;

	fq_nest_tb(nest, tb, FABRIQ_A_STATS_VL_MAX);
	if (!tb[FABRIQ_A_STATS_VL_VL])
		return;
	vl = nla_get_u8(tb[FABRIQ_A_STATS_VL_VL]);
	if (vl >= FABRIQ_NUM_VL)
		return;
	p->vl_mask |= 1u << vl;
	if (tb[FABRIQ_A_STATS_VL_XMIT_WAIT])
		p->vl_wait[vl] = nla_get_u64(tb[FABRIQ_A_STATS_VL_XMIT_WAIT]);
	if (tb[FABRIQ_A_STATS_VL_XMIT_WAIT_RATE])
		p->vl_rate[vl] = nla_get_u64(tb[FABRIQ_A_STATS_VL_XMIT_WAIT_RATE]);
}

static void add_port(struct st_snap *s, struct nlattr **tb, struct nl_msg *msg)
{
	struct st_port *p;
	struct nlattr *a;
	int rem;

	s->ports = grow(s->ports, s->nports, sizeof(*s->ports));
	p = &s->ports[s->nports++];
	if (tb[FABRIQ_A_STATS_DEV_NAME])
		snprintf(p->dev, sizeof(p->dev), "%s", nla_get_string(tb[FABRIQ_A_STATS_DEV_NAME]));
	p->dev_index = tb[FABRIQ_A_STATS_DEV_INDEX] ? nla_get_u32(tb[FABRIQ_A_STATS_DEV_INDEX]) : 0;
	p->port = nla_get_u32(tb[FABRIQ_A_STATS_PORT]);
	p->link_layer = tb[FABRIQ_A_STATS_LINK_LAYER] ? nla_get_u8(tb[FABRIQ_A_STATS_LINK_LAYER]) : 0;
	p->time_ns = tb[FABRIQ_A_STATS_TIME_NS] ? nla_get_u64(tb[FABRIQ_A_STATS_TIME_NS]) : 0;
	p->interval_ms = tb[FABRIQ_A_STATS_INTERVAL_MS] ?
			 nla_get_u32(tb[FABRIQ_A_STATS_INTERVAL_MS]) : 0;
	p->samples = tb[FABRIQ_A_STATS_SAMPLES] ? nla_get_u32(tb[FABRIQ_A_STATS_SAMPLES]) : 0;
	p->sample_ns = tb[FABRIQ_A_STATS_SAMPLE_NS] ? nla_get_u64(tb[FABRIQ_A_STATS_SAMPLE_NS]) : 0;
	if (tb[FABRIQ_A_STATS_COUNTERS])
		get_u64s(tb[FABRIQ_A_STATS_COUNTERS], p->ctr, p->has, FABRIQ_CTR_MAX);
	if (tb[FABRIQ_A_STATS_RATES]) {
		get_u64s(tb[FABRIQ_A_STATS_RATES], p->rate, NULL, FABRIQ_CTR_MAX);
		p->has_rates = true;
	}
	fq_msg_for_each_attr(a, msg, rem) {
		if (nla_type(a) == FABRIQ_A_STATS_PRIO)
			get_prio(p, a);
		else if (nla_type(a) == FABRIQ_A_STATS_VL)
			get_vl(p, a);
	}
}

static void get_coll(struct st_comm *c, const struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_STATS_COLL_MAX + 1];
	struct st_coll *k;
	int first = 0, n, i;

	fq_nest_tb(nest, tb, FABRIQ_A_STATS_COLL_MAX);
	if (!tb[FABRIQ_A_STATS_COLL_TYPE] || c->ncoll >= __FABRIQ_COLL_MAX)
		return;
	k = &c->coll[c->ncoll++];
	memset(k, 0, sizeof(*k));
	k->type = nla_get_u8(tb[FABRIQ_A_STATS_COLL_TYPE]);
#define U64(t) (tb[t] ? nla_get_u64(tb[t]) : 0)
	k->count = U64(FABRIQ_A_STATS_COLL_COUNT);
	k->sum_ns = U64(FABRIQ_A_STATS_COLL_SUM_NS);
	k->min_ns = U64(FABRIQ_A_STATS_COLL_MIN_NS);
	k->max_ns = U64(FABRIQ_A_STATS_COLL_MAX_NS);
	k->p50_ns = U64(FABRIQ_A_STATS_COLL_P50_NS);
	k->p99_ns = U64(FABRIQ_A_STATS_COLL_P99_NS);
	k->p999_ns = U64(FABRIQ_A_STATS_COLL_P999_NS);
	if (tb[FABRIQ_A_STATS_COLL_BUCKET_FIRST])
		first = nla_get_u8(tb[FABRIQ_A_STATS_COLL_BUCKET_FIRST]);
	if (tb[FABRIQ_A_STATS_COLL_BUCKETS]) {
		n = nla_len(tb[FABRIQ_A_STATS_COLL_BUCKETS]) / 8;
		for (i = 0; i < n && first + i < FABRIQ_HIST_BUCKETS; i++)
			memcpy(&k->buckets[first + i],
			       (char *)nla_data(tb[FABRIQ_A_STATS_COLL_BUCKETS]) + 8 * i, 8);
	}
}

static void get_peer(struct st_comm *c, const struct nlattr *nest)
{
	struct nlattr *tb[FABRIQ_A_STATS_PEER_MAX + 1], *a;
	struct st_peer *p;

	fq_nest_tb(nest, tb, FABRIQ_A_STATS_PEER_MAX);
	if (!tb[FABRIQ_A_STATS_PEER_RANK])
		return;
	c->peers = grow(c->peers, c->npeers, sizeof(*c->peers));
	p = &c->peers[c->npeers++];
	p->rank = nla_get_u32(tb[FABRIQ_A_STATS_PEER_RANK]);
	a = tb[FABRIQ_A_STATS_PEER_ADDR];
	if (a)
		fq_nla_addr(a, p->addr, sizeof(p->addr));
	p->tx_bytes = U64(FABRIQ_A_STATS_PEER_TX_BYTES);
	p->rx_bytes = U64(FABRIQ_A_STATS_PEER_RX_BYTES);
	p->tx_wrs = U64(FABRIQ_A_STATS_PEER_TX_WRS);
	p->rx_wrs = U64(FABRIQ_A_STATS_PEER_RX_WRS);
	p->errors = U64(FABRIQ_A_STATS_PEER_ERRORS);
	p->outstanding = tb[FABRIQ_A_STATS_PEER_OUTSTANDING] ?
			 nla_get_u32(tb[FABRIQ_A_STATS_PEER_OUTSTANDING]) : 0;
	p->cqe_avg_ns = U64(FABRIQ_A_STATS_PEER_CQE_AVG_NS);
	p->cqe_max_ns = U64(FABRIQ_A_STATS_PEER_CQE_MAX_NS);
	p->steps = U64(FABRIQ_A_STATS_PEER_STEPS);
	p->wait_ns = U64(FABRIQ_A_STATS_PEER_WAIT_NS);
	p->wait_max_ns = U64(FABRIQ_A_STATS_PEER_WAIT_MAX_NS);
	p->wait_last_ns = U64(FABRIQ_A_STATS_PEER_WAIT_LAST_NS);
#undef U64
	p->slow = tb[FABRIQ_A_STATS_PEER_SLOW] != NULL;
}

const struct st_comm *st_find_comm(const struct st_snap *s, uint64_t id, uint32_t rank)
{
	int i;

	for (i = 0; i < s->ncomms; i++)
		if (s->comms[i].id == id && s->comms[i].rank == rank)
			return &s->comms[i];
	return NULL;
}

const struct st_port *st_find_port(const struct st_snap *s, const char *dev, uint32_t port)
{
	int i;

	for (i = 0; i < s->nports; i++)
		if (!strcmp(s->ports[i].dev, dev) && s->ports[i].port == port)
			return &s->ports[i];
	return NULL;
}

static void add_comm(struct st_snap *s, struct nlattr **tb, struct nl_msg *msg)
{
	uint64_t id = nla_get_u64(tb[FABRIQ_A_STATS_COMM_ID]);
	uint32_t rank = tb[FABRIQ_A_STATS_COMM_RANK] ? nla_get_u32(tb[FABRIQ_A_STATS_COMM_RANK]) : 0;
	struct st_comm *c = (struct st_comm *)st_find_comm(s, id, rank);
	struct nlattr *a;
	int rem;

	if (!c) {
		s->comms = grow(s->comms, s->ncomms, sizeof(*s->comms));
		c = &s->comms[s->ncomms++];
		c->id = id;
		c->rank = rank;
	}
	if (tb[FABRIQ_A_STATS_COMM_NRANKS])
		c->nranks = nla_get_u32(tb[FABRIQ_A_STATS_COMM_NRANKS]);
	fq_msg_for_each_attr(a, msg, rem) {
		if (nla_type(a) == FABRIQ_A_STATS_COLL)
			get_coll(c, a);
		else if (nla_type(a) == FABRIQ_A_STATS_PEER)
			get_peer(c, a);
	}
}

static int on_stats(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[FABRIQ_A_STATS_MAX + 1];
	struct st_snap *s = arg;

	if (fq_nl_parse(msg, tb, FABRIQ_A_STATS_MAX, stats_policy))
		return 0;
	if (tb[FABRIQ_A_STATS_PORT])
		add_port(s, tb, msg);
	else if (tb[FABRIQ_A_STATS_COMM_ID])
		add_comm(s, tb, msg);
	return 0;
}

/* Return: 0, or 1 after printing why not. */
/* CONFIG_GET's reply: each detector's counts, the events suppressed */
static int on_config(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[FABRIQ_A_CONFIG_DET_MAX + 1], *a;
	struct st_snap *s = arg;
	struct st_det *d;
	int rem;

	fq_msg_for_each_attr(a, msg, rem) {
		if (nla_type(a) == FABRIQ_A_CONFIG_EVENTS_SUPPRESSED && nla_len(a) == 8) {
			s->has_suppressed = true;
			s->events_suppressed = nla_get_u64(a);
		}
		if (nla_type(a) != FABRIQ_A_CONFIG_DET || s->ndets >= __FABRIQ_DET_MAX)
			continue;
		fq_nest_tb(a, tb, FABRIQ_A_CONFIG_DET_MAX);
		if (!tb[FABRIQ_A_CONFIG_DET_ID] || !tb[FABRIQ_A_CONFIG_DET_RAISED] ||
		    !tb[FABRIQ_A_CONFIG_DET_CLEARED])
			continue;
		d = &s->dets[s->ndets++];
		d->id = nla_get_u8(tb[FABRIQ_A_CONFIG_DET_ID]);
		d->enabled = tb[FABRIQ_A_CONFIG_DET_ENABLED] &&
			     nla_get_u8(tb[FABRIQ_A_CONFIG_DET_ENABLED]);
		d->raised = nla_get_u64(tb[FABRIQ_A_CONFIG_DET_RAISED]);
		d->cleared = nla_get_u64(tb[FABRIQ_A_CONFIG_DET_CLEARED]);
	}
	return 0;
}

int st_collect(const struct st_filter *f, struct st_snap *snap)
{
	struct nl_msg *msg;
	int err;

	memset(snap, 0, sizeof(*snap));
	msg = fq_nl_new(FABRIQ_CMD_STATS_GET, NLM_F_DUMP);
	if (!msg || (f->dev && nla_put_string(msg, FABRIQ_A_STATS_DEV_NAME, f->dev)) ||
	    (f->port && nla_put_u32(msg, FABRIQ_A_STATS_PORT, f->port)) ||
	    (f->comm && nla_put_u64(msg, FABRIQ_A_STATS_COMM_ID, f->comm))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	err = fq_nl_request(msg, on_stats, snap, "stats show");
	if (err)
		return 1;
	msg = fq_nl_new(FABRIQ_CMD_CONFIG_GET, 0);
	if (!msg) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	return fq_nl_request(msg, on_config, snap, "stats show") ? 1 : 0;
}

void st_free(struct st_snap *snap)
{
	int i;

	for (i = 0; i < snap->ncomms; i++)
		free(snap->comms[i].peers);
	free(snap->comms);
	free(snap->ports);
	memset(snap, 0, sizeof(*snap));
}
