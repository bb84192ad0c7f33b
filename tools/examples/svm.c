// SPDX-License-Identifier: MIT
/*
 * svm - the GPU computes on malloc'd memory in place.
 *
 *   vgpu-example-svm [MIB]	(default: as much as VRAM)
 *
 * An ordinary heap buffer, never handed to the kernel as a BO, is
 * mirrored into the GPU's address space at its own address
 * (vgpu_vm_mirror(), a CPU-address mirror, svm.rst).  The CPU writes x;
 * the GPU copies x into y and adds one to the first word of every 64-byte
 * line of y (a strided RMW pass), through the same pointers the CPU uses;
 * the CPU then checks y against x + 1 and that x is untouched.  Exits 0
 * when every element is right, 1 otherwise, 2 on an error.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvgpu.h"

#define LINE	64

static void die(const char *what, int err)
{
	fprintf(stderr, "svm: %s: %s\n", what, strerror(-err));
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t vram = 0, size, i, wrong = 0, *x, *y;
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	int ret;

	ret = vgpu_open(&dev);
	if (ret)
		die("vgpu_open", ret);
	if (!(vgpu_svm_mode(&dev) & DRM_VGPU_SVM_MIRROR))
		die("this kernel cannot mirror process memory", -EOPNOTSUPP);
	ret = vgpu_get_param(&dev, DRM_VGPU_PARAM_VRAM_SIZE, &vram);
	if (ret)
		die("GET_PARAM VRAM_SIZE", ret);
	size = argc > 1 ? strtoull(argv[1], NULL, 0) << 20 : vram;
	if (!size || size % 4096)
		die("size", -EINVAL);

	/* Plain heap memory, x and y side by side. */
	x = aligned_alloc(4096, 2 * size);
	if (!x)
		die("aligned_alloc", -ENOMEM);
	y = x + size / 8;
	for (i = 0; i < size / 8; i++)
		x[i] = i * 0x9e3779b97f4a7c15ull;
	ret = vgpu_vm_mirror(&dev, x, 2 * size, VGPU_MAP_RW);
	if (ret)
		die("vgpu_vm_mirror", ret);

	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, (uintptr_t)x, (uintptr_t)y, size);
	vgpu_cmd_touch(&cmd, VGPU_TOUCH_STRIDED, VGPU_TOUCH_RMW, (uintptr_t)y,
		       size, LINE, 0, 0, 1);
	ret = vgpu_run(&dev, 0, &cmd, 600ll * 1000000000ll);
	vgpu_cmd_fini(&cmd);
	if (ret)
		die("the GPU job", ret);

	for (i = 0; i < size / 8; i++) {
		uint64_t want = x[i] + (i % (LINE / 8) == 0);

		wrong += y[i] != want || x[i] != i * 0x9e3779b97f4a7c15ull;
	}
	printf("svm: the GPU copied and incremented %" PRIu64 " MiB of malloc'd memory"
	       " at its own address (%.1fx VRAM, %s), %" PRIu64 " wrong: %s\n",
	       size >> 20, vram ? (double)size / vram : 0.0,
	       vgpu_svm_mode(&dev) & DRM_VGPU_SVM_VRAM ?
	       "migrating into VRAM" : "mirrored in system memory",
	       wrong, wrong ? "FAILED" : "ok");
	vgpu_vm_unmap(&dev, (uintptr_t)x, 2 * size);
	free(x);
	vgpu_close(&dev);
	return wrong ? 1 : 0;
}
