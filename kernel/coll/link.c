// SPDX-License-Identifier: GPL-2.0
/*
 * link.c - how each link of a communicator performs, and which rank's
 * links are slow wherever they are measured from: the link-latency
 * detector.
 *
 * Each rank measures its own links: every heartbeat period (ctrl.c) the
 * mean completion latency of its sends to each peer (cm.c adds them up)
 * against that link's baseline.  The baseline is the mean of the first
 * FQ_LINK_LEARN periods with sends, then follows the periods in which the
 * link is not slow (fq_link_judge()), so a link that turned slow stays
 * slow until it is fast again.  A period's latency is the mean of the
 * sends done in it, or the age of the oldest send still in flight if that
 * is more (a stuck link is slow too).  A link is slow when that latency
 * over the baseline is at the detector's threshold or over it, and stays
 * slow until it is under halfway between the baseline and the threshold
 * (a link near the threshold does not flap).  An idle link is not slow.
 *
 * The heartbeats carry each rank's report (how many of its links are
 * slow, the slowest and its ratio), so every rank of the job knows what
 * every other finds.  A slow link blames both its ends; a rank that
 * reports k slow links is blamed k times: the rank whose links are slow
 * from everywhere gathers the most.  fq_link_blame() names it the link
 * suspect when it has the most alone, and at least 2 (one slow link
 * alone blames its ends alike: a link, not a rank, is at fault).  Every
 * rank runs the link-latency detector on that: its event names the
 * suspect, on every host, including those that never exchange data with
 * it.  ctrl.c's origin of a round of waits prefers the suspect too.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "comm.h"

#define FQ_LINK_LEARN		5	/* periods with sends that make the baseline */
#define FQ_LINK_MIN_SENDS	4	/* fewer in a period tell nothing */

/*
 * What @peer's links carried so far: their sends' completion latencies
 * summed in @cqe_ns, of @tx_wrs sends; and how long the oldest send
 * still in flight has been (0: none), since a send that has not
 * completed yet has taken that long at least.  Each connection's under
 * its own lock, in turn.
 */
static u64 fq_link_sample(const struct fq_comm *comm, const struct fq_peer *peer, u64 now,
			  u64 *cqe_ns, u64 *tx_wrs)
{
	struct fq_conn *conn;
	u64 oldest = 0, t;
	u32 c;

	*cqe_ns = 0;
	*tx_wrs = 0;
	for (c = 0; c < comm->nch; c++) {
		conn = peer->ch[c];
		if (!conn)
			continue;
		spin_lock_bh(conn->lock);
		*cqe_ns += conn->st.cqe_ns;
		*tx_wrs += conn->st.tx_wrs;
		/* the engine sets t_post when it posts, without this lock */
		t = conn->tx_tail == READ_ONCE(conn->tx_posted) ? now :
		    READ_ONCE(conn->tx_ent[conn->tx_tail % FQ_TX_ENTS].t_post);
		spin_unlock_bh(conn->lock);
		if (now > t)
			oldest = max(oldest, now - t);
	}
	return oldest;
}

/*
 * One period of @l: @n sends took @sum ns, and the oldest still in
 * flight has taken @oldest ns so far.  The baseline rises by an eighth of
 * a period's excess but falls by a 64th: a link that is faster for a while
 * (less traffic, a neighbour's slowness) does not make its normal speed
 * look slow afterwards.
 */
static void fq_link_judge(struct fq_link *l, u64 sum, u32 n, u64 oldest, u64 threshold)
{
	u64 seen;

	if (!n && !oldest) {	/* idle: nothing is slow */
		l->ratio = 100;
		l->slow = false;
		return;
	}
	if (n)
		l->mean_ns = div_u64(sum, n);
	if (l->learnt < FQ_LINK_LEARN) {
		if (n < FQ_LINK_MIN_SENDS)
			return;
		l->base_ns = div_u64(l->base_ns * l->learnt + l->mean_ns, l->learnt + 1);
		l->learnt++;
		return;
	}
	seen = max(n ? l->mean_ns : 0, oldest);
	l->ratio = min_t(u64, div64_u64(seen * 100, max_t(u64, l->base_ns, 1)), U32_MAX);
	/* a slow link is fast again halfway back from the threshold to its baseline */
	if (l->slow)
		threshold = 100 + (threshold - 100) / 2;
	l->slow = l->ratio >= threshold;
	if (l->slow || n < FQ_LINK_MIN_SENDS)
		return;
	if (l->mean_ns > l->base_ns)
		l->base_ns += (l->mean_ns - l->base_ns) / 8;
	else
		l->base_ns -= (l->base_ns - l->mean_ns) / 64;
}

/**
 * fq_link_period() - a heartbeat period is over: judge each link, and
 * what this rank's next heartbeats report
 * @comm: the communicator
 *
 * Context: the heartbeat worker (the only caller).
 */
void fq_link_period(struct fq_comm *comm)
{
	struct fq_link_report rep = { .worst = FABRIQ_STATUS_NO_RANK };
	struct fq_det_config cfg;
	u64 cqe_ns, tx_wrs, oldest, now = ktime_get_ns();
	struct fq_link *l;
	u32 r, n;

	fq_det_config_get(FABRIQ_DET_LINK_LATENCY, &cfg);
	for (r = 0; r < comm->nranks; r++) {
		if (r == comm->rank)
			continue;
		l = &comm->peers[r].link;
		oldest = fq_link_sample(comm, &comm->peers[r], now, &cqe_ns, &tx_wrs);
		n = min_t(u64, tx_wrs - l->seen_tx_wrs, U32_MAX);
		fq_link_judge(l, cqe_ns - l->seen_cqe_ns, n, oldest, cfg.threshold);
		l->seen_cqe_ns = cqe_ns;
		l->seen_tx_wrs = tx_wrs;
		if (!l->slow)
			continue;
		rep.slow++;
		if (rep.worst == FABRIQ_STATUS_NO_RANK || l->ratio > rep.ratio) {
			rep.worst = r;
			rep.ratio = l->ratio;
		}
	}
	spin_lock_bh(&comm->lock);
	comm->links = rep;
	spin_unlock_bh(&comm->lock);
}

/* Does @v (a rank that told) report a slow link to a rank of the @n? */
static bool fq_link_reports(const struct fq_rank_view *v, u32 n)
{
	return (v->state == FABRIQ_RANK_SELF || v->state == FABRIQ_RANK_ALIVE) &&
	       v->rs.links.slow && v->rs.links.worst < n;
}

/**
 * fq_link_blame() - the link blame of each of @n ranks, and the suspect
 * @v: their views (ctrl.c), whose reports it reads
 * @n: how many
 */
void fq_link_blame(struct fq_rank_view *v, u32 n)
{
	u32 r, best = 0, most = 0;
	bool alone = false;

	for (r = 0; r < n; r++) {
		v[r].link_blame = 0;
		v[r].link_suspect = false;
	}
	for (r = 0; r < n; r++) {
		if (!fq_link_reports(&v[r], n))
			continue;
		v[r].link_blame += v[r].rs.links.slow;
		v[v[r].rs.links.worst].link_blame++;
	}
	for (r = 0; r < n; r++) {
		if (v[r].link_blame > most) {
			most = v[r].link_blame;
			best = r;
			alone = true;
		} else if (v[r].link_blame == most) {
			alone = false;
		}
	}
	if (alone && most >= 2)
		v[best].link_suspect = true;
}

/* The slowest link of rank @s's that a rank reports (x100). */
static u32 fq_link_worst_of(const struct fq_rank_view *v, u32 n, u32 s)
{
	u32 r, worst = 0;

	for (r = 0; r < n; r++)
		if (fq_link_reports(&v[r], n) && (r == s || v[r].rs.links.worst == s))
			worst = max(worst, v[r].rs.links.ratio);
	return worst;
}

/**
 * fq_link_detect() - the link-latency detector, once a period: raised
 * about the suspect, cleared about any other rank
 * @comm: the communicator
 *
 * Context: the heartbeat worker (the only caller: it serialises the
 * detector's states).
 */
void fq_link_detect(struct fq_comm *comm)
{
	struct fq_rank_view *v = fq_ctrl_view(comm);
	u64 now = ktime_get_ns();
	u32 r;

	if (!v)
		return;
	for (r = 0; r < comm->nranks; r++) {
		struct fq_ev_subject subj = {
			.prio = -1, .vl = -1, .has_comm = true, .comm_id = comm->id,
			.comm_rank = comm->rank, .peer_rank = r, .peer_addr = &comm->addrs[r],
		};

		fq_det_eval(&comm->peers[r].link_det, FABRIQ_DET_LINK_LATENCY, &subj,
			    v[r].link_suspect, fq_link_worst_of(v, comm->nranks, r), now);
	}
	kvfree(v);
}

/**
 * fq_link_show() - debugfs comms/<id>/links: this rank's links, then
 * every rank's report and blame
 * @s: the file
 * @comm: the communicator
 */
void fq_link_show(struct seq_file *s, struct fq_comm *comm)
{
	struct fq_rank_view *v = fq_ctrl_view(comm);
	const struct fq_link *l;
	u32 r;

	if (!v) {
		seq_puts(s, "# out of memory\n");
		return;
	}
	seq_puts(s, "# peer mean_us base_us learnt ratio slow\n");
	for (r = 0; r < comm->nranks; r++) {
		if (r == comm->rank)
			continue;
		l = &comm->peers[r].link;
		seq_printf(s, "%u %llu %llu %u %u %s\n", r, READ_ONCE(l->mean_ns) / NSEC_PER_USEC,
			   READ_ONCE(l->base_ns) / NSEC_PER_USEC, READ_ONCE(l->learnt),
			   READ_ONCE(l->ratio), READ_ONCE(l->slow) ? "yes" : "no");
	}
	seq_puts(s, "# rank slow_links slowest ratio blame suspect\n");
	for (r = 0; r < comm->nranks; r++) {
		seq_printf(s, "%u %u ", r, v[r].rs.links.slow);
		if (v[r].rs.links.worst == FABRIQ_STATUS_NO_RANK)
			seq_puts(s, "- ");
		else
			seq_printf(s, "%u ", v[r].rs.links.worst);
		seq_printf(s, "%u %u %s\n", v[r].rs.links.ratio, v[r].link_blame,
			   v[r].link_suspect ? "yes" : "no");
	}
	kvfree(v);
}
