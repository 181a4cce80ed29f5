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

/*
 * 3: a control connection per pair; 4: struct fabriq_status of 64 bytes
 * (slow_rank, slow_ratio, slow_links); 5: read requests (struct
 * fabriq_rts) on the data connections; 6: the request carries the
 * communicator's data path parameters, which every rank must share, and
 * a listener refuses other ones (FABRIQ_CM_REJ_PARAMS); 7: a call large
 * enough is cut into a slice per channel, each channel's messages going
 * only on its own connection (not round robin); 8: write grants (struct
 * fabriq_cts), and the request's @flags join the data path every rank
 * must share.  Since version 2
 * the request starts with version and rank and has comm_id at byte 16, so
 * a listener (of version 4 or later) refuses a request of another version
 * for its communicator with a reason (FABRIQ_CM_REJ_VERSION) instead of
 * in silence.
 */
#define FABRIQ_CM_VERSION	8
#define FABRIQ_CM_MAC_LEN	24	/* HMAC-SHA256 over the handshake, truncated */

/*
 * The connect request: who the connecting rank says it is, the data path
 * it runs (what struct fabriq_comm_init gave it: every rank must cut a
 * call into the same messages and pick the same schedule for it), and the
 * proof, which covers all of it.
 */
struct fabriq_cm_req {
	__be32 version;			/* FABRIQ_CM_VERSION */
	__be32 rank;			/* the connecting rank */
	__be32 nranks;
	__u8 chan;			/* the channel this connection is, or
					 * FABRIQ_CM_CHAN_CONTROL
					 */
	__u8 channels;			/* its data channels per peer */
	__u8 algo;			/* its enum fabriq_algo */
	__u8 flags;			/* its FABRIQ_CM_F_* */
	__be64 comm_id;
	__u8 mac[FABRIQ_CM_MAC_LEN];
	__be32 chunk;			/* its chunk_bytes */
	__be32 small_bytes;		/* its small_bytes */
};

/* @flags of the request (and of a refusal for other parameters) */
#define FABRIQ_CM_F_WRITE_GRANTS 0x01	/* receivers grant writes (struct fabriq_cts) */

/* the accept: the listener proves the key too */
struct fabriq_cm_rep {
	__be32 version;
	__u8 mac[FABRIQ_CM_MAC_LEN];
};

/*
 * Besides its data channels, every pair of ranks has one control
 * connection, which carries only struct fabriq_status messages: each
 * rank sends its status to every peer at least once per heartbeat period,
 * whatever its data connections do, so a peer that falls silent is dead
 * and a stuck job's ranks can tell whom they wait on.
 */
#define FABRIQ_CM_CHAN_CONTROL	0xff

#define FABRIQ_STATUS_MAGIC	0x46515354	/* "FQST" */
#define FABRIQ_STATUS_NO_RANK	0xffffffffU

/* @flags */
#define FABRIQ_STATUS_F_RUNNING	1U	/* in a collective call */

/**
 * struct fabriq_status - one heartbeat on the control connection
 * @magic: FABRIQ_STATUS_MAGIC
 * @rank: the sender
 * @beat: heartbeats sent to this peer, from 1
 * @flags: FABRIQ_STATUS_F_*
 * @op_seq: the call it runs (or last ran; 0: none yet)
 * @ops_done: calls it has finished
 * @step: the step of that call it has got to
 * @wait_rank: the rank whose data it waits for now (FABRIQ_STATUS_NO_RANK:
 *	none)
 * @wait_ns: how long it has waited for that rank: since its engine last
 *	moved
 * @dead_rank: the first peer it found dead (FABRIQ_STATUS_NO_RANK: none):
 *	its receivers fail too, at once, and know why
 * @slow_rank: the peer whose link is slowest of those it finds slow: the
 *	latency of its sends there against that link's baseline
 *	(FABRIQ_STATUS_NO_RANK: none is slow)
 * @slow_ratio: that latency / that baseline, x100 (at most 65535)
 * @slow_links: how many of its links are slow
 */
struct fabriq_status {
	__be32 magic;
	__be32 rank;
	__be64 beat;
	__be32 flags;
	__be32 step;
	__be64 op_seq;
	__be64 ops_done;
	__be32 wait_rank;
	__be32 dead_rank;
	__be64 wait_ns;
	__be32 slow_rank;
	__be16 slow_ratio;
	__be16 slow_links;
};

/*
 * A refusal with a reason, for a request that named the communicator
 * (anything else is refused without one).
 */
#define FABRIQ_CM_REJ_MAGIC	0x4651524a	/* "FQRJ" */
#define FABRIQ_CM_REJ_KEY	1		/* the MAC did not prove the key */
#define FABRIQ_CM_REJ_VERSION	2		/* another version: @version is
						 * the listener's
						 */
#define FABRIQ_CM_REJ_PARAMS	3		/* a key holder that runs other
						 * data path parameters: the
						 * listener's follow @version
						 */

struct fabriq_cm_rej {
	__be32 magic;
	__be32 reason;
	__be32 version;			/* the listener's FABRIQ_CM_VERSION
					 * (from version 4 on)
					 */
	/* from version 6 on: the listener's data path, as in the request */
	__be32 chunk;
	__be32 small_bytes;
	__u8 channels;
	__u8 algo;
	__u8 flags;			/* from version 8 on */
	__u8 reserved;
};

/*
 * A read request (rendezvous): instead of a data message of at least 16
 * KiB that the receiver copies into place, the sender sends this, as a
 * send with immediate data (bit 18 set beside the data bit 16), and lends
 * the bytes through an MR for remote reading only.  The receiver reads
 * them straight into place with an RDMA READ, then reports it (bits
 * 20..27 of the immediate data of any later message of its own: how many
 * requests it has read since the last report), and the sender invalidates
 * the MR.  Both ends must grant reads when connecting (responder
 * resources and initiator depth both non-zero), else neither sends one.
 */
struct fabriq_rts {
	__be64 addr;	/* the bytes' address in the MR (it starts within a page) */
	__be32 rkey;
	__be32 len;	/* what the receiver expects, else it fails (-EPROTO) */
};

/*
 * A write grant (clear-to-send), from version 8 on, where both ends set
 * FABRIQ_CM_F_WRITE_GRANTS: instead of letting the next messages of a
 * copy land in receive slots to be copied out, the receiver registers
 * the bytes they go to in its own buffer, for remote writing only, and
 * sends this, as a send with immediate data (bit 19 set, no data bit).
 * The sender writes those messages there with RDMA WRITE with immediate
 * data (one each, each taking a credit, the data bit set), and the
 * receiver invalidates the MR when the last has come.  A sender that sent
 * the first of them as a plain message already drops the grant, and the
 * receiver, seeing it come so, invalidates the MR at once; once the first
 * came written, the others must too.
 */
struct fabriq_cts {
	__be64 addr;	/* where the first message goes, in the MR */
	__be32 rkey;
	__be32 len;	/* the messages' bytes, in all */
	__be64 msg;	/* the first one's number: the data messages the
			 * receiver took on this connection before it
			 */
	__be32 nmsg;	/* how many */
	__be32 reserved;
};

#endif /* _UAPI_LINUX_FABRIQ_WIRE_H */
