/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fq_tap.h - the TAP lines of the C selftests that print their own: one
 * "ok N" / "not ok N" per check, with what was expected, and the totals.
 */
#ifndef _FQ_TAP_H
#define _FQ_TAP_H

#include <stdio.h>
#include <string.h>
#include <time.h>

static int t, fails;

static inline void check(const char *desc, int want, int got)
{
	t++;
	if (want == got) {
		printf("ok %d %s\n", t, desc);
	} else {
		printf("not ok %d %s\n# expected %d (%s), got %d (%s)\n", t, desc, want,
		       strerror(-want), got, strerror(-got));
		fails++;
	}
	fflush(stdout);
}

static inline void check_true(const char *desc, int cond, const char *why)
{
	t++;
	printf("%s %d %s\n", cond ? "ok" : "not ok", t, desc);
	if (!cond) {
		printf("# %s\n", why);
		fails++;
	}
	fflush(stdout);
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int tap_totals(void)
{
	printf("# totals: pass:%d fail:%d skip:0\n", t - fails, fails);
	return fails ? 1 : 0;
}

#endif /* _FQ_TAP_H */
