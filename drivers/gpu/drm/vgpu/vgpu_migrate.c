// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bitfield.h>
#include <linux/dma-fence.h>
#include <linux/dma-fence-array.h>
#include <linux/dma-mapping.h>
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
#include "vgpu_stats.h"
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
 * userspace), so kernel copies never wait behind user work, and run in the
 * order they were submitted.
 *
 * Every copy goes through a *batch* (&struct vgpu_migrate_batch): its
 * commands are appended to the batch's current job (a new job every
 * %VGPU_MIGRATE_JOB_DW dwords), and nothing runs until
 * vgpu_migrate_batch_submit().  The batch's *fence*
 * (vgpu_migrate_batch_fence()) exists from the first copy queued: it
 * signals once every job submitted for it is done, with the error of the
 * first that failed (-ENODEV after unplug, a job the device stopped), or
 * at once with the error when a job could not be submitted.  Submitting
 * closes the fence; copies queued afterwards get a new one.  A copy the
 * engine cannot reach, or for which the batch cannot grow, queues nothing
 * and returns the error (a batch that cannot grow half-way through a copy
 * fails its fence instead).  Whoever waits for a fence of a batch that is
 * still open must first have its owner submit it:
 * vgpu_migrate_batch_owns() tells.
 *
 * Copies queued but not yet turned into a job can still be taken back:
 * vgpu_migrate_batch_cancel() turns their commands into NOPs.  The owner
 * learns, through &vgpu_migrate_batch.before_job, when a full batch is
 * about to cut a job, which is the last moment it can do so.  A chunk
 * batch queues the copy back of each victim at once, in front of the copy
 * into its block, and cancels it once the device's dirty bits, final only
 * after the TLB invalidation it issues for all its victims together, say
 * the victim was clean.
 *
 * - The fault thread keeps one batch per fault batch, and PREFETCH and
 *   ADVISE one per call: the chunk copies into VRAM are queued together,
 *   submitted as one or few jobs, and waited for once (see "Pageable BOs
 *   and chunk migration").
 * - TTM moves, CPU faults and evictions queue their copies in a batch of
 *   their own and wait for it at once (vgpu_migrate_batch_wait()): TTM
 *   already waited for the BO to be idle, then the copy is done, then TTM
 *   swaps the resources.
 *
 * Until the engine is up, and for DMA addresses outside the window, the
 * CPU copies through the BAR window instead, and VRAM BOs are kept inside
 * the CPU-visible part of VRAM.
 */

/* Commands per kernel job: well inside the ring. */
#define VGPU_MIGRATE_JOB_DW	(16u << 10)

/**
 * struct vgpu_migrate_fence - the fence of a batch's copies
 * @base: the fence; signals once the jobs in @src are done.
 * @lock: its lock.
 * @cb: callback on @src.
 * @src: the batch's last job, or a fence array of its jobs.
 * @copied: bytes the batch copies, counted when it is done without error.
 * @cleared: bytes it clears, likewise.
 * @error: a submission or queueing error of the batch: not everything
 *	behind the fence ran.
 * @vdev: vgpu device.
 */
struct vgpu_migrate_fence {
	struct dma_fence base;
	spinlock_t lock;	/* protects @base */
	struct dma_fence_cb cb;
	struct dma_fence *src;
	u64 copied;
	u64 cleared;
	int error;
	struct vgpu_device *vdev;
};

static const char *vgpu_migrate_fence_driver(struct dma_fence *f)
{
	return "vgpu";
}

static const char *vgpu_migrate_fence_timeline(struct dma_fence *f)
{
	return "copy-engine";
}

static void vgpu_migrate_fence_release(struct dma_fence *f)
{
	struct vgpu_migrate_fence *mf = container_of(f, typeof(*mf), base);

	dma_fence_put(mf->src);
	dma_fence_free(f);
}

static const struct dma_fence_ops vgpu_migrate_fence_ops = {
	.get_driver_name = vgpu_migrate_fence_driver,
	.get_timeline_name = vgpu_migrate_fence_timeline,
	.release = vgpu_migrate_fence_release,
};

/* The batch's jobs are done: pass their verdict on. */
static void vgpu_migrate_fence_cb(struct dma_fence *src, struct dma_fence_cb *cb)
{
	struct vgpu_migrate_fence *mf = container_of(cb, typeof(*mf), cb);

	struct vgpu_migrate *m = &mf->vdev->migrate;
	int err = src->error ?: mf->error;

	if (err) {
		dma_fence_set_error(&mf->base, err);
	} else {
		atomic64_add(mf->copied, &m->bytes_copied);
		atomic64_add(mf->cleared, &m->bytes_cleared);
	}
	dma_fence_signal(&mf->base);
	dma_fence_put(&mf->base);
}

/**
 * vgpu_migrate_batch_init() - start an empty batch of copies
 * @b: batch
 * @vdev: vgpu device
 */
void vgpu_migrate_batch_init(struct vgpu_migrate_batch *b,
			     struct vgpu_device *vdev)
{
	memset(b, 0, sizeof(*b));
	b->vdev = vdev;
}

/* Room for a job's fence and a fence to signal when the jobs are done. */
static int vgpu_migrate_batch_open(struct vgpu_migrate_batch *b)
{
	struct vgpu_migrate *m = &b->vdev->migrate;
	struct vgpu_migrate_fence *mf;

	unsigned int i;

	for (i = 0; !b->dw && i < ARRAY_SIZE(m->spare_dw); i++)
		b->dw = xchg(&m->spare_dw[i], NULL);
	if (!b->dw) {
		b->dw = kvmalloc_array(VGPU_MIGRATE_JOB_DW, sizeof(u32), GFP_KERNEL);
		if (!b->dw)
			return -ENOMEM;
	}
	if (b->nr_jobs == b->max_jobs) {
		unsigned int max = max(4u, 2 * b->max_jobs);
		struct dma_fence **jobs;

		jobs = krealloc_array(b->jobs, max, sizeof(*jobs), GFP_KERNEL);
		if (!jobs)
			return -ENOMEM;
		b->jobs = jobs;
		b->max_jobs = max;
	}
	if (b->done)
		return 0;
	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return -ENOMEM;
	spin_lock_init(&mf->lock);
	mf->vdev = b->vdev;
	dma_fence_init(&mf->base, &vgpu_migrate_fence_ops, &mf->lock,
		       m->fence_context, atomic_inc_return(&m->fence_seqno));
	b->done = mf;
	return 0;
}

/* Turns the queued commands into a job on the kernel queue. */
static void vgpu_migrate_flush(struct vgpu_migrate_batch *b)
{
	struct vgpu_migrate *m = &b->vdev->migrate;
	struct vgpu_queue *q = &b->vdev->queues[0];
	struct dma_fence *fence;

	if (!b->n)
		return;
	if (!b->error) {
		/* vgpu_migrate_batch_open() made room in @jobs. */
		mutex_lock(&m->lock);
		fence = vgpu_job_submit_kernel(m->vm, &m->entity, q, b->dw, b->n);
		mutex_unlock(&m->lock);
		if (IS_ERR(fence)) {
			b->error = PTR_ERR(fence);
		} else {
			b->jobs[b->nr_jobs++] = fence;
			vgpu_stats_add(b->vdev, NULL, VGPU_STAT_COPY_JOBS, 1);
		}
	}
	b->n = 0;
}

static int vgpu_migrate_emit(struct vgpu_migrate_batch *b, u32 op, u64 a,
			     u64 bb, u64 size)
{
	u32 *p;
	int ret;

	if (b->n + VGPU_COPY_LEN > VGPU_MIGRATE_JOB_DW) {
		if (b->before_job)
			b->before_job(b);
		vgpu_migrate_flush(b);
		ret = vgpu_migrate_batch_open(b);
		if (ret)
			return ret;
	}
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
	return 0;
}

/**
 * vgpu_migrate_batch_pos() - where the next command of a batch goes
 * @b: batch
 *
 * Return: the dword of the current job the next command is written to;
 * with a later position, the range vgpu_migrate_batch_cancel() takes.
 */
u32 vgpu_migrate_batch_pos(const struct vgpu_migrate_batch *b)
{
	return b->n;
}

/**
 * vgpu_migrate_batch_cancel() - take back copies queued in the current job
 * @b: batch
 * @start: vgpu_migrate_batch_pos() before they were queued
 * @end: vgpu_migrate_batch_pos() after
 * @bytes: the bytes they copy
 *
 * Their commands become NOPs of the same length; the job is cut only at
 * the next submission, or when the batch fills (after
 * &vgpu_migrate_batch.before_job), so the range is still in it.
 */
void vgpu_migrate_batch_cancel(struct vgpu_migrate_batch *b, u32 start,
			       u32 end, u64 bytes)
{
	u32 i, len;

	if (WARN_ON_ONCE(start > end || end > b->n || !b->done))
		return;
	for (i = start; i < end; i += len) {
		len = FIELD_GET(VGPU_CMD_LEN_MASK, b->dw[i]);
		if (WARN_ON_ONCE(!len))
			return;
		b->dw[i] = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, len);
	}
	b->done->copied -= bytes;
}

/**
 * vgpu_migrate_batch_submit() - start what a batch has queued
 * @b: batch
 *
 * Submits the commands not yet submitted and closes the batch's fence:
 * it signals once they are done.  Copies queued afterwards get a new
 * fence.  Does not wait.
 */
void vgpu_migrate_batch_submit(struct vgpu_migrate_batch *b)
{
	struct vgpu_migrate_fence *mf = b->done;
	struct dma_fence_array *array;
	struct dma_fence *src = NULL;

	if (!mf)
		return;
	vgpu_migrate_flush(b);
	b->done = NULL;
	if (b->nr_jobs == 1) {
		src = b->jobs[0];
	} else if (b->nr_jobs > 1) {
		/* The array takes the fences and the table. */
		array = dma_fence_array_create(b->nr_jobs, b->jobs,
					       b->vdev->migrate.fence_context + 1,
					       atomic_inc_return(&b->vdev->migrate.fence_seqno),
					       false);
		if (array) {
			src = &array->base;
			b->jobs = NULL;
			b->max_jobs = 0;
		} else {
			/* Rare: wait here instead. */
			while (b->nr_jobs) {
				struct dma_fence *f = b->jobs[--b->nr_jobs];

				dma_fence_wait(f, false);
				if (f->error && !b->error)
					b->error = f->error;
				dma_fence_put(f);
			}
		}
	}
	b->nr_jobs = 0;
	mf->error = b->error;
	b->error = 0;
	if (!src) {
		/* Nothing runs: the fence signals now, with the error if any. */
		if (mf->error)
			dma_fence_set_error(&mf->base, mf->error);
		dma_fence_signal(&mf->base);
		dma_fence_put(&mf->base);
		return;
	}
	mf->src = src;
	/* The batch's reference goes to the callback. */
	if (dma_fence_add_callback(src, &mf->cb, vgpu_migrate_fence_cb))
		vgpu_migrate_fence_cb(src, &mf->cb);
}

/**
 * vgpu_migrate_batch_fence() - the fence of the copies queued last
 * @b: batch, a copy queued since it was last submitted
 *
 * Return: a reference to the fence that signals when the copies queued
 * since the batch was last submitted are done.
 */
struct dma_fence *vgpu_migrate_batch_fence(struct vgpu_migrate_batch *b)
{
	return dma_fence_get(&b->done->base);
}

/**
 * vgpu_migrate_batch_owns() - is @fence the open fence of @b?
 * @b: batch
 * @fence: a copy fence
 *
 * Return: true if @fence signals only after @b is submitted: its owner
 * must submit before waiting for it.
 */
bool vgpu_migrate_batch_owns(struct vgpu_migrate_batch *b,
			     struct dma_fence *fence)
{
	return b->done && fence == &b->done->base;
}

/**
 * vgpu_migrate_batch_wait() - submit a batch and wait for its copies
 * @b: batch
 *
 * Return: 0 once every copy queued since the last submission is done;
 * -ENODEV or -ENOMEM if a job could not be submitted, -EIO if one failed.
 */
int vgpu_migrate_batch_wait(struct vgpu_migrate_batch *b)
{
	struct dma_fence *f;
	int err;

	if (!b->done)
		return 0;
	f = vgpu_migrate_batch_fence(b);
	vgpu_migrate_batch_submit(b);
	dma_fence_wait(f, false);
	err = f->error;
	dma_fence_put(f);
	if (!err)
		return 0;
	drm_err(&b->vdev->drm, "copy engine job failed: %d\n", err);
	return err == -ENODEV || err == -ENOMEM ? err : -EIO;
}

/**
 * vgpu_migrate_batch_fini() - free a batch's buffers
 * @b: batch, submitted (what it queued keeps running)
 */
void vgpu_migrate_batch_fini(struct vgpu_migrate_batch *b)
{
	struct vgpu_migrate *m = &b->vdev->migrate;
	unsigned int i;

	vgpu_migrate_batch_submit(b);
	kfree(b->jobs);
	/* Kept for the next batch: no allocation per fault batch. */
	for (i = 0; b->dw && i < ARRAY_SIZE(m->spare_dw); i++)
		if (!cmpxchg(&m->spare_dw[i], NULL, b->dw))
			b->dw = NULL;
	kvfree(b->dw);
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

/*
 * Queues the copy (or, without @src, the clear) of @size bytes from
 * cursor @src to cursor @dst.  With @check, only checks that the engine
 * reaches every byte.  The cursors are not moved.
 */
static int vgpu_migrate_queue(struct vgpu_migrate_batch *b,
			      const struct vgpu_res_cursor *src,
			      const struct vgpu_res_cursor *dst, u64 size,
			      bool check)
{
	struct vgpu_migrate *m = &b->vdev->migrate;
	struct vgpu_res_cursor sc, dc = *dst;
	u64 off;
	int ret;

	if (src)
		sc = *src;
	for (off = 0; off < size;) {
		u64 n = min(dc.contig, size - off), dva, sva = 0;

		if (src)
			n = min(n, sc.contig);
		if (!n)
			return -EINVAL;
		dva = vgpu_migrate_va(m, &dc, n);
		if (src)
			sva = vgpu_migrate_va(m, &sc, n);
		if (!dva || (src && !sva))
			return -EOPNOTSUPP;
		if (check)
			ret = 0;
		else if (src)
			ret = vgpu_migrate_emit(b, VGPU_OP_COPY, sva, dva, n);
		else
			ret = vgpu_migrate_emit(b, VGPU_OP_FILL, dva, 0, n);
		if (ret)
			return ret;
		off += n;
		vgpu_res_cursor_next(&dc, n);
		if (src)
			vgpu_res_cursor_next(&sc, n);
	}
	return 0;
}

/*
 * Queues a copy checked first, so that what is queued is all or nothing
 * (a failure to grow the batch then stops the batch as a whole).
 */
static int vgpu_migrate_queue_checked(struct vgpu_migrate_batch *b,
				      const struct vgpu_res_cursor *src,
				      const struct vgpu_res_cursor *dst,
				      u64 size)
{
	int ret;

	if (!vgpu_migrate_ready(b->vdev))
		return -EOPNOTSUPP;
	ret = vgpu_migrate_queue(b, src, dst, size, true);
	if (!ret)
		ret = vgpu_migrate_batch_open(b);
	if (ret)
		return ret;
	ret = vgpu_migrate_queue(b, src, dst, size, false);
	if (ret) {
		/* Part of it may be queued: nothing behind @done is sure. */
		b->error = ret;
		return ret;
	}
	if (src)
		b->done->copied += size;
	else
		b->done->cleared += size;
	return 0;
}

/**
 * vgpu_migrate_move() - copy (or clear) a BO's memory with the device
 * @vdev: vgpu device
 * @tbo: buffer object, reserved and idle
 * @src: resource to copy from, or NULL to clear @dst
 * @dst: new resource (VRAM, or populated TT)
 *
 * A batch of its own, waited for.
 *
 * Return: 0 once the copy is done; -EOPNOTSUPP if the engine cannot reach
 * the memory (the caller falls back to the CPU); -ENOMEM; -EIO if the job
 * failed.
 */
int vgpu_migrate_move(struct vgpu_device *vdev, struct ttm_buffer_object *tbo,
		      struct ttm_resource *src, struct ttm_resource *dst)
{
	struct vgpu_migrate_batch b;
	struct vgpu_res_cursor sc, dc;
	u64 size = tbo->base.size;
	int ret;

	if (vgpu_res_cursor_init(&dc, tbo, dst, 0) ||
	    (src && vgpu_res_cursor_init(&sc, tbo, src, 0)))
		return -EOPNOTSUPP;
	vgpu_migrate_batch_init(&b, vdev);
	ret = vgpu_migrate_queue_checked(&b, src ? &sc : NULL, &dc, size);
	if (!ret)
		ret = vgpu_migrate_batch_wait(&b);
	else
		vgpu_migrate_batch_wait(&b);
	vgpu_migrate_batch_fini(&b);
	return ret;
}

/**
 * vgpu_migrate_batch_add_chunk() - queue the copy of a demand-paging chunk
 * @b: batch
 * @tbo: the pageable BO, its system pages populated (%TTM_PL_TT)
 * @bo_offset: offset of the chunk in @tbo
 * @size: bytes
 * @vram: VRAM offset of the chunk's VRAM copy (one contiguous block)
 * @to_vram: copy system pages to VRAM (else VRAM to the system pages)
 *
 * One COPY per physically contiguous run of system pages, appended to the
 * batch's current job; nothing runs before vgpu_migrate_batch_submit().
 * The caller makes sure nobody changes the pages until the batch's fence
 * (vgpu_migrate_batch_fence()) signals (see "Demand paging: locking").
 *
 * Return: 0 (queued), or nothing queued and -EOPNOTSUPP when the engine
 * cannot reach the memory, -ENXIO when the pages are not populated,
 * -ENOMEM.
 */
int vgpu_migrate_batch_add_chunk(struct vgpu_migrate_batch *b,
				 struct ttm_buffer_object *tbo, u64 bo_offset,
				 u64 size, u64 vram, bool to_vram)
{
	struct vgpu_res_cursor sys, vc;
	int ret;

	ret = vgpu_res_cursor_init(&sys, tbo, tbo->resource, bo_offset);
	if (ret)
		return ret;
	vgpu_res_cursor_init_linear(&vc, vram, size, true);
	if (to_vram)
		ret = vgpu_migrate_queue_checked(b, &sys, &vc, size);
	else
		ret = vgpu_migrate_queue_checked(b, &vc, &sys, size);
	/* Fault injection: the batch's fence ends with -EIO. */
	if (!ret && atomic_add_unless(&b->vdev->migrate.fail_chunk_copies, -1, 0))
		b->error = -EIO;
	return ret;
}

/**
 * vgpu_migrate_batch_add_page() - queue the copy of one page of process memory
 * @b: batch
 * @dma: DMA address of the system page, or %DMA_MAPPING_ERROR with
 *	@to_vram to clear the VRAM page instead (a page the process never
 *	touched)
 * @vram: VRAM offset of the page
 * @to_vram: copy the system page to VRAM (else VRAM to the system page)
 *
 * For SVM memory migrating to and from device-private pages
 * (vgpu_svm_dmem.c); the caller keeps both pages in place until the
 * batch's fence signals.
 *
 * Return: 0 (queued), or nothing queued and -EOPNOTSUPP when the engine
 * cannot reach the page, -EINVAL, -ENOMEM.
 */
int vgpu_migrate_batch_add_page(struct vgpu_migrate_batch *b, dma_addr_t dma,
				u64 vram, bool to_vram)
{
	struct vgpu_res_cursor sys, vc;

	vgpu_res_cursor_init_linear(&vc, vram, PAGE_SIZE, true);
	if (dma == DMA_MAPPING_ERROR)
		return to_vram ? vgpu_migrate_queue_checked(b, NULL, &vc,
							    PAGE_SIZE) : -EINVAL;
	vgpu_res_cursor_init_linear(&sys, dma, PAGE_SIZE, false);
	if (to_vram)
		return vgpu_migrate_queue_checked(b, &sys, &vc, PAGE_SIZE);
	return vgpu_migrate_queue_checked(b, &vc, &sys, PAGE_SIZE);
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
	/* One for the batches' fences, one for their fence arrays. */
	m->fence_context = dma_fence_context_alloc(2);

	vm = vgpu_vm_create(vdev, true);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
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
	return ret;
}

/**
 * vgpu_migrate_fini() - stop the copy engine
 * @vdev: vgpu device
 */
void vgpu_migrate_fini(struct vgpu_device *vdev)
{
	struct vgpu_migrate *m = &vdev->migrate;
	unsigned int i;

	if (!m->vm)
		return;
	WRITE_ONCE(m->ready, false);
	drm_sched_entity_destroy(&m->entity);
	vgpu_vm_destroy(m->vm);
	m->vm = NULL;
	for (i = 0; i < ARRAY_SIZE(m->spare_dw); i++)
		kvfree(xchg(&m->spare_dw[i], NULL));
}
