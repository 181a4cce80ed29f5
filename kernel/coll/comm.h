/* SPDX-License-Identifier: GPL-2.0 */
/*
 * comm.h - communicators: the structures shared by comm.c (lifetime and
 * the /dev/fabriq file), cm.c (rdma_cm connections and the message
 * transport) and coll.c (the engine that runs the schedules).
 *
 * Lock order (the module's one order is in Documentation/design.md): the
 * file's lock, fq_comm.run_lock, telemetry's fq_tm_stats_ext_lock (around
 * the STATS_GET part, comm_stats_netlink.c), fq_comms_lock,
 * fq_comm.hw_rwsem, rdma_cm's handler_mutex, fq_comm.setup_lock, then
 * fq_comm.hb_lock, then one connection's lock (fq_conn.lock: its
 * channel's, fq_chan.lock, or for a control connection fq_comm.lock;
 * never two at once), then the leaves fq_comm.stats_lock and done_lock.
 * rdma_cm handlers take only setup_lock and the connections' locks, so
 * teardown may wait for them while holding hw_rwsem; teardown takes
 * setup_lock alone first to stop them.
 *
 * The completions of one channel's connections (their CQs are the
 * channel's own, cm.c: fq_cm_alloc_cqs()) take that channel's lock
 * only: what they mark (credits, rings, acks, MRs given back) is the
 * channel's, so channels progress on different CPUs without meeting.
 * A call's channel workers (coll.c) take hw_rwsem for reading, their
 * channel's lock and the leaves, never run_lock: the call's thread holds
 * it while it waits for them.
 */
#ifndef _FABRIQ_COMM_H
#define _FABRIQ_COMM_H

#include <net/genetlink.h>
#include <linux/bits.h>
#include <linux/kfifo.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>
#include <linux/fabriq.h>
#include <linux/fabriq_wire.h>

#include "algo.h"
#include "coll_fresh.h"
#include "flow.h"
#include "pipe.h"
#include "qos/qos_path.h"
#include "telemetry/telemetry.h"

#define FQ_MAX_SGE		32	/* zero-copy: pages one message may span */

/* The most pages a message of up to @chunk bytes spans, wherever it starts. */
static inline u32 fq_chunk_max_pages(u32 chunk)
{
	return DIV_ROUND_UP(chunk - 1, PAGE_SIZE) + 1;
}

/*
 * Smaller messages are copied through a slot even in zero-copy mode: the
 * copy costs less than waiting for the send's acknowledgment, which a
 * zero-copy step must do before it may end (make bench measures both).
 */
#define FQ_ZC_MIN_BYTES		16384

/*
 * Immediate data: credits returned in the low 16 bits, the kind above,
 * and how many of the peer's read requests this side has read (the FIN of
 * a rendezvous, cm.c) in bits 20..27.
 */
#define FQ_IMM_CREDITS		0xffffU
#define FQ_IMM_DATA		BIT(16)
#define FQ_IMM_CREDIT_ONLY	BIT(17)
#define FQ_IMM_RTS		BIT(18)	/* with FQ_IMM_DATA: a read request */
#define FQ_IMM_CTS		BIT(19)	/* without it: a write grant (push.c) */
#define FQ_IMM_FIN_SHIFT	20
#define FQ_IMM_FIN_MAX		0xffU

/*
 * A message the peer copies into place (struct fq_xfer.into) of this many
 * bytes or more goes as a read request, when the bytes are in a buffer the
 * device has mapped: the receiver reads it straight into place.
 */
#define FQ_RNDV_MIN_BYTES	FQ_ZC_MIN_BYTES
#define FQ_RNDV_MRS		32	/* MRs a communicator lends out at once */
/*
 * One read request lends the consecutive messages of a transfer that are
 * ready, up to FQ_RNDV_MAX_BYTES (a limit of the protocol: the receiver
 * refuses more, whatever its page size), so up to FQ_RNDV_PAGES pages
 * wherever it starts: one registration, request and invalidation for
 * them all, and a read each.
 */
#define FQ_RNDV_MAX_BYTES	SZ_512K
#define FQ_RNDV_PAGES		(FQ_RNDV_MAX_BYTES / PAGE_SIZE + 1)

struct crypto_shash;
struct fq_comm;
struct fq_rndv_room;
struct fq_peer;
struct fq_conn;

/* rdma_cm contexts are either a communicator (its listener) or a connection */
enum fq_cm_kind {
	FQ_CM_COMM = 1,
	FQ_CM_CONN,
};

/**
 * struct fq_rx_ctx - a receive slot's completion context
 * @cqe: handed to the verbs
 * @conn: the connection
 * @slot: index in fq_conn.rx_buf
 */
struct fq_rx_ctx {
	struct ib_cqe cqe;
	struct fq_conn *conn;
	u32 slot;
};

/**
 * struct fq_ack - which messages of one transfer the engine is done with
 * (copied out, or for zero-copy completed), which may happen out of order
 * (copied small messages behind zero-copy ones, reads); under the lock
 * of the connection its messages go on (a transfer is one channel's)
 * @prefix: messages 0 .. prefix-1 are all done
 * @window: bit i: message prefix + i is done; the engine builds or takes
 *	no message FQ_ACK_WINDOW or more past @prefix (a read request stays
 *	open until the peer read it, and a read until it completes, while
 *	later plain messages are done at once)
 */
struct fq_ack {
	u64 prefix;
	u64 window;
};

/* How many messages of @ack's transfer are done, in a row from the first (no lock) */
static inline u64 fq_ack_done(const struct fq_ack *ack)
{
	/* pairs with fq_ack_mark()'s release: what a mark says is done, is */
	return smp_load_acquire(&ack->prefix);
}

/*
 * Sends are signaled selectively: the last of every chain posted, and
 * every FQ_SIGNAL_EVERY-th, so a completion retires the sends before it
 * too (an RC send queue completes in order) and no slot waits longer
 * than that many sends for its completion.
 */
#define FQ_SIGNAL_EVERY		FQ_CREDIT_BATCH

/*
 * A data message of up to this many bytes goes inline where the device
 * takes that much (IB_SEND_INLINE): the device copies it from the send
 * slot when it is posted, and reads no memory for it afterwards (on a
 * NIC, one DMA read less on a small call's path).  What a QP asks; it
 * gets what the device grants, perhaps none.
 */
#define FQ_INLINE_BYTES		256

/* what a work request on a data connection's send queue is (cm.c) */
enum fq_tx_kind {
	FQ_TX_SEND,	/* a data message (or read request): takes a credit */
	FQ_TX_REG,	/* registers a read request's MR */
	FQ_TX_READ,	/* reads a peer's read request into place */
	FQ_TX_INV,	/* invalidates a read request's MR once the peer read it */
	FQ_TX_UNGRANT,	/* invalidates a write grant's MR once written (push.c) */
};

/**
 * struct fq_write_to - where a message the peer granted goes (push.c)
 * @addr: the address in the peer's MR
 * @rkey: its key
 */
struct fq_write_to {
	u64 addr;
	u32 rkey;
};

/**
 * struct fq_cts_in - a write grant the peer sent, until its messages are
 * built (push.c); under the connection's lock
 * @addr: where the first goes in the peer's MR; @rkey: its key
 * @len: their bytes; @off: how many are built
 * @seq: the first one's number among the data messages this rank sent
 *	the peer on the connection (fq_msg_counts.send_seq)
 * @nmsg: how many (0: no grant)
 * @used: how many are built
 */
struct fq_cts_in {
	u64 addr;
	u32 rkey;
	u32 len;
	u32 off;
	u64 seq;
	u32 nmsg;
	u32 used;
};

/**
 * struct fq_tx_ent - a work request on a data connection's send queue,
 * from when it is built until it completes (the queue completes in order)
 * @cqe: its completion (signaled, or in error: a flushed one always has one)
 * @conn: the connection
 * @wr: the work request, chained to the next one when posted; @rdma, @reg:
 *	the same, for a read and a registration
 * @sge: its gather (a read: scatter) list: the pages of a zero-copy send,
 *	or the send slot, or where a read lands; fq_conn.tx_sges entries, in
 *	the connection's allocation
 * @nsge: entries of @sge mapped for this request alone, unmapped when it
 *	completes (0: a slot's, or from a buffer mapped once, dmamap.c)
 * @kind: enum fq_tx_kind
 * @inl: a data message sent inline (its sge holds the slot's kernel address)
 * @cts: a write grant (push.c), not a data message
 * @write: a data message written where the peer granted it
 * @dir: the direction @nsge entries are mapped in
 * @ret: credits it carries back to the peer
 * @fin: read requests of the peer it reports read (a read: 1 if it is
 *	the last of its request, whose completion reports the request read)
 * @ack: the transfer's, marked at completion: a zero-copy send's, a
 *	read's (the receive: placed), an invalidation's (the send: freed)
 * @msg: the message's index in that transfer
 * @nmsg: messages from @msg on it marks (an invalidation's: those its
 *	read request lent; else 1)
 * @mr: an invalidation's MR, back to the pool at completion
 * @t_post: when it was posted (ktime ns), for the completion time
 * @bytes: its payload (a read request: the bytes it offers)
 */
struct fq_tx_ent {
	struct ib_cqe cqe;
	struct fq_conn *conn;
	union {
		struct ib_send_wr wr;
		struct ib_rdma_wr rdma;
		struct ib_reg_wr reg;
	};
	struct ib_sge *sge;
	u8 nsge;
	u8 kind;
	bool inl;
	bool cts;
	bool write;
	u8 dir;
	u32 ret;
	u32 fin;
	struct fq_ack *ack;
	u64 msg;
	u32 nmsg;
	struct ib_mr *mr;
	u64 t_post;
	u32 bytes;
};

/**
 * struct fq_rndv - a read request this side sent, until its MR is invalidated
 * @mr: the MR that lends the bytes
 * @ack: the sending transfer's, marked when the MR is invalidated
 * @msg: the first message it lends, its index in that transfer
 * @nmsg: how many (consecutive) messages it lends
 */
struct fq_rndv {
	struct ib_mr *mr;
	struct fq_ack *ack;
	u64 msg;
	u32 nmsg;
};

/**
 * struct fq_push_grant - the write grant a channel has out (push.c), from
 * when it is built until its MR is invalidated; under the channel's lock
 * where the completions touch it (@conn, @nsge), else the engine's
 * @conn: the connection it went on (NULL: none out)
 * @mr: the MR that lends the bytes
 * @ack: the receive's, @msg: the first message's index in it
 * @seq: that message's number among those the peer sent on @conn
 *	(fq_msg_counts.recv_seq)
 * @nmsg: how many it grants; @got: how many came written
 * @closing: its invalidation is built
 * @dst: where the first message goes
 * @sge: the run's pages, mapped for the device to write (@nsge of them;
 *	room for FQ_RNDV_PAGES, in the channel's struct fq_rndv_room)
 */
struct fq_push_grant {
	struct fq_conn *conn;
	struct ib_mr *mr;
	struct fq_ack *ack;
	u64 msg;
	u64 seq;
	u32 nmsg;
	u32 got;
	bool closing;
	void *dst;
	u32 nsge;
	struct ib_sge *sge;
};

/**
 * struct fq_qp_stats - what one QP carried; under the connection's lock
 * @tx_wrs: data sends completed (read requests included)
 * @tx_cqes: completions delivered of anything on the send queue (data
 *	sends, reads, registrations, invalidations): a completion retires
 *	the unsignaled requests before it
 * @tx_bytes: their payload (a read request: the bytes it offers)
 * @rx_wrs: data messages received (read requests: once read)
 * @rx_bytes: their payload
 * @rts_tx: read requests sent (and completed)
 * @inline_tx: data messages sent inline (and completed)
 * @reads: the peer's read requests read
 * @cts_tx: write grants sent (and completed); @cts_rx: received
 * @writes_tx: data messages written where the peer granted (and completed)
 * @writes_rx: data messages that came written
 * @errors: completions in error (flushes after a close are not errors)
 * @cqe_ns: send post -> completion, summed over @tx_wrs
 * @cqe_max_ns: the slowest
 */
struct fq_qp_stats {
	u64 tx_wrs;
	u64 tx_cqes;
	u64 tx_bytes;
	u64 rx_wrs;
	u64 rx_bytes;
	u64 rts_tx;
	u64 inline_tx;
	u64 reads;
	u64 cts_tx;
	u64 cts_rx;
	u64 writes_tx;
	u64 writes_rx;
	u64 errors;
	u64 cqe_ns;
	u64 cqe_max_ns;
};

/**
 * struct fq_msg_counts - data messages and their payload, one way and the other
 * @send_seq: data messages sent
 * @recv_seq: data messages taken
 * @tx_bytes: payload sent; @rx_bytes: payload received
 */
struct fq_msg_counts {
	u64 send_seq;
	u64 recv_seq;
	u64 tx_bytes;
	u64 rx_bytes;
};

/**
 * struct fq_conn - one RC QP to one peer (one channel)
 * @cm_kind: FQ_CM_CONN
 * @comm: owner
 * @peer: the peer
 * @chan: channel number (the control connection: fq_comm.nch)
 * @lock: the lock of the fields below marked so: its channel's
 *	(fq_chan.lock), or fq_comm.lock for the control connection
 * @events: the counter its data completions and flushes bump: its
 *	channel's (fq_chan.events), or fq_comm.events for the control
 *	connection (whose heartbeats bump none)
 * @wq: where whoever runs its channel waits (fq_chan.wq with channel
 *	workers, else fq_comm.wq, as for the control connection)
 * @control: the control connection (ctrl.c), which carries only
 *	heartbeats: FQ_CTRL_SLOTS receive slots and one send slot of
 *	FQ_CTRL_SLOT_BYTES; else a data channel
 * @hb_busy: (control) a heartbeat is in flight (under fq_comm.lock)
 * @hb_stopped: (control) fq_conn_release() runs: no heartbeat may start
 *	(under fq_comm.hb_lock and fq_comm.lock)
 * @id: the rdma_cm id; NULL before connecting and after teardown
 * @has_qp: @id has a QP
 * @established: the connection is up
 * @peer_closed: jiffies when the peer disconnected, or the QP went to
 *               error by itself (0: neither); data the peer sent before
 *               may still be on its way through the CQ
 * @setup_failed: accepted but never established (passive side); COMM_INIT
 *                releases it so that the peer's next attempt finds the slot
 *                free (under @lock)
 * @cm_seq: bumped by the active side's rdma_cm handler at each event
 * @cm_status: result of the last event (active side)
 * @rx_buf: FQ_RECV_SLOTS receive slots of chunk bytes, @rx_dma their mappings
 * @tx_buf: FQ_CREDITS send slots, @tx_dma their mappings (data message
 *	number i of the connection uses slot i % FQ_CREDITS)
 * @max_inline: data messages of up to this many bytes go inline (what the
 *	device granted the QP, at most FQ_INLINE_BYTES)
 * @tx_ent: the work requests in flight: a data connection's ring of
 *	FQ_TX_ENTS, a control connection's one heartbeat (fq_conn_tx_ents());
 *	after them in the same allocation, each one's @tx_sges SGEs
 * @rx_ctx: one per receive slot
 * @credit_cqe: credit-only sends
 * @est_work: tells rdma_cm the connection is up (fq_cm_peer_sent())
 * @tx_posted: work requests posted (the engine's alone, no lock): those
 *	from here to @tx_head are built and wait for fq_cm_post()
 * @rndv: the read requests sent and not yet invalidated, a ring of
 *	FQ_CREDITS: @rndv_head sent, @rndv_fin read by the peer (its FINs),
 *	@rndv_inv invalidation built
 * @rndv_ok: the peer and this side read each other's requests (both
 *	granted reads when connecting)
 * @rts_msgs: the messages the peer's read request first in line lends
 *	(0: none seen yet), @rts_read of them read (reads built): it is
 *	consumed once all are (the engine's alone)
 * @cts_in: the write grant the peer sent last (push.c; under @lock)
 * @msgs: the data messages and payload the engine sent and took on it
 *	(written by the thread running its channel alone, read unlocked)
 *
 * Under @lock:
 * @credits: data messages the peer can take now
 * @ret_credits: receive slots reposted, not yet reported to the peer
 * @fin_pending: the peer's read requests read, not yet reported to it
 * @ctl_inflight: credit-only messages in flight (each takes a receive
 *	slot of the peer's FQ_CTL_INFLIGHT spares)
 * @tx_head: work requests built; @tx_tail: ... completed
 * @tx_msgs: data messages built; @tx_msgs_done: ... completed
 * @sq_used: work requests on the send queue
 * @rxq: data messages received, in order: slot, length, a read request?
 *	written in place (push.c)?
 * @rx_head: next message to consume; @rx_tail: next to fill
 * @st: what the QP carried
 * @qos: the class of service its route carries, read when it was set up
 *	(comm->setup_lock)
 * @cq: the CQ its QP completes on (fq_comm.cqs; set before any QP is)
 * @tx_sges: the room in each @tx_ent's SGE list (fq_conn_tx_sges())
 */
struct fq_conn {
	u8 cm_kind;
	struct fq_comm *comm;
	struct fq_peer *peer;
	u32 chan;
	spinlock_t *lock;	/* see above */
	atomic64_t *events;
	wait_queue_head_t *wq;
	bool control;
	bool hb_busy;
	bool hb_stopped;
	struct rdma_cm_id *id;
	bool has_qp;
	bool established;
	unsigned long peer_closed;
	bool setup_failed;
	u32 cm_seq;
	int cm_status;
	void *rx_buf[FQ_RECV_SLOTS];
	u64 rx_dma[FQ_RECV_SLOTS];
	void *tx_buf[FQ_CREDITS];
	u64 tx_dma[FQ_CREDITS];
	u32 max_inline;
	struct fq_rx_ctx rx_ctx[FQ_RECV_SLOTS];
	struct ib_cqe credit_cqe;
	struct work_struct est_work;
	struct fq_rndv rndv[FQ_CREDITS];
	u32 rndv_head;
	u32 rndv_fin;
	u32 rndv_inv;
	bool rndv_ok;
	u32 rts_msgs;
	u32 rts_read;
	struct fq_cts_in cts_in;
	struct fq_msg_counts msgs;

	u32 credits;
	u32 ret_credits;
	u32 fin_pending;
	u32 ctl_inflight;
	u32 tx_head;
	u32 tx_tail;
	u32 tx_msgs;
	u32 tx_msgs_done;
	u32 tx_posted;
	u32 sq_used;
	struct {
		u16 slot;
		bool rts;
		bool written;
		u32 len;
	} rxq[FQ_RECV_SLOTS];
	u32 rx_head;
	u32 rx_tail;
	struct fq_qp_stats st;
	struct fabriq_qos_path qos;
	struct ib_cq *cq;
	u32 tx_sges;
	struct fq_tx_ent tx_ent[];
};

/**
 * struct fq_link_report - what one rank finds of its links (link.c)
 * @slow: how many are slow
 * @worst: the peer of the slowest of them (FABRIQ_STATUS_NO_RANK: none)
 * @ratio: its latency / its baseline, x100
 */
struct fq_link_report {
	u32 slow;
	u32 worst;
	u32 ratio;
};

/**
 * struct fq_rank_status - where a rank is: its engine's, or a peer's as
 * its heartbeat (struct fabriq_status) told
 * @running: in a call
 * @op_seq: the call it runs or last ran (0: none yet)
 * @ops_done: calls it finished
 * @step: the step of @op_seq it has got to
 * @wait_rank: whom it waits on (FABRIQ_STATUS_NO_RANK: nobody)
 * @wait_ns: for how long
 * @dead_rank: the first peer it found dead (FABRIQ_STATUS_NO_RANK: none)
 * @links: what it finds of its links (link.c)
 */
struct fq_rank_status {
	bool running;
	u64 op_seq;
	u64 ops_done;
	u32 step;
	u32 wait_rank;
	u64 wait_ns;
	u32 dead_rank;
	struct fq_link_report links;
};

/**
 * struct fq_rank_view - one rank of a communicator as this host sees it,
 * with whom it holds up (ctrl.c: fq_ctrl_view())
 * @rs: where it is
 * @state: enum fabriq_rank_state
 * @heard_ms: since its last heartbeat (peers that sent one)
 * @inherited_ns: the part of its wait it waited because the rank it
 *	waits on waits too
 * @origin: others' waits end at it
 * @blocks: how many ranks' waits end at it
 * @link_blame: slow links that end at it, as the ranks report them
 * @link_suspect: it has the most link blame, alone (link.c)
 */
struct fq_rank_view {
	struct fq_rank_status rs;
	u8 state;
	u32 heard_ms;
	u64 inherited_ns;
	bool origin;
	u32 blocks;
	u32 link_blame;
	bool link_suspect;
};

/**
 * struct fq_run - what the engine is at, for the heartbeats; written by
 * the engine alone (WRITE_ONCE), read unlocked (READ_ONCE); where each
 * channel is, is its fq_chan.run
 * @op_seq: the call it runs or last ran; @running: it runs one now
 */
struct fq_run {
	u64 op_seq;
	bool running;
};

/**
 * struct fq_chan_run - where one channel of the running call is, for the
 * heartbeats; written by the thread running the channel alone
 * (WRITE_ONCE), read unlocked (READ_ONCE; coll.c: fq_run_where())
 * @active: it has steps in flight
 * @step: the step it has got to (the oldest in flight)
 * @wait_rank: the rank it waits on (FABRIQ_STATUS_NO_RANK: none)
 * @wait_since_ns: since when: the wait began, or that rank last gave it
 *	something (ktime ns)
 */
struct fq_chan_run {
	bool active;
	u32 step;
	u32 wait_rank;
	u64 wait_since_ns;
};

/*
 * enum fq_hb_fault - what the debugfs knob fault_heartbeat breaks in this
 * rank's next heartbeat (ctrl.c): its length, its magic, the sender's
 * rank (the receiver's instead), the rank it waits on (out of range), the
 * rank it found dead (itself), or the far end of its slowest link
 * (itself).  Each one a receiver must refuse.
 */
enum fq_hb_fault {
	FQ_HB_FAULT_NONE,
	FQ_HB_FAULT_SHORT,
	FQ_HB_FAULT_MAGIC,
	FQ_HB_FAULT_RANK,
	FQ_HB_FAULT_WAIT_RANK,
	FQ_HB_FAULT_DEAD_RANK,
	FQ_HB_FAULT_SLOW_RANK,
	FQ_HB_FAULT_COUNT,
};

/* how the debugfs knob fault_rndv breaks this rank's next read request or FIN */
enum fq_rndv_fault {
	FQ_RNDV_FAULT_NONE,
	FQ_RNDV_FAULT_LEN,	/* a length one less than the messages' */
	FQ_RNDV_FAULT_SHORT,	/* a request of 8 bytes */
	FQ_RNDV_FAULT_RKEY,	/* a key that is not the MR's */
	FQ_RNDV_FAULT_REDUCE,	/* a request for a message the peer reduces */
	FQ_RNDV_FAULT_FIN,	/* 255 reads reported more than done */
	FQ_RNDV_FAULT_CTS_LEN,	/* write grants a byte longer than their messages (sticky) */
	FQ_RNDV_FAULT_CTS_RKEY,	/* write grants with a key that is not the MR's (sticky) */
	FQ_RNDV_FAULT_UNWRITTEN, /* a granted run's second message goes plain */
	FQ_RNDV_FAULT_COUNT
};

/**
 * struct fq_link - the latency of this rank's sends to one peer against
 * that link's own baseline (link.c)
 * @seen_cqe_ns: the connections' completion latencies summed
 *	(fq_qp_stats.cqe_ns) when this period began: the period's are what
 *	they have added since (the heartbeat worker's, as the rest)
 * @seen_tx_wrs: and their sends completed (fq_qp_stats.tx_wrs)
 * @mean_ns: the last period's mean
 * @base_ns: the baseline: the mean of the first FQ_LINK_LEARN periods
 *	with sends, then an average that only periods not slow move
 * @learnt: periods in the baseline so far
 * @ratio: the period's latency / @base_ns, x100 (0 until the baseline is learnt)
 * @slow: @ratio is at link-latency's threshold or over it
 */
struct fq_link {
	u64 seen_cqe_ns;
	u64 seen_tx_wrs;
	u64 mean_ns;
	u64 base_ns;
	u32 learnt;
	u32 ratio;
	bool slow;
};

/**
 * struct fq_peer - another rank
 * @rank: its rank
 * @ch: one connection per channel
 * @ctrl: the control connection (ctrl.c)
 *
 * Its heartbeats (ctrl.c; under fq_comm.lock):
 * @rs: its status, as the last one told
 * @heard: jiffies when it came (0: none yet)
 * @beats_tx: heartbeats sent to it
 * @dead: it fell silent, or its connection could not reach it
 *
 * (What went to and came from it: its connections' fq_conn.msgs,
 * fq_peer_msgs().)
 *
 * Step waits (the engine's; readers take fq_comm.stats_lock):
 * @steps: steps that waited for data from this peer
 * @wait_ns: time from step start to the peer's last message, summed
 * @wait_max_ns: the longest such wait
 * @wait_last_ns: the waits of the last operation, summed
 * @op_wait_ns: the waits of the operation running now
 * @op_seen: the running operation received from this peer
 * @slow_ops: consecutive operations the slow-peer condition held
 * @fine_ops: consecutive operations it did not, while raised
 * @slow: the slow-peer detector's state
 *
 * @link: the link to it (link.c)
 * @link_det: the link-latency detector's state about this rank
 */
struct fq_peer {
	u32 rank;
	struct fq_conn *ch[FABRIQ_MAX_CHANNELS];
	struct fq_conn *ctrl;
	struct fq_rank_status rs;
	unsigned long heard;
	u64 beats_tx;
	bool dead;
	u64 steps;
	u64 wait_ns;
	u64 wait_max_ns;
	u64 wait_last_ns;
	u64 op_wait_ns;
	bool op_seen;
	u32 slow_ops;
	u32 fine_ops;
	struct fq_det_state slow;
	struct fq_link link;
	struct fq_det_state link_det;
};

#define FQ_STEP_LOG	64	/* steps of the last operation kept for debugfs "steps" */

/*
 * one recorded wait: in step @step of channel @chan, the data from @peer
 * was all in after @wait_ns; @peer and @chan fit 16 bits (FABRIQ_MAX_RANKS,
 * FABRIQ_MAX_CHANNELS), which keeps a record at 24 bytes
 */
struct fq_step_rec {
	u32 step;
	u16 peer;
	u16 chan;
	u64 wait_ns;
	u64 bytes;
};

static_assert(FABRIQ_MAX_RANKS <= U16_MAX + 1 && FABRIQ_MAX_CHANNELS <= U16_MAX);

/*
 * one step of one channel of the last operation, in ns since the
 * operation started: admitted, first moved (0: never), done;
 * @overlapped: it moved while a step of the channel before it still ran
 */
struct fq_step_time {
	u32 step;
	u16 chan;
	bool overlapped;
	u64 admit_ns;
	u64 first_ns;
	u64 done_ns;
};

/**
 * struct fq_op_timeline - when the steps of one operation ran
 * @seq: the operation; 0: none
 * @coll: its type
 * @complete: it ended well
 * @t0_ns: when it started running (ktime ns)
 * @n: entries in @t
 * @t: its steps (at most FQ_STEP_LOG)
 */
struct fq_op_timeline {
	u64 seq;
	u8 coll;
	bool complete;
	u64 t0_ns;
	u32 n;
	struct fq_step_time t[FQ_STEP_LOG];
};

/**
 * struct fq_op_times - a communicator's operation times, per collective
 * @hist: per enum fabriq_coll_type, log2 buckets of operation times (ns)
 * @count: operations per type
 * @sum_ns: their times summed
 * @min_ns: the fastest
 * @max_ns: the slowest
 */
struct fq_op_times {
	u64 hist[__FABRIQ_COLL_MAX][FABRIQ_HIST_BUCKETS];
	u64 count[__FABRIQ_COLL_MAX];
	u64 sum_ns[__FABRIQ_COLL_MAX];
	u64 min_ns[__FABRIQ_COLL_MAX];
	u64 max_ns[__FABRIQ_COLL_MAX];
};

/**
 * struct fq_step_waits - how long the steps of one operation waited for
 * each peer
 * @rec: the waits, in order (at most FQ_STEP_LOG)
 * @n: entries in @rec
 * @dropped: waits that did not fit
 * @seq: the operation's sequence number
 * @coll: and its type
 */
struct fq_step_waits {
	struct fq_step_rec rec[FQ_STEP_LOG];
	u32 n;
	u32 dropped;
	u64 seq;
	u8 coll;
};

/**
 * struct fq_comm_stats - a communicator's operation timing; each reader
 * copies out only the part it shows
 * @times: operation times per collective
 * @waits: the waits for the peers of the running operation and of the
 *	one before (indexed like @timeline)
 * @timeline: the steps' timing of the running operation and of the one
 *	before, so that the last one done can always be shown
 * @tcur: the running (or last) operation's entry in @timeline and @waits
 * @steps_run: steps every operation ran, since the communicator was made
 * @steps_overlapped: of those, the ones that moved while an earlier one ran
 */
struct fq_comm_stats {
	struct fq_op_times times;
	struct fq_step_waits waits[2];
	struct fq_op_timeline timeline[2];
	u8 tcur;
	u64 steps_run;
	u64 steps_overlapped;
};

enum fq_comm_state {
	FQ_COMM_NEW,		/* no COMM_INIT yet */
	FQ_COMM_CONNECTING,
	FQ_COMM_READY,
	FQ_COMM_FAILED,		/* @err says why; resources may be gone */
	FQ_COMM_DEAD,		/* torn down */
};

/**
 * struct fq_dmamap - pages mapped for a device once (dmamap.c)
 * @dev: the device (NULL: not mapped)
 * @base: the kernel address of the first page
 * @sgt: the pages, as mapped
 * @addr: each page's device address
 * @npages: how many
 * @dir: the direction they are mapped in
 */
struct fq_dmamap {
	struct ib_device *dev;
	void *base;
	struct sg_table sgt;
	u64 *addr;
	u32 npages;
	enum dma_data_direction dir;
};

/**
 * struct fq_pin - a user buffer as the engine sees it: either pinned and
 * mapped into the kernel, or (small synchronous calls) a kernel copy
 * @stage: where a kernel copy of at most FQ_SMALL_BYTES goes instead of
 *	an allocation of its own (the communicator's preallocated call), or NULL
 * @pages: the pinned pages; @npages: how many
 * @vaddr: their kernel mapping; @ptr: the user address's byte in it
 * @copy: @ptr is a kernel copy of @len bytes at user address @uaddr
 * @mm: the mm whose pinned_vm @charged pages are charged to, or NULL
 * @reg: the registration cache entry @ptr points into (its pages, not these)
 * @dma: @reg's pages mapped for the device, once the engine sent from
 *	them (NULL: not yet, or mapping failed: @dma_tried)
 * @dma_tried: the engine asked for @dma
 */
struct fq_pin {
	void *stage;
	struct page **pages;
	int npages;
	void *vaddr;
	void *ptr;
	bool copy;
	u64 uaddr;
	u64 len;
	struct mm_struct *mm;
	unsigned long charged;
	struct fq_reg *reg;
	const struct fq_dmamap *dma;
	bool dma_tried;
};

/**
 * struct fq_regcache - a communicator's registered user buffers (regcache.c)
 * @lock: the entries' list, their users and handles, their DMA mappings,
 *	the counters below
 * @seq_lock: the entries' notifier sequences, @invalidations
 * @lru: the entries, most recently used first
 * @mapped: the entries whose pages are mapped for the device, cached or
 *	not (fq_regcache_unmap() finds them all)
 * @mm: the process whose buffers it keeps (the communicator's creator)
 * @count: how many
 * @next_handle: the last FABRIQ_IOC_REG handle given
 * @hits: calls served from an entry; @misses: calls that pinned
 * @invalidations: notifier calls that made an entry stale
 */
struct fq_regcache {
	struct mutex lock;		/* see above */
	spinlock_t seq_lock;		/* see above */
	struct list_head lru;
	struct list_head mapped;
	struct mm_struct *mm;
	unsigned int count;
	u32 next_handle;
	u64 hits;
	u64 misses;
	u64 invalidations;
};

/*
 * Memory whose size the caller chose (work buffers, copies, page lists):
 * charged to its memory cgroup, and over the cgroup's limit the call
 * fails with -ENOMEM instead of waking the cgroup's OOM killer; the caller
 * is told, so the kernel log is not.
 */
#define FQ_GFP_USER_SIZED	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* umem.c */
int fq_user_buf(struct fq_regcache *rc, struct fq_pin *p, u64 uaddr, u64 len, bool write,
		bool copy);
void fq_unpin(struct fq_pin *p);
int fq_pin_pages(struct fq_pin *p, u64 uaddr, u64 len, bool write);
void fq_unpin_pages(struct fq_pin *p, bool dirty);

/* regcache.c */
struct seq_file;
void fq_regcache_init(struct fq_regcache *rc);
void fq_regcache_flush(struct fq_regcache *rc);
void fq_regcache_destroy(struct fq_regcache *rc);
int fq_reg_buf(struct fq_regcache *rc, struct fq_pin *p, u64 uaddr, u64 len, bool write);
void fq_reg_put(struct fq_reg *reg);
int fq_reg_register(struct fq_regcache *rc, u64 uaddr, u64 len, u32 *handle);
int fq_reg_deregister(struct fq_regcache *rc, u32 handle);
void fq_regcache_show(struct seq_file *s, struct fq_regcache *rc);
bool fq_reg_holds(const struct fq_reg *reg, const void *ptr);
const struct fq_dmamap *fq_reg_dma(struct fq_reg *reg, struct ib_device *dev);
void fq_regcache_unmap(struct fq_regcache *rc);

/* dmamap.c */
int fq_dmamap_map(struct fq_dmamap *m, struct ib_device *dev, void *base, struct page **pages,
		  u32 npages, enum dma_data_direction dir);
void fq_dmamap_unmap(struct fq_dmamap *m);
int fq_sge_build(struct ib_device *dev, enum dma_data_direction dir, u32 lkey,
		 const struct fq_dmamap *map,
		 const void *data, u32 len, struct ib_sge *sge, u32 max, bool *own);
bool fq_dmamap_covers(const struct fq_dmamap *m, const void *data, u32 len);
void fq_sge_unmap(struct ib_device *dev, enum dma_data_direction dir, const struct ib_sge *sge,
		  u32 n);
void fq_sge_unmap_attrs(struct ib_device *dev, enum dma_data_direction dir,
			const struct ib_sge *sge, u32 n, unsigned long attrs);

/* cm_auth.c */
/**
 * struct fq_wire_params - what every rank of a communicator must run
 * alike, or they cut a call into other messages or pick another schedule
 * for it; the handshake carries and checks it (cm.c)
 * @chunk: bytes per message
 * @small_bytes: AUTO's switch to the bandwidth-bound schedules
 * @channels: data channels per peer
 * @algo: the communicator's enum fabriq_algo
 * @flags: FABRIQ_CM_F_* (write grants: push.c)
 */
struct fq_wire_params {
	u32 chunk;
	u32 small_bytes;
	u8 channels;
	u8 algo;
	u8 flags;
};

/**
 * struct fq_auth_hs - one connection's handshake, as its MACs cover it
 * @reply: the accept (else the connect request)
 * @initiator: the connecting rank; @acceptor: the listening rank
 * @chan: the channel
 * @req_qpn: the connecting side's QP number; @rep_qpn: the listener's
 * @params: the data path the request says the connecting rank runs (in
 *	an accept: the listener's, which is the same)
 */
struct fq_auth_hs {
	bool reply;
	u32 initiator;
	u32 acceptor;
	u32 chan;
	u32 req_qpn;
	u32 rep_qpn;
	struct fq_wire_params params;
};

int fq_auth_set_key(struct fq_comm *comm, u64 ukey, u32 len);
void fq_auth_free(struct fq_comm *comm);
int fq_auth_mac(const struct fq_comm *comm, const struct fq_auth_hs *hs, u8 *mac);
bool fq_auth_ok(const struct fq_comm *comm, const struct fq_auth_hs *hs, const u8 *mac);
bool fq_auth_peer_ok(const struct fq_comm *comm, u32 rank, const struct rdma_cm_id *id);

/* limits.c */
int fq_limits_check_init(const struct fabriq_comm_init *ci);
bool fq_limits_user_may_add(unsigned int count);
unsigned int fq_limits_max_regs(void);
u32 fq_limits_cq_entries(u32 device_max);
int fq_limits_charge_pin(struct fq_pin *p, unsigned long npages);
void fq_limits_uncharge_pin(struct fq_pin *p);

/**
 * enum fq_input_place - where a call's input lies against the work
 * buffer's input window (coll_fresh.c)
 * @FQ_INPUT_NONE: the schedule has no window (nothing stands for the input)
 * @FQ_INPUT_APART: elsewhere: sends and the first reductions read it
 * @FQ_INPUT_IN_PLACE: the window's own bytes: the work buffer holds it
 * @FQ_INPUT_OVERLAPS: partly over the output: read from a private copy,
 *	since input and output are separate kernel mappings, and a memmove
 *	between them could not tell the direction to copy in
 */
enum fq_input_place {
	FQ_INPUT_NONE,
	FQ_INPUT_APART,
	FQ_INPUT_IN_PLACE,
	FQ_INPUT_OVERLAPS,
};

/**
 * struct fq_step_clock - the timing of one step in flight (ktime ns)
 * @admit_ns: admitted (pipe.c)
 * @first_ns: its first message built or placed; 0: none yet
 * @overlapped: a step before it was still running then
 */
struct fq_step_clock {
	u64 admit_ns;
	u64 first_ns;
	bool overlapped;
};

/**
 * struct fq_op_chan - what one channel runs of a call: its slice, its
 * schedule and how far it got
 * @chan: the channel: it sends and receives only on its peers' ch[@chan]
 * @view: its slice of every block (algo.h); its offsets are the view's
 * @sched: the schedule it runs, on blocks of the slice's length
 * @fresh: which bytes of its slice of the work buffer still stand for
 *	the input (no pre-copy)
 * @pipe: the steps in flight (pipe.c)
 * @acked: per step in flight (by its slot in @pipe) and transfer, the
 *         sends done with (here, not on the engine's stack: completions
 *         may come late)
 * @clock: per step in flight, when it was admitted, first moved, and
 *         whether an earlier step was still running then
 * @last_done_ns: when the last step retired ended
 * @comm: the communicator, @op: the call (for @work)
 * @work: a channel worker runs the channel (coll.c), and says it is
 *	done in @done (an error it met is the call's: fq_op.failed)
 */
struct fq_op_chan {
	u32 chan;
	struct fq_view view;
	struct fq_sched sched;
	struct fq_fresh fresh;
	struct fq_pipe pipe;
	struct fq_ack acked[FQ_PIPE_DEPTH][FQ_STEP_MAX];
	struct fq_step_clock clock[FQ_PIPE_DEPTH];
	u64 last_done_ns;
	struct fq_comm *comm;
	struct fq_op *op;
	struct work_struct work;
	struct completion done;
};

/**
 * struct fq_op - one collective call
 * @list: entry on fq_comm.ops
 * @req: the call, as submitted
 * @sched: the schedule it runs
 * @seq: its sequence number
 * @t0: when it was submitted
 * @in: the pinned input; @out: the pinned output
 * @scratch: kernel work buffer where the user's cannot serve
 * @work: where the schedule works; @src: what alltoall sends from
 * @input: where the input lies against @work's input window
 * @status: the result
 * @failed: the first error of any of its channels: the others stop at it
 * @done: completed by the engine (synchronous calls)
 * @small: this is the communicator's preallocated call (struct fq_small)
 * @nact: the channels it runs on: entries in @ch
 * @ch: what each of them runs
 */
struct fq_op {
	struct list_head list;
	struct fabriq_coll req;
	struct fq_sched sched;
	u64 seq;
	ktime_t t0;
	struct fq_pin in;
	struct fq_pin out;
	void *scratch;
	void *work;
	void *src;
	enum fq_input_place input;
	int status;
	int failed;
	struct completion done;
	bool small;
	u32 nact;
	struct fq_op_chan ch[];
};

/*
 * A synchronous call whose input, output and scratch each fit in this
 * runs on its communicator's preallocated call and staging: it allocates
 * nothing.
 */
#define FQ_SMALL_BYTES	SZ_4K

/**
 * struct fq_small - a communicator's preallocated call, for small
 * synchronous calls (one at a time; others allocate their own)
 * @busy: bit 0 is set while a call uses it
 * @calls: the calls it served
 * @op: the call, on one channel (a small call runs on one:
 *	fq_chan_active()), allocated with this
 * @stage: the kernel copies of its input and output, and its scratch
 */
struct fq_small {
	unsigned long busy;
	u64 calls;
	struct fq_op *op;
	u8 stage[3][FQ_SMALL_BYTES];
};

/* Bytes of a communicator's struct fq_small and its call. */
#define FQ_SMALL_STRUCT_BYTES	(sizeof(struct fq_small) + struct_size_t(struct fq_op, ch, 1))

/**
 * struct fq_chan - what one data channel's connections share, on a cache
 * line of its own: channels completing on different CPUs share none
 * @lock: their fields marked "under @lock" (fq_conn.lock points here):
 *	the channel's completions and the engine's sends and receives on it
 * @events: its completions' part of fq_comm_events() (fq_conn.events
 *	points here)
 * @tx_cqe_avg_ns: a moving average of its data sends' post ->
 *	completion times, about a round trip for small ones (under @lock;
 *	the engine's busy-poll budget is the channels' largest, coll.c)
 * @mr_free: bit i: fq_comm.mrs[i], one of this channel's, is not lent
 *	(under @lock; rndv.c)
 * @fins: its connections' fin_pending, summed
 * @tx_wake: its send completions and returned credits wake whoever runs
 *	it (cleared while that waits for receives alone: fq_cm_tx_wake())
 * @grant_waits_tx: the message that closes its write grant waits for
 *	room for the invalidation, so its send completions must wake the
 *	engine (push.c; here, not with the grant, so that the runner reads it
 *	without the hardware lock)
 * @wq: its channel worker waits here (fq_comm.chan_workers)
 * @run: where it is in the running call
 */
struct fq_chan {
	spinlock_t lock;	/* see above */
	atomic64_t events;
	u64 tx_cqe_avg_ns;
	u32 mr_free;
	atomic_t fins;
	bool tx_wake;
	bool grant_waits_tx;
	wait_queue_head_t wq;
	struct fq_chan_run run;
} ____cacheline_aligned_in_smp;

/**
 * struct fq_comm - a communicator; one per open /dev/fabriq file
 * @cm_kind: FQ_CM_COMM
 * @refs: the file's reference, and one per device removal tearing it down
 *        outside fq_comms_lock
 * @list: entry on fq_comms
 * @removing: entry on a device removal's list of communicators to tear down
 * @serial: order of registration (the netlink dump's cursor)
 * @net: the opener's network namespace: its rdma_cm ids live there
 * @uid: the opener's user (communicators per user, limits.c)
 * @id: the communicator id
 * @nranks: ranks; @rank: this one
 * @base_port: rank r listens on base_port + r
 * @algo: the preferred enum fabriq_algo
 * @chunk: bytes per message; @nch: channels
 * @small_bytes: AUTO's threshold
 * @connect_timeout_ms: COMM_INIT's limit; @op_timeout: jiffies without progress
 * @has_tclass: @tclass set by the caller
 * @bounce: the caller asked for sends through slots
 * @zero_copy: sends go straight from the caller's pages (decided at connect)
 * @tclass: traffic class of the QPs
 * @addrs: every rank's address (port included)
 * @auth: the key's HMAC transform (cm_auth.c); NULL for a single rank
 * @state: enum fq_comm_state, under @setup_lock
 * @setup_lock: protects @state, @ibdev and the connection slots in @peers
 *              against teardown, and serialises COMM_INIT
 * @hw_rwsem: read by whoever uses the verbs resources (engine, COMM_INIT),
 *            written by teardown
 * @hw_gone: the verbs resources are released (under @hw_rwsem)
 * @hb_lock: held by the heartbeat worker from its check of a control
 *	connection until its send is posted, and by fq_conn_release() to
 *	stop it, which may run beside it under a read @hw_rwsem (COMM_INIT)
 * @ibdev: the device the listener bound to
 * @pd: protection domain
 * @cqs: the CQs, @ncq of them (cm.c: fq_cm_alloc_cqs()): each channel's
 *	connections, and the control connections, complete on CQs of their
 *	own, @cq_entries entries in all
 * @mrs: the MRs read requests lend bytes through (@nmrs of them; none:
 *	no rendezvous); MR i is lent by channel i % @nch only
 *	(fq_chan.mr_free)
 * @rndv_room: each channel's room to build a registration's page list
 *	(rndv.c; with the MRs)
 * @rndv_max_bytes: the most one read request lends: FQ_RNDV_MAX_BYTES, or
 *	less where the device's MRs map fewer than FQ_RNDV_PAGES pages
 * @write_grants: receivers grant writes, and senders write where granted
 *	(push.c; decided with the MRs, before connecting)
 * @rndv_replays: the device runs a send queue's registrations and
 *	invalidations again when a retry rewinds it (rxe): they are built
 *	only where they lead their queue (rndv.c)
 * @listen_id: the listener
 * @peers: @nranks entries (this rank's unused)
 * @chans: the data channels' locks and counters (@nch of them)
 * @lock: the control connections' fields marked "under @lock", @err,
 *	the peers' heartbeat fields, @dead_rank and @links
 * @wq: COMM_INIT, teardown and the engine wait here for progress (the
 *	engine only without channel workers; see fq_conn.wq)
 * @events: bumped at every connection event, failure, and flush of a
 *	control connection (no lock: fq_cm_progress()); fq_comm_events()
 *	adds the channels' own
 * @chan_workers: a call's channels run in parallel, each in a thread of
 *	its own (coll.c; the module parameter when it connected)
 * @busy_poll: the engine may spin for completions: not a software device
 *             (set when the listener binds)
 * @err: the first fatal error; sticky
 * @run_lock: held while a call runs (engine or a caller running inline)
 * @op_lock: protects @ops, @nops and @next_seq
 * @ops: queued operations, oldest first
 * @nops: operations queued or running
 * @next_seq: sequence number of the next operation
 * @engine_work: the engine (coll.c), queued with the operations
 * @done: completions of async operations, for read()
 * @done_lock: protects @done
 * @done_wq: read() and poll() wait here
 * @ops_done: operations completed; @ops_failed: ... with an error
 * @bytes: payload bytes the operations moved (sent)
 * @slot_bytes: kernel memory the connections' send and receive slots take
 *	(as asked of kmalloc), while they exist
 * @dbg_dir: debugfs comms/<id>
 * @fdev: the device of @own, with a reference (NULL before listening)
 * @own: the port's counters of fabriq's own traffic (enum fq_own_ctr)
 * @stats_lock: protects @stats and the step-wait fields of the peers
 * @stats: operation timing
 * @fault_delay_us: debugfs fault knob: sleep this long before each step
 * @fault_heartbeat: debugfs fault knob: break the next heartbeat so
 *	(enum fq_hb_fault; taken by the one it breaks)
 * @fault_rndv: debugfs fault knob: break the next read request or FIN so
 *	(enum fq_rndv_fault, rndv.c)
 * @slow_scratch: room to sort the peers' waits (slow-peer detector)
 * @regs: the user buffers pinned for its calls (regcache.c)
 * @small: the preallocated call of small synchronous calls
 * @run: what the engine is at (its heartbeats tell the peers)
 * @peer_timeout_ms: a peer silent this long is dead (ctrl.c)
 * @hb_work: sends the heartbeats and judges the silent (ctrl.c)
 * @hb_on: @hb_work runs (set once connected, cleared before teardown)
 * @dead_rank: the first peer found dead (FABRIQ_STATUS_NO_RANK: none;
 *	under @lock): the heartbeats tell the others
 * @links: what this rank finds of its links (link.c; under @lock)
 */
struct fq_comm {
	u8 cm_kind;
	refcount_t refs;
	struct list_head list;
	struct list_head removing;
	u64 serial;
	struct net *net;
	kuid_t uid;
	u64 id;
	u32 nranks;
	u32 rank;
	u16 base_port;
	u8 algo;
	u32 chunk;
	u32 nch;
	u64 small_bytes;
	u32 connect_timeout_ms;
	unsigned long op_timeout;
	bool has_tclass;
	bool bounce;
	bool zero_copy;
	u8 tclass;
	struct sockaddr_storage *addrs;
	struct crypto_shash *auth;

	enum fq_comm_state state;
	struct mutex setup_lock;	/* see above */
	struct rw_semaphore hw_rwsem;	/* see above */
	struct mutex hb_lock;		/* see above */
	bool hw_gone;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq **cqs;
	u32 ncq;
	u32 cq_entries;
	struct ib_mr *mrs[FQ_RNDV_MRS];
	u32 nmrs;
	struct fq_rndv_room *rndv_room;
	u32 rndv_max_bytes;
	bool rndv_replays;
	bool write_grants;
	struct rdma_cm_id *listen_id;
	struct fq_peer *peers;

	struct fq_chan chans[FABRIQ_MAX_CHANNELS];
	spinlock_t lock;		/* see above */
	wait_queue_head_t wq;
	atomic64_t events;
	bool chan_workers;
	bool busy_poll;
	int err;

	struct mutex run_lock;		/* see above */
	struct mutex op_lock;		/* see above */
	struct list_head ops;
	u32 nops;
	u64 next_seq;
	struct work_struct engine_work;

	DECLARE_KFIFO(done, struct fabriq_completion, 128);
	spinlock_t done_lock;		/* see above */
	wait_queue_head_t done_wq;

	atomic64_t ops_done;
	atomic64_t ops_failed;
	atomic64_t bytes;
	atomic64_t slot_bytes;
	struct dentry *dbg_dir;
	struct fabriq_dev *fdev;
	atomic64_t *own;
	spinlock_t stats_lock;		/* see above */
	struct fq_comm_stats stats;
	u32 fault_delay_us;
	u32 fault_heartbeat;
	u32 fault_rndv;
	u64 *slow_scratch;
	struct fq_regcache regs;
	struct fq_small *small;
	struct fq_run run;
	u32 peer_timeout_ms;
	struct delayed_work hb_work;
	bool hb_on;
	u32 dead_rank;
	struct fq_link_report links;
};

/*
 * What a thread running channels @lo .. @hi - 1 waits to see change:
 * every completion on them and every connection event bumps one of the
 * counters it sums.  Each only grows, so a sum taken after an event
 * differs from one taken before it.
 */
static inline u64 fq_chans_events(const struct fq_comm *comm, u32 lo, u32 hi)
{
	u64 n = atomic64_read(&comm->events);
	u32 c;

	for (c = lo; c < hi; c++)
		n += atomic64_read(&comm->chans[c].events);
	return n;
}

/* every channel's and the communicator's */
static inline u64 fq_comm_events(const struct fq_comm *comm)
{
	return fq_chans_events(comm, 0, comm->nch);
}

/* Add @conn's counts to @sum (unlocked: the engine writes them with WRITE_ONCE). */
static inline void fq_conn_msgs_add(const struct fq_conn *conn, struct fq_msg_counts *sum)
{
	sum->send_seq += READ_ONCE(conn->msgs.send_seq);
	sum->recv_seq += READ_ONCE(conn->msgs.recv_seq);
	sum->tx_bytes += READ_ONCE(conn->msgs.tx_bytes);
	sum->rx_bytes += READ_ONCE(conn->msgs.rx_bytes);
}

/* What went to @peer and came from it, over every channel. */
static inline void fq_peer_msgs(const struct fq_comm *comm, const struct fq_peer *peer,
				struct fq_msg_counts *sum)
{
	u32 c;

	*sum = (struct fq_msg_counts){};
	for (c = 0; c < comm->nch; c++)
		fq_conn_msgs_add(peer->ch[c], sum);
}

/* connections per peer: the data channels, then the control connection */
static inline u32 fq_nconn(const struct fq_comm *comm)
{
	return comm->nch + 1;
}

/* the work requests a connection tracks: a data connection's ring, a control one's heartbeat */
static inline u32 fq_conn_tx_ents(bool control)
{
	return control ? 1 : FQ_TX_ENTS;
}

/*
 * The SGEs each of them has room for: a data message's pages (a zero-copy
 * send's, or a read's landing place: a message is at most a chunk), at
 * most FQ_MAX_SGE; a heartbeat builds its own
 */
static inline u32 fq_conn_tx_sges(const struct fq_comm *comm, bool control)
{
	return control ? 0 : min(fq_chunk_max_pages(comm->chunk), FQ_MAX_SGE);
}

/* connection @c (< fq_nconn()) to @peer */
static inline struct fq_conn *fq_peer_conn(const struct fq_comm *comm, const struct fq_peer *peer,
					   u32 c)
{
	return c < comm->nch ? peer->ch[c] : peer->ctrl;
}

/* the bytes of one of @conn's message slots */
static inline u32 fq_conn_slot_bytes(const struct fq_conn *conn)
{
	return conn->control ? FQ_CTRL_SLOT_BYTES : conn->comm->chunk;
}

/*
 * A send slot holds a message copied for sending: with zero-copy, only
 * those too small to be sent from the caller's pages.
 */
static inline u32 fq_conn_tx_slot_bytes(const struct fq_conn *conn)
{
	u32 bytes = fq_conn_slot_bytes(conn);

	return conn->comm->zero_copy ? min_t(u32, bytes, FQ_ZC_MIN_BYTES) : bytes;
}

static inline u32 fq_conn_dir_slot_bytes(const struct fq_conn *conn, enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? fq_conn_tx_slot_bytes(conn) : fq_conn_slot_bytes(conn);
}

/* objects fabriq holds, for leak checks (debugfs "objects") */
struct fq_objects {
	atomic_t comms;
	atomic_t pds;
	atomic_t cqs;
	atomic_t qps;
	atomic_t cm_ids;
	atomic_t bufs;
	atomic_t ops;
	atomic_t pinned_pages;
	atomic_t regs;
	atomic_t dma_maps;
	atomic_t mrs;
};

extern struct fq_objects fq_objects;

/* comm.c */
int fq_comm_init(void);
void fq_comm_exit(void);
void fq_comm_fail(struct fq_comm *comm, int err);
void fq_comm_wake_all(struct fq_comm *comm);
void fq_comm_dev_removed(struct ib_device *ibdev);
struct seq_file;
void fq_objects_show(struct seq_file *s);

int fq_comm_for_each(int (*fn)(struct fq_comm *comm, void *arg), void *arg);
const char *fq_comm_state_name(const struct fq_comm *comm);
u64 fq_comm_struct_bytes(const struct fq_comm *comm);

/* comm_netlink.c */
int fq_nl_put_addr(struct sk_buff *skb, int type, const struct sockaddr_storage *ss);

/* comm_stats_netlink.c: the communicators' part of telemetry's STATS_GET */
extern const struct fq_tm_stats_ext fq_comm_stats_ext;

/* comm_debugfs.c */
void fq_debugfs_comm_init(void);
void fq_debugfs_comm_add(struct fq_comm *comm);
void fq_debugfs_comm_del(struct fq_comm *comm);

/* comm_stats.c */
void fq_stats_op_start(struct fq_comm *comm, struct fq_op *op);
void fq_stats_step_wait(struct fq_comm *comm, struct fq_peer *peer, u32 chan, u32 k, u64 wait,
			u64 bytes);
void fq_stats_step_done(struct fq_comm *comm, u32 chan, u32 k, const struct fq_step_clock *clk,
			u64 now);
void fq_stats_show_pipeline(struct seq_file *s, struct fq_comm *comm);
void fq_stats_op_done(struct fq_comm *comm, struct fq_op *op, u64 ns);
void fq_stats_hist_pct(const u64 *hist, u64 count, u64 *p50, u64 *p99, u64 *p999);
void fq_stats_show_hist(struct seq_file *s, struct fq_comm *comm);
void fq_stats_show_steps(struct seq_file *s, struct fq_comm *comm);
void fq_stats_peer_qp(struct fq_comm *comm, struct fq_peer *peer, struct fq_qp_stats *sum,
		      u32 *outstanding);

/* cm.c */
int fq_cm_connect_all(struct fq_comm *comm);
int fq_cm_post_recv(struct fq_conn *conn, u32 slot);
void fq_cm_conn_init(struct fq_conn *conn);
void fq_cm_peer_sent(struct fq_conn *conn);
void fq_cm_wc_error(struct fq_conn *conn, struct ib_wc *wc, const char *what);
void fq_cm_teardown(struct fq_comm *comm);
int fq_cm_send(struct fq_conn *conn, const void *data, u32 len, const struct fq_dmamap *map,
	       struct fq_ack *ack, u64 msg, const struct fq_write_to *to);
int fq_cm_post(struct fq_conn *conn);
bool fq_cm_tx_idle(struct fq_comm *comm);
bool fq_cm_can_send(struct fq_conn *conn);
int fq_cm_peek(struct fq_conn *conn, void **data, u32 *len, bool *rts, bool *written);
void fq_cm_placed(struct fq_conn *conn, struct fq_ack *ack, u64 msg);
int fq_cm_fins_out(struct fq_comm *comm, u32 lo, u32 hi);
/* cm.c's send queue, for rndv.c (the connection's lock held, or as each says) */
bool fq_tx_room(const struct fq_conn *conn, u32 n);
bool fq_msg_room(const struct fq_conn *conn, u32 n);
struct fq_tx_ent *fq_tx_take(struct fq_conn *conn, u8 kind);
u32 fq_tx_slot(const struct fq_conn *conn);
__be32 fq_tx_imm(const struct fq_tx_ent *ent, u32 kind);
void fq_tx_slot_send(struct fq_conn *conn, struct fq_tx_ent *ent, u32 slot, u32 len, u32 kind);
void fq_tx_unwind(struct fq_conn *conn, struct fq_tx_ent *ent, int err);

/* rndv.c */
void fq_rndv_alloc_mrs(struct fq_comm *comm);
void fq_rndv_free_mrs(struct fq_comm *comm);
void fq_rndv_abandon(struct fq_comm *comm);
u32 fq_rndv_room_bytes(const struct fq_comm *comm);
void fq_rndv_mr_free(struct fq_conn *conn, struct ib_mr *mr);
int fq_rndv_can_send(struct fq_conn *conn);
int fq_rndv_send(struct fq_conn *conn, const struct fq_xfer *x, const void *data, u32 len,
		 const struct fq_dmamap *map, struct fq_ack *ack, u64 msg, u32 nmsg);
int fq_rndv_read(struct fq_conn *conn, const void *rts, u32 at, void *dst, u32 len,
		 struct fq_ack *ack, u64 msg, bool last);
void fq_rndv_release(struct fq_conn *conn);
bool fq_rndv_local_may_go(const struct fq_conn *conn);
int fq_rndv_map_mr(struct fq_conn *conn, struct fq_tx_ent *reg, struct ib_mr *mr,
		   const struct ib_sge *sge, int n, const void *data, int access);
void fq_rndv_build_inv(struct fq_conn *conn, u8 kind, struct ib_mr *mr, struct fq_ack *ack,
		       u64 msg, u32 nmsg);
struct fq_push_grant *fq_rndv_grant(struct fq_comm *comm, u32 chan);

/* push.c */
bool fq_push_wanted(void);
bool fq_push_can_grant(struct fq_conn *conn, u32 *ahead);
int fq_push_grant(struct fq_conn *conn, u32 ahead, struct fq_ack *ack, u64 msg, void *dst,
		  u32 len, u32 nmsg);
void fq_push_unmap(struct fq_conn *conn, struct fq_push_grant *g);
int fq_push_taken(struct fq_conn *conn, bool written, struct fq_ack *ack, u64 msg,
		  void *dst, u32 len, bool *later);
void fq_push_abandon(struct fq_comm *comm);
bool fq_push_waits_tx(struct fq_comm *comm, u32 chan);
bool fq_push_cts_in(struct fq_conn *conn, const void *data, u32 len);
int fq_push_target(struct fq_conn *conn, const struct fq_pipe *p, const struct fq_xfer *x,
		   u64 m, struct fq_write_to *to);
void fq_push_used(struct fq_conn *conn, u32 len);
bool fq_rndv_fault_fin(struct fq_comm *comm);
bool fq_rndv_wanted(struct fq_comm *comm, const struct fq_xfer *x, u32 len);
extern const char *const fq_rndv_fault_names[FQ_RNDV_FAULT_COUNT];
int fq_cm_consume(struct fq_conn *conn);
int fq_cm_return_credits(struct fq_conn *conn, bool force);
int fq_cm_closed(struct fq_conn *conn);
void fq_cm_quiesce(struct fq_comm *comm, unsigned long timeout);
void fq_cm_tx_wake(struct fq_comm *comm, u32 lo, u32 hi, bool on);

/* ctrl.c */
void fq_ctrl_init(struct fq_comm *comm);
void fq_ctrl_conn_init(struct fq_conn *conn);
void fq_ctrl_conn_up(struct fq_conn *conn);
void fq_ctrl_start(struct fq_comm *comm);
void fq_ctrl_stop(struct fq_comm *comm);
void fq_ctrl_peer_unreachable(struct fq_comm *comm, struct fq_peer *peer);
struct fq_rank_view *fq_ctrl_view(struct fq_comm *comm);
int fq_ctrl_nl_put(struct sk_buff *skb, int type, const struct fq_rank_view *v);
void fq_ctrl_show(struct seq_file *s, struct fq_comm *comm);
extern const char *const fq_hb_fault_names[FQ_HB_FAULT_COUNT];

void fq_link_period(struct fq_comm *comm);
void fq_link_blame(struct fq_rank_view *v, u32 n);
void fq_link_detect(struct fq_comm *comm);
void fq_link_show(struct seq_file *s, struct fq_comm *comm);

/* coll.c */
int fq_coll_submit(struct fq_comm *comm, struct fabriq_coll *req, bool async);
void fq_coll_engine_init(struct fq_comm *comm);
void fq_coll_engine_flush(struct fq_comm *comm);
int fq_coll_wq_init(void);
void fq_coll_wq_exit(void);
void fq_coll_fail_all(struct fq_comm *comm, int err);
void fq_run_where(struct fq_comm *comm, u32 *step, u32 *wait_rank, u64 *since_ns);
bool fq_coll_chan_workers(void);

/* comm_netlink.c, comm.c: how the subsystem plugs into the core */
extern const struct genl_ops fq_comm_nl_ops[];
extern struct fabriq_subsys fq_coll_subsys;

#endif /* _FABRIQ_COMM_H */
