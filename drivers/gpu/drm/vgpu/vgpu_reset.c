// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/iopoll.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_fault.h"
#include "vgpu_irq.h"
#include "vgpu_queue.h"
#include "vgpu_reset.h"

/**
 * DOC: device reset
 *
 * The whole device is reset in three cases: an invalidation that never
 * completes (the device stopped answering), a write of 1 to debugfs
 * ``reset``, and a PCI function-level reset (``echo 1 >
 * /sys/bus/pci/devices/<bdf>/reset``, or any other reset through
 * pci_reset_function(), which calls &pci_error_handlers.reset_prepare and
 * .reset_done around it).  A hung or faulting job is not one of them: the
 * timeout handler resets its queue only (see "hardware queues and job
 * submission").
 *
 * The device's reset (hardware.rst, "Reset") returns it to its power-on
 * state — TLBs empty, queues disabled, roots, fault buffer and interrupt
 * enables cleared, counters zero — and keeps VRAM contents: BOs, page
 * tables and the kernel's copy-engine mappings survive, and the driver
 * evicts nothing.  Around it the driver
 *
 * 1. quiesces (vgpu_reset_quiesce(), after cancelling a scheduled reset
 *    unless it is that reset, under &vgpu_reset.lock): suspends the fault
 *    interrupt (waiting for the fault thread, whose migrations
 *    still complete), stops every scheduler and its timeout handler with
 *    the jobs left on the rings, suspends the general interrupt, signals
 *    the fences the device has already passed, then takes the context
 *    and TLB locks, so that no root, counter or invalidation register is
 *    touched until the end, and folds the counters (per-client counters
 *    and the kept ones do not go backwards);
 * 2. resets (CONTROL_RESET; after an FLR the device is already reset, and
 *    this only waits for READY);
 * 3. restores (vgpu_reset_resume()): the fault buffer, every context root,
 *    the interrupt enables, and each ring with the jobs that were on it,
 *    which run again from their start, on the context they had.
 *
 * So no job fails because of a device reset: a job the reset cut short
 * runs again whole, its data intact in VRAM or system memory (a stream
 * that reads what it writes itself sees its own first writes: like on
 * hardware that replays innocent work after a reset).  Jobs of banned VMs
 * fail with -ECANCELED as always.  &vgpu_reset.count counts resets (sysfs
 * ``counters/device_resets``).  A CPU access to VRAM through the BAR
 * during an FLR (memory decoding is off) reads ones and loses writes, as
 * on hardware.
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

/* Step 1 of "device reset": nothing touches the device after this. */
static void vgpu_reset_quiesce(struct vgpu_device *vdev)
{
	u32 i;

	vgpu_irq_suspend(vdev, VGPU_MSIX_VEC_FAULT);
	vgpu_queues_stop(vdev);
	vgpu_irq_suspend(vdev, VGPU_MSIX_VEC_GENERAL);
	/* A job done before the reset must not run again. */
	for (i = 0; i < vdev->nr_queues; i++)
		vgpu_queue_complete(&vdev->queues[i]);
	mutex_lock(&vdev->ctx.lock);
	mutex_lock(&vdev->tlb.lock);
	vgpu_ctx_fold_counters_locked(vdev);
}

/* Step 3: program the device again and run what was on the rings. */
static void vgpu_reset_resume(struct vgpu_device *vdev)
{
	if (vgpu_reset_hw(vdev))
		drm_err(&vdev->drm, "device not ready after reset\n");
	vgpu_fault_hw_init(vdev);
	vgpu_ctx_restore_locked(vdev);
	mutex_unlock(&vdev->tlb.lock);
	mutex_unlock(&vdev->ctx.lock);
	vgpu_irq_enable(vdev);
	vgpu_irq_resume(vdev, VGPU_MSIX_VEC_GENERAL);
	vgpu_queues_restart(vdev);
	vgpu_irq_resume(vdev, VGPU_MSIX_VEC_FAULT);
	WRITE_ONCE(vdev->reset.count, vdev->reset.count + 1);
}

/* A whole reset, under &vgpu_reset.lock; @err: the device misbehaved. */
static void vgpu_reset_run(struct vgpu_device *vdev, bool err,
			   const char *reason)
{
	mutex_lock(&vdev->reset.lock);
	if (err)
		drm_err(&vdev->drm, "resetting the device: %s\n", reason);
	else
		drm_info(&vdev->drm, "resetting the device: %s\n", reason);
	vgpu_reset_quiesce(vdev);
	vgpu_reset_resume(vdev);
	mutex_unlock(&vdev->reset.lock);
}

static void vgpu_reset_work(struct work_struct *work)
{
	struct vgpu_device *vdev = container_of(work, struct vgpu_device,
						reset.work);
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return;
	vgpu_reset_run(vdev, true, vdev->reset.reason);
	drm_dev_exit(idx);
}

static void vgpu_pci_reset_prepare(struct pci_dev *pdev)
{
	struct vgpu_device *vdev = pci_get_drvdata(pdev);

	/* One reset at a time: the worker's is done or cancelled. */
	cancel_work_sync(&vdev->reset.work);
	mutex_lock(&vdev->reset.lock);
	drm_info(&vdev->drm, "function-level reset\n");
	vgpu_reset_quiesce(vdev);
}

static void vgpu_pci_reset_done(struct pci_dev *pdev)
{
	struct vgpu_device *vdev = pci_get_drvdata(pdev);

	vgpu_reset_resume(vdev);
	mutex_unlock(&vdev->reset.lock);
}

/* pci_reset_function() (sysfs ``reset``, VFIO...) calls these around it. */
const struct pci_error_handlers vgpu_pci_err_handlers = {
	.reset_prepare = vgpu_pci_reset_prepare,
	.reset_done = vgpu_pci_reset_done,
};

/**
 * vgpu_reset_init() - set up the reset worker
 * @vdev: vgpu device
 */
void vgpu_reset_init(struct vgpu_device *vdev)
{
	mutex_init(&vdev->reset.lock);
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

/**
 * vgpu_reset_now() - reset the device on request and wait until it runs again
 * @vdev: vgpu device
 * @reason: logged
 *
 * Context: process, sleeps; not from the reset worker.
 * Return: 0, or -ENODEV if the device is gone.
 */
int vgpu_reset_now(struct vgpu_device *vdev, const char *reason)
{
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	cancel_work_sync(&vdev->reset.work);
	vgpu_reset_run(vdev, false, reason);
	drm_dev_exit(idx);
	return 0;
}
