// SPDX-License-Identifier: GPL-2.0
/*
 * qos.c - fabriq's QoS intent: one per port, changed only by QOS_SET.
 *
 * Owns the intent store, the validation of a change against the port's
 * capabilities, applying it (qos_ib.c, qos_dcb.c, the ECN backends),
 * re-applying it when a device comes back or a port comes up, and the
 * periodic read-back that reports drift and incoherent settings on the
 * "events" group.
 *
 * Intents are keyed by device name and port, so they outlive the device:
 * delete and re-create a device with the same name and its intent returns.
 * Lock order: see qos.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "qos.h"

static unsigned int qos_check_ms = 1000;
module_param(qos_check_ms, uint, 0644);
MODULE_PARM_DESC(qos_check_ms,
		 "period of the QoS read-back that reports drift, in ms (0: off; default 1000)");

const char *const fabriq_qos_field_names[FABRIQ_QOS_F_NUM] = FABRIQ_QOS_FIELD_NAMES;

/* Where each field lives in struct fabriq_qos_cfg; ECN is per priority. */
const struct fabriq_qos_field_desc fabriq_qos_fields[FABRIQ_QOS_F_NUM] = {
	[FABRIQ_QOS_F_SL2VL] = { offsetof(struct fabriq_qos_cfg, sl2vl), FABRIQ_QOS_NUM_SL },
	[FABRIQ_QOS_F_VLARB_HIGH] = { offsetof(struct fabriq_qos_cfg, vlarb_high),
				      sizeof(struct fabriq_qos_vlarb) },
	[FABRIQ_QOS_F_VLARB_LOW] = { offsetof(struct fabriq_qos_cfg, vlarb_low),
				     sizeof(struct fabriq_qos_vlarb) },
	[FABRIQ_QOS_F_VL_HIGH_LIMIT] = { offsetof(struct fabriq_qos_cfg, vl_high_limit), 1 },
	[FABRIQ_QOS_F_OPER_VLS] = { offsetof(struct fabriq_qos_cfg, oper_vls), 1 },
	[FABRIQ_QOS_F_PFC] = { offsetof(struct fabriq_qos_cfg, pfc), 1 },
	[FABRIQ_QOS_F_TRUST] = { offsetof(struct fabriq_qos_cfg, trust), 1 },
	[FABRIQ_QOS_F_DSCP_PRIO] = { offsetof(struct fabriq_qos_cfg, dscp_prio),
				     FABRIQ_QOS_NUM_DSCP },
	[FABRIQ_QOS_F_ETS_PRIO_TC] = { offsetof(struct fabriq_qos_cfg, prio_tc),
				       FABRIQ_QOS_NUM_PRIO },
	[FABRIQ_QOS_F_ETS_TC_BW] = { offsetof(struct fabriq_qos_cfg, tc_bw), FABRIQ_QOS_NUM_PRIO },
	[FABRIQ_QOS_F_ETS_TC_TSA] = { offsetof(struct fabriq_qos_cfg, tc_tsa),
				      FABRIQ_QOS_NUM_PRIO },
	[FABRIQ_QOS_F_TCLASS] = { offsetof(struct fabriq_qos_cfg, tclass), 1 },
	[FABRIQ_QOS_F_SL] = { offsetof(struct fabriq_qos_cfg, sl), 1 },
};

#define FABRIQ_QOS_MSG_LEN	160

/**
 * struct fabriq_qos_intent - the intent of one port
 * @list: entry on fabriq_qos_intents
 * @dev_name: the device's name; follows renames
 * @port: port number
 * @cfg: the intended settings; only fields in @cfg.present
 * @drift: fields that differed from the hardware at the last check
 * @reapply: apply @cfg at the next check (device or port came back)
 * @reapply_failed: the last re-apply failed (and was reported)
 * @warning: why the settings disagree with each other, or ""
 */
struct fabriq_qos_intent {
	struct list_head list;
	char dev_name[FABRIQ_DEV_NAME_MAX];
	u32 port;
	struct fabriq_qos_cfg cfg;
	u32 drift;
	bool reapply;
	bool reapply_failed;
	char warning[FABRIQ_QOS_MSG_LEN];
};

/* Scratch space too large for the stack. */
struct fabriq_qos_work_area {
	struct fabriq_qos_cfg hw;
	struct fabriq_qos_cfg cand;
	struct fabriq_qos_caps caps;
	char msg[FABRIQ_QOS_MSG_LEN];
	char a[FABRIQ_QOS_MSG_LEN];
	char b[FABRIQ_QOS_MSG_LEN];
};

/* protects fabriq_qos_intents and every intent; see qos.h for the order */
static DEFINE_MUTEX(fabriq_qos_lock);
static LIST_HEAD(fabriq_qos_intents);
static struct delayed_work fabriq_qos_check_work;
static bool fabriq_qos_stopping;

static struct fabriq_qos_intent *fabriq_qos_find(const char *dev_name, u32 port)
{
	struct fabriq_qos_intent *it;

	lockdep_assert_held(&fabriq_qos_lock);
	list_for_each_entry(it, &fabriq_qos_intents, list)
		if (it->port == port && !strcmp(it->dev_name, dev_name))
			return it;
	return NULL;
}

static void fabriq_qos_kick(unsigned long delay)
{
	if (!READ_ONCE(fabriq_qos_stopping))
		mod_delayed_work(system_wq, &fabriq_qos_check_work, delay);
}

/* ---- text of a field, for drift messages and debugfs ---- */

static const char *fabriq_qos_tsa_name(u8 tsa)
{
	switch (tsa) {
	case FABRIQ_QOS_TSA_STRICT: return "strict";
	case FABRIQ_QOS_TSA_CBS: return "cbs";
	case FABRIQ_QOS_TSA_ETS: return "ets";
	case FABRIQ_QOS_TSA_VENDOR: return "vendor";
	default: return "unknown";
	}
}

/* Append "i:v" for @n entries of @v, skipping values equal to @skip. */
static int fabriq_qos_fmt_map(char *buf, size_t len, const u8 *v, int n, int skip)
{
	int i, off = 0;

	for (i = 0; i < n; i++)
		if (v[i] != skip)
			off += scnprintf(buf + off, len - off, "%s%d:%u", off ? "," : "", i, v[i]);
	if (!off)
		off = scnprintf(buf, len, "none");
	return off;
}

static void fabriq_qos_fmt_vlarb(char *buf, size_t len, const struct fabriq_qos_vlarb *t)
{
	int i, off = 0;

	for (i = 0; i < t->len; i++)
		off += scnprintf(buf + off, len - off, "%s%u:%u", off ? "," : "",
				 t->e[i].vl, t->e[i].weight);
	if (!off)
		scnprintf(buf, len, "none");
}

static void fabriq_qos_fmt_ecn(char *buf, size_t len, const struct fabriq_qos_cfg *c,
			       u8 prios)
{
	int p, off = 0;

	for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++) {
		const struct fabriq_ecn_prio *e = &c->ecn[p];

		if (!(prios & BIT(p)))
			continue;
		if (e->enable)
			off += scnprintf(buf + off, len - off, "%sprio %d min %u max %u prob %u",
					 off ? "; " : "", p, e->min_bytes, e->max_bytes,
					 e->max_prob);
		else
			off += scnprintf(buf + off, len - off, "%sprio %d off", off ? "; " : "", p);
	}
	if (!off)
		scnprintf(buf, len, "none");
}

/**
 * fabriq_qos_fmt_field() - one field of a config as text
 * @buf: receives the text ("-" when the field is not in @c)
 * @len: size of @buf
 * @c: the config
 * @f: enum fabriq_qos_field
 * @ecn_prios: for FABRIQ_QOS_F_ECN: which priorities to show
 */
static void fabriq_qos_fmt_field(char *buf, size_t len, const struct fabriq_qos_cfg *c,
				 int f, u8 ecn_prios)
{
	int i, off = 0;

	if (!(c->present & BIT(f))) {
		scnprintf(buf, len, "-");
		return;
	}
	switch (f) {
	case FABRIQ_QOS_F_SL2VL:
		fabriq_qos_fmt_map(buf, len, c->sl2vl, FABRIQ_QOS_NUM_SL, -1);
		break;
	case FABRIQ_QOS_F_VLARB_HIGH:
		fabriq_qos_fmt_vlarb(buf, len, &c->vlarb_high);
		break;
	case FABRIQ_QOS_F_VLARB_LOW:
		fabriq_qos_fmt_vlarb(buf, len, &c->vlarb_low);
		break;
	case FABRIQ_QOS_F_VL_HIGH_LIMIT:
		scnprintf(buf, len, "%u", c->vl_high_limit);
		break;
	case FABRIQ_QOS_F_OPER_VLS:
		scnprintf(buf, len, "%u", c->oper_vls);
		break;
	case FABRIQ_QOS_F_PFC:
		for (i = 0; i < FABRIQ_QOS_NUM_PRIO; i++)
			if (c->pfc & BIT(i))
				off += scnprintf(buf + off, len - off, "%s%d", off ? "," : "", i);
		if (!off)
			scnprintf(buf, len, "none");
		break;
	case FABRIQ_QOS_F_TRUST:
		scnprintf(buf, len, "%s", c->trust == FABRIQ_QOS_TRUST_DSCP ? "dscp" : "pcp");
		break;
	case FABRIQ_QOS_F_DSCP_PRIO:
		fabriq_qos_fmt_map(buf, len, c->dscp_prio, FABRIQ_QOS_NUM_DSCP,
				   FABRIQ_QOS_DSCP_NONE);
		break;
	case FABRIQ_QOS_F_ETS_PRIO_TC:
		fabriq_qos_fmt_map(buf, len, c->prio_tc, FABRIQ_QOS_NUM_PRIO, -1);
		break;
	case FABRIQ_QOS_F_ETS_TC_BW:
		fabriq_qos_fmt_map(buf, len, c->tc_bw, FABRIQ_QOS_NUM_PRIO, -1);
		break;
	case FABRIQ_QOS_F_ETS_TC_TSA:
		for (i = 0; i < FABRIQ_QOS_NUM_PRIO; i++)
			off += scnprintf(buf + off, len - off, "%s%d:%s", off ? "," : "", i,
					 fabriq_qos_tsa_name(c->tc_tsa[i]));
		break;
	case FABRIQ_QOS_F_ECN:
		fabriq_qos_fmt_ecn(buf, len, c, ecn_prios);
		break;
	case FABRIQ_QOS_F_TCLASS:
		scnprintf(buf, len, "%u", c->tclass);
		break;
	case FABRIQ_QOS_F_SL:
		scnprintf(buf, len, "%u", c->sl);
		break;
	}
}

/* ---- comparing, merging, validating ---- */

static bool fabriq_qos_ecn_eq(const struct fabriq_ecn_prio *a, const struct fabriq_ecn_prio *b)
{
	if (a->enable != b->enable)
		return false;
	return !a->enable || (a->min_bytes == b->min_bytes && a->max_bytes == b->max_bytes &&
			      a->max_prob == b->max_prob);
}

static bool fabriq_qos_field_eq(const struct fabriq_qos_cfg *a, const struct fabriq_qos_cfg *b,
				int f)
{
	const struct fabriq_qos_field_desc *d = &fabriq_qos_fields[f];
	int p;

	if (f != FABRIQ_QOS_F_ECN)
		return !memcmp((const u8 *)a + d->off, (const u8 *)b + d->off, d->len);
	/* only the priorities the intent names */
	for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++)
		if ((a->ecn_prios & BIT(p)) &&
		    (!(b->ecn_prios & BIT(p)) || !fabriq_qos_ecn_eq(&a->ecn[p], &b->ecn[p])))
			return false;
	return true;
}

/**
 * fabriq_qos_diff() - the fields of @intent that the hardware does not hold
 * @intent: the intent
 * @hw: what was read back; fields it could not read never count as drift
 *
 * Return: a bitmask of enum fabriq_qos_field.
 */
static u32 fabriq_qos_diff(const struct fabriq_qos_cfg *intent,
			   const struct fabriq_qos_cfg *hw)
{
	u32 fields = intent->present & hw->present & ~FABRIQ_QOS_SOFT_FIELDS;
	u32 drift = 0;
	int f;

	for (f = 0; f < FABRIQ_QOS_F_NUM; f++)
		if ((fields & BIT(f)) && !fabriq_qos_field_eq(intent, hw, f))
			drift |= BIT(f);
	return drift;
}

/* Copy the fields of @req into @dst; ECN merges per priority. */
static void fabriq_qos_merge(struct fabriq_qos_cfg *dst, const struct fabriq_qos_cfg *req)
{
	int f, p;

	for (f = 0; f < FABRIQ_QOS_F_NUM; f++) {
		const struct fabriq_qos_field_desc *d = &fabriq_qos_fields[f];

		if ((req->present & BIT(f)) && d->len)
			memcpy((u8 *)dst + d->off, (const u8 *)req + d->off, d->len);
	}
	if (req->present & BIT(FABRIQ_QOS_F_ECN)) {
		if (!(dst->present & BIT(FABRIQ_QOS_F_ECN)))
			dst->ecn_prios = 0;
		for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++)
			if (req->ecn_prios & BIT(p))
				dst->ecn[p] = req->ecn[p];
		dst->ecn_prios |= req->ecn_prios;
	}
	dst->present |= req->present;
}

/* A setting given for the other link layer, by field. */
static const char *const fabriq_qos_wrong_port_msgs[FABRIQ_QOS_F_NUM] = {
	[FABRIQ_QOS_F_SL2VL] = "sl2vl is an InfiniBand setting; this port is Ethernet",
	[FABRIQ_QOS_F_VLARB_HIGH] = "vlarb-high is an InfiniBand setting; this port is Ethernet",
	[FABRIQ_QOS_F_VLARB_LOW] = "vlarb-low is an InfiniBand setting; this port is Ethernet",
	[FABRIQ_QOS_F_VL_HIGH_LIMIT] =
		"vl-high-limit is an InfiniBand setting; this port is Ethernet",
	[FABRIQ_QOS_F_OPER_VLS] = "oper-vls is an InfiniBand setting; this port is Ethernet",
	[FABRIQ_QOS_F_SL] = "sl is an InfiniBand setting; this port is Ethernet",
	[FABRIQ_QOS_F_PFC] = "pfc is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_TRUST] = "trust is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_DSCP_PRIO] = "dscp-prio is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_ETS_PRIO_TC] = "ets prio-tc is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_ETS_TC_BW] = "ets tc-bw is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_ETS_TC_TSA] = "ets tc-tsa is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_ECN] = "ecn is a RoCE setting; this port is InfiniBand",
	[FABRIQ_QOS_F_TCLASS] = "tc is a RoCE setting; this port is InfiniBand",
};

static int fabriq_qos_validate(const struct fabriq_qos_port_kind *kind,
			       const struct fabriq_qos_cfg *c, u32 fields,
			       const struct fabriq_qos_cfg *hw,
			       const struct fabriq_qos_caps *caps,
			       struct netlink_ext_ack *extack)
{
	u32 wrong = fields & ~kind->fields, seen = 0, mine;
	const struct fabriq_qos_ops *ops;
	int i, err;

	if (wrong) {
		fabriq_extack_msg(extack, fabriq_qos_wrong_port_msgs[__ffs(wrong)]);
		return -EINVAL;
	}
	/* each field is judged by the first backend that can program it */
	for (i = 0; (ops = kind->ops[i]); i++) {
		mine = fields & ops->fields & ~seen;
		seen |= ops->fields;
		if (mine && ops->validate) {
			err = ops->validate(c, mine, hw, caps, extack);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- hardware, through the port's backends ---- */

/*
 * Hold what the backends of @port need; a RoCE port's netdev is looked up
 * now (it may come and go).  Release with fabriq_qos_hwport_put().
 * Context: fdev->lock held, ibdev present.
 */
static const struct fabriq_qos_port_kind *
fabriq_qos_hwport_get(struct fabriq_dev *fdev, struct fabriq_port *port,
		      struct fabriq_qos_hwport *hp)
{
	const struct fabriq_qos_port_kind *kind = fabriq_qos_port_kind(port);

	hp->ibdev = fdev->ibdev;
	hp->port = port->num;
	hp->ndev = kind->netdev ? fabriq_port_netdev(fdev->ibdev, port->num) : NULL;
	return kind;
}

static void fabriq_qos_hwport_put(struct fabriq_qos_hwport *hp)
{
	dev_put(hp->ndev);
	hp->ndev = NULL;
}

static int fabriq_qos_read_backends(const struct fabriq_qos_port_kind *kind,
				    const struct fabriq_qos_hwport *hp,
				    struct fabriq_qos_cfg *hw, struct fabriq_qos_caps *caps)
{
	const struct fabriq_qos_ops *ops;
	int i, err;

	memset(hw, 0, sizeof(*hw));
	memset(caps, 0, sizeof(*caps));
	caps->link_layer = kind->link_layer;
	if (hp->ndev)
		strscpy(caps->netdev, hp->ndev->name, sizeof(caps->netdev));
	for (i = 0; (ops = kind->ops[i]); i++) {
		err = ops->read(hp, ops->fields & ~caps->owned_all, hw, caps, &caps->owned[i]);
		if (err)
			return err;
		caps->owned_all |= caps->owned[i];
	}
	caps->trust = caps->owned_all & BIT(FABRIQ_QOS_F_TRUST);
	return 0;
}

/*
 * Read @port's state into @hw and @caps: every backend in turn, each
 * reading the fields no backend before it owns.  Every read, and its
 * error, becomes the port's snapshot for unprivileged readers.
 * Context: fdev->lock held.
 */
static int fabriq_qos_read_hw(struct fabriq_port *port, const struct fabriq_qos_port_kind *kind,
			      const struct fabriq_qos_hwport *hp,
			      struct fabriq_qos_cfg *hw, struct fabriq_qos_caps *caps)
{
	struct fabriq_qos_port *qp = fabriq_qos_port(port);
	int err = fabriq_qos_read_backends(kind, hp, hw, caps);

	qp->snap_valid = true;
	qp->snap_time = jiffies;
	qp->snap_err = err;
	qp->snap_hw = *hw;
	qp->snap_caps = *caps;
	return err;
}

/*
 * Program @fields of @cfg, each through the backend that owns it, in the
 * kind's order.  Context: fdev->lock held, @caps read with @old.
 */
static int fabriq_qos_write_hw(const struct fabriq_qos_port_kind *kind,
			       const struct fabriq_qos_hwport *hp,
			       const struct fabriq_qos_cfg *cfg, u32 fields,
			       const struct fabriq_qos_cfg *old,
			       const struct fabriq_qos_caps *caps,
			       struct netlink_ext_ack *extack)
{
	const struct fabriq_qos_ops *ops;
	u32 mine;
	int i, err;

	for (i = 0; (ops = kind->ops[i]); i++) {
		mine = fields & caps->owned[i];
		if (!mine)
			continue;
		err = ops->write(hp, cfg, mine, old, caps, extack);
		if (err)
			return err;
	}
	return 0;
}

/* ---- coherence ---- */

/*
 * fabriq's RoCE traffic must land on a lossless priority: with PFC on
 * somewhere, the priority its DSCP maps to (trust dscp) must be one of
 * them.  Returns false and explains in @msg when it is not.
 */
static bool fabriq_qos_coherent(const struct fabriq_qos_cfg *intent,
				const struct fabriq_qos_cfg *hw, char *msg, size_t len)
{
	u8 pfc, trust, dscp, prio;

	if (!(intent->present & BIT(FABRIQ_QOS_F_TCLASS)))
		return true;
	pfc = fabriq_qos_src(hw, intent, FABRIQ_QOS_F_PFC)->pfc;
	trust = fabriq_qos_src(hw, intent, FABRIQ_QOS_F_TRUST)->trust;
	if (!pfc || trust != FABRIQ_QOS_TRUST_DSCP || !(hw->present & BIT(FABRIQ_QOS_F_DSCP_PRIO)))
		return true;
	dscp = intent->tclass >> 2;
	prio = hw->dscp_prio[dscp];
	if (prio == FABRIQ_QOS_DSCP_NONE) {
		if (pfc & BIT(0))
			return true;
		scnprintf(msg, len,
			  "tc %u is DSCP %u, which has no dscp-prio entry and travels on priority 0, where PFC is off",
			  intent->tclass, dscp);
		return false;
	}
	if (pfc & BIT(prio))
		return true;
	scnprintf(msg, len,
		  "tc %u is DSCP %u, which maps to priority %u, where PFC is off (pfc mask 0x%02x)",
		  intent->tclass, dscp, prio, pfc);
	return false;
}

/* Report a new incoherence once; forget it when it ends.  Context: fabriq_qos_lock. */
static void fabriq_qos_check_coherence(struct fabriq_qos_intent *it,
				       const struct fabriq_qos_cfg *hw, char *msg)
{
	msg[0] = '\0';
	if (fabriq_qos_coherent(&it->cfg, hw, msg, FABRIQ_QOS_MSG_LEN)) {
		it->warning[0] = '\0';
		return;
	}
	if (!strcmp(it->warning, msg))
		return;
	strscpy(it->warning, msg, sizeof(it->warning));
	pr_info("%s port %u: %s\n", it->dev_name, it->port, msg);
	fabriq_nl_qos_notify(FABRIQ_CMD_QOS_WARN_NTF, it->dev_name, it->port, 0, "tc", msg);
}

/* ---- set and get ---- */

/**
 * fabriq_qos_set() - validate a change to a port's intent and apply it
 * @fdev: the device (a reference is held)
 * @port: the port
 * @req: the fields to change (@req->present)
 * @validate_only: only check; change nothing
 * @extack: for the reason of a refusal
 *
 * The change is validated as a whole against the port's capabilities
 * before anything is written.  If the device then refuses part of it, what
 * was written is put back as it was read, and the intent stays unchanged.
 *
 * Context: process context.  Return: 0 or a negative errno.
 */
int fabriq_qos_set(struct fabriq_dev *fdev, struct fabriq_port *port,
		   const struct fabriq_qos_cfg *req, bool validate_only,
		   struct netlink_ext_ack *extack)
{
	const struct fabriq_qos_port_kind *kind = NULL;
	struct fabriq_qos_intent *it, *fresh = NULL;
	struct fabriq_qos_hwport hp = {};
	struct fabriq_qos_work_area *wa;
	int err;

	wa = kzalloc(sizeof(*wa), GFP_KERNEL);
	if (!validate_only)
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!wa || (!validate_only && !fresh)) {
		err = -ENOMEM;
		goto out_free;
	}

	mutex_lock(&fabriq_qos_lock);
	mutex_lock(&fdev->lock);
	if (!fdev->ibdev) {
		NL_SET_ERR_MSG(extack, "the device was removed");
		err = -ENODEV;
		goto out_unlock;
	}
	kind = fabriq_qos_hwport_get(fdev, port, &hp);
	err = fabriq_qos_read_hw(port, kind, &hp, &wa->hw, &wa->caps);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot read the port's QoS state from the device");
		goto out_unlock;
	}

	it = fabriq_qos_find(fdev->name, port->num);
	if (it)
		wa->cand = it->cfg;
	fabriq_qos_merge(&wa->cand, req);
	err = fabriq_qos_validate(kind, &wa->cand, req->present, &wa->hw, &wa->caps, extack);
	if (err || validate_only)
		goto out_unlock;

	err = fabriq_qos_write_hw(kind, &hp, &wa->cand, req->present, &wa->hw, &wa->caps,
				  extack);
	fabriq_qos_port(port)->snap_valid = false;	/* the hardware changed */
	if (err) {
		/* Put back what was read; the first error is the one reported. */
		fabriq_qos_write_hw(kind, &hp, &wa->hw, req->present & wa->hw.present,
				    &wa->hw, &wa->caps, NULL);
		goto out_unlock;
	}
	if (!it) {
		it = fresh;
		fresh = NULL;
		strscpy(it->dev_name, fdev->name, sizeof(it->dev_name));
		it->port = port->num;
		list_add_tail(&it->list, &fabriq_qos_intents);
	}
	it->cfg = wa->cand;
	it->drift &= ~req->present;
	it->reapply = false;
	/* Coherence is judged on what the hardware holds now. */
	if (!fabriq_qos_read_hw(port, kind, &hp, &wa->hw, &wa->caps))
		fabriq_qos_check_coherence(it, &wa->hw, wa->msg);

out_unlock:
	mutex_unlock(&fdev->lock);
	mutex_unlock(&fabriq_qos_lock);
	fabriq_qos_hwport_put(&hp);
out_free:
	kfree(fresh);
	kfree(wa);
	return err;
}

/**
 * fabriq_qos_get() - a port's intent, hardware state and capabilities
 * @fdev: the device (a reference is held)
 * @port: the port
 * @intent: receives the intent (present == 0 when there is none)
 * @hw: receives the state read back from the device
 * @caps: receives the port's capabilities
 * @drift: receives the fields of @intent that @hw does not hold
 * @warning: receives the current incoherence, or ""
 * @wlen: size of @warning
 * @fresh: read the hardware now; else a read younger than
 *         FABRIQ_QOS_SNAP_MS may serve (struct fabriq_qos_port)
 *
 * Context: process context.  Return: 0, -ENODEV, or the error of the read.
 */
int fabriq_qos_get(struct fabriq_dev *fdev, struct fabriq_port *port,
		   struct fabriq_qos_cfg *intent, struct fabriq_qos_cfg *hw,
		   struct fabriq_qos_caps *caps, u32 *drift, char *warning, size_t wlen,
		   bool fresh)
{
	struct fabriq_qos_port *qp = fabriq_qos_port(port);
	const struct fabriq_qos_port_kind *kind;
	struct fabriq_qos_hwport hp = {};
	struct fabriq_qos_intent *it;
	int err = -ENODEV;

	memset(intent, 0, sizeof(*intent));
	warning[0] = '\0';
	mutex_lock(&fabriq_qos_lock);
	mutex_lock(&fdev->lock);
	if (fdev->ibdev) {
		if (!fresh && qp->snap_valid &&
		    time_before(jiffies, qp->snap_time + msecs_to_jiffies(FABRIQ_QOS_SNAP_MS))) {
			*hw = qp->snap_hw;
			*caps = qp->snap_caps;
			err = qp->snap_err;
		} else {
			kind = fabriq_qos_hwport_get(fdev, port, &hp);
			err = fabriq_qos_read_hw(port, kind, &hp, hw, caps);
		}
		it = fabriq_qos_find(fdev->name, port->num);
		if (it) {
			*intent = it->cfg;
			strscpy(warning, it->warning, wlen);
		}
	}
	mutex_unlock(&fdev->lock);
	mutex_unlock(&fabriq_qos_lock);
	fabriq_qos_hwport_put(&hp);
	*drift = err ? 0 : fabriq_qos_diff(intent, hw);
	return err;
}

/*
 * A request to re-apply the intents of a device (all ports, or @port).
 * Requests are queued without fabriq_qos_lock: the check work holds that
 * lock while it takes rtnl_lock, and a device may be added by a thread
 * that holds rtnl_lock.
 */
struct fabriq_qos_mark_req {
	struct list_head list;
	char dev_name[FABRIQ_DEV_NAME_MAX];
	u32 port;
};

static DEFINE_SPINLOCK(fabriq_qos_marks_lock);
static LIST_HEAD(fabriq_qos_marks);

static void fabriq_qos_mark(const char *dev_name, u32 port)
{
	struct fabriq_qos_mark_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (!req)
		return;
	strscpy(req->dev_name, dev_name, sizeof(req->dev_name));
	req->port = port;
	spin_lock(&fabriq_qos_marks_lock);
	list_add_tail(&req->list, &fabriq_qos_marks);
	spin_unlock(&fabriq_qos_marks_lock);
	fabriq_qos_kick(0);
}

/* Turn the queued requests into reapply flags.  Context: fabriq_qos_lock held. */
static void fabriq_qos_take_marks(void)
{
	struct fabriq_qos_mark_req *req, *tmp;
	struct fabriq_qos_intent *it;
	LIST_HEAD(marks);

	lockdep_assert_held(&fabriq_qos_lock);
	spin_lock(&fabriq_qos_marks_lock);
	list_splice_init(&fabriq_qos_marks, &marks);
	spin_unlock(&fabriq_qos_marks_lock);
	list_for_each_entry_safe(req, tmp, &marks, list) {
		list_for_each_entry(it, &fabriq_qos_intents, list) {
			if (strcmp(it->dev_name, req->dev_name) ||
			    (req->port && it->port != req->port))
				continue;
			it->reapply = true;
			it->reapply_failed = false;
		}
		list_del(&req->list);
		kfree(req);
	}
}

/* ---- re-apply and drift ---- */

static void fabriq_qos_report_drift(struct fabriq_qos_intent *it, u32 drift,
				    const struct fabriq_qos_cfg *hw,
				    struct fabriq_qos_work_area *wa)
{
	u32 fresh = drift & ~it->drift;
	int f;

	it->drift = drift;
	for (f = 0; f < FABRIQ_QOS_F_NUM; f++) {
		if (!(fresh & BIT(f)))
			continue;
		fabriq_qos_fmt_field(wa->a, sizeof(wa->a), &it->cfg, f, it->cfg.ecn_prios);
		fabriq_qos_fmt_field(wa->b, sizeof(wa->b), hw, f, it->cfg.ecn_prios);
		scnprintf(wa->msg, sizeof(wa->msg), "%s: intent %s, hardware %s",
			  fabriq_qos_field_names[f], wa->a, wa->b);
		pr_info("%s port %u: qos drift: %s\n", it->dev_name, it->port, wa->msg);
		fabriq_nl_qos_notify(FABRIQ_CMD_QOS_DRIFT_NTF, it->dev_name, it->port, drift,
				     fabriq_qos_field_names[f], wa->msg);
	}
}

/* Re-apply or check one intent.  Context: fabriq_qos_lock held. */
static void fabriq_qos_check_one(struct fabriq_dev *fdev, struct fabriq_qos_intent *it,
				 struct fabriq_qos_work_area *wa)
{
	const struct fabriq_qos_port_kind *kind;
	struct netlink_ext_ack extack = {};
	struct fabriq_qos_hwport hp = {};
	struct fabriq_port *port;
	u32 fields;
	int err;

	mutex_lock(&fdev->lock);
	port = fabriq_dev_port(fdev, it->port);
	if (!fdev->ibdev || !port)
		goto out;
	kind = fabriq_qos_hwport_get(fdev, port, &hp);
	if (fabriq_qos_read_hw(port, kind, &hp, &wa->hw, &wa->caps))
		goto out;

	if (it->reapply) {
		fields = it->cfg.present;
		err = fabriq_qos_validate(kind, &it->cfg, fields, &wa->hw, &wa->caps, &extack);
		if (!err)
			err = fabriq_qos_write_hw(kind, &hp, &it->cfg, fields, &wa->hw, &wa->caps,
						  &extack);
		fabriq_qos_port(port)->snap_valid = false;
		if (err && !it->reapply_failed) {
			/*
			 * A device that just came back may not be complete yet
			 * (its netdev is found through the GID table on 6.1):
			 * say so once, and try again at every check.
			 */
			scnprintf(wa->msg, sizeof(wa->msg),
				  "cannot re-apply the intent yet: %s (%d)",
				  extack._msg ? extack._msg : "error", err);
			pr_warn("%s port %u: %s\n", it->dev_name, it->port, wa->msg);
			fabriq_nl_qos_notify(FABRIQ_CMD_QOS_WARN_NTF, it->dev_name, it->port, 0,
					     NULL, wa->msg);
		} else if (!err) {
			pr_info("%s port %u: QoS intent re-applied\n", it->dev_name, it->port);
			it->reapply = false;
		}
		it->reapply_failed = err;
		if (fabriq_qos_read_hw(port, kind, &hp, &wa->hw, &wa->caps))
			goto out;
	}
	fabriq_qos_report_drift(it, fabriq_qos_diff(&it->cfg, &wa->hw), &wa->hw, wa);
	fabriq_qos_check_coherence(it, &wa->hw, wa->msg);
out:
	mutex_unlock(&fdev->lock);
	fabriq_qos_hwport_put(&hp);
}

static void fabriq_qos_check(struct work_struct *work)
{
	struct fabriq_qos_work_area *wa;
	struct fabriq_qos_intent *it;
	struct fabriq_dev *fdev;
	unsigned int period;

	wa = kmalloc(sizeof(*wa), GFP_KERNEL);
	if (wa) {
		mutex_lock(&fabriq_qos_lock);
		fabriq_qos_take_marks();
		list_for_each_entry(it, &fabriq_qos_intents, list) {
			fdev = fabriq_dev_get_by_name(it->dev_name);
			if (!fdev)
				continue;
			fabriq_qos_check_one(fdev, it, wa);
			fabriq_dev_put(fdev);
		}
		mutex_unlock(&fabriq_qos_lock);
		kfree(wa);
	}
	/* queue, not mod: a kick that came in while this ran stays due now */
	period = READ_ONCE(qos_check_ms);
	if (period && !READ_ONCE(fabriq_qos_stopping))
		queue_delayed_work(system_wq, &fabriq_qos_check_work, msecs_to_jiffies(period));
}

/**
 * fabriq_qos_dev_added() - a device (re)appeared: re-apply its intents
 * @fdev: the device
 *
 * Context: process context; no fabriq lock held; rtnl_lock may be held.
 */
void fabriq_qos_dev_added(struct fabriq_dev *fdev)
{
	/* not fdev->lock: the qos check holds it while it takes rtnl_lock */
	fabriq_qos_mark(dev_name(&fdev->ibdev->dev), 0);
}

/**
 * fabriq_qos_port_active() - a port came up: re-apply its intent
 * @fdev: the device
 * @port: the port
 *
 * Context: process context; no fabriq lock held.
 */
void fabriq_qos_port_active(struct fabriq_dev *fdev, struct fabriq_port *port)
{
	char name[FABRIQ_DEV_NAME_MAX];

	mutex_lock(&fdev->lock);
	strscpy(name, fdev->name, sizeof(name));
	mutex_unlock(&fdev->lock);
	fabriq_qos_mark(name, port->num);
}

/**
 * fabriq_qos_dev_renamed() - intents follow their device's new name
 * @fdev: the device, with its new name stored
 * @old_name: the name before
 *
 * Context: process context; no fabriq lock held.
 */
void fabriq_qos_dev_renamed(struct fabriq_dev *fdev, const char *old_name)
{
	struct fabriq_qos_intent *it;
	char new_name[FABRIQ_DEV_NAME_MAX];

	mutex_lock(&fdev->lock);
	strscpy(new_name, fdev->name, sizeof(new_name));
	mutex_unlock(&fdev->lock);
	mutex_lock(&fabriq_qos_lock);
	list_for_each_entry(it, &fabriq_qos_intents, list)
		if (!strcmp(it->dev_name, old_name))
			strscpy(it->dev_name, new_name, sizeof(it->dev_name));
	mutex_unlock(&fabriq_qos_lock);
}

/**
 * fabriq_qos_path_intent() - the class of service fabriq's own connections
 * ask for on a port: its "tc" and "sl" intents
 * @dev_name: the device
 * @port: the port
 * @want: filled with the intents the port has (none: nothing set)
 *
 * Context: process context.
 */
void fabriq_qos_path_intent(const char *dev_name, u32 port, struct fabriq_qos_path *want)
{
	struct fabriq_qos_intent *it;

	*want = (struct fabriq_qos_path){ };
	mutex_lock(&fabriq_qos_lock);
	it = fabriq_qos_find(dev_name, port);
	if (it) {
		want->has_tclass = it->cfg.present & BIT(FABRIQ_QOS_F_TCLASS);
		want->tclass = want->has_tclass ? it->cfg.tclass : 0;
		want->has_sl = it->cfg.present & BIT(FABRIQ_QOS_F_SL);
		want->sl = want->has_sl ? it->cfg.sl : 0;
	}
	mutex_unlock(&fabriq_qos_lock);
}

/**
 * fabriq_qos_debugfs_show() - a port's QoS as a table: intent, hardware, drift
 * @s: the seq_file
 * @fdev: the device
 * @port: the port
 *
 * Context: process context.  Return: 0 or a negative errno.
 */
int fabriq_qos_debugfs_show(struct seq_file *s, struct fabriq_dev *fdev,
			    struct fabriq_port *port)
{
	const struct fabriq_qos_port_kind *kind = fabriq_qos_port_kind(port);
	struct fabriq_qos_cfg *intent;
	struct fabriq_qos_work_area *wa;
	u32 drift;
	int i, f, err;

	wa = kzalloc(sizeof(*wa), GFP_KERNEL);
	intent = kzalloc(sizeof(*intent), GFP_KERNEL);
	err = -ENOMEM;
	if (!wa || !intent)
		goto out;
	err = fabriq_qos_get(fdev, port, intent, &wa->hw, &wa->caps, &drift, wa->msg,
			     sizeof(wa->msg), true);
	if (err)
		goto out;
	seq_printf(s, "%-14s %-40s %-40s %s\n", "field", "intent", "hardware", "drift");
	for (f = 0; f < FABRIQ_QOS_F_NUM; f++) {
		if (!(kind->fields & BIT(f)))
			continue;
		fabriq_qos_fmt_field(wa->a, sizeof(wa->a), intent, f,
				     intent->ecn_prios ? intent->ecn_prios : wa->hw.ecn_prios);
		fabriq_qos_fmt_field(wa->b, sizeof(wa->b), &wa->hw, f,
				     intent->ecn_prios ? intent->ecn_prios : wa->hw.ecn_prios);
		seq_printf(s, "%-14s %-40s %-40s %s\n", fabriq_qos_field_names[f], wa->a,
			   (FABRIQ_QOS_SOFT_FIELDS & BIT(f)) ? "(fabriq)" : wa->b,
			   drift & BIT(f) ? "DRIFT" : "");
	}
	for (i = 0; kind->ops[i]; i++)
		if (kind->ops[i]->show_caps)
			kind->ops[i]->show_caps(s, &wa->caps);
	seq_printf(s, "warning %s\n", wa->msg[0] ? wa->msg : "-");
out:
	kfree(intent);
	kfree(wa);
	return err;
}

/**
 * fabriq_qos_init() - start the periodic read-back
 *
 * Context: module init.  Return: 0 or a negative errno.
 */
int fabriq_qos_init(void)
{
	INIT_DELAYED_WORK(&fabriq_qos_check_work, fabriq_qos_check);
	fabriq_qos_kick(msecs_to_jiffies(qos_check_ms ? qos_check_ms : 1000));
	return 0;
}

/**
 * fabriq_qos_exit() - stop the read-back and forget every intent
 *
 * Context: module exit, after the ib_client is gone.
 */
void fabriq_qos_exit(void)
{
	struct fabriq_qos_intent *it, *tmp;

	WRITE_ONCE(fabriq_qos_stopping, true);
	cancel_delayed_work_sync(&fabriq_qos_check_work);
	mutex_lock(&fabriq_qos_lock);
	fabriq_qos_take_marks();
	mutex_unlock(&fabriq_qos_lock);
	list_for_each_entry_safe(it, tmp, &fabriq_qos_intents, list) {
		list_del(&it->list);
		kfree(it);
	}
}
