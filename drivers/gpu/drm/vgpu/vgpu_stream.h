/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_STREAM_H__
#define __VGPU_STREAM_H__

#include <linux/sizes.h>
#include <linux/types.h>

struct dma_fence;
struct drm_suballoc;
struct vgpu_vm;

/** VGPU_STREAM_BUF_SIZE - bytes of a VM's inline-stream buffer */
#define VGPU_STREAM_BUF_SIZE	SZ_128K

void vgpu_stream_init(struct vgpu_vm *vm);
void vgpu_stream_fini(struct vgpu_vm *vm);
void vgpu_stream_unplug(struct vgpu_vm *vm);
struct drm_suballoc *vgpu_stream_copy(struct vgpu_vm *vm,
				      const void __user *user, u32 size,
				      u64 *va);
void vgpu_stream_free(struct drm_suballoc *sa, struct dma_fence *fence);
u64 vgpu_stream_pinned(struct vgpu_vm *vm);

#endif /* __VGPU_STREAM_H__ */
