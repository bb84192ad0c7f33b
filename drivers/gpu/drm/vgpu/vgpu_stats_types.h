/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_STATS_TYPES_H__
#define __VGPU_STATS_TYPES_H__

#include <linux/atomic.h>
#include <linux/types.h>

#include "vgpu_stats_list.h"

/*
 * enum vgpu_stat - a counter of the registry (vgpu_stats_list.h): one
 * VGPU_STAT_<ID> per line of VGPU_STATS_LIST(), then VGPU_STAT_NR.
 */
enum vgpu_stat {
#define VGPU_STAT_ENUM(id, ...) VGPU_STAT_##id,
	VGPU_STATS_LIST(VGPU_STAT_ENUM)
#undef VGPU_STAT_ENUM
	VGPU_STAT_NR
};

/**
 * struct vgpu_stats - a bank of the driver's counters: the device's, or a VM's
 * @v: indexed by &enum vgpu_stat; only counters whose source is
 *	%VGPU_SRC_SW for the bank's scope are ever counted.
 *
 * Atomic: updated without locks wherever the event happens, with
 * vgpu_stats_add() or vgpu_stats_vm_add().
 */
struct vgpu_stats {
	atomic64_t v[VGPU_STAT_NR];
};

#endif /* __VGPU_STATS_TYPES_H__ */
