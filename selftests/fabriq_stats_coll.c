// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_stats_coll.c - a communicator's own telemetry against what it
 * did, read over STATS_GET while the communicator is still alive:
 *
 *   - 4 local ranks run K ring allreduces of S bytes and one barrier: each
 *     rank's histogram counts exactly K allreduces and 1 barrier, its
 *     buckets add up to the count and p50 <= p99 <= p99.9; the bytes it
 *     sent to each peer are exactly what the ring sends (2(n-1)/n * S per
 *     call, all to the right neighbour), and it received the same from
 *     the left one;
 *   - rank 3 turns on its debugfs fault knob (fault_delay_us): after a few
 *     barriers the ranks that wait for it mark peer 3 slow and the debugfs
 *     event log has slow-peer events naming peer 3; once the knob is off
 *     again, cleared events follow (waited for with a bound, not counted
 *     after a fixed number of barriers).
 *
 * Needs fq_ranks_up 4 (198.19.0.1-4).  KTAP on stdout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fq_nl.h"
#include "../tools/lib/libfabriq.h"

#define NR		4
#define ID		0x57a7ULL
#define K		10
#define S		(64 * 1024)
#define DELAY_US	100000
#define CLEAR_BARRIERS	8	/* a round of barriers after the delay is off */
#define CLEAR_ROUNDS	25	/* at most this many rounds for the events to clear */
#define DBG		"/sys/kernel/debug/fabriq"

struct rank_result {
	int err;			/* setup or collective error */
	int stats_found;
	uint64_t allreduce, barrier;	/* histogram counts */
	uint64_t bucket_sum;
	int pct_ordered;
	uint64_t tx[NR], rx[NR];	/* per-peer payload bytes */
	uint64_t steps[NR];
	int slow[NR];			/* SLOW flag after the slow phase */
	int clear_barriers;		/* barriers after the delay until cleared (0: never) */
};

static struct rank_result *res;

/* Walk one STATS_GET message of this rank's communicator into @rr. */
static void parse_coll(struct nlattr *n, struct rank_result *rr)
{
	int len = n->nla_len - NLA_HDRLEN;
	void *p = (char *)n + NLA_HDRLEN;
	uint8_t *type = attr_find(p, len, FABRIQ_A_STATS_COLL_TYPE);
	uint64_t *count = attr_find(p, len, FABRIQ_A_STATS_COLL_COUNT);
	uint64_t *p50 = attr_find(p, len, FABRIQ_A_STATS_COLL_P50_NS);
	uint64_t *p99 = attr_find(p, len, FABRIQ_A_STATS_COLL_P99_NS);
	uint64_t *p999 = attr_find(p, len, FABRIQ_A_STATS_COLL_P999_NS);
	uint64_t *b = attr_find(p, len, FABRIQ_A_STATS_COLL_BUCKETS);
	struct nlattr *ba;
	uint64_t sum = 0, v;
	int i;

	if (!type || !count || !b)
		return;
	ba = (struct nlattr *)((char *)b - NLA_HDRLEN);
	for (i = 0; i < (ba->nla_len - NLA_HDRLEN) / 8; i++) {
		memcpy(&v, (char *)b + 8 * i, 8);
		sum += v;
	}
	if (*type == FABRIQ_COLL_ALLREDUCE) {
		rr->allreduce = *count;
		rr->bucket_sum = sum;
		rr->pct_ordered = p50 && p99 && p999 && *p50 <= *p99 && *p99 <= *p999;
	} else if (*type == FABRIQ_COLL_BARRIER) {
		rr->barrier = *count;
	}
}

static void parse_peer(struct nlattr *n, struct rank_result *rr)
{
	int len = n->nla_len - NLA_HDRLEN;
	void *p = (char *)n + NLA_HDRLEN;
	uint32_t *rank = attr_find(p, len, FABRIQ_A_STATS_PEER_RANK);
	uint64_t *tx = attr_find(p, len, FABRIQ_A_STATS_PEER_TX_BYTES);
	uint64_t *rx = attr_find(p, len, FABRIQ_A_STATS_PEER_RX_BYTES);
	uint64_t *steps = attr_find(p, len, FABRIQ_A_STATS_PEER_STEPS);

	if (!rank || *rank >= NR || !tx || !rx)
		return;
	rr->tx[*rank] = *tx;
	rr->rx[*rank] = *rx;
	rr->steps[*rank] = steps ? *steps : 0;
	rr->slow[*rank] = attr_find(p, len, FABRIQ_A_STATS_PEER_SLOW) != NULL;
}

static uint32_t my_rank;

static void on_stats(struct nlmsghdr *h, struct nl_reply *rep)
{
	struct rank_result *rr = &res[my_rank];
	uint64_t *id;
	uint32_t *rank;
	struct nlattr *a;
	int len;
	void *attrs = genl_attrs(h, &len);

	id = attr_find(attrs, len, FABRIQ_A_STATS_COMM_ID);
	rank = attr_find(attrs, len, FABRIQ_A_STATS_COMM_RANK);
	if (!id || *id != ID || !rank || *rank != my_rank)
		return;
	rr->stats_found = 1;
	for (a = attrs; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == FABRIQ_A_STATS_COLL)
			parse_coll(a, rr);
		else if ((a->nla_type & NLA_TYPE_MASK) == FABRIQ_A_STATS_PEER)
			parse_peer(a, rr);
	}
}

static int read_stats(void)
{
	struct nl_reply rep;
	uint64_t id = ID;
	int fd = nl_open(), family, err;
	struct req r;

	if (fd < 0)
		return -errno;
	family = resolve_family(fd);
	req_init(&r, family, FABRIQ_CMD_STATS_GET, NLM_F_DUMP);
	req_put(&r, FABRIQ_A_STATS_COMM_ID, &id, sizeof(id));
	err = transact_cb(fd, &r, &rep, on_stats);
	close(fd);
	return err ? err : rep.error;
}

static int knob(uint32_t rank, unsigned int us)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), DBG "/comms/%llx-r%u/fault_delay_us", ID, rank);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%u\n", us);
	return fclose(f) ? -errno : 0;
}

static int barriers(struct fabriq_comm *c, int n)
{
	int err = 0;

	while (!err && n--)
		err = fabriq_barrier(c, NULL);
	return err;
}

/* Lines of the debugfs event log about this communicator's peer 3. */
static void count_events(int *raised, int *cleared, int *observers)
{
	char line[512];
	FILE *f = fopen(DBG "/events", "r");
	int seen[NR] = {};
	unsigned int obs;
	char want[64];

	*raised = *cleared = *observers = 0;
	snprintf(want, sizeof(want), "comm 0x%llx rank ", ID);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, want);

		if (!strstr(line, "slow-peer") || !p || !strstr(line, " peer 3 ") ||
		    sscanf(p + strlen(want), "%u", &obs) != 1 || obs >= NR)
			continue;
		if (strstr(line, " raised "))
			(*raised)++, seen[obs] = 1;
		else if (strstr(line, " cleared "))
			(*cleared)++;
	}
	if (f)
		fclose(f);
	for (obs = 0; obs < NR; obs++)
		*observers += seen[obs];
}

/*
 * Barriers until the slow-peer events for peer 3 have cleared, or
 * CLEAR_ROUNDS rounds of CLEAR_BARRIERS: the detector clears after a few
 * operations in a row in which rank 3 was not slow, and under TCG one
 * noisy barrier starts the count again, so a fixed number of barriers
 * is a timing bet.  Every rank reads the event log itself; an allreduce
 * (max) of what each saw makes them all stop after the same round.
 */
static int await_clear(struct fabriq_comm *c)
{
	int32_t seen, all;
	int round, raised, cleared, observers, err = 0;

	for (round = 1; !err && round <= CLEAR_ROUNDS; round++) {
		err = barriers(c, CLEAR_BARRIERS);
		if (err)
			break;
		count_events(&raised, &cleared, &observers);
		seen = cleared >= 1;
		err = fabriq_allreduce(c, &seen, &all, 1, FABRIQ_INT32, FABRIQ_OP_MAX, NULL);
		if (!err && all) {
			res[my_rank].clear_barriers = round * CLEAR_BARRIERS;
			break;
		}
	}
	return err;
}

static int child(uint32_t rank)
{
	static const char *const addrs[NR] = {
		"198.19.0.1", "198.19.0.2", "198.19.0.3", "198.19.0.4",
	};
	struct fabriq_comm_opts o;
	struct fabriq_comm *c;
	float *buf;
	int i, err;

	my_rank = rank;
	buf = calloc(S / sizeof(float), sizeof(float));
	fabriq_comm_opts_default(&o);
	o.algo = FABRIQ_ALGO_RING;
	err = buf ? fabriq_comm_init(&c, ID, NR, rank, addrs, 19700, &o) : -ENOMEM;
	if (err)
		return res[rank].err = err;
	for (i = 0; !err && i < K; i++)
		err = fabriq_allreduce(c, buf, buf, S / sizeof(float), FABRIQ_FLOAT32, FABRIQ_OP_SUM,
				       NULL);
	if (!err)
		err = fabriq_barrier(c, NULL);
	if (!err)
		err = read_stats();
	/* everyone has read before the slow phase adds barriers */
	if (!err)
		err = fabriq_barrier(c, NULL);
	if (!err && rank == 3)
		err = knob(3, DELAY_US);
	if (!err)
		err = barriers(c, 6);
	if (!err)
		err = read_stats();
	if (!err)
		err = fabriq_barrier(c, NULL);
	if (!err && rank == 3)
		err = knob(3, 0);
	if (!err)
		err = await_clear(c);
	res[rank].err = err;
	fflush(stdout);
	fabriq_comm_destroy(c);
	free(buf);
	return 0;
}

static int ok_n;

static void ktap(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ktap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", ok ? "ok" : "not ok", ++ok_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int main(void)
{
	const uint64_t per_call = 2ULL * (NR - 1) * S / NR;	/* ring allreduce, per rank */
	int r, p, bad, raised, cleared, observers, slow_marks = 0;
	pid_t pids[NR];

	res = mmap(NULL, sizeof(*res) * NR, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	if (res == MAP_FAILED)
		return 2;
	fflush(stdout);
	for (r = 0; r < NR; r++) {
		pids[r] = fork();
		if (pids[r] == 0)
			_exit(child(r));
	}
	for (r = 0; r < NR; r++)
		waitpid(pids[r], NULL, 0);

	printf("TAP version 13\n1..7\n");
	for (bad = 0, r = 0; r < NR; r++)
		if (res[r].err || !res[r].stats_found) {
			printf("# rank %d: error %d (%s), stats %s\n", r, res[r].err,
			       strerror(-res[r].err), res[r].stats_found ? "found" : "missing");
			bad++;
		}
	ktap(!bad, "4 ranks ran %d allreduces and their barriers, each read its stats", K);
	for (bad = 0, r = 0; r < NR; r++)
		if (res[r].allreduce != K || res[r].barrier < 1) {
			printf("# rank %d: allreduce count %llu, barrier count %llu\n", r,
			       (unsigned long long)res[r].allreduce,
			       (unsigned long long)res[r].barrier);
			bad++;
		}
	ktap(!bad, "histogram counts equal the operations (%d allreduce, 1 barrier)", K);
	for (bad = 0, r = 0; r < NR; r++)
		bad += res[r].bucket_sum != res[r].allreduce || !res[r].pct_ordered;
	ktap(!bad, "buckets add up to the count; p50 <= p99 <= p99.9");
	for (bad = 0, r = 0; r < NR; r++)
		for (p = 0; p < NR; p++) {
			uint64_t want_tx = p == (r + 1) % NR ? K * per_call : 0;
			uint64_t want_rx = p == (r + NR - 1) % NR ? K * per_call : 0;

			if (p == r)
				continue;
			if (res[r].tx[p] != want_tx || res[r].rx[p] != want_rx) {
				printf("# rank %d peer %d: tx %llu (want %llu) rx %llu (want %llu)\n",
				       r, p, (unsigned long long)res[r].tx[p],
				       (unsigned long long)want_tx, (unsigned long long)res[r].rx[p],
				       (unsigned long long)want_rx);
				bad++;
			}
		}
	ktap(!bad, "per-peer bytes are the ring's traffic: %llu B to the right, from the left",
	     (unsigned long long)(K * per_call));
	for (r = 0; r < NR; r++)
		if (r != 3)
			slow_marks += res[r].slow[3];
	printf("# peer 3 marked slow by %d rank(s) during the delay\n", slow_marks);
	ktap(slow_marks >= 1, "stats mark peer 3 slow while its steps are delayed");
	count_events(&raised, &cleared, &observers);
	printf("# slow-peer events for peer 3: %d raised by %d rank(s), %d cleared\n", raised,
	       observers, cleared);
	ktap(raised >= 1 && observers >= 1, "slow-peer events name peer 3");
	printf("# cleared after %d barriers without the delay\n", res[0].clear_barriers);
	ktap(cleared >= 1 && cleared <= raised, "cleared events follow once the delay is off");
	return 0;
}
