// SPDX-License-Identifier: MIT
/*
 * libvgpu: buffer objects and GPU virtual memory.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>

#include <xf86drm.h>

#include "libvgpu.h"

static int vgpu_ioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

int vgpu_bo_create_ex(struct vgpu_dev *dev, struct drm_vgpu_bo_create *args)
{
	return vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_BO_CREATE, args);
}

int vgpu_bo_create(struct vgpu_dev *dev, uint64_t size, uint32_t placements,
		   uint32_t flags, uint32_t *handle)
{
	struct drm_vgpu_bo_create bc = {
		.size = size, .placements = placements, .flags = flags,
	};
	int ret = vgpu_bo_create_ex(dev, &bc);

	if (!ret)
		*handle = bc.handle;
	return ret;
}

int vgpu_bo_create_pageable(struct vgpu_dev *dev, uint64_t size,
			    uint32_t *handle, uint64_t *rounded)
{
	struct drm_vgpu_bo_create bc = {
		.size = size, .placements = DRM_VGPU_PLACE_SYSTEM,
		.flags = DRM_VGPU_BO_PAGEABLE,
	};
	int ret = vgpu_bo_create_ex(dev, &bc);

	if (ret)
		return ret;
	*handle = bc.handle;
	if (rounded)
		*rounded = bc.size;
	return 0;
}

int vgpu_bo_close(struct vgpu_dev *dev, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	return vgpu_ioctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

int vgpu_bo_mmap_offset(struct vgpu_dev *dev, uint32_t handle, uint64_t *offset)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = handle };
	int ret = vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo);

	if (!ret)
		*offset = mo.offset;
	return ret;
}

int vgpu_bo_map(struct vgpu_dev *dev, uint32_t handle, uint64_t size, void **ptr)
{
	uint64_t offset;
	void *p;
	int ret;

	ret = vgpu_bo_mmap_offset(dev, handle, &offset);
	if (ret)
		return ret;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		 offset);
	if (p == MAP_FAILED)
		return -errno;
	*ptr = p;
	return 0;
}

int vgpu_bo_unmap(void *ptr, uint64_t size)
{
	return munmap(ptr, size) ? -errno : 0;
}

static int64_t abs_deadline(int64_t timeout_ns)
{
	struct timespec ts;

	if (timeout_ns < 0)
		return INT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + timeout_ns;
}

int vgpu_bo_wait(struct vgpu_dev *dev, uint32_t handle, int64_t timeout_ns)
{
	struct drm_vgpu_wait_bo wb = {
		.handle = handle, .timeout_ns = abs_deadline(timeout_ns),
	};

	return vgpu_ioctl(dev->fd, DRM_IOCTL_VGPU_WAIT_BO, &wb);
}

int vgpu_bo_export(struct vgpu_dev *dev, uint32_t handle, int *dmabuf_fd)
{
	return drmPrimeHandleToFD(dev->fd, handle, DRM_CLOEXEC | DRM_RDWR,
				  dmabuf_fd) ? -errno : 0;
}

int vgpu_bo_import(struct vgpu_dev *dev, int dmabuf_fd, uint32_t *handle)
{
	return drmPrimeFDToHandle(dev->fd, dmabuf_fd, handle) ? -errno : 0;
}

int vgpu_vm_bind(struct vgpu_dev *dev, const struct drm_vgpu_vm_bind_op *ops,
		 uint32_t num_ops)
{
	return vgpu_vm_bind_in(dev, 0, ops, num_ops);
}

int vgpu_vm_map(struct vgpu_dev *dev, uint32_t handle, uint64_t bo_offset,
		uint64_t va, uint64_t range, uint32_t perms)
{
	return vgpu_vm_map_in(dev, 0, handle, bo_offset, va, range, perms);
}

int vgpu_vm_unmap(struct vgpu_dev *dev, uint64_t va, uint64_t range)
{
	return vgpu_vm_unmap_in(dev, 0, va, range);
}

uint64_t vgpu_svm_mode(struct vgpu_dev *dev)
{
	uint64_t mode = 0;

	if (vgpu_get_param(dev, DRM_VGPU_PARAM_SVM, &mode))
		return 0;
	return mode;
}

int vgpu_vm_mirror(struct vgpu_dev *dev, const void *addr, uint64_t size,
		   uint32_t perms)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_MAP,
		.flags = perms | DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR,
		.va = (uintptr_t)addr, .range = size,
	};

	if (!(vgpu_svm_mode(dev) & DRM_VGPU_SVM_MIRROR))
		return -EOPNOTSUPP;
	return vgpu_vm_bind(dev, &op, 1);
}
