// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libfabriq.c - the user API over /dev/fabriq: communicator setup (from a
 * peer list or FABRIQ_RANK/FABRIQ_NRANKS/FABRIQ_PEERS/FABRIQ_PORT), one
 * call per collective, and test/wait on the completions the kernel
 * returns through read() in submission order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libfabriq.h"

#define FQ_DONE_RING	(2 * FABRIQ_MAX_INFLIGHT)

struct fabriq_comm {
	int fd;
	uint32_t rank;
	uint32_t nranks;
	uint64_t last_seq;		/* newest completion read */
	struct fabriq_completion done[FQ_DONE_RING];	/* by seq % FQ_DONE_RING */
	int err;			/* the last call's error, explained in errmsg */
	char errmsg[128];
};

void fabriq_comm_opts_default(struct fabriq_comm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tclass = -1;
}

int fabriq_key_generate(uint8_t *key, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (len < FABRIQ_KEY_MIN || len > FABRIQ_KEY_MAX)
		return -EINVAL;
	while (got < len) {
		n = getrandom(key + got, len - got, 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += n;
	}
	return 0;
}

static int fq_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int fabriq_key_parse(const char *hex, uint8_t *key, size_t max)
{
	size_t n = strlen(hex), i;

	if (n % 2 || n / 2 < FABRIQ_KEY_MIN || n / 2 > FABRIQ_KEY_MAX || n / 2 > max)
		return -EINVAL;
	for (i = 0; i < n / 2; i++) {
		int hi = fq_hex_digit(hex[2 * i]), lo = fq_hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = hi << 4 | lo;
	}
	return n / 2;
}

/* The caller's key, or FABRIQ_KEY's: its length, 0 for none, or -EINVAL. */
static int fq_comm_key(const struct fabriq_comm_opts *opts, uint8_t *buf, const uint8_t **key)
{
	const char *env = getenv("FABRIQ_KEY");

	*key = opts->key;
	if (opts->key && opts->key_len)
		return opts->key_len;
	if (!env || !*env)
		return 0;
	*key = buf;
	return fabriq_key_parse(env, buf, FABRIQ_KEY_MAX);
}

static int fq_parse_addr(const char *s, struct fabriq_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->addr) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->addr) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

int fabriq_comm_init(struct fabriq_comm **comm, uint64_t id, uint32_t nranks, uint32_t rank,
		     const char *const *addrs, uint16_t base_port,
		     const struct fabriq_comm_opts *opts)
{
	uint8_t keybuf[FABRIQ_KEY_MAX];
	struct fabriq_comm_opts def;
	struct fabriq_comm_init ci;
	const uint8_t *key;
	struct fabriq_addr *a;
	struct fabriq_comm *c;
	int key_len;
	uint32_t i;
	int err;

	if (!opts) {
		fabriq_comm_opts_default(&def);
		opts = &def;
	}
	if (!nranks || nranks > FABRIQ_MAX_RANKS)
		return -EINVAL;
	key_len = fq_comm_key(opts, keybuf, &key);
	if (key_len < 0)
		return key_len;
	if (!key_len && nranks > 1)
		return -ENOKEY;
	a = calloc(nranks, sizeof(*a));
	c = calloc(1, sizeof(*c));
	if (!a || !c) {
		free(a);
		free(c);
		return -ENOMEM;
	}
	for (i = 0; i < nranks; i++) {
		if (fq_parse_addr(addrs[i], &a[i])) {
			err = -EINVAL;
			goto err;
		}
	}
	memset(&ci, 0, sizeof(ci));
	ci.comm_id = id;
	ci.nranks = nranks;
	ci.rank = rank;
	ci.addrs = (uintptr_t)a;
	ci.base_port = base_port;
	ci.algo = opts->algo;
	if (opts->tclass >= 0) {
		ci.flags |= FABRIQ_COMM_F_TCLASS;
		ci.tclass = opts->tclass;
	}
	ci.chunk_bytes = opts->chunk_bytes;
	ci.channels = opts->channels;
	ci.connect_timeout_ms = opts->connect_timeout_ms;
	ci.op_timeout_ms = opts->op_timeout_ms;
	ci.peer_timeout_ms = opts->peer_timeout_ms;
	ci.small_bytes = opts->small_bytes;
	ci.key = (uintptr_t)key;
	ci.key_len = key_len;
	if (opts->bounce)
		ci.flags |= FABRIQ_COMM_F_BOUNCE;
	c->fd = open("/dev/" FABRIQ_DEV_NODE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		err = -errno;
		goto err;
	}
	if (ioctl(c->fd, FABRIQ_IOC_COMM_INIT, &ci)) {
		err = -errno;
		close(c->fd);
		goto err;
	}
	c->rank = rank;
	c->nranks = nranks;
	free(a);
	explicit_bzero(keybuf, sizeof(keybuf));
	*comm = c;
	return 0;
err:
	explicit_bzero(keybuf, sizeof(keybuf));
	free(a);
	free(c);
	return err;
}

/* FABRIQ_PEERS is a comma-separated address list, one per rank */
int fabriq_comm_init_env(struct fabriq_comm **comm, uint64_t id,
			 const struct fabriq_comm_opts *opts)
{
	const char *rank_s = getenv("FABRIQ_RANK"), *n_s = getenv("FABRIQ_NRANKS");
	const char *peers_s = getenv("FABRIQ_PEERS"), *port_s = getenv("FABRIQ_PORT");
	char *peers, *tok, *save = NULL;
	const char **addrs;
	unsigned long rank, n, port;
	uint32_t i = 0;
	int err;

	if (!rank_s || !n_s || !peers_s)
		return -EINVAL;
	rank = strtoul(rank_s, NULL, 0);
	n = strtoul(n_s, NULL, 0);
	port = port_s ? strtoul(port_s, NULL, 0) : 18600;
	if (!n || n > FABRIQ_MAX_RANKS || rank >= n || !port || port > 65535)
		return -EINVAL;
	peers = strdup(peers_s);
	addrs = calloc(n, sizeof(*addrs));
	if (!peers || !addrs) {
		free(peers);
		free(addrs);
		return -ENOMEM;
	}
	for (tok = strtok_r(peers, ",", &save); tok && i < n; tok = strtok_r(NULL, ",", &save))
		addrs[i++] = tok;
	err = i == n ? fabriq_comm_init(comm, id, n, rank, addrs, port, opts) : -EINVAL;
	free(addrs);
	free(peers);
	return err;
}

void fabriq_comm_destroy(struct fabriq_comm *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}

int fabriq_comm_fd(const struct fabriq_comm *c) { return c->fd; }
uint32_t fabriq_comm_rank(const struct fabriq_comm *c) { return c->rank; }
uint32_t fabriq_comm_nranks(const struct fabriq_comm *c) { return c->nranks; }

/* KiB of pages the span [addr, addr + len) touches */
static uint64_t fq_span_kib(uint64_t addr, uint64_t len)
{
	uint64_t page = sysconf(_SC_PAGESIZE);

	if (!len)
		return 0;
	return ((addr + len - 1) / page - addr / page + 1) * page / 1024;
}

/* KiB the kernel pins for @coll: its send and receive buffers, as sized there */
static uint64_t fq_pin_kib(const struct fabriq_comm *c, const struct fabriq_coll *coll)
{
	uint64_t blk = coll->count * fabriq_dtype_size(coll->dtype), all = blk * c->nranks;
	uint64_t in = blk, out = blk;

	switch (coll->coll) {
	case FABRIQ_COLL_ALLGATHER:
		out = all;
		break;
	case FABRIQ_COLL_REDUCESCATTER:
		in = all;
		break;
	case FABRIQ_COLL_ALLTOALL:
		in = all;
		out = all;
		break;
	case FABRIQ_COLL_BARRIER:
		in = 0;
		out = 0;
		break;
	}
	return fq_span_kib(coll->sendbuf, in) + fq_span_kib(coll->recvbuf, out);
}

/* what this process has pinned now (VmPin), KiB */
static uint64_t fq_vm_pinned_kib(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Why did a call that pins @kib KiB more fail with @err?  Kept for fabriq_strerror(). */
static void fq_explain_pin(struct fabriq_comm *c, uint64_t kib, int err)
{
	uint64_t need = fq_vm_pinned_kib() + kib;
	struct rlimit rl;

	c->err = err;
	c->errmsg[0] = '\0';
	if (err == -ENOMEM && !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    need * 1024 > rl.rlim_cur)
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "RLIMIT_MEMLOCK (ulimit -l) too low: need %llu KiB, the limit is %llu KiB",
			 (unsigned long long)need, (unsigned long long)rl.rlim_cur / 1024);
	else if (err == -EOPNOTSUPP)
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "the receive buffer is a shared file mapping (only anonymous memory, shmem and hugetlb can be pinned for writing)");
}

int fabriq_comm_register(struct fabriq_comm *c, const void *buf, size_t len, uint32_t *handle)
{
	struct fabriq_reg reg = { .addr = (uintptr_t)buf, .len = len };

	if (ioctl(c->fd, FABRIQ_IOC_REG, &reg)) {
		int err = -errno;

		fq_explain_pin(c, fq_span_kib(reg.addr, len), err);
		return err;
	}
	*handle = reg.handle;
	return 0;
}

int fabriq_comm_deregister(struct fabriq_comm *c, uint32_t handle)
{
	return ioctl(c->fd, FABRIQ_IOC_DEREG, &handle) ? -errno : 0;
}

int fabriq_coll(struct fabriq_comm *c, struct fabriq_coll *coll, struct fabriq_req *req)
{
	/* @req says whether the call waits, whatever an earlier call left in @coll */
	if (req) {
		coll->flags |= FABRIQ_COLL_F_ASYNC;
		memset(req, 0, sizeof(*req));
	} else {
		coll->flags &= ~FABRIQ_COLL_F_ASYNC;
	}
	if (ioctl(c->fd, FABRIQ_IOC_COLL, coll)) {
		int err = -errno;

		fq_explain_pin(c, fq_pin_kib(c, coll), err);
		return err;
	}
	if (req)
		req->seq = coll->seq;
	return 0;
}

const char *fabriq_strerror(const struct fabriq_comm *c, int err)
{
	if (c && err == c->err && c->errmsg[0])
		return c->errmsg;
	return strerror(err < 0 ? -err : err);
}

static int fq_call(struct fabriq_comm *c, int type, const void *s, void *r, size_t count,
		   int dtype, int op, uint32_t root, struct fabriq_req *req)
{
	struct fabriq_coll coll = {
		.coll = type, .dtype = dtype, .redop = op, .root = root, .count = count,
		.sendbuf = (uintptr_t)s, .recvbuf = (uintptr_t)r,
	};

	return fabriq_coll(c, &coll, req);
}

int fabriq_allreduce(struct fabriq_comm *c, const void *s, void *r, size_t count, int dtype,
		     int op, struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_ALLREDUCE, s, r, count, dtype, op, 0, req);
}

int fabriq_allgather(struct fabriq_comm *c, const void *s, void *r, size_t count, int dtype,
		     struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_ALLGATHER, s, r, count, dtype, 0, 0, req);
}

int fabriq_reducescatter(struct fabriq_comm *c, const void *s, void *r, size_t count,
			 int dtype, int op, struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_REDUCESCATTER, s, r, count, dtype, op, 0, req);
}

int fabriq_broadcast(struct fabriq_comm *c, const void *s, void *r, size_t count, int dtype,
		     uint32_t root, struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_BROADCAST, s, r, count, dtype, 0, root, req);
}

int fabriq_reduce(struct fabriq_comm *c, const void *s, void *r, size_t count, int dtype,
		  int op, uint32_t root, struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_REDUCE, s, r, count, dtype, op, root, req);
}

int fabriq_barrier(struct fabriq_comm *c, struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_BARRIER, NULL, NULL, 0, 0, 0, 0, req);
}

int fabriq_alltoall(struct fabriq_comm *c, const void *s, void *r, size_t count, int dtype,
		    struct fabriq_req *req)
{
	return fq_call(c, FABRIQ_COLL_ALLTOALL, s, r, count, dtype, 0, 0, req);
}

/* Read the completions that are ready (or wait for one: @block). */
static int fq_reap(struct fabriq_comm *c, int block)
{
	struct fabriq_completion buf[16];
	ssize_t n;
	int i;

	if (!block) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };

		if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
			return 0;
	}
	n = read(c->fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOTCONN;
	for (i = 0; i < n / (ssize_t)sizeof(buf[0]); i++) {
		c->done[buf[i].seq % FQ_DONE_RING] = buf[i];
		if (buf[i].seq > c->last_seq)
			c->last_seq = buf[i].seq;
	}
	return 0;
}

static int fq_claim(struct fabriq_comm *c, struct fabriq_req *req)
{
	struct fabriq_completion *d = &c->done[req->seq % FQ_DONE_RING];

	if (req->done)
		return 1;
	if (c->last_seq < req->seq || d->seq != req->seq)
		return 0;
	req->done = 1;
	req->status = d->status;
	req->ns = d->ns;
	return 1;
}

int fabriq_test(struct fabriq_comm *c, struct fabriq_req *req)
{
	int err;

	if (fq_claim(c, req))
		return 1;
	err = fq_reap(c, 0);
	if (err)
		return err;
	return fq_claim(c, req);
}

int fabriq_wait(struct fabriq_comm *c, struct fabriq_req *req)
{
	int err;

	while (!fq_claim(c, req)) {
		err = fq_reap(c, 1);
		if (err == -EINTR)
			continue;
		if (err)
			return err;
	}
	return req->status;
}

static const char *const fq_dtype_names[] = {
	[FABRIQ_INT8] = "int8", [FABRIQ_UINT8] = "uint8", [FABRIQ_INT32] = "int32",
	[FABRIQ_UINT32] = "uint32", [FABRIQ_INT64] = "int64", [FABRIQ_UINT64] = "uint64",
	[FABRIQ_FLOAT16] = "half", [FABRIQ_FLOAT32] = "float", [FABRIQ_FLOAT64] = "double",
	[FABRIQ_BFLOAT16] = "bfloat16",
};
static const size_t fq_dtype_sizes[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };
static const char *const fq_op_names[] = {
	[FABRIQ_OP_SUM] = "sum", [FABRIQ_OP_PROD] = "prod", [FABRIQ_OP_MAX] = "max",
	[FABRIQ_OP_MIN] = "min", [FABRIQ_OP_AVG] = "avg", [FABRIQ_OP_BAND] = "band",
	[FABRIQ_OP_BOR] = "bor", [FABRIQ_OP_BXOR] = "bxor",
};
static const char *const fq_coll_names[] = FABRIQ_COLL_NAMES;
static const char *const fq_algo_names[] = {
	[FABRIQ_ALGO_AUTO] = "auto", [FABRIQ_ALGO_RING] = "ring", [FABRIQ_ALGO_RD] = "rd",
	[FABRIQ_ALGO_TREE] = "tree", [FABRIQ_ALGO_DIRECT] = "direct",
};

static int fq_lookup(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}

#define FQ_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

int fabriq_dtype_parse(const char *s)
{
	/* nccl-tests' aliases too */
	if (s && (!strcmp(s, "fp16") || !strcmp(s, "float16")))
		return FABRIQ_FLOAT16;
	if (s && (!strcmp(s, "bf16")))
		return FABRIQ_BFLOAT16;
	if (s && (!strcmp(s, "fp32") || !strcmp(s, "float32")))
		return FABRIQ_FLOAT32;
	if (s && (!strcmp(s, "fp64") || !strcmp(s, "float64")))
		return FABRIQ_FLOAT64;
	return fq_lookup(fq_dtype_names, FQ_N(fq_dtype_names), s);
}

const char *fabriq_dtype_name(int d) { return d >= 0 && d < FQ_N(fq_dtype_names) ? fq_dtype_names[d] : NULL; }
size_t fabriq_dtype_size(int d) { return d >= 0 && d < FQ_N(fq_dtype_sizes) ? fq_dtype_sizes[d] : 0; }
int fabriq_op_parse(const char *s) { return fq_lookup(fq_op_names, FQ_N(fq_op_names), s); }
const char *fabriq_op_name(int o) { return o >= 0 && o < FQ_N(fq_op_names) ? fq_op_names[o] : NULL; }
int fabriq_coll_parse(const char *s) { return fq_lookup(fq_coll_names, FQ_N(fq_coll_names), s); }
const char *fabriq_coll_name(int c) { return c >= 0 && c < FQ_N(fq_coll_names) ? fq_coll_names[c] : NULL; }
int fabriq_algo_parse(const char *s) { return fq_lookup(fq_algo_names, FQ_N(fq_algo_names), s); }
const char *fabriq_algo_name(int a) { return a >= 0 && a < FQ_N(fq_algo_names) ? fq_algo_names[a] : NULL; }
