// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

/*
 * KUnit tests for the VRAM manager's bookkeeping on the buddy allocator:
 * CPU-visible accounting, contiguity detection, the VRAM cursor, and the
 * promise that an alignment-sized minimum block gives page-table-friendly
 * blocks.  No device and no TTM device: the tests drive a bare gpu_buddy
 * and struct vgpu_vram_res lists.
 *
 * The manager's source is included rather than linked so that its static
 * helpers can be tested as they are; this private copy lives in
 * vgpu_kunit.ko, and vgpu.ko is not involved.
 */
#include "../vgpu_vram_mgr.c"

#include <kunit/test.h>

#include <linux/sizes.h>

#include "../vgpu_pt_geom.h"

/*
 * The VRAM pool is not under test and lives in vgpu.ko: the manager's
 * calls into it are stubbed.  No test here allocates through TTM, so none
 * of them is reached.
 */
bool vgpu_pool_lock_unless_held(struct vgpu_pool *pool)
{
	return false;
}

void vgpu_pool_unlock(struct vgpu_pool *pool)
{
}

void vgpu_pool_begin_locked(struct vgpu_pool *pool)
{
}

int vgpu_pool_make_room_locked(struct vgpu_pool *pool, u64 start, u64 end)
{
	return -ENOSPC;
}

void vgpu_bo_vram_attach(struct vgpu_bo *bo, struct vgpu_vram_res *vres)
{
}

void vgpu_bo_vram_detach(struct vgpu_bo *bo, struct vgpu_vram_res *vres)
{
}

#define VRAM_SIZE	SZ_256M
#define VISIBLE_SIZE	SZ_64M

struct vram_test {
	struct vgpu_vram_mgr mgr;
	struct vgpu_vram_res res[4];
};

static int vram_test_init(struct kunit *test)
{
	struct vram_test *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, gpu_buddy_init(&t->mgr.mm, VRAM_SIZE, SZ_4K), 0);
	t->mgr.visible_size = VISIBLE_SIZE;
	t->mgr.visible_avail = VISIBLE_SIZE;
	for (i = 0; i < ARRAY_SIZE(t->res); i++)
		INIT_LIST_HEAD(&t->res[i].blocks);
	test->priv = t;
	return 0;
}

/* Everything allocated must come back: gpu_buddy_fini() warns otherwise. */
static void vram_test_exit(struct kunit *test)
{
	struct vram_test *t = test->priv;
	int i;

	for (i = 0; i < ARRAY_SIZE(t->res); i++)
		gpu_buddy_free_list(&t->mgr.mm, &t->res[i].blocks, 0);
	KUNIT_EXPECT_EQ(test, t->mgr.mm.avail, t->mgr.mm.size);
	gpu_buddy_fini(&t->mgr.mm);
}

static u64 blocks_size(struct gpu_buddy *mm, struct list_head *blocks)
{
	struct gpu_buddy_block *block;
	u64 size = 0;

	list_for_each_entry(block, blocks, link)
		size += gpu_buddy_block_size(mm, block);
	return size;
}

/* Allocate [start, start + size) exactly, appended to @blocks. */
static void alloc_at(struct kunit *test, struct gpu_buddy *mm,
		     struct list_head *blocks, u64 start, u64 size)
{
	LIST_HEAD(tmp);

	KUNIT_ASSERT_EQ(test, gpu_buddy_alloc_blocks(mm, start, start + size,
						     size, SZ_4K, &tmp,
						     GPU_BUDDY_RANGE_ALLOCATION), 0);
	list_splice_tail(&tmp, blocks);
}

struct visible_case {
	const char *desc;
	u64 start, size, visible;
};

static const struct visible_case visible_cases[] = {
	{ "all visible", 0, SZ_8M, SZ_8M },
	{ "ends at the window", VISIBLE_SIZE - SZ_4M, SZ_4M, SZ_4M },
	{ "straddles the window", VISIBLE_SIZE - SZ_4M, SZ_8M, SZ_4M },
	{ "straddles by one page", VISIBLE_SIZE - SZ_4K, SZ_8K, SZ_4K },
	{ "starts at the window", VISIBLE_SIZE, SZ_2M, 0 },
	{ "far above", VRAM_SIZE - SZ_1M, SZ_1M, 0 },
};

static void visible_desc(const struct visible_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(visible, visible_cases, visible_desc);

static void vgpu_vram_visible_accounting(struct kunit *test)
{
	const struct visible_case *c = test->param_value;
	struct vram_test *t = test->priv;
	struct vgpu_vram_res *vres = &t->res[0];

	alloc_at(test, &t->mgr.mm, &vres->blocks, c->start, c->size);
	KUNIT_EXPECT_EQ(test, blocks_size(&t->mgr.mm, &vres->blocks), c->size);
	KUNIT_EXPECT_EQ(test, vgpu_vram_blocks_visible(&t->mgr, &vres->blocks),
			c->visible);
}

static void vgpu_vram_contiguous(struct kunit *test)
{
	struct vram_test *t = test->priv;
	struct gpu_buddy *mm = &t->mgr.mm;

	/* one contiguous allocation, several blocks */
	KUNIT_ASSERT_EQ(test, gpu_buddy_alloc_blocks(mm, 0, VRAM_SIZE, SZ_4M + SZ_64K,
						     SZ_4K, &t->res[0].blocks,
						     GPU_BUDDY_CONTIGUOUS_ALLOCATION), 0);
	KUNIT_EXPECT_EQ(test, blocks_size(mm, &t->res[0].blocks), (u64)SZ_4M + SZ_64K);
	KUNIT_EXPECT_TRUE(test, vgpu_vram_blocks_contiguous(&t->mgr, &t->res[0].blocks));

	/* two adjacent ranges in address order: contiguous */
	alloc_at(test, mm, &t->res[1].blocks, SZ_32M, SZ_64K);
	alloc_at(test, mm, &t->res[1].blocks, SZ_32M + SZ_64K, SZ_4K);
	KUNIT_EXPECT_TRUE(test, vgpu_vram_blocks_contiguous(&t->mgr, &t->res[1].blocks));

	/* the same ranges in the other order: the BO is not linear in VRAM */
	alloc_at(test, mm, &t->res[2].blocks, SZ_64M + SZ_64K, SZ_4K);
	alloc_at(test, mm, &t->res[2].blocks, SZ_64M, SZ_64K);
	KUNIT_EXPECT_FALSE(test, vgpu_vram_blocks_contiguous(&t->mgr, &t->res[2].blocks));

	/* a hole between two blocks */
	alloc_at(test, mm, &t->res[3].blocks, SZ_128M, SZ_4K);
	alloc_at(test, mm, &t->res[3].blocks, SZ_128M + SZ_8K, SZ_4K);
	KUNIT_EXPECT_FALSE(test, vgpu_vram_blocks_contiguous(&t->mgr, &t->res[3].blocks));
}

/* A cursor over blocks at 8M (2M), 0 (64K) and 100M (4K), in that order. */
static void vgpu_vram_cursor_walk(struct kunit *test)
{
	struct vram_test *t = test->priv;
	struct vgpu_vram_res *vres = &t->res[0];
	struct vgpu_vram_cursor cur;

	alloc_at(test, &t->mgr.mm, &vres->blocks, SZ_8M, SZ_2M);
	alloc_at(test, &t->mgr.mm, &vres->blocks, 0, SZ_64K);
	alloc_at(test, &t->mgr.mm, &vres->blocks, 100 * SZ_1M, SZ_4K);

	vgpu_vram_cursor_init(&cur, &vres->base, 0);
	KUNIT_EXPECT_EQ(test, cur.start, (u64)SZ_8M);
	KUNIT_EXPECT_EQ(test, cur.remaining, (u64)SZ_2M);

	vgpu_vram_cursor_next(&cur, SZ_1M);
	KUNIT_EXPECT_EQ(test, cur.start, (u64)SZ_8M + SZ_1M);
	KUNIT_EXPECT_EQ(test, cur.remaining, (u64)SZ_1M);

	/* exactly to the end of the first block: moves to the second */
	vgpu_vram_cursor_next(&cur, SZ_1M);
	KUNIT_EXPECT_EQ(test, cur.start, 0ull);
	KUNIT_EXPECT_EQ(test, cur.remaining, (u64)SZ_64K);

	/* across a block boundary in one step */
	vgpu_vram_cursor_next(&cur, SZ_64K + SZ_4K / 2);
	KUNIT_EXPECT_EQ(test, cur.start, 100ull * SZ_1M + SZ_4K / 2);
	KUNIT_EXPECT_EQ(test, cur.remaining, (u64)SZ_4K / 2);

	/* init with an offset lands in the right block */
	vgpu_vram_cursor_init(&cur, &vres->base, SZ_2M + SZ_8K);
	KUNIT_EXPECT_EQ(test, cur.start, (u64)SZ_8K);
	KUNIT_EXPECT_EQ(test, cur.remaining, (u64)SZ_64K - SZ_8K);

	/* the end of the last block: stays there, nothing remaining */
	vgpu_vram_cursor_init(&cur, &vres->base, SZ_2M + SZ_64K + SZ_4K);
	KUNIT_EXPECT_EQ(test, cur.start, 100ull * SZ_1M + SZ_4K);
	KUNIT_EXPECT_EQ(test, cur.remaining, 0ull);
}

/*
 * The manager passes the BO's alignment as the buddy's minimum block size:
 * every block is then aligned and at least that big, so a walk over the
 * allocation with the cursor never has to fall back below that leaf size.
 */
struct min_block_case {
	const char *desc;
	u64 size, min_block;
	unsigned int leaf_shift;
};

static const struct min_block_case min_block_cases[] = {
	{ "2M alignment, 6M", 6 * SZ_1M, SZ_2M, 21 },
	{ "64K alignment, 1M + 64K", SZ_1M + SZ_64K, SZ_64K, 16 },
	{ "4K alignment, 12K", 3 * SZ_4K, SZ_4K, 12 },
};

static void min_block_desc(const struct min_block_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->desc);
}

KUNIT_ARRAY_PARAM(min_block, min_block_cases, min_block_desc);

static void vgpu_vram_min_block_leaves(struct kunit *test)
{
	const struct min_block_case *c = test->param_value;
	struct vram_test *t = test->priv;
	struct gpu_buddy *mm = &t->mgr.mm;
	struct vgpu_vram_res *vres = &t->res[0];
	struct gpu_buddy_block *block;
	struct vgpu_vram_cursor cur;
	u64 va = SZ_1G, left = c->size;	/* GPU VA aligned for any leaf */
	u32 caps = VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M;

	/* fragment the allocator a little first */
	alloc_at(test, mm, &t->res[1].blocks, SZ_4K, SZ_4K);
	alloc_at(test, mm, &t->res[1].blocks, SZ_2M + SZ_64K, SZ_4K);

	KUNIT_ASSERT_EQ(test, gpu_buddy_alloc_blocks(mm, 0, VRAM_SIZE, c->size,
						     c->min_block, &vres->blocks, 0), 0);
	KUNIT_EXPECT_EQ(test, blocks_size(mm, &vres->blocks), c->size);
	list_for_each_entry(block, &vres->blocks, link) {
		KUNIT_EXPECT_GE(test, gpu_buddy_block_size(mm, block), c->min_block);
		KUNIT_EXPECT_EQ(test, gpu_buddy_block_offset(block) & (c->min_block - 1), 0ull);
	}

	vgpu_vram_cursor_init(&cur, &vres->base, 0);
	while (left) {
		u64 chunk = min(left, cur.remaining);
		unsigned int shift = vgpu_pt_leaf_shift(va, cur.start, chunk, caps);

		KUNIT_ASSERT_GE(test, shift, c->leaf_shift);
		va += 1ull << shift;
		left -= 1ull << shift;
		vgpu_vram_cursor_next(&cur, 1ull << shift);
	}
}

static void vgpu_vram_free_restores(struct kunit *test)
{
	struct vram_test *t = test->priv;
	struct gpu_buddy *mm = &t->mgr.mm;
	u64 avail = mm->avail;
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, gpu_buddy_alloc_blocks(mm, 0, VRAM_SIZE,
							     (i + 1) * SZ_1M, SZ_4K,
							     &t->res[i].blocks, 0), 0);
	KUNIT_EXPECT_EQ(test, avail - mm->avail, (u64)6 * SZ_1M);
	gpu_buddy_free_list(mm, &t->res[1].blocks, 0);
	KUNIT_EXPECT_EQ(test, avail - mm->avail, (u64)4 * SZ_1M);
	/* freed blocks are reusable: allocating all the rest succeeds */
	KUNIT_EXPECT_EQ(test, gpu_buddy_alloc_blocks(mm, 0, VRAM_SIZE, mm->avail,
						     SZ_4K, &t->res[3].blocks, 0), 0);
	KUNIT_EXPECT_EQ(test, mm->avail, 0ull);
	/* and a full allocator refuses cleanly */
	KUNIT_EXPECT_EQ(test, gpu_buddy_alloc_blocks(mm, 0, VRAM_SIZE, SZ_4K, SZ_4K,
						     &t->res[1].blocks, 0), -ENOSPC);
}

static struct kunit_case vgpu_vram_mgr_cases[] = {
	KUNIT_CASE_PARAM(vgpu_vram_visible_accounting, visible_gen_params),
	KUNIT_CASE(vgpu_vram_contiguous),
	KUNIT_CASE(vgpu_vram_cursor_walk),
	KUNIT_CASE_PARAM(vgpu_vram_min_block_leaves, min_block_gen_params),
	KUNIT_CASE(vgpu_vram_free_restores),
	{ }
};

static struct kunit_suite vgpu_vram_mgr_suite = {
	.name = "vgpu_vram_mgr",
	.init = vram_test_init,
	.exit = vram_test_exit,
	.test_cases = vgpu_vram_mgr_cases,
};

kunit_test_suite(vgpu_vram_mgr_suite);
