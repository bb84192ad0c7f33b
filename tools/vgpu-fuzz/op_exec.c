// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: EXEC.
 *
 * Random jobs: a random command stream (cmdgen.c), inline or written into
 * a BO that the VM maps readable (DRM_VGPU_EXEC_CMDS_BO), on a random
 * exec queue, with in- and out-syncobjs from the context's table, and
 * with one broken rule now and then.
 *
 * Verified jobs (private contexts): one FILL, WRITE or COPY into an
 * untainted BO, through a mapping made for it in the verified zone, where
 * no random stream ever points.  When its fence signals without error,
 * the fuzzer applies the same write to the shadow and reads the BO back:
 * the GPU's writes, and its reads of the source, must be exact whatever
 * moves the BOs went through.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ops.h"

static __thread struct vgpu_cmd stream;

/*
 * Put the stream in a BO the VM maps readable: returns the BO, with
 * @ex's BO fields set, or NULL (then the stream goes inline).
 */
static struct fz_bo *stream_to_bo(struct fz_thread *t, struct fz_ctx *c,
				  struct drm_vgpu_exec *ex)
{
	uint64_t bytes = stream.len * 4, room, off;
	struct fz_mapping *m;
	struct fz_bo *bo;

	m = fz_pick_map(t, c, VGPU_MAP_R);
	if (!m || m->range < bytes)
		return NULL;
	bo = fz_find_bo(c, m->handle);
	if (!bo || m->bo_offset + m->range > bo->size || fz_bo_map(t, c, bo))
		return NULL;
	room = m->range - bytes;
	off = (m->bo_offset + fz_below(&t->rng, room + 1)) & ~3ull;
	if (off < m->bo_offset)
		off += 4;
	if (off + bytes > m->bo_offset + m->range)
		return NULL;
	if (sigsetjmp(t->jmp, 1)) {
		t->guarded = 0;
		fz_finding(t, "signal %d writing a command stream into BO %u",
			   t->fault_sig, bo->handle);
		return NULL;
	}
	t->guarded = 1;
	memcpy(bo->map + off, stream.dw, bytes);
	t->guarded = 0;
	if (bo->shadow)
		memcpy(bo->shadow + off, stream.dw, bytes);
	bo->history |= FZ_HIST_STREAM;
	ex->flags = DRM_VGPU_EXEC_CMDS_BO;
	ex->cmds_handle = bo->handle;
	ex->cmds_offset = off;
	ex->cmds_size = bytes;
	return bo;
}

static const struct fz_bad_field exec_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_exec, pad, "EXEC with pad set"),
	FZ_ZERO_FIELD(struct drm_vgpu_exec, reserved, "EXEC with reserved set"),
};

/*
 * Break one rule of EXEC; returns the errno (0: nothing broken).  The
 * rules checked after the syncobjs are looked up are broken on an EXEC
 * without syncobjs, so that the error is the one of the broken rule.
 */
static int break_exec(struct fz_thread *t, struct fz_ctx *c,
		      struct drm_vgpu_exec *ex, int *alt, const char **what)
{
	struct fz_rng *r = &t->rng;
	bool in_bo = ex->flags & DRM_VGPU_EXEC_CMDS_BO;
	unsigned int rule = fz_below(r, 15);

	*alt = 0;
	if (rule >= 7) {
		ex->num_in_syncs = rule == 9 ? 1 : 0;
		ex->out_sync = 0;
		ex->out_point = 0;
		/* An out fd is reserved first: these failures give it back. */
		ex->flags &= ~DRM_VGPU_EXEC_IN_FENCE_FD;
		ex->in_fence_fd = 0;
	}
	switch (rule) {
	case 0:
		if (!fz_below(r, 3)) {
			/* The fuzzer creates no VM: every other id is unknown. */
			ex->vm_id = fz_interesting32(r) | 1;
			*what = "EXEC on an unknown vm_id";
			return ENOENT;
		}
		*what = fz_break_field(r, ex, exec_bad, FZ_ARRAY_SIZE(exec_bad));
		return EINVAL;
	case 1:
		ex->flags |= fz_bad_bits(r, DRM_VGPU_EXEC_FLAGS_ALL);
		*what = "EXEC with an unknown flag";
		return EINVAL;
	case 2:
		if (fz_chance(r, 20)) {
			/* The fuzzer creates no exec queue: every id is unknown. */
			ex->queue = DRM_VGPU_EXEC_QUEUE_ID_BASE +
				    fz_below(r, DRM_VGPU_MAX_EXEC_QUEUES);
			*what = "EXEC on a created queue id never created";
			*alt = ECANCELED;	/* looked up after the ban check */
			return ENOENT;
		}
		/* Between the fixed indices and the created ids, or past both. */
		ex->queue = fz_dev.dev.exec_queues +
			    fz_below(r, DRM_VGPU_EXEC_QUEUE_ID_BASE -
					fz_dev.dev.exec_queues);
		if (fz_chance(r, 30))
			ex->queue = ~0u - fz_below(r, 8);
		*what = "EXEC on a queue that does not exist";
		return EINVAL;
	case 3:
		ex->cmds_size = fz_chance(r, 30) ? 0 : ex->cmds_size | fz_range(r, 1, 3);
		*what = "EXEC of an empty stream or one not in dwords";
		return EINVAL;
	case 4:
		ex->cmds_size = (in_bo ? DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE :
				 DRM_VGPU_EXEC_MAX_CMDS_SIZE) +
				4 * fz_range(r, 1, 1 << 20);
		*what = "EXEC of a stream above the size limit";
		return EINVAL;
	case 5:
		ex->num_in_syncs = fz_range(r, DRM_VGPU_EXEC_MAX_SYNCS + 1, ~0u);
		*what = "EXEC with too many in-syncobjs";
		return EINVAL;
	case 6:
		if (in_bo) {
			if (fz_chance(r, 50))
				ex->cmds = fz_interesting64(r) | 1;
			else
				ex->cmds_offset |= fz_range(r, 1, 3);
			*what = "EXEC from a BO with a user pointer or unaligned offset";
		} else {
			if (fz_chance(r, 50))
				ex->cmds_handle = fz_interesting32(r) | 1;
			else
				ex->cmds_offset = fz_interesting64(r) | 1;
			*what = "EXEC inline with a BO handle or offset";
		}
		return EINVAL;
	case 7:
		if (in_bo)
			break;
		ex->cmds = fz_user_ptr(r, NULL);
		*what = "EXEC of an unreadable inline stream";
		*alt = ECANCELED;
		return EFAULT;
	case 8:
		ex->out_sync = fz_bogus_sync(t, c);
		if (!ex->out_sync)
			break;
		*what = "EXEC signalling an unknown syncobj";
		*alt = ECANCELED;
		return ENOENT;
	case 9:
		if (!ex->num_in_syncs)
			break;
		ex->in_syncs = fz_user_ptr(r, NULL);
		*what = "EXEC with an unreadable in-syncobj array";
		*alt = ECANCELED;
		return EFAULT;
	case 10:
		if (!in_bo)
			break;
		ex->cmds_handle = fz_bogus_handle(t, c);
		*what = "EXEC from an unknown BO";
		*alt = ECANCELED;
		return ENOENT;
	case 12:
		if (fz_chance(r, 50)) {
			ex->flags &= ~DRM_VGPU_EXEC_IN_FENCE_FD;
			ex->in_fence_fd = fz_interesting32(r) | 1;
		} else {
			ex->flags &= ~DRM_VGPU_EXEC_OUT_FENCE_FD;
			ex->out_fence_fd = fz_interesting32(r) | 1;
		}
		*what = "EXEC with a fence fd but not its flag";
		return EINVAL;
	case 13:
		ex->out_point = fz_interesting64(r) | 1;
		*what = "EXEC with a timeline point but no syncobj to signal";
		return EINVAL;
	case 14:
		ex->flags |= DRM_VGPU_EXEC_IN_FENCE_FD;
		ex->in_fence_fd = fz_chance(r, 50) ? -1 : c->dev.fd;
		*what = "EXEC waiting for an fd that is not a sync_file";
		*alt = ECANCELED;
		return EINVAL;
	default:
		if (!in_bo)
			break;
		ex->cmds_offset = (fz_find_bo(c, ex->cmds_handle) ?
				   fz_find_bo(c, ex->cmds_handle)->size : 0) +
				  4 * fz_below(r, 1 << 20);
		*what = "EXEC from past the end of its BO";
		*alt = ECANCELED;
		return EINVAL;
	}
	return 0;
}

static void op_exec(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_exec ex = { 0 };
	uint32_t in[4];
	uint64_t points[4];
	const char *what = NULL;
	struct fz_fd *sf;
	int err = 0, alt = 0, in_fd = -1, ret, i;
	/* One rule broken at most: the rest of the call must be valid. */
	bool broken = fz_chance(r, 20);

	fz_lock(c);
	fz_gen_stream(t, c, &stream, false);
	if (stream.error || !stream.len) {
		fz_unlock(c);
		return;
	}
	if (!((fz_dev.dev.caps & VGPU_CAPS_CALL) && fz_chance(r, 25) &&
	      stream_to_bo(t, c, &ex))) {
		ex.cmds = (uintptr_t)stream.dw;
		ex.cmds_size = stream.len * 4;
	}
	ex.queue = fz_below(r, fz_dev.dev.exec_queues);
	ex.num_in_syncs = fz_chance(r, 70) ? 0 : fz_range(r, 1, 4);
	for (i = 0; i < (int)ex.num_in_syncs; i++)
		in[i] = fz_sync_arg(t, c);
	ex.in_syncs = (uintptr_t)in;
	/* A private context knows where its jobs' last fences are. */
	if (c->private)
		ex.out_sync = c->qsync[ex.queue];
	else
		ex.out_sync = fz_chance(r, 80) ? fz_sync_arg(t, c) : 0;
	/*
	 * Timeline points (mostly small, often not submitted yet) and
	 * sync_files.  A private context's queue syncobj stays binary.
	 */
	if (ex.num_in_syncs && fz_chance(r, 25)) {
		for (i = 0; i < (int)ex.num_in_syncs; i++)
			points[i] = fz_chance(r, 90) ? fz_below(r, 8) :
				    fz_interesting64(r);
		ex.in_points = broken || fz_chance(r, 95) ? (uintptr_t)points :
			       fz_user_ptr(r, NULL);
	}
	if (ex.out_sync && !c->private && fz_chance(r, 25))
		ex.out_point = fz_chance(r, 90) ? fz_range(r, 1, 16) :
			       fz_interesting64(r) | 1;
	sf = fz_chance(r, 15) ? fz_pick_fd(t, c, FZ_FD_SYNC_FILE) : NULL;
	if (sf) {
		in_fd = dup(sf->fd);
		ex.flags |= DRM_VGPU_EXEC_IN_FENCE_FD;
		ex.in_fence_fd = in_fd;
	}
	if (fz_chance(r, 15))
		ex.flags |= DRM_VGPU_EXEC_OUT_FENCE_FD;
	if (broken)
		err = break_exec(t, c, &ex, &alt, &what);
	fz_unlock(c);

	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_EXEC, &ex);
	if (err && !(alt && ret == -alt))
		fz_expect(t, c, ret, err, what);
	if (in_fd >= 0)
		close(in_fd);
	if (!ret && (ex.flags & DRM_VGPU_EXEC_OUT_FENCE_FD)) {
		fz_lock(c);
		fz_fd_add(t, c, ex.out_fence_fd, FZ_FD_SYNC_FILE, NULL);
		fz_unlock(c);
	}
	if (ret == -ECANCELED)
		c->banned = true;
	if (!ret && c->private)
		c->qsync_used |= 1u << ex.queue;
	if (!ret && ex.out_sync && fz_chance(r, 20))
		vgpu_syncobj_wait(&c->dev, ex.out_sync, fz_below(r, 50000000));
}

/* An untainted BO with a shadow and a CPU mapping, other than @not. */
static struct fz_bo *pick_clean(struct fz_thread *t, struct fz_ctx *c,
				struct fz_bo *not)
{
	unsigned int start = fz_below(&t->rng, FZ_BOS), i;

	for (i = 0; i < FZ_BOS; i++) {
		struct fz_bo *bo = &c->bo[(start + i) % FZ_BOS];

		if (bo->handle && bo->shadow && !bo->tainted && !bo->foreign &&
		    bo != not && !fz_bo_map(t, c, bo))
			return bo;
	}
	return NULL;
}

/* The pages of [off, off + len) of @bo, mapped at a fresh verified VA. */
static void vmap_op(struct fz_ctx *c, struct drm_vgpu_vm_bind_op *op,
		    struct fz_bo *bo, uint64_t off, uint64_t len, uint32_t perms,
		    uint64_t *va)
{
	uint64_t first = off & ~4095ull;
	uint64_t end = (off + len + 4095) & ~4095ull;

	if (c->vva_next + (end - first) + 4096 > fz_vzone_start() + FZ_ZONE_SIZE)
		c->vva_next = fz_vzone_start();
	memset(op, 0, sizeof(*op));
	op->op = DRM_VGPU_VM_BIND_OP_MAP;
	op->handle = bo->handle;
	op->bo_offset = first;
	op->va = c->vva_next;
	op->range = end - first;
	op->flags = perms;
	*va = c->vva_next + (off - first);
	c->vva_next += end - first + 4096;	/* a hole between mappings */
}

static int bind(struct fz_thread *t, struct fz_ctx *c,
		struct drm_vgpu_vm_bind_op *ops, uint32_t n)
{
	struct drm_vgpu_vm_bind vb = {
		.num_ops = n, .ops = (uintptr_t)ops, .op_size = sizeof(*ops),
	};
	int ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb);

	if (ret == -ECANCELED)
		c->banned = true;
	return ret;
}

static void op_gpu_verified(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_vm_bind_op ops[2], unmap[2];
	struct fz_bo *dst, *src = NULL;
	uint64_t doff, soff = 0, len, dva, sva = 0;
	uint32_t value = fz_next(r), data[16], n = 1, i;
	int kind = fz_below(r, 3), ret, status;
	struct drm_vgpu_exec ex = { 0 };

	dst = pick_clean(t, c, NULL);
	if (!dst)
		return;
	len = fz_size(r, dst->size < (256 << 10) ? dst->size : 256 << 10) & ~3ull;
	if (!len)
		len = 4;
	if (kind == 1)
		len = 4 * fz_range(r, 1, 16);
	if (len > dst->size)
		return;
	doff = fz_below(r, dst->size - len + 1) & ~3ull;
	if (kind == 2) {
		src = pick_clean(t, c, dst);
		if (!src || src->size < len)
			return;
		soff = fz_below(r, src->size - len + 1);
	}

	vmap_op(c, &ops[0], dst, doff, len, VGPU_MAP_RW, &dva);
	if (src) {
		vmap_op(c, &ops[1], src, soff, len, VGPU_MAP_R, &sva);
		n = 2;
	}
	for (i = 0; i < n; i++) {
		memset(&unmap[i], 0, sizeof(unmap[i]));
		unmap[i].op = DRM_VGPU_VM_BIND_OP_UNMAP;
		unmap[i].va = ops[i].va;
		unmap[i].range = ops[i].range;
	}
	ret = bind(t, c, ops, n);
	if (ret)
		goto out_unmap;

	vgpu_cmd_reset(&stream);
	switch (kind) {
	case 0:
		vgpu_cmd_fill(&stream, dva, len, value);
		break;
	case 1:
		for (i = 0; i < len / 4; i++)
			data[i] = fz_next(r);
		vgpu_cmd_write(&stream, dva, data, len / 4);
		break;
	default:
		vgpu_cmd_copy(&stream, sva, dva, len);
		break;
	}
	if (stream.error)
		goto out_unmap;
	ex.queue = fz_below(r, fz_dev.dev.exec_queues);
	ex.cmds = (uintptr_t)stream.dw;
	ex.cmds_size = stream.len * 4;
	ex.out_sync = c->qsync[ex.queue];
	fz_trace(t, "verified %s of %llu bytes to BO %u at 0x%llx",
		 kind == 0 ? "FILL" : kind == 1 ? "WRITE" : "COPY",
		 (unsigned long long)len, dst->handle, (unsigned long long)doff);
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_EXEC, &ex);
	if (ret) {
		if (ret == -ECANCELED)
			c->banned = true;
		goto out_unmap;
	}
	c->qsync_used |= 1u << ex.queue;
	fz_call_begin(t, "verified job");
	ret = vgpu_syncobj_wait(&c->dev, ex.out_sync, 60ll * 1000000000);
	fz_call_end(t);
	status = ret ? ret : vgpu_syncobj_status(&c->dev, ex.out_sync);
	fz_trace(t, "verified job: wait %d, status %d", ret, status);
	if (status != 1) {
		/* Failed or still running: what it wrote is not known. */
		fz_taint(dst);
		if (!status)
			fz_vm_changed(c);
		goto out_unmap;
	}
	switch (kind) {
	case 0:
		for (i = 0; i < len / 4; i++)
			memcpy(dst->shadow + doff + 4 * i, &value, 4);
		break;
	case 1:
		memcpy(dst->shadow + doff, data, len);
		break;
	default:
		memcpy(dst->shadow + doff, src->shadow + soff, len);
		break;
	}
	t->slot->gpu_verified++;
	dst->history |= FZ_HIST_GPU_WRITTEN;
	{
		uint64_t lo = doff > 64 ? doff - 64 : 0;
		uint64_t hi = doff + len + 64 < dst->size ? doff + len + 64 : dst->size;

		fz_verify(t, dst->map, dst->shadow, dst->size, lo, hi - lo,
			  kind == 0 ? "BO after a GPU FILL" :
			  kind == 1 ? "BO after a GPU WRITE" : "BO after a GPU COPY");
	}
out_unmap:
	bind(t, c, unmap, n);
}

const struct fz_op fz_exec_ops[] = {
	{ "exec", 14, 0, op_exec },
	{ "gpu_verified", 5, FZ_OP_PRIVATE, op_gpu_verified },
	{ NULL },
};
