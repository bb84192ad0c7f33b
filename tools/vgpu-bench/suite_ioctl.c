// SPDX-License-Identifier: MIT
/*
 * Suite "ioctl": the cost of a round trip into the driver, the floor under
 * every other number vgpu-bench reports.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "bench.h"
#include "vgpu_drm.h"

static const struct report_col cols[] = {
	{ "ioctl", REPORT_STR, 0 },
	{ "calls", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 4 },
	{ "ns_per_call", REPORT_F64, 0 },
};

static struct report *run(const struct bench_opts *o)
{
	struct report *r = report_new("ioctl round trips", cols, 4);
	uint64_t i, n = o->quick ? 20000 : 200000;
	double t0, t;

	if (!r)
		return NULL;
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		struct drm_vgpu_get_param gp = {
			.param = DRM_VGPU_PARAM_VRAM_SIZE,
		};

		if (ioctl(o->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp)) {
			report_free(r);
			return NULL;
		}
	}
	t = bench_now() - t0;
	if (report_row(r, "GET_PARAM", n, t, t / n * 1e9)) {
		report_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

const struct bench_suite bench_suite_ioctl = {
	.name = "ioctl",
	.desc = "driver round-trip cost (GET_PARAM)",
	.run = run,
};
