// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvgpu's caching allocator (vgpu_mempool) on the device: random
 * allocations and frees with the GPU filling every block and copying it
 * out before its free, contents checked, while jobs that still read
 * freed blocks are held back by a WAIT, so a block reused before its
 * fence would be overwritten under them; no reuse before the fence,
 * asserted directly; trim giving VRAM back (fdinfo, sysfs vram_used);
 * under memory pressure (the kernel's admission refusing a segment),
 * free segments given back and the allocation retried; and hostile
 * input.  The allocator's logic is unit-tested on the host
 * (tests/host/mempool_unit.c).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_buf.h"

#define MiB	(1ull << 20)
#define SEC	1000000000ll
#define CHECK_VA	(1ull << 33)
#define CHECK_SIZE	(4 * MiB)
#define CHECK_DATA	4096		/* the flag is at offset 0 */

FIXTURE(alloc) {
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	struct vgpu_mempool *pool;
	struct buf check;	/* system memory: the WAIT flag, then copies */
	uint32_t sync[2];
};

FIXTURE_SETUP(alloc)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	if (self->dev.exec_queues < 2)
		SKIP(return, "needs two exec queues");
	vgpu_cmd_init(&self->cmd);
	ASSERT_EQ(0, buf_create(&self->dev, &self->check, CHECK_SIZE,
				VGPU_PLACE_SYSTEM, CHECK_VA, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &self->sync[0]));
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &self->sync[1]));
	ASSERT_EQ(0, vgpu_mempool_create(&self->dev, NULL, &self->pool));
}

FIXTURE_TEARDOWN(alloc)
{
	vgpu_mempool_destroy(self->pool);
	vgpu_cmd_fini(&self->cmd);
	vgpu_close(&self->dev);
}

/* Run the stream on @queue and wait. */
static int run_on(struct vgpu_dev *dev, struct vgpu_cmd *cmd, uint32_t queue)
{
	int ret = vgpu_run(dev, queue, cmd, 60 * SEC);

	vgpu_cmd_reset(cmd);
	return ret;
}

static volatile uint64_t *flag(struct buf *check)
{
	return check->cpu;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct blk {
	uint64_t va, size, rounded;
	uint32_t tag;
};

static int overlaps(const struct blk *a, uint64_t va, uint64_t size)
{
	return a->va < va + size && va < a->va + a->rounded;
}

TEST_F(alloc, random_blocks_filled_by_the_gpu_and_checked)
{
	enum { STEPS = 160, MAXLIVE = 48 };
	static struct blk live[MAXLIVE];
	/*
	 * The held job pins what it uses in VRAM: segments may go to system
	 * memory, so that the pool never has to wait for the held fence,
	 * which only this thread can release (it would, until the job timed
	 * out).  8 MiB segments: several, in the smallest VRAM too.
	 */
	struct vgpu_mempool_config cfg = {
		.segment_size = 8 * MiB, .placements = VGPU_PLACE_ALL,
	};
	unsigned int nlive = 0, step, i, frees = 0, reused_pending = 0;
	uint64_t seed = 0x9e3779b9, k = 0;
	struct vgpu_mempool_stats st;

	vgpu_mempool_destroy(self->pool);
	ASSERT_EQ(0, vgpu_mempool_create(&self->dev, &cfg, &self->pool));

	for (step = 0; step < STEPS; step++) {
		uint64_t r = rnd(&seed);

		if (nlive < MAXLIVE && (r % 5 < 3 || !nlive)) {
			static const uint64_t sizes[] = {
				4, 100, 256, 4000, 4096, 20000, 65536, 70000,
				300000, MiB, 3 * MiB,
			};
			struct blk *b = &live[nlive];

			b->size = sizes[(r >> 8) % 11] + ((r >> 16) % 64) * 4;
			ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, b->size,
						     (r >> 24) % 4 ? 0 : 4096, &b->va));
			ASSERT_EQ(0, vgpu_mempool_block_size(self->pool, b->va, &b->rounded));
			ASSERT_GE(b->rounded, b->size);
			for (i = 0; i < nlive; i++)
				ASSERT_FALSE(overlaps(&live[i], b->va, b->rounded));
			b->tag = 0xa0000000u | step;
			/* Queue 1 fills it at once, even with queue 0 held back. */
			vgpu_cmd_fill(&self->cmd, b->va, b->rounded, b->tag);
			ASSERT_EQ(0, run_on(&self->dev, &self->cmd, 1));
			nlive++;
		} else {
			unsigned int j = (r >> 8) % nlive;
			struct blk b = live[j];
			uint64_t n = b.size < CHECK_SIZE - CHECK_DATA ?
				     (b.size + 3) & ~3ull : CHECK_SIZE - CHECK_DATA;
			uint32_t *w = (uint32_t *)((char *)self->check.cpu + CHECK_DATA);
			struct blk n1;
			uint64_t q;

			live[j] = live[--nlive];
			/* Queue 0 copies the block out, but only after the CPU says so. */
			memset(w, 0, n);
			k++;
			vgpu_cmd_wait(&self->cmd, CHECK_VA, k);
			vgpu_cmd_copy(&self->cmd, b.va, CHECK_VA + CHECK_DATA, n);
			ASSERT_EQ(0, vgpu_submit(&self->dev, 0, &self->cmd, NULL, 0,
						 self->sync[0]));
			vgpu_cmd_reset(&self->cmd);
			ASSERT_EQ(0, vgpu_mempool_free(self->pool, b.va, self->sync[0]));
			/* Meanwhile, new blocks of its size: never that one. */
			for (q = 0; q < 2; q++) {
				ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, b.size, 0, &n1.va));
				ASSERT_EQ(0, vgpu_mempool_block_size(self->pool, n1.va, &n1.rounded));
				ASSERT_FALSE(overlaps(&b, n1.va, n1.rounded))
					TH_LOG("step %llu: block reused before its fence",
					       (unsigned long long)step);
				vgpu_cmd_fill(&self->cmd, n1.va, n1.rounded, 0xdeadbeef);
				ASSERT_EQ(0, run_on(&self->dev, &self->cmd, 1));
				ASSERT_EQ(0, vgpu_mempool_free(self->pool, n1.va, 0));
				reused_pending++;
			}
			/* The copy is still held: its fence is pending. */
			ASSERT_EQ(0, vgpu_syncobj_status(&self->dev, self->sync[0]));
			*flag(&self->check) = k;
			ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, self->sync[0], 60 * SEC));
			ASSERT_EQ(1, vgpu_syncobj_status(&self->dev, self->sync[0]));
			for (q = 0; q < n / 4; q++)
				if (w[q] != b.tag)
					ASSERT_EQ(b.tag, w[q]) TH_LOG("step %u word %llu",
								   step, (unsigned long long)q);
			frees++;
		}
		vgpu_mempool_get_stats(self->pool, &st);
		ASSERT_EQ(st.reserved, st.allocated + st.pending + st.cached);
		ASSERT_GE(st.reserved, st.allocated);
	}
	EXPECT_GT(frees, 20);
	EXPECT_GT(reused_pending, 40);
	EXPECT_EQ(0, st.fence_waits);
	vgpu_mempool_get_stats(self->pool, &st);
	EXPECT_GE(st.fragmentation, 0.0);
	EXPECT_LT(st.fragmentation, 1.0);
	EXPECT_GE(st.peak_reserved, st.peak_allocated);
	TH_LOG("%llu allocs, %llu segments taken, peak reserved %llu KiB, peak allocated %llu KiB",
	       (unsigned long long)st.allocs, (unsigned long long)st.segment_allocs,
	       (unsigned long long)st.peak_reserved >> 10,
	       (unsigned long long)st.peak_allocated >> 10);
	for (i = 0; i < nlive; i++)
		ASSERT_EQ(0, vgpu_mempool_free(self->pool, live[i].va, 0));
}

TEST_F(alloc, no_reuse_before_the_fence)
{
	struct vgpu_mempool_stats st;
	uint64_t x, y, v[8], rx, ry;
	unsigned int i;

	ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, MiB, 0, &x));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, 512, 0, &y));
	ASSERT_EQ(0, vgpu_mempool_block_size(self->pool, x, &rx));
	ASSERT_EQ(0, vgpu_mempool_block_size(self->pool, y, &ry));
	/* A job that uses both and cannot end before the CPU lets it. */
	vgpu_cmd_wait(&self->cmd, CHECK_VA, 1);
	vgpu_cmd_fill(&self->cmd, x, rx, 1);
	vgpu_cmd_fill(&self->cmd, y, ry, 2);
	ASSERT_EQ(0, vgpu_submit(&self->dev, 0, &self->cmd, NULL, 0, self->sync[0]));
	vgpu_cmd_reset(&self->cmd);
	ASSERT_EQ(0, vgpu_mempool_free(self->pool, x, self->sync[0]));
	ASSERT_EQ(0, vgpu_mempool_free(self->pool, y, self->sync[0]));
	vgpu_mempool_get_stats(self->pool, &st);
	EXPECT_EQ(rx + ry, st.pending);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, MiB, 0, &v[2 * i]));
		ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, 512, 0, &v[2 * i + 1]));
		EXPECT_NE(x, v[2 * i]);
		EXPECT_NE(y, v[2 * i + 1]);
	}
	EXPECT_EQ(0, vgpu_syncobj_status(&self->dev, self->sync[0]));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vgpu_mempool_free(self->pool, v[i], 0));
	/* The job ends: the blocks are free for reuse. */
	*flag(&self->check) = 1;
	ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, self->sync[0], 60 * SEC));
	ASSERT_EQ(0, vgpu_mempool_trim(self->pool, NULL));
	vgpu_mempool_get_stats(self->pool, &st);
	EXPECT_EQ(0, st.pending);
	EXPECT_EQ(0, st.fence_waits);
	ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, 512, 0, &v[0]));
	EXPECT_EQ(0, vgpu_mempool_free(self->pool, v[0], 0));
}

static uint64_t sysfs_u64(int fd, const char *name)
{
	char buf[32];

	return vgpu_test_sysfs(fd, name, NULL, buf, sizeof(buf)) ? ~0ull :
	       strtoull(buf, NULL, 0);
}

TEST_F(alloc, trim_gives_vram_back)
{
	uint64_t fd0 = fdinfo_u64(self->dev.fd, "drm-total-vram");
	uint64_t used0 = sysfs_u64(self->dev.fd, "vram_used");
	uint64_t va[6], released, fd1, used1;
	struct vgpu_mempool_stats st;
	unsigned int i;

	ASSERT_NE(~0ull, fd0);
	ASSERT_NE(~0ull, used0);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, 3 * MiB + i * 4096, 0, &va[i]));
		vgpu_cmd_fill(&self->cmd, va[i], 3 * MiB, i);
	}
	ASSERT_EQ(0, run_on(&self->dev, &self->cmd, 0));
	vgpu_mempool_get_stats(self->pool, &st);
	EXPECT_GE(st.reserved, 18 * MiB);
	fd1 = fdinfo_u64(self->dev.fd, "drm-total-vram");
	used1 = sysfs_u64(self->dev.fd, "vram_used");
	EXPECT_EQ(fd0 + st.reserved, fd1);
	EXPECT_GE(used1, used0 + st.reserved);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, vgpu_mempool_free(self->pool, va[i], 0));
	/* Freed blocks stay cached: nothing went back yet. */
	EXPECT_EQ(fd1, fdinfo_u64(self->dev.fd, "drm-total-vram"));
	ASSERT_EQ(0, vgpu_mempool_trim(self->pool, &released));
	EXPECT_EQ(st.reserved, released);
	EXPECT_EQ(fd0, fdinfo_u64(self->dev.fd, "drm-total-vram"));
	EXPECT_LE(sysfs_u64(self->dev.fd, "vram_used"), used1 - released);
	vgpu_mempool_get_stats(self->pool, &st);
	EXPECT_EQ(0, st.reserved);
	EXPECT_EQ(0, st.segments);
	EXPECT_EQ(st.segment_allocs, st.segment_frees);
}

/* What the kernel's memory admission would still admit (sysfs). */
static int64_t admit_room(int fd)
{
	return (int64_t)sysfs_u64(fd, "admit_limit") -
	       (int64_t)sysfs_u64(fd, "admit_used");
}

/* Ballast BOs of at most 8 MiB, never populated. */
struct ballast {
	uint32_t h[512];
	unsigned int n;
};

/*
 * Creates or closes ballast BOs until the admission's room is within
 * 4 MiB of @target (the limit follows the rest of the system, so it is
 * measured again after each step).  Return: the room left.
 */
static int64_t room_to(struct vgpu_dev *dev, struct ballast *b, int64_t target)
{
	int64_t r = admit_room(dev->fd);
	uint64_t size;
	int i;

	for (i = 0; i < 1024; i++, r = admit_room(dev->fd)) {
		if (r > target + (int64_t)(4 * MiB) && b->n < 512) {
			size = (uint64_t)(r - target) & ~(2 * MiB - 1);
			size = size < 8 * MiB ? size : 8 * MiB;
			if (vgpu_bo_create(dev, size, VGPU_PLACE_SYSTEM, 0,
					   &b->h[b->n]))
				break;
			b->n++;
		} else if (r + (int64_t)(4 * MiB) < target && b->n) {
			vgpu_bo_close(dev, b->h[--b->n]);
		} else {
			break;
		}
	}
	return r;
}

/*
 * Under memory pressure the pool gives its free segments back and tries
 * again.  Ballast BOs of at most 8 MiB take the kernel's memory admission
 * down: with the demand above TTM's page limit, admission keeps room for
 * a swap-out copy of the largest BO, rounded up to a power of two
 * (driver.rst "memory admission"), beside the demand, and sysfs
 * admit_limit - admit_used is the room with the BOs there now.  A 16 MiB
 * block is allocated and freed: its segment stays cached.  With the room
 * brought to 40 MiB, a 32 MiB block needs a segment of its own (the
 * pool's segments are VRAM BOs, so no system page comes or goes), which
 * BO_CREATE refuses (ENOMEM: the copy to keep grows from 16 to 32 MiB, so
 * 48 MiB are needed) while the cached one holds 16 MiB; once the pool
 * trimmed it, 56 MiB are there, and the allocation succeeds.
 */
TEST_F(alloc, pressure_trims_free_segments_and_retries)
{
	struct vgpu_mempool_config cfg = {
		.segment_size = 16 * MiB, .placements = VGPU_PLACE_VRAM,
	};
	struct vgpu_mempool_stats st;
	struct vgpu_mempool *q;
	uint64_t a, b, refusals, used;
	struct ballast *bal = calloc(1, sizeof(*bal));
	int64_t room;

	ASSERT_NE(NULL, bal);
	ASSERT_LT(512 * MiB, admit_room(self->dev.fd)) TH_LOG("no room to test in");
	room = room_to(&self->dev, bal, 64 * MiB);
	ASSERT_LE(48 * MiB, room);
	ASSERT_EQ(0, vgpu_mempool_create(&self->dev, &cfg, &q));
	ASSERT_EQ(0, vgpu_mempool_alloc(q, 16 * MiB, 0, &a));
	ASSERT_EQ(0, vgpu_mempool_free(q, a, 0));
	vgpu_mempool_get_stats(q, &st);
	EXPECT_EQ(16 * MiB, st.reserved);
	EXPECT_EQ(16 * MiB, st.cached);
	EXPECT_EQ(0, st.pressure_trims);

	room = room_to(&self->dev, bal, 40 * MiB);
	ASSERT_LE(32 * MiB, room);
	ASSERT_GT(48 * MiB, room);
	used = sysfs_u64(self->dev.fd, "admit_used");
	refusals = sysfs_u64(self->dev.fd, "counters/admit_refusals");
	ASSERT_EQ(0, vgpu_mempool_alloc(q, 32 * MiB, 0, &b));
	vgpu_mempool_get_stats(q, &st);
	EXPECT_EQ(1, st.pressure_trims);
	EXPECT_EQ(32 * MiB, st.reserved);
	EXPECT_EQ(1, st.segments);
	EXPECT_EQ(1, st.segment_frees);
	EXPECT_EQ(used - 16 * MiB + 32 * MiB,
		  sysfs_u64(self->dev.fd, "admit_used"));
	/* The kernel refused the segment once, for lack of room. */
	EXPECT_EQ(refusals + 1, sysfs_u64(self->dev.fd, "counters/admit_refusals"));
	/* The block is usable memory. */
	vgpu_cmd_fill(&self->cmd, b, 32 * MiB, 0x5eed);
	EXPECT_EQ(0, run_on(&self->dev, &self->cmd, 0));
	ASSERT_EQ(0, vgpu_mempool_free(q, b, 0));
	vgpu_mempool_destroy(q);
	while (bal->n)
		vgpu_bo_close(&self->dev, bal->h[--bal->n]);
	free(bal);
}

TEST_F(alloc, hostile_input)
{
	struct vgpu_mempool_config cfg = { 0 };
	struct vgpu_mempool *q;
	uint64_t va, sz;
	void *cpu;

	cfg.placements = 4;
	EXPECT_EQ(-EINVAL, vgpu_mempool_create(&self->dev, &cfg, &q));
	cfg = (struct vgpu_mempool_config){ .va_start = self->dev.va_end, .va_size = 2 * MiB };
	EXPECT_EQ(-EINVAL, vgpu_mempool_create(&self->dev, &cfg, &q));
	cfg = (struct vgpu_mempool_config){ .va_start = 0, .va_size = 2 * MiB };
	EXPECT_EQ(-EINVAL, vgpu_mempool_create(&self->dev, &cfg, &q));
	cfg = (struct vgpu_mempool_config){ .segment_size = MiB };
	EXPECT_EQ(-EINVAL, vgpu_mempool_create(&self->dev, &cfg, &q));

	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->pool, 0, 0, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->pool, 4096, 12345, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_alloc(self->pool, 4096, 4 * MiB, &va));
	EXPECT_EQ(-E2BIG, vgpu_mempool_alloc(self->pool, UINT64_MAX, 0, &va));
	ASSERT_EQ(0, vgpu_mempool_alloc(self->pool, 8192, 0, &va));
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->pool, CHECK_VA, 0));	/* foreign */
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->pool, va + 256, 0));	/* interior */
	/* A syncobj that does not exist: the block stays allocated. */
	EXPECT_EQ(-ENOENT, vgpu_mempool_free(self->pool, va, 0xdead));
	EXPECT_EQ(0, vgpu_mempool_block_size(self->pool, va, &sz));
	/* One with no fence in it yet: refused as well. */
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->pool, va, self->sync[1]));
	/* The block is usable by both sides. */
	ASSERT_EQ(0, vgpu_mempool_cpu(self->pool, va, &cpu));
	vgpu_cmd_fill(&self->cmd, va, 8192, 0x01020304);
	ASSERT_EQ(0, run_on(&self->dev, &self->cmd, 0));
	EXPECT_EQ(0x01020304, ((uint32_t *)cpu)[2047]);
	EXPECT_EQ(0, vgpu_mempool_free(self->pool, va, 0));
	EXPECT_EQ(-EINVAL, vgpu_mempool_free(self->pool, va, 0));		/* double */
	EXPECT_EQ(-EINVAL, vgpu_mempool_cpu(self->pool, va, &cpu));
}

TEST_HARNESS_MAIN
