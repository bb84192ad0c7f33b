// SPDX-License-Identifier: MIT
/*
 * libvgpu: device discovery, parameters, queries.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xf86drm.h>

#include "libvgpu.h"
#include "managed.h"

static int vgpu_ioctl(int fd, unsigned long req, void *arg)
{
	int ret = drmIoctl(fd, req, arg);

	return ret ? -errno : 0;
}

int vgpu_get_param(struct vgpu_dev *dev, uint32_t param, uint64_t *value)
{
	struct drm_vgpu_get_param gp = { .param = param };
	int ret = vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp);

	if (!ret)
		*value = gp.value;
	return ret;
}

static int is_vgpu(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	int yes = v && !strcmp(v->name, "vgpu");

	drmFreeVersion(v);
	return yes;
}

int vgpu_open_fd(struct vgpu_dev *dev, int fd)
{
	struct { uint32_t param; uint64_t *val; } p[] = {
		{ DRM_VGPU_PARAM_VRAM_SIZE, &dev->vram_size },
		{ DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE, &dev->visible_size },
		{ DRM_VGPU_PARAM_VA_START, &dev->va_start },
		{ DRM_VGPU_PARAM_VA_END, &dev->va_end },
		{ DRM_VGPU_PARAM_PAGE_SIZES, &dev->page_sizes },
		{ DRM_VGPU_PARAM_MAX_BO_SIZE, &dev->max_bo_size },
	};
	uint64_t v;
	size_t i;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->fd = fd;
	if (!is_vgpu(fd))
		return -ENODEV;
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		ret = vgpu_get_param(dev, p[i].param, p[i].val);
		if (ret)
			return ret;
	}
	if (!vgpu_get_param(dev, DRM_VGPU_PARAM_CAPS, &v))
		dev->caps = v;
	if (!vgpu_get_param(dev, DRM_VGPU_PARAM_EXEC_QUEUES, &v))
		dev->exec_queues = v;
	if (!vgpu_get_param(dev, DRM_VGPU_PARAM_NUM_CONTEXTS, &v))
		dev->num_contexts = v;
	return 0;
}

int vgpu_open(struct vgpu_dev *dev)
{
	drmDevicePtr devs[64];
	int n, i, ret = -ENODEV;

	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	n = drmGetDevices2(0, devs, 64);
	if (n == -ENOENT)	/* no /dev/dri at all: no device either */
		return -ENODEV;
	if (n < 0)
		return n;
	for (i = 0; i < n && ret; i++) {
		int fd;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		fd = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		ret = vgpu_open_fd(dev, fd);
		if (ret)
			close(fd);
	}
	drmFreeDevices(devs, n);
	if (ret)
		dev->fd = -1;
	return ret;
}

void vgpu_close(struct vgpu_dev *dev)
{
	vgpu_managed_fini(dev);
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

int vgpu_query(struct vgpu_dev *dev, uint32_t type, void *data, uint32_t size)
{
	return vgpu_query_in(dev, 0, type, data, size);
}

int vgpu_query_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t type,
		  void *data, uint32_t size)
{
	struct drm_vgpu_query q = {
		.type = type, .size = size, .data = (uintptr_t)data,
		.vm_id = vm_id,
	};

	memset(data, 0, size);
	return vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_QUERY, &q);
}

int vgpu_query_time(struct vgpu_dev *dev, struct drm_vgpu_query_time *t)
{
	return vgpu_query(dev, DRM_VGPU_QUERY_TIME, t, sizeof(*t));
}

int vgpu_query_memory(struct vgpu_dev *dev, struct drm_vgpu_query_memory *mem)
{
	return vgpu_query(dev, DRM_VGPU_QUERY_MEMORY, mem, sizeof(*mem));
}

int vgpu_query_vm(struct vgpu_dev *dev, struct drm_vgpu_query_vm *vm)
{
	return vgpu_query_vm_in(dev, 0, vm);
}

int vgpu_query_vm_in(struct vgpu_dev *dev, uint32_t vm_id,
		     struct drm_vgpu_query_vm *vm)
{
	return vgpu_query_in(dev, vm_id, DRM_VGPU_QUERY_VM, vm, sizeof(*vm));
}

int vgpu_query_counters(struct vgpu_dev *dev, struct drm_vgpu_query_counters *ctr)
{
	return vgpu_query(dev, DRM_VGPU_QUERY_DEVICE_COUNTERS, ctr, sizeof(*ctr));
}
