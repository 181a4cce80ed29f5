// SPDX-License-Identifier: GPL-2.0
/*
 * pipe.c - the steps of one operation in flight at once: which message of
 * which step may move now.
 *
 * A schedule (algo.h) is a list of steps; the engine used to end one
 * (every receive placed, every send completed) before starting the next,
 * an idle round trip per step.  Here up to FQ_PIPE_DEPTH steps are in
 * flight and each message moves as soon as the bytes it touches are
 * ready, message by message:
 *
 *  - a send of a later step reads bytes an earlier step receives only
 *    once they are placed (a zero-byte send, which carries only "I got
 *    here", once every earlier receive is: the barrier is a chain of them);
 *  - a receive writes bytes only once every earlier receive into them is
 *    placed and every send of its own or an earlier step is done with
 *    them (a send forwarding this very receive excepted);
 *  - messages between two ranks keep the schedule's order: a later
 *    step's send to a peer waits until the earlier steps' sends to it are
 *    built, a later receive from it until the earlier ones are placed.
 *
 * A step leaves the window, oldest first, once every receive is placed
 * and every send done with; the operation ends when the last one does.
 * A later step never holds an earlier one up (it takes no credit, slot or
 * byte an earlier step waits for), so whatever the step-by-step order
 * finishes, this finishes too.
 *
 * What the schedules' coll_fresh.c bookkeeping needs: a step's receives
 * count as written from when the step is admitted, so a later step reads
 * those bytes from the work buffer, once placed.
 */
#ifdef __KERNEL__
#include <linux/minmax.h>
#endif

#include "pipe.h"

/**
 * fq_pipe_init() - no step in flight yet
 * @p: the pipe
 * @sched: the schedule to run
 * @fresh: which work bytes stand for the input, or NULL
 * @chunk: bytes per message
 */
void fq_pipe_init(struct fq_pipe *p, const struct fq_sched *sched, struct fq_fresh *fresh,
		  u32 chunk)
{
	p->sched = sched;
	p->fresh = fresh;
	p->chunk = chunk;
	p->first = 0;
	p->n = 0;
	p->next_k = 0;
	p->ended = false;
}

/* the slot in p->s of the @a-th oldest step in flight */
u32 fq_pipe_slot(const struct fq_pipe *p, u32 a)
{
	return (p->first + a) % FQ_PIPE_DEPTH;
}

/* the @a-th oldest step in flight (0: the oldest) */
struct fq_pipe_step *fq_pipe_at(struct fq_pipe *p, u32 a)
{
	return &p->s[fq_pipe_slot(p, a)];
}

static const struct fq_pipe_step *fq_pipe_get(const struct fq_pipe *p, u32 a)
{
	return &p->s[fq_pipe_slot(p, a)];
}

/**
 * fq_pipe_msg() - where message @m of transfer @x lies
 * @p: the pipe
 * @x: a transfer
 * @m: a message of it
 * @off: set to its offset in @x's buffer
 * @len: set to its length
 */
void fq_pipe_msg(const struct fq_pipe *p, const struct fq_xfer *x, u64 m, u64 *off, u32 *len)
{
	u64 done = m * p->chunk;

	*off = x->off + done;
	*len = (u32)min_t(u64, p->chunk, x->len - done);
}

/**
 * fq_pipe_msgs_in() - how many whole messages of transfer @x, from its
 * @m-th on, make up exactly @len bytes?
 * @p: the pipe
 * @x: a transfer
 * @m: a message of it
 * @len: the bytes
 * @max: the most messages looked at
 *
 * Return: how many, or 0 if no run of up to @max of them does (what a
 * read request or a write grant covers must be).
 */
u32 fq_pipe_msgs_in(const struct fq_pipe *p, const struct fq_xfer *x, u64 m, u32 len, u32 max)
{
	u64 nmsg = x->len ? (x->len + p->chunk - 1) / p->chunk : 1;
	u64 total = 0, off;
	u32 n = 0, l;

	while (total < len && m + n < nmsg && n < max) {
		fq_pipe_msg(p, x, m + n, &off, &l);
		total += l;
		n++;
	}
	return total == len ? n : 0;
}

/**
 * fq_pipe_admit() - put the next step in flight, if there is room and one
 * @p: the pipe
 *
 * Return: the step, or NULL (the window is full, or the schedule ended).
 */
struct fq_pipe_step *fq_pipe_admit(struct fq_pipe *p)
{
	struct fq_pipe_step *ps;
	u32 i;

	if (p->n == FQ_PIPE_DEPTH || p->ended)
		return NULL;
	ps = &p->s[fq_pipe_slot(p, p->n)];
	if (!fq_sched_step(p->sched, p->next_k, &ps->st)) {
		p->ended = true;
		return NULL;
	}
	ps->k = p->next_k++;
	for (i = 0; i < ps->st.n; i++) {
		u64 len = ps->st.x[i].len;

		ps->xs[i].nmsg = len ? (len + p->chunk - 1) / p->chunk : 1;
		ps->xs[i].msgs = 0;
		ps->xs[i].issued = 0;
		ps->xs[i].freed = 0;
		ps->xs[i].input = p->fresh && fq_fresh_xfer_begin(p->fresh, &ps->st.x[i]);
	}
	if (p->fresh)
		fq_fresh_step_writes(p->fresh, &ps->st);
	p->n++;
	return ps;
}

/* do [a, a + alen) and [b, b + blen) share a byte? */
static bool fq_overlap(u64 a, u64 alen, u64 b, u64 blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* Are bytes of [off, off + len) of @buf still to be placed by receive @j of @e? */
static bool fq_unplaced(const struct fq_pipe *p, const struct fq_pipe_step *e, u32 j, u8 buf,
			u64 off, u64 len)
{
	const struct fq_xfer *y = &e->st.x[j];
	u64 placed = e->xs[j].msgs * p->chunk;

	if (y->op == FQ_X_SEND || y->buf != buf || e->xs[j].msgs == e->xs[j].nmsg)
		return false;
	return fq_overlap(off, len, y->off + placed, y->len - min(placed, y->len));
}

/* Does send @j of @e still read bytes of [off, off + len) of @buf? */
static bool fq_unfreed(const struct fq_pipe *p, const struct fq_pipe_step *e, u32 j, u8 buf,
		       u64 off, u64 len)
{
	const struct fq_xfer *y = &e->st.x[j];
	u64 freed = e->xs[j].freed * p->chunk;

	/* a send from the input reads no byte a receive writes */
	if (y->op != FQ_X_SEND || y->buf != buf || e->xs[j].input ||
	    e->xs[j].freed == e->xs[j].nmsg)
		return false;
	return fq_overlap(off, len, y->off + freed, y->len - min(freed, y->len));
}

/* May message @m of send @i of the @a-th step in flight be built, the ones before it built? */
static bool fq_pipe_send_ready_at(const struct fq_pipe *p, u32 a, u32 i, u64 m)
{
	const struct fq_pipe_step *ps = fq_pipe_get(p, a), *e;
	const struct fq_xfer *x = &ps->st.x[i];
	const struct fq_xstate *xs = &ps->xs[i];
	u64 off;
	u32 b, j, len;

	if (m >= xs->nmsg)
		return false;
	/* forwarding: only what the receive it depends on placed */
	if (x->dep >= 0 && ps->xs[x->dep].msgs <= m)
		return false;
	fq_pipe_msg(p, x, m, &off, &len);
	for (b = 0; b < a; b++) {
		e = fq_pipe_get(p, b);
		for (j = 0; j < e->st.n; j++) {
			const struct fq_xfer *y = &e->st.x[j];

			if (y->op == FQ_X_SEND) {
				if (y->peer == x->peer && e->xs[j].msgs < e->xs[j].nmsg)
					return false;	/* the order to this peer */
				continue;
			}
			if (!x->len && e->xs[j].msgs < e->xs[j].nmsg)
				return false;	/* "got here": after every earlier receive */
			if (!xs->input && fq_unplaced(p, e, j, x->buf, off, len))
				return false;
		}
	}
	return true;
}

/* How many messages of transfer @i of the @a-th step, from @m on, are @ready, up to @max? */
static u32 fq_pipe_run(const struct fq_pipe *p, u32 a, u32 i, u64 m, u32 max,
		       bool (*ready)(const struct fq_pipe *p, u32 a, u32 i, u64 m))
{
	u32 n = 0;

	while (n < max && ready(p, a, i, m + n))
		n++;
	return n;
}

/**
 * fq_pipe_send_ready() - may send @i of the @a-th step in flight build its
 * next message now?
 * @p: the pipe
 * @a: the step, counted from the oldest in flight
 * @i: a send of it
 */
bool fq_pipe_send_ready(const struct fq_pipe *p, u32 a, u32 i)
{
	return fq_pipe_send_ready_at(p, a, i, fq_pipe_get(p, a)->xs[i].msgs);
}

/**
 * fq_pipe_send_run() - how many messages may send @i of the @a-th step in
 * flight build now, from its next one on, up to @max?
 * @p: the pipe
 * @a: the step, counted from the oldest in flight
 * @i: a send of it
 * @max: the most wanted
 *
 * What one read request may lend at once (cm.c's rendezvous).
 */
u32 fq_pipe_send_run(const struct fq_pipe *p, u32 a, u32 i, u32 max)
{
	return fq_pipe_run(p, a, i, fq_pipe_get(p, a)->xs[i].msgs, max, fq_pipe_send_ready_at);
}

/*
 * May message @m of receive @i of the @a-th step in flight be placed now,
 * the ones of it before @m taken?  Messages from one peer are taken in
 * order; the bytes a message writes must be free of earlier readers and
 * writers.  What a later message may rely on is what is placed (@msgs),
 * not what is only being read or written into place.
 */
static bool fq_pipe_recv_ready_at(const struct fq_pipe *p, u32 a, u32 i, u64 m)
{
	const struct fq_pipe_step *ps = fq_pipe_get(p, a), *e;
	const struct fq_xfer *x = &ps->st.x[i];
	u64 off;
	u32 b, j, len;

	if (m >= ps->xs[i].nmsg)
		return false;
	fq_pipe_msg(p, x, m, &off, &len);
	for (b = 0; b <= a; b++) {
		e = fq_pipe_get(p, b);
		for (j = 0; j < e->st.n; j++) {
			const struct fq_xfer *y = &e->st.x[j];

			if (b == a && j == i)
				continue;
			/* messages from one peer are taken in the schedule's order */
			if (y->op != FQ_X_SEND && y->peer == x->peer && (b < a || j < i) &&
			    e->xs[j].issued < e->xs[j].nmsg)
				return false;
			/* a send that forwards what @i places reads it after */
			if (b == a && y->dep == (s8)i)
				continue;
			if (fq_unfreed(p, e, j, x->buf, off, len) ||
			    (b < a && fq_unplaced(p, e, j, x->buf, off, len)))
				return false;
		}
	}
	return true;
}

/**
 * fq_pipe_recv_ready() - may receive @i of the @a-th step in flight place
 * its next message (its @issued-th) now?
 * @p: the pipe
 * @a: the step, counted from the oldest in flight
 * @i: a receive of it
 *
 * The caller checks that the message has arrived.
 */
bool fq_pipe_recv_ready(const struct fq_pipe *p, u32 a, u32 i)
{
	return fq_pipe_recv_ready_at(p, a, i, fq_pipe_get(p, a)->xs[i].issued);
}

/**
 * fq_pipe_recv_run() - how many messages of receive @i of the @a-th step
 * in flight, from its @m-th on, may be written into place now, up to @max?
 * @p: the pipe
 * @a: the step, counted from the oldest in flight
 * @i: a receive of it
 * @m: a message of it, not yet taken
 * @max: the most wanted
 *
 * What one write grant may cover at once (push.c): the peer may write
 * them whenever it likes, before the ones before @m are taken too.
 */
u32 fq_pipe_recv_run(const struct fq_pipe *p, u32 a, u32 i, u64 m, u32 max)
{
	return fq_pipe_run(p, a, i, m, max, fq_pipe_recv_ready_at);
}

/* Is every receive of @ps placed and every send done with? */
bool fq_pipe_step_done(const struct fq_pipe_step *ps)
{
	u32 i;

	for (i = 0; i < ps->st.n; i++)
		if ((ps->st.x[i].op == FQ_X_SEND ? ps->xs[i].freed : ps->xs[i].msgs) <
		    ps->xs[i].nmsg)
			return false;
	return true;
}

/* The oldest step in flight is done (fq_pipe_step_done()): it leaves. */
void fq_pipe_retire(struct fq_pipe *p)
{
	p->first = (p->first + 1) % FQ_PIPE_DEPTH;
	p->n--;
}
