/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libfabriq - collectives offloaded into the kernel (/dev/fabriq).
 *
 * One struct fabriq_comm per communicator.  Every call returns 0 or a
 * negative errno.  Passing a struct fabriq_req makes a call asynchronous:
 * it returns once the kernel has queued it, and fabriq_test()/fabriq_wait()
 * report its completion; a NULL req waits for the result.
 */
#ifndef _LIBFABRIQ_H
#define _LIBFABRIQ_H

#include <stddef.h>
#include <stdint.h>
#include <linux/fabriq.h>

struct fabriq_comm;

struct fabriq_comm_opts {
	uint8_t algo;			/* enum fabriq_algo; 0: by size */
	int tclass;			/* -1: the port's tc intent */
	uint32_t chunk_bytes;		/* 0: kernel default */
	uint32_t channels;		/* 0: 1 */
	uint32_t connect_timeout_ms;	/* 0: 30 s */
	uint32_t op_timeout_ms;		/* 0: 30 s */
	uint32_t small_bytes;		/* 0: kernel default */
	int bounce;			/* 1: copy sends through slots (no zero-copy) */
	const uint8_t *key;		/* the job's secret, the same on every rank; */
	uint32_t key_len;		/* NULL/0: FABRIQ_KEY (hex) from the environment */
	uint32_t peer_timeout_ms;	/* a dead peer is found within this; 0: 5 s */
};

struct fabriq_req {
	uint64_t seq;
	int done;
	int status;
	uint64_t ns;
};

void fabriq_comm_opts_default(struct fabriq_comm_opts *o);
/*
 * A communicator of more than one rank needs a key that every rank gives
 * and nobody else knows: the launcher draws one (fabriq_key_generate) and
 * hands it to the ranks as it hands them the id, for example as
 * FABRIQ_KEY, FABRIQ_KEY_MIN..FABRIQ_KEY_MAX bytes in hex.  Without one,
 * fabriq_comm_init() fails with -ENOKEY; with a key the peers do not
 * share, with -EKEYREJECTED; connecting to a peer whose fabriq (wire
 * version 4 or later) speaks another version of the connect handshake,
 * with -EPROTONOSUPPORT; with a peer given another algo, chunk_bytes,
 * channels or small_bytes (every rank must give the same), with -EBADE.
 */
int fabriq_key_generate(uint8_t *key, size_t len);
int fabriq_key_parse(const char *hex, uint8_t *key, size_t max);	/* bytes or -EINVAL */
int fabriq_comm_init(struct fabriq_comm **comm, uint64_t id, uint32_t nranks, uint32_t rank,
		     const char *const *addrs, uint16_t base_port,
		     const struct fabriq_comm_opts *opts);
int fabriq_comm_init_env(struct fabriq_comm **comm, uint64_t id,
			 const struct fabriq_comm_opts *opts);
void fabriq_comm_destroy(struct fabriq_comm *comm);
int fabriq_comm_fd(const struct fabriq_comm *comm);
uint32_t fabriq_comm_rank(const struct fabriq_comm *comm);
uint32_t fabriq_comm_nranks(const struct fabriq_comm *comm);

/*
 * Register @len bytes at @buf with @c, as ncclCommRegister does: pinned
 * now (charged to RLIMIT_MEMLOCK) for every later call that uses them,
 * until fabriq_comm_deregister().  Calls cache the buffers they use
 * anyway; a registered one is never evicted, and its first call pins
 * nothing.  -ENOSPC when the module's max_regs_per_comm are registered.
 */
int fabriq_comm_register(struct fabriq_comm *c, const void *buf, size_t len, uint32_t *handle);
int fabriq_comm_deregister(struct fabriq_comm *c, uint32_t handle);	/* 0 or -ENOENT */

/* one call per collective; count as NCCL counts it */
int fabriq_allreduce(struct fabriq_comm *c, const void *sendbuf, void *recvbuf, size_t count,
		     int dtype, int op, struct fabriq_req *req);
int fabriq_allgather(struct fabriq_comm *c, const void *sendbuf, void *recvbuf, size_t count,
		     int dtype, struct fabriq_req *req);
int fabriq_reducescatter(struct fabriq_comm *c, const void *sendbuf, void *recvbuf,
			 size_t count, int dtype, int op, struct fabriq_req *req);
int fabriq_broadcast(struct fabriq_comm *c, const void *sendbuf, void *recvbuf, size_t count,
		     int dtype, uint32_t root, struct fabriq_req *req);
int fabriq_reduce(struct fabriq_comm *c, const void *sendbuf, void *recvbuf, size_t count,
		  int dtype, int op, uint32_t root, struct fabriq_req *req);
int fabriq_barrier(struct fabriq_comm *c, struct fabriq_req *req);
int fabriq_alltoall(struct fabriq_comm *c, const void *sendbuf, void *recvbuf, size_t count,
		    int dtype, struct fabriq_req *req);
/*
 * the general form: every field of struct fabriq_coll; with @req it does
 * not wait (FABRIQ_COLL_F_ASYNC is set in @coll->flags), without, it does
 * (the flag is cleared)
 */
int fabriq_coll(struct fabriq_comm *c, struct fabriq_coll *coll, struct fabriq_req *req);

/*
 * The error of the last call on @c, explained where the kernel's errno
 * alone would mislead: -ENOMEM over RLIMIT_MEMLOCK ("RLIMIT_MEMLOCK
 * (ulimit -l) too low: need N KiB, ..."); otherwise strerror(-err).
 */
const char *fabriq_strerror(const struct fabriq_comm *c, int err);

int fabriq_test(struct fabriq_comm *c, struct fabriq_req *req);	/* 1 done, 0 not yet */
int fabriq_wait(struct fabriq_comm *c, struct fabriq_req *req);	/* the call's status */

/*
 * This host's RDMA devices (ports.c): fabriq_dev_list() fills @names with
 * at most @max of them, in name order (fqr2 before fqr10), and returns
 * how many (0 without any), or -errno.  fabriq_dev_ipv4() writes the IPv4
 * address of the netdev behind @dev's first active port into @addr (and
 * that netdev's name into @netdev, unless NULL): 0, or -ENODEV (no such
 * device), -ENETDOWN (no active port), -EADDRNOTAVAIL (no netdev or no
 * IPv4 address on it), -ENOSPC (a buffer too small), -EINVAL.
 */
int fabriq_dev_list(char (*names)[FABRIQ_DEV_NAME_MAX], int max);
int fabriq_dev_ipv4(const char *dev, char *addr, size_t addrlen, char *netdev, size_t netdevlen);

/* names as nccl-tests spells them; -1 / NULL when unknown */
int fabriq_dtype_parse(const char *name);
const char *fabriq_dtype_name(int dtype);
size_t fabriq_dtype_size(int dtype);
int fabriq_op_parse(const char *name);
const char *fabriq_op_name(int op);
int fabriq_coll_parse(const char *name);
const char *fabriq_coll_name(int coll);
int fabriq_algo_parse(const char *name);
const char *fabriq_algo_name(int algo);

/*
 * Verifiable data (verify.c), as nccl-tests has it: inputs every rank can
 * recompute for every other rank, so each rank checks its own output bit
 * for bit without exchanging anything.  Values are small integers, so
 * every type and op has one exact answer (avg: the exact sum divided in
 * the type's precision, as the kernel does).  Counts as fabriq_coll has them.
 */
void fabriq_verify_lens(int coll, size_t count, uint32_t nranks, size_t *inlen, size_t *outlen);
void fabriq_verify_input(int dtype, int op, uint32_t rank, size_t nelems, void *buf);
void fabriq_verify_expected(int coll, int dtype, int op, uint32_t rank, uint32_t nranks,
			    uint32_t root, size_t count, void *buf);
size_t fabriq_verify_check(int coll, int dtype, int op, uint32_t rank, uint32_t nranks,
			   uint32_t root, size_t count, const void *out);

#endif /* _LIBFABRIQ_H */
