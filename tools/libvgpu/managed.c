// SPDX-License-Identifier: MIT
/*
 * libvgpu: managed memory, one pointer on CPU and GPU (libvgpu.h,
 * "managed memory").  The front end: the allocation table, argument
 * checks, advice translation; the backends behind managed.h do the rest.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "libvgpu.h"
#include "managed.h"

#define MANAGED_PAGE	4096ull

/*
 * Tried in order; the first whose probe() succeeds is used: process
 * memory mirrored by the GPU where it migrates into VRAM, else pageable
 * BOs (a mirror that stays in system memory would never use VRAM).
 */
static const struct vgpu_managed_backend *const backends[] = {
	&vgpu_managed_svm_backend,
	&vgpu_managed_bo_backend,
};

int vgpu_managed_granule(struct vgpu_dev *dev, struct vgpu_managed *m)
{
	struct drm_vgpu_query_paging pg;
	int ret = vgpu_query_paging(dev, &pg);

	if (ret)
		return ret;
	m->granule = pg.chunk_size ? pg.chunk_size : 2ull << 20;
	return 0;
}

int64_t vgpu_managed_reserve(struct vgpu_dev *dev, struct vgpu_managed *m,
			     size_t size, int prot, uint64_t *rsize)
{
	uint64_t align = m->granule, n = (size + align - 1) & ~(align - 1);
	uint64_t p, a;
	void *r;

	if (n > dev->max_bo_size)
		return -E2BIG;
	r = mmap(NULL, n + align, prot,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return -ENOMEM;
	p = (uintptr_t)r;
	a = (p + align - 1) & ~(align - 1);
	if (a > p)
		munmap(r, a - p);
	if (p + align > a)
		munmap((void *)(uintptr_t)(a + n), p + align - a);
	/* The address must be a GPU VA too (x86-64 user space is below 2^47). */
	if (a < dev->va_start || a + n > dev->va_end) {
		munmap((void *)(uintptr_t)a, n);
		return -ENOMEM;
	}
	*rsize = n;
	return a;
}

static int managed_init(struct vgpu_dev *dev)
{
	struct vgpu_managed *m;
	size_t i;
	int ret = -EOPNOTSUPP;

	if (dev->managed)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		ret = backends[i]->probe(dev, m);
		if (!ret) {
			m->be = backends[i];
			dev->managed = m;
			return 0;
		}
	}
	free(m);
	return ret;
}

/* The index of the first allocation whose address is above @addr. */
static size_t upper(const struct vgpu_managed *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->allocs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The allocation holding all of [@addr, @addr + @size), or NULL. */
static struct vgpu_managed_alloc *find_range(const struct vgpu_dev *dev,
					     uint64_t addr, uint64_t size)
{
	const struct vgpu_managed *m = dev->managed;
	struct vgpu_managed_alloc *a;
	size_t i;

	if (!m || !size || addr + size < addr)
		return NULL;
	i = upper(m, addr);
	if (!i)
		return NULL;
	a = &m->allocs[i - 1];
	return addr + size <= a->addr + a->size ? a : NULL;
}

int vgpu_malloc_managed(struct vgpu_dev *dev, size_t size, unsigned int flags,
			void **ptr)
{
	struct vgpu_managed_alloc a;
	struct vgpu_managed *m;
	size_t i;
	int ret;

	if (!size || flags)
		return -EINVAL;
	ret = managed_init(dev);
	if (ret)
		return ret;
	m = dev->managed;
	if (size > SIZE_MAX - m->granule)
		return -EINVAL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct vgpu_managed_alloc *n = realloc(m->allocs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->allocs = n;
		m->cap = cap;
	}
	ret = m->be->alloc(dev, m, size, &a);
	if (ret)
		return ret;
	i = upper(m, a.addr);
	memmove(&m->allocs[i + 1], &m->allocs[i], (m->n - i) * sizeof(a));
	m->allocs[i] = a;
	m->n++;
	*ptr = (void *)(uintptr_t)a.addr;
	return 0;
}

int vgpu_free(struct vgpu_dev *dev, void *ptr)
{
	struct vgpu_managed *m = dev->managed;
	uint64_t addr = (uintptr_t)ptr;
	struct vgpu_managed_alloc *a;
	size_t i;
	int ret;

	if (!ptr)
		return 0;
	a = find_range(dev, addr, 1);
	if (!a || a->addr != addr)
		return -EINVAL;
	ret = m->be->free(dev, a);
	i = a - m->allocs;
	memmove(a, a + 1, (m->n - i - 1) * sizeof(*a));
	m->n--;
	return ret;
}

/* [@ptr, @ptr + @size) widened to pages, if inside one allocation. */
static int managed_range(struct vgpu_dev *dev, const void *ptr, size_t size,
			 uint64_t *va, uint64_t *len)
{
	uint64_t addr = (uintptr_t)ptr;

	if (!find_range(dev, addr, size))
		return -EINVAL;
	*va = addr & ~(MANAGED_PAGE - 1);
	*len = ((addr + size + MANAGED_PAGE - 1) & ~(MANAGED_PAGE - 1)) - *va;
	return 0;
}

int vgpu_mem_prefetch(struct vgpu_dev *dev, const void *ptr, size_t size,
		      uint32_t location, uint64_t *bytes_moved)
{
	uint64_t va, len, g;
	int ret;

	if (location != VGPU_MEM_LOC_GPU && location != VGPU_MEM_LOC_CPU)
		return -EINVAL;
	ret = managed_range(dev, ptr, size, &va, &len);
	if (ret)
		return ret;
	/* Whole chunks, on either backend (allocations are whole chunks). */
	g = dev->managed->granule;
	len = ((va + len + g - 1) & ~(g - 1)) - (va & ~(g - 1));
	va &= ~(g - 1);
	return vgpu_prefetch(dev, va, len, location, bytes_moved);
}

int vgpu_mem_advise(struct vgpu_dev *dev, const void *ptr, size_t size,
		    enum vgpu_mem_advice advice, uint32_t location)
{
	bool loc_ok = location == VGPU_MEM_LOC_GPU || location == VGPU_MEM_LOC_CPU;
	uint32_t uadvice;
	uint64_t value, va, len;
	int ret;

	switch (advice) {
	case VGPU_MEM_ADVISE_SET_READ_MOSTLY:
	case VGPU_MEM_ADVISE_UNSET_READ_MOSTLY:
		if (location)
			return -EINVAL;
		uadvice = DRM_VGPU_ADVICE_READ_MOSTLY;
		value = advice == VGPU_MEM_ADVISE_SET_READ_MOSTLY;
		break;
	case VGPU_MEM_ADVISE_SET_PREFERRED_LOCATION:
		if (!loc_ok)
			return -EINVAL;
		uadvice = DRM_VGPU_ADVICE_PREFERRED_PLACEMENT;
		value = location;
		break;
	case VGPU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
		if (location)
			return -EINVAL;
		uadvice = DRM_VGPU_ADVICE_PREFERRED_PLACEMENT;
		value = 0;
		break;
	case VGPU_MEM_ADVISE_SET_ACCESSED_BY:
	case VGPU_MEM_ADVISE_UNSET_ACCESSED_BY:
		if (!loc_ok)
			return -EINVAL;
		uadvice = DRM_VGPU_ADVICE_ACCESSED_BY;
		value = advice == VGPU_MEM_ADVISE_SET_ACCESSED_BY ?
			DRM_VGPU_ACCESSOR_GPU : 0;
		break;
	default:
		return -EINVAL;
	}
	ret = managed_range(dev, ptr, size, &va, &len);
	if (ret)
		return ret;
	/* The CPU maps managed memory wherever it is: nothing to record. */
	if (uadvice == DRM_VGPU_ADVICE_ACCESSED_BY && location == VGPU_MEM_LOC_CPU)
		return 0;
	return vgpu_advise(dev, va, len, uadvice, value);
}

const char *vgpu_managed_backend(const struct vgpu_dev *dev)
{
	return dev->managed ? dev->managed->be->name : NULL;
}

void vgpu_managed_fini(struct vgpu_dev *dev)
{
	struct vgpu_managed *m = dev->managed;

	if (!m)
		return;
	while (m->n)
		m->be->free(dev, &m->allocs[--m->n]);
	free(m->allocs);
	free(m);
	dev->managed = NULL;
}
