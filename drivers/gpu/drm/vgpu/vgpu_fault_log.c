// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/seq_file.h>
#include <linux/slab.h>

#include "vgpu_drv.h"
#include "vgpu_fault.h"
#include "vgpu_fault_log.h"
#include "vgpu_vm.h"

/**
 * DOC: fault log
 *
 * Every GPU fault the driver handles is decoded once (&struct vgpu_fault)
 * and then recorded, with what the driver did about it, in a ring of the
 * last %VGPU_FAULT_LOG_ENTRIES faults.  The ring is read through debugfs
 * (``fault_log``), one line per fault, oldest first; the kernel log only
 * gets a rate-limited line per unresolvable fault.
 *
 * The VM is named by the drm-client-id of the file that owns it, the
 * number fdinfo and vgpu-smi show, so a fault can be tied to a process.
 */

static const char *const vgpu_fault_access_names[] = {
	[VGPU_ACCESS_READ] = "read",
	[VGPU_ACCESS_WRITE] = "write",
	[VGPU_ACCESS_EXEC] = "exec",
};

static const char *const vgpu_fault_reason_names[] = {
	[VGPU_FAULT_NOT_PRESENT] = "not-present",
	[VGPU_FAULT_READ_DENIED] = "read-denied",
	[VGPU_FAULT_WRITE_DENIED] = "write-denied",
	[VGPU_FAULT_EXEC_DENIED] = "exec-denied",
	[VGPU_FAULT_BAD_ADDRESS] = "bad-address",
	[VGPU_FAULT_PT_DMA] = "pt-unreadable",
	[VGPU_FAULT_BAD_ENTRY] = "bad-entry",
};

static const char *const vgpu_fault_resolution_names[] = {
	[VGPU_FAULT_RES_CANCELLED] = "cancelled",
	[VGPU_FAULT_RES_NO_VM] = "no-vm",
	[VGPU_FAULT_RES_MIGRATED] = "migrated",
	[VGPU_FAULT_RES_MAPPED_SYSTEM] = "mapped-system",
	[VGPU_FAULT_RES_REBOUND] = "rebound",
	[VGPU_FAULT_RES_DUPLICATE] = "duplicate",
};

static const char *vgpu_name(const char *const *names, size_t n, u32 i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

/** vgpu_fault_access_name() - name of a ``VGPU_ACCESS_*`` value */
const char *vgpu_fault_access_name(u32 access)
{
	return vgpu_name(vgpu_fault_access_names,
			 ARRAY_SIZE(vgpu_fault_access_names), access);
}

/** vgpu_fault_reason_name() - name of a ``VGPU_FAULT_*`` reason */
const char *vgpu_fault_reason_name(u32 reason)
{
	return vgpu_name(vgpu_fault_reason_names,
			 ARRAY_SIZE(vgpu_fault_reason_names), reason);
}

/** vgpu_fault_resolution_name() - name of an &enum vgpu_fault_resolution */
const char *vgpu_fault_resolution_name(u32 res)
{
	return vgpu_name(vgpu_fault_resolution_names,
			 ARRAY_SIZE(vgpu_fault_resolution_names), res);
}

/**
 * vgpu_fault_log_init() - empty log
 * @log: the log
 */
void vgpu_fault_log_init(struct vgpu_fault_log *log)
{
	spin_lock_init(&log->lock);
	log->seqno = 0;
	memset(log->by_resolution, 0, sizeof(log->by_resolution));
}

/**
 * vgpu_fault_log_add() - record a handled fault
 * @vdev: vgpu device
 * @f: the decoded fault record
 * @vm: VM owning the faulting context, or NULL
 * @res: what the driver did
 *
 * Context: any; takes a spinlock.
 */
void vgpu_fault_log_add(struct vgpu_device *vdev, const struct vgpu_fault *f,
			struct vgpu_vm *vm, enum vgpu_fault_resolution res)
{
	struct vgpu_fault_log *log = &vdev->fault_log;
	struct vgpu_fault_log_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	e = &log->entries[log->seqno % VGPU_FAULT_LOG_ENTRIES];
	e->seqno = ++log->seqno;
	e->timestamp = f->timestamp;
	e->client_id = vm ? vm->client_id : 0;
	e->va = f->va;
	e->queue = f->queue;
	e->ctx = f->ctx;
	e->access = f->access;
	e->reason = f->reason;
	e->level = f->level;
	e->resolution = res;
	if (res < VGPU_FAULT_RES_NR)
		log->by_resolution[res]++;
	spin_unlock_irqrestore(&log->lock, flags);
}

/**
 * vgpu_fault_log_reset_counters() - zero the per-resolution counts
 * @vdev: vgpu device
 *
 * The log itself and its sequence numbers stay.
 */
void vgpu_fault_log_reset_counters(struct vgpu_device *vdev)
{
	struct vgpu_fault_log *log = &vdev->fault_log;
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	memset(log->by_resolution, 0, sizeof(log->by_resolution));
	spin_unlock_irqrestore(&log->lock, flags);
}

/**
 * vgpu_fault_log_show() - print the log, oldest first
 * @vdev: vgpu device
 * @m: output
 *
 * Copies the ring under the lock, prints it without.
 */
void vgpu_fault_log_show(struct vgpu_device *vdev, struct seq_file *m)
{
	struct vgpu_fault_log *log = &vdev->fault_log;
	struct vgpu_fault_log_entry *copy;
	u64 by_res[VGPU_FAULT_RES_NR];
	unsigned long flags;
	u64 seqno, first, s;
	unsigned int i;

	copy = kmalloc_array(VGPU_FAULT_LOG_ENTRIES, sizeof(*copy), GFP_KERNEL);
	if (!copy) {
		seq_puts(m, "# out of memory\n");
		return;
	}
	spin_lock_irqsave(&log->lock, flags);
	seqno = log->seqno;
	memcpy(by_res, log->by_resolution, sizeof(by_res));
	memcpy(copy, log->entries, sizeof(*copy) * VGPU_FAULT_LOG_ENTRIES);
	spin_unlock_irqrestore(&log->lock, flags);

	first = seqno > VGPU_FAULT_LOG_ENTRIES ? seqno - VGPU_FAULT_LOG_ENTRIES : 0;
	seq_printf(m, "# faults logged: %llu (last %u kept)\n", seqno,
		   VGPU_FAULT_LOG_ENTRIES);
	seq_puts(m, "# by resolution:");
	for (i = 0; i < VGPU_FAULT_RES_NR; i++)
		seq_printf(m, " %s=%llu", vgpu_fault_resolution_name(i), by_res[i]);
	seq_puts(m, "\n# seqno time_ns client queue ctx va access reason level resolution\n");
	for (s = first; s < seqno; s++) {
		const struct vgpu_fault_log_entry *e =
			&copy[s % VGPU_FAULT_LOG_ENTRIES];

		seq_printf(m, "%llu %llu %llu %u %u 0x%012llx %s %s ",
			   e->seqno, e->timestamp, e->client_id, e->queue,
			   e->ctx, e->va, vgpu_fault_access_name(e->access),
			   vgpu_fault_reason_name(e->reason));
		if (e->level == VGPU_FAULT_LEVEL_ROOT)
			seq_puts(m, "root ");
		else
			seq_printf(m, "L%u ", e->level);
		seq_printf(m, "%s\n", vgpu_fault_resolution_name(e->resolution));
	}
	kfree(copy);
}
