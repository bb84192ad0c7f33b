// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "vgpu_fault.h"
#include "vgpu_fault_batch.h"
#include "vgpu_hw.h"

/**
 * DOC: Fault batching
 *
 * A GPU fault is expensive to resolve one at a time: each costs an
 * interrupt, a page-table update, a TLB invalidation (a round trip to the
 * device) and a replay.  The interrupt thread therefore reads up to
 * *limit* records from the fault buffer (module parameter
 * ``vgpu.fault_batch_limit``, 1 to %VGPU_FAULT_BATCH_MAX, default 256)
 * into a &struct vgpu_fault_batch before it resolves any, then:
 *
 * 1. **sorts** them by VM, then VA, then queue;
 * 2. **de-duplicates**: records of the same VM and page (several queues
 *    or lanes stalled on one page, or a record seen again after a replay
 *    or a buffer overflow) become one entry that remembers
 *    every access kind (@access_mask) and every stalled queue (@queues);
 *    the merged records are counted as duplicates;
 * 3. **groups** the entries by VM and chunk (VA >> chunk shift): the
 *    resolver makes one decision per chunk — migrate it, map it remotely,
 *    or cancel — however many pages of it faulted.
 *
 * The resolver (vgpu_fault.c) then resolves the whole batch in two
 * passes: the first decides for every group and queues the chunk copies
 * it needs on the copy engine without waiting, leaving a group's faults
 * from its first copied chunk on for later (&vgpu_fault_group.later);
 * the second, after one wait for all the copies, maps them, and every
 * stalled queue is answered once (REPLAY, or CANCEL for a queue whose
 * fault could not be resolved).  Between the two the resolver reads and
 * resolves the next batch, while the copy engine copies ("GPU faults").
 * Records with no VM (a context nobody owns) sort first, in a group of
 * their own, and are cancelled.
 *
 * Batches, records, duplicates, groups and the time the resolver spends
 * are counted in &struct vgpu_fault_batch_stats.
 */

/**
 * vgpu_fault_batch_alloc() - allocate an empty batch
 * @limit: records per batch, clamped to 1..%VGPU_FAULT_BATCH_MAX
 * @chunk_shift: log2 of the grouping chunk size (12..30)
 *
 * Return: the batch, or NULL when out of memory.
 */
struct vgpu_fault_batch *vgpu_fault_batch_alloc(unsigned int limit,
						unsigned int chunk_shift)
{
	struct vgpu_fault_batch *b;

	b = kvzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return NULL;
	vgpu_fault_batch_set_limit(b, limit);
	b->chunk_shift = clamp(chunk_shift, VGPU_PAGE_SHIFT, 30u);
	return b;
}

/**
 * vgpu_fault_batch_free() - free a batch
 * @b: batch or NULL
 */
void vgpu_fault_batch_free(struct vgpu_fault_batch *b)
{
	kvfree(b);
}

/**
 * vgpu_fault_batch_set_limit() - change the batch limit
 * @b: batch, between batches
 * @limit: records per batch, clamped to 1..%VGPU_FAULT_BATCH_MAX
 */
void vgpu_fault_batch_set_limit(struct vgpu_fault_batch *b, unsigned int limit)
{
	b->limit = clamp(limit, 1u, (unsigned int)VGPU_FAULT_BATCH_MAX);
}

/**
 * vgpu_fault_batch_reset() - start a new batch
 * @b: batch
 */
void vgpu_fault_batch_reset(struct vgpu_fault_batch *b)
{
	b->nr = 0;
	b->nr_records = 0;
	b->nr_groups = 0;
}

/**
 * vgpu_fault_batch_add() - add a decoded record
 * @b: batch, not sorted yet
 * @vm: VM owning the record's context, or NULL
 * @f: the record
 *
 * Return: false (and nothing added) when the batch is full.
 */
bool vgpu_fault_batch_add(struct vgpu_fault_batch *b, struct vgpu_vm *vm,
			  const struct vgpu_fault *f)
{
	struct vgpu_fault_batch_entry *e;

	if (vgpu_fault_batch_full(b))
		return false;
	e = &b->entries[b->nr++];
	e->f = *f;
	e->vm = vm;
	e->access_mask = f->access < 32 ? BIT(f->access) : 0;
	e->queues = f->queue < 32 ? BIT(f->queue) : 0;
	e->dups = 0;
	b->nr_records++;
	return true;
}

static int vgpu_fault_entry_cmp(const void *pa, const void *pb)
{
	const struct vgpu_fault_batch_entry *a = pa, *b = pb;

	if (a->vm != b->vm)
		return (unsigned long)a->vm < (unsigned long)b->vm ? -1 : 1;
	if (a->f.va != b->f.va)
		return a->f.va < b->f.va ? -1 : 1;
	if (a->f.queue != b->f.queue)
		return a->f.queue < b->f.queue ? -1 : 1;
	return 0;
}

static void vgpu_fault_batch_dedup(struct vgpu_fault_batch *b)
{
	unsigned int i, out = 0;

	for (i = 0; i < b->nr; i++) {
		struct vgpu_fault_batch_entry *e = &b->entries[i];
		struct vgpu_fault_batch_entry *prev = out ? &b->entries[out - 1] : NULL;

		if (prev && prev->vm == e->vm && prev->f.va == e->f.va) {
			prev->access_mask |= e->access_mask;
			prev->queues |= e->queues;
			prev->dups++;
			b->stats.duplicates++;
			continue;
		}
		if (out != i)
			b->entries[out] = *e;
		out++;
	}
	b->nr = out;
}

static void vgpu_fault_batch_group(struct vgpu_fault_batch *b)
{
	struct vgpu_fault_group *g = NULL;
	unsigned int i;

	b->nr_groups = 0;
	for (i = 0; i < b->nr; i++) {
		const struct vgpu_fault_batch_entry *e = &b->entries[i];
		u64 chunk = e->f.va >> b->chunk_shift;

		if (!g || g->vm != e->vm || g->chunk != chunk) {
			g = &b->groups[b->nr_groups++];
			g->vm = e->vm;
			g->chunk = chunk;
			g->first = i;
			g->nr = 0;
			g->access_mask = 0;
			g->queues = 0;
		}
		g->nr++;
		g->access_mask |= e->access_mask;
		g->queues |= e->queues;
	}
	b->stats.groups += b->nr_groups;
}

/**
 * vgpu_fault_batch_sort() - sort, de-duplicate and group a batch
 * @b: batch
 *
 * Afterwards @b->entries holds one entry per faulting page, sorted by VM
 * and VA, and @b->groups one group per VM and chunk.
 */
void vgpu_fault_batch_sort(struct vgpu_fault_batch *b)
{
	if (!b->nr_records)
		return;
	sort(b->entries, b->nr, sizeof(b->entries[0]), vgpu_fault_entry_cmp,
	     NULL);
	vgpu_fault_batch_dedup(b);
	vgpu_fault_batch_group(b);
	b->stats.batches++;
	b->stats.records += b->nr_records;
	b->stats.largest = max_t(u64, b->stats.largest, b->nr_records);
}
