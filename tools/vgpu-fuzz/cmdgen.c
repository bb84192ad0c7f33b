// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: random device command streams for EXEC.
 *
 * Streams are built with libvgpu's command encoders (the vgpu_hw.h
 * contract), one command of every kind the device knows (the access
 * kernels GATHER, SCATTER and TILE included), with operands
 * that are mostly in the context's own random-zone mappings and
 * sometimes anywhere else (fz_gpu_addr()), sizes from a few bytes to
 * megabytes, and a few broken ones: unknown opcodes, lengths that are
 * too short or run past the end, unknown flags, flipped bits.  WAITs are
 * almost always satisfiable, so that a stream seldom hangs its queue
 * until the job timeout.  FENCEs carry random values and, half the time,
 * the IRQ and NOWRITE flags only the kernel's ring may use: the device
 * must refuse them in a user stream (a PRIVILEGE error, the job fails with
 * -EPERM) without the queue's seqno ever moving.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <string.h>

#include "fuzz.h"

enum {
	G_NOP, G_COPY, G_FILL, G_WRITE, G_FENCE, G_WAIT, G_TIMESTAMP,
	G_TOUCH, G_CHECKSUM, G_CALL, G_GATHER, G_TILE, G_GARBAGE, G_NR,
};

static const unsigned int weight[G_NR] = {
	[G_NOP] = 6, [G_COPY] = 12, [G_FILL] = 14, [G_WRITE] = 12,
	[G_FENCE] = 8, [G_WAIT] = 6, [G_TIMESTAMP] = 5, [G_TOUCH] = 10,
	[G_CHECKSUM] = 8, [G_CALL] = 2, [G_GATHER] = 8, [G_TILE] = 6,
	[G_GARBAGE] = 4,
};

/* A command kind; a safe stream has no CALL and no garbage. */
static unsigned int pick(struct fz_rng *r, bool safe)
{
	unsigned int total = 0, i, x;

	for (i = 0; i < G_NR; i++)
		total += weight[i];
	do {
		x = fz_below(r, total);
		for (i = 0; x >= weight[i]; i++)
			x -= weight[i];
	} while (safe && (i == G_CALL || i == G_GARBAGE));
	return i;
}

/* Bytes a command moves: mostly small, so that jobs finish quickly. */
static uint64_t op_size(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;

	if (!t->safe && fz_chance(r, 2))
		return fz_interesting64(r);
	if (fz_chance(r, 10))
		return fz_size(r, 1 << 20);
	return fz_size(r, 16 << 10);
}

static uint64_t align_of(struct fz_thread *t, uint64_t a)
{
	return t->safe || fz_chance(&t->rng, 97) ? a : 1;
}

/*
 * Cut [va, va + size) so that it does not reach the verified zone: a
 * strided or random TOUCH of a huge size would jump over the unmapped
 * gap that stops linear accesses.
 */
static uint64_t clamp(uint64_t va, uint64_t size)
{
	uint64_t vz = fz_vzone_start();

	if (va + size < va)
		size = 0 - va;		/* nor wrap around to it */
	if (va < vz && va + size > vz)
		size = vz - va;
	return size;
}

static void gen_one(struct fz_thread *t, struct fz_ctx *c, struct vgpu_cmd *cmd,
		    bool in_bo)
{
	struct fz_rng *r = &t->rng;
	uint64_t size, a, b;
	uint32_t data[16];
	unsigned int n, i;

	switch (pick(r, t->safe)) {
	case G_NOP:
		vgpu_cmd_nop(cmd, fz_range(r, 1, 8));
		break;
	case G_COPY:
		size = op_size(t);
		a = fz_gpu_addr(t, c, size, 1);
		b = fz_gpu_addr(t, c, size, 1);
		vgpu_cmd_copy(cmd, a, b, clamp(b, size));
		break;
	case G_FILL:
		size = op_size(t);
		a = fz_gpu_addr(t, c, size, align_of(t, 4));
		size = clamp(a, size);
		if (fz_chance(r, 95))
			size &= ~3ull;
		vgpu_cmd_fill(cmd, a, size, fz_next(r));
		break;
	case G_WRITE:
		n = fz_range(r, 1, 16);
		for (i = 0; i < n; i++)
			data[i] = fz_next(r);
		vgpu_cmd_write(cmd, fz_gpu_addr(t, c, n * 4, align_of(t, 4)),
			       data, n);
		break;
	case G_FENCE: {
		uint32_t flags = 0;
		uint32_t *p;

		vgpu_cmd_fence(cmd, fz_gpu_addr(t, c, 8, align_of(t, 8)),
			       fz_next(r));
		if (fz_chance(r, 50))
			flags = fz_below(r, 4);
		if (fz_chance(r, 3))
			flags |= fz_bad_bits(r, VGPU_FENCE_FLAG_IRQ |
						VGPU_FENCE_FLAG_NOWRITE) & 0xff;
		/* The header the encoder wrote: put the flags in. */
		p = cmd->error ? NULL : cmd->dw + cmd->len - VGPU_FENCE_LEN;
		if (p)
			*p |= (flags & 0xff) << VGPU_CMD_FLAGS_SHIFT;
		break;
	}
	case G_WAIT:
		a = fz_gpu_addr(t, c, 8, align_of(t, 8));
		if (t->safe || fz_chance(r, 98)) {
			/* Satisfied: 0, or a value the stream writes first. */
			b = fz_chance(r, 50) ? 0 : fz_next(r) >> 1;
			if (b) {
				data[0] = (uint32_t)b;
				data[1] = (uint32_t)(b >> 32);
				vgpu_cmd_write(cmd, a, data, 2);
			}
		} else {
			b = fz_next(r);	/* most likely never: the job times out */
		}
		vgpu_cmd_wait(cmd, a, b);
		break;
	case G_TIMESTAMP:
		vgpu_cmd_timestamp(cmd, fz_gpu_addr(t, c, 8, align_of(t, 8)));
		break;
	case G_TOUCH:
		size = t->safe || fz_chance(r, 95) ?
		       (fz_size(r, 256 << 10) + 63) & ~63ull : fz_interesting64(r);
		a = fz_gpu_addr(t, c, size, align_of(t, 64));
		size = clamp(a, size);
		/* Any launch width, 0 (the device's) half the time. */
		vgpu_cmd_touch_lanes(cmd, fz_chance(r, 50) ? 0 : fz_below(r, 300),
				     fz_below(r, t->safe ? 3 : 4),
				     fz_below(r, t->safe ? 3 : 4), a, size,
				     t->safe || fz_chance(r, 90) ? 64 << fz_below(r, 8) :
								   fz_interesting32(r),
				     fz_chance(r, 95) ? fz_below(r, 1024) :
							fz_interesting32(r),
				     fz_next(r), fz_below(r, 4));
		break;
	case G_CHECKSUM:
		size = op_size(t);
		vgpu_cmd_checksum(cmd, fz_gpu_addr(t, c, size, 1), size,
				  fz_gpu_addr(t, c, 8, align_of(t, 8)));
		break;
	case G_GATHER: {
		/*
		 * Indices below the bound written first, or whatever is there
		 * (an INDEX error, -EIO).  The elements reachable below the
		 * bound and the packed ones stay out of the verified zone.
		 */
		uint32_t shift = t->safe || fz_chance(r, 95) ? 2 + fz_below(r, 11) :
							       fz_below(r, 16);
		uint32_t bound = 1 + fz_below(r, 4096);
		uint32_t count = 1 + fz_below(r, 16);
		uint64_t elem = 1ull << (shift > 12 ? 12 : shift);

		a = fz_gpu_addr(t, c, count * 4, align_of(t, 4));
		b = fz_gpu_addr(t, c, bound * elem, align_of(t, elem));
		bound = clamp(b, bound * elem) / elem;
		size = fz_gpu_addr(t, c, count * elem, align_of(t, elem));
		count = clamp(size, count * elem) / elem;
		if (bound && count && (t->safe || fz_chance(r, 70))) {
			for (i = 0; i < count; i++)
				data[i] = t->safe || fz_chance(r, 98) ?
					  fz_below(r, bound) : fz_next(r);
			vgpu_cmd_write(cmd, a, data, count);
		}
		if (fz_chance(r, 50))
			vgpu_cmd_gather(cmd, shift, a, count, b, bound,
					fz_chance(r, 80) ? size : 0);
		else
			vgpu_cmd_scatter(cmd, shift, a, count, b, bound, size);
		break;
	}
	case G_TILE: {
		/* Grids are contiguous but for a little padding: clamp them. */
		uint32_t mode = fz_below(r, t->safe ? 2 : 3);
		uint32_t width = VGPU_TOUCH_LINE * (1 + fz_below(r, 8));
		uint32_t across = 1 + fz_below(r, 4), down = 1 + fz_below(r, 4);
		uint32_t height = 1 + fz_below(r, 8);
		uint32_t pitch = across * width + VGPU_TOUCH_LINE * fz_below(r, 3);
		uint32_t radius = mode == VGPU_TILE_STENCIL ? 1 + fz_below(r, 7) : 0;

		size = (uint64_t)down * height * pitch;
		a = fz_gpu_addr(t, c, size, align_of(t, 64));
		if (clamp(a, size) < size) {
			vgpu_cmd_nop(cmd, 1);
			break;
		}
		if (!t->safe && fz_chance(r, 5))
			pitch -= VGPU_TOUCH_LINE;	/* narrower than the tiles */
		if (!t->safe && fz_chance(r, 5))
			radius = fz_below(r, 8);
		vgpu_cmd_tile(cmd, mode << VGPU_TILE_FLAG_MODE_SHIFT |
			      fz_below(r, t->safe ? 3 : 4) << VGPU_TILE_FLAG_ACCESS_SHIFT |
			      (fz_chance(r, 50) ? VGPU_TILE_FLAG_COLUMNS : 0) |
			      radius << VGPU_TILE_FLAG_RADIUS_SHIFT,
			      a, pitch, width, height, across, down, fz_below(r, 3));
		break;
	}
	case G_CALL: {
		uint32_t *p;

		/*
		 * From the ring a CALL is the kernel's; from a user stream it
		 * runs whatever its VA holds (nested in a BO stream: an error).
		 */
		size = fz_chance(r, 90) ? fz_range(r, 1, 64) : fz_interesting32(r);
		a = fz_gpu_addr(t, c, size * 4, 4);
		vgpu_cmd_nop(cmd, VGPU_CALL_LEN);
		p = cmd->error ? NULL : cmd->dw + cmd->len - VGPU_CALL_LEN;
		if (p) {
			p[0] = VGPU_CMD_HEADER(VGPU_OP_CALL, 0, VGPU_CALL_LEN);
			p[1] = (uint32_t)a;
			p[2] = (uint32_t)(a >> 32);
			p[3] = (uint32_t)size;
		}
		(void)in_bo;
		break;
	}
	case G_GARBAGE:
		/* Unknown opcode, or a known one with a wrong length. */
		n = fz_range(r, 1, 8);
		vgpu_cmd_nop(cmd, n);
		if (!cmd->error) {
			uint32_t op = fz_chance(r, 50) ? fz_range(r, VGPU_OP_CALL + 1, 0xff) :
							 fz_below(r, VGPU_OP_CALL + 1);
			uint32_t len = fz_chance(r, 70) ? n : fz_interesting32(r) & 0xffff;

			cmd->dw[cmd->len - n] = VGPU_CMD_HEADER(op, fz_below(r, 256), len);
			for (i = 1; i < n; i++)
				cmd->dw[cmd->len - n + i] = fz_next(r);
		}
		break;
	}
}

/* A random stream of 1 to 16 commands (sometimes up to 128). */
void fz_gen_stream(struct fz_thread *t, struct fz_ctx *c, struct vgpu_cmd *cmd,
		   bool in_bo)
{
	struct fz_rng *r = &t->rng;
	unsigned int n = fz_chance(r, 95) ? fz_range(r, 1, 16) : fz_range(r, 17, 128);
	bool safe = fz_chance(r, 50);
	unsigned int i;

	vgpu_cmd_reset(cmd);
	/* Half the streams stay in read-write mappings: seldom a fault. */
	t->safe = safe;
	for (i = 0; i < n; i++)
		gen_one(t, c, cmd, in_bo);
	t->safe = false;
	if (cmd->error || !cmd->len || safe)
		return;
	/* A flipped bit anywhere, or a last command cut short. */
	if (fz_chance(r, 3))
		cmd->dw[fz_below(r, cmd->len)] ^= 1u << fz_below(r, 32);
	if (fz_chance(r, 2) && cmd->len > 1)
		cmd->len--;
}
