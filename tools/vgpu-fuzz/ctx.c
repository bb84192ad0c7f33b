// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: contexts (open files of the render node) and the tables of
 * what lives in them: BOs, syncobjs, GPU mappings, fds.
 *
 * The tables are what the generators pick valid arguments from; they may
 * be wrong about the kernel (a shared context's threads race, a VM_BIND
 * that fails halfway leaves some of its operations done), which only
 * makes a call fail.  The one thing they must never be wrong about, in a
 * private context, is which BOs the GPU may have written (shadow.c).
 *
 * Each VM is cut in two zones: the random zone, where random mappings
 * live and random command streams point, and the verified zone, used
 * only for GPU writes whose effect the fuzzer computes and checks
 * (op_exec.c).  No random address ever falls in the verified zone, so a
 * random job still running cannot write through a verified mapping.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ioctls.h"

static uint64_t next_serial;
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;

void fz_lock(struct fz_ctx *c)
{
	if (!c->private)
		pthread_mutex_lock(&c->lock);
}

void fz_unlock(struct fz_ctx *c)
{
	if (!c->private)
		pthread_mutex_unlock(&c->lock);
}

/* Shared contexts: no reopen while an operation uses the context. */
void fz_gate_enter(struct fz_ctx *c)
{
	if (!c->private)
		pthread_rwlock_rdlock(&c->gate);
}

void fz_gate_exit(struct fz_ctx *c)
{
	if (!c->private)
		pthread_rwlock_unlock(&c->gate);
}

uint64_t fz_zone_start(void)
{
	return fz_dev.dev.va_start;
}

uint64_t fz_vzone_start(void)
{
	return fz_dev.dev.va_start + FZ_VZONE_OFFSET;
}

/* Once per context, before the first fz_ctx_open(). */
void fz_ctx_init(struct fz_ctx *c, bool private)
{
	pthread_rwlockattr_t ra;

	memset(c, 0, sizeof(*c));
	c->private = private;
	c->dev.fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&c->gate, &ra);
}

/* Empty tables (the lock and the kind of context stay). */
static void ctx_clear(struct fz_ctx *c)
{
	int i;

	memset(c->bo, 0, sizeof(c->bo));
	memset(c->sync, 0, sizeof(c->sync));
	memset(c->map, 0, sizeof(c->map));
	memset(c->orphan, 0, sizeof(c->orphan));
	memset(c->fds, 0, sizeof(c->fds));
	for (i = 0; i < FZ_FDS; i++)
		c->fds[i].fd = -1;
	c->bo_bytes = 0;
	c->shadow_bytes = 0;
	c->banned = false;
	c->want_reopen = false;
	memset(c->qsync, 0, sizeof(c->qsync));
	c->qsync_used = 0;
	c->changed_busy = false;
	c->vva_next = fz_vzone_start();
	memset(c->strict, 0, sizeof(c->strict));
}

/* Open the render node into @c: a new file, a new GPU VM. */
int fz_ctx_open(struct fz_thread *t, struct fz_ctx *c)
{
	bool private = c->private;
	int fd, ret, i;

	ctx_clear(c);

	fz_call_begin(t, "open");
	fd = open(fz_dev.node, O_RDWR | O_CLOEXEC);
	fz_call_end(t);
	fz_count_open(t, fd >= 0);
	if (fd < 0)
		return -errno;
	ret = vgpu_open_fd(&c->dev, fd);
	for (i = 0; !ret && private && i < VGPU_NUM_QUEUES; i++)
		ret = vgpu_syncobj_create(&c->dev, &c->qsync[i]);
	if (ret) {
		close(fd);
		c->dev.fd = -1;
	}
	fz_trace(t, "open %s context: fd %d, %d", private ? "private" : "shared",
		 fd, ret);
	return ret;
}

/* Drop @bo from the table; with @keep_mapping its mapping lives on. */
void fz_bo_forget(struct fz_thread *t, struct fz_ctx *c, struct fz_bo *bo,
		  bool keep_mapping)
{
	int i;

	if (keep_mapping && bo->map) {
		for (i = 0; i < FZ_ORPHANS; i++) {
			struct fz_orphan *o = &c->orphan[i];

			if (o->map)
				continue;
			o->map = bo->map;
			o->size = bo->size;
			o->placements = bo->placements;
			o->flags = bo->flags;
			o->history = bo->history;
			o->shadow = NULL;
			/* An exported BO may be imported, and written, later. */
			if (bo->shadow && !bo->tainted &&
			    !(bo->history & FZ_HIST_EXPORTED))
				o->shadow = bo->shadow;
			else
				fz_shadow_release(c, &bo->shadow, bo->size);
			bo->map = NULL;
			bo->shadow = NULL;
			break;
		}
	}
	if (bo->map)
		fz_munmap(t, bo->map, bo->size);
	fz_shadow_release(c, &bo->shadow, bo->size);
	c->bo_bytes -= bo->size;
	memset(bo, 0, sizeof(*bo));
}

/* Check and unmap an orphan (its BO is gone with the mapping). */
void fz_orphan_drop(struct fz_thread *t, struct fz_ctx *c, struct fz_orphan *o)
{
	char what[96];

	snprintf(what, sizeof(what),
		 "closed BO (placements 0x%x, flags 0x%x, history 0x%x) kept by its mapping",
		 o->placements, o->flags, o->history);
	if (o->shadow)
		fz_verify(t, o->map, o->shadow, o->size, 0, o->size, what);
	fz_munmap(t, o->map, o->size);
	fz_shadow_release(c, &o->shadow, o->size);
	memset(o, 0, sizeof(*o));
}

void fz_ctx_close(struct fz_thread *t, struct fz_ctx *c)
{
	int i;

	if (c->dev.fd < 0)
		return;
	/* Last look at everything the context wrote. */
	for (i = 0; i < FZ_BOS; i++) {
		struct fz_bo *bo = &c->bo[i];

		if (!bo->handle)
			continue;
		if (bo->map && bo->shadow && !bo->tainted)
			fz_verify(t, bo->map, bo->shadow, bo->size, 0, bo->size,
				  "BO before its file is closed");
		fz_bo_forget(t, c, bo, false);
	}
	for (i = 0; i < FZ_ORPHANS; i++)
		if (c->orphan[i].map)
			fz_orphan_drop(t, c, &c->orphan[i]);
	for (i = 0; i < FZ_FDS; i++)
		if (c->fds[i].fd >= 0)
			close(c->fds[i].fd);
	fz_call_begin(t, "close");
	vgpu_close(&c->dev);
	fz_call_end(t);
	fz_trace(t, "closed %s context", c->private ? "private" : "shared");
	ctx_clear(c);
}

struct fz_bo *fz_pick_bo(struct fz_thread *t, struct fz_ctx *c)
{
	unsigned int start = fz_below(&t->rng, FZ_BOS), i;

	for (i = 0; i < FZ_BOS; i++) {
		struct fz_bo *bo = &c->bo[(start + i) % FZ_BOS];

		if (bo->handle)
			return bo;
	}
	return NULL;
}

struct fz_bo *fz_find_bo(struct fz_ctx *c, uint32_t handle)
{
	int i;

	for (i = 0; handle && i < FZ_BOS; i++)
		if (c->bo[i].handle == handle)
			return &c->bo[i];
	return NULL;
}

/* Record a new BO; NULL when the table is full (the caller closes it). */
struct fz_bo *fz_bo_add(struct fz_ctx *c, uint32_t handle, uint64_t size,
			uint32_t placements, uint32_t flags)
{
	int i;

	for (i = 0; i < FZ_BOS; i++) {
		struct fz_bo *bo = &c->bo[i];

		if (bo->handle)
			continue;
		memset(bo, 0, sizeof(*bo));
		bo->handle = handle;
		bo->size = size;
		bo->placements = placements;
		bo->flags = flags;
		pthread_mutex_lock(&serial_lock);
		bo->serial = ++next_serial;
		pthread_mutex_unlock(&serial_lock);
		c->bo_bytes += size;
		return bo;
	}
	return NULL;
}

static bool handle_live(struct fz_ctx *c, uint32_t h)
{
	return h && fz_find_bo(c, h);
}

/* A handle that names no BO of the context (as far as it knows). */
uint32_t fz_bogus_handle(struct fz_thread *t, struct fz_ctx *c)
{
	uint32_t h;

	do {
		switch (fz_below(&t->rng, 4)) {
		case 0:
			h = 0;
			break;
		case 1:
			h = fz_range(&t->rng, 1, 64);
			break;
		case 2:
			h = fz_interesting32(&t->rng);
			break;
		default:
			h = fz_next(&t->rng);
			break;
		}
	} while (handle_live(c, h));
	return h;
}

/*
 * A BO handle argument: a live BO's most of the time, else one that names
 * none; *@bogus says which.  Takes the context's lock.
 */
uint32_t fz_handle_arg(struct fz_thread *t, struct fz_ctx *c, bool *bogus)
{
	struct fz_bo *bo;
	uint32_t h;

	fz_lock(c);
	bo = fz_chance(&t->rng, 92) ? fz_pick_bo(t, c) : NULL;
	h = bo ? bo->handle : fz_bogus_handle(t, c);
	fz_unlock(c);
	*bogus = !bo;
	return h;
}

static bool sync_live(struct fz_ctx *c, uint32_t h)
{
	int i;

	if (!h)
		return false;
	for (i = 0; i < VGPU_NUM_QUEUES; i++)
		if (c->qsync[i] == h)
			return true;
	for (i = 0; i < FZ_SYNCS; i++)
		if (c->sync[i] == h)
			return true;
	return false;
}

uint32_t fz_bogus_sync(struct fz_thread *t, struct fz_ctx *c)
{
	uint32_t h;

	do
		h = fz_chance(&t->rng, 50) ? fz_range(&t->rng, 0, 64) :
					     fz_interesting32(&t->rng);
	while (sync_live(c, h));
	return h;
}

uint32_t fz_sync_arg(struct fz_thread *t, struct fz_ctx *c)
{
	unsigned int start = fz_below(&t->rng, FZ_SYNCS), i;

	if (fz_chance(&t->rng, 92))
		for (i = 0; i < FZ_SYNCS; i++)
			if (c->sync[(start + i) % FZ_SYNCS])
				return c->sync[(start + i) % FZ_SYNCS];
	return fz_bogus_sync(t, c);
}

/* Keep @fd; when the table is full an older one is closed. */
int fz_fd_add(struct fz_thread *t, struct fz_ctx *c, int fd,
	      enum fz_fd_kind kind, struct fz_bo *bo)
{
	struct fz_fd *e = NULL;
	int i;

	for (i = 0; i < FZ_FDS && !e; i++)
		if (c->fds[i].fd < 0)
			e = &c->fds[i];
	if (!e) {
		e = &c->fds[fz_below(&t->rng, FZ_FDS)];
		close(e->fd);
	}
	e->fd = fd;
	e->kind = kind;
	e->origin = c;
	e->serial = bo ? bo->serial : 0;
	e->handle = bo ? bo->handle : 0;
	return 0;
}

/* A random fd of @kind (FZ_FD_NONE: any kind), or NULL. */
struct fz_fd *fz_pick_fd(struct fz_thread *t, struct fz_ctx *c,
			 enum fz_fd_kind kind)
{
	unsigned int start = fz_below(&t->rng, FZ_FDS), i;

	for (i = 0; i < FZ_FDS; i++) {
		struct fz_fd *e = &c->fds[(start + i) % FZ_FDS];

		if (e->fd >= 0 && (kind == FZ_FD_NONE || e->kind == kind))
			return e;
	}
	return NULL;
}

void fz_map_add(struct fz_ctx *c, uint32_t handle, uint64_t bo_offset,
		uint64_t va, uint64_t range, uint32_t perms)
{
	struct fz_mapping *m = NULL;
	int i;

	for (i = 0; i < FZ_MAPS && !m; i++)
		if (!c->map[i].used)
			m = &c->map[i];
	if (!m)
		m = &c->map[(va >> 12) % FZ_MAPS];
	m->used = true;
	m->handle = handle;
	m->bo_offset = bo_offset;
	m->va = va;
	m->range = range;
	m->perms = perms;
}

/* A VM_BIND: while jobs may run, stale TLB hits are ours. */
void fz_vm_changed(struct fz_ctx *c)
{
	if (c->qsync_used)
		c->changed_busy = true;
}

/*
 * Have all the jobs of a private context ended?  Polls the last fence of
 * every exec queue it used; when they have, forgets them.
 */
bool fz_drained(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_syncobj_wait w = { 0 };
	uint32_t h[VGPU_NUM_QUEUES];
	unsigned int i, n = 0;

	if (!c->qsync_used)
		return true;
	for (i = 0; i < VGPU_NUM_QUEUES; i++)
		if (c->qsync_used & (1u << i))
			h[n++] = c->qsync[i];
	w.handles = (uintptr_t)h;
	w.count_handles = n;
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	if (fz_ioctl(t, c->dev.fd, FZ_IOCTL_SYNCOBJ_WAIT, &w))
		return false;
	c->qsync_used = 0;
	return true;
}

/* Forget every mapping that overlaps [va, va + range). */
void fz_map_forget(struct fz_ctx *c, uint64_t va, uint64_t range)
{
	int i;

	for (i = 0; i < FZ_MAPS; i++) {
		struct fz_mapping *m = &c->map[i];

		if (m->used && m->va < va + range && va < m->va + m->range)
			m->used = false;
	}
}

/* A mapping with at least @perms, or NULL. */
struct fz_mapping *fz_pick_map(struct fz_thread *t, struct fz_ctx *c,
			       uint32_t perms)
{
	unsigned int start = fz_below(&t->rng, FZ_MAPS), i;

	for (i = 0; i < FZ_MAPS; i++) {
		struct fz_mapping *m = &c->map[(start + i) % FZ_MAPS];

		if (m->used && (m->perms & perms) == perms)
			return m;
	}
	return NULL;
}

static bool in_vzone(uint64_t a, uint64_t len)
{
	uint64_t lo = fz_vzone_start(), hi = lo + FZ_ZONE_SIZE;

	return a < hi && (a + len < a || a + len > lo);
}

/*
 * A GPU VA for a command's operand of @len bytes aligned to @align: in a
 * mapping the context knows of (a read-write one for a "safe" stream),
 * else, seldom, anywhere but the verified zone: unmapped VA, VA 0, the
 * kernel's top of the user range, past 48 bits.
 */
uint64_t fz_gpu_addr(struct fz_thread *t, struct fz_ctx *c, uint64_t len,
		     uint64_t align)
{
	struct fz_rng *r = &t->rng;
	uint32_t perms = t->safe ? VGPU_MAP_RW : 0;
	struct fz_mapping *m = NULL;
	uint64_t a;
	int i;

	/* A mapping that holds the operand, if one of a few picks does. */
	for (i = 0; i < 4; i++) {
		struct fz_mapping *p = fz_pick_map(t, c, perms);

		if (p && (!m || p->range >= len))
			m = p;
		if (m && m->range >= len)
			break;
	}
	if (m && (t->safe || fz_chance(r, 97))) {
		uint64_t room = m->range > len ? m->range - len : 0;

		a = m->va + fz_below(r, room + 1);
		return align > 1 ? a & ~(align - 1) : a;
	}
	if (t->safe)
		return fz_zone_start();
	do {
		switch (fz_below(r, 8)) {
		case 0:
			a = fz_below(r, 1 << 21);
			break;
		case 1:
			a = fz_dev.dev.va_end + fz_below(r, 1ull << 30);
			break;
		case 2:
			a = fz_interesting64(r);
			break;
		case 3:
			a = fz_next(r) & ((1ull << 48) - 1);
			break;
		default:
			a = fz_zone_start() + fz_below(r, FZ_ZONE_SIZE);
			break;
		}
		if (align > 1 && fz_chance(r, 95))
			a &= ~(align - 1);
	} while (in_vzone(a, len));
	return a;
}
