// SPDX-License-Identifier: GPL-2.0
/*
 * comm.c - communicators and the /dev/fabriq misc device.
 *
 * Each open file holds at most one communicator.  This file owns its
 * lifetime: COMM_INIT (validate, register, connect through cm.c), DESTROY
 * and close() (fail it, let the engine of coll.c finish, tear the
 * connections down), device removal (fail it with -ENODEV and release the
 * hardware at once, so "rdma link del" never waits on a user), read() and
 * poll() of async completions, and the leak counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include "core/fabriq.h"
#include "comm.h"
#include "reduce.h"

#define FQ_DEF_CHUNK		(64 * 1024)
#define FQ_DEF_TIMEOUT_MS	30000
#define FQ_DEF_SMALL_BYTES	32768
#define FQ_DEF_PEER_TIMEOUT_MS	5000
#define FQ_MIN_PEER_TIMEOUT_MS	100
#define FQ_MAX_PEER_TIMEOUT_MS	600000

struct fq_objects fq_objects;

/* protects fq_comms: every communicator that has an id */
static DEFINE_MUTEX(fq_comms_lock);
static LIST_HEAD(fq_comms);

/* the file's communicator; @lock serialises the ioctls that replace it */
struct fq_file {
	struct mutex lock;	/* see above */
	struct fq_comm *comm;
	wait_queue_head_t comm_wq;	/* poll() before COMM_INIT waits here */
};

/**
 * fq_comm_fail() - the communicator cannot go on: record @err (the first
 * one sticks) and wake everyone waiting on it
 * @comm: the communicator
 * @err: a negative errno
 *
 * Context: any.
 */
void fq_comm_fail(struct fq_comm *comm, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&comm->lock, flags);
	if (!comm->err)
		WRITE_ONCE(comm->err, err);
	spin_unlock_irqrestore(&comm->lock, flags);
	atomic64_inc(&comm->events);
	fq_comm_wake_all(comm);
	wake_up_all(&comm->done_wq);
}

/**
 * fq_comm_wake_all() - something every waiter of @comm must see happened
 * (a connection event, a failure, teardown): wake the communicator's
 * waiters and every channel worker
 * @comm: the communicator
 *
 * Context: any.
 */
void fq_comm_wake_all(struct fq_comm *comm)
{
	u32 c;

	wake_up_all(&comm->wq);
	for (c = 0; comm->chan_workers && c < comm->nch; c++)
		wake_up_all(&comm->chans[c].wq);
}

/* Drop a reference; the last frees everything.  Context: process. */
static void fq_comm_put(struct fq_comm *comm)
{
	if (!refcount_dec_and_test(&comm->refs))
		return;
	u32 r, c;

	fq_ctrl_stop(comm);
	if (comm->peers)
		for (r = 0; r < comm->nranks; r++) {
			for (c = 0; c < FABRIQ_MAX_CHANNELS; c++)
				kfree(comm->peers[r].ch[c]);
			kfree(comm->peers[r].ctrl);
		}
	kvfree(comm->peers);
	kvfree(comm->addrs);
	kvfree(comm->slow_scratch);
	if (comm->small)
		kfree(comm->small->op);
	kvfree(comm->small);
	fq_regcache_destroy(&comm->regs);
	fq_auth_free(comm);
	fabriq_dev_put(comm->fdev);
	if (comm->net)
		put_net(comm->net);
	kfree(comm);
	atomic_dec(&fq_objects.comms);
}

static int fq_addr_from_user(const struct fabriq_addr *a, u16 port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (a->reserved)
		return -EINVAL;
	switch (a->family) {
	case AF_INET:
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, a->addr, 4);
		sin->sin_port = htons(port);
		return sin->sin_addr.s_addr ? 0 : -EINVAL;
	case AF_INET6:
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, a->addr, 16);
		sin6->sin6_port = htons(port);
		return ipv6_addr_any(&sin6->sin6_addr) ? -EINVAL : 0;
	default:
		return -EAFNOSUPPORT;
	}
}

/* Checks what needs no allocation; fills the defaults. */
static int fq_init_check(struct fabriq_comm_init *ci)
{
	if (ci->reserved)
		return -EINVAL;
	if (!ci->nranks || ci->nranks > FABRIQ_MAX_RANKS || ci->rank >= ci->nranks)
		return -EINVAL;
	if (ci->algo >= __FABRIQ_ALGO_MAX ||
	    (ci->flags & ~(FABRIQ_COMM_F_TCLASS | FABRIQ_COMM_F_BOUNCE)))
		return -EINVAL;
	if (!ci->chunk_bytes)
		ci->chunk_bytes = FQ_DEF_CHUNK;
	if (ci->chunk_bytes < 4096 || ci->chunk_bytes > (1U << 20) || ci->chunk_bytes % 8)
		return -EINVAL;
	if (!ci->channels)
		ci->channels = 1;
	if (ci->channels > FABRIQ_MAX_CHANNELS)
		return -EINVAL;
	if (!ci->connect_timeout_ms)
		ci->connect_timeout_ms = FQ_DEF_TIMEOUT_MS;
	if (!ci->op_timeout_ms)
		ci->op_timeout_ms = FQ_DEF_TIMEOUT_MS;
	if (!ci->small_bytes)
		ci->small_bytes = FQ_DEF_SMALL_BYTES;
	if (!ci->peer_timeout_ms)
		ci->peer_timeout_ms = FQ_DEF_PEER_TIMEOUT_MS;
	if (ci->peer_timeout_ms < FQ_MIN_PEER_TIMEOUT_MS ||
	    ci->peer_timeout_ms > FQ_MAX_PEER_TIMEOUT_MS)
		return -EINVAL;
	if ((u32)ci->base_port + ci->nranks - 1 > 65535 || !ci->base_port)
		return -EINVAL;
	/* without the key anyone who learns the id could take a rank's place */
	if (ci->key_len ? ci->key_len < FABRIQ_KEY_MIN || ci->key_len > FABRIQ_KEY_MAX || !ci->key
			: ci->nranks > 1)
		return -EINVAL;
	/* the port's tc intent is the administrator's to override */
	if ((ci->flags & FABRIQ_COMM_F_TCLASS) && !capable(CAP_NET_ADMIN))
		return -EPERM;
	return fq_limits_check_init(ci);
}

/* a connection's allocation: itself, its work requests, their SGEs */
static size_t fq_conn_bytes(const struct fq_comm *comm, bool control)
{
	size_t sges = fq_conn_tx_sges(comm, control) * sizeof(struct ib_sge);
	size_t ent = sizeof(struct fq_tx_ent) + sges;

	return sizeof(struct fq_conn) + fq_conn_tx_ents(control) * ent;
}

/* a connection of @comm with its work requests' SGE lists laid out, or NULL */
static struct fq_conn *fq_conn_alloc(const struct fq_comm *comm, bool control)
{
	struct fq_conn *conn = kzalloc(fq_conn_bytes(comm, control), GFP_KERNEL_ACCOUNT);
	u32 i, n = fq_conn_tx_ents(control);
	struct ib_sge *sge;

	if (!conn)
		return NULL;
	fq_cm_conn_init(conn);
	conn->tx_sges = fq_conn_tx_sges(comm, control);
	sge = (struct ib_sge *)&conn->tx_ent[n];
	for (i = 0; i < n && conn->tx_sges; i++)	/* a heartbeat's: none, NULL */
		conn->tx_ent[i].sge = &sge[i * conn->tx_sges];
	return conn;
}

static struct fq_comm *fq_comm_alloc(const struct fabriq_comm_init *ci)
{
	struct fq_comm *comm = kzalloc(sizeof(*comm), GFP_KERNEL_ACCOUNT);
	u32 r, c;

	if (!comm)
		return NULL;
	atomic_inc(&fq_objects.comms);
	refcount_set(&comm->refs, 1);
	/* the opener's network namespace, as ucma uses it */
	comm->net = get_net(current->nsproxy->net_ns);
	comm->uid = current_uid();
	comm->cm_kind = FQ_CM_COMM;
	INIT_LIST_HEAD(&comm->list);
	comm->id = ci->comm_id;
	comm->nranks = ci->nranks;
	comm->rank = ci->rank;
	comm->base_port = ci->base_port;
	comm->algo = ci->algo;
	comm->chunk = ci->chunk_bytes;
	comm->nch = ci->channels;
	comm->chan_workers = fq_coll_chan_workers();
	comm->small_bytes = ci->small_bytes;
	comm->connect_timeout_ms = ci->connect_timeout_ms;
	comm->op_timeout = msecs_to_jiffies(ci->op_timeout_ms);
	comm->peer_timeout_ms = ci->peer_timeout_ms;
	comm->has_tclass = ci->flags & FABRIQ_COMM_F_TCLASS;
	comm->bounce = ci->flags & FABRIQ_COMM_F_BOUNCE;
	comm->tclass = ci->tclass;
	comm->state = FQ_COMM_NEW;
	fq_regcache_init(&comm->regs);
	mutex_init(&comm->setup_lock);
	init_rwsem(&comm->hw_rwsem);
	mutex_init(&comm->hb_lock);
	for (c = 0; c < ARRAY_SIZE(comm->chans); c++) {
		spin_lock_init(&comm->chans[c].lock);	/* one class: never two at once */
		init_waitqueue_head(&comm->chans[c].wq);
		comm->chans[c].tx_wake = true;
		comm->chans[c].run.wait_rank = FABRIQ_STATUS_NO_RANK;
	}
	spin_lock_init(&comm->lock);
	spin_lock_init(&comm->stats_lock);
	init_waitqueue_head(&comm->wq);
	mutex_init(&comm->run_lock);
	mutex_init(&comm->op_lock);
	INIT_LIST_HEAD(&comm->ops);
	comm->next_seq = 1;
	fq_coll_engine_init(comm);
	fq_ctrl_init(comm);
	INIT_KFIFO(comm->done);
	spin_lock_init(&comm->done_lock);
	init_waitqueue_head(&comm->done_wq);

	comm->addrs = kvcalloc(ci->nranks, sizeof(*comm->addrs), GFP_KERNEL_ACCOUNT);
	comm->peers = kvcalloc(ci->nranks, sizeof(*comm->peers), GFP_KERNEL_ACCOUNT);
	comm->slow_scratch = kvcalloc(ci->nranks, sizeof(*comm->slow_scratch),
				      GFP_KERNEL_ACCOUNT);
	comm->small = kvzalloc(sizeof(*comm->small), GFP_KERNEL_ACCOUNT);
	if (comm->small)
		comm->small->op = kzalloc(struct_size(comm->small->op, ch, 1), GFP_KERNEL_ACCOUNT);
	if (!comm->addrs || !comm->peers || !comm->slow_scratch || !comm->small ||
	    !comm->small->op)
		goto err;
	for (r = 0; r < ci->nranks; r++) {
		comm->peers[r].rank = r;
		for (c = 0; r != ci->rank && c < fq_nconn(comm); c++) {
			struct fq_conn *conn = fq_conn_alloc(comm, c == comm->nch);

			if (!conn)
				goto err;
			conn->cm_kind = FQ_CM_CONN;
			conn->comm = comm;
			conn->peer = &comm->peers[r];
			conn->chan = c;
			conn->control = c == comm->nch;
			conn->lock = conn->control ? &comm->lock : &comm->chans[c].lock;
			conn->events = conn->control ? &comm->events : &comm->chans[c].events;
			conn->wq = conn->control || !comm->chan_workers ? &comm->wq :
				   &comm->chans[c].wq;
			if (conn->control)
				comm->peers[r].ctrl = conn;
			else
				comm->peers[r].ch[c] = conn;
		}
	}
	return comm;
err:
	fq_comm_put(comm);
	return NULL;
}

static int fq_comm_addrs(struct fq_comm *comm, const struct fabriq_comm_init *ci)
{
	struct fabriq_addr a;
	u32 r;
	int err;

	for (r = 0; r < ci->nranks; r++) {
		if (copy_from_user(&a, u64_to_user_ptr(ci->addrs + (u64)r * sizeof(a)), sizeof(a)))
			return -EFAULT;
		err = fq_addr_from_user(&a, ci->base_port + r, &comm->addrs[r]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Register the id.  The same id listening on the same port (base + rank)
 * is a duplicate; ranks of one communicator on one host differ in port.
 */
static int fq_comm_register(struct fq_comm *comm)
{
	struct fq_comm *other;
	unsigned int mine = 0;

	static u64 serial;

	mutex_lock(&fq_comms_lock);
	list_for_each_entry(other, &fq_comms, list) {
		if (other->id == comm->id &&
		    other->base_port + other->rank == comm->base_port + comm->rank) {
			mutex_unlock(&fq_comms_lock);
			return -EEXIST;
		}
		mine += uid_eq(other->uid, comm->uid);
	}
	if (!fq_limits_user_may_add(mine)) {
		mutex_unlock(&fq_comms_lock);
		return -EMFILE;
	}
	comm->serial = ++serial;
	list_add_tail(&comm->list, &fq_comms);
	mutex_unlock(&fq_comms_lock);
	return 0;
}

static void fq_comm_unregister(struct fq_comm *comm)
{
	mutex_lock(&fq_comms_lock);
	list_del_init(&comm->list);
	mutex_unlock(&fq_comms_lock);
}

/*
 * Stop the engine, fail what is queued, release the hardware; the
 * structure stays for read() and poll() until the file is closed.
 * Idempotent.  Context: process, the file's lock held or the file closing.
 */
static void fq_comm_shutdown(struct fq_comm *comm)
{
	/* finished in good order: let the last messages reach the peers */
	if (!READ_ONCE(comm->err) && !READ_ONCE(comm->nops))
		fq_cm_quiesce(comm, 2 * HZ);
	fq_comm_fail(comm, -ECANCELED);
	fq_coll_engine_flush(comm);
	fq_coll_fail_all(comm, comm->err);
	fq_debugfs_comm_del(comm);
	fq_cm_teardown(comm);
	fq_comm_unregister(comm);
	/* no call is left, and the QPs that sent from these pages are gone */
	fq_regcache_flush(&comm->regs);
}

static long fq_ioctl_init(struct fq_file *f, void __user *uarg)
{
	struct fabriq_comm_init ci;
	struct fq_comm *comm;
	int err;

	if (copy_from_user(&ci, uarg, sizeof(ci)))
		return -EFAULT;
	err = fq_init_check(&ci);
	if (err)
		return err;
	if (f->comm)
		return -EBUSY;
	comm = fq_comm_alloc(&ci);
	if (!comm)
		return -ENOMEM;
	err = fq_comm_addrs(comm, &ci);
	if (!err && ci.key_len)
		err = fq_auth_set_key(comm, ci.key, ci.key_len);
	if (err) {
		fq_comm_put(comm);
		return err;
	}
	err = fq_comm_register(comm);
	if (err) {
		fq_comm_put(comm);
		return err;
	}
	if (comm->nranks > 1) {
		err = fq_cm_connect_all(comm);
		if (err) {
			fq_comm_fail(comm, err);
			fq_cm_teardown(comm);
			fq_comm_unregister(comm);
			fq_comm_put(comm);
			return err;
		}
	} else {
		comm->state = FQ_COMM_READY;
	}
	fq_debugfs_comm_add(comm);
	WRITE_ONCE(f->comm, comm);
	wake_up_all(&f->comm_wq);
	return 0;
}

static long fq_ioctl_coll(struct fq_file *f, void __user *uarg)
{
	struct fabriq_coll req;
	int err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (!f->comm)
		return -ENOTCONN;
	err = fq_coll_submit(f->comm, &req, req.flags & FABRIQ_COLL_F_ASYNC);
	if (err && err != -EINTR && err != -ETIMEDOUT && err != -ENODEV &&
	    err != -ECONNRESET && err != -EIO)
		return err;
	if (copy_to_user(uarg, &req, sizeof(req)))
		return -EFAULT;
	return err;
}

/* FABRIQ_IOC_REG: pin a buffer for the communicator's calls until DEREG */
static long fq_ioctl_reg(struct fq_file *f, void __user *uarg)
{
	struct fabriq_reg reg;
	int err;

	if (copy_from_user(&reg, uarg, sizeof(reg)))
		return -EFAULT;
	if (reg.reserved)
		return -EINVAL;
	if (!f->comm)
		return -ENOTCONN;
	if (READ_ONCE(f->comm->err))
		return f->comm->err;
	err = fq_reg_register(&f->comm->regs, reg.addr, reg.len, &reg.handle);
	if (!err && copy_to_user(uarg, &reg, sizeof(reg))) {
		fq_reg_deregister(&f->comm->regs, reg.handle);
		err = -EFAULT;
	}
	return err;
}

static long fq_ioctl_dereg(struct fq_file *f, void __user *uarg)
{
	u32 handle;

	if (get_user(handle, (u32 __user *)uarg))
		return -EFAULT;
	if (!f->comm)
		return -ENOTCONN;
	return fq_reg_deregister(&f->comm->regs, handle);
}

/*
 * Every command holds the file's lock, a synchronous FABRIQ_IOC_COLL until
 * the call completes: one command at a time per file.
 */
static long fq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fq_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	mutex_lock(&f->lock);
	switch (cmd) {
	case FABRIQ_IOC_COMM_INIT:
		ret = fq_ioctl_init(f, uarg);
		break;
	case FABRIQ_IOC_COMM_DESTROY:
		ret = f->comm ? 0 : -ENOTCONN;
		if (f->comm)
			fq_comm_shutdown(f->comm);
		break;
	case FABRIQ_IOC_COLL:
		ret = fq_ioctl_coll(f, uarg);
		break;
	case FABRIQ_IOC_REG:
		ret = fq_ioctl_reg(f, uarg);
		break;
	case FABRIQ_IOC_DEREG:
		ret = fq_ioctl_dereg(f, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&f->lock);
	return ret;
}

/* failed, and every operation it had has been reported */
static bool fq_comm_drained(struct fq_comm *comm)
{
	return READ_ONCE(comm->err) && !READ_ONCE(comm->nops);
}

static ssize_t fq_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct fq_file *f = file->private_data;
	struct fq_comm *comm = READ_ONCE(f->comm);
	struct fabriq_completion c;
	size_t done = 0;
	int ret;

	if (!comm)
		return -ENOTCONN;
	if (len < sizeof(c))
		return -EINVAL;
	while (done + sizeof(c) <= len) {
		spin_lock(&comm->done_lock);
		ret = kfifo_get(&comm->done, &c);
		spin_unlock(&comm->done_lock);
		if (!ret) {
			if (done)
				break;
			if (file->f_flags & O_NONBLOCK)
				return -EAGAIN;
			/* a failed communicator with nothing left to report: EOF */
			if (fq_comm_drained(comm))
				return 0;
			if (wait_event_interruptible(comm->done_wq, !kfifo_is_empty(&comm->done) ||
						     fq_comm_drained(comm)))
				return -ERESTARTSYS;
			continue;
		}
		if (copy_to_user(buf + done, &c, sizeof(c)))
			return done ? done : -EFAULT;
		done += sizeof(c);
	}
	return done;
}

static __poll_t fq_poll(struct file *file, poll_table *wait)
{
	struct fq_file *f = file->private_data;
	struct fq_comm *comm;

	/* no communicator yet: an error, until COMM_INIT wakes the poller */
	poll_wait(file, &f->comm_wq, wait);
	comm = READ_ONCE(f->comm);
	if (!comm)
		return EPOLLERR;
	poll_wait(file, &comm->done_wq, wait);
	if (!kfifo_is_empty(&comm->done))
		return EPOLLIN | EPOLLRDNORM;
	return fq_comm_drained(comm) ? EPOLLHUP : 0;
}

static int fq_open(struct inode *inode, struct file *file)
{
	struct fq_file *f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	init_waitqueue_head(&f->comm_wq);
	file->private_data = f;
	return stream_open(inode, file);
}

static int fq_release(struct inode *inode, struct file *file)
{
	struct fq_file *f = file->private_data;

	if (f->comm) {
		fq_comm_shutdown(f->comm);
		fq_comm_put(f->comm);
	}
	kfree(f);
	return 0;
}

static const struct file_operations fq_fops = {
	.owner = THIS_MODULE,
	.open = fq_open,
	.release = fq_release,
	.unlocked_ioctl = fq_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.read = fq_read,
	.poll = fq_poll,
};

static struct miscdevice fq_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = FABRIQ_DEV_NODE,
	.fops = &fq_fops,
	.mode = 0666,
};

/**
 * fq_comm_dev_removed() - @ibdev is going away: fail every communicator
 * on it with -ENODEV and release their hardware now
 * @ibdev: the device
 *
 * Operations in flight end with -ENODEV; the files stay open until their
 * owners close them.
 * Context: the ib_client remove callback.
 */
void fq_comm_dev_removed(struct ib_device *ibdev)
{
	struct fq_comm *comm, *tmp;
	LIST_HEAD(gone);

	/* teardown waits for the verbs: not under the lock every reader takes */
	mutex_lock(&fq_comms_lock);
	list_for_each_entry(comm, &fq_comms, list) {
		if (READ_ONCE(comm->ibdev) != ibdev)
			continue;
		refcount_inc(&comm->refs);
		list_add_tail(&comm->removing, &gone);
	}
	mutex_unlock(&fq_comms_lock);
	list_for_each_entry_safe(comm, tmp, &gone, removing) {
		list_del(&comm->removing);
		fq_comm_fail(comm, -ENODEV);
		fq_cm_teardown(comm);
		fq_comm_put(comm);
	}
}

/* for debugfs and netlink: call @fn on every communicator */
int fq_comm_for_each(int (*fn)(struct fq_comm *comm, void *arg), void *arg)
{
	struct fq_comm *comm;
	int ret = 0;

	mutex_lock(&fq_comms_lock);
	list_for_each_entry(comm, &fq_comms, list) {
		ret = fn(comm, arg);
		if (ret)
			break;
	}
	mutex_unlock(&fq_comms_lock);
	return ret;
}

/**
 * fq_comm_struct_bytes() - kernel memory @comm's own structures take, as
 * asked of the allocator (it rounds up): itself, its small call, what it
 * keeps per rank, a connection per channel and control connection of
 * every peer (allocated when the communicator is, fq_conn_bytes()), and the rendezvous'
 * room, and once connecting the CQs' pointers.  The slots are
 * comm->slot_bytes; the device's QPs, CQs and MRs are the driver's.
 * @comm: the communicator
 */
u64 fq_comm_struct_bytes(const struct fq_comm *comm)
{
	u64 per_rank = sizeof(*comm->addrs) + sizeof(*comm->peers) + sizeof(*comm->slow_scratch);

	return sizeof(*comm) + FQ_SMALL_STRUCT_BYTES + comm->nranks * per_rank +
	       (u64)(comm->nranks - 1) * (comm->nch * fq_conn_bytes(comm, false) +
					  fq_conn_bytes(comm, true)) +
	       fq_rndv_room_bytes(comm) + READ_ONCE(comm->ncq) * sizeof(*comm->cqs);
}

const char *fq_comm_state_name(const struct fq_comm *comm)
{
	static const char *const names[] = {
		[FQ_COMM_NEW] = "new", [FQ_COMM_CONNECTING] = "connecting",
		[FQ_COMM_READY] = "ready", [FQ_COMM_FAILED] = "failed", [FQ_COMM_DEAD] = "dead",
	};
	enum fq_comm_state st = READ_ONCE(comm->state);

	if (st == FQ_COMM_READY && READ_ONCE(comm->err))
		return "failed";
	return names[st];
}

void fq_objects_show(struct seq_file *s)
{
	seq_printf(s, "comms %d\npds %d\ncqs %d\nqps %d\ncm_ids %d\nbufs %d\nops %d\npinned_pages %d\nregs %d\ndma_maps %d\nmrs %d\n",
		   atomic_read(&fq_objects.comms), atomic_read(&fq_objects.pds),
		   atomic_read(&fq_objects.cqs), atomic_read(&fq_objects.qps),
		   atomic_read(&fq_objects.cm_ids), atomic_read(&fq_objects.bufs),
		   atomic_read(&fq_objects.ops), atomic_read(&fq_objects.pinned_pages),
		   atomic_read(&fq_objects.regs), atomic_read(&fq_objects.dma_maps),
		   atomic_read(&fq_objects.mrs));
}

int fq_comm_init(void)
{
	fq_debugfs_comm_init();
	return misc_register(&fq_miscdev);
}

void fq_comm_exit(void)
{
	misc_deregister(&fq_miscdev);
}

/*
 * Start: the communicators' part of STATS_GET first, so no communicator
 * exists without it, then /dev/fabriq.  Unregistering the part at stop
 * waits for a dump inside it (telemetry_netlink.c).
 */
static int fq_coll_subsys_start(void)
{
	int err;

	fq_reduce_init();
	err = fq_tm_stats_ext_register(&fq_comm_stats_ext);
	if (err)
		return err;
	err = fq_coll_wq_init();
	if (err)
		goto err_ext;
	err = fq_comm_init();
	if (err)
		goto err_wq;
	return 0;
err_wq:
	fq_coll_wq_exit();
err_ext:
	fq_tm_stats_ext_unregister(&fq_comm_stats_ext);
	return err;
}

static void fq_coll_subsys_stop(void)
{
	fq_comm_exit();
	fq_coll_wq_exit();
	fq_tm_stats_ext_unregister(&fq_comm_stats_ext);
}

static void fq_comm_subsys_dev_remove(struct fabriq_dev *fdev)
{
	fq_comm_dev_removed(fdev->ibdev);
}

/* /dev/fabriq opens at start, after the ib_client attached to every device */
struct fabriq_subsys fq_coll_subsys = {
	.name = "coll",
	.start = fq_coll_subsys_start,
	.stop = fq_coll_subsys_stop,
	.nl_ops = fq_comm_nl_ops,
	.dev_remove = fq_comm_subsys_dev_remove,
};
