/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_ADMIT_H__
#define __VGPU_ADMIT_H__

#include <linux/types.h>

struct drm_printer;
struct vgpu_bo;
struct vgpu_device;

/**
 * struct vgpu_admit_stats - the terms of the admission rule, in bytes
 * @system: admitted BOs that live in system memory only.
 * @vram: admitted user BOs that may live in VRAM.
 * @pinned: admitted kernel BOs pinned in VRAM (need no system memory).
 * @demand: system memory the admitted BOs may need at worst:
 *	@system + @vram.
 * @held: system pages the device's BOs hold now (populated or in shmem).
 * @available: the kernel's estimate of memory available (MemAvailable).
 * @swap_free: free swap.
 * @reserve: kept for everything else: 1/16 of RAM, at least 64 MiB.
 * @ttm_limit: TTM's limit on populated ttm_tt pages, all devices.
 * @swap_copy: room for TTM's swap-out copy of the largest BO, counted
 *	when @demand is above @ttm_limit and there are several BOs.
 * @limit: @held + @available + @swap_free - @reserve - @swap_copy.
 */
struct vgpu_admit_stats {
	u64 system;
	u64 vram;
	u64 pinned;
	u64 demand;
	u64 held;
	u64 available;
	u64 swap_free;
	u64 reserve;
	u64 ttm_limit;
	u64 swap_copy;
	u64 limit;
};

void vgpu_admit_init(struct vgpu_device *vdev);
int vgpu_admit_bo(struct vgpu_device *vdev, struct vgpu_bo *bo);
void vgpu_admit_release(struct vgpu_device *vdev, struct vgpu_bo *bo);
void vgpu_admit_hold(struct vgpu_device *vdev, s64 bytes);
void vgpu_admit_stats(struct vgpu_device *vdev, struct vgpu_admit_stats *st);
void vgpu_admit_print(struct vgpu_device *vdev, struct drm_printer *p);

#endif /* __VGPU_ADMIT_H__ */
