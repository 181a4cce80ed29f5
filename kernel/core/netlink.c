// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "fabriq".
 *
 * Owns the family: the core's DEV_GET, the commands each subsystem brings
 * (fabriq_subsys.nl_ops, assembled at init), the message helpers they use,
 * and the notifications on the "events" multicast group.  Message layout is
 * described in Documentation/netlink/fabriq.yaml.
 *
 * netnsok is false on purpose: RDMA devices in the default "shared" netns
 * mode belong to the whole machine, and Soft-RoCE only works in init_net,
 * so the family is visible in the initial network namespace only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/limits.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "fabriq.h"
#include "subsys.h"

enum fabriq_nl_mcgrp {
	FABRIQ_NLGRP_EVENTS,
};

static const struct genl_multicast_group fabriq_nl_mcgrps[] = {
	[FABRIQ_NLGRP_EVENTS] = {
		.name = FABRIQ_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

/* not const: 6.1's NLA_POLICY_FULL_RANGE() takes a non-const pointer */
static struct netlink_range_validation fabriq_nl_dev_index_range __ro_after_init = {
	.min = 0,
	.max = INT_MAX,
};

/* Requests may carry only the selectors; every other attribute is refused. */
static const struct nla_policy fabriq_nl_dev_get_policy[FABRIQ_A_DEV_MAX + 1] = {
	[FABRIQ_A_DEV_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &fabriq_nl_dev_index_range),
	[FABRIQ_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = FABRIQ_DEV_NAME_MAX - 1 },
};

static struct genl_family fabriq_nl_family;

static size_t fabriq_nl_dev_size(const struct fabriq_dev *fdev)
{
	size_t port = nla_total_size(0) +		/* FABRIQ_A_DEV_PORT */
		      nla_total_size(sizeof(u32)) * 9 +
		      nla_total_size(sizeof(u8)) * 4 +
		      nla_total_size(IFNAMSIZ);

	return nla_total_size(sizeof(u32)) * 2 +		/* INDEX, NUM_PORTS */
	       nla_total_size(FABRIQ_DEV_NAME_MAX) * 2 +	/* NAME, OLD_NAME */
	       nla_total_size(sizeof(u8)) * 2 +
	       nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(0) +				/* UNSUPPORTED */
	       nla_total_size(64) +				/* UNSUPPORTED_REASON */
	       port * fdev->num_ports;
}

static int fabriq_nl_put_port(struct sk_buff *skb, const struct fabriq_port_info *pi)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, FABRIQ_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABRIQ_A_PORT_NUM, pi->num) ||
	    nla_put_u8(skb, FABRIQ_A_PORT_LINK_LAYER, pi->link_layer) ||
	    nla_put_u8(skb, FABRIQ_A_PORT_STATE, pi->state) ||
	    nla_put_u8(skb, FABRIQ_A_PORT_PHYS_STATE, pi->phys_state) ||
	    nla_put_u32(skb, FABRIQ_A_PORT_ACTIVE_SPEED, pi->active_speed) ||
	    nla_put_u8(skb, FABRIQ_A_PORT_ACTIVE_WIDTH, pi->active_width) ||
	    nla_put_u32(skb, FABRIQ_A_PORT_RATE_MBPS, pi->rate_mbps) ||
	    nla_put_u32(skb, FABRIQ_A_PORT_ACTIVE_MTU, pi->active_mtu) ||
	    nla_put_u32(skb, FABRIQ_A_PORT_GID_TBL_LEN, pi->gid_tbl_len))
		goto err_cancel;
	if (pi->link_layer == FABRIQ_LINK_LAYER_INFINIBAND &&
	    (nla_put_u32(skb, FABRIQ_A_PORT_LID, pi->lid) ||
	     nla_put_u32(skb, FABRIQ_A_PORT_SM_LID, pi->sm_lid)))
		goto err_cancel;
	if (pi->netdev_ifindex &&
	    (nla_put_u32(skb, FABRIQ_A_PORT_NETDEV_IFINDEX, pi->netdev_ifindex) ||
	     nla_put_string(skb, FABRIQ_A_PORT_NETDEV_NAME, pi->netdev_name)))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Context: fdev->lock held. */
static int fabriq_nl_put_dev_attrs(struct sk_buff *skb, struct fabriq_dev *fdev,
				   const char *old_name)
{
	lockdep_assert_held(&fdev->lock);

	if (nla_put_u32(skb, FABRIQ_A_DEV_INDEX, fdev->index) ||
	    nla_put_string(skb, FABRIQ_A_DEV_NAME, fdev->name) ||
	    nla_put_u8(skb, FABRIQ_A_DEV_NODE_TYPE, fdev->node_type) ||
	    nla_put_u8(skb, FABRIQ_A_DEV_TRANSPORT, fdev->transport) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_DEV_NODE_GUID, fdev->node_guid,
			      FABRIQ_A_DEV_PAD) ||
	    nla_put_u32(skb, FABRIQ_A_DEV_NUM_PORTS, fdev->num_ports))
		return -EMSGSIZE;
	if (old_name && nla_put_string(skb, FABRIQ_A_DEV_OLD_NAME, old_name))
		return -EMSGSIZE;
	if (fdev->unsupported &&
	    (nla_put_flag(skb, FABRIQ_A_DEV_UNSUPPORTED) ||
	     nla_put_string(skb, FABRIQ_A_DEV_UNSUPPORTED_REASON,
			    fdev->unsupported_reason)))
		return -EMSGSIZE;
	return 0;
}

/* Context: fdev->lock held.  @only: one port, or NULL for all of them. */
static int fabriq_nl_put_ports(struct sk_buff *skb, struct fabriq_dev *fdev,
			       struct fabriq_port *only)
{
	struct fabriq_port_info pi;
	u32 i;
	int err;

	for (i = 0; i < fdev->num_ports; i++) {
		if (only && only != &fdev->ports[i])
			continue;
		err = fabriq_port_query(fdev, &fdev->ports[i], &pi);
		if (err)
			return err;
		err = fabriq_nl_put_port(skb, &pi);
		if (err)
			return err;
	}
	return 0;
}

/**
 * fabriq_nl_fill_dev() - one device message
 * @skb: message buffer
 * @fdev: the device
 * @cmd: FABRIQ_CMD_*
 * @portid: netlink port of the requester, 0 for notifications
 * @seq: sequence number of the request
 * @flags: NLM_F_* flags
 * @old_name: previous name for a rename notification, else NULL
 * @with_ports: add the port nests, read live from the device
 * @only: with @with_ports, just this port (NULL: all of them)
 *
 * A removed device still yields its identity (index, name, type) so that
 * the delete notification can name it.
 *
 * Context: process context; takes fdev->lock.
 * Return: 0, -EMSGSIZE, -ENODEV (device gone while ports were asked for).
 */
static int fabriq_nl_fill_dev(struct sk_buff *skb, struct fabriq_dev *fdev, u8 cmd,
			      u32 portid, u32 seq, int flags, const char *old_name,
			      bool with_ports, struct fabriq_port *only)
{
	void *hdr;
	int err;

	hdr = genlmsg_put(skb, portid, seq, &fabriq_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	mutex_lock(&fdev->lock);
	if (with_ports && !fdev->ibdev) {
		err = -ENODEV;
		goto err_unlock;
	}
	err = fabriq_nl_put_dev_attrs(skb, fdev, old_name);
	if (!err && with_ports)
		err = fabriq_nl_put_ports(skb, fdev, only);
	if (err)
		goto err_unlock;
	mutex_unlock(&fdev->lock);

	genlmsg_end(skb, hdr);
	return 0;

err_unlock:
	mutex_unlock(&fdev->lock);
	genlmsg_cancel(skb, hdr);
	return err;
}

/**
 * fabriq_nl_dev_lookup() - the device a request names
 * @info: the request
 * @index_type: its attribute that carries the device index ("dev-index")
 * @name_type: its attribute that carries the device name ("dev-name")
 *
 * Context: process context.
 * Return: the device with a reference, or an ERR_PTR with extack set.
 */
struct fabriq_dev *fabriq_nl_dev_lookup(struct genl_info *info, int index_type,
					int name_type)
{
	struct nlattr *index = info->attrs[index_type];
	struct nlattr *name = info->attrs[name_type];
	struct fabriq_dev *fdev;

	if (!index && !name) {
		NL_SET_ERR_MSG(info->extack,
			       "dev-index or dev-name is required to select a device");
		return ERR_PTR(-EINVAL);
	}
	fdev = index ? fabriq_dev_get_by_index(nla_get_u32(index)) :
		       fabriq_dev_get_by_name(nla_data(name));
	if (!fdev) {
		if (index)
			NL_SET_ERR_MSG_ATTR(info->extack, index,
					    "dev-index: no such RDMA device");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, name,
					    "dev-name: no such RDMA device");
		return ERR_PTR(-ENODEV);
	}
	if (index && name && strcmp(fdev->name, nla_data(name))) {
		NL_SET_ERR_MSG_ATTR(info->extack, name,
				    "dev-name does not match the device at dev-index");
		fabriq_dev_put(fdev);
		return ERR_PTR(-EINVAL);
	}
	return fdev;
}

static int fabriq_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct fabriq_dev *fdev;
	struct sk_buff *msg;
	int err;

	fdev = fabriq_nl_dev_lookup(info, FABRIQ_A_DEV_INDEX, FABRIQ_A_DEV_NAME);
	if (IS_ERR(fdev))
		return PTR_ERR(fdev);

	msg = genlmsg_new(fabriq_nl_dev_size(fdev), GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_put;
	}
	err = fabriq_nl_fill_dev(msg, fdev, FABRIQ_CMD_DEV_GET, info->snd_portid,
				 info->snd_seq, 0, NULL, true, NULL);
	if (err == -ENODEV) {
		NL_SET_ERR_MSG(info->extack, "the device was removed");
		goto err_free;
	}
	if (err) {
		NL_SET_ERR_MSG(info->extack, "cannot describe the device");
		goto err_free;
	}
	fabriq_dev_put(fdev);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
err_put:
	fabriq_dev_put(fdev);
	return err;
}

struct fabriq_nl_dump_ctx {
	u32 next_index;
};

static int fabriq_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fabriq_nl_dump_ctx *ctx = (void *)cb->ctx;
	struct fabriq_dev *fdev;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));

	while ((fdev = fabriq_dev_get_next(ctx->next_index))) {
		err = fabriq_nl_fill_dev(skb, fdev, FABRIQ_CMD_DEV_GET,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI, NULL,
					 true, NULL);
		if (err == -EMSGSIZE) {
			fabriq_dev_put(fdev);
			break;
		}
		/* -ENODEV: removed since the lookup; skip it. */
		ctx->next_index = fdev->index + 1;
		fabriq_dev_put(fdev);
		err = 0;
		if (ctx->next_index == 0)	/* index U32_MAX done */
			break;
	}
	if (err && !skb->len)
		return err;
	return skb->len;
}

/* the core's own commands; each subsystem brings its own (fabriq_subsys.nl_ops) */
static const struct genl_ops fabriq_nl_core_ops[] = {
	{
		.cmd = FABRIQ_CMD_DEV_GET,
		.doit = fabriq_nl_dev_get_doit,
		.dumpit = fabriq_nl_dev_get_dumpit,
		.policy = fabriq_nl_dev_get_policy,
		.maxattr = FABRIQ_A_DEV_MAX,
	},
};

static struct genl_family fabriq_nl_family __ro_after_init = {
	.name = FABRIQ_GENL_NAME,
	.version = FABRIQ_GENL_VERSION,
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.mcgrps = fabriq_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(fabriq_nl_mcgrps),
};

/**
 * fabriq_nl_put_hdr() - start a message of the family
 * @skb: message buffer
 * @portid: netlink port of the requester, 0 for notifications
 * @seq: sequence number of the request
 * @flags: NLM_F_* flags
 * @cmd: FABRIQ_CMD_*
 *
 * Return: the user header, or NULL when @skb is full.
 */
void *fabriq_nl_put_hdr(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &fabriq_nl_family, flags, cmd);
}

/**
 * fabriq_nl_has_listeners() - is anybody in the events group?
 */
static bool fabriq_nl_has_listeners(void)
{
	return genl_has_listeners(&fabriq_nl_family, &init_net, FABRIQ_NLGRP_EVENTS);
}

/**
 * fabriq_nl_send_event() - send a finished message to the events group
 * @msg: the message; consumed
 *
 * Context: process context.
 */
static void fabriq_nl_send_event(struct sk_buff *msg)
{
	genlmsg_multicast(&fabriq_nl_family, msg, 0, FABRIQ_NLGRP_EVENTS, GFP_KERNEL);
}

/**
 * fabriq_nl_event() - build one notification and send it to the events group
 * @cmd: FABRIQ_CMD_*_NTF
 * @fill: puts the attributes; returns 0 or -EMSGSIZE
 * @arg: for @fill
 *
 * Nothing is built when nobody listens.  Context: process context.
 */
void fabriq_nl_event(u8 cmd, int (*fill)(struct sk_buff *msg, const void *arg), const void *arg)
{
	struct sk_buff *msg;
	void *hdr;

	if (!fabriq_nl_has_listeners())
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = fabriq_nl_put_hdr(msg, 0, 0, 0, cmd);
	if (!hdr || fill(msg, arg)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	fabriq_nl_send_event(msg);
}

static void fabriq_nl_multicast(struct fabriq_dev *fdev, u8 cmd, const char *old_name,
				bool with_ports, struct fabriq_port *only)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&fabriq_nl_family, &init_net, FABRIQ_NLGRP_EVENTS))
		return;

	msg = genlmsg_new(fabriq_nl_dev_size(fdev), GFP_KERNEL);
	if (!msg)
		return;
	if (fabriq_nl_fill_dev(msg, fdev, cmd, 0, 0, 0, old_name, with_ports, only)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast(&fabriq_nl_family, msg, 0, FABRIQ_NLGRP_EVENTS, GFP_KERNEL);
}

/**
 * fabriq_nl_notify_dev() - tell the events group about a device
 * @fdev: the device
 * @cmd: FABRIQ_CMD_DEV_ADD_NTF, _DEL_NTF or _RENAME_NTF
 * @old_name: the name before a rename, else NULL
 *
 * Context: process context.
 */
void fabriq_nl_notify_dev(struct fabriq_dev *fdev, u8 cmd, const char *old_name)
{
	fabriq_nl_multicast(fdev, cmd, old_name, cmd == FABRIQ_CMD_DEV_ADD_NTF, NULL);
}

/**
 * fabriq_nl_notify_port() - tell the events group that a port changed
 * @fdev: the device
 * @port: the port, reported with its current state
 *
 * Context: process context.
 */
void fabriq_nl_notify_port(struct fabriq_dev *fdev, struct fabriq_port *port)
{
	fabriq_nl_multicast(fdev, FABRIQ_CMD_PORT_CHANGE_NTF, NULL, true, port);
}

/* the family's commands: the core's, then each subsystem's, in list order */
static struct genl_ops *fabriq_nl_ops;

/* entries of a subsystem's table, which ends with an empty one */
static unsigned int fabriq_nl_count(const struct genl_ops *ops)
{
	unsigned int n = 0;

	while (ops && (ops[n].doit || ops[n].dumpit))
		n++;
	return n;
}

/**
 * fabriq_nl_init() - assemble the family from the core's and every
 * subsystem's commands, and register it
 *
 * Context: module init.  Return: 0 or a negative errno.
 */
int fabriq_nl_init(void)
{
	unsigned int i, n = ARRAY_SIZE(fabriq_nl_core_ops), k;
	unsigned int count[FABRIQ_SUBSYS_MAX];
	const struct fabriq_subsys *ss;
	int err;

	fabriq_for_each_subsys(i, ss) {
		count[i] = fabriq_nl_count(ss->nl_ops);
		n += count[i];
	}
	fabriq_nl_ops = kcalloc(n, sizeof(*fabriq_nl_ops), GFP_KERNEL);
	if (!fabriq_nl_ops)
		return -ENOMEM;
	memcpy(fabriq_nl_ops, fabriq_nl_core_ops, sizeof(fabriq_nl_core_ops));
	k = ARRAY_SIZE(fabriq_nl_core_ops);
	fabriq_for_each_subsys(i, ss) {
		memcpy(&fabriq_nl_ops[k], ss->nl_ops, count[i] * sizeof(*fabriq_nl_ops));
		k += count[i];
	}
	fabriq_nl_family.ops = fabriq_nl_ops;
	fabriq_nl_family.n_ops = n;
	err = genl_register_family(&fabriq_nl_family);
	if (err)
		kfree(fabriq_nl_ops);
	return err;
}

/**
 * fabriq_nl_exit() - unregister the family
 *
 * Context: module exit.
 */
void fabriq_nl_exit(void)
{
	genl_unregister_family(&fabriq_nl_family);
	kfree(fabriq_nl_ops);
}
