// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/interrupt.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_drv.h"
#include "vgpu_fault.h"
#include "vgpu_irq.h"
#include "vgpu_queue.h"

/**
 * DOC: interrupts
 *
 * Two MSI-X vectors: %VGPU_MSIX_VEC_GENERAL for fences and queue errors,
 * %VGPU_MSIX_VEC_FAULT for the fault buffer.  Each is a threaded
 * interrupt.  The hard half only reads and acknowledges: it clears its
 * bits in INT_STATUS first, then reads and clears the per-queue bitmaps
 * (FENCE_QUEUES, ERROR_QUEUES), so that an event arriving meanwhile raises
 * a new interrupt rather than being lost, and hands the bits to the
 * thread.  The thread does the work: signal fences, start queue recovery,
 * drain the fault buffer.
 */

static irqreturn_t vgpu_irq_general(int irq, void *arg)
{
	struct vgpu_device *vdev = arg;
	u32 status, bits;

	status = vgpu_rd32(vdev, VGPU_REG_INT_STATUS) & VGPU_INT_GENERAL_MASK;
	if (!status)
		return IRQ_NONE;
	vgpu_wr32(vdev, VGPU_REG_INT_STATUS, status);
	atomic64_inc(&vdev->irq.count[0]);

	if (status & VGPU_INT_FENCE) {
		bits = vgpu_rd32(vdev, VGPU_REG_FENCE_QUEUES);
		vgpu_wr32(vdev, VGPU_REG_FENCE_QUEUES, bits);
		atomic_or(bits, &vdev->irq.fence_queues);
	}
	if (status & VGPU_INT_QUEUE_ERROR) {
		bits = vgpu_rd32(vdev, VGPU_REG_ERROR_QUEUES);
		vgpu_wr32(vdev, VGPU_REG_ERROR_QUEUES, bits);
		atomic_or(bits, &vdev->irq.error_queues);
	}
	return IRQ_WAKE_THREAD;
}

static irqreturn_t vgpu_irq_general_thread(int irq, void *arg)
{
	struct vgpu_device *vdev = arg;
	unsigned long fenced, errors;
	unsigned int i;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return IRQ_HANDLED;
	fenced = atomic_xchg(&vdev->irq.fence_queues, 0);
	errors = atomic_xchg(&vdev->irq.error_queues, 0);
	for_each_set_bit(i, &fenced, vdev->nr_queues)
		vgpu_queue_complete(&vdev->queues[i]);
	for_each_set_bit(i, &errors, vdev->nr_queues) {
		vgpu_queue_complete(&vdev->queues[i]);
		vgpu_queue_error(&vdev->queues[i]);
	}
	drm_dev_exit(idx);
	return IRQ_HANDLED;
}

static irqreturn_t vgpu_irq_fault(int irq, void *arg)
{
	struct vgpu_device *vdev = arg;
	u32 status;

	status = vgpu_rd32(vdev, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT_MASK;
	if (!status)
		return IRQ_NONE;
	vgpu_wr32(vdev, VGPU_REG_INT_STATUS, status);
	atomic64_inc(&vdev->irq.count[1]);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t vgpu_irq_fault_thread(int irq, void *arg)
{
	struct vgpu_device *vdev = arg;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return IRQ_HANDLED;
	vgpu_fault_drain(vdev);
	drm_dev_exit(idx);
	return IRQ_HANDLED;
}

/**
 * vgpu_irq_init() - request both vectors (interrupts still disabled)
 * @vdev: vgpu device
 *
 * Return: 0 or a negative errno.
 */
int vgpu_irq_init(struct vgpu_device *vdev)
{
	struct pci_dev *pdev = to_pci_dev(vdev->drm.dev);
	int ret;

	vgpu_wr32(vdev, VGPU_REG_INT_ENABLE, 0);
	ret = request_threaded_irq(pci_irq_vector(pdev, VGPU_MSIX_VEC_GENERAL),
				   vgpu_irq_general, vgpu_irq_general_thread,
				   IRQF_ONESHOT, "vgpu", vdev);
	if (ret)
		return ret;
	ret = request_threaded_irq(pci_irq_vector(pdev, VGPU_MSIX_VEC_FAULT),
				   vgpu_irq_fault, vgpu_irq_fault_thread,
				   IRQF_ONESHOT, "vgpu-fault", vdev);
	if (ret)
		free_irq(pci_irq_vector(pdev, VGPU_MSIX_VEC_GENERAL), vdev);
	return ret;
}

/**
 * vgpu_irq_enable() - unmask every interrupt cause the driver handles
 * @vdev: vgpu device
 */
void vgpu_irq_enable(struct vgpu_device *vdev)
{
	vgpu_wr32(vdev, VGPU_REG_INT_STATUS, ~0u);
	vgpu_wr32(vdev, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE |
		  VGPU_INT_QUEUE_ERROR | VGPU_INT_FAULT_MASK);
}

/**
 * vgpu_irq_fini() - mask and free both vectors
 * @vdev: vgpu device
 */
void vgpu_irq_fini(struct vgpu_device *vdev)
{
	struct pci_dev *pdev = to_pci_dev(vdev->drm.dev);

	vgpu_wr32(vdev, VGPU_REG_INT_ENABLE, 0);
	free_irq(pci_irq_vector(pdev, VGPU_MSIX_VEC_FAULT), vdev);
	free_irq(pci_irq_vector(pdev, VGPU_MSIX_VEC_GENERAL), vdev);
}

/**
 * vgpu_irq_suspend() - hold off one vector's handlers, waiting for those
 *	running (before a device reset)
 * @vdev: vgpu device
 * @vec: %VGPU_MSIX_VEC_GENERAL or %VGPU_MSIX_VEC_FAULT
 *
 * An interrupt raised meanwhile is handled at vgpu_irq_resume().
 *
 * Context: process, sleeps until the vector's thread is idle.
 */
void vgpu_irq_suspend(struct vgpu_device *vdev, unsigned int vec)
{
	disable_irq(pci_irq_vector(to_pci_dev(vdev->drm.dev), vec));
}

/**
 * vgpu_irq_resume() - undo vgpu_irq_suspend()
 * @vdev: vgpu device
 * @vec: the vector
 */
void vgpu_irq_resume(struct vgpu_device *vdev, unsigned int vec)
{
	enable_irq(pci_irq_vector(to_pci_dev(vdev->drm.dev), vec));
}
