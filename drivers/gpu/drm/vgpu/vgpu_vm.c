// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/refcount.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>

#include "vgpu_advice.h"
#include "vgpu_bo.h"
#include "vgpu_chunk.h"
#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_file.h"
#include "vgpu_ioctl.h"
#include "vgpu_job.h"
#include "vgpu_pool.h"
#include "vgpu_pt.h"
#include "vgpu_queue.h"
#include "vgpu_stats.h"
#include "vgpu_stream.h"
#include "vgpu_svm.h"
#include "vgpu_svm_dmem.h"
#include "vgpu_vm.h"

static unsigned int vgpu_vm_max_pt_kib = 16384;
module_param_named(vm_max_pt_kib, vgpu_vm_max_pt_kib, uint, 0644);
MODULE_PARM_DESC(vm_max_pt_kib,
		 "Page tables one GPU VM may use, KiB (default 16384; 0: no limit)");

/**
 * DOC: GPU virtual memory
 *
 * Every open file of the render node has a default GPU VM and may create
 * more (see "files and their VMs"); each is a &drm_gpuvm for the VA space
 * and its mappings, and a page-table tree the device walks (see "page
 * tables").  User VAs run from %VGPU_VM_USER_START to
 * %VGPU_VM_USER_END; the top GiB is reserved in the drm_gpuvm for the
 * kernel, which maps the VM's inline-stream buffer there (vgpu_stream.c).
 *
 * An open file pins nothing: the root table is allocated with the VM's
 * first mapping.  The page tables of one VM are bounded by the module
 * parameter ``vm_max_pt_kib``; a VM_BIND or EXEC that would need more
 * fails with -ENOSPC.  They are charged to the file that owns the VM in
 * fdinfo (``drm-vgpu-pt-bytes``, the sum over the file's VMs).
 *
 * VM_BIND applies its operations in order under the VM's lock (held for
 * writing).  A MAP needs a free range: the BO is reserved, made reachable
 * by the device (brought back from swap), linked into drm_gpuvm through
 * drm_gpuvm_sm_map() and written into the page tables.  An UNMAP goes
 * through drm_gpuvm_sm_unmap(): mappings wholly inside the range are
 * removed, mappings straddling its ends are REMAPped into the parts that
 * survive, which stay in the page tables untouched while the middle is
 * cleared.  The page-table changes of the whole call form one batch with
 * one TLB invalidation at the end.
 *
 * When TTM moves a mapped BO, vgpu_vm_bo_move() clears the BO's mappings
 * in every VM (one invalidation per VM) and queues them on the VM's rebind
 * list; the next EXEC of that VM validates the BOs and maps them again at
 * their new place (vgpu_vm_rebind()).  A GPU access to such a BO between
 * the move and the next EXEC would fault, but no job can be running then:
 * the move waited for every job fence on the BO.
 *
 * The VM is the only writer of its page tables, all through the walker
 * (see "page tables"): binding and unbinding here, the copy engine's
 * windows through vgpu_vm_map_kernel(), and the paging code's chunks
 * through vgpu_vm_pt_remap() and vgpu_vm_pt_zap().  Removing a mapping of
 * pageable memory hands the device's dirty bits of what it clears to the
 * chunks (vgpu_chunk_unmapped()), so that a chunk written through that
 * mapping is still copied back when it is evicted.
 *
 * Lock order: &vgpu_vm.lock, BO reservations (drm_exec), &vgpu_pool.lock
 * (unmapping pageable memory), a BO's gpuva_lock, &vgpu_vm.pt_lock,
 * &vgpu_ctx_mgr.lock, &vgpu_tlb.lock.
 */

static struct vgpu_vma *to_vgpu_vma(struct drm_gpuva *va)
{
	return container_of(va, struct vgpu_vma, base);
}

static u64 vgpu_vm_pte_flags(u32 perms)
{
	u64 f = 0;

	if (perms & DRM_VGPU_VM_BIND_READ)
		f |= VGPU_PTE_READ;
	if (perms & DRM_VGPU_VM_BIND_WRITE)
		f |= VGPU_PTE_WRITE;
	if (perms & DRM_VGPU_VM_BIND_EXEC)
		f |= VGPU_PTE_EXEC;
	return f;
}

/**
 * vgpu_vm_pt_commit_locked() - end a VM's batch of page-table changes
 * @vm: VM
 * @up: batch
 *
 * Flushes the batch's TLB range, then frees the tables it unlinked and
 * drops what is left of its reservation.
 *
 * Context: &vgpu_vm.pt_lock held.
 */
void vgpu_vm_pt_commit_locked(struct vgpu_vm *vm, struct vgpu_pt_update *up)
{
	lockdep_assert_held(&vm->pt_lock);
	if (up->inval_start < up->inval_end)
		vgpu_ctx_inval_range(vm, up->inval_start,
				     up->inval_end - up->inval_start);
	vgpu_pt_release(up);
}

/* Reserve without the VM's limit: unmapping must always be possible. */
static int vgpu_vm_pt_reserve_any(struct vgpu_pt_update *up, unsigned int n)
{
	int ret = vgpu_pt_pool_reserve(up->vdev, n);

	if (!ret)
		up->reserved += n;
	return ret;
}

/**
 * vgpu_vm_pt_over_limit() - would @n more tables exceed the VM's limit?
 * @vm: VM
 * @up: its batch
 * @n: pages
 *
 * Return: true if a user VM would hold more than ``vm_max_pt_kib``.
 */
bool vgpu_vm_pt_over_limit(struct vgpu_vm *vm, struct vgpu_pt_update *up,
			   unsigned int n)
{
	u64 max = READ_ONCE(vgpu_vm_max_pt_kib) / (VGPU_PT_SIZE / SZ_1K);

	return !vm->kernel && max &&
	       READ_ONCE(vm->pt_stats.tables) + up->reserved + n > max;
}

/**
 * vgpu_vm_pt_reserve() - reserve page-table pages for a batch
 * @vm: VM the batch belongs to
 * @up: batch
 * @n: pages
 *
 * A user VM may hold at most ``vm_max_pt_kib`` of page tables, counting
 * what it has and what the batch reserved.
 *
 * Return: 0, -ENOSPC over the VM's limit, or a negative errno from
 * vgpu_pt_pool_reserve().
 */
int vgpu_vm_pt_reserve(struct vgpu_vm *vm, struct vgpu_pt_update *up,
		       unsigned int n)
{
	if (vgpu_vm_pt_over_limit(vm, up, n))
		return -ENOSPC;
	return vgpu_vm_pt_reserve_any(up, n);
}

/**
 * vgpu_vm_root_prepare() - allocate the root table if the VM has none yet
 * @vm: VM
 * @up: batch the root's page is reserved in
 *
 * Context: &vgpu_vm.pt_lock not held.
 * Return: 0, or the error of vgpu_vm_pt_reserve().
 */
int vgpu_vm_root_prepare(struct vgpu_vm *vm, struct vgpu_pt_update *up)
{
	int ret;

	if (READ_ONCE(vm->root))
		return 0;
	ret = vgpu_vm_pt_reserve(vm, up, 1);
	if (ret)
		return ret;
	mutex_lock(&vm->pt_lock);
	if (!vm->root)
		WRITE_ONCE(vm->root, vgpu_pt_alloc(up, VGPU_PT_LEVELS - 1));
	mutex_unlock(&vm->pt_lock);
	return 0;
}

/**
 * vgpu_vm_map_kernel() - map kernel memory into the kernel part of a VM
 * @vm: VM
 * @va: where: at or above %VGPU_VM_USER_END, anywhere in the kernel's VM
 * @addr: device address (DMA address with %VGPU_PTE_SYSTEM), contiguous
 * @size: bytes
 * @pte_flags: %VGPU_PTE_READ / _WRITE, %VGPU_PTE_SYSTEM
 *
 * The mapping lasts as long as the VM's page tables.  It uses the largest
 * leaves @va and @addr allow, up to 1 GiB (the copy engine's windows).
 *
 * Return: 0 or a negative errno.
 */
int vgpu_vm_map_kernel(struct vgpu_vm *vm, u64 va, u64 addr, u64 size,
		       u64 pte_flags)
{
	struct vgpu_pt_update up;
	int ret;

	if (WARN_ON(!vm->kernel && va < VGPU_VM_USER_END))
		return -EINVAL;
	vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);
	ret = vgpu_vm_root_prepare(vm, &up);
	if (!ret)
		ret = vgpu_vm_pt_reserve(vm, &up,
					 vgpu_pt_pages_for_linear_map(va, size));
	mutex_lock(&vm->pt_lock);
	if (!ret)
		vgpu_pt_map_linear(&up, vm->root, va, addr, size, pte_flags);
	vgpu_vm_pt_commit_locked(vm, &up);
	mutex_unlock(&vm->pt_lock);
	return ret;
}

/**
 * vgpu_vm_pt_remap() - map part of a mapping of pageable memory anew
 * @vm: VM
 * @up: batch, with vgpu_pt_pages_for_map() + vgpu_pt_pages_for_unmap()
 *	pages of @va, @size reserved; committed here
 * @gva: the mapping, of a pageable BO
 * @va: start of the part, 4 KiB aligned
 * @size: bytes
 * @tbo: map the system pages of this BO (its resource), or NULL for VRAM
 * @addr: with @tbo the offset in the BO of @va, else the VRAM offset
 * @pte_flags: %VGPU_PTE_READ / _WRITE / _EXEC
 *
 * Replaces whatever translated the range: the dirty bits of what is
 * cleared go to the BO's chunks (vgpu_chunk_unmapped()).  The TLB is
 * flushed before the call returns.
 *
 * Context: &vgpu_pool.lock held; takes &vgpu_vm.pt_lock.
 * Return: 0, -ENOENT if the VM has no page tables, or -ENXIO if @tbo's
 * pages are not reachable.
 */
int vgpu_vm_pt_remap(struct vgpu_vm *vm, struct vgpu_pt_update *up,
		     struct drm_gpuva *gva, u64 va, u64 size,
		     struct ttm_buffer_object *tbo, u64 addr, u64 pte_flags)
{
	int ret = 0;

	mutex_lock(&vm->pt_lock);
	if (!vm->root) {
		ret = -ENOENT;
	} else {
		vgpu_pt_walk(VGPU_PT_OP_UNMAP, up, vm->root, va, size, NULL, 0,
			     vgpu_chunk_unmapped, gva);
		if (tbo)
			ret = vgpu_pt_map(up, vm->root, va, size, tbo,
					  tbo->resource, addr, pte_flags);
		else
			vgpu_pt_map_linear(up, vm->root, va, addr, size,
					   pte_flags);
	}
	vgpu_vm_pt_commit_locked(vm, up);
	mutex_unlock(&vm->pt_lock);
	return ret;
}

/*
 * Adds what batch @up changed to the VM's pending invalidation, flushed
 * by vgpu_vm_inval_flush().  Context: &vgpu_vm.pt_lock held.
 */
static void vgpu_vm_inval_defer_locked(struct vgpu_vm *vm,
				       struct vgpu_pt_update *up)
{
	struct vgpu_device *vdev = vm->vdev;

	lockdep_assert_held(&vm->pt_lock);
	if (up->inval_start < up->inval_end) {
		vm->inval_start = min(vm->inval_start, up->inval_start);
		vm->inval_end = max(vm->inval_end, up->inval_end);
		spin_lock(&vdev->inval_lock);
		if (list_empty(&vm->inval_link))
			list_add_tail(&vm->inval_link, &vdev->inval_vms);
		spin_unlock(&vdev->inval_lock);
	}
	vgpu_pt_release(up);
}

/**
 * vgpu_vm_pt_zap() - take part of a mapping of pageable memory away, for good
 * @vm: VM
 * @gva: the mapping, of a pageable BO
 * @va: start of the part, 4 KiB aligned, not cutting a leaf
 * @size: bytes
 * @defer: leave the TLB flush to vgpu_vm_inval_flush()
 *
 * Clears the range (keeping its tables, for the next mapping), flushes
 * the TLB and waits for it, then clears what the device set in the
 * entries meanwhile: once this returns, the device can no longer reach
 * the memory and the dirty bits it set are final.  They go to the BO's
 * chunks (vgpu_chunk_unmapped()).
 *
 * With @defer only the first of those steps is done: the device may go
 * on using the translations it cached until the VM's pending
 * invalidation is flushed, and the bits are final only after a second
 * call without @defer, which then finds only what the device set
 * meanwhile.  A batch of evictions does that once for all its victims.
 *
 * Context: &vgpu_pool.lock held; takes &vgpu_vm.pt_lock.
 * Return: the OR of the ACCESSED / DIRTY bits cleared.
 */
u64 vgpu_vm_pt_zap(struct vgpu_vm *vm, struct drm_gpuva *gva, u64 va,
		   u64 size, bool defer)
{
	struct vgpu_pt_update up;
	u64 ad = 0;
	int pass;

	mutex_lock(&vm->pt_lock);
	for (pass = 0; vm->root && pass < 2; pass++) {
		vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);
		ad |= vgpu_pt_walk(VGPU_PT_OP_ZAP, &up, vm->root, va, size, NULL,
				   0, vgpu_chunk_unmapped, gva);
		/* A zap keeps its tables: nothing waits for the flush. */
		if (defer && list_empty(&up.freed)) {
			vgpu_vm_inval_defer_locked(vm, &up);
			break;
		}
		vgpu_vm_pt_commit_locked(vm, &up);
	}
	mutex_unlock(&vm->pt_lock);
	return ad;
}

/**
 * vgpu_vm_bo_age() - test and clear the ACCESSED bits that map part of a BO
 * @bo: user BO, ordinary or pageable
 * @offset: first byte of the part
 * @size: bytes
 *
 * In every VM and at every VA that maps some of [@offset, @offset +
 * @size) of @bo, clears ACCESSED in the leaves that have it, keeping
 * DIRTY (%VGPU_PT_OP_AGE).  The TLB ranges of the leaves cleared are
 * collected per VM and invalidated by vgpu_vm_inval_flush(), once per VM:
 * until then a translation the device still caches may be used without
 * setting the bit again.  The one test-and-clear of the recency sampler,
 * for every kind of pool unit ("Eviction policies and how recency is
 * sampled").
 *
 * Context: &vgpu_pool.lock held; takes @bo's gpuva lock and each VM's
 * page-table lock.
 * Return: whether any of those leaves had ACCESSED.
 */
bool vgpu_vm_bo_age(struct vgpu_bo *bo, u64 offset, u64 size)
{
	struct drm_gem_object *obj = &bo->tbo.base;
	struct drm_gpuvm_bo *vm_bo;
	u64 ad = 0;

	mutex_lock(&bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		struct vgpu_vm *vm = to_vgpu_vm(vm_bo->vm);
		struct vgpu_pt_update up;
		struct drm_gpuva *gva;

		vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);
		mutex_lock(&vm->pt_lock);
		drm_gpuvm_bo_for_each_va(gva, vm_bo) {
			u64 s = max(offset, gva->gem.offset);
			u64 e = min(offset + size, gva->gem.offset + gva->va.range);

			if (s >= e || !vm->root)
				continue;
			ad |= vgpu_pt_walk(VGPU_PT_OP_AGE, &up, vm->root,
					   gva->va.addr + s - gva->gem.offset,
					   e - s, NULL, 0, NULL, NULL);
		}
		vgpu_vm_inval_defer_locked(vm, &up);
		mutex_unlock(&vm->pt_lock);
	}
	mutex_unlock(&bo->gpuva_lock);
	return ad & VGPU_PTE_ACCESSED;
}

/**
 * vgpu_vm_inval_flush() - invalidate the leaves changed without a flush
 * @vdev: vgpu device
 *
 * One range invalidation per VM that had leaves changed without one since
 * the last flush (&vgpu_device.inval_vms: the other VMs are not looked at;
 * none for a VM without a hardware context: it caches nothing): ACCESSED
 * bits vgpu_vm_bo_age() cleared, so that the device
 * walks again, and sets ACCESSED again, at the next use of each; leaves
 * vgpu_vm_pt_zap() took away for a batch of evictions, so that the device
 * can no longer reach the victims.  Waits for each invalidation.
 *
 * Context: &vgpu_pool.lock held; takes &vgpu_device.vms_lock, then each
 * VM's page-table lock; sleeps (TLB invalidation).
 */
void vgpu_vm_inval_flush(struct vgpu_device *vdev)
{
	struct vgpu_vm *vm;

	/* Under the VM list's lock no VM is freed. */
	mutex_lock(&vdev->vms_lock);
	for (;;) {
		spin_lock(&vdev->inval_lock);
		vm = list_first_entry_or_null(&vdev->inval_vms, struct vgpu_vm,
					      inval_link);
		if (vm)
			list_del_init(&vm->inval_link);
		spin_unlock(&vdev->inval_lock);
		if (!vm)
			break;
		mutex_lock(&vm->pt_lock);
		if (vm->inval_start < vm->inval_end)
			vgpu_ctx_inval_range(vm, vm->inval_start,
					     vm->inval_end - vm->inval_start);
		vm->inval_start = U64_MAX;
		vm->inval_end = 0;
		mutex_unlock(&vm->pt_lock);
	}
	mutex_unlock(&vdev->vms_lock);
}

/*
 * Write one mapping into the page tables.  With @reserved the batch
 * already holds the pages for the whole mapping (VM_BIND reserves them
 * before it takes the BO's gpuva lock, since growing the pool may evict
 * another mapped BO); otherwise they are reserved piecewise.
 */
static int vgpu_vm_pt_map_vma(struct vgpu_vm *vm, struct vgpu_pt_update *up,
			      struct vgpu_vma *vma, bool reserved)
{
	struct ttm_buffer_object *tbo = &gem_to_vgpu_bo(vma->base.gem.obj)->tbo;
	u64 va = vma->base.va.addr, end = va + vma->base.va.range;
	u64 offset = vma->base.gem.offset;
	int ret = 0;

	dma_resv_assert_held(tbo->base.resv);
	/* Pageable memory is mapped chunk by chunk, on GPU faults. */
	if (to_vgpu_bo(tbo)->chunks) {
		mutex_lock(&vm->pt_lock);
		vma->mapped = true;
		mutex_unlock(&vm->pt_lock);
		return 0;
	}
	while (va < end) {
		u64 n = reserved ? end - va :
			min_t(u64, end - va, SZ_256M - (va & (SZ_256M - 1)));

		if (!reserved)
			ret = vgpu_vm_pt_reserve(vm, up,
						 vgpu_pt_pages_for_map(va, n));
		if (ret)
			break;
		mutex_lock(&vm->pt_lock);
		ret = vgpu_pt_map(up, vm->root, va, n, tbo, tbo->resource,
				  offset, vma->pte_flags);
		mutex_unlock(&vm->pt_lock);
		if (ret)
			break;
		va += n;
		offset += n;
	}
	mutex_lock(&vm->pt_lock);
	if (ret) {
		/* Undo the part already written; map it again on next EXEC. */
		if (va > vma->base.va.addr)
			vgpu_pt_unmap(up, vm->root, vma->base.va.addr,
				      va - vma->base.va.addr);
		list_add_tail(&vma->rebind_link, &vm->rebind);
	} else {
		vma->mapped = true;
	}
	mutex_unlock(&vm->pt_lock);
	return ret;
}

/* ---------------------------------------------------- drm_gpuvm steps --- */

/**
 * struct vgpu_vm_op_ctx - state of one VM_BIND operation
 * @vm: the VM.
 * @up: the call's page-table batch.
 * @vm_bo: MAP: the BO's &drm_gpuvm_bo.
 * @map: MAP: the new mapping, preallocated.
 * @prev: UNMAP: mapping for the part left of the range, preallocated.
 * @next: UNMAP: mapping for the part right of the range, preallocated.
 * @mirror: MAP of a CPU-address mirror: the mirror, created beforehand.
 * @pte_flags: MAP: permissions.
 */
struct vgpu_vm_op_ctx {
	struct vgpu_vm *vm;
	struct vgpu_pt_update *up;
	struct drm_gpuvm_bo *vm_bo;
	struct vgpu_vma *map;
	struct vgpu_vma *prev;
	struct vgpu_vma *next;
	struct vgpu_svm_mirror *mirror;
	u64 pte_flags;
};

static int vgpu_vm_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct vgpu_vm_op_ctx *ctx = priv;
	struct vgpu_vma *vma = ctx->map;
	int ret;

	if (WARN_ON(!vma))
		return -EINVAL;
	ctx->map = NULL;
	vma->pte_flags = ctx->pte_flags;
	INIT_LIST_HEAD(&vma->rebind_link);
	drm_gpuva_map(&ctx->vm->gpuvm, &vma->base, &op->map);
	if (ctx->mirror) {
		/* Mapped on GPU faults, page by page. */
		vma->mirror = ctx->mirror;
		ctx->mirror = NULL;
		mutex_lock(&ctx->vm->pt_lock);
		vma->mapped = true;
		mutex_unlock(&ctx->vm->pt_lock);
		return 0;
	}
	drm_gpuva_link(&vma->base, ctx->vm_bo);

	ret = vgpu_vm_pt_map_vma(ctx->vm, ctx->up, vma, true);
	if (ret) {
		struct drm_gpuva_op_unmap unmap = { .va = &vma->base };

		mutex_lock(&ctx->vm->pt_lock);
		list_del(&vma->rebind_link);
		mutex_unlock(&ctx->vm->pt_lock);
		drm_gpuva_unmap(&unmap);
		drm_gpuva_unlink(&vma->base);
		kfree(vma);
	}
	return ret;
}

/*
 * Clear [@start, @start + @range) of mapping @va.  The chunks of pageable
 * memory take note of the device's dirty bits in what is cleared.
 *
 * Context: &vgpu_vm.pt_lock held, and for pageable memory
 * &vgpu_pool.lock (vgpu_vm_paging_lock()).
 */
static void vgpu_vm_pt_unmap_va_locked(struct vgpu_vm *vm,
				       struct vgpu_pt_update *up,
				       struct drm_gpuva *va, u64 start,
				       u64 range)
{
	lockdep_assert_held(&vm->pt_lock);
	if (gem_to_vgpu_bo(va->gem.obj)->chunks)
		vgpu_pt_walk(VGPU_PT_OP_UNMAP, up, vm->root, start, range,
			     NULL, 0, vgpu_chunk_unmapped, va);
	else
		vgpu_pt_unmap(up, vm->root, start, range);
}

/* Unmapping pageable memory changes its chunks: their lock goes first. */
static void vgpu_vm_paging_lock(struct vgpu_vm *vm, struct vgpu_bo *bo)
{
	if (bo->chunks)
		vgpu_pool_lock(&vm->vdev->pool);
}

static void vgpu_vm_paging_unlock(struct vgpu_vm *vm, struct vgpu_bo *bo)
{
	if (bo->chunks)
		vgpu_pool_unlock(&vm->vdev->pool);
}

static void vgpu_vm_vma_forget_locked(struct vgpu_vm *vm, struct vgpu_vma *vma)
{
	lockdep_assert_held(&vm->pt_lock);
	if (!vma->mapped)
		list_del(&vma->rebind_link);
}

static void vgpu_vm_vma_inherit_locked(struct vgpu_vm *vm, struct vgpu_vma *vma,
				       struct vgpu_vma *old)
{
	vma->pte_flags = old->pte_flags;
	vma->mapped = old->mapped;
	INIT_LIST_HEAD(&vma->rebind_link);
	if (!vma->mapped)
		list_add_tail(&vma->rebind_link, &vm->rebind);
}

/* @old is split into @prev and @next (either may be NULL). */
static void vgpu_vm_vma_split_locked(struct vgpu_vm *vm, struct vgpu_vma *old,
				     struct vgpu_vma *prev,
				     struct vgpu_vma *next)
{
	vgpu_vm_vma_forget_locked(vm, old);
	if (prev)
		vgpu_vm_vma_inherit_locked(vm, prev, old);
	if (next)
		vgpu_vm_vma_inherit_locked(vm, next, old);
}

/*
 * Remove the mirror of @vma: stop watching the CPU, take its pages away,
 * free the tables of [@start, @start + @range) (in the batch).
 */
static void vgpu_vm_mirror_remove(struct vgpu_vm_op_ctx *ctx,
				  struct vgpu_vma *vma, u64 start, u64 range)
{
	struct vgpu_vm *vm = ctx->vm;

	vgpu_svm_mirror_destroy(vma->mirror);
	vma->mirror = NULL;
	mutex_lock(&vm->pt_lock);
	if (vm->root)
		vgpu_pt_unmap(ctx->up, vm->root, start, range);
	mutex_unlock(&vm->pt_lock);
}

/* A new mirror for the part @vma of a cut one; 0 or a negative errno. */
static int vgpu_vm_mirror_part(struct vgpu_vm *vm, struct vgpu_vma *vma,
			       struct vgpu_vma *old, struct drm_gpuva_op_map *op)
{
	struct vgpu_svm_mirror *m;

	if (!vma)
		return 0;
	m = vgpu_svm_mirror_create(vm, op->va.addr, op->va.range,
				   old->mirror->pte_flags);
	if (IS_ERR(m))
		return PTR_ERR(m);
	vma->mirror = m;
	return 0;
}

/*
 * An UNMAP cut a mirror: the parts outside the range become mirrors of
 * their own, empty (the GPU faults their pages in again).
 */
static int vgpu_vm_step_remap_mirror(struct vgpu_vm_op_ctx *ctx,
				     struct drm_gpuva_op *op,
				     struct vgpu_vma *prev,
				     struct vgpu_vma *next, u64 start,
				     u64 range)
{
	struct drm_gpuva *old = op->remap.unmap->va;
	struct vgpu_vma *ovma = to_vgpu_vma(old);
	struct vgpu_vm *vm = ctx->vm;
	int ret;

	ret = vgpu_vm_mirror_part(vm, prev, ovma, op->remap.prev);
	if (!ret)
		ret = vgpu_vm_mirror_part(vm, next, ovma, op->remap.next);
	if (ret) {
		if (prev && prev->mirror)
			vgpu_svm_mirror_destroy(prev->mirror);
		/* Not used: the VM_BIND frees them. */
		ctx->prev = prev;
		ctx->next = next;
		return ret;
	}
	vgpu_advice_clear(vm, start, range);
	vgpu_vm_mirror_remove(ctx, ovma, start, range);
	mutex_lock(&vm->pt_lock);
	vgpu_vm_vma_split_locked(vm, ovma, prev, next);
	mutex_unlock(&vm->pt_lock);
	drm_gpuva_remap(prev ? &prev->base : NULL, next ? &next->base : NULL,
			&op->remap);
	kfree(ovma);
	return 0;
}

static int vgpu_vm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct vgpu_vm_op_ctx *ctx = priv;
	struct vgpu_vm *vm = ctx->vm;
	struct drm_gpuva *old = op->remap.unmap->va;
	struct vgpu_vma *ovma = to_vgpu_vma(old);
	struct drm_gem_object *obj = old->gem.obj;
	struct vgpu_bo *bo = gem_to_vgpu_bo(obj);
	struct vgpu_vma *prev = NULL, *next = NULL;
	u64 start, range;

	if (op->remap.prev) {
		prev = ctx->prev;
		ctx->prev = NULL;
	}
	if (op->remap.next) {
		next = ctx->next;
		ctx->next = NULL;
	}
	if (WARN_ON((op->remap.prev && !prev) || (op->remap.next && !next)))
		return -EINVAL;

	drm_gpuva_op_remap_to_unmap_range(&op->remap, &start, &range);
	if (ovma->mirror)
		return vgpu_vm_step_remap_mirror(ctx, op, prev, next, start,
						 range);
	drm_gem_object_get(obj);
	vgpu_vm_paging_lock(vm, bo);
	mutex_lock(&bo->gpuva_lock);
	mutex_lock(&vm->pt_lock);
	/* The surviving parts stay in the page tables as they are. */
	if (ovma->mapped)
		vgpu_vm_pt_unmap_va_locked(vm, ctx->up, old, start, range);
	vgpu_vm_vma_split_locked(vm, ovma, prev, next);
	mutex_unlock(&vm->pt_lock);

	drm_gpuva_remap(prev ? &prev->base : NULL, next ? &next->base : NULL,
			&op->remap);
	if (prev)
		drm_gpuva_link(&prev->base, old->vm_bo);
	if (next)
		drm_gpuva_link(&next->base, old->vm_bo);
	drm_gpuva_unlink(old);
	mutex_unlock(&bo->gpuva_lock);
	/* The cut part's hints go with it; its chunks keep the others'. */
	vgpu_advice_clear(vm, start, range);
	if (bo->chunks)
		vgpu_chunk_advice_update(bo, old->gem.offset + (start - old->va.addr),
					 range);
	vgpu_vm_paging_unlock(vm, bo);
	drm_gem_object_put(obj);
	kfree(ovma);
	return 0;
}

static int vgpu_vm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct vgpu_vm_op_ctx *ctx = priv;
	struct vgpu_vm *vm = ctx->vm;
	struct drm_gpuva *va = op->unmap.va;
	struct vgpu_vma *vma = to_vgpu_vma(va);
	struct drm_gem_object *obj = va->gem.obj;
	struct vgpu_bo *bo = gem_to_vgpu_bo(obj);

	if (vma->mirror) {
		vgpu_advice_clear(vm, va->va.addr, va->va.range);
		vgpu_vm_mirror_remove(ctx, vma, va->va.addr, va->va.range);
		mutex_lock(&vm->pt_lock);
		vgpu_vm_vma_forget_locked(vm, vma);
		mutex_unlock(&vm->pt_lock);
		drm_gpuva_unmap(&op->unmap);
		kfree(vma);
		return 0;
	}
	drm_gem_object_get(obj);
	vgpu_vm_paging_lock(vm, bo);
	mutex_lock(&bo->gpuva_lock);
	mutex_lock(&vm->pt_lock);
	if (vma->mapped)
		vgpu_vm_pt_unmap_va_locked(vm, ctx->up, va, va->va.addr,
					   va->va.range);
	vgpu_vm_vma_forget_locked(vm, vma);
	mutex_unlock(&vm->pt_lock);
	drm_gpuva_unmap(&op->unmap);
	drm_gpuva_unlink(va);
	mutex_unlock(&bo->gpuva_lock);
	vgpu_advice_clear(vm, va->va.addr, va->va.range);
	if (bo->chunks)
		vgpu_chunk_advice_update(bo, va->gem.offset, va->va.range);
	vgpu_vm_paging_unlock(vm, bo);
	drm_gem_object_put(obj);
	kfree(vma);
	return 0;
}

static void vgpu_vm_free(struct drm_gpuvm *gpuvm)
{
	struct vgpu_vm *vm = to_vgpu_vm(gpuvm);

	mutex_lock(&vm->vdev->vms_lock);
	if (!vm->kernel)
		list_del(&vm->link);
	spin_lock(&vm->vdev->inval_lock);
	list_del_init(&vm->inval_link);
	spin_unlock(&vm->vdev->inval_lock);
	mutex_unlock(&vm->vdev->vms_lock);
	vgpu_stream_fini(vm);
	vgpu_advice_fini(vm);
	vgpu_svm_dmem_vm_gone(vm);
	if (vm->mm)
		mmdrop(vm->mm);
	kfree(vm);
}

static const struct drm_gpuvm_ops vgpu_gpuvm_ops = {
	.vm_free = vgpu_vm_free,
	.sm_step_map = vgpu_vm_step_map,
	.sm_step_remap = vgpu_vm_step_remap,
	.sm_step_unmap = vgpu_vm_step_unmap,
};

/* -------------------------------------------------------- operations --- */

/* MAP of a CPU-address mirror: nothing to map until the GPU faults. */
static int vgpu_vm_op_map_mirror(struct vgpu_vm_op_ctx *ctx, u64 va, u64 range)
{
	int ret;

	ctx->mirror = vgpu_svm_mirror_create(ctx->vm, va, range,
					     ctx->pte_flags);
	if (IS_ERR(ctx->mirror))
		return PTR_ERR(ctx->mirror);
	ret = drm_gpuvm_sm_map(&ctx->vm->gpuvm, ctx, va, range, NULL, 0);
	if (ctx->mirror)
		vgpu_svm_mirror_destroy(ctx->mirror);
	return ret;
}

/* MAP of a BO range, or with @obj NULL of a CPU-address mirror. */
static int vgpu_vm_op_map(struct vgpu_vm *vm, struct vgpu_pt_update *up,
			  struct drm_gem_object *obj, u64 bo_offset, u64 va,
			  u64 range, u32 perms)
{
	struct vgpu_bo *bo = obj ? gem_to_vgpu_bo(obj) : NULL;
	struct vgpu_vm_op_ctx ctx = {
		.vm = vm, .up = up, .pte_flags = vgpu_vm_pte_flags(perms),
	};
	int ret;

	lockdep_assert_held_write(&vm->lock);
	if (drm_gpuva_find_first(&vm->gpuvm, va, range))
		return -EEXIST;

	ctx.map = kzalloc(sizeof(*ctx.map), GFP_KERNEL);
	if (!ctx.map)
		return -ENOMEM;
	if (!obj) {
		ret = vgpu_vm_op_map_mirror(&ctx, va, range);
		goto err_free_vma;
	}

	/*
	 * Page-table pages before any lock: growing the pool may make TTM
	 * evict another mapped BO, whose move takes its gpuva lock.
	 * Pageable memory is mapped on faults.
	 */
	ret = vgpu_vm_root_prepare(vm, up);
	if (!ret && !bo->chunks)
		ret = vgpu_vm_pt_reserve(vm, up, vgpu_pt_pages_for_map(va, range));
	if (ret)
		goto err_free_vma;

	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret)
		goto err_free_vma;
	/* The device must reach the memory: bring it back from swap. */
	ret = vgpu_bo_validate(bo, true);
	if (ret)
		goto err_unlock_resv;

	mutex_lock(&bo->gpuva_lock);
	ctx.vm_bo = drm_gpuvm_bo_obtain(&vm->gpuvm, obj);
	if (IS_ERR(ctx.vm_bo)) {
		ret = PTR_ERR(ctx.vm_bo);
		goto err_unlock_gpuva;
	}
	drm_gpuvm_bo_extobj_add(ctx.vm_bo);
	ret = drm_gpuvm_sm_map(&vm->gpuvm, &ctx, va, range, obj, bo_offset);
	drm_gpuvm_bo_put(ctx.vm_bo);

err_unlock_gpuva:
	mutex_unlock(&bo->gpuva_lock);
err_unlock_resv:
	dma_resv_unlock(obj->resv);
err_free_vma:
	kfree(ctx.map);
	return ret;
}

static int vgpu_vm_op_unmap(struct vgpu_vm *vm, struct vgpu_pt_update *up,
			    u64 va, u64 range)
{
	struct vgpu_vm_op_ctx ctx = { .vm = vm, .up = up };
	int ret;

	lockdep_assert_held_write(&vm->lock);
	ctx.prev = kzalloc(sizeof(*ctx.prev), GFP_KERNEL);
	ctx.next = kzalloc(sizeof(*ctx.next), GFP_KERNEL);
	if (!ctx.prev || !ctx.next) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * Splitting large leaves at the two ends takes a table each, even
	 * above the VM's limit: an unmap must not fail for it.
	 */
	ret = vgpu_vm_pt_reserve_any(up, vgpu_pt_pages_for_unmap(va, range));
	if (ret)
		goto out;
	ret = drm_gpuvm_sm_unmap(&vm->gpuvm, &ctx, va, range);
out:
	kfree(ctx.prev);
	kfree(ctx.next);
	return ret;
}

/* ------------------------------------------------------------- life --- */

/**
 * vgpu_vm_create() - a new, empty GPU VM
 * @vdev: vgpu device
 * @kernel: the kernel's own VM: its root now, no page-table limit
 *
 * A user VM allocates nothing on the device until its first mapping.
 *
 * Return: the VM with one reference, or an ERR_PTR().
 */
struct vgpu_vm *vgpu_vm_create(struct vgpu_device *vdev, bool kernel)
{
	struct drm_device *drm = &vdev->drm;
	struct drm_gem_object *r_obj;
	struct vgpu_pt_update up;
	struct vgpu_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	vm->vdev = vdev;
	vm->kernel = kernel;
	vm->hw_ctx = -1;
	init_rwsem(&vm->users);
	init_rwsem(&vm->lock);
	mutex_init(&vm->pt_lock);
	mutex_init(&vm->entity_lock);
	INIT_LIST_HEAD(&vm->rebind);
	vgpu_advice_init(vm);
	vgpu_svm_vm_init(vm);
	vm->inval_start = U64_MAX;
	INIT_LIST_HEAD(&vm->inval_link);
	vgpu_stream_init(vm);

	r_obj = drm_gpuvm_resv_object_alloc(drm);
	if (!r_obj) {
		kfree(vm);
		return ERR_PTR(-ENOMEM);
	}
	drm_gpuvm_init(&vm->gpuvm, "vgpu", 0, drm, r_obj, 0, VGPU_VA_END,
		       VGPU_VM_USER_END, VGPU_VA_END - VGPU_VM_USER_END,
		       &vgpu_gpuvm_ops);
	/* drm_gpuvm holds its own reference to the resv object. */
	drm_gem_object_put(r_obj);
	if (!kernel) {
		/* The process whose memory mirrors reflect. */
		vm->mm = current->mm;
		if (vm->mm)
			mmgrab(vm->mm);
		mutex_lock(&vdev->vms_lock);
		list_add_tail(&vm->link, &vdev->vms);
		mutex_unlock(&vdev->vms_lock);
		return vm;
	}

	vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
	ret = vgpu_vm_root_prepare(vm, &up);
	mutex_lock(&vm->pt_lock);
	vgpu_pt_release(&up);
	mutex_unlock(&vm->pt_lock);
	if (ret) {
		/* vgpu_vm_free() frees @vm once drm_gpuvm lets go. */
		drm_gpuvm_put(&vm->gpuvm);
		return ERR_PTR(ret);
	}
	return vm;
}

/*
 * Take every user mapping out of the VM.  Nothing here can fail: whole
 * mappings are removed, so no large leaf is split and no table allocated.
 */
static void vgpu_vm_unmap_all(struct vgpu_vm *vm, struct vgpu_pt_update *up)
{
	struct drm_gpuva *va, *next;

	lockdep_assert_held_write(&vm->lock);
	drm_gpuvm_for_each_va_safe(va, next, &vm->gpuvm) {
		struct drm_gpuva_op_unmap unmap = { .va = va };
		struct drm_gpuva_op op = { .op = DRM_GPUVA_OP_UNMAP,
					   .unmap = unmap };
		struct vgpu_vm_op_ctx ctx = { .vm = vm, .up = up };

		if (va == &vm->gpuvm.kernel_alloc_node)
			continue;
		vgpu_vm_step_unmap(&op, &ctx);
	}
}

/**
 * vgpu_vm_destroy() - unmap everything and give back the VM's resources
 * @vm: VM of a closing file; no job of it is left
 *
 * Cannot fail half-way: the mappings go without allocating, then the
 * context, then the page tables.  Drops the file's reference; the memory
 * goes when the last job does.
 */
void vgpu_vm_destroy(struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_pt_update up;

	down_write(&vm->lock);
	vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
	vgpu_vm_unmap_all(vm, &up);
	mutex_lock(&vm->pt_lock);
	vgpu_vm_pt_commit_locked(vm, &up);
	mutex_unlock(&vm->pt_lock);

	/* The context goes first: the device must not walk freed tables. */
	vgpu_ctx_release(vm);
	mutex_lock(&vm->pt_lock);
	vgpu_pt_free_tree(vdev, vm->root);
	WRITE_ONCE(vm->root, NULL);
	mutex_unlock(&vm->pt_lock);
	up_write(&vm->lock);

	/* Before the put, which may be the device's last reference. */
	vgpu_pt_pool_trim(vdev);
	vgpu_vm_put(vm);
}

static void vgpu_vm_put_work(struct work_struct *work)
{
	vgpu_vm_put(container_of(work, struct vgpu_vm, put_work));
}

/**
 * vgpu_vm_put_async() - drop a VM reference from a scheduler's work
 * @vm: VM, or NULL
 *
 * drm_gpuvm holds a reference on the DRM device, so the last reference of
 * a VM may be the device's last (an unplugged device whose files are
 * closed), and the device's release stops the schedulers and waits for
 * their work.  A job freed by its scheduler therefore must not drop it:
 * such a last reference goes to &vgpu_release_wq, which module exit
 * drains.  Any other reference is dropped at once.
 */
void vgpu_vm_put_async(struct vgpu_vm *vm)
{
	if (!vm || refcount_dec_not_one(&vm->gpuvm.kref.refcount))
		return;
	/* The last reference: nobody else can see @vm any more. */
	INIT_WORK(&vm->put_work, vgpu_vm_put_work);
	queue_work(vgpu_release_wq, &vm->put_work);
}

/* The last jobs of a closed file finished: free what they used. */
static void vgpu_vm_close_work(struct work_struct *work)
{
	struct vgpu_vm *vm = container_of(work, struct vgpu_vm, close_work);
	struct dma_fence *f;

	/* Bounded: the VM is banned, its jobs get no extension. */
	while ((f = vgpu_queues_vm_fence(vm->vdev, vm))) {
		dma_fence_wait(f, false);
		dma_fence_put(f);
	}
	vgpu_vm_destroy(vm);
}

/**
 * vgpu_vm_close() - the file owning a VM is closing, or VM_DESTROY
 * @vm: the VM; nothing can submit to it any more
 *
 * Jobs still queued are waited for until they reach the device (killably;
 * at process exit for the scheduler's flush timeout at most), then the
 * rest is killed; the VM is banned, so that its jobs on the
 * device end by the job timeout at the latest (no extension for progress)
 * and nothing new starts.  close() waits for them (every job of the VM on
 * every ring, vgpu_queues_vm_fence()) for at most %VGPU_VM_CLOSE_WAIT_MS,
 * killably; if they still run, the VM's page tables and context are freed
 * by a worker once they end.
 */
void vgpu_vm_close(struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = vm->vdev;
	unsigned long end = jiffies + msecs_to_jiffies(VGPU_VM_CLOSE_WAIT_MS);
	struct dma_fence *f;
	bool busy = false;
	int idx;

	vgpu_vm_entities_fini(vm);
	vgpu_vm_ban(vm);
	while (!busy && (f = vgpu_queues_vm_fence(vdev, vm))) {
		long left = (long)(end - jiffies);

		left = left > 0 ? dma_fence_wait_timeout(f, true, left) : 0;
		dma_fence_put(f);
		busy = left <= 0;
	}
	/* An unplugged device signalled every fence: nothing to defer. */
	if (busy && drm_dev_enter(&vdev->drm, &idx)) {
		drm_dbg_driver(&vdev->drm, "VM of client %llu: jobs still running at close, freeing later\n",
			       vm->client_id);
		INIT_WORK(&vm->close_work, vgpu_vm_close_work);
		queue_work(vdev->wq, &vm->close_work);
		drm_dev_exit(idx);
		return;
	}
	vgpu_vm_close_work(&vm->close_work);
}

/**
 * vgpu_vm_unplug_all() - the device is going: free the VMs' DMA memory
 * @vdev: vgpu device, unplugged, every job failed
 *
 * The files stay open, but DMA memory must not outlive the driver's
 * binding: each VM's stream buffer goes now.
 */
void vgpu_vm_unplug_all(struct vgpu_device *vdev)
{
	struct vgpu_vm *vm;

	mutex_lock(&vdev->vms_lock);
	list_for_each_entry(vm, &vdev->vms, link)
		vgpu_stream_unplug(vm);
	mutex_unlock(&vdev->vms_lock);
}

/**
 * vgpu_vm_ban() - refuse every later EXEC and VM_BIND of a VM
 * @vm: VM whose job took an unresolvable GPU fault
 */
void vgpu_vm_ban(struct vgpu_vm *vm)
{
	atomic_set(&vm->banned, 1);
}

/* ------------------------------------------------------ moves, rebind --- */

/**
 * vgpu_vm_bo_move() - a BO's memory is moving: take it out of every VM
 * @bo: the BO, reserved
 * @new_mem: where it goes (unused: the next EXEC maps it there)
 *
 * Context: BO reserved; may sleep (TLB invalidation).
 */
void vgpu_vm_bo_move(struct vgpu_bo *bo, struct ttm_resource *new_mem)
{
	struct drm_gem_object *obj = &bo->tbo.base;
	struct drm_gpuvm_bo *vm_bo;

	dma_resv_assert_held(obj->resv);
	mutex_lock(&bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		struct vgpu_vm *vm = to_vgpu_vm(vm_bo->vm);
		struct vgpu_pt_update up;
		struct drm_gpuva *va;

		vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);
		mutex_lock(&vm->pt_lock);
		drm_gpuvm_bo_for_each_va(va, vm_bo) {
			struct vgpu_vma *vma = to_vgpu_vma(va);

			if (!vma->mapped)
				continue;
			/* Whole mappings: nothing to split, nothing to allocate. */
			vgpu_pt_unmap(&up, vm->root, va->va.addr, va->va.range);
			/* Pageable memory faults its chunks back in. */
			if (bo->chunks)
				continue;
			vma->mapped = false;
			list_add_tail(&vma->rebind_link, &vm->rebind);
		}
		vgpu_vm_pt_commit_locked(vm, &up);
		mutex_unlock(&vm->pt_lock);
	}
	mutex_unlock(&bo->gpuva_lock);
}

/**
 * vgpu_vm_rebind() - map again every mapping whose BO moved
 * @vm: VM; its lock held for reading and every BO of it reserved
 *
 * Validates each such BO (back into its placements) and writes its
 * mappings at the new place.
 *
 * Return: 0 or a negative errno; mappings not done stay on the list.
 */
int vgpu_vm_rebind(struct vgpu_vm *vm)
{
	struct vgpu_pt_update up;
	struct vgpu_vma *vma, *tmp;
	LIST_HEAD(todo);
	int ret = 0, rounds;

	lockdep_assert_held(&vm->lock);
	vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);

	/* Validating one BO may move another mapped one: loop until calm. */
	for (rounds = 0; rounds < 4; rounds++) {
		mutex_lock(&vm->pt_lock);
		list_splice_tail_init(&vm->rebind, &todo);
		mutex_unlock(&vm->pt_lock);
		if (list_empty(&todo))
			break;

		list_for_each_entry(vma, &todo, rebind_link) {
			ret = vgpu_bo_validate(gem_to_vgpu_bo(vma->base.gem.obj), true);
			if (ret)
				goto out;
		}
		list_for_each_entry_safe(vma, tmp, &todo, rebind_link) {
			list_del_init(&vma->rebind_link);
			if (vma->mapped)
				continue;
			ret = vgpu_vm_pt_map_vma(vm, &up, vma, false);
			if (ret)
				goto out;
		}
	}
out:
	mutex_lock(&vm->pt_lock);
	list_splice_tail(&todo, &vm->rebind);
	vgpu_vm_pt_commit_locked(vm, &up);
	mutex_unlock(&vm->pt_lock);
	return ret;
}

/* ------------------------------------------------------------- ioctls --- */

/* A MAP of a CPU-address mirror: see &struct drm_vgpu_vm_bind_op. */
static int vgpu_vm_check_mirror(struct drm_device *drm, struct vgpu_vm *vm,
				const struct drm_vgpu_vm_bind_op *op)
{
	if (VGPU_IOCTL_DBG(drm, !vgpu_svm_modes(vm->vdev)))
		return -EOPNOTSUPP;
	if (VGPU_IOCTL_DBG(drm, op->handle || op->bo_offset) ||
	    VGPU_IOCTL_DBG(drm, !(op->flags & DRM_VGPU_VM_BIND_READ) ||
			   (op->flags & DRM_VGPU_VM_BIND_EXEC)) ||
	    VGPU_IOCTL_DBG(drm, op->va >= TASK_SIZE ||
			   op->range > TASK_SIZE - op->va))
		return -EINVAL;
	if (VGPU_IOCTL_DBG(drm, !vm->mm || current->mm != vm->mm))
		return -EPERM;
	vgpu_svm_dmem_get(vm->vdev);
	return 0;
}

static int vgpu_vm_check_op(struct drm_device *drm, struct drm_file *file,
			    struct vgpu_vm *vm,
			    const struct drm_vgpu_vm_bind_op *op,
			    struct drm_gem_object **obj)
{
	bool map = op->op == DRM_VGPU_VM_BIND_OP_MAP;
	u32 perms = op->flags & ~DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR;

	*obj = NULL;
	if (VGPU_IOCTL_DBG(drm, op->op != DRM_VGPU_VM_BIND_OP_MAP &&
			   op->op != DRM_VGPU_VM_BIND_OP_UNMAP) ||
	    VGPU_IOCTL_DBG(drm, op->pad || op->reserved) ||
	    VGPU_IOCTL_DBG(drm, map && (!perms ||
					(perms & ~DRM_VGPU_VM_BIND_PERMS))) ||
	    VGPU_IOCTL_DBG(drm, !map && (op->flags || op->handle || op->bo_offset)) ||
	    VGPU_IOCTL_DBG(drm, !op->range) ||
	    VGPU_IOCTL_DBG(drm, !IS_ALIGNED(op->va | op->range | op->bo_offset,
					    VGPU_PAGE_SIZE_4K)) ||
	    VGPU_IOCTL_DBG(drm, op->va < VGPU_VM_USER_START ||
			   op->va >= VGPU_VM_USER_END ||
			   op->range > VGPU_VM_USER_END - op->va))
		return -EINVAL;
	if (!map)
		return 0;
	if (op->flags & DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR)
		return vgpu_vm_check_mirror(drm, vm, op);

	*obj = drm_gem_object_lookup(file, op->handle);
	if (VGPU_IOCTL_DBG(drm, !*obj))
		return -ENOENT;
	if (VGPU_IOCTL_DBG(drm, op->bo_offset >= (*obj)->size ||
			   op->range > (*obj)->size - op->bo_offset))
		return -EINVAL;
	return 0;
}

/**
 * vgpu_vm_bind_ioctl() - DRM_IOCTL_VGPU_VM_BIND
 * @drm: DRM device
 * @data: &struct drm_vgpu_vm_bind
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_vm_bind.
 */
int vgpu_vm_bind_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct drm_vgpu_vm_bind *args = data;
	struct drm_vgpu_vm_bind_op *ops;
	struct drm_gem_object **objs;
	struct vgpu_pt_update up;
	u32 i, n = args->num_ops;
	struct vgpu_vm *vm;
	int ret;

	if (VGPU_IOCTL_DBG(drm, args->flags) ||
	    VGPU_IOCTL_DBG(drm, !n || n > VGPU_VM_MAX_BIND_OPS) ||
	    VGPU_IOCTL_DBG(drm, args->op_size != sizeof(*ops)))
		return -EINVAL;
	vm = vgpu_file_vm_get(file, args->vm_id);
	if (IS_ERR(vm))
		return PTR_ERR(vm);

	ops = kvmalloc_array(n, sizeof(*ops), GFP_KERNEL);
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!ops || !objs) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(ops, u64_to_user_ptr(args->ops), n * sizeof(*ops))) {
		ret = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		ret = vgpu_vm_check_op(drm, file, vm, &ops[i], &objs[i]);
		if (ret)
			goto out_put;
	}
	if (vgpu_vm_banned(vm)) {
		ret = -ECANCELED;
		goto out_put;
	}

	down_write(&vm->lock);
	vgpu_pt_update_init(&up, vdev, &vm->pt_stats);
	for (i = 0; i < n && !ret; i++) {
		if (ops[i].op == DRM_VGPU_VM_BIND_OP_MAP)
			ret = vgpu_vm_op_map(vm, &up, objs[i], ops[i].bo_offset,
					     ops[i].va, ops[i].range,
					     ops[i].flags & DRM_VGPU_VM_BIND_PERMS);
		else
			ret = vgpu_vm_op_unmap(vm, &up, ops[i].va, ops[i].range);
	}
	mutex_lock(&vm->pt_lock);
	vgpu_vm_pt_commit_locked(vm, &up);
	mutex_unlock(&vm->pt_lock);
	up_write(&vm->lock);
	vgpu_pt_pool_trim(vdev);

out_put:
	for (i = 0; i < n; i++)
		if (objs[i])
			drm_gem_object_put(objs[i]);
out_free:
	kvfree(objs);
	kvfree(ops);
	vgpu_file_vm_put(vm);
	return ret;
}

/**
 * vgpu_vm_count_mappings() - a VM's user mappings
 * @vm: VM
 * @mappings: out, how many
 * @bytes: out, bytes of VA they cover
 */
void vgpu_vm_count_mappings(struct vgpu_vm *vm, u64 *mappings, u64 *bytes)
{
	struct drm_gpuva *va;

	*mappings = 0;
	*bytes = 0;
	down_read(&vm->lock);
	drm_gpuvm_for_each_va_range(va, &vm->gpuvm, VGPU_VM_USER_START,
				    VGPU_VM_USER_END) {
		(*mappings)++;
		*bytes += va->va.range;
	}
	up_read(&vm->lock);
}

#define VGPU_VM_QUERY_FIELD(field, id)					\
	VGPU_STATS_FIELD(struct drm_vgpu_query_vm, field, id)

/* The driver's counters in &struct drm_vgpu_query_vm. */
static const struct vgpu_stats_field vgpu_vm_query_stats[] = {
	VGPU_VM_QUERY_FIELD(tlb_invalidations, TLB_INVALIDATIONS),
	VGPU_VM_QUERY_FIELD(context_switches, CONTEXT_SWITCHES),
	VGPU_VM_QUERY_FIELD(jobs_submitted, JOBS_SUBMITTED),
	VGPU_VM_QUERY_FIELD(jobs_completed, JOBS_COMPLETED),
	VGPU_VM_QUERY_FIELD(jobs_failed, JOBS_FAILED),
	VGPU_VM_QUERY_FIELD(gpu_faults, FAULTS_HANDLED),
};

/**
 * vgpu_vm_query() - fill &struct drm_vgpu_query_vm for a VM
 * @vm: VM
 * @q: report, zeroed by the caller
 */
void vgpu_vm_query(struct vgpu_vm *vm, struct drm_vgpu_query_vm *q)
{
	u64 hw[VGPU_CTR_NR];
	int hw_ctx;

	/* The uapi bank is the first DRM_VGPU_NUM_COUNTERS of the device's. */
	static_assert(DRM_VGPU_NUM_COUNTERS <= VGPU_CTR_NR);
	vgpu_ctx_counters(vm, hw, &hw_ctx);
	memcpy(q->device, hw, sizeof(q->device));
	q->context = hw_ctx;
	q->state = (vgpu_vm_banned(vm) ? DRM_VGPU_VM_STATE_BANNED : 0) |
		   (hw_ctx >= 0 ? DRM_VGPU_VM_STATE_HAS_CONTEXT : 0);

	vgpu_vm_count_mappings(vm, &q->mappings, &q->mapped_bytes);
	mutex_lock(&vm->pt_lock);
	q->pt_pages = vm->pt_stats.tables;
	q->leaves_4k = vm->pt_stats.leaves_4k;
	q->leaves_64k = vm->pt_stats.leaves_64k;
	q->leaves_2m = vm->pt_stats.leaves_2m;
	mutex_unlock(&vm->pt_lock);

	vgpu_stats_fill(q, vgpu_vm_query_stats, ARRAY_SIZE(vgpu_vm_query_stats),
			vm->vdev, vm);
}
