/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_VM_TYPES_H__
#define __VGPU_VM_TYPES_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/drm_gpuvm.h>

#include "vgpu_hw.h"
#include "vgpu_paging_types.h"	/* Demand paging */
#include "vgpu_pt.h"
#include "vgpu_stats_types.h"
#include "vgpu_stream_types.h"
#include "vgpu_svm_types.h"

struct drm_sched_entity;
struct mm_struct;
struct vgpu_bo;
struct vgpu_device;
struct vgpu_svm_mirror;

/**
 * struct vgpu_vma - one GPU mapping
 * @base: drm_gpuvm's mapping: VA range, BO and offset.
 * @pte_flags: %VGPU_PTE_READ / _WRITE / _EXEC.
 * @mapped: the page tables hold the mapping (protected by
 *	&vgpu_vm.pt_lock); false after the BO moved, until the next EXEC
 *	maps it again.
 * @rebind_link: in &vgpu_vm.rebind while not @mapped (protected by
 *	&vgpu_vm.pt_lock).
 * @mirror: a CPU-address mirror (no BO), or NULL (vgpu_svm.c).
 */
struct vgpu_vma {
	struct drm_gpuva base;
	u64 pte_flags;
	bool mapped;
	struct list_head rebind_link;
	struct vgpu_svm_mirror *mirror;
};

/**
 * struct vgpu_vm - a GPU virtual address space
 * @gpuvm: drm_gpuvm: the VA tree, mappings per BO, the VM's resv.
 * @vdev: vgpu device.
 * @client_id: drm-client-id of the file that owns the VM (0: the kernel's),
 *	to name the VM in logs and debugfs.
 * @id: the VM's id in its file (0: the default VM, or the kernel's).
 * @users: held for reading by every ioctl that uses the VM
 *	(vgpu_file_vm_get()), for writing by VM_DESTROY to wait for them
 *	before it sets @destroyed.
 * @destroyed: VM_DESTROY took the VM out of its file (protected by @users).
 * @user_queues: exec queues created for the VM (protected by
 *	&vgpu_file.lock); VM_DESTROY refuses while there are any.
 * @lock: the VA tree; held for writing by VM_BIND and teardown, for
 *	reading by EXEC (mappings stay put while a job is built).
 * @pt_lock: the page-table tree, @pt_stats, @rebind and each mapping's
 *	@mapped state.  Taken inside BO reservations and the per-BO gpuva
 *	lock; never held while allocating VRAM.
 * @root: root page table (level 3), allocated with the VM's first mapping
 *	(an open file pins no page table) and kept for the VM's life.
 * @kernel: the kernel's own VM (copy engine): no page-table limit.
 * @mm: the address space of the process that created a user VM (grabbed,
 *	not pinned), the only one its CPU-address mirrors reflect; NULL for
 *	the kernel's VM.
 * @pt_stats: leaves and tables written.
 * @rebind: mappings whose BO moved, to map again before the next job.
 * @advice: ADVISE hints per VA range ("ADVISE hints per VA range",
 *	vgpu_advice.c), its external lock @advice_lock.
 * @advice_lock: protects @advice.
 * @svm_remap: maps mirrored pages advised ACCESSED_BY again after a move.
 * @inval_start: start of the VA range whose leaves were changed without
 *	a TLB flush yet: ACCESSED bits the recency sampler cleared
 *	(vgpu_vm_bo_age()) and leaves of a batch's victims zapped
 *	(vgpu_vm_pt_zap() with @defer); U64_MAX: none.  Protected by
 *	@pt_lock; flushed by vgpu_vm_inval_flush().
 * @inval_end: end of that range.
 * @inval_link: in &vgpu_device.inval_vms while that range is not empty
 *	(&vgpu_device.inval_lock).
 * @stream: inline command streams of the VM's jobs (vgpu_stream.c).
 * @hw_ctx: hardware context owned, or -1 (protected by &vgpu_ctx_mgr.lock).
 * @ctx_users: jobs using @hw_ctx; raised under &vgpu_ctx_mgr.lock,
 *	lowered anywhere.
 * @ctx_stamp: LRU stamp of the last use of @hw_ctx.
 * @ctr_base: device counters of @hw_ctx when it was acquired.
 * @ctr_acc: device counters accumulated over past contexts.
 * @banned: a GPU fault killed a job; EXEC and VM_BIND refuse.
 * @stats: the VM's bank of the driver's counters (vgpu_stats.c).
 * @engine_ns: busy time per hardware queue, ns (fdinfo drm-engine-*;
 *	vgpu_fdinfo_engine_charge()).
 * @modeled_ns: modeled time of the VM's jobs per hardware queue, ns
 *	(vgpu_fdinfo_modeled_charge()).
 * @prefetch: the VM's fault-stream detector (vgpu_prefetch.c), protected
 *	by &vgpu_pool.lock.
 * @entity_lock: protects @entities creation.
 * @entities: scheduler entity per exec queue, created on first use.
 * @link: in &vgpu_device.vms (user VMs).
 * @close_work: frees the VM once its last job ended (vgpu_vm_close()).
 * @put_work: drops the last reference away from a scheduler
 *	(vgpu_vm_put_async()).
 */
struct vgpu_vm {
	struct drm_gpuvm gpuvm;
	struct vgpu_device *vdev;
	u64 client_id;
	u32 id;
	struct rw_semaphore users;
	bool destroyed;
	u32 user_queues;
	struct rw_semaphore lock;
	struct mutex pt_lock;
	struct vgpu_pt *root;
	bool kernel;
	struct mm_struct *mm;
	struct vgpu_pt_stats pt_stats;
	struct list_head rebind;
	struct maple_tree advice;
	struct mutex advice_lock;	/* protects @advice */
	struct vgpu_svm_remap svm_remap;
	u64 inval_start;
	u64 inval_end;
	struct list_head inval_link;
	struct vgpu_stream stream;

	int hw_ctx;
	atomic_t ctx_users;
	u64 ctx_stamp;
	u64 ctr_base[VGPU_CTR_NR];
	u64 ctr_acc[VGPU_CTR_NR];

	atomic_t banned;
	struct vgpu_stats stats;
	atomic64_t engine_ns[VGPU_NUM_QUEUES];
	atomic64_t modeled_ns[VGPU_NUM_QUEUES];
	struct vgpu_prefetch prefetch;

	struct mutex entity_lock;
	struct drm_sched_entity *entities[VGPU_NUM_QUEUES];
	struct list_head link;
	struct work_struct close_work;
	struct work_struct put_work;
};

#endif /* __VGPU_VM_TYPES_H__ */
