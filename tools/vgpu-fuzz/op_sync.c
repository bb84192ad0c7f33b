// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: the DRM core's syncobj ioctls the driver enables
 * (DRIVER_SYNCOBJ): create, destroy, wait, reset, signal, handle <-> fd
 * (as syncobj fds and as sync_files), the sync_file ioctls on what they
 * export, and the timeline ioctls (DRIVER_SYNCOBJ_TIMELINE), whose waits
 * are given deadlines at most 10 ms away.
 *
 * One known bug of Linux 6.12 is left out unless the kernel has the fix
 * (--huge-syncobj-counts, the default on the debug kernel, which carries
 * tools/vm/debug-kernel-patches/0004-*): drm_syncobj_array_find()
 * allocates count_handles entries with GFP_KERNEL, and a count above
 * FZ_SYNCOBJ_SAFE_COUNT makes the page allocator WARN.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "fuzz.h"
#include "ioctls.h"
#include "ops.h"

/* Counts up to here never reach an allocation above the largest order. */
#define FZ_SYNCOBJ_SAFE_COUNT	(1u << 19)

/* A count_handles: small, at a boundary, or huge (when allowed). */
static uint32_t gen_count(struct fz_rng *r)
{
	uint32_t n;

	if (fz_chance(r, 90))
		return fz_range(r, 1, 4);
	n = fz_chance(r, 50) ? fz_interesting32(r) : fz_range(r, 0, 4096);
	if (!fz_opts->huge_syncobj_counts && n > FZ_SYNCOBJ_SAFE_COUNT)
		n = fz_below(r, FZ_SYNCOBJ_SAFE_COUNT + 1);
	return n;
}

/* A handles pointer for a syncobj array ioctl: @h, filled, mostly. */
static uint64_t handles_arg(struct fz_thread *t, struct fz_ctx *c, uint32_t h[4])
{
	uint32_t i;

	fz_lock(c);
	for (i = 0; i < 4; i++)
		h[i] = fz_sync_arg(t, c);
	fz_unlock(c);
	return fz_user_ptr(&t->rng, h);
}

static void op_syncobj_create(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_syncobj_create sc = { 0 };
	struct drm_syncobj_destroy sd = { 0 };
	int ret, i;

	if (fz_chance(r, 30))
		sc.flags = DRM_SYNCOBJ_CREATE_SIGNALED;
	if (fz_chance(r, 5)) {
		sc.flags |= fz_bad_bits(r, DRM_SYNCOBJ_CREATE_SIGNALED);
		ret = fz_ioctl_check(t, c, DRM_IOCTL_SYNCOBJ_CREATE, &sc, true, EINVAL,
				     "SYNCOBJ_CREATE with an unknown flag");
		if (ret)
			return;
	} else if (fz_ioctl(t, c->dev.fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
		return;
	}
	fz_lock(c);
	for (i = 0; i < FZ_SYNCS; i++) {
		if (!c->sync[i]) {
			c->sync[i] = sc.handle;
			sc.handle = 0;
			break;
		}
	}
	fz_unlock(c);
	if (sc.handle) {
		sd.handle = sc.handle;
		fz_ioctl(t, c->dev.fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
	}
}

/* What SYNCOBJ_DESTROY, _WAIT and _RESET/_SIGNAL refuse, field by field. */
static const struct fz_bad_field syncobj_destroy_bad[] = {
	FZ_ZERO_FIELD(struct drm_syncobj_destroy, pad, "pad set"),
};

static const struct fz_bad_field syncobj_wait_bad[] = {
	FZ_BAD_FIELD(struct fz_syncobj_wait, flags,
		     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
		     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
		     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE, "an unknown flag"),
};

static const struct fz_bad_field syncobj_array_bad[] = {
	FZ_ZERO_FIELD(struct drm_syncobj_array, pad, "pad set"),
};

static void op_syncobj_destroy(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_syncobj_destroy sd = { 0 };
	int i = fz_below(r, FZ_SYNCS);
	bool bogus;

	fz_lock(c);
	sd.handle = c->sync[i];
	bogus = !sd.handle || fz_chance(r, 10);
	if (bogus)
		sd.handle = fz_bogus_sync(t, c);
	else
		c->sync[i] = 0;
	fz_unlock(c);
	if (!bogus && FZ_BAD_ARG(t, c, DRM_IOCTL_SYNCOBJ_DESTROY, &sd,
				 "SYNCOBJ_DESTROY", syncobj_destroy_bad, 5))
		sd.pad = 0;
	fz_ioctl_check(t, c, DRM_IOCTL_SYNCOBJ_DESTROY, &sd, bogus, EINVAL,
		       "SYNCOBJ_DESTROY of an unknown handle");
}

static void op_syncobj_wait(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct fz_syncobj_wait w = { 0 };
	uint32_t h[4];

	w.count_handles = gen_count(r);
	w.handles = handles_arg(t, c, h);
	w.flags = fz_below(r, 8) & (DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
	if (fz_chance(r, 30))
		w.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE;
	/* Waiting for a submission that never comes ends at the timeout. */
	w.timeout_nsec = fz_timeout_abs(r, !(w.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT) &&
				      fz_chance(r, 10));
	w.deadline_nsec = fz_timeout_abs(r, false);
	if (FZ_BAD_ARG(t, c, FZ_IOCTL_SYNCOBJ_WAIT, &w, "SYNCOBJ_WAIT",
		       syncobj_wait_bad, 5))
		return;
	fz_ioctl(t, c->dev.fd, FZ_IOCTL_SYNCOBJ_WAIT, &w);
}

/* RESET or SIGNAL: the same array struct. */
static void op_syncobj_array(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_syncobj_array a = { 0 };
	unsigned long req = fz_chance(r, 50) ? DRM_IOCTL_SYNCOBJ_RESET :
					       DRM_IOCTL_SYNCOBJ_SIGNAL;
	uint32_t h[4];

	a.count_handles = gen_count(r);
	a.handles = handles_arg(t, c, h);
	if (FZ_BAD_ARG(t, c, req, &a, "SYNCOBJ_RESET/SIGNAL", syncobj_array_bad, 5))
		return;
	fz_ioctl_check(t, c, req, &a, !a.count_handles, EINVAL,
		       "SYNCOBJ_RESET/SIGNAL of no handles");
}

static void op_syncobj_export(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_syncobj_handle sh = { 0 };
	int ret;

	fz_lock(c);
	sh.handle = fz_sync_arg(t, c);
	fz_unlock(c);
	if (fz_chance(r, 40))
		sh.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
	if (fz_chance(r, 5))
		sh.flags |= fz_bad_bits(r, DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE);
	if (fz_chance(r, 5))
		sh.pad = fz_interesting32(r) | 1;
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &sh);
	if (ret)
		return;
	fz_lock(c);
	fz_fd_add(t, c, sh.fd, sh.flags ? FZ_FD_SYNC_FILE : FZ_FD_SYNCOBJ, NULL);
	fz_unlock(c);
}

static void op_syncobj_import(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_syncobj_handle sh = { 0 };
	struct fz_fd *e;
	int ret, i;

	fz_lock(c);
	e = fz_pick_fd(t, c, fz_chance(r, 80) ? FZ_FD_NONE : FZ_FD_SYNCOBJ);
	sh.fd = e ? e->fd : (int)fz_interesting32(r);
	if (e && e->kind == FZ_FD_SYNC_FILE) {
		/* A sync_file goes into an existing syncobj. */
		sh.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
		sh.handle = fz_sync_arg(t, c);
	}
	fz_unlock(c);
	if (fz_chance(r, 5))
		sh.flags |= fz_bad_bits(r, DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE);
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &sh);
	if (ret || sh.flags)
		return;
	fz_lock(c);
	for (i = 0; i < FZ_SYNCS && sh.handle; i++) {
		if (!c->sync[i]) {
			c->sync[i] = sh.handle;
			sh.handle = 0;
		}
	}
	fz_unlock(c);
	if (sh.handle) {
		struct drm_syncobj_destroy sd = { .handle = sh.handle };

		fz_ioctl(t, c->dev.fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
	}
}

/*
 * Timeline syncobjs, with mostly small points.  struct
 * drm_syncobj_timeline_wait has its deadline at offset 16 and its count
 * at 24; struct drm_syncobj_timeline_array has its count at 16.
 */
static void op_syncobj_timeline(struct fz_thread *t, struct fz_ctx *c)
{
	static const unsigned long reqs[] = {
		DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, DRM_IOCTL_SYNCOBJ_QUERY,
		DRM_IOCTL_SYNCOBJ_TRANSFER, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
		FZ_IOCTL_SYNCOBJ_EVENTFD,
	};
	struct fz_rng *r = &t->rng;
	uint64_t buf[8], points[4];
	uint32_t h[4];
	unsigned long req = reqs[fz_below(r, 5)];
	int i;

	for (i = 0; i < 8; i++)
		buf[i] = fz_chance(r, 50) ? 0 : fz_interesting64(r);
	for (i = 0; i < 4; i++)
		points[i] = fz_chance(r, 80) ? fz_below(r, 8) : fz_interesting64(r);
	buf[0] = handles_arg(t, c, h);
	if (req == DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT ||
	    req == DRM_IOCTL_SYNCOBJ_QUERY ||
	    req == DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL)
		buf[1] = fz_user_ptr(r, points);
	/* Always a count from gen_count(): the 6.12 bug is theirs too. */
	if (req == DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT) {
		buf[2] = fz_chance(r, 50) ? 0 : fz_now_ns() + fz_below(r, 10000000);
		((uint32_t *)buf)[6] = gen_count(r);
	} else {
		((uint32_t *)buf)[4] = gen_count(r);
	}
	fz_ioctl(t, c->dev.fd, req, buf);
}

/* sync_file ioctls on an exported fence, and a poll(). */
static void op_sync_file(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct sync_fence_info fences[4];
	struct sync_file_info info;
	struct sync_merge_data merge;
	struct fz_fd *a, *b;
	struct pollfd p;
	int fd, other = -1;

	fz_lock(c);
	a = fz_pick_fd(t, c, FZ_FD_SYNC_FILE);
	b = fz_pick_fd(t, c, FZ_FD_NONE);
	fd = a ? dup(a->fd) : -1;
	if (b)
		other = dup(b->fd);
	fz_unlock(c);
	if (fd < 0)
		goto out;
	switch (fz_below(r, 3)) {
	case 0:
		memset(&info, 0, sizeof(info));
		info.num_fences = fz_chance(r, 80) ? fz_below(r, 5) : fz_interesting32(r);
		info.sync_fence_info = fz_user_ptr(r, fences);
		if (info.num_fences > 4 && info.sync_fence_info == (uintptr_t)fences)
			info.num_fences = 4;
		if (fz_chance(r, 5))
			info.flags = fz_interesting32(r) | 1;
		fz_ioctl(t, fd, SYNC_IOC_FILE_INFO, &info);
		break;
	case 1:
		memset(&merge, 0, sizeof(merge));
		strcpy(merge.name, "vgpu-fuzz");
		merge.fd2 = other >= 0 ? other : fd;
		if (fz_chance(r, 5))
			merge.flags = fz_interesting32(r) | 1;
		if (!fz_ioctl(t, fd, SYNC_IOC_MERGE, &merge))
			close(merge.fence);
		break;
	default:
		p.fd = fd;
		p.events = POLLIN;
		fz_call_begin(t, "poll");
		poll(&p, 1, 0);
		fz_call_end(t);
		break;
	}
	close(fd);
out:
	if (other >= 0)
		close(other);
}

const struct fz_op fz_sync_ops[] = {
	{ "syncobj_create", 4, 0, op_syncobj_create },
	{ "syncobj_destroy", 2, 0, op_syncobj_destroy },
	{ "syncobj_wait", 3, 0, op_syncobj_wait },
	{ "syncobj_reset_signal", 2, 0, op_syncobj_array },
	{ "syncobj_export", 2, 0, op_syncobj_export },
	{ "syncobj_import", 2, 0, op_syncobj_import },
	{ "syncobj_timeline", 1, 0, op_syncobj_timeline },
	{ "sync_file", 2, 0, op_sync_file },
	{ NULL },
};
