/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc.h - a netdev's qdiscs through rtnetlink, as tc(8) speaks to them
 * (core/tc.c): what QoS (RED for ECN) and telemetry (RED's marks) share.
 */
#ifndef _FABRIQ_TC_H
#define _FABRIQ_TC_H

#include <linux/types.h>

struct net_device;
struct nlmsghdr;
struct sk_buff;
struct socket;
struct tcmsg;

/* A kernel netlink socket to rtnetlink and a buffer for its replies. */
struct fabriq_rtnl {
	struct socket *sock;
	void *buf;
};

/* what a request hands each message of its answer (not the ack) */
typedef void (*fabriq_tc_cb)(const struct nlmsghdr *nlh, void *arg);

int fabriq_rtnl_open(struct fabriq_rtnl *r);
void fabriq_rtnl_close(struct fabriq_rtnl *r);
struct sk_buff *fabriq_tc_msg(int type, int flags, int ifindex, u32 parent, u32 handle,
			      struct tcmsg **tcm);
int fabriq_tc_request(struct fabriq_rtnl *r, struct sk_buff *skb, fabriq_tc_cb cb, void *arg);
int fabriq_tc_dump(int ifindex, fabriq_tc_cb cb, void *arg);
u32 fabriq_tc_root(struct net_device *ndev);

#endif /* _FABRIQ_TC_H */
