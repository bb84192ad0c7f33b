// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-resv.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/vgpu_drm.h>

#include "vgpu_advice.h"
#include "vgpu_bo.h"
#include "vgpu_chunk.h"
#include "vgpu_drv.h"
#include "vgpu_file.h"
#include "vgpu_evict_policy.h"
#include "vgpu_fault_batch.h"
#include "vgpu_ioctl.h"
#include "vgpu_paging.h"
#include "vgpu_policy.h"
#include "vgpu_prefetch.h"
#include "vgpu_stats.h"
#include "vgpu_svm.h"
#include "vgpu_vm.h"

/**
 * DOC: Demand paging
 *
 * VRAM is managed as a cache over system memory, in *chunks* of
 * ``vgpu.chunk_size_kb`` (2 MiB by default, a power of two from 64 KiB to
 * 64 MiB; fixed at probe).  The chunk is the unit of migration, eviction,
 * access sampling, prefetch and thrashing detection, and matches the
 * device's access-counter granule and the 2 MiB leaf, so a resident chunk
 * is one counter and one PTE.
 *
 * The pieces, one file each:
 *
 * - vgpu_fault_batch.c: the fault interrupt thread reads up to
 *   ``vgpu.fault_batch_limit`` records per batch, de-duplicates, sorts and
 *   groups them by VM and chunk;
 * - vgpu_pool.c: the VRAM pool, where chunks and ordinary BOs compete for
 *   VRAM under one eviction order; vgpu_evict_policy.c: the eviction
 *   policies (``lru``, ``lru2``) over sampled access history;
 * - vgpu_prefetch.c: stream and density detectors, thrashing detection;
 * - this file: module parameters, the device's paging state, policy
 *   switching (sysfs and QUERY), counters, and the PREFETCH and ADVISE
 *   ioctls.
 *
 * **Policies** are values of the device (vgpu_policy.c: sysfs
 * ``eviction_policy`` and ``placement_policy``); the module parameters
 * ``vgpu.eviction_policy`` and ``vgpu.placement_policy`` choose the
 * initial ones.  Placement policies: ``migrate`` (migrate-on-fault: the faulting chunk
 * moves into VRAM, colder units (chunks or BOs) are evicted by the eviction
 * policy, and a chunk the thrashing detector pins is mapped remotely until
 * the pin expires) and ``remote`` (map-remote: faults map the system pages and
 * only PREFETCH or a VRAM placement hint moves memory).
 *
 * **Explicit placement.**  PREFETCH and ADVISE (preferred placement) act
 * on the buffer objects behind a VA range: each BO that may live in the
 * requested placement is validated there through TTM; VRAM is made by
 * the VRAM pool, which evicts its coldest units, chunks or BOs (BOs to
 * system memory, and on to swap through TTM's shrinker).  The BO's GPU
 * mappings are cleared by the move and written again, at the new place,
 * before the VM's next job.
 *
 * **Counters** are lines of the counter registry (vgpu_stats.c), kept
 * per VM and for the device, reported by QUERY (%DRM_VGPU_QUERY_PAGING),
 * sysfs, debugfs and fdinfo.
 */

static char *vgpu_eviction_policy = "lru";
module_param_named(eviction_policy, vgpu_eviction_policy, charp, 0444);
MODULE_PARM_DESC(eviction_policy,
		 "Initial VRAM eviction policy, one of sysfs available_eviction_policies (default: lru)");

static char *vgpu_placement_policy = "migrate";
module_param_named(placement_policy, vgpu_placement_policy, charp, 0444);
MODULE_PARM_DESC(placement_policy,
		 "Initial placement policy on GPU faults: migrate or remote (default: migrate)");

static unsigned int vgpu_chunk_size_kb = SZ_2M / SZ_1K;
module_param_named(chunk_size_kb, vgpu_chunk_size_kb, uint, 0444);
MODULE_PARM_DESC(chunk_size_kb,
		 "Migration chunk in KiB, power of two, 64..65536 (default: 2048)");

static unsigned int vgpu_fault_batch_limit_param = VGPU_FAULT_BATCH_MAX;
module_param_named(fault_batch_limit, vgpu_fault_batch_limit_param, uint, 0644);
MODULE_PARM_DESC(fault_batch_limit,
		 "GPU fault records handled per batch, 1..256 (default: 256)");

static bool vgpu_prefetch_enable = true;
module_param_named(prefetch, vgpu_prefetch_enable, bool, 0644);
MODULE_PARM_DESC(prefetch,
		 "Prefetch ahead of sequential and strided fault streams (default: on)");

static unsigned int vgpu_thrash_count = 3;
module_param_named(thrash_count, vgpu_thrash_count, uint, 0644);
MODULE_PARM_DESC(thrash_count,
		 "Returns into VRAM within the thrashing window that make a chunk thrash (0: detection off; default: 3)");

/**
 * vgpu_paging_prefetch_enabled() - is automatic prefetch on?
 *
 * Return: the ``vgpu.prefetch`` parameter, writable at run time.
 */
bool vgpu_paging_prefetch_enabled(void)
{
	return READ_ONCE(vgpu_prefetch_enable);
}

/**
 * vgpu_paging_thrash_count() - returns that make a chunk thrash
 *
 * Return: the ``vgpu.thrash_count`` parameter, writable at run time and
 * read at every fault interrupt; 0 turns thrashing detection off.
 */
unsigned int vgpu_paging_thrash_count(void)
{
	return READ_ONCE(vgpu_thrash_count);
}

/**
 * vgpu_paging_clock() - the clock of the thrashing detector
 * @vdev: vgpu device
 *
 * Wall time, except on a device in deterministic mode
 * (%VGPU_CAPS_DETERMINISTIC, hardware.rst "Deterministic mode"): there the
 * device's modeled time, all of it (counter MODELED_NS), which depends
 * only on the work done, so that the same workload finds the same chunks
 * thrashing at the same faults.  Read once per batch of chunks
 * (vgpu_chunk_batch_init()).
 *
 * Return: ns.
 */
u64 vgpu_paging_clock(struct vgpu_device *vdev)
{
	if (vdev->caps & VGPU_CAPS_DETERMINISTIC)
		return vgpu_counter_read(vdev, VGPU_CTR_MODELED_NS);
	return ktime_get_ns();
}

/**
 * vgpu_paging_fault_batch_limit() - the current batch limit
 *
 * Read at the start of every drain, so writing the module parameter
 * takes effect at the next fault interrupt.
 *
 * Return: records per batch, 1..%VGPU_FAULT_BATCH_MAX.
 */
unsigned int vgpu_paging_fault_batch_limit(void)
{
	return clamp(READ_ONCE(vgpu_fault_batch_limit_param), 1u,
		     (unsigned int)VGPU_FAULT_BATCH_MAX);
}

/* Applies a policy module parameter through the device's policy state. */
static void vgpu_paging_apply_param(struct vgpu_device *vdev, const char *what,
				    const char *name, int policy,
				    int (*set)(struct vgpu_device *, u32))
{
	int ret = policy < 0 ? policy : set(vdev, policy);

	if (ret == -EOPNOTSUPP)
		drm_warn(&vdev->drm, "%s \"%s\" is not available yet, keeping the default\n",
			 what, name);
	else if (ret)
		drm_warn(&vdev->drm, "unknown %s \"%s\", keeping the default\n",
			 what, name);
}

/**
 * vgpu_paging_init() - set up the device's paging state
 * @vdev: vgpu device, its policies initialised (vgpu_policy_init())
 *
 * Applies the module parameters: the initial policies (an unknown or
 * unavailable name is reported and the default kept) and the chunk size
 * (a bad one is reported and replaced by 2 MiB).
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_paging_init(struct vgpu_device *vdev)
{
	struct vgpu_paging *pg = &vdev->paging;
	unsigned int kb = vgpu_chunk_size_kb;

	mutex_init(&pg->fault_lock);

	/* Every eviction and both placement policies are implemented. */
	vgpu_policy_set_supported(vdev, GENMASK(VGPU_EVICT_NR - 1, 0),
				  BIT(VGPU_PLACE_MIGRATE) | BIT(VGPU_PLACE_REMOTE));

	vgpu_paging_apply_param(vdev, "eviction_policy", vgpu_eviction_policy,
				vgpu_policy_evict_parse(vgpu_eviction_policy),
				vgpu_policy_set_evict);
	vgpu_paging_apply_param(vdev, "placement_policy", vgpu_placement_policy,
				vgpu_policy_place_parse(vgpu_placement_policy),
				vgpu_policy_set_place);
	if (!is_power_of_2(kb) || kb < SZ_64 || kb > SZ_64K) {
		drm_warn(&vdev->drm, "bad chunk_size_kb %u, using 2048\n", kb);
		kb = SZ_2K;
	}

	pg->chunk_shift = ilog2(kb) + 10;
	vgpu_prefetch_cfg_default(&pg->prefetch_cfg);
	vgpu_chunk_pins_init(vdev);
	return 0;
}

/**
 * vgpu_paging_fini() - free the paging state
 * @vdev: vgpu device, fault interrupt off
 */
void vgpu_paging_fini(struct vgpu_device *vdev)
{
	vgpu_chunk_pins_fini(vdev);
	mutex_destroy(&vdev->paging.fault_lock);
}

/* ----------------------------------------------------------- counters --- */

#define VGPU_PAGING_FIELD(field, id)					\
	VGPU_STATS_FIELD(struct drm_vgpu_paging_counters, field, id)

/* Every field of &struct drm_vgpu_paging_counters, and its counter. */
static const struct vgpu_stats_field vgpu_paging_stats[] = {
	VGPU_PAGING_FIELD(faults, FAULTS_HANDLED),
	VGPU_PAGING_FIELD(fault_batches, FAULT_BATCHES),
	VGPU_PAGING_FIELD(fault_duplicates, FAULT_DUPLICATES),
	VGPU_PAGING_FIELD(faults_resolved, FAULTS_RESOLVED),
	VGPU_PAGING_FIELD(faults_cancelled, FAULTS_CANCELLED),
	VGPU_PAGING_FIELD(bytes_to_vram, BYTES_TO_VRAM),
	VGPU_PAGING_FIELD(bytes_to_system, BYTES_TO_SYSTEM),
	VGPU_PAGING_FIELD(evictions, EVICTIONS),
	VGPU_PAGING_FIELD(remote_maps, REMOTE_MAPS),
	VGPU_PAGING_FIELD(thrash_events, THRASH_EVENTS),
	VGPU_PAGING_FIELD(prefetch_bytes, PREFETCH_BYTES),
	VGPU_PAGING_FIELD(prefetch_used_bytes, PREFETCH_USED_BYTES),
	VGPU_PAGING_FIELD(prefetch_wasted_bytes, PREFETCH_WASTED_BYTES),
	VGPU_PAGING_FIELD(fault_ns, FAULT_NS),
};

static_assert(ARRAY_SIZE(vgpu_paging_stats) * sizeof(__u64) ==
	      sizeof(struct drm_vgpu_paging_counters));

/**
 * vgpu_paging_query() - fill &struct drm_vgpu_query_paging
 * @vm: the VM whose counters are reported
 * @q: report, zeroed by the caller
 *
 * Bytes migrated and evictions are those of every move, TTM's whole-BO
 * moves included (per VM: of BOs and chunks mapped in the VM).  Each
 * counter is read atomically; the bank as a whole is not a consistent
 * snapshot while faults are handled.
 */
void vgpu_paging_query(struct vgpu_vm *vm, struct drm_vgpu_query_paging *q)
{
	struct vgpu_device *vdev = vm->vdev;

	strscpy(q->eviction_policy,
		vgpu_policy_evict_name(vgpu_policy_evict(vdev)) ?: "",
		sizeof(q->eviction_policy));
	strscpy(q->placement_policy,
		vgpu_policy_place_name(vgpu_policy_place(vdev)) ?: "",
		sizeof(q->placement_policy));
	q->chunk_size = 1ull << vdev->paging.chunk_shift;
	q->fault_batch_limit = vgpu_paging_fault_batch_limit();
	q->prefetch = READ_ONCE(vgpu_prefetch_enable);
	vgpu_stats_fill(&q->vm, vgpu_paging_stats,
			ARRAY_SIZE(vgpu_paging_stats), vdev, vm);
	vgpu_stats_fill(&q->device, vgpu_paging_stats,
			ARRAY_SIZE(vgpu_paging_stats), vdev, NULL);
}

/* ------------------------------------------------- PREFETCH / ADVISE --- */

/*
 * Checks a VA range argument; -EINVAL as for VM_BIND.  The range check is
 * written so that it cannot overflow.
 */
static bool vgpu_paging_bad_range(struct drm_device *drm, u64 va, u64 range)
{
	return VGPU_IOCTL_DBG(drm, !range) ||
	       VGPU_IOCTL_DBG(drm, !IS_ALIGNED(va | range, VGPU_PAGE_SIZE_4K)) ||
	       VGPU_IOCTL_DBG(drm, va < VGPU_VM_USER_START ||
			      va >= VGPU_VM_USER_END ||
			      range > VGPU_VM_USER_END - va);
}

static bool vgpu_paging_one_placement(u32 placement)
{
	return placement == DRM_VGPU_PLACE_VRAM ||
	       placement == DRM_VGPU_PLACE_SYSTEM;
}

/* Is every byte of [va, va + range) mapped?  Context: vm->lock held. */
static bool vgpu_paging_range_mapped(struct vgpu_vm *vm, u64 va, u64 range)
{
	struct drm_gpuva *gva;
	u64 cur = va, end = va + range;

	lockdep_assert_held(&vm->lock);
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va, end) {
		if (gva->va.addr > cur)
			return false;
		cur = max(cur, gva->va.addr + gva->va.range);
	}
	return cur >= end;
}

/*
 * Moves one BO into @placement, if it may live there.  Adds the bytes
 * moved to *@moved and those of a BO that may not to *@skipped.
 */
static int vgpu_paging_place_bo(struct vgpu_vm *vm, struct vgpu_bo *bo,
				u32 placement, u64 *moved, u64 *skipped)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	u32 mem_type = placement == DRM_VGPU_PLACE_VRAM ? TTM_PL_VRAM : TTM_PL_TT;
	struct ttm_buffer_object *tbo = &bo->tbo;
	struct ttm_placement pl = { .num_placement = 1 };
	struct ttm_place place;
	u64 size = tbo->base.size;
	unsigned int i;
	int ret;

	if (bo->chunks)
		return 0;	/* chunk by chunk: vgpu_chunk_place_range() */
	if (!(bo->placements & placement) || (bo->flags & VGPU_BO_KERNEL) ||
	    tbo->type == ttm_bo_type_sg) {
		*skipped += size;
		return 0;
	}
	for (i = 0; i < bo->placement.num_placement; i++)
		if (bo->places[i].mem_type == mem_type)
			break;
	if (WARN_ON(i == bo->placement.num_placement))
		return -EINVAL;
	place = bo->places[i];
	place.flags &= ~TTM_PL_FLAG_FALLBACK;
	pl.placement = &place;

	ret = dma_resv_lock_interruptible(tbo->base.resv, NULL);
	if (ret)
		return ret;
	if (tbo->pin_count) {
		*skipped += size;
	} else if (!tbo->resource || tbo->resource->mem_type != mem_type) {
		ret = ttm_bo_validate(tbo, &pl, &ctx);
		/* The move itself is counted by the TTM move path. */
		if (!ret)
			*moved += size;
	}
	dma_resv_unlock(tbo->base.resv);
	return ret;
}

/* Moves every BO mapped in [va, va + range).  Context: vm->lock held. */
static int vgpu_paging_place_range(struct vgpu_vm *vm, u64 va, u64 range,
				   u32 placement, u64 *moved, u64 *skipped)
{
	struct drm_gem_object *last = NULL;
	struct drm_gpuva *gva;
	int ret = 0;

	lockdep_assert_held(&vm->lock);
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va, va + range) {
		/* Consecutive mappings of one BO: move it once. */
		if (!gva->gem.obj || gva->gem.obj == last)
			continue;
		last = gva->gem.obj;
		ret = vgpu_paging_place_bo(vm, gem_to_vgpu_bo(gva->gem.obj),
					   placement, moved, skipped);
		if (ret)
			break;
	}
	return ret;
}

/**
 * vgpu_prefetch_ioctl() - DRM_IOCTL_VGPU_PREFETCH
 * @drm: DRM device
 * @data: &struct drm_vgpu_prefetch
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_prefetch.
 */
int vgpu_prefetch_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_vgpu_prefetch *args = data;
	u64 moved = 0, skipped = 0;
	struct vgpu_vm *vm;
	int ret;

	if (VGPU_IOCTL_DBG(drm, args->flags || args->pad) ||
	    VGPU_IOCTL_DBG(drm, !vgpu_paging_one_placement(args->placement)) ||
	    vgpu_paging_bad_range(drm, args->va, args->range))
		return -EINVAL;
	vm = vgpu_file_vm_get(file, args->vm_id);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	if (vgpu_vm_banned(vm)) {
		vgpu_file_vm_put(vm);
		return -ECANCELED;
	}

	down_read(&vm->lock);
	if (VGPU_IOCTL_DBG(drm, !vgpu_paging_range_mapped(vm, args->va,
							  args->range))) {
		ret = -ENOENT;
		goto out;
	}
	ret = vgpu_paging_place_range(vm, args->va, args->range,
				      args->placement, &moved, &skipped);
	vgpu_stats_add(vm->vdev, vm, VGPU_STAT_PREFETCH_BYTES, moved);
	/* Pageable memory counts its prefetched bytes itself. */
	if (!ret)
		ret = vgpu_chunk_place_range(vm, args->va, args->range,
					     args->placement, &moved);
	/* So do CPU-address mirrors. */
	if (!ret)
		ret = vgpu_svm_prefetch_range(vm, args->va, args->range,
					      args->placement, &moved);
out:
	up_read(&vm->lock);
	vgpu_file_vm_put(vm);
	args->bytes_moved = moved;
	args->bytes_skipped = skipped;
	return ret;
}

/* Records the hint of @args for its range (vgpu_advice.c). */
static int vgpu_paging_advice_set(struct vgpu_vm *vm,
				  const struct drm_vgpu_advise *args)
{
	u32 mask, bits = 0;

	switch (args->advice) {
	case DRM_VGPU_ADVICE_PREFERRED_PLACEMENT:
		mask = VGPU_ADVICE_PREF_SYSTEM | VGPU_ADVICE_PREF_VRAM;
		if (args->value == DRM_VGPU_PLACE_SYSTEM)
			bits = VGPU_ADVICE_PREF_SYSTEM;
		else if (args->value == DRM_VGPU_PLACE_VRAM)
			bits = VGPU_ADVICE_PREF_VRAM;
		break;
	case DRM_VGPU_ADVICE_READ_MOSTLY:
		mask = VGPU_ADVICE_READ_MOSTLY;
		bits = args->value ? mask : 0;
		break;
	default:
		mask = VGPU_ADVICE_ACCESSED_BY;
		bits = args->value & DRM_VGPU_ACCESSOR_GPU ? mask : 0;
		break;
	}
	return vgpu_advice_set(vm, args->va, args->range, mask, bits);
}

/**
 * vgpu_advise_ioctl() - DRM_IOCTL_VGPU_ADVISE
 * @drm: DRM device
 * @data: &struct drm_vgpu_advise
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_advise.
 */
int vgpu_advise_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct drm_vgpu_advise *args = data;
	u64 moved = 0, skipped = 0;
	struct vgpu_vm *vm;
	bool bad_value;
	int ret = 0;

	switch (args->advice) {
	case DRM_VGPU_ADVICE_PREFERRED_PLACEMENT:
		bad_value = args->value &&
			    (args->value > U32_MAX ||
			     !vgpu_paging_one_placement(args->value));
		break;
	case DRM_VGPU_ADVICE_READ_MOSTLY:
		bad_value = args->value > 1;
		break;
	case DRM_VGPU_ADVICE_ACCESSED_BY:
		bad_value = args->value & ~(u64)DRM_VGPU_ACCESSOR_GPU;
		break;
	default:
		drm_dbg_driver(drm, "ioctl check failed: unknown advice %u\n",
			       args->advice);
		return -EINVAL;
	}
	if (VGPU_IOCTL_DBG(drm, bad_value) ||
	    VGPU_IOCTL_DBG(drm, args->flags || args->pad) ||
	    vgpu_paging_bad_range(drm, args->va, args->range))
		return -EINVAL;
	vm = vgpu_file_vm_get(file, args->vm_id);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	if (vgpu_vm_banned(vm)) {
		vgpu_file_vm_put(vm);
		return -ECANCELED;
	}

	down_read(&vm->lock);
	if (VGPU_IOCTL_DBG(drm, !vgpu_paging_range_mapped(vm, args->va,
							  args->range))) {
		ret = -ENOENT;
		goto out;
	}
	/* The hint belongs to the range, whatever is mapped there. */
	ret = vgpu_paging_advice_set(vm, args);
	/* Ordinary BOs: a placement preference is acted on at once. */
	if (!ret && args->advice == DRM_VGPU_ADVICE_PREFERRED_PLACEMENT &&
	    args->value)
		ret = vgpu_paging_place_range(vm, args->va, args->range,
					      args->value, &moved, &skipped);
	/* Pageable memory acts on the hints of the ranges that map it. */
	if (!ret)
		ret = vgpu_chunk_advise_range(vm, args->va, args->range,
					      args->advice, args->value, &moved);
	/* CPU-address mirrors look it up per page, and move as BOs do. */
	if (!ret)
		ret = vgpu_svm_advise_range(vm, args->va, args->range,
					    args->advice, args->value, &moved);
out:
	up_read(&vm->lock);
	vgpu_file_vm_put(vm);
	return ret;
}
