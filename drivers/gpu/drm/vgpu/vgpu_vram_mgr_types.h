/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_VRAM_MGR_TYPES_H__
#define __VGPU_VRAM_MGR_TYPES_H__

#include <linux/gpu_buddy.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/ttm/ttm_resource.h>

struct vgpu_bo;

/**
 * struct vgpu_vram_mgr - TTM resource manager for VRAM, on the buddy allocator
 * @manager: TTM resource manager, embedded; registered as %TTM_PL_VRAM.
 * @mm: buddy allocator over [0, VRAM size); chunk size 4 KiB.
 * @lock: protects @mm and every field below it.
 * @visible_size: bytes at the start of VRAM the CPU sees through BAR 2.
 * @visible_avail: free bytes inside the visible window.
 * @kernel_used: bytes held by kernel-internal BOs (page tables, rings).
 * @chunk_used: bytes held by demand-paging chunks (vgpu_chunk.c).
 * @allocs: successful allocations.
 * @failures: allocation attempts that did not fit (each is followed by
 *	making room in the pool, or by TTM trying another placement).
 * @contiguous: allocations that asked for one contiguous run.
 * @peak_used: highest @mm.size - @mm.avail seen.
 */
struct vgpu_vram_mgr {
	struct ttm_resource_manager manager;
	struct gpu_buddy mm;
	struct mutex lock;
	u64 visible_size;
	u64 visible_avail;
	u64 kernel_used;
	u64 chunk_used;
	u64 allocs;
	u64 failures;
	u64 contiguous;
	u64 peak_used;
};

/**
 * struct vgpu_vram_res - a VRAM allocation
 * @base: TTM resource, embedded.
 * @blocks: the buddy blocks, linked through &gpu_buddy_block.link, in
 *	address order of the BO (block i backs the bytes after block i - 1).
 * @flags: GPU_BUDDY_* flags the blocks were allocated with.
 * @used_visible: bytes of @blocks inside the CPU-visible window.
 * @kernel: the allocation belongs to a kernel-internal BO.
 * @bo: the user BO whose pool unit this resource is part of (NULL for
 *	kernel BOs); under the pool lock.
 * @bo_link: in that BO's &vgpu_bo.vram_res.
 */
struct vgpu_vram_res {
	struct ttm_resource base;
	struct list_head blocks;
	unsigned long flags;
	u64 used_visible;
	bool kernel;
	struct vgpu_bo *bo;
	struct list_head bo_link;
};

#endif /* __VGPU_VRAM_MGR_TYPES_H__ */
