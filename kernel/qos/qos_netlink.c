// SPDX-License-Identifier: GPL-2.0
/*
 * qos_netlink.c - the QoS commands of the "fabriq" family: QOS_GET (do
 * and dump), QOS_SET (CAP_NET_ADMIN) and the QOS_DRIFT/QOS_WARN
 * notifications.  Parses "qos-cfg" attributes into struct fabriq_qos_cfg
 * with the value checks that need no port, and fills replies from it.
 * Checks against the port's capabilities are qos.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/limits.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "qos.h"

/* not const: 6.1's NLA_POLICY_FULL_RANGE() takes a non-const pointer */
static struct netlink_range_validation fabriq_nl_qos_index_range __ro_after_init = {
	.min = 0,
	.max = INT_MAX,
};

static const struct nla_policy fabriq_nl_qos_ecn_policy[FABRIQ_A_QOS_ECN_MAX + 1] = {
	[FABRIQ_A_QOS_ECN_PRIO] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_ECN_ENABLE] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_ECN_MIN_BYTES] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_ECN_MAX_BYTES] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_ECN_PROB] = { .type = NLA_U8 },
};

static const struct nla_policy fabriq_nl_qos_cfg_policy[FABRIQ_A_QOS_CFG_MAX + 1] = {
	[FABRIQ_A_QOS_CFG_SL2VL] = NLA_POLICY_EXACT_LEN(FABRIQ_QOS_NUM_SL),
	[FABRIQ_A_QOS_CFG_VLARB_HIGH] = { .type = NLA_BINARY, .len = 2 * FABRIQ_QOS_VLARB_MAX },
	[FABRIQ_A_QOS_CFG_VLARB_LOW] = { .type = NLA_BINARY, .len = 2 * FABRIQ_QOS_VLARB_MAX },
	[FABRIQ_A_QOS_CFG_VL_HIGH_LIMIT] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_OPER_VLS] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_PFC] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_CFG_TRUST] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_DSCP_PRIO] = NLA_POLICY_EXACT_LEN(FABRIQ_QOS_NUM_DSCP),
	[FABRIQ_A_QOS_CFG_ETS_PRIO_TC] = NLA_POLICY_EXACT_LEN(FABRIQ_QOS_NUM_PRIO),
	[FABRIQ_A_QOS_CFG_ETS_TC_BW] = NLA_POLICY_EXACT_LEN(FABRIQ_QOS_NUM_PRIO),
	[FABRIQ_A_QOS_CFG_ETS_TC_TSA] = NLA_POLICY_EXACT_LEN(FABRIQ_QOS_NUM_PRIO),
	[FABRIQ_A_QOS_CFG_ECN] = NLA_POLICY_NESTED(fabriq_nl_qos_ecn_policy),
	[FABRIQ_A_QOS_CFG_TCLASS] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_SL] = { .type = NLA_U8 },
};

/* Requests carry the selectors, an intent and the validate-only flag. */
static const struct nla_policy fabriq_nl_qos_policy[FABRIQ_A_QOS_MAX + 1] = {
	[FABRIQ_A_QOS_DEV_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &fabriq_nl_qos_index_range),
	[FABRIQ_A_QOS_DEV_NAME] = { .type = NLA_NUL_STRING, .len = FABRIQ_DEV_NAME_MAX - 1 },
	[FABRIQ_A_QOS_PORT] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_INTENT] = NLA_POLICY_NESTED(fabriq_nl_qos_cfg_policy),
	[FABRIQ_A_QOS_VALIDATE_ONLY] = { .type = NLA_FLAG },
};

/* The plain fields of "qos-cfg": fixed-size arrays and one-byte values. */
static const struct {
	u8 attr;
	u8 field;
} fabriq_nl_cfg_fields[] = {
	{ FABRIQ_A_QOS_CFG_SL2VL, FABRIQ_QOS_F_SL2VL },
	{ FABRIQ_A_QOS_CFG_VL_HIGH_LIMIT, FABRIQ_QOS_F_VL_HIGH_LIMIT },
	{ FABRIQ_A_QOS_CFG_OPER_VLS, FABRIQ_QOS_F_OPER_VLS },
	{ FABRIQ_A_QOS_CFG_PFC, FABRIQ_QOS_F_PFC },
	{ FABRIQ_A_QOS_CFG_TRUST, FABRIQ_QOS_F_TRUST },
	{ FABRIQ_A_QOS_CFG_DSCP_PRIO, FABRIQ_QOS_F_DSCP_PRIO },
	{ FABRIQ_A_QOS_CFG_ETS_PRIO_TC, FABRIQ_QOS_F_ETS_PRIO_TC },
	{ FABRIQ_A_QOS_CFG_ETS_TC_BW, FABRIQ_QOS_F_ETS_TC_BW },
	{ FABRIQ_A_QOS_CFG_ETS_TC_TSA, FABRIQ_QOS_F_ETS_TC_TSA },
	{ FABRIQ_A_QOS_CFG_TCLASS, FABRIQ_QOS_F_TCLASS },
	{ FABRIQ_A_QOS_CFG_SL, FABRIQ_QOS_F_SL },
};

/* ---- parsing ---- */

static int fabriq_nl_parse_vlarb(const struct nlattr *a, struct fabriq_qos_vlarb *t,
				 struct netlink_ext_ack *extack)
{
	const u8 *d = nla_data(a);
	int i, n = nla_len(a);

	if (n % 2) {
		NL_SET_ERR_MSG_ATTR(extack, a, "vlarb: (VL, weight) byte pairs expected");
		return -EINVAL;
	}
	memset(t, 0, sizeof(*t));
	for (i = 0; i < n / 2; i++) {
		if (d[2 * i] > 15) {
			NL_SET_ERR_MSG_ATTR(extack, a, "vlarb: a VL above 15 (valid VL 0-14)");
			return -EINVAL;
		}
		t->e[i].vl = d[2 * i];
		t->e[i].weight = d[2 * i + 1];
	}
	t->len = n / 2;
	/* Trailing weight-0 entries are unused slots, as the read-back shows. */
	while (t->len && !t->e[t->len - 1].weight) {
		t->len--;
		t->e[t->len].vl = 0;
	}
	return 0;
}

static int fabriq_nl_parse_ecn(const struct nlattr *a, struct fabriq_qos_cfg *c,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FABRIQ_A_QOS_ECN_MAX + 1];
	struct fabriq_ecn_prio e = {};
	u8 prio;
	int err;

	err = nla_parse_nested(tb, FABRIQ_A_QOS_ECN_MAX, a, fabriq_nl_qos_ecn_policy, extack);
	if (err)
		return err;
	if (!tb[FABRIQ_A_QOS_ECN_PRIO] || !tb[FABRIQ_A_QOS_ECN_ENABLE]) {
		NL_SET_ERR_MSG_ATTR(extack, a, "ecn: prio and enable are required");
		return -EINVAL;
	}
	prio = nla_get_u8(tb[FABRIQ_A_QOS_ECN_PRIO]);
	if (prio >= FABRIQ_QOS_NUM_PRIO) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FABRIQ_A_QOS_ECN_PRIO],
				    "ecn prio: priority out of range (valid 0-7)");
		return -EINVAL;
	}
	if (nla_get_u8(tb[FABRIQ_A_QOS_ECN_ENABLE]) > 1) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FABRIQ_A_QOS_ECN_ENABLE],
				    "ecn enable: must be 0 or 1");
		return -EINVAL;
	}
	e.enable = nla_get_u8(tb[FABRIQ_A_QOS_ECN_ENABLE]);
	if (e.enable) {
		if (!tb[FABRIQ_A_QOS_ECN_MIN_BYTES] || !tb[FABRIQ_A_QOS_ECN_MAX_BYTES] ||
		    !tb[FABRIQ_A_QOS_ECN_PROB]) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "ecn: min, max and prob are required to enable");
			return -EINVAL;
		}
		e.min_bytes = nla_get_u32(tb[FABRIQ_A_QOS_ECN_MIN_BYTES]);
		e.max_bytes = nla_get_u32(tb[FABRIQ_A_QOS_ECN_MAX_BYTES]);
		e.max_prob = nla_get_u8(tb[FABRIQ_A_QOS_ECN_PROB]);
		if (e.min_bytes > e.max_bytes) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FABRIQ_A_QOS_ECN_MIN_BYTES],
					    "ecn min: the minimum threshold exceeds the maximum");
			return -EINVAL;
		}
		if (e.max_prob < 1 || e.max_prob > 100) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FABRIQ_A_QOS_ECN_PROB],
					    "ecn prob: marking probability out of range (valid 1-100)");
			return -EINVAL;
		}
	}
	c->ecn[prio] = e;
	c->ecn_prios |= BIT(prio);
	c->present |= BIT(FABRIQ_QOS_F_ECN);
	return 0;
}

/*
 * NL_SET_ERR_MSG_ATTR() for a message chosen at run time.
 * @msg: a string literal (static storage), as netlink requires.
 */
static void fabriq_nl_err_attr(struct netlink_ext_ack *extack, const struct nlattr *a,
			       const char *msg)
{
	fabriq_extack_msg(extack, msg);
	if (extack)
		extack->bad_attr = a;
}

/* Check each byte of @a is below @limit (or equal to @except). */
static int fabriq_nl_check_bytes(const struct nlattr *a, u8 limit, int except,
				 const char *msg, struct netlink_ext_ack *extack)
{
	const u8 *d = nla_data(a);
	int i;

	for (i = 0; i < nla_len(a); i++) {
		if (d[i] < limit || d[i] == except)
			continue;
		fabriq_nl_err_attr(extack, a, msg);
		return -EINVAL;
	}
	return 0;
}

static int fabriq_nl_check_tsa(const struct nlattr *a, struct netlink_ext_ack *extack)
{
	const u8 *d = nla_data(a);
	int i;

	for (i = 0; i < nla_len(a); i++) {
		switch (d[i]) {
		case FABRIQ_QOS_TSA_STRICT:
		case FABRIQ_QOS_TSA_CBS:
		case FABRIQ_QOS_TSA_ETS:
		case FABRIQ_QOS_TSA_VENDOR:
			break;
		default:
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "ets tc-tsa: unknown TSA (valid strict, cbs, ets, vendor)");
			return -EINVAL;
		}
	}
	return 0;
}

/* The checks of the scalar fields that need no port. */
static int fabriq_nl_check_scalars(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	u8 v;

	a = tb[FABRIQ_A_QOS_CFG_OPER_VLS];
	if (a) {
		v = nla_get_u8(a);
		if (v != 1 && v != 2 && v != 4 && v != 8 && v != 15) {
			NL_SET_ERR_MSG_ATTR(extack, a, "oper-vls: must be 1, 2, 4, 8 or 15");
			return -EINVAL;
		}
	}
	a = tb[FABRIQ_A_QOS_CFG_PFC];
	if (a && nla_get_u32(a) > 0xff) {
		NL_SET_ERR_MSG_ATTR(extack, a, "pfc: a priority above 7 (valid 0-7)");
		return -EINVAL;
	}
	a = tb[FABRIQ_A_QOS_CFG_TRUST];
	if (a && nla_get_u8(a) != FABRIQ_QOS_TRUST_PCP && nla_get_u8(a) != FABRIQ_QOS_TRUST_DSCP) {
		NL_SET_ERR_MSG_ATTR(extack, a, "trust: must be pcp (1) or dscp (2)");
		return -EINVAL;
	}
	a = tb[FABRIQ_A_QOS_CFG_SL];
	if (a && nla_get_u8(a) >= FABRIQ_QOS_NUM_SL) {
		NL_SET_ERR_MSG_ATTR(extack, a, "sl: out of range (valid 0-15)");
		return -EINVAL;
	}
	return 0;
}

static int fabriq_nl_check_arrays(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	int err = 0;

	a = tb[FABRIQ_A_QOS_CFG_SL2VL];
	if (a)
		err = fabriq_nl_check_bytes(a, 16, -1, "sl2vl: a VL above 15 (valid VL 0-14)",
					    extack);
	a = tb[FABRIQ_A_QOS_CFG_DSCP_PRIO];
	if (!err && a)
		err = fabriq_nl_check_bytes(a, FABRIQ_QOS_NUM_PRIO, FABRIQ_QOS_DSCP_NONE,
					    "dscp-prio: a priority above 7 (valid 0-7)", extack);
	a = tb[FABRIQ_A_QOS_CFG_ETS_PRIO_TC];
	if (!err && a)
		err = fabriq_nl_check_bytes(a, FABRIQ_QOS_NUM_PRIO, -1,
					    "ets prio-tc: a traffic class above 7 (valid 0-7)",
					    extack);
	a = tb[FABRIQ_A_QOS_CFG_ETS_TC_BW];
	if (!err && a)
		err = fabriq_nl_check_bytes(a, 101, -1,
					    "ets tc-bw: a bandwidth above 100 percent", extack);
	a = tb[FABRIQ_A_QOS_CFG_ETS_TC_TSA];
	if (!err && a)
		err = fabriq_nl_check_tsa(a, extack);
	return err;
}

/* Fill @c from the "qos-cfg" nest @nest; @c->present says what was given. */
static int fabriq_nl_parse_cfg(const struct nlattr *nest, struct fabriq_qos_cfg *c,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FABRIQ_A_QOS_CFG_MAX + 1];
	struct nlattr *a;
	int i, rem, err;

	err = nla_parse_nested(tb, FABRIQ_A_QOS_CFG_MAX, nest, fabriq_nl_qos_cfg_policy, extack);
	if (err)
		return err;
	err = fabriq_nl_check_scalars(tb, extack);
	if (!err)
		err = fabriq_nl_check_arrays(tb, extack);
	if (err)
		return err;

	for (i = 0; i < ARRAY_SIZE(fabriq_nl_cfg_fields); i++) {
		const struct fabriq_qos_field_desc *d;
		int f = fabriq_nl_cfg_fields[i].field;

		a = tb[fabriq_nl_cfg_fields[i].attr];
		if (!a)
			continue;
		d = &fabriq_qos_fields[f];
		/* u8 and u32 values were checked to fit one byte */
		if (d->len == 1)
			*((u8 *)c + d->off) = nla_type(a) == FABRIQ_A_QOS_CFG_PFC ?
					      nla_get_u32(a) : nla_get_u8(a);
		else
			nla_memcpy((u8 *)c + d->off, a, d->len);
		c->present |= BIT(f);
	}
	if (tb[FABRIQ_A_QOS_CFG_VLARB_HIGH]) {
		err = fabriq_nl_parse_vlarb(tb[FABRIQ_A_QOS_CFG_VLARB_HIGH], &c->vlarb_high,
					    extack);
		if (err)
			return err;
		c->present |= BIT(FABRIQ_QOS_F_VLARB_HIGH);
	}
	if (tb[FABRIQ_A_QOS_CFG_VLARB_LOW]) {
		err = fabriq_nl_parse_vlarb(tb[FABRIQ_A_QOS_CFG_VLARB_LOW], &c->vlarb_low, extack);
		if (err)
			return err;
		c->present |= BIT(FABRIQ_QOS_F_VLARB_LOW);
	}
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != FABRIQ_A_QOS_CFG_ECN)
			continue;
		err = fabriq_nl_parse_ecn(a, c, extack);
		if (err)
			return err;
	}
	if (!c->present) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "intent: no setting given");
		return -EINVAL;
	}
	return 0;
}

/* ---- replies ---- */

static int fabriq_nl_put_vlarb(struct sk_buff *skb, int type, const struct fabriq_qos_vlarb *t)
{
	struct nlattr *a;
	u8 *d;
	int i;

	a = nla_reserve(skb, type, 2 * t->len);
	if (!a)
		return -EMSGSIZE;
	d = nla_data(a);
	for (i = 0; i < t->len; i++) {
		d[2 * i] = t->e[i].vl;
		d[2 * i + 1] = t->e[i].weight;
	}
	return 0;
}

static int fabriq_nl_put_ecn(struct sk_buff *skb, const struct fabriq_qos_cfg *c)
{
	struct nlattr *nest;
	int p;

	for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++) {
		const struct fabriq_ecn_prio *e = &c->ecn[p];

		if (!(c->ecn_prios & BIT(p)))
			continue;
		nest = nla_nest_start(skb, FABRIQ_A_QOS_CFG_ECN);
		if (!nest ||
		    nla_put_u8(skb, FABRIQ_A_QOS_ECN_PRIO, p) ||
		    nla_put_u8(skb, FABRIQ_A_QOS_ECN_ENABLE, e->enable) ||
		    nla_put_u32(skb, FABRIQ_A_QOS_ECN_MIN_BYTES, e->min_bytes) ||
		    nla_put_u32(skb, FABRIQ_A_QOS_ECN_MAX_BYTES, e->max_bytes) ||
		    nla_put_u8(skb, FABRIQ_A_QOS_ECN_PROB, e->max_prob))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int fabriq_nl_put_cfg(struct sk_buff *skb, int type, const struct fabriq_qos_cfg *c)
{
	const struct fabriq_qos_field_desc *d;
	struct nlattr *nest;
	const u8 *v;
	int i, f, err = 0;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; !err && i < ARRAY_SIZE(fabriq_nl_cfg_fields); i++) {
		f = fabriq_nl_cfg_fields[i].field;
		if (!(c->present & BIT(f)))
			continue;
		d = &fabriq_qos_fields[f];
		v = (const u8 *)c + d->off;
		if (fabriq_nl_cfg_fields[i].attr == FABRIQ_A_QOS_CFG_PFC)
			err = nla_put_u32(skb, FABRIQ_A_QOS_CFG_PFC, *v);
		else if (d->len == 1)
			err = nla_put_u8(skb, fabriq_nl_cfg_fields[i].attr, *v);
		else
			err = nla_put(skb, fabriq_nl_cfg_fields[i].attr, d->len, v);
	}
	if (!err && (c->present & BIT(FABRIQ_QOS_F_VLARB_HIGH)))
		err = fabriq_nl_put_vlarb(skb, FABRIQ_A_QOS_CFG_VLARB_HIGH, &c->vlarb_high);
	if (!err && (c->present & BIT(FABRIQ_QOS_F_VLARB_LOW)))
		err = fabriq_nl_put_vlarb(skb, FABRIQ_A_QOS_CFG_VLARB_LOW, &c->vlarb_low);
	if (!err && (c->present & BIT(FABRIQ_QOS_F_ECN)))
		err = fabriq_nl_put_ecn(skb, c);
	if (err) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* What one QOS_GET reply is made of. */
struct fabriq_nl_qos_reply {
	struct fabriq_qos_cfg intent;
	struct fabriq_qos_cfg hw;
	struct fabriq_qos_caps caps;
	u32 drift;
	char warning[160];
};

/*
 * @fresh: the requester may make fabriq read the hardware (CAP_NET_ADMIN);
 * anyone else gets the port's snapshot while it is young.
 */
static int fabriq_nl_qos_fill(struct sk_buff *skb, struct fabriq_dev *fdev,
			      struct fabriq_port *port, u32 portid, u32 seq, int flags,
			      struct fabriq_nl_qos_reply *r, bool fresh)
{
	const struct fabriq_qos_caps *caps = &r->caps;
	void *hdr;
	int err;

	err = fabriq_qos_get(fdev, port, &r->intent, &r->hw, &r->caps, &r->drift,
			     r->warning, sizeof(r->warning), fresh);
	if (err)
		return err;
	hdr = fabriq_nl_put_hdr(skb, portid, seq, flags, FABRIQ_CMD_QOS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABRIQ_A_QOS_DEV_INDEX, fdev->index) ||
	    nla_put_string(skb, FABRIQ_A_QOS_DEV_NAME, fdev->name) ||
	    nla_put_u32(skb, FABRIQ_A_QOS_PORT, port->num) ||
	    nla_put_u8(skb, FABRIQ_A_QOS_LINK_LAYER, caps->link_layer) ||
	    nla_put_u32(skb, FABRIQ_A_QOS_DRIFT, r->drift) ||
	    fabriq_nl_put_cfg(skb, FABRIQ_A_QOS_INTENT, &r->intent) ||
	    fabriq_nl_put_cfg(skb, FABRIQ_A_QOS_HW, &r->hw))
		goto err_cancel;
	if (caps->link_layer == FABRIQ_LINK_LAYER_INFINIBAND &&
	    (nla_put_u8(skb, FABRIQ_A_QOS_VL_CAP, caps->vl_cap) ||
	     nla_put_u8(skb, FABRIQ_A_QOS_VLARB_HIGH_CAP, caps->vlarb_high_cap) ||
	     nla_put_u8(skb, FABRIQ_A_QOS_VLARB_LOW_CAP, caps->vlarb_low_cap)))
		goto err_cancel;
	if ((caps->netdev[0] && nla_put_string(skb, FABRIQ_A_QOS_NETDEV_NAME, caps->netdev)) ||
	    (caps->ecn_backend[0] &&
	     nla_put_string(skb, FABRIQ_A_QOS_ECN_BACKEND, caps->ecn_backend)) ||
	    (r->warning[0] && nla_put_string(skb, FABRIQ_A_QOS_MESSAGE, r->warning)))
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * The device (with a reference) and port a request selects.
 * Return: 0, or a negative errno with extack set.
 */
static int fabriq_nl_qos_lookup(struct genl_info *info, struct fabriq_dev **fdevp,
				struct fabriq_port **portp)
{
	struct nlattr *a = info->attrs[FABRIQ_A_QOS_PORT];
	struct fabriq_dev *fdev;

	fdev = fabriq_nl_dev_lookup(info, FABRIQ_A_QOS_DEV_INDEX, FABRIQ_A_QOS_DEV_NAME);
	if (IS_ERR(fdev))
		return PTR_ERR(fdev);
	if (!a) {
		NL_SET_ERR_MSG(info->extack, "port is required to select a port");
		fabriq_dev_put(fdev);
		return -EINVAL;
	}
	*portp = fabriq_dev_port(fdev, nla_get_u32(a));
	if (!*portp) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "port: the device has no such port");
		fabriq_dev_put(fdev);
		return -EINVAL;
	}
	*fdevp = fdev;
	return 0;
}

static int fabriq_nl_qos_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct fabriq_nl_qos_reply *r = NULL;
	struct fabriq_port *port;
	struct fabriq_dev *fdev;
	struct sk_buff *msg = NULL;
	int err;

	err = fabriq_nl_qos_lookup(info, &fdev, &port);
	if (err)
		return err;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	err = -ENOMEM;
	if (!r || !msg)
		goto out;
	err = fabriq_nl_qos_fill(msg, fdev, port, info->snd_portid, info->snd_seq, 0, r,
				 netlink_capable(skb, CAP_NET_ADMIN));
	if (err) {
		if (err == -ENODEV)
			NL_SET_ERR_MSG(info->extack, "the device was removed");
		else
			NL_SET_ERR_MSG(info->extack,
				       "cannot read the port's QoS state from the device");
		goto out;
	}
	err = genlmsg_reply(msg, info);
	msg = NULL;
out:
	nlmsg_free(msg);
	kfree(r);
	fabriq_dev_put(fdev);
	return err;
}

struct fabriq_nl_qos_dump_ctx {
	u32 next_index;
	u32 next_port;		/* offset into the device's ports */
};

static int fabriq_nl_qos_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fabriq_nl_qos_dump_ctx *ctx = (void *)cb->ctx;
	bool fresh = netlink_capable(cb->skb, CAP_NET_ADMIN);
	struct fabriq_nl_qos_reply *r;
	struct fabriq_dev *fdev;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	while (!err && (fdev = fabriq_dev_get_next(ctx->next_index))) {
		for (; ctx->next_port < fdev->num_ports; ctx->next_port++) {
			if (fdev->unsupported)
				continue;
			err = fabriq_nl_qos_fill(skb, fdev, &fdev->ports[ctx->next_port],
						 NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
						 NLM_F_MULTI, r, fresh);
			if (err == -EMSGSIZE)
				break;
			err = 0;	/* a port that cannot be read is left out */
		}
		if (!err) {
			ctx->next_index = fdev->index + 1;
			ctx->next_port = 0;
		}
		fabriq_dev_put(fdev);
		if (!err && ctx->next_index == 0)
			break;
	}
	kfree(r);
	if (err && !skb->len)
		return err;
	return skb->len;
}

static int fabriq_nl_qos_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *intent = info->attrs[FABRIQ_A_QOS_INTENT];
	struct fabriq_qos_cfg *req;
	struct fabriq_port *port;
	struct fabriq_dev *fdev;
	int err;

	err = fabriq_nl_qos_lookup(info, &fdev, &port);
	if (err)
		return err;
	if (fdev->unsupported) {
		NL_SET_ERR_MSG(info->extack, "fabriq does not support this device");
		err = -EOPNOTSUPP;
		goto out_put;
	}
	if (!intent) {
		NL_SET_ERR_MSG(info->extack, "intent is required: the settings to change");
		err = -EINVAL;
		goto out_put;
	}
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	err = -ENOMEM;
	if (!req)
		goto out_put;
	err = fabriq_nl_parse_cfg(intent, req, info->extack);
	if (!err)
		err = fabriq_qos_set(fdev, port, req,
				     nla_get_flag(info->attrs[FABRIQ_A_QOS_VALIDATE_ONLY]),
				     info->extack);
	kfree(req);
out_put:
	fabriq_dev_put(fdev);
	return err;
}

/* what a QoS notification says */
struct fabriq_qos_ntf {
	u8 cmd;
	const char *dev_name;
	u32 port;
	u32 drift;
	const char *field;
	const char *message;
};

static int fabriq_nl_qos_fill_ntf(struct sk_buff *msg, const void *arg)
{
	const struct fabriq_qos_ntf *n = arg;

	if (nla_put_string(msg, FABRIQ_A_QOS_DEV_NAME, n->dev_name) ||
	    nla_put_u32(msg, FABRIQ_A_QOS_PORT, n->port) ||
	    (n->cmd == FABRIQ_CMD_QOS_DRIFT_NTF &&
	     nla_put_u32(msg, FABRIQ_A_QOS_DRIFT, n->drift)) ||
	    (n->field && nla_put_string(msg, FABRIQ_A_QOS_FIELD, n->field)) ||
	    nla_put_string(msg, FABRIQ_A_QOS_MESSAGE, n->message))
		return -EMSGSIZE;
	return 0;
}

/**
 * fabriq_nl_qos_notify() - a QoS notification on the events group
 * @cmd: FABRIQ_CMD_QOS_DRIFT_NTF or FABRIQ_CMD_QOS_WARN_NTF
 * @dev_name: the device
 * @port: the port
 * @drift: every field that differs now (drift notifications)
 * @field: the field it is about, or NULL
 * @message: the explanation
 *
 * Context: process context.
 */
void fabriq_nl_qos_notify(u8 cmd, const char *dev_name, u32 port, u32 drift,
			  const char *field, const char *message)
{
	const struct fabriq_qos_ntf ntf = {
		.cmd = cmd, .dev_name = dev_name, .port = port, .drift = drift,
		.field = field, .message = message,
	};

	fabriq_nl_event(cmd, fabriq_nl_qos_fill_ntf, &ntf);
}

/* QOS_GET (any user) and QOS_SET (CAP_NET_ADMIN), for the core's family */
const struct genl_ops fabriq_qos_nl_ops[] = {
	{
		.cmd = FABRIQ_CMD_QOS_GET,
		.doit = fabriq_nl_qos_get_doit,
		.dumpit = fabriq_nl_qos_get_dumpit,
		.policy = fabriq_nl_qos_policy,
		.maxattr = FABRIQ_A_QOS_MAX,
	},
	{
		.cmd = FABRIQ_CMD_QOS_SET,
		.doit = fabriq_nl_qos_set_doit,
		.policy = fabriq_nl_qos_policy,
		.maxattr = FABRIQ_A_QOS_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{ }
};
