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
struct drm_gpuva;
struct drm_vgpu_query_vm;
struct ttm_buffer_object;
struct ttm_resource;
struct vgpu_bo;
struct vgpu_device;
struct vgpu_pt_update;

/** VGPU_VM_USER_START - first VA userspace may bind (VA 0 stays unmapped) */
#define VGPU_VM_USER_START	SZ_2M
/** VGPU_VM_USER_END - end of the user VA range; the top 1 GiB is the kernel's */
#define VGPU_VM_USER_END	(VGPU_VA_END - SZ_1G)
/** VGPU_VM_STREAM_VA - where a VM maps its inline-stream buffer, read-only */
#define VGPU_VM_STREAM_VA	VGPU_VM_USER_END
/** VGPU_VM_CLOSE_WAIT_MS - longest close() waits for the file's jobs */
#define VGPU_VM_CLOSE_WAIT_MS	1000
/** VGPU_VM_MAX_BIND_OPS - operations per VM_BIND call */
#define VGPU_VM_MAX_BIND_OPS	1024

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

void vgpu_vm_put_async(struct vgpu_vm *vm);

static inline bool vgpu_vm_banned(struct vgpu_vm *vm)
{
	return atomic_read(&vm->banned);
}

/**
 * vgpu_vm_root_desc() - the context root register value for a VM
 * @vm: VM
 *
 * Return: its root table's descriptor, or 0 (not valid: the device stops
 * a queue that runs on it with a CONTEXT error) while the VM has no page
 * table yet.  Every job's VM has one: its stream is mapped.
 */
static inline u64 vgpu_vm_root_desc(const struct vgpu_vm *vm)
{
	return vm->root ? vgpu_pt_desc(vm->root) : 0;
}

struct vgpu_vm *vgpu_vm_create(struct vgpu_device *vdev, bool kernel);
void vgpu_vm_destroy(struct vgpu_vm *vm);
void vgpu_vm_close(struct vgpu_vm *vm);
void vgpu_vm_unplug_all(struct vgpu_device *vdev);
void vgpu_vm_ban(struct vgpu_vm *vm);
int vgpu_vm_rebind(struct vgpu_vm *vm);
void vgpu_vm_bo_move(struct vgpu_bo *bo, struct ttm_resource *new_mem);
bool vgpu_vm_pt_over_limit(struct vgpu_vm *vm, struct vgpu_pt_update *up,
			   unsigned int n);
int vgpu_vm_root_prepare(struct vgpu_vm *vm, struct vgpu_pt_update *up);
int vgpu_vm_pt_reserve(struct vgpu_vm *vm, struct vgpu_pt_update *up,
		       unsigned int n);
int vgpu_vm_map_kernel(struct vgpu_vm *vm, u64 va, u64 addr, u64 size,
		       u64 pte_flags);
void vgpu_vm_pt_commit_locked(struct vgpu_vm *vm, struct vgpu_pt_update *up);
int vgpu_vm_pt_remap(struct vgpu_vm *vm, struct vgpu_pt_update *up,
		     struct drm_gpuva *gva, u64 va, u64 size,
		     struct ttm_buffer_object *tbo, u64 addr, u64 pte_flags);
u64 vgpu_vm_pt_zap(struct vgpu_vm *vm, struct drm_gpuva *gva, u64 va,
		   u64 size, bool defer);
bool vgpu_vm_bo_age(struct vgpu_bo *bo, u64 offset, u64 size);
void vgpu_vm_inval_flush(struct vgpu_device *vdev);
void vgpu_vm_count_mappings(struct vgpu_vm *vm, u64 *mappings, u64 *bytes);
void vgpu_vm_query(struct vgpu_vm *vm, struct drm_vgpu_query_vm *q);

int vgpu_vm_bind_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);

#endif /* __VGPU_VM_H__ */
