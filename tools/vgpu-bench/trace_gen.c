// SPDX-License-Identifier: MIT
/*
 * Trace generators (trace_gen.h).  Each lays its arrays out from offset
 * 0, 64-byte aligned, within the footprint, and emits the accesses a GPU
 * kernel of that shape makes, in the order it makes them:
 *
 * bfs: a breadth-first search from vertex 0 over a random directed graph
 * in CSR form: offsets (n + 1 u64), edges (u32 each), a visited array (u32
 * per vertex) and one record per vertex (the vertex's data, as large as
 * the footprint allows, a multiple of 64 bytes).  Vertex u's out-degree is
 * 1 .. 2 * degree - 1 and its neighbours uniform, all drawn from the seed.
 * The frontier is processed level by level in discovery order, vertex i of
 * a level on queue i % queues: read its two offsets, read its edge list,
 * read the visited entry of every neighbour and write those newly
 * visited, then read and write its record.
 *
 * gemm: C = A x B over three n x n matrices of 32-bit floats, row-major,
 * n = tiles x t with t the largest multiple of 16 that fits.  For each C
 * tile (i, j), row-major, on queue (i * tiles + j) % queues: for each k,
 * the rows of A's tile (i, k), then those of B's tile (k, j), one access
 * per tile row (t * 4 bytes); then a read-modify-write of C's tile rows.
 *
 * train: steps of a training loop over layers: an input X, then per layer
 * its weights W (2 a bytes), their gradient G (2 a) and its activations A
 * (a bytes), a as large as the footprint allows.  Forward, layer by
 * layer: read W[l], read the input (A[l - 1] or X), write A[l].
 * Backward, in reverse: read A[l] (its gradient, in place), W[l] and the
 * input, write G[l].  Then the optimizer on queue 1 % queues: read G[l],
 * read and write W[l], for each layer.  One access per buffer.
 *
 * The compute time goes on the first access of a vertex, a k-step, a
 * layer's forward and backward pass.  gemm and train draw nothing at
 * random: their seed changes nothing.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_gen.h"

#define LINE	64ull

const char *const trace_gen_kinds[] = { "bfs", "gemm", "train", NULL };

void trace_gen_defaults(struct trace_gen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->footprint = 96ull << 20;
	o->seed = 1;
	o->queues = 1;
	o->vertices = 4096;
	o->degree = 8;
	o->tiles = 4;
	o->layers = 8;
	o->steps = 3;
}

static uint64_t align_line(uint64_t x)
{
	return (x + LINE - 1) & ~(LINE - 1);
}

/* A 64-bit mix of (@seed, @a, @b) (splitmix64's finaliser). */
static uint64_t mix(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t x = seed ^ (a * 0x9e3779b97f4a7c15ull) ^ (b + 1) * 0xd1b54a32d192ed03ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Append an access; @compute, if set, is consumed by it. */
static int emit(struct trace *t, uint32_t queue, unsigned int op, uint64_t offset,
		uint64_t size, uint64_t *compute)
{
	struct trace_access a = {
		.offset = offset, .size = size, .queue = queue, .op = op,
		.compute_ns = compute ? *compute : 0,
	};

	if (compute)
		*compute = 0;
	return trace_add(t, &a);
}

/* Append "@queue wait @after" (nothing when they are the same queue). */
static int emit_wait(struct trace *t, uint32_t queue, uint32_t after)
{
	struct trace_access a = { .queue = queue, .op = TRACE_WAIT, .after = after };

	return queue == after ? 0 : trace_add(t, &a);
}

/* The layout and state of a BFS. */
struct bfs {
	uint64_t n, *off;		/* CSR offsets, off[n] edges in all */
	uint64_t edges, visited, records, rec_size;
	uint32_t *front, *next;
	uint8_t *seen;
};

static int bfs_layout(struct bfs *g, const struct trace_gen_opts *o)
{
	uint64_t u, room;

	g->n = o->vertices;
	if (!g->n || !o->degree || o->degree > 1024)
		return -EINVAL;
	g->off = calloc(g->n + 1, sizeof(*g->off));
	g->front = calloc(g->n, sizeof(*g->front));
	g->next = calloc(g->n, sizeof(*g->next));
	g->seen = calloc(g->n / 8 + 1, 1);
	if (!g->off || !g->front || !g->next || !g->seen)
		return -ENOMEM;
	for (u = 0; u < g->n; u++)
		g->off[u + 1] = g->off[u] + 1 + mix(o->seed, u, ~0ull) % (2 * o->degree - 1);
	g->edges = align_line((g->n + 1) * 8);
	g->visited = align_line(g->edges + g->off[g->n] * 4);
	g->records = align_line(g->visited + g->n * 4);
	room = o->footprint > g->records ? o->footprint - g->records : 0;
	g->rec_size = room / g->n & ~(LINE - 1);
	return g->rec_size ? 0 : -EINVAL;
}

/* Vertex @u of a level, on @queue: its part of the search. */
static int bfs_vertex(struct trace *t, struct bfs *g, const struct trace_gen_opts *o,
		      uint64_t u, uint32_t queue, uint64_t *nn)
{
	uint64_t compute = o->compute_ns, deg = g->off[u + 1] - g->off[u], j, v;
	int ret;

	ret = emit(t, queue, TRACE_READ, u * 8, 16, &compute);
	if (!ret)
		ret = emit(t, queue, TRACE_READ, g->edges + g->off[u] * 4, deg * 4, NULL);
	for (j = 0; j < deg && !ret; j++) {
		v = mix(o->seed, u, j) % g->n;
		ret = emit(t, queue, TRACE_READ, g->visited + v * 4, 4, NULL);
		if (ret || g->seen[v / 8] & 1u << v % 8)
			continue;
		g->seen[v / 8] |= 1u << v % 8;
		g->next[(*nn)++] = v;
		ret = emit(t, queue, TRACE_WRITE, g->visited + v * 4, 4, NULL);
	}
	return ret ?: emit(t, queue, TRACE_RMW, g->records + u * g->rec_size,
			   g->rec_size, NULL);
}

static int gen_bfs(struct trace *t, const struct trace_gen_opts *o)
{
	struct bfs g = { 0 };
	uint64_t nf = 1, nn, i;
	int ret = bfs_layout(&g, o);

	if (!ret) {
		g.seen[0] = 1;
		g.front[0] = 0;
	}
	while (!ret && nf) {
		nn = 0;
		for (i = 0; i < nf && !ret; i++)
			ret = bfs_vertex(t, &g, o, g.front[i], i % o->queues, &nn);
		memcpy(g.front, g.next, nn * sizeof(*g.next));
		nf = nn;
	}
	free(g.off);
	free(g.front);
	free(g.next);
	free(g.seen);
	return ret;
}

/* The t rows of tile (@ti, @tj) of the matrix at @base, @n across. */
static int gemm_tile(struct trace *tr, uint32_t queue, unsigned int op, uint64_t base,
		     uint64_t n, uint64_t t, uint64_t ti, uint64_t tj, uint64_t *compute)
{
	uint64_t r;
	int ret = 0;

	for (r = 0; r < t && !ret; r++)
		ret = emit(tr, queue, op, base + ((ti * t + r) * n + tj * t) * 4, t * 4,
			   compute);
	return ret;
}

static int gen_gemm(struct trace *tr, const struct trace_gen_opts *o)
{
	uint64_t k = o->tiles, t, n, a, b, c, i, j, s, compute;
	uint32_t q;
	int ret = 0;

	if (!k || k > 1024)
		return -EINVAL;
	for (t = 0; 12 * (k * (t + 16)) * (k * (t + 16)) <= o->footprint;)
		t += 16;
	if (!t)
		return -EINVAL;
	n = k * t;
	a = 0;
	b = n * n * 4;
	c = 2 * b;
	for (i = 0; i < k && !ret; i++) {
		for (j = 0; j < k && !ret; j++) {
			q = (i * k + j) % o->queues;
			for (s = 0; s < k && !ret; s++) {
				compute = o->compute_ns;
				ret = gemm_tile(tr, q, TRACE_READ, a, n, t, i, s, &compute);
				if (!ret)
					ret = gemm_tile(tr, q, TRACE_READ, b, n, t, s, j, NULL);
			}
			if (!ret)
				ret = gemm_tile(tr, q, TRACE_RMW, c, n, t, i, j, NULL);
		}
	}
	return ret;
}

static int gen_train(struct trace *t, const struct trace_gen_opts *o)
{
	uint64_t nl = o->layers, a, per, w, g, act, in, compute, l, s;
	uint32_t opt = 1 % o->queues;
	int ret = 0;

	if (!nl || nl > 4096 || !o->steps)
		return -EINVAL;
	a = o->footprint / (5 * nl + 1) & ~(LINE - 1);
	if (!a)
		return -EINVAL;
	per = 5 * a;
/* Layer l's weights, gradient, activations; the input of layer l. */
#define W(l)	(a + (l) * per)
#define G(l)	(W(l) + 2 * a)
#define ACT(l)	(W(l) + 4 * a)
#define IN(l)	((l) ? ACT((l) - 1) : 0)
	for (s = 0; s < o->steps && !ret; s++) {
		for (l = 0; l < nl && !ret; l++) {
			compute = o->compute_ns;
			w = W(l), act = ACT(l), in = IN(l);
			ret = emit(t, 0, TRACE_READ, w, 2 * a, &compute);
			ret = ret ?: emit(t, 0, TRACE_READ, in, a, NULL);
			ret = ret ?: emit(t, 0, TRACE_WRITE, act, a, NULL);
		}
		for (l = nl; l-- > 0 && !ret;) {
			compute = o->compute_ns;
			w = W(l), g = G(l), act = ACT(l), in = IN(l);
			ret = emit(t, 0, TRACE_READ, act, a, &compute);
			ret = ret ?: emit(t, 0, TRACE_READ, w, 2 * a, NULL);
			ret = ret ?: emit(t, 0, TRACE_READ, in, a, NULL);
			ret = ret ?: emit(t, 0, TRACE_WRITE, g, 2 * a, NULL);
		}
		/* The optimizer reads the gradients once backward is done. */
		ret = ret ?: emit_wait(t, opt, 0);
		for (l = 0; l < nl && !ret; l++) {
			ret = emit(t, opt, TRACE_READ, G(l), 2 * a, NULL);
			ret = ret ?: emit(t, opt, TRACE_RMW, W(l), 2 * a, NULL);
		}
		/* The next step's forward reads the updated weights. */
		if (s + 1 < o->steps)
			ret = ret ?: emit_wait(t, 0, opt);
	}
#undef W
#undef G
#undef ACT
#undef IN
	return ret;
}

int trace_gen(const char *kind, const struct trace_gen_opts *o, struct trace *t)
{
	memset(t, 0, sizeof(*t));
	if (!o->queues || o->queues > TRACE_MAX_QUEUES || !o->footprint ||
	    o->footprint > TRACE_MAX_FOOTPRINT)
		return -EINVAL;
	t->footprint = o->footprint;
	if (!strcmp(kind, "bfs"))
		return gen_bfs(t, o);
	if (!strcmp(kind, "gemm"))
		return gen_gemm(t, o);
	if (!strcmp(kind, "train"))
		return gen_train(t, o);
	return -ENOENT;
}
