/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coll_fresh.h - which bytes of an operation's work buffer still stand for
 * the caller's input (coll_fresh.c).  Pure logic on kernel types, like the
 * schedules: selftests/fabriq_algo.c builds it into userspace too.
 */
#ifndef _FABRIQ_COLL_FRESH_H
#define _FABRIQ_COLL_FRESH_H

#include "algo.h"

#define FQ_FRESH_RANGES	8

/**
 * struct fq_fresh - which work bytes still stand for the input (coll_fresh.c)
 * @work: the work buffer
 * @src: the input: work byte o (lo <= o < hi) is src[o - lo] until written
 * @view: where a channel's offsets lie in @work and @src (algo.h); every
 *	offset here is the channel's
 * @lo: the window's start
 * @hi: its end; @lo once the window holds its bytes
 * @n: entries in @r
 * @r: the written ranges of the window, [a, b), merged, in no order
 */
struct fq_fresh {
	void *work;
	const void *src;
	struct fq_view view;
	u64 lo;
	u64 hi;
	u32 n;
	struct {
		u64 a;
		u64 b;
	} r[FQ_FRESH_RANGES];
};

enum fq_fresh_state {
	FQ_FRESH_WORK,		/* the work buffer holds these bytes */
	FQ_FRESH_INPUT,		/* the input does, all of them */
	FQ_FRESH_MIXED,
};

void fq_fresh_init(struct fq_fresh *f, void *work, const void *src, u64 lo, u64 len,
		   const struct fq_view *view);
enum fq_fresh_state fq_fresh_state(const struct fq_fresh *f, u64 off, u64 len);
const void *fq_fresh_src(const struct fq_fresh *f, u64 off);
void fq_fresh_fill(struct fq_fresh *f, u64 off, u64 len);
void fq_fresh_written(struct fq_fresh *f, u64 off, u64 len);

bool fq_fresh_window(const struct fq_sched *s, u64 *lo, u64 *len);
bool fq_fresh_xfer_begin(struct fq_fresh *f, const struct fq_xfer *x);
void fq_fresh_step_writes(struct fq_fresh *f, const struct fq_step *st);
void fq_fresh_finish(struct fq_fresh *f, const struct fq_sched *s, bool work_is_output);

#endif /* _FABRIQ_COLL_FRESH_H */
