// SPDX-License-Identifier: MIT
/*
 * vgpu-hold - hold VRAM for a while, so tools that watch a process
 * (fdinfo, vgpu-smi) have one to watch.
 *
 * Usage: vgpu-hold BYTES SECONDS [NS...]
 *
 * Creates one VRAM buffer object of BYTES (resident from creation: the
 * driver clears it there), runs for each NS given a job of NS modeled
 * nanoseconds (COMPUTE) on exec queue 0, 1, ... in turn, so that the
 * client has modeled time on those queues, prints "holding BYTES", sleeps
 * SECONDS and exits 0; any failure exits 1 with the reason.  No CPU mapping, so it
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

/* A job of @arg modeled ns on exec queue @q: 0, 1 (failed) or 2 (usage). */
static int compute(struct vgpu_dev *dev, int q, const char *arg)
{
	struct vgpu_cmd cmd;
	unsigned long ns;
	char *end;
	int ret;

	errno = 0;
	ns = strtoul(arg, &end, 0);
	if (errno || *end || !*arg || ns > UINT32_MAX) {
		fprintf(stderr, "vgpu-hold: bad time '%s' (ns, below 2^32)\n", arg);
		return 2;
	}
	if ((uint32_t)q >= dev->exec_queues) {
		fprintf(stderr, "vgpu-hold: the device has %u exec queues\n",
			dev->exec_queues);
		return 2;
	}
	vgpu_cmd_init(&cmd);
	vgpu_cmd_compute(&cmd, (uint32_t)ns);
	ret = vgpu_run(dev, (uint32_t)q, &cmd, 60ll * 1000 * 1000 * 1000);
	vgpu_cmd_fini(&cmd);
	if (ret) {
		fprintf(stderr, "vgpu-hold: COMPUTE on queue %d: %s\n", q,
			strerror(-ret));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t size;
	struct vgpu_dev dev;
	unsigned int secs;
	uint32_t handle;
	int q;
	char *end;
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: vgpu-hold BYTES SECONDS [NS...]\n");
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
	for (q = 0; q + 3 < argc; q++) {
		ret = compute(&dev, q, argv[q + 3]);
		if (ret) {
			vgpu_bo_close(&dev, handle);
			vgpu_close(&dev);
			return ret;
		}
	}
	printf("holding %" PRIu64 "\n", size);
	fflush(stdout);
	sleep(secs);
	vgpu_bo_close(&dev, handle);
	vgpu_close(&dev);
	return 0;
}
