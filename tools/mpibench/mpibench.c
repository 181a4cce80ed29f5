// SPDX-License-Identifier: GPL-2.0
/*
 * tools/mpibench/mpibench.c - MPI_Allreduce timing, in the style of nccl-tests.
 *
 * Owns the MPI baseline of the bench: for each message size from -b to -e
 * (growing by -f), it fills the buffers with data, runs -w warmup calls, a
 * barrier, then times each of -n MPI_Allreduce(MPI_FLOAT, MPI_SUM) calls on
 * its own with CLOCK_MONOTONIC.  Rank 0 prints one row per size: the median
 * and mean time per call (each the maximum over ranks of that rank's own
 * median or mean), algbw = bytes / median time and busbw = algbw * 2(n-1)/n
 * in MiB/s (2^20 B/s), and #wrong, the number of elements of one more call,
 * summed over ranks, whose result differs from the exact expected sum.
 * Rank r's input element i is ((i + r) % 7) + r + 1, a small integer, so
 * the sum is exact in float whatever the reduction order.  With -H FILE,
 * rank 0 also writes each timed call, "size(B) time(us)" per line, into
 * FILE (the latency histogram of make bench).
 *
 * Build: mpicc -O2 -o mpibench mpibench.c
 */
#include <mpi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nranks;
static FILE *times;	/* -H: rank 0's every timed call */

static void usage(void)
{
	if (rank == 0)
		fprintf(stderr,
			"usage: mpibench [-b MINBYTES] [-e MAXBYTES] [-f FACTOR]"
			" [-w WARMUP] [-n ITERS] [-H FILE]\n"
			"  sizes take a K, M or G suffix (powers of 1024);"
			" defaults -b 8 -e 8 -f 2 -w 5 -n 20\n");
	MPI_Abort(MPI_COMM_WORLD, 2);
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		usage();
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		usage();
	return v;
}

static long parse_long(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min)
		usage();
	return v;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static float input(size_t i, int r)
{
	return (float)((i + r) % 7 + r + 1);
}

static float expected(size_t i)
{
	float s = 0;
	int r;

	for (r = 0; r < nranks; r++)
		s += input(i, r);
	return s;
}

static void fill(float *in, float *out, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		in[i] = input(i, rank);
		out[i] = -1.0f;
	}
}

static void run_size(size_t bytes, float *in, float *out, long warmup, long iters, double *t)
{
	size_t count = bytes / sizeof(float), i;
	double med, mean = 0, v[2], m[2];
	long wrong = 0, twrong;
	long k;

	fill(in, out, count);
	for (k = 0; k < warmup; k++)
		MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	for (k = 0; k < iters; k++) {
		double t0 = now_us();

		MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		t[k] = now_us() - t0;
		mean += t[k];
	}
	mean /= iters;
	for (k = 0; times && k < iters; k++)
		fprintf(times, "%zu %.3f\n", bytes, t[k]);
	qsort(t, iters, sizeof(*t), cmp_double);
	med = iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2;

	/* one more call on fresh buffers to check the result */
	fill(in, out, count);
	MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < count; i++)
		if (out[i] != expected(i))
			wrong++;

	v[0] = med;
	v[1] = mean;
	MPI_Reduce(v, m, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&wrong, &twrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double algbw = m[0] > 0 ? bytes / (m[0] * 1e-6) / (1 << 20) : 0;
		double busbw = algbw * 2.0 * (nranks - 1) / nranks;

		printf("%12zu %11zu %11.2f %11.2f %10.2f %10.2f %7ld\n",
		       bytes, count, m[0], m[1], algbw, busbw, twrong);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	size_t minb = 8, maxb = 8, bytes, maxcount;
	long factor = 2, warmup = 5, iters = 20;
	char ver[MPI_MAX_LIBRARY_VERSION_STRING];
	float *in, *out;
	double *t;
	int len, c;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	while ((c = getopt(argc, argv, "b:e:f:w:n:H:h")) != -1) {
		switch (c) {
		case 'b': minb = parse_size(optarg); break;
		case 'e': maxb = parse_size(optarg); break;
		case 'f': factor = parse_long(optarg, 2); break;
		case 'w': warmup = parse_long(optarg, 0); break;
		case 'n': iters = parse_long(optarg, 1); break;
		case 'H':
			if (rank == 0 && !(times = fopen(optarg, "w"))) {
				fprintf(stderr, "mpibench: %s: %s\n", optarg, strerror(errno));
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			break;
		default: usage();
		}
	}
	if (optind != argc || minb < sizeof(float) || maxb < minb)
		usage();

	maxcount = maxb / sizeof(float);
	in = malloc(maxcount * sizeof(float));
	out = malloc(maxcount * sizeof(float));
	t = malloc(iters * sizeof(*t));
	if (!in || !out || !t) {
		fprintf(stderr, "mpibench: rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	if (rank == 0) {
		MPI_Get_library_version(ver, &len);
		ver[strcspn(ver, "\n")] = '\0';
		printf("# mpibench: MPI_Allreduce float sum, nranks %d, warmup %ld, iters %ld\n",
		       nranks, warmup, iters);
		printf("# library: %s\n", ver);
		printf("# time: max over ranks of each rank's median (mean) per call; "
		       "bw in MiB/s, busbw = algbw * 2(n-1)/n\n");
		printf("#%11s %11s %11s %11s %10s %10s %7s\n", "size(B)", "count",
		       "median(us)", "mean(us)", "algbw", "busbw", "#wrong");
		fflush(stdout);
	}

	for (bytes = minb; bytes <= maxb; bytes *= factor) {
		run_size(bytes - bytes % sizeof(float), in, out, warmup, iters, t);
		if (bytes > maxb / factor)
			break;
	}

	if (times && fclose(times)) {
		fprintf(stderr, "mpibench: -H: %s\n", strerror(errno));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	free(t);
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}
