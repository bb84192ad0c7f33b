// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
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
#include "vgpu_chunk_state.h"
#include "vgpu_drv.h"
#include "vgpu_migrate.h"
#include "vgpu_paging.h"
#include "vgpu_policy.h"
#include "vgpu_pool.h"
#include "vgpu_prefetch.h"
#include "vgpu_pt.h"
#include "vgpu_stats.h"
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
 *   evicting the pool's coldest units when VRAM is full (other chunks,
 *   or idle ordinary BOs, which TTM moves to system memory with their
 *   contents; see below); remove every mapping of the system pages first — the CPU's, and the GPU's in every VM and
 *   at every VA (remote mappings, ACCESSED_BY), waiting for the TLB
 *   invalidation — so that no write can land behind the copy; queue the
 *   copy on the device's copy engine; and, once it is done, map it in the
 *   faulting VM (a 2 MiB leaf when the VA is aligned) with the mapping's
 *   permissions.  Other mappings fault and map the VRAM copy;
 * - **map remote** (policy ``remote``, a chunk pinned by the thrashing
 *   detector, a chunk advised to prefer system memory, or VRAM that
 *   cannot be found): map the chunk's system pages;
 * - a chunk already in VRAM (brought in by prefetch or by a fault of
 *   another VM, or whose entries were dropped) is just mapped again.
 *
 * After a migration the VM's stream detector (vgpu_prefetch.c) may
 * suggest chunks ahead of the fault, which are migrated in the same pass
 * and mapped with the fault's chunk.
 *
 * **A fault batch moves its chunks together.**  The fault thread
 * (vgpu_fault.c) resolves every fault of a batch first, with a
 * &struct vgpu_chunk_batch: each copy into VRAM is only queued in the
 * batch's copy-engine batch (see "copy
 * engine"), and &vgpu_chunk.copy holds the batch's fence; a fault whose
 * chunk is being copied is left for later (-EINPROGRESS).  Then
 * vgpu_chunk_batch_kick() submits the copies as one or few jobs, and the
 * fault thread goes on with the next batch; at the batch's completion
 * vgpu_chunk_batch_finish() waits for them once and maps the prefetched
 * chunks; and the faults left for later are resolved again, which maps
 * the new VRAM copies; then the stalled queues replay.  Until then the
 * batch's chunks are held in VRAM (vgpu_chunk_batch_hold()).  So the
 * page tables never point at a VRAM copy
 * before its copy is done: the order is unmap (and TLB invalidation),
 * copy, wait, map, replay.  The victims that make room for a batch's
 * copies are evicted into the batch too: each loses its leaves in every
 * VM, but the TLB invalidation is left to the batch; its copy back is
 * queued in the batch whatever its dirty bits say yet, and its block
 * *handed over* to the batch (&vgpu_chunk_batch.spare) instead of freed;
 * the batch's next copy into VRAM takes that block, and the copy engine
 * runs it after the copy back, in the order they were queued.  Before
 * any of the batch's copies becomes a job, the batch *settles* its
 * victims (vgpu_chunk_batch_settle_locked()): one TLB invalidation per
 * VM for all of them, waited for, a second look at their leaves for the
 * bits the device set meanwhile, and the copies back of those still
 * clean turned into NOPs.  So a batch of N victims waits for the TLB
 * once, not N times, and copies back only what the device wrote.  No
 * other allocation sees a handed-over block until
 * vgpu_chunk_batch_finish() frees what is left of them, after the wait.
 * Until its copy back ends, the victim is *copying home* and nobody
 * maps it.  PREFETCH and ADVISE batch their copies, and the evictions
 * that make room for them, the same way.
 *
 * While &vgpu_chunk.copy is set nobody else maps, copies or evicts it:
 * CPU faults, PREFETCH, ADVISE and the other mappings' faults wait for
 * the fence first (vgpu_chunk_copy_wait_locked()), and victims are never
 * chosen among such chunks.  The batch holds a reference to each such
 * chunk's BO, and its system pages stay put (the chunk counts in
 * &vgpu_bo_chunks.resident until the copy is done).  If a copy job fails
 * (-ENODEV after unplug, a job the device stopped; debugfs
 * ``fail_chunk_copies`` makes one fail), the chunk ends in system memory:
 * a failed copy in frees the VRAM copy, which nothing mapped yet, and the
 * fault is resolved again from the system pages; a failed copy back
 * leaves the system pages as they were, and the writes made in VRAM
 * since the chunk came in are lost.
 *
 * **Dirty** is what the device says: it sets DIRTY in a leaf it writes
 * through (hardware.rst "Walks, permissions, A/D bits").  A VRAM copy is
 * dirty once a leaf cleared from it had DIRTY, in any VM and at any VA:
 * every walk that clears leaves of pageable memory (a fault remapping
 * the chunk, VM_BIND unbinding it, a VM going away, the eviction itself)
 * hands them to vgpu_chunk_unmapped(), which marks the chunk.  The walker
 * clears those leaves with the device's exchange and takes the bits from
 * the old value, so none the device sets as the leaf goes is lost
 * (vgpu_pt.c, "page tables").  A chunk that is only read stays clean
 * however it is mapped, and a write needs no second fault.
 *
 * **Eviction** of a chunk (the event EVICT) first zaps its
 * entries in every VM that maps it and waits for the TLB invalidation,
 * so the GPU can no longer reach the VRAM copy; the device's dirty bits
 * are final only then (a walk that read a leaf before the zap still sets
 * its bits, and a TLB entry cached with DIRTY writes without setting it
 * again, but it was set when the entry was cached), so each VM's entries
 * are zapped a second time after the flush, for bits set in between
 * (for a batch's victims, once for the whole batch, see above).
 * Then a dirty copy is copied back to the system pages (waited for) and
 * a clean one is not; then the VRAM goes back to the pool; then, for a
 * chunk advised ACCESSED_BY the GPU, the system pages are mapped in its
 * place (the next access does not fault).  Nothing
 * is ever dropped: the system pages always hold the data of a chunk
 * without a dirty VRAM copy, because nothing but the GPU through the VRAM
 * copy's leaves can write the chunk while it is in VRAM (its CPU mappings
 * and system-memory GPU mappings were taken away before the copy in).
 * Copies that cannot even be made (no memory, pages the engine cannot
 * reach) leave a victim in VRAM, unmapped.  Unbinding a range while the
 * GPU still writes to it has no defined result: bits set after that walk
 * are not seen.
 *
 * **CPU access** keeps one coherent view: when a chunk moves into VRAM
 * its CPU mappings are zapped, and a CPU fault on a pageable BO first
 * waits for a copy of the chunk it touched, then evicts that one chunk
 * (vgpu_chunk_cpu_fault(), copying back through a batch it waits for) and
 * maps pages of that chunk only.  The other chunks stay where they are.
 *
 * **States.**  A chunk is *at home* (no VRAM copy; the CPU and remote GPU
 * mappings use the system pages), *copying* (&vgpu_chunk.copy set:
 * nobody maps it), *in VRAM* (the VRAM copy is the only valid one, dirty
 * or not, and nothing maps the system pages) or *duplicated*
 * (%VGPU_CHUNK_DUPLICATED: both copies hold the data).  Every change is
 * one transition of vgpu_chunk_transition_locked(), planned by
 * vgpu_chunk_plan() (see "The chunk state machine").
 *
 * **Read-mostly duplication** (ADVISE READ_MOSTLY, as CUDA's
 * cudaMemAdviseSetReadMostly).  A READ_MOSTLY chunk that the GPU reads
 * (a fault without WRITE in its records, or PREFETCH / a placement
 * advice to VRAM, or the stream detector's prefetch) is migrated in as
 * above, CPU and GPU mappings removed before the copy, but its system
 * pages stay valid: it is duplicated.  The GPU maps the VRAM copy
 * read-only in every VM, whatever its mapping allows; a CPU fault maps
 * the system pages read-only and leaves the VRAM copy alone.  Nothing
 * writes either copy, so an eviction finds it clean and copies nothing
 * back.  A write collapses the copies, and no write is lost:
 *
 * - a GPU write (a WRITE_DENIED fault on the read-only VRAM leaf, or a
 *   first access that writes) keeps the VRAM copy: the CPU's mappings are
 *   zapped first, under the BO's reservation so that no CPU fault maps
 *   them again meanwhile, then the VRAM copy is mapped writable (see
 *   "The chunk state machine"); other VMs' read-only leaves still point
 *   at the one copy and fault to become writable;
 * - a CPU write (a write fault, or a write through a read-only entry,
 *   which the core reports with ``pfn_mkwrite``, see vgpu_bo.c) drops the
 *   VRAM copy before the write: every GPU mapping is zapped and the TLBs
 *   invalidated, then the clean copy is freed, as an eviction without a
 *   copy back (vgpu_chunk_cpu_fault());
 * - clearing the advice keeps the VRAM copy, as a GPU write does.
 *
 * A CPU read of a READ_MOSTLY chunk that is in VRAM but not duplicated
 * (it was written) duplicates it back: every GPU mapping goes (TLBs
 * waited for), the VRAM copy is copied back if the device dirtied it, and
 * the CPU maps the system pages read-only; the GPU faults its mappings in
 * again, read-only.
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
 *    across the evictions that make room for it.  VM_BIND and a VM's
 *    teardown take it too, before the BO's gpuva lock, when they unmap
 *    pageable memory (the dirty bits they clear go to the chunks).
 * 5. The *victim's* &vgpu_bo.gpuva_lock, then each &vgpu_vm.pt_lock it
 *    maps into, then &vgpu_ctx_mgr.lock and &vgpu_tlb.lock (TLB
 *    invalidation); &vgpu_migrate.lock while a copy job is pushed to the
 *    kernel queue.  Copy fences are signalled from the general interrupt,
 *    never from the fault thread.  An ordinary BO the pool evicts is
 *    reserved by trylock only, at this level.
 * 6. &vgpu_pt_pool.xchg_lock, a spinlock, innermost: taken under a
 *    page-table lock by the walker for the three register accesses of
 *    one exchange of a live entry (vgpu_pt_pool_xchg()), nothing taken
 *    under it.  The DIRTY bits that decide a chunk's copy back come from
 *    those exchanges, so none the device sets is lost.
 *
 * Waiting for a chunk's copy: &vgpu_pool.lock is dropped for the wait
 * (levels 1 to 3 may stay held).  That is safe because the fault thread,
 * which owns the only batches left open for a while, submits its queued
 * copies before it sleeps on a VM's lock or a reservation, or populates a
 * BO (vgpu_chunk_batch_kick()), and submits them all at the end of a
 * batch's first half, before it goes on to the next batch (whose faults
 * may wait for them): a CPU fault waiting with a reservation
 * held never waits for copies that wait for that reservation.  Every
 * other path waits for its own copies before it lets go of
 * &vgpu_pool.lock.
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

/*
 * Gives chunk @c's VRAM copy back: out of the pool, the block freed, or
 * handed over to batch @cb, where a copy back of it is queued: only the
 * copies queued after it may reuse the block (vgpu_chunk_alloc_vram_locked()),
 * and vgpu_chunk_batch_finish() frees it after them.  The caller drops
 * &vgpu_bo_chunks.resident once the pages may move.
 */
static void vgpu_chunk_free_vram_locked(struct vgpu_device *vdev,
					struct vgpu_chunk *c,
					struct vgpu_chunk_batch *cb)
{
	lockdep_assert_held(&vdev->pool.lock);
	vgpu_pool_remove_locked(&vdev->pool, &c->unit);
	if (cb)
		list_add_tail(&c->block->link, &cb->spare);
	else
		vgpu_vram_mgr_free_chunk(vdev, c->block);
	c->block = NULL;
	c->flags &= ~VGPU_CHUNK_DUPLICATED;
}

/* Takes chunk @c's CPU mappings away (the next CPU access faults). */
static void vgpu_chunk_zap_cpu(struct vgpu_device *vdev, struct vgpu_chunk *c)
{
	struct ttm_buffer_object *tbo = &c->bo->tbo;

	unmap_mapping_range(tbo->bdev->dev_mapping,
			    drm_vma_node_offset_addr(&tbo->base.vma_node) +
			    vgpu_chunk_offset(vdev, c),
			    vgpu_chunk_size(vdev), 1);
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
		INIT_LIST_HEAD(&t->chunk[i].pinned);
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

	if (!t)
		return;
	locked = vgpu_pool_lock_unless_held(pool);
	for (i = 0; i < t->nr; i++) {
		struct vgpu_chunk *c = &t->chunk[i];

		list_del_init(&c->pinned);
		/* A batch with a copy of the chunk holds a reference. */
		WARN_ON_ONCE(c->copy);
		if (!c->block)
			continue;
		vgpu_chunk_free_vram_locked(vdev, c, NULL);
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
 * Maps the part of chunk @c that mapping @gva covers, with the mapping's
 * permissions: its VRAM copy, or its system pages with @remote.  Replaces
 * whatever was mapped there (the dirty bits of a VRAM copy it replaces
 * stay with the chunk).
 */
static int vgpu_chunk_map_locked(struct vgpu_vm *vm, struct drm_gpuva *gva,
				 struct vgpu_chunk *c, bool remote,
				 struct vgpu_chunk_fault *out)
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
	/* A duplicated chunk's copies stay equal: nobody writes either. */
	if (c->flags & VGPU_CHUNK_DUPLICATED)
		flags &= ~VGPU_PTE_WRITE;

	vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
	ret = vgpu_chunk_pt_reserve_locked(vm, &up,
					   vgpu_pt_pages_for_map(va, size) +
					   vgpu_pt_pages_for_unmap(va, size));
	if (ret)
		return ret;
	if (remote)
		ret = vgpu_vm_pt_remap(vm, &up, gva, va, size, tbo, off, flags);
	else
		ret = vgpu_vm_pt_remap(vm, &up, gva, va, size, NULL,
				       c->vram + off - vgpu_chunk_offset(vdev, c),
				       flags);
	if (!ret && out) {
		out->map_start = va;
		out->map_end = va + size;
		out->writable = flags & VGPU_PTE_WRITE;
	}
	return ret;
}

/* What vgpu_chunk_unmap_all_locked() is for. */
enum vgpu_chunk_unmap {
	VGPU_CHUNK_UNMAP,		/* a move that is no eviction */
	VGPU_CHUNK_UNMAP_EVICT,		/* an eviction */
	VGPU_CHUNK_UNMAP_EVICT_DEFER,	/* an eviction for a batch */
	VGPU_CHUNK_UNMAP_SETTLE,	/* its batch's invalidation is done */
};

/*
 * Removes chunk @c from every VM that maps it, at every VA, and waits for
 * the TLBs; the device's dirty bits are final then (vgpu_vm_pt_zap()).
 * For an eviction (@how), counts one in each such VM, and the bytes to
 * write back in each that wrote the copy (or all, for a copy already
 * dirty).  An eviction for a batch leaves the TLB invalidation to the
 * batch (vgpu_chunk_batch_settle_locked()), which then calls again to
 * settle: the second call finds what the device set in between.
 *
 * Return: whether the VRAM copy is dirty, as far as is known yet.
 */
static bool vgpu_chunk_unmap_all_locked(struct vgpu_device *vdev,
					struct vgpu_chunk *c,
					enum vgpu_chunk_unmap how)
{
	bool defer = how == VGPU_CHUNK_UNMAP_EVICT_DEFER;
	struct drm_gem_object *obj = &c->bo->tbo.base;
	bool was_dirty = c->flags & VGPU_CHUNK_DIRTY;
	u64 csize = vgpu_chunk_size(vdev);
	struct drm_gpuvm_bo *vm_bo;

	lockdep_assert_held(&vdev->pool.lock);
	mutex_lock(&c->bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		struct vgpu_vm *vm = to_vgpu_vm(vm_bo->vm);
		struct drm_gpuva *gva;
		bool mapped = false;
		u64 va, size, off, ad = 0;

		drm_gpuvm_bo_for_each_va(gva, vm_bo) {
			if (!vgpu_chunk_in_va(vdev, c, gva, &va, &size, &off))
				continue;
			mapped = true;
			/* Leaves never straddle chunks: nothing to split. */
			ad |= vgpu_vm_pt_zap(vm, gva, va, size, defer);
		}
		if (how != VGPU_CHUNK_UNMAP && mapped) {
			u64 bytes = was_dirty || (ad & VGPU_PTE_DIRTY) ? csize : 0;

			if (how != VGPU_CHUNK_UNMAP_SETTLE)
				vgpu_stats_vm_add(vm, VGPU_STAT_EVICTIONS, 1);
			vgpu_stats_vm_add(vm, VGPU_STAT_BYTES_TO_SYSTEM, bytes);
		}
	}
	mutex_unlock(&c->bo->gpuva_lock);
	return c->flags & VGPU_CHUNK_DIRTY;
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

		drm_gpuvm_bo_for_each_va(gva, vm_bo) {
			if (left < per ||
			    !vgpu_chunk_in_va(vdev, c, gva, &va, &size, &off))
				continue;
			vma = container_of(gva, struct vgpu_vma, base);
			/* What the batch does not use goes back with it. */
			vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
			up.reserved = per;
			left -= per;
			if (!vgpu_vm_pt_remap(vm, &up, gva, va, size, tbo, off,
					      vma->pte_flags)) {
				vgpu_stats_add(vdev, vm, VGPU_STAT_REMOTE_MAPS, 1);
			}
		}
	}
	mutex_unlock(&c->bo->gpuva_lock);
	vgpu_pt_pool_unreserve(vdev, left);
}

/* ------------------------------------------------ pinned chunks --- */

static enum vgpu_chunk_state vgpu_chunk_state(const struct vgpu_chunk *c);

/*
 * Lets the chunks whose thrashing pin ran out by @now come back: their
 * remote mappings go, so that the GPU's next access to one faults and
 * migrates it as any fault does; a chunk nobody uses any more stays at
 * home, unmapped, and costs nothing.
 */
static void vgpu_chunk_unpin_locked(struct vgpu_device *vdev, u64 now)
{
	struct vgpu_paging *pg = &vdev->paging;
	struct vgpu_chunk *c, *next;

	lockdep_assert_held(&vdev->pool.lock);
	list_for_each_entry_safe(c, next, &pg->pinned, pinned) {
		if (vgpu_thrash_pinned(&c->thrash, now))
			break;
		list_del_init(&c->pinned);
		/* Advised to stay in system memory: mapped there by choice. */
		if (vgpu_chunk_state(c) == VGPU_CHUNK_HOME &&
		    !(c->flags & VGPU_CHUNK_PREF_SYSTEM))
			vgpu_chunk_unmap_all_locked(vdev, c, VGPU_CHUNK_UNMAP);
		vgpu_stats_add(vdev, NULL, VGPU_STAT_THRASH_UNPINS, 1);
	}
}

static void vgpu_chunk_unpin_work(struct work_struct *work)
{
	struct vgpu_paging *pg = container_of(to_delayed_work(work),
					      struct vgpu_paging, unpin_work);
	struct vgpu_device *vdev = container_of(pg, struct vgpu_device, paging);
	struct vgpu_chunk *c;
	u64 now;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return;
	vgpu_pool_lock(&vdev->pool);
	now = vgpu_paging_clock(vdev);
	vgpu_chunk_unpin_locked(vdev, now);
	c = list_first_entry_or_null(&pg->pinned, struct vgpu_chunk, pinned);
	if (c)
		queue_delayed_work(system_wq, &pg->unpin_work,
				   nsecs_to_jiffies(c->thrash.pinned_until - now) + 1);
	vgpu_pool_unlock(&vdev->pool);
	drm_dev_exit(idx);
}

/**
 * vgpu_chunk_pins_init() - no chunk pinned yet
 * @vdev: vgpu device
 */
void vgpu_chunk_pins_init(struct vgpu_device *vdev)
{
	INIT_LIST_HEAD(&vdev->paging.pinned);
	INIT_DELAYED_WORK(&vdev->paging.unpin_work, vgpu_chunk_unpin_work);
}

/**
 * vgpu_chunk_pins_fini() - stop letting pinned chunks come back
 * @vdev: vgpu device, fault interrupt off
 *
 * Chunks may stay on the list until their BOs go.
 */
void vgpu_chunk_pins_fini(struct vgpu_device *vdev)
{
	cancel_delayed_work_sync(&vdev->paging.unpin_work);
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
	vgpu_stats_add(vdev, NULL, VGPU_STAT_PREFETCH_USED_BYTES, vgpu_chunk_size(vdev));
}

/**
 * vgpu_chunk_batch_begin() - start resolving a batch
 * @vdev: vgpu device
 *
 * Begins a batch of the VRAM pool (vgpu_pool_begin()): chunks brought in
 * from now on are protected from eviction until the next batch, or for
 * longer with vgpu_chunk_batch_hold().
 *
 * Return: the pool's number of the batch.
 */
u64 vgpu_chunk_batch_begin(struct vgpu_device *vdev)
{
	struct vgpu_pool *pool = &vdev->pool;
	u64 seq;

	vgpu_pool_lock(pool);
	/* On a device in deterministic mode, the only place they come back. */
	vgpu_chunk_unpin_locked(vdev, vgpu_paging_clock(vdev));
	vgpu_pool_begin_locked(pool);
	seq = pool->batch_seq;
	vgpu_pool_unlock(pool);
	return seq;
}

/**
 * vgpu_chunk_batch_hold() - keep the chunks of some batches in VRAM
 * @vdev: vgpu device
 * @seq: chunks brought in by the batch vgpu_chunk_batch_begin() numbered
 *	@seq, and by every later one, are no victims (0: none but the
 *	current batch's)
 *
 * For the fault thread, whose batches' copies run on while it reads the
 * next batch: a batch's chunks are mapped once its copies are done, and
 * must not be evicted before.
 */
void vgpu_chunk_batch_hold(struct vgpu_device *vdev, u64 seq)
{
	vgpu_pool_hold(&vdev->pool, seq);
}

/* ------------------------------------------------------------ copies --- */

/* Makes room for @need entries of @size bytes in the array at @p. */
static int vgpu_chunk_grow(void **p, unsigned int *max, unsigned int need,
			   size_t size)
{
	unsigned int n = max(16u, 2 * *max);
	void *a;

	if (need <= *max)
		return 0;
	a = krealloc_array(*p, n, size, GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	*p = a;
	*max = n;
	return 0;
}

/*
 * What a transition acts for: the VM and mapping that fault or prefetch
 * (the MAP steps map there), the fault thread's batch (copies in are
 * queued there, else waited for), the fault (its outcome is written
 * there) and whether the chunk comes in ahead of use; and what the CPU
 * may do with the pages.
 */
struct vgpu_chunk_act {
	struct vgpu_vm *vm;
	struct drm_gpuva *gva;
	struct vgpu_chunk_batch *cb;
	struct vgpu_chunk_fault *f;
	bool prefetch;
	bool read_only;		/* out: the CPU maps the pages read-only */
};

static int vgpu_chunk_transition_locked(struct vgpu_device *vdev,
					struct vgpu_chunk *c,
					enum vgpu_chunk_event ev, u32 in,
					struct vgpu_chunk_act *a);

/**
 * vgpu_chunk_batch_settle_locked() - finish the evictions a batch began
 * @cb: batch
 *
 * The batch's victims lost their mappings without a TLB invalidation
 * each, and each has its copy back queued in front of the copies that
 * reuse its block.  Before any of that runs: one invalidation per VM for
 * all of them, waited for (vgpu_vm_inval_flush()); then each victim's
 * leaves once more, for the dirty bits the device set through
 * translations it still cached; then the copies back of the victims that
 * stayed clean are cancelled.  A victim whose copy back was cut into a
 * job before this (the batch filled while it was queued) keeps it.
 *
 * Context: &vgpu_pool.lock held; sleeps (TLB invalidation).
 */
static void vgpu_chunk_batch_settle_locked(struct vgpu_chunk_batch *cb)
{
	struct vgpu_device *vdev = cb->copy.vdev;
	u64 size = vgpu_chunk_size(vdev);
	unsigned int i;

	lockdep_assert_held(&vdev->pool.lock);
	if (!cb->nr_victims)
		return;
	vgpu_vm_inval_flush(vdev);
	for (i = 0; i < cb->nr_victims; i++) {
		struct vgpu_chunk_victim *v = &cb->victims[i];
		struct vgpu_chunk *c = v->chunk;

		if (vgpu_chunk_unmap_all_locked(vdev, c, VGPU_CHUNK_UNMAP_SETTLE) ||
		    v->dirty || !v->end)
			vgpu_stats_add(vdev, NULL, VGPU_STAT_BYTES_TO_SYSTEM, size);
		else
			vgpu_migrate_batch_cancel(&cb->copy, v->start, v->end, size);
		c->flags &= ~(VGPU_CHUNK_DIRTY | VGPU_CHUNK_SETTLING);
	}
	cb->nr_victims = 0;
}

/* The batch is full: its victims settle before their copies become a job. */
static void vgpu_chunk_batch_before_job(struct vgpu_migrate_batch *b)
{
	vgpu_chunk_batch_settle_locked(container_of(b, struct vgpu_chunk_batch,
						    copy));
}

/* Settles @cb's victims and starts its copies.  Context: pool lock held. */
static void vgpu_chunk_batch_submit_locked(struct vgpu_chunk_batch *cb)
{
	vgpu_chunk_batch_settle_locked(cb);
	vgpu_migrate_batch_submit(&cb->copy);
}

/*
 * Ends chunk @c's copy once its fence has signalled.  A failed copy into
 * VRAM leaves the system pages authoritative and frees the VRAM copy; a
 * failed copy back leaves the system pages with what they held (the VRAM
 * copy is gone either way: see "Pageable BOs and chunk migration").
 */
static int vgpu_chunk_copy_done_locked(struct vgpu_device *vdev,
				       struct vgpu_chunk *c)
{
	struct dma_fence *f = c->copy;
	int err;

	lockdep_assert_held(&vdev->pool.lock);
	if (!f || !dma_fence_is_signaled(f))
		return 0;
	err = f->error;
	if (err)
		drm_err_ratelimited(&vdev->drm, "chunk copy %s failed: %d\n",
				    c->block ? "to VRAM" : "back", err);
	vgpu_chunk_transition_locked(vdev, c, err ? VGPU_CHUNK_EV_COPY_FAILED :
						    VGPU_CHUNK_EV_COPY_DONE,
				     0, NULL);
	return err;
}

/*
 * Waits until chunk @c has no copy running, and ends it.  A copy still
 * queued in the caller's own batch @cb is submitted first.  Drops and
 * retakes &vgpu_pool.lock: the caller looks at @c afresh afterwards.
 * Return: 0, or the error of a copy that failed (the chunk is at home).
 */
static int vgpu_chunk_copy_wait_locked(struct vgpu_device *vdev,
				       struct vgpu_chunk *c,
				       struct vgpu_chunk_batch *cb)
{
	struct vgpu_pool *pool = &vdev->pool;
	int err = 0;

	lockdep_assert_held(&pool->lock);
	while (c->copy) {
		struct dma_fence *f = dma_fence_get(c->copy);
		u64 start = ktime_get_ns();

		if (cb && vgpu_migrate_batch_owns(&cb->copy, f))
			vgpu_chunk_batch_submit_locked(cb);
		vgpu_pool_unlock(pool);
		dma_fence_wait(f, false);
		if (cb)
			cb->wait_ns += ktime_get_ns() - start;
		vgpu_pool_lock(pool);
		dma_fence_put(f);
		err = vgpu_chunk_copy_done_locked(vdev, c) ?: err;
	}
	return err;
}

/* Has @cb queued a copy of @c that may still run? */
static bool vgpu_chunk_batch_has(struct vgpu_chunk_batch *cb,
				 struct vgpu_chunk *c)
{
	return cb && c->copy && c->batch == cb->id;
}

/*
 * Copies chunk @c into VRAM at @vram (@to_vram), or its VRAM copy at
 * @vram back to its system pages.  With @cb the copy is queued in the
 * batch, @c->copy is its fence and the batch holds a reference to the
 * BO; without, the copy is done before this returns.
 *
 * Return: 0; -EOPNOTSUPP, -ENXIO or -ENOMEM and nothing copied; -EIO or
 * -ENODEV when the copy job failed.
 */
static int vgpu_chunk_copy_locked(struct vgpu_device *vdev,
				  struct vgpu_chunk *c,
				  struct vgpu_chunk_batch *cb, u64 vram,
				  bool to_vram)
{
	struct ttm_buffer_object *tbo = &c->bo->tbo;
	u64 size = vgpu_chunk_size(vdev), off = vgpu_chunk_offset(vdev, c);
	struct vgpu_migrate_batch local;
	int ret, err;

	lockdep_assert_held(&vdev->pool.lock);
	if (!cb) {
		vgpu_migrate_batch_init(&local, vdev);
		ret = vgpu_migrate_batch_add_chunk(&local, tbo, off, size, vram,
						   to_vram);
		/* Whatever was queued has to be done with. */
		err = vgpu_migrate_batch_wait(&local);
		vgpu_migrate_batch_fini(&local);
		return ret ?: err;
	}
	ret = vgpu_chunk_grow((void **)&cb->chunks, &cb->max_chunks,
			      cb->nr_chunks + 1, sizeof(*cb->chunks));
	if (!ret)
		ret = vgpu_migrate_batch_add_chunk(&cb->copy, tbo, off, size,
						   vram, to_vram);
	if (ret)
		return ret;
	c->copy = vgpu_migrate_batch_fence(&cb->copy);
	c->batch = cb->id;
	drm_gem_object_get(&tbo->base);
	cb->chunks[cb->nr_chunks++] = c;
	return 0;
}

/*
 * VGPU_CHUNK_DO_COPY_BACK for a victim of batch @cb, its mappings gone
 * but not its TLB entries: the copy back is queued whatever the dirty
 * bits say so far (@dirty), and cancelled when the batch settles if they
 * still say clean.
 */
static int vgpu_chunk_copy_back_deferred_locked(struct vgpu_device *vdev,
						struct vgpu_chunk *c,
						struct vgpu_chunk_batch *cb,
						bool dirty)
{
	struct vgpu_chunk_victim *v;
	int ret;

	ret = vgpu_chunk_grow((void **)&cb->victims, &cb->max_victims,
			      cb->nr_victims + 1, sizeof(*cb->victims));
	if (ret)
		return ret;
	cb->victims[cb->nr_victims++] = (struct vgpu_chunk_victim) {
		.chunk = c, .dirty = dirty,
		.start = vgpu_migrate_batch_pos(&cb->copy),
	};
	c->flags |= VGPU_CHUNK_SETTLING;
	ret = vgpu_chunk_copy_locked(vdev, c, cb, c->vram, false);
	/* Settled meanwhile (the batch filled): the copy back stays. */
	if (!cb->nr_victims || cb->victims[cb->nr_victims - 1].chunk != c)
		return ret;
	v = &cb->victims[cb->nr_victims - 1];
	if (!ret) {
		v->end = vgpu_migrate_batch_pos(&cb->copy);
		return 0;
	}
	cb->nr_victims--;
	c->flags &= ~VGPU_CHUNK_SETTLING;
	/* It stays in VRAM, unmapped: its bits must be final all the same. */
	vgpu_vm_inval_flush(vdev);
	vgpu_chunk_unmap_all_locked(vdev, c, VGPU_CHUNK_UNMAP);
	return ret;
}

/* ------------------------------------------------------ transitions --- */

/* Chunk @c's state (see "The chunk state machine"). */
static enum vgpu_chunk_state vgpu_chunk_state(const struct vgpu_chunk *c)
{
	bool dup = c->flags & VGPU_CHUNK_DUPLICATED;

	if (c->copy && !c->block)
		return VGPU_CHUNK_COPYING_HOME;
	if (c->copy)
		return dup ? VGPU_CHUNK_COPYING_DUP : VGPU_CHUNK_COPYING;
	if (c->block)
		return dup ? VGPU_CHUNK_DUP : VGPU_CHUNK_VRAM;
	return VGPU_CHUNK_HOME;
}

/*
 * The inputs of chunk @c's advice; the caller adds what the policy (or a
 * preferred placement, which PREFETCH overrides) says.
 */
static u32 vgpu_chunk_advice_in(const struct vgpu_chunk *c)
{
	u32 in = 0;

	if (c->flags & VGPU_CHUNK_READ_MOSTLY)
		in |= VGPU_CHUNK_IN_READ_MOSTLY;
	if (c->flags & VGPU_CHUNK_ACCESSED_BY)
		in |= VGPU_CHUNK_IN_ACCESSED_BY;
	return in;
}

/*
 * VGPU_CHUNK_DO_ALLOC: a chunk-sized VRAM block, at @vram.  A block a
 * victim of batch @cb handed over comes first: the copy into it is
 * queued after the victim's copy back.  Else the VRAM manager's, and
 * while VRAM is full the pool evicts its coldest unit (a chunk or an
 * ordinary BO); a chunk it evicts for @cb hands its block over to @cb.
 *
 * Return: the block, or an ERR_PTR(): -ENOSPC when nothing could be
 * evicted.
 */
static struct gpu_buddy_block *
vgpu_chunk_alloc_vram_locked(struct vgpu_device *vdev,
			     struct vgpu_chunk_batch *cb, u64 *vram)
{
	struct vgpu_pool *pool = &vdev->pool;
	struct gpu_buddy_block *block;
	int ret;

	lockdep_assert_held(&pool->lock);
	for (;;) {
		if (cb && !list_empty(&cb->spare)) {
			block = list_first_entry(&cb->spare, struct gpu_buddy_block,
						 link);
			list_del(&block->link);
			*vram = vgpu_vram_mgr_chunk_offset(block);
			return block;
		}
		block = vgpu_vram_mgr_alloc_chunk(vdev, vgpu_chunk_size(vdev), vram);
		if (!IS_ERR(block) || PTR_ERR(block) != -ENOSPC)
			return block;
		pool->handover = cb;
		ret = vgpu_pool_make_room_locked(pool, 0, vdev->vram_size);
		pool->handover = NULL;
		if (ret)
			return ERR_PTR(ret);
	}
}

/*
 * VGPU_CHUNK_DO_COPY_IN: copies @c's system pages into the VRAM copy at
 * @block / @vram, queued in @a->cb or waited for, and makes the copy the
 * chunk's.  On error the block is freed and nothing changed but the
 * mappings taken away.
 */
static int vgpu_chunk_copy_in_locked(struct vgpu_device *vdev,
				     struct vgpu_chunk *c,
				     struct gpu_buddy_block *block, u64 vram,
				     const struct vgpu_chunk_act *a)
{
	u64 size = vgpu_chunk_size(vdev);
	int ret;

	ret = vgpu_chunk_copy_locked(vdev, c, a->cb, vram, true);
	if (ret) {
		/* A block handed over may still be read by a copy back. */
		if (a->cb)
			list_add(&block->link, &a->cb->spare);
		else
			vgpu_vram_mgr_free_chunk(vdev, block);
		return ret;
	}
	c->block = block;
	c->vram = vram;
	c->flags &= ~VGPU_CHUNK_DIRTY;
	/* A fault is a use; a prefetched chunk has to earn its history. */
	vgpu_pool_insert_locked(&vdev->pool, &c->unit, size, !a->prefetch);
	/* The copy itself counted as accesses (else when it is done). */
	if (!c->copy)
		c->unit.ev.ctr_snap = vgpu_chunk_read_ctr(vdev, c);
	if (a->prefetch)
		c->flags |= VGPU_CHUNK_PREFETCHED;
	vgpu_stats_add(vdev, a->vm, VGPU_STAT_BYTES_TO_VRAM, size);
	if (a->prefetch)
		vgpu_stats_add(vdev, a->vm, VGPU_STAT_PREFETCH_BYTES, size);
	return 0;
}

/*
 * VGPU_CHUNK_DO_COPY_BACK, for a VRAM copy that no mapping reaches any
 * more.  Return: 0, or the error of a copy that could not even be made:
 * the chunk then stays in VRAM, unmapped, and the next fault maps it.
 */
static int vgpu_chunk_copy_back_locked(struct vgpu_device *vdev,
				       struct vgpu_chunk *c)
{
	int ret = vgpu_chunk_copy_locked(vdev, c, NULL, c->vram, false);

	if (ret == -EOPNOTSUPP || ret == -ENXIO || ret == -ENOMEM) {
		drm_err_ratelimited(&vdev->drm, "chunk eviction failed: %d\n", ret);
		return ret;
	}
	/* A failed job leaves the system pages as they were. */
	vgpu_stats_add(vdev, NULL, VGPU_STAT_BYTES_TO_SYSTEM, vgpu_chunk_size(vdev));
	return 0;
}

/* VGPU_CHUNK_DO_FREE after an eviction: what a prefetch was worth. */
static void vgpu_chunk_evicted_locked(struct vgpu_device *vdev,
				      struct vgpu_chunk *c)
{
	if (c->flags & VGPU_CHUNK_PREFETCHED) {
		if (vgpu_chunk_read_ctr(vdev, c) != c->unit.ev.ctr_snap)
			vgpu_chunk_prefetch_used_locked(vdev, c);
		else
			vgpu_stats_add(vdev, NULL, VGPU_STAT_PREFETCH_WASTED_BYTES,
				       vgpu_chunk_size(vdev));
	}
	vgpu_stats_add(vdev, NULL, VGPU_STAT_EVICTIONS, 1);
}

/*
 * The MAP steps, for the acting mapping @a->gva: the VRAM copy, or the
 * system pages.  The outcome goes to @a->f.
 */
static int vgpu_chunk_map_step_locked(struct vgpu_device *vdev,
				      struct vgpu_chunk *c, u32 steps,
				      const struct vgpu_chunk_act *a)
{
	struct vgpu_chunk_fault *f = a->f;
	bool remote = steps & VGPU_CHUNK_DO_MAP_SYSTEM;
	int ret;

	if (!a->gva)
		return 0;
	/* A copy queued in the batch: mapped once it is done. */
	if (!remote && c->copy)
		return -EINPROGRESS;
	ret = vgpu_chunk_map_locked(a->vm, a->gva, c, remote, f);
	if (ret)
		return ret;
	if (remote) {
		vgpu_stats_add(vdev, a->vm, VGPU_STAT_REMOTE_MAPS, 1);
		if (f)
			f->res = VGPU_FAULT_RES_MAPPED_SYSTEM;
	} else if (f && (!f->deferred || f->res != VGPU_FAULT_RES_MIGRATED)) {
		f->res = VGPU_FAULT_RES_REBOUND;
	}
	return 0;
}

/* How the UNMAP_GPU step of a plan with @steps unmaps. */
static enum vgpu_chunk_unmap vgpu_chunk_unmap_how(u32 steps)
{
	if (steps & VGPU_CHUNK_DO_HAND_OVER)
		return VGPU_CHUNK_UNMAP_EVICT_DEFER;
	if (steps & VGPU_CHUNK_DO_FREE)
		return VGPU_CHUNK_UNMAP_EVICT;
	return VGPU_CHUNK_UNMAP;
}

/*
 * Takes chunk @c through the transition vgpu_chunk_plan() gives for @ev
 * (and @in, over the chunk's advice), running its steps in their order:
 * see "The chunk state machine".
 *
 * Return: 0; -EINPROGRESS when a copy into VRAM is queued in @a->cb (the
 * chunk is mapped after it); -EBUSY while a copy runs; or the error of a
 * step, which leaves a consistent state: no VRAM to be had (-ENOSPC) or
 * a copy in that could not be made leave the chunk at home, a copy back
 * that could not be made leaves it in VRAM, unmapped.
 */
static int vgpu_chunk_transition_locked(struct vgpu_device *vdev,
					struct vgpu_chunk *c,
					enum vgpu_chunk_event ev, u32 in,
					struct vgpu_chunk_act *a)
{
	struct vgpu_chunk_act none = {};
	enum vgpu_chunk_state state = vgpu_chunk_state(c);
	struct gpu_buddy_block *block = NULL;
	struct vgpu_chunk_plan p;
	bool dirty = false, resident;
	u64 vram = 0;
	int ret;

	lockdep_assert_held(&vdev->pool.lock);
	a = a ?: &none;
	ret = vgpu_chunk_plan(state, ev, in | vgpu_chunk_advice_in(c), &p);
	if (ret)
		return ret;

	if (ev == VGPU_CHUNK_EV_COPY_DONE || ev == VGPU_CHUNK_EV_COPY_FAILED) {
		dma_fence_put(c->copy);
		c->copy = NULL;
		/* The copy itself counted as accesses. */
		if (ev == VGPU_CHUNK_EV_COPY_DONE && c->block)
			c->unit.ev.ctr_snap = vgpu_chunk_read_ctr(vdev, c);
	}
	if (p.steps & VGPU_CHUNK_DO_ALLOC) {
		block = vgpu_chunk_alloc_vram_locked(vdev, a->cb, &vram);
		if (IS_ERR(block))
			return PTR_ERR(block);
	}
	if (p.steps & VGPU_CHUNK_DO_ZAP_CPU)
		vgpu_chunk_zap_cpu(vdev, c);
	if (p.steps & VGPU_CHUNK_DO_UNMAP_GPU)
		dirty = vgpu_chunk_unmap_all_locked(vdev, c, vgpu_chunk_unmap_how(p.steps));
	if (p.steps & VGPU_CHUNK_DO_HAND_OVER) {
		/* Before the TLB flush: queued whatever the bits say yet. */
		ret = vgpu_chunk_copy_back_deferred_locked(vdev, c, a->cb, dirty);
		if (ret)
			return ret;
	} else if ((p.steps & VGPU_CHUNK_DO_COPY_BACK) && dirty) {
		ret = vgpu_chunk_copy_back_locked(vdev, c);
		if (ret)
			return ret;
		/* Duplicated back: both copies hold the data again. */
		c->flags &= ~VGPU_CHUNK_DIRTY;
	}
	if (p.steps & (VGPU_CHUNK_DO_FREE | VGPU_CHUNK_DO_HAND_OVER)) {
		if (p.steps & VGPU_CHUNK_DO_UNMAP_GPU)
			vgpu_chunk_evicted_locked(vdev, c);
		c->flags &= ~(VGPU_CHUNK_DIRTY | VGPU_CHUNK_PREFETCHED);
		vgpu_chunk_free_vram_locked(vdev, c,
					    p.steps & VGPU_CHUNK_DO_HAND_OVER ?
					    a->cb : NULL);
	}
	if (p.steps & VGPU_CHUNK_DO_COPY_IN) {
		ret = vgpu_chunk_copy_in_locked(vdev, c, block, vram, a);
		if (ret)
			return ret;
		if (a->f)
			a->f->res = VGPU_FAULT_RES_MIGRATED;
	}

	if (p.next == VGPU_CHUNK_COPYING_DUP || p.next == VGPU_CHUNK_DUP) {
		if (!(c->flags & VGPU_CHUNK_DUPLICATED))
			vgpu_stats_add(vdev, NULL, VGPU_STAT_READ_MOSTLY_DUPS, 1);
		c->flags |= VGPU_CHUNK_DUPLICATED;
	} else {
		if (state == VGPU_CHUNK_DUP && ev != VGPU_CHUNK_EV_EVICT)
			vgpu_stats_add(vdev, NULL, VGPU_STAT_READ_MOSTLY_COLLAPSES, 1);
		c->flags &= ~VGPU_CHUNK_DUPLICATED;
	}
	/*
	 * ACCESSED_BY: the GPU keeps a mapping, now of system memory.  After
	 * the free: the page tables it reserves may make the pool evict, and
	 * this chunk is no longer a candidate.  Before the count drops: TTM
	 * must not move the pages while they are being mapped.
	 */
	if (p.steps & VGPU_CHUNK_DO_MAP_REMOTE_ALL)
		vgpu_chunk_map_all_remote_locked(vdev, c);
	/* Pinned while away from home, and while a copy back runs. */
	resident = vgpu_chunk_state(c) != VGPU_CHUNK_HOME;
	if (resident && state == VGPU_CHUNK_HOME)
		atomic_inc(&c->bo->chunks->resident);
	else if (!resident && state != VGPU_CHUNK_HOME)
		atomic_dec(&c->bo->chunks->resident);
	if (p.steps & (VGPU_CHUNK_DO_MAP_VRAM | VGPU_CHUNK_DO_MAP_SYSTEM))
		ret = vgpu_chunk_map_step_locked(vdev, c, p.steps, a);
	/* A copy waited for, or none needed: past the copy already. */
	WARN_ON_ONCE((!ret || ret == -EINPROGRESS) &&
		     vgpu_chunk_state(c) != p.next &&
		     (c->copy || vgpu_chunk_state(c) != vgpu_chunk_state_settled(p.next)));
	a->read_only = p.steps & VGPU_CHUNK_DO_CPU_RO;
	return ret;
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

/* The ACCESSED bits of the chunk's leaves, in every VM and at every VA. */
static bool vgpu_chunk_unit_age(struct vgpu_pool_unit *u)
{
	struct vgpu_chunk *c = unit_to_chunk(u);
	struct vgpu_device *vdev = to_vgpu(c->bo->tbo.base.dev);

	return vgpu_vm_bo_age(c->bo, vgpu_chunk_offset(vdev, c),
			      vgpu_chunk_size(vdev));
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

/*
 * Takes no reservation: see "Demand paging: locking".  Making room for a
 * batch of copies (&vgpu_pool.handover), the copy back is queued there
 * and the block handed over; an allocation the eviction itself makes
 * (page tables) evicts without.
 */
static int vgpu_chunk_unit_evict(struct vgpu_pool_unit *u)
{
	struct vgpu_chunk *c = unit_to_chunk(u);
	struct vgpu_device *vdev = to_vgpu(c->bo->tbo.base.dev);
	struct vgpu_chunk_batch *cb = vdev->pool.handover;
	struct vgpu_chunk_act a = { .cb = cb };
	int ret;

	vdev->pool.handover = NULL;
	ret = vgpu_chunk_transition_locked(vdev, c, VGPU_CHUNK_EV_EVICT,
					   cb ? VGPU_CHUNK_IN_BATCH : 0, &a);
	vdev->pool.handover = cb;
	return ret;
}

static const struct vgpu_pool_unit_ops vgpu_chunk_unit_ops = {
	.kind = VGPU_POOL_CHUNK,
	.read_ctr = vgpu_chunk_unit_read_ctr,
	.age = vgpu_chunk_unit_age,
	.used = vgpu_chunk_unit_used,
	.intersects = vgpu_chunk_unit_intersects,
	.evict = vgpu_chunk_unit_evict,
};

/**
 * vgpu_chunk_batch_kick() - submit a batch's queued copies before sleeping
 * @cb: the fault thread's batch, or NULL
 *
 * The fault thread is about to sleep on a lock that another thread may
 * hold while it waits for one of @cb's copies: submit them first.
 */
void vgpu_chunk_batch_kick(struct vgpu_chunk_batch *cb)
{
	struct vgpu_pool *pool;

	if (!cb)
		return;
	pool = &cb->copy.vdev->pool;
	vgpu_pool_lock(pool);
	vgpu_chunk_batch_submit_locked(cb);
	vgpu_pool_unlock(pool);
}

/* Brings a pageable BO's system pages back from swap if needed. */
static int vgpu_chunk_populate(struct vgpu_bo *bo, struct vgpu_chunk_batch *cb)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	struct ttm_resource *res = bo->tbo.resource;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (res && res->mem_type == TTM_PL_TT && bo->tbo.ttm &&
	    ttm_tt_is_populated(bo->tbo.ttm))
		return 0;
	vgpu_chunk_batch_kick(cb);
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

/**
 * vgpu_chunk_lock_vm() - take a VM's lock in the fault thread
 * @vm: VM
 * @cb: the fault thread's batch, or NULL
 *
 * Takes the VM's lock (read), kicking @cb's copies before sleeping on it.
 */
void vgpu_chunk_lock_vm(struct vgpu_vm *vm, struct vgpu_chunk_batch *cb)
{
	if (down_read_trylock(&vm->lock))
		return;
	vgpu_chunk_batch_kick(cb);
	down_read(&vm->lock);
}

/*
 * Reserves and populates @bo, kicking @cb's copies before sleeping (an
 * ioctl's batch sleeps interruptibly, the fault thread's does not).
 * Return: 0 with the BO reserved, or an error and not reserved.
 */
static int vgpu_chunk_lock_bo(struct vgpu_bo *bo, struct vgpu_chunk_batch *cb)
{
	int ret;

	if (!dma_resv_trylock(bo->tbo.base.resv)) {
		vgpu_chunk_batch_kick(cb);
		if (cb && cb->locked_vm)
			ret = dma_resv_lock_interruptible(bo->tbo.base.resv, NULL);
		else
			ret = dma_resv_lock(bo->tbo.base.resv, NULL);
		if (ret)
			return ret;
	}
	ret = vgpu_chunk_populate(bo, cb);
	if (ret)
		dma_resv_unlock(bo->tbo.base.resv);
	return ret;
}

/**
 * vgpu_chunk_unmapped() - a leaf of pageable memory was cleared
 * @arg: the &struct drm_gpuva it belonged to
 * @level: its level
 * @va: its first VA
 * @pte: the leaf as it was
 * @table: false (a leaf)
 *
 * A &vgpu_pt_visit_fn for every walk that clears leaves of pageable
 * memory: a VRAM leaf the device wrote through (DIRTY) makes its chunk's
 * VRAM copy dirty, so that eviction copies it back.  Leaves in system
 * memory wrote the system pages themselves.
 *
 * Context: &vgpu_pool.lock held.
 */
void vgpu_chunk_unmapped(void *arg, unsigned int level, u64 va, u64 pte,
			 bool table)
{
	struct drm_gpuva *gva = arg;
	struct vgpu_bo *bo = gem_to_vgpu_bo(gva->gem.obj);
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	struct vgpu_chunk *c;

	lockdep_assert_held(&vdev->pool.lock);
	if (table || (pte & VGPU_PTE_SYSTEM) || !(pte & VGPU_PTE_DIRTY))
		return;
	c = vgpu_chunk_at(vdev, gva, bo, va);
	if (c->block || (c->flags & VGPU_CHUNK_SETTLING))
		c->flags |= VGPU_CHUNK_DIRTY;
}

/*
 * The thrashing detector pinned @c to system memory: it comes back once
 * the pin runs out (vgpu_chunk_unpin_locked()).  Pins all last as long,
 * so &vgpu_paging.pinned is in the order they run out.
 */
static void vgpu_chunk_pinned_locked(struct vgpu_vm *vm, struct vgpu_chunk *c)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_paging *pg = &vdev->paging;

	vgpu_stats_add(vdev, vm, VGPU_STAT_THRASH_EVENTS, 1);
	list_move_tail(&c->pinned, &pg->pinned);
	if (!(vdev->caps & VGPU_CAPS_DETERMINISTIC))
		queue_delayed_work(system_wq, &pg->unpin_work,
				   nsecs_to_jiffies(pg->prefetch_cfg.thrash_pin_ns) + 1);
}

/*
 * Does chunk @c, at home, have to stay in system memory rather than come
 * into VRAM, by a fault or a prefetch of @vm?  Advised there, pinned by
 * the thrashing detector, or pinned now by this return: then
 * %VGPU_CHUNK_IN_REMOTE, else 0.
 */
static u32 vgpu_chunk_stays_home_locked(struct vgpu_vm *vm, struct vgpu_chunk *c,
					const struct vgpu_chunk_batch *cb)
{
	struct vgpu_device *vdev = vm->vdev;
	/* The thrashing detector's clock: the batch's, or now without one. */
	u64 now = cb ? cb->now : vgpu_paging_clock(vdev);

	if ((c->flags & VGPU_CHUNK_PREF_SYSTEM) || vgpu_thrash_pinned(&c->thrash, now))
		return VGPU_CHUNK_IN_REMOTE;
	if (!vgpu_thrash_migrate_in(&c->thrash, &vdev->paging.prefetch_cfg, now))
		return 0;
	vgpu_chunk_pinned_locked(vm, c);
	return VGPU_CHUNK_IN_REMOTE;
}

/*
 * Decides for chunk @c, which has no copy running: a GPU access is a
 * transition of the chunk (see "The chunk state machine"), migrating it
 * unless the placement policy or the thrashing detector keep it remote.
 * Return: as vgpu_chunk_fault().
 */
static int vgpu_chunk_resolve_locked(struct vgpu_vm *vm, struct drm_gpuva *gva,
				     struct vgpu_chunk *c,
				     struct vgpu_chunk_fault *f,
				     struct vgpu_chunk_batch *cb)
{
	struct vgpu_device *vdev = vm->vdev;
	enum vgpu_chunk_event ev = f->access_mask & BIT(VGPU_ACCESS_WRITE) ?
				   VGPU_CHUNK_EV_GPU_WRITE : VGPU_CHUNK_EV_GPU_READ;
	struct vgpu_chunk_act a = { .vm = vm, .gva = gva, .cb = cb, .f = f };
	u32 in = 0;
	int ret;

	if (c->block) {
		/* In VRAM already: prefetched, another VM's, or zapped. */
		vgpu_pool_touch_locked(&vdev->pool, &c->unit);
		/* Not a victim of the page tables its mapping may need. */
		c->unit.batch = vdev->pool.batch_seq;
		vgpu_chunk_prefetch_used_locked(vdev, c);
	} else if (vgpu_policy_place(vdev) == VGPU_PLACE_REMOTE) {
		in |= VGPU_CHUNK_IN_REMOTE;
	} else {
		in |= vgpu_chunk_stays_home_locked(vm, c, cb);
	}
	ret = vgpu_chunk_transition_locked(vdev, c, ev, in, &a);
	/* No VRAM to be had: serve the access from system memory. */
	if ((ret == -ENOSPC || ret == -EOPNOTSUPP) && !(in & VGPU_CHUNK_IN_REMOTE))
		ret = vgpu_chunk_transition_locked(vdev, c, ev,
						   in | VGPU_CHUNK_IN_REMOTE, &a);
	return ret;
}

/*
 * Prefetch: bring the chunk at @va in and map it, if it is worth it.
 * With @cb the copy is queued there and the mapping written by
 * vgpu_chunk_batch_finish().
 */
static int vgpu_chunk_prefetch_va(struct vgpu_vm *vm, u64 va,
				  struct vgpu_chunk_batch *cb)
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
	ret = vgpu_chunk_lock_bo(bo, cb);
	if (ret)
		return ret;
	if (cb)
		ret = vgpu_chunk_grow((void **)&cb->maps, &cb->max_maps,
				      cb->nr_maps + 1, sizeof(*cb->maps));
	vgpu_pool_lock(&vdev->pool);
	if (!ret && vgpu_chunk_state(c) == VGPU_CHUNK_HOME) {
		struct vgpu_chunk_act a = {
			.vm = vm, .gva = gva, .cb = cb, .prefetch = true,
		};
		/* A prefetch brings a chunk back as a fault does. */
		u32 in = vgpu_chunk_stays_home_locked(vm, c, cb);

		ret = vgpu_chunk_transition_locked(vdev, c, VGPU_CHUNK_EV_PREFETCH,
						   in, &a);
		/* Mapped once the batch's copy is done. */
		if (ret == -EINPROGRESS) {
			cb->maps[cb->nr_maps++] = (struct vgpu_chunk_map) {
				.vm = vgpu_vm_get(vm), .va = va,
			};
			ret = 0;
		}
	}
	vgpu_pool_unlock(&vdev->pool);
	dma_resv_unlock(bo->tbo.base.resv);
	return ret;
}

/*
 * Maps a chunk whose copy into VRAM a batch queued at @va; the batch's
 * owner may hold the VM's lock (@locked).
 */
static void vgpu_chunk_map_va(const struct vgpu_chunk_map *m, bool locked)
{
	struct vgpu_vm *vm = m->vm;
	struct vgpu_device *vdev = vm->vdev;
	struct drm_gpuva *gva;
	struct vgpu_chunk *c;
	struct vgpu_bo *bo;

	if (!locked)
		down_read(&vm->lock);
	gva = vgpu_chunk_find_va(vm, m->va, vgpu_chunk_size(vdev), &bo);
	if (IS_ERR(gva) || vgpu_chunk_lock_bo(bo, NULL))
		goto out;
	c = vgpu_chunk_at(vdev, gva, bo, m->va);
	vgpu_pool_lock(&vdev->pool);
	vgpu_chunk_copy_wait_locked(vdev, c, NULL);
	/* Gone again, or failed: the GPU faults on it instead. */
	if (c->block) {
		struct vgpu_chunk_act a = { .vm = vm, .gva = gva };

		vgpu_chunk_transition_locked(vdev, c, VGPU_CHUNK_EV_PREFETCH, 0, &a);
	}
	vgpu_pool_unlock(&vdev->pool);
	dma_resv_unlock(bo->tbo.base.resv);
out:
	if (!locked)
		up_read(&vm->lock);
}

/**
 * vgpu_chunk_batch_init() - start a batch of chunk copies
 * @cb: batch
 * @vdev: vgpu device
 * @locked_vm: the VM whose lock the owner holds while it fills the batch
 *	and finishes it (PREFETCH, ADVISE), or NULL (the fault thread)
 */
void vgpu_chunk_batch_init(struct vgpu_chunk_batch *cb, struct vgpu_device *vdev,
			   struct vgpu_vm *locked_vm)
{
	static atomic64_t ids = ATOMIC64_INIT(0);

	memset(cb, 0, sizeof(*cb));
	vgpu_migrate_batch_init(&cb->copy, vdev);
	cb->copy.before_job = vgpu_chunk_batch_before_job;
	cb->id = atomic64_inc_return(&ids);
	cb->locked_vm = locked_vm;
	cb->now = vgpu_paging_clock(vdev);
	cb->prefetch_left = (vdev->vram_size >> vdev->paging.chunk_shift) / 4;
	INIT_LIST_HEAD(&cb->spare);
}

/**
 * vgpu_chunk_batch_finish() - run a batch's copies and wait for them
 * @cb: batch, from vgpu_chunk_batch_init(); empty afterwards
 * @wait_ns: if not NULL, set to the time spent waiting for the copies
 *
 * Submits what is still queued, waits once for all of it, ends each
 * chunk's copy (a failed one leaves the chunk in system memory), maps
 * the prefetched chunks and drops the batch's references.  The faults
 * that vgpu_chunk_fault() deferred can then be resolved again.
 *
 * Context: the fault batch's completion (vgpu_fault.c), no lock held; or
 * PREFETCH / ADVISE, with only &vgpu_chunk_batch.locked_vm's lock held.
 * Return: 0, or the error of the first copy that failed.
 */
int vgpu_chunk_batch_finish(struct vgpu_chunk_batch *cb, u64 *wait_ns)
{
	struct vgpu_device *vdev = cb->copy.vdev;
	struct vgpu_vm *locked = cb->locked_vm;
	struct gpu_buddy_block *block, *next;
	unsigned int i;
	int ret, err = 0;
	u64 start;

	vgpu_pool_lock(&vdev->pool);
	vgpu_chunk_batch_submit_locked(cb);
	start = ktime_get_ns();
	for (i = 0; i < cb->nr_chunks; i++) {
		ret = vgpu_chunk_copy_wait_locked(vdev, cb->chunks[i], NULL);
		if (!err)
			err = ret;
	}
	if (wait_ns)
		*wait_ns = ktime_get_ns() - start;
	/* Every copy back out of them is done. */
	list_for_each_entry_safe(block, next, &cb->spare, link) {
		list_del(&block->link);
		vgpu_vram_mgr_free_chunk(vdev, block);
	}
	vgpu_pool_unlock(&vdev->pool);
	for (i = 0; i < cb->nr_maps; i++) {
		vgpu_chunk_map_va(&cb->maps[i], cb->maps[i].vm == locked);
		vgpu_vm_put(cb->maps[i].vm);
	}
	for (i = 0; i < cb->nr_chunks; i++)
		drm_gem_object_put(&cb->chunks[i]->bo->tbo.base);
	vgpu_migrate_batch_fini(&cb->copy);
	kfree(cb->chunks);
	kfree(cb->maps);
	kfree(cb->victims);
	vgpu_chunk_batch_init(cb, vdev, locked);
	return err;
}

/**
 * vgpu_chunk_fault() - resolve a GPU fault on pageable memory
 * @vm: the faulting VM
 * @f: the faulting page; the outcome is written back into it
 * @cb: the fault thread's batch, or NULL to resolve synchronously
 *
 * Migrates or maps the chunk behind @f->va as the placement policy says,
 * then lets the VM's stream detector prefetch ahead.  With @cb, a copy
 * into VRAM is queued in @cb and not waited for: the fault returns
 * -EINPROGRESS and is resolved again (@f->deferred) after
 * vgpu_chunk_batch_finish(), which maps the copy; so is a fault on a
 * chunk whose copy @cb already holds.
 *
 * Context: the fault thread; takes the VM's lock (read), the BO's
 * reservation and &vgpu_pool.lock.  See "Demand paging: locking".
 * Return: 0 when the access can be replayed; -EINPROGRESS (see above);
 * -ENOENT (nothing mapped), -EFAULT (not pageable memory, or a reason no
 * mapping fixes), -EACCES (the mapping does not allow the access), or an
 * allocation or copy error: the fault is then cancelled.
 */
int vgpu_chunk_fault(struct vgpu_vm *vm, struct vgpu_chunk_fault *f,
		     struct vgpu_chunk_batch *cb)
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

	/* WRITE_DENIED: a write through a read-only mapping, -EACCES below. */
	if (f->reason != VGPU_FAULT_NOT_PRESENT &&
	    f->reason != VGPU_FAULT_WRITE_DENIED)
		return -EFAULT;

	vgpu_chunk_lock_vm(vm, cb);
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

	ret = vgpu_chunk_lock_bo(bo, cb);
	if (ret)
		goto out;
	vgpu_pool_lock(&vdev->pool);
	if (vgpu_chunk_batch_has(cb, c)) {
		/* Its copy is in this batch: resolved after it. */
		ret = -EINPROGRESS;
	} else {
		vgpu_chunk_copy_wait_locked(vdev, c, cb);
		ret = vgpu_chunk_resolve_locked(vm, gva, c, f, cb);
	}
	if ((!ret || ret == -EINPROGRESS) && !f->deferred &&
	    f->res != VGPU_FAULT_RES_MAPPED_SYSTEM &&
	    vgpu_paging_prefetch_enabled()) {
		unsigned int max = ARRAY_SIZE(sugg);

		if (cb)
			max = min(max, cb->prefetch_left);
		n = vgpu_prefetch_fault(&vm->prefetch, &pg->prefetch_cfg,
					f->va >> pg->chunk_shift, sugg, max);
		if (cb)
			cb->prefetch_left -= n;
	}
	vgpu_pool_unlock(&vdev->pool);
	dma_resv_unlock(bo->tbo.base.resv);

	/* One BO at a time: the fault's reservation is dropped. */
	for (i = 0; i < n; i++)
		if (vgpu_chunk_prefetch_va(vm, sugg[i] << pg->chunk_shift, cb))
			break;
out:
	up_read(&vm->lock);
	return ret;
}

/* ------------------------------------------------- PREFETCH / ADVISE --- */

/*
 * Calls @fn for each chunk of pageable memory in [va, va + range), with
 * its BO reserved and populated and &vgpu_pool.lock held.  Copies into
 * VRAM go to @cb, which has room for one more mapping to write after it.
 */
static int vgpu_chunk_for_each(struct vgpu_vm *vm, u64 va, u64 range,
			       struct vgpu_chunk_batch *cb,
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
			ret = vgpu_chunk_grow((void **)&cb->maps, &cb->max_maps,
					      cb->nr_maps + 1, sizeof(*cb->maps));
			if (ret)
				return ret;
			ret = vgpu_chunk_lock_bo(bo, cb);
			if (ret)
				return ret;
			vgpu_pool_lock(&vdev->pool);
			ret = vgpu_chunk_copy_wait_locked(vdev, c, cb);
			if (!ret)
				ret = fn(vm, gva, c, arg);
			vgpu_pool_unlock(&vdev->pool);
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
	struct vgpu_chunk_batch *cb;
};

static int vgpu_chunk_place_one(struct vgpu_vm *vm, struct drm_gpuva *gva,
				struct vgpu_chunk *c, void *arg)
{
	struct vgpu_chunk_place_args *a = arg;
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_chunk_act act = {
		.vm = vm, .gva = gva, .cb = a->cb, .prefetch = true,
	};
	bool home = vgpu_chunk_state(c) == VGPU_CHUNK_HOME;
	u64 cva, size, off;
	int ret;

	if (a->placement == DRM_VGPU_PLACE_SYSTEM) {
		if (home)
			return 0;
		/* Copied back in the call's batch, the blocks freed after it. */
		ret = vgpu_chunk_transition_locked(vdev, c, VGPU_CHUNK_EV_EVICT,
						   VGPU_CHUNK_IN_BATCH, &act);
		if (!ret)
			a->moved += vgpu_chunk_size(vdev);
		return ret;
	}
	/* Brought in and mapped, or just mapped. */
	if (!home)
		c->unit.batch = vdev->pool.batch_seq;
	ret = vgpu_chunk_transition_locked(vdev, c, VGPU_CHUNK_EV_PREFETCH, 0, &act);
	if (ret == -EINPROGRESS && vgpu_chunk_in_va(vdev, c, gva, &cva, &size, &off)) {
		/* Mapped once the batch's copies are done. */
		a->cb->maps[a->cb->nr_maps++] = (struct vgpu_chunk_map) {
			.vm = vgpu_vm_get(vm), .va = cva,
		};
		ret = 0;
	}
	if (!ret && home)
		a->moved += vgpu_chunk_size(vdev);
	return ret;
}

/*
 * Runs @fn over the range with a batch of the caller's: the copies into
 * VRAM of the whole range are queued together, waited for once, and then
 * mapped.
 */
static int vgpu_chunk_range_batched(struct vgpu_vm *vm, u64 va, u64 range,
				    int (*fn)(struct vgpu_vm *vm,
					      struct drm_gpuva *gva,
					      struct vgpu_chunk *c, void *arg),
				    void *arg, struct vgpu_chunk_batch *cb)
{
	int ret, err;

	vgpu_chunk_batch_begin(vm->vdev);
	ret = vgpu_chunk_for_each(vm, va, range, cb, fn, arg);
	/* What was queued is done with either way. */
	err = vgpu_chunk_batch_finish(cb, NULL);
	return ret ?: err;
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
 * VRAM chunk is evicted (written back if dirty) and unmapped.  Either way
 * the copies are queued in one batch and waited for once.
 *
 * Return: 0, -ENOSPC when the range does not fit in VRAM (what moved
 * stays), -ERESTARTSYS on a signal, -EIO if a copy failed (that chunk
 * stays in system memory), or another negative errno.
 */
int vgpu_chunk_place_range(struct vgpu_vm *vm, u64 va, u64 range,
			   u32 placement, u64 *moved)
{
	struct vgpu_chunk_batch cb;
	struct vgpu_chunk_place_args a = { .placement = placement, .cb = &cb };
	int ret;

	vgpu_chunk_batch_init(&cb, vm->vdev, vm);
	ret = vgpu_chunk_range_batched(vm, va, range, vgpu_chunk_place_one, &a, &cb);
	*moved += a.moved;
	return ret;
}

/*
 * The hints of every range that maps chunk @c, in every VM and at every
 * VA: their union is what the chunk acts on.  Context: pool lock held;
 * takes the BO's gpuva lock.
 */
static u32 vgpu_chunk_advice_union(struct vgpu_device *vdev,
				   struct vgpu_chunk *c)
{
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *gva;
	u64 va, size, off;
	u32 bits = 0;

	mutex_lock(&c->bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, &c->bo->tbo.base)
		drm_gpuvm_bo_for_each_va(gva, vm_bo)
			if (vgpu_chunk_in_va(vdev, c, gva, &va, &size, &off))
				bits |= vgpu_advice_get(to_vgpu_vm(vm_bo->vm),
							va, size);
	mutex_unlock(&c->bo->gpuva_lock);
	return bits;
}

/*
 * Gives chunk @c the hints @bits: a preference for VRAM keeps it there
 * longest (unless system memory is preferred too, which wins), and
 * READ_MOSTLY going away collapses a duplicated chunk to its VRAM copy.
 */
static int vgpu_chunk_advice_apply_locked(struct vgpu_device *vdev,
					  struct vgpu_chunk *c, u32 bits)
{
	u32 old = c->flags & VGPU_ADVICE_ALL;

	lockdep_assert_held(&vdev->pool.lock);
	c->flags = (c->flags & ~VGPU_ADVICE_ALL) | bits;
	if ((bits & VGPU_CHUNK_PREF_VRAM) && !(bits & VGPU_CHUNK_PREF_SYSTEM))
		c->unit.flags |= VGPU_POOL_UNIT_KEEP;
	else
		c->unit.flags &= ~VGPU_POOL_UNIT_KEEP;
	if (!(old & VGPU_CHUNK_READ_MOSTLY) || (bits & VGPU_CHUNK_READ_MOSTLY))
		return 0;
	/* The VRAM copy stays, the only one, mapped as before. */
	return vgpu_chunk_transition_locked(vdev, c, VGPU_CHUNK_EV_UNADVISE_RM,
					    0, NULL);
}

/**
 * vgpu_chunk_advice_update() - a range that maps part of a BO lost its hints
 * @bo: pageable BO
 * @offset: first byte of the part
 * @size: bytes
 *
 * The mapping was removed (its hints erased) or cut: each chunk of the
 * part acts on the hints of the ranges that still map it.
 *
 * Context: &vgpu_pool.lock held, not @bo's gpuva lock.
 */
void vgpu_chunk_advice_update(struct vgpu_bo *bo, u64 offset, u64 size)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	unsigned int shift = vdev->paging.chunk_shift;
	u64 i;

	lockdep_assert_held(&vdev->pool.lock);
	if (!bo->chunks || !size)
		return;
	for (i = offset >> shift; i <= (offset + size - 1) >> shift &&
	     i < bo->chunks->nr; i++) {
		struct vgpu_chunk *c = &bo->chunks->chunk[i];

		/* A duplicate being copied stays one until a write (-EBUSY). */
		vgpu_chunk_advice_apply_locked(vdev, c,
					       vgpu_chunk_advice_union(vdev, c));
	}
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
	int ret;

	ret = vgpu_chunk_advice_apply_locked(vm->vdev, c,
					     vgpu_chunk_advice_union(vm->vdev, c));
	if (ret || a->advice != DRM_VGPU_ADVICE_PREFERRED_PLACEMENT || !a->value)
		return ret;
	/* Acted on at once, as by PREFETCH. */
	return vgpu_chunk_place_one(vm, gva, c, &a->place);
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
 * The caller recorded the hint for the range (vgpu_advice_set()); each
 * chunk of pageable memory behind it now acts on the union of the hints
 * of the ranges that map it ("ADVISE hints per VA range"):
 *
 * - PREFERRED_PLACEMENT system: the chunks leave VRAM now and faults map
 *   them remotely; VRAM: they come in now and are evicted last;
 * - READ_MOSTLY: chunks the GPU reads are duplicated in VRAM, their
 *   system pages kept valid, until a write collapses them (see "Pageable
 *   BOs and chunk migration"); clearing it collapses them to VRAM;
 * - ACCESSED_BY GPU: an evicted chunk is mapped in system memory instead
 *   of being unmapped: the GPU never faults on it.
 *
 * Return: 0 or a negative errno, as vgpu_chunk_place_range().
 */
int vgpu_chunk_advise_range(struct vgpu_vm *vm, u64 va, u64 range,
			    u32 advice, u64 value, u64 *moved)
{
	struct vgpu_chunk_batch cb;
	struct vgpu_chunk_advise_args a = {
		.advice = advice, .value = value,
		.place = { .placement = value, .cb = &cb },
	};
	int ret;

	vgpu_chunk_batch_init(&cb, vm->vdev, vm);
	ret = vgpu_chunk_range_batched(vm, va, range, vgpu_chunk_advise_one, &a, &cb);
	*moved += a.place.moved;
	return ret;
}

/**
 * vgpu_chunk_cpu_fault() - bring home the chunk the CPU touched
 * @bo: pageable BO, reserved
 * @page: page of @bo the CPU faulted on
 * @write: the CPU writes
 * @num_prefault: pages the caller may map from @page on; trimmed to the
 *	end of the chunk, since the next chunk may be in VRAM
 * @read_only: out, or NULL: the caller must map the pages read-only
 *
 * Only the touched chunk moves (written back if dirty, as an eviction):
 * afterwards its system pages hold every byte.  Chunks in VRAM keep no
 * CPU mapping (bringing them in zaps it).  A READ_MOSTLY chunk stays in
 * VRAM for a read, duplicated (copied back first if it was written), and
 * the CPU maps its system pages read-only; a write drops its VRAM copy
 * first (as an eviction, which finds it clean and copies nothing back).
 *
 * Return: 0 or the error of a failed copy.
 */
int vgpu_chunk_cpu_fault(struct vgpu_bo *bo, pgoff_t page, bool write,
			 pgoff_t *num_prefault, bool *read_only)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	unsigned int shift = vdev->paging.chunk_shift - PAGE_SHIFT;
	struct vgpu_bo_chunks *t = bo->chunks;
	struct vgpu_chunk_act a = {};
	struct vgpu_chunk *c;
	pgoff_t left;
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (!t || (page >> shift) >= t->nr)
		return 0;
	left = (((page >> shift) + 1) << shift) - page;
	*num_prefault = min(*num_prefault, left);
	if (read_only)
		*read_only = false;
	if (!atomic_read(&t->resident))
		return 0;
	c = &t->chunk[page >> shift];
	vgpu_pool_lock(&vdev->pool);
	/* A copy the fault thread queued ends first. */
	vgpu_chunk_copy_wait_locked(vdev, c, NULL);
	/* Home, or duplicated for a read: the pages are up to date. */
	ret = vgpu_chunk_transition_locked(vdev, c, write ? VGPU_CHUNK_EV_CPU_WRITE :
							    VGPU_CHUNK_EV_CPU_READ,
					   0, &a);
	if (read_only)
		*read_only = a.read_only;
	vgpu_pool_unlock(&vdev->pool);
	return ret;
}
