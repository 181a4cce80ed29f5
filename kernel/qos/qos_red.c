// SPDX-License-Identifier: GPL-2.0
/*
 * qos_red.c - ECN thresholds on a netdev whose driver has no QoS backend:
 * real ECN marking in the netdev's egress queueing, as tc(8) would build:
 *
 *   root   prio   handle fab1:  8 bands, skb priority n -> band n (8-15 -> 0)
 *   band n red    handle fa0<n+1>:  ecn nodrop, thresholds of priority n
 *
 * RED marks and never drops (nodrop: a packet that is not ECN-capable is
 * queued): RoCE's class is meant to be lossless, and Soft-RoCE fails a QP
 * whose packet the qdisc refused.
 *
 * Bands of priorities without ECN keep prio's default pfifo child.
 *
 * There is no exported in-kernel API to create qdiscs, so fabriq speaks
 * rtnetlink to them as tc does (core/tc.c); the core checks CAP_NET_ADMIN
 * of the caller as for tc.  A root qdisc that fabriq did not create is never
 * replaced.  RED's W, P and idle-damping table are derived from the
 * thresholds the way tc(8) derives them (avpkt 1000, 10 Gb/s).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "core/tc.h"
#include "qos.h"

#define FABRIQ_RED_ROOT		0xfab10000U
#define FABRIQ_RED_CHILD(band)	((0xfa01U + (band)) << 16)
#define FABRIQ_RED_AVPKT	1000
#define FABRIQ_RED_XMIT_NS	800		/* FABRIQ_RED_AVPKT bytes at 10 Gb/s */
#define FABRIQ_RED_STAB_SIZE	256
#define FABRIQ_Q32		BIT_ULL(32)

struct fabriq_red_parms {
	struct tc_red_qopt qopt;
	u32 max_p;
	u8 stab[FABRIQ_RED_STAB_SIZE];
};

/* tc's tc_red_eval_ewma(): the smallest Wlog whose EWMA reaches qmin within burst. */
static u8 fabriq_red_wlog(u32 qmin, u32 qmax)
{
	u64 burst = ((u64)2 * qmin + qmax) / (3 * FABRIQ_RED_AVPKT);
	u64 a, p, f;
	u8 wlog, max_wlog = 31 - fls(qmax);
	u64 i;

	burst = max_t(u64, burst, qmin / FABRIQ_RED_AVPKT + 1);
	a = burst + 1 - qmin / FABRIQ_RED_AVPKT;
	for (wlog = 1; wlog < max_wlog; wlog++) {
		/* f = (1 - (1 - W)^burst) / W with W = 2^-wlog, in Q32 */
		p = FABRIQ_Q32;
		for (i = 0; i < burst && p; i++)
			p = (p * (FABRIQ_Q32 - (FABRIQ_Q32 >> wlog))) >> 32;
		f = (FABRIQ_Q32 - p) << wlog;
		if (a * FABRIQ_Q32 <= f)
			return wlog;
	}
	return max_wlog;
}

/* tc's tc_red_eval_P(): Plog with max_P / (qmax - qmin) ~ 2^-Plog. */
static u8 fabriq_red_plog(u32 qmin, u32 qmax, u8 prob)
{
	u64 range = qmax - qmin;
	u8 i;

	if (!range)
		return 0;
	for (i = 0; i < 31; i++)
		if (((u64)prob << i) > 100 * range)
			break;
	return i;
}

/* -ln(1 - 2^-wlog) in Q32, by its series sum(W^k / k). */
static u64 fabriq_red_neg_ln(u8 wlog)
{
	u64 sum = 0;
	int k;

	for (k = 1; k * wlog <= 32; k++)
		sum += (FABRIQ_Q32 >> (k * wlog)) / k;
	return sum;
}

/* tc's tc_red_eval_idle_damping(): Scell_log and the table of idle shifts. */
static u8 fabriq_red_stab(u8 wlog, u8 *stab)
{
	/* lW: how much of the average idles away per microsecond, Q32 */
	u64 lw = div_u64(fabriq_red_neg_ln(wlog) * 1000, FABRIQ_RED_XMIT_NS);
	u64 maxtime = lw ? div64_u64(31 * FABRIQ_Q32, lw) : U32_MAX;	/* us */
	u8 clog;
	int i;

	for (clog = 0; clog < 31; clog++)
		if ((maxtime >> clog) < 512)
			break;
	stab[0] = 0;
	for (i = 1; i < FABRIQ_RED_STAB_SIZE; i++)
		stab[i] = min_t(u64, (((u64)i << clog) * lw) >> 32, 31);
	return clog;
}

static void fabriq_red_parms(const struct fabriq_ecn_prio *e, struct fabriq_red_parms *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp->qopt.qth_min = e->min_bytes;
	rp->qopt.qth_max = e->max_bytes;
	rp->qopt.limit = (u32)min_t(u64, (u64)e->max_bytes * 4 + 4 * FABRIQ_RED_AVPKT, U32_MAX);
	rp->qopt.Wlog = fabriq_red_wlog(e->min_bytes, e->max_bytes);
	rp->qopt.Plog = fabriq_red_plog(e->min_bytes, e->max_bytes, e->max_prob);
	rp->qopt.Scell_log = fabriq_red_stab(rp->qopt.Wlog, rp->stab);
	/* the flags go in TCA_RED_FLAGS (fabriq_tc_add_red()), not here */
	rp->max_p = e->max_prob == 100 ? U32_MAX :
		    (u32)div_u64((u64)e->max_prob * FABRIQ_Q32, 100);
}

static int fabriq_tc_add_prio(struct fabriq_rtnl *r, int ifindex)
{
	struct tc_prio_qopt qopt = { .bands = FABRIQ_QOS_NUM_PRIO };
	struct tcmsg *tcm;
	struct sk_buff *skb;
	int i;

	for (i = 0; i <= TC_PRIO_MAX; i++)
		qopt.priomap[i] = i < FABRIQ_QOS_NUM_PRIO ? i : 0;
	skb = fabriq_tc_msg(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, ifindex, TC_H_ROOT,
			    FABRIQ_RED_ROOT, &tcm);
	if (!skb)
		return -ENOMEM;
	if (nla_put_string(skb, TCA_KIND, "prio") ||
	    nla_put(skb, TCA_OPTIONS, sizeof(qopt), &qopt)) {
		kfree_skb(skb);
		return -EMSGSIZE;
	}
	return fabriq_tc_request(r, skb, NULL, NULL);
}

static int fabriq_tc_add_red(struct fabriq_rtnl *r, int ifindex, int band,
			     const struct fabriq_ecn_prio *e)
{
	/* mark, never drop: a packet that is not ECN-capable is queued too */
	const struct nla_bitfield32 flags = {
		.value = TC_RED_ECN | TC_RED_NODROP,
		.selector = TC_RED_ECN | TC_RED_NODROP,
	};
	struct fabriq_red_parms *rp;
	struct nlattr *opts;
	struct tcmsg *tcm;
	struct sk_buff *skb;
	int err = -ENOMEM;

	rp = kmalloc(sizeof(*rp), GFP_KERNEL);
	skb = fabriq_tc_msg(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, ifindex,
			    FABRIQ_RED_ROOT | (band + 1), FABRIQ_RED_CHILD(band), &tcm);
	if (!rp || !skb)
		goto out;
	fabriq_red_parms(e, rp);
	err = -EMSGSIZE;
	if (nla_put_string(skb, TCA_KIND, "red"))
		goto out;
	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts ||
	    nla_put(skb, TCA_RED_PARMS, sizeof(rp->qopt), &rp->qopt) ||
	    nla_put(skb, TCA_RED_STAB, sizeof(rp->stab), rp->stab) ||
	    nla_put_u32(skb, TCA_RED_MAX_P, rp->max_p) ||
	    nla_put(skb, TCA_RED_FLAGS, sizeof(flags), &flags))
		goto out;
	nla_nest_end(skb, opts);
	err = fabriq_tc_request(r, skb, NULL, NULL);
	skb = NULL;
out:
	kfree_skb(skb);
	kfree(rp);
	return err;
}

static int fabriq_tc_del_root(struct fabriq_rtnl *r, int ifindex)
{
	struct tcmsg *tcm;
	struct sk_buff *skb;

	skb = fabriq_tc_msg(RTM_DELQDISC, 0, ifindex, TC_H_ROOT, FABRIQ_RED_ROOT, &tcm);
	if (!skb)
		return -ENOMEM;
	return fabriq_tc_request(r, skb, NULL, NULL);
}

/**
 * fabriq_qos_red_write() - build the netdev's egress queueing for @cfg's ECN
 * @hp: the port; its netdev is the one to build on
 * @cfg: ECN per priority (@cfg->ecn_prios)
 * @fields: BIT(FABRIQ_QOS_F_ECN)
 * @old: unused
 * @caps: unused
 * @extack: for the reason of a refusal
 *
 * Rebuilds fabriq's qdiscs from scratch; with no priority enabled, the
 * netdev gets its default queueing back.
 *
 * Context: process context; rtnl_lock not held.  Return: 0 or a negative errno.
 */
static int fabriq_qos_red_write(const struct fabriq_qos_hwport *hp,
				const struct fabriq_qos_cfg *cfg, u32 fields,
				const struct fabriq_qos_cfg *old,
				const struct fabriq_qos_caps *caps,
				struct netlink_ext_ack *extack)
{
	struct net_device *ndev = hp->ndev;
	u32 root = fabriq_tc_root(ndev);
	struct fabriq_rtnl r;
	bool any = false;
	int p, err;

	if (root && root != FABRIQ_RED_ROOT) {
		NL_SET_ERR_MSG(extack, "ecn: the netdev has a root qdisc fabriq did not create");
		return -EBUSY;
	}
	for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++)
		if ((cfg->ecn_prios & BIT(p)) && cfg->ecn[p].enable)
			any = true;

	err = fabriq_rtnl_open(&r);
	if (err)
		return err;
	if (root == FABRIQ_RED_ROOT)
		err = fabriq_tc_del_root(&r, ndev->ifindex);
	if (err || !any)
		goto out;
	err = fabriq_tc_add_prio(&r, ndev->ifindex);
	for (p = 0; !err && p < FABRIQ_QOS_NUM_PRIO; p++)
		if ((cfg->ecn_prios & BIT(p)) && cfg->ecn[p].enable)
			err = fabriq_tc_add_red(&r, ndev->ifindex, p, &cfg->ecn[p]);
	if (err) {
		NL_SET_ERR_MSG(extack, "ecn: the kernel refused fabriq's RED qdiscs");
		fabriq_tc_del_root(&r, ndev->ifindex);
	}
out:
	fabriq_rtnl_close(&r);
	return err;
}

struct fabriq_red_read {
	int ifindex;
	struct fabriq_qos_cfg *hw;
};

/* One RTM_NEWQDISC of a dump: a RED child of fabriq's root fills its priority. */
static void fabriq_red_read_one(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[TCA_MAX + 1], *rtb[TCA_RED_MAX + 1];
	const struct tcmsg *tcm = nlmsg_data(nlh);
	struct fabriq_red_read *rr = arg;
	struct fabriq_qos_cfg *hw = rr->hw;
	const struct tc_red_qopt *qopt;
	struct fabriq_ecn_prio *e;
	u32 band;

	/* the dump covers every netdev */
	if (nlh->nlmsg_type != RTM_NEWQDISC || tcm->tcm_ifindex != rr->ifindex ||
	    TC_H_MAJ(tcm->tcm_parent) != FABRIQ_RED_ROOT)
		return;
	band = TC_H_MIN(tcm->tcm_parent) - 1;
	if (band >= FABRIQ_QOS_NUM_PRIO ||
	    nlmsg_parse_deprecated(nlh, sizeof(*tcm), tb, TCA_MAX, NULL, NULL) ||
	    !tb[TCA_KIND] || nla_strcmp(tb[TCA_KIND], "red") || !tb[TCA_OPTIONS] ||
	    nla_parse_nested_deprecated(rtb, TCA_RED_MAX, tb[TCA_OPTIONS], NULL, NULL) ||
	    !rtb[TCA_RED_PARMS] || nla_len(rtb[TCA_RED_PARMS]) < sizeof(*qopt))
		return;
	qopt = nla_data(rtb[TCA_RED_PARMS]);
	e = &hw->ecn[band];
	e->enable = !!(qopt->flags & TC_RED_ECN);
	e->min_bytes = qopt->qth_min;
	e->max_bytes = qopt->qth_max;
	if (rtb[TCA_RED_MAX_P] && nla_len(rtb[TCA_RED_MAX_P]) >= sizeof(u32))
		e->max_prob = ((u64)nla_get_u32(rtb[TCA_RED_MAX_P]) * 100 + FABRIQ_Q32 / 2) >> 32;
	hw->ecn_prios |= BIT(band);
}

/**
 * fabriq_qos_red_read_qdiscs() - read ECN back from the netdev's qdiscs
 * @ndev: the netdev
 * @hw: receives ECN for every priority (off where fabriq's RED is absent)
 *
 * Context: process context; rtnl_lock not held.  Return: 0 or a negative errno.
 */
static int fabriq_qos_red_read_qdiscs(struct net_device *ndev, struct fabriq_qos_cfg *hw)
{
	struct fabriq_red_read rr = { .ifindex = ndev->ifindex, .hw = hw };
	int err;

	hw->ecn_prios = 0;
	memset(hw->ecn, 0, sizeof(hw->ecn));
	if (fabriq_tc_root(ndev) != FABRIQ_RED_ROOT)
		goto all_off;

	err = fabriq_tc_dump(ndev->ifindex, fabriq_red_read_one, &rr);
	if (err)
		return err;
all_off:
	/* every priority is known: off unless a RED child says otherwise */
	hw->ecn_prios = GENMASK(FABRIQ_QOS_NUM_PRIO - 1, 0);
	return 0;
}

/* ECN through RED: for a port with a netdev that no driver backend serves. */
static int fabriq_qos_red_read(const struct fabriq_qos_hwport *hp, u32 want,
			       struct fabriq_qos_cfg *hw, struct fabriq_qos_caps *caps,
			       u32 *owned)
{
	*owned = 0;
	if (!hp->ndev || !(want & BIT(FABRIQ_QOS_F_ECN)))
		return 0;
	*owned = BIT(FABRIQ_QOS_F_ECN);
	strscpy(caps->ecn_backend, "red", sizeof(caps->ecn_backend));
	/* a netdev whose qdiscs cannot be read shows ECN as unknown */
	fabriq_qos_red_read_qdiscs(hp->ndev, hw);
	if (hw->ecn_prios)
		hw->present |= BIT(FABRIQ_QOS_F_ECN);
	return 0;
}

const struct fabriq_qos_ops fabriq_qos_red_ops = {
	.name = "red",
	.fields = BIT(FABRIQ_QOS_F_ECN),
	.read = fabriq_qos_red_read,
	.write = fabriq_qos_red_write,
};
