// SPDX-License-Identifier: MIT
/*
 * libvgpu: submission and synchronisation.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
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
	struct drm_vgpu_exec ex = {
		.vm_id = vm_id,
		.queue = queue,
		.cmds = (uintptr_t)cmd->dw,
		.cmds_size = cmd->len * sizeof(uint32_t),
		.in_syncs = (uintptr_t)in_syncs,
		.num_in_syncs = num_in_syncs,
		.out_sync = out_sync,
	};

	if (cmd->error)
		return cmd->error;
	return vgpu_exec(dev, &ex);
}

int vgpu_syncobj_create(struct vgpu_dev *dev, uint32_t *handle)
{
	return drmSyncobjCreate(dev->fd, 0, handle) ? -errno : 0;
}

int vgpu_syncobj_destroy(struct vgpu_dev *dev, uint32_t handle)
{
	return drmSyncobjDestroy(dev->fd, handle) ? -errno : 0;
}

int vgpu_syncobj_wait(struct vgpu_dev *dev, uint32_t handle, int64_t timeout_ns)
{
	struct timespec ts;
	int64_t deadline = INT64_MAX;

	if (timeout_ns >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		deadline = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec +
			   timeout_ns;
	}
	return drmSyncobjWait(dev->fd, &handle, 1, deadline,
			      DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) ?
	       -errno : 0;
}

int vgpu_syncobj_status(struct vgpu_dev *dev, uint32_t handle)
{
	struct sync_file_info info;
	int fd, ret;

	if (drmSyncobjExportSyncFile(dev->fd, handle, &fd))
		return -errno;
	memset(&info, 0, sizeof(info));
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info) ? -errno : info.status;
	close(fd);
	return ret;
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
