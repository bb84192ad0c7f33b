/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_QUERY_H__
#define __VGPU_QUERY_H__

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct vgpu_device;

int vgpu_get_param_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vgpu_query_ioctl(struct drm_device *drm, void *data,
		     struct drm_file *file);

#endif /* __VGPU_QUERY_H__ */
