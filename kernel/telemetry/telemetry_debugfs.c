// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry_debugfs.c - the telemetry part of /sys/kernel/debug/fabriq/:
 *
 *   events            the event log, every subject
 *
 * and in each port's directory devices/<dev>/port<N>/telemetry/:
 *
 *   counters          the newest sample: every catalogue counter, "-"
 *                     where the port lacks it
 *   rates             per second, between the two newest samples
 *   pause             RoCE: pause frames and duration per priority
 *   vl                IB: XmitWait per VL
 *   events            the event log, this port only
 *
 * Documentation/telemetry.md describes every column.
 */
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "core/fabriq.h"
#include "telemetry.h"

/* What a file shows: a snapshot (too big for the stack), or NULL. */
static struct fq_tm_snapshot *fq_tm_view(struct fabriq_port *port)
{
	struct fq_tm_snapshot *v = kmalloc(sizeof(*v), GFP_KERNEL);

	if (v)
		fq_tm_snapshot(fq_tm(port), v);
	return v;
}

/* @smp: the sample (or rates) whose counters to show, with its present bits */
static void fq_tm_show_ctrs(struct seq_file *s, const struct fq_tm_snapshot *v,
			    const struct fq_tm_sample *smp)
{
	struct fq_tm_config cfg;
	int i;

	fq_tm_config_get(&cfg);
	seq_printf(s, "# interval_ms %u samples %u/%u sample_ns %llu\n", cfg.interval_ms,
		   v->count, v->ring_size, v->samples ? div64_u64(v->sample_ns, v->samples) : 0);
	for (i = 1; i < FQ_TM_NUM_CTR; i++) {
		if (test_bit(i, smp->present))
			seq_printf(s, "%-20s %llu\n", fq_ctr_names[i], smp->ctr[i]);
		else
			seq_printf(s, "%-20s -\n", fq_ctr_names[i]);
	}
}

static int fq_tm_counters_show(struct seq_file *s, void *unused)
{
	struct fq_tm_snapshot *v = fq_tm_view(s->private);

	if (!v)
		return -ENOMEM;
	if (v->has_now)
		fq_tm_show_ctrs(s, v, &v->now);
	else
		seq_puts(s, "# no sample yet\n");
	kfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_tm_counters);

static int fq_tm_rates_show(struct seq_file *s, void *unused)
{
	struct fq_tm_snapshot *v = fq_tm_view(s->private);

	if (!v)
		return -ENOMEM;
	if (v->has_rate)
		fq_tm_show_ctrs(s, v, &v->rate);
	else
		seq_puts(s, "# fewer than two samples yet\n");
	kfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_tm_rates);

static int fq_tm_pause_show(struct seq_file *s, void *unused)
{
	struct fq_tm_snapshot *v = fq_tm_view(s->private);
	int c, p;

	if (!v)
		return -ENOMEM;
	if (!v->has_now || !v->has_pause) {
		seq_puts(s, "# no per-priority pause counters on this port\n");
		kfree(v);
		return 0;
	}
	seq_puts(s, "prio");
	for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
		seq_printf(s, " %18s", fq_pause_names[c]);
	for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
		seq_printf(s, " %18s/s", fq_pause_names[c]);
	seq_putc(s, '\n');
	for (p = 0; p < FQ_TM_NUM_PRIO; p++) {
		seq_printf(s, "%4d", p);
		for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
			seq_printf(s, " %18llu", v->now.pause[c][p]);
		for (c = 0; c < FABRIQ_PAUSE_NUM; c++)
			seq_printf(s, " %20llu", v->has_rate ? v->rate.pause[c][p] : 0);
		seq_putc(s, '\n');
	}
	kfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_tm_pause);

static int fq_tm_vl_show(struct seq_file *s, void *unused)
{
	struct fq_tm_snapshot *v = fq_tm_view(s->private);
	int vl;

	if (!v)
		return -ENOMEM;
	if (!v->has_now || !v->now.vl_present) {
		seq_puts(s, "# no per-VL XmitWait counters on this port\n");
		kfree(v);
		return 0;
	}
	seq_printf(s, "%-3s %12s %14s\n", "vl", "xmit_wait", "xmit_wait/s");
	for (vl = 0; vl < FABRIQ_NUM_VL; vl++)
		if (v->now.vl_present & BIT(vl))
			seq_printf(s, "%-3d %12llu %14llu\n", vl, v->now.vl_wait[vl],
				   v->has_rate ? v->rate.vl_wait[vl] : 0);
	kfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_tm_vl);

static int fq_tm_port_events_show(struct seq_file *s, void *unused)
{
	struct fabriq_port *port = s->private;

	fq_det_log_show(s, port->fdev->index, port->num);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_tm_port_events);

static int fq_tm_events_show(struct seq_file *s, void *unused)
{
	fq_det_log_show(s, U32_MAX, 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_tm_events);

/**
 * fq_tm_debugfs_port_add() - a port's telemetry files
 * @port: the port
 * @dir: its debugfs directory
 */
void fq_tm_debugfs_port_add(struct fabriq_port *port, struct dentry *dir)
{
	debugfs_create_file("counters", 0444, dir, port, &fq_tm_counters_fops);
	debugfs_create_file("rates", 0444, dir, port, &fq_tm_rates_fops);
	debugfs_create_file("pause", 0444, dir, port, &fq_tm_pause_fops);
	debugfs_create_file("vl", 0444, dir, port, &fq_tm_vl_fops);
	debugfs_create_file("events", 0444, dir, port, &fq_tm_port_events_fops);
}

/**
 * fq_tm_debugfs_init() - the event log at the root
 */
void fq_tm_debugfs_init(void)
{
	debugfs_create_file("events", 0444, fabriq_debugfs_root(), NULL, &fq_tm_events_fops);
}
