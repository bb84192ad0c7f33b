/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_CHUNK_TYPES_H__
#define __VGPU_CHUNK_TYPES_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/types.h>

#include "vgpu_advice.h"
#include "vgpu_migrate.h"
#include "vgpu_pool_types.h"
#include "vgpu_prefetch_types.h"

struct dma_fence;
struct gpu_buddy_block;
struct vgpu_bo;
struct vgpu_vm;

/* &vgpu_chunk.flags */
/** VGPU_CHUNK_DIRTY - the device wrote the VRAM copy (a DIRTY leaf): copy back on eviction */
#define VGPU_CHUNK_DIRTY	BIT(0)
/** VGPU_CHUNK_PREFETCHED - moved in ahead of use, no access seen yet */
#define VGPU_CHUNK_PREFETCHED	BIT(1)
/*
 * The hints of the VA ranges that map the chunk, their union
 * (vgpu_advice.c, "ADVISE hints per VA range"): VGPU_CHUNK_PREF_SYSTEM,
 * VGPU_CHUNK_PREF_VRAM, VGPU_CHUNK_READ_MOSTLY, VGPU_CHUNK_ACCESSED_BY.
 */
#define VGPU_CHUNK_PREF_SYSTEM	VGPU_ADVICE_PREF_SYSTEM
#define VGPU_CHUNK_PREF_VRAM	VGPU_ADVICE_PREF_VRAM
#define VGPU_CHUNK_READ_MOSTLY	VGPU_ADVICE_READ_MOSTLY
#define VGPU_CHUNK_ACCESSED_BY	VGPU_ADVICE_ACCESSED_BY
/**
 * VGPU_CHUNK_DUPLICATED - READ_MOSTLY: the VRAM copy and the system pages
 * both hold the data; the GPU maps the VRAM copy read-only, the CPU maps
 * the system pages read-only.  A write collapses the copies.
 */
#define VGPU_CHUNK_DUPLICATED	BIT(6)
/**
 * VGPU_CHUNK_SETTLING - evicted for a batch whose TLB invalidation is still
 * to come: a DIRTY bit the device sets meanwhile still counts
 */
#define VGPU_CHUNK_SETTLING	BIT(7)

/**
 * struct vgpu_chunk - one chunk of a pageable BO
 * @unit: the chunk's VRAM copy as a unit of the VRAM pool: its place in
 *	the eviction order while resident, its access history always.
 * @thrash: thrashing detector.
 * @pinned: on &vgpu_paging.pinned while the thrashing detector keeps the
 *	chunk in system memory.
 * @bo: the BO the chunk belongs to.
 * @block: the VRAM copy (a buddy block of the chunk size), or NULL while
 *	the chunk lives only in system memory.
 * @copy: fence of the copy-engine batch copying the chunk into @block,
 *	or NULL.
 *	Until it signals and vgpu_chunk.c has seen it, nobody maps, copies
 *	or evicts the chunk.
 * @vram: VRAM offset of @block.
 * @batch: &vgpu_chunk_batch.id of the batch @copy belongs to.
 * @index: chunk number in @bo.
 * @flags: ``VGPU_CHUNK_*``.
 *
 * Every field but @bo and @index (constant) is protected by
 * &vgpu_pool.lock.
 */
struct vgpu_chunk {
	struct vgpu_pool_unit unit;
	struct vgpu_thrash thrash;
	struct list_head pinned;
	struct vgpu_bo *bo;
	struct gpu_buddy_block *block;
	struct dma_fence *copy;
	u64 vram;
	u64 batch;
	u32 index;
	u32 flags;
};

/**
 * struct vgpu_bo_chunks - the chunk table of a pageable BO
 * @nr: chunks (the BO size is a multiple of the chunk size).
 * @resident: chunks with a VRAM copy; while non-zero TTM may not move
 *	or swap the BO's system pages (vgpu_chunk_bo_busy()).
 * @chunk: the chunks.
 */
struct vgpu_bo_chunks {
	u32 nr;
	atomic_t resident;
	struct vgpu_chunk chunk[] __counted_by(nr);
};

/**
 * struct vgpu_chunk_map - a mapping to write once a batch's copies are done
 * @vm: the VM (a reference).
 * @va: VA of the chunk in @vm.
 */
struct vgpu_chunk_map {
	struct vgpu_vm *vm;
	u64 va;
};

/**
 * struct vgpu_chunk_victim - a chunk a batch evicted, not yet settled
 * @chunk: the chunk (%VGPU_CHUNK_SETTLING).
 * @start: first dword of its copy back in the batch's current job.
 * @end: the dword after it; 0 while it is being queued.
 * @dirty: the device's dirty bits said so before the TLB invalidation.
 */
struct vgpu_chunk_victim {
	struct vgpu_chunk *chunk;
	u32 start;
	u32 end;
	bool dirty;
};

/**
 * struct vgpu_chunk_batch - chunk copies of a fault batch, and what waits
 * @copy: the copy-engine batch they are queued in.
 * @id: unique among batches (&vgpu_chunk.batch).
 * @now: the thrashing detector's clock when the batch began
 *	(vgpu_paging_clock()).
 * @wait_ns: time its owner waited for other batches' copies of chunks
 *	it needed (vgpu_chunk_copy_wait_locked()).
 * @prefetch_left: chunks the prefetch detectors may still suggest in this
 *	batch: a quarter of VRAM at the start ("Prefetch and thrashing
 *	detection").
 * @chunks: the chunks whose @copy fence is one of @copy's, each holding a
 *	reference to its BO.
 * @nr_chunks: entries in @chunks.
 * @max_chunks: room in @chunks.
 * @maps: prefetched chunks to map after the copies.
 * @nr_maps: entries in @maps.
 * @max_maps: room in @maps.
 * @locked_vm: the VM whose lock the owner holds throughout (PREFETCH,
 *	ADVISE), or NULL (the fault thread).
 * @spare: VRAM blocks the batch's victims handed over (linked by their
 *	&gpu_buddy_block.link): each victim's copy back is queued in @copy,
 *	so only copies queued after it may write the block; freed after
 *	the batch's copies.
 * @victims: chunks evicted for the batch whose mappings are gone but
 *	whose TLB invalidation has yet to be waited for; their copies back
 *	are queued in @copy, to be cancelled if they turn out clean
 *	(vgpu_chunk_batch_settle_locked()).
 * @nr_victims: entries in @victims.
 * @max_victims: room in @victims.
 *
 * Owned by the fault thread, or by a PREFETCH or ADVISE call; see
 * "Pageable BOs and chunk migration".
 */
struct vgpu_chunk_batch {
	struct vgpu_migrate_batch copy;
	struct vgpu_chunk **chunks;
	unsigned int nr_chunks;
	unsigned int max_chunks;
	struct vgpu_chunk_map *maps;
	unsigned int nr_maps;
	unsigned int max_maps;
	struct vgpu_vm *locked_vm;
	struct list_head spare;
	u64 id;
	u64 now;
	u64 wait_ns;
	unsigned int prefetch_left;
	struct vgpu_chunk_victim *victims;
	unsigned int nr_victims;
	unsigned int max_victims;
};

#endif /* __VGPU_CHUNK_TYPES_H__ */
