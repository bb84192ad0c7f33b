/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FAULT_BATCH_TYPES_H__
#define __VGPU_FAULT_BATCH_TYPES_H__

#include <linux/types.h>

#include "vgpu_fault.h"

struct vgpu_vm;

/** VGPU_FAULT_BATCH_MAX - the largest batch limit */
#define VGPU_FAULT_BATCH_MAX	256

/**
 * struct vgpu_fault_batch_entry - one faulting page of a batch
 * @f: the first decoded record for the page.
 * @vm: the VM owning @f.ctx when the record was read (a reference the
 *	batch's user holds), or NULL.
 * @access_mask: ``BIT(VGPU_ACCESS_*)`` of every record for the page.
 * @queues: ``BIT(queue)`` of every queue stalled on the page.
 * @dups: records merged into this one.
 */
struct vgpu_fault_batch_entry {
	struct vgpu_fault f;
	struct vgpu_vm *vm;
	u32 access_mask;
	u32 queues;
	u32 dups;
};

/**
 * struct vgpu_fault_group - the faulting pages of one chunk of one VM
 * @vm: the VM (NULL: records no VM owns, to cancel).
 * @chunk: chunk number in the VM's address space (VA >> chunk shift).
 * @first: index of the group's first entry in &vgpu_fault_batch.entries.
 * @nr: entries in the group, sorted by VA.
 * @access_mask: union of the entries' @access_mask.
 * @queues: union of the entries' @queues.
 * @later: the first entry left to resolve after the batch's copies
 *	(@first + @nr: none), set by the fault thread.
 * @later_res: what the first pass did for that entry
 *	(``VGPU_FAULT_RES_*``: %VGPU_FAULT_RES_MIGRATED once its copy is
 *	queued).
 */
struct vgpu_fault_group {
	struct vgpu_vm *vm;
	u64 chunk;
	u32 first;
	u32 nr;
	u32 access_mask;
	u32 queues;
	u32 later;
	u32 later_res;
};

/**
 * struct vgpu_fault_batch_stats - fault batching counters
 * @batches: batches sorted.
 * @records: fault records collected.
 * @duplicates: records merged into another of the same page.
 * @groups: chunk groups formed.
 * @largest: the largest batch, in records.
 * @ns: time spent handling batches, as reported by the user.
 */
struct vgpu_fault_batch_stats {
	u64 batches;
	u64 records;
	u64 duplicates;
	u64 groups;
	u64 largest;
	u64 ns;
};

/**
 * struct vgpu_fault_batch - faults read from the buffer, handled together
 * @limit: records per batch (1..%VGPU_FAULT_BATCH_MAX).
 * @chunk_shift: log2 of the chunk size faults are grouped by.
 * @nr: records (after vgpu_fault_batch_sort(): unique pages) in @entries.
 * @nr_records: records collected, duplicates included.
 * @nr_groups: groups in @groups, valid after vgpu_fault_batch_sort().
 * @stats: counters, kept across batches.
 * @entries: the records.
 * @groups: the groups.
 *
 * Owned by one thread (the fault interrupt thread) at a time: no lock.
 */
struct vgpu_fault_batch {
	unsigned int limit;
	unsigned int chunk_shift;
	unsigned int nr;
	unsigned int nr_records;
	unsigned int nr_groups;
	struct vgpu_fault_batch_stats stats;
	struct vgpu_fault_batch_entry entries[VGPU_FAULT_BATCH_MAX];
	struct vgpu_fault_group groups[VGPU_FAULT_BATCH_MAX];
};

#endif /* __VGPU_FAULT_BATCH_TYPES_H__ */
