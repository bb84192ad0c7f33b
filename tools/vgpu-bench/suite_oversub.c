// SPDX-License-Identifier: MIT
/*
 * Suite "oversub": VRAM oversubscription with pageable memory.
 *
 * For each access pattern, eviction policy and prefetch setting, a
 * pageable BO of 50 .. 400 % of VRAM is walked by the GPU's TOUCH kernel
 * (reads) for a few passes, starting with every byte in system memory.
 * Patterns:
 *
 *  - sequential: every 64-byte line, in order, a cyclic sweep;
 *  - strided: one line every 64 KiB, the even 2 MiB chunks, then the odd
 *    ones (a stride-2 chunk stream);
 *  - random: as many random lines per pass as there are 64 KiB blocks;
 *  - scan: scan-polluted: a hot set of half of VRAM (or half the
 *    footprint) read between segments of a streaming scan over the rest,
 *    3/4 of VRAM per segment.
 *
 * seconds is wall time; modeled_s the device's modeled time of the same
 * jobs under its cost model (hardware.rst "Cost model": the TOUCH work,
 * and each fault stall's service and the copies made meanwhile), what a
 * GPU behind the modeled link would take.
 *
 * prefetch_wasted_bytes is what prefetch brought in and eviction threw
 * out before the GPU touched it (the device's counter: it is counted as
 * the chunks go, whichever VM brought them in).
 *
 * vram_hit_ratio is 1 - bytes moved into VRAM / bytes referenced, where a
 * TOUCH references the whole range it covers: the share of the data the
 * GPU found in VRAM without a migration.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench_paging.h"

static const struct report_col cols[] = {
	{ "pattern", REPORT_STR, 0 },
	{ "policy", REPORT_STR, 0 },
	{ "prefetch", REPORT_U64, 0 },
	{ "oversub_pct", REPORT_U64, 0 },
	{ "footprint_mib", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 3 },
	{ "modeled_s", REPORT_F64, 4 },
	{ "faults", REPORT_U64, 0 },
	{ "fault_batches", REPORT_U64, 0 },
	{ "bytes_migrated", REPORT_U64, 0 },
	{ "evictions", REPORT_U64, 0 },
	{ "prefetch_bytes", REPORT_U64, 0 },
	{ "prefetch_wasted_bytes", REPORT_U64, 0 },
	{ "thrash_events", REPORT_U64, 0 },
	{ "remote_maps", REPORT_U64, 0 },
	{ "vram_hit_ratio", REPORT_F64, 3 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

enum pattern { SEQUENTIAL, STRIDED, RANDOM, SCAN };
static const char *const pattern_names[] = { "sequential", "strided", "random", "scan" };

#define CHUNK	(2 * BENCH_MIB)
#define PIECE	(64 * BENCH_MIB)	/* bytes per TOUCH job, keeps jobs short */

/* One pass of @p over @b; adds the bytes it references to *@ref. */
static int pass(struct vgpu_dev *dev, const struct bench_pbo *b, enum pattern p,
		uint64_t vram, unsigned int n, uint64_t *ref)
{
	uint64_t off, hot, seg, scan_len, s;
	int ret = 0;

	switch (p) {
	case SEQUENTIAL:
		for (off = 0; off < b->size && !ret; off += PIECE) {
			s = b->size - off < PIECE ? b->size - off : PIECE;
			ret = bench_touch(dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
					  b->va + off, s, 0, 0, 0);
			*ref += s;
		}
		return ret;
	case STRIDED:
		for (off = 0; off < 2 * CHUNK && !ret; off += CHUNK) {
			ret = bench_touch(dev, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
					  b->va + off, b->size - off, 2 * CHUNK, 0, 0);
			if (ret)
				break;
			/* 64 KiB apart inside each chunk: 32 lines per chunk. */
			for (s = 64 * 1024; s < CHUNK && !ret; s += 64 * 1024)
				ret = bench_touch(dev, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
						  b->va + off + s, b->size - off - s,
						  2 * CHUNK, 0, 0);
		}
		*ref += b->size;
		return ret;
	case RANDOM:
		/* Jobs of 512 accesses: a thrashing job must stay under the job timeout. */
		for (off = 0; off < b->size / (64 * 1024) && !ret; off += 512)
			ret = bench_touch(dev, 0, VGPU_TOUCH_RANDOM, VGPU_TOUCH_READ,
					  b->va, b->size, 0, 512,
					  1000 + n * 100000 + off);
		*ref += b->size;
		return ret;
	case SCAN:
		hot = (vram / 2 < b->size / 2 ? vram / 2 : b->size / 2) & ~(CHUNK - 1);
		scan_len = b->size - hot;
		seg = (vram * 3 / 4) & ~(CHUNK - 1);
		if (seg > scan_len)
			seg = scan_len;
		/* As many rounds as it takes the scan to cover its region. */
		for (off = 0; off < scan_len && !ret; off += seg) {
			s = scan_len - off < seg ? scan_len - off : seg;
			ret = bench_touch(dev, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
					  b->va, hot, 64 * 1024, 0, 0);
			if (!ret)
				ret = bench_touch(dev, 0, VGPU_TOUCH_STRIDED,
						  VGPU_TOUCH_READ, b->va + hot + off,
						  s, 64 * 1024, 0, 0);
			*ref += hot + s;
		}
		return ret;
	}
	return -EINVAL;
}

static int one(struct report *r, const struct bench_opts *o, enum pattern p,
	       const char *policy, int prefetch, unsigned int pct, unsigned int passes)
{
	uint64_t size = (o->vram_size * pct / 100 + CHUNK - 1) & ~(CHUNK - 1);
	struct drm_vgpu_paging_counters c0, c1;
	struct drm_vgpu_query_time m0, m1;
	struct vgpu_dev dev;
	struct bench_pbo b;
	uint64_t ref = 0, moved;
	unsigned int n;
	double t0, t;
	int ret;

	if (bench_set_policy(o->fd, "eviction_policy", policy) ||
	    bench_set_policy(o->fd, "placement_policy", "migrate") ||
	    bench_set_param("prefetch", prefetch ? "1" : "0"))
		return -EACCES;
	/* A fresh file: a fresh VM and its own counters. */
	ret = vgpu_open(&dev);
	if (ret)
		return ret;
	ret = bench_pbo_create(&dev, size, BENCH_VA, &b);
	if (ret)
		goto out_close;
	ret = bench_paging(&dev, &c0);
	if (!ret)
		ret = bench_time(&dev, &m0);
	t0 = bench_now();
	for (n = 0; n < passes && !ret; n++)
		ret = pass(&dev, &b, p, o->vram_size, n, &ref);
	t = bench_now() - t0;
	if (!ret)
		ret = bench_paging(&dev, &c1);
	if (!ret)
		ret = bench_time(&dev, &m1);
	if (!ret) {
		moved = c1.bytes_to_vram - c0.bytes_to_vram;
		ret = report_row(r, pattern_names[p], policy, (uint64_t)prefetch,
				 (uint64_t)pct, size >> 20, t,
				 bench_modeled_s(m0.vm_modeled_ns, m1.vm_modeled_ns),
				 c1.faults - c0.faults,
				 c1.fault_batches - c0.fault_batches, moved,
				 c1.evictions - c0.evictions,
				 c1.prefetch_bytes - c0.prefetch_bytes,
				 c1.prefetch_wasted_bytes - c0.prefetch_wasted_bytes,
				 c1.thrash_events - c0.thrash_events,
				 c1.remote_maps - c0.remote_maps,
				 ref > moved ? 1.0 - (double)moved / ref : 0.0);
		fprintf(stderr, "oversub: %-10s %-4s prefetch %d %3u%%: %.2f s, "
			"modeled %.4f s\n", pattern_names[p], policy, prefetch, pct,
			t, bench_modeled_s(m0.vm_modeled_ns, m1.vm_modeled_ns));
	}
	bench_pbo_destroy(&dev, &b);
out_close:
	vgpu_close(&dev);
	return ret;
}

static struct report *run(const struct bench_opts *o)
{
	static const unsigned int full_pcts[] = { 50, 100, 110, 125, 150, 200, 400 };
	static const unsigned int quick_pcts[] = { 50, 125, 200 };
	const unsigned int *pcts = o->quick ? quick_pcts : full_pcts;
	unsigned int npcts = o->quick ? 3 : 7, passes = o->quick ? 2 : 3;
	struct report *r = report_new("VRAM oversubscription (pageable memory)", cols, NCOLS);
	struct bench_settings saved;
	char policies[8][16];
	unsigned int p, pf, i;
	int ret = 0, npol, pol;

	if (!r)
		return NULL;
	/* Every eviction policy the driver has, as sysfs lists them. */
	npol = bench_policies_begin(o->fd, policies, 8, &saved);
	if (npol < 0)
		return bench_result(r, npol);
	for (p = 0; p < 4 && !ret; p++) {
		/* --quick: the two patterns that tell the policies apart. */
		if (o->quick && (p == STRIDED || p == RANDOM))
			continue;
		for (pol = 0; pol < npol && !ret; pol++)
			for (pf = 0; pf < 2 && !ret; pf++)
				for (i = 0; i < npcts && !ret; i++)
					ret = one(r, o, p, policies[pol], pf, pcts[i], passes);
	}
	bench_settings_restore(o->fd, &saved);
	return bench_result(r, ret);
}

const struct bench_suite bench_suite_oversub = {
	.name = "oversub",
	.desc = "oversubscription sweep: patterns x policies x prefetch, 50..400% of VRAM",
	.run = run,
};
