// SPDX-License-Identifier: GPL-2.0
/*
 * comm_stats_netlink.c - the communicators' part of FABRIQ_CMD_STATS_GET:
 * one message per communicator, with its operation timing (comm_stats.c)
 * and its peers; a communicator with more peers than fit in one message
 * continues in the next, which repeats COMM_ID and COMM_RANK.
 *
 * Telemetry owns the command and sends the ports first; coll adds this
 * part as a stats dump extension (struct fq_tm_stats_ext), registered
 * while /dev/fabriq exists (comm.c).  The cursor is the registration
 * serial and the next peer, so a communicator created or destroyed
 * between two parts of a dump neither repeats nor hides the others.
 */
#include <linux/build_bug.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "core/fabriq.h"
#include "comm.h"

static int fq_coll_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, FABRIQ_A_STATS_COLL_PAD);
}

static int fq_peer_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, FABRIQ_A_STATS_PEER_PAD);
}

static int fq_nl_put_coll(struct sk_buff *skb, const struct fq_op_times *st, u32 c)
{
	struct nlattr *nest = nla_nest_start(skb, FABRIQ_A_STATS_COLL);
	u64 p50, p99, p999;
	u32 lo = 0, hi = FABRIQ_HIST_BUCKETS - 1;

	/* only the buckets from the first to the last in use */
	while (lo < hi && !st->hist[c][lo])
		lo++;
	while (hi > lo && !st->hist[c][hi])
		hi--;
	fq_stats_hist_pct(st->hist[c], st->count[c], &p50, &p99, &p999);
	if (!nest || nla_put_u8(skb, FABRIQ_A_STATS_COLL_TYPE, c) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_COUNT, st->count[c]) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_SUM_NS, st->sum_ns[c]) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_MIN_NS, st->min_ns[c]) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_MAX_NS, st->max_ns[c]) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_P50_NS, p50) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_P99_NS, p99) ||
	    fq_coll_u64(skb, FABRIQ_A_STATS_COLL_P999_NS, p999) ||
	    nla_put_u8(skb, FABRIQ_A_STATS_COLL_BUCKET_FIRST, lo) ||
	    nla_put(skb, FABRIQ_A_STATS_COLL_BUCKETS, (hi - lo + 1) * sizeof(u64),
		    &st->hist[c][lo]))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int fq_nl_put_peer(struct sk_buff *skb, struct fq_comm *comm, struct fq_peer *p)
{
	struct nlattr *nest = nla_nest_start(skb, FABRIQ_A_STATS_PEER);
	u64 steps, wait, wait_max, wait_last;
	struct fq_qp_stats qs;
	u32 inflight;
	bool slow;

	if (!nest)
		return -EMSGSIZE;
	fq_stats_peer_qp(comm, p, &qs, &inflight);
	spin_lock_bh(&comm->stats_lock);
	steps = p->steps;
	wait = p->wait_ns;
	wait_max = p->wait_max_ns;
	wait_last = p->wait_last_ns;
	slow = p->slow.raised;
	spin_unlock_bh(&comm->stats_lock);
	if (nla_put_u32(skb, FABRIQ_A_STATS_PEER_RANK, p->rank) ||
	    fq_nl_put_addr(skb, FABRIQ_A_STATS_PEER_ADDR, &comm->addrs[p->rank]) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_TX_BYTES, qs.tx_bytes) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_RX_BYTES, qs.rx_bytes) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_TX_WRS, qs.tx_wrs) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_RX_WRS, qs.rx_wrs) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_ERRORS, qs.errors) ||
	    nla_put_u32(skb, FABRIQ_A_STATS_PEER_OUTSTANDING, inflight) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_STATS_PEER_CQE_AVG_NS,
			      qs.tx_wrs ? div64_u64(qs.cqe_ns, qs.tx_wrs) : 0,
			      FABRIQ_A_STATS_PEER_PAD) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_CQE_MAX_NS, qs.cqe_max_ns) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_STEPS, steps) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_WAIT_NS, wait) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_WAIT_MAX_NS, wait_max) ||
	    fq_peer_u64(skb, FABRIQ_A_STATS_PEER_WAIT_LAST_NS, wait_last) ||
	    (slow && nla_put_flag(skb, FABRIQ_A_STATS_PEER_SLOW))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* where the dump is: kept by telemetry in struct fq_tm_stats_ext_cursor */
struct fq_comm_stats_cursor {
	u64 serial;		/* next communicator */
	u32 peer;		/* next peer of the communicator at @serial */
};

struct fq_comm_stats_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct fq_comm_stats_cursor *cur;
	const struct fq_tm_stats_filter *f;
	struct fq_op_times *st;
};

/* One message of a communicator: the histograms with its first peers, or more peers. */
static int fq_comm_stats_fill(struct fq_comm_stats_dump *d, struct fq_comm *comm)
{
	struct sk_buff *skb = d->skb;
	bool first = d->cur->peer == 0, any = false;
	void *hdr;
	u32 c, r;

	hdr = fabriq_nl_put_hdr(skb, NETLINK_CB(d->cb->skb).portid, d->cb->nlh->nlmsg_seq,
				NLM_F_MULTI, FABRIQ_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, FABRIQ_A_STATS_COMM_ID, comm->id, FABRIQ_A_STATS_PAD) ||
	    nla_put_u32(skb, FABRIQ_A_STATS_COMM_RANK, comm->rank) ||
	    nla_put_u32(skb, FABRIQ_A_STATS_COMM_NRANKS, comm->nranks))
		goto err_cancel;
	if (first) {
		spin_lock_bh(&comm->stats_lock);
		*d->st = comm->stats.times;
		spin_unlock_bh(&comm->stats_lock);
		for (c = 0; c < __FABRIQ_COLL_MAX; c++)
			if (d->st->count[c] && fq_nl_put_coll(skb, d->st, c))
				goto err_cancel;
	}
	mutex_lock(&comm->setup_lock);
	for (r = d->cur->peer; r < comm->nranks; r++) {
		if (r == comm->rank)
			continue;
		if (fq_nl_put_peer(skb, comm, &comm->peers[r]))
			break;
		any = true;
	}
	mutex_unlock(&comm->setup_lock);
	if (r < comm->nranks && !any && !first)
		goto err_cancel;	/* not even one peer fits: try a fresh skb */
	d->cur->peer = r < comm->nranks ? r : 0;
	genlmsg_end(skb, hdr);
	return r < comm->nranks ? -EMSGSIZE : 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int fq_comm_stats_dump_one(struct fq_comm *comm, void *arg)
{
	struct fq_comm_stats_dump *d = arg;
	int err;

	if (comm->serial < d->cur->serial || (d->f->has_comm && comm->id != d->f->comm_id))
		return 0;
	if (comm->serial != d->cur->serial)
		d->cur->peer = 0;
	d->cur->serial = comm->serial;
	err = fq_comm_stats_fill(d, comm);
	if (err)
		return err;
	d->cur->serial = comm->serial + 1;
	return 0;
}

/* struct fq_tm_stats_ext.dump: every communicator from the cursor on */
static int fq_comm_stats_dump(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct fq_tm_stats_filter *f,
			      struct fq_tm_stats_ext_cursor *ext)
{
	struct fq_comm_stats_dump d = { .skb = skb, .cb = cb, .cur = (void *)ext, .f = f };
	int err;

	BUILD_BUG_ON(sizeof(*d.cur) > sizeof(*ext));
	d.st = kmalloc(sizeof(*d.st), GFP_KERNEL);
	if (!d.st)
		return -ENOMEM;
	err = fq_comm_for_each(fq_comm_stats_dump_one, &d);
	kfree(d.st);
	return err;
}

/* registered with telemetry by comm.c while /dev/fabriq exists */
const struct fq_tm_stats_ext fq_comm_stats_ext = {
	.dump = fq_comm_stats_dump,
};
