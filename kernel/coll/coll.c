// SPDX-License-Identifier: GPL-2.0
/*
 * coll.c - collective operations: checking and queueing a call, pinning
 * its user buffers, and the engine that runs each call's schedule
 * (algo*.c) over the transport (cm.c), doing the reductions (reduce*.c).
 *
 * A communicator's engine is a work item on the fabriq_coll workqueue,
 * queued when a call is: it runs the queued calls in submission order and
 * ends when none is left, so an idle communicator holds no thread (the
 * workqueue's pool does).  A synchronous call that finds nothing queued runs in the
 * caller's own context instead (two thread switches fewer per call);
 * run_lock keeps the two from running calls at the same time.
 * A call of two chunks per block or more is cut into a slice per
 * channel (algo.h), and each channel runs the whole schedule on its slice
 * alone, over its own connections; the call ends when every channel's
 * schedule has.  Channels 1 and up each run in a channel worker of their
 * own (the fabriq_chan workqueue) while the call's thread runs channel 0:
 * they send, wait and reduce in parallel, each sleeping on its channel's
 * waitqueue, which only its own completions wake (the module parameter
 * chan_workers turns this off: the call's thread runs them all, side by
 * side).  Within a channel every transfer is cut into chunk-sized
 * messages and all of them are kept moving at once, up to the credits,
 * with two steps in flight: each message is sent, or received and reduced
 * or copied into place, as soon as the bytes it touches are ready (pipe.c
 * says when).
 *
 * User buffers are pinned and mapped once and kept across calls
 * (regcache.c, umem.c); the engine reads and writes them in place and
 * sends straight from them.  A
 * small synchronous call (FQ_COPY_MAX_BYTES) works on kernel copies
 * instead, copied out by the caller when it is done; one of at most
 * FQ_SMALL_BYTES runs on the communicator's preallocated call and
 * staging, and allocates nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/workqueue.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "core/fabriq.h"
#include "comm.h"
#include "reduce.h"

#define FQ_MAX_OP_BYTES		SZ_1G
/*
 * A synchronous call moving at most this much works on kernel copies of
 * the user buffers: copying is cheaper than pinning and mapping the pages
 * (and tearing the mapping down) for every small call.
 */
#define FQ_COPY_MAX_BYTES	SZ_64K

/*
 * A call's operation, on @nact channels: the communicator's preallocated
 * one for a small synchronous call (@small, on one channel), unless
 * another call holds it.
 */
static struct fq_op *fq_op_alloc(struct fq_comm *comm, bool small, u32 nact)
{
	struct fq_small *sm = comm->small;
	struct fq_op *op;

	if (small && nact == 1 && !test_and_set_bit_lock(0, &sm->busy)) {
		op = sm->op;
		memset(op, 0, struct_size(op, ch, 1));
		op->small = true;
		op->in.stage = sm->stage[0];
		op->out.stage = sm->stage[1];
		WRITE_ONCE(sm->calls, sm->calls + 1);
	} else {
		op = kzalloc(struct_size(op, ch, nact), GFP_KERNEL_ACCOUNT);
		if (!op)
			return NULL;
	}
	op->nact = nact;
	atomic_inc(&fq_objects.ops);
	return op;
}

/* Scratch of @len bytes for @op: its staging if it is the small call and it fits. */
static void *fq_op_scratch(struct fq_comm *comm, struct fq_op *op, u64 len)
{
	if (op->small && len <= FQ_SMALL_BYTES)
		return comm->small->stage[2];
	return kvmalloc(len, FQ_GFP_USER_SIZED);
}

static void fq_op_free(struct fq_comm *comm, struct fq_op *op)
{
	fq_unpin(&op->in);
	fq_unpin(&op->out);
	atomic_dec(&fq_objects.ops);
	if (!op->small) {
		kvfree(op->scratch);
		kfree(op);
		return;
	}
	if (op->scratch != comm->small->stage[2])
		kvfree(op->scratch);
	clear_bit_unlock(0, &comm->small->busy);
}

/* ---- checking a call ---- */

static bool fq_coll_reduces(u32 coll)
{
	return coll == FABRIQ_COLL_ALLREDUCE || coll == FABRIQ_COLL_REDUCESCATTER ||
	       coll == FABRIQ_COLL_REDUCE;
}

/* -EINVAL for a malformed call, -EOVERFLOW for one too big */
static int fq_coll_check(struct fq_comm *comm, const struct fabriq_coll *req, u64 *blk)
{
	u64 total;

	if (req->coll >= __FABRIQ_COLL_MAX || req->reserved ||
	    (req->flags & ~FABRIQ_COLL_F_ASYNC) || req->algo >= __FABRIQ_ALGO_MAX)
		return -EINVAL;
	if (req->coll == FABRIQ_COLL_BARRIER) {
		*blk = 0;
		return 0;
	}
	if (!fq_dtype_size(req->dtype))
		return -EINVAL;
	if (fq_coll_reduces(req->coll) ? !fq_reduce_valid(req->dtype, req->redop) : req->redop)
		return -EINVAL;
	if ((req->coll == FABRIQ_COLL_BROADCAST || req->coll == FABRIQ_COLL_REDUCE)
	    ? req->root >= comm->nranks : req->root)
		return -EINVAL;
	if (check_mul_overflow(req->count, (u64)fq_dtype_size(req->dtype), blk) ||
	    check_mul_overflow(*blk, (u64)comm->nranks, &total) || total > FQ_MAX_OP_BYTES)
		return -EOVERFLOW;
	return 0;
}

/* The call's input: @len bytes at sendbuf, cached or (@copy) copied. */
static int fq_op_in(struct fq_comm *comm, struct fq_op *op, u64 len, bool copy)
{
	return fq_user_buf(&comm->regs, &op->in, op->req.sendbuf, len, false, copy);
}

/* The call's output: @len bytes at recvbuf. */
static int fq_op_out(struct fq_comm *comm, struct fq_op *op, u64 len, bool copy)
{
	return fq_user_buf(&comm->regs, &op->out, op->req.recvbuf, len, true, copy);
}

/*
 * Where the input lies against the work buffer's input window, which is
 * at @lo for @len bytes (enum fq_input_place).  Kernel copies never
 * overlap.
 */
static enum fq_input_place fq_op_input_place(const struct fq_op *op, u64 *lo, u64 *len)
{
	const struct fabriq_coll *req = &op->req;
	u64 outlen;

	if (!fq_fresh_window(&op->sched, lo, len))
		return FQ_INPUT_NONE;
	if (op->in.copy || op->work != op->out.ptr)
		return FQ_INPUT_APART;
	if (req->sendbuf == req->recvbuf + *lo)
		return FQ_INPUT_IN_PLACE;
	outlen = req->coll == FABRIQ_COLL_ALLGATHER ? *len * op->sched.nranks : *len;
	return req->sendbuf < req->recvbuf + outlen && req->recvbuf < req->sendbuf + *len ?
	       FQ_INPUT_OVERLAPS : FQ_INPUT_APART;
}

/*
 * Pin the buffers (or copy them: @copy) and lay out the work buffer
 * (see algo.h).
 */
static int fq_op_buffers(struct fq_comm *comm, struct fq_op *op, u64 blk, bool copy)
{
	const struct fabriq_coll *req = &op->req;
	u64 all = blk * comm->nranks, lo, inlen;
	bool root = comm->rank == req->root;
	int err = 0;

	switch (req->coll) {
	case FABRIQ_COLL_ALLREDUCE:
		err = fq_op_in(comm, op, blk, copy) ?: fq_op_out(comm, op, blk, copy);
		op->work = op->out.ptr;
		break;
	case FABRIQ_COLL_ALLGATHER:
		err = fq_op_in(comm, op, blk, copy) ?: fq_op_out(comm, op, all, copy);
		op->work = op->out.ptr;
		break;
	case FABRIQ_COLL_REDUCESCATTER:
		err = fq_op_in(comm, op, all, copy) ?: fq_op_out(comm, op, blk, copy);
		op->scratch = err || !all ? NULL : fq_op_scratch(comm, op, all);
		if (!err && all && !op->scratch)
			err = -ENOMEM;
		op->work = op->scratch;
		break;
	case FABRIQ_COLL_BROADCAST:
		err = (root ? fq_op_in(comm, op, blk, copy) : 0) ?: fq_op_out(comm, op, blk, copy);
		op->work = op->out.ptr;
		break;
	case FABRIQ_COLL_REDUCE:
		err = fq_op_in(comm, op, blk, copy) ?:
		      (root ? fq_op_out(comm, op, blk, copy) : 0);
		if (!err && !root && blk) {
			op->scratch = fq_op_scratch(comm, op, blk);
			err = op->scratch ? 0 : -ENOMEM;
		}
		op->work = root ? op->out.ptr : op->scratch;
		break;
	case FABRIQ_COLL_ALLTOALL:
		err = fq_op_in(comm, op, all, copy) ?: fq_op_out(comm, op, all, copy);
		/* in place (or overlapping): send from a copy of the input */
		if (!err && all && req->sendbuf < req->recvbuf + all &&
		    req->recvbuf < req->sendbuf + all) {
			op->scratch = fq_op_scratch(comm, op, all);
			err = op->scratch ? 0 : -ENOMEM;
		}
		op->work = op->out.ptr;
		op->src = op->scratch ? op->scratch : op->in.ptr;
		break;
	}
	if (err)
		return err;
	/* an input partly over its output: room for a copy (fq_op_prepare) */
	op->input = fq_op_input_place(op, &lo, &inlen);
	if (op->input == FQ_INPUT_OVERLAPS) {
		op->scratch = fq_op_scratch(comm, op, inlen);
		err = op->scratch ? 0 : -ENOMEM;
	}
	return err;
}

/*
 * Where the input stands in the work buffer before step 0 (coll_fresh.c):
 * nothing is copied there.  An input that is the output's own bytes (in
 * place) is there already; one that partly overlaps it is read from the
 * copy fq_op_buffers() made room for.  Each channel's schedule runs on
 * its slice, and keeps its own account of which of its bytes stand for
 * the input.
 */
static void fq_op_prepare(struct fq_comm *comm, struct fq_op *op, u64 blk)
{
	struct fq_op_chan *oc;
	u32 c;
	const struct fabriq_coll *req = &op->req;
	const void *src = op->in.ptr;
	u32 r = comm->rank;
	u64 lo, len;

	if (req->coll == FABRIQ_COLL_ALLTOALL && blk) {
		if (op->scratch)
			memcpy(op->scratch, op->in.ptr, blk * comm->nranks);
		memmove(op->work + r * blk, op->src + r * blk, blk);
	}
	fq_fresh_window(&op->sched, &lo, &len);	/* op->input says if there is one */
	if (op->input == FQ_INPUT_OVERLAPS) {
		memcpy(op->scratch, op->in.ptr, len);
		src = op->scratch;
	} else if (op->input != FQ_INPUT_APART) {
		src = NULL;	/* in place, or no window */
	}
	for (c = 0; c < op->nact; c++) {
		oc = &op->ch[c];
		oc->chan = c;
		oc->view = fq_chan_view(blk, op->nact, c);
		oc->sched = op->sched;
		oc->sched.count = oc->view.slen / op->sched.esize;
		fq_fresh_window(&oc->sched, &lo, &len);
		fq_fresh_init(&oc->fresh, op->work, src, lo, len, &oc->view);
	}
}

/* What is left after the last step: the output's input bytes, the reduce-scatter's part, avg. */
static void fq_op_finish(struct fq_comm *comm, struct fq_op *op, u64 blk)
{
	const struct fabriq_coll *req = &op->req;
	u32 es = fq_dtype_size(req->dtype);
	struct fq_op_chan *oc;

	if (!blk)
		return;
	for (oc = op->ch; oc < op->ch + op->nact; oc++)
		fq_fresh_finish(&oc->fresh, &oc->sched, op->work == op->out.ptr);
	if (req->coll == FABRIQ_COLL_REDUCESCATTER)
		memcpy(op->out.ptr, op->work + comm->rank * blk, blk);
	if (req->redop != FABRIQ_OP_AVG)
		return;
	if (req->coll == FABRIQ_COLL_REDUCESCATTER || req->coll == FABRIQ_COLL_ALLREDUCE ||
	    comm->rank == req->root)
		fq_reduce_avg_finish(req->dtype, op->out.ptr, blk / es, comm->nranks);
}

/* ---- the engine ---- */

/*
 * The bytes at offset @off of transfer @x's buffer, as channel @oc sees
 * it, and after them the rest of @off's block (no transfer crosses one).
 */
static void *fq_xptr(const struct fq_op *op, const struct fq_op_chan *oc,
		     const struct fq_xfer *x, u64 off)
{
	return (x->buf == FQ_BUF_SRC ? op->src : op->work) + fq_view_off(&oc->view, off);
}

/*
 * What the completions marked so far (sends done with, receives placed),
 * into the pipe's view of step @a (pipe.c).
 */
static void fq_op_sync_freed(struct fq_op_chan *oc, u32 a)
{
	struct fq_pipe_step *ps = fq_pipe_at(&oc->pipe, a);
	const struct fq_ack *acked = oc->acked[fq_pipe_slot(&oc->pipe, a)];
	u32 i;

	for (i = 0; i < ps->st.n; i++) {
		if (ps->st.x[i].op == FQ_X_SEND)
			ps->xs[i].freed = fq_ack_done(&acked[i]);
		else
			ps->xs[i].msgs = fq_ack_done(&acked[i]);
	}
}

/*
 * How long step @a waited for a peer whose data is now all in: since it
 * was admitted or the step before it ended, whichever came later.  Data
 * that came while an earlier step still ran was not waited for.
 */
static u64 fq_op_step_waited(struct fq_op_chan *oc, u32 a)
{
	if (a)
		return 0;
	return ktime_get_ns() - max(oc->clock[fq_pipe_slot(&oc->pipe, a)].admit_ns,
				    oc->last_done_ns);
}

/*
 * The device's mapping of @p's registered buffer, made the first time it
 * is asked for (regcache.c, dmamap.c); NULL if it could not be mapped.
 * Context: hw_rwsem held for reading, the device there; one thread runs
 * the call, or the channel workers do not start before it is made
 * (fq_op_dmamap_all()).
 */
static const struct fq_dmamap *fq_pin_dma(struct fq_comm *comm, struct fq_pin *p)
{
	if (!p->dma_tried) {
		p->dma = fq_reg_dma(p->reg, comm->ibdev);
		p->dma_tried = true;
	}
	return p->dma;
}

/*
 * The device's mapping of the registered buffer @from is in, made at the
 * first send from it.  NULL: @from is in none (a kernel copy, a work
 * buffer) or it could not be mapped, and each zero-copy send maps its
 * own pages.  Context: hw_rwsem held for reading.
 */
static const struct fq_dmamap *fq_op_dmamap(struct fq_comm *comm, struct fq_op *op,
					    const void *from)
{
	struct fq_pin *pins[] = { &op->in, &op->out };
	u32 k;

	for (k = 0; k < ARRAY_SIZE(pins); k++)
		if (pins[k]->reg && fq_reg_holds(pins[k]->reg, from))
			return fq_pin_dma(comm, pins[k]);
	return NULL;
}

/*
 * Before channel workers start: the device's mappings of the call's
 * registered buffers, which zero-copy sends read, so that no channel
 * makes one while another looks (fq_pin_dma()).
 */
static void fq_op_dmamap_all(struct fq_comm *comm, struct fq_op *op)
{
	struct fq_pin *pins[] = { &op->in, &op->out };
	u32 k;

	if (!comm->zero_copy)
		return;
	down_read(&comm->hw_rwsem);
	for (k = 0; !comm->hw_gone && k < ARRAY_SIZE(pins); k++)
		if (pins[k]->reg)
			fq_pin_dma(comm, pins[k]);
	up_read(&comm->hw_rwsem);
}

/*
 * How many messages of send @i of the @a-th step in flight, from its next
 * one on, may one read request lend: those ready now (the first is), each
 * large enough, all in @map, within the transfer's ack window and the
 * bytes a request lends (comm->rndv_max_bytes, which full chunks bound
 * before any is looked at).  @len: the first one's length, set to theirs.
 */
static u32 fq_pump_rndv_span(struct fq_comm *comm, struct fq_op_chan *oc, u32 a, u32 i,
			     const struct fq_dmamap *map, const void *bytes, u32 *len)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_pipe_step *ps = fq_pipe_at(p, a);
	const struct fq_xfer *x = &ps->st.x[i];
	const struct fq_ack *ack = &oc->acked[fq_pipe_slot(p, a)][i];
	/* the ack window is of messages, not requests; full chunks cap the bytes */
	u32 window = FQ_ACK_WINDOW - (ps->xs[i].msgs - READ_ONCE(ack->prefix));
	u32 chunks = max_t(u32, comm->rndv_max_bytes / p->chunk, 1);
	u32 n, ready, next, total = *len;
	u64 off;

	ready = fq_pipe_send_run(p, a, i, min(window, chunks));
	for (n = 1; n < ready; n++) {
		fq_pipe_msg(p, x, ps->xs[i].msgs + n, &off, &next);
		/*
		 * No message is longer than a chunk, and rndv_max_bytes is at
		 * least one, so @chunks keeps total within what an MR maps.
		 */
		if (!fq_rndv_wanted(comm, x, next) ||
		    !fq_dmamap_covers(map, bytes, total + next))
			break;
		total += next;
	}
	*len = total;
	return n;
}

/*
 * Send @i of the @a-th step in flight of @oc, a channel of @op, builds
 * what it may, and posts it.
 */
static int fq_pump_send(struct fq_comm *comm, struct fq_op *op, struct fq_op_chan *oc, u32 a,
			u32 i, bool *progress)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_pipe_step *ps = fq_pipe_at(p, a);
	const struct fq_xfer *x = &ps->st.x[i];
	struct fq_xstate *xs = &ps->xs[i];
	struct fq_ack *ack = &oc->acked[fq_pipe_slot(p, a)][i];
	struct fq_peer *peer = &comm->peers[x->peer];
	const void *from = xs->input ? fq_fresh_src(&oc->fresh, x->off) :
			   fq_xptr(op, oc, x, x->off);
	/* only zero-copy sends read the buffer through the device */
	const struct fq_dmamap *map = comm->zero_copy && x->len >= FQ_ZC_MIN_BYTES ?
				      fq_op_dmamap(comm, op, from) : NULL;
	struct fq_conn *conn = peer->ch[oc->chan];
	int err = 0, post, rts, written;
	struct fq_write_to to;
	const void *bytes;
	u32 len, nmsg;
	u64 off;

	/* read requests the peer read: their MRs invalidated, their sends freed */
	fq_rndv_release(conn);
	while (fq_pipe_send_ready(p, a, i) &&
	       xs->msgs - READ_ONCE(ack->prefix) < FQ_ACK_WINDOW) {
		if (fq_cm_closed(conn)) {
			err = -ECONNRESET;
			break;
		}
		fq_pipe_msg(p, x, xs->msgs, &off, &len);
		bytes = from + (off - x->off);
		/* a copy the peer may read into place, from bytes the device has mapped */
		rts = fq_rndv_wanted(comm, x, len) && fq_dmamap_covers(map, bytes, len) ?
		      fq_rndv_can_send(conn) : -EAGAIN;
		if (!rts)
			break;
		nmsg = rts > 0 ? fq_pump_rndv_span(comm, oc, a, i, map, bytes, &len) : 1;
		if (rts > 0) {
			err = fq_rndv_send(conn, x, bytes, len, map, ack, xs->msgs, nmsg);
		} else if (fq_cm_can_send(conn)) {
			/* where the peer granted it, if it did (push.c) */
			written = fq_push_target(conn, p, x, xs->msgs, &to);
			if (written < 0) {
				err = written;
				break;
			}
			err = fq_cm_send(conn, bytes, len, map, ack, xs->msgs,
					 written ? &to : NULL);
			if (!err && written)
				fq_push_used(conn, len);
		} else {
			break;
		}
		if (err)
			break;
		WRITE_ONCE(conn->msgs.send_seq, conn->msgs.send_seq + 1);
		WRITE_ONCE(conn->msgs.tx_bytes, conn->msgs.tx_bytes + len);
		atomic64_add(len, &comm->bytes);
		xs->msgs += nmsg;
		*progress = true;
	}
	/* what was built goes out, error or not */
	post = fq_cm_post(conn);
	return err ?: post;
}

/* The message from @peer is not the one the schedule expects: say what it was. */
static void fq_pump_refuse(struct fq_comm *comm, struct fq_peer *peer, bool rts, u8 xop,
			   u32 len, u32 want)
{
	if (rts && len == U32_MAX)
		pr_warn_ratelimited("communicator %llx rank %u: rank %u sent a malformed read request\n",
				    comm->id, comm->rank, peer->rank);
	else if (rts && xop != FQ_X_RECV)
		pr_warn_ratelimited("communicator %llx rank %u: rank %u sent a read request for a message this rank reduces\n",
				    comm->id, comm->rank, peer->rank);
	else if (rts)
		pr_warn_ratelimited("communicator %llx rank %u: rank %u sent a read request of %u bytes, not a run of whole messages from one of %u\n",
				    comm->id, comm->rank, peer->rank, len, want);
	else
		pr_warn_ratelimited("communicator %llx rank %u: rank %u sent a message of %u bytes, not %u\n",
				    comm->id, comm->rank, peer->rank, len, want);
}

/*
 * Nothing from the peer of receive @i of the @a-th step in flight of @oc,
 * a copy, waits: grant the peer a run of its messages that may be written
 * into place now, each large enough, within the receive's ack window and
 * the bytes one MR maps, from the first it has not sent yet as far as
 * this rank can tell (push.c), if it may.
 */
static int fq_pump_grant(struct fq_comm *comm, struct fq_op *op, struct fq_op_chan *oc, u32 a,
			 u32 i)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_pipe_step *ps = fq_pipe_at(p, a);
	const struct fq_xfer *x = &ps->st.x[i];
	struct fq_xstate *xs = &ps->xs[i];
	struct fq_ack *ack = &oc->acked[fq_pipe_slot(p, a)][i];
	struct fq_conn *conn = comm->peers[x->peer].ch[oc->chan];
	u32 window = FQ_ACK_WINDOW - (xs->issued - READ_ONCE(ack->prefix));
	/* full chunks cap the bytes */
	u32 chunks = max_t(u32, comm->rndv_max_bytes / p->chunk, 1);
	u32 n, ready, len, ahead, total = 0;
	u64 off, from;

	if (x->op != FQ_X_RECV || !fq_push_can_grant(conn, &ahead))
		return 0;
	from = xs->issued + ahead;
	if (from >= xs->nmsg || ahead >= window)
		return 0;
	ready = fq_pipe_recv_run(p, a, i, from, min(window - ahead, chunks));
	for (n = 0; n < ready; n++) {
		fq_pipe_msg(p, x, from + n, &off, &len);
		if (len < FQ_RNDV_MIN_BYTES)
			break;
		total += len;
	}
	if (!n)
		return 0;
	fq_pipe_msg(p, x, from, &off, &len);
	return fq_push_grant(conn, ahead, ack, from, fq_xptr(op, oc, x, off), total, n);
}

/*
 * Receive @i of the @a-th step in flight of @oc, a channel of @op, places
 * (copies or reduces) what it may; a read request it reads into place,
 * placed when the read is done.
 */
static int fq_pump_recv(struct fq_comm *comm, struct fq_op *op, struct fq_op_chan *oc, u32 a,
			u32 i, bool *progress)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_pipe_step *ps = fq_pipe_at(p, a);
	const struct fq_xfer *x = &ps->st.x[i];
	struct fq_xstate *xs = &ps->xs[i];
	struct fq_ack *ack = &oc->acked[fq_pipe_slot(p, a)][i];
	struct fq_peer *peer = &comm->peers[x->peer];
	u32 op_eff = op->req.redop == FABRIQ_OP_AVG ? FABRIQ_OP_SUM : op->req.redop;
	u32 es = fq_dtype_size(op->req.dtype);
	struct fq_conn *conn = peer->ch[oc->chan];
	bool rts, last, written, later;
	void *data, *dst;
	int err = 0, post;
	u32 len, want;
	u64 off;

	while (fq_pipe_recv_ready(p, a, i) &&
	       xs->issued - READ_ONCE(ack->prefix) < FQ_ACK_WINDOW) {
		if (fq_cm_peek(conn, &data, &len, &rts, &written)) {
			err = fq_cm_closed(conn);
			/* nothing waits: the peer may write the next ones into place */
			if (!err && comm->write_grants)
				err = fq_pump_grant(comm, op, oc, a, i);
			err = min(err, 0);
			break;
		}
		fq_pipe_msg(p, x, xs->issued, &off, &want);
		/* the run of messages a read request lends, the first time it is seen */
		if (rts && !conn->rts_msgs)
			conn->rts_msgs = len > FQ_RNDV_MAX_BYTES ? 0 :	/* U32_MAX: malformed */
					 fq_pipe_msgs_in(p, x, xs->issued, len, FQ_ACK_WINDOW);
		/* a read request only for a copy (the sender knows: fq_xfer.into) */
		if (rts ? !conn->rts_msgs || x->op != FQ_X_RECV : len != want) {
			fq_pump_refuse(comm, peer, rts, x->op, len, want);
			err = -EPROTO;
			break;
		}
		dst = fq_xptr(op, oc, x, off);
		last = true;
		if (rts) {
			/* one read per message; the request is done with at its last */
			last = conn->rts_read + 1 == conn->rts_msgs;
			err = fq_rndv_read(conn, data, conn->rts_read * p->chunk, dst, want, ack,
					   xs->issued, last);
			if (err) {
				err = err == -EAGAIN ? 0 : err;
				break;
			}
			conn->rts_read = last ? 0 : conn->rts_read + 1;
			if (last)
				conn->rts_msgs = 0;
		} else {
			/* written into place, or the first a grant covered, or neither */
			err = fq_push_taken(conn, written, ack, xs->issued, dst, want, &later);
			if (err) {
				err = err == -EAGAIN ? 0 : err;
				break;
			}
			if (x->op == FQ_X_RECV && !written)	/* else in place already */
				memcpy(dst, data, want);
			else if (x->op != FQ_X_RECV && xs->input) /* fused: reads the input */
				fq_reduce_to(op->req.dtype, op_eff, dst,
					     fq_fresh_src(&oc->fresh, off), data, want / es);
			else if (x->op != FQ_X_RECV)
				fq_reduce(op->req.dtype, op_eff, dst, data, want / es);
			if (!later)	/* else when the grant's invalidation completes */
				fq_cm_placed(conn, ack, xs->issued);
		}
		if (last) {
			err = fq_cm_consume(conn);
			if (err)
				break;
			WRITE_ONCE(conn->msgs.recv_seq, conn->msgs.recv_seq + 1);
		}
		WRITE_ONCE(conn->msgs.rx_bytes, conn->msgs.rx_bytes + want);
		xs->issued++;
		*progress = true;
		/* the channels wait at once: each counts its share */
		if (xs->issued == xs->nmsg)
			fq_stats_step_wait(comm, peer, oc->chan, ps->k,
					   fq_op_step_waited(oc, a) / op->nact, x->len);
	}
	xs->msgs = fq_ack_done(ack);
	/* reads built go out; credits and FINs that could not go out before */
	post = fq_cm_post(conn);
	err = err ?: post;
	post = fq_cm_return_credits(conn, false);
	return err ?: post;
}

/*
 * The @a-th step in flight moved: the first time, note when, and whether
 * a step before it was still running then (the steps overlap).
 */
static void fq_op_step_moved(struct fq_op_chan *oc, u32 a)
{
	struct fq_step_clock *clk = &oc->clock[fq_pipe_slot(&oc->pipe, a)];
	u32 b;

	if (clk->first_ns)
		return;
	clk->first_ns = ktime_get_ns();
	for (b = 0; b < a && !clk->overlapped; b++) {
		fq_op_sync_freed(oc, b);
		clk->overlapped = !fq_pipe_step_done(fq_pipe_at(&oc->pipe, b));
	}
}

/* One pass over every step in flight of @oc, a channel of @op.  Return: 0 or -errno. */
static int fq_op_pass(struct fq_comm *comm, struct fq_op *op, struct fq_op_chan *oc,
		      bool *progress)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_pipe_step *ps;
	bool moved;
	u32 a, i;
	int err;

	down_read(&comm->hw_rwsem);
	/* the communicator failed, or another channel of the call did */
	err = READ_ONCE(comm->err) ?: READ_ONCE(op->failed);
	if (!err && comm->hw_gone)
		err = -ENODEV;
	for (a = 0; !err && a < p->n; a++) {
		ps = fq_pipe_at(p, a);
		moved = false;
		fq_op_sync_freed(oc, a);
		for (i = 0; !err && i < ps->st.n; i++)
			err = ps->st.x[i].op == FQ_X_SEND ?
			      fq_pump_send(comm, op, oc, a, i, &moved) :
			      fq_pump_recv(comm, op, oc, a, i, &moved);
		if (moved) {
			fq_op_step_moved(oc, a);
			*progress = true;
		}
	}
	up_read(&comm->hw_rwsem);
	return err;
}

/* Channel @c moved: it waits on nobody now (ctrl.c's heartbeats tell). */
static void fq_chan_moved(struct fq_comm *comm, u32 c)
{
	struct fq_chan_run *run = &comm->chans[c].run;

	if (READ_ONCE(run->wait_rank) != FABRIQ_STATUS_NO_RANK)
		WRITE_ONCE(run->wait_rank, FABRIQ_STATUS_NO_RANK);
}

/*
 * Retire the steps that are done, oldest first, and admit the next ones.
 * Return: true if a step was retired.
 */
static bool fq_op_turn(struct fq_comm *comm, struct fq_op_chan *oc)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_step_clock *clk;
	bool retired = false;
	u32 slot;

	while (p->n) {
		fq_op_sync_freed(oc, 0);
		if (!fq_pipe_step_done(fq_pipe_at(p, 0)))
			break;
		clk = &oc->clock[fq_pipe_slot(p, 0)];
		oc->last_done_ns = ktime_get_ns();
		fq_stats_step_done(comm, oc->chan, fq_pipe_at(p, 0)->k, clk, oc->last_done_ns);
		fq_pipe_retire(p);
		retired = true;
	}
	if (retired)
		fq_chan_moved(comm, oc->chan);
	for (slot = fq_pipe_slot(p, p->n); fq_pipe_admit(p); slot = fq_pipe_slot(p, p->n)) {
		memset(oc->acked[slot], 0, sizeof(oc->acked[slot]));
		/* debugfs fault knob: this rank is slow to start each step */
		if (READ_ONCE(comm->fault_delay_us))
			fsleep(min_t(u32, READ_ONCE(comm->fault_delay_us), USEC_PER_SEC));
		oc->clock[slot] = (struct fq_step_clock){ .admit_ns = ktime_get_ns() };
	}
	return retired;
}

static unsigned int busy_poll_us = 200;
module_param(busy_poll_us, uint, 0644);
MODULE_PARM_DESC(busy_poll_us,
		 "longest a collective spins for a completion before it sleeps, in us (0: never spins; default 200; never on software devices)");

#define FQ_BUSY_POLL_MAX_US	1000

/*
 * Is transfer @i of @ps not done yet: a receive with messages still to
 * come, or a send with messages not yet acknowledged (fq_op_sync_freed()
 * brings those up to date)?
 */
static bool fq_xfer_open(const struct fq_pipe_step *ps, u32 i)
{
	const struct fq_xstate *xs = &ps->xs[i];

	return (ps->st.x[i].op == FQ_X_SEND ? xs->freed : xs->msgs) < xs->nmsg;
}

/*
 * Does a step in flight of @oc wait on a send (to go out, or to complete)?
 * (A grant's invalidation waiting for the send queue to drain: see
 * fq_push_waits_tx().)
 */
static bool fq_op_waits_tx(struct fq_op_chan *oc)
{
	struct fq_pipe *p = &oc->pipe;
	struct fq_pipe_step *ps;
	u32 a, i;

	for (a = 0; a < p->n; a++) {
		ps = fq_pipe_at(p, a);
		fq_op_sync_freed(oc, a);
		for (i = 0; i < ps->st.n; i++)
			if (ps->st.x[i].op == FQ_X_SEND && fq_xfer_open(ps, i))
				return true;
	}
	return false;
}

/*
 * Whom the oldest step in flight of channel @oc waits on: the peer of its
 * first transfer not done, receives first; FABRIQ_STATUS_NO_RANK if none.
 */
static u32 fq_chan_waits_on(struct fq_op_chan *oc)
{
	struct fq_pipe_step *ps = fq_pipe_at(&oc->pipe, 0);
	u32 i;

	fq_op_sync_freed(oc, 0);
	for (i = 0; i < ps->st.n; i++)
		if (ps->st.x[i].op != FQ_X_SEND && fq_xfer_open(ps, i))
			return ps->st.x[i].peer;
	for (i = 0; i < ps->st.n; i++)
		if (ps->st.x[i].op == FQ_X_SEND && fq_xfer_open(ps, i))
			return ps->st.x[i].peer;
	return FABRIQ_STATUS_NO_RANK;
}

/*
 * Channel @oc found nothing to do: note its oldest step in flight, whom
 * it waits on and since when, for the heartbeats (fq_run_where()).
 * Progress ends the wait (fq_chan_moved()), so a wait is the time since
 * the channel last moved.
 */
static void fq_chan_note_wait(struct fq_comm *comm, struct fq_op_chan *oc)
{
	struct fq_chan_run *run = &comm->chans[oc->chan].run;
	u32 who;

	if (!oc->pipe.n)
		return;
	who = fq_chan_waits_on(oc);
	WRITE_ONCE(run->step, fq_pipe_at(&oc->pipe, 0)->k);
	if (who == READ_ONCE(run->wait_rank))
		return;
	WRITE_ONCE(run->wait_since_ns, ktime_get_ns());
	WRITE_ONCE(run->wait_rank, who);
}

/**
 * fq_run_where() - where this rank's running call is, for its heartbeats:
 * the channel furthest behind (the lowest oldest step in flight, among
 * those that wait on a peer if any does)
 * @comm: the communicator
 * @step: its step (with no channel running: the step channel 0 got to)
 * @wait_rank: whom it waits on (FABRIQ_STATUS_NO_RANK: nobody)
 * @since_ns: since when (ktime ns)
 *
 * Context: any; reads what the channels' threads write, unlocked.
 */
void fq_run_where(struct fq_comm *comm, u32 *step, u32 *wait_rank, u64 *since_ns)
{
	u32 who = FABRIQ_STATUS_NO_RANK, best = U32_MAX, c, w, k;
	struct fq_chan_run *run;
	bool waits, best_waits;

	*since_ns = 0;
	for (c = 0; c < comm->nch; c++) {
		run = &comm->chans[c].run;
		if (!READ_ONCE(run->active))
			continue;
		w = READ_ONCE(run->wait_rank);
		k = READ_ONCE(run->step);
		waits = w != FABRIQ_STATUS_NO_RANK;
		best_waits = who != FABRIQ_STATUS_NO_RANK;
		/* one that waits on a peer beats one that does not, then the lower step */
		if (waits == best_waits ? k < best : waits) {
			who = w;
			best = k;
			*since_ns = READ_ONCE(run->wait_since_ns);
		}
	}
	*step = best == U32_MAX ? READ_ONCE(comm->chans[0].run.step) : best;
	*wait_rank = who;
}

/*
 * Has a peer that the oldest step in flight of channel @oc still needs
 * closed the channel's connection, more than the grace ago
 * (fq_cm_closed())?  A send whose QP failed by itself is flushed, never
 * acknowledged: a step waiting on it would otherwise wait for the op
 * timeout.
 */
static int fq_op_peer_closed(struct fq_comm *comm, struct fq_op_chan *oc)
{
	struct fq_pipe_step *ps = fq_pipe_at(&oc->pipe, 0);
	int err;
	u32 i;

	fq_op_sync_freed(oc, 0);
	for (i = 0; i < ps->st.n; i++) {
		if (!fq_xfer_open(ps, i))
			continue;
		err = fq_cm_closed(comm->peers[ps->st.x[i].peer].ch[oc->chan]);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * Report to the peers the read requests of theirs this rank read on
 * channels @lo .. @hi - 1.
 * Return: how many wait for room on a send queue, or -errno.
 */
static int fq_op_fins_out(struct fq_comm *comm, u32 lo, u32 hi)
{
	u32 c, fins = 0;
	int left;

	for (c = lo; c < hi; c++)
		fins |= atomic_read(&comm->chans[c].fins);
	if (!fins)
		return 0;
	down_read(&comm->hw_rwsem);
	left = comm->hw_gone ? -ENODEV : fq_cm_fins_out(comm, lo, hi);
	up_read(&comm->hw_rwsem);
	return left;
}

/*
 * The thread running channels @lo .. @hi - 1 of a call (struct fq_runner):
 * it waits on @wq, which their completions wake (fq_conn.wq)
 */
struct fq_runner {
	struct fq_comm *comm;
	struct fq_op *op;
	u32 lo;
	u32 hi;
	wait_queue_head_t *wq;
};

/* Its channels' events (fq_chans_events()). */
static u64 fq_runner_events(const struct fq_runner *rn)
{
	return fq_chans_events(rn->comm, rn->lo, rn->hi);
}

/* Should it stop waiting: something happened, or the call or communicator failed? */
static bool fq_runner_woken(const struct fq_runner *rn, u64 seen)
{
	return fq_runner_events(rn) != seen || READ_ONCE(rn->comm->err) ||
	       READ_ONCE(rn->op->failed);
}

/*
 * The peers' read requests this rank read are reported to them: their
 * calls cannot end before, and this one may have ended with the last
 * reports still waiting for room on a send queue.
 */
static int fq_op_report_reads(struct fq_runner *rn, unsigned long deadline)
{
	struct fq_comm *comm = rn->comm;
	int left;
	u64 seen;

	for (;;) {
		seen = fq_runner_events(rn);
		left = fq_op_fins_out(comm, rn->lo, rn->hi);
		if (left <= 0)
			return left;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		wait_event_timeout(*rn->wq, fq_runner_woken(rn, seen), HZ / 10);
		left = READ_ONCE(comm->err) ?: READ_ONCE(rn->op->failed);
		if (left)
			return left;
	}
}

/*
 * One pass over the runner's channels' steps in flight, retiring the
 * steps done and admitting the next.  @running: set if a channel's
 * schedule has steps left; @idle: set if a channel, done or not, did not
 * move.  Return: 0 or -errno.
 */
static int fq_op_pass_all(struct fq_runner *rn, bool *progress, bool *running, bool *idle)
{
	struct fq_op *op = rn->op;
	struct fq_op_chan *oc;
	bool moved;
	int err;

	*running = false;
	*idle = false;
	for (oc = op->ch + rn->lo; oc < op->ch + rn->hi; oc++) {
		moved = false;
		if (oc->pipe.n) {
			err = fq_op_pass(rn->comm, op, oc, &moved);
			if (err)
				return err;
			moved |= fq_op_turn(rn->comm, oc);
		}
		if (moved)
			fq_chan_moved(rn->comm, oc->chan);
		*progress |= moved;
		*running |= oc->pipe.n;
		*idle |= !moved;
	}
	return 0;
}

/* Does one of the runner's channels' steps in flight wait on a send (to go out, or to complete)? */
static bool fq_op_waits_tx_any(const struct fq_runner *rn)
{
	struct fq_op_chan *oc;

	for (oc = rn->op->ch + rn->lo; oc < rn->op->ch + rn->hi; oc++)
		if (fq_op_waits_tx(oc) || fq_push_waits_tx(rn->comm, oc->chan))
			return true;
	return false;
}

/*
 * Before sleeping, the runner spins for about one round trip (its
 * channels' sends' measured post -> completion time, at most
 * busy_poll_us, at most 1 ms whatever the parameter says): a completion
 * that comes that soon is seen without the sleep and the wake-up, which
 * are most of a small call's time.  Not on a software device: there the spin
 * takes the CPU that would make the completion (make bench, 8-byte
 * allreduce on rxe: 525 us spinning, 415 us not).  Spinning there for
 * small calls only, giving the CPU to any task that wants it
 * (cond_resched()) and taking it back, cut the context switches of an
 * 8-byte call from 11.2 to 8.6 but made it slower (make bench-ab, 6
 * rounds: 1.24x round by round, medians 432 us against 323 us).
 * Return: true if something happened.
 */
static bool fq_busy_poll(const struct fq_runner *rn, u64 seen)
{
	struct fq_comm *comm = rn->comm;
	u64 cap = (u64)min_t(u32, READ_ONCE(busy_poll_us), FQ_BUSY_POLL_MAX_US) * NSEC_PER_USEC;
	u64 budget = 0, end;
	u32 c;

	for (c = rn->lo; comm->busy_poll && c < rn->hi; c++)
		budget = max(budget, READ_ONCE(comm->chans[c].tx_cqe_avg_ns));
	budget = min(budget, cap);
	end = ktime_get_ns() + budget;
	while (budget && ktime_get_ns() < end) {
		if (fq_runner_woken(rn, seen))
			return true;
		if (need_resched() || signal_pending(current))
			break;
		cpu_relax();
	}
	return false;
}

/*
 * Nothing moved: note where each channel waits, fail on a peer gone, and
 * sleep until something happens (a tenth of a second at most: a closed
 * peer is judged by time).  Return: 0 or -errno.
 */
static int fq_runner_wait(struct fq_runner *rn, u64 seen, unsigned long deadline)
{
	struct fq_comm *comm = rn->comm;
	struct fq_op_chan *oc;
	bool quiet_tx;
	long left;
	int err;

	for (oc = rn->op->ch + rn->lo; oc < rn->op->ch + rn->hi; oc++) {
		fq_chan_note_wait(comm, oc);
		err = oc->pipe.n ? fq_op_peer_closed(comm, oc) : 0;
		if (err)
			return err;
	}
	left = (long)(deadline - jiffies);
	if (left <= 0)
		return -ETIMEDOUT;
	/* the FINs held back for a batch: a peer may wait for them */
	err = fq_op_fins_out(comm, rn->lo, rn->hi);
	if (err < 0)
		return err;
	/* send completions wake it only when it waits on a send (on by default) */
	quiet_tx = !fq_op_waits_tx_any(rn);
	if (quiet_tx)
		fq_cm_tx_wake(comm, rn->lo, rn->hi, false);
	left = wait_event_interruptible_timeout(*rn->wq, fq_runner_woken(rn, seen),
						min_t(long, left, HZ / 10));
	if (quiet_tx)
		fq_cm_tx_wake(comm, rn->lo, rn->hi, true);
	return left < 0 ? -EINTR : 0;
}

/*
 * Run the steps of the runner's channels' schedules, up to FQ_PIPE_DEPTH
 * of each channel's at once (pipe.c), the channels side by side.
 */
static int fq_runner_loop(struct fq_runner *rn)
{
	struct fq_comm *comm = rn->comm;
	unsigned long deadline = jiffies + comm->op_timeout;
	bool progress, running, idle;
	u64 seen;
	int err;

	for (;;) {
		seen = fq_runner_events(rn);
		progress = false;
		err = fq_op_pass_all(rn, &progress, &running, &idle);
		if (err)
			return err;
		if (!running)
			break;
		if (progress) {
			/*
			 * A channel that waits, or is done, may owe its peer the
			 * FINs held back for a batch, which the peer's channel
			 * waits for: out with them, as when nothing moves
			 */
			err = idle ? fq_op_fins_out(comm, rn->lo, rn->hi) : 0;
			if (err < 0)
				return err;
			deadline = jiffies + comm->op_timeout;
			cond_resched();
			continue;
		}
		if (fq_busy_poll(rn, seen))
			continue;
		err = fq_runner_wait(rn, seen, deadline);
		if (err)
			return err;
	}
	return fq_op_report_reads(rn, deadline);
}

/*
 * The first error of any channel fails the call: the other channels'
 * threads stop at it (fq_op_pass()), woken if they sleep.
 */
static void fq_op_fail(struct fq_comm *comm, struct fq_op *op, int err)
{
	u32 c;

	if (cmpxchg(&op->failed, 0, err))
		return;
	for (c = 0; comm->chan_workers && c < op->nact; c++)
		wake_up_all(&comm->chans[c].wq);
}

/* Run channels @lo .. @hi - 1 of @op, in this thread.  Return: 0 or -errno. */
static int fq_op_run_chans(struct fq_comm *comm, struct fq_op *op, u32 lo, u32 hi)
{
	struct fq_runner rn = {
		.comm = comm, .op = op, .lo = lo, .hi = hi,
		.wq = comm->chan_workers ? &comm->chans[lo].wq : &comm->wq,
	};
	struct fq_chan_run *run;
	struct fq_op_chan *oc;
	int err;

	for (oc = op->ch + lo; oc < op->ch + hi; oc++) {
		run = &comm->chans[oc->chan].run;
		WRITE_ONCE(run->step, 0);
		WRITE_ONCE(run->wait_rank, FABRIQ_STATUS_NO_RANK);
		WRITE_ONCE(run->active, true);
		fq_pipe_init(&oc->pipe, &oc->sched, &oc->fresh, comm->chunk);
		oc->last_done_ns = 0;
		fq_op_turn(comm, oc);
	}
	err = fq_runner_loop(&rn);
	for (oc = op->ch + lo; oc < op->ch + hi; oc++)
		WRITE_ONCE(comm->chans[oc->chan].run.active, false);
	if (err)
		fq_op_fail(comm, op, err);
	return err;
}

static bool chan_workers = true;
module_param(chan_workers, bool, 0644);
MODULE_PARM_DESC(chan_workers,
		 "a call's channels run in parallel, each in a thread of its own, and reduce in parallel (default on; off: the call's thread runs them all; read when a communicator is made)");

/* The module parameter, for a communicator being made (fq_comm.chan_workers). */
bool fq_coll_chan_workers(void)
{
	return READ_ONCE(chan_workers);
}

static struct workqueue_struct *fq_chan_wq;

/* A channel worker: one channel of a call, beside the call's own thread. */
static void fq_chan_worker(struct work_struct *work)
{
	struct fq_op_chan *oc = container_of(work, struct fq_op_chan, work);

	/* an error is the call's (fq_op_fail()) */
	fq_op_run_chans(oc->comm, oc->op, oc->chan, oc->chan + 1);
	complete(&oc->done);	/* the call may be freed from here on */
}

/*
 * Wait for channel @oc's worker.  One that has not started yet (the
 * workqueue runs WQ_MAX_ACTIVE at once) is taken off the queue once the
 * call failed, not waited for: it may wait behind workers that wait on
 * peers until their op timeout.
 */
static void fq_op_join(struct fq_comm *comm, struct fq_op *op, struct fq_op_chan *oc)
{
	if (READ_ONCE(op->failed) && cancel_work(&oc->work))
		return;
	if (!wait_for_completion_interruptible(&oc->done))
		return;
	fq_op_fail(comm, op, -EINTR);
	if (!cancel_work(&oc->work))	/* running or done: it stops at the failure */
		wait_for_completion(&oc->done);
}

/*
 * Run every channel's schedule.  With channel workers, channels 1 and up
 * each run in a worker of their own while this thread runs channel 0,
 * then waits for them: the call ends when all did, and fails with the
 * first error of any.  A signal while it waits fails the call (-EINTR),
 * which stops the workers.
 */
static int fq_op_run(struct fq_comm *comm, struct fq_op *op)
{
	u32 c, workers = comm->chan_workers ? op->nact : 1;
	struct fq_op_chan *oc;
	int err;

	if (workers > 1)
		fq_op_dmamap_all(comm, op);
	for (c = 1; c < workers; c++) {
		oc = &op->ch[c];
		oc->comm = comm;
		oc->op = op;
		init_completion(&oc->done);
		INIT_WORK(&oc->work, fq_chan_worker);
		queue_work(fq_chan_wq, &oc->work);
	}
	err = fq_op_run_chans(comm, op, 0, workers > 1 ? 1 : op->nact);
	for (c = 1; c < workers; c++)
		fq_op_join(comm, op, &op->ch[c]);
	return READ_ONCE(op->failed) ?: err;
}

static int fq_coll_run(struct fq_comm *comm, struct fq_op *op)
{
	u64 blk = op->sched.count * op->sched.esize;
	int err = 0;

	fq_op_prepare(comm, op, blk);
	fq_stats_op_start(comm, op);
	/* a zero-byte call moves nothing on any rank; a barrier always syncs */
	if (blk || op->req.coll == FABRIQ_COLL_BARRIER)
		err = fq_op_run(comm, op);
	if (!err)
		fq_op_finish(comm, op, blk);
	return err;
}

static void fq_coll_complete(struct fq_comm *comm, struct fq_op *op)
{
	struct fabriq_completion c = {
		.seq = op->seq,
		.status = op->status,
		.ns = ktime_to_ns(ktime_sub(ktime_get(), op->t0)),
	};
	bool async = op->req.flags & FABRIQ_COLL_F_ASYNC;

	atomic64_inc(op->status ? &comm->ops_failed : &comm->ops_done);
	op->req.ns = c.ns;
	if (async) {
		fq_op_free(comm, op);
		spin_lock(&comm->done_lock);
		kfifo_put(&comm->done, c);
		spin_unlock(&comm->done_lock);
	}
	mutex_lock(&comm->op_lock);
	comm->nops--;
	mutex_unlock(&comm->op_lock);
	if (!async)
		complete(&op->done);
	wake_up_all(&comm->done_wq);
}

/* Peers must not wait out their timeout for a rank that gave up. */
static void fq_coll_abort(struct fq_comm *comm, int err)
{
	u32 r, c;

	fq_comm_fail(comm, err);
	down_read(&comm->hw_rwsem);
	for (r = 0; !comm->hw_gone && r < comm->nranks; r++)
		for (c = 0; r != comm->rank && c < comm->nch; c++)
			if (READ_ONCE(comm->peers[r].ch[c]->established))
				rdma_disconnect(comm->peers[r].ch[c]->id);
	up_read(&comm->hw_rwsem);
}

/*
 * Zero-copy sends in flight read the caller's pages, and their completions
 * write to the operation: neither may go before every send completed.  The
 * abort moved the QPs to the error state, which flushes their sends, and
 * teardown drains them (hw_gone); either ends this wait.  A device that
 * never flushes keeps the operation, not a use-after-free.
 */
static void fq_coll_wait_tx_flushed(struct fq_comm *comm)
{
	while (!wait_event_timeout(comm->wq, fq_cm_tx_idle(comm) || READ_ONCE(comm->hw_gone),
				   5 * HZ))
		pr_warn_ratelimited("communicator %llx rank %u: sends not flushed after 5 s, still waiting\n",
				    comm->id, comm->rank);
}

/* Run one call.  Context: run_lock held. */
static int fq_coll_exec(struct fq_comm *comm, struct fq_op *op)
{
	int err = READ_ONCE(comm->err);

	lockdep_assert_held(&comm->run_lock);
	if (err)
		return err;
	WRITE_ONCE(comm->run.op_seq, op->seq);
	WRITE_ONCE(comm->run.running, true);
	err = fq_coll_run(comm, op);
	WRITE_ONCE(comm->run.running, false);
	if (!err)
		fq_stats_op_done(comm, op, ktime_to_ns(ktime_sub(ktime_get(), op->t0)));
	if (err) {
		fq_coll_abort(comm, err);
		fq_coll_wait_tx_flushed(comm);
		/* the keys the call lent die before its pages go */
		down_read(&comm->hw_rwsem);
		if (!comm->hw_gone)
			fq_rndv_abandon(comm);
		up_read(&comm->hw_rwsem);
	}
	return err;
}

static struct fq_op *fq_coll_next(struct fq_comm *comm)
{
	struct fq_op *op;

	mutex_lock(&comm->op_lock);
	op = list_first_entry_or_null(&comm->ops, struct fq_op, list);
	if (op)
		list_del_init(&op->list);
	mutex_unlock(&comm->op_lock);
	return op;
}

static struct workqueue_struct *fq_coll_wq;

/**
 * fq_coll_engine() - a communicator's engine: run the queued calls
 * @work: fq_comm.engine_work
 *
 * Runs every call queued, oldest first, and ends when none is left (a
 * call queued meanwhile queues the work again).  After the first failure
 * the communicator is failed and every later call ends with its error at
 * once.  Context: the fabriq_coll workqueue.
 */
static void fq_coll_engine(struct work_struct *work)
{
	struct fq_comm *comm = container_of(work, struct fq_comm, engine_work);
	struct fq_op *op;

	while ((op = fq_coll_next(comm))) {
		mutex_lock(&comm->run_lock);
		op->status = fq_coll_exec(comm, op);
		mutex_unlock(&comm->run_lock);
		fq_coll_complete(comm, op);
	}
}

/* For fq_comm_alloc(): the communicator's engine, not yet queued. */
void fq_coll_engine_init(struct fq_comm *comm)
{
	INIT_WORK(&comm->engine_work, fq_coll_engine);
}

/* Wait until the engine ran every call queued so far (they fail fast once the comm failed). */
void fq_coll_engine_flush(struct fq_comm *comm)
{
	flush_work(&comm->engine_work);
}

/*
 * Unbound: a call may run for minutes; each runs in a worker of its own.
 * Ranks of one job on one host wait for each other, so as many engines
 * as the workqueue allows may run at once (512; an engine beyond that
 * waits for one to finish its queue).  The channel workers have a
 * workqueue of their own, as many as may run at once: a call's thread
 * waits for them, and must not wait behind them.
 */
int fq_coll_wq_init(void)
{
	fq_coll_wq = alloc_workqueue("fabriq_coll", WQ_UNBOUND, WQ_MAX_ACTIVE);
	if (!fq_coll_wq)
		return -ENOMEM;
	fq_chan_wq = alloc_workqueue("fabriq_chan", WQ_UNBOUND, WQ_MAX_ACTIVE);
	if (!fq_chan_wq) {
		destroy_workqueue(fq_coll_wq);
		return -ENOMEM;
	}
	return 0;
}

/* Context: stop; /dev/fabriq is gone and no file is open (fops.owner). */
void fq_coll_wq_exit(void)
{
	destroy_workqueue(fq_coll_wq);	/* an engine waits for its channel workers */
	destroy_workqueue(fq_chan_wq);
}

/**
 * fq_coll_fail_all() - end every queued call with @err (engine stopped)
 * @comm: the communicator
 * @err: the status they end with (-ECANCELED if 0)
 */
void fq_coll_fail_all(struct fq_comm *comm, int err)
{
	struct fq_op *op;

	while ((op = fq_coll_next(comm))) {
		op->status = err ? err : -ECANCELED;
		fq_coll_complete(comm, op);
	}
}

static struct fq_op *fq_op_new(struct fq_comm *comm, const struct fabriq_coll *req, u64 blk,
			       bool small)
{
	struct fq_op *op;
	int algo;

	op = fq_op_alloc(comm, small, fq_chan_active(req->coll, blk, comm->chunk, comm->nch));
	if (!op)
		return ERR_PTR(-ENOMEM);
	op->req = *req;
	INIT_LIST_HEAD(&op->list);
	init_completion(&op->done);
	algo = fq_sched_pick(req->coll, req->algo, comm->algo, blk, comm->small_bytes,
			     comm->nranks);
	if (algo < 0) {
		fq_op_free(comm, op);
		return ERR_PTR(algo);
	}
	op->sched = (struct fq_sched){
		.coll = req->coll, .algo = algo, .nranks = comm->nranks, .rank = comm->rank,
		.root = req->root, .count = req->count,
		.esize = req->coll == FABRIQ_COLL_BARRIER ? 1 : fq_dtype_size(req->dtype),
	};
	if (req->coll == FABRIQ_COLL_BARRIER)
		op->sched.count = 0;
	return op;
}

/*
 * Queue @op, or (*inline set) claim it for the caller when it is
 * synchronous and nothing else is queued or running.
 * Return: 0 or -EAGAIN when FABRIQ_MAX_INFLIGHT are queued or unread.
 */
static int fq_op_queue(struct fq_comm *comm, struct fq_op *op, bool async, bool *inline_run)
{
	int err = 0;

	*inline_run = false;
	mutex_lock(&comm->op_lock);
	if (comm->nops + kfifo_len(&comm->done) >= FABRIQ_MAX_INFLIGHT) {
		err = -EAGAIN;
	} else {
		op->seq = comm->next_seq++;
		op->t0 = ktime_get();
		*inline_run = !async && !comm->nops;
		comm->nops++;
		if (!*inline_run)
			list_add_tail(&op->list, &comm->ops);
	}
	mutex_unlock(&comm->op_lock);
	if (!err && !*inline_run)
		queue_work(fq_coll_wq, &comm->engine_work);
	return err;
}

/**
 * fq_coll_submit() - check, pin and queue one collective call
 * @comm: a communicator
 * @req: the call; seq (and ns when synchronous) are filled in
 * @async: return once queued; the completion is read from the fd
 *
 * A signal during a synchronous wait aborts the communicator (a
 * collective cannot be withdrawn from one rank alone): the call returns
 * -EINTR and the communicator's later calls fail.
 *
 * Context: process.  Return: 0 or -errno.
 */
int fq_coll_submit(struct fq_comm *comm, struct fabriq_coll *req, bool async)
{
	bool inline_run, copy;
	struct fq_op *op;
	u64 blk;
	int err;

	err = fq_coll_check(comm, req, &blk);
	if (err)
		return err;
	err = READ_ONCE(comm->err);
	if (err)
		return err;
	copy = !async && blk * comm->nranks <= FQ_COPY_MAX_BYTES;
	op = fq_op_new(comm, req, blk, copy && blk * comm->nranks <= FQ_SMALL_BYTES);
	if (IS_ERR(op))
		return PTR_ERR(op);
	err = fq_op_buffers(comm, op, blk, copy);
	if (!err)
		err = fq_op_queue(comm, op, async, &inline_run);
	if (err) {
		fq_op_free(comm, op);
		return err;
	}
	req->seq = op->seq;
	if (async)
		return 0;
	if (inline_run) {
		/* a signal ends the wait inside with -EINTR and aborts the communicator */
		mutex_lock(&comm->run_lock);
		op->status = fq_coll_exec(comm, op);
		mutex_unlock(&comm->run_lock);
		fq_coll_complete(comm, op);
	} else if (wait_for_completion_interruptible(&op->done)) {
		fq_comm_fail(comm, -EINTR);
		wait_for_completion(&op->done);
	}
	err = op->status;
	req->ns = op->req.ns;
	if (!err && op->out.copy &&
	    copy_to_user(u64_to_user_ptr(op->out.uaddr), op->out.ptr, op->out.len))
		err = -EFAULT;
	fq_op_free(comm, op);
	return err;
}
