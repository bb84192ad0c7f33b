// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/iosys-map.h>
#include <linux/uaccess.h>

#include <drm/drm_suballoc.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
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
 * The stream buffer is a kernel BO of %VGPU_STREAM_BUF_SIZE in system
 * memory, pinned, created on the VM's first inline EXEC and mapped
 * read-only at %VGPU_VM_STREAM_VA, in the kernel's part of the VA space:
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
	struct vgpu_bo *bo;
	int ret;

	bo = vgpu_bo_create_kernel(vdev, VGPU_STREAM_BUF_SIZE,
				   DRM_VGPU_PLACE_SYSTEM, 0);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	dma_resv_lock(bo->tbo.base.resv, NULL);
	ret = ttm_bo_vmap(&bo->tbo, &st->map);
	dma_resv_unlock(bo->tbo.base.resv);
	if (ret)
		goto err_free;

	ret = vgpu_vm_map_kernel(vm, VGPU_VM_STREAM_VA, bo, VGPU_PTE_READ);
	if (ret)
		goto err_vunmap;

	drm_suballoc_manager_init(&st->sa, VGPU_STREAM_BUF_SIZE, sizeof(u64));
	st->bo = bo;
	return 0;

err_vunmap:
	dma_resv_lock(bo->tbo.base.resv, NULL);
	ttm_bo_vunmap(&bo->tbo, &st->map);
	dma_resv_unlock(bo->tbo.base.resv);
err_free:
	vgpu_bo_free_kernel(bo);
	return ret;
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
 * for room).
 */
struct drm_suballoc *vgpu_stream_copy(struct vgpu_vm *vm,
				      const void __user *user, u32 size,
				      u64 *va)
{
	struct vgpu_stream *st = &vm->stream;
	struct drm_suballoc *sa;
	int ret = 0;

	BUILD_BUG_ON(DRM_VGPU_EXEC_MAX_CMDS_SIZE > VGPU_STREAM_BUF_SIZE / 2);
	mutex_lock(&st->lock);
	if (!st->bo)
		ret = vgpu_stream_create(vm);
	mutex_unlock(&st->lock);
	if (ret)
		return ERR_PTR(ret);

	sa = drm_suballoc_new(&st->sa, size, GFP_KERNEL, true, 0);
	if (IS_ERR(sa))
		return sa;
	if (copy_from_user(st->map.vaddr + drm_suballoc_soffset(sa), user,
			   size)) {
		drm_suballoc_free(sa, NULL);
		return ERR_PTR(-EFAULT);
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
	return READ_ONCE(vm->stream.bo) ? VGPU_STREAM_BUF_SIZE : 0;
}

/**
 * vgpu_stream_init() - a VM without a stream buffer yet
 * @vm: VM being created
 */
void vgpu_stream_init(struct vgpu_vm *vm)
{
	mutex_init(&vm->stream.lock);
}

/**
 * vgpu_stream_fini() - free the stream buffer of a VM
 * @vm: VM whose last job is gone (its page tables may already be)
 */
void vgpu_stream_fini(struct vgpu_vm *vm)
{
	struct vgpu_stream *st = &vm->stream;

	if (st->bo) {
		/* Every job's fence has signalled: the pieces are free. */
		drm_suballoc_manager_fini(&st->sa);
		dma_resv_lock(st->bo->tbo.base.resv, NULL);
		ttm_bo_vunmap(&st->bo->tbo, &st->map);
		dma_resv_unlock(st->bo->tbo.base.resv);
		vgpu_bo_free_kernel(st->bo);
		st->bo = NULL;
	}
	mutex_destroy(&st->lock);
}
