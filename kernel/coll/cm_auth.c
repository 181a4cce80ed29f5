// SPDX-License-Identifier: GPL-2.0
/*
 * cm_auth.c - who may join a communicator: its secret key and the proofs
 * of it that the rdma_cm handshake carries.
 *
 * Every rank gives the same key at COMM_INIT.  The connecting side puts
 * HMAC-SHA256(key, "REQ", id, ranks, channel, its QP number, the
 * listener's address, the data path parameters it runs) in the connect
 * request; the listener checks it, and
 * the source address (on RoCE also the GID replies go to) against the
 * rank's, before the request may take a connection slot or any resource.
 * The accept carries the same MAC over "REP" and both QP numbers, so the
 * connecting side knows it reached a key holder too.  The key is kept
 * only inside the HMAC transform, never copied back to anyone.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/rdma_cm.h>

#include "comm.h"

/* what one MAC covers; all fields network order */
struct fq_auth_msg {
	u8 label[4];		/* "FQRQ" (request) or "FQRP" (accept) */
	__be64 comm_id;
	__be32 nranks;
	__be32 initiator;	/* the connecting rank */
	__be32 acceptor;	/* the listening rank */
	__be32 chan;
	__be32 req_qpn;		/* the connecting side's QP */
	__be32 rep_qpn;		/* the listener's QP (0 in a request) */
	__be16 family;		/* the listener's address */
	__be16 port;
	u8 addr[16];
	__be32 chunk;		/* struct fq_wire_params */
	__be32 small_bytes;
	u8 channels;
	u8 algo;
	u8 flags;
} __packed;

/**
 * fq_auth_set_key() - take the communicator's key from COMM_INIT
 * @comm: the communicator, not yet connecting
 * @ukey: user pointer to the key
 * @len: its length, checked by the caller (FABRIQ_KEY_MIN..FABRIQ_KEY_MAX)
 *
 * Context: process.
 * Return: 0, -EFAULT, -ENOMEM, or the crypto API's error when the kernel
 * has no hmac(sha256).
 */
int fq_auth_set_key(struct fq_comm *comm, u64 ukey, u32 len)
{
	struct crypto_shash *tfm;
	u8 *key;
	int err;

	key = memdup_user(u64_to_user_ptr(ukey), len);
	if (IS_ERR(key))
		return PTR_ERR(key);
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		kfree_sensitive(key);
		return PTR_ERR(tfm);
	}
	err = crypto_shash_setkey(tfm, key, len);
	kfree_sensitive(key);
	if (err) {
		crypto_free_shash(tfm);
		return err;
	}
	comm->auth = tfm;
	return 0;
}

void fq_auth_free(struct fq_comm *comm)
{
	crypto_free_shash(comm->auth);	/* zeroes the key it holds */
	comm->auth = NULL;
}

static void fq_auth_msg_addr(struct fq_auth_msg *m, const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

	m->family = cpu_to_be16(ss->ss_family);
	if (ss->ss_family == AF_INET) {
		m->port = sin->sin_port;
		memcpy(m->addr, &sin->sin_addr, sizeof(sin->sin_addr));
	} else {
		m->port = sin6->sin6_port;
		memcpy(m->addr, &sin6->sin6_addr, sizeof(sin6->sin6_addr));
	}
}

/**
 * fq_auth_mac() - the MAC of one handshake message of one connection
 * @comm: the communicator (with a key)
 * @hs: the handshake: which message, which ranks, channel, QPs and data
 *	path
 * @mac: out, FABRIQ_CM_MAC_LEN bytes
 *
 * Context: process (COMM_INIT or an rdma_cm handler).
 * Return: 0 or the crypto API's error.
 */
int fq_auth_mac(const struct fq_comm *comm, const struct fq_auth_hs *hs, u8 *mac)
{
	struct fq_auth_msg m = {};
	u8 full[SHA256_DIGEST_SIZE];
	int err;

	memcpy(m.label, hs->reply ? "FQRP" : "FQRQ", sizeof(m.label));
	m.comm_id = cpu_to_be64(comm->id);
	m.nranks = cpu_to_be32(comm->nranks);
	m.initiator = cpu_to_be32(hs->initiator);
	m.acceptor = cpu_to_be32(hs->acceptor);
	m.chan = cpu_to_be32(hs->chan);
	m.req_qpn = cpu_to_be32(hs->req_qpn);
	m.rep_qpn = cpu_to_be32(hs->reply ? hs->rep_qpn : 0);
	fq_auth_msg_addr(&m, &comm->addrs[hs->acceptor]);
	m.chunk = cpu_to_be32(hs->params.chunk);
	m.small_bytes = cpu_to_be32(hs->params.small_bytes);
	m.channels = hs->params.channels;
	m.algo = hs->params.algo;
	m.flags = hs->params.flags;
	err = crypto_shash_tfm_digest(comm->auth, (const u8 *)&m, sizeof(m), full);
	memcpy(mac, full, FABRIQ_CM_MAC_LEN);
	memzero_explicit(full, sizeof(full));
	return err;
}

/* Does @mac prove the key for this handshake message?  Constant time. */
bool fq_auth_ok(const struct fq_comm *comm, const struct fq_auth_hs *hs, const u8 *mac)
{
	u8 want[FABRIQ_CM_MAC_LEN];
	bool ok;

	if (!comm->auth || fq_auth_mac(comm, hs, want))
		return false;
	ok = !crypto_memneq(want, mac, FABRIQ_CM_MAC_LEN);
	memzero_explicit(want, sizeof(want));
	return ok;
}

/* Is @addr the address @rank lives at? */
static bool fq_auth_addr_is_rank(const struct fq_comm *comm, u32 rank, const struct sockaddr *addr)
{
	const struct sockaddr_storage *want = &comm->addrs[rank];

	if (addr->sa_family != want->ss_family)
		return false;
	if (addr->sa_family == AF_INET)
		return ((const struct sockaddr_in *)addr)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)want)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)addr)->sin6_addr,
			       &((const struct sockaddr_in6 *)want)->sin6_addr);
}

/**
 * fq_auth_peer_ok() - does the connect request on @id come from where
 * @rank lives?
 * @comm: the listening communicator
 * @rank: the rank the request claims
 * @id: the new rdma_cm id of the request
 *
 * Both addresses of a request are the sender's own words: the source IP
 * of rdma_cm's header, and (on RoCE) the GID of the CM REQ's path, which
 * is where the connection will send.  Both must be @rank's, so a host
 * that spoofs the rank's IP gets no reply and no data: they go to the
 * rank.  The key's MAC is what proves the request; this narrows who may
 * try.
 */
bool fq_auth_peer_ok(const struct fq_comm *comm, u32 rank, const struct rdma_cm_id *id)
{
	union ib_gid want;

	if (!fq_auth_addr_is_rank(comm, rank, (const struct sockaddr *)&id->route.addr.dst_addr))
		return false;
	if (!rdma_protocol_roce(id->device, id->port_num))
		return true;
	if (!id->route.path_rec ||
	    rdma_ip2gid((struct sockaddr *)&comm->addrs[rank], &want))
		return false;
	return !memcmp(&id->route.path_rec[0].dgid, &want, sizeof(want));
}
