// SPDX-License-Identifier: GPL-2.0
/*
 * rndv.c - the rendezvous: a large message the receiver copies into place
 * (struct fq_xfer.into) is read by the receiver straight into place
 * instead of landing in a receive slot to be copied out of it.
 *
 * The sender registers the message's bytes in one of the communicator's
 * FRWR MRs, for remote reading only and with a fresh key, and sends a
 * read request (struct fabriq_rts: address, key, length) in place of the
 * data, as a data message (it takes a credit and keeps the order of the
 * connection's messages).  The receiver checks it against the message it
 * expects, and once the bytes may be written (pipe.c) reads them with an
 * RDMA READ into its buffer, mapped for that read alone; the message is
 * placed when the read completes.  It reports the reads done (the FIN: a
 * count in the immediate data of its next message, or of a credit-only
 * one), and the sender invalidates the MR before it lets the bytes
 * change: the peer reads exactly the bytes lent, for as long as they are
 * lent.  The receiver pulls, so it needs no grant ahead of time and
 * writes nothing it did not ask for; the sender exposes nothing but
 * what it sends anyway.
 *
 * One read request lends as many consecutive messages of a transfer as
 * are ready, up to FQ_RNDV_MAX_BYTES: one registration, request and
 * invalidation serve them all.  The receiver reads them one by one (a
 * read per message, as the pipe lets it write each) and reports the
 * request read when its last read completes.
 *
 * The MRs are the communicator's (FQ_RNDV_MRS, whatever the ranks), dealt
 * out to its channels, each lending only its own under its own lock; a
 * message finding none of its channel's free goes as a plain one, so no
 * send waits on another peer's, or another channel's.  Each connection
 * has at most FQ_CREDITS read requests out.  Both ends grant reads when
 * connecting, or neither sends one.
 *
 * Off unless the module parameter rendezvous says so: on rxe under TCG a
 * 2-rank ring allreduce of 4 MiB (half of it copies) ran at 0.88 of its
 * speed without, with 40% more context switches per call (make bench-ab,
 * 6 rounds).  It is read when a communicator connects; a rank with it
 * off grants no reads, so its connections carry no read request either way.
 *
 * The debugfs knob fault_rndv breaks this rank's next read request or
 * FIN, so that the tests see the peer refuse it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "comm.h"

/* fq_chan.mr_free has a bit per MR */
static_assert(FQ_RNDV_MRS <= 32);

/*
 * A channel's room to build a registration's page list, and its write
 * grant with the pages it maps (push.c); one per channel: they run in
 * parallel
 */
struct fq_rndv_room {
	struct ib_sge sge[FQ_RNDV_PAGES];
	struct scatterlist sg[FQ_RNDV_PAGES];
	struct fq_push_grant grant;
	struct ib_sge grant_sge[FQ_RNDV_PAGES];
};

static bool rendezvous;
module_param(rendezvous, bool, 0644);
MODULE_PARM_DESC(rendezvous,
		 "large messages a peer copies into place go as read requests it reads into place (default off: slower on rxe; read when a communicator connects)");

/*
 * The MRs read requests lend bytes through, as many as the device gives
 * up to FQ_RNDV_MRS, whatever the ranks, each of FQ_RNDV_PAGES pages or as
 * many as the device maps (a request then lends less): none (no
 * rendezvous) without zero-copy, fast registration or reads, or where one
 * message's pages do not fit an MR.  Context: process.
 */
void fq_rndv_alloc_mrs(struct fq_comm *comm)
{
	const struct ib_device_attr *attrs = &comm->ibdev->attrs;
	u32 port, c, pages = min_t(u32, FQ_RNDV_PAGES, attrs->max_fast_reg_page_list_len);
	bool writes = comm->write_grants;
	struct ib_mr *mr;

	/*
	 * A read lands in one SGE per page (iWARP would need an MR for it,
	 * which this does not make), from the sender's pages; write grants
	 * (which a sender writes from its pages or a slot) go instead of reads
	 */
	bool reads = READ_ONCE(rendezvous) && comm->zero_copy && attrs->max_qp_rd_atom &&
		     attrs->max_qp_init_rd_atom &&
		     attrs->max_sge_rd >= fq_chunk_max_pages(comm->chunk);

	if (!(reads || writes) || !(attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    fq_chunk_max_pages(comm->chunk) > pages)
		return;
	rdma_for_each_port(comm->ibdev, port)
		if (rdma_protocol_iwarp(comm->ibdev, port))
			return;
	comm->rndv_room = kvmalloc_array(comm->nch, sizeof(*comm->rndv_room), GFP_KERNEL_ACCOUNT);
	if (!comm->rndv_room)
		return;
	for (c = 0; c < comm->nch; c++)
		comm->rndv_room[c].grant = (struct fq_push_grant){
			.sge = comm->rndv_room[c].grant_sge,
		};
	/* a run of bytes starting anywhere in a page spans one page more */
	comm->rndv_max_bytes = max_t(u32, (pages - 1) * PAGE_SIZE, comm->chunk);
	comm->rndv_replays = comm->ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	while (comm->nmrs < FQ_RNDV_MRS) {
		mr = ib_alloc_mr(comm->pd, IB_MR_TYPE_MEM_REG, pages);
		if (IS_ERR(mr))
			break;
		atomic_inc(&fq_objects.mrs);
		comm->chans[comm->nmrs % comm->nch].mr_free |= BIT(comm->nmrs);
		comm->mrs[comm->nmrs++] = mr;
	}
}

/*
 * @mr, which a read request on @conn lent, is invalidated: its channel
 * may lend it again.  Context: @conn's lock held.
 */
void fq_rndv_mr_free(struct fq_conn *conn, struct ib_mr *mr)
{
	struct fq_comm *comm = conn->comm;
	u32 i;

	for (i = 0; i < comm->nmrs; i++)
		if (comm->mrs[i] == mr) {
			comm->chans[conn->chan].mr_free |= BIT(i);
			return;
		}
}

/* Channel @chan's write grant (push.c); the communicator has MRs. */
struct fq_push_grant *fq_rndv_grant(struct fq_comm *comm, u32 chan)
{
	return &comm->rndv_room[chan].grant;
}

/* The room's bytes, while the communicator has MRs (fq_comm_struct_bytes()). */
u32 fq_rndv_room_bytes(const struct fq_comm *comm)
{
	return READ_ONCE(comm->rndv_room) ? comm->nch * sizeof(struct fq_rndv_room) : 0;
}

/* Deregister MR @i of @comm: its key is dead, on every QP of the PD. */
static void fq_rndv_dereg(struct fq_comm *comm, u32 i)
{
	if (!comm->mrs[i])
		return;
	ib_dereg_mr(comm->mrs[i]);
	atomic_dec(&fq_objects.mrs);
	comm->mrs[i] = NULL;
}

/**
 * fq_rndv_abandon() - a call failed: kill the keys it lent or granted
 * @comm: the communicator, whose sends are all flushed or done
 *
 * An MR not back in its channel's pool was lent by a read request or
 * granted for writes, and its invalidation never ran (flushed, or never
 * posted): its key still reaches the call's pages through any QP of the
 * PD that allows it (the control connections' QPs take RDMA WRITEs), so
 * it is deregistered before those pages go, and leaves the pool (the
 * communicator has failed).  Then the grants' pages are unmapped.
 * Context: process; hw_rwsem held for reading, the device still here.
 */
void fq_rndv_abandon(struct fq_comm *comm)
{
	u32 c, i, free = 0, dead = 0;

	for (c = 0; c < comm->nch; c++) {
		spin_lock_bh(&comm->chans[c].lock);
		free |= comm->chans[c].mr_free;
		spin_unlock_bh(&comm->chans[c].lock);
	}
	for (i = 0; i < comm->nmrs; i++)
		if (comm->mrs[i] && !(free & BIT(i))) {
			fq_rndv_dereg(comm, i);
			dead++;
		}
	if (dead)
		pr_info("communicator %llx rank %u: the failed call left %u MR(s) lent or granted and not invalidated: deregistered, their keys dead\n",
			comm->id, comm->rank, dead);
	fq_push_abandon(comm);
}

/* Context: process; no QP of @comm's may use them any more. */
void fq_rndv_free_mrs(struct fq_comm *comm)
{
	u32 c;

	while (comm->nmrs)
		fq_rndv_dereg(comm, --comm->nmrs);
	fq_push_abandon(comm);	/* a grant no invalidation went for: its pages */
	comm->write_grants = false;
	for (c = 0; c < comm->nch; c++)
		comm->chans[c].mr_free = 0;
	kvfree(comm->rndv_room);
	comm->rndv_room = NULL;
}

/**
 * fq_rndv_wanted() - should message @len of send @x go as a read request?
 * @comm: the communicator
 * @x: the send
 * @len: the message's length
 *
 * When the peer copies it into place, and it is large enough that reading
 * beats copying (the fault knob's "reduce" says yes to any message).
 */
bool fq_rndv_wanted(struct fq_comm *comm, const struct fq_xfer *x, u32 len)
{
	return len >= FQ_RNDV_MIN_BYTES &&
	       (x->into == FQ_X_RECV || READ_ONCE(comm->fault_rndv) == FQ_RNDV_FAULT_REDUCE);
}

/*
 * May a registration or invalidation be built now on @conn?  Anywhere on
 * a device that runs each once; on one that replays them (rxe,
 * comm->rndv_replays) only where it would lead its send queue: nothing
 * posted still in flight, and nothing but registrations and
 * invalidations built before it.
 *
 * rxe runs a local operation when it reaches it, but completes it only
 * after every request before it; and a retry (a timeout, or a NAK: under
 * TCG an acknowledgment can take longer than the QP's timeout) sends the
 * queue again from its oldest request not completed, running again the
 * local operations it meets (6.1 rxe_req.c: req_retry() rewinds, and
 * rxe_requester() does not skip them).  A registration run twice fails
 * ("rxe_reg_fast_mr: ... not free", the connection's QP in error), and
 * calls stalled to their timeout with a queue's oldest request 30 s old
 * (3 ranks; 6.1 in 3 of 4 runs, gone in 10 of 10 with this rule; 6.12 on
 * a CI run).  A local operation
 * with nothing unacknowledged before it is completed before any retry
 * can rewind to it.  So one read request per chain, after the chain's
 * invalidations; a later one waits for the queue to drain, which it does
 * by itself (sends, reads and credits complete whatever the peer's engine
 * does).  A NIC runs a registration once, in its queue's order, and
 * retransmits only what goes on the wire, so there read requests
 * overlap.  Context: @conn's lock held.
 */
bool fq_rndv_local_may_go(const struct fq_conn *conn)
{
	u32 i;
	u8 kind;

	if (!conn->comm->rndv_replays)
		return true;
	if (conn->tx_tail != conn->tx_posted || conn->ctl_inflight)
		return false;
	for (i = conn->tx_posted; i != conn->tx_head; i++) {
		kind = conn->tx_ent[i % FQ_TX_ENTS].kind;
		if (kind != FQ_TX_REG && kind != FQ_TX_INV)
			return false;
	}
	return true;
}

/**
 * fq_rndv_can_send() - may a read request go out on @conn now?
 * @conn: a connection
 *
 * Both ends granted reads and one of the channel's MRs is free (else the
 * message goes as a plain one: a send must never wait on another peer's
 * or channel's), there is room for the registration and the request,
 * and the registration may be built now (fq_rndv_local_may_go()).
 *
 * Return: 1 if it may, 0 if it may once earlier read requests of the
 * connection are read or its send queue drained (neither waits on
 * another peer's send), -EAGAIN if it goes as a plain message.
 */
int fq_rndv_can_send(struct fq_conn *conn)
{
	struct fq_comm *comm = conn->comm;
	int ok;

	/* the engine alone takes MRs: one free now is still free when it sends */
	spin_lock_bh(conn->lock);
	if (!conn->rndv_ok || !comm->chans[conn->chan].mr_free)
		ok = -EAGAIN;
	else
		ok = conn->rndv_head - conn->rndv_inv < FQ_CREDITS && fq_msg_room(conn, 2) &&
		     fq_rndv_local_may_go(conn);
	spin_unlock_bh(conn->lock);
	return ok;
}

/**
 * fq_rndv_map_mr() - build @reg, the registration of @mr over the @n
 * mapped entries of @sge, which hold [@data, ...), with a fresh key, and
 * @mr's address as the peer sees it, which starts at the byte's offset in
 * its page (no kernel address goes on the wire)
 * @conn: the connection it goes on
 * @reg: its entry
 * @mr: the MR
 * @sge: the bytes' mapping, an entry per page
 * @n: how many
 * @data: the first byte
 * @access: what the peer may do (IB_ACCESS_*)
 *
 * Context: process (a device may sleep mapping a page list); the engine
 * alone.  Return: 0 or -EINVAL.
 */
int fq_rndv_map_mr(struct fq_conn *conn, struct fq_tx_ent *reg, struct ib_mr *mr,
		   const struct ib_sge *sge, int n, const void *data, int access)
{
	struct scatterlist *sg = conn->comm->rndv_room[conn->chan].sg;
	int k;
	u8 key;

	sg_init_table(sg, n);
	for (k = 0; k < n; k++) {
		sg_dma_address(&sg[k]) = sge[k].addr;
		sg_dma_len(&sg[k]) = sge[k].length;
	}
	/* a key byte no peer can guess from the ones it saw (nor the last one) */
	key = get_random_u8();
	ib_update_fast_reg_key(mr, key == (mr->rkey & 0xff) ? key + 1 : key);
	if (ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE) != n)
		return -EINVAL;
	mr->iova = offset_in_page(data);
	reg->reg = (struct ib_reg_wr){
		.wr = { .wr_cqe = &reg->cqe, .opcode = IB_WR_REG_MR },
		.mr = mr,
		.key = mr->rkey,
		.access = access,
	};
	return 0;
}

/*
 * Register [@data, @data + @len), which @map holds, for reading by the
 * peer of @conn (fq_rndv_map_mr()).  Context: as that.
 */
static int fq_rndv_register(struct fq_conn *conn, struct fq_tx_ent *reg, struct ib_mr *mr,
			    const void *data, u32 len, const struct fq_dmamap *map)
{
	struct fq_comm *comm = conn->comm;
	struct ib_sge *sge = comm->rndv_room[conn->chan].sge;
	bool own;
	int n;

	n = fq_sge_build(comm->ibdev, DMA_TO_DEVICE, comm->pd->local_dma_lkey, map, data, len,
			 sge, FQ_RNDV_PAGES, &own);
	if (n <= 0 || own) {	/* the caller checked that @map holds the bytes */
		if (n > 0 && own)
			fq_sge_unmap(comm->ibdev, DMA_TO_DEVICE, sge, n);
		return n < 0 ? n : -EINVAL;
	}
	return fq_rndv_map_mr(conn, reg, mr, sge, n, data, IB_ACCESS_REMOTE_READ);
}

/**
 * fq_rndv_send() - build a read request for @nmsg consecutive data
 * messages of a transfer, @len bytes in all: its MR's registration, then
 * the request; fq_cm_post() posts them
 * @conn: an established connection
 * @x: the send they are of
 * @data: the bytes, in a buffer the device has mapped (@map)
 * @len: how many, up to FQ_RNDV_MAX_BYTES
 * @map: that mapping
 * @ack: the transfer's; messages @msg on are marked done once the peer
 *	read them all (its FIN) and the MR is invalidated
 * @msg: the first message's index in its transfer
 * @nmsg: how many messages
 *
 * The caller checked fq_rndv_can_send().  The bytes must stay put until @ack
 * says so.  Context: process; hw_rwsem held for reading.
 * Return: 0 or -errno.
 */
int fq_rndv_send(struct fq_conn *conn, const struct fq_xfer *x, const void *data, u32 len,
		 const struct fq_dmamap *map, struct fq_ack *ack, u64 msg, u32 nmsg)
{
	struct fq_comm *comm = conn->comm;
	struct fq_chan *ch = &comm->chans[conn->chan];
	struct fq_tx_ent *reg, *ent;
	struct fabriq_rts *rts;
	u32 slot, fault, i;
	struct ib_mr *mr;
	int err;

	spin_lock_bh(conn->lock);
	i = __ffs(ch->mr_free);	/* fq_rndv_can_send() saw one */
	ch->mr_free &= ~BIT(i);
	mr = comm->mrs[i];
	reg = fq_tx_take(conn, FQ_TX_REG);
	ent = fq_tx_take(conn, FQ_TX_SEND);
	slot = fq_tx_slot(conn);
	ent->mr = mr;
	ent->msg = msg;
	ent->bytes = len;
	conn->rndv[conn->rndv_head % FQ_CREDITS] = (struct fq_rndv){ mr, ack, msg, nmsg };
	conn->rndv_head++;
	spin_unlock_bh(conn->lock);

	err = fq_rndv_register(conn, reg, mr, data, len, map);
	if (err) {
		spin_lock_bh(conn->lock);
		ch->mr_free |= BIT(i);	/* not registered */
		spin_unlock_bh(conn->lock);
		fq_tx_unwind(conn, ent, err);
		fq_tx_unwind(conn, reg, err);
		return err;
	}
	rts = conn->tx_buf[slot];
	*rts = (struct fabriq_rts){
		.addr = cpu_to_be64(mr->iova),
		.rkey = cpu_to_be32(mr->rkey),
		.len = cpu_to_be32(len),
	};
	fault = xchg(&comm->fault_rndv, FQ_RNDV_FAULT_NONE);
	/* a byte short ends inside the run's last message, 16 KiB or more */
	if (fault == FQ_RNDV_FAULT_LEN)
		rts->len = cpu_to_be32(len - 1);
	else if (fault == FQ_RNDV_FAULT_RKEY)
		rts->rkey = cpu_to_be32(mr->rkey ^ 0x5a5a5a00);
	/* not this one's to break: a FIN's, or a copy's while one the peer reduces is asked */
	else if (fault == FQ_RNDV_FAULT_FIN ||
		 (fault == FQ_RNDV_FAULT_REDUCE && x->into == FQ_X_RECV))
		WRITE_ONCE(comm->fault_rndv, fault);
	ib_dma_sync_single_for_device(comm->ibdev, conn->tx_dma[slot], sizeof(*rts), DMA_TO_DEVICE);
	fq_tx_slot_send(conn, ent, slot,
			fault == FQ_RNDV_FAULT_SHORT ? sizeof(rts->addr) : sizeof(*rts),
			FQ_IMM_DATA | FQ_IMM_RTS);
	return 0;
}

/**
 * fq_rndv_read() - build the read of @len bytes at @at of the bytes a
 * read request @rts the peer sent on @conn lends, into [@dst, @dst +
 * @len); fq_cm_post() posts it
 * @conn: the connection
 * @rts: the request (fq_cm_peek())
 * @at: where in what it lends: the message's offset from its first one
 * @dst: where the bytes go
 * @len: how many (one message)
 * @ack: the receive's; message @msg is marked placed when the read completes
 * @msg: the message's index in its transfer
 * @last: the request's last message: when its read completes, the
 *	request is read (a FIN for the peer); reads complete in order
 *
 * Context: process; hw_rwsem held for reading.  Return: 0, -EAGAIN (no
 * room on the send queue now) or -errno.
 */
int fq_rndv_read(struct fq_conn *conn, const void *rts, u32 at, void *dst, u32 len,
		 struct fq_ack *ack, u64 msg, bool last)
{
	const struct fabriq_rts *req = rts;
	struct fq_comm *comm = conn->comm;
	struct fq_tx_ent *ent;
	bool own;
	int n;

	spin_lock_bh(conn->lock);
	if (!fq_tx_room(conn, 1)) {
		spin_unlock_bh(conn->lock);
		return -EAGAIN;
	}
	ent = fq_tx_take(conn, FQ_TX_READ);
	ent->ack = ack;
	ent->msg = msg;
	ent->bytes = len;
	ent->dir = DMA_FROM_DEVICE;
	ent->fin = last;
	spin_unlock_bh(conn->lock);

	n = fq_sge_build(comm->ibdev, DMA_FROM_DEVICE, comm->pd->local_dma_lkey, NULL, dst, len,
			 ent->sge, conn->tx_sges, &own);
	if (n < 0) {
		fq_tx_unwind(conn, ent, n);
		return n;
	}
	ent->nsge = n;
	ent->rdma = (struct ib_rdma_wr){
		.wr = {
			.wr_cqe = &ent->cqe,
			.opcode = IB_WR_RDMA_READ,
			.sg_list = ent->sge,
			.num_sge = n,
		},
		.remote_addr = be64_to_cpu(req->addr) + at,
		.rkey = be32_to_cpu(req->rkey),
	};
	return 0;
}

/*
 * Build the invalidation of @mr, of @kind (FQ_TX_INV, FQ_TX_UNGRANT),
 * whose completion marks messages @msg .. @msg + @nmsg - 1 of @ack done
 * and puts the MR back.  Context: @conn's lock held; there is room.
 */
static void fq_rndv_build_inv_locked(struct fq_conn *conn, u8 kind, struct ib_mr *mr,
				     struct fq_ack *ack, u64 msg, u32 nmsg)
{
	struct fq_tx_ent *ent = fq_tx_take(conn, kind);

	ent->mr = mr;
	ent->ack = ack;
	ent->msg = msg;
	ent->nmsg = nmsg;
	ent->wr = (struct ib_send_wr){
		.wr_cqe = &ent->cqe,
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = mr->rkey,
	};
}

/**
 * fq_rndv_build_inv() - build the invalidation of @mr; fq_cm_post() posts it
 * @conn: the connection, with room for it, where it may be built now
 *	(fq_rndv_local_may_go())
 * @kind: FQ_TX_INV or FQ_TX_UNGRANT
 * @mr: the MR
 * @ack: whose messages its completion marks done
 * @msg: the first
 * @nmsg: how many
 *
 * Context: process; the engine alone; hw_rwsem held for reading.
 */
void fq_rndv_build_inv(struct fq_conn *conn, u8 kind, struct ib_mr *mr, struct fq_ack *ack,
		       u64 msg, u32 nmsg)
{
	spin_lock_bh(conn->lock);
	fq_rndv_build_inv_locked(conn, kind, mr, ack, msg, nmsg);
	spin_unlock_bh(conn->lock);
}

/**
 * fq_rndv_release() - build the invalidations of the MRs of read
 * requests the peer of @conn has read; fq_cm_post() posts them
 * @conn: a connection
 *
 * Each marks its send's message done when it completes, and puts its MR
 * back: the peer cannot read the bytes any more once they may change.
 *
 * Only when they may be built now (fq_rndv_local_may_go()).
 * Context: process; hw_rwsem held for reading.
 */
void fq_rndv_release(struct fq_conn *conn)
{
	struct fq_rndv *r;

	/* the engine alone moves rndv_inv: nothing to do costs no lock */
	if (!conn->rndv_ok || READ_ONCE(conn->rndv_fin) == conn->rndv_inv)
		return;
	spin_lock_bh(conn->lock);
	if (!fq_rndv_local_may_go(conn))
		goto out;
	while (conn->rndv_inv != conn->rndv_fin && fq_tx_room(conn, 1)) {
		r = &conn->rndv[conn->rndv_inv++ % FQ_CREDITS];
		fq_rndv_build_inv_locked(conn, FQ_TX_INV, r->mr, r->ack, r->msg, r->nmsg);
	}
out:
	spin_unlock_bh(conn->lock);
}

/* ---- the fault knob (debugfs fault_rndv) ---- */

const char *const fq_rndv_fault_names[FQ_RNDV_FAULT_COUNT] = {
	[FQ_RNDV_FAULT_NONE] = "none",
	[FQ_RNDV_FAULT_LEN] = "len",
	[FQ_RNDV_FAULT_SHORT] = "short",
	[FQ_RNDV_FAULT_RKEY] = "rkey",
	[FQ_RNDV_FAULT_REDUCE] = "reduce",
	[FQ_RNDV_FAULT_FIN] = "fin",
	[FQ_RNDV_FAULT_CTS_LEN] = "cts_len",
	[FQ_RNDV_FAULT_CTS_RKEY] = "cts_rkey",
	[FQ_RNDV_FAULT_UNWRITTEN] = "unwritten",
};

/**
 * fq_rndv_fault_fin() - is the FIN about to go out to be broken?
 * @comm: the communicator
 *
 * Return: true once, if the knob says "fin".
 */
bool fq_rndv_fault_fin(struct fq_comm *comm)
{
	u32 fin = FQ_RNDV_FAULT_FIN;

	return READ_ONCE(comm->fault_rndv) == fin &&
	       cmpxchg(&comm->fault_rndv, fin, FQ_RNDV_FAULT_NONE) == fin;
}
