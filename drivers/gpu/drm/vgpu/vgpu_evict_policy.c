// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/string.h>

#include "vgpu_evict_policy.h"

/**
 * DOC: Eviction policies and how recency is sampled
 *
 * All of VRAM is one pool of evictable *units* ("The VRAM pool"): the
 * VRAM copies of chunks of pageable BOs (2 MiB by default, see "Demand
 * paging") and ordinary BOs in VRAM.  When VRAM is full, the eviction
 * policy names the coldest resident unit, of whatever kind.  A policy is
 * an ordering of the resident units computed from a per-unit access
 * history (&struct vgpu_evict_unit); the units sit in a red-black tree
 * sorted by that ordering, so the victim is the leftmost unit the caller
 * can use (units the current batch brought in, and units that cannot be
 * evicted right now, are skipped).  This file knows nothing of chunks,
 * BOs or registers.
 *
 * **Where the history comes from.**  The GPU does not tell the driver
 * about accesses that hit.  vgpu samples them, in *epochs*: the pool
 * starts an epoch (vgpu_evict_lru_advance()) with every fault batch,
 * PREFETCH and ADVISE call, and VRAM allocation that has to make room
 * outside of one (vgpu_pool_begin_locked()).  Once in each such batch —
 * when it first needs a victim, or before an ordinary BO joins the pool —
 * it reports each resident unit that the device used since the previous
 * report with vgpu_evict_lru_touch(), in the current epoch.  "Used" is
 * read from two sources, and either suffices:
 *
 * - the per-VRAM-chunk access counters (``ACCESS_CTR_*``): the device
 *   counts every COPY/FILL/WRITE/CHECKSUM piece and every TOUCH line that
 *   lands in a 2 MiB VRAM granule, TLB hit or not.  The sampler reads
 *   every counter once, sums the counters of the VRAM behind each
 *   resident unit and hands the total to vgpu_evict_lru_sample_counter(),
 *   which compares it with the previous sample's total (a smaller value
 *   means someone reset the counters: the whole value is new) and touches
 *   the unit if it grew: exact for units of whole granules,
 *   TLB-independent and cheap (two register accesses per 2 MiB of VRAM).
 *   Units smaller than a granule (small BOs) share its counter.
 * - the ACCESSED bits the device sets in the leaves it walks: the sampler
 *   tests and clears them in every leaf that maps the unit, in every VM,
 *   and touches the unit if one was set.  Exact per unit whatever its
 *   size, but only through the GPU's own mappings (not the copy engine's
 *   window), and only if each VM's TLB is flushed after the clear: a hit
 *   sets no bit.  Paging.rst "How recency is sampled, concretely" gives
 *   the cost.
 *
 * A unit both sources saw counts once (touches in one epoch are one).
 * The DIRTY bits the device sets in leaf PTEs decide whether an evicted
 * chunk is copied back (vgpu_chunk.c); the sampler never clears them.
 * Chunks mapped remotely in system memory have no recency.  This file
 * takes plain numbers (a counter total, "touched"): where they come from
 * is the pool's business (vgpu_pool_sample_locked()).
 *
 * A chunk brought into VRAM by a fault counts as touched in the epoch of
 * that fault (the fault *is* an access), and so does a BO placed in VRAM.
 * A chunk brought in by prefetch is inserted without a touch: it has to
 * earn its history.  The copy (or clear) that filled a unit's VRAM is
 * not counted: its counter snapshot starts after it.
 *
 * **Correlated references.**  A unit is touched in many consecutive
 * epochs while a kernel streams through it; those samples are one use,
 * not many.  Following O'Neil, O'Neil and Weikum's LRU-K, a touch is a new
 * *uncorrelated reference* (shifted into @hist) only when more than
 * @crp epochs passed since the previous reference began; otherwise it
 * only updates @last.  The period is measured from the start of the
 * burst, not from the last touch, so a unit in constant use still earns
 * a new reference every @crp + 1 epochs while a unit that a scan walks
 * through once keeps a single one.
 *
 * **The policies.**
 *
 * - ``lru``: coldest = oldest @last (ties: oldest touch).  Classic LRU over
 *   the sampled recency.  Fails under scans: a stream larger than the
 *   free VRAM pushes out the hot set.
 * - ``lru2``: LRU-K with K = 2.  Coldest = oldest *second-last*
 *   uncorrelated reference; a unit with a single reference has an
 *   infinite backward distance and goes first (among those, LRU order).
 *   A scan's units, referenced once, are evicted before a hot set that
 *   has been referenced twice, however recent the scan.
 *
 * Each policy is a file of its own (vgpu_evict_lru.c, vgpu_evict_lru2.c)
 * listed in %VGPU_EVICT_POLICIES; sysfs ``available_eviction_policies``
 * names them, and tools read the list from there.
 *
 * The history lives in the unit, not in the policy (a BO or chunk that
 * leaves VRAM keeps it for when it comes back), so switching policy at
 * run time (sysfs ``eviction_policy``, default from the module
 * parameter ``vgpu.eviction_policy``) re-sorts the tree and loses
 * nothing.
 */

#define VGPU_EVICT_POLICY_ENTRY(name) &vgpu_evict_##name##_ops,
static const struct vgpu_evict_policy_ops *const vgpu_evict_policies[] = {
	VGPU_EVICT_POLICIES(VGPU_EVICT_POLICY_ENTRY)
};
#undef VGPU_EVICT_POLICY_ENTRY

/**
 * vgpu_evict_policy_get() - the policies, by index
 * @i: index from 0, as in %VGPU_EVICT_POLICIES
 *
 * Return: policy @i, or NULL past the last one.
 */
const struct vgpu_evict_policy_ops *vgpu_evict_policy_get(unsigned int i)
{
	return i < ARRAY_SIZE(vgpu_evict_policies) ? vgpu_evict_policies[i] : NULL;
}

/**
 * vgpu_evict_policy_lookup() - look a policy up by name
 * @name: policy name; a trailing newline is ignored (sysfs)
 *
 * Return: the policy's index, or -EINVAL for an unknown name.
 */
int vgpu_evict_policy_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vgpu_evict_policies); i++)
		if (sysfs_streq(name, vgpu_evict_policies[i]->name))
			return i;
	return -EINVAL;
}

/*
 * rb_add_cached() passes no context to its comparison, and the ordering
 * depends on the active policy; insertion is therefore done by hand.
 */
static void vgpu_evict_tree_add(struct vgpu_evict_lru *lru,
				struct vgpu_evict_unit *c)
{
	struct rb_node **link = &lru->tree.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		struct vgpu_evict_unit *p =
			rb_entry(*link, struct vgpu_evict_unit, node);

		parent = *link;
		if (lru->ops->colder(c, p)) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&c->node, parent, link);
	rb_insert_color_cached(&c->node, &lru->tree, leftmost);
}

/**
 * vgpu_evict_lru_init() - set up an empty ordering
 * @lru: the ordering
 * @lock: the owner's lock protecting @lru and its units
 * @ops: initial policy
 * @crp: correlated reference period in epochs (0: every epoch counts)
 */
void vgpu_evict_lru_init(struct vgpu_evict_lru *lru, struct mutex *lock,
			 const struct vgpu_evict_policy_ops *ops,
			 unsigned int crp)
{
	memset(lru, 0, sizeof(*lru));
	lru->lock = lock;
	lru->ops = ops;
	lru->tree = RB_ROOT_CACHED;
	lru->epoch = 1;
	lru->crp = crp;
}

/**
 * vgpu_evict_unit_init() - a unit with no history, not resident
 * @c: unit
 */
void vgpu_evict_unit_init(struct vgpu_evict_unit *c)
{
	memset(c, 0, sizeof(*c));
	RB_CLEAR_NODE(&c->node);
}

/**
 * vgpu_evict_lru_set_policy() - switch policy, keeping every unit's history
 * @lru: the ordering
 * @ops: new policy
 *
 * Re-sorts the resident units: O(n log n) with n the units in VRAM.
 *
 * Context: @lru's lock held.
 */
void vgpu_evict_lru_set_policy(struct vgpu_evict_lru *lru,
			       const struct vgpu_evict_policy_ops *ops)
{
	struct rb_root_cached old = lru->tree;
	struct rb_node *node;

	lockdep_assert_held(lru->lock);
	if (ops == lru->ops)
		return;
	lru->ops = ops;
	lru->tree = RB_ROOT_CACHED;
	while ((node = rb_first_cached(&old))) {
		rb_erase_cached(node, &old);
		vgpu_evict_tree_add(lru, rb_entry(node, struct vgpu_evict_unit,
						  node));
	}
	lru->stats.switches++;
}

/**
 * vgpu_evict_lru_advance() - start a sampling epoch
 * @lru: the ordering
 *
 * Context: @lru's lock held.
 * Return: the new epoch.
 */
u64 vgpu_evict_lru_advance(struct vgpu_evict_lru *lru)
{
	lockdep_assert_held(lru->lock);
	lru->stats.samples++;
	return ++lru->epoch;
}

static void vgpu_evict_record(struct vgpu_evict_lru *lru,
			      struct vgpu_evict_unit *c)
{
	u64 now = lru->epoch;
	int i;

	lru->stats.touches++;
	if (!c->hist[0] || now - c->hist[0] > lru->crp) {
		for (i = VGPU_EVICT_HIST - 1; i > 0; i--)
			c->hist[i] = c->hist[i - 1];
		c->hist[0] = now;
		c->refs++;
		lru->stats.refs++;
	}
	c->last = now;
	c->seq = ++lru->seq;
}

/**
 * vgpu_evict_lru_touch() - the device used a unit in the current epoch
 * @lru: the ordering
 * @c: unit, resident or not
 *
 * Several touches in one epoch count once.
 *
 * Context: @lru's lock held.
 */
void vgpu_evict_lru_touch(struct vgpu_evict_lru *lru,
			  struct vgpu_evict_unit *c)
{
	lockdep_assert_held(lru->lock);
	if (c->last == lru->epoch)
		return;
	if (c->resident)
		rb_erase_cached(&c->node, &lru->tree);
	vgpu_evict_record(lru, c);
	if (c->resident)
		vgpu_evict_tree_add(lru, c);
}

/**
 * vgpu_evict_lru_sample_counter() - feed a unit's access-counter total
 * @lru: the ordering
 * @c: resident unit
 * @total: sum of the device access counters of the VRAM behind @c
 *
 * Touches @c if the total grew since the previous sample.  A total below
 * the previous one means the counters were reset in between; all of it is
 * new then.
 *
 * Context: @lru's lock held.
 * Return: accesses since the previous sample.
 */
u32 vgpu_evict_lru_sample_counter(struct vgpu_evict_lru *lru,
				  struct vgpu_evict_unit *c, u32 total)
{
	u32 delta = total >= c->ctr_snap ? total - c->ctr_snap : total;

	lockdep_assert_held(lru->lock);
	c->ctr_snap = total;
	if (delta) {
		c->accesses += delta;
		vgpu_evict_lru_touch(lru, c);
	}
	return delta;
}

/**
 * vgpu_evict_lru_insert() - a unit became resident in VRAM
 * @lru: the ordering
 * @c: unit, not resident; its history is kept
 *
 * The caller touches the unit as well when a fault brought it in, and
 * clears the device access counters of the VRAM it gave the unit (the
 * counter snapshot restarts at zero).
 *
 * Context: @lru's lock held.
 */
void vgpu_evict_lru_insert(struct vgpu_evict_lru *lru,
			   struct vgpu_evict_unit *c)
{
	lockdep_assert_held(lru->lock);
	if (WARN_ON(c->resident))
		return;
	c->resident = true;
	c->ctr_snap = 0;
	if (!c->seq)
		c->seq = ++lru->seq;
	vgpu_evict_tree_add(lru, c);
	lru->nr++;
	lru->stats.inserts++;
}

/**
 * vgpu_evict_lru_remove() - a unit left VRAM (evicted or freed)
 * @lru: the ordering
 * @c: resident unit
 *
 * Context: @lru's lock held.
 */
void vgpu_evict_lru_remove(struct vgpu_evict_lru *lru,
			   struct vgpu_evict_unit *c)
{
	lockdep_assert_held(lru->lock);
	if (WARN_ON(!c->resident))
		return;
	rb_erase_cached(&c->node, &lru->tree);
	RB_CLEAR_NODE(&c->node);
	c->resident = false;
	lru->nr--;
	lru->stats.removes++;
}

/**
 * vgpu_evict_lru_coldest() - the unit the policy would evict first
 * @lru: the ordering
 *
 * Context: @lru's lock held.
 * Return: the coldest resident unit, or NULL if none.
 */
struct vgpu_evict_unit *vgpu_evict_lru_coldest(struct vgpu_evict_lru *lru)
{
	struct rb_node *node;

	lockdep_assert_held(lru->lock);
	node = rb_first_cached(&lru->tree);
	return node ? rb_entry(node, struct vgpu_evict_unit, node) : NULL;
}

/**
 * vgpu_evict_lru_next() - the next warmer resident unit
 * @lru: the ordering
 * @c: resident unit
 *
 * Context: @lru's lock held.
 * Return: the unit after @c in eviction order, or NULL.
 */
struct vgpu_evict_unit *vgpu_evict_lru_next(struct vgpu_evict_lru *lru,
					    struct vgpu_evict_unit *c)
{
	struct rb_node *node;

	lockdep_assert_held(lru->lock);
	node = rb_next(&c->node);
	return node ? rb_entry(node, struct vgpu_evict_unit, node) : NULL;
}
