// SPDX-License-Identifier: MIT
/*
 * Suite "alloc": libvgpu's caching allocator (vgpu_mempool) against raw BO
 * create and free, under a training-step-like churn.
 *
 * A "model" of mixed block sizes is drawn once (about half small blocks
 * of 256 B to 64 KiB, a third medium of 64 KiB to 1 MiB, the rest large,
 * up to 1/32 of VRAM; a quarter of VRAM in all).  Every step allocates a
 * block for each size (jittered by up to +25 % from step to step, as
 * shapes change), runs one job that FILLs the first 4 KiB of every
 * block, and frees them all: the pool with the job's fence, taken once
 * (vgpu_mempool_fence()), before the job ends; raw BOs (VRAM, created,
 * bound at a VA, then unbound and closed) once the job ended, since an
 * unbind under a running job makes it fault.  Only the allocation and
 * free calls are timed, not the job or its wait.
 *
 * allocs_per_s counts allocations with their frees per second; speedup
 * is the row's rate over raw's.  The warm_ columns leave the first step
 * out: the pool takes its segments from the kernel then, and only reuses
 * them afterwards.  peak_reserved_mib is the most memory
 * held from the kernel at once (raw: the BOs' sizes), peak_allocated_mib
 * the most handed out (rounded sizes), and reserved_per_allocated their
 * ratio: the memory the pool's caching costs.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_paging.h"

static const struct report_col cols[] = {
	{ "allocator", REPORT_STR, 0 },
	{ "steps", REPORT_U64, 0 },
	{ "allocs", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 4 },
	{ "allocs_per_s", REPORT_F64, 0 },
	{ "speedup", REPORT_F64, 1 },
	{ "warm_allocs_per_s", REPORT_F64, 0 },
	{ "warm_speedup", REPORT_F64, 1 },
	{ "peak_reserved_mib", REPORT_F64, 1 },
	{ "peak_allocated_mib", REPORT_F64, 1 },
	{ "reserved_per_allocated", REPORT_F64, 2 },
	{ "segments", REPORT_U64, 0 },
	{ "fence_waits", REPORT_U64, 0 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

#define RAW_VA		(1ull << 40)	/* the pool's VAs are above 2^47 */
#define FILL_BYTES	4096ull

struct churn {
	uint64_t *model;	/* block sizes of a step */
	unsigned int nblocks, steps;
	uint64_t *size;		/* this step's sizes */
	uint64_t *va;
	uint32_t *bo;
	uint64_t seed;
};

struct result {
	uint64_t allocs;
	double seconds;
	double warm_seconds;	/* of the steps after the first */
	uint64_t peak_reserved, peak_allocated, segments, fence_waits;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int churn_init(struct churn *c, uint64_t vram, unsigned int steps)
{
	uint64_t total = 0, large = vram / 32, s = 0x5eed;
	unsigned int cap = 1024;

	memset(c, 0, sizeof(*c));
	c->model = calloc(cap, sizeof(*c->model));
	c->size = calloc(cap, sizeof(*c->size));
	c->va = calloc(cap, sizeof(*c->va));
	c->bo = calloc(cap, sizeof(*c->bo));
	if (!c->model || !c->size || !c->va || !c->bo)
		return -ENOMEM;
	while (total < vram / 4 && c->nblocks < cap) {
		uint64_t r = rnd(&s), size;

		if (r % 100 < 50)
			size = 256 + (r >> 8) % (64 << 10);
		else if (r % 100 < 85)
			size = (64 << 10) + (r >> 8) % (960 << 10);
		else
			size = (1 << 20) + (r >> 8) % (large > (1 << 20) ? large - (1 << 20) : 1);
		c->model[c->nblocks++] = size;
		total += size;
	}
	c->steps = steps;
	c->seed = 0xc0ffee;
	return 0;
}

static void churn_fini(struct churn *c)
{
	free(c->model);
	free(c->size);
	free(c->va);
	free(c->bo);
}

/* This step's sizes: the model's, each up to 25 % larger. */
static void churn_step(struct churn *c)
{
	unsigned int i;

	for (i = 0; i < c->nblocks; i++)
		c->size[i] = c->model[i] + c->model[i] * (rnd(&c->seed) % 17) / 64;
}

/* One job touching every block of the step; its fence in @sync. */
static int churn_job(struct vgpu_dev *dev, struct churn *c, uint32_t sync)
{
	struct vgpu_cmd cmd;
	unsigned int i;
	int ret;

	vgpu_cmd_init(&cmd);
	for (i = 0; i < c->nblocks; i++)
		vgpu_cmd_fill(&cmd, c->va[i],
			      c->size[i] < FILL_BYTES ? (c->size[i] + 3) & ~3ull : FILL_BYTES,
			      i);
	ret = vgpu_submit(dev, 0, &cmd, NULL, 0, sync);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int run_raw(struct vgpu_dev *dev, struct churn *c, uint32_t sync,
		   struct result *res)
{
	unsigned int step, i;
	int ret = 0;

	for (step = 0; step < c->steps && !ret; step++) {
		uint64_t va = RAW_VA, held = 0;
		double t0, before = res->seconds;

		churn_step(c);
		t0 = bench_now();
		for (i = 0; i < c->nblocks && !ret; i++) {
			struct drm_vgpu_bo_create bc = {
				.size = c->size[i], .placements = VGPU_PLACE_VRAM,
			};

			ret = vgpu_bo_create_ex(dev, &bc);
			if (ret)
				break;
			c->bo[i] = bc.handle;
			c->va[i] = va;
			ret = vgpu_vm_map(dev, bc.handle, 0, va, bc.size, VGPU_MAP_RW);
			va += (bc.size + 0xffff) & ~0xffffull;
			held += bc.size;
		}
		res->seconds += bench_now() - t0;
		if (ret)
			return ret;
		res->allocs += c->nblocks;
		if (held > res->peak_reserved)
			res->peak_reserved = res->peak_allocated = held;
		ret = churn_job(dev, c, sync) ?: vgpu_syncobj_wait(dev, sync, -1);
		t0 = bench_now();
		for (i = 0; i < c->nblocks; i++) {
			vgpu_vm_unmap(dev, c->va[i], (c->size[i] + 4095) & ~4095ull);
			vgpu_bo_close(dev, c->bo[i]);
		}
		res->seconds += bench_now() - t0;
		if (step)
			res->warm_seconds += res->seconds - before;
	}
	return ret;
}

static int run_pool(struct vgpu_dev *dev, struct churn *c, uint32_t sync,
		    struct result *res)
{
	struct vgpu_mempool_stats st;
	struct vgpu_mempool *pool;
	unsigned int step, i;
	int ret;

	ret = vgpu_mempool_create(dev, NULL, &pool);
	if (ret)
		return ret;
	for (step = 0; step < c->steps && !ret; step++) {
		struct vgpu_mempool_fence *fence;
		double t0, before = res->seconds;

		churn_step(c);
		t0 = bench_now();
		for (i = 0; i < c->nblocks && !ret; i++)
			ret = vgpu_mempool_alloc(pool, c->size[i], 0, &c->va[i]);
		res->seconds += bench_now() - t0;
		if (ret)
			break;
		res->allocs += c->nblocks;
		ret = churn_job(dev, c, sync) ?: vgpu_mempool_fence(pool, sync, &fence);
		if (ret)
			break;
		/* Freed while the job may still run: reuse waits for it. */
		t0 = bench_now();
		for (i = 0; i < c->nblocks && !ret; i++)
			ret = vgpu_mempool_free_fenced(pool, c->va[i], fence);
		res->seconds += bench_now() - t0;
		if (step)
			res->warm_seconds += res->seconds - before;
		vgpu_mempool_fence_put(pool, fence);
		if (!ret)
			ret = vgpu_syncobj_wait(dev, sync, -1);
	}
	vgpu_mempool_get_stats(pool, &st);
	res->peak_reserved = st.peak_reserved;
	res->peak_allocated = st.peak_allocated;
	res->segments = st.segment_allocs;
	res->fence_waits = st.fence_waits;
	vgpu_mempool_destroy(pool);
	return ret;
}

static double rate_of(uint64_t allocs, double seconds)
{
	return seconds > 0 ? allocs / seconds : 0.0;
}

static double warm_rate(const struct churn *c, const struct result *res)
{
	return rate_of(res->allocs - c->nblocks, res->warm_seconds);
}

static int row(struct report *r, const char *name, const struct churn *c,
	       const struct result *res, const struct result *raw)
{
	double rate = rate_of(res->allocs, res->seconds);
	double raw_rate = rate_of(raw->allocs, raw->seconds);
	double warm = warm_rate(c, res), raw_warm = warm_rate(c, raw);

	return report_row(r, name, (uint64_t)c->steps, res->allocs, res->seconds,
			  rate, raw_rate > 0 ? rate / raw_rate : 0.0,
			  warm, raw_warm > 0 ? warm / raw_warm : 0.0,
			  res->peak_reserved / (double)BENCH_MIB,
			  res->peak_allocated / (double)BENCH_MIB,
			  res->peak_allocated ?
			  (double)res->peak_reserved / res->peak_allocated : 0.0,
			  res->segments, res->fence_waits);
}

static struct report *run(const struct bench_opts *o)
{
	struct report *r = report_new("Caching allocator against raw BO create/free (training-step churn)",
				      cols, NCOLS);
	struct result raw = { 0 }, pool = { 0 };
	struct vgpu_dev dev;
	struct churn c;
	uint32_t sync = 0;
	int ret;

	if (!r)
		return NULL;
	/* A file of its own: a fresh VM. */
	ret = vgpu_open(&dev);
	if (ret)
		return bench_result(r, ret);
	ret = churn_init(&c, o->vram_size, o->quick ? 8 : 24) ?:
	      vgpu_syncobj_create(&dev, &sync);
	if (!ret)
		ret = run_raw(&dev, &c, sync, &raw);
	if (!ret)
		ret = run_pool(&dev, &c, sync, &pool);
	if (!ret) {
		ret = row(r, "raw-bo", &c, &raw, &raw) ?:
		      row(r, "pool", &c, &pool, &raw);
		fprintf(stderr, "alloc: %u blocks a step, pool %.1fx raw BO create/free (%.1fx warm)\n",
			c.nblocks, rate_of(pool.allocs, pool.seconds) /
			rate_of(raw.allocs, raw.seconds),
			warm_rate(&c, &pool) / warm_rate(&c, &raw));
	}
	if (sync)
		vgpu_syncobj_destroy(&dev, sync);
	churn_fini(&c);
	vgpu_close(&dev);
	return bench_result(r, ret);
}

const struct bench_suite bench_suite_alloc = {
	.name = "alloc",
	.desc = "caching allocator vs raw BO create/free, training-step churn",
	.run = run,
};
