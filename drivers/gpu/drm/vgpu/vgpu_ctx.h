/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_CTX_H__
#define __VGPU_CTX_H__

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "vgpu_hw.h"

struct dma_fence;
struct vgpu_device;
struct vgpu_vm;

/**
 * struct vgpu_ctx_mgr - hardware contexts shared by the VMs
 * @lock: protects @owner, @clock, @steals, the context root registers and
 *	the hw_ctx / ctx_users / ctx_stamp / ctr_* fields of every VM.
 * @owner: VM owning each context, or NULL.
 * @first: first context handed to VMs (those below are the kernel's).
 * @count: contexts of the device.
 * @clock: LRU clock (atomic: vgpu_ctx_put() runs under a spinlock).
 * @steals: contexts taken over from an idle VM.
 * @wait_lock: protects @wait_fence, and is its fence lock.
 * @wait_fence: signalled when a context may have become free, created
 *	by the first job that finds none (vgpu_ctx_wait_fence()).
 * @wait_context: fence context of @wait_fence.
 * @wait_seqno: last seqno of @wait_context.
 */
struct vgpu_ctx_mgr {
	struct mutex lock;
	struct vgpu_vm *owner[VGPU_NUM_CONTEXTS];
	u32 first;
	u32 count;
	atomic64_t clock;
	u64 steals;
	spinlock_t wait_lock;
	struct dma_fence *wait_fence;
	u64 wait_context;
	u64 wait_seqno;
};

void vgpu_ctx_init(struct vgpu_device *vdev);
int vgpu_ctx_get(struct vgpu_vm *vm);
int vgpu_ctx_bind_kernel(struct vgpu_vm *vm, u32 ctx);
void vgpu_ctx_put(struct vgpu_vm *vm);
struct dma_fence *vgpu_ctx_wait_fence(struct vgpu_device *vdev);
void vgpu_ctx_fini(struct vgpu_device *vdev);
void vgpu_ctx_release(struct vgpu_vm *vm);
int vgpu_ctx_inval_range(struct vgpu_vm *vm, u64 va, u64 size);
void vgpu_ctx_counters(struct vgpu_vm *vm, u64 *out, int *hw_ctx);
struct vgpu_vm *vgpu_ctx_owner_get(struct vgpu_device *vdev, u32 ctx);
void vgpu_ctx_fold_counters_locked(struct vgpu_device *vdev);
void vgpu_ctx_restore_locked(struct vgpu_device *vdev);

#endif /* __VGPU_CTX_H__ */
