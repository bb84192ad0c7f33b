/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_USER_QUEUE_H__
#define __VGPU_USER_QUEUE_H__

#include <linux/types.h>

#include <drm/gpu_scheduler.h>

struct drm_device;
struct drm_file;
struct vgpu_file;
struct vgpu_queue;
struct vgpu_vm;

/**
 * struct vgpu_user_queue - an exec queue made by EXEC_QUEUE_CREATE
 * @entity: its scheduler entity, on @q's scheduler at the queue's priority.
 * @vm: the VM its jobs run in (a reference).
 * @q: the hardware queue (ring) it feeds.
 * @priority: &enum drm_vgpu_queue_priority.
 */
struct vgpu_user_queue {
	struct drm_sched_entity entity;
	struct vgpu_vm *vm;
	struct vgpu_queue *q;
	u32 priority;
};

struct drm_sched_entity *vgpu_user_queue_entity(struct drm_file *file,
						struct vgpu_vm *vm, u32 id,
						struct vgpu_queue **q);
void vgpu_user_queues_fini(struct vgpu_file *vfile);

int vgpu_exec_queue_create_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file);
int vgpu_exec_queue_destroy_ioctl(struct drm_device *drm, void *data,
				  struct drm_file *file);

#endif /* __VGPU_USER_QUEUE_H__ */
