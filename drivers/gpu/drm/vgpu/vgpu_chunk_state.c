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
 * listed leave the chunk as it is, with nothing to do; the code is the
 * same table, vgpu_chunk_rules[], where the first rule that matches the
 * state, the event and the inputs decides):
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

#define ST(x)		BIT(VGPU_CHUNK_##x)
#define EV(x)		BIT(VGPU_CHUNK_EV_##x)
#define IN(x)		VGPU_CHUNK_IN_##x
#define DO(x)		VGPU_CHUNK_DO_##x
#define EV_GPU		(EV(GPU_READ) | EV(GPU_WRITE) | EV(PREFETCH))
#define EV_COPY_END	(EV(COPY_DONE) | EV(COPY_FAILED))
#define EV_ALL		GENMASK(VGPU_CHUNK_NR_EVENTS - 1, 0)
#define EV_HOMEWARD	(EV(EVICT) | EV(CPU_READ) | EV(CPU_WRITE))
#define MIGRATE_IN	(DO(ALLOC) | DO(ZAP_CPU) | DO(UNMAP_GPU) | DO(COPY_IN) | \
			 DO(MAP_VRAM))
#define HOMEWARD	(DO(UNMAP_GPU) | DO(COPY_BACK))
#define SAME		VGPU_CHUNK_NR_STATES

/*
 * One rule of the table: for a chunk in one of @states taking one of
 * @events with every input of @in_set and none of @in_clear, return @ret,
 * or go to @next (%SAME: stay) by @steps.
 */
struct vgpu_chunk_rule {
	u8 states;
	u16 events;
	u8 in_set;
	u8 in_clear;
	s8 ret;
	u8 next;
	u16 steps;
};

/*
 * The table of "The chunk state machine", as the code reads it: the first
 * rule that matches decides; a case no rule matches changes nothing.
 */
static const struct vgpu_chunk_rule vgpu_chunk_rules[] = {
	/* A copy ends only where one runs. */
	{ ST(HOME) | ST(VRAM) | ST(DUP), EV_COPY_END, 0, 0, -EINVAL, SAME, 0 },
	/* home: remote, or migrated in (duplicated for a READ_MOSTLY read) */
	{ ST(HOME), EV(GPU_READ) | EV(GPU_WRITE), IN(REMOTE), 0, 0, SAME,
	  DO(MAP_SYSTEM) },
	{ ST(HOME), EV(GPU_READ) | EV(PREFETCH), IN(READ_MOSTLY), IN(REMOTE), 0,
	  VGPU_CHUNK_COPYING_DUP, MIGRATE_IN },
	{ ST(HOME), EV_GPU, 0, IN(REMOTE), 0, VGPU_CHUNK_COPYING, MIGRATE_IN },
	/* copying: nothing else until the copy ends */
	{ ST(COPYING), EV(COPY_DONE), 0, 0, 0, VGPU_CHUNK_VRAM, 0 },
	{ ST(COPYING_DUP), EV(COPY_DONE), 0, 0, 0, VGPU_CHUNK_DUP, 0 },
	{ ST(COPYING) | ST(COPYING_DUP), EV(COPY_FAILED), 0, 0, 0,
	  VGPU_CHUNK_HOME, DO(FREE) },
	{ ST(COPYING_HOME), EV_COPY_END, 0, 0, 0, VGPU_CHUNK_HOME, 0 },
	{ ST(COPYING) | ST(COPYING_DUP) | ST(COPYING_HOME), EV_ALL, 0, 0,
	  -EBUSY, SAME, 0 },
	/* vram */
	{ ST(VRAM), EV_GPU, 0, 0, 0, SAME, DO(MAP_VRAM) },
	{ ST(VRAM), EV(CPU_READ), IN(READ_MOSTLY), 0, 0, VGPU_CHUNK_DUP,
	  HOMEWARD | DO(CPU_RO) },
	/* dup */
	{ ST(DUP), EV(GPU_READ) | EV(PREFETCH), 0, 0, 0, SAME, DO(MAP_VRAM) },
	{ ST(DUP), EV(GPU_WRITE), 0, 0, 0, VGPU_CHUNK_VRAM,
	  DO(ZAP_CPU) | DO(MAP_VRAM) },
	{ ST(DUP), EV(UNADVISE_RM), 0, 0, 0, VGPU_CHUNK_VRAM, DO(ZAP_CPU) },
	{ ST(DUP), EV(CPU_READ), 0, 0, 0, SAME, DO(CPU_RO) },
	/*
	 * Home from VRAM, written back if the device dirtied it (a duplicate
	 * never is: read-only everywhere).  ACCESSED_BY maps the system pages
	 * everywhere, so they must hold the data first; an eviction for a
	 * batch queues its copy back there and hands the block over.
	 */
	{ ST(VRAM) | ST(DUP), EV_HOMEWARD, IN(ACCESSED_BY), 0, 0,
	  VGPU_CHUNK_HOME, HOMEWARD | DO(FREE) | DO(MAP_REMOTE_ALL) },
	{ ST(VRAM) | ST(DUP), EV(EVICT), IN(BATCH), 0, 0, VGPU_CHUNK_COPYING_HOME,
	  HOMEWARD | DO(HAND_OVER) },
	{ ST(VRAM) | ST(DUP), EV_HOMEWARD, 0, 0, 0, VGPU_CHUNK_HOME,
	  HOMEWARD | DO(FREE) },
};

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
	const struct vgpu_chunk_rule *r;

	p->next = state;
	p->steps = 0;
	if ((unsigned int)state >= VGPU_CHUNK_NR_STATES ||
	    (unsigned int)ev >= VGPU_CHUNK_NR_EVENTS)
		return -EINVAL;
	for (r = vgpu_chunk_rules; r < vgpu_chunk_rules + ARRAY_SIZE(vgpu_chunk_rules); r++) {
		if (!(r->states & BIT(state)) || !(r->events & BIT(ev)) ||
		    (in & r->in_set) != r->in_set || (in & r->in_clear))
			continue;
		if (r->ret)
			return r->ret;
		if (r->next != SAME)
			p->next = r->next;
		p->steps = r->steps;
		return 0;
	}
	return 0;
}
