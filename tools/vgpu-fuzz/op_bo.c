// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: operations on buffer objects: BO_CREATE, GEM_CLOSE,
 * BO_MMAP_OFFSET, WAIT_BO, and CPU access through mmap() (writes that
 * update the shadow, read-back checks, partial and odd mappings,
 * MADV_DONTNEED, mappings that outlive their handle).
 *
 * Sizes stay within what the guest can back: BOs the kernel is expected
 * to accept are at most 32 MiB and a context keeps at most --bo-budget
 * bytes of them (the rest is closed at once, untouched); huge sizes are
 * only passed where the uapi says they fail (-E2BIG).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "fuzz.h"
#include "ops.h"

/* A valid BO_CREATE: placement kinds, flags and alignment at random. */
static void gen_create(struct fz_rng *r, struct drm_vgpu_bo_create *bc)
{
	static const uint32_t places[] = {
		DRM_VGPU_PLACE_VRAM, DRM_VGPU_PLACE_SYSTEM, DRM_VGPU_PLACE_ALL,
	};

	memset(bc, 0, sizeof(*bc));
	bc->size = fz_chance(r, 90) ? fz_size(r, 4 << 20) : fz_size(r, 32 << 20);
	if (fz_chance(r, 15)) {
		bc->placements = fz_chance(r, 50) ? DRM_VGPU_PLACE_SYSTEM :
						    DRM_VGPU_PLACE_ALL;
		bc->flags = DRM_VGPU_BO_PAGEABLE;
		return;
	}
	bc->placements = places[fz_below(r, 3)];
	if (fz_chance(r, 40)) {
		uint32_t p = bc->placements;

		bc->preferred = p == DRM_VGPU_PLACE_ALL ?
				(fz_chance(r, 50) ? DRM_VGPU_PLACE_VRAM :
						    DRM_VGPU_PLACE_SYSTEM) : p;
	}
	if (fz_chance(r, 30))
		bc->flags |= DRM_VGPU_BO_CPU_ACCESS;
	if ((bc->placements & DRM_VGPU_PLACE_VRAM) && fz_chance(r, 15))
		bc->flags |= DRM_VGPU_BO_CONTIGUOUS;
	if (fz_chance(r, 20))
		bc->alignment = 4096ull << fz_below(r, 10);	/* up to 2 MiB */
}

static const struct fz_bad_field create_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_bo_create, reserved,
		      "BO_CREATE with reserved set"),
	FZ_BAD_FIELD(struct drm_vgpu_bo_create, placements, DRM_VGPU_PLACE_ALL,
		     "BO_CREATE with an unknown placement"),
	FZ_BAD_FIELD(struct drm_vgpu_bo_create, flags, DRM_VGPU_BO_FLAGS_ALL,
		     "BO_CREATE with an unknown flag"),
};

/* Break exactly one rule of BO_CREATE; returns the errno the uapi gives. */
static int break_create(struct fz_rng *r, struct drm_vgpu_bo_create *bc,
			const char **what)
{
	bool pageable = bc->flags & DRM_VGPU_BO_PAGEABLE;

	switch (fz_below(r, 10)) {
	case 0:
		*what = fz_break_field(r, bc, create_bad, FZ_ARRAY_SIZE(create_bad));
		return EINVAL;
	case 1:
		bc->placements = 0;
		*what = "BO_CREATE without placements";
		return EINVAL;
	case 2:
		if (pageable)
			break;
		bc->preferred = bc->placements == DRM_VGPU_PLACE_ALL ?
				DRM_VGPU_PLACE_ALL | fz_bad_bits(r, DRM_VGPU_PLACE_ALL) :
				DRM_VGPU_PLACE_ALL & ~bc->placements;
		*what = "BO_CREATE preferring what placements do not allow";
		return EINVAL;
	case 3:
		if (pageable)
			break;
		bc->placements = DRM_VGPU_PLACE_SYSTEM;
		bc->preferred = 0;
		bc->flags |= DRM_VGPU_BO_CONTIGUOUS;
		*what = "BO_CREATE contiguous without VRAM";
		return EINVAL;
	case 4:
		if (pageable)
			break;
		switch (fz_below(r, 3)) {
		case 0:
			bc->alignment = 4096 + 4096 * fz_range(r, 1, 1000) + 4096;
			if (!(bc->alignment & (bc->alignment - 1)))
				bc->alignment += 4096;
			break;
		case 1:
			bc->alignment = 1ull << fz_below(r, 12);
			break;
		default:
			bc->alignment = 2ull << (30 + fz_below(r, 33));
			break;
		}
		*what = "BO_CREATE with a bad alignment";
		return EINVAL;
	case 5:
		bc->placements = DRM_VGPU_PLACE_SYSTEM;
		bc->preferred = 0;
		bc->alignment = 0;
		bc->flags = DRM_VGPU_BO_PAGEABLE;
		switch (fz_below(r, 4)) {
		case 0:
			bc->flags |= DRM_VGPU_BO_CPU_ACCESS;
			break;
		case 1:
			bc->preferred = DRM_VGPU_PLACE_SYSTEM;
			break;
		case 2:
			bc->alignment = 2 << 20;
			break;
		default:
			bc->placements = DRM_VGPU_PLACE_VRAM;
			break;
		}
		*what = "BO_CREATE pageable with what pageable BOs may not have";
		return EINVAL;
	case 6:
		bc->size = 0;
		*what = "BO_CREATE of size 0";
		return EINVAL;
	case 7:
		bc->size = ~0ull - fz_below(r, 1ull << 30);
		*what = "BO_CREATE of a size that overflows when rounded";
		return EINVAL;
	case 8:
		bc->size = (16ull << 30) + 4096 * fz_range(r, 1, 1 << 20);
		*what = "BO_CREATE above the largest BO size";
		return E2BIG;
	default:
		if (pageable)
			break;
		bc->placements = DRM_VGPU_PLACE_VRAM;
		bc->preferred = 0;
		bc->alignment = 0;
		bc->size = fz_dev.dev.vram_size + 4096 * fz_range(r, 1, 1 << 16);
		*what = "BO_CREATE of a VRAM-only BO larger than VRAM";
		return E2BIG;
	}
	return 0;
}

static void op_bo_create(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_bo_create bc;
	unsigned long req = DRM_IOCTL_VGPU_BO_CREATE;
	const char *what = NULL;
	struct fz_bo *bo;
	int err = 0, ret;

	gen_create(r, &bc);
	if (fz_chance(r, 20))
		err = break_create(r, &bc, &what);
	/* A shorter struct: the missing fields read as zero (keep the handle). */
	if (!err && fz_chance(r, 3)) {
		req = fz_resize_req(req, c->private ? 24 : fz_range(r, 0, 48));
		if (_IOC_SIZE(req) < 24)
			bc.size &= 0xffff;	/* it leaks: keep it small */
	}
	ret = fz_ioctl(t, c->dev.fd, req, &bc);
	if (err) {
		fz_expect(t, c, ret, err, what);
		if (ret)
			return;
	}
	if (ret)
		return;
	if (_IOC_SIZE(req) < 24)
		return;		/* the handle did not come back */
	fz_lock(c);
	bo = c->bo_bytes + bc.size <= fz_opts->bo_budget ?
	     fz_bo_add(c, bc.handle, bc.size, bc.placements, bc.flags) : NULL;
	if (bo)
		fz_shadow_attach(t, c, bo);
	fz_unlock(c);
	if (!bo) {
		struct drm_gem_close gc = { .handle = bc.handle };

		fz_ioctl(t, c->dev.fd, DRM_IOCTL_GEM_CLOSE, &gc);
		return;
	}
	if (fz_chance(r, 50)) {
		fz_lock(c);
		if (bo->handle == bc.handle)
			fz_bo_map(t, c, bo);
		fz_unlock(c);
	}
}

static void op_gem_close(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_gem_close gc = { 0 };
	struct fz_bo *bo;
	int ret;

	fz_lock(c);
	bo = fz_chance(r, 90) ? fz_pick_bo(t, c) : NULL;
	if (bo) {
		gc.handle = bo->handle;
		/* Half the time the mapping keeps the BO alive a while. */
		fz_bo_forget(t, c, bo, c->private && fz_chance(r, 50));
	} else {
		gc.handle = fz_bogus_handle(t, c);
	}
	fz_unlock(c);
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_GEM_CLOSE, &gc);
	if (!bo && gc.handle)
		fz_expect(t, c, ret, EINVAL, "GEM_CLOSE of an unknown handle");
	else if (bo && ret && c->private)
		fz_finding(t, "GEM_CLOSE of live handle %u: %s", gc.handle,
			   strerror(-ret));
}

static const struct fz_bad_field mmap_offset_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_bo_mmap_offset, flags, "flags set"),
};

static void op_mmap_offset(struct fz_thread *t, struct fz_ctx *c)
{
	struct drm_vgpu_bo_mmap_offset mo = { 0 };
	bool bogus = false;

	mo.handle = fz_handle_arg(t, c, &bogus);
	if (FZ_BAD_ARG(t, c, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, "BO_MMAP_OFFSET",
		       mmap_offset_bad, 10))
		return;
	fz_ioctl_check(t, c, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, bogus, ENOENT,
		       "BO_MMAP_OFFSET of an unknown handle");
}

/*
 * mmap() a BO at odd offsets and lengths and with odd flags: what the
 * kernel accepts is checked against the shadow, in pages.
 */
static void op_mmap_odd(struct fz_thread *t, struct fz_ctx *c)
{
	static const int prots[] = {
		PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_EXEC,
	};
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_bo_mmap_offset mo = { 0 };
	uint64_t pages, first, n, size;
	int prot = PROT_READ, flags = MAP_SHARED, kind;
	struct fz_bo *bo;
	uint8_t *p;

	fz_lock(c);
	bo = fz_pick_bo(t, c);
	if (!bo || bo->size > FZ_TOUCH_MAX_BO) {
		fz_unlock(c);
		return;
	}
	mo.handle = bo->handle;
	size = bo->size;
	fz_unlock(c);
	if (fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo))
		return;
	pages = size >> 12;
	first = fz_below(r, pages);
	n = fz_range(r, 1, pages - first);
	kind = fz_below(r, 6);
	switch (kind) {
	case 0:
		n = pages - first + fz_range(r, 1, 4);	/* past the end */
		break;
	case 1:
		flags = MAP_PRIVATE;			/* copy-on-write */
		break;
	case 2:
		prot = prots[fz_below(r, 5)];
		break;
	case 3:
		/* Outside the BO: may be another BO of the file's, though. */
		first = pages + fz_below(r, 16);
		break;
	default:
		break;
	}
	p = fz_mmap(t, n << 12, prot, flags, c->dev.fd, mo.offset + (first << 12));
	if (!p)
		return;
	if (kind == 0 && c->private)
		fz_finding(t, "mmap of pages %llu..%llu of a %llu-page BO succeeded",
			   (unsigned long long)first,
			   (unsigned long long)(first + n),
			   (unsigned long long)pages);
	else if (c->private && prot == PROT_READ && flags == MAP_SHARED &&
		 first + n <= pages) {
		bo = fz_find_bo(c, mo.handle);
		if (bo && bo->shadow && !bo->tainted)
			fz_verify(t, p - (first << 12), bo->shadow, size,
				  first << 12, n << 12, "partial mapping of a BO");
	}
	fz_munmap(t, p, n << 12);
}

static void op_cpu_write(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	uint64_t off, len;
	struct fz_bo *bo;

	fz_lock(c);
	bo = fz_pick_bo(t, c);
	if (!bo || fz_bo_map(t, c, bo)) {
		fz_unlock(c);
		return;
	}
	len = fz_chance(r, 5) && bo->size <= (1 << 20) ? bo->size :
	      fz_size(r, bo->size < (64 << 10) ? bo->size : 64 << 10);
	off = fz_below(r, bo->size - len + 1);
	if (fz_chance(r, 50))
		off &= ~63ull;
	fz_trace(t, "cpu write BO %u [0x%llx, +0x%llx)", bo->handle,
		 (unsigned long long)off, (unsigned long long)len);
	fz_cpu_write(t, c, bo->map, bo->shadow, bo->size, off, len);
	fz_unlock(c);
}

/* Read back a window of an untainted BO, or all of it. */
static void op_cpu_verify(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	unsigned int start = fz_below(r, FZ_BOS), i;
	uint64_t off, len;

	for (i = 0; i < FZ_BOS; i++) {
		struct fz_bo *bo = &c->bo[(start + i) % FZ_BOS];

		if (!bo->handle || !bo->shadow || bo->tainted)
			continue;
		if (fz_bo_map(t, c, bo))
			return;
		len = fz_chance(r, 5) ? bo->size :
		      fz_size(r, bo->size < (64 << 10) ? bo->size : 64 << 10);
		off = fz_below(r, bo->size - len + 1);
		fz_trace(t, "verify BO %u [0x%llx, +0x%llx)", bo->handle,
			 (unsigned long long)off, (unsigned long long)len);
		fz_verify(t, bo->map, bo->shadow, bo->size, off, len,
			  "BO read back through its mapping");
		return;
	}
}

/* Drop the PTEs of a mapping: the next access faults the BO back in. */
static void op_madvise(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	uint64_t first, n, pages;
	struct fz_bo *bo;
	int ret;

	fz_lock(c);
	bo = fz_pick_bo(t, c);
	if (!bo || !bo->map) {
		fz_unlock(c);
		return;
	}
	pages = bo->size >> 12;
	first = fz_below(r, pages);
	n = fz_range(r, 1, pages - first);
	fz_call_begin(t, "madvise");
	ret = madvise(bo->map + (first << 12), n << 12,
		      fz_chance(r, 70) ? MADV_DONTNEED : MADV_COLD);
	fz_call_end(t);
	bo->history |= FZ_HIST_MADVISED;
	fz_trace(t, "madvise BO %u pages %llu+%llu = %d", bo->handle,
		 (unsigned long long)first, (unsigned long long)n, ret);
	if (c->private && bo->shadow && !bo->tainted)
		fz_verify(t, bo->map, bo->shadow, bo->size, first << 12, n << 12,
			  "BO read back after MADV_DONTNEED");
	fz_unlock(c);
}

/* Check and drop a BO whose handle is gone but whose mapping is not. */
static void op_orphan(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_orphan *o = &c->orphan[fz_below(&t->rng, FZ_ORPHANS)];

	if (o->map)
		fz_orphan_drop(t, c, o);
}

static const struct fz_bad_field wait_bo_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_wait_bo, flags, "flags set"),
};

static void op_wait_bo(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_wait_bo wb = { 0 };
	bool bogus;

	wb.handle = fz_handle_arg(t, c, &bogus);
	wb.timeout_ns = fz_timeout_abs(r, fz_chance(r, 10));
	if (FZ_BAD_ARG(t, c, DRM_IOCTL_VGPU_WAIT_BO, &wb, "WAIT_BO", wait_bo_bad, 10))
		return;
	fz_ioctl_check(t, c, DRM_IOCTL_VGPU_WAIT_BO, &wb, bogus, ENOENT,
		       "WAIT_BO of an unknown handle");
}

const struct fz_op fz_bo_ops[] = {
	{ "bo_create", 10, 0, op_bo_create },
	{ "gem_close", 5, 0, op_gem_close },
	{ "mmap_offset", 3, 0, op_mmap_offset },
	{ "mmap_odd", 3, 0, op_mmap_odd },
	{ "cpu_write", 10, 0, op_cpu_write },
	{ "cpu_verify", 8, FZ_OP_PRIVATE, op_cpu_verify },
	{ "madvise", 2, 0, op_madvise },
	{ "orphan", 1, FZ_OP_PRIVATE, op_orphan },
	{ "wait_bo", 4, 0, op_wait_bo },
	{ NULL },
};
