// SPDX-License-Identifier: MIT
/*
 * The footprint sweep of the workload suites (bench_sweep.h).
 *
 * Columns: the footprint (percent of VRAM, or of --vram-base, and MiB),
 * the device accesses
 * the run made, wall seconds, modeled seconds (hardware.rst "Cost
 * model", the VM's modeled time, its fault stalls included), modeled ns
 * per access and that against the fitting run (vs_fit: what
 * oversubscription costs per access), and the paging counters of the
 * VM: faults, bytes migrated into VRAM, evictions, thrashing events,
 * chunks mapped remote.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>

#include "bench_sweep.h"

static const struct report_col cols[] = {
	{ "footprint_pct", REPORT_U64, 0 },
	{ "footprint_mib", REPORT_U64, 0 },
	{ "accesses", REPORT_U64, 0 },
	{ "seconds", REPORT_F64, 3 },
	{ "modeled_s", REPORT_F64, 6 },
	{ "modeled_ns_per_access", REPORT_F64, 3 },
	{ "vs_fit", REPORT_F64, 3 },
	BENCH_SPAN_COLS,
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

int bench_sbo_create(struct vgpu_dev *dev, uint64_t size, uint64_t va,
		     struct bench_sbo *s)
{
	int ret;

	s->size = size;
	s->va = va;
	ret = vgpu_bo_create(dev, size, VGPU_PLACE_SYSTEM, 0, &s->handle);
	if (ret)
		return ret;
	ret = vgpu_vm_map(dev, s->handle, 0, va, size, VGPU_MAP_RW);
	if (!ret) {
		ret = vgpu_bo_map(dev, s->handle, size, &s->cpu);
		if (ret)
			vgpu_vm_unmap(dev, va, size);
	}
	if (ret)
		vgpu_bo_close(dev, s->handle);
	return ret;
}

void bench_sbo_destroy(struct vgpu_dev *dev, struct bench_sbo *s)
{
	vgpu_bo_unmap(s->cpu, s->size);
	vgpu_vm_unmap(dev, s->va, s->size);
	vgpu_bo_close(dev, s->handle);
}

int bench_run_cmd(struct vgpu_dev *dev, struct vgpu_cmd *cmd)
{
	return vgpu_run(dev, 0, cmd, 120ll * 1000 * 1000 * 1000);
}

/* One run at @pct of VRAM; *@fit_ns: modeled ns per access when it fits. */
static int one(struct report *r, const struct bench_opts *o, const char *title,
	       unsigned int pct, uint64_t (*size_of)(uint64_t), bench_work_fn work,
	       double *fit_ns)
{
	uint64_t accesses = 0;
	struct bench_span sp;
	struct vgpu_dev dev;
	struct bench_pbo b;
	double ms, per;
	int ret;

	ret = vgpu_open(&dev);
	if (ret)
		return ret;
	ret = bench_pbo_create(&dev, size_of((o->vram_base ?: o->vram_size) * pct / 100),
			       BENCH_VA, &b);
	if (ret)
		goto out_close;
	ret = bench_span_begin(&dev, &sp);
	if (!ret)
		ret = work(&dev, &b, o, &accesses);
	if (!ret)
		ret = bench_span_end(&dev, &sp);
	if (!ret) {
		ms = bench_modeled_s(sp.m0.vm_modeled_ns, sp.m1.vm_modeled_ns);
		per = accesses ? ms * 1e9 / accesses : 0;
		if (!*fit_ns)
			*fit_ns = per;
		ret = report_row(r, (uint64_t)pct, b.size >> 20, accesses, sp.seconds, ms,
				 per, *fit_ns > 0 ? per / *fit_ns : 0.0, BENCH_SPAN_ROW(&sp));
		fprintf(stderr, "%s: %3u%% of VRAM: %llu accesses, %.2f s, modeled %.4f s\n",
			title, pct, (unsigned long long)accesses, sp.seconds, ms);
	}
	bench_pbo_destroy(&dev, &b);
out_close:
	vgpu_close(&dev);
	return ret;
}

struct report *bench_sweep(const struct bench_opts *o, const char *title,
			   uint64_t (*size_of)(uint64_t bytes), bench_work_fn work)
{
	static const unsigned int full_pcts[] = { 50, 100, 125, 150, 200 };
	static const unsigned int quick_pcts[] = { 50, 150 };
	const unsigned int *pcts = o->quick ? quick_pcts : full_pcts;
	unsigned int npcts = o->quick ? 2 : 5, i;
	struct report *r = report_new(title, cols, NCOLS);
	struct bench_settings saved;
	double fit_ns = 0;
	int ret = 0;

	if (!r)
		return NULL;
	bench_settings_save(o->fd, &saved);
	if (bench_set_policy(o->fd, "placement_policy", "migrate"))
		ret = -EACCES;
	for (i = 0; i < npcts && !ret; i++)
		ret = one(r, o, title, pcts[i], size_of, work, &fit_ns);
	bench_settings_restore(o->fd, &saved);
	return bench_result(r, ret);
}
