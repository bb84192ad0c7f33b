/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_POOL_H__
#define __VGPU_POOL_H__

#include <linux/types.h>

#include "vgpu_pool_types.h"

struct vgpu_device;

int vgpu_pool_init(struct vgpu_device *vdev);
void vgpu_pool_fini(struct vgpu_device *vdev);

void vgpu_pool_lock(struct vgpu_pool *pool);
void vgpu_pool_unlock(struct vgpu_pool *pool);
bool vgpu_pool_lock_unless_held(struct vgpu_pool *pool);

void vgpu_pool_unit_init(struct vgpu_pool_unit *u,
			 const struct vgpu_pool_unit_ops *ops);
void vgpu_pool_insert_locked(struct vgpu_pool *pool, struct vgpu_pool_unit *u,
			     u64 size, bool touch);
void vgpu_pool_remove_locked(struct vgpu_pool *pool, struct vgpu_pool_unit *u);
void vgpu_pool_touch_locked(struct vgpu_pool *pool, struct vgpu_pool_unit *u);
void vgpu_pool_touch(struct vgpu_pool *pool, struct vgpu_pool_unit *u);

void vgpu_pool_begin_locked(struct vgpu_pool *pool);
void vgpu_pool_begin(struct vgpu_pool *pool);
void vgpu_pool_hold(struct vgpu_pool *pool, u64 seq);
u32 vgpu_pool_read_ctr(struct vgpu_pool *pool, u64 start, u64 size);
void vgpu_pool_sample_locked(struct vgpu_pool *pool);
int vgpu_pool_make_room_locked(struct vgpu_pool *pool, u64 start, u64 end);

/**
 * vgpu_pool_unit_resident() - does the unit hold VRAM?
 * @u: unit
 *
 * Context: the pool lock held.
 * Return: true while the unit is in the eviction order.
 */
static inline bool vgpu_pool_unit_resident(const struct vgpu_pool_unit *u)
{
	return u->ev.resident;
}

#endif /* __VGPU_POOL_H__ */
