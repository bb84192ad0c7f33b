/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_IRQ_H__
#define __VGPU_IRQ_H__

#include <linux/atomic.h>

struct vgpu_device;

/**
 * struct vgpu_irq - interrupt state
 * @fence_queues: FENCE_QUEUES bits acknowledged by the hard half, for the
 *	thread.
 * @error_queues: ERROR_QUEUES bits acknowledged by the hard half.
 * @count: interrupts taken, per vector.
 */
struct vgpu_irq {
	atomic_t fence_queues;
	atomic_t error_queues;
	atomic64_t count[2];
};

int vgpu_irq_init(struct vgpu_device *vdev);
void vgpu_irq_fini(struct vgpu_device *vdev);
void vgpu_irq_enable(struct vgpu_device *vdev);
void vgpu_irq_suspend(struct vgpu_device *vdev, unsigned int vec);
void vgpu_irq_resume(struct vgpu_device *vdev, unsigned int vec);

#endif /* __VGPU_IRQ_H__ */
