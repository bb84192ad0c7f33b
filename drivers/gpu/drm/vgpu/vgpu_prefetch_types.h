/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PREFETCH_TYPES_H__
#define __VGPU_PREFETCH_TYPES_H__

#include <linux/types.h>

/** VGPU_PREFETCH_STREAMS - fault streams tracked per VM */
#define VGPU_PREFETCH_STREAMS		8
/** VGPU_PREFETCH_REGIONS - density regions tracked per VM */
#define VGPU_PREFETCH_REGIONS		16
/** VGPU_PREFETCH_REGION_MAX_SHIFT - at most 64 chunks per region */
#define VGPU_PREFETCH_REGION_MAX_SHIFT	6

/**
 * struct vgpu_prefetch_cfg - prefetch and thrashing tunables
 * @max_depth: chunks a confirmed stream runs ahead at full confidence
 *	(0: stream prefetch off).
 * @max_stride: largest stride, in chunks, a stream may have.
 * @region_shift: log2 of the chunks in a density region
 *	(0..%VGPU_PREFETCH_REGION_MAX_SHIFT; 0: density prefetch off).
 * @density_pct: a region whose chunks faulted more than this percentage
 *	is pulled whole.
 * @thrash_count: a chunk that comes back into VRAM more than this many
 *	times within @thrash_window_ns thrashes (0: detection off).
 * @thrash_window_ns: the window.
 * @thrash_pin_ns: how long a thrashing chunk stays in system memory.
 */
struct vgpu_prefetch_cfg {
	unsigned int max_depth;
	unsigned int max_stride;
	unsigned int region_shift;
	unsigned int density_pct;
	unsigned int thrash_count;
	u64 thrash_window_ns;
	u64 thrash_pin_ns;
};

/**
 * struct vgpu_prefetch_stream - one detected fault stream
 * @last: chunk of the stream's last fault.
 * @stride: chunks between faults (0: one fault seen, stride unknown).
 * @next: first chunk ahead of the stream not yet suggested.
 * @confidence: faults that matched the stride in a row.
 * @stamp: last use, for replacement.
 */
struct vgpu_prefetch_stream {
	u64 last;
	s64 stride;
	u64 next;
	unsigned int confidence;
	u64 stamp;
};

/**
 * struct vgpu_prefetch_region - faults seen in one aligned region
 * @base: first chunk of the region.
 * @seen: chunks of the region that faulted.
 * @stamp: last use, for replacement (0: slot free).
 */
struct vgpu_prefetch_region {
	u64 base;
	u64 seen;
	u64 stamp;
};

/**
 * struct vgpu_prefetch_stats - prefetch counters
 * @faults: faults fed to the detector.
 * @stream_hits: faults that continued a stream.
 * @streams: streams confirmed (confidence reached 2).
 * @regions: regions pulled whole.
 * @suggested: chunks suggested.
 */
struct vgpu_prefetch_stats {
	u64 faults;
	u64 stream_hits;
	u64 streams;
	u64 regions;
	u64 suggested;
};

/**
 * struct vgpu_prefetch - per-VM prefetch detector state
 * @clock: use counter for the stamps.
 * @streams: tracked streams.
 * @regions: tracked regions.
 * @stats: counters.
 *
 * Protected by the lock of the VM's paging state (the caller's).
 */
struct vgpu_prefetch {
	u64 clock;
	struct vgpu_prefetch_stream streams[VGPU_PREFETCH_STREAMS];
	struct vgpu_prefetch_region regions[VGPU_PREFETCH_REGIONS];
	struct vgpu_prefetch_stats stats;
};

/**
 * struct vgpu_thrash - per-chunk thrashing detector
 * @window_start: time of the first return to VRAM in the current window
 *	(ns; 0: no window).
 * @returns: returns to VRAM in the window.
 * @pinned_until: the chunk stays in system memory until then (ns).
 * @migrations: migrations into VRAM over the chunk's life.
 */
struct vgpu_thrash {
	u64 window_start;
	u32 returns;
	u64 pinned_until;
	u32 migrations;
};

#endif /* __VGPU_PREFETCH_TYPES_H__ */
