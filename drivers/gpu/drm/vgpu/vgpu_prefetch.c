// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "vgpu_prefetch.h"

/**
 * DOC: Prefetch and thrashing detection
 *
 * Each fault the resolver handles is also fed, as a chunk number in the
 * VM's address space, to a per-VM detector (&struct vgpu_prefetch) that
 * may suggest more chunks to bring in with it.  The resolver drops the
 * suggestions that are not backed by fault-able memory, are already in
 * VRAM, or are pinned to system memory, and migrates the rest in the same
 * batch.  A fault batch takes at most a quarter of VRAM in suggestions
 * (&vgpu_chunk_batch.prefetch_left), whatever its faults ask for: with
 * every lane of every queue faulting at once, the detectors see dozens
 * of faults per batch, each good for up to @max_depth chunks, and an
 * unbounded batch would push out of VRAM, in one go, the working set its
 * own faults come back for (a hot set under LRU-2, the chunks of the
 * previous batch).  Two detectors run side by side:
 *
 * **Streams.**  Up to %VGPU_PREFETCH_STREAMS streams are tracked, each a
 * last chunk, a stride (in chunks, either sign, at most @max_stride) and
 * a confidence.  A fault continues a stream when it lands one stride
 * after the stream's last fault, or on the first chunk past what was
 * already suggested (prefetch hides the faults in between).  Two faults
 * in a row on the stride confirm the stream; from then on every fault
 * that continues it suggests the chunks ahead of it, 2, 4, 8, ... up to
 * @max_depth strides ahead (a readahead-style ramp: a short stream wastes
 * little, a long one soon runs far ahead).  A fault that continues no
 * stream re-strides the nearest unconfirmed stream or replaces the least
 * recently used one.  Sequential access is stride 1; a TOUCH with a
 * stride of several chunks is a strided stream.
 *
 * **Dense regions.**  The address space is cut into aligned regions of
 * 2^@region_shift chunks.  A small table remembers which chunks of the
 * recently faulting regions faulted; once more than @density_pct percent
 * did, the rest of the region is suggested at once and the region's
 * record starts afresh.  Random access over a range that fits in VRAM
 * thus needs about half the faults.
 *
 * **Thrashing.**  Independently of prefetch, each chunk carries a
 * &struct vgpu_thrash.  Every migration into VRAM after the first, by a
 * fault or by these detectors' prefetch, is a *return*; a chunk that
 * returns more than @thrash_count times within @thrash_window_ns is
 * thrashing — VRAM is too small for what uses it — and is *pinned* to
 * system memory for @thrash_pin_ns: faults on it map its system pages
 * remotely instead of migrating it (the placement policy's map-remote
 * path) and prefetch skips it.  (Were prefetch's returns not counted, a
 * stream of bouncing chunks that prefetch brings back ahead of the
 * faults would never be seen thrashing: strided sweeps over 4x VRAM
 * moved 3.4 times the bytes with prefetch that they moved without.)
 * PREFETCH and ADVISE, which userspace asks for, are not counted.
 *
 * When the pin runs out the chunk comes back if it is still in use: the
 * resolver keeps the pinned chunks in the order their pins run out, and a
 * delayed work (and every fault batch; on a device in deterministic mode
 * only the fault batches, whose clock is modeled time) takes the remote
 * mappings of each expired one away, so that the GPU's next access faults
 * and migrates it, with a fresh window.  A chunk nobody touches any more
 * stays at home, unmapped (``thrash_unpins`` counts them all).  Without
 * this, a chunk pinned while hot was served from system memory for good:
 * its remote mapping never faulted again.  Thrash events are
 * counted per VM and globally.  @thrash_count follows the module
 * parameter ``thrash_count`` (0: no chunk is ever found thrashing).
 * The clock is vgpu_paging_clock(): wall time, or on a device in
 * deterministic mode its modeled time, so that the same workload pins
 * the same chunks.
 */

/**
 * vgpu_prefetch_cfg_default() - the default tunables
 * @cfg: filled in
 */
void vgpu_prefetch_cfg_default(struct vgpu_prefetch_cfg *cfg)
{
	cfg->max_depth = 32;
	cfg->max_stride = 16;
	cfg->region_shift = 4;
	cfg->density_pct = 50;
	cfg->thrash_count = 3;
	cfg->thrash_window_ns = 1000 * NSEC_PER_MSEC;
	cfg->thrash_pin_ns = 2000 * NSEC_PER_MSEC;
}

/**
 * vgpu_prefetch_init() - reset a detector
 * @pf: detector
 */
void vgpu_prefetch_init(struct vgpu_prefetch *pf)
{
	memset(pf, 0, sizeof(*pf));
}

/* Appends @chunk to @out unless already there; false when @out is full. */
static bool vgpu_prefetch_emit(u64 *out, unsigned int *n, unsigned int max,
			       u64 chunk, u64 fault)
{
	unsigned int i;

	if (chunk == fault)
		return true;
	for (i = 0; i < *n; i++)
		if (out[i] == chunk)
			return true;
	if (*n >= max)
		return false;
	out[(*n)++] = chunk;
	return true;
}

/* Does @chunk continue @s?  Sets *@steps to its distance in strides. */
static bool vgpu_prefetch_continues(const struct vgpu_prefetch_stream *s,
				    u64 chunk)
{
	s64 d = (s64)(chunk - s->last);
	s64 steps;

	if (!s->stride || !d || (d < 0) != (s->stride < 0))
		return false;
	if (d % s->stride)
		return false;
	steps = d / s->stride;
	if (steps == 1)
		return true;
	/* Faulting inside or just past the window already suggested. */
	return s->next && (s64)(s->next - s->last) / s->stride >= steps;
}

static struct vgpu_prefetch_stream *
vgpu_prefetch_restride(struct vgpu_prefetch *pf,
		       const struct vgpu_prefetch_cfg *cfg, u64 chunk)
{
	struct vgpu_prefetch_stream *s, *best = NULL, *lru = &pf->streams[0];
	u64 best_dist = U64_MAX;

	for (s = pf->streams; s < pf->streams + VGPU_PREFETCH_STREAMS; s++) {
		u64 dist;

		if (s->stamp < lru->stamp)
			lru = s;
		if (!s->stamp || s->confidence >= 2 || s->last == chunk)
			continue;
		dist = chunk > s->last ? chunk - s->last : s->last - chunk;
		if (dist <= cfg->max_stride && dist < best_dist) {
			best = s;
			best_dist = dist;
		}
	}
	if (best) {
		best->stride = (s64)(chunk - best->last);
		best->confidence = 1;
		best->last = chunk;
		best->next = 0;
		return best;
	}
	memset(lru, 0, sizeof(*lru));
	lru->last = chunk;
	return lru;
}

static void vgpu_prefetch_streams(struct vgpu_prefetch *pf,
				  const struct vgpu_prefetch_cfg *cfg,
				  u64 chunk, u64 *out, unsigned int *n,
				  unsigned int max)
{
	struct vgpu_prefetch_stream *s;
	unsigned int depth, i;
	u64 c;

	for (s = pf->streams; s < pf->streams + VGPU_PREFETCH_STREAMS; s++)
		if (s->stamp && vgpu_prefetch_continues(s, chunk))
			break;
	if (s == pf->streams + VGPU_PREFETCH_STREAMS) {
		s = vgpu_prefetch_restride(pf, cfg, chunk);
		s->stamp = pf->clock;
		return;
	}

	s->stamp = pf->clock;
	s->last = chunk;
	pf->stats.stream_hits++;
	if (++s->confidence == 2)
		pf->stats.streams++;
	if (s->confidence < 2 || !cfg->max_depth)
		return;

	depth = min_t(unsigned int, cfg->max_depth,
		      1u << min(s->confidence - 1, 16u));
	c = chunk + s->stride;
	/* Skip what an earlier fault of the stream already suggested. */
	if (s->next && (s64)(s->next - c) / s->stride > 0)
		c = s->next;
	for (i = 0; i < depth; i++) {
		if ((s64)(c - chunk) / s->stride > depth)
			break;
		if (!vgpu_prefetch_emit(out, n, max, c, chunk))
			break;
		c += s->stride;
	}
	s->next = c;
}

static void vgpu_prefetch_density(struct vgpu_prefetch *pf,
				  const struct vgpu_prefetch_cfg *cfg,
				  u64 chunk, u64 *out, unsigned int *n,
				  unsigned int max)
{
	unsigned int shift = min_t(unsigned int, cfg->region_shift,
				   VGPU_PREFETCH_REGION_MAX_SHIFT);
	unsigned int size = 1u << shift, i;
	u64 base = chunk & ~(u64)(size - 1);
	struct vgpu_prefetch_region *r, *lru = &pf->regions[0];

	for (r = pf->regions; r < pf->regions + VGPU_PREFETCH_REGIONS; r++) {
		if (r->stamp && r->base == base)
			break;
		if (r->stamp < lru->stamp)
			lru = r;
	}
	if (r == pf->regions + VGPU_PREFETCH_REGIONS) {
		r = lru;
		r->base = base;
		r->seen = 0;
	}
	r->stamp = pf->clock;
	r->seen |= BIT_ULL(chunk - base);
	if (hweight64(r->seen) * 100 <= (u64)cfg->density_pct * size)
		return;

	pf->stats.regions++;
	for (i = 0; i < size; i++)
		if (!(r->seen & BIT_ULL(i)) &&
		    !vgpu_prefetch_emit(out, n, max, base + i, chunk))
			break;
	r->seen = 0;
}

/**
 * vgpu_prefetch_fault() - feed a fault, get the chunks to bring in with it
 * @pf: the VM's detector
 * @cfg: tunables
 * @chunk: faulting chunk (VA >> chunk shift)
 * @out: suggestions, without @chunk and without duplicates
 * @max: room in @out
 *
 * Context: the caller's lock protecting @pf.
 * Return: number of suggestions in @out.
 */
unsigned int vgpu_prefetch_fault(struct vgpu_prefetch *pf,
				 const struct vgpu_prefetch_cfg *cfg,
				 u64 chunk, u64 *out, unsigned int max)
{
	unsigned int n = 0;

	pf->clock++;
	pf->stats.faults++;
	vgpu_prefetch_streams(pf, cfg, chunk, out, &n, max);
	if (cfg->region_shift)
		vgpu_prefetch_density(pf, cfg, chunk, out, &n, max);
	pf->stats.suggested += n;
	return n;
}

/**
 * vgpu_thrash_migrate_in() - a chunk is about to migrate into VRAM
 * @t: the chunk's detector
 * @cfg: tunables
 * @now: time in ns (monotonic)
 *
 * Return: true when this return makes the chunk thrash: it is now pinned
 * to system memory and should be mapped remotely instead.
 */
bool vgpu_thrash_migrate_in(struct vgpu_thrash *t,
			    const struct vgpu_prefetch_cfg *cfg, u64 now)
{
	if (t->migrations++ == 0 || !cfg->thrash_count)
		return false;
	if (!t->window_start || now - t->window_start > cfg->thrash_window_ns) {
		t->window_start = now;
		t->returns = 0;
	}
	if (++t->returns <= cfg->thrash_count)
		return false;
	t->pinned_until = now + cfg->thrash_pin_ns;
	t->window_start = 0;
	t->returns = 0;
	return true;
}

/**
 * vgpu_thrash_pinned() - is a chunk pinned to system memory?
 * @t: the chunk's detector
 * @now: time in ns (monotonic)
 *
 * Return: true while the pin lasts.
 */
bool vgpu_thrash_pinned(const struct vgpu_thrash *t, u64 now)
{
	return now < t->pinned_until;
}
