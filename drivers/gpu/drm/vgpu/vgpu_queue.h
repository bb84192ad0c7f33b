/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_QUEUE_H__
#define __VGPU_QUEUE_H__

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <drm/gpu_scheduler.h>

struct vgpu_device;
struct vgpu_job;
struct vgpu_vm;

/** VGPU_RING_BYTES - ring size of every queue */
#define VGPU_RING_BYTES		(256u << 10)
/** VGPU_RING_CREDIT - bytes of ring one scheduler credit stands for */
#define VGPU_RING_CREDIT	64u
/**
 * VGPU_QUEUE_CLOCK_SLOTS - modeled-clock slots of a queue: one per job a
 * full ring can hold (a job takes at least one credit), indexed by seqno
 */
#define VGPU_QUEUE_CLOCK_SLOTS	(VGPU_RING_BYTES / VGPU_RING_CREDIT)
/** VGPU_KERNEL_QUEUES - hardware queues the kernel keeps (queue 0) */
#define VGPU_KERNEL_QUEUES	1

/**
 * struct vgpu_hw_fence - completion of one job on a hardware queue
 * @base: the dma_fence; its seqno is the value the job's FENCE writes.
 * @link: in &vgpu_queue.pending while emitted and not signalled.
 * @job: the job (valid until the fence signals).
 * @vm: the job's VM (valid until the fence signals).
 * @emitted_ns: when run_job emitted the job (for the engine time of fdinfo).
 * @ctx_held: the job pins its VM's hardware context until the fence signals.
 * @ctx_error: why prepare_job got no context (-ENODEV, -ENOMEM), if so.
 * @inited: @base was initialised (run_job ran).
 * @tdr_progress: &vgpu_queue.progress at the last timeout check of the job
 *	(at run_job before the first); the timeout handler only.
 * @tdr_pos: command position (vgpu_queue_pos()) at the last timeout check,
 *	%VGPU_QUEUE_POS_NONE before the first; the timeout handler only.
 * @tdr_extended_ms: time the job's timeout was extended by so far.
 */
struct vgpu_hw_fence {
	struct dma_fence base;
	struct list_head link;
	struct vgpu_job *job;
	struct vgpu_vm *vm;
	u64 emitted_ns;
	bool ctx_held;
	int ctx_error;
	bool inited;
	u32 tdr_progress;
	u64 tdr_pos;
	u32 tdr_extended_ms;
};

/** VGPU_QUEUE_POS_NONE - &vgpu_hw_fence.tdr_pos before the first check */
#define VGPU_QUEUE_POS_NONE	(~0ull)

/**
 * struct vgpu_queue - a hardware queue: a ring, a scheduler, a timeline
 * @vdev: vgpu device.
 * @id: hardware queue number.
 * @name: for the scheduler and fences.
 * @sched: the drm_sched instance feeding this ring.
 * @ring: CPU address of the ring (coherent system memory).
 * @ring_dma: its DMA address.
 * @tail: next byte to write; only run_job and recovery write the ring,
 *	and the scheduler serialises them.
 * @hw_ctx: context the queue is programmed with, or -1 (same serialisation).
 * @last: fence of the last job emitted (same serialisation).
 * @fence_lock: protects @pending, @seqno and is every hw fence's lock.
 * @fence_context: dma_fence context of the timeline.
 * @seqno: last seqno emitted.
 * @pending: emitted fences, oldest first.
 * @busy_until: end (ns) of the last job whose run time was charged to a
 *	VM (vgpu_fdinfo_engine_charge(), under @fence_lock).
 * @clocks: %VGPU_QUEUE_CLOCK_SLOTS slots (coherent system memory) where
 *	the ring's FENCE of a job writes the queue's modeled clock as the job
 *	ends (``FENCE_FLAG_CLOCK``), or NULL on a device without it.
 * @clocks_dma: their DMA address.
 * @clock_until: modeled clock at the end of the last job whose modeled
 *	time was charged to a VM (vgpu_fdinfo_modeled_charge(), under
 *	@fence_lock).
 * @error: cause the queue stopped with (``VGPU_QUEUE_ERROR_*``), read by
 *	the timeout handler.
 * @progress: REPLAYs the fault thread issued on the queue and faulting
 *	pages of the queue it handled (vgpu_queue_replay(),
 *	vgpu_queue_progress()); the timeout handler reads it as a sign of
 *	progress.
 */
struct vgpu_queue {
	struct vgpu_device *vdev;
	u32 id;
	char name[24];
	struct drm_gpu_scheduler sched;
	void *ring;
	dma_addr_t ring_dma;
	u32 tail;
	int hw_ctx;
	struct dma_fence *last;

	spinlock_t fence_lock;
	u64 fence_context;
	u64 seqno;
	struct list_head pending;
	u64 busy_until;
	__le64 *clocks;
	dma_addr_t clocks_dma;
	u64 clock_until;
	u32 error;
	atomic_t progress;
};

int vgpu_queues_init(struct vgpu_device *vdev);
void vgpu_queues_unplug(struct vgpu_device *vdev);
void vgpu_queues_fini(struct vgpu_device *vdev);
void vgpu_queues_stop(struct vgpu_device *vdev);
void vgpu_queues_restart(struct vgpu_device *vdev);
void vgpu_queue_complete(struct vgpu_queue *q);
void vgpu_queue_error(struct vgpu_queue *q);
void vgpu_queue_replay(struct vgpu_device *vdev, u32 id);
void vgpu_queue_progress(struct vgpu_device *vdev, unsigned long queues);
struct dma_fence *vgpu_queues_vm_fence(struct vgpu_device *vdev,
				       struct vgpu_vm *vm);
u32 vgpu_exec_queues(struct vgpu_device *vdev);
struct vgpu_queue *vgpu_exec_queue(struct vgpu_device *vdev, u32 idx);

#endif /* __VGPU_QUEUE_H__ */
