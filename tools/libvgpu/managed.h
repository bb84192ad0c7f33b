/* SPDX-License-Identifier: MIT */
/*
 * libvgpu internal: the backend interface behind managed memory
 * (vgpu_malloc_managed() and friends, managed.c).  Not installed.
 *
 * A backend makes an allocation whose CPU address is also its GPU VA in
 * the default VM.  The front end keeps
 * the allocations, validates arguments and translates advice; backends
 * are tried in order and the first whose probe() succeeds is used for
 * the life of the &struct vgpu_dev: process memory mirrored by the GPU
 * (managed_svm.c) where the kernel migrates it into VRAM
 * (%DRM_VGPU_SVM_VRAM), else pageable BOs (managed_bo.c).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef LIBVGPU_MANAGED_H
#define LIBVGPU_MANAGED_H

#include <stddef.h>
#include <stdint.h>

#include "libvgpu.h"

/**
 * struct vgpu_managed_alloc - one managed allocation
 * @addr: its address, on the CPU and as a GPU VA
 * @size: bytes, as rounded by the backend
 * @handle: the backend's (for pageable BOs: the GEM handle; 0 for SVM)
 */
struct vgpu_managed_alloc {
	uint64_t addr;
	uint64_t size;
	uint32_t handle;
};

/**
 * struct vgpu_managed_backend - what a managed-memory backend does
 * @name: reported by vgpu_managed_backend()
 * @probe: 0 when @dev supports the backend; may set @m->granule
 * @alloc: @size bytes (not zero, below SIZE_MAX less a granule) into @a;
 *	0 or a negative errno, with nothing left behind on failure
 * @free: undo @alloc, waiting for the GPU first
 *
 * Moving and advising go through PREFETCH and ADVISE on the VA range
 * whatever the backend (the kernel does both for BOs and mirrors alike).
 */
struct vgpu_managed_backend {
	const char *name;
	int (*probe)(struct vgpu_dev *dev, struct vgpu_managed *m);
	int (*alloc)(struct vgpu_dev *dev, struct vgpu_managed *m, size_t size,
		     struct vgpu_managed_alloc *a);
	int (*free)(struct vgpu_dev *dev, struct vgpu_managed_alloc *a);
};

/**
 * struct vgpu_managed - the managed allocations of a &struct vgpu_dev
 * @be: the backend in use
 * @granule: allocation granule in bytes (pageable BOs: the paging chunk)
 * @allocs: the allocations, sorted by address
 * @n: entries used
 * @cap: entries allocated
 */
struct vgpu_managed {
	const struct vgpu_managed_backend *be;
	uint64_t granule;
	struct vgpu_managed_alloc *allocs;
	size_t n, cap;
};

extern const struct vgpu_managed_backend vgpu_managed_bo_backend;
extern const struct vgpu_managed_backend vgpu_managed_svm_backend;

/* The granule of @m: the driver's chunk size (2 MiB if it says none). */
int vgpu_managed_granule(struct vgpu_dev *dev, struct vgpu_managed *m);

/*
 * An address range for an allocation of @size bytes, rounded up to
 * @m's granule (*@rsize) and aligned to it, mapped anonymous and private
 * with @prot, inside the GPU's VA range (the same address on both).
 * Return: its address, or a negative errno (-E2BIG, -ENOMEM).
 */
int64_t vgpu_managed_reserve(struct vgpu_dev *dev, struct vgpu_managed *m,
			     size_t size, int prot, uint64_t *rsize);

/* Free every allocation left and the state (vgpu_close()). */
void vgpu_managed_fini(struct vgpu_dev *dev);

#endif /* LIBVGPU_MANAGED_H */
