// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module init/exit ladder of fabriq.ko.
 *
 * debugfs first (others hang their files off it), then the netlink family
 * (device add/remove sends notifications through it), then the ib_client
 * (which calls both as devices appear), the ping listener, and last
 * /dev/fabriq.  Exit undoes it in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "fabriq.h"
#include "qos/qos.h"
#include "coll/comm.h"
#include "telemetry/telemetry.h"

#define FABRIQ_VERSION "0.1.0"

static int __init fabriq_init(void)
{
	int err;

	fabriq_debugfs_init();

	err = fq_det_init();
	if (err)
		goto err_debugfs;

	err = fq_tm_init();
	if (err)
		goto err_det;

	err = fabriq_nl_init();
	if (err)
		goto err_tm;

	err = fabriq_qos_init();
	if (err)
		goto err_nl;

	err = fabriq_device_init();
	if (err)
		goto err_qos;

	err = fabriq_ping_init();
	if (err)
		goto err_device;

	err = fq_comm_init();
	if (err)
		goto err_ping;

	pr_info("version " FABRIQ_VERSION " loaded\n");
	return 0;

err_ping:
	fabriq_ping_exit();
err_device:
	fabriq_device_exit();
err_qos:
	fabriq_qos_exit();
err_nl:
	fabriq_nl_exit();
err_tm:
	fq_tm_exit();
err_det:
	fq_det_exit();
err_debugfs:
	fabriq_debugfs_exit();
	return err;
}

static void __exit fabriq_exit(void)
{
	fq_comm_exit();
	fabriq_ping_exit();
	fabriq_device_exit();
	fabriq_qos_exit();
	fabriq_nl_exit();
	fq_tm_exit();
	fq_det_exit();
	fabriq_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(fabriq_init);
module_exit(fabriq_exit);

MODULE_AUTHOR("fabriq developers");
MODULE_DESCRIPTION("fabriq: collective offload, congestion telemetry and QoS for RDMA fabrics");
MODULE_LICENSE("GPL");
MODULE_VERSION(FABRIQ_VERSION);
