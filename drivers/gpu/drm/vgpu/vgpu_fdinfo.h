/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FDINFO_H__
#define __VGPU_FDINFO_H__

#include <linux/types.h>

#include "vgpu_hw.h"
#include "vgpu_paging_types.h"
#include "vgpu_vm_types.h"

struct drm_file;
struct drm_printer;
struct ttm_buffer_object;
struct vgpu_queue;
struct vgpu_vm;

/**
 * struct vgpu_fdinfo_totals - cumulative counters of VMs, summed
 * @ctr: driver counters.
 * @paging: demand-paging counters.
 * @dev: device counters (``VGPU_CTR_*``) of the contexts the VMs ran on.
 *
 * A file keeps those of its destroyed VMs (&vgpu_file.retired), so that
 * its fdinfo figures never go back.
 */
struct vgpu_fdinfo_totals {
	struct vgpu_vm_counters ctr;
	struct vgpu_paging_counters paging;
	u64 dev[VGPU_CTR_NR];
};

void vgpu_fdinfo_totals_add(struct vgpu_fdinfo_totals *t, struct vgpu_vm *vm);
void vgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void vgpu_fdinfo_engine_charge(struct vgpu_queue *q, struct vgpu_vm *vm,
			       u64 start_ns, u64 end_ns);
void vgpu_fdinfo_account_move(struct ttm_buffer_object *tbo, bool evict,
			      int old_type, u32 new_type);

#endif /* __VGPU_FDINFO_H__ */
