// SPDX-License-Identifier: MIT
/*
 * vgpu-bench gen-trace KIND [OPTION...]: write a generated trace
 * (trace_gen.h) to stdout.  Runs anywhere: it needs no device.
 *
 *   --footprint BYTES[K|M|G]  the data's size (default 96M)
 *   --seed N                  random choices (default 1)
 *   --queues N                queues to spread the work over (default 1)
 *   --compute-ns N            compute time per unit of work (default 0)
 *   --vertices N, --degree N  bfs (default 4096, 8)
 *   --tiles N                 gemm: tiles across (default 4)
 *   --layers N, --steps N     train (default 8, 3)
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "trace_gen.h"

static int parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (bench_parse_size(s, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vgpu-bench gen-trace bfs|gemm|train [--footprint BYTES[K|M|G]]\n"
		"         [--seed N] [--queues N] [--compute-ns N] [--vertices N] [--degree N]\n"
		"         [--tiles N] [--layers N] [--steps N]\n");
}

int bench_gen_trace(int argc, char **argv)
{
	struct trace_gen_opts o;
	const char *kind;
	struct trace t;
	int i, ret = 0;

	trace_gen_defaults(&o);
	if (argc < 2 || argv[1][0] == '-') {
		usage(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	kind = argv[1];
	for (i = 2; i < argc && !ret; i += 2) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val)
			ret = -EINVAL;
		else if (!strcmp(opt, "--footprint"))
			ret = bench_parse_size(val, &o.footprint);
		else if (!strcmp(opt, "--seed"))
			ret = bench_parse_size(val, &o.seed);
		else if (!strcmp(opt, "--compute-ns"))
			ret = bench_parse_size(val, &o.compute_ns);
		else if (!strcmp(opt, "--queues"))
			ret = parse_u32(val, &o.queues);
		else if (!strcmp(opt, "--vertices"))
			ret = parse_u32(val, &o.vertices);
		else if (!strcmp(opt, "--degree"))
			ret = parse_u32(val, &o.degree);
		else if (!strcmp(opt, "--tiles"))
			ret = parse_u32(val, &o.tiles);
		else if (!strcmp(opt, "--layers"))
			ret = parse_u32(val, &o.layers);
		else if (!strcmp(opt, "--steps"))
			ret = parse_u32(val, &o.steps);
		else
			ret = -EINVAL;
		if (ret)
			fprintf(stderr, "vgpu-bench gen-trace: bad option '%s'%s%s\n", opt,
				val ? " " : "", val ? val : "");
	}
	if (ret) {
		usage(stderr);
		return 2;
	}
	ret = trace_gen(kind, &o, &t);
	if (ret == -ENOENT)
		fprintf(stderr, "vgpu-bench gen-trace: unknown kind '%s' (bfs, gemm, train)\n",
			kind);
	else if (ret == -EINVAL)
		fprintf(stderr, "vgpu-bench gen-trace: %s: options out of range (footprint too small?)\n",
			kind);
	else if (!ret)
		ret = trace_write(stdout, &t);
	trace_free(&t);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret && ret != -ENOENT && ret != -EINVAL)
		fprintf(stderr, "vgpu-bench gen-trace: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}
