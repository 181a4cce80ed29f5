// SPDX-License-Identifier: GPL-2.0
/*
 * ping_netlink.c - FABRIQ_CMD_PING of the "fabriq" family: parse the
 * addresses, run fabriq_ping() (ping.c) in the background, and send the
 * requester what it used and measured, or the error with its reason.
 *
 * A ping may last minutes, and a doit runs under genetlink's cb_lock,
 * which genl_register_family() (any module load) must take for writing:
 * a ping held in the doit would stall every generic netlink request on
 * the host behind that writer.  So the doit only queues the ping and
 * returns (the ack, if asked for, means queued).  The result comes later
 * as a PING message, or an NLMSG_ERROR with the extack message, with the
 * request's sequence number.  Closing
 * the requesting socket stops its pings (NETLINK_URELEASE).  At most
 * FABRIQ_PING_MAX_RUNS run at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "core/fabriq.h"
#include "ping.h"

/* not const: 6.1's NLA_POLICY_FULL_RANGE() takes a non-const pointer */
static struct netlink_range_validation fabriq_nl_ping_count_range __ro_after_init = {
	.min = 1,
	.max = 1000,
};

static struct netlink_range_validation fabriq_nl_ping_timeout_range __ro_after_init = {
	.min = 1,
	.max = 60000,
};

static struct netlink_range_validation fabriq_nl_ping_interval_range __ro_after_init = {
	.min = 0,
	.max = 60000,
};

static const struct nla_policy fabriq_nl_ping_policy[FABRIQ_A_PING_MAX + 1] = {
	[FABRIQ_A_PING_DST] = { .type = NLA_BINARY, .len = sizeof(struct in6_addr) },
	[FABRIQ_A_PING_SRC] = { .type = NLA_BINARY, .len = sizeof(struct in6_addr) },
	[FABRIQ_A_PING_COUNT] = NLA_POLICY_FULL_RANGE(NLA_U32, &fabriq_nl_ping_count_range),
	[FABRIQ_A_PING_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							   &fabriq_nl_ping_timeout_range),
	[FABRIQ_A_PING_INTERVAL_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &fabriq_nl_ping_interval_range),
};

/* An IPv4 (4 bytes) or IPv6 (16 bytes) address attribute as a sockaddr. */
static int fabriq_nl_ping_addr(const struct nlattr *a, struct sockaddr_storage *ss,
			       struct netlink_ext_ack *extack)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (nla_len(a) == sizeof(struct in_addr)) {
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, nla_data(a), sizeof(sin->sin_addr));
		return 0;
	}
	if (nla_len(a) == sizeof(struct in6_addr)) {
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, nla_data(a), sizeof(sin6->sin6_addr));
		return 0;
	}
	NL_SET_ERR_MSG_ATTR(extack, a, "address: 4 bytes (IPv4) or 16 bytes (IPv6) expected");
	return -EINVAL;
}

#define FABRIQ_PING_MAX_RUNS	16

/**
 * struct fabriq_ping_run - one PING request, queued or running
 * @list: entry on fabriq_ping_runs
 * @work: runs the ping on fabriq_ping_wq
 * @stop: stops it early (the requester went away, or fabriq unloads)
 * @net: the requester's namespace
 * @portid: the requester's socket
 * @req: the request's header, echoed in an error reply
 * @has_src: @src was given
 * @src: source address
 * @dst: the peer's address
 * @opts: count, timeout, interval
 * @res: what the ping used and measured
 */
struct fabriq_ping_run {
	struct list_head list;
	struct work_struct work;
	struct fabriq_ping_stop stop;
	struct net *net;
	u32 portid;
	struct nlmsghdr req;
	bool has_src;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	struct fabriq_ping_opts opts;
	struct fabriq_ping_result res;
};

static struct workqueue_struct *fabriq_ping_wq;
/* protects fabriq_ping_runs, its count and fabriq_ping_runs_closed */
static DEFINE_SPINLOCK(fabriq_ping_runs_lock);
static LIST_HEAD(fabriq_ping_runs);
static unsigned int fabriq_ping_nruns;
static bool fabriq_ping_runs_closed;

static int fabriq_nl_ping_reply(struct fabriq_ping_run *run)
{
	const struct fabriq_ping_result *r = &run->res;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fabriq_nl_put_hdr(msg, run->portid, run->req.nlmsg_seq, 0, FABRIQ_CMD_PING);
	if (!hdr ||
	    nla_put_string(msg, FABRIQ_A_PING_DEV_NAME, r->dev_name) ||
	    nla_put_u32(msg, FABRIQ_A_PING_PORT, r->port) ||
	    (r->has_tclass && nla_put_u8(msg, FABRIQ_A_PING_TCLASS, r->tclass)) ||
	    nla_put_u32(msg, FABRIQ_A_PING_SENT, r->sent) ||
	    nla_put_u32(msg, FABRIQ_A_PING_RECEIVED, r->received) ||
	    nla_put_u64_64bit(msg, FABRIQ_A_PING_RTT_MIN_NS, r->rtt_min_ns, FABRIQ_A_PING_PAD) ||
	    nla_put_u64_64bit(msg, FABRIQ_A_PING_RTT_AVG_NS,
			      r->received ? div_u64(r->rtt_total_ns, r->received) : 0,
			      FABRIQ_A_PING_PAD) ||
	    nla_put_u64_64bit(msg, FABRIQ_A_PING_RTT_MAX_NS, r->rtt_max_ns, FABRIQ_A_PING_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_unicast(run->net, msg, run->portid);
}

/* The error a late doit would have returned: NLMSG_ERROR, extack message included. */
static void fabriq_nl_ping_error(struct fabriq_ping_run *run, int err, const char *why)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	struct sk_buff *msg;

	msg = nlmsg_new(sizeof(*e) + (why ? nla_total_size(strlen(why) + 1) : 0), GFP_KERNEL);
	if (!msg)
		return;
	nlh = nlmsg_put(msg, run->portid, run->req.nlmsg_seq, NLMSG_ERROR, sizeof(*e),
			NLM_F_CAPPED | (why ? NLM_F_ACK_TLVS : 0));
	if (!nlh) {
		nlmsg_free(msg);
		return;
	}
	e = nlmsg_data(nlh);
	e->error = err;
	e->msg = run->req;
	if (why && nla_put_string(msg, NLMSGERR_ATTR_MSG, why)) {
		nlmsg_free(msg);
		return;
	}
	nlmsg_end(msg, nlh);
	nlmsg_unicast(run->net->genl_sock, msg, run->portid);
}

static void fabriq_ping_run_work(struct work_struct *work)
{
	struct fabriq_ping_run *run = container_of(work, struct fabriq_ping_run, work);
	struct netlink_ext_ack ext = {};
	int err;

	err = fabriq_ping(run->has_src ? (struct sockaddr *)&run->src : NULL,
			  (struct sockaddr *)&run->dst, &run->opts, &run->res, &ext, &run->stop);
	if (err == -EINTR)
		NL_SET_ERR_MSG(&ext, "the ping was stopped: fabriq is unloading");
	if (!err)
		err = fabriq_nl_ping_reply(run);
	if (err)
		fabriq_nl_ping_error(run, err, ext._msg);

	spin_lock(&fabriq_ping_runs_lock);
	list_del(&run->list);
	fabriq_ping_nruns--;
	spin_unlock(&fabriq_ping_runs_lock);
	put_net(run->net);
	kfree(run);
}

/* The requesting socket closed: nobody waits for its pings any more. */
static int fabriq_ping_nl_release(struct notifier_block *nb, unsigned long state, void *data)
{
	struct netlink_notify *n = data;
	struct fabriq_ping_run *run;

	if (state != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	spin_lock(&fabriq_ping_runs_lock);
	list_for_each_entry(run, &fabriq_ping_runs, list)
		if (run->portid == n->portid && net_eq(run->net, n->net))
			fabriq_ping_stop(&run->stop);
	spin_unlock(&fabriq_ping_runs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block fabriq_ping_nl_notifier = {
	.notifier_call = fabriq_ping_nl_release,
};

static int fabriq_nl_ping_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct fabriq_ping_run *run;
	int err;

	if (!tb[FABRIQ_A_PING_DST]) {
		NL_SET_ERR_MSG(info->extack, "dst is required: the peer's address");
		return -EINVAL;
	}
	run = kzalloc(sizeof(*run), GFP_KERNEL_ACCOUNT);
	if (!run)
		return -ENOMEM;
	run->opts = (struct fabriq_ping_opts){ .count = 5, .timeout_ms = 1000 };
	err = fabriq_nl_ping_addr(tb[FABRIQ_A_PING_DST], &run->dst, info->extack);
	run->has_src = tb[FABRIQ_A_PING_SRC];
	if (!err && run->has_src)
		err = fabriq_nl_ping_addr(tb[FABRIQ_A_PING_SRC], &run->src, info->extack);
	if (!err && run->has_src && run->src.ss_family != run->dst.ss_family) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[FABRIQ_A_PING_SRC],
				    "src and dst must be of the same address family");
		err = -EINVAL;
	}
	if (err) {
		kfree(run);
		return err;
	}
	if (tb[FABRIQ_A_PING_COUNT])
		run->opts.count = nla_get_u32(tb[FABRIQ_A_PING_COUNT]);
	if (tb[FABRIQ_A_PING_TIMEOUT_MS])
		run->opts.timeout_ms = nla_get_u32(tb[FABRIQ_A_PING_TIMEOUT_MS]);
	if (tb[FABRIQ_A_PING_INTERVAL_MS])
		run->opts.interval_ms = nla_get_u32(tb[FABRIQ_A_PING_INTERVAL_MS]);
	init_waitqueue_head(&run->stop.wq);
	INIT_WORK(&run->work, fabriq_ping_run_work);
	run->portid = info->snd_portid;
	run->req = *info->nlhdr;
	run->net = get_net(genl_info_net(info));

	spin_lock(&fabriq_ping_runs_lock);
	if (fabriq_ping_runs_closed) {
		err = -ESHUTDOWN;
	} else if (fabriq_ping_nruns >= FABRIQ_PING_MAX_RUNS) {
		NL_SET_ERR_MSG(info->extack, __stringify(FABRIQ_PING_MAX_RUNS)
			       " pings are running already; try later");
		err = -EBUSY;
	} else {
		list_add_tail(&run->list, &fabriq_ping_runs);
		fabriq_ping_nruns++;
		queue_work(fabriq_ping_wq, &run->work);
	}
	spin_unlock(&fabriq_ping_runs_lock);
	if (err) {
		put_net(run->net);
		kfree(run);
	}
	return err;
}

int fabriq_ping_runs_init(void)
{
	int err;

	fabriq_ping_wq = alloc_workqueue("fabriq_ping", WQ_UNBOUND, FABRIQ_PING_MAX_RUNS);
	if (!fabriq_ping_wq)
		return -ENOMEM;
	err = netlink_register_notifier(&fabriq_ping_nl_notifier);
	if (err) {
		destroy_workqueue(fabriq_ping_wq);
		return err;
	}
	fabriq_ping_runs_closed = false;
	return 0;
}

/* Stop every ping and wait until each has sent its requester the outcome. */
void fabriq_ping_runs_exit(void)
{
	struct fabriq_ping_run *run;

	spin_lock(&fabriq_ping_runs_lock);
	fabriq_ping_runs_closed = true;
	list_for_each_entry(run, &fabriq_ping_runs, list)
		fabriq_ping_stop(&run->stop);
	spin_unlock(&fabriq_ping_runs_lock);
	destroy_workqueue(fabriq_ping_wq);	/* drains the work */
	netlink_unregister_notifier(&fabriq_ping_nl_notifier);
}

/* PING (CAP_NET_ADMIN), for the core's family */
const struct genl_ops fabriq_ping_nl_ops[] = {
	{
		.cmd = FABRIQ_CMD_PING,
		.doit = fabriq_nl_ping_doit,
		.policy = fabriq_nl_ping_policy,
		.maxattr = FABRIQ_A_PING_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{ }
};
