// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/iopoll.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_fault.h"
#include "vgpu_queue.h"
#include "vgpu_reset.h"

/**
 * DOC: device reset
 *
 * A device that stops answering (an invalidation that never completes) is
 * reset as a whole: the schedulers stop, VGPU_CONTROL_RESET returns the
 * device to its power-on state (TLBs empty, queues disabled, counters
 * zero), and the driver programs it again from its own state: context
 * roots of the VMs that own contexts, the fault buffer, the rings.  Jobs
 * that were running end with -EIO; queued jobs run afterwards.
 */

/**
 * vgpu_reset_hw() - reset the device and wait until it is ready
 * @vdev: vgpu device
 *
 * Return: 0 or -ETIMEDOUT.
 */
int vgpu_reset_hw(struct vgpu_device *vdev)
{
	u32 status;

	vgpu_wr32(vdev, VGPU_REG_CONTROL, VGPU_CONTROL_RESET);
	return read_poll_timeout(vgpu_rd32, status, status & VGPU_STATUS_READY,
				 10, 100000, false, vdev, VGPU_REG_STATUS);
}

static void vgpu_reset_work(struct work_struct *work)
{
	struct vgpu_device *vdev = container_of(work, struct vgpu_device,
						reset.work);
	struct drm_device *drm = &vdev->drm;
	int idx;

	if (!drm_dev_enter(drm, &idx))
		return;
	drm_err(drm, "resetting the device: %s\n", vdev->reset.reason);
	vgpu_queues_stop(vdev);
	if (vgpu_reset_hw(vdev))
		drm_err(drm, "device not ready after reset\n");
	vgpu_fault_hw_init(vdev);
	vgpu_ctx_restore(vdev);
	vgpu_queues_restart(vdev);
	vdev->reset.count++;
	drm_dev_exit(idx);
}

/**
 * vgpu_reset_init() - set up the reset worker
 * @vdev: vgpu device
 */
void vgpu_reset_init(struct vgpu_device *vdev)
{
	INIT_WORK(&vdev->reset.work, vgpu_reset_work);
}

/**
 * vgpu_reset_schedule() - ask for a device reset
 * @vdev: vgpu device
 * @reason: logged when the reset runs
 *
 * Context: any.
 */
void vgpu_reset_schedule(struct vgpu_device *vdev, const char *reason)
{
	vdev->reset.reason = reason;
	schedule_work(&vdev->reset.work);
}
