/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_SVM_TYPES_H__
#define __VGPU_SVM_TYPES_H__

#include <linux/bitmap.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct vgpu_vm;

/** VGPU_SVM_BLOCK_SHIFT - log2 of what one GPU fault in a mirror maps at most */
#define VGPU_SVM_BLOCK_SHIFT	21
/** VGPU_SVM_BLOCK_PAGES - 4 KiB pages of a block */
#define VGPU_SVM_BLOCK_PAGES	(1u << (VGPU_SVM_BLOCK_SHIFT - PAGE_SHIFT))

/**
 * struct vgpu_svm_block - the pages of one 2 MiB-aligned block of a mirror
 * @mapped: pages the GPU page tables map now.
 * @writable: pages of @mapped mapped writable, DMA-mapped
 *	%DMA_BIDIRECTIONAL; the others are %DMA_TO_DEVICE (the device only
 *	reads them: the shared zero page, say, may be mapped many times).
 * @vram: pages of @mapped that are device-private pages in VRAM
 *	(vgpu_svm_dmem.c): @dma holds their VRAM offset and nothing is DMA
 *	mapped for them.
 * @dma: DMA address (VRAM offset for @vram) of each page in @mapped.
 *
 * Created by the first GPU fault or PREFETCH in the block, freed
 * with the mirror.
 * Protected by &vgpu_svm_mirror.lock.
 */
struct vgpu_svm_block {
	DECLARE_BITMAP(mapped, VGPU_SVM_BLOCK_PAGES);
	DECLARE_BITMAP(writable, VGPU_SVM_BLOCK_PAGES);
	DECLARE_BITMAP(vram, VGPU_SVM_BLOCK_PAGES);
	dma_addr_t dma[VGPU_SVM_BLOCK_PAGES];
};

/**
 * struct vgpu_svm_mirror - one CPU-address mirror of a VM
 * @vm: the VM (not referenced: the mirror dies with its mapping).
 * @start: first VA, equal for the CPU and the GPU.
 * @end: VA past the mirror.
 * @pte_flags: what the bind allows (%VGPU_PTE_READ, %VGPU_PTE_WRITE);
 *	a leaf gets WRITE only for a write fault the CPU mapping allows.
 * @notifier: tells the mirror about changes to the process's view of
 *	[@start, @end).
 * @lock: the notifier lock: held by the invalidation while it takes
 *	pages away, and by a fault while it checks the notifier's sequence
 *	and maps pages, so that no page the CPU dropped is ever mapped.
 *	Nothing allocates memory under it (the invalidation may run in
 *	reclaim).  Taken before &vgpu_vm.pt_lock.
 * @blocks: &struct vgpu_svm_block by VA >> %VGPU_SVM_BLOCK_SHIFT; inserted
 *	(xa_cmpxchg()) by the fault thread, PREFETCH and ADVISE, under
 *	&vgpu_vm.lock (read).
 */
struct vgpu_svm_mirror {
	struct vgpu_vm *vm;
	u64 start;
	u64 end;
	u64 pte_flags;
	struct mmu_interval_notifier notifier;
	struct mutex lock;	/* the notifier lock, see above */
	struct xarray blocks;
};

/**
 * struct vgpu_svm_remap - a VM's mirrored pages advised ACCESSED_BY,
 *	mapped again after somebody else moved them ("Advice on mirrors")
 * @work: maps them (on &vgpu_release_wq: it drops a VM reference).
 * @lock: protects @start and @end; taken in the notifier.
 * @start: start of the range moved since @work last took it; U64_MAX:
 *	none.
 * @end: end of that range.
 * @armed: the VM was advised ACCESSED_BY the GPU somewhere: its mirrors
 *	watch for moves.
 */
struct vgpu_svm_remap {
	struct work_struct work;
	spinlock_t lock;	/* protects @start, @end */
	u64 start;
	u64 end;
	bool armed;
};

#endif /* __VGPU_SVM_TYPES_H__ */
