// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_tt.h>

#include "vgpu_admit.h"
#include "vgpu_bo.h"
#include "vgpu_chunk.h"
#include "vgpu_drv.h"
#include "vgpu_migrate.h"
#include "vgpu_pool.h"
#include "vgpu_ttm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: TTM placements and moves
 *
 * vgpu uses three TTM memory types:
 *
 * - %TTM_PL_VRAM: device memory, from the buddy-based VRAM manager.  The
 *   CPU reaches the part inside the BAR 2 window, mapped write-combined.
 * - %TTM_PL_TT: system pages from the device's &ttm_pool, DMA-mapped for
 *   the device, which reaches them through PTEs with the SYSTEM aperture.
 *   Mapped cached by the CPU: the device's DMA is coherent.  A small
 *   counting manager limits TT to the guest's RAM; whether a BO may be
 *   created at all was decided before, by the memory admission.
 * - %TTM_PL_SYSTEM: pages the device cannot use (swapped or about to be):
 *   where TTM puts TT BOs it swaps out.
 *
 * Eviction goes VRAM → TT → SYSTEM (→ swap, by TTM's shrinker).  Which
 * BO leaves VRAM is decided by the VRAM pool ("The VRAM pool"), never by
 * TTM's LRU; TTM still picks the TT BOs it evicts or swaps out.  Every
 * move keeps the contents: VRAM ↔ TT and VRAM ↔ VRAM copies are done by
 * the device's copy engine when it has one (vgpu_migrate.c), otherwise by
 * the CPU through the BAR window; TT ↔ SYSTEM moves just hand the pages
 * over; moves between VRAM and SYSTEM take a hop through TT.  A BO whose
 * first placement is VRAM is cleared there (FILL, or memset through the
 * window); system pages come zeroed from the pool.
 *
 * After every move, vgpu_bo_move_notify() re-points the BO's GPU mappings
 * at the new backing store, so a mapped BO stays usable by the GPU
 * wherever TTM puts it.
 */

/* ------------------------------------------------------------ TT manager --- */

static int vgpu_sys_mgr_alloc(struct ttm_resource_manager *man,
			      struct ttm_buffer_object *tbo,
			      const struct ttm_place *place,
			      struct ttm_resource **res)
{
	struct ttm_resource *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	ttm_resource_init(tbo, place, r);
	if (ttm_resource_manager_usage(man) > man->size) {
		ttm_resource_fini(man, r);
		kfree(r);
		return -ENOSPC;
	}
	*res = r;
	return 0;
}

static void vgpu_sys_mgr_free(struct ttm_resource_manager *man,
			      struct ttm_resource *res)
{
	ttm_resource_fini(man, res);
	kfree(res);
}

static const struct ttm_resource_manager_func vgpu_sys_mgr_func = {
	.alloc = vgpu_sys_mgr_alloc,
	.free = vgpu_sys_mgr_free,
};

/* ----------------------------------------------------------------- ttm_tt --- */

/*
 * A ttm_tt, and whether its pages count as held by the device for the
 * memory admission: from its first populate until it is destroyed, also
 * while TTM has it swapped out to shmem (the pages are then shmem's, RAM
 * or swap, still taken from the system).
 *
 * @importers counts the other devices that were given the pages (the BO
 * is pinned for each, vgpu_ttm_tt_share()).  At unplug TTM unpopulates
 * every tt to drop the device's DMA mappings; the pages of a shared tt
 * must outlive that, because an importer may still map or access them,
 * so only the mappings go and the pages are @kept until the tt is
 * destroyed.
 */
struct vgpu_tt {
	struct ttm_tt ttm;
	unsigned int importers;
	bool held;
	bool kept;
};

static struct ttm_tt *vgpu_ttm_tt_create(struct ttm_buffer_object *tbo,
					 u32 page_flags)
{
	struct vgpu_tt *vtt;
	struct ttm_tt *tt;
	int ret;

	vtt = kzalloc(sizeof(*vtt), GFP_KERNEL);
	if (!vtt)
		return NULL;
	tt = &vtt->ttm;

	/* Memory handed to userspace is always zeroed. */
	if (tbo->type != ttm_bo_type_sg)
		page_flags |= TTM_TT_FLAG_ZERO_ALLOC;

	/* Pages and their DMA addresses, which the page tables use. */
	if (tbo->type != ttm_bo_type_sg) {
		ret = ttm_sg_tt_init(tt, tbo, page_flags, ttm_cached);
		if (ret)
			goto err_free;
		return tt;
	}

	/* Imported dma-buf: the exporter mapped it for us. */
	ret = ttm_sg_tt_init(tt, tbo, page_flags | TTM_TT_FLAG_EXTERNAL,
			     ttm_cached);
	if (ret)
		goto err_free;
	ret = drm_prime_sg_to_dma_addr_array(tbo->sg, tt->dma_address,
					     tt->num_pages);
	if (ret)
		goto err_fini;
	return tt;

err_fini:
	ttm_tt_fini(tt);
err_free:
	kfree(vtt);
	return NULL;
}

static struct vgpu_tt *to_vgpu_tt(struct ttm_tt *tt)
{
	return container_of(tt, struct vgpu_tt, ttm);
}

static int vgpu_ttm_tt_populate(struct ttm_device *bdev, struct ttm_tt *tt,
				struct ttm_operation_ctx *ctx)
{
	struct vgpu_device *vdev = container_of(bdev, struct vgpu_device, ttm);
	struct vgpu_tt *vtt = to_vgpu_tt(tt);
	int ret;

	/* Imported dma-buf: addresses were filled in at creation. */
	if (tt->page_flags & TTM_TT_FLAG_EXTERNAL)
		return 0;
	/* No new DMA mapping for a device that is gone. */
	if (drm_dev_is_unplugged(&vdev->drm) || vtt->kept)
		return -ENODEV;
	ret = ttm_pool_alloc(&bdev->pool, tt, ctx);
	if (!ret && !vtt->held) {
		vtt->held = true;
		vgpu_admit_hold(vdev, (s64)tt->num_pages << PAGE_SHIFT);
	}
	return ret;
}

/*
 * Walk the pool's blocks of @tt: ttm_pool_alloc() maps each block of
 * 2^order pages (the order in page->private) with one dma_map_page().
 */
#define for_each_tt_block(tt, i, order)					\
	for ((i) = 0; (i) < (tt)->num_pages &&				\
	     ((order) = (tt)->pages[i]->private, true);			\
	     (i) += 1ul << (order))

/* Unplug of a shared tt: drop the device's mappings, keep the pages. */
static void vgpu_ttm_tt_keep_pages(struct ttm_device *bdev, struct ttm_tt *tt)
{
	unsigned long i, order;

	for_each_tt_block(tt, i, order)
		dma_unmap_page(bdev->pool.dev, tt->dma_address[i],
			       PAGE_SIZE << order, DMA_BIDIRECTIONAL);
	to_vgpu_tt(tt)->kept = true;
}

static void vgpu_ttm_tt_unpopulate(struct ttm_device *bdev, struct ttm_tt *tt)
{
	if (tt->page_flags & TTM_TT_FLAG_EXTERNAL)
		return;
	if (to_vgpu_tt(tt)->importers)
		vgpu_ttm_tt_keep_pages(bdev, tt);
	else
		ttm_pool_free(&bdev->pool, tt);
}

/**
 * vgpu_ttm_tt_share() - count an importer of a tt's pages
 * @tt: the tt of a BO pinned in TT for the importer
 * @share: true when an importer gets the pages, false when it lets go
 *
 * Caller holds the BO's reservation.
 */
void vgpu_ttm_tt_share(struct ttm_tt *tt, bool share)
{
	struct vgpu_tt *vtt = to_vgpu_tt(tt);

	if (share)
		vtt->importers++;
	else if (!WARN_ON(!vtt->importers))
		vtt->importers--;
}

static void vgpu_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	struct vgpu_tt *vtt = to_vgpu_tt(tt);
	unsigned long i, order;

	if (vtt->kept)
		for_each_tt_block(tt, i, order)
			__free_pages(tt->pages[i], order);
	if (vtt->held)
		vgpu_admit_hold(container_of(bdev, struct vgpu_device, ttm),
				-((s64)tt->num_pages << PAGE_SHIFT));
	ttm_tt_fini(tt);
	kfree(vtt);
}

/* -------------------------------------------------------------- eviction --- */

/**
 * vgpu_evict_flags() - where a BO goes when it is evicted from VRAM
 * @tbo: the BO, reserved
 * @placement: filled in; may point into @tbo's &vgpu_bo.evict_places
 *
 * TTM's evict_flags hook, and the placement the VRAM pool evicts a BO
 * into (vgpu_bo_pool.c).
 */
void vgpu_evict_flags(struct ttm_buffer_object *tbo,
		      struct ttm_placement *placement)
{
	static const struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	static const struct ttm_place tt = { .mem_type = TTM_PL_TT };
	struct vgpu_device *vdev = to_vgpu(tbo->base.dev);
	struct vgpu_bo *bo = to_vgpu_bo(tbo);
	struct ttm_resource *res = tbo->resource;

	placement->num_placement = 1;
	placement->placement = &sys;
	if (!res || res->mem_type != TTM_PL_VRAM || tbo->type == ttm_bo_type_sg)
		return;

	placement->placement = &tt;
	/*
	 * Small BAR: a BO pushed out of the CPU-visible window goes to the
	 * rest of VRAM if there is room there without evicting anything
	 * (%TTM_PL_FLAG_DESIRED: the VRAM manager makes no room for it),
	 * else to system memory.  A BO larger than the rest of VRAM is not
	 * offered it: the VRAM manager refuses what can never fit with
	 * -E2BIG, which TTM treats as final, not as "try the next place".
	 */
	if (vdev->visible_size < vdev->vram_size && vgpu_migrate_ready(vdev) &&
	    !(bo->flags & DRM_VGPU_BO_CPU_ACCESS) &&
	    to_vgpu_vram_res(res)->used_visible &&
	    tbo->base.size <= vdev->vram_size - vdev->visible_size) {
		bo->evict_places[0] = (struct ttm_place){
			.mem_type = TTM_PL_VRAM,
			.fpfn = vdev->visible_size >> PAGE_SHIFT,
			.flags = TTM_PL_FLAG_DESIRED,
		};
		bo->evict_places[1] = (struct ttm_place){
			.mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_FALLBACK,
		};
		placement->placement = bo->evict_places;
		placement->num_placement = 2;
	}
}

/*
 * TTM's eviction walk never picks a VRAM victim: the VRAM pool does, by
 * the eviction policy ("The VRAM pool").  TTM still evicts TT BOs when
 * TT is full, and swaps them out.
 */
static bool vgpu_eviction_valuable(struct ttm_buffer_object *tbo,
				   const struct ttm_place *place)
{
	if (tbo->type == ttm_bo_type_kernel)
		return false;
	if (place->mem_type == TTM_PL_VRAM)
		return false;
	/* A pageable BO's pages stay put while VRAM chunks use them. */
	if (vgpu_chunk_bo_busy(to_vgpu_bo(tbo)))
		return false;
	return ttm_bo_eviction_valuable(tbo, place);
}

/* ------------------------------------------------------------ CPU copies --- */

/* Clears up to this size go through the BAR window when they can. */
#define VGPU_CPU_CLEAR_MAX	SZ_256K

/*
 * One page of a resource, for the CPU: either an __iomem pointer into the
 * BAR window (VRAM) or a kmapped system page.  Only for resources the CPU
 * can reach: VRAM inside the window, TT with struct pages.
 */
struct vgpu_cpu_page {
	void __iomem *io;
	void *va;
	struct page *page;
};

static int vgpu_cpu_page_map(struct vgpu_device *vdev,
			     struct ttm_buffer_object *tbo,
			     struct ttm_resource *res,
			     struct vgpu_vram_cursor *cur, pgoff_t i,
			     struct vgpu_cpu_page *p)
{
	p->io = NULL;
	p->va = NULL;
	p->page = NULL;

	if (res->mem_type == TTM_PL_VRAM) {
		if (cur->start + PAGE_SIZE > vdev->visible_size)
			return -ENXIO;
		p->io = vdev->vram_cpu + cur->start;
		return 0;
	}

	if (!tbo->ttm || !tbo->ttm->pages || !tbo->ttm->pages[i])
		return -ENXIO;
	p->page = tbo->ttm->pages[i];
	p->va = kmap_local_page(p->page);
	return 0;
}

static void vgpu_cpu_page_unmap(struct vgpu_cpu_page *p)
{
	if (p->va)
		kunmap_local(p->va);
}

/*
 * Copy (src != NULL) or clear (src == NULL) the whole BO into @dst with the
 * CPU.  A TT source uses the BO's current ttm_tt, which TTM keeps across the
 * move; a TT destination is that same ttm_tt, already populated.
 */
static int vgpu_move_cpu(struct vgpu_device *vdev,
			 struct ttm_buffer_object *tbo,
			 struct ttm_resource *src, struct ttm_resource *dst)
{
	struct vgpu_vram_cursor scur = {}, dcur = {};
	pgoff_t i, n = PFN_UP(tbo->base.size);
	void *bounce = NULL;
	int ret = 0;

	if (src && src->mem_type == TTM_PL_VRAM)
		vgpu_vram_cursor_init(&scur, src, 0);
	if (dst->mem_type == TTM_PL_VRAM)
		vgpu_vram_cursor_init(&dcur, dst, 0);
	if (src && src->mem_type == TTM_PL_VRAM &&
	    dst->mem_type == TTM_PL_VRAM) {
		bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!bounce)
			return -ENOMEM;
	}

	for (i = 0; i < n; i++) {
		struct vgpu_cpu_page s = {}, d;

		ret = vgpu_cpu_page_map(vdev, tbo, dst, &dcur, i, &d);
		if (ret)
			break;
		if (src) {
			ret = vgpu_cpu_page_map(vdev, tbo, src, &scur, i, &s);
			if (ret) {
				vgpu_cpu_page_unmap(&d);
				break;
			}
		}

		if (!src) {
			if (d.io)
				memset_io(d.io, 0, PAGE_SIZE);
			else
				memset(d.va, 0, PAGE_SIZE);
		} else if (s.io && d.io) {
			memcpy_fromio(bounce, s.io, PAGE_SIZE);
			memcpy_toio(d.io, bounce, PAGE_SIZE);
		} else if (s.io) {
			memcpy_fromio(d.va, s.io, PAGE_SIZE);
		} else if (d.io) {
			memcpy_toio(d.io, s.va, PAGE_SIZE);
		} else {
			memcpy(d.va, s.va, PAGE_SIZE);
		}

		vgpu_cpu_page_unmap(&s);
		vgpu_cpu_page_unmap(&d);
		if (src && src->mem_type == TTM_PL_VRAM)
			vgpu_vram_cursor_next(&scur, PAGE_SIZE);
		if (dst->mem_type == TTM_PL_VRAM)
			vgpu_vram_cursor_next(&dcur, PAGE_SIZE);
		cond_resched();
	}

	kfree(bounce);
	return ret;
}

/* ------------------------------------------------------------------ move --- */

static int vgpu_bo_move(struct ttm_buffer_object *tbo, bool evict,
			struct ttm_operation_ctx *ctx,
			struct ttm_resource *new_mem,
			struct ttm_place *hop)
{
	struct vgpu_device *vdev = to_vgpu(tbo->base.dev);
	struct ttm_resource *old_mem = tbo->resource;
	u32 old_type = old_mem ? old_mem->mem_type : TTM_PL_SYSTEM;
	u32 new_type = new_mem->mem_type;
	struct ttm_tt *tt = tbo->ttm;
	bool has_data;
	int idx, ret;

	has_data = old_mem && (old_type == TTM_PL_VRAM ||
			       (tt && (ttm_tt_is_populated(tt) ||
				       (tt->page_flags & TTM_TT_FLAG_SWAPPED))));

	/* Pages only change hands: nothing to copy. */
	if (new_type != TTM_PL_VRAM && (!has_data || old_type != TTM_PL_VRAM)) {
		if (old_type == TTM_PL_TT && new_type == TTM_PL_SYSTEM) {
			ret = ttm_bo_wait_ctx(tbo, ctx);
			if (ret)
				return ret;
		}
		vgpu_bo_move_notify(tbo, new_mem);
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}

	/* VRAM <-> SYSTEM goes through TT, where the pages are. */
	if (has_data && ((old_type == TTM_PL_SYSTEM && new_type == TTM_PL_VRAM) ||
			 (old_type == TTM_PL_VRAM && new_type == TTM_PL_SYSTEM))) {
		hop->fpfn = 0;
		hop->lpfn = 0;
		hop->mem_type = TTM_PL_TT;
		hop->flags = TTM_PL_FLAG_TEMPORARY;
		return -EMULTIHOP;
	}

	/* Wait for the GPU, then copy with the device or through the window. */
	ret = ttm_bo_wait_ctx(tbo, ctx);
	if (ret)
		return ret;
	/* VRAM is gone with the device: nothing can be copied from or to it. */
	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	/* Small clears of visible VRAM are cheaper through the window. */
	if (!has_data && new_type == TTM_PL_VRAM &&
	    tbo->base.size <= VGPU_CPU_CLEAR_MAX &&
	    vgpu_vram_res_visible(vdev, new_mem))
		ret = -EOPNOTSUPP;
	else
		ret = vgpu_migrate_move(vdev, tbo, has_data ? old_mem : NULL,
					new_mem);
	if (ret == -EOPNOTSUPP)
		ret = vgpu_move_cpu(vdev, tbo, has_data ? old_mem : NULL, new_mem);
	drm_dev_exit(idx);
	if (ret)
		return ret;
	vgpu_bo_move_notify(tbo, new_mem);
	ttm_bo_move_sync_cleanup(tbo, new_mem);
	vgpu_bo_account_move(vdev, tbo, evict || to_vgpu_bo(tbo)->pool_evicting,
			     has_data ? old_type : -1, new_type);
	if (new_type == TTM_PL_VRAM && tbo->type != ttm_bo_type_kernel)
		vgpu_bo_pool_moved_in(to_vgpu_bo(tbo));
	return 0;
}

/* ------------------------------------------------------------------ I/O --- */

static int vgpu_io_mem_reserve(struct ttm_device *bdev, struct ttm_resource *mem)
{
	struct vgpu_device *vdev = container_of(bdev, struct vgpu_device, ttm);

	switch (mem->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		return 0;
	case TTM_PL_VRAM:
		/* Only VRAM inside the BAR window can be CPU mapped. */
		if (!vgpu_vram_res_visible(vdev, mem))
			return -EINVAL;
		mem->bus.offset = vdev->visible_base;
		if (mem->placement & TTM_PL_FLAG_CONTIGUOUS)
			mem->bus.offset += (u64)mem->start << PAGE_SHIFT;
		mem->bus.is_iomem = true;
		mem->bus.caching = ttm_write_combined;
		return 0;
	default:
		return -EINVAL;
	}
}

static unsigned long vgpu_io_mem_pfn(struct ttm_buffer_object *tbo,
				     unsigned long page_offset)
{
	struct vgpu_device *vdev = to_vgpu(tbo->base.dev);
	struct vgpu_vram_cursor cur;

	vgpu_vram_cursor_init(&cur, tbo->resource, (u64)page_offset << PAGE_SHIFT);
	return (vdev->visible_base + cur.start) >> PAGE_SHIFT;
}

/**
 * vgpu_ttm_access() - CPU access to a BO's memory, wherever it is
 * @tbo: buffer object, reserved by the caller
 * @offset: byte offset in the BO
 * @buf: kernel buffer
 * @len: bytes
 * @write: copy @buf into the BO instead of out of it
 *
 * Used by ptrace/gdb on a CPU mapping (TTM's access_memory hook) and by
 * EXEC to read a command stream from a BO.
 *
 * Return: @len, or a negative errno (-ENXIO for VRAM outside the window,
 * -ENODEV for VRAM of an unplugged device).
 */
int vgpu_ttm_access(struct ttm_buffer_object *tbo, unsigned long offset,
		    void *buf, int len, int write)
{
	struct vgpu_device *vdev = to_vgpu(tbo->base.dev);
	struct ttm_resource *res = tbo->resource;
	int done = 0;

	if (!res || offset > tbo->base.size || len > tbo->base.size - offset)
		return -EINVAL;

	while (done < len) {
		unsigned long off = offset + done;
		unsigned int in_page = offset_in_page(off);
		int n = min_t(int, len - done, PAGE_SIZE - in_page);

		if (res->mem_type == TTM_PL_VRAM) {
			struct vgpu_vram_cursor cur;
			void __iomem *io;

			int idx;

			vgpu_vram_cursor_init(&cur, res, off);
			if (cur.start + n > vdev->visible_size)
				return -ENXIO;
			/* The BAR goes with the device. */
			if (!drm_dev_enter(&vdev->drm, &idx))
				return -ENODEV;
			io = vdev->vram_cpu + cur.start;
			if (write)
				memcpy_toio(io, buf + done, n);
			else
				memcpy_fromio(buf + done, io, n);
			drm_dev_exit(idx);
		} else {
			struct page *page;
			void *va;

			if (!tbo->ttm || !tbo->ttm->pages ||
			    !ttm_tt_is_populated(tbo->ttm))
				return -ENXIO;
			page = tbo->ttm->pages[off >> PAGE_SHIFT];
			va = kmap_local_page(page);
			if (write)
				memcpy(va + in_page, buf + done, n);
			else
				memcpy(buf + done, va + in_page, n);
			kunmap_local(va);
		}
		done += n;
	}
	return len;
}

static void vgpu_delete_mem_notify(struct ttm_buffer_object *tbo)
{
	vgpu_bo_move_notify(tbo, NULL);
}

static const struct ttm_device_funcs vgpu_ttm_funcs = {
	.ttm_tt_create = vgpu_ttm_tt_create,
	.ttm_tt_populate = vgpu_ttm_tt_populate,
	.ttm_tt_unpopulate = vgpu_ttm_tt_unpopulate,
	.ttm_tt_destroy = vgpu_ttm_tt_destroy,
	.eviction_valuable = vgpu_eviction_valuable,
	.evict_flags = vgpu_evict_flags,
	.move = vgpu_bo_move,
	.delete_mem_notify = vgpu_delete_mem_notify,
	.io_mem_reserve = vgpu_io_mem_reserve,
	.io_mem_pfn = vgpu_io_mem_pfn,
	.access_memory = vgpu_ttm_access,
};

/**
 * vgpu_ttm_init() - TTM device, VRAM and TT managers
 * @vdev: vgpu device, its BAR window mapped
 *
 * Return: 0 or a negative errno.
 */
int vgpu_ttm_init(struct vgpu_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	struct ttm_resource_manager *man = &vdev->sys_mgr;
	int ret;

	vgpu_admit_init(vdev);
	vdev->vram_cpu = ioremap_wc(vdev->visible_base, vdev->visible_size);
	if (!vdev->vram_cpu) {
		drm_err(drm, "cannot map the VRAM window\n");
		return -ENOMEM;
	}

	ret = ttm_device_init(&vdev->ttm, &vgpu_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping,
			      drm->vma_offset_manager, false, false);
	if (ret) {
		drm_err(drm, "ttm_device_init failed: %d\n", ret);
		goto err_iounmap;
	}

	ret = vgpu_pool_init(vdev);
	if (ret)
		goto err_device_fini;
	ret = vgpu_vram_mgr_init(vdev);
	if (ret)
		goto err_pool_fini;

	/* TT: as much as the guest has; TTM swaps out beyond its own limit. */
	man->use_tt = true;
	man->func = &vgpu_sys_mgr_func;
	ttm_resource_manager_init(man, &vdev->ttm,
				  (u64)totalram_pages() << PAGE_SHIFT);
	ttm_set_driver_manager(&vdev->ttm, TTM_PL_TT, man);
	ttm_resource_manager_set_used(man, true);
	return 0;

err_pool_fini:
	vgpu_pool_fini(vdev);
err_device_fini:
	ttm_device_fini(&vdev->ttm);
err_iounmap:
	iounmap(vdev->vram_cpu);
	return ret;
}

/**
 * vgpu_ttm_fini() - undo vgpu_ttm_init()
 * @vdev: vgpu device; every BO is gone
 */
void vgpu_ttm_fini(struct vgpu_device *vdev)
{
	struct ttm_resource_manager *man = &vdev->sys_mgr;

	ttm_resource_manager_set_used(man, false);
	ttm_resource_manager_evict_all(&vdev->ttm, man);
	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&vdev->ttm, TTM_PL_TT, NULL);

	vgpu_vram_mgr_fini(vdev);
	vgpu_pool_fini(vdev);
	ttm_device_fini(&vdev->ttm);
	iounmap(vdev->vram_cpu);
}
