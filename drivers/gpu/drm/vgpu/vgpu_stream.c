// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_suballoc.h>
#include <drm/vgpu_drm.h>

#include "vgpu_drv.h"
#include "vgpu_stream.h"
#include "vgpu_vm.h"

/**
 * DOC: inline command streams
 *
 * The device runs the kernel's ring privileged and every stream reached
 * through CALL unprivileged (hardware.rst, "Privilege levels"): a user
 * stream cannot move a queue's seqno, raise the fence interrupt or change
 * queue or context state.  The driver therefore never copies user
 * commands into a ring.  A stream in a BO is called where the VM maps it;
 * an inline stream (EXEC without %DRM_VGPU_EXEC_CMDS_BO) is copied into
 * the VM's stream buffer and called from there.
 *
 * The stream buffer is %VGPU_STREAM_BUF_SIZE of coherent system memory
 * (outside TTM, so it never moves), allocated on the VM's first inline
 * EXEC and mapped read-only at %VGPU_VM_STREAM_VA, in the kernel's part of the VA space:
 * the user's commands cannot rewrite it, and no other VM sees it.  Each
 * job takes a piece with drm_suballoc, freed with the job's finished
 * fence, so a full buffer makes EXEC wait (interruptibly) for older jobs
 * of the same VM.  The buffer and its page tables are charged to the file
 * in fdinfo (``drm-vgpu-stream-bytes``, ``drm-vgpu-pt-bytes``).
 *
 * Completion is judged only by the FENCE the kernel emits after the CALL,
 * in the ring.
 */

static int vgpu_stream_create(struct vgpu_vm *vm)
{
	struct vgpu_device *vdev = vm->vdev;
	struct vgpu_stream *st = &vm->stream;
	int ret;

	st->cpu = dma_alloc_coherent(vdev->drm.dev, VGPU_STREAM_BUF_SIZE,
				     &st->dma, GFP_KERNEL);
	if (!st->cpu)
		return -ENOMEM;
	ret = vgpu_vm_map_kernel(vm, VGPU_VM_STREAM_VA, st->dma,
				 VGPU_STREAM_BUF_SIZE,
				 VGPU_PTE_READ | VGPU_PTE_SYSTEM);
	if (ret) {
		dma_free_coherent(vdev->drm.dev, VGPU_STREAM_BUF_SIZE, st->cpu,
				  st->dma);
		st->cpu = NULL;
		return ret;
	}
	drm_suballoc_manager_init(&st->sa, VGPU_STREAM_BUF_SIZE, sizeof(u64));
	st->sa_ready = true;
	return 0;
}

/**
 * vgpu_stream_copy() - copy an inline stream where the device can CALL it
 * @vm: the job's VM
 * @user: the stream in user memory
 * @size: bytes, a multiple of 4, at most %DRM_VGPU_EXEC_MAX_CMDS_SIZE
 * @va: out, GPU VA of the copy in @vm
 *
 * Return: the piece of the stream buffer holding the copy, to hand to
 * vgpu_stream_free() with the job's fence; or an ERR_PTR(): -ENOMEM,
 * -EFAULT (unreadable user memory), -ERESTARTSYS (signal while waiting
 * for room), -ENODEV (the device is gone).
 */
struct drm_suballoc *vgpu_stream_copy(struct vgpu_vm *vm,
				      const void __user *user, u32 size,
				      u64 *va)
{
	struct vgpu_stream *st = &vm->stream;
	struct drm_suballoc *sa;
	int ret = 0, idx;

	BUILD_BUG_ON(DRM_VGPU_EXEC_MAX_CMDS_SIZE > VGPU_STREAM_BUF_SIZE / 2);
	mutex_lock(&st->lock);
	if (st->gone)
		ret = -ENODEV;
	else if (!st->cpu)
		ret = vgpu_stream_create(vm);
	mutex_unlock(&st->lock);
	if (ret)
		return ERR_PTR(ret);

	sa = drm_suballoc_new(&st->sa, size, GFP_KERNEL, true, 0);
	if (IS_ERR(sa))
		return sa;
	/* Unplug frees the buffer once no copy is inside drm_dev_enter(). */
	if (!drm_dev_enter(&vm->vdev->drm, &idx)) {
		ret = -ENODEV;
	} else {
		if (copy_from_user(st->cpu + drm_suballoc_soffset(sa), user,
				   size))
			ret = -EFAULT;
		drm_dev_exit(idx);
	}
	if (ret) {
		drm_suballoc_free(sa, NULL);
		return ERR_PTR(ret);
	}
	*va = VGPU_VM_STREAM_VA + drm_suballoc_soffset(sa);
	return sa;
}

/**
 * vgpu_stream_free() - give back a piece once its job is done
 * @sa: from vgpu_stream_copy(), or NULL
 * @fence: the job's finished fence, or NULL if the job never ran
 */
void vgpu_stream_free(struct drm_suballoc *sa, struct dma_fence *fence)
{
	if (sa)
		drm_suballoc_free(sa, fence);
}

/**
 * vgpu_stream_pinned() - system memory a VM's stream buffer pins
 * @vm: VM
 *
 * Return: bytes.
 */
u64 vgpu_stream_pinned(struct vgpu_vm *vm)
{
	return READ_ONCE(vm->stream.cpu) ? VGPU_STREAM_BUF_SIZE : 0;
}

/**
 * vgpu_stream_init() - a VM without a stream buffer yet
 * @vm: VM being created
 */
void vgpu_stream_init(struct vgpu_vm *vm)
{
	mutex_init(&vm->stream.lock);
}

/* Free the buffer: every job of @vm is done, or the device is gone. */
static void vgpu_stream_free_buf(struct vgpu_vm *vm)
{
	struct vgpu_stream *st = &vm->stream;

	if (st->cpu)
		dma_free_coherent(vm->vdev->drm.dev, VGPU_STREAM_BUF_SIZE,
				  st->cpu, st->dma);
	st->cpu = NULL;
}

/**
 * vgpu_stream_unplug() - the device is gone: free a VM's stream buffer now
 * @vm: VM of a file that is still open
 *
 * DMA memory must not outlive the driver's binding to the device; every
 * job of the VM has been failed.  Later inline EXECs get -ENODEV.
 */
void vgpu_stream_unplug(struct vgpu_vm *vm)
{
	mutex_lock(&vm->stream.lock);
	vm->stream.gone = true;
	vgpu_stream_free_buf(vm);
	mutex_unlock(&vm->stream.lock);
}

/**
 * vgpu_stream_fini() - free the stream buffer of a VM
 * @vm: VM whose last job is gone (its page tables may already be)
 */
void vgpu_stream_fini(struct vgpu_vm *vm)
{
	struct vgpu_stream *st = &vm->stream;

	/* Every job's fence has signalled: the pieces are free. */
	if (st->sa_ready)
		drm_suballoc_manager_fini(&st->sa);
	vgpu_stream_free_buf(vm);
	mutex_destroy(&st->lock);
}
