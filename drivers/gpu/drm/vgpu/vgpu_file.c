// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/vgpu_drm.h>

#include "vgpu_drv.h"
#include "vgpu_fdinfo.h"
#include "vgpu_file.h"
#include "vgpu_ioctl.h"
#include "vgpu_user_queue.h"
#include "vgpu_vm.h"

/**
 * DOC: files and their VMs
 *
 * Each open file of the render node has a &struct vgpu_file: its VMs in
 * an xarray by id, and the exec queues it created (vgpu_user_queue.c).
 * Open makes the default VM, id 0, which lives as long as the file;
 * VM_CREATE allocates ids 1 to %DRM_VGPU_MAX_VMS with xa_alloc(), as
 * panthor does, and refuses more with -EBUSY.  The xarray holds the
 * file's reference to each VM.
 *
 * An ioctl that names a VM looks it up with vgpu_file_vm_get(): a
 * reference, and &vgpu_vm.users held for reading until
 * vgpu_file_vm_put().  VM_DESTROY takes the VM out of the xarray, so that
 * no new lookup finds it, then takes &vgpu_vm.users for writing, which
 * waits for the ioctls in progress on it, and marks it destroyed for the
 * lookups that got their reference just before: they fail with -ENOENT.
 * Then the VM goes the way the default VM goes at close, vgpu_vm_close():
 * banned, its queued jobs flushed or killed, a bounded wait for the jobs
 * on the device, the page tables and context freed now or by a worker
 * when the last job ends.  So after the write lock nothing can add a job,
 * an entity or a mapping to the VM.
 *
 * fdinfo adds up the file's VMs; the cumulative counters of destroyed
 * VMs are kept in &vgpu_file.retired, taken when VM_DESTROY returns (a job
 * that outlives VM_DESTROY's wait is not counted after that).
 */

/* Ids of the VMs VM_CREATE makes. */
#define VGPU_FILE_VM_IDS	XA_LIMIT(1, DRM_VGPU_MAX_VMS)

/**
 * vgpu_file_open() - &drm_driver.open: a file with its default VM
 * @drm: DRM device
 * @file: the new file
 *
 * Return: 0 or a negative errno.
 */
int vgpu_file_open(struct drm_device *drm, struct drm_file *file)
{
	struct vgpu_file *vfile;
	struct vgpu_vm *vm;
	int ret;

	vfile = kzalloc(sizeof(*vfile), GFP_KERNEL);
	if (!vfile)
		return -ENOMEM;
	mutex_init(&vfile->lock);
	xa_init_flags(&vfile->vms, XA_FLAGS_ALLOC);
	xa_init_flags(&vfile->queues, XA_FLAGS_ALLOC);

	vm = vgpu_vm_create(to_vgpu(drm), false);
	if (IS_ERR(vm)) {
		ret = PTR_ERR(vm);
		goto err_free;
	}
	vm->client_id = file->client_id;
	ret = xa_insert(&vfile->vms, 0, vm, GFP_KERNEL);
	if (ret) {
		vgpu_vm_close(vm);
		goto err_free;
	}
	file->driver_priv = vfile;
	return 0;

err_free:
	kfree(vfile);
	return ret;
}

/**
 * vgpu_file_postclose() - &drm_driver.postclose: end every queue and VM
 * @drm: DRM device
 * @file: the closing file; no ioctl of it runs any more
 */
void vgpu_file_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct vgpu_vm *vm;
	unsigned long id;

	vgpu_user_queues_fini(vfile);
	xa_for_each(&vfile->vms, id, vm)
		vgpu_vm_close(vm);
	xa_destroy(&vfile->vms);
	mutex_destroy(&vfile->lock);
	kfree(vfile);
}

/**
 * vgpu_file_vm_get() - look up a VM of the file for an ioctl
 * @file: DRM file
 * @id: VM id from the ioctl's arguments
 *
 * Return: the VM with a reference and &vgpu_vm.users held for reading,
 * both dropped by vgpu_file_vm_put(); ERR_PTR(-ENOENT) for an id the file
 * has no VM for (or one being destroyed).
 *
 * Context: process; may sleep.
 */
struct vgpu_vm *vgpu_file_vm_get(struct drm_file *file, u32 id)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct vgpu_vm *vm;

	xa_lock(&vfile->vms);
	vm = xa_load(&vfile->vms, id);
	if (vm)
		vgpu_vm_get(vm);
	xa_unlock(&vfile->vms);
	if (VGPU_IOCTL_DBG(file->minor->dev, !vm))
		return ERR_PTR(-ENOENT);

	down_read(&vm->users);
	if (VGPU_IOCTL_DBG(file->minor->dev, vm->destroyed)) {
		vgpu_file_vm_put(vm);
		return ERR_PTR(-ENOENT);
	}
	return vm;
}

/**
 * vgpu_file_vm_put() - an ioctl is done with a VM
 * @vm: VM from vgpu_file_vm_get()
 */
void vgpu_file_vm_put(struct vgpu_vm *vm)
{
	up_read(&vm->users);
	vgpu_vm_put(vm);
}

/**
 * vgpu_vm_create_ioctl() - DRM_IOCTL_VGPU_VM_CREATE
 * @drm: DRM device
 * @data: &struct drm_vgpu_vm_create
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_vm_create.
 */
int vgpu_vm_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct drm_vgpu_vm_create *args = data;
	struct vgpu_vm *vm;
	u32 id;
	int ret;

	if (VGPU_IOCTL_DBG(drm, args->flags || args->reserved))
		return -EINVAL;

	vm = vgpu_vm_create(to_vgpu(drm), false);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	vm->client_id = file->client_id;

	mutex_lock(&vfile->lock);
	/* The id goes out last: the VM is complete once it can be found. */
	ret = xa_alloc(&vfile->vms, &id, vm, VGPU_FILE_VM_IDS, GFP_KERNEL);
	if (!ret)
		vm->id = id;
	mutex_unlock(&vfile->lock);
	if (VGPU_IOCTL_DBG(drm, ret)) {
		vgpu_vm_close(vm);
		return ret;
	}
	args->vm_id = id;
	return 0;
}

/**
 * vgpu_vm_destroy_ioctl() - DRM_IOCTL_VGPU_VM_DESTROY
 * @drm: DRM device
 * @data: &struct drm_vgpu_vm_destroy
 * @file: DRM file of the caller
 *
 * Return: 0 or a negative errno, see &struct drm_vgpu_vm_destroy.
 */
int vgpu_vm_destroy_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct vgpu_file *vfile = file->driver_priv;
	struct drm_vgpu_vm_destroy *args = data;
	struct vgpu_vm *vm;
	int ret = 0;

	if (VGPU_IOCTL_DBG(drm, !args->vm_id || args->pad))
		return -EINVAL;

	mutex_lock(&vfile->lock);
	vm = xa_load(&vfile->vms, args->vm_id);
	if (VGPU_IOCTL_DBG(drm, !vm))
		ret = -ENOENT;
	else if (VGPU_IOCTL_DBG(drm, vm->user_queues))
		ret = -EBUSY;
	else
		xa_erase(&vfile->vms, args->vm_id);
	mutex_unlock(&vfile->lock);
	if (ret)
		return ret;

	/* Wait for the ioctls using the VM; later lookups fail. */
	down_write(&vm->users);
	vm->destroyed = true;
	up_write(&vm->users);

	/* vgpu_vm_close() drops the file's reference; keep one for the sums. */
	vgpu_vm_get(vm);
	vgpu_vm_close(vm);
	mutex_lock(&vfile->lock);
	vgpu_stats_client_add(&vfile->retired, vm);
	mutex_unlock(&vfile->lock);
	vgpu_vm_put(vm);
	return 0;
}
