/* SPDX-License-Identifier: MIT */
/*
 * Result tables for vgpu-bench: every suite fills one table, printed
 * aligned on stdout and, with --csv, written as CSV with a header row.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_BENCH_REPORT_H
#define VGPU_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>

/** enum report_kind - how a column's cells are formatted */
enum report_kind {
	REPORT_STR,	/* text */
	REPORT_U64,	/* unsigned integer */
	REPORT_F64,	/* real, printed with the column's precision */
};

/** struct report_col - a column: name (also the CSV header), kind, digits */
struct report_col {
	const char *name;
	enum report_kind kind;
	int precision;
};

struct report;

struct report *report_new(const char *title, const struct report_col *cols,
			  unsigned int ncols);
void report_free(struct report *r);

/*
 * Add a row: one argument per column, in column order: const char * for
 * REPORT_STR, uint64_t for REPORT_U64, double for REPORT_F64.
 * Returns 0 or -ENOMEM.
 */
int report_row(struct report *r, ...);

/* Print the table aligned, with its title, to f. */
void report_print(const struct report *r, FILE *f);

/* Write the table as CSV (header row first) to f. */
void report_csv(const struct report *r, FILE *f);

#endif /* VGPU_BENCH_REPORT_H */
