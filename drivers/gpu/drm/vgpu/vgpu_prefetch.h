/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PREFETCH_H__
#define __VGPU_PREFETCH_H__

#include <linux/types.h>

#include "vgpu_prefetch_types.h"

/** VGPU_PREFETCH_MAX_SUGGEST - chunks one fault can suggest at most */
#define VGPU_PREFETCH_MAX_SUGGEST	64

void vgpu_prefetch_cfg_default(struct vgpu_prefetch_cfg *cfg);
void vgpu_prefetch_init(struct vgpu_prefetch *pf);
unsigned int vgpu_prefetch_fault(struct vgpu_prefetch *pf,
				 const struct vgpu_prefetch_cfg *cfg,
				 u64 chunk, u64 *out, unsigned int max);

bool vgpu_thrash_migrate_in(struct vgpu_thrash *t,
			    const struct vgpu_prefetch_cfg *cfg, u64 now);
bool vgpu_thrash_pinned(const struct vgpu_thrash *t, u64 now);

#endif /* __VGPU_PREFETCH_H__ */
