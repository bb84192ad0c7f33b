// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-resv.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_tt.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
#include "vgpu_chunk.h"
#include "vgpu_drv.h"
#include "vgpu_migrate.h"
#include "vgpu_paging.h"
#include "vgpu_policy.h"
#include "vgpu_pool.h"
#include "vgpu_prefetch.h"
#include "vgpu_pt.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: Pageable BOs and chunk migration
 *
 * A BO created with %DRM_VGPU_BO_PAGEABLE is an ordinary TTM BO whose only
 * placement is %TTM_PL_TT: its *home* is system memory, which TTM may
 * swap out like any TT BO.  Its size is a multiple of the chunk size
 * (``vgpu.chunk_size_kb``) and it carries a chunk table
 * (&struct vgpu_bo_chunks).  Each chunk may additionally have a *VRAM
 * copy*: one naturally aligned buddy block of the chunk size from the
 * VRAM manager (vgpu_vram_mgr_alloc_chunk()), so that a 2 MiB chunk is
 * one 2 MiB leaf and one device access counter.  A VRAM copy is a unit of
 * the VRAM pool (kind %VGPU_POOL_CHUNK): it competes for VRAM with
 * ordinary BOs under the one eviction order.
 *
 * VM_BIND of a pageable BO writes no page-table entry.  The GPU's first
 * access to a chunk through a mapping faults; the fault thread
 * (vgpu_fault.c) resolves it with vgpu_chunk_fault():
 *
 * - **migrate** (placement policy ``migrate``): allocate the VRAM copy,
 *   evicting the pool's coldest units when VRAM is full (other chunks, or
 *   idle ordinary BOs, which TTM moves to system memory with their
 *   contents); remove every mapping of the system pages first — the CPU's, and
 *   the GPU's in every VM and at every VA (remote mappings, ACCESSED_BY),
 *   TLBs included — so that no write can land behind the copy; copy the
 *   chunk in with the device's copy engine; and map it in the faulting VM
 *   (a 2 MiB leaf when the VA is aligned).  Other mappings fault and map
 *   the VRAM copy.  The copy is
 *   mapped read-only unless the fault was a write or the mapping was
 *   already written: a chunk nobody wrote is *clean* and its eviction
 *   costs no copy back (a later write faults with WRITE_DENIED and only
 *   upgrades the entry, which needs no TLB invalidation);
 * - **map remote** (policy ``remote``, a chunk pinned by the thrashing
 *   detector, a chunk advised to prefer system memory, or VRAM that
 *   cannot be found): map the chunk's system pages;
 * - a chunk already in VRAM (brought in by prefetch or by a fault of
 *   another VM, or whose entries were dropped) is just mapped again.
 *
 * After a migration the VM's stream detector (vgpu_prefetch.c) may
 * suggest chunks ahead of the fault, which are migrated and mapped in the
 * same pass.
 *
 * **Eviction** of a chunk (vgpu_chunk_evict_locked()) first removes its
 * entries from every VM that maps it and waits for the TLB invalidation,
 * so the GPU can no longer reach the VRAM copy; then copies a dirty copy
 * back to the system pages; then frees the VRAM; then, for a chunk
 * advised ACCESSED_BY the GPU, maps the system pages in its place (the
 * next access does not fault).  Nothing is ever dropped: the system pages
 * always hold the data of a chunk without a dirty VRAM copy.
 *
 * **CPU access** keeps one coherent view: when a chunk moves into VRAM
 * its CPU mappings are zapped, and a CPU fault on a pageable BO first
 * evicts the one chunk it touched (vgpu_chunk_cpu_fault()) and maps
 * pages of that chunk only.  The other chunks stay where they are.
 */

/**
 * DOC: Demand paging: locking
 *
 * The locks of the paging code, outermost first, and who takes them:
 *
 * 1. &vgpu_paging.fault_lock: the fault thread, for a whole drain.
 * 2. &vgpu_vm.lock, read: the fault thread and PREFETCH / ADVISE, while
 *    they look mappings up and write page tables for them; VM_BIND holds
 *    it for writing, so a mapping cannot go while its fault is resolved.
 * 3. The pageable BO's reservation (dma_resv), one BO at a time, taken
 *    without a ww ticket: it keeps the BO's system pages in place while
 *    they are populated (swapped in) and copied.  The CPU fault handler
 *    comes here with mmap_lock held, as for every TTM BO.
 * 4. &vgpu_pool.lock, the VRAM pool's lock ("The VRAM pool"): every
 *    chunk table, the eviction order of every unit (chunks and ordinary
 *    BOs), the prefetch detectors, the access-counter registers.  Held
 *    across a chunk's whole migration or eviction, copies included, and
 *    across the evictions that make room for it.
 * 5. The *victim's* &vgpu_bo.gpuva_lock, then each &vgpu_vm.pt_lock it
 *    maps into, then &vgpu_ctx_mgr.lock and &vgpu_tlb.lock (TLB
 *    invalidation); &vgpu_migrate.lock for the copy engine, which waits
 *    for a job on the kernel queue (signalled from the general interrupt,
 *    never from the fault thread).  An ordinary BO the pool evicts is
 *    reserved by trylock only, at this level.
 *
 * What makes eviction inside fault handling safe — the classic TTM
 * deadlock is taking a victim's reservation while holding another:
 *
 * - Evicting a chunk never takes its BO's reservation.  The victim's
 *   system pages cannot move under the copy because TTM must not move or
 *   swap a pageable BO while it has a VRAM chunk:
 *   vgpu_eviction_valuable() says no while &vgpu_bo_chunks.resident is
 *   non-zero, and that count only rises under the BO's reservation
 *   (level 3).  A BO being freed takes level 4 before it drops its chunks,
 *   so a victim is alive while &vgpu_pool.lock is held.
 * - Evicting an ordinary BO takes its reservation by trylock and gives up
 *   on a BO whose fences have not signalled (vgpu_bo_pool.c): the fault
 *   thread never waits for a job, nor for a reservation.
 * - Nothing takes &vgpu_pool.lock under a gpuva lock, a page-table lock
 *   or a reservation it did not take at level 3 or before; TTM's move
 *   notifier (vgpu_vm_bo_move()) only clears the page tables of a
 *   pageable BO.
 * - Page-table pages are reserved (which may allocate VRAM and make the
 *   pool evict) before a gpuva or page-table lock is taken.  The VRAM
 *   manager sees that the caller holds &vgpu_pool.lock and makes room
 *   without taking it again; the chunk being mapped was brought in by the
 *   current batch, so it is not a victim.
 * - TTM swapping out a busy pageable BO could wait, holding its
 *   reservation, for a job stalled on a fault that needs that
 *   reservation: vgpu_eviction_valuable() also refuses pageable BOs with
 *   unsignalled fences.
 *
 * Remaining wait-for cycle, bounded by the job timeout: an EXEC or
 * VM_BIND that holds a pageable BO's reservation while TTM, short of
 * system memory (the TT manager full), waits for a busy TT BO whose job
 * is stalled on a fault of that pageable BO.  TTM no longer evicts from
 * VRAM at all.
 */

static inline u64 vgpu_chunk_size(const struct vgpu_device *vdev)
{
	return 1ull << vdev->paging.chunk_shift;
}

static inline u64 vgpu_chunk_offset(const struct vgpu_device *vdev,
				    const struct vgpu_chunk *c)
{
	return (u64)c->index << vdev->paging.chunk_shift;
}

/* ------------------------------------------------------------ BO life --- */

static const struct vgpu_pool_unit_ops vgpu_chunk_unit_ops;

/**
 * vgpu_chunk_bo_init() - give a pageable BO its chunk table
 * @bo: new BO, size a multiple of the chunk size, not yet visible
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_chunk_bo_init(struct vgpu_bo *bo)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	u64 nr = bo->tbo.base.size >> vdev->paging.chunk_shift;
	struct vgpu_bo_chunks *t;
	u32 i;

	if (WARN_ON(!nr || nr > U32_MAX))
		return -EINVAL;
	t = kvzalloc(struct_size(t, chunk, nr), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->nr = nr;
	atomic_set(&t->resident, 0);
	for (i = 0; i < nr; i++) {
		vgpu_pool_unit_init(&t->chunk[i].unit, &vgpu_chunk_unit_ops);
		t->chunk[i].bo = bo;
		t->chunk[i].index = i;
	}
	bo->chunks = t;
	return 0;
}

/**
 * vgpu_chunk_bo_fini() - give back a pageable BO's VRAM
 * @bo: BO whose last reference went; no GPU mapping of it is left
 *
 * The contents are dropped.  The table itself is freed with the BO.
 */
void vgpu_chunk_bo_fini(struct vgpu_bo *bo)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	struct vgpu_pool *pool = &vdev->pool;
	struct vgpu_bo_chunks *t = bo->chunks;
	bool locked;
	u32 i;

	if (!t || !atomic_read(&t->resident))
		return;
	locked = vgpu_pool_lock_unless_held(pool);
	for (i = 0; i < t->nr; i++) {
		struct vgpu_chunk *c = &t->chunk[i];

		if (!c->block)
			continue;
		vgpu_pool_remove_locked(pool, &c->unit);
		vgpu_vram_mgr_free_chunk(vdev, c->block);
		c->block = NULL;
		atomic_dec(&t->resident);
	}
	if (locked)
		vgpu_pool_unlock(pool);
}

/**
 * vgpu_chunk_bo_busy() - may TTM move or swap this BO's system pages?
 * @bo: any BO
 *
 * Context: the BO reserved.
 * Return: true for a pageable BO with a chunk in VRAM (its pages are the
 * target of an eviction's copy back at any time) or with a job still
 * using it (that job may be stalled on a fault that needs the BO).
 */
bool vgpu_chunk_bo_busy(struct vgpu_bo *bo)
{
	if (!bo->chunks)
		return false;
	return atomic_read(&bo->chunks->resident) ||
	       !dma_resv_test_signaled(bo->tbo.base.resv, DMA_RESV_USAGE_BOOKKEEP);
}

/* ------------------------------------------------------ page tables --- */

/* The part of chunk @c a mapping covers: VA, size, offset in the BO. */
static bool vgpu_chunk_in_va(const struct vgpu_device *vdev,
			     const struct vgpu_chunk *c,
			     const struct drm_gpuva *gva,
			     u64 *va, u64 *size, u64 *bo_off)
{
	u64 cs = vgpu_chunk_offset(vdev, c), ce = cs + vgpu_chunk_size(vdev);
	u64 gs = gva->gem.offset, ge = gs + gva->va.range;
	u64 s = max(cs, gs), e = min(ce, ge);

	if (s >= e)
		return false;
	*va = gva->va.addr + (s - gs);
	*size = e - s;
	*bo_off = s;
	return true;
}

/*
 * Reserves page-table pages; when VRAM is full the VRAM manager evicts
 * the pool's coldest units (the pool lock is ours: it does not take it).
 */
static int vgpu_chunk_pt_reserve_locked(struct vgpu_vm *vm,
					struct vgpu_pt_update *up,
					unsigned int n)
{
	/* Evicting makes VRAM, not room under the VM's limit. */
	if (vgpu_vm_pt_over_limit(vm, up, n))
		return -ENOSPC;
	return vgpu_vm_pt_reserve(vm, up, n);
}

/*
 * Maps the part of chunk @c that mapping @gva covers: its VRAM copy, or
 * its system pages with @remote.  Replaces whatever was mapped there.
 */
static int vgpu_chunk_map_locked(struct vgpu_vm *vm, struct drm_gpuva *gva,
				 struct vgpu_chunk *c, bool remote,
				 bool writable, struct vgpu_chunk_fault *out)
{
	struct vgpu_vma *vma = container_of(gva, struct vgpu_vma, base);
	struct vgpu_device *vdev = vm->vdev;
	struct ttm_buffer_object *tbo = &c->bo->tbo;
	u64 va, size, off, flags = vma->pte_flags;
	struct vgpu_pt_update up;
	int ret = 0;

	lockdep_assert_held(&vdev->pool.lock);
	if (!vgpu_chunk_in_va(vdev, c, gva, &va, &size, &off))
		return -EINVAL;
	if (!remote) {
		/* A copy nobody writes stays clean: no copy back on eviction. */
		if (!writable && (flags & ~VGPU_PTE_WRITE))
			flags &= ~VGPU_PTE_WRITE;
		if (flags & VGPU_PTE_WRITE)
			c->flags |= VGPU_CHUNK_DIRTY;
	}

	vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
	ret = vgpu_chunk_pt_reserve_locked(vm, &up,
					   vgpu_pt_pages_for_map(va, size) +
					   vgpu_pt_pages_for_unmap(va, size));
	if (ret)
		return ret;
	mutex_lock(&vm->pt_lock);
	if (!vm->root) {
		ret = -ENOENT;
	} else {
		vgpu_pt_unmap(&up, vm->root, va, size);
		if (remote)
			ret = vgpu_pt_map(&up, vm->root, va, size, tbo,
					  tbo->resource, off, flags);
		else
			vgpu_pt_map_linear(&up, vm->root, va,
					   c->vram + off - vgpu_chunk_offset(vdev, c),
					   size, flags);
	}
	vgpu_vm_pt_commit_locked(vm, &up);
	mutex_unlock(&vm->pt_lock);
	if (!ret && out) {
		out->map_start = va;
		out->map_end = va + size;
		out->writable = flags & VGPU_PTE_WRITE;
	}
	return ret;
}

/*
 * Removes chunk @c from every VM that maps it, at every VA, and waits for
 * the TLBs.  With @evict, counts an eviction (and @bytes written back) in
 * each such VM.
 */
static void vgpu_chunk_unmap_all_locked(struct vgpu_device *vdev,
					struct vgpu_chunk *c, bool evict,
					u64 bytes)
{
	struct drm_gem_object *obj = &c->bo->tbo.base;
	struct drm_gpuvm_bo *vm_bo;

	lockdep_assert_held(&vdev->pool.lock);
	mutex_lock(&c->bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		struct vgpu_vm *vm = to_vgpu_vm(vm_bo->vm);
		struct vgpu_pt_update up;
		struct drm_gpuva *gva;
		bool counted = false;
		u64 va, size, off;

		vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
		mutex_lock(&vm->pt_lock);
		drm_gpuvm_bo_for_each_va(gva, vm_bo) {
			if (!vm->root || !vgpu_chunk_in_va(vdev, c, gva, &va, &size, &off))
				continue;
			/* Leaves never straddle chunks: nothing to split. */
			vgpu_pt_unmap(&up, vm->root, va, size);
			if (evict && !counted) {
				atomic64_inc(&vm->ctr.evictions);
				atomic64_inc(&vm->paging_ctr.evictions);
				atomic64_add(bytes, &vm->ctr.bytes_to_system);
				atomic64_add(bytes, &vm->paging_ctr.bytes_to_system);
				counted = true;
			}
		}
		vgpu_vm_pt_commit_locked(vm, &up);
		mutex_unlock(&vm->pt_lock);
	}
	mutex_unlock(&c->bo->gpuva_lock);
}

/* ACCESSED_BY: point every mapping of @c at its system pages again. */
static void vgpu_chunk_map_all_remote_locked(struct vgpu_device *vdev,
					     struct vgpu_chunk *c)
{
	struct ttm_buffer_object *tbo = &c->bo->tbo;
	struct drm_gpuvm_bo *vm_bo;
	unsigned int per, left;

	/* Reserved before the gpuva lock: reserving may evict BOs. */
	per = vgpu_pt_pages_for_map(SZ_4K, vgpu_chunk_size(vdev));
	left = 4 * per;
	if (vgpu_pt_pool_reserve(vdev, left))
		return;	/* the mappings fault again instead */

	mutex_lock(&c->bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, &tbo->base) {
		struct vgpu_vm *vm = to_vgpu_vm(vm_bo->vm);
		struct vgpu_vma *vma;
		struct vgpu_pt_update up;
		struct drm_gpuva *gva;
		u64 va, size, off;

		vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
		mutex_lock(&vm->pt_lock);
		drm_gpuvm_bo_for_each_va(gva, vm_bo) {
			if (!vm->root || left < per ||
			    !vgpu_chunk_in_va(vdev, c, gva, &va, &size, &off))
				continue;
			vma = container_of(gva, struct vgpu_vma, base);
			up.reserved += per;
			left -= per;
			if (!vgpu_pt_map(&up, vm->root, va, size, tbo,
					 tbo->resource, off, vma->pte_flags)) {
				atomic64_inc(&vm->paging_ctr.remote_maps);
				atomic64_inc(&vdev->paging.ctr.remote_maps);
			}
			left += up.reserved;
			up.reserved = 0;
		}
		vgpu_vm_pt_commit_locked(vm, &up);
		mutex_unlock(&vm->pt_lock);
	}
	mutex_unlock(&c->bo->gpuva_lock);
	vgpu_pt_pool_unreserve(vdev, left);
}

/* ------------------------------------------------ access sampling --- */

/* Sum of the device access counters of the VRAM behind @c (saturating). */
static u32 vgpu_chunk_read_ctr(struct vgpu_device *vdev, struct vgpu_chunk *c)
{
	return vgpu_pool_read_ctr(&vdev->pool, c->vram, vgpu_chunk_size(vdev));
}

/* A prefetched chunk the GPU used. */
static void vgpu_chunk_prefetch_used_locked(struct vgpu_device *vdev,
					    struct vgpu_chunk *c)
{
	if (!(c->flags & VGPU_CHUNK_PREFETCHED))
		return;
	c->flags &= ~VGPU_CHUNK_PREFETCHED;
	atomic64_add(vgpu_chunk_size(vdev), &vdev->paging.ctr.prefetch_used_bytes);
}

/**
 * vgpu_chunk_batch_begin() - start resolving a batch
 * @vdev: vgpu device
 *
 * Begins a batch of the VRAM pool (vgpu_pool_begin()): chunks brought in
 * from now on are protected from eviction until the next batch.
 */
void vgpu_chunk_batch_begin(struct vgpu_device *vdev)
{
	vgpu_pool_begin(&vdev->pool);
}

/* ------------------------------------------------ eviction, migration --- */

static int vgpu_chunk_evict_locked(struct vgpu_device *vdev,
				   struct vgpu_chunk *c)
{
	struct vgpu_paging *pg = &vdev->paging;
	u64 size = vgpu_chunk_size(vdev);
	bool dirty = c->flags & VGPU_CHUNK_DIRTY;
	int ret;

	lockdep_assert_held(&vdev->pool.lock);
	/* 1. The GPU can no longer reach the copy once the TLBs are clean. */
	vgpu_chunk_unmap_all_locked(vdev, c, true, dirty ? size : 0);
	/* 2. Its bytes go home. */
	if (dirty) {
		ret = vgpu_migrate_chunk(vdev, &c->bo->tbo,
					 vgpu_chunk_offset(vdev, c), size,
					 c->vram, false);
		if (ret) {
			/* Stays in VRAM, unmapped: the next fault maps it. */
			drm_err_ratelimited(&vdev->drm, "chunk eviction failed: %d\n", ret);
			return ret;
		}
		atomic64_add(size, &pg->ctr.bytes_to_system);
		atomic64_add(size, &vdev->stats.bytes_to_system);
	}
	if (c->flags & VGPU_CHUNK_PREFETCHED) {
		if (vgpu_chunk_read_ctr(vdev, c) != c->unit.ev.ctr_snap)
			vgpu_chunk_prefetch_used_locked(vdev, c);
		else
			atomic64_add(size, &pg->ctr.prefetch_wasted_bytes);
	}
	c->flags &= ~(VGPU_CHUNK_DIRTY | VGPU_CHUNK_PREFETCHED);
	/* 3. The VRAM goes back to the pool. */
	vgpu_pool_remove_locked(&vdev->pool, &c->unit);
	vgpu_vram_mgr_free_chunk(vdev, c->block);
	c->block = NULL;
	/*
	 * 4. ACCESSED_BY: the GPU keeps a mapping, now of system memory.
	 * After the free: the page tables it reserves may make the pool
	 * evict, and this chunk is no longer a candidate.  Before the count
	 * drops: TTM must not move the pages while they are being mapped.
	 */
	if (c->flags & VGPU_CHUNK_ACCESSED_BY)
		vgpu_chunk_map_all_remote_locked(vdev, c);
	atomic_dec(&c->bo->chunks->resident);
	atomic64_inc(&pg->ctr.evictions);
	atomic64_inc(&vdev->stats.evictions);
	return 0;
}

/* ------------------------------------------------ the chunk as a unit --- */

static struct vgpu_chunk *unit_to_chunk(struct vgpu_pool_unit *u)
{
	return container_of(u, struct vgpu_chunk, unit);
}

static u32 vgpu_chunk_unit_read_ctr(struct vgpu_pool_unit *u)
{
	struct vgpu_chunk *c = unit_to_chunk(u);

	return vgpu_chunk_read_ctr(to_vgpu(c->bo->tbo.base.dev), c);
}

static void vgpu_chunk_unit_used(struct vgpu_pool_unit *u)
{
	struct vgpu_chunk *c = unit_to_chunk(u);

	vgpu_chunk_prefetch_used_locked(to_vgpu(c->bo->tbo.base.dev), c);
}

static bool vgpu_chunk_unit_intersects(struct vgpu_pool_unit *u, u64 start,
				       u64 end)
{
	struct vgpu_chunk *c = unit_to_chunk(u);

	return c->vram < end && c->vram + u->size > start;
}

/* Takes no reservation: see "Demand paging: locking". */
static int vgpu_chunk_unit_evict(struct vgpu_pool_unit *u)
{
	struct vgpu_chunk *c = unit_to_chunk(u);

	return vgpu_chunk_evict_locked(to_vgpu(c->bo->tbo.base.dev), c);
}

static const struct vgpu_pool_unit_ops vgpu_chunk_unit_ops = {
	.kind = VGPU_POOL_CHUNK,
	.read_ctr = vgpu_chunk_unit_read_ctr,
	.used = vgpu_chunk_unit_used,
	.intersects = vgpu_chunk_unit_intersects,
	.evict = vgpu_chunk_unit_evict,
};

/*
 * Brings chunk @c into VRAM.  A fault's chunk counts as used now; a
 * prefetched one has to earn its history.
 *
 * Context: @c's BO reserved and populated, &vgpu_pool.lock held.
 */
static int vgpu_chunk_migrate_in_locked(struct vgpu_vm *vm,
					struct vgpu_chunk *c, bool prefetch)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_paging *pg = &vdev->paging;
	struct vgpu_pool *pool = &vdev->pool;
	struct ttm_buffer_object *tbo = &c->bo->tbo;
	u64 size = vgpu_chunk_size(vdev), off = vgpu_chunk_offset(vdev, c);
	struct gpu_buddy_block *block;
	u64 vram;
	int ret;

	dma_resv_assert_held(tbo->base.resv);
	lockdep_assert_held(&pool->lock);
	/* Evicts the pool's coldest units (chunks or BOs) while VRAM is full. */
	block = vgpu_vram_mgr_alloc_chunk(vdev, size, &vram);
	if (IS_ERR(block))
		return PTR_ERR(block);

	/*
	 * Nothing may write the system pages once the copy has begun: the
	 * CPU loses its mappings (a CPU fault needs the reservation we hold,
	 * and takes the data back), and so does every GPU mapping of them,
	 * in any VM and at any VA, TLBs included.  Only then copy.
	 */
	unmap_mapping_range(tbo->bdev->dev_mapping,
			    drm_vma_node_offset_addr(&tbo->base.vma_node) + off,
			    size, 1);
	vgpu_chunk_unmap_all_locked(vdev, c, false, 0);
	ret = vgpu_migrate_chunk(vdev, tbo, off, size, vram, true);
	if (ret) {
		vgpu_vram_mgr_free_chunk(vdev, block);
		return ret;
	}

	c->block = block;
	c->vram = vram;
	c->flags &= ~VGPU_CHUNK_DIRTY;
	atomic_inc(&c->bo->chunks->resident);
	/* A fault is a use; a prefetched chunk has to earn its history. */
	vgpu_pool_insert_locked(pool, &c->unit, size, !prefetch);
	/* The copy itself counted as accesses. */
	c->unit.ev.ctr_snap = vgpu_chunk_read_ctr(vdev, c);
	if (prefetch)
		c->flags |= VGPU_CHUNK_PREFETCHED;

	atomic64_add(size, &vm->paging_ctr.bytes_to_vram);
	atomic64_add(size, &vm->ctr.bytes_to_vram);
	atomic64_add(size, &pg->ctr.bytes_to_vram);
	atomic64_add(size, &vdev->stats.bytes_to_vram);
	if (prefetch) {
		atomic64_add(size, &vm->paging_ctr.prefetch_bytes);
		atomic64_add(size, &pg->ctr.prefetch_bytes);
	}
	return 0;
}

/* Brings a pageable BO's system pages back from swap if needed. */
static int vgpu_chunk_populate(struct vgpu_bo *bo)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	struct ttm_resource *res = bo->tbo.resource;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (res && res->mem_type == TTM_PL_TT && bo->tbo.ttm &&
	    ttm_tt_is_populated(bo->tbo.ttm))
		return 0;
	return ttm_bo_validate(&bo->tbo, &bo->placement, &ctx);
}

/* ---------------------------------------------------------- faults --- */

/* The pageable mapping at @va, or an ERR_PTR(). Context: vm->lock held. */
static struct drm_gpuva *vgpu_chunk_find_va(struct vgpu_vm *vm, u64 va,
					    u64 len, struct vgpu_bo **bo)
{
	struct drm_gpuva *gva;

	lockdep_assert_held(&vm->lock);
	gva = drm_gpuva_find_first(&vm->gpuvm, va, len);
	if (!gva || !gva->gem.obj)
		return ERR_PTR(-ENOENT);
	*bo = gem_to_vgpu_bo(gva->gem.obj);
	if (!(*bo)->chunks)
		return ERR_PTR(-EFAULT);	/* not fault-able memory */
	return gva;
}

static struct vgpu_chunk *vgpu_chunk_at(struct vgpu_device *vdev,
					struct drm_gpuva *gva,
					struct vgpu_bo *bo, u64 va)
{
	u64 off = gva->gem.offset + (max(va, gva->va.addr) - gva->va.addr);

	return &bo->chunks->chunk[off >> vdev->paging.chunk_shift];
}

static void vgpu_chunk_count_thrash(struct vgpu_vm *vm)
{
	atomic64_inc(&vm->paging_ctr.thrash_events);
	atomic64_inc(&vm->vdev->paging.ctr.thrash_events);
}

static int vgpu_chunk_resolve_locked(struct vgpu_vm *vm, struct drm_gpuva *gva,
				     struct vgpu_chunk *c,
				     struct vgpu_chunk_fault *f)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_paging *pg = &vdev->paging;
	bool write = f->access_mask & BIT(VGPU_ACCESS_WRITE);
	bool remote = vgpu_policy_place(vdev) == VGPU_PLACE_REMOTE ||
		      (c->flags & VGPU_CHUNK_PREF_SYSTEM);
	u64 now = ktime_get_ns();
	int ret;

	if (c->block) {
		/* In VRAM already: prefetched, another VM's, or upgraded. */
		vgpu_pool_touch_locked(&vdev->pool, &c->unit);
		/* Not a victim of the page tables its mapping may need. */
		c->unit.batch = vdev->pool.batch_seq;
		vgpu_chunk_prefetch_used_locked(vdev, c);
		f->res = VGPU_FAULT_RES_REBOUND;
		return vgpu_chunk_map_locked(vm, gva, c, false,
					     write || (c->flags & VGPU_CHUNK_DIRTY), f);
	}
	if (!remote && vgpu_thrash_pinned(&c->thrash, now)) {
		remote = true;
	} else if (!remote &&
		   vgpu_thrash_migrate_in(&c->thrash, &pg->prefetch_cfg, now)) {
		vgpu_chunk_count_thrash(vm);
		remote = true;
	}
	if (!remote) {
		ret = vgpu_chunk_migrate_in_locked(vm, c, false);
		if (!ret) {
			f->res = VGPU_FAULT_RES_MIGRATED;
			return vgpu_chunk_map_locked(vm, gva, c, false, write, f);
		}
		/* No VRAM to be had: serve the access from system memory. */
		if (ret != -ENOSPC && ret != -EOPNOTSUPP)
			return ret;
	}
	ret = vgpu_chunk_map_locked(vm, gva, c, true, true, f);
	if (!ret) {
		f->res = VGPU_FAULT_RES_MAPPED_SYSTEM;
		atomic64_inc(&vm->paging_ctr.remote_maps);
		atomic64_inc(&pg->ctr.remote_maps);
	}
	return ret;
}

/* Prefetch: bring the chunk at @va in and map it, if it is worth it. */
static int vgpu_chunk_prefetch_va(struct vgpu_vm *vm, u64 va, bool writable)
{
	struct vgpu_device *vdev = vm->vdev;
	struct drm_gpuva *gva;
	struct vgpu_chunk *c;
	struct vgpu_bo *bo;
	int ret;

	gva = vgpu_chunk_find_va(vm, va, vgpu_chunk_size(vdev), &bo);
	if (IS_ERR(gva))
		return 0;
	c = vgpu_chunk_at(vdev, gva, bo, va);
	ret = dma_resv_lock(bo->tbo.base.resv, NULL);
	if (ret)
		return ret;
	ret = vgpu_chunk_populate(bo);
	if (ret)
		goto out_unlock;
	vgpu_pool_lock(&vdev->pool);
	if (!c->block && !(c->flags & VGPU_CHUNK_PREF_SYSTEM) &&
	    !vgpu_thrash_pinned(&c->thrash, ktime_get_ns())) {
		ret = vgpu_chunk_migrate_in_locked(vm, c, true);
		if (!ret)
			ret = vgpu_chunk_map_locked(vm, gva, c, false,
						    writable &&
						    !(c->flags & VGPU_CHUNK_READ_MOSTLY),
						    NULL);
	}
	vgpu_pool_unlock(&vdev->pool);
out_unlock:
	dma_resv_unlock(bo->tbo.base.resv);
	return ret;
}

/**
 * vgpu_chunk_fault() - resolve a GPU fault on pageable memory
 * @vm: the faulting VM
 * @f: the faulting page; the outcome is written back into it
 *
 * Migrates or maps the chunk behind @f->va as the placement policy says,
 * then lets the VM's stream detector prefetch ahead.
 *
 * Context: the fault thread; takes the VM's lock (read), the BO's
 * reservation and &vgpu_pool.lock.  See "Demand paging: locking".
 * Return: 0 when the access can be replayed; -ENOENT (nothing mapped),
 * -EFAULT (not pageable memory, or a reason no mapping fixes), -EACCES
 * (the mapping does not allow the access), or an allocation or copy
 * error: the fault is then cancelled.
 */
int vgpu_chunk_fault(struct vgpu_vm *vm, struct vgpu_chunk_fault *f)
{
	static const u64 need[] = {
		[VGPU_ACCESS_READ] = VGPU_PTE_READ,
		[VGPU_ACCESS_WRITE] = VGPU_PTE_WRITE,
		[VGPU_ACCESS_EXEC] = VGPU_PTE_EXEC,
	};
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_paging *pg = &vdev->paging;
	u64 sugg[VGPU_PREFETCH_MAX_SUGGEST];
	struct drm_gpuva *gva;
	struct vgpu_chunk *c;
	struct vgpu_vma *vma;
	struct vgpu_bo *bo;
	unsigned int i, n = 0;
	int ret;

	if (f->reason != VGPU_FAULT_NOT_PRESENT &&
	    f->reason != VGPU_FAULT_WRITE_DENIED)
		return -EFAULT;

	down_read(&vm->lock);
	gva = vgpu_chunk_find_va(vm, f->va, SZ_4K, &bo);
	if (IS_ERR(gva)) {
		ret = PTR_ERR(gva);
		goto out;
	}
	vma = container_of(gva, struct vgpu_vma, base);
	for (i = 0; i < ARRAY_SIZE(need); i++) {
		if ((f->access_mask & BIT(i)) && !(vma->pte_flags & need[i])) {
			ret = -EACCES;
			goto out;
		}
	}
	c = vgpu_chunk_at(vdev, gva, bo, f->va);

	ret = dma_resv_lock(bo->tbo.base.resv, NULL);
	if (ret)
		goto out;
	ret = vgpu_chunk_populate(bo);
	if (!ret) {
		vgpu_pool_lock(&vdev->pool);
		ret = vgpu_chunk_resolve_locked(vm, gva, c, f);
		if (!ret && f->res != VGPU_FAULT_RES_MAPPED_SYSTEM &&
		    vgpu_paging_prefetch_enabled())
			n = vgpu_prefetch_fault(&vm->prefetch, &pg->prefetch_cfg,
						f->va >> pg->chunk_shift, sugg,
						ARRAY_SIZE(sugg));
		vgpu_pool_unlock(&vdev->pool);
	}
	dma_resv_unlock(bo->tbo.base.resv);

	/* One BO at a time: the fault's reservation is dropped. */
	for (i = 0; !ret && i < n; i++)
		if (vgpu_chunk_prefetch_va(vm, sugg[i] << pg->chunk_shift,
					   f->access_mask & BIT(VGPU_ACCESS_WRITE)))
			break;
out:
	up_read(&vm->lock);
	return ret;
}

/* ------------------------------------------------- PREFETCH / ADVISE --- */

/* Calls @fn for each chunk of pageable memory in [va, va + range). */
static int vgpu_chunk_for_each(struct vgpu_vm *vm, u64 va, u64 range,
			       int (*fn)(struct vgpu_vm *vm, struct drm_gpuva *gva,
					 struct vgpu_chunk *c, void *arg),
			       void *arg)
{
	struct vgpu_device *vdev = vm->vdev;
	struct drm_gpuva *gva;
	u64 end = va + range;
	int ret;

	lockdep_assert_held(&vm->lock);
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va, end) {
		struct vgpu_bo *bo;
		u64 cur, stop;

		if (!gva->gem.obj || !gem_to_vgpu_bo(gva->gem.obj)->chunks)
			continue;
		bo = gem_to_vgpu_bo(gva->gem.obj);
		cur = max(va, gva->va.addr);
		stop = min(end, gva->va.addr + gva->va.range);
		while (cur < stop) {
			struct vgpu_chunk *c = vgpu_chunk_at(vdev, gva, bo, cur);
			u64 next = gva->va.addr +
				   (vgpu_chunk_offset(vdev, c) + vgpu_chunk_size(vdev) -
				    gva->gem.offset);

			if (signal_pending(current))
				return -ERESTARTSYS;
			ret = dma_resv_lock_interruptible(bo->tbo.base.resv, NULL);
			if (ret)
				return ret;
			ret = vgpu_chunk_populate(bo);
			if (!ret) {
				vgpu_pool_lock(&vdev->pool);
				ret = fn(vm, gva, c, arg);
				vgpu_pool_unlock(&vdev->pool);
			}
			dma_resv_unlock(bo->tbo.base.resv);
			if (ret)
				return ret;
			cur = next;
		}
	}
	return 0;
}

struct vgpu_chunk_place_args {
	u32 placement;
	u64 moved;
};

static int vgpu_chunk_place_one(struct vgpu_vm *vm, struct drm_gpuva *gva,
				struct vgpu_chunk *c, void *arg)
{
	struct vgpu_chunk_place_args *a = arg;
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_vma *vma = container_of(gva, struct vgpu_vma, base);
	bool writable = (vma->pte_flags & VGPU_PTE_WRITE) &&
			!(c->flags & VGPU_CHUNK_READ_MOSTLY);
	int ret;

	if (a->placement == DRM_VGPU_PLACE_SYSTEM) {
		if (!c->block)
			return 0;
		ret = vgpu_chunk_evict_locked(vdev, c);
		if (!ret)
			a->moved += vgpu_chunk_size(vdev);
		return ret;
	}
	if (!c->block) {
		ret = vgpu_chunk_migrate_in_locked(vm, c, true);
		if (ret)
			return ret;
		a->moved += vgpu_chunk_size(vdev);
	} else {
		c->unit.batch = vdev->pool.batch_seq;
		writable |= c->flags & VGPU_CHUNK_DIRTY;
	}
	return vgpu_chunk_map_locked(vm, gva, c, false, writable, NULL);
}

/**
 * vgpu_chunk_place_range() - PREFETCH of the pageable memory in a range
 * @vm: the caller's VM, its lock held (read)
 * @va: start
 * @range: bytes
 * @placement: %DRM_VGPU_PLACE_VRAM or %DRM_VGPU_PLACE_SYSTEM
 * @moved: bytes moved are added here
 *
 * VRAM: every chunk is brought in (evicting colder ones, never those of
 * this call) and mapped, so the GPU does not fault on it.  System: every
 * VRAM chunk is evicted (written back if dirty) and unmapped.
 *
 * Return: 0, -ENOSPC when the range does not fit in VRAM (what moved
 * stays), -ERESTARTSYS on a signal, or another negative errno.
 */
int vgpu_chunk_place_range(struct vgpu_vm *vm, u64 va, u64 range,
			   u32 placement, u64 *moved)
{
	struct vgpu_chunk_place_args a = { .placement = placement };
	int ret;

	vgpu_chunk_batch_begin(vm->vdev);
	ret = vgpu_chunk_for_each(vm, va, range, vgpu_chunk_place_one, &a);
	*moved += a.moved;
	return ret;
}

struct vgpu_chunk_advise_args {
	u32 advice;
	u64 value;
	struct vgpu_chunk_place_args place;
};

static int vgpu_chunk_advise_one(struct vgpu_vm *vm, struct drm_gpuva *gva,
				 struct vgpu_chunk *c, void *arg)
{
	struct vgpu_chunk_advise_args *a = arg;

	switch (a->advice) {
	case DRM_VGPU_ADVICE_PREFERRED_PLACEMENT:
		c->flags &= ~(VGPU_CHUNK_PREF_SYSTEM | VGPU_CHUNK_PREF_VRAM);
		c->unit.flags &= ~VGPU_POOL_UNIT_KEEP;
		if (a->value == DRM_VGPU_PLACE_SYSTEM) {
			c->flags |= VGPU_CHUNK_PREF_SYSTEM;
		} else if (a->value == DRM_VGPU_PLACE_VRAM) {
			c->flags |= VGPU_CHUNK_PREF_VRAM;
			/* Evicted last. */
			c->unit.flags |= VGPU_POOL_UNIT_KEEP;
		}
		if (!a->value)
			return 0;
		/* Acted on at once, as by PREFETCH. */
		return vgpu_chunk_place_one(vm, gva, c, &a->place);
	case DRM_VGPU_ADVICE_READ_MOSTLY:
		if (a->value)
			c->flags |= VGPU_CHUNK_READ_MOSTLY;
		else
			c->flags &= ~VGPU_CHUNK_READ_MOSTLY;
		return 0;
	case DRM_VGPU_ADVICE_ACCESSED_BY:
		if (a->value & DRM_VGPU_ACCESSOR_GPU)
			c->flags |= VGPU_CHUNK_ACCESSED_BY;
		else
			c->flags &= ~VGPU_CHUNK_ACCESSED_BY;
		return 0;
	}
	return -EINVAL;
}

/**
 * vgpu_chunk_advise_range() - ADVISE for the pageable memory in a range
 * @vm: the caller's VM, its lock held (read)
 * @va: start
 * @range: bytes
 * @advice: ``DRM_VGPU_ADVICE_*``, checked by the caller
 * @value: its value, checked by the caller
 * @moved: bytes moved by a placement preference are added here
 *
 * Hints are kept per chunk of the memory behind the range:
 *
 * - PREFERRED_PLACEMENT system: the chunks leave VRAM now and faults map
 *   them remotely; VRAM: they come in now and are evicted last;
 * - READ_MOSTLY: prefetch maps the VRAM copy read-only, so it stays clean
 *   (eviction without copy back) until the GPU really writes;
 * - ACCESSED_BY GPU: an evicted chunk is mapped in system memory instead
 *   of being unmapped: the GPU never faults on it.
 *
 * Return: 0 or a negative errno, as vgpu_chunk_place_range().
 */
int vgpu_chunk_advise_range(struct vgpu_vm *vm, u64 va, u64 range,
			    u32 advice, u64 value, u64 *moved)
{
	struct vgpu_chunk_advise_args a = {
		.advice = advice, .value = value,
		.place.placement = value,
	};
	int ret;

	vgpu_chunk_batch_begin(vm->vdev);
	ret = vgpu_chunk_for_each(vm, va, range, vgpu_chunk_advise_one, &a);
	*moved += a.place.moved;
	return ret;
}

/**
 * vgpu_chunk_cpu_fault() - bring home the chunk the CPU touched
 * @bo: pageable BO, reserved
 * @page: page of @bo the CPU faulted on
 * @num_prefault: pages the caller may map from @page on; trimmed to the
 *	end of the chunk, since the next chunk may be in VRAM
 *
 * Only the touched chunk moves (written back if dirty, as an eviction):
 * afterwards its system pages hold every byte.  Chunks in VRAM keep no
 * CPU mapping (vgpu_chunk_migrate_in_locked() zaps it).
 *
 * Return: 0 or the error of a failed copy.
 */
int vgpu_chunk_cpu_fault(struct vgpu_bo *bo, pgoff_t page,
			 pgoff_t *num_prefault)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	unsigned int shift = vdev->paging.chunk_shift - PAGE_SHIFT;
	struct vgpu_bo_chunks *t = bo->chunks;
	struct vgpu_chunk *c;
	pgoff_t left;
	int ret = 0;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (!t || (page >> shift) >= t->nr)
		return 0;
	left = (((page >> shift) + 1) << shift) - page;
	*num_prefault = min(*num_prefault, left);
	if (!atomic_read(&t->resident))
		return 0;
	c = &t->chunk[page >> shift];
	vgpu_pool_lock(&vdev->pool);
	if (c->block)
		ret = vgpu_chunk_evict_locked(vdev, c);
	vgpu_pool_unlock(&vdev->pool);
	return ret;
}
