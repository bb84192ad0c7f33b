// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * One VRAM pool under one eviction order: ordinary BOs and the VRAM
 * copies of pageable chunks evict each other by the selected policy.
 * For every policy sysfs lists, a cold BO goes before hot chunks when a
 * chunk fault needs VRAM, and a cold chunk goes before a hot BO when a BO
 * is created in full VRAM: the first victim is read from the pool's
 * per-kind counters (sysfs counters/pool_evictions_{bo,chunk}), and the
 * data of every victim is checked afterwards.  Then ordinary and
 * pageable BOs together at 3x VRAM from two processes, random GPU
 * read-modify-writes over all of them, every byte checked by the CPU,
 * with both kinds evicted.  And the device's ACCESSED bits alone, with
 * the access counters turned off, rank a chunk and an ordinary BO the GPU
 * used above an idle one of the same kind: the idle one goes first, and
 * with the bits turned off as well the order is the insertion order and
 * the used one goes first (the negative control).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <stdio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_paging.h"

#define MiB	(1ull << 20)
#define SEC	1000000000ll
#define VA	(1ull << 32)	/* ordinary BOs */
#define PVA	(1ull << 36)	/* pageable BOs */

/* ------------------------------------------------------------ sysfs --- */

static int dev_attr(struct vgpu_dev *dev, const char *name, char *buf, size_t size)
{
	return vgpu_test_sysfs(dev->fd, name, NULL, buf, size);
}

static int set_dev_attr(struct vgpu_dev *dev, const char *name, const char *val)
{
	return vgpu_test_sysfs(dev->fd, name, val, NULL, 0);
}

/* The pool's eviction counters, per kind of unit. */
struct pool_ctr {
	uint64_t bo, chunk;
};

static int pool_ctr(struct vgpu_dev *dev, struct pool_ctr *c)
{
	char buf[32];

	if (dev_attr(dev, "counters/pool_evictions_bo", buf, sizeof(buf)) ||
	    !buf[0])
		return -ENOENT;
	c->bo = strtoull(buf, NULL, 0);
	if (dev_attr(dev, "counters/pool_evictions_chunk", buf, sizeof(buf)) ||
	    !buf[0])
		return -ENOENT;
	c->chunk = strtoull(buf, NULL, 0);
	return 0;
}

/* ------------------------------------------------------------- data --- */

static void fill(uint64_t *p, uint64_t size, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < size / 8; i++)
		p[i] = pattern(seed, i);
}

/* Index of the first qword that is not the pattern, or size / 8. */
static uint64_t check(const uint64_t *p, uint64_t size, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < size / 8; i++)
		if (p[i] != pattern(seed, i))
			break;
	return i;
}

/* --------------------------------------------------------- fixture --- */

FIXTURE(pool) {
	struct vgpu_dev a, b;	/* two files: two VMs, two clients */
	uint64_t vram;
	char policies[128];
	char evict[16];
	char prefetch[16];
	char rec_ctr[8];	/* recency_counters */
	char rec_abits[8];	/* recency_accessed_bits */
};

FIXTURE_SETUP(pool)
{
	if (vgpu_open(&self->a))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_open(&self->b));
	ASSERT_EQ(0, vgpu_get_param(&self->a, DRM_VGPU_PARAM_VRAM_SIZE, &self->vram));
	ASSERT_EQ(0, dev_attr(&self->a, "available_eviction_policies",
			      self->policies, sizeof(self->policies)));
	ASSERT_NE(0, self->policies[0]);
	ASSERT_EQ(0, dev_attr(&self->a, "eviction_policy", self->evict,
			      sizeof(self->evict)));
	ASSERT_EQ(0, vgpu_test_param("prefetch", NULL, self->prefetch,
				     sizeof(self->prefetch)));
	ASSERT_EQ(0, vgpu_test_param("recency_counters", NULL, self->rec_ctr,
				     sizeof(self->rec_ctr)));
	ASSERT_EQ(0, vgpu_test_param("recency_accessed_bits", NULL,
				     self->rec_abits, sizeof(self->rec_abits)));
	/* Prefetch would bring chunks in nobody asked for. */
	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	ASSERT_EQ(0, vgpu_test_param("prefetch", "0", NULL, 0));
}

FIXTURE_TEARDOWN(pool)
{
	if (self->prefetch[0])
		vgpu_test_param("prefetch", self->prefetch, NULL, 0);
	if (self->rec_ctr[0])
		vgpu_test_param("recency_counters", self->rec_ctr, NULL, 0);
	if (self->rec_abits[0])
		vgpu_test_param("recency_accessed_bits", self->rec_abits, NULL, 0);
	if (self->evict[0])
		set_dev_attr(&self->a, "eviction_policy", self->evict);
	vgpu_close(&self->b);
	vgpu_close(&self->a);
}

/*
 * A cold ordinary BO, then hot chunks, then chunk faults streaming
 * through the rest of VRAM: the first unit to go is the BO.
 */
static void cold_bo_hot_chunks(struct __test_metadata *_metadata,
			       FIXTURE_DATA(pool) *self, const char *policy)
{
	const uint64_t bo_size = 16 * MiB, hot = 8 * MiB;
	uint64_t size = self->vram, off, *cp, *pp;
	struct drm_vgpu_query_paging pg0, pg;
	struct pool_ctr c0, c;
	uint32_t cold, h;

	/* Client A: the cold BO, written once by the CPU, then idle. */
	ASSERT_EQ(0, vgpu_bo_create(&self->a, bo_size, VGPU_PLACE_VRAM, 0, &cold));
	ASSERT_EQ(0, vgpu_bo_map(&self->a, cold, bo_size, (void **)&cp));
	fill(cp, bo_size, 11);

	/*
	 * Client B: pageable memory; its first chunks are used twice, some
	 * batches apart (two references: hot for LRU-2 too).
	 */
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->b, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&self->b, h, size, (void **)&pp));
	fill(pp, size, 12);
	ASSERT_EQ(0, vgpu_vm_map(&self->b, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, pool_ctr(&self->a, &c0));
	ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, hot, 0, 0, 0));
	for (off = hot; off < hot + 4 * MiB; off += 2 * MiB)
		ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL,
				       VGPU_TOUCH_READ, PVA + off, 2 * MiB, 0, 0, 0));
	ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, hot, 0, 0, 0));
	ASSERT_EQ(0, pool_ctr(&self->a, &c));
	ASSERT_EQ(c0.bo + c0.chunk, c.bo + c.chunk) TH_LOG("VRAM full too early");
	EXPECT_EQ(bo_size, fdinfo_u64(self->a.fd, "drm-total-vram"));

	/* One new chunk at a time, until something has to go. */
	for (; off < size; off += 2 * MiB) {
		ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL,
				       VGPU_TOUCH_READ, PVA + off, 2 * MiB, 0, 0, 0));
		ASSERT_EQ(0, pool_ctr(&self->a, &c));
		if (c.bo + c.chunk != c0.bo + c0.chunk)
			break;
	}
	ASSERT_GT(size, off) TH_LOG("%s: nothing was evicted", policy);
	TH_LOG("%s: first eviction at chunk %llu: %llu BO(s), %llu chunk(s)", policy,
	       (unsigned long long)(off >> 21), (unsigned long long)(c.bo - c0.bo),
	       (unsigned long long)(c.chunk - c0.chunk));
	EXPECT_EQ(c0.bo + 1, c.bo);
	EXPECT_EQ(c0.chunk, c.chunk);
	/* fdinfo agrees: A's BO left VRAM, every chunk B faulted in is there. */
	EXPECT_EQ(0, fdinfo_u64(self->a.fd, "drm-total-vram"));
	EXPECT_EQ(off + 2 * MiB, fdinfo_u64(self->b.fd, "drm-total-vram"));

	/* The hot chunks are still in VRAM: using them faults no more. */
	ASSERT_EQ(0, paging(&self->b, &pg0));
	ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, hot, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->b, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);

	/* Nothing was lost on either side. */
	EXPECT_EQ(bo_size / 8, check(cp, bo_size, 11));
	EXPECT_EQ(size / 8, check(pp, size, 12));
	vgpu_bo_unmap(cp, bo_size);
	vgpu_bo_unmap(pp, size);
	vgpu_vm_unmap(&self->b, PVA, size);
	vgpu_bo_close(&self->b, h);
	vgpu_bo_close(&self->a, cold);
}

typedef void (*policy_case)(struct __test_metadata *_metadata,
			    FIXTURE_DATA(pool) *self, const char *policy);

/* Runs @fn once per policy sysfs lists, with that policy selected. */
static void each_policy(struct __test_metadata *_metadata,
			FIXTURE_DATA(pool) *self, policy_case fn)
{
	char buf[sizeof(self->policies)], *save, *name;
	unsigned int n = 0;

	snprintf(buf, sizeof(buf), "%s", self->policies);
	for (name = strtok_r(buf, " ", &save); name;
	     name = strtok_r(NULL, " ", &save), n++) {
		ASSERT_EQ(0, set_dev_attr(&self->a, "eviction_policy", name));
		fn(_metadata, self, name);
	}
	ASSERT_LE(1, n);
}

TEST_F(pool, cold_bo_goes_before_hot_chunks)
{
	each_policy(_metadata, self, cold_bo_hot_chunks);
}

/*
 * Cold chunks, then a BO a job keeps using, then new BOs until VRAM is
 * full: the first unit to go is a chunk.
 */
static void cold_chunks_hot_bo(struct __test_metadata *_metadata,
			       FIXTURE_DATA(pool) *self, const char *policy)
{
	const uint64_t psize = self->vram / 4, hsize = self->vram / 8;
	const uint64_t ysize = 2 * MiB;
	unsigned int i, ny = 0, maxy = self->vram / ysize;
	uint32_t h, hotbo, extra, *y = calloc(maxy, sizeof(*y));
	uint64_t *pp, *hp;
	struct pool_ctr c0, c;

	ASSERT_NE(NULL, y);

	/* Client B: pageable memory, used once. */
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->b, psize + 4 * MiB, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&self->b, h, psize + 4 * MiB, (void **)&pp));
	fill(pp, psize + 4 * MiB, 21);
	ASSERT_EQ(0, vgpu_vm_map(&self->b, h, 0, PVA, psize + 4 * MiB, VGPU_MAP_RW));
	ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, psize, 0, 0, 0));

	/* Client A: a BO its jobs use, between more of B's faults. */
	ASSERT_EQ(0, vgpu_bo_create(&self->a, hsize, VGPU_PLACE_VRAM, 0, &hotbo));
	ASSERT_EQ(0, vgpu_bo_map(&self->a, hotbo, hsize, (void **)&hp));
	fill(hp, hsize, 22);
	ASSERT_EQ(0, vgpu_vm_map(&self->a, hotbo, 0, VA, hsize, VGPU_MAP_RW));
	for (i = 0; i < 2; i++) {
		/* B's fault batches move the sampling epochs on. */
		ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
				       PVA + psize + i * 2 * MiB, 2 * MiB, 0, 0, 0));
		ASSERT_EQ(0, touch_run(&self->a, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
				       VA, hsize, 0, 0, 0));
	}

	/* New BOs of A until one does not fit. */
	ASSERT_EQ(0, pool_ctr(&self->a, &c0));
	for (ny = 0; ny < maxy; ny++) {
		ASSERT_EQ(0, vgpu_bo_create(&self->a, ysize, VGPU_PLACE_VRAM, 0, &y[ny]));
		ASSERT_EQ(0, pool_ctr(&self->a, &c));
		if (c.bo + c.chunk != c0.bo + c0.chunk)
			break;
	}
	ASSERT_GT(maxy, ny) TH_LOG("%s: nothing was evicted", policy);
	TH_LOG("%s: first eviction at new BO %u: %llu BO(s), %llu chunk(s)", policy,
	       ny, (unsigned long long)(c.bo - c0.bo),
	       (unsigned long long)(c.chunk - c0.chunk));
	EXPECT_EQ(c0.chunk + 1, c.chunk);
	EXPECT_EQ(c0.bo, c.bo);
	/* fdinfo agrees: all of A's BOs are in VRAM, one chunk of B left. */
	EXPECT_EQ(hsize + (ny + 1) * ysize, fdinfo_u64(self->a.fd, "drm-total-vram"));
	EXPECT_EQ(psize + 2 * MiB, fdinfo_u64(self->b.fd, "drm-total-vram"));

	/* And the next BO pushes out the next cold chunk, not the hot BO. */
	ASSERT_EQ(0, vgpu_bo_create(&self->a, ysize, VGPU_PLACE_VRAM, 0, &extra));
	ASSERT_EQ(0, pool_ctr(&self->a, &c));
	EXPECT_EQ(c0.chunk + 2, c.chunk);
	EXPECT_EQ(c0.bo, c.bo);
	vgpu_bo_close(&self->a, extra);

	EXPECT_EQ(hsize / 8, check(hp, hsize, 22));
	EXPECT_EQ((psize + 4 * MiB) / 8, check(pp, psize + 4 * MiB, 21));
	for (i = 0; i <= ny; i++)
		vgpu_bo_close(&self->a, y[i]);
	free(y);
	vgpu_bo_unmap(hp, hsize);
	vgpu_bo_unmap(pp, psize + 4 * MiB);
	vgpu_vm_unmap(&self->a, VA, hsize);
	vgpu_vm_unmap(&self->b, PVA, psize + 4 * MiB);
	vgpu_bo_close(&self->a, hotbo);
	vgpu_bo_close(&self->b, h);
}

TEST_F(pool, cold_chunk_goes_before_hot_bo)
{
	each_policy(_metadata, self, cold_chunks_hot_bo);
}

/* ------------------------------------------- recency from A bits --- */

static uint64_t abits_sampled(struct __test_metadata *_metadata,
			      struct vgpu_dev *dev)
{
	char buf[32];

	EXPECT_EQ(0, dev_attr(dev, "counters/access_bits_sampled", buf, sizeof(buf)));
	return strtoull(buf, NULL, 0);
}

/*
 * Of two units of @size at @va and @va + @size, unit @went was evicted and
 * the other was not: PREFETCH moves only memory that is not in VRAM.
 */
static void expect_evicted(struct __test_metadata *_metadata,
			   struct vgpu_dev *dev, const char *policy,
			   uint64_t va, uint64_t size, unsigned int went)
{
	uint64_t moved;

	ASSERT_EQ(0, vgpu_prefetch(dev, va + !went * size, size, VGPU_PLACE_VRAM,
				   &moved));
	EXPECT_EQ(0, moved) TH_LOG("%s: unit %u was evicted", policy, !went);
	ASSERT_EQ(0, vgpu_prefetch(dev, va + went * size, size, VGPU_PLACE_VRAM,
				   &moved));
	EXPECT_EQ(size, moved) TH_LOG("%s: unit %u stayed", policy, went);
}

/* One more step of pressure on VRAM: a fault, a new BO. */
typedef int (*pressure_step)(struct vgpu_dev *dev, void *arg, unsigned int i);

/*
 * Steps 0, 1, ... until the pool evicts, at most @max; the first victim
 * must be one unit of the kind @chunk says.  Returns the step that
 * evicted.
 */
static unsigned int until_evicted(struct __test_metadata *_metadata,
				  struct vgpu_dev *dev, const char *policy,
				  pressure_step step, void *arg,
				  unsigned int max, bool chunk)
{
	struct pool_ctr c0 = { 0 }, c = { 0 };
	unsigned int i;

	EXPECT_EQ(0, pool_ctr(dev, &c0));
	for (i = 0; i < max; i++) {
		EXPECT_EQ(0, step(dev, arg, i));
		EXPECT_EQ(0, pool_ctr(dev, &c));
		if (c.bo + c.chunk != c0.bo + c0.chunk)
			break;
	}
	EXPECT_GT(max, i) TH_LOG("%s: nothing was evicted", policy);
	EXPECT_EQ(c0.chunk + chunk, c.chunk);
	EXPECT_EQ(c0.bo + !chunk, c.bo);
	return i;
}

/* Recency from the ACCESSED bits only (@abits), or from nothing. */
static void recency_from(struct __test_metadata *_metadata, bool abits)
{
	ASSERT_EQ(0, vgpu_test_param("recency_counters", "0", NULL, 0));
	ASSERT_EQ(0, vgpu_test_param("recency_accessed_bits", abits ? "1" : "0",
				     NULL, 0));
}

/* Chunk 2 + @i of the pageable BO at PVA faults in. */
static int fault_chunk(struct vgpu_dev *dev, void *arg, unsigned int i)
{
	return touch_run(dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			 PVA + (2 + i) * 2 * MiB, 2 * MiB, 0, 0, 0);
}

/*
 * Two chunks prefetched into VRAM (no history, the first one inserted
 * first), both read by the GPU; an ordinary BO joins the pool, which
 * samples: both are found used.  Then the first is read again, and chunk
 * faults go on until the pool evicts: with the ACCESSED bits the second
 * chunk goes first, because the first was found used again, which needs
 * the TLB flush after the bits were cleared (the device sets ACCESSED
 * only when it walks); without the bits, the first goes.  The access
 * counters are off: only the bits can tell the two apart.
 */
static void abits_chunks(struct __test_metadata *_metadata,
			 FIXTURE_DATA(pool) *self, const char *policy, bool abits)
{
	const uint64_t chunk = 2 * MiB, size = self->vram + 4 * MiB;
	uint64_t off, moved, a0, a1, a, *pp;
	uint32_t h, s;

	recency_from(_metadata, abits);
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->b, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&self->b, h, size, (void **)&pp));
	fill(pp, size, 31);
	ASSERT_EQ(0, vgpu_vm_map(&self->b, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_prefetch(&self->b, PVA, 2 * chunk, VGPU_PLACE_VRAM, &moved));
	ASSERT_EQ(2 * chunk, moved);
	/* GPU reads through the mappings: no fault, no sample. */
	ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, 2 * chunk, 0, 0, 0));
	a0 = abits_sampled(_metadata, &self->b);
	ASSERT_EQ(0, vgpu_bo_create(&self->b, chunk, VGPU_PLACE_VRAM, 0, &s));
	a1 = abits_sampled(_metadata, &self->b);
	EXPECT_EQ(abits ? 2 : 0, a1 - a0);
	ASSERT_EQ(0, touch_run(&self->b, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, chunk, 0, 0, 0));

	off = (2 + until_evicted(_metadata, &self->b, policy, fault_chunk, NULL,
				 size / chunk - 2, true)) * chunk;
	a = abits_sampled(_metadata, &self->b);
	/*
	 * One pass, when the chunk at @off needed room: the first chunk and
	 * every chunk faulted in before @off had their bits set (the
	 * faulting access walks again after the replay); the second chunk
	 * and the BO had not.
	 */
	TH_LOG("%s, A bits %s: first eviction at chunk %llu, %llu units found used",
	       policy, abits ? "on" : "off", (unsigned long long)(off / chunk),
	       (unsigned long long)(a - a1));
	EXPECT_EQ(abits ? off / chunk - 1 : 0, a - a1);

	/* The idle chunk went with the bits, the first one without. */
	expect_evicted(_metadata, &self->b, policy, PVA, chunk, abits);
	EXPECT_EQ(size / 8, check(pp, size, 31));
	vgpu_bo_close(&self->b, s);
	vgpu_bo_unmap(pp, size);
	vgpu_vm_unmap(&self->b, PVA, size);
	vgpu_bo_close(&self->b, h);
}

/* With the bits, then without them: the order turns round. */
static void abits_chunks_both(struct __test_metadata *_metadata,
			      FIXTURE_DATA(pool) *self, const char *policy)
{
	abits_chunks(_metadata, self, policy, true);
	abits_chunks(_metadata, self, policy, false);
}

/* Under KASAN and lockdep, with 256 MiB of VRAM, well over 30 s. */
TEST_F_TIMEOUT(pool, accessed_bits_rank_chunks, 600)
{
	each_policy(_metadata, self, abits_chunks_both);
}

/* A new 2 MiB BO in VRAM, into @arg[@i]. */
static int new_bo(struct vgpu_dev *dev, void *arg, unsigned int i)
{
	return vgpu_bo_create(dev, 2 * MiB, VGPU_PLACE_VRAM, 0, (uint32_t *)arg + i);
}

/*
 * Two ordinary BOs placed in VRAM one after the other, the first read by
 * the GPU, then new BOs until the pool evicts: with the ACCESSED bits the
 * idle second BO goes first; without them, the first.
 */
static void abits_bos(struct __test_metadata *_metadata,
		      FIXTURE_DATA(pool) *self, const char *policy, bool abits)
{
	const uint64_t bsize = self->vram / 8;
	unsigned int i, ny, maxy = self->vram / (2 * MiB);
	uint32_t x[2], *y = calloc(maxy, sizeof(*y));
	uint64_t a0, a, *p[2];

	ASSERT_NE(NULL, y);
	recency_from(_metadata, abits);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, vgpu_bo_create(&self->a, bsize, VGPU_PLACE_VRAM |
					    VGPU_PLACE_SYSTEM, 0, &x[i]));
		ASSERT_EQ(0, vgpu_bo_map(&self->a, x[i], bsize, (void **)&p[i]));
		fill(p[i], bsize, 41 + i);
		ASSERT_EQ(0, vgpu_vm_map(&self->a, x[i], 0, VA + i * bsize, bsize,
					 VGPU_MAP_RW));
	}
	/* The used BO: a GPU read through its mapping. */
	ASSERT_EQ(0, touch_run(&self->a, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       VA, bsize, 0, 0, 0));

	a0 = abits_sampled(_metadata, &self->a);
	ny = until_evicted(_metadata, &self->a, policy, new_bo, y, maxy, false);
	a = abits_sampled(_metadata, &self->a);
	TH_LOG("%s, A bits %s: first eviction at new BO %u, %llu units found used",
	       policy, abits ? "on" : "off", ny, (unsigned long long)(a - a0));
	/* Only the used BO was read by the GPU; the new ones are unmapped. */
	EXPECT_EQ(abits ? 1 : 0, a - a0);

	/* The idle BO went with the bits, the first one without. */
	for (i = 0; i <= ny && i < maxy; i++)
		vgpu_bo_close(&self->a, y[i]);
	expect_evicted(_metadata, &self->a, policy, VA, bsize, abits);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(bsize / 8, check(p[i], bsize, 41 + i));
		vgpu_bo_unmap(p[i], bsize);
		vgpu_vm_unmap(&self->a, VA + i * bsize, bsize);
		vgpu_bo_close(&self->a, x[i]);
	}
	free(y);
}

static void abits_bos_both(struct __test_metadata *_metadata,
			   FIXTURE_DATA(pool) *self, const char *policy)
{
	abits_bos(_metadata, self, policy, true);
	abits_bos(_metadata, self, policy, false);
}

/* Under KASAN and lockdep, with 256 MiB of VRAM, well over 30 s. */
TEST_F_TIMEOUT(pool, accessed_bits_rank_bos, 600)
{
	each_policy(_metadata, self, abits_bos_both);
}

#define MIX_BO		(4 * MiB)
#define MIX_ROUNDS	2
#define MIX_TOUCHES	1024

/*
 * One process's share: @n ordinary BOs (VRAM preferred) and @n pageable
 * BOs, CPU pattern, random RMWs over all of them, round after round,
 * then every byte checked.  Returns the number of bad qwords, or -1.
 */
static int mixed_worker(struct __test_metadata *_metadata, struct vgpu_dev *dev,
			unsigned int n, uint64_t seed)
{
	const uint64_t lines = MIX_BO / 64;
	unsigned int b, r, nb = 2 * n;
	uint64_t *cnt = calloc(lines, sizeof(*cnt));
	uint64_t **p = calloc(nb, sizeof(*p));
	uint32_t *h = calloc(nb, sizeof(*h));
	int bad = 0;
	uint64_t i;

	if (!cnt || !p || !h)
		return -1;
	for (b = 0; b < nb; b++) {
		struct drm_vgpu_bo_create bc = {
			.size = MIX_BO, .placements = VGPU_PLACE_ALL,
			.preferred = VGPU_PLACE_VRAM,
		};
		uint64_t va = b < n ? VA + b * MIX_BO : PVA + (b - n) * MIX_BO;

		if (b < n ? vgpu_bo_create_ex(dev, &bc) :
			    vgpu_bo_create_pageable(dev, MIX_BO, &bc.handle, NULL))
			return -1;
		h[b] = bc.handle;
		if (vgpu_bo_map(dev, h[b], MIX_BO, (void **)&p[b]) ||
		    vgpu_vm_map(dev, h[b], 0, va, MIX_BO, VGPU_MAP_RW))
			return -1;
		fill(p[b], MIX_BO, seed + b);
	}
	for (r = 0; r < MIX_ROUNDS; r++) {
		for (b = 0; b < nb; b++) {
			/* Ordinary and pageable BOs in turn. */
			unsigned int k = b % 2 ? n + b / 2 : b / 2;
			uint64_t va = k < n ? VA + k * MIX_BO : PVA + (k - n) * MIX_BO;

			if (touch_run(dev, 0, VGPU_TOUCH_RANDOM, VGPU_TOUCH_RMW, va,
				      MIX_BO, 0, MIX_TOUCHES, seed * 1000 + r * 100 + k + 1))
				return -1;
		}
	}
	for (b = 0; b < nb; b++) {
		memset(cnt, 0, lines * sizeof(*cnt));
		for (r = 0; r < MIX_ROUNDS; r++)
			rmw_expect(dev, cnt, lines, seed * 1000 + r * 100 + b + 1, MIX_TOUCHES);
		for (i = 0; i < MIX_BO / 8; i++) {
			uint64_t want = pattern(seed + b, i) + (i % 8 ? 0 : cnt[i / 8]);

			if (p[b][i] != want && bad++ < 4)
				TH_LOG("%s BO %u qword %llu: %#llx, want %#llx",
				       b < n ? "ordinary" : "pageable", b,
				       (unsigned long long)i, (unsigned long long)p[b][i],
				       (unsigned long long)want);
		}
		vgpu_bo_unmap(p[b], MIX_BO);
		vgpu_bo_close(dev, h[b]);
	}
	free(cnt);
	free(p);
	free(h);
	return bad;
}

/*
 * Ordinary and pageable BOs at 3x VRAM from two processes, byte-exact.
 * With 128 MiB of VRAM on the debug kernel that is 384 MiB moved back and
 * forth under KASAN: far beyond the harness's default 30 s.
 */
TEST_F_TIMEOUT(pool, mixed_3x_two_processes, 600)
{
	unsigned int n = 3 * self->vram / MIX_BO / 4;	/* per kind, per process */
	struct drm_vgpu_query_paging pg0, pg;
	struct pool_ctr c0, c;
	int st, ret;
	pid_t pid;

	ASSERT_EQ(0, pool_ctr(&self->a, &c0));
	ASSERT_EQ(0, paging(&self->a, &pg0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vgpu_dev dev;

		if (vgpu_open(&dev))
			_exit(2);
		_exit(mixed_worker(_metadata, &dev, n, 7) ? 1 : 0);
	}
	ret = mixed_worker(_metadata, &self->a, n, 3);
	EXPECT_EQ(0, ret);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("child status %#x", st);
	ASSERT_EQ(0, pool_ctr(&self->a, &c));
	ASSERT_EQ(0, paging(&self->a, &pg));
	TH_LOG("%u + %u BOs of 4 MiB per process: %llu BO and %llu chunk evictions by the pool",
	       n, n, (unsigned long long)(c.bo - c0.bo),
	       (unsigned long long)(c.chunk - c0.chunk));
	/* Each kind pushed out the other. */
	EXPECT_LT(c0.bo, c.bo);
	EXPECT_LT(c0.chunk, c.chunk);
	/* Device-wide: earlier suites cancel faults on purpose. */
	EXPECT_EQ(pg0.device.faults_cancelled, pg.device.faults_cancelled);
}

TEST_HARNESS_MAIN
