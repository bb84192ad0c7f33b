/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PAGING_TYPES_H__
#define __VGPU_PAGING_TYPES_H__

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "vgpu_evict_policy_types.h"
#include "vgpu_prefetch_types.h"

struct vgpu_chunk;
struct vgpu_fault_batch;

/**
 * struct vgpu_paging - the device's demand-paging state
 * @lock: protects @lru, @prefetch_cfg and every chunk's policy state.
 *	Taken inside a VM's lock and BO reservations, outside
 *	&vgpu_vm.pt_lock.
 * @lru: resident chunks in eviction order; @lru.ops follows the device's
 *	eviction policy (&vgpu_device.policy), re-sorted at the first
 *	decision after a switch (vgpu_paging_sync_policy_locked()).
 * @chunk_shift: log2 of the migration chunk, fixed at probe.
 * @prefetch_cfg: prefetch and thrashing tunables.
 * @batch_seq: number of the batch being resolved (fault batch, PREFETCH
 *	or ADVISE call); chunks brought in by it are not eviction victims.
 * @sampled_seq: @batch_seq of the last access-counter sampling pass.
 * @ctr_shift: log2 of the device's access-counter granule.
 * @sample: room for a pointer to every chunk VRAM can hold, for sampling.
 * @sample_max: entries in @sample.
 * @resident_bytes: VRAM held by chunks.
 * @fault_lock: serialises fault draining (the interrupt thread and reset).
 * @batch: the fault batch (under @fault_lock).
 *
 * @lock also protects @batch_seq, @sampled_seq, @sample, @resident_bytes
 * and the chunk tables of every pageable BO (vgpu_chunk.c).
 */
struct vgpu_paging {
	struct mutex lock;
	struct vgpu_evict_lru lru;
	unsigned int chunk_shift;
	struct vgpu_prefetch_cfg prefetch_cfg;
	u64 batch_seq;
	u64 sampled_seq;
	unsigned int ctr_shift;
	struct vgpu_chunk **sample;
	unsigned long sample_max;
	u64 resident_bytes;

	struct mutex fault_lock;
	struct vgpu_fault_batch *batch;
};

#endif /* __VGPU_PAGING_TYPES_H__ */
