/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qos_path.h - the QoS one of fabriq's own rdma_cm connections asks of
 * the fabric (traffic class, InfiniBand service level), and where it goes
 * on the route: see qos_path.c.  Free of kernel headers, so that the
 * unit test (selftests/fabriq_qos_path) builds qos_path.c in userspace.
 */
#ifndef _FABRIQ_QOS_PATH_H
#define _FABRIQ_QOS_PATH_H

#include <linux/types.h>

struct rdma_cm_id;

/**
 * struct fabriq_qos_path - a connection's class of service
 * @tclass: traffic class (RoCE: the IP TOS byte; IB: the QoS class of
 *	the SA path query, for IPv4 addresses)
 * @sl: service level (IB; on RoCE what rdma_cm derives from @tclass:
 *	the VLAN egress map's or the netdev's priority, else 0)
 * @has_tclass: @tclass is set
 * @has_sl: @sl is set
 */
struct fabriq_qos_path {
	u8 tclass;
	u8 sl;
	bool has_tclass;
	bool has_sl;
};

void fabriq_qos_path_ask(struct rdma_cm_id *id, const struct fabriq_qos_path *want);
void fabriq_qos_path_route(struct rdma_cm_id *id, const struct fabriq_qos_path *want);
void fabriq_qos_path_used(const struct rdma_cm_id *id, struct fabriq_qos_path *used);

#endif
