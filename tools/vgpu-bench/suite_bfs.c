// SPDX-License-Identifier: MIT
/*
 * Suite "bfs": a breadth-first search over a random graph whose vertex
 * data lives in demand-paged memory, the GPU's traffic data-dependent as
 * in graph analytics (hardware.rst "Access kernels").
 *
 * The graph has one 64-byte record per vertex, filling the BO, and a
 * fixed out-degree (8; 4 with --quick), each neighbour a hash of the
 * vertex and the edge's number: uniformly random, so the search reaches
 * nearly every vertex in a few levels.  The CPU runs the search's control
 * (frontiers, the visited set); the GPU does its memory work, level by
 * level: a GATHER of the records of every neighbour of the frontier (the
 * search reads each neighbour's state), then a SCATTER of the level
 * number into the first dword of each newly visited record.  Each job
 * takes at most 2^20 indices.  An access is one gathered or scattered
 * element.  Columns: bench_sweep.c.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sweep.h"

#define REC_SHIFT	6			/* 64-byte vertex records */
#define BATCH		(1u << 20)		/* indices per job */
#define IDX_VA		BENCH_AUX_VA
#define LEVEL_VA	(BENCH_AUX_VA + (64ull << 20))

/* Neighbour @j of vertex @v among @n: a 64-bit mix (splitmix64). */
static uint64_t neighbour(uint64_t v, uint32_t j, uint32_t degree, uint64_t n)
{
	uint64_t x = (v * degree + j + 1) * 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (x ^ (x >> 31)) % n;
}

/* The indices of one job in the making, and what flushing them runs. */
struct batch {
	struct vgpu_dev *dev;
	struct bench_sbo idx;		/* BATCH indices */
	struct bench_sbo level;		/* BATCH copies of the level */
	uint32_t n;
	uint64_t vertices;
	uint64_t base;
	uint64_t *accesses;
};

/* Run the batch: GATHER of records, or SCATTER of the level (@scatter). */
static int flush(struct batch *b, bool scatter)
{
	struct vgpu_cmd cmd;
	int ret;

	if (!b->n)
		return 0;
	vgpu_cmd_init(&cmd);
	if (scatter)	/* 4-byte elements: record v's first dword is 16 v */
		vgpu_cmd_scatter(&cmd, 2, b->idx.va, b->n, b->base,
				 b->vertices << (REC_SHIFT - 2), b->level.va);
	else
		vgpu_cmd_gather(&cmd, REC_SHIFT, b->idx.va, b->n, b->base,
				b->vertices, 0);
	ret = bench_run_cmd(b->dev, &cmd);
	vgpu_cmd_fini(&cmd);
	*b->accesses += b->n;
	b->n = 0;
	return ret;
}

static int add(struct batch *b, uint32_t index, bool scatter)
{
	((uint32_t *)b->idx.cpu)[b->n++] = index;
	return b->n == BATCH ? flush(b, scatter) : 0;
}

/* One level: gather the frontier's neighbours, note the new ones. */
static int level(struct batch *b, const uint32_t *front, uint64_t nf,
		 uint32_t *next, uint64_t *nn, uint8_t *seen, uint32_t degree)
{
	uint64_t i, u;
	uint32_t j;
	int ret = 0;

	*nn = 0;
	for (i = 0; i < nf && !ret; i++) {
		for (j = 0; j < degree && !ret; j++) {
			u = neighbour(front[i], j, degree, b->vertices);
			ret = add(b, u, false);
			if (!(seen[u / 8] & 1u << u % 8)) {
				seen[u / 8] |= 1u << u % 8;
				next[(*nn)++] = u;
			}
		}
	}
	return ret ?: flush(b, false);
}

/* The newly visited records get their level number, by SCATTER. */
static int visit(struct batch *b, const uint32_t *next, uint64_t nn, uint32_t lvl)
{
	uint32_t *val = b->level.cpu;
	uint64_t i;
	int ret = 0;

	for (i = 0; i < BATCH; i++)
		val[i] = lvl;
	for (i = 0; i < nn && !ret; i++)
		ret = add(b, next[i] << (REC_SHIFT - 2), true);
	return ret ?: flush(b, true);
}

static int bfs(struct vgpu_dev *dev, const struct bench_pbo *pbo,
	       const struct bench_opts *o, uint64_t *accesses)
{
	uint32_t degree = o->quick ? 4 : 8, lvl;
	struct batch b = {
		.dev = dev, .vertices = pbo->size >> REC_SHIFT, .base = pbo->va,
		.accesses = accesses,
	};
	uint32_t *front = calloc(b.vertices, sizeof(*front));
	uint32_t *next = calloc(b.vertices, sizeof(*next));
	uint8_t *seen = calloc(b.vertices / 8 + 1, 1);
	uint64_t nf = 1, nn;
	int ret = front && next && seen ? 0 : -ENOMEM;

	if (!ret)
		ret = bench_sbo_create(dev, BATCH * 4ull, IDX_VA, &b.idx);
	if (!ret) {
		ret = bench_sbo_create(dev, BATCH * 4ull, LEVEL_VA, &b.level);
		if (ret)
			bench_sbo_destroy(dev, &b.idx);
	}
	if (ret)
		goto out;
	seen[0] = 1;
	for (lvl = 1; nf && !ret; lvl++) {
		ret = level(&b, front, nf, next, &nn, seen, degree);
		if (!ret)
			ret = visit(&b, next, nn, lvl);
		memcpy(front, next, nn * sizeof(*next));
		nf = nn;
	}
	bench_sbo_destroy(dev, &b.level);
	bench_sbo_destroy(dev, &b.idx);
out:
	free(front);
	free(next);
	free(seen);
	return ret;
}

static uint64_t bfs_size(uint64_t bytes)
{
	return (bytes + 2 * BENCH_MIB - 1) & ~(2 * BENCH_MIB - 1);
}

static struct report *run(const struct bench_opts *o)
{
	return bench_sweep(o, "BFS on a random graph (GATHER, SCATTER)", bfs_size, bfs);
}

const struct bench_suite bench_suite_bfs = {
	.name = "bfs",
	.desc = "BFS-like GATHER/SCATTER over a random graph, 50..200% of VRAM",
	.run = run,
};
