// SPDX-License-Identifier: GPL-2.0
/*
 * algo_ring.c - ring schedules: reduce-scatter then allgather around the
 * ring for allreduce, the two halves on their own, a pipelined chain for
 * broadcast and a ring reduce-scatter plus a gather to the root for reduce.
 *
 * Rank r sends to r+1 and receives from r-1.  After the reduce-scatter
 * rank r holds the fully reduced part r.  Messages within one step are
 * chunked and pipelined by the engine; the chain broadcast forwards each
 * chunk as soon as it has arrived.
 */
#include <linux/fabriq.h>

#include "algo.h"

static u32 fq_mod(s64 v, u32 n)
{
	v %= (s64)n;
	return v < 0 ? (u32)(v + n) : (u32)v;
}

/* part @i of the count elements of an allreduce/reduce, in bytes */
static void fq_ring_part(const struct fq_sched *s, u32 i, u64 *off, u64 *len)
{
	fq_seg(s->count, s->nranks, i, off, len);
	*off *= s->esize;
	*len *= s->esize;
}

/* block @i of nranks blocks of count elements, in bytes */
static void fq_ring_block(const struct fq_sched *s, u32 i, u64 *off, u64 *len)
{
	*len = s->count * s->esize;
	*off = i * *len;
}

typedef void (*fq_part_fn)(const struct fq_sched *s, u32 i, u64 *off, u64 *len);

/* reduce-scatter step k: send part r-k-1, reduce part r-k-2; ends with part r */
static void fq_ring_rs_step(const struct fq_sched *s, u32 k, struct fq_step *st, fq_part_fn part)
{
	u32 n = s->nranks, r = s->rank;
	u64 off, len;

	part(s, fq_mod((s64)r - k - 1, n), &off, &len);
	fq_step_send(st, FQ_BUF_WORK, (r + 1) % n, off, len, FQ_X_RECV_REDUCE);
	part(s, fq_mod((s64)r - k - 2, n), &off, &len);
	fq_step_add(st, FQ_X_RECV_REDUCE, FQ_BUF_WORK, fq_mod((s64)r - 1, n), off, len);
}

/* allgather step k: send part r-k, receive part r-k-1 */
static void fq_ring_ag_step(const struct fq_sched *s, u32 k, struct fq_step *st, fq_part_fn part)
{
	u32 n = s->nranks, r = s->rank;
	u64 off, len;

	part(s, fq_mod((s64)r - k, n), &off, &len);
	fq_step_send(st, FQ_BUF_WORK, (r + 1) % n, off, len, FQ_X_RECV);
	part(s, fq_mod((s64)r - k - 1, n), &off, &len);
	fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, fq_mod((s64)r - 1, n), off, len);
}

int fq_ring_allreduce(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks;

	if (k >= 2 * (n - 1))
		return 0;
	if (k < n - 1)
		fq_ring_rs_step(s, k, st, fq_ring_part);
	else
		fq_ring_ag_step(s, k - (n - 1), st, fq_ring_part);
	return 1;
}

int fq_ring_reducescatter(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	if (k >= s->nranks - 1)
		return 0;
	fq_ring_rs_step(s, k, st, fq_ring_block);
	return 1;
}

int fq_ring_allgather(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	if (k >= s->nranks - 1)
		return 0;
	fq_ring_ag_step(s, k, st, fq_ring_block);
	return 1;
}

/* one step: receive from the previous rank in the chain, forward to the next */
int fq_ring_broadcast(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks, vr = fq_mod((s64)s->rank - s->root, n);
	u64 len = s->count * s->esize;

	if (k > 0)
		return 0;
	if (vr > 0)
		fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, (s->rank + n - 1) % n, 0, len);
	if (vr < n - 1) {
		fq_step_send(st, FQ_BUF_WORK, (s->rank + 1) % n, 0, len, FQ_X_RECV);
		if (vr > 0)
			st->x[1].dep = 0;
	}
	return 1;
}

/*
 * Reduce: the reduce-scatter of allreduce, then every rank sends its part
 * to the root, which takes them one peer per step.
 */
int fq_ring_reduce(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks, r = s->rank, peer;
	u64 off, len;

	if (k < n - 1) {
		fq_ring_rs_step(s, k, st, fq_ring_part);
		return 1;
	}
	k -= n - 1;
	if (r != s->root) {
		if (k > 0)
			return 0;
		fq_ring_part(s, r, &off, &len);
		fq_step_send(st, FQ_BUF_WORK, s->root, off, len, FQ_X_RECV);
		return 1;
	}
	if (k >= n - 1)
		return 0;
	peer = (r + 1 + k) % n;
	fq_ring_part(s, peer, &off, &len);
	fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, peer, off, len);
	return 1;
}
