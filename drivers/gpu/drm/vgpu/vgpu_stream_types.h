/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_STREAM_TYPES_H__
#define __VGPU_STREAM_TYPES_H__

#include <linux/iosys-map.h>
#include <linux/mutex.h>

#include <drm/drm_suballoc.h>

struct vgpu_bo;

/**
 * struct vgpu_stream - a VM's buffer of inline command streams
 * @lock: protects the creation of @bo.
 * @bo: kernel BO in system memory, pinned, mapped read-only at
 *	%VGPU_VM_STREAM_VA; NULL until the VM's first inline EXEC.
 * @map: CPU mapping of @bo.
 * @sa: pieces of @bo, one per job in flight.
 */
struct vgpu_stream {
	struct mutex lock;
	struct vgpu_bo *bo;
	struct iosys_map map;
	struct drm_suballoc_manager sa;
};

#endif /* __VGPU_STREAM_TYPES_H__ */
