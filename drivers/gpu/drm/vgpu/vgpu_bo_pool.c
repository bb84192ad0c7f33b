// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-resv.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>

#include "vgpu_bo.h"
#include "vgpu_drv.h"
#include "vgpu_pool.h"
#include "vgpu_ttm.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: Ordinary BOs in the VRAM pool
 *
 * A user BO in VRAM is one unit of the pool (kind %VGPU_POOL_BO): the VRAM
 * manager attaches its resource when it allocates it and detaches it when
 * it frees it (during a VRAM-to-VRAM move the BO briefly has two; it stays
 * one unit).  The unit lives in &struct vgpu_bo, so a BO that leaves VRAM
 * keeps its access history for when it comes back.
 *
 * Its recency comes from the same sources as a chunk's: placing the BO in
 * VRAM is a use (as a fault is for a chunk), and the sampler reads the
 * device access counters of its blocks and tests and clears the ACCESSED
 * bits of its leaves in every VM that maps it (vgpu_vm_bo_age(), the same
 * walk as for a chunk).  The pool samples every unit
 * before a BO joins it: the accesses made before count before the BO's
 * placement.  An EXEC is not
 * a use of every BO of the VM: a job may touch a few of the VM's BOs, and
 * the counters say which.
 *
 * Its eviction (vgpu_bo_unit_evict()) is a TTM move into the BO's
 * eviction placement (vgpu_evict_flags(): system memory, or VRAM outside
 * the CPU-visible window when that fits without evicting), so the data is
 * kept and the BO's GPU mappings are re-pointed at the next EXEC of each
 * VM that maps it (vgpu_vm_rebind()), which validates it back and may in
 * turn evict colder units.  It takes the BO's reservation by trylock and
 * refuses (-EBUSY) a BO that is pinned, reserved by anyone (the evicting
 * thread's own ww ticket included), or still used by a job: the caller
 * may hold the pool lock, and a job's fence may wait for a GPU fault that
 * needs it.
 */

static struct vgpu_bo *unit_to_bo(struct vgpu_pool_unit *u)
{
	return container_of(u, struct vgpu_bo, unit);
}

static struct vgpu_device *unit_to_vdev(struct vgpu_pool_unit *u)
{
	return to_vgpu(unit_to_bo(u)->tbo.base.dev);
}

/* The access counters of every block the BO holds (saturating). */
static u32 vgpu_bo_unit_read_ctr(struct vgpu_pool_unit *u)
{
	struct vgpu_device *vdev = unit_to_vdev(u);
	struct vgpu_bo *bo = unit_to_bo(u);
	struct gpu_buddy_block *block;
	struct vgpu_vram_res *vres;
	u32 sum = 0, v;

	list_for_each_entry(vres, &bo->vram_res, bo_link) {
		list_for_each_entry(block, &vres->blocks, link) {
			v = vgpu_pool_read_ctr(&vdev->pool,
					       gpu_buddy_block_offset(block),
					       gpu_buddy_block_size(&vdev->vram_mgr.mm,
								    block));
			sum = sum + v < sum ? U32_MAX : sum + v;
		}
	}
	return sum;
}

/* The ACCESSED bits of every mapping of the BO, in every VM. */
static bool vgpu_bo_unit_age(struct vgpu_pool_unit *u)
{
	struct vgpu_bo *bo = unit_to_bo(u);

	return vgpu_vm_bo_age(bo, 0, bo->tbo.base.size);
}

static bool vgpu_bo_unit_intersects(struct vgpu_pool_unit *u, u64 start, u64 end)
{
	struct vgpu_bo *bo = unit_to_bo(u);
	struct vgpu_vram_res *vres;

	list_for_each_entry(vres, &bo->vram_res, bo_link)
		if (vgpu_vram_res_intersects(unit_to_vdev(u), &vres->base,
					     start, end))
			return true;
	return false;
}

/* Can @tbo be moved now, without waiting?  Context: reserved. */
static bool vgpu_bo_unit_movable(struct ttm_buffer_object *tbo)
{
	return !tbo->pin_count && tbo->resource &&
	       tbo->resource->mem_type == TTM_PL_VRAM &&
	       dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP);
}

/*
 * Called with the pool lock held: see the DOC for why nothing here may
 * wait.  The reference keeps a BO whose last handle goes meanwhile alive;
 * dropping it may free the BO, whose VRAM detach finds the lock held by
 * this task.
 */
static int vgpu_bo_unit_evict(struct vgpu_pool_unit *u)
{
	struct ttm_operation_ctx ctx = { .no_wait_gpu = true };
	struct vgpu_bo *bo = unit_to_bo(u);
	struct ttm_buffer_object *tbo = &bo->tbo;
	struct ttm_placement pl;
	int ret = -EBUSY;

	if (!ttm_bo_get_unless_zero(tbo))
		return -EBUSY;
	if (!dma_resv_trylock(tbo->base.resv))
		goto out_put;
	if (vgpu_bo_unit_movable(tbo)) {
		vgpu_evict_flags(tbo, &pl);
		bo->pool_evicting = true;
		ret = ttm_bo_validate(tbo, &pl, &ctx);
		bo->pool_evicting = false;
		if (ret) {
			drm_dbg_driver(tbo->base.dev, "pool: BO eviction failed: %d\n", ret);
			ret = -EBUSY;
		}
	}
	dma_resv_unlock(tbo->base.resv);
out_put:
	ttm_bo_put(tbo);
	return ret;
}

static const struct vgpu_pool_unit_ops vgpu_bo_unit_ops = {
	.kind = VGPU_POOL_BO,
	.read_ctr = vgpu_bo_unit_read_ctr,
	.age = vgpu_bo_unit_age,
	.intersects = vgpu_bo_unit_intersects,
	.evict = vgpu_bo_unit_evict,
};

/**
 * vgpu_bo_pool_init() - a new BO's pool unit, not resident
 * @bo: BO being created
 */
void vgpu_bo_pool_init(struct vgpu_bo *bo)
{
	vgpu_pool_unit_init(&bo->unit, &vgpu_bo_unit_ops);
	INIT_LIST_HEAD(&bo->vram_res);
}

/**
 * vgpu_bo_vram_attach() - a user BO got a VRAM resource
 * @bo: the BO
 * @vres: its new resource, allocated
 *
 * The first resource makes the BO's unit resident, and counts as a use;
 * the pool samples the access counters first (once per batch).
 *
 * Context: the pool lock held.
 */
void vgpu_bo_vram_attach(struct vgpu_bo *bo, struct vgpu_vram_res *vres)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	struct vgpu_pool *pool = &vdev->pool;
	bool first = list_empty(&bo->vram_res);

	lockdep_assert_held(&pool->lock);
	vres->bo = bo;
	list_add_tail(&vres->bo_link, &bo->vram_res);
	if (!first)
		return;
	/* What the others did before it came counts before it. */
	vgpu_pool_sample_locked(pool);
	vgpu_pool_insert_locked(pool, &bo->unit, vres->base.size, true);
	bo->unit.ev.ctr_snap = vgpu_bo_unit_read_ctr(&bo->unit);
}

/**
 * vgpu_bo_vram_detach() - a user BO's VRAM resource is being freed
 * @bo: the BO
 * @vres: the resource, from vgpu_bo_vram_attach()
 *
 * Context: the pool lock held.
 */
void vgpu_bo_vram_detach(struct vgpu_bo *bo, struct vgpu_vram_res *vres)
{
	struct vgpu_pool *pool = &to_vgpu(bo->tbo.base.dev)->pool;

	lockdep_assert_held(&pool->lock);
	list_del_init(&vres->bo_link);
	vres->bo = NULL;
	if (list_empty(&bo->vram_res))
		vgpu_pool_remove_locked(pool, &bo->unit);
}

/**
 * vgpu_bo_pool_moved_in() - a move into VRAM is done
 * @bo: the BO, reserved
 *
 * The copy or clear that filled the new VRAM counted as device accesses;
 * they are not a use (the placement itself was): the counter snapshot
 * starts after them, as for a chunk's copy.
 */
void vgpu_bo_pool_moved_in(struct vgpu_bo *bo)
{
	struct vgpu_pool *pool = &to_vgpu(bo->tbo.base.dev)->pool;
	bool locked = vgpu_pool_lock_unless_held(pool);

	if (vgpu_pool_unit_resident(&bo->unit))
		bo->unit.ev.ctr_snap = vgpu_bo_unit_read_ctr(&bo->unit);
	if (locked)
		vgpu_pool_unlock(pool);
}
