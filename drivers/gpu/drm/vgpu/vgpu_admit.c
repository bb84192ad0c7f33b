// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/swap.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_tt.h>
#include <drm/vgpu_drm.h>

#include "vgpu_admit.h"
#include "vgpu_bo.h"
#include "vgpu_drv.h"
#include "vgpu_stats.h"

/**
 * DOC: memory admission
 *
 * A BO gets its memory long after BO_CREATE: system pages when the CPU or
 * the GPU first touches it, or when TTM evicts it from VRAM.  Those
 * allocations cannot fail gracefully: TTM's pages belong to no process, so
 * when memory runs out the OOM killer picks some unrelated one (the shell
 * first).  So every BO the driver creates — VRAM, system, VRAM|system,
 * pageable, and its own kernel BOs — is *admitted* first, in one place
 * (vgpu_admit_bo(), called by every BO constructor), against what can
 * really back it, and BO_CREATE fails with -ENOMEM when it cannot.
 * Imported dma-bufs are the exporter's memory and are not admitted.
 *
 * **What backs a BO.**  A system BO, and a pageable BO (whose home is
 * system memory; its VRAM chunks are copies), is backed by system pages.
 * So, at worst, is a BO that may live in VRAM: TTM evicts it to system
 * memory when VRAM is full and leaves it there until a job needs it in
 * VRAM again, a CPU fault on a small-BAR device moves it to system memory
 * when the CPU-visible window is full, and pageable chunk copies take VRAM
 * that TTM cannot reclaim.  Nothing guarantees that VRAM holds a given
 * BO, so VRAM is no credit: a VRAM BO counts in full.  Kernel BOs in VRAM
 * (page tables) are pinned there and need no system memory; the VRAM
 * manager refuses them (-ENOSPC) when VRAM is full of what cannot move.
 * System pages are RAM: TTM keeps up to its page limit
 * (ttm_tt_pages_limit(), half of RAM, for all TTM devices) populated and
 * beyond it copies the least recently used BOs into shmem ("swaps out"),
 * which is RAM again until a swap device takes it.  So what the admitted
 * BOs may need of system memory at worst, their *demand*, is the size of
 * every admitted BO but the kernel's in VRAM.
 *
 * **What the device may have**, the *limit*, is the system memory its BOs
 * hold now (populated, or swapped out to shmem by TTM), plus what the
 * kernel estimates is available (``MemAvailable``), plus free swap, less a
 * reserve for everything else: 1/16 of RAM, at least 64 MiB.  When the
 * demand is above TTM's page limit, TTM will swap out, and a swap-out
 * copies a whole BO into shmem before it frees the BO's pages: with more
 * than one BO (one BO alone is never swapped out for itself) the reserve
 * then also keeps room for a copy of the largest.
 *
 * A BO is admitted when the demand, with it, stays within the limit, or
 * when it does not raise the demand.  The limit follows the rest of the
 * system (memory other processes take is no longer offered), and what was
 * admitted is never revoked: if the rest of the system later takes the
 * memory an admitted BO was promised, its populate meets the OOM killer
 * as any overcommitted memory does.  The BO's size counts as created:
 * rounded up to the page size, and to its alignment when it may live in
 * VRAM (see &struct drm_vgpu_bo_create).
 *
 * sysfs shows the demand as ``admit_used`` and the limit as
 * ``admit_limit`` (bytes), and ``counters/admit_refusals`` counts the
 * refusals; debugfs ``admission`` prints every term of the rule.
 */

/**
 * vgpu_admit_init() - start with nothing admitted
 * @vdev: vgpu device
 */
void vgpu_admit_init(struct vgpu_device *vdev)
{
	struct vgpu_admit *ad = &vdev->admit;

	spin_lock_init(&ad->lock);
	ad->system = 0;
	ad->vram = 0;
	ad->pinned = 0;
	memset(ad->by_order, 0, sizeof(ad->by_order));
	ad->bos = 0;
	atomic64_set(&ad->held, 0);
}

/* The sum of &struct vgpu_admit that @bo counts in. */
static u64 *vgpu_admit_sum(struct vgpu_admit *ad, struct vgpu_bo *bo)
{
	if (!(bo->placements & DRM_VGPU_PLACE_VRAM))
		return &ad->system;
	return bo->flags & VGPU_BO_KERNEL ? &ad->pinned : &ad->vram;
}

/* Upper bound of the largest admitted user BO, or 0. */
static u64 vgpu_admit_largest_locked(struct vgpu_admit *ad)
{
	int order;

	lockdep_assert_held(&ad->lock);
	for (order = VGPU_ADMIT_ORDERS - 1; order >= 0; order--)
		if (ad->by_order[order])
			return 1ull << order;
	return 0;
}

/* Fills in @st from the device's admitted sums and the system's memory. */
static void vgpu_admit_eval_locked(struct vgpu_device *vdev,
				   struct vgpu_admit_stats *st)
{
	struct vgpu_admit *ad = &vdev->admit;
	u64 have, keep;

	lockdep_assert_held(&ad->lock);
	st->system = ad->system;
	st->vram = ad->vram;
	st->pinned = ad->pinned;
	st->demand = st->system + st->vram;
	st->held = atomic64_read(&ad->held);
	st->available = (u64)max(si_mem_available(), 0L) << PAGE_SHIFT;
	st->swap_free = (u64)max(get_nr_swap_pages(), 0L) << PAGE_SHIFT;
	st->reserve = max_t(u64, (u64)totalram_pages() << PAGE_SHIFT >> 4, SZ_64M);
	st->ttm_limit = (u64)ttm_tt_pages_limit() << PAGE_SHIFT;
	/* A swap-out copies one BO for another: none with a single BO. */
	st->swap_copy = 0;
	if (st->demand > st->ttm_limit && ad->bos > 1)
		st->swap_copy = vgpu_admit_largest_locked(ad);

	have = st->held + st->available + st->swap_free;
	keep = st->reserve + st->swap_copy;
	st->limit = have > keep ? have - keep : 0;
}

/* Counts @bo into the admitted sums, or out of them. */
static void vgpu_admit_count_locked(struct vgpu_admit *ad, struct vgpu_bo *bo,
				    bool in)
{
	u64 size = bo->tbo.base.size, *sum = vgpu_admit_sum(ad, bo);
	bool user = !(bo->flags & VGPU_BO_KERNEL);

	lockdep_assert_held(&ad->lock);
	if (in) {
		*sum += size;
		ad->by_order[order_base_2(size)] += user;
		ad->bos += user;
	} else {
		*sum -= size;
		ad->by_order[order_base_2(size)] -= user;
		ad->bos -= user;
	}
}

/**
 * vgpu_admit_bo() - admit a new BO against what can back it
 * @vdev: vgpu device
 * @bo: the BO, its size, placements and flags set, not yet given to TTM
 *
 * Marks @bo admitted on success; vgpu_admit_release() gives it back.
 * Imported (sg) BOs do not come here.
 *
 * Context: any; takes &vgpu_admit.lock.
 * Return: 0, or -ENOMEM when the system memory that may have to back the
 * device's BOs with @bo would exceed the limit (see "memory admission").
 */
int vgpu_admit_bo(struct vgpu_device *vdev, struct vgpu_bo *bo)
{
	struct vgpu_admit *ad = &vdev->admit;
	struct vgpu_admit_stats st;
	u64 before;

	spin_lock(&ad->lock);
	before = ad->system + ad->vram;
	vgpu_admit_count_locked(ad, bo, true);
	vgpu_admit_eval_locked(vdev, &st);
	if (st.demand > st.limit && st.demand > before) {
		vgpu_admit_count_locked(ad, bo, false);
		spin_unlock(&ad->lock);
		vgpu_stats_add(vdev, NULL, VGPU_STAT_ADMIT_REFUSALS, 1);
		drm_dbg(&vdev->drm, "BO of %zu bytes refused: demand %llu > limit %llu\n",
			bo->tbo.base.size, st.demand, st.limit);
		return -ENOMEM;
	}
	spin_unlock(&ad->lock);
	bo->admitted = true;
	return 0;
}

/**
 * vgpu_admit_release() - give back what vgpu_admit_bo() admitted
 * @vdev: vgpu device
 * @bo: the BO being destroyed; nothing happens if it was not admitted
 *
 * Context: any; takes &vgpu_admit.lock.
 */
void vgpu_admit_release(struct vgpu_device *vdev, struct vgpu_bo *bo)
{
	struct vgpu_admit *ad = &vdev->admit;

	if (!bo->admitted)
		return;
	spin_lock(&ad->lock);
	vgpu_admit_count_locked(ad, bo, false);
	spin_unlock(&ad->lock);
	bo->admitted = false;
}

/**
 * vgpu_admit_hold() - count system pages a ttm_tt of the device takes or frees
 * @vdev: vgpu device
 * @bytes: positive on a ttm_tt's first populate, negative when it is
 *	destroyed
 */
void vgpu_admit_hold(struct vgpu_device *vdev, s64 bytes)
{
	atomic64_add(bytes, &vdev->admit.held);
}

/**
 * vgpu_admit_stats() - the terms of the admission rule, now
 * @vdev: vgpu device
 * @st: filled in
 *
 * Context: any; takes &vgpu_admit.lock.
 */
void vgpu_admit_stats(struct vgpu_device *vdev, struct vgpu_admit_stats *st)
{
	struct vgpu_admit *ad = &vdev->admit;

	spin_lock(&ad->lock);
	vgpu_admit_eval_locked(vdev, st);
	spin_unlock(&ad->lock);
}

/**
 * vgpu_admit_print() - every term of the admission rule, in KiB
 * @vdev: vgpu device
 * @p: where to print (debugfs ``admission``)
 */
void vgpu_admit_print(struct vgpu_device *vdev, struct drm_printer *p)
{
	struct vgpu_admit_stats st;

	vgpu_admit_stats(vdev, &st);
	drm_printf(p, "system BOs:      %llu KiB\n", st.system >> 10);
	drm_printf(p, "VRAM BOs:        %llu KiB\n", st.vram >> 10);
	drm_printf(p, "pinned in VRAM:  %llu KiB\n", st.pinned >> 10);
	drm_printf(p, "demand:          %llu KiB\n", st.demand >> 10);
	drm_printf(p, "held:            %llu KiB\n", st.held >> 10);
	drm_printf(p, "available:       %llu KiB\n", st.available >> 10);
	drm_printf(p, "swap free:       %llu KiB\n", st.swap_free >> 10);
	drm_printf(p, "reserve:         %llu KiB\n", st.reserve >> 10);
	drm_printf(p, "TTM page limit:  %llu KiB\n", st.ttm_limit >> 10);
	drm_printf(p, "swap-out copy:   %llu KiB\n", st.swap_copy >> 10);
	drm_printf(p, "limit:           %llu KiB\n", st.limit >> 10);
	drm_printf(p, "refusals:        %llu\n",
		   vgpu_stats_read(vdev, VGPU_STAT_ADMIT_REFUSALS));
}
