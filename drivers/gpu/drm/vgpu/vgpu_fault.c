// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include <drm/drm_print.h>

#include "vgpu_chunk.h"
#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_fault.h"
#include "vgpu_fault_batch.h"
#include "vgpu_fault_log.h"
#include "vgpu_paging.h"
#include "vgpu_queue.h"
#include "vgpu_stats.h"
#include "vgpu_svm.h"
#include "vgpu_vm.h"

/**
 * DOC: GPU faults
 *
 * The device writes a 32-byte record into a ring in system memory for
 * each translation miss or permission violation, stalls the faulting
 * queue and raises the fault vector.  The interrupt thread drains the
 * ring in batches (see "Fault batching"): each record is decoded once
 * into a &struct vgpu_fault, its hardware context is mapped back to the
 * VM that owns it, and the batch is sorted and de-duplicated; each
 * faulting page is then counted and logged decoded (rate limited).
 *
 * A fault on pageable memory (%DRM_VGPU_BO_PAGEABLE) is resolved by
 * migrating or mapping its chunk (see "Pageable BOs and chunk
 * migration"), one in a CPU-address mirror by mapping the process's
 * pages (see "CPU-address mirrors (SVM)"), and the stalled queue is
 * answered with REPLAY, once per queue per batch however many records it
 * produced.
 *
 * The thread runs the batches as a two-stage pipeline over two slots
 * (&struct vgpu_fault_slot).  The first half of a batch resolves every
 * page and submits the chunk copies it needs; then, instead of waiting,
 * the thread reads and resolves the next batch (if records are waiting)
 * while the copy engine copies, and only then completes the first: one
 * wait for its copies (by then mostly done), the mappings of the copied
 * chunks, and its answers.  The chunks of a batch whose copies run are
 * held in VRAM until its completion (vgpu_chunk_batch_hold()): the next
 * batch may evict anything else.  A fault of the next batch on a chunk
 * still being copied waits for that copy, as any fault does.  A batch
 * that queued no chunk copy (its pages were only mapped, or are in a
 * CPU-address mirror) is completed at once.  On a
 * device in deterministic mode (hardware.rst "Deterministic mode") there
 * is no overlap: a batch completes before the next is read, so that
 * what the batches decide does not depend on how long copies take.
 * ``fault_ns`` counts the thread's time in both halves, without the
 * wait for the copies, which ``fault_copy_wait_ns`` counts.
 *
 * Any other fault — nothing mapped, a mapping without the permission, an
 * ordinary BO, or pageable memory that cannot be had — is unresolvable.
 * The VM is banned (later EXEC and VM_BIND give -ECANCELED) and the
 * stalled queue is answered with CANCEL.  The device then puts the queue
 * in ERROR, and queue recovery
 * (see "hardware queues and job submission") fails the job with -EFAULT
 * and carries on with the queue's other jobs.  Other queues never stop.
 */

static const char *const vgpu_fault_reasons[] = {
	[VGPU_FAULT_NOT_PRESENT] = "not present",
	[VGPU_FAULT_READ_DENIED] = "read denied",
	[VGPU_FAULT_WRITE_DENIED] = "write denied",
	[VGPU_FAULT_EXEC_DENIED] = "exec denied",
	[VGPU_FAULT_BAD_ADDRESS] = "bad address",
	[VGPU_FAULT_PT_DMA] = "page table unreadable",
	[VGPU_FAULT_BAD_ENTRY] = "bad entry",
};

static const char *const vgpu_fault_accesses[] = {
	[VGPU_ACCESS_READ] = "read",
	[VGPU_ACCESS_WRITE] = "write",
	[VGPU_ACCESS_EXEC] = "exec",
};

static u64 vgpu_fault_buf_desc(struct vgpu_device *vdev)
{
	return (vdev->fault.dma & VGPU_PTE_ADDR_MASK) | VGPU_PTE_VALID |
	       VGPU_PTE_SYSTEM;
}

/**
 * vgpu_fault_hw_init() - point the device at the fault buffer
 * @vdev: vgpu device
 */
void vgpu_fault_hw_init(struct vgpu_device *vdev)
{
	memset(vdev->fault.records, 0, vdev->fault.entries * VGPU_FAULT_RECORD_SIZE);
	vdev->fault.head = 0;
	vgpu_wr32(vdev, VGPU_REG_FAULT_BUF_ENTRIES, vdev->fault.entries);
	vgpu_wr32(vdev, VGPU_REG_FAULT_BUF_HEAD, 0);
	vgpu_wr64(vdev, VGPU_REG_FAULT_BUF_LO, vgpu_fault_buf_desc(vdev));
	if (vgpu_rd32(vdev, VGPU_REG_STATUS) & VGPU_STATUS_FAULT_BUF_ERROR)
		drm_err(&vdev->drm, "device refused the fault buffer\n");
}

static bool vgpu_fault_read(struct vgpu_device *vdev, struct vgpu_fault *f)
{
	u32 *rec = vdev->fault.records +
		   vdev->fault.head * (VGPU_FAULT_RECORD_SIZE / 4);
	u32 info;

	if (!(READ_ONCE(rec[VGPU_FAULT_DW_FLAGS]) & VGPU_FAULT_DW3_VALID))
		return false;
	dma_rmb();	/* VALID is written last */
	info = rec[VGPU_FAULT_DW_INFO];
	f->va = (u64)rec[VGPU_FAULT_DW_VA_HI] << 32 | rec[VGPU_FAULT_DW_VA_LO];
	f->queue = FIELD_GET(VGPU_FAULT_INFO_QUEUE_MASK, info);
	f->ctx = FIELD_GET(VGPU_FAULT_INFO_CTX_MASK, info);
	f->access = FIELD_GET(VGPU_FAULT_INFO_ACCESS_MASK, info);
	f->reason = FIELD_GET(VGPU_FAULT_INFO_REASON_MASK, info);
	f->level = FIELD_GET(VGPU_FAULT_INFO_LEVEL_MASK, info);
	f->timestamp = (u64)rec[VGPU_FAULT_DW_TIME_HI] << 32 |
		       rec[VGPU_FAULT_DW_TIME_LO];
	WRITE_ONCE(rec[VGPU_FAULT_DW_FLAGS], 0);
	vdev->fault.head = (vdev->fault.head + 1) & (vdev->fault.entries - 1);
	vdev->fault.total++;
	return true;
}

static const char *vgpu_fault_access_str(u32 access)
{
	return access < ARRAY_SIZE(vgpu_fault_accesses) &&
	       vgpu_fault_accesses[access] ? vgpu_fault_accesses[access] : "?";
}

static const char *vgpu_fault_reason_str(u32 reason)
{
	return reason < ARRAY_SIZE(vgpu_fault_reasons) &&
	       vgpu_fault_reasons[reason] ? vgpu_fault_reasons[reason] :
	       "unknown reason";
}

/* What became of a faulting page. */
enum vgpu_fault_outcome {
	VGPU_FAULT_REPLAY,	/* resolved: its queues may replay */
	VGPU_FAULT_CANCEL,	/* unresolvable: the VM is banned */
	VGPU_FAULT_LATER,	/* waits for the batch's copies */
};

/*
 * One faulting page of a batch: records arrive de-duplicated (@e->dups
 * more records of the same VM and page were merged into it).  Pageable
 * memory is migrated or mapped (vgpu_chunk_fault()); a page that the
 * previous entry of the group already mapped is resolved with it; any
 * other fault is unresolvable and bans the VM.  With @cb (the first
 * pass) a page whose chunk is being copied is left for later; @cf then
 * keeps what the first pass found for the second.
 */
static enum vgpu_fault_outcome
vgpu_fault_handle(struct vgpu_device *vdev,
		  const struct vgpu_fault_batch_entry *e,
		  struct vgpu_chunk_fault *prev, struct vgpu_chunk_fault *cf,
		  struct vgpu_chunk_batch *cb)
{
	const struct vgpu_fault *f = &e->f;
	struct vgpu_vm *vm = e->vm;
	int ret = -ENOENT;

	cf->va = f->va;
	cf->access_mask = e->access_mask;
	cf->reason = f->reason;
	cf->deferred = !cb;
	if (vm && !vgpu_vm_banned(vm)) {
		if (prev->res != VGPU_FAULT_RES_CANCELLED &&
		    f->va >= prev->map_start && f->va < prev->map_end &&
		    (prev->writable || !(e->access_mask & BIT(VGPU_ACCESS_WRITE))) &&
		    f->reason == VGPU_FAULT_NOT_PRESENT) {
			cf->res = VGPU_FAULT_RES_DUPLICATE;
			ret = 0;
		} else {
			/* A CPU-address mirror, else pageable memory. */
			ret = vgpu_svm_fault(vm, cf, cb);
			if (ret == -ENOENT)
				ret = vgpu_chunk_fault(vm, cf, cb);
			if (!ret)
				*prev = *cf;
		}
	}
	if (ret == -EINPROGRESS)
		return VGPU_FAULT_LATER;
	/* Counted once, by the pass that decides (not one left for later). */
	if (vm) {
		vgpu_stats_vm_add(vm, VGPU_STAT_FAULTS_HANDLED, 1 + e->dups);
		vgpu_stats_vm_add(vm, VGPU_STAT_FAULT_DUPLICATES, e->dups);
	}
	if (!ret) {
		vgpu_fault_log_add(vdev, f, vm, cf->res);
		vgpu_stats_vm_add(vm, VGPU_STAT_FAULTS_RESOLVED, 1);
		return VGPU_FAULT_REPLAY;
	}

	dev_warn_ratelimited(vdev->drm.dev,
			     "GPU fault: queue %u context %u VA %#llx %s, %s at level %u%s (%d)\n",
			     f->queue, f->ctx, f->va, vgpu_fault_access_str(f->access),
			     vgpu_fault_reason_str(f->reason), f->level,
			     vm ? ", banning the VM" : " (no VM)", ret);
	vgpu_fault_log_add(vdev, f, vm,
			   vm ? VGPU_FAULT_RES_CANCELLED : VGPU_FAULT_RES_NO_VM);
	if (vm) {
		vgpu_stats_vm_add(vm, VGPU_STAT_FAULTS_CANCELLED, 1);
		vgpu_vm_ban(vm);
	}
	return VGPU_FAULT_CANCEL;
}

/*
 * Handles the entries of group @g from @first on.  The first pass (@cb)
 * stops at the first entry left for later and records it in @g; the
 * second (@first = @g->later) resolves the rest.  Sets the stalled
 * queues in @replay or @cancel and counts resolved pages in @resolved.
 */
static void vgpu_fault_handle_group(struct vgpu_device *vdev,
				    struct vgpu_fault_batch *b,
				    struct vgpu_fault_group *g, u32 first,
				    struct vgpu_chunk_batch *cb,
				    unsigned long *replay, unsigned long *cancel,
				    u32 *resolved)
{
	struct vgpu_chunk_fault prev = { .res = VGPU_FAULT_RES_CANCELLED };
	u32 i;

	g->later = g->first + g->nr;
	for (i = first; i < g->first + g->nr; i++) {
		struct vgpu_fault_batch_entry *e = &b->entries[i];
		u32 queues = e->queues & GENMASK(VGPU_NUM_QUEUES - 1, 0);
		struct vgpu_chunk_fault cf = {
			/* What the first pass found (a migration) is kept. */
			.res = !cb && i == first ? g->later_res : 0,
		};
		u32 slow_ms = READ_ONCE(vdev->paging.slow_fault_pages_ms);
		enum vgpu_fault_outcome out;

		if (slow_ms)
			msleep(min(slow_ms, 10000u));
		out = vgpu_fault_handle(vdev, e, &prev, &cf, cb);
		/* Handled, now or once its copy is done: its queues move. */
		if (out != VGPU_FAULT_CANCEL)
			vgpu_queue_progress(vdev, queues);
		switch (out) {
		case VGPU_FAULT_LATER:
			g->later = i;
			g->later_res = cf.res;
			return;
		case VGPU_FAULT_REPLAY:
			replay[0] |= queues;
			(*resolved)++;
			break;
		case VGPU_FAULT_CANCEL:
			cancel[0] |= queues;
			break;
		}
	}
}

/**
 * struct vgpu_fault_slot - a fault batch, from its first pass to its answers
 * @b: the records.
 * @cb: the chunk copies its first pass queued.
 * @replay: queues to REPLAY once the copies are done.
 * @cancel: queues to CANCEL (a page of theirs could not be resolved).
 * @resolved: pages resolved.
 * @later: some pages wait for the copies.
 * @pool_seq: the VRAM pool's number of the batch (vgpu_chunk_batch_begin()).
 */
struct vgpu_fault_slot {
	struct vgpu_fault_batch *b;
	struct vgpu_chunk_batch cb;
	DECLARE_BITMAP(replay, VGPU_NUM_QUEUES);
	DECLARE_BITMAP(cancel, VGPU_NUM_QUEUES);
	u32 resolved;
	bool later;
	u64 pool_seq;
};

/*
 * The first half of a batch: reads up to the batch limit of records into
 * @s, sorts, de-duplicates and groups them, and handles each faulting
 * page once, queueing the copies into VRAM on the copy engine
 * (vgpu_chunk_fault() with a batch); a page whose chunk is being copied
 * is left for later.  The copies are submitted, and the batch's chunks
 * held in VRAM from @hold_seq on (that of the batch still waiting for its
 * copies, or 0 for this batch's own) until the completion.
 *
 * Return: the number of records read.
 */
static u32 vgpu_fault_begin_batch(struct vgpu_device *vdev, struct vgpu_fault_slot *s,
				  u64 hold_seq)
{
	struct vgpu_fault_batch *b = s->b;
	struct vgpu_fault_group *g;
	struct vgpu_vm *last = NULL;
	u64 start = ktime_get_ns();
	struct vgpu_fault f;

	vgpu_fault_batch_reset(b);
	vgpu_fault_batch_set_limit(b, vgpu_paging_fault_batch_limit());
	/* Each record takes a reference on its VM, dropped at completion. */
	while (!vgpu_fault_batch_full(b) && vgpu_fault_read(vdev, &f))
		vgpu_fault_batch_add(b, vgpu_ctx_owner_get(vdev, f.ctx), &f);
	vgpu_wr32(vdev, VGPU_REG_FAULT_BUF_HEAD, vdev->fault.head);
	if (!b->nr_records)
		return 0;

	vgpu_fault_batch_sort(b);
	bitmap_zero(s->replay, VGPU_NUM_QUEUES);
	bitmap_zero(s->cancel, VGPU_NUM_QUEUES);
	s->resolved = 0;
	s->later = false;
	s->pool_seq = vgpu_chunk_batch_begin(vdev);
	vgpu_chunk_batch_hold(vdev, hold_seq ?: s->pool_seq);
	vgpu_chunk_batch_init(&s->cb, vdev, NULL);
	vgpu_fault_batch_for_each_group(b, g) {
		if (g->vm && g->vm != last)
			vgpu_stats_vm_add(g->vm, VGPU_STAT_FAULT_BATCHES, 1);
		last = g->vm;
		vgpu_fault_handle_group(vdev, b, g, g->first, &s->cb, s->replay,
					s->cancel, &s->resolved);
		s->later |= g->later < g->first + g->nr;
	}
	vgpu_chunk_batch_kick(&s->cb);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULT_BATCHES, 1);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULTS_HANDLED, b->nr_records);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULT_DUPLICATES, b->nr_records - b->nr);
	/* Faults on chunks the previous batch still copies waited for them. */
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULT_COPY_WAIT_NS, s->cb.wait_ns);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULT_NS,
		       ktime_get_ns() - start - s->cb.wait_ns);
	return b->nr_records;
}

/*
 * The second half of a batch: waits once for every copy the first pass
 * queued, resolves the pages left for later (which maps the copies) and
 * answers the batch's queues, once each however many records they wrote:
 * CANCEL if one of their pages could not be resolved, else REPLAY.  The
 * wait is counted apart (fault_copy_wait_ns), not in fault_ns.
 */
static void vgpu_fault_complete(struct vgpu_device *vdev, struct vgpu_fault_slot *s)
{
	struct vgpu_fault_batch *b = s->b;
	struct vgpu_fault_batch_entry *e;
	struct vgpu_fault_group *g;
	u64 start = ktime_get_ns(), wait = 0;
	u32 i, q;

	vgpu_chunk_batch_finish(&s->cb, &wait);
	vgpu_fault_batch_for_each_group(b, g)
		if (s->later && g->later < g->first + g->nr)
			vgpu_fault_handle_group(vdev, b, g, g->later, NULL,
						s->replay, s->cancel, &s->resolved);
	for (e = b->entries; e < b->entries + b->nr; e++)
		for (i = 0; e->vm && i <= e->dups; i++)
			vgpu_vm_put(e->vm);
	/* The device's totals, of records without a VM too. */
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULTS_RESOLVED, s->resolved);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULTS_CANCELLED, b->nr - s->resolved);
	for_each_set_bit(q, s->cancel, VGPU_NUM_QUEUES)
		vgpu_wr32(vdev, VGPU_QUEUE_REG(q, VGPU_QUEUE_CONTROL),
			  VGPU_QUEUE_CONTROL_CANCEL);
	for_each_set_bit(q, s->replay, VGPU_NUM_QUEUES)
		if (!test_bit(q, s->cancel))
			vgpu_queue_replay(vdev, q);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULT_COPY_WAIT_NS, wait);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_FAULT_NS, ktime_get_ns() - start - wait);
}

/**
 * vgpu_fault_drain() - handle every record in the fault buffer
 * @vdev: vgpu device
 *
 * A two-stage pipeline over two slots: while the copy engine runs the
 * copies of one batch, the thread reads and resolves the next, and only
 * then completes the first (whose copies are by then done or nearly so),
 * answering its queues.  The first batch's chunks stay in VRAM until
 * then (vgpu_chunk_batch_hold()).  A batch that queued no chunk copy is
 * completed at once: its queues are not kept waiting for the next
 * batch.  On a device in deterministic mode each batch is completed
 * before the next is read, so that what the batches decide does not
 * depend on how long the copies took.
 *
 * Context: the fault interrupt thread.
 */
void vgpu_fault_drain(struct vgpu_device *vdev)
{
	bool pipelined = !(vdev->caps & VGPU_CAPS_DETERMINISTIC);
	struct vgpu_paging *pg = &vdev->paging;
	struct vgpu_fault_slot *prev = NULL;
	DECLARE_BITMAP(replay, VGPU_NUM_QUEUES);
	unsigned int next = 0;
	u32 overflows, q, n;

	BUILD_BUG_ON(VGPU_NUM_QUEUES > BITS_PER_LONG);
	bitmap_zero(replay, VGPU_NUM_QUEUES);
	mutex_lock(&pg->fault_lock);
	/* Only this thread decides about thrashing: vgpu.thrash_count now. */
	WRITE_ONCE(pg->prefetch_cfg.thrash_count, vgpu_paging_thrash_count());
	do {
		struct vgpu_fault_slot *s = pg->slots[next];

		n = vgpu_fault_begin_batch(vdev, s, prev ? prev->pool_seq : 0);
		if (prev)
			vgpu_fault_complete(vdev, prev);
		prev = n ? s : NULL;
		/* Nothing to overlap with a batch that copies nothing. */
		if (prev && (!pipelined || !prev->cb.nr_chunks)) {
			vgpu_fault_complete(vdev, prev);
			prev = NULL;
		}
		next = (next + 1) % ARRAY_SIZE(pg->slots);
	} while (n);
	vgpu_chunk_batch_hold(vdev, 0);
	mutex_unlock(&pg->fault_lock);

	overflows = vgpu_rd32(vdev, VGPU_REG_FAULT_BUF_OVERFLOWS);
	if (overflows != vdev->fault.overflows) {
		dev_warn_ratelimited(vdev->drm.dev, "fault buffer overflowed: %u records lost\n",
				     overflows);
		vdev->fault.overflows = overflows;
		/*
		 * A lost record may hide a stalled queue, or a lane waiting
		 * in a queue that still runs: let them retry; an access still
		 * unresolved faults again.
		 */
		for (q = 0; q < vdev->nr_queues; q++) {
			u32 st = vgpu_rd32(vdev, VGPU_QUEUE_REG(q, VGPU_QUEUE_STATUS));

			st = FIELD_GET(VGPU_QUEUE_STATUS_STATE_MASK, st);
			if (st == VGPU_QUEUE_STATE_STALLED ||
			    st == VGPU_QUEUE_STATE_RUNNING)
				__set_bit(q, replay);
		}
	}

	for_each_set_bit(q, replay, VGPU_NUM_QUEUES)
		vgpu_queue_replay(vdev, q);
}

/* ------------------------------------------------------ set-up --- */

static void vgpu_fault_slots_fini(struct vgpu_device *vdev)
{
	struct vgpu_paging *pg = &vdev->paging;
	int i;

	for (i = 0; i < ARRAY_SIZE(pg->slots); i++) {
		if (pg->slots[i])
			vgpu_fault_batch_free(pg->slots[i]->b);
		kfree(pg->slots[i]);
		pg->slots[i] = NULL;
	}
}

static int vgpu_fault_slots_init(struct vgpu_device *vdev)
{
	struct vgpu_paging *pg = &vdev->paging;
	int i;

	for (i = 0; i < ARRAY_SIZE(pg->slots); i++) {
		struct vgpu_fault_slot *s = kzalloc(sizeof(*s), GFP_KERNEL);

		pg->slots[i] = s;
		if (!s)
			goto err;
		s->b = vgpu_fault_batch_alloc(vgpu_paging_fault_batch_limit(),
					      pg->chunk_shift);
		if (!s->b)
			goto err;
	}
	return 0;
err:
	vgpu_fault_slots_fini(vdev);
	return -ENOMEM;
}

/**
 * vgpu_fault_init() - allocate the fault buffer and hand it to the device
 * @vdev: vgpu device
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_fault_init(struct vgpu_device *vdev)
{
	int ret;

	ret = vgpu_paging_init(vdev);
	if (ret)
		return ret;
	ret = vgpu_fault_slots_init(vdev);
	if (ret) {
		vgpu_paging_fini(vdev);
		return ret;
	}
	vdev->fault.entries = clamp_t(u32, roundup_pow_of_two(2 * vdev->lanes * vdev->num_queues),
				      VGPU_FAULT_ENTRIES_MIN, VGPU_FAULT_BUF_ENTRIES_MAX);
	vdev->fault.records = dma_alloc_coherent(vdev->drm.dev,
						 vdev->fault.entries * VGPU_FAULT_RECORD_SIZE,
						 &vdev->fault.dma, GFP_KERNEL);
	if (!vdev->fault.records) {
		vgpu_fault_slots_fini(vdev);
		vgpu_paging_fini(vdev);
		return -ENOMEM;
	}
	vgpu_fault_hw_init(vdev);
	return 0;
}

/**
 * vgpu_fault_fini() - take the fault buffer back from the device and free it
 * @vdev: vgpu device, interrupts off
 */
void vgpu_fault_fini(struct vgpu_device *vdev)
{
	vgpu_wr64(vdev, VGPU_REG_FAULT_BUF_LO, 0);
	dma_free_coherent(vdev->drm.dev, vdev->fault.entries * VGPU_FAULT_RECORD_SIZE,
			  vdev->fault.records, vdev->fault.dma);
	vgpu_fault_slots_fini(vdev);
	vgpu_paging_fini(vdev);
}
