// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/log2.h>
#include <linux/slab.h>

#include <drm/drm_buddy.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>

#include "vgpu_bo.h"
#include "vgpu_drv.h"
#include "vgpu_pool.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: VRAM manager
 *
 * VRAM is handed out by the kernel's buddy allocator (``gpu_buddy``, the
 * engine of ``drm_buddy``) behind a TTM resource manager registered for
 * %TTM_PL_VRAM.  The buddy chunk is 4 KiB, the GPU's smallest page.
 *
 * An allocation is a list of power-of-two blocks.  The BO's
 * ``page_alignment`` becomes the buddy's minimum block size, so a BO
 * created with a 2 MiB alignment is made of 2 MiB-aligned blocks of at
 * least 2 MiB, which the page-table code maps with 2 MiB leaves; without an
 * alignment the buddy still prefers the largest free blocks.
 * Contiguous allocations round up to a power of two and trim the tail.
 *
 * A placement whose ``lpfn`` is the visible size keeps the BO inside the
 * CPU-visible window (BAR 2); the manager counts what is left there
 * (``visible_avail``) so that it makes room rather than failing when the
 * window is full but VRAM is not.
 *
 * **Making room.**  When an allocation does not fit, the manager itself
 * asks the VRAM pool to evict the coldest unit that holds VRAM in the
 * allocation's range (vgpu_pool_make_room_locked(), "The VRAM pool") and
 * retries, until it fits or no unit can go; then it fails with -ENOSPC
 * and TTM tries the BO's next placement (TTM's own eviction walk finds
 * nothing to evict in VRAM, see vgpu_eviction_valuable()).  A place
 * marked %TTM_PL_FLAG_DESIRED is taken only if it fits without evicting.
 * Every user BO's VRAM resource is a unit of the pool (kind
 * %VGPU_POOL_BO), attached at allocation and detached at free; kernel BOs
 * are pinned and are not.
 *
 * Statistics (used, kernel-internal, visible, allocations, failures, peak)
 * are kept under the manager's lock and reported by the QUERY ioctl; at
 * module unload the manager checks that every block came back.
 */

static inline struct vgpu_vram_mgr *
to_vgpu_vram_mgr(struct ttm_resource_manager *man)
{
	return container_of(man, struct vgpu_vram_mgr, manager);
}

/* Bytes of a buddy block inside the CPU-visible window. */
static u64 vgpu_vram_block_visible(struct vgpu_vram_mgr *mgr,
				   struct gpu_buddy_block *block)
{
	u64 start = gpu_buddy_block_offset(block);
	u64 end = start + gpu_buddy_block_size(&mgr->mm, block);

	return start < mgr->visible_size ? min(end, mgr->visible_size) - start : 0;
}

static u64 vgpu_vram_blocks_visible(struct vgpu_vram_mgr *mgr,
				    struct list_head *blocks)
{
	struct gpu_buddy_block *block;
	u64 visible = 0;

	list_for_each_entry(block, blocks, link)
		visible += vgpu_vram_block_visible(mgr, block);
	return visible;
}

static bool vgpu_vram_blocks_contiguous(struct vgpu_vram_mgr *mgr,
					struct list_head *blocks)
{
	struct gpu_buddy_block *block;
	u64 next = U64_MAX;

	list_for_each_entry(block, blocks, link) {
		u64 start = gpu_buddy_block_offset(block);

		if (next != U64_MAX && start != next)
			return false;
		next = start + gpu_buddy_block_size(&mgr->mm, block);
	}
	return true;
}

/* The buddy allocation itself; -ENOSPC when it does not fit. */
static int vgpu_vram_mgr_try(struct vgpu_vram_mgr *mgr,
			     struct vgpu_vram_res *vres, u64 fpfn, u64 lpfn,
			     u64 min_block)
{
	u64 size = vres->base.size;
	int ret;

	mutex_lock(&mgr->lock);
	if (lpfn <= mgr->visible_size >> PAGE_SHIFT &&
	    size > mgr->visible_avail) {
		ret = -ENOSPC;
		goto out;
	}
	ret = gpu_buddy_alloc_blocks(&mgr->mm, fpfn << PAGE_SHIFT,
				     lpfn << PAGE_SHIFT, size, min_block,
				     &vres->blocks, vres->flags);
	if (ret)
		goto out;
	vres->used_visible = vgpu_vram_blocks_visible(mgr, &vres->blocks);
	mgr->visible_avail -= vres->used_visible;
	if (vres->kernel)
		mgr->kernel_used += size;
	if (vres->flags & GPU_BUDDY_CONTIGUOUS_ALLOCATION)
		mgr->contiguous++;
	mgr->allocs++;
	mgr->peak_used = max(mgr->peak_used, mgr->mm.size - mgr->mm.avail);
out:
	mutex_unlock(&mgr->lock);
	return ret == -ENOMEM ? -ENOMEM : ret ? -ENOSPC : 0;
}

static void vgpu_vram_mgr_count_failure(struct vgpu_vram_mgr *mgr)
{
	mutex_lock(&mgr->lock);
	mgr->failures++;
	mutex_unlock(&mgr->lock);
}

/*
 * Allocates, making room in the pool while it does not fit, and attaches
 * a user BO's resource to the BO's pool unit.
 */
static int vgpu_vram_mgr_alloc_pooled(struct vgpu_device *vdev,
				      struct vgpu_vram_res *vres,
				      struct ttm_buffer_object *tbo,
				      const struct ttm_place *place,
				      u64 lpfn, u64 min_block)
{
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;
	struct vgpu_pool *pool = &vdev->pool;
	bool may_evict = !(place->flags & TTM_PL_FLAG_DESIRED);
	u64 start = (u64)place->fpfn << PAGE_SHIFT, end = lpfn << PAGE_SHIFT;
	bool locked = false;
	int ret;

	ret = vgpu_vram_mgr_try(mgr, vres, place->fpfn, lpfn, min_block);
	if (ret == -ENOSPC) {
		vgpu_vram_mgr_count_failure(mgr);
		if (may_evict) {
			locked = vgpu_pool_lock_unless_held(pool);
			/* Outside of a batch: the units found now may go. */
			if (locked)
				vgpu_pool_begin_locked(pool);
			do {
				/* Nothing could go: TTM tries the next place. */
				if (vgpu_pool_make_room_locked(pool, start, end)) {
					ret = -ENOSPC;
					break;
				}
				ret = vgpu_vram_mgr_try(mgr, vres, place->fpfn,
							lpfn, min_block);
			} while (ret == -ENOSPC);
		}
	}
	if (!ret && !vres->kernel) {
		if (!locked)
			locked = vgpu_pool_lock_unless_held(pool);
		vgpu_bo_vram_attach(to_vgpu_bo(tbo), vres);
	}
	if (locked)
		vgpu_pool_unlock(pool);
	return ret;
}

static int vgpu_vram_mgr_alloc(struct ttm_resource_manager *man,
			       struct ttm_buffer_object *tbo,
			       const struct ttm_place *place,
			       struct ttm_resource **res)
{
	struct vgpu_vram_mgr *mgr = to_vgpu_vram_mgr(man);
	struct vgpu_device *vdev = container_of(mgr, struct vgpu_device, vram_mgr);
	unsigned long lpfn = place->lpfn;
	struct vgpu_vram_res *vres;
	u64 size, min_block;
	int ret;

	if (!lpfn || lpfn > man->size >> PAGE_SHIFT)
		lpfn = man->size >> PAGE_SHIFT;
	/* Do not make room for what can never fit. */
	if (tbo->base.size >> PAGE_SHIFT > lpfn - place->fpfn)
		return -E2BIG;

	vres = kzalloc(sizeof(*vres), GFP_KERNEL);
	if (!vres)
		return -ENOMEM;
	ttm_resource_init(tbo, place, &vres->base);
	INIT_LIST_HEAD(&vres->blocks);
	INIT_LIST_HEAD(&vres->bo_link);
	vres->kernel = tbo->type == ttm_bo_type_kernel;

	if (place->flags & TTM_PL_FLAG_TOPDOWN)
		vres->flags |= GPU_BUDDY_TOPDOWN_ALLOCATION;
	if (place->fpfn || lpfn != man->size >> PAGE_SHIFT)
		vres->flags |= GPU_BUDDY_RANGE_ALLOCATION;
	if (place->flags & TTM_PL_FLAG_CONTIGUOUS)
		vres->flags |= GPU_BUDDY_CONTIGUOUS_ALLOCATION;

	size = vres->base.size;
	min_block = max_t(u64, (u64)tbo->page_alignment << PAGE_SHIFT, SZ_4K);
	if (!IS_ALIGNED(size, min_block)) {
		ret = -EINVAL;
		goto err_fini;
	}

	ret = vgpu_vram_mgr_alloc_pooled(vdev, vres, tbo, place, lpfn, min_block);
	if (ret)
		goto err_fini;

	if (vgpu_vram_blocks_contiguous(mgr, &vres->blocks)) {
		struct gpu_buddy_block *first =
			list_first_entry(&vres->blocks, typeof(*first), link);

		vres->base.placement |= TTM_PL_FLAG_CONTIGUOUS;
		vres->base.start = gpu_buddy_block_offset(first) >> PAGE_SHIFT;
	} else {
		/* Not linear: nobody may use start as an address. */
		vres->base.start = man->size >> PAGE_SHIFT;
	}

	*res = &vres->base;
	return 0;

err_fini:
	ttm_resource_fini(man, &vres->base);
	kfree(vres);
	return ret;
}

static void vgpu_vram_mgr_free(struct ttm_resource_manager *man,
			       struct ttm_resource *res)
{
	struct vgpu_vram_mgr *mgr = to_vgpu_vram_mgr(man);
	struct vgpu_device *vdev = container_of(mgr, struct vgpu_device, vram_mgr);
	struct vgpu_vram_res *vres = to_vgpu_vram_res(res);

	if (vres->bo) {
		bool locked = vgpu_pool_lock_unless_held(&vdev->pool);

		vgpu_bo_vram_detach(vres->bo, vres);
		if (locked)
			vgpu_pool_unlock(&vdev->pool);
	}

	mutex_lock(&mgr->lock);
	gpu_buddy_free_list(&mgr->mm, &vres->blocks, 0);
	mgr->visible_avail += vres->used_visible;
	if (vres->kernel)
		mgr->kernel_used -= res->size;
	mutex_unlock(&mgr->lock);

	ttm_resource_fini(man, res);
	kfree(vres);
}

static bool vgpu_vram_mgr_intersects(struct ttm_resource_manager *man,
				     struct ttm_resource *res,
				     const struct ttm_place *place,
				     size_t size)
{
	struct vgpu_vram_mgr *mgr = to_vgpu_vram_mgr(man);
	struct vgpu_vram_res *vres = to_vgpu_vram_res(res);
	struct gpu_buddy_block *block;

	if (!place->fpfn && !place->lpfn)
		return true;
	if (!place->fpfn && place->lpfn == mgr->visible_size >> PAGE_SHIFT)
		return vres->used_visible > 0;

	list_for_each_entry(block, &vres->blocks, link) {
		u64 fpfn = gpu_buddy_block_offset(block) >> PAGE_SHIFT;
		u64 lpfn = fpfn + (gpu_buddy_block_size(&mgr->mm, block) >> PAGE_SHIFT);

		if (place->fpfn < lpfn && (!place->lpfn || place->lpfn > fpfn))
			return true;
	}
	return false;
}

static bool vgpu_vram_mgr_compatible(struct ttm_resource_manager *man,
				     struct ttm_resource *res,
				     const struct ttm_place *place,
				     size_t size)
{
	struct vgpu_vram_mgr *mgr = to_vgpu_vram_mgr(man);
	struct vgpu_vram_res *vres = to_vgpu_vram_res(res);
	struct gpu_buddy_block *block;

	if ((place->flags & TTM_PL_FLAG_CONTIGUOUS) &&
	    !(res->placement & TTM_PL_FLAG_CONTIGUOUS))
		return false;
	if (!place->fpfn && !place->lpfn)
		return true;
	if (!place->fpfn && place->lpfn == mgr->visible_size >> PAGE_SHIFT)
		return vres->used_visible == size;

	list_for_each_entry(block, &vres->blocks, link) {
		u64 fpfn = gpu_buddy_block_offset(block) >> PAGE_SHIFT;
		u64 lpfn = fpfn + (gpu_buddy_block_size(&mgr->mm, block) >> PAGE_SHIFT);

		if (fpfn < place->fpfn || (place->lpfn && lpfn > place->lpfn))
			return false;
	}
	return true;
}

static void vgpu_vram_mgr_debug(struct ttm_resource_manager *man,
				struct drm_printer *p)
{
	struct vgpu_vram_mgr *mgr = to_vgpu_vram_mgr(man);

	mutex_lock(&mgr->lock);
	drm_printf(p, "visible: %llu KiB of %llu KiB free\n",
		   mgr->visible_avail >> 10, mgr->visible_size >> 10);
	drm_printf(p, "kernel: %llu KiB, peak: %llu KiB\n",
		   mgr->kernel_used >> 10, mgr->peak_used >> 10);
	drm_printf(p, "allocs: %llu, failures: %llu, contiguous: %llu\n",
		   mgr->allocs, mgr->failures, mgr->contiguous);
	drm_buddy_print(&mgr->mm, p);
	mutex_unlock(&mgr->lock);
}

static const struct ttm_resource_manager_func vgpu_vram_mgr_func = {
	.alloc = vgpu_vram_mgr_alloc,
	.free = vgpu_vram_mgr_free,
	.intersects = vgpu_vram_mgr_intersects,
	.compatible = vgpu_vram_mgr_compatible,
	.debug = vgpu_vram_mgr_debug,
};

/**
 * vgpu_vram_mgr_init() - create the VRAM manager and register it with TTM
 * @vdev: vgpu device, its TTM device initialised
 *
 * Return: 0 or a negative errno.
 */
int vgpu_vram_mgr_init(struct vgpu_device *vdev)
{
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;
	struct ttm_resource_manager *man = &mgr->manager;
	int ret;

	mutex_init(&mgr->lock);
	mgr->visible_size = vdev->visible_size;
	mgr->visible_avail = vdev->visible_size;

	man->func = &vgpu_vram_mgr_func;
	ttm_resource_manager_init(man, &vdev->ttm, vdev->vram_size);
	ret = gpu_buddy_init(&mgr->mm, vdev->vram_size, SZ_4K);
	if (ret) {
		mutex_destroy(&mgr->lock);
		return ret;
	}

	ttm_set_driver_manager(&vdev->ttm, TTM_PL_VRAM, man);
	ttm_resource_manager_set_used(man, true);
	return 0;
}

/**
 * vgpu_vram_mgr_fini() - evict everything and tear the manager down
 * @vdev: vgpu device
 *
 * Complains if any VRAM is still allocated afterwards: that is a leak.
 */
void vgpu_vram_mgr_fini(struct vgpu_device *vdev)
{
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;
	struct ttm_resource_manager *man = &mgr->manager;

	ttm_resource_manager_set_used(man, false);
	if (ttm_resource_manager_evict_all(&vdev->ttm, man))
		drm_err(&vdev->drm, "VRAM manager: cannot evict everything\n");

	if (mgr->mm.avail != mgr->mm.size)
		drm_err(&vdev->drm, "VRAM manager: %llu bytes leaked\n",
			mgr->mm.size - mgr->mm.avail);
	else
		drm_info(&vdev->drm, "VRAM manager: all VRAM returned (peak %llu KiB)\n",
			       mgr->peak_used >> 10);

	gpu_buddy_fini(&mgr->mm);
	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&vdev->ttm, TTM_PL_VRAM, NULL);
	mutex_destroy(&mgr->lock);
}

/**
 * vgpu_vram_mgr_stats() - read the allocator's accounting
 * @vdev: vgpu device
 * @st: filled in
 */
void vgpu_vram_mgr_stats(struct vgpu_device *vdev, struct vgpu_vram_stats *st)
{
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;

	mutex_lock(&mgr->lock);
	st->size = mgr->mm.size;
	st->used = mgr->mm.size - mgr->mm.avail;
	st->kernel_used = mgr->kernel_used;
	st->visible_size = mgr->visible_size;
	st->visible_used = mgr->visible_size - mgr->visible_avail;
	st->allocs = mgr->allocs;
	st->failures = mgr->failures;
	st->contiguous = mgr->contiguous;
	st->peak_used = mgr->peak_used;
	mutex_unlock(&mgr->lock);
}

/**
 * vgpu_vram_res_visible() - is a VRAM resource wholly CPU-visible?
 * @vdev: vgpu device
 * @res: a %TTM_PL_VRAM resource
 *
 * Return: true if every byte lies inside the BAR 2 window.
 */
bool vgpu_vram_res_visible(struct vgpu_device *vdev, struct ttm_resource *res)
{
	return to_vgpu_vram_res(res)->used_visible == res->size;
}

/**
 * vgpu_vram_cursor_init() - start walking a VRAM resource
 * @cur: cursor
 * @res: a %TTM_PL_VRAM resource
 * @offset: byte offset into the BO to start at
 *
 * Afterwards @cur->start is the VRAM offset backing @offset and
 * @cur->remaining the contiguous bytes from there.
 */
void vgpu_vram_cursor_init(struct vgpu_vram_cursor *cur,
			   struct ttm_resource *res, u64 offset)
{
	struct vgpu_vram_res *vres = to_vgpu_vram_res(res);

	cur->head = &vres->blocks;
	cur->chunk_size = SZ_4K;
	cur->block = list_first_entry(cur->head, struct gpu_buddy_block, link);
	cur->start = gpu_buddy_block_offset(cur->block);
	cur->remaining = cur->chunk_size << gpu_buddy_block_order(cur->block);
	vgpu_vram_cursor_next(cur, offset);
}

/**
 * vgpu_vram_cursor_next() - advance a VRAM cursor
 * @cur: cursor
 * @size: bytes to advance by
 */
void vgpu_vram_cursor_next(struct vgpu_vram_cursor *cur, u64 size)
{
	while (size) {
		u64 step = min(size, cur->remaining);

		cur->start += step;
		cur->remaining -= step;
		size -= step;
		if (!cur->remaining) {
			if (list_is_last(&cur->block->link, cur->head))
				return;
			cur->block = list_next_entry(cur->block, link);
			cur->start = gpu_buddy_block_offset(cur->block);
			cur->remaining = cur->chunk_size <<
					 gpu_buddy_block_order(cur->block);
		}
	}
}

/* One naturally aligned block of @size, top-down; -ENOSPC if none is free. */
static struct gpu_buddy_block *
vgpu_vram_mgr_try_block(struct vgpu_vram_mgr *mgr, u64 size)
{
	struct gpu_buddy_block *block;
	LIST_HEAD(blocks);
	int ret;

	mutex_lock(&mgr->lock);
	ret = gpu_buddy_alloc_blocks(&mgr->mm, 0, mgr->mm.size, size, size,
				     &blocks, GPU_BUDDY_TOPDOWN_ALLOCATION);
	if (ret) {
		mgr->failures++;
		mutex_unlock(&mgr->lock);
		return ERR_PTR(ret == -ENOMEM ? -ENOMEM : -ENOSPC);
	}
	block = list_first_entry(&blocks, struct gpu_buddy_block, link);
	list_del_init(&block->link);
	mgr->visible_avail -= vgpu_vram_block_visible(mgr, block);
	mgr->chunk_used += size;
	mgr->allocs++;
	mgr->peak_used = max(mgr->peak_used, mgr->mm.size - mgr->mm.avail);
	mutex_unlock(&mgr->lock);
	return block;
}

/**
 * vgpu_vram_mgr_alloc_chunk() - VRAM for one demand-paging chunk
 * @vdev: vgpu device
 * @size: chunk size, a power of two of at least 4 KiB
 * @offset: set to the VRAM offset of the chunk
 *
 * Chunks come from the same buddy allocator as TTM's VRAM resources, as
 * one naturally aligned block (so a 2 MiB chunk is one 2 MiB leaf and one
 * access counter), allocated top-down to leave the CPU-visible window to
 * BOs the CPU maps.  Nothing is evicted here: when VRAM is full the chunk
 * code has the pool make room and asks again (vgpu_chunk.c).
 *
 * Context: the pool lock held.
 * Return: the block, or an ERR_PTR(): -ENOSPC when VRAM is full.
 */
struct gpu_buddy_block *vgpu_vram_mgr_alloc_chunk(struct vgpu_device *vdev,
						  u64 size, u64 *offset)
{
	struct gpu_buddy_block *block;

	lockdep_assert_held(&vdev->pool.lock);
	block = vgpu_vram_mgr_try_block(&vdev->vram_mgr, size);
	if (!IS_ERR(block))
		*offset = gpu_buddy_block_offset(block);
	return block;
}

/**
 * vgpu_vram_mgr_chunk_offset() - VRAM offset of a chunk's block
 * @block: from vgpu_vram_mgr_alloc_chunk()
 *
 * Return: its offset.
 */
u64 vgpu_vram_mgr_chunk_offset(struct gpu_buddy_block *block)
{
	return gpu_buddy_block_offset(block);
}

/**
 * vgpu_vram_mgr_free_chunk() - give a chunk's VRAM back
 * @vdev: vgpu device
 * @block: from vgpu_vram_mgr_alloc_chunk()
 */
void vgpu_vram_mgr_free_chunk(struct vgpu_device *vdev,
			      struct gpu_buddy_block *block)
{
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;

	mutex_lock(&mgr->lock);
	mgr->visible_avail += vgpu_vram_block_visible(mgr, block);
	mgr->chunk_used -= gpu_buddy_block_size(&mgr->mm, block);
	gpu_buddy_free_block(&mgr->mm, block);
	mutex_unlock(&mgr->lock);
}

/**
 * vgpu_vram_res_intersects() - does a resource hold VRAM in a range?
 * @vdev: vgpu device
 * @res: a %TTM_PL_VRAM resource
 * @start: VRAM offset
 * @end: end of the range (exclusive)
 *
 * Return: true if a block of @res overlaps [@start, @end).
 */
bool vgpu_vram_res_intersects(struct vgpu_device *vdev, struct ttm_resource *res,
			      u64 start, u64 end)
{
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;
	struct gpu_buddy_block *block;

	list_for_each_entry(block, &to_vgpu_vram_res(res)->blocks, link) {
		u64 s = gpu_buddy_block_offset(block);

		if (s < end && s + gpu_buddy_block_size(&mgr->mm, block) > start)
			return true;
	}
	return false;
}
