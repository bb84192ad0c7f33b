/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FAULT_H__
#define __VGPU_FAULT_H__

#include <linux/types.h>

struct vgpu_device;

/**
 * VGPU_FAULT_ENTRIES_MIN - fewest records in the fault buffer; it holds
 * two rounds of faults from every lane of every queue when that is more
 */
#define VGPU_FAULT_ENTRIES_MIN	256

/**
 * struct vgpu_fault - a decoded fault record
 * @va: faulting GPU VA, page aligned.
 * @queue: hardware queue that stalled.
 * @ctx: hardware context.
 * @access: ``VGPU_ACCESS_*``.
 * @reason: ``VGPU_FAULT_*`` reason.
 * @level: page-table level the walk stopped at.
 * @timestamp: device time in ns.
 */
struct vgpu_fault {
	u64 va;
	u32 queue;
	u32 ctx;
	u32 access;
	u32 reason;
	u32 level;
	u64 timestamp;
};

/**
 * struct vgpu_fault_buf - the fault buffer the device writes records into
 * @records: CPU address (coherent system memory).
 * @dma: its DMA address.
 * @entries: records it holds, a power of two.
 * @head: next record to read.
 * @total: records read.
 * @overflows: records the device dropped (from its register).
 */
struct vgpu_fault_buf {
	u32 *records;
	dma_addr_t dma;
	u32 entries;
	u32 head;
	u64 total;
	u64 overflows;
};

int vgpu_fault_init(struct vgpu_device *vdev);
void vgpu_fault_fini(struct vgpu_device *vdev);
void vgpu_fault_hw_init(struct vgpu_device *vdev);
void vgpu_fault_drain(struct vgpu_device *vdev);

#endif /* __VGPU_FAULT_H__ */
