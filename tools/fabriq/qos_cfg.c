// SPDX-License-Identifier: GPL-2.0
/*
 * qos_cfg.c - one port's QoS settings in the CLI: their netlink form
 * ("qos-cfg" nests of QOS_GET/QOS_SET) and their text form, which is both
 * what `qos show` prints and what `qos set` and `qos apply` read:
 *
 *   sl2vl SL:VL,...          vlarb-high VL:WEIGHT,...|none   vl-high-limit N
 *   vlarb-low VL:WEIGHT,...|none                             oper-vls 1|2|4|8|15
 *   pfc PRIO,...|none        trust pcp|dscp                  dscp-prio DSCP:PRIO,...|none
 *   ets prio-tc PRIO:TC,... tc-bw TC:PCT,... tc-tsa TC:strict|cbs|ets|vendor,...
 *   ecn prio P min SIZE max SIZE prob PCT | ecn prio P off    tc N    sl N
 *
 * sl2vl and ets merge into the port's current values; the lists of
 * vlarb-*, pfc and dscp-prio replace them.  SIZE takes K and M (1024).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>

#include "fabriq.h"
#include "qos.h"

const char *const qos_field_names[FABRIQ_QOS_F_NUM] = FABRIQ_QOS_FIELD_NAMES;

static const char *const tsa_names[] = {
	[FABRIQ_QOS_TSA_STRICT] = "strict",
	[FABRIQ_QOS_TSA_CBS] = "cbs",
	[FABRIQ_QOS_TSA_ETS] = "ets",
};

static struct nla_policy cfg_policy[FABRIQ_A_QOS_CFG_MAX + 1] = {
	[FABRIQ_A_QOS_CFG_VL_HIGH_LIMIT] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_OPER_VLS] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_PFC] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_CFG_TRUST] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_TCLASS] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_CFG_SL] = { .type = NLA_U8 },
};

static struct nla_policy ecn_policy[FABRIQ_A_QOS_ECN_MAX + 1] = {
	[FABRIQ_A_QOS_ECN_PRIO] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_ECN_ENABLE] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_ECN_MIN_BYTES] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_ECN_MAX_BYTES] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_ECN_PROB] = { .type = NLA_U8 },
};

static struct nla_policy port_policy[FABRIQ_A_QOS_MAX + 1] = {
	[FABRIQ_A_QOS_DEV_NAME] = { .type = NLA_STRING },
	[FABRIQ_A_QOS_PORT] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_LINK_LAYER] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_INTENT] = { .type = NLA_NESTED },
	[FABRIQ_A_QOS_HW] = { .type = NLA_NESTED },
	[FABRIQ_A_QOS_DRIFT] = { .type = NLA_U32 },
	[FABRIQ_A_QOS_MESSAGE] = { .type = NLA_STRING },
	[FABRIQ_A_QOS_VL_CAP] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_VLARB_HIGH_CAP] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_VLARB_LOW_CAP] = { .type = NLA_U8 },
	[FABRIQ_A_QOS_ECN_BACKEND] = { .type = NLA_STRING },
	[FABRIQ_A_QOS_NETDEV_NAME] = { .type = NLA_STRING },
};

/* The fixed-size byte arrays of "qos-cfg". */
static const struct {
	int attr;
	int field;
	size_t off;
	size_t len;
} cfg_arrays[] = {
	{ FABRIQ_A_QOS_CFG_SL2VL, FABRIQ_QOS_F_SL2VL,
	  offsetof(struct qos_cfg, sl2vl), FABRIQ_QOS_NUM_SL },
	{ FABRIQ_A_QOS_CFG_DSCP_PRIO, FABRIQ_QOS_F_DSCP_PRIO,
	  offsetof(struct qos_cfg, dscp_prio), FABRIQ_QOS_NUM_DSCP },
	{ FABRIQ_A_QOS_CFG_ETS_PRIO_TC, FABRIQ_QOS_F_ETS_PRIO_TC,
	  offsetof(struct qos_cfg, prio_tc), FABRIQ_QOS_NUM_PRIO },
	{ FABRIQ_A_QOS_CFG_ETS_TC_BW, FABRIQ_QOS_F_ETS_TC_BW,
	  offsetof(struct qos_cfg, tc_bw), FABRIQ_QOS_NUM_PRIO },
	{ FABRIQ_A_QOS_CFG_ETS_TC_TSA, FABRIQ_QOS_F_ETS_TC_TSA,
	  offsetof(struct qos_cfg, tc_tsa), FABRIQ_QOS_NUM_PRIO },
};

/* The one-byte values of "qos-cfg" (pfc travels as a u32). */
static const struct {
	int attr;
	int field;
	size_t off;
} cfg_bytes[] = {
	{ FABRIQ_A_QOS_CFG_VL_HIGH_LIMIT, FABRIQ_QOS_F_VL_HIGH_LIMIT,
	  offsetof(struct qos_cfg, vl_high_limit) },
	{ FABRIQ_A_QOS_CFG_OPER_VLS, FABRIQ_QOS_F_OPER_VLS, offsetof(struct qos_cfg, oper_vls) },
	{ FABRIQ_A_QOS_CFG_PFC, FABRIQ_QOS_F_PFC, offsetof(struct qos_cfg, pfc) },
	{ FABRIQ_A_QOS_CFG_TRUST, FABRIQ_QOS_F_TRUST, offsetof(struct qos_cfg, trust) },
	{ FABRIQ_A_QOS_CFG_TCLASS, FABRIQ_QOS_F_TCLASS, offsetof(struct qos_cfg, tclass) },
	{ FABRIQ_A_QOS_CFG_SL, FABRIQ_QOS_F_SL, offsetof(struct qos_cfg, sl) },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- netlink ---- */

static void vlarb_from_attr(struct nlattr *a, struct qos_vlarb *t)
{
	const uint8_t *d = nla_data(a);
	int i, n = nla_len(a) / 2;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n && i < FABRIQ_QOS_VLARB_MAX; i++) {
		t->vl[i] = d[2 * i];
		t->weight[i] = d[2 * i + 1];
	}
	t->len = i;
}

static void ecn_from_attr(struct nlattr *a, struct qos_cfg *c)
{
	struct nlattr *tb[FABRIQ_A_QOS_ECN_MAX + 1];
	struct qos_ecn *e;
	int p;

	if (nla_parse_nested(tb, FABRIQ_A_QOS_ECN_MAX, a, ecn_policy) ||
	    !tb[FABRIQ_A_QOS_ECN_PRIO])
		return;
	p = nla_get_u8(tb[FABRIQ_A_QOS_ECN_PRIO]);
	if (p >= FABRIQ_QOS_NUM_PRIO)
		return;
	e = &c->ecn[p];
	e->enable = tb[FABRIQ_A_QOS_ECN_ENABLE] ? nla_get_u8(tb[FABRIQ_A_QOS_ECN_ENABLE]) : 0;
	e->min = tb[FABRIQ_A_QOS_ECN_MIN_BYTES] ? nla_get_u32(tb[FABRIQ_A_QOS_ECN_MIN_BYTES]) : 0;
	e->max = tb[FABRIQ_A_QOS_ECN_MAX_BYTES] ? nla_get_u32(tb[FABRIQ_A_QOS_ECN_MAX_BYTES]) : 0;
	e->prob = tb[FABRIQ_A_QOS_ECN_PROB] ? nla_get_u8(tb[FABRIQ_A_QOS_ECN_PROB]) : 0;
	c->ecn_prios |= 1u << p;
	c->present |= QOS_BIT(FABRIQ_QOS_F_ECN);
}

int qos_cfg_from_nest(struct nlattr *nest, struct qos_cfg *c)
{
	struct nlattr *tb[FABRIQ_A_QOS_CFG_MAX + 1];
	struct nlattr *a;
	size_t i;
	int rem;

	memset(c, 0, sizeof(*c));
	if (nla_parse_nested(tb, FABRIQ_A_QOS_CFG_MAX, nest, cfg_policy))
		return -EINVAL;
	for (i = 0; i < ARRAY_LEN(cfg_arrays); i++) {
		a = tb[cfg_arrays[i].attr];
		if (!a || (size_t)nla_len(a) != cfg_arrays[i].len)
			continue;
		memcpy((uint8_t *)c + cfg_arrays[i].off, nla_data(a), cfg_arrays[i].len);
		c->present |= QOS_BIT(cfg_arrays[i].field);
	}
	for (i = 0; i < ARRAY_LEN(cfg_bytes); i++) {
		a = tb[cfg_bytes[i].attr];
		if (!a)
			continue;
		*((uint8_t *)c + cfg_bytes[i].off) = cfg_bytes[i].attr == FABRIQ_A_QOS_CFG_PFC ?
						     nla_get_u32(a) : nla_get_u8(a);
		c->present |= QOS_BIT(cfg_bytes[i].field);
	}
	if (tb[FABRIQ_A_QOS_CFG_VLARB_HIGH]) {
		vlarb_from_attr(tb[FABRIQ_A_QOS_CFG_VLARB_HIGH], &c->vlarb_high);
		c->present |= QOS_BIT(FABRIQ_QOS_F_VLARB_HIGH);
	}
	if (tb[FABRIQ_A_QOS_CFG_VLARB_LOW]) {
		vlarb_from_attr(tb[FABRIQ_A_QOS_CFG_VLARB_LOW], &c->vlarb_low);
		c->present |= QOS_BIT(FABRIQ_QOS_F_VLARB_LOW);
	}
	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == FABRIQ_A_QOS_CFG_ECN)
			ecn_from_attr(a, c);
	return 0;
}

static int vlarb_put(struct nl_msg *msg, int type, const struct qos_vlarb *t)
{
	uint8_t d[2 * FABRIQ_QOS_VLARB_MAX];
	int i;

	for (i = 0; i < t->len; i++) {
		d[2 * i] = t->vl[i];
		d[2 * i + 1] = t->weight[i];
	}
	return nla_put(msg, type, 2 * t->len, d);
}

static int ecn_put(struct nl_msg *msg, const struct qos_cfg *c)
{
	struct nlattr *nest;
	int p;

	for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++) {
		if (!(c->ecn_prios & (1u << p)))
			continue;
		nest = nla_nest_start(msg, FABRIQ_A_QOS_CFG_ECN);
		if (!nest || nla_put_u8(msg, FABRIQ_A_QOS_ECN_PRIO, p) ||
		    nla_put_u8(msg, FABRIQ_A_QOS_ECN_ENABLE, c->ecn[p].enable))
			return -1;
		if (c->ecn[p].enable &&
		    (nla_put_u32(msg, FABRIQ_A_QOS_ECN_MIN_BYTES, c->ecn[p].min) ||
		     nla_put_u32(msg, FABRIQ_A_QOS_ECN_MAX_BYTES, c->ecn[p].max) ||
		     nla_put_u8(msg, FABRIQ_A_QOS_ECN_PROB, c->ecn[p].prob)))
			return -1;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* Add @c's present fields to @msg as a "qos-cfg" nest of type @type. */
int qos_cfg_put(struct nl_msg *msg, int type, const struct qos_cfg *c)
{
	struct nlattr *nest = nla_nest_start(msg, type);
	const uint8_t *v;
	size_t i;
	int err = 0;

	if (!nest)
		return -1;
	for (i = 0; !err && i < ARRAY_LEN(cfg_arrays); i++)
		if (c->present & QOS_BIT(cfg_arrays[i].field))
			err = nla_put(msg, cfg_arrays[i].attr, cfg_arrays[i].len,
				      (const uint8_t *)c + cfg_arrays[i].off);
	for (i = 0; !err && i < ARRAY_LEN(cfg_bytes); i++) {
		if (!(c->present & QOS_BIT(cfg_bytes[i].field)))
			continue;
		v = (const uint8_t *)c + cfg_bytes[i].off;
		err = cfg_bytes[i].attr == FABRIQ_A_QOS_CFG_PFC ?
		      nla_put_u32(msg, cfg_bytes[i].attr, *v) :
		      nla_put_u8(msg, cfg_bytes[i].attr, *v);
	}
	if (!err && (c->present & QOS_BIT(FABRIQ_QOS_F_VLARB_HIGH)))
		err = vlarb_put(msg, FABRIQ_A_QOS_CFG_VLARB_HIGH, &c->vlarb_high);
	if (!err && (c->present & QOS_BIT(FABRIQ_QOS_F_VLARB_LOW)))
		err = vlarb_put(msg, FABRIQ_A_QOS_CFG_VLARB_LOW, &c->vlarb_low);
	if (!err && (c->present & QOS_BIT(FABRIQ_QOS_F_ECN)))
		err = ecn_put(msg, c);
	nla_nest_end(msg, nest);
	return err ? -1 : 0;
}

static void copy_str(char *dst, size_t len, struct nlattr *a)
{
	snprintf(dst, len, "%s", a ? nla_get_string(a) : "");
}

/* Fill @p from a QOS_GET reply. */
int qos_port_from_msg(struct nl_msg *msg, struct qos_port *p)
{
	struct nlattr *tb[FABRIQ_A_QOS_MAX + 1];

	memset(p, 0, sizeof(*p));
	if (fq_nl_parse(msg, tb, FABRIQ_A_QOS_MAX, port_policy) || !tb[FABRIQ_A_QOS_DEV_NAME] ||
	    !tb[FABRIQ_A_QOS_PORT])
		return -EINVAL;
	copy_str(p->dev, sizeof(p->dev), tb[FABRIQ_A_QOS_DEV_NAME]);
	copy_str(p->netdev, sizeof(p->netdev), tb[FABRIQ_A_QOS_NETDEV_NAME]);
	copy_str(p->ecn_backend, sizeof(p->ecn_backend), tb[FABRIQ_A_QOS_ECN_BACKEND]);
	copy_str(p->warning, sizeof(p->warning), tb[FABRIQ_A_QOS_MESSAGE]);
	p->port = nla_get_u32(tb[FABRIQ_A_QOS_PORT]);
	if (tb[FABRIQ_A_QOS_LINK_LAYER])
		p->link_layer = nla_get_u8(tb[FABRIQ_A_QOS_LINK_LAYER]);
	if (tb[FABRIQ_A_QOS_DRIFT])
		p->drift = nla_get_u32(tb[FABRIQ_A_QOS_DRIFT]);
	if (tb[FABRIQ_A_QOS_VL_CAP])
		p->vl_cap = nla_get_u8(tb[FABRIQ_A_QOS_VL_CAP]);
	if (tb[FABRIQ_A_QOS_VLARB_HIGH_CAP])
		p->vlarb_high_cap = nla_get_u8(tb[FABRIQ_A_QOS_VLARB_HIGH_CAP]);
	if (tb[FABRIQ_A_QOS_VLARB_LOW_CAP])
		p->vlarb_low_cap = nla_get_u8(tb[FABRIQ_A_QOS_VLARB_LOW_CAP]);
	if (tb[FABRIQ_A_QOS_INTENT])
		qos_cfg_from_nest(tb[FABRIQ_A_QOS_INTENT], &p->intent);
	if (tb[FABRIQ_A_QOS_HW])
		qos_cfg_from_nest(tb[FABRIQ_A_QOS_HW], &p->hw);
	return 0;
}

/* What the port will hold: the hardware, with the intent over it. */
void qos_effective(const struct qos_port *p, struct qos_cfg *out)
{
	size_t i;
	int f;

	*out = p->hw;
	for (i = 0; i < ARRAY_LEN(cfg_arrays); i++)
		if (p->intent.present & QOS_BIT(cfg_arrays[i].field))
			memcpy((uint8_t *)out + cfg_arrays[i].off,
			       (const uint8_t *)&p->intent + cfg_arrays[i].off, cfg_arrays[i].len);
	for (i = 0; i < ARRAY_LEN(cfg_bytes); i++)
		if (p->intent.present & QOS_BIT(cfg_bytes[i].field))
			*((uint8_t *)out + cfg_bytes[i].off) =
				*((const uint8_t *)&p->intent + cfg_bytes[i].off);
	if (p->intent.present & QOS_BIT(FABRIQ_QOS_F_VLARB_HIGH))
		out->vlarb_high = p->intent.vlarb_high;
	if (p->intent.present & QOS_BIT(FABRIQ_QOS_F_VLARB_LOW))
		out->vlarb_low = p->intent.vlarb_low;
	for (f = 0; f < FABRIQ_QOS_NUM_PRIO; f++)
		if (p->intent.ecn_prios & (1u << f))
			out->ecn[f] = p->intent.ecn[f];
	out->ecn_prios |= p->intent.ecn_prios;
	out->present |= p->intent.present;
}

/* ---- text out ---- */

static void fmt_size(char *buf, size_t len, uint32_t v)
{
	if (v && v % (1024 * 1024) == 0)
		snprintf(buf, len, "%uM", v / (1024 * 1024));
	else if (v && v % 1024 == 0)
		snprintf(buf, len, "%uK", v / 1024);
	else
		snprintf(buf, len, "%u", v);
}

/* "i:v,..." over @n entries; entries equal to @skip are left out; "none" if empty. */
static void fmt_map(char *buf, size_t len, const uint8_t *v, int n, int skip)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		if (v[i] != skip)
			off += snprintf(buf + off, len - off, "%s%d:%u", off ? "," : "", i, v[i]);
	if (!off)
		snprintf(buf, len, "none");
}

static void fmt_vlarb(char *buf, size_t len, const struct qos_vlarb *t)
{
	size_t off = 0;
	int i;

	for (i = 0; i < t->len && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%u:%u", off ? "," : "", t->vl[i],
				t->weight[i]);
	if (!off)
		snprintf(buf, len, "none");
}

static const char *tsa_name(uint8_t tsa)
{
	if (tsa == FABRIQ_QOS_TSA_VENDOR)
		return "vendor";
	return tsa < ARRAY_LEN(tsa_names) && tsa_names[tsa] ? tsa_names[tsa] : "unknown";
}

/* Field @field of @c as `qos set` reads it ("-" when @c does not hold it). */
void qos_fmt_field(char *buf, size_t len, const struct qos_cfg *c, int field)
{
	size_t off = 0;
	int i;

	if (!(c->present & QOS_BIT(field))) {
		snprintf(buf, len, "-");
		return;
	}
	switch (field) {
	case FABRIQ_QOS_F_SL2VL:
		fmt_map(buf, len, c->sl2vl, FABRIQ_QOS_NUM_SL, -1);
		break;
	case FABRIQ_QOS_F_VLARB_HIGH:
		fmt_vlarb(buf, len, &c->vlarb_high);
		break;
	case FABRIQ_QOS_F_VLARB_LOW:
		fmt_vlarb(buf, len, &c->vlarb_low);
		break;
	case FABRIQ_QOS_F_VL_HIGH_LIMIT:
		snprintf(buf, len, "%u", c->vl_high_limit);
		break;
	case FABRIQ_QOS_F_OPER_VLS:
		snprintf(buf, len, "%u", c->oper_vls);
		break;
	case FABRIQ_QOS_F_PFC:
		buf[0] = '\0';
		for (i = 0; i < FABRIQ_QOS_NUM_PRIO; i++)
			if (c->pfc & (1u << i))
				off += snprintf(buf + off, len - off, "%s%d", off ? "," : "", i);
		if (!off)
			snprintf(buf, len, "none");
		break;
	case FABRIQ_QOS_F_TRUST:
		snprintf(buf, len, "%s", c->trust == FABRIQ_QOS_TRUST_DSCP ? "dscp" : "pcp");
		break;
	case FABRIQ_QOS_F_DSCP_PRIO:
		fmt_map(buf, len, c->dscp_prio, FABRIQ_QOS_NUM_DSCP, FABRIQ_QOS_DSCP_NONE);
		break;
	case FABRIQ_QOS_F_ETS_PRIO_TC:
		fmt_map(buf, len, c->prio_tc, FABRIQ_QOS_NUM_PRIO, -1);
		break;
	case FABRIQ_QOS_F_ETS_TC_BW:
		fmt_map(buf, len, c->tc_bw, FABRIQ_QOS_NUM_PRIO, -1);
		break;
	case FABRIQ_QOS_F_ETS_TC_TSA:
		for (i = 0; i < FABRIQ_QOS_NUM_PRIO && off < len; i++)
			off += snprintf(buf + off, len - off, "%s%d:%s", i ? "," : "", i,
					tsa_name(c->tc_tsa[i]));
		break;
	case FABRIQ_QOS_F_TCLASS:
		snprintf(buf, len, "%u", c->tclass);
		break;
	case FABRIQ_QOS_F_SL:
		snprintf(buf, len, "%u", c->sl);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
}

/* ECN of priority @prio as `qos set ... ecn prio P` reads it. */
void qos_fmt_ecn(char *buf, size_t len, const struct qos_cfg *c, int prio)
{
	const struct qos_ecn *e = &c->ecn[prio];
	char mn[16], mx[16];

	if (!(c->ecn_prios & (1u << prio))) {
		snprintf(buf, len, "-");
		return;
	}
	if (!e->enable) {
		snprintf(buf, len, "off");
		return;
	}
	fmt_size(mn, sizeof(mn), e->min);
	fmt_size(mx, sizeof(mx), e->max);
	snprintf(buf, len, "min %s max %s prob %u", mn, mx, e->prob);
}

/* ---- text in ---- */

static const char *where_now;

static int bad(const char *field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const char *field, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: %s: ", prog, where_now, field);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A decimal number in [0, max], without a sign. */
static int num(const char *s, unsigned long max, unsigned long *out)
{
	uint64_t v;

	if (!s || *s == '+' || !fq_parse_u64(s, 10, 0, max, &v))
		return -1;
	*out = v;
	return 0;
}

/* A byte count with an optional K or M suffix (1024-based), up to 4G-1. */
static int size_val(const char *s, uint32_t *out)
{
	unsigned long long mult = 1, v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	if (*end || v > UINT32_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/*
 * Walk "K:V,K:V"; @cb gets each pair as strings.  "none" gives no pairs
 * when @none_ok.  Returns -1 after printing an error.
 */
static int pairs(const char *field, const char *list, bool none_ok, void *arg,
		 int (*cb)(const char *field, const char *k, const char *v, void *arg))
{
	char *copy, *tok, *save = NULL, *colon;
	int err = 0;

	if (!list)
		return bad(field, "a value is missing");
	if (none_ok && !strcmp(list, "none"))
		return 0;
	copy = strdup(list);
	if (!copy)
		return bad(field, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon) {
			err = bad(field, "'%s' is not KEY:VALUE", tok);
			break;
		}
		*colon = '\0';
		err = cb(field, tok, colon + 1, arg);
	}
	free(copy);
	return err;
}

struct map_ctx {
	uint8_t *map;
	const char *kname, *vname;
	unsigned long kmax, vmax;
};

static int map_pair(const char *field, const char *k, const char *v, void *arg)
{
	struct map_ctx *m = arg;
	unsigned long kk, vv;

	if (num(k, m->kmax, &kk))
		return bad(field, "%s '%s' is out of range (valid: 0-%lu)", m->kname, k, m->kmax);
	if (num(v, m->vmax, &vv))
		return bad(field, "%s '%s' for %s %lu is out of range (valid: 0-%lu)", m->vname,
			   v, m->kname, kk, m->vmax);
	m->map[kk] = vv;
	return 0;
}

static int tsa_pair(const char *field, const char *k, const char *v, void *arg)
{
	uint8_t *tsa = arg;
	unsigned long tc;

	if (num(k, FABRIQ_QOS_NUM_PRIO - 1, &tc))
		return bad(field, "TC '%s' is out of range (valid: 0-7)", k);
	if (!strcmp(v, "strict"))
		tsa[tc] = FABRIQ_QOS_TSA_STRICT;
	else if (!strcmp(v, "cbs"))
		tsa[tc] = FABRIQ_QOS_TSA_CBS;
	else if (!strcmp(v, "ets"))
		tsa[tc] = FABRIQ_QOS_TSA_ETS;
	else if (!strcmp(v, "vendor"))
		tsa[tc] = FABRIQ_QOS_TSA_VENDOR;
	else
		return bad(field, "TSA '%s' of TC %lu is unknown (valid: strict, cbs, ets, vendor)",
			   v, tc);
	return 0;
}

struct vlarb_ctx {
	struct qos_vlarb *t;
	unsigned int cap;
};

static int vlarb_pair(const char *field, const char *k, const char *v, void *arg)
{
	struct vlarb_ctx *x = arg;
	unsigned long vl, w;

	if (num(k, 15, &vl))
		return bad(field, "VL '%s' is out of range (valid: 0-14)", k);
	if (vl == 15)
		return bad(field, "VL 15 is reserved for subnet management (valid: 0-14)");
	if (num(v, 255, &w))
		return bad(field, "weight '%s' of VL %lu is out of range (valid: 0-255)", v, vl);
	if (x->t->len >= x->cap)
		return bad(field, "more than %u entries (the port's table holds %u)", x->cap,
			   x->cap);
	x->t->vl[x->t->len] = vl;
	x->t->weight[x->t->len] = w;
	x->t->len++;
	return 0;
}

static int parse_sl2vl(const char *val, const struct qos_cfg *eff, struct qos_cfg *req)
{
	struct map_ctx m = { req->sl2vl, "SL", "VL", FABRIQ_QOS_NUM_SL - 1, 14 };
	unsigned int oper = (req->present & QOS_BIT(FABRIQ_QOS_F_OPER_VLS)) ? req->oper_vls :
			    (eff->present & QOS_BIT(FABRIQ_QOS_F_OPER_VLS)) ? eff->oper_vls : 15;
	int i;

	if (!(req->present & QOS_BIT(FABRIQ_QOS_F_SL2VL)))
		memcpy(req->sl2vl, eff->sl2vl, sizeof(req->sl2vl));
	if (oper && oper <= 15)
		m.vmax = oper - 1;
	if (pairs("sl2vl", val, false, &m, map_pair))
		return -1;
	for (i = 0; i < FABRIQ_QOS_NUM_SL; i++)
		if (req->sl2vl[i] > m.vmax)
			return bad("sl2vl", "SL %d stays on VL %u, not below oper-vls %u (valid VL: 0-%lu)",
				   i, req->sl2vl[i], oper, m.vmax);
	req->present |= QOS_BIT(FABRIQ_QOS_F_SL2VL);
	return 0;
}

static int parse_vlarb(int field, const char *val, unsigned int cap, struct qos_cfg *req)
{
	struct qos_vlarb *t = field == FABRIQ_QOS_F_VLARB_HIGH ? &req->vlarb_high :
								 &req->vlarb_low;
	struct vlarb_ctx x = { t, cap ? cap : FABRIQ_QOS_VLARB_MAX };

	memset(t, 0, sizeof(*t));
	if (pairs(qos_field_names[field], val, true, &x, vlarb_pair))
		return -1;
	req->present |= QOS_BIT(field);
	return 0;
}

static int parse_pfc(const char *val, struct qos_cfg *req)
{
	char *copy, *tok, *save = NULL;
	unsigned long p;
	int err = 0;

	if (!val)
		return bad("pfc", "a value is missing (PRIO,... or none)");
	req->pfc = 0;
	req->present |= QOS_BIT(FABRIQ_QOS_F_PFC);
	if (!strcmp(val, "none"))
		return 0;
	copy = strdup(val);
	if (!copy)
		return bad("pfc", "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (num(tok, FABRIQ_QOS_NUM_PRIO - 1, &p)) {
			err = bad("pfc", "priority '%s' is out of range (valid: 0-7, or none)", tok);
			break;
		}
		req->pfc |= 1u << p;
	}
	free(copy);
	return err;
}

static int parse_ets(int argc, char **argv, const struct qos_cfg *eff, struct qos_cfg *req)
{
	int used = 0;

	while (argc - used >= 1) {
		const char *sub = argv[used];
		const char *val = argc - used >= 2 ? argv[used + 1] : NULL;
		struct map_ctx m = { NULL, "priority", "TC", 7, 7 };
		const uint8_t *cur;
		int field;

		if (!strcmp(sub, "prio-tc")) {
			field = FABRIQ_QOS_F_ETS_PRIO_TC;
			m.map = req->prio_tc;
			cur = eff->prio_tc;
		} else if (!strcmp(sub, "tc-bw")) {
			field = FABRIQ_QOS_F_ETS_TC_BW;
			m.map = req->tc_bw;
			cur = eff->tc_bw;
			m.kname = "TC";
			m.vname = "bandwidth";
			m.vmax = 100;
		} else if (!strcmp(sub, "tc-tsa")) {
			field = FABRIQ_QOS_F_ETS_TC_TSA;
			m.map = req->tc_tsa;
			cur = eff->tc_tsa;
		} else {
			break;
		}
		/* the entries not named keep the port's current values */
		if (!(req->present & QOS_BIT(field)))
			memcpy(m.map, cur, FABRIQ_QOS_NUM_PRIO);
		if (field == FABRIQ_QOS_F_ETS_TC_TSA ?
		    pairs("ets tc-tsa", val, false, req->tc_tsa, tsa_pair) :
		    pairs(qos_field_names[field], val, false, &m, map_pair))
			return -1;
		req->present |= QOS_BIT(field);
		used += 2;
	}
	if (!used)
		return bad("ets", "expected prio-tc, tc-bw or tc-tsa");
	return used;
}

/* "prio P off" or "prio P min SIZE max SIZE prob PCT"; returns the words used. */
static int parse_ecn(int argc, char **argv, struct qos_cfg *req)
{
	struct qos_ecn e = { .enable = 1 };
	unsigned long p, v;
	bool have_min = false, have_max = false, have_prob = false;
	int i;

	if (argc < 2 || strcmp(argv[0], "prio"))
		return bad("ecn", "expected 'prio P' (P: 0-7)");
	if (num(argv[1], FABRIQ_QOS_NUM_PRIO - 1, &p))
		return bad("ecn", "priority '%s' is out of range (valid: 0-7)", argv[1]);
	if (argc >= 3 && !strcmp(argv[2], "off")) {
		memset(&req->ecn[p], 0, sizeof(req->ecn[p]));
		req->ecn_prios |= 1u << p;
		req->present |= QOS_BIT(FABRIQ_QOS_F_ECN);
		return 3;
	}
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "min") && !size_val(argv[i + 1], &e.min)) {
			have_min = true;
		} else if (!strcmp(argv[i], "max") && !size_val(argv[i + 1], &e.max)) {
			have_max = true;
		} else if (!strcmp(argv[i], "prob")) {
			if (num(argv[i + 1], 100, &v) || v < 1)
				return bad("ecn", "prob '%s' is out of range (valid: 1-100 percent)",
					   argv[i + 1]);
			e.prob = v;
			have_prob = true;
		} else if (!strcmp(argv[i], "min") || !strcmp(argv[i], "max")) {
			return bad("ecn", "%s '%s' is not a size (valid: 0-4294967295 bytes, K and M suffixes)",
				   argv[i], argv[i + 1]);
		} else {
			break;
		}
	}
	if (!have_min || !have_max || !have_prob)
		return bad("ecn", "prio %lu needs min SIZE max SIZE prob PCT, or off", p);
	if (e.min > e.max)
		return bad("ecn", "min %u is above max %u (valid: min <= max)", e.min, e.max);
	req->ecn[p] = e;
	req->ecn_prios |= 1u << p;
	req->present |= QOS_BIT(FABRIQ_QOS_F_ECN);
	return i;
}

static int parse_byte(const char *field, const char *val, unsigned long max,
		      const char *range, uint8_t *out)
{
	unsigned long v;

	if (num(val, max, &v))
		return bad(field, "'%s' is out of range (valid: %s)", val ? val : "", range);
	*out = v;
	return 0;
}

static int parse_oper_vls(const char *val, const struct qos_port *cur, struct qos_cfg *req)
{
	unsigned long v;

	if (num(val, 15, &v) || (v != 1 && v != 2 && v != 4 && v != 8 && v != 15))
		return bad("oper-vls", "'%s' is not a VL count (valid: 1, 2, 4, 8 or 15)",
			   val ? val : "");
	if (cur && cur->vl_cap && v > cur->vl_cap)
		return bad("oper-vls", "%lu is above the port's VLCap (valid: up to %u)", v,
			   cur->vl_cap);
	req->oper_vls = v;
	req->present |= QOS_BIT(FABRIQ_QOS_F_OPER_VLS);
	return 0;
}

/* One FIELD VALUE... group at argv; returns the words used or -1. */
static int parse_one(int argc, char **argv, const struct qos_port *cur,
		     const struct qos_cfg *eff, struct qos_cfg *req)
{
	const char *k = argv[0], *v = argc > 1 ? argv[1] : NULL;
	struct map_ctx dscp = { req->dscp_prio, "DSCP", "priority", 63, 7 };
	int n;

	if (!strcmp(k, "sl2vl"))
		return parse_sl2vl(v, eff, req) ?: 2;
	if (!strcmp(k, "vlarb-high"))
		return parse_vlarb(FABRIQ_QOS_F_VLARB_HIGH, v, cur ? cur->vlarb_high_cap : 0,
				   req) ?: 2;
	if (!strcmp(k, "vlarb-low"))
		return parse_vlarb(FABRIQ_QOS_F_VLARB_LOW, v, cur ? cur->vlarb_low_cap : 0,
				   req) ?: 2;
	if (!strcmp(k, "vl-high-limit")) {
		req->present |= QOS_BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT);
		return parse_byte(k, v, 255, "0-255", &req->vl_high_limit) ?: 2;
	}
	if (!strcmp(k, "oper-vls"))
		return parse_oper_vls(v, cur, req) ?: 2;
	if (!strcmp(k, "pfc"))
		return parse_pfc(v, req) ?: 2;
	if (!strcmp(k, "trust")) {
		if (!v || (strcmp(v, "pcp") && strcmp(v, "dscp")))
			return bad(k, "'%s' is not a trust mode (valid: pcp, dscp)", v ? v : "");
		req->trust = !strcmp(v, "dscp") ? FABRIQ_QOS_TRUST_DSCP : FABRIQ_QOS_TRUST_PCP;
		req->present |= QOS_BIT(FABRIQ_QOS_F_TRUST);
		return 2;
	}
	if (!strcmp(k, "dscp-prio")) {
		memset(req->dscp_prio, FABRIQ_QOS_DSCP_NONE, sizeof(req->dscp_prio));
		req->present |= QOS_BIT(FABRIQ_QOS_F_DSCP_PRIO);
		return pairs(k, v, true, &dscp, map_pair) ?: 2;
	}
	if (!strcmp(k, "ets")) {
		n = parse_ets(argc - 1, argv + 1, eff, req);
		return n < 0 ? -1 : n + 1;
	}
	if (!strcmp(k, "ecn")) {
		n = parse_ecn(argc - 1, argv + 1, req);
		return n < 0 ? -1 : n + 1;
	}
	if (!strcmp(k, "tc")) {
		req->present |= QOS_BIT(FABRIQ_QOS_F_TCLASS);
		return parse_byte(k, v, 255, "0-255, the IP traffic class byte", &req->tclass) ?: 2;
	}
	if (!strcmp(k, "sl")) {
		req->present |= QOS_BIT(FABRIQ_QOS_F_SL);
		return parse_byte(k, v, 15, "0-15", &req->sl) ?: 2;
	}
	return bad(k, "unknown setting (valid: sl2vl, vlarb-high, vlarb-low, vl-high-limit, "
		   "oper-vls, pfc, trust, dscp-prio, ets, ecn, tc, sl)");
}

/*
 * Parse "FIELD VALUE..." words into @req, merging partial maps into the
 * port's current values (@cur, may be NULL).  Errors go to stderr as
 * "fabriq: <where>: <field>: <what> (valid: <range>)".  Returns 0 or -1.
 */
int qos_parse_settings(int argc, char **argv, const struct qos_port *cur,
		       struct qos_cfg *req, const char *where)
{
	struct qos_cfg eff = {};
	int n;

	where_now = where;
	if (cur)
		qos_effective(cur, &eff);
	if (argc == 0) {
		fprintf(stderr, "%s: %s: no setting given (e.g. pfc 3 or sl2vl 0:1)\n", prog,
			where);
		return -1;
	}
	while (argc > 0) {
		n = parse_one(argc, argv, cur, &eff, req);
		if (n < 0)
			return -1;
		argc -= n;
		argv += n;
	}
	return 0;
}
