// SPDX-License-Identifier: MIT
/*
 * libvgpu: device command builders, one per command of vgpu_hw.h.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libvgpu.h"

void vgpu_cmd_init(struct vgpu_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
}

void vgpu_cmd_fini(struct vgpu_cmd *cmd)
{
	free(cmd->dw);
	memset(cmd, 0, sizeof(*cmd));
}

void vgpu_cmd_reset(struct vgpu_cmd *cmd)
{
	cmd->len = 0;
	cmd->error = 0;
}

/* Reserve @n dwords; NULL (and cmd->error set) when out of memory. */
static uint32_t *cmd_emit(struct vgpu_cmd *cmd, size_t n)
{
	uint32_t *p;

	if (cmd->error)
		return NULL;
	if (cmd->len + n > cmd->cap) {
		size_t cap = cmd->cap ? cmd->cap * 2 : 256;
		uint32_t *dw;

		while (cap < cmd->len + n)
			cap *= 2;
		dw = realloc(cmd->dw, cap * sizeof(*dw));
		if (!dw) {
			cmd->error = -ENOMEM;
			return NULL;
		}
		cmd->dw = dw;
		cmd->cap = cap;
	}
	p = cmd->dw + cmd->len;
	cmd->len += n;
	return p;
}

/*
 * Reserve a @len-dword command and write its header; returns where the
 * arguments go, or NULL (and cmd->error set) when out of memory.
 */
static uint32_t *cmd_begin(struct vgpu_cmd *cmd, uint32_t op, uint32_t flags,
			   uint32_t len)
{
	uint32_t *p = cmd_emit(cmd, len);

	if (!p)
		return NULL;
	*p = VGPU_CMD_HEADER(op, flags, len);
	return p + 1;
}

static uint32_t *put64(uint32_t *p, uint64_t v)
{
	p[0] = (uint32_t)v;
	p[1] = (uint32_t)(v >> 32);
	return p + 2;
}

void vgpu_cmd_nop(struct vgpu_cmd *cmd, uint32_t len)
{
	uint32_t *p = cmd_emit(cmd, len ? len : 1);

	if (!p)
		return;
	memset(p, 0, (len ? len : 1) * sizeof(*p));
	p[0] = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, len ? len : 1);
}

void vgpu_cmd_copy(struct vgpu_cmd *cmd, uint64_t src, uint64_t dst, uint64_t size)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_COPY, 0, VGPU_COPY_LEN);

	if (!p)
		return;
	p = put64(p, src);
	p = put64(p, dst);
	put64(p, size);
}

void vgpu_cmd_fill(struct vgpu_cmd *cmd, uint64_t dst, uint64_t size, uint32_t value)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_FILL, 0, VGPU_FILL_LEN);

	if (!p)
		return;
	p = put64(p, dst);
	p = put64(p, size);
	*p = value;
}

void vgpu_cmd_write(struct vgpu_cmd *cmd, uint64_t dst, const uint32_t *data, uint32_t n)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_WRITE, 0, 3 + n);

	if (!p)
		return;
	p = put64(p, dst);
	memcpy(p, data, n * sizeof(*data));
}

void vgpu_cmd_fence(struct vgpu_cmd *cmd, uint64_t dst, uint64_t value)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_FENCE, 0, VGPU_FENCE_LEN);

	if (!p)
		return;
	p = put64(p, dst);
	put64(p, value);
}

void vgpu_cmd_wait(struct vgpu_cmd *cmd, uint64_t addr, uint64_t value)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_WAIT, 0, VGPU_WAIT_LEN);

	if (!p)
		return;
	p = put64(p, addr);
	put64(p, value);
}

void vgpu_cmd_timestamp(struct vgpu_cmd *cmd, uint64_t dst)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_TIMESTAMP, 0, VGPU_TIMESTAMP_LEN);

	if (!p)
		return;
	put64(p, dst);
}

void vgpu_cmd_compute(struct vgpu_cmd *cmd, uint32_t ns)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_COMPUTE, 0, VGPU_COMPUTE_LEN);

	if (!p)
		return;
	p[0] = ns;
}

void vgpu_cmd_touch_lanes(struct vgpu_cmd *cmd, uint32_t lanes, uint32_t pattern,
			  uint32_t access, uint64_t va, uint64_t size, uint32_t stride,
			  uint32_t count, uint32_t seed, uint32_t repeat)
{
	uint32_t flags = (pattern << VGPU_TOUCH_FLAG_PATTERN_SHIFT) |
			 (access << VGPU_TOUCH_FLAG_ACCESS_SHIFT);
	uint32_t *p, k = 0;

	/* The field holds log2(lanes) + 1: round down to a power of two. */
	if (lanes) {
		while (k <= VGPU_TOUCH_LANES_LOG2_MAX && (2u << k) <= lanes)
			k++;
		flags |= (k + 1) << VGPU_TOUCH_FLAG_LANES_SHIFT;
	}
	p = cmd_begin(cmd, VGPU_OP_TOUCH, flags, VGPU_TOUCH_LEN);
	if (!p)
		return;
	p = put64(p, va);
	p = put64(p, size);
	*p++ = stride;
	*p++ = count;
	*p++ = seed;
	*p = repeat;
}

void vgpu_cmd_touch(struct vgpu_cmd *cmd, uint32_t pattern, uint32_t access,
		    uint64_t va, uint64_t size, uint32_t stride, uint32_t count,
		    uint32_t seed, uint32_t repeat)
{
	vgpu_cmd_touch_lanes(cmd, 0, pattern, access, va, size, stride, count, seed,
			     repeat);
}

/* GATHER and SCATTER share one encoding (vgpu_hw.h). */
static void cmd_gather(struct vgpu_cmd *cmd, uint32_t op, uint32_t flags,
		       uint64_t index, uint32_t count, uint64_t base,
		       uint32_t bound, uint64_t packed)
{
	uint32_t *p = cmd_begin(cmd, op, flags, VGPU_GATHER_LEN);

	if (!p)
		return;
	p = put64(p, index);
	p = put64(p, base);
	*p++ = count;
	*p++ = bound;
	put64(p, packed);
}

void vgpu_cmd_gather(struct vgpu_cmd *cmd, uint32_t elem_shift, uint64_t index,
		     uint32_t count, uint64_t base, uint32_t bound, uint64_t dst)
{
	uint32_t flags = elem_shift << VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT;

	if (!dst)
		flags |= VGPU_GATHER_FLAG_NODST;
	cmd_gather(cmd, VGPU_OP_GATHER, flags, index, count, base, bound, dst);
}

void vgpu_cmd_scatter(struct vgpu_cmd *cmd, uint32_t elem_shift, uint64_t index,
		      uint32_t count, uint64_t base, uint32_t bound, uint64_t src)
{
	cmd_gather(cmd, VGPU_OP_SCATTER,
		   elem_shift << VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT, index, count,
		   base, bound, src);
}

void vgpu_cmd_tile(struct vgpu_cmd *cmd, uint32_t flags, uint64_t va,
		   uint32_t pitch, uint32_t width, uint32_t height,
		   uint32_t across, uint32_t down, uint32_t repeat)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_TILE, flags, VGPU_TILE_LEN);

	if (!p)
		return;
	p = put64(p, va);
	*p++ = pitch;
	*p++ = width;
	*p++ = height;
	*p++ = across;
	*p++ = down;
	*p = repeat;
}

void vgpu_cmd_checksum(struct vgpu_cmd *cmd, uint64_t src, uint64_t size, uint64_t dst)
{
	uint32_t *p = cmd_begin(cmd, VGPU_OP_CHECKSUM, 0, VGPU_CHECKSUM_LEN);

	if (!p)
		return;
	p = put64(p, src);
	p = put64(p, size);
	put64(p, dst);
}

uint64_t vgpu_fnv1a64(const void *data, size_t size)
{
	const unsigned char *b = data;
	uint64_t h = VGPU_FNV64_OFFSET;
	size_t i;

	for (i = 0; i < size; i++) {
		h ^= b[i];
		h *= VGPU_FNV64_PRIME;
	}
	return h;
}
