// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry.c - the per-port sampler: when it runs, the ring of the last K
 * samples, and the rates computed from it.
 *
 * Each port has a delayed work on fabriq's own unbound workqueue, so
 * sampling runs in process context and never in the data path.  A sample
 * reads the device (telemetry_src.c) and, for RoCE ports, the netdev; the
 * detectors (detect.c) then look at the ring.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "core/compat.h"
#include "core/fabriq.h"
#include "telemetry.h"

#define FQ_TM_DEFAULT_INTERVAL_MS	100
#define FQ_TM_DEFAULT_RING		64

const char *const fq_ctr_names[FQ_TM_NUM_CTR] = FABRIQ_CTR_NAMES;
const char *const fq_pause_names[FABRIQ_PAUSE_NUM] = FABRIQ_PAUSE_NAMES;

static struct workqueue_struct *fq_tm_wq;

/* protects fq_tm_cfg writes; readers take a snapshot with READ_ONCE */
static DEFINE_MUTEX(fq_tm_cfg_lock);
static struct fq_tm_config fq_tm_cfg = {
	.interval_ms = FQ_TM_DEFAULT_INTERVAL_MS,
	.ring_samples = FQ_TM_DEFAULT_RING,
};

/**
 * fq_tm_config_get() - the sampler's settings
 * @cfg: filled
 */
void fq_tm_config_get(struct fq_tm_config *cfg)
{
	cfg->interval_ms = READ_ONCE(fq_tm_cfg.interval_ms);
	cfg->ring_samples = READ_ONCE(fq_tm_cfg.ring_samples);
}

/**
 * fq_tm_newest() - a sample from the ring
 * @tm: the port's sampler
 * @back: 0 for the newest, 1 for the one before, ...
 *
 * Context: tm->lock held.  Return: the sample, or NULL if the ring has fewer.
 */
const struct fq_tm_sample *fq_tm_newest(struct fq_tm_port *tm, u32 back)
{
	lockdep_assert_held(&tm->lock);
	if (back >= tm->count)
		return NULL;
	return &tm->ring[(tm->head + tm->ring_size - 1 - back) % tm->ring_size];
}

static u64 fq_per_sec(u64 now, u64 then, u64 dt_ns)
{
	return now >= then ? div64_u64((now - then) * 1000, max_t(u64, dt_ns / 1000000, 1)) : 0;
}

/**
 * fq_tm_rates() - per-second rates between the two newest samples
 * @tm: the port's sampler
 * @rate: filled like a sample (t_ns: the interval between them), with the
 *	  newer sample's present bits
 *
 * Context: tm->lock held.  Return: false if there are not two samples yet.
 */
bool fq_tm_rates(struct fq_tm_port *tm, struct fq_tm_sample *rate)
{
	const struct fq_tm_sample *a = fq_tm_newest(tm, 0), *b = fq_tm_newest(tm, 1);
	u64 dt;
	int i, p;

	if (!a || !b || a->t_ns <= b->t_ns)
		return false;
	dt = a->t_ns - b->t_ns;
	memset(rate, 0, sizeof(*rate));
	rate->t_ns = dt;
	for (i = 1; i < FQ_TM_NUM_CTR; i++)
		rate->ctr[i] = fq_per_sec(a->ctr[i], b->ctr[i], dt);
	for (i = 0; i < FABRIQ_PAUSE_NUM; i++)
		for (p = 0; p < FQ_TM_NUM_PRIO; p++)
			rate->pause[i][p] = fq_per_sec(a->pause[i][p], b->pause[i][p], dt);
	for (i = 0; i < FABRIQ_NUM_VL; i++)
		rate->vl_wait[i] = fq_per_sec(a->vl_wait[i], b->vl_wait[i], dt);
	bitmap_copy(rate->present, a->present, FQ_TM_NUM_CTR);
	rate->vl_present = a->vl_present;
	return true;
}

/* Read everything into @s.  Return: false if the device is gone. */
static bool fq_tm_read(struct fq_tm_port *tm, struct fq_tm_sample *s)
{
	struct fabriq_port *port = tm->port;
	struct fabriq_dev *fdev = port->fdev;
	struct net_device *ndev = NULL;
	int err;

	mutex_lock(&fdev->lock);
	err = fq_src_device(tm, s);
	if (!err && rdma_port_get_link_layer(fdev->ibdev, port->num) == IB_LINK_LAYER_ETHERNET)
		ndev = fabriq_port_netdev(fdev->ibdev, port->num);
	mutex_unlock(&fdev->lock);
	if (err)
		return false;
	if (ndev) {
		fq_src_netdev(tm, ndev, s);
		fq_src_qdisc(ndev, s);
		dev_put(ndev);
	}
	fq_src_own(tm, s);
	return true;
}

/**
 * fq_tm_snapshot() - copy a port's sampler state
 * @tm: the port's sampler
 * @sn: filled (all of it)
 *
 * Context: process context; takes @tm->lock.
 */
void fq_tm_snapshot(struct fq_tm_port *tm, struct fq_tm_snapshot *sn)
{
	const struct fq_tm_sample *now;

	memset(sn, 0, sizeof(*sn));
	mutex_lock(&tm->lock);
	now = fq_tm_newest(tm, 0);
	if (now) {
		sn->now = *now;
		sn->has_now = true;
	}
	sn->has_rate = fq_tm_rates(tm, &sn->rate);
	sn->has_pause = tm->has_pause;
	sn->count = tm->count;
	sn->ring_size = tm->ring_size;
	sn->sample_ns = tm->sample_ns;
	sn->samples = tm->samples;
	mutex_unlock(&tm->lock);
}

static void fq_tm_subject(struct fq_tm_port *tm, struct fq_ev_subject *subj)
{
	memset(subj, 0, sizeof(*subj));
	subj->dev_index = tm->port->fdev->index;
	subj->dev_name = tm->port->fdev->name;
	subj->port = tm->port->num;
	subj->prio = -1;
	subj->vl = -1;
	subj->peer_rank = -1;
}

static void fq_tm_work(struct work_struct *work)
{
	struct fq_tm_port *tm = container_of(to_delayed_work(work), struct fq_tm_port, work);
	struct fq_ev_subject subj;
	struct fq_tm_sample *s;
	u32 interval = READ_ONCE(fq_tm_cfg.interval_ms);
	u64 t0 = ktime_get_ns();

	if (!interval)
		return;
	/* only this work writes the scratch sample; it never runs twice at once */
	s = &tm->scratch;
	memset(s, 0, sizeof(*s));
	s->t_ns = t0;
	if (!fq_tm_read(tm, s))
		return;		/* removed: fq_tm_port_stop() is on its way */
	fq_tm_subject(tm, &subj);
	mutex_lock(&tm->lock);
	if (tm->ring) {
		tm->ring[tm->head] = *s;
		tm->head = (tm->head + 1) % tm->ring_size;
		tm->count = min(tm->count + 1, tm->ring_size);
		fq_det_port(tm, &subj);
	}
	tm->sample_ns += ktime_get_ns() - t0;
	tm->samples++;
	if (!tm->dead && interval)
		queue_delayed_work(fq_tm_wq, &tm->work, msecs_to_jiffies(interval));
	mutex_unlock(&tm->lock);
}

static int fq_tm_ring_resize(struct fq_tm_port *tm, u32 n)
{
	struct fq_tm_sample *ring;

	lockdep_assert_held(&tm->lock);
	if (tm->ring && tm->ring_size == n)
		return 0;
	ring = kvcalloc(n, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	kvfree(tm->ring);
	tm->ring = ring;
	tm->ring_size = n;
	tm->head = 0;
	tm->count = 0;
	return 0;
}

/**
 * fq_tm_port_alloc() - give a port its sampler (not started)
 * @port: the port
 *
 * Context: process context.  Return: 0 or -ENOMEM.
 */
int fq_tm_port_alloc(struct fabriq_port *port)
{
	struct fq_tm_port *tm;
	int err;

	tm = kzalloc(sizeof(*tm), GFP_KERNEL);
	if (!tm)
		return -ENOMEM;
	tm->port = port;
	mutex_init(&tm->lock);
	INIT_DELAYED_WORK(&tm->work, fq_tm_work);
	mutex_lock(&tm->lock);
	err = fq_tm_ring_resize(tm, READ_ONCE(fq_tm_cfg.ring_samples));
	mutex_unlock(&tm->lock);
	if (err) {
		kfree(tm);
		return err;
	}
	fabriq_port_set_data(port, &fq_telemetry_subsys, tm);
	return 0;
}

/**
 * fq_tm_port_free() - free a port's sampler; it was stopped (or never started)
 * @port: the port
 *
 * Context: process context, the last reference to the device is gone.
 */
void fq_tm_port_free(struct fabriq_port *port)
{
	struct fq_tm_port *tm = fq_tm(port);

	if (!tm)
		return;
	fq_src_release(tm);
	kvfree(tm->ring);
	mutex_destroy(&tm->lock);
	kfree(tm);
	fabriq_port_set_data(port, &fq_telemetry_subsys, NULL);
}

/**
 * fq_tm_port_start() - start sampling a port
 * @port: the port
 *
 * Context: process context, after the device was listed.
 */
void fq_tm_port_start(struct fabriq_port *port)
{
	struct fq_tm_port *tm = fq_tm(port);

	mutex_lock(&tm->lock);
	if (!tm->dead && READ_ONCE(fq_tm_cfg.interval_ms))
		queue_delayed_work(fq_tm_wq, &tm->work, 0);
	mutex_unlock(&tm->lock);
}

/**
 * fq_tm_port_stop() - stop sampling a port for good
 * @port: the port
 *
 * Waits for a sample in progress.  Context: process context, before the
 * device's ibdev is cleared.
 */
void fq_tm_port_stop(struct fabriq_port *port)
{
	struct fq_tm_port *tm = fq_tm(port);

	mutex_lock(&tm->lock);
	tm->dead = true;
	mutex_unlock(&tm->lock);
	cancel_delayed_work_sync(&tm->work);
}

/* Apply new settings to one port: a new ring size restarts the ring. */
static int fq_tm_port_reconfig(struct fq_tm_port *tm, const struct fq_tm_config *cfg)
{
	int err;

	mutex_lock(&tm->lock);
	err = fq_tm_ring_resize(tm, cfg->ring_samples);
	if (!err && !tm->dead && cfg->interval_ms && !tm->port->fdev->unsupported)
		mod_delayed_work(fq_tm_wq, &tm->work, 0);
	mutex_unlock(&tm->lock);
	return err;
}

/**
 * fq_tm_config_set() - change the sampler's settings on every port
 * @cfg: the new settings, already range-checked
 *
 * A changed interval takes effect at once; 0 stops sampling.
 *
 * Context: process context.  Return: 0, or -ENOMEM (some ports kept
 * their old ring size).
 */
int fq_tm_config_set(const struct fq_tm_config *cfg)
{
	struct fabriq_dev *fdev;
	u32 next = 0, i;
	int err = 0;

	mutex_lock(&fq_tm_cfg_lock);
	WRITE_ONCE(fq_tm_cfg.interval_ms, cfg->interval_ms);
	WRITE_ONCE(fq_tm_cfg.ring_samples, cfg->ring_samples);
	while ((fdev = fabriq_dev_get_next(next))) {
		next = fdev->index + 1;
		for (i = 0; i < fdev->num_ports; i++) {
			struct fq_tm_port *tm = fq_tm(&fdev->ports[i]);

			if (tm && fq_tm_port_reconfig(tm, cfg))
				err = -ENOMEM;
		}
		fabriq_dev_put(fdev);
	}
	mutex_unlock(&fq_tm_cfg_lock);
	return err;
}

/**
 * fq_tm_init() - create the sampler's workqueue
 *
 * Context: module init.  Return: 0 or -ENOMEM.
 */
int fq_tm_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(fq_ctr_names) != __FABRIQ_CTR_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(fq_pause_names) != FABRIQ_PAUSE_NUM);

	fq_tm_wq = alloc_workqueue("fabriq_tm", WQ_UNBOUND, 0);
	return fq_tm_wq ? 0 : -ENOMEM;
}

/**
 * fq_tm_exit() - destroy the workqueue; every port was stopped
 *
 * Context: module exit.
 */
void fq_tm_exit(void)
{
	destroy_workqueue(fq_tm_wq);
}
