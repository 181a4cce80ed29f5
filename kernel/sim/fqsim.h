/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fqsim.h - private structures of fabriq_sim.ko, the simulated IB/RoCE HCA
 * used by fabriq's tests, and the prototypes of each of its files.
 *
 * Lock order: fqsim_devs_lock, then rtnl_lock.
 */
#ifndef _FQSIM_H
#define _FQSIM_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "qos/fabriq_backend.h"

#define FQSIM_MAX_PORTS		4
#define FQSIM_MAX_ID		9999

#define FQSIM_NUM_PRIO		IEEE_8021QAZ_MAX_TCS
#define FQSIM_NUM_VL		8
#define FQSIM_NUM_SL		16
#define FQSIM_VL_CAP		4	/* PortInfo:VLCap, VL0-7 */
#define FQSIM_VLARB_CAP		8	/* VLArbitration{High,Low}Cap */
#define FQSIM_MAX_RATES		16

struct fqsim_dev;

/* Device counters reported through rdma_hw_stats (`rdma statistic`). */
enum fqsim_hw_counter {
	FQSIM_HW_NP_CNP_SENT,
	FQSIM_HW_RP_CNP_HANDLED,
	FQSIM_HW_NP_ECN_MARKED,
	FQSIM_HW_RP_CNP_IGNORED,
	FQSIM_HW_OUT_OF_SEQUENCE,
	FQSIM_HW_PACKET_SEQ_ERR,
	FQSIM_HW_NUM
};

/* Pause counters per priority, reported through ethtool -S. */
enum fqsim_pause_counter {
	FQSIM_RX_PAUSE,
	FQSIM_TX_PAUSE,
	FQSIM_RX_PAUSE_DURATION,
	FQSIM_TX_PAUSE_DURATION,
	FQSIM_PAUSE_NUM
};

/* IB port counters, reported through PMA queries. */
enum fqsim_ib_counter {
	FQSIM_IB_SYMBOL_ERROR,
	FQSIM_IB_LINK_DOWNED,
	FQSIM_IB_NUM
};

/**
 * struct fqsim_netdev - private data of a RoCE port's netdev
 * @id: device id
 * @port: port number
 * @ndev: the netdev this is the private data of
 * @tx_rate_kbps: line rate in kbit/s (debugfs tx_rate); 0: no limit
 * @tx_lock: protects @tx_next
 * @tx_next: when the wire is free again, ktime ns
 * @tx_timer: wakes the stopped queue when the wire frees up
 * @dcbx: DCBX mode (DCB_CAP_DCBX_*); under rtnl_lock
 * @pfc: IEEE PFC configuration; under rtnl_lock
 * @ets: IEEE ETS configuration; under rtnl_lock
 * @trust: enum fabriq_qos_trust, what classifies received packets; under rtnl_lock
 * @pause: injected pause counters, [counter][priority]
 * @fail_dcb: the next this many DCB set calls fail with -EIO
 */
struct fqsim_netdev {
	u32 id;
	u32 port;
	struct net_device *ndev;
	u32 tx_rate_kbps;
	spinlock_t tx_lock;	/* see above */
	u64 tx_next;
	struct hrtimer tx_timer;
	u8 dcbx;
	struct ieee_pfc pfc;
	struct ieee_ets ets;
	u8 trust;
	atomic64_t pause[FQSIM_PAUSE_NUM][FQSIM_NUM_PRIO];
	atomic_t fail_dcb;
};

/* One counter that grows at a steady rate (debugfs "rate"). */
struct fqsim_rate {
	atomic64_t *target;
	char what[32];
	u64 per_sec;
	u64 ticks;
};

/* The subnet-manageable state of an InfiniBand port. */
struct fqsim_smp_state {
	u8 sl2vl[FQSIM_NUM_SL];
	struct ib_vl_weight_elem vlarb_high[FQSIM_VLARB_CAP];
	struct ib_vl_weight_elem vlarb_low[FQSIM_VLARB_CAP];
	u8 vl_high_limit;
	u8 oper_vls;		/* PortInfo:OperationalVLs encoding, 1..VLCap */
};

/**
 * struct fqsim_port - one simulated port
 * @sdev: owning device
 * @num: port number (1-based)
 * @netdev: Ethernet ports: the netdev that backs the port, else NULL
 * @lid: InfiniBand ports: LID
 * @dbg_dir: debugfs fabriq_sim/fqsim<ID>/port<N>
 * @hw: injected device counters (enum fqsim_hw_counter)
 * @ib: injected IB port counters (enum fqsim_ib_counter)
 * @xmit_wait: injected PortXmitWait per VL
 * @vl_wait_base: what @xmit_wait was when a PMA Set last cleared the VL's
 *                16-bit counter; under @lock
 * @fail_mads: the next this many MADs fail (IB_MAD_RESULT_FAILURE)
 * @lock: protects @smp, @link_down, @speed, @width, @rates and @ecn
 * @smp: SL2VL, VL arbitration, VLHighLimit, OperVLs
 * @link_down: link forced down from debugfs
 * @speed: active speed (IB_SPEED_*), degradable from debugfs
 * @width: active width (IB_WIDTH_*), degradable from debugfs
 * @rates: counters that grow at a rate, driven by @rate_work
 * @rate_work: adds one tenth of each rate every 100 ms while any is set
 * @ecn: ECN marking per priority, driven by fabriq through qos.c
 */
struct fqsim_port {
	struct fqsim_dev *sdev;
	u32 num;
	struct net_device *netdev;
	u16 lid;
	struct dentry *dbg_dir;
	atomic64_t hw[FQSIM_HW_NUM];
	atomic64_t ib[FQSIM_IB_NUM];
	atomic64_t xmit_wait[FQSIM_NUM_VL];
	u64 vl_wait_base[FQSIM_NUM_VL];
	atomic_t fail_mads;
	spinlock_t lock;	/* see above */
	struct fqsim_smp_state smp;
	bool link_down;
	u16 speed;
	u8 width;
	struct fqsim_rate rates[FQSIM_MAX_RATES];
	struct delayed_work rate_work;
	struct fabriq_ecn_prio ecn[FQSIM_NUM_PRIO];
};

/**
 * struct fqsim_dev - one simulated HCA
 * @ibdev: the registered RDMA device; must stay first (ib_alloc_device)
 * @dev: the device on the fabriq_sim bus, parent of @ibdev
 * @list: entry on the device list, under fqsim_devs_lock
 * @id: user-chosen id; the RDMA device is named fqsim<id>
 * @link_layer: IB_LINK_LAYER_INFINIBAND or IB_LINK_LAYER_ETHERNET
 * @no_backend: offer fabriq no QoS backend, like most NIC drivers
 * @num_ports: ports in @ports
 * @dbg_dir: debugfs fabriq_sim/fqsim<ID>
 * @ports: the ports
 */
struct fqsim_dev {
	struct ib_device ibdev;
	struct device dev;
	struct list_head list;
	u32 id;
	enum rdma_link_layer link_layer;
	bool no_backend;
	u32 num_ports;
	struct dentry *dbg_dir;
	struct fqsim_port ports[FQSIM_MAX_PORTS];
};

static inline struct fqsim_dev *to_fqsim(struct ib_device *ibdev)
{
	return container_of(ibdev, struct fqsim_dev, ibdev);
}

/* NodeGUID (port 0) and PortGUIDs: locally administered, id and port visible. */
static inline u64 fqsim_port_guid(const struct fqsim_dev *sdev, u32 port)
{
	return 0x02fa000000000000ULL | ((u64)sdev->id << 16) | port;
}

/* ibdev.c */
struct fqsim_dev *fqsim_dev_create(u32 id, u32 num_ports, enum rdma_link_layer ll,
				   bool no_backend);
void fqsim_dev_destroy(struct fqsim_dev *sdev);

/* counters.c */
extern const struct rdma_stat_desc fqsim_hw_descs[FQSIM_HW_NUM];
extern const char *const fqsim_pause_counter_names[FQSIM_PAUSE_NUM];
extern const char *const fqsim_ib_counter_names[FQSIM_IB_NUM];
struct rdma_hw_stats *fqsim_alloc_hw_port_stats(struct ib_device *ibdev, u32 port_num);
int fqsim_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);

/* dcb.c */
extern const struct dcbnl_rtnl_ops fqsim_dcbnl_ops;
void fqsim_dcb_init(struct fqsim_netdev *priv);

/* ethtool.c */
extern const struct ethtool_ops fqsim_ethtool_ops;

/* mad.c */
void fqsim_smp_init(struct fqsim_smp_state *smp);
int fqsim_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);

/* ibdev.c: link changes from debugfs */
void fqsim_port_set_link(struct fqsim_port *port, bool up);
void fqsim_port_changed(struct fqsim_port *port);

/* qos.c */
struct seq_file;
void fqsim_qos_attach(struct fqsim_dev *sdev);
void fqsim_qos_detach(struct fqsim_dev *sdev);
void fqsim_ecn_show(struct seq_file *s, struct fqsim_port *port);

/* mad.c: the SMA's tables, for debugfs */
void fqsim_smp_show(struct seq_file *s, struct fqsim_port *port);

/* debugfs.c */
void fqsim_debugfs_init(void);
void fqsim_debugfs_exit(void);
void fqsim_debugfs_dev_add(struct fqsim_dev *sdev);
void fqsim_debugfs_dev_del(struct fqsim_dev *sdev);
void fqsim_rate_work(struct work_struct *work);

/* netdev.c */
struct net_device *fqsim_netdev_create(u32 id, u32 port);
void fqsim_netdev_destroy(struct net_device *ndev);
bool fqsim_netdev_link_up(struct net_device *ndev);

#endif /* _FQSIM_H */
