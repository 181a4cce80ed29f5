// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_limits.c - what a local user can make /dev/fabriq hold is bounded:
 * timeouts and connections per communicator, communicators per user,
 * pinned pages against RLIMIT_MEMLOCK (with libfabriq's message), no
 * long-term write pin of a file's shared mapping, the traffic class only
 * with CAP_NET_ADMIN, and a communicator lives in its opener's network
 * namespace.  Work inside the limits still completes.
 *
 * Runs as root; the unprivileged cases run in a child as nobody.  Rank
 * addresses are lib.sh's 198.19.0.1-2 (fq_ranks_up 2); RAMFS: a ramfs
 * mount point (a filesystem whose files are not shmem).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tools/lib/libfabriq.h"
#include "fq_tap.h"

#define PARAMS	"/sys/module/fabriq/parameters/"
#define MIB	(1024 * 1024)

static struct fabriq_addr A[2];

static void set_param(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
}

static struct fabriq_comm_init one_rank(uint16_t port)
{
	struct fabriq_comm_init ci = {
		.comm_id = 0x1111, .nranks = 1, .rank = 0, .addrs = (uintptr_t)A,
		.base_port = port,
	};

	return ci;
}

/* COMM_INIT on a fresh fd; returns the fd (>= 0) or -errno */
static int comm_open(struct fabriq_comm_init *ci)
{
	int fd = open("/dev/fabriq", O_RDWR), err;

	if (fd < 0)
		return -errno;
	if (!ioctl(fd, FABRIQ_IOC_COMM_INIT, ci))
		return fd;
	err = -errno;
	close(fd);
	return err;
}

static int comm_try(struct fabriq_comm_init *ci)
{
	int fd = comm_open(ci);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static long vm_pinned_kib(void)
{
	long kib = -1;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static void test_bounds(void)
{
	struct fabriq_comm_init ci;

	ci = one_rank(19501);
	ci.op_timeout_ms = 600001;
	check("op_timeout_ms above max_op_timeout_ms (600000): EINVAL", -EINVAL, comm_try(&ci));
	ci = one_rank(19501);
	ci.connect_timeout_ms = 600001;
	check("connect_timeout_ms above max_op_timeout_ms: EINVAL", -EINVAL, comm_try(&ci));
	ci = one_rank(19501);
	ci.op_timeout_ms = 600000;
	check("op_timeout_ms 600000 is taken", 0, comm_try(&ci));
	set_param("max_conns_per_comm", "8");
	ci = one_rank(19501);
	ci.nranks = 4;
	ci.channels = 4;
	check("15 connections (12 data, 3 control) with max_conns_per_comm 8: EINVAL", -EINVAL, comm_try(&ci));
	set_param("max_conns_per_comm", "4096");
}

/* kernel threads: the children of kthreadd (PPid 2), kthreadd aside */
static int kernel_threads(void)
{
	char path[300], line[128];
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir("/proc");
	FILE *f;

	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "PPid:", 5)) {
				n += atoi(line + 5) == 2;
				break;
			}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return n;
}

/* 48 idle communicators hold no thread each (the engine is a work item) */
static void test_idle_threads(void)
{
	struct fabriq_comm_init ci = one_rank(19600);
	int fd[48], i, before, after, opened = 0;

	before = kernel_threads();
	for (i = 0; i < 48; i++) {
		ci.base_port = 19600 + i;
		fd[i] = comm_open(&ci);
		opened += fd[i] >= 0;
	}
	after = kernel_threads();
	printf("# kernel threads: %d before, %d with %d idle communicators\n", before, after,
	       opened);
	check_true("48 idle communicators hold no kernel thread each",
		   opened == 48 && after - before < 24, "one thread per communicator");
	for (i = 0; i < 48; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* the unprivileged half: in a child, as nobody */
static void as_nobody(void)
{
	struct fabriq_comm_init ci;
	int fd[3], i;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		printf("Bail out! cannot become nobody\n");
		exit(1);
	}
	ci = one_rank(19510);
	ci.flags = FABRIQ_COMM_F_TCLASS;
	ci.tclass = 96;
	check("nobody: FABRIQ_COMM_F_TCLASS without CAP_NET_ADMIN: EPERM", -EPERM,
	      comm_try(&ci));
	for (i = 0; i < 3; i++) {
		ci = one_rank(19511 + i);
		fd[i] = comm_open(&ci);
	}
	check("nobody: the first of max_comms_per_user 2", 1, fd[0] >= 0);
	check("nobody: the second", 1, fd[1] >= 0);
	check("nobody: a third: EMFILE", -EMFILE, fd[2] >= 0 ? 0 : fd[2]);
	for (i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	ci = one_rank(19511);
	check("nobody: closing one makes room again", 0, comm_try(&ci));
}

/* RLIMIT_MEMLOCK, through libfabriq as an application sees it */
static void memlock_as_nobody(void)
{
	const char *peer[] = { "198.19.0.1" };
	struct rlimit rl = { 64 * 1024, 64 * 1024 };
	struct fabriq_req req[8];
	struct fabriq_comm *c;
	float *s, *r;
	int err, i, n, bad = 0;
	size_t count = 16 * MIB / sizeof(float);

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534) || setrlimit(RLIMIT_MEMLOCK, &rl)) {
		printf("Bail out! cannot become nobody with ulimit -l 64\n");
		exit(1);
	}
	err = fabriq_comm_init(&c, 0x2222, 1, 0, peer, 19520, NULL);
	check("nobody, ulimit -l 64: a communicator", 0, err);
	if (err)
		exit(1);
	s = malloc(16 * MIB);
	r = malloc(16 * MIB);
	memset(s, 0, 16 * MIB);
	err = fabriq_allreduce(c, s, r, count, FABRIQ_FLOAT32, FABRIQ_OP_SUM, NULL);
	check("a 16 MiB allreduce over the memlock limit: ENOMEM", -ENOMEM, err);
	check_true("... libfabriq says why: RLIMIT_MEMLOCK (ulimit -l) too low: need N KiB",
		   strstr(fabriq_strerror(c, err),
			  "RLIMIT_MEMLOCK (ulimit -l) too low: need 32") != NULL,
		   fabriq_strerror(c, err));
	check("... nothing stays pinned (VmPin)", 0, (int)vm_pinned_kib());
	/* within the limit: 16 KiB in + 16 KiB out, pinned (asynchronous) */
	for (i = 0; i < 4096; i++)
		s[i] = i;
	n = 0;
	for (i = 0; i < 8; i++) {
		err = fabriq_allreduce(c, s, r + i * 4096, 4096, FABRIQ_FLOAT32, FABRIQ_OP_SUM,
				       &req[n]);
		if (err)
			break;
		n++;
	}
	check_true("async calls within the limit are queued until the limit is reached",
		   n >= 1 && (n == 8 || err == -ENOMEM), fabriq_strerror(c, err));
	for (i = 0; i < n; i++)
		bad += fabriq_wait(c, &req[i]) != 0;
	for (i = 0; i < n * 4096; i++)
		bad += r[i] != (float)(i % 4096);
	check("... and each of them completes with the right data", 0, bad);
	/* the registration cache keeps their buffers pinned, inside the limit */
	check_true("... the cache keeps what they pinned, within the limit (VmPin <= 64 kB)",
		   vm_pinned_kib() > 0 && vm_pinned_kib() <= 64, "VmPin out of (0, 64] kB");
	fabriq_comm_destroy(c);
	check("... and the communicator's end unpins it (VmPin)", 0, (int)vm_pinned_kib());
}

/* @flags/@fd as for mmap; 0 or -errno of a one-rank allreduce into (or from) it */
static int allreduce_on(int fd, int flags, bool into)
{
	struct fabriq_comm_init ci = one_rank(19530);
	size_t len = 1 * MIB;
	struct fabriq_coll c = {
		.coll = FABRIQ_COLL_ALLREDUCE, .dtype = FABRIQ_FLOAT32, .redop = FABRIQ_OP_SUM,
		.count = len / sizeof(float),
	};
	void *map, *plain = malloc(len);
	int cfd = comm_open(&ci), err;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (cfd < 0 || map == MAP_FAILED || !plain) {
		printf("# setup failed: %d %s\n", cfd, strerror(errno));
		return -ENOSYS;
	}
	memset(map, 0, len);
	memset(plain, 0, len);
	c.sendbuf = (uintptr_t)(into ? plain : map);
	c.recvbuf = (uintptr_t)(into ? map : plain);
	err = ioctl(cfd, FABRIQ_IOC_COLL, &c) ? -errno : 0;
	munmap(map, len);
	free(plain);
	close(cfd);
	return err;
}

static void test_file_pins(const char *ramfs)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/buf", ramfs);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, MIB)) {
		printf("Bail out! cannot create %s\n", path);
		exit(1);
	}
	check("receive into a shared mapping of a file (ramfs): EOPNOTSUPP", -EOPNOTSUPP,
	      allreduce_on(fd, MAP_SHARED, true));
	check("send from it (a read pin) works", 0, allreduce_on(fd, MAP_SHARED, false));
	check("receive into a private mapping of it works", 0, allreduce_on(fd, MAP_PRIVATE, true));
	close(fd);
	fd = memfd_create("fabriq", 0);
	if (fd < 0 || ftruncate(fd, MIB)) {
		printf("Bail out! memfd_create\n");
		exit(1);
	}
	check("receive into a shared memfd (shmem) works", 0, allreduce_on(fd, MAP_SHARED, true));
	close(fd);
	check("receive into MAP_SHARED|MAP_ANONYMOUS works", 0,
	      allreduce_on(-1, MAP_SHARED | MAP_ANONYMOUS, true));
	unlink(path);
}

/* a process in a fresh network namespace cannot use the host's addresses */
static void in_new_netns(void)
{
	struct fabriq_comm_init ci = {
		.comm_id = 0x3333, .nranks = 2, .rank = 0, .addrs = (uintptr_t)A,
		.base_port = 19540, .connect_timeout_ms = 5000,
		.key = (uintptr_t)"a key for the netns test, 32 byt", .key_len = 32,
	};
	double t0;
	int err;

	if (unshare(CLONE_NEWNET)) {
		printf("Bail out! unshare(CLONE_NEWNET): %s\n", strerror(errno));
		exit(1);
	}
	t0 = now();
	err = comm_try(&ci);
	check_true("fresh netns: rank 0 on the host's 198.19.0.1 is refused at once",
		   (err == -EADDRNOTAVAIL || err == -ENODEV) && now() - t0 < 2,
		   strerror(-err));
}

/* Run @fn in a child; its checks count as ours (numbered on from ours). */
static void in_child(void (*fn)(void), int nchecks)
{
	int p[2], got[2] = { t + nchecks, fails + nchecks }, st;
	pid_t pid;

	fflush(stdout);
	if (pipe(p)) {
		printf("Bail out! pipe\n");
		exit(1);
	}
	pid = fork();
	if (!pid) {
		close(p[0]);
		fn();
		got[0] = t;
		got[1] = fails;
		if (write(p[1], got, sizeof(got)) != sizeof(got))
			exit(2);
		exit(0);
	}
	close(p[1]);
	/* a child that died counts all its checks as failed */
	if (read(p[0], got, sizeof(got)) != sizeof(got))
		printf("# the child of %d checks died\n", nchecks);
	close(p[0]);
	waitpid(pid, &st, 0);
	t = got[0];
	fails = got[1];
}

/*
 * --flood, run by fabriq_limits.sh inside a small memory cgroup: rank 1
 * joins and then waits, so rank 0's async reducescatters of 16 MiB per
 * rank queue up, each holding a 32 MiB kernel work buffer charged to the
 * cgroup, until the cgroup's limit refuses one.  Prints how far it got.
 */
static int flood(void)
{
	static const char *const peers[] = { "198.19.0.1", "198.19.0.2" };
	size_t count = (16 << 20) / sizeof(float);
	struct fabriq_req req[FABRIQ_MAX_INFLIGHT];
	struct fabriq_comm *c;
	float *in, *out;
	int i, err = 0;
	pid_t peer;

	in = mmap(NULL, 2 * count * sizeof(float), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	out = mmap(NULL, count * sizeof(float), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (in == MAP_FAILED || out == MAP_FAILED)
		return 2;
	peer = fork();
	if (!peer) {
		if (!fabriq_comm_init(&c, 0xf100d, 2, 1, peers, 19650, NULL))
			sleep(120);
		_exit(0);
	}
	err = fabriq_comm_init(&c, 0xf100d, 2, 0, peers, 19650, NULL);
	if (err) {
		printf("flood: cannot join: %s\n", strerror(-err));
		kill(peer, SIGKILL);
		return 1;
	}
	for (i = 0; i < FABRIQ_MAX_INFLIGHT; i++) {
		err = fabriq_reducescatter(c, in, out, count, FABRIQ_FLOAT32, FABRIQ_OP_SUM, &req[i]);
		if (err)
			break;
	}
	printf("flood: queued %d, then %s\n", i, err ? strerrorname_np(-err) : "nothing refused");
	fflush(stdout);
	kill(peer, SIGKILL);
	waitpid(peer, NULL, 0);
	fabriq_comm_destroy(c);
	return err == -ENOMEM && i > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *ramfs = argc > 1 ? argv[1] : "/mnt/fabriq-ramfs";

	if (argc > 1 && !strcmp(argv[1], "--flood"))
		return flood();

	printf("TAP version 13\n1..24\n");
	memset(A, 0, sizeof(A));
	A[0].family = AF_INET;
	inet_pton(AF_INET, "198.19.0.1", A[0].addr);
	A[1].family = AF_INET;
	inet_pton(AF_INET, "198.19.0.2", A[1].addr);

	test_bounds();
	test_idle_threads();
	set_param("max_comms_per_user", "2");
	in_child(as_nobody, 5);
	set_param("max_comms_per_user", "64");
	in_child(memlock_as_nobody, 7);
	test_file_pins(ramfs);
	in_child(in_new_netns, 1);
	return tap_totals();
}
