// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host unit tests of vgpu-bench's trace format (tools/vgpu-bench/trace.c)
 * and trace generators (trace_gen.c): a hand-written trace parsed field by
 * field, generated traces written, parsed back and written again to the
 * same text, every kind of bad line refused with its line number, and
 * generators deterministic by seed, within their footprint and queues, of
 * the size their shape gives.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "trace.h"
#include "trace_gen.h"

/* Parse @text; the error message goes to @err. */
static int parse_str(const char *text, struct trace *t, char *err, size_t esz)
{
	FILE *f;
	int ret;

	memset(t, 0, sizeof(*t));
	/* fmemopen() of nothing may fail: an empty file instead. */
	f = *text ? fmemopen((void *)text, strlen(text), "r") : fopen("/dev/null", "r");
	if (!f)
		return -errno;
	ret = trace_parse(f, t, err, esz);
	fclose(f);
	return ret;
}

/* @t written as text; the caller frees it. */
static char *write_str(const struct trace *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (trace_write(f, t)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static int same_trace(const struct trace *a, const struct trace *b)
{
	uint64_t i;

	if (a->footprint != b->footprint || a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct trace_access *x = &a->acc[i], *y = &b->acc[i];

		if (x->offset != y->offset || x->size != y->size || x->queue != y->queue ||
		    x->op != y->op || x->compute_ns != y->compute_ns ||
		    x->after != y->after)
			return 0;
	}
	return 1;
}

TEST(parses_every_field)
{
	static const char text[] =
		"vgpu-trace 1 footprint=0x10000\n"
		"# a comment, then a blank line\n"
		"\n"
		"0 r 0 64\n"
		"3\trw\t0x1000  4096 250\n"
		"7 w 0xff00 0x100   \n"
		"   \t\n"
		"1 r 65535 1";
	struct trace t;
	char err[256];

	ASSERT_EQ(0, parse_str(text, &t, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0x10000, t.footprint);
	ASSERT_EQ(4, t.n);
	EXPECT_EQ(0, t.acc[0].queue);
	EXPECT_EQ(TRACE_READ, t.acc[0].op);
	EXPECT_EQ(0, t.acc[0].offset);
	EXPECT_EQ(64, t.acc[0].size);
	EXPECT_EQ(0, t.acc[0].compute_ns);
	EXPECT_EQ(3, t.acc[1].queue);
	EXPECT_EQ(TRACE_RMW, t.acc[1].op);
	EXPECT_EQ(0x1000, t.acc[1].offset);
	EXPECT_EQ(4096, t.acc[1].size);
	EXPECT_EQ(250, t.acc[1].compute_ns);
	EXPECT_EQ(7, t.acc[2].queue);
	EXPECT_EQ(TRACE_WRITE, t.acc[2].op);
	EXPECT_EQ(0xff00, t.acc[2].offset);
	EXPECT_EQ(0x100, t.acc[2].size);
	/* The last byte of the footprint, on a line without a newline. */
	EXPECT_EQ(65535, t.acc[3].offset);
	EXPECT_EQ(1, t.acc[3].size);
	trace_free(&t);
}

/* Waits parse, keep their place among the accesses and write back as read. */
TEST(wait_lines_order_queues)
{
	static const char text[] =
		"vgpu-trace 1 footprint=4096\n"
		"0 w 0x0 64\n"
		"1 wait 0\n"
		"1 r 0x0 64\n"
		"0 wait 1\n";
	struct trace t, u;
	char err[256], *out;
	FILE *f;

	ASSERT_EQ(0, parse_str(text, &t, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(4, t.n);
	EXPECT_EQ(TRACE_WAIT, t.acc[1].op);
	EXPECT_EQ(1, t.acc[1].queue);
	EXPECT_EQ(0, t.acc[1].after);
	EXPECT_EQ(0, t.acc[1].size);
	EXPECT_EQ(TRACE_READ, t.acc[2].op);
	EXPECT_EQ(TRACE_WAIT, t.acc[3].op);
	EXPECT_EQ(1, t.acc[3].after);
	EXPECT_STREQ("wait", trace_op_name(TRACE_WAIT));
	out = write_str(&t);
	ASSERT_NE(NULL, out);
	EXPECT_STREQ(text, out);
	f = fmemopen(out, strlen(out), "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, trace_parse(f, &u, err, sizeof(err)));
	fclose(f);
	EXPECT_TRUE(same_trace(&t, &u));
	free(out);
	trace_free(&u);
	trace_free(&t);
}

TEST(header_only_is_an_empty_trace)
{
	struct trace t;
	char err[256];

	ASSERT_EQ(0, parse_str("vgpu-trace 1 footprint=4096\n", &t, err, sizeof(err)));
	EXPECT_EQ(4096, t.footprint);
	EXPECT_EQ(0, t.n);
	trace_free(&t);
}

/* A bad input, the error line it must give, a word of the message. */
struct bad {
	const char *text;
	const char *prefix;
	const char *word;
};

static const struct bad bad_inputs[] = {
	{ "", "1: ", "header" },
	{ "0 r 0 64\n", "1: ", "header" },
	{ "# comment first\nvgpu-trace 1 footprint=4096\n", "1: ", "header" },
	{ "vgpu-trace\n", "1: ", "header" },
	{ "vgpu-trace 1 footprint=4096 extra\n", "1: ", "header" },
	{ "vgpu-trace 2 footprint=4096\n0 r 0 64\n", "1: ", "version" },
	{ "vgpu-trace 0 footprint=4096\n", "1: ", "version" },
	{ "vgpu-trace one footprint=4096\n", "1: ", "version" },
	{ "vgpu-trace 1 footprint=0\n", "1: ", "footprint" },
	{ "vgpu-trace 1 footprint=\n", "1: ", "footprint" },
	{ "vgpu-trace 1 size=4096\n", "1: ", "footprint" },
	{ "vgpu-trace 1 footprint=0x10000000001\n", "1: ", "footprint" },
	{ "vgpu-trace 1 footprint=-4096\n", "1: ", "footprint" },
	{ "vgpu-trace 1 footprint=4096\n0 x 0 64\n", "2: ", "op" },
	{ "vgpu-trace 1 footprint=4096\n0 R 0 64\n", "2: ", "op" },
	{ "vgpu-trace 1 footprint=4096\n0 wr 0 64\n", "2: ", "op" },
	{ "vgpu-trace 1 footprint=4096\n\n# c\n0 r 0 -1\n", "4: ", "size" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 +64\n", "2: ", "size" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 18446744073709551616\n", "2: ", "size" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 0x1ffffffffffffffff\n", "2: ", "size" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 0\n", "2: ", "size" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 64k\n", "2: ", "size" },
	{ "vgpu-trace 1 footprint=4096\n0 r -64 64\n", "2: ", "offset" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0x 64\n", "2: ", "offset" },
	{ "vgpu-trace 1 footprint=4096\n0 r 4096 1\n", "2: ", "footprint" },
	{ "vgpu-trace 1 footprint=4096\n0 r 4000 97\n", "2: ", "footprint" },
	{ "vgpu-trace 1 footprint=4096\n0 r 64 0xffffffffffffffff\n", "2: ", "footprint" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 64\n8 r 0 64\n", "3: ", "queue" },
	{ "vgpu-trace 1 footprint=4096\n-1 r 0 64\n", "2: ", "queue" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0\n", "2: ", "fields" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 64 5 6\n", "2: ", "fields" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 64 -5\n", "2: ", "compute" },
	{ "vgpu-trace 1 footprint=4096\n0 r 0 64 5ns\n", "2: ", "compute" },
	{ "vgpu-trace 1 footprint=4096\n 0 r 0 64 # trailing comment\n", "2: ", "fields" },
	{ "vgpu-trace 1 footprint=4096\n0 wait 0\n", "2: ", "queue" },
	{ "vgpu-trace 1 footprint=4096\n0 wait 8\n", "2: ", "queue" },
	{ "vgpu-trace 1 footprint=4096\n0 wait x\n", "2: ", "queue" },
	{ "vgpu-trace 1 footprint=4096\n0 wait\n", "2: ", "fields" },
	{ "vgpu-trace 1 footprint=4096\n0 wait 1 5\n", "2: ", "fields" },
	{ "vgpu-trace 1 footprint=4096\n9 wait 1\n", "2: ", "queue" },
	{ "vgpu-trace 1 footprint=4096\n0 Wait 1\n", "2: ", "op" },
};

TEST(bad_input_names_its_line)
{
	unsigned int i;

	for (i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad *b = &bad_inputs[i];
		struct trace t;
		char err[256];

		EXPECT_EQ(-EINVAL, parse_str(b->text, &t, err, sizeof(err)))
			TH_LOG("input %u parsed: %s", i, b->text);
		EXPECT_EQ(0, strncmp(err, b->prefix, strlen(b->prefix)))
			TH_LOG("input %u: '%s', wanted line %s", i, err, b->prefix);
		EXPECT_NE(NULL, strstr(err, b->word))
			TH_LOG("input %u: '%s' does not say '%s'", i, err, b->word);
		trace_free(&t);
	}
}

TEST(long_line_and_nul_refused)
{
	char text[600], err[256];
	struct trace t;
	int n;

	n = snprintf(text, sizeof(text), "vgpu-trace 1 footprint=4096\n0 r 0 64 ");
	memset(text + n, '0', 300);
	strcpy(text + n + 300, "\n");
	EXPECT_EQ(-EINVAL, parse_str(text, &t, err, sizeof(err)));
	EXPECT_EQ(0, strncmp(err, "2: ", 3)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "longer"));
	trace_free(&t);

	{
		static const char nul[] = "vgpu-trace 1 footprint=4096\n0 r 0 64\0 junk\n";
		FILE *f = fmemopen((void *)nul, sizeof(nul) - 1, "r");

		ASSERT_NE(NULL, f);
		EXPECT_EQ(-EINVAL, trace_parse(f, &t, err, sizeof(err)));
		EXPECT_EQ(0, strncmp(err, "2: ", 3)) TH_LOG("%s", err);
		fclose(f);
		trace_free(&t);
	}
}

/* Generate @kind with @o, check it, write, parse back and rewrite it. */
static void round_trip(struct __test_metadata *_metadata, const char *kind,
		       const struct trace_gen_opts *o, uint64_t *n)
{
	struct trace g, p;
	char *text, *again, err[256];
	uint64_t i, compute = 0;

	ASSERT_EQ(0, trace_gen(kind, o, &g));
	ASSERT_GT(g.n, 0);
	for (i = 0; i < g.n; i++) {
		ASSERT_LT(g.acc[i].queue, o->queues);
		if (g.acc[i].op == TRACE_WAIT) {
			ASSERT_LT(g.acc[i].after, o->queues);
			ASSERT_NE(g.acc[i].queue, g.acc[i].after);
			continue;
		}
		ASSERT_GT(g.acc[i].size, 0);
		ASSERT_LE(g.acc[i].offset + g.acc[i].size, o->footprint);
		compute += g.acc[i].compute_ns;
	}
	EXPECT_EQ(o->compute_ns ? 1 : 0, compute ? 1 : 0);
	text = write_str(&g);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, parse_str(text, &p, err, sizeof(err))) TH_LOG("%s: %s", kind, err);
	EXPECT_TRUE(same_trace(&g, &p));
	again = write_str(&p);
	ASSERT_NE(NULL, again);
	EXPECT_STREQ(text, again);
	*n = g.n;
	free(text);
	free(again);
	trace_free(&g);
	trace_free(&p);
}

TEST(generators_round_trip)
{
	struct trace_gen_opts o;
	uint64_t n, t;

	trace_gen_defaults(&o);
	o.footprint = 8 << 20;
	o.vertices = 512;
	o.queues = 3;
	o.compute_ns = 700;
	round_trip(_metadata, "bfs", &o, &n);
	/* Per vertex reached: offsets, edges, its record, and per edge a read. */
	EXPECT_GE(n, 3 * 256);

	o.tiles = 3;
	round_trip(_metadata, "gemm", &o, &n);
	/* t: the largest multiple of 16 with 3 (3t)^2 floats in 8 MiB. */
	t = 272;
	EXPECT_LE(12 * (3 * t) * (3 * t), o.footprint);
	EXPECT_GT(12 * (3 * (t + 16)) * (3 * (t + 16)), o.footprint);
	EXPECT_EQ(27 * 2 * t + 9 * t, n);

	o.layers = 5;
	o.steps = 2;
	o.compute_ns = 0;
	round_trip(_metadata, "train", &o, &n);
	/*
	 * Forward 3, backward 4, optimizer 2 accesses per layer and step;
	 * the optimizer (queue 1) waits for backward, the next step's
	 * forward for the optimizer: 3 waits.
	 */
	EXPECT_EQ(2 * 5 * (3 + 4 + 2) + 3, n);
	o.queues = 1;
	round_trip(_metadata, "train", &o, &n);
	/* One queue: nothing to wait for. */
	EXPECT_EQ(2 * 5 * (3 + 4 + 2), n);
}

TEST(bfs_visits_each_vertex_once)
{
	struct trace_gen_opts o;
	struct trace t;
	uint64_t i, writes = 0, records = 0, rec_end;

	trace_gen_defaults(&o);
	o.footprint = 4 << 20;
	o.vertices = 1000;
	ASSERT_EQ(0, trace_gen("bfs", &o, &t));
	/* Writes are the visited entries (4 bytes); RMWs the records. */
	for (i = 0; i < t.n; i++) {
		if (t.acc[i].op == TRACE_WRITE) {
			EXPECT_EQ(4, t.acc[i].size);
			writes++;
		}
		records += t.acc[i].op == TRACE_RMW;
	}
	/* Vertex 0 starts visited; every other reached vertex is written once. */
	EXPECT_EQ(records, writes + 1);
	EXPECT_LE(records, o.vertices);
	/* A random graph of mean degree 8 is nearly all reachable. */
	EXPECT_GE(records, o.vertices * 9 / 10);
	rec_end = 0;
	for (i = 0; i < t.n; i++)
		if (t.acc[i].op == TRACE_RMW && t.acc[i].offset + t.acc[i].size > rec_end)
			rec_end = t.acc[i].offset + t.acc[i].size;
	EXPECT_LE(rec_end, o.footprint);
	/* The records fill the footprint to within a record per vertex. */
	EXPECT_GT(rec_end + o.vertices * 64, o.footprint - o.footprint / 10);
	trace_free(&t);
}

TEST(deterministic_by_seed)
{
	static const char *const kinds[] = { "bfs", "gemm", "train" };
	struct trace_gen_opts o;
	struct trace a, b;
	unsigned int k;

	trace_gen_defaults(&o);
	o.footprint = 4 << 20;
	o.vertices = 600;
	o.queues = 2;
	for (k = 0; k < 3; k++) {
		o.seed = 42;
		ASSERT_EQ(0, trace_gen(kinds[k], &o, &a));
		ASSERT_EQ(0, trace_gen(kinds[k], &o, &b));
		EXPECT_TRUE(same_trace(&a, &b)) TH_LOG("%s", kinds[k]);
		trace_free(&b);
		o.seed = 43;
		ASSERT_EQ(0, trace_gen(kinds[k], &o, &b));
		/* Only bfs draws anything at random. */
		EXPECT_EQ(k != 0, same_trace(&a, &b)) TH_LOG("%s", kinds[k]);
		trace_free(&a);
		trace_free(&b);
	}
}

TEST(generator_options_checked)
{
	struct trace_gen_opts o;
	struct trace t;

	trace_gen_defaults(&o);
	EXPECT_EQ(-ENOENT, trace_gen("dfs", &o, &t));
	trace_free(&t);
	o.queues = 0;
	EXPECT_EQ(-EINVAL, trace_gen("bfs", &o, &t));
	trace_free(&t);
	o.queues = TRACE_MAX_QUEUES + 1;
	EXPECT_EQ(-EINVAL, trace_gen("gemm", &o, &t));
	trace_free(&t);
	trace_gen_defaults(&o);
	o.footprint = TRACE_MAX_FOOTPRINT + 1;
	EXPECT_EQ(-EINVAL, trace_gen("train", &o, &t));
	trace_free(&t);
	/* Too small for the shape: a record, a tile, a layer. */
	trace_gen_defaults(&o);
	o.footprint = 4096;
	EXPECT_EQ(-EINVAL, trace_gen("bfs", &o, &t));
	trace_free(&t);
	o.footprint = 1024;
	EXPECT_EQ(-EINVAL, trace_gen("gemm", &o, &t));
	trace_free(&t);
	o.footprint = 64 * 40;
	EXPECT_EQ(-EINVAL, trace_gen("train", &o, &t));
	trace_free(&t);
	trace_gen_defaults(&o);
	o.degree = 0;
	EXPECT_EQ(-EINVAL, trace_gen("bfs", &o, &t));
	trace_free(&t);
	o.degree = 8;
	o.vertices = 0;
	EXPECT_EQ(-EINVAL, trace_gen("bfs", &o, &t));
	trace_free(&t);
}

TEST_HARNESS_MAIN
