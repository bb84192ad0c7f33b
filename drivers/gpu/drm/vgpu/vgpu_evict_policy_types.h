/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_EVICT_POLICY_TYPES_H__
#define __VGPU_EVICT_POLICY_TYPES_H__

#include <linux/rbtree.h>
#include <linux/types.h>

struct mutex;

/** VGPU_EVICT_HIST - uncorrelated references remembered per unit (max K) */
#define VGPU_EVICT_HIST		2

/**
 * struct vgpu_evict_unit - what the eviction policy knows about one unit
 * @node: in &vgpu_evict_lru.tree while the unit is resident in VRAM.
 * @last: epoch of the last sampled access (0: never).
 * @hist: epochs of the last %VGPU_EVICT_HIST uncorrelated references,
 *	newest first (0: none).  Kept while the unit is out of VRAM, so a
 *	unit that comes back remembers its past (LRU-K's "retained
 *	information").
 * @seq: order of the last touch, breaks ties between equal epochs.
 * @refs: uncorrelated references counted over the unit's life.
 * @accesses: device accesses counted by the access counters.
 * @ctr_snap: access-counter total seen at the last sample.
 * @resident: on @node.
 *
 * A unit is whatever the VRAM pool evicts as a whole (a chunk of a pageable
 * BO, an ordinary BO: &struct vgpu_pool_unit embeds this).  Every field is
 * protected by the lock of the &struct vgpu_evict_lru the unit is tracked
 * by.
 */
struct vgpu_evict_unit {
	struct rb_node node;
	u64 last;
	u64 hist[VGPU_EVICT_HIST];
	u64 seq;
	u64 refs;
	u64 accesses;
	u32 ctr_snap;
	bool resident;
};

/**
 * struct vgpu_evict_policy_ops - an eviction policy
 * @name: name used by the module parameter and sysfs.
 * @desc: one line for humans.
 * @colder: true when @a should leave VRAM before @b.  A strict weak
 *	ordering over the sampled history; the tree is sorted by it.
 *
 * A policy is nothing but an ordering of the resident units by the
 * history the sampler collected: switching policies re-sorts the tree and
 * loses no history.
 */
struct vgpu_evict_policy_ops {
	const char *name;
	const char *desc;
	bool (*colder)(const struct vgpu_evict_unit *a,
		       const struct vgpu_evict_unit *b);
};

/**
 * struct vgpu_evict_stats - eviction-policy counters
 * @samples: sampling passes (epochs started).
 * @touches: unit accesses observed.
 * @refs: of those, uncorrelated references (new history entries).
 * @inserts: units that became resident.
 * @removes: units that left VRAM.
 * @switches: policy changes.
 */
struct vgpu_evict_stats {
	u64 samples;
	u64 touches;
	u64 refs;
	u64 inserts;
	u64 removes;
	u64 switches;
};

/**
 * struct vgpu_evict_lru - the resident units ordered coldest first
 * @lock: the owner's lock that protects this structure and every unit
 *	tracked by it; asserted by every function.
 * @ops: active policy.
 * @tree: resident units, sorted by @ops->colder (leftmost: coldest).
 * @epoch: current sampling epoch (starts at 1; 0 means "never").
 * @seq: touch sequence number.
 * @crp: correlated reference period in epochs (see the DOC).
 * @nr: units in @tree.
 * @stats: counters.
 */
struct vgpu_evict_lru {
	struct mutex *lock;
	const struct vgpu_evict_policy_ops *ops;
	struct rb_root_cached tree;
	u64 epoch;
	u64 seq;
	unsigned int crp;
	unsigned long nr;
	struct vgpu_evict_stats stats;
};

#endif /* __VGPU_EVICT_POLICY_TYPES_H__ */
