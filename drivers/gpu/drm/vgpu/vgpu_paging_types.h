/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PAGING_TYPES_H__
#define __VGPU_PAGING_TYPES_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "vgpu_prefetch_types.h"

struct vgpu_fault_slot;

/**
 * struct vgpu_paging - the device's demand-paging state
 * @chunk_shift: log2 of the migration chunk, fixed at probe.
 * @prefetch_cfg: prefetch and thrashing tunables.
 * @pinned: chunks the thrashing detector pinned to system memory, in the
 *	order their pins run out (&vgpu_chunk.pinned).
 * @unpin_work: lets the chunks on @pinned come back when their pins run
 *	out (the "Prefetch and thrashing detection" DOC).
 * @fault_lock: serialises fault draining (the interrupt thread and reset).
 * @slots: the two fault batches of the fault thread's pipeline
 *	(vgpu_fault.c), under @fault_lock.
 * @slow_fault_pages_ms: testing (debugfs ``slow_fault_pages_ms``): the
 *	fault thread sleeps this long (at most 10 s) before each faulting
 *	page it handles, as if every page had a slow migration.
 *
 * &vgpu_pool.lock protects @prefetch_cfg, @pinned and the chunk tables of every
 * pageable BO (vgpu_chunk.c); the eviction order and the batch sequence
 * are the VRAM pool's (&struct vgpu_pool).
 */
struct vgpu_paging {
	unsigned int chunk_shift;
	struct vgpu_prefetch_cfg prefetch_cfg;
	struct list_head pinned;
	struct delayed_work unpin_work;

	struct mutex fault_lock;
	struct vgpu_fault_slot *slots[2];
	u32 slow_fault_pages_ms;
};

#endif /* __VGPU_PAGING_TYPES_H__ */
