/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PT_GEOM_H__
#define __VGPU_PT_GEOM_H__

#include <linux/bits.h>
#include <linux/types.h>

#include "vgpu_hw.h"

/**
 * DOC: page-table geometry
 *
 * The GPU MMU translates 48-bit virtual addresses through four levels of
 * 512-entry tables (``vgpu_hw.h``).  Level 3 is the root; an entry at level
 * *l* spans 2^(12 + 9 *l*) bytes of virtual address space::
 *
 *   VA bits  47..39  38..30  29..21  20..12  11..0
 *   level       3       2       1       0    offset
 *
 * A range is mapped with the largest leaves that fit it:
 *
 * ===========  =====  =====================================  ===============
 * leaf         level  entry                                  capability
 * ===========  =====  =====================================  ===============
 * 4 KiB        0      PTE                                    always
 * 64 KiB       0      16 PTEs, each with %VGPU_PTE_FRAG64K   %VGPU_CAPS_PAGE_64K
 * 2 MiB        1      PDE with %VGPU_PTE_LEAF                %VGPU_CAPS_PAGE_2M
 * 1 GiB        2      PDE with %VGPU_PTE_LEAF                %VGPU_CAPS_PAGE_1G
 * ===========  =====  =====================================  ===============
 *
 * A leaf of size S may map [va, va + S) only if the device supports it, both
 * @va and the backing address (VRAM offset or DMA address) are multiples of
 * S, and the backing store is contiguous for at least S bytes from there.
 *
 * The helpers below are that geometry and nothing else: pure functions of
 * their arguments, shared by the page-table code and tested without a device
 * by KUnit (``tests/vgpu_kunit_pt_geom.c``).
 */

/** VGPU_VA_END - first GPU virtual address past the address space */
#define VGPU_VA_END		(1ull << VGPU_VA_BITS)

/**
 * vgpu_pt_shift() - log2 of the span of one entry at a level
 * @level: page-table level, 0 (4 KiB PTEs) to %VGPU_PT_LEVELS - 1 (root);
 *	%VGPU_PT_LEVELS gives the whole address space
 *
 * Return: 12, 21, 30, 39 or 48.
 */
static inline unsigned int vgpu_pt_shift(unsigned int level)
{
	return VGPU_PT_LEVEL_SHIFT(level);
}

/**
 * vgpu_pt_span() - bytes of virtual address space one entry maps at a level
 * @level: page-table level, as for vgpu_pt_shift()
 *
 * Return: 4 KiB, 2 MiB, 1 GiB, 512 GiB or 256 TiB.
 */
static inline u64 vgpu_pt_span(unsigned int level)
{
	return 1ull << vgpu_pt_shift(level);
}

/**
 * vgpu_pt_index() - index of the entry that translates @va at a level
 * @va: GPU virtual address
 * @level: page-table level, 0 to %VGPU_PT_LEVELS - 1
 *
 * Bits of @va above %VGPU_VA_BITS are ignored.
 *
 * Return: 0 to %VGPU_PT_ENTRIES - 1.
 */
static inline unsigned int vgpu_pt_index(u64 va, unsigned int level)
{
	return (va >> vgpu_pt_shift(level)) & (VGPU_PT_ENTRIES - 1);
}

/**
 * vgpu_pt_addr_end() - end of the walk step that starts at @va
 * @va: GPU virtual address, inside [@va, @end)
 * @end: end of the range being walked (exclusive)
 * @level: page-table level of the entry being visited
 *
 * A walker visiting level @level handles [@va, return value) through one
 * entry, then moves to the next entry.
 *
 * Return: the start of the next level-@level entry after @va, or @end if
 * that comes first.
 */
static inline u64 vgpu_pt_addr_end(u64 va, u64 end, unsigned int level)
{
	u64 next = (va | (vgpu_pt_span(level) - 1)) + 1;

	/* "- 1" on both sides: next wraps to 0 past the top of u64 */
	return next - 1 < end - 1 ? next : end;
}

/**
 * vgpu_pt_range_valid() - check a range against the GPU address space
 * @va: first GPU virtual address of the range
 * @size: length in bytes
 *
 * Return: true if @size is non-zero, @va and @size are multiples of 4 KiB
 * and the range lies below %VGPU_VA_END.
 */
static inline bool vgpu_pt_range_valid(u64 va, u64 size)
{
	return size && !((va | size) & (VGPU_PAGE_SIZE_4K - 1)) &&
	       va < VGPU_VA_END && size <= VGPU_VA_END - va;
}

/**
 * vgpu_pt_page_sizes() - GPU page sizes a device supports
 * @caps: the device's VGPU_REG_CAPS register
 *
 * Return: bitmask with bit n set for each supported leaf of 2^n bytes, as
 * reported by %DRM_VGPU_PARAM_PAGE_SIZES; 4 KiB is always supported.
 */
static inline u64 vgpu_pt_page_sizes(u32 caps)
{
	u64 sizes = VGPU_PAGE_SIZE_4K;

	if (caps & VGPU_CAPS_PAGE_64K)
		sizes |= VGPU_PAGE_SIZE_64K;
	if (caps & VGPU_CAPS_PAGE_2M)
		sizes |= VGPU_PAGE_SIZE_2M;
	if (caps & VGPU_CAPS_PAGE_1G)
		sizes |= VGPU_PAGE_SIZE_1G;
	return sizes;
}

/**
 * vgpu_pt_leaf_shift() - largest leaf that can map the start of a range
 * @va: GPU virtual address of the start of the range
 * @addr: backing address of @va: VRAM offset or DMA address
 * @size: bytes from @va (and from @addr) that are contiguous in the backing
 *	store and still to be mapped
 * @caps: the device's VGPU_REG_CAPS register
 *
 * Picks the largest leaf size S supported by the device with @va and @addr
 * both multiples of S and @size at least S.  Mapping a range is a loop:
 * map one leaf of the returned size, advance @va and @addr by it, subtract
 * it from @size, repeat.
 *
 * Return: log2 of the leaf size (30, 21, 16 or 12), or 0 if not even a
 * 4 KiB page fits (@va or @addr not 4 KiB aligned, or @size below 4 KiB).
 */
static inline unsigned int vgpu_pt_leaf_shift(u64 va, u64 addr, u64 size,
					      u32 caps)
{
	u64 align = va | addr;

	if ((caps & VGPU_CAPS_PAGE_1G) && size >= VGPU_PAGE_SIZE_1G &&
	    !(align & (VGPU_PAGE_SIZE_1G - 1)))
		return 30;
	if ((caps & VGPU_CAPS_PAGE_2M) && size >= VGPU_PAGE_SIZE_2M &&
	    !(align & (VGPU_PAGE_SIZE_2M - 1)))
		return 21;
	if ((caps & VGPU_CAPS_PAGE_64K) && size >= VGPU_PAGE_SIZE_64K &&
	    !(align & (VGPU_PAGE_SIZE_64K - 1)))
		return 16;
	if (size >= VGPU_PAGE_SIZE_4K && !(align & (VGPU_PAGE_SIZE_4K - 1)))
		return 12;
	return 0;
}

/**
 * vgpu_pt_leaf_level() - page-table level that holds a leaf
 * @shift: log2 of the leaf size, as returned by vgpu_pt_leaf_shift()
 *
 * 64 KiB fragments live at level 0 like 4 KiB pages: they are runs of 16
 * PTEs flagged %VGPU_PTE_FRAG64K.
 *
 * Return: 0 for 4 KiB and 64 KiB, 1 for 2 MiB, 2 for 1 GiB.
 */
static inline unsigned int vgpu_pt_leaf_level(unsigned int shift)
{
	return (shift - VGPU_PAGE_SHIFT) / 9;
}

/**
 * vgpu_pt_leaf_flags() - PTE bits that mark a leaf of a given size
 * @shift: log2 of the leaf size, as returned by vgpu_pt_leaf_shift()
 *
 * Return: %VGPU_PTE_LEAF for 2 MiB and 1 GiB leaves (a PDE that maps
 * memory), %VGPU_PTE_FRAG64K for 64 KiB fragments, 0 for 4 KiB pages.
 */
static inline u64 vgpu_pt_leaf_flags(unsigned int shift)
{
	if (shift == 16)
		return VGPU_PTE_FRAG64K;
	return shift > VGPU_PAGE_SHIFT ? VGPU_PTE_LEAF : 0;
}

#endif /* __VGPU_PT_GEOM_H__ */
