// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include "vgpu_evict_policy.h"

/*
 * lru: the unit touched longest ago goes first.  Classic LRU over the
 * sampled recency; a stream larger than the free VRAM pushes out the hot
 * set.
 */
static bool vgpu_evict_lru_colder(const struct vgpu_evict_unit *a,
				  const struct vgpu_evict_unit *b)
{
	return vgpu_evict_touched_before(a, b);
}

const struct vgpu_evict_policy_ops vgpu_evict_lru_ops = {
	.name = "lru",
	.desc = "least recently used (sampled recency)",
	.colder = vgpu_evict_lru_colder,
};
