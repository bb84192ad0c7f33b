// SPDX-License-Identifier: MIT
/*
 * Suite "gemm": the memory traffic of a tiled matrix multiplication C =
 * A x B over three n x n matrices of 32-bit floats in demand-paged
 * memory (hardware.rst "Access kernels", TILE).
 *
 * Tiles are 256 x 256 elements (1 KiB x 256 rows).  For each tile (i, j)
 * of C, in row-major order, the GPU reads the row strip i of A (a TILE
 * across), the column strip j of B (a TILE down, in column order), then
 * reads and writes the C tile: the reuse pattern of a blocked GEMM, in
 * which A's strip stays hot for a row of C tiles and all of B streams
 * by once per row.  One job per row of C tiles.  n is the largest
 * multiple of 256 whose three matrices fit the footprint.  An access is
 * one 64-byte line.  Columns: bench_sweep.c.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include "bench_sweep.h"

#define T	256u			/* tile: T x T elements of 4 bytes */
#define TW	(T * 4)			/* tile width in bytes */
#define LINES	(T * TW / 64)		/* lines per tile */

/* The largest multiple of T (at least T) whose matrices fit @bytes. */
static uint64_t gemm_n(uint64_t bytes)
{
	uint64_t n = T;

	while (3 * (n + T) * (n + T) * 4 <= bytes)
		n += T;
	return n;
}

static uint64_t gemm_size(uint64_t bytes)
{
	uint64_t n = gemm_n(bytes);

	return (3 * n * n * 4 + 2 * BENCH_MIB - 1) & ~(2 * BENCH_MIB - 1);
}

static int gemm(struct vgpu_dev *dev, const struct bench_pbo *pbo,
		const struct bench_opts *o, uint64_t *accesses)
{
	const uint32_t read = VGPU_TOUCH_READ << VGPU_TILE_FLAG_ACCESS_SHIFT;
	const uint32_t rmw = VGPU_TOUCH_RMW << VGPU_TILE_FLAG_ACCESS_SHIFT;
	uint64_t n = gemm_n(pbo->size), tiles = n / T, pitch, a, b, c, i, j;
	struct vgpu_cmd cmd;
	int ret = 0;

	(void)o;
	pitch = n * 4;
	a = pbo->va;
	b = a + n * pitch;
	c = b + n * pitch;
	vgpu_cmd_init(&cmd);
	for (i = 0; i < tiles && !ret; i++) {
		vgpu_cmd_reset(&cmd);
		for (j = 0; j < tiles; j++) {
			vgpu_cmd_tile(&cmd, VGPU_TILE_BLOCK | read, a + i * T * pitch,
				      pitch, TW, T, tiles, 1, 1);
			vgpu_cmd_tile(&cmd, VGPU_TILE_BLOCK | read | VGPU_TILE_FLAG_COLUMNS,
				      b + j * TW, pitch, TW, T, 1, tiles, 1);
			vgpu_cmd_tile(&cmd, VGPU_TILE_BLOCK | rmw,
				      c + i * T * pitch + j * TW, pitch, TW, T, 1, 1, 1);
			*accesses += (2 * tiles + 1) * LINES;
		}
		ret = bench_run_cmd(dev, &cmd);
	}
	vgpu_cmd_fini(&cmd);
	return ret;
}

static struct report *run(const struct bench_opts *o)
{
	return bench_sweep(o, "tiled GEMM (TILE)", gemm_size, gemm);
}

const struct bench_suite bench_suite_gemm = {
	.name = "gemm",
	.desc = "tiled-GEMM TILE traffic over three matrices, 50..200% of VRAM",
	.run = run,
};
