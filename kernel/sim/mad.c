// SPDX-License-Identifier: GPL-2.0
/*
 * mad.c - process_mad of the simulated HCA: what an InfiniBand port's
 * subnet management agent and performance management agent answer.
 *
 *   SMPs (LID-routed and directed-route): Get/Set PortInfo,
 *   Get/Set SLtoVLMappingTable, Get/Set VLArbitrationTable (blocks 1-4),
 *   Get NodeInfo.
 *   PMA: Get ClassPortInfo, PortCounters, PortCountersExtended,
 *   PortVLXmitWaitCounters.
 *
 * Anything else is answered with MAD status "unsupported method/attribute";
 * a Set with a value out of range with "invalid attribute value", and the
 * state is left as it was.  Counter values come from the port's counters,
 * which only the debugfs injection knobs raise.  fabriq (and the core's
 * sysfs PMA reader) call ib_device_ops.process_mad directly.  debugfs
 * shows the SMA's tables (fqsim_smp_show) so tests can check them.
 */
#include <linux/bitfield.h>
#include <linux/seq_file.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "fqsim.h"

#define FQSIM_PMA_PORT_VL_XMIT_WAIT	cpu_to_be16(0x001C)
#define FQSIM_VL15			15

/* PortVLXmitWaitCounters: PortSelect, CounterSelect, then 16-bit counters. */
struct fqsim_pma_vl_xmit_wait {
	u8 reserved;
	u8 port_select;
	__be16 counter_select;
	__be16 vl[16];
} __packed;

/**
 * fqsim_smp_init() - power-on state: SL n -> VL n mod 8, all 8 data VLs
 * operational, VL0-7 at weight 1 in the low-priority table, none high
 * @smp: the port's SMP state
 *
 * Context: before the device is registered.
 */
void fqsim_smp_init(struct fqsim_smp_state *smp)
{
	int i;

	for (i = 0; i < FQSIM_NUM_SL; i++)
		smp->sl2vl[i] = i % FQSIM_NUM_VL;
	for (i = 0; i < FQSIM_VLARB_CAP; i++) {
		smp->vlarb_low[i].vl = i;
		smp->vlarb_low[i].weight = 1;
	}
	smp->oper_vls = FQSIM_VL_CAP;
	smp->vl_high_limit = 0;
}

/* OperationalVLs / VLCap encoding to a count of data VLs. */
static int fqsim_vls(u8 enc)
{
	static const u8 count[] = { 0, 1, 2, 4, 8, 15 };

	return enc < ARRAY_SIZE(count) ? count[enc] : 0;
}

static bool fqsim_vl_ok(const struct fqsim_smp_state *smp, u8 vl)
{
	return vl == FQSIM_VL15 || vl < fqsim_vls(smp->oper_vls);
}

/* PortInfo:LinkSpeedExtActive for the extended speeds (FDR and up). */
static u8 fqsim_ext_speed(u16 speed)
{
	switch (speed) {
	case IB_SPEED_FDR: return 1;
	case IB_SPEED_EDR: return 2;
	case IB_SPEED_HDR: return 4;
	default: return 0;
	}
}

static void fqsim_port_info_get(struct fqsim_port *port, struct ib_port_info *pi)
{
	u8 *raw = (u8 *)pi;
	bool up = !port->link_down;

	pi->lid = cpu_to_be16(port->lid);
	pi->sm_lid = cpu_to_be16(1);
	pi->gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
	pi->cap_mask = cpu_to_be32(IB_PORT_SM_DISABLED | IB_PORT_SL_MAP_SUP);
	pi->local_port_num = port->num;
	pi->link_width_enabled = IB_WIDTH_1X | IB_WIDTH_4X;
	pi->link_width_supported = IB_WIDTH_1X | IB_WIDTH_4X;
	pi->link_width_active = port->width;
	pi->linkspeed_portstate = (1 << 4) | (up ? IB_PORT_ACTIVE : IB_PORT_DOWN);
	pi->portphysstate_linkdown = ((up ? IB_PORT_PHYS_STATE_LINK_UP :
				       IB_PORT_PHYS_STATE_DISABLED) << 4) | 2;
	pi->linkspeedactive_enabled = (1 << 4) | 1;
	pi->neighbormtu_mastersmsl = IB_MTU_4096 << 4;
	pi->vlcap_inittype = FQSIM_VL_CAP << 4;
	pi->vl_high_limit = port->smp.vl_high_limit;
	pi->vl_arb_high_cap = FQSIM_VLARB_CAP;
	pi->vl_arb_low_cap = FQSIM_VLARB_CAP;
	pi->inittypereply_mtucap = IB_MTU_4096;
	pi->operationalvl_pei_peo_fpi_fpo = port->smp.oper_vls << 4;
	pi->guid_cap = 1;
	pi->clientrereg_resv_subnetto = 18;
	pi->resv_resptimevalue = 8;
	/* Extended speeds, bytes 62-63 (after struct ib_port_info): FDR|EDR|HDR. */
	raw[62] = fqsim_ext_speed(port->speed) << 4 | 0x7;
	raw[63] = 0x7;
}

static u16 fqsim_port_info_set(struct fqsim_port *port, const struct ib_port_info *pi)
{
	u8 oper = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	int i;

	/* 0 means "no change" for OperationalVLs. */
	if (oper > FQSIM_VL_CAP)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (oper) {
		struct fqsim_smp_state tmp = port->smp;

		tmp.oper_vls = oper;
		/* Shrinking OperVLs must not strand an SL on a VL that goes away. */
		for (i = 0; i < FQSIM_NUM_SL; i++)
			if (!fqsim_vl_ok(&tmp, tmp.sl2vl[i]))
				return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
		port->smp.oper_vls = oper;
	}
	port->smp.vl_high_limit = pi->vl_high_limit;
	return 0;
}

static u16 fqsim_sl2vl_set(struct fqsim_port *port, const u8 *data)
{
	u8 map[FQSIM_NUM_SL];
	int i;

	for (i = 0; i < FQSIM_NUM_SL; i++) {
		map[i] = i & 1 ? data[i / 2] & 0xf : data[i / 2] >> 4;
		if (!fqsim_vl_ok(&port->smp, map[i]))
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	memcpy(port->smp.sl2vl, map, sizeof(map));
	return 0;
}

static void fqsim_sl2vl_get(struct fqsim_port *port, u8 *data)
{
	int i;

	for (i = 0; i < FQSIM_NUM_SL; i += 2)
		data[i / 2] = port->smp.sl2vl[i] << 4 | port->smp.sl2vl[i + 1];
}

/* Block 1/2: low priority entries 0-31/32-63; 3/4: high priority. */
static struct ib_vl_weight_elem *fqsim_vlarb_block(struct fqsim_port *port, u32 block,
						   int *first)
{
	if (block < 1 || block > 4)
		return NULL;
	*first = (block - 1) % 2 * 32;
	return block <= 2 ? port->smp.vlarb_low : port->smp.vlarb_high;
}

static u16 fqsim_vlarb_get(struct fqsim_port *port, u32 block, u8 *data)
{
	struct ib_vl_weight_elem *tbl, *out = (void *)data;
	int first, i;

	tbl = fqsim_vlarb_block(port, block, &first);
	if (!tbl)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < 32 && first + i < FQSIM_VLARB_CAP; i++)
		out[i] = tbl[first + i];
	return 0;
}

static u16 fqsim_vlarb_set(struct fqsim_port *port, u32 block, const u8 *data)
{
	const struct ib_vl_weight_elem *in = (const void *)data;
	struct ib_vl_weight_elem *tbl;
	int first, i;

	tbl = fqsim_vlarb_block(port, block, &first);
	if (!tbl)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	for (i = 0; i < 32; i++) {
		u8 vl = in[i].vl & 0xf;

		if (!in[i].weight)
			continue;
		/* beyond the capacity, or a VL that does not carry data */
		if (first + i >= FQSIM_VLARB_CAP || vl == FQSIM_VL15 ||
		    !fqsim_vl_ok(&port->smp, vl))
			return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	}
	for (i = 0; i < 32 && first + i < FQSIM_VLARB_CAP; i++) {
		tbl[first + i].vl = in[i].vl & 0xf;
		tbl[first + i].weight = in[i].weight;
	}
	return 0;
}

static void fqsim_node_info_get(struct fqsim_port *port, struct ib_node_info *ni)
{
	struct fqsim_dev *sdev = port->sdev;

	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = sdev->num_ports;
	ni->sys_guid = sdev->ibdev.node_guid;
	ni->node_guid = sdev->ibdev.node_guid;
	ni->port_guid = cpu_to_be64(fqsim_port_guid(sdev, port->num));
	ni->partition_cap = cpu_to_be16(1);
	ni->device_id = cpu_to_be16(1);
	ni->revision = cpu_to_be32(1);
	ni->local_port_num = port->num;
	ni->vendor_id[2] = 0xfa;
}

/* Answer one SMP into @out; returns the MAD status. */
static u16 fqsim_smp(struct fqsim_port *port, const struct ib_smp *in, struct ib_smp *out)
{
	bool set = in->method == IB_MGMT_METHOD_SET;
	u32 mod = be32_to_cpu(in->attr_mod);
	u16 status = 0;

	if (in->method != IB_MGMT_METHOD_GET && !set)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;

	spin_lock(&port->lock);
	switch (in->attr_id) {
	case IB_SMP_ATTR_PORT_INFO:
		if (mod && mod != port->num) {
			status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
			break;
		}
		if (set)
			status = fqsim_port_info_set(port, (const void *)in->data);
		if (!status)
			fqsim_port_info_get(port, (void *)out->data);
		break;
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		if (set)
			status = fqsim_sl2vl_set(port, in->data);
		if (!status)
			fqsim_sl2vl_get(port, out->data);
		break;
	case IB_SMP_ATTR_VL_ARB_TABLE:
		/* AttributeModifier: block in bits 16-31, port in 0-7 (ignored on a CA) */
		if (set)
			status = fqsim_vlarb_set(port, mod >> 16, in->data);
		if (!status)
			status = fqsim_vlarb_get(port, mod >> 16, out->data);
		break;
	case IB_SMP_ATTR_NODE_INFO:
		if (set)
			status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
		else
			fqsim_node_info_get(port, (void *)out->data);
		break;
	default:
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
		break;
	}
	spin_unlock(&port->lock);
	return status;
}

static u32 fqsim_sat32(u64 v)
{
	return min_t(u64, v, U32_MAX);
}

static void fqsim_pma_port_counters(struct fqsim_port *port, struct ib_pma_portcounters *pc)
{
	u64 wait = 0;
	int vl;

	for (vl = 0; vl < FQSIM_NUM_VL; vl++)
		wait += atomic64_read(&port->xmit_wait[vl]);
	pc->symbol_error_counter =
		cpu_to_be16(min_t(u64, atomic64_read(&port->ib[FQSIM_IB_SYMBOL_ERROR]), U16_MAX));
	pc->link_downed_counter =
		min_t(u64, atomic64_read(&port->ib[FQSIM_IB_LINK_DOWNED]), U8_MAX);
	pc->port_xmit_wait = cpu_to_be32(fqsim_sat32(wait));
}

/*
 * The 16-bit per-VL counters saturate; a Set with CounterSelect bit n
 * clears VL n's (PortXmitWait, the 32-bit sum, keeps counting).
 */
static void fqsim_pma_vl_xmit_wait(struct fqsim_port *port,
				   const struct fqsim_pma_vl_xmit_wait *in,
				   struct fqsim_pma_vl_xmit_wait *vw, bool set)
{
	u16 sel = be16_to_cpu(in->counter_select);
	int vl;

	for (vl = 0; vl < FQSIM_NUM_VL; vl++) {
		u64 now = atomic64_read(&port->xmit_wait[vl]);

		if (set && (sel & BIT(vl)))
			port->vl_wait_base[vl] = now;
		vw->vl[vl] = cpu_to_be16(min_t(u64, now - port->vl_wait_base[vl], U16_MAX));
	}
}

/* Answer one PMA query into @out; returns the MAD status. */
static u16 fqsim_pma(struct fqsim_port *port, const struct ib_pma_mad *in,
		     struct ib_pma_mad *out)
{
	struct ib_class_port_info *cpi = (void *)out->data;
	u8 port_select = in->data[1];
	bool set = in->mad_hdr.method == IB_MGMT_METHOD_SET;

	if (in->mad_hdr.method != IB_MGMT_METHOD_GET &&
	    !(set && in->mad_hdr.attr_id == FQSIM_PMA_PORT_VL_XMIT_WAIT))
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	if (in->mad_hdr.attr_id == IB_PMA_CLASS_PORT_INFO) {
		cpi->base_version = 1;
		cpi->class_version = 1;
		cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH | IB_PMA_CLASS_CAP_XMIT_WAIT;
		cpi->cap_mask2_resp_time = cpu_to_be32(18);
		return 0;
	}
	if (port_select != port->num)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;

	out->data[1] = port_select;
	switch (in->mad_hdr.attr_id) {
	case IB_PMA_PORT_COUNTERS:
		fqsim_pma_port_counters(port, (void *)out->data);
		return 0;
	case IB_PMA_PORT_COUNTERS_EXT:
		/* The sim carries no traffic: data and packet counters stay 0. */
		return 0;
	case FQSIM_PMA_PORT_VL_XMIT_WAIT:
		fqsim_pma_vl_xmit_wait(port, (const void *)in->data, (void *)out->data, set);
		return 0;
	default:
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	}
}

/**
 * fqsim_process_mad() - ib_device_ops.process_mad
 * @ibdev: the device
 * @mad_flags: IB_MAD_IGNORE_* flags (M_Key is not enforced)
 * @port_num: the port the MAD arrived on
 * @in_wc: unused
 * @in_grh: unused
 * @in: the MAD
 * @out: the reply
 * @out_mad_size: in: room in @out; out: the reply's size
 * @out_mad_pkey_index: unused
 *
 * Context: any context that may sleep; takes the port lock.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY with the reply's
 * status set, or IB_MAD_RESULT_FAILURE when the port is not InfiniBand,
 * the MAD is not one this agent handles, or a failure was injected.
 */
int fqsim_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct fqsim_dev *sdev = to_fqsim(ibdev);
	struct fqsim_port *port;
	u8 class = in->mad_hdr.mgmt_class;
	u16 status;

	if (port_num < 1 || port_num > sdev->num_ports ||
	    sdev->link_layer != IB_LINK_LAYER_INFINIBAND ||
	    *out_mad_size < sizeof(*out) || in->mad_hdr.base_version != 1)
		return IB_MAD_RESULT_FAILURE;
	port = &sdev->ports[port_num - 1];
	/* SMPs fail; PMA queries (telemetry samples them on its own clock) are answered */
	if ((class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	     class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) &&
	    atomic_dec_if_positive(&port->fail_mads) >= 0)
		return IB_MAD_RESULT_FAILURE;

	memset(out, 0, sizeof(*out));
	out->mad_hdr = in->mad_hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	if (class == IB_MGMT_CLASS_SUBN_LID_ROUTED || class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		const struct ib_smp *smp = (const void *)in;
		struct ib_smp *rsp = (void *)out;

		memcpy(rsp, smp, offsetof(struct ib_smp, data));
		rsp->method = IB_MGMT_METHOD_GET_RESP;
		status = fqsim_smp(port, smp, rsp);
		rsp->status = cpu_to_be16(status);
		if (class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
			rsp->status |= IB_SMP_DIRECTION;
	} else if (class == IB_MGMT_CLASS_PERF_MGMT) {
		spin_lock(&port->lock);
		status = fqsim_pma(port, (const void *)in, (void *)out);
		spin_unlock(&port->lock);
		out->mad_hdr.status = cpu_to_be16(status);
	} else {
		return IB_MAD_RESULT_FAILURE;
	}
	*out_mad_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

static void fqsim_vlarb_show(struct seq_file *s, const char *name,
			     const struct ib_vl_weight_elem *t)
{
	int i;

	seq_printf(s, "%s ", name);
	for (i = 0; i < FQSIM_VLARB_CAP; i++)
		seq_printf(s, "%s%u:%u", i ? "," : "", t[i].vl & 0xf, t[i].weight);
	seq_putc(s, '\n');
}

/**
 * fqsim_smp_show() - the SMA's tables as the port holds them, for debugfs
 * @s: the seq_file
 * @port: an InfiniBand port
 *
 * Every VLArb entry is shown, used or not; oper_vls is a count of VLs.
 *
 * Context: process context; takes the port lock.
 */
void fqsim_smp_show(struct seq_file *s, struct fqsim_port *port)
{
	struct fqsim_smp_state smp;
	int i;

	spin_lock(&port->lock);
	smp = port->smp;
	spin_unlock(&port->lock);
	seq_puts(s, "sl2vl ");
	for (i = 0; i < FQSIM_NUM_SL; i++)
		seq_printf(s, "%s%d:%u", i ? "," : "", i, smp.sl2vl[i]);
	seq_putc(s, '\n');
	fqsim_vlarb_show(s, "vlarb_high", smp.vlarb_high);
	fqsim_vlarb_show(s, "vlarb_low", smp.vlarb_low);
	seq_printf(s, "vl_high_limit %u\noper_vls %d\n", smp.vl_high_limit,
		   fqsim_vls(smp.oper_vls));
}
