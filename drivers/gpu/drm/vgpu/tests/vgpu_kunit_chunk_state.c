// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

/*
 * KUnit tests for the chunk state machine: every transition of the table
 * in "The chunk state machine", and, over every state, event and input,
 * the rules that keep writes from being lost.
 */
#include "../vgpu_chunk_state.c"

#include <kunit/test.h>

#define S(x)	VGPU_CHUNK_##x
#define EV(x)	VGPU_CHUNK_EV_##x
#define IN(x)	VGPU_CHUNK_IN_##x
#define DO(x)	VGPU_CHUNK_DO_##x

#define MIGRATE	(DO(ALLOC) | DO(ZAP_CPU) | DO(UNMAP_GPU) | DO(COPY_IN) | DO(MAP_VRAM))
#define HOMEWARD (DO(UNMAP_GPU) | DO(COPY_BACK) | DO(FREE))
#define HANDED	(DO(UNMAP_GPU) | DO(COPY_BACK) | DO(HAND_OVER))

struct transition {
	enum vgpu_chunk_state state;
	enum vgpu_chunk_event ev;
	u32 in;
	int ret;
	enum vgpu_chunk_state next;
	u32 steps;
};

/* The table of "The chunk state machine", row by row. */
static const struct transition table[] = {
	/* home */
	{ S(HOME), EV(GPU_READ), 0, 0, S(COPYING), MIGRATE },
	{ S(HOME), EV(GPU_WRITE), 0, 0, S(COPYING), MIGRATE },
	{ S(HOME), EV(PREFETCH), 0, 0, S(COPYING), MIGRATE },
	{ S(HOME), EV(GPU_READ), IN(READ_MOSTLY), 0, S(COPYING_DUP), MIGRATE },
	{ S(HOME), EV(PREFETCH), IN(READ_MOSTLY), 0, S(COPYING_DUP), MIGRATE },
	{ S(HOME), EV(GPU_WRITE), IN(READ_MOSTLY), 0, S(COPYING), MIGRATE },
	{ S(HOME), EV(GPU_READ), IN(REMOTE), 0, S(HOME), DO(MAP_SYSTEM) },
	{ S(HOME), EV(GPU_WRITE), IN(REMOTE) | IN(READ_MOSTLY), 0, S(HOME),
	  DO(MAP_SYSTEM) },
	{ S(HOME), EV(PREFETCH), IN(REMOTE), 0, S(HOME), 0 },
	{ S(HOME), EV(EVICT), 0, 0, S(HOME), 0 },
	{ S(HOME), EV(CPU_READ), 0, 0, S(HOME), 0 },
	{ S(HOME), EV(CPU_WRITE), IN(ACCESSED_BY), 0, S(HOME), 0 },
	{ S(HOME), EV(UNADVISE_RM), 0, 0, S(HOME), 0 },
	{ S(HOME), EV(COPY_DONE), 0, -EINVAL, S(HOME), 0 },
	{ S(HOME), EV(COPY_FAILED), 0, -EINVAL, S(HOME), 0 },
	/* copying */
	{ S(COPYING), EV(COPY_DONE), 0, 0, S(VRAM), 0 },
	{ S(COPYING_DUP), EV(COPY_DONE), 0, 0, S(DUP), 0 },
	{ S(COPYING), EV(COPY_FAILED), 0, 0, S(HOME), DO(FREE) },
	{ S(COPYING_DUP), EV(COPY_FAILED), 0, 0, S(HOME), DO(FREE) },
	{ S(COPYING), EV(GPU_READ), 0, -EBUSY, S(COPYING), 0 },
	{ S(COPYING), EV(EVICT), 0, -EBUSY, S(COPYING), 0 },
	{ S(COPYING_DUP), EV(CPU_WRITE), 0, -EBUSY, S(COPYING_DUP), 0 },
	/* in VRAM */
	{ S(VRAM), EV(GPU_READ), 0, 0, S(VRAM), DO(MAP_VRAM) },
	{ S(VRAM), EV(GPU_WRITE), IN(REMOTE), 0, S(VRAM), DO(MAP_VRAM) },
	{ S(VRAM), EV(PREFETCH), 0, 0, S(VRAM), DO(MAP_VRAM) },
	{ S(VRAM), EV(EVICT), 0, 0, S(HOME), HOMEWARD },
	{ S(VRAM), EV(EVICT), IN(ACCESSED_BY), 0, S(HOME),
	  HOMEWARD | DO(MAP_REMOTE_ALL) },
	{ S(VRAM), EV(CPU_READ), 0, 0, S(HOME), HOMEWARD },
	{ S(VRAM), EV(CPU_READ), IN(READ_MOSTLY), 0, S(DUP),
	  DO(UNMAP_GPU) | DO(COPY_BACK) | DO(CPU_RO) },
	{ S(VRAM), EV(CPU_READ), IN(READ_MOSTLY) | IN(ACCESSED_BY), 0, S(DUP),
	  DO(UNMAP_GPU) | DO(COPY_BACK) | DO(CPU_RO) },
	{ S(VRAM), EV(CPU_WRITE), 0, 0, S(HOME), HOMEWARD },
	{ S(VRAM), EV(UNADVISE_RM), 0, 0, S(VRAM), 0 },
	{ S(VRAM), EV(COPY_DONE), 0, -EINVAL, S(VRAM), 0 },
	/* duplicated */
	{ S(DUP), EV(GPU_READ), IN(READ_MOSTLY), 0, S(DUP), DO(MAP_VRAM) },
	{ S(DUP), EV(PREFETCH), IN(READ_MOSTLY), 0, S(DUP), DO(MAP_VRAM) },
	{ S(DUP), EV(GPU_WRITE), IN(READ_MOSTLY), 0, S(VRAM),
	  DO(ZAP_CPU) | DO(MAP_VRAM) },
	{ S(DUP), EV(UNADVISE_RM), 0, 0, S(VRAM), DO(ZAP_CPU) },
	{ S(DUP), EV(CPU_READ), IN(READ_MOSTLY), 0, S(DUP), DO(CPU_RO) },
	{ S(DUP), EV(CPU_WRITE), IN(READ_MOSTLY), 0, S(HOME), HOMEWARD },
	{ S(DUP), EV(EVICT), IN(READ_MOSTLY), 0, S(HOME), HOMEWARD },
	{ S(DUP), EV(EVICT), IN(READ_MOSTLY) | IN(ACCESSED_BY), 0, S(HOME),
	  HOMEWARD | DO(MAP_REMOTE_ALL) },
	{ S(DUP), EV(COPY_FAILED), 0, -EINVAL, S(DUP), 0 },
	/* evicted for a batch: the copy back queued, the block handed over */
	{ S(VRAM), EV(EVICT), IN(BATCH), 0, S(COPYING_HOME), HANDED },
	{ S(DUP), EV(EVICT), IN(BATCH) | IN(READ_MOSTLY), 0, S(COPYING_HOME), HANDED },
	{ S(VRAM), EV(EVICT), IN(BATCH) | IN(ACCESSED_BY), 0, S(HOME),
	  HOMEWARD | DO(MAP_REMOTE_ALL) },
	{ S(VRAM), EV(CPU_WRITE), IN(BATCH), 0, S(HOME), HOMEWARD },
	{ S(HOME), EV(EVICT), IN(BATCH), 0, S(HOME), 0 },
	{ S(COPYING_HOME), EV(COPY_DONE), 0, 0, S(HOME), 0 },
	{ S(COPYING_HOME), EV(COPY_FAILED), 0, 0, S(HOME), 0 },
	{ S(COPYING_HOME), EV(GPU_READ), 0, -EBUSY, S(COPYING_HOME), 0 },
	{ S(COPYING_HOME), EV(CPU_WRITE), 0, -EBUSY, S(COPYING_HOME), 0 },
	{ S(COPYING_HOME), EV(EVICT), IN(BATCH), -EBUSY, S(COPYING_HOME), 0 },
};

static void vgpu_chunk_state_table(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(table); i++) {
		const struct transition *t = &table[i];
		struct vgpu_chunk_plan p;

		KUNIT_EXPECT_EQ_MSG(test, vgpu_chunk_plan(t->state, t->ev, t->in, &p),
				    t->ret, "row %u", i);
		KUNIT_EXPECT_EQ_MSG(test, p.next, t->next, "row %u", i);
		KUNIT_EXPECT_EQ_MSG(test, p.steps, t->steps, "row %u", i);
	}
}

/* Every state, event and input combination, and the out-of-range ones. */
#define for_each_case(s, e, in)						\
	for (s = 0; s < VGPU_CHUNK_NR_STATES; s++)			\
		for (e = 0; e < VGPU_CHUNK_NR_EVENTS; e++)		\
			for (in = 0; in < 16; in++)

static bool copying(enum vgpu_chunk_state s)
{
	return s == S(COPYING) || s == S(COPYING_DUP) || s == S(COPYING_HOME);
}

/*
 * No transition copies data that a mapping may still write, or maps a
 * copy that does not hold the data yet, or loses a dirty VRAM copy.
 */
static void vgpu_chunk_state_no_lost_write(struct kunit *test)
{
	unsigned int s, e, in;

	for_each_case(s, e, in) {
		struct vgpu_chunk_plan p;
		u32 d;

		if (vgpu_chunk_plan(s, e, in, &p))
			continue;
		d = p.steps;
		/* A copy in: its source can be written by nobody. */
		if (d & DO(COPY_IN))
			KUNIT_EXPECT_EQ_MSG(test, d & (DO(ALLOC) | DO(ZAP_CPU) | DO(UNMAP_GPU)),
					    DO(ALLOC) | DO(ZAP_CPU) | DO(UNMAP_GPU),
					    "%s ev %u in %#x", vgpu_chunk_state_name(s), e, in);
		/* Giving up a copy the GPU may reach, or may have written. */
		if ((d & (DO(FREE) | DO(HAND_OVER))) && !copying(s)) {
			KUNIT_EXPECT_TRUE(test, d & DO(UNMAP_GPU));
			KUNIT_EXPECT_TRUE(test, d & DO(COPY_BACK));
		}
		/* A VRAM copy goes only in a transition home. */
		if (d & DO(FREE))
			KUNIT_EXPECT_EQ(test, p.next, S(HOME));
		/* Handed over only to a batch, with the copy back in it. */
		if (d & DO(HAND_OVER)) {
			KUNIT_EXPECT_EQ(test, p.next, S(COPYING_HOME));
			KUNIT_EXPECT_TRUE(test, in & IN(BATCH));
			KUNIT_EXPECT_EQ(test, e, EV(EVICT));
			KUNIT_EXPECT_FALSE(test, d & DO(FREE));
			KUNIT_EXPECT_FALSE(test, d & DO(MAP_REMOTE_ALL));
		}
		/* Remote mappings everywhere need the data home first. */
		if (d & DO(MAP_REMOTE_ALL))
			KUNIT_EXPECT_TRUE(test, d & DO(FREE));
		/* Leaving VRAM always gives the block up (nothing leaks). */
		if ((s == S(VRAM) || s == S(DUP)) &&
		    (p.next == S(HOME) || p.next == S(COPYING_HOME)))
			KUNIT_EXPECT_TRUE(test, d & (DO(FREE) | DO(HAND_OVER)));
		/* A copy in maps nothing but its VRAM copy, once copied. */
		if (d & DO(COPY_IN))
			KUNIT_EXPECT_EQ(test, d & ~(DO(COPY_IN) * 2 - 1) & ~DO(MAP_VRAM), 0u);
		/* Collapsing a duplicate: the CPU's copy goes stale. */
		if (s == S(DUP) && p.next == S(VRAM))
			KUNIT_EXPECT_TRUE(test, d & DO(ZAP_CPU));
		/* Only READ_MOSTLY duplicates, and only for a read. */
		if ((p.next == S(DUP) || p.next == S(COPYING_DUP)) && s != p.next &&
		    !copying(s)) {
			KUNIT_EXPECT_TRUE(test, in & IN(READ_MOSTLY));
			KUNIT_EXPECT_TRUE(test, e == EV(GPU_READ) || e == EV(PREFETCH) ||
					  e == EV(CPU_READ));
		}
		/* Duplicating a VRAM copy: no GPU write during the copy back. */
		if (s == S(VRAM) && p.next == S(DUP))
			KUNIT_EXPECT_EQ(test, d & (DO(UNMAP_GPU) | DO(COPY_BACK)),
					DO(UNMAP_GPU) | DO(COPY_BACK));
		/* The system pages are mapped only while they hold the data. */
		if (d & DO(MAP_SYSTEM))
			KUNIT_EXPECT_EQ(test, p.next, S(HOME));
		/* The CPU maps read-only only a duplicate. */
		if (d & DO(CPU_RO))
			KUNIT_EXPECT_EQ(test, p.next, S(DUP));
		/* A write never leaves the chunk duplicated. */
		if (e == EV(GPU_WRITE) || e == EV(CPU_WRITE))
			KUNIT_EXPECT_TRUE(test, p.next != S(DUP) &&
					  p.next != S(COPYING_DUP));
		/* REMOTE keeps a chunk at home out of VRAM. */
		if (s == S(HOME) && (in & IN(REMOTE)))
			KUNIT_EXPECT_FALSE(test, d & DO(ALLOC));
	}
}

/* While a copy runs only its end is an event; the rest waits. */
static void vgpu_chunk_state_copying_waits(struct kunit *test)
{
	unsigned int s, e, in;

	for_each_case(s, e, in) {
		struct vgpu_chunk_plan p;
		int ret = vgpu_chunk_plan(s, e, in, &p);
		bool end = e == EV(COPY_DONE) || e == EV(COPY_FAILED);

		if (copying(s) && !end) {
			KUNIT_EXPECT_EQ(test, ret, -EBUSY);
		} else if (!copying(s) && end) {
			KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		} else {
			KUNIT_EXPECT_EQ(test, ret, 0);
			continue;
		}
		/* A refused event changes nothing. */
		KUNIT_EXPECT_EQ(test, p.next, s);
		KUNIT_EXPECT_EQ(test, p.steps, 0u);
	}
}

static void vgpu_chunk_state_bad_input(struct kunit *test)
{
	struct vgpu_chunk_plan p;

	KUNIT_EXPECT_EQ(test, vgpu_chunk_plan(S(HOME), VGPU_CHUNK_NR_EVENTS, 0, &p),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_chunk_plan(S(VRAM), (enum vgpu_chunk_event)-1, 0, &p),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_chunk_plan(VGPU_CHUNK_NR_STATES, EV(GPU_READ), 0, &p),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, p.steps, 0u);
	KUNIT_EXPECT_STREQ(test, vgpu_chunk_state_name(S(COPYING_DUP)), "copying_dup");
	KUNIT_EXPECT_STREQ(test, vgpu_chunk_state_name(S(COPYING_HOME)), "copying_home");
	KUNIT_EXPECT_STREQ(test, vgpu_chunk_state_name(VGPU_CHUNK_NR_STATES), "?");
}

/* A copy waited for at once ends where the copy's state leads. */
static void vgpu_chunk_state_settles(struct kunit *test)
{
	unsigned int s;

	KUNIT_EXPECT_EQ(test, vgpu_chunk_state_settled(S(COPYING)), S(VRAM));
	KUNIT_EXPECT_EQ(test, vgpu_chunk_state_settled(S(COPYING_DUP)), S(DUP));
	KUNIT_EXPECT_EQ(test, vgpu_chunk_state_settled(S(COPYING_HOME)), S(HOME));
	for (s = 0; s < VGPU_CHUNK_NR_STATES; s++) {
		struct vgpu_chunk_plan p;

		if (!copying(s)) {
			KUNIT_EXPECT_EQ(test, vgpu_chunk_state_settled(s), s);
			continue;
		}
		/* COPY_DONE leads where settling says. */
		KUNIT_EXPECT_EQ(test, vgpu_chunk_plan(s, EV(COPY_DONE), 0, &p), 0);
		KUNIT_EXPECT_EQ(test, p.next, vgpu_chunk_state_settled(s));
	}
}

static struct kunit_case vgpu_chunk_state_cases[] = {
	KUNIT_CASE(vgpu_chunk_state_table),
	KUNIT_CASE(vgpu_chunk_state_no_lost_write),
	KUNIT_CASE(vgpu_chunk_state_copying_waits),
	KUNIT_CASE(vgpu_chunk_state_settles),
	KUNIT_CASE(vgpu_chunk_state_bad_input),
	{ }
};

static struct kunit_suite vgpu_chunk_state_suite = {
	.name = "vgpu_chunk_state",
	.test_cases = vgpu_chunk_state_cases,
};

kunit_test_suite(vgpu_chunk_state_suite);
