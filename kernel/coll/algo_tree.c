// SPDX-License-Identifier: GPL-2.0
/*
 * algo_tree.c - binomial-tree broadcast and reduce (any root, any rank
 * count, ceil(log2 n) steps) and the pairwise-exchange alltoall.
 *
 * Ranks are renumbered relative to the root (vr = rank - root mod n).  In
 * broadcast step k the ranks vr < 2^k that hold the data send it to
 * vr + 2^k; reduce runs the same tree leaves first.
 */
#include <linux/fabriq.h>

#include "algo.h"

static u32 fq_levels(u32 n)
{
	u32 l = 0;

	while (l < 32 && (1ULL << l) < n)
		l++;
	return l;
}

int fq_tree_broadcast(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks, vr = (s->rank + n - s->root) % n, m;
	u64 len = s->count * s->esize;

	if (k >= fq_levels(n))
		return 0;
	m = 1U << k;
	if (vr < m && vr + m < n)
		fq_step_send(st, FQ_BUF_WORK, (vr + m + s->root) % n, 0, len, FQ_X_RECV);
	else if (vr >= m && vr < 2 * m)
		fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, (vr - m + s->root) % n, 0, len);
	return 1;
}

int fq_tree_reduce(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks, vr = (s->rank + n - s->root) % n, m, low;
	u64 len = s->count * s->esize;

	if (k >= fq_levels(n))
		return 0;
	m = 1U << k;
	low = vr & (2 * m - 1);
	if (low == m)
		fq_step_send(st, FQ_BUF_WORK, (vr - m + s->root) % n, 0, len,
			     FQ_X_RECV_REDUCE);
	else if (low == 0 && vr + m < n)
		fq_step_add(st, FQ_X_RECV_REDUCE, FQ_BUF_WORK, (vr + m + s->root) % n, 0, len);
	return 1;
}

/* step k-1 (k = 1..n-1): block to rank + k, block from rank - k */
int fq_direct_alltoall(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	u32 n = s->nranks, to, from;
	u64 len = s->count * s->esize;

	if (k >= n - 1)
		return 0;
	to = (s->rank + k + 1) % n;
	from = (s->rank + n - k - 1) % n;
	fq_step_send(st, FQ_BUF_SRC, to, to * len, len, FQ_X_RECV);
	fq_step_add(st, FQ_X_RECV, FQ_BUF_WORK, from, from * len, len);
	return 1;
}
