/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_VRAM_MGR_H__
#define __VGPU_VRAM_MGR_H__

#include <linux/types.h>

#include "vgpu_vram_mgr_types.h"

struct vgpu_device;

/**
 * struct vgpu_vram_stats - snapshot of the VRAM allocator's accounting
 * @size: VRAM managed.
 * @used: allocated bytes (buddy allocator's size - avail).
 * @kernel_used: part of @used held by kernel-internal BOs.
 * @visible_size: CPU-visible bytes.
 * @visible_used: allocated CPU-visible bytes.
 * @allocs: successful allocations.
 * @failures: refused allocations.
 * @contiguous: contiguous allocations.
 * @peak_used: high-water mark of @used.
 */
struct vgpu_vram_stats {
	u64 size;
	u64 used;
	u64 kernel_used;
	u64 visible_size;
	u64 visible_used;
	u64 allocs;
	u64 failures;
	u64 contiguous;
	u64 peak_used;
};

int vgpu_vram_mgr_init(struct vgpu_device *vdev);
void vgpu_vram_mgr_fini(struct vgpu_device *vdev);
void vgpu_vram_mgr_stats(struct vgpu_device *vdev, struct vgpu_vram_stats *st);

static inline struct vgpu_vram_res *to_vgpu_vram_res(struct ttm_resource *res)
{
	return container_of(res, struct vgpu_vram_res, base);
}

u64 vgpu_vram_mgr_chunk_offset(struct gpu_buddy_block *block);
struct gpu_buddy_block *vgpu_vram_mgr_alloc_chunk(struct vgpu_device *vdev,
						  u64 size, u64 *offset);
void vgpu_vram_mgr_free_chunk(struct vgpu_device *vdev,
			      struct gpu_buddy_block *block);

bool vgpu_vram_res_visible(struct vgpu_device *vdev, struct ttm_resource *res);
bool vgpu_vram_res_intersects(struct vgpu_device *vdev, struct ttm_resource *res,
			      u64 start, u64 end);

/**
 * struct vgpu_vram_cursor - walks the VRAM backing of a resource in BO order
 * @block: current buddy block.
 * @head: the resource's block list.
 * @start: VRAM offset of the current position.
 * @remaining: contiguous bytes from @start to the end of @block.
 * @chunk_size: buddy chunk size, to compute block sizes.
 */
struct vgpu_vram_cursor {
	struct gpu_buddy_block *block;
	struct list_head *head;
	u64 start;
	u64 remaining;
	u64 chunk_size;
};

void vgpu_vram_cursor_init(struct vgpu_vram_cursor *cur,
			   struct ttm_resource *res, u64 offset);
void vgpu_vram_cursor_next(struct vgpu_vram_cursor *cur, u64 size);

#endif /* __VGPU_VRAM_MGR_H__ */
