/* SPDX-License-Identifier: MIT */
/*
 * Memory-access traces for vgpu-bench replay: the text format
 * (user-guide.rst, "Traces"), its strict parser and its writer.
 *
 * A trace is a header line "vgpu-trace 1 footprint=BYTES" and then one
 * access per line, "QUEUE OP OFFSET SIZE [COMPUTE_NS]": OP is r, w or rw,
 * OFFSET is relative to the start of the trace's footprint (a trace is
 * position independent), COMPUTE_NS the compute time before the access.
 * A line "QUEUE wait OTHER" orders two queues: QUEUE's next accesses come
 * after every access of queue OTHER on the lines before it.
 * Lines starting with '#' and blank lines after the header are ignored.
 * This file needs no device: the host unit tests link it alone.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_BENCH_TRACE_H
#define VGPU_BENCH_TRACE_H

#include <stdint.h>
#include <stdio.h>

#define TRACE_MAGIC		"vgpu-trace"
#define TRACE_VERSION		1
/* Queues a trace may name: 0 .. TRACE_MAX_QUEUES - 1. */
#define TRACE_MAX_QUEUES	8
/* Largest footprint: 1 TiB. */
#define TRACE_MAX_FOOTPRINT	(1ull << 40)
/* Longest line the parser takes, newline included. */
#define TRACE_MAX_LINE		256

/** enum trace_op - what an access does */
enum trace_op {
	TRACE_READ,
	TRACE_WRITE,
	TRACE_RMW,	/* read, then write */
	TRACE_WAIT,	/* not an access: wait for queue @after */
};

/**
 * struct trace_access - one line of a trace: an access, or a wait
 * @offset: bytes from the start of the footprint
 * @size: bytes, at least 1; @offset + @size is within the footprint
 * @compute_ns: compute time before the access (0: none)
 * @queue: exec queue, below %TRACE_MAX_QUEUES
 * @op: &enum trace_op
 * @after: for %TRACE_WAIT, the queue waited for (not @queue); the other
 *	fields are 0
 */
struct trace_access {
	uint64_t offset;
	uint64_t size;
	uint64_t compute_ns;
	uint8_t queue;
	uint8_t op;
	uint8_t after;
};

/**
 * struct trace - a parsed trace
 * @footprint: bytes of memory the trace's offsets are within
 * @n: lines (accesses and waits)
 * @cap: room in @acc
 * @acc: the lines, in file order
 */
struct trace {
	uint64_t footprint;
	uint64_t n, cap;
	struct trace_access *acc;
};

/*
 * Parse @f into @t (initialised here; trace_free() it also after an
 * error).  Returns 0, or -EINVAL with "LINE: what is wrong" in @err
 * (@err_size bytes), -ENOMEM, or -EIO on a read error.
 */
int trace_parse(FILE *f, struct trace *t, char *err, size_t err_size);
void trace_free(struct trace *t);

/* Append one access to @t (no checks): 0 or -ENOMEM. */
int trace_add(struct trace *t, const struct trace_access *a);

/* Write the header / one access line / all of @t to @f: 0 or -EIO. */
int trace_write_header(FILE *f, uint64_t footprint);
int trace_write_access(FILE *f, const struct trace_access *a);
int trace_write(FILE *f, const struct trace *t);

/* "r", "w", "rw" or "wait". */
const char *trace_op_name(unsigned int op);

#endif /* VGPU_BENCH_TRACE_H */
