// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

/*
 * KUnit tests for the prefetch detectors and thrashing detection.  A tiny
 * model of the resolver drives the detector: a chunk faults only if
 * neither a fault nor a suggestion brought it in before, so the tests
 * count faults the way the device would raise them.
 */
#include "../vgpu_prefetch.c"

#include <kunit/test.h>

#include <linux/bitmap.h>
#include <linux/slab.h>

#define SPACE	1024	/* chunks in the model address space */

struct pf_model {
	struct vgpu_prefetch pf;
	struct vgpu_prefetch_cfg cfg;
	unsigned long *present;
	unsigned int faults;
	unsigned int suggested;
	unsigned int useless;	/* suggestions already present */
};

static struct pf_model *model(struct kunit *test)
{
	struct pf_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->present = kunit_kcalloc(test, BITS_TO_LONGS(SPACE), sizeof(long),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->present);
	vgpu_prefetch_init(&m->pf);
	vgpu_prefetch_cfg_default(&m->cfg);
	return m;
}

/* The GPU accesses @chunk; returns the number of suggestions it caused. */
static unsigned int access(struct kunit *test, struct pf_model *m, u64 chunk)
{
	u64 out[VGPU_PREFETCH_MAX_SUGGEST];
	unsigned int n, i;

	if (test_bit(chunk, m->present))
		return 0;
	m->faults++;
	__set_bit(chunk, m->present);
	n = vgpu_prefetch_fault(&m->pf, &m->cfg, chunk, out, ARRAY_SIZE(out));
	KUNIT_EXPECT_LE(test, n, (unsigned int)ARRAY_SIZE(out));
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_NE(test, out[i], chunk);
		if (out[i] >= SPACE)
			continue;
		if (test_bit(out[i], m->present))
			m->useless++;
		__set_bit(out[i], m->present);
	}
	m->suggested += n;
	return n;
}

/* Sequential: prefetch removes at least 90% of the faults. */
static void vgpu_prefetch_sequential(struct kunit *test)
{
	struct pf_model *m = model(test);
	u64 c;

	for (c = 100; c < 100 + 160; c++)
		access(test, m, c);
	kunit_info(test, "160 chunks: %u faults, %u suggested\n", m->faults,
		   m->suggested);
	KUNIT_EXPECT_LE(test, m->faults, 16u);
	KUNIT_EXPECT_EQ(test, m->useless, 0u);
	KUNIT_EXPECT_GE(test, m->pf.stats.streams, 1ull);
	/* The ramp never runs more than max_depth ahead of the last fault. */
	KUNIT_EXPECT_LE(test, m->suggested, 160u + m->cfg.max_depth);
}

/* The first two faults only establish the stride. */
static void vgpu_prefetch_ramp(struct kunit *test)
{
	struct pf_model *m = model(test);

	m->cfg.region_shift = 0;
	KUNIT_EXPECT_EQ(test, access(test, m, 10), 0u);
	KUNIT_EXPECT_EQ(test, access(test, m, 11), 0u);
	KUNIT_EXPECT_EQ(test, access(test, m, 12), 2u);	/* 13, 14 */
	KUNIT_EXPECT_TRUE(test, test_bit(13, m->present));
	KUNIT_EXPECT_TRUE(test, test_bit(14, m->present));
	KUNIT_EXPECT_EQ(test, access(test, m, 15), 4u);	/* 16..19 */
	KUNIT_EXPECT_EQ(test, access(test, m, 20), 8u);	/* 21..28 */
	KUNIT_EXPECT_TRUE(test, test_bit(28, m->present));
	KUNIT_EXPECT_FALSE(test, test_bit(29, m->present));
}

/* Strided forward and backward: only chunks on the stride are pulled. */
static void vgpu_prefetch_strided(struct kunit *test)
{
	static const s64 strides[] = { 3, -2, 7 };
	unsigned int s, i;

	for (s = 0; s < ARRAY_SIZE(strides); s++) {
		struct pf_model *m = model(test);
		u64 c = 500;

		m->cfg.region_shift = 0;
		for (i = 0; i < 60; i++, c += strides[s])
			access(test, m, c);
		for (c = 0; c < SPACE; c++)
			if (test_bit(c, m->present))
				KUNIT_EXPECT_EQ_MSG(test, ((s64)c - 500) % strides[s], 0,
						    "stride %lld", strides[s]);
		KUNIT_EXPECT_LE_MSG(test, m->faults, 12u, "stride %lld", strides[s]);
	}
}

/* Strides beyond max_stride are not streams. */
static void vgpu_prefetch_max_stride(struct kunit *test)
{
	struct pf_model *m = model(test);
	unsigned int i;

	m->cfg.region_shift = 0;
	m->cfg.max_stride = 4;
	for (i = 0; i < 40; i++)
		access(test, m, i * 8);
	KUNIT_EXPECT_EQ(test, m->faults, 40u);
	KUNIT_EXPECT_EQ(test, m->suggested, 0u);
}

/* Random access over a wide range: little or nothing suggested. */
static void vgpu_prefetch_random(struct kunit *test)
{
	struct pf_model *m = model(test);
	u32 x = 12345;
	unsigned int i;

	for (i = 0; i < 200; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		access(test, m, x % SPACE);
	}
	kunit_info(test, "random: %u faults, %u suggested\n", m->faults,
		   m->suggested);
	KUNIT_EXPECT_LE(test, m->suggested, m->faults / 4);
}

/* More than density_pct of a region faulted: the rest comes at once. */
static void vgpu_prefetch_dense(struct kunit *test)
{
	static const u8 order[] = { 9, 2, 14, 5, 0, 11, 7, 3 };
	struct pf_model *m = model(test);
	unsigned int i;

	m->cfg.max_depth = 0;
	for (i = 0; i < ARRAY_SIZE(order); i++)
		KUNIT_EXPECT_EQ(test, access(test, m, 32 + order[i]), 0u);
	/* 9 of 16 > 50% */
	KUNIT_EXPECT_EQ(test, access(test, m, 32 + 12), 7u);
	for (i = 32; i < 48; i++)
		KUNIT_EXPECT_TRUE(test, test_bit(i, m->present));
	KUNIT_EXPECT_FALSE(test, test_bit(48, m->present));
	KUNIT_EXPECT_FALSE(test, test_bit(31, m->present));
	KUNIT_EXPECT_EQ(test, m->pf.stats.regions, 1ull);
}

/* Both detectors off: nothing is suggested; a full output stops cleanly. */
static void vgpu_prefetch_off_and_full(struct kunit *test)
{
	struct pf_model *m = model(test);
	u64 out[3];
	unsigned int i, n = 0;

	m->cfg.max_depth = 0;
	m->cfg.region_shift = 0;
	for (i = 0; i < 64; i++)
		access(test, m, i);
	KUNIT_EXPECT_EQ(test, m->suggested, 0u);
	KUNIT_EXPECT_EQ(test, m->faults, 64u);

	vgpu_prefetch_cfg_default(&m->cfg);
	vgpu_prefetch_init(&m->pf);
	for (i = 0; i < 8; i++)
		n = vgpu_prefetch_fault(&m->pf, &m->cfg, 200 + i, out,
					ARRAY_SIZE(out));
	KUNIT_EXPECT_EQ(test, n, (unsigned int)ARRAY_SIZE(out));
}

/* More than thrash_count returns within the window pin the chunk. */
static void vgpu_thrash_detect(struct kunit *test)
{
	struct vgpu_prefetch_cfg cfg;
	struct vgpu_thrash t = { };
	u64 now = 1000 * NSEC_PER_SEC;
	unsigned int i;

	vgpu_prefetch_cfg_default(&cfg);
	cfg.thrash_count = 3;
	cfg.thrash_window_ns = 100;
	cfg.thrash_pin_ns = 1000;

	KUNIT_EXPECT_FALSE(test, vgpu_thrash_migrate_in(&t, &cfg, now));	/* first */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_FALSE(test, vgpu_thrash_migrate_in(&t, &cfg, now + 10 * i));
	KUNIT_EXPECT_FALSE(test, vgpu_thrash_pinned(&t, now + 30));
	KUNIT_EXPECT_TRUE(test, vgpu_thrash_migrate_in(&t, &cfg, now + 40));
	KUNIT_EXPECT_TRUE(test, vgpu_thrash_pinned(&t, now + 40));
	KUNIT_EXPECT_TRUE(test, vgpu_thrash_pinned(&t, now + 1039));
	KUNIT_EXPECT_FALSE(test, vgpu_thrash_pinned(&t, now + 1040));
	KUNIT_EXPECT_EQ(test, t.migrations, 5u);

	/* Slow returns, one per window, never thrash. */
	now += 10000;
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_FALSE(test, vgpu_thrash_migrate_in(&t, &cfg, now + 101 * i));

	/* Detection off. */
	cfg.thrash_count = 0;
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_FALSE(test, vgpu_thrash_migrate_in(&t, &cfg, now));
}

static struct kunit_case vgpu_prefetch_cases[] = {
	KUNIT_CASE(vgpu_prefetch_sequential),
	KUNIT_CASE(vgpu_prefetch_ramp),
	KUNIT_CASE(vgpu_prefetch_strided),
	KUNIT_CASE(vgpu_prefetch_max_stride),
	KUNIT_CASE(vgpu_prefetch_random),
	KUNIT_CASE(vgpu_prefetch_dense),
	KUNIT_CASE(vgpu_prefetch_off_and_full),
	KUNIT_CASE(vgpu_thrash_detect),
	{ }
};

static struct kunit_suite vgpu_prefetch_suite = {
	.name = "vgpu_prefetch",
	.test_cases = vgpu_prefetch_cases,
};

kunit_test_suite(vgpu_prefetch_suite);
