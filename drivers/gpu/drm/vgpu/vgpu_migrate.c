// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>

#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_job.h"
#include "vgpu_migrate.h"
#include "vgpu_pt.h"
#include "vgpu_queue.h"
#include "vgpu_res_cursor.h"
#include "vgpu_vm.h"

/**
 * DOC: copy engine
 *
 * The kernel moves and clears VRAM with the device itself.  At probe it
 * builds a kernel VM that owns hardware context 0 for good and maps, with
 * 1 GiB leaves where the size allows and 2 MiB ones elsewhere
 * (vgpu_vm_map_kernel()), all of VRAM at %VGPU_MIGRATE_VRAM_VA (VA = VRAM
 * offset + base) and all of system memory at %VGPU_MIGRATE_SYS_VA (VA =
 * DMA address + base; the guest has no IOMMU, so DMA addresses are
 * physical addresses below the end of RAM).  A move is then a list of COPY
 * commands between the two windows, one per physically contiguous piece,
 * and a clear a list of FILLs; no page table changes per move.
 *
 * Jobs go through hardware queue 0's scheduler (queue 0 is never given to
 * userspace), so kernel copies never wait behind user work.  Moves are
 * synchronous: TTM already waited for the BO to be idle, the copy job is
 * submitted and waited for, then TTM swaps the resources.
 *
 * Until the engine is up, and for DMA addresses outside the window, the
 * CPU copies through the BAR window instead, and VRAM BOs are kept inside
 * the CPU-visible part of VRAM.
 */

/* Commands per kernel job: well inside the ring. */
#define VGPU_MIGRATE_JOB_DW	(16u << 10)

struct vgpu_migrate_batch {
	struct vgpu_device *vdev;
	u32 *dw;
	u32 n;
	struct dma_fence *last;
	int error;
};

static void vgpu_migrate_flush(struct vgpu_migrate_batch *b)
{
	struct vgpu_migrate *m = &b->vdev->migrate;
	struct vgpu_queue *q = &b->vdev->queues[0];
	struct dma_fence *fence;

	if (!b->n || b->error)
		return;
	fence = vgpu_job_submit_kernel(m->vm, &m->entity, q, b->dw, b->n);
	b->n = 0;
	if (IS_ERR(fence)) {
		b->error = PTR_ERR(fence);
		return;
	}
	dma_fence_put(b->last);
	b->last = fence;
}

/*
 * Wait for a flushed batch.  Jobs on one queue complete in order, so the
 * last one's fence covers them all; a failed job turns into -EIO in
 * @b->error unless the batch already failed.
 */
static void vgpu_migrate_batch_wait(struct vgpu_migrate_batch *b)
{
	long err;

	if (!b->last)
		return;
	err = dma_fence_wait(b->last, false);
	if (!err && b->last->error)
		err = b->last->error;
	dma_fence_put(b->last);
	b->last = NULL;
	if (err && !b->error) {
		drm_err(&b->vdev->drm, "copy engine job failed: %ld\n", err);
		b->error = -EIO;
	}
}

static void vgpu_migrate_emit(struct vgpu_migrate_batch *b, u32 op, u64 a,
			      u64 bb, u64 size)
{
	u32 *p;

	if (b->n + VGPU_COPY_LEN > VGPU_MIGRATE_JOB_DW)
		vgpu_migrate_flush(b);
	p = b->dw + b->n;
	if (op == VGPU_OP_COPY) {
		p[0] = VGPU_CMD_HEADER(VGPU_OP_COPY, 0, VGPU_COPY_LEN);
		p[1] = lower_32_bits(a);
		p[2] = upper_32_bits(a);
		p[3] = lower_32_bits(bb);
		p[4] = upper_32_bits(bb);
		p[5] = lower_32_bits(size);
		p[6] = upper_32_bits(size);
		b->n += VGPU_COPY_LEN;
	} else {
		p[0] = VGPU_CMD_HEADER(VGPU_OP_FILL, 0, VGPU_FILL_LEN);
		p[1] = lower_32_bits(a);
		p[2] = upper_32_bits(a);
		p[3] = lower_32_bits(size);
		p[4] = upper_32_bits(size);
		p[5] = 0;
		b->n += VGPU_FILL_LEN;
	}
}

/* The kernel VA of a cursor's position, or 0 if outside the windows. */
static u64 vgpu_migrate_va(struct vgpu_migrate *m, struct vgpu_res_cursor *c,
			   u64 len)
{
	if (c->vram)
		return VGPU_MIGRATE_VRAM_VA + c->addr;
	if (c->addr >= m->sys_size || len > m->sys_size - c->addr)
		return 0;
	return VGPU_MIGRATE_SYS_VA + c->addr;
}

/**
 * vgpu_migrate_ready() - can the device's copy engine move BOs?
 * @vdev: vgpu device
 *
 * Return: true once vgpu_migrate_init() succeeded.
 */
bool vgpu_migrate_ready(struct vgpu_device *vdev)
{
	return READ_ONCE(vdev->migrate.ready);
}

/**
 * vgpu_migrate_move() - copy (or clear) a BO's memory with the device
 * @vdev: vgpu device
 * @tbo: buffer object, reserved and idle
 * @src: resource to copy from, or NULL to clear @dst
 * @dst: new resource (VRAM, or populated TT)
 *
 * Return: 0 once the copy is done; -EOPNOTSUPP if the engine cannot reach
 * the memory (the caller falls back to the CPU); -EIO if the job failed.
 */
int vgpu_migrate_move(struct vgpu_device *vdev, struct ttm_buffer_object *tbo,
		      struct ttm_resource *src, struct ttm_resource *dst)
{
	struct vgpu_migrate *m = &vdev->migrate;
	struct vgpu_migrate_batch b = { .vdev = vdev };
	struct vgpu_res_cursor sc, dc;
	u64 off, size = tbo->base.size;

	if (!vgpu_migrate_ready(vdev))
		return -EOPNOTSUPP;
	if (vgpu_res_cursor_init(&dc, tbo, dst, 0) ||
	    (src && vgpu_res_cursor_init(&sc, tbo, src, 0)))
		return -EOPNOTSUPP;

	mutex_lock(&m->lock);
	b.dw = m->dw;
	for (off = 0; off < size && !b.error;) {
		u64 n = min(dc.contig, size - off), dva, sva = 0;

		if (src)
			n = min(n, sc.contig);
		if (!n) {
			b.error = -EINVAL;
			break;
		}
		dva = vgpu_migrate_va(m, &dc, n);
		if (src)
			sva = vgpu_migrate_va(m, &sc, n);
		if (!dva || (src && !sva)) {
			b.error = -EOPNOTSUPP;
			break;
		}
		if (src)
			vgpu_migrate_emit(&b, VGPU_OP_COPY, sva, dva, n);
		else
			vgpu_migrate_emit(&b, VGPU_OP_FILL, dva, 0, n);
		off += n;
		vgpu_res_cursor_next(&dc, n);
		if (src)
			vgpu_res_cursor_next(&sc, n);
	}
	vgpu_migrate_flush(&b);
	mutex_unlock(&m->lock);

	vgpu_migrate_batch_wait(&b);
	if (!b.error)
		atomic64_add(size, src ? &m->bytes_copied : &m->bytes_cleared);
	return b.error;
}

/**
 * vgpu_migrate_chunk() - copy a demand-paging chunk between its two homes
 * @vdev: vgpu device
 * @tbo: the pageable BO, its system pages populated (%TTM_PL_TT)
 * @bo_offset: offset of the chunk in @tbo
 * @size: bytes
 * @vram: VRAM offset of the chunk's VRAM copy (one contiguous block)
 * @to_vram: copy system pages to VRAM (else VRAM to the system pages)
 *
 * One COPY per physically contiguous run of system pages, in one job on
 * the kernel's queue, waited for.  The caller makes sure nobody changes
 * the pages meanwhile (see "Demand paging: locking").
 *
 * Return: 0, -EOPNOTSUPP when the engine cannot reach the memory, -ENXIO
 * when the pages are not populated, -ENOMEM or -EIO.
 */
int vgpu_migrate_chunk(struct vgpu_device *vdev, struct ttm_buffer_object *tbo,
		       u64 bo_offset, u64 size, u64 vram, bool to_vram)
{
	struct vgpu_migrate *m = &vdev->migrate;
	struct vgpu_migrate_batch b = { .vdev = vdev };
	struct vgpu_res_cursor sc;
	u64 off;
	int ret;

	if (!vgpu_migrate_ready(vdev))
		return -EOPNOTSUPP;
	ret = vgpu_res_cursor_init(&sc, tbo, tbo->resource, bo_offset);
	if (ret)
		return ret;

	mutex_lock(&m->lock);
	b.dw = m->dw;
	for (off = 0; off < size && !b.error;) {
		u64 n = min(sc.contig, size - off);
		u64 sva, vva = VGPU_MIGRATE_VRAM_VA + vram + off;

		sva = n ? vgpu_migrate_va(m, &sc, n) : 0;
		if (!sva) {
			b.error = -EOPNOTSUPP;
			break;
		}
		if (to_vram)
			vgpu_migrate_emit(&b, VGPU_OP_COPY, sva, vva, n);
		else
			vgpu_migrate_emit(&b, VGPU_OP_COPY, vva, sva, n);
		off += n;
		vgpu_res_cursor_next(&sc, n);
	}
	vgpu_migrate_flush(&b);
	mutex_unlock(&m->lock);

	vgpu_migrate_batch_wait(&b);
	if (!b.error)
		atomic64_add(size, &m->bytes_copied);
	return b.error;
}

/**
 * vgpu_migrate_init() - build the kernel VM and start the copy engine
 * @vdev: vgpu device, queues and contexts set up
 *
 * Return: 0 or a negative errno.
 */
int vgpu_migrate_init(struct vgpu_device *vdev)
{
	struct vgpu_migrate *m = &vdev->migrate;
	struct drm_gpu_scheduler *sched = &vdev->queues[0].sched;
	struct vgpu_vm *vm;
	int ret;

	mutex_init(&m->lock);
	m->sys_size = ALIGN(__pa(high_memory - 1) + 1, SZ_2M);
	m->dw = kvmalloc_array(VGPU_MIGRATE_JOB_DW, sizeof(u32), GFP_KERNEL);
	if (!m->dw)
		return -ENOMEM;

	vm = vgpu_vm_create(vdev, true);
	if (IS_ERR(vm)) {
		ret = PTR_ERR(vm);
		goto err_free_dw;
	}
	m->vm = vm;

	ret = vgpu_vm_map_kernel(vm, VGPU_MIGRATE_VRAM_VA, 0, vdev->vram_size,
				 VGPU_PTE_READ | VGPU_PTE_WRITE);
	if (!ret)
		ret = vgpu_vm_map_kernel(vm, VGPU_MIGRATE_SYS_VA, 0, m->sys_size,
					 VGPU_PTE_READ | VGPU_PTE_WRITE |
					 VGPU_PTE_SYSTEM);
	if (ret)
		goto err_destroy_vm;

	ret = vgpu_ctx_bind_kernel(vm, 0);
	if (ret)
		goto err_destroy_vm;
	ret = drm_sched_entity_init(&m->entity, DRM_SCHED_PRIORITY_KERNEL,
				    &sched, 1, NULL);
	if (ret)
		goto err_destroy_vm;

	WRITE_ONCE(m->ready, true);
	drm_dbg_driver(&vdev->drm, "copy engine: %llu MiB VRAM, %llu MiB system memory mapped\n",
		       vdev->vram_size >> 20, m->sys_size >> 20);
	return 0;

err_destroy_vm:
	vgpu_vm_destroy(vm);
	m->vm = NULL;
err_free_dw:
	kvfree(m->dw);
	m->dw = NULL;
	return ret;
}

/**
 * vgpu_migrate_fini() - stop the copy engine
 * @vdev: vgpu device
 */
void vgpu_migrate_fini(struct vgpu_device *vdev)
{
	struct vgpu_migrate *m = &vdev->migrate;

	if (!m->vm)
		return;
	WRITE_ONCE(m->ready, false);
	drm_sched_entity_destroy(&m->entity);
	vgpu_vm_destroy(m->vm);
	m->vm = NULL;
	kvfree(m->dw);
	m->dw = NULL;
}
