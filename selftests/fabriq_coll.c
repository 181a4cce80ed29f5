// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_coll.c - correctness of the in-kernel collectives on real QPs.
 *
 * Forks --ranks N processes; rank r opens /dev/fabriq and joins one
 * communicator at 198.19.0.(r+1) (lib.sh fq_ranks_up; or --addrs).  Every
 * rank runs the same list of cases: collective x type x reduction op x
 * count x root x in-place x forced schedule, each result compared bit for
 * bit with a reference the rank computes itself from the known inputs of
 * every rank.  Then async depth 16, two communicators at once, and (with
 * --big) the large sizes.  --channels and --chunk set the first
 * communicator's: with 4 channels and 4 KiB chunks, a call of two chunks
 * per block or more runs on a slice per channel.  --sliced keeps of the
 * collective x type x op x count matrix only sum at 4096 elements, the
 * count each type cuts into 1 (int8) to 4 slices.  One KTAP line per group of cases; failures
 * name the case, the rank and the error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tools/lib/libfabriq.h"

#define MAXR		16
#define MAXCASES	4096
#define OVERLAPPING	2	/* ccase.inplace: sendbuf = recvbuf + OVERLAP_SHIFT elements */
#define OVERLAP_SHIFT	3

struct ccase {
	int coll, dtype, op, algo, inplace, group;
	uint32_t root;
	uint64_t count;
	char desc[96];
};

static struct ccase cases[MAXCASES];
static int ncases;
static const char *groups[64];
static int ngroups;
static int (*results)[MAXR];	/* shared: 0 ok, >0 wrong elements, <0 -errno */
static uint32_t nranks = 2;
static const char *addrs[MAXR];
static char addr_store[MAXR][64];
static uint16_t port = 18700;
static int big;
static uint32_t channels, chunk_bytes;	/* the main communicator's; 0: the defaults */
static int sliced;	/* --sliced: the matrix at 4096 elements with sum only */

static int group(const char *name)
{
	int i;

	for (i = 0; i < ngroups; i++)
		if (!strcmp(groups[i], name))
			return i;
	groups[ngroups] = name;
	return ngroups++;
}

static int is_fp(int d)
{
	return d == FABRIQ_FLOAT16 || d == FABRIQ_FLOAT32 || d == FABRIQ_FLOAT64 ||
	       d == FABRIQ_BFLOAT16;
}

static int op_legal(int d, int op)
{
	if (op == FABRIQ_OP_AVG)
		return is_fp(d);
	if (op >= FABRIQ_OP_BAND)
		return !is_fp(d);
	return 1;
}

static int reduces(int coll)
{
	return coll == FABRIQ_COLL_ALLREDUCE || coll == FABRIQ_COLL_REDUCESCATTER ||
	       coll == FABRIQ_COLL_REDUCE;
}

static void add(int coll, int dtype, int op, uint64_t count, uint32_t root, int inplace,
		int algo, const char *grp)
{
	struct ccase *c;

	if (ncases >= MAXCASES)
		return;
	c = &cases[ncases++];
	c->coll = coll;
	c->dtype = dtype;
	c->op = reduces(coll) ? op : 0;
	c->count = count;
	c->root = root;
	c->inplace = inplace;
	c->algo = algo;
	c->group = group(grp);
	snprintf(c->desc, sizeof(c->desc), "%s %s%s%s count=%llu root=%u%s algo=%s",
		 fabriq_coll_name(coll), fabriq_dtype_name(dtype), reduces(coll) ? " " : "",
		 reduces(coll) ? fabriq_op_name(op) : "", (unsigned long long)count, root,
		 inplace == OVERLAPPING ? " overlapping" : inplace ? " in-place" : "",
		 fabriq_algo_name(algo));
}

/* ---- one case on one rank ---- */

/* buffers of one call, kept until an async call completes */
struct bufs {
	unsigned char *in, *out, *result;
};

static void bufs_free(struct bufs *b)
{
	free(b->in);
	free(b->out);
}

/*
 * Start case @c (wait for it when @req is NULL).  Return: wrong elements,
 * or -errno.  An async start returns 0 and leaves @b for check_case().
 */
static int run_case(struct fabriq_comm *comm, const struct ccase *c, uint32_t rank,
		    struct fabriq_req *req, struct bufs *b)
{
	size_t es = fabriq_dtype_size(c->dtype), inlen, outlen;
	uint64_t cnt = c->count;
	struct fabriq_coll coll = {
		.coll = c->coll, .dtype = c->dtype, .redop = c->op, .root = c->root,
		.count = cnt, .algo = c->algo,
	};
	struct bufs local;
	int err;

	if (!b)
		b = &local;
	fabriq_verify_lens(c->coll, cnt, nranks, &inlen, &outlen);
	b->in = calloc(inlen * es + 1, 1);
	b->out = malloc(((inlen > outlen ? inlen : outlen) + OVERLAP_SHIFT) * es + 1);
	memset(b->out, 0xa5, ((inlen > outlen ? inlen : outlen) + OVERLAP_SHIFT) * es + 1);
	fabriq_verify_input(c->dtype, c->op, rank, inlen, b->in);
	coll.sendbuf = (uintptr_t)b->in;
	coll.recvbuf = (uintptr_t)b->out;
	if (c->inplace == OVERLAPPING) {
		/* the input OVERLAP_SHIFT elements past where the output starts */
		memcpy(b->out + OVERLAP_SHIFT * es, b->in, inlen * es);
		coll.sendbuf = (uintptr_t)(b->out + OVERLAP_SHIFT * es);
	} else if (c->inplace) {
		/* NCCL's in-place layouts: the input sits where the output goes */
		if (c->coll == FABRIQ_COLL_ALLGATHER) {
			memcpy(b->out + rank * cnt * es, b->in, cnt * es);
			coll.sendbuf = (uintptr_t)(b->out + rank * cnt * es);
		} else if (c->coll == FABRIQ_COLL_REDUCESCATTER) {
			memcpy(b->out, b->in, inlen * es);
			coll.sendbuf = (uintptr_t)b->out;
			coll.recvbuf = (uintptr_t)(b->out + rank * cnt * es);
		} else {
			memcpy(b->out, b->in, inlen * es);
			coll.sendbuf = (uintptr_t)b->out;
		}
	}
	b->result = (unsigned char *)(uintptr_t)coll.recvbuf;
	err = fabriq_coll(comm, &coll, req);
	if (!err && req)
		return 0;
	if (!err)
		err = (int)fabriq_verify_check(c->coll, c->dtype, c->op, rank, nranks, c->root,
					       cnt, b->result);
	if (err && getenv("FQ_DEBUG"))
		fprintf(stderr, "# rank %u %s: %d\n", rank, c->desc, err);
	bufs_free(b);
	return err;
}

static void build_cases(void)
{
	static const int colls[] = { FABRIQ_COLL_ALLREDUCE, FABRIQ_COLL_ALLGATHER,
		FABRIQ_COLL_REDUCESCATTER, FABRIQ_COLL_BROADCAST, FABRIQ_COLL_REDUCE,
		FABRIQ_COLL_ALLTOALL };
	static const uint64_t counts[] = { 0, 1, 7, 4096 };
	static const struct { int coll, algo; } algos[] = {
		{ FABRIQ_COLL_ALLREDUCE, FABRIQ_ALGO_RING }, { FABRIQ_COLL_ALLREDUCE, FABRIQ_ALGO_RD },
		{ FABRIQ_COLL_ALLREDUCE, FABRIQ_ALGO_TREE }, { FABRIQ_COLL_BROADCAST, FABRIQ_ALGO_RING },
		{ FABRIQ_COLL_BROADCAST, FABRIQ_ALGO_TREE }, { FABRIQ_COLL_REDUCE, FABRIQ_ALGO_RING },
		{ FABRIQ_COLL_REDUCE, FABRIQ_ALGO_TREE },
	};
	uint32_t lastroot = nranks - 1;
	unsigned int ci, d, op, k, a;

	for (ci = 0; ci < sizeof(colls) / sizeof(colls[0]); ci++) {
		int coll = colls[ci];
		const char *g = fabriq_coll_name(coll);

		for (d = 0; d < __FABRIQ_DTYPE_MAX; d++)
			for (op = 0; op < (reduces(coll) ? __FABRIQ_OP_MAX : 1); op++) {
				if (reduces(coll) && !op_legal(d, op))
					continue;
				if (sliced && op != FABRIQ_OP_SUM && reduces(coll))
					continue;
				for (k = sliced ? 3 : 0; k < sizeof(counts) / sizeof(counts[0]); k++)
					add(coll, d, op, counts[k],
					    (coll == FABRIQ_COLL_BROADCAST || coll == FABRIQ_COLL_REDUCE) ?
					    (d + k) % nranks : 0, 0, 0, g);
			}
		/* the odd size, roots other than 0, in place */
		add(coll, FABRIQ_FLOAT32, FABRIQ_OP_SUM, 65537,
		    (coll == FABRIQ_COLL_BROADCAST || coll == FABRIQ_COLL_REDUCE) ? lastroot : 0,
		    0, 0, g);
		add(coll, FABRIQ_INT32, FABRIQ_OP_MAX, 4099,
		    (coll == FABRIQ_COLL_BROADCAST || coll == FABRIQ_COLL_REDUCE) ? lastroot : 0,
		    1, 0, "in-place");
		/* big enough to run on the pinned buffers, not on kernel copies */
		add(coll, FABRIQ_FLOAT32, FABRIQ_OP_SUM, 70001,
		    (coll == FABRIQ_COLL_BROADCAST || coll == FABRIQ_COLL_REDUCE) ? lastroot : 0,
		    1, 0, "in-place");
		/* the input partly over the output: as if copied before the call */
		for (k = 0; k < 2; k++)
			add(coll, FABRIQ_FLOAT32, FABRIQ_OP_SUM, k ? 70001 : 999,
			    (coll == FABRIQ_COLL_BROADCAST || coll == FABRIQ_COLL_REDUCE) ?
			    lastroot : 0, OVERLAPPING, 0, "input overlapping the output");
	}
	add(FABRIQ_COLL_BARRIER, FABRIQ_INT8, 0, 0, 0, 0, 0, "barrier");
	for (a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
		for (k = 0; k < 3; k++)
			add(algos[a].coll, FABRIQ_FLOAT32, FABRIQ_OP_SUM,
			    k == 0 ? 1 : k == 1 ? 1000 : 70001,
			    algos[a].coll == FABRIQ_COLL_ALLREDUCE ? 0 : lastroot, k == 2,
			    algos[a].algo, "forced schedule");
	if (big) {
		add(FABRIQ_COLL_ALLREDUCE, FABRIQ_UINT8, FABRIQ_OP_SUM, (1 << 20) + 3, 0, 0, 0, "large");
		add(FABRIQ_COLL_ALLGATHER, FABRIQ_UINT8, 0, ((1 << 20) + 3) / nranks, 0, 0, 0, "large");
		add(FABRIQ_COLL_ALLREDUCE, FABRIQ_FLOAT32, FABRIQ_OP_SUM, (16 << 20) / 4, 0, 0, 0,
		    "large");
		add(FABRIQ_COLL_REDUCESCATTER, FABRIQ_FLOAT32, FABRIQ_OP_SUM, (16 << 20) / 4 / nranks,
		    0, 0, 0, "large");
		add(FABRIQ_COLL_BROADCAST, FABRIQ_FLOAT32, 0, (16 << 20) / 4, lastroot, 0, 0, "large");
	}
}

#define ASYNC_DEPTH	16

/* depth 16 in flight, then two communicators at once */
static void run_extra(struct fabriq_comm *comm, uint32_t rank, int base)
{
	struct fabriq_req req[ASYNC_DEPTH];
	struct bufs b[ASYNC_DEPTH];
	struct ccase c = { 0 };
	struct fabriq_comm *comm2 = NULL;
	struct fabriq_comm_opts o;
	int i, started = 0, err, bad = 0, inorder = 1;
	uint64_t last = 0;

	c.coll = FABRIQ_COLL_ALLREDUCE;
	c.dtype = FABRIQ_INT32;
	c.op = FABRIQ_OP_SUM;
	for (i = 0; i < ASYNC_DEPTH && !bad; i++, started++) {
		c.count = 1000 + 97 * i;
		bad = run_case(comm, &c, rank, &req[i], &b[i]);
	}
	for (i = 0; i < started; i++) {
		err = bad ? 0 : fabriq_wait(comm, &req[i]);
		if (!bad && err)
			bad = err;
		if (!bad && req[i].seq <= last)
			inorder = 0;
		last = req[i].seq;
		if (!bad && fabriq_verify_check(c.coll, c.dtype, c.op, rank, nranks, 0,
						1000 + 97 * i, b[i].result))
			bad = 1;
		bufs_free(&b[i]);
	}
	results[base][rank] = bad ? bad : !inorder;

	/* the second one: two channels, small chunks, sends through slots */
	fabriq_comm_opts_default(&o);
	o.connect_timeout_ms = 20000;
	o.channels = 2;
	o.chunk_bytes = 16384;
	o.bounce = 1;
	err = fabriq_comm_init(&comm2, 0xc0ffee2, nranks, rank, addrs, port + 100, &o);
	bad = err;
	for (i = 0; !bad && i < 8; i++) {
		c.count = 5000 + i;
		c.dtype = i & 1 ? FABRIQ_FLOAT32 : FABRIQ_INT64;
		bad = run_case(i & 1 ? comm2 : comm, &c, rank, NULL, NULL);
	}
	results[base + 1][rank] = bad;
	fabriq_comm_destroy(comm2);
}

static int child(uint32_t rank)
{
	struct fabriq_comm_opts o;
	struct fabriq_comm *comm;
	int i, err;

	fabriq_comm_opts_default(&o);
	o.connect_timeout_ms = 20000;
	if (channels)
		o.channels = channels;
	if (chunk_bytes)
		o.chunk_bytes = chunk_bytes;
	err = fabriq_comm_init(&comm, 0xfab1, nranks, rank, addrs, port, &o);
	if (err) {
		/* each rank's own reason: rank 0's timeout may be another's refusal */
		printf("# rank %u: communicator setup failed: %s\n", rank, strerror(-err));
		fflush(stdout);
		for (i = 0; i < ncases + 2; i++)
			results[i][rank] = err;
		return 1;
	}
	for (i = 0; i < ncases; i++)
		results[i][rank] = run_case(comm, &cases[i], rank, NULL, NULL);
	run_extra(comm, rank, ncases);
	fabriq_comm_destroy(comm);
	return 0;
}

int main(int argc, char **argv)
{
	int i, g, t = 0, fails = 0;
	uint32_t r;
	pid_t pids[MAXR];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
			nranks = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--port") && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--big"))
			big = 1;
		else if (!strcmp(argv[i], "--channels") && i + 1 < argc)
			channels = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk_bytes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sliced"))
			sliced = 1;
		else {
			fprintf(stderr, "usage: %s [--ranks N] [--port P] [--big] [--channels C] [--chunk BYTES] [--sliced]\n",
				argv[0]);
			return 2;
		}
	}
	if (nranks < 1 || nranks > MAXR)
		return 2;
	for (r = 0; r < nranks; r++) {
		snprintf(addr_store[r], sizeof(addr_store[r]), "198.19.0.%u", r + 1);
		addrs[r] = addr_store[r];
	}
	build_cases();
	results = mmap(NULL, sizeof(int[MAXR]) * (MAXCASES + 2), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (results == MAP_FAILED)
		return 2;
	fflush(stdout);
	for (r = 0; r < nranks; r++) {
		pids[r] = fork();
		if (pids[r] == 0)
			_exit(child(r));
	}
	for (r = 0; r < nranks; r++)
		waitpid(pids[r], NULL, 0);

	printf("TAP version 13\n1..%d\n", ngroups + 2);
	for (g = 0; g < ngroups; g++) {
		int n = 0, bad = 0, shown = 0;

		for (i = 0; i < ncases; i++) {
			if (cases[i].group != g)
				continue;
			n++;
			for (r = 0; r < nranks; r++) {
				if (!results[i][r])
					continue;
				bad++;
				if (shown++ < 5)
					printf("# %s: rank %u: %s%s\n", cases[i].desc, r,
					       results[i][r] < 0 ? "error " : "wrong elements: ",
					       results[i][r] < 0 ? strerror(-results[i][r]) : "");
				if (results[i][r] > 0 && shown <= 5)
					printf("#   %d wrong\n", results[i][r]);
				break;
			}
		}
		printf("%s %d ranks=%u %s: %d cases%s\n", bad ? "not ok" : "ok", ++t, nranks,
		       groups[g], n, bad ? "" : ", all bit-exact on every rank");
		fails += !!bad;
	}
	for (i = 0; i < 2; i++) {
		int bad = 0;

		for (r = 0; r < nranks; r++)
			if (results[ncases + i][r]) {
				bad = results[ncases + i][r];
				break;
			}
		printf("%s %d ranks=%u %s%s%s\n", bad ? "not ok" : "ok", ++t, nranks,
		       i ? "two communicators at once" : "async depth 16, completions in order",
		       bad < 0 ? ": " : "", bad < 0 ? strerror(-bad) : "");
		fails += !!bad;
	}
	printf("# totals: pass:%d fail:%d skip:0\n", t - fails, fails);
	return fails ? 1 : 0;
}
