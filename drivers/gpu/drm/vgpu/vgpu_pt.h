/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PT_H__
#define __VGPU_PT_H__

#include <linux/list.h>
#include <linux/types.h>

#include "vgpu_hw.h"
#include "vgpu_pt_pool.h"

struct ttm_buffer_object;
struct ttm_resource;
struct vgpu_device;
struct vgpu_res_cursor;

/** VGPU_PT_AD - the bits the device sets in a leaf it translated through */
#define VGPU_PT_AD	(VGPU_PTE_ACCESSED | VGPU_PTE_DIRTY)

/**
 * enum vgpu_pt_op - what vgpu_pt_walk() does at each entry of its range
 * @VGPU_PT_OP_MAP: write leaves (the largest that fit) into an empty
 *	range, allocating tables as needed (bind).
 * @VGPU_PT_OP_UNMAP: clear every leaf, split leaves cut by the range's
 *	ends, free tables left empty (unbind).
 * @VGPU_PT_OP_ZAP: as UNMAP, but every table stays: a later walk of the
 *	range still finds the entries the device may have set A/D bits in
 *	before the TLB invalidation completed.
 * @VGPU_PT_OP_READ: change nothing; report leaves and tables (debugfs,
 *	harvesting A/D bits).
 * @VGPU_PT_OP_AGE: test and clear ACCESSED in every valid leaf, keeping
 *	everything else (DIRTY included, also when the device sets it
 *	meanwhile); the TLB range of each leaf cleared widens the batch's
 *	invalidation, so that the next access walks and sets the bit again
 *	(sampling recency, vgpu_vm_bo_age()).
 */
enum vgpu_pt_op {
	VGPU_PT_OP_MAP,
	VGPU_PT_OP_UNMAP,
	VGPU_PT_OP_ZAP,
	VGPU_PT_OP_READ,
	VGPU_PT_OP_AGE,
};

/**
 * typedef vgpu_pt_visit_fn - told about one entry by vgpu_pt_walk()
 * @arg: the caller's argument
 * @level: level of the entry's table
 * @va: first VA the entry translates
 * @pte: the entry (as it was before a clear)
 * @table: the entry points to a table (READ only); else it is a leaf:
 *	at level 0 a 4 KiB PTE, alone or part of a fragment
 *	(%VGPU_PTE_FRAG64K), above a %VGPU_PTE_LEAF
 */
typedef void (*vgpu_pt_visit_fn)(void *arg, unsigned int level, u64 va,
				 u64 pte, bool table);

/**
 * struct vgpu_pt - one page table and its place in the tree
 * @page: the table's memory.
 * @level: 0 (4 KiB PTEs) to 3 (root).
 * @live: valid entries in the table.
 * @children: level > 0: the child table behind each entry, NULL for an
 *	invalid entry or a leaf.
 * @free_link: on &vgpu_pt_update.freed until the TLB no longer uses it.
 */
struct vgpu_pt {
	struct vgpu_pt_page page;
	unsigned int level;
	unsigned int live;
	struct vgpu_pt **children;
	struct list_head free_link;
};

/**
 * struct vgpu_pt_stats - what page-table updates wrote, per leaf size
 * @leaves_4k: 4 KiB PTEs written.
 * @leaves_64k: 64 KiB fragments written.
 * @leaves_2m: 2 MiB leaves written.
 * @leaves_1g: 1 GiB leaves written.
 * @tables: tables allocated now.
 */
struct vgpu_pt_stats {
	u64 leaves_4k;
	u64 leaves_64k;
	u64 leaves_2m;
	u64 leaves_1g;
	u64 tables;
};

/**
 * struct vgpu_pt_update - one batch of page-table changes
 * @vdev: vgpu device.
 * @caps: leaf sizes allowed (``VGPU_CAPS_PAGE_*``).
 * @reserved: pool pages still reserved for this batch.
 * @inval_start: start of the VA range whose translations changed or went
 *	away (U64_MAX: none).
 * @inval_end: end of that range.
 * @freed: tables unlinked from the tree, to free after the TLB flush.
 * @stats: counters of the VM the batch belongs to.
 *
 * Mapping into an empty range needs no invalidation (the device caches no
 * misses); removing or changing a translation does.  The batch collects
 * one covering range, invalidated once by vgpu_vm_pt_commit().
 */
struct vgpu_pt_update {
	struct vgpu_device *vdev;
	u32 caps;
	unsigned int reserved;
	u64 inval_start;
	u64 inval_end;
	struct list_head freed;
	struct vgpu_pt_stats *stats;
};

unsigned int vgpu_pt_pages_for_map(u64 va, u64 size);
unsigned int vgpu_pt_pages_for_unmap(u64 va, u64 size);

void vgpu_pt_update_init(struct vgpu_pt_update *up, struct vgpu_device *vdev,
			 struct vgpu_pt_stats *stats);
struct vgpu_pt *vgpu_pt_alloc(struct vgpu_pt_update *up, unsigned int level);
void vgpu_pt_free_tree(struct vgpu_device *vdev, struct vgpu_pt *pt);
void vgpu_pt_release(struct vgpu_pt_update *up);

int vgpu_pt_map(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		u64 size, struct ttm_buffer_object *tbo,
		struct ttm_resource *res, u64 bo_offset, u64 pte_flags);
void vgpu_pt_map_dma(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		     u64 size, const dma_addr_t *dma, bool vram, u64 pte_flags);
void vgpu_pt_map_linear(struct vgpu_pt_update *up, struct vgpu_pt *root,
			u64 va, u64 addr, u64 size, u64 pte_flags);
unsigned int vgpu_pt_pages_for_linear_map(u64 va, u64 size);
u64 vgpu_pt_unmap(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		  u64 size);
u64 vgpu_pt_walk(enum vgpu_pt_op op, struct vgpu_pt_update *up,
		 struct vgpu_pt *root, u64 va, u64 size,
		 struct vgpu_res_cursor *src, u64 flags,
		 vgpu_pt_visit_fn fn, void *arg);

/**
 * vgpu_pt_desc() - memory descriptor of a table, for a PDE or a context root
 * @pt: page table
 *
 * Return: VALID | VRAM aperture | address.
 */
static inline u64 vgpu_pt_desc(const struct vgpu_pt *pt)
{
	return (pt->page.addr & VGPU_PTE_ADDR_MASK) | VGPU_PTE_VALID;
}

#endif /* __VGPU_PT_H__ */
