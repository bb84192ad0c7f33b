// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: bad arguments from a table.  An ioctl struct's fields that
 * must be zero (flags, pad, reserved) or may hold only known bits (flags,
 * placements) are described once, as rows of struct fz_bad_field;
 * fz_break_field() gives one of them a value the kernel must refuse with
 * EINVAL, and fz_bad_arg() does that now and then and checks the refusal.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz.h"

const char *fz_break_field(struct fz_rng *r, void *arg,
			   const struct fz_bad_field *fields, unsigned int n)
{
	const struct fz_bad_field *f = &fields[fz_below(r, n)];
	void *p = (char *)arg + f->offset;

	if (f->size == sizeof(uint64_t)) {
		if (f->valid)
			*(uint64_t *)p |= fz_bad_bits(r, f->valid);
		else
			*(uint64_t *)p = fz_interesting64(r) | 1;
	} else {
		if (f->valid)
			*(uint32_t *)p |= fz_bad_bits(r, f->valid);
		else
			*(uint32_t *)p = fz_interesting32(r) | 1;
	}
	return f->what;
}

bool fz_bad_arg(struct fz_thread *t, struct fz_ctx *c, unsigned long req,
		void *arg, const char *name, const struct fz_bad_field *fields,
		unsigned int n, unsigned int pct)
{
	char what[96];

	if (!fz_chance(&t->rng, pct))
		return false;
	snprintf(what, sizeof(what), "%s with %s", name,
		 fz_break_field(&t->rng, arg, fields, n));
	fz_ioctl_check(t, c, req, arg, true, EINVAL, what);
	return true;
}
