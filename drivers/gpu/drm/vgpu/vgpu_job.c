// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_syncobj.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
#include "vgpu_drv.h"
#include "vgpu_fdinfo.h"
#include "vgpu_ioctl.h"
#include "vgpu_job.h"
#include "vgpu_queue.h"
#include "vgpu_ttm.h"
#include "vgpu_vm.h"

/**
 * DOC: EXEC
 *
 * EXEC builds a &struct vgpu_job: the command stream is copied from user
 * memory or read from a BO (through the CPU, after moving the BO into the
 * CPU-visible window if needed), the syncobjs become scheduler
 * dependencies, and the job is pushed to the file's entity for the queue.
 *
 * Between, with the VM's lock held for reading and every BO of the VM
 * reserved (drm_gpuvm_exec_lock()), mappings whose BO moved are mapped
 * again (vgpu_vm_rebind()), the job takes as dependencies the KERNEL and
 * WRITE fences of every BO (moves, clears, writers from other devices or
 * files: implicit sync), and its fence is added to every BO: as
 * BOOKKEEP (eviction waits for it, the VM's other jobs do not), and as
 * WRITE on BOs shared through dma-buf, for implicit sync with importers.
 *
 * A VM banned after a GPU fault refuses EXEC with -ECANCELED.
 */

static void vgpu_hw_fence_free(struct vgpu_hw_fence *hf)
{
	if (!hf)
		return;
	if (hf->inited)
		dma_fence_put(&hf->base);
	else
		kfree(hf);
}

/**
 * vgpu_job_free() - release a job once the scheduler is done with it
 * @job: job
 */
void vgpu_job_free(struct vgpu_job *job)
{
	struct dma_fence *finished = job->base.s_fence ?
				     &job->base.s_fence->finished : NULL;

	/* Completed/failed counts are taken when the hardware fence signals. */
	if (finished && dma_fence_is_signaled(finished))
		vgpu_fdinfo_job_done(job);
	drm_sched_job_cleanup(&job->base);
	vgpu_hw_fence_free(job->hw_fence);
	kvfree(job->cmds);
	vgpu_vm_put(job->vm);
	kfree(job);
}

/**
 * vgpu_job_submit_kernel() - run a kernel command stream
 * @vm: kernel VM
 * @entity: kernel entity (serialised by the caller)
 * @q: its hardware queue
 * @cmds: commands
 * @ndw: dwords
 *
 * Return: the job's finished fence, or an ERR_PTR().
 */
struct dma_fence *vgpu_job_submit_kernel(struct vgpu_vm *vm,
					 struct drm_sched_entity *entity,
					 struct vgpu_queue *q, const u32 *cmds,
					 u32 ndw)
{
	struct dma_fence *fence;
	struct vgpu_job *job;
	int ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return ERR_PTR(-ENOMEM);
	job->vm = vgpu_vm_get(vm);
	job->q = q;
	job->ndw = ndw;
	job->cmds = kvmemdup(cmds, ndw * sizeof(u32), GFP_KERNEL);
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL);
	if (!job->cmds || !job->hw_fence) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = drm_sched_job_init(&job->base, entity,
				 DIV_ROUND_UP((ndw + VGPU_FENCE_LEN) * 4,
					      VGPU_RING_CREDIT), vm, 0);
	if (ret)
		goto err_free;
	drm_sched_job_arm(&job->base);
	fence = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	return fence;

err_free:
	vgpu_hw_fence_free(job->hw_fence);
	kvfree(job->cmds);
	vgpu_vm_put(job->vm);
	kfree(job);
	return ERR_PTR(ret);
}

static struct drm_sched_entity *vgpu_vm_entity(struct vgpu_vm *vm,
					       struct vgpu_queue *q)
{
	struct drm_gpu_scheduler *sched = &q->sched;
	struct drm_sched_entity *entity;
	int ret;

	mutex_lock(&vm->entity_lock);
	entity = vm->entities[q->id];
	if (entity)
		goto out;
	entity = kzalloc(sizeof(*entity), GFP_KERNEL);
	if (!entity) {
		entity = ERR_PTR(-ENOMEM);
		goto out;
	}
	ret = drm_sched_entity_init(entity, DRM_SCHED_PRIORITY_NORMAL, &sched,
				    1, NULL);
	if (ret) {
		kfree(entity);
		entity = ERR_PTR(ret);
		goto out;
	}
	vm->entities[q->id] = entity;
out:
	mutex_unlock(&vm->entity_lock);
	return entity;
}

/**
 * vgpu_vm_entities_fini() - flush a closing file's entities
 * @vm: the file's VM
 *
 * Waits for every job the file submitted to finish on the device
 * (queued ones are given the entity's flush timeout, then killed), so
 * that the VM's page tables can go.
 */
void vgpu_vm_entities_fini(struct vgpu_vm *vm)
{
	int i;

	for (i = 0; i < VGPU_NUM_QUEUES; i++) {
		struct drm_sched_entity *entity = vm->entities[i];
		struct dma_fence *last;

		if (!entity)
			continue;
		drm_sched_entity_flush(entity, MAX_WAIT_SCHED_ENTITY_Q_EMPTY);
		last = dma_fence_get(entity->last_scheduled);
		drm_sched_entity_fini(entity);
		if (last) {
			dma_fence_wait(last, false);
			dma_fence_put(last);
		}
		kfree(entity);
		vm->entities[i] = NULL;
	}
}

/* Read the command stream from a BO, through the CPU. */
static int vgpu_job_read_bo(struct drm_device *drm, struct vgpu_job *job,
			    struct drm_file *file, u32 handle, u64 offset,
			    u32 size)
{
	struct drm_gem_object *obj;
	struct vgpu_bo *bo;
	long wait;
	int ret;

	obj = drm_gem_object_lookup(file, handle);
	if (VGPU_IOCTL_DBG(drm, !obj))
		return -ENOENT;
	if (VGPU_IOCTL_DBG(drm, offset >= obj->size ||
			   size > obj->size - offset)) {
		ret = -EINVAL;
		goto out_put;
	}
	bo = gem_to_vgpu_bo(obj);
	ret = dma_resv_lock_interruptible(obj->resv, NULL);
	if (ret)
		goto out_put;
	/* Writers of the stream (other jobs, moves) must be done. */
	wait = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_WRITE, true,
				     MAX_SCHEDULE_TIMEOUT);
	ret = wait < 0 ? wait : vgpu_bo_make_cpu_visible(bo);
	if (!ret)
		ret = vgpu_ttm_access(&bo->tbo, offset, job->cmds, size, 0);
	dma_resv_unlock(obj->resv);
	if (ret == size)
		ret = 0;
out_put:
	drm_gem_object_put(obj);
	return ret;
}

static int vgpu_exec_check(struct drm_device *drm, struct vgpu_device *vdev,
			   const struct drm_vgpu_exec *args)
{
	bool in_bo = args->flags & DRM_VGPU_EXEC_CMDS_BO;

	if (VGPU_IOCTL_DBG(drm, args->vm_id || args->pad || args->reserved) ||
	    VGPU_IOCTL_DBG(drm, args->flags & ~DRM_VGPU_EXEC_FLAGS_ALL) ||
	    VGPU_IOCTL_DBG(drm, args->queue >= vgpu_exec_queues(vdev)) ||
	    VGPU_IOCTL_DBG(drm, !args->cmds_size || args->cmds_size % 4 ||
			   args->cmds_size > DRM_VGPU_EXEC_MAX_CMDS_SIZE) ||
	    VGPU_IOCTL_DBG(drm, args->num_in_syncs > DRM_VGPU_EXEC_MAX_SYNCS) ||
	    VGPU_IOCTL_DBG(drm, !in_bo && (args->cmds_handle || args->cmds_offset)) ||
	    VGPU_IOCTL_DBG(drm, in_bo && (args->cmds || args->cmds_offset % 4)))
		return -EINVAL;
	return 0;
}

/* Lock the VM's BOs, map moved ones, wire up implicit sync, push. */
static int vgpu_exec_push(struct vgpu_vm *vm, struct vgpu_job *job,
			  struct dma_fence **out)
{
	struct drm_gpuvm_exec vm_exec = {
		.vm = &vm->gpuvm,
		.flags = DRM_EXEC_INTERRUPTIBLE_WAIT,
		.num_fences = 2,
	};
	struct drm_gem_object *obj;
	struct dma_fence *fence;
	int ret;

	down_read(&vm->lock);
	ret = drm_gpuvm_exec_lock(&vm_exec);
	if (ret)
		goto out_unlock;

	ret = vgpu_vm_rebind(vm);
	if (ret)
		goto out_exec_fini;

	drm_exec_for_each_locked_object(&vm_exec.exec, obj) {
		ret = drm_sched_job_add_resv_dependencies(&job->base, obj->resv,
							  DMA_RESV_USAGE_WRITE);
		if (ret)
			goto out_exec_fini;
	}

	drm_sched_job_arm(&job->base);
	fence = dma_fence_get(&job->base.s_fence->finished);
	drm_gpuvm_resv_add_fence(&vm->gpuvm, &vm_exec.exec, fence,
				 DMA_RESV_USAGE_BOOKKEEP, DMA_RESV_USAGE_BOOKKEEP);
	drm_exec_for_each_locked_object(&vm_exec.exec, obj)
		if (obj != drm_gpuvm_resv_obj(&vm->gpuvm) &&
		    vgpu_bo_is_shared(gem_to_vgpu_bo(obj)))
			dma_resv_add_fence(obj->resv, fence, DMA_RESV_USAGE_WRITE);
	drm_sched_entity_push_job(&job->base);
	*out = fence;

out_exec_fini:
	drm_exec_fini(&vm_exec.exec);
out_unlock:
	up_read(&vm->lock);
	return ret;
}

/**
 * vgpu_exec_ioctl() - DRM_IOCTL_VGPU_EXEC
 * @drm: DRM device
 * @data: &struct drm_vgpu_exec
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_exec.
 */
int vgpu_exec_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct vgpu_file *vfile = file->driver_priv;
	struct drm_vgpu_exec *args = data;
	struct vgpu_vm *vm = vfile->vm;
	struct drm_syncobj *out_sync = NULL;
	struct drm_sched_entity *entity;
	struct dma_fence *fence = NULL;
	u32 *in_syncs = NULL;
	struct vgpu_queue *q;
	struct vgpu_job *job;
	u32 i;
	int ret;

	ret = vgpu_exec_check(drm, vdev, args);
	if (ret)
		return ret;
	if (vgpu_vm_banned(vm))
		return -ECANCELED;

	if (args->num_in_syncs) {
		in_syncs = memdup_array_user(u64_to_user_ptr(args->in_syncs),
					     args->num_in_syncs, sizeof(u32));
		if (IS_ERR(in_syncs))
			return PTR_ERR(in_syncs);
	}
	if (args->out_sync) {
		out_sync = drm_syncobj_find(file, args->out_sync);
		if (VGPU_IOCTL_DBG(drm, !out_sync)) {
			ret = -ENOENT;
			goto out_free_syncs;
		}
	}

	q = vgpu_exec_queue(vdev, args->queue);
	entity = vgpu_vm_entity(vm, q);
	if (IS_ERR(entity)) {
		ret = PTR_ERR(entity);
		goto out_put_sync;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto out_put_sync;
	}
	job->vm = vgpu_vm_get(vm);
	job->q = q;
	job->ndw = args->cmds_size / 4;
	job->cmds = kvmalloc(args->cmds_size, GFP_KERNEL);
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL);
	if (!job->cmds || !job->hw_fence) {
		ret = -ENOMEM;
		goto out_free_job;
	}
	if (args->flags & DRM_VGPU_EXEC_CMDS_BO)
		ret = vgpu_job_read_bo(drm, job, file, args->cmds_handle,
				       args->cmds_offset, args->cmds_size);
	else if (copy_from_user(job->cmds, u64_to_user_ptr(args->cmds),
				args->cmds_size))
		ret = -EFAULT;
	if (ret)
		goto out_free_job;

	ret = drm_sched_job_init(&job->base, entity,
				 DIV_ROUND_UP(args->cmds_size + VGPU_FENCE_LEN * 4,
					      VGPU_RING_CREDIT),
				 vm, file->client_id);
	if (ret)
		goto out_free_job;

	for (i = 0; i < args->num_in_syncs; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   in_syncs[i], 0);
		if (VGPU_IOCTL_DBG(drm, ret))
			goto out_cleanup_job;
	}

	ret = vgpu_exec_push(vm, job, &fence);
	if (ret)
		goto out_cleanup_job;

	atomic64_inc(&vm->ctr.jobs_submitted);
	if (out_sync)
		drm_syncobj_replace_fence(out_sync, fence);
	dma_fence_put(fence);
	goto out_put_sync;

out_cleanup_job:
	drm_sched_job_cleanup(&job->base);
out_free_job:
	job->base.s_fence = NULL;
	vgpu_hw_fence_free(job->hw_fence);
	kvfree(job->cmds);
	vgpu_vm_put(job->vm);
	kfree(job);
out_put_sync:
	if (out_sync)
		drm_syncobj_put(out_sync);
out_free_syncs:
	kfree(in_syncs);
	return ret;
}
