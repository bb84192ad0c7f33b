/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_ADMIT_TYPES_H__
#define __VGPU_ADMIT_TYPES_H__

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/** VGPU_ADMIT_ORDERS - size classes of &vgpu_admit.by_order (log2 of bytes) */
#define VGPU_ADMIT_ORDERS	64

/**
 * struct vgpu_admit - what the device's BOs have been promised (vgpu_admit.c)
 * @lock: protects @system, @vram, @pinned, @by_order and @bos.
 * @system: bytes of admitted BOs that live in system memory only: system
 *	and pageable BOs, kernel BOs in system memory.
 * @vram: bytes of admitted user BOs that may live in VRAM: VRAM and
 *	VRAM|system BOs.
 * @pinned: bytes of admitted kernel BOs in VRAM, pinned there.
 * @by_order: admitted user BOs by order_base_2() of their size, to find
 *	the largest.  Kernel BOs are pinned: TTM never swaps them out.
 * @bos: admitted user BOs, all of @by_order.
 * @held: bytes of system pages the device's ttm_tts hold now, from their
 *	first populate until they are destroyed, swapped out to shmem or
 *	not.  Atomic: updated from TTM's callbacks without @lock.
 */
struct vgpu_admit {
	spinlock_t lock;	/* @system, @vram, @pinned, @by_order, @bos */
	u64 system;
	u64 vram;
	u64 pinned;
	u32 by_order[VGPU_ADMIT_ORDERS];
	u32 bos;
	atomic64_t held;
};

#endif /* __VGPU_ADMIT_TYPES_H__ */
