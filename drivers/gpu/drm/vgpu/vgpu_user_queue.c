// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>
#include <drm/vgpu_drm.h>

#include "vgpu_drv.h"
#include "vgpu_file.h"
#include "vgpu_ioctl.h"
#include "vgpu_queue.h"
#include "vgpu_user_queue.h"
#include "vgpu_vm.h"

/**
 * DOC: created exec queues
 *
 * EXEC_QUEUE_CREATE makes a &struct vgpu_user_queue: a scheduler entity on
 * one ring's &drm_gpu_scheduler, at the DRM scheduler priority of the
 * queue, bound to one VM of the file (it holds a reference, and the VM
 * counts it in &vgpu_vm.user_queues, so that VM_DESTROY refuses with
 * -EBUSY while the queue exists).  Its jobs are the VM's jobs in every
 * respect but the entity they are pushed to: implicit sync, the stream
 * buffer, the hardware context and the fault handling are the VM's.
 * Every scheduler has one run queue per priority and always takes the
 * next job from the highest one with an entity ready, so a job of a HIGH
 * queue overtakes the NORMAL jobs waiting in the scheduler, though never
 * one already in the ring.  HIGH needs ``CAP_SYS_NICE``, as in xe (-EPERM
 * without).
 *
 * Ids start at %DRM_VGPU_EXEC_QUEUE_ID_BASE, above every fixed queue
 * index, so EXEC tells the two apart by value.  EXEC looks the queue up
 * while it holds the VM (vgpu_file_vm_get()); EXEC_QUEUE_DESTROY takes the
 * queue out of the file's xarray, then waits for those EXECs by taking the
 * VM's &vgpu_vm.users for writing, and only then flushes and frees the
 * entity as a closing file does (vgpu_vm_entities_fini()).
 */

#define VGPU_USER_QUEUE_IDS	XA_LIMIT(DRM_VGPU_EXEC_QUEUE_ID_BASE, \
					 DRM_VGPU_EXEC_QUEUE_ID_BASE + \
					 DRM_VGPU_MAX_EXEC_QUEUES - 1)

static const enum drm_sched_priority vgpu_user_queue_prio[] = {
	[DRM_VGPU_QUEUE_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
	[DRM_VGPU_QUEUE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
	[DRM_VGPU_QUEUE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
};

/*
 * Flush and free a queue no EXEC can reach any more.
 *
 * Context: &vgpu_file.lock not held (the flush may wait).
 */
static void vgpu_user_queue_free(struct vgpu_user_queue *uq)
{
	drm_sched_entity_flush(&uq->entity, MAX_WAIT_SCHED_ENTITY_Q_EMPTY);
	drm_sched_entity_fini(&uq->entity);
	vgpu_vm_put(uq->vm);
	kfree(uq);
}

/**
 * vgpu_user_queue_entity() - the entity of a created queue, for EXEC
 * @file: DRM file
 * @vm: the VM EXEC named, from vgpu_file_vm_get() (held until the job is
 *	pushed: EXEC_QUEUE_DESTROY waits for it)
 * @id: &drm_vgpu_exec.queue, at or above %DRM_VGPU_EXEC_QUEUE_ID_BASE
 * @q: out, the queue's ring
 *
 * Return: the entity, ERR_PTR(-ENOENT) for an unknown @id, or
 * ERR_PTR(-EINVAL) for a queue bound to another VM.
 */
struct drm_sched_entity *vgpu_user_queue_entity(struct drm_file *file,
						struct vgpu_vm *vm, u32 id,
						struct vgpu_queue **q)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct drm_device *drm = file->minor->dev;
	struct drm_sched_entity *entity;
	struct vgpu_user_queue *uq;

	lockdep_assert_held(&vm->users);
	xa_lock(&vfile->queues);
	uq = xa_load(&vfile->queues, id);
	if (VGPU_IOCTL_DBG(drm, !uq)) {
		entity = ERR_PTR(-ENOENT);
	} else if (VGPU_IOCTL_DBG(drm, uq->vm != vm)) {
		entity = ERR_PTR(-EINVAL);
	} else {
		/* Safe past the lock: destroying @uq waits for @vm->users. */
		entity = &uq->entity;
		*q = uq->q;
	}
	xa_unlock(&vfile->queues);
	return entity;
}

/**
 * vgpu_user_queues_fini() - a closing file's created queues go
 * @vfile: the file; no ioctl of it runs any more
 */
void vgpu_user_queues_fini(struct vgpu_file *vfile)
{
	struct vgpu_user_queue *uq;
	unsigned long id;

	xa_for_each(&vfile->queues, id, uq) {
		xa_erase(&vfile->queues, id);
		uq->vm->user_queues--;
		vgpu_user_queue_free(uq);
	}
	xa_destroy(&vfile->queues);
}

static int vgpu_user_queue_check(struct drm_device *drm,
				 const struct drm_vgpu_exec_queue_create *args)
{
	if (VGPU_IOCTL_DBG(drm, args->flags || args->pad || args->reserved) ||
	    VGPU_IOCTL_DBG(drm, args->ring >= vgpu_exec_queues(to_vgpu(drm))) ||
	    VGPU_IOCTL_DBG(drm, args->priority >= ARRAY_SIZE(vgpu_user_queue_prio)))
		return -EINVAL;
	if (VGPU_IOCTL_DBG(drm, args->priority > DRM_VGPU_QUEUE_PRIORITY_NORMAL &&
			   !capable(CAP_SYS_NICE)))
		return -EPERM;
	return 0;
}

/**
 * vgpu_exec_queue_create_ioctl() - DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE
 * @drm: DRM device
 * @data: &struct drm_vgpu_exec_queue_create
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_exec_queue_create.
 */
int vgpu_exec_queue_create_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct drm_vgpu_exec_queue_create *args = data;
	struct drm_gpu_scheduler *sched;
	struct vgpu_user_queue *uq;
	struct vgpu_vm *vm;
	u32 id;
	int ret;

	ret = vgpu_user_queue_check(drm, args);
	if (ret)
		return ret;
	vm = vgpu_file_vm_get(file, args->vm_id);
	if (IS_ERR(vm))
		return PTR_ERR(vm);

	uq = kzalloc(sizeof(*uq), GFP_KERNEL);
	if (!uq) {
		ret = -ENOMEM;
		goto out_put_vm;
	}
	uq->q = vgpu_exec_queue(to_vgpu(drm), args->ring);
	uq->priority = args->priority;
	sched = &uq->q->sched;
	ret = drm_sched_entity_init(&uq->entity,
				    vgpu_user_queue_prio[args->priority],
				    &sched, 1, NULL);
	if (ret)
		goto out_free;
	uq->vm = vgpu_vm_get(vm);

	mutex_lock(&vfile->lock);
	/* A VM_DESTROY that already took the VM out waits for us: refuse. */
	if (xa_load(&vfile->vms, args->vm_id) != vm)
		ret = -ENOENT;
	else
		ret = xa_alloc(&vfile->queues, &id, uq, VGPU_USER_QUEUE_IDS,
			       GFP_KERNEL);
	if (!ret)
		vm->user_queues++;
	mutex_unlock(&vfile->lock);
	if (VGPU_IOCTL_DBG(drm, ret)) {
		vgpu_user_queue_free(uq);
		goto out_put_vm;
	}
	args->queue_id = id;
	goto out_put_vm;

out_free:
	kfree(uq);
out_put_vm:
	vgpu_file_vm_put(vm);
	return ret;
}

/**
 * vgpu_exec_queue_destroy_ioctl() - DRM_IOCTL_VGPU_EXEC_QUEUE_DESTROY
 * @drm: DRM device
 * @data: &struct drm_vgpu_exec_queue_destroy
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_exec_queue_destroy.
 */
int vgpu_exec_queue_destroy_ioctl(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct drm_vgpu_exec_queue_destroy *args = data;
	struct vgpu_user_queue *uq;

	if (VGPU_IOCTL_DBG(drm, args->pad))
		return -EINVAL;

	mutex_lock(&vfile->lock);
	uq = xa_erase(&vfile->queues, args->queue_id);
	if (uq)
		uq->vm->user_queues--;
	mutex_unlock(&vfile->lock);
	if (VGPU_IOCTL_DBG(drm, !uq))
		return -ENOENT;

	/* EXECs that found the queue hold its VM's users lock. */
	down_write(&uq->vm->users);
	up_write(&uq->vm->users);
	vgpu_user_queue_free(uq);
	return 0;
}
