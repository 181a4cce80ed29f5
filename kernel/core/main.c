// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module init/exit ladder of fabriq.ko.
 *
 * debugfs first (everybody hangs files off it), then the netlink family
 * (assembled from the subsystems' commands; device add/remove sends
 * notifications through it), then each subsystem's init, then the
 * ib_client (which runs the subsystems' device hooks as devices appear),
 * and last each subsystem's start (listeners, /dev/fabriq).  Exit undoes it
 * in reverse.  The subsystems are kernel/subsystems.c's list; this file
 * names none of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "fabriq.h"
#include "subsys.h"

#define FABRIQ_VERSION "0.1.0"

/* undo init (@start false) or start (@start true) of the first @n subsystems */
static void fabriq_subsys_undo(unsigned int n, bool start)
{
	const struct fabriq_subsys *ss;

	while (n--) {
		ss = fabriq_subsystems[n];
		if (start && ss->stop)
			ss->stop();
		else if (!start && ss->exit)
			ss->exit();
	}
}

/* init (@start false) or start (@start true) every subsystem, in order */
static int fabriq_subsys_do(bool start)
{
	struct fabriq_subsys *ss;
	unsigned int i;
	int err;

	fabriq_for_each_subsys(i, ss) {
		int (*fn)(void) = start ? ss->start : ss->init;

		err = fn ? fn() : 0;
		if (err) {
			pr_err("%s: %s failed: %d\n", ss->name, start ? "start" : "init", err);
			fabriq_subsys_undo(i, start);
			return err;
		}
	}
	return 0;
}

static int __init fabriq_init(void)
{
	struct fabriq_subsys *ss;
	unsigned int i;
	int err;

	/* each subsystem's index into fabriq_port.subsys_data[] */
	fabriq_for_each_subsys(i, ss)
		ss->id = i;

	fabriq_debugfs_init();

	err = fabriq_nl_init();
	if (err)
		goto err_debugfs;

	err = fabriq_subsys_do(false);
	if (err)
		goto err_nl;

	err = fabriq_device_init();
	if (err)
		goto err_subsys;

	err = fabriq_subsys_do(true);
	if (err)
		goto err_device;

	pr_info("version " FABRIQ_VERSION " loaded\n");
	return 0;

err_device:
	fabriq_device_exit();
err_subsys:
	fabriq_subsys_undo(fabriq_n_subsystems, false);
err_nl:
	fabriq_nl_exit();
err_debugfs:
	fabriq_debugfs_exit();
	return err;
}

static void __exit fabriq_exit(void)
{
	fabriq_subsys_undo(fabriq_n_subsystems, true);
	fabriq_device_exit();
	fabriq_subsys_undo(fabriq_n_subsystems, false);
	fabriq_nl_exit();
	fabriq_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(fabriq_init);
module_exit(fabriq_exit);

MODULE_AUTHOR("fabriq developers");
MODULE_DESCRIPTION("fabriq: collective offload, congestion telemetry and QoS for RDMA fabrics");
MODULE_LICENSE("GPL");
MODULE_VERSION(FABRIQ_VERSION);
