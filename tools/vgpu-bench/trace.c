// SPDX-License-Identifier: MIT
/*
 * The trace format's parser and writer (trace.h).  The parser is strict:
 * anything it does not understand is an error naming the line, never a
 * line skipped.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static const char *const op_names[] = {
	[TRACE_READ] = "r",
	[TRACE_WRITE] = "w",
	[TRACE_RMW] = "rw",
	[TRACE_WAIT] = "wait",
};

const char *trace_op_name(unsigned int op)
{
	return op <= TRACE_WAIT ? op_names[op] : "?";
}

void trace_free(struct trace *t)
{
	free(t->acc);
	memset(t, 0, sizeof(*t));
}

int trace_add(struct trace *t, const struct trace_access *a)
{
	if (t->n == t->cap) {
		uint64_t cap = t->cap ? 2 * t->cap : 1024;
		struct trace_access *p = realloc(t->acc, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->acc = p;
		t->cap = cap;
	}
	t->acc[t->n++] = *a;
	return 0;
}

/* An unsigned number, decimal or 0x hex, nothing else: 0 or -EINVAL. */
static int parse_u64(const char *s, uint64_t *v)
{
	unsigned int base = 10, d;
	uint64_t x = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (x > (UINT64_MAX - d) / base)
			return -EINVAL;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

/* Split @line at blanks into at most @max fields: their number, or max + 1. */
static unsigned int split(char *line, char **fields, unsigned int max)
{
	unsigned int n = 0;
	char *save, *tok;

	for (tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		fields[n++] = tok;
	}
	return n;
}

static int fail(char *err, size_t size, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, size, "%" PRIu64 ": ", line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < size)
		vsnprintf(err + n, size - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_header(char *line, struct trace *t, char *err, size_t esz)
{
	char *f[4];
	uint64_t v;

	if (split(line, f, 3) != 3 || strcmp(f[0], TRACE_MAGIC))
		return fail(err, esz, 1, "not a trace: the header is \"%s %d footprint=BYTES\"",
			    TRACE_MAGIC, TRACE_VERSION);
	if (parse_u64(f[1], &v) || v != TRACE_VERSION)
		return fail(err, esz, 1, "version '%s' unknown (this is version %d)",
			    f[1], TRACE_VERSION);
	if (strncmp(f[2], "footprint=", 10) || parse_u64(f[2] + 10, &v) ||
	    !v || v > TRACE_MAX_FOOTPRINT)
		return fail(err, esz, 1, "bad footprint '%s' (footprint=BYTES, 1 to 2^40)",
			    f[2]);
	t->footprint = v;
	return 0;
}

/* "QUEUE wait OTHER", split into @n fields @f. */
static int parse_wait(char **f, unsigned int n, uint64_t no,
		      struct trace_access *a, char *err, size_t esz)
{
	uint64_t v;

	if (n != 3)
		return fail(err, esz, no, "%u fields, a wait has 3 (QUEUE wait OTHER)",
			    n > 5 ? 6 : n);
	if (parse_u64(f[2], &v) || v >= TRACE_MAX_QUEUES || v == a->queue)
		return fail(err, esz, no, "bad queue to wait for '%s' (0 to %d, not %u)",
			    f[2], TRACE_MAX_QUEUES - 1, a->queue);
	a->after = v;
	a->offset = a->size = a->compute_ns = 0;
	return 0;
}

static int parse_access(char *line, uint64_t no, struct trace *t,
			struct trace_access *a, char *err, size_t esz)
{
	char *f[6];
	unsigned int n = split(line, f, 5), op;
	uint64_t v;

	if (n < 3 || n > 5)
		return fail(err, esz, no, "%u fields, an access has 4 or 5 (QUEUE OP OFFSET SIZE [COMPUTE_NS])",
			    n > 5 ? 6 : n);
	if (parse_u64(f[0], &v) || v >= TRACE_MAX_QUEUES)
		return fail(err, esz, no, "bad queue '%s' (0 to %d)", f[0],
			    TRACE_MAX_QUEUES - 1);
	a->queue = v;
	for (op = 0; op <= TRACE_WAIT; op++)
		if (!strcmp(f[1], op_names[op]))
			break;
	if (op > TRACE_WAIT)
		return fail(err, esz, no, "unknown op '%s' (r, w, rw or wait)", f[1]);
	a->op = op;
	a->after = 0;
	if (op == TRACE_WAIT)
		return parse_wait(f, n, no, a, err, esz);
	if (n < 4)
		return fail(err, esz, no, "%u fields, an access has 4 or 5 (QUEUE OP OFFSET SIZE [COMPUTE_NS])",
			    n);
	if (parse_u64(f[2], &a->offset))
		return fail(err, esz, no, "bad offset '%s'", f[2]);
	if (parse_u64(f[3], &a->size) || !a->size)
		return fail(err, esz, no, "bad size '%s' (1 or more bytes)", f[3]);
	if (a->offset >= t->footprint || a->size > t->footprint - a->offset)
		return fail(err, esz, no, "access 0x%" PRIx64 "+0x%" PRIx64
			    " beyond the footprint (0x%" PRIx64 ")", a->offset,
			    a->size, t->footprint);
	a->compute_ns = 0;
	if (n == 5 && parse_u64(f[4], &a->compute_ns))
		return fail(err, esz, no, "bad compute time '%s' (ns)", f[4]);
	return 0;
}

int trace_parse(FILE *f, struct trace *t, char *err, size_t esz)
{
	char line[TRACE_MAX_LINE + 1];
	struct trace_access a;
	uint64_t no = 0;
	size_t len;
	int ret;

	memset(t, 0, sizeof(*t));
	if (esz)
		err[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		no++;
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		else if (!feof(f))
			return fail(err, esz, no, "line longer than %d bytes", TRACE_MAX_LINE - 1);
		if (strlen(line) != len)
			return fail(err, esz, no, "NUL byte in the line");
		if (no == 1) {
			ret = parse_header(line, t, err, esz);
			if (ret)
				return ret;
			continue;
		}
		if (line[strspn(line, " \t")] == 0 || line[0] == '#')
			continue;
		ret = parse_access(line, no, t, &a, err, esz);
		if (!ret)
			ret = trace_add(t, &a);
		if (ret)
			return ret;
	}
	if (ferror(f))
		return -EIO;
	if (!no)
		return fail(err, esz, 1, "empty file, no \"%s\" header", TRACE_MAGIC);
	return 0;
}

int trace_write_header(FILE *f, uint64_t footprint)
{
	return fprintf(f, "%s %d footprint=%" PRIu64 "\n", TRACE_MAGIC,
		       TRACE_VERSION, footprint) < 0 ? -EIO : 0;
}

int trace_write_access(FILE *f, const struct trace_access *a)
{
	int n;

	if (a->op == TRACE_WAIT)
		n = fprintf(f, "%u wait %u\n", a->queue, a->after);
	else if (a->compute_ns)
		n = fprintf(f, "%u %s 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			    a->queue, trace_op_name(a->op), a->offset, a->size,
			    a->compute_ns);
	else
		n = fprintf(f, "%u %s 0x%" PRIx64 " %" PRIu64 "\n", a->queue,
			    trace_op_name(a->op), a->offset, a->size);
	return n < 0 ? -EIO : 0;
}

int trace_write(FILE *f, const struct trace *t)
{
	uint64_t i;
	int ret = trace_write_header(f, t->footprint);

	for (i = 0; i < t->n && !ret; i++)
		ret = trace_write_access(f, &t->acc[i]);
	return ret;
}
