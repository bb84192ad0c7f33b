/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PAGING_TYPES_H__
#define __VGPU_PAGING_TYPES_H__

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "vgpu_prefetch_types.h"

struct vgpu_fault_batch;

/**
 * struct vgpu_paging_counters - demand-paging counters, per VM or device
 * @faults: fault records handled.
 * @fault_batches: batches handled (per VM: batches holding its records).
 * @fault_duplicates: records merged into another of the same page.
 * @faults_resolved: unique faulting pages resolved and replayed.
 * @faults_cancelled: unique faulting pages that could not be resolved.
 * @bytes_to_vram: bytes migrated into VRAM.
 * @bytes_to_system: bytes migrated out of VRAM.
 * @evictions: evictions from VRAM made to make room.
 * @remote_maps: chunks mapped in system memory instead of migrated.
 * @thrash_events: chunks found thrashing and pinned to system memory.
 * @prefetch_bytes: bytes moved ahead of use.
 * @prefetch_used_bytes: prefetched bytes the GPU then used.
 * @prefetch_wasted_bytes: prefetched bytes evicted unused.
 * @fault_ns: time spent handling fault batches.
 *
 * The same fields, in the same order, as &struct drm_vgpu_paging_counters.
 * Atomic: updated without locks wherever the event happens; read with
 * vgpu_paging_counters_read().
 */
struct vgpu_paging_counters {
	atomic64_t faults;
	atomic64_t fault_batches;
	atomic64_t fault_duplicates;
	atomic64_t faults_resolved;
	atomic64_t faults_cancelled;
	atomic64_t bytes_to_vram;
	atomic64_t bytes_to_system;
	atomic64_t evictions;
	atomic64_t remote_maps;
	atomic64_t thrash_events;
	atomic64_t prefetch_bytes;
	atomic64_t prefetch_used_bytes;
	atomic64_t prefetch_wasted_bytes;
	atomic64_t fault_ns;
};

/**
 * struct vgpu_paging - the device's demand-paging state
 * @chunk_shift: log2 of the migration chunk, fixed at probe.
 * @prefetch_cfg: prefetch and thrashing tunables.
 * @fault_lock: serialises fault draining (the interrupt thread and reset).
 * @batch: the fault batch (under @fault_lock).
 * @ctr: device-wide counters.
 *
 * &vgpu_pool.lock protects @prefetch_cfg and the chunk tables of every
 * pageable BO (vgpu_chunk.c); the eviction order and the batch sequence
 * are the VRAM pool's (&struct vgpu_pool).
 */
struct vgpu_paging {
	unsigned int chunk_shift;
	struct vgpu_prefetch_cfg prefetch_cfg;

	struct mutex fault_lock;
	struct vgpu_fault_batch *batch;

	struct vgpu_paging_counters ctr;
};

#endif /* __VGPU_PAGING_TYPES_H__ */
