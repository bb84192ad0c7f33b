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
 * One generic walker, vgpu_pt_walk(), does every page-table operation.
 * The levels are data (``vgpu_pt_levels[]``: the span of an entry, whether
 * and with which capability it may be a leaf, the 64 KiB fragment of
 * level 0); the walk visits each entry that translates part of the range,
 * descends into tables, and lets the operation act on an entry without
 * one.  The VM is the only writer of its tables, through these
 * operations, and every reader (debugfs, the paging code harvesting A/D
 * bits) reads through the same walk:
 *
 * - **MAP** (bind) uses, at each entry, the largest leaf the VA, the
 *   backing address and the contiguous length allow: a 1 GiB leaf (a
 *   level-2 entry with LEAF), a 2 MiB leaf (level 1 with LEAF), a 64 KiB
 *   fragment (16 level-0 PTEs with FRAG64K) or a 4 KiB PTE.  VRAM backing
 *   comes from the buddy blocks of the BO's resource, system backing from
 *   the DMA addresses of its pages (checked for contiguity 2 MiB ahead, so
 *   1 GiB leaves map VRAM and the kernel's linear windows), so both
 *   apertures get large leaves when the memory is physically contiguous
 *   and aligned.  A mapping is only ever written into a range that is
 *   empty.
 * - **UNMAP** (unbind) clears entries and frees tables that become empty.
 *   Unmapping part of a large leaf first splits it, from the leaf itself
 *   and not from the BO: a 1 GiB leaf becomes a level-1 table of 2 MiB
 *   leaves, a 2 MiB leaf a level-0 table of 64 KiB fragments, and a
 *   fragment cut in two loses its FRAG64K bit.  So splitting a mapping
 *   (drm_gpuvm's REMAP) never needs the BO, nor its lock.  A split keeps
 *   the leaf's ACCESSED and DIRTY bits in every piece.
 * - **ZAP** clears leaves like UNMAP but keeps every table, so that a
 *   second walk after the TLB invalidation still finds the entries.
 * - **READ** changes nothing and reports each leaf and table.
 * - **AGE** tests and clears ACCESSED in each valid leaf, for the pool's
 *   recency sampler ("Eviction policies and how recency is sampled"): a
 *   leaf with ACCESSED is rewritten without it through the exchange, and
 *   a DIRTY bit the device sets between the read and the exchange comes
 *   back in the old value and is written back (repeated until no new bit
 *   came, as any rewrite).  A leaf without ACCESSED is not touched.  Each leaf cleared
 *   widens the batch's invalidation: the device sets ACCESSED only when
 *   it walks, and a translation still cached would hide the next use.
 *
 * UNMAP and ZAP return the OR of the ACCESSED and DIRTY bits of the
 * leaves they cleared (for a 64 KiB fragment the device sets them in the
 * PTE of the page it walked, so the OR runs over all sixteen), and clear
 * and OR in the bits of entries that are no longer valid: a walk that read
 * a leaf just before it was cleared still sets its bits afterwards.  The
 * bits of a range are therefore final only after a ZAP, the TLB
 * invalidation and a second ZAP (hardware.rst "TLB and invalidation");
 * vgpu_vm_pt_zap() does that for the paging code.
 *
 * The device sets A/D bits with an atomic OR in VRAM, which a CPU read
 * and write through the BAR cannot be atomic with (nor can a locked CPU
 * instruction on a PCI BAR).  So every write that removes or rewrites a
 * leaf the device may be walking goes through the device's exchange
 * (PT_XCHG, vgpu_pt_pool_xchg()), and the A/D bits are taken from the
 * old value it returns: clearing a leaf, clearing the bits left in an
 * invalid entry, replacing a leaf by the table of a split (bits set in
 * the leaf meanwhile go into every piece), and dropping FRAG64K from the
 * rest of a cut fragment (repeated until the device set no new bit in
 * between).  A bit the device sets is thus either in the value the
 * exchange returns or lands in the entry after it, where the second ZAP
 * finds it.  Writes into empty entries (MAP, a split's new table, its
 * directory entry) and clearing directory entries, which the device
 * never writes, stay plain writes through the BAR.  The exchange costs
 * three register accesses (8 bytes each) per cleared leaf, besides the
 * read of the entry through the BAR that decides what to do.
 *
 * Every removed or changed translation, and every table unlinked, widens
 * the batch's invalidation range; the VM flushes the TLB once per batch
 * and only then returns the freed tables to the pool (the device may
 * still be walking them).
 *
 * Page-table updates draw tables from a reservation made beforehand
 * (vgpu_pt_pages_for_map() / vgpu_pt_pages_for_unmap() give the worst
 * case), because allocating VRAM may evict BOs, which updates page
 * tables in turn; the reservation holds their system-memory bookkeeping
 * too, so that no update allocates memory under the VM's page-table lock
 * (the mmu notifier of CPU-address mirrors takes it, in reclaim too).
 */

static void vgpu_pt_write(struct vgpu_pt *pt, unsigned int idx, u64 val)
{
	writeq(val, pt->page.cpu + idx * sizeof(u64));
}

static u64 vgpu_pt_read(struct vgpu_pt *pt, unsigned int idx)
{
	return readq(pt->page.cpu + idx * sizeof(u64));
}

/* Replace an entry the device may be setting A/D bits in; the old value. */
static u64 vgpu_pt_xchg(struct vgpu_pt_update *up, struct vgpu_pt *pt,
			unsigned int idx, u64 val)
{
	return vgpu_pt_pool_xchg(up->vdev, &pt->page, idx, val);
}

/*
 * Rewrite the live leaf @pt[@idx], last seen as @e, to @e without @clear,
 * keeping the A/D bits the device sets meanwhile: the exchange returns
 * them, and the write is repeated with them until no bit is new (at most
 * once per A/D bit).
 */
static void vgpu_pt_rewrite(struct vgpu_pt_update *up, struct vgpu_pt *pt,
			    unsigned int idx, u64 e, u64 clear)
{
	u64 old;

	while ((old = vgpu_pt_xchg(up, pt, idx, e & ~clear)) & ~e & VGPU_PT_AD)
		e |= old & VGPU_PT_AD;
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
 * Splitting the large leaves at both ends of the range takes a table per
 * level below 1 GiB each (a 1 GiB leaf into 2 MiB leaves, one of those
 * into 4 KiB or 64 KiB ones).
 *
 * Return: number of pool pages to reserve.
 */
unsigned int vgpu_pt_pages_for_unmap(u64 va, u64 size)
{
	return 2 * (VGPU_PT_LEVELS - 2);
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
	up->caps = vdev->caps & (VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M |
				 VGPU_CAPS_PAGE_1G);
	/* A 1 GiB leaf is split into 2 MiB ones: no 1 GiB without 2 MiB. */
	if (!(up->caps & VGPU_CAPS_PAGE_2M))
		up->caps &= ~VGPU_CAPS_PAGE_1G;
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
 * Allocates no memory: the page and its bookkeeping come from what the
 * reservation made ready (see "page-table pool").
 *
 * Return: the table; never fails.
 */
struct vgpu_pt *vgpu_pt_alloc(struct vgpu_pt_update *up, unsigned int level)
{
	struct vgpu_pt *pt;

	pt = vgpu_pt_pool_shadow_get(up->vdev, level > 0);
	pt->level = level;
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
	vgpu_pt_pool_shadow_put(vdev, pt);
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


/* ---------------------------------------------------------- the walker --- */

/**
 * struct vgpu_pt_level - what an entry of one level is, as data
 * @shift: log2 of the VA span of one entry.
 * @leaf_cap: ``VGPU_CAPS_PAGE_*`` bit a leaf at this level needs; 0 if a
 *	leaf here needs none (level 0).
 * @leaf_bits: bits that mark a leaf here (%VGPU_PTE_LEAF above level 0).
 * @has_leaves: an entry may be a leaf (not at the root).
 * @frag_shift: level 0: log2 of a fragment (16 PTEs, %VGPU_PTE_FRAG64K).
 * @frag_cap: level 0: the capability a fragment needs.
 *
 * The one description of the tree every operation walks, as xe_pt_walk's
 * ``shifts[]``; hardware.rst "Leaves" is its specification.
 */
struct vgpu_pt_level {
	u8 shift;
	u32 leaf_cap;
	u64 leaf_bits;
	bool has_leaves;
	u8 frag_shift;
	u32 frag_cap;
};

static const struct vgpu_pt_level vgpu_pt_levels[VGPU_PT_LEVELS] = {
	[0] = { .shift = 12, .has_leaves = true, .frag_shift = 16,
		.frag_cap = VGPU_CAPS_PAGE_64K },
	[1] = { .shift = 21, .has_leaves = true, .leaf_cap = VGPU_CAPS_PAGE_2M,
		.leaf_bits = VGPU_PTE_LEAF },
	[2] = { .shift = 30, .has_leaves = true, .leaf_cap = VGPU_CAPS_PAGE_1G,
		.leaf_bits = VGPU_PTE_LEAF },
	[3] = { .shift = 39 },
};

/* PTE bits a split copies from a leaf into its pieces. */
#define VGPU_PT_LEAF_KEEP	(VGPU_PTE_VALID | VGPU_PTE_READ | VGPU_PTE_WRITE | \
				 VGPU_PTE_EXEC | VGPU_PTE_SYSTEM | VGPU_PT_AD)

/**
 * struct vgpu_pt_walk - one operation over a VA range
 * @op: what to do at each entry.
 * @up: the batch (not for %VGPU_PT_OP_READ).
 * @src: MAP: backing addresses, advanced as leaves are written.
 * @flags: MAP: VALID, permissions and aperture of the new leaves.
 * @fn: called for each leaf read or cleared (and, for READ, each table);
 *	may be NULL.
 * @arg: for @fn.
 * @ad: %VGPU_PTE_ACCESSED / %VGPU_PTE_DIRTY of the leaves read or cleared
 *	(AGE: as read before ACCESSED was cleared).
 */
struct vgpu_pt_walk {
	enum vgpu_pt_op op;
	struct vgpu_pt_update *up;
	struct vgpu_res_cursor *src;
	u64 flags;
	vgpu_pt_visit_fn fn;
	void *arg;
	u64 ad;
};

static void vgpu_pt_count_leaf(struct vgpu_pt_update *up, unsigned int shift,
			       u64 n)
{
	switch (shift) {
	case 12:
		up->stats->leaves_4k += n;
		break;
	case 16:
		up->stats->leaves_64k += n;
		break;
	case 21:
		up->stats->leaves_2m += n;
		break;
	default:
		up->stats->leaves_1g += n;
		break;
	}
}

static void vgpu_pt_visit(struct vgpu_pt_walk *w, unsigned int level, u64 va,
			  u64 pte, bool table)
{
	if (!table)
		w->ad |= pte & VGPU_PT_AD;
	if (w->fn)
		w->fn(w->arg, level, va, pte, table);
}

/* A new table under @pt[@idx]. */
static struct vgpu_pt *vgpu_pt_link(struct vgpu_pt_update *up,
				    struct vgpu_pt *pt, unsigned int idx)
{
	struct vgpu_pt *child = vgpu_pt_alloc(up, pt->level - 1);

	pt->children[idx] = child;
	return child;
}

/*
 * Replace the leaf @leaf at @pt[@idx] by a table of the next smaller
 * leaves covering the same memory with the same flags (A/D included: the
 * pieces stay as accessed and dirty as the whole was, also by the bits
 * the device set in the leaf after it was read).
 */
static struct vgpu_pt *vgpu_pt_split(struct vgpu_pt_update *up,
				     struct vgpu_pt *pt, unsigned int idx,
				     u64 leaf)
{
	unsigned int cl = pt->level - 1;
	const struct vgpu_pt_level *lv = &vgpu_pt_levels[cl];
	u64 base = leaf & VGPU_PTE_ADDR_MASK & ~(vgpu_pt_span(pt->level) - 1);
	u64 flags = (leaf & VGPU_PT_LEAF_KEEP) | lv->leaf_bits;
	unsigned int shift = lv->shift;
	struct vgpu_pt *child;
	unsigned int i;
	u64 late;

	if (lv->frag_cap && (up->caps & lv->frag_cap)) {
		flags |= VGPU_PTE_FRAG64K;
		shift = lv->frag_shift;
	}
	child = vgpu_pt_link(up, pt, idx);
	for (i = 0; i < VGPU_PT_ENTRIES; i++)
		vgpu_pt_write(child, i, (base + ((u64)i << lv->shift)) | flags);
	child->live = VGPU_PT_ENTRIES;
	vgpu_pt_count_leaf(up, shift,
			   VGPU_PT_ENTRIES >> (shift - lv->shift));
	late = vgpu_pt_xchg(up, pt, idx, vgpu_pt_desc(child)) & ~leaf &
	       VGPU_PT_AD;
	if (late)
		for (i = 0; i < VGPU_PT_ENTRIES; i++)
			vgpu_pt_rewrite(up, child, i,
					vgpu_pt_read(child, i) | late, 0);
	return child;
}

/* MAP at an entry with no table: a leaf if one fits, else a new table. */
static struct vgpu_pt *vgpu_pt_entry_map(struct vgpu_pt_walk *w,
					 struct vgpu_pt *pt, unsigned int idx,
					 u64 va, u64 end, u64 *next)
{
	const struct vgpu_pt_level *lv = &vgpu_pt_levels[pt->level];
	struct vgpu_res_cursor *src = w->src;
	struct vgpu_pt_update *up = w->up;
	unsigned int shift, i, n = 1;

	shift = vgpu_pt_leaf_shift(va, src->addr, min(src->contig, end - va),
				   up->caps);
	if (pt->level) {
		if (!lv->has_leaves || !(up->caps & lv->leaf_cap) ||
		    shift < lv->shift || *next - va != vgpu_pt_span(pt->level)) {
			struct vgpu_pt *child = vgpu_pt_link(up, pt, idx);

			vgpu_pt_write(pt, idx, vgpu_pt_desc(child));
			pt->live++;
			return child;
		}
		shift = lv->shift;
		vgpu_pt_write(pt, idx, src->addr | w->flags | lv->leaf_bits);
	} else if ((up->caps & lv->frag_cap) && shift >= lv->frag_shift) {
		shift = lv->frag_shift;
		n = 1u << (shift - lv->shift);
		for (i = 0; i < n; i++)
			vgpu_pt_write(pt, idx + i, (src->addr + i * SZ_4K) |
				      w->flags | VGPU_PTE_FRAG64K);
		*next = va + (1ull << shift);
	} else {
		shift = lv->shift;
		vgpu_pt_write(pt, idx, src->addr | w->flags);
	}
	pt->live += n;
	vgpu_pt_count_leaf(up, shift, 1);
	vgpu_res_cursor_next(src, *next - va);
	return NULL;
}

/*
 * UNMAP / ZAP at an entry with no table: clear a leaf the range covers,
 * split one it covers in part (and go on in the pieces).
 */
static struct vgpu_pt *vgpu_pt_entry_clear(struct vgpu_pt_walk *w,
					   struct vgpu_pt *pt, unsigned int idx,
					   u64 va, u64 next)
{
	u64 span = vgpu_pt_span(pt->level), entry_va = va & ~(span - 1);
	struct vgpu_pt_update *up = w->up;
	u64 e = vgpu_pt_read(pt, idx);
	unsigned int g, j;

	if (!(e & VGPU_PTE_VALID)) {
		/* A/D the device set after an earlier ZAP cleared the leaf. */
		if (e & VGPU_PT_AD)
			w->ad |= vgpu_pt_xchg(up, pt, idx, 0) & VGPU_PT_AD;
		return NULL;
	}
	vgpu_pt_inval_add(up, entry_va, span);
	if (pt->level && next - va != span)
		return vgpu_pt_split(up, pt, idx, e);
	if (!pt->level && (e & VGPU_PTE_FRAG64K)) {
		/* The rest of a fragment cut in two: plain 4 KiB pages. */
		g = idx & ~15u;
		for (j = g; j < g + 16; j++) {
			u64 other = vgpu_pt_read(pt, j);

			if (j != idx && (other & VGPU_PTE_FRAG64K))
				vgpu_pt_rewrite(up, pt, j, other,
						VGPU_PTE_FRAG64K);
		}
		vgpu_pt_inval_add(up, entry_va - (u64)(idx - g) * SZ_4K, SZ_64K);
	}
	/* The leaf as the device left it: with every A/D bit it set. */
	e = vgpu_pt_xchg(up, pt, idx, 0);
	pt->live--;
	vgpu_pt_visit(w, pt->level, entry_va, e, false);
	return NULL;
}

/* READ at an entry with no table. */
static void vgpu_pt_entry_read(struct vgpu_pt_walk *w, struct vgpu_pt *pt,
			       unsigned int idx, u64 va)
{
	u64 e = vgpu_pt_read(pt, idx);

	if (e & VGPU_PTE_VALID)
		vgpu_pt_visit(w, pt->level,
			      va & ~(vgpu_pt_span(pt->level) - 1), e, false);
}

/*
 * AGE at an entry with no table: test and clear ACCESSED in a leaf,
 * keeping DIRTY even if the device sets it as the leaf is rewritten.
 */
static void vgpu_pt_entry_age(struct vgpu_pt_walk *w, struct vgpu_pt *pt,
			      unsigned int idx, u64 va)
{
	u64 span = vgpu_pt_span(pt->level);
	u64 e = vgpu_pt_read(pt, idx);

	if (!(e & VGPU_PTE_VALID) || !(e & VGPU_PTE_ACCESSED))
		return;
	vgpu_pt_rewrite(w->up, pt, idx, e, VGPU_PTE_ACCESSED);
	vgpu_pt_inval_add(w->up, va & ~(span - 1), span);
	vgpu_pt_visit(w, pt->level, va & ~(span - 1), e, false);
}

/* Unlink the emptied table @pt[@idx]; it is freed after the TLB flush. */
static void vgpu_pt_prune(struct vgpu_pt_update *up, struct vgpu_pt *pt,
			  unsigned int idx, u64 va, u64 next)
{
	struct vgpu_pt *child = pt->children[idx];

	/* A directory entry: the device never writes it, no exchange. */
	vgpu_pt_write(pt, idx, 0);
	pt->children[idx] = NULL;
	pt->live--;
	/* An invalidation orders the free after walks still in the table. */
	vgpu_pt_inval_add(up, va, next - va);
	list_add_tail(&child->free_link, &up->freed);
}

/*
 * The generic walk: visit each entry of @pt that translates part of
 * [@va, @end), let the operation act on entries without a table, and
 * descend into tables.
 */
static void vgpu_pt_walk_range(struct vgpu_pt_walk *w, struct vgpu_pt *pt,
			       u64 va, u64 end)
{
	unsigned int level = pt->level;
	u64 next;

	for (; va < end; va = next) {
		unsigned int idx = vgpu_pt_index(va, level);
		struct vgpu_pt *child = level ? pt->children[idx] : NULL;

		next = vgpu_pt_addr_end(va, end, level);
		if (child) {
			if (w->op == VGPU_PT_OP_READ)
				vgpu_pt_visit(w, level, va & ~(vgpu_pt_span(level) - 1),
					      vgpu_pt_read(pt, idx), true);
		} else {
			switch (w->op) {
			case VGPU_PT_OP_MAP:
				child = vgpu_pt_entry_map(w, pt, idx, va, end, &next);
				break;
			case VGPU_PT_OP_UNMAP:
			case VGPU_PT_OP_ZAP:
				child = vgpu_pt_entry_clear(w, pt, idx, va, next);
				break;
			case VGPU_PT_OP_READ:
				vgpu_pt_entry_read(w, pt, idx, va);
				break;
			case VGPU_PT_OP_AGE:
				vgpu_pt_entry_age(w, pt, idx, va);
				break;
			}
			if (!child)
				continue;
		}
		vgpu_pt_walk_range(w, child, va, next);
		if (w->op == VGPU_PT_OP_UNMAP && !child->live)
			vgpu_pt_prune(w->up, pt, idx, va, next);
	}
}

/**
 * vgpu_pt_walk() - run one operation over a VA range
 * @op: %VGPU_PT_OP_MAP, _UNMAP, _ZAP, _READ or _AGE
 * @up: batch (NULL for READ); for MAP with vgpu_pt_pages_for_map() (or
 *	vgpu_pt_pages_for_linear_map()) pages reserved, for UNMAP and ZAP
 *	with vgpu_pt_pages_for_unmap(); AGE allocates nothing
 * @root: the VM's root table (never freed here)
 * @va: start, 4 KiB aligned
 * @size: bytes, 4 KiB aligned
 * @src: MAP: the backing addresses; else NULL
 * @flags: MAP: VALID, permissions and aperture; else 0
 * @fn: called for each leaf read or cleared (READ: each table too), or NULL
 * @arg: for @fn
 *
 * The one walker of the page tables (see "page tables").
 *
 * Context: the VM's page-table lock held.
 * Return: the OR of %VGPU_PTE_ACCESSED and %VGPU_PTE_DIRTY over the
 * leaves read (READ) or cleared (UNMAP, ZAP, both including bits the
 * device set in entries after an earlier UNMAP or ZAP cleared them, which
 * they clear too), or whose ACCESSED was cleared (AGE, the bits as read
 * before); 0 for MAP.
 */
u64 vgpu_pt_walk(enum vgpu_pt_op op, struct vgpu_pt_update *up,
		 struct vgpu_pt *root, u64 va, u64 size,
		 struct vgpu_res_cursor *src, u64 flags,
		 vgpu_pt_visit_fn fn, void *arg)
{
	struct vgpu_pt_walk w = {
		.op = op, .up = up, .src = src, .flags = flags,
		.fn = fn, .arg = arg,
	};

	vgpu_pt_walk_range(&w, root, va, va + size);
	return w.ad;
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
	vgpu_pt_walk(VGPU_PT_OP_MAP, up, root, va, size, &src, pte_flags,
		     NULL, NULL);
	return 0;
}

/**
 * vgpu_pt_map_dma() - map pages given by their device addresses
 * @up: batch, with vgpu_pt_pages_for_map() pages reserved
 * @root: the VM's root table
 * @va: start, 4 KiB aligned
 * @size: bytes, 4 KiB aligned
 * @dma: device address of each page of the range
 * @vram: the addresses are VRAM offsets, else system DMA addresses
 * @pte_flags: %VGPU_PTE_READ / _WRITE / _EXEC
 *
 * For memory that is no BO's: the pages of a CPU-address mirror, in
 * system memory or migrated into VRAM (device-private pages).
 *
 * Context: the VM's page-table lock held.
 */
void vgpu_pt_map_dma(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		     u64 size, const dma_addr_t *dma, bool vram, u64 pte_flags)
{
	struct vgpu_res_cursor src;

	vgpu_res_cursor_init_dma(&src, dma, size >> PAGE_SHIFT, vram);
	vgpu_pt_walk(VGPU_PT_OP_MAP, up, root, va, size, &src,
		     pte_flags | VGPU_PTE_VALID | (vram ? 0 : VGPU_PTE_SYSTEM),
		     NULL, NULL);
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
 * For the kernel's own mappings (all of VRAM, all of system memory) and
 * for a chunk's VRAM copy.
 *
 * Context: the VM's page-table lock held.
 */
void vgpu_pt_map_linear(struct vgpu_pt_update *up, struct vgpu_pt *root,
			u64 va, u64 addr, u64 size, u64 pte_flags)
{
	struct vgpu_res_cursor src;

	vgpu_res_cursor_init_linear(&src, addr, size,
				    !(pte_flags & VGPU_PTE_SYSTEM));
	vgpu_pt_walk(VGPU_PT_OP_MAP, up, root, va, size, &src,
		     pte_flags | VGPU_PTE_VALID, NULL, NULL);
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

/**
 * vgpu_pt_unmap() - remove every translation in a VA range
 * @up: batch, with vgpu_pt_pages_for_unmap() pages reserved
 * @root: the VM's root table (never freed here)
 * @va: start, 4 KiB aligned
 * @size: bytes, 4 KiB aligned
 *
 * Tables left empty are unlinked and freed after the batch's TLB flush.
 *
 * Context: the VM's page-table lock held.
 * Return: the OR of the A/D bits cleared, as vgpu_pt_walk().
 */
u64 vgpu_pt_unmap(struct vgpu_pt_update *up, struct vgpu_pt *root, u64 va,
		  u64 size)
{
	return vgpu_pt_walk(VGPU_PT_OP_UNMAP, up, root, va, size, NULL, 0,
			    NULL, NULL);
}
