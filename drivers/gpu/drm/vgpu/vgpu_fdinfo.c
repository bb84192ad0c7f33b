// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_tt.h>

#include "vgpu_bo.h"
#include "vgpu_chunk_types.h"
#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_fdinfo.h"
#include "vgpu_file.h"
#include "vgpu_job.h"
#include "vgpu_queue.h"
#include "vgpu_stats.h"
#include "vgpu_stream.h"
#include "vgpu_vm.h"

/**
 * DOC: fdinfo
 *
 * ``/proc/<pid>/fdinfo/<fd>`` of an open render node shows what that file
 * (one client, with its default GPU VM and those it created) uses, in the
 * keys of
 * Documentation/gpu/drm-usage-stats.rst:
 *
 * - ``drm-driver``, ``drm-client-id``, ``drm-pdev``: from the DRM core.
 * - ``drm-total-<region>``, ``drm-shared-<region>``, ``drm-active-<region>``,
 *   ``drm-resident-<region>``, ``drm-purgeable-<region>`` for the regions
 *   ``vram`` and ``system``: the client's BOs (those it holds a handle to)
 *   by their current placement, printed by drm_print_memory_stats().  A BO
 *   counts where its memory is now; one swapped out by TTM counts in
 *   ``system`` but not as resident.  A pageable BO counts in ``system``
 *   (its home pages) and its chunks now in VRAM count in ``vram`` too, as
 *   resident.  vgpu has no purgeable BOs.
 * - ``drm-engine-q<N>``: time the exec queue N spent on the client's jobs,
 *   in ns.  A job counts from the moment it was handed to the ring, or the
 *   end of the job before it on the same ring if later, until its fence
 *   signalled, so the times of all clients on a queue never add up to more
 *   than wall-clock time.
 * - ``drm-vgpu-modeled-time-q<N>``: modeled GPU time of the client's jobs
 *   on exec queue N (hardware.rst "Cost model"), in ns: the ring's
 *   modeled clock as each job ended, less its clock as the job before it
 *   ended (``FENCE_FLAG_CLOCK``; absent on a device without it).  A job
 *   the ring stopped in (timeout, bad command, cancelled fault) is
 *   charged its time until then; work a device reset interrupted is not
 *   charged.
 * - ``drm-vgpu-*``: memory-management counters of the client: GPU faults,
 *   bytes migrated each way and evictions of BOs mapped in its VM, thrash
 *   events, the paging code's counters (fault batches, duplicates,
 *   resolved and cancelled faults, remote mappings, prefetched bytes used
 *   and wasted, fault-handling time), its VMs' TLB counters (hits, misses,
 *   walks), mappings and page-table memory, jobs.  Every figure is the sum
 *   over the file's VMs, and the counters keep what destroyed VMs counted,
 *   so that they never go back (the counters are the lines of the
 *   counter registry with an fdinfo key); ``drm-vgpu-vm-state`` and
 *   ``drm-vgpu-context`` describe the default VM, ``drm-vgpu-vms`` and
 *   ``drm-vgpu-vms-banned`` count the VMs.
 *
 * Documentation/gpu/vgpu/user-guide.rst lists every key with its unit.
 */

/* fdinfo region of a TTM memory type, or -1 */
enum vgpu_fdinfo_region {
	VGPU_REGION_VRAM,
	VGPU_REGION_SYSTEM,
	VGPU_REGION_NR,
};

static const char *const vgpu_region_names[VGPU_REGION_NR] = {
	[VGPU_REGION_VRAM] = "vram",
	[VGPU_REGION_SYSTEM] = "system",
};

static void vgpu_fdinfo_add(struct ttm_buffer_object *tbo,
			    struct drm_memory_stats *s, u64 size, bool resident)
{
	if (drm_gem_object_is_shared_for_memory_stats(&tbo->base))
		s->shared += size;
	else
		s->private += size;
	if (resident)
		s->resident += size;
	if (!dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		s->active += size;
}

static void vgpu_fdinfo_bo(struct ttm_buffer_object *tbo,
			   struct drm_memory_stats *stats)
{
	struct vgpu_bo_chunks *chunks = to_vgpu_bo(tbo)->chunks;
	struct ttm_resource *res = tbo->resource;
	struct drm_memory_stats *s;
	bool resident;
	u64 size = tbo->base.size;

	dma_resv_assert_held(tbo->base.resv);
	if (res && res->mem_type == TTM_PL_VRAM) {
		s = &stats[VGPU_REGION_VRAM];
		resident = true;
	} else {
		s = &stats[VGPU_REGION_SYSTEM];
		resident = res && tbo->ttm && ttm_tt_is_populated(tbo->ttm);
	}

	vgpu_fdinfo_add(tbo, s, size, resident);

	/* A pageable BO's VRAM copies, beside its pages at home. */
	if (chunks && atomic_read(&chunks->resident))
		vgpu_fdinfo_add(tbo, &stats[VGPU_REGION_VRAM],
				(u64)atomic_read(&chunks->resident) <<
				to_vgpu(tbo->base.dev)->paging.chunk_shift,
				true);
}

/* Like drm_show_memory_stats(), but per placement and under each BO's resv. */
static void vgpu_fdinfo_memory(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats stats[VGPU_REGION_NR] = {};
	struct drm_gem_object *obj;
	int id, r;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct ttm_buffer_object *tbo = &gem_to_vgpu_bo(obj)->tbo;

		if (dma_resv_trylock(obj->resv)) {
			vgpu_fdinfo_bo(tbo, stats);
			dma_resv_unlock(obj->resv);
			continue;
		}
		/* Contended: sleep for the lock outside the table lock. */
		drm_gem_object_get(obj);
		spin_unlock(&file->table_lock);
		if (!dma_resv_lock_interruptible(obj->resv, NULL)) {
			vgpu_fdinfo_bo(tbo, stats);
			dma_resv_unlock(obj->resv);
		}
		drm_gem_object_put(obj);
		spin_lock(&file->table_lock);
	}
	spin_unlock(&file->table_lock);

	for (r = 0; r < VGPU_REGION_NR; r++)
		drm_print_memory_stats(p, &stats[r],
				       DRM_GEM_OBJECT_RESIDENT |
				       DRM_GEM_OBJECT_PURGEABLE,
				       vgpu_region_names[r]);
}

/**
 * struct vgpu_fdinfo_sum - what fdinfo prints for a file's VMs
 * @t: cumulative counters, of the destroyed VMs too.
 * @vms: VMs of the file.
 * @banned: those banned.
 * @mappings: live GPU mappings.
 * @mapped: bytes of VA mapped.
 * @pt_pages: page-table pages.
 * @stream: bytes of the stream buffers.
 */
struct vgpu_fdinfo_sum {
	struct vgpu_stats_client t;
	u64 vms;
	u64 banned;
	u64 mappings;
	u64 mapped;
	u64 pt_pages;
	u64 stream;
};

/* Adds what a live VM holds now and its counters to @s. */
static void vgpu_fdinfo_vm_add(struct vgpu_fdinfo_sum *s, struct vgpu_vm *vm)
{
	u64 mappings, mapped;

	vgpu_stats_client_add(&s->t, vm);
	s->vms++;
	s->banned += vgpu_vm_banned(vm);
	vgpu_vm_count_mappings(vm, &mappings, &mapped);
	s->mappings += mappings;
	s->mapped += mapped;
	mutex_lock(&vm->pt_lock);
	s->pt_pages += vm->pt_stats.tables;
	mutex_unlock(&vm->pt_lock);
	s->stream += vgpu_stream_pinned(vm);
}

static void vgpu_fdinfo_engines(struct drm_printer *p, struct vgpu_device *vdev,
				const struct vgpu_stats_client *t)
{
	u32 i;

	for (i = 0; i < vgpu_exec_queues(vdev); i++) {
		struct vgpu_queue *q = vgpu_exec_queue(vdev, i);

		drm_printf(p, "drm-engine-q%u:\t%llu ns\n", i,
			   t->engine_ns[q->id]);
	}
	if (!(vdev->caps & VGPU_CAPS_FENCE_CLOCK))
		return;
	for (i = 0; i < vgpu_exec_queues(vdev); i++) {
		struct vgpu_queue *q = vgpu_exec_queue(vdev, i);

		drm_printf(p, "drm-vgpu-modeled-time-q%u:\t%llu ns\n", i,
			   t->modeled_ns[q->id]);
	}
}

/* @def: the file's default VM, for the keys that describe one VM. */
static void vgpu_fdinfo_vms(struct drm_printer *p, struct vgpu_vm *def,
			    const struct vgpu_fdinfo_sum *s)
{
	int hw_ctx;

	mutex_lock(&def->vdev->ctx.lock);
	hw_ctx = def->hw_ctx;
	mutex_unlock(&def->vdev->ctx.lock);

	drm_printf(p, "drm-vgpu-vm-state:\t%s\n",
		   vgpu_vm_banned(def) ? "banned" : "ok");
	drm_printf(p, "drm-vgpu-context:\t%d\n", hw_ctx);
	drm_printf(p, "drm-vgpu-vms:\t%llu\n", s->vms);
	drm_printf(p, "drm-vgpu-vms-banned:\t%llu\n", s->banned);
	drm_printf(p, "drm-vgpu-mappings:\t%llu\n", s->mappings);
	drm_printf(p, "drm-vgpu-mapped-bytes:\t%llu\n", s->mapped);
	drm_printf(p, "drm-vgpu-pt-bytes:\t%llu\n", s->pt_pages * VGPU_PT_SIZE);
	drm_printf(p, "drm-vgpu-stream-bytes:\t%llu\n", s->stream);
	vgpu_stats_fdinfo_show(p, &s->t);
}

/**
 * vgpu_show_fdinfo() - &drm_driver.show_fdinfo
 * @p: printer into the fdinfo file
 * @file: DRM file
 *
 * The VM figures are sums over the file's VMs; the counters include
 * those of the VMs it destroyed (&vgpu_file.retired).
 *
 * Context: process, inside drm_dev_enter() (drm_show_fdinfo()).
 */
void vgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(file->minor->dev);
	struct vgpu_file *vfile = file->driver_priv;
	struct vgpu_fdinfo_sum *s;
	struct vgpu_vm *vm, *def;
	unsigned long id;

	vgpu_fdinfo_memory(p, file);
	if (!vfile)
		return;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	/* The lock keeps every VM in the xarray alive (VM_DESTROY). */
	mutex_lock(&vfile->lock);
	memcpy(&s->t, &vfile->retired, sizeof(s->t));
	xa_for_each(&vfile->vms, id, vm)
		vgpu_fdinfo_vm_add(s, vm);
	def = xa_load(&vfile->vms, 0);
	if (def) {
		vgpu_fdinfo_engines(p, vdev, &s->t);
		vgpu_fdinfo_vms(p, def, s);
	}
	mutex_unlock(&vfile->lock);
	kfree(s);
}

/**
 * vgpu_fdinfo_engine_charge() - add a job's run time on a queue to its VM
 * @q: the hardware queue
 * @vm: the job's VM
 * @start_ns: when the job was written to the ring
 * @end_ns: when its hardware fence signalled
 *
 * On a shared ring a job may wait for the one before it, so its time
 * counts from that job's end if later.  Charged before the fence signals,
 * so ``drm-engine-q<N>`` already includes a job whose fence a waiter sees.
 *
 * Context: any; caller holds @q->fence_lock (the order of completion).
 */
void vgpu_fdinfo_engine_charge(struct vgpu_queue *q, struct vgpu_vm *vm,
			       u64 start_ns, u64 end_ns)
{
	lockdep_assert_held(&q->fence_lock);
	start_ns = max(start_ns, q->busy_until);
	if (end_ns > start_ns)
		atomic64_add(end_ns - start_ns, &vm->engine_ns[q->id]);
	q->busy_until = max(end_ns, q->busy_until);
}

/**
 * vgpu_fdinfo_modeled_charge() - add a job's modeled time on a queue to its VM
 * @q: the hardware queue
 * @vm: the job's VM
 * @clock: the queue's modeled clock as the job ended
 *
 * A ring runs its jobs one after the other and its clock moves only while
 * it works, so a job's modeled time is the clock's advance since the end
 * of the job before it: what ``drm-vgpu-modeled-time-q<N>`` and
 * &drm_vgpu_query_time.vm_queue_ns add up.
 *
 * Context: any; caller holds @q->fence_lock (the order of completion).
 */
void vgpu_fdinfo_modeled_charge(struct vgpu_queue *q, struct vgpu_vm *vm,
				u64 clock)
{
	lockdep_assert_held(&q->fence_lock);
	if (clock > q->clock_until)
		atomic64_add(clock - q->clock_until, &vm->modeled_ns[q->id]);
	q->clock_until = max(clock, q->clock_until);
}

/**
 * vgpu_fdinfo_account_move() - charge a BO move to the VMs that map the BO
 * @tbo: the BO, reserved
 * @evict: the move was an eviction
 * @old_type: memory type the data came from, or -1 if there was none
 * @new_type: memory type of the new resource
 *
 * Feeds ``drm-vgpu-migrated-to-*`` and ``drm-vgpu-evictions``.  Moves of a
 * BO no VM maps are counted only device-wide.
 */
void vgpu_fdinfo_account_move(struct ttm_buffer_object *tbo, bool evict,
			      int old_type, u32 new_type)
{
	struct vgpu_bo *bo = to_vgpu_bo(tbo);
	struct drm_gem_object *obj = &tbo->base;
	struct drm_gpuvm_bo *vm_bo;
	bool to_sys, to_vram;

	to_sys = old_type == TTM_PL_VRAM && new_type != TTM_PL_VRAM;
	to_vram = old_type >= 0 && old_type != TTM_PL_VRAM &&
		  new_type == TTM_PL_VRAM;
	if (!to_sys && !to_vram)
		return;

	dma_resv_assert_held(obj->resv);
	mutex_lock(&bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		struct vgpu_vm *vm = to_vgpu_vm(vm_bo->vm);

		if (to_vram) {
			vgpu_stats_vm_add(vm, VGPU_STAT_BYTES_TO_VRAM, obj->size);
			continue;
		}
		vgpu_stats_vm_add(vm, VGPU_STAT_BYTES_TO_SYSTEM, obj->size);
		if (evict)
			vgpu_stats_vm_add(vm, VGPU_STAT_EVICTIONS, 1);
	}
	mutex_unlock(&bo->gpuva_lock);
}
