// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "vgpu_drv.h"
#include "vgpu_evict_policy.h"
#include "vgpu_policy.h"
#include "vgpu_pool.h"
#include "vgpu_stats.h"
#include "vgpu_vm.h"

/**
 * DOC: The VRAM pool
 *
 * All of VRAM is one pool under one eviction order.  Whatever holds VRAM
 * and can give it back is a *unit* (&struct vgpu_pool_unit): an ordinary
 * BO's VRAM resource, or the VRAM copy of one chunk of a pageable BO.  A
 * unit kind supplies five operations (&struct vgpu_pool_unit_ops): read
 * its access counters, test and clear its ACCESSED bits, say whether it
 * holds VRAM in a range, evict it (contents kept), and optionally hear
 * that it was used.  A chunk-sized block of process memory mirrored for
 * SVM and migrated into device-private pages is a third kind
 * (vgpu_svm_dmem.c); later clients (a VF's VRAM slice) are more kinds,
 * not more pools.  Kernel BOs (page tables, rings, the fault
 * buffer) are pinned and are not units.
 *
 * The resident units sit in one &struct vgpu_evict_lru, ordered by the
 * device's eviction policy ("Eviction policies and how recency is
 * sampled") over one access history per unit, fed the same way for every
 * kind:
 *
 * - **access counters**: once per batch, when the batch first needs a
 *   victim or before an ordinary BO joins the pool, the sampler
 *   (vgpu_pool_sample_locked()) reads each device access counter once and
 *   touches, in the current epoch, every resident unit whose counters grew
 *   (vgpu_pool_read_ctr(); a BO smaller than the counter granule shares
 *   its counter with its neighbours);
 * - **ACCESSED bits**: in the same pass, the leaves of every resident unit
 *   the counters cannot tell apart (one smaller than a counter granule,
 *   or any while the counters are off) are tested and cleared in every VM
 *   that maps it (the unit's ``age``
 *   operation, vgpu_vm_bo_age() for both kinds), a unit with one set is
 *   touched, and each VM's TLB is flushed once for the leaves cleared
 *   (vgpu_vm_inval_flush()), so that the next use sets the bit again;
 * - **direct use**: a GPU fault on a chunk touches it, and so does a fault
 *   that maps a chunk already in VRAM again; placing a BO in VRAM touches
 *   it (its creation, or the validation that brings it back);
 * - prefetched chunks come in untouched: they earn their history.
 *
 * **Making room** (vgpu_pool_make_room_locked()) is the only way VRAM is
 * reclaimed.  It walks the units coldest first and evicts the first one
 * that holds VRAM in the requested range, was not brought in by the
 * batch being resolved nor by a fault batch whose copies are still
 * running (vgpu_pool_hold()), is not advised to stay (%VGPU_POOL_UNIT_KEEP,
 * considered last) and can be evicted now: a unit whose eviction would
 * have to wait (a BO reserved by someone else, or with unsignalled
 * fences: a job is using it, so it is hot anyway) answers -EBUSY and the
 * walk moves on to the next coldest.  The VRAM manager calls it when an
 * allocation does not fit (vgpu_vram_mgr.c), and so does a chunk fault;
 * both retry their allocation after each eviction.  TTM's own LRU never
 * chooses a VRAM victim: vgpu_eviction_valuable() refuses every BO for a
 * VRAM placement, so TTM's eviction walk finds nothing, and TTM goes on
 * to the BO's next placement.
 *
 * **Locking.**  &vgpu_pool.lock is the demand-paging lock: the chunk code
 * holds it across a chunk's migration, and a chunk fault evicts from
 * under it.  A VRAM allocation can happen with the lock held (page-table
 * pages reserved while a fault is resolved) or not (BO creation, EXEC's
 * validation, which hold reservations, possibly under a ww ticket).  The
 * lock records its owner, so the VRAM manager takes it only if the
 * caller does not hold it (vgpu_pool_lock_unless_held()); it ranks after
 * BO reservations and &vgpu_vm.lock, before a BO's gpuva lock, the
 * page-table locks and the VRAM manager's own lock.  Evictions never
 * block on anything a GPU fault might wait for: a chunk's eviction takes
 * no reservation (its BO's pages cannot move while the chunk is resident:
 * vgpu_chunk_bo_busy()); a BO's eviction trylocks the victim's
 * reservation as TTM does (a BO locked by the evicting thread itself,
 * under its ticket, fails the trylock and is skipped: no ww deadlock),
 * skips it if its fences have not signalled, and validates it into its
 * eviction placement (vgpu_evict_flags()) with ``no_wait_gpu``.
 */

static bool vgpu_recency_counters = true;
module_param_named(recency_counters, vgpu_recency_counters, bool, 0644);
MODULE_PARM_DESC(recency_counters,
		 "Recency from the device's access counters (default: true)");

static bool vgpu_recency_accessed = true;
module_param_named(recency_accessed_bits, vgpu_recency_accessed, bool, 0644);
MODULE_PARM_DESC(recency_accessed_bits,
		 "Recency from the ACCESSED bits of the GPU's leaves (default: true)");

/**
 * vgpu_pool_init() - an empty pool for the device's VRAM
 * @vdev: vgpu device, MMIO mapped, its VRAM size known
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_pool_init(struct vgpu_device *vdev)
{
	struct vgpu_pool *pool = &vdev->pool;

	pool->vdev = vdev;
	INIT_LIST_HEAD(&pool->units);
	pool->ctr_shift = VGPU_ACCESS_CHUNK_SHIFT_DEFAULT;
	if (vdev->caps & VGPU_CAPS_ACCESS_COUNTERS)
		pool->ctr_shift = clamp(vgpu_rd32(vdev, VGPU_REG_ACCESS_CHUNK_SHIFT),
					12u, 40u);
	pool->nr_ctr = DIV_ROUND_UP_ULL(vdev->vram_size, 1ull << pool->ctr_shift);
	pool->ctr = kvcalloc(pool->nr_ctr, sizeof(*pool->ctr), GFP_KERNEL);
	if (!pool->ctr)
		return -ENOMEM;
	mutex_init(&pool->lock);
	vgpu_evict_lru_init(&pool->lru, &pool->lock, vgpu_evict_policy_get(0),
			    VGPU_EVICT_CRP_DEFAULT);
	return 0;
}

/**
 * vgpu_pool_fini() - tear the pool down
 * @vdev: vgpu device; every unit left VRAM
 */
void vgpu_pool_fini(struct vgpu_device *vdev)
{
	WARN_ON(!list_empty(&vdev->pool.units));
	mutex_destroy(&vdev->pool.lock);
	kvfree(vdev->pool.ctr);
	vdev->pool.ctr = NULL;
}

/**
 * vgpu_pool_lock() - take the pool lock
 * @pool: pool
 */
void vgpu_pool_lock(struct vgpu_pool *pool)
{
	mutex_lock(&pool->lock);
	pool->owner = current;
}

/**
 * vgpu_pool_unlock() - release the pool lock
 * @pool: pool
 */
void vgpu_pool_unlock(struct vgpu_pool *pool)
{
	pool->owner = NULL;
	mutex_unlock(&pool->lock);
}

/**
 * vgpu_pool_lock_unless_held() - take the pool lock unless the caller has it
 * @pool: pool
 *
 * Only the owner writes its own task into &vgpu_pool.owner, so the
 * unlocked read cannot mistake another task's hold for ours.
 *
 * Return: true if the lock was taken (release it with vgpu_pool_unlock()).
 */
bool vgpu_pool_lock_unless_held(struct vgpu_pool *pool)
{
	if (READ_ONCE(pool->owner) == current)
		return false;
	vgpu_pool_lock(pool);
	return true;
}

/**
 * vgpu_pool_unit_init() - a unit with no history, not resident
 * @u: unit
 * @ops: its kind
 */
void vgpu_pool_unit_init(struct vgpu_pool_unit *u,
			 const struct vgpu_pool_unit_ops *ops)
{
	vgpu_evict_unit_init(&u->ev);
	INIT_LIST_HEAD(&u->link);
	u->ops = ops;
	u->size = 0;
	u->batch = 0;
	u->tried = 0;
	u->flags = 0;
}

/**
 * vgpu_pool_insert_locked() - a unit now holds VRAM
 * @pool: pool
 * @u: unit, not resident; its history is kept
 * @size: VRAM bytes it holds
 * @touch: count this as a use (a fault or a placement in VRAM), rather
 *	than a prefetch that has to earn its history
 *
 * The unit is protected from eviction until the next batch.  The caller
 * sets &vgpu_evict_unit.ctr_snap afterwards if the unit's access counters
 * are not zero.
 *
 * Context: the pool lock held.
 */
void vgpu_pool_insert_locked(struct vgpu_pool *pool, struct vgpu_pool_unit *u,
			     u64 size, bool touch)
{
	lockdep_assert_held(&pool->lock);
	u->size = size;
	u->batch = pool->batch_seq;
	vgpu_evict_lru_insert(&pool->lru, &u->ev);
	list_add_tail(&u->link, &pool->units);
	pool->resident[u->ops->kind] += size;
	if (touch)
		vgpu_evict_lru_touch(&pool->lru, &u->ev);
}

/**
 * vgpu_pool_remove_locked() - a unit gave its VRAM back
 * @pool: pool
 * @u: resident unit
 *
 * Context: the pool lock held.
 */
void vgpu_pool_remove_locked(struct vgpu_pool *pool, struct vgpu_pool_unit *u)
{
	lockdep_assert_held(&pool->lock);
	vgpu_evict_lru_remove(&pool->lru, &u->ev);
	list_del_init(&u->link);
	pool->resident[u->ops->kind] -= u->size;
}

/**
 * vgpu_pool_touch_locked() - the unit was used in the current epoch
 * @pool: pool
 * @u: unit, resident or not
 *
 * Context: the pool lock held.
 */
void vgpu_pool_touch_locked(struct vgpu_pool *pool, struct vgpu_pool_unit *u)
{
	lockdep_assert_held(&pool->lock);
	vgpu_evict_lru_touch(&pool->lru, &u->ev);
}

/**
 * vgpu_pool_touch() - vgpu_pool_touch_locked(), taking the lock if needed
 * @pool: pool
 * @u: unit
 */
void vgpu_pool_touch(struct vgpu_pool *pool, struct vgpu_pool_unit *u)
{
	bool locked = vgpu_pool_lock_unless_held(pool);

	vgpu_pool_touch_locked(pool, u);
	if (locked)
		vgpu_pool_unlock(pool);
}

/**
 * vgpu_pool_sample_locked() - feed the device's access data to the eviction order
 * @pool: pool
 *
 * Once per batch: reads each device access counter once and hands every
 * resident unit its total, and tests and clears the ACCESSED bits of the
 * leaves that map each resident unit the counters cannot tell apart
 * (&vgpu_pool_unit_ops.age), then flushes each VM's TLB for the leaves
 * cleared, once.  Units the device
 * used since the previous pass, by either source, are touched in the
 * current epoch.  Called when the batch first needs a victim, and before
 * an ordinary BO joins the pool, so that the newcomer is not compared
 * with accesses older than itself.  The module parameters
 * ``recency_counters`` and ``recency_accessed_bits`` turn either source
 * off.
 *
 * Context: the pool lock held; sleeps (TLB invalidation).
 */
void vgpu_pool_sample_locked(struct vgpu_pool *pool)
{
	struct vgpu_device *vdev = pool->vdev;
	bool ctr = READ_ONCE(vgpu_recency_counters) &&
		   (vdev->caps & VGPU_CAPS_ACCESS_COUNTERS);
	bool abits = READ_ONCE(vgpu_recency_accessed) &&
		     (vdev->caps & VGPU_CAPS_AD_BITS);
	u64 granule = 1ull << pool->ctr_shift;
	struct vgpu_pool_unit *u;
	u64 i, found = 0;

	lockdep_assert_held(&pool->lock);
	if (pool->sampled_seq == pool->batch_seq)
		return;
	pool->sampled_seq = pool->batch_seq;
	if (!(ctr || abits) || list_empty(&pool->units))
		return;
	for (i = 0; ctr && i < pool->nr_ctr; i++) {
		vgpu_wr32(vdev, VGPU_REG_ACCESS_CTR_INDEX, i);
		pool->ctr[i] = vgpu_rd32(vdev, VGPU_REG_ACCESS_CTR_VALUE);
	}
	pool->ctr_valid = ctr;
	/* Touching re-sorts the tree, not the list. */
	list_for_each_entry(u, &pool->units, link) {
		bool used = ctr && vgpu_evict_lru_sample_counter(&pool->lru, &u->ev,
								 u->ops->read_ctr(u));

		/*
		 * The bits only where the counters cannot tell: a unit
		 * smaller than a counter granule shares it with others.
		 */
		if (abits && (!ctr || u->size < granule) && u->ops->age(u)) {
			vgpu_evict_lru_touch(&pool->lru, &u->ev);
			used = true;
			found++;
		}
		if (used && u->ops->used)
			u->ops->used(u);
	}
	pool->ctr_valid = false;
	if (abits)
		vgpu_vm_inval_flush(vdev);
	vgpu_stats_add(vdev, NULL, VGPU_STAT_ACCESS_BITS_SAMPLED, found);
}

/**
 * vgpu_pool_begin_locked() - start a batch
 * @pool: pool
 *
 * A new sampling epoch; units brought in from now on are not victims
 * until the next batch; an eviction policy switched through sysfs takes
 * effect here (the units are re-sorted, their history kept).  Begun by each fault batch, PREFETCH
 * and ADVISE call (vgpu_pool_begin()), and by each VRAM allocation that
 * has to make room outside of one.
 *
 * Context: the pool lock held.
 */
void vgpu_pool_begin_locked(struct vgpu_pool *pool)
{
	const struct vgpu_evict_policy_ops *ops =
		vgpu_evict_policy_get(vgpu_policy_evict(pool->vdev));

	lockdep_assert_held(&pool->lock);
	pool->batch_seq++;
	if (ops)
		vgpu_evict_lru_set_policy(&pool->lru, ops);
	vgpu_evict_lru_advance(&pool->lru);
}

/**
 * vgpu_pool_hold() - keep the units of some batches out of reach
 * @pool: pool
 * @seq: the units that came in with batch @seq or later are no victims
 *	(0: only those of the current batch, as always)
 */
void vgpu_pool_hold(struct vgpu_pool *pool, u64 seq)
{
	bool locked = vgpu_pool_lock_unless_held(pool);

	pool->hold_seq = seq;
	if (locked)
		vgpu_pool_unlock(pool);
}

/**
 * vgpu_pool_begin() - vgpu_pool_begin_locked(), taking the lock if needed
 * @pool: pool
 */
void vgpu_pool_begin(struct vgpu_pool *pool)
{
	bool locked = vgpu_pool_lock_unless_held(pool);

	vgpu_pool_begin_locked(pool);
	if (locked)
		vgpu_pool_unlock(pool);
}

/**
 * vgpu_pool_read_ctr() - sum of the device access counters of some VRAM
 * @pool: pool
 * @start: VRAM offset
 * @size: bytes
 *
 * Saturating; 0 on a device without access counters.  During a sampling
 * pass the values come from the pass's one read of every counter.
 *
 * Context: the pool lock held (it serialises the counter window).
 * Return: the sum over every counter granule @start..@start + @size touches.
 */
u32 vgpu_pool_read_ctr(struct vgpu_pool *pool, u64 start, u64 size)
{
	struct vgpu_device *vdev = pool->vdev;
	u64 i, first = start >> pool->ctr_shift;
	u64 last = (start + size - 1) >> pool->ctr_shift;
	u32 sum = 0, v;

	lockdep_assert_held(&pool->lock);
	if (!(vdev->caps & VGPU_CAPS_ACCESS_COUNTERS) || !size)
		return 0;
	for (i = first; i <= last && i < pool->nr_ctr; i++) {
		if (pool->ctr_valid) {
			v = pool->ctr[i];
		} else {
			vgpu_wr32(vdev, VGPU_REG_ACCESS_CTR_INDEX, i);
			v = vgpu_rd32(vdev, VGPU_REG_ACCESS_CTR_VALUE);
		}
		sum = sum + v < sum ? U32_MAX : sum + v;
	}
	return sum;
}

/*
 * Tries to evict @u; counts it if it went.  While it goes, @u is on the
 * pool's evicting chain, so that an allocation its eviction makes (page
 * tables for ACCESSED_BY mappings) does not pick it again.  @u may be
 * freed by its eviction: it is not touched afterwards.
 */
/* The registry counts per kind, in the order of enum vgpu_pool_kind. */
static_assert(VGPU_STAT_POOL_EVICTIONS_CHUNK ==
	      VGPU_STAT_POOL_EVICTIONS_BO + VGPU_POOL_CHUNK);
static_assert(VGPU_STAT_POOL_BYTES_CHUNK ==
	      VGPU_STAT_POOL_BYTES_BO + VGPU_POOL_CHUNK);
static_assert(VGPU_STAT_POOL_EVICTIONS_SVM ==
	      VGPU_STAT_POOL_EVICTIONS_BO + VGPU_POOL_SVM);
static_assert(VGPU_STAT_POOL_BYTES_SVM ==
	      VGPU_STAT_POOL_BYTES_BO + VGPU_POOL_SVM);

static int vgpu_pool_evict_one(struct vgpu_pool *pool, struct vgpu_pool_unit *u)
{
	struct vgpu_pool_evicting link = { .unit = u, .next = pool->evicting };
	enum vgpu_pool_kind kind = u->ops->kind;
	u64 size = u->size;
	int ret;

	pool->evicting = &link;
	ret = u->ops->evict(u);
	pool->evicting = link.next;
	if (!ret) {
		vgpu_stats_add(pool->vdev, NULL,
			       VGPU_STAT_POOL_EVICTIONS_BO + kind, 1);
		vgpu_stats_add(pool->vdev, NULL, VGPU_STAT_POOL_BYTES_BO + kind,
			       size);
	}
	return ret;
}

static bool vgpu_pool_is_evicting(struct vgpu_pool *pool,
				  struct vgpu_pool_unit *u)
{
	struct vgpu_pool_evicting *e;

	for (e = pool->evicting; e; e = e->next)
		if (e->unit == u)
			return true;
	return false;
}

/**
 * vgpu_pool_make_room_locked() - evict the coldest unit that frees VRAM
 * @pool: pool
 * @start: VRAM offset the allocation may use from
 * @end: ... up to here (exclusive)
 *
 * One unit per call: the caller retries its allocation and calls again
 * while it does not fit.  See "The VRAM pool" for which units qualify.
 * Each unit is tried at most once per call (&vgpu_pool_unit.tried).
 *
 * Context: the pool lock held; may sleep (copies, TLB invalidation).
 * Return: 0 when a unit was evicted, -ENOSPC when none could be, or the
 * error of a failed eviction.
 */
int vgpu_pool_make_room_locked(struct vgpu_pool *pool, u64 start, u64 end)
{
	u64 walk = ++pool->walk_seq;
	struct vgpu_evict_unit *e;
	bool keep = false;
	int pass, ret;

	lockdep_assert_held(&pool->lock);
	vgpu_stats_add(pool->vdev, NULL, VGPU_STAT_POOL_MAKE_ROOM, 1);
	vgpu_pool_sample_locked(pool);
	/* Pass 0: units nobody asked to keep; pass 1: the others. */
	for (pass = 0; pass < 2; pass++) {
again:
		vgpu_evict_for_each_coldest(&pool->lru, e) {
			struct vgpu_pool_unit *u =
				container_of(e, struct vgpu_pool_unit, ev);

			if (u->batch == pool->batch_seq ||
			    (pool->hold_seq && u->batch >= pool->hold_seq) ||
			    u->tried == walk ||
			    !u->ops->intersects(u, start, end) ||
			    vgpu_pool_is_evicting(pool, u))
				continue;
			if (!pass && (u->flags & VGPU_POOL_UNIT_KEEP)) {
				keep = true;
				continue;
			}
			if (pass && !(u->flags & VGPU_POOL_UNIT_KEEP))
				continue;
			u->tried = walk;
			ret = vgpu_pool_evict_one(pool, u);
			if (ret != -EBUSY)
				return ret;
			/*
			 * The attempt may have changed the order (a unit
			 * freed meanwhile, a nested eviction): walk again
			 * from the coldest, past the units tried.
			 */
			goto again;
		}
		if (!keep)
			break;
	}
	vgpu_stats_add(pool->vdev, NULL, VGPU_STAT_POOL_NO_VICTIM, 1);
	return -ENOSPC;
}
