// SPDX-License-Identifier: MIT
/*
 * libvgpu: the pageable-BO backend of managed memory (managed.h).
 *
 * An allocation is one DRM_VGPU_BO_PAGEABLE BO.  Its address is reserved
 * first, chunk-aligned, with an inaccessible anonymous mapping (so the
 * address is ours and the GPU maps whole chunks with 2 MiB pages); the BO
 * is then mmap()ed over the reservation with MAP_FIXED and bound in the
 * default VM at the GPU VA equal to that address.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "libvgpu.h"
#include "managed.h"

static int mbo_probe(struct vgpu_dev *dev, struct vgpu_managed *m)
{
	return vgpu_managed_granule(dev, m);
}

static int mbo_alloc(struct vgpu_dev *dev, struct vgpu_managed *m, size_t size,
		     struct vgpu_managed_alloc *a)
{
	uint64_t rsize, off;
	int64_t addr;
	void *p;
	int ret;

	addr = vgpu_managed_reserve(dev, m, size, PROT_NONE, &rsize);
	if (addr < 0)
		return addr;
	ret = vgpu_bo_create_pageable(dev, rsize, &a->handle, NULL);
	if (ret)
		goto out_unreserve;
	ret = vgpu_bo_mmap_offset(dev, a->handle, &off);
	if (ret)
		goto out_close;
	p = mmap((void *)(uintptr_t)addr, rsize, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, dev->fd, off);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto out_close;
	}
	ret = vgpu_vm_map(dev, a->handle, 0, addr, rsize, VGPU_MAP_RW);
	if (ret)
		goto out_close;
	a->addr = addr;
	a->size = rsize;
	return 0;

out_close:
	vgpu_bo_close(dev, a->handle);
out_unreserve:
	munmap((void *)(uintptr_t)addr, rsize);
	return ret;
}

static int mbo_free(struct vgpu_dev *dev, struct vgpu_managed_alloc *a)
{
	/* Unbinding memory a job still uses would make the job fault. */
	int ret = vgpu_bo_wait(dev, a->handle, -1);
	int r;

	r = vgpu_vm_unmap(dev, a->addr, a->size);
	ret = ret ?: r;
	r = munmap((void *)(uintptr_t)a->addr, a->size) ? -errno : 0;
	ret = ret ?: r;
	r = vgpu_bo_close(dev, a->handle);
	return ret ?: r;
}

const struct vgpu_managed_backend vgpu_managed_bo_backend = {
	.name = "pageable-bo",
	.probe = mbo_probe,
	.alloc = mbo_alloc,
	.free = mbo_free,
};
