// SPDX-License-Identifier: GPL-2.0
/*
 * dmamap.c - pages mapped for a device once, for as long as their owner
 * keeps them (a registration cache entry: regcache.c), and the gather
 * lists of sends: built from such a mapping, or, for memory that has
 * none (kernel copies and work buffers), from its pages mapped for the
 * one send and unmapped when it completes.
 *
 * A mapping is one scatter/gather table of the pages, mapped in one go
 * (behind an IOMMU: one run of I/O addresses, where neighbouring pages
 * then follow on and a send's pages merge into few SGEs), and the device
 * address of every page, read off it.  Before a send reads mapped bytes
 * they are synced for the device, so that what the CPU wrote since (the
 * caller, a reduction) reaches a device behind a bounce buffer or a
 * non-coherent cache too.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "comm.h"

/*
 * The longest run of pages one table entry may hold: the device's
 * segment limit, and what its DMA layer maps at once (swiotlb bounces at
 * most 256 KiB in one go; a longer physically contiguous run, as huge
 * pages give, would fail the whole mapping).
 */
static unsigned int fq_dmamap_max_segment(struct ib_device *dev)
{
	unsigned int seg = ib_dma_max_seg_size(dev);

	if (!ib_uses_virt_dma(dev))
		seg = min_t(size_t, seg, dma_max_mapping_size(dev->dma_device));
	return max_t(unsigned int, seg, PAGE_SIZE);
}

/* Every page's device address, from the mapped table.  Return: false if they do not add up. */
static bool fq_dmamap_pages(struct fq_dmamap *m, u32 npages)
{
	struct scatterlist *sg;
	u32 i = 0, k, n;

	for_each_sgtable_dma_sg(&m->sgt, sg, k) {
		if (!PAGE_ALIGNED(sg_dma_address(sg)) || !PAGE_ALIGNED(sg_dma_len(sg)))
			return false;
		for (n = 0; n < sg_dma_len(sg) >> PAGE_SHIFT; n++) {
			if (i == npages)
				return false;
			m->addr[i++] = sg_dma_address(sg) + ((u64)n << PAGE_SHIFT);
		}
	}
	return i == npages;
}

/**
 * fq_dmamap_map() - map @npages pages for @dev
 * @m: an unmapped map (zeroed)
 * @dev: the device
 * @base: the kernel address of the first page (its bytes follow in order)
 * @pages: the pages
 * @npages: how many
 * @dir: the direction (the sends' gather lists need DMA_TO_DEVICE)
 *
 * Context: process context; the device stays registered until
 * fq_dmamap_unmap().  Return: 0 or -errno (then nothing is mapped).
 */
int fq_dmamap_map(struct fq_dmamap *m, struct ib_device *dev, void *base, struct page **pages,
		  u32 npages, enum dma_data_direction dir)
{
	int err;

	m->addr = kvmalloc_array(npages, sizeof(*m->addr), FQ_GFP_USER_SIZED);
	if (!m->addr)
		return -ENOMEM;
	err = sg_alloc_table_from_pages_segment(&m->sgt, pages, npages, 0,
						(unsigned long)npages << PAGE_SHIFT,
						fq_dmamap_max_segment(dev), FQ_GFP_USER_SIZED);
	if (err)
		goto err_free;
	err = ib_dma_map_sgtable_attrs(dev, &m->sgt, dir, 0);
	if (err)
		goto err_table;
	if (!fq_dmamap_pages(m, npages)) {
		err = -EINVAL;
		goto err_unmap;
	}
	m->dev = dev;
	m->base = base;
	m->npages = npages;
	m->dir = dir;
	atomic_inc(&fq_objects.dma_maps);
	return 0;

err_unmap:
	ib_dma_unmap_sgtable_attrs(dev, &m->sgt, dir, 0);
err_table:
	sg_free_table(&m->sgt);
err_free:
	kvfree(m->addr);
	memset(m, 0, sizeof(*m));
	return err;
}

/**
 * fq_dmamap_unmap() - undo fq_dmamap_map(); a map that is not mapped is left alone
 * @m: the map
 *
 * Context: process context; no send reads the pages any more.
 */
void fq_dmamap_unmap(struct fq_dmamap *m)
{
	if (!m->dev)
		return;
	ib_dma_unmap_sgtable_attrs(m->dev, &m->sgt, m->dir, 0);
	sg_free_table(&m->sgt);
	kvfree(m->addr);
	memset(m, 0, sizeof(*m));
	atomic_dec(&fq_objects.dma_maps);
}

/* Does @m map every byte of [@data, @data + @len)? */
bool fq_dmamap_covers(const struct fq_dmamap *m, const void *data, u32 len)
{
	return m && m->dev && data >= m->base &&
	       data + len <= m->base + ((size_t)m->npages << PAGE_SHIFT);
}

static struct page *fq_addr_page(const void *p)
{
	return is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
}

/**
 * fq_sge_unmap_attrs() - unmap what fq_sge_build() mapped for one request
 * @dev: the device
 * @dir: the direction it mapped them in
 * @sge: the request's list
 * @n: its entries
 * @attrs: DMA_ATTR_* (DMA_ATTR_SKIP_CPU_SYNC: the CPU's view of the
 *	bytes is already right)
 */
void fq_sge_unmap_attrs(struct ib_device *dev, enum dma_data_direction dir,
			const struct ib_sge *sge, u32 n, unsigned long attrs)
{
	if (ib_uses_virt_dma(dev))
		return;	/* ib_dma_unmap_page()'s rule: nothing was mapped */
	while (n--)
		dma_unmap_page_attrs(dev->dma_device, sge[n].addr, sge[n].length, dir, attrs);
}

/* fq_sge_unmap_attrs(), synced for the CPU as the direction says */
void fq_sge_unmap(struct ib_device *dev, enum dma_data_direction dir, const struct ib_sge *sge,
		  u32 n)
{
	fq_sge_unmap_attrs(dev, dir, sge, n, 0);
}

/* The device address of @data, which @map holds, for a send of @n bytes. */
static u64 fq_sge_addr(struct ib_device *dev, const struct fq_dmamap *map, const void *data,
		       u32 n)
{
	u64 addr = map->addr[(data - map->base) >> PAGE_SHIFT] + offset_in_page(data);

	/*
	 * Part of one page of a scatter/gather mapping, synced through the
	 * single-range call: dma-direct, dma-iommu and swiotlb resolve the
	 * address to its page, and dma-debug finds the entry that holds it.
	 */
	ib_dma_sync_single_for_device(dev, addr, n, map->dir);
	return addr;
}

/**
 * fq_sge_build() - the gather list of a send of [@data, @data + @len), or
 * the scatter list of a read into it
 * @dev: the device
 * @dir: DMA_TO_DEVICE (a send) or DMA_FROM_DEVICE (a read: @map must be
 *	NULL, as the long-lived mappings are the device's to read only)
 * @lkey: the local key of every entry
 * @map: a mapping that may hold the bytes (NULL: none does)
 * @data: the bytes, in kernel memory or a kernel mapping of pinned pages
 * @len: how many
 * @sge: filled in, at most @max entries
 * @max: room in @sge
 * @own: out: the entries were mapped for this send (fq_sge_unmap() them
 *	when it completes); else they come from @map, and neighbouring
 *	pages whose addresses follow on are merged
 *
 * Context: any.  Return: the entries filled, or -EINVAL (more than @max
 * needed) or -ENOMEM (mapping failed), with nothing left mapped.
 */
int fq_sge_build(struct ib_device *dev, enum dma_data_direction dir, u32 lkey,
		 const struct fq_dmamap *map, const void *data, u32 len, struct ib_sge *sge,
		 u32 max, bool *own)
{
	u32 k = 0, n;
	u64 addr;
	int err = 0;

	if (!fq_dmamap_covers(map, data, len))
		map = NULL;
	*own = !map;
	while (len) {
		n = min_t(u32, len, PAGE_SIZE - offset_in_page(data));
		if (map) {
			addr = fq_sge_addr(dev, map, data, n);
		} else {
			addr = ib_dma_map_page(dev, fq_addr_page(data), offset_in_page(data), n,
					       dir);
			if (ib_dma_mapping_error(dev, addr)) {
				err = -ENOMEM;
				break;
			}
		}
		if (map && k && sge[k - 1].addr + sge[k - 1].length == addr) {
			sge[k - 1].length += n;
		} else if (k < max) {
			sge[k].addr = addr;
			sge[k].length = n;
			sge[k].lkey = lkey;
			k++;
		} else {
			if (!map)
				ib_dma_unmap_page(dev, addr, n, dir);
			err = -EINVAL;
			break;
		}
		data += n;
		len -= n;
	}
	if (!err)
		return k;
	if (!map)
		fq_sge_unmap(dev, dir, sge, k);
	return err;
}
