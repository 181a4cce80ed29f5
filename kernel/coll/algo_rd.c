// SPDX-License-Identifier: GPL-2.0
/*
 * algo_rd.c - schedules over a power-of-two core of ranks: recursive
 * doubling allreduce (latency-bound, for small messages), Rabenseifner's
 * allreduce (recursive-halving reduce-scatter, then recursive-doubling
 * allgather) and the dissemination barrier.
 *
 * Any rank count works: with p2 the largest power of two <= n and
 * rem = n - p2, the first 2*rem ranks pair up before the core, the even
 * one of each pair handing its data to the odd one and sitting out; after
 * the core the odd one hands the result back (MPICH's scheme).
 *
 * Both partners of a core step reduce the same two values, and every
 * reduction fabriq has is commutative bit for bit, so all ranks end with
 * identical results.
 */
#include <linux/fabriq.h>

#include "algo.h"

struct fq_core {
	u32 p2;		/* ranks in the core */
	u32 rem;	/* pairs folded into the core */
	u32 levels;	/* log2(p2) */
	int nr;		/* this rank in the core, -1 if it sits out */
};

static void fq_core_init(const struct fq_sched *s, struct fq_core *c)
{
	u32 r = s->rank;

	c->p2 = 1;
	c->levels = 0;
	while (c->p2 * 2 <= s->nranks) {
		c->p2 *= 2;
		c->levels++;
	}
	c->rem = s->nranks - c->p2;
	if (r < 2 * c->rem)
		c->nr = (r & 1) ? (int)(r / 2) : -1;
	else
		c->nr = (int)(r - c->rem);
}

static u32 fq_core_rank(const struct fq_core *c, u32 nr)
{
	return nr < c->rem ? 2 * nr + 1 : nr + c->rem;
}

/*
 * The fold before the core (@k == 0 when rem > 0) and the unfold after it;
 * Return: 1 if step @k was one of them, else 0 and *core_k is the core step.
 */
static int fq_fold_step(const struct fq_sched *s, const struct fq_core *c, u32 k,
			u32 core_steps, struct fq_step *st, u32 *core_k)
{
	u64 len = s->count * s->esize;
	u32 r = s->rank;
	bool paired = r < 2 * c->rem;

	if (!c->rem) {
		*core_k = k;
		return 0;
	}
	if (k == 0) {
		if (paired && (r & 1))
			fq_step_add(st, FQ_X_RECV_REDUCE, FQ_BUF_WORK, r ^ 1, 0, len);
		else if (paired)
			fq_step_send(st, FQ_BUF_WORK, r ^ 1, 0, len, FQ_X_RECV_REDUCE);
		return 1;
	}
	if (k == core_steps + 1) {
		if (paired && (r & 1))
			fq_step_send(st, FQ_BUF_WORK, r ^ 1, 0, len, FQ_X_RECV);
		else if (paired)
			fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, r ^ 1, 0, len);
		return 1;
	}
	*core_k = k - 1;
	return 0;
}

static u32 fq_total_steps(const struct fq_core *c, u32 core_steps)
{
	return core_steps + (c->rem ? 2 : 0);
}

int fq_rd_allreduce(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u64 len = s->count * s->esize;
	struct fq_core c;
	u32 ck, peer;

	fq_core_init(s, &c);
	if (k >= fq_total_steps(&c, c.levels))
		return 0;
	if (fq_fold_step(s, &c, k, c.levels, st, &ck) || c.nr < 0)
		return 1;
	peer = fq_core_rank(&c, (u32)c.nr ^ (1U << ck));
	fq_step_send(st, FQ_BUF_WORK, peer, 0, len, FQ_X_RECV_REDUCE);
	fq_step_add(st, FQ_X_RECV_REDUCE, FQ_BUF_WORK, peer, 0, len);
	return 1;
}

/* blocks [a, a + m) of the p2 blocks of count elements, in bytes */
static void fq_blocks(const struct fq_sched *s, const struct fq_core *c, u32 a, u32 m,
		      u64 *off, u64 *len)
{
	u64 o0, o1, l;

	fq_seg(s->count, c->p2, a, &o0, &l);
	if (a + m < c->p2)
		fq_seg(s->count, c->p2, a + m, &o1, &l);
	else
		o1 = s->count;
	*off = o0 * s->esize;
	*len = (o1 - o0) * s->esize;
}

int fq_rabenseifner_allreduce(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 ck, m, nr, mine, theirs, peer;
	struct fq_core c;
	u64 off, len;

	fq_core_init(s, &c);
	if (k >= fq_total_steps(&c, 2 * c.levels))
		return 0;
	if (fq_fold_step(s, &c, k, 2 * c.levels, st, &ck) || c.nr < 0)
		return 1;
	nr = (u32)c.nr;
	if (ck < c.levels) {
		/* halving: keep the half my bit names, reduce it, send the other */
		m = c.p2 >> (ck + 1);
		mine = (nr & ~(2 * m - 1)) + (nr & m);
		theirs = (nr & ~(2 * m - 1)) + (~nr & m);
	} else {
		/* doubling: swap the blocks gathered so far */
		m = 1U << (ck - c.levels);
		mine = nr & ~(m - 1);
		theirs = (nr ^ m) & ~(m - 1);
	}
	peer = fq_core_rank(&c, nr ^ m);
	fq_blocks(s, &c, theirs, m, &off, &len);
	if (ck < c.levels) {
		fq_step_send(st, FQ_BUF_WORK, peer, off, len, FQ_X_RECV_REDUCE);
		fq_blocks(s, &c, mine, m, &off, &len);
		fq_step_add(st, FQ_X_RECV_REDUCE, FQ_BUF_WORK, peer, off, len);
	} else {
		fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, peer, off, len);
		fq_blocks(s, &c, mine, m, &off, &len);
		fq_step_send(st, FQ_BUF_WORK, peer, off, len, FQ_X_RECV);
	}
	return 1;
}

/* step k: an empty message to rank + 2^k, one from rank - 2^k */
int fq_rd_barrier(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks, d;

	if (k >= 32 || (1ULL << k) >= n)
		return 0;
	d = 1U << k;
	fq_step_send(st, FQ_BUF_WORK, (s->rank + d) % n, 0, 0, FQ_X_RECV);
	fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, (s->rank + n - d % n) % n, 0, 0);
	return 1;
}
