// SPDX-License-Identifier: MIT
/*
 * stencil - an iterative stencil on managed memory larger than VRAM.
 *
 *   vgpu-example-stencil [MIB] (default: both grids together 1.5x VRAM)
 *
 * A one-dimensional upwind advection with a source term, on a grid of
 * 64-bit values, one per 64-byte line (example.h):
 *
 *	y[0] = 1,  y[i] = x[i - 1] + 1  (i >= 1);  then swap x and y
 *
 * One job per iteration: the GPU copies x shifted by one cell into y,
 * fills the inflow cell with 0 and adds 1 to every cell with a
 * sequential RMW pass.  After T iterations x[i] = i + 1 for i < T and
 * x0[i - T] + T beyond.  Both grids are managed memory (one pointer on
 * CPU and GPU) and do not fit in VRAM together: every iteration streams
 * them through it.  The first cells of x are prefetched into VRAM before
 * the first iteration.  Exits 0 when every cell is right, 1 otherwise,
 * 2 on an error.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include "example.h"

static const char prog[] = "stencil";

#define ITERATIONS 6

int main(int argc, char **argv)
{
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	uint64_t size, i, t, wrong = 0, moved0, moved;
	void *x, *y, *tmp;
	int ret;

	size = ex_setup(prog, &dev, argc, argv, &x, &y);
	ret = vgpu_mem_prefetch(&dev, x, 4 * EX_MiB, VGPU_MEM_LOC_GPU, NULL);
	if (ret)
		ex_die(prog, "vgpu_mem_prefetch", ret);
	moved0 = ex_to_vram(&dev);

	vgpu_cmd_init(&cmd);
	for (t = 0; t < ITERATIONS; t++) {
		vgpu_cmd_copy(&cmd, (uintptr_t)x, (uintptr_t)y + EX_LINE,
			      size - EX_LINE);
		vgpu_cmd_fill(&cmd, (uintptr_t)y, EX_LINE, 0);
		vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW,
			       (uintptr_t)y, size, 0, 0, 0, 1);
		ex_run(prog, &dev, &cmd);
		tmp = x;
		x = y;
		y = tmp;
	}
	vgpu_cmd_fini(&cmd);
	moved = ex_to_vram(&dev) - moved0;

	/* x0[i] was ex_hash(i): the check needs no copy of it. */
	for (i = 0; i < size / EX_LINE; i++)
		ex_check(prog, &wrong, i, *ex_elem(x, i),
			 i < ITERATIONS ? i + 1 : ex_hash(i - ITERATIONS) + ITERATIONS);
	return ex_finish(prog, &dev, "y[i] = x[i - 1] + 1, 6 iterations,", size, moved,
			 wrong, x, y);
}
