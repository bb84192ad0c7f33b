/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_BO_TYPES_H__
#define __VGPU_BO_TYPES_H__

#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>

struct vgpu_bo_chunks;

/* Driver-internal BO flags, above the uapi's DRM_VGPU_BO_* bits. */
#define VGPU_BO_KERNEL		(1u << 16)	/* pinned, never user-visible */
#define VGPU_BO_VISIBLE		(1u << 17)	/* VRAM inside the BAR window */

/**
 * struct vgpu_bo - a vgpu buffer object: a TTM BO that is a GEM object
 * @tbo: TTM buffer object, embedded; @tbo.base is the GEM object.
 * @placement: the placement list TTM validates against (@places).
 * @places: VRAM and/or TT, preferred first.
 * @evict_places: where TTM evicts the BO to (built by evict_flags, under
 *	the BO's reservation).
 * @placements: ``DRM_VGPU_PLACE_*`` the BO may live in.
 * @preferred: the ``DRM_VGPU_PLACE_*`` tried first.
 * @flags: ``DRM_VGPU_BO_*`` and ``VGPU_BO_*``.
 * @gpuva_lock: protects the GEM object's list of GPU mappings (its
 *	&drm_gpuvm_bo and their &drm_gpuva), in every VM.
 * @chunks: %DRM_VGPU_BO_PAGEABLE: the chunk table (vgpu_chunk.c); NULL
 *	for other BOs.
 * @admitted: the BO's size is counted by the memory admission
 *	(vgpu_admit.c) until it is destroyed.
 *
 * All fields but @tbo and @gpuva_lock are set at creation and read-only
 * afterwards.
 */
struct vgpu_bo {
	struct ttm_buffer_object tbo;
	struct ttm_placement placement;
	struct ttm_place places[2];
	struct ttm_place evict_places[2];
	u32 placements;
	u32 preferred;
	u32 flags;
	struct mutex gpuva_lock;
	struct vgpu_bo_chunks *chunks;
	bool admitted;
};

#endif /* __VGPU_BO_TYPES_H__ */
