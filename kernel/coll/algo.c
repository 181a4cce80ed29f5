// SPDX-License-Identifier: GPL-2.0
/*
 * algo.c - choosing a schedule for a collective and walking its steps.
 *
 * Pure logic (see algo.h): no verbs, no allocation, no locks.
 */
#include <linux/errno.h>
#include <linux/fabriq.h>
#ifdef __KERNEL__
#include <linux/minmax.h>
#endif

#include "algo.h"

typedef int (*fq_step_fn)(const struct fq_sched *s, u32 k, struct fq_step *st);

/* [coll][algo]: the schedules that exist; NULL where a collective has none */
static const fq_step_fn fq_schedules[__FABRIQ_COLL_MAX][__FABRIQ_ALGO_MAX] = {
	[FABRIQ_COLL_ALLREDUCE] = {
		[FABRIQ_ALGO_RING] = fq_ring_allreduce,
		[FABRIQ_ALGO_RD] = fq_rd_allreduce,
		[FABRIQ_ALGO_TREE] = fq_rabenseifner_allreduce,
	},
	[FABRIQ_COLL_ALLGATHER] = { [FABRIQ_ALGO_RING] = fq_ring_allgather },
	[FABRIQ_COLL_REDUCESCATTER] = { [FABRIQ_ALGO_RING] = fq_ring_reducescatter },
	[FABRIQ_COLL_BROADCAST] = {
		[FABRIQ_ALGO_RING] = fq_ring_broadcast,
		[FABRIQ_ALGO_TREE] = fq_tree_broadcast,
	},
	[FABRIQ_COLL_REDUCE] = {
		[FABRIQ_ALGO_RING] = fq_ring_reduce,
		[FABRIQ_ALGO_TREE] = fq_tree_reduce,
	},
	[FABRIQ_COLL_BARRIER] = { [FABRIQ_ALGO_RD] = fq_rd_barrier },
	[FABRIQ_COLL_ALLTOALL] = { [FABRIQ_ALGO_DIRECT] = fq_direct_alltoall },
};

/* what AUTO picks below and above the small-message threshold */
static const u8 fq_auto_algo[__FABRIQ_COLL_MAX][2] = {
	[FABRIQ_COLL_ALLREDUCE] = { FABRIQ_ALGO_RD, FABRIQ_ALGO_RING },
	[FABRIQ_COLL_ALLGATHER] = { FABRIQ_ALGO_RING, FABRIQ_ALGO_RING },
	[FABRIQ_COLL_REDUCESCATTER] = { FABRIQ_ALGO_RING, FABRIQ_ALGO_RING },
	[FABRIQ_COLL_BROADCAST] = { FABRIQ_ALGO_TREE, FABRIQ_ALGO_RING },
	[FABRIQ_COLL_REDUCE] = { FABRIQ_ALGO_TREE, FABRIQ_ALGO_RING },
	[FABRIQ_COLL_BARRIER] = { FABRIQ_ALGO_RD, FABRIQ_ALGO_RD },
	[FABRIQ_COLL_ALLTOALL] = { FABRIQ_ALGO_DIRECT, FABRIQ_ALGO_DIRECT },
};

static const char *const fq_algo_names[__FABRIQ_ALGO_MAX] = {
	[FABRIQ_ALGO_AUTO] = "auto", [FABRIQ_ALGO_RING] = "ring", [FABRIQ_ALGO_RD] = "rd",
	[FABRIQ_ALGO_TREE] = "tree", [FABRIQ_ALGO_DIRECT] = "direct",
};

/* The name the CLI gives @algo (an enum fabriq_algo), or "?" for none. */
const char *fq_algo_name(u32 algo)
{
	return algo < __FABRIQ_ALGO_MAX ? fq_algo_names[algo] : "?";
}

/**
 * fq_sched_pick() - the schedule one call runs
 * @coll: enum fabriq_coll_type
 * @forced: the call's algo; not AUTO means exactly that one
 * @preferred: the communicator's algo; used where @coll has it
 * @bytes: the call's bytes per rank, for the size rule
 * @small_bytes: below this, AUTO takes the latency-bound schedule
 * @nranks: ranks in the communicator
 *
 * AUTO for a large allreduce (Documentation/collectives.md has the
 * measurements): recursive doubling on 2 ranks (one step), Rabenseifner on
 * a power of two (log steps, bandwidth-optimal), else the ring.
 *
 * Return: enum fabriq_algo, or -EINVAL when @forced does not exist for @coll.
 */
int fq_sched_pick(u32 coll, u32 forced, u32 preferred, u64 bytes, u64 small_bytes,
		  u32 nranks)
{
	if (coll >= __FABRIQ_COLL_MAX || forced >= __FABRIQ_ALGO_MAX)
		return -EINVAL;
	if (forced != FABRIQ_ALGO_AUTO)
		return fq_schedules[coll][forced] ? (int)forced : -EINVAL;
	if (preferred < __FABRIQ_ALGO_MAX && fq_schedules[coll][preferred])
		return preferred;
	if (coll == FABRIQ_COLL_ALLREDUCE && bytes >= small_bytes) {
		if (nranks == 2)
			return FABRIQ_ALGO_RD;
		if (!(nranks & (nranks - 1)))
			return FABRIQ_ALGO_TREE;
	}
	return fq_auto_algo[coll][bytes >= small_bytes];
}

/**
 * fq_sched_step() - step @k of the schedule @s describes
 * @s: the call
 * @k: 0, 1, ... until it returns 0
 * @st: filled with the transfers of step @k (possibly none)
 *
 * Return: 1 when step @k exists, 0 past the last step.
 */
int fq_sched_step(const struct fq_sched *s, u32 k, struct fq_step *st)
{
	st->n = 0;
	if (s->nranks <= 1)
		return 0;
	return fq_schedules[s->coll][s->algo](s, k, st);
}

void fq_step_add(struct fq_step *st, u8 op, u8 buf, u32 peer, u64 off, u64 len)
{
	struct fq_xfer *x = &st->x[st->n++];

	x->op = op;
	x->buf = buf;
	x->dep = -1;
	x->into = FQ_X_RECV_REDUCE;
	x->peer = peer;
	x->off = off;
	x->len = len;
}

/* A send of step @st, which the peer's receive copies or reduces (@into). */
void fq_step_send(struct fq_step *st, u8 buf, u32 peer, u64 off, u64 len, u8 into)
{
	fq_step_add(st, FQ_X_SEND, buf, peer, off, len);
	st->x[st->n - 1].into = into;
}

/**
 * fq_chan_active() - how many channels a call runs on
 * @coll: enum fabriq_coll_type
 * @blk: the call's bytes per block (count x element size)
 * @chunk: the communicator's bytes per message
 * @nch: its channels
 *
 * Each active channel gets a chunk or more of every block, so a call of
 * less than two chunks (every small call) runs on one, as a barrier does.
 *
 * Return: 1 to @nch.
 */
u32 fq_chan_active(u32 coll, u64 blk, u32 chunk, u32 nch)
{
	if (coll == FABRIQ_COLL_BARRIER || !chunk || blk < 2 * (u64)chunk)
		return 1;
	return min_t(u64, max(nch, 1U), blk / chunk);
}

/**
 * fq_chan_view() - the slice of channel @c of @nact
 * @blk: the call's bytes per block
 * @nact: fq_chan_active()'s answer for the call
 * @c: 0 to @nact - 1
 *
 * Return: the view whose schedule sees blocks of the slice's length;
 * channel 0 of 1 sees the whole call (the identity).
 */
struct fq_view fq_chan_view(u64 blk, u32 nact, u32 c)
{
	u64 grains = blk / FQ_SLICE_GRAIN, lo, len;

	if (nact <= 1)
		return (struct fq_view){ .base = 0, .slen = blk, .stride = blk };
	fq_seg(grains, nact, c, &lo, &len);
	len *= FQ_SLICE_GRAIN;
	if (c == nact - 1)
		len += blk % FQ_SLICE_GRAIN;
	return (struct fq_view){ .base = lo * FQ_SLICE_GRAIN, .slen = len, .stride = blk };
}

/*
 * fq_seg() - part @i of @count elements cut into @parts nearly equal
 * parts (the first count % parts get one more), in elements.
 */
void fq_seg(u64 count, u32 parts, u32 i, u64 *off, u64 *len)
{
	u64 base = count / parts, rem = count % parts;

	*off = i * base + (i < rem ? i : rem);
	*len = base + (i < rem ? 1 : 0);
}
