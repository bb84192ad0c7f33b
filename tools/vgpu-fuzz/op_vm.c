// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: the GPU VM: VM_BIND (batches of maps and unmaps in the
 * random zone, at 4 KiB, 64 KiB and 2 MiB alignments so that every leaf
 * size is built and split), PREFETCH and ADVISE (which move BOs and
 * pageable chunks between VRAM and system memory under the shadows'
 * feet).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ops.h"

static uint32_t gen_perms(struct fz_rng *r)
{
	static const uint32_t perms[] = {
		VGPU_MAP_RW, VGPU_MAP_RW, VGPU_MAP_RW, VGPU_MAP_RW,
		VGPU_MAP_R, VGPU_MAP_R, VGPU_MAP_R, VGPU_MAP_RW | VGPU_MAP_X,
		VGPU_MAP_W, VGPU_MAP_X,
	};

	return perms[fz_below(r, sizeof(perms) / sizeof(perms[0]))];
}

/* A VA in the random zone for @range bytes, at a random leaf alignment. */
static uint64_t gen_va(struct fz_rng *r, uint64_t range)
{
	static const uint64_t aligns[] = { 4096, 4096, 65536, 2 << 20 };
	uint64_t align = aligns[fz_below(r, 4)];
	uint64_t room = range < FZ_ZONE_SIZE ? FZ_ZONE_SIZE - range : 0;

	return fz_zone_start() + (fz_below(r, room + 1) & ~(align - 1));
}

/* A valid map of (part of) a BO of the context, or a valid unmap. */
static void gen_bind_op(struct fz_thread *t, struct fz_ctx *c,
			struct drm_vgpu_vm_bind_op *op)
{
	struct fz_rng *r = &t->rng;
	struct fz_mapping *m;
	struct fz_bo *bo;
	uint64_t pages, first;

	memset(op, 0, sizeof(*op));
	bo = fz_chance(r, 70) ? fz_pick_bo(t, c) : NULL;
	if (bo) {
		pages = bo->size >> 12;
		first = fz_chance(r, 50) ? 0 : fz_below(r, pages);
		op->op = DRM_VGPU_VM_BIND_OP_MAP;
		op->handle = bo->handle;
		op->bo_offset = first << 12;
		op->range = (fz_chance(r, 50) ? pages - first :
			     fz_range(r, 1, pages - first)) << 12;
		op->va = gen_va(r, op->range);
		op->flags = gen_perms(r);
		/* Half the shadowed BOs are never GPU-writable: checked often. */
		if (bo->gpu_ro)
			op->flags = (op->flags & ~VGPU_MAP_W) | VGPU_MAP_R;
		return;
	}
	op->op = DRM_VGPU_VM_BIND_OP_UNMAP;
	m = fz_chance(r, 60) ? fz_pick_map(t, c, 0) : NULL;
	if (m) {
		pages = m->range >> 12;
		first = fz_chance(r, 50) ? 0 : fz_below(r, pages);
		op->va = m->va + (first << 12);
		op->range = (fz_chance(r, 50) ? pages - first :
			     fz_range(r, 1, pages - first)) << 12;
	} else {
		op->range = fz_size(r, 64 << 20) & ~4095ull;
		if (!op->range)
			op->range = 4096;
		op->va = gen_va(r, op->range);
	}
}

static const struct fz_bad_field bind_op_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_vm_bind_op, pad, "VM_BIND op with pad set"),
	FZ_ZERO_FIELD(struct drm_vgpu_vm_bind_op, reserved,
		      "VM_BIND op with reserved set"),
};

/* Break one rule of a bind op; returns the errno. */
static int break_bind_op(struct fz_thread *t, struct fz_ctx *c,
			 struct drm_vgpu_vm_bind_op *op, const char **what)
{
	struct fz_rng *r = &t->rng;
	bool map = op->op == DRM_VGPU_VM_BIND_OP_MAP;
	struct fz_bo *bo = map ? fz_find_bo(c, op->handle) : NULL;

	switch (fz_below(r, 12)) {
	case 0:
		op->op = fz_range(r, 2, 0xffffffff);
		*what = "VM_BIND with an unknown op";
		return EINVAL;
	case 1:
		*what = fz_break_field(r, op, bind_op_bad, FZ_ARRAY_SIZE(bind_op_bad));
		return EINVAL;
	case 2:
		op->flags = map ? (fz_chance(r, 30) ? 0 :
				   op->flags | fz_bad_bits(r, DRM_VGPU_VM_BIND_PERMS)) :
			    fz_interesting32(r) | 1;
		*what = map ? "VM_BIND map with no or unknown permissions" :
			      "VM_BIND unmap with flags";
		return EINVAL;
	case 3:
		if (map)
			break;
		if (fz_chance(r, 50))
			op->handle = fz_interesting32(r) | 1;
		else
			op->bo_offset = 4096;
		*what = "VM_BIND unmap with a handle or BO offset";
		return EINVAL;
	case 4:
		op->range = 0;
		*what = "VM_BIND of an empty range";
		return EINVAL;
	case 5:
		switch (fz_below(r, 3)) {
		case 0:
			op->va |= fz_range(r, 1, 4095);
			break;
		case 1:
			op->range |= fz_range(r, 1, 4095);
			break;
		default:
			if (!map)
				return 0;
			op->bo_offset |= fz_range(r, 1, 4095);
			break;
		}
		*what = "VM_BIND of an unaligned range";
		return EINVAL;
	case 6:
		op->va = fz_below(r, fz_dev.dev.va_start) & ~4095ull;
		*what = "VM_BIND below the user VA range";
		return EINVAL;
	case 7:
		op->va = (fz_dev.dev.va_end + (fz_next(r) & ((1ull << 47) - 1))) &
			 ~4095ull;
		if (op->va < fz_dev.dev.va_end)
			op->va = fz_dev.dev.va_end;
		*what = "VM_BIND above the user VA range";
		return EINVAL;
	case 8:
		op->range = (fz_dev.dev.va_end - op->va + 4096 * fz_range(r, 1, 1 << 20)) |
			    (fz_chance(r, 20) ? 0xfffff00000000000ull : 0);
		*what = "VM_BIND of a range past the user VA range";
		return EINVAL;
	case 9:
		if (!bo)
			break;
		op->bo_offset = bo->size + 4096 * fz_below(r, 1 << 20);
		*what = "VM_BIND map past the BO's end";
		return EINVAL;
	case 10:
		if (!bo)
			break;
		op->range = bo->size - op->bo_offset + 4096 * fz_range(r, 1, 1 << 10);
		*what = "VM_BIND map of more than the BO holds";
		return EINVAL;
	default:
		if (!map)
			break;
		op->handle = fz_bogus_handle(t, c);
		*what = "VM_BIND map of an unknown handle";
		return ENOENT;
	}
	return 0;
}

static void op_vm_bind(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_vm_bind_op ops_buf[8], *ops = ops_buf;
	struct drm_vgpu_vm_bind vb = { 0 };
	unsigned long req = DRM_IOCTL_VGPU_VM_BIND;
	const char *what = NULL;
	uint32_t n, i;
	int err = 0, ret;

	n = fz_chance(r, 95) ? fz_range(r, 1, 8) : fz_range(r, 9, 1024);
	if (n > 8) {
		ops = calloc(n, sizeof(*ops));
		if (!ops)
			return;
	}
	fz_lock(c);
	for (i = 0; i < n; i++)
		gen_bind_op(t, c, &ops[i]);
	if (fz_chance(r, 25))
		err = break_bind_op(t, c, &ops[fz_below(r, n)], &what);
	/* Whatever may be mapped writable may be written by a random job. */
	for (i = 0; i < n; i++) {
		struct fz_bo *bo;

		if (ops[i].op != DRM_VGPU_VM_BIND_OP_MAP)
			continue;
		bo = fz_find_bo(c, ops[i].handle);
		if (!bo)
			continue;
		bo->history |= FZ_HIST_GPU_MAPPED;
		if (ops[i].flags & DRM_VGPU_VM_BIND_WRITE)
			fz_taint(bo);
	}
	fz_vm_changed(c);
	fz_unlock(c);

	vb.num_ops = n;
	vb.ops = (uintptr_t)ops;
	vb.op_size = sizeof(*ops);
	if (!err && fz_chance(r, 10)) {
		switch (fz_below(r, 6)) {
		case 0:
			/* The fuzzer creates no VM: every other id is unknown. */
			vb.vm_id = fz_interesting32(r) | 1;
			what = "VM_BIND on an unknown vm_id";
			err = ENOENT;
			break;
		case 1:
			vb.flags = fz_bad_bits(r, 0);
			what = "VM_BIND with flags";
			err = EINVAL;
			break;
		case 2:
			vb.num_ops = fz_chance(r, 50) ? 0 : fz_range(r, 1025, ~0u);
			what = "VM_BIND with no or too many ops";
			err = EINVAL;
			break;
		case 3:
			while (vb.op_size == sizeof(*ops))
				vb.op_size = fz_interesting32(r);
			what = "VM_BIND with a wrong op size";
			err = EINVAL;
			break;
		case 4:
			vb.ops = fz_user_ptr(r, NULL);
			what = "VM_BIND with an unreadable op array";
			err = EFAULT;
			break;
		default:
			req = fz_resize_req(req, fz_below(r, 17));
			what = "VM_BIND with a struct too short for op_size";
			err = EINVAL;
			break;
		}
	}
	ret = fz_ioctl(t, c->dev.fd, req, &vb);
	if (err)
		fz_expect(t, c, ret, err, what);
	if (ret == -ECANCELED)
		c->banned = true;

	fz_lock(c);
	for (i = 0; i < n && (!err || !ret); i++) {
		if (ops[i].op == DRM_VGPU_VM_BIND_OP_UNMAP)
			fz_map_forget(c, ops[i].va, ops[i].range);
		else if (!ret)
			fz_map_add(c, ops[i].handle, ops[i].bo_offset, ops[i].va,
				   ops[i].range, ops[i].flags);
	}
	fz_unlock(c);
	if (ops != ops_buf)
		free(ops);
}

/* A range for PREFETCH or ADVISE: in a mapping, or anywhere in the zone. */
static void gen_range(struct fz_thread *t, struct fz_ctx *c, __u64 *va,
		      __u64 *range)
{
	struct fz_rng *r = &t->rng;
	struct fz_mapping *m = fz_chance(r, 85) ? fz_pick_map(t, c, 0) : NULL;
	uint64_t pages, first;

	if (m) {
		pages = m->range >> 12;
		first = fz_chance(r, 50) ? 0 : fz_below(r, pages);
		*va = m->va + (first << 12);
		*range = (fz_chance(r, 50) ? pages - first :
			  fz_range(r, 1, pages - first)) << 12;
	} else {
		*range = (fz_size(r, 64 << 20) + 4095) & ~4095ull;
		*va = gen_va(r, *range);
	}
}

/* PREFETCH or ADVISE of @arg; @what: the rule broken ("pad set"), or NULL. */
static void range_ioctl(struct fz_thread *t, struct fz_ctx *c, unsigned long req,
			void *arg, const char *name, const char *what)
{
	char buf[96];
	int ret = fz_ioctl(t, c->dev.fd, req, arg);

	if (what) {
		snprintf(buf, sizeof(buf), "%s with %s", name, what);
		fz_expect(t, c, ret, EINVAL, buf);
	}
	if (ret == -ECANCELED)
		c->banned = true;
}

/* The must-be-zero fields of PREFETCH and ADVISE. */
static const struct fz_bad_field prefetch_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_prefetch, flags, "flags set"),
	FZ_ZERO_FIELD(struct drm_vgpu_prefetch, pad, "pad set"),
};

static const struct fz_bad_field advise_bad[] = {
	FZ_ZERO_FIELD(struct drm_vgpu_advise, flags, "flags set"),
	FZ_ZERO_FIELD(struct drm_vgpu_advise, pad, "pad set"),
};

/* Break one range rule shared by PREFETCH and ADVISE. */
static const char *break_range(struct fz_rng *r, __u64 *va, __u64 *range)
{
	switch (fz_below(r, 5)) {
	case 0:
		*va |= fz_range(r, 1, 4095);
		return "unaligned VA";
	case 1:
		*range = fz_chance(r, 50) ? 0 : *range | fz_range(r, 1, 4095);
		return "empty or unaligned range";
	case 2:
		*va = fz_below(r, fz_dev.dev.va_start) & ~4095ull;
		return "VA below the user range";
	case 3:
		*va = fz_dev.dev.va_end + (fz_below(r, 1ull << 40) & ~4095ull);
		return "VA above the user range";
	default:
		*range = (fz_dev.dev.va_end - *va + 4096) | (fz_next(r) & ~0xfffull);
		return "range past the user range";
	}
}

static void op_prefetch(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_prefetch pf = { 0 };
	const char *what = NULL;

	fz_lock(c);
	gen_range(t, c, &pf.va, &pf.range);
	fz_unlock(c);
	pf.placement = fz_chance(r, 50) ? DRM_VGPU_PLACE_VRAM : DRM_VGPU_PLACE_SYSTEM;
	if (fz_chance(r, 20)) {
		switch (fz_below(r, 3)) {
		case 0:
			what = fz_break_field(r, &pf, prefetch_bad,
					      FZ_ARRAY_SIZE(prefetch_bad));
			break;
		case 1:
			pf.placement = fz_chance(r, 30) ? 0 : fz_chance(r, 50) ?
				       DRM_VGPU_PLACE_ALL :
				       fz_bad_bits(r, DRM_VGPU_PLACE_ALL);
			what = "not exactly one placement";
			break;
		default:
			what = break_range(r, &pf.va, &pf.range);
			break;
		}
	}
	range_ioctl(t, c, DRM_IOCTL_VGPU_PREFETCH, &pf, "PREFETCH", what);
}

static void op_advise(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_advise ad = { 0 };
	const char *what = NULL;

	fz_lock(c);
	gen_range(t, c, &ad.va, &ad.range);
	fz_unlock(c);
	ad.advice = fz_below(r, 3);
	switch (ad.advice) {
	case DRM_VGPU_ADVICE_PREFERRED_PLACEMENT:
		ad.value = fz_below(r, 3);	/* 0 clears */
		break;
	case DRM_VGPU_ADVICE_READ_MOSTLY:
		ad.value = fz_below(r, 2);
		break;
	default:
		ad.value = fz_below(r, 2) * DRM_VGPU_ACCESSOR_GPU;
		break;
	}
	if (fz_chance(r, 20)) {
		switch (fz_below(r, 4)) {
		case 0:
			what = fz_break_field(r, &ad, advise_bad,
					      FZ_ARRAY_SIZE(advise_bad));
			break;
		case 1:
			ad.advice = fz_range(r, 3, ~0u);
			what = "an unknown advice";
			break;
		case 2:
			if (ad.advice == DRM_VGPU_ADVICE_PREFERRED_PLACEMENT)
				ad.value = fz_chance(r, 50) ? DRM_VGPU_PLACE_ALL :
					   fz_interesting64(r) | 4;
			else if (ad.advice == DRM_VGPU_ADVICE_READ_MOSTLY)
				ad.value = fz_range(r, 2, ~0ull);
			else
				ad.value = fz_interesting64(r) | 2;
			what = "a value the advice does not take";
			break;
		default:
			what = break_range(r, &ad.va, &ad.range);
			break;
		}
	}
	range_ioctl(t, c, DRM_IOCTL_VGPU_ADVISE, &ad, "ADVISE", what);
}

const struct fz_op fz_vm_ops[] = {
	{ "vm_bind", 12, 0, op_vm_bind },
	{ "prefetch", 4, 0, op_prefetch },
	{ "advise", 4, 0, op_advise },
	{ NULL },
};
