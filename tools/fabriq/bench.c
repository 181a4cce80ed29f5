// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - `fabriq bench COLL`: nccl-tests for the in-kernel collectives.
 *
 * Same flags (-b -e -f -n -w -c -r -d -o), same columns, same bus
 * bandwidth formulas, same closing "Avg bus bandwidth" line.  --ranks N
 * forks N local ranks, rank r on the r-th RoCE device that has an IPv4
 * address (or on the r-th address of --peers); --rank R --peers LIST
 * joins one rank of a multi-host run.  Rank 0 prints; with local ranks the
 * time is the average over ranks, as nccl-tests reports it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fabriq.h"
#include "bench_plot.h"
#include "../lib/libfabriq.h"

#define BENCH_MAX_LOCAL	16

struct bench {
	int coll;
	size_t minbytes, maxbytes;
	double factor;
	int iters, warmup, check;
	int median;		/* time column: median call, not the mean */
	uint32_t root;
	int dtype;		/* -1: all */
	int op;			/* -1: all */
	uint32_t nranks, rank;
	int local;		/* ranks forked here */
	char *addrs[FABRIQ_MAX_RANKS];
	uint16_t port;
	uint64_t id;
	struct fabriq_comm_opts opts;
	const char *plot;	/* --plot FILE, or NULL */
};

/* what the local ranks report to rank 0, per size and placement */
struct bench_shared {
	double us[BENCH_MAX_LOCAL][2];
	long wrong[BENCH_MAX_LOCAL][2];
	int err[BENCH_MAX_LOCAL];
};

static struct bench_shared *shared;

void bench_usage(void)
{
	fprintf(stdout,
		"Usage: fabriq bench COLL [--ranks N | --rank R --peers ADDR,ADDR,...] [OPTIONS]\n"
		"       fabriq bench help\n"
		"where  COLL := { allreduce | allgather | reducescatter | broadcast | reduce |\n"
		"                 alltoall | barrier }\n"
		"OPTIONS (nccl-tests' names):\n"
		"  -b BYTES   smallest size (default 32M); K, M, G suffixes\n"
		"  -e BYTES   largest size (default 32M)\n"
		"  -f N       size multiplication factor (default 2)\n"
		"  -n N       timed iterations (default 20)\n"
		"  -w N       warm-up iterations (default 1)\n"
		"  -c 0|1     check every result, print #wrong (default 1)\n"
		"  --median   the time column is the median call of the -n timed ones,\n"
		"             as perftest's t_typical (default: the mean, as nccl-tests)\n"
		"  -r ROOT    root of broadcast and reduce (default 0)\n"
		"  -d TYPE    int8|uint8|int32|uint32|int64|uint64|half|bfloat16|float|double|all\n"
		"             (default float)\n"
		"  -o OP      sum|prod|min|max|avg|all (default sum)\n"
		"  --ranks N  run N local ranks, each on its own RoCE device (1-%d)\n"
		"  --rank R --peers LIST  be rank R of the ranks at LIST (one address per rank)\n"
		"  --port P   rank r listens on P + r (default 18600)\n"
		"  --id ID    communicator id (default: a fresh one; give one for multi-host)\n"
		"  --algo A   auto|ring|rd|tree|direct (NCCL_ALGO-like; default auto)\n"
		"  --chunk BYTES  message size (4K-1M; default 64K)\n"
		"  --channels N   QPs per peer (1-%d; default 1)\n"
		"  --connect-timeout MS  how long to wait for every rank (default 30000)\n"
		"  --peer-timeout MS  a dead rank is found within this (100-600000; default 5000)\n"
		"  --bounce   copy sends through the kernel's slots instead of zero-copy\n"
		"  --plot FILE  draw the table's algbw and busbw columns against the size\n"
		"             into FILE.png or FILE.svg (rank 0; needs gnuplot)\n"
		"ENVIRONMENT:\n"
		"  FABRIQ_KEY  the communicator's key, %d-%d bytes in hex, the same on every\n"
		"              rank (needed with --rank; local ranks draw one per run)\n",
		BENCH_MAX_LOCAL, FABRIQ_MAX_CHANNELS, FABRIQ_KEY_MIN, FABRIQ_KEY_MAX);
}

static int bench_err(const char *what, const char *val, const char *valid)
{
	fprintf(stderr, "%s: bench: %s: '%s' is not valid (valid: %s)\n", prog, what,
		val ? val : "", valid);
	return 1;
}

/* FABRIQ_KEY, or for local ranks (all ours) a key drawn for this run */
static int bench_key(struct bench *b)
{
	static uint8_t key[FABRIQ_KEY_MAX];
	const char *env = getenv("FABRIQ_KEY");
	char valid[96];
	int n;

	snprintf(valid, sizeof(valid), "%d to %d random bytes in hex, the same on every rank",
		 FABRIQ_KEY_MIN, FABRIQ_KEY_MAX);
	if (env) {
		n = fabriq_key_parse(env, key, sizeof(key));
		if (n < 0) {
			char what[64];

			/* a secret, even a mistyped one, is not echoed */
			snprintf(what, sizeof(what), "%zu characters", strlen(env));
			return bench_err("FABRIQ_KEY", what, valid);
		}
	} else if (b->local || b->nranks == 1) {
		n = 32;
		if (fabriq_key_generate(key, n))
			return 1;
	} else {
		return bench_err("FABRIQ_KEY (not set)", "", valid);
	}
	b->opts.key = key;
	b->opts.key_len = n;
	return 0;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	switch (*end) {
	case 'G': case 'g': v *= 1024;	/* fall through */
	case 'M': case 'm': v *= 1024;	/* fall through */
	case 'K': case 'k': v *= 1024; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* the netdev behind GID 0 of port 1 of an RDMA device */
/* --ranks N without --peers: the IPv4 addresses of the first N RoCE devices */
static int discover(struct bench *b)
{
	char (*names)[FABRIQ_DEV_NAME_MAX] = calloc(256, sizeof(*names));
	char ifname[IFNAMSIZ + 1], addr[INET_ADDRSTRLEN];
	uint32_t found = 0;
	int n = names ? fabriq_dev_list(names, 256) : -ENOMEM;

	if (n < 0)
		fprintf(stderr, "%s: bench: RDMA devices: %s\n", prog, strerror(-n));
	for (int k = 0; k < n && found < b->nranks; k++) {
		if (fabriq_dev_ipv4(names[k], addr, sizeof(addr), ifname, sizeof(ifname)))
			continue;
		b->addrs[found] = strdup(addr);
		out_text("#  Rank %2u device %-8s netdev %-10s address %s\n", found, names[k],
			 ifname, addr);
		found++;
	}
	free(names);
	if (found < b->nranks) {
		fprintf(stderr, "%s: bench: --ranks %u needs %u RoCE devices with an active port and an IPv4 address; found %u\n",
			prog, b->nranks, b->nranks, found);
		return 1;
	}
	return 0;
}

static int parse_peers(struct bench *b, char *list)
{
	char *tok, *save = NULL;
	uint32_t n = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= FABRIQ_MAX_RANKS)
			return bench_err("--peers", list, "at most 1024 addresses");
		b->addrs[n++] = tok;
	}
	if (!n)
		return bench_err("--peers", "", "ADDR,ADDR,...");
	if (b->nranks && b->nranks != n)
		return bench_err("--peers", list, "one address per rank");
	b->nranks = n;
	return 0;
}

static int parse_args(struct bench *b, int argc, char **argv)
{
	uint64_t v;
	char *peers = NULL;
	int i, rank_set = 0;

	for (i = 0; i < argc; i++) {
		const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;

		if (match(o, "-b") || match(o, "-e")) {
			if (!a || parse_size(a, match(o, "-b") ? &b->minbytes : &b->maxbytes))
				return bench_err(o, a, "a size in bytes, with K, M or G");
		} else if (match(o, "-f")) {
			b->factor = a ? strtod(a, NULL) : 0;
			if (b->factor <= 1)
				return bench_err(o, a, "a factor above 1");
		} else if (match(o, "-n") || match(o, "-w")) {
			if (!fq_parse_u64(a, 0, match(o, "-n") ? 1 : 0, 1000000, &v))
				return bench_err(o, a, match(o, "-n") ? "1-1000000" : "0-1000000");
			*(match(o, "-n") ? &b->iters : &b->warmup) = v;
		} else if (match(o, "-c")) {
			if (!fq_parse_u64(a, 0, 0, 1, &v))
				return bench_err(o, a, "0 or 1");
			b->check = v;
		} else if (match(o, "-r")) {
			if (!fq_parse_u64(a, 0, 0, FABRIQ_MAX_RANKS - 1, &v))
				return bench_err(o, a, "0-1023");
			b->root = v;
		} else if (match(o, "-d")) {
			b->dtype = a && match(a, "all") ? -1 : fabriq_dtype_parse(a);
			if (!a || (b->dtype < 0 && !match(a, "all")))
				return bench_err(o, a, "int8, uint8, int32, uint32, int64, uint64, half, bfloat16, float, double, all");
		} else if (match(o, "-o")) {
			b->op = a && match(a, "all") ? -1 : fabriq_op_parse(a);
			if (!a || (b->op < 0 && !match(a, "all")) || b->op > FABRIQ_OP_AVG)
				return bench_err(o, a, "sum, prod, min, max, avg, all");
		} else if (match(o, "--ranks")) {
			if (!fq_parse_u64(a, 0, 1, BENCH_MAX_LOCAL, &v))
				return bench_err(o, a, "1-16");
			b->nranks = v;
			b->local = 1;
		} else if (match(o, "--rank")) {
			if (!fq_parse_u64(a, 0, 0, FABRIQ_MAX_RANKS - 1, &v))
				return bench_err(o, a, "0-1023");
			b->rank = v;
			rank_set = 1;
		} else if (match(o, "--peers")) {
			if (!a)
				return bench_err(o, a, "ADDR,ADDR,...");
			peers = strdup(a);
		} else if (match(o, "--port")) {
			if (!fq_parse_u64(a, 0, 1, 65535, &v))
				return bench_err(o, a, "1-65535");
			b->port = v;
		} else if (match(o, "--id")) {
			if (!fq_parse_u64(a, 0, 1, ~0UL, &v))
				return bench_err(o, a, "a non-zero 64-bit number");
			b->id = v;
		} else if (match(o, "--algo")) {
			int al = fabriq_algo_parse(a);

			if (al < 0)
				return bench_err(o, a, "auto, ring, rd, tree, direct");
			b->opts.algo = al;
		} else if (match(o, "--chunk")) {
			size_t s;

			if (!a || parse_size(a, &s) || s < 4096 || s > (1 << 20) || s % 8)
				return bench_err(o, a, "4K-1M, a multiple of 8");
			b->opts.chunk_bytes = s;
		} else if (match(o, "--bounce")) {
			b->opts.bounce = 1;
			continue;
		} else if (match(o, "--median")) {
			b->median = 1;
			continue;
		} else if (match(o, "--plot")) {
			if (!a || !bench_plot_file_ok(a))
				return bench_err(o, a, "FILE.png or FILE.svg");
			b->plot = a;
		} else if (match(o, "--connect-timeout")) {
			if (!fq_parse_u64(a, 0, 1, 600000, &v))
				return bench_err(o, a, "1-600000 ms");
			b->opts.connect_timeout_ms = v;
		} else if (match(o, "--peer-timeout")) {
			if (!fq_parse_u64(a, 0, 100, 600000, &v))
				return bench_err(o, a, "100-600000 ms");
			b->opts.peer_timeout_ms = v;
		} else if (match(o, "--channels")) {
			if (!fq_parse_u64(a, 0, 1, FABRIQ_MAX_CHANNELS, &v))
				return bench_err(o, a, "1-4");
			b->opts.channels = v;
		} else {
			return usage_error("bench", "unknown option '%s'", o);
		}
		i++;
	}
	if (b->local && rank_set)
		return usage_error("bench", "--ranks and --rank exclude each other");
	if (!b->local && !rank_set)
		return usage_error("bench", "give --ranks N, or --rank R with --peers");
	if (peers && parse_peers(b, peers))
		return 1;
	if (rank_set && !peers)
		return usage_error("bench", "--rank needs --peers");
	if (rank_set && b->rank >= b->nranks)
		return bench_err("--rank", argv[0], "below the number of --peers");
	if (b->root >= b->nranks)
		return bench_err("-r", "", "below the number of ranks");
	if (b->minbytes > b->maxbytes)
		return bench_err("-b", "", "at most -e");
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double bus_factor(int coll, uint32_t n)
{
	switch (coll) {
	case FABRIQ_COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case FABRIQ_COLL_ALLGATHER: case FABRIQ_COLL_REDUCESCATTER: case FABRIQ_COLL_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1;
	}
}

/* collectives whose size column counts every rank's block */
static int blocked(int coll)
{
	return coll == FABRIQ_COLL_ALLGATHER || coll == FABRIQ_COLL_REDUCESCATTER ||
	       coll == FABRIQ_COLL_ALLTOALL;
}

/* per-rank element count of a size in bytes, as nccl-tests divides it */
static size_t per_rank_count(int coll, size_t bytes, size_t es, uint32_t n)
{
	return bytes / es / (blocked(coll) ? n : 1);
}

static size_t next_size(const struct bench *b, size_t bytes)
{
	size_t next = (size_t)(bytes * b->factor);

	return next > bytes ? next : bytes + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median of @n values (sorts them) */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* one size, one placement: -w untimed, -n timed, then one checked run */
static int run_size(struct bench *b, struct fabriq_comm *c, int dtype, int op, size_t count,
		    int inplace, double *us, long *wrong)
{
	size_t es = fabriq_dtype_size(dtype), in, out, rk = b->rank;
	struct fabriq_coll coll = {
		.coll = b->coll, .dtype = dtype, .root = b->root, .count = count,
		.redop = (b->coll == FABRIQ_COLL_ALLREDUCE || b->coll == FABRIQ_COLL_REDUCE ||
			  b->coll == FABRIQ_COLL_REDUCESCATTER) ? op : 0,
	};
	unsigned char *sbuf, *rbuf, *src;
	double t0, t, t1, *times = NULL;
	int i, err = 0;

	fabriq_verify_lens(b->coll, count, b->nranks, &in, &out);
	sbuf = calloc(in * es + 8, 1);
	rbuf = calloc((in > out ? in : out) * es + 8, 1);
	if (b->median)
		times = calloc(b->iters, sizeof(*times));
	if (!sbuf || !rbuf || (b->median && !times)) {
		free(sbuf);
		free(rbuf);
		free(times);
		return -ENOMEM;
	}
	coll.sendbuf = (uintptr_t)sbuf;
	coll.recvbuf = (uintptr_t)rbuf;
	if (inplace) {
		coll.sendbuf = (uintptr_t)rbuf;
		if (b->coll == FABRIQ_COLL_ALLGATHER)
			coll.sendbuf = (uintptr_t)(rbuf + rk * count * es);
		if (b->coll == FABRIQ_COLL_REDUCESCATTER)
			coll.recvbuf = (uintptr_t)(rbuf + rk * count * es);
	}
	/* timed on real data, not on zero pages: every input byte written first */
	src = inplace ? (unsigned char *)(uintptr_t)coll.sendbuf : sbuf;
	if (inplace && b->coll == FABRIQ_COLL_REDUCESCATTER)
		src = rbuf;
	memset(rbuf, 0x5a, (in > out ? in : out) * es);
	fabriq_verify_input(dtype, coll.redop, b->rank, in, src);
	for (i = 0; !err && i < b->warmup; i++)
		err = fabriq_coll(c, &coll, NULL);
	if (!err)
		err = fabriq_barrier(c, NULL);
	t0 = now_us();
	for (i = 0, t = t0; !err && i < b->iters; i++) {
		err = fabriq_coll(c, &coll, NULL);
		if (times) {
			t1 = now_us();
			times[i] = t1 - t;
			t = t1;
		}
	}
	*us = (now_us() - t0) / b->iters;
	if (times && !err)
		*us = median(times, b->iters);
	free(times);
	*wrong = -1;
	if (!err && b->check) {
		/* fresh inputs where the op reads them (in place, the timed calls overwrote them) */
		fabriq_verify_input(dtype, coll.redop, b->rank, in, src);
		err = fabriq_coll(c, &coll, NULL);
		if (!err)
			*wrong = fabriq_verify_check(b->coll, dtype, coll.redop, b->rank, b->nranks,
						     b->root, count,
						     (void *)(uintptr_t)coll.recvbuf);
	}
	free(sbuf);
	free(rbuf);
	return err;
}

static void print_header(void)
{
	printf("#\n#%65s%38s\n", "out-of-place", "in-place");
	printf("#%12s%14s%10s%8s%8s%12s%8s%8s%7s%12s%8s%8s%7s\n", "size", "count", "type", "redop",
	       "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
	printf("#%12s%14s%10s%8s%8s%12s%8s%8s%7s%12s%8s%8s%7s\n", "(B)", "(elements)", "", "", "",
	       "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

/* one placement's columns (JSON: an object named @key) */
/* nccl-tests' algorithm bandwidth, GB/s (10^9 B/s), as the table prints it */
static double algbw_gbps(double bytes, double us)
{
	return bytes / us / 1e3;
}

static void print_half(const char *key, double us, double bytes, double factor, long wrong)
{
	double algbw = algbw_gbps(bytes, us);

	out_begin_object(key);
	out_double("time_us", " %11.2f", us);
	out_double("algbw_gbps", "%8.2f", algbw);
	out_double("busbw_gbps", "%8.2f", algbw * factor);
	if (wrong < 0 && !out_is_json())
		printf("%7s", "N/A");
	else
		out_int("wrong", "%7lld", wrong);
	out_end_object();
}

/* one row of the table, as print_half() prints it, for --plot */
static void plot_row(struct bench_plot *plot, int dtype, int op, size_t bytes, const double us[2],
		     double factor)
{
	double algbw[2], busbw[2];
	char series[32];
	int p;

	for (p = 0; p < 2; p++) {
		algbw[p] = algbw_gbps(bytes, us[p]);
		busbw[p] = algbw[p] * factor;
	}
	snprintf(series, sizeof(series), "%s%s%s", fabriq_dtype_name(dtype), op < 0 ? "" : " ",
		 op < 0 ? "" : fabriq_op_name(op));
	bench_plot_row(plot, series, bytes, algbw, busbw);
}

/* every (type, op) of one rank; rank 0 prints.  Return: wrong results or -errno. */
static long bench_rank(struct bench *b)
{
	int dt0 = b->dtype < 0 ? 0 : b->dtype, dt1 = b->dtype < 0 ? __FABRIQ_DTYPE_MAX - 1 : b->dtype;
	int op0 = b->op < 0 ? 0 : b->op, op1 = b->op < 0 ? FABRIQ_OP_AVG : b->op;
	int reduces = b->coll == FABRIQ_COLL_ALLREDUCE || b->coll == FABRIQ_COLL_REDUCE ||
		      b->coll == FABRIQ_COLL_REDUCESCATTER;
	double bw_sum = 0, us[2];
	long wrong[2], total_wrong = 0, my_wrong = 0;
	struct bench_plot *plot = NULL;
	struct fabriq_comm *c;
	int d, op, p, err, nbw = 0, plot_failed = 0;
	size_t bytes, es, count;
	uint32_t r;

	err = fabriq_comm_init(&c, b->id, b->nranks, b->rank, (const char *const *)b->addrs,
			       b->port, &b->opts);
	if (err) {
		fprintf(stderr, "%s: bench: rank %u: cannot join the communicator: %s\n", prog,
			b->rank, strerror(-err));
		if (err == -EBADE)
			fprintf(stderr, "%s: bench: every rank must be given the same --algo, --chunk and --channels; the kernel log names both ranks' values\n",
				prog);
		return err;
	}
	if (b->rank == 0 && !out_is_json())
		print_header();
	if (b->rank == 0 && b->plot) {
		char title[96];

		snprintf(title, sizeof(title), "fabriq bench %s, %u ranks", fabriq_coll_name(b->coll),
			 b->nranks);
		plot = bench_plot_new(b->plot, title);
	}
	/* JSON: {"results": [rows], "summary": {...}} */
	if (b->rank == 0) {
		out_begin_object(NULL);
		out_begin_array("results");
	}
	for (d = dt0; d <= dt1; d++) {
		for (op = reduces ? op0 : 0; op <= (reduces ? op1 : 0); op++) {
			/* avg exists for the floating-point types only */
			if (reduces && op == FABRIQ_OP_AVG && d != FABRIQ_FLOAT16 && d != FABRIQ_FLOAT32 &&
			    d != FABRIQ_FLOAT64 && d != FABRIQ_BFLOAT16)
				continue;
			es = fabriq_dtype_size(d);
			for (bytes = b->minbytes; bytes <= b->maxbytes; bytes = next_size(b, bytes)) {
				count = per_rank_count(b->coll, bytes, es, b->nranks);
				for (p = 0; p < 2; p++) {
					err = run_size(b, c, d, op, count, p, &us[p], &wrong[p]);
					if (err)
						goto out;
				}
				if (b->local) {
					memcpy(shared->us[b->rank], us, sizeof(us));
					memcpy(shared->wrong[b->rank], wrong, sizeof(wrong));
				}
				/* every rank checks its own results */
				my_wrong += (wrong[0] > 0 ? wrong[0] : 0) + (wrong[1] > 0 ? wrong[1] : 0);
				/* everyone has reported */
				err = fabriq_barrier(c, NULL);
				if (err)
					goto out;
				if (b->rank == 0) {
					size_t shown = count * es * (blocked(b->coll) ? b->nranks : 1);

					if (b->local) {
						for (p = 0; p < 2; p++) {
							us[p] = 0;
							wrong[p] = 0;
							for (r = 0; r < b->nranks; r++) {
								us[p] += shared->us[r][p] / b->nranks;
								wrong[p] = shared->wrong[r][p] < 0 ? -1 :
									   wrong[p] + shared->wrong[r][p];
							}
						}
					}
					out_begin_object(NULL);
					out_uint("size", "%13llu", shown);
					out_uint("count", "%14llu", shown / es);
					out_str("type", "%10s", fabriq_dtype_name(d));
					out_str("redop", "%8s", reduces ? fabriq_op_name(op) : "none");
					out_int("root", "%8lld",
						(b->coll == FABRIQ_COLL_BROADCAST ||
						 b->coll == FABRIQ_COLL_REDUCE) ? (int)b->root : -1);
					print_half("out_of_place", us[0], shown,
						   bus_factor(b->coll, b->nranks), wrong[0]);
					print_half("in_place", us[1], shown,
						   bus_factor(b->coll, b->nranks), wrong[1]);
					out_end_object();
					out_text("\n");
					out_flush_record();
					if (plot)
						plot_row(plot, d, reduces ? op : -1, shown, us,
							 bus_factor(b->coll, b->nranks));
					fflush(stdout);
					bw_sum += shown / us[1] / 1e3 * bus_factor(b->coll, b->nranks);
					nbw++;
					total_wrong += (wrong[0] > 0 ? wrong[0] : 0) + (wrong[1] > 0 ? wrong[1] : 0);
				}
			}
		}
	}
out:
	if (err)
		fprintf(stderr, "%s: bench: rank %u: %s failed: %s\n", prog, b->rank,
			fabriq_coll_name(b->coll), fabriq_strerror(c, err));
	if (b->rank == 0)
		out_end_array();
	if (!err && b->rank == 0 && out_is_json()) {
		out_begin_object("summary");
		out_int("wrong", NULL, total_wrong);
		out_double("avg_busbw_gbps", NULL, nbw ? bw_sum / nbw : 0);
		out_end_object();
	} else if (!err && b->rank == 0) {
		printf("# Out of bounds values : %ld %s\n", total_wrong, total_wrong ? "FAILED" : "OK");
		printf("# Avg bus bandwidth    : %g \n#\n", nbw ? bw_sum / nbw : 0);
	}
	if (b->rank == 0)
		out_end_object();
	if (b->rank == 0 && out_is_json())
		printf("\n");
	/* the plot of a complete table (a plot that fails is a failed run) */
	if (plot && !err)
		plot_failed = bench_plot_write(plot);
	else if (plot)
		bench_plot_free(plot);
	/* a failed call: where every rank was, as this host's fabriq saw it then */
	if (err && !out_is_json()) {
		fflush(stdout);
		printf("# rank %u: the communicator's ranks when the call failed:\n", b->rank);
		comm_status_of(b->id);
		printf("\n");
	}
	/* a multi-host rank other than 0 prints no table: its own verdict */
	if (!err && b->rank && !b->local)
		printf("# Out of bounds values (rank %u) : %ld %s\n", b->rank, my_wrong,
		       my_wrong ? "FAILED" : "OK");
	fabriq_comm_destroy(c);
	if (!err && plot_failed)
		return -EIO;
	return err ? err : total_wrong + my_wrong;
}

int do_bench(int argc, char **argv)
{
	struct bench b = {
		.minbytes = 32 << 20, .maxbytes = 32 << 20, .factor = 2, .iters = 20, .warmup = 1,
		.check = 1, .dtype = FABRIQ_FLOAT32, .op = FABRIQ_OP_SUM, .port = 18600,
	};
	pid_t pids[BENCH_MAX_LOCAL];
	int status, bad = 0;
	uint32_t r;

	if (argc < 1 || match(argv[0], "help")) {
		bench_usage();
		return argc < 1;
	}
	fabriq_comm_opts_default(&b.opts);
	b.coll = fabriq_coll_parse(argv[0]);
	if (b.coll < 0)
		return bench_err("COLL", argv[0],
				 "allreduce, allgather, reducescatter, broadcast, reduce, alltoall, barrier");
	if (parse_args(&b, argc - 1, argv + 1))
		return 1;
	if (!b.id)
		b.id = ((uint64_t)getpid() << 16) ^ (uint64_t)time(NULL);
	if (bench_key(&b))
		return 1;
	out_text("# fabriq bench %s: %u rank%s, %s\n", fabriq_coll_name(b.coll), b.nranks,
	       b.nranks > 1 ? "s" : "", b.local ? "local" : "multi-host");
	if (!b.local)
		return bench_rank(&b) ? 1 : 0;
	if (!b.addrs[0] && discover(&b))
		return 1;
	fflush(stdout);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (shared == MAP_FAILED)
		return 1;
	for (r = 0; r < b.nranks; r++) {
		pids[r] = fork();
		if (pids[r] == 0) {
			b.rank = r;
			status = bench_rank(&b) ? 1 : 0;
			fflush(stdout);
			_exit(status);
		}
	}
	for (r = 0; r < b.nranks; r++) {
		if (waitpid(pids[r], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
