// SPDX-License-Identifier: MIT
/*
 * vgpu-hold - hold VRAM for a while, so tools that watch a process
 * (fdinfo, vgpu-smi) have one to watch.
 *
 * Usage: vgpu-hold BYTES SECONDS
 *
 * Creates one VRAM buffer object of BYTES (resident from creation: the
 * driver clears it there), prints "holding BYTES", sleeps SECONDS and
 * exits 0; any failure exits 1 with the reason.  No CPU mapping, so it
 * works for BOs larger than a small-BAR device's CPU window.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvgpu.h"

int main(int argc, char **argv)
{
	uint64_t size;
	struct vgpu_dev dev;
	unsigned int secs;
	uint32_t handle;
	char *end;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: vgpu-hold BYTES SECONDS\n");
		return 2;
	}
	errno = 0;
	size = strtoull(argv[1], &end, 0);
	if (errno || *end || !size) {
		fprintf(stderr, "vgpu-hold: bad size '%s'\n", argv[1]);
		return 2;
	}
	secs = (unsigned int)strtoul(argv[2], &end, 0);
	if (*end) {
		fprintf(stderr, "vgpu-hold: bad time '%s'\n", argv[2]);
		return 2;
	}

	ret = vgpu_open(&dev);
	if (ret) {
		fprintf(stderr, "vgpu-hold: no vgpu device: %s\n", strerror(-ret));
		return 1;
	}
	ret = vgpu_bo_create(&dev, size, DRM_VGPU_PLACE_VRAM, 0, &handle);
	if (ret) {
		fprintf(stderr, "vgpu-hold: %" PRIu64 " bytes of VRAM: %s\n",
			size, strerror(-ret));
		vgpu_close(&dev);
		return 1;
	}
	printf("holding %" PRIu64 "\n", size);
	fflush(stdout);
	sleep(secs);
	vgpu_bo_close(&dev, handle);
	vgpu_close(&dev);
	return 0;
}
