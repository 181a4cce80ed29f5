/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim/rdma/rdma_cm.h - the part of an rdma_cm id that
 * kernel/qos/qos_path.c touches, with the kernel's names, so that
 * selftests/fabriq_qos_path can build that file in userspace: the route
 * (path records as rdma_cm leaves them after route resolution or a
 * connect request), the device's protocol on the port, and the TOS that
 * rdma_set_service_type() records.
 */
#ifndef _FQ_KSHIM_RDMA_CM_H
#define _FQ_KSHIM_RDMA_CM_H

struct sa_path_rec {
	u8 traffic_class;
	u8 sl;
};

struct rdma_route {
	struct sa_path_rec *path_rec;
	struct sa_path_rec *path_rec_outbound;
	int num_pri_alt_paths;
};

/* the model's device: the link layer of its only port */
struct ib_device {
	bool ib;
};

struct rdma_cm_id {
	struct ib_device *device;
	u32 port_num;
	struct rdma_route route;
	u8 tos;
	bool tos_set;
};

static inline bool rdma_protocol_ib(const struct ib_device *device, u32 port_num)
{
	return device->ib;
}

static inline void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	id->tos = tos;
	id->tos_set = true;
}

#endif
