// SPDX-License-Identifier: GPL-2.0
/*
 * push.c - write grants: a large message the receiver copies into place
 * (struct fq_xfer.into) is written by the sender straight into place,
 * where the receiver said it may write, instead of landing in a receive
 * slot to be copied out of it.
 *
 * When the next receive on a connection is of a copy and nothing from the
 * peer waits to be taken, the receiver grants the run of its next
 * messages that may be written now (pipe.c: fq_pipe_recv_run()), each of
 * FQ_RNDV_MIN_BYTES or more, up to the bytes one MR maps: it maps those
 * bytes of its buffer for the device to write, registers them in one of
 * the communicator's FRWR MRs for remote writing only, with a fresh key,
 * and sends a clear-to-send (struct fabriq_cts: address, key, length, and
 * the run's first message by its number on the connection), which takes
 * a credit like a data message.  The sender, at that message, checks the
 * grant against its own messages (a copy, whole messages, lengths that
 * add up; else -EPROTO) and writes each with RDMA WRITE with immediate
 * data, a credit each; the receiver takes a written message as it would a
 * plain one, with nothing to copy.  The run's last message is placed only
 * when the MR's invalidation completes, so no call ends while the peer may
 * still write into its buffer.
 *
 * A grant can cross the first message it covers on the wire: the sender
 * sent it plain, and drops the grant when it comes.  The receiver, taking
 * that message plain, invalidates the MR at once, and places the message
 * when that completes.  Once a run's first message came written, the rest
 * must too; a written message where no grant says so fails the call
 * (-EPROTO), as does a grant for anything but the sender's own next
 * messages.
 *
 * One grant per channel is out at a time: its mapping (a page each) is
 * the channel's (struct fq_push_grant, beside the read requests' room),
 * and so is its MR, from the channel's share of the read requests' pool.
 * Both ends must have it on when connecting (FABRIQ_CM_F_WRITE_GRANTS
 * joins the data path every rank must share); with it on, neither end
 * sends read requests.
 *
 * Off unless the module parameter rendezvous_write says so.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direction.h>
#include <rdma/ib_verbs.h>

#include "comm.h"

static bool rendezvous_write;
module_param(rendezvous_write, bool, 0644);
MODULE_PARM_DESC(rendezvous_write,
		 "large messages a peer copies into place are written into place where it grants them (default off; read when a communicator connects; every rank must run the same)");

/* Should a new communicator grant writes (and need them granted)? */
bool fq_push_wanted(void)
{
	return READ_ONCE(rendezvous_write);
}

/* the channel's grant; with the MRs (rndv.c) */
static struct fq_push_grant *fq_push_grant_of(const struct fq_conn *conn)
{
	return fq_rndv_grant(conn->comm, conn->chan);
}

/**
 * fq_push_can_grant() - may @conn's receiver grant the peer writes now,
 * and from which message on?
 * @conn: an established data connection
 * @ahead: set to how many messages past the next one to take the grant
 *	should start: as many as the peer may have sent that did not come
 *	yet (its credits, and those on their way: all but those this rank
 *	owes it), so that the grant meets the peer's first message it has
 *	not sent yet when the peer sends eagerly
 *
 * With write grants on, when its channel has no grant out and an MR
 * free, nothing from the peer waits to be taken, and there is room for
 * the registration and the clear-to-send, which may be built now
 * (rndv.c: a registration leads its queue where the device replays them).
 */
bool fq_push_can_grant(struct fq_conn *conn, u32 *ahead)
{
	struct fq_comm *comm = conn->comm;
	bool ok;

	if (!comm->write_grants || !comm->rndv_room)
		return false;	/* off, or no MRs here: the peers write to this rank's plain */
	spin_lock_bh(conn->lock);
	ok = !fq_push_grant_of(conn)->conn && comm->chans[conn->chan].mr_free &&
	     conn->rx_head == conn->rx_tail && fq_msg_room(conn, 2) && fq_rndv_local_may_go(conn);
	*ahead = FQ_CREDITS - min_t(u32, conn->ret_credits, FQ_CREDITS);
	spin_unlock_bh(conn->lock);
	return ok;
}

/**
 * fq_push_grant() - grant the peer of @conn @nmsg messages, from @ahead
 * past the next one this rank takes, to be written at [@dst, @dst +
 * @len): build the registration and the clear-to-send; fq_cm_post() posts
 * them
 * @conn: the connection, which fq_push_can_grant() said may
 * @ahead: the messages before the first one granted, from the next one
 * @ack: the receive's
 * @msg: the first message's index in the receive
 * @dst: where they go: consecutive, in one buffer
 * @len: their bytes, up to comm->rndv_max_bytes
 * @nmsg: how many
 *
 * Context: process; the engine alone; hw_rwsem held for reading.
 * Return: 0 or -errno (the communicator then fails).
 */
int fq_push_grant(struct fq_conn *conn, u32 ahead, struct fq_ack *ack, u64 msg, void *dst,
		  u32 len, u32 nmsg)
{
	struct fq_comm *comm = conn->comm;
	struct fq_chan *ch = &comm->chans[conn->chan];
	struct fq_push_grant *g = fq_push_grant_of(conn);
	struct fq_tx_ent *reg, *ent;
	struct fabriq_cts *cts;
	u32 slot, fault, i;
	struct ib_mr *mr;
	bool own;
	int n, err;

	n = fq_sge_build(comm->ibdev, DMA_FROM_DEVICE, comm->pd->local_dma_lkey, NULL, dst, len,
			 g->sge, FQ_RNDV_PAGES, &own);
	if (n <= 0)
		return n ?: -EINVAL;
	spin_lock_bh(conn->lock);
	i = __ffs(ch->mr_free);	/* fq_push_can_grant() saw one */
	ch->mr_free &= ~BIT(i);
	mr = comm->mrs[i];
	*g = (struct fq_push_grant){
		.conn = conn, .mr = mr, .ack = ack, .msg = msg, .nmsg = nmsg, .dst = dst,
		.seq = conn->msgs.recv_seq + ahead, .nsge = own ? n : 0, .sge = g->sge,
	};
	ch->grant_waits_tx = false;
	reg = fq_tx_take(conn, FQ_TX_REG);
	ent = fq_tx_take(conn, FQ_TX_SEND);
	slot = fq_tx_slot(conn);
	ent->cts = true;
	spin_unlock_bh(conn->lock);

	err = fq_rndv_map_mr(conn, reg, mr, g->sge, n, dst,
			     IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE);
	if (err) {
		fq_tx_unwind(conn, ent, err);
		fq_tx_unwind(conn, reg, err);
		spin_lock_bh(conn->lock);
		ch->mr_free |= BIT(i);	/* not registered */
		spin_unlock_bh(conn->lock);
		fq_push_unmap(conn, g);
		return err;
	}
	cts = conn->tx_buf[slot];
	*cts = (struct fabriq_cts){
		.addr = cpu_to_be64(mr->iova),
		.rkey = cpu_to_be32(mr->rkey),
		.len = cpu_to_be32(len),
		.msg = cpu_to_be64(g->seq),
		.nmsg = cpu_to_be32(nmsg),
	};
	/* sticky: the peer drops a late grant unchecked, so every one is broken */
	fault = READ_ONCE(comm->fault_rndv);
	if (fault == FQ_RNDV_FAULT_CTS_LEN)
		cts->len = cpu_to_be32(len + 1);
	else if (fault == FQ_RNDV_FAULT_CTS_RKEY)
		cts->rkey = cpu_to_be32(mr->rkey ^ 0x5a5a5a00);
	ib_dma_sync_single_for_device(comm->ibdev, conn->tx_dma[slot], sizeof(*cts), DMA_TO_DEVICE);
	fq_tx_slot_send(conn, ent, slot, sizeof(*cts), FQ_IMM_CTS);
	return 0;
}

/*
 * The grant's mapping goes: its MR was invalidated, or deregistered after
 * a failed call.  Without a sync for the CPU: each written message was
 * synced when taken (fq_push_taken()), and a plain one the CPU copied
 * into the run (a void grant) must not be overwritten by what the device
 * saw (a bounce buffer's bytes, or cache lines invalidated).
 * Context: @conn's lock held, or the engine alone after the abort.
 */
void fq_push_unmap(struct fq_conn *conn, struct fq_push_grant *g)
{
	fq_sge_unmap_attrs(conn->comm->ibdev, DMA_FROM_DEVICE, g->sge, g->nsge,
			   DMA_ATTR_SKIP_CPU_SYNC);
	g->nsge = 0;
	g->conn = NULL;
}

/*
 * Invalidate the grant's MR; its completion places message @msg of @ack
 * (the run's last, or a void grant's first), unmaps the run and frees the
 * channel's grant.  Context: the engine alone; hw_rwsem held for reading.
 */
static void fq_push_build_inv(struct fq_conn *conn, struct fq_push_grant *g, u64 msg)
{
	g->closing = true;
	fq_rndv_build_inv(conn, FQ_TX_UNGRANT, g->mr, g->ack, msg, 1);
}

/**
 * fq_push_taken() - the engine takes the next data message of @conn,
 * message @msg of a receive: is it where the grant says?
 * @conn: the connection
 * @written: it came written (else as a plain message, in a slot)
 * @ack: the receive's
 * @msg: its index in the receive
 * @dst: where it goes
 * @len: its length (the receive's, which the caller checked)
 * @later: set if the message is placed later, by the invalidation's
 *	completion (else the caller places it)
 *
 * A written message must be the grant's next one; it is synced for the
 * CPU, and the run's last invalidates the grant.  A plain one that is the
 * first of a grant makes it void: it is invalidated now.
 * Context: process; the engine alone; hw_rwsem held for reading.
 * Return: 0, or -EPROTO (a message written where no grant says so, or a
 * plain one inside a written run), or -EAGAIN (no room for the
 * invalidation now: take it again later).
 */
int fq_push_taken(struct fq_conn *conn, bool written, struct fq_ack *ack, u64 msg,
		  void *dst, u32 len, bool *later)
{
	struct fq_comm *comm = conn->comm;
	struct fq_push_grant *g;
	bool ours, first, last, may;
	u32 k, end;

	*later = false;
	if (!comm->write_grants || !comm->rndv_room)
		return written ? -EPROTO : 0;	/* the peer has no key to write with */
	g = fq_push_grant_of(conn);
	spin_lock_bh(conn->lock);
	ours = g->conn == conn && !g->closing;
	first = ours && !g->got && g->seq == conn->msgs.recv_seq;
	last = written ? g->got + 1 == g->nmsg : first;
	/* the run's last, or a void grant's first, waits for room for its invalidation */
	may = fq_tx_room(conn, 1) && fq_rndv_local_may_go(conn);
	spin_unlock_bh(conn->lock);
	if (written && !(ours && g->ack == ack && g->msg + g->got == msg &&
			 g->seq + g->got == conn->msgs.recv_seq)) {
		pr_warn_ratelimited("communicator %llx rank %u: rank %u wrote a message where no grant let it\n",
				    comm->id, comm->rank, conn->peer->rank);
		return -EPROTO;
	}
	if (!written && ours && g->got) {
		pr_warn_ratelimited("communicator %llx rank %u: rank %u sent a message plain inside a run it was writing\n",
				    comm->id, comm->rank, conn->peer->rank);
		return -EPROTO;
	}
	if (!written && !first)
		return 0;	/* nothing to do with a grant */
	/* its send queue drains by itself: its completions must wake the engine */
	WRITE_ONCE(comm->chans[conn->chan].grant_waits_tx, last && !may);
	if (last && !may)
		return -EAGAIN;
	if (written) {
		/* the bytes the device wrote, before the CPU reads them: this message's pages */
		k = (offset_in_page(g->dst) + (dst - g->dst)) >> PAGE_SHIFT;
		end = (offset_in_page(g->dst) + (dst - g->dst) + len - 1) >> PAGE_SHIFT;
		for (; k <= end && k < g->nsge; k++)
			ib_dma_sync_single_for_cpu(comm->ibdev, g->sge[k].addr, g->sge[k].length,
						   DMA_FROM_DEVICE);
		g->got++;
		spin_lock_bh(conn->lock);
		conn->st.writes_rx++;
		spin_unlock_bh(conn->lock);
	}
	if (!last)
		return 0;
	fq_push_build_inv(conn, g, msg);
	*later = true;
	return 0;
}

/**
 * fq_push_waits_tx() - does channel @chan's grant wait for room on its
 * send queue to be invalidated (so its send completions must wake the
 * engine)?
 * @comm: the communicator
 * @chan: the channel
 */
bool fq_push_waits_tx(struct fq_comm *comm, u32 chan)
{
	return READ_ONCE(comm->chans[chan].grant_waits_tx);
}

/**
 * fq_push_abandon() - unmap the grants never invalidated
 * @comm: the communicator, whose sends are all flushed or done, and whose
 *	grants' MRs are deregistered (fq_rndv_abandon(), teardown)
 *
 * A grant whose invalidation completed is gone already; one whose
 * invalidation was flushed, never posted or never built is unmapped here
 * (its key died with its MR).
 * Context: process; hw_rwsem held; before the call's pages go.
 */
void fq_push_abandon(struct fq_comm *comm)
{
	struct fq_push_grant *g;
	struct fq_conn *conn;
	u32 c;

	for (c = 0; comm->write_grants && comm->rndv_room && c < comm->nch; c++) {
		WRITE_ONCE(comm->chans[c].grant_waits_tx, false);
		g = fq_rndv_grant(comm, c);
		conn = READ_ONCE(g->conn);
		if (!conn)
			continue;
		spin_lock_bh(conn->lock);
		if (g->conn)
			fq_push_unmap(conn, g);
		spin_unlock_bh(conn->lock);
	}
}

/* ---- the sender ---- */

/**
 * fq_push_cts_in() - a clear-to-send came on @conn: keep it for the engine
 * @conn: the connection
 * @data: it, in the receive slot
 * @len: its length
 *
 * A grant its first message crossed (the sender sent it plain, and counts
 * past it) is void: a new one replaces it.  One for a message the sender
 * has not got to yet waits for it.  Context: softirq (the receive
 * completion); @conn's lock held.
 * Return: false if it is malformed, or comes while one still counts.
 */
bool fq_push_cts_in(struct fq_conn *conn, const void *data, u32 len)
{
	const struct fabriq_cts *cts = data;
	struct fq_cts_in *in = &conn->cts_in;

	if (len != sizeof(*cts) || !conn->comm->write_grants || cts->reserved)
		return false;
	if (in->nmsg && in->seq + in->used >= READ_ONCE(conn->msgs.send_seq))
		return false;
	*in = (struct fq_cts_in){
		.addr = be64_to_cpu(cts->addr),
		.rkey = be32_to_cpu(cts->rkey),
		.len = be32_to_cpu(cts->len),
		.seq = be64_to_cpu(cts->msg),
		.nmsg = be32_to_cpu(cts->nmsg),
	};
	conn->st.cts_rx++;
	return true;
}

/**
 * fq_push_target() - where the next data message of @conn goes, if the
 * peer granted it
 * @conn: the connection
 * @p: the pipe of the send it is of
 * @x: that send
 * @m: the message's index in it
 * @to: set to the address and key to write it at
 *
 * A grant must cover the sender's own next messages: of a copy (struct
 * fq_xfer.into), whole ones, their lengths adding up.
 * Context: process; the engine alone.
 * Return: 1 if the message is to be written there, 0 if it goes plain,
 * -EPROTO if the grant is not for the sender's messages.
 */
int fq_push_target(struct fq_conn *conn, const struct fq_pipe *p, const struct fq_xfer *x,
		   u64 m, struct fq_write_to *to)
{
	struct fq_comm *comm = conn->comm;
	u64 seq = conn->msgs.send_seq;
	struct fq_cts_in in;
	u32 fault;

	if (!comm->write_grants)
		return 0;
	spin_lock_bh(conn->lock);
	in = conn->cts_in;
	/* a grant its first message crossed: void */
	if (in.nmsg && !in.used && in.seq < seq)
		conn->cts_in.nmsg = 0;
	spin_unlock_bh(conn->lock);
	/* none, one it crossed, or one for a message still to come: plain */
	if (!in.nmsg || (!in.used && in.seq != seq))
		return 0;
	if (in.seq + in.used != seq ||
	    (!in.used && (x->into != FQ_X_RECV ||
			  fq_pipe_msgs_in(p, x, m, in.len, FQ_ACK_WINDOW) != in.nmsg))) {
		pr_warn_ratelimited("communicator %llx rank %u: rank %u granted writes of %u messages, %u bytes from message %llu, which are not this rank's next (%llu)\n",
				    comm->id, comm->rank, conn->peer->rank, in.nmsg, in.len,
				    in.seq, seq);
		return -EPROTO;
	}
	/* debugfs fault knob: the run's second message goes plain, and the grant with it */
	fault = FQ_RNDV_FAULT_UNWRITTEN;
	if (in.used == 1 && READ_ONCE(comm->fault_rndv) == fault &&
	    cmpxchg(&comm->fault_rndv, fault, FQ_RNDV_FAULT_NONE) == fault) {
		spin_lock_bh(conn->lock);
		conn->cts_in = (struct fq_cts_in){ };
		spin_unlock_bh(conn->lock);
		return 0;
	}
	*to = (struct fq_write_to){ .addr = in.addr + in.off, .rkey = in.rkey };
	return 1;
}

/**
 * fq_push_used() - the message fq_push_target() placed was built: @len
 * bytes of the grant are used
 * @conn: the connection
 * @len: the message's length
 */
void fq_push_used(struct fq_conn *conn, u32 len)
{
	struct fq_cts_in *in = &conn->cts_in;

	spin_lock_bh(conn->lock);
	in->off += len;
	if (++in->used == in->nmsg)
		*in = (struct fq_cts_in){ };
	spin_unlock_bh(conn->lock);
}
