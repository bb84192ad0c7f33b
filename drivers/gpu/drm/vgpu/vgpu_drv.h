/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_DRV_H__
#define __VGPU_DRV_H__

#include <linux/io.h>
#include <linux/types.h>

#include <drm/drm_device.h>

#include "vgpu_hw.h"

#define DRIVER_NAME		"vgpu"
#define DRIVER_DESC		"Virtual GPU for memory-management development"
#define DRIVER_MAJOR		0
#define DRIVER_MINOR		1

/**
 * struct vgpu_device - one vgpu PCI function
 * @drm: DRM device, embedded; its parent is the PCI device.
 * @mmio: BAR 0 register space.
 * @hw_version: VERSION register as read at probe.
 * @caps: CAPS register as read at probe.
 * @vram_size: VRAM size in bytes.
 * @visible_size: size of the CPU-visible VRAM window (BAR 2).
 * @visible_base: bus address of BAR 2.
 * @num_queues: hardware queues.
 * @num_contexts: hardware contexts.
 *
 * Everything here is read-only after probe.
 */
struct vgpu_device {
	struct drm_device drm;
	void __iomem *mmio;

	u32 hw_version;
	u32 caps;
	u64 vram_size;
	u64 visible_size;
	resource_size_t visible_base;
	u32 num_queues;
	u32 num_contexts;
};

static inline struct vgpu_device *to_vgpu(struct drm_device *drm)
{
	return container_of(drm, struct vgpu_device, drm);
}

static inline u32 vgpu_rd32(struct vgpu_device *vdev, u32 reg)
{
	return readl(vdev->mmio + reg);
}

static inline void vgpu_wr32(struct vgpu_device *vdev, u32 reg, u32 val)
{
	writel(val, vdev->mmio + reg);
}

/* Reads a _LO/_HI register pair; the device snapshots it on the _LO read. */
static inline u64 vgpu_rd64(struct vgpu_device *vdev, u32 reg_lo)
{
	u64 lo = vgpu_rd32(vdev, reg_lo);

	return lo | (u64)vgpu_rd32(vdev, reg_lo + 4) << 32;
}

/* Writes a _LO/_HI register pair; the device latches it on the _HI write. */
static inline void vgpu_wr64(struct vgpu_device *vdev, u32 reg_lo, u64 val)
{
	vgpu_wr32(vdev, reg_lo, lower_32_bits(val));
	vgpu_wr32(vdev, reg_lo + 4, upper_32_bits(val));
}

#endif /* __VGPU_DRV_H__ */
