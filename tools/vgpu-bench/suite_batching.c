// SPDX-License-Identifier: MIT
/*
 * Suite "batching": the cost of a GPU fault with the fault batch limit at
 * 1 and at 256 (module parameter vgpu.fault_batch_limit).
 *
 * Every exec queue reads a pageable buffer at once, so faults arrive
 * together, and each queue's TOUCH runs either as one lane (one fault
 * outstanding per queue: batches hold at most one record per queue) or as
 * every lane of the device (DRM_VGPU_PARAM_LANES, as a GPU kernel's warps:
 * each lane faults on its own part, so a batch fills with the records of
 * every lane of every queue; hardware.rst, "Lanes"):
 *
 *  - shared: all queues read the same buffer (one kernel's input read by
 *    several engines): a batch merges their faults on a chunk into one
 *    resolution, without a batch every record is resolved on its own;
 *  - private: each queue reads its own part: faults on different chunks.
 *
 * The buffers fit in VRAM together (three quarters of it at most, two
 * MiB per queue at least): the suite measures the fault path, not
 * eviction.
 *
 * seconds is wall time; modeled_s the device's modeled time (hardware.rst
 * "Cost model") of the slowest queue: they run side by side.
 *
 * ns_per_fault is the fault thread's time (fault_ns) divided by the fault
 * records it handled: reading, sorting and resolving records, evictions,
 * TLB invalidations, submitting the copies, mapping, replaying — what
 * batching amortises.  It does not include the waits for the chunk
 * copies (the thread resolves the next batch while the copy engine
 * copies, paging.rst "Fault batching"): wait_ns_per_fault is that wait
 * (counters/fault_copy_wait_ns), the part of the copies the thread found
 * still running, and total_ns_per_fault the sum of both.  The copies
 * move each fault's chunk, the same bytes at any limit, bound by the
 * host's memory bandwidth under TCG.  Under TCG on a shared host these
 * times swing from run to run with what else the host runs, so each
 * scenario and limit is measured several times, interleaved (each
 * scenario and lane count at limit 1 then 256, and again), and a row
 * reports the median run (by ns_per_fault) with the fastest and slowest
 * beside it; speedup is the median at limit 1 over the row's median,
 * for the same scenario and lanes, and total_speedup the same for
 * total_ns_per_fault.  A warm-up run of the private scenario comes first
 * and is not reported (the host backs VRAM lazily).  The buffer's system
 * pages are allocated (by CPU stores) before the measurement: otherwise
 * the first fault populates the whole buffer, and that cost, the same at
 * every limit, is most of what is measured.
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
	{ "scenario", REPORT_STR, 0 },
	{ "lanes", REPORT_U64, 0 },
	{ "batch_limit", REPORT_U64, 0 },
	{ "queues", REPORT_U64, 0 },
	{ "runs", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 3 },
	{ "modeled_s", REPORT_F64, 4 },
	{ "faults", REPORT_U64, 0 },
	{ "fault_batches", REPORT_U64, 0 },
	{ "duplicates", REPORT_U64, 0 },
	{ "resolved", REPORT_U64, 0 },
	{ "bytes_migrated", REPORT_U64, 0 },
	{ "fault_ns", REPORT_U64, 0 },
	{ "ns_per_fault", REPORT_F64, 0 },
	{ "min_ns_per_fault", REPORT_F64, 0 },
	{ "max_ns_per_fault", REPORT_F64, 0 },
	{ "speedup", REPORT_F64, 2 },
	{ "wait_ns_per_fault", REPORT_F64, 0 },
	{ "total_ns_per_fault", REPORT_F64, 0 },
	{ "total_speedup", REPORT_F64, 2 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

#define MAX_RUNS 5

/* One measurement: what a run of one scenario at one limit gave. */
struct sample {
	unsigned int queues, lanes;
	double seconds, modeled_s;
	uint64_t faults, batches, duplicates, resolved, bytes, ns, wait;
	double ns_per_fault;
};

static int cmp_sample(const void *a, const void *b)
{
	double x = ((const struct sample *)a)->ns_per_fault;
	double y = ((const struct sample *)b)->ns_per_fault;

	return (x > y) - (x < y);
}

/* Bytes per queue: the queues' buffers fit in three quarters of VRAM. */
static uint64_t queue_bytes(const struct bench_opts *o, unsigned int nq)
{
	uint64_t size = o->vram_size * 3 / 4 / nq / (2 * BENCH_MIB) * 2 * BENCH_MIB;
	uint64_t cap = (o->quick ? 32 : 96) * BENCH_MIB;

	if (size > cap)
		size = cap;
	return size > 2 * BENCH_MIB ? size : 2 * BENCH_MIB;
}

/* One run; @lanes the TOUCHes' launch width (0: every lane). */
static int one(struct sample *out, const struct bench_opts *o, bool shared,
	       unsigned int lanes, unsigned int limit)
{
	struct drm_vgpu_paging_counters c0, c1;
	struct drm_vgpu_query_time m0, m1;
	uint64_t w0 = 0, w1 = 0, size, dev_lanes = lanes;
	uint32_t sync[8], q, nq;
	uint64_t slowest = 0;
	struct vgpu_cmd cmd;
	struct vgpu_dev dev;
	struct bench_pbo b;
	char buf[16];
	double t0, t;
	int ret;

	snprintf(buf, sizeof(buf), "%u", limit);
	if (bench_set_param("fault_batch_limit", buf) || bench_set_param("prefetch", "0") ||
	    bench_set_policy(o->fd, "placement_policy", "migrate"))
		return -EACCES;
	ret = vgpu_open(&dev);
	if (ret)
		return ret;
	nq = dev.exec_queues < 8 ? dev.exec_queues : 8;
	size = queue_bytes(o, nq);
	if (!lanes && vgpu_get_param(&dev, DRM_VGPU_PARAM_LANES, &dev_lanes))
		dev_lanes = 1;
	ret = bench_pbo_create(&dev, shared ? size : size * nq, BENCH_VA, &b);
	if (ret)
		goto out_close;
	vgpu_cmd_init(&cmd);
	ret = bench_pbo_populate(&dev, &b);
	if (!ret)
		ret = bench_paging(&dev, &c0);
	if (!ret)
		ret = bench_time(&dev, &m0);
	if (!ret)
		ret = bench_counter(o->fd, "fault_copy_wait_ns", &w0);
	t0 = bench_now();
	for (q = 0; q < nq && !ret; q++) {
		uint64_t va = shared ? b.va : b.va + q * size;

		ret = vgpu_syncobj_create(&dev, &sync[q]);
		vgpu_cmd_reset(&cmd);
		/* One line every 64 KiB: the faults, not the touching, dominate. */
		vgpu_cmd_touch_lanes(&cmd, lanes, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
				     va, size, 64 * 1024, 0, 0, 1);
		if (!ret)
			ret = vgpu_submit(&dev, q, &cmd, NULL, 0, sync[q]);
	}
	for (q = 0; q < nq && !ret; q++) {
		ret = vgpu_syncobj_wait(&dev, sync[q], 600ll * 1000000000ll);
		if (!ret && vgpu_syncobj_status(&dev, sync[q]) != 1)
			ret = -EIO;
	}
	t = bench_now() - t0;
	vgpu_cmd_fini(&cmd);
	if (!ret)
		ret = bench_paging(&dev, &c1);
	if (!ret)
		ret = bench_time(&dev, &m1);
	if (!ret)
		ret = bench_counter(o->fd, "fault_copy_wait_ns", &w1);
	for (q = 0; q < nq && q < m1.num_queues; q++)
		if (m1.queue_ns[q] - m0.queue_ns[q] > slowest)
			slowest = m1.queue_ns[q] - m0.queue_ns[q];
	if (!ret) {
		uint64_t faults = c1.faults - c0.faults, ns = c1.fault_ns - c0.fault_ns;

		*out = (struct sample){
			.queues = nq, .lanes = dev_lanes, .seconds = t, .faults = faults,
			.batches = c1.fault_batches - c0.fault_batches,
			.duplicates = c1.fault_duplicates - c0.fault_duplicates,
			.resolved = c1.faults_resolved - c0.faults_resolved,
			.bytes = c1.bytes_to_vram - c0.bytes_to_vram, .ns = ns,
			.wait = w1 - w0,
			.ns_per_fault = faults ? (double)ns / faults : 0.0,
			.modeled_s = bench_modeled_s(0, slowest),
		};
	}
	bench_pbo_destroy(&dev, &b);
out_close:
	vgpu_close(&dev);
	return ret;
}

static struct report *run(const struct bench_opts *o)
{
	static const unsigned int limits[] = { 1, 256 }, widths[] = { 1, 0 };
	struct report *r = report_new("fault batching: cost per fault", cols, NCOLS);
	static struct sample smp[2][2][2][MAX_RUNS];
	unsigned int runs = o->quick ? 3 : MAX_RUNS;
	char old_limit[16] = "", old_pf[8] = "";
	unsigned int s, w, i, n;
	int ret = 0;

	if (!r)
		return NULL;
	bench_get_param("fault_batch_limit", old_limit, sizeof(old_limit));
	bench_get_param("prefetch", old_pf, sizeof(old_pf));
	/*
	 * Warm-up, not reported: the host backs VRAM lazily, and the first
	 * run into each part of it pays the host's page faults (up to 4 ms
	 * per fault at 256 MiB of VRAM, ten times a warm one).
	 */
	ret = one(&smp[1][0][0][0], o, false, 1, 256);
	for (n = 0; n < runs && !ret; n++)
		for (s = 0; s < 2 && !ret; s++)
			for (w = 0; w < 2 && !ret; w++)
				for (i = 0; i < 2 && !ret; i++)
					ret = one(&smp[s][w][i][n], o, s == 0, widths[w],
						  limits[i]);
	for (s = 0; s < 4 && !ret; s++) {
		double base = 0, tbase = 0;

		for (i = 0; i < 2 && !ret; i++) {
			struct sample *v = smp[s / 2][s % 2][i], *m = &v[runs / 2];
			double wait, total;

			qsort(v, runs, sizeof(*v), cmp_sample);
			wait = m->faults ? (double)m->wait / m->faults : 0.0;
			total = m->ns_per_fault + wait;
			if (!i) {
				base = m->ns_per_fault;
				tbase = total;
			}
			ret = report_row(r, s < 2 ? "shared" : "private",
					 (uint64_t)m->lanes, (uint64_t)limits[i],
					 (uint64_t)m->queues,
					 (uint64_t)runs, m->seconds, m->modeled_s, m->faults,
					 m->batches, m->duplicates, m->resolved,
					 m->bytes, m->ns, m->ns_per_fault,
					 v[0].ns_per_fault, v[runs - 1].ns_per_fault,
					 m->ns_per_fault ? base / m->ns_per_fault : 0.0,
					 wait, total, total ? tbase / total : 0.0);
		}
	}
	if (old_limit[0])
		bench_set_param("fault_batch_limit", old_limit);
	if (old_pf[0])
		bench_set_param("prefetch", old_pf);
	return bench_result(r, ret);
}

const struct bench_suite bench_suite_batching = {
	.name = "batching",
	.desc = "GPU fault cost with fault_batch_limit 1 and 256",
	.run = run,
};
