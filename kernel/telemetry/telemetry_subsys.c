// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry_subsys.c - how telemetry plugs into the core: a sampler per
 * port (allocated with the port, started when a supported device is added,
 * stopped before the device goes), the detectors' event log, its netlink
 * commands and its debugfs files.
 */
#include "core/fabriq.h"
#include "telemetry.h"

static int fq_tm_subsys_init(void)
{
	int err;

	err = fq_det_init();
	if (err)
		return err;
	err = fq_tm_init();
	if (err) {
		fq_det_exit();
		return err;
	}
	fq_tm_debugfs_init();
	return 0;
}

static void fq_tm_subsys_exit(void)
{
	fq_tm_exit();
	fq_det_exit();
}

static void fq_tm_subsys_dev_add(struct fabriq_dev *fdev)
{
	u32 i;

	for (i = 0; i < fdev->num_ports; i++)
		fq_tm_port_start(&fdev->ports[i]);
}

/* The samplers call into the driver; they stop before it goes. */
static void fq_tm_subsys_dev_remove(struct fabriq_dev *fdev)
{
	u32 i;

	for (i = 0; i < fdev->num_ports; i++)
		fq_tm_port_stop(&fdev->ports[i]);
}

struct fabriq_subsys fq_telemetry_subsys = {
	.name = "telemetry",
	.init = fq_tm_subsys_init,
	.exit = fq_tm_subsys_exit,
	.nl_ops = fq_tm_nl_ops,
	.port_init = fq_tm_port_alloc,
	.port_release = fq_tm_port_free,
	.dev_add = fq_tm_subsys_dev_add,
	.dev_remove = fq_tm_subsys_dev_remove,
	.debugfs_port = fq_tm_debugfs_port_add,
};
