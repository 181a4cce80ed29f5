// SPDX-License-Identifier: GPL-2.0
/*
 * cm.c - a communicator's RC connections and the message transport on them.
 *
 * Connections: rank r listens on addrs[r] port base_port + r and connects
 * to every lower rank, once per channel, with the in-kernel rdma_cm in
 * RDMA_PS_TCP; the connect carries {comm id, rank, nranks, channel} as
 * private data, which the listener checks.  So who listens and who
 * connects follows from the ranks, and a rank that starts late is simply
 * retried until the connect timeout.
 *
 * Transport: every message is a SEND with immediate data into one of the
 * receiver's pre-posted slots (chunk bytes each).  The sender posts it
 * straight from the caller's (pinned) pages, each page mapped for the
 * send and unmapped at its completion, when the device takes enough SGEs;
 * else (or with FABRIQ_COMM_F_BOUNCE) it copies into a send slot.  The
 * engine builds the messages of a pass (fq_cm_send) and posts them as one
 * chain per connection (fq_cm_post), signaling only the chain's last send
 * and every FQ_SIGNAL_EVERY-th: one completion retires the sends before
 * it, which the RC send queue completed first.  A sender needs a credit
 * per data message; the receiver returns credits in the immediate data of
 * its own messages, or in an empty credit-only message once
 * FQ_CREDIT_BATCH have piled up.  The receiver posts FQ_CREDITS slots for
 * data plus one per credit-only message that can be in flight, so a
 * message never meets an empty receive queue (no RNR waits).
 *
 * Each pair of ranks also has a control connection, made and torn down
 * with the data channels but carrying only heartbeats (ctrl.c).
 *
 * Teardown (fd closed, device removed, init failed) runs once, with
 * hw_rwsem held for writing: it waits out the engine and COMM_INIT, which
 * use the verbs resources only with hw_rwsem held for reading.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "qos/qos.h"
#include "comm.h"

#define FQ_RESOLVE_MS		2000
/* should a receive ever be missing, retry after 0.16 ms, not rdma_cm's 655 ms */
#define FQ_MIN_RNR_TIMER	IB_RNR_TIMER_000_16
#define FQ_RETRY_MS		100

static_assert(sizeof(struct fabriq_cm_req) <= 56);

/*
 * Something happened: bump @events, one of the counters whose sum the
 * engine's waits watch (fq_chans_events()).  Ordered
 * before what the caller reads next: the engine stores tx_wake before
 * its wait's barrier and reads the counters after it (fq_cm_tx_wake()),
 * so either it sees this bump or the caller sees its tx_wake.
 */
static void fq_cm_progress(atomic64_t *events)
{
	atomic64_inc(events);
	smp_mb__after_atomic();	/* the bump before the caller's read of tx_wake */
}

/* a connection event (not a completion): wake every waiter */
static void fq_cm_event(struct fq_comm *comm)
{
	fq_cm_progress(&comm->events);
	fq_comm_wake_all(comm);
}

/*
 * Something happened on @conn: wake whoever runs its channel, and whoever
 * waits on the whole communicator (a quiesce, a failed call waiting for
 * its sends' flush), if anyone does.  The caller bumped a counter first
 * (fq_cm_progress(), a full barrier), as wq_has_sleeper() wants.
 */
static void fq_conn_wake(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;

	wake_up_all(conn->wq);
	if (conn->wq != &comm->wq && wq_has_sleeper(&comm->wq))
		wake_up_all(&comm->wq);
}

/* Does whoever runs @conn's channel want its send completions now (fq_cm_tx_wake())? */
static bool fq_conn_tx_wake(const struct fq_conn *conn)
{
	return !conn->control && READ_ONCE(conn->comm->chans[conn->chan].tx_wake);
}

/* ---- completions (softirq) ---- */

/**
 * fq_cm_post_recv() - (re)post receive slot @slot of @conn
 * @conn: a connection
 * @slot: its slot
 *
 * Context: any; the QP exists.  Return: 0 or -errno.
 */
int fq_cm_post_recv(struct fq_conn *conn, u32 slot)
{
	struct ib_sge sge = {
		.addr = conn->rx_dma[slot],
		.length = fq_conn_slot_bytes(conn),
		.lkey = conn->comm->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &conn->rx_ctx[slot].cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(conn->id->qp, &wr, NULL);
}

/* fabriq's own traffic on the port (telemetry), when the port is known */
static void fq_own_add(struct fq_comm *comm, enum fq_own_ctr c, u64 v)
{
	if (comm->own)
		atomic64_add(v, &comm->own[c]);
}

/*
 * A flush on @conn: its QP is in the error state.  fabriq's own teardown
 * flushes it (the communicator has failed or closed by then), and so does
 * the peer's disconnect (rdma_cm moves the QP to error on a DREQ; its
 * event follows).  A QP can also fail by itself with nothing but flushes:
 * 6.12's rxe does when the netdev's queueing refuses a packet it sends (a
 * qdisc full, or being replaced), flushing even the send that failed
 * (6.1's retries it); and rxe's responder does, with no completion of its
 * own, when a duplicate RDMA READ it replays meets an MR invalidated since
 * (6.1 rxe_resp.c, read_reply()): a retried read request that the
 * reader's FIN overtook (veth delivers into the sending CPU's backlog)
 * would.  Then the connection carries nothing more, as if the peer had
 * closed it: it fails whoever still needs it (fq_cm_closed()) instead of
 * leaving them to the op timeout.
 */
static void fq_cm_flushed(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;
	bool by_itself;

	spin_lock_bh(conn->lock);
	by_itself = conn->established && !conn->peer_closed && !READ_ONCE(comm->err);
	if (by_itself)
		WRITE_ONCE(conn->peer_closed, jiffies | 1);
	spin_unlock_bh(conn->lock);
	if (!by_itself)
		return;
	fq_cm_progress(conn->events);
	pr_warn_ratelimited("communicator %llx rank %u: the QP of channel %u to rank %u (%pISc) went to error with only flushes; it is closed\n",
			    comm->id, comm->rank, conn->chan, conn->peer->rank,
			    &comm->addrs[conn->peer->rank]);
	fq_comm_wake_all(comm);
}

/**
 * fq_cm_wc_error() - a completion on @conn failed
 * @conn: the connection
 * @wc: the completion
 * @what: what it was, for the debug log
 *
 * A flush closes the connection unless the peer or this rank closed it
 * already (fq_cm_flushed()).  Retries exhausted mean the peer's host is
 * gone or cut off: it is dead (-EHOSTDOWN).  Anything else fails with
 * -EIO.
 * Context: softirq (completions).
 */
void fq_cm_wc_error(struct fq_conn *conn, struct ib_wc *wc, const char *what)
{
	struct fq_comm *comm = conn->comm;

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return fq_cm_flushed(conn);
	pr_debug("comm %llx: %s completion: %s\n", comm->id, what, ib_wc_status_msg(wc->status));
	if (wc->status == IB_WC_RETRY_EXC_ERR || wc->status == IB_WC_RNR_RETRY_EXC_ERR) {
		fq_ctrl_peer_unreachable(comm, conn->peer);
		return;
	}
	pr_warn_ratelimited("communicator %llx rank %u: a %s on the connection to rank %u failed: %s\n",
			    comm->id, comm->rank, what, conn->peer->rank,
			    ib_wc_status_msg(wc->status));
	fq_comm_fail(comm, -EIO);
}

/*
 * The control connection has no channel (its chan is nch, which may be
 * FABRIQ_MAX_CHANNELS) and owes no FINs: it carries no read request.
 * Context: @conn's lock held.
 */
static void fq_fin_add(struct fq_conn *conn, s32 n)
{
	lockdep_assert_held(conn->lock);
	if (conn->control)
		return;
	WRITE_ONCE(conn->fin_pending, conn->fin_pending + n);
	atomic_add(n, &conn->comm->chans[conn->chan].fins);
}

/*
 * The work fq_cm_peer_sent() queues: rdma_notify() takes the CM's locks,
 * which must not be taken from a completion's softirq (ib_cm takes them
 * with softirqs on), so it runs here.  fq_conn_release() cancels it after
 * the QP drained, before the id goes.
 */
static void fq_cm_est_work(struct work_struct *work)
{
	struct fq_conn *conn = container_of(work, struct fq_conn, est_work);

	if (!READ_ONCE(conn->established))
		rdma_notify(conn->id, IB_EVENT_COMM_EST);
}

/**
 * fq_cm_conn_init() - set up what a new connection slot keeps for life
 * @conn: a zeroed connection
 */
void fq_cm_conn_init(struct fq_conn *conn)
{
	INIT_WORK(&conn->est_work, fq_cm_est_work);
}

/**
 * fq_cm_peer_sent() - a message came in on @conn: the peer's QP sends
 * @conn: a connection with a QP
 *
 * So the peer had this rank's accept and answered it, even if its
 * ready-to-use, the handshake's last packet, was lost: the CM sends it
 * once, and another comes only when the accept is sent again, 4 s later
 * (CMA_CM_RESPONSE_TIMEOUT).  Meanwhile the peer, up since it sent it,
 * counts this rank's heartbeats (ctrl.c), which wait for the connection
 * to be up, and finds this rank dead.  The first message tells rdma_cm the
 * connection is up: the communication-established event, which a real HCA
 * raises on that same first receive and rxe never does.  Once the CM has
 * it, further notifications return an error, harmlessly.
 *
 * Context: any (a completion, in softirq): the notification is queued.
 */
void fq_cm_peer_sent(struct fq_conn *conn)
{
	if (!READ_ONCE(conn->established))
		queue_work(system_wq, &conn->est_work);
}

static void fq_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fq_rx_ctx *rx = container_of(wc->wr_cqe, struct fq_rx_ctx, cqe);
	struct fq_conn *conn = rx->conn;
	struct fq_comm *comm = conn->comm;
	bool wake, bad, written, cts;
	u32 imm, fin;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			spin_lock(conn->lock);
			conn->st.errors++;
			spin_unlock(conn->lock);
			fq_own_add(comm, FQ_OWN_ERRORS, 1);
		}
		return fq_cm_wc_error(conn, wc, "receive");
	}
	if (!(wc->wc_flags & IB_WC_WITH_IMM)) {
		fq_comm_fail(comm, -EPROTO);
		return;
	}
	fq_cm_peer_sent(conn);
	imm = be32_to_cpu(wc->ex.imm_data);
	fin = (imm >> FQ_IMM_FIN_SHIFT) & FQ_IMM_FIN_MAX;
	written = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM;
	cts = imm & FQ_IMM_CTS;
	if (cts)
		ib_dma_sync_single_for_cpu(comm->ibdev, conn->rx_dma[rx->slot], wc->byte_len,
					   DMA_FROM_DEVICE);
	spin_lock(conn->lock);
	/*
	 * FINs for more read requests than are out, a read request where none
	 * may come, a write where none may, or a write grant that is not one
	 * (push.c)
	 */
	bad = fin > conn->rndv_head - conn->rndv_fin ||
	      ((imm & FQ_IMM_RTS) && (!(imm & FQ_IMM_DATA) || !conn->rndv_ok)) ||
	      (written && (!(imm & FQ_IMM_DATA) || (imm & (FQ_IMM_RTS | FQ_IMM_CTS)) ||
			   !comm->write_grants)) ||
	      (cts && ((imm & (FQ_IMM_DATA | FQ_IMM_RTS)) ||
		       !fq_push_cts_in(conn, conn->rx_buf[rx->slot], wc->byte_len)));
	if (!bad) {
		conn->credits += imm & FQ_IMM_CREDITS;
		WRITE_ONCE(conn->rndv_fin, conn->rndv_fin + fin);
		/* a grant took a credit: its slot goes straight back, and the credit with it */
		conn->ret_credits += cts;
	}
	if (!bad && (imm & FQ_IMM_DATA)) {
		if (!(imm & FQ_IMM_RTS)) {	/* a read request counts once read */
			conn->st.rx_wrs++;
			conn->st.rx_bytes += wc->byte_len;
			fq_own_add(comm, FQ_OWN_RX_WRS, 1);
			fq_own_add(comm, FQ_OWN_RX_BYTES, wc->byte_len);
		}
		conn->rxq[conn->rx_tail % FQ_RECV_SLOTS].slot = rx->slot;
		conn->rxq[conn->rx_tail % FQ_RECV_SLOTS].len = wc->byte_len;
		conn->rxq[conn->rx_tail % FQ_RECV_SLOTS].rts = imm & FQ_IMM_RTS;
		conn->rxq[conn->rx_tail % FQ_RECV_SLOTS].written = written;
		conn->rx_tail++;
	}
	spin_unlock(conn->lock);
	fq_cm_progress(conn->events);
	/* credits serve sends; a FIN frees a send; a grant serves the next */
	wake = (imm & FQ_IMM_DATA) || fin || cts || fq_conn_tx_wake(conn);
	if (bad) {
		pr_warn_ratelimited("communicator %llx rank %u: rank %u broke the rendezvous protocol (immediate %#x)\n",
				    comm->id, comm->rank, conn->peer->rank, imm);
		fq_comm_fail(comm, -EPROTO);
		return;
	}
	/* a credit-only message's slot goes straight back, and a grant's */
	if (!(imm & FQ_IMM_DATA) && fq_cm_post_recv(conn, rx->slot))
		fq_comm_fail(comm, -EIO);
	if (wake)
		fq_conn_wake(conn);
}

/*
 * Messages @msg to @msg + @n - 1 of a transfer are done.  The prefix is
 * written last, and not read again: once the engine sees the transfer
 * done it may free the call @ack is in.  Context: the lock of the
 * connection the transfer's messages go on held (a transfer is a
 * channel's, coll.c: all its messages go on one connection).
 */
static void fq_ack_mark(struct fq_ack *ack, u64 msg, u32 n)
{
	u64 prefix = ack->prefix, window = ack->window;

	if (WARN_ON_ONCE(!n || msg < prefix || msg + n - prefix > FQ_ACK_WINDOW))
		return;
	while (n--)
		window |= 1ULL << (msg + n - prefix);
	while (window & 1) {
		window >>= 1;
		prefix++;
	}
	ack->window = window;
	smp_store_release(&ack->prefix, prefix);	/* after the window, and what it acks */
}

/**
 * fq_cm_placed() - message @msg of a transfer on @conn is done with
 * (placed, or its bytes copied out to be sent)
 * @conn: the connection its messages go on
 * @ack: the transfer's
 * @msg: the message's index in it
 */
void fq_cm_placed(struct fq_conn *conn, struct fq_ack *ack, u64 msg)
{
	spin_lock_bh(conn->lock);
	fq_ack_mark(ack, msg, 1);
	spin_unlock_bh(conn->lock);
}

/* A data send completed; its completion was seen at @now.  Context: @conn's lock held. */
static void fq_tx_account(struct fq_conn *conn, const struct fq_tx_ent *ent,
			  enum ib_wc_status status, u64 now)
{
	struct fq_comm *comm = conn->comm;
	struct fq_chan *ch = &comm->chans[conn->chan];	/* data sends: a data channel's */
	u64 lat = now - ent->t_post, avg;

	if (status == IB_WC_WR_FLUSH_ERR)
		return;
	if (status != IB_WC_SUCCESS) {
		conn->st.errors++;
		fq_own_add(comm, FQ_OWN_ERRORS, 1);
		return;
	}
	conn->st.tx_wrs++;
	conn->st.tx_bytes += ent->bytes;
	conn->st.cqe_ns += lat;
	conn->st.cqe_max_ns = max(conn->st.cqe_max_ns, lat);
	/* an eighth of the new sample: follows the link within some ten sends */
	avg = ch->tx_cqe_avg_ns;
	WRITE_ONCE(ch->tx_cqe_avg_ns, avg ? avg - avg / 8 + lat / 8 : lat);
	fq_own_add(comm, FQ_OWN_TX_WRS, 1);
	fq_own_add(comm, FQ_OWN_TX_BYTES, ent->bytes);
	fq_own_add(comm, FQ_OWN_CQE_NS, lat);
}

/*
 * Should a send-side completion on @conn wake the engine whatever it
 * waits for: credits or FINs wait for room on the send queue, or it
 * failed?  (Else only if it waits on a send: its channel's tx_wake, read after
 * fq_cm_progress().)  Context: @conn's lock held.
 */
static bool fq_tx_wakes(const struct fq_conn *conn, enum ib_wc_status status)
{
	return conn->ret_credits || conn->fin_pending || status != IB_WC_SUCCESS;
}

/*
 * The oldest work request in flight is done.  Return: true if the engine
 * must hear of it whatever it waits for (a read placed a message, or an
 * invalidation freed a send).  Context: @conn's lock held.
 */
static bool fq_tx_retire(struct fq_conn *conn, enum ib_wc_status status, u64 now)
{
	struct fq_comm *comm = conn->comm;
	struct fq_tx_ent *ent = &conn->tx_ent[conn->tx_tail % FQ_TX_ENTS];
	bool ok = status == IB_WC_SUCCESS, wakes = false;

	fq_sge_unmap(comm->ibdev, ent->dir, ent->sge, ent->nsge);
	ent->nsge = 0;
	switch (ent->kind) {
	case FQ_TX_SEND:
		if (ent->cts)
			conn->st.cts_tx += ok;
		else
			fq_tx_account(conn, ent, status, now);
		conn->st.rts_tx += ok && ent->mr;
		conn->st.inline_tx += ok && ent->inl;
		conn->st.writes_tx += ok && ent->write;
		conn->tx_msgs_done++;
		break;
	case FQ_TX_READ:
		if (ok) {
			fq_fin_add(conn, ent->fin);
			conn->st.reads += ent->fin;
			conn->st.rx_wrs++;
			conn->st.rx_bytes += ent->bytes;
			fq_own_add(comm, FQ_OWN_RX_WRS, 1);
			fq_own_add(comm, FQ_OWN_RX_BYTES, ent->bytes);
		}
		wakes = true;
		break;
	case FQ_TX_UNGRANT:
		/* the peer can write no more; else its key lives until fq_rndv_abandon() */
		if (ok)
			fq_push_unmap(conn, fq_rndv_grant(comm, conn->chan));
		fallthrough;
	case FQ_TX_INV:
		/* not invalidated: never lent again; fq_rndv_abandon() or teardown frees it */
		if (ok)
			fq_rndv_mr_free(conn, ent->mr);
		wakes = true;
		break;
	}
	if (ent->ack && ok)
		fq_ack_mark(ent->ack, ent->msg, ent->nmsg);
	ent->ack = NULL;
	ent->mr = NULL;
	conn->tx_tail++;
	conn->sq_used--;
	return wakes;
}

/*
 * Every work request still in flight is done, with @status: the send
 * queue was drained, and those completed without a completion of their own.
 */
static void fq_tx_retire_rest(struct fq_conn *conn, enum ib_wc_status status)
{
	u64 now = ktime_get_ns();

	spin_lock_bh(conn->lock);
	while (conn->tx_tail != conn->tx_head)
		fq_tx_retire(conn, status, now);
	spin_unlock_bh(conn->lock);
	fq_cm_progress(conn->events);
	fq_conn_wake(conn);
}

static const char *const fq_tx_kind_names[] = {
	[FQ_TX_SEND] = "send",
	[FQ_TX_REG] = "registration",
	[FQ_TX_READ] = "read",
	[FQ_TX_INV] = "invalidation",
	[FQ_TX_UNGRANT] = "grant's invalidation",
};

/*
 * A work request completed: it, and the unsignaled ones before it, which
 * the RC send queue completed first.  One in error or flushed has a
 * completion of its own, signaled or not, so the ones before it succeeded.
 */
static void fq_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fq_tx_ent *ent = container_of(wc->wr_cqe, struct fq_tx_ent, cqe);
	struct fq_conn *conn = ent->conn;
	struct fq_comm *comm = conn->comm;
	u64 now = ktime_get_ns();
	bool stray, wake = false;
	u32 n;

	BUILD_BUG_ON_NOT_POWER_OF_2(FQ_TX_ENTS);	/* ring arithmetic wraps with u32 */
	spin_lock(conn->lock);
	/* requests from the oldest in flight up to this one */
	n = ((u32)(ent - conn->tx_ent) - conn->tx_tail) % FQ_TX_ENTS + 1;
	stray = n > conn->tx_head - conn->tx_tail;
	if (!stray) {
		conn->st.tx_cqes++;
		while (--n)
			wake |= fq_tx_retire(conn, IB_WC_SUCCESS, now);
		wake |= fq_tx_retire(conn, wc->status, now);
	}
	wake |= fq_tx_wakes(conn, wc->status);
	spin_unlock(conn->lock);
	fq_cm_progress(conn->events);
	wake |= fq_conn_tx_wake(conn);
	if (stray) {	/* a completion for no request in flight: a bug; stop */
		pr_err("comm %llx: a send completed that was not in flight\n", comm->id);
		fq_comm_fail(comm, -EIO);
	}
	if (wc->status != IB_WC_SUCCESS)
		fq_cm_wc_error(conn, wc, stray ? "send" : fq_tx_kind_names[ent->kind]);
	if (wake || stray)
		fq_conn_wake(conn);
}

static void fq_credit_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fq_conn *conn = container_of(wc->wr_cqe, struct fq_conn, credit_cqe);
	bool wake;

	/* a flushed or failed WR has left the send queue too */
	spin_lock(conn->lock);
	conn->sq_used--;
	conn->ctl_inflight--;
	wake = fq_tx_wakes(conn, wc->status);
	spin_unlock(conn->lock);
	fq_cm_progress(conn->events);
	wake |= fq_conn_tx_wake(conn);
	if (wc->status != IB_WC_SUCCESS)
		fq_cm_wc_error(conn, wc, "credit");
	if (wake)
		fq_conn_wake(conn);
}

/**
 * fq_cm_tx_wake() - should send completions (and returned credits) on
 * channels @lo .. @hi - 1 wake the thread running them?
 * @comm: the communicator
 * @lo: the first channel
 * @hi: one past the last
 * @on: yes (the default); no while it waits only for receives, so that
 *	a send's completion does not wake it for nothing
 *
 * The thread waits next (its barrier orders this store before its read
 * of the channels' events); a completion bumps its channel's events
 * before it reads this (fq_cm_progress()).  So a completion that misses
 * the change bumped the events first, which the thread's wait sees.
 * Context: process (the thread running those channels).
 */
void fq_cm_tx_wake(struct fq_comm *comm, u32 lo, u32 hi, bool on)
{
	u32 c;

	for (c = lo; c < hi; c++)
		WRITE_ONCE(comm->chans[c].tx_wake, on);
}

/* ---- the transport, for the engine (hw_rwsem held for reading) ---- */

/* any send not yet acknowledged? */
static bool fq_cm_busy(struct fq_comm *comm)
{
	struct fq_conn *conn;
	bool busy = false;
	u32 r, c;

	/* each connection in turn: once idle, one stays so (no sends are built now) */
	for (r = 0; !busy && r < comm->nranks; r++)
		for (c = 0; r != comm->rank && c < comm->nch; c++) {
			conn = comm->peers[r].ch[c];
			spin_lock_bh(conn->lock);
			busy |= conn->sq_used != 0;
			spin_unlock_bh(conn->lock);
		}
	return busy;
}

/* Is there room on @conn's ring for @n more work requests?  Context: @conn's lock held. */
bool fq_tx_room(const struct fq_conn *conn, u32 n)
{
	return conn->tx_head - conn->tx_tail + n <= FQ_TX_ENTS;
}

/* May @conn take @n more work requests, the last a data message?  Context: @conn's lock held. */
bool fq_msg_room(const struct fq_conn *conn, u32 n)
{
	return conn->established && conn->credits && fq_tx_room(conn, n) &&
	       conn->tx_msgs - conn->tx_msgs_done < FQ_CREDITS;
}

/**
 * fq_cm_can_send() - may one more data message go out on @conn now?
 * @conn: a connection
 */
bool fq_cm_can_send(struct fq_conn *conn)
{
	bool ok;

	spin_lock_bh(conn->lock);
	ok = fq_msg_room(conn, 1);
	spin_unlock_bh(conn->lock);
	return ok;
}

/*
 * The next entry of @conn's ring, for a work request of @kind; a data
 * message takes a credit and carries back the credits and FINs due.
 * Context: @conn's lock held; the caller checked there is room.
 */
struct fq_tx_ent *fq_tx_take(struct fq_conn *conn, u8 kind)
{
	struct fq_tx_ent *ent = &conn->tx_ent[conn->tx_head++ % FQ_TX_ENTS];

	lockdep_assert_held(conn->lock);
	conn->sq_used++;
	ent->kind = kind;
	ent->inl = false;
	ent->cts = false;
	ent->write = false;
	ent->nsge = 0;
	ent->dir = DMA_TO_DEVICE;
	ent->ret = 0;
	ent->fin = 0;
	ent->ack = NULL;
	ent->mr = NULL;
	ent->msg = 0;
	ent->nmsg = 1;
	ent->bytes = 0;
	if (kind == FQ_TX_SEND) {
		conn->credits--;
		conn->tx_msgs++;
		ent->ret = conn->ret_credits;
		conn->ret_credits = 0;
		ent->fin = min_t(u32, conn->fin_pending, FQ_IMM_FIN_MAX);
		fq_fin_add(conn, -(s32)ent->fin);
	}
	return ent;
}

/* the immediate data of data message @ent */
__be32 fq_tx_imm(const struct fq_tx_ent *ent, u32 kind)
{
	return cpu_to_be32(kind | ent->ret | ent->fin << FQ_IMM_FIN_SHIFT);
}

/**
 * fq_tx_slot_send() - build @ent as the send of the first @len bytes of
 * send slot @slot, synced for the device, with immediate data of @kind
 * (FQ_IMM_*) and the credits and FINs @ent carries back
 * @conn: the connection
 * @ent: an entry fq_tx_take() gave, of kind FQ_TX_SEND
 * @slot: the send slot (fq_tx_slot())
 * @len: its bytes
 * @kind: FQ_IMM_* bits
 */
void fq_tx_slot_send(struct fq_conn *conn, struct fq_tx_ent *ent, u32 slot, u32 len, u32 kind)
{
	ent->sge[0].addr = conn->tx_dma[slot];
	ent->sge[0].length = len;
	ent->sge[0].lkey = conn->comm->pd->local_dma_lkey;
	ent->wr = (struct ib_send_wr){
		.wr_cqe = &ent->cqe,
		.opcode = IB_WR_SEND_WITH_IMM,
		.sg_list = ent->sge,
		.num_sge = 1,
		.ex.imm_data = fq_tx_imm(ent, kind),
	};
}

/*
 * A work request that was never posted never completes: give back its
 * entry, credit, and the credits and FINs it was to carry back, and unmap
 * what it mapped, so that the send queue looks as if it had never been
 * tried and the engine's wait for idle sends does not wait for it.  The
 * communicator fails (an MR it registered is not lent again).  It is the
 * newest entry (the engine builds alone).
 */
void fq_tx_unwind(struct fq_conn *conn, struct fq_tx_ent *ent, int err)
{
	struct fq_comm *comm = conn->comm;

	fq_sge_unmap(comm->ibdev, ent->dir, ent->sge, ent->nsge);
	spin_lock_bh(conn->lock);
	ent->nsge = 0;
	ent->ack = NULL;
	if (ent->kind == FQ_TX_SEND) {
		conn->credits++;
		conn->tx_msgs--;
		conn->ret_credits += ent->ret;
		fq_fin_add(conn, ent->fin);
		if (ent->mr)	/* a read request: it never went out */
			conn->rndv_head--;
	}
	ent->mr = NULL;
	conn->tx_head--;
	conn->sq_used--;
	spin_unlock_bh(conn->lock);
	fq_comm_fail(comm, err);
}

/* Data message @ent's send slot.  Context: the entry was just taken. */
u32 fq_tx_slot(const struct fq_conn *conn)
{
	return (conn->tx_msgs - 1) % FQ_CREDITS;
}

/**
 * fq_cm_send() - build one data message of @len bytes (at most one chunk);
 * fq_cm_post() posts it
 * @conn: an established connection
 * @data: the bytes: kernel memory, or the mapping of pinned pages
 * @len: how many, up to the chunk size
 * @map: the device's mapping of the buffer @data is in, if it has one
 *	(else a zero-copy send maps its pages for itself)
 * @ack: the transfer's; message @msg is marked done when the send completes
 * @msg: the message's index in its transfer
 * @to: where the peer granted it (push.c): it is written there, with
 *	immediate data, instead of sent; NULL: sent
 *
 * The caller checked fq_cm_can_send().  Zero-copy (FQ_ZC_MIN_BYTES and
 * up): the bytes must stay put until @ack says so.  Through a slot: they
 * are copied before this returns, and marked done at once.
 * Context: process; hw_rwsem held for reading.  Return: 0 or -errno.
 */
int fq_cm_send(struct fq_conn *conn, const void *data, u32 len, const struct fq_dmamap *map,
	       struct fq_ack *ack, u64 msg, const struct fq_write_to *to)
{
	struct fq_comm *comm = conn->comm;
	struct fq_tx_ent *ent;
	bool zc, own;
	int err = 0;
	u32 slot;

	zc = comm->zero_copy && len >= FQ_ZC_MIN_BYTES;
	spin_lock_bh(conn->lock);
	ent = fq_tx_take(conn, FQ_TX_SEND);
	slot = fq_tx_slot(conn);
	ent->ack = zc ? ack : NULL;
	ent->msg = msg;
	ent->bytes = len;
	ent->write = to;
	spin_unlock_bh(conn->lock);

	ent->rdma = (struct ib_rdma_wr){
		.wr = {
			.wr_cqe = &ent->cqe,
			.opcode = to ? IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_SEND_WITH_IMM,
			.sg_list = ent->sge,
			.ex.imm_data = fq_tx_imm(ent, FQ_IMM_DATA),
		},
		.remote_addr = to ? to->addr : 0,
		.rkey = to ? to->rkey : 0,
	};
	if (zc) {
		err = fq_sge_build(comm->ibdev, DMA_TO_DEVICE, comm->pd->local_dma_lkey, map, data,
				   len, ent->sge, conn->tx_sges, &own);
		ent->wr.num_sge = max(err, 0);
		ent->nsge = own ? ent->wr.num_sge : 0;
		err = min(err, 0);
	} else if (len) {
		memcpy(conn->tx_buf[slot], data, len);
		/* inline: the device copies the slot, by its kernel address, when posted */
		ent->inl = len <= conn->max_inline;
		if (ent->inl) {
			ent->sge[0].addr = (uintptr_t)conn->tx_buf[slot];
		} else {
			ib_dma_sync_single_for_device(comm->ibdev, conn->tx_dma[slot], len,
						      DMA_TO_DEVICE);
			ent->sge[0].addr = conn->tx_dma[slot];
		}
		ent->sge[0].length = len;
		ent->sge[0].lkey = comm->pd->local_dma_lkey;
		ent->wr.num_sge = 1;
	}
	if (!zc)
		fq_cm_placed(conn, ack, msg);
	if (err)
		fq_tx_unwind(conn, ent, err);
	return err;
}

/* Should the request @i (counted from the connection's first) ask for a completion? */
static bool fq_cm_signal(u32 i, u32 head)
{
	return i + 1 == head || i % FQ_SIGNAL_EVERY == FQ_SIGNAL_EVERY - 1;
}

/**
 * fq_cm_post() - post the work requests built on @conn, as one chain
 * @conn: a connection
 *
 * The chain's last request is signaled, and every FQ_SIGNAL_EVERY-th.  If
 * the device refuses one, the ones after it are unwound, those before
 * it are flushed from the send queue, and the communicator fails.
 * Context: process; hw_rwsem held for reading.  Return: 0 or -errno.
 */
int fq_cm_post(struct fq_conn *conn)
{
	u32 i, head = conn->tx_head;	/* the engine's own: it alone builds */
	const struct ib_send_wr *bad = NULL;
	struct fq_tx_ent *ent, *prev = NULL;
	struct ib_send_wr *first = NULL;
	u64 now;
	int err;

	if (conn->tx_posted == head)
		return 0;
	now = ktime_get_ns();
	for (i = conn->tx_posted; i != head; i++) {
		ent = &conn->tx_ent[i % FQ_TX_ENTS];
		ent->t_post = now;
		ent->wr.next = NULL;
		ent->wr.send_flags = (fq_cm_signal(i, head) ? IB_SEND_SIGNALED : 0) |
				     (ent->inl ? IB_SEND_INLINE : 0);
		if (prev)
			prev->wr.next = &ent->wr;
		else
			first = &ent->wr;
		prev = ent;
	}
	err = ib_post_send(conn->id->qp, first, &bad);
	if (!err) {
		conn->tx_posted = head;
		return 0;
	}
	/* the device took the requests before @bad (none, if it does not say) */
	while (bad && conn->tx_posted != head &&
	       &conn->tx_ent[conn->tx_posted % FQ_TX_ENTS].wr != bad)
		conn->tx_posted++;
	while (conn->tx_head != conn->tx_posted)
		fq_tx_unwind(conn, &conn->tx_ent[(conn->tx_head - 1) % FQ_TX_ENTS], err);
	/*
	 * The last request it took may ask for no completion: flush the send
	 * queue (the communicator fails anyway), then what is still in
	 * flight completed without one.
	 */
	if (conn->tx_tail != conn->tx_posted) {
		fq_comm_fail(conn->comm, err);	/* before its flushes */
		ib_drain_sq(conn->id->qp);
		fq_tx_retire_rest(conn, IB_WC_SUCCESS);
	}
	return err;
}

/**
 * fq_cm_tx_idle() - has every data send, read and registration completed
 * (or been flushed)?
 * @comm: the communicator
 *
 * After an error the engine waits for this before it lets go of the
 * pages a zero-copy send or a read may still use.
 */
bool fq_cm_tx_idle(struct fq_comm *comm)
{
	struct fq_conn *conn;
	bool idle = true;
	u32 r, c;

	/* each connection in turn: once idle, one stays so (no sends are built now) */
	for (r = 0; idle && r < comm->nranks; r++)
		for (c = 0; r != comm->rank && c < comm->nch; c++) {
			conn = comm->peers[r].ch[c];
			spin_lock_bh(conn->lock);
			idle &= conn->tx_head == conn->tx_tail;
			spin_unlock_bh(conn->lock);
		}
	return idle;
}

/**
 * fq_cm_peek() - the oldest data message received on @conn, if any
 * @conn: a connection
 * @data: set to the message's bytes (a read request: the request)
 * @len: set to its length (a read request: the length it offers; U32_MAX
 *	if it is malformed)
 * @rts: set if it is a read request (fq_rndv_read() it)
 * @written: set if it came written where this rank granted (push.c):
 *	@data is NULL, @len the bytes written
 *
 * Return: 0 with @data, @len and @rts set, or -EAGAIN.
 */
int fq_cm_peek(struct fq_conn *conn, void **data, u32 *len, bool *rts, bool *written)
{
	struct fq_comm *comm = conn->comm;
	const struct fabriq_rts *req;
	u32 slot;

	spin_lock_bh(conn->lock);
	if (conn->rx_head == conn->rx_tail) {
		spin_unlock_bh(conn->lock);
		return -EAGAIN;
	}
	slot = conn->rxq[conn->rx_head % FQ_RECV_SLOTS].slot;
	*len = conn->rxq[conn->rx_head % FQ_RECV_SLOTS].len;
	*rts = conn->rxq[conn->rx_head % FQ_RECV_SLOTS].rts;
	*written = conn->rxq[conn->rx_head % FQ_RECV_SLOTS].written;
	spin_unlock_bh(conn->lock);
	if (*written) {	/* the bytes are in place already (push.c) */
		*data = NULL;
		return 0;
	}
	ib_dma_sync_single_for_cpu(comm->ibdev, conn->rx_dma[slot], *len, DMA_FROM_DEVICE);
	*data = conn->rx_buf[slot];
	if (*rts) {
		req = *data;
		*len = *len == sizeof(*req) ? be32_to_cpu(req->len) : U32_MAX;
	}
	return 0;
}

/**
 * fq_cm_return_credits() - tell the peer about reposted slots, and about
 * its read requests read (which it waits for)
 * @conn: a connection
 * @force: even if fewer than FQ_CREDIT_BATCH credits and FINs are pending
 *	(the engine forces FINs out before it sleeps: fq_cm_fins_out())
 *
 * Context: process; hw_rwsem held for reading.  Return: 0 or -errno.
 */
int fq_cm_return_credits(struct fq_conn *conn, bool force)
{
	struct fq_comm *comm = conn->comm;
	struct ib_send_wr wr = {
		.wr_cqe = &conn->credit_cqe,
		.opcode = IB_WR_SEND_WITH_IMM,
		.send_flags = IB_SEND_SIGNALED,
	};
	u32 n, fin;
	int err;

	spin_lock_bh(conn->lock);
	n = conn->ret_credits;
	fin = min_t(u32, conn->fin_pending, FQ_IMM_FIN_MAX);
	/* in batches, as a wake-up of the peer costs more than the message */
	if (!(force ? n || fin : n >= FQ_CREDIT_BATCH || fin >= FQ_CREDIT_BATCH) ||
	    conn->ctl_inflight >= FQ_CTL_INFLIGHT || conn->sq_used >= FQ_SEND_WRS) {
		spin_unlock_bh(conn->lock);
		return 0;
	}
	WRITE_ONCE(conn->ret_credits, 0);
	fq_fin_add(conn, -(s32)fin);
	conn->sq_used++;
	conn->ctl_inflight++;
	spin_unlock_bh(conn->lock);
	if (fin && fq_rndv_fault_fin(comm))
		fin = FQ_IMM_FIN_MAX;
	wr.ex.imm_data = cpu_to_be32(FQ_IMM_CREDIT_ONLY | n | fin << FQ_IMM_FIN_SHIFT);
	err = ib_post_send(conn->id->qp, &wr, NULL);
	if (err)
		fq_comm_fail(comm, err);
	return err;
}

/**
 * fq_cm_fins_out() - report to every peer the read requests of its this
 * rank has read on channels @lo .. @hi - 1
 * @comm: the communicator
 * @lo: the first channel
 * @hi: one past the last
 *
 * A peer's call cannot end before it hears of them; this rank's may end
 * as soon as its reads are done.
 * Context: process; hw_rwsem held for reading.  Return: how many are
 * still to report (room on a send queue lacked), or -errno.
 */
int fq_cm_fins_out(struct fq_comm *comm, u32 lo, u32 hi)
{
	struct fq_conn *conn;
	u32 r, c, left = 0;
	int err;

	for (c = lo; c < hi; c++)
		for (r = 0; atomic_read(&comm->chans[c].fins) && r < comm->nranks; r++) {
			if (r == comm->rank)
				continue;
			conn = comm->peers[r].ch[c];
			if (!READ_ONCE(conn->fin_pending))
				continue;
			err = fq_cm_return_credits(conn, true);
			if (err)
				return err;
			left += READ_ONCE(conn->fin_pending);
		}
	return left;
}

/**
 * fq_cm_consume() - done with the message fq_cm_peek() returned: repost
 * its slot and count the credit for the peer
 * @conn: the connection the message came on
 *
 * Context: process; hw_rwsem held for reading.  Return: 0 or -errno.
 */
int fq_cm_consume(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;
	u32 slot;
	int err;

	spin_lock_bh(conn->lock);
	slot = conn->rxq[conn->rx_head % FQ_RECV_SLOTS].slot;
	spin_unlock_bh(conn->lock);
	err = fq_cm_post_recv(conn, slot);
	if (err) {
		fq_comm_fail(comm, err);
		return err;
	}
	spin_lock_bh(conn->lock);
	conn->rx_head++;
	WRITE_ONCE(conn->ret_credits, conn->ret_credits + 1);
	spin_unlock_bh(conn->lock);
	return fq_cm_return_credits(conn, false);
}

/**
 * fq_cm_closed() - has the peer of @conn gone?
 * @conn: a connection
 *
 * Messages the peer sent before it disconnected may still be in the CQ,
 * so a receiver treats the peer as gone only a second after the event.
 * Return: 0 while usable, 1 when closed but within that second,
 * -ECONNRESET after it.
 */
int fq_cm_closed(struct fq_conn *conn)
{
	unsigned long t = READ_ONCE(conn->peer_closed);

	if (!t)
		return 0;
	return time_after(jiffies, t + HZ) ? -ECONNRESET : 1;
}

/**
 * fq_cm_quiesce() - wait until every message sent has been acknowledged
 * @comm: the communicator, about to be torn down in good order
 * @timeout: jiffies at most
 *
 * So a rank that finished first does not take away data its peers have
 * not received yet.
 */
void fq_cm_quiesce(struct fq_comm *comm, unsigned long timeout)
{
	down_read(&comm->hw_rwsem);
	if (!comm->hw_gone && comm->state == FQ_COMM_READY)
		wait_event_timeout(comm->wq, !fq_cm_busy(comm), timeout);
	up_read(&comm->hw_rwsem);
}

/* ---- connection resources ---- */

static void fq_free_slots(struct fq_conn *conn, void **buf, u64 *dma, u32 n,
			  enum dma_data_direction dir)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (dma[i])
			ib_dma_unmap_single(conn->comm->ibdev, dma[i],
					    fq_conn_dir_slot_bytes(conn, dir), dir);
		if (buf[i]) {
			atomic_dec(&fq_objects.bufs);
			atomic64_sub(fq_conn_dir_slot_bytes(conn, dir), &conn->comm->slot_bytes);
		}
		kfree(buf[i]);
		buf[i] = NULL;
		dma[i] = 0;
	}
}

static void fq_conn_free_bufs(struct fq_conn *conn)
{
	fq_free_slots(conn, conn->rx_buf, conn->rx_dma, FQ_RECV_SLOTS, DMA_FROM_DEVICE);
	fq_free_slots(conn, conn->tx_buf, conn->tx_dma, FQ_CREDITS, DMA_TO_DEVICE);
}

static int fq_map_slot(struct fq_conn *conn, void **buf, u64 *dma, enum dma_data_direction dir)
{
	struct fq_comm *comm = conn->comm;

	*buf = kzalloc(fq_conn_dir_slot_bytes(conn, dir), GFP_KERNEL_ACCOUNT);
	if (!*buf)
		return -ENOMEM;
	atomic_inc(&fq_objects.bufs);
	atomic64_add(fq_conn_dir_slot_bytes(conn, dir), &comm->slot_bytes);
	*dma = ib_dma_map_single(comm->ibdev, *buf, fq_conn_dir_slot_bytes(conn, dir), dir);
	if (ib_dma_mapping_error(comm->ibdev, *dma)) {
		*dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/* Does @dev send inline data as it should (core/compat.h)? */
static bool fq_inline_works(const struct ib_device *dev)
{
	return dev->ops.driver_id != RDMA_DRIVER_RXE || FABRIQ_RXE_SENDS_INLINE;
}

/*
 * Create @conn's QP, asking for FQ_INLINE_BYTES of inline data on a data
 * channel, then 64, then none: a device that cannot take as much fails
 * the QP rather than granting less (siw, irdma).  @attr is what to ask,
 * inline data aside.
 */
static int fq_conn_create_qp(struct fq_conn *conn, const struct ib_qp_init_attr *attr)
{
	static const u32 asks[] = { FQ_INLINE_BYTES, 64, 0 };
	struct fq_comm *comm = conn->comm;
	struct ib_qp_init_attr try;
	u32 i = conn->control || !fq_inline_works(comm->ibdev) ? ARRAY_SIZE(asks) - 1 : 0;
	int err;

	for (;; i++) {
		try = *attr;	/* a driver may change it before it fails */
		try.cap.max_inline_data = asks[i];
		err = rdma_create_qp(conn->id, comm->pd, &try);
		if (!err || !asks[i])
			break;
	}
	/* what the device granted (it may say more than asked) */
	conn->max_inline = err || !asks[i] ? 0 : min_t(u32, try.cap.max_inline_data, asks[i]);
	return err;
}

/*
 * A QP's queue depths: a data channel's (its sends, credit returns and
 * read requests, FQ_SEND_WRS; its receive slots) or the control
 * connection's (one heartbeat; FQ_CTRL_SLOTS), each with room for the
 * marker ib_drain_qp() posts.
 */
static u32 fq_qp_send_wrs(bool control)
{
	return control ? 2 : FQ_SEND_WRS + 1;
}

static u32 fq_qp_recv_wrs(bool control)
{
	return (control ? FQ_CTRL_SLOTS : FQ_RECV_SLOTS) + 1;
}

/* the completions such a QP may hold at once */
static u32 fq_qp_cqes(bool control)
{
	return fq_qp_send_wrs(control) + fq_qp_recv_wrs(control);
}

/*
 * Set up @conn's QP, slots and receives posted ahead: a data channel's, or the control
 * connection's (fewer, smaller slots; ctrl.c's completions).
 * Context: process, setup_lock held.
 */
static int fq_conn_setup_qp(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;
	u32 nrx = conn->control ? FQ_CTRL_SLOTS : FQ_RECV_SLOTS;
	u32 ntx = conn->control ? 1 : FQ_CREDITS;
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = conn->cq,
		.recv_cq = conn->cq,
		.cap = {
			.max_send_wr = fq_qp_send_wrs(conn->control),
			.max_recv_wr = fq_qp_recv_wrs(conn->control),
			.max_send_sge = comm->zero_copy && !conn->control ?
					fq_chunk_max_pages(comm->chunk) : 1,
			.max_recv_sge = 1,
		},
	};
	u32 i;
	int err;

	lockdep_assert_held(&comm->setup_lock);
	for (i = 0; i < nrx; i++) {
		conn->rx_ctx[i].cqe.done = fq_rx_done;
		conn->rx_ctx[i].conn = conn;
		conn->rx_ctx[i].slot = i;
		err = fq_map_slot(conn, &conn->rx_buf[i], &conn->rx_dma[i], DMA_FROM_DEVICE);
		if (err)
			return err;
	}
	for (i = 0; i < fq_conn_tx_ents(conn->control); i++) {
		conn->tx_ent[i].cqe.done = fq_tx_done;
		conn->tx_ent[i].conn = conn;
	}
	for (i = 0; i < ntx; i++) {
		err = fq_map_slot(conn, &conn->tx_buf[i], &conn->tx_dma[i], DMA_TO_DEVICE);
		if (err)
			return err;
	}
	conn->credit_cqe.done = fq_credit_done;
	if (conn->control)
		fq_ctrl_conn_init(conn);
	err = fq_conn_create_qp(conn, &attr);
	if (err)
		return err;
	conn->has_qp = true;
	atomic_inc(&fq_objects.qps);
	conn->credits = conn->control ? 0 : FQ_CREDITS;
	for (i = 0; i < nrx; i++) {
		err = fq_cm_post_recv(conn, i);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Everything of one connection; the id too.  rdma_destroy_id() waits for
 * the id's handler, and rdma_cm's handlers take setup_lock, so this must
 * never run under setup_lock; only the slot's final clearing takes it.
 * Context: process; hw_rwsem held (read by COMM_INIT, write by teardown),
 * so nothing else releases the same connection.
 */
static void fq_conn_release(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;

	lockdep_assert_held(&comm->hw_rwsem);
	if (!conn->id) {
		WRITE_ONCE(conn->setup_failed, false);
		return;
	}
	if (conn->control) {
		/* a heartbeat being written to it finishes, and none follows (ctrl.c) */
		mutex_lock(&comm->hb_lock);
		spin_lock_bh(conn->lock);
		conn->hb_stopped = true;
		spin_unlock_bh(conn->lock);
		mutex_unlock(&comm->hb_lock);
	}
	if (conn->established)
		rdma_disconnect(conn->id);
	if (conn->has_qp) {
		ib_drain_qp(conn->id->qp);
		/* no completion queues it now; it must not outlive the id */
		cancel_work_sync(&conn->est_work);
		/* nothing reads the pages now; unmap what no completion retired */
		fq_tx_retire_rest(conn, IB_WC_WR_FLUSH_ERR);
		rdma_destroy_qp(conn->id);
		conn->has_qp = false;
		atomic_dec(&fq_objects.qps);
	}
	rdma_destroy_id(conn->id);
	atomic_dec(&fq_objects.cm_ids);
	fq_conn_free_bufs(conn);
	/* reset before the slot is free: a new connection may take it at once */
	spin_lock_bh(conn->lock);
	WRITE_ONCE(conn->setup_failed, false);
	conn->hb_busy = false;
	conn->hb_stopped = false;
	conn->credits = 0;
	conn->ret_credits = 0;
	fq_fin_add(conn, -(s32)conn->fin_pending);
	conn->ctl_inflight = 0;
	conn->tx_head = 0;
	conn->tx_tail = 0;
	conn->tx_msgs = 0;
	conn->tx_msgs_done = 0;
	conn->tx_posted = 0;
	conn->sq_used = 0;
	conn->rndv_head = 0;
	conn->rndv_fin = 0;
	conn->rndv_inv = 0;
	conn->rndv_ok = false;
	conn->rts_msgs = 0;
	conn->rts_read = 0;
	conn->cts_in = (struct fq_cts_in){ };
	conn->rx_head = 0;
	conn->rx_tail = 0;
	spin_unlock_bh(conn->lock);
	mutex_lock(&comm->setup_lock);
	conn->id = NULL;
	WRITE_ONCE(conn->established, false);
	conn->qos = (struct fabriq_qos_path){ };
	mutex_unlock(&comm->setup_lock);
}

/*
 * The reads in flight a data connection of @comm grants and asks for:
 * none without MRs to lend (then neither end sends read requests), nor on
 * a control connection (its QP takes no reads at all).
 */
static u8 fq_conn_reads(const struct fq_conn *conn)
{
	const struct ib_device_attr *attrs = &conn->comm->ibdev->attrs;

	/* write grants go instead (push.c) */
	if (conn->control || !conn->comm->nmrs || conn->comm->write_grants)
		return 0;
	return min3(FQ_CREDITS, attrs->max_qp_rd_atom, attrs->max_qp_init_rd_atom);
}

static void fq_conn_param(struct rdma_conn_param *param, const void *priv, u8 len,
			  u8 responder_resources, u8 initiator_depth)
{
	memset(param, 0, sizeof(*param));
	param->retry_count = 7;
	param->rnr_retry_count = 7;
	param->private_data = priv;
	param->private_data_len = len;
	param->responder_resources = responder_resources;
	param->initiator_depth = initiator_depth;
}

/* The data path this rank runs, which every rank must share. */
static struct fq_wire_params fq_comm_params(const struct fq_comm *comm)
{
	return (struct fq_wire_params){
		.chunk = comm->chunk,
		.small_bytes = comm->small_bytes,	/* a u32 in COMM_INIT */
		.channels = comm->nch,
		.algo = comm->algo,
		.flags = comm->write_grants ? FABRIQ_CM_F_WRITE_GRANTS : 0,
	};
}

/* The data path a request or a refusal says the other rank runs. */
static struct fq_wire_params fq_wire_params_from(__be32 chunk, __be32 small_bytes,
						 u8 channels, u8 algo, u8 flags)
{
	return (struct fq_wire_params){
		.chunk = be32_to_cpu(chunk),
		.small_bytes = be32_to_cpu(small_bytes),
		.channels = channels,
		.algo = algo,
		.flags = flags,
	};
}

static bool fq_params_equal(const struct fq_wire_params *a, const struct fq_wire_params *b)
{
	return a->chunk == b->chunk && a->small_bytes == b->small_bytes &&
	       a->channels == b->channels && a->algo == b->algo && a->flags == b->flags;
}

/* Say in the kernel log how rank @peer's data path differs from ours. */
static void fq_params_differ(const struct fq_comm *comm, u32 peer,
			     const struct fq_wire_params *theirs)
{
	struct fq_wire_params ours = fq_comm_params(comm);

	pr_notice_ratelimited("communicator %llx rank %u: rank %u (%pISc) runs chunk_bytes %u small_bytes %u channels %u algo %s rendezvous_write %u, this rank chunk_bytes %u small_bytes %u channels %u algo %s rendezvous_write %u; every rank must run the same\n",
			      comm->id, comm->rank, peer, &comm->addrs[peer], theirs->chunk,
			      theirs->small_bytes, theirs->channels, fq_algo_name(theirs->algo),
			      !!(theirs->flags & FABRIQ_CM_F_WRITE_GRANTS), ours.chunk,
			      ours.small_bytes, ours.channels, fq_algo_name(ours.algo),
			      !!(ours.flags & FABRIQ_CM_F_WRITE_GRANTS));
}

/*
 * The handshake of @conn, which this rank makes, as its MACs cover it: QP
 * numbers still to be filled in.  A listener takes it from the request
 * (fq_cm_match()).
 */
static struct fq_auth_hs fq_conn_handshake(const struct fq_conn *conn)
{
	return (struct fq_auth_hs){
		.initiator = conn->comm->rank,
		.acceptor = conn->peer->rank,
		.chan = conn->control ? FABRIQ_CM_CHAN_CONTROL : conn->chan,
		.params = fq_comm_params(conn->comm),
	};
}

/* ---- the passive side: the listener and what it accepted ---- */

/*
 * The slot a connect request asks for, if it names this communicator,
 * comes from the rank's address and proves the key; @hs is its handshake.
 * A request that named the communicator from the rank's address and
 * failed only the key, or spoke another version of the handshake, or
 * proved the key for a data path other than ours, is refused with a
 * reason in @rej_reason (FABRIQ_CM_REJ_KEY, _VERSION or _PARAMS), so a
 * rank given the wrong key or other parameters, or running another
 * fabriq, learns why.
 */
static struct fq_conn *fq_cm_match(struct fq_comm *comm, struct rdma_cm_id *id,
				   const struct rdma_cm_event *ev, struct fq_auth_hs *hs,
				   u32 *rej_reason)
{
	const struct fabriq_cm_req *req = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;
	struct fq_wire_params ours = fq_comm_params(comm);
	u32 rank, chan;

	*rej_reason = 0;
	if (!req || len < offsetofend(struct fabriq_cm_req, comm_id) ||
	    be64_to_cpu(req->comm_id) != comm->id)
		return NULL;
	rank = be32_to_cpu(req->rank);
	/* the rest of another version's request may be laid out otherwise */
	if (be32_to_cpu(req->version) != FABRIQ_CM_VERSION) {
		if (rank < comm->nranks && rank > comm->rank && fq_auth_peer_ok(comm, rank, id))
			*rej_reason = FABRIQ_CM_REJ_VERSION;
		return NULL;
	}
	if (len < sizeof(*req) || be32_to_cpu(req->nranks) != comm->nranks ||
	    rank >= comm->nranks || rank <= comm->rank)
		return NULL;
	if (!fq_auth_peer_ok(comm, rank, id))
		return NULL;
	/*
	 * The handshake as the request tells it: its channel and data path,
	 * which may be ones this rank does not run; the MAC proves them.
	 */
	*hs = (struct fq_auth_hs){
		.initiator = rank,
		.acceptor = comm->rank,
		.chan = req->chan,
		.req_qpn = ev->param.conn.qp_num,
		.params = fq_wire_params_from(req->chunk, req->small_bytes, req->channels,
					      req->algo, req->flags),
	};
	if (!fq_auth_ok(comm, hs, req->mac)) {
		*rej_reason = FABRIQ_CM_REJ_KEY;
		return NULL;
	}
	if (!fq_params_equal(&hs->params, &ours)) {
		fq_params_differ(comm, rank, &hs->params);
		*rej_reason = FABRIQ_CM_REJ_PARAMS;
		return NULL;
	}
	chan = req->chan;
	if (chan == FABRIQ_CM_CHAN_CONTROL)
		return comm->peers[rank].ctrl;
	return chan < comm->nch ? comm->peers[rank].ch[chan] : NULL;
}

static int fq_cm_accept(struct fq_comm *comm, struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fabriq_cm_rep rep = { .version = cpu_to_be32(FABRIQ_CM_VERSION) };
	struct rdma_conn_param param;
	struct fq_wire_params ours;
	struct fq_auth_hs hs;
	struct fabriq_cm_rej rej;
	struct fq_conn *conn;
	u32 rej_reason = 0;
	int err = -ECONNREFUSED;
	u8 reads;

	mutex_lock(&comm->setup_lock);
	if (comm->state != FQ_COMM_CONNECTING)
		goto out;
	conn = fq_cm_match(comm, id, ev, &hs, &rej_reason);
	/* a slot another attempt holds stays its; the reaper frees a dead one */
	if (!conn || conn->id || id->device != comm->ibdev)
		goto out;
	conn->id = id;
	id->context = conn;
	atomic_inc(&fq_objects.cm_ids);
	/* the request's path carries the class of service the other side chose */
	fabriq_qos_path_used(id, &conn->qos);
	err = rdma_set_min_rnr_timer(id, FQ_MIN_RNR_TIMER) ?: fq_conn_setup_qp(conn);
	if (!err) {
		hs.reply = true;
		hs.rep_qpn = id->qp->qp_num;
		err = fq_auth_mac(comm, &hs, rep.mac);
	}
	if (!err) {
		/* as much as both ends grant; read requests go only if both do */
		reads = fq_conn_reads(conn);
		fq_conn_param(&param, &rep, sizeof(rep), min(reads, ev->param.conn.initiator_depth),
			      min(reads, ev->param.conn.responder_resources));
		conn->rndv_ok = param.responder_resources && param.initiator_depth;
		err = rdma_accept(id, &param);
	}
	if (err) {
		if (conn->has_qp) {
			rdma_destroy_qp(id);
			conn->has_qp = false;
			atomic_dec(&fq_objects.qps);
		}
		fq_conn_free_bufs(conn);
		conn->id = NULL;
		conn->qos = (struct fabriq_qos_path){ };
		atomic_dec(&fq_objects.cm_ids);
		id->context = comm;
	}
out:
	/* a key holder that runs another data path can never join: nor can we */
	if (rej_reason == FABRIQ_CM_REJ_PARAMS)
		fq_comm_fail(comm, -EBADE);
	mutex_unlock(&comm->setup_lock);
	if (err && rej_reason) {
		rej = (struct fabriq_cm_rej){
			.magic = cpu_to_be32(FABRIQ_CM_REJ_MAGIC),
			.reason = cpu_to_be32(rej_reason),
			.version = cpu_to_be32(FABRIQ_CM_VERSION),
		};
		/* our data path only to a key holder: it proved the key */
		if (rej_reason == FABRIQ_CM_REJ_PARAMS) {
			ours = fq_comm_params(comm);
			rej.chunk = cpu_to_be32(ours.chunk);
			rej.small_bytes = cpu_to_be32(ours.small_bytes);
			rej.channels = ours.channels;
			rej.algo = ours.algo;
			rej.flags = ours.flags;
		}
		rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	} else if (err) {
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	}
	return err;
}

/* A connection's event after it was set up: up, or gone. */
static void fq_cm_conn_event(struct fq_conn *conn, struct rdma_cm_event *ev)
{
	struct fq_comm *comm = conn->comm;

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		WRITE_ONCE(conn->established, true);
		fq_ctrl_conn_up(conn);
		fq_cm_event(comm);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		fq_comm_fail(comm, -ENODEV);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/* the engine decides: only a rank that still needs the peer fails */
		spin_lock_bh(conn->lock);
		if (!conn->peer_closed)
			WRITE_ONCE(conn->peer_closed, jiffies | 1);
		spin_unlock_bh(conn->lock);
		fq_cm_event(comm);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		if (conn->established) {
			fq_comm_fail(comm, -ECONNRESET);
			break;
		}
		/* half open (accepted, never established): free the slot */
		WRITE_ONCE(conn->setup_failed, true);
		fq_cm_event(comm);
		break;
	default:
		break;
	}
}

/*
 * Events of the listener and of the ids it accepted (they share the
 * handler): the listener's context is the communicator, an accepted id's
 * its connection.  Non-zero makes rdma_cm destroy the (new) id.
 */
static int fq_cm_listen_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	u8 *kind = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return fq_cm_accept(id->context, id, ev) ? 1 : 0;
	if (*kind == FQ_CM_CONN)
		fq_cm_conn_event(id->context, ev);
	else if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		fq_comm_fail(id->context, -ENODEV);
	return 0;
}

/* ---- the active side ---- */

/* Does the accept prove that the listener holds the key? */
static bool fq_cm_rep_ok(struct fq_conn *conn, struct rdma_cm_id *id,
			 const struct rdma_cm_event *ev)
{
	const struct fabriq_cm_rep *rep = ev->param.conn.private_data;
	struct fq_auth_hs hs = fq_conn_handshake(conn);

	hs.reply = true;
	hs.req_qpn = id->qp ? id->qp->qp_num : 0;
	hs.rep_qpn = ev->param.conn.qp_num;
	return rep && ev->param.conn.private_data_len >= sizeof(*rep) &&
	       be32_to_cpu(rep->version) == FABRIQ_CM_VERSION &&
	       fq_auth_ok(conn->comm, &hs, rep->mac);
}

/*
 * A refusal: -EKEYREJECTED when the listener said our key is not its,
 * -EPROTONOSUPPORT when it speaks another version of the handshake (said
 * in the kernel log, with both versions), -EBADE when it runs another
 * data path (said in the kernel log, with both); else -ECONNREFUSED,
 * which is tried again (the listener may not be up yet).
 */
static int fq_cm_rej_status(struct fq_conn *conn, const struct rdma_cm_event *ev)
{
	const struct fabriq_cm_rej *rej = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;
	struct fq_comm *comm = conn->comm;
	u32 peer = conn->peer->rank;
	struct fq_wire_params theirs;

	if (ev->status != IB_CM_REJ_CONSUMER_DEFINED || !rej ||
	    len < offsetofend(struct fabriq_cm_rej, reason) ||
	    be32_to_cpu(rej->magic) != FABRIQ_CM_REJ_MAGIC)
		return -ECONNREFUSED;
	switch (be32_to_cpu(rej->reason)) {
	case FABRIQ_CM_REJ_KEY:
		return -EKEYREJECTED;
	case FABRIQ_CM_REJ_PARAMS:
		if (len < sizeof(*rej))
			return -ECONNREFUSED;
		theirs = fq_wire_params_from(rej->chunk, rej->small_bytes, rej->channels,
					     rej->algo, rej->flags);
		fq_params_differ(comm, peer, &theirs);
		return -EBADE;
	case FABRIQ_CM_REJ_VERSION:
		/* a listener of version 4 or 5 sends no more than this */
		if (len < offsetofend(struct fabriq_cm_rej, version))
			return -ECONNREFUSED;
		pr_notice_ratelimited("communicator %llx rank %u: rank %u (%pISc) speaks connect handshake version %u, this rank version %u\n",
				      comm->id, comm->rank, peer, &comm->addrs[peer],
				      be32_to_cpu(rej->version), FABRIQ_CM_VERSION);
		return -EPROTONOSUPPORT;
	default:
		return -ECONNREFUSED;
	}
}

static int fq_cm_active_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fq_conn *conn = id->context;
	struct fq_comm *comm = conn->comm;
	int status;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		status = 0;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* an accept without the key's proof is not our peer's */
		status = fq_cm_rep_ok(conn, id, ev) ? 0 : -EKEYREJECTED;
		if (!status) {
			/* the accept says what the listener grants (fq_cm_accept()) */
			conn->rndv_ok = fq_conn_reads(conn) && ev->param.conn.responder_resources &&
					ev->param.conn.initiator_depth;
			WRITE_ONCE(conn->established, true);
			fq_ctrl_conn_up(conn);
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
		status = fq_cm_rej_status(conn, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		status = -EHOSTUNREACH;
		break;
	default:
		if (conn->established || ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			fq_cm_conn_event(conn, ev);
		return 0;
	}
	spin_lock_bh(conn->lock);
	conn->cm_status = status;
	/* pairs with fq_cm_wait()'s acquire: who sees the event sees its status */
	smp_store_release(&conn->cm_seq, conn->cm_seq + 1);
	spin_unlock_bh(conn->lock);
	fq_cm_event(comm);
	return 0;
}

/*
 * Wait for the next rdma_cm event of @conn after @seq, or the deadline, a
 * signal, or the communicator failing.
 */
static int fq_cm_wait(struct fq_conn *conn, u32 seq, unsigned long deadline)
{
	struct fq_comm *comm = conn->comm;
	long left = (long)(deadline - jiffies);

	if (left <= 0)
		return -ETIMEDOUT;
	/* the acquire pairs with the handler's release: cm_status is its event's */
	left = wait_event_interruptible_timeout(comm->wq, smp_load_acquire(&conn->cm_seq) != seq ||
						READ_ONCE(comm->err), left);
	if (left < 0)
		return -EINTR;
	if (READ_ONCE(comm->err))
		return comm->err;
	if (!left)
		return -ETIMEDOUT;
	return READ_ONCE(conn->cm_status);
}

/*
 * The class of service of a connection this rank makes: the port's "tc"
 * and "sl" QoS intents, as fabriq ping's, with the caller's traffic class
 * (FABRIQ_COMM_F_TCLASS) first.  The accepting side answers on the path
 * of the connect request, which carries both, so both directions of the
 * connection use them.
 * Context: process; the address is resolved (@id has its device);
 * hw_rwsem held for reading, which the lock order puts above
 * fabriq_qos_lock (Documentation/design.md).
 */
static void fq_cm_qos_want(struct fq_comm *comm, struct rdma_cm_id *id,
			   struct fabriq_qos_path *want)
{
	fabriq_qos_path_intent(dev_name(&id->device->dev), id->port_num, want);
	if (comm->has_tclass) {
		want->tclass = comm->tclass;
		want->has_tclass = true;
	}
}

static int fq_cm_try_connect(struct fq_comm *comm, struct fq_conn *conn, unsigned long deadline)
{
	struct sockaddr_storage src = comm->addrs[comm->rank];
	struct fq_auth_hs hs = fq_conn_handshake(conn);
	struct fabriq_cm_req req = {
		.version = cpu_to_be32(FABRIQ_CM_VERSION),
		.rank = cpu_to_be32(comm->rank),
		.nranks = cpu_to_be32(comm->nranks),
		.chan = hs.chan,
		.channels = hs.params.channels,
		.algo = hs.params.algo,
		.flags = hs.params.flags,
		.comm_id = cpu_to_be64(comm->id),
		.chunk = cpu_to_be32(hs.params.chunk),
		.small_bytes = cpu_to_be32(hs.params.small_bytes),
	};
	struct fabriq_qos_path want;
	struct rdma_conn_param param;
	struct rdma_cm_id *id;
	u32 seq;
	int err;

	/* bind to the address only: the port is the listener's */
	if (src.ss_family == AF_INET)
		((struct sockaddr_in *)&src)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
	mutex_lock(&comm->setup_lock);
	if (comm->state != FQ_COMM_CONNECTING) {
		mutex_unlock(&comm->setup_lock);
		return comm->err ? comm->err : -ECANCELED;
	}
	id = rdma_create_id(conn->comm->net, fq_cm_active_handler, conn, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		mutex_unlock(&comm->setup_lock);
		return PTR_ERR(id);
	}
	conn->id = id;
	atomic_inc(&fq_objects.cm_ids);
	mutex_unlock(&comm->setup_lock);

	seq = READ_ONCE(conn->cm_seq);
	err = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&comm->addrs[conn->peer->rank], FQ_RESOLVE_MS);
	if (!err)
		err = fq_cm_wait(conn, seq, deadline);
	if (err)
		return err;
	if (id->device != comm->ibdev)
		return -EXDEV;
	fq_cm_qos_want(comm, id, &want);
	fabriq_qos_path_ask(id, &want);
	seq = READ_ONCE(conn->cm_seq);
	err = rdma_resolve_route(id, FQ_RESOLVE_MS);
	if (!err)
		err = fq_cm_wait(conn, seq, deadline);
	if (err)
		return err;
	mutex_lock(&comm->setup_lock);
	err = -ECANCELED;
	if (comm->state == FQ_COMM_CONNECTING) {
		fabriq_qos_path_route(id, &want);
		fabriq_qos_path_used(id, &conn->qos);
		err = rdma_set_min_rnr_timer(id, FQ_MIN_RNR_TIMER) ?: fq_conn_setup_qp(conn);
	}
	mutex_unlock(&comm->setup_lock);
	if (err)
		return err;
	hs.req_qpn = id->qp->qp_num;
	err = fq_auth_mac(comm, &hs, req.mac);
	if (err)
		return err;
	fq_conn_param(&param, &req, sizeof(req), fq_conn_reads(conn), fq_conn_reads(conn));
	seq = READ_ONCE(conn->cm_seq);
	err = rdma_connect(id, &param);
	if (!err)
		err = fq_cm_wait(conn, seq, deadline);
	return err;
}

static bool fq_cm_retryable(int err)
{
	return err == -ECONNREFUSED || err == -EHOSTUNREACH || err == -ENETUNREACH ||
	       err == -EADDRNOTAVAIL || err == -ETIMEDOUT;
}

static int fq_cm_connect_one(struct fq_comm *comm, struct fq_conn *conn, unsigned long deadline)
{
	int err;

	for (;;) {
		err = fq_cm_try_connect(comm, conn, deadline);
		if (!err)
			return 0;
		fq_conn_release(conn);
		if (!fq_cm_retryable(err) || READ_ONCE(comm->err))
			return err;
		if (time_after_eq(jiffies, deadline))
			return -ETIMEDOUT;
		if (msleep_interruptible(FQ_RETRY_MS) && signal_pending(current))
			return -EINTR;
	}
}

/* Count this communicator's traffic on the port its address is on. */
static void fq_cm_own_port(struct fq_comm *comm, struct rdma_cm_id *id)
{
	struct fabriq_dev *fdev = fabriq_dev_get_by_index(id->device->index);
	struct fabriq_port *port = fdev ? fabriq_dev_port(fdev, id->port_num) : NULL;

	if (!port || !fq_tm(port)) {
		fabriq_dev_put(fdev);
		return;
	}
	comm->fdev = fdev;
	comm->own = fq_tm(port)->own;
}

static int fq_cm_listen(struct fq_comm *comm)
{
	struct rdma_cm_id *id;
	int err;

	id = rdma_create_id(comm->net, fq_cm_listen_handler, comm, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	atomic_inc(&fq_objects.cm_ids);
	mutex_lock(&comm->setup_lock);
	comm->listen_id = id;
	mutex_unlock(&comm->setup_lock);
	err = rdma_bind_addr(id, (struct sockaddr *)&comm->addrs[comm->rank]);
	if (err)
		return err == -EADDRINUSE ? -EADDRINUSE : -EADDRNOTAVAIL;
	if (!id->device)
		return -EADDRNOTAVAIL;
	mutex_lock(&comm->setup_lock);
	comm->ibdev = id->device;
	/* a software device (rxe, siw) completes on the CPUs a spin would take */
	comm->busy_poll = !ib_uses_virt_dma(id->device);
	mutex_unlock(&comm->setup_lock);
	fq_cm_own_port(comm, id);
	return rdma_listen(id, min_t(u32, comm->nranks * fq_nconn(comm), 1024));
}

/* how many of connection @c's peers share a CQ of at most @cap entries */
static u32 fq_cq_peers_each(const struct fq_comm *comm, u32 c, u32 cap)
{
	return max(cap / fq_qp_cqes(c == comm->nch), 1U);
}

/*
 * The CQs: each channel's connections complete on CQs of their own, and
 * so do the control connections, so that on a NIC each channel's
 * completions come on a vector of their own (ib_alloc_cq_any() spreads
 * the CQs over the device's).  A CQ has room for every completion its
 * QPs may hold at once (their queue depths): one that overflows is a
 * fatal error of the device's (rxe drops the completion: a drain would
 * wait for ever).  Where a channel's peers need more than a CQ may have
 * (the device's max_cqe, or max_cq_entries), they spread over as many CQs
 * as it takes, consecutive peers on each; a CQ has room for one QP at
 * least, whatever max_cq_entries says.
 * Context: process (COMM_INIT), before any QP is set up.
 * Return: 0, -EINVAL (the device's CQs cannot hold one QP's), -ENOMEM or
 * the device's error.
 */
static int fq_cm_alloc_cqs(struct fq_comm *comm)
{
	u32 cap = fq_limits_cq_entries(comm->ibdev->attrs.max_cqe);
	u32 npeers = comm->nranks - 1, ncq = 0, entries = 0;
	u32 c, r, i, per, need, n, first;
	struct ib_cq **cqs;
	struct ib_cq *cq;

	for (c = 0; c < fq_nconn(comm); c++) {
		if (fq_qp_cqes(c == comm->nch) > comm->ibdev->attrs.max_cqe)
			return -EINVAL;
		ncq += DIV_ROUND_UP(npeers, fq_cq_peers_each(comm, c, cap));
	}
	cqs = kcalloc(ncq, sizeof(*cqs), GFP_KERNEL_ACCOUNT);
	if (!cqs)
		return -ENOMEM;
	mutex_lock(&comm->setup_lock);
	comm->cqs = cqs;	/* teardown frees those allocated */
	WRITE_ONCE(comm->ncq, ncq);
	mutex_unlock(&comm->setup_lock);
	for (c = 0, first = 0; c < fq_nconn(comm); c++) {
		need = fq_qp_cqes(c == comm->nch);
		per = fq_cq_peers_each(comm, c, cap);
		for (r = 0, i = 0; r < comm->nranks; r++) {
			if (r == comm->rank)
				continue;
			if (i % per == 0) {
				/* @per peers' room; the channel's last CQ: the peers left */
				n = min(per, npeers - i) * need;
				cq = ib_alloc_cq_any(comm->ibdev, comm, n, IB_POLL_SOFTIRQ);
				if (IS_ERR(cq))
					return PTR_ERR(cq);
				cqs[first + i / per] = cq;
				atomic_inc(&fq_objects.cqs);
				entries += n;
			}
			fq_peer_conn(comm, &comm->peers[r], c)->cq = cqs[first + i / per];
			i++;
		}
		first += DIV_ROUND_UP(npeers, per);
	}
	mutex_lock(&comm->setup_lock);
	comm->cq_entries = entries;
	mutex_unlock(&comm->setup_lock);
	return 0;
}

static int fq_cm_alloc_hw(struct fq_comm *comm)
{
	int err;

	/* zero-copy when a chunk's pages fit the device's SGEs (measured faster) */
	comm->zero_copy = !comm->bounce &&
		fq_chunk_max_pages(comm->chunk) <= min_t(u32, comm->ibdev->attrs.max_send_sge,
							 FQ_MAX_SGE);
	comm->pd = ib_alloc_pd(comm->ibdev, 0);
	if (IS_ERR(comm->pd)) {
		int err = PTR_ERR(comm->pd);

		comm->pd = NULL;
		return err;
	}
	atomic_inc(&fq_objects.pds);
	err = fq_cm_alloc_cqs(comm);
	if (err)
		return err;
	/* the wire's rule, which every rank must share; a rank without MRs grants none */
	comm->write_grants = fq_push_wanted();
	fq_rndv_alloc_mrs(comm);
	return 0;
}

static bool fq_cm_all_up(struct fq_comm *comm)
{
	u32 r, c;

	for (r = 0; r < comm->nranks; r++)
		for (c = 0; r != comm->rank && c < fq_nconn(comm); c++)
			if (!READ_ONCE(fq_peer_conn(comm, &comm->peers[r], c)->established))
				return false;
	return true;
}

/* An accepted connection that failed before it was up, if there is one. */
static struct fq_conn *fq_cm_half_open(struct fq_comm *comm)
{
	u32 r, c;

	struct fq_conn *conn;

	for (r = comm->rank + 1; r < comm->nranks; r++)
		for (c = 0; c < fq_nconn(comm); c++) {
			conn = fq_peer_conn(comm, &comm->peers[r], c);
			if (READ_ONCE(conn->setup_failed))
				return conn;
		}
	return NULL;
}

/* Free the slots of accepted connections that failed before they were up. */
static void fq_cm_reap_half_open(struct fq_comm *comm)
{
	struct fq_conn *conn;

	while ((conn = fq_cm_half_open(comm)))
		fq_conn_release(conn);
}

/**
 * fq_cm_connect_all() - listen, connect to every lower rank, and wait
 * until every higher rank has connected
 * @comm: a communicator in state NEW
 *
 * Context: process (COMM_INIT); a signal ends it with -EINTR.
 * Return: 0 or -errno (-ETIMEDOUT when a peer never came).
 */
int fq_cm_connect_all(struct fq_comm *comm)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(comm->connect_timeout_ms);
	long left;
	u32 r, c;
	int err;

	down_read(&comm->hw_rwsem);
	err = fq_cm_listen(comm);
	if (!err)
		err = fq_cm_alloc_hw(comm);
	if (!err) {
		mutex_lock(&comm->setup_lock);
		if (comm->state == FQ_COMM_NEW)
			comm->state = FQ_COMM_CONNECTING;
		else
			err = comm->err ? comm->err : -ECANCELED;
		mutex_unlock(&comm->setup_lock);
	}
	/* heartbeats go out on each control connection as soon as it is up */
	if (!err)
		fq_ctrl_start(comm);
	for (r = 0; !err && r < comm->rank; r++)
		for (c = 0; !err && c < fq_nconn(comm); c++)
			err = fq_cm_connect_one(comm, fq_peer_conn(comm, &comm->peers[r], c),
						deadline);
	while (!err && !fq_cm_all_up(comm)) {
		left = (long)(deadline - jiffies);
		if (left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		left = wait_event_interruptible_timeout(comm->wq, fq_cm_all_up(comm) ||
							fq_cm_half_open(comm) ||
							READ_ONCE(comm->err), left);
		if (left < 0)
			err = -EINTR;
		else if (READ_ONCE(comm->err))
			err = comm->err;
		else
			fq_cm_reap_half_open(comm);
	}
	if (!err) {
		mutex_lock(&comm->setup_lock);
		if (comm->state == FQ_COMM_CONNECTING)
			comm->state = FQ_COMM_READY;
		else
			err = comm->err ? comm->err : -ECANCELED;
		mutex_unlock(&comm->setup_lock);
	}
	up_read(&comm->hw_rwsem);
	return err;
}

/**
 * fq_cm_teardown() - release every verbs and rdma_cm resource, once
 * @comm: the communicator
 *
 * The communicator must already have failed (fq_comm_fail()), so COMM_INIT
 * and the engine let go of hw_rwsem; rdma_cm handlers see the state and
 * create nothing more.
 *
 * Context: process; not from an rdma_cm handler of this communicator.
 */
void fq_cm_teardown(struct fq_comm *comm)
{
	u32 r, c, i;

	mutex_lock(&comm->setup_lock);
	if (comm->state < FQ_COMM_FAILED)
		comm->state = FQ_COMM_FAILED;
	mutex_unlock(&comm->setup_lock);

	fq_ctrl_stop(comm);
	down_write(&comm->hw_rwsem);
	if (comm->hw_gone)
		goto out;
	if (comm->listen_id) {
		rdma_destroy_id(comm->listen_id);
		atomic_dec(&fq_objects.cm_ids);
		comm->listen_id = NULL;
	}
	for (r = 0; r < comm->nranks; r++)
		for (c = 0; r != comm->rank && c < fq_nconn(comm); c++)
			fq_conn_release(fq_peer_conn(comm, &comm->peers[r], c));
	/* no send reads the buffers now; the device may go once this returns */
	fq_rndv_free_mrs(comm);
	fq_regcache_unmap(&comm->regs);
	for (i = 0; i < comm->ncq; i++) {
		if (!comm->cqs[i])
			continue;
		ib_free_cq(comm->cqs[i]);
		atomic_dec(&fq_objects.cqs);
	}
	mutex_lock(&comm->setup_lock);
	kfree(comm->cqs);
	comm->cqs = NULL;
	WRITE_ONCE(comm->ncq, 0);
	comm->cq_entries = 0;
	mutex_unlock(&comm->setup_lock);
	if (comm->pd) {
		ib_dealloc_pd(comm->pd);
		atomic_dec(&fq_objects.pds);
		comm->pd = NULL;
	}
	WRITE_ONCE(comm->hw_gone, true);
	mutex_lock(&comm->setup_lock);
	comm->state = FQ_COMM_DEAD;
	mutex_unlock(&comm->setup_lock);
out:
	up_write(&comm->hw_rwsem);
	fq_comm_wake_all(comm);	/* an engine waiting for its sends' flush */
}
