/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_POOL_TYPES_H__
#define __VGPU_POOL_TYPES_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "vgpu_evict_policy_types.h"

struct task_struct;
struct vgpu_device;
struct vgpu_pool_unit;

/**
 * enum vgpu_pool_kind - the kinds of evictable units, for the counters
 * @VGPU_POOL_BO: an ordinary BO's VRAM resource (vgpu_bo.c).
 * @VGPU_POOL_CHUNK: the VRAM copy of a chunk of a pageable BO
 *	(vgpu_chunk.c).
 * @VGPU_POOL_SVM: a chunk-sized block of process memory migrated into
 *	device-private pages (vgpu_svm_dmem.c).
 * @VGPU_POOL_KIND_NR: number of kinds.
 *
 * A later client (a VF's VRAM slice) is one more kind with its own
 * &struct vgpu_pool_unit_ops, and one more line after each
 * ``POOL_*_SVM`` of the counter registry (vgpu_stats_list.h), which
 * counts per kind in this order.
 */
enum vgpu_pool_kind {
	VGPU_POOL_BO,
	VGPU_POOL_CHUNK,
	VGPU_POOL_SVM,
	VGPU_POOL_KIND_NR
};

/**
 * struct vgpu_pool_unit_ops - what the pool asks of a kind of unit
 * @kind: ``VGPU_POOL_*``, selects the counters.
 * @read_ctr: sum of the device access counters of the VRAM the unit
 *	holds (vgpu_pool_read_ctr()); the pool samples it.
 * @age: test and clear the device's ACCESSED bits in every leaf that maps
 *	the unit's VRAM, in every VM (vgpu_vm_bo_age()); true if one had it.
 *	The sampler calls it once per pass, and flushes the TLBs after.
 * @used: optional; the sampler saw accesses to the unit.
 * @intersects: does the unit hold VRAM in [@start, @end)?  Only such units
 *	are victims for an allocation restricted to that range.
 * @evict: move the unit out of VRAM, contents kept.  Returns 0 when the
 *	unit's VRAM is free, -EBUSY when it cannot be evicted now (its lock
 *	is taken, the GPU is using it): the pool goes on to the next
 *	coldest; another negative errno stops the search.  Called with the
 *	pool lock held; must not sleep on a lock or fence that a GPU fault
 *	could be waiting behind (trylock, no_wait_gpu).
 */
struct vgpu_pool_unit_ops {
	enum vgpu_pool_kind kind;
	u32 (*read_ctr)(struct vgpu_pool_unit *u);
	bool (*age)(struct vgpu_pool_unit *u);
	void (*used)(struct vgpu_pool_unit *u);
	bool (*intersects)(struct vgpu_pool_unit *u, u64 start, u64 end);
	int (*evict)(struct vgpu_pool_unit *u);
};

/* &vgpu_pool_unit.flags */
/** VGPU_POOL_UNIT_KEEP - evicted only when no other unit can be (advice) */
#define VGPU_POOL_UNIT_KEEP	BIT(0)

/**
 * struct vgpu_pool_unit - one evictable piece of VRAM
 * @ev: eviction-policy state: place in the order while resident, access
 *	history always.
 * @link: in &vgpu_pool.units while resident.
 * @ops: its kind.
 * @size: VRAM bytes it holds while resident.
 * @batch: &vgpu_pool.batch_seq when it last came in: units of the batch
 *	being resolved are not victims.
 * @flags: ``VGPU_POOL_UNIT_*``.
 * @tried: &vgpu_pool.walk_seq of the last victim search that tried to
 *	evict it.
 *
 * Embedded in the owner's state (&struct vgpu_chunk, &struct vgpu_bo);
 * every field is protected by &vgpu_pool.lock.
 */
struct vgpu_pool_unit {
	struct vgpu_evict_unit ev;
	struct list_head link;
	const struct vgpu_pool_unit_ops *ops;
	u64 size;
	u64 batch;
	u64 tried;
	u32 flags;
};

/**
 * struct vgpu_pool_evicting - a unit being evicted, on the evicting chain
 * @unit: the unit.
 * @next: the eviction this one nests in (its allocation made room).
 */
struct vgpu_pool_evicting {
	struct vgpu_pool_unit *unit;
	struct vgpu_pool_evicting *next;
};

/**
 * struct vgpu_pool - all of VRAM under one eviction order
 * @vdev: the device.
 * @lock: protects everything here and the state of every unit (the
 *	chunk tables and the demand-paging state included, see "Demand
 *	paging: locking").
 * @owner: task holding @lock through vgpu_pool_lock(), so that a VRAM
 *	allocation made under it (page tables) evicts without taking it
 *	again.
 * @lru: resident units in eviction order; @lru.ops follows the device's
 *	eviction policy, re-sorted at the next batch after a switch.
 * @units: resident units, in no order (the sampler walks it).
 * @evicting: units being evicted by the owner of @lock, innermost first.
 * @handover: while the owner of @lock makes room for a batch of chunk
 *	copies, that batch (a &struct vgpu_chunk_batch): a chunk evicted
 *	for it queues its copy back there and hands its block over instead
 *	of freeing it (see "Pageable BOs and chunk migration").
 * @batch_seq: number of the batch being resolved (fault batch, PREFETCH,
 *	ADVISE, or a VRAM allocation that has to make room).
 * @hold_seq: units that came in with batch @hold_seq or a later one are
 *	no victims either (0: none).  The fault thread lets a batch's copies
 *	run while it reads the next batch; that batch's chunks are mapped
 *	only when they are done (vgpu_fault.c), and must stay until then.
 * @sampled_seq: @batch_seq of the last sampling pass (access counters
 *	and ACCESSED bits).
 * @walk_seq: number of the last victim search.
 * @ctr_shift: log2 of the device's access-counter granule.
 * @nr_ctr: access counters (granules of VRAM).
 * @ctr: the counters as read by the current sampling pass.
 * @ctr_valid: a sampling pass is running: @ctr holds its values.
 * @resident: VRAM bytes held by units, per kind.
 */
struct vgpu_pool {
	struct vgpu_device *vdev;
	struct mutex lock;	/* see @lock above */
	struct task_struct *owner;
	struct vgpu_evict_lru lru;
	struct list_head units;
	struct vgpu_pool_evicting *evicting;
	void *handover;
	u64 batch_seq;
	u64 hold_seq;
	u64 sampled_seq;
	u64 walk_seq;
	unsigned int ctr_shift;
	u64 nr_ctr;
	u32 *ctr;
	bool ctr_valid;
	u64 resident[VGPU_POOL_KIND_NR];
};

#endif /* __VGPU_POOL_TYPES_H__ */
