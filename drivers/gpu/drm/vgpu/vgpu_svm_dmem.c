// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_print.h>

#include "vgpu_drv.h"
#include "vgpu_migrate.h"
#include "vgpu_policy.h"
#include "vgpu_pool.h"
#include "vgpu_stats.h"
#include "vgpu_svm_dmem.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: SVM memory in VRAM (device-private pages)
 *
 * On a kernel built with ``CONFIG_DEVICE_PRIVATE`` the device's VRAM gets
 * a &struct dev_pagemap of type %MEMORY_DEVICE_PRIVATE when the first
 * mirror is bound (none at probe, so that a device without SVM users
 * spends no memory on it; a failure leaves SVM in system memory): a free
 * range of physical addresses as large as VRAM
 * (devm_request_free_mem_region()) with a &struct page for each 4 KiB of
 * it (devm_memremap_pages()).  Device page *n* stands for the VRAM page at
 * offset *n* * 4 KiB; nothing else is kept per page but its *block*
 * (``zone_device_data``).  The CPU cannot reach such a page: a process
 * page migrated there is a device-private swap entry in the process's page
 * tables, and the CPU's next touch calls migrate_to_ram.
 *
 * The VRAM behind the pages comes from the one VRAM pool, a chunk-sized
 * naturally aligned block at a time (vgpu_vram_mgr_alloc_chunk(), as a
 * pageable BO's chunk), and each block is a unit of the pool (kind
 * %VGPU_POOL_SVM): it competes with BOs and chunks under the one eviction
 * order and the pool evicts it when it needs room.  A block holds the
 * chunk-aligned range of process memory one GPU fault migrated, page *i*
 * of the range in page *i* of the block.  Its reference count
 * (&vgpu_svm_dmem_block.refs) counts the device pages in use plus the
 * migration filling it; when it drops to zero (the last page freed) the
 * block goes on a list that a worker, or the next path holding the pool
 * lock, empties: the unit leaves the pool and the VRAM goes back.
 *
 * - **GPU fault** in a mirror (vgpu_svm_dmem_migrate()), placement policy
 *   ``migrate``, an anonymous private VMA: migrate_vma_setup() collects
 *   the system pages (and holes) of the chunk around the faulting address,
 *   cut to the mirror and the VMA; a block is allocated (the pool making
 *   room as for a chunk; none to be had leaves the pages in system
 *   memory); the copy engine copies each page into the block (a hole is
 *   cleared), one batch waited for; migrate_vma_pages() and
 *   migrate_vma_finalize() switch the CPU's page tables to the device
 *   pages.  The mirror's notifier takes the old pages from the GPU as for
 *   any change; hmm_range_fault(), told our pages are ours
 *   (``dev_private_owner``), then returns the device pages, which the
 *   mirror maps as VRAM leaves at their VRAM offset.
 * - **CPU touch** (migrate_to_ram): the whole block's range, within the
 *   touching VMA, is copied back into new system pages with the copy
 *   engine (migrate_vma_setup() with the faulting page), and finalised.
 * - **Eviction** (the pool's ``evict``): migrate_device_range() over the
 *   block's device pages (in any process, through their reverse mapping),
 *   new system pages, the copy back, migrate_device_pages(),
 *   migrate_device_finalize().  A copy that fails leaves the pages in VRAM
 *   (-EIO).  At device removal every block is evicted so, with the copy
 *   engine still running; the pages of a device already gone are lost.
 * - **munmap, exit**: the core frees the device pages (page_free), which
 *   drops the block's references.
 * - **fork** shares the device pages with the child, read-only, like any
 *   anonymous page; either process's touch brings them back.
 *
 * The bytes moved count in the paging counters ``bytes_to_vram`` and
 * ``bytes_to_system`` (QUERY_PAGING, fdinfo ``drm-vgpu-migrated-to-*``):
 * for the VM of a GPU fault, PREFETCH or ADVISE; an eviction, with its
 * bytes, for the VM that filled the block (&vgpu_svm_dmem_block.vm), as
 * long as that VM lives; a CPU touch, which no VM asked for, for the
 * device only.
 *
 * Lock order: the mm's mmap lock (read; the GPU fault and the CPU fault
 * both hold it while they migrate), &vgpu_pool.lock (allocation,
 * eviction), the device pages' folio locks (taken by trylock only, by the
 * core's migration helpers), the mirrors' notifier locks and page-table
 * locks (the core invalidates under the pool lock during an eviction),
 * &vgpu_svm_dmem.free_lock (a spinlock, innermost: page_free may run
 * under a page-table spinlock, so it only queues the block).
 */

/**
 * struct vgpu_svm_dmem_block - one chunk-sized VRAM block of SVM memory
 * @unit: its place in the VRAM pool (kind %VGPU_POOL_SVM).
 * @dmem: the device's SVM memory.
 * @block: the VRAM manager's block.
 * @vram: its VRAM offset.
 * @refs: device pages in use, plus one while a migration fills it.
 * @vm: the VM whose fault, PREFETCH or ADVISE filled it, which its
 *	eviction is charged to; NULL once that VM is gone (pool lock).
 * @link: in &vgpu_svm_dmem.blocks (pool lock).
 * @free_link: in &vgpu_svm_dmem.freed once @refs reached zero.
 */
struct vgpu_svm_dmem_block {
	struct vgpu_pool_unit unit;
	struct vgpu_svm_dmem *dmem;
	struct gpu_buddy_block *block;
	u64 vram;
	atomic_t refs;
	struct vgpu_vm *vm;
	struct list_head link;
	struct list_head free_link;
};

/**
 * struct vgpu_svm_dmem - the device's VRAM as device-private memory
 * @vdev: the device.
 * @pagemap: the %MEMORY_DEVICE_PRIVATE pages, one per VRAM page; its owner
 *	is @vdev (what hmm_range_fault() and migrate_vma are told).
 * @pfn_first: PFN of the device page of VRAM offset 0.
 * @ready: blocks may be allocated (pool lock); cleared at removal.
 * @blocks: every block not yet freed (pool lock).
 * @free_lock: protects @freed.
 * @freed: blocks whose last page went, to give back under the pool lock.
 * @free_work: gives @freed back.
 */
struct vgpu_svm_dmem {
	struct vgpu_device *vdev;
	struct dev_pagemap pagemap;
	unsigned long pfn_first;
	bool ready;
	struct list_head blocks;
	spinlock_t free_lock;	/* protects @freed */
	struct list_head freed;
	struct work_struct free_work;
};

/* Bytes of VRAM a block holds: the chunk size. */
static inline u64 vgpu_svm_dmem_size(struct vgpu_svm_dmem *dmem)
{
	return 1ull << dmem->vdev->paging.chunk_shift;
}

/* The device page that stands for VRAM offset @vram. */
static struct page *vgpu_svm_dmem_page(struct vgpu_svm_dmem *dmem, u64 vram)
{
	return pfn_to_page(dmem->pfn_first + (vram >> PAGE_SHIFT));
}

/* Is @page one of @dmem's device pages?  Its VRAM offset in *@vram. */
static bool vgpu_svm_dmem_page_vram(struct vgpu_svm_dmem *dmem,
				    struct page *page, u64 *vram)
{
	if (!is_device_private_page(page) || page->pgmap != &dmem->pagemap)
		return false;
	*vram = (u64)(page_to_pfn(page) - dmem->pfn_first) << PAGE_SHIFT;
	return true;
}

/**
 * vgpu_svm_dmem_owner() - the owner of the device's device-private pages
 * @vdev: vgpu device
 *
 * Return: what hmm_range_fault() must be given as ``dev_private_owner``
 * so that it returns our pages instead of faulting them back, or NULL in
 * system-memory mode.
 */
void *vgpu_svm_dmem_owner(struct vgpu_device *vdev)
{
	return smp_load_acquire(&vdev->dmem) ? vdev : NULL;
}

/**
 * vgpu_svm_dmem_vram() - the VRAM behind one of our device-private pages
 * @vdev: vgpu device
 * @page: a page hmm_range_fault() returned
 * @vram: set to its VRAM offset
 *
 * Return: true if @page is one of @vdev's device pages.
 */
bool vgpu_svm_dmem_vram(struct vgpu_device *vdev, struct page *page, u64 *vram)
{
	struct vgpu_svm_dmem *dmem = smp_load_acquire(&vdev->dmem);

	return dmem && vgpu_svm_dmem_page_vram(dmem, page, vram);
}

/*
 * Gives back the blocks whose pages are all gone.  Return: true if @want
 * was one of them.
 */
static bool vgpu_svm_dmem_reap_locked(struct vgpu_svm_dmem *dmem,
				      struct vgpu_svm_dmem_block *want)
{
	struct vgpu_device *vdev = dmem->vdev;
	struct vgpu_svm_dmem_block *b, *tmp;
	bool found = false;
	LIST_HEAD(freed);

	lockdep_assert_held(&vdev->pool.lock);
	spin_lock(&dmem->free_lock);
	list_splice_init(&dmem->freed, &freed);
	spin_unlock(&dmem->free_lock);
	list_for_each_entry_safe(b, tmp, &freed, free_link) {
		if (vgpu_pool_unit_resident(&b->unit))
			vgpu_pool_remove_locked(&vdev->pool, &b->unit);
		list_del(&b->link);
		vgpu_vram_mgr_free_chunk(vdev, b->block);
		found |= b == want;
		kfree(b);
	}
	return found;
}

/* Worker: gives back the blocks page_free queued. */
static void vgpu_svm_dmem_free_work(struct work_struct *work)
{
	struct vgpu_svm_dmem *dmem = container_of(work, struct vgpu_svm_dmem,
						  free_work);

	vgpu_pool_lock(&dmem->vdev->pool);
	vgpu_svm_dmem_reap_locked(dmem, NULL);
	vgpu_pool_unlock(&dmem->vdev->pool);
}

/* Drops a reference; the last one queues the block to be given back. */
static void vgpu_svm_dmem_put(struct vgpu_svm_dmem_block *b)
{
	struct vgpu_svm_dmem *dmem = b->dmem;
	unsigned long flags;

	if (!atomic_dec_and_test(&b->refs))
		return;
	spin_lock_irqsave(&dmem->free_lock, flags);
	list_add_tail(&b->free_link, &dmem->freed);
	spin_unlock_irqrestore(&dmem->free_lock, flags);
	queue_work(system_wq, &dmem->free_work);
}

/* The block a pool unit of kind %VGPU_POOL_SVM is. */
static struct vgpu_svm_dmem_block *to_block(struct vgpu_pool_unit *u)
{
	return container_of(u, struct vgpu_svm_dmem_block, unit);
}

/* &vgpu_pool_unit_ops.read_ctr: the access counters of the block's VRAM. */
static u32 vgpu_svm_dmem_unit_read_ctr(struct vgpu_pool_unit *u)
{
	struct vgpu_svm_dmem_block *b = to_block(u);

	return vgpu_pool_read_ctr(&b->dmem->vdev->pool, b->vram, u->size);
}

/* Recency from the access counters only: the leaves are the mirrors'. */
static bool vgpu_svm_dmem_unit_age(struct vgpu_pool_unit *u)
{
	return false;
}

/* &vgpu_pool_unit_ops.intersects: does the block hold VRAM in the range? */
static bool vgpu_svm_dmem_unit_intersects(struct vgpu_pool_unit *u, u64 start,
					  u64 end)
{
	struct vgpu_svm_dmem_block *b = to_block(u);

	return b->vram < end && b->vram + u->size > start;
}

/* Queue the copy of @n pages between @dma and VRAM @vram, one by one. */
static int vgpu_svm_dmem_copy(struct vgpu_device *vdev, const dma_addr_t *dma,
			      const u64 *vram, unsigned long n, bool to_vram)
{
	struct vgpu_migrate_batch batch;
	unsigned long i;
	int ret = 0;

	vgpu_migrate_batch_init(&batch, vdev);
	for (i = 0; i < n && !ret; i++)
		ret = vgpu_migrate_batch_add_page(&batch, dma[i], vram[i],
						  to_vram);
	if (!ret)
		ret = vgpu_migrate_batch_wait(&batch);
	else
		vgpu_migrate_batch_wait(&batch);
	vgpu_migrate_batch_fini(&batch);
	return ret;
}

/**
 * struct vgpu_svm_dmem_xfer - the pages of one migration out of VRAM
 * @src: migrate_vma / migrate_device source PFNs.
 * @dst: destination PFNs.
 * @dma: DMA address of each page copied.
 * @vram: VRAM offset of each page copied.
 * @idx: its index in @src.
 * @n: pages copied.
 */
struct vgpu_svm_dmem_xfer {
	unsigned long *src;
	unsigned long *dst;
	dma_addr_t *dma;
	u64 *vram;
	unsigned long *idx;
	unsigned long n;
};

/* Arrays for @npages pages; -ENOMEM (free them anyway) if one failed. */
static int vgpu_svm_dmem_xfer_alloc(struct vgpu_svm_dmem_xfer *x,
				    unsigned long npages, gfp_t gfp)
{
	memset(x, 0, sizeof(*x));
	x->src = kvcalloc(npages, sizeof(*x->src), gfp);
	x->dst = kvcalloc(npages, sizeof(*x->dst), gfp);
	x->dma = kvcalloc(npages, sizeof(*x->dma), gfp);
	x->vram = kvcalloc(npages, sizeof(*x->vram), gfp);
	x->idx = kvcalloc(npages, sizeof(*x->idx), gfp);
	if (x->src && x->dst && x->dma && x->vram && x->idx)
		return 0;
	return -ENOMEM;
}

/* Frees the arrays of @x. */
static void vgpu_svm_dmem_xfer_free(struct vgpu_svm_dmem_xfer *x)
{
	kvfree(x->src);
	kvfree(x->dst);
	kvfree(x->dma);
	kvfree(x->vram);
	kvfree(x->idx);
}

/*
 * Unmaps the DMA of the pages of @x; with @drop, also gives the new
 * pages up (the copy failed: the migration must not use them).
 */
static void vgpu_svm_dmem_xfer_end(struct vgpu_device *vdev,
				   struct vgpu_svm_dmem_xfer *x,
				   enum dma_data_direction dir, bool drop)
{
	unsigned long i;

	for (i = 0; i < x->n; i++) {
		if (x->dma[i] != DMA_MAPPING_ERROR)
			dma_unmap_page(vdev->drm.dev, x->dma[i], PAGE_SIZE, dir);
		if (drop) {
			struct page *page = migrate_pfn_to_page(x->dst[x->idx[i]]);

			unlock_page(page);
			put_page(page);
			x->dst[x->idx[i]] = 0;
		}
	}
}

/*
 * For every source page of @x in VRAM that may migrate: a new system page
 * from @alloc, DMA mapped, and its copy queued; then waited for.  On a
 * failed copy nothing migrates, unless @force (removal: the pages go
 * anyway, zeroed by @alloc, their data lost).
 *
 * Return: 0, or -ENOMEM (no page for the one at @need, an index, or -1),
 * -EIO.
 */
static int vgpu_svm_dmem_copy_out(struct vgpu_svm_dmem *dmem,
				  struct vgpu_svm_dmem_xfer *x,
				  unsigned long npages, long need,
				  struct page *(*alloc)(void *arg, unsigned long i),
				  void *arg, bool force)
{
	struct vgpu_device *vdev = dmem->vdev;
	unsigned long i;
	int ret = 0;

	x->n = 0;
	for (i = 0; i < npages; i++) {
		struct page *spage = migrate_pfn_to_page(x->src[i]);
		struct page *dpage;
		u64 vram;

		if (!spage || !(x->src[i] & MIGRATE_PFN_MIGRATE) ||
		    !vgpu_svm_dmem_page_vram(dmem, spage, &vram))
			continue;
		dpage = alloc(arg, i);
		if (!dpage) {
			if (i == need)
				ret = -ENOMEM;
			continue;
		}
		lock_page(dpage);
		x->dst[i] = migrate_pfn(page_to_pfn(dpage));
		x->idx[x->n] = i;
		x->vram[x->n] = vram;
		x->dma[x->n] = dma_map_page(vdev->drm.dev, dpage, 0, PAGE_SIZE,
					    DMA_FROM_DEVICE);
		if (dma_mapping_error(vdev->drm.dev, x->dma[x->n])) {
			x->dma[x->n++] = DMA_MAPPING_ERROR;
			ret = -ENOMEM;
			break;
		}
		x->n++;
	}
	if (!ret)
		ret = vgpu_svm_dmem_copy(vdev, x->dma, x->vram, x->n, false);
	vgpu_svm_dmem_xfer_end(vdev, x, DMA_FROM_DEVICE, ret && !force);
	return ret;
}

/* Bytes of the pages of @x that did migrate. */
static u64 vgpu_svm_dmem_xfer_moved(struct vgpu_svm_dmem_xfer *x)
{
	unsigned long i;
	u64 n = 0;

	for (i = 0; i < x->n; i++)
		if (x->src[x->idx[i]] & MIGRATE_PFN_MIGRATE)
			n += PAGE_SIZE;
	return n;
}

/* A system page for an eviction; never fails at removal (@arg set). */
static struct page *vgpu_svm_dmem_alloc_evict(void *arg, unsigned long i)
{
	gfp_t gfp = GFP_HIGHUSER_MOVABLE;

	/* At removal the data has nowhere else to go; no stale data. */
	if (arg)
		gfp |= __GFP_NOFAIL | __GFP_ZERO;
	return alloc_page(gfp);
}

/*
 * Moves every page of @b back to system memory, in whichever process maps
 * it.  With @force (removal) also when the copy fails.
 *
 * Context: the pool lock held.
 * Return: 0, or -ENOMEM, -EIO (the pages stay).
 */
static int vgpu_svm_dmem_evict_block(struct vgpu_svm_dmem_block *b, bool force)
{
	struct vgpu_svm_dmem *dmem = b->dmem;
	unsigned long npages = b->unit.size >> PAGE_SHIFT;
	struct vgpu_svm_dmem_xfer x;
	int ret;

	lockdep_assert_held(&dmem->vdev->pool.lock);
	ret = vgpu_svm_dmem_xfer_alloc(&x, npages, GFP_KERNEL |
				       (force ? __GFP_NOFAIL : 0));
	if (ret) {
		vgpu_svm_dmem_xfer_free(&x);
		return ret;
	}
	migrate_device_range(x.src, dmem->pfn_first + (b->vram >> PAGE_SHIFT),
			     npages);
	ret = vgpu_svm_dmem_copy_out(dmem, &x, npages, -1,
				     vgpu_svm_dmem_alloc_evict,
				     force ? dmem : NULL, force);
	if (ret && force)
		drm_warn(&dmem->vdev->drm, "SVM memory lost at removal: copy failed (%d)\n",
			 ret);
	migrate_device_pages(x.src, x.dst, npages);
	vgpu_stats_add(dmem->vdev, b->vm, VGPU_STAT_BYTES_TO_SYSTEM,
		       vgpu_svm_dmem_xfer_moved(&x));
	migrate_device_finalize(x.src, x.dst, npages);
	vgpu_svm_dmem_xfer_free(&x);
	return ret;
}

/*
 * &vgpu_pool_unit_ops.evict: the block's pages back to system memory.
 * Return: 0 once its VRAM is free, -EBUSY while a page is held elsewhere,
 * or the eviction's error.
 */
static int vgpu_svm_dmem_unit_evict(struct vgpu_pool_unit *u)
{
	struct vgpu_svm_dmem_block *b = to_block(u);
	struct vgpu_svm_dmem *dmem = b->dmem;
	int ret;

	/* Keep @b while the pages go: their frees may reach zero. */
	atomic_inc(&b->refs);
	ret = vgpu_svm_dmem_evict_block(b, false);
	vgpu_svm_dmem_put(b);
	if (ret)
		return ret;
	/* Charged to the VM that filled it, if it is still there. */
	vgpu_stats_add(dmem->vdev, b->vm, VGPU_STAT_EVICTIONS, 1);
	/* A page someone else still holds keeps the block for later. */
	return vgpu_svm_dmem_reap_locked(dmem, b) ? 0 : -EBUSY;
}

static const struct vgpu_pool_unit_ops vgpu_svm_dmem_unit_ops = {
	.kind = VGPU_POOL_SVM,
	.read_ctr = vgpu_svm_dmem_unit_read_ctr,
	.age = vgpu_svm_dmem_unit_age,
	.intersects = vgpu_svm_dmem_unit_intersects,
	.evict = vgpu_svm_dmem_unit_evict,
};

/*
 * A new block in the pool for @vm to fill, with one reference for the
 * caller, the pool making room if VRAM is full.  Return: the block or an
 * ERR_PTR(): -ENOSPC (nothing to evict), -ENODEV (being removed),
 * -ENOMEM.
 */
static struct vgpu_svm_dmem_block *
vgpu_svm_dmem_block_alloc(struct vgpu_svm_dmem *dmem, struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = dmem->vdev;
	struct vgpu_pool *pool = &vdev->pool;
	struct vgpu_svm_dmem_block *b;
	struct gpu_buddy_block *block;
	u64 size = vgpu_svm_dmem_size(dmem), vram;
	int ret = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	vgpu_pool_lock(pool);
	vgpu_svm_dmem_reap_locked(dmem, NULL);
	for (;;) {
		if (!dmem->ready) {
			ret = -ENODEV;
			break;
		}
		block = vgpu_vram_mgr_alloc_chunk(vdev, size, &vram);
		if (!IS_ERR(block))
			break;
		ret = PTR_ERR(block);
		if (ret != -ENOSPC)
			break;
		ret = vgpu_pool_make_room_locked(pool, 0, vdev->vram_size);
		if (ret)
			break;
		vgpu_svm_dmem_reap_locked(dmem, NULL);
	}
	if (ret) {
		vgpu_pool_unlock(pool);
		kfree(b);
		return ERR_PTR(ret);
	}
	b->dmem = dmem;
	b->block = block;
	b->vram = vram;
	b->vm = vm;
	atomic_set(&b->refs, 1);
	INIT_LIST_HEAD(&b->free_link);
	list_add_tail(&b->link, &dmem->blocks);
	vgpu_pool_unit_init(&b->unit, &vgpu_svm_dmem_unit_ops);
	vgpu_pool_insert_locked(pool, &b->unit, size, true);
	b->unit.ev.ctr_snap = vgpu_svm_dmem_unit_read_ctr(&b->unit);
	vgpu_pool_unlock(pool);
	return b;
}

/**
 * vgpu_svm_dmem_migrate() - move the chunk around a GPU fault into VRAM
 * @vm: the faulting VM, with its mm referenced
 * @va: faulting address
 * @start: first address the migration may cover (the mirror's start)
 * @end: address past it (the mirror's end)
 *
 * Does nothing in system-memory mode, under the ``remote`` placement
 * policy, outside an anonymous private VMA, or when VRAM cannot be found;
 * pages already in VRAM stay.  See "SVM memory in VRAM".
 *
 * Context: the fault thread, &vgpu_vm.lock held (read), neither the pool
 * lock nor the mmap lock held; takes both.
 * Return: bytes moved into VRAM (0 if none).
 */
u64 vgpu_svm_dmem_migrate(struct vgpu_vm *vm, u64 va, u64 start, u64 end)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_svm_dmem *dmem = smp_load_acquire(&vdev->dmem);
	struct vgpu_svm_dmem_block *b = NULL;
	struct migrate_vma args = {
		.pgmap_owner = vdev,
		.flags = MIGRATE_VMA_SELECT_SYSTEM,
	};
	struct vgpu_svm_dmem_xfer x = {};
	struct vm_area_struct *vma;
	unsigned long i, npages;
	u64 size, base, moved = 0;
	int ret;

	if (!dmem || vgpu_policy_place(vdev) != VGPU_PLACE_MIGRATE)
		return 0;
	size = vgpu_svm_dmem_size(dmem);
	base = round_down(va, size);
	mmap_read_lock(vm->mm);
	vma = vma_lookup(vm->mm, va);
	if (!vma || !vma_is_anonymous(vma) || (vma->vm_flags & VM_SHARED))
		goto out_unlock;
	args.vma = vma;
	args.start = max3(base, start, (u64)vma->vm_start);
	args.end = min3(base + size, end, (u64)vma->vm_end);
	npages = (args.end - args.start) >> PAGE_SHIFT;
	if (vgpu_svm_dmem_xfer_alloc(&x, npages, GFP_KERNEL))
		goto out_unlock;
	args.src = x.src;
	args.dst = x.dst;
	if (migrate_vma_setup(&args))
		goto out_unlock;
	if (!args.cpages)
		goto out_finalize;
	b = vgpu_svm_dmem_block_alloc(dmem, vm);
	if (IS_ERR(b)) {
		b = NULL;
		goto out_finalize;
	}
	for (i = 0; i < npages; i++) {
		struct page *spage = migrate_pfn_to_page(x.src[i]);
		u64 vram = b->vram + args.start - base + i * PAGE_SIZE;
		struct page *dpage = vgpu_svm_dmem_page(dmem, vram);

		if (!(x.src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		x.dma[x.n] = DMA_MAPPING_ERROR;
		if (spage) {
			x.dma[x.n] = dma_map_page(vdev->drm.dev, spage, 0,
						  PAGE_SIZE, DMA_TO_DEVICE);
			if (dma_mapping_error(vdev->drm.dev, x.dma[x.n]))
				break;
		}
		atomic_inc(&b->refs);
		dpage->zone_device_data = b;
		zone_device_page_init(dpage);
		x.dst[i] = migrate_pfn(page_to_pfn(dpage));
		x.idx[x.n] = i;
		x.vram[x.n++] = vram;
	}
	/* A hole (no page yet) is cleared: DMA_MAPPING_ERROR asks for it. */
	ret = vgpu_svm_dmem_copy(vdev, x.dma, x.vram, x.n, true);
	vgpu_svm_dmem_xfer_end(vdev, &x, DMA_TO_DEVICE, ret);
	migrate_vma_pages(&args);
	moved = vgpu_svm_dmem_xfer_moved(&x);
out_finalize:
	migrate_vma_finalize(&args);
out_unlock:
	mmap_read_unlock(vm->mm);
	vgpu_svm_dmem_xfer_free(&x);
	if (b)
		vgpu_svm_dmem_put(b);
	if (moved)
		vgpu_stats_add(vdev, vm, VGPU_STAT_BYTES_TO_VRAM, moved);
	return moved;
}

/**
 * struct vgpu_svm_dmem_cpu - what migrate_to_ram allocates pages for
 * @vma: the touching VMA.
 * @start: first address of the range moved.
 */
struct vgpu_svm_dmem_cpu {
	struct vm_area_struct *vma;
	unsigned long start;
};

/* A system page for page @i of the range a CPU touch moves back. */
static struct page *vgpu_svm_dmem_alloc_cpu(void *arg, unsigned long i)
{
	struct vgpu_svm_dmem_cpu *c = arg;

	return alloc_page_vma(GFP_HIGHUSER_MOVABLE, c->vma,
			      c->start + i * PAGE_SIZE);
}

/*
 * Moves our pages in [@start, @end) of @vma back to new system pages;
 * @fault_page is the page of a CPU fault (locked by the core), or NULL.
 * The bytes count for @vm, or for the device only without one.
 *
 * Return: bytes moved, or -ENOMEM (no page for @fault_page), -EIO, or
 * the error of migrate_vma_setup().
 */
static long vgpu_svm_dmem_range_to_ram(struct vgpu_svm_dmem *dmem,
				       struct vgpu_vm *vm,
				       struct vm_area_struct *vma,
				       unsigned long start, unsigned long end,
				       struct page *fault_page,
				       unsigned long fault_addr)
{
	unsigned long npages = (end - start) >> PAGE_SHIFT;
	struct migrate_vma args = {
		.vma = vma,
		.start = start,
		.end = end,
		.pgmap_owner = dmem->vdev,
		.flags = MIGRATE_VMA_SELECT_DEVICE_PRIVATE,
		.fault_page = fault_page,
	};
	struct vgpu_svm_dmem_cpu c = { .vma = vma, .start = start };
	struct vgpu_svm_dmem_xfer x;
	long moved = 0;
	int ret;

	ret = vgpu_svm_dmem_xfer_alloc(&x, npages, GFP_KERNEL);
	if (ret)
		goto out_free;
	args.src = x.src;
	args.dst = x.dst;
	ret = migrate_vma_setup(&args);
	if (ret)
		goto out_free;
	ret = vgpu_svm_dmem_copy_out(dmem, &x, npages,
				     fault_page ? (fault_addr - start) >> PAGE_SHIFT : -1,
				     vgpu_svm_dmem_alloc_cpu, &c, false);
	migrate_vma_pages(&args);
	moved = vgpu_svm_dmem_xfer_moved(&x);
	vgpu_stats_add(dmem->vdev, vm, VGPU_STAT_BYTES_TO_SYSTEM, moved);
	migrate_vma_finalize(&args);
out_free:
	vgpu_svm_dmem_xfer_free(&x);
	return ret ?: moved;
}

/* dev_pagemap_ops.migrate_to_ram: the CPU touched a page in VRAM. */
static vm_fault_t vgpu_svm_dmem_migrate_to_ram(struct vm_fault *vmf)
{
	struct vgpu_svm_dmem_block *b = vmf->page->zone_device_data;
	struct vgpu_svm_dmem *dmem = b->dmem;
	unsigned long base, start, end;
	long ret;
	u64 vram;

	/* The block's range, as it was migrated, within this VMA. */
	vgpu_svm_dmem_page_vram(dmem, vmf->page, &vram);
	base = (vmf->address & PAGE_MASK) - (vram - b->vram);
	start = max_t(unsigned long, base, vmf->vma->vm_start);
	end = min_t(unsigned long, base + b->unit.size, vmf->vma->vm_end);
	ret = vgpu_svm_dmem_range_to_ram(dmem, NULL, vmf->vma, start, end,
					 vmf->page, vmf->address);
	if (ret == -ENOMEM)
		return VM_FAULT_OOM;
	return ret < 0 ? VM_FAULT_SIGBUS : 0;
}

/**
 * vgpu_svm_dmem_to_system() - move a range of process memory out of VRAM
 * @vm: VM, with its mm referenced
 * @start: first address, page aligned
 * @end: address past the range
 *
 * Our device pages in the range go back to system memory (the others
 * stay where they are), one chunk at a time: a GPU write to pages that
 * are read-only in VRAM (shared after fork), PREFETCH to system memory,
 * ADVISE PREFERRED_PLACEMENT system.
 *
 * Context: neither the mmap lock nor the pool lock held; takes the first.
 * Return: bytes moved, or a negative errno.
 */
s64 vgpu_svm_dmem_to_system(struct vgpu_vm *vm, u64 start, u64 end)
{
	struct vgpu_svm_dmem *dmem = smp_load_acquire(&vm->vdev->dmem);
	struct vm_area_struct *vma;
	s64 moved = 0;
	long ret = 0;
	u64 size, e;

	if (!dmem)
		return 0;
	size = vgpu_svm_dmem_size(dmem);
	mmap_read_lock(vm->mm);
	while (start < end) {
		vma = find_vma(vm->mm, start);
		if (!vma || vma->vm_start >= end)
			break;
		start = max_t(u64, start, vma->vm_start);
		e = min3(end, (u64)vma->vm_end, round_down(start, size) + size);
		ret = vgpu_svm_dmem_range_to_ram(dmem, vm, vma, start, e, NULL,
						 0);
		if (ret < 0)
			break;
		moved += ret;
		start = e;
	}
	mmap_read_unlock(vm->mm);
	return ret < 0 ? ret : moved;
}

/* dev_pagemap_ops.page_free: the last reference to a device page went. */
static void vgpu_svm_dmem_page_free(struct page *page)
{
	struct vgpu_svm_dmem_block *b = page->zone_device_data;

	page->zone_device_data = NULL;
	vgpu_svm_dmem_put(b);
}

static const struct dev_pagemap_ops vgpu_svm_dmem_pagemap_ops = {
	.page_free = vgpu_svm_dmem_page_free,
	.migrate_to_ram = vgpu_svm_dmem_migrate_to_ram,
};

/**
 * vgpu_svm_dmem_init() - SVM memory may migrate into VRAM from now on
 * @vdev: vgpu device
 *
 * The device pages themselves are made when the first mirror is bound
 * (vgpu_svm_dmem_get()): a device nobody mirrors process memory on spends
 * no &struct page on its VRAM (64 bytes per 4 KiB, 32 MiB for 2 GiB).
 */
void vgpu_svm_dmem_init(struct vgpu_device *vdev)
{
	mutex_init(&vdev->dmem_lock);
	vdev->dmem_err = 0;
}

static int vgpu_svm_dmem_create(struct vgpu_device *vdev)
{
	struct device *dev = vdev->drm.dev;
	struct vgpu_svm_dmem *dmem;
	struct resource *res;
	void *addr;

	dmem = devm_kzalloc(dev, sizeof(*dmem), GFP_KERNEL);
	if (!dmem)
		return -ENOMEM;
	res = devm_request_free_mem_region(dev, &iomem_resource,
					   vdev->vram_size);
	if (IS_ERR(res)) {
		drm_info(&vdev->drm, "SVM in system memory: no address range for device pages (%pe)\n",
			 res);
		devm_kfree(dev, dmem);
		return PTR_ERR(res);
	}
	dmem->vdev = vdev;
	INIT_LIST_HEAD(&dmem->blocks);
	INIT_LIST_HEAD(&dmem->freed);
	spin_lock_init(&dmem->free_lock);
	INIT_WORK(&dmem->free_work, vgpu_svm_dmem_free_work);
	dmem->pagemap.type = MEMORY_DEVICE_PRIVATE;
	dmem->pagemap.range.start = res->start;
	dmem->pagemap.range.end = res->start + vdev->vram_size - 1;
	dmem->pagemap.nr_range = 1;
	dmem->pagemap.ops = &vgpu_svm_dmem_pagemap_ops;
	dmem->pagemap.owner = vdev;
	addr = devm_memremap_pages(dev, &dmem->pagemap);
	if (IS_ERR(addr)) {
		drm_info(&vdev->drm, "SVM in system memory: no device pages (%pe)\n",
			 addr);
		devm_release_mem_region(dev, res->start, resource_size(res));
		devm_kfree(dev, dmem);
		return PTR_ERR(addr);
	}
	dmem->pfn_first = res->start >> PAGE_SHIFT;
	dmem->ready = true;
	/* Whoever sees the pointer sees the pages. */
	smp_store_release(&vdev->dmem, dmem);
	drm_dbg_driver(&vdev->drm, "SVM memory migrates into VRAM: %llu MiB of device pages\n",
		       vdev->vram_size >> 20);
	return 0;
}

/**
 * vgpu_svm_dmem_get() - make the device pages of VRAM, once
 * @vdev: vgpu device
 *
 * Called before a mirror is bound.  A failure is logged and final: SVM
 * memory stays in system memory on this device, and %DRM_VGPU_PARAM_SVM
 * stops reporting %DRM_VGPU_SVM_VRAM.  The bind itself goes on either way.
 *
 * Context: process context, no vgpu lock held (the pages are made under
 * the memory-hotplug lock).
 */
void vgpu_svm_dmem_get(struct vgpu_device *vdev)
{
	if (smp_load_acquire(&vdev->dmem) || READ_ONCE(vdev->dmem_err))
		return;
	mutex_lock(&vdev->dmem_lock);
	if (!vdev->dmem && !vdev->dmem_err)
		WRITE_ONCE(vdev->dmem_err, vgpu_svm_dmem_create(vdev));
	mutex_unlock(&vdev->dmem_lock);
}

/**
 * vgpu_svm_dmem_possible() - may SVM memory migrate into VRAM?
 * @vdev: vgpu device
 *
 * Return: true unless making the device pages failed or the device is
 * being removed.
 */
bool vgpu_svm_dmem_possible(struct vgpu_device *vdev)
{
	return !READ_ONCE(vdev->dmem_err);
}

/**
 * vgpu_svm_dmem_fini() - move all SVM memory out of VRAM, for good
 * @vdev: vgpu device, its copy engine still running
 *
 * After it no block is allocated; every page in VRAM is moved back to
 * system memory (in whichever process has it), so that the device pages
 * can go with the PCI device.
 */
void vgpu_svm_dmem_fini(struct vgpu_device *vdev)
{
	struct vgpu_svm_dmem_block *b, *last = NULL;
	struct vgpu_pool *pool = &vdev->pool;
	struct vgpu_svm_dmem *dmem;
	unsigned int stuck = 0;

	/* No device pages are made after this. */
	mutex_lock(&vdev->dmem_lock);
	dmem = vdev->dmem;
	WRITE_ONCE(vdev->dmem_err, -ENODEV);
	mutex_unlock(&vdev->dmem_lock);
	if (!dmem)
		return;
	vgpu_pool_lock(pool);
	dmem->ready = false;
	for (;;) {
		vgpu_svm_dmem_reap_locked(dmem, NULL);
		b = list_first_entry_or_null(&dmem->blocks,
					     struct vgpu_svm_dmem_block, link);
		if (!b)
			break;
		stuck = b == last ? stuck + 1 : 0;
		last = b;
		if (stuck > 100) {
			drm_warn(&vdev->drm, "SVM memory still in VRAM at removal\n");
			break;
		}
		if (stuck)
			msleep(20);
		atomic_inc(&b->refs);
		vgpu_svm_dmem_evict_block(b, true);
		vgpu_svm_dmem_put(b);
		/* Pages held elsewhere for a moment: their frees queue it. */
		vgpu_pool_unlock(pool);
		flush_work(&dmem->free_work);
		cond_resched();
		vgpu_pool_lock(pool);
	}
	/* The pages go with the PCI device: SVM stays in system memory. */
	WRITE_ONCE(vdev->dmem, NULL);
	vgpu_pool_unlock(pool);
	flush_work(&dmem->free_work);
}

/**
 * vgpu_svm_dmem_vm_gone() - charge a VM's blocks to nobody
 * @vm: VM being freed
 *
 * The blocks it filled stay where they are (the process may still use
 * their pages); their evictions count for the device only from now on.
 *
 * Context: takes the pool lock.
 */
void vgpu_svm_dmem_vm_gone(struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_svm_dmem_block *b;
	struct vgpu_svm_dmem *dmem;

	/* Nothing mirrored, or no device pages: it filled no block. */
	if (!vm->mm || !smp_load_acquire(&vdev->dmem))
		return;
	vgpu_pool_lock(&vdev->pool);
	/* Read under the pool lock: vgpu_svm_dmem_fini() clears it so. */
	dmem = READ_ONCE(vdev->dmem);
	if (dmem)
		list_for_each_entry(b, &dmem->blocks, link)
			if (b->vm == vm)
				b->vm = NULL;
	vgpu_pool_unlock(&vdev->pool);
}
