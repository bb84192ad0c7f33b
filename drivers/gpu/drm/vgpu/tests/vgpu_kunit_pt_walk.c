// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

/*
 * KUnit tests for the page-table walker (vgpu_pt_walk() and its MAP,
 * UNMAP, ZAP, READ and AGE operations): leaves of every size at every level
 * and alignment, splits, zaps that keep their tables, and the harvest of
 * the device's ACCESSED / DIRTY bits, including bits that land in an
 * entry after it was cleared.
 *
 * No device: the walker's source is included, and the page-table pool
 * below hands out zeroed kernel pages, which readq()/writeq() access like
 * the BAR window.  What the device would do (set A/D bits in a leaf) the
 * tests do by writing the entry; the device's exchange (PT_XCHG) is a
 * read and a write of the entry, counted, and may first OR in the bits a
 * test says the device sets just before it.
 */
#include "../vgpu_pt.c"

#include <kunit/test.h>

#include <linux/sizes.h>

/* ------------------------------------------------ pool for the tests --- */

static int pt_pages_live;

void vgpu_pt_pool_get(struct vgpu_device *vdev, struct vgpu_pt_page *page)
{
	void *p = kzalloc(VGPU_PT_SIZE, GFP_KERNEL | __GFP_NOFAIL);

	page->chunk = NULL;
	page->cpu = (void __iomem __force *)p;
	page->addr = virt_to_phys(p);
	pt_pages_live++;
}

void vgpu_pt_pool_put(struct vgpu_device *vdev, struct vgpu_pt_page *page)
{
	kfree((void __force *)page->cpu);
	pt_pages_live--;
}

void vgpu_pt_pool_unreserve(struct vgpu_device *vdev, unsigned int n)
{
}

static int pt_shadows_live;

/* The bookkeeping of a table: allocated here, the pool's comes reserved. */
struct vgpu_pt *vgpu_pt_pool_shadow_get(struct vgpu_device *vdev, bool dir)
{
	struct vgpu_pt *pt = kzalloc(sizeof(*pt), GFP_KERNEL | __GFP_NOFAIL);

	if (dir)
		pt->children = kcalloc(VGPU_PT_ENTRIES, sizeof(*pt->children),
				       GFP_KERNEL | __GFP_NOFAIL);
	INIT_LIST_HEAD(&pt->free_link);
	pt_shadows_live++;
	return pt;
}

void vgpu_pt_pool_shadow_put(struct vgpu_device *vdev, struct vgpu_pt *pt)
{
	kfree(pt->children);
	kfree(pt);
	pt_shadows_live--;
}

static unsigned int pt_xchgs;
static u64 pt_xchg_late;	/* the device ORs these in before the next exchange */

u64 vgpu_pt_pool_xchg(struct vgpu_device *vdev, struct vgpu_pt_page *page,
		      unsigned int idx, u64 val)
{
	void __iomem *slot = page->cpu + idx * sizeof(u64);
	u64 old;

	if (pt_xchg_late) {
		writeq(readq(slot) | pt_xchg_late, slot);
		pt_xchg_late = 0;
	}
	old = readq(slot);
	writeq(val, slot);
	pt_xchgs++;
	return old;
}

/* ------------------------------------------------------------ fixture --- */

#define CAPS_ALL	(VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M | VGPU_CAPS_PAGE_1G)
#define RW		(VGPU_PTE_READ | VGPU_PTE_WRITE)
#define MAX_LEAVES	2048

struct walk_leaf {
	unsigned int level;
	u64 va, pte;
};

struct walk_test {
	struct vgpu_pt_update up;
	struct vgpu_pt_stats stats;
	struct vgpu_pt *root;
	struct walk_leaf *leaf;
	unsigned int nr, tables;
};

/* A batch as vgpu_pt_update_init() makes one, with the given leaf sizes. */
static void walk_begin(struct walk_test *t, u32 caps, unsigned int reserve)
{
	t->up.vdev = NULL;
	t->up.caps = caps;
	t->up.reserved = reserve;
	t->up.inval_start = U64_MAX;
	t->up.inval_end = 0;
	INIT_LIST_HEAD(&t->up.freed);
	t->up.stats = &t->stats;
}

static int walk_init(struct kunit *test)
{
	struct walk_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->leaf = kunit_kcalloc(test, MAX_LEAVES, sizeof(*t->leaf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->leaf);
	pt_pages_live = 0;
	pt_shadows_live = 0;
	pt_xchgs = 0;
	pt_xchg_late = 0;
	walk_begin(t, CAPS_ALL, 1);
	t->root = vgpu_pt_alloc(&t->up, VGPU_PT_LEVELS - 1);
	vgpu_pt_release(&t->up);
	test->priv = t;
	return 0;
}

static void walk_exit(struct kunit *test)
{
	struct walk_test *t = test->priv;

	vgpu_pt_free_tree(NULL, t->root);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 0);
	KUNIT_EXPECT_EQ(test, pt_shadows_live, 0);
}

static void walk_record(void *arg, unsigned int level, u64 va, u64 pte,
			bool table)
{
	struct walk_test *t = arg;

	if (table) {
		t->tables++;
		return;
	}
	if (t->nr < MAX_LEAVES)
		t->leaf[t->nr] = (struct walk_leaf){ level, va, pte };
	t->nr++;
}

/* READ [va, va + size): the leaves land in t->leaf, in VA order. */
static u64 walk_read(struct walk_test *t, u64 va, u64 size)
{
	t->nr = 0;
	t->tables = 0;
	return vgpu_pt_walk(VGPU_PT_OP_READ, NULL, t->root, va, size, NULL, 0,
			    walk_record, t);
}

/* The entry that translates @va at @level (the tables must exist). */
static void __iomem *walk_slot(struct kunit *test, struct walk_test *t,
			       u64 va, unsigned int level)
{
	struct vgpu_pt *pt = t->root;

	while (pt->level > level) {
		pt = pt->children[vgpu_pt_index(va, pt->level)];
		KUNIT_ASSERT_NOT_NULL(test, pt);
	}
	return pt->page.cpu + vgpu_pt_index(va, level) * sizeof(u64);
}

/* What the device does when it translates through a leaf. */
static void walk_device_sets(struct kunit *test, struct walk_test *t, u64 va,
			     unsigned int level, u64 bits)
{
	void __iomem *slot = walk_slot(test, t, va, level);

	writeq(readq(slot) | bits, slot);
}

struct walk_count {
	u64 n4k, n64k, n2m, n1g, bytes;
};

/*
 * Check the leaves t->leaf[] against a linear mapping of @addr at @va
 * with @flags, none inside [@hole, @hole + @hole_size); count them by
 * size.
 */
static void walk_check_linear(struct kunit *test, struct walk_test *t, u64 va,
			      u64 addr, u64 size, u64 flags, u64 hole,
			      u64 hole_size, struct walk_count *n)
{
	u64 prev_end = va, frag_ptes = 0;
	unsigned int i;

	memset(n, 0, sizeof(*n));
	KUNIT_ASSERT_LE(test, t->nr, MAX_LEAVES);
	for (i = 0; i < t->nr; i++) {
		const struct walk_leaf *l = &t->leaf[i];
		u64 span = vgpu_pt_span(l->level);
		u64 want = (addr + (l->va - va)) & ~(span - 1);

		KUNIT_EXPECT_GE_MSG(test, l->va, prev_end, "leaf %u overlaps", i);
		KUNIT_EXPECT_LE_MSG(test, l->va + span, va + size, "leaf %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, l->va + span <= hole ||
				      l->va >= hole + hole_size,
				      "leaf %u at %#llx in the hole", i, l->va);
		KUNIT_EXPECT_EQ_MSG(test, l->pte & VGPU_PTE_ADDR_MASK, want,
				    "leaf %u at %#llx", i, l->va);
		KUNIT_EXPECT_EQ_MSG(test, l->pte & (VGPU_PTE_VALID | RW |
						    VGPU_PTE_EXEC | VGPU_PTE_SYSTEM),
				    flags | VGPU_PTE_VALID, "leaf %u", i);
		KUNIT_EXPECT_EQ_MSG(test, !!(l->pte & VGPU_PTE_LEAF), l->level > 0,
				    "leaf %u level %u", i, l->level);
		prev_end = l->va + span;
		n->bytes += span;
		switch (l->level) {
		case 0:
			if (l->pte & VGPU_PTE_FRAG64K) {
				/* sixteen PTEs, 64 KiB aligned, one after the other */
				KUNIT_EXPECT_EQ(test, (l->va >> 12) & 15, frag_ptes & 15);
				frag_ptes++;
			} else {
				n->n4k++;
			}
			break;
		case 1:
			n->n2m++;
			break;
		case 2:
			n->n1g++;
			break;
		default:
			KUNIT_FAIL(test, "leaf at level %u", l->level);
		}
	}
	KUNIT_EXPECT_EQ(test, frag_ptes % 16, 0);
	n->n64k = frag_ptes / 16;
}

/* --------------------------------------------------------------- MAP --- */

struct walk_map_case {
	const char *desc;
	u64 va, addr, size;
	u32 caps;
	u64 n4k, n64k, n2m, n1g;
};

static const struct walk_map_case walk_map_cases[] = {
	{ "4K only", SZ_4G, 0, SZ_2M + SZ_8K, 0, 514, 0, 0, 0 },
	{ "64K fragments", SZ_4G + SZ_64K, SZ_64K, SZ_1M, CAPS_ALL, 0, 16, 0, 0 },
	{ "64K without the cap", SZ_4G + SZ_64K, SZ_64K, SZ_1M,
	  VGPU_CAPS_PAGE_2M, 256, 0, 0, 0 },
	{ "4K around a fragment", SZ_4G + 60 * SZ_1K, 60 * SZ_1K,
	  SZ_4K + SZ_64K + SZ_4K, CAPS_ALL, 2, 1, 0, 0 },
	{ "backing only 4K aligned", SZ_4G, SZ_4K, SZ_2M, CAPS_ALL, 512, 0, 0, 0 },
	{ "2M leaves", SZ_4G, SZ_2M, SZ_4M, CAPS_ALL, 0, 0, 2, 0 },
	{ "1G leaves", SZ_4G, SZ_1G, SZ_2G, CAPS_ALL, 0, 0, 0, 2 },
	{ "1G without the cap", SZ_4G, SZ_1G, SZ_1G,
	  VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M, 0, 0, 512, 0 },
	{ "1G VA, 2M backing", SZ_4G, SZ_2M, SZ_1G, CAPS_ALL, 0, 0, 512, 0 },
	{ "every size", SZ_1G - SZ_2M - SZ_64K, SZ_1G - SZ_2M - SZ_64K,
	  SZ_64K + SZ_2M + SZ_1G + SZ_2M + SZ_4K, CAPS_ALL, 1, 1, 2, 1 },
	{ "across root entries", (1ull << 39) - SZ_2M, 0, SZ_4M, CAPS_ALL,
	  0, 0, 2, 0 },
	{ "top of the address space", VGPU_VA_END - SZ_1G, 0, SZ_1G, CAPS_ALL,
	  0, 0, 0, 1 },
};

static void walk_map_desc(const struct walk_map_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(walk_map, walk_map_cases, walk_map_desc);

/*
 * Every case maps with the leaves geometry says, within the reservation,
 * reads back exactly, and unmaps to nothing, every table but the root
 * freed.
 */
static void vgpu_pt_walk_map_unmap(struct kunit *test)
{
	const struct walk_map_case *c = test->param_value;
	struct walk_test *t = test->priv;
	unsigned int reserve = vgpu_pt_pages_for_map(c->va, c->size);
	u64 tables = t->stats.tables;	/* the root */
	struct walk_count n;

	walk_begin(t, c->caps, reserve);
	vgpu_pt_map_linear(&t->up, t->root, c->va, c->addr, c->size, RW);
	KUNIT_EXPECT_EQ(test, t->stats.tables - tables,
			(u64)(reserve - t->up.reserved));
	KUNIT_EXPECT_EQ(test, t->up.inval_start, U64_MAX);	/* nothing to flush */
	vgpu_pt_release(&t->up);

	KUNIT_EXPECT_EQ(test, walk_read(t, c->va, c->size), 0);
	walk_check_linear(test, t, c->va, c->addr, c->size, RW, 0, 0, &n);
	KUNIT_EXPECT_EQ(test, n.bytes, c->size);
	KUNIT_EXPECT_EQ(test, n.n4k, c->n4k);
	KUNIT_EXPECT_EQ(test, n.n64k, c->n64k);
	KUNIT_EXPECT_EQ(test, n.n2m, c->n2m);
	KUNIT_EXPECT_EQ(test, n.n1g, c->n1g);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_4k, c->n4k);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_64k, c->n64k);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_2m, c->n2m);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_1g, c->n1g);
	KUNIT_EXPECT_EQ(test, t->tables + 1, pt_pages_live);

	/* Nothing outside the range. */
	if (c->va >= SZ_4K) {
		walk_read(t, 0, c->va);
		KUNIT_EXPECT_EQ(test, t->nr, 0);
	}

	walk_begin(t, c->caps, vgpu_pt_pages_for_unmap(c->va, c->size));
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, c->va, c->size), 0);
	KUNIT_EXPECT_LE(test, t->up.inval_start, c->va);
	KUNIT_EXPECT_GE(test, t->up.inval_end, c->va + c->size);
	vgpu_pt_release(&t->up);
	walk_read(t, 0, VGPU_VA_END);
	KUNIT_EXPECT_EQ(test, t->nr, 0);
	KUNIT_EXPECT_EQ(test, t->tables, 0);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
	KUNIT_EXPECT_EQ(test, t->root->live, 0);
}

/* The MAP of a BO's system pages: aperture bit and DMA addresses. */
static void vgpu_pt_walk_map_system(struct kunit *test)
{
	struct walk_test *t = test->priv;
	struct walk_count n;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(SZ_4G, SZ_4M));
	vgpu_pt_map_linear(&t->up, t->root, SZ_4G, SZ_2G, SZ_4M,
			   VGPU_PTE_READ | VGPU_PTE_SYSTEM);
	vgpu_pt_release(&t->up);
	walk_read(t, SZ_4G, SZ_4M);
	walk_check_linear(test, t, SZ_4G, SZ_2G, SZ_4M,
			  VGPU_PTE_READ | VGPU_PTE_SYSTEM, 0, 0, &n);
	KUNIT_EXPECT_EQ(test, n.n2m, 2);
	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_unmap(&t->up, t->root, SZ_4G, SZ_4M);
	vgpu_pt_release(&t->up);
}

/* ------------------------------------------------------------- split --- */

struct walk_split_case {
	const char *desc;
	u64 size;	/* one leaf of this size at 4 GiB */
	u64 hole;	/* offset of the 4 KiB unmapped */
	u64 n4k, n64k, n2m;
	unsigned int tables;	/* allocated by the split */
};

static const struct walk_split_case walk_split_cases[] = {
	{ "1G leaf, hole in a 2M piece", SZ_1G, SZ_512M + SZ_4K, 15, 31, 511, 2 },
	{ "1G leaf, hole at its end", SZ_1G, SZ_1G - SZ_4K, 15, 31, 511, 2 },
	{ "2M leaf, hole at its start", SZ_2M, 0, 15, 31, 0, 1 },
	{ "64K fragment cut", SZ_64K, SZ_32K, 15, 0, 0, 0 },
};

static void walk_split_desc(const struct walk_split_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(walk_split, walk_split_cases, walk_split_desc);

/*
 * Unmapping 4 KiB of a large leaf splits it from the leaf alone: the rest
 * stays mapped to the same memory, in the next smaller leaves, within the
 * unmap's reservation, and the whole old leaf is invalidated.
 */
static void vgpu_pt_walk_split(struct kunit *test)
{
	const struct walk_split_case *c = test->param_value;
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G, addr = SZ_1G;
	unsigned int reserve = vgpu_pt_pages_for_unmap(va + c->hole, SZ_4K);
	u64 tables;
	struct walk_count n;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(va, c->size));
	vgpu_pt_map_linear(&t->up, t->root, va, addr, c->size, RW);
	vgpu_pt_release(&t->up);
	tables = t->stats.tables;

	walk_begin(t, CAPS_ALL, reserve);
	vgpu_pt_unmap(&t->up, t->root, va + c->hole, SZ_4K);
	KUNIT_EXPECT_EQ(test, t->stats.tables - tables, (u64)c->tables);
	KUNIT_EXPECT_LE(test, c->tables, reserve);
	KUNIT_EXPECT_LE(test, t->up.inval_start, (va + c->hole) & ~(c->size - 1));
	KUNIT_EXPECT_GE(test, t->up.inval_end,
			((va + c->hole) & ~(c->size - 1)) + c->size);
	vgpu_pt_release(&t->up);

	walk_read(t, va, c->size);
	walk_check_linear(test, t, va, addr, c->size, RW, va + c->hole, SZ_4K, &n);
	KUNIT_EXPECT_EQ(test, n.bytes, c->size - SZ_4K);
	KUNIT_EXPECT_EQ(test, n.n4k, c->n4k);
	KUNIT_EXPECT_EQ(test, n.n64k, c->n64k);
	KUNIT_EXPECT_EQ(test, n.n2m, c->n2m);
	KUNIT_EXPECT_EQ(test, n.n1g, 0);

	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_unmap(&t->up, t->root, va, c->size);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

/* A split keeps the leaf's A/D bits in every piece. */
static void vgpu_pt_walk_split_keeps_ad(struct kunit *test)
{
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G;
	unsigned int i;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(va, SZ_2M));
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_2M, RW);
	vgpu_pt_release(&t->up);
	walk_device_sets(test, t, va, 1, VGPU_PT_AD);

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_unmap(va, SZ_64K));
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va, SZ_64K),
			VGPU_PT_AD);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M), VGPU_PT_AD);
	KUNIT_EXPECT_EQ(test, t->nr, (SZ_2M - SZ_64K) / SZ_4K);
	for (i = 0; i < t->nr && i < MAX_LEAVES; i++)
		KUNIT_EXPECT_EQ(test, t->leaf[i].pte & VGPU_PT_AD, VGPU_PT_AD);

	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_unmap(&t->up, t->root, va, SZ_2M);
	vgpu_pt_release(&t->up);
}

/* ------------------------------------------------------ A/D harvest --- */

/*
 * READ and UNMAP return the OR of the bits in the range only; for a
 * fragment the bits of any of its sixteen PTEs count.
 */
static void vgpu_pt_walk_harvest(struct kunit *test)
{
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(va, SZ_2M + SZ_128K));
	/* a 2 MiB leaf, then two 64 KiB fragments */
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_2M + SZ_128K, RW);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_2m, 1);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_64k, 2);
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M + SZ_128K), 0);

	walk_device_sets(test, t, va, 1, VGPU_PTE_ACCESSED);
	/* written through the 6th page of the second fragment */
	walk_device_sets(test, t, va + SZ_2M + SZ_64K + 5 * SZ_4K, 0,
			 VGPU_PT_AD);

	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M), VGPU_PTE_ACCESSED);
	KUNIT_EXPECT_EQ(test, walk_read(t, va + SZ_2M, SZ_64K), 0);
	KUNIT_EXPECT_EQ(test, walk_read(t, va + SZ_2M + SZ_64K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, walk_read(t, va + SZ_2M + SZ_64K, SZ_64K),
			VGPU_PT_AD);
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M + SZ_128K), VGPU_PT_AD);

	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va, SZ_2M + SZ_64K),
			VGPU_PTE_ACCESSED);
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va + SZ_2M + SZ_64K,
					    SZ_64K), VGPU_PT_AD);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

/*
 * ZAP clears leaves but keeps the tables, reporting each cleared leaf; a
 * bit the device sets in a cleared entry (its walk read the leaf before
 * the clear) is found and cleared by the next ZAP, and READ, which sees
 * only valid entries, does not report it.  UNMAP finally frees the tables.
 */
static void vgpu_pt_walk_zap(struct kunit *test)
{
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G;
	void __iomem *slot;
	int live;

	walk_begin(t, 0, vgpu_pt_pages_for_map(va, SZ_2M));
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_2M, RW);
	vgpu_pt_release(&t->up);
	live = pt_pages_live;
	KUNIT_EXPECT_EQ(test, live, 4);
	walk_device_sets(test, t, va + 3 * SZ_4K, 0, VGPU_PTE_ACCESSED);
	walk_device_sets(test, t, va + 7 * SZ_4K, 0, VGPU_PT_AD);

	walk_begin(t, 0, vgpu_pt_pages_for_unmap(va, SZ_2M));
	t->nr = 0;
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_ZAP, &t->up, t->root, va,
					   SZ_2M, NULL, 0, walk_record, t),
			VGPU_PT_AD);
	KUNIT_EXPECT_EQ(test, t->nr, 512);
	KUNIT_EXPECT_EQ(test, t->leaf[7].va, va + 7 * SZ_4K);
	KUNIT_EXPECT_EQ(test, t->leaf[7].pte & VGPU_PT_AD, VGPU_PT_AD);
	KUNIT_EXPECT_EQ(test, t->leaf[8].pte & VGPU_PT_AD, 0);
	KUNIT_EXPECT_LE(test, t->up.inval_start, va);
	KUNIT_EXPECT_GE(test, t->up.inval_end, va + SZ_2M);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, live);	/* tables kept */
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M), 0);
	KUNIT_EXPECT_EQ(test, t->nr, 0);

	/* The device's late OR into the cleared entry. */
	slot = walk_slot(test, t, va + 9 * SZ_4K, 0);
	writeq(VGPU_PTE_DIRTY, slot);
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M), 0);
	walk_begin(t, 0, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_ZAP, &t->up, t->root, va,
					   SZ_2M, NULL, 0, NULL, NULL),
			VGPU_PTE_DIRTY);
	KUNIT_EXPECT_EQ(test, readq(slot), 0);
	KUNIT_EXPECT_EQ(test, t->up.inval_start, U64_MAX);	/* no translation changed */
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_ZAP, &t->up, t->root, va,
					   SZ_2M, NULL, 0, NULL, NULL), 0);
	vgpu_pt_release(&t->up);

	/* Mapping into a zapped range reuses its tables. */
	walk_begin(t, 0, vgpu_pt_pages_for_map(va, SZ_2M));
	vgpu_pt_map_linear(&t->up, t->root, va, SZ_2M, SZ_2M, RW);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, live);
	walk_read(t, va, SZ_2M);
	KUNIT_EXPECT_EQ(test, t->nr, 512);

	walk_begin(t, 0, 0);
	vgpu_pt_unmap(&t->up, t->root, va, SZ_2M);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

/* UNMAP also takes the late bits of entries a ZAP cleared, then frees. */
static void vgpu_pt_walk_unmap_after_zap(struct kunit *test)
{
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G + SZ_1G;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(va, SZ_1G));
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_1G, RW);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, t->stats.leaves_1g, 1);
	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_ZAP, &t->up, t->root, va,
					   SZ_1G, NULL, 0, NULL, NULL), 0);
	vgpu_pt_release(&t->up);
	walk_device_sets(test, t, va, 2, VGPU_PTE_DIRTY);
	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va, SZ_1G),
			VGPU_PTE_DIRTY);
	/* No valid entry went, but a table did: still a TLB flush first. */
	KUNIT_EXPECT_LE(test, t->up.inval_start, va);
	KUNIT_EXPECT_GE(test, t->up.inval_end, va + SZ_1G);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, readq(walk_slot(test, t, va, 3)), 0);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

/*
 * Bits the device sets between the walker's read of a leaf and its clear
 * are not lost: clearing takes them from the exchange's old value, a
 * split puts them into every piece, and the rest of a cut fragment keeps
 * them.  MAP needs no exchange; UNMAP one per cleared leaf.
 */
static void vgpu_pt_walk_late_bits(struct kunit *test)
{
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G;
	unsigned int i;

	walk_begin(t, 0, vgpu_pt_pages_for_map(va, SZ_64K));
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_64K, RW);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_xchgs, 0);
	walk_device_sets(test, t, va, 0, VGPU_PTE_ACCESSED);
	pt_xchg_late = VGPU_PTE_DIRTY;
	walk_begin(t, 0, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va, SZ_64K),
			VGPU_PT_AD);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_xchgs, 16);

	/* A 2 MiB leaf split by an unmap of its first 64 KiB. */
	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(va, SZ_2M));
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_2M, RW);
	vgpu_pt_release(&t->up);
	pt_xchg_late = VGPU_PTE_DIRTY;
	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_unmap(va, SZ_64K));
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va, SZ_64K),
			VGPU_PTE_DIRTY);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M), VGPU_PTE_DIRTY);
	KUNIT_EXPECT_EQ(test, t->nr, (SZ_2M - SZ_64K) / SZ_4K);
	for (i = 0; i < t->nr && i < MAX_LEAVES; i++)
		KUNIT_EXPECT_EQ(test, t->leaf[i].pte & VGPU_PT_AD, VGPU_PTE_DIRTY);

	/* A fragment cut in two: its other PTEs lose FRAG64K, not the bits. */
	pt_xchg_late = VGPU_PTE_ACCESSED;
	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_unmap(&t->up, t->root, va + SZ_64K, SZ_4K),
			VGPU_PTE_DIRTY);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, walk_read(t, va + SZ_64K, SZ_64K), VGPU_PT_AD);
	KUNIT_EXPECT_EQ(test, t->nr, 15);
	KUNIT_EXPECT_EQ(test, t->leaf[0].pte & (VGPU_PT_AD | VGPU_PTE_FRAG64K),
			VGPU_PT_AD);
	for (i = 1; i < t->nr; i++)
		KUNIT_EXPECT_EQ(test, t->leaf[i].pte &
				(VGPU_PT_AD | VGPU_PTE_FRAG64K), VGPU_PTE_DIRTY);

	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_unmap(&t->up, t->root, va, SZ_2M);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

/*
 * AGE tests and clears ACCESSED in valid leaves only, keeps DIRTY (also
 * one the device sets between the read and the exchange), reports the
 * bits as read, and widens the invalidation by each leaf it
 * cleared, and by nothing else.
 */
static void vgpu_pt_walk_age(struct kunit *test)
{
	struct walk_test *t = test->priv;
	const u64 va = SZ_4G, frag = va + SZ_2M;
	void __iomem *leaf2m, *pte;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(va, SZ_2M + SZ_128K));
	/* a 2 MiB leaf, then two 64 KiB fragments */
	vgpu_pt_map_linear(&t->up, t->root, va, 0, SZ_2M + SZ_128K, RW);
	vgpu_pt_release(&t->up);
	leaf2m = walk_slot(test, t, va, 1);
	pte = walk_slot(test, t, frag + 2 * SZ_4K, 0);
	walk_device_sets(test, t, va, 1, VGPU_PT_AD);
	walk_device_sets(test, t, frag + 2 * SZ_4K, 0, VGPU_PTE_ACCESSED);

	pt_xchgs = 0;
	walk_begin(t, CAPS_ALL, 0);
	t->nr = 0;
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_AGE, &t->up, t->root, va,
					   SZ_2M + SZ_128K, NULL, 0, walk_record, t),
			VGPU_PT_AD);
	KUNIT_EXPECT_EQ(test, pt_xchgs, 2);	/* only the leaves with ACCESSED */
	KUNIT_EXPECT_EQ(test, t->nr, 2);
	KUNIT_EXPECT_EQ(test, t->leaf[1].va, frag + 2 * SZ_4K);
	KUNIT_EXPECT_EQ(test, readq(leaf2m) & VGPU_PT_AD, VGPU_PTE_DIRTY);
	KUNIT_EXPECT_EQ(test, readq(leaf2m) & ~VGPU_PT_AD,
			VGPU_PTE_VALID | RW | VGPU_PTE_LEAF);
	KUNIT_EXPECT_EQ(test, readq(pte) & (VGPU_PT_AD | VGPU_PTE_FRAG64K),
			VGPU_PTE_FRAG64K);
	KUNIT_EXPECT_EQ(test, t->up.inval_start, va);
	KUNIT_EXPECT_EQ(test, t->up.inval_end, frag + 3 * SZ_4K);
	KUNIT_EXPECT_EQ(test, walk_read(t, va, SZ_2M + SZ_128K), VGPU_PTE_DIRTY);

	/* Nothing accessed since: no exchange, nothing to invalidate. */
	pt_xchgs = 0;
	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_AGE, &t->up, t->root, va,
					   SZ_2M + SZ_128K, NULL, 0, NULL, NULL),
			0);
	KUNIT_EXPECT_EQ(test, pt_xchgs, 0);
	KUNIT_EXPECT_EQ(test, t->up.inval_start, U64_MAX);

	/* The device writes through the fragment as ACCESSED is cleared. */
	walk_device_sets(test, t, frag + 2 * SZ_4K, 0, VGPU_PTE_ACCESSED);
	pt_xchgs = 0;
	pt_xchg_late = VGPU_PTE_DIRTY;
	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_AGE, &t->up, t->root, frag,
					   SZ_64K, NULL, 0, NULL, NULL),
			VGPU_PTE_ACCESSED);
	KUNIT_EXPECT_EQ(test, pt_xchgs, 2);	/* DIRTY written back */
	KUNIT_EXPECT_EQ(test, readq(pte) & VGPU_PT_AD, VGPU_PTE_DIRTY);

	/* An entry a ZAP cleared keeps its late bits for the next ZAP. */
	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_walk(VGPU_PT_OP_ZAP, &t->up, t->root, frag + SZ_64K, SZ_64K,
		     NULL, 0, NULL, NULL);
	vgpu_pt_release(&t->up);
	walk_device_sets(test, t, frag + SZ_64K, 0, VGPU_PTE_ACCESSED);
	pt_xchgs = 0;
	walk_begin(t, CAPS_ALL, 0);
	KUNIT_EXPECT_EQ(test, vgpu_pt_walk(VGPU_PT_OP_AGE, &t->up, t->root,
					   frag + SZ_64K, SZ_64K, NULL, 0, NULL,
					   NULL), 0);
	KUNIT_EXPECT_EQ(test, pt_xchgs, 0);
	KUNIT_EXPECT_EQ(test, readq(walk_slot(test, t, frag + SZ_64K, 0)),
			VGPU_PTE_ACCESSED);

	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_unmap(&t->up, t->root, va, SZ_2M + SZ_128K);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

/* READ reports every table on the way, each once. */
static void vgpu_pt_walk_read_tables(struct kunit *test)
{
	struct walk_test *t = test->priv;

	walk_begin(t, CAPS_ALL, vgpu_pt_pages_for_map(SZ_4G, SZ_4K) +
		   vgpu_pt_pages_for_map(VGPU_VA_END - SZ_4K, SZ_4K));
	vgpu_pt_map_linear(&t->up, t->root, SZ_4G, 0, SZ_4K, RW);
	vgpu_pt_map_linear(&t->up, t->root, VGPU_VA_END - SZ_4K, SZ_4K, SZ_4K, RW);
	vgpu_pt_release(&t->up);
	walk_read(t, 0, VGPU_VA_END);
	KUNIT_EXPECT_EQ(test, t->nr, 2);
	KUNIT_EXPECT_EQ(test, t->tables, 6);	/* L2, L1, L0 under two roots entries */
	KUNIT_EXPECT_EQ(test, t->tables + 1, pt_pages_live);
	KUNIT_EXPECT_EQ(test, t->leaf[1].va, VGPU_VA_END - SZ_4K);
	walk_begin(t, CAPS_ALL, 0);
	vgpu_pt_unmap(&t->up, t->root, 0, VGPU_VA_END);
	vgpu_pt_release(&t->up);
	KUNIT_EXPECT_EQ(test, pt_pages_live, 1);
}

static struct kunit_case vgpu_pt_walk_cases[] = {
	KUNIT_CASE_PARAM(vgpu_pt_walk_map_unmap, walk_map_gen_params),
	KUNIT_CASE(vgpu_pt_walk_map_system),
	KUNIT_CASE_PARAM(vgpu_pt_walk_split, walk_split_gen_params),
	KUNIT_CASE(vgpu_pt_walk_split_keeps_ad),
	KUNIT_CASE(vgpu_pt_walk_harvest),
	KUNIT_CASE(vgpu_pt_walk_zap),
	KUNIT_CASE(vgpu_pt_walk_unmap_after_zap),
	KUNIT_CASE(vgpu_pt_walk_read_tables),
	KUNIT_CASE(vgpu_pt_walk_late_bits),
	KUNIT_CASE(vgpu_pt_walk_age),
	{ }
};

static struct kunit_suite vgpu_pt_walk_suite = {
	.name = "vgpu_pt_walk",
	.init = walk_init,
	.exit = walk_exit,
	.test_cases = vgpu_pt_walk_cases,
};

kunit_test_suite(vgpu_pt_walk_suite);
