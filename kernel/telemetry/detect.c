// SPDX-License-Identifier: GPL-2.0
/*
 * detect.c - the detectors and the events they raise.
 *
 * Each detector has a threshold, a window (how long its condition must
 * hold before it is raised, and be gone before it is cleared) and, for
 * some, a second limit.  fq_det_eval() is the state machine every
 * detector shares; fq_det_port() runs the port detectors on the newest
 * samples; the slow-peer detector runs after each operation (coll.c).
 *
 * An event goes to the "events" netlink group and into a log of the last
 * FQ_EV_LOG entries (debugfs "events").  Events are rate-limited as a
 * whole; what the limit drops is counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "core/fabriq.h"
#include "telemetry.h"

#define FQ_EV_LOG		256
#define FQ_XMIT_WAIT_TICK_NS	4	/* one PortXmitWait tick (see Documentation/telemetry.md) */

static const char *const fq_det_names[__FABRIQ_DET_MAX] = FABRIQ_DET_NAMES;
static const char *const fq_sev_names[] = FABRIQ_SEV_NAMES;

/* The defaults are what operators use (Documentation/telemetry.md). */
static struct fq_det_config fq_det_cfg[__FABRIQ_DET_MAX] = {
	[FABRIQ_DET_SLOW_PEER] = { true, 400, 0, 3 },		/* 4x the median, 3 ops */
	[FABRIQ_DET_LINK_DEGRADED] = { true, 0, 0, 0 },
	[FABRIQ_DET_PFC_STORM] = { true, 20, 2000, 10000 },	/* 20 %, 2 s; 10000 frames/s */
	[FABRIQ_DET_ECN_ANOMALY] = { true, 0, 1000, 0 },
	[FABRIQ_DET_VL_CONGESTION] = { true, 100000, 1000, 0 },	/* 10 % (ppm) of the interval */
	[FABRIQ_DET_ERROR_RATE] = { true, 100, 60000, 0 },	/* 0.01 % over a minute */
	[FABRIQ_DET_LATENCY] = { true, 5000, 300000, 0 },	/* 5 us for 5 min */
	[FABRIQ_DET_BW_DROP] = { true, 30, 10000, 0 },		/* 30 % for 10 s */
	[FABRIQ_DET_LINK_LATENCY] = { true, 200, 3000, 0 },	/* 2x the baseline for 3 s */
};

/* One logged event. */
struct fq_event {
	u64 time_ns;		/* CLOCK_REALTIME */
	u8 det;
	u8 sev;
	bool cleared;
	struct fq_ev_subject subj;	/* dev_name and peer_addr point into the copies below */
	char dev_name[FABRIQ_DEV_NAME_MAX];
	struct sockaddr_storage peer_addr;
	u64 value;
	u64 threshold;
	u32 window_ms;
};

/*
 * protects fq_ev_log, fq_ev_next, fq_ev_rs, fq_ev_suppressed and the
 * counts; also fq_det_cfg writes
 */
static DEFINE_SPINLOCK(fq_ev_lock);
static struct fq_event *fq_ev_log;
static u64 fq_ev_next;
static struct ratelimit_state fq_ev_rs;
static u64 fq_ev_suppressed;
/* every raise and clear since the load, the rate limit's drops included */
static u64 fq_det_raised[__FABRIQ_DET_MAX], fq_det_cleared[__FABRIQ_DET_MAX];
static u32 fq_ev_per_sec = 20;

/**
 * fq_det_config_get() - one detector's settings
 * @det: enum fabriq_detector
 * @cfg: filled
 */
void fq_det_config_get(u8 det, struct fq_det_config *cfg)
{
	spin_lock_bh(&fq_ev_lock);
	*cfg = fq_det_cfg[det];
	spin_unlock_bh(&fq_ev_lock);
}

/**
 * fq_det_config_set() - change one detector's settings
 * @det: enum fabriq_detector
 * @cfg: the new settings, already range-checked
 */
void fq_det_config_set(u8 det, const struct fq_det_config *cfg)
{
	spin_lock_bh(&fq_ev_lock);
	fq_det_cfg[det] = *cfg;
	spin_unlock_bh(&fq_ev_lock);
}

u32 fq_det_events_per_sec(void)
{
	return READ_ONCE(fq_ev_per_sec);
}

void fq_det_set_events_per_sec(u32 n)
{
	spin_lock_bh(&fq_ev_lock);
	fq_ev_per_sec = n;
	ratelimit_state_init(&fq_ev_rs, HZ, n);
	ratelimit_set_flags(&fq_ev_rs, RATELIMIT_MSG_ON_RELEASE);
	spin_unlock_bh(&fq_ev_lock);
}

/**
 * fq_det_counts() - how often a detector raised and cleared a condition
 * @det: enum fabriq_detector
 * @raised: conditions raised since the module was loaded
 * @cleared: conditions cleared since then
 *
 * Every one counts, also those whose event the rate limit dropped.
 */
void fq_det_counts(u8 det, u64 *raised, u64 *cleared)
{
	spin_lock_bh(&fq_ev_lock);
	*raised = fq_det_raised[det];
	*cleared = fq_det_cleared[det];
	spin_unlock_bh(&fq_ev_lock);
}

u64 fq_det_suppressed(void)
{
	u64 n;

	spin_lock_bh(&fq_ev_lock);
	n = fq_ev_suppressed;
	spin_unlock_bh(&fq_ev_lock);
	return n;
}

static int fq_ev_put_addr(struct sk_buff *skb, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return nla_put(skb, FABRIQ_A_EVENT_PEER_ADDR, 4,
			       &((const struct sockaddr_in *)ss)->sin_addr);
	if (ss->ss_family == AF_INET6)
		return nla_put(skb, FABRIQ_A_EVENT_PEER_ADDR, 16,
			       &((const struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

static int fq_ev_fill(struct sk_buff *skb, const void *arg)
{
	const struct fq_event *ev = arg;
	const struct fq_ev_subject *sj = &ev->subj;

	if (nla_put_u8(skb, FABRIQ_A_EVENT_DETECTOR, ev->det) ||
	    nla_put_u8(skb, FABRIQ_A_EVENT_SEVERITY, ev->sev) ||
	    (ev->cleared && nla_put_flag(skb, FABRIQ_A_EVENT_CLEARED)) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_EVENT_VALUE, ev->value, FABRIQ_A_EVENT_PAD) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_EVENT_THRESHOLD, ev->threshold, FABRIQ_A_EVENT_PAD) ||
	    nla_put_u32(skb, FABRIQ_A_EVENT_WINDOW_MS, ev->window_ms) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_EVENT_TIME_NS, ev->time_ns, FABRIQ_A_EVENT_PAD))
		return -EMSGSIZE;
	if (sj->port && (nla_put_u32(skb, FABRIQ_A_EVENT_DEV_INDEX, sj->dev_index) ||
			 nla_put_string(skb, FABRIQ_A_EVENT_DEV_NAME, ev->dev_name) ||
			 nla_put_u32(skb, FABRIQ_A_EVENT_PORT, sj->port)))
		return -EMSGSIZE;
	if ((sj->prio >= 0 && nla_put_u8(skb, FABRIQ_A_EVENT_PRIO, sj->prio)) ||
	    (sj->vl >= 0 && nla_put_u8(skb, FABRIQ_A_EVENT_VL, sj->vl)))
		return -EMSGSIZE;
	if (sj->has_comm &&
	    (nla_put_u64_64bit(skb, FABRIQ_A_EVENT_COMM_ID, sj->comm_id, FABRIQ_A_EVENT_PAD) ||
	     nla_put_u32(skb, FABRIQ_A_EVENT_COMM_RANK, sj->comm_rank)))
		return -EMSGSIZE;
	if (sj->peer_rank >= 0 &&
	    (nla_put_u32(skb, FABRIQ_A_EVENT_PEER_RANK, sj->peer_rank) ||
	     fq_ev_put_addr(skb, &ev->peer_addr)))
		return -EMSGSIZE;
	return 0;
}

static u8 fq_det_severity(u8 det, bool cleared)
{
	if (cleared)
		return FABRIQ_SEV_INFO;
	switch (det) {
	case FABRIQ_DET_LINK_DEGRADED:
	case FABRIQ_DET_PFC_STORM:
		return FABRIQ_SEV_CRITICAL;
	default:
		return FABRIQ_SEV_WARNING;
	}
}

/* Log and send one event.  Context: process context. */
static void fq_ev_emit(u8 det, bool cleared, const struct fq_ev_subject *subj, u64 value,
		       const struct fq_det_config *cfg)
{
	struct fq_event *ev;
	bool ok;

	spin_lock_bh(&fq_ev_lock);
	if (cleared)
		fq_det_cleared[det]++;
	else
		fq_det_raised[det]++;
	spin_unlock_bh(&fq_ev_lock);
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return;
	ev->time_ns = ktime_get_real_ns();
	ev->det = det;
	ev->sev = fq_det_severity(det, cleared);
	ev->cleared = cleared;
	ev->subj = *subj;
	if (subj->dev_name)
		strscpy(ev->dev_name, subj->dev_name, sizeof(ev->dev_name));
	if (subj->peer_addr)
		ev->peer_addr = *subj->peer_addr;
	ev->subj.dev_name = NULL;
	ev->subj.peer_addr = NULL;
	ev->value = value;
	ev->threshold = cfg->threshold;
	ev->window_ms = cfg->window_ms;

	spin_lock_bh(&fq_ev_lock);
	ok = __ratelimit(&fq_ev_rs);
	if (ok)
		fq_ev_log[fq_ev_next++ % FQ_EV_LOG] = *ev;
	else
		fq_ev_suppressed++;
	spin_unlock_bh(&fq_ev_lock);
	if (ok)
		fabriq_nl_event(FABRIQ_CMD_EVENT_NTF, fq_ev_fill, ev);
	kfree(ev);
}

/* The state machine; @hold_ns is how long the condition must hold or be gone. */
static void fq_det_step(struct fq_det_state *st, u8 det, const struct fq_ev_subject *subj,
			bool cond, u64 value, u64 now_ns, u64 hold_ns,
			const struct fq_det_config *cfg)
{
	if (!cfg->enabled)
		cond = false;
	st->value = value;
	if (cond) {
		st->clear_since_ns = 0;
		if (!st->since_ns)
			st->since_ns = now_ns;
		if (!st->raised && now_ns - st->since_ns >= hold_ns) {
			st->raised = true;
			fq_ev_emit(det, false, subj, value, cfg);
		}
		return;
	}
	st->since_ns = 0;
	if (!st->raised)
		return;
	if (!st->clear_since_ns)
		st->clear_since_ns = now_ns;
	if (now_ns - st->clear_since_ns >= hold_ns) {
		st->raised = false;
		st->clear_since_ns = 0;
		fq_ev_emit(det, true, subj, value, cfg);
	}
}

/**
 * fq_det_eval() - one detector, one subject, one observation
 * @st: the subject's state for this detector
 * @det: enum fabriq_detector
 * @subj: what the event will be about
 * @cond: the condition holds now
 * @value: what was measured
 * @now_ns: CLOCK_MONOTONIC
 *
 * Raised once the condition has held for the window; cleared once it has
 * been gone for the window (at least one observation either way).
 *
 * Context: process context; the caller serialises calls per @st.
 */
void fq_det_eval(struct fq_det_state *st, u8 det, const struct fq_ev_subject *subj,
		 bool cond, u64 value, u64 now_ns)
{
	struct fq_det_config cfg;

	fq_det_config_get(det, &cfg);
	fq_det_step(st, det, subj, cond, value, now_ns, (u64)cfg.window_ms * NSEC_PER_MSEC, &cfg);
}

/* the sample @ms milliseconds before the newest, or the oldest there is */
static const struct fq_tm_sample *fq_det_back(struct fq_tm_port *tm, u32 ms)
{
	const struct fq_tm_sample *now = fq_tm_newest(tm, 0), *s = NULL, *t;
	u32 i;

	for (i = 1; (t = fq_tm_newest(tm, i)); i++) {
		s = t;
		if (now->t_ns - t->t_ns >= (u64)ms * NSEC_PER_MSEC)
			break;
	}
	return s;
}

/* a counter's rise; a counter that went back (reset) rose by nothing */
static u64 fq_rise(u64 now, u64 then)
{
	return now >= then ? now - then : 0;
}

static u64 fq_delta(const struct fq_tm_sample *a, const struct fq_tm_sample *b, u8 c)
{
	return fq_rise(a->ctr[c], b->ctr[c]);
}

static void fq_det_pfc(struct fq_tm_port *tm, const struct fq_tm_sample *a,
		       const struct fq_tm_sample *b, struct fq_ev_subject *subj)
{
	struct fq_det_config cfg;
	u64 dt_us = max_t(u64, (a->t_ns - b->t_ns) / NSEC_PER_USEC, 1);
	int p;

	if (!tm->has_pause)
		return;
	fq_det_config_get(FABRIQ_DET_PFC_STORM, &cfg);
	for (p = 0; p < FQ_TM_NUM_PRIO; p++) {
		u64 dur = fq_rise(a->pause[FABRIQ_PAUSE_TX_DURATION][p],
				  b->pause[FABRIQ_PAUSE_TX_DURATION][p]);
		u64 frames = fq_rise(a->pause[FABRIQ_PAUSE_TX][p], b->pause[FABRIQ_PAUSE_TX][p]);
		u64 pct = div64_u64(dur * 100, dt_us);
		u64 fps = div64_u64(frames * USEC_PER_SEC, dt_us);

		subj->prio = p;
		fq_det_eval(&tm->det_prio[p], FABRIQ_DET_PFC_STORM, subj,
			    (cfg.threshold && pct > cfg.threshold) ||
			    (cfg.limit && fps > cfg.limit), pct, a->t_ns);
	}
	subj->prio = -1;
}

static void fq_det_vl(struct fq_tm_port *tm, const struct fq_tm_sample *a,
		      const struct fq_tm_sample *b, struct fq_ev_subject *subj)
{
	struct fq_det_config cfg;
	u64 dt = max_t(u64, a->t_ns - b->t_ns, 1);
	int vl;

	fq_det_config_get(FABRIQ_DET_VL_CONGESTION, &cfg);
	for (vl = 0; vl < FABRIQ_NUM_VL; vl++) {
		u64 ppm;

		if (!(a->vl_present & BIT(vl)))
			continue;
		ppm = div64_u64(fq_rise(a->vl_wait[vl], b->vl_wait[vl]) * FQ_XMIT_WAIT_TICK_NS *
				1000000, dt);
		subj->vl = vl;
		fq_det_eval(&tm->det_vl[vl], FABRIQ_DET_VL_CONGESTION, subj,
			    ppm > cfg.threshold, ppm, a->t_ns);
	}
	subj->vl = -1;
}

static void fq_det_link(struct fq_tm_port *tm, const struct fq_tm_sample *a,
			const struct fq_tm_sample *b, struct fq_ev_subject *subj)
{
	bool downed = test_bit(FABRIQ_CTR_LINK_DOWNED, a->present) &&
		      fq_delta(a, b, FABRIQ_CTR_LINK_DOWNED);
	bool slow = a->max_rate_mbps && a->rate_mbps && a->rate_mbps < a->max_rate_mbps;

	fq_det_eval(&tm->det_port[FABRIQ_DET_LINK_DEGRADED], FABRIQ_DET_LINK_DEGRADED, subj,
		    downed || slow, a->rate_mbps, a->t_ns);
}

static void fq_det_ecn(struct fq_tm_port *tm, const struct fq_tm_sample *a,
		       const struct fq_tm_sample *b, struct fq_ev_subject *subj)
{
	u64 marks = 0, cnps = 0, ignored = 0;
	struct fq_det_config cfg;
	bool cond;

	if (test_bit(FABRIQ_CTR_ECN_MARKED, a->present))
		marks = fq_delta(a, b, FABRIQ_CTR_ECN_MARKED);
	if (test_bit(FABRIQ_CTR_CNP_SENT, a->present))
		cnps = fq_delta(a, b, FABRIQ_CTR_CNP_SENT);
	if (test_bit(FABRIQ_CTR_CNP_IGNORED, a->present))
		ignored = fq_delta(a, b, FABRIQ_CTR_CNP_IGNORED);
	fq_det_config_get(FABRIQ_DET_ECN_ANOMALY, &cfg);
	cond = (marks > cfg.threshold && !cnps && test_bit(FABRIQ_CTR_CNP_SENT, a->present)) ||
	       ignored > cfg.threshold;
	fq_det_eval(&tm->det_port[FABRIQ_DET_ECN_ANOMALY], FABRIQ_DET_ECN_ANOMALY, subj, cond,
		    ignored ? ignored : marks, a->t_ns);
}

static const u8 fq_error_ctrs[] = {
	FABRIQ_CTR_SYMBOL_ERRORS, FABRIQ_CTR_RX_ERRORS, FABRIQ_CTR_SEQ_ERR,
	FABRIQ_CTR_OUT_OF_SEQ, FABRIQ_CTR_TIMEOUTS, FABRIQ_CTR_OWN_ERRORS,
};

/* errors per million packets over the window; no packets but errors: 10^6 */
static void fq_det_errors(struct fq_tm_port *tm, struct fq_ev_subject *subj)
{
	const struct fq_tm_sample *a = fq_tm_newest(tm, 0), *b;
	struct fq_det_config cfg;
	u64 errs = 0, pkts = 0, ppm;
	int i;

	fq_det_config_get(FABRIQ_DET_ERROR_RATE, &cfg);
	b = fq_det_back(tm, cfg.window_ms);
	for (i = 0; i < ARRAY_SIZE(fq_error_ctrs); i++)
		if (test_bit(fq_error_ctrs[i], a->present))
			errs += fq_delta(a, b, fq_error_ctrs[i]);
	if (test_bit(FABRIQ_CTR_TX_PKTS, a->present))
		pkts += fq_delta(a, b, FABRIQ_CTR_TX_PKTS) + fq_delta(a, b, FABRIQ_CTR_RX_PKTS);
	else
		pkts += fq_delta(a, b, FABRIQ_CTR_OWN_TX_WRS) +
			fq_delta(a, b, FABRIQ_CTR_OWN_RX_WRS);
	ppm = !errs ? 0 : pkts ? div64_u64(errs * 1000000, pkts) : 1000000;
	/* the window applies to the counts: raise and clear on this sample */
	fq_det_step(&tm->det_port[FABRIQ_DET_ERROR_RATE], FABRIQ_DET_ERROR_RATE, subj,
		    ppm > cfg.threshold, ppm, a->t_ns, 0, &cfg);
}

static void fq_det_latency(struct fq_tm_port *tm, const struct fq_tm_sample *a,
			   const struct fq_tm_sample *b, struct fq_ev_subject *subj)
{
	struct fq_det_state *st = &tm->det_port[FABRIQ_DET_LATENCY];
	u64 n = fq_delta(a, b, FABRIQ_CTR_OWN_TX_WRS);
	struct fq_det_config cfg;
	u64 avg;

	if (!n)
		return;		/* no traffic: nothing measured, nothing changes */
	fq_det_config_get(FABRIQ_DET_LATENCY, &cfg);
	avg = div64_u64(fq_delta(a, b, FABRIQ_CTR_OWN_CQE_NS), n);
	fq_det_eval(st, FABRIQ_DET_LATENCY, subj, avg > cfg.threshold, avg, a->t_ns);
}

static void fq_det_bw(struct fq_tm_port *tm, const struct fq_tm_sample *a,
		      const struct fq_tm_sample *b, struct fq_ev_subject *subj)
{
	u64 dt = max_t(u64, a->t_ns - b->t_ns, 1);
	u64 bytes = fq_delta(a, b, FABRIQ_CTR_OWN_TX_BYTES);
	u64 bps, drop = 0;
	struct fq_det_config cfg;

	if (!bytes)
		return;		/* idle is not a drop */
	fq_det_config_get(FABRIQ_DET_BW_DROP, &cfg);
	bps = div64_u64(bytes * NSEC_PER_SEC, dt);
	if (tm->bw_baseline && bps < tm->bw_baseline)
		drop = div64_u64((tm->bw_baseline - bps) * 100, tm->bw_baseline);
	fq_det_eval(&tm->det_port[FABRIQ_DET_BW_DROP], FABRIQ_DET_BW_DROP, subj,
		    tm->bw_baseline && drop > cfg.threshold, drop, a->t_ns);
	/* the baseline follows slowly (1/16 per busy sample) */
	tm->bw_baseline = tm->bw_baseline ?
		tm->bw_baseline - (tm->bw_baseline >> 4) + (bps >> 4) : bps;
}

/**
 * fq_det_port() - run the port detectors on the two newest samples
 * @tm: the port's sampler
 * @subj: the port as a subject (dev and port set, the rest -1/none)
 *
 * Context: process context, tm->lock held.
 */
void fq_det_port(struct fq_tm_port *tm, const struct fq_ev_subject *subj)
{
	const struct fq_tm_sample *a = fq_tm_newest(tm, 0), *b = fq_tm_newest(tm, 1);
	struct fq_ev_subject sj = *subj;

	lockdep_assert_held(&tm->lock);
	if (!a || !b || a->t_ns <= b->t_ns)
		return;
	fq_det_link(tm, a, b, &sj);
	fq_det_pfc(tm, a, b, &sj);
	fq_det_vl(tm, a, b, &sj);
	fq_det_ecn(tm, a, b, &sj);
	fq_det_errors(tm, &sj);
	fq_det_latency(tm, a, b, &sj);
	fq_det_bw(tm, a, b, &sj);
}

static void fq_ev_show_one(struct seq_file *s, const struct fq_event *ev)
{
	const struct fq_ev_subject *sj = &ev->subj;

	seq_printf(s, "%llu.%03llu %-13s %-8s %-7s", ev->time_ns / NSEC_PER_SEC,
		   (ev->time_ns % NSEC_PER_SEC) / NSEC_PER_MSEC, fq_det_names[ev->det],
		   fq_sev_names[ev->sev], ev->cleared ? "cleared" : "raised");
	if (sj->port)
		seq_printf(s, " dev %s port %u", ev->dev_name, sj->port);
	if (sj->prio >= 0)
		seq_printf(s, " prio %d", sj->prio);
	if (sj->vl >= 0)
		seq_printf(s, " vl %d", sj->vl);
	if (sj->has_comm)
		seq_printf(s, " comm 0x%llx rank %u", sj->comm_id, sj->comm_rank);
	if (sj->peer_rank >= 0)
		seq_printf(s, " peer %d", sj->peer_rank);
	if (ev->peer_addr.ss_family)
		seq_printf(s, " (%pISc)", &ev->peer_addr);
	seq_printf(s, " value %llu threshold %llu window_ms %u\n", ev->value, ev->threshold,
		   ev->window_ms);
}

/**
 * fq_det_log_show() - the event log, oldest first
 * @s: the seq_file
 * @dev_index: only this device's events (U32_MAX: all)
 * @port: and only this port's
 *
 * Context: process context.
 */
void fq_det_log_show(struct seq_file *s, u32 dev_index, u32 port)
{
	struct fq_event *ev;
	u64 first, i;

	ev = kmalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return;
	seq_puts(s, "# time detector severity state subject value threshold window_ms\n");
	spin_lock_bh(&fq_ev_lock);
	first = fq_ev_next > FQ_EV_LOG ? fq_ev_next - FQ_EV_LOG : 0;
	for (i = first; i < fq_ev_next; i++) {
		*ev = fq_ev_log[i % FQ_EV_LOG];
		if (dev_index != U32_MAX &&
		    (ev->subj.dev_index != dev_index || ev->subj.port != port))
			continue;
		spin_unlock_bh(&fq_ev_lock);
		fq_ev_show_one(s, ev);
		spin_lock_bh(&fq_ev_lock);
		/*
		 * Entries written meanwhile may have overwritten the next one,
		 * i + 1: go on from the oldest still in the log (the loop's
		 * i++ reaches it).
		 */
		if (fq_ev_next - (i + 1) > FQ_EV_LOG)
			i = fq_ev_next - FQ_EV_LOG - 1;
	}
	spin_unlock_bh(&fq_ev_lock);
	seq_printf(s, "# suppressed %llu\n", fq_det_suppressed());
	kfree(ev);
}

/**
 * fq_det_init() - allocate the event log
 *
 * Context: module init.  Return: 0 or -ENOMEM.
 */
int fq_det_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(fq_det_names) != __FABRIQ_DET_MAX);
	fq_ev_log = kcalloc(FQ_EV_LOG, sizeof(*fq_ev_log), GFP_KERNEL);
	if (!fq_ev_log)
		return -ENOMEM;
	ratelimit_state_init(&fq_ev_rs, HZ, fq_ev_per_sec);
	ratelimit_set_flags(&fq_ev_rs, RATELIMIT_MSG_ON_RELEASE);
	return 0;
}

/**
 * fq_det_exit() - free the event log
 *
 * Context: module exit.
 */
void fq_det_exit(void)
{
	kfree(fq_ev_log);
}
