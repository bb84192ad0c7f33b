/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_SVM_DMEM_H__
#define __VGPU_SVM_DMEM_H__

#include <linux/types.h>

struct page;
struct vgpu_device;
struct vgpu_vm;

#if IS_ENABLED(CONFIG_DEVICE_PRIVATE)
void vgpu_svm_dmem_init(struct vgpu_device *vdev);
void vgpu_svm_dmem_fini(struct vgpu_device *vdev);
void vgpu_svm_dmem_get(struct vgpu_device *vdev);
bool vgpu_svm_dmem_possible(struct vgpu_device *vdev);
void *vgpu_svm_dmem_owner(struct vgpu_device *vdev);
bool vgpu_svm_dmem_vram(struct vgpu_device *vdev, struct page *page, u64 *vram);
u64 vgpu_svm_dmem_migrate(struct vgpu_vm *vm, u64 va, u64 start, u64 end);
s64 vgpu_svm_dmem_to_system(struct vgpu_vm *vm, u64 start, u64 end);
void vgpu_svm_dmem_vm_gone(struct vgpu_vm *vm);
#else
/* Without DEVICE_PRIVATE, SVM memory stays in system memory. */
static inline void vgpu_svm_dmem_init(struct vgpu_device *vdev)
{
}

static inline void vgpu_svm_dmem_fini(struct vgpu_device *vdev)
{
}

static inline void vgpu_svm_dmem_get(struct vgpu_device *vdev)
{
}

static inline bool vgpu_svm_dmem_possible(struct vgpu_device *vdev)
{
	return false;
}

static inline void *vgpu_svm_dmem_owner(struct vgpu_device *vdev)
{
	return NULL;
}

static inline bool vgpu_svm_dmem_vram(struct vgpu_device *vdev,
				      struct page *page, u64 *vram)
{
	return false;
}

static inline u64 vgpu_svm_dmem_migrate(struct vgpu_vm *vm, u64 va, u64 start,
					u64 end)
{
	return 0;
}

static inline s64 vgpu_svm_dmem_to_system(struct vgpu_vm *vm, u64 start,
					  u64 end)
{
	return 0;
}

static inline void vgpu_svm_dmem_vm_gone(struct vgpu_vm *vm)
{
}
#endif

#endif /* __VGPU_SVM_DMEM_H__ */
