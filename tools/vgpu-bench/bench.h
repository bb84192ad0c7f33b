/* SPDX-License-Identifier: MIT */
/*
 * vgpu-bench: suites and what they share.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_BENCH_H
#define VGPU_BENCH_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "report.h"

/**
 * struct bench_opts - command-line options every suite sees
 * @fd: the vgpu render node
 * @quick: smaller sweeps (for CI and make demo)
 * @vram_size: the device's VRAM size in bytes
 * @vram_base: what the sweep suites (bfs, gemm) take footprints as
 *	percentages of: --vram-base, or 0 for @vram_size.  On a device
 *	larger than the base they run the same problems without
 *	oversubscription: the fitting runs of a smaller device's sweep.
 */
struct bench_opts {
	int fd;
	bool quick;
	uint64_t vram_size;
	uint64_t vram_base;
};

/**
 * bench_parse_size() - a number with an optional K, M or G suffix
 * @s: the text (decimal or 0x hex, no sign)
 * @v: out, the value (powers of 1024 for the suffixes)
 *
 * Return: 0, or -EINVAL for anything else or an overflow.
 */
int bench_parse_size(const char *s, uint64_t *v);

/**
 * struct bench_suite - one benchmark suite
 * @name: name on the command line and in the CSV file name
 * @desc: one line for --list
 * @run: fills a new report; returns it, or NULL with errno set
 */
struct bench_suite {
	const char *name;
	const char *desc;
	struct report *(*run)(const struct bench_opts *o);
};

/* Monotonic time in seconds. */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * A suite's return value: @r when @ret is 0; otherwise frees @r and
 * returns NULL with errno set to -@ret.
 */
static inline struct report *bench_result(struct report *r, int ret)
{
	if (!ret)
		return r;
	report_free(r);
	errno = -ret;
	return NULL;
}

/*
 * vgpu-bench replay: the report of the trace at @path (replay.c), or NULL
 * with errno set.
 */
struct report *bench_replay(const struct bench_opts *o, const char *path);
/* vgpu-bench gen-trace (argv[0] is "gen-trace"): the exit status. */
int bench_gen_trace(int argc, char **argv);

extern const struct bench_suite bench_suite_ioctl;
extern const struct bench_suite bench_suite_oversub;
extern const struct bench_suite bench_suite_batching;
extern const struct bench_suite bench_suite_migrate;
extern const struct bench_suite bench_suite_mixed;
extern const struct bench_suite bench_suite_alloc;
extern const struct bench_suite bench_suite_bfs;
extern const struct bench_suite bench_suite_gemm;
extern const struct bench_suite bench_suite_scale;

#endif /* VGPU_BENCH_H */
