// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>

#include "vgpu_drv.h"
#include "vgpu_ioctl.h"
#include "vgpu_query.h"

/**
 * vgpu_get_param_ioctl() - DRM_IOCTL_VGPU_GET_PARAM
 * @drm: DRM device
 * @data: &struct drm_vgpu_get_param, copied in and out by the DRM core
 * @file: DRM file of the caller
 *
 * Return: 0, or -EINVAL for an unknown parameter or non-zero flags/pad.
 */
int vgpu_get_param_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct drm_vgpu_get_param *args = data;

	if (VGPU_IOCTL_DBG(drm, args->flags || args->pad))
		return -EINVAL;

	switch (args->param) {
	case DRM_VGPU_PARAM_HW_VERSION:
		args->value = vdev->hw_version;
		break;
	case DRM_VGPU_PARAM_VRAM_SIZE:
		args->value = vdev->vram_size;
		break;
	case DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE:
		args->value = vdev->visible_size;
		break;
	case DRM_VGPU_PARAM_NUM_QUEUES:
		args->value = vdev->num_queues;
		break;
	case DRM_VGPU_PARAM_NUM_CONTEXTS:
		args->value = vdev->num_contexts;
		break;
	case DRM_VGPU_PARAM_VA_BITS:
		args->value = VGPU_VA_BITS;
		break;
	case DRM_VGPU_PARAM_PAGE_SIZES:
		args->value = VGPU_PAGE_SIZE_4K;
		if (vdev->caps & VGPU_CAPS_PAGE_64K)
			args->value |= VGPU_PAGE_SIZE_64K;
		if (vdev->caps & VGPU_CAPS_PAGE_2M)
			args->value |= VGPU_PAGE_SIZE_2M;
		if (vdev->caps & VGPU_CAPS_PAGE_1G)
			args->value |= VGPU_PAGE_SIZE_1G;
		break;
	case DRM_VGPU_PARAM_PCI_ID:
		args->value = (u32)VGPU_PCI_VENDOR_ID << 16 | VGPU_PCI_DEVICE_ID;
		break;
	default:
		VGPU_IOCTL_DBG(drm, "unknown param");
		return -EINVAL;
	}

	return 0;
}
