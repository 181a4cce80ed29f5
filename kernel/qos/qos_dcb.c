// SPDX-License-Identifier: GPL-2.0
/*
 * qos_dcb.c - the QoS of a RoCE port's netdev through its IEEE 802.1Qaz
 * DCB ops, the same driver calls that `dcb pfc|ets|app` reach through
 * dcbnl: PFC enable per priority, ETS (priority -> TC, TC bandwidth and
 * TSA), DSCP -> priority APP entries and trust (pcp or dscp).
 *
 * After a change fabriq sends the DCB notification (RTM_SETDCB) that
 * dcbnl sends for its own sets, so lldpad and `dcb monitor` see it.
 * Trust goes through the APP trust table where the kernel has one
 * (dcbnl_setapptrust, 6.2 and later); elsewhere this backend does not own
 * it, and the driver's backend (qos_backend.c) may.
 *
 * Context of its ops: fdev->lock held; they take rtnl_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <net/dcbnl.h>
#include <net/netlink.h>

#include "core/compat.h"
#include "qos.h"

static bool fabriq_dcb_ieee(const struct dcbnl_rtnl_ops *ops)
{
	return ops && ops->ieee_getpfc && ops->ieee_setpfc && ops->ieee_getets &&
	       ops->ieee_setets;
}

#ifdef FABRIQ_HAVE_DCB_APPTRUST
static bool fabriq_dcb_has_apptrust(const struct dcbnl_rtnl_ops *ops)
{
	return ops && ops->dcbnl_getapptrust && ops->dcbnl_setapptrust;
}

/* Context: rtnl_lock held. */
static int fabriq_dcb_trust_get(struct net_device *ndev, u8 *trust)
{
	u8 sel[IEEE_8021QAZ_APP_SEL_MAX + 1] = {};
	int n = 0, err;

	err = ndev->dcbnl_ops->dcbnl_getapptrust(ndev, sel, &n);
	if (err)
		return err;
	*trust = n && sel[0] == IEEE_8021QAZ_APP_SEL_DSCP ? FABRIQ_QOS_TRUST_DSCP :
							    FABRIQ_QOS_TRUST_PCP;
	return 0;
}

/* Context: rtnl_lock held. */
static int fabriq_dcb_trust_set(struct net_device *ndev, u8 trust)
{
	u8 sel = trust == FABRIQ_QOS_TRUST_DSCP ? IEEE_8021QAZ_APP_SEL_DSCP : DCB_APP_SEL_PCP;

	return ndev->dcbnl_ops->dcbnl_setapptrust(ndev, &sel, 1);
}
#else
static bool fabriq_dcb_has_apptrust(const struct dcbnl_rtnl_ops *ops)
{
	return false;
}

static int fabriq_dcb_trust_get(struct net_device *ndev, u8 *trust)
{
	return -EOPNOTSUPP;
}

static int fabriq_dcb_trust_set(struct net_device *ndev, u8 trust)
{
	return -EOPNOTSUPP;
}
#endif

/* Read a RoCE port's DCB state; it owns what the netdev's DCB ops can program. */
static int fabriq_qos_dcb_read(const struct fabriq_qos_hwport *hp, u32 want,
			       struct fabriq_qos_cfg *hw, struct fabriq_qos_caps *caps,
			       u32 *owned)
{
	struct net_device *ndev = hp->ndev;
	struct dcb_ieee_app_dscp_map map = {};
	const struct dcbnl_rtnl_ops *ops;
	struct ieee_pfc pfc = {};
	struct ieee_ets ets = {};
	u8 trust;
	int i;

	*owned = 0;
	if (ndev) {
		rtnl_lock();
		ops = ndev->dcbnl_ops;
		caps->dcb = fabriq_dcb_ieee(ops);
		if (caps->dcb && !ops->ieee_getpfc(ndev, &pfc)) {
			hw->pfc = pfc.pfc_en;
			hw->present |= BIT(FABRIQ_QOS_F_PFC);
		}
		if (caps->dcb && !ops->ieee_getets(ndev, &ets)) {
			memcpy(hw->prio_tc, ets.prio_tc, sizeof(hw->prio_tc));
			memcpy(hw->tc_bw, ets.tc_tx_bw, sizeof(hw->tc_bw));
			memcpy(hw->tc_tsa, ets.tc_tsa, sizeof(hw->tc_tsa));
			hw->present |= FABRIQ_QOS_ETS_FIELDS;
		}
		if (caps->dcb) {
			dcb_ieee_getapp_dscp_prio_mask_map(ndev, &map);
			for (i = 0; i < FABRIQ_QOS_NUM_DSCP; i++)
				hw->dscp_prio[i] = map.map[i] ? __ffs(map.map[i]) :
								FABRIQ_QOS_DSCP_NONE;
			hw->present |= BIT(FABRIQ_QOS_F_DSCP_PRIO);
		}
		if (caps->dcb)
			*owned |= FABRIQ_QOS_DCB_FIELDS & ~BIT(FABRIQ_QOS_F_TRUST);
		if (fabriq_dcb_has_apptrust(ops)) {
			*owned |= BIT(FABRIQ_QOS_F_TRUST);
			if (!fabriq_dcb_trust_get(ndev, &trust)) {
				hw->trust = trust;
				hw->present |= BIT(FABRIQ_QOS_F_TRUST);
			}
		}
		rtnl_unlock();
	}
	*owned &= want;
	return 0;
}

/* Make the netdev's DSCP APP entries those of @want.  Context: rtnl_lock held. */
static int fabriq_dcb_dscp_write(struct net_device *ndev, const u8 *want)
{
	const struct dcbnl_rtnl_ops *ops = ndev->dcbnl_ops;
	struct dcb_ieee_app_dscp_map map = {};
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	unsigned long cur;
	int d, p, err;

	dcb_ieee_getapp_dscp_prio_mask_map(ndev, &map);
	for (d = 0; d < FABRIQ_QOS_NUM_DSCP; d++) {
		app.protocol = d;
		cur = map.map[d];
		for_each_set_bit(p, &cur, FABRIQ_QOS_NUM_PRIO) {
			if (p == want[d])
				continue;
			app.priority = p;
			err = ops->ieee_delapp ? ops->ieee_delapp(ndev, &app) :
						 dcb_ieee_delapp(ndev, &app);
			if (err)
				return err;
		}
		if (want[d] == FABRIQ_QOS_DSCP_NONE || (cur & BIT(want[d])))
			continue;
		app.priority = want[d];
		err = ops->ieee_setapp ? ops->ieee_setapp(ndev, &app) :
					 dcb_ieee_setapp(ndev, &app);
		if (err)
			return err;
	}
	return 0;
}

/* Context: rtnl_lock held; the netdev has IEEE DCB ops. */
static int fabriq_dcb_write_locked(struct net_device *ndev, const struct fabriq_qos_cfg *cfg,
				   u32 fields, struct netlink_ext_ack *extack)
{
	const struct dcbnl_rtnl_ops *ops = ndev->dcbnl_ops;
	struct ieee_pfc pfc = {};
	struct ieee_ets ets = {};
	int err;

	if (fields & BIT(FABRIQ_QOS_F_PFC)) {
		err = ops->ieee_getpfc(ndev, &pfc);
		if (!err) {
			pfc.pfc_en = cfg->pfc;
			err = ops->ieee_setpfc(ndev, &pfc);
		}
		if (err) {
			NL_SET_ERR_MSG(extack, "pfc: the netdev's driver refused the PFC setting");
			return err;
		}
	}
	if (fields & FABRIQ_QOS_ETS_FIELDS) {
		err = ops->ieee_getets(ndev, &ets);
		if (!err) {
			if (fields & BIT(FABRIQ_QOS_F_ETS_PRIO_TC))
				memcpy(ets.prio_tc, cfg->prio_tc, sizeof(ets.prio_tc));
			if (fields & BIT(FABRIQ_QOS_F_ETS_TC_BW))
				memcpy(ets.tc_tx_bw, cfg->tc_bw, sizeof(ets.tc_tx_bw));
			if (fields & BIT(FABRIQ_QOS_F_ETS_TC_TSA))
				memcpy(ets.tc_tsa, cfg->tc_tsa, sizeof(ets.tc_tsa));
			err = ops->ieee_setets(ndev, &ets);
		}
		if (err) {
			NL_SET_ERR_MSG(extack, "ets: the netdev's driver refused the ETS setting");
			return err;
		}
	}
	if (fields & BIT(FABRIQ_QOS_F_DSCP_PRIO)) {
		err = fabriq_dcb_dscp_write(ndev, cfg->dscp_prio);
		if (err) {
			NL_SET_ERR_MSG(extack, "dscp-prio: the netdev refused an APP entry");
			return err;
		}
	}
	if ((fields & BIT(FABRIQ_QOS_F_TRUST)) && fabriq_dcb_has_apptrust(ops)) {
		err = fabriq_dcb_trust_set(ndev, cfg->trust);
		if (err) {
			NL_SET_ERR_MSG(extack, "trust: the netdev's driver refused the APP trust");
			return err;
		}
	}
	return 0;
}

/* Program the DCB fields of @cfg that this backend owns.  Context: rtnl_lock not held. */
static int fabriq_qos_dcb_write(const struct fabriq_qos_hwport *hp,
				const struct fabriq_qos_cfg *cfg, u32 fields,
				const struct fabriq_qos_cfg *old,
				const struct fabriq_qos_caps *caps,
				struct netlink_ext_ack *extack)
{
	struct net_device *ndev = hp->ndev;
	int err;

	if (!ndev) {
		NL_SET_ERR_MSG(extack, "the port has no netdev to carry DCB settings");
		return -EOPNOTSUPP;
	}
	rtnl_lock();
	if (!fabriq_dcb_ieee(ndev->dcbnl_ops)) {
		NL_SET_ERR_MSG(extack, "the port's netdev has no DCB support (no dcbnl ops)");
		err = -EOPNOTSUPP;
	} else {
		err = fabriq_dcb_write_locked(ndev, cfg, fields, extack);
		/* Tell dcbnl listeners, as a `dcb ... set` would. */
		dcbnl_ieee_notify(ndev, RTM_SETDCB, DCB_CMD_IEEE_SET, 0, 0);
	}
	rtnl_unlock();
	return err;
}

/*
 * The DCB fields of a change: a netdev with DCB ops to take them, someone
 * to program trust, and ETS bandwidths that add up.
 */
static int fabriq_qos_dcb_validate(const struct fabriq_qos_cfg *c, u32 fields,
				   const struct fabriq_qos_cfg *hw,
				   const struct fabriq_qos_caps *caps,
				   struct netlink_ext_ack *extack)
{
	const u8 *bw = fabriq_qos_src(c, hw, FABRIQ_QOS_F_ETS_TC_BW)->tc_bw;
	const u8 *tsa = fabriq_qos_src(c, hw, FABRIQ_QOS_F_ETS_TC_TSA)->tc_tsa;
	int i, sum = 0;
	bool ets = false;

	if ((fields & FABRIQ_QOS_DCB_FIELDS & ~BIT(FABRIQ_QOS_F_TRUST)) && !caps->dcb) {
		if (caps->netdev[0])
			FABRIQ_ERR_FMT(extack,
				       "the port's netdev has no DCB support (no dcbnl ops)",
				       "netdev %s has no DCB support (no dcbnl ops)", caps->netdev);
		else
			NL_SET_ERR_MSG(extack, "the port has no netdev to carry DCB settings");
		return -EOPNOTSUPP;
	}
	if ((fields & BIT(FABRIQ_QOS_F_TRUST)) && !caps->trust) {
		NL_SET_ERR_MSG(extack, "trust: neither DCB APP trust nor a driver backend");
		return -EOPNOTSUPP;
	}
	if (fields & (BIT(FABRIQ_QOS_F_ETS_TC_BW) | BIT(FABRIQ_QOS_F_ETS_TC_TSA))) {
		for (i = 0; i < FABRIQ_QOS_NUM_PRIO; i++) {
			if (tsa[i] != FABRIQ_QOS_TSA_ETS)
				continue;
			ets = true;
			sum += bw[i];
		}
		if (ets && sum != 100) {
			FABRIQ_ERR_FMT(extack,
				       "ets tc-bw: the ETS classes must add up to 100 percent",
				       "ets tc-bw: the ETS classes add up to %d%%, not 100", sum);
			return -EINVAL;
		}
	}
	return 0;
}

/* also the ECN backend's name: the RoCE port's capabilities as one list */
static void fabriq_qos_dcb_show_caps(struct seq_file *s, const struct fabriq_qos_caps *caps)
{
	seq_printf(s, "netdev %s\necn_backend %s\n", caps->netdev[0] ? caps->netdev : "-",
		   caps->ecn_backend[0] ? caps->ecn_backend : "-");
}

const struct fabriq_qos_ops fabriq_qos_dcb_ops = {
	.name = "dcb",
	.fields = FABRIQ_QOS_DCB_FIELDS,
	.read = fabriq_qos_dcb_read,
	.validate = fabriq_qos_dcb_validate,
	.write = fabriq_qos_dcb_write,
	.show_caps = fabriq_qos_dcb_show_caps,
};
