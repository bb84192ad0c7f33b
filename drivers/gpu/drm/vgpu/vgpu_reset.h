/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_RESET_H__
#define __VGPU_RESET_H__

#include <linux/mutex.h>
#include <linux/workqueue.h>

struct pci_error_handlers;
struct vgpu_device;

/**
 * struct vgpu_reset - device reset state
 * @lock: one reset at a time (the worker, debugfs, an FLR from
 *	&pci_error_handlers.reset_prepare to .reset_done); outside every
 *	other lock of the driver.
 * @work: runs the reset.
 * @reason: why the last reset was scheduled.
 * @count: resets done (written under @lock).
 */
struct vgpu_reset {
	struct mutex lock;
	struct work_struct work;
	const char *reason;
	unsigned int count;
};

void vgpu_reset_init(struct vgpu_device *vdev);
void vgpu_reset_schedule(struct vgpu_device *vdev, const char *reason);
int vgpu_reset_hw(struct vgpu_device *vdev);
int vgpu_reset_now(struct vgpu_device *vdev, const char *reason);

extern const struct pci_error_handlers vgpu_pci_err_handlers;

#endif /* __VGPU_RESET_H__ */
