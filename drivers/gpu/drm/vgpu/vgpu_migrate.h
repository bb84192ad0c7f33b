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

struct dma_fence;
struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_resource;
struct vgpu_device;
struct vgpu_migrate_fence;
struct vgpu_vm;

/** VGPU_MIGRATE_VRAM_VA - where the kernel context maps all of VRAM */
#define VGPU_MIGRATE_VRAM_VA	(1ull << 40)
/** VGPU_MIGRATE_SYS_VA - where it maps all of system memory (DMA addresses) */
#define VGPU_MIGRATE_SYS_VA	(1ull << 44)

/**
 * struct vgpu_migrate - the kernel's copy engine
 * @vm: kernel VM, on hardware context 0.
 * @entity: scheduler entity on hardware queue 0.
 * @lock: one job push at a time; protects @entity.
 * @fence_context: timeline of the batches' fences (+ 1: their fence arrays).
 * @fence_seqno: last batch fence seqno.
 * @spare_dw: command buffers of finished batches, kept for the next
 *	(exchanged atomically; NULL when taken).
 * @sys_size: system memory mapped at %VGPU_MIGRATE_SYS_VA.
 * @ready: moves and clears go through the device.
 * @bytes_copied: bytes copied by the device.
 * @bytes_cleared: bytes cleared by the device.
 * @fail_chunk_copies: testing (debugfs ``fail_chunk_copies``): the next
 *	this many chunk copies fail their batch, as a failed job would.
 */
struct vgpu_migrate {
	struct vgpu_vm *vm;
	struct drm_sched_entity entity;
	struct mutex lock;
	u64 fence_context;
	atomic_t fence_seqno;
	u32 *spare_dw[2];
	u64 sys_size;
	bool ready;
	atomic64_t bytes_copied;
	atomic64_t bytes_cleared;
	atomic_t fail_chunk_copies;
};

/**
 * struct vgpu_migrate_batch - copies queued on the copy engine together
 * @vdev: vgpu device.
 * @dw: commands not submitted yet (allocated at the first copy).
 * @n: dwords in @dw.
 * @done: signals when every copy queued since the batch was last
 *	submitted is done, with the error of the first job that failed;
 *	NULL while nothing is queued.
 * @jobs: finished fences of the jobs submitted for @done.
 * @nr_jobs: entries in @jobs.
 * @max_jobs: room in @jobs.
 * @error: a submission failed (the copies behind @done are not all done).
 * @before_job: if set, called when the batch is full, before the commands
 *	queued so far become a job (with whatever lock the caller of the
 *	copy that filled it holds); the owner's last chance to cancel some
 *	(vgpu_migrate_batch_cancel()).
 *
 * Owned by one thread; see "copy engine".
 */
struct vgpu_migrate_batch {
	struct vgpu_device *vdev;
	u32 *dw;
	u32 n;
	struct vgpu_migrate_fence *done;
	struct dma_fence **jobs;
	unsigned int nr_jobs;
	unsigned int max_jobs;
	int error;
	void (*before_job)(struct vgpu_migrate_batch *b);
};

int vgpu_migrate_init(struct vgpu_device *vdev);
void vgpu_migrate_fini(struct vgpu_device *vdev);
bool vgpu_migrate_ready(struct vgpu_device *vdev);
int vgpu_migrate_move(struct vgpu_device *vdev, struct ttm_buffer_object *tbo,
		      struct ttm_resource *src, struct ttm_resource *dst);

void vgpu_migrate_batch_init(struct vgpu_migrate_batch *b,
			     struct vgpu_device *vdev);
int vgpu_migrate_batch_add_chunk(struct vgpu_migrate_batch *b,
				 struct ttm_buffer_object *tbo, u64 bo_offset,
				 u64 size, u64 vram, bool to_vram);
int vgpu_migrate_batch_add_page(struct vgpu_migrate_batch *b, dma_addr_t dma,
				u64 vram, bool to_vram);
struct dma_fence *vgpu_migrate_batch_fence(struct vgpu_migrate_batch *b);
bool vgpu_migrate_batch_owns(struct vgpu_migrate_batch *b,
			     struct dma_fence *fence);
u32 vgpu_migrate_batch_pos(const struct vgpu_migrate_batch *b);
void vgpu_migrate_batch_cancel(struct vgpu_migrate_batch *b, u32 start,
			       u32 end, u64 bytes);
void vgpu_migrate_batch_submit(struct vgpu_migrate_batch *b);
int vgpu_migrate_batch_wait(struct vgpu_migrate_batch *b);
void vgpu_migrate_batch_fini(struct vgpu_migrate_batch *b);

#endif /* __VGPU_MIGRATE_H__ */
