/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow.h - the transport's flow control (cm.c): how many data messages a
 * connection keeps in flight, how credits come back, and the queue
 * depths that follow.  Plain constants: selftests/fabriq_algo.c runs
 * every schedule over a model of this transport with the same numbers.
 *
 * A sender needs a credit per data message.  The receiver returns one per
 * message it consumed: in the immediate data of any message of its own
 * on that connection, or in a credit-only message once FQ_CREDIT_BATCH
 * have piled up (or the peer waits for a FIN: cm.c's rendezvous) and its
 * send queue has room.  At most FQ_CTL_INFLIGHT credit-only messages are
 * in flight, and the receive and send queues are sized for them.
 *
 * A data connection's send queue holds the data messages, and what the
 * rendezvous adds: per read request sent a registration and, once the
 * peer read it, an invalidation; per read request received a read.  A
 * ring of FQ_TX_ENTS entries tracks them all.
 */
#ifndef _FABRIQ_FLOW_H
#define _FABRIQ_FLOW_H

#define FQ_CREDITS		8	/* data messages in flight per connection */
#define FQ_CREDIT_BATCH		(FQ_CREDITS / 2)	/* return credits in batches this big */
#define FQ_CTL_INFLIGHT		(FQ_CREDITS / FQ_CREDIT_BATCH)
#define FQ_RECV_SLOTS		(FQ_CREDITS + FQ_CTL_INFLIGHT)
#define FQ_TX_ENTS		(4 * FQ_CREDITS)
#define FQ_SEND_WRS		(FQ_TX_ENTS + FQ_CTL_INFLIGHT + 1)
/* messages of a transfer past its first one not done, at most (fq_ack's bits) */
#define FQ_ACK_WINDOW		64

/*
 * The control connection (ctrl.c) carries one heartbeat at a time each
 * way, each reposted at once: a few slots are plenty.
 */
#define FQ_CTRL_SLOTS		4
#define FQ_CTRL_SLOT_BYTES	64

#endif /* _FABRIQ_FLOW_H */
