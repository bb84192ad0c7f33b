// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/dma-mapping.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gpuvm.h>
#include <drm/vgpu_drm.h>

#include "vgpu_chunk.h"
#include "vgpu_advice.h"
#include "vgpu_drv.h"
#include "vgpu_fault_log.h"
#include "vgpu_pt.h"
#include "vgpu_stats.h"
#include "vgpu_svm.h"
#include "vgpu_svm_dmem.h"
#include "vgpu_vm.h"

/**
 * DOC: CPU-address mirrors (SVM)
 *
 * A VM_BIND MAP with %DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR and no BO makes a
 * range of the VM's process address space visible to the GPU at the same
 * addresses: a &drm_gpuva without a GEM object whose &vgpu_vma.mirror is
 * a &struct vgpu_svm_mirror.  The VM remembers the process (its &mm_struct,
 * &vgpu_vm.mm) when it is created; only that process may bind mirrors.
 *
 * Nothing is mapped at bind time.  A GPU fault in a mirror (dispatched
 * from the fault thread, "GPU faults") is resolved here for one block, the
 * 2 MiB-aligned block of the faulting address cut to the mirror and to the
 * CPU mapping (VMA) that holds the address:
 *
 * 1. hmm_range_fault() on the VM's mm (mmget_not_zero(), mmap read lock)
 *    faults the block's pages in as a CPU access of the same kind would,
 *    and returns them.  An address with no VMA, a write to a read-only
 *    one, or memory HMM cannot hand out (I/O and PFN mappings, such as a
 *    BO's CPU mapping) makes the fault unresolvable: the VM is banned and
 *    the queue cancelled, as for any bad access.
 * 2. The pages are DMA mapped.
 * 3. Under the mirror's notifier lock, if the notifier's sequence moved
 *    since step 1 (the CPU's view changed meanwhile), everything is undone
 *    and tried again over less (the 64 KiB around the faulting address,
 *    then its page alone, so that a fault racing frequent changes still
 *    gets through), for a second at most: then the fault is
 *    unresolvable; else the block's old pages are zapped and the new
 *    ones written as system-memory leaves through the generic walker
 *    (vgpu_pt_map_dma()), writable only for a write fault.  A read fault
 *    thus maps read-only even where the CPU could write, and a later GPU
 *    write faults again (WRITE_DENIED) and takes the pages with a write
 *    fault, which dirties them for the CPU's writeback as a CPU write
 *    would.
 *
 * Mirrors use 4 KiB and 64 KiB leaves only, never 2 MiB or 1 GiB ones: so
 * taking part of a mirror away never splits a leaf, and the invalidation
 * below never allocates.  Nor does anything else under the notifier lock
 * or the VM's page-table lock, which the invalidation takes and which may
 * run in reclaim: the fault reserves its page tables (and their
 * bookkeeping, "page-table pool") and DMA maps the pages before it takes
 * them, and tells lockdep so when a mirror is created.
 *
 * The &mmu_interval_notifier of a mirror is called before the CPU's view
 * of any part of it changes: munmap, mprotect, fork (which write-protects
 * the parent's pages for copy-on-write), madvise(MADV_DONTNEED), page
 * migration, reclaim, process exit.  Under the notifier lock it zaps the
 * leaves of the range (keeping the tables), invalidates the device TLB
 * and waits for it, and only then unmaps the pages' DMA; when it returns
 * the GPU can no longer reach them.  The next GPU access faults and maps
 * what the CPU has then.  After the process exited, the mm has no users
 * and every fault in a mirror is unresolvable.
 *
 * An UNMAP of a mirror (or the VM's teardown) removes the notifier first,
 * then zaps and unmaps what is left and frees the tables; an UNMAP that
 * cuts a mirror makes new, empty mirrors of the parts outside it.
 *
 * Where the kernel has DEVICE_PRIVATE (%DRM_VGPU_SVM_VRAM), step 1 is
 * preceded by a migration: the chunk around the faulting address, cut to
 * the mirror, to the VMA and to the pages ADVISE does not keep in system
 * memory, moves into device-private pages backed by the one VRAM pool
 * ("SVM memory in VRAM", vgpu_svm_dmem.c).  hmm_range_fault() then hands
 * those pages out as they are (``dev_private_owner``), and step 2 takes
 * their VRAM offset instead of a DMA mapping (&vgpu_svm_block.vram): the
 * walker writes VRAM leaves for them, system-memory leaves for the rest,
 * one run at a time.  A write fault on device pages HMM reports
 * read-only (shared after fork, or in a VMA made read-only) brings them
 * back to system memory first, where the write faults as a CPU write
 * would.  Without DEVICE_PRIVATE (Debian's kernel) everything stays in
 * system memory (%DRM_VGPU_SVM_MIRROR only).
 *
 * PREFETCH and ADVISE work on mirrors as the uapi says
 * (vgpu_svm_prefetch_range(), vgpu_svm_advise_range()): the advice is the
 * VM's, per VA range ("ADVISE hints per VA range"), and goes with the
 * range when it is unmapped.
 *
 * **Advice on mirrors.**  Where the kernel migrates, a GPU fault leaves
 * the pages where they are, system memory or VRAM, and maps them there,
 * when its page is advised
 *
 * - PREFERRED_PLACEMENT system (and the pages in VRAM come back at once);
 * - ACCESSED_BY the GPU: the GPU maps the memory wherever it lives and
 *   never moves it (as cudaMemAdviseSetAccessedBy).  When somebody else
 *   moves it (a CPU touch, an eviction, PREFETCH, another VM's fault: any
 *   migration of ours, which the notifier sees as %MMU_NOTIFY_MIGRATE
 *   with our owner), the notifier takes the GPU's leaves away as always
 *   and queues the VM's &vgpu_svm_remap work, which maps the advised
 *   pages of the moved range again, read-only as a read fault would,
 *   where they are now (counted in ``svm_remaps``): the GPU's next read
 *   does not fault.  The work runs after the notifier, so an access in
 *   between faults and maps as without the advice, but EXEC lets it
 *   finish before it queues a job (vgpu_svm_remap_flush()): a job
 *   submitted after the move finds the pages mapped.  A VM's mirrors
 *   watch for moves once it was advised ACCESSED_BY somewhere;
 * - READ_MOSTLY, for a read.  HMM cannot keep two valid copies of a page
 *   (a device-private page replaces the CPU's, and a CPU store through a
 *   writable entry tells nobody), so vgpu cannot duplicate as it does for
 *   pageable BOs.  It keeps the one copy where the CPU reads it instead:
 *   GPU reads map the system pages read-only, so reads from both sides
 *   never make the pages travel; a GPU write (the fault on that read-only
 *   leaf) migrates them into VRAM as without the advice, and a CPU touch
 *   brings them back.
 *
 * PREFETCH to VRAM moves the pages whatever READ_MOSTLY and ACCESSED_BY
 * say; only a preference for system memory holds it back.  A preference
 * for VRAM, like one for BOs, moves the range in at once, as PREFETCH
 * does; after that faults migrate as without it.  Without DEVICE_PRIVATE
 * nothing migrates and none of this changes anything.
 *
 * Lock order: &vgpu_vm.lock (read, the fault, PREFETCH, ADVISE; write,
 * VM_BIND), the mm's mmap lock (hmm_range_fault() and migrations),
 * &vgpu_pool.lock (a migration's VRAM), &vgpu_svm_mirror.lock,
 * &vgpu_vm.pt_lock.  Nothing takes the pool lock under a notifier lock:
 * an eviction holds the pool lock while the core calls the notifier.
 * &vgpu_svm_remap.lock is taken by the notifier alone, after it dropped
 * the notifier lock, and nothing is taken under it.
 */

/**
 * vgpu_svm_modes() - what %DRM_VGPU_PARAM_SVM reports
 * @vdev: vgpu device
 *
 * Return: %DRM_VGPU_SVM_MIRROR, and %DRM_VGPU_SVM_VRAM where the kernel
 * has DEVICE_PRIVATE and the device's VRAM has, or can still get,
 * device-private pages.
 */
u64 vgpu_svm_modes(struct vgpu_device *vdev)
{
	return DRM_VGPU_SVM_MIRROR |
	       (vgpu_svm_dmem_possible(vdev) ? DRM_VGPU_SVM_VRAM : 0);
}

static struct device *vgpu_svm_dev(struct vgpu_svm_mirror *m)
{
	return m->vm->vdev->drm.dev;
}

/* Pages of @b in [@s, @e) (indices) the page tables map. */
static bool vgpu_svm_block_mapped(struct vgpu_svm_block *b, unsigned int s,
				  unsigned int e)
{
	return find_next_bit(b->mapped, e, s) < e;
}

/* Unmap the DMA of the mapped pages [@s, @e) of @b; how many. */
static unsigned int vgpu_svm_block_release(struct vgpu_svm_mirror *m,
					   struct vgpu_svm_block *b,
					   unsigned int s, unsigned int e)
{
	unsigned int n = 0;

	for_each_set_bit_from(s, b->mapped, e) {
		if (!test_bit(s, b->vram))
			dma_unmap_page(vgpu_svm_dev(m), b->dma[s], PAGE_SIZE,
				       test_bit(s, b->writable) ?
				       DMA_BIDIRECTIONAL : DMA_TO_DEVICE);
		__clear_bit(s, b->mapped);
		__clear_bit(s, b->writable);
		__clear_bit(s, b->vram);
		n++;
	}
	return n;
}

#define vgpu_svm_for_each_block(m, start, end, idx, b)			\
	xa_for_each_range(&(m)->blocks, idx, b,				\
			  (start) >> VGPU_SVM_BLOCK_SHIFT,		\
			  ((end) - 1) >> VGPU_SVM_BLOCK_SHIFT)

/* The page indices of [@start, @end) in block @idx. */
static void vgpu_svm_block_span(unsigned long idx, u64 start, u64 end,
				unsigned int *s, unsigned int *e)
{
	u64 bs = (u64)idx << VGPU_SVM_BLOCK_SHIFT;
	u64 be = bs + (1ull << VGPU_SVM_BLOCK_SHIFT);

	*s = (max(start, bs) - bs) >> PAGE_SHIFT;
	*e = (min(end, be) - bs) >> PAGE_SHIFT;
}

/*
 * Take [@start, @end) of the mirror away from the GPU: zap the leaves,
 * flush the TLB and wait for it, then unmap the pages' DMA.
 *
 * Context: &vgpu_svm_mirror.lock held; allocates nothing.
 * Return: the pages taken away.
 */
static unsigned int vgpu_svm_zap_locked(struct vgpu_svm_mirror *m, u64 start,
					u64 end)
{
	struct vgpu_vm *vm = m->vm;
	struct vgpu_svm_block *b;
	struct vgpu_pt_update up;
	unsigned int s, e, n = 0;
	unsigned long idx;
	bool any = false;

	lockdep_assert_held(&m->lock);
	vgpu_svm_for_each_block(m, start, end, idx, b) {
		vgpu_svm_block_span(idx, start, end, &s, &e);
		any |= vgpu_svm_block_mapped(b, s, e);
	}
	if (!any)
		return 0;

	vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);
	mutex_lock(&vm->pt_lock);
	/* Mirrors hold no leaf above 64 KiB: the ZAP splits nothing. */
	vgpu_pt_walk(VGPU_PT_OP_ZAP, &up, vm->root, start, end - start, NULL,
		     0, NULL, NULL);
	vgpu_vm_pt_commit_locked(vm, &up);
	mutex_unlock(&vm->pt_lock);

	vgpu_svm_for_each_block(m, start, end, idx, b) {
		vgpu_svm_block_span(idx, start, end, &s, &e);
		n += vgpu_svm_block_release(m, b, s, e);
	}
	vgpu_stats_add(vm->vdev, vm, VGPU_STAT_SVM_PAGES_UNMAPPED, n);
	return n;
}

/*
 * Our migration moved [@start, @end) of a mirror of @vm: where the VM
 * advised ACCESSED_BY, the GPU is to map the pages again where they are
 * now (vgpu_svm_remap_work()).  Context: the notifier; allocates nothing.
 */
static void vgpu_svm_remap_queue(struct vgpu_vm *vm, u64 start, u64 end)
{
	struct vgpu_svm_remap *r = &vm->svm_remap;

	spin_lock(&r->lock);
	r->start = min(r->start, start);
	r->end = max(r->end, end);
	spin_unlock(&r->lock);
	/*
	 * The work drops the reference.  The mirror's VM is alive, so the
	 * one dropped here, when the work was queued already, is not the
	 * last.
	 */
	vgpu_vm_get(vm);
	if (!queue_work(vgpu_release_wq, &r->work))
		vgpu_vm_put(vm);
}

static bool vgpu_svm_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	struct vgpu_svm_mirror *m = container_of(mni, struct vgpu_svm_mirror,
						 notifier);
	u64 start = max_t(u64, range->start, m->start);
	u64 end = min_t(u64, range->end, m->end);
	void *owner = vgpu_svm_dmem_owner(m->vm->vdev);
	/* Our own migrations count as bytes moved, not as CPU changes. */
	bool own = owner && range->event == MMU_NOTIFY_MIGRATE &&
		   range->owner == owner;

	/* The TLB invalidation sleeps: the OOM reaper must skip us. */
	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&m->lock);
	mmu_interval_set_seq(mni, cur_seq);
	if (start < end && vgpu_svm_zap_locked(m, start, end) && !own)
		vgpu_stats_add(m->vm->vdev, m->vm, VGPU_STAT_SVM_INVALIDATIONS, 1);
	mutex_unlock(&m->lock);
	if (own && start < end && READ_ONCE(m->vm->svm_remap.armed))
		vgpu_svm_remap_queue(m->vm, start, end);
	return true;
}

static const struct mmu_interval_notifier_ops vgpu_svm_notifier_ops = {
	.invalidate = vgpu_svm_invalidate,
};

/**
 * vgpu_svm_mirror_create() - a new mirror, watching the VM's mm
 * @vm: VM, with an mm
 * @start: first VA, 4 KiB aligned
 * @size: bytes, 4 KiB aligned
 * @pte_flags: what the bind allows, %VGPU_PTE_READ and maybe _WRITE
 *
 * Context: &vgpu_vm.lock held for writing; may take the mm's mmap lock.
 * Return: the mirror, with nothing mapped, or an ERR_PTR().
 */
struct vgpu_svm_mirror *vgpu_svm_mirror_create(struct vgpu_vm *vm, u64 start,
					       u64 size, u64 pte_flags)
{
	struct vgpu_svm_mirror *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->vm = vm;
	m->start = start;
	m->end = start + size;
	m->pte_flags = pte_flags;
	mutex_init(&m->lock);
	xa_init(&m->blocks);
	/* Tell lockdep that the invalidation takes these in reclaim. */
	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		fs_reclaim_acquire(GFP_KERNEL);
		might_lock(&m->lock);
		might_lock(&vm->pt_lock);
		fs_reclaim_release(GFP_KERNEL);
	}
	ret = mmu_interval_notifier_insert(&m->notifier, vm->mm, start, size,
					   &vgpu_svm_notifier_ops);
	if (ret) {
		mutex_destroy(&m->lock);
		kfree(m);
		return ERR_PTR(ret);
	}
	return m;
}

/**
 * vgpu_svm_mirror_destroy() - stop mirroring and free the mirror
 * @m: mirror, whose mapping is being removed
 *
 * Removes the notifier (waiting for an invalidation in progress), then
 * takes what is still mapped away (TLB flushed) and frees the blocks.
 * The tables stay, for the caller's UNMAP to free.
 *
 * Context: &vgpu_vm.lock held for writing.
 */
void vgpu_svm_mirror_destroy(struct vgpu_svm_mirror *m)
{
	struct vgpu_svm_block *b;
	unsigned long idx;

	mmu_interval_notifier_remove(&m->notifier);
	mutex_lock(&m->lock);
	if (m->vm->root)
		vgpu_svm_zap_locked(m, m->start, m->end);
	mutex_unlock(&m->lock);
	xa_for_each(&m->blocks, idx, b)
		kfree(b);
	xa_destroy(&m->blocks);
	mutex_destroy(&m->lock);
	kfree(m);
}

/* The block of @va, created if need be. */
static struct vgpu_svm_block *vgpu_svm_block_get(struct vgpu_svm_mirror *m,
						 u64 va)
{
	unsigned long idx = va >> VGPU_SVM_BLOCK_SHIFT;
	struct vgpu_svm_block *b = xa_load(&m->blocks, idx), *old;

	if (b)
		return b;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	old = xa_cmpxchg(&m->blocks, idx, NULL, b, GFP_KERNEL);
	if (old) {
		kfree(b);
		return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
	}
	return b;
}

/* The DMA direction of pages mapped with @pte_flags. */
static enum dma_data_direction vgpu_svm_dma_dir(u64 pte_flags)
{
	return pte_flags & VGPU_PTE_WRITE ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

/* Undo vgpu_svm_dma_map() for the first @n pages. */
static void vgpu_svm_dma_unmap(struct vgpu_svm_mirror *m, dma_addr_t *dma,
			       const unsigned long *vram, unsigned long n,
			       enum dma_data_direction dir)
{
	while (n--)
		if (!test_bit(n, vram))
			dma_unmap_page(vgpu_svm_dev(m), dma[n], PAGE_SIZE, dir);
}

/*
 * The device address of each page HMM returned into @dma: our device
 * pages (set in @vram) are VRAM and need no DMA mapping.
 */
static int vgpu_svm_dma_map(struct vgpu_svm_mirror *m,
			    const unsigned long *pfns, dma_addr_t *dma,
			    unsigned long *vram, unsigned long n,
			    enum dma_data_direction dir)
{
	unsigned long i;
	u64 offset;

	bitmap_zero(vram, VGPU_SVM_BLOCK_PAGES);
	for (i = 0; i < n; i++) {
		struct page *page = hmm_pfn_to_page(pfns[i]);

		if (vgpu_svm_dmem_vram(m->vm->vdev, page, &offset)) {
			dma[i] = offset;
			__set_bit(i, vram);
			continue;
		}
		dma[i] = dma_map_page(vgpu_svm_dev(m), page, 0, PAGE_SIZE, dir);
		if (dma_mapping_error(vgpu_svm_dev(m), dma[i])) {
			vgpu_svm_dma_unmap(m, dma, vram, i, dir);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Fault the pages of [@start, @end) in through HMM into @pfns, with the
 * notifier's sequence in @seq.  Cuts @start and @end to the VMA of @va.
 * Retries while the CPU's view keeps changing, until jiffies @timeout.
 *
 * Return: 0, or -EFAULT (no VMA at @va, or memory HMM cannot hand out),
 * -EPERM (a write the VMA does not allow), -ENOMEM, -EBUSY (timed out).
 */
static int vgpu_svm_hmm_fault(struct vgpu_svm_mirror *m, struct mm_struct *mm,
			      u64 va, u64 *start, u64 *end, bool write,
			      unsigned long *pfns, unsigned long *seq,
			      unsigned long timeout)
{
	struct hmm_range range = {
		.notifier = &m->notifier,
		.hmm_pfns = pfns,
		.dev_private_owner = vgpu_svm_dmem_owner(m->vm->vdev),
		.default_flags = HMM_PFN_REQ_FAULT |
				 (write ? HMM_PFN_REQ_WRITE : 0),
	};
	struct vm_area_struct *vma;
	int ret;

	do {
		if (time_after(jiffies, timeout))
			return -EBUSY;
		range.notifier_seq = mmu_interval_read_begin(&m->notifier);
		mmap_read_lock(mm);
		vma = vma_lookup(mm, va);
		if (!vma) {
			mmap_read_unlock(mm);
			return -EFAULT;
		}
		*start = max_t(u64, *start, vma->vm_start);
		*end = min_t(u64, *end, vma->vm_end);
		range.start = *start;
		range.end = *end;
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
	} while (ret == -EBUSY);
	*seq = range.notifier_seq;
	return ret;
}

/* Does HMM allow writing every one of the @n pages? */
static bool vgpu_svm_pfns_writable(const unsigned long *pfns, unsigned long n)
{
	while (n--)
		if (!(pfns[n] & HMM_PFN_WRITE))
			return false;
	return true;
}

/*
 * Map the pages [@start, @end) of block @b, @dma their new DMA addresses,
 * unless the notifier's sequence moved past @seq.  The pages the block
 * mapped there before are zapped and unmapped.
 *
 * Return: 0, or -EAGAIN if the CPU's view changed (nothing was mapped).
 */
static int vgpu_svm_commit(struct vgpu_svm_mirror *m, struct vgpu_svm_block *b,
			   struct vgpu_pt_update *up, u64 start, u64 end,
			   const dma_addr_t *dma, const unsigned long *vram,
			   u64 pte_flags, unsigned long seq)
{
	struct vgpu_vm *vm = m->vm;
	unsigned long idx = start >> VGPU_SVM_BLOCK_SHIFT;
	unsigned int s, e, i, run, n = (end - start) >> PAGE_SHIFT;

	vgpu_svm_block_span(idx, start, end, &s, &e);
	mutex_lock(&m->lock);
	if (mmu_interval_read_retry(&m->notifier, seq)) {
		mutex_unlock(&m->lock);
		return -EAGAIN;
	}
	mutex_lock(&vm->pt_lock);
	if (vgpu_svm_block_mapped(b, s, e))
		vgpu_pt_walk(VGPU_PT_OP_ZAP, up, vm->root, start, end - start,
			     NULL, 0, NULL, NULL);
	/* Runs of pages in one aperture, VRAM or system memory. */
	for (i = 0; i < n; i = run) {
		bool in_vram = test_bit(i, vram);

		run = in_vram ? find_next_zero_bit(vram, n, i) :
				find_next_bit(vram, n, i);
		vgpu_pt_map_dma(up, vm->root, start + ((u64)i << PAGE_SHIFT),
				(u64)(run - i) << PAGE_SHIFT, dma + i, in_vram,
				pte_flags);
	}
	vgpu_vm_pt_commit_locked(vm, up);
	mutex_unlock(&vm->pt_lock);
	/* The TLB no longer holds the old pages: their DMA can go. */
	vgpu_stats_add(vm->vdev, vm, VGPU_STAT_SVM_PAGES_UNMAPPED,
		       vgpu_svm_block_release(m, b, s, e));
	for (i = s; i < e; i++) {
		b->dma[i] = dma[i - s];
		__set_bit(i, b->mapped);
		if (test_bit(i - s, vram))
			__set_bit(i, b->vram);
		if (pte_flags & VGPU_PTE_WRITE)
			__set_bit(i, b->writable);
	}
	mutex_unlock(&m->lock);
	return 0;
}

/*
 * Shrink the range [@start, @end) a fault at @va maps to the 64 KiB
 * around @va, then to its page, inside mirror @m.
 */
static void vgpu_svm_narrow(struct vgpu_svm_mirror *m, u64 va, u64 *start,
			    u64 *end)
{
	u64 span = *end - *start > SZ_64K ? SZ_64K : PAGE_SIZE;

	*start = max(round_down(va, span), m->start);
	*end = min(round_down(va, span) + span, m->end);
}

/*
 * The advice that keeps pages where they are when the GPU touches them
 * (see "Advice on mirrors"): a preference for system memory, ACCESSED_BY
 * (the GPU maps them wherever they live) and, for a read, READ_MOSTLY.
 * PREFETCH is held back by the preference only.  vgpu_advice_bounds()
 * with these bits says where an access may migrate ("ADVISE hints per VA
 * range").
 */
static u32 vgpu_svm_stay_advice(bool write, bool prefetch)
{
	if (prefetch)
		return VGPU_ADVICE_PREF_SYSTEM;
	return VGPU_ADVICE_PREF_SYSTEM | VGPU_ADVICE_ACCESSED_BY |
	       (write ? 0 : VGPU_ADVICE_READ_MOSTLY);
}

/*
 * Resolve a fault at @va in mirror @m, a write fault if @write, mapping
 * at most the block of @va cut to [@lo, @hi).  A GPU fault (@prefetch
 * false) first migrates where the kernel can; PREFETCH has done so.
 */
static int vgpu_svm_mirror_fault(struct vgpu_svm_mirror *m, u64 va,
				 bool write, struct vgpu_chunk_fault *f,
				 struct vgpu_chunk_batch *cb, u64 lo, u64 hi,
				 bool prefetch)
{
	struct vgpu_vm *vm = m->vm;
	u64 base = round_down(va, 1ull << VGPU_SVM_BLOCK_SHIFT);
	u64 bstart = max(base, lo);
	u64 bend = min(base + (1ull << VGPU_SVM_BLOCK_SHIFT), hi);
	u64 moved = 0;
	u64 pte_flags = (VGPU_PTE_READ | (write ? VGPU_PTE_WRITE : 0)) &
			m->pte_flags;
	enum dma_data_direction dir = vgpu_svm_dma_dir(pte_flags);
	struct mm_struct *mm = vm->mm;
	struct vgpu_svm_block *b;
	DECLARE_BITMAP(vram, VGPU_SVM_BLOCK_PAGES);
	struct vgpu_pt_update up;
	unsigned long *pfns, seq, n, timeout;
	dma_addr_t *dma;
	u64 start, end;
	int ret;

	/* PREFETCH may come before the first job gave the VM its root. */
	if ((!prefetch && !vm->root) || !mmget_not_zero(mm))
		return -EFAULT;	/* the process is gone */
	/* Into VRAM first where the kernel can; the CPU's view then changed. */
	if (!prefetch && vgpu_svm_dmem_owner(vm->vdev) &&
	    vgpu_advice_bounds(vm, va, vgpu_svm_stay_advice(write, false),
			       &lo, &hi)) {
		vgpu_chunk_batch_kick(cb);
		moved = vgpu_svm_dmem_migrate(vm, va, lo, hi);
	}
	/* The second for the CPU's changes starts after the copies. */
	timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	b = vgpu_svm_block_get(m, va);
	pfns = kmalloc_array(VGPU_SVM_BLOCK_PAGES, sizeof(*pfns), GFP_KERNEL);
	dma = kmalloc_array(VGPU_SVM_BLOCK_PAGES, sizeof(*dma), GFP_KERNEL);
	ret = IS_ERR(b) ? PTR_ERR(b) : (!pfns || !dma) ? -ENOMEM : 0;
	vgpu_pt_update_init(&up, vm->vdev, &vm->pt_stats);
	/* No 2 MiB or 1 GiB leaves: see the DOC. */
	up.caps &= VGPU_CAPS_PAGE_64K;
	/* Tables before any lock: reserving may allocate VRAM. */
	if (!ret && prefetch)
		ret = vgpu_vm_root_prepare(vm, &up);
	if (!ret)
		ret = vgpu_vm_pt_reserve(vm, &up, vgpu_pt_pages_for_map(bstart,
									bend - bstart));
	while (!ret) {
		start = bstart;
		end = bend;
		/* One deadline for every retry: the CPU may keep changing. */
		ret = vgpu_svm_hmm_fault(m, mm, va, &start, &end, write, pfns,
					 &seq, timeout);
		if (ret)
			break;
		n = (end - start) >> PAGE_SHIFT;
		/*
		 * HMM hands our device pages out as they are: read-only ones
		 * (shared after fork, or in a VMA made read-only) come back to
		 * system memory first, where the write faults as the CPU's
		 * would (copy-on-write, or -EPERM).
		 */
		if (write && !vgpu_svm_pfns_writable(pfns, n)) {
			s64 moved = vgpu_svm_dmem_to_system(vm, start, end);

			ret = moved < 0 ? moved : 0;
			continue;
		}
		ret = vgpu_svm_dma_map(m, pfns, dma, vram, n, dir);
		if (ret)
			break;
		ret = vgpu_svm_commit(m, b, &up, start, end, dma, vram,
				      pte_flags, seq);
		if (ret == -EAGAIN) {
			vgpu_svm_dma_unmap(m, dma, vram, n, dir);
			/*
			 * The CPU changed the range meanwhile: try again with
			 * less, down to the faulting page, so that a fault
			 * racing frequent changes still gets through.
			 */
			vgpu_svm_narrow(m, va, &bstart, &bend);
			ret = 0;
			continue;
		}
		if (!prefetch)
			vgpu_stats_add(vm->vdev, vm, VGPU_STAT_SVM_FAULTS, 1);
		/* Where it could have migrated, a fault served from system memory. */
		if (!prefetch && vgpu_svm_dmem_owner(vm->vdev) &&
		    bitmap_empty(vram, n))
			vgpu_stats_add(vm->vdev, vm, VGPU_STAT_REMOTE_MAPS, 1);
		vgpu_stats_add(vm->vdev, vm, VGPU_STAT_SVM_PAGES_MAPPED, n);
		f->res = moved ? VGPU_FAULT_RES_MIGRATED :
				 VGPU_FAULT_RES_MAPPED_SYSTEM;
		f->map_start = start;
		f->map_end = end;
		f->writable = write;
		break;
	}
	mutex_lock(&vm->pt_lock);
	vgpu_pt_release(&up);
	mutex_unlock(&vm->pt_lock);
	kfree(dma);
	kfree(pfns);
	mmput(mm);
	return ret;
}

/**
 * vgpu_svm_fault() - resolve a GPU fault in a CPU-address mirror
 * @vm: the faulting VM
 * @f: the faulting page; the outcome is written back into it
 * @cb: the fault thread's chunk batch (kicked before sleeping on the
 *	VM's lock), or NULL
 *
 * Context: the fault thread; takes the VM's lock (read), the mm's mmap
 * lock and the mirror's notifier lock.
 * Return: -ENOENT if @f->va is in no mirror (it may be pageable memory);
 * 0 when the access can be replayed; else the fault is unresolvable:
 * -EACCES (the bind does not allow the access), -EFAULT (a reason no
 * mapping fixes, no CPU mapping there, or the process is gone), -EPERM (a
 * write the CPU mapping does not allow), -ENOMEM, -ENOSPC, -EBUSY.
 */
int vgpu_svm_fault(struct vgpu_vm *vm, struct vgpu_chunk_fault *f,
		   struct vgpu_chunk_batch *cb)
{
	bool write = f->access_mask & BIT(VGPU_ACCESS_WRITE);
	struct drm_gpuva *gva;
	struct vgpu_vma *vma;
	int ret;

	if (!vm->mm)
		return -ENOENT;
	vgpu_chunk_lock_vm(vm, cb);
	gva = drm_gpuva_find_first(&vm->gpuvm, f->va, SZ_4K);
	vma = gva ? container_of(gva, struct vgpu_vma, base) : NULL;
	if (!vma || !vma->mirror)
		ret = -ENOENT;
	else if (f->reason != VGPU_FAULT_NOT_PRESENT &&
		 f->reason != VGPU_FAULT_WRITE_DENIED)
		ret = -EFAULT;
	else if ((f->access_mask & BIT(VGPU_ACCESS_EXEC)) ||
		 (write && !(vma->mirror->pte_flags & VGPU_PTE_WRITE)))
		ret = -EACCES;
	else
		ret = vgpu_svm_mirror_fault(vma->mirror, f->va, write, f, cb,
					    vma->mirror->start, vma->mirror->end,
					    false);
	up_read(&vm->lock);
	return ret;
}

/* Where the next part of [@va, @end) with a CPU mapping starts, past @va. */
static u64 vgpu_svm_next_vma(struct mm_struct *mm, u64 va, u64 end)
{
	struct vm_area_struct *vma;
	u64 next = end;

	mmap_read_lock(mm);
	vma = find_vma(mm, va);
	if (vma)
		next = vma->vm_start > va ? vma->vm_start : vma->vm_end;
	mmap_read_unlock(mm);
	return clamp(next, va + PAGE_SIZE, end);
}

/*
 * PREFETCH of [@start, @end) of mirror @m: migrate (VRAM mode), then map
 * what the CPU has there, read-only as a read fault would; parts without
 * a CPU mapping HMM can hand out are left alone.
 */
static int vgpu_svm_mirror_prefetch(struct vgpu_svm_mirror *m, u64 start,
				    u64 end, u32 placement, u64 *moved)
{
	struct vgpu_vm *vm = m->vm;
	u64 va, lo, hi, step = 1ull << vm->vdev->paging.chunk_shift;
	s64 back;
	int ret = 0;

	if (!mmget_not_zero(vm->mm))
		return 0;	/* the process is gone: nothing to place */
	if (placement == DRM_VGPU_PLACE_VRAM && vgpu_svm_dmem_owner(vm->vdev)) {
		for (va = start; va < end; va = round_down(va, step) + step) {
			lo = start;
			hi = end;
			if (vgpu_advice_bounds(vm, va,
					       vgpu_svm_stay_advice(false, true),
					       &lo, &hi))
				*moved += vgpu_svm_dmem_migrate(vm, va, lo, hi);
		}
	} else if (placement == DRM_VGPU_PLACE_SYSTEM) {
		back = vgpu_svm_dmem_to_system(vm, start, end);
		if (back < 0)
			ret = back;
		else
			*moved += back;
	}
	for (va = start; !ret && va < end;) {
		struct vgpu_chunk_fault f = {};

		ret = vgpu_svm_mirror_fault(m, va, false, &f, NULL, start, end,
					    true);
		if (!ret) {
			va = f.map_end;
		} else if (ret == -EFAULT) {
			ret = 0;
			va = vgpu_svm_next_vma(vm->mm, va, end);
		}
	}
	mmput(vm->mm);
	return ret;
}

/*
 * Maps, as a read fault would and without moving anything, the pages
 * advised ACCESSED_BY in the range that our migrations moved since the
 * last run (see "Advice on mirrors"); drops the reference the notifier
 * took.
 */
static void vgpu_svm_remap_work(struct work_struct *work)
{
	struct vgpu_vm *vm = container_of(work, struct vgpu_vm, svm_remap.work);
	struct vgpu_svm_remap *r = &vm->svm_remap;
	struct drm_gpuva *gva;
	u64 start, end, s, e, lo, hi, moved = 0;
	int idx;

	spin_lock(&r->lock);
	start = r->start;
	end = r->end;
	r->start = U64_MAX;
	r->end = 0;
	spin_unlock(&r->lock);
	if (start >= end || vgpu_vm_banned(vm) ||
	    !drm_dev_enter(&vm->vdev->drm, &idx))
		goto out;
	down_read(&vm->lock);
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, start, end) {
		struct vgpu_vma *vma = container_of(gva, struct vgpu_vma, base);

		if (!vma->mirror)
			continue;
		s = max(start, gva->va.addr);
		e = min(end, gva->va.addr + gva->va.range);
		for (lo = s, hi = e;
		     vgpu_advice_find(vm, VGPU_ADVICE_ACCESSED_BY, &lo, &hi);
		     lo = hi, hi = e) {
			vgpu_svm_mirror_prefetch(vma->mirror, lo, hi, 0, &moved);
			vgpu_stats_add(vm->vdev, vm, VGPU_STAT_SVM_REMAPS, 1);
		}
	}
	up_read(&vm->lock);
	drm_dev_exit(idx);
out:
	vgpu_vm_put(vm);
}

/**
 * vgpu_svm_remap_flush() - let the remap work of moves seen so far finish
 * @vm: VM
 *
 * EXEC calls it before it queues a job, so that the job finds the
 * ACCESSED_BY pages that our migrations moved before the call mapped
 * where they are now.  Returns at once for a VM never advised
 * ACCESSED_BY, or with no work pending.
 *
 * Context: process; no VM lock held (the work takes &vgpu_vm.lock).
 */
void vgpu_svm_remap_flush(struct vgpu_vm *vm)
{
	if (READ_ONCE(vm->svm_remap.armed))
		flush_work(&vm->svm_remap.work);
}

/**
 * vgpu_svm_vm_init() - a new VM's mirrors watch no moves yet
 * @vm: new VM
 */
void vgpu_svm_vm_init(struct vgpu_vm *vm)
{
	INIT_WORK(&vm->svm_remap.work, vgpu_svm_remap_work);
	spin_lock_init(&vm->svm_remap.lock);
	vm->svm_remap.start = U64_MAX;
	vm->svm_remap.end = 0;
}

/**
 * vgpu_svm_prefetch_range() - PREFETCH the mirrors in a VA range
 * @vm: VM
 * @va: start of the range
 * @range: bytes
 * @placement: %DRM_VGPU_PLACE_VRAM or %DRM_VGPU_PLACE_SYSTEM
 * @moved: bytes moved are added here
 *
 * VRAM: where the kernel migrates (%DRM_VGPU_SVM_VRAM), each chunk of the
 * range not advised to stay in system memory moves into VRAM; SYSTEM: the
 * pages in VRAM come back.  Then, in both modes, the GPU mapping of the
 * range is populated (read-only, as by read faults), so the GPU's next
 * reads do not fault.  Other mappings in the range are not looked at.
 *
 * Context: &vgpu_vm.lock held (read); takes the mm's mmap lock and the
 * pool lock.
 * Return: 0, or -ENOMEM, -ENOSPC, -EIO.
 */
int vgpu_svm_prefetch_range(struct vgpu_vm *vm, u64 va, u64 range,
			    u32 placement, u64 *moved)
{
	struct drm_gpuva *gva;
	u64 before = *moved;
	int ret = 0;

	lockdep_assert_held(&vm->lock);
	if (!vm->mm)
		return 0;
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va, va + range) {
		struct vgpu_vma *vma = container_of(gva, struct vgpu_vma, base);

		if (!vma->mirror)
			continue;
		ret = vgpu_svm_mirror_prefetch(vma->mirror,
					       max(va, gva->va.addr),
					       min(va + range,
						   gva->va.addr + gva->va.range),
					       placement, moved);
		if (ret)
			break;
	}
	if (placement == DRM_VGPU_PLACE_VRAM)
		vgpu_stats_add(vm->vdev, vm, VGPU_STAT_PREFETCH_BYTES,
			       *moved - before);
	return ret;
}

/**
 * vgpu_svm_advise_range() - ADVISE the mirrors in a VA range
 * @vm: VM
 * @va: start of the range
 * @range: bytes
 * @advice: ``DRM_VGPU_ADVICE_*``
 * @value: its value
 * @moved: bytes a placement preference moved into VRAM are added here
 *
 * The caller recorded the hint for the range (vgpu_advice_set()), which
 * the mirror's faults look up (see "Advice on mirrors").  A placement
 * preference is acted on at once, as for BOs: system brings the pages of
 * the range in VRAM back; VRAM, where the kernel migrates
 * (%DRM_VGPU_SVM_VRAM), moves the range into VRAM and maps it, as
 * PREFETCH does.  The other hints move nothing now.
 *
 * Context: &vgpu_vm.lock held (read); takes the mm's mmap lock and the
 * pool lock.
 * Return: 0, or an error of vgpu_svm_dmem_to_system() or of PREFETCH
 * (-ENOMEM, -ENOSPC, -EIO).
 */
int vgpu_svm_advise_range(struct vgpu_vm *vm, u64 va, u64 range, u32 advice,
			  u64 value, u64 *moved)
{
	struct drm_gpuva *gva;
	s64 back;
	int ret = 0;

	lockdep_assert_held(&vm->lock);
	/* From now on our moves of the VM's mirrored pages are watched. */
	if (vm->mm && advice == DRM_VGPU_ADVICE_ACCESSED_BY &&
	    (value & DRM_VGPU_ACCESSOR_GPU))
		WRITE_ONCE(vm->svm_remap.armed, true);
	if (!vm->mm || advice != DRM_VGPU_ADVICE_PREFERRED_PLACEMENT ||
	    !vgpu_svm_dmem_owner(vm->vdev))
		return 0;
	if (value == DRM_VGPU_PLACE_VRAM)
		return vgpu_svm_prefetch_range(vm, va, range, value, moved);
	if (value != DRM_VGPU_PLACE_SYSTEM || !mmget_not_zero(vm->mm))
		return 0;
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va, va + range) {
		struct vgpu_vma *vma = container_of(gva, struct vgpu_vma, base);

		if (!vma->mirror)
			continue;
		back = vgpu_svm_dmem_to_system(vm, max(va, gva->va.addr),
					       min(va + range,
						   gva->va.addr + gva->va.range));
		if (back < 0) {
			ret = back;
			break;
		}
	}
	mmput(vm->mm);
	return ret;
}
