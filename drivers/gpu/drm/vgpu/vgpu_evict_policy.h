/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_EVICT_POLICY_H__
#define __VGPU_EVICT_POLICY_H__

#include <linux/types.h>

#include "vgpu_evict_policy_types.h"

struct mutex;

/** VGPU_EVICT_CRP_DEFAULT - default correlated reference period, epochs */
#define VGPU_EVICT_CRP_DEFAULT	1

extern const struct vgpu_evict_policy_ops vgpu_evict_lru_ops;
extern const struct vgpu_evict_policy_ops vgpu_evict_lru2_ops;

const struct vgpu_evict_policy_ops *vgpu_evict_policy_find(const char *name);
const struct vgpu_evict_policy_ops *vgpu_evict_policy_get(unsigned int i);

void vgpu_evict_lru_init(struct vgpu_evict_lru *lru, struct mutex *lock,
			 const struct vgpu_evict_policy_ops *ops,
			 unsigned int crp);
void vgpu_evict_lru_set_policy(struct vgpu_evict_lru *lru,
			       const struct vgpu_evict_policy_ops *ops);
void vgpu_evict_chunk_init(struct vgpu_evict_chunk *c);

u64 vgpu_evict_lru_advance(struct vgpu_evict_lru *lru);
void vgpu_evict_lru_insert(struct vgpu_evict_lru *lru,
			   struct vgpu_evict_chunk *c);
void vgpu_evict_lru_remove(struct vgpu_evict_lru *lru,
			   struct vgpu_evict_chunk *c);
void vgpu_evict_lru_touch(struct vgpu_evict_lru *lru,
			  struct vgpu_evict_chunk *c);
u32 vgpu_evict_lru_sample_counter(struct vgpu_evict_lru *lru,
				  struct vgpu_evict_chunk *c, u32 total);

struct vgpu_evict_chunk *vgpu_evict_lru_coldest(struct vgpu_evict_lru *lru);
struct vgpu_evict_chunk *vgpu_evict_lru_next(struct vgpu_evict_lru *lru,
					     struct vgpu_evict_chunk *c);

/**
 * vgpu_evict_for_each_coldest() - walk the resident chunks, coldest first
 * @lru: the ordering
 * @c: cursor (&struct vgpu_evict_chunk *)
 *
 * The caller holds @lru's lock and must not change the tree while walking
 * (pick a victim, stop, then remove it).
 */
#define vgpu_evict_for_each_coldest(lru, c) \
	for ((c) = vgpu_evict_lru_coldest(lru); (c); \
	     (c) = vgpu_evict_lru_next(lru, c))

#endif /* __VGPU_EVICT_POLICY_H__ */
