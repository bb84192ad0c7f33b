// SPDX-License-Identifier: MIT
/*
 * Result tables for vgpu-bench.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct report {
	const char *title;
	const struct report_col *cols;
	unsigned int ncols;
	unsigned int nrows, cap;
	char **cells;		/* nrows * ncols formatted cells */
};

struct report *report_new(const char *title, const struct report_col *cols,
			  unsigned int ncols)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->title = title;
	r->cols = cols;
	r->ncols = ncols;
	return r;
}

void report_free(struct report *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; i < r->nrows * r->ncols; i++)
		free(r->cells[i]);
	free(r->cells);
	free(r);
}

int report_row(struct report *r, ...)
{
	unsigned int c, base;
	va_list ap;

	if (r->nrows == r->cap) {
		unsigned int cap = r->cap ? r->cap * 2 : 16;
		char **cells = realloc(r->cells,
				       sizeof(*cells) * cap * r->ncols);

		if (!cells)
			return -ENOMEM;
		r->cells = cells;
		r->cap = cap;
	}
	base = r->nrows * r->ncols;
	va_start(ap, r);
	for (c = 0; c < r->ncols; c++) {
		char buf[64];
		const char *s = buf;

		switch (r->cols[c].kind) {
		case REPORT_STR:
			s = va_arg(ap, const char *);
			break;
		case REPORT_U64:
			snprintf(buf, sizeof(buf), "%llu",
				 (unsigned long long)va_arg(ap, uint64_t));
			break;
		case REPORT_F64:
			snprintf(buf, sizeof(buf), "%.*f", r->cols[c].precision,
				 va_arg(ap, double));
			break;
		}
		r->cells[base + c] = strdup(s);
		if (!r->cells[base + c]) {
			while (c--)
				free(r->cells[base + c]);
			va_end(ap);
			return -ENOMEM;
		}
	}
	va_end(ap);
	r->nrows++;
	return 0;
}

void report_print(const struct report *r, FILE *f)
{
	unsigned int c, i;
	size_t w[64];

	for (c = 0; c < r->ncols && c < 64; c++) {
		w[c] = strlen(r->cols[c].name);
		for (i = 0; i < r->nrows; i++) {
			size_t l = strlen(r->cells[i * r->ncols + c]);

			if (l > w[c])
				w[c] = l;
		}
	}
	fprintf(f, "\n%s\n", r->title);
	for (c = 0; c < r->ncols; c++)
		fprintf(f, "%s%*s", c ? "  " : "", (int)w[c], r->cols[c].name);
	fputc('\n', f);
	for (i = 0; i < r->nrows; i++) {
		for (c = 0; c < r->ncols; c++) {
			const char *s = r->cells[i * r->ncols + c];

			if (r->cols[c].kind == REPORT_STR)
				fprintf(f, "%s%-*s", c ? "  " : "", (int)w[c], s);
			else
				fprintf(f, "%s%*s", c ? "  " : "", (int)w[c], s);
		}
		fputc('\n', f);
	}
	fflush(f);
}

void report_csv(const struct report *r, FILE *f)
{
	unsigned int c, i;

	for (c = 0; c < r->ncols; c++)
		fprintf(f, "%s%s", c ? "," : "", r->cols[c].name);
	fputc('\n', f);
	for (i = 0; i < r->nrows; i++) {
		for (c = 0; c < r->ncols; c++)
			fprintf(f, "%s%s", c ? "," : "",
				r->cells[i * r->ncols + c]);
		fputc('\n', f);
	}
}
