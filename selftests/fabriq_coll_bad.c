// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_coll_bad.c - /dev/fabriq refuses bad input with the right errno
 * and loses nothing: bad communicator parameters, bad collectives, bad
 * and unmapped buffers, count overflow, a duplicate id, a peer that never
 * comes (-ETIMEDOUT in time), a signal during a wait (-EINTR at once),
 * and a rank killed mid-operation (the others fail within the timeout);
 * the last two on one channel and on FABRIQ_MAX_CHANNELS, with messages
 * in flight on each.
 *
 * Ranks use 198.19.0.1-3 (lib.sh fq_ranks_up 3).  The leak checks (no
 * fabriq PD/CQ/QP left, module counters at zero) are in fabriq_coll.sh.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tools/lib/libfabriq.h"
#include "fq_tap.h"

static struct fabriq_addr A[4];

static void addr(int i, const char *s)
{
	memset(&A[i], 0, sizeof(A[i]));
	A[i].family = AF_INET;
	inet_pton(AF_INET, s, A[i].addr);
}

static int init_raw(int fd, struct fabriq_comm_init *ci)
{
	return ioctl(fd, FABRIQ_IOC_COMM_INIT, ci) ? -errno : 0;
}

static int coll_raw(int fd, struct fabriq_coll *c)
{
	return ioctl(fd, FABRIQ_IOC_COLL, c) ? -errno : 0;
}

static const uint8_t KEY[32] = "a key of thirty-two bytes, fixed";

static struct fabriq_comm_init good_init(uint32_t nranks, uint32_t rank)
{
	struct fabriq_comm_init ci = {
		.comm_id = 0xbad, .nranks = nranks, .rank = rank, .addrs = (uintptr_t)A,
		.base_port = 18800, .key = (uintptr_t)KEY, .key_len = sizeof(KEY),
	};

	return ci;
}

static void test_init(void)
{
	struct fabriq_comm_init ci;
	int fd = open("/dev/fabriq", O_RDWR), fd2;
	struct fabriq_coll c = { .coll = FABRIQ_COLL_ALLREDUCE, .dtype = FABRIQ_FLOAT32 };

	check("COLL before COMM_INIT: ENOTCONN", -ENOTCONN, coll_raw(fd, &c));
	check("unknown ioctl: ENOTTY", -ENOTTY, ioctl(fd, _IO(0xfb, 99)) ? -errno : 0);
	ci = good_init(0, 0);
	check("nranks 0: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1025, 0);
	check("nranks 1025: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(2, 2);
	check("rank >= nranks: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.chunk_bytes = 1000;
	check("chunk 1000: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.channels = FABRIQ_MAX_CHANNELS + 1;
	check("channels 5: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.algo = __FABRIQ_ALGO_MAX;
	check("unknown algo: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.reserved = 1;
	check("reserved field set: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.peer_timeout_ms = 99;
	check("peer timeout 99 ms (100..600000): EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.peer_timeout_ms = 600001;
	check("peer timeout 600001 ms: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.base_port = 0;
	check("base port 0: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.addrs = 0;
	check("NULL address list: EFAULT", -EFAULT, init_raw(fd, &ci));
	ci = good_init(1, 0);
	A[3].family = 12345;
	ci.addrs = (uintptr_t)&A[3];
	check("bad address family: EAFNOSUPPORT", -EAFNOSUPPORT, init_raw(fd, &ci));
	ci = good_init(1, 0);
	A[3].family = AF_INET;
	A[3].reserved = 1;
	memcpy(A[3].addr, A[0].addr, 4);
	ci.addrs = (uintptr_t)&A[3];
	check("address with its reserved field set: EINVAL", -EINVAL, init_raw(fd, &ci));
	A[3].reserved = 0;
	ci = good_init(2, 0);
	ci.key_len = 0;
	check("2 ranks without a key: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci.key_len = FABRIQ_KEY_MIN - 1;
	check("a key of 15 bytes: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci.key_len = FABRIQ_KEY_MAX + 1;
	check("a key of 65 bytes: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(2, 0);
	ci.key = 0;
	check("NULL key with a length: EINVAL", -EINVAL, init_raw(fd, &ci));
	ci = good_init(2, 0);
	ci.key = 8;
	check("unmapped key: EFAULT", -EFAULT, init_raw(fd, &ci));
	ci = good_init(1, 0);
	ci.key_len = 0;
	check("one rank needs no key", 0, init_raw(fd, &ci));
	close(fd);
	fd = open("/dev/fabriq", O_RDWR);
	ci = good_init(1, 0);
	check("one-rank communicator", 0, init_raw(fd, &ci));
	check("second COMM_INIT on the fd: EBUSY", -EBUSY, init_raw(fd, &ci));
	fd2 = open("/dev/fabriq", O_RDWR);
	check("same id on the same port: EEXIST", -EEXIST, init_raw(fd2, &ci));
	ci.base_port = 18801;
	check("same id on another port", 0, init_raw(fd2, &ci));
	close(fd2);
	close(fd);
}

static void test_coll(void)
{
	struct fabriq_comm_init ci = good_init(1, 0);
	int fd = open("/dev/fabriq", O_RDWR);
	float buf[64] = { 1 }, out[64];
	void *gone;
	struct fabriq_coll c, good = {
		.coll = FABRIQ_COLL_ALLREDUCE, .dtype = FABRIQ_FLOAT32, .count = 64,
		.sendbuf = (uintptr_t)buf, .recvbuf = (uintptr_t)out,
	};

	/* a good call with the fields under test changed */
#define C(...) (c = good, (void)0, ##__VA_ARGS__, coll_raw(fd, &c))
	init_raw(fd, &ci);
	check("allreduce on one rank", 0, C());
	check_true("one rank: the output is the input", !memcmp(buf, out, sizeof(buf)),
		   "output differs");
	check("unknown collective: EINVAL", -EINVAL, C(c.coll = __FABRIQ_COLL_MAX));
	check("unknown type: EINVAL", -EINVAL, C(c.dtype = __FABRIQ_DTYPE_MAX));
	check("unknown op: EINVAL", -EINVAL, C(c.redop = __FABRIQ_OP_MAX));
	check("avg on int32: EINVAL", -EINVAL, C(c.dtype = FABRIQ_INT32, c.redop = FABRIQ_OP_AVG));
	check("band on float: EINVAL", -EINVAL, C(c.redop = FABRIQ_OP_BAND));
	check("root 1 of 1 rank: EINVAL", -EINVAL, C(c.coll = FABRIQ_COLL_BROADCAST, c.root = 1));
	check("ring alltoall (no such schedule): EINVAL", -EINVAL,
	      C(c.coll = FABRIQ_COLL_ALLTOALL, c.algo = FABRIQ_ALGO_RING));
	check("unknown flag: EINVAL", -EINVAL, C(c.flags = 1U << 7));
	check("count overflow: EOVERFLOW", -EOVERFLOW, C(c.count = 1ULL << 62));
	check("count beyond 1 GiB: EOVERFLOW", -EOVERFLOW, C(c.count = 1ULL << 29));
	check("NULL sendbuf: EFAULT", -EFAULT, C(c.sendbuf = 0));
	check("NULL recvbuf: EFAULT", -EFAULT, C(c.recvbuf = 0));
	gone = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 65536);
	check("unmapped sendbuf: EFAULT", -EFAULT, C(c.sendbuf = (uintptr_t)gone));
	check("unmapped recvbuf: EFAULT", -EFAULT, C(c.recvbuf = (uintptr_t)gone));
	gone = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check("read-only recvbuf: EFAULT", -EFAULT, C(c.recvbuf = (uintptr_t)gone));
	munmap(gone, 65536);
	check("count 0 is valid", 0, C(c.count = 0, c.sendbuf = 0, c.recvbuf = 0));
	check("barrier on one rank", 0, C(c.coll = FABRIQ_COLL_BARRIER, c.count = 0));
	check("the communicator still works after all that", 0, C());
	check("COMM_DESTROY", 0, ioctl(fd, FABRIQ_IOC_COMM_DESTROY) ? -errno : 0);
	check("COLL after COMM_DESTROY fails", -ECANCELED, C());
	close(fd);
#undef C
}

/* rank 0 of 2; rank 1 (198.19.0.2) never comes */
static void test_timeout(void)
{
	struct fabriq_comm_init ci = good_init(2, 0);
	int fd = open("/dev/fabriq", O_RDWR), err;
	double t0;

	ci.connect_timeout_ms = 2000;
	ci.comm_id = 0x7117;
	t0 = now();
	err = init_raw(fd, &ci);
	check("peer never comes (listening rank): ETIMEDOUT", -ETIMEDOUT, err);
	check_true("... after the 2 s timeout, not much later", now() - t0 > 1.9 && now() - t0 < 6,
		   "elapsed out of range");
	close(fd);
	fd = open("/dev/fabriq", O_RDWR);
	ci = good_init(2, 1);
	ci.connect_timeout_ms = 2000;
	ci.comm_id = 0x7118;
	t0 = now();
	err = init_raw(fd, &ci);
	check("peer never comes (connecting rank): ETIMEDOUT", -ETIMEDOUT, err);
	check_true("... after the 2 s timeout, not much later", now() - t0 > 1.9 && now() - t0 < 6,
		   "elapsed out of range");
	close(fd);
}

static const char *addrs3[] = { "198.19.0.1", "198.19.0.2", "198.19.0.3" };

/* rank 0 of 2 (198.19.0.1, 198.19.0.2), in a child: its result comes on *status_fd */
static pid_t listening_rank(struct fabriq_comm_init ci, int *status_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/fabriq", O_RDWR), err = init_raw(fd, &ci);
		float x = 1;
		struct fabriq_coll c = {
			.coll = FABRIQ_COLL_ALLREDUCE, .dtype = FABRIQ_FLOAT32, .count = 1,
			.sendbuf = (uintptr_t)&x, .recvbuf = (uintptr_t)&x,
		};

		if (!err)
			err = coll_raw(fd, &c);
		if (!err && x != 2)
			err = -EBADMSG;
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	*status_fd = p[0];
	return pid;
}

/*
 * Who may take rank 1's place: only a process with the key that connects
 * from rank 1's address.  Rank 0 listens throughout; a rank with another
 * key learns it at once, one from another address is never answered, and
 * the real rank 1 then joins and reduces.
 */
static void test_auth(void)
{
	static const uint8_t other[32] = "another key, also thirty-two by";
	struct fabriq_comm_init ci = good_init(2, 0);
	struct fabriq_addr wrong_src[2];
	struct fabriq_comm_opts o;
	struct fabriq_comm *c;
	char *env = getenv("FABRIQ_KEY");
	int fd, err, status_fd = -1, r0 = -1;
	double t0;
	pid_t rank0;

	env = env ? strdup(env) : NULL;
	unsetenv("FABRIQ_KEY");
	fabriq_comm_opts_default(&o);
	check("libfabriq: 2 ranks and no key: ENOKEY", -ENOKEY,
	      fabriq_comm_init(&c, 0xa17, 2, 0, addrs3, 19100, &o));
	if (env)
		setenv("FABRIQ_KEY", env, 1);
	free(env);

	ci.comm_id = 0xa17;
	ci.base_port = 19100;
	ci.connect_timeout_ms = 20000;
	rank0 = listening_rank(ci, &status_fd);

	fd = open("/dev/fabriq", O_RDWR);
	ci = good_init(2, 1);
	ci.comm_id = 0xa17;
	ci.base_port = 19100;
	ci.connect_timeout_ms = 10000;
	ci.key = (uintptr_t)other;
	t0 = now();
	check("rank 1 with another key: EKEYREJECTED", -EKEYREJECTED, init_raw(fd, &ci));
	check_true("... at once, not at the 10 s timeout", now() - t0 < 5, "too slow");
	close(fd);

	fd = open("/dev/fabriq", O_RDWR);
	memcpy(wrong_src, A, sizeof(wrong_src));
	memcpy(wrong_src[1].addr, A[2].addr, 4);	/* rank 1 "is" 198.19.0.3 */
	ci.key = (uintptr_t)KEY;
	ci.addrs = (uintptr_t)wrong_src;
	ci.connect_timeout_ms = 3000;
	check("rank 1 with the key but from rank 2's address: refused until ETIMEDOUT",
	      -ETIMEDOUT, init_raw(fd, &ci));
	close(fd);

	fd = open("/dev/fabriq", O_RDWR);
	ci.addrs = (uintptr_t)A;
	ci.connect_timeout_ms = 10000;
	err = init_raw(fd, &ci);
	check("then the real rank 1 joins", 0, err);
	if (!err) {
		float x = 1;
		struct fabriq_coll cl = {
			.coll = FABRIQ_COLL_ALLREDUCE, .dtype = FABRIQ_FLOAT32, .count = 1,
			.sendbuf = (uintptr_t)&x, .recvbuf = (uintptr_t)&x,
		};

		check("... and reduces with rank 0", 0, coll_raw(fd, &cl) ?: (x == 2 ? 0 : -EBADMSG));
	}
	if (read(status_fd, &r0, sizeof(r0)) != sizeof(r0))
		r0 = -EPIPE;
	check("rank 0 saw only the real rank 1: its allreduce is right", 0, r0);
	close(fd);
	close(status_fd);
	waitpid(rank0, NULL, 0);
}

static void on_alarm(int sig) { (void)sig; }


/* @channels QPs per peer (0: the default) */
static struct fabriq_comm_opts opts_channels(uint32_t channels)
{
	struct fabriq_comm_opts o;

	fabriq_comm_opts_default(&o);
	o.channels = channels;
	return o;
}

/* a rank that joins and then does nothing until killed */
static pid_t idle_rank(uint64_t id, uint32_t nranks, uint32_t rank, uint16_t port,
		       uint32_t channels)
{
	pid_t p = fork();

	if (p == 0) {
		struct fabriq_comm_opts o = opts_channels(channels);
		struct fabriq_comm *c;

		if (fabriq_comm_init(&c, id, nranks, rank, addrs3, port, &o))
			_exit(1);
		pause();
		_exit(0);
	}
	return p;
}

/*
 * A signal while rank 0 waits for a peer that never calls: with
 * @channels QPs, and @count floats, enough to have messages on each.
 */
static void test_signal(uint32_t channels, uint32_t count)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct fabriq_comm_opts o = opts_channels(channels);
	uint16_t port = 18900 + channels;
	struct fabriq_comm *c;
	pid_t peer = idle_rank(0x516 + channels, 2, 1, port, channels);
	static float buf[1 << 20];
	double t0;
	int err;

	printf("# %u channel(s), %u floats\n", channels, count);
	sigaction(SIGALRM, &sa, NULL);
	err = fabriq_comm_init(&c, 0x516 + channels, 2, 0, addrs3, port, &o);
	check("two ranks join", 0, err);
	if (!err) {
		alarm(1);
		t0 = now();
		err = fabriq_allreduce(c, buf, buf, count, FABRIQ_FLOAT32, FABRIQ_OP_SUM, NULL);
		check("signal during a wait: EINTR", -EINTR, err);
		check_true("... at once (under 3 s)", now() - t0 < 3, "the wait outlived the signal");
		err = fabriq_allreduce(c, buf, buf, count, FABRIQ_FLOAT32, FABRIQ_OP_SUM, NULL);
		check_true("the aborted communicator fails later calls", err < 0, "it did not");
		fabriq_comm_destroy(c);
	}
	kill(peer, SIGKILL);
	waitpid(peer, NULL, 0);
}

/*
 * Ranks 0 and 1 in a loop of 1 MiB allreduces over @channels QPs per
 * peer, so messages are in flight on each; rank 2 is killed under them.
 */
static void test_kill(uint32_t channels)
{
	struct fabriq_comm_opts o = opts_channels(channels);
	int pipefd[2], i, st, results[2] = { 1, 1 };
	double elapsed[2] = { 0, 0 };
	uint64_t id = 0x4111 + channels;
	uint16_t port = 19000 + channels;
	pid_t victim, survivors[2];

	printf("# %u channel(s)\n", channels);
	if (pipe(pipefd))
		return;
	victim = fork();
	if (victim == 0) {
		struct fabriq_comm *c;
		static float b[1 << 18];

		if (fabriq_comm_init(&c, id, 3, 2, addrs3, port, &o))
			_exit(1);
		for (;;)
			fabriq_allreduce(c, b, b, 1 << 18, FABRIQ_FLOAT32, FABRIQ_OP_SUM, NULL);
	}
	for (i = 0; i < 2; i++) {
		survivors[i] = fork();
		if (survivors[i] == 0) {
			struct fabriq_comm *c;
			static float b[1 << 18];
			double t0 = 0, r[2];
			int err;

			o.op_timeout_ms = 5000;
			err = fabriq_comm_init(&c, id, 3, i, addrs3, port, &o);
			while (!err) {
				t0 = now();
				err = fabriq_allreduce(c, b, b, 1 << 18, FABRIQ_FLOAT32,
						       FABRIQ_OP_SUM, NULL);
			}
			r[0] = err;
			r[1] = now() - t0;
			if (write(pipefd[1], r, sizeof(r)) != sizeof(r))
				_exit(2);
			fabriq_comm_destroy(c);
			_exit(0);
		}
	}
	sleep(3);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	for (i = 0; i < 2; i++) {
		double r[2];

		if (read(pipefd[0], r, sizeof(r)) == sizeof(r)) {
			results[i] = (int)r[0];
			elapsed[i] = r[1];
		}
		waitpid(survivors[i], &st, 0);
	}
	check_true("rank killed mid-operation: the others' calls fail",
		   results[0] < 0 && results[1] < 0, "a survivor did not see an error");
	/* the timeout counts from the last progress; 1 s grace for a closed peer */
	check_true("... within the 5 s operation timeout (+2 s slack)",
		   elapsed[0] > 0 && elapsed[0] < 7 && elapsed[1] > 0 && elapsed[1] < 7,
		   "too slow");
	printf("# survivors ended with %d and %d after %.2f s and %.2f s\n", results[0], results[1],
	       elapsed[0], elapsed[1]);
}

/*
 * Ranks that would cut a call into other messages, or pick another
 * schedule for it, cannot share one: a rank 1 whose chunk_bytes,
 * small_bytes, channels or algo differ from rank 0's is refused at once
 * with EBADE, and rank 0, to which it proved the key, fails with EBADE too
 * instead of waiting out its timeout.
 */
static void test_params(void)
{
	static const struct {
		const char *what;
		uint32_t chunk[2], small[2], channels[2];
		uint8_t algo[2];
	} cases[] = {
		{ "channels 1 against rank 0's 2", .channels = { 2, 1 } },
		{ "channels 2 against rank 0's 1", .channels = { 1, 2 } },
		{ "chunk_bytes 16 KiB against rank 0's 64 KiB", .chunk = { 65536, 16384 } },
		{ "small_bytes 64 KiB against rank 0's 4 KiB", .small = { 4096, 65536 } },
		{ "algo rd against rank 0's ring", .algo = { FABRIQ_ALGO_RING, FABRIQ_ALGO_RD } },
	};
	struct fabriq_comm_init ci[2];
	char what[128];
	int i, r, fd, status_fd, r0;
	double t0;
	pid_t rank0;

	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		for (r = 0; r < 2; r++) {
			ci[r] = good_init(2, r);
			ci[r].comm_id = 0xb0de0 + i;
			ci[r].base_port = 19200 + i;
			ci[r].connect_timeout_ms = r ? 10000 : 20000;
			ci[r].chunk_bytes = cases[i].chunk[r];
			ci[r].small_bytes = cases[i].small[r];
			ci[r].channels = cases[i].channels[r];
			ci[r].algo = cases[i].algo[r];
		}
		rank0 = listening_rank(ci[0], &status_fd);
		fd = open("/dev/fabriq", O_RDWR);
		t0 = now();
		snprintf(what, sizeof(what), "rank 1 with %s: EBADE", cases[i].what);
		check(what, -EBADE, init_raw(fd, &ci[1]));
		check_true("... at once, not at the 10 s timeout", now() - t0 < 5, "too slow");
		close(fd);
		if (read(status_fd, &r0, sizeof(r0)) != sizeof(r0))
			r0 = -EPIPE;
		check("... and rank 0 fails with EBADE too", -EBADE, r0);
		close(status_fd);
		waitpid(rank0, NULL, 0);
	}
}

int main(void)
{
	printf("TAP version 13\n1..85\n");
	addr(0, "198.19.0.1");
	addr(1, "198.19.0.2");
	addr(2, "198.19.0.3");
	test_init();
	test_coll();
	test_timeout();
	test_auth();
	test_params();
	test_signal(1, 256);
	test_signal(FABRIQ_MAX_CHANNELS, 1 << 20);
	test_kill(1);
	test_kill(FABRIQ_MAX_CHANNELS);
	return tap_totals();
}
