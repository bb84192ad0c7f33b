/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_JOB_H__
#define __VGPU_JOB_H__

#include <linux/types.h>

#include <drm/gpu_scheduler.h>

struct dma_fence;
struct drm_device;
struct drm_file;
struct drm_suballoc;
struct vgpu_hw_fence;
struct vgpu_queue;
struct vgpu_vm;

/**
 * struct vgpu_job - one EXEC: a command stream for a queue of a VM
 * @base: drm_sched job.
 * @vm: the VM (a reference).
 * @q: the hardware queue.
 * @cmds: the command stream, copied at submission.
 * @ndw: dwords in @cmds.
 * @hw_fence: completion fence, allocated at submission.
 * @stream: the copy of an inline stream in the VM's stream buffer, until
 *	the job is pushed (then freed with its fence).
 */
struct vgpu_job {
	struct drm_sched_job base;
	struct vgpu_vm *vm;
	struct vgpu_queue *q;
	u32 *cmds;
	u32 ndw;
	struct vgpu_hw_fence *hw_fence;
	struct drm_suballoc *stream;
};

static inline struct vgpu_job *to_vgpu_job(struct drm_sched_job *job)
{
	return container_of(job, struct vgpu_job, base);
}

void vgpu_job_free(struct vgpu_job *job);
struct dma_fence *vgpu_job_submit_kernel(struct vgpu_vm *vm,
					 struct drm_sched_entity *entity,
					 struct vgpu_queue *q, const u32 *cmds,
					 u32 ndw);
void vgpu_vm_entities_fini(struct vgpu_vm *vm);
int vgpu_exec_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __VGPU_JOB_H__ */
