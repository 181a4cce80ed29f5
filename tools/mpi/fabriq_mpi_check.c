// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_mpi_check.c - an ordinary MPI program (it knows nothing of
 * fabriq) that runs every collective libfabriq_mpi.so takes, blocking and
 * non-blocking, in place and not, on MPI_COMM_WORLD, a duplicate and a
 * split of it, and some it must leave to MPI (a user op, a derived type,
 * MPI_IN_PLACE forms fabriq lacks), messages that must move while a rank
 * is inside a collective (progress()), many non-blocking calls left
 * in flight (lifetimes()), ranks that pass different types of the same
 * signature (types()) and two threads' collectives on communicators of
 * their own, issued in a different order on different ranks
 * (threads()).  Each rank prints a
 * hash of every result, so that runs with and without the preload compare
 * bit for bit,
 * and checks the results it can compute itself (the inputs are small
 * integers, exact in every type): "rank R: CASE HASH ok|WRONG", into
 * PREFIX.R when run as `fabriq_mpi_check PREFIX`, else on stdout.
 * Exit status 1 if any result was wrong.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>

#define N	4099		/* elements per rank: not a multiple of anything */

static int rank, size, bad, threaded;
static char out[1 << 16];
static size_t outlen;

static uint64_t hash(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ *b++) * 1099511628211ULL;
	return h;
}

/* a result: its hash, and whether it is what was expected (NULL: not checked) */
static void report(const char *name, const void *buf, size_t len, const void *want)
{
	int ok = !want || !memcmp(buf, want, len);

	bad |= !ok;
	outlen += snprintf(out + outlen, sizeof(out) - outlen, "rank %d: %s %016llx %s\n", rank,
			   name, (unsigned long long)hash(buf, len), ok ? "ok" : "WRONG");
}

static int val(int r, int i)
{
	return (i * 7 + r * 13) % 101;
}

static void user_maxabs(void *in, void *inout, int *len, MPI_Datatype *t)
{
	int *a = in, *b = inout, i;

	for (i = 0; i < *len; i++)
		b[i] = abs(a[i]) > abs(b[i]) ? a[i] : b[i];
}

static void run(MPI_Comm comm, const char *tag)
{
	int r, n, i, j, root;
	int *ia, *ib, *iw;
	float *fa, *fb, *fw;
	double *da, *db;
	int64_t *la, *lb;
	MPI_Request req[4];
	MPI_Op maxabs;
	MPI_Datatype pair;
	char name[96];
	int flag = 0, idx;

	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	ia = malloc(sizeof(int) * N * n);
	ib = malloc(sizeof(int) * N * n);
	iw = malloc(sizeof(int) * N * n);
	fa = malloc(sizeof(float) * N * n);
	fb = malloc(sizeof(float) * N * n);
	fw = malloc(sizeof(float) * N * n);
	da = malloc(sizeof(double) * N * n);
	db = malloc(sizeof(double) * N * n);
	la = malloc(sizeof(int64_t) * N * n);
	lb = malloc(sizeof(int64_t) * N * n);

	/* allreduce: int sum (checked), float sum in place (checked), double max */
	for (i = 0; i < N; i++) {
		ia[i] = val(r, i);
		fb[i] = val(r, i);
		da[i] = val(r, i) * 0.5;
		iw[i] = 0;
		for (j = 0; j < n; j++)
			iw[i] += val(j, i);
		fw[i] = iw[i];
	}
	MPI_Allreduce(ia, ib, N, MPI_INT, MPI_SUM, comm);
	snprintf(name, sizeof(name), "%s allreduce int sum", tag);
	report(name, ib, sizeof(int) * N, iw);
	MPI_Allreduce(MPI_IN_PLACE, fb, N, MPI_FLOAT, MPI_SUM, comm);
	snprintf(name, sizeof(name), "%s allreduce float sum in place", tag);
	report(name, fb, sizeof(float) * N, fw);
	MPI_Iallreduce(da, db, N, MPI_DOUBLE, MPI_MAX, comm, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	snprintf(name, sizeof(name), "%s iallreduce double max", tag);
	report(name, db, sizeof(double) * N, NULL);

	/* allgather: int64 (checked), in place, and non-blocking */
	for (i = 0; i < N; i++)
		la[i] = (int64_t)val(r, i) << 33;
	MPI_Allgather(la, N, MPI_INT64_T, lb, N, MPI_INT64_T, comm);
	for (j = 0; j < n; j++)
		for (i = 0; i < N; i++)
			la[(size_t)j * N + i] = (int64_t)val(j, i) << 33;
	snprintf(name, sizeof(name), "%s allgather int64", tag);
	report(name, lb, sizeof(int64_t) * N * n, la);
	for (i = 0; i < N; i++)
		ib[(size_t)r * N + i] = val(r, i);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ib, N, MPI_INT, comm);
	snprintf(name, sizeof(name), "%s allgather int in place", tag);
	report(name, ib, sizeof(int) * N * n, NULL);
	MPI_Iallgather(fb, N, MPI_FLOAT, fa, N, MPI_FLOAT, comm, &req[0]);
	MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
	snprintf(name, sizeof(name), "%s iallgather float", tag);
	report(name, fa, sizeof(float) * N * n, NULL);

	/* reduce_scatter_block: float sum; non-blocking, completed by MPI_Test */
	for (i = 0; i < N * n; i++)
		fa[i] = val(r, i);
	MPI_Reduce_scatter_block(fa, fb, N, MPI_FLOAT, MPI_SUM, comm);
	snprintf(name, sizeof(name), "%s reduce_scatter_block float sum", tag);
	report(name, fb, sizeof(float) * N, NULL);
	MPI_Ireduce_scatter_block(fa, fw, N, MPI_FLOAT, MPI_SUM, comm, &req[0]);
	while (!flag)
		MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
	snprintf(name, sizeof(name), "%s ireduce_scatter_block float sum", tag);
	report(name, fw, sizeof(float) * N, fb);

	/* bcast from the last rank, blocking and not */
	root = n - 1;
	for (i = 0; i < N; i++)
		da[i] = r == root ? val(root, i) * 1.25 : -1;
	MPI_Bcast(da, N, MPI_DOUBLE, root, comm);
	snprintf(name, sizeof(name), "%s bcast double", tag);
	report(name, da, sizeof(double) * N, NULL);
	for (i = 0; i < N; i++)
		ia[i] = r == 0 ? val(7, i) : 0;
	MPI_Ibcast(ia, N, MPI_INT, 0, comm, &req[0]);
	MPI_Waitany(1, req, &idx, MPI_STATUS_IGNORE);
	snprintf(name, sizeof(name), "%s ibcast int", tag);
	report(name, ia, sizeof(int) * N, NULL);

	/* reduce: to rank 0, in place at the root, non-blocking */
	for (i = 0; i < N; i++)
		ia[i] = val(r, i);
	MPI_Reduce(ia, ib, N, MPI_INT, MPI_SUM, 0, comm);
	if (r == 0) {
		snprintf(name, sizeof(name), "%s reduce int sum", tag);
		report(name, ib, sizeof(int) * N, iw);
	}
	for (i = 0; i < N; i++)
		ib[i] = val(r, i);
	MPI_Reduce(r == root ? MPI_IN_PLACE : ib, r == root ? ib : NULL, N, MPI_INT, MPI_SUM, root,
		   comm);
	if (r == root) {
		snprintf(name, sizeof(name), "%s reduce int sum in place", tag);
		report(name, ib, sizeof(int) * N, iw);
	}
	MPI_Ireduce(ia, ib, N, MPI_INT, MPI_MAX, 0, comm, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	if (r == 0) {
		snprintf(name, sizeof(name), "%s ireduce int max", tag);
		report(name, ib, sizeof(int) * N, NULL);
	}

	/* barrier, blocking and not */
	MPI_Barrier(comm);
	MPI_Ibarrier(comm, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);

	/* alltoall: int, blocking and not */
	for (i = 0; i < N * n; i++)
		ia[i] = val(r, i);
	MPI_Alltoall(ia, N, MPI_INT, ib, N, MPI_INT, comm);
	snprintf(name, sizeof(name), "%s alltoall int", tag);
	report(name, ib, sizeof(int) * N * n, NULL);
	MPI_Ialltoall(ia, N, MPI_INT, iw, N, MPI_INT, comm, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	snprintf(name, sizeof(name), "%s ialltoall int", tag);
	report(name, iw, sizeof(int) * N * n, ib);

	/* what MPI keeps: a user op, a derived type, reduce_scatter_block in place */
	for (i = 0; i < N; i++) {
		ia[i] = (r % 2 ? -1 : 1) * val(r, i);
		iw[i] = 0;
		for (j = 0; j < n; j++) {
			int v = (j % 2 ? -1 : 1) * val(j, i);

			iw[i] = abs(v) > abs(iw[i]) ? v : iw[i];
		}
	}
	MPI_Op_create(user_maxabs, 1, &maxabs);
	MPI_Allreduce(ia, ib, N, MPI_INT, maxabs, comm);
	MPI_Op_free(&maxabs);
	snprintf(name, sizeof(name), "%s allreduce int user op", tag);
	report(name, ib, sizeof(int) * N, iw);
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	for (i = 0; i < N - 1; i++)
		ia[i] = val(r, i);
	MPI_Allgather(ia, (N - 1) / 2, pair, ib, (N - 1) / 2, pair, comm);
	MPI_Type_free(&pair);
	snprintf(name, sizeof(name), "%s allgather derived type", tag);
	report(name, ib, sizeof(int) * (N - 1) * n, NULL);
	for (i = 0; i < N * n; i++)
		fa[i] = val(r, i);
	MPI_Reduce_scatter_block(MPI_IN_PLACE, fa, N, MPI_FLOAT, MPI_SUM, comm);
	snprintf(name, sizeof(name), "%s reduce_scatter_block in place", tag);
	report(name, fa, sizeof(float) * N, fb);

	free(ia); free(ib); free(iw); free(fa); free(fb); free(fw);
	free(da); free(db); free(la); free(lb);
}

/*
 * Messages that must move while a rank is inside a collective (MPI's
 * progress rule), each 4 MiB: over TCP a rendezvous, whose data leaves
 * only when the sender's MPI progresses.
 *  1. Rank 0 posts an MPI_Isend to rank 1, then enters MPI_Allreduce on
 *     @comm; rank 1 receives the message first.  A sender asleep in its
 *     collective would never send the rest.
 *  2. On a fresh duplicate, rank 0 starts an MPI_Iallreduce, then
 *     receives from rank 1, which sends before its own MPI_Iallreduce.
 *     An MPI_I* call that waited for the other ranks (to set the
 *     communicator up) would never return to post the receive.
 */
static void progress(MPI_Comm comm)
{
	const int n = 1 << 20;
	int *msg = calloc(n, sizeof(int)), *want = calloc(n, sizeof(int));
	int sum = 0, one = rank + 1, total = size * (size + 1) / 2, i;
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Comm fresh;

	if (!msg || !want)
		abort();
	for (i = 0; i < n; i++) {
		msg[i] = rank == 0 ? i : 0;
		want[i] = i;
	}
	if (rank == 0)
		MPI_Isend(msg, n, MPI_INT, 1, 7, comm, &req);
	else if (rank == 1)
		MPI_Recv(msg, n, MPI_INT, 0, 7, comm, MPI_STATUS_IGNORE);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	report("progress: isend, then allreduce", &sum, sizeof(sum), &total);
	if (rank == 1)
		report("progress: the message received during it", msg, sizeof(int) * n, want);

	MPI_Comm_dup(comm, &fresh);
	for (i = 0; i < n; i++) {
		msg[i] = rank == 1 ? n - i : 0;
		want[i] = n - i;
	}
	if (rank == 1)
		MPI_Send(msg, n, MPI_INT, 0, 8, fresh);
	MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, fresh, &req);
	if (rank == 0)
		MPI_Recv(msg, n, MPI_INT, 1, 8, fresh, MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	report("progress: iallreduce on a fresh dup, then a receive", &sum, sizeof(sum), &total);
	if (rank == 0)
		report("progress: the message received after it", msg, sizeof(int) * n, want);
	MPI_Comm_free(&fresh);
	free(want);
	free(msg);
}

/*
 * Non-blocking calls left in flight, on a duplicate whose first call (a
 * barrier) set it up:
 *  1. 100 MPI_Iallreduce at once (more than fabriq queues: 64), then
 *     MPI_Waitall;
 *  2. one MPI_Iallreduce left pending across 200 MPI_Allreduce (more
 *     completions than libfabriq keeps unclaimed: 128), then waited for;
 *  3. the same across 300 MPI_Iallreduce each waited for at once;
 * (Not here: MPI_Request_free of a non-blocking collective's request,
 * erroneous in MPI 3, which Open MPI fails; and MPI_Comm_free with one in
 * flight, on which Open MPI 4.1 itself crashes.)
 */
static void lifetimes(MPI_Comm comm)
{
	enum { N_IN_FLIGHT = 100, N_ACROSS = 200, N_ACROSS_WAITED = 300 };
	int in[N_IN_FLIGHT], sums[N_IN_FLIGHT], want[N_IN_FLIGHT], one = 1, x = 0, i;
	int base = size * (size - 1) / 2, late = -1;
	MPI_Request reqs[N_IN_FLIGHT], req;
	MPI_Comm dup;

	MPI_Comm_dup(comm, &dup);
	MPI_Barrier(dup);
	for (i = 0; i < N_IN_FLIGHT; i++) {
		in[i] = rank + i;
		want[i] = size * i + base;
		MPI_Iallreduce(&in[i], &sums[i], 1, MPI_INT, MPI_SUM, dup, &reqs[i]);
	}
	MPI_Waitall(N_IN_FLIGHT, reqs, MPI_STATUSES_IGNORE);
	report("lifetimes: 100 iallreduce in flight, then waitall", sums, sizeof(sums), want);

	MPI_Iallreduce(&rank, &late, 1, MPI_INT, MPI_SUM, dup, &req);
	for (i = 0; i < N_ACROSS; i++)
		MPI_Allreduce(&one, &x, 1, MPI_INT, MPI_SUM, dup);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	report("lifetimes: an iallreduce pending across 200 allreduce", &late, sizeof(late), &base);

	late = -1;
	MPI_Iallreduce(&rank, &late, 1, MPI_INT, MPI_SUM, dup, &req);
	for (i = 0; i < N_ACROSS_WAITED; i++) {
		MPI_Iallreduce(&one, &x, 1, MPI_INT, MPI_SUM, dup, &reqs[0]);
		MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	report("lifetimes: an iallreduce pending across 300 iallreduce and wait", &late,
	       sizeof(late), &base);
	MPI_Comm_free(&dup);
}

/*
 * Ranks passing different types of the same signature, as MPI allows for
 * the collectives that only move data: even ranks TN MPI_INT, odd ranks
 * one contiguous type of TN ints, or a vector (every other int; resized
 * to 2 TN ints, so that blocks follow on) that leaves gaps, which must
 * stay as they were (-1).  A library choosing by type would offload on
 * some ranks and not on others, and they would wait for each other.
 *  1. MPI_Bcast from rank 0: odd ranks receive into a vector;
 *  2. MPI_Iallgather: odd ranks send from a vector and receive into one
 *     that they free before MPI_Wait (MPI keeps it for the call);
 *  3. MPI_Alltoall: odd ranks send a contiguous type, receive into a vector;
 *  4. MPI_Bcast from rank 0: odd ranks receive into an indexed type that
 *     has no gap but holds the ints in reverse order.
 */
static void types(MPI_Comm comm)
{
	enum { TN = 1000 };
	size_t all = (size_t)2 * TN * size;
	int *s = malloc(all * sizeof(int)), *r = malloc(all * sizeof(int));
	int *want = malloc(all * sizeof(int)), odd = rank % 2, i, j;
	MPI_Datatype contig, vec, vecr, vecr_early, reversed;
	int *displs = malloc(TN * sizeof(int));
	MPI_Request req;

	if (!s || !r || !want || !displs)
		abort();
	MPI_Type_contiguous(TN, MPI_INT, &contig);
	MPI_Type_commit(&contig);
	MPI_Type_vector(TN, 1, 2, MPI_INT, &vec);
	MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * TN * sizeof(int)), &vecr);
	MPI_Type_commit(&vec);
	MPI_Type_commit(&vecr);
	/* where element i of block j lands on this rank: packed, or every other int */
#define AT(j, i) (odd ? 2 * ((j) * TN + (i)) : (j) * TN + (i))

	for (i = 0; i < (int)all; i++)
		r[i] = want[i] = -1;
	for (i = 0; i < TN; i++) {
		if (rank == 0)
			r[i] = val(0, i);
		want[AT(0, i)] = val(0, i);
	}
	if (odd)
		MPI_Bcast(r, 1, vec, 0, comm);
	else
		MPI_Bcast(r, TN, MPI_INT, 0, comm);
	report("types: bcast of ints, into a vector on odd ranks", r, all * sizeof(int), want);

	MPI_Type_dup(vecr, &vecr_early);
	for (i = 0; i < (int)all; i++)
		s[i] = r[i] = want[i] = -1;
	for (i = 0; i < TN; i++)
		s[AT(0, i)] = val(rank, i);
	for (j = 0; j < size; j++)
		for (i = 0; i < TN; i++)
			want[AT(j, i)] = val(j, i);
	if (odd) {
		MPI_Iallgather(s, 1, vec, r, 1, vecr_early, comm, &req);
		MPI_Type_free(&vecr_early);
	} else {
		MPI_Iallgather(s, TN, MPI_INT, r, TN, MPI_INT, comm, &req);
		MPI_Type_free(&vecr_early);
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	report("types: iallgather from and into vectors on odd ranks", r, all * sizeof(int), want);

	for (i = 0; i < (int)all; i++)
		r[i] = want[i] = -1;
	for (j = 0; j < size; j++)
		for (i = 0; i < TN; i++) {
			s[j * TN + i] = val(rank * size + j, i);
			want[AT(j, i)] = val(j * size + rank, i);
		}
	if (odd)
		MPI_Alltoall(s, 1, contig, r, 1, vecr, comm);
	else
		MPI_Alltoall(s, TN, MPI_INT, r, TN, MPI_INT, comm);
	report("types: alltoall, a contiguous type and a vector on odd ranks", r,
	       all * sizeof(int), want);
#undef AT

	for (i = 0; i < TN; i++) {
		displs[i] = TN - 1 - i;
		r[i] = rank == 0 ? val(0, i) : -1;
		want[odd ? TN - 1 - i : i] = val(0, i);
	}
	MPI_Type_create_indexed_block(TN, 1, displs, MPI_INT, &reversed);
	MPI_Type_commit(&reversed);
	if (odd)
		MPI_Bcast(r, 1, reversed, 0, comm);
	else
		MPI_Bcast(r, TN, MPI_INT, 0, comm);
	report("types: bcast into ints in reverse order on odd ranks", r, TN * sizeof(int), want);
	MPI_Type_free(&reversed);
	free(displs);
	MPI_Type_free(&contig);
	MPI_Type_free(&vec);
	MPI_Type_free(&vecr);
	free(s);
	free(r);
	free(want);
}

/* one thread of threads(): N_THREAD_CALLS allreduces on its communicator */
enum { N_THREAD_CALLS = 20 };
struct th_calls {
	MPI_Comm comm;
	int late;		/* starts 0.2 s after the other thread */
	int sums[N_THREAD_CALLS];
};

static void *th_run(void *arg)
{
	struct th_calls *t = arg;
	int i, in;

	if (t->late)
		usleep(200000);
	for (i = 0; i < N_THREAD_CALLS; i++) {
		in = rank + i;
		MPI_Allreduce(&in, &t->sums[i], 1, MPI_INT, MPI_SUM, t->comm);
	}
	return NULL;
}

/*
 * Two threads, each with a duplicate of @comm set up beforehand (a
 * barrier), run their allreduces at the same time; thread 0 starts first
 * on even ranks, thread 1 on odd ones.  MPI_THREAD_MULTIPLE allows
 * collectives on different communicators at once, in any order across
 * ranks: a library that ran one thread's collective at a time would have
 * each rank wait inside the one its peer reaches last.  Skipped when MPI
 * gives less than MPI_THREAD_MULTIPLE (the same with and without the
 * preload).
 */
static void threads(MPI_Comm comm)
{
	struct th_calls t[2] = { 0 };
	int want[N_THREAD_CALLS], i, k;
	pthread_t id[2];

	if (!threaded) {
		report("threads: skipped (no MPI_THREAD_MULTIPLE)", "", 0, NULL);
		return;
	}
	for (i = 0; i < N_THREAD_CALLS; i++)
		want[i] = size * i + size * (size - 1) / 2;
	for (k = 0; k < 2; k++) {
		MPI_Comm_dup(comm, &t[k].comm);
		MPI_Barrier(t[k].comm);
		t[k].late = rank % 2 != k;
	}
	for (k = 0; k < 2; k++)
		if (pthread_create(&id[k], NULL, th_run, &t[k]))
			abort();
	for (k = 0; k < 2; k++) {
		pthread_join(id[k], NULL);
		report(k ? "threads: thread 1's allreduces" : "threads: thread 0's allreduces",
		       t[k].sums, sizeof(t[k].sums), want);
		MPI_Comm_free(&t[k].comm);
	}
}

int main(int argc, char **argv)
{
	MPI_Comm dup, half;
	int provided = MPI_THREAD_SINGLE;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	threaded = provided == MPI_THREAD_MULTIPLE;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	run(MPI_COMM_WORLD, "world");
	progress(MPI_COMM_WORLD);
	lifetimes(MPI_COMM_WORLD);
	types(MPI_COMM_WORLD);
	threads(MPI_COMM_WORLD);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	run(dup, "dup");
	MPI_Comm_free(&dup);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	run(half, rank % 2 ? "odd" : "even");
	MPI_Comm_free(&half);
	if (argc > 1) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
		f = fopen(path, "w");
		if (!f || fputs(out, f) < 0 || fclose(f))
			bad = 1;
	} else {
		fputs(out, stdout);
		fflush(stdout);
	}
	MPI_Finalize();
	return bad;
}
