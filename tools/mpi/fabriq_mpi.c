// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_mpi.c - libfabriq_mpi.so: an unmodified MPI program runs its
 * collectives on fabriq.  Loaded by LD_PRELOAD (or linked before the MPI
 * library), it defines MPI_Allreduce, MPI_Allgather,
 * MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Barrier and
 * MPI_Alltoall and their MPI_I* forms through the MPI profiling interface:
 * what fabriq can do goes to /dev/fabriq, everything else to PMPI_*.
 *
 * Offloaded: intracommunicators (MPI_COMM_WORLD, and those from
 * MPI_Comm_dup, MPI_Comm_split, ...); for the collectives that only move
 * data (bcast, allgather, alltoall) any types, as bytes: MPI lets ranks
 * pass different types of the same signature (4 MPI_INT on one rank, a
 * contiguous type of 4 on another, a vector on a third), so the choice
 * rests on the byte count alone, and a type whose data has gaps goes
 * through a packed copy (struct fqm_buf); for the reductions, whose type
 * and op MPI requires to be the same on every rank, the integer and
 * floating-point types fabriq reduces, with MPI_SUM, MPI_PROD, MPI_MIN
 * and MPI_MAX (and MPI_BAND, MPI_BOR, MPI_BXOR on integers); MPI_IN_PLACE
 * where fabriq has the same layout (allreduce, allgather, bcast, reduce at
 * the root).  Falls through: intercommunicators, derived types and user
 * ops in reductions, the other MPI_IN_PLACE forms, counts past fabriq's
 * limits.  Every rank of a communicator makes the same choice.
 *
 * Bootstrap, through MPI itself, on a communicator's first offloaded
 * blocking call (an MPI_I* call before it falls through, see fqm_get()):
 * each rank finds its RDMA port (FABRIQ_MPI_DEV: a device, or one per
 * local rank, comma-separated; else the first active port with an IPv4
 * address); the ranks exchange addresses with PMPI_Allgather; rank 0
 * draws the communicator id, the job key and the base port, and
 * broadcasts them; every rank joins, and if any could not, all fall
 * through on that communicator from then on.  The fabriq communicator
 * lives in an attribute of the MPI one and goes with it.
 *
 * Non-blocking calls return a generalized request; MPI_Wait, MPI_Test
 * and their -all, -any and -some forms complete it, and so do the call's
 * end after MPI_Request_free, a full queue (past FABRIQ_MAX_INFLIGHT, the
 * oldest call is waited for), MPI_Comm_free and MPI_Finalize.  A rank
 * that waits for fabriq keeps MPI's own messages moving (fqm_wait()).
 *
 * Threads (MPI_THREAD_MULTIPLE; mpi4py asks for it): one lock, fqm_lock,
 * covers this library's bookkeeping and every libfabriq call on a
 * communicator set up (libfabriq keeps per-communicator state of its
 * own: the completions it read), and is never held while a
 * thread waits: not in a wait for fabriq (it is dropped between tests),
 * not in the bootstrap's MPI collectives; nor where MPI may call back
 * (its checks of a communicator, error handlers, packing a blocking
 * call's buffers; only a non-blocking call's copy is unpacked under it,
 * when the call completes).  So collectives of different
 * threads on different communicators run at once, in whatever order
 * each rank issues them, as MPI allows.  A pending call is completed by
 * one thread: another that needs it done waits until it is
 * (fqm_finish()).
 *
 * FABRIQ_MPI_VERBOSE=1 prints, at MPI_Finalize, each call's count of
 * offloaded and fallen-through calls; FABRIQ_MPI_DISABLE=1 offloads
 * nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <mpi.h>

#include "../lib/libfabriq.h"

#define FQM_ADDR_LEN	64
#define FQM_KEY_LEN	32
#define FQM_PORT_BASE	20000	/* base ports are drawn from 20000-39999 */
#define FQM_PORT_SPAN	20000

enum fqm_kind {
	FQM_ALLREDUCE, FQM_ALLGATHER, FQM_REDUCE_SCATTER_BLOCK, FQM_BCAST, FQM_REDUCE,
	FQM_BARRIER, FQM_ALLTOALL, FQM_NCALLS
};

static const char *const fqm_call_names[FQM_NCALLS] = {
	"Allreduce", "Allgather", "Reduce_scatter_block", "Bcast", "Reduce", "Barrier", "Alltoall",
};

/* offloaded [0] and fallen through [1], blocking [.][0] and MPI_I* [.][1] */
static unsigned long fqm_counts[FQM_NCALLS][2][2];

struct fqm_comm {
	struct fabriq_comm *fc;		/* NULL: this communicator falls through */
};

/*
 * A buffer of a data-movement collective: @count elements of @t at @user,
 * which fabriq reads (@in) or writes (@out) as their bytes back to back:
 * the user's own if they lie so, else a copy (@packed) packed before the
 * call and unpacked after it (@t is then a duplicate, which lives as long
 * as the copy: the program may free its type before the call ends).
 */
struct fqm_buf {
	void *user;
	long long count;
	MPI_Datatype t;
	MPI_Comm comm;
	int in, out;
	long long bytes;		/* what fabriq moves there: any other count is erroneous */
	void *packed;
};

/* a non-blocking call on fabriq, behind a generalized request */
struct fqm_req {
	struct fqm_req *next;
	struct fqm_comm *m;
	struct fabriq_req fr;
	MPI_Request greq;
	uint64_t id;			/* this library's own number for it */
	int err;
	int freed;			/* MPI_Request_free()d: complete it when done */
	int waiting;			/* a thread waits for it and will complete it */
	struct fqm_buf bufs[2];		/* its packed copies (struct fqm_call) */
	int nbufs;
};

static int fqm_keyval = MPI_KEYVAL_INVALID;
/* under fqm_lock: the calls not yet completed, newest first */
static struct fqm_req *fqm_pending;
static uint64_t fqm_next_id;
/* this library's state and libfabriq's; never held across a wait (above) */
static pthread_mutex_t fqm_lock = PTHREAD_MUTEX_INITIALIZER;
/* broadcast when a pending call is completed */
static pthread_cond_t fqm_completed = PTHREAD_COND_INITIALIZER;

static int fqm_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* ---- the RDMA port's address ---- */

/*
 * This rank's address: FABRIQ_MPI_DEV's device (one for every rank, or
 * one per local rank: the list's (local rank mod its length)th), or the
 * first device with an active port and an IPv4 address.
 */
static int fqm_my_addr(int local_rank, char *out)
{
	const char *env = getenv("FABRIQ_MPI_DEV");
	char (*names)[FABRIQ_DEV_NAME_MAX], *list, *tok, *save = NULL;
	int n, i, err = -1;

	if (env && *env) {
		for (i = 0, tok = (char *)env; (tok = strchr(tok, ',')); tok++)
			i++;
		n = local_rank % (i + 1);
		list = strdup(env);
		for (tok = list ? strtok_r(list, ",", &save) : NULL; tok && n--; )
			tok = strtok_r(NULL, ",", &save);
		err = tok ? fabriq_dev_ipv4(tok, out, FQM_ADDR_LEN, NULL, 0) : -1;
		free(list);
		return err;
	}
	names = calloc(256, sizeof(*names));
	n = names ? fabriq_dev_list(names, 256) : -1;
	for (i = 0; i < n && err; i++)
		err = fabriq_dev_ipv4(names[i], out, FQM_ADDR_LEN, NULL, 0);
	free(names);
	return err;
}

/* ---- a communicator's fabriq twin ---- */

static void fqm_finish(struct fqm_req *r);

/*
 * The MPI communicator goes (MPI_Comm_free, MPI_Finalize): its calls
 * still pending end first (MPI lets a program free a communicator with
 * collectives in flight), then its fabriq twin.
 */
static int fqm_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
	struct fqm_comm *m = attr;
	struct fqm_req *r;

	pthread_mutex_lock(&fqm_lock);
	do {	/* (a wait drops the lock: the list may change) */
		for (r = fqm_pending; r && r->m != m; r = r->next)
			;
		if (r)
			fqm_finish(r);
	} while (r);
	if (m->fc)
		fabriq_comm_destroy(m->fc);
	pthread_mutex_unlock(&fqm_lock);
	free(m);
	return MPI_SUCCESS;
}

struct fqm_boot {
	uint64_t id;
	uint32_t port;
	uint32_t key_len;
	uint8_t key[FQM_KEY_LEN];
};

static void fqm_bootstrap(MPI_Comm comm, struct fqm_comm *m)
{
	int rank, size, local_rank = 0, ok, all_ok;
	struct fabriq_comm_opts opts;
	const char **addrs = NULL;
	struct fqm_boot boot = { 0 };
	char *all = NULL, mine[FQM_ADDR_LEN] = "";
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	int i, err = 0;

	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &size);
	if (lr)
		local_rank = atoi(lr);
	ok = !fqm_my_addr(local_rank, mine);
	all = calloc(size, FQM_ADDR_LEN);
	addrs = calloc(size, sizeof(*addrs));
	if (!all || !addrs)
		ok = 0;
	/* every rank learns whether every rank has an address */
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
	if (!all_ok)
		goto out;
	PMPI_Allgather(mine, FQM_ADDR_LEN, MPI_CHAR, all, FQM_ADDR_LEN, MPI_CHAR, comm);
	if (rank == 0) {
		uint16_t r16 = 0;

		/* no key, no fabriq: key_len 0 makes every rank fall through */
		if (getrandom(&boot.id, sizeof(boot.id), 0) == sizeof(boot.id) &&
		    getrandom(&r16, sizeof(r16), 0) == sizeof(r16) &&
		    !fabriq_key_generate(boot.key, FQM_KEY_LEN))
			boot.key_len = FQM_KEY_LEN;
		boot.id |= 1;	/* never 0 */
		/* (fabriq takes at most FABRIQ_MAX_RANKS ranks, far fewer than the span) */
		boot.port = FQM_PORT_BASE + r16 % (size < FQM_PORT_SPAN ? FQM_PORT_SPAN - size : 1);
	}
	PMPI_Bcast(&boot, sizeof(boot), MPI_BYTE, 0, comm);
	if (!boot.key_len) {
		all_ok = 0;
		err = -EIO;	/* (rank 0 drew no id or key) */
		goto out;
	}
	for (i = 0; i < size; i++)
		addrs[i] = all + (size_t)i * FQM_ADDR_LEN;
	fabriq_comm_opts_default(&opts);
	opts.key = boot.key;
	opts.key_len = boot.key_len;
	err = fabriq_comm_init(&m->fc, boot.id, size, rank, addrs, boot.port, &opts);
	ok = !err;
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
	if (!all_ok && m->fc) {
		fabriq_comm_destroy(m->fc);
		m->fc = NULL;
	}
out:
	if (!all_ok && fqm_env_on("FABRIQ_MPI_VERBOSE"))
		fprintf(stderr, "fabriq_mpi: rank %d: a communicator stays on MPI: %s\n", rank,
			!mine[0] ? "no RDMA port with an IPv4 address here" :
			err ? strerror(-err) : ok ? "another rank could not join" : "out of memory");
	memset(&boot, 0, sizeof(boot));
	free(all);
	free(addrs);
}

/*
 * @comm's fabriq communicator, made on its first blocking use (@blocking);
 * NULL: fall through.  The bootstrap is a blocking exchange: inside an
 * MPI_I* call it could wait for a rank that first waits for this one (a
 * receive this rank posts after its MPI_I* call), so a non-blocking call
 * on a communicator without its twin yet falls through.  Every rank makes
 * its calls on a communicator in the same order, so every rank decides
 * alike.  @comm is an intracommunicator (fqm_offload() checked).  The
 * bootstrap runs without fqm_lock: only this thread may be in a
 * collective on @comm now.
 * Context: fqm_lock held; dropped during the bootstrap.
 */
static struct fqm_comm *fqm_get(MPI_Comm comm, int blocking)
{
	struct fqm_comm *m;
	int flag = 0;

	if (fqm_keyval == MPI_KEYVAL_INVALID &&
	    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fqm_delete, &fqm_keyval, NULL))
		return NULL;
	if (PMPI_Comm_get_attr(comm, fqm_keyval, &m, &flag) == MPI_SUCCESS && flag)
		return m->fc ? m : NULL;
	if (!blocking)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;	/* (every rank is out of memory alike, or the job is lost anyway) */
	pthread_mutex_unlock(&fqm_lock);
	fqm_bootstrap(comm, m);
	PMPI_Comm_set_attr(comm, fqm_keyval, m);
	pthread_mutex_lock(&fqm_lock);
	return m->fc ? m : NULL;
}

/* ---- what fabriq can take ---- */

/*
 * Does @t hold its elements in memory order, each once: a predefined
 * type, or a duplicate, contiguous run or resizing of one that does?
 * (An indexed type, a vector with a negative stride or a struct may
 * leave no gap and still be in another order, or repeat an element.)
 */
static int fqm_in_order(MPI_Datatype t, int depth)
{
	int ni, na, nd, combiner, ints[2], ok = 0;
	MPI_Aint addrs[2];
	MPI_Datatype base;

	if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner))
		return 0;
	if (combiner == MPI_COMBINER_NAMED)
		return 1;
	if ((combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS &&
	     combiner != MPI_COMBINER_RESIZED) || ni > 2 || na > 2 || nd != 1 || depth > 8 ||
	    PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, &base))
		return 0;
	ok = fqm_in_order(base, depth + 1);
	if (PMPI_Type_get_envelope(base, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
	    combiner != MPI_COMBINER_NAMED)
		PMPI_Type_free(&base);	/* (get_contents made a handle of it) */
	return ok;
}

/*
 * The bytes of @count elements of @t at @user (-1: MPI cannot say), and
 * where they start if they lie back to back, in order (*@at; else NULL:
 * the type leaves gaps, or holds its elements in another order).
 */
static long long fqm_span(const void *user, long long count, MPI_Datatype t, void **at)
{
	MPI_Aint lb, extent, true_lb, true_extent;
	int size;

	*at = NULL;
	if (count < 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) || size < 0 ||
	    PMPI_Type_get_extent(t, &lb, &extent) ||
	    PMPI_Type_get_true_extent(t, &true_lb, &true_extent))
		return -1;
	if (true_extent == size && (count <= 1 || extent == size) && fqm_in_order(t, 0))
		*at = (char *)user + true_lb;
	return count * size;
}

/* fabriq's type for reducing @t, or -1 */
static int fqm_dtype(MPI_Datatype t)
{
	if (t == MPI_INT8_T || t == MPI_SIGNED_CHAR)
		return FABRIQ_INT8;
	if (t == MPI_UINT8_T || t == MPI_UNSIGNED_CHAR)
		return FABRIQ_UINT8;
	if (t == MPI_INT32_T || (t == MPI_INT && sizeof(int) == 4))
		return FABRIQ_INT32;
	if (t == MPI_UINT32_T || (t == MPI_UNSIGNED && sizeof(unsigned int) == 4))
		return FABRIQ_UINT32;
	if (t == MPI_INT64_T || (t == MPI_LONG && sizeof(long) == 8) || t == MPI_LONG_LONG_INT ||
	    t == MPI_LONG_LONG)
		return FABRIQ_INT64;
	if (t == MPI_UINT64_T || (t == MPI_UNSIGNED_LONG && sizeof(long) == 8) ||
	    t == MPI_UNSIGNED_LONG_LONG)
		return FABRIQ_UINT64;
	if (t == MPI_FLOAT)
		return FABRIQ_FLOAT32;
	if (t == MPI_DOUBLE)
		return FABRIQ_FLOAT64;
	return -1;
}

/* fabriq's op for @op on fabriq type @dt, or -1 */
static int fqm_op(MPI_Op op, int dt)
{
	int integer = dt != FABRIQ_FLOAT32 && dt != FABRIQ_FLOAT64;

	if (op == MPI_SUM)
		return FABRIQ_OP_SUM;
	if (op == MPI_PROD)
		return FABRIQ_OP_PROD;
	if (op == MPI_MAX)
		return FABRIQ_OP_MAX;
	if (op == MPI_MIN)
		return FABRIQ_OP_MIN;
	if (integer && op == MPI_BAND)
		return FABRIQ_OP_BAND;
	if (integer && op == MPI_BOR)
		return FABRIQ_OP_BOR;
	if (integer && op == MPI_BXOR)
		return FABRIQ_OP_BXOR;
	return -1;
}

/* ---- running one call ---- */

/*
 * One collective as fabriq takes it.  A data movement's buffers are
 * placed by fqm_bufs_ready(): @bufs[0] is the output (and the input of a
 * broadcast, or of an allgather in place, @send_off bytes into it),
 * @bufs[1] the input.
 */
struct fqm_call {
	enum fqm_kind which;
	struct fabriq_coll coll;
	struct fqm_buf bufs[2];
	int nbufs;
	uint64_t send_off;
};

/* a failed call: the communicator's error handler, as MPI's own calls do */
static int fqm_errors(MPI_Comm comm, int err)
{
	if (!err)
		return MPI_SUCCESS;
	fprintf(stderr, "fabriq_mpi: a collective on fabriq failed: %s\n", strerror(-err));
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

/*
 * @b's bytes for fabriq: the user's, or a packed copy (packed now if the
 * call reads it).  Return: their address, or 0 with *@err set.
 */
static uint64_t fqm_buf_ready(struct fqm_buf *b, int *err)
{
	void *at;
	long long bytes = fqm_span(b->user, b->count, b->t, &at);
	int psize = 0, pos = 0;
	MPI_Datatype copy;

	if (bytes != b->bytes || bytes > INT_MAX) {	/* (signatures that do not match) */
		*err = -EINVAL;
		return 0;
	}
	if (at)
		return (uintptr_t)at;
	/* (MPI's packed form is the bytes themselves, but on a heterogeneous MPI) */
	if (PMPI_Pack_size(b->count, b->t, b->comm, &psize) || psize != bytes) {
		*err = -EOPNOTSUPP;
		return 0;
	}
	/* (a copy of the type, for after the program freed its own: no attributes, no callbacks) */
	b->packed = malloc(bytes ?: 1);
	if (!b->packed || PMPI_Type_contiguous(1, b->t, &copy)) {
		free(b->packed);
		b->packed = NULL;
		*err = -ENOMEM;
		return 0;
	}
	b->t = copy;
	if (PMPI_Type_commit(&b->t)) {
		*err = -ENOMEM;
		return 0;	/* (fqm_buf_done() frees both) */
	}
	if (b->in && PMPI_Pack(b->user, b->count, b->t, b->packed, psize, &pos, b->comm)) {
		*err = -EIO;
		return 0;	/* (fqm_buf_done() frees it) */
	}
	return (uintptr_t)b->packed;
}

/* the call of @b ended with @st: its packed copy unpacked (if it went well and fabriq wrote it), and freed */
static void fqm_buf_done(struct fqm_buf *b, int st)
{
	int pos = 0;

	if (!b->packed)
		return;
	if (!st && b->out)
		PMPI_Unpack(b->packed, (int)b->bytes, &pos, b->user, b->count, b->t, b->comm);
	PMPI_Type_free(&b->t);
	free(b->packed);
	b->packed = NULL;
}

/* Point @c's fabriq call at its buffers' bytes (fqm_buf_ready()).  Return: 0 or -errno. */
static int fqm_bufs_ready(struct fqm_call *c)
{
	uint64_t at[2] = { 0 };
	int i, err = 0;

	for (i = 0; i < c->nbufs && !err; i++)
		at[i] = fqm_buf_ready(&c->bufs[i], &err);
	if (err || !c->nbufs)
		return err;
	c->coll.recvbuf = at[0];
	c->coll.sendbuf = c->nbufs == 2 ? at[1] : at[0] + c->send_off;
	return 0;
}

static void fqm_bufs_done(struct fqm_buf *bufs, int n, int st)
{
	int i;

	for (i = 0; i < n; i++)
		fqm_buf_done(&bufs[i], st);
}

static int fqm_query(void *extra, MPI_Status *status)
{
	struct fqm_req *r = extra;

	PMPI_Status_set_elements(status, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(status, 0);
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	return r->err ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int fqm_free(void *extra)
{
	free(extra);
	return MPI_SUCCESS;
}

static int fqm_cancel(void *extra, int complete)
{
	return MPI_SUCCESS;	/* a collective cannot be cancelled; it completes */
}

static struct fqm_req *fqm_find(MPI_Request req)
{
	struct fqm_req *r;

	for (r = fqm_pending; r; r = r->next)
		if (r->greq == req)
			return r;
	return NULL;
}

static int fqm_is_pending(uint64_t id)
{
	struct fqm_req *r;

	for (r = fqm_pending; r; r = r->next)
		if (r->id == id)
			return 1;
	return 0;
}

/* @r ended with @st (0, or -errno if fabriq could not say): complete its request */
static void fqm_complete(struct fqm_req *r, int st)
{
	struct fqm_req **p;

	for (p = &fqm_pending; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	r->err = st ?: r->fr.status;
	fqm_bufs_done(r->bufs, r->nbufs, r->err);
	PMPI_Grequest_complete(r->greq);
	pthread_cond_broadcast(&fqm_completed);
}

/*
 * Claim what has ended of @fc's pending calls, those other threads wait
 * for too: libfabriq keeps the last 2 x FABRIQ_MAX_INFLIGHT completions
 * it read, and one left unclaimed longer would be lost.  So after every
 * test that may have read some (fqm_wait(), fqm_try()).  Complete those
 * whose request the program freed, unless a thread waits for them.
 */
static void fqm_sweep(struct fabriq_comm *fc)
{
	struct fqm_req *r, *next;
	int st;

	for (r = fqm_pending; r; r = next) {
		next = r->next;
		if (r->m->fc != fc)
			continue;
		st = fabriq_test(fc, &r->fr);	/* (claimed: fabriq_test says so again) */
		if (st < 0)
			r->fr.status = st;
		if (st && r->freed && !r->waiting)
			fqm_complete(r, st < 0 ? st : 0);
	}
}

/*
 * Wait for @fr while MPI's own traffic keeps moving.  A rank asleep in
 * the kernel would stop Open MPI's progress, and a peer waiting for a
 * message this rank posted before the collective (the rest of a large
 * MPI_Isend) would never reach the collective itself.  So between tests
 * MPI progresses (an MPI_Iprobe on MPI_COMM_SELF matches nothing but runs
 * the progress engine) and the rank sleeps in poll() on the
 * communicator's file for at most a millisecond: a completion wakes it at
 * once.  Return: the call's status (0 or -errno).
 * Context: fqm_lock held; dropped between tests.
 */
static int fqm_wait(struct fabriq_comm *fc, struct fabriq_req *fr)
{
	struct pollfd p = { .fd = fabriq_comm_fd(fc), .events = POLLIN };
	int st, flag;

	for (;;) {
		st = fabriq_test(fc, fr);
		fqm_sweep(fc);
		if (st)
			return st < 0 ? st : fr->status;
		pthread_mutex_unlock(&fqm_lock);
		PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
		poll(&p, 1, 1);
		pthread_mutex_lock(&fqm_lock);
	}
}

/*
 * Wait for @r and complete its request; if another thread waits for it
 * already, until that thread has.
 * Context: fqm_lock held; dropped while waiting.
 */
static void fqm_finish(struct fqm_req *r)
{
	uint64_t id = r->id;

	if (r->waiting) {
		while (fqm_is_pending(id))	/* (@r may be freed once completed) */
			pthread_cond_wait(&fqm_completed, &fqm_lock);
		return;
	}
	r->waiting = 1;
	fqm_complete(r, fqm_wait(r->m->fc, &r->fr));
}

/* Complete @r if its call has ended, unless another thread waits for it. */
static void fqm_try(struct fqm_req *r)
{
	int st;

	if (r->waiting)
		return;
	st = fabriq_test(r->m->fc, &r->fr);
	fqm_sweep(r->m->fc);	/* (@r is not freed: the program holds its request) */
	if (st)
		fqm_complete(r, st < 0 ? st : 0);	/* (< 0: the communicator's file failed) */
}

/*
 * Queue @c on @m.  Past FABRIQ_MAX_INFLIGHT calls queued and unread,
 * libfabriq says EAGAIN: then the oldest pending call on @m is waited
 * for (and its request completed), and the call tried again.
 * Context: fqm_lock held; dropped while waiting.
 */
static int fqm_submit(struct fqm_comm *m, struct fqm_call *c, struct fabriq_req *fr)
{
	struct fqm_req *r, *oldest;
	int err;

	while ((err = fabriq_coll(m->fc, &c->coll, fr)) == -EAGAIN) {
		oldest = NULL;
		for (r = fqm_pending; r; r = r->next)	/* (newest first) */
			if (r->m == m)
				oldest = r;
		if (!oldest)
			break;
		fqm_finish(oldest);
	}
	return err;
}

/*
 * Run @c on @m: blocking when @request is NULL, else behind a generalized
 * request, which takes @c's packed copies along.  Return: 0 or -errno.
 * Context: fqm_lock held; dropped while waiting.
 */
static int fqm_run(struct fqm_comm *m, struct fqm_call *c, MPI_Request *request)
{
	struct fabriq_req fr;
	struct fqm_req *r;
	int err;

	fqm_counts[c->which][0][request != NULL]++;
	if (!request)
		return fqm_submit(m, c, &fr) ?: fqm_wait(m->fc, &fr);
	r = calloc(1, sizeof(*r));
	err = r ? fqm_submit(m, c, &r->fr) : -ENOMEM;
	if (err) {
		free(r);
		return err;
	}
	r->m = m;
	memcpy(r->bufs, c->bufs, sizeof(r->bufs));	/* (its copies end with it) */
	r->nbufs = c->nbufs;
	PMPI_Grequest_start(fqm_query, fqm_free, fqm_cancel, r, &r->greq);
	r->id = ++fqm_next_id;
	r->next = fqm_pending;
	fqm_pending = r;
	*request = r->greq;
	return 0;
}

/* ---- completing the non-blocking ones ---- */

/* complete ours among @reqs: waiting for each when @wait, else those done */
static void fqm_progress(int n, MPI_Request *reqs, int wait)
{
	struct fqm_req *r;
	int i;

	pthread_mutex_lock(&fqm_lock);
	for (i = 0; i < n; i++) {
		if (reqs[i] == MPI_REQUEST_NULL || !(r = fqm_find(reqs[i])))
			continue;
		if (wait)
			fqm_finish(r);
		else
			fqm_try(r);
	}
	pthread_mutex_unlock(&fqm_lock);
}

/* a freed request of ours completes when its call ends (fqm_sweep, MPI_Finalize) */
int MPI_Request_free(MPI_Request *request)
{
	struct fqm_req *r;

	pthread_mutex_lock(&fqm_lock);
	r = request ? fqm_find(*request) : NULL;
	if (r) {
		r->freed = 1;
		fqm_sweep(r->m->fc);
	}
	pthread_mutex_unlock(&fqm_lock);
	return PMPI_Request_free(request);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	fqm_progress(1, request, 1);
	return PMPI_Wait(request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
	fqm_progress(count, requests, 1);
	return PMPI_Waitall(count, requests, statuses);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	fqm_progress(1, request, 0);
	return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
	fqm_progress(count, requests, 0);
	return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
	fqm_progress(count, requests, 0);
	return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	fqm_progress(incount, requests, 0);
	return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

/* -any and -some wait for the first of a mix of ours and MPI's */
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
	int flag = 0, err;

	for (;;) {
		fqm_progress(count, requests, 0);
		err = PMPI_Testany(count, requests, index, &flag, status);
		if (err || flag)
			return err;
		sched_yield();
	}
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	int err;

	for (;;) {
		fqm_progress(incount, requests, 0);
		err = PMPI_Testsome(incount, requests, outcount, indices, statuses);
		if (err || *outcount != 0)
			return err;
		sched_yield();
	}
}

/* ---- the collectives ---- */

/*
 * A reduction's fabriq form into @c, or -1: @count elements of @t with @op;
 * @sendbuf MPI_IN_PLACE means in place.
 */
static int fqm_reduction(struct fqm_call *c, int coll, const void *sendbuf, void *recvbuf,
			 int count, MPI_Datatype t, MPI_Op op)
{
	int dt = fqm_dtype(t), fop = dt < 0 ? -1 : fqm_op(op, dt);

	if (fop < 0 || count < 0)
		return -1;
	c->coll = (struct fabriq_coll){
		.coll = coll, .dtype = dt, .redop = fop, .count = count,
		.sendbuf = (uintptr_t)(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf),
		.recvbuf = (uintptr_t)recvbuf,
	};
	return 0;
}

/*
 * A data movement into @c, @block bytes per rank (-1: MPI cannot say, fall
 * through): the same on every rank, whatever types each passes.
 */
static int fqm_movement(struct fqm_call *c, int coll, long long block)
{
	if (block < 0)
		return -1;
	c->coll = (struct fabriq_coll){ .coll = coll, .dtype = FABRIQ_UINT8, .count = block };
	return 0;
}

/* @c's next buffer: @count elements of @t at @user, @bytes of them, read (@in) and/or written (@out) */
static void fqm_buf_add(struct fqm_call *c, MPI_Comm comm, const void *user, long long count,
			MPI_Datatype t, long long bytes, int in, int out)
{
	c->bufs[c->nbufs++] = (struct fqm_buf){
		.user = (void *)user, .count = count, .t = t, .comm = comm,
		.in = in, .out = out, .bytes = bytes,
	};
}

/* @c on @comm's fabriq communicator if it has one; else 1: fall through */
static int fqm_offload(MPI_Comm comm, struct fqm_call *c, int ok, MPI_Request *request, int *ret)
{
	struct fqm_comm *m;
	int size = 0, inter = 1, err;

	/* (MPI's checks of @comm may call its error handler: not under the lock) */
	if (fqm_env_on("FABRIQ_MPI_DISABLE") || comm == MPI_COMM_NULL ||
	    PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
	    PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
		ok = 0;
	/* within fabriq's limit: count x type size x ranks at most 1 GiB */
	if (c->coll.count * fabriq_dtype_size(c->coll.dtype) * size > (1ULL << 30))
		ok = 0;
	pthread_mutex_lock(&fqm_lock);
	m = ok ? fqm_get(comm, !request) : NULL;
	if (!m)
		fqm_counts[c->which][1][request != NULL]++;
	pthread_mutex_unlock(&fqm_lock);
	if (!m)
		return 1;	/* (MPI's own call runs outside the lock) */
	/* packing, unpacking and error handlers may call back into MPI: unlocked */
	err = fqm_bufs_ready(c);
	if (!err) {
		pthread_mutex_lock(&fqm_lock);
		err = fqm_run(m, c, request);
		pthread_mutex_unlock(&fqm_lock);
	}
	if (err || !request)
		fqm_bufs_done(c->bufs, c->nbufs, err);
	*ret = fqm_errors(comm, err);
	return 0;
}

static int fqm_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
			 MPI_Comm comm, MPI_Request *request)
{
	struct fqm_call c = { .which = FQM_ALLREDUCE };
	int ret, ok = !fqm_reduction(&c, FABRIQ_COLL_ALLREDUCE, sendbuf, recvbuf, count, t, op);

	if (!fqm_offload(comm, &c, ok, request, &ret))
		return ret;
	return request ? PMPI_Iallreduce(sendbuf, recvbuf, count, t, op, comm, request) :
			 PMPI_Allreduce(sendbuf, recvbuf, count, t, op, comm);
}

static int fqm_allgather(const void *sendbuf, int scount, MPI_Datatype st, void *recvbuf,
			 int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
	struct fqm_call c = { .which = FQM_ALLGATHER };
	int ret, rank, size, ok;
	long long block;
	void *at;

	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &size);
	block = fqm_span(recvbuf, rcount, rt, &at);
	ok = !fqm_movement(&c, FABRIQ_COLL_ALLGATHER, block);
	/* in place: the input is this rank's block of recvbuf, also fabriq's */
	fqm_buf_add(&c, comm, recvbuf, (long long)rcount * size, rt, block * size,
		    sendbuf == MPI_IN_PLACE, 1);
	if (sendbuf != MPI_IN_PLACE)
		fqm_buf_add(&c, comm, sendbuf, scount, st, block, 1, 0);
	c.send_off = (uint64_t)rank * block;
	if (!fqm_offload(comm, &c, ok, request, &ret))
		return ret;
	return request ? PMPI_Iallgather(sendbuf, scount, st, recvbuf, rcount, rt, comm, request) :
			 PMPI_Allgather(sendbuf, scount, st, recvbuf, rcount, rt, comm);
}

static int fqm_reduce_scatter_block(const void *sendbuf, void *recvbuf, int count,
				    MPI_Datatype t, MPI_Op op, MPI_Comm comm,
				    MPI_Request *request)
{
	struct fqm_call c = { .which = FQM_REDUCE_SCATTER_BLOCK };
	/* MPI's in place keeps the input in recvbuf: not fabriq's layout */
	int ret, ok = sendbuf != MPI_IN_PLACE &&
		      !fqm_reduction(&c, FABRIQ_COLL_REDUCESCATTER, sendbuf, recvbuf, count, t, op);

	if (!fqm_offload(comm, &c, ok, request, &ret))
		return ret;
	return request ? PMPI_Ireduce_scatter_block(sendbuf, recvbuf, count, t, op, comm, request) :
			 PMPI_Reduce_scatter_block(sendbuf, recvbuf, count, t, op, comm);
}

static int fqm_bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm,
		     MPI_Request *request)
{
	struct fqm_call c = { .which = FQM_BCAST };
	int ret, rank, ok;
	long long bytes;
	void *at;

	PMPI_Comm_rank(comm, &rank);
	bytes = fqm_span(buf, count, t, &at);
	ok = root >= 0 && !fqm_movement(&c, FABRIQ_COLL_BROADCAST, bytes);
	fqm_buf_add(&c, comm, buf, count, t, bytes, rank == root, rank != root);
	c.coll.root = root;
	if (!fqm_offload(comm, &c, ok, request, &ret))
		return ret;
	return request ? PMPI_Ibcast(buf, count, t, root, comm, request) :
			 PMPI_Bcast(buf, count, t, root, comm);
}

static int fqm_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
		      int root, MPI_Comm comm, MPI_Request *request)
{
	struct fqm_call c = { .which = FQM_REDUCE };
	int ret, rank, ok;

	PMPI_Comm_rank(comm, &rank);
	/*
	 * MPI_IN_PLACE: the root's input is in recvbuf, fabriq's in place.
	 * Another rank's recvbuf means nothing to MPI (it may be NULL) nor to
	 * fabriq, which reduces there in a buffer of its own.
	 */
	ok = root >= 0 && (rank == root || sendbuf != MPI_IN_PLACE) &&
	     !fqm_reduction(&c, FABRIQ_COLL_REDUCE, sendbuf, recvbuf, count, t, op);
	c.coll.root = root;
	if (!fqm_offload(comm, &c, ok, request, &ret))
		return ret;
	return request ? PMPI_Ireduce(sendbuf, recvbuf, count, t, op, root, comm, request) :
			 PMPI_Reduce(sendbuf, recvbuf, count, t, op, root, comm);
}

static int fqm_barrier(MPI_Comm comm, MPI_Request *request)
{
	struct fqm_call c = {
		.which = FQM_BARRIER, .coll = { .coll = FABRIQ_COLL_BARRIER, .dtype = FABRIQ_UINT8 },
	};
	int ret;

	if (!fqm_offload(comm, &c, 1, request, &ret))
		return ret;
	return request ? PMPI_Ibarrier(comm, request) : PMPI_Barrier(comm);
}

static int fqm_alltoall(const void *sendbuf, int scount, MPI_Datatype st, void *recvbuf,
			int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
	struct fqm_call c = { .which = FQM_ALLTOALL };
	int ret, size, ok;
	long long block;
	void *at;

	PMPI_Comm_size(comm, &size);
	block = fqm_span(recvbuf, rcount, rt, &at);
	/* (MPI's in place keeps the input in recvbuf: not fabriq's layout) */
	ok = sendbuf != MPI_IN_PLACE && !fqm_movement(&c, FABRIQ_COLL_ALLTOALL, block);
	fqm_buf_add(&c, comm, recvbuf, (long long)rcount * size, rt, block * size, 0, 1);
	fqm_buf_add(&c, comm, sendbuf, (long long)scount * size, st, block * size, 1, 0);
	if (!fqm_offload(comm, &c, ok, request, &ret))
		return ret;
	return request ? PMPI_Ialltoall(sendbuf, scount, st, recvbuf, rcount, rt, comm, request) :
			 PMPI_Alltoall(sendbuf, scount, st, recvbuf, rcount, rt, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
		  MPI_Comm comm)
{
	return fqm_allreduce(sendbuf, recvbuf, count, t, op, comm, NULL);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
		   MPI_Comm comm, MPI_Request *request)
{
	return fqm_allreduce(sendbuf, recvbuf, count, t, op, comm, request);
}

int MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype st, void *recvbuf, int rcount,
		  MPI_Datatype rt, MPI_Comm comm)
{
	return fqm_allgather(sendbuf, scount, st, recvbuf, rcount, rt, comm, NULL);
}

int MPI_Iallgather(const void *sendbuf, int scount, MPI_Datatype st, void *recvbuf, int rcount,
		   MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
	return fqm_allgather(sendbuf, scount, st, recvbuf, rcount, rt, comm, request);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t,
			     MPI_Op op, MPI_Comm comm)
{
	return fqm_reduce_scatter_block(sendbuf, recvbuf, count, t, op, comm, NULL);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t,
			      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return fqm_reduce_scatter_block(sendbuf, recvbuf, count, t, op, comm, request);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
	return fqm_bcast(buf, count, t, root, comm, NULL);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm,
	       MPI_Request *request)
{
	return fqm_bcast(buf, count, t, root, comm, request);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op, int root,
	       MPI_Comm comm)
{
	return fqm_reduce(sendbuf, recvbuf, count, t, op, root, comm, NULL);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op,
		int root, MPI_Comm comm, MPI_Request *request)
{
	return fqm_reduce(sendbuf, recvbuf, count, t, op, root, comm, request);
}

int MPI_Barrier(MPI_Comm comm)
{
	return fqm_barrier(comm, NULL);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	return fqm_barrier(comm, request);
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype st, void *recvbuf, int rcount,
		 MPI_Datatype rt, MPI_Comm comm)
{
	return fqm_alltoall(sendbuf, scount, st, recvbuf, rcount, rt, comm, NULL);
}

int MPI_Ialltoall(const void *sendbuf, int scount, MPI_Datatype st, void *recvbuf, int rcount,
		  MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
	return fqm_alltoall(sendbuf, scount, st, recvbuf, rcount, rt, comm, request);
}

int MPI_Finalize(void)
{
	int rank = 0, i;

	/* (freed requests, and those a program never waited for) */
	pthread_mutex_lock(&fqm_lock);
	while (fqm_pending)
		fqm_finish(fqm_pending);
	pthread_mutex_unlock(&fqm_lock);

	if (fqm_env_on("FABRIQ_MPI_VERBOSE")) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		for (i = 0; i < FQM_NCALLS; i++)
			fprintf(stderr, "fabriq_mpi: rank %d: MPI_%s %lu on fabriq, %lu fell through; "
				"MPI_I%c%s %lu on fabriq, %lu fell through\n", rank,
				fqm_call_names[i], fqm_counts[i][0][0], fqm_counts[i][1][0],
				fqm_call_names[i][0] + 'a' - 'A', fqm_call_names[i] + 1,
				fqm_counts[i][0][1], fqm_counts[i][1][1]);
	}
	return PMPI_Finalize();
}
