// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

/*
 * KUnit tests for the eviction policies: the ordering each policy keeps,
 * how sampled touches become history (epochs, correlated references,
 * access-counter deltas), switching at run time, and a small cache
 * simulation that shows LRU-2 resisting a scan that defeats LRU.
 */
#include "../vgpu_evict_policy.c"
#include "../vgpu_evict_lru.c"
#include "../vgpu_evict_lru2.c"

#include <kunit/test.h>

#include <linux/slab.h>

#define NCHUNKS	64

struct evict_test {
	struct mutex lock;
	struct vgpu_evict_lru lru;
	struct vgpu_evict_unit c[NCHUNKS];
};

static int evict_test_init(struct kunit *test)
{
	struct evict_test *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	mutex_init(&t->lock);
	vgpu_evict_lru_init(&t->lru, &t->lock, &vgpu_evict_lru_ops,
			    VGPU_EVICT_CRP_DEFAULT);
	for (i = 0; i < NCHUNKS; i++)
		vgpu_evict_unit_init(&t->c[i]);
	test->priv = t;
	return 0;
}

static void evict_test_exit(struct kunit *test)
{
	struct evict_test *t = test->priv;

	mutex_destroy(&t->lock);
}

/*
 * The policy functions assert the owner's lock.  Each case body runs with
 * it held; init and exit run in other threads, so the case takes it.
 */
#define EVICT_CASE(name)						\
static void name##_locked(struct kunit *test, struct evict_test *t);	\
static void name(struct kunit *test)					\
{									\
	struct evict_test *t = test->priv;				\
									\
	mutex_lock(&t->lock);						\
	name##_locked(test, t);						\
	mutex_unlock(&t->lock);						\
}									\
static void name##_locked(struct kunit *test, struct evict_test *t)

static int chunk_id(struct evict_test *t, struct vgpu_evict_unit *c)
{
	return c ? (int)(c - t->c) : -1;
}

/* Checks the walk is sorted by the policy and visits every resident chunk. */
static void expect_sorted(struct kunit *test, struct evict_test *t)
{
	struct vgpu_evict_unit *c, *prev = NULL;
	unsigned long n = 0;

	vgpu_evict_for_each_coldest(&t->lru, c) {
		KUNIT_EXPECT_TRUE(test, c->resident);
		if (prev)
			KUNIT_EXPECT_FALSE(test, t->lru.ops->colder(c, prev));
		prev = c;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, t->lru.nr);
}

static void vgpu_evict_policy_lookup_by_name(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_evict_policy_lookup("lru"), VGPU_EVICT_ID_lru);
	KUNIT_EXPECT_EQ(test, vgpu_evict_policy_lookup("lru2"), VGPU_EVICT_ID_lru2);
	KUNIT_EXPECT_EQ(test, vgpu_evict_policy_lookup("lru2\n"), VGPU_EVICT_ID_lru2);
	KUNIT_EXPECT_EQ(test, vgpu_evict_policy_lookup("lru3"), -EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_evict_policy_lookup(""), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_evict_policy_get(VGPU_EVICT_ID_lru), &vgpu_evict_lru_ops);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_evict_policy_get(VGPU_EVICT_ID_lru2), &vgpu_evict_lru2_ops);
	KUNIT_EXPECT_NULL(test, vgpu_evict_policy_get(VGPU_EVICT_NR));
}

/*
 * Every registered policy: a strict weak ordering over random histories
 * (irreflexive, asymmetric, transitive), as the tree needs, and a name
 * lookup finds it again.
 */
static void vgpu_evict_policy_each_is_an_ordering(struct kunit *test)
{
	struct vgpu_evict_unit c[12];
	unsigned int p, i, j, k;
	u32 seed = 1;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		vgpu_evict_unit_init(&c[i]);
		seed = seed * 1103515245 + 12345;
		c[i].last = (seed >> 16) % 4;
		c[i].hist[0] = c[i].last;
		c[i].hist[1] = (seed >> 20) % 3;
		c[i].seq = i;
	}
	for (p = 0; p < VGPU_EVICT_NR; p++) {
		const struct vgpu_evict_policy_ops *ops = vgpu_evict_policy_get(p);

		KUNIT_ASSERT_NOT_NULL(test, ops);
		KUNIT_EXPECT_EQ(test, vgpu_evict_policy_lookup(ops->name), (int)p);
		KUNIT_EXPECT_NOT_NULL(test, ops->desc);
		for (i = 0; i < ARRAY_SIZE(c); i++) {
			KUNIT_EXPECT_FALSE(test, ops->colder(&c[i], &c[i]));
			for (j = 0; j < ARRAY_SIZE(c); j++) {
				if (ops->colder(&c[i], &c[j]))
					KUNIT_EXPECT_FALSE(test, ops->colder(&c[j], &c[i]));
				for (k = 0; k < ARRAY_SIZE(c); k++)
					if (ops->colder(&c[i], &c[j]) &&
					    ops->colder(&c[j], &c[k]))
						KUNIT_EXPECT_TRUE(test,
								  ops->colder(&c[i], &c[k]));
			}
		}
	}
}

/* LRU: the chunk touched longest ago goes first; a touch makes it warm. */
EVICT_CASE(vgpu_evict_lru_order)
{
	int i;

	for (i = 0; i < 4; i++) {
		vgpu_evict_lru_advance(&t->lru);
		vgpu_evict_lru_insert(&t->lru, &t->c[i]);
		vgpu_evict_lru_touch(&t->lru, &t->c[i]);
	}
	KUNIT_EXPECT_EQ(test, t->lru.nr, 4ul);
	KUNIT_EXPECT_EQ(test, chunk_id(t, vgpu_evict_lru_coldest(&t->lru)), 0);
	vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_touch(&t->lru, &t->c[0]);
	KUNIT_EXPECT_EQ(test, chunk_id(t, vgpu_evict_lru_coldest(&t->lru)), 1);
	expect_sorted(test, t);

	vgpu_evict_lru_remove(&t->lru, &t->c[1]);
	KUNIT_EXPECT_FALSE(test, t->c[1].resident);
	KUNIT_EXPECT_EQ(test, chunk_id(t, vgpu_evict_lru_coldest(&t->lru)), 2);
	KUNIT_EXPECT_EQ(test, t->lru.nr, 3ul);
	KUNIT_EXPECT_EQ(test, t->lru.stats.inserts, 4ull);
	KUNIT_EXPECT_EQ(test, t->lru.stats.removes, 1ull);
	expect_sorted(test, t);
}

/* Touches of one epoch count once; touching a non-resident chunk is history. */
EVICT_CASE(vgpu_evict_touch_epochs)
{
	struct vgpu_evict_unit *c = &t->c[0];
	u64 e;

	vgpu_evict_lru_insert(&t->lru, c);
	e = vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_touch(&t->lru, c);
	vgpu_evict_lru_touch(&t->lru, c);
	KUNIT_EXPECT_EQ(test, c->last, e);
	KUNIT_EXPECT_EQ(test, t->lru.stats.touches, 1ull);

	vgpu_evict_lru_touch(&t->lru, &t->c[1]);	/* not resident */
	KUNIT_EXPECT_EQ(test, t->c[1].last, e);
	KUNIT_EXPECT_FALSE(test, t->c[1].resident);
	KUNIT_EXPECT_EQ(test, t->lru.nr, 1ul);
}

/* Samples within the correlated reference period extend one reference. */
EVICT_CASE(vgpu_evict_correlated)
{
	struct vgpu_evict_unit *c = &t->c[0];
	u64 first;
	int i;

	t->lru.crp = 2;
	vgpu_evict_lru_insert(&t->lru, c);
	first = vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_touch(&t->lru, c);
	for (i = 0; i < 2; i++) {
		vgpu_evict_lru_advance(&t->lru);
		vgpu_evict_lru_touch(&t->lru, c);
	}
	KUNIT_EXPECT_EQ(test, c->refs, 1ull);
	KUNIT_EXPECT_EQ(test, c->hist[0], first);
	KUNIT_EXPECT_EQ(test, c->hist[1], 0ull);

	/* crp + 1 epochs after the burst began: a new reference. */
	vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_touch(&t->lru, c);
	KUNIT_EXPECT_EQ(test, c->refs, 2ull);
	KUNIT_EXPECT_EQ(test, c->hist[1], first);
	KUNIT_EXPECT_EQ(test, c->hist[0], first + 3);
	KUNIT_EXPECT_EQ(test, c->last, first + 3);
}

/* LRU-2 evicts once-referenced chunks first, however recent. */
EVICT_CASE(vgpu_evict_lru2_order)
{
	struct vgpu_evict_unit *hot = &t->c[0], *scan = &t->c[1];

	vgpu_evict_lru_set_policy(&t->lru, &vgpu_evict_lru2_ops);
	vgpu_evict_lru_insert(&t->lru, hot);
	vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_touch(&t->lru, hot);
	vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_touch(&t->lru, hot);
	KUNIT_EXPECT_EQ(test, hot->refs, 2ull);

	vgpu_evict_lru_advance(&t->lru);
	vgpu_evict_lru_insert(&t->lru, scan);
	vgpu_evict_lru_touch(&t->lru, scan);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_evict_lru_coldest(&t->lru), scan);
	expect_sorted(test, t);

	/* The same history under LRU: the scan chunk is the warmest. */
	vgpu_evict_lru_set_policy(&t->lru, &vgpu_evict_lru_ops);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_evict_lru_coldest(&t->lru), hot);
	KUNIT_EXPECT_EQ(test, t->lru.stats.switches, 2ull);
	expect_sorted(test, t);
}

/* Switching back and forth keeps the set and the history. */
EVICT_CASE(vgpu_evict_switch)
{
	u32 x = 1;
	int i, round;

	for (i = 0; i < NCHUNKS; i++)
		vgpu_evict_lru_insert(&t->lru, &t->c[i]);
	for (round = 0; round < 200; round++) {
		vgpu_evict_lru_advance(&t->lru);
		for (i = 0; i < 8; i++) {
			x = x * 1103515245 + 12345;
			vgpu_evict_lru_touch(&t->lru, &t->c[(x >> 16) % NCHUNKS]);
		}
		if (round % 50 == 0)
			vgpu_evict_lru_set_policy(&t->lru, round % 100 ?
						  &vgpu_evict_lru_ops :
						  &vgpu_evict_lru2_ops);
		expect_sorted(test, t);
	}
	KUNIT_EXPECT_EQ(test, t->lru.nr, (unsigned long)NCHUNKS);
	/* Setting the active policy again is no switch. */
	i = t->lru.stats.switches;
	vgpu_evict_lru_set_policy(&t->lru, t->lru.ops);
	KUNIT_EXPECT_EQ(test, t->lru.stats.switches, (u64)i);
}

/* Access-counter totals become deltas; a reset counter starts over. */
EVICT_CASE(vgpu_evict_counter_sample)
{
	struct vgpu_evict_unit *c = &t->c[0];

	vgpu_evict_lru_insert(&t->lru, c);
	vgpu_evict_lru_advance(&t->lru);
	KUNIT_EXPECT_EQ(test, vgpu_evict_lru_sample_counter(&t->lru, c, 0), 0u);
	KUNIT_EXPECT_EQ(test, c->last, 0ull);
	KUNIT_EXPECT_EQ(test, vgpu_evict_lru_sample_counter(&t->lru, c, 100), 100u);
	KUNIT_EXPECT_EQ(test, c->last, t->lru.epoch);

	vgpu_evict_lru_advance(&t->lru);
	KUNIT_EXPECT_EQ(test, vgpu_evict_lru_sample_counter(&t->lru, c, 100), 0u);
	KUNIT_EXPECT_NE(test, c->last, t->lru.epoch);
	KUNIT_EXPECT_EQ(test, vgpu_evict_lru_sample_counter(&t->lru, c, 130), 30u);
	KUNIT_EXPECT_EQ(test, c->last, t->lru.epoch);

	vgpu_evict_lru_advance(&t->lru);
	KUNIT_EXPECT_EQ(test, vgpu_evict_lru_sample_counter(&t->lru, c, 7), 7u);
	KUNIT_EXPECT_EQ(test, c->accesses, 137ull);

	/* A new residency starts a new snapshot. */
	vgpu_evict_lru_remove(&t->lru, c);
	vgpu_evict_lru_insert(&t->lru, c);
	KUNIT_EXPECT_EQ(test, c->ctr_snap, 0u);
}

/*
 * A cache of CAP chunks in front of a reference string: a hot set touched
 * once per round and a scan, between two hot passes, of more than the room
 * the hot set leaves.  Every miss starts an epoch (a fault batch); hits
 * are touched in the current epoch (the sampler's view at the next batch).
 */
#define CAP	16
#define HOT	8
#define SCAN	12

static unsigned int simulate(struct kunit *test, struct evict_test *t,
			     const struct vgpu_evict_policy_ops *ops,
			     unsigned int *refs_out)
{
	unsigned int hits = 0, refs = 0, round, i, next_scan = 0;

	vgpu_evict_lru_init(&t->lru, &t->lock, ops, VGPU_EVICT_CRP_DEFAULT);
	for (i = 0; i < NCHUNKS; i++)
		vgpu_evict_unit_init(&t->c[i]);

	for (round = 0; round < 40; round++) {
		unsigned int ref[HOT + SCAN], n = 0;

		for (i = 0; i < HOT; i++)
			ref[n++] = i;
		for (i = 0; i < SCAN; i++)
			ref[n++] = HOT + (next_scan++ % (NCHUNKS - HOT));

		for (i = 0; i < n; i++) {
			struct vgpu_evict_unit *c = &t->c[ref[i]];

			refs++;
			if (c->resident) {
				hits++;
				vgpu_evict_lru_touch(&t->lru, c);
				continue;
			}
			vgpu_evict_lru_advance(&t->lru);
			if (t->lru.nr == CAP)
				vgpu_evict_lru_remove(&t->lru,
						      vgpu_evict_lru_coldest(&t->lru));
			vgpu_evict_lru_insert(&t->lru, c);
			vgpu_evict_lru_touch(&t->lru, c);
		}
		KUNIT_ASSERT_LE(test, t->lru.nr, (unsigned long)CAP);
	}
	*refs_out = refs;
	return hits;
}

EVICT_CASE(vgpu_evict_scan_resistance)
{
	unsigned int refs, lru_hits, lru2_hits;

	lru_hits = simulate(test, t, &vgpu_evict_lru_ops, &refs);
	lru2_hits = simulate(test, t, &vgpu_evict_lru2_ops, &refs);
	kunit_info(test, "hit ratio: lru %u%%, lru2 %u%% of %u references\n",
		   lru_hits * 100 / refs, lru2_hits * 100 / refs, refs);
	/* LRU loses the hot set to every scan; LRU-2 keeps it. */
	KUNIT_EXPECT_GE(test, lru2_hits * 100 / refs, lru_hits * 100 / refs + 5);
	KUNIT_EXPECT_GE(test, lru2_hits, (40u - 2) * HOT);
}

static struct kunit_case vgpu_evict_policy_cases[] = {
	KUNIT_CASE(vgpu_evict_policy_lookup_by_name),
	KUNIT_CASE(vgpu_evict_policy_each_is_an_ordering),
	KUNIT_CASE(vgpu_evict_lru_order),
	KUNIT_CASE(vgpu_evict_touch_epochs),
	KUNIT_CASE(vgpu_evict_correlated),
	KUNIT_CASE(vgpu_evict_lru2_order),
	KUNIT_CASE(vgpu_evict_switch),
	KUNIT_CASE(vgpu_evict_counter_sample),
	KUNIT_CASE(vgpu_evict_scan_resistance),
	{ }
};

static struct kunit_suite vgpu_evict_policy_suite = {
	.name = "vgpu_evict_policy",
	.init = evict_test_init,
	.exit = evict_test_exit,
	.test_cases = vgpu_evict_policy_cases,
};

kunit_test_suite(vgpu_evict_policy_suite);
