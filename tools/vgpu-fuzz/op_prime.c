// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: PRIME.  BOs go out as dma-bufs and come back in, into the
 * same file (where the handle must be the one exported) or another one of
 * the process (a BO then has a second owner that may write it: both
 * sides stop trusting their shadow).  A dma-buf is also mapped and read
 * through its own fd, which must show what the GEM mapping shows, and
 * synced with DMA_BUF_IOCTL_SYNC.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "fuzz.h"
#include "ops.h"

static void op_prime_export(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_prime_handle ph = { 0 };
	struct fz_bo *bo;
	bool bogus;
	int ret;

	ph.handle = fz_handle_arg(t, c, &bogus);
	ph.flags = DRM_CLOEXEC | (fz_chance(r, 70) ? DRM_RDWR : 0);
	if (fz_chance(r, 5)) {
		ph.flags |= fz_bad_bits(r, DRM_CLOEXEC | DRM_RDWR);
		ret = fz_ioctl_check(t, c, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, true, EINVAL,
				     "PRIME_HANDLE_TO_FD with an unknown flag");
		if (ret >= 0)
			close(ph.fd);
		return;
	}
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	if (bogus)
		fz_expect(t, c, ret, ENOENT, "PRIME_HANDLE_TO_FD of an unknown handle");
	if (ret)
		return;
	fz_lock(c);
	bo = fz_find_bo(c, ph.handle);
	if (bo)
		bo->history |= FZ_HIST_EXPORTED;
	fz_fd_add(t, c, ph.fd, FZ_FD_DMABUF, bo);
	fz_unlock(c);
}

/*
 * Import a dma-buf from this context or the other one of the thread
 * (the private one and the process's shared one).
 */
static void op_prime_import(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct fz_ctx *from = fz_chance(r, 50) || !t->shared ? t->priv :
			      t->shared;
	struct drm_prime_handle ph = { 0 };
	struct fz_bo *bo, *orig = NULL;
	uint64_t serial = 0, size;
	uint32_t handle = 0;
	struct fz_fd *e;
	int fd, ret;

	if (from == c && fz_chance(r, 50))
		from = c == t->priv ? t->shared : t->priv;
	if (!from)
		return;
	if (from != c)
		fz_gate_enter(from);
	fz_lock(from);
	e = fz_pick_fd(t, from, FZ_FD_DMABUF);
	fd = e ? dup(e->fd) : -1;
	if (e) {
		serial = e->serial;
		handle = e->handle;
		/* The exporter's BO gets a second owner. */
		if (from != c && (orig = fz_find_bo(from, handle)) &&
		    orig->serial == serial)
			orig->foreign = orig->tainted = true;
	}
	fz_unlock(from);
	if (from != c)
		fz_gate_exit(from);
	if (fd < 0)
		return;
	ph.fd = fd;
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph);
	if (ret) {
		close(fd);
		return;
	}
	fz_lock(c);
	bo = fz_find_bo(c, ph.handle);
	if (from == c) {
		/* Back into its own file: the same handle, if still open. */
		orig = fz_find_bo(c, handle);
		if (orig && orig->serial == serial && ph.handle != handle &&
		    c->private)
			fz_finding(t, "PRIME import into the exporting file gave handle %u for BO %u",
				   ph.handle, handle);
	} else if (!bo) {
		size = lseek(fd, 0, SEEK_END);
		bo = size ? fz_bo_add(c, ph.handle, size, 0, 0) : NULL;
		if (bo)
			bo->foreign = bo->tainted = true;
	}
	fz_unlock(c);
	close(fd);
	/* Not kept: give the handle back. */
	if (!bo) {
		struct drm_gem_close gc = { .handle = ph.handle };

		fz_ioctl(t, c->dev.fd, DRM_IOCTL_GEM_CLOSE, &gc);
	}
}

/* Map a dma-buf through its fd: it must read as the BO's shadow. */
static void op_dmabuf_mmap(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct dma_buf_sync sync = { 0 };
	struct fz_bo *bo;
	struct fz_fd *e;
	uint64_t size;
	uint8_t *p;
	int fd;

	e = fz_pick_fd(t, c, FZ_FD_DMABUF);
	if (!e)
		return;
	fd = e->fd;
	bo = fz_find_bo(c, e->handle);
	if (!bo || bo->serial != e->serial || bo->size > FZ_TOUCH_MAX_BO)
		return;
	size = bo->size;
	p = fz_mmap(t, size, PROT_READ, MAP_SHARED, fd, 0);
	if (!p)
		return;
	sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ;
	if (fz_chance(r, 5))
		sync.flags |= fz_bad_bits(r, DMA_BUF_SYNC_VALID_FLAGS_MASK);
	fz_ioctl(t, fd, DMA_BUF_IOCTL_SYNC, &sync);
	if (bo->shadow && !bo->tainted)
		fz_verify(t, p, bo->shadow, size, 0, size,
			  "BO read back through its dma-buf mapping");
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	fz_ioctl(t, fd, DMA_BUF_IOCTL_SYNC, &sync);
	fz_munmap(t, p, size);
}

const struct fz_op fz_prime_ops[] = {
	{ "prime_export", 3, 0, op_prime_export },
	{ "prime_import", 3, 0, op_prime_import },
	{ "dmabuf_mmap", 2, FZ_OP_PRIVATE, op_dmabuf_mmap },
	{ NULL },
};
