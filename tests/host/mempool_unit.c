// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host unit tests of libvgpu's caching allocator logic (tools/libvgpu/
 * pool.c) over fake segments and fences: size classes and alignment,
 * best fit and coalescing, fence-ordered reuse, trim, memory pressure,
 * statistics, hostile input, and a random run checked against a shadow.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "libvgpu.h"

#define MiB (1ull << 20)
#define KiB (1ull << 10)
#define NR_SYNC 16

/* A fake fence: the test says when it signals. */
struct ffence {
	int signalled;
	int refs;
};

/* The fake device under the pool. */
struct fake {
	uint64_t capacity;		/* seg_alloc beyond: -ENOSPC */
	uint64_t reserved;
	unsigned int segs, seg_allocs, seg_frees, fence_gets, blocking_waits;
	int fail_fence_get;
	int fail_wait;			/* blocking waits fail with -EIO */
	struct ffence *sync[NR_SYNC];	/* syncobj n holds this fence */
	int live_fences;
};

struct fseg {
	uint64_t size;
	void *mem;
};

static int f_seg_alloc(void *priv, uint64_t va, uint64_t size, void **cookie)
{
	struct fake *f = priv;
	struct fseg *s;

	if (f->capacity && f->reserved + size > f->capacity)
		return -ENOSPC;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->size = size;
	f->reserved += size;
	f->segs++;
	f->seg_allocs++;
	*cookie = s;
	return 0;
}

static void f_seg_free(void *priv, uint64_t va, uint64_t size, void *cookie)
{
	struct fake *f = priv;
	struct fseg *s = cookie;

	f->reserved -= s->size;
	f->segs--;
	f->seg_frees++;
	free(s->mem);
	free(s);
}

static int f_seg_map(void *priv, void *cookie, uint64_t size, void **cpu)
{
	struct fseg *s = cookie;

	if (!s->mem)
		s->mem = calloc(1, size);
	*cpu = s->mem;
	return s->mem ? 0 : -ENOMEM;
}

static int f_fence_get(void *priv, uint32_t syncobj, void **fence)
{
	struct fake *f = priv;

	if (f->fail_fence_get)
		return -ENOENT;
	if (syncobj >= NR_SYNC || !f->sync[syncobj])
		return -EINVAL;
	f->fence_gets++;
	f->sync[syncobj]->refs++;
	*fence = f->sync[syncobj];
	return 0;
}

static void f_fence_put(void *priv, void *fence)
{
	struct fake *f = priv;
	struct ffence *ff = fence;

	if (!--ff->refs) {
		free(ff);
		f->live_fences--;
	}
}

static int f_fence_wait(void *priv, void *fence, int64_t timeout_ns)
{
	struct fake *f = priv;
	struct ffence *ff = fence;

	if (!timeout_ns)
		return ff->signalled ? 0 : -ETIME;
	/* A blocking wait: the "GPU" finishes the job. */
	f->blocking_waits++;
	if (f->fail_wait)
		return -EIO;
	ff->signalled = 1;
	return 0;
}

/* Syncobj @n gets a new fence, pending or signalled. */
static void set_fence(struct fake *f, unsigned int n, int signalled)
{
	struct ffence *ff = calloc(1, sizeof(*ff));

	if (f->sync[n])
		f_fence_put(f, f->sync[n]);
	ff->signalled = signalled;
	ff->refs = 1;
	f->live_fences++;
	f->sync[n] = ff;
}

static void drop_fences(struct fake *f)
{
	unsigned int n;

	for (n = 0; n < NR_SYNC; n++)
		if (f->sync[n]) {
			f_fence_put(f, f->sync[n]);
			f->sync[n] = NULL;
		}
}

static struct vgpu_mempool_ops fake_ops(struct fake *f)
{
	return (struct vgpu_mempool_ops){
		.seg_alloc = f_seg_alloc, .seg_free = f_seg_free,
		.seg_map = f_seg_map, .fence_get = f_fence_get,
		.fence_put = f_fence_put, .fence_wait = f_fence_wait,
		.priv = f,
	};
}

FIXTURE(mempool) {
	struct fake f;
	struct vgpu_mempool *p;
	struct vgpu_mempool_config cfg;
};

FIXTURE_SETUP(mempool)
{
	struct vgpu_mempool_ops ops = fake_ops(&self->f);

	memset(&self->f, 0, sizeof(self->f));
	self->cfg = (struct vgpu_mempool_config){
		.segment_size = 8 * MiB, .va_start = 1ull << 40,
		.va_size = 1ull << 36,
	};
	ASSERT_EQ(0, vgpu_mempool_create_ops(&ops, &self->cfg, &self->p));
}

FIXTURE_TEARDOWN(mempool)
{
	vgpu_mempool_destroy(self->p);
	/* Everything went back, every fence reference was dropped. */
	EXPECT_EQ(0, self->f.segs);
	EXPECT_EQ(0, self->f.reserved);
	drop_fences(&self->f);
	EXPECT_EQ(0, self->f.live_fences);
}

static uint64_t bsize(struct vgpu_mempool *p, uint64_t va)
{
	uint64_t s = 0;

	return vgpu_mempool_block_size(p, va, &s) ? 0 : s;
}

TEST_F(mempool, size_classes_and_alignment)
{
	static const struct { uint64_t size, align, block; } t[] = {
		{ 1, 0, 256 }, { 255, 0, 256 }, { 256, 0, 256 },
		{ 257, 0, 512 }, { 4095, 0, 4096 }, { 4097, 0, 8192 },
		{ 64 * KiB, 0, 64 * KiB }, { 100, 4096, 4096 },
		{ 100, 64 * KiB, 64 * KiB }, { 64 * KiB + 1, 0, 68 * KiB },
		{ 100, 128 * KiB, 4096 }, { 3 * MiB, 2 * MiB, 3 * MiB },
	};
	struct vgpu_mempool_stats st;
	uint64_t va[12], req = 0, alloc = 0;
	unsigned int i;

	for (i = 0; i < 12; i++) {
		uint64_t align = t[i].align ? t[i].align : 256;

		ASSERT_EQ(0, vgpu_mempool_alloc(self->p, t[i].size, t[i].align, &va[i]));
		EXPECT_EQ(t[i].block, bsize(self->p, va[i])) TH_LOG("case %u", i);
		EXPECT_EQ(0, va[i] % align) TH_LOG("case %u va %#llx", i,
						    (unsigned long long)va[i]);
		EXPECT_GE(va[i], self->cfg.va_start);
		req += t[i].size;
		alloc += t[i].block;
	}
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(req, st.requested);
	EXPECT_EQ(alloc, st.allocated);
	EXPECT_EQ(12, st.allocs);
	EXPECT_EQ(st.reserved, st.allocated + st.pending + st.cached);
	/* Small blocks share slabs: one segment held everything. */
	EXPECT_EQ(1, self->f.seg_allocs);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(0, vgpu_mempool_free(self->p, va[i], 0));
}

TEST_F(mempool, best_fit_and_coalescing)
{
	struct vgpu_mempool_stats st;
	uint64_t a, b, c, d, e, g;

	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1 * MiB, 0, &a));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 2 * MiB, 0, &b));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1 * MiB, 0, &c));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 3 * MiB, 0, &d));
	/* One 8 MiB segment, in address order; 1 MiB left at the end. */
	EXPECT_EQ(a + 1 * MiB, b);
	EXPECT_EQ(b + 2 * MiB, c);
	EXPECT_EQ(c + 1 * MiB, d);
	ASSERT_EQ(0, vgpu_mempool_free(self->p, b, 0));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, d, 0));
	/* Holes: b (2 MiB) and d + the tail (4 MiB, coalesced). */
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(6 * MiB, 8 * MiB - st.allocated);
	EXPECT_EQ(4 * MiB, st.largest_free);
	EXPECT_EQ(1.0 - 4.0 / 6.0, st.fragmentation);
	/* 2 MiB fits b exactly: best fit takes it, not the larger hole. */
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 2 * MiB, 0, &e));
	EXPECT_EQ(b, e);
	/* 1.5 MiB fits only the other hole. */
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1536 * KiB, 0, &g));
	EXPECT_EQ(d, g);
	EXPECT_EQ(1, self->f.seg_allocs);
	/* Freeing everything coalesces into one run: no fragmentation. */
	EXPECT_EQ(0, vgpu_mempool_free(self->p, a, 0));
	EXPECT_EQ(0, vgpu_mempool_free(self->p, c, 0));
	EXPECT_EQ(0, vgpu_mempool_free(self->p, g, 0));
	EXPECT_EQ(0, vgpu_mempool_free(self->p, e, 0));
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(0, st.allocated);
	EXPECT_EQ(8 * MiB, st.largest_free);
	EXPECT_EQ(0.0, st.fragmentation);
	/* So an 8 MiB block fits without a new segment. */
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &a));
	EXPECT_EQ(1, self->f.seg_allocs);
	EXPECT_EQ(0, vgpu_mempool_free(self->p, a, 0));
}

TEST_F(mempool, no_reuse_before_the_fence)
{
	struct vgpu_mempool_stats st;
	uint64_t s, l, s2, l2, s3, l3, released = 1;

	set_fence(&self->f, 1, 0);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 4096, 0, &s));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 6 * MiB, 0, &l));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, s, 1));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, l, 1));
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(4096 + 6 * MiB, st.pending);
	EXPECT_EQ(0, st.allocated);
	/* The syncobj moves on to a signalled fence: the one taken counts. */
	set_fence(&self->f, 1, 1);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 4096, 0, &s2));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 6 * MiB, 0, &l2));
	EXPECT_NE(s, s2);
	EXPECT_NE(l, l2);
	/* Neither new block overlaps a pending one. */
	EXPECT_TRUE(s2 + 4096 <= s || s2 >= s + 4096);
	EXPECT_TRUE(l2 + 6 * MiB <= l || l2 >= l + 6 * MiB);
	EXPECT_EQ(0, self->f.blocking_waits);
	EXPECT_EQ(2, self->f.seg_allocs);
	/* Stats: one 4 KiB slot and 6 MiB are still waiting. */
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(4096 + 6 * MiB, st.pending);
	/* Trim must leave the segment with the pending blocks alone. */
	EXPECT_EQ(0, vgpu_mempool_free(self->p, s2, 0));
	EXPECT_EQ(0, vgpu_mempool_free(self->p, l2, 0));
	EXPECT_EQ(0, vgpu_mempool_trim(self->p, &released));
	EXPECT_EQ(8 * MiB, released);
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(4096 + 6 * MiB, st.pending);
	EXPECT_EQ(8 * MiB, st.reserved);
	EXPECT_EQ(0, self->f.blocking_waits);
	/* Pool limited to one segment now: the next 6 MiB must wait. */
	self->f.capacity = self->f.reserved;
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 6 * MiB, 0, &l3));
	EXPECT_EQ(1, self->f.blocking_waits);
	EXPECT_EQ(l, l3);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 4096, 0, &s3));
	EXPECT_EQ(s, s3);
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(0, st.pending);
	EXPECT_EQ(1, st.fence_waits);
	EXPECT_EQ(0, vgpu_mempool_free(self->p, s3, 0));
	EXPECT_EQ(0, vgpu_mempool_free(self->p, l3, 0));
}

TEST_F(mempool, reuse_after_the_fence_signalled)
{
	struct vgpu_mempool_fence *fence;
	uint64_t va[8], again;
	unsigned int i;

	set_fence(&self->f, 2, 0);
	ASSERT_EQ(0, vgpu_mempool_fence(self->p, 2, &fence));
	/* Fill the segment, so that nothing else is free. */
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1 * MiB, 0, &va[i]));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vgpu_mempool_free_fenced(self->p, va[i], fence));
	vgpu_mempool_fence_put(self->p, fence);
	/* One fence taken for eight frees. */
	EXPECT_EQ(1, self->f.fence_gets);
	self->f.sync[2]->signalled = 1;
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1 * MiB, 0, &again));
	EXPECT_EQ(va[0], again);
	EXPECT_EQ(1, self->f.seg_allocs);
	EXPECT_EQ(0, vgpu_mempool_free(self->p, again, 0));
}

TEST_F(mempool, trim_gives_segments_back)
{
	struct vgpu_mempool_stats st;
	uint64_t va[40], released;
	unsigned int i;

	for (i = 0; i < 40; i++)
		ASSERT_EQ(0, vgpu_mempool_alloc(self->p, (i % 2 ? 3 : 1) * MiB + i * 4096,
					     0, &va[i]));
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(self->f.reserved, st.reserved);
	EXPECT_EQ(st.reserved, st.peak_reserved);
	/* Keep one block: its segment stays. */
	for (i = 1; i < 40; i++)
		ASSERT_EQ(0, vgpu_mempool_free(self->p, va[i], 0));
	ASSERT_EQ(0, vgpu_mempool_trim(self->p, &released));
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(8 * MiB, st.reserved);
	EXPECT_EQ(8 * MiB, self->f.reserved);
	EXPECT_EQ(st.peak_reserved - 8 * MiB, released);
	EXPECT_EQ(1, st.segments);
	EXPECT_EQ(st.segment_allocs - 1, st.segment_frees);
	ASSERT_EQ(0, vgpu_mempool_free(self->p, va[0], 0));
	ASSERT_EQ(0, vgpu_mempool_trim(self->p, &released));
	EXPECT_EQ(8 * MiB, released);
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(0, st.reserved);
	EXPECT_EQ(0, self->f.segs);
	/* Empty slabs go back too. */
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 300, 0, &va[0]));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, va[0], 0));
	ASSERT_EQ(0, vgpu_mempool_trim(self->p, &released));
	EXPECT_EQ(8 * MiB, released);
	EXPECT_EQ(0, self->f.segs);
}

TEST_F(mempool, pressure_trims_and_retries)
{
	struct vgpu_mempool_ops ops = fake_ops(&self->f);
	struct vgpu_mempool_config cfg = self->cfg;
	struct vgpu_mempool_stats st;
	struct vgpu_mempool *q;
	uint64_t a, b, c;

	self->f.capacity = 16 * MiB;
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &a));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &b));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, a, 0));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, b, 0));
	/* 16 MiB free in two segments; 12 MiB fits neither: trim, retry. */
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 12 * MiB, 0, &c));
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(1, st.pressure_trims);
	EXPECT_EQ(12 * MiB, st.reserved);
	EXPECT_EQ(1, st.segments);
	/* Truly full: the segment allocator's error comes back. */
	EXPECT_EQ(-ENOSPC, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &a));
	EXPECT_EQ(0, vgpu_mempool_free(self->p, c, 0));
	/* max_reserved: a pool bounded below what the device has. */
	self->f.capacity = 0;
	cfg.max_reserved = 8 * MiB;
	ASSERT_EQ(0, vgpu_mempool_create_ops(&ops, &cfg, &q));
	ASSERT_EQ(0, vgpu_mempool_alloc(q, 8 * MiB, 0, &a));
	EXPECT_EQ(-ENOMEM, vgpu_mempool_alloc(q, 4096, 0, &b));
	EXPECT_EQ(0, vgpu_mempool_free(q, a, 0));
	EXPECT_EQ(0, vgpu_mempool_alloc(q, 4096, 0, &b));
	vgpu_mempool_destroy(q);
}

TEST_F(mempool, hostile_input)
{
	struct vgpu_mempool_ops ops = fake_ops(&self->f);
	struct vgpu_mempool_config cfg;
	struct vgpu_mempool_fence *fence;
	struct vgpu_mempool *q;
	uint64_t va, sz;
	void *cpu;

	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->p, 0, 0, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->p, 4096, 3, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->p, 4096, 4 * MiB, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->p, 4096, 1ull << 63, &va));
	EXPECT_EQ(-E2BIG, vgpu_mempool_alloc(self->p, UINT64_MAX, 0, &va));
	EXPECT_EQ(-E2BIG, vgpu_mempool_alloc(self->p, (1ull << 36) + 1, 0, &va));
	EXPECT_EQ(0, self->f.seg_allocs);

	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1 * MiB, 0, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->p, 0, 0));
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->p, va + 4096, 0));	/* interior */
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->p, 0xdeadbeef000ull, 0)); /* foreign */
	EXPECT_EQ(-EINVAL, vgpu_mempool_cpu(self->p, va + 4096, &cpu));
	EXPECT_EQ(-EINVAL, vgpu_mempool_block_size(self->p, va + 1, &sz));
	/* A failing fence leaves the block allocated. */
	self->f.fail_fence_get = 1;
	EXPECT_EQ(-ENOENT, vgpu_mempool_free(self->p, va, 3));
	EXPECT_EQ(1 * MiB, bsize(self->p, va));
	self->f.fail_fence_get = 0;
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->p, va, 5));	/* no fence in it */
	EXPECT_EQ(0, vgpu_mempool_free(self->p, va, 0));
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->p, va, 0));	/* double free */
	EXPECT_EQ(-EINVAL, vgpu_mempool_free_fenced(self->p, va, NULL));
	EXPECT_EQ(-EINVAL, vgpu_mempool_fence(self->p, 0, &fence));

	/* Pending blocks cannot be freed again either. */
	set_fence(&self->f, 4, 0);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 4096, 0, &va));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, va, 4));
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->p, va, 0));

	/* Bad configurations. */
	cfg = self->cfg;
	cfg.segment_size = 3 * MiB;
	EXPECT_EQ(-EINVAL, vgpu_mempool_create_ops(&ops, &cfg, &q));
	cfg = self->cfg;
	cfg.va_start += 4096;
	EXPECT_EQ(-EINVAL, vgpu_mempool_create_ops(&ops, &cfg, &q));
	cfg = self->cfg;
	cfg.va_start = ~(2 * MiB - 1);	/* the range wraps */
	cfg.va_size = 1ull << 40;
	EXPECT_EQ(-EINVAL, vgpu_mempool_create_ops(&ops, &cfg, &q));
	cfg = self->cfg;
	cfg.pad = 1;
	EXPECT_EQ(-EINVAL, vgpu_mempool_create_ops(&ops, &cfg, &q));
	ops.fence_wait = NULL;
	EXPECT_EQ(-EINVAL, vgpu_mempool_create_ops(&ops, &self->cfg, &q));
	EXPECT_EQ(-EINVAL, vgpu_mempool_create_ops(NULL, &self->cfg, &q));
}

TEST_F(mempool, a_failed_wait_hands_nothing_out)
{
	struct vgpu_mempool_stats st;
	uint64_t a, b;

	self->f.capacity = 8 * MiB;
	set_fence(&self->f, 7, 0);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &a));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, a, 7));
	self->f.fail_wait = 1;
	EXPECT_EQ(-EIO, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &b));
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(8 * MiB, st.pending);
	EXPECT_EQ(1, st.fence_waits);
	self->f.fail_wait = 0;
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 8 * MiB, 0, &b));
	EXPECT_EQ(a, b);
	EXPECT_EQ(0, vgpu_mempool_free(self->p, b, 0));
}

TEST_F(mempool, destroy_waits_for_pending_fences)
{
	uint64_t va;

	set_fence(&self->f, 6, 0);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 2 * MiB, 0, &va));
	ASSERT_EQ(0, vgpu_mempool_free(self->p, va, 6));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->p, 1000, 0, &va));	/* left live */
	vgpu_mempool_destroy(self->p);
	self->p = NULL;
	EXPECT_EQ(1, self->f.blocking_waits);
	EXPECT_EQ(0, self->f.segs);
}

/* ---------------------------------------------------------- random run */

struct live {
	uint64_t va, size;
	uint32_t tag;
};

struct pend {
	uint64_t va, size;
	unsigned int sync;
	struct ffence *fence;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return a < b + bs && b < a + as;
}

TEST_F(mempool, random_alloc_free_checked_against_a_shadow)
{
	enum { N = 400, STEPS = 20000 };
	static struct live live[N];
	static struct pend pend[4 * N];
	unsigned int nlive = 0, npend = 0, step, i, j;
	uint64_t seed = 0x12345678, live_bytes;
	struct vgpu_mempool_stats st;

	self->f.capacity = 96 * MiB;
	for (i = 1; i < NR_SYNC; i++)
		set_fence(&self->f, i, 0);
	for (step = 0; step < STEPS; step++) {
		uint64_t r = rnd(&seed);

		if (nlive < N && (r % 3 || !nlive)) {
			static const uint64_t sizes[] = {
				1, 200, 256, 1000, 4096, 10000, 65536, 70000,
				300000, 1 * MiB, 3 * MiB + 5,
			};
			uint64_t size = sizes[(r >> 8) % 11] + (r >> 20) % 512;
			uint64_t align = (r >> 40) % 4 ? 0 : 1ull << (8 + (r >> 42) % 14);
			struct live *l = &live[nlive];
			uint32_t *cpu;
			int ret;

			ret = vgpu_mempool_alloc(self->p, size, align, &l->va);
			if (ret == -ENOSPC)
				continue;
			ASSERT_EQ(0, ret) TH_LOG("step %u size %llu", step,
						 (unsigned long long)size);
			l->size = size;
			l->tag = step;
			if (align)
				ASSERT_EQ(0, l->va % align);
			for (j = 0; j < nlive; j++)
				ASSERT_FALSE(overlaps(l->va, size, live[j].va,
						      live[j].size));
			/* Never a block some pending fence still covers. */
			for (j = 0; j < npend; j++)
				if (!pend[j].fence->signalled)
					ASSERT_FALSE(overlaps(l->va, size, pend[j].va,
							      pend[j].size))
						TH_LOG("step %u: reuse before the fence", step);
			ASSERT_EQ(0, vgpu_mempool_cpu(self->p, l->va, (void **)&cpu));
			for (j = 0; j < size / 4; j += 61)
				cpu[j] = l->tag + j;
			nlive++;
		} else if (nlive) {
			unsigned int k = (r >> 8) % nlive;
			unsigned int sync = (r >> 16) % 3 ? 0 : 1 + (r >> 24) % (NR_SYNC - 1);
			struct live *l = &live[k];
			uint32_t *cpu;

			ASSERT_EQ(0, vgpu_mempool_cpu(self->p, l->va, (void **)&cpu));
			for (j = 0; j < l->size / 4; j += 61)
				ASSERT_EQ(l->tag + j, cpu[j]);
			if (sync && npend < 4 * N) {
				pend[npend++] = (struct pend){
					l->va, l->size, sync, self->f.sync[sync],
				};
				self->f.sync[sync]->refs++;
			}
			ASSERT_EQ(0, vgpu_mempool_free(self->p, l->va, sync));
			*l = live[--nlive];
		}
		/* Now and then a job ends, and its syncobj gets a new fence. */
		if (!(r >> 50 & 7)) {
			unsigned int s = 1 + (r >> 53) % (NR_SYNC - 1);

			self->f.sync[s]->signalled = 1;
			set_fence(&self->f, s, 0);
		}
		/* Forget signalled pending records. */
		for (j = 0; j < npend;) {
			if (pend[j].fence->signalled) {
				f_fence_put(&self->f, pend[j].fence);
				pend[j] = pend[--npend];
			} else {
				j++;
			}
		}
		if (step % 997 == 0)
			vgpu_mempool_trim(self->p, NULL);
		/* Now and then the working set goes: trim must give memory back. */
		if (step % 5000 == 4999) {
			uint64_t before = self->f.reserved, released;

			while (nlive)
				ASSERT_EQ(0, vgpu_mempool_free(self->p, live[--nlive].va, 0));
			ASSERT_EQ(0, vgpu_mempool_trim(self->p, &released));
			EXPECT_EQ(before - self->f.reserved, released);
			EXPECT_GT(released, 0);
		}
		vgpu_mempool_get_stats(self->p, &st);
		ASSERT_EQ(st.reserved, self->f.reserved);
		ASSERT_EQ(st.reserved, st.allocated + st.pending + st.cached);
		ASSERT_LE(st.allocated, st.peak_allocated);
		ASSERT_LE(st.reserved, st.peak_reserved);
	}
	live_bytes = 0;
	for (i = 0; i < nlive; i++)
		live_bytes += live[i].size;
	vgpu_mempool_get_stats(self->p, &st);
	EXPECT_EQ(live_bytes, st.requested);
	EXPECT_GT(st.segment_frees, 0);
	EXPECT_GT(st.fence_waits, 0);
	EXPECT_GE(st.allocated, st.requested);
	TH_LOG("allocs %llu, segments %llu/%llu, waits %llu, pressure trims %llu, peak %llu MiB",
	       (unsigned long long)st.allocs, (unsigned long long)st.segment_allocs,
	       (unsigned long long)st.segment_frees,
	       (unsigned long long)st.fence_waits,
	       (unsigned long long)st.pressure_trims,
	       (unsigned long long)(st.peak_reserved >> 20));
	for (i = 0; i < nlive; i++)
		EXPECT_EQ(0, vgpu_mempool_free(self->p, live[i].va, 0));
	for (j = 0; j < npend; j++)
		f_fence_put(&self->f, pend[j].fence);
}

TEST_HARNESS_MAIN
