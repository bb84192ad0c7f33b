// SPDX-License-Identifier: MIT
/*
 * vgpu-oversub - a small VRAM oversubscription workload for `make demo`.
 *
 * Usage: vgpu-oversub [-p PCT] [-n PASSES] [-b MIB] [-P sequential|scan]
 *                     [--header] [--hold SECONDS]
 *
 * Allocates PCT percent of VRAM in BOs of MIB MiB (VRAM placement; TTM
 * evicts to system memory when VRAM is full), then touches them with the
 * device's TOUCH command, PASSES times:
 *
 *  - sequential: every BO in turn, a cyclic sweep (LRU's worst case once
 *    the working set exceeds VRAM);
 *  - scan: a hot set of half of VRAM and a streaming scan over the other
 *    BOs, interleaved: one hot BO (in turn), one scan BO, and so on.
 *
 * Each touch maps the BO, runs TOUCH (read-modify-write of every 64-byte
 * line) and unmaps it.  Prints one CSV row with the columns of vgpu-bench's
 * oversub suite (pattern, policy, prefetch, oversub_pct, seconds, faults,
 * fault_batches, bytes_migrated, vram_hit_ratio), read from the driver's
 * sysfs counters: run it alone on the device.  The VRAM hit ratio is the
 * share of touched bytes that did not have to be moved into VRAM first.
 *
 * With --hold, keeps the BOs for that many seconds after the run, so a
 * tool can look at the process.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "libvgpu.h"

static char sysdir[PATH_MAX];

static uint64_t sysfs_u64(const char *name)
{
	char path[PATH_MAX + 64], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysdir, name);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	return strtoull(buf, NULL, 10);
}

static void sysfs_str(const char *name, char *out, size_t size)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysdir, name);
	f = fopen(path, "re");
	if (!f || !fgets(out, size, f))
		snprintf(out, size, "unknown");
	if (f)
		fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int touch(struct vgpu_dev *dev, uint32_t bo, uint64_t size)
{
	struct vgpu_cmd cmd;
	int ret;

	ret = vgpu_vm_map(dev, bo, 0, dev->va_start, size, VGPU_MAP_RW);
	if (ret)
		return ret;
	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW, dev->va_start,
		       size, 0, 0, 0, 1);
	ret = vgpu_run(dev, 0, &cmd, 60ll * 1000 * 1000 * 1000);
	vgpu_cmd_fini(&cmd);
	vgpu_vm_unmap(dev, dev->va_start, size);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vgpu-oversub [-p PCT] [-n PASSES] [-b MIB] "
		"[-P sequential|scan] [--header] [--hold SECONDS]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "header", no_argument, NULL, 'H' },
		{ "hold", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int pct = 200, passes = 2, bo_mib = 4, hold = 0;
	const char *pattern = "sequential";
	uint64_t bo_size, to_vram0, to_sys0, faults0, touched = 0, to_vram, moved;
	struct vgpu_dev dev;
	struct stat st;
	char policy[64];
	uint32_t *bos;
	unsigned int nbo, hot = 0, i, p, c;
	bool header = false;
	double t0, secs;
	int ret;

	while ((c = getopt_long(argc, argv, "p:n:b:P:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': pct = strtoul(optarg, NULL, 0); break;
		case 'n': passes = strtoul(optarg, NULL, 0); break;
		case 'b': bo_mib = strtoul(optarg, NULL, 0); break;
		case 'P': pattern = optarg; break;
		case 'H': header = true; break;
		case 'w': hold = strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!pct || !passes || !bo_mib ||
	    (strcmp(pattern, "sequential") && strcmp(pattern, "scan"))) {
		usage(stderr);
		return 2;
	}

	ret = vgpu_open(&dev);
	if (ret) {
		fprintf(stderr, "vgpu-oversub: no vgpu device: %s\n", strerror(-ret));
		return 1;
	}
	if (fstat(dev.fd, &st)) {
		perror("vgpu-oversub: fstat");
		return 1;
	}
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));

	bo_size = (uint64_t)bo_mib << 20;
	nbo = (dev.vram_size * pct / 100 + bo_size - 1) / bo_size;
	if (!nbo)
		nbo = 1;
	bos = calloc(nbo, sizeof(*bos));
	if (!bos)
		return 1;
	for (i = 0; i < nbo; i++) {
		ret = vgpu_bo_create(&dev, bo_size, VGPU_PLACE_VRAM, 0, &bos[i]);
		if (ret) {
			fprintf(stderr, "vgpu-oversub: BO %u of %u: %s\n", i, nbo,
				strerror(-ret));
			return 1;
		}
	}
	if (!strcmp(pattern, "scan")) {
		hot = dev.vram_size / 2 / bo_size;
		if (hot >= nbo)
			hot = nbo - 1;
	}

	sysfs_str("eviction_policy", policy, sizeof(policy));
	to_vram0 = sysfs_u64("counters/bytes_to_vram");
	to_sys0 = sysfs_u64("counters/bytes_to_system");
	faults0 = sysfs_u64("counters/faults_handled");
	t0 = now();
	for (p = 0; p < passes; p++) {
		for (i = hot; i < nbo; i++) {
			if (hot) {
				ret = touch(&dev, bos[i % hot], bo_size);
				if (ret)
					goto fail;
				touched += bo_size;
			}
			ret = touch(&dev, bos[i], bo_size);
			if (ret)
				goto fail;
			touched += bo_size;
		}
	}
	secs = now() - t0;
	to_vram = sysfs_u64("counters/bytes_to_vram") - to_vram0;
	moved = to_vram + sysfs_u64("counters/bytes_to_system") - to_sys0;

	if (header)
		printf("pattern,policy,prefetch,oversub_pct,seconds,faults,"
		       "fault_batches,bytes_migrated,vram_hit_ratio\n");
	printf("%s,%s,off,%u,%.3f,%" PRIu64 ",0,%" PRIu64 ",%.4f\n", pattern,
	       policy, pct, secs, sysfs_u64("counters/faults_handled") - faults0,
	       moved, touched ? 1.0 - (double)(to_vram < touched ? to_vram : touched) / touched : 1.0);
	fflush(stdout);
	if (hold)
		sleep(hold);
	vgpu_close(&dev);
	free(bos);
	return 0;

fail:
	fprintf(stderr, "vgpu-oversub: touch failed: %s\n", strerror(-ret));
	vgpu_close(&dev);
	free(bos);
	return 1;
}
