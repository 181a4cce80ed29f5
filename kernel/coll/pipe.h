/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipe.h - the steps of one operation in flight at once (pipe.c).  Pure
 * logic on kernel types, like the schedules: selftests/fabriq_algo.c
 * builds it into userspace and runs every schedule through it.
 */
#ifndef _FABRIQ_PIPE_H
#define _FABRIQ_PIPE_H

#include "algo.h"
#include "coll_fresh.h"

/* steps of one operation in flight at once */
#define FQ_PIPE_DEPTH	2

/**
 * struct fq_xstate - how far one transfer of a step in flight got
 * @nmsg: its messages (a zero-byte transfer still exchanges one)
 * @msgs: messages built (a send) or placed (a receive)
 * @issued: a receive's messages taken from the connection, in order: placed,
 *	or being read into place (cm.c's rendezvous), which @msgs counts
 *	once the read is done (in order too)
 * @freed: a send's messages whose bytes it no longer reads (copied out,
 *	or sent and completed), as far as its owner last looked
 * @input: it reads its local bytes from the input (coll_fresh.c)
 */
struct fq_xstate {
	u64 nmsg;
	u64 msgs;
	u64 issued;
	u64 freed;
	bool input;
};

/**
 * struct fq_pipe_step - a step in flight
 * @st: its transfers
 * @k: its number in the schedule
 * @xs: per transfer, how far it got
 */
struct fq_pipe_step {
	struct fq_step st;
	u32 k;
	struct fq_xstate xs[FQ_STEP_MAX];
};

/**
 * struct fq_pipe - the steps of one operation in flight
 * @sched: the schedule
 * @fresh: which work bytes stand for the input; NULL: the work buffer
 *	holds all of it
 * @chunk: bytes per message
 * @first: slot in @s of the oldest step in flight
 * @n: steps in flight
 * @next_k: the step fq_pipe_admit() takes next
 * @ended: the schedule has no step @next_k
 * @s: the steps in flight, oldest at @first
 */
struct fq_pipe {
	const struct fq_sched *sched;
	struct fq_fresh *fresh;
	u32 chunk;
	u32 first;
	u32 n;
	u32 next_k;
	bool ended;
	struct fq_pipe_step s[FQ_PIPE_DEPTH];
};

void fq_pipe_init(struct fq_pipe *p, const struct fq_sched *sched, struct fq_fresh *fresh,
		  u32 chunk);
struct fq_pipe_step *fq_pipe_at(struct fq_pipe *p, u32 a);
u32 fq_pipe_slot(const struct fq_pipe *p, u32 a);
struct fq_pipe_step *fq_pipe_admit(struct fq_pipe *p);
bool fq_pipe_send_ready(const struct fq_pipe *p, u32 a, u32 i);
u32 fq_pipe_send_run(const struct fq_pipe *p, u32 a, u32 i, u32 max);
bool fq_pipe_recv_ready(const struct fq_pipe *p, u32 a, u32 i);
u32 fq_pipe_recv_run(const struct fq_pipe *p, u32 a, u32 i, u64 m, u32 max);
bool fq_pipe_step_done(const struct fq_pipe_step *ps);
void fq_pipe_retire(struct fq_pipe *p);
void fq_pipe_msg(const struct fq_pipe *p, const struct fq_xfer *x, u64 m, u64 *off, u32 *len);
u32 fq_pipe_msgs_in(const struct fq_pipe *p, const struct fq_xfer *x, u64 m, u32 len, u32 max);

#endif /* _FABRIQ_PIPE_H */
