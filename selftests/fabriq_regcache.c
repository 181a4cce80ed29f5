// SPDX-License-Identifier: GPL-2.0
/*
 * fabriq_regcache.c - the registration cache (kernel/coll/regcache.c)
 * against everything that can make a cached buffer stale.
 *
 * Two ranks (forked; 198.19.0.1 and .2, lib.sh fq_ranks_up) run the same
 * allreduces of 1 MiB and more, so every call pins (no kernel copy), each
 * result compared bit for bit with the sum of both ranks' known inputs:
 * a buffer reused with new contents, freed and mapped again at the same
 * address, a fork in between, transparent and hugetlb huge pages, an
 * unaligned start and end, in place, explicitly registered (and that
 * registration made stale, a read-only one too, which a call may not
 * then write into),
 * and a cache full of registrations.  The
 * cache's own counters (debugfs comms/<id>-r<rank>/regcache) show which
 * calls pinned and which were served, and which entries the engine has
 * mapped for the device (once, at their first zero-copy send; a wrong
 * address in that mapping fails the bit-exact checks).  One TAP line per check, both
 * ranks' verdicts in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tools/lib/libfabriq.h"
#include "fq_tap.h"

#define NR		2
#define MAXCHK		40
#define NCHECKS		33	/* what each rank reports */
#define COMM_ID		0x7e9c
#define MIB		(1024 * 1024)
#define HUGE_SZ		(2 * MIB)

struct verdicts {
	int n;
	int ok[MAXCHK];
	char desc[MAXCHK][120];
	char why[MAXCHK][160];
};

static struct verdicts *verdicts;	/* shared: one per rank */
static int rank;
static struct fabriq_comm *comm;

static void verdict(int ok, const char *desc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verdict(int ok, const char *desc, const char *fmt, ...)
{
	struct verdicts *v = &verdicts[rank];
	va_list ap;

	if (v->n >= MAXCHK)
		return;
	v->ok[v->n] = ok;
	snprintf(v->desc[v->n], sizeof(v->desc[0]), "%s", desc);
	va_start(ap, fmt);
	vsnprintf(v->why[v->n], sizeof(v->why[0]), fmt, ap);
	va_end(ap);
	v->n++;
}

/* rank @r's element @i in round @round */
static uint32_t input(int r, unsigned int round, size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ (round * 40503u + r * 7919u);
}

/*
 * An allreduce (sum) of @n elements from @in into @out (the same: in
 * place), filled for @round first.  Return: 0, wrong elements, or -errno.
 */
static long allreduce(uint32_t *in, uint32_t *out, size_t n, unsigned int round)
{
	long wrong = 0;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		in[i] = input(rank, round, i);
	err = fabriq_allreduce(comm, in, out, n, FABRIQ_UINT32, FABRIQ_OP_SUM, NULL);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		wrong += out[i] != input(0, round, i) + input(1, round, i);
	return wrong;
}

struct counters {
	unsigned long long hits, misses, invalidations;
	unsigned int entries;
};

static FILE *regcache_file(void)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/fabriq/comms/%x-r%d/regcache", COMM_ID,
		 rank);
	return fopen(path, "r");
}

static struct counters counters(void)
{
	struct counters c = { 0 };
	FILE *f = regcache_file();

	if (f) {
		if (fscanf(f, "entries %u max %*u hits %llu misses %llu invalidations %llu",
			   &c.entries, &c.hits, &c.misses, &c.invalidations) != 4)
			c.hits = c.misses = ~0ull;
		fclose(f);
	}
	return c;
}

/* entries whose pages are mapped for the device (-1: no regcache file) */
static int dma_mapped_entries(void)
{
	FILE *f = regcache_file();
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, " dma-mapped") != NULL;
	fclose(f);
	return n;
}

/* one allreduce checked for bits and for what the cache did */
static void check_call(const char *desc, uint32_t *in, uint32_t *out, size_t n,
		       unsigned int round, int want_misses)
{
	struct counters a = counters(), b;
	long r = allreduce(in, out, n, round);

	b = counters();
	if (want_misses < 0)
		verdict(r == 0, desc, "result %ld (0: bit-exact, >0: wrong elements, <0: -errno)", r);
	else
		verdict(r == 0 && b.misses - a.misses == (unsigned int)want_misses, desc,
			"result %ld; %llu pinned, %llu served (%d pinned expected)", r,
			b.misses - a.misses, b.hits - a.hits, want_misses);
}

static void *map(size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* @p unmapped and mapped again at the same address: new, zeroed pages */
static int remap(void *p, size_t len)
{
	return munmap(p, len) || mmap(p, len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p;
}

/* a "NAME: N kB" line of a /proc/self file */
static unsigned long proc_kib(const char *file, const char *fmt)
{
	unsigned long kib = 0;
	char line[128];
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static unsigned long anon_huge_kib(void)
{
	return proc_kib("/proc/self/smaps_rollup", "AnonHugePages: %lu kB");
}

static unsigned long vm_pinned_kib(void)
{
	return proc_kib("/proc/self/status", "VmPin: %lu kB");
}

static void huge_pages(void)
{
	const size_t n = HUGE_SZ / 4;	/* 2 MiB, from the middle of one huge page into the next */
	char *a = map(4 * HUGE_SZ, 0), *b = map(4 * HUGE_SZ, 0);
	uint32_t *in, *out;
	char why[160];

	if (!a || !b) {
		verdict(0, "transparent huge pages", "mmap: %s", strerror(errno));
		return;
	}
	in = (uint32_t *)(((uintptr_t)a + HUGE_SZ - 1) / HUGE_SZ * HUGE_SZ + MIB);
	out = (uint32_t *)(((uintptr_t)b + HUGE_SZ - 1) / HUGE_SZ * HUGE_SZ + MIB);
	madvise((char *)in - MIB, 2 * HUGE_SZ, MADV_HUGEPAGE);
	madvise((char *)out - MIB, 2 * HUGE_SZ, MADV_HUGEPAGE);
	memset((char *)in - MIB, 1, 2 * HUGE_SZ);
	memset((char *)out - MIB, 1, 2 * HUGE_SZ);
	snprintf(why, sizeof(why), "a buffer across two transparent huge pages (%lu KiB of them mapped)",
		 anon_huge_kib());
	check_call(why, in, out, n, 40, 2);
	check_call("... and again, served from the cache", in, out, n, 41, 0);
	munmap(a, 4 * HUGE_SZ);
	munmap(b, 4 * HUGE_SZ);

	a = map(2 * HUGE_SZ, MAP_HUGETLB);
	b = map(2 * HUGE_SZ, MAP_HUGETLB);
	if (!a || !b) {
		verdict(0, "hugetlb pages", "mmap(MAP_HUGETLB): %s (vm.nr_hugepages too low?)",
			strerror(errno));
		return;
	}
	check_call("a buffer across two hugetlb pages", (uint32_t *)(a + MIB),
		   (uint32_t *)(b + MIB), n, 42, 2);
	check_call("... and again, served from the cache", (uint32_t *)(a + MIB),
		   (uint32_t *)(b + MIB), n, 43, 0);
	munmap(a, 2 * HUGE_SZ);
	munmap(b, 2 * HUGE_SZ);
}

/* the module's max_regs_per_comm, set by rank 0 while both ranks wait */
static void set_max_regs(const char *value)
{
	FILE *f;

	fabriq_barrier(comm, NULL);
	if (rank == 0) {
		f = fopen("/sys/module/fabriq/parameters/max_regs_per_comm", "w");
		if (f) {
			fprintf(f, "%s\n", value);
			fclose(f);
		}
	}
	fabriq_barrier(comm, NULL);
}

/*
 * A buffer registered read-only (for sending: the process may not write
 * it), whose memory is then replaced by a file's pages, mapped private
 * and still read-only.  A call that would write its result there must
 * fail as it would on any memory the process may not write (EFAULT),
 * though the registration's handle lives on; pinned for reading as the
 * old registration was, the kernel would write into read-only memory,
 * and maybe into the file's own page cache.
 */
static void file_under_registration(uint32_t *in, size_t n)
{
	const char *desc = "... and a call that would write its result there: EFAULT, the file untouched";
	size_t len = n * 4, i, changed = 0;
	unsigned char *back = malloc(len);
	int fd = memfd_create("fq-private", 0), err = 0;
	uint32_t h;
	void *ro;

	ro = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!back || fd < 0 || ro == MAP_FAILED)
		err = -errno;
	if (!err) {
		memset(back, 0x5a, len);
		err = pwrite(fd, back, len, 0) == (ssize_t)len ? 0 : -EIO;
	}
	err = err ?: fabriq_comm_register(comm, ro, len, &h);
	if (!err && mmap(ro, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) != ro)
		err = -errno;
	verdict(!err, "a buffer registered read-only is mapped again: a file's pages, private, read-only",
		"%s", strerror(-err));
	if (!err) {
		long r = allreduce(in, ro, n, 54);

		if (pread(fd, back, len, 0) != (ssize_t)len)
			changed = len;
		for (i = 0; i < len && !changed; i++)
			changed += back[i] != 0x5a;
		verdict(r == -EFAULT && !changed, desc,
			"result %ld (-14: EFAULT); %zu bytes of the file changed", r, changed);
		fabriq_comm_deregister(comm, h);
	} else {
		verdict(0, desc, "not run");
	}
	if (ro != MAP_FAILED)
		munmap(ro, len);
	if (fd >= 0)
		close(fd);
	free(back);
}

static void registrations(uint32_t *in, uint32_t *out, size_t n)
{
	size_t len = n * 4;
	uint32_t hin, hout, h[3];
	void *ro;
	int err, i;

	err = fabriq_comm_register(comm, in, len, &hin) ?: fabriq_comm_register(comm, out, len, &hout);
	verdict(!err, "FABRIQ_IOC_REG registers both buffers", "%s", strerror(-err));
	check_call("a call on registered buffers pins nothing", in, out, n, 50, 0);
	err = fabriq_comm_deregister(comm, hin) ?: fabriq_comm_deregister(comm, hout);
	verdict(!err, "FABRIQ_IOC_DEREG gives both back", "%s", strerror(-err));
	err = fabriq_comm_deregister(comm, hin);
	verdict(err == -ENOENT, "a handle given back twice: ENOENT", "%s", strerror(-err));
	err = fabriq_comm_register(comm, in, 0, &hin);
	verdict(err == -EINVAL, "registering 0 bytes: EINVAL", "%s", strerror(-err));
	err = fabriq_comm_register(comm, (void *)4096, len, &hin);
	verdict(err == -EFAULT, "registering unmapped memory: EFAULT", "%s", strerror(-err));

	/* a registration whose memory is unmapped and mapped again is never served */
	err = fabriq_comm_register(comm, in, len, &hin);
	if (!err && remap(in, len))
		err = -errno;
	verdict(!err, "a registered buffer is unmapped and mapped again", "%s", strerror(-err));
	check_call("... and the call uses the new pages, not the registered ones", in, out, n, 51,
		   -1);
	check_call("... which it registered again under the same handle: nothing pinned", in, out,
		   n, 52, 0);
	err = fabriq_comm_deregister(comm, hin);
	verdict(!err, "... which is given back", "%s", strerror(-err));

	/* memory the process may not write registers for sending */
	ro = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	err = ro == MAP_FAILED ? -errno : fabriq_comm_register(comm, ro, len, &h[0]);
	if (!err)
		err = fabriq_comm_deregister(comm, h[0]);
	verdict(!err, "read-only memory registers (for sending) and is given back", "%s",
		strerror(-err));
	if (ro != MAP_FAILED)
		munmap(ro, len);

	file_under_registration(in, n);

	/* a cache of max_regs_per_comm (2 here) registrations has no room for a third */
	set_max_regs("2");
	err = fabriq_comm_register(comm, in, len / 4, &h[0]) ?:
	      fabriq_comm_register(comm, out, len / 4, &h[1]);
	verdict(!err, "with max_regs_per_comm 2, two buffers register", "%s", strerror(-err));
	err = fabriq_comm_register(comm, (char *)in + len / 2, len / 4, &h[2]);
	verdict(err == -ENOSPC, "... a third: ENOSPC", "%s", strerror(-err));
	check_call("... and a call on other buffers still works, uncached", in + n / 2,
		   out + n / 2, n / 2, 53, -1);
	for (i = 0; i < 2; i++)
		fabriq_comm_deregister(comm, h[i]);
	set_max_regs("64");
}

static void rank_main(const char *const *addrs)
{
	const size_t n = 256 * 1024;	/* 1 MiB of uint32 */
	const size_t len = n * 4;
	uint32_t *in = map(len, 0), *out = map(len, 0);
	struct counters c0, c1;
	char *base;
	pid_t child;
	int err, st;

	err = fabriq_comm_init(&comm, COMM_ID, NR, rank, addrs, 19560, NULL);
	if (err || !in || !out) {
		verdict(0, "the communicator", "%s", strerror(-err));
		return;
	}
	check_call("a first call pins both buffers", in, out, n, 1, 2);
	check_call("the same buffers written again: served from the cache, bit-exact", in, out, n,
		   2, 0);
	c0 = counters();
	err = dma_mapped_entries();
	verdict(err >= 1 && err <= (int)c0.entries,
		"the cached buffers zero-copy sends read are mapped for the device, once",
		"%d of %u entries dma-mapped", err, c0.entries);

	c0 = counters();
	err = remap(in, len) || remap(out, len);
	c1 = counters();
	verdict(!err && c1.invalidations > c0.invalidations,
		"munmap and mmap at the same address invalidate the entries",
		"remap %d; invalidations %llu -> %llu", err, c0.invalidations, c1.invalidations);
	check_call("... and the next call pins the new pages, bit-exact", in, out, n, 3, 2);

	/* a child sharing the file: its buffers are its own, it may not register */
	child = fork();
	if (child == 0) {
		uint32_t h;
		int reg_err;
		long r;

		memset(in, 0xee, len);	/* the child's copies, not the parent's */
		memset(out, 0xee, len);
		reg_err = fabriq_comm_register(comm, in, len, &h);
		r = allreduce(in, out, n, 60);
		_exit(reg_err == -EPERM && r == 0 ? 0 : 1);
	}
	waitpid(child, &st, 0);
	verdict(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		"a forked child on the same communicator: REG refused (EPERM), its call bit-exact",
		"child wait status %#x", st);
	check_call("after a fork whose child wrote its copies: bit-exact", in, out, n, 4, -1);
	check_call("... and again", in, out, n, 5, -1);

	base = map(2 * len + 8192, 0);
	check_call("an unaligned start and end (offsets 148 and 4004, 1 MiB + 4 B)",
		   (uint32_t *)(base + 148), (uint32_t *)(base + len + 4004 + 4096), n + 1, 6, 2);
	check_call("... and again, served from the cache", (uint32_t *)(base + 148),
		   (uint32_t *)(base + len + 4004 + 4096), n + 1, 7, 0);
	munmap(base, 2 * len + 8192);

	check_call("in place", out, out, n, 8, -1);
	check_call("... and again, bit-exact, nothing pinned", out, out, n, 9, 0);

	huge_pages();
	registrations(in, out, n);

	fabriq_comm_destroy(comm);
	verdict(vm_pinned_kib() == 0, "after destroy nothing of the process is pinned (VmPin 0)",
		"VmPin %lu kB", vm_pinned_kib());
}

int main(int argc, char **argv)
{
	const char *addrs[NR] = { "198.19.0.1", "198.19.0.2" };
	pid_t pids[NR];
	int i, r, st[NR];

	verdicts = mmap(NULL, NR * sizeof(*verdicts), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (verdicts == MAP_FAILED)
		return 2;
	for (r = 0; r < NR; r++) {
		pids[r] = fork();
		if (pids[r] == 0) {
			rank = r;
			rank_main(addrs);
			_exit(0);
		}
	}
	printf("1..%d\n", NCHECKS + 1);
	for (r = 0; r < NR; r++)
		waitpid(pids[r], &st[r], 0);
	for (i = 0; i < NCHECKS; i++) {
		char why[400];

		snprintf(why, sizeof(why), "rank 0: %s; rank 1: %s",
			 i < verdicts[0].n ? verdicts[0].why[i] : "(never got there)",
			 i < verdicts[1].n ? verdicts[1].why[i] : "(never got there)");
		check_true(i < verdicts[0].n ? verdicts[0].desc[i] : "(a check not reached)",
			   i < verdicts[0].n && verdicts[0].ok[i] && i < verdicts[1].n &&
			   verdicts[1].ok[i], why);
	}
	check_true("both ranks ran every check and exited 0",
		   verdicts[0].n == NCHECKS && verdicts[1].n == NCHECKS &&
		   WIFEXITED(st[0]) && !WEXITSTATUS(st[0]) && WIFEXITED(st[1]) && !WEXITSTATUS(st[1]),
		   "a rank stopped early or ran a different list");
	return tap_totals();
}
