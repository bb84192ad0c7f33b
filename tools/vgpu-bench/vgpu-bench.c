// SPDX-License-Identifier: MIT
/*
 * vgpu-bench - benchmarks of vgpu memory management, run in the guest.
 *
 * Usage: vgpu-bench [--quick] [--csv DIR] [--vram-base SIZE] [--list] [SUITE...]
 *        vgpu-bench [--csv DIR] replay FILE
 *        vgpu-bench gen-trace KIND [OPTION...]
 *
 * Each suite prints a table; with --csv, DIR/<suite>.csv gets the same
 * table with a header row.  No suite named: all of them.  Device counters
 * are reported beside times by the suites that drive the device.  replay
 * runs a trace file (replay.c) and reports as a suite does (replay.csv);
 * gen-trace writes a generated trace to stdout (gen_trace.c).  With
 * --vram-base SIZE (K, M or G suffixes) the sweep suites (bfs, gemm) take
 * their footprints as percentages of SIZE instead of the device's VRAM:
 * on a device larger than SIZE they run the same problems as a SIZE
 * device's sweep, fitting, and make bench sets the two side by side.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xf86drm.h>

#include "bench.h"
#include "vgpu_drm.h"

static const struct bench_suite *const suites[] = {
	&bench_suite_ioctl,
	&bench_suite_oversub,
	&bench_suite_batching,
	&bench_suite_migrate,
	&bench_suite_mixed,
	&bench_suite_alloc,
	&bench_suite_bfs,
	&bench_suite_gemm,
	&bench_suite_scale,
};

#define NR_SUITES (sizeof(suites) / sizeof(suites[0]))

static int open_vgpu(void)
{
	drmDevicePtr devs[16];
	int n, i, fd = -1;

	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n && fd < 0; i++) {
		drmVersionPtr v;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		fd = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (!v || strcmp(v->name, "vgpu")) {
			close(fd);
			fd = -1;
		}
		drmFreeVersion(v);
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	return fd;
}

/* A number with an optional K, M or G suffix (powers of 1024). */
int bench_parse_size(const char *s, uint64_t *v)
{
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || *v > UINT64_MAX >> shift)
		return -EINVAL;
	*v <<= shift;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vgpu-bench [--quick] [--csv DIR] [--vram-base SIZE] [--list] [SUITE...]\n"
		"       vgpu-bench [--csv DIR] replay FILE\n"
		"       vgpu-bench gen-trace bfs|gemm|train [OPTION...] (--help)\n");
}

/* Print report @r of suite @name, and write it to CSV_DIR/@name.csv. */
static int emit(const char *name, struct report *r, const char *csv_dir)
{
	char path[4096];
	FILE *f;

	if (!r) {
		fprintf(stderr, "vgpu-bench: %s failed: %s\n", name, strerror(errno));
		return 1;
	}
	report_print(r, stdout);
	if (csv_dir) {
		snprintf(path, sizeof(path), "%s/%s.csv", csv_dir, name);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "vgpu-bench: %s: %s\n", path,
				strerror(errno));
			report_free(r);
			return 1;
		}
		report_csv(r, f);
		if (fclose(f)) {
			fprintf(stderr, "vgpu-bench: %s: %s\n", path,
				strerror(errno));
			report_free(r);
			return 1;
		}
	}
	report_free(r);
	return 0;
}

static int run_suite(const struct bench_suite *s, const struct bench_opts *o,
		     const char *csv_dir)
{
	return emit(s->name, s->run(o), csv_dir);
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .fd = -1 };
	struct drm_vgpu_get_param gp = { .param = DRM_VGPU_PARAM_VRAM_SIZE };
	const char *csv_dir = NULL, *trace = NULL;
	int i, failed = 0, named = 0;
	size_t k;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--quick")) {
			o.quick = true;
		} else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
			csv_dir = argv[++i];
		} else if (!strcmp(argv[i], "--vram-base") && i + 1 < argc) {
			if (bench_parse_size(argv[++i], &o.vram_base) ||
			    !o.vram_base) {
				fprintf(stderr, "vgpu-bench: bad --vram-base '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--list")) {
			for (k = 0; k < NR_SUITES; k++)
				printf("%-10s %s\n", suites[k]->name,
				       suites[k]->desc);
			return 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i < argc && !strcmp(argv[i], "gen-trace"))
		return bench_gen_trace(argc - i, argv + i);
	if (i < argc && !strcmp(argv[i], "replay")) {
		if (argc - i != 2) {
			usage(stderr);
			return 2;
		}
		trace = argv[i + 1];
		i = argc;
	}
	for (; i < argc; i++, named++) {
		for (k = 0; k < NR_SUITES; k++)
			if (!strcmp(argv[i], suites[k]->name))
				break;
		if (k == NR_SUITES) {
			fprintf(stderr, "vgpu-bench: unknown suite '%s' (--list)\n",
				argv[i]);
			return 2;
		}
	}

	o.fd = open_vgpu();
	if (o.fd < 0) {
		fprintf(stderr, "vgpu-bench: no vgpu device\n");
		return 1;
	}
	if (ioctl(o.fd, DRM_IOCTL_VGPU_GET_PARAM, &gp)) {
		fprintf(stderr, "vgpu-bench: GET_PARAM: %s\n", strerror(errno));
		return 1;
	}
	o.vram_size = gp.value;

	if (trace) {
		failed = emit("replay", bench_replay(&o, trace), csv_dir);
		close(o.fd);
		return failed;
	}
	for (k = 0; k < NR_SUITES; k++) {
		bool wanted = !named;

		for (i = argc - named; i < argc; i++)
			if (!strcmp(argv[i], suites[k]->name))
				wanted = true;
		if (wanted)
			failed += run_suite(suites[k], &o, csv_dir);
	}
	close(o.fd);
	return failed ? 1 : 0;
}
