/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef _UAPI_VGPU_DRM_H_
#define _UAPI_VGPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: vgpu uapi overview
 *
 * vgpu is a virtual PCIe GPU whose purpose is GPU memory management: VRAM
 * allocation, GPU page tables, a TLB, page faults, eviction and migration.
 * Its render node (``/dev/dri/renderD*``, driver name ``"vgpu"``) accepts the
 * ioctls below.
 *
 * Conventions shared by every ioctl:
 *
 * - Every struct has explicit padding; padding and reserved fields must be
 *   zero, and ``flags`` fields accept only the documented bits.  Anything
 *   else is refused with -EINVAL before the ioctl has any effect.
 * - Pointers to user memory are carried in ``__u64`` fields.
 * - An unknown object handle gives -ENOENT.
 * - Ioctl numbers are allocated densely from %DRM_COMMAND_BASE.
 */

/*
 * Ioctl numbers, relative to DRM_COMMAND_BASE.  Dense; new ioctls are
 * appended.
 */
#define DRM_VGPU_GET_PARAM		0x00

#define DRM_IOCTL_VGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_GET_PARAM, struct drm_vgpu_get_param)

/**
 * enum drm_vgpu_param - device parameters reported by GET_PARAM
 *
 * @DRM_VGPU_PARAM_HW_VERSION: device version register: major in bits 31:16,
 *	minor in bits 15:0.
 * @DRM_VGPU_PARAM_VRAM_SIZE: VRAM size in bytes.
 * @DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE: size in bytes of the CPU-visible VRAM
 *	window (BAR 2); smaller than @DRM_VGPU_PARAM_VRAM_SIZE on a
 *	"small BAR" device.
 * @DRM_VGPU_PARAM_NUM_QUEUES: number of hardware queues (rings).
 * @DRM_VGPU_PARAM_NUM_CONTEXTS: number of hardware address-space contexts.
 * @DRM_VGPU_PARAM_VA_BITS: width of a GPU virtual address.
 * @DRM_VGPU_PARAM_PAGE_SIZES: bitmask of the GPU page sizes the MMU maps
 *	(bit n set: pages of 2^n bytes).
 * @DRM_VGPU_PARAM_PCI_ID: PCI vendor id in bits 31:16, device id in 15:0.
 */
enum drm_vgpu_param {
	DRM_VGPU_PARAM_HW_VERSION = 0,
	DRM_VGPU_PARAM_VRAM_SIZE = 1,
	DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE = 2,
	DRM_VGPU_PARAM_NUM_QUEUES = 3,
	DRM_VGPU_PARAM_NUM_CONTEXTS = 4,
	DRM_VGPU_PARAM_VA_BITS = 5,
	DRM_VGPU_PARAM_PAGE_SIZES = 6,
	DRM_VGPU_PARAM_PCI_ID = 7,
};

/**
 * struct drm_vgpu_get_param - read one device parameter
 *
 * Usage::
 *
 *	struct drm_vgpu_get_param gp = { .param = DRM_VGPU_PARAM_VRAM_SIZE };
 *
 *	if (drmIoctl(fd, DRM_IOCTL_VGPU_GET_PARAM, &gp) == 0)
 *		printf("VRAM: %llu bytes\n", (unsigned long long)gp.value);
 *
 * Errors: -EINVAL for an unknown @param, non-zero @flags or @pad.
 */
struct drm_vgpu_get_param {
	/** @param: one of &enum drm_vgpu_param. */
	__u32 param;

	/** @flags: must be zero. */
	__u32 flags;

	/** @value: out, the parameter's value. */
	__u64 value;

	/** @pad: must be zero. */
	__u64 pad;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VGPU_DRM_H_ */
