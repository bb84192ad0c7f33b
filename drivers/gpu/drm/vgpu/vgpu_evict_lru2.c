// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include "vgpu_evict_policy.h"

/*
 * lru2: LRU-K with K = 2.  The unit whose second-last uncorrelated
 * reference is oldest goes first; a unit with a single reference is
 * infinitely far back and goes before any other (among those, LRU order).
 * A scan touches each unit once, so it cannot push out units in repeated
 * use.
 */
static bool vgpu_evict_lru2_colder(const struct vgpu_evict_unit *a,
				   const struct vgpu_evict_unit *b)
{
	/* hist[1] == 0: fewer than two references. */
	if (a->hist[1] != b->hist[1])
		return a->hist[1] < b->hist[1];
	return vgpu_evict_touched_before(a, b);
}

const struct vgpu_evict_policy_ops vgpu_evict_lru2_ops = {
	.name = "lru2",
	.desc = "LRU-K, K=2: oldest second-last reference first",
	.colder = vgpu_evict_lru2_colder,
};
