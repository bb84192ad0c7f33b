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

#define MANAGED_BO_CHUNK	(2ull << 20)

static int mbo_probe(struct vgpu_dev *dev, struct vgpu_managed *m)
{
	struct drm_vgpu_query_paging pg;
	int ret = vgpu_query_paging(dev, &pg);

	if (ret)
		return ret;
	m->granule = pg.chunk_size ? pg.chunk_size : MANAGED_BO_CHUNK;
	return 0;
}

static int mbo_alloc(struct vgpu_dev *dev, struct vgpu_managed *m, size_t size,
		     struct vgpu_managed_alloc *a)
{
	uint64_t rsize = (size + m->granule - 1) & ~(m->granule - 1), off, addr;
	void *p;
	int ret;

	if (rsize > dev->max_bo_size)
		return -E2BIG;
	addr = vgpu_managed_reserve(rsize, m->granule, PROT_NONE);
	if (!addr)
		return -ENOMEM;
	/* The address must be a GPU VA too (x86-64 user space is below 2^47). */
	ret = -ENOMEM;
	if (addr < dev->va_start || addr + rsize > dev->va_end)
		goto out_unreserve;
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
