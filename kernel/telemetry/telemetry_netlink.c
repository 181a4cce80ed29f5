// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry_netlink.c - STATS_GET (dump), CONFIG_GET and CONFIG_SET.
 *
 * The STATS_GET dump sends one message per port, then the messages of the
 * stats dump extension another subsystem registered (coll: one per
 * communicator, kernel/coll/comm_stats_netlink.c).  Its cursor (struct
 * fq_nl_stats_cursor, with the extension's opaque part) lives in cb->ctx.
 * The extension is called under fq_tm_stats_ext_lock (read), so
 * unregistering it waits for a dump inside it.
 *
 * CONFIG_SET is read-modify-write: absent attributes keep their value.
 * Every value is checked before any is applied, so a rejected request
 * changes nothing.
 */
#include <linux/limits.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "telemetry.h"

/* not const: 6.1's NLA_POLICY_FULL_RANGE() takes a non-const pointer */
static struct netlink_range_validation fq_nl_u32_max __ro_after_init = {
	.min = 0,
	.max = INT_MAX,
};

static const struct nla_policy fq_nl_stats_policy[FABRIQ_A_STATS_MAX + 1] = {
	[FABRIQ_A_STATS_DEV_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &fq_nl_u32_max),
	[FABRIQ_A_STATS_DEV_NAME] = { .type = NLA_NUL_STRING, .len = FABRIQ_DEV_NAME_MAX - 1 },
	[FABRIQ_A_STATS_PORT] = NLA_POLICY_RANGE(NLA_U32, 0, 255),
	[FABRIQ_A_STATS_COMM_ID] = { .type = NLA_U64 },
};

static struct netlink_range_validation fq_nl_window_range __ro_after_init = {
	.min = 0,
	.max = 3600000,
};

static struct netlink_range_validation fq_nl_interval_range __ro_after_init = {
	.min = 0,
	.max = 60000,
};

static struct netlink_range_validation fq_nl_ring_range __ro_after_init = {
	.min = 2,
	.max = 4096,
};

static struct netlink_range_validation fq_nl_evps_range __ro_after_init = {
	.min = 1,
	.max = 10000,
};

static const struct nla_policy fq_nl_det_policy[FABRIQ_A_CONFIG_DET_MAX + 1] = {
	[FABRIQ_A_CONFIG_DET_ID] = NLA_POLICY_MAX(NLA_U8, __FABRIQ_DET_MAX - 1),
	[FABRIQ_A_CONFIG_DET_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
	[FABRIQ_A_CONFIG_DET_THRESHOLD] = { .type = NLA_U64 },
	[FABRIQ_A_CONFIG_DET_WINDOW_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &fq_nl_window_range),
	[FABRIQ_A_CONFIG_DET_LIMIT] = { .type = NLA_U64 },
};

static const struct nla_policy fq_nl_config_policy[FABRIQ_A_CONFIG_MAX + 1] = {
	[FABRIQ_A_CONFIG_INTERVAL_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &fq_nl_interval_range),
	[FABRIQ_A_CONFIG_RING_SAMPLES] = NLA_POLICY_FULL_RANGE(NLA_U32, &fq_nl_ring_range),
	[FABRIQ_A_CONFIG_DET] = NLA_POLICY_NESTED(fq_nl_det_policy),
	[FABRIQ_A_CONFIG_EVENTS_PER_SEC] = NLA_POLICY_FULL_RANGE(NLA_U32, &fq_nl_evps_range),
};

struct fq_nl_stats_cursor {
	u32 phase;		/* 0: ports, 1: the extension, 2: done */
	u32 dev_index;		/* next device */
	u32 port_idx;		/* next port of it */
	struct fq_tm_stats_ext_cursor ext;	/* the extension's, opaque */
};

/* protects fq_tm_stats_ext; held (read) across its dump callback */
static DECLARE_RWSEM(fq_tm_stats_ext_lock);
static const struct fq_tm_stats_ext *fq_tm_stats_ext;

/**
 * fq_tm_stats_ext_register() - add a part to the STATS_GET dump
 * @ext: what fills it; must stay until fq_tm_stats_ext_unregister()
 *
 * Dumps that start later, and later passes of dumps already running, call
 * it after the ports.  Context: process context.  Return: 0, or -EBUSY if
 * another extension is registered.
 */
int fq_tm_stats_ext_register(const struct fq_tm_stats_ext *ext)
{
	int err = 0;

	down_write(&fq_tm_stats_ext_lock);
	if (fq_tm_stats_ext)
		err = -EBUSY;
	else
		fq_tm_stats_ext = ext;
	up_write(&fq_tm_stats_ext_lock);
	return err;
}

/**
 * fq_tm_stats_ext_unregister() - remove the part added by @ext
 * @ext: as registered
 *
 * Waits for a dump inside @ext->dump; no dump calls it once this returns
 * (a dump still running ends after its ports).  Context: process context,
 * none of the locks @ext->dump takes held.
 */
void fq_tm_stats_ext_unregister(const struct fq_tm_stats_ext *ext)
{
	down_write(&fq_tm_stats_ext_lock);
	if (fq_tm_stats_ext == ext)
		fq_tm_stats_ext = NULL;
	up_write(&fq_tm_stats_ext_lock);
}

/* The extension's messages.  Return: 0 (all sent, or no extension), -EMSGSIZE or -errno. */
static int fq_nl_dump_ext(struct sk_buff *skb, struct netlink_callback *cb,
			  struct fq_nl_stats_cursor *cur, const struct fq_tm_stats_filter *f)
{
	int err = 0;

	down_read(&fq_tm_stats_ext_lock);
	if (fq_tm_stats_ext)
		err = fq_tm_stats_ext->dump(skb, cb, f, &cur->ext);
	up_read(&fq_tm_stats_ext_lock);
	return err;
}

/* the counters of @s (a sample or rates) that its present bits name */
static int fq_nl_put_ctrs(struct sk_buff *skb, int type, const struct fq_tm_sample *s)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 1; i < FQ_TM_NUM_CTR; i++)
		if (test_bit(i, s->present) &&
		    nla_put_u64_64bit(skb, i, s->ctr[i], FABRIQ_CTR_UNSPEC))	/* pad: type 0 */
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int fq_nl_put_pause(struct sk_buff *skb, int type, const struct fq_tm_sample *s, int p)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	int c;

	if (!nest)
		return -EMSGSIZE;
	for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
		if (nla_put_u64_64bit(skb, c + 1, s->pause[c][p], 0))	/* pad: type 0 */
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int fq_nl_put_prios(struct sk_buff *skb, const struct fq_tm_sample *now,
			   const struct fq_tm_sample *rate)
{
	struct nlattr *nest;
	int p;

	for (p = 0; p < FQ_TM_NUM_PRIO; p++) {
		nest = nla_nest_start(skb, FABRIQ_A_STATS_PRIO);
		if (!nest || nla_put_u8(skb, FABRIQ_A_STATS_PRIO_PRIO, p) ||
		    fq_nl_put_pause(skb, FABRIQ_A_STATS_PRIO_COUNTERS, now, p) ||
		    (rate && fq_nl_put_pause(skb, FABRIQ_A_STATS_PRIO_RATES, rate, p)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int fq_nl_put_vls(struct sk_buff *skb, const struct fq_tm_sample *now,
			 const struct fq_tm_sample *rate)
{
	struct nlattr *nest;
	int vl;

	for (vl = 0; vl < FABRIQ_NUM_VL; vl++) {
		if (!(now->vl_present & BIT(vl)))
			continue;
		nest = nla_nest_start(skb, FABRIQ_A_STATS_VL);
		if (!nest || nla_put_u8(skb, FABRIQ_A_STATS_VL_VL, vl) ||
		    nla_put_u64_64bit(skb, FABRIQ_A_STATS_VL_XMIT_WAIT, now->vl_wait[vl],
				      FABRIQ_A_STATS_VL_PAD) ||
		    (rate && nla_put_u64_64bit(skb, FABRIQ_A_STATS_VL_XMIT_WAIT_RATE,
					       rate->vl_wait[vl], FABRIQ_A_STATS_VL_PAD)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* Return: 0, 1 (no sample yet: nothing to say), or -EMSGSIZE. */
static int fq_nl_fill_port(struct sk_buff *skb, struct netlink_callback *cb,
			   struct fabriq_port *port, struct fq_tm_snapshot *sn)
{
	struct fq_tm_port *tm = fq_tm(port);
	struct fq_tm_config cfg;
	void *hdr;

	fq_tm_snapshot(tm, sn);
	if (!sn->has_now)
		return 1;
	fq_tm_config_get(&cfg);
	hdr = fabriq_nl_put_hdr(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, NLM_F_MULTI,
				FABRIQ_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABRIQ_A_STATS_DEV_INDEX, port->fdev->index) ||
	    nla_put_string(skb, FABRIQ_A_STATS_DEV_NAME, port->fdev->name) ||
	    nla_put_u32(skb, FABRIQ_A_STATS_PORT, port->num) ||
	    nla_put_u8(skb, FABRIQ_A_STATS_LINK_LAYER, tm->link_layer) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_STATS_TIME_NS, sn->now.t_ns, FABRIQ_A_STATS_PAD) ||
	    nla_put_u32(skb, FABRIQ_A_STATS_INTERVAL_MS, cfg.interval_ms) ||
	    nla_put_u32(skb, FABRIQ_A_STATS_SAMPLES, sn->count) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_STATS_SAMPLE_NS,
			      sn->samples ? div64_u64(sn->sample_ns, sn->samples) : 0,
			      FABRIQ_A_STATS_PAD) ||
	    fq_nl_put_ctrs(skb, FABRIQ_A_STATS_COUNTERS, &sn->now) ||
	    (sn->has_rate && fq_nl_put_ctrs(skb, FABRIQ_A_STATS_RATES, &sn->rate)) ||
	    (sn->has_pause &&
	     fq_nl_put_prios(skb, &sn->now, sn->has_rate ? &sn->rate : NULL)) ||
	    fq_nl_put_vls(skb, &sn->now, sn->has_rate ? &sn->rate : NULL)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static bool fq_nl_dev_matches(const struct fabriq_dev *fdev, const struct fq_tm_stats_filter *f)
{
	if (fdev->unsupported)
		return false;
	if (f->has_dev && fdev->index != f->dev_index)
		return false;
	return !f->dev_name || !strcmp(fdev->name, f->dev_name);
}

static int fq_nl_dump_ports(struct sk_buff *skb, struct netlink_callback *cb,
			    struct fq_nl_stats_cursor *cur, const struct fq_tm_stats_filter *f)
{
	struct fq_tm_snapshot *sn;
	struct fabriq_dev *fdev;
	int err = 0;

	sn = kzalloc(sizeof(*sn), GFP_KERNEL);
	if (!sn)
		return -ENOMEM;
	while (!err && (fdev = fabriq_dev_get_next(cur->dev_index))) {
		if (fdev->index != cur->dev_index)
			cur->port_idx = 0;
		cur->dev_index = fdev->index;
		for (; fq_nl_dev_matches(fdev, f) && cur->port_idx < fdev->num_ports;
		     cur->port_idx++) {
			struct fabriq_port *port = &fdev->ports[cur->port_idx];

			if (f->port && port->num != f->port)
				continue;
			err = fq_nl_fill_port(skb, cb, port, sn);
			if (err < 0)
				break;
			err = 0;
		}
		if (!err) {
			cur->dev_index = fdev->index + 1;
			cur->port_idx = 0;
		}
		fabriq_dev_put(fdev);
	}
	kfree(sn);
	return err;
}

static int fq_nl_stats_filter(struct netlink_callback *cb, struct fq_tm_stats_filter *f)
{
	struct nlattr **attrs = fabriq_dump_attrs(cb);

	memset(f, 0, sizeof(*f));
	if (!attrs)
		return 0;
	if (attrs[FABRIQ_A_STATS_DEV_INDEX]) {
		f->has_dev = true;
		f->dev_index = nla_get_u32(attrs[FABRIQ_A_STATS_DEV_INDEX]);
	}
	if (attrs[FABRIQ_A_STATS_DEV_NAME])
		f->dev_name = nla_data(attrs[FABRIQ_A_STATS_DEV_NAME]);
	if (attrs[FABRIQ_A_STATS_PORT]) {
		if (!f->has_dev && !f->dev_name) {
			NL_SET_ERR_MSG_ATTR(cb->extack, attrs[FABRIQ_A_STATS_PORT],
					    "a port needs a device (DEV_INDEX or DEV_NAME)");
			return -EINVAL;
		}
		f->port = nla_get_u32(attrs[FABRIQ_A_STATS_PORT]);
	}
	if (attrs[FABRIQ_A_STATS_COMM_ID]) {
		f->has_comm = true;
		f->comm_id = nla_get_u64(attrs[FABRIQ_A_STATS_COMM_ID]);
	}
	return 0;
}

/**
 * fq_nl_stats_get_start() - check a STATS_GET request's filters
 * @cb: the dump
 *
 * An error here is reported with its extack like a do request's.
 * Context: process context.  Return: 0 or -EINVAL.
 */
static int fq_nl_stats_get_start(struct netlink_callback *cb)
{
	struct fq_tm_stats_filter f;

	return fq_nl_stats_filter(cb, &f);
}

/**
 * fq_nl_stats_get_dumpit() - FABRIQ_CMD_STATS_GET
 * @skb: the reply
 * @cb: the dump, cursor in cb->ctx
 *
 * Context: process context.  Return: bytes written, 0 at the end, or -errno.
 */
static int fq_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fq_nl_stats_cursor *cur = (void *)cb->ctx;
	struct fq_tm_stats_filter f;
	int err;

	BUILD_BUG_ON(sizeof(*cur) > sizeof(cb->ctx));
	err = fq_nl_stats_filter(cb, &f);
	if (err)
		return err;
	if (cur->phase == 0) {
		if (!f.has_comm) {
			err = fq_nl_dump_ports(skb, cb, cur, &f);
			if (err)
				return err == -EMSGSIZE && skb->len ? skb->len : err;
		}
		cur->phase = 1;
	}
	if (cur->phase == 1) {
		if (f.has_dev || f.dev_name) {
			cur->phase = 2;
			return skb->len;
		}
		err = fq_nl_dump_ext(skb, cb, cur, &f);
		if (err)
			return err == -EMSGSIZE && skb->len ? skb->len : err;
		cur->phase = 2;
	}
	return skb->len;
}

static int fq_nl_put_det(struct sk_buff *skb, u8 det)
{
	struct nlattr *nest = nla_nest_start(skb, FABRIQ_A_CONFIG_DET);
	struct fq_det_config cfg;
	u64 raised, cleared;

	fq_det_config_get(det, &cfg);
	fq_det_counts(det, &raised, &cleared);
	if (!nest || nla_put_u8(skb, FABRIQ_A_CONFIG_DET_ID, det) ||
	    nla_put_u8(skb, FABRIQ_A_CONFIG_DET_ENABLED, cfg.enabled) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_CONFIG_DET_THRESHOLD, cfg.threshold,
			      FABRIQ_A_CONFIG_DET_PAD) ||
	    nla_put_u32(skb, FABRIQ_A_CONFIG_DET_WINDOW_MS, cfg.window_ms) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_CONFIG_DET_LIMIT, cfg.limit, FABRIQ_A_CONFIG_DET_PAD) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_CONFIG_DET_RAISED, raised, FABRIQ_A_CONFIG_DET_PAD) ||
	    nla_put_u64_64bit(skb, FABRIQ_A_CONFIG_DET_CLEARED, cleared, FABRIQ_A_CONFIG_DET_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * fq_nl_config_get_doit() - FABRIQ_CMD_CONFIG_GET
 * @skb: the request
 * @info: the request's attributes (none are taken)
 *
 * Context: process context.  Return: 0 or -errno.
 */
static int fq_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct fq_tm_config cfg;
	struct sk_buff *msg;
	void *hdr;
	u8 det;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fabriq_nl_put_hdr(msg, info->snd_portid, info->snd_seq, 0, FABRIQ_CMD_CONFIG_GET);
	if (!hdr)
		goto err_free;
	fq_tm_config_get(&cfg);
	if (nla_put_u32(msg, FABRIQ_A_CONFIG_INTERVAL_MS, cfg.interval_ms) ||
	    nla_put_u32(msg, FABRIQ_A_CONFIG_RING_SAMPLES, cfg.ring_samples) ||
	    nla_put_u32(msg, FABRIQ_A_CONFIG_EVENTS_PER_SEC, fq_det_events_per_sec()) ||
	    nla_put_u64_64bit(msg, FABRIQ_A_CONFIG_EVENTS_SUPPRESSED, fq_det_suppressed(),
			      FABRIQ_A_CONFIG_PAD))
		goto err_free;
	for (det = 0; det < __FABRIQ_DET_MAX; det++)
		if (fq_nl_put_det(msg, det))
			goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const u64 fq_det_thr_min[__FABRIQ_DET_MAX] = FABRIQ_DET_THRESHOLD_MIN;
static const u64 fq_det_thr_max[__FABRIQ_DET_MAX] = FABRIQ_DET_THRESHOLD_MAX;

/* Check one detector nest and merge it into @cfgs.  Return: 0 or -EINVAL. */
static int fq_nl_det_parse(struct nlattr *nest, struct fq_det_config *cfgs,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FABRIQ_A_CONFIG_DET_MAX + 1];
	struct fq_det_config *c;
	u8 det;
	int err;

	err = nla_parse_nested(tb, FABRIQ_A_CONFIG_DET_MAX, nest, fq_nl_det_policy, extack);
	if (err)
		return err;
	if (!tb[FABRIQ_A_CONFIG_DET_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "CONFIG_DET_ID is required in a detector nest");
		return -EINVAL;
	}
	det = nla_get_u8(tb[FABRIQ_A_CONFIG_DET_ID]);
	c = &cfgs[det];
	if (tb[FABRIQ_A_CONFIG_DET_THRESHOLD]) {
		u64 t = nla_get_u64(tb[FABRIQ_A_CONFIG_DET_THRESHOLD]);

		if (t < fq_det_thr_min[det] || t > fq_det_thr_max[det]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FABRIQ_A_CONFIG_DET_THRESHOLD],
					    "threshold out of range for this detector (see Documentation/telemetry.md)");
			return -ERANGE;
		}
		c->threshold = t;
	}
	if (tb[FABRIQ_A_CONFIG_DET_LIMIT]) {
		u64 l = nla_get_u64(tb[FABRIQ_A_CONFIG_DET_LIMIT]);

		if ((det == FABRIQ_DET_SLOW_PEER && (l < 1 || l > FABRIQ_DET_SLOW_PEER_OPS_MAX)) ||
		    (det != FABRIQ_DET_SLOW_PEER && det != FABRIQ_DET_PFC_STORM && l)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FABRIQ_A_CONFIG_DET_LIMIT],
					    "limit: slow-peer takes 1-1000 operations, pfc-storm frames/s, others none");
			return -ERANGE;
		}
		c->limit = l;
	}
	if (tb[FABRIQ_A_CONFIG_DET_ENABLED])
		c->enabled = nla_get_u8(tb[FABRIQ_A_CONFIG_DET_ENABLED]);
	if (tb[FABRIQ_A_CONFIG_DET_WINDOW_MS])
		c->window_ms = nla_get_u32(tb[FABRIQ_A_CONFIG_DET_WINDOW_MS]);
	return 0;
}

/**
 * fq_nl_config_set_doit() - FABRIQ_CMD_CONFIG_SET (CAP_NET_ADMIN)
 * @skb: the request
 * @info: its attributes
 *
 * Context: process context.  Return: 0 or -errno, with extack.
 */
static int fq_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct fq_det_config cfgs[__FABRIQ_DET_MAX];
	struct nlattr **a = info->attrs;
	struct fq_tm_config tm;
	struct nlattr *nest;
	int rem, err;
	u8 det;

	fq_tm_config_get(&tm);
	for (det = 0; det < __FABRIQ_DET_MAX; det++)
		fq_det_config_get(det, &cfgs[det]);
	if (a[FABRIQ_A_CONFIG_INTERVAL_MS])
		tm.interval_ms = nla_get_u32(a[FABRIQ_A_CONFIG_INTERVAL_MS]);
	if (a[FABRIQ_A_CONFIG_RING_SAMPLES])
		tm.ring_samples = nla_get_u32(a[FABRIQ_A_CONFIG_RING_SAMPLES]);
	nlmsg_for_each_attr(nest, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nest) != FABRIQ_A_CONFIG_DET)
			continue;
		err = fq_nl_det_parse(nest, cfgs, info->extack);
		if (err)
			return err;
	}
	/* everything checked: apply */
	for (det = 0; det < __FABRIQ_DET_MAX; det++)
		fq_det_config_set(det, &cfgs[det]);
	if (a[FABRIQ_A_CONFIG_EVENTS_PER_SEC])
		fq_det_set_events_per_sec(nla_get_u32(a[FABRIQ_A_CONFIG_EVENTS_PER_SEC]));
	err = fq_tm_config_set(&tm);
	if (err)
		NL_SET_ERR_MSG(info->extack, "out of memory resizing the sample rings");
	return err;
}

/* STATS_GET, CONFIG_GET (any user) and CONFIG_SET (CAP_NET_ADMIN) */
const struct genl_ops fq_tm_nl_ops[] = {
	{
		.cmd = FABRIQ_CMD_STATS_GET,
		.start = fq_nl_stats_get_start,
		.dumpit = fq_nl_stats_get_dumpit,
		.policy = fq_nl_stats_policy,
		.maxattr = FABRIQ_A_STATS_MAX,
	},
	{
		.cmd = FABRIQ_CMD_CONFIG_GET,
		.doit = fq_nl_config_get_doit,
		.policy = fq_nl_config_policy,
		.maxattr = FABRIQ_A_CONFIG_MAX,
	},
	{
		.cmd = FABRIQ_CMD_CONFIG_SET,
		.doit = fq_nl_config_set_doit,
		.policy = fq_nl_config_policy,
		.maxattr = FABRIQ_A_CONFIG_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{ }
};
