// SPDX-License-Identifier: MIT
/*
 * libvgpu: the caching allocator over a vgpu device.  Segments are BOs
 * (2 MiB aligned, so the GPU maps them with 2 MiB pages) bound in the
 * default VM at the VA the pool chose; fences are syncobjs of the pool's
 * own, into which the fence of the caller's syncobj is transferred at the
 * free, and which are recycled.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <xf86drm.h>

#include "libvgpu.h"

#define POOL_DEV_SPARE_SYNCOBJS	64

struct pool_dev {
	struct vgpu_dev *dev;
	uint32_t placements;
	uint32_t spare[POOL_DEV_SPARE_SYNCOBJS];
	unsigned int nspare;
};

struct pool_dev_seg {
	uint32_t bo;
	void *cpu;
};

static int pd_seg_alloc(void *priv, uint64_t va, uint64_t size, void **cookie)
{
	struct pool_dev *pd = priv;
	struct drm_vgpu_bo_create bc = {
		.size = size, .placements = pd->placements,
		.alignment = pd->placements & VGPU_PLACE_VRAM ? 2u << 20 : 0,
	};
	struct pool_dev_seg *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	ret = vgpu_bo_create_ex(pd->dev, &bc);
	if (!ret) {
		s->bo = bc.handle;
		ret = vgpu_vm_map(pd->dev, s->bo, 0, va, size, VGPU_MAP_RW);
		if (ret)
			vgpu_bo_close(pd->dev, s->bo);
	}
	if (ret) {
		free(s);
		return ret;
	}
	*cookie = s;
	return 0;
}

static void pd_seg_free(void *priv, uint64_t va, uint64_t size, void *cookie)
{
	struct pool_dev *pd = priv;
	struct pool_dev_seg *s = cookie;

	if (s->cpu)
		vgpu_bo_unmap(s->cpu, size);
	vgpu_vm_unmap(pd->dev, va, size);
	vgpu_bo_close(pd->dev, s->bo);
	free(s);
}

static int pd_seg_map(void *priv, void *cookie, uint64_t size, void **cpu)
{
	struct pool_dev *pd = priv;
	struct pool_dev_seg *s = cookie;
	int ret = vgpu_bo_map(pd->dev, s->bo, size, &s->cpu);

	if (!ret)
		*cpu = s->cpu;
	return ret;
}

static int pd_fence_get(void *priv, uint32_t syncobj, void **fence)
{
	struct pool_dev *pd = priv;
	uint32_t h;
	int ret = 0;

	if (pd->nspare)
		h = pd->spare[--pd->nspare];
	else
		ret = vgpu_syncobj_create(pd->dev, &h);
	if (ret)
		return ret;
	if (drmSyncobjTransfer(pd->dev->fd, h, 0, syncobj, 0, 0)) {
		ret = -errno;
		vgpu_syncobj_destroy(pd->dev, h);
		return ret;
	}
	*fence = (void *)(uintptr_t)h;
	return 0;
}

static void pd_fence_put(void *priv, void *fence)
{
	struct pool_dev *pd = priv;
	uint32_t h = (uint32_t)(uintptr_t)fence;

	if (pd->nspare < POOL_DEV_SPARE_SYNCOBJS)
		pd->spare[pd->nspare++] = h;
	else
		vgpu_syncobj_destroy(pd->dev, h);
}

static int pd_fence_wait(void *priv, void *fence, int64_t timeout_ns)
{
	struct pool_dev *pd = priv;
	uint32_t h = (uint32_t)(uintptr_t)fence;

	if (timeout_ns)
		return vgpu_syncobj_wait(pd->dev, h, timeout_ns);
	/* An absolute deadline of 0 has passed: just look. */
	return drmSyncobjWait(pd->dev->fd, &h, 1, 0, 0, NULL) ? -errno : 0;
}

static void pd_release(void *priv)
{
	struct pool_dev *pd = priv;

	while (pd->nspare)
		vgpu_syncobj_destroy(pd->dev, pd->spare[--pd->nspare]);
	free(pd);
}

int vgpu_mempool_create(struct vgpu_dev *dev, const struct vgpu_mempool_config *cfg,
		     struct vgpu_mempool **pool)
{
	struct vgpu_mempool_config c = cfg ? *cfg : (struct vgpu_mempool_config){ 0 };
	struct vgpu_mempool_ops ops = {
		.seg_alloc = pd_seg_alloc, .seg_free = pd_seg_free,
		.seg_map = pd_seg_map, .fence_get = pd_fence_get,
		.fence_put = pd_fence_put, .fence_wait = pd_fence_wait,
		.release = pd_release,
	};
	struct pool_dev *pd;
	int ret;

	if (!c.placements)
		c.placements = VGPU_PLACE_VRAM;
	if (c.placements & ~VGPU_PLACE_ALL)
		return -EINVAL;
	if (!c.va_start && !c.va_size) {
		/* The library's default range, clamped to the device's. */
		c.va_start = 1ull << 47;
		c.va_size = 1ull << 46;
		if (c.va_start + c.va_size > dev->va_end)
			c.va_size = (dev->va_end - c.va_start) & ~((2ull << 20) - 1);
	}
	if (c.va_start < dev->va_start || c.va_start + c.va_size < c.va_start ||
	    c.va_start + c.va_size > dev->va_end)
		return -EINVAL;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	pd->dev = dev;
	pd->placements = c.placements;
	ops.priv = pd;
	ret = vgpu_mempool_create_ops(&ops, &c, pool);
	if (ret)
		free(pd);
	return ret;
}
