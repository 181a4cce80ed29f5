// SPDX-License-Identifier: GPL-2.0
/*
 * smp.c - subnet management packets to the local port's SMA, through
 * ib_device_ops.process_mad (the way the RDMA core's sysfs reads the PMA,
 * drivers/infiniband/core/sysfs.c): device infrastructure that QoS
 * (SLtoVL, VL arbitration, PortInfo) and telemetry (PortInfo) share.
 */
#include <linux/minmax.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "fabriq.h"

struct fabriq_smp_io {
	struct ib_mad in;
	struct ib_mad out;
};

/**
 * fabriq_smp() - one SMP to a local port's SMA
 * @ibdev: the device
 * @port: the port
 * @method: IB_MGMT_METHOD_GET or IB_MGMT_METHOD_SET
 * @attr_id: IB_SMP_ATTR_*
 * @attr_mod: the attribute modifier
 * @data: FABRIQ_SMP_DATA_LEN bytes: in for a Set, out for both
 * @status: the MAD status of the answer (0 when there is none)
 *
 * Context: process context.  Return: 0, -EOPNOTSUPP (no MAD processing),
 * -ENOMEM, -EIO (no answer), -EINVAL (the SMA refused: *@status holds the
 * MAD status).
 */
int fabriq_smp(struct ib_device *ibdev, u32 port, u8 method, __be16 attr_id,
	       u32 attr_mod, u8 *data, u16 *status)
{
	struct fabriq_smp_io *io;
	struct ib_smp *smp, *rsp;
	size_t out_size = sizeof(io->out);
	u16 pkey_index = 0;
	int ret, err = 0;

	*status = 0;
	if (!ibdev->ops.process_mad)
		return -EOPNOTSUPP;
	io = kzalloc(sizeof(*io), GFP_KERNEL);
	if (!io)
		return -ENOMEM;
	smp = (struct ib_smp *)&io->in;
	rsp = (struct ib_smp *)&io->out;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = attr_id;
	smp->attr_mod = cpu_to_be32(attr_mod);
	if (method == IB_MGMT_METHOD_SET)
		memcpy(smp->data, data, FABRIQ_SMP_DATA_LEN);

	ret = ibdev->ops.process_mad(ibdev, IB_MAD_IGNORE_MKEY, port, NULL, NULL,
				     &io->in, &io->out, &out_size, &pkey_index);
	if (!(ret & IB_MAD_RESULT_SUCCESS) || !(ret & IB_MAD_RESULT_REPLY)) {
		err = -EIO;
	} else {
		*status = be16_to_cpu(rsp->status) & ~be16_to_cpu(IB_SMP_DIRECTION);
		if (*status)
			err = -EINVAL;
		else
			memcpy(data, rsp->data, FABRIQ_SMP_DATA_LEN);
	}
	kfree(io);
	return err;
}

/**
 * fabriq_smp_get() - read one SMA attribute of a local port
 * @ibdev: the device
 * @port: the port
 * @attr_id: IB_SMP_ATTR_*
 * @attr_mod: the attribute modifier
 * @out: filled with the first @len bytes of the attribute
 * @len: at most 64
 *
 * Context: process context.  Return: 0 or -errno (see fabriq_smp()).
 */
int fabriq_smp_get(struct ib_device *ibdev, u32 port, __be16 attr_id, u32 attr_mod,
		   void *out, size_t len)
{
	u8 data[FABRIQ_SMP_DATA_LEN] = {};
	u16 status;
	int err;

	err = fabriq_smp(ibdev, port, IB_MGMT_METHOD_GET, attr_id, attr_mod, data, &status);
	if (!err)
		memcpy(out, data, min_t(size_t, len, sizeof(data)));
	return err;
}
