/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ping.h - fabriq ping: RC round trips over rdma_cm between fabriq
 * instances and the listener that answers them (ping.c, which also holds
 * the subsystem's descriptor), and the PING command, which runs them in
 * the background (ping_netlink.c).
 */
#ifndef _FABRIQ_PING_H
#define _FABRIQ_PING_H

#include <net/genetlink.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/fabriq.h>

struct netlink_ext_ack;
/**
 * struct fabriq_ping_result - what one fabriq ping used and measured
 * @dev_name: the RDMA device the destination resolved to
 * @port: its port
 * @has_tclass: @tclass was set on the connection (the port's "tc" intent)
 * @tclass: traffic class
 * @sent: round trips started
 * @received: round trips answered in time
 * @rtt_min_ns: fastest round trip
 * @rtt_max_ns: slowest round trip
 * @rtt_total_ns: sum of the answered round trips
 */
struct fabriq_ping_result {
	char dev_name[FABRIQ_DEV_NAME_MAX];
	u32 port;
	bool has_tclass;
	u8 tclass;
	u32 sent;
	u32 received;
	u64 rtt_min_ns;
	u64 rtt_max_ns;
	u64 rtt_total_ns;
};

/**
 * struct fabriq_ping_opts - how to ping
 * @count: round trips, 1-1000
 * @timeout_ms: how long each may take
 * @interval_ms: pause between round trips
 */
struct fabriq_ping_opts {
	u32 count;
	u32 timeout_ms;
	u32 interval_ms;
};

/**
 * struct fabriq_ping_stop - how a running ping is told to stop
 * @wq: the ping sleeps here, in every wait
 * @stopped: set by fabriq_ping_stop()
 */
struct fabriq_ping_stop {
	wait_queue_head_t wq;
	bool stopped;
};

static inline void fabriq_ping_stop(struct fabriq_ping_stop *stop)
{
	WRITE_ONCE(stop->stopped, true);
	wake_up_all(&stop->wq);
}

struct sockaddr;
int fabriq_ping(struct sockaddr *src, struct sockaddr *dst, const struct fabriq_ping_opts *opts,
		struct fabriq_ping_result *res, struct netlink_ext_ack *extack,
		struct fabriq_ping_stop *stop);

/* ping_netlink.c: PING requests run in the background */
int fabriq_ping_runs_init(void);
void fabriq_ping_runs_exit(void);

extern const struct genl_ops fabriq_ping_nl_ops[];
extern struct fabriq_subsys fabriq_ping_subsys;

#endif /* _FABRIQ_PING_H */
