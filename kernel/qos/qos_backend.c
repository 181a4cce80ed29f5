// SPDX-License-Identifier: GPL-2.0
/*
 * qos_backend.c - the registry of QoS backend ops tables that drivers
 * register with fabriq (fabriq_backend.h), and fabriq's calls through them.
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

/**
 * fabriq_qos_ecn_get() - read one priority's ECN marking through the backend
 * @ibdev: the device
 * @port: port number
 * @prio: priority 0-7
 * @ecn: filled on success
 *
 * Context: process context.  Return: 0, -EOPNOTSUPP without a backend,
 * or the backend's error.
 */
int fabriq_qos_ecn_get(struct ib_device *ibdev, u32 port, u8 prio,
		       struct fabriq_ecn_prio *ecn)
{
	struct fabriq_qos_backend *b;
	int err = -EOPNOTSUPP;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	if (b)
		err = b->ops->ecn_get(ibdev, port, prio, ecn);
	mutex_unlock(&fabriq_qos_backends_lock);
	return err;
}

/**
 * fabriq_qos_ecn_set() - validate and program one priority's ECN marking
 * @ibdev: the device
 * @port: port number
 * @prio: priority 0-7
 * @ecn: the setting
 * @extack: for the reason of a refusal
 *
 * Context: process context.  Return: 0, -EINVAL for a bad setting,
 * -EOPNOTSUPP without a backend, or the backend's error.
 */
int fabriq_qos_ecn_set(struct ib_device *ibdev, u32 port, u8 prio,
		       const struct fabriq_ecn_prio *ecn, struct netlink_ext_ack *extack)
{
	struct fabriq_qos_backend *b;
	int err = -EOPNOTSUPP;

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
	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	if (b)
		err = b->ops->ecn_set(ibdev, port, prio, ecn, extack);
	else
		NL_SET_ERR_MSG(extack, "the device has no QoS backend for ECN");
	mutex_unlock(&fabriq_qos_backends_lock);
	return err;
}

/**
 * fabriq_qos_backend_has_trust() - can the device's backend program trust?
 * @ibdev: the device
 *
 * Context: process context.
 */
bool fabriq_qos_backend_has_trust(struct ib_device *ibdev)
{
	struct fabriq_qos_backend *b;
	bool ret;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	ret = b && b->ops->trust_get && b->ops->trust_set;
	mutex_unlock(&fabriq_qos_backends_lock);
	return ret;
}

/**
 * fabriq_qos_trust_get() - read a port's trust through the backend
 * @ibdev: the device
 * @port: port number
 * @trust: receives enum fabriq_qos_trust
 *
 * Context: process context.  Return: 0, -EOPNOTSUPP, or the backend's error.
 */
int fabriq_qos_trust_get(struct ib_device *ibdev, u32 port, u8 *trust)
{
	struct fabriq_qos_backend *b;
	int err = -EOPNOTSUPP;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	if (b && b->ops->trust_get)
		err = b->ops->trust_get(ibdev, port, trust);
	mutex_unlock(&fabriq_qos_backends_lock);
	return err;
}

/**
 * fabriq_qos_trust_set() - program a port's trust through the backend
 * @ibdev: the device
 * @port: port number
 * @trust: enum fabriq_qos_trust
 * @extack: for the reason of a refusal
 *
 * Context: process context.  Return: 0, -EOPNOTSUPP, or the backend's error.
 */
int fabriq_qos_trust_set(struct ib_device *ibdev, u32 port, u8 trust,
			 struct netlink_ext_ack *extack)
{
	struct fabriq_qos_backend *b;
	int err = -EOPNOTSUPP;

	mutex_lock(&fabriq_qos_backends_lock);
	b = fabriq_qos_backend_find(ibdev);
	if (b && b->ops->trust_set)
		err = b->ops->trust_set(ibdev, port, trust, extack);
	else
		NL_SET_ERR_MSG(extack, "trust: neither DCB APP trust nor a driver backend");
	mutex_unlock(&fabriq_qos_backends_lock);
	return err;
}
