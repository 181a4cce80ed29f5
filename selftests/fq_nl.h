/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fq_nl.h - a small raw generic netlink client for the fabriq selftests,
 * without libnl: build requests (attributes and nests), send them, collect
 * the replies and the extack (message and offset) of an error.
 */
#ifndef FQ_NL_H
#define FQ_NL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/fabriq.h>

#define BUF_SIZE 65536

struct nl_reply {
	int error;		/* 0 or negative errno from NLMSG_ERROR */
	char msg[256];		/* NLMSGERR_ATTR_MSG */
	int64_t offs;		/* NLMSGERR_ATTR_OFFS, -1 if absent */
	int count;		/* data messages received */
	char name[FABRIQ_DEV_NAME_MAX];	/* device name of the first, if parsed */
	int64_t index;		/* device index of the first, if parsed */
};

/* Called for each data message of a reply (rep->count counts them). */
typedef void (*nl_data_cb)(struct nlmsghdr *h, struct nl_reply *rep);

struct req {
	struct nlmsghdr nlh;
	struct genlmsghdr gh;
	char attrs[1024];
};

static inline int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	int one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

static inline void req_init(struct req *r, uint16_t family, uint8_t cmd, uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nlh.nlmsg_seq = 1;
	r->gh.cmd = cmd;
	r->gh.version = 1;
}

/* Append an attribute; return its offset from the start of the message. */
static inline uint32_t req_put(struct req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));
	uint32_t off = (char *)a - (char *)r;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return off;
}

/* The payload of the first attribute of @type in [@start, @start + @len). */
static inline void *attr_find(void *start, int len, uint16_t type)
{
	struct nlattr *a = start;

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if (a->nla_type == type)
			return (char *)a + NLA_HDRLEN;
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

static inline void *genl_attrs(struct nlmsghdr *h, int *len)
{
	*len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (char *)NLMSG_DATA(h) + GENL_HDRLEN;
}

static inline void parse_extack(struct nlmsghdr *h, struct nl_reply *rep)
{
	struct nlmsgerr *e = NLMSG_DATA(h);
	size_t skip = sizeof(*e);
	char *start, *msg;
	uint32_t *offs;
	int len;

	rep->error = e->error;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		skip += e->msg.nlmsg_len - NLMSG_HDRLEN;
	start = (char *)e + skip;
	len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)skip;
	msg = attr_find(start, len, NLMSGERR_ATTR_MSG);
	offs = attr_find(start, len, NLMSGERR_ATTR_OFFS);
	if (msg)
		snprintf(rep->msg, sizeof(rep->msg), "%s", msg);
	if (offs)
		rep->offs = *offs;
}

/* Open a nest of @type; close it with req_nest_end(). */
static inline struct nlattr *req_nest_start(struct req *r, uint16_t type)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type | NLA_F_NESTED;
	a->nla_len = NLA_HDRLEN;
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_HDRLEN;
	return a;
}

static inline void req_nest_end(struct req *r, struct nlattr *nest)
{
	nest->nla_len = (char *)r + r->nlh.nlmsg_len - (char *)nest;
}

/* Send @r, collect replies until the ack, the error or NLMSG_DONE. */
static inline int transact_cb(int fd, struct req *r, struct nl_reply *rep, nl_data_cb on_data)
{
	static char buf[BUF_SIZE];
	bool done = false;

	memset(rep, 0, sizeof(*rep));
	rep->offs = -1;
	rep->index = -1;
	if (send(fd, r, r->nlh.nlmsg_len, 0) < 0)
		return -errno;
	while (!done) {
		int len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0)
			return -errno;
		for (h = (void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				parse_extack(h, rep);
				done = true;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
			} else {
				if (on_data)
					on_data(h, rep);
				rep->count++;
			}
		}
	}
	return 0;
}

/* The controller's answer about the fabriq family, or NULL. */
static inline struct nlmsghdr *get_family(int fd)
{
	static char buf[BUF_SIZE];
	struct nlmsghdr *h = (void *)buf;
	struct req r;
	int len;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	r.nlh.nlmsg_flags &= ~NLM_F_ACK;
	req_put(&r, CTRL_ATTR_FAMILY_NAME, FABRIQ_GENL_NAME, sizeof(FABRIQ_GENL_NAME));
	if (send(fd, &r, r.nlh.nlmsg_len, 0) < 0)
		return NULL;
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0 || !NLMSG_OK(h, len) || h->nlmsg_type == NLMSG_ERROR)
		return NULL;
	return h;
}

static inline int resolve_family(int fd)
{
	struct nlmsghdr *h = get_family(fd);
	uint16_t *id;
	void *attrs;
	int alen;

	if (!h)
		return -1;
	attrs = genl_attrs(h, &alen);
	id = attr_find(attrs, alen, CTRL_ATTR_FAMILY_ID);
	return id ? *id : -1;
}

/* The id of the family's multicast group @name, or -1. */
static inline int resolve_mcgrp(int fd, const char *name)
{
	struct nlmsghdr *h = get_family(fd);
	struct nlattr *g;
	void *attrs, *grps;
	int alen, glen;

	if (!h)
		return -1;
	attrs = genl_attrs(h, &alen);
	grps = attr_find(attrs, alen, CTRL_ATTR_MCAST_GROUPS);
	if (!grps)
		return -1;
	glen = ((struct nlattr *)grps - 1)->nla_len - NLA_HDRLEN;
	for (g = grps; glen >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN;
	     glen -= NLA_ALIGN(g->nla_len), g = (void *)((char *)g + NLA_ALIGN(g->nla_len))) {
		char *n = attr_find(g + 1, g->nla_len - NLA_HDRLEN, CTRL_ATTR_MCAST_GRP_NAME);
		uint32_t *id = attr_find(g + 1, g->nla_len - NLA_HDRLEN, CTRL_ATTR_MCAST_GRP_ID);

		if (n && id && !strcmp(n, name))
			return *id;
	}
	return -1;
}

#endif
