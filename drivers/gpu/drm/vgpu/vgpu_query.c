// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_file.h"
#include "vgpu_ioctl.h"
#include "vgpu_paging.h"
#include "vgpu_pt_geom.h"
#include "vgpu_pt_pool.h"
#include "vgpu_query.h"
#include "vgpu_queue.h"
#include "vgpu_stats.h"
#include "vgpu_svm.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * vgpu_get_param_ioctl() - DRM_IOCTL_VGPU_GET_PARAM
 * @drm: DRM device
 * @data: &struct drm_vgpu_get_param, copied in and out by the DRM core
 * @file: DRM file of the caller
 *
 * Return: 0, or -EINVAL for an unknown parameter or non-zero flags/pad.
 */
int vgpu_get_param_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct drm_vgpu_get_param *args = data;

	if (VGPU_IOCTL_DBG(drm, args->flags || args->pad))
		return -EINVAL;

	switch (args->param) {
	case DRM_VGPU_PARAM_HW_VERSION:
		args->value = vdev->hw_version;
		break;
	case DRM_VGPU_PARAM_VRAM_SIZE:
		args->value = vdev->vram_size;
		break;
	case DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE:
		args->value = vdev->visible_size;
		break;
	case DRM_VGPU_PARAM_NUM_QUEUES:
		args->value = vdev->num_queues;
		break;
	case DRM_VGPU_PARAM_NUM_CONTEXTS:
		args->value = vdev->num_contexts;
		break;
	case DRM_VGPU_PARAM_VA_BITS:
		args->value = VGPU_VA_BITS;
		break;
	case DRM_VGPU_PARAM_PAGE_SIZES:
		args->value = vgpu_pt_page_sizes(vdev->caps);
		break;
	case DRM_VGPU_PARAM_PCI_ID:
		args->value = (u32)VGPU_PCI_VENDOR_ID << 16 | VGPU_PCI_DEVICE_ID;
		break;
	case DRM_VGPU_PARAM_VA_START:
		args->value = VGPU_VM_USER_START;
		break;
	case DRM_VGPU_PARAM_VA_END:
		args->value = VGPU_VM_USER_END;
		break;
	case DRM_VGPU_PARAM_EXEC_QUEUES:
		args->value = vgpu_exec_queues(vdev);
		break;
	case DRM_VGPU_PARAM_CAPS:
		args->value = vdev->caps;
		break;
	case DRM_VGPU_PARAM_MAX_BO_SIZE:
		args->value = VGPU_BO_MAX_SIZE;
		break;
	case DRM_VGPU_PARAM_SVM:
		args->value = vgpu_svm_modes(vdev);
		break;
	case DRM_VGPU_PARAM_LANES:
		args->value = vdev->lanes;
		break;
	default:
		drm_dbg_driver(drm, "ioctl check failed: unknown param %u\n",
			       args->param);
		return -EINVAL;
	}

	return 0;
}

/* The counters of &struct drm_vgpu_query_memory. */
static const struct vgpu_stats_field vgpu_query_memory_stats[] = {
	VGPU_STATS_FIELD(struct drm_vgpu_query_memory, bo_count, BO_COUNT),
	VGPU_STATS_FIELD(struct drm_vgpu_query_memory, evictions, EVICTIONS),
	VGPU_STATS_FIELD(struct drm_vgpu_query_memory, bytes_to_vram,
			 BYTES_TO_VRAM),
	VGPU_STATS_FIELD(struct drm_vgpu_query_memory, bytes_to_system,
			 BYTES_TO_SYSTEM),
	VGPU_STATS_FIELD(struct drm_vgpu_query_memory, vram_alloc_failures,
			 VRAM_ALLOC_FAILURES),
};

static void vgpu_query_memory(struct vgpu_device *vdev,
			      struct drm_vgpu_query_memory *m)
{
	struct vgpu_vram_stats st;

	vgpu_vram_mgr_stats(vdev, &st);
	m->vram_size = st.size;
	m->vram_used = st.used;
	m->vram_kernel_used = st.kernel_used;
	m->visible_size = st.visible_size;
	m->visible_used = st.visible_used;
	m->system_used = ttm_resource_manager_usage(&vdev->sys_mgr);
	m->pt_pages = vgpu_pt_pool_pages(vdev);
	vgpu_stats_fill(m, vgpu_query_memory_stats,
			ARRAY_SIZE(vgpu_query_memory_stats), vdev, NULL);
}

static void vgpu_query_counters(struct vgpu_device *vdev,
				struct drm_vgpu_query_counters *c)
{
	int i, idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return;
	for (i = 0; i < DRM_VGPU_NUM_COUNTERS; i++)
		c->counters[i] = vgpu_counter_read(vdev, i);
	drm_dev_exit(idx);
}

/* The cost model's parameters and modeled time (hardware.rst "Cost model"). */
static int vgpu_query_time(struct vgpu_device *vdev, struct vgpu_vm *vm,
			   struct drm_vgpu_query_time *t)
{
	u64 hw[VGPU_CTR_NR];
	int hw_ctx, i, idx;

	if (!(vdev->caps & VGPU_CAPS_COST_MODEL))
		return -EOPNOTSUPP;
	vgpu_ctx_counters(vm, hw, &hw_ctx);
	t->vm_modeled_ns = hw[VGPU_CTR_MODELED_NS];
	t->vm_stall_ns = hw[VGPU_CTR_STALL_NS];
	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	t->link = vgpu_rd32(vdev, VGPU_REG_COST_LINK);
	t->dilation = vgpu_rd32(vdev, VGPU_REG_COST_DILATION);
	t->vram_bw = vgpu_rd32(vdev, VGPU_REG_COST_VRAM_BW);
	t->link_bw = vgpu_rd32(vdev, VGPU_REG_COST_LINK_BW);
	t->link_lat_ns = vgpu_rd32(vdev, VGPU_REG_COST_LINK_LAT);
	t->tlb_miss_ns = vgpu_rd32(vdev, VGPU_REG_COST_TLB_MISS);
	t->walk_level_ns = vgpu_rd32(vdev, VGPU_REG_COST_WALK_LEVEL);
	t->fault_ns = vgpu_rd32(vdev, VGPU_REG_COST_FAULT);
	t->cmd_ns = vgpu_rd32(vdev, VGPU_REG_COST_CMD);
	t->modeled_ns = vgpu_counter_read(vdev, VGPU_CTR_MODELED_NS);
	t->stall_ns = vgpu_counter_read(vdev, VGPU_CTR_STALL_NS);
	t->kernel_ns = vgpu_rd64(vdev, VGPU_QTIME_REG(0, VGPU_QTIME_CLOCK_LO));
	t->num_queues = min_t(u32, vgpu_exec_queues(vdev),
			      DRM_VGPU_QUERY_TIME_QUEUES);
	for (i = 0; i < t->num_queues; i++) {
		u32 hw = vgpu_exec_queue(vdev, i)->id;

		t->queue_ns[i] =
			vgpu_rd64(vdev, VGPU_QTIME_REG(hw, VGPU_QTIME_CLOCK_LO));
		t->queue_stall_ns[i] =
			vgpu_rd64(vdev, VGPU_QTIME_REG(hw, VGPU_QTIME_STALL_LO));
		t->vm_queue_ns[i] = atomic64_read(&vm->modeled_ns[hw]);
	}
	drm_dev_exit(idx);
	return 0;
}

/**
 * vgpu_query_ioctl() - DRM_IOCTL_VGPU_QUERY
 * @drm: DRM device
 * @data: &struct drm_vgpu_query
 * @file: DRM file of the caller
 *
 * Return: 0, -EINVAL for a bad type/flags/vm_id, -ENOENT for an unknown
 * vm_id, -EFAULT for a bad pointer, -EOPNOTSUPP for %DRM_VGPU_QUERY_TIME
 * on a device without the cost model.
 */
int vgpu_query_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu(drm);
	struct drm_vgpu_query *args = data;
	union {
		struct drm_vgpu_query_memory mem;
		struct drm_vgpu_query_vm vm;
		struct drm_vgpu_query_counters ctr;
		struct drm_vgpu_query_paging paging;
		struct drm_vgpu_query_time time;
	} *r;
	struct vgpu_vm *vm = NULL;
	bool per_vm;
	u32 size;
	int ret = 0;

	if (VGPU_IOCTL_DBG(drm, args->flags))
		return -EINVAL;

	switch (args->type) {
	case DRM_VGPU_QUERY_MEMORY:
		size = sizeof(r->mem);
		break;
	case DRM_VGPU_QUERY_VM:
		size = sizeof(r->vm);
		break;
	case DRM_VGPU_QUERY_DEVICE_COUNTERS:
		size = sizeof(r->ctr);
		break;
	case DRM_VGPU_QUERY_PAGING:
		size = sizeof(r->paging);
		break;
	case DRM_VGPU_QUERY_TIME:
		size = sizeof(r->time);
		break;
	default:
		drm_dbg_driver(drm, "ioctl check failed: unknown query type %u\n",
			       args->type);
		return -EINVAL;
	}
	per_vm = args->type == DRM_VGPU_QUERY_VM ||
		 args->type == DRM_VGPU_QUERY_PAGING ||
		 args->type == DRM_VGPU_QUERY_TIME;
	if (VGPU_IOCTL_DBG(drm, !per_vm && args->vm_id))
		return -EINVAL;

	if (per_vm) {
		vm = vgpu_file_vm_get(file, args->vm_id);
		if (IS_ERR(vm))
			return PTR_ERR(vm);
	}
	if (!args->size) {
		args->size = size;
		goto out_put_vm;
	}

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ret = -ENOMEM;
		goto out_put_vm;
	}

	switch (args->type) {
	case DRM_VGPU_QUERY_MEMORY:
		vgpu_query_memory(vdev, &r->mem);
		break;
	case DRM_VGPU_QUERY_VM:
		vgpu_vm_query(vm, &r->vm);
		break;
	case DRM_VGPU_QUERY_DEVICE_COUNTERS:
		vgpu_query_counters(vdev, &r->ctr);
		break;
	case DRM_VGPU_QUERY_PAGING:
		vgpu_paging_query(vm, &r->paging);
		break;
	case DRM_VGPU_QUERY_TIME:
		ret = vgpu_query_time(vdev, vm, &r->time);
		break;
	}

	if (ret)
		goto out_free;
	size = min(size, args->size);
	if (copy_to_user(u64_to_user_ptr(args->data), r, size))
		ret = -EFAULT;
	else
		args->size = size;
out_free:
	kfree(r);
out_put_vm:
	if (vm)
		vgpu_file_vm_put(vm);
	return ret;
}
