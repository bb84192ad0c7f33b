/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_SVM_H__
#define __VGPU_SVM_H__

#include <linux/types.h>

#include "vgpu_svm_types.h"

struct vgpu_chunk_batch;
struct vgpu_chunk_fault;
struct vgpu_device;
struct vgpu_vm;

u64 vgpu_svm_modes(struct vgpu_device *vdev);
void vgpu_svm_vm_init(struct vgpu_vm *vm);
void vgpu_svm_remap_flush(struct vgpu_vm *vm);
struct vgpu_svm_mirror *vgpu_svm_mirror_create(struct vgpu_vm *vm, u64 start,
					       u64 size, u64 pte_flags);
void vgpu_svm_mirror_destroy(struct vgpu_svm_mirror *m);
int vgpu_svm_fault(struct vgpu_vm *vm, struct vgpu_chunk_fault *f,
		   struct vgpu_chunk_batch *cb);
int vgpu_svm_prefetch_range(struct vgpu_vm *vm, u64 va, u64 range,
			    u32 placement, u64 *moved);
int vgpu_svm_advise_range(struct vgpu_vm *vm, u64 va, u64 range, u32 advice,
			  u64 value, u64 *moved);

#endif /* __VGPU_SVM_H__ */
