// SPDX-License-Identifier: MIT
/*
 * libvgpu: the caching allocator's logic (libvgpu.h, "caching
 * allocator"): size classes on slabs, a best-fit coalescing arena over
 * segments, fence-ordered reuse, trim and statistics.  Memory and fences
 * come from a struct vgpu_mempool_ops (pool_dev.c: vgpu BOs and syncobjs),
 * so this file needs no device and is unit-tested on the host.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libvgpu.h"

#define POOL_PAGE	4096ull
#define POOL_SEG_ALIGN	(2ull << 20)
#define POOL_NR_BINS	64
/* Size classes VGPU_MEMPOOL_MIN_BLOCK << 0 .. VGPU_MEMPOOL_SMALL_MAX. */
#define POOL_NR_CLASSES	9
/* Slabs are aligned to their largest class, so slots are naturally aligned. */
#define POOL_SLAB_ALIGN	VGPU_MEMPOOL_SMALL_MAX

#define POOL_DEFAULT_SEGMENT	(32ull << 20)
#define POOL_DEFAULT_VA_START	(1ull << 47)
#define POOL_DEFAULT_VA_SIZE	(1ull << 46)

/**
 * enum blk_state - what a block is
 * @BLK_FREE: reusable: an arena run in a bin, or a slot in its class list.
 * @BLK_USED: handed out, in the live-block hash.
 * @BLK_PENDING: freed, waiting for its fence, in the pending FIFO.
 * @BLK_SLAB: an arena run a slab lives in.
 */
enum blk_state { BLK_FREE, BLK_USED, BLK_PENDING, BLK_SLAB };

struct pool_seg;
struct pool_slab;

/*
 * A block: a run of an arena (a segment's memory, or the VA range) or a
 * slot of a slab.
 */
struct pool_blk {
	uint64_t va;
	uint64_t size;
	uint64_t requested;
	struct pool_blk *prev, *next;	/* runs: address order in their region */
	struct pool_blk *fprev, *fnext;	/* free: bin or class list */
	struct pool_blk *hnext;		/* used: hash chain */
	struct pool_blk *pnext;		/* pending: FIFO */
	struct pool_seg *seg;		/* runs of the memory arena */
	struct pool_slab *slab;		/* slots, and the run a slab lives in */
	struct vgpu_mempool_fence *fence;	/* pending */
	uint8_t state;
	bool slot;
};

/* A slab: one arena run cut into equal slots of one class. */
struct pool_slab {
	struct pool_blk *run;
	struct pool_blk *slots;
	unsigned int cls, nslots, busy;	/* busy: used or pending slots */
	struct pool_slab *prev, *next;	/* the class's slabs */
};

/* A segment: memory from the kernel at a VA of the pool's range. */
struct pool_seg {
	uint64_t va, size;
	void *cookie;
	void *cpu;
	struct pool_blk *va_run;	/* its run in the VA arena */
	uint64_t busy;			/* bytes of runs that are not free */
	struct pool_seg *prev, *next;
};

/* Free runs by size: bin n holds sizes in [2^n, 2^(n+1)). */
struct pool_arena {
	struct pool_blk *bins[POOL_NR_BINS];
	uint64_t free_bytes;
};

struct vgpu_mempool_fence {
	void *f;
	unsigned int refs;
	bool signalled;
	uint64_t looked;	/* the reap pass that last asked the ops */
};

struct vgpu_mempool {
	struct vgpu_mempool_ops ops;
	struct vgpu_mempool_config cfg;
	struct pool_arena mem;
	struct pool_arena va;
	struct pool_blk *classes[POOL_NR_CLASSES];
	struct pool_slab *slabs[POOL_NR_CLASSES];
	unsigned int empty_slabs[POOL_NR_CLASSES];
	struct pool_seg *segs;
	struct pool_blk **hash;
	size_t hash_size, hash_count;
	struct pool_blk *pend_head, *pend_tail;
	struct pool_blk *spare;		/* recycled run structs, by fnext */
	uint64_t reap_pass;
	struct vgpu_mempool_stats st;
};

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static unsigned int ilog2(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/* ------------------------------------------------------------ run structs */

static struct pool_blk *blk_new(struct vgpu_mempool *p)
{
	struct pool_blk *b = p->spare;

	if (b)
		p->spare = b->fnext;
	else
		b = malloc(sizeof(*b));
	if (b)
		memset(b, 0, sizeof(*b));
	return b;
}

static void blk_recycle(struct vgpu_mempool *p, struct pool_blk *b)
{
	b->fnext = p->spare;
	p->spare = b;
}

/* ---------------------------------------------------------------- hash */

static size_t hash_slot(const struct vgpu_mempool *p, uint64_t va)
{
	return (size_t)(((va >> 8) * 0x9e3779b97f4a7c15ull) >> 32) &
	       (p->hash_size - 1);
}

static int hash_grow(struct vgpu_mempool *p)
{
	size_t n = p->hash_size ? p->hash_size * 2 : 1024, i, old = p->hash_size;
	struct pool_blk **h = calloc(n, sizeof(*h)), **oh = p->hash;

	if (!h)
		return -ENOMEM;
	p->hash = h;
	p->hash_size = n;
	for (i = 0; i < old; i++) {
		struct pool_blk *b = oh[i], *next;

		for (; b; b = next) {
			size_t s = hash_slot(p, b->va);

			next = b->hnext;
			b->hnext = h[s];
			h[s] = b;
		}
	}
	free(oh);
	return 0;
}

static struct pool_blk *hash_find(const struct vgpu_mempool *p, uint64_t va)
{
	struct pool_blk *b;

	if (!p->hash_size)
		return NULL;
	for (b = p->hash[hash_slot(p, va)]; b; b = b->hnext)
		if (b->va == va)
			return b;
	return NULL;
}

static void hash_add(struct vgpu_mempool *p, struct pool_blk *b)
{
	size_t s = hash_slot(p, b->va);

	b->hnext = p->hash[s];
	p->hash[s] = b;
	p->hash_count++;
}

static void hash_del(struct vgpu_mempool *p, struct pool_blk *b)
{
	struct pool_blk **pp = &p->hash[hash_slot(p, b->va)];

	while (*pp != b)
		pp = &(*pp)->hnext;
	*pp = b->hnext;
	p->hash_count--;
}

/* ---------------------------------------------------------------- arena */

static void list_push(struct pool_blk **head, struct pool_blk *b)
{
	b->fprev = NULL;
	b->fnext = *head;
	if (*head)
		(*head)->fprev = b;
	*head = b;
}

static void list_del(struct pool_blk **head, struct pool_blk *b)
{
	if (b->fprev)
		b->fprev->fnext = b->fnext;
	else
		*head = b->fnext;
	if (b->fnext)
		b->fnext->fprev = b->fprev;
	b->fprev = b->fnext = NULL;
}

/* Seg bookkeeping when a run of the memory arena stops or starts being free. */
static void seg_busy(struct pool_blk *b, bool busy)
{
	if (!b->seg)
		return;
	if (busy)
		b->seg->busy += b->size;
	else
		b->seg->busy -= b->size;
}

static void arena_add_free(struct pool_arena *a, struct pool_blk *b)
{
	b->state = BLK_FREE;
	list_push(&a->bins[ilog2(b->size)], b);
	a->free_bytes += b->size;
}

static void arena_del_free(struct pool_arena *a, struct pool_blk *b)
{
	list_del(&a->bins[ilog2(b->size)], b);
	a->free_bytes -= b->size;
}

/* Does free run @b hold @size bytes at @align?  The waste if so. */
static bool run_fits(const struct pool_blk *b, uint64_t size, uint64_t align,
		     uint64_t *waste)
{
	uint64_t start = align_up(b->va, align);

	if (start - b->va > b->size || b->size - (start - b->va) < size)
		return false;
	*waste = b->size - size;
	return true;
}

/*
 * Best fit: the smallest free run that holds @size at @align.  Bins below
 * @size's cannot; in the first bin with a fitting run, that run is the
 * best, since every higher bin holds only larger runs.
 */
static struct pool_blk *arena_find(struct pool_arena *a, uint64_t size,
				   uint64_t align)
{
	unsigned int bin;

	for (bin = ilog2(size); bin < POOL_NR_BINS; bin++) {
		struct pool_blk *b, *best = NULL;
		uint64_t waste, best_waste = UINT64_MAX;

		for (b = a->bins[bin]; b; b = b->fnext)
			if (run_fits(b, size, align, &waste) && waste < best_waste) {
				best = b;
				best_waste = waste;
				if (!waste)
					break;
			}
		if (best)
			return best;
	}
	return NULL;
}

/* Split [b->va, b->va + at) off free run @b as a free run of its own. */
static void run_split_front(struct pool_arena *a, struct pool_blk *b,
			    struct pool_blk *front, uint64_t at)
{
	front->va = b->va;
	front->size = at;
	front->seg = b->seg;
	front->prev = b->prev;
	front->next = b;
	if (b->prev)
		b->prev->next = front;
	b->prev = front;
	b->va += at;
	b->size -= at;
	arena_add_free(a, front);
}

/* Split the part of run @b past @size off as a free run. */
static void run_split_tail(struct pool_arena *a, struct pool_blk *b,
			   struct pool_blk *tail, uint64_t size)
{
	tail->va = b->va + size;
	tail->size = b->size - size;
	tail->seg = b->seg;
	tail->prev = b;
	tail->next = b->next;
	if (b->next)
		b->next->prev = tail;
	b->next = tail;
	b->size = size;
	arena_add_free(a, tail);
}

/*
 * Take @size bytes at @align out of free run @b: the run returned is
 * exactly that, the rest stays free.  NULL when out of memory.
 */
static struct pool_blk *arena_carve(struct vgpu_mempool *p, struct pool_arena *a,
				    struct pool_blk *b, uint64_t size,
				    uint64_t align, enum blk_state state)
{
	uint64_t pad = align_up(b->va, align) - b->va;
	struct pool_blk *front = NULL, *tail = NULL;

	if (pad && !(front = blk_new(p)))
		return NULL;
	if (b->size - pad > size && !(tail = blk_new(p))) {
		if (front)
			blk_recycle(p, front);
		return NULL;
	}
	arena_del_free(a, b);
	if (front)
		run_split_front(a, b, front, pad);
	if (tail)
		run_split_tail(a, b, tail, size);
	b->state = state;
	seg_busy(b, true);
	return b;
}

/* Run @b is free again: merge it with free neighbours. */
static struct pool_blk *arena_release(struct vgpu_mempool *p, struct pool_arena *a,
				      struct pool_blk *b)
{
	struct pool_blk *n;

	seg_busy(b, false);
	if ((n = b->prev) && n->state == BLK_FREE) {
		arena_del_free(a, n);
		b->va = n->va;
		b->size += n->size;
		b->prev = n->prev;
		if (n->prev)
			n->prev->next = b;
		blk_recycle(p, n);
	}
	if ((n = b->next) && n->state == BLK_FREE) {
		arena_del_free(a, n);
		b->size += n->size;
		b->next = n->next;
		if (n->next)
			n->next->prev = b;
		blk_recycle(p, n);
	}
	b->slab = NULL;
	arena_add_free(a, b);
	return b;
}

/* ------------------------------------------------------------- segments */

static void stat_reserved(struct vgpu_mempool *p, int64_t delta)
{
	p->st.reserved += delta;
	if (p->st.reserved > p->st.peak_reserved)
		p->st.peak_reserved = p->st.reserved;
}

/* A new segment that holds at least @need bytes, as one free run. */
static int seg_grow(struct vgpu_mempool *p, uint64_t need)
{
	uint64_t size = p->cfg.segment_size;
	struct pool_blk *vr, *run;
	struct pool_seg *s;
	int ret;

	if (need > size)
		size = align_up(need, POOL_SEG_ALIGN);
	if (p->cfg.max_reserved && p->st.reserved + size > p->cfg.max_reserved)
		return -ENOMEM;
	vr = arena_find(&p->va, size, POOL_SEG_ALIGN);
	if (!vr)
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	run = blk_new(p);
	if (!s || !run || !arena_carve(p, &p->va, vr, size, POOL_SEG_ALIGN, BLK_USED)) {
		free(s);
		if (run)
			blk_recycle(p, run);
		return -ENOMEM;
	}
	ret = p->ops.seg_alloc(p->ops.priv, vr->va, size, &s->cookie);
	if (ret) {
		arena_release(p, &p->va, vr);
		blk_recycle(p, run);
		free(s);
		return ret;
	}
	s->va = vr->va;
	s->size = size;
	s->va_run = vr;
	s->next = p->segs;
	if (p->segs)
		p->segs->prev = s;
	p->segs = s;
	run->va = s->va;
	run->size = size;
	run->seg = s;
	arena_add_free(&p->mem, run);
	stat_reserved(p, size);
	p->st.segments++;
	p->st.segment_allocs++;
	return 0;
}

/* Give segment @s, wholly free, back. */
static void seg_release(struct vgpu_mempool *p, struct pool_seg *s)
{
	struct pool_blk *run = NULL;
	size_t i;

	/* A wholly free segment is one free run (runs coalesce). */
	for (i = 0; i < POOL_NR_BINS && !run; i++) {
		struct pool_blk *b;

		for (b = p->mem.bins[i]; b; b = b->fnext)
			if (b->seg == s) {
				run = b;
				break;
			}
	}
	if (run) {
		arena_del_free(&p->mem, run);
		blk_recycle(p, run);
	}
	p->ops.seg_free(p->ops.priv, s->va, s->size, s->cookie);
	arena_release(p, &p->va, s->va_run);
	if (s->prev)
		s->prev->next = s->next;
	else
		p->segs = s->next;
	if (s->next)
		s->next->prev = s->prev;
	stat_reserved(p, -(int64_t)s->size);
	p->st.segments--;
	p->st.segment_frees++;
	free(s);
}

/* ---------------------------------------------------------------- slabs */

static void slab_destroy(struct vgpu_mempool *p, struct pool_slab *sl)
{
	unsigned int i;

	for (i = 0; i < sl->nslots; i++)
		list_del(&p->classes[sl->cls], &sl->slots[i]);
	if (sl->prev)
		sl->prev->next = sl->next;
	else
		p->slabs[sl->cls] = sl->next;
	if (sl->next)
		sl->next->prev = sl->prev;
	p->empty_slabs[sl->cls]--;
	arena_release(p, &p->mem, sl->run);
	free(sl->slots);
	free(sl);
}

static int run_alloc(struct vgpu_mempool *p, uint64_t size, uint64_t align,
		     enum blk_state state, struct pool_blk **out);

static int slab_new(struct vgpu_mempool *p, unsigned int cls)
{
	uint64_t csize = (uint64_t)VGPU_MEMPOOL_MIN_BLOCK << cls;
	struct pool_slab *sl = calloc(1, sizeof(*sl));
	unsigned int i;
	int ret;

	if (!sl)
		return -ENOMEM;
	sl->cls = cls;
	sl->nslots = VGPU_MEMPOOL_SLAB_SIZE / csize;
	sl->slots = calloc(sl->nslots, sizeof(*sl->slots));
	ret = sl->slots ? run_alloc(p, VGPU_MEMPOOL_SLAB_SIZE, POOL_SLAB_ALIGN,
				    BLK_SLAB, &sl->run) : -ENOMEM;
	if (ret) {
		free(sl->slots);
		free(sl);
		return ret;
	}
	sl->run->slab = sl;
	for (i = sl->nslots; i-- > 0;) {
		struct pool_blk *b = &sl->slots[i];

		b->va = sl->run->va + i * csize;
		b->size = csize;
		b->slab = sl;
		b->slot = true;
		b->state = BLK_FREE;
		list_push(&p->classes[cls], b);
	}
	sl->next = p->slabs[cls];
	if (sl->next)
		sl->next->prev = sl;
	p->slabs[cls] = sl;
	p->empty_slabs[cls]++;
	return 0;
}

/* ------------------------------------------------------- fences, reuse */

static void fence_put(struct vgpu_mempool *p, struct vgpu_mempool_fence *f)
{
	if (f && !--f->refs) {
		p->ops.fence_put(p->ops.priv, f->f);
		free(f);
	}
}

/* Block @b may be handed out again. */
static void blk_reusable(struct vgpu_mempool *p, struct pool_blk *b)
{
	struct pool_slab *sl = b->slab;

	b->requested = 0;
	if (!b->slot) {
		arena_release(p, &p->mem, b);
		return;
	}
	b->state = BLK_FREE;
	list_push(&p->classes[sl->cls], b);
	if (--sl->busy)
		return;
	/* Keep one empty slab per class; give the others back to the arena. */
	p->empty_slabs[sl->cls]++;
	if (p->empty_slabs[sl->cls] > 1)
		slab_destroy(p, sl);
}

/* Fence state of @f, asking the ops at most once per reap pass. */
static bool fence_done(struct vgpu_mempool *p, struct vgpu_mempool_fence *f)
{
	if (!f->signalled && f->looked != p->reap_pass) {
		f->looked = p->reap_pass;
		f->signalled = p->ops.fence_wait(p->ops.priv, f->f, 0) != -ETIME;
	}
	return f->signalled;
}

/* Make the pending blocks whose fence signalled reusable; how many. */
static unsigned int reap(struct vgpu_mempool *p)
{
	struct pool_blk **pp = &p->pend_head, *b, *last = NULL;
	unsigned int n = 0;

	p->reap_pass++;
	while ((b = *pp)) {
		if (!fence_done(p, b->fence)) {
			last = b;
			pp = &b->pnext;
			continue;
		}
		*pp = b->pnext;
		b->pnext = NULL;
		p->st.pending -= b->size;
		fence_put(p, b->fence);
		b->fence = NULL;
		blk_reusable(p, b);
		n++;
	}
	p->pend_tail = last;
	return n;
}

/*
 * Pool full: wait for the oldest pending fence.  A wait that fails leaves
 * the fence pending: its blocks are never handed out on a guess.
 */
static int wait_oldest(struct vgpu_mempool *p)
{
	struct vgpu_mempool_fence *f = p->pend_head->fence;
	int ret;

	p->st.fence_waits++;
	ret = p->ops.fence_wait(p->ops.priv, f->f, -1);
	if (!ret)
		f->signalled = true;
	return ret;
}

/* ------------------------------------------------------------- trimming */

static uint64_t trim(struct vgpu_mempool *p)
{
	uint64_t released = 0;
	struct pool_seg *s, *next;
	unsigned int c;

	for (c = 0; c < POOL_NR_CLASSES; c++) {
		struct pool_slab *sl, *sn;

		for (sl = p->slabs[c]; sl; sl = sn) {
			sn = sl->next;
			if (!sl->busy)
				slab_destroy(p, sl);
		}
	}
	for (s = p->segs; s; s = next) {
		next = s->next;
		if (!s->busy) {
			released += s->size;
			seg_release(p, s);
		}
	}
	return released;
}

/* --------------------------------------------------------- allocating */

/*
 * A run of the memory arena: from what is free; else from blocks whose
 * fence signalled since; else from a new segment; else, under pressure,
 * after giving free segments back; else after waiting for a fence.
 */
static int run_alloc(struct vgpu_mempool *p, uint64_t size, uint64_t align,
		     enum blk_state state, struct pool_blk **out)
{
	for (;;) {
		struct pool_blk *b = arena_find(&p->mem, size, align);
		int ret;

		if (b) {
			*out = arena_carve(p, &p->mem, b, size, align, state);
			return *out ? 0 : -ENOMEM;
		}
		if (p->pend_head && reap(p))
			continue;
		ret = seg_grow(p, size);
		if (!ret)
			continue;
		if (ret != -ENOSPC && ret != -ENOMEM)
			return ret;
		if (trim(p)) {
			p->st.pressure_trims++;
			if (!seg_grow(p, size))
				continue;
		}
		if (!p->pend_head)
			return ret;
		ret = wait_oldest(p);
		if (ret)
			return ret;
		reap(p);
	}
}

static void stat_alloc(struct vgpu_mempool *p, struct pool_blk *b, uint64_t requested)
{
	b->requested = requested;
	p->st.allocated += b->size;
	p->st.requested += requested;
	if (p->st.allocated > p->st.peak_allocated)
		p->st.peak_allocated = p->st.allocated;
	p->st.allocs++;
}

static int small_alloc(struct vgpu_mempool *p, unsigned int cls, struct pool_blk **out)
{
	struct pool_blk *b;
	int ret;

	if (!p->classes[cls] && p->pend_head)
		reap(p);
	if (!p->classes[cls]) {
		ret = slab_new(p, cls);
		if (ret)
			return ret;
	}
	b = p->classes[cls];
	list_del(&p->classes[cls], b);
	if (!b->slab->busy++)
		p->empty_slabs[cls]--;
	b->state = BLK_USED;
	*out = b;
	return 0;
}

int vgpu_mempool_alloc(struct vgpu_mempool *p, uint64_t size, uint64_t align,
		    uint64_t *va)
{
	struct pool_blk *b;
	uint64_t rounded;
	int ret;

	if (!size || (align && (!is_pow2(align) || align > VGPU_MEMPOOL_MAX_ALIGN)))
		return -EINVAL;
	if (size > p->cfg.va_size)
		return -E2BIG;
	if (!align)
		align = VGPU_MEMPOOL_MIN_BLOCK;
	if (p->hash_count >= p->hash_size && (ret = hash_grow(p)))
		return ret;
	rounded = size > align ? size : align;
	if (rounded <= VGPU_MEMPOOL_SMALL_MAX) {
		rounded = rounded <= VGPU_MEMPOOL_MIN_BLOCK ? VGPU_MEMPOOL_MIN_BLOCK :
			  1ull << (ilog2(rounded - 1) + 1);
		ret = small_alloc(p, ilog2(rounded / VGPU_MEMPOOL_MIN_BLOCK), &b);
	} else {
		ret = run_alloc(p, align_up(size, POOL_PAGE),
				align > POOL_PAGE ? align : POOL_PAGE, BLK_USED, &b);
	}
	if (ret)
		return ret;
	stat_alloc(p, b, size);
	hash_add(p, b);
	*va = b->va;
	return 0;
}

int vgpu_mempool_free_fenced(struct vgpu_mempool *p, uint64_t va,
			  struct vgpu_mempool_fence *fence)
{
	struct pool_blk *b = hash_find(p, va);

	if (!b)
		return -EINVAL;
	hash_del(p, b);
	p->st.allocated -= b->size;
	p->st.requested -= b->requested;
	p->st.frees++;
	if (!fence || fence->signalled) {
		blk_reusable(p, b);
		return 0;
	}
	fence->refs++;
	b->fence = fence;
	b->state = BLK_PENDING;
	b->pnext = NULL;
	if (p->pend_tail)
		p->pend_tail->pnext = b;
	else
		p->pend_head = b;
	p->pend_tail = b;
	p->st.pending += b->size;
	return 0;
}

int vgpu_mempool_fence(struct vgpu_mempool *p, uint32_t syncobj,
		    struct vgpu_mempool_fence **fence)
{
	struct vgpu_mempool_fence *f;
	int ret;

	if (!syncobj)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = p->ops.fence_get(p->ops.priv, syncobj, &f->f);
	if (ret) {
		free(f);
		return ret;
	}
	f->refs = 1;
	*fence = f;
	return 0;
}

void vgpu_mempool_fence_put(struct vgpu_mempool *p, struct vgpu_mempool_fence *fence)
{
	fence_put(p, fence);
}

int vgpu_mempool_free(struct vgpu_mempool *p, uint64_t va, uint32_t syncobj)
{
	struct vgpu_mempool_fence *f = NULL;
	int ret;

	if (!hash_find(p, va))
		return -EINVAL;
	if (syncobj) {
		ret = vgpu_mempool_fence(p, syncobj, &f);
		if (ret)
			return ret;
	}
	ret = vgpu_mempool_free_fenced(p, va, f);
	fence_put(p, f);
	return ret;
}

int vgpu_mempool_trim(struct vgpu_mempool *p, uint64_t *released)
{
	uint64_t r;

	if (p->pend_head)
		reap(p);
	r = trim(p);
	if (released)
		*released = r;
	return 0;
}

void vgpu_mempool_get_stats(struct vgpu_mempool *p, struct vgpu_mempool_stats *st)
{
	uint64_t largest = 0;
	int bin;

	for (bin = POOL_NR_BINS - 1; bin >= 0 && !largest; bin--) {
		struct pool_blk *b;

		for (b = p->mem.bins[bin]; b; b = b->fnext)
			if (b->size > largest)
				largest = b->size;
	}
	p->st.largest_free = largest;
	p->st.fragmentation = p->mem.free_bytes ?
		1.0 - (double)largest / p->mem.free_bytes : 0.0;
	p->st.cached = p->st.reserved - p->st.allocated - p->st.pending;
	*st = p->st;
}

int vgpu_mempool_block_size(struct vgpu_mempool *p, uint64_t va, uint64_t *size)
{
	struct pool_blk *b = hash_find(p, va);

	if (!b)
		return -EINVAL;
	*size = b->size;
	return 0;
}

int vgpu_mempool_cpu(struct vgpu_mempool *p, uint64_t va, void **cpu)
{
	struct pool_blk *b = hash_find(p, va);
	struct pool_seg *s;
	int ret;

	if (!b)
		return -EINVAL;
	s = b->slot ? b->slab->run->seg : b->seg;
	if (!s->cpu) {
		if (!p->ops.seg_map)
			return -EOPNOTSUPP;
		ret = p->ops.seg_map(p->ops.priv, s->cookie, s->size, &s->cpu);
		if (ret)
			return ret;
	}
	*cpu = (char *)s->cpu + (va - s->va);
	return 0;
}

/* -------------------------------------------------------- life cycle */

int vgpu_mempool_create_ops(const struct vgpu_mempool_ops *ops,
			 const struct vgpu_mempool_config *cfg,
			 struct vgpu_mempool **pool)
{
	struct vgpu_mempool_config c = cfg ? *cfg : (struct vgpu_mempool_config){ 0 };
	struct pool_blk *all;
	struct vgpu_mempool *p;

	if (!ops || !ops->seg_alloc || !ops->seg_free || !ops->fence_get ||
	    !ops->fence_put || !ops->fence_wait || c.pad)
		return -EINVAL;
	if (!c.segment_size)
		c.segment_size = POOL_DEFAULT_SEGMENT;
	if (!c.va_start && !c.va_size) {
		c.va_start = POOL_DEFAULT_VA_START;
		c.va_size = POOL_DEFAULT_VA_SIZE;
	}
	if (c.segment_size % POOL_SEG_ALIGN || c.va_start % POOL_SEG_ALIGN ||
	    !c.va_size || c.va_size % POOL_SEG_ALIGN ||
	    c.va_start + c.va_size < c.va_start)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ops = *ops;
	p->cfg = c;
	all = blk_new(p);
	if (!all || hash_grow(p)) {
		free(all);
		free(p);
		return -ENOMEM;
	}
	all->va = c.va_start;
	all->size = c.va_size;
	arena_add_free(&p->va, all);
	*pool = p;
	return 0;
}

void vgpu_mempool_destroy(struct vgpu_mempool *p)
{
	struct pool_blk *b;
	size_t i;

	if (!p)
		return;
	/* Memory is unbound below: nothing may still run on it. */
	while (p->pend_head) {
		if (wait_oldest(p))
			p->pend_head->fence->signalled = true;	/* nothing better */
		reap(p);
	}
	for (i = 0; i < p->hash_size; i++)
		while ((b = p->hash[i])) {
			hash_del(p, b);
			p->st.allocated -= b->size;
			blk_reusable(p, b);
		}
	trim(p);
	for (i = 0; i < POOL_NR_BINS; i++)
		while ((b = p->va.bins[i])) {
			arena_del_free(&p->va, b);
			free(b);
		}
	while ((b = p->spare)) {
		p->spare = b->fnext;
		free(b);
	}
	free(p->hash);
	if (p->ops.release)
		p->ops.release(p->ops.priv);
	free(p);
}
