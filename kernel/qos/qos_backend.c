// SPDX-License-Identifier: GPL-2.0
/*
 * qos_backend.c - the registry of QoS backend ops tables that drivers
 * register with fabriq (fabriq_backend.h), and the port backend
 * (fabriq_qos_driver_ops) that calls through them.
 *
 * One entry per RDMA device.  The registry lock is held across every call
 * into a backend, so a driver's unregister waits for calls in flight and a
 * table is never used after it was withdrawn.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "core/fabriq.h"
#include "fabriq_backend.h"
#include "qos.h"

struct fabriq_qos_backend {
	struct list_head list;
	struct ib_device *ibdev;
	const struct fabriq_qos_backend_ops *ops;
};

/* protects fabriq_qos_backends; held across calls into backend ops */
static DEFINE_MUTEX(fabriq_qos_backends_lock);
static LIST_HEAD(fabriq_qos_backends);

static struct fabriq_qos_backend *fabriq_qos_backend_find(struct ib_device *ibdev)
{
	struct fabriq_qos_backend *b;

	lockdep_assert_held(&fabriq_qos_backends_lock);
	list_for_each_entry(b, &fabriq_qos_backends, list)
		if (b->ibdev == ibdev)
			return b;
	return NULL;
}

/**
 * fabriq_qos_backend_register() - a driver offers a QoS backend for a device
 * @ibdev: a registered RDMA device of the driver
 * @ops: the ops table; must outlive the registration
 *
 * Context: process context.  Return: 0, -EEXIST, -EINVAL or -ENOMEM.
 */
int fabriq_qos_backend_register(struct ib_device *ibdev,
				const struct fabriq_qos_backend_ops *ops)
{
	struct fabriq_qos_backend *b;
	int err = 0;

	if (!ibdev || !ops || !ops->name || !ops->ecn_get || !ops->ecn_set)
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->ibdev = ibdev;
	b->ops = ops;

	mutex_lock(&fabriq_qos_backends_lock);
	if (fabriq_qos_backend_find(ibdev))
		err = -EEXIST;
	else
		list_add_tail(&b->list, &fabriq_qos_backends);
	mutex_unlock(&fabriq_qos_backends_lock);
	if (err)
		kfree(b);
	else
		dev_dbg(&ibdev->dev, "fabriq: QoS backend %s\n", ops->name);
	return err;
}
EXPORT_SYMBOL_GPL(fabriq_qos_backend_register);

/**
 * fabriq_qos_backend_unregister() - withdraw a device's QoS backend
 * @ibdev: the device; nothing happens if it has none
 *
 * Waits for calls into the backend that are in flight.
 *
 * Context: process context.
 */
void fabriq_qos_backend_unregister(struct ib_device *ibdev)
{
	struct fabriq_qos_backend *b;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	if (b)
		list_del(&b->list);
	mutex_unlock(&fabriq_qos_backends_lock);
	kfree(b);
}
EXPORT_SYMBOL_GPL(fabriq_qos_backend_unregister);

/**
 * fabriq_qos_backend_name() - the name of a device's backend
 * @ibdev: the device
 * @buf: receives the name, or "none"
 * @len: size of @buf
 *
 * Context: process context.
 */
void fabriq_qos_backend_name(struct ib_device *ibdev, char *buf, size_t len)
{
	struct fabriq_qos_backend *b;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	strscpy(buf, b ? b->ops->name : "none", len);
	mutex_unlock(&fabriq_qos_backends_lock);
}

/* Check one priority's ECN setting before a driver sees it. */
static int fabriq_qos_ecn_check(u8 prio, const struct fabriq_ecn_prio *ecn,
				struct netlink_ext_ack *extack)
{
	if (prio >= FABRIQ_QOS_NUM_PRIO) {
		NL_SET_ERR_MSG(extack, "ECN priority must be 0-7");
		return -EINVAL;
	}
	if (ecn->min_bytes > ecn->max_bytes) {
		NL_SET_ERR_MSG(extack, "ECN minimum threshold exceeds the maximum");
		return -EINVAL;
	}
	if (ecn->max_prob < 1 || ecn->max_prob > 100) {
		NL_SET_ERR_MSG(extack, "ECN marking probability must be 1-100 percent");
		return -EINVAL;
	}
	return 0;
}

/*
 * The driver's backend of a port: it owns ECN, and trust when it has trust
 * ops, for as long as the driver keeps it registered.  The registry lock
 * is held across each call, so a driver's unregister waits for it.
 */
static int fabriq_qos_driver_read(const struct fabriq_qos_hwport *hp, u32 want,
				  struct fabriq_qos_cfg *hw, struct fabriq_qos_caps *caps,
				  u32 *owned)
{
	const struct fabriq_qos_backend_ops *ops;
	struct fabriq_qos_backend *b;
	struct fabriq_ecn_prio ecn;
	u8 trust, p;

	*owned = 0;
	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(hp->ibdev);
	if (!b)
		goto out;
	ops = b->ops;
	if (want & BIT(FABRIQ_QOS_F_TRUST) && ops->trust_get && ops->trust_set) {
		*owned |= BIT(FABRIQ_QOS_F_TRUST);
		if (!ops->trust_get(hp->ibdev, hp->port, &trust)) {
			hw->trust = trust;
			hw->present |= BIT(FABRIQ_QOS_F_TRUST);
		}
	}
	if (want & BIT(FABRIQ_QOS_F_ECN)) {
		*owned |= BIT(FABRIQ_QOS_F_ECN);
		strscpy(caps->ecn_backend, ops->name, sizeof(caps->ecn_backend));
		for (p = 0; p < FABRIQ_QOS_NUM_PRIO; p++) {
			if (ops->ecn_get(hp->ibdev, hp->port, p, &ecn))
				continue;
			hw->ecn[p] = ecn;
			hw->ecn_prios |= BIT(p);
		}
		if (hw->ecn_prios)
			hw->present |= BIT(FABRIQ_QOS_F_ECN);
	}
out:
	mutex_unlock(&fabriq_qos_backends_lock);
	return 0;
}

/* ECN has no backend of its own on this port: no driver backend, no netdev. */
static int fabriq_qos_driver_validate(const struct fabriq_qos_cfg *c, u32 fields,
				      const struct fabriq_qos_cfg *hw,
				      const struct fabriq_qos_caps *caps,
				      struct netlink_ext_ack *extack)
{
	if ((fields & BIT(FABRIQ_QOS_F_ECN)) && !(caps->owned_all & BIT(FABRIQ_QOS_F_ECN))) {
		NL_SET_ERR_MSG(extack, "ecn: the port has neither an ECN backend nor a netdev");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int fabriq_qos_driver_write(const struct fabriq_qos_hwport *hp,
				   const struct fabriq_qos_cfg *cfg, u32 fields,
				   const struct fabriq_qos_cfg *old,
				   const struct fabriq_qos_caps *caps,
				   struct netlink_ext_ack *extack)
{
	const struct fabriq_qos_backend_ops *ops;
	struct fabriq_qos_backend *b;
	int p, err = 0;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(hp->ibdev);
	if (!b) {
		NL_SET_ERR_MSG(extack, "the device withdrew its QoS backend");
		err = -EOPNOTSUPP;
		goto out;
	}
	ops = b->ops;
	if (fields & BIT(FABRIQ_QOS_F_TRUST)) {
		err = ops->trust_set ? ops->trust_set(hp->ibdev, hp->port, cfg->trust, extack) :
				       -EOPNOTSUPP;
		if (err)
			goto out;
	}
	for (p = 0; (fields & BIT(FABRIQ_QOS_F_ECN)) && p < FABRIQ_QOS_NUM_PRIO; p++) {
		if (!(cfg->ecn_prios & BIT(p)))
			continue;
		err = fabriq_qos_ecn_check(p, &cfg->ecn[p], extack);
		if (!err)
			err = ops->ecn_set(hp->ibdev, hp->port, p, &cfg->ecn[p], extack);
		if (err)
			goto out;
	}
out:
	mutex_unlock(&fabriq_qos_backends_lock);
	return err;
}

const struct fabriq_qos_ops fabriq_qos_driver_ops = {
	.name = "driver",
	.fields = BIT(FABRIQ_QOS_F_TRUST) | BIT(FABRIQ_QOS_F_ECN),
	.read = fabriq_qos_driver_read,
	.validate = fabriq_qos_driver_validate,
	.write = fabriq_qos_driver_write,
};
