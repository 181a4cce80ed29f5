// SPDX-License-Identifier: GPL-2.0
/*
 * regcache.c - a communicator's registration cache: each user buffer a
 * call uses is pinned and mapped into the kernel once, and later calls on
 * the same buffer reuse it.  FABRIQ_IOC_REG registers a buffer explicitly
 * (as ncclCommRegister does) through the same entries; an explicit entry
 * is never evicted, an implicit one is when the cache is full
 * (max_regs_per_comm) or when its pages are needed for RLIMIT_MEMLOCK.
 *
 * Every entry watches its range with an mmu_interval_notifier.  Anything
 * that changes the mapping (munmap, mremap, fork's write protection, a
 * copy on write, MAP_FIXED over it) moves the notifier's sequence on, and
 * the entry is stale from then on: no later call is served from it, and
 * it is freed once no call uses it.  Its pages stay pinned until then, so
 * a call that was running keeps valid memory to work on.
 *
 * The engine maps an entry's pages for the device at the first send that
 * reads them (fq_reg_dma(), dmamap.c), and they stay mapped until the
 * entry is freed or the communicator lets go of its device
 * (fq_regcache_unmap(), from teardown, before the device may go).
 *
 * Locks: fq_regcache.lock, a leaf mutex (nothing is pinned, no notifier
 * inserted or removed under it; DMA mappings are made and undone under
 * it, so teardown and an entry's end never both unmap); the notifier
 * callback takes only fq_regcache.seq_lock, a leaf spinlock.
 */
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "comm.h"

#define FQ_REG_MAX_BYTES	SZ_1G

/**
 * struct fq_reg - one cached user buffer
 * @mni: watches [@start, @end) of the mm that pinned it
 * @rc: the cache
 * @lru: in @rc's list (most recently used first), or empty: not cached
 * @pin: the pinned pages, their kernel mapping and their memlock charge
 * @start: the first byte, page aligned
 * @end: past the last byte, page aligned
 * @seq: @mni's sequence when the pages were pinned
 * @users: calls using it now
 * @handle: FABRIQ_IOC_REG's handle, or 0 (implicit)
 * @write: pinned for writing (serves both directions)
 * @dma: @pin's pages mapped for the communicator's device (rc->lock)
 * @mapped: in rc->mapped while @dma is mapped (rc->lock)
 * @dma_failed: mapping @dma failed once: sends map their own pages (rc->lock)
 */
struct fq_reg {
	struct mmu_interval_notifier mni;
	struct fq_regcache *rc;
	struct list_head lru;
	struct fq_pin pin;
	unsigned long start;
	unsigned long end;
	unsigned long seq;
	unsigned int users;
	u32 handle;
	bool write;
	struct fq_dmamap dma;
	struct list_head mapped;
	bool dma_failed;
};

static bool fq_reg_invalidate(struct mmu_interval_notifier *mni,
			      const struct mmu_notifier_range *range, unsigned long cur_seq)
{
	struct fq_reg *reg = container_of(mni, struct fq_reg, mni);

	/*
	 * A protection change (fork's copy on write, mprotect, NUMA
	 * balancing, soft-dirty tracking) leaves a long-term pinned page
	 * mapped where it was: fork copies pinned pages for the child, and a
	 * later write to an exclusive pinned page reuses it.  Whatever
	 * replaces the page (copy on write, zap, migration, exit) comes as
	 * another event.
	 */
	if (range->event == MMU_NOTIFY_PROTECTION_VMA ||
	    range->event == MMU_NOTIFY_PROTECTION_PAGE || range->event == MMU_NOTIFY_SOFT_DIRTY)
		return true;
	spin_lock(&reg->rc->seq_lock);
	mmu_interval_set_seq(mni, cur_seq);
	reg->rc->invalidations++;
	spin_unlock(&reg->rc->seq_lock);
	return true;
}

static const struct mmu_interval_notifier_ops fq_reg_ops = {
	.invalidate = fq_reg_invalidate,
};

/* Are the pages still what the range maps? */
static bool fq_reg_current(struct fq_reg *reg)
{
	bool ok;

	spin_lock(&reg->rc->seq_lock);
	ok = !mmu_interval_read_retry(&reg->mni, reg->seq);
	spin_unlock(&reg->rc->seq_lock);
	return ok;
}

/* Unmap @reg's pages for the device, if they are.  Context: rc->lock held. */
static void fq_reg_unmap(struct fq_reg *reg)
{
	lockdep_assert_held(&reg->rc->lock);
	if (!reg->dma.dev)
		return;
	fq_dmamap_unmap(&reg->dma);
	list_del_init(&reg->mapped);
}

/* Context: process context, no fabriq lock held (the notifier may wait). */
static void fq_reg_free(struct fq_reg *reg)
{
	mutex_lock(&reg->rc->lock);
	fq_reg_unmap(reg);
	mutex_unlock(&reg->rc->lock);
	mmu_interval_notifier_remove(&reg->mni);
	fq_unpin_pages(&reg->pin, reg->write);
	kfree(reg);
	atomic_dec(&fq_objects.regs);
}

/* Free the entries on @dead, which is empty again after. */
static void fq_reg_free_list(struct list_head *dead)
{
	struct fq_reg *reg, *tmp;

	list_for_each_entry_safe(reg, tmp, dead, lru) {
		list_del(&reg->lru);
		fq_reg_free(reg);
	}
}

/* Take @reg out of the cache onto @dead.  Context: rc->lock held. */
static void fq_reg_drop(struct fq_regcache *rc, struct fq_reg *reg, struct list_head *dead)
{
	list_move(&reg->lru, dead);
	rc->count--;
}

/*
 * Move every idle implicit entry (all of them, or only stale ones) onto
 * @dead.  Return: how many.  Context: rc->lock held.
 */
static unsigned int fq_reg_drop_idle(struct fq_regcache *rc, bool stale_only,
				     struct list_head *dead)
{
	struct fq_reg *reg, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(reg, tmp, &rc->lru, lru)
		if (!reg->users && !reg->handle && (!stale_only || !fq_reg_current(reg))) {
			fq_reg_drop(rc, reg, dead);
			n++;
		}
	return n;
}

/* A current entry of the caller's mm covering [@start, @end).  Context: rc->lock held. */
static struct fq_reg *fq_reg_find(struct fq_regcache *rc, unsigned long start,
				  unsigned long end, bool write)
{
	struct fq_reg *reg;

	list_for_each_entry(reg, &rc->lru, lru)
		if (reg->mni.mm == current->mm && reg->start <= start && end <= reg->end &&
		    (reg->write || !write) && fq_reg_current(reg))
			return reg;
	return NULL;
}

/*
 * A registration that went stale, no call using it, covering [@start,
 * @end).  Context: rc->lock held.
 */
static struct fq_reg *fq_reg_find_stale_registered(struct fq_regcache *rc, unsigned long start,
						   unsigned long end)
{
	struct fq_reg *reg;

	list_for_each_entry(reg, &rc->lru, lru)
		if (reg->handle && !reg->users && reg->start <= start && end <= reg->end &&
		    !fq_reg_current(reg))
			return reg;
	return NULL;
}

/*
 * Pin @reg's pages.  Over RLIMIT_MEMLOCK (or out of memory), idle cached
 * entries are given up and it tries once more.
 */
static int fq_reg_pin(struct fq_reg *reg)
{
	struct fq_regcache *rc = reg->rc;
	LIST_HEAD(dead);
	unsigned int n;
	int err;

	err = fq_pin_pages(&reg->pin, reg->start, reg->end - reg->start, reg->write);
	if (err != -ENOMEM)
		return err;
	fq_unpin_pages(&reg->pin, false);
	mutex_lock(&rc->lock);
	n = fq_reg_drop_idle(rc, false, &dead);
	mutex_unlock(&rc->lock);
	fq_reg_free_list(&dead);
	if (!n)
		return err;
	return fq_pin_pages(&reg->pin, reg->start, reg->end - reg->start, reg->write);
}

/*
 * A new entry for [@start, @end) of the caller's mm, pinned, with one
 * user, not cached yet.  @cacheable: out, the mapping did not change
 * while it was pinned (else the entry serves only this call).
 */
static struct fq_reg *fq_reg_new(struct fq_regcache *rc, unsigned long start, unsigned long end,
				 bool write, bool *cacheable)
{
	struct fq_reg *reg;
	int tries, err;

	reg = kzalloc(sizeof(*reg), GFP_KERNEL_ACCOUNT);
	if (!reg)
		return ERR_PTR(-ENOMEM);
	reg->rc = rc;
	INIT_LIST_HEAD(&reg->lru);
	INIT_LIST_HEAD(&reg->mapped);
	reg->start = start;
	reg->end = end;
	reg->write = write;
	reg->users = 1;
	err = mmu_interval_notifier_insert(&reg->mni, current->mm, start, end - start, &fq_reg_ops);
	if (err) {
		kfree(reg);
		return ERR_PTR(err);
	}
	for (tries = 0; ; tries++) {
		reg->seq = mmu_interval_read_begin(&reg->mni);
		err = fq_reg_pin(reg);
		*cacheable = !err && fq_reg_current(reg);
		if (err || *cacheable || tries)
			break;
		/* the mapping changed under the pinning: pin what it maps now */
		fq_unpin_pages(&reg->pin, false);
	}
	if (err) {
		fq_unpin_pages(&reg->pin, false);
		mmu_interval_notifier_remove(&reg->mni);
		kfree(reg);
		return ERR_PTR(err);
	}
	atomic_inc(&fq_objects.regs);
	return reg;
}

/*
 * Put @reg at the head of the cache, evicting the least recently used
 * idle implicit entry when it is full.  Return: false when nothing could
 * make room.  Context: rc->lock held.
 */
static bool fq_reg_insert(struct fq_regcache *rc, struct fq_reg *reg, struct list_head *dead)
{
	struct fq_reg *old, *tmp;

	if (rc->count >= fq_limits_max_regs())
		fq_reg_drop_idle(rc, true, dead);
	list_for_each_entry_safe_reverse(old, tmp, &rc->lru, lru) {
		if (rc->count < fq_limits_max_regs())
			break;
		if (!old->users && !old->handle)
			fq_reg_drop(rc, old, dead);
	}
	if (rc->count >= fq_limits_max_regs())
		return false;
	list_add(&reg->lru, &rc->lru);
	rc->count++;
	return true;
}

static int fq_reg_range(u64 uaddr, u64 len, unsigned long *start, unsigned long *end)
{
	if (!len || len > FQ_REG_MAX_BYTES)
		return -EINVAL;
	if (uaddr + len < uaddr || uaddr + len > TASK_SIZE)
		return -EFAULT;
	*start = uaddr & PAGE_MASK;
	*end = PAGE_ALIGN(uaddr + len);
	return 0;
}

/**
 * fq_reg_buf() - a user buffer for one call, from the cache or pinned now
 * @rc: the communicator's cache
 * @p: receives it (@p->reg, @p->ptr); fq_unpin() gives it back
 * @uaddr: the user address
 * @len: its length, > 0
 * @write: the call writes into it
 *
 * Context: process context, the caller's.  Return: 0, -EFAULT, -ENOMEM
 * (also: over RLIMIT_MEMLOCK), -EOPNOTSUPP (@write into a file-backed
 * shared mapping).
 */
int fq_reg_buf(struct fq_regcache *rc, struct fq_pin *p, u64 uaddr, u64 len, bool write)
{
	bool cacheable, mine = current->mm == rc->mm;
	struct fq_reg *reg = NULL, *stale;
	unsigned long start, end;
	LIST_HEAD(dead);
	u32 handle = 0;
	int err;

	err = fq_reg_range(uaddr, len, &start, &end);
	if (err)
		return err;
	mutex_lock(&rc->lock);
	fq_reg_drop_idle(rc, true, &dead);
	if (mine)
		reg = fq_reg_find(rc, start, end, write);
	if (reg) {
		reg->users++;
		list_move(&reg->lru, &rc->lru);
		rc->hits++;
	} else if (mine) {
		/* a registration that went stale is pinned again in its place */
		stale = fq_reg_find_stale_registered(rc, start, end);
		if (stale) {
			handle = stale->handle;
			start = stale->start;
			end = stale->end;
			/* (pinned for writing if either call writes) */
			write |= stale->write;
			fq_reg_drop(rc, stale, &dead);
		}
	}
	mutex_unlock(&rc->lock);
	/* (a stale registration's pages are given back before its new ones are pinned) */
	fq_reg_free_list(&dead);
	if (!reg) {
		reg = fq_reg_new(rc, start, end, write, &cacheable);
		if (IS_ERR(reg))
			return PTR_ERR(reg);
		mutex_lock(&rc->lock);
		rc->misses++;
		/* another process's buffers (a forked child's) are pinned for the call alone */
		if (mine && (cacheable || handle) && fq_reg_insert(rc, reg, &dead))
			reg->handle = handle;
		mutex_unlock(&rc->lock);
		fq_reg_free_list(&dead);
	}
	p->reg = reg;
	p->ptr = reg->pin.vaddr + (uaddr - reg->start);
	return 0;
}

/**
 * fq_reg_put() - a call is done with @reg
 * @reg: from fq_reg_buf()
 *
 * An entry that is not cached, or stale, goes when its last call does.
 * Context: process context.
 */
void fq_reg_put(struct fq_reg *reg)
{
	struct fq_regcache *rc = reg->rc;
	bool drop;

	mutex_lock(&rc->lock);
	drop = !--reg->users && !reg->handle && (list_empty(&reg->lru) || !fq_reg_current(reg));
	if (drop && !list_empty(&reg->lru)) {
		list_del_init(&reg->lru);
		rc->count--;
	}
	mutex_unlock(&rc->lock);
	if (drop)
		fq_reg_free(reg);
}

/* A handle no entry has.  Context: rc->lock held. */
static u32 fq_reg_new_handle(struct fq_regcache *rc)
{
	struct fq_reg *reg;
	bool taken;

	do {
		if (!++rc->next_handle)
			rc->next_handle = 1;
		taken = false;
		list_for_each_entry(reg, &rc->lru, lru)
			taken |= reg->handle == rc->next_handle;
	} while (taken);
	return rc->next_handle;
}

/**
 * fq_reg_register() - FABRIQ_IOC_REG: pin @len bytes at @uaddr for as long
 * as the handle lives
 * @rc: the communicator's cache
 * @uaddr: the user address
 * @len: bytes, 1..1 GiB
 * @handle: out, for fq_reg_deregister()
 *
 * The buffer is pinned for writing, so it serves as input and output,
 * or, where the process may not write it, for reading.  If its memory is
 * later unmapped or replaced, the next call on it pins it again under the
 * same handle.  Context: process context, the caller's.  Return: 0,
 * -EINVAL (@len), -EPERM (not the communicator's creator process),
 * -EFAULT, -ENOMEM (also: over RLIMIT_MEMLOCK), -ENOSPC
 * (max_regs_per_comm entries are registered or in use).
 */
int fq_reg_register(struct fq_regcache *rc, u64 uaddr, u64 len, u32 *handle)
{
	unsigned long start, end;
	struct fq_reg *reg;
	bool cacheable, room;
	LIST_HEAD(dead);
	int err;

	err = fq_reg_range(uaddr, len, &start, &end);
	if (err)
		return err;
	if (current->mm != rc->mm)
		return -EPERM;
	reg = fq_reg_new(rc, start, end, true, &cacheable);
	/* memory the process may not write (read-only, a file's shared pages): for sending */
	if (IS_ERR(reg) && (PTR_ERR(reg) == -EFAULT || PTR_ERR(reg) == -EOPNOTSUPP))
		reg = fq_reg_new(rc, start, end, false, &cacheable);
	if (IS_ERR(reg))
		return PTR_ERR(reg);
	mutex_lock(&rc->lock);
	room = fq_reg_insert(rc, reg, &dead);
	if (room) {
		reg->users = 0;
		reg->handle = fq_reg_new_handle(rc);
		*handle = reg->handle;
	}
	mutex_unlock(&rc->lock);
	fq_reg_free_list(&dead);
	if (!room) {
		fq_reg_free(reg);
		return -ENOSPC;
	}
	return 0;
}

/**
 * fq_reg_deregister() - FABRIQ_IOC_DEREG: the handle's entry becomes an
 * ordinary cached one (freed now if no call uses it)
 * @rc: the communicator's cache
 * @handle: from fq_reg_register()
 *
 * Context: process context.  Return: 0 or -ENOENT.
 */
int fq_reg_deregister(struct fq_regcache *rc, u32 handle)
{
	struct fq_reg *reg, *found = NULL;
	LIST_HEAD(dead);

	mutex_lock(&rc->lock);
	list_for_each_entry(reg, &rc->lru, lru)
		if (handle && reg->handle == handle) {
			found = reg;
			break;
		}
	if (found) {
		found->handle = 0;
		if (!found->users)
			fq_reg_drop(rc, found, &dead);
	}
	mutex_unlock(&rc->lock);
	fq_reg_free_list(&dead);
	return found ? 0 : -ENOENT;
}

/**
 * fq_regcache_init() - an empty cache for the calling process's buffers
 * @rc: the cache
 *
 * Only the creator's buffers are cached and registered; a call from
 * another process (a forked child sharing the file) pins for itself.
 * Context: process context (COMM_INIT).
 */
void fq_regcache_init(struct fq_regcache *rc)
{
	mutex_init(&rc->lock);
	spin_lock_init(&rc->seq_lock);
	INIT_LIST_HEAD(&rc->lru);
	INIT_LIST_HEAD(&rc->mapped);
	rc->mm = current->mm;
	mmgrab(rc->mm);
}

/**
 * fq_regcache_flush() - free every entry; no call may use one any more
 * @rc: the cache
 *
 * Context: process context.
 */
void fq_regcache_flush(struct fq_regcache *rc)
{
	struct fq_reg *reg, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&rc->lock);
	list_for_each_entry_safe(reg, tmp, &rc->lru, lru)
		if (!WARN_ON_ONCE(reg->users))
			fq_reg_drop(rc, reg, &dead);
	mutex_unlock(&rc->lock);
	fq_reg_free_list(&dead);
}

/**
 * fq_reg_holds() - does @ptr point into @reg's pages?
 * @reg: an entry a call uses
 * @ptr: a kernel address
 *
 * Context: any (the entry's pages and mapping do not change while a call uses it).
 */
bool fq_reg_holds(const struct fq_reg *reg, const void *ptr)
{
	return ptr >= reg->pin.vaddr &&
	       ptr < reg->pin.vaddr + ((size_t)reg->pin.npages << PAGE_SHIFT);
}

/**
 * fq_reg_dma() - @reg's pages mapped for @dev, mapped now if they are not yet
 * @reg: an entry a call uses
 * @dev: the communicator's device
 *
 * They stay mapped until the entry is freed or fq_regcache_unmap().  The
 * device only reads them (receives land in the connections' slots), so
 * they are mapped to the device: a bidirectional mapping that lives
 * across calls would, unmapped behind a bounce buffer, copy stale bytes
 * back over what the CPU wrote since.
 * Context: process; the communicator's hw_rwsem held for reading, its
 * device not gone.  Return: the mapping, or NULL if it could not be made,
 * now or before (the caller maps what it sends itself).
 */
const struct fq_dmamap *fq_reg_dma(struct fq_reg *reg, struct ib_device *dev)
{
	struct fq_regcache *rc = reg->rc;
	const struct fq_dmamap *map;

	mutex_lock(&rc->lock);
	if (!reg->dma.dev && !reg->dma_failed) {
		reg->dma_failed = fq_dmamap_map(&reg->dma, dev, reg->pin.vaddr, reg->pin.pages,
						reg->pin.npages, DMA_TO_DEVICE) != 0;
		if (!reg->dma_failed)
			list_add(&reg->mapped, &rc->mapped);
	}
	map = reg->dma.dev ? &reg->dma : NULL;
	mutex_unlock(&rc->lock);
	return map;
}

/**
 * fq_regcache_unmap() - unmap every entry's pages for the device
 * @rc: the cache
 *
 * Context: process; the communicator's teardown (hw_rwsem held for
 * writing), after its QPs are flushed and before its device may go.
 */
void fq_regcache_unmap(struct fq_regcache *rc)
{
	struct fq_reg *reg, *tmp;

	mutex_lock(&rc->lock);
	list_for_each_entry_safe(reg, tmp, &rc->mapped, mapped)
		fq_reg_unmap(reg);
	mutex_unlock(&rc->lock);
}

/* The cache's end, with its communicator's.  Context: process context. */
void fq_regcache_destroy(struct fq_regcache *rc)
{
	fq_regcache_flush(rc);
	mmdrop(rc->mm);
}

/* debugfs comms/<id>/regcache: the counters, then one line per entry */
void fq_regcache_show(struct seq_file *s, struct fq_regcache *rc)
{
	struct fq_reg *reg;
	u64 inval;

	spin_lock(&rc->seq_lock);
	inval = rc->invalidations;
	spin_unlock(&rc->seq_lock);
	mutex_lock(&rc->lock);
	seq_printf(s, "entries %u max %u hits %llu misses %llu invalidations %llu\n", rc->count,
		   fq_limits_max_regs(), rc->hits, rc->misses, inval);
	list_for_each_entry(reg, &rc->lru, lru)
		seq_printf(s, "%#lx %lu %s users %u handle %u %s%s\n", reg->start,
			   reg->end - reg->start, reg->write ? "rw" : "ro", reg->users, reg->handle,
			   fq_reg_current(reg) ? "current" : "stale",
			   reg->dma.dev ? " dma-mapped" : "");
	mutex_unlock(&rc->lock);
}
