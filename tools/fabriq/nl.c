// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c - the CLI's generic netlink transport (libnl-genl-3).
 *
 * Resolves the "fabriq" family, sends requests and dumps, and turns kernel
 * errors into one clear line: the errno text, the extack message, and the
 * name of the attribute the extack points at (NLMSGERR_ATTR_OFFS).
 * Also how the objects take replies apart: the top-level policy parse, a
 * nest by type, the repeated attributes (fq_msg_for_each_attr in fabriq.h)
 * and address attributes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static struct nl_sock *sk;
static int family_id = -1;

struct fq_req {
	fq_msg_cb cb;
	void *arg;
	struct nl_msg *sent;
	int err;
	char msg[256];
	const char *attr;
	bool done;
	bool one_reply;		/* the ack says queued; the reply (or error) ends it */
};

int fq_nl_open(void)
{
	int one = 1;

	sk = nl_socket_alloc();
	if (!sk) {
		fprintf(stderr, "%s: cannot allocate a netlink socket\n", prog);
		return -1;
	}
	if (genl_connect(sk)) {
		fprintf(stderr, "%s: cannot open a generic netlink socket: %s\n",
			prog, strerror(errno));
		goto err_free;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(sk, 1 << 20, 0);

	family_id = genl_ctrl_resolve(sk, FABRIQ_GENL_NAME);
	if (family_id < 0) {
		fprintf(stderr, "%s: the fabriq kernel module is not loaded "
			"(generic netlink family '%s' not found); run 'modprobe fabriq'\n",
			prog, FABRIQ_GENL_NAME);
		goto err_free;
	}
	return 0;

err_free:
	nl_socket_free(sk);
	sk = NULL;
	return -1;
}

void fq_nl_close(void)
{
	nl_socket_free(sk);
	sk = NULL;
}

struct nl_msg *fq_nl_new(uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family_id, 0, flags, cmd,
			 FABRIQ_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int fq_nl_parse(struct nl_msg *msg, struct nlattr **tb, int max, struct nla_policy *pol)
{
	return genlmsg_parse(nlmsg_hdr(msg), 0, tb, max, pol);
}

/* The attributes of @nest by type (the last of each), up to @max; no policy. */
void fq_nest_tb(const struct nlattr *nest, struct nlattr **tb, int max)
{
	struct nlattr *a;
	int rem;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) > 0 && nla_type(a) <= max)
			tb[nla_type(a)] = a;
}

/* An IPv4 or IPv6 address attribute as text into @buf; false (and @buf untouched) if neither. */
bool fq_nla_addr(const struct nlattr *a, char *buf, size_t size)
{
	if (nla_len(a) != 4 && nla_len(a) != 16)
		return false;
	inet_ntop(nla_len(a) == 4 ? AF_INET : AF_INET6, nla_data(a), buf, size);
	return true;
}

/* Does attribute @a (inside @outer, NULL at the top) of a @cmd request hold attributes? */
static bool is_nest(uint8_t cmd, const struct nlattr *outer, const struct nlattr *a)
{
	if (cmd == FABRIQ_CMD_CONFIG_SET)
		return !outer && nla_type(a) == FABRIQ_A_CONFIG_DET;
	if (cmd != FABRIQ_CMD_QOS_SET && cmd != FABRIQ_CMD_QOS_GET)
		return false;
	if (!outer)
		return nla_type(a) == FABRIQ_A_QOS_INTENT;
	return nla_type(outer) == FABRIQ_A_QOS_INTENT && nla_type(a) == FABRIQ_A_QOS_CFG_ECN;
}

/*
 * The name of the attribute of @sent that byte offset @off falls in,
 * looking inside nests down to the innermost attribute that holds it.
 */
static const char *attr_at_offset(struct nl_msg *sent, uint32_t off)
{
	struct nlmsghdr *nlh = nlmsg_hdr(sent);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *head = genlmsg_attrdata(gh, 0), *outer = NULL, *hit, *a;
	const char *name = NULL;
	int len = genlmsg_attrlen(gh, 0), rem;

	for (;;) {
		hit = NULL;
		nla_for_each_attr(a, head, len, rem) {
			uint32_t start = (uint32_t)((char *)a - (char *)nlh);

			if (off >= start && off < start + NLA_ALIGN(a->nla_len)) {
				hit = a;
				break;
			}
		}
		if (!hit)
			return name;
		name = fq_attr_name(gh->cmd, outer, nla_type(hit));
		if (!is_nest(gh->cmd, outer, hit) ||
		    off < (uint32_t)((char *)nla_data(hit) - (char *)nlh))
			return name;
		outer = hit;
		head = nla_data(hit);
		len = nla_len(hit);
	}
}

/* the extended ack TLVs from @tlvs to @end: message and attribute */
static void parse_ext_ack(struct fq_req *req, char *tlvs, char *end)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = {};

	if (tlvs >= end)
		return;
	nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)tlvs, end - tlvs, NULL);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(req->msg, sizeof(req->msg), "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS] && req->sent)
		req->attr = attr_at_offset(req->sent, nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE] && req->sent) {
		struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(req->sent));

		req->attr = fq_attr_name(gh->cmd, NULL, nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]));
	}
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct fq_req *req = arg;
	size_t skip = sizeof(*e);

	req->err = e->error;
	req->done = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		skip += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_ext_ack(req, (char *)e + skip, (char *)nlh + nlh->nlmsg_len);
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct fq_req *req = arg;

	if ((req->cb && req->cb(msg, req->arg)) || req->one_reply) {
		req->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

/*
 * The end of a dump.  A dump that failed part-way says so here: NLMSG_DONE
 * carries the dump's error code, then (NLM_F_ACK_TLVS) its extended ack.
 */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct fq_req *req = arg;
	int err;

	req->done = true;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(err))
		return NL_STOP;
	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err >= 0)
		return NL_STOP;
	req->err = err;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		parse_ext_ack(req, (char *)nlmsg_data(nlh) + sizeof(err),
			      (char *)nlh + nlh->nlmsg_len);
	return NL_STOP;
}

/*
 * libnl expects the next sequence number once the ack came; a reply that
 * comes after its ack (one_reply) still carries the request's own.
 */
static int on_reply_seq_check(struct nl_msg *msg, void *arg)
{
	struct fq_req *req = arg;

	return nlmsg_hdr(msg)->nlmsg_seq == nlmsg_hdr(req->sent)->nlmsg_seq ? NL_OK : NL_SKIP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct fq_req *req = arg;

	/* queued: the reply comes later */
	if (req->one_reply)
		return NL_OK;
	req->done = true;
	return NL_STOP;
}

/*
 * Send @msg (consumed), feed each reply to @cb, wait for the ack or the end
 * of the dump.  On a kernel error print "<what>: <extack> (attribute X): <errno>".
 * Returns 0 or the negative errno.
 */
static int fq_nl_exchange(struct nl_msg *msg, fq_msg_cb cb, void *arg, const char *what,
			  bool one_reply)
{
	struct fq_req req = { .cb = cb, .arg = arg, .sent = msg, .one_reply = one_reply };
	struct nl_cb *nlcb = nl_cb_alloc(NL_CB_DEFAULT);
	int err;

	if (!nlcb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(nlcb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &req);
	nl_cb_set(nlcb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	if (one_reply)
		nl_cb_set(nlcb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_reply_seq_check, &req);
	nl_cb_err(nlcb, NL_CB_CUSTOM, on_error, &req);

	err = nl_send_auto(sk, msg);
	if (err < 0) {
		fprintf(stderr, "%s: %s: cannot send: %s\n", prog, what, nl_geterror(err));
		goto out;
	}
	err = 0;
	while (!req.done && err >= 0)
		err = nl_recvmsgs(sk, nlcb);
	if (err < 0 && !req.err) {
		fprintf(stderr, "%s: %s: %s\n", prog, what, nl_geterror(err));
		goto out;
	}
	err = req.err;
	if (err) {
		fprintf(stderr, "%s: %s: %s%s%s%s%s%s\n", prog, what,
			req.msg[0] ? req.msg : "",
			req.attr ? " (attribute " : "", req.attr ? req.attr : "",
			req.attr ? ")" : "", req.msg[0] || req.attr ? ": " : "",
			strerror(-err));
	}
out:
	nl_cb_put(nlcb);
	nlmsg_free(msg);
	return err;
}

int fq_nl_request(struct nl_msg *msg, fq_msg_cb cb, void *arg, const char *what)
{
	return fq_nl_exchange(msg, cb, arg, what, false);
}

/*
 * A command the kernel answers later (PING runs in the background): its
 * ack only says the command was queued; the one reply, or an error, ends
 * the request.
 */
int fq_nl_request_later(struct nl_msg *msg, fq_msg_cb cb, void *arg, const char *what)
{
	return fq_nl_exchange(msg, cb, arg, what, true);
}

int fq_nl_subscribe_events(void)
{
	int grp = genl_ctrl_resolve_grp(sk, FABRIQ_GENL_NAME, FABRIQ_MCGRP_EVENTS);
	int err;

	if (grp < 0) {
		fprintf(stderr, "%s: multicast group '%s' not found: %s\n", prog,
			FABRIQ_MCGRP_EVENTS, nl_geterror(grp));
		return -1;
	}
	err = nl_socket_add_membership(sk, grp);
	if (err < 0) {
		fprintf(stderr, "%s: cannot join the '%s' group (needs CAP_NET_ADMIN): %s\n",
			prog, FABRIQ_MCGRP_EVENTS, nl_geterror(err));
		return -1;
	}
	return 0;
}

/* Notifications carry sequence number 0: accept them all. */
static int on_seq_check(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

/*
 * Deliver every notification to @cb until it returns non-zero, *@stop is
 * set (by a signal handler), or an error.  libnl restarts recvmsg() after
 * EINTR, so wait in poll(), which a signal always interrupts.
 * Returns 0 or a negative libnl error (NLE_*).
 */
int fq_nl_listen(fq_msg_cb cb, void *arg, volatile sig_atomic_t *stop)
{
	struct fq_req req = { .cb = cb, .arg = arg };
	struct nl_cb *nlcb = nl_cb_alloc(NL_CB_DEFAULT);
	struct pollfd pfd = { .fd = nl_socket_get_fd(sk), .events = POLLIN };
	int err = 0;

	if (!nlcb)
		return -NLE_NOMEM;
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(nlcb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_seq_check, NULL);
	while (err >= 0 && !req.done && !*stop) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno != EINTR)
				err = -nl_syserr2nlerr(errno);
			continue;
		}
		err = nl_recvmsgs(sk, nlcb);
	}
	nl_cb_put(nlcb);
	return err < 0 ? err : 0;
}
