// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <kunit/test.h>

#include <linux/sizes.h>

#include "../vgpu_pt_geom.h"

/*
 * KUnit tests for the page-table geometry in vgpu_pt_geom.h: per-level
 * shifts and indices, walk steps, range checks, leaf-size selection, and a
 * property check that greedy leaf selection covers a range exactly.
 */

#define CAPS_ALL	(VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M | VGPU_CAPS_PAGE_1G)

static void vgpu_pt_geom_shift_span(struct kunit *test)
{
	static const unsigned int shifts[VGPU_PT_LEVELS + 1] = { 12, 21, 30, 39, 48 };
	unsigned int l;

	for (l = 0; l <= VGPU_PT_LEVELS; l++) {
		KUNIT_EXPECT_EQ_MSG(test, vgpu_pt_shift(l), shifts[l], "level %u", l);
		KUNIT_EXPECT_EQ_MSG(test, vgpu_pt_span(l), 1ull << shifts[l], "level %u", l);
	}
	KUNIT_EXPECT_EQ(test, vgpu_pt_span(VGPU_PT_LEVELS), VGPU_VA_END);
	KUNIT_EXPECT_EQ(test, vgpu_pt_span(0), (u64)VGPU_PT_SIZE);
	/* one table of 512 entries at level l spans one entry of level l + 1 */
	for (l = 0; l < VGPU_PT_LEVELS; l++)
		KUNIT_EXPECT_EQ(test, vgpu_pt_span(l) * VGPU_PT_ENTRIES,
				vgpu_pt_span(l + 1));
}

struct pt_index_case {
	const char *desc;
	u64 va;
	unsigned int idx[VGPU_PT_LEVELS];	/* level 0 first */
};

static const struct pt_index_case pt_index_cases[] = {
	{ "zero", 0, { 0, 0, 0, 0 } },
	{ "page offset ignored", 0xfff, { 0, 0, 0, 0 } },
	{ "second 4K page", SZ_4K, { 1, 0, 0, 0 } },
	{ "last 4K of first 2M", SZ_2M - SZ_4K, { 511, 0, 0, 0 } },
	{ "2M", SZ_2M, { 0, 1, 0, 0 } },
	{ "1G", SZ_1G, { 0, 0, 1, 0 } },
	{ "512G", 1ull << 39, { 0, 0, 0, 1 } },
	{ "top of VA space", VGPU_VA_END - 1, { 511, 511, 511, 511 } },
	{ "one bit per level", (1ull << 12) | (2ull << 21) | (3ull << 30) | (4ull << 39),
	  { 1, 2, 3, 4 } },
	{ "bits above 48 ignored", (0xffffull << 48) | (5ull << 39) | (6ull << 12),
	  { 6, 0, 0, 5 } },
	{ "mixed", 0x0000123456789000ull, { 0x189, 0x0b3, 0x0d1, 0x024 } },
};

static void pt_index_desc(const struct pt_index_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (%#llx)", c->desc, c->va);
}

KUNIT_ARRAY_PARAM(pt_index, pt_index_cases, pt_index_desc);

static void vgpu_pt_geom_index(struct kunit *test)
{
	const struct pt_index_case *c = test->param_value;
	unsigned int l;

	for (l = 0; l < VGPU_PT_LEVELS; l++) {
		KUNIT_EXPECT_EQ_MSG(test, vgpu_pt_index(c->va, l), c->idx[l],
				    "level %u", l);
		/* the helper and the hardware header's macro agree */
		KUNIT_EXPECT_EQ_MSG(test, vgpu_pt_index(c->va, l),
				    (unsigned int)VGPU_PT_INDEX(c->va, l), "level %u", l);
	}
}

/* Indices at all levels put back together give the page-aligned address. */
static void vgpu_pt_geom_index_roundtrip(struct kunit *test)
{
	u64 va = 0x00007654321f8000ull, rebuilt = 0;
	unsigned int l;
	int i;

	for (i = 0; i < 64; i++) {
		rebuilt = 0;
		for (l = 0; l < VGPU_PT_LEVELS; l++)
			rebuilt |= (u64)vgpu_pt_index(va, l) << vgpu_pt_shift(l);
		KUNIT_EXPECT_EQ(test, rebuilt, va & ~(VGPU_PAGE_SIZE_4K - 1));
		/* an odd multiplier walks through many index patterns */
		va = (va * 6364136223846793005ull + 1442695040888963407ull) &
		     (VGPU_VA_END - 1);
	}
}

struct pt_addr_end_case {
	const char *desc;
	u64 va, end;
	unsigned int level;
	u64 expect;
};

static const struct pt_addr_end_case pt_addr_end_cases[] = {
	{ "4K step", 0, SZ_1M, 0, SZ_4K },
	{ "mid-page to page end", 0x1234, SZ_1M, 0, SZ_8K },
	{ "clamped to end", 0, SZ_4K + 0x100, 1, SZ_4K + 0x100 },
	{ "2M step from unaligned", SZ_2M - SZ_4K, SZ_1G, 1, SZ_2M },
	{ "1G step", SZ_1G + SZ_2M, 4ull * SZ_1G, 2, 2ull * SZ_1G },
	{ "root step", 0, VGPU_VA_END, 3, 1ull << 39 },
	{ "last root entry", VGPU_VA_END - SZ_4K, VGPU_VA_END, 3, VGPU_VA_END },
	{ "end before next", SZ_4K, SZ_4K + 1, 2, SZ_4K + 1 },
	{ "wrap at top of u64", ~0ull - SZ_4K + 1, 0, 0, 0 },
};

static void pt_addr_end_desc(const struct pt_addr_end_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(pt_addr_end, pt_addr_end_cases, pt_addr_end_desc);

static void vgpu_pt_geom_addr_end(struct kunit *test)
{
	const struct pt_addr_end_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vgpu_pt_addr_end(c->va, c->end, c->level), c->expect);
}

static void vgpu_pt_geom_range_valid(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, vgpu_pt_range_valid(0, SZ_4K));
	KUNIT_EXPECT_TRUE(test, vgpu_pt_range_valid(0, VGPU_VA_END));
	KUNIT_EXPECT_TRUE(test, vgpu_pt_range_valid(VGPU_VA_END - SZ_4K, SZ_4K));
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(0, 0));
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(0x800, SZ_4K));
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(0, SZ_4K + 1));
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(VGPU_VA_END, SZ_4K));
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(VGPU_VA_END - SZ_4K, SZ_8K));
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(SZ_4K, VGPU_VA_END));
	/* va + size overflowing u64 must not wrap into validity */
	KUNIT_EXPECT_FALSE(test, vgpu_pt_range_valid(SZ_4K, ~0ull - SZ_4K + 1));
}

static void vgpu_pt_geom_page_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_pt_page_sizes(0), (u64)SZ_4K);
	KUNIT_EXPECT_EQ(test, vgpu_pt_page_sizes(VGPU_CAPS_PAGE_64K),
			(u64)(SZ_4K | SZ_64K));
	KUNIT_EXPECT_EQ(test, vgpu_pt_page_sizes(VGPU_CAPS_PAGE_2M),
			(u64)(SZ_4K | SZ_2M));
	KUNIT_EXPECT_EQ(test, vgpu_pt_page_sizes(CAPS_ALL),
			(u64)(SZ_4K | SZ_64K | SZ_2M | SZ_1G));
	/* capability bits that are not page sizes do not leak in */
	KUNIT_EXPECT_EQ(test, vgpu_pt_page_sizes(VGPU_CAPS_AD_BITS | VGPU_CAPS_STRICT),
			(u64)SZ_4K);
}

struct pt_leaf_case {
	const char *desc;
	u64 va, addr, size;
	u32 caps;
	unsigned int shift;
};

static const struct pt_leaf_case pt_leaf_cases[] = {
	{ "4K only device", 0, 0, SZ_1G, 0, 12 },
	{ "1G all aligned", SZ_1G, 2ull * SZ_1G, SZ_1G, CAPS_ALL, 30 },
	{ "1G not supported", SZ_1G, SZ_1G, SZ_1G, VGPU_CAPS_PAGE_2M | VGPU_CAPS_PAGE_64K, 21 },
	{ "1G size short by 4K", 0, 0, SZ_1G - SZ_4K, CAPS_ALL, 21 },
	{ "1G va aligned, backing only 2M", SZ_1G, SZ_2M, SZ_1G, CAPS_ALL, 21 },
	{ "2M", SZ_2M, SZ_4M, SZ_2M, CAPS_ALL, 21 },
	{ "2M va misaligned by 64K", SZ_2M + SZ_64K, SZ_2M, SZ_4M, CAPS_ALL, 16 },
	{ "2M backing misaligned by 64K", SZ_2M, SZ_2M + SZ_64K, SZ_4M, CAPS_ALL, 16 },
	{ "2M not supported, 64K is", SZ_2M, SZ_2M, SZ_2M, VGPU_CAPS_PAGE_64K, 16 },
	{ "2M size short", SZ_2M, SZ_2M, SZ_2M - SZ_64K, CAPS_ALL, 16 },
	{ "64K", SZ_64K, SZ_128K, SZ_64K, CAPS_ALL, 16 },
	{ "64K not supported", SZ_64K, SZ_64K, SZ_64K, VGPU_CAPS_PAGE_2M, 12 },
	{ "64K va misaligned by 4K", SZ_64K + SZ_4K, SZ_64K, SZ_1M, CAPS_ALL, 12 },
	{ "64K backing misaligned by 4K", SZ_64K, SZ_64K + SZ_4K, SZ_1M, CAPS_ALL, 12 },
	{ "64K size short", 0, 0, SZ_64K - SZ_4K, CAPS_ALL, 12 },
	{ "4K", SZ_4K, SZ_8K, SZ_4K, CAPS_ALL, 12 },
	{ "size below 4K", 0, 0, SZ_4K - 1, CAPS_ALL, 0 },
	{ "size zero", 0, 0, 0, CAPS_ALL, 0 },
	{ "va not page aligned", 0x800, 0, SZ_1M, CAPS_ALL, 0 },
	{ "backing not page aligned", 0, 0x800, SZ_1M, CAPS_ALL, 0 },
	{ "high VA, 1G", VGPU_VA_END - SZ_1G, 0, SZ_1G, CAPS_ALL, 30 },
	{ "system DMA address, 2M", 0x7f0000200000ull, 0x100000000ull, SZ_2M, CAPS_ALL, 21 },
};

static void pt_leaf_desc(const struct pt_leaf_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(pt_leaf, pt_leaf_cases, pt_leaf_desc);

static void vgpu_pt_geom_leaf_shift(struct kunit *test)
{
	const struct pt_leaf_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, vgpu_pt_leaf_shift(c->va, c->addr, c->size, c->caps),
			    c->shift, "va %#llx addr %#llx size %#llx caps %#x",
			    c->va, c->addr, c->size, c->caps);
}

static void vgpu_pt_geom_leaf_level_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_level(12), 0u);
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_level(16), 0u);
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_level(21), 1u);
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_level(30), 2u);
	/* a leaf at level l spans exactly one level-l entry, except 64K */
	KUNIT_EXPECT_EQ(test, vgpu_pt_span(vgpu_pt_leaf_level(21)), (u64)SZ_2M);
	KUNIT_EXPECT_EQ(test, vgpu_pt_span(vgpu_pt_leaf_level(30)), (u64)SZ_1G);

	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_flags(12), 0ull);
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_flags(16), VGPU_PTE_FRAG64K);
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_flags(21), VGPU_PTE_LEAF);
	KUNIT_EXPECT_EQ(test, vgpu_pt_leaf_flags(30), VGPU_PTE_LEAF);
}

struct pt_cover_case {
	const char *desc;
	u64 va, addr, size;
	u32 caps;
	/* expected number of leaves of 4K, 64K, 2M, 1G */
	unsigned int n4k, n64k, n2m, n1g;
};

static const struct pt_cover_case pt_cover_cases[] = {
	{ "4K pages only", SZ_4K, SZ_4K, SZ_1M, 0, 256, 0, 0, 0 },
	{ "64K run with 4K head and tail", SZ_64K - SZ_4K, SZ_64K - SZ_4K,
	  SZ_64K * 3, CAPS_ALL, 16, 2, 0, 0 },
	{ "2M between 64K fragments", SZ_2M - SZ_64K, SZ_4M - SZ_64K,
	  SZ_2M + 2 * SZ_64K, CAPS_ALL, 0, 2, 1, 0 },
	{ "1G then 2M then 64K then 4K", SZ_1G, 0,
	  SZ_1G + SZ_2M + SZ_64K + SZ_4K, CAPS_ALL, 1, 1, 1, 1 },
	{ "backing offset by 4K forces 4K", SZ_2M, SZ_2M + SZ_4K, SZ_2M,
	  CAPS_ALL, 512, 0, 0, 0 },
	{ "no 64K: 2M and 4K", SZ_2M - SZ_8K, SZ_2M - SZ_8K, SZ_2M + SZ_8K,
	  VGPU_CAPS_PAGE_2M, 2, 0, 1, 0 },
};

static void pt_cover_desc(const struct pt_cover_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(pt_cover, pt_cover_cases, pt_cover_desc);

/*
 * Map a range the way the page-table code does - greedy leaf selection -
 * and check that the leaves tile it exactly, each one aligned on both sides
 * and supported by the device, and that the mix of sizes is the expected.
 */
static void vgpu_pt_geom_cover(struct kunit *test)
{
	const struct pt_cover_case *c = test->param_value;
	u64 va = c->va, addr = c->addr, left = c->size;
	unsigned int count[31] = { };
	unsigned int steps = 0;

	while (left) {
		unsigned int shift = vgpu_pt_leaf_shift(va, addr, left, c->caps);
		u64 leaf = 1ull << shift;

		KUNIT_ASSERT_NE_MSG(test, shift, 0u, "stuck at va %#llx", va);
		KUNIT_ASSERT_LE(test, leaf, left);
		KUNIT_EXPECT_EQ(test, va & (leaf - 1), 0ull);
		KUNIT_EXPECT_EQ(test, addr & (leaf - 1), 0ull);
		KUNIT_EXPECT_TRUE(test, vgpu_pt_page_sizes(c->caps) & leaf);
		count[shift]++;
		va += leaf;
		addr += leaf;
		left -= leaf;
		KUNIT_ASSERT_LT(test, ++steps, 1u << 20);
	}
	KUNIT_EXPECT_EQ(test, va, c->va + c->size);
	KUNIT_EXPECT_EQ(test, count[12], c->n4k);
	KUNIT_EXPECT_EQ(test, count[16], c->n64k);
	KUNIT_EXPECT_EQ(test, count[21], c->n2m);
	KUNIT_EXPECT_EQ(test, count[30], c->n1g);
}

static struct kunit_case vgpu_pt_geom_cases[] = {
	KUNIT_CASE(vgpu_pt_geom_shift_span),
	KUNIT_CASE_PARAM(vgpu_pt_geom_index, pt_index_gen_params),
	KUNIT_CASE(vgpu_pt_geom_index_roundtrip),
	KUNIT_CASE_PARAM(vgpu_pt_geom_addr_end, pt_addr_end_gen_params),
	KUNIT_CASE(vgpu_pt_geom_range_valid),
	KUNIT_CASE(vgpu_pt_geom_page_sizes),
	KUNIT_CASE_PARAM(vgpu_pt_geom_leaf_shift, pt_leaf_gen_params),
	KUNIT_CASE(vgpu_pt_geom_leaf_level_flags),
	KUNIT_CASE_PARAM(vgpu_pt_geom_cover, pt_cover_gen_params),
	{ }
};

static struct kunit_suite vgpu_pt_geom_suite = {
	.name = "vgpu_pt_geom",
	.test_cases = vgpu_pt_geom_cases,
};

kunit_test_suite(vgpu_pt_geom_suite);
