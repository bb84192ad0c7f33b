/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_SYNC_H__
#define __VGPU_SYNC_H__

#include "vgpu_sync_types.h"

struct dma_fence;
struct drm_device;
struct drm_file;
struct drm_sched_job;
struct drm_vgpu_exec;

int vgpu_exec_sync_check(struct drm_device *drm,
			 const struct drm_vgpu_exec *args);
int vgpu_exec_sync_prepare(struct drm_device *drm, struct drm_file *file,
			   const struct drm_vgpu_exec *args,
			   struct vgpu_exec_sync *sync);
int vgpu_exec_sync_add_deps(struct drm_device *drm, struct drm_file *file,
			    struct vgpu_exec_sync *sync,
			    struct drm_sched_job *job);
void vgpu_exec_sync_signal(struct vgpu_exec_sync *sync,
			   struct dma_fence *fence,
			   struct drm_vgpu_exec *args);
void vgpu_exec_sync_fini(struct vgpu_exec_sync *sync);

#endif /* __VGPU_SYNC_H__ */
