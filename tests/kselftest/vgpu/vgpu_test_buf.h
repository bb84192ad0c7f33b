/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A BO mapped for the GPU and the CPU, for the kselftest suites (after
 * libvgpu.h).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_TEST_BUF_H
#define VGPU_TEST_BUF_H

#include "libvgpu.h"

#define VGPU_TEST_MiB (1ull << 20)

/* A BO mapped for the GPU and the CPU. */
struct buf {
	uint32_t bo;
	uint64_t va;
	uint64_t size;
	void *cpu;
};

static inline int buf_create(struct vgpu_dev *dev, struct buf *b,
			     uint64_t size, uint32_t place, uint64_t va,
			     uint32_t perms)
{
	struct drm_vgpu_bo_create bc = {
		.size = size, .placements = place,
		.alignment = size >= 2 * VGPU_TEST_MiB ? 2 * VGPU_TEST_MiB : 0,
	};
	int ret;

	ret = vgpu_bo_create_ex(dev, &bc);
	if (ret)
		return ret;
	b->bo = bc.handle;
	b->va = va;
	b->size = size;
	ret = vgpu_vm_map(dev, b->bo, 0, va, size, perms);
	if (ret)
		return ret;
	return vgpu_bo_map(dev, b->bo, size, &b->cpu);
}

static inline void buf_destroy(struct vgpu_dev *dev, struct buf *b)
{
	vgpu_bo_unmap(b->cpu, b->size);
	vgpu_vm_unmap(dev, b->va, b->size);
	vgpu_bo_close(dev, b->bo);
}

#endif /* VGPU_TEST_BUF_H */
