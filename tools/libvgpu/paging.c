// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The vgpu authors
 *
 * libvgpu: demand-paging ioctls (PREFETCH, ADVISE) and the paging query.
 */

#include <errno.h>
#include <string.h>

#include <xf86drm.h>

#include "libvgpu.h"

static int vgpu_ioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

int vgpu_prefetch(struct vgpu_dev *dev, uint64_t va, uint64_t range,
		  uint32_t placement, uint64_t *bytes_moved)
{
	struct drm_vgpu_prefetch pf = {
		.va = va, .range = range, .placement = placement,
	};
	int ret = vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_PREFETCH, &pf);

	if (bytes_moved)
		*bytes_moved = pf.bytes_moved;
	return ret;
}

int vgpu_advise(struct vgpu_dev *dev, uint64_t va, uint64_t range,
		uint32_t advice, uint64_t value)
{
	struct drm_vgpu_advise ad = {
		.va = va, .range = range, .advice = advice, .value = value,
	};

	return vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_ADVISE, &ad);
}

int vgpu_query_paging(struct vgpu_dev *dev, struct drm_vgpu_query_paging *pg)
{
	return vgpu_query(dev, DRM_VGPU_QUERY_PAGING, pg, sizeof(*pg));
}
