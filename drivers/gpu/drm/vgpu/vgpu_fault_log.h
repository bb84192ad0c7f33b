/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FAULT_LOG_H__
#define __VGPU_FAULT_LOG_H__

#include <linux/spinlock.h>
#include <linux/types.h>

struct seq_file;
struct vgpu_device;
struct vgpu_fault;
struct vgpu_vm;

/** VGPU_FAULT_LOG_ENTRIES - faults the log remembers (a power of two) */
#define VGPU_FAULT_LOG_ENTRIES	64

/**
 * enum vgpu_fault_resolution - what the driver did about a fault
 * @VGPU_FAULT_RES_CANCELLED: unresolvable: the job was cancelled and the
 *	VM banned.
 * @VGPU_FAULT_RES_NO_VM: the context had no VM (already gone); the queue
 *	was cancelled.
 * @VGPU_FAULT_RES_MIGRATED: the backing was migrated into VRAM and the
 *	access replayed.
 * @VGPU_FAULT_RES_MAPPED_SYSTEM: the backing was mapped in system memory
 *	(remote mapping) and the access replayed.
 * @VGPU_FAULT_RES_REBOUND: the mapping was written again where the data
 *	already was, and the access replayed.
 * @VGPU_FAULT_RES_DUPLICATE: same VM and page as a fault of the same batch;
 *	resolved with it.
 * @VGPU_FAULT_RES_NR: number of resolutions.
 *
 * The paging code (fault batching) reports the last four; without it every
 * fault is unresolvable.
 */
enum vgpu_fault_resolution {
	VGPU_FAULT_RES_CANCELLED,
	VGPU_FAULT_RES_NO_VM,
	VGPU_FAULT_RES_MIGRATED,
	VGPU_FAULT_RES_MAPPED_SYSTEM,
	VGPU_FAULT_RES_REBOUND,
	VGPU_FAULT_RES_DUPLICATE,
	VGPU_FAULT_RES_NR,
};

/**
 * struct vgpu_fault_log_entry - one decoded fault, as the log keeps it
 * @seqno: number of the fault since the driver loaded, from 1.
 * @timestamp: device time of the fault, ns.
 * @client_id: drm-client-id of the file owning the VM, 0 if none.
 * @va: faulting GPU VA, page aligned.
 * @queue: hardware queue.
 * @ctx: hardware context.
 * @access: ``VGPU_ACCESS_*``.
 * @reason: ``VGPU_FAULT_*`` reason.
 * @level: page-table level the walk stopped at (4: the context root).
 * @resolution: &enum vgpu_fault_resolution.
 */
struct vgpu_fault_log_entry {
	u64 seqno;
	u64 timestamp;
	u64 client_id;
	u64 va;
	u8 queue;
	u8 ctx;
	u8 access;
	u8 reason;
	u8 level;
	u8 resolution;
};

/**
 * struct vgpu_fault_log - ring of the last %VGPU_FAULT_LOG_ENTRIES faults
 * @lock: protects every field.
 * @seqno: faults logged since load; the newest entry is at
 *	(@seqno - 1) % %VGPU_FAULT_LOG_ENTRIES.
 * @by_resolution: faults logged per &enum vgpu_fault_resolution since load
 *	or the last counter reset (their sum is sysfs counters/faults_handled).
 * @entries: the ring.
 */
struct vgpu_fault_log {
	spinlock_t lock;
	u64 seqno;
	u64 by_resolution[VGPU_FAULT_RES_NR];
	struct vgpu_fault_log_entry entries[VGPU_FAULT_LOG_ENTRIES];
};

void vgpu_fault_log_init(struct vgpu_fault_log *log);
void vgpu_fault_log_add(struct vgpu_device *vdev, const struct vgpu_fault *f,
			struct vgpu_vm *vm, enum vgpu_fault_resolution res);
void vgpu_fault_log_show(struct vgpu_device *vdev, struct seq_file *m);
void vgpu_fault_log_reset_counters(struct vgpu_device *vdev);
const char *vgpu_fault_access_name(u32 access);
const char *vgpu_fault_reason_name(u32 reason);
const char *vgpu_fault_resolution_name(u32 res);

#endif /* __VGPU_FAULT_LOG_H__ */
