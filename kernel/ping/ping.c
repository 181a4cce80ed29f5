// SPDX-License-Identifier: GPL-2.0
/*
 * ping.c - fabriq ping: RC round trips between fabriq instances over the
 * in-kernel rdma_cm, on QPs that carry the port's QoS intent (traffic
 * class), the way fabriq's collectives will.
 *
 * Every fabriq listens on ping_port (RDMA_PS_TCP, any address; unless
 * ping_listen=0) and echoes each message it receives on an accepted
 * connection.  It accepts only a request whose private data is fabriq's
 * hello (magic and version), at most ping_max_conns at once, and closes a
 * connection that stays silent for ping_idle_ms.  FABRIQ_CMD_PING
 * resolves the destination, sets the traffic class of the port it resolved
 * to (the port's "tc" intent), connects, and times COUNT sends, each
 * answered by the echo.  The pinging end posts its receives ahead, so no
 * echo ever meets receiver-not-ready.  The echoing end sends each echo
 * from the slot the message arrived in and posts that slot's receive
 * again when the echo's send completes: a message that arrives before the
 * last echo's completion (the pinging end sends the next one as soon as
 * the echo is in) lands in another slot and is answered too.  A peer that
 * does not wait for its echoes meets receiver-not-ready once all
 * FABRIQ_PING_DEPTH slots are echoing, and retries; nothing is dropped.
 *
 * Device removal: a connection releases its QP, CQ and PD in the
 * DEVICE_REMOVAL handler, under its own lock, so the core never waits for
 * a ping in flight; the ping then ends with -ENODEV.
 *
 * Accepted connections belong to the maintenance work alone: their event
 * handler only releases the verbs resources and marks them dead; the work
 * destroys dead ones and disconnects idle ones.  Being the only one that
 * frees them, it may use them without a lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/rdma_cm.h>

#include "core/fabriq.h"
#include "qos/qos.h"
#include "ping.h"

#define FABRIQ_PING_MSG		64
#define FABRIQ_PING_DEPTH	4
#define FABRIQ_PING_BUF		(FABRIQ_PING_MSG * (FABRIQ_PING_DEPTH + 1))
#define FABRIQ_PING_RESOLVE_MS	2000
/* "FQPG": the private data of a connection request, then the version */
#define FABRIQ_PING_MAGIC	0x46515047
#define FABRIQ_PING_VERSION	1

/* not 18515: perftest's rdma_cm mode (ib_*_bw -R) defaults to that */
static ushort ping_port = 18400;
module_param(ping_port, ushort, 0444);
MODULE_PARM_DESC(ping_port, "TCP port space port fabriq ping listens on (default 18400)");

static bool ping_listen = true;
module_param(ping_listen, bool, 0444);
MODULE_PARM_DESC(ping_listen, "answer pings from other hosts (default 1)");

static unsigned int ping_max_conns = 16;
module_param(ping_max_conns, uint, 0644);
MODULE_PARM_DESC(ping_max_conns, "accepted ping connections at once; more are refused (default 16)");

static unsigned int ping_idle_ms = 10000;
module_param(ping_idle_ms, uint, 0644);
MODULE_PARM_DESC(ping_idle_ms,
		 "an accepted ping connection silent this long is closed (default 10000)");

/* what a pinging fabriq says in its connection request */
struct fabriq_ping_hello {
	__be32 magic;
	u8 version;
	u8 reserved[3];
};

/**
 * struct fabriq_ping_conn - one RC connection, either end
 * @id: the rdma_cm id
 * @passive: accepted by the listener (echoes), else the pinging end
 * @lock: serialises posting against teardown
 * @has_qp: @id has a QP that this connection created
 * @pd: protection domain, NULL once released
 * @cq: completion queue for both directions
 * @buf: FABRIQ_PING_DEPTH receive slots, then the pinging end's send slot
 * @dma: @buf mapped for the device
 * @recv_cqe: one per receive slot
 * @send_cqe: the echo of each receive slot (passive end); the pinging end
 *	uses the first for its send slot
 * @stop: the pinging end's stop flag and the wait queue it sleeps on
 * @event_seq: bumped at each rdma_cm step's event (pinging end)
 * @recv_seq: bumped at each echo or failure (pinging end)
 * @status: the last rdma_cm step's result (pinging end)
 * @echo_seq: sequence number of the last echo (pinging end)
 * @list: entry on fabriq_ping_conns (passive end)
 * @last_rx: jiffies of the last message or of the accept (passive end)
 * @dead: the connection ended; the maintenance work destroys it
 */
struct fabriq_ping_conn {
	struct rdma_cm_id *id;
	bool passive;
	struct mutex lock;	/* see above */
	bool has_qp;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	u64 dma;
	struct ib_cqe recv_cqe[FABRIQ_PING_DEPTH];
	struct ib_cqe send_cqe[FABRIQ_PING_DEPTH];
	struct fabriq_ping_stop *stop;
	u32 event_seq;
	u32 recv_seq;
	int status;
	u64 echo_seq;
	struct list_head list;
	unsigned long last_rx;
	bool dead;
};

static struct rdma_cm_id *fabriq_ping_listener;
/* protects fabriq_ping_conns (the accepted connections), their count, @dead */
static DEFINE_MUTEX(fabriq_ping_lock);
static LIST_HEAD(fabriq_ping_conns);
static unsigned int fabriq_ping_nconns;
static bool fabriq_ping_stopping;
static struct delayed_work fabriq_ping_maint_work;

/*
 * Release the verbs resources; safe to call twice and from two threads.
 * The pointers are taken under c->lock, so completion handlers (which
 * post only while c->buf is set) stop using them; the resources are then
 * freed without the lock, since ib_free_cq() waits for those handlers.
 */
static void fabriq_ping_release(struct fabriq_ping_conn *c)
{
	struct ib_device *dev = c->id->device;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool qp;
	void *buf;
	u64 dma;

	mutex_lock(&c->lock);
	qp = c->has_qp;
	cq = c->cq;
	pd = c->pd;
	buf = c->buf;
	dma = c->dma;
	c->has_qp = false;
	c->cq = NULL;
	c->pd = NULL;
	c->buf = NULL;
	c->dma = 0;
	mutex_unlock(&c->lock);

	if (qp)
		rdma_destroy_qp(c->id);
	if (cq)
		ib_free_cq(cq);
	if (dma)
		ib_dma_unmap_single(dev, dma, FABRIQ_PING_BUF, DMA_BIDIRECTIONAL);
	kfree(buf);
	if (pd)
		ib_dealloc_pd(pd);
}

/* The pinging end: one of its waits is over (*@seq is what it waits on). */
static void fabriq_ping_wake(struct fabriq_ping_conn *c, u32 *seq)
{
	WRITE_ONCE(*seq, *seq + 1);
	wake_up_all(&c->stop->wq);
}

static int fabriq_ping_post_recv(struct fabriq_ping_conn *c, int slot)
{
	struct ib_sge sge = {
		.addr = c->dma + slot * FABRIQ_PING_MSG,
		.length = FABRIQ_PING_MSG,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &c->recv_cqe[slot], .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(c->id->qp, &wr, NULL);
}

/*
 * Send buffer slot @slot (FABRIQ_PING_DEPTH: the pinging end's send slot)
 * with the completion @cqe.  Context: c->lock held, resources present.
 */
static int fabriq_ping_post_send(struct fabriq_ping_conn *c, int slot, struct ib_cqe *cqe)
{
	u64 off = slot * FABRIQ_PING_MSG;
	struct ib_sge sge = {
		.addr = c->dma + off,
		.length = FABRIQ_PING_MSG,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(c->id->device, c->dma + off, FABRIQ_PING_MSG,
				      DMA_BIDIRECTIONAL);
	return ib_post_send(c->id->qp, &wr, NULL);
}

/*
 * A send completed: an echo's slot (passive end) takes the next message;
 * a failed send of the pinging end ends its wait.
 */
static void fabriq_ping_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fabriq_ping_conn *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_debug("ping send completion: %s\n", ib_wc_status_msg(wc->status));
	if (c->passive) {
		if (wc->status != IB_WC_SUCCESS)
			return;
		mutex_lock(&c->lock);
		if (c->buf)
			fabriq_ping_post_recv(c, wc->wr_cqe - c->send_cqe);
		mutex_unlock(&c->lock);
	} else if (wc->status != IB_WC_SUCCESS) {
		fabriq_ping_wake(c, &c->recv_seq);
	}
}

/*
 * A message arrived in one slot: the passive end echoes it from that slot
 * and posts the slot again once the echo is sent; the pinging end notes
 * the sequence number and posts the slot again at once.
 */
static void fabriq_ping_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct fabriq_ping_conn *c = cq->cq_context;
	int slot = wc->wr_cqe - c->recv_cqe;
	u8 *msg;

	if (wc->status != IB_WC_SUCCESS) {
		if (!c->passive)
			fabriq_ping_wake(c, &c->recv_seq);
		return;
	}
	mutex_lock(&c->lock);
	if (!c->buf)
		goto out;
	WRITE_ONCE(c->last_rx, jiffies);
	msg = c->buf + slot * FABRIQ_PING_MSG;
	ib_dma_sync_single_for_cpu(c->id->device, c->dma + slot * FABRIQ_PING_MSG,
				   FABRIQ_PING_MSG, DMA_BIDIRECTIONAL);
	if (c->passive) {
		/* the QP is in error already when this fails: drop the echo */
		if (fabriq_ping_post_send(c, slot, &c->send_cqe[slot]))
			fabriq_ping_post_recv(c, slot);
	} else {
		memcpy(&c->echo_seq, msg, sizeof(c->echo_seq));
		fabriq_ping_post_recv(c, slot);
	}
out:
	mutex_unlock(&c->lock);
	if (!c->passive)
		fabriq_ping_wake(c, &c->recv_seq);
}

/* PD, CQ, QP and buffer; receives posted ahead.  Context: process. */
static int fabriq_ping_setup(struct fabriq_ping_conn *c)
{
	struct ib_device *dev = c->id->device;
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = FABRIQ_PING_DEPTH,
			.max_recv_wr = FABRIQ_PING_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int i, err;

	for (i = 0; i < FABRIQ_PING_DEPTH; i++) {
		c->send_cqe[i].done = fabriq_ping_send_done;
		c->recv_cqe[i].done = fabriq_ping_recv_done;
	}
	c->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(c->pd)) {
		err = PTR_ERR(c->pd);
		c->pd = NULL;
		return err;
	}
	c->cq = ib_alloc_cq(dev, c, 2 * FABRIQ_PING_DEPTH, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		err = PTR_ERR(c->cq);
		c->cq = NULL;
		return err;
	}
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	err = rdma_create_qp(c->id, c->pd, &attr);
	if (err)
		return err;
	c->has_qp = true;
	c->buf = kzalloc(FABRIQ_PING_BUF, GFP_KERNEL);
	if (!c->buf)
		return -ENOMEM;
	c->dma = ib_dma_map_single(dev, c->buf, FABRIQ_PING_BUF, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, c->dma)) {
		c->dma = 0;
		return -ENOMEM;
	}
	for (i = 0; i < FABRIQ_PING_DEPTH; i++) {
		err = fabriq_ping_post_recv(c, i);
		if (err)
			return err;
	}
	return 0;
}

/* @stop: the pinging end's; NULL for an accepted (passive) connection */
static struct fabriq_ping_conn *fabriq_ping_conn_alloc(struct fabriq_ping_stop *stop)
{
	struct fabriq_ping_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->passive = !stop;
	c->stop = stop;
	mutex_init(&c->lock);
	INIT_LIST_HEAD(&c->list);
	return c;
}

/* ---- the listening, echoing end ---- */

/* Is this connection request from a fabriq ping? */
static bool fabriq_ping_hello_ok(const struct rdma_cm_event *ev)
{
	const struct fabriq_ping_hello *h = ev->param.conn.private_data;

	return h && ev->param.conn.private_data_len >= sizeof(*h) &&
	       be32_to_cpu(h->magic) == FABRIQ_PING_MAGIC && h->version == FABRIQ_PING_VERSION;
}

/*
 * Run the maintenance now (@delay 0: a connection ended), or after @delay
 * unless it is due sooner already: a stream of new connections never
 * postpones it.
 */
static void fabriq_ping_maint_kick(unsigned long delay)
{
	lockdep_assert_held(&fabriq_ping_lock);
	if (fabriq_ping_stopping)
		return;
	if (delay)
		queue_delayed_work(system_wq, &fabriq_ping_maint_work, delay);
	else
		mod_delayed_work(system_wq, &fabriq_ping_maint_work, 0);
}

/*
 * Accept a request: a strange one, or one over ping_max_conns, is refused
 * before it gets anything.  Return: 0, or an errno (rdma_cm then rejects
 * and destroys @id).
 */
static int fabriq_ping_accept(struct rdma_cm_id *id, const struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = { .rnr_retry_count = 7 };
	struct fabriq_ping_conn *c;
	int err;

	if (!fabriq_ping_hello_ok(ev))
		return -EPROTO;
	mutex_lock(&fabriq_ping_lock);
	err = fabriq_ping_nconns >= READ_ONCE(ping_max_conns) || fabriq_ping_stopping ?
	      -EBUSY : 0;
	if (!err)
		fabriq_ping_nconns++;
	mutex_unlock(&fabriq_ping_lock);
	if (err)
		return err;

	c = fabriq_ping_conn_alloc(NULL);
	err = -ENOMEM;
	if (!c)
		goto err_count;
	c->id = id;
	id->context = c;
	mutex_lock(&c->lock);
	err = fabriq_ping_setup(c);
	mutex_unlock(&c->lock);
	if (!err)
		err = rdma_accept(id, &param);
	if (err) {
		fabriq_ping_release(c);
		id->context = NULL;
		kfree(c);
		goto err_count;
	}
	c->last_rx = jiffies;
	mutex_lock(&fabriq_ping_lock);
	list_add_tail(&c->list, &fabriq_ping_conns);
	fabriq_ping_maint_kick(msecs_to_jiffies(READ_ONCE(ping_idle_ms)));
	mutex_unlock(&fabriq_ping_lock);
	return 0;

err_count:
	mutex_lock(&fabriq_ping_lock);
	fabriq_ping_nconns--;
	mutex_unlock(&fabriq_ping_lock);
	return err;
}

/*
 * Events of the listener and of every connection it accepted.  A non-zero
 * return makes rdma_cm destroy the id: only for a request not accepted.
 */
static int fabriq_ping_listen_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fabriq_ping_conn *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* the new id starts with the listener's context, NULL */
		return fabriq_ping_accept(id, ev) ? 1 : 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		if (!c)
			return 0;
		fabriq_ping_release(c);
		mutex_lock(&fabriq_ping_lock);
		c->dead = true;
		fabriq_ping_maint_kick(0);
		mutex_unlock(&fabriq_ping_lock);
		return 0;
	default:
		return 0;
	}
}

/* Destroy the connections that ended; disconnect the ones that fell silent. */
static void fabriq_ping_maint(struct work_struct *work)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(ping_idle_ms)), next = idle;
	struct fabriq_ping_conn *c, *tmp;
	LIST_HEAD(dead);
	LIST_HEAD(idle_list);

	mutex_lock(&fabriq_ping_lock);
	list_for_each_entry_safe(c, tmp, &fabriq_ping_conns, list) {
		if (c->dead) {
			list_move(&c->list, &dead);
			fabriq_ping_nconns--;
		} else if (time_after_eq(jiffies, READ_ONCE(c->last_rx) + idle)) {
			list_move(&c->list, &idle_list);
		} else {
			next = min(next, READ_ONCE(c->last_rx) + idle - jiffies);
		}
	}
	mutex_unlock(&fabriq_ping_lock);

	/* only this work frees a connection: the ones moved stay valid */
	list_for_each_entry_safe(c, tmp, &dead, list) {
		rdma_destroy_id(c->id);
		kfree(c);
	}
	list_for_each_entry(c, &idle_list, list)
		rdma_disconnect(c->id);	/* DISCONNECTED then marks it dead */

	mutex_lock(&fabriq_ping_lock);
	list_splice_tail(&idle_list, &fabriq_ping_conns);
	if (!list_empty(&fabriq_ping_conns))
		fabriq_ping_maint_kick(max(next, 1UL));
	mutex_unlock(&fabriq_ping_lock);
}

/* ---- the pinging end ---- */

static int fabriq_ping_active_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct fabriq_ping_conn *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		c->status = 0;
		break;
	case RDMA_CM_EVENT_REJECTED:
		c->status = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* ends the interval sleep too: it watches c->buf */
		fabriq_ping_release(c);
		c->status = -ENODEV;
		fabriq_ping_wake(c, &c->recv_seq);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->status = -ECONNRESET;
		fabriq_ping_wake(c, &c->recv_seq);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		c->status = ev->status ? ev->status : -EHOSTUNREACH;
		if (c->status > 0)
			c->status = -EHOSTUNREACH;
		break;
	default:
		return 0;
	}
	fabriq_ping_wake(c, &c->event_seq);
	return 0;
}

/*
 * Wait up to @timeout jiffies for *@seq to move on from @seen, the ping to
 * be stopped, or the device to go.  Return: 0, -ETIMEDOUT or -EINTR
 * (stopped).
 */
static int fabriq_ping_wait(struct fabriq_ping_conn *c, u32 *seq, u32 seen, long timeout)
{
	long left = wait_event_timeout(c->stop->wq, READ_ONCE(*seq) != seen ||
				       READ_ONCE(c->stop->stopped), max(timeout, 1L));

	if (READ_ONCE(c->stop->stopped))
		return -EINTR;
	return left ? 0 : -ETIMEDOUT;
}

/* One rdma_cm step, started (@started its result) after @seen was read. */
static int fabriq_ping_step(struct fabriq_ping_conn *c, u32 seen, int started, unsigned long ms)
{
	int err;

	if (started)
		return started;
	err = fabriq_ping_wait(c, &c->event_seq, seen, msecs_to_jiffies(ms));
	return err ?: READ_ONCE(c->status);
}

static int fabriq_ping_connect(struct fabriq_ping_conn *c, struct sockaddr *src,
			       struct sockaddr *dst, struct fabriq_ping_result *res,
			       struct netlink_ext_ack *extack)
{
	struct fabriq_ping_hello hello = {
		.magic = cpu_to_be32(FABRIQ_PING_MAGIC), .version = FABRIQ_PING_VERSION,
	};
	struct rdma_conn_param param = {
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = &hello, .private_data_len = sizeof(hello),
	};
	struct fabriq_qos_path want;
	u32 seen;
	int err;

	seen = READ_ONCE(c->event_seq);
	err = fabriq_ping_step(c, seen, rdma_resolve_addr(c->id, src, dst, FABRIQ_PING_RESOLVE_MS),
			       FABRIQ_PING_RESOLVE_MS + 1000);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot resolve the address to an RDMA device");
		return err;
	}
	strscpy(res->dev_name, dev_name(&c->id->device->dev), sizeof(res->dev_name));
	res->port = c->id->port_num;
	/* fabriq's own traffic carries the port's QoS intent */
	fabriq_qos_path_intent(res->dev_name, res->port, &want);
	res->has_tclass = want.has_tclass;
	res->tclass = want.tclass;
	fabriq_qos_path_ask(c->id, &want);
	seen = READ_ONCE(c->event_seq);
	err = fabriq_ping_step(c, seen, rdma_resolve_route(c->id, FABRIQ_PING_RESOLVE_MS),
			       FABRIQ_PING_RESOLVE_MS + 1000);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot resolve a route to the address");
		return err;
	}
	fabriq_qos_path_route(c->id, &want);
	mutex_lock(&c->lock);
	err = fabriq_ping_setup(c);
	mutex_unlock(&c->lock);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create the QP");
		return err;
	}
	seen = READ_ONCE(c->event_seq);
	err = fabriq_ping_step(c, seen, rdma_connect(c->id, &param), 5000);
	if (err == -ECONNREFUSED)
		NL_SET_ERR_MSG(extack, "the peer refused: is fabriq loaded there?");
	else if (err)
		NL_SET_ERR_MSG(extack, "cannot connect to the peer");
	return err;
}

/*
 * One round trip; returns its time in ns or a negative errno.  An echo of
 * an earlier, timed-out round trip is skipped.
 */
static s64 fabriq_ping_once(struct fabriq_ping_conn *c, u64 seq, unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	u32 seen = READ_ONCE(c->recv_seq);
	ktime_t t0;
	int err;

	mutex_lock(&c->lock);
	if (!c->buf) {
		mutex_unlock(&c->lock);
		return c->status ? c->status : -ENODEV;
	}
	memcpy(c->buf + FABRIQ_PING_DEPTH * FABRIQ_PING_MSG, &seq, sizeof(seq));
	t0 = ktime_get();
	err = fabriq_ping_post_send(c, FABRIQ_PING_DEPTH, &c->send_cqe[0]);
	mutex_unlock(&c->lock);
	if (err)
		return err;
	for (;;) {
		err = fabriq_ping_wait(c, &c->recv_seq, seen, (long)(deadline - jiffies));
		if (err)
			return err;
		seen = READ_ONCE(c->recv_seq);
		if (READ_ONCE(c->echo_seq) == seq)
			return ktime_to_ns(ktime_sub(ktime_get(), t0));
		if (c->status || !READ_ONCE(c->buf))
			return c->status ? c->status : -EIO;
		if (time_after_eq(jiffies, deadline))
			return -ETIMEDOUT;
	}
}

/**
 * fabriq_ping() - time RC round trips to the fabriq at @dst
 * @src: source address, or NULL to let the route choose
 * @dst: the peer's address (its ping_port is used when the port is 0)
 * @opts: count, per-round-trip timeout, interval
 * @res: filled with the device and port used, and the times
 * @extack: for the reason of a failure
 * @stop: fabriq_ping_stop() on it ends the ping early (-EINTR)
 *
 * Context: process context, may sleep.
 * Return: 0 (some round trips may have timed out: see @res) or a
 * negative errno.
 */
int fabriq_ping(struct sockaddr *src, struct sockaddr *dst, const struct fabriq_ping_opts *opts,
		struct fabriq_ping_result *res, struct netlink_ext_ack *extack,
		struct fabriq_ping_stop *stop)
{
	struct fabriq_ping_conn *c;
	u32 i;
	s64 ns;
	int err;

	memset(res, 0, sizeof(*res));
	if (dst->sa_family == AF_INET && !((struct sockaddr_in *)dst)->sin_port)
		((struct sockaddr_in *)dst)->sin_port = htons(ping_port);
	if (dst->sa_family == AF_INET6 && !((struct sockaddr_in6 *)dst)->sin6_port)
		((struct sockaddr_in6 *)dst)->sin6_port = htons(ping_port);
	c = fabriq_ping_conn_alloc(stop);
	if (!c)
		return -ENOMEM;
	c->id = rdma_create_id(&init_net, fabriq_ping_active_handler, c, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(c->id)) {
		err = PTR_ERR(c->id);
		kfree(c);
		return err;
	}
	err = fabriq_ping_connect(c, src, dst, res, extack);
	for (i = 0; !err && i < opts->count; i++) {
		if (i && opts->interval_ms &&
		    wait_event_timeout(stop->wq, READ_ONCE(stop->stopped) || !READ_ONCE(c->buf),
				       msecs_to_jiffies(opts->interval_ms))) {
			err = READ_ONCE(stop->stopped) ? -EINTR : c->status ?: -ENODEV;
			if (err != -EINTR)
				NL_SET_ERR_MSG(extack, "the connection failed during the ping");
			break;
		}
		res->sent++;
		ns = fabriq_ping_once(c, i + 1, opts->timeout_ms);
		if (ns == -ETIMEDOUT)
			continue;
		if (ns < 0) {
			err = ns;
			NL_SET_ERR_MSG(extack, "the connection failed during the ping");
			break;
		}
		res->received++;
		res->rtt_total_ns += ns;
		if (!res->rtt_min_ns || ns < res->rtt_min_ns)
			res->rtt_min_ns = ns;
		if (ns > res->rtt_max_ns)
			res->rtt_max_ns = ns;
	}
	rdma_disconnect(c->id);
	fabriq_ping_release(c);
	rdma_destroy_id(c->id);
	kfree(c);
	return err;
}

/**
 * fabriq_ping_init() - listen for pings on ping_port, every address,
 * unless ping_listen is off
 *
 * A busy port is reported and leaves fabriq without a listener; fabriq
 * still loads.
 *
 * Context: module init.  Return: 0 or a negative errno.
 */
static int fabriq_ping_init(void)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(ping_port) };
	struct rdma_cm_id *id;
	int err;

	INIT_DELAYED_WORK(&fabriq_ping_maint_work, fabriq_ping_maint);
	fabriq_ping_stopping = false;
	if (!ping_listen)
		return 0;
	id = rdma_create_id(&init_net, fabriq_ping_listen_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	err = rdma_bind_addr(id, (struct sockaddr *)&any);
	if (!err)
		err = rdma_listen(id, 16);
	if (err) {
		pr_warn("cannot listen for pings on port %u: %d\n", ping_port, err);
		rdma_destroy_id(id);
		return 0;
	}
	fabriq_ping_listener = id;
	return 0;
}

/**
 * fabriq_ping_exit() - stop listening and close every accepted connection
 *
 * Context: module exit.
 */
static void fabriq_ping_exit(void)
{
	struct fabriq_ping_conn *c, *tmp;
	LIST_HEAD(conns);

	/* no new connections, and no more maintenance: exit owns them all */
	if (fabriq_ping_listener)
		rdma_destroy_id(fabriq_ping_listener);
	fabriq_ping_listener = NULL;
	mutex_lock(&fabriq_ping_lock);
	fabriq_ping_stopping = true;
	mutex_unlock(&fabriq_ping_lock);
	cancel_delayed_work_sync(&fabriq_ping_maint_work);
	mutex_lock(&fabriq_ping_lock);
	list_splice_init(&fabriq_ping_conns, &conns);
	fabriq_ping_nconns = 0;
	mutex_unlock(&fabriq_ping_lock);
	list_for_each_entry_safe(c, tmp, &conns, list) {
		list_del_init(&c->list);
		rdma_disconnect(c->id);
		fabriq_ping_release(c);
		rdma_destroy_id(c->id);
		kfree(c);
	}
}

static int fabriq_ping_start(void)
{
	int err = fabriq_ping_runs_init();

	if (!err) {
		err = fabriq_ping_init();
		if (err)
			fabriq_ping_runs_exit();
	}
	return err;
}

/* the pings first: they may be talking to the listener of this host */
static void fabriq_ping_stop_all(void)
{
	fabriq_ping_runs_exit();
	fabriq_ping_exit();
}

/* the listener and the PING runs go from start to stop: after the ib_client attached */
struct fabriq_subsys fabriq_ping_subsys = {
	.name = "ping",
	.start = fabriq_ping_start,
	.stop = fabriq_ping_stop_all,
	.nl_ops = fabriq_ping_nl_ops,
};
