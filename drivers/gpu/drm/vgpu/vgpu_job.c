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
#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
#include "vgpu_drv.h"
#include "vgpu_file.h"
#include "vgpu_ioctl.h"
#include "vgpu_job.h"
#include "vgpu_queue.h"
#include "vgpu_stats.h"
#include "vgpu_stream.h"
#include "vgpu_svm.h"
#include "vgpu_sync.h"
#include "vgpu_user_queue.h"
#include "vgpu_vm.h"

/**
 * DOC: EXEC
 *
 * EXEC builds a &struct vgpu_job whose commands in the queue's ring are
 * one ``CALL(va, size)`` (hardware.rst, "Indirect streams"), so that the
 * user's commands run unprivileged (see "inline command streams"):
 *
 * - an inline command stream (user memory, at most
 *   %DRM_VGPU_EXEC_MAX_CMDS_SIZE) is copied into the VM's stream buffer,
 *   mapped read-only in the VM, and va is where the copy is;
 * - a command stream in a BO (%DRM_VGPU_EXEC_CMDS_BO) is not read by the
 *   CPU at all: va is the GPU VA at which the job's VM maps the BO
 *   range, readable.  The device reads the stream through the VM like any
 *   data, so the BO may be anywhere (VRAM outside the CPU-visible window,
 *   system memory), the stream may be up to
 *   %DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE, and a bad stream faults in the user's
 *   own VM (the job fails with -EFAULT and the VM is banned, as for any
 *   fault).  The mapping is looked up under the VM's lock: a BO range not
 *   mapped is refused with -ENXIO, mapped without read permission with
 *   -EACCES.  As the BO is mapped, it is one of the VM's BOs: implicit sync
 *   and the job's fence cover it like the others, and a move of it is
 *   mapped again before the job runs.
 *
 * Either way the kernel appends a FENCE of its own, the in-fences become
 * scheduler dependencies ("EXEC synchronisation", vgpu_sync.c), and the
 * job is pushed to the queue's entity: the VM's own one for the ring with
 * a fixed queue index, a created queue's (vgpu_user_queue.c) otherwise.
 * The VM is held from lookup to push (vgpu_file_vm_get()), so VM_DESTROY
 * and EXEC_QUEUE_DESTROY wait for it.
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

/* Frees what vgpu_job_alloc() allocated. */
static void vgpu_job_release(struct vgpu_job *job)
{
	vgpu_stream_free(job->stream, NULL);
	vgpu_hw_fence_free(job->hw_fence);
	kvfree(job->cmds);
	/* Freed by the scheduler's work: the VM may hold the device's last. */
	vgpu_vm_put_async(job->vm);
	kfree(job);
}

/* A job of @ndw dwords for @q, not yet known to the scheduler. */
static struct vgpu_job *vgpu_job_alloc(struct vgpu_vm *vm,
				       struct vgpu_queue *q, u32 ndw)
{
	struct vgpu_job *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;
	job->vm = vgpu_vm_get(vm);
	job->q = q;
	job->ndw = ndw;
	job->cmds = kvmalloc_array(ndw, sizeof(u32), GFP_KERNEL);
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL);
	if (!job->cmds || !job->hw_fence) {
		vgpu_job_release(job);
		return NULL;
	}
	return job;
}

/* drm_sched_job_init() for the ring space the job takes, its FENCE included. */
static int vgpu_job_init(struct vgpu_job *job, struct drm_sched_entity *entity,
			 u64 client_id)
{
	return drm_sched_job_init(&job->base, entity,
				  DIV_ROUND_UP((job->ndw + VGPU_FENCE_LEN) * 4,
					       VGPU_RING_CREDIT),
				  job->vm, client_id);
}

/**
 * vgpu_job_free() - release a job once the scheduler is done with it
 * @job: job
 */
void vgpu_job_free(struct vgpu_job *job)
{
	/* Counts and engine time are taken when the hardware fence signals. */
	drm_sched_job_cleanup(&job->base);
	vgpu_job_release(job);
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

	job = vgpu_job_alloc(vm, q, ndw);
	if (!job)
		return ERR_PTR(-ENOMEM);
	memcpy(job->cmds, cmds, ndw * sizeof(u32));
	ret = vgpu_job_init(job, entity, 0);
	if (ret) {
		vgpu_job_release(job);
		return ERR_PTR(ret);
	}
	drm_sched_job_arm(&job->base);
	fence = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	return fence;
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
 * Waits until the queued jobs reached the device: killably, or at process
 * exit for at most the scheduler's flush timeout (drm_sched_entity_flush());
 * what is left then is killed.  Jobs on the device are not waited for:
 * the caller waits for them (vgpu_queues_vm_fence()) before the VM's page
 * tables go.
 */
void vgpu_vm_entities_fini(struct vgpu_vm *vm)
{
	int i;

	for (i = 0; i < VGPU_NUM_QUEUES; i++) {
		struct drm_sched_entity *entity = vm->entities[i];

		if (!entity)
			continue;
		drm_sched_entity_flush(entity, MAX_WAIT_SCHED_ENTITY_Q_EMPTY);
		drm_sched_entity_fini(entity);
		kfree(entity);
		vm->entities[i] = NULL;
	}
}

/* The command stream of an EXEC with %DRM_VGPU_EXEC_CMDS_BO. */
struct vgpu_exec_stream {
	struct drm_gem_object *obj;
	u64 offset;
	u32 size;
};

/*
 * Where the VM maps [offset, offset + size) of the stream's BO: the VA of
 * its first byte in the first mapping that covers it all and allows
 * reading.  -ENXIO if no mapping covers it, -EACCES if only mappings
 * without read permission do.
 */
static int vgpu_exec_stream_va(struct vgpu_vm *vm,
			       const struct vgpu_exec_stream *st, u64 *va_out)
{
	struct vgpu_bo *bo = gem_to_vgpu_bo(st->obj);
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *va;
	int ret = -ENXIO;

	lockdep_assert_held(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, st->obj) {
		if (vm_bo->vm != &vm->gpuvm)
			continue;
		drm_gpuvm_bo_for_each_va(va, vm_bo) {
			struct vgpu_vma *vma = container_of(va, struct vgpu_vma,
							    base);

			if (st->offset < va->gem.offset ||
			    st->offset + st->size > va->gem.offset + va->va.range)
				continue;
			if (!(vma->pte_flags & VGPU_PTE_READ)) {
				ret = -EACCES;
				continue;
			}
			*va_out = va->va.addr + st->offset - va->gem.offset;
			ret = 0;
			goto out_unlock;
		}
	}
out_unlock:
	mutex_unlock(&bo->gpuva_lock);
	return ret;
}

/* The job's commands in the ring: a CALL of @size bytes at @va. */
static void vgpu_job_set_call(struct vgpu_job *job, u64 va, u32 size)
{
	job->cmds[0] = VGPU_CMD_HEADER(VGPU_OP_CALL, 0, VGPU_CALL_LEN);
	job->cmds[1] = lower_32_bits(va);
	job->cmds[2] = upper_32_bits(va);
	job->cmds[3] = size / 4;
}

/* Point the job's CALL at the stream: VM lock held, so mappings stay. */
static int vgpu_exec_stream_bind(struct drm_device *drm, struct vgpu_vm *vm,
				 struct vgpu_job *job,
				 const struct vgpu_exec_stream *st)
{
	u64 va;
	int ret;

	ret = vgpu_exec_stream_va(vm, st, &va);
	if (ret) {
		drm_dbg_driver(drm, "EXEC: BO range 0x%llx+0x%x %s in the VM\n",
			       st->offset, st->size, ret == -EACCES ?
			       "mapped without read permission" : "not mapped");
		return ret;
	}
	vgpu_job_set_call(job, va, st->size);
	return 0;
}

static int vgpu_exec_check(struct drm_device *drm, struct vgpu_device *vdev,
			   const struct drm_vgpu_exec *args)
{
	bool in_bo = args->flags & DRM_VGPU_EXEC_CMDS_BO;
	u32 max = in_bo ? DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE :
			  DRM_VGPU_EXEC_MAX_CMDS_SIZE;

	BUILD_BUG_ON(DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE / 4 > VGPU_CALL_SIZE_MAX_DW);
	if (VGPU_IOCTL_DBG(drm, args->pad || args->reserved) ||
	    VGPU_IOCTL_DBG(drm, args->flags & ~DRM_VGPU_EXEC_FLAGS_ALL) ||
	    VGPU_IOCTL_DBG(drm, args->queue >= vgpu_exec_queues(vdev) &&
			   (args->queue < DRM_VGPU_EXEC_QUEUE_ID_BASE ||
			    args->queue - DRM_VGPU_EXEC_QUEUE_ID_BASE >=
			    DRM_VGPU_MAX_EXEC_QUEUES)) ||
	    VGPU_IOCTL_DBG(drm, !args->cmds_size || args->cmds_size % 4 ||
			   args->cmds_size > max) ||
	    VGPU_IOCTL_DBG(drm, args->num_in_syncs > DRM_VGPU_EXEC_MAX_SYNCS) ||
	    VGPU_IOCTL_DBG(drm, !in_bo && (args->cmds_handle || args->cmds_offset)) ||
	    VGPU_IOCTL_DBG(drm, in_bo && (args->cmds || args->cmds_offset % 4)))
		return -EINVAL;
	return 0;
}

/*
 * Lock the VM's BOs, point a BO stream's CALL at its mapping, map moved
 * BOs, wire up implicit sync, push.
 */
static int vgpu_exec_push(struct drm_device *drm, struct vgpu_vm *vm,
			  struct vgpu_job *job,
			  const struct vgpu_exec_stream *st,
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
	if (st) {
		ret = vgpu_exec_stream_bind(drm, vm, job, st);
		if (ret)
			goto out_unlock;
	}
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
	/* The inline stream's copy stays until the job is done. */
	vgpu_stream_free(job->stream, fence);
	job->stream = NULL;
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
	struct drm_vgpu_exec *args = data;
	struct vgpu_exec_stream stream = {}, *st = NULL;
	struct drm_sched_entity *entity;
	struct vgpu_exec_sync sync;
	struct dma_fence *fence = NULL;
	struct vgpu_queue *q;
	struct vgpu_job *job;
	struct vgpu_vm *vm;
	int ret;

	ret = vgpu_exec_check(drm, vdev, args);
	if (!ret)
		ret = vgpu_exec_sync_check(drm, args);
	if (ret)
		return ret;
	/* Held until the job is pushed: VM and queue teardown wait for it. */
	vm = vgpu_file_vm_get(file, args->vm_id);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	if (vgpu_vm_banned(vm)) {
		ret = -ECANCELED;
		goto out_put_vm;
	}
	/* Pages of ACCESSED_BY mirrors moved before this call are mapped. */
	vgpu_svm_remap_flush(vm);

	ret = vgpu_exec_sync_prepare(drm, file, args, &sync);
	if (ret)
		goto out_sync_fini;

	if (args->flags & DRM_VGPU_EXEC_CMDS_BO) {
		stream.obj = drm_gem_object_lookup(file, args->cmds_handle);
		if (VGPU_IOCTL_DBG(drm, !stream.obj)) {
			ret = -ENOENT;
			goto out_sync_fini;
		}
		stream.offset = args->cmds_offset;
		stream.size = args->cmds_size;
		st = &stream;
		if (VGPU_IOCTL_DBG(drm, stream.offset >= stream.obj->size ||
				   stream.size > stream.obj->size - stream.offset)) {
			ret = -EINVAL;
			goto out_put_stream;
		}
	}

	if (args->queue < vgpu_exec_queues(vdev)) {
		q = vgpu_exec_queue(vdev, args->queue);
		entity = vgpu_vm_entity(vm, q);
	} else {
		entity = vgpu_user_queue_entity(file, vm, args->queue, &q);
	}
	if (IS_ERR(entity)) {
		ret = PTR_ERR(entity);
		goto out_put_stream;
	}

	/* One CALL; vgpu_exec_stream_bind() points a BO stream's. */
	job = vgpu_job_alloc(vm, q, VGPU_CALL_LEN);
	if (!job) {
		ret = -ENOMEM;
		goto out_put_stream;
	}
	if (!st) {
		u64 va;

		job->stream = vgpu_stream_copy(vm, u64_to_user_ptr(args->cmds),
					       args->cmds_size, &va);
		if (IS_ERR(job->stream)) {
			ret = PTR_ERR(job->stream);
			job->stream = NULL;
			goto out_free_job;
		}
		vgpu_job_set_call(job, va, args->cmds_size);
	}

	ret = vgpu_job_init(job, entity, file->client_id);
	if (ret)
		goto out_free_job;

	ret = vgpu_exec_sync_add_deps(drm, file, &sync, &job->base);
	if (ret)
		goto out_cleanup_job;

	ret = vgpu_exec_push(drm, vm, job, st, &fence);
	if (ret)
		goto out_cleanup_job;

	vgpu_stats_vm_add(vm, VGPU_STAT_JOBS_SUBMITTED, 1);
	vgpu_exec_sync_signal(&sync, fence, args);
	dma_fence_put(fence);
	goto out_put_stream;

out_cleanup_job:
	drm_sched_job_cleanup(&job->base);
out_free_job:
	vgpu_job_release(job);
out_put_stream:
	if (stream.obj)
		drm_gem_object_put(stream.obj);
out_sync_fini:
	vgpu_exec_sync_fini(&sync);
out_put_vm:
	vgpu_file_vm_put(vm);
	return ret;
}
