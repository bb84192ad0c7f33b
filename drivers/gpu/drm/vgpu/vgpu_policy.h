/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_POLICY_H__
#define __VGPU_POLICY_H__

#include <linux/types.h>

struct vgpu_device;

/**
 * enum vgpu_place_policy - where a faulting or evicted range goes
 * @VGPU_PLACE_MIGRATE: migrate-on-fault: the data moves into VRAM.
 * @VGPU_PLACE_REMOTE: map-remote with thrashing detection: a chunk that
 *	bounces too often stays in system memory and is mapped from there.
 * @VGPU_PLACE_NR: number of policies.
 */
enum vgpu_place_policy {
	VGPU_PLACE_MIGRATE,
	VGPU_PLACE_REMOTE,
	VGPU_PLACE_NR,
};

/**
 * struct vgpu_policy - the device's memory-management policies
 * @evict: current eviction policy, an index of %VGPU_EVICT_POLICIES.
 * @place: current &enum vgpu_place_policy.
 * @evict_supported: bit n set: eviction policy n is implemented.
 * @place_supported: bit n set: placement policy n is implemented.
 *
 * Written with WRITE_ONCE() by the setters, read with READ_ONCE(): a
 * policy change takes effect at the next decision that reads it.
 */
struct vgpu_policy {
	u32 evict;
	u32 place;
	u32 evict_supported;
	u32 place_supported;
};

void vgpu_policy_init(struct vgpu_device *vdev);
void vgpu_policy_set_supported(struct vgpu_device *vdev, u32 evict, u32 place);
const char *vgpu_policy_evict_name(u32 policy);
const char *vgpu_policy_place_name(u32 policy);
int vgpu_policy_evict_parse(const char *buf);
int vgpu_policy_place_parse(const char *buf);
u32 vgpu_policy_evict(struct vgpu_device *vdev);
u32 vgpu_policy_place(struct vgpu_device *vdev);
int vgpu_policy_set_evict(struct vgpu_device *vdev, u32 policy);
int vgpu_policy_set_place(struct vgpu_device *vdev, u32 policy);
bool vgpu_policy_evict_supported(struct vgpu_device *vdev, u32 policy);
bool vgpu_policy_place_supported(struct vgpu_device *vdev, u32 policy);

#endif /* __VGPU_POLICY_H__ */
