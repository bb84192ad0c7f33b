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

#include "vgpu_pool_types.h"

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
 * @unit: the BO as a unit of the VRAM pool (vgpu_bo_pool.c): its place
 *	in the eviction order while in VRAM, its access history always.
 * @vram_res: its VRAM resources (&vgpu_vram_res.bo_link): one, or two
 *	during a VRAM-to-VRAM move.
 * @pool_evicting: the pool is moving the BO out (counted as an eviction).
 *
 * All fields but @tbo, @gpuva_lock, @unit, @vram_res and @pool_evicting
 * are set at creation and read-only afterwards; @unit and @vram_res are
 * protected by &vgpu_pool.lock, @pool_evicting by the reservation.
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
	struct vgpu_pool_unit unit;
	struct list_head vram_res;
	bool pool_evicting;
};

#endif /* __VGPU_BO_TYPES_H__ */
