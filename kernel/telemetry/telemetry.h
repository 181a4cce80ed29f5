/* SPDX-License-Identifier: GPL-2.0 */
/*
 * telemetry.h - the per-port sampler (telemetry.c), its counter sources
 * (telemetry_src.c), the detectors and their events (detect.c), the
 * netlink (telemetry_netlink.c) and debugfs (telemetry_debugfs.c) views,
 * and the stats dump extension through which another subsystem adds its
 * part to STATS_GET.
 *
 * Lock order (the module's one order is in Documentation/design.md):
 * fq_tm_stats_ext_lock (telemetry_netlink.c; held across the extension's
 * dump, so above every lock that takes), fq_tm_cfg_lock (telemetry.c),
 * fabriq_devs_lock, fabriq_dev.lock, rtnl_lock, fq_tm_port.lock,
 * fq_ev_lock (detect.c; a leaf).  The sampler holds fabriq_dev.lock or
 * rtnl_lock, never both; QoS holds rtnl_lock under fabriq_dev.lock, which
 * the order allows.
 */
#ifndef _FABRIQ_TELEMETRY_H
#define _FABRIQ_TELEMETRY_H

#include <net/genetlink.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <linux/fabriq.h>

#include "core/fabriq.h"

struct fabriq_dev;
struct fabriq_port;
struct seq_file;
struct rdma_hw_stats;
struct net_device;
struct genl_info;
struct netlink_callback;
struct sk_buff;
struct nla_policy;

#define FQ_TM_NUM_PRIO		8
#define FQ_TM_NUM_CTR		__FABRIQ_CTR_MAX	/* index 0 unused */

/* fabriq's own traffic on a port, counted by the transport (cm.c) */
enum fq_own_ctr {
	FQ_OWN_TX_BYTES,
	FQ_OWN_RX_BYTES,
	FQ_OWN_TX_WRS,
	FQ_OWN_RX_WRS,
	FQ_OWN_ERRORS,
	FQ_OWN_CQE_NS,
	FQ_OWN_NUM
};

/**
 * struct fq_tm_sample - everything read from a port at one instant
 * @t_ns: CLOCK_MONOTONIC when it was taken
 * @ctr: enum fabriq_ctr; valid where @present says so
 * @pause: [enum fabriq_pause_ctr][priority], valid if fq_tm_port.has_pause
 * @vl_wait: XmitWait per VL, valid where @vl_present says so
 * @present: bitmap of enum fabriq_ctr some source filled in @ctr (each
 *	     source sets the bits of the values it fills)
 * @vl_present: bitmap of VLs with an XmitWait counter in @vl_wait (IB)
 * @rate_mbps: active width x lane rate
 * @max_rate_mbps: the best the port supports (0: unknown)
 */
struct fq_tm_sample {
	u64 t_ns;
	u64 ctr[FQ_TM_NUM_CTR];
	u64 pause[FABRIQ_PAUSE_NUM][FQ_TM_NUM_PRIO];
	u64 vl_wait[FABRIQ_NUM_VL];
	DECLARE_BITMAP(present, FQ_TM_NUM_CTR);
	u32 vl_present;
	u32 rate_mbps;
	u32 max_rate_mbps;
};

/* One detector's state for one subject (a port, priority, VL or peer). */
struct fq_det_state {
	u64 since_ns;		/* the condition has held since (0: it does not) */
	u64 clear_since_ns;	/* a raised condition has been false since */
	bool raised;
	u64 value;		/* last measured */
};

/* Where an event is about. */
struct fq_ev_subject {
	u32 dev_index;
	const char *dev_name;
	u32 port;		/* 0: none */
	s16 prio;		/* -1: none */
	s16 vl;			/* -1: none */
	bool has_comm;
	u64 comm_id;
	u32 comm_rank;
	s32 peer_rank;		/* -1: none */
	const struct sockaddr_storage *peer_addr;
};

/* ethtool statistics of a RoCE port's netdev that fabriq understands */
struct fq_tm_ethtool_map {
	int ifindex;		/* the netdev the map is for */
	int n_stats;		/* what get_sset_count said when the map was built */
	u64 recheck_at;		/* no pause counters: look again at this sample */
	s32 pause[FABRIQ_PAUSE_NUM][FQ_TM_NUM_PRIO];	/* stat index, -1: none */
};

/**
 * struct fq_tm_port - the sampler of one port
 * @port: the port
 * @own: fabriq's own traffic (enum fq_own_ctr); updated without locks
 * @work: takes one sample, then queues itself again
 * @scratch: where @work reads the next sample (only @work uses it; it
 *	     never runs twice at once), so sampling allocates nothing
 * @lock: protects everything below
 * @dead: the device is going away; the work must not run again
 * @link_layer: enum fabriq_link_layer, from the last sample
 * @ring: the last @ring_size samples; @head is the next slot
 * @ring_size: slots in @ring
 * @head: next slot to fill
 * @count: filled slots
 * @has_pause: per-priority pause counters found (RoCE)
 * @hw: the driver's counters, or NULL
 * @hw_map: for each of @hw's counters, the enum fabriq_ctr it feeds (0: none)
 * @eth: where the netdev's pause counters are
 * @pma_ok: the port answers PMA PortCounters
 * @pma_ext_ok: the port answers PortCountersExtended
 * @pma_vl_ok: the port answers PortVLXmitWaitCounters
 * @width_sup: PortInfo:LinkWidthSupported, read once (0: not yet)
 * @vl_raw: the 16-bit per-VL counters as last read
 * @vl_acc: their rises, summed (what samples report)
 * @sample_ns: time the samples took, summed
 * @samples: samples taken
 * @det_port: link-degraded, ECN, error-rate, latency and bandwidth detectors
 * @det_prio: PFC storm, per priority
 * @det_vl: VL congestion, per VL
 * @bw_baseline: rolling mean of fabriq's own tx bytes per second while busy
 */
struct fq_tm_port {
	struct fabriq_port *port;
	atomic64_t own[FQ_OWN_NUM];
	struct delayed_work work;
	struct fq_tm_sample scratch;
	struct mutex lock;	/* see above */
	bool dead;
	u8 link_layer;
	struct fq_tm_sample *ring;
	u32 ring_size;
	u32 head;
	u32 count;
	bool has_pause;
	struct rdma_hw_stats *hw;
	u8 *hw_map;
	struct fq_tm_ethtool_map eth;
	bool pma_ok;
	bool pma_ext_ok;
	bool pma_vl_ok;
	u8 width_sup;
	u16 vl_raw[FABRIQ_NUM_VL];
	u64 vl_acc[FABRIQ_NUM_VL];
	u64 sample_ns;
	u64 samples;
	struct fq_det_state det_port[__FABRIQ_DET_MAX];
	struct fq_det_state det_prio[FQ_TM_NUM_PRIO];
	struct fq_det_state det_vl[FABRIQ_NUM_VL];
	u64 bw_baseline;
};

/**
 * struct fq_tm_snapshot - a port's sampler state, copied under its lock
 * @now: the newest sample (valid if @has_now), its present bits with it
 * @rate: per-second rates from the two newest (valid if @has_rate), with
 *	  the newest one's present bits
 * @has_now: a sample exists
 * @has_rate: two samples exist
 * @has_pause: the netdev has per-priority pause counters
 * @count: samples in the ring
 * @ring_size: the ring's size
 * @sample_ns: time spent sampling, in all
 * @samples: samples taken, in all
 *
 * What debugfs and netlink show of a port; both take it with
 * fq_tm_snapshot().
 */
struct fq_tm_snapshot {
	struct fq_tm_sample now;
	struct fq_tm_sample rate;
	bool has_now;
	bool has_rate;
	bool has_pause;
	u32 count;
	u32 ring_size;
	u64 sample_ns;
	u64 samples;
};

/* sampler settings (telemetry.c) */
struct fq_tm_config {
	u32 interval_ms;
	u32 ring_samples;
};

/* detector settings (detect.c) */
struct fq_det_config {
	bool enabled;
	u64 threshold;
	u32 window_ms;
	u64 limit;
};

/* telemetry.c */
int fq_tm_init(void);
void fq_tm_exit(void);
int fq_tm_port_alloc(struct fabriq_port *port);
void fq_tm_snapshot(struct fq_tm_port *tm, struct fq_tm_snapshot *sn);
void fq_tm_port_free(struct fabriq_port *port);
void fq_tm_port_start(struct fabriq_port *port);
void fq_tm_port_stop(struct fabriq_port *port);
void fq_tm_config_get(struct fq_tm_config *cfg);
int fq_tm_config_set(const struct fq_tm_config *cfg);
const struct fq_tm_sample *fq_tm_newest(struct fq_tm_port *tm, u32 back);
bool fq_tm_rates(struct fq_tm_port *tm, struct fq_tm_sample *rate);
extern const char *const fq_ctr_names[FQ_TM_NUM_CTR];
extern const char *const fq_pause_names[FABRIQ_PAUSE_NUM];

/* telemetry_src.c: the counter sources */
int fq_src_device(struct fq_tm_port *tm, struct fq_tm_sample *s);
void fq_src_netdev(struct fq_tm_port *tm, struct net_device *ndev, struct fq_tm_sample *s);
void fq_src_qdisc(struct net_device *ndev, struct fq_tm_sample *s);
void fq_src_own(struct fq_tm_port *tm, struct fq_tm_sample *s);
void fq_src_release(struct fq_tm_port *tm);

/* detect.c */
int fq_det_init(void);
void fq_det_exit(void);
void fq_det_config_get(u8 det, struct fq_det_config *cfg);
void fq_det_config_set(u8 det, const struct fq_det_config *cfg);
void fq_det_counts(u8 det, u64 *raised, u64 *cleared);
u32 fq_det_events_per_sec(void);
void fq_det_set_events_per_sec(u32 n);
u64 fq_det_suppressed(void);
void fq_det_port(struct fq_tm_port *tm, const struct fq_ev_subject *subj);
void fq_det_eval(struct fq_det_state *st, u8 det, const struct fq_ev_subject *subj,
		 bool cond, u64 value, u64 now_ns);
void fq_det_log_show(struct seq_file *s, u32 dev_index, u32 port);

/**
 * struct fq_tm_stats_filter - what a STATS_GET request selects
 * @has_dev: only the device @dev_index
 * @dev_index: see @has_dev
 * @dev_name: only the device of this name (NULL: any)
 * @port: only this port of it (0: every port)
 * @has_comm: only communicator @comm_id (and no ports)
 * @comm_id: see @has_comm
 */
struct fq_tm_stats_filter {
	bool has_dev;
	u32 dev_index;
	const char *dev_name;
	u32 port;
	bool has_comm;
	u64 comm_id;
};

/* where a stats dump extension is in the dump: its own, zero at the start */
struct fq_tm_stats_ext_cursor {
	u64 opaque[2];
};

/**
 * struct fq_tm_stats_ext - a part of the STATS_GET dump that another
 * subsystem fills after the ports (coll: one message per communicator)
 * @dump: add messages to @skb from @cur on, moving @cur past what it
 *	  added.  Called only when the request names no device.  Return: 0
 *	  when its part is complete, -EMSGSIZE when @skb is full (it is called
 *	  again with the next one and the same @cur), or another -errno.
 *	  Context: process context, may sleep.
 */
struct fq_tm_stats_ext {
	int (*dump)(struct sk_buff *skb, struct netlink_callback *cb,
		    const struct fq_tm_stats_filter *f, struct fq_tm_stats_ext_cursor *cur);
};

/* telemetry_netlink.c */
int fq_tm_stats_ext_register(const struct fq_tm_stats_ext *ext);
void fq_tm_stats_ext_unregister(const struct fq_tm_stats_ext *ext);

/* telemetry_debugfs.c */
void fq_tm_debugfs_port_add(struct fabriq_port *port, struct dentry *dir);
void fq_tm_debugfs_init(void);

/* telemetry_netlink.c, telemetry_subsys.c */
extern const struct genl_ops fq_tm_nl_ops[];
extern struct fabriq_subsys fq_telemetry_subsys;

/* the sampler of @port (set by fq_tm_port_alloc(); NULL before and after) */
static inline struct fq_tm_port *fq_tm(const struct fabriq_port *port)
{
	return fabriq_port_data(port, &fq_telemetry_subsys);
}

#endif /* _FABRIQ_TELEMETRY_H */
