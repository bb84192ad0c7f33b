/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_SYNC_TYPES_H__
#define __VGPU_SYNC_TYPES_H__

#include <linux/types.h>

struct dma_fence;
struct dma_fence_chain;
struct drm_syncobj;
struct sync_file;

/**
 * struct vgpu_exec_sync - the in- and out-fences of one EXEC
 *
 * Filled by vgpu_exec_sync_prepare() with everything that can fail, so
 * that once the job is pushed, vgpu_exec_sync_signal() cannot.
 *
 * @in_handles: syncobj handles to wait for, copied from the user.
 * @in_points: their timeline points (0: the syncobj's fence), or NULL.
 * @num_in: entries of @in_handles and @in_points.
 * @in_fence: the fence of the in sync_file, or NULL.
 * @out_sync: syncobj that receives the job's fence, or NULL.
 * @out_point: timeline point of @out_sync, 0 to replace its fence.
 * @out_chain: timeline link for @out_point, allocated up front.
 * @out_file: sync_file for the out fd; holds the stub fence until the
 *	job's fence is known (nobody sees it before its fd is installed).
 * @out_fd: fd reserved for @out_file, or -1.
 */
struct vgpu_exec_sync {
	u32 *in_handles;
	u64 *in_points;
	u32 num_in;
	struct dma_fence *in_fence;
	struct drm_syncobj *out_sync;
	u64 out_point;
	struct dma_fence_chain *out_chain;
	struct sync_file *out_file;
	int out_fd;
};

#endif /* __VGPU_SYNC_TYPES_H__ */
