/* SPDX-License-Identifier: MIT */
/*
 * vgpu-fuzz: the seeded random number generator.
 *
 * xoshiro256** seeded through splitmix64: every thread of every process
 * has its own stream, derived from the run's seed and the thread's
 * number, so that a run with one process and one thread draws the same
 * numbers whenever it is given the same seed.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_FUZZ_RNG_H
#define VGPU_FUZZ_RNG_H

#include <stdbool.h>
#include <stdint.h>

struct fz_rng {
	uint64_t s[4];
};

static inline uint64_t fz_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void fz_rng_seed(struct fz_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = fz_splitmix64(&x);
}

static inline uint64_t fz_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits. */
static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = fz_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = fz_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n); 0 when n is 0. */
static inline uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return n ? fz_next(r) % n : 0;
}

/* Uniform in [lo, hi]. */
static inline uint64_t fz_range(struct fz_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + fz_below(r, hi - lo + 1);
}

/* True with probability @pct percent. */
static inline bool fz_chance(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

#endif /* VGPU_FUZZ_RNG_H */
