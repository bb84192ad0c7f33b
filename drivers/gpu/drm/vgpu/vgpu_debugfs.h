/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_DEBUGFS_H__
#define __VGPU_DEBUGFS_H__

struct vgpu_device;

void vgpu_debugfs_register(struct vgpu_device *vdev);
void vgpu_counters_reset(struct vgpu_device *vdev);

#endif /* __VGPU_DEBUGFS_H__ */
