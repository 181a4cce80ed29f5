// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry_src.c - where the sampler's counters come from, and how each
 * source's names map onto fabriq's counter catalogue (enum fabriq_ctr):
 *
 *   - the driver's rdma_hw_stats (what `rdma statistic` shows), by name;
 *   - on InfiniBand ports, PMA PortCounters, PortCountersExtended and
 *     PortVLXmitWaitCounters, asked through ib_device_ops.process_mad;
 *   - on RoCE ports, the netdev's ethtool statistics, matched against the
 *     per-priority pause names NICs use (rx_prio3_pause, ...);
 *   - on RoCE ports, the netdev's RED qdiscs (what `tc -s qdisc` shows):
 *     the packets they marked CE, fabriq's own (qos_red.c, on a NIC
 *     without a QoS backend) or an operator's;
 *   - fabriq's own traffic, counted by the transport.
 *
 * Each source sets the sample's present bits (fq_tm_sample.present,
 * vl_present) for the values it fills; a counter no source provides stays
 * out of them: absent, not 0.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "core/fabriq.h"
#include "core/tc.h"
#include "telemetry.h"

/* Driver counter names (rxe, mlx5) and the catalogue entry they feed. */
static const struct {
	const char *name;
	u8 ctr;
} fq_hw_names[] = {
	{ "sent_pkts", FABRIQ_CTR_TX_PKTS },
	{ "rcvd_pkts", FABRIQ_CTR_RX_PKTS },
	{ "np_cnp_sent", FABRIQ_CTR_CNP_SENT },
	{ "rp_cnp_handled", FABRIQ_CTR_CNP_HANDLED },
	{ "rp_cnp_ignored", FABRIQ_CTR_CNP_IGNORED },
	{ "np_ecn_marked_roce_packets", FABRIQ_CTR_ECN_MARKED },
	{ "out_of_seq_request", FABRIQ_CTR_OUT_OF_SEQ },
	{ "out_of_sequence", FABRIQ_CTR_OUT_OF_SEQ },
	{ "rcvd_seq_err", FABRIQ_CTR_SEQ_ERR },
	{ "packet_seq_err", FABRIQ_CTR_SEQ_ERR },
	{ "completer_retry_err", FABRIQ_CTR_RETRANSMITS },
	{ "roce_adp_retrans", FABRIQ_CTR_RETRANSMITS },
	{ "rcvd_rnr_err", FABRIQ_CTR_RNR_NAK_RCVD },
	{ "send_rnr_err", FABRIQ_CTR_RNR_NAK_SENT },
	{ "retry_rnr_exceeded_err", FABRIQ_CTR_RNR_RETRY_EXC },
	{ "rnr_nak_retry_err", FABRIQ_CTR_RNR_RETRY_EXC },
	{ "retry_exceeded_err", FABRIQ_CTR_TIMEOUTS },
	{ "local_ack_timeout_err", FABRIQ_CTR_TIMEOUTS },
	{ "link_downed", FABRIQ_CTR_LINK_DOWNED },
};

#define FQ_PMA_PORT_VL_XMIT_WAIT	cpu_to_be16(0x001C)

/* PortVLXmitWaitCounters: PortSelect, CounterSelect, then one u16 per VL. */
struct fq_pma_vl_xmit_wait {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be16 vl[FABRIQ_NUM_VL];
} __packed;

static u8 fq_hw_lookup(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fq_hw_names); i++)
		if (!strcmp(fq_hw_names[i].name, name))
			return fq_hw_names[i].ctr;
	return 0;
}

/* First use: allocate the driver's counter set and map its names. */
static void fq_src_hw_setup(struct fq_tm_port *tm, struct ib_device *ibdev)
{
	struct rdma_hw_stats *hw;
	int i;

	if (tm->hw || !ibdev->ops.alloc_hw_port_stats || !ibdev->ops.get_hw_stats)
		return;
	hw = ibdev->ops.alloc_hw_port_stats(ibdev, tm->port->num);
	if (!hw)
		return;
	tm->hw_map = kcalloc(hw->num_counters, sizeof(*tm->hw_map), GFP_KERNEL);
	if (!tm->hw_map) {
		rdma_free_hw_stats_struct(hw);
		return;
	}
	for (i = 0; i < hw->num_counters; i++)
		tm->hw_map[i] = fq_hw_lookup(hw->descs[i].name);
	tm->hw = hw;
}

static void fq_src_hw(struct fq_tm_port *tm, struct ib_device *ibdev, struct fq_tm_sample *s)
{
	struct rdma_hw_stats *hw;
	int i, n;

	fq_src_hw_setup(tm, ibdev);
	hw = tm->hw;
	if (!hw)
		return;
	mutex_lock(&hw->lock);
	n = ibdev->ops.get_hw_stats(ibdev, hw, tm->port->num, hw->num_counters);
	for (i = 0; n > 0 && i < hw->num_counters; i++) {
		u8 c = tm->hw_map[i];

		if (!c || test_bit(i, hw->is_disabled))
			continue;
		s->ctr[c] += hw->value[i];
		__set_bit(c, s->present);
	}
	mutex_unlock(&hw->lock);
}

/*
 * One PMA Get (or Set, @data in and out) to the local port.
 * Return: 0 and @data filled, or -errno.
 */
static int fq_pma(struct ib_device *ibdev, u32 port, u8 method, __be16 attr_id, void *data,
		  size_t len)
{
	struct {
		struct ib_mad in;
		struct ib_mad out;
	} *io;
	struct ib_pma_mad *in, *out;
	size_t out_size = sizeof(io->out);
	u16 pkey_index = 0;
	int ret, err = 0;

	io = kzalloc(sizeof(*io), GFP_KERNEL);
	if (!io)
		return -ENOMEM;
	in = (struct ib_pma_mad *)&io->in;
	out = (struct ib_pma_mad *)&io->out;
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = method;
	in->mad_hdr.attr_id = attr_id;
	if (method == IB_MGMT_METHOD_SET)
		memcpy(in->data, data, len);
	in->data[1] = port;	/* PortSelect */
	ret = ibdev->ops.process_mad(ibdev, IB_MAD_IGNORE_MKEY, port, NULL, NULL,
				     &io->in, &io->out, &out_size, &pkey_index);
	if (!(ret & IB_MAD_RESULT_SUCCESS) || !(ret & IB_MAD_RESULT_REPLY))
		err = -EIO;
	else if (out->mad_hdr.status)
		err = -EOPNOTSUPP;
	else
		memcpy(data, out->data, len);
	kfree(io);
	return err;
}

static int fq_pma_get(struct ib_device *ibdev, u32 port, __be16 attr_id, void *data,
		      size_t len)
{
	return fq_pma(ibdev, port, IB_MGMT_METHOD_GET, attr_id, data, len);
}

/*
 * The per-VL counters are 16 bits and saturate: keep 64-bit sums of their
 * rises, and clear (PMA Set, as OpenSM's PerfMgr does) the ones past 3/4
 * before they stick.
 */
static void fq_src_vl(struct fq_tm_port *tm, struct ib_device *ibdev,
		      const struct fq_pma_vl_xmit_wait *vw)
{
	struct fq_pma_vl_xmit_wait clr = {};
	u16 sel = 0;
	int vl;

	for (vl = 0; vl < FABRIQ_NUM_VL; vl++) {
		u16 raw = be16_to_cpu(vw->vl[vl]);

		tm->vl_acc[vl] += raw >= tm->vl_raw[vl] ? raw - tm->vl_raw[vl] : raw;
		tm->vl_raw[vl] = raw;
		if (raw >= 0xc000)
			sel |= BIT(vl);
	}
	if (!sel)
		return;
	clr.counter_select = cpu_to_be16(sel);
	if (fq_pma(ibdev, tm->port->num, IB_MGMT_METHOD_SET, FQ_PMA_PORT_VL_XMIT_WAIT, &clr,
		   sizeof(clr)))
		return;
	for (vl = 0; vl < FABRIQ_NUM_VL; vl++)
		if (sel & BIT(vl))
			tm->vl_raw[vl] = be16_to_cpu(clr.vl[vl]);
}

static void fq_set(struct fq_tm_sample *s, u8 c, u64 v)
{
	if (test_bit(c, s->present))
		return;		/* the driver's own counter wins */
	s->ctr[c] = v;
	__set_bit(c, s->present);
}

static void fq_src_pma(struct fq_tm_port *tm, struct ib_device *ibdev, struct fq_tm_sample *s)
{
	struct ib_pma_portcounters_ext ext;
	struct fq_pma_vl_xmit_wait vw;
	struct ib_pma_portcounters pc;
	u32 port = tm->port->num;
	int vl;

	tm->pma_ext_ok = !fq_pma_get(ibdev, port, IB_PMA_PORT_COUNTERS_EXT, &ext, sizeof(ext));
	if (tm->pma_ext_ok) {
		/* PortXmitData and PortRcvData count 32-bit words */
		fq_set(s, FABRIQ_CTR_TX_BYTES, be64_to_cpu(ext.port_xmit_data) * 4);
		fq_set(s, FABRIQ_CTR_RX_BYTES, be64_to_cpu(ext.port_rcv_data) * 4);
		fq_set(s, FABRIQ_CTR_TX_PKTS, be64_to_cpu(ext.port_xmit_packets));
		fq_set(s, FABRIQ_CTR_RX_PKTS, be64_to_cpu(ext.port_rcv_packets));
	}
	tm->pma_ok = !fq_pma_get(ibdev, port, IB_PMA_PORT_COUNTERS, &pc, sizeof(pc));
	if (tm->pma_ok) {
		fq_set(s, FABRIQ_CTR_SYMBOL_ERRORS, be16_to_cpu(pc.symbol_error_counter));
		fq_set(s, FABRIQ_CTR_LINK_DOWNED, pc.link_downed_counter);
		fq_set(s, FABRIQ_CTR_RX_ERRORS, be16_to_cpu(pc.port_rcv_errors));
		fq_set(s, FABRIQ_CTR_TX_DISCARDS, be16_to_cpu(pc.port_xmit_discards));
		fq_set(s, FABRIQ_CTR_XMIT_WAIT, be32_to_cpu(pc.port_xmit_wait));
		if (!tm->pma_ext_ok) {
			fq_set(s, FABRIQ_CTR_TX_BYTES, (u64)be32_to_cpu(pc.port_xmit_data) * 4);
			fq_set(s, FABRIQ_CTR_RX_BYTES, (u64)be32_to_cpu(pc.port_rcv_data) * 4);
		}
	}
	tm->pma_vl_ok = !fq_pma_get(ibdev, port, FQ_PMA_PORT_VL_XMIT_WAIT, &vw, sizeof(vw));
	if (tm->pma_vl_ok) {
		fq_src_vl(tm, ibdev, &vw);
		for (vl = 0; vl < FABRIQ_NUM_VL; vl++)
			s->vl_wait[vl] = tm->vl_acc[vl];
		s->vl_present = GENMASK(FABRIQ_NUM_VL - 2, 0);	/* VL0-14; VL15 is management */
	}
}

/*
 * The best rate the port could reach at its active speed: its widest
 * supported width (PortInfo:LinkWidthSupported, a property of the port,
 * read once).
 */
static u32 fq_src_max_rate(struct fq_tm_port *tm, struct ib_device *ibdev, u32 active_mbps,
			   const struct ib_port_attr *attr)
{
	u32 port = tm->port->num;
	struct ib_port_info *pi;
	u8 wsup = tm->width_sup;
	int w, aw;

	if (!ibdev->ops.process_mad || !rdma_protocol_ib(ibdev, port))
		return 0;
	if (!wsup) {
		pi = kzalloc(sizeof(*pi), GFP_KERNEL);
		if (!pi)
			return 0;
		if (!fabriq_smp_get(ibdev, port, IB_SMP_ATTR_PORT_INFO, port, pi, sizeof(*pi)))
			wsup = pi->link_width_supported;
		kfree(pi);
		tm->width_sup = wsup;
	}
	aw = ib_width_enum_to_int(attr->active_width);
	if (!wsup || aw <= 0)
		return 0;
	w = ib_width_enum_to_int(1U << __fls(wsup));
	return w > 0 ? active_mbps / aw * w : 0;
}

/**
 * fq_src_device() - read the device's counters into a sample
 * @tm: the port's sampler
 * @s: the sample, zeroed but for its time: values and present bits
 *
 * Context: process context, fabriq_dev.lock held.
 * Return: 0, or -ENODEV once the device is gone.
 */
int fq_src_device(struct fq_tm_port *tm, struct fq_tm_sample *s)
{
	struct fabriq_dev *fdev = tm->port->fdev;
	struct ib_device *ibdev = fdev->ibdev;
	struct fabriq_port_info pi = {};
	struct ib_port_attr attr;

	lockdep_assert_held(&fdev->lock);
	if (!ibdev)
		return -ENODEV;
	fq_src_hw(tm, ibdev, s);
	if (rdma_protocol_ib(ibdev, tm->port->num) && ibdev->ops.process_mad)
		fq_src_pma(tm, ibdev, s);
	if (!fabriq_port_query(fdev, tm->port, &pi) &&
	    !ib_query_port(ibdev, tm->port->num, &attr)) {
		s->rate_mbps = pi.rate_mbps;
		s->max_rate_mbps = fq_src_max_rate(tm, ibdev, pi.rate_mbps, &attr);
	}
	mutex_lock(&tm->lock);
	tm->link_layer = pi.link_layer;
	mutex_unlock(&tm->lock);
	return 0;
}

/* Match "rx_prio3_pause_duration" and the like.  Return: the counter or -1. */
static int fq_pause_match(const char *name, int *prio)
{
	char dir[3], rest[ETH_GSTRING_LEN];
	int c;

	if (sscanf(name, "%2[rtx]_prio%d_%31s", dir, prio, rest) != 3 ||
	    *prio < 0 || *prio >= FQ_TM_NUM_PRIO)
		return -1;
	for (c = 0; c < FABRIQ_PAUSE_NUM; c++) {
		const char *want = fq_pause_names[c];	/* "rx_pause_duration" */

		if (!strncmp(want, dir, 2) && !strcmp(want + 3, rest))
			return c;
	}
	return -1;
}

static void fq_src_eth_map(struct fq_tm_port *tm, struct net_device *ndev, int n)
{
	const struct ethtool_ops *ops = ndev->ethtool_ops;
	int i, c, prio;
	u8 *names;

	memset(tm->eth.pause, 0xff, sizeof(tm->eth.pause));
	tm->eth.ifindex = ndev->ifindex;
	tm->eth.n_stats = n;
	tm->has_pause = false;
	names = kcalloc(n, ETH_GSTRING_LEN, GFP_KERNEL);
	if (!names)
		return;
	ops->get_strings(ndev, ETH_SS_STATS, names);
	for (i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN];

		memcpy(name, names + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN - 1] = '\0';
		c = fq_pause_match(name, &prio);
		if (c >= 0) {
			tm->eth.pause[c][prio] = i;
			tm->has_pause = true;
		}
	}
	kfree(names);
}

/* The CE marks of the RED qdiscs of one netdev, summed from a qdisc dump. */
struct fq_red_marks {
	int ifindex;
	u64 marked;
	bool any;
};

/* One qdisc of the dump: RED counts what it marked in its xstats. */
static void fq_src_red_one(const struct nlmsghdr *nlh, void *arg)
{
	const struct tcmsg *tcm = nlmsg_data(nlh);
	struct fq_red_marks *m = arg;
	struct nlattr *tb[TCA_MAX + 1];
	const struct tc_red_xstats *x;

	if (nlh->nlmsg_type != RTM_NEWQDISC || nlmsg_len(nlh) < sizeof(*tcm) ||
	    tcm->tcm_ifindex != m->ifindex ||
	    nlmsg_parse_deprecated(nlh, sizeof(*tcm), tb, TCA_MAX, NULL, NULL) ||
	    !tb[TCA_KIND] || nla_strcmp(tb[TCA_KIND], "red") ||
	    !tb[TCA_XSTATS] || nla_len(tb[TCA_XSTATS]) < sizeof(*x))
		return;
	x = nla_data(tb[TCA_XSTATS]);
	m->marked += x->marked;
	m->any = true;
}

/**
 * fq_src_qdisc() - the packets a RoCE port's own egress queueing marked CE
 * @ndev: the port's netdev, with a reference
 * @s: the sample; FABRIQ_CTR_ECN_MARKED_TX, if the netdev has RED
 *
 * Only a netdev whose root qdisc someone configured can have RED, so the
 * others cost no dump.  RED's count starts again when its qdisc is made
 * again (`fabriq qos set ... ecn`), as tc shows it.
 * Context: process context; rtnl_lock not held (the dump takes it).
 */
void fq_src_qdisc(struct net_device *ndev, struct fq_tm_sample *s)
{
	struct fq_red_marks m = { .ifindex = ndev->ifindex };

	if (!fabriq_tc_root(ndev) || fabriq_tc_dump(ndev->ifindex, fq_src_red_one, &m) || !m.any)
		return;
	s->ctr[FABRIQ_CTR_ECN_MARKED_TX] = m.marked;
	__set_bit(FABRIQ_CTR_ECN_MARKED_TX, s->present);
}

/**
 * fq_src_netdev() - read a RoCE port's pause counters from its netdev
 * @tm: the port's sampler
 * @ndev: the netdev, with a reference
 * @s: the sample; per-priority counters, their sums and their present bits
 *
 * Context: process context; takes rtnl_lock (as ethtool does).
 */
void fq_src_netdev(struct fq_tm_port *tm, struct net_device *ndev, struct fq_tm_sample *s)
{
	static const u8 sums[FABRIQ_PAUSE_NUM] = {
		[FABRIQ_PAUSE_RX] = FABRIQ_CTR_RX_PAUSE,
		[FABRIQ_PAUSE_TX] = FABRIQ_CTR_TX_PAUSE,
		[FABRIQ_PAUSE_RX_DURATION] = FABRIQ_CTR_RX_PAUSE_DURATION,
		[FABRIQ_PAUSE_TX_DURATION] = FABRIQ_CTR_TX_PAUSE_DURATION,
	};
	const struct ethtool_ops *ops;
	struct ethtool_stats st;
	bool begun = false;
	u64 *data = NULL;
	int n, c, p;

	/* a netdev without pause counters is looked at again every 100 samples */
	if (tm->eth.ifindex == ndev->ifindex && !tm->has_pause &&
	    READ_ONCE(tm->samples) < tm->eth.recheck_at)
		return;
	rtnl_lock();
	ops = ndev->ethtool_ops;
	if (!ops || !ops->get_sset_count || !ops->get_strings || !ops->get_ethtool_stats)
		goto out;
	/* the guards of the core's ethtool ioctl: a present device, begin/complete */
	if (!netif_device_present(ndev) || (ops->begin && ops->begin(ndev) < 0))
		goto out;
	begun = true;
	n = ops->get_sset_count(ndev, ETH_SS_STATS);
	if (n <= 0 || n > 65536)
		goto out;
	if (n != tm->eth.n_stats || ndev->ifindex != tm->eth.ifindex)
		fq_src_eth_map(tm, ndev, n);
	if (!tm->has_pause)
		goto out;
	data = kcalloc(n, sizeof(*data), GFP_KERNEL);
	if (!data)
		goto out;
	st.n_stats = n;
	ops->get_ethtool_stats(ndev, &st, data);
	for (c = 0; c < FABRIQ_PAUSE_NUM; c++) {
		bool any = false;

		for (p = 0; p < FQ_TM_NUM_PRIO; p++) {
			if (tm->eth.pause[c][p] < 0)
				continue;
			s->pause[c][p] = data[tm->eth.pause[c][p]];
			s->ctr[sums[c]] += s->pause[c][p];
			any = true;
		}
		if (any)
			__set_bit(sums[c], s->present);
	}
out:
	if (begun && ops->complete)
		ops->complete(ndev);
	if (!tm->has_pause) {
		tm->eth.ifindex = ndev->ifindex;
		tm->eth.recheck_at = READ_ONCE(tm->samples) + 100;
	}
	rtnl_unlock();
	kfree(data);
}

/**
 * fq_src_own() - fabriq's own traffic on the port
 * @tm: the port's sampler
 * @s: the sample; the counters and their present bits
 */
void fq_src_own(struct fq_tm_port *tm, struct fq_tm_sample *s)
{
	static const u8 ctr[FQ_OWN_NUM] = {
		[FQ_OWN_TX_BYTES] = FABRIQ_CTR_OWN_TX_BYTES,
		[FQ_OWN_RX_BYTES] = FABRIQ_CTR_OWN_RX_BYTES,
		[FQ_OWN_TX_WRS] = FABRIQ_CTR_OWN_TX_WRS,
		[FQ_OWN_RX_WRS] = FABRIQ_CTR_OWN_RX_WRS,
		[FQ_OWN_ERRORS] = FABRIQ_CTR_OWN_ERRORS,
		[FQ_OWN_CQE_NS] = FABRIQ_CTR_OWN_CQE_NS,
	};
	int i;

	for (i = 0; i < FQ_OWN_NUM; i++) {
		s->ctr[ctr[i]] = atomic64_read(&tm->own[i]);
		__set_bit(ctr[i], s->present);
	}
}

/**
 * fq_src_release() - free what the sources allocated
 * @tm: the port's sampler, no longer sampling
 */
void fq_src_release(struct fq_tm_port *tm)
{
	if (tm->hw)
		rdma_free_hw_stats_struct(tm->hw);
	tm->hw = NULL;
	kfree(tm->hw_map);
	tm->hw_map = NULL;
}
