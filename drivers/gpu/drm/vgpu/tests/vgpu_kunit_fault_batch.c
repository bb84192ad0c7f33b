// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

/*
 * KUnit tests for fault batching: the batch limit, sorting, merging of
 * duplicate records, grouping by VM and chunk, and the counters.  The VMs
 * are only compared, never dereferenced, so fake pointers stand in.
 */
#include "../vgpu_fault_batch.c"

#include <kunit/test.h>

#include <linux/sizes.h>

#define VM_A	((struct vgpu_vm *)0x1000)
#define VM_B	((struct vgpu_vm *)0x2000)

static struct vgpu_fault fault(u64 va, u32 queue, u32 access)
{
	return (struct vgpu_fault){
		.va = va, .queue = queue, .ctx = 1, .access = access,
		.reason = VGPU_FAULT_NOT_PRESENT,
	};
}

KUNIT_DEFINE_ACTION_WRAPPER(batch_free, vgpu_fault_batch_free,
			    struct vgpu_fault_batch *);

static struct vgpu_fault_batch *batch(struct kunit *test, unsigned int limit)
{
	struct vgpu_fault_batch *b = vgpu_fault_batch_alloc(limit, 21);

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, batch_free, b), 0);
	return b;
}

static void vgpu_fault_batch_limit(struct kunit *test)
{
	struct vgpu_fault_batch *b = batch(test, 3);
	struct vgpu_fault f = fault(SZ_2M, 0, VGPU_ACCESS_READ);
	int i;

	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_FALSE(test, vgpu_fault_batch_full(b));
		KUNIT_EXPECT_TRUE(test, vgpu_fault_batch_add(b, VM_A, &f));
	}
	KUNIT_EXPECT_TRUE(test, vgpu_fault_batch_full(b));
	KUNIT_EXPECT_FALSE(test, vgpu_fault_batch_add(b, VM_A, &f));
	KUNIT_EXPECT_EQ(test, b->nr_records, 3u);

	vgpu_fault_batch_set_limit(b, 0);
	KUNIT_EXPECT_EQ(test, b->limit, 1u);
	vgpu_fault_batch_set_limit(b, 100000);
	KUNIT_EXPECT_EQ(test, b->limit, (unsigned int)VGPU_FAULT_BATCH_MAX);

	vgpu_fault_batch_reset(b);
	KUNIT_EXPECT_EQ(test, b->nr, 0u);
	KUNIT_EXPECT_EQ(test, b->nr_records, 0u);
	for (i = 0; i < VGPU_FAULT_BATCH_MAX; i++)
		KUNIT_EXPECT_TRUE(test, vgpu_fault_batch_add(b, VM_A, &f));
	KUNIT_EXPECT_TRUE(test, vgpu_fault_batch_full(b));
}

/* Two queues on one page: one entry, both queues, both accesses. */
static void vgpu_fault_batch_dedup_queues(struct kunit *test)
{
	struct vgpu_fault_batch *b = batch(test, 256);
	struct vgpu_fault f1 = fault(SZ_4M + SZ_4K, 3, VGPU_ACCESS_READ);
	struct vgpu_fault f2 = fault(SZ_4M + SZ_4K, 1, VGPU_ACCESS_WRITE);
	struct vgpu_fault f3 = fault(SZ_4M + SZ_8K, 1, VGPU_ACCESS_READ);

	vgpu_fault_batch_add(b, VM_A, &f1);
	vgpu_fault_batch_add(b, VM_A, &f3);
	vgpu_fault_batch_add(b, VM_A, &f2);
	vgpu_fault_batch_add(b, VM_A, &f1);	/* seen again after an overflow */
	vgpu_fault_batch_sort(b);

	KUNIT_ASSERT_EQ(test, b->nr, 2u);
	KUNIT_EXPECT_EQ(test, b->entries[0].f.va, (u64)SZ_4M + SZ_4K);
	KUNIT_EXPECT_EQ(test, b->entries[0].queues, BIT(1) | BIT(3));
	KUNIT_EXPECT_EQ(test, b->entries[0].access_mask,
			BIT(VGPU_ACCESS_READ) | BIT(VGPU_ACCESS_WRITE));
	KUNIT_EXPECT_EQ(test, b->entries[0].dups, 2u);
	KUNIT_EXPECT_EQ(test, b->entries[1].f.va, (u64)SZ_4M + SZ_8K);
	KUNIT_EXPECT_EQ(test, b->entries[1].dups, 0u);

	KUNIT_ASSERT_EQ(test, b->nr_groups, 1u);
	KUNIT_EXPECT_EQ(test, b->groups[0].chunk, 2ull);
	KUNIT_EXPECT_EQ(test, b->groups[0].nr, 2u);
	KUNIT_EXPECT_EQ(test, b->groups[0].queues, BIT(1) | BIT(3));

	KUNIT_EXPECT_EQ(test, b->stats.batches, 1ull);
	KUNIT_EXPECT_EQ(test, b->stats.records, 4ull);
	KUNIT_EXPECT_EQ(test, b->stats.duplicates, 2ull);
	KUNIT_EXPECT_EQ(test, b->stats.largest, 4ull);
}

/* Same VA in two VMs is two faults; groups follow VM then chunk order. */
static void vgpu_fault_batch_groups(struct kunit *test)
{
	static const struct { struct vgpu_vm *vm; u64 va; } in[] = {
		{ VM_B, SZ_2M },
		{ VM_A, 5 * SZ_2M + SZ_64K },
		{ VM_A, SZ_2M + SZ_4K },
		{ NULL, SZ_2M },
		{ VM_A, 5 * SZ_2M },
		{ VM_A, SZ_2M },
		{ VM_B, SZ_2M + SZ_1M },
	};
	static const struct { struct vgpu_vm *vm; u64 chunk; u32 nr; } want[] = {
		{ NULL, 1, 1 },
		{ VM_A, 1, 2 },
		{ VM_A, 5, 2 },
		{ VM_B, 1, 2 },
	};
	struct vgpu_fault_batch *b = batch(test, 256);
	struct vgpu_fault_group *g;
	unsigned int i = 0, e;

	for (e = 0; e < ARRAY_SIZE(in); e++) {
		struct vgpu_fault f = fault(in[e].va, e, VGPU_ACCESS_READ);

		vgpu_fault_batch_add(b, in[e].vm, &f);
	}
	vgpu_fault_batch_sort(b);
	KUNIT_EXPECT_EQ(test, b->nr, 7u);
	KUNIT_ASSERT_EQ(test, b->nr_groups, (unsigned int)ARRAY_SIZE(want));
	vgpu_fault_batch_for_each_group(b, g) {
		KUNIT_EXPECT_PTR_EQ(test, g->vm, want[i].vm);
		KUNIT_EXPECT_EQ(test, g->chunk, want[i].chunk);
		KUNIT_EXPECT_EQ(test, g->nr, want[i].nr);
		for (e = g->first; e < g->first + g->nr; e++) {
			KUNIT_EXPECT_PTR_EQ(test, b->entries[e].vm, g->vm);
			KUNIT_EXPECT_EQ(test, b->entries[e].f.va >> 21, g->chunk);
			if (e > g->first)
				KUNIT_EXPECT_LT(test, b->entries[e - 1].f.va,
						b->entries[e].f.va);
		}
		i++;
	}
	KUNIT_EXPECT_EQ(test, b->stats.duplicates, 0ull);
	KUNIT_EXPECT_EQ(test, b->stats.groups, 4ull);
}

/* The grouping chunk is a parameter: 64 KiB chunks split a 2 MiB range. */
static void vgpu_fault_batch_chunk_shift(struct kunit *test)
{
	struct vgpu_fault_batch *b = vgpu_fault_batch_alloc(256, 16);
	struct vgpu_fault f;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < 8; i++) {
		f = fault(SZ_2M + i * SZ_32K, 0, VGPU_ACCESS_READ);
		vgpu_fault_batch_add(b, VM_A, &f);
	}
	vgpu_fault_batch_sort(b);
	KUNIT_EXPECT_EQ(test, b->nr_groups, 4u);
	vgpu_fault_batch_free(b);

	b = vgpu_fault_batch_alloc(256, 2);	/* clamped to a page */
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->chunk_shift, (unsigned int)VGPU_PAGE_SHIFT);
	vgpu_fault_batch_free(b);
}

/* Counters add up over batches; an empty batch counts nothing. */
static void vgpu_fault_batch_stats_accumulate(struct kunit *test)
{
	struct vgpu_fault_batch *b = batch(test, 8);
	struct vgpu_fault f;
	int round, i;

	vgpu_fault_batch_sort(b);
	KUNIT_EXPECT_EQ(test, b->stats.batches, 0ull);
	for (round = 0; round < 5; round++) {
		vgpu_fault_batch_reset(b);
		for (i = 0; i < 8; i++) {
			f = fault(SZ_2M * (i / 2 + 1), i % 2, VGPU_ACCESS_READ);
			vgpu_fault_batch_add(b, VM_A, &f);
		}
		vgpu_fault_batch_sort(b);
		KUNIT_EXPECT_EQ(test, b->nr, 4u);
		KUNIT_EXPECT_EQ(test, b->nr_groups, 4u);
	}
	KUNIT_EXPECT_EQ(test, b->stats.batches, 5ull);
	KUNIT_EXPECT_EQ(test, b->stats.records, 40ull);
	KUNIT_EXPECT_EQ(test, b->stats.duplicates, 20ull);
	KUNIT_EXPECT_EQ(test, b->stats.groups, 20ull);
	KUNIT_EXPECT_EQ(test, b->stats.largest, 8ull);
}

static struct kunit_case vgpu_fault_batch_cases[] = {
	KUNIT_CASE(vgpu_fault_batch_limit),
	KUNIT_CASE(vgpu_fault_batch_dedup_queues),
	KUNIT_CASE(vgpu_fault_batch_groups),
	KUNIT_CASE(vgpu_fault_batch_chunk_shift),
	KUNIT_CASE(vgpu_fault_batch_stats_accumulate),
	{ }
};

static struct kunit_suite vgpu_fault_batch_suite = {
	.name = "vgpu_fault_batch",
	.test_cases = vgpu_fault_batch_cases,
};

kunit_test_suite(vgpu_fault_batch_suite);
