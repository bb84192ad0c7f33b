// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/io.h>
#include <linux/slab.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_tt.h>

#include "vgpu_drv.h"
#include "vgpu_pt.h"
#include "vgpu_pt_geom.h"
#include "vgpu_res_cursor.h"

/**
 * DOC: page tables
 *
 * Each VM owns a four-level radix tree of 4 KiB tables in VRAM (from the
 * page-table pool), in the device's format (``vgpu_hw.h``, geometry in
 * ``vgpu_pt_geom.h``).  The driver keeps a shadow of the tree's shape in
 * &struct vgpu_pt (child pointers and a count of valid entries per
 * table); the entries themselves live only in VRAM, written and read by
 * the CPU through the BAR window.
 *
 * Mapping walks the range top-down and, at each entry, uses the largest
 * leaf the VA, the backing address and the contiguous length allow:
 * a 2 MiB leaf (a level-1 entry with LEAF), a 64 KiB fragment (16 level-0
 * PTEs with FRAG64K) or a 4 KiB PTE.  VRAM backing comes from the buddy
 * blocks of the BO's resource, system backing from the DMA addresses of
 * its pages, so both apertures get large leaves when the memory is
 * physically contiguous and aligned.  A mapping is only ever written into
 * a range that is empty.
 *
 * Unmapping clears entries and frees tables that become empty.  Unmapping
 * part of a large leaf first splits it, from the leaf itself and not from
 * the BO: a 2 MiB leaf becomes a level-0 table of 64 KiB fragments, and a
 * fragment cut in two loses its FRAG64K bit.  So splitting a mapping
 * (drm_gpuvm's REMAP) never needs the BO, nor its lock.
 *
 * Every removed or changed translation widens the batch's invalidation
 * range; the VM flushes the TLB once per batch and only then returns the
 * freed tables to the pool (the device may still be walking them).
 *
 * Page-table updates draw tables from a reservation made beforehand
 * (vgpu_pt_pages_for_map() / vgpu_pt_pages_for_unmap() give the worst
 * case), because allocating VRAM may evict BOs, which updates page
 * tables in turn.
 */

static void vgpu_pt_write(struct vgpu_pt *pt, unsigned int idx, u64 val)
{
	writeq(val, pt->page.cpu + idx * sizeof(u64));
}

static u64 vgpu_pt_read(struct vgpu_pt *pt, unsigned int idx)
{
	return readq(pt->page.cpu + idx * sizeof(u64));
}

static void vgpu_pt_inval_add(struct vgpu_pt_update *up, u64 start, u64 size)
{
	up->inval_start = min(up->inval_start, start);
	up->inval_end = max(up->inval_end, start + size);
}

/**
 * vgpu_pt_pages_for_map() - worst-case tables a map of a range allocates
 * @va: start
 * @size: bytes
 *
 * Return: number of pool pages to reserve.
 */
unsigned int vgpu_pt_pages_for_map(u64 va, u64 size)
{
	unsigned int level, n = 0;
	u64 last = va + size - 1;

	for (level = 0; level < VGPU_PT_LEVELS - 1; level++)
		n += (last >> vgpu_pt_shift(level + 1)) -
		     (va >> vgpu_pt_shift(level + 1)) + 1;
	return n;
}

/**
 * vgpu_pt_pages_for_unmap() - worst-case tables an unmap allocates
 * @va: start
 * @size: bytes
 *
 * Splitting the large leaves at both ends of the range takes one table
 * each.
 *
 * Return: number of pool pages to reserve.
 */
unsigned int vgpu_pt_pages_for_unmap(u64 va, u64 size)
{
	return 2;
}

/**
 * vgpu_pt_update_init() - start a batch of page-table changes
 * @up: batch
 * @vdev: vgpu device
 * @stats: counters to add to
 */
void vgpu_pt_update_init(struct vgpu_pt_update *up, struct vgpu_device *vdev,
			 struct vgpu_pt_stats *stats)
{
	up->vdev = vdev;
	up->caps = vdev->caps & (VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M);
	up->reserved = 0;
	up->inval_start = U64_MAX;
	up->inval_end = 0;
	INIT_LIST_HEAD(&up->freed);
	up->stats = stats;
}

/**
 * vgpu_pt_alloc() - a new, empty table from the batch's reservation
 * @up: batch
 * @level: level of the new table
 *
 * Return: the table; never fails (the pages were reserved, the
 * bookkeeping is a small __GFP_NOFAIL allocation).
 */
struct vgpu_pt *vgpu_pt_alloc(struct vgpu_pt_update *up, unsigned int level)
{
	struct vgpu_pt *pt;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL | __GFP_NOFAIL);
	pt->level = level;
	INIT_LIST_HEAD(&pt->free_link);
	if (level)
		pt->children = kcalloc(VGPU_PT_ENTRIES, sizeof(*pt->children),
				       GFP_KERNEL | __GFP_NOFAIL);
	WARN_ON(!up->reserved);
	if (up->reserved)
		up->reserved--;
	vgpu_pt_pool_get(up->vdev, &pt->page);
	up->stats->tables++;
	return pt;
}

static void vgpu_pt_free_one(struct vgpu_device *vdev, struct vgpu_pt *pt)
{
	vgpu_pt_pool_put(vdev, &pt->page);
	kfree(pt->children);
	kfree(pt);
}

/**
 * vgpu_pt_free_tree() - free a table and everything below it
 * @vdev: vgpu device
 * @pt: table, no longer reachable by the device
 */
void vgpu_pt_free_tree(struct vgpu_device *vdev, struct vgpu_pt *pt)
{
	unsigned int i;

	if (!pt)
		return;
	if (pt->children)
		for (i = 0; i < VGPU_PT_ENTRIES; i++)
			vgpu_pt_free_tree(vdev, pt->children[i]);
	vgpu_pt_free_one(vdev, pt);
}

/**
 * vgpu_pt_release() - end a batch: free unlinked tables, drop the reservation
 * @up: batch, its TLB invalidation done
 */
void vgpu_pt_release(struct vgpu_pt_update *up)
{
	struct vgpu_pt *pt, *tmp;

	list_for_each_entry_safe(pt, tmp, &up->freed, free_link) {
		list_del(&pt->free_link);
		up->stats->tables--;
		vgpu_pt_free_tree(up->vdev, pt);
	}
	if (up->reserved)
		vgpu_pt_pool_unreserve(up->vdev, up->reserved);
	up->reserved = 0;
}

/* --------------------------------------------------------------- mapping --- */

static void vgpu_pt_map_range(struct vgpu_pt_update *up, struct vgpu_pt *pt,
			      u64 va, u64 end, struct vgpu_res_cursor *src,
			      u64 flags)
{
	unsigned int level = pt->level;
	u64 next;

	for (; va < end; va = next) {
		unsigned int idx = vgpu_pt_index(va, level);
		unsigned int shift, i;
		struct vgpu_pt *child;

		next = vgpu_pt_addr_end(va, end, level);
		shift = vgpu_pt_leaf_shift(va, src->addr,
					   min(src->contig, end - va), up->caps);

		if (level == 0) {
			if (shift >= 16) {
				for (i = 0; i < 16; i++)
					vgpu_pt_write(pt, idx + i,
						      (src->addr + i * SZ_4K) |
						      flags | VGPU_PTE_FRAG64K);
				pt->live += 16;
				next = va + SZ_64K;
				up->stats->leaves_64k++;
			} else {
				vgpu_pt_write(pt, idx, src->addr | flags);
				pt->live++;
				up->stats->leaves_4k++;
			}
			vgpu_res_cursor_next(src, next - va);
			continue;
		}

		child = pt->children[idx];
		if (level == 1 && !child && shift >= vgpu_pt_shift(1) &&
		    next - va == vgpu_pt_span(1)) {
			vgpu_pt_write(pt, idx, src->addr | flags | VGPU_PTE_LEAF);
			pt->live++;
			up->stats->leaves_2m++;
			vgpu_res_cursor_next(src, next - va);
			continue;
		}

		if (!child) {
			child = vgpu_pt_alloc(up, level - 1);
			pt->children[idx] = child;
			vgpu_pt_write(pt, idx, vgpu_pt_desc(child));
			pt->live++;
		}
		vgpu_pt_map_range(up, child, va, next, src, flags);
	}
}

/**
 * vgpu_pt_map() - map a BO range into an empty VA range
 * @up: batch, with enough pages reserved (vgpu_pt_pages_for_map())
 * @root: the VM's root table
 * @va: start, 4 KiB aligned
 * @size: bytes, 4 KiB aligned
 * @tbo: the BO, reserved by the caller (its resource must not move)
 * @res: the resource to map (the BO's current or its next one)
 * @bo_offset: offset in the BO of @va
 * @pte_flags: %VGPU_PTE_READ / _WRITE / _EXEC
 *
 * Context: the VM's page-table lock held.
 * Return: 0, or -ENXIO if the device cannot reach @res (system pages not
 * populated); nothing is mapped then.
 */
int vgpu_pt_map(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		u64 size, struct ttm_buffer_object *tbo,
		struct ttm_resource *res, u64 bo_offset, u64 pte_flags)
{
	struct vgpu_res_cursor src;
	int ret;

	ret = vgpu_res_cursor_init(&src, tbo, res, bo_offset);
	if (ret)
		return ret;
	pte_flags |= VGPU_PTE_VALID;
	if (!src.vram)
		pte_flags |= VGPU_PTE_SYSTEM;
	vgpu_pt_map_range(up, root, va, va + size, &src, pte_flags);
	return 0;
}

/**
 * vgpu_pt_map_linear() - map a physically contiguous range
 * @up: batch, with vgpu_pt_pages_for_linear_map() pages reserved
 * @root: the VM's root table
 * @va: start
 * @addr: device address of @va (VRAM offset or DMA address)
 * @size: bytes
 * @pte_flags: %VGPU_PTE_READ / _WRITE / _EXEC, and %VGPU_PTE_SYSTEM for
 *	system memory
 *
 * For the kernel's own mappings (all of VRAM, all of system memory).
 *
 * Context: the VM's page-table lock held.
 */
void vgpu_pt_map_linear(struct vgpu_pt_update *up, struct vgpu_pt *root,
			u64 va, u64 addr, u64 size, u64 pte_flags)
{
	struct vgpu_res_cursor src;

	vgpu_res_cursor_init_linear(&src, addr, size,
				    !(pte_flags & VGPU_PTE_SYSTEM));
	vgpu_pt_map_range(up, root, va, va + size, &src,
			  pte_flags | VGPU_PTE_VALID);
}

/**
 * vgpu_pt_pages_for_linear_map() - tables a vgpu_pt_map_linear() allocates
 * @va: start, 2 MiB aligned, as is the device address
 * @size: bytes
 *
 * Return: number of pool pages to reserve: large leaves everywhere, small
 * ones only in the last 2 MiB.
 */
unsigned int vgpu_pt_pages_for_linear_map(u64 va, u64 size)
{
	unsigned int level, n = 1;
	u64 last = va + size - 1;

	for (level = 1; level < VGPU_PT_LEVELS - 1; level++)
		n += (last >> vgpu_pt_shift(level + 1)) -
		     (va >> vgpu_pt_shift(level + 1)) + 1;
	return n;
}

/* ------------------------------------------------------------- unmapping --- */

/* Replace the 2 MiB leaf at @pt[@idx] by a table of 64 KiB fragments. */
static struct vgpu_pt *vgpu_pt_split(struct vgpu_pt_update *up,
				     struct vgpu_pt *pt, unsigned int idx,
				     u64 leaf)
{
	u64 base = leaf & VGPU_PTE_ADDR_MASK & ~(vgpu_pt_span(pt->level) - 1);
	u64 flags = leaf & (VGPU_PTE_VALID | VGPU_PTE_READ | VGPU_PTE_WRITE |
			    VGPU_PTE_EXEC | VGPU_PTE_SYSTEM);
	struct vgpu_pt *child;
	unsigned int i;

	if (up->caps & VGPU_CAPS_PAGE_64K)
		flags |= VGPU_PTE_FRAG64K;
	child = vgpu_pt_alloc(up, pt->level - 1);
	for (i = 0; i < VGPU_PT_ENTRIES; i++)
		vgpu_pt_write(child, i, (base + i * SZ_4K) | flags);
	child->live = VGPU_PT_ENTRIES;
	if (flags & VGPU_PTE_FRAG64K)
		up->stats->leaves_64k += VGPU_PT_ENTRIES / 16;
	else
		up->stats->leaves_4k += VGPU_PT_ENTRIES;
	pt->children[idx] = child;
	vgpu_pt_write(pt, idx, vgpu_pt_desc(child));
	return child;
}

/* Level 0: clear PTEs in [va, end); break fragments cut in two. */
static void vgpu_pt_unmap_ptes(struct vgpu_pt_update *up, struct vgpu_pt *pt,
			       u64 va, u64 end)
{
	unsigned int first = vgpu_pt_index(va, 0);
	unsigned int last = first + ((end - va) >> VGPU_PAGE_SHIFT);
	unsigned int i, j;

	for (i = first; i < last; i++) {
		u64 pte = vgpu_pt_read(pt, i);

		if (!(pte & VGPU_PTE_VALID))
			continue;
		if (pte & VGPU_PTE_FRAG64K) {
			unsigned int g = i & ~15u;

			/* Keep the part of the fragment outside the range. */
			for (j = g; j < g + 16; j++) {
				u64 other = vgpu_pt_read(pt, j);

				if ((j < first || j >= last) &&
				    (other & VGPU_PTE_FRAG64K))
					vgpu_pt_write(pt, j, other & ~VGPU_PTE_FRAG64K);
			}
			vgpu_pt_inval_add(up, (va & ~(SZ_2M - 1ull)) +
					  (u64)g * SZ_4K, SZ_64K);
		}
		vgpu_pt_write(pt, i, 0);
		pt->live--;
	}
	vgpu_pt_inval_add(up, va, end - va);
}

static void vgpu_pt_unmap_range(struct vgpu_pt_update *up, struct vgpu_pt *pt,
				u64 va, u64 end)
{
	unsigned int level = pt->level;
	u64 next;

	if (level == 0) {
		vgpu_pt_unmap_ptes(up, pt, va, end);
		return;
	}

	for (; va < end; va = next) {
		unsigned int idx = vgpu_pt_index(va, level);
		u64 span = vgpu_pt_span(level);
		u64 entry_va = va & ~(span - 1);
		struct vgpu_pt *child = pt->children[idx];

		next = vgpu_pt_addr_end(va, end, level);
		if (!child) {
			u64 e = vgpu_pt_read(pt, idx);

			if (!(e & VGPU_PTE_VALID))
				continue;
			vgpu_pt_inval_add(up, entry_va, span);
			if (next - va == span) {
				vgpu_pt_write(pt, idx, 0);
				pt->live--;
				continue;
			}
			child = vgpu_pt_split(up, pt, idx, e);
		}

		vgpu_pt_unmap_range(up, child, va, next);
		if (!child->live) {
			vgpu_pt_write(pt, idx, 0);
			pt->children[idx] = NULL;
			pt->live--;
			list_add_tail(&child->free_link, &up->freed);
		}
	}
}

/**
 * vgpu_pt_unmap() - remove every translation in a VA range
 * @up: batch, with vgpu_pt_pages_for_unmap() pages reserved
 * @root: the VM's root table (never freed here)
 * @va: start, 4 KiB aligned
 * @size: bytes, 4 KiB aligned
 *
 * Context: the VM's page-table lock held.
 */
void vgpu_pt_unmap(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		   u64 size)
{
	vgpu_pt_unmap_range(up, root, va, va + size);
}
