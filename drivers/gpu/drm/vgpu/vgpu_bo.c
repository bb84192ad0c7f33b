// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/log2.h>
#include <linux/sched/signal.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_prime.h>
#include <drm/drm_utils.h>
#include <drm/ttm/ttm_tt.h>
#include <drm/vgpu_drm.h>

#include "vgpu_admit.h"
#include "vgpu_bo.h"
#include "vgpu_chunk.h"
#include "vgpu_drv.h"
#include "vgpu_fdinfo.h"
#include "vgpu_ioctl.h"
#include "vgpu_migrate.h"
#include "vgpu_stats.h"
#include "vgpu_ttm.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: buffer objects
 *
 * A vgpu BO is a TTM buffer object whose embedded GEM object carries the
 * handle, the mmap offset and dma-buf export.  BO_CREATE turns the
 * user's placement mask and preference into a TTM placement list: the
 * preferred placement first, the other marked %TTM_PL_FLAG_FALLBACK, so
 * that the VRAM pool evicts colder units (BOs or chunks) to honour a VRAM
 * preference before TTM falls back.
 * The memory is always zeroed (see "TTM placements and moves").  The
 * alignment, which concerns VRAM blocks, rounds the size of BOs that may
 * live in VRAM only.  Every BO, the kernel's own included, is first
 * admitted against the memory that may back it (see "memory admission").
 *
 * CPU mappings go through TTM's fault handler with one addition: a VRAM
 * BO outside the CPU-visible window is first moved into it (the pool
 * evicting the coldest units in the window, or to system memory if
 * nothing there can go).
 * Mapping never fails because of a small BAR; the cost is a migration on
 * the first CPU touch, counted in the memory statistics.
 *
 * dma-buf: export uses the GEM PRIME helpers.  A BO attached by another
 * device is pinned in system memory (moved there from VRAM first) while
 * attached, so the importer gets an sg-table of pages.  Importing a vgpu
 * dma-buf into the same device returns the same BO; a foreign dma-buf
 * (vgem, another vgpu) becomes an sg BO that lives in %TTM_PL_TT, mapped
 * by the GPU through its DMA addresses and by the CPU through the
 * exporter's mmap.
 */

static void vgpu_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct vgpu_bo *bo = to_vgpu_bo(tbo);
	struct vgpu_device *vdev = to_vgpu(tbo->base.dev);

	if (tbo->base.import_attach)
		drm_prime_gem_destroy(&tbo->base, tbo->sg);
	vgpu_admit_release(vdev, bo);
	drm_gem_object_release(&tbo->base);
	mutex_destroy(&bo->gpuva_lock);
	kvfree(bo->chunks);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_BO_COUNT, -1);
	kfree(bo);
}

static void vgpu_gem_free(struct drm_gem_object *obj)
{
	/* A pageable BO's VRAM chunks go with its last reference. */
	vgpu_chunk_bo_fini(gem_to_vgpu_bo(obj));
	ttm_bo_put(&gem_to_vgpu_bo(obj)->tbo);
}

/**
 * vgpu_bo_put() - drop a reference to a BO
 * @bo: buffer object, or NULL
 */
void vgpu_bo_put(struct vgpu_bo *bo)
{
	if (bo)
		drm_gem_object_put(&bo->tbo.base);
}

/**
 * vgpu_bo_is_shared() - is the BO visible outside this device?
 * @bo: buffer object
 *
 * Return: true for exported and imported BOs: those take part in implicit
 * synchronisation with other users.
 */
bool vgpu_bo_is_shared(struct vgpu_bo *bo)
{
	return bo->tbo.base.dma_buf || bo->tbo.base.import_attach;
}

static u32 vgpu_bo_vram_lpfn(struct vgpu_device *vdev, u32 flags)
{
	if (vdev->visible_size == vdev->vram_size)
		return 0;
	if ((flags & (DRM_VGPU_BO_CPU_ACCESS | VGPU_BO_VISIBLE)) ||
	    !vgpu_migrate_ready(vdev))
		return vdev->visible_size >> PAGE_SHIFT;
	return 0;
}

static void vgpu_bo_init_placement(struct vgpu_device *vdev, struct vgpu_bo *bo)
{
	struct ttm_place *p = bo->places;
	u32 order[2] = { bo->preferred, bo->placements & ~bo->preferred };
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!order[i])
			continue;
		memset(p, 0, sizeof(*p));
		if (order[i] == DRM_VGPU_PLACE_VRAM) {
			p->mem_type = TTM_PL_VRAM;
			p->lpfn = vgpu_bo_vram_lpfn(vdev, bo->flags);
			if (bo->flags & DRM_VGPU_BO_CONTIGUOUS)
				p->flags |= TTM_PL_FLAG_CONTIGUOUS;
		} else {
			p->mem_type = TTM_PL_TT;
		}
		if (n)
			p->flags |= TTM_PL_FLAG_FALLBACK;
		p++;
		n++;
	}
	bo->placement.placement = bo->places;
	bo->placement.num_placement = n;
}

static struct vgpu_bo *vgpu_bo_alloc(struct vgpu_device *vdev, u64 size)
{
	struct vgpu_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	drm_gem_private_object_init(&vdev->drm, &bo->tbo.base, size);
	bo->tbo.base.funcs = &vgpu_gem_funcs;
	mutex_init(&bo->gpuva_lock);
	drm_gem_gpuva_set_lock(&bo->tbo.base, &bo->gpuva_lock);
	vgpu_bo_pool_init(bo);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_BO_COUNT, 1);
	return bo;
}

static struct vgpu_bo *vgpu_bo_init(struct vgpu_device *vdev, u64 size,
				    u32 placements, u32 preferred, u32 flags,
				    u64 alignment, enum ttm_bo_type type)
{
	/* Pageable memory may be huge: fail rather than wake the OOM killer. */
	struct ttm_operation_ctx ctx = {
		.interruptible = true,
		.gfp_retry_mayfail = !!(flags & DRM_VGPU_BO_PAGEABLE),
	};
	struct vgpu_bo *bo;
	int ret;

	if (!preferred)
		preferred = placements & DRM_VGPU_PLACE_VRAM ?: placements;

	bo = vgpu_bo_alloc(vdev, size);
	if (IS_ERR(bo))
		return bo;
	bo->placements = placements;
	bo->preferred = preferred;
	bo->flags = flags;
	vgpu_bo_init_placement(vdev, bo);
	ret = vgpu_admit_bo(vdev, bo);
	if (!ret && (flags & DRM_VGPU_BO_PAGEABLE))
		ret = vgpu_chunk_bo_init(bo);
	if (ret) {
		vgpu_bo_destroy(&bo->tbo);
		return ERR_PTR(ret);
	}

	/* On failure TTM calls vgpu_bo_destroy(), which frees @bo. */
	ret = ttm_bo_init_reserved(&vdev->ttm, &bo->tbo, type, &bo->placement,
				   alignment >> PAGE_SHIFT, &ctx, NULL, NULL,
				   vgpu_bo_destroy);
	if (ret)
		return ERR_PTR(ret);
	return bo;
}

/**
 * vgpu_bo_create() - create a user BO
 * @vdev: vgpu device
 * @size: bytes, a multiple of the page size and of @alignment
 * @placements: ``DRM_VGPU_PLACE_*`` mask
 * @preferred: one bit of @placements, or 0
 * @flags: ``DRM_VGPU_BO_*``
 * @alignment: 0 or the VRAM block alignment, a power of two
 *
 * Return: the BO with one reference, unreserved, or an ERR_PTR(): -ENOMEM
 * among others when the memory admission refuses it.
 */
struct vgpu_bo *vgpu_bo_create(struct vgpu_device *vdev, u64 size,
			       u32 placements, u32 preferred, u32 flags,
			       u64 alignment)
{
	struct vgpu_bo *bo;

	bo = vgpu_bo_init(vdev, size, placements, preferred, flags, alignment,
			  ttm_bo_type_device);
	if (!IS_ERR(bo))
		ttm_bo_unreserve(&bo->tbo);
	return bo;
}

/**
 * vgpu_bo_create_kernel() - create a pinned kernel-internal BO
 * @vdev: vgpu device
 * @size: bytes, a multiple of the page size
 * @placements: ``DRM_VGPU_PLACE_*``, exactly one
 * @flags: ``DRM_VGPU_BO_CONTIGUOUS`` and ``VGPU_BO_VISIBLE`` only
 *
 * Kernel BOs (page tables, rings) are never evicted and count as kernel
 * memory in the VRAM statistics.  Free with vgpu_bo_free_kernel().
 *
 * Return: the BO, pinned, or an ERR_PTR(): -ENOMEM among others when the
 * memory admission refuses it.
 */
struct vgpu_bo *vgpu_bo_create_kernel(struct vgpu_device *vdev, u64 size,
				      u32 placements, u32 flags)
{
	struct vgpu_bo *bo;

	bo = vgpu_bo_init(vdev, size, placements, placements,
			  flags | VGPU_BO_KERNEL, 0, ttm_bo_type_kernel);
	if (IS_ERR(bo))
		return bo;
	ttm_bo_pin(&bo->tbo);
	ttm_bo_unreserve(&bo->tbo);
	return bo;
}

/**
 * vgpu_bo_free_kernel() - unpin and release a kernel BO
 * @bo: from vgpu_bo_create_kernel(), or NULL
 */
void vgpu_bo_free_kernel(struct vgpu_bo *bo)
{
	if (!bo)
		return;
	dma_resv_lock(bo->tbo.base.resv, NULL);
	ttm_bo_unpin(&bo->tbo);
	dma_resv_unlock(bo->tbo.base.resv);
	vgpu_bo_put(bo);
}

/**
 * vgpu_bo_validate() - bring a BO back to its own placements
 * @bo: buffer object, reserved
 * @interruptible: may be interrupted by a signal
 *
 * A BO TTM evicted out of its allowed placements (a VRAM-only BO sent to
 * system memory) goes back before a job uses it.
 *
 * Return: 0 or a negative errno.
 */
int vgpu_bo_validate(struct vgpu_bo *bo, bool interruptible)
{
	struct ttm_operation_ctx ctx = { .interruptible = interruptible };

	dma_resv_assert_held(bo->tbo.base.resv);
	if (bo->tbo.type == ttm_bo_type_sg || bo->tbo.pin_count)
		return 0;
	return ttm_bo_validate(&bo->tbo, &bo->placement, &ctx);
}

/**
 * vgpu_bo_move_notify() - a BO's backing store is about to change
 * @tbo: buffer object, reserved
 * @new_mem: the new resource, or NULL when the memory is released
 *
 * Re-points the BO's GPU mappings at @new_mem.
 */
void vgpu_bo_move_notify(struct ttm_buffer_object *tbo,
			 struct ttm_resource *new_mem)
{
	if (tbo->type == ttm_bo_type_kernel)
		return;
	vgpu_vm_bo_move(to_vgpu_bo(tbo), new_mem);
}

/**
 * vgpu_bo_account_move() - count a completed move in the device statistics
 * @vdev: vgpu device
 * @tbo: buffer object
 * @evict: the move was an eviction
 * @old_type: memory type the data came from, or -1 if there was none
 * @new_type: memory type of the new resource
 */
void vgpu_bo_account_move(struct vgpu_device *vdev,
			  struct ttm_buffer_object *tbo, bool evict,
			  int old_type, u32 new_type)
{
	if (old_type == TTM_PL_VRAM && new_type != TTM_PL_VRAM) {
		vgpu_stats_add(vdev, NULL, VGPU_STAT_BYTES_TO_SYSTEM, tbo->base.size);
		if (evict)
			vgpu_stats_add(vdev, NULL, VGPU_STAT_EVICTIONS, 1);
	} else if (old_type >= 0 && old_type != TTM_PL_VRAM &&
		   new_type == TTM_PL_VRAM) {
		vgpu_stats_add(vdev, NULL, VGPU_STAT_BYTES_TO_VRAM, tbo->base.size);
	}
	vgpu_fdinfo_account_move(tbo, evict, old_type, new_type);
}

/* ------------------------------------------------------------- CPU mmap --- */

/**
 * vgpu_bo_make_cpu_visible() - move a VRAM BO into the CPU-visible window
 * @bo: buffer object, reserved
 *
 * Does nothing for BOs in system memory or already inside the window.
 * When the window is full, the BO may land in system memory instead, and
 * a BO larger than the window always does.
 *
 * Return: 0 or a negative errno.
 */
int vgpu_bo_make_cpu_visible(struct vgpu_bo *bo)
{
	struct vgpu_device *vdev = to_vgpu(bo->tbo.base.dev);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_resource *res = bo->tbo.resource;
	static const struct ttm_place tt = { .mem_type = TTM_PL_TT };
	struct ttm_placement placement;
	struct ttm_place places[2] = {
		{ .mem_type = TTM_PL_VRAM,
		  .lpfn = vdev->visible_size >> PAGE_SHIFT },
		{ .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_FALLBACK },
	};

	if (!res || res->mem_type != TTM_PL_VRAM ||
	    vgpu_vram_res_visible(vdev, res))
		return 0;
	if (bo->tbo.pin_count)
		return -EINVAL;

	if (bo->flags & DRM_VGPU_BO_CONTIGUOUS)
		places[0].flags |= TTM_PL_FLAG_CONTIGUOUS;
	placement.placement = places;
	placement.num_placement = ARRAY_SIZE(places);
	/*
	 * The VRAM manager refuses what can never fit in the window with
	 * -E2BIG, which TTM takes as final: such a BO goes straight to TT.
	 */
	if (bo->tbo.base.size > vdev->visible_size) {
		placement.placement = &tt;
		placement.num_placement = 1;
	}
	vgpu_stats_add(vdev, NULL, VGPU_STAT_CPU_FAULT_MOVES, 1);
	return ttm_bo_validate(&bo->tbo, &placement, &ctx);
}

/* The page of the BO that @vmf faults on. */
static pgoff_t vgpu_gem_fault_page(const struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;

	return ((vmf->address - vmf->vma->vm_start) >> PAGE_SHIFT) +
	       vmf->vma->vm_pgoff - drm_vma_node_start(&tbo->base.vma_node);
}

static vm_fault_t vgpu_gem_fault_errno(int err)
{
	if (err == -EINTR || err == -ERESTARTSYS || err == -EAGAIN)
		return VM_FAULT_NOPAGE;
	if (err == -ENOMEM)
		return VM_FAULT_OOM;
	return err ? VM_FAULT_SIGBUS : 0;
}

/*
 * The protection a CPU mapping of pageable memory is made with: the
 * mapping's own (&vm_area_struct.vm_page_prot is read-only there, for
 * vgpu_gem_pfn_mkwrite()), or read-only for a duplicated chunk.
 */
static pgprot_t vgpu_gem_fault_prot(const struct vm_fault *vmf,
				    bool read_only)
{
	vm_flags_t flags = vmf->vma->vm_flags;

	return vm_get_page_prot(read_only ? flags & ~VM_WRITE : flags);
}

static vm_fault_t vgpu_gem_fault(struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;
	struct vgpu_device *vdev = to_vgpu(tbo->base.dev);
	struct vgpu_bo *bo = to_vgpu_bo(tbo);
	pgoff_t prefault = TTM_BO_VM_NUM_PREFAULT;
	pgprot_t prot = vmf->vma->vm_page_prot;
	bool read_only = false;
	vm_fault_t ret;
	int idx, err;

	ret = ttm_bo_vm_reserve(tbo, vmf);
	if (ret)
		return ret;

	if (drm_dev_enter(&vdev->drm, &idx)) {
		/* The CPU sees pageable memory at home only, chunk by chunk. */
		err = vgpu_chunk_cpu_fault(bo, vgpu_gem_fault_page(vmf),
					   vmf->flags & FAULT_FLAG_WRITE,
					   &prefault, &read_only);
		if (bo->chunks)
			prot = vgpu_gem_fault_prot(vmf, read_only);
		if (!err)
			err = vgpu_bo_make_cpu_visible(bo);
		ret = vgpu_gem_fault_errno(err);
		if (!ret)
			ret = ttm_bo_vm_fault_reserved(vmf, prot, prefault);
		drm_dev_exit(idx);
	} else {
		ret = ttm_bo_vm_dummy_page(vmf, vmf->vma->vm_page_prot);
	}

	if (ret == VM_FAULT_RETRY && !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT))
		return ret;
	dma_resv_unlock(tbo->base.resv);
	return ret;
}

/*
 * A CPU write through a read-only mapping of pageable memory (a
 * duplicated READ_MOSTLY chunk): the chunk's VRAM copy goes first, then
 * the core makes the entry writable, unless it changed meanwhile (a
 * chunk moving into VRAM zaps it: the write faults again).
 */
static vm_fault_t vgpu_gem_pfn_mkwrite(struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;
	pgoff_t prefault = 1;
	int idx, err = 0;

	/* No retry from here: the core goes on with the entry. */
	if (dma_resv_lock_interruptible(tbo->base.resv, NULL))
		return VM_FAULT_NOPAGE;
	/* Unplugged: the entry is the dummy page, written as before. */
	if (drm_dev_enter(tbo->base.dev, &idx)) {
		err = vgpu_chunk_cpu_fault(to_vgpu_bo(tbo),
					   vgpu_gem_fault_page(vmf), true,
					   &prefault, NULL);
		drm_dev_exit(idx);
	}
	dma_resv_unlock(tbo->base.resv);
	return vgpu_gem_fault_errno(err);
}

/*
 * ptrace and /proc/<pid>/mem on a CPU mapping.  Pageable memory is read
 * and written at home, as a CPU fault sees it: the chunks the access
 * covers come home first (written back if dirty), all under the BO's
 * reservation, so no chunk can move into VRAM behind the access.  Other
 * BOs are TTM's business.
 */
static int vgpu_gem_vm_access(struct vm_area_struct *vma, unsigned long addr,
			      void *buf, int len, int write)
{
	struct ttm_buffer_object *tbo = vma->vm_private_data;
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct vgpu_bo *bo = to_vgpu_bo(tbo);
	unsigned long offset = addr - vma->vm_start +
		((vma->vm_pgoff - drm_vma_node_start(&tbo->base.vma_node))
		 << PAGE_SHIFT);
	pgoff_t page, last, n;
	int idx, ret;

	if (!bo->chunks)
		return ttm_bo_vm_access(vma, addr, buf, len, write);
	if (len < 1 || offset > tbo->base.size || len > tbo->base.size - offset)
		return -EIO;
	ret = ttm_bo_reserve(tbo, true, false, NULL);
	if (ret)
		return ret;
	if (!drm_dev_enter(tbo->base.dev, &idx)) {
		ttm_bo_unreserve(tbo);
		return -ENODEV;
	}
	last = (offset + len - 1) >> PAGE_SHIFT;
	for (page = offset >> PAGE_SHIFT; page <= last && !ret; page += n) {
		n = last - page + 1;
		ret = vgpu_chunk_cpu_fault(bo, page, write, &n, NULL);
	}
	if (!ret)
		ret = ttm_tt_populate(tbo->bdev, tbo->ttm, &ctx);
	if (!ret)
		ret = vgpu_ttm_access(tbo, offset, buf, len, write);
	drm_dev_exit(idx);
	ttm_bo_unreserve(tbo);
	return ret;
}

static const struct vm_operations_struct vgpu_gem_vm_ops = {
	.fault = vgpu_gem_fault,
	.open = ttm_bo_vm_open,
	.close = ttm_bo_vm_close,
	.access = vgpu_gem_vm_access,
};

/*
 * Pageable BOs: with .pfn_mkwrite the core maps them read-only by
 * default (write notification), and vgpu_gem_fault() chooses.
 */
static const struct vm_operations_struct vgpu_gem_pageable_vm_ops = {
	.fault = vgpu_gem_fault,
	.pfn_mkwrite = vgpu_gem_pfn_mkwrite,
	.open = ttm_bo_vm_open,
	.close = ttm_bo_vm_close,
	.access = vgpu_gem_vm_access,
};

static int vgpu_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	int ret;

	if (obj->import_attach) {
		/* The exporter maps its own memory. */
		vma->vm_private_data = NULL;
		vma->vm_ops = NULL;
		ret = dma_buf_mmap(obj->dma_buf, vma, 0);
		if (!ret)
			drm_gem_object_put(obj);
		return ret;
	}
	ret = drm_gem_ttm_mmap(obj, vma);
	if (!ret && gem_to_vgpu_bo(obj)->chunks)
		vma->vm_ops = &vgpu_gem_pageable_vm_ops;
	return ret;
}

/* ---------------------------------------------------------------- PRIME --- */

static int vgpu_gem_pin(struct drm_gem_object *obj)
{
	struct vgpu_bo *bo = gem_to_vgpu_bo(obj);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_place tt = { .mem_type = TTM_PL_TT };
	struct ttm_placement placement = { .num_placement = 1, .placement = &tt };
	int idx, ret;

	dma_resv_assert_held(obj->resv);
	if (bo->tbo.type == ttm_bo_type_sg) {
		ttm_bo_pin(&bo->tbo);
		return 0;
	}
	/* Pageable memory moves behind the importer's back: not shared. */
	if (bo->chunks)
		return -EINVAL;
	/*
	 * Another device gets pages: pin the BO in system memory.  Inside
	 * drm_dev_enter(), so that an unplug, which unpopulates every tt
	 * (vgpu_remove()), sees the importer and keeps its pages.
	 */
	if (!drm_dev_enter(obj->dev, &idx))
		return -ENODEV;
	ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
	if (!ret) {
		ttm_bo_pin(&bo->tbo);
		vgpu_ttm_tt_share(bo->tbo.ttm, true);
	}
	drm_dev_exit(idx);
	return ret;
}

static void vgpu_gem_unpin(struct drm_gem_object *obj)
{
	struct vgpu_bo *bo = gem_to_vgpu_bo(obj);

	dma_resv_assert_held(obj->resv);
	if (bo->tbo.type != ttm_bo_type_sg)
		vgpu_ttm_tt_share(bo->tbo.ttm, false);
	ttm_bo_unpin(&bo->tbo);
}

/*
 * The pages of an exported BO, for the importer to map.  The importer's
 * segment limit is not known here, so no segment is longer than what a
 * device without dma_parms claims (64 KiB, vgem's): the DMA API refuses
 * longer ones for such a device.
 */
static struct sg_table *vgpu_gem_get_sg_table(struct drm_gem_object *obj)
{
	struct vgpu_bo *bo = gem_to_vgpu_bo(obj);
	struct ttm_tt *tt = bo->tbo.ttm;
	struct sg_table *sgt;
	int ret;

	if (!tt || !tt->pages || !bo->tbo.resource ||
	    bo->tbo.resource->mem_type != TTM_PL_TT)
		return ERR_PTR(-EINVAL);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages_segment(sgt, tt->pages, tt->num_pages, 0,
						(size_t)tt->num_pages << PAGE_SHIFT,
						SZ_64K, GFP_KERNEL);
	if (ret) {
		kfree(sgt);
		return ERR_PTR(ret);
	}
	return sgt;
}

/**
 * vgpu_gem_prime_import_sg_table() - wrap a foreign dma-buf in a BO
 * @drm: DRM device
 * @attach: the dma-buf attachment, mapped
 * @sgt: its sg-table
 *
 * Return: the new GEM object or an ERR_PTR().
 */
struct drm_gem_object *
vgpu_gem_prime_import_sg_table(struct drm_device *drm,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct dma_buf *dmabuf = attach->dmabuf;
	struct vgpu_bo *bo;
	int ret;

	if (!dmabuf->size || !PAGE_ALIGNED(dmabuf->size) ||
	    dmabuf->size > VGPU_BO_MAX_SIZE)
		return ERR_PTR(-EINVAL);

	bo = vgpu_bo_alloc(vdev, dmabuf->size);
	if (IS_ERR(bo))
		return ERR_CAST(bo);
	bo->placements = DRM_VGPU_PLACE_SYSTEM;
	bo->preferred = DRM_VGPU_PLACE_SYSTEM;
	vgpu_bo_init_placement(vdev, bo);

	/*
	 * Share the exporter's reservation object for implicit sync; TTM
	 * wants it locked.  On failure TTM frees @bo through
	 * vgpu_bo_destroy().
	 */
	dma_resv_lock(dmabuf->resv, NULL);
	ret = ttm_bo_init_reserved(&vdev->ttm, &bo->tbo, ttm_bo_type_sg,
				   &bo->placement, 0, &ctx, sgt, dmabuf->resv,
				   vgpu_bo_destroy);
	dma_resv_unlock(dmabuf->resv);
	if (ret)
		return ERR_PTR(ret);
	return &bo->tbo.base;
}

const struct drm_gem_object_funcs vgpu_gem_funcs = {
	.free = vgpu_gem_free,
	.print_info = drm_gem_ttm_print_info,
	.pin = vgpu_gem_pin,
	.unpin = vgpu_gem_unpin,
	.get_sg_table = vgpu_gem_get_sg_table,
	.mmap = vgpu_gem_mmap,
	.vm_ops = &vgpu_gem_vm_ops,
};

/* ---------------------------------------------------------------- ioctls --- */

/**
 * vgpu_bo_create_ioctl() - DRM_IOCTL_VGPU_BO_CREATE
 * @drm: DRM device
 * @data: &struct drm_vgpu_bo_create
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_bo_create.
 */
int vgpu_bo_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct drm_vgpu_bo_create *args = data;
	u64 size = args->size, align = args->alignment;
	struct vgpu_bo *bo;
	u32 handle;
	int ret;

	if (VGPU_IOCTL_DBG(drm, args->reserved) ||
	    VGPU_IOCTL_DBG(drm, !args->placements) ||
	    VGPU_IOCTL_DBG(drm, args->placements & ~DRM_VGPU_PLACE_ALL) ||
	    VGPU_IOCTL_DBG(drm, args->preferred &&
			   (hweight32(args->preferred) != 1 ||
			    !(args->preferred & args->placements))) ||
	    VGPU_IOCTL_DBG(drm, args->flags & ~DRM_VGPU_BO_FLAGS_ALL) ||
	    VGPU_IOCTL_DBG(drm, (args->flags & DRM_VGPU_BO_CONTIGUOUS) &&
			   !(args->placements & DRM_VGPU_PLACE_VRAM)) ||
	    VGPU_IOCTL_DBG(drm, align && (!is_power_of_2(align) ||
					  align < SZ_4K || align > SZ_1G)) ||
	    VGPU_IOCTL_DBG(drm, (args->flags & DRM_VGPU_BO_PAGEABLE) &&
			   (args->flags != DRM_VGPU_BO_PAGEABLE ||
			    !(args->placements & DRM_VGPU_PLACE_SYSTEM) ||
			    args->preferred || align)) ||
	    VGPU_IOCTL_DBG(drm, !size) ||
	    VGPU_IOCTL_DBG(drm, size > U64_MAX - SZ_1G))
		return -EINVAL;

	/* Pageable memory lives in system memory, cached by VRAM. */
	if (args->flags & DRM_VGPU_BO_PAGEABLE) {
		size = ALIGN(size, 1ull << vdev->paging.chunk_shift);
		if (VGPU_IOCTL_DBG(drm, size > VGPU_BO_MAX_SIZE))
			return -E2BIG;
		bo = vgpu_bo_create(vdev, size, DRM_VGPU_PLACE_SYSTEM,
				    DRM_VGPU_PLACE_SYSTEM, args->flags, 0);
		if (IS_ERR(bo))
			return PTR_ERR(bo);
		goto create_handle;
	}

	/* The alignment is VRAM's: a BO that never lives there ignores it. */
	if (!(args->placements & DRM_VGPU_PLACE_VRAM))
		align = 0;
	align = max_t(u64, align, PAGE_SIZE);
	size = ALIGN(size, align);
	if (VGPU_IOCTL_DBG(drm, size > VGPU_BO_MAX_SIZE) ||
	    VGPU_IOCTL_DBG(drm, args->placements == DRM_VGPU_PLACE_VRAM &&
			   size > vdev->vram_size))
		return -E2BIG;

	bo = vgpu_bo_create(vdev, size, args->placements, args->preferred,
			    args->flags, align > PAGE_SIZE ? align : 0);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

create_handle:
	/* The handle is the last thing created: nothing to undo after it. */
	ret = drm_gem_handle_create(file, &bo->tbo.base, &handle);
	vgpu_bo_put(bo);
	if (ret)
		return ret;

	args->handle = handle;
	args->size = size;
	return 0;
}

/**
 * vgpu_bo_mmap_offset_ioctl() - DRM_IOCTL_VGPU_BO_MMAP_OFFSET
 * @drm: DRM device
 * @data: &struct drm_vgpu_bo_mmap_offset
 * @file: DRM file of the caller
 *
 * Return: 0, -EINVAL for non-zero flags, -ENOENT for an unknown handle.
 */
int vgpu_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_vgpu_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;

	if (VGPU_IOCTL_DBG(drm, args->flags))
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (VGPU_IOCTL_DBG(drm, !obj))
		return -ENOENT;
	args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return 0;
}

/**
 * vgpu_wait_bo_ioctl() - DRM_IOCTL_VGPU_WAIT_BO
 * @drm: DRM device
 * @data: &struct drm_vgpu_wait_bo
 * @file: DRM file of the caller
 *
 * Return: 0 when idle, -ETIMEDOUT, -ENOENT, -EINVAL, or -ERESTARTSYS.
 */
int vgpu_wait_bo_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct drm_vgpu_wait_bo *args = data;
	struct drm_gem_object *obj;
	unsigned long timeout;
	long ret;

	if (VGPU_IOCTL_DBG(drm, args->flags))
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (VGPU_IOCTL_DBG(drm, !obj))
		return -ENOENT;

	timeout = args->timeout_ns > 0 ?
		  drm_timeout_abs_to_jiffies(args->timeout_ns) : 0;
	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_BOOKKEEP, true,
				    timeout);
	drm_gem_object_put(obj);
	if (ret == 0)
		return -ETIMEDOUT;
	return ret < 0 ? ret : 0;
}
