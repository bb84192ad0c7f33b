/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PAGING_H__
#define __VGPU_PAGING_H__

#include <linux/types.h>

#include "vgpu_paging_types.h"

struct drm_device;
struct drm_file;
struct drm_vgpu_query_paging;
struct vgpu_device;
struct vgpu_vm;

int vgpu_paging_init(struct vgpu_device *vdev);
void vgpu_paging_fini(struct vgpu_device *vdev);


void vgpu_paging_query(struct vgpu_vm *vm, struct drm_vgpu_query_paging *q);

unsigned int vgpu_paging_fault_batch_limit(void);
unsigned int vgpu_paging_thrash_count(void);
u64 vgpu_paging_clock(struct vgpu_device *vdev);
bool vgpu_paging_prefetch_enabled(void);

int vgpu_prefetch_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
int vgpu_advise_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);

#endif /* __VGPU_PAGING_H__ */
