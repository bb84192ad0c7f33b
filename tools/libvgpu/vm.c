// SPDX-License-Identifier: MIT
/*
 * libvgpu: VMs beyond the file's default one, created exec queues.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <xf86drm.h>

#include "libvgpu.h"

static int vgpu_vm_ioctl(struct vgpu_dev *dev, unsigned long req, void *arg)
{
	return drmIoctl(dev->fd, req, arg) ? -errno : 0;
}

int vgpu_vm_create(struct vgpu_dev *dev, uint32_t *vm_id)
{
	struct drm_vgpu_vm_create vc = { 0 };
	int ret = vgpu_vm_ioctl(dev, DRM_IOCTL_VGPU_VM_CREATE, &vc);

	if (!ret)
		*vm_id = vc.vm_id;
	return ret;
}

int vgpu_vm_destroy(struct vgpu_dev *dev, uint32_t vm_id)
{
	struct drm_vgpu_vm_destroy vd = { .vm_id = vm_id };

	return vgpu_vm_ioctl(dev, DRM_IOCTL_VGPU_VM_DESTROY, &vd);
}

int vgpu_vm_bind_in(struct vgpu_dev *dev, uint32_t vm_id,
		    const struct drm_vgpu_vm_bind_op *ops, uint32_t num_ops)
{
	struct drm_vgpu_vm_bind vb = {
		.vm_id = vm_id, .num_ops = num_ops, .ops = (uintptr_t)ops,
		.op_size = sizeof(*ops),
	};

	return vgpu_vm_ioctl(dev, DRM_IOCTL_VGPU_VM_BIND, &vb);
}

int vgpu_vm_map_in(struct vgpu_dev *dev, uint32_t vm_id, uint32_t handle,
		   uint64_t bo_offset, uint64_t va, uint64_t range,
		   uint32_t perms)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_MAP, .flags = perms, .handle = handle,
		.bo_offset = bo_offset, .va = va, .range = range,
	};

	return vgpu_vm_bind_in(dev, vm_id, &op, 1);
}

int vgpu_vm_unmap_in(struct vgpu_dev *dev, uint32_t vm_id, uint64_t va,
		     uint64_t range)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_UNMAP, .va = va, .range = range,
	};

	return vgpu_vm_bind_in(dev, vm_id, &op, 1);
}

int vgpu_exec_queue_create(struct vgpu_dev *dev, uint32_t vm_id, uint32_t ring,
			   uint32_t priority, uint32_t *queue_id)
{
	struct drm_vgpu_exec_queue_create qc = {
		.vm_id = vm_id, .ring = ring, .priority = priority,
	};
	int ret = vgpu_vm_ioctl(dev, DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE, &qc);

	if (!ret)
		*queue_id = qc.queue_id;
	return ret;
}

int vgpu_exec_queue_destroy(struct vgpu_dev *dev, uint32_t queue_id)
{
	struct drm_vgpu_exec_queue_destroy qd = { .queue_id = queue_id };

	return vgpu_vm_ioctl(dev, DRM_IOCTL_VGPU_EXEC_QUEUE_DESTROY, &qd);
}
