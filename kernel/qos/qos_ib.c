// SPDX-License-Identifier: GPL-2.0
/*
 * qos_ib.c - the QoS of an InfiniBand port, read and written with SMPs to
 * the local port's SMA (fabriq_smp(), core/smp.c):
 *
 *   PortInfo                 VLCap, OperationalVLs, VLHighLimit, VLArb caps
 *   SLtoVLMappingTable       the 16 SL -> VL entries
 *   VLArbitrationTable       blocks 1-2 (low priority), 3-4 (high priority)
 *
 * A PortInfo Set carries back what the Get returned, with every field that
 * would change link or port state set to its "no change" value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "qos.h"

#define FABRIQ_VLARB_BLOCK_ENTRIES	32
/* PortInfo: byte 41 bit 7 is ClientReregister; 63 is LinkSpeedExtEnabled. */
#define FABRIQ_PI_CLIENT_REREG		0x80
#define FABRIQ_PI_SPEED_EXT_ENABLED	63

static const u8 fabriq_vls_enc_count[] = { 0, 1, 2, 4, 8, 15 };

/**
 * fabriq_qos_vls_count() - PortInfo VLCap/OperationalVLs encoding to data VLs
 * @enc: the encoding (1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7, 5: VL0-14)
 *
 * Return: the count, or 0 for a reserved encoding.
 */
static int fabriq_qos_vls_count(u8 enc)
{
	return enc < ARRAY_SIZE(fabriq_vls_enc_count) ? fabriq_vls_enc_count[enc] : 0;
}

static u8 fabriq_vls_encode(u8 count)
{
	u8 enc;

	for (enc = 1; enc < ARRAY_SIZE(fabriq_vls_enc_count); enc++)
		if (fabriq_vls_enc_count[enc] == count)
			return enc;
	return 0;
}

static void fabriq_vlarb_from_block(struct fabriq_qos_vlarb *t, int first, int cap,
				    const u8 *data)
{
	const struct ib_vl_weight_elem *e = (const void *)data;
	int i;

	for (i = 0; i < FABRIQ_VLARB_BLOCK_ENTRIES && first + i < cap; i++) {
		t->e[first + i].vl = e[i].vl & 0xf;
		t->e[first + i].weight = e[i].weight;
	}
}

/* Entries of weight 0 at the end are unused: drop them, as intents do. */
static void fabriq_vlarb_trim(struct fabriq_qos_vlarb *t)
{
	while (t->len && !t->e[t->len - 1].weight) {
		t->len--;
		t->e[t->len].vl = 0;
	}
}

static int fabriq_vlarb_read(struct ib_device *ibdev, u32 port, u32 first_block, u8 cap,
			     struct fabriq_qos_vlarb *t, u8 *data)
{
	u32 block;
	u16 status;
	int err;

	memset(t, 0, sizeof(*t));
	cap = min_t(u8, cap, FABRIQ_QOS_VLARB_MAX);
	for (block = 0; block * FABRIQ_VLARB_BLOCK_ENTRIES < cap; block++) {
		err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_GET, IB_SMP_ATTR_VL_ARB_TABLE,
				 (first_block + block) << 16, data, &status);
		if (err)
			return err;
		fabriq_vlarb_from_block(t, block * FABRIQ_VLARB_BLOCK_ENTRIES, cap, data);
	}
	t->len = cap;
	fabriq_vlarb_trim(t);
	return 0;
}

/* Read an InfiniBand port's QoS into @hw, its VLCap and VLArb capacities into @caps. */
static int fabriq_qos_ib_read(const struct fabriq_qos_hwport *hp, u32 want,
			      struct fabriq_qos_cfg *hw, struct fabriq_qos_caps *caps,
			      u32 *owned)
{
	struct ib_device *ibdev = hp->ibdev;
	u32 port = hp->port;
	struct ib_port_info *pi;
	u8 *data;
	u16 status;
	int i, err;

	data = kzalloc(FABRIQ_SMP_DATA_LEN, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, port,
			 data, &status);
	if (err)
		goto out;
	pi = (struct ib_port_info *)data;
	caps->vl_cap = fabriq_qos_vls_count(pi->vlcap_inittype >> 4);
	caps->vlarb_high_cap = min_t(u8, pi->vl_arb_high_cap, FABRIQ_QOS_VLARB_MAX);
	caps->vlarb_low_cap = min_t(u8, pi->vl_arb_low_cap, FABRIQ_QOS_VLARB_MAX);
	hw->oper_vls = fabriq_qos_vls_count(pi->operationalvl_pei_peo_fpi_fpo >> 4);
	hw->vl_high_limit = pi->vl_high_limit;
	hw->present |= BIT(FABRIQ_QOS_F_OPER_VLS) | BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT);

	err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_GET, IB_SMP_ATTR_SL_TO_VL_TABLE, 0,
			 data, &status);
	if (err)
		goto out;
	for (i = 0; i < FABRIQ_QOS_NUM_SL; i++)
		hw->sl2vl[i] = i & 1 ? data[i / 2] & 0xf : data[i / 2] >> 4;
	hw->present |= BIT(FABRIQ_QOS_F_SL2VL);

	err = fabriq_vlarb_read(ibdev, port, 1, caps->vlarb_low_cap, &hw->vlarb_low, data);
	if (err)
		goto out;
	hw->present |= BIT(FABRIQ_QOS_F_VLARB_LOW);
	err = fabriq_vlarb_read(ibdev, port, 3, caps->vlarb_high_cap, &hw->vlarb_high, data);
	if (err)
		goto out;
	hw->present |= BIT(FABRIQ_QOS_F_VLARB_HIGH);
	*owned = want;
out:
	kfree(data);
	return err;
}

static int fabriq_smp_set_err(int err, u16 status, const char *what,
			      struct netlink_ext_ack *extack)
{
	if (err == -EINVAL)
		FABRIQ_ERR_FMT(extack, "the port's SMA refused the setting (MAD status)",
			       "the port's SMA refused the %s (MAD status 0x%04x)", what, status);
	else if (err == -EIO)
		FABRIQ_ERR_FMT(extack, "the device did not answer an SMP",
			       "the device did not answer the %s SMP", what);
	else if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG(extack, "the device does not process MADs");
	return err;
}

static int fabriq_port_info_write(struct ib_device *ibdev, u32 port,
				  const struct fabriq_qos_cfg *cfg, u32 fields, u8 *data,
				  struct netlink_ext_ack *extack)
{
	struct ib_port_info *pi = (struct ib_port_info *)data;
	u16 status;
	int err;

	err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, port,
			 data, &status);
	if (err)
		return fabriq_smp_set_err(err, status, "PortInfo", extack);
	/* "No change" for everything that would move the link or the port. */
	pi->link_width_enabled = 0;
	pi->linkspeed_portstate &= 0xf0;		/* PortState 0: no state change */
	pi->portphysstate_linkdown &= 0x0f;		/* PortPhysicalState 0: no change */
	pi->linkspeedactive_enabled &= 0xf0;		/* LinkSpeedEnabled 0: no change */
	pi->clientrereg_resv_subnetto &= ~FABRIQ_PI_CLIENT_REREG;
	data[FABRIQ_PI_SPEED_EXT_ENABLED] &= 0xe0;	/* LinkSpeedExtEnabled 0: no change */
	pi->operationalvl_pei_peo_fpi_fpo &= 0x0f;	/* OperationalVLs 0: no change */
	if (fields & BIT(FABRIQ_QOS_F_OPER_VLS))
		pi->operationalvl_pei_peo_fpi_fpo |= fabriq_vls_encode(cfg->oper_vls) << 4;
	if (fields & BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT))
		pi->vl_high_limit = cfg->vl_high_limit;
	err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_SET, IB_SMP_ATTR_PORT_INFO, port,
			 data, &status);
	return fabriq_smp_set_err(err, status, "PortInfo", extack);
}

static int fabriq_vlarb_write(struct ib_device *ibdev, u32 port, u32 first_block, u8 cap,
			      const struct fabriq_qos_vlarb *t, u8 *data,
			      struct netlink_ext_ack *extack)
{
	struct ib_vl_weight_elem *e = (void *)data;
	u32 block;
	u16 status;
	int i, err;

	for (block = 0; block * FABRIQ_VLARB_BLOCK_ENTRIES < cap; block++) {
		memset(data, 0, FABRIQ_SMP_DATA_LEN);
		for (i = 0; i < FABRIQ_VLARB_BLOCK_ENTRIES; i++) {
			int n = block * FABRIQ_VLARB_BLOCK_ENTRIES + i;

			if (n >= t->len)
				break;
			e[i].vl = t->e[n].vl;
			e[i].weight = t->e[n].weight;
		}
		err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_SET, IB_SMP_ATTR_VL_ARB_TABLE,
				 (first_block + block) << 16, data, &status);
		if (err)
			return fabriq_smp_set_err(err, status, "VLArbitrationTable", extack);
	}
	return 0;
}

static int fabriq_tables_write(struct ib_device *ibdev, u32 port,
			       const struct fabriq_qos_cfg *cfg, u32 fields,
			       const struct fabriq_qos_caps *caps, u8 *data,
			       struct netlink_ext_ack *extack)
{
	u16 status;
	int i, err;

	if (fields & BIT(FABRIQ_QOS_F_SL2VL)) {
		memset(data, 0, FABRIQ_SMP_DATA_LEN);
		for (i = 0; i < FABRIQ_QOS_NUM_SL; i += 2)
			data[i / 2] = cfg->sl2vl[i] << 4 | cfg->sl2vl[i + 1];
		err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_SET, IB_SMP_ATTR_SL_TO_VL_TABLE, 0,
				 data, &status);
		if (err)
			return fabriq_smp_set_err(err, status, "SLtoVLMappingTable", extack);
	}
	if (fields & BIT(FABRIQ_QOS_F_VLARB_LOW)) {
		err = fabriq_vlarb_write(ibdev, port, 1, caps->vlarb_low_cap, &cfg->vlarb_low,
					 data, extack);
		if (err)
			return err;
	}
	if (fields & BIT(FABRIQ_QOS_F_VLARB_HIGH)) {
		err = fabriq_vlarb_write(ibdev, port, 3, caps->vlarb_high_cap, &cfg->vlarb_high,
					 data, extack);
		if (err)
			return err;
	}
	return 0;
}

/**
 * fabriq_qos_ib_write() - program IB fields of @cfg into the port
 * @hp: the port
 * @cfg: the values, validated against the port's capabilities
 * @fields: which fields of @cfg to program
 * @old: the port's state read just before, to order the writes
 * @caps: the port's capabilities, read with @old
 * @extack: for the reason of a failure
 *
 * When OperationalVLs shrinks, the tables go first so that no SL is left
 * on a VL that is going away; otherwise PortInfo goes first.
 *
 * Context: process context; fdev->lock held.  Return: 0 or a negative errno.
 */
static int fabriq_qos_ib_write(const struct fabriq_qos_hwport *hp,
			       const struct fabriq_qos_cfg *cfg, u32 fields,
			       const struct fabriq_qos_cfg *old,
			       const struct fabriq_qos_caps *caps,
			       struct netlink_ext_ack *extack)
{
	struct ib_device *ibdev = hp->ibdev;
	u32 port = hp->port;
	u32 pi_fields = fields & (BIT(FABRIQ_QOS_F_OPER_VLS) | BIT(FABRIQ_QOS_F_VL_HIGH_LIMIT));
	bool shrink = (fields & BIT(FABRIQ_QOS_F_OPER_VLS)) && cfg->oper_vls < old->oper_vls;
	u8 *data;
	int err = 0;

	data = kzalloc(FABRIQ_SMP_DATA_LEN, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	if (pi_fields && !shrink)
		err = fabriq_port_info_write(ibdev, port, cfg, pi_fields, data, extack);
	if (!err)
		err = fabriq_tables_write(ibdev, port, cfg, fields, caps, data, extack);
	if (!err && pi_fields && shrink)
		err = fabriq_port_info_write(ibdev, port, cfg, pi_fields, data, extack);
	kfree(data);
	return err;
}

/* ---- validation ---- */

/*
 * The fields whose values are VLs, with their messages as static strings:
 * kernels before 6.2 cannot format extack messages, and these still name
 * the field there.
 */
struct fabriq_qos_vl_field {
	const char *name;
	const char *vl15;
	const char *oper;
	const char *cap;
};

static const struct fabriq_qos_vl_field fabriq_qos_sl2vl_field = {
	.name = "sl2vl",
	.vl15 = "sl2vl: VL15 is reserved for subnet management",
	.oper = "sl2vl: a VL is not below the port's OperVLs",
};

static const struct fabriq_qos_vl_field fabriq_qos_vlarb_high_field = {
	.name = "vlarb-high",
	.vl15 = "vlarb-high: VL15 is reserved for subnet management",
	.oper = "vlarb-high: a VL is not below the port's OperVLs",
	.cap = "vlarb-high: more entries than the port's high-priority table holds",
};

static const struct fabriq_qos_vl_field fabriq_qos_vlarb_low_field = {
	.name = "vlarb-low",
	.vl15 = "vlarb-low: VL15 is reserved for subnet management",
	.oper = "vlarb-low: a VL is not below the port's OperVLs",
	.cap = "vlarb-low: more entries than the port's low-priority table holds",
};

static int fabriq_qos_check_vl(u8 vl, int oper, const struct fabriq_qos_vl_field *fld,
			       struct netlink_ext_ack *extack)
{
	if (vl == 15) {
		fabriq_extack_msg(extack, fld->vl15);
		return -EINVAL;
	}
	if (vl >= oper) {
		FABRIQ_ERR_FMT(extack, fld->oper,
			       "%s: VL %u is not below the port's OperVLs (valid 0-%d)",
			       fld->name, vl, oper - 1);
		return -EINVAL;
	}
	return 0;
}

static int fabriq_qos_check_vlarb(const struct fabriq_qos_vlarb *t, u8 cap, int oper,
				  const struct fabriq_qos_vl_field *fld,
				  struct netlink_ext_ack *extack)
{
	int i, err;

	if (t->len > cap) {
		FABRIQ_ERR_FMT(extack, fld->cap, "%s: %u entries, the port's table holds %u",
			       fld->name, t->len, cap);
		return -EINVAL;
	}
	for (i = 0; i < t->len; i++) {
		err = fabriq_qos_check_vl(t->e[i].vl, oper, fld, extack);
		if (err)
			return err;
	}
	return 0;
}

/* The IB fields of a change, against the port's OperVLs, VLCap and VLArb capacities. */
static int fabriq_qos_ib_validate(const struct fabriq_qos_cfg *c, u32 fields,
				  const struct fabriq_qos_cfg *hw,
				  const struct fabriq_qos_caps *caps,
				  struct netlink_ext_ack *extack)
{
	int oper = fabriq_qos_src(c, hw, FABRIQ_QOS_F_OPER_VLS)->oper_vls;
	const u8 *sl2vl = fabriq_qos_src(c, hw, FABRIQ_QOS_F_SL2VL)->sl2vl;
	int i, err;

	if ((fields & BIT(FABRIQ_QOS_F_OPER_VLS)) && c->oper_vls > caps->vl_cap) {
		FABRIQ_ERR_FMT(extack, "oper-vls: more VLs than the port's VLCap",
			       "oper-vls: %u exceeds the port's VLCap (%u)", c->oper_vls,
			       caps->vl_cap);
		return -EINVAL;
	}
	if (fields & (BIT(FABRIQ_QOS_F_SL2VL) | BIT(FABRIQ_QOS_F_OPER_VLS))) {
		for (i = 0; i < FABRIQ_QOS_NUM_SL; i++) {
			err = fabriq_qos_check_vl(sl2vl[i], oper, &fabriq_qos_sl2vl_field, extack);
			if (err)
				return err;
		}
	}
	if (fields & BIT(FABRIQ_QOS_F_VLARB_HIGH)) {
		err = fabriq_qos_check_vlarb(&c->vlarb_high, caps->vlarb_high_cap, oper,
					     &fabriq_qos_vlarb_high_field, extack);
		if (err)
			return err;
	}
	if (fields & BIT(FABRIQ_QOS_F_VLARB_LOW)) {
		err = fabriq_qos_check_vlarb(&c->vlarb_low, caps->vlarb_low_cap, oper,
					     &fabriq_qos_vlarb_low_field, extack);
		if (err)
			return err;
	}
	return 0;
}

static void fabriq_qos_ib_show_caps(struct seq_file *s, const struct fabriq_qos_caps *caps)
{
	seq_printf(s, "vl_cap %u\nvlarb_high_cap %u\nvlarb_low_cap %u\n",
		   caps->vl_cap, caps->vlarb_high_cap, caps->vlarb_low_cap);
}

const struct fabriq_qos_ops fabriq_qos_ib_ops = {
	.name = "ib",
	.fields = FABRIQ_QOS_IB_FIELDS & ~FABRIQ_QOS_SOFT_FIELDS,
	.read = fabriq_qos_ib_read,
	.validate = fabriq_qos_ib_validate,
	.write = fabriq_qos_ib_write,
	.show_caps = fabriq_qos_ib_show_caps,
};
