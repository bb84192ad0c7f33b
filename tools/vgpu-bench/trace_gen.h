/* SPDX-License-Identifier: MIT */
/*
 * Trace generators for classic access shapes (vgpu-bench gen-trace):
 * a BFS over a random graph, a tiled GEMM and a training loop over
 * layers.  Each is deterministic: the same options give the same trace.
 * Needs no device.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_BENCH_TRACE_GEN_H
#define VGPU_BENCH_TRACE_GEN_H

#include <stdint.h>

#include "trace.h"

/**
 * struct trace_gen_opts - what a generator is asked for
 * @footprint: bytes the trace's data fills (at most; the layout rounds down)
 * @seed: seed of the random choices (bfs's graph)
 * @compute_ns: compute time before each unit of work (a vertex, a GEMM
 *	k-step, a layer's pass), 0 for none
 * @queues: exec queues the work is spread over, 1 .. %TRACE_MAX_QUEUES
 * @vertices: bfs: vertices of the graph
 * @degree: bfs: mean out-degree (each vertex 1 .. 2 * degree - 1)
 * @tiles: gemm: tiles across a matrix
 * @layers: train: layers of the model
 * @steps: train: training steps
 */
struct trace_gen_opts {
	uint64_t footprint;
	uint64_t seed;
	uint64_t compute_ns;
	uint32_t queues;
	uint32_t vertices;
	uint32_t degree;
	uint32_t tiles;
	uint32_t layers;
	uint32_t steps;
};

/* The defaults: 96 MiB, seed 1, no compute, 1 queue, and as trace_gen.c. */
void trace_gen_defaults(struct trace_gen_opts *o);

/*
 * Generate the trace @kind ("bfs", "gemm", "train") into @t (initialised
 * here; trace_free() it also after an error).  0, -ENOENT for an unknown
 * kind, -EINVAL for options out of range (a footprint too small for the
 * shape), -ENOMEM.
 */
int trace_gen(const char *kind, const struct trace_gen_opts *o, struct trace *t);

/* The kinds trace_gen() knows, NULL-terminated. */
extern const char *const trace_gen_kinds[];

#endif /* VGPU_BENCH_TRACE_GEN_H */
