// SPDX-License-Identifier: GPL-2.0
/*
 * ping_netlink.c - FABRIQ_CMD_PING of the "fabriq" family: parse the
 * addresses, run fabriq_ping() (ping.c), reply with what it used and
 * measured.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
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

static int fabriq_nl_ping_reply(struct genl_info *info, const struct fabriq_ping_result *r)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fabriq_nl_put_hdr(msg, info->snd_portid, info->snd_seq, 0, FABRIQ_CMD_PING);
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
	return genlmsg_reply(msg, info);
}

static int fabriq_nl_ping_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sockaddr_storage dst, src;
	struct fabriq_ping_result *res;
	struct nlattr **tb = info->attrs;
	struct fabriq_ping_opts opts = { .count = 5, .timeout_ms = 1000 };
	int err;

	if (!tb[FABRIQ_A_PING_DST]) {
		NL_SET_ERR_MSG(info->extack, "dst is required: the peer's address");
		return -EINVAL;
	}
	err = fabriq_nl_ping_addr(tb[FABRIQ_A_PING_DST], &dst, info->extack);
	if (!err && tb[FABRIQ_A_PING_SRC])
		err = fabriq_nl_ping_addr(tb[FABRIQ_A_PING_SRC], &src, info->extack);
	if (err)
		return err;
	if (tb[FABRIQ_A_PING_SRC] && src.ss_family != dst.ss_family) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[FABRIQ_A_PING_SRC],
				    "src and dst must be of the same address family");
		return -EINVAL;
	}
	if (tb[FABRIQ_A_PING_COUNT])
		opts.count = nla_get_u32(tb[FABRIQ_A_PING_COUNT]);
	if (tb[FABRIQ_A_PING_TIMEOUT_MS])
		opts.timeout_ms = nla_get_u32(tb[FABRIQ_A_PING_TIMEOUT_MS]);
	if (tb[FABRIQ_A_PING_INTERVAL_MS])
		opts.interval_ms = nla_get_u32(tb[FABRIQ_A_PING_INTERVAL_MS]);

	/*
	 * A ping may last minutes: hold the module so that it cannot be
	 * unloaded under it (rmmod says it is in use instead).
	 */
	if (!try_module_get(THIS_MODULE))
		return -ESHUTDOWN;
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	err = -ENOMEM;
	if (res)
		err = fabriq_ping(tb[FABRIQ_A_PING_SRC] ? (struct sockaddr *)&src : NULL,
				  (struct sockaddr *)&dst, &opts, res, info->extack);
	if (!err)
		err = fabriq_nl_ping_reply(info, res);
	kfree(res);
	module_put(THIS_MODULE);
	return err;
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
