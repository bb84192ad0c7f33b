/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FILE_H__
#define __VGPU_FILE_H__

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "vgpu_stats.h"

struct drm_device;
struct drm_file;
struct vgpu_vm;

/**
 * struct vgpu_file - driver state of an open render node
 * @lock: serialises VM_CREATE, VM_DESTROY and exec queue create and
 *	destroy; protects @retired and &vgpu_vm.user_queues.
 * @vms: the file's VMs by id, each holding the file's reference; id 0 is
 *	the default VM, made at open.  Changed under @lock.
 * @queues: the exec queues the file created (&struct vgpu_user_queue),
 *	by id.  Changed under @lock.
 * @retired: counters of the file's destroyed VMs, for fdinfo.
 */
struct vgpu_file {
	struct mutex lock;
	struct xarray vms;
	struct xarray queues;
	struct vgpu_stats_client retired;
};

int vgpu_file_open(struct drm_device *drm, struct drm_file *file);
void vgpu_file_postclose(struct drm_device *drm, struct drm_file *file);
struct vgpu_vm *vgpu_file_vm_get(struct drm_file *file, u32 id);
void vgpu_file_vm_put(struct vgpu_vm *vm);

int vgpu_vm_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vgpu_vm_destroy_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);

#endif /* __VGPU_FILE_H__ */
