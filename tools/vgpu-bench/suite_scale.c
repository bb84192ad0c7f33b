// SPDX-License-Identifier: MIT
/*
 * Suite "scale": does the cost of BO_CREATE, VM_BIND (map and unmap) and
 * GEM_CLOSE stay flat as a client holds more BOs?
 *
 * The client holds @live BOs of 4 KiB, each in VRAM and bound at its own
 * VA, 64 KiB apart (so they spread over many page-table leaves), for
 * @live from 1 to 10,000 (1,000 with --quick).  At each step it times
 * 200 more BOs through their life, one phase at a time: create them all,
 * map them all, unmap them all, close them all.  A step is measured three
 * times and a row reports the median of each phase in ns per call; the
 * _x columns are that over the first row's, so a flat cost reads about
 * 1.0 all the way down.  A real client (a compiler's or a game's) holds
 * thousands of BOs; a cost that grows with them is a lookup that is not
 * a tree or a walk that should not be there.
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
	{ "live_bos", REPORT_U64, 0 },
	{ "calls", REPORT_U64, 0 },
	{ "create_ns", REPORT_F64, 0 },
	{ "map_ns", REPORT_F64, 0 },
	{ "unmap_ns", REPORT_F64, 0 },
	{ "close_ns", REPORT_F64, 0 },
	{ "create_x", REPORT_F64, 2 },
	{ "map_x", REPORT_F64, 2 },
	{ "unmap_x", REPORT_F64, 2 },
	{ "close_x", REPORT_F64, 2 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

#define SCALE_BO	(4 * 1024)
#define SCALE_STRIDE	(64 * 1024)
#define SCALE_CALLS	200
#define SCALE_REPS	3
#define SCALE_MAX	10000

enum { CREATE, MAP, UNMAP, CLOSE, NPHASES };

static const uint32_t place = DRM_VGPU_PLACE_VRAM | DRM_VGPU_PLACE_SYSTEM;

/* The VA of the @i-th BO: held ones first, then the timed ones. */
static uint64_t scale_va(unsigned int i)
{
	return BENCH_VA + (uint64_t)i * SCALE_STRIDE;
}

/* Grows the held set from @from to @to BOs, each created and bound. */
static int hold(struct vgpu_dev *dev, uint32_t *h, unsigned int from,
		unsigned int to)
{
	unsigned int i;
	int ret = 0;

	for (i = from; i < to && !ret; i++) {
		ret = vgpu_bo_create(dev, SCALE_BO, place, 0, &h[i]);
		if (!ret) {
			ret = vgpu_vm_map(dev, h[i], 0, scale_va(i), SCALE_BO, VGPU_MAP_RW);
			if (ret)
				vgpu_bo_close(dev, h[i]);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Times %SCALE_CALLS more BOs through their life, past the held ones. */
static int measure(struct vgpu_dev *dev, double ns[NPHASES])
{
	uint32_t h[SCALE_CALLS];
	unsigned int i, n = 0;
	double t;
	int ret = 0;

	t = bench_now();
	for (; n < SCALE_CALLS && !ret; n++)
		ret = vgpu_bo_create(dev, SCALE_BO, place, 0, &h[n]);
	if (ret)
		n--;
	ns[CREATE] = (bench_now() - t) * 1e9 / SCALE_CALLS;
	t = bench_now();
	for (i = 0; i < n && !ret; i++)
		ret = vgpu_vm_map(dev, h[i], 0, scale_va(SCALE_MAX + i), SCALE_BO,
				  VGPU_MAP_RW);
	ns[MAP] = (bench_now() - t) * 1e9 / SCALE_CALLS;
	t = bench_now();
	for (i = 0; i < n && !ret; i++)
		ret = vgpu_vm_unmap(dev, scale_va(SCALE_MAX + i), SCALE_BO);
	ns[UNMAP] = (bench_now() - t) * 1e9 / SCALE_CALLS;
	t = bench_now();
	for (i = 0; i < n; i++)
		if (vgpu_bo_close(dev, h[i]) && !ret)
			ret = -EIO;
	ns[CLOSE] = (bench_now() - t) * 1e9 / SCALE_CALLS;
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct report *run(const struct bench_opts *o)
{
	static const unsigned int steps[] = { 1, 10, 100, 1000, 10000 };
	unsigned int nsteps = o->quick ? 4 : 5, s, p, k, held = 0;
	struct report *r = report_new("BO and VM_BIND cost against BOs held", cols, NCOLS);
	double first[NPHASES] = { 0 };
	struct vgpu_dev dev;
	uint32_t *h;
	int ret;

	h = calloc(SCALE_MAX, sizeof(*h));
	if (!r || !h) {
		free(h);
		report_free(r);
		errno = ENOMEM;
		return NULL;
	}
	ret = vgpu_open(&dev);
	if (ret)
		goto out_free;
	ret = measure(&dev, first);	/* warm-up: the first calls fill caches */
	for (s = 0; s < nsteps && !ret; s++) {
		double reps[NPHASES][SCALE_REPS], med[NPHASES];

		ret = hold(&dev, h, held, steps[s]);
		if (ret)
			break;
		held = steps[s];
		for (k = 0; k < SCALE_REPS && !ret; k++) {
			double ns[NPHASES];

			ret = measure(&dev, ns);
			for (p = 0; p < NPHASES; p++)
				reps[p][k] = ns[p];
		}
		if (ret)
			break;
		for (p = 0; p < NPHASES; p++) {
			qsort(reps[p], SCALE_REPS, sizeof(double), cmp_double);
			med[p] = reps[p][SCALE_REPS / 2];
			if (!s)
				first[p] = med[p];
		}
		ret = report_row(r, (uint64_t)held, (uint64_t)SCALE_CALLS,
				 med[CREATE], med[MAP], med[UNMAP], med[CLOSE],
				 med[CREATE] / first[CREATE], med[MAP] / first[MAP],
				 med[UNMAP] / first[UNMAP], med[CLOSE] / first[CLOSE]);
	}
	for (k = 0; k < held; k++) {
		vgpu_vm_unmap(&dev, scale_va(k), SCALE_BO);
		vgpu_bo_close(&dev, h[k]);
	}
	vgpu_close(&dev);
out_free:
	free(h);
	if (ret) {
		report_free(r);
		errno = ret < 0 ? -ret : ret;
		return NULL;
	}
	return r;
}

const struct bench_suite bench_suite_scale = {
	.name = "scale",
	.desc = "BO_CREATE, VM_BIND and GEM_CLOSE cost against BOs held",
	.run = run,
};
