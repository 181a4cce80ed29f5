// SPDX-License-Identifier: GPL-2.0
/*
 * dcb.c - DCB (IEEE 802.1Qaz) operations of the simulated RoCE netdevs:
 * PFC, ETS, the APP table and the DCBX mode, as `dcb pfc|ets|app|dcbx`
 * and fabriq's QoS backend drive them on real NICs.
 *
 * The core calls these under rtnl_lock, which protects the state in
 * struct fqsim_netdev.  APP entries live in the core's own table
 * (dcb_ieee_setapp), which `dcb app show` reads back.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

#include "fqsim.h"

/**
 * fqsim_dcb_init() - power-on DCB state: host-managed IEEE DCBX, PFC off,
 * one traffic class with all the bandwidth
 * @priv: the netdev's private data
 *
 * Context: before register_netdev().
 */
void fqsim_dcb_init(struct fqsim_netdev *priv)
{
	priv->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	priv->pfc.pfc_cap = FQSIM_NUM_PRIO;
	priv->ets.ets_cap = FQSIM_NUM_PRIO;
	priv->ets.tc_tx_bw[0] = 100;
	priv->ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	priv->trust = FABRIQ_QOS_TRUST_PCP;
}

/* A failure injected from debugfs (fail_dcb) for the next set call. */
static int fqsim_dcb_fail(struct net_device *ndev)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);

	return atomic_dec_if_positive(&priv->fail_dcb) >= 0 ? -EIO : 0;
}

static int fqsim_ieee_getpfc(struct net_device *ndev, struct ieee_pfc *pfc)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	int i;

	ASSERT_RTNL();
	*pfc = priv->pfc;
	for (i = 0; i < FQSIM_NUM_PRIO; i++) {
		pfc->requests[i] = atomic64_read(&priv->pause[FQSIM_TX_PAUSE][i]);
		pfc->indications[i] = atomic64_read(&priv->pause[FQSIM_RX_PAUSE][i]);
	}
	return 0;
}

static int fqsim_ieee_setpfc(struct net_device *ndev, struct ieee_pfc *pfc)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	int err = fqsim_dcb_fail(ndev);

	ASSERT_RTNL();
	if (err)
		return err;
	priv->pfc.pfc_en = pfc->pfc_en;
	priv->pfc.mbc = pfc->mbc;
	priv->pfc.delay = pfc->delay;
	return 0;
}

static int fqsim_ieee_getets(struct net_device *ndev, struct ieee_ets *ets)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);

	ASSERT_RTNL();
	*ets = priv->ets;
	return 0;
}

static int fqsim_ieee_setets(struct net_device *ndev, struct ieee_ets *ets)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	int i, ets_bw = 0, err = fqsim_dcb_fail(ndev);

	ASSERT_RTNL();
	if (err)
		return err;
	for (i = 0; i < FQSIM_NUM_PRIO; i++) {
		if (ets->prio_tc[i] >= FQSIM_NUM_PRIO)
			return -EINVAL;
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		case IEEE_8021QAZ_TSA_ETS:
			ets_bw += ets->tc_tx_bw[i];
			break;
		default:
			return -EINVAL;
		}
	}
	/* Like real NICs: ETS bandwidths add up to 100 when any TC uses ETS. */
	if (ets_bw && ets_bw != 100)
		return -EINVAL;
	priv->ets.willing = ets->willing;
	priv->ets.cbs = ets->cbs;
	memcpy(priv->ets.tc_tx_bw, ets->tc_tx_bw, sizeof(ets->tc_tx_bw));
	memcpy(priv->ets.tc_rx_bw, ets->tc_rx_bw, sizeof(ets->tc_rx_bw));
	memcpy(priv->ets.tc_tsa, ets->tc_tsa, sizeof(ets->tc_tsa));
	memcpy(priv->ets.prio_tc, ets->prio_tc, sizeof(ets->prio_tc));
	return 0;
}

static int fqsim_app_check(const struct dcb_app *app)
{
	if (app->priority >= FQSIM_NUM_PRIO)
		return -EINVAL;
	switch (app->selector) {
	case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
	case IEEE_8021QAZ_APP_SEL_STREAM:
	case IEEE_8021QAZ_APP_SEL_DGRAM:
	case IEEE_8021QAZ_APP_SEL_ANY:
		return 0;
	case IEEE_8021QAZ_APP_SEL_DSCP:
		return app->protocol < 64 ? 0 : -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
}

static int fqsim_ieee_setapp(struct net_device *ndev, struct dcb_app *app)
{
	int err = fqsim_dcb_fail(ndev) ?: fqsim_app_check(app);

	return err ? err : dcb_ieee_setapp(ndev, app);
}

static int fqsim_ieee_delapp(struct net_device *ndev, struct dcb_app *app)
{
	return fqsim_dcb_fail(ndev) ?: dcb_ieee_delapp(ndev, app);
}

static u8 fqsim_getdcbx(struct net_device *ndev)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);

	return priv->dcbx;
}

/* Returns 0 on success, 1 on failure, as dcbnl expects. */
static u8 fqsim_setdcbx(struct net_device *ndev, u8 mode)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);

	if (fqsim_dcb_fail(ndev) || (mode & DCB_CAP_DCBX_LLD_MANAGED) ||
	    !(mode & DCB_CAP_DCBX_VER_IEEE) || (mode & DCB_CAP_DCBX_VER_CEE))
		return 1;
	priv->dcbx = mode;
	return 0;
}

#ifdef FABRIQ_HAVE_DCB_APPTRUST
/* APP trust (6.2+): one selector, PCP or DSCP, like mlx5's trust modes. */
static int fqsim_setapptrust(struct net_device *ndev, u8 *selectors, int nselectors)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	int err = fqsim_dcb_fail(ndev);

	if (err)
		return err;
	if (nselectors != 1)
		return -EOPNOTSUPP;
	if (selectors[0] == IEEE_8021QAZ_APP_SEL_DSCP)
		priv->trust = FABRIQ_QOS_TRUST_DSCP;
	else if (selectors[0] == DCB_APP_SEL_PCP)
		priv->trust = FABRIQ_QOS_TRUST_PCP;
	else
		return -EOPNOTSUPP;
	return 0;
}

static int fqsim_getapptrust(struct net_device *ndev, u8 *selectors, int *nselectors)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);

	selectors[0] = priv->trust == FABRIQ_QOS_TRUST_DSCP ? IEEE_8021QAZ_APP_SEL_DSCP :
							       DCB_APP_SEL_PCP;
	*nselectors = 1;
	return 0;
}
#endif

const struct dcbnl_rtnl_ops fqsim_dcbnl_ops = {
	.ieee_getpfc = fqsim_ieee_getpfc,
	.ieee_setpfc = fqsim_ieee_setpfc,
	.ieee_getets = fqsim_ieee_getets,
	.ieee_setets = fqsim_ieee_setets,
	.ieee_setapp = fqsim_ieee_setapp,
	.ieee_delapp = fqsim_ieee_delapp,
	.getdcbx = fqsim_getdcbx,
	.setdcbx = fqsim_setdcbx,
#ifdef FABRIQ_HAVE_DCB_APPTRUST
	.dcbnl_setapptrust = fqsim_setapptrust,
	.dcbnl_getapptrust = fqsim_getapptrust,
#endif
};
