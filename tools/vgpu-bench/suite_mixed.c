// SPDX-License-Identifier: MIT
/*
 * Suite "mixed": ordinary BOs and pageable memory in one VRAM pool.
 *
 * For each eviction policy sysfs lists and a footprint of 150 % and
 * 300 % of VRAM, half in ordinary BOs (4 MiB each, VRAM preferred, system
 * allowed) of one client and half in one pageable BO of another client
 * (two files, two VMs: a BO whose VM has a job running is busy and cannot
 * be evicted), the GPU's TOUCH kernel reads 4 MiB pieces, ordinary and
 * pageable in turn.  A pass reads a hot set (the first quarter of the
 * pieces) and then sweeps the other pieces.  The ordinary BOs are created
 * in VRAM (the last ones created are still there when the passes start),
 * the pageable memory starts in system memory.  An evicted ordinary BO
 * comes back whole when its client's next job is submitted; a pageable
 * piece chunk by chunk on GPU faults; either makes room by evicting the
 * pool's coldest units, of both kinds.
 *
 * bytes_to_vram / bytes_to_system are the VM's counters (QUERY_PAGING:
 * whole-BO moves and chunk migrations alike), bytes_moved their sum;
 * bo_evictions and chunk_evictions the pool's victims of each kind
 * (sysfs counters/pool_evictions_*).  vram_hit_ratio is 1 - bytes moved
 * into VRAM / bytes referenced, as in "oversub".
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
	{ "policy", REPORT_STR, 0 },
	{ "oversub_pct", REPORT_U64, 0 },
	{ "footprint_mib", REPORT_U64, 0 },
	{ "bo_mib", REPORT_U64, 0 },
	{ "pageable_mib", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 3 },
	{ "bytes_to_vram", REPORT_U64, 0 },
	{ "bytes_to_system", REPORT_U64, 0 },
	{ "bytes_moved", REPORT_U64, 0 },
	{ "bo_evictions", REPORT_U64, 0 },
	{ "chunk_evictions", REPORT_U64, 0 },
	{ "faults", REPORT_U64, 0 },
	{ "vram_hit_ratio", REPORT_F64, 3 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

#define PIECE		(4 * BENCH_MIB)
#define BO_VA		(1ull << 35)	/* ordinary BOs; pageable at BENCH_VA */

/* The pool's victims so far, per kind. */
static int pool_evictions(int fd, uint64_t *bo, uint64_t *chunk)
{
	return bench_counter(fd, "pool_evictions_bo", bo) ?:
	       bench_counter(fd, "pool_evictions_chunk", chunk);
}

/* The two clients: ordinary BOs in one file (VM), pageable memory in another. */
struct mixed {
	struct vgpu_dev bo_dev, pg_dev;
	uint32_t *bo;
	unsigned int nbo;
	struct bench_pbo pbo;
};

/* Piece @i: even ones are ordinary BOs, odd ones pieces of the pageable BO. */
static int read_piece(struct mixed *m, unsigned int i, uint64_t *ref)
{
	struct vgpu_dev *dev = i % 2 ? &m->pg_dev : &m->bo_dev;
	uint64_t va = i % 2 ? BENCH_VA : BO_VA;

	*ref += PIECE;
	return bench_touch(dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			   va + (uint64_t)(i / 2) * PIECE, PIECE, 0, 0, 0);
}

/* One pass: the hot quarter of the pieces, then the others. */
static int pass(struct mixed *m, uint64_t *ref)
{
	unsigned int i, npieces = 2 * m->nbo, hot = npieces / 4;
	int ret = 0;

	for (i = 0; i < hot && !ret; i++)
		ret = read_piece(m, i, ref);
	for (i = hot; i < npieces && !ret; i++)
		ret = read_piece(m, i, ref);
	return ret;
}

static int mixed_setup(struct mixed *m, uint64_t size)
{
	unsigned int i;
	int ret;

	m->nbo = size / 2 / PIECE;
	m->bo = calloc(m->nbo, sizeof(*m->bo));
	if (!m->bo)
		return -ENOMEM;
	ret = bench_pbo_create(&m->pg_dev, size / 2, BENCH_VA, &m->pbo);
	for (i = 0; i < m->nbo && !ret; i++) {
		struct drm_vgpu_bo_create bc = {
			.size = PIECE, .placements = VGPU_PLACE_ALL,
			.preferred = VGPU_PLACE_VRAM,
		};

		ret = vgpu_bo_create_ex(&m->bo_dev, &bc) ?:
		      vgpu_vm_map(&m->bo_dev, bc.handle, 0, BO_VA + i * PIECE,
				  PIECE, VGPU_MAP_RW);
		m->bo[i] = bc.handle;
	}
	return ret;
}

static void mixed_teardown(struct mixed *m)
{
	unsigned int i;

	for (i = 0; m->bo && i < m->nbo; i++)
		if (m->bo[i])
			vgpu_bo_close(&m->bo_dev, m->bo[i]);
	free(m->bo);
	if (m->pbo.handle)
		bench_pbo_destroy(&m->pg_dev, &m->pbo);
}

/* Both clients' paging counters, added up. */
static int mixed_paging(struct mixed *m, struct drm_vgpu_paging_counters *c)
{
	struct drm_vgpu_paging_counters b;
	int ret;

	ret = bench_paging(&m->bo_dev, c) ?: bench_paging(&m->pg_dev, &b);
	if (!ret) {
		c->bytes_to_vram += b.bytes_to_vram;
		c->bytes_to_system += b.bytes_to_system;
		c->faults += b.faults;
	}
	return ret;
}

static int one(struct report *r, const struct bench_opts *o, const char *policy,
	       unsigned int pct, unsigned int passes)
{
	uint64_t size = (o->vram_size * pct / 100 + 2 * PIECE - 1) & ~(2 * PIECE - 1);
	uint64_t ref = 0, bo0, ch0, bo1, ch1, in, out;
	struct drm_vgpu_paging_counters c0, c1;
	struct mixed m = {};
	unsigned int n;
	double t0, t;
	int ret;

	if (bench_set_policy(o->fd, "eviction_policy", policy) ||
	    bench_set_policy(o->fd, "placement_policy", "migrate") ||
	    bench_set_param("prefetch", "0"))
		return -EACCES;
	/* Fresh files: fresh VMs and their own counters. */
	ret = vgpu_open(&m.bo_dev);
	if (ret)
		return ret;
	ret = vgpu_open(&m.pg_dev);
	if (ret)
		goto out_close_bo;
	ret = mixed_setup(&m, size);
	if (!ret)
		ret = mixed_paging(&m, &c0) ?: pool_evictions(o->fd, &bo0, &ch0);
	t0 = bench_now();
	for (n = 0; n < passes && !ret; n++)
		ret = pass(&m, &ref);
	t = bench_now() - t0;
	if (!ret)
		ret = mixed_paging(&m, &c1) ?: pool_evictions(o->fd, &bo1, &ch1);
	if (!ret) {
		in = c1.bytes_to_vram - c0.bytes_to_vram;
		out = c1.bytes_to_system - c0.bytes_to_system;
		ret = report_row(r, policy, (uint64_t)pct, size >> 20,
				 (size / 2) >> 20, (size / 2) >> 20, t, in, out,
				 in + out, bo1 - bo0, ch1 - ch0,
				 c1.faults - c0.faults,
				 ref > in ? 1.0 - (double)in / ref : 0.0);
		fprintf(stderr, "mixed: %-4s %3u%%: %.2f s\n", policy, pct, t);
	}
	mixed_teardown(&m);
	vgpu_close(&m.pg_dev);
out_close_bo:
	vgpu_close(&m.bo_dev);
	return ret;
}

static struct report *run(const struct bench_opts *o)
{
	static const unsigned int pcts[] = { 150, 300 };
	struct report *r = report_new("One VRAM pool: ordinary BOs and pageable memory",
				      cols, NCOLS);
	struct bench_settings saved;
	unsigned int i, passes = o->quick ? 2 : 3;
	char policies[8][16];
	int ret = 0, npol, pol;

	if (!r)
		return NULL;
	/* Every eviction policy the driver has, as sysfs lists them. */
	npol = bench_policies_begin(o->fd, policies, 8, &saved);
	if (npol < 0)
		return bench_result(r, npol);
	for (pol = 0; pol < npol && !ret; pol++)
		for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]) && !ret; i++)
			ret = one(r, o, policies[pol], pcts[i], passes);
	bench_settings_restore(o->fd, &saved);
	return bench_result(r, ret);
}

const struct bench_suite bench_suite_mixed = {
	.name = "mixed",
	.desc = "ordinary BOs + pageable memory at 150% and 300% of VRAM, per policy",
	.run = run,
};
