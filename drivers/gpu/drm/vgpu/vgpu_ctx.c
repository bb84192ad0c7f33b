// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/moduleparam.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_stats.h"
#include "vgpu_tlb.h"
#include "vgpu_vm.h"

static unsigned int vgpu_max_contexts;
module_param_named(max_contexts, vgpu_max_contexts, uint, 0644);
MODULE_PARM_DESC(max_contexts,
		 "Hardware contexts lent to user VMs (default 0: all the device has)");

/**
 * DOC: hardware contexts
 *
 * The device has %VGPU_NUM_CONTEXTS address-space contexts, each a
 * page-table root register; queues run on a context and the TLBs tag
 * entries with it.  There may be many more VMs than contexts, so contexts
 * are lent out: a VM takes one when a job of it is about to run
 * (vgpu_ctx_get()) and keeps it afterwards, so that its TLB entries stay
 * warm, until another VM needs it.  Each use stamps the context with an
 * LRU clock; when none is free, the least recently used context whose VM
 * has no job in flight is taken over: its root is rewritten and every
 * TLB entry of that context invalidated before the new VM runs.  When
 * every context is busy, the job waits for a fence that signals when a VM
 * stops using its context (vgpu_ctx_wait_fence()), then tries again: it
 * never fails for want of a context.
 *
 * The module parameter ``max_contexts`` lends fewer contexts than the
 * device has, to study (and test) context pressure.
 *
 * The device counts events per context.  A VM's device counters are the
 * sum, over the contexts it held, of what the context counted while it
 * held it: snapshots at acquire, accumulated at take-over and release.
 *
 * A VM without a context has nothing in any TLB, so page-table changes
 * of such a VM need no invalidation; vgpu_ctx_inval_range() decides under
 * the lock, so a context cannot be lent out half-way through.
 */

/**
 * vgpu_ctx_init() - all contexts free
 * @vdev: vgpu device
 */
void vgpu_ctx_init(struct vgpu_device *vdev)
{
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;

	mutex_init(&mgr->lock);
	spin_lock_init(&mgr->wait_lock);
	mgr->wait_context = dma_fence_context_alloc(1);
	mgr->count = min_t(u32, vdev->num_contexts, VGPU_NUM_CONTEXTS);
	mgr->first = VGPU_KERNEL_CONTEXTS;
}

static const char *vgpu_ctx_fence_driver_name(struct dma_fence *fence)
{
	return "vgpu";
}

static const char *vgpu_ctx_fence_timeline_name(struct dma_fence *fence)
{
	return "context-free";
}

static const struct dma_fence_ops vgpu_ctx_fence_ops = {
	.get_driver_name = vgpu_ctx_fence_driver_name,
	.get_timeline_name = vgpu_ctx_fence_timeline_name,
};

/* A context may have become free: wake the jobs waiting for one. */
static void vgpu_ctx_wake(struct vgpu_ctx_mgr *mgr)
{
	struct dma_fence *fence;
	unsigned long flags;

	spin_lock_irqsave(&mgr->wait_lock, flags);
	fence = mgr->wait_fence;
	mgr->wait_fence = NULL;
	spin_unlock_irqrestore(&mgr->wait_lock, flags);
	if (fence) {
		dma_fence_signal(fence);
		dma_fence_put(fence);
	}
}

static void vgpu_ctx_snapshot(struct vgpu_device *vdev, u32 ctx, u64 *ctr)
{
	int i;

	for (i = 0; i < VGPU_CTR_NR; i++)
		ctr[i] = vgpu_rd64(vdev, VGPU_COUNTER_CTX(ctx, i));
}

static void vgpu_ctx_detach_locked(struct vgpu_device *vdev, struct vgpu_vm *vm)
{
	u64 now[VGPU_CTR_NR];
	int i, idx;

	lockdep_assert_held(&vdev->ctx.lock);
	/* An unplugged device's counters are gone with it. */
	if (drm_dev_enter(&vdev->drm, &idx)) {
		vgpu_ctx_snapshot(vdev, vm->hw_ctx, now);
		for (i = 0; i < VGPU_CTR_NR; i++)
			vm->ctr_acc[i] += now[i] - vm->ctr_base[i];
		drm_dev_exit(idx);
	}
	vdev->ctx.owner[vm->hw_ctx] = NULL;
	vm->hw_ctx = -1;
}

/* Give @ctx to @vm: its root in, nothing of a previous owner in the TLBs. */
static int vgpu_ctx_attach_locked(struct vgpu_device *vdev, struct vgpu_vm *vm,
				  u32 ctx)
{
	int ret;

	lockdep_assert_held(&vdev->ctx.lock);
	vdev->ctx.owner[ctx] = vm;
	vm->hw_ctx = ctx;
	wmb();	/* page tables written through WC before the root */
	vgpu_wr64(vdev, VGPU_CTX_REG(ctx, VGPU_CTX_ROOT_LO), vgpu_vm_root_desc(vm));
	ret = vgpu_tlb_inval_context(vdev, ctx);
	vgpu_ctx_snapshot(vdev, ctx, vm->ctr_base);
	return ret;
}

/**
 * vgpu_ctx_get() - make sure a VM owns a context, and pin it
 * @vm: VM about to run a job
 *
 * Context: process; sleeps (invalidation on take-over).
 * Return: 0 with the context pinned until vgpu_ctx_put(), -EBUSY when
 * every context is in use by a running VM, -ENODEV when the device is gone.
 */
int vgpu_ctx_get(struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;
	struct vgpu_vm *victim = NULL;
	int ctx = -1, i, idx, ret = 0;
	u32 end;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&mgr->lock);
	if (vm->hw_ctx >= 0)
		goto pin;

	end = mgr->count;
	if (READ_ONCE(vgpu_max_contexts))
		end = min(end, mgr->first + READ_ONCE(vgpu_max_contexts));
	for (i = mgr->first; i < end; i++) {
		struct vgpu_vm *o = mgr->owner[i];

		if (!o) {
			ctx = i;
			victim = NULL;
			break;
		}
		if (!atomic_read(&o->ctx_users) &&
		    (!victim || READ_ONCE(o->ctx_stamp) < READ_ONCE(victim->ctx_stamp))) {
			victim = o;
			ctx = i;
		}
	}
	if (ctx < 0) {
		ret = -EBUSY;
		goto out;
	}
	if (victim) {
		vgpu_ctx_detach_locked(vdev, victim);
		mgr->steals++;
	}

	ret = vgpu_ctx_attach_locked(vdev, vm, ctx);
	vgpu_stats_vm_add(vm, VGPU_STAT_TLB_INVALIDATIONS, 1);
	vgpu_stats_vm_add(vm, VGPU_STAT_CONTEXT_SWITCHES, 1);
	if (ret) {
		vgpu_ctx_detach_locked(vdev, vm);
		goto out;
	}
pin:
	atomic_inc(&vm->ctx_users);
	WRITE_ONCE(vm->ctx_stamp, atomic64_inc_return(&mgr->clock));
out:
	mutex_unlock(&mgr->lock);
	drm_dev_exit(idx);
	return ret;
}

/**
 * vgpu_ctx_bind_kernel() - give a kernel VM a reserved context for good
 * @vm: kernel VM
 * @ctx: context below &vgpu_ctx_mgr.first
 *
 * Return: 0 or a negative errno from the invalidation.
 */
int vgpu_ctx_bind_kernel(struct vgpu_vm *vm, u32 ctx)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;
	int ret;

	if (WARN_ON(ctx >= mgr->first))
		return -EINVAL;
	mutex_lock(&mgr->lock);
	ret = vgpu_ctx_attach_locked(vdev, vm, ctx);
	mutex_unlock(&mgr->lock);
	return ret;
}

/**
 * vgpu_ctx_put() - a job of the VM is done with its context
 * @vm: VM
 *
 * The VM keeps the context until someone else needs it.
 *
 * Context: any; called under a queue's fence spinlock.
 */
void vgpu_ctx_put(struct vgpu_vm *vm)
{
	struct vgpu_ctx_mgr *mgr = &vm->vdev->ctx;

	int users;

	WRITE_ONCE(vm->ctx_stamp, atomic64_inc_return(&mgr->clock));
	users = atomic_dec_return(&vm->ctx_users);
	WARN_ON(users < 0);
	if (!users)
		vgpu_ctx_wake(mgr);
}

/**
 * vgpu_ctx_wait_fence() - something to wait for when no context is free
 * @vdev: vgpu device
 *
 * The fence signals the next time a VM stops using its context (its last
 * job in flight finished), a VM gives its context back, or the device
 * goes away.  The caller tries vgpu_ctx_get() again after taking it, so
 * that a context freed in between is not missed.
 *
 * Return: a fence reference, or NULL if out of memory.
 */
struct dma_fence *vgpu_ctx_wait_fence(struct vgpu_device *vdev)
{
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;
	struct dma_fence *fence, *new;
	unsigned long flags;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	spin_lock_irqsave(&mgr->wait_lock, flags);
	fence = mgr->wait_fence;
	if (!fence && new) {
		dma_fence_init(new, &vgpu_ctx_fence_ops, &mgr->wait_lock,
			       mgr->wait_context, ++mgr->wait_seqno);
		mgr->wait_fence = new;
		fence = new;
		new = NULL;
	}
	if (fence)
		dma_fence_get(fence);
	spin_unlock_irqrestore(&mgr->wait_lock, flags);
	kfree(new);
	return fence;
}

/**
 * vgpu_ctx_fini() - wake every job still waiting for a context
 * @vdev: vgpu device going away (vgpu_ctx_get() fails from now on)
 */
void vgpu_ctx_fini(struct vgpu_device *vdev)
{
	vgpu_ctx_wake(&vdev->ctx);
}

/**
 * vgpu_ctx_release() - give the VM's context back for good
 * @vm: VM being destroyed, idle
 *
 * Clears the root and flushes the context's TLB entries.
 */
void vgpu_ctx_release(struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;
	int ctx, idx;

	mutex_lock(&mgr->lock);
	ctx = vm->hw_ctx;
	if (ctx >= 0) {
		WARN_ON(atomic_read(&vm->ctx_users));
		vgpu_ctx_detach_locked(vdev, vm);
		if (drm_dev_enter(&vdev->drm, &idx)) {
			vgpu_wr64(vdev, VGPU_CTX_REG(ctx, VGPU_CTX_ROOT_LO), 0);
			vgpu_tlb_inval_context(vdev, ctx);
			drm_dev_exit(idx);
		}
	}
	mutex_unlock(&mgr->lock);
	if (ctx >= 0)
		vgpu_ctx_wake(mgr);
}

/**
 * vgpu_ctx_inval_range() - flush a VM's translations of a range, if cached
 * @vm: VM whose page tables changed
 * @va: start
 * @size: bytes
 *
 * Context: process, sleeps; the VM's page-table lock may be held.
 * Return: 0 or a negative errno from the invalidation.
 */
int vgpu_ctx_inval_range(struct vgpu_vm *vm, u64 va, u64 size)
{
	struct vgpu_ctx_mgr *mgr = &vm->vdev->ctx;
	int ret = 0;

	mutex_lock(&mgr->lock);
	if (vm->hw_ctx >= 0) {
		ret = vgpu_tlb_inval_range(vm->vdev, vm->hw_ctx, va, size);
		vgpu_stats_vm_add(vm, VGPU_STAT_TLB_INVALIDATIONS, 1);
	}
	mutex_unlock(&mgr->lock);
	return ret;
}

/**
 * vgpu_ctx_counters() - a VM's device counters
 * @vm: VM
 * @out: %VGPU_CTR_NR counters
 * @hw_ctx: out, the context owned now or -1
 */
void vgpu_ctx_counters(struct vgpu_vm *vm, u64 *out, int *hw_ctx)
{
	struct vgpu_device *vdev = vm->vdev;
	u64 now[VGPU_CTR_NR];
	int i, idx;

	mutex_lock(&vdev->ctx.lock);
	*hw_ctx = vm->hw_ctx;
	for (i = 0; i < VGPU_CTR_NR; i++)
		out[i] = vm->ctr_acc[i];
	if (vm->hw_ctx >= 0 && drm_dev_enter(&vdev->drm, &idx)) {
		vgpu_ctx_snapshot(vdev, vm->hw_ctx, now);
		for (i = 0; i < VGPU_CTR_NR; i++)
			out[i] += now[i] - vm->ctr_base[i];
		drm_dev_exit(idx);
	}
	mutex_unlock(&vdev->ctx.lock);
}

/**
 * vgpu_ctx_owner_get() - the VM owning a context
 * @vdev: vgpu device
 * @ctx: context number from the device
 *
 * Return: the VM with a reference (drop with vgpu_vm_put()), or NULL.
 */
struct vgpu_vm *vgpu_ctx_owner_get(struct vgpu_device *vdev, u32 ctx)
{
	struct vgpu_vm *vm = NULL;

	if (ctx >= VGPU_NUM_CONTEXTS)
		return NULL;
	mutex_lock(&vdev->ctx.lock);
	vm = vdev->ctx.owner[ctx];
	if (vm)
		vgpu_vm_get(vm);
	mutex_unlock(&vdev->ctx.lock);
	return vm;
}

/**
 * vgpu_ctx_fold_counters_locked() - keep what the counters counted so far
 * @vdev: vgpu device, about to zero its counters (COUNTERS_RESET or a
 *	device reset)
 *
 * Folds each owning VM's share of its context's counters into the VM's
 * accumulator and moves its base snapshot to zero, and adds the
 * %VGPU_CTR_KEPT global counters to &vgpu_device.ctr_kept, so that neither
 * per-client counters nor the kept ones go backwards when the device's
 * counters are zeroed.
 *
 * Context: &vgpu_ctx_mgr.lock held, device reachable (drm_dev_enter()).
 */
void vgpu_ctx_fold_counters_locked(struct vgpu_device *vdev)
{
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;
	unsigned int c, i;

	lockdep_assert_held(&mgr->lock);
	for (c = 0; c < VGPU_NUM_CONTEXTS; c++) {
		struct vgpu_vm *vm = mgr->owner[c];

		if (!vm)
			continue;
		for (i = 0; i < VGPU_CTR_NR; i++) {
			u64 now = vgpu_rd64(vdev, VGPU_COUNTER_CTX(c, i));

			vm->ctr_acc[i] += now - vm->ctr_base[i];
			vm->ctr_base[i] = 0;
		}
	}
	for (i = 0; i < VGPU_CTR_NR; i++)
		if (VGPU_CTR_KEPT & BIT(i))
			vdev->ctr_kept[i] += vgpu_rd64(vdev, VGPU_COUNTER_GLOBAL(i));
}

/**
 * vgpu_ctx_restore_locked() - rewrite every root after a device reset
 * @vdev: vgpu device, freshly reset (TLBs and counters empty); its
 *	counters were folded before the reset (vgpu_ctx_fold_counters_locked())
 *
 * Context: &vgpu_ctx_mgr.lock held.
 */
void vgpu_ctx_restore_locked(struct vgpu_device *vdev)
{
	struct vgpu_ctx_mgr *mgr = &vdev->ctx;
	int i;

	lockdep_assert_held(&mgr->lock);
	for (i = 0; i < mgr->count; i++) {
		struct vgpu_vm *vm = mgr->owner[i];

		if (vm)
			vgpu_wr64(vdev, VGPU_CTX_REG(i, VGPU_CTX_ROOT_LO),
				  vgpu_vm_root_desc(vm));
	}
}
