// SPDX-License-Identifier: GPL-2.0
/*
 * ctrl.c - the control connection to each peer, and what it tells: the
 * heartbeats, a peer's death, and who holds a stuck job up.
 *
 * Besides its data channels, every pair of ranks has one control
 * connection (cm.c makes it with the others, as FABRIQ_CM_CHAN_CONTROL,
 * with the same proof of the key).  It carries only heartbeats: struct
 * fabriq_status, where this rank is (the call it runs, its step, whom it
 * waits on and for how long).  A worker sends one to every peer every
 * fifth of the communicator's peer timeout, whatever the data
 * connections do, so:
 *  - a peer silent for four of those periods is dead, so it is found
 *    at most the peer timeout after its last heartbeat; and so is one
 *    that a connection's retries could not reach (cm.c): the communicator
 *    fails with -EHOSTDOWN, and its calls with it, instead of waiting out
 *    the op timeout.  The next heartbeats (sent at once) name the dead
 *    rank, so the other ranks fail the same way and know why, before the
 *    data connections this rank then closes could fail them otherwise;
 *  - every rank knows where every other one is, and fq_ctrl_view()
 *    follows the waits from rank to rank to the one that holds the others
 *    up (the rank-status attribute set in uapi/linux/fabriq.h says how);
 *  - every rank knows what every other finds of its links: each period
 *    the worker judges this rank's links and runs the link-latency
 *    detector on the whole job's reports (link.c).
 * One heartbeat at a time is in flight on a connection, and a receive
 * slot is reposted as soon as its heartbeat is read, so the FQ_CTRL_SLOTS
 * slots never run out and the connection needs no credits.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "comm.h"

static_assert(sizeof(struct fabriq_status) <= FQ_CTRL_SLOT_BYTES);

/* ---- a peer's death ---- */

/*
 * @peer is dead: say so once, and fail the communicator.  @why: how it
 * was found.  Context: any.
 */
static void fq_ctrl_peer_dead(struct fq_comm *comm, struct fq_peer *peer, const char *why)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&comm->lock, flags);
	first = !peer->dead;
	peer->dead = true;
	if (comm->dead_rank == FABRIQ_STATUS_NO_RANK)
		comm->dead_rank = peer->rank;
	spin_unlock_irqrestore(&comm->lock, flags);
	if (!first)
		return;
	pr_warn("communicator %llx rank %u: rank %u (%pISc) is dead: %s\n", comm->id, comm->rank,
		peer->rank, &comm->addrs[peer->rank], why);
	fq_comm_fail(comm, -EHOSTDOWN);
	/* tell the others now */
	if (READ_ONCE(comm->hb_on))
		mod_delayed_work(system_highpri_wq, &comm->hb_work, 0);
}

/**
 * fq_ctrl_peer_unreachable() - a connection to @peer ran out of retries
 * @comm: the communicator
 * @peer: the peer its host did not answer for
 *
 * Context: any (completions).
 */
void fq_ctrl_peer_unreachable(struct fq_comm *comm, struct fq_peer *peer)
{
	fq_ctrl_peer_dead(comm, peer, "its connection ran out of retries");
}

/* ---- completions (softirq) ---- */

/* Is @r, named in @peer's heartbeat, a rank of @comm other than @peer (or none)? */
static bool fq_ctrl_rank_ok(const struct fq_comm *comm, const struct fq_peer *peer, u32 r)
{
	return r == FABRIQ_STATUS_NO_RANK || (r < comm->nranks && r != peer->rank);
}

/*
 * What is wrong with @m, @len bytes from @peer, as @rs read it, written
 * to @why; false when nothing is.  A peer proved the key, but what it
 * says is checked all the same.
 */
static bool fq_ctrl_malformed(const struct fq_comm *comm, const struct fq_peer *peer,
			      const struct fabriq_status *m, u32 len,
			      const struct fq_rank_status *rs, char *why, size_t size)
{
	if (len != sizeof(*m))
		snprintf(why, size, "%u bytes, not %zu", len, sizeof(*m));
	else if (be32_to_cpu(m->magic) != FABRIQ_STATUS_MAGIC)
		snprintf(why, size, "magic %#x, not %#x", be32_to_cpu(m->magic),
			 FABRIQ_STATUS_MAGIC);
	else if (be32_to_cpu(m->rank) != peer->rank)
		snprintf(why, size, "it says it is rank %u", be32_to_cpu(m->rank));
	else if (!fq_ctrl_rank_ok(comm, peer, rs->wait_rank))
		snprintf(why, size, "wait_rank %u (%u ranks)", rs->wait_rank, comm->nranks);
	else if (!fq_ctrl_rank_ok(comm, peer, rs->dead_rank))
		snprintf(why, size, "dead_rank %u (%u ranks)", rs->dead_rank, comm->nranks);
	else if (!fq_ctrl_rank_ok(comm, peer, rs->links.worst) || rs->links.slow >= comm->nranks ||
		 !rs->links.slow != (rs->links.worst == FABRIQ_STATUS_NO_RANK))
		snprintf(why, size, "slow_rank %u, slow_links %u (%u ranks)", rs->links.worst,
			 rs->links.slow, comm->nranks);
	else
		return false;
	return true;
}

static void fq_ctrl_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fq_rx_ctx *rx = container_of(wc->wr_cqe, struct fq_rx_ctx, cqe);
	struct fq_conn *conn = rx->conn;
	struct fq_comm *comm = conn->comm;
	struct fq_peer *peer = conn->peer;
	const struct fabriq_status *m = conn->rx_buf[rx->slot];
	struct fq_rank_status rs;
	char why[48];

	if (wc->status != IB_WC_SUCCESS)
		return fq_cm_wc_error(conn, wc, "heartbeat receive");
	ib_dma_sync_single_for_cpu(comm->ibdev, conn->rx_dma[rx->slot], sizeof(*m),
				   DMA_FROM_DEVICE);
	rs = (struct fq_rank_status){
		.running = be32_to_cpu(m->flags) & FABRIQ_STATUS_F_RUNNING,
		.op_seq = be64_to_cpu(m->op_seq),
		.ops_done = be64_to_cpu(m->ops_done),
		.step = be32_to_cpu(m->step),
		.wait_rank = be32_to_cpu(m->wait_rank),
		.wait_ns = be64_to_cpu(m->wait_ns),
		.dead_rank = be32_to_cpu(m->dead_rank),
		.links = {
			.slow = be16_to_cpu(m->slow_links),
			.worst = be32_to_cpu(m->slow_rank),
			.ratio = be16_to_cpu(m->slow_ratio),
		},
	};
	if (fq_ctrl_malformed(comm, peer, m, wc->byte_len, &rs, why, sizeof(why))) {
		/* each one logs, rate-limited: the first fails the communicator */
		pr_warn_ratelimited("communicator %llx rank %u: rank %u (%pISc) sent a malformed heartbeat: %s\n",
				    comm->id, comm->rank, peer->rank, &comm->addrs[peer->rank],
				    why);
		fq_comm_fail(comm, -EPROTO);
		return;
	}
	fq_cm_peer_sent(conn);
	spin_lock(&comm->lock);
	peer->rs = rs;
	peer->heard = jiffies | 1;
	spin_unlock(&comm->lock);
	ib_dma_sync_single_for_device(comm->ibdev, conn->rx_dma[rx->slot], sizeof(*m),
				      DMA_FROM_DEVICE);
	if (fq_cm_post_recv(conn, rx->slot))
		fq_comm_fail(comm, -EIO);
	/* it found a rank dead: so is this communicator (this rank's own death aside) */
	if (rs.dead_rank != FABRIQ_STATUS_NO_RANK && rs.dead_rank != comm->rank) {
		snprintf(why, sizeof(why), "rank %u found it dead", peer->rank);
		fq_ctrl_peer_dead(comm, &comm->peers[rs.dead_rank], why);
	}
}

static void fq_ctrl_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fq_tx_ent *ent = container_of(wc->wr_cqe, struct fq_tx_ent, cqe);
	struct fq_conn *conn = ent->conn;
	struct fq_comm *comm = conn->comm;

	spin_lock(&comm->lock);
	conn->hb_busy = false;
	spin_unlock(&comm->lock);
	if (wc->status != IB_WC_SUCCESS)
		fq_cm_wc_error(conn, wc, "heartbeat");
}

/**
 * fq_ctrl_conn_init() - the control connection's completions
 * @conn: a control connection whose slots cm.c set up
 *
 * Context: process, setup_lock held.
 */
void fq_ctrl_conn_init(struct fq_conn *conn)
{
	u32 i;

	for (i = 0; i < FQ_CTRL_SLOTS; i++)
		conn->rx_ctx[i].cqe.done = fq_ctrl_rx_done;
	conn->tx_ent[0].cqe.done = fq_ctrl_tx_done;
}

/**
 * fq_ctrl_conn_up() - @conn is established: a control connection's
 * setup is the peer's first sign of life
 * @conn: any connection
 *
 * Context: process (rdma_cm handler).
 */
void fq_ctrl_conn_up(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;

	if (!conn->control)
		return;
	spin_lock_bh(&comm->lock);
	conn->peer->heard = jiffies | 1;
	spin_unlock_bh(&comm->lock);
}

/* ---- the heartbeats ---- */

/* Where this rank's engine is now. */
static void fq_ctrl_self(struct fq_comm *comm, struct fq_rank_status *rs)
{
	u64 since, now = ktime_get_ns();
	u32 wait_rank;

	rs->running = READ_ONCE(comm->run.running);
	rs->op_seq = READ_ONCE(comm->run.op_seq);
	rs->ops_done = atomic64_read(&comm->ops_done);
	fq_run_where(comm, &rs->step, &wait_rank, &since);
	rs->wait_rank = rs->running ? wait_rank : FABRIQ_STATUS_NO_RANK;
	rs->wait_ns = rs->wait_rank != FABRIQ_STATUS_NO_RANK && now > since ? now - since : 0;
	spin_lock_bh(&comm->lock);
	rs->dead_rank = comm->dead_rank;
	rs->links = comm->links;
	spin_unlock_bh(&comm->lock);
}

/* ---- the fault knob (debugfs fault_heartbeat) ---- */

const char *const fq_hb_fault_names[FQ_HB_FAULT_COUNT] = {
	[FQ_HB_FAULT_NONE] = "none",
	[FQ_HB_FAULT_SHORT] = "short",
	[FQ_HB_FAULT_MAGIC] = "magic",
	[FQ_HB_FAULT_RANK] = "rank",
	[FQ_HB_FAULT_WAIT_RANK] = "wait_rank",
	[FQ_HB_FAULT_DEAD_RANK] = "dead_rank",
	[FQ_HB_FAULT_SLOW_RANK] = "slow_rank",
};

/* Break @m, about to go to @peer, as the knob says, once. */
static void fq_ctrl_fault(struct fq_comm *comm, struct fq_peer *peer, struct fabriq_status *m,
			  u32 *len)
{
	switch (xchg(&comm->fault_heartbeat, FQ_HB_FAULT_NONE)) {
	case FQ_HB_FAULT_SHORT:
		*len = offsetof(struct fabriq_status, wait_ns);
		break;
	case FQ_HB_FAULT_MAGIC:
		m->magic = cpu_to_be32(~FABRIQ_STATUS_MAGIC);
		break;
	case FQ_HB_FAULT_RANK:
		m->rank = cpu_to_be32(peer->rank);
		break;
	case FQ_HB_FAULT_WAIT_RANK:
		m->wait_rank = cpu_to_be32(comm->nranks);
		break;
	case FQ_HB_FAULT_DEAD_RANK:
		m->dead_rank = cpu_to_be32(comm->rank);
		break;
	case FQ_HB_FAULT_SLOW_RANK:
		m->slow_rank = cpu_to_be32(comm->rank);
		m->slow_links = cpu_to_be16(1);
		break;
	}
}

/*
 * Send @me to @peer, unless its last heartbeat is still in flight, the
 * connection is not (or no longer) up, or the peer is dead.  Context: the worker; hw_rwsem
 * held for reading.  Return: 0 or -errno.
 */
static int fq_ctrl_send(struct fq_comm *comm, struct fq_peer *peer, const struct fq_rank_status *me)
{
	struct fq_conn *conn = peer->ctrl;
	struct fabriq_status *m = conn->tx_buf[0];
	struct ib_sge sge = {
		.addr = conn->tx_dma[0],
		.length = sizeof(*m),
		.lkey = comm->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &conn->tx_ent[0].cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	u64 beat;
	int err;

	/* held until posted: fq_conn_release() frees the QP and tx_buf */
	mutex_lock(&comm->hb_lock);
	spin_lock_bh(&comm->lock);
	if (conn->hb_busy || conn->hb_stopped || !conn->established || !conn->has_qp ||
	    conn->peer_closed || peer->dead) {
		spin_unlock_bh(&comm->lock);
		mutex_unlock(&comm->hb_lock);
		return 0;
	}
	conn->hb_busy = true;
	beat = ++peer->beats_tx;
	spin_unlock_bh(&comm->lock);
	*m = (struct fabriq_status){
		.magic = cpu_to_be32(FABRIQ_STATUS_MAGIC),
		.rank = cpu_to_be32(comm->rank),
		.beat = cpu_to_be64(beat),
		.flags = cpu_to_be32(me->running ? FABRIQ_STATUS_F_RUNNING : 0),
		.step = cpu_to_be32(me->step),
		.op_seq = cpu_to_be64(me->op_seq),
		.ops_done = cpu_to_be64(me->ops_done),
		.wait_rank = cpu_to_be32(me->wait_rank),
		.dead_rank = cpu_to_be32(me->dead_rank),
		.wait_ns = cpu_to_be64(me->wait_ns),
		.slow_rank = cpu_to_be32(me->links.worst),
		.slow_ratio = cpu_to_be16(min_t(u32, me->links.ratio, U16_MAX)),
		.slow_links = cpu_to_be16(min_t(u32, me->links.slow, U16_MAX)),
	};
	fq_ctrl_fault(comm, peer, m, &sge.length);
	ib_dma_sync_single_for_device(comm->ibdev, conn->tx_dma[0], sizeof(*m), DMA_TO_DEVICE);
	err = ib_post_send(conn->id->qp, &wr, NULL);
	if (err) {
		spin_lock_bh(&comm->lock);
		conn->hb_busy = false;
		spin_unlock_bh(&comm->lock);
	}
	mutex_unlock(&comm->hb_lock);
	return err;
}

/*
 * Has @peer been silent for @silence jiffies since its last sign of life
 * (its control connection's setup, or a heartbeat)?  One that closed its
 * communicator is gone, not dead; one whose control connection is not up
 * yet has given none.
 */
static bool fq_ctrl_silent(struct fq_comm *comm, struct fq_peer *peer, unsigned long silence)
{
	bool silent;

	spin_lock_bh(&comm->lock);
	silent = !peer->dead && peer->heard && !peer->ctrl->peer_closed &&
		 time_after(jiffies, peer->heard + silence);
	spin_unlock_bh(&comm->lock);
	return silent;
}

static void fq_ctrl_work(struct work_struct *work)
{
	struct fq_comm *comm = container_of(to_delayed_work(work), struct fq_comm, hb_work);
	/*
	 * A heartbeat every fifth of the timeout; silence for four fifths
	 * makes a peer dead, judged as often: it is found at most a timeout
	 * after its last heartbeat.
	 */
	unsigned long timeout = msecs_to_jiffies(comm->peer_timeout_ms);
	unsigned long period = max(timeout / 5, 1UL);
	struct fq_rank_status me;
	char why[48];
	u32 r;
	int err = 0;

	/* teardown holds it for writing: it stops this work next */
	if (!down_read_trylock(&comm->hw_rwsem))
		goto again;
	if (comm->hw_gone) {
		up_read(&comm->hw_rwsem);
		return;
	}
	fq_link_period(comm);
	fq_ctrl_self(comm, &me);
	snprintf(why, sizeof(why), "silent for %u ms",
		 jiffies_to_msecs(timeout - period));
	for (r = 0; r < comm->nranks; r++) {
		if (r == comm->rank)
			continue;
		if (fq_ctrl_silent(comm, &comm->peers[r], timeout - period))
			fq_ctrl_peer_dead(comm, &comm->peers[r], why);
		else
			err = err ?: fq_ctrl_send(comm, &comm->peers[r], &me);
	}
	up_read(&comm->hw_rwsem);
	if (err)
		fq_comm_fail(comm, err);
	fq_link_detect(comm);
again:
	if (READ_ONCE(comm->hb_on))
		queue_delayed_work(system_highpri_wq, &comm->hb_work, period);
}

/**
 * fq_ctrl_init() - set up the heartbeats' worker (not started)
 * @comm: a new communicator
 */
void fq_ctrl_init(struct fq_comm *comm)
{
	INIT_DELAYED_WORK(&comm->hb_work, fq_ctrl_work);
	comm->dead_rank = FABRIQ_STATUS_NO_RANK;
	comm->links.worst = FABRIQ_STATUS_NO_RANK;
}

/**
 * fq_ctrl_start() - send heartbeats, and judge the peers' silence, from
 * now until fq_ctrl_stop()
 * @comm: a communicator whose verbs resources are allocated
 *
 * Context: process (COMM_INIT).
 */
void fq_ctrl_start(struct fq_comm *comm)
{
	WRITE_ONCE(comm->hb_on, true);
	queue_delayed_work(system_highpri_wq, &comm->hb_work, 0);
}

/**
 * fq_ctrl_stop() - no more heartbeats; idempotent
 * @comm: the communicator
 *
 * Context: process; not with hw_rwsem held.
 */
void fq_ctrl_stop(struct fq_comm *comm)
{
	WRITE_ONCE(comm->hb_on, false);
	cancel_delayed_work_sync(&comm->hb_work);
}

/* ---- who holds the job up ---- */

/* whom rank @r waits on, as far as this host knows (NO_RANK: nobody) */
static u32 fq_ctrl_waits_on(const struct fq_rank_view *v, u32 n, u32 r)
{
	const struct fq_rank_view *x = &v[r];

	if ((x->state != FABRIQ_RANK_SELF && x->state != FABRIQ_RANK_ALIVE) || !x->rs.running ||
	    x->rs.wait_rank >= n)
		return FABRIQ_STATUS_NO_RANK;
	return x->rs.wait_rank;
}

/* Is @w, of a round of waits, more its origin than @best: the link suspect, else longer waiting? */
static bool fq_ctrl_more_origin(const struct fq_rank_view *v, u32 w, u32 best)
{
	if (v[w].link_suspect != v[best].link_suspect)
		return v[w].link_suspect;
	return v[w].rs.wait_ns > v[best].rs.wait_ns;
}

/*
 * Where the waits that start at @r end: a rank that waits on nobody, or,
 * when they go round, the one of the round whose links are slow (the
 * link suspect), else the one that has waited longest.
 */
static u32 fq_ctrl_origin(const struct fq_rank_view *v, u32 n, u32 r)
{
	u32 i, w, best;

	for (i = 0; i < n; i++) {
		w = fq_ctrl_waits_on(v, n, r);
		if (w == FABRIQ_STATUS_NO_RANK)
			return r;
		r = w;
	}
	/* n steps and still waiting: @r is on a round; walk it once */
	best = r;
	for (w = fq_ctrl_waits_on(v, n, r); w != r; w = fq_ctrl_waits_on(v, n, w))
		if (fq_ctrl_more_origin(v, w, best))
			best = w;
	return best;
}

static void fq_ctrl_blame(struct fq_rank_view *v, u32 n)
{
	u32 r, w, o;

	fq_link_blame(v, n);
	for (r = 0; r < n; r++) {
		w = fq_ctrl_waits_on(v, n, r);
		if (w == FABRIQ_STATUS_NO_RANK)
			continue;
		if (fq_ctrl_waits_on(v, n, w) != FABRIQ_STATUS_NO_RANK)
			v[r].inherited_ns = min(v[r].rs.wait_ns, v[w].rs.wait_ns);
		o = fq_ctrl_origin(v, n, r);
		v[o].origin = true;
		v[o].blocks++;
	}
}

/**
 * fq_ctrl_view() - every rank of @comm as this host sees it, and whom
 * each holds up
 * @comm: the communicator
 *
 * A peer's wait is what its last heartbeat said, plus the time since,
 * while it is alive and was waiting.
 * Context: process.  Return: nranks entries (kvfree() them), or NULL.
 */
struct fq_rank_view *fq_ctrl_view(struct fq_comm *comm)
{
	struct fq_rank_view *v = kvcalloc(comm->nranks, sizeof(*v), GFP_KERNEL);
	unsigned long now = jiffies;
	struct fq_peer *peer;
	u32 r;

	if (!v)
		return NULL;
	for (r = 0; r < comm->nranks; r++) {
		if (r == comm->rank) {
			fq_ctrl_self(comm, &v[r].rs);
			v[r].state = FABRIQ_RANK_SELF;
			continue;
		}
		peer = &comm->peers[r];
		spin_lock_bh(&comm->lock);
		v[r].rs = peer->rs;
		v[r].state = peer->dead ? FABRIQ_RANK_DEAD :
			     peer->ctrl->peer_closed ? FABRIQ_RANK_CLOSED :
			     peer->heard ? FABRIQ_RANK_ALIVE : FABRIQ_RANK_UNKNOWN;
		v[r].heard_ms = peer->heard ? jiffies_to_msecs(now - peer->heard) : 0;
		spin_unlock_bh(&comm->lock);
		if (v[r].state == FABRIQ_RANK_ALIVE && v[r].rs.running &&
		    v[r].rs.wait_rank != FABRIQ_STATUS_NO_RANK)
			v[r].rs.wait_ns += (u64)v[r].heard_ms * NSEC_PER_MSEC;
	}
	fq_ctrl_blame(v, comm->nranks);
	return v;
}

/**
 * fq_ctrl_nl_put() - one rank's view as a nest of set "rank-status"
 * @skb: the message
 * @type: the nest's attribute
 * @v: the rank's view
 *
 * Return: 0 or -EMSGSIZE (nothing added).
 */
int fq_ctrl_nl_put(struct sk_buff *skb, int type, const struct fq_rank_view *v)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	bool heard = v->state == FABRIQ_RANK_ALIVE || v->state == FABRIQ_RANK_DEAD ||
		     v->state == FABRIQ_RANK_CLOSED;

	if (!nest ||
	    nla_put_u8(skb, FABRIQ_A_RSTAT_STATE, v->state) ||
	    (heard && nla_put_u32(skb, FABRIQ_A_RSTAT_HEARD_MS, v->heard_ms)) ||
	    nla_put_u8(skb, FABRIQ_A_RSTAT_RUNNING, v->rs.running) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_RSTAT_OP_SEQ, v->rs.op_seq, FABRIQ_A_RSTAT_PAD) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_RSTAT_OPS_DONE, v->rs.ops_done, FABRIQ_A_RSTAT_PAD) ||
	    nla_put_u32(skb, FABRIQ_A_RSTAT_STEP, v->rs.step) ||
	    (v->rs.wait_rank != FABRIQ_STATUS_NO_RANK &&
	     nla_put_u32(skb, FABRIQ_A_RSTAT_WAIT_RANK, v->rs.wait_rank)) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_RSTAT_WAIT_NS, v->rs.wait_ns, FABRIQ_A_RSTAT_PAD) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_RSTAT_INHERITED_NS, v->inherited_ns,
			      FABRIQ_A_RSTAT_PAD) ||
	    nla_put_u8(skb, FABRIQ_A_RSTAT_ORIGIN, v->origin) ||
	    nla_put_u32(skb, FABRIQ_A_RSTAT_BLOCKS, v->blocks) ||
	    nla_put_u32(skb, FABRIQ_A_RSTAT_SLOW_LINKS, v->rs.links.slow) ||
	    (v->rs.links.worst != FABRIQ_STATUS_NO_RANK &&
	     (nla_put_u32(skb, FABRIQ_A_RSTAT_SLOW_RANK, v->rs.links.worst) ||
	      nla_put_u32(skb, FABRIQ_A_RSTAT_SLOW_RATIO, v->rs.links.ratio))) ||
	    nla_put_u32(skb, FABRIQ_A_RSTAT_LINK_BLAME, v->link_blame) ||
	    nla_put_u8(skb, FABRIQ_A_RSTAT_LINK_SUSPECT, v->link_suspect)) {
		if (nest)
			nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static const char * const fq_rank_state_names[] = FABRIQ_RANK_STATE_NAMES;

/**
 * fq_ctrl_show() - debugfs comms/<id>/status: every rank, as
 * fq_ctrl_view() sees it
 * @s: the file
 * @comm: the communicator
 */
void fq_ctrl_show(struct seq_file *s, struct fq_comm *comm)
{
	struct fq_rank_view *v = fq_ctrl_view(comm);
	u32 r;

	if (!v) {
		seq_puts(s, "# out of memory\n");
		return;
	}
	seq_printf(s, "# peer_timeout_ms %u\n", comm->peer_timeout_ms);
	seq_puts(s, "# rank state heard_ms running op_seq ops_done step waits_on wait_us inherited_us origin blocks\n");
	for (r = 0; r < comm->nranks; r++) {
		seq_printf(s, "%u %s ", r, fq_rank_state_names[v[r].state]);
		if (v[r].state == FABRIQ_RANK_SELF || v[r].state == FABRIQ_RANK_UNKNOWN)
			seq_puts(s, "- ");
		else
			seq_printf(s, "%u ", v[r].heard_ms);
		seq_printf(s, "%u %llu %llu %u ", v[r].rs.running, v[r].rs.op_seq, v[r].rs.ops_done,
			   v[r].rs.step);
		if (v[r].rs.wait_rank == FABRIQ_STATUS_NO_RANK)
			seq_puts(s, "- ");
		else
			seq_printf(s, "%u ", v[r].rs.wait_rank);
		seq_printf(s, "%llu %llu %u %u\n", v[r].rs.wait_ns / NSEC_PER_USEC,
			   v[r].inherited_ns / NSEC_PER_USEC, v[r].origin, v[r].blocks);
	}
	kvfree(v);
}
