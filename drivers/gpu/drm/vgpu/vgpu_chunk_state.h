/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_CHUNK_STATE_H__
#define __VGPU_CHUNK_STATE_H__

#include <linux/bits.h>
#include <linux/types.h>

/**
 * enum vgpu_chunk_state - where a chunk's valid copies are
 * @VGPU_CHUNK_HOME: only the system pages; the CPU and remote GPU
 *	mappings use them.
 * @VGPU_CHUNK_COPYING: a copy into VRAM is queued or running; nobody
 *	maps the chunk until it ends.
 * @VGPU_CHUNK_COPYING_DUP: as @VGPU_CHUNK_COPYING, for a READ_MOSTLY
 *	chunk the GPU reads: the system pages stay valid.
 * @VGPU_CHUNK_VRAM: the VRAM copy is the only valid one, dirty or not;
 *	nothing maps the system pages.
 * @VGPU_CHUNK_DUP: both copies hold the data; the GPU maps the VRAM
 *	copy read-only and the CPU the system pages read-only.
 * @VGPU_CHUNK_COPYING_HOME: evicted for a batch: the copy back of its
 *	VRAM copy is queued in the batch, whose next copies reuse the VRAM;
 *	nobody maps the chunk until the copy back ends.
 * @VGPU_CHUNK_NR_STATES: number of states.
 */
enum vgpu_chunk_state {
	VGPU_CHUNK_HOME,
	VGPU_CHUNK_COPYING,
	VGPU_CHUNK_COPYING_DUP,
	VGPU_CHUNK_VRAM,
	VGPU_CHUNK_DUP,
	VGPU_CHUNK_COPYING_HOME,
	VGPU_CHUNK_NR_STATES
};

/**
 * enum vgpu_chunk_event - what happens to a chunk
 * @VGPU_CHUNK_EV_GPU_READ: a GPU fault whose records only read.
 * @VGPU_CHUNK_EV_GPU_WRITE: a GPU fault that writes.
 * @VGPU_CHUNK_EV_PREFETCH: brought in ahead of use: PREFETCH or a
 *	placement advice to VRAM (the chunk is mapped), or the stream
 *	detector (it is not, unless it moves).
 * @VGPU_CHUNK_EV_COPY_DONE: the copy (into VRAM, or back) ended well.
 * @VGPU_CHUNK_EV_COPY_FAILED: the copy failed.
 * @VGPU_CHUNK_EV_EVICT: the pool needs its VRAM, or PREFETCH or advice
 *	sends it to system memory.
 * @VGPU_CHUNK_EV_CPU_READ: a CPU read fault on the chunk's pages.
 * @VGPU_CHUNK_EV_CPU_WRITE: a CPU write fault (or ``pfn_mkwrite``).
 * @VGPU_CHUNK_EV_UNADVISE_RM: READ_MOSTLY is cleared.
 * @VGPU_CHUNK_NR_EVENTS: number of events.
 */
enum vgpu_chunk_event {
	VGPU_CHUNK_EV_GPU_READ,
	VGPU_CHUNK_EV_GPU_WRITE,
	VGPU_CHUNK_EV_PREFETCH,
	VGPU_CHUNK_EV_COPY_DONE,
	VGPU_CHUNK_EV_COPY_FAILED,
	VGPU_CHUNK_EV_EVICT,
	VGPU_CHUNK_EV_CPU_READ,
	VGPU_CHUNK_EV_CPU_WRITE,
	VGPU_CHUNK_EV_UNADVISE_RM,
	VGPU_CHUNK_NR_EVENTS
};

/* Inputs of vgpu_chunk_plan(): what the chunk's advice and the policy say. */
/** VGPU_CHUNK_IN_READ_MOSTLY - ADVISE READ_MOSTLY is set */
#define VGPU_CHUNK_IN_READ_MOSTLY	BIT(0)
/** VGPU_CHUNK_IN_REMOTE - serve from system memory (policy, thrash pin, advice) */
#define VGPU_CHUNK_IN_REMOTE		BIT(1)
/** VGPU_CHUNK_IN_ACCESSED_BY - ADVISE ACCESSED_BY GPU: keep a GPU mapping */
#define VGPU_CHUNK_IN_ACCESSED_BY	BIT(2)
/** VGPU_CHUNK_IN_BATCH - an eviction may queue its copy back in a batch */
#define VGPU_CHUNK_IN_BATCH		BIT(3)

/*
 * Steps of a transition, in the order they run (vgpu_chunk.c): make room,
 * take away every mapping that could see stale data (and wait for the
 * TLBs), copy, give back, map.
 */
/** VGPU_CHUNK_DO_ALLOC - allocate a VRAM copy (the pool may evict others) */
#define VGPU_CHUNK_DO_ALLOC		BIT(0)
/** VGPU_CHUNK_DO_ZAP_CPU - the CPU's mappings of the system pages go */
#define VGPU_CHUNK_DO_ZAP_CPU		BIT(1)
/** VGPU_CHUNK_DO_UNMAP_GPU - every GPU mapping goes; the TLBs are waited for */
#define VGPU_CHUNK_DO_UNMAP_GPU		BIT(2)
/** VGPU_CHUNK_DO_COPY_BACK - the VRAM copy goes home if the device dirtied it */
#define VGPU_CHUNK_DO_COPY_BACK		BIT(3)
/** VGPU_CHUNK_DO_FREE - the VRAM copy goes back to the pool */
#define VGPU_CHUNK_DO_FREE		BIT(4)
/**
 * VGPU_CHUNK_DO_HAND_OVER - the VRAM copy leaves the pool, its block goes
 * to the batch the copy back is queued in: only copies queued after it
 * reuse the block
 */
#define VGPU_CHUNK_DO_HAND_OVER		BIT(5)
/** VGPU_CHUNK_DO_COPY_IN - the system pages are copied into the VRAM copy */
#define VGPU_CHUNK_DO_COPY_IN		BIT(6)
/** VGPU_CHUNK_DO_MAP_REMOTE_ALL - every GPU mapping points at the system pages */
#define VGPU_CHUNK_DO_MAP_REMOTE_ALL	BIT(7)
/** VGPU_CHUNK_DO_MAP_VRAM - the acting mapping maps the VRAM copy */
#define VGPU_CHUNK_DO_MAP_VRAM		BIT(8)
/** VGPU_CHUNK_DO_MAP_SYSTEM - the acting mapping maps the system pages */
#define VGPU_CHUNK_DO_MAP_SYSTEM	BIT(9)
/** VGPU_CHUNK_DO_CPU_RO - the CPU maps the system pages read-only */
#define VGPU_CHUNK_DO_CPU_RO		BIT(10)

/**
 * struct vgpu_chunk_plan - what a transition does
 * @next: the state afterwards (for a copy in, the state while it runs).
 * @steps: ``VGPU_CHUNK_DO_*``.
 */
struct vgpu_chunk_plan {
	enum vgpu_chunk_state next;
	u32 steps;
};

int vgpu_chunk_plan(enum vgpu_chunk_state state, enum vgpu_chunk_event ev,
		    u32 in, struct vgpu_chunk_plan *p);
enum vgpu_chunk_state vgpu_chunk_state_settled(enum vgpu_chunk_state state);
const char *vgpu_chunk_state_name(enum vgpu_chunk_state state);

#endif /* __VGPU_CHUNK_STATE_H__ */
