// SPDX-License-Identifier: GPL-2.0
/*
 * comm_stats.c - the timing of a communicator's own work: a log2 histogram
 * of operation times per collective, how long each step waited for each
 * peer, when each step ran (and whether it overlapped the one before:
 * pipe.c), and the slow-peer detector that runs on those waits after
 * every operation.
 *
 * The engine (serialised by fq_comm.run_lock) is the only writer; readers
 * (netlink, debugfs) take fq_comm.stats_lock.
 */
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/sort.h>

#include "comm.h"

#define FQ_SLOW_MIN_NS		(1 * NSEC_PER_MSEC)	/* smaller gaps are noise */

static const char *const fq_coll_names[__FABRIQ_COLL_MAX] = FABRIQ_COLL_NAMES;

/**
 * fq_stats_op_start() - an operation begins: forget the last one's waits
 * @comm: the communicator
 * @op: the operation
 *
 * Context: the engine, run_lock held.
 */
void fq_stats_op_start(struct fq_comm *comm, struct fq_op *op)
{
	u32 r;

	spin_lock_bh(&comm->stats_lock);
	for (r = 0; r < comm->nranks; r++) {
		comm->peers[r].op_wait_ns = 0;
		comm->peers[r].op_seen = false;
	}
	comm->stats.tcur ^= 1;
	comm->stats.waits[comm->stats.tcur] = (struct fq_step_waits){
		.seq = op->seq, .coll = op->req.coll,
	};
	comm->stats.timeline[comm->stats.tcur] = (struct fq_op_timeline){
		.seq = op->seq, .coll = op->req.coll, .t0_ns = ktime_get_ns(),
	};
	spin_unlock_bh(&comm->stats_lock);
}

/**
 * fq_stats_step_wait() - a step in flight now has all of a peer's data
 * @comm: the communicator
 * @peer: the peer
 * @chan: the channel whose step it is
 * @k: the step
 * @wait: how long it waited for it (ns)
 * @bytes: what the step received from it
 *
 * Context: the engine, run_lock held.
 */
void fq_stats_step_wait(struct fq_comm *comm, struct fq_peer *peer, u32 chan, u32 k, u64 wait,
			u64 bytes)
{
	struct fq_step_waits *sw;

	spin_lock_bh(&comm->stats_lock);
	sw = &comm->stats.waits[comm->stats.tcur];
	peer->steps++;
	peer->wait_ns += wait;
	peer->wait_max_ns = max(peer->wait_max_ns, wait);
	peer->op_wait_ns += wait;
	peer->op_seen = true;
	if (sw->n < FQ_STEP_LOG)
		sw->rec[sw->n++] = (struct fq_step_rec) {
			.step = k, .peer = peer->rank, .chan = chan, .wait_ns = wait,
			.bytes = bytes,
		};
	else
		sw->dropped++;
	spin_unlock_bh(&comm->stats_lock);
}

/* ns since the operation started, of a ktime ns @t (0 stays 0: never) */
static u64 fq_stats_since(const struct fq_op_timeline *tl, u64 t)
{
	return t ? t - min(t, tl->t0_ns) : 0;
}

/**
 * fq_stats_step_done() - step @k of a channel of the running operation is done
 * @comm: the communicator
 * @chan: the channel
 * @k: the step
 * @clk: its timing
 * @now: when it was found done (ktime ns)
 *
 * Context: the engine, run_lock held.
 */
void fq_stats_step_done(struct fq_comm *comm, u32 chan, u32 k, const struct fq_step_clock *clk,
			u64 now)
{
	struct fq_comm_stats *st = &comm->stats;
	struct fq_op_timeline *tl = &st->timeline[st->tcur];

	spin_lock_bh(&comm->stats_lock);
	st->steps_run++;
	st->steps_overlapped += clk->overlapped;
	if (tl->n < FQ_STEP_LOG)
		tl->t[tl->n++] = (struct fq_step_time) {
			.step = k, .chan = chan, .overlapped = clk->overlapped,
			.admit_ns = fq_stats_since(tl, clk->admit_ns),
			.first_ns = fq_stats_since(tl, clk->first_ns),
			.done_ns = fq_stats_since(tl, now),
		};
	spin_unlock_bh(&comm->stats_lock);
}

static int fq_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of sorted @v[0..n) without one element equal to @w. */
static u64 fq_median_without(const u64 *v, u32 n, u64 w)
{
	u32 j = 0, m = n - 1, h = m / 2;

	while (j < n && v[j] != w)
		j++;
#define FQ_AT(k) ((k) < j ? v[k] : v[(k) + 1])
	if (m & 1)
		return FQ_AT(h);
	return (FQ_AT(h - 1) + FQ_AT(h)) / 2;
#undef FQ_AT
}

static void fq_slow_peer_eval(struct fq_comm *comm, struct fq_peer *p, const u64 *sorted, u32 n,
			      const struct fq_det_config *cfg, u64 now)
{
	struct fq_ev_subject subj = {
		.prio = -1, .vl = -1, .has_comm = true, .comm_id = comm->id,
		.comm_rank = comm->rank, .peer_rank = p->rank, .peer_addr = &comm->addrs[p->rank],
	};
	u64 w = p->op_wait_ns, med = fq_median_without(sorted, n, w);
	u64 ratio = div64_u64(w * 100, max_t(u64, med, 1));
	bool slow = w > med + FQ_SLOW_MIN_NS && ratio > cfg->threshold;
	u32 need = max_t(u32, cfg->limit, 1);

	if (slow) {
		p->slow_ops++;
		p->fine_ops = 0;
	} else {
		p->fine_ops++;
		p->slow_ops = 0;
	}
	fq_det_eval(&p->slow, FABRIQ_DET_SLOW_PEER, &subj,
		    p->slow.raised ? p->fine_ops < need : p->slow_ops >= need, ratio, now);
}

/* A peer whose wait was k times the median of the others', N operations running. */
static void fq_slow_peer_detect(struct fq_comm *comm)
{
	struct fq_det_config cfg;
	u64 now = ktime_get_ns();
	u32 r, n = 0;

	if (!comm->slow_scratch)
		return;
	for (r = 0; r < comm->nranks; r++)
		if (comm->peers[r].op_seen)
			comm->slow_scratch[n++] = comm->peers[r].op_wait_ns;
	if (n < 2)
		return;		/* nobody to compare with */
	sort(comm->slow_scratch, n, sizeof(u64), fq_u64_cmp, NULL);
	fq_det_config_get(FABRIQ_DET_SLOW_PEER, &cfg);
	for (r = 0; r < comm->nranks; r++)
		if (comm->peers[r].op_seen)
			fq_slow_peer_eval(comm, &comm->peers[r], comm->slow_scratch, n, &cfg, now);
}

/**
 * fq_stats_op_done() - an operation succeeded: record its time, check the peers
 * @comm: the communicator
 * @op: the operation
 * @ns: submission to completion
 *
 * Context: the engine, run_lock held.
 */
void fq_stats_op_done(struct fq_comm *comm, struct fq_op *op, u64 ns)
{
	struct fq_op_times *t = &comm->stats.times;
	u32 c = op->req.coll, b = ns ? ilog2(ns) : 0, r;

	spin_lock_bh(&comm->stats_lock);
	comm->stats.timeline[comm->stats.tcur].complete = true;
	t->hist[c][b]++;
	t->min_ns[c] = t->count[c] ? min(t->min_ns[c], ns) : ns;
	t->max_ns[c] = max(t->max_ns[c], ns);
	t->count[c]++;
	t->sum_ns[c] += ns;
	for (r = 0; r < comm->nranks; r++)
		if (comm->peers[r].op_seen)
			comm->peers[r].wait_last_ns = comm->peers[r].op_wait_ns;
	spin_unlock_bh(&comm->stats_lock);
	fq_slow_peer_detect(comm);
}

/**
 * fq_stats_hist_pct() - percentiles from a log2 histogram
 * @hist: FABRIQ_HIST_BUCKETS counts
 * @count: their sum
 * @p50: the upper bound of the bucket holding the median
 * @p99: ... the 99th percentile
 * @p999: ... the 99.9th percentile
 */
void fq_stats_hist_pct(const u64 *hist, u64 count, u64 *p50, u64 *p99, u64 *p999)
{
	static const u32 permille[] = { 500, 990, 999 };
	u64 *out[] = { p50, p99, p999 };
	u64 cum, want;
	int q, b;

	for (q = 0; q < ARRAY_SIZE(permille); q++) {
		*out[q] = 0;
		if (!count)
			continue;
		want = max_t(u64, DIV_ROUND_UP_ULL(count * permille[q], 1000), 1);
		for (cum = 0, b = 0; b < FABRIQ_HIST_BUCKETS; b++) {
			cum += hist[b];
			if (cum >= want)
				break;
		}
		*out[q] = b >= 63 ? U64_MAX : 2ULL << b;
	}
}

/**
 * fq_stats_show_hist() - debugfs "histogram": per collective, the buckets in use
 * @s: the seq_file
 * @comm: the communicator
 */
void fq_stats_show_hist(struct seq_file *s, struct fq_comm *comm)
{
	struct fq_op_times *st = kmalloc(sizeof(*st), GFP_KERNEL);
	u64 p50, p99, p999;
	u32 c, b;

	if (!st)
		return;
	spin_lock_bh(&comm->stats_lock);
	*st = comm->stats.times;
	spin_unlock_bh(&comm->stats_lock);
	for (c = 0; c < __FABRIQ_COLL_MAX; c++) {
		if (!st->count[c])
			continue;
		fq_stats_hist_pct(st->hist[c], st->count[c], &p50, &p99, &p999);
		seq_printf(s, "%s count %llu min_ns %llu mean_ns %llu max_ns %llu p50_ns %llu p99_ns %llu p999_ns %llu\n",
			   fq_coll_names[c], st->count[c], st->min_ns[c],
			   div64_u64(st->sum_ns[c], st->count[c]), st->max_ns[c], p50, p99, p999);
		seq_printf(s, "  %-24s %s\n", "bucket_ns", "count");
		for (b = 0; b < FABRIQ_HIST_BUCKETS; b++)
			if (st->hist[c][b])
				seq_printf(s, "  [%llu, %llu) %*llu\n", 1ULL << b,
					   b >= 63 ? U64_MAX : 2ULL << b, 10, st->hist[c][b]);
	}
	kfree(st);
}

/*
 * The entry of @st->timeline and @st->waits that debugfs shows: the last
 * operation that ended well (the running one's steps are not all in).
 * Context: stats_lock held.
 */
static u8 fq_stats_shown(const struct fq_comm_stats *st)
{
	return st->timeline[st->tcur].complete ? st->tcur : st->tcur ^ 1;
}

/**
 * fq_stats_show_steps() - debugfs "steps": the peer waits of the last
 * operation that ended well, and how far the running one got
 * @s: the seq_file
 * @comm: the communicator
 */
void fq_stats_show_steps(struct seq_file *s, struct fq_comm *comm)
{
	struct fq_step_waits *sw = kmalloc(sizeof(*sw), GFP_KERNEL);
	struct fq_comm_stats *st = &comm->stats;
	u64 running = 0;
	bool complete;
	u32 i, so_far = 0;
	u8 shown;

	if (!sw)
		return;
	spin_lock_bh(&comm->stats_lock);
	shown = fq_stats_shown(st);
	*sw = st->waits[shown];
	complete = st->timeline[shown].complete;
	if (shown != st->tcur) {
		running = st->waits[st->tcur].seq;
		so_far = st->waits[st->tcur].n;
	}
	spin_unlock_bh(&comm->stats_lock);
	seq_printf(s, "# op %llu %s: step peer wait_ns bytes chan (dropped %u)\n",
		   complete ? sw->seq : 0, complete ? fq_coll_names[sw->coll] : "-",
		   complete ? sw->dropped : 0);
	for (i = 0; complete && i < sw->n; i++)
		seq_printf(s, "%-4u %-6u %12llu %12llu %u\n", sw->rec[i].step, sw->rec[i].peer,
			   sw->rec[i].wait_ns, sw->rec[i].bytes, sw->rec[i].chan);
	if (running)
		seq_printf(s, "# op %llu not done (running or failed): %u waits so far\n",
			   running, so_far);
	kfree(sw);
}

/**
 * fq_stats_show_pipeline() - debugfs "pipeline": when each step of the
 * last operation ran, and how many steps overlapped the one before
 * @s: the seq_file
 * @comm: the communicator
 */
void fq_stats_show_pipeline(struct seq_file *s, struct fq_comm *comm)
{
	struct fq_op_timeline *tl = kmalloc(sizeof(*tl), GFP_KERNEL);
	struct fq_comm_stats *st = &comm->stats;
	const struct fq_step_time *t;
	u64 run, overlapped;
	u32 i;

	if (!tl)
		return;
	spin_lock_bh(&comm->stats_lock);
	*tl = st->timeline[fq_stats_shown(st)];
	run = st->steps_run;
	overlapped = st->steps_overlapped;
	spin_unlock_bh(&comm->stats_lock);
	seq_printf(s, "steps_run %llu\nsteps_overlapped %llu\n", run, overlapped);
	seq_printf(s, "# op %llu %s, ns since it started: step admitted first_move done overlapped chan\n",
		   tl->seq, tl->complete ? fq_coll_names[tl->coll] : "-");
	for (i = 0; tl->complete && i < tl->n; i++) {
		t = &tl->t[i];
		seq_printf(s, "%-4u %12llu %12llu %12llu %-3s %u\n", t->step, t->admit_ns,
			   t->first_ns, t->done_ns, t->overlapped ? "yes" : "no", t->chan);
	}
	kfree(tl);
}

/**
 * fq_stats_peer_qp() - a peer's QP counters, summed over its channels
 * @comm: the communicator
 * @peer: the peer
 * @sum: filled
 * @outstanding: sends in flight now
 *
 * Context: fq_comm.setup_lock held (the connections stay).
 */
void fq_stats_peer_qp(struct fq_comm *comm, struct fq_peer *peer, struct fq_qp_stats *sum,
		      u32 *outstanding)
{
	u32 ch;

	memset(sum, 0, sizeof(*sum));
	*outstanding = 0;
	/* each connection's under its own lock, in turn: the sum is no one instant's */
	for (ch = 0; ch < comm->nch; ch++) {
		struct fq_conn *c = peer->ch[ch];

		if (!c)
			continue;
		spin_lock_bh(c->lock);
		sum->tx_wrs += c->st.tx_wrs;
		sum->tx_bytes += c->st.tx_bytes;
		sum->rx_wrs += c->st.rx_wrs;
		sum->rx_bytes += c->st.rx_bytes;
		sum->errors += c->st.errors;
		sum->cqe_ns += c->st.cqe_ns;
		sum->cqe_max_ns = max(sum->cqe_max_ns, c->st.cqe_max_ns);
		*outstanding += c->tx_head - c->tx_tail;
		spin_unlock_bh(c->lock);
	}
}
