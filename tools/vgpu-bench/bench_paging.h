/* SPDX-License-Identifier: MIT */
/*
 * Helpers the demand-paging suites (oversub, batching, migrate, mixed) share:
 * policies and module parameters, pageable BOs, TOUCH jobs, counters.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_BENCH_PAGING_H
#define VGPU_BENCH_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "libvgpu.h"
#include "report.h"

#define BENCH_MIB	(1ull << 20)
/* Where the suites map their buffers. */
#define BENCH_VA	(1ull << 36)

/* Write the device's sysfs file @name (eviction_policy, placement_policy). */
int bench_set_policy(int fd, const char *name, const char *value);
/* Read it into @buf. */
int bench_get_policy(int fd, const char *name, char *buf, size_t size);
/*
 * The names in the device's sysfs list @name (available_eviction_policies,
 * ...), at most @max of them: their number, or a negative errno.
 */
int bench_list_policies(int fd, const char *name, char (*names)[16], int max);
/* The device's sysfs counter counters/@name; 0 or a negative errno. */
int bench_counter(int fd, const char *name, uint64_t *value);
/* Write / read the vgpu module parameter @name. */
int bench_set_param(const char *name, const char *value);
int bench_get_param(const char *name, char *buf, size_t size);

/**
 * struct bench_settings - what a paging suite changes, to be put back
 * @evict: sysfs eviction_policy
 * @place: sysfs placement_policy
 * @prefetch: module parameter prefetch
 */
struct bench_settings {
	char evict[16];
	char place[16];
	char prefetch[8];
};

/* Remember the current settings; put them back (what could be read). */
void bench_settings_save(int fd, struct bench_settings *s);
void bench_settings_restore(int fd, const struct bench_settings *s);
/*
 * The start of a suite that runs every eviction policy: their names (as
 * bench_list_policies()), the settings saved when there is at least one.
 */
int bench_policies_begin(int fd, char (*names)[16], int max,
			 struct bench_settings *saved);

/**
 * struct bench_pbo - a pageable BO mapped at BENCH_VA + @va_off
 * @handle: GEM handle
 * @size: bytes
 * @va: GPU VA
 */
struct bench_pbo {
	uint32_t handle;
	uint64_t size;
	uint64_t va;
};

int bench_pbo_create(struct vgpu_dev *dev, uint64_t size, uint64_t va,
		     struct bench_pbo *b);
void bench_pbo_destroy(struct vgpu_dev *dev, struct bench_pbo *b);
/*
 * Give the BO its system pages (a CPU store in every page), so that what
 * follows does not count their allocation: 0 or a negative errno.
 */
int bench_pbo_populate(struct vgpu_dev *dev, struct bench_pbo *b);

/* TOUCH on @queue, waited for; 0 or a negative errno. */
int bench_touch(struct vgpu_dev *dev, uint32_t queue, uint32_t pattern,
		uint32_t access, uint64_t va, uint64_t size, uint32_t stride,
		uint32_t count, uint32_t seed);

/* The paging counters of the file's VM (QUERY_PAGING). */
int bench_paging(struct vgpu_dev *dev, struct drm_vgpu_paging_counters *c);

/*
 * Modeled time (QUERY_TIME, hardware.rst "Cost model") of the file's VM,
 * the exec queues and the kernel ring; all 0 on a device without the cost
 * model.  0 or a negative errno.
 */
int bench_time(struct vgpu_dev *dev, struct drm_vgpu_query_time *t);
/* Modeled seconds from @then_ns to @now_ns. */
double bench_modeled_s(uint64_t then_ns, uint64_t now_ns);

/**
 * struct bench_span - a measured run: the VM's paging counters and
 * modeled time before (@c0, @m0) and after it (@c1, @m1), its wall time
 * @seconds from @t0
 */
struct bench_span {
	struct drm_vgpu_paging_counters c0, c1;
	struct drm_vgpu_query_time m0, m1;
	double t0, seconds;
};

/* Take the counters and start the clock; 0 or a negative errno. */
int bench_span_begin(struct vgpu_dev *dev, struct bench_span *s);
/* Stop the clock and take the counters again; 0 or a negative errno. */
int bench_span_end(struct vgpu_dev *dev, struct bench_span *s);

/* The paging columns of a span, and their report_row() arguments. */
#define BENCH_SPAN_COLS \
	{ "faults", REPORT_U64, 0 }, \
	{ "bytes_migrated", REPORT_U64, 0 }, \
	{ "evictions", REPORT_U64, 0 }, \
	{ "thrash_events", REPORT_U64, 0 }, \
	{ "remote_maps", REPORT_U64, 0 }
#define BENCH_SPAN_ROW(s) \
	(s)->c1.faults - (s)->c0.faults, \
	(s)->c1.bytes_to_vram - (s)->c0.bytes_to_vram, \
	(s)->c1.evictions - (s)->c0.evictions, \
	(s)->c1.thrash_events - (s)->c0.thrash_events, \
	(s)->c1.remote_maps - (s)->c0.remote_maps

#endif /* VGPU_BENCH_PAGING_H */
