/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_VM_H__
#define __VGPU_VM_H__

#include <linux/sizes.h>
#include <linux/types.h>

#include "vgpu_pt_geom.h"
#include "vgpu_vm_types.h"

struct drm_device;
struct drm_file;
struct drm_vgpu_query_vm;
struct ttm_resource;
struct vgpu_bo;
struct vgpu_device;
struct vgpu_pt_update;

/** VGPU_VM_USER_START - first VA userspace may bind (VA 0 stays unmapped) */
#define VGPU_VM_USER_START	SZ_2M
/** VGPU_VM_USER_END - end of the user VA range; the top 1 GiB is the kernel's */
#define VGPU_VM_USER_END	(VGPU_VA_END - SZ_1G)
/** VGPU_VM_FENCE_VA - where each VM maps its fence page */
#define VGPU_VM_FENCE_VA	VGPU_VM_USER_END
/** VGPU_VM_MAX_BIND_OPS - operations per VM_BIND call */
#define VGPU_VM_MAX_BIND_OPS	1024

/**
 * struct vgpu_file - driver state of an open render node
 * @vm: the file's GPU VM.
 */
struct vgpu_file {
	struct vgpu_vm *vm;
};

static inline struct vgpu_vm *to_vgpu_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct vgpu_vm, gpuvm);
}

static inline struct vgpu_vm *vgpu_vm_get(struct vgpu_vm *vm)
{
	drm_gpuvm_get(&vm->gpuvm);
	return vm;
}

static inline void vgpu_vm_put(struct vgpu_vm *vm)
{
	drm_gpuvm_put(&vm->gpuvm);
}

static inline bool vgpu_vm_banned(struct vgpu_vm *vm)
{
	return atomic_read(&vm->banned);
}

struct vgpu_vm *vgpu_vm_create(struct vgpu_device *vdev);
void vgpu_vm_destroy(struct vgpu_vm *vm);
void vgpu_vm_ban(struct vgpu_vm *vm);
int vgpu_vm_rebind(struct vgpu_vm *vm);
void vgpu_vm_bo_move(struct vgpu_bo *bo, struct ttm_resource *new_mem);
int vgpu_vm_pt_reserve(struct vgpu_pt_update *up, unsigned int n);
void vgpu_vm_pt_commit_locked(struct vgpu_vm *vm, struct vgpu_pt_update *up);
void vgpu_vm_query(struct drm_file *file, struct drm_vgpu_query_vm *q);

int vgpu_vm_bind_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);

#endif /* __VGPU_VM_H__ */
