// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sync_file.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>
#include <drm/vgpu_drm.h>

#include "vgpu_ioctl.h"
#include "vgpu_sync.h"

/**
 * DOC: EXEC synchronisation
 *
 * An EXEC waits for in-fences and hands its job's fence out, as xe, msm
 * and panthor do:
 *
 * - in: binary syncobjs (their fence) and timeline points of syncobjs
 *   (drm_syncobj_find_fence() with the point), and a sync_file fd; each
 *   becomes a drm_sched dependency of the job.  Every one must exist at
 *   submission: no wait-for-submit, a missing fence or point is -EINVAL.
 * - out: a syncobj's fence replaced (binary) or a timeline point added
 *   (drm_syncobj_add_point()), and a new sync_file fd.
 *
 * Everything that can fail happens in vgpu_exec_sync_prepare(), before the
 * job is armed: the user arrays are copied, the out syncobj looked up,
 * its timeline link allocated, the fd reserved and the sync_file made
 * around the stub fence.  Once the job is pushed, vgpu_exec_sync_signal()
 * only gives the sync_file the job's fence, installs the fd and signals
 * the syncobj, none of which fails; a failed EXEC leaves every syncobj
 * as it was and no fd behind (vgpu_exec_sync_fini()).
 */

/**
 * vgpu_exec_sync_check() - the argument checks of EXEC's sync fields
 * @drm: DRM device
 * @args: EXEC arguments
 *
 * Return: 0, or -EINVAL for a fence fd without its flag or a timeline
 * point without a syncobj.
 */
int vgpu_exec_sync_check(struct drm_device *drm,
			 const struct drm_vgpu_exec *args)
{
	if (VGPU_IOCTL_DBG(drm, !(args->flags & DRM_VGPU_EXEC_IN_FENCE_FD) &&
			   args->in_fence_fd) ||
	    VGPU_IOCTL_DBG(drm, !(args->flags & DRM_VGPU_EXEC_OUT_FENCE_FD) &&
			   args->out_fence_fd) ||
	    VGPU_IOCTL_DBG(drm, args->out_point && !args->out_sync))
		return -EINVAL;
	return 0;
}

/* The out sync_file, around the stub fence until the job's is known. */
static int vgpu_exec_sync_out_file(struct vgpu_exec_sync *sync)
{
	struct dma_fence *stub;

	sync->out_fd = get_unused_fd_flags(O_CLOEXEC);
	if (sync->out_fd < 0)
		return sync->out_fd;
	stub = dma_fence_get_stub();
	sync->out_file = sync_file_create(stub);
	dma_fence_put(stub);
	return sync->out_file ? 0 : -ENOMEM;
}

static int vgpu_exec_sync_copy_in(const struct drm_vgpu_exec *args,
				  struct vgpu_exec_sync *sync)
{
	u32 n = args->num_in_syncs;
	void *handles, *points = NULL;

	if (!n)
		return 0;
	handles = memdup_array_user(u64_to_user_ptr(args->in_syncs), n,
				    sizeof(u32));
	if (IS_ERR(handles))
		return PTR_ERR(handles);
	if (args->in_points) {
		points = memdup_array_user(u64_to_user_ptr(args->in_points), n,
					   sizeof(u64));
		if (IS_ERR(points)) {
			kfree(handles);
			return PTR_ERR(points);
		}
	}
	sync->in_handles = handles;
	sync->in_points = points;
	sync->num_in = n;
	return 0;
}

/**
 * vgpu_exec_sync_prepare() - everything of EXEC's sync fields that can fail
 * @drm: DRM device
 * @file: DRM file of the caller
 * @args: EXEC arguments, checked by vgpu_exec_sync_check()
 * @sync: filled in; vgpu_exec_sync_fini() releases it, whatever the result
 *
 * Return: 0, -EFAULT for an unreadable @in_syncs or @in_points, -ENOENT
 * for an unknown @out_sync, -EINVAL for an @in_fence_fd that is not a
 * sync_file, -EMFILE, -ENOMEM.
 */
int vgpu_exec_sync_prepare(struct drm_device *drm, struct drm_file *file,
			   const struct drm_vgpu_exec *args,
			   struct vgpu_exec_sync *sync)
{
	int ret;

	*sync = (struct vgpu_exec_sync){ .out_fd = -1 };
	ret = vgpu_exec_sync_copy_in(args, sync);
	if (ret)
		return ret;

	if (args->out_sync) {
		sync->out_sync = drm_syncobj_find(file, args->out_sync);
		if (VGPU_IOCTL_DBG(drm, !sync->out_sync))
			return -ENOENT;
		sync->out_point = args->out_point;
	}
	if (sync->out_point) {
		sync->out_chain = dma_fence_chain_alloc();
		if (!sync->out_chain)
			return -ENOMEM;
	}

	if (args->flags & DRM_VGPU_EXEC_IN_FENCE_FD) {
		sync->in_fence = sync_file_get_fence(args->in_fence_fd);
		if (VGPU_IOCTL_DBG(drm, !sync->in_fence))
			return -EINVAL;
	}

	if (args->flags & DRM_VGPU_EXEC_OUT_FENCE_FD)
		return vgpu_exec_sync_out_file(sync);
	return 0;
}

/**
 * vgpu_exec_sync_add_deps() - make the in-fences dependencies of the job
 * @drm: DRM device
 * @file: DRM file of the caller
 * @sync: prepared by vgpu_exec_sync_prepare()
 * @job: the job, initialised, not armed
 *
 * Return: 0, -ENOENT for an unknown in-syncobj, -EINVAL for one without a
 * fence or without the point asked for, -ENOMEM.
 */
int vgpu_exec_sync_add_deps(struct drm_device *drm, struct drm_file *file,
			    struct vgpu_exec_sync *sync,
			    struct drm_sched_job *job)
{
	struct dma_fence *in_fence;
	u32 i;
	int ret;

	for (i = 0; i < sync->num_in; i++) {
		u64 point = sync->in_points ? sync->in_points[i] : 0;

		ret = drm_sched_job_add_syncobj_dependency(job, file,
							   sync->in_handles[i],
							   point);
		if (VGPU_IOCTL_DBG(drm, ret))
			return ret;
	}
	if (!sync->in_fence)
		return 0;
	/* The job takes the reference, even when it fails. */
	in_fence = sync->in_fence;
	sync->in_fence = NULL;
	return drm_sched_job_add_dependency(job, in_fence);
}

/**
 * vgpu_exec_sync_signal() - hand the pushed job's fence out
 * @sync: prepared by vgpu_exec_sync_prepare()
 * @fence: the job's finished fence
 * @args: EXEC arguments; @args->out_fence_fd receives the fd
 *
 * Cannot fail: vgpu_exec_sync_prepare() allocated everything.
 */
void vgpu_exec_sync_signal(struct vgpu_exec_sync *sync,
			   struct dma_fence *fence,
			   struct drm_vgpu_exec *args)
{
	if (sync->out_chain) {
		drm_syncobj_add_point(sync->out_sync, sync->out_chain, fence,
				      sync->out_point);
		sync->out_chain = NULL;
	} else if (sync->out_sync) {
		drm_syncobj_replace_fence(sync->out_sync, fence);
	}
	if (sync->out_file) {
		dma_fence_put(sync->out_file->fence);
		sync->out_file->fence = dma_fence_get(fence);
		fd_install(sync->out_fd, sync->out_file->file);
		args->out_fence_fd = sync->out_fd;
		sync->out_file = NULL;
		sync->out_fd = -1;
	}
}

/**
 * vgpu_exec_sync_fini() - release what vgpu_exec_sync_prepare() took
 * @sync: prepared, signalled or not
 *
 * After a failed EXEC, this gives the reserved fd back and drops the
 * sync_file that never got one.
 */
void vgpu_exec_sync_fini(struct vgpu_exec_sync *sync)
{
	if (sync->out_file)
		fput(sync->out_file->file);
	if (sync->out_fd >= 0)
		put_unused_fd(sync->out_fd);
	dma_fence_chain_free(sync->out_chain);
	if (sync->out_sync)
		drm_syncobj_put(sync->out_sync);
	dma_fence_put(sync->in_fence);
	kfree(sync->in_points);
	kfree(sync->in_handles);
}
