// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - what a local user can make the collectives hold, and the
 * bounds on it: the module parameters below, communicators per user, and
 * pinned user pages charged to the caller's RLIMIT_MEMLOCK the way
 * ib_umem charges them (mm->pinned_vm; CAP_IPC_LOCK is exempt).
 *
 * /dev/fabriq is open to every user, like a verbs device, so everything a
 * call can multiply is capped here.  Kernel memory a user causes is
 * allocated with GFP_KERNEL_ACCOUNT (memcg) where it is allocated.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "comm.h"

static unsigned int max_comms_per_user = 64;
module_param(max_comms_per_user, uint, 0644);
MODULE_PARM_DESC(max_comms_per_user,
		 "communicators one user may have at once (root and CAP_SYS_RESOURCE: no limit; default 64)");

static unsigned int max_op_timeout_ms = 600000;
module_param(max_op_timeout_ms, uint, 0644);
MODULE_PARM_DESC(max_op_timeout_ms,
		 "largest op_timeout_ms and connect_timeout_ms a communicator may ask for (default 600000: 10 min)");

static unsigned int max_conns_per_comm = 4096;
module_param(max_conns_per_comm, uint, 0644);
MODULE_PARM_DESC(max_conns_per_comm,
		 "largest (ranks - 1) x (channels + 1) of one communicator: its QPs, the control connections' too (default 4096)");

static unsigned int max_regs_per_comm = 64;
module_param(max_regs_per_comm, uint, 0644);
MODULE_PARM_DESC(max_regs_per_comm,
		 "user buffers one communicator keeps pinned for its calls, registered or cached (default 64)");

static unsigned int max_cq_entries;
module_param(max_cq_entries, uint, 0644);
MODULE_PARM_DESC(max_cq_entries,
		 "most entries one CQ of a communicator gets; connections that need more spread over more CQs, and a CQ has room for one QP at least (0, the default: the device's limit)");

/**
 * fq_limits_cq_entries() - the most entries a communicator's CQ may have
 * @device_max: the device's (its max_cqe)
 *
 * Context: any.
 */
u32 fq_limits_cq_entries(u32 device_max)
{
	u32 cap = READ_ONCE(max_cq_entries);

	return cap ? min(cap, device_max) : device_max;
}

/**
 * fq_limits_max_regs() - how many buffers a communicator's cache may hold
 *
 * Context: any.
 */
unsigned int fq_limits_max_regs(void)
{
	return READ_ONCE(max_regs_per_comm);
}

/**
 * fq_limits_check_init() - the bounds of a new communicator
 * @ci: the request, with its defaults filled
 *
 * Context: process context, the caller's.  Return: 0, -EINVAL (a timeout
 * above max_op_timeout_ms, more connections than max_conns_per_comm).
 */
int fq_limits_check_init(const struct fabriq_comm_init *ci)
{
	u32 cap = READ_ONCE(max_op_timeout_ms);

	if (ci->op_timeout_ms > cap || ci->connect_timeout_ms > cap)
		return -EINVAL;
	/* each peer: the data channels and the control connection */
	if ((u64)(ci->nranks - 1) * (ci->channels + 1) > READ_ONCE(max_conns_per_comm))
		return -EINVAL;
	return 0;
}

/**
 * fq_limits_user_may_add() - may the caller's user have one more communicator?
 * @count: the user's communicators now
 *
 * Context: process context, the caller's.
 */
bool fq_limits_user_may_add(unsigned int count)
{
	if (uid_eq(current_uid(), GLOBAL_ROOT_UID) || capable(CAP_SYS_RESOURCE))
		return true;
	return count < READ_ONCE(max_comms_per_user);
}

/**
 * fq_limits_charge_pin() - charge pages about to be pinned to the caller
 * @p: the buffer; remembers the mm charged
 * @npages: pages
 *
 * As ib_umem_get(): the pages count in the mm's pinned_vm, which may not
 * pass RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.
 *
 * Context: process context, the caller's.  Return: 0 or -ENOMEM.
 */
int fq_limits_charge_pin(struct fq_pin *p, unsigned long npages)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned;

	if (!mm)
		return -EFAULT;
	pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	p->mm = mm;
	p->charged = npages;
	return 0;
}

/**
 * fq_limits_uncharge_pin() - give back what fq_limits_charge_pin() charged
 * @p: the buffer
 *
 * Context: process context (any task: the charge names its mm).
 */
void fq_limits_uncharge_pin(struct fq_pin *p)
{
	if (!p->mm)
		return;
	atomic64_sub(p->charged, &p->mm->pinned_vm);
	mmdrop(p->mm);
	p->mm = NULL;
	p->charged = 0;
}
