/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FDINFO_H__
#define __VGPU_FDINFO_H__

#include <linux/types.h>

struct drm_file;
struct drm_printer;
struct ttm_buffer_object;
struct vgpu_job;

void vgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void vgpu_fdinfo_job_done(struct vgpu_job *job);
void vgpu_fdinfo_account_move(struct ttm_buffer_object *tbo, bool evict,
			      int old_type, u32 new_type);

#endif /* __VGPU_FDINFO_H__ */
