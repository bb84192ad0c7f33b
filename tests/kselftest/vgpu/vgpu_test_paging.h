/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers shared by the demand-paging suites (vgpu_paging_test.c,
 * vgpu_pool_test.c, vgpu_kernels_test.c): data patterns, TOUCH jobs and
 * what they leave, guest RAM, QUERY_PAGING.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_TEST_PAGING_H
#define VGPU_TEST_PAGING_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libvgpu.h"

/* The qword @i of a buffer filled with pattern @seed. */
static inline uint64_t pattern(uint64_t seed, uint64_t i)
{
	return (seed + i) * 0x9e3779b97f4a7c15ull;
}

/*
 * TOUCH on at most @lanes lanes (0: the device's), run to completion (two
 * minutes at most).
 */
static inline int touch_run_lanes(struct vgpu_dev *dev, uint32_t lanes, uint32_t queue,
				  uint32_t pat, uint32_t access, uint64_t va,
				  uint64_t size, uint32_t stride, uint32_t count,
				  uint32_t seed)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch_lanes(&cmd, lanes, pat, access, va, size, stride, count, seed, 1);
	ret = vgpu_run(dev, queue, &cmd, 120 * 1000000000ll);
	vgpu_cmd_fini(&cmd);
	return ret;
}

/* TOUCH on every lane of the device, run to completion. */
static inline int touch_run(struct vgpu_dev *dev, uint32_t queue, uint32_t pat,
			    uint32_t access, uint64_t va, uint64_t size,
			    uint32_t stride, uint32_t count, uint32_t seed)
{
	return touch_run_lanes(dev, 0, queue, pat, access, va, size, stride, count,
			       seed);
}

/* The lanes an access kernel runs as (DRM_VGPU_PARAM_LANES; 1 if unknown). */
static inline uint32_t dev_lanes(struct vgpu_dev *dev)
{
	uint64_t v;

	return vgpu_get_param(dev, DRM_VGPU_PARAM_LANES, &v) || !v ? 1 : v;
}

/*
 * Expected first qwords after random RMW TOUCHes: the device's xorshift64*
 * generators, one per lane (hardware.rst, "Lanes"), replayed on the CPU.
 */
static inline void rmw_expect(struct vgpu_dev *dev, uint64_t *cnt, uint64_t lines,
			      uint32_t seed, uint32_t count)
{
	const uint64_t golden = 0x9e3779b97f4a7c15ull;
	uint32_t lanes = dev_lanes(dev), l, i;

	if (lanes > count)
		lanes = count;
	for (l = 0; l < lanes; l++) {
		uint64_t x = (seed ? seed : golden) ^ (l * golden);
		uint32_t n = count / lanes + (l < count % lanes);

		x = x ? x : golden;
		for (i = 0; i < n; i++) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			cnt[(x * 0x2545f4914f6cdd1dull) % lines]++;
		}
	}
}

/* The guest's RAM (/proc/meminfo MemTotal), in bytes; 0 if unknown. */
static inline uint64_t mem_total(void)
{
	char line[128];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb << 10;
}

/* QUERY_PAGING of the file's VM into a zeroed @pg. */
static inline int paging(struct vgpu_dev *dev, struct drm_vgpu_query_paging *pg)
{
	memset(pg, 0, sizeof(*pg));
	return vgpu_query_paging(dev, pg);
}

#endif /* VGPU_TEST_PAGING_H */
