/* SPDX-License-Identifier: GPL-2.0 */
/*
 * algo.h - collective schedules as pure step logic.
 *
 * A schedule tells one rank, step by step, which byte ranges to send to
 * which peer and which to receive (copying or reducing into its work
 * buffer).  It makes no verbs calls and keeps no state, so the same files
 * build into a userspace unit test (selftests/fabriq_algo.c) that runs
 * every schedule on simulated ranks.
 *
 * Ranks need not agree on step numbers, only on the order of the messages
 * between each pair: the engine matches messages per peer, in order.
 *
 * Buffers: ALLREDUCE, BROADCAST and REDUCE work on count elements;
 * ALLGATHER, REDUCESCATTER and ALLTOALL on nranks blocks of count
 * elements; ALLTOALL sends from FQ_BUF_SRC (the input) and receives into
 * the work buffer.  Logically the work buffer holds the input before
 * step 0 (the engine reads it from the input until written: coll_fresh.c).
 */
#ifndef _FABRIQ_ALGO_H
#define _FABRIQ_ALGO_H

#include <linux/types.h>

#define FQ_STEP_MAX	4

enum fq_xop {
	FQ_X_SEND,
	FQ_X_RECV,		/* copy into place */
	FQ_X_RECV_REDUCE,	/* reduce into place */
};

enum fq_buf {
	FQ_BUF_WORK,
	FQ_BUF_SRC,
};

/**
 * struct fq_xfer - one transfer of a step
 * @op: enum fq_xop
 * @buf: enum fq_buf
 * @dep: for a send: index of a receive in the same step; a byte may be
 *       sent only once that receive has placed it (a pipelined chain)
 * @into: for a send: what the peer's receive does with it, FQ_X_RECV or
 *	FQ_X_RECV_REDUCE (only a copy may be read straight into place:
 *	cm.c's rendezvous)
 * @peer: the other rank
 * @off: byte offset in @buf
 * @len: bytes; 0 still exchanges one (empty) message
 */
struct fq_xfer {
	u8 op;
	u8 buf;
	s8 dep;
	u8 into;
	u32 peer;
	u64 off;
	u64 len;
};

struct fq_step {
	u32 n;
	struct fq_xfer x[FQ_STEP_MAX];
};

/**
 * struct fq_sched - what a schedule is computed from
 * @coll: enum fabriq_coll_type
 * @algo: enum fabriq_algo, never AUTO here
 * @nranks: ranks in the communicator
 * @rank: this rank
 * @root: broadcast and reduce
 * @count: elements, as struct fabriq_coll counts them
 * @esize: bytes per element
 */
struct fq_sched {
	u32 coll;
	u32 algo;
	u32 nranks;
	u32 rank;
	u32 root;
	u64 count;
	u32 esize;
};

/*
 * Channels (NCCL's per-channel parts): a call large enough is cut into a
 * slice per active channel, a contiguous range of every block, and each
 * channel runs the whole schedule on its slice alone, over its own
 * connections.  Its schedule sees a buffer of 1 or nranks blocks of the
 * slice's length; struct fq_view maps that buffer's offsets to the real
 * one's.  Slices are whole grains, so a slice is whole elements of every
 * type; the last takes what is left over.  Every rank must compute the
 * same slices: they depend only on the call, the chunk and the channels,
 * which the handshake checks ranks agree on (cm.c).
 */
#define FQ_SLICE_GRAIN	4096	/* bytes; a multiple of every element size */

/**
 * struct fq_view - where a channel's slice of a call lies
 * @base: the slice's start in each block, in bytes
 * @slen: its length: the length of a block as the channel's schedule
 *	sees it
 * @stride: a block's real length
 */
struct fq_view {
	u64 base;
	u64 slen;
	u64 stride;
};

/*
 * The real offset of offset @off of a channel's buffer.  A slice as long
 * as the block is the whole call (base 0): no division for it.
 */
static inline u64 fq_view_off(const struct fq_view *v, u64 off)
{
	if (!v->slen || v->slen == v->stride)
		return off;
	return off / v->slen * v->stride + v->base + off % v->slen;
}

/* algo.c */
const char *fq_algo_name(u32 algo);
u32 fq_chan_active(u32 coll, u64 blk, u32 chunk, u32 nch);
struct fq_view fq_chan_view(u64 blk, u32 nact, u32 c);
int fq_sched_pick(u32 coll, u32 forced, u32 preferred, u64 bytes, u64 small_bytes,
		  u32 nranks);
int fq_sched_step(const struct fq_sched *s, u32 k, struct fq_step *st);
void fq_step_add(struct fq_step *st, u8 op, u8 buf, u32 peer, u64 off, u64 len);
void fq_step_send(struct fq_step *st, u8 buf, u32 peer, u64 off, u64 len, u8 into);
void fq_seg(u64 count, u32 parts, u32 i, u64 *off, u64 *len);

/* algo_ring.c */
int fq_ring_allreduce(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_ring_reducescatter(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_ring_allgather(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_ring_broadcast(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_ring_reduce(const struct fq_sched *s, u32 k, struct fq_step *st);

/* algo_rd.c */
int fq_rd_allreduce(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_rd_barrier(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_rabenseifner_allreduce(const struct fq_sched *s, u32 k, struct fq_step *st);

/* algo_tree.c */
int fq_tree_broadcast(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_tree_reduce(const struct fq_sched *s, u32 k, struct fq_step *st);
int fq_direct_alltoall(const struct fq_sched *s, u32 k, struct fq_step *st);

#endif /* _FABRIQ_ALGO_H */
