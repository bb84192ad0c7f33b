// SPDX-License-Identifier: MIT
/*
 * libvgpu: submission and synchronisation.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include <xf86drm.h>

#include "libvgpu.h"

int vgpu_exec(struct vgpu_dev *dev, struct drm_vgpu_exec *args)
{
	return drmIoctl(dev->fd, DRM_IOCTL_VGPU_EXEC, args) ? -errno : 0;
}

void vgpu_exec_inline(struct drm_vgpu_exec *args, uint32_t queue,
		      const struct vgpu_cmd *cmd)
{
	memset(args, 0, sizeof(*args));
	args->queue = queue;
	args->cmds = (uintptr_t)cmd->dw;
	args->cmds_size = cmd->len * sizeof(uint32_t);
}

int vgpu_submit(struct vgpu_dev *dev, uint32_t queue, const struct vgpu_cmd *cmd,
		const uint32_t *in_syncs, uint32_t num_in_syncs, uint32_t out_sync)
{
	return vgpu_submit_in(dev, 0, queue, cmd, in_syncs, num_in_syncs,
			      out_sync);
}

int vgpu_submit_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t queue,
		   const struct vgpu_cmd *cmd, const uint32_t *in_syncs,
		   uint32_t num_in_syncs, uint32_t out_sync)
{
	struct drm_vgpu_exec ex;

	if (cmd->error)
		return cmd->error;
	vgpu_exec_inline(&ex, queue, cmd);
	ex.vm_id = vm_id;
	ex.in_syncs = (uintptr_t)in_syncs;
	ex.num_in_syncs = num_in_syncs;
	ex.out_sync = out_sync;
	return vgpu_exec(dev, &ex);
}

int vgpu_submit_sync(struct vgpu_dev *dev, uint32_t queue,
		     const struct vgpu_cmd *cmd, const struct vgpu_sync *sync)
{
	struct drm_vgpu_exec ex;
	int ret;

	if (cmd->error)
		return cmd->error;
	vgpu_exec_inline(&ex, queue, cmd);
	ex.in_syncs = (uintptr_t)sync->in_syncs;
	ex.in_points = (uintptr_t)sync->in_points;
	ex.num_in_syncs = sync->num_in_syncs;
	ex.out_sync = sync->out_sync;
	ex.out_point = sync->out_point;
	if (sync->in_fence_fd >= 0) {
		ex.flags |= DRM_VGPU_EXEC_IN_FENCE_FD;
		ex.in_fence_fd = sync->in_fence_fd;
	}
	if (sync->out_fence_fd)
		ex.flags |= DRM_VGPU_EXEC_OUT_FENCE_FD;
	ret = vgpu_exec(dev, &ex);
	if (!ret && sync->out_fence_fd)
		*sync->out_fence_fd = ex.out_fence_fd;
	return ret;
}

int vgpu_syncobj_create(struct vgpu_dev *dev, uint32_t *handle)
{
	return drmSyncobjCreate(dev->fd, 0, handle) ? -errno : 0;
}

int vgpu_syncobj_destroy(struct vgpu_dev *dev, uint32_t handle)
{
	return drmSyncobjDestroy(dev->fd, handle) ? -errno : 0;
}

/* The CLOCK_MONOTONIC deadline @timeout_ns from now; <0: none. */
static int64_t deadline_ns(int64_t timeout_ns)
{
	struct timespec ts;

	if (timeout_ns < 0)
		return INT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec + timeout_ns;
}

int vgpu_syncobj_wait(struct vgpu_dev *dev, uint32_t handle, int64_t timeout_ns)
{
	return drmSyncobjWait(dev->fd, &handle, 1, deadline_ns(timeout_ns),
			      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) ?
	       -errno : 0;
}

int vgpu_syncobj_status(struct vgpu_dev *dev, uint32_t handle)
{
	int fd, ret;

	if (drmSyncobjExportSyncFile(dev->fd, handle, &fd))
		return -errno;
	ret = vgpu_sync_file_status(fd);
	close(fd);
	return ret;
}

int vgpu_timeline_wait(struct vgpu_dev *dev, uint32_t handle, uint64_t point,
		       int64_t timeout_ns)
{
	return drmSyncobjTimelineWait(dev->fd, &handle, &point, 1,
				      deadline_ns(timeout_ns),
				      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				      NULL) ? -errno : 0;
}

int vgpu_timeline_query(struct vgpu_dev *dev, uint32_t handle, uint64_t *point)
{
	return drmSyncobjQuery(dev->fd, &handle, point, 1) ? -errno : 0;
}

int vgpu_sync_file_wait(int fd, int64_t timeout_ns)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ms = timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000);
	int ret;

	ret = poll(&p, 1, ms);
	if (ret < 0)
		return -errno;
	if (!ret)
		return -ETIME;
	return p.revents & POLLIN ? 0 : -EINVAL;
}

int vgpu_sync_file_status(int fd)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	return ioctl(fd, SYNC_IOC_FILE_INFO, &info) ? -errno : info.status;
}

int vgpu_sync_file_merge(int fd1, int fd2, int *merged)
{
	struct sync_merge_data m;

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "libvgpu");
	m.fd2 = fd2;
	if (ioctl(fd1, SYNC_IOC_MERGE, &m))
		return -errno;
	*merged = m.fence;
	return 0;
}

int vgpu_run(struct vgpu_dev *dev, uint32_t queue, const struct vgpu_cmd *cmd,
	     int64_t timeout_ns)
{
	return vgpu_run_in(dev, 0, queue, cmd, timeout_ns);
}

int vgpu_run_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t queue,
		const struct vgpu_cmd *cmd, int64_t timeout_ns)
{
	uint32_t sync;
	int ret;

	ret = vgpu_syncobj_create(dev, &sync);
	if (ret)
		return ret;
	ret = vgpu_submit_in(dev, vm_id, queue, cmd, NULL, 0, sync);
	if (!ret)
		ret = vgpu_syncobj_wait(dev, sync, timeout_ns);
	if (!ret) {
		ret = vgpu_syncobj_status(dev, sync);
		if (ret > 0)
			ret = 0;
	}
	vgpu_syncobj_destroy(dev, sync);
	return ret;
}
