/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_CHUNK_H__
#define __VGPU_CHUNK_H__

#include <linux/types.h>

#include "vgpu_chunk_types.h"
#include "vgpu_fault_log.h"

struct vgpu_bo;
struct vgpu_device;
struct vgpu_vm;

/**
 * struct vgpu_chunk_fault - one faulting page to resolve, and the outcome
 * @va: faulting VA.
 * @access_mask: ``BIT(VGPU_ACCESS_*)`` of the records for the page.
 * @reason: ``VGPU_FAULT_*`` reason of the first record.
 * @res: out: what was done.
 * @map_start: out: VA range now mapped (covers @va) ...
 * @map_end: ... end of it.
 * @writable: out: the range is mapped writable.
 * @deferred: in: the second pass of a fault that vgpu_chunk_fault()
 *	deferred with -EINPROGRESS: map, and keep @res if it says
 *	%VGPU_FAULT_RES_MIGRATED; no prefetch.
 */
struct vgpu_chunk_fault {
	u64 va;
	u32 access_mask;
	u32 reason;
	enum vgpu_fault_resolution res;
	u64 map_start;
	u64 map_end;
	bool writable;
	bool deferred;
};

void vgpu_chunk_pins_init(struct vgpu_device *vdev);
void vgpu_chunk_pins_fini(struct vgpu_device *vdev);
int vgpu_chunk_bo_init(struct vgpu_bo *bo);
void vgpu_chunk_bo_fini(struct vgpu_bo *bo);
bool vgpu_chunk_bo_busy(struct vgpu_bo *bo);
int vgpu_chunk_cpu_fault(struct vgpu_bo *bo, pgoff_t page, bool write,
			 pgoff_t *num_prefault, bool *read_only);

u64 vgpu_chunk_batch_begin(struct vgpu_device *vdev);
void vgpu_chunk_batch_hold(struct vgpu_device *vdev, u64 seq);
void vgpu_chunk_batch_init(struct vgpu_chunk_batch *cb, struct vgpu_device *vdev,
			   struct vgpu_vm *locked_vm);
int vgpu_chunk_batch_finish(struct vgpu_chunk_batch *cb, u64 *wait_ns);
void vgpu_chunk_lock_vm(struct vgpu_vm *vm, struct vgpu_chunk_batch *cb);
void vgpu_chunk_batch_kick(struct vgpu_chunk_batch *cb);
int vgpu_chunk_fault(struct vgpu_vm *vm, struct vgpu_chunk_fault *f,
		     struct vgpu_chunk_batch *cb);
int vgpu_chunk_place_range(struct vgpu_vm *vm, u64 va, u64 range,
			   u32 placement, u64 *moved);
void vgpu_chunk_advice_update(struct vgpu_bo *bo, u64 offset, u64 size);
int vgpu_chunk_advise_range(struct vgpu_vm *vm, u64 va, u64 range,
			    u32 advice, u64 value, u64 *moved);
void vgpu_chunk_unmapped(void *arg, unsigned int level, u64 va, u64 pte,
			 bool table);

#endif /* __VGPU_CHUNK_H__ */
