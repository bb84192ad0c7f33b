// SPDX-License-Identifier: MIT
/*
 * Suite "migrate": how fast memory moves between system memory and VRAM,
 * against a guest memcpy() of the same size in the same run.
 *
 *  - memcpy: the CPU copies the buffer (both sides touched beforehand);
 *  - prefetch_to_vram / prefetch_to_system: PREFETCH of a pageable buffer
 *    (chunks copied by the device's copy engine), the GPU having written
 *    every chunk before it goes home;
 *  - prefetch_clean_to_system: PREFETCH home of chunks the GPU only read:
 *    the device's dirty bits say there is nothing to copy back;
 *  - fault_migrate: the GPU reads one line per 2 MiB chunk of a pageable
 *    buffer, prefetch off: one fault and one migration per chunk;
 *  - fault_migrate_prefetch: the same with automatic prefetch on.
 *
 * seconds is wall time; modeled_s the device's modeled time (hardware.rst
 * "Cost model"): of the kernel ring's copies for PREFETCH, of the job
 * (its stalls included) for the fault rows; memcpy is CPU work, not
 * modeled: its modeled_s is its wall time.  vs_memcpy and modeled_vs_memcpy
 * compare the rates.
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
	{ "method", REPORT_STR, 0 },
	{ "bytes", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 4 },
	{ "mib_per_s", REPORT_F64, 1 },
	{ "vs_memcpy", REPORT_F64, 3 },
	{ "modeled_s", REPORT_F64, 6 },
	{ "modeled_mib_per_s", REPORT_F64, 1 },
	{ "modeled_vs_memcpy", REPORT_F64, 3 },
	{ "faults", REPORT_U64, 0 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* A row; @mt: modeled seconds, @memcpy_rate: MiB/s of the memcpy row. */
static int row(struct report *r, const char *method, uint64_t bytes, double t,
	       double mt, double memcpy_rate, uint64_t faults)
{
	double rate = bytes / t / (1 << 20);
	double mrate = mt > 0 ? bytes / mt / (1 << 20) : 0;

	return report_row(r, method, bytes, t, rate,
			  memcpy_rate > 0 ? rate / memcpy_rate : 1.0, mt, mrate,
			  memcpy_rate > 0 ? mrate / memcpy_rate : 1.0, faults);
}

/* PREFETCH @va to @place, timed: moved bytes, wall and modeled seconds. */
static int timed_prefetch(struct vgpu_dev *dev, uint64_t va, uint64_t size,
			  uint32_t place, uint64_t *moved, double *t, double *mt)
{
	struct drm_vgpu_query_time m0, m1;
	double t0;
	int ret;

	ret = bench_time(dev, &m0);
	t0 = bench_now();
	if (!ret)
		ret = vgpu_prefetch(dev, va, size, place, moved);
	*t = bench_now() - t0;
	if (!ret)
		ret = bench_time(dev, &m1);
	if (!ret)
		*mt = bench_modeled_s(m0.kernel_ns, m1.kernel_ns);
	return ret;
}

static int gpu_run(struct report *r, struct vgpu_dev *dev, uint64_t size,
		   const char *name, bool prefetch_on, double mrate)
{
	struct drm_vgpu_paging_counters c0, c1;
	struct drm_vgpu_query_time m0, m1;
	struct bench_pbo b;
	double t0, t;
	int ret;

	if (bench_set_param("prefetch", prefetch_on ? "1" : "0"))
		return -EACCES;
	ret = bench_pbo_create(dev, size, BENCH_VA + 4 * size, &b);
	if (ret)
		return ret;
	ret = bench_paging(dev, &c0);
	if (!ret)
		ret = bench_time(dev, &m0);
	t0 = bench_now();
	if (!ret)
		ret = bench_touch(dev, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ, b.va,
				  size, 2 * BENCH_MIB, 0, 0);
	t = bench_now() - t0;
	if (!ret)
		ret = bench_paging(dev, &c1);
	if (!ret)
		ret = bench_time(dev, &m1);
	if (!ret)
		ret = row(r, name, c1.bytes_to_vram - c0.bytes_to_vram, t,
			  bench_modeled_s(m0.vm_modeled_ns, m1.vm_modeled_ns),
			  mrate, c1.faults - c0.faults);
	bench_pbo_destroy(dev, &b);
	return ret;
}

static struct report *run(const struct bench_opts *o)
{
	uint64_t size = (o->quick ? o->vram_size / 4 : o->vram_size / 2) & ~(2 * BENCH_MIB - 1);
	struct report *r = report_new("migration throughput", cols, NCOLS);
	char old_pf[8] = "";
	struct vgpu_dev dev;
	struct bench_pbo b;
	uint64_t moved = 0;
	double t0, t, mt = 0, mrate = 0;
	char *src, *dst;
	int ret;

	if (!r)
		return NULL;
	bench_get_param("prefetch", old_pf, sizeof(old_pf));
	bench_set_policy(o->fd, "placement_policy", "migrate");

	/* memcpy, both buffers touched first. */
	src = malloc(size);
	dst = malloc(size);
	ret = src && dst ? 0 : -ENOMEM;
	if (!ret) {
		memset(src, 1, size);
		memset(dst, 2, size);
		t0 = bench_now();
		memcpy(dst, src, size);
		/* Keep the compiler from dropping a copy nobody reads. */
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		t = bench_now() - t0;
		if (dst[size - 1] != 1)
			ret = -EIO;
		mrate = size / t / (1 << 20);
		if (!ret)
			ret = row(r, "memcpy", size, t, t, mrate, 0);
	}
	free(src);
	free(dst);

	if (!ret)
		ret = vgpu_open(&dev);
	if (ret)
		goto out;
	ret = bench_pbo_create(&dev, size, BENCH_VA, &b);
	if (!ret) {
		ret = timed_prefetch(&dev, b.va, size, VGPU_PLACE_VRAM, &moved,
				     &t, &mt);
		if (!ret)
			ret = row(r, "prefetch_to_vram", moved, t, mt, mrate, 0);
		if (!ret)
			ret = timed_prefetch(&dev, b.va, size, VGPU_PLACE_SYSTEM,
					     &moved, &t, &mt);
		if (!ret)
			ret = row(r, "prefetch_clean_to_system", moved, t, mt,
				  mrate, 0);
		/* Back in, written by the GPU: now every chunk is copied home. */
		if (!ret)
			ret = vgpu_prefetch(&dev, b.va, size, VGPU_PLACE_VRAM, &moved);
		if (!ret)
			ret = bench_touch(&dev, 0, VGPU_TOUCH_SEQUENTIAL,
					  VGPU_TOUCH_WRITE, b.va, size, 0, 0, 1);
		if (!ret)
			ret = timed_prefetch(&dev, b.va, size, VGPU_PLACE_SYSTEM,
					     &moved, &t, &mt);
		if (!ret)
			ret = row(r, "prefetch_to_system", moved, t, mt, mrate, 0);
		bench_pbo_destroy(&dev, &b);
	}
	if (!ret)
		ret = gpu_run(r, &dev, size, "fault_migrate", false, mrate);
	if (!ret)
		ret = gpu_run(r, &dev, size, "fault_migrate_prefetch", true, mrate);
	vgpu_close(&dev);
out:
	if (old_pf[0])
		bench_set_param("prefetch", old_pf);
	return bench_result(r, ret);
}

const struct bench_suite bench_suite_migrate = {
	.name = "migrate",
	.desc = "prefetch and fault-driven migration throughput vs guest memcpy",
	.run = run,
};
