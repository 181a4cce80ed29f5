// SPDX-License-Identifier: GPL-2.0
/*
 * tc.c - a netdev's qdiscs through rtnetlink: there is no exported
 * in-kernel API to create or read qdiscs, so fabriq sends the messages
 * tc(8) sends (RTM_NEWQDISC/DELQDISC/GETQDISC) over a kernel netlink
 * socket.  Infrastructure that QoS (RED qdiscs for ECN, qos_red.c) and
 * telemetry (the packets RED marked) share.
 */
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/sch_generic.h>

#include "tc.h"

#define FABRIQ_RTNL_RECV_BUF	(32 * 1024)

/* A socket to rtnetlink (the initial namespace's) and a buffer for its answers. */
int fabriq_rtnl_open(struct fabriq_rtnl *r)
{
	int err;

	r->buf = kmalloc(FABRIQ_RTNL_RECV_BUF, GFP_KERNEL);
	if (!r->buf)
		return -ENOMEM;
	err = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, &r->sock);
	if (err)
		kfree(r->buf);
	return err;
}

void fabriq_rtnl_close(struct fabriq_rtnl *r)
{
	sock_release(r->sock);
	kfree(r->buf);
}

static int fabriq_rtnl_send(struct socket *sock, struct sk_buff *skb)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct msghdr msg = { .msg_name = &kernel, .msg_namelen = sizeof(kernel) };
	struct kvec vec = { .iov_base = skb->data, .iov_len = skb->len };
	int ret;

	ret = kernel_sendmsg(sock, &msg, &vec, 1, skb->len);
	return ret < 0 ? ret : 0;
}

/*
 * Read replies until the ack (or the end of a dump); hand each other
 * message to @cb.  Return: the error of the ack, 0, or a socket error.
 */
static int fabriq_rtnl_recv(struct socket *sock, void *buf, fabriq_tc_cb cb, void *arg)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec vec = { .iov_base = buf, .iov_len = FABRIQ_RTNL_RECV_BUF };
	struct nlmsghdr *nlh;
	int len;

	for (;;) {
		len = kernel_recvmsg(sock, &msg, &vec, 1, FABRIQ_RTNL_RECV_BUF, MSG_DONTWAIT);
		if (len < 0)
			return len;
		for (nlh = buf; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)nlmsg_data(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb)
				cb(nlh, arg);
		}
	}
}

/* A tc request of @type about @ifindex's qdiscs; @tcm is its header.  NULL: no memory. */
struct sk_buff *fabriq_tc_msg(int type, int flags, int ifindex, u32 parent, u32 handle,
			      struct tcmsg **tcm)
{
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	skb = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	nlh = nlmsg_put(skb, 0, 1, type, sizeof(**tcm), NLM_F_REQUEST | NLM_F_ACK | flags);
	*tcm = nlmsg_data(nlh);
	memset(*tcm, 0, sizeof(**tcm));
	(*tcm)->tcm_family = AF_UNSPEC;
	(*tcm)->tcm_ifindex = ifindex;
	(*tcm)->tcm_parent = parent;
	(*tcm)->tcm_handle = handle;
	return skb;
}

/* Send @skb (consumed), read its answers into @cb, return the ack's error. */
int fabriq_tc_request(struct fabriq_rtnl *r, struct sk_buff *skb, fabriq_tc_cb cb, void *arg)
{
	int err;

	nlmsg_end(skb, nlmsg_hdr(skb));
	err = fabriq_rtnl_send(r->sock, skb);
	kfree_skb(skb);
	return err ?: fabriq_rtnl_recv(r->sock, r->buf, cb, arg);
}

/**
 * fabriq_tc_dump() - every qdisc, as `tc qdisc show` reads them
 * @ifindex: the netdev asked about; the answer may cover others too, so
 *	     @cb must look at each message's tcm_ifindex
 * @cb: gets each RTM_NEWQDISC
 * @arg: for @cb
 *
 * Context: process context; rtnl_lock not held.  Return: 0 or a negative errno.
 */
int fabriq_tc_dump(int ifindex, fabriq_tc_cb cb, void *arg)
{
	struct fabriq_rtnl r;
	struct sk_buff *skb;
	struct tcmsg *tcm;
	int err;

	err = fabriq_rtnl_open(&r);
	if (err)
		return err;
	skb = fabriq_tc_msg(RTM_GETQDISC, NLM_F_DUMP, ifindex, 0, 0, &tcm);
	err = skb ? fabriq_tc_request(&r, skb, cb, arg) : -ENOMEM;
	fabriq_rtnl_close(&r);
	return err;
}

/**
 * fabriq_tc_root() - the handle of @ndev's root qdisc
 * @ndev: the netdev
 *
 * Context: process context; takes rtnl_lock.
 * Return: the handle; 0 for the built-in defaults (noqueue, pfifo_fast,
 * mq and the like), which nobody configured.
 */
u32 fabriq_tc_root(struct net_device *ndev)
{
	struct Qdisc *q;
	u32 handle;

	rtnl_lock();
	q = rtnl_dereference(ndev->qdisc);
	handle = q ? q->handle : 0;
	rtnl_unlock();
	return handle;
}
