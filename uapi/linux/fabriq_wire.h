/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fabriq_wire: what other hosts see of fabriq on the fabric, so a peer of
 * another version (or a test that plays an impostor) can speak it.
 *
 * A communicator's connections: the rdma_cm private data of the connect
 * request, the accept and a refusal.  All fields are in network order.
 * The request must fit what rdma_cm leaves of an IB CM REQ's private data
 * (92 bytes less its own 36-byte header).
 */
#ifndef _UAPI_LINUX_FABRIQ_WIRE_H
#define _UAPI_LINUX_FABRIQ_WIRE_H

#include <linux/types.h>

#define FABRIQ_CM_VERSION	2
#define FABRIQ_CM_MAC_LEN	24	/* HMAC-SHA256 over the handshake, truncated */

/* the connect request: who the connecting rank says it is, and the proof */
struct fabriq_cm_req {
	__be32 version;			/* FABRIQ_CM_VERSION */
	__be32 rank;			/* the connecting rank */
	__be32 nranks;
	__be32 chan;			/* the channel this connection is */
	__be64 comm_id;
	__u8 mac[FABRIQ_CM_MAC_LEN];
};

/* the accept: the listener proves the key too */
struct fabriq_cm_rep {
	__be32 version;
	__u8 mac[FABRIQ_CM_MAC_LEN];
};

/*
 * A refusal with a reason, for a request that named the communicator
 * (anything else is refused without one).
 */
#define FABRIQ_CM_REJ_MAGIC	0x4651524a	/* "FQRJ" */
#define FABRIQ_CM_REJ_KEY	1		/* the MAC did not prove the key */

struct fabriq_cm_rej {
	__be32 magic;
	__be32 reason;
};

#endif /* _UAPI_LINUX_FABRIQ_WIRE_H */
