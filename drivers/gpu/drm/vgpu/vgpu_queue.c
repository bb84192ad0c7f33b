// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_job.h"
#include "vgpu_fdinfo.h"
#include "vgpu_queue.h"
#include "vgpu_stats.h"
#include "vgpu_vm.h"

/**
 * DOC: hardware queues and job submission
 *
 * Queue 0 is the kernel's; queues 1 to N-1 are the exec queues of the
 * uapi (exec queue i is hardware queue i + 1).  Each has a ring of
 * %VGPU_RING_BYTES in coherent system memory and a &drm_gpu_scheduler.
 * A job's commands in the ring are one CALL to its stream, in a BO or in
 * the VM's stream buffer (vgpu_job.c, vgpu_stream.c): the ring holds only
 * what the kernel wrote, and is the device's only privileged stream.
 * Every file gets one scheduler entity per exec queue it uses, so jobs of
 * different VMs interleave on a ring in scheduler order.
 *
 * Ring space is the scheduler's credit: a job costs one credit per
 * %VGPU_RING_CREDIT bytes of commands (its own plus the kernel's FENCE),
 * and the credit limit is the ring size, so run_job always finds room.
 *
 * Before a job runs (prepare_job), its VM must own a hardware context
 * (vgpu_ctx_get(), which may take over an idle one) and, if the queue is
 * programmed with another context, the queue must be idle: the job waits
 * for the last fence emitted on the queue, without pinning the context
 * meanwhile (it takes one again when it is woken).  run_job then reprograms
 * QUEUE_CONTEXT if needed, writes the CALL into the ring, appends
 * ``FENCE(seqno, IRQ | CLOCK)`` (``IRQ | NOWRITE`` on a device without
 * ``CAPS_FENCE_CLOCK``) and rings the doorbell.  The job's fence signals
 * from the FENCE interrupt (vgpu_queue_complete()), which reads
 * QUEUE_FENCE; only the ring's FENCE moves it.  CLOCK has the FENCE write
 * the queue's modeled clock into the job's slot of &vgpu_queue.clocks
 * (by seqno: a full ring holds at most %VGPU_QUEUE_CLOCK_SLOTS jobs), and
 * the job's VM is charged its advance since the job before it
 * (vgpu_fdinfo_modeled_charge()).
 *
 * Recovery.  A queue stops for three reasons: a job runs past the job
 * timeout, a command is bad (ERROR), or a GPU fault was answered with
 * CANCEL (ERROR with cause CANCELLED).  The last two kick the scheduler's
 * timeout handler at once (drm_sched_fault()), so that one path does all
 * recovery: stop the scheduler, reset the queue (its ring empties), signal
 * the guilty job's fence (the job the ring stopped in: the oldest whose
 * hardware fence has not signalled, which drm_sched's oldest job need not
 * be) with -ETIMEDOUT, -EFAULT, -EPERM (a privileged
 * command in its stream: cause PRIVILEGE) or -EIO (any other bad
 * command), fail the jobs
 * of banned VMs with -ECANCELED, re-emit every other pending job into the
 * ring in order, and restart.  Other queues never stop.
 */

/**
 * DOC: job timeout and progress
 *
 * A job stalled on GPU faults of pageable memory runs only as fast as the
 * fault thread migrates its chunks: under heavy oversubscription a job
 * that is doing fine can spend far longer than the job timeout
 * (``job_timeout_ms``) in faults.  So when the timeout fires, the handler
 * first asks whether the job at the head of the queue moved since the last
 * check:
 *
 * - the fault thread answered the queue with REPLAY, or handled one of
 *   its faulting pages (migrated or mapped it, or queued its copy), at
 *   least once (vgpu_queue_replay() and vgpu_queue_progress() count them
 *   in &vgpu_queue.progress): one batch of faults can take longer than
 *   the timeout when each of its pages has a chunk to evict and one to
 *   bring in, or
 * - the command being run changed (``QUEUE_CMD_OFFSET``, and
 *   ``QUEUE_CALL_OFFSET`` inside a CALL).  The first check of a job has no
 *   earlier position to compare with, and only the fault thread's work
 *   counts.
 *
 * A job that moved is alive: its timeout is extended by another
 * ``job_timeout_ms``.  drm_sched of Linux 6.12 has no "no hang" status,
 * and takes the job off its pending list before calling the handler, so
 * the handler puts it back with drm_sched_stop(), gives the jobs their
 * hardware fences back and drm_sched_start() re-arms the timer; the queue
 * itself is not touched (a job that finished meanwhile is freed by
 * drm_sched_stop()).  A job that did not move — a WAIT never satisfied,
 * or a fault whose resolution is itself stuck — is recovered as above
 * with -ETIMEDOUT, as is a job that already ran for ``job_timeout_max_ms``
 * (0: no limit), which bounds a job that faults forever.  A stopped queue
 * (ERROR, CANCEL) is never extended, nor is a job of a banned VM (its
 * file closed, vgpu_vm_close(), or it faulted).
 *
 * So a hang is still detected one timeout after the job's last progress,
 * or two after its start at worst (REPLAYs for the jobs before it count
 * at its first check).
 */

static unsigned int vgpu_job_timeout_ms = 5000;
module_param_named(job_timeout_ms, vgpu_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms, "GPU job timeout in milliseconds (default 5000)");

static unsigned int vgpu_job_timeout_max_ms = 600000;
module_param_named(job_timeout_max_ms, vgpu_job_timeout_max_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_max_ms,
		 "Longest a job making progress through GPU faults may run, in milliseconds (default 600000, 0: no limit)");

static const char *vgpu_fence_driver_name(struct dma_fence *f)
{
	return DRIVER_NAME;
}

static const char *vgpu_fence_timeline_name(struct dma_fence *f)
{
	struct vgpu_hw_fence *hf = container_of(f, struct vgpu_hw_fence, base);

	return hf->job ? hf->job->q->name : "vgpu-queue";
}

static const struct dma_fence_ops vgpu_hw_fence_ops = {
	.get_driver_name = vgpu_fence_driver_name,
	.get_timeline_name = vgpu_fence_timeline_name,
};

/**
 * vgpu_exec_queues() - number of exec queues offered to userspace
 * @vdev: vgpu device
 *
 * Return: hardware queues minus the kernel's.
 */
u32 vgpu_exec_queues(struct vgpu_device *vdev)
{
	return vdev->nr_queues > VGPU_KERNEL_QUEUES ?
	       vdev->nr_queues - VGPU_KERNEL_QUEUES : 0;
}

/**
 * vgpu_exec_queue() - the hardware queue behind an exec queue
 * @vdev: vgpu device
 * @idx: exec queue, below vgpu_exec_queues()
 *
 * Return: the queue.
 */
struct vgpu_queue *vgpu_exec_queue(struct vgpu_device *vdev, u32 idx)
{
	return &vdev->queues[idx + VGPU_KERNEL_QUEUES];
}

/* ------------------------------------------------------------- ring --- */

static void vgpu_ring_write(struct vgpu_queue *q, const u32 *dw, u32 n)
{
	u32 *ring = q->ring;
	u32 mask = VGPU_RING_BYTES / 4 - 1;
	u32 pos = q->tail / 4;

	while (n--) {
		ring[pos] = *dw++;
		pos = (pos + 1) & mask;
	}
	q->tail = pos * 4;
}

/* Where the ring's FENCE of the job with @seqno writes the modeled clock. */
static u32 vgpu_queue_clock_slot(u64 seqno)
{
	return seqno % VGPU_QUEUE_CLOCK_SLOTS;
}

static void vgpu_ring_emit_job(struct vgpu_queue *q, struct vgpu_job *job)
{
	u64 seqno = job->hw_fence->base.seqno;
	/*
	 * Privileged, in the ring: QUEUE_FENCE and the interrupt, and the
	 * queue's modeled clock into the job's slot, nothing in the VM.
	 */
	u32 flags = VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_NOWRITE;
	dma_addr_t slot = 0;
	u32 fence[VGPU_FENCE_LEN];

	if (q->clocks) {
		flags = VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_CLOCK;
		slot = q->clocks_dma +
		       vgpu_queue_clock_slot(seqno) * sizeof(*q->clocks);
	}
	fence[0] = VGPU_CMD_HEADER(VGPU_OP_FENCE, flags, VGPU_FENCE_LEN);
	fence[1] = lower_32_bits(slot);
	fence[2] = upper_32_bits(slot);
	fence[3] = lower_32_bits(seqno);
	fence[4] = upper_32_bits(seqno);

	vgpu_ring_write(q, job->cmds, job->ndw);
	vgpu_ring_write(q, fence, ARRAY_SIZE(fence));
}

static void vgpu_ring_kick(struct vgpu_queue *q)
{
	struct vgpu_device *vdev = q->vdev;

	wmb();	/* ring contents before the tail */
	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_TAIL), q->tail);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_DOORBELL), 1);
}

/*
 * The ring stopped (a recovery or a device reset): its modeled clock is
 * read again from the device, and the time since the last job charged, if
 * @stuck, is that of @stuck, the job the ring stopped in.
 */
static void vgpu_queue_clock_restart(struct vgpu_queue *q,
				     struct vgpu_hw_fence *stuck)
{
	unsigned long flags;
	u64 clock;

	if (!q->clocks)
		return;
	clock = vgpu_rd64(q->vdev, VGPU_QTIME_REG(q->id, VGPU_QTIME_CLOCK_LO));
	spin_lock_irqsave(&q->fence_lock, flags);
	if (stuck)
		vgpu_fdinfo_modeled_charge(q, stuck->vm, clock);
	q->clock_until = clock;
	spin_unlock_irqrestore(&q->fence_lock, flags);
}

/* Program the ring and enable the queue (after probe or reset). */
static void vgpu_queue_hw_init(struct vgpu_queue *q)
{
	struct vgpu_device *vdev = q->vdev;
	u32 id = q->id;

	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_DISABLE);
	vgpu_wr64(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_RING_LO),
		  (q->ring_dma & VGPU_PTE_ADDR_MASK) | VGPU_PTE_VALID |
		  VGPU_PTE_SYSTEM);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_RING_SIZE), VGPU_RING_BYTES);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_CONTEXT), 0);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_RESET);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_TAIL), 0);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_ENABLE);
	q->tail = 0;
	q->hw_ctx = -1;
	vgpu_queue_clock_restart(q, NULL);
}

/* Switch an idle queue to another context. */
static void vgpu_queue_set_context(struct vgpu_queue *q, int ctx)
{
	struct vgpu_device *vdev = q->vdev;

	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_DISABLE);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CONTEXT), ctx);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_ENABLE);
	q->hw_ctx = ctx;
}

/* ------------------------------------------------------------ fences --- */

static void vgpu_hw_fence_signal_locked(struct vgpu_queue *q,
					struct vgpu_hw_fence *f, int error)
{
	lockdep_assert_held(&q->fence_lock);
	if (f->ctx_held) {
		vgpu_ctx_put(f->vm);
		f->ctx_held = false;
	}
	/* Count before signalling: a waiter may read the counters at once. */
	vgpu_fdinfo_engine_charge(q, f->vm, f->emitted_ns, ktime_get_ns());
	if (error) {
		dma_fence_set_error(&f->base, error);
		vgpu_stats_vm_add(f->vm, VGPU_STAT_JOBS_FAILED, 1);
	} else {
		vgpu_stats_vm_add(f->vm, VGPU_STAT_JOBS_COMPLETED, 1);
	}
	f->job = NULL;
	dma_fence_signal_locked(&f->base);
}

/**
 * vgpu_queue_complete() - signal the fences the device has passed
 * @q: queue
 *
 * Context: process (the interrupt thread).
 */
void vgpu_queue_complete(struct vgpu_queue *q)
{
	struct vgpu_hw_fence *f, *tmp;
	unsigned long flags;
	u64 done;

	done = vgpu_rd64(q->vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_FENCE_LO));
	spin_lock_irqsave(&q->fence_lock, flags);
	list_for_each_entry_safe(f, tmp, &q->pending, link) {
		if (f->base.seqno > done)
			break;
		list_del(&f->link);
		if (q->clocks) {
			u32 slot = vgpu_queue_clock_slot(f->base.seqno);

			vgpu_fdinfo_modeled_charge(q, f->vm,
						   le64_to_cpu(READ_ONCE(q->clocks[slot])));
		}
		vgpu_hw_fence_signal_locked(q, f, 0);
		dma_fence_put(&f->base);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
}

/**
 * vgpu_queue_error() - the device stopped a queue: recover from the TDR
 * @q: queue in the ERROR state
 *
 * Context: process (the interrupt thread).
 */
void vgpu_queue_error(struct vgpu_queue *q)
{
	u32 status = vgpu_rd32(q->vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_STATUS));

	WRITE_ONCE(q->error, FIELD_GET(VGPU_QUEUE_STATUS_ERROR_MASK, status));
	drm_sched_fault(&q->sched);
}

/**
 * vgpu_queue_replay() - let a queue stalled on resolved faults retry
 * @vdev: vgpu device
 * @id: hardware queue
 *
 * Writes REPLAY and counts it in &vgpu_queue.progress: the queue's job
 * made progress (see "job timeout and progress").
 *
 * Context: the fault interrupt thread.
 */
void vgpu_queue_replay(struct vgpu_device *vdev, u32 id)
{
	vgpu_queue_progress(vdev, BIT(id));
	vgpu_wr32(vdev, VGPU_QUEUE_REG(id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_REPLAY);
}

/**
 * vgpu_queue_progress() - the fault thread worked for stalled queues
 * @vdev: vgpu device
 * @queues: mask of hardware queues
 *
 * Counts in &vgpu_queue.progress of each queue of @queues that the fault
 * thread handled one of its faulting pages or answered it: its job is not
 * hung (see "job timeout and progress").
 *
 * Context: the fault interrupt thread.
 */
void vgpu_queue_progress(struct vgpu_device *vdev, unsigned long queues)
{
	u32 id;

	for_each_set_bit(id, &queues, vdev->nr_queues)
		atomic_inc(&vdev->queues[id].progress);
}

/**
 * vgpu_queues_vm_fence() - a job of a VM still on a ring
 * @vdev: vgpu device
 * @vm: VM
 *
 * A VM is idle when none of its hardware fences is pending on any queue.
 * The last fence an entity scheduled does not tell: a job that run_job
 * fails at once (its VM banned meanwhile) signals ahead of the jobs
 * emitted before it, which still run.
 *
 * Return: a reference to the last pending fence of @vm on the first
 * queue that has one, or NULL when the VM is idle.
 */
struct dma_fence *vgpu_queues_vm_fence(struct vgpu_device *vdev,
				       struct vgpu_vm *vm)
{
	struct dma_fence *fence = NULL;
	u32 i;

	for (i = 0; i < vdev->nr_queues && !fence; i++) {
		struct vgpu_queue *q = &vdev->queues[i];
		struct vgpu_hw_fence *f;
		unsigned long flags;

		spin_lock_irqsave(&q->fence_lock, flags);
		list_for_each_entry(f, &q->pending, link)
			if (f->vm == vm)
				fence = &f->base;
		if (fence)
			dma_fence_get(fence);
		spin_unlock_irqrestore(&q->fence_lock, flags);
	}
	return fence;
}

/* --------------------------------------------------- scheduler backend --- */

static struct dma_fence *vgpu_prepare_job(struct drm_sched_job *sched_job,
					  struct drm_sched_entity *entity)
{
	struct vgpu_job *job = to_vgpu_job(sched_job);
	struct vgpu_hw_fence *hf = job->hw_fence;
	struct vgpu_queue *q = job->q;
	struct vgpu_vm *vm = job->vm;
	int ret;

	if (vgpu_vm_banned(vm) || sched_job->s_fence->finished.error)
		return NULL;

	if (!hf->ctx_held) {
		ret = vgpu_ctx_get(vm);
		if (ret == -EBUSY) {
			struct dma_fence *wait = vgpu_ctx_wait_fence(q->vdev);

			/* A context freed before the fence existed counts. */
			ret = vgpu_ctx_get(vm);
			if (ret == -EBUSY && wait)
				return wait;
			dma_fence_put(wait);
		}
		if (ret) {
			hf->ctx_error = ret == -EBUSY ? -ENOMEM : ret;
			return NULL;	/* run_job fails the job */
		}
		hf->ctx_held = true;
	}
	/*
	 * QUEUE_CONTEXT may change only while the queue is idle.  Do not
	 * wait with the context pinned: a job still waiting when its file's
	 * entity is killed is freed without run_job.
	 */
	if (q->hw_ctx != vm->hw_ctx && q->last && !dma_fence_is_signaled(q->last)) {
		vgpu_ctx_put(vm);
		hf->ctx_held = false;
		return dma_fence_get(q->last);
	}
	return NULL;
}

static struct dma_fence *vgpu_run_job(struct drm_sched_job *sched_job)
{
	struct vgpu_job *job = to_vgpu_job(sched_job);
	struct vgpu_hw_fence *hf = job->hw_fence;
	struct vgpu_queue *q = job->q;
	struct vgpu_vm *vm = job->vm;
	unsigned long flags;
	int error = 0, idx;

	spin_lock_irqsave(&q->fence_lock, flags);
	dma_fence_init(&hf->base, &vgpu_hw_fence_ops, &q->fence_lock,
		       q->fence_context, ++q->seqno);
	hf->inited = true;
	hf->job = job;
	hf->vm = vm;
	hf->emitted_ns = ktime_get_ns();
	hf->tdr_progress = atomic_read(&q->progress);
	hf->tdr_pos = VGPU_QUEUE_POS_NONE;
	hf->tdr_extended_ms = 0;
	spin_unlock_irqrestore(&q->fence_lock, flags);

	if (sched_job->s_fence->finished.error)
		error = sched_job->s_fence->finished.error;
	else if (vgpu_vm_banned(vm))
		error = -ECANCELED;
	else if (!hf->ctx_held)
		error = hf->ctx_error ?: -ENODEV;

	if (error || !drm_dev_enter(&q->vdev->drm, &idx)) {
		spin_lock_irqsave(&q->fence_lock, flags);
		vgpu_hw_fence_signal_locked(q, hf, error ?: -ENODEV);
		spin_unlock_irqrestore(&q->fence_lock, flags);
		return dma_fence_get(&hf->base);
	}

	if (q->hw_ctx != vm->hw_ctx)
		vgpu_queue_set_context(q, vm->hw_ctx);
	vgpu_ring_emit_job(q, job);

	spin_lock_irqsave(&q->fence_lock, flags);
	list_add_tail(&hf->link, &q->pending);
	dma_fence_get(&hf->base);
	spin_unlock_irqrestore(&q->fence_lock, flags);

	dma_fence_put(q->last);
	q->last = dma_fence_get(&hf->base);
	vgpu_ring_kick(q);
	drm_dev_exit(idx);
	return dma_fence_get(&hf->base);
}

/* Where the queue is: current command, and offset in a CALL's stream. */
static u64 vgpu_queue_pos(struct vgpu_queue *q)
{
	struct vgpu_device *vdev = q->vdev;
	u32 status = vgpu_rd32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_STATUS));
	u64 pos = vgpu_rd32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CMD_OFFSET));

	/* A ring offset is below VGPU_RING_BYTES: bit 31 is free. */
	if (status & VGPU_QUEUE_STATUS_IN_CALL)
		pos |= BIT_ULL(31) |
		       (u64)vgpu_rd32(vdev, VGPU_QUEUE_REG(q->id,
							   VGPU_QUEUE_CALL_OFFSET)) << 32;
	return pos;
}

/* Give every pending job its hardware fence back, after drm_sched_stop(). */
static void vgpu_queue_reattach(struct vgpu_queue *q)
{
	struct drm_sched_job *s_job;

	/* drm_sched_start() waits on it, or fails the job if it has none. */
	list_for_each_entry(s_job, &q->sched.pending_list, list) {
		struct vgpu_hw_fence *hf = to_vgpu_job(s_job)->hw_fence;

		if (!s_job->s_fence->parent && hf->inited)
			s_job->s_fence->parent = dma_fence_get(&hf->base);
	}
}

/*
 * Fill @q's emptied ring again with its pending jobs, in order: @bad (the
 * job the ring stopped in, if any) fails with @error, jobs of banned VMs
 * with -ECANCELED, every other one runs again from its start.  Then the scheduler, stopped with
 * drm_sched_stop(), gets its fences back and restarts.
 */
static void vgpu_queue_resubmit(struct vgpu_queue *q,
				struct vgpu_hw_fence *bad, int error)
{
	struct vgpu_hw_fence *f, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	list_for_each_entry_safe(f, tmp, &q->pending, link) {
		struct vgpu_job *job = f->job;
		int err = 0;

		if (f == bad)
			err = error;
		else if (vgpu_vm_banned(job->vm))
			err = -ECANCELED;
		if (err) {
			list_del(&f->link);
			vgpu_hw_fence_signal_locked(q, f, err);
			dma_fence_put(&f->base);
			continue;
		}
		vgpu_ring_emit_job(q, job);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);

	vgpu_queue_reattach(q);
	vgpu_ring_kick(q);
	drm_sched_start(&q->sched);
}

/*
 * The job @hf the ring is stuck in timed out: extend its timeout if it
 * moved since the last check (see "job timeout and progress").  Called
 * with the scheduler stopped.
 *
 * Return: true if extended.
 */
static bool vgpu_job_extend(struct vgpu_queue *q, struct vgpu_hw_fence *hf)
{
	u32 max_ms = READ_ONCE(vgpu_job_timeout_max_ms);
	u32 progress;
	bool moved;
	u64 pos;

	/* A banned VM's job (its file closed, or it faulted) gets no more. */
	if (READ_ONCE(q->error) != VGPU_QUEUE_ERROR_NONE ||
	    vgpu_vm_banned(hf->vm))
		return false;

	progress = atomic_read(&q->progress);
	pos = vgpu_queue_pos(q);
	moved = progress != hf->tdr_progress ||
		(hf->tdr_pos != VGPU_QUEUE_POS_NONE && pos != hf->tdr_pos);
	hf->tdr_progress = progress;
	hf->tdr_pos = pos;
	if (!moved)
		return false;
	if (max_ms && hf->tdr_extended_ms + vgpu_job_timeout_ms >= max_ms) {
		drm_warn(&q->vdev->drm, "queue %u: job %llu still running after %u ms (job_timeout_max_ms)\n",
			 q->id, hf->base.seqno,
			 hf->tdr_extended_ms + vgpu_job_timeout_ms);
		return false;
	}
	hf->tdr_extended_ms += vgpu_job_timeout_ms;
	drm_dbg_driver(&q->vdev->drm, "queue %u: job %llu progressing, timeout extended (%u ms)\n",
		       q->id, hf->base.seqno, hf->tdr_extended_ms);
	return true;
}

/*
 * The job the ring stopped in: the oldest whose hardware fence has not
 * signalled, with a reference, or NULL.  Not drm_sched's oldest job, which
 * may have finished and only wait to be freed.
 */
static struct vgpu_hw_fence *vgpu_queue_stuck(struct vgpu_queue *q)
{
	struct vgpu_hw_fence *hf;
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	hf = list_first_entry_or_null(&q->pending, struct vgpu_hw_fence, link);
	if (hf)
		dma_fence_get(&hf->base);
	spin_unlock_irqrestore(&q->fence_lock, flags);
	return hf;
}

/* Restart the scheduler after drm_sched_stop(), nothing reset. */
static void vgpu_queue_resume(struct vgpu_queue *q)
{
	vgpu_queue_reattach(q);
	drm_sched_start(&q->sched);
	/* drm_sched_stop() cancelled the timer an ERROR may have kicked. */
	if (READ_ONCE(q->error) != VGPU_QUEUE_ERROR_NONE)
		drm_sched_fault(&q->sched);
}

static const char *vgpu_queue_error_name(u32 cause)
{
	static const char *const names[] = {
		[VGPU_QUEUE_ERROR_NONE] = "no error",
		[VGPU_QUEUE_ERROR_OPCODE] = "unknown opcode",
		[VGPU_QUEUE_ERROR_LENGTH] = "bad command length",
		[VGPU_QUEUE_ERROR_RING] = "bad ring set-up",
		[VGPU_QUEUE_ERROR_RING_DMA] = "ring not readable",
		[VGPU_QUEUE_ERROR_CONTEXT] = "bad context",
		[VGPU_QUEUE_ERROR_CANCELLED] = "fault cancelled",
		[VGPU_QUEUE_ERROR_ARGUMENT] = "bad command argument",
		[VGPU_QUEUE_ERROR_CALL_NESTED] = "nested CALL",
		[VGPU_QUEUE_ERROR_PRIVILEGE] = "privileged command in a user stream",
		[VGPU_QUEUE_ERROR_INDEX] = "index out of bound",
	};

	return cause < ARRAY_SIZE(names) && names[cause] ? names[cause] :
	       "unknown cause";
}

static enum drm_gpu_sched_stat vgpu_timedout_job(struct drm_sched_job *sched_job)
{
	struct vgpu_queue *q = to_vgpu_job(sched_job)->q;
	struct vgpu_device *vdev = q->vdev;
	struct drm_gpu_scheduler *sched = &q->sched;
	struct vgpu_hw_fence *stuck;
	char where[40] = "";
	u32 cause, status;
	int error, idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return DRM_GPU_SCHED_STAT_ENODEV;

	/*
	 * The job to blame is the one the ring stopped in.  With the
	 * scheduler stopped, no job of the pending list is freed under us.
	 */
	drm_sched_stop(sched, sched_job);
	vgpu_queue_complete(q);
	stuck = vgpu_queue_stuck(q);
	if (!stuck && READ_ONCE(q->error) == VGPU_QUEUE_ERROR_NONE) {
		/* Everything finished meanwhile: nothing to recover. */
		vgpu_queue_resume(q);
		drm_dev_exit(idx);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	if (stuck && vgpu_job_extend(q, stuck)) {
		vgpu_queue_resume(q);
		dma_fence_put(&stuck->base);
		drm_dev_exit(idx);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}

	/* Inside a BO stream's CALL: say where in the user's stream. */
	status = vgpu_rd32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_STATUS));
	if (status & VGPU_QUEUE_STATUS_IN_CALL)
		snprintf(where, sizeof(where), " at offset 0x%x of its stream",
			 vgpu_rd32(vdev, VGPU_QUEUE_REG(q->id,
							VGPU_QUEUE_CALL_OFFSET)));

	cause = xchg(&q->error, VGPU_QUEUE_ERROR_NONE);
	switch (cause) {
	case VGPU_QUEUE_ERROR_NONE:
		error = -ETIMEDOUT;
		break;
	case VGPU_QUEUE_ERROR_CANCELLED:
		error = -EFAULT;
		break;
	case VGPU_QUEUE_ERROR_PRIVILEGE:
		error = -EPERM;
		break;
	default:
		error = -EIO;
		break;
	}
	/* Any client can make its jobs fail: do not let it flood the log. */
	if (!stuck)
		dev_info_ratelimited(vdev->drm.dev,
				     "queue %u: stopped with no job in the ring (%s), resetting the queue\n",
				     q->id, vgpu_queue_error_name(cause));
	else
		dev_warn_ratelimited(vdev->drm.dev,
				     "queue %u: job %llu %s (%s)%s, resetting the queue\n",
				     q->id, stuck->base.seqno,
				     error == -ETIMEDOUT ? "timed out" :
				     error == -EFAULT ? "cancelled after a GPU fault" :
				     "stopped by a bad command",
				     vgpu_queue_error_name(cause), where);

	/* Empty the ring, then fill it again with what must still run. */
	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_RESET);
	vgpu_queue_clock_restart(q, stuck);
	vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CONTROL),
		  VGPU_QUEUE_CONTROL_ENABLE);
	q->tail = 0;
	vgpu_queue_resubmit(q, stuck, error);
	if (stuck)
		dma_fence_put(&stuck->base);
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void vgpu_free_job(struct drm_sched_job *sched_job)
{
	vgpu_job_free(to_vgpu_job(sched_job));
}

static const struct drm_sched_backend_ops vgpu_sched_ops = {
	.prepare_job = vgpu_prepare_job,
	.run_job = vgpu_run_job,
	.timedout_job = vgpu_timedout_job,
	.free_job = vgpu_free_job,
};

/* ---------------------------------------------------------- life --- */

#define VGPU_QUEUE_CLOCKS_BYTES	(VGPU_QUEUE_CLOCK_SLOTS * sizeof(__le64))

/* Free the ring and the clock slots of @q. */
static void vgpu_queue_free_mem(struct vgpu_queue *q)
{
	struct device *dev = q->vdev->drm.dev;

	if (q->clocks)
		dma_free_coherent(dev, VGPU_QUEUE_CLOCKS_BYTES, q->clocks,
				  q->clocks_dma);
	q->clocks = NULL;
	dma_free_coherent(dev, VGPU_RING_BYTES, q->ring, q->ring_dma);
	q->ring = NULL;
}

/**
 * vgpu_queues_init() - rings and schedulers for every hardware queue
 * @vdev: vgpu device
 *
 * Return: 0 or a negative errno.
 */
int vgpu_queues_init(struct vgpu_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	u32 i;
	int ret;

	vdev->nr_queues = min_t(u32, vdev->num_queues, VGPU_NUM_QUEUES);
	for (i = 0; i < vdev->nr_queues; i++) {
		struct vgpu_queue *q = &vdev->queues[i];
		struct drm_sched_init_args args = {
			.ops = &vgpu_sched_ops,
			.num_rqs = DRM_SCHED_PRIORITY_COUNT,
			.credit_limit = VGPU_RING_BYTES / VGPU_RING_CREDIT,
			.timeout = msecs_to_jiffies(vgpu_job_timeout_ms),
			.name = q->name,
			.dev = drm->dev,
		};

		q->vdev = vdev;
		q->id = i;
		q->hw_ctx = -1;
		snprintf(q->name, sizeof(q->name), "vgpu-q%u", i);
		spin_lock_init(&q->fence_lock);
		INIT_LIST_HEAD(&q->pending);
		q->fence_context = dma_fence_context_alloc(1);

		q->ring = dma_alloc_coherent(drm->dev, VGPU_RING_BYTES,
					     &q->ring_dma, GFP_KERNEL);
		if (!q->ring) {
			ret = -ENOMEM;
			goto err_fini;
		}
		if (vdev->caps & VGPU_CAPS_FENCE_CLOCK) {
			q->clocks = dma_alloc_coherent(drm->dev,
						       VGPU_QUEUE_CLOCKS_BYTES,
						       &q->clocks_dma,
						       GFP_KERNEL);
			if (!q->clocks) {
				vgpu_queue_free_mem(q);
				ret = -ENOMEM;
				goto err_fini;
			}
		}
		ret = drm_sched_init(&q->sched, &args);
		if (ret) {
			vgpu_queue_free_mem(q);
			goto err_fini;
		}
		vgpu_queue_hw_init(q);
	}
	return 0;

err_fini:
	vdev->nr_queues = i;
	vgpu_queues_unplug(vdev);
	vgpu_queues_fini(vdev);
	return ret;
}

/* Signal every job the queue's ring holds with @error. */
static void vgpu_queue_fail_pending(struct vgpu_queue *q, int error)
{
	struct vgpu_hw_fence *f, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	list_for_each_entry_safe(f, tmp, &q->pending, link) {
		list_del(&f->link);
		vgpu_hw_fence_signal_locked(q, f, error);
		dma_fence_put(&f->base);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
}

/**
 * vgpu_queues_unplug() - the device is going: stop every queue for good
 * @vdev: vgpu device, unplugged (drm_dev_unplug()) or never registered
 *
 * Disables the queues.  Jobs still in a ring will never complete: their
 * fences signal with -ENODEV, so that files closed later do not wait for
 * them.  The schedulers keep running until the DRM device is released
 * (vgpu_queues_fini()), since open files still hold entities on them:
 * every later job fails at once with -ENODEV (drm_dev_enter() in
 * prepare_job and run_job), and the timeout handler does nothing.
 */
void vgpu_queues_unplug(struct vgpu_device *vdev)
{
	struct pci_dev *pdev = to_pci_dev(vdev->drm.dev);
	u32 i;

	vgpu_ctx_fini(vdev);
	for (i = 0; i < vdev->nr_queues; i++) {
		struct vgpu_queue *q = &vdev->queues[i];

		if (pci_device_is_present(pdev))
			vgpu_wr32(vdev, VGPU_QUEUE_REG(q->id, VGPU_QUEUE_CONTROL),
				  VGPU_QUEUE_CONTROL_DISABLE);
		vgpu_queue_fail_pending(q, -ENODEV);
		/* Nothing writes the ring any more (drm_dev_enter() fails). */
		vgpu_queue_free_mem(q);
	}
}

/**
 * vgpu_queues_fini() - free the schedulers and the rings
 * @vdev: vgpu device whose queues were unplugged; no entity is left
 */
void vgpu_queues_fini(struct vgpu_device *vdev)
{
	u32 i;

	for (i = 0; i < vdev->nr_queues; i++) {
		struct vgpu_queue *q = &vdev->queues[i];
		struct drm_sched_job *job, *tmp;

		/* drm_sched_fini() leaves jobs it did not free yet. */
		drm_sched_wqueue_stop(&q->sched);
		list_for_each_entry_safe(job, tmp, &q->sched.pending_list, list) {
			list_del_init(&job->list);
			q->sched.ops->free_job(job);
		}
		drm_sched_fini(&q->sched);
		dma_fence_put(q->last);
		q->last = NULL;
	}
	vdev->nr_queues = 0;
}

/**
 * vgpu_queues_stop() - stop every scheduler and its timeout handler
 *	(before a device reset)
 * @vdev: vgpu device, fault interrupts suspended
 *
 * Jobs stay on the schedulers' pending lists and their fences on the
 * queues' (vgpu_queues_restart() runs them again); a recovery in progress
 * finishes first.
 */
void vgpu_queues_stop(struct vgpu_device *vdev)
{
	u32 i;

	for (i = 0; i < vdev->nr_queues; i++) {
		struct drm_gpu_scheduler *sched = &vdev->queues[i].sched;

		drm_sched_wqueue_stop(sched);
		/* A recovery restarts the scheduler: let it finish first. */
		cancel_delayed_work_sync(&sched->work_tdr);
		drm_sched_stop(sched, NULL);
		cancel_delayed_work_sync(&sched->work_tdr);
	}
}

/**
 * vgpu_queues_restart() - after a device reset: program the rings again,
 *	run the jobs that were on them again, restart the schedulers
 * @vdev: vgpu device, freshly reset, every queue stopped with
 *	vgpu_queues_stop() and its completed fences signalled
 *
 * A job the reset interrupted runs again from its start; jobs of banned
 * VMs fail with -ECANCELED.
 */
void vgpu_queues_restart(struct vgpu_device *vdev)
{
	u32 i;

	for (i = 0; i < vdev->nr_queues; i++) {
		struct vgpu_queue *q = &vdev->queues[i];
		int ctx = q->hw_ctx;

		vgpu_queue_hw_init(q);
		/* Every pending job is of the context the queue had. */
		if (ctx >= 0)
			vgpu_queue_set_context(q, ctx);
		WRITE_ONCE(q->error, VGPU_QUEUE_ERROR_NONE);
		vgpu_queue_resubmit(q, NULL, 0);
	}
}
