// SPDX-License-Identifier: GPL-2.0
/*
 * coll_fresh.c - which bytes of an operation's work buffer still stand for
 * the caller's input, so that nothing copies the input in before step 0.
 *
 * Logically a schedule starts with the input in the work buffer (algo.h).
 * Instead of copying it there, the engine keeps a window of work offsets
 * [lo, hi) that still "hold" input byte (o - lo), and the ranges of it
 * that a receive has written since.  A send from a range nothing wrote
 * yet reads the input itself; the first reduction into such a range
 * writes work = input op received (fused, fq_reduce_to()); whatever was
 * never written is copied once the output needs it (fq_fresh_fill()).
 *
 * The schedules write whole transfers (parts, blocks, halves), so a few
 * merged ranges are enough (they use at most two); more, and the whole
 * window is filled at once (the old pre-copy, never wrong).  What the
 * schedules guarantee and this relies on: no two reductions of one step
 * write overlapping ranges (both would read the input), and a send that
 * forwards a receive sends that receive's range.  An input that partly
 * overlaps the output is first copied aside by the engine (coll.c).
 *
 * A channel running its slice of a call (algo.h) keeps a window of its
 * own, in its own offsets; its view maps them to the real buffers only
 * where bytes are touched.  The window starts at a block, so the input
 * byte standing for the channel's offset o is the view's map of o - lo.
 */
#ifdef __KERNEL__
#include <linux/minmax.h>
#include <linux/string.h>
#endif

#include <linux/fabriq.h>

#include "coll_fresh.h"

/**
 * fq_fresh_window() - where the input stands in the work buffer
 * @s: the call's schedule parameters (coll, nranks, rank, root, count, esize)
 * @lo: set to the work offset of input byte 0
 * @len: set to the input's length
 *
 * Return: false when the work buffer stands for no input: a broadcast
 * off the root, alltoall (which sends from its own source buffer), the
 * barrier, or nothing to move.
 */
bool fq_fresh_window(const struct fq_sched *s, u64 *lo, u64 *len)
{
	u64 blk = s->count * s->esize;

	*lo = 0;
	*len = blk;
	switch (s->coll) {
	case FABRIQ_COLL_ALLGATHER:
		*lo = s->rank * blk;
		break;
	case FABRIQ_COLL_REDUCESCATTER:
		*len = blk * s->nranks;
		break;
	case FABRIQ_COLL_BROADCAST:
		return blk && s->rank == s->root;
	case FABRIQ_COLL_ALLTOALL:
	case FABRIQ_COLL_BARRIER:
		return false;
	}
	return blk;
}

/**
 * fq_fresh_finish() - after the last step, make the output hold its bytes
 * @f: the operation's
 * @s: the call's schedule parameters
 * @work_is_output: the work buffer is the caller's output (else scratch)
 *
 * The output's bytes no receive wrote come from the input: all of it
 * where the work buffer is the output, the rank's own block of a
 * reduce-scatter (whose work buffer is scratch, copied out after this).
 */
void fq_fresh_finish(struct fq_fresh *f, const struct fq_sched *s, bool work_is_output)
{
	u64 blk = s->count * s->esize;

	if (s->coll == FABRIQ_COLL_REDUCESCATTER)
		fq_fresh_fill(f, s->rank * blk, blk);
	else if (work_is_output)
		fq_fresh_fill(f, 0, blk * s->nranks);
}

/**
 * fq_fresh_init() - the work buffer holds nothing yet; input is at @src
 * @f: the operation's
 * @work: the work buffer
 * @src: the input, standing for work bytes [@lo, @lo + @len); NULL: none
 * @lo: where in the work buffer the input goes
 * @len: its length
 * @view: the channel's view of @work and @src; NULL: the whole call's
 */
void fq_fresh_init(struct fq_fresh *f, void *work, const void *src, u64 lo, u64 len,
		   const struct fq_view *view)
{
	f->work = work;
	f->src = src;
	f->view = view ? *view : (struct fq_view){ 0 };
	f->lo = lo;
	f->hi = src ? lo + len : lo;
	f->n = 0;
}

/* [a, b) of the window, or empty */
static bool fq_fresh_clip(const struct fq_fresh *f, u64 *a, u64 *b)
{
	*a = max(*a, f->lo);
	*b = min(*b, f->hi);
	return *a < *b;
}

/**
 * fq_fresh_state() - does [off, off + len) hold only input, or no input?
 * @f: the operation's
 * @off: work offset
 * @len: bytes
 *
 * Return: FQ_FRESH_INPUT when all of it is in the window and unwritten,
 * FQ_FRESH_WORK when none of it is, FQ_FRESH_MIXED otherwise.
 */
enum fq_fresh_state fq_fresh_state(const struct fq_fresh *f, u64 off, u64 len)
{
	u64 a = off, b = off + len, covered = 0, x, y;
	u32 i;

	if (!len || !fq_fresh_clip(f, &a, &b))
		return FQ_FRESH_WORK;
	for (i = 0; i < f->n; i++) {
		x = max(a, f->r[i].a);
		y = min(b, f->r[i].b);
		if (x < y)
			covered += y - x;
	}
	if (covered == b - a)
		return FQ_FRESH_WORK;
	if (!covered && a == off && b == off + len)
		return FQ_FRESH_INPUT;
	return FQ_FRESH_MIXED;
}

/*
 * The input byte that stands for work offset @off (FQ_FRESH_INPUT ranges);
 * the bytes after it, up to the end of @off's block.
 */
const void *fq_fresh_src(const struct fq_fresh *f, u64 off)
{
	return f->src + fq_view_off(&f->view, off - f->lo);
}

/* copy the unwritten bytes of [a, b) (inside the window) from the input */
static void fq_fresh_copy_gaps(struct fq_fresh *f, u64 a, u64 b)
{
	u64 next, x;
	u32 i;

	while (a < b) {
		/* the written range holding a, else the next one to start */
		next = b;
		for (i = 0; i < f->n; i++) {
			if (f->r[i].a <= a && a < f->r[i].b) {
				a = f->r[i].b;
				break;
			}
			if (f->r[i].a > a)
				next = min(next, f->r[i].a);
		}
		if (i < f->n)
			continue;
		x = min(next, b);
		/* real bytes are contiguous within a block of the view */
		if (f->view.slen)
			x = min(x, (a / f->view.slen + 1) * f->view.slen);
		memmove(f->work + fq_view_off(&f->view, a), fq_fresh_src(f, a), x - a);
		a = x;
	}
}

/* add [a, b) (inside the window) to the written ranges, merging */
static bool fq_fresh_add(struct fq_fresh *f, u64 a, u64 b)
{
	u32 i, j;

	for (i = 0; i < f->n;) {
		if (f->r[i].b < a || b < f->r[i].a) {
			i++;
			continue;
		}
		a = min(a, f->r[i].a);
		b = max(b, f->r[i].b);
		for (j = i + 1; j < f->n; j++)
			f->r[j - 1] = f->r[j];
		f->n--;
	}
	if (f->n == FQ_FRESH_RANGES)
		return false;
	f->r[f->n].a = a;
	f->r[f->n].b = b;
	f->n++;
	return true;
}

/**
 * fq_fresh_fill() - make [off, off + len) of the work buffer hold its bytes
 * @f: the operation's
 * @off: work offset
 * @len: bytes
 *
 * Copies from the input what no receive wrote, and marks it written.
 */
void fq_fresh_fill(struct fq_fresh *f, u64 off, u64 len)
{
	u64 a = off, b = off + len;

	if (!fq_fresh_clip(f, &a, &b))
		return;
	fq_fresh_copy_gaps(f, a, b);
	fq_fresh_written(f, a, b - a);
}

/**
 * fq_fresh_written() - a receive wrote [off, off + len) of the work buffer
 * @f: the operation's
 * @off: work offset
 * @len: bytes
 */
void fq_fresh_written(struct fq_fresh *f, u64 off, u64 len)
{
	u64 a = off, b = off + len;

	if (!fq_fresh_clip(f, &a, &b) || fq_fresh_add(f, a, b))
		return;
	/* out of room: the window holds its bytes from here on (not [a, b): received) */
	fq_fresh_copy_gaps(f, f->lo, a);
	fq_fresh_copy_gaps(f, b, f->hi);
	f->n = 0;
	f->hi = f->lo;
}

/**
 * fq_fresh_xfer_begin() - a step starts @x: does it read from the input?
 * @f: the operation's
 * @x: a transfer of the step about to run
 *
 * A send does, or the local operand of a reduction, when all of its range
 * still stands for the input; a range that partly does is filled now.
 * A send that forwards a receive of its step reads the work buffer.
 * Return: true if @x reads its local bytes at fq_fresh_src().
 */
bool fq_fresh_xfer_begin(struct fq_fresh *f, const struct fq_xfer *x)
{
	enum fq_fresh_state state;

	if (x->buf != FQ_BUF_WORK || x->op == FQ_X_RECV || (x->op == FQ_X_SEND && x->dep >= 0))
		return false;
	state = fq_fresh_state(f, x->off, x->len);
	if (state == FQ_FRESH_MIXED)
		fq_fresh_fill(f, x->off, x->len);
	return state == FQ_FRESH_INPUT;
}

/**
 * fq_fresh_step_writes() - step @st is admitted: what its receives write
 * counts as written from now (pipe.c)
 * @f: the operation's
 * @st: the step, whose transfers fq_fresh_xfer_begin() has seen
 *
 * A later step reads those bytes from the work buffer, once placed.
 */
void fq_fresh_step_writes(struct fq_fresh *f, const struct fq_step *st)
{
	u32 i;

	for (i = 0; i < st->n; i++)
		if (st->x[i].op != FQ_X_SEND && st->x[i].buf == FQ_BUF_WORK)
			fq_fresh_written(f, st->x[i].off, st->x[i].len);
}
