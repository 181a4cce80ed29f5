// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_algo.c - unit test of the pure schedules (kernel/coll/algo*.c), built
 * in userspace: every collective x every schedule x rank counts 1..17 x
 * several roots and counts runs on simulated ranks that pass messages per
 * pair, in order, as the engine does; the results are compared with a
 * direct computation.  Each runs three ways: the input copied in first,
 * fused (coll_fresh.c: nothing copied in), and pipelined: the engine's
 * window of steps in flight (pipe.c), small messages, sends read by "the
 * device" at a random later moment as zero-copy sends are, and the ranks'
 * moves interleaved at random; the pipelined runs are repeated over a
 * model of the transport's channels and flow control (flow.h), so that a
 * deadlock through credits would show.  Also checks fq_sched_pick().
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fabriq.h>

#include "fq_ktypes.h"
#include "../kernel/coll/algo.h"
#include "../kernel/coll/coll_fresh.h"
#include "../kernel/coll/flow.h"
#include "../kernel/coll/pipe.h"

/* the model broke a rule the kernel keeps: say which, as a TAP comment, and stop */
static void __attribute__((noreturn, format(printf, 1, 2))) z_die(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

/*
 * The random walks' numbers: xorshift64*, seeded per part.  glibc's
 * rnd() takes a lock on every call, which was four fifths of this
 * program's time.
 */
static uint64_t rnd_state = 1;

static void rnd_seed(uint64_t seed)
{
	rnd_state = seed * 0x9e3779b97f4a7c15ULL | 1;
}

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 0x2545f4914f6cdd1dULL) >> 33);
}

#define MAXR	17

struct msg {
	struct msg *next;
	uint64_t len;
	unsigned char data[];
};

static struct msg *q_head[MAXR][MAXR], **q_tail[MAXR][MAXR];	/* [from][to] */

struct rank {
	struct fq_sched s;
	uint32_t k;
	int have_step, done;
	struct fq_step st;
	int xdone[FQ_STEP_MAX];
	unsigned char *work, *src;
	/* fused: no pre-copy, the work bytes stand for the input (coll_fresh.c) */
	int fused;
	struct fq_fresh fresh;
	bool input[FQ_STEP_MAX];
	struct fq_pipe pipe;	/* pipelined */
	int started;		/* pipelined: ranks join at random moments */
	uint32_t start_after;	/* moves tried before it may */
	uint64_t t_start, t_done;
};

static uint64_t pipe_clock;	/* moves made so far */

static void q_push(int from, int to, const void *p, uint64_t len)
{
	struct msg *m = malloc(sizeof(*m) + len + 1);

	m->next = NULL;
	m->len = len;
	memcpy(m->data, p, len);
	*q_tail[from][to] = m;
	q_tail[from][to] = &m->next;
}

static struct msg *q_pop(int from, int to)
{
	struct msg *m = q_head[from][to];

	if (m) {
		q_head[from][to] = m->next;
		if (!m->next)
			q_tail[from][to] = &q_head[from][to];
	}
	return m;
}

/*
 * Receive @x places @len received bytes at work offset @off: copied, or
 * added (fused: the first reduction reads the input, @input).
 */
static void land(struct rank *R, const struct fq_xfer *x, bool input, uint64_t off,
		 const unsigned char *data, uint64_t len)
{
	uint64_t j, a, b;

	for (j = 0; j < len / 8; j++) {
		memcpy(&a, input ? fq_fresh_src(&R->fresh, off + 8 * j) : R->work + off + 8 * j, 8);
		memcpy(&b, data + 8 * j, 8);
		a = x->op == FQ_X_RECV_REDUCE ? a + b : b;
		memcpy(R->work + off + 8 * j, &a, 8);
	}
}

/* run one rank as far as it can; returns 1 if it moved */
static int advance(struct rank *R, int me)
{
	int moved = 0, i, all;

	for (;;) {
		if (R->done)
			return moved;
		if (!R->have_step) {
			if (!fq_sched_step(&R->s, R->k, &R->st)) {
				R->done = 1;
				return 1;
			}
			R->have_step = 1;
			memset(R->xdone, 0, sizeof(R->xdone));
			for (i = 0; i < (int)R->st.n; i++)
				R->input[i] = R->fused &&
					      fq_fresh_xfer_begin(&R->fresh, &R->st.x[i]);
			if (R->fused)
				fq_fresh_step_writes(&R->fresh, &R->st);
			moved = 1;
		}
		/* sends without a dependency first: the engine copies them out
		 * before a receive may overwrite the same bytes */
		for (i = 0; i < (int)R->st.n; i++) {
			struct fq_xfer *x = &R->st.x[i];
			unsigned char *b = x->buf == FQ_BUF_SRC ? R->src : R->work;

			if (x->op != FQ_X_SEND || R->xdone[i])
				continue;
			if (x->dep >= 0 && !R->xdone[x->dep])
				continue;
			q_push(me, x->peer, R->input[i] ? fq_fresh_src(&R->fresh, x->off) :
				b + x->off, x->len);
			R->xdone[i] = 1;
			moved = 1;
		}
		for (i = 0; i < (int)R->st.n; i++) {
			struct fq_xfer *x = &R->st.x[i];
			struct msg *m;

			if (x->op == FQ_X_SEND || R->xdone[i])
				continue;
			m = q_pop(x->peer, me);
			if (!m)
				continue;
			if (m->len != x->len) {
				z_die("rank %d step %u: got %llu bytes from %u, expected %llu", me,
				      R->k, (unsigned long long)m->len, x->peer,
				      (unsigned long long)x->len);
			}
			land(R, x, R->input[i], x->off, m->data, x->len);
			free(m);
			R->xdone[i] = 1;
			moved = 1;
		}
		all = 1;
		for (i = 0; i < (int)R->st.n; i++)
			all &= R->xdone[i];
		if (!all)
			return moved;
		R->have_step = 0;
		R->k++;
	}
}

/*
 * ---- pipelined (pipe.c) ----
 * Messages of PIPE_CHUNK bytes; a send's bytes are read when "the device"
 * transmits it, some random moves after it was built (zero-copy), and
 * only then is the send done with them.
 *
 * Over the transport (xport): also cm.c's flow control (flow.h) on
 * 1..FABRIQ_MAX_CHANNELS connections per pair, picked as the engine
 * does (the per-peer message count modulo the channels).  A send needs
 * a credit, a free send slot and room on the send queue; each message
 * carries back the credits its sender owes; a receiver that consumed
 * FQ_CREDIT_BATCH messages returns them in a credit-only message when
 * its send queue has room, and retries on each pass over its receives,
 * as the engine does.  A message arriving at a full receive queue (an
 * RNR wait in the kernel) or credits beyond FQ_CREDITS end the program.
 * Sends are copied at build or read at transmission at random (a
 * copied send is done at once), and the sending transfer's bytes count
 * as done only up to its first message not done, as fq_ack's prefix.
 * A copy is, at random, sent as a read request (the rendezvous,
 * rndv.c) lending a run of 1 to 8 messages that fq_pipe_send_run() says
 * are ready: the receiver checks the run against its messages, takes them
 * one by one and reads each into place from the sender's bytes when the
 * read completes, at a random later move, in any order, while later
 * messages are taken and placed meanwhile; the sender's messages are done
 * (the FIN) only once all the run's reads completed, so a send whose
 * bytes changed before that lands wrong bytes.
 * In half the transport runs, write grants go instead (push.c): a
 * receiver whose next receive is a copy, with nothing from its peer
 * waiting, grants at random a run of 1 to what fq_pipe_recv_run() says
 * may be written now, from its next message or up to FQ_CREDITS past it
 * (what the sender may have sent); the grant reaches the sender at a random later
 * move, which writes its next messages there if the grant starts at its
 * next one (else drops it).  A written message lands in the receiver's
 * buffer when transmitted, whatever the receiver does then, and is
 * taken later with nothing to copy; one taken plain where a grant starts
 * makes the grant void, and one written where no grant says so ends the
 * program.
 */
#define PIPE_CHUNK	24
#define PIPE_MAXMSG	1024	/* messages of one transfer, at most */

struct zack {			/* fq_ack: which messages of a transfer are done */
	uint64_t prefix;
	unsigned char done[PIPE_MAXMSG];
};

/* a read request's run, until its last read completes (the sender's FIN) */
struct zspan {
	struct zack *ack;		/* the sending transfer's */
	uint64_t msg;			/* its first message */
	uint64_t *freed;		/* and its fq_xstate.freed */
	uint32_t nmsg;			/* messages lent */
	uint32_t reads;			/* reads completed */
};

struct zmsg {
	struct zmsg *next;
	const unsigned char *src;	/* read when transmitted (a read request: by the reads) */
	uint64_t len;
	struct zack *ack;		/* the sending transfer's */
	uint64_t msg;			/* index in it */
	uint64_t *freed;		/* and its fq_xstate.freed */
	uint32_t ret;			/* credits carried back */
	uint8_t into;			/* what the sender says the receiver does */
	struct zspan *span;		/* a read request's; NULL: the data itself */
	uint32_t taken;			/* of a read request's messages, taken */
	unsigned char *wdst;		/* written there (a grant's), when transmitted */
	int credit_only;
	int sent;
	unsigned char data[PIPE_CHUNK];
};

/* one end of a connection, [me][peer][chan] (cm.c's struct fq_conn) */
struct zconn {
	uint32_t credits;	/* data messages me may send to peer */
	uint32_t ret;		/* consumed, not yet returned to peer */
	uint32_t sq_used;	/* work requests on me's send queue */
	uint32_t inflight;	/* data sends not yet complete */
	uint32_t unplaced;	/* arrived from peer, not yet consumed */
};

static struct zmsg *z_head[MAXR][MAXR][FABRIQ_MAX_CHANNELS];	/* [from][to][chan] */
static struct zmsg **z_tail[MAXR][MAXR][FABRIQ_MAX_CHANNELS];
static struct zconn zc[MAXR][MAXR][FABRIQ_MAX_CHANNELS];
static uint64_t send_seq[MAXR][MAXR], recv_seq[MAXR][MAXR];
static struct zack z_acks[MAXR][FQ_PIPE_DEPTH][FQ_STEP_MAX];
static int xport;		/* model the transport */
static int z_writes;		/* write grants instead of read requests */

/* a write grant of receiver @to to sender @from, [from][to] (push.c) */
struct zgrant {
	int live;		/* the receiver's: out, not void nor all taken */
	int wire;		/* on its way to the sender */
	int have;		/* the sender's: arrived, not all used */
	uint64_t seq;		/* its first message's number on the connection */
	uint32_t nmsg;
	uint32_t got;		/* the receiver's: taken written */
	uint32_t used;		/* the sender's: written */
	struct zack *ack;	/* the receive's */
	uint64_t msg;		/* its first message there */
	unsigned char *dst;	/* where that goes */
};
static struct zgrant z_grants[MAXR][MAXR];
static uint64_t z_written;	/* messages written, over the suite */
/*
 * Its connections per pair of ranks: one, as a channel runs its schedule
 * on its own connection to each peer (coll.c); run_sliced() plays the
 * channels, a run each.
 */
static const uint32_t nch = 1;

static void z_fail(const char *what, int from, int to, uint32_t c)
{
	z_die("transport: %s, %d -> %d channel %u", what, from, to, c);
}

static void z_push(int from, int to, uint32_t c, struct zmsg *m)
{
	*z_tail[from][to][c] = m;
	z_tail[from][to][c] = &m->next;
}

/*
 * message @msg of a transfer is done (fq_ack_mark); returns the prefix
 * done.  It must lie in the ack window, less than FQ_ACK_WINDOW past the
 * first not done, or fq_ack_mark() WARNs; and be done once.
 */
static uint64_t z_mark(struct zack *k, uint64_t msg)
{
	if (msg < k->prefix || msg - k->prefix >= FQ_ACK_WINDOW || k->done[msg]) {
		z_die("transport: message %llu marked done again or outside the ack window (first not done: %llu)",
		      (unsigned long long)msg, (unsigned long long)k->prefix);
	}
	k->done[msg] = 1;
	while (k->prefix < PIPE_MAXMSG && k->done[k->prefix])
		k->prefix++;
	return k->prefix;
}

/* message @m of a transfer is done with its bytes */
static void z_done(struct zmsg *m)
{
	*m->freed = z_mark(m->ack, m->msg);
}

/*
 * A copy taken from the connection and being read into place (rndv.c): it
 * lands, and counts as placed, when the read completes, at a random later
 * move; the message's bytes were read from the sender when it went.
 */
struct zread {
	struct fq_xstate *xs;
	struct zack *ack;
	uint64_t msg;
	struct fq_xfer x;
	uint64_t off;
	uint64_t len;
	const unsigned char *src;	/* the sender's bytes, read at completion */
	struct zspan *span;
};

#define PIPE_MAXREAD	(MAXR * FQ_PIPE_DEPTH * FQ_STEP_MAX * 8)
static struct zread z_reads[MAXR][PIPE_MAXREAD];
static uint32_t z_nreads[MAXR];

/* may @me send a data message to @peer on @c now (fq_cm_can_send)? */
static int z_can_send(int me, int peer, uint32_t c)
{
	struct zconn *k = &zc[me][peer][c];

	return !xport || (k->credits && k->inflight < FQ_CREDITS && k->sq_used < FQ_SEND_WRS);
}

/* fq_cm_return_credits(conn, false): returns 1 if a credit-only message went */
static int z_return_credits(int me, int peer, uint32_t c)
{
	struct zconn *k = &zc[me][peer][c];
	struct zmsg *m;

	if (!xport || k->ret < FQ_CREDIT_BATCH || k->sq_used >= FQ_SEND_WRS)
		return 0;
	m = calloc(1, sizeof(*m));
	m->credit_only = 1;
	m->ret = k->ret;
	k->ret = 0;
	k->sq_used++;
	z_push(me, peer, c, m);
	return 1;
}

/* the end of fq_pump_recv: every receive in flight retries its peer's credits */
static int pipe_credits(struct rank *R, int me)
{
	struct fq_pipe *p = &R->pipe;
	uint32_t a, i, c;
	int moved = 0;

	for (a = 0; a < p->n; a++) {
		struct fq_pipe_step *ps = fq_pipe_at(p, a);

		for (i = 0; i < ps->st.n; i++)
			for (c = 0; ps->st.x[i].op != FQ_X_SEND && c < nch; c++)
				moved += z_return_credits(me, ps->st.x[i].peer, c);
	}
	return moved;
}

/*
 * fq_push_target(): message @m of send @x goes where @me's peer granted,
 * if a grant starts at it or goes on there; one it crossed is dropped
 */
static void z_target(int me, const struct fq_xfer *x, const struct fq_xstate *xs, struct zmsg *m)
{
	struct zgrant *g = &z_grants[me][x->peer];
	uint64_t seq = send_seq[me][x->peer];

	if (!g->have)
		return;
	if (!g->used && g->seq < seq) {
		g->have = 0;
		return;
	}
	if (!g->used && g->seq > seq)	/* for a later message: plain until then */
		return;
	if (g->seq + g->used != seq || x->into != FQ_X_RECV ||
	    (!g->used && xs->msgs + g->nmsg > xs->nmsg))
		z_die("transport: rank %d granted %d writes of %u messages from %llu, not its next (%llu)",
		      x->peer, me, g->nmsg, (unsigned long long)g->seq, (unsigned long long)seq);
	m->wdst = g->dst + (uint64_t)g->used * PIPE_CHUNK;
	if (++g->used == g->nmsg)
		g->have = 0;
}

/* send @i of the @a-th step in flight builds its next message */
static int pipe_send(struct rank *R, int me, uint32_t a, uint32_t i)
{
	struct fq_pipe *p = &R->pipe;
	struct fq_pipe_step *ps = fq_pipe_at(p, a);
	struct fq_xfer *x = &ps->st.x[i];
	struct fq_xstate *xs = &ps->xs[i];
	uint32_t c = send_seq[me][x->peer] % nch, len;
	struct zconn *k = &zc[me][x->peer][c];
	struct zmsg *m = calloc(1, sizeof(*m));
	uint64_t off;

	uint32_t nmsg = 1, run, n, next;

	fq_pipe_msg(p, x, xs->msgs, &off, &len);
	m->src = xs->input ? fq_fresh_src(&R->fresh, off) :
		 (x->buf == FQ_BUF_SRC ? R->src : R->work) + off;
	m->ack = &z_acks[me][fq_pipe_slot(p, a)][i];
	m->msg = xs->msgs;
	m->freed = &xs->freed;
	/*
	 * a copy as a read request lending a run of what is ready
	 * (fq_pump_rndv_span): up to the ack window, as many as the bytes a
	 * request lends hold chunks (512 KiB: 8 of 64 KiB, the whole window of 8 KiB)
	 */
	if (xport && !z_writes && x->into == FQ_X_RECV && rnd() % 2) {
		run = fq_pipe_send_run(p, a, i, FQ_ACK_WINDOW - (xs->msgs - m->ack->prefix));
		nmsg = 1 + rnd() % run;
		for (n = 1; n < nmsg; n++) {
			fq_pipe_msg(p, x, xs->msgs + n, &off, &next);
			len += next;
		}
		m->span = calloc(1, sizeof(*m->span));
		*m->span = (struct zspan){ .ack = m->ack, .msg = m->msg, .freed = &xs->freed,
					   .nmsg = nmsg };
	}
	m->len = len;
	m->into = x->into;
	if (xport && z_writes)
		z_target(me, x, xs, m);
	if (m->msg + nmsg > PIPE_MAXMSG)
		z_fail("too many messages in one transfer for the model", me, x->peer, c);
	if (xport) {
		k->credits--;
		k->inflight++;
		k->sq_used++;
		m->ret = k->ret;
		k->ret = 0;
		if (!m->span && rnd() % 2) {	/* copied through a send slot, done at once */
			memcpy(m->data, m->src, len);
			m->src = NULL;
			z_done(m);
		}
	}
	z_push(me, x->peer, c, m);
	send_seq[me][x->peer]++;
	xs->msgs += nmsg;
	return 1;
}

/* the device sends the next message @from has for @to on @c, and it arrives */
static int pipe_transmit(int from, int to, uint32_t c)
{
	struct zmsg *m, **pm;
	struct zconn *rx = &zc[to][from][c], *tx = &zc[from][to][c];

	/* a grant of @from's reaches @to, the sender (it takes a credit: not modelled) */
	if (z_grants[to][from].wire && rnd() % 2) {
		z_grants[to][from].wire = 0;
		z_grants[to][from].have = 1;
		return 1;
	}
	for (pm = &z_head[from][to][c]; *pm && (*pm)->sent; pm = &(*pm)->next)
		;
	m = *pm;
	if (!m)
		return 0;
	if (xport) {
		if (rx->unplaced == FQ_RECV_SLOTS)
			z_fail("a message found no receive posted", from, to, c);
		rx->credits += m->ret;
		if (rx->credits > FQ_CREDITS)
			z_fail("more credits returned than lent", to, from, c);
		tx->sq_used--;
	}
	if (m->credit_only) {	/* consumed on arrival, its slot reposted */
		*pm = m->next;
		if (!m->next)
			z_tail[from][to][c] = pm;
		free(m);
		return 1;
	}
	if (m->src && !m->span) {	/* zero-copy: read now, done at completion */
		memcpy(m->data, m->src, m->len);
		z_done(m);
	}
	if (m->wdst) {		/* written into place now, whatever the receiver does */
		memcpy(m->wdst, m->data, m->len);
		z_written++;
	}
	m->sent = 1;
	tx->inflight -= !!xport;
	rx->unplaced += !!xport;
	return 1;
}

/*
 * fq_push_taken(): @me takes message @m for receive @x; returns 1 if it
 * came written (in place already)
 */
static int z_taken(int me, const struct fq_xfer *x, const struct fq_xstate *xs,
		   struct zack *ack, const struct zmsg *m)
{
	struct zgrant *g = &z_grants[x->peer][me];
	uint64_t seq = recv_seq[x->peer][me];

	if (m->wdst) {
		if (!g->live || g->ack != ack || g->msg + g->got != xs->issued ||
		    g->seq + g->got != seq)
			z_die("transport: %d wrote to %d where no grant let it", x->peer, me);
		if (++g->got == g->nmsg)
			g->live = 0;
		return 1;
	}
	if (g->live && g->got)
		z_die("transport: %d sent plain inside a run it wrote to %d", x->peer, me);
	if (g->live && g->seq == seq)
		g->live = 0;	/* void: it crossed the grant */
	return 0;
}

/*
 * fq_pump_grant(): a receive of @me's in flight, a copy with nothing
 * from its peer waiting, grants at random a run of what may be written now
 */
static int pipe_grant(struct rank *R, int me)
{
	struct fq_pipe *p = &R->pipe;
	uint32_t a, i, run, len, ahead, window;
	uint64_t off;

	if (!xport || !z_writes || !R->started || R->done || rnd() % 2)
		return 0;
	for (a = 0; a < p->n; a++) {
		struct fq_pipe_step *ps = fq_pipe_at(p, a);

		for (i = 0; i < ps->st.n; i++) {
			struct fq_xfer *x = &ps->st.x[i];
			struct fq_xstate *xs = &ps->xs[i];
			struct zack *ack = &z_acks[me][fq_pipe_slot(p, a)][i];
			struct zgrant *g = &z_grants[x->peer][me];
			struct zmsg *m = z_head[x->peer][me][0];

			if (x->op != FQ_X_RECV || g->live || g->wire || g->have || (m && m->sent) ||
			    !fq_pipe_recv_ready(p, a, i))
				continue;
			/* from the next message on, or some past it (what the peer may have sent) */
			ahead = rnd() % (FQ_CREDITS + 1);
			window = FQ_ACK_WINDOW - (xs->issued - ack->prefix);
			if (xs->issued + ahead >= xs->nmsg || ahead >= window)
				continue;
			run = fq_pipe_recv_run(p, a, i, xs->issued + ahead, window - ahead);
			if (!run)
				continue;
			fq_pipe_msg(p, x, xs->issued + ahead, &off, &len);
			*g = (struct zgrant){ .live = 1, .wire = 1,
					      .seq = recv_seq[x->peer][me] + ahead,
					      .nmsg = 1 + rnd() % run, .ack = ack,
					      .msg = xs->issued + ahead, .dst = R->work + off };
			return 1;
		}
	}
	return 0;
}

/* receive @i of the @a-th step in flight places the message that arrived */
static int pipe_place(struct rank *R, int me, uint32_t a, uint32_t i)
{
	struct fq_pipe *p = &R->pipe;
	struct fq_pipe_step *ps = fq_pipe_at(p, a);
	struct fq_xfer *x = &ps->st.x[i];
	struct fq_xstate *xs = &ps->xs[i];
	uint32_t c = recv_seq[x->peer][me] % nch, len;
	struct zmsg *m = z_head[x->peer][me][c];
	uint64_t off;

	fq_pipe_msg(p, x, xs->issued, &off, &len);
	if (m->span) {
		/* a read request: its run must be whole messages of this receive */
		uint64_t total = 0, o;
		uint32_t n, l;

		for (n = 0; !m->taken && n < m->span->nmsg && xs->issued + n < xs->nmsg; n++) {
			fq_pipe_msg(p, x, xs->issued + n, &o, &l);
			total += l;
		}
		if (!m->taken && (n < m->span->nmsg || total != m->len)) {
			z_die("rank %d step %u: a read request of %llu bytes from %u for %u messages does not fit",
			      me, ps->k, (unsigned long long)m->len, x->peer, m->span->nmsg);
		}
	} else if (m->len != len) {
		z_die("rank %d step %u: got %llu bytes from %u, expected %u", me, ps->k,
		      (unsigned long long)m->len, x->peer, len);
	}
	if (m->into != x->op) {	/* cm.c reads only a copy into place */
		z_die("rank %d step %u: %u sent for receive op %u, the receive is op %u",
		      me, ps->k, x->peer, m->into, x->op);
	}
	if (m->span) {		/* read into place later, from the sender's bytes */
		struct zread *rd = &z_reads[me][z_nreads[me]++];

		if (z_nreads[me] > PIPE_MAXREAD)
			z_fail("too many reads in flight for the model", x->peer, me, c);
		*rd = (struct zread){ .xs = xs, .ack = &z_acks[me][fq_pipe_slot(p, a)][i],
				      .msg = xs->issued, .x = *x, .off = off, .len = len,
				      .src = m->src + (uint64_t)m->taken * PIPE_CHUNK,
				      .span = m->span };
		xs->issued++;
		if (++m->taken < m->span->nmsg)	/* the request stays until its last is taken */
			return 1;
	} else {
		if (!z_taken(me, x, xs, &z_acks[me][fq_pipe_slot(p, a)][i], m))
			land(R, x, xs->input, off, m->data, len);
		xs->msgs = z_mark(&z_acks[me][fq_pipe_slot(p, a)][i], xs->issued);
		xs->issued++;
	}
	z_head[x->peer][me][c] = m->next;
	if (!m->next)
		z_tail[x->peer][me][c] = &z_head[x->peer][me][c];
	free(m);
	recv_seq[x->peer][me]++;
	if (xport) {		/* fq_cm_consume, then the pass's retry */
		zc[me][x->peer][c].unplaced--;
		zc[me][x->peer][c].ret++;
		for (c = 0; c < nch; c++)
			z_return_credits(me, x->peer, c);
	}
	return 1;
}

/* one of @me's reads in flight completes, at random: its copy lands, placed */
static int pipe_read_done(struct rank *R, int me)
{
	struct zread *rd;
	uint32_t k, j;

	if (!z_nreads[me])
		return 0;
	k = rnd() % z_nreads[me];
	rd = &z_reads[me][k];
	land(R, &rd->x, false, rd->off, rd->src, rd->len);
	rd->xs->msgs = z_mark(rd->ack, rd->msg);
	/* the run read: the sender's messages are done (its FIN, its invalidation) */
	if (++rd->span->reads == rd->span->nmsg) {
		/* fq_ack_mark() takes the run at once: all of it in the window */
		if (rd->span->msg + rd->span->nmsg - rd->span->ack->prefix > FQ_ACK_WINDOW) {
			z_die("transport: a run of %u from message %llu past the ack window (first not done: %llu)",
			      rd->span->nmsg, (unsigned long long)rd->span->msg,
			      (unsigned long long)rd->span->ack->prefix);
		}
		for (j = 0; j < rd->span->nmsg; j++)
			*rd->span->freed = z_mark(rd->span->ack, rd->span->msg + j);
		free(rd->span);
	}
	z_reads[me][k] = z_reads[me][--z_nreads[me]];
	return 1;
}

/* retire what is done, admit what fits (a new step's acks start empty) */
static void pipe_turn(struct rank *R, int me)
{
	struct fq_pipe *p = &R->pipe;

	if (!R->started || R->done)
		return;
	while (p->n && fq_pipe_step_done(fq_pipe_at(p, 0)))
		fq_pipe_retire(p);
	while (fq_pipe_admit(p))
		memset(z_acks[me][fq_pipe_slot(p, p->n - 1)], 0,
		       sizeof(z_acks[me][0]));
	R->done = !p->n && p->ended;
	if (R->done)
		R->t_done = ++pipe_clock;
}

/* rank @R joins the operation, if it may after @tried moves tried */
static int pipe_start(struct rank *R, int me, uint32_t tried)
{
	if (R->started || tried < R->start_after)
		return 0;
	R->started = 1;
	R->t_start = ++pipe_clock;
	pipe_turn(R, me);
	return 1;
}

/* one of the moves of @R that can be made now, at random: a send or a placement */
static int pipe_pick(struct rank *R, int me, int placing)
{
	struct fq_pipe *p = &R->pipe;
	uint32_t a, i, nready = 0, ready[FQ_PIPE_DEPTH * FQ_STEP_MAX];

	for (a = 0; a < p->n; a++) {
		struct fq_pipe_step *ps = fq_pipe_at(p, a);

		for (i = 0; i < ps->st.n; i++) {
			struct fq_xfer *x = &ps->st.x[i];
			struct zmsg *m = z_head[x->peer][me][recv_seq[x->peer][me] % nch];
			uint64_t prefix = z_acks[me][fq_pipe_slot(p, a)][i].prefix;
			/* neither pump goes FQ_ACK_WINDOW past the first message not done */
			int room = (placing ? ps->xs[i].issued : ps->xs[i].msgs) - prefix <
				   FQ_ACK_WINDOW;

			if (!room)
				continue;
			if (placing ? x->op != FQ_X_SEND && m && m->sent && fq_pipe_recv_ready(p, a, i) :
			    x->op == FQ_X_SEND && fq_pipe_send_ready(p, a, i) &&
			    z_can_send(me, x->peer, send_seq[me][x->peer] % nch))
				ready[nready++] = a * FQ_STEP_MAX + i;
		}
	}
	if (!nready)
		return 0;
	a = ready[rnd() % nready];
	return placing ? pipe_place(R, me, a / FQ_STEP_MAX, a % FQ_STEP_MAX) :
	       pipe_send(R, me, a / FQ_STEP_MAX, a % FQ_STEP_MAX);
}

/*
 * Every move anyone can make, once; if there is none, the next rank to
 * come joins.  Returns how many moves were made.
 */
static int pipe_sweep(struct rank *R, uint32_t n)
{
	int moved = 0;
	uint32_t r, t, c, late = n;

	for (r = 0; r < n; r++) {
		pipe_turn(&R[r], r);
		moved += pipe_pick(&R[r], r, 0) + pipe_pick(&R[r], r, 1) + pipe_credits(&R[r], r) +
			 pipe_read_done(&R[r], r) + pipe_grant(&R[r], r);
		for (t = 0; t < n; t++)
			for (c = 0; c < nch; c++)
				moved += pipe_transmit(r, t, c);
		pipe_turn(&R[r], r);
		if (!R[r].started && (late == n || R[r].start_after < R[late].start_after))
			late = r;
	}
	if (!moved && late < n)
		moved = pipe_start(&R[late], late, ~0U);
	return moved;
}

/* run the ranks' moves in a random order until none can move */
static void pipe_run(struct rank *R, uint32_t n)
{
	uint32_t r, idle = 0, tried = 0;
	int mv;

	for (r = 0; r < n; r++)
		R[r].start_after = rnd() % (40 * n);
	for (;; tried++) {
		r = rnd() % n;
		switch (rnd() % 6) {
		case 0:
			mv = pipe_pick(&R[r], r, 0);
			break;
		case 1:
			mv = pipe_pick(&R[r], r, 1);
			break;
		case 2:
			mv = pipe_transmit(r, rnd() % n, rnd() % nch);
			break;
		case 3:
			mv = pipe_credits(&R[r], r);
			break;
		case 4:
			mv = pipe_read_done(&R[r], r) + pipe_grant(&R[r], r);
			break;
		default:
			mv = pipe_start(&R[r], r, tried);
		}
		pipe_turn(&R[r], r);
		if (mv) {
			idle = 0;
			continue;
		}
		if (++idle < 8 * n)
			continue;
		idle = 0;
		if (!pipe_sweep(R, n))
			return;
	}
}

static uint64_t val(int r, uint64_t i) { return (uint64_t)r * 0x9e3779b97f4a7c15ULL + i * 7919 + 1; }

/*
 * The channel a run plays (fq_chan_view()): its ranks' buffers are the
 * channel's, and element i of them is element G(i) of the call's, whose
 * values the inputs hold and the results are checked against.  The
 * identity unless run_sliced() says otherwise.  Worked out here from the
 * slice, not with fq_view_off(), which run_sliced() checks against it.
 */
static struct fq_view view;

static uint64_t G(uint64_t i)
{
	uint64_t per = view.slen / 8;	/* a block of the channel's buffer */

	return per ? i / per * (view.stride / 8) + view.base / 8 + i % per : i;
}

/* returns number of wrong elements */
/*
 * The engine's two ways to start (coll.c fq_op_prepare): @fused, the work
 * buffer starts as garbage and stands for the input where coll_fresh.c
 * says so; else the input is copied in first.
 */
static void start(struct rank *R, uint32_t coll, uint32_t r, uint32_t root, uint64_t count,
		  uint64_t wlen, int fused)
{
	uint64_t i, lo, len;
	bool input;

	if (fused) {
		memset(R->work, 0xa5, 8 * wlen);
		R->fused = 1;
		input = fq_fresh_window(&R->s, &lo, &len);
		fq_fresh_init(&R->fresh, R->work, input ? R->src : NULL, lo, len, NULL);
	}
	/* what the engine puts in the work buffer before step 0 */
	if (coll == FABRIQ_COLL_ALLGATHER && !fused)
		for (i = 0; i < count; i++) {
			uint64_t v = val(r, G(i));

			memcpy(R->work + 8 * (r * count + i), &v, 8);
		}
	else if (coll == FABRIQ_COLL_ALLTOALL)
		memcpy(R->work + 8 * r * count, R->src + 8 * r * count, 8 * count);
	else if ((coll != FABRIQ_COLL_BROADCAST || r == root) && !fused)
		memcpy(R->work, R->src, 8 * wlen);
}

/* fused: what fq_op_finish() fills in once the steps are done (work is the output) */
static void finish(struct rank *R)
{
	if (R->fused)
		fq_fresh_finish(&R->fresh, &R->s, true);
}

enum mode { STEPWISE, FUSED, PIPELINED, XPORT };

static long run(uint32_t coll, uint32_t algo, uint32_t n, uint32_t root, uint64_t count,
		enum mode mode)
{
	static struct rank R[MAXR];
	uint64_t wlen = (coll == FABRIQ_COLL_ALLGATHER || coll == FABRIQ_COLL_REDUCESCATTER ||
			 coll == FABRIQ_COLL_ALLTOALL) ? n * count : count;
	long wrong = 0;
	uint32_t r, f, c, moved, iter = 0;
	uint64_t i;

	xport = mode == XPORT;
	z_writes = xport && rnd() % 2;
	memset(z_grants, 0, sizeof(z_grants));
	for (r = 0; r < n; r++)
		for (f = 0; f < n; f++) {
			q_head[r][f] = NULL;
			q_tail[r][f] = &q_head[r][f];
			send_seq[r][f] = recv_seq[r][f] = 0;
			for (c = 0; c < FABRIQ_MAX_CHANNELS; c++) {
				z_head[r][f][c] = NULL;
				z_tail[r][f][c] = &z_head[r][f][c];
				zc[r][f][c] = (struct zconn){ .credits = FQ_CREDITS };
			}
		}
	for (r = 0; r < n; r++) {
		memset(&R[r], 0, sizeof(R[r]));
		R[r].s = (struct fq_sched){ coll, algo, n, r, root, count, 8 };
		R[r].work = calloc(wlen + 1, 8);
		R[r].src = calloc(wlen + 1, 8);
		for (i = 0; i < wlen; i++) {
			uint64_t v = val(r, G(i));

			memcpy(R[r].src + 8 * i, &v, 8);
		}
		start(&R[r], coll, r, root, count, wlen, mode != STEPWISE);
		fq_pipe_init(&R[r].pipe, &R[r].s, &R[r].fresh, PIPE_CHUNK);
	}
	if (mode >= PIPELINED)
		pipe_run(R, n);
	else
		do {
			moved = 0;
			for (r = 0; r < n; r++)
				moved |= advance(&R[r], r);
			iter++;
		} while (moved && iter < 100000);
	for (r = 0; r < n; r++)
		if (!R[r].done) {
			printf("# deadlock: rank %u stuck at step %u\n", r,
			       mode >= PIPELINED ? R[r].pipe.next_k : R[r].k);
			return -1;
		}
	for (r = 0; r < n; r++) {
		finish(&R[r]);
		for (i = 0; i < wlen; i++) {
			uint64_t got, want = 0;
			int check = 1;

			memcpy(&got, R[r].work + 8 * i, 8);
			switch (coll) {
			case FABRIQ_COLL_ALLREDUCE:
				for (f = 0; f < n; f++)
					want += val(f, G(i));
				break;
			case FABRIQ_COLL_REDUCE:
				check = r == root;
				for (f = 0; f < n; f++)
					want += val(f, G(i));
				break;
			case FABRIQ_COLL_REDUCESCATTER:
				check = i / count == r;
				for (f = 0; f < n; f++)
					want += val(f, G(i));
				break;
			case FABRIQ_COLL_ALLGATHER:
				want = val(i / count, G(i % count));
				break;
			case FABRIQ_COLL_BROADCAST:
				want = val(root, G(i));
				break;
			case FABRIQ_COLL_ALLTOALL:
				/* block f of rank r = block r of rank f */
				want = val(i / count, G(r * count + i % count));
				break;
			default:
				check = 0;
			}
			if (check && got != want)
				wrong++;
		}
		/* a barrier: nobody leaves before everybody came */
		for (f = 0; coll == FABRIQ_COLL_BARRIER && mode >= PIPELINED && f < n; f++)
			wrong += R[r].t_done < R[f].t_start;
		free(R[r].work);
		free(R[r].src);
	}
	return wrong;
}

#define SLICE_CHUNK	4096	/* the communicator's chunk in run_sliced() */

/*
 * A call of @count 8-byte elements cut over @nch channels as the engine
 * cuts it (fq_chan_active(), fq_chan_view()): the slices must tile every
 * block, no transfer of a channel's schedule may cross one of its blocks
 * (the real bytes would not be contiguous), and each channel's run, on
 * its slice alone, must produce the call's results there.  Returns the
 * wrong elements, or -1 for a bad cut or a deadlock.
 */
static long run_sliced(uint32_t coll, uint32_t algo, uint32_t n, uint32_t root, uint64_t count,
		       uint32_t nch, enum mode mode, uint32_t *nact_out)
{
	uint64_t blk = 8 * count, next = 0, e;
	uint32_t nact = fq_chan_active(coll, blk, SLICE_CHUNK, nch), c, r, k;
	uint32_t blocks = (coll == FABRIQ_COLL_ALLGATHER || coll == FABRIQ_COLL_REDUCESCATTER ||
			   coll == FABRIQ_COLL_ALLTOALL) ? n : 1;
	struct fq_step st;
	struct fq_sched s;
	long wrong = 0, w;
	unsigned int i;

	*nact_out = nact;
	if (nact < 1 || nact > nch || (nact > 1 && blk < 2 * SLICE_CHUNK))
		return -1;
	for (c = 0; c < nact && wrong >= 0; c++) {
		view = fq_chan_view(blk, nact, c);
		/* the slices tile the block, each whole elements */
		if (view.base != next || view.stride != blk || view.slen % 8 ||
		    (nact > 1 && !view.slen) || (c == nact - 1 && next + view.slen != blk)) {
			printf("# count %llu over %u channels: slice %u is [%llu, +%llu)\n",
			       (unsigned long long)count, nact, c, (unsigned long long)view.base,
			       (unsigned long long)view.slen);
			wrong = -1;
			break;
		}
		next += view.slen;
		/* the kernel's map of the channel's offsets, byte by byte of each element */
		for (e = 0; e < blocks * (view.slen / 8); e++)
			if (fq_view_off(&view, 8 * e) != 8 * G(e) ||
			    fq_view_off(&view, 8 * e + 7) != 8 * G(e) + 7) {
				printf("# count %llu, slice %u of %u: element %llu maps to byte %llu\n",
				       (unsigned long long)count, c, nact, (unsigned long long)e,
				       (unsigned long long)fq_view_off(&view, 8 * e));
				wrong = -1;
				break;
			}
		for (r = 0; r < n; r++) {
			s = (struct fq_sched){ coll, algo, n, r, root, view.slen / 8, 8 };
			for (k = 0; fq_sched_step(&s, k, &st); k++)
				for (i = 0; i < st.n; i++)
					if (st.x[i].len && view.slen &&
					    st.x[i].off / view.slen !=
					    (st.x[i].off + st.x[i].len - 1) / view.slen) {
						printf("# rank %u step %u: [%llu, +%llu) crosses a block of %llu\n",
						       r, k, (unsigned long long)st.x[i].off,
						       (unsigned long long)st.x[i].len,
						       (unsigned long long)view.slen);
						wrong = -1;
					}
		}
		if (wrong < 0)
			break;
		w = run(coll, algo, n, root, view.slen / 8, mode);
		wrong = w < 0 ? -1 : wrong + w;
	}
	view = (struct fq_view){ 0 };
	return wrong;
}

/*
 * coll_fresh.c against a byte-by-byte model of what the work buffer
 * logically holds: random windows, fills, receives written and state
 * queries, enough of them to overflow the written ranges.  Every other
 * run plays a channel: its offsets go through a random view (algo.h)
 * into larger real buffers, whose bytes outside the slice nothing may
 * touch.  Returns the first failing iteration + 1, or 0.
 */
static long fresh_model(long iters)
{
	enum { W = 256, REAL = 256 * 100 };
	static unsigned char work[REAL], src[REAL], logical[W];
	struct fq_view v;
	struct fq_fresh f;
	uint64_t lo, len, off, l, o;
	long it;
	int k, i;

#define WORK(o) work[fq_view_off(&v, (o))]
	rnd_seed(1);
	for (it = 0; it < iters; it++) {
		v = (struct fq_view){ 0 };
		if (it & 1) {
			v.slen = 1 + rnd() % 64;
			v.stride = v.slen + rnd() % 32;
			v.base = rnd() % (v.stride - v.slen + 1);
		}
		/* a window starts at a block of the channel's buffer */
		lo = v.slen ? v.slen * (rnd() % 3) : (uint64_t)(rnd() % 64);
		len = rnd() % 128;
		for (i = 0; i < REAL; i++) {
			src[i] = rnd();
			work[i] = 0xee;
		}
		fq_fresh_init(&f, work, src, lo, len, v.slen ? &v : NULL);
		for (o = 0; o < W; o++)
			logical[o] = o >= lo && o < lo + len ? src[fq_view_off(&v, o - lo)] : 0xee;
		for (k = rnd() % 30; k > 0; k--) {
			off = rnd() % 200;
			l = rnd() % 40;
			switch (rnd() % 3) {
			case 0:
				switch (fq_fresh_state(&f, off, l)) {
				case FQ_FRESH_INPUT:
					for (o = off; o < off + l; o++)
						if (*(const unsigned char *)fq_fresh_src(&f, o) !=
						    logical[o])
							return it + 1;
					break;
				case FQ_FRESH_WORK:
					for (o = off; o < off + l; o++)
						if (WORK(o) != logical[o])
							return it + 1;
					break;
				default:
					break;
				}
				break;
			case 1:
				fq_fresh_fill(&f, off, l);
				for (o = off; o < off + l; o++)
					if (WORK(o) != logical[o])
						return it + 1;
				break;
			default:	/* a receive writes [off, off + l) */
				for (o = off; o < off + l; o++)
					WORK(o) = logical[o] = rnd();
				fq_fresh_written(&f, off, l);
			}
			if (f.n > FQ_FRESH_RANGES)
				return it + 1;
		}
		fq_fresh_fill(&f, 0, W);
		for (o = 0; o < W; o++) {
			if (WORK(o) != logical[o])
				return it + 1;
			WORK(o) = 0xee;
		}
		/* and nothing outside the slice */
		for (i = 0; i < REAL; i++)
			if (work[i] != 0xee)
				return it + 1;
	}
#undef WORK
	return 0;
}

int main(void)
{
	static const struct { uint32_t coll, algo; const char *name; } cases[] = {
		{ FABRIQ_COLL_ALLREDUCE, FABRIQ_ALGO_RING, "allreduce ring" },
		{ FABRIQ_COLL_ALLREDUCE, FABRIQ_ALGO_RD, "allreduce recursive doubling" },
		{ FABRIQ_COLL_ALLREDUCE, FABRIQ_ALGO_TREE, "allreduce rabenseifner" },
		{ FABRIQ_COLL_ALLGATHER, FABRIQ_ALGO_RING, "allgather ring" },
		{ FABRIQ_COLL_REDUCESCATTER, FABRIQ_ALGO_RING, "reducescatter ring" },
		{ FABRIQ_COLL_BROADCAST, FABRIQ_ALGO_RING, "broadcast chain" },
		{ FABRIQ_COLL_BROADCAST, FABRIQ_ALGO_TREE, "broadcast binomial" },
		{ FABRIQ_COLL_REDUCE, FABRIQ_ALGO_RING, "reduce ring" },
		{ FABRIQ_COLL_REDUCE, FABRIQ_ALGO_TREE, "reduce binomial" },
		{ FABRIQ_COLL_BARRIER, FABRIQ_ALGO_RD, "barrier dissemination" },
		{ FABRIQ_COLL_ALLTOALL, FABRIQ_ALGO_DIRECT, "alltoall pairwise" },
	};
	static const uint64_t counts[] = { 0, 1, 7, 16, 33, 1000 };
	int ncase = sizeof(cases) / sizeof(cases[0]), c, fails = 0, t = 0;

	static const char *const how[] = {
		[STEPWISE] = "", [FUSED] = ", fused (no pre-copy)",
		[PIPELINED] = ", pipelined (steps in flight, zero-copy, random order)",
		[XPORT] = ", pipelined over the transport (channels, credits, copied or zero-copy)",
	};

	rnd_seed(7);
	printf("TAP version 13\n1..%d\n", 5 * ncase + 2);
	for (c = 0; c < 4 * ncase; c++) {
		enum mode mode = c / ncase;
		int k = c % ncase;
		long bad = 0, runs = 0;
		uint32_t n, root;
		unsigned int ci;

		/* pipelined: message by message, so fewer and smaller runs */
		for (n = 1; n <= (mode >= PIPELINED ? 9 : MAXR); n++)
			for (root = 0; root < n; root += (n > 4 ? n / 3 : 1))
				for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
					long w = run(cases[k].coll, cases[k].algo, n, root,
						     mode >= PIPELINED ? counts[ci] / 5 + !!counts[ci] :
						     counts[ci], mode);

					runs++;
					if (w) {
						if (bad < 3)
							printf("# n=%u root=%u count=%llu: %ld wrong\n", n,
							       root, (unsigned long long)counts[ci], w);
						bad++;
					}
				}
		printf("%s %d %s%s (%ld runs, %ld bad)\n", bad ? "not ok" : "ok", ++t,
		       cases[k].name, how[mode], runs, bad);
		fails += !!bad;
	}
	/* cut over 1 to 4 channels, fused: each channel a window of its own */
	for (c = 0; c < ncase; c++) {
		static const uint64_t big[] = { 1023, 1024, 1027, 3000, 5005 };
		static const uint32_t ns[] = { 1, 2, 3, 4, 5, 8 };
		long bad = 0, runs = 0, w;
		uint32_t root, ch, nact, most = 1;
		unsigned int ni, ci;

		for (ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
			for (root = 0; root < ns[ni]; root += max(ns[ni] - 1, 1U))
				for (ci = 0; ci < sizeof(big) / sizeof(big[0]); ci++)
					for (ch = 1; ch <= FABRIQ_MAX_CHANNELS; ch++) {
						w = run_sliced(cases[c].coll, cases[c].algo, ns[ni], root,
							       big[ci], ch, FUSED, &nact);
						runs++;
						most = max(most, nact);
						if (w && bad++ < 3)
							printf("# n=%u root=%u count=%llu channels %u: %ld wrong\n",
							       ns[ni], root, (unsigned long long)big[ci], ch, w);
					}
		printf("%s %d %s%s, cut over 1 to %u channels (%ld runs, %ld bad)\n",
		       bad ? "not ok" : "ok", ++t, cases[c].name, how[FUSED], most, runs, bad);
		fails += !!bad;
	}
	{
		int ok = fq_sched_pick(FABRIQ_COLL_ALLREDUCE, 0, 0, 8, 32768, 3) == FABRIQ_ALGO_RD &&
			 fq_sched_pick(FABRIQ_COLL_ALLREDUCE, 0, 0, 1 << 20, 32768, 3) == FABRIQ_ALGO_RING &&
			 fq_sched_pick(FABRIQ_COLL_ALLREDUCE, 0, FABRIQ_ALGO_TREE, 8, 32768, 3) == FABRIQ_ALGO_TREE &&
			 fq_sched_pick(FABRIQ_COLL_ALLGATHER, 0, FABRIQ_ALGO_RD, 8, 32768, 3) == FABRIQ_ALGO_RING &&
			 fq_sched_pick(FABRIQ_COLL_ALLGATHER, FABRIQ_ALGO_RD, 0, 8, 32768, 3) < 0 &&
			 fq_sched_pick(FABRIQ_COLL_ALLTOALL, FABRIQ_ALGO_RING, 0, 8, 32768, 3) < 0 &&
			 fq_sched_pick(__FABRIQ_COLL_MAX, 0, 0, 8, 32768, 3) < 0 &&
			 fq_sched_pick(FABRIQ_COLL_BARRIER, 0, 0, 0, 32768, 3) == FABRIQ_ALGO_RD &&
			 fq_sched_pick(FABRIQ_COLL_ALLREDUCE, 0, 0, 1 << 20, 32768, 2) == FABRIQ_ALGO_RD &&
			 fq_sched_pick(FABRIQ_COLL_ALLREDUCE, 0, 0, 1 << 20, 32768, 8) == FABRIQ_ALGO_TREE &&
			 fq_sched_pick(FABRIQ_COLL_ALLREDUCE, 0, 0, 1 << 20, 32768, 6) == FABRIQ_ALGO_RING;

		printf("%s %d schedule selection and forcing\n", ok ? "ok" : "not ok", ++t);
		fails += !ok;
	}
	{
		long bad = fresh_model(200000);

		if (bad)
			printf("# iteration %ld went wrong\n", bad - 1);
		printf("%s %d coll_fresh against a byte-by-byte model (200000 random runs, half through a channel's view)\n",
		       bad ? "not ok" : "ok", ++t);
		fails += !!bad;
	}
	printf("# %llu messages written where a grant let them\n", (unsigned long long)z_written);
	printf("# totals: pass:%d fail:%d skip:0\n", t - fails, fails);
	return fails ? 1 : 0;
}
