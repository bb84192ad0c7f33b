/* SPDX-License-Identifier: MIT */
/*
 * The footprint sweep the workload suites (bfs, gemm) share: a workload
 * runs over a demand-paged BO of 50 % of VRAM (it fits) and of more, each
 * run in a fresh file, with its counters and modeled time reported beside
 * the fitting run's.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_BENCH_SWEEP_H
#define VGPU_BENCH_SWEEP_H

#include <stdint.h>

#include "bench.h"
#include "bench_paging.h"

/* Where the workloads map their system-memory buffers: below BENCH_VA. */
#define BENCH_AUX_VA	(BENCH_VA - (1ull << 32))

/**
 * typedef bench_work_fn - one run of a workload
 * @dev: a fresh file (VM)
 * @b: the demand-paged BO the workload's data lives in (at BENCH_VA)
 * @o: the suite's options
 * @accesses: out, the device accesses it made (elements or lines)
 *
 * Return: 0 or a negative errno.
 */
typedef int (*bench_work_fn)(struct vgpu_dev *dev, const struct bench_pbo *b,
			     const struct bench_opts *o, uint64_t *accesses);

/*
 * Run @work at each footprint (percent of VRAM, the first one fitting),
 * @size_of giving the BO size it needs near a footprint of @bytes.
 */
struct report *bench_sweep(const struct bench_opts *o, const char *title,
			   uint64_t (*size_of)(uint64_t bytes), bench_work_fn work);

/**
 * struct bench_sbo - a system-memory BO mapped for the GPU and the CPU
 * @handle: GEM handle
 * @size: bytes
 * @va: GPU VA
 * @cpu: CPU mapping
 */
struct bench_sbo {
	uint32_t handle;
	uint64_t size;
	uint64_t va;
	void *cpu;
};

int bench_sbo_create(struct vgpu_dev *dev, uint64_t size, uint64_t va,
		     struct bench_sbo *s);
void bench_sbo_destroy(struct vgpu_dev *dev, struct bench_sbo *s);

/* An EXEC of @cmd on queue 0, waited for (two minutes at most). */
int bench_run_cmd(struct vgpu_dev *dev, struct vgpu_cmd *cmd);

#endif /* VGPU_BENCH_SWEEP_H */
