/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_DRV_H__
#define __VGPU_DRV_H__

#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_device.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>

#include "vgpu_admit_types.h"
#include "vgpu_ctx.h"
#include "vgpu_fault.h"
#include "vgpu_fault_log.h"
#include "vgpu_hw.h"
#include "vgpu_irq.h"
#include "vgpu_migrate.h"
#include "vgpu_paging_types.h"	/* Demand paging */
#include "vgpu_policy.h"
#include "vgpu_pool_types.h"
#include "vgpu_pt_pool.h"
#include "vgpu_queue.h"
#include "vgpu_reset.h"
#include "vgpu_stats_types.h"
#include "vgpu_vram_mgr_types.h"

#define DRIVER_NAME		"vgpu"
#define DRIVER_DESC		"Virtual GPU for memory-management development"
#define DRIVER_MAJOR		0
#define DRIVER_MINOR		1

/** VGPU_CAPS_REQUIRED - device capabilities the driver cannot do without */
#define VGPU_CAPS_REQUIRED	(VGPU_CAPS_CALL | VGPU_CAPS_FENCE_NOWRITE | \
				 VGPU_CAPS_PRIV_LEVELS | VGPU_CAPS_PT_XCHG)

/** VGPU_CTR_KEPT - device counters a counter reset must not hide */
#define VGPU_CTR_KEPT		(BIT(VGPU_CTR_STRICT_STALE) | \
				 BIT(VGPU_CTR_STRICT_BAD_CONTEXT))

/** VGPU_KERNEL_CONTEXTS - hardware contexts the kernel keeps (context 0) */
#define VGPU_KERNEL_CONTEXTS	1

struct vgpu_svm_dmem;

extern const struct drm_gem_object_funcs vgpu_gem_funcs;
extern struct workqueue_struct *vgpu_release_wq;

/**
 * struct vgpu_tlb - TLB invalidation state
 * @lock: serialises invalidation requests (one in flight).
 * @count: requests completed.
 */
struct vgpu_tlb {
	struct mutex lock;
	u64 count;
};

/**
 * struct vgpu_device - one vgpu PCI function
 * @drm: DRM device, embedded; its parent is the PCI device.
 * @mmio: BAR 0 register space.
 * @hw_version: VERSION register as read at probe.
 * @caps: CAPS register as read at probe.
 * @vram_size: VRAM size in bytes.
 * @visible_size: size of the CPU-visible VRAM window (BAR 2).
 * @visible_base: bus address of BAR 2.
 * @num_queues: hardware queues.
 * @num_contexts: hardware contexts.
 * @lanes: lanes an access kernel runs as, each with a fault of its own.
 * @vram_cpu: kernel mapping (write-combined) of the BAR 2 window.
 * @ttm: TTM device.
 * @vram_mgr: VRAM resource manager (%TTM_PL_VRAM).
 * @sys_mgr: system-memory resource manager (%TTM_PL_TT).
 * @admit: what the BOs have been promised of memory (vgpu_admit.c).
 * @stats: the device's bank of the driver's counters (vgpu_stats.c).
 * @pt_pool: VRAM pages for page tables.
 * @tlb: TLB invalidation.
 * @ctx: hardware context slots.
 * @reset: device reset worker.
 * @irq: interrupt state.
 * @fault: fault buffer.
 * @fault_log: the last faults handled, decoded (debugfs).
 * @policy: eviction and placement policies (sysfs).
 * @migrate: the kernel's copy engine.
 * @wq: frees the VMs of closed files whose jobs outlived close().
 * @vms_lock: protects @vms.
 * @inval_lock: protects @inval_vms (a spinlock, taken under a VM's
 *	page-table lock).
 * @inval_vms: the VMs with leaves changed without a TLB flush yet
 *	(&vgpu_vm.inval_link), for vgpu_vm_inval_flush().
 * @vms: every user VM, for what must go at unplug (vgpu_vm_unplug_all()).
 * @ctr_kept: what the %VGPU_CTR_KEPT counters had counted before the
 *	device's counters were last reset (protected by &vgpu_ctx_mgr.lock).
 * @paging: demand paging: fault batching, prefetch tunables, counters.
 * @pool: all of VRAM under one eviction order (vgpu_pool.c).
 * @dmem: VRAM as device-private pages for SVM memory (vgpu_svm_dmem.c),
 *	made when the first mirror is bound; NULL until then, and for good
 *	where they cannot be made (SVM memory stays in system memory).
 * @dmem_lock: serialises making @dmem.
 * @dmem_err: why @dmem cannot be made, 0 while it still may be.
 * @nr_queues: hardware queues in use.
 * @queues: the hardware queues.
 *
 * Everything above @vram_cpu is read-only after probe.
 */
struct vgpu_device {
	struct drm_device drm;
	void __iomem *mmio;

	u32 hw_version;
	u32 caps;
	u64 vram_size;
	u64 visible_size;
	resource_size_t visible_base;
	u32 num_queues;
	u32 num_contexts;
	u32 lanes;

	void __iomem *vram_cpu;
	struct ttm_device ttm;
	struct vgpu_vram_mgr vram_mgr;
	struct ttm_resource_manager sys_mgr;
	struct vgpu_admit admit;
	struct vgpu_stats stats;
	struct vgpu_pt_pool pt_pool;
	struct vgpu_tlb tlb;
	struct vgpu_ctx_mgr ctx;
	struct vgpu_reset reset;
	struct vgpu_irq irq;
	struct vgpu_fault_buf fault;
	struct vgpu_fault_log fault_log;
	struct vgpu_policy policy;
	struct workqueue_struct *wq;
	struct mutex vms_lock;
	struct list_head vms;
	spinlock_t inval_lock;		/* protects @inval_vms */
	struct list_head inval_vms;
	u64 ctr_kept[VGPU_CTR_NR];
	struct vgpu_migrate migrate;
	struct vgpu_paging paging;
	struct vgpu_pool pool;
	struct vgpu_svm_dmem *dmem;
	struct mutex dmem_lock;		/* making @dmem */
	int dmem_err;
	u32 nr_queues;
	struct vgpu_queue queues[VGPU_NUM_QUEUES];
};

static inline struct vgpu_device *to_vgpu(struct drm_device *drm)
{
	return container_of(drm, struct vgpu_device, drm);
}

static inline u32 vgpu_rd32(struct vgpu_device *vdev, u32 reg)
{
	return readl(vdev->mmio + reg);
}

static inline void vgpu_wr32(struct vgpu_device *vdev, u32 reg, u32 val)
{
	writel(val, vdev->mmio + reg);
}

/* Reads a _LO/_HI register pair; the device snapshots it on the _LO read. */
static inline u64 vgpu_rd64(struct vgpu_device *vdev, u32 reg_lo)
{
	u64 lo = vgpu_rd32(vdev, reg_lo);

	return lo | (u64)vgpu_rd32(vdev, reg_lo + 4) << 32;
}

/* Writes a _LO/_HI register pair; the device latches it on the _HI write. */
static inline void vgpu_wr64(struct vgpu_device *vdev, u32 reg_lo, u64 val)
{
	vgpu_wr32(vdev, reg_lo, lower_32_bits(val));
	vgpu_wr32(vdev, reg_lo + 4, upper_32_bits(val));
}

#endif /* __VGPU_DRV_H__ */
