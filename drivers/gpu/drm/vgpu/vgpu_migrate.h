/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_MIGRATE_H__
#define __VGPU_MIGRATE_H__

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/gpu_scheduler.h>

struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_resource;
struct vgpu_device;
struct vgpu_vm;

/** VGPU_MIGRATE_VRAM_VA - where the kernel context maps all of VRAM */
#define VGPU_MIGRATE_VRAM_VA	(1ull << 40)
/** VGPU_MIGRATE_SYS_VA - where it maps all of system memory (DMA addresses) */
#define VGPU_MIGRATE_SYS_VA	(1ull << 44)

/**
 * struct vgpu_migrate - the kernel's copy engine
 * @vm: kernel VM, on hardware context 0.
 * @entity: scheduler entity on hardware queue 0.
 * @lock: one move at a time; protects @entity and @dw.
 * @dw: where a move's commands are built before they become a job.
 * @sys_size: system memory mapped at %VGPU_MIGRATE_SYS_VA.
 * @ready: moves and clears go through the device.
 * @bytes_copied: bytes copied by the device.
 * @bytes_cleared: bytes cleared by the device.
 */
struct vgpu_migrate {
	struct vgpu_vm *vm;
	struct drm_sched_entity entity;
	struct mutex lock;
	u32 *dw;
	u64 sys_size;
	bool ready;
	atomic64_t bytes_copied;
	atomic64_t bytes_cleared;
};

int vgpu_migrate_init(struct vgpu_device *vdev);
void vgpu_migrate_fini(struct vgpu_device *vdev);
bool vgpu_migrate_ready(struct vgpu_device *vdev);
int vgpu_migrate_move(struct vgpu_device *vdev, struct ttm_buffer_object *tbo,
		      struct ttm_resource *src, struct ttm_resource *dst);
int vgpu_migrate_chunk(struct vgpu_device *vdev, struct ttm_buffer_object *tbo,
		       u64 bo_offset, u64 size, u64 vram, bool to_vram);

#endif /* __VGPU_MIGRATE_H__ */
