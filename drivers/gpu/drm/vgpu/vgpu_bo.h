/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_BO_H__
#define __VGPU_BO_H__

#include <linux/types.h>

#include "vgpu_bo_types.h"

struct dma_buf_attachment;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct sg_table;
struct ttm_resource;
struct vgpu_device;
struct vgpu_vram_res;

/** VGPU_BO_MAX_SIZE - largest BO the driver creates */
#define VGPU_BO_MAX_SIZE	(16ull << 30)

static inline struct vgpu_bo *to_vgpu_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct vgpu_bo, tbo);
}

static inline struct vgpu_bo *gem_to_vgpu_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vgpu_bo, tbo.base);
}

struct vgpu_bo *vgpu_bo_create(struct vgpu_device *vdev, u64 size,
			       u32 placements, u32 preferred, u32 flags,
			       u64 alignment);
struct vgpu_bo *vgpu_bo_create_kernel(struct vgpu_device *vdev, u64 size,
				      u32 placements, u32 flags);
void vgpu_bo_free_kernel(struct vgpu_bo *bo);
void vgpu_bo_put(struct vgpu_bo *bo);

int vgpu_bo_validate(struct vgpu_bo *bo, bool interruptible);

void vgpu_bo_pool_init(struct vgpu_bo *bo);
void vgpu_bo_vram_attach(struct vgpu_bo *bo, struct vgpu_vram_res *vres);
void vgpu_bo_vram_detach(struct vgpu_bo *bo, struct vgpu_vram_res *vres);
void vgpu_bo_pool_moved_in(struct vgpu_bo *bo);
int vgpu_bo_make_cpu_visible(struct vgpu_bo *bo);
bool vgpu_bo_is_shared(struct vgpu_bo *bo);

void vgpu_bo_move_notify(struct ttm_buffer_object *tbo,
			 struct ttm_resource *new_mem);
void vgpu_bo_account_move(struct vgpu_device *vdev,
			  struct ttm_buffer_object *tbo, bool evict,
			  int old_type, u32 new_type);

struct drm_gem_object *
vgpu_gem_prime_import_sg_table(struct drm_device *drm,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt);

int vgpu_bo_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vgpu_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int vgpu_wait_bo_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);

#endif /* __VGPU_BO_H__ */
