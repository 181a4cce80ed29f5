// SPDX-License-Identifier: GPL-2.0
/*
 * args.c - reading the command line's words, for every object: keywords,
 * numbers in a range, and the usage error.
 *
 * A bad number is named with the word it was given for, the bad value and
 * the valid range: fq_parse_range() prints "<object>: <what> '<value>' is
 * not valid (valid: MIN-MAX)"; objects whose message reads otherwise check
 * with fq_parse_u64() and print their own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabriq.h"

bool match(const char *arg, const char *keyword)
{
	return arg && strcmp(arg, keyword) == 0;
}

int usage_error(const char *obj, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	if (obj)
		fprintf(stderr, "%s: ", obj);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s%shelp'.\n", prog, obj ? obj : "", obj ? " " : "");
	return 1;
}

/*
 * Is @arg a whole number in [@min, @max], in @base (0: decimal, 0x hex or
 * 0 octal)?  A NULL or empty @arg, a sign '-' and trailing characters are not.
 */
bool fq_parse_u64(const char *arg, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = arg ? strtoull(arg, &end, base) : 0;
	return arg && !errno && !*end && end != arg && arg[0] != '-' && *out >= min &&
	       *out <= max;
}

/* fq_parse_u64(), printing the error of @obj's @what; returns 0 or 1. */
int fq_parse_range(const char *obj, const char *what, const char *arg, int base,
		   uint64_t min, uint64_t max, uint64_t *out)
{
	if (fq_parse_u64(arg, base, min, max, out))
		return 0;
	fprintf(stderr, "%s: %s: %s '%s' is not valid (valid: %llu-%llu)\n", prog, obj, what,
		arg ? arg : "", (unsigned long long)min, (unsigned long long)max);
	return 1;
}
