// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>

#include "vgpu_chunk_state.h"

/**
 * DOC: The chunk state machine
 *
 * Every change of where a chunk's data lives is one transition of
 * vgpu_chunk_plan(): given the chunk's state, what happened and the
 * chunk's advice, it returns the next state and the steps to take.
 * vgpu_chunk.c runs the steps, always in the order of their bits:
 *
 * 1. allocate the VRAM copy (the pool may evict colder units);
 * 2. take away every mapping that could see stale data: the CPU's, and
 *    the GPU's in every VM at every VA, waiting for the TLB invalidation
 *    (the device's dirty bits are final only then);
 * 3. copy back a VRAM copy the device dirtied, then free it, or, for an
 *    eviction that makes room for a batch of copies, queue the copy back
 *    in the batch and hand the block over to it: only the batch's later
 *    copies, which the copy engine runs after the copy back, reuse it
 *    (there the TLB is waited for once for all the batch's victims, and
 *    a copy back the final dirty bits show needless is cancelled, before
 *    any of the batch's copies runs);
 * 4. copy in;
 * 5. map: every mapping to the system pages (ACCESSED_BY), or the acting
 *    one to the VRAM copy or the system pages.
 *
 * So no transition copies data that a mapping may still write, and none
 * maps a copy before it holds the data.  The table, by state (events not
 * listed leave the chunk as it is, with nothing to do):
 *
 * ============== ================ ===================================== ===========
 * state          event            steps                                 next
 * ============== ================ ===================================== ===========
 * home           GPU read/write   map system pages (remote)             home
 * home           GPU read/write,  alloc, zap CPU, unmap GPU, copy in,   copying
 *                prefetch         map VRAM once copied (READ_MOSTLY and copying_dup
 *                                 no write: duplicated)
 * copying(_dup)  copy done        \-                                    vram (dup)
 * copying(_dup)  copy failed      free                                  home
 * vram           GPU access,      map VRAM                              vram
 *                prefetch
 * vram           evict, CPU       unmap GPU, copy back if dirty, free,  home
 *                access           (ACCESSED_BY: map remote everywhere)
 * vram           CPU read,        unmap GPU, copy back if dirty, the    dup
 *                READ_MOSTLY      CPU maps read-only
 * vram, dup      evict for a      unmap GPU (the batch waits for the    copying_home
 *                batch            TLB), queue the copy back (cancelled
 *                                 if clean), hand the block over to the
 *                                 batch
 * copying_home   copy done or     \-                                    home
 *                failed
 * dup            GPU read,        map VRAM (read-only)                  dup
 *                prefetch
 * dup            GPU write,       zap CPU, map VRAM                     vram
 *                unadvise
 * dup            CPU read         the CPU maps read-only                dup
 * dup            evict, CPU write unmap GPU, copy back if dirty (never:   home
 *                                 read-only everywhere), free
 * ============== ================ ===================================== ===========
 *
 * While a copy runs the chunk takes no other event (-EBUSY): the caller
 * waits for the copy, or, the fault thread, resolves the fault after its
 * batch's copies.  An event that cannot happen in a state (a copy ending
 * that never began) is -EINVAL.  The file knows nothing of TTM, page
 * tables or registers; ``vgpu_kunit_chunk_state`` tests every transition.
 */

static const char *const vgpu_chunk_state_names[VGPU_CHUNK_NR_STATES] = {
	[VGPU_CHUNK_HOME] = "home",
	[VGPU_CHUNK_COPYING] = "copying",
	[VGPU_CHUNK_COPYING_DUP] = "copying_dup",
	[VGPU_CHUNK_VRAM] = "vram",
	[VGPU_CHUNK_DUP] = "dup",
	[VGPU_CHUNK_COPYING_HOME] = "copying_home",
};

/**
 * vgpu_chunk_state_name() - a state's name, for logs and debugfs
 * @state: state
 *
 * Return: its name, or "?".
 */
const char *vgpu_chunk_state_name(enum vgpu_chunk_state state)
{
	return (unsigned int)state < VGPU_CHUNK_NR_STATES ?
	       vgpu_chunk_state_names[state] : "?";
}

/* Mapped once the copy is done: at once when it is waited for. */
/**
 * vgpu_chunk_state_settled() - the state once a running copy ends well
 * @state: state
 *
 * Return: where a copying state leads when its copy succeeds (a copy that
 * was waited for at once ends there); any other state itself.
 */
enum vgpu_chunk_state vgpu_chunk_state_settled(enum vgpu_chunk_state state)
{
	switch (state) {
	case VGPU_CHUNK_COPYING:
		return VGPU_CHUNK_VRAM;
	case VGPU_CHUNK_COPYING_DUP:
		return VGPU_CHUNK_DUP;
	case VGPU_CHUNK_COPYING_HOME:
		return VGPU_CHUNK_HOME;
	default:
		return state;
	}
}

#define VGPU_CHUNK_MIGRATE_IN	(VGPU_CHUNK_DO_ALLOC | VGPU_CHUNK_DO_ZAP_CPU | \
				 VGPU_CHUNK_DO_UNMAP_GPU | VGPU_CHUNK_DO_COPY_IN | \
				 VGPU_CHUNK_DO_MAP_VRAM)

static void vgpu_chunk_plan_home(enum vgpu_chunk_event ev, u32 in,
				 struct vgpu_chunk_plan *p)
{
	bool dup = ev != VGPU_CHUNK_EV_GPU_WRITE && (in & VGPU_CHUNK_IN_READ_MOSTLY);

	switch (ev) {
	case VGPU_CHUNK_EV_GPU_READ:
	case VGPU_CHUNK_EV_GPU_WRITE:
		if (in & VGPU_CHUNK_IN_REMOTE) {
			p->steps = VGPU_CHUNK_DO_MAP_SYSTEM;
			return;
		}
		fallthrough;
	case VGPU_CHUNK_EV_PREFETCH:
		if (in & VGPU_CHUNK_IN_REMOTE)
			return;
		p->steps = VGPU_CHUNK_MIGRATE_IN;
		p->next = dup ? VGPU_CHUNK_COPYING_DUP : VGPU_CHUNK_COPYING;
		return;
	default:
		return;
	}
}

/*
 * A VRAM copy goes home: written back if the device dirtied it, after
 * every mapping went.  An eviction for a batch (not ACCESSED_BY, whose
 * remote mappings need the data home first) queues the copy back there
 * and hands the block over; any other waits for it and frees the block.
 */
static void vgpu_chunk_plan_homeward(enum vgpu_chunk_event ev, u32 in,
				     struct vgpu_chunk_plan *p)
{
	p->steps = VGPU_CHUNK_DO_UNMAP_GPU | VGPU_CHUNK_DO_COPY_BACK;
	p->next = VGPU_CHUNK_HOME;
	if (in & VGPU_CHUNK_IN_ACCESSED_BY) {
		p->steps |= VGPU_CHUNK_DO_FREE | VGPU_CHUNK_DO_MAP_REMOTE_ALL;
	} else if (ev == VGPU_CHUNK_EV_EVICT && (in & VGPU_CHUNK_IN_BATCH)) {
		p->steps |= VGPU_CHUNK_DO_HAND_OVER;
		p->next = VGPU_CHUNK_COPYING_HOME;
	} else {
		p->steps |= VGPU_CHUNK_DO_FREE;
	}
}

static void vgpu_chunk_plan_vram(enum vgpu_chunk_event ev, u32 in,
				 struct vgpu_chunk_plan *p)
{
	switch (ev) {
	case VGPU_CHUNK_EV_GPU_READ:
	case VGPU_CHUNK_EV_GPU_WRITE:
	case VGPU_CHUNK_EV_PREFETCH:
		p->steps = VGPU_CHUNK_DO_MAP_VRAM;
		return;
	case VGPU_CHUNK_EV_CPU_READ:
		/*
		 * READ_MOSTLY: duplicated back, not brought home.  No GPU
		 * mapping may write while the copy back runs; they fault in
		 * again read-only.
		 */
		if (in & VGPU_CHUNK_IN_READ_MOSTLY) {
			p->steps = VGPU_CHUNK_DO_UNMAP_GPU | VGPU_CHUNK_DO_COPY_BACK |
				   VGPU_CHUNK_DO_CPU_RO;
			p->next = VGPU_CHUNK_DUP;
			return;
		}
		fallthrough;
	case VGPU_CHUNK_EV_EVICT:
	case VGPU_CHUNK_EV_CPU_WRITE:
		vgpu_chunk_plan_homeward(ev, in, p);
		return;
	default:
		return;
	}
}

static void vgpu_chunk_plan_dup(enum vgpu_chunk_event ev, u32 in,
				struct vgpu_chunk_plan *p)
{
	switch (ev) {
	case VGPU_CHUNK_EV_GPU_READ:
	case VGPU_CHUNK_EV_PREFETCH:
		p->steps = VGPU_CHUNK_DO_MAP_VRAM;
		return;
	case VGPU_CHUNK_EV_GPU_WRITE:
		p->steps = VGPU_CHUNK_DO_ZAP_CPU | VGPU_CHUNK_DO_MAP_VRAM;
		p->next = VGPU_CHUNK_VRAM;
		return;
	case VGPU_CHUNK_EV_UNADVISE_RM:
		p->steps = VGPU_CHUNK_DO_ZAP_CPU;
		p->next = VGPU_CHUNK_VRAM;
		return;
	case VGPU_CHUNK_EV_CPU_READ:
		p->steps = VGPU_CHUNK_DO_CPU_RO;
		return;
	case VGPU_CHUNK_EV_EVICT:
	case VGPU_CHUNK_EV_CPU_WRITE:
		/*
		 * Read-only everywhere: the system pages are up to date, and
		 * the device's dirty bits, final after the unmap, say so.
		 */
		vgpu_chunk_plan_homeward(ev, in, p);
		return;
	default:
		return;
	}
}

/**
 * vgpu_chunk_plan() - the transition of a chunk for an event
 * @state: the chunk's state
 * @ev: what happened
 * @in: ``VGPU_CHUNK_IN_*``
 * @p: out: the next state and the steps (see "The chunk state machine")
 *
 * Return: 0; -EBUSY while a copy runs (wait for it, then plan again);
 * -EINVAL for an event the state cannot take.
 */
int vgpu_chunk_plan(enum vgpu_chunk_state state, enum vgpu_chunk_event ev,
		    u32 in, struct vgpu_chunk_plan *p)
{
	p->next = state;
	p->steps = 0;
	if ((unsigned int)ev >= VGPU_CHUNK_NR_EVENTS)
		return -EINVAL;

	switch (state) {
	case VGPU_CHUNK_HOME:
		if (ev == VGPU_CHUNK_EV_COPY_DONE || ev == VGPU_CHUNK_EV_COPY_FAILED)
			return -EINVAL;
		vgpu_chunk_plan_home(ev, in, p);
		return 0;
	case VGPU_CHUNK_COPYING_HOME:
		/* Done or failed, the VRAM copy is gone. */
		if (ev == VGPU_CHUNK_EV_COPY_DONE || ev == VGPU_CHUNK_EV_COPY_FAILED) {
			p->next = VGPU_CHUNK_HOME;
			return 0;
		}
		return -EBUSY;
	case VGPU_CHUNK_COPYING:
	case VGPU_CHUNK_COPYING_DUP:
		if (ev == VGPU_CHUNK_EV_COPY_DONE) {
			p->next = state == VGPU_CHUNK_COPYING ? VGPU_CHUNK_VRAM :
								 VGPU_CHUNK_DUP;
			return 0;
		}
		if (ev == VGPU_CHUNK_EV_COPY_FAILED) {
			p->steps = VGPU_CHUNK_DO_FREE;
			p->next = VGPU_CHUNK_HOME;
			return 0;
		}
		return -EBUSY;
	case VGPU_CHUNK_VRAM:
		if (ev == VGPU_CHUNK_EV_COPY_DONE || ev == VGPU_CHUNK_EV_COPY_FAILED)
			return -EINVAL;
		vgpu_chunk_plan_vram(ev, in, p);
		return 0;
	case VGPU_CHUNK_DUP:
		if (ev == VGPU_CHUNK_EV_COPY_DONE || ev == VGPU_CHUNK_EV_COPY_FAILED)
			return -EINVAL;
		vgpu_chunk_plan_dup(ev, in, p);
		return 0;
	default:
		return -EINVAL;
	}
}
