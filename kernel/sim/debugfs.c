// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - fault and traffic injection knobs of fabriq_sim:
 *
 *   /sys/kernel/debug/fabriq_sim/fqsim<ID>/port<N>/
 *       inject     write "COUNTER [prio P | vl V] AMOUNT": add AMOUNT once
 *       rate       write "COUNTER [prio P | vl V] PER_SECOND": keep adding
 *                  (0 stops it); read: the active rates
 *       counters   every counter of the port, "name value" per line
 *       link       write "down", "up", "speed SDR|DDR|QDR|FDR10|FDR|EDR|HDR",
 *                  "width 1X|4X|8X|12X"; read: the current link
 *       fail_mads  IB ports: the next N SMPs fail (PMA queries are answered)
 *       fail_dcb   RoCE ports: the next N DCB set calls fail with -EIO
 *       tx_rate    RoCE ports: the netdev's line rate in kbit/s (0: none);
 *                  the transmit queue stops and wakes like a NIC's
 *       mad        IB ports, test hook: write a 256-byte MAD, read the reply
 *       ecn        RoCE ports: ECN marking per priority and the trust mode,
 *                  as fabriq set them
 *       smp        IB ports: SL2VL, VLArb high/low, VLHighLimit, OperVLs
 *                  as the SMA holds them
 *
 * COUNTER is a device counter (np_cnp_sent, rp_cnp_handled,
 * np_ecn_marked_roce_packets, rp_cnp_ignored, out_of_sequence,
 * packet_seq_err), a pause counter of a RoCE port with "prio 0-7"
 * (rx_pause, tx_pause, rx_pause_duration, tx_pause_duration), or an IB
 * port counter (symbol_error, link_downed, and xmit_wait with "vl 0-7").
 * Documentation/fabriq_sim.md lists them all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <rdma/ib_mad.h>

#include "fqsim.h"

#define FQSIM_INJECT_MAX	BIT_ULL(48)

static struct dentry *fqsim_dbg_root;

static int fqsim_lookup(const char *name, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static int fqsim_hw_lookup(const char *name)
{
	int i;

	for (i = 0; i < FQSIM_HW_NUM; i++)
		if (!strcmp(name, fqsim_hw_descs[i].name))
			return i;
	return -1;
}

/* "prio P" or "vl V" before the amount; returns the index or -EINVAL. */
static int fqsim_parse_qualifier(char **cur, const char *word)
{
	char *tok = strsep(cur, " ");
	u8 v;

	if (!tok || strcmp(tok, word))
		return -EINVAL;
	tok = strsep(cur, " ");
	if (!tok || kstrtou8(tok, 10, &v) || v >= FQSIM_NUM_PRIO)
		return -EINVAL;
	return v;
}

static atomic64_t *fqsim_inject_target(struct fqsim_port *port, const char *name,
				       char **cur)
{
	struct fqsim_netdev *priv;
	int c, q;

	c = fqsim_hw_lookup(name);
	if (c >= 0)
		return &port->hw[c];
	c = fqsim_lookup(name, fqsim_ib_counter_names, FQSIM_IB_NUM);
	if (c >= 0)
		return &port->ib[c];
	if (!strcmp(name, "xmit_wait")) {
		q = fqsim_parse_qualifier(cur, "vl");
		return q < 0 ? NULL : &port->xmit_wait[q];
	}
	c = fqsim_lookup(name, fqsim_pause_counter_names, FQSIM_PAUSE_NUM);
	if (c < 0 || !port->netdev)
		return NULL;
	q = fqsim_parse_qualifier(cur, "prio");
	if (q < 0)
		return NULL;
	priv = netdev_priv(port->netdev);
	return &priv->pause[c][q];
}

/* Copy a short command from user space, trimmed and NUL-terminated. */
static char *fqsim_read_cmd(const char __user *ubuf, size_t count, char *buf, size_t size)
{
	if (count >= size)
		return ERR_PTR(-EINVAL);
	if (copy_from_user(buf, ubuf, count))
		return ERR_PTR(-EFAULT);
	buf[count] = '\0';
	return strim(buf);
}

/* "COUNTER [prio P | vl V] N": the counter, and N in @value. */
static atomic64_t *fqsim_parse_counter_cmd(struct fqsim_port *port, char *cur, u64 *value)
{
	atomic64_t *target;
	char *name, *tok;

	name = strsep(&cur, " ");
	target = fqsim_inject_target(port, name, &cur);
	tok = cur ? strsep(&cur, " ") : NULL;
	if (!target || !tok || cur || kstrtou64(tok, 0, value) || *value > FQSIM_INJECT_MAX)
		return NULL;
	return target;
}

static ssize_t fqsim_inject_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct fqsim_port *port = file->private_data;
	char buf[96], *cmd;
	atomic64_t *target;
	u64 amount;

	cmd = fqsim_read_cmd(ubuf, count, buf, sizeof(buf));
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	target = fqsim_parse_counter_cmd(port, cmd, &amount);
	if (!target) {
		pr_err("inject: expected \"COUNTER [prio 0-7 | vl 0-7] AMOUNT\" with AMOUNT 0-%llu; see Documentation/fabriq_sim.md\n",
		       FQSIM_INJECT_MAX);
		return -EINVAL;
	}
	atomic64_add(amount, target);
	return count;
}

static const struct file_operations fqsim_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = fqsim_inject_write,
	.llseek = noop_llseek,
};

static int fqsim_counters_show(struct seq_file *s, void *unused)
{
	struct fqsim_port *port = s->private;
	int c, i;

	for (c = 0; c < FQSIM_HW_NUM; c++)
		seq_printf(s, "%s %lld\n", fqsim_hw_descs[c].name,
			   atomic64_read(&port->hw[c]));
	for (c = 0; c < FQSIM_IB_NUM; c++)
		seq_printf(s, "%s %lld\n", fqsim_ib_counter_names[c],
			   atomic64_read(&port->ib[c]));
	for (i = 0; i < FQSIM_NUM_VL; i++)
		seq_printf(s, "xmit_wait vl %d %lld\n", i,
			   atomic64_read(&port->xmit_wait[i]));
	if (!port->netdev)
		return 0;
	for (c = 0; c < FQSIM_PAUSE_NUM; c++) {
		struct fqsim_netdev *priv = netdev_priv(port->netdev);

		for (i = 0; i < FQSIM_NUM_PRIO; i++)
			seq_printf(s, "%s prio %d %lld\n", fqsim_pause_counter_names[c], i,
				   atomic64_read(&priv->pause[c][i]));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fqsim_counters);

static int fqsim_ecn_file_show(struct seq_file *s, void *unused)
{
	fqsim_ecn_show(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fqsim_ecn_file);

static int fqsim_smp_file_show(struct seq_file *s, void *unused)
{
	fqsim_smp_show(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fqsim_smp_file);

/**
 * fqsim_rate_work() - add one tick's worth of every rate (100 ms)
 * @work: the port's rate_work
 *
 * Context: workqueue.
 */
void fqsim_rate_work(struct work_struct *work)
{
	struct fqsim_port *port = container_of(to_delayed_work(work), struct fqsim_port,
					       rate_work);
	bool again = false;
	int i;

	spin_lock(&port->lock);
	for (i = 0; i < FQSIM_MAX_RATES; i++) {
		struct fqsim_rate *r = &port->rates[i];

		if (!r->per_sec)
			continue;
		/* exact over time: per_sec * ticks / 10, never rounded away */
		atomic64_add(div_u64(r->per_sec * (r->ticks + 1), 10) -
			     div_u64(r->per_sec * r->ticks, 10), r->target);
		r->ticks++;
		again = true;
	}
	spin_unlock(&port->lock);
	if (again)
		schedule_delayed_work(&port->rate_work, HZ / 10);
}

static int fqsim_rate_set(struct fqsim_port *port, atomic64_t *target, u64 per_sec,
			  const char *what)
{
	struct fqsim_rate *slot = NULL;
	int i;

	spin_lock(&port->lock);
	for (i = 0; i < FQSIM_MAX_RATES; i++) {
		struct fqsim_rate *r = &port->rates[i];

		if (r->per_sec && r->target == target) {
			slot = r;
			break;
		}
		if (!r->per_sec && !slot)
			slot = r;
	}
	if (slot && (per_sec || slot->target == target)) {
		slot->target = target;
		slot->per_sec = per_sec;
		slot->ticks = 0;
		strscpy(slot->what, what, sizeof(slot->what));
	}
	spin_unlock(&port->lock);
	if (!slot && per_sec)
		return -ENOSPC;
	if (per_sec)
		schedule_delayed_work(&port->rate_work, HZ / 10);
	return 0;
}

static ssize_t fqsim_rate_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct fqsim_port *port = ((struct seq_file *)file->private_data)->private;
	char buf[96], what[32], *cmd;
	atomic64_t *target;
	u64 per_sec;
	int err;

	cmd = fqsim_read_cmd(ubuf, count, buf, sizeof(buf));
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	/* the rate is listed as the command without its number */
	strscpy(what, cmd, sizeof(what));
	if (strrchr(what, ' '))
		*strrchr(what, ' ') = '\0';
	target = fqsim_parse_counter_cmd(port, cmd, &per_sec);
	if (!target) {
		pr_err("rate: expected \"COUNTER [prio 0-7 | vl 0-7] PER_SECOND\" with PER_SECOND 0-%llu (0 stops)\n",
		       FQSIM_INJECT_MAX);
		return -EINVAL;
	}
	err = fqsim_rate_set(port, target, per_sec, what);
	if (err) {
		pr_err("rate: at most %d rates per port\n", FQSIM_MAX_RATES);
		return err;
	}
	return count;
}

static int fqsim_rate_show(struct seq_file *s, void *unused)
{
	struct fqsim_port *port = s->private;
	int i;

	spin_lock(&port->lock);
	for (i = 0; i < FQSIM_MAX_RATES; i++)
		if (port->rates[i].per_sec)
			seq_printf(s, "%s %llu\n", port->rates[i].what, port->rates[i].per_sec);
	spin_unlock(&port->lock);
	return 0;
}

static int fqsim_rate_open(struct inode *inode, struct file *file)
{
	return single_open(file, fqsim_rate_show, inode->i_private);
}

static const struct file_operations fqsim_rate_fops = {
	.owner = THIS_MODULE,
	.open = fqsim_rate_open,
	.read = seq_read,
	.write = fqsim_rate_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static const char *const fqsim_speed_names[] = {
	"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR",
};

static const u16 fqsim_speeds[] = {
	IB_SPEED_SDR, IB_SPEED_DDR, IB_SPEED_QDR, IB_SPEED_FDR10, IB_SPEED_FDR,
	IB_SPEED_EDR, IB_SPEED_HDR,
};

static const char *const fqsim_width_names[] = { "1X", "4X", "8X", "12X" };
static const u8 fqsim_widths[] = { IB_WIDTH_1X, IB_WIDTH_4X, IB_WIDTH_8X, IB_WIDTH_12X };

static int fqsim_link_show(struct seq_file *s, void *unused)
{
	struct fqsim_port *port = s->private;
	int i, sp = -1, w = -1;

	spin_lock(&port->lock);
	for (i = 0; i < ARRAY_SIZE(fqsim_speeds); i++)
		if (fqsim_speeds[i] == port->speed)
			sp = i;
	for (i = 0; i < ARRAY_SIZE(fqsim_widths); i++)
		if (fqsim_widths[i] == port->width)
			w = i;
	seq_printf(s, "%s speed %s width %s\n", port->link_down ? "down" : "up",
		   sp < 0 ? "?" : fqsim_speed_names[sp], w < 0 ? "?" : fqsim_width_names[w]);
	spin_unlock(&port->lock);
	return 0;
}

static int fqsim_link_open(struct inode *inode, struct file *file)
{
	return single_open(file, fqsim_link_show, inode->i_private);
}

static ssize_t fqsim_link_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct fqsim_port *port = ((struct seq_file *)file->private_data)->private;
	char buf[32], *cmd, *word;
	int sp = -1, w = -1;

	cmd = fqsim_read_cmd(ubuf, count, buf, sizeof(buf));
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	word = strsep(&cmd, " ");
	if (!strcmp(word, "up") && !cmd) {
		fqsim_port_set_link(port, true);
		return count;
	}
	if (!strcmp(word, "down") && !cmd) {
		fqsim_port_set_link(port, false);
		return count;
	}
	if (cmd && !strcmp(word, "speed"))
		sp = match_string(fqsim_speed_names, ARRAY_SIZE(fqsim_speed_names), cmd);
	else if (cmd && !strcmp(word, "width"))
		w = match_string(fqsim_width_names, ARRAY_SIZE(fqsim_width_names), cmd);
	if (sp >= 0 || w >= 0) {
		spin_lock(&port->lock);
		if (sp >= 0)
			port->speed = fqsim_speeds[sp];
		if (w >= 0)
			port->width = fqsim_widths[w];
		spin_unlock(&port->lock);
		fqsim_port_changed(port);
		return count;
	}
	pr_err("link: expected \"up\", \"down\", \"speed SDR|DDR|QDR|FDR10|FDR|EDR|HDR\" or \"width 1X|4X|8X|12X\"\n");
	return -EINVAL;
}

static const struct file_operations fqsim_link_fops = {
	.owner = THIS_MODULE,
	.open = fqsim_link_open,
	.read = seq_read,
	.write = fqsim_link_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* Test hook: one MAD in, its reply out, through process_mad. */
struct fqsim_mad_hook {
	struct fqsim_port *port;
	struct ib_mad reply;
	bool have_reply;
};

static int fqsim_mad_open(struct inode *inode, struct file *file)
{
	struct fqsim_mad_hook *hook = kzalloc(sizeof(*hook), GFP_KERNEL);

	if (!hook)
		return -ENOMEM;
	hook->port = inode->i_private;
	file->private_data = hook;
	return nonseekable_open(inode, file);
}

static int fqsim_mad_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static ssize_t fqsim_mad_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct fqsim_mad_hook *hook = file->private_data;
	struct fqsim_port *port = hook->port;
	size_t out_size = sizeof(hook->reply);
	struct ib_mad *in;
	u16 pkey_index;
	int ret;

	if (count != sizeof(*in))
		return -EINVAL;
	in = memdup_user(ubuf, count);
	if (IS_ERR(in))
		return PTR_ERR(in);
	ret = port->sdev->ibdev.ops.process_mad(&port->sdev->ibdev, IB_MAD_IGNORE_MKEY,
						port->num, NULL, NULL, in, &hook->reply,
						&out_size, &pkey_index);
	kfree(in);
	hook->have_reply = ret == (IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY);
	return hook->have_reply ? count : -EIO;
}

static ssize_t fqsim_mad_read(struct file *file, char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct fqsim_mad_hook *hook = file->private_data;

	if (!hook->have_reply)
		return -ENODATA;
	if (count < sizeof(hook->reply))
		return -EINVAL;
	if (copy_to_user(ubuf, &hook->reply, sizeof(hook->reply)))
		return -EFAULT;
	hook->have_reply = false;
	return sizeof(hook->reply);
}

static const struct file_operations fqsim_mad_fops = {
	.owner = THIS_MODULE,
	.open = fqsim_mad_open,
	.release = fqsim_mad_release,
	.read = fqsim_mad_read,
	.write = fqsim_mad_write,
	.llseek = noop_llseek,
};

/**
 * fqsim_debugfs_dev_add() - create the knobs under fqsim<ID>/port<N>/
 * @sdev: a registered device
 *
 * Every port gets inject, rate, counters and link; InfiniBand ports also
 * fail_mads and the mad hook, RoCE ports fail_dcb and ecn.
 *
 * Context: process context.
 */
void fqsim_debugfs_dev_add(struct fqsim_dev *sdev)
{
	char name[16];
	u32 i;

	snprintf(name, sizeof(name), "fqsim%u", sdev->id);
	sdev->dbg_dir = debugfs_create_dir(name, fqsim_dbg_root);
	for (i = 0; i < sdev->num_ports; i++) {
		struct fqsim_port *port = &sdev->ports[i];

		snprintf(name, sizeof(name), "port%u", port->num);
		port->dbg_dir = debugfs_create_dir(name, sdev->dbg_dir);
		debugfs_create_file("inject", 0200, port->dbg_dir, port, &fqsim_inject_fops);
		debugfs_create_file("counters", 0444, port->dbg_dir, port,
				    &fqsim_counters_fops);
		debugfs_create_file("rate", 0600, port->dbg_dir, port, &fqsim_rate_fops);
		debugfs_create_file("link", 0600, port->dbg_dir, port, &fqsim_link_fops);
		if (port->netdev) {
			struct fqsim_netdev *priv = netdev_priv(port->netdev);

			debugfs_create_atomic_t("fail_dcb", 0600, port->dbg_dir,
						&priv->fail_dcb);
			debugfs_create_u32("tx_rate", 0600, port->dbg_dir,
					   &priv->tx_rate_kbps);
			debugfs_create_file("ecn", 0444, port->dbg_dir, port,
					    &fqsim_ecn_file_fops);
		} else {
			debugfs_create_atomic_t("fail_mads", 0600, port->dbg_dir,
						&port->fail_mads);
			debugfs_create_file("mad", 0600, port->dbg_dir, port,
					    &fqsim_mad_fops);
			debugfs_create_file("smp", 0444, port->dbg_dir, port,
					    &fqsim_smp_file_fops);
		}
	}
}

/**
 * fqsim_debugfs_dev_del() - remove a device's knobs, waiting for users
 * @sdev: the device
 *
 * Context: process context, before the device's ports go away.
 */
void fqsim_debugfs_dev_del(struct fqsim_dev *sdev)
{
	debugfs_remove_recursive(sdev->dbg_dir);
	sdev->dbg_dir = NULL;
}

/**
 * fqsim_debugfs_init() - create /sys/kernel/debug/fabriq_sim
 *
 * Context: module init.
 */
void fqsim_debugfs_init(void)
{
	fqsim_dbg_root = debugfs_create_dir("fabriq_sim", NULL);
}

/**
 * fqsim_debugfs_exit() - remove the whole tree
 *
 * Context: module exit, after every device is gone.
 */
void fqsim_debugfs_exit(void)
{
	debugfs_remove_recursive(fqsim_dbg_root);
}
