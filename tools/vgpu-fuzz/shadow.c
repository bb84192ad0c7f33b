// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: shadows of BO contents, and the read-back check.
 *
 * A private context keeps, for its smaller BOs, a copy of what the BO
 * must hold: zeros at creation, then every byte the fuzzer wrote through
 * the CPU mapping and every GPU write it made on purpose and saw complete
 * (op_exec.c).  Comparing the mapping with the shadow after the BO may
 * have moved (eviction under a small VRAM, demand paging, PREFETCH,
 * ADVISE, CPU faults migrating it into the CPU-visible window) checks
 * that moves keep data.
 *
 * A BO is *tainted*, its shadow unknown, from the moment a writable GPU
 * mapping of it is even attempted in the random zone: a random command
 * stream, or a job still queued from before, may write it.  fz_resync()
 * unmaps the whole random zone, waits for the BOs to go idle and reads
 * them back into their shadows.  A BO others may write (dma-buf imported
 * elsewhere, or imported from elsewhere) is never untainted.
 *
 * CPU accesses run guarded: a SIGBUS or SIGSEGV on a mapping of a live
 * BO is a finding (the uapi says mapping never fails), not a crash.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fuzz.h"

void fz_shadow_attach(struct fz_thread *t, struct fz_ctx *c, struct fz_bo *bo)
{
	if (!c->private || bo->foreign || bo->size > FZ_SHADOW_MAX_BO ||
	    c->shadow_bytes + bo->size > fz_opts->shadow_budget)
		return;
	bo->shadow = calloc(1, bo->size);	/* BOs are zeroed at creation */
	if (!bo->shadow)
		return;
	c->shadow_bytes += bo->size;
	bo->gpu_ro = fz_chance(&t->rng, 50);
}

void fz_shadow_release(struct fz_ctx *c, uint8_t **shadow, uint64_t size)
{
	if (!*shadow)
		return;
	free(*shadow);
	*shadow = NULL;
	c->shadow_bytes -= size;
}

void fz_taint(struct fz_bo *bo)
{
	bo->tainted = true;
}

/* Map @bo for the CPU (the whole BO) if it is not yet. */
int fz_bo_map(struct fz_thread *t, struct fz_ctx *c, struct fz_bo *bo)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = bo->handle };
	int ret;

	if (bo->map)
		return 0;
	if (bo->size > FZ_TOUCH_MAX_BO)
		return -E2BIG;
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo);
	if (ret)
		return ret;
	bo->map = fz_mmap(t, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			  c->dev.fd, mo.offset);
	/* In a shared context the handle may name another BO by now. */
	if (!bo->map && c->private) {
		fz_finding(t, "mmap of BO %u (%llu bytes, placements 0x%x, flags 0x%x) at its offset failed: %s",
			   bo->handle, (unsigned long long)bo->size,
			   bo->placements, bo->flags, strerror(errno));
	}
	return bo->map ? 0 : -EINVAL;
}

/* Report a fault caught in a guarded access. */
static void guard_fault(struct fz_thread *t, const char *what, uint64_t size,
			uint64_t off, uint64_t len)
{
	t->guarded = 0;
	fz_finding(t, "signal %d at %p while %s bytes 0x%llx..0x%llx of a %llu-byte BO mapping",
		   t->fault_sig, t->fault_addr, what, (unsigned long long)off,
		   (unsigned long long)(off + len), (unsigned long long)size);
}

static void fill_random(struct fz_rng *r, uint8_t *p, uint64_t len)
{
	uint64_t i, v;

	for (i = 0; i + 8 <= len; i += 8) {
		v = fz_next(r);
		memcpy(p + i, &v, 8);
	}
	v = fz_next(r);
	memcpy(p + i, &v, len - i);
}

/*
 * Write random bytes to [off, off + len) of a BO mapping, and to @shadow
 * when there is one; in bulk, or byte by byte for short ranges.
 */
void fz_cpu_write(struct fz_thread *t, struct fz_ctx *c, uint8_t *map,
		  uint8_t *shadow, uint64_t size, uint64_t off, uint64_t len)
{
	static __thread uint8_t scratch[64 << 10];
	volatile uint8_t *vmap = map;
	uint64_t done, n, i;
	bool bytewise = len <= 256 && fz_chance(&t->rng, 30);

	(void)c;
	if (sigsetjmp(t->jmp, 1)) {
		guard_fault(t, "writing", size, off, len);
		return;
	}
	for (done = 0; done < len; done += n) {
		uint8_t *src;

		n = len - done < sizeof(scratch) ? len - done : sizeof(scratch);
		src = shadow ? shadow + off + done : scratch;
		fill_random(&t->rng, src, n);
		t->guarded = 1;
		if (bytewise)
			for (i = 0; i < n; i++)
				vmap[off + done + i] = src[i];
		else
			memcpy(map + off + done, src, n);
		t->guarded = 0;
	}
}

/*
 * Compare [off, off + len) of a mapping with its shadow; a difference is
 * a finding naming @what.  Returns true when they match.
 */
bool fz_verify(struct fz_thread *t, const uint8_t *map, const uint8_t *shadow,
	       uint64_t size, uint64_t off, uint64_t len, const char *what)
{
	uint64_t i, first = 0, bad = 0;

	if (sigsetjmp(t->jmp, 1)) {
		guard_fault(t, "reading", size, off, len);
		return false;
	}
	t->guarded = 1;
	if (!memcmp(map + off, shadow + off, len)) {
		t->guarded = 0;
		t->slot->verified_bytes += len;
		return true;
	}
	for (i = off; i < off + len; i++)
		if (map[i] != shadow[i] && !bad++)
			first = i;
	t->guarded = 0;
	fz_finding(t, "%s: %llu of %llu bytes read back differ from what was written (%llu-byte BO, first at offset 0x%llx: 0x%02x, expected 0x%02x)",
		   what, (unsigned long long)bad, (unsigned long long)len,
		   (unsigned long long)size, (unsigned long long)first,
		   map[first], shadow[first]);
	return false;
}

/*
 * Untaint what can be: nothing of the random zone stays mapped, and a BO
 * that goes idle is read back into its shadow.
 */
void fz_resync(struct fz_thread *t, struct fz_ctx *c)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_UNMAP,
		.va = fz_zone_start(),
		.range = FZ_ZONE_SIZE,
	};
	struct drm_vgpu_vm_bind vb = {
		.num_ops = 1, .ops = (uintptr_t)&op, .op_size = sizeof(op),
	};
	int i, ret;

	fz_vm_changed(c);
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb);
	if (ret) {
		if (ret == -ECANCELED)
			c->banned = true;
		return;
	}
	fz_map_forget(c, op.va, op.range);
	for (i = 0; i < FZ_BOS; i++) {
		struct fz_bo *bo = &c->bo[i];
		struct drm_vgpu_wait_bo wb = { .handle = bo->handle };

		if (!bo->handle || !bo->tainted || bo->foreign || !bo->shadow ||
		    !bo->map)
			continue;
		wb.timeout_ns = fz_now_ns() + 1000000000;
		if (fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb))
			continue;
		if (sigsetjmp(t->jmp, 1)) {
			guard_fault(t, "reading back", bo->size, 0, bo->size);
			continue;
		}
		t->guarded = 1;
		memcpy(bo->shadow, bo->map, bo->size);
		t->guarded = 0;
		bo->tainted = false;
		bo->history |= FZ_HIST_RESYNCED;
	}
}
