// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bitmap.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
#include "vgpu_drv.h"
#include "vgpu_pt.h"
#include "vgpu_pt_pool.h"

/**
 * DOC: page-table pool
 *
 * Page tables live in VRAM, in 4 KiB pages handed out by a pool.  The pool
 * grows by chunks of %VGPU_PT_CHUNK_SIZE: pinned, contiguous kernel BOs
 * inside the CPU-visible window, so the CPU writes entries through the BAR
 * and the device reads them from VRAM.  A bitmap per chunk tracks its pages.
 *
 * Allocating a chunk may make TTM evict user BOs, and evicting a BO
 * rewrites page tables.  Page-table updates therefore never allocate VRAM:
 * a caller first reserves the worst-case number of pages it may need
 * (vgpu_pt_pool_reserve(), which may grow the pool and sleep), then takes
 * the VM's page-table lock and draws pages with vgpu_pt_pool_get(), which
 * cannot fail, and finally gives back what it did not use.  The pool's
 * free pages cover every reservation at all times: a reservation is
 * counted only once the free pages and the bookkeeping below are there
 * for it and for all others, checked under the pool's lock after the last
 * time growing dropped it (other callers reserve, draw and trim
 * meanwhile).  vgpu_pt_pool_trim() returns wholly free chunks to VRAM,
 * keeping one spare.
 *
 * Pages are zeroed (all entries invalid) when handed out.
 *
 * The pool keeps the tables' system-memory bookkeeping ready too: the
 * &struct vgpu_pt shadow of each table and the child array of a
 * directory (vgpu_pt_pool_shadow_get()).  A reservation makes sure that
 * there is a shadow and a child array for every page reserved, so that
 * a page-table update allocates no memory at all under the VM's
 * page-table lock: the lock is taken by the mmu notifier of CPU-address
 * mirrors, which may run in memory reclaim.  Freed shadows are kept for
 * the next reservation; vgpu_pt_pool_trim() frees those beyond
 * %VGPU_PT_POOL_SPARE_SHADOWS over what is reserved.
 *
 * The CPU reads and writes entries through the BAR, except where the
 * device may be setting A/D bits in the entry at the same time: those
 * writes go through the device's exchange, vgpu_pt_pool_xchg().
 */

/**
 * struct vgpu_pt_chunk - a pinned VRAM BO cut into page-table pages
 * @link: in &vgpu_pt_pool.chunks.
 * @bo: the kernel BO.
 * @addr: VRAM offset of the first page.
 * @cpu: CPU mapping of the first page.
 * @nr_used: pages handed out.
 * @used: bitmap of pages handed out.
 */
struct vgpu_pt_chunk {
	struct list_head link;
	struct vgpu_bo *bo;
	u64 addr;
	void __iomem *cpu;
	unsigned int nr_used;
	DECLARE_BITMAP(used, VGPU_PT_CHUNK_PAGES);
};

static struct vgpu_pt_chunk *vgpu_pt_chunk_alloc(struct vgpu_device *vdev)
{
	struct vgpu_pt_chunk *chunk;
	struct vgpu_bo *bo;

	chunk = kzalloc(sizeof(*chunk), GFP_KERNEL);
	if (!chunk)
		return ERR_PTR(-ENOMEM);

	bo = vgpu_bo_create_kernel(vdev, VGPU_PT_CHUNK_SIZE, DRM_VGPU_PLACE_VRAM,
				   DRM_VGPU_BO_CONTIGUOUS | VGPU_BO_VISIBLE);
	if (IS_ERR(bo)) {
		kfree(chunk);
		return ERR_CAST(bo);
	}
	chunk->bo = bo;
	chunk->addr = (u64)bo->tbo.resource->start << PAGE_SHIFT;
	chunk->cpu = vdev->vram_cpu + chunk->addr;
	return chunk;
}

static void vgpu_pt_chunk_free(struct vgpu_pt_chunk *chunk)
{
	vgpu_bo_free_kernel(chunk->bo);
	kfree(chunk);
}

/*
 * A free child array is raw memory of %VGPU_PT_ENTRIES pointers; while
 * it waits in &vgpu_pt_pool.dirs its first bytes are the list link.
 */
static struct list_head *vgpu_pt_dir_link(struct vgpu_pt **dir)
{
	BUILD_BUG_ON(sizeof(struct list_head) >
		     VGPU_PT_ENTRIES * sizeof(struct vgpu_pt *));
	return (struct list_head *)dir;
}

static void vgpu_pt_shadow_add_locked(struct vgpu_pt_pool *pool,
				      struct vgpu_pt *pt)
{
	list_add(&pt->free_link, &pool->shadows);
	pool->nr_shadows++;
}

static void vgpu_pt_dir_add_locked(struct vgpu_pt_pool *pool,
				   struct vgpu_pt **dir)
{
	list_add(vgpu_pt_dir_link(dir), &pool->dirs);
	pool->nr_dirs++;
}

/*
 * Adds a shadow or a child array to the caches if they lack one for @n
 * pages more than are reserved, allocating with the pool's lock dropped
 * (so that whatever the caller checked must be checked again).
 *
 * Return: 0 when the caches were full enough and nothing was dropped,
 * -EAGAIN when one was added, -ENOMEM.
 */
static int vgpu_pt_shadows_grow_locked(struct vgpu_pt_pool *pool,
				       unsigned int n)
{
	bool shadow = pool->nr_shadows < pool->nr_reserved + n;
	void *p;

	if (!shadow && pool->nr_dirs >= pool->nr_reserved + n)
		return 0;
	mutex_unlock(&pool->lock);
	p = shadow ? kzalloc(sizeof(struct vgpu_pt), GFP_KERNEL) :
		     kcalloc(VGPU_PT_ENTRIES, sizeof(struct vgpu_pt *), GFP_KERNEL);
	mutex_lock(&pool->lock);
	if (!p)
		return -ENOMEM;
	if (shadow)
		vgpu_pt_shadow_add_locked(pool, p);
	else
		vgpu_pt_dir_add_locked(pool, p);
	return -EAGAIN;
}

/* Unlink the spare shadows and child arrays beyond @keep onto @shadows, @dirs. */
static void vgpu_pt_shadows_take_locked(struct vgpu_pt_pool *pool,
					unsigned int keep,
					struct list_head *shadows,
					struct list_head *dirs)
{
	while (pool->nr_shadows > keep) {
		list_move(pool->shadows.next, shadows);
		pool->nr_shadows--;
	}
	while (pool->nr_dirs > keep) {
		list_move(pool->dirs.next, dirs);
		pool->nr_dirs--;
	}
}

static void vgpu_pt_shadows_free(struct list_head *shadows,
				 struct list_head *dirs)
{
	struct list_head *l, *tmp;

	list_for_each_safe(l, tmp, shadows)
		kfree(list_entry(l, struct vgpu_pt, free_link));
	/* The link is the array's first bytes: the array itself. */
	list_for_each_safe(l, tmp, dirs)
		kfree(l);
}

/**
 * vgpu_pt_pool_shadow_get() - the bookkeeping of a new table
 * @vdev: vgpu device
 * @dir: the table is a directory (level above 0) and needs a child array
 *
 * Draws from what a reservation made ready: allocates nothing, so it may
 * be called under a VM's page-table lock.  Called once per page drawn
 * with vgpu_pt_pool_get().
 *
 * Return: a zeroed shadow (&vgpu_pt.children zeroed too for @dir).
 */
struct vgpu_pt *vgpu_pt_pool_shadow_get(struct vgpu_device *vdev, bool dir)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	struct vgpu_pt **children = NULL;
	struct vgpu_pt *pt = NULL;

	mutex_lock(&pool->lock);
	if (!WARN_ON(!pool->nr_shadows)) {
		pt = list_first_entry(&pool->shadows, struct vgpu_pt, free_link);
		list_del(&pt->free_link);
		pool->nr_shadows--;
	}
	if (dir && !WARN_ON(!pool->nr_dirs)) {
		children = (struct vgpu_pt **)pool->dirs.next;
		list_del(vgpu_pt_dir_link(children));
		pool->nr_dirs--;
	}
	mutex_unlock(&pool->lock);

	/* Only without a reservation (a bug, warned about above). */
	if (!pt)
		pt = kmalloc(sizeof(*pt), GFP_KERNEL | __GFP_NOFAIL);
	if (dir && !children)
		children = kmalloc_array(VGPU_PT_ENTRIES, sizeof(*children),
					 GFP_KERNEL | __GFP_NOFAIL);
	memset(pt, 0, sizeof(*pt));
	if (children)
		memset(children, 0, VGPU_PT_ENTRIES * sizeof(*children));
	pt->children = children;
	INIT_LIST_HEAD(&pt->free_link);
	return pt;
}

/**
 * vgpu_pt_pool_shadow_put() - keep a freed table's bookkeeping for later
 * @vdev: vgpu device
 * @pt: the shadow, its page already back in the pool
 */
void vgpu_pt_pool_shadow_put(struct vgpu_device *vdev, struct vgpu_pt *pt)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;

	mutex_lock(&pool->lock);
	if (pt->children)
		vgpu_pt_dir_add_locked(pool, pt->children);
	vgpu_pt_shadow_add_locked(pool, pt);
	mutex_unlock(&pool->lock);
}

/**
 * vgpu_pt_pool_init() - set up an empty pool
 * @vdev: vgpu device
 *
 * Return: 0.
 */
int vgpu_pt_pool_init(struct vgpu_device *vdev)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;

	mutex_init(&pool->lock);
	spin_lock_init(&pool->xchg_lock);
	INIT_LIST_HEAD(&pool->chunks);
	INIT_LIST_HEAD(&pool->shadows);
	INIT_LIST_HEAD(&pool->dirs);
	return 0;
}

/**
 * vgpu_pt_pool_xchg() - exchange one entry of a page with the device
 * @vdev: vgpu device
 * @page: the page-table page
 * @idx: index of the entry
 * @val: new value
 *
 * Stores @val through the device's PT_XCHG registers, atomically with its
 * page walks and A/D updates (hardware.rst "Walks, permissions, A/D
 * bits"): a bit the device sets in the entry is in the value returned, or
 * it was set after the exchange, into @val.  Three 8-byte register
 * accesses, under &vgpu_pt_pool.xchg_lock; a fourth, of STATUS, when the
 * old value reads 0, which is also what a refused exchange reads: a
 * device reset between the accesses forgets the address, and the
 * exchange is then done again.  A device that is gone walks no more, and
 * its registers may be unmapped: the entry is then read and written
 * through the BAR.
 *
 * Context: any; takes &vgpu_pt_pool.xchg_lock.
 * Return: the entry's previous value.
 */
u64 vgpu_pt_pool_xchg(struct vgpu_device *vdev, struct vgpu_pt_page *page,
		      unsigned int idx, u64 val)
{
	void __iomem *cpu = page->cpu + idx * sizeof(u64);
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	unsigned int tries = 3;
	u64 old;
	int dev;

	if (!drm_dev_enter(&vdev->drm, &dev)) {
		old = readq(cpu);
		writeq(val, cpu);
		return old;
	}
	spin_lock(&pool->xchg_lock);
	do {
		writeq(page->addr + idx * sizeof(u64),
		       vdev->mmio + VGPU_REG_PT_XCHG_ADDR_LO);
		writeq(val, vdev->mmio + VGPU_REG_PT_XCHG_DATA_LO);
		old = readq(vdev->mmio + VGPU_REG_PT_XCHG_DATA_LO);
		/* Refused (DATA reads 0): a device reset forgot the address. */
	} while (!old && (vgpu_rd32(vdev, VGPU_REG_STATUS) &
			  VGPU_STATUS_PT_XCHG_ERROR) && --tries);
	spin_unlock(&pool->xchg_lock);
	WARN_ON_ONCE(!tries);
	drm_dev_exit(dev);
	return old;
}

/**
 * vgpu_pt_pool_fini() - release every chunk
 * @vdev: vgpu device; every page must be back
 */
void vgpu_pt_pool_fini(struct vgpu_device *vdev)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	struct vgpu_pt_chunk *chunk, *tmp;
	LIST_HEAD(shadows);
	LIST_HEAD(dirs);

	vgpu_pt_shadows_take_locked(pool, 0, &shadows, &dirs);
	vgpu_pt_shadows_free(&shadows, &dirs);
	if (pool->nr_used)
		drm_err(&vdev->drm, "page-table pool: %u pages leaked\n",
			pool->nr_used);
	list_for_each_entry_safe(chunk, tmp, &pool->chunks, link) {
		list_del(&chunk->link);
		if (!chunk->nr_used)
			vgpu_pt_chunk_free(chunk);
	}
	mutex_destroy(&pool->lock);
}

/**
 * vgpu_pt_pool_reserve() - make sure @n pages can be drawn without allocating
 * @vdev: vgpu device
 * @n: pages
 *
 * With each page, a shadow and a child array (vgpu_pt_pool_shadow_get()).
 * Growing the pool and the caches drops the lock, and other callers
 * reserve, draw and trim meanwhile: the pages and the bookkeeping are
 * counted again after each, and taken only once both are there under
 * the lock, so that the free pages always cover every reservation.
 *
 * Context: process; may sleep and make TTM evict.  Must not be called with
 * a VM's page-table lock held.
 * Return: 0 or a negative errno (-ENOMEM, -ENOSPC).
 */
int vgpu_pt_pool_reserve(struct vgpu_device *vdev, unsigned int n)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	struct vgpu_pt_chunk *chunk;
	int ret;

	mutex_lock(&pool->lock);
	do {
		if (pool->nr_free < pool->nr_reserved + n) {
			mutex_unlock(&pool->lock);
			chunk = vgpu_pt_chunk_alloc(vdev);
			mutex_lock(&pool->lock);
			if (IS_ERR(chunk)) {
				ret = PTR_ERR(chunk);
				break;
			}
			list_add(&chunk->link, &pool->chunks);
			pool->nr_chunks++;
			pool->nr_free += VGPU_PT_CHUNK_PAGES;
			ret = -EAGAIN;
			continue;
		}
		ret = vgpu_pt_shadows_grow_locked(pool, n);
	} while (ret == -EAGAIN);
	if (!ret)
		pool->nr_reserved += n;
	mutex_unlock(&pool->lock);
	return ret;
}

/**
 * vgpu_pt_pool_unreserve() - give back reserved pages that were not drawn
 * @vdev: vgpu device
 * @n: pages
 */
void vgpu_pt_pool_unreserve(struct vgpu_device *vdev, unsigned int n)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;

	mutex_lock(&pool->lock);
	if (!WARN_ON(n > pool->nr_reserved))
		pool->nr_reserved -= n;
	mutex_unlock(&pool->lock);
}

/**
 * vgpu_pt_pool_get() - draw one zeroed page from the caller's reservation
 * @vdev: vgpu device
 * @page: filled in
 */
void vgpu_pt_pool_get(struct vgpu_device *vdev, struct vgpu_pt_page *page)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	struct vgpu_pt_chunk *chunk;
	unsigned int i = 0;

	mutex_lock(&pool->lock);
	/* Fill the fullest chunk first, so that empty ones can be trimmed. */
	list_for_each_entry(chunk, &pool->chunks, link) {
		if (chunk->nr_used < VGPU_PT_CHUNK_PAGES)
			break;
	}
	if (WARN_ON(list_entry_is_head(chunk, &pool->chunks, link))) {
		mutex_unlock(&pool->lock);
		memset(page, 0, sizeof(*page));
		return;
	}
	/* A draw beyond every reservation is a bug; the page is there. */
	if (!WARN_ON(!pool->nr_reserved))
		pool->nr_reserved--;
	i = find_first_zero_bit(chunk->used, VGPU_PT_CHUNK_PAGES);
	__set_bit(i, chunk->used);
	chunk->nr_used++;
	pool->nr_free--;
	pool->nr_used++;
	if (chunk->nr_used == VGPU_PT_CHUNK_PAGES)
		list_move_tail(&chunk->link, &pool->chunks);
	mutex_unlock(&pool->lock);

	page->chunk = chunk;
	page->addr = chunk->addr + (u64)i * SZ_4K;
	page->cpu = chunk->cpu + i * SZ_4K;
	memset_io(page->cpu, 0, SZ_4K);
}

/**
 * vgpu_pt_pool_put() - return a page to the pool
 * @vdev: vgpu device
 * @page: from vgpu_pt_pool_get(); the device no longer uses it
 */
void vgpu_pt_pool_put(struct vgpu_device *vdev, struct vgpu_pt_page *page)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	struct vgpu_pt_chunk *chunk = page->chunk;
	unsigned int i;

	if (!chunk)
		return;
	i = (page->addr - chunk->addr) >> 12;
	mutex_lock(&pool->lock);
	WARN_ON(!__test_and_clear_bit(i, chunk->used));
	if (chunk->nr_used-- == VGPU_PT_CHUNK_PAGES)
		list_move(&chunk->link, &pool->chunks);
	pool->nr_free++;
	pool->nr_used--;
	mutex_unlock(&pool->lock);
	page->chunk = NULL;
}

/**
 * vgpu_pt_pool_trim() - return empty chunks to VRAM, keeping one spare
 * @vdev: vgpu device
 *
 * Also frees the spare shadows beyond %VGPU_PT_POOL_SPARE_SHADOWS over
 * what is reserved.
 *
 * Context: process, no VM page-table lock held.
 */
void vgpu_pt_pool_trim(struct vgpu_device *vdev)
{
	struct vgpu_pt_pool *pool = &vdev->pt_pool;
	struct vgpu_pt_chunk *chunk, *tmp;
	LIST_HEAD(victims);
	LIST_HEAD(shadows);
	LIST_HEAD(dirs);

	mutex_lock(&pool->lock);
	vgpu_pt_shadows_take_locked(pool, pool->nr_reserved +
				    VGPU_PT_POOL_SPARE_SHADOWS, &shadows, &dirs);
	list_for_each_entry_safe(chunk, tmp, &pool->chunks, link) {
		if (chunk->nr_used ||
		    pool->nr_free < pool->nr_reserved + 2 * VGPU_PT_CHUNK_PAGES)
			continue;
		list_move(&chunk->link, &victims);
		pool->nr_chunks--;
		pool->nr_free -= VGPU_PT_CHUNK_PAGES;
	}
	mutex_unlock(&pool->lock);

	vgpu_pt_shadows_free(&shadows, &dirs);
	list_for_each_entry_safe(chunk, tmp, &victims, link)
		vgpu_pt_chunk_free(chunk);
}

/**
 * vgpu_pt_pool_pages() - page-table pages in use
 * @vdev: vgpu device
 *
 * Return: pages handed out and not yet returned.
 */
u64 vgpu_pt_pool_pages(struct vgpu_device *vdev)
{
	return READ_ONCE(vdev->pt_pool.nr_used);
}
