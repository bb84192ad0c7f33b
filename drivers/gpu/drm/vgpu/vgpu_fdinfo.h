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
struct vgpu_queue;
struct vgpu_vm;

void vgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void vgpu_fdinfo_engine_charge(struct vgpu_queue *q, struct vgpu_vm *vm,
			       u64 start_ns, u64 end_ns);
void vgpu_fdinfo_modeled_charge(struct vgpu_queue *q, struct vgpu_vm *vm,
				u64 clock);
void vgpu_fdinfo_account_move(struct ttm_buffer_object *tbo, bool evict,
			      int old_type, u32 new_type);

#endif /* __VGPU_FDINFO_H__ */
