// SPDX-License-Identifier: GPL-2.0
/*
 * comm_debugfs.c - the communicator part of /sys/kernel/debug/fabriq/:
 *
 *   objects                      every object fabriq holds (leak checks)
 *   comms/<id>-r<rank>/summary   one communicator (a second one with the same
 *                                id and rank on other ports: <id>-r<rank>-p<port>):
 *                                ranks, state, device,
 *                                algorithm settings, operations (and those
 *                                that ran on the preallocated call), bytes
 *   comms/<id>-r<rank>/peers     one line per peer and channel: address,
 *                                QP, state, credits, messages, bytes, the
 *                                QP's completions, errors, sends in flight
 *                                and mean completion time, and the peer's
 *                                step waits (total, last operation, slow)
 *   comms/<id>-r<rank>/histogram operation times per collective: count,
 *                                mean, p50/p99/p99.9 and the log2 buckets
 *   comms/<id>-r<rank>/status    every rank: alive or dead, its call and
 *                                step, whom it waits on and how long, and
 *                                whom it holds up (ctrl.c)
 *   comms/<id>-r<rank>/links     this rank's links: mean send latency
 *                                against each one's baseline; every
 *                                rank's report, its link blame, the
 *                                suspect (link.c)
 *   comms/<id>-r<rank>/steps     the last operation: per step and peer, how
 *                                long the step waited for that peer's data
 *   comms/<id>-r<rank>/pipeline  steps run and steps that overlapped the
 *                                one before (pipe.c) since creation; the
 *                                last operation's steps: admitted, first
 *                                move, done (ns since it started)
 *   comms/<id>-r<rank>/regcache  the registration cache: entries, hits,
 *                                misses, invalidations; one line per
 *                                buffer (range, users, handle, stale)
 *   comms/<id>-r<rank>/fault_delay_us  fault knob: this rank sleeps so long
 *                                before each step (capped at 1 s)
 *   comms/<id>-r<rank>/fault_heartbeat fault knob: this rank breaks its
 *                                next heartbeat so (short, magic, rank,
 *                                wait_rank, dead_rank, slow_rank; read:
 *                                the choices)
 *   comms/<id>-r<rank>/fault_rndv fault knob: this rank breaks its next
 *                                read request (len, short, rkey, reduce:
 *                                one for a message the peer reduces) or
 *                                FIN (fin: 255 more than it read) so; or
 *                                its write grants from now on (cts_len,
 *                                cts_rkey), or writes its next granted
 *                                run's second message plain (unwritten)
 *
 * The rank is part of the name because several ranks of one communicator
 * may run on one host.  Readers take setup_lock, under which teardown
 * clears what they look at; debugfs_remove_recursive() waits for them.
 */
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/math64.h>
#include <linux/uaccess.h>
#include <linux/seq_file.h>

#include "core/fabriq.h"
#include "comm.h"
#include "reduce.h"

static struct dentry *fq_dbg_comms;

static int fq_comm_summary_show(struct seq_file *s, void *unused)
{
	struct fq_comm *comm = s->private;

	mutex_lock(&comm->setup_lock);
	seq_printf(s, "id %llx\nrank %u\nnranks %u\nstate %s\nerror %d\n", comm->id, comm->rank,
		   comm->nranks, fq_comm_state_name(comm), READ_ONCE(comm->err));
	seq_printf(s, "device %s\n", comm->ibdev && !comm->hw_gone ?
		   dev_name(&comm->ibdev->dev) : "-");
	seq_printf(s, "address %pISpc\n", &comm->addrs[comm->rank]);
	seq_printf(s, "algo %s\nsmall_bytes %llu\nchunk_bytes %u\nchannels %u\n",
		   fq_algo_name(comm->algo), comm->small_bytes, comm->chunk, comm->nch);
	seq_printf(s, "qps %u\n", comm->hw_gone ? 0 : (comm->nranks - 1) * comm->nch);
	seq_printf(s, "cqs %u\ncq_entries %u\n", comm->ncq, comm->cq_entries);
	seq_printf(s, "reduce_isa %s\nbusy_poll_device %s\n", fq_reduce_isa(),
		   comm->busy_poll ? "yes" : "no");
	seq_printf(s, "rndv_mrs %u\nrndv_max_bytes %u\nrndv_replays %s\nrndv_write %s\n",
		   comm->nmrs, comm->nmrs ? comm->rndv_max_bytes : 0,
		   comm->rndv_replays ? "yes" : "no",
		   !comm->write_grants ? "no" :
		   comm->rndv_room ? "yes" : "sends (grants none: no MRs)");
	mutex_unlock(&comm->setup_lock);
	seq_printf(s, "ops_queued %u\nops_done %lld\nops_failed %lld\nbytes_sent %lld\n",
		   READ_ONCE(comm->nops), atomic64_read(&comm->ops_done),
		   atomic64_read(&comm->ops_failed), atomic64_read(&comm->bytes));
	seq_printf(s, "ops_preallocated %llu\n", READ_ONCE(comm->small->calls));
	seq_printf(s, "mem_structs %llu\nmem_slots %lld\n", fq_comm_struct_bytes(comm),
		   atomic64_read(&comm->slot_bytes));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_summary);

static int fq_comm_peers_show(struct seq_file *s, void *unused)
{
	struct fq_comm *comm = s->private;
	struct fq_peer *p;
	struct fq_conn *c;
	u32 r, ch, credits, qpn, inflight;
	char addr[INET6_ADDRSTRLEN + 8];
	struct fq_msg_counts m;
	struct fq_qp_stats qs;
	u64 wait, wait_last;
	bool up;

	seq_printf(s, "%-6s %-3s %-40s %-8s %-5s %-7s %10s %10s %14s %14s %10s %10s %6s %8s %11s %14s %14s %4s %10s %10s %10s %10s %10s %10s\n",
		   "peer", "ch", "address", "qpn", "state", "credits", "msgs_tx", "msgs_rx",
		   "bytes_tx", "bytes_rx", "tx_done", "tx_cqes", "errors", "inflight", "cqe_avg_ns",
		   "wait_ns", "wait_last_ns", "slow", "rts_tx", "reads", "inline_tx", "cts_tx",
		   "writes_tx", "writes_rx");
	/* the QPs: teardown (device removal) frees them with hw_rwsem held for writing */
	down_read(&comm->hw_rwsem);
	mutex_lock(&comm->setup_lock);
	for (r = 0; r < comm->nranks; r++) {
		if (r == comm->rank)
			continue;
		p = &comm->peers[r];
		for (ch = 0; ch < comm->nch; ch++) {
			c = p->ch[ch];
			qpn = c->id && c->has_qp ? c->id->qp->qp_num : 0;
			spin_lock_bh(c->lock);
			credits = c->credits;
			up = c->established;
			qs = c->st;
			inflight = c->tx_head - c->tx_tail;
			spin_unlock_bh(c->lock);
			/* the channel's own */
			m = (struct fq_msg_counts){};
			fq_conn_msgs_add(c, &m);
			spin_lock_bh(&comm->stats_lock);
			wait = p->wait_ns;
			wait_last = p->wait_last_ns;
			spin_unlock_bh(&comm->stats_lock);
			/*
			 * No field width on %pISp: vsprintf pads the port to
			 * it inside its own small buffer (KASAN: stack out of
			 * bounds in ip4_addr_string_sa).
			 */
			snprintf(addr, sizeof(addr), "%pISpc", &comm->addrs[r]);
			seq_printf(s, "%-6u %-3u %-40s %-8u %-5s %-7u %10llu %10llu %14llu %14llu %10llu %10llu %6llu %8u %11llu %14llu %14llu %4s %10llu %10llu %10llu %10llu %10llu %10llu\n",
				   r, ch, addr, qpn, up ? "up" : "down", credits,
				   m.send_seq, m.recv_seq, m.tx_bytes, m.rx_bytes, qs.tx_wrs,
				   qs.tx_cqes, qs.errors, inflight,
				   qs.tx_wrs ? div64_u64(qs.cqe_ns, qs.tx_wrs) : 0, wait, wait_last,
				   p->slow.raised ? "yes" : "no", qs.rts_tx, qs.reads,
				   qs.inline_tx, qs.cts_tx, qs.writes_tx, qs.writes_rx);
		}
	}
	mutex_unlock(&comm->setup_lock);
	up_read(&comm->hw_rwsem);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_peers);

static int fq_comm_histogram_show(struct seq_file *s, void *unused)
{
	fq_stats_show_hist(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_histogram);

static int fq_comm_steps_show(struct seq_file *s, void *unused)
{
	fq_stats_show_steps(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_steps);

static int fq_comm_pipeline_show(struct seq_file *s, void *unused)
{
	fq_stats_show_pipeline(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_pipeline);

static int fq_comm_status_show(struct seq_file *s, void *unused)
{
	fq_ctrl_show(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_status);

static int fq_comm_links_show(struct seq_file *s, void *unused)
{
	fq_link_show(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_links);

static int fq_comm_regcache_show(struct seq_file *s, void *unused)
{
	struct fq_comm *comm = s->private;

	fq_regcache_show(s, &comm->regs);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_comm_regcache);

/*
 * A fault knob: a u32 of the communicator that arms one of @n choices
 * named in @names (0, "none", disarms); the code it breaks takes it.
 * Reading shows the choices, the armed one in brackets; writing arms the
 * one named, and refuses another name.
 */
static int fq_fault_show(struct seq_file *s, const char *const *names, u32 n, u32 armed)
{
	u32 f;

	for (f = 0; f < n; f++)
		seq_printf(s, f == armed ? "%s[%s]" : "%s%s", f ? " " : "", names[f]);
	seq_putc(s, '\n');
	return 0;
}

static ssize_t fq_fault_write(const char __user *ubuf, size_t len, const char *const *names,
			      u32 n, u32 *knob)
{
	char name[16];
	int f;

	if (len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	name[len] = '\0';
	f = __sysfs_match_string(names, n, name);
	if (f < 0)
		return -EINVAL;
	WRITE_ONCE(*knob, f);
	return len;
}

/* the file of the knob @field of struct fq_comm, whose choices are @names */
#define FQ_FAULT_KNOB(field, names)							\
static int fq_comm_##field##_show(struct seq_file *s, void *unused)			\
{											\
	struct fq_comm *comm = s->private;						\
											\
	return fq_fault_show(s, names, ARRAY_SIZE(names), READ_ONCE(comm->field));	\
}											\
static int fq_comm_##field##_open(struct inode *inode, struct file *file)		\
{											\
	return single_open(file, fq_comm_##field##_show, inode->i_private);		\
}											\
static ssize_t fq_comm_##field##_write(struct file *file, const char __user *ubuf,	\
				       size_t len, loff_t *ppos)			\
{											\
	struct fq_comm *comm = ((struct seq_file *)file->private_data)->private;	\
											\
	return fq_fault_write(ubuf, len, names, ARRAY_SIZE(names), &comm->field);	\
}											\
static const struct file_operations fq_comm_##field##_fops = {				\
	.owner = THIS_MODULE,								\
	.open = fq_comm_##field##_open,							\
	.read = seq_read,								\
	.write = fq_comm_##field##_write,						\
	.llseek = seq_lseek,								\
	.release = single_release,							\
}

FQ_FAULT_KNOB(fault_heartbeat, fq_hb_fault_names);
FQ_FAULT_KNOB(fault_rndv, fq_rndv_fault_names);

static int fq_objects_file_show(struct seq_file *s, void *unused)
{
	fq_objects_show(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fq_objects_file);

void fq_debugfs_comm_init(void)
{
	struct dentry *root = fabriq_debugfs_root();

	fq_dbg_comms = debugfs_create_dir("comms", root);
	debugfs_create_file("objects", 0444, root, NULL, &fq_objects_file_fops);
}

/*
 * comms/<id>-r<rank>; the same id and rank may run again on other ports
 * (COMM_INIT keys communicators by id and listening port), and such a
 * second one is comms/<id>-r<rank>-p<base port>.
 */
static struct dentry *fq_debugfs_comm_dir(struct fq_comm *comm)
{
	static DEFINE_MUTEX(fq_dbg_name_lock);	/* lookup, then create */
	struct dentry *dir, *taken;
	char name[64];

	snprintf(name, sizeof(name), "%llx-r%u", comm->id, comm->rank);
	mutex_lock(&fq_dbg_name_lock);
	taken = debugfs_lookup(name, fq_dbg_comms);
	if (taken) {
		dput(taken);
		snprintf(name, sizeof(name), "%llx-r%u-p%u", comm->id, comm->rank,
			 comm->base_port);
	}
	dir = debugfs_create_dir(name, fq_dbg_comms);
	mutex_unlock(&fq_dbg_name_lock);
	return dir;
}

void fq_debugfs_comm_add(struct fq_comm *comm)
{
	comm->dbg_dir = fq_debugfs_comm_dir(comm);
	debugfs_create_file("summary", 0444, comm->dbg_dir, comm, &fq_comm_summary_fops);
	debugfs_create_file("peers", 0444, comm->dbg_dir, comm, &fq_comm_peers_fops);
	debugfs_create_file("histogram", 0444, comm->dbg_dir, comm, &fq_comm_histogram_fops);
	debugfs_create_file("steps", 0444, comm->dbg_dir, comm, &fq_comm_steps_fops);
	debugfs_create_file("status", 0444, comm->dbg_dir, comm, &fq_comm_status_fops);
	debugfs_create_file("links", 0444, comm->dbg_dir, comm, &fq_comm_links_fops);
	debugfs_create_file("pipeline", 0444, comm->dbg_dir, comm, &fq_comm_pipeline_fops);
	debugfs_create_file("regcache", 0400, comm->dbg_dir, comm, &fq_comm_regcache_fops);
	/* fault injection: sleep this many microseconds before each step */
	debugfs_create_u32("fault_delay_us", 0600, comm->dbg_dir, &comm->fault_delay_us);
	/* fault injection: break the next heartbeat (ctrl.c) */
	debugfs_create_file("fault_heartbeat", 0600, comm->dbg_dir, comm,
			    &fq_comm_fault_heartbeat_fops);
	/* fault injection: break the next read request or FIN (rndv.c) */
	debugfs_create_file("fault_rndv", 0600, comm->dbg_dir, comm, &fq_comm_fault_rndv_fops);
}

void fq_debugfs_comm_del(struct fq_comm *comm)
{
	debugfs_remove_recursive(comm->dbg_dir);
	comm->dbg_dir = NULL;
}
