// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - the simulated HCA's counters: their names, and the device
 * counters it reports through rdma_hw_stats (`rdma statistic show`).
 *
 * Values are only ever raised by the injection knobs in debugfs.c; each
 * enum and its name table are kept in step with BUILD_BUG_ON.
 */
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

#include "fqsim.h"

/* ethtool -S names are "<name>" with "prioN" inserted: rx_prio3_pause. */
const char *const fqsim_pause_counter_names[FQSIM_PAUSE_NUM] = {
	[FQSIM_RX_PAUSE] = "rx_pause",
	[FQSIM_TX_PAUSE] = "tx_pause",
	[FQSIM_RX_PAUSE_DURATION] = "rx_pause_duration",
	[FQSIM_TX_PAUSE_DURATION] = "tx_pause_duration",
};

const char *const fqsim_ib_counter_names[FQSIM_IB_NUM] = {
	[FQSIM_IB_SYMBOL_ERROR] = "symbol_error",
	[FQSIM_IB_LINK_DOWNED] = "link_downed",
};

/* Names as mlx5 reports them, so tools and fabriq find them by name. */
const struct rdma_stat_desc fqsim_hw_descs[FQSIM_HW_NUM] = {
	[FQSIM_HW_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[FQSIM_HW_RP_CNP_HANDLED] = { .name = "rp_cnp_handled" },
	[FQSIM_HW_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[FQSIM_HW_RP_CNP_IGNORED] = { .name = "rp_cnp_ignored" },
	[FQSIM_HW_OUT_OF_SEQUENCE] = { .name = "out_of_sequence" },
	[FQSIM_HW_PACKET_SEQ_ERR] = { .name = "packet_seq_err" },
};

/**
 * fqsim_alloc_hw_port_stats() - ib_device_ops.alloc_hw_port_stats
 * @ibdev: the device
 * @port_num: the port
 *
 * Context: process context.  Return: the stats structure, or NULL.
 */
struct rdma_hw_stats *fqsim_alloc_hw_port_stats(struct ib_device *ibdev, u32 port_num)
{
	static_assert(ARRAY_SIZE(fqsim_hw_descs) == FQSIM_HW_NUM);
	BUILD_BUG_ON(ARRAY_SIZE(fqsim_pause_counter_names) != FQSIM_PAUSE_NUM);
	BUILD_BUG_ON(ARRAY_SIZE(fqsim_ib_counter_names) != FQSIM_IB_NUM);

	return rdma_alloc_hw_stats_struct(fqsim_hw_descs, FQSIM_HW_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * fqsim_get_hw_stats() - ib_device_ops.get_hw_stats
 * @ibdev: the device
 * @stats: filled with the port's counters
 * @port_num: the port (0: device-wide, which the sim does not have)
 * @index: the counter asked for; all are filled
 *
 * Context: process context.  Return: number of counters filled.
 */
int fqsim_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);
	int i;

	if (port_num < 1 || port_num > sdev->num_ports)
		return 0;
	for (i = 0; i < FQSIM_HW_NUM; i++)
		stats->value[i] = atomic64_read(&sdev->ports[port_num - 1].hw[i]);
	return FQSIM_HW_NUM;
}
