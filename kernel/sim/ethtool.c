// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool.c - ethtool statistics of the simulated RoCE netdevs.
 *
 * Per-priority pause counters use the names real NICs use
 * (rx_prio3_pause, tx_prio3_pause_duration, ...), which is what fabriq's
 * telemetry matches on; global pause statistics (ethtool -I --show-pause)
 * are the sums over the priorities.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "fqsim.h"

#define FQSIM_NUM_STATS (FQSIM_PAUSE_NUM * FQSIM_NUM_PRIO)

static void fqsim_get_drvinfo(struct net_device *ndev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
}

static int fqsim_get_sset_count(struct net_device *ndev, int sset)
{
	return sset == ETH_SS_STATS ? FQSIM_NUM_STATS : -EOPNOTSUPP;
}

static void fqsim_get_strings(struct net_device *ndev, u32 sset, u8 *data)
{
	int c, prio;

	if (sset != ETH_SS_STATS)
		return;
	/* "rx_pause" -> "rx_prio3_pause" */
	for (c = 0; c < FQSIM_PAUSE_NUM; c++)
		for (prio = 0; prio < FQSIM_NUM_PRIO; prio++)
			ethtool_sprintf(&data, "%.2s_prio%d_%s", fqsim_pause_counter_names[c],
					prio, fqsim_pause_counter_names[c] + 3);
}

static void fqsim_get_ethtool_stats(struct net_device *ndev, struct ethtool_stats *stats,
				    u64 *data)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	int c, prio;

	for (c = 0; c < FQSIM_PAUSE_NUM; c++)
		for (prio = 0; prio < FQSIM_NUM_PRIO; prio++)
			*data++ = atomic64_read(&priv->pause[c][prio]);
}

/* Link-level (802.3x) pause is off: the simulated port uses PFC. */
static void fqsim_get_pauseparam(struct net_device *ndev,
				 struct ethtool_pauseparam *pause)
{
	pause->autoneg = 0;
	pause->rx_pause = 0;
	pause->tx_pause = 0;
}

static void fqsim_get_pause_stats(struct net_device *ndev,
				  struct ethtool_pause_stats *stats)
{
	struct fqsim_netdev *priv = netdev_priv(ndev);
	int prio;

	stats->tx_pause_frames = 0;
	stats->rx_pause_frames = 0;
	for (prio = 0; prio < FQSIM_NUM_PRIO; prio++) {
		stats->tx_pause_frames += atomic64_read(&priv->pause[FQSIM_TX_PAUSE][prio]);
		stats->rx_pause_frames += atomic64_read(&priv->pause[FQSIM_RX_PAUSE][prio]);
	}
}

const struct ethtool_ops fqsim_ethtool_ops = {
	.get_drvinfo = fqsim_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = fqsim_get_sset_count,
	.get_strings = fqsim_get_strings,
	.get_ethtool_stats = fqsim_get_ethtool_stats,
	.get_pauseparam = fqsim_get_pauseparam,
	.get_pause_stats = fqsim_get_pause_stats,
};
