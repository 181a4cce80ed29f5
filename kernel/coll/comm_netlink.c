// SPDX-License-Identifier: GPL-2.0
/*
 * comm_netlink.c - FABRIQ_CMD_COMM_GET: a dump of the communicators on
 * this host, each with its peers (attribute sets "comm", "comm-peer").
 *
 * Unprivileged, like "rdma resource show": it reveals ids, ranks and
 * addresses, not data.  The cursor is the registration serial, so a
 * communicator created or destroyed between two parts of a dump neither
 * repeats nor hides the others, and the next peer: a communicator with
 * more peers than fit in one message goes on in the next ones, each
 * repeating its attributes (the same id, rank and port) with more peers.
 * Each rank's status (set "rank-status", ctrl.c) is in it: this rank's,
 * and each peer's as its heartbeats told: `fabriq comm status`.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "comm.h"

static const struct nla_policy fq_nl_comm_policy[FABRIQ_A_COMM_MAX + 1] = {
	[FABRIQ_A_COMM_ID] = { .type = NLA_U64 },
};

/**
 * fq_nl_put_addr() - a rank's IP address (without its port) as an attribute
 * @skb: the message
 * @type: the attribute
 * @ss: the address, AF_INET or AF_INET6
 *
 * Also for STATS_GET's peers (comm_stats_netlink.c).  Return: 0 or -EMSGSIZE.
 */
int fq_nl_put_addr(struct sk_buff *skb, int type, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return nla_put(skb, type, 4, &((const struct sockaddr_in *)ss)->sin_addr);
	return nla_put(skb, type, 16, &((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* what a peer's connection shows before it is connected */
static const struct fabriq_qos_path fq_nl_qos_none;

/*
 * The peers from *@next on, as many as fit; *@next: the first one that did
 * not (nranks when all did).  @view: every rank's status (ctrl.c).
 * Context: comm->setup_lock held.
 * Return: 0, or -EMSGSIZE when not one fit.
 */
static int fq_nl_put_peers(struct sk_buff *skb, struct fq_comm *comm,
			   const struct fq_rank_view *view, u32 *next)
{
	const struct fabriq_qos_path *qos;
	struct nlattr *nest;
	struct fq_msg_counts m;
	struct fq_peer *p;
	u32 r, c, first = *next;
	bool up;

	for (r = first; r < comm->nranks; r++) {
		if (r == comm->rank)
			continue;
		p = &comm->peers[r];
		fq_peer_msgs(comm, p, &m);
		up = true;
		for (c = 0; c < comm->nch; c++)
			up &= READ_ONCE(p->ch[c]->established) && !READ_ONCE(p->ch[c]->peer_closed);
		/* every channel asks for the same; none before it is connected */
		qos = READ_ONCE(p->ch[0]->established) ? &p->ch[0]->qos : &fq_nl_qos_none;
		nest = nla_nest_start(skb, FABRIQ_A_COMM_PEER);
		if (!nest ||
		    nla_put_u32(skb, FABRIQ_A_COMM_PEER_RANK, r) ||
		    fq_nl_put_addr(skb, FABRIQ_A_COMM_PEER_ADDR, &comm->addrs[r]) ||
		    nla_put_u8(skb, FABRIQ_A_COMM_PEER_UP, up && !comm->hw_gone) ||
		    nla_put_u64_64bit(skb, FABRIQ_A_COMM_PEER_MSGS_TX, m.send_seq,
				      FABRIQ_A_COMM_PEER_PAD) ||
		    nla_put_u64_64bit(skb, FABRIQ_A_COMM_PEER_MSGS_RX, m.recv_seq,
				      FABRIQ_A_COMM_PEER_PAD) ||
		    nla_put_u64_64bit(skb, FABRIQ_A_COMM_PEER_BYTES_TX, m.tx_bytes,
				      FABRIQ_A_COMM_PEER_PAD) ||
		    nla_put_u64_64bit(skb, FABRIQ_A_COMM_PEER_BYTES_RX, m.rx_bytes,
				      FABRIQ_A_COMM_PEER_PAD) ||
		    (qos->has_tclass && nla_put_u8(skb, FABRIQ_A_COMM_PEER_TCLASS, qos->tclass)) ||
		    (qos->has_sl && nla_put_u8(skb, FABRIQ_A_COMM_PEER_SL, qos->sl)) ||
		    fq_ctrl_nl_put(skb, FABRIQ_A_COMM_PEER_STATUS, &view[r])) {
			nla_nest_cancel(skb, nest);
			*next = r;
			/* not even the first peer to put (the rank itself is not one) fit */
			if (r == first || (r == first + 1 && first == comm->rank))
				return -EMSGSIZE;
			return 0;
		}
		nla_nest_end(skb, nest);
	}
	*next = comm->nranks;
	return 0;
}

/*
 * One message of @comm: its attributes and its peers from *@peer on;
 * *@peer: where the next message of it starts (nranks: it is complete).
 */
static int fq_nl_fill_comm(struct sk_buff *skb, struct fq_comm *comm, struct netlink_callback *cb,
			   u32 *peer)
{
	struct fq_rank_view *view = fq_ctrl_view(comm);
	void *hdr;
	int err;

	if (!view)
		return -ENOMEM;
	hdr = fabriq_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, NLM_F_MULTI,
				FABRIQ_CMD_COMM_GET);
	if (!hdr) {
		kvfree(view);
		return -EMSGSIZE;
	}
	mutex_lock(&comm->setup_lock);
	err = nla_put_u64_64bit(skb, FABRIQ_A_COMM_ID, comm->id, FABRIQ_A_COMM_PAD) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_RANK, comm->rank) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_NRANKS, comm->nranks) ||
	      nla_put_string(skb, FABRIQ_A_COMM_STATE, fq_comm_state_name(comm)) ||
	      nla_put_s32(skb, FABRIQ_A_COMM_ERROR, READ_ONCE(comm->err)) ||
	      (comm->ibdev && !comm->hw_gone &&
	       nla_put_string(skb, FABRIQ_A_COMM_DEV_NAME, dev_name(&comm->ibdev->dev))) ||
	      fq_nl_put_addr(skb, FABRIQ_A_COMM_ADDR, &comm->addrs[comm->rank]) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_PORT, comm->base_port + comm->rank) ||
	      nla_put_u8(skb, FABRIQ_A_COMM_ALGO, comm->algo) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_CHUNK, comm->chunk) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_CHANNELS, comm->nch) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_QPS,
			  comm->hw_gone ? 0 : (comm->nranks - 1) * fq_nconn(comm)) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_PEER_TIMEOUT_MS, comm->peer_timeout_ms) ||
	      fq_ctrl_nl_put(skb, FABRIQ_A_COMM_STATUS, &view[comm->rank]) ||
	      nla_put_u64_64bit(skb, FABRIQ_A_COMM_OPS_DONE, atomic64_read(&comm->ops_done),
				FABRIQ_A_COMM_PAD) ||
	      nla_put_u64_64bit(skb, FABRIQ_A_COMM_OPS_FAILED, atomic64_read(&comm->ops_failed),
				FABRIQ_A_COMM_PAD) ||
	      nla_put_u32(skb, FABRIQ_A_COMM_OPS_QUEUED, READ_ONCE(comm->nops)) ||
	      nla_put_u64_64bit(skb, FABRIQ_A_COMM_BYTES, atomic64_read(&comm->bytes),
				FABRIQ_A_COMM_PAD) ? -EMSGSIZE : 0;
	if (!err)
		err = fq_nl_put_peers(skb, comm, view, peer);
	mutex_unlock(&comm->setup_lock);
	kvfree(view);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* where a COMM_GET dump goes on: a communicator (by serial) and its next peer */
struct fq_nl_comm_cursor {
	u64 serial;
	u32 peer;
};

struct fq_nl_comm_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct fq_nl_comm_cursor *cur;	/* in cb->ctx */
	bool filter;
	u64 id;
};

static int fq_nl_comm_dump_one(struct fq_comm *comm, void *arg)
{
	struct fq_nl_comm_dump *d = arg;
	u32 peer;
	int err;

	if (comm->serial < d->cur->serial || (d->filter && comm->id != d->id))
		return 0;
	peer = comm->serial == d->cur->serial ? d->cur->peer : 0;
	d->cur->serial = comm->serial;
	d->cur->peer = peer;
	err = fq_nl_fill_comm(d->skb, comm, d->cb, &peer);
	if (err)
		return err;
	d->cur->peer = peer;
	if (peer < comm->nranks)
		return -EMSGSIZE;	/* the rest of its peers in the next message */
	d->cur->serial = comm->serial + 1;
	d->cur->peer = 0;
	return 0;
}

static int fq_nl_comm_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = fabriq_dump_attrs(cb);
	struct fq_nl_comm_dump d = {
		.skb = skb, .cb = cb, .cur = (struct fq_nl_comm_cursor *)cb->ctx,
	};
	int err;

	BUILD_BUG_ON(sizeof(struct fq_nl_comm_cursor) > sizeof(cb->ctx));
	if (attrs && attrs[FABRIQ_A_COMM_ID]) {
		d.filter = true;
		d.id = nla_get_u64(attrs[FABRIQ_A_COMM_ID]);
	}
	err = fq_comm_for_each(fq_nl_comm_dump_one, &d);
	if (err && !skb->len)
		return err;
	return skb->len;
}

/* COMM_GET (any user), for the core's family */
const struct genl_ops fq_comm_nl_ops[] = {
	{
		.cmd = FABRIQ_CMD_COMM_GET,
		.dumpit = fq_nl_comm_get_dumpit,
		.policy = fq_nl_comm_policy,
		.maxattr = FABRIQ_A_COMM_MAX,
	},
	{ }
};
