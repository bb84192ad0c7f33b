/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_RESET_H__
#define __VGPU_RESET_H__

#include <linux/workqueue.h>

struct vgpu_device;

/**
 * struct vgpu_reset - device reset state
 * @work: runs the reset.
 * @reason: why the last reset was scheduled.
 * @count: resets done.
 */
struct vgpu_reset {
	struct work_struct work;
	const char *reason;
	unsigned int count;
};

void vgpu_reset_init(struct vgpu_device *vdev);
void vgpu_reset_schedule(struct vgpu_device *vdev, const char *reason);
int vgpu_reset_hw(struct vgpu_device *vdev);

#endif /* __VGPU_RESET_H__ */
