// SPDX-License-Identifier: GPL-2.0
/*
 * umem.c - the user buffers of a collective call as the engine uses them:
 * pinned (FOLL_LONGTERM), charged to the caller's RLIMIT_MEMLOCK
 * (limits.c) and mapped into the kernel, kept in the communicator's
 * registration cache (regcache.c) across calls, or, for a small
 * synchronous call, a kernel copy.
 *
 * A long-term write pin is refused on file-backed shared mappings other
 * than shmem and hugetlb, on every kernel: 6.1 would take it and let the
 * filesystem write back pages the HCA is still writing; 6.2 and later
 * refuse it themselves.
 */
#include <linux/hugetlb_inline.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "comm.h"

/*
 * May a long-term write pin hold the pages of @vma?  Anonymous and private
 * mappings (a write pin copies on write), shmem (tmpfs, memfd,
 * MAP_SHARED|MAP_ANONYMOUS) and hugetlb; a shared mapping of a file on
 * another filesystem is refused because its pages may be written back
 * while the HCA writes into them.
 */
static bool fq_pin_vma_writable(struct vm_area_struct *vma)
{
	return !vma->vm_file || !(vma->vm_flags & VM_SHARED) || is_vm_hugetlb_page(vma) ||
	       file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC;
}

/* the same, for a page pinned: it may have been mapped after the check */
static bool fq_pin_page_writable(struct page *page)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;

	if (folio_test_anon(folio) || folio_test_hugetlb(folio))
		return true;
	mapping = folio_mapping(folio);
	return !mapping || (mapping->host && mapping->host->i_sb->s_magic == TMPFS_MAGIC);
}

/* Every page of [@start, @end) writable by a long-term pin?  -EOPNOTSUPP if not. */
static int fq_pin_check_range(unsigned long start, unsigned long end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int err = 0;

	mmap_read_lock(mm);
	while (start < end) {
		vma = find_vma(mm, start);
		if (!vma || vma->vm_start > start) {
			err = -EFAULT;
			break;
		}
		if (!fq_pin_vma_writable(vma)) {
			err = -EOPNOTSUPP;
			break;
		}
		start = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return err;
}

/**
 * fq_pin_pages() - pin and map [@uaddr, @uaddr + @len) of the caller's mm
 * @p: receives the pages; fq_unpin_pages() releases them, also after an error
 * @uaddr: the user address
 * @len: its length (0: nothing)
 * @write: pinned for writing
 *
 * Context: process context, the caller's.  Return: 0, -EFAULT, -ENOMEM
 * (also: over RLIMIT_MEMLOCK), -EOPNOTSUPP (@write into a file-backed
 * shared mapping).
 */
int fq_pin_pages(struct fq_pin *p, u64 uaddr, u64 len, bool write)
{
	unsigned long first, last;
	int i, n, got, err;

	if (!len)
		return 0;
	if (uaddr + len < uaddr)
		return -EFAULT;
	first = uaddr >> PAGE_SHIFT;
	last = (uaddr + len - 1) >> PAGE_SHIFT;
	n = last - first + 1;
	if (write) {
		err = fq_pin_check_range(uaddr & PAGE_MASK, (last + 1) << PAGE_SHIFT);
		if (err)
			return err;
	}
	err = fq_limits_charge_pin(p, n);
	if (err)
		return err;
	p->pages = kvmalloc_array(n, sizeof(*p->pages), FQ_GFP_USER_SIZED);
	if (!p->pages)
		return -ENOMEM;
	got = pin_user_pages_fast(uaddr & PAGE_MASK, n, (write ? FOLL_WRITE : 0) | FOLL_LONGTERM,
				  p->pages);
	if (got != n) {
		if (got > 0)
			unpin_user_pages(p->pages, got);
		kvfree(p->pages);
		p->pages = NULL;
		return got < 0 && got != -EFAULT ? got : -EFAULT;
	}
	p->npages = n;
	atomic_add(n, &fq_objects.pinned_pages);
	for (i = 0; write && i < n; i++)
		if (!fq_pin_page_writable(p->pages[i]))
			return -EOPNOTSUPP;
	p->vaddr = vmap(p->pages, n, VM_MAP, PAGE_KERNEL);
	if (!p->vaddr)
		return -ENOMEM;
	p->ptr = p->vaddr + (uaddr & ~PAGE_MASK);
	return 0;
}

/*
 * A kernel copy of a small user buffer, in @p->stage if it has one and
 * the copy fits: filled now (input), probed (output).
 */
static int fq_copy_in(struct fq_pin *p, u64 uaddr, u64 len, bool write)
{
	if (!len)
		return 0;
	p->ptr = p->stage && len <= FQ_SMALL_BYTES ? p->stage : kvmalloc(len, FQ_GFP_USER_SIZED);
	if (!p->ptr)
		return -ENOMEM;
	p->copy = true;
	p->uaddr = uaddr;
	p->len = len;
	if (write)
		return fault_in_writeable(u64_to_user_ptr(uaddr), len) ? -EFAULT : 0;
	return copy_from_user(p->ptr, u64_to_user_ptr(uaddr), len) ? -EFAULT : 0;
}

/**
 * fq_user_buf() - a user buffer for the engine: from the registration
 * cache, or copied when @copy
 * @rc: the communicator's registration cache
 * @p: receives it; fq_unpin() releases it, also after an error
 * @uaddr: the user address
 * @len: its length (0: no buffer)
 * @write: the call writes into it
 * @copy: a small synchronous call: work on a kernel copy
 *
 * Context: process context, the caller's.  Return: as fq_reg_buf().
 */
int fq_user_buf(struct fq_regcache *rc, struct fq_pin *p, u64 uaddr, u64 len, bool write,
		bool copy)
{
	if (!len)
		return 0;
	return copy ? fq_copy_in(p, uaddr, len, write) : fq_reg_buf(rc, p, uaddr, len, write);
}

void fq_unpin_pages(struct fq_pin *p, bool dirty)
{
	fq_limits_uncharge_pin(p);
	if (p->pages) {
		if (p->vaddr)
			vunmap(p->vaddr);
		unpin_user_pages_dirty_lock(p->pages, p->npages, dirty);
		atomic_sub(p->npages, &fq_objects.pinned_pages);
		kvfree(p->pages);
	}
	memset(p, 0, sizeof(*p));
}

/* Give back what fq_user_buf() took. */
void fq_unpin(struct fq_pin *p)
{
	if (p->copy) {
		if (p->ptr != p->stage)
			kvfree(p->ptr);
		memset(p, 0, sizeof(*p));
	} else if (p->reg) {
		fq_reg_put(p->reg);
		memset(p, 0, sizeof(*p));
	}
}
