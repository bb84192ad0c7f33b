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

/*
 * VGPU_EVICT_POLICIES - every eviction policy, in the order sysfs lists
 * them; the first is the default.  A policy is one file defining
 * ``vgpu_evict_<name>_ops`` (see vgpu_evict_lru.c), its line here and in
 * the Makefile, and its case in tests/vgpu_kunit_evict_policy.c.
 */
#define VGPU_EVICT_POLICIES(X)	\
	X(lru)			\
	X(lru2)

#define VGPU_EVICT_POLICY_DECLARE(name) \
	extern const struct vgpu_evict_policy_ops vgpu_evict_##name##_ops;
VGPU_EVICT_POLICIES(VGPU_EVICT_POLICY_DECLARE)
#undef VGPU_EVICT_POLICY_DECLARE

#define VGPU_EVICT_POLICY_ID(name) VGPU_EVICT_ID_##name,
/**
 * enum vgpu_evict_policy_id - index of each policy in %VGPU_EVICT_POLICIES
 * @VGPU_EVICT_NR: number of eviction policies
 */
enum vgpu_evict_policy_id {
	VGPU_EVICT_POLICIES(VGPU_EVICT_POLICY_ID)
	VGPU_EVICT_NR
};
#undef VGPU_EVICT_POLICY_ID

/**
 * vgpu_evict_touched_before() - LRU order: was @a touched before @b?
 * @a: unit
 * @b: unit
 *
 * Older last touch first; ties by touch sequence.  The tie-break every
 * policy ends with.
 */
static inline bool vgpu_evict_touched_before(const struct vgpu_evict_unit *a,
					     const struct vgpu_evict_unit *b)
{
	if (a->last != b->last)
		return a->last < b->last;
	return a->seq < b->seq;
}

int vgpu_evict_policy_lookup(const char *name);
const struct vgpu_evict_policy_ops *vgpu_evict_policy_get(unsigned int i);

void vgpu_evict_lru_init(struct vgpu_evict_lru *lru, struct mutex *lock,
			 const struct vgpu_evict_policy_ops *ops,
			 unsigned int crp);
void vgpu_evict_lru_set_policy(struct vgpu_evict_lru *lru,
			       const struct vgpu_evict_policy_ops *ops);
void vgpu_evict_unit_init(struct vgpu_evict_unit *c);

u64 vgpu_evict_lru_advance(struct vgpu_evict_lru *lru);
void vgpu_evict_lru_insert(struct vgpu_evict_lru *lru,
			   struct vgpu_evict_unit *c);
void vgpu_evict_lru_remove(struct vgpu_evict_lru *lru,
			   struct vgpu_evict_unit *c);
void vgpu_evict_lru_touch(struct vgpu_evict_lru *lru,
			  struct vgpu_evict_unit *c);
u32 vgpu_evict_lru_sample_counter(struct vgpu_evict_lru *lru,
				  struct vgpu_evict_unit *c, u32 total);

struct vgpu_evict_unit *vgpu_evict_lru_coldest(struct vgpu_evict_lru *lru);
struct vgpu_evict_unit *vgpu_evict_lru_next(struct vgpu_evict_lru *lru,
					    struct vgpu_evict_unit *c);

/**
 * vgpu_evict_for_each_coldest() - walk the resident units, coldest first
 * @lru: the ordering
 * @c: cursor (&struct vgpu_evict_unit *)
 *
 * The caller holds @lru's lock and must not change the tree while walking
 * (pick a victim, stop, then remove it).
 */
#define vgpu_evict_for_each_coldest(lru, c) \
	for ((c) = vgpu_evict_lru_coldest(lru); (c); \
	     (c) = vgpu_evict_lru_next(lru, c))

#endif /* __VGPU_EVICT_POLICY_H__ */
