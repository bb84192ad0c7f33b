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
 * @fence_lock: protects every VM's last_fence.
 */
struct vgpu_ctx_mgr {
	struct mutex lock;
	struct vgpu_vm *owner[VGPU_NUM_CONTEXTS];
	u32 first;
	u32 count;
	atomic64_t clock;
	u64 steals;
	spinlock_t fence_lock;
};

void vgpu_ctx_init(struct vgpu_device *vdev);
int vgpu_ctx_get(struct vgpu_vm *vm);
int vgpu_ctx_bind_kernel(struct vgpu_vm *vm, u32 ctx);
void vgpu_ctx_put(struct vgpu_vm *vm);
void vgpu_ctx_set_last_fence(struct vgpu_vm *vm, struct dma_fence *fence);
struct dma_fence *vgpu_ctx_busy_fence(struct vgpu_device *vdev);
void vgpu_ctx_release(struct vgpu_vm *vm);
int vgpu_ctx_inval_range(struct vgpu_vm *vm, u64 va, u64 size);
void vgpu_ctx_counters(struct vgpu_vm *vm, u64 *out, int *hw_ctx);
struct vgpu_vm *vgpu_ctx_owner_get(struct vgpu_device *vdev, u32 ctx);
void vgpu_ctx_restore(struct vgpu_device *vdev);

#endif /* __VGPU_CTX_H__ */
