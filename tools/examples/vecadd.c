// SPDX-License-Identifier: MIT
/*
 * vecadd - a vector add on managed memory larger than VRAM.
 *
 *   vgpu-example-vecadd [MIB]	(default: both vectors together 1.5x VRAM)
 *
 * c = a + b for vectors of 64-bit values, one per 64-byte line
 * (example.h): the CPU writes a; the GPU copies a into c and adds b with
 * four strided RMW passes over c, of strides 1, 2, 4 and 8 elements, so
 * that b[i] = 1 + (i % 2 == 0) + (i % 4 == 0) + (i % 8 == 0).  a and c
 * are one pointer each (vgpu_malloc_managed()), used as they are by the
 * CPU and in the GPU's commands; together they do not fit in VRAM, so
 * the chunks move in and out while the passes run.  a is advised
 * read-mostly; c is prefetched back to the CPU before the check.  Exits
 * 0 when every element is right, 1 otherwise, 2 on an error.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include "example.h"

static const char prog[] = "vecadd";

#define PASSES 4

static uint64_t b_of(uint64_t i)
{
	uint64_t b = 0, k;

	for (k = 0; k < PASSES; k++)
		b += i % (1ull << k) == 0;
	return b;
}

int main(int argc, char **argv)
{
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	uint64_t size, i, k, wrong = 0, moved0, moved;
	void *a, *c;
	int ret;

	size = ex_setup(prog, &dev, argc, argv, &a, &c);
	ret = vgpu_mem_advise(&dev, a, size, VGPU_MEM_ADVISE_SET_READ_MOSTLY, 0);
	if (ret)
		ex_die(prog, "vgpu_mem_advise", ret);
	moved0 = ex_to_vram(&dev);

	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, (uintptr_t)a, (uintptr_t)c, size);
	for (k = 0; k < PASSES; k++)
		vgpu_cmd_touch(&cmd, VGPU_TOUCH_STRIDED, VGPU_TOUCH_RMW,
			       (uintptr_t)c, size, EX_LINE << k, 0, 0, 1);
	ex_run(prog, &dev, &cmd);
	vgpu_cmd_fini(&cmd);
	moved = ex_to_vram(&dev) - moved0;

	ret = vgpu_mem_prefetch(&dev, c, size, VGPU_MEM_LOC_CPU, NULL);
	if (ret)
		ex_die(prog, "vgpu_mem_prefetch", ret);
	for (i = 0; i < size / EX_LINE; i++) {
		ex_check(prog, &wrong, i, *ex_elem(c, i), ex_hash(i) + b_of(i));
		ex_check(prog, &wrong, i, *ex_elem(a, i), ex_hash(i));
	}
	return ex_finish(prog, &dev, "c = a + b", size, moved, wrong, a, c);
}
