// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: argument values at boundaries: powers of two and their
 * neighbours, page and huge-page sizes, the ends of 32-bit, 48-bit and
 * 64-bit ranges, sizes spread over orders of magnitude, timeouts and
 * user pointers the kernel must refuse.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <stdint.h>
#include <time.h>

#include "fuzz.h"

static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 64, 127, 128, 255, 256, 511, 512,
	1023, 1024, 4095, 4096, 4097, 8192, 0xffff, 0x10000, 0x10001,
	0x1fffff, 0x200000, 0x200001, 0x3fffffff, 0x40000000, 0x7fffffff,
	0x80000000, 0x80000001, 0xfffff000, 0xfffffffe, 0xffffffff,
	0x100000000ull, 0x100000fffull, 1ull << 40, 1ull << 47,
	(1ull << 48) - 4096, 1ull << 48, (1ull << 48) + 4096,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffff000ull,
	0xffffffffffffffc0ull, 0xfffffffffffffffeull, 0xffffffffffffffffull,
};

#define NR_INTERESTING	(sizeof(interesting) / sizeof(interesting[0]))

uint64_t fz_interesting64(struct fz_rng *r)
{
	uint64_t v = interesting[fz_below(r, NR_INTERESTING)];

	switch (fz_below(r, 10)) {
	case 0:
		return fz_next(r);
	case 1:
		return v + fz_range(r, 1, 8);
	case 2:
		return v - fz_range(r, 1, 8);
	case 3:
		return 1ull << fz_below(r, 64);
	default:
		return v;
	}
}

uint32_t fz_interesting32(struct fz_rng *r)
{
	return (uint32_t)fz_interesting64(r);
}

/* Log-uniform in [1, max], a multiple of 4 KiB half of the time. */
uint64_t fz_size(struct fz_rng *r, uint64_t max)
{
	unsigned int bits = 64 - __builtin_clzll(max | 1);
	unsigned int s = fz_below(r, bits);
	uint64_t v = (1ull << s) + fz_below(r, 1ull << s);

	if (fz_chance(r, 50))
		v = (v + 4095) & ~4095ull;
	if (v > max)
		v = max;
	return v ? v : 1;
}

/* One bit that @valid does not have. */
uint32_t fz_bad_bits(struct fz_rng *r, uint32_t valid)
{
	uint32_t bit;

	if (valid == ~0u)
		return 0;
	do
		bit = 1u << fz_below(r, 32);
	while (bit & valid);
	return bit;
}

/*
 * An absolute CLOCK_MONOTONIC deadline for a wait: mostly a few
 * milliseconds away, else the boundaries (0 = poll, the past, negative);
 * "never" only when @may_block.
 */
uint64_t fz_timeout_abs(struct fz_rng *r, bool may_block)
{
	uint64_t now = fz_now_ns();

	switch (fz_below(r, 20)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return now - fz_below(r, 1000000000);
	case 3:
		return 1ull << 63;
	case 4:
		return (uint64_t)-1;
	case 5:
		return may_block ? INT64_MAX : now + 100000000;
	case 6:
		return now + fz_below(r, 200000000);
	default:
		return now + fz_below(r, 20000000);
	}
}

/* @valid most of the time, else a pointer the kernel must not follow. */
uint64_t fz_user_ptr(struct fz_rng *r, void *valid)
{
	static const uint64_t bad[] = {
		0, 1, 4096, 0x7ffffffff000ull, 0x800000000000ull,
		0xffff888000000000ull, 0xffffffffff600000ull,
		0xffffffffffffffffull,
	};

	if (fz_chance(r, 90))
		return (uintptr_t)valid;
	return bad[fz_below(r, sizeof(bad) / sizeof(bad[0]))];
}
