/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_TTM_H__
#define __VGPU_TTM_H__

#include <linux/types.h>

struct ttm_buffer_object;
struct ttm_placement;
struct ttm_resource;
struct ttm_tt;
struct vgpu_device;

int vgpu_ttm_init(struct vgpu_device *vdev);
void vgpu_evict_flags(struct ttm_buffer_object *tbo,
		      struct ttm_placement *placement);
void vgpu_ttm_fini(struct vgpu_device *vdev);
void vgpu_ttm_tt_share(struct ttm_tt *tt, bool share);

int vgpu_ttm_access(struct ttm_buffer_object *tbo, unsigned long offset,
		    void *buf, int len, int write);

#endif /* __VGPU_TTM_H__ */
