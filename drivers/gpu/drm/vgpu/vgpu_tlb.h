/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_TLB_H__
#define __VGPU_TLB_H__

#include <linux/types.h>

struct vgpu_device;

/** VGPU_TLB_INVAL_TIMEOUT_US - how long an invalidation may take */
#define VGPU_TLB_INVAL_TIMEOUT_US	(100 * 1000)

void vgpu_tlb_init(struct vgpu_device *vdev);
int vgpu_tlb_inval_all(struct vgpu_device *vdev);
int vgpu_tlb_inval_context(struct vgpu_device *vdev, u32 ctx);
int vgpu_tlb_inval_range(struct vgpu_device *vdev, u32 ctx, u64 va, u64 size);

#endif /* __VGPU_TLB_H__ */
