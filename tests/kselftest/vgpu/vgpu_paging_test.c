// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Demand paging: PREFETCH and ADVISE (every refused argument, and what
 * they move, with the data checked by the GPU and the CPU afterwards),
 * QUERY_PAGING (policies, chunk size, fault and batch counters consistent
 * with the faults taken), the fault_batch_limit module parameter.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <stdio.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB	(1ull << 20)
#define SEC	1000000000ll
#define VA	(1ull << 32)

static int prefetch_raw(struct vgpu_dev *dev, struct drm_vgpu_prefetch *pf)
{
	return drmIoctl(dev->fd, DRM_IOCTL_VGPU_PREFETCH, pf);
}

static int advise_raw(struct vgpu_dev *dev, struct drm_vgpu_advise *ad)
{
	return drmIoctl(dev->fd, DRM_IOCTL_VGPU_ADVISE, ad);
}

static uint64_t vram_used(struct vgpu_dev *dev)
{
	struct drm_vgpu_query_memory m;

	return vgpu_query_memory(dev, &m) ? ~0ull : m.vram_used;
}

FIXTURE(paging) {
	struct vgpu_dev dev;
	uint32_t bo;		/* 4 MiB, VRAM or system, system preferred */
	void *cpu;
};

FIXTURE_SETUP(paging)
{
	struct drm_vgpu_bo_create bc = {
		.size = 4 * MiB, .placements = VGPU_PLACE_ALL,
		.preferred = VGPU_PLACE_SYSTEM, .alignment = 2 * MiB,
	};

	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &bc));
	self->bo = bc.handle;
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, VA, 4 * MiB, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, self->bo, 4 * MiB, &self->cpu));
}

FIXTURE_TEARDOWN(paging)
{
	vgpu_close(&self->dev);
}

TEST_F(paging, prefetch_errnos)
{
	static const struct {
		const char *what;
		struct drm_vgpu_prefetch pf;
		int err;
	} cases[] = {
		{ "flags", { .va = VA, .range = 4096, .placement = VGPU_PLACE_VRAM, .flags = 1 }, EINVAL },
		{ "reserved", { .va = VA, .range = 4096, .placement = VGPU_PLACE_VRAM, .reserved = 1 }, EINVAL },
		{ "no placement", { .va = VA, .range = 4096 }, EINVAL },
		{ "two placements", { .va = VA, .range = 4096, .placement = VGPU_PLACE_ALL }, EINVAL },
		{ "unknown placement", { .va = VA, .range = 4096, .placement = 4 }, EINVAL },
		{ "zero range", { .va = VA, .placement = VGPU_PLACE_VRAM }, EINVAL },
		{ "unaligned va", { .va = VA + 1, .range = 4096, .placement = VGPU_PLACE_VRAM }, EINVAL },
		{ "unaligned range", { .va = VA, .range = 4095, .placement = VGPU_PLACE_VRAM }, EINVAL },
		{ "va 0", { .va = 0, .range = 4096, .placement = VGPU_PLACE_VRAM }, EINVAL },
		{ "va beyond 48 bits", { .va = 1ull << 48, .range = 4096, .placement = VGPU_PLACE_VRAM }, EINVAL },
		{ "overflowing range", { .va = VA, .range = -4096ull, .placement = VGPU_PLACE_VRAM }, EINVAL },
		{ "unmapped", { .va = VA + 64 * MiB, .range = 4096, .placement = VGPU_PLACE_VRAM }, ENOENT },
		{ "partly mapped", { .va = VA + 2 * MiB, .range = 4 * MiB, .placement = VGPU_PLACE_VRAM }, ENOENT },
		{ "hole before", { .va = VA - 4096, .range = 8192, .placement = VGPU_PLACE_VRAM }, ENOENT },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct drm_vgpu_prefetch pf = cases[i].pf;

		errno = 0;
		EXPECT_EQ(-1, prefetch_raw(&self->dev, &pf)) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(cases[i].err, errno) TH_LOG("%s", cases[i].what);
	}
}

TEST_F(paging, advise_errnos)
{
	static const struct {
		const char *what;
		struct drm_vgpu_advise ad;
		int err;
	} cases[] = {
		{ "unknown advice", { .va = VA, .range = 4096, .advice = 3 }, EINVAL },
		{ "bad placement", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, .value = 3 }, EINVAL },
		{ "bad read-mostly", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .value = 2 }, EINVAL },
		{ "bad accessor", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_ACCESSED_BY, .value = 2 }, EINVAL },
		{ "flags", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .flags = 1 }, EINVAL },
		{ "reserved", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .reserved = 1 }, EINVAL },
		{ "zero range", { .va = VA, .advice = DRM_VGPU_ADVICE_READ_MOSTLY }, EINVAL },
		{ "unaligned", { .va = VA + 512, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY }, EINVAL },
		{ "kernel range", { .va = (1ull << 48) - 4096, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY }, EINVAL },
		{ "unmapped", { .va = VA + 64 * MiB, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY }, ENOENT },
	};
	struct drm_vgpu_advise ok = {
		.va = VA, .range = 4 * MiB, .advice = DRM_VGPU_ADVICE_ACCESSED_BY,
		.value = DRM_VGPU_ACCESSOR_GPU,
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct drm_vgpu_advise ad = cases[i].ad;

		errno = 0;
		EXPECT_EQ(-1, advise_raw(&self->dev, &ad)) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(cases[i].err, errno) TH_LOG("%s", cases[i].what);
	}
	EXPECT_EQ(0, advise_raw(&self->dev, &ok));
	EXPECT_EQ(0, vgpu_advise(&self->dev, VA, 4 * MiB, DRM_VGPU_ADVICE_READ_MOSTLY, 1));
	EXPECT_EQ(0, vgpu_advise(&self->dev, VA, 4 * MiB, DRM_VGPU_ADVICE_READ_MOSTLY, 0));
	EXPECT_EQ(0, vgpu_advise(&self->dev, VA, 4 * MiB, DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, 0));
}

/* GPU checksum of the BO compared with the CPU's. */
static int gpu_sum_matches(struct __test_metadata *_metadata,
			   struct vgpu_dev *dev, const void *cpu)
{
	struct drm_vgpu_bo_create bc = { .size = 4096, .placements = VGPU_PLACE_SYSTEM };
	struct vgpu_cmd cmd;
	uint64_t *res;
	int ok;

	if (vgpu_bo_create_ex(dev, &bc) ||
	    vgpu_vm_map(dev, bc.handle, 0, 2 * VA, 4096, VGPU_MAP_RW) ||
	    vgpu_bo_map(dev, bc.handle, 4096, (void **)&res))
		return 0;
	vgpu_cmd_init(&cmd);
	vgpu_cmd_checksum(&cmd, VA, 4 * MiB, 2 * VA);
	ok = vgpu_run(dev, 0, &cmd, 30 * SEC) == 0 &&
	     *res == vgpu_fnv1a64(cpu, 4 * MiB);
	vgpu_cmd_fini(&cmd);
	vgpu_bo_unmap(res, 4096);
	vgpu_vm_unmap(dev, 2 * VA, 4096);
	vgpu_bo_close(dev, bc.handle);
	return ok;
}

TEST_F(paging, prefetch_moves_and_keeps_data)
{
	struct drm_vgpu_query_paging pg;
	uint64_t moved, before, *p = self->cpu;
	size_t i;

	for (i = 0; i < 4 * MiB / 8; i++)
		p[i] = i * 0x9e3779b97f4a7c15ull;
	before = vram_used(&self->dev);

	ASSERT_EQ(0, vgpu_prefetch(&self->dev, VA, 4 * MiB, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(4 * MiB, moved);
	EXPECT_EQ(before + 4 * MiB, vram_used(&self->dev));
	/* Already there: nothing moves. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, VA + MiB, MiB, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(0, moved);

	ASSERT_EQ(0, vgpu_prefetch(&self->dev, VA, 4096, VGPU_PLACE_SYSTEM, &moved));
	EXPECT_EQ(4 * MiB, moved);	/* an ordinary BO moves whole */
	EXPECT_EQ(before, vram_used(&self->dev));

	/* A job takes a BO back to its preferred placement (system here). */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, VA, 4 * MiB, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(4 * MiB, moved);
	EXPECT_TRUE(gpu_sum_matches(_metadata, &self->dev, self->cpu));
	EXPECT_EQ(before, vram_used(&self->dev));
	for (i = 0; i < 4 * MiB / 8; i++)
		if (p[i] != i * 0x9e3779b97f4a7c15ull)
			break;
	EXPECT_EQ(4 * MiB / 8, i);

	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &pg));
	EXPECT_EQ(12 * MiB, pg.vm.prefetch_bytes);
	EXPECT_LE(12 * MiB, pg.device.prefetch_bytes);
}

TEST_F(paging, prefetch_skips_what_may_not_move)
{
	struct drm_vgpu_bo_create bc = {
		.size = 2 * MiB, .placements = VGPU_PLACE_VRAM, .alignment = 2 * MiB,
	};
	struct drm_vgpu_prefetch pf = {
		.va = VA, .range = 8 * MiB, .placement = VGPU_PLACE_SYSTEM,
	};

	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &bc));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, bc.handle, 0, VA + 4 * MiB, 2 * MiB, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, bc.handle, 0, VA + 6 * MiB, 2 * MiB, VGPU_MAP_R));
	ASSERT_EQ(0, prefetch_raw(&self->dev, &pf));
	EXPECT_EQ(0, pf.bytes_moved);		/* the system BO is already there */
	EXPECT_EQ(2 * MiB, pf.bytes_skipped);	/* the VRAM-only BO, counted once */
}

TEST_F(paging, advise_preferred_placement_moves)
{
	uint64_t before = vram_used(&self->dev);

	ASSERT_EQ(0, vgpu_advise(&self->dev, VA, 4 * MiB,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_VRAM));
	EXPECT_EQ(before + 4 * MiB, vram_used(&self->dev));
	ASSERT_EQ(0, vgpu_advise(&self->dev, VA, 4 * MiB,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_SYSTEM));
	EXPECT_EQ(before, vram_used(&self->dev));
	EXPECT_TRUE(gpu_sum_matches(_metadata, &self->dev, self->cpu));
}

TEST_F(paging, query_paging_policies)
{
	struct drm_vgpu_query_paging pg;
	struct drm_vgpu_query q = { .type = DRM_VGPU_QUERY_PAGING };

	ASSERT_EQ(0, drmIoctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	EXPECT_EQ(sizeof(pg), q.size);
	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &pg));
	EXPECT_TRUE(!strcmp(pg.eviction_policy, "lru") || !strcmp(pg.eviction_policy, "lru2"));
	EXPECT_TRUE(!strcmp(pg.placement_policy, "migrate") || !strcmp(pg.placement_policy, "remote"));
	EXPECT_EQ(2 * MiB, pg.chunk_size);
	EXPECT_LE(1, pg.fault_batch_limit);
	EXPECT_GE(256, pg.fault_batch_limit);
	EXPECT_EQ(0, pg.vm.faults);
	EXPECT_EQ(0, pg.vm.fault_batches);
}

/*
 * Faults on several queues at once, counted per VM and device.  The first
 * fault bans the VM, so jobs that had not started yet end cancelled.
 */
TEST_F(paging, fault_counters_consistent)
{
	struct drm_vgpu_query_paging before, after;
	struct drm_vgpu_query_vm qvm;
	uint32_t sync[4];
	struct vgpu_cmd cmd;
	unsigned int q, nq, faulted = 0;
	int st;

	if (!self->dev.exec_queues)
		SKIP(return, "no exec queues");
	nq = self->dev.exec_queues < 4 ? self->dev.exec_queues : 4;
	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &before));

	/* Every queue writes the same unmapped page. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, 3 * VA, 4096, 1);
	for (q = 0; q < nq; q++) {
		ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &sync[q]));
		st = vgpu_submit(&self->dev, q, &cmd, NULL, 0, sync[q]);
		if (st == -ECANCELED && q)	/* banned already */
			break;
		ASSERT_EQ(0, st);
	}
	nq = q;
	for (q = 0; q < nq; q++) {
		EXPECT_EQ(0, vgpu_syncobj_wait(&self->dev, sync[q], 30 * SEC));
		st = vgpu_syncobj_status(&self->dev, sync[q]);
		EXPECT_TRUE(st == -EFAULT || st == -ECANCELED) TH_LOG("queue %u: %d", q, st);
		faulted += st == -EFAULT;
	}
	vgpu_cmd_fini(&cmd);

	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &after));
	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &qvm));
	/* The VM may be banned before the later jobs start: at least one. */
	EXPECT_LE(1, faulted);
	EXPECT_LE(faulted, after.vm.faults);
	EXPECT_GE(nq, after.vm.faults);
	EXPECT_EQ(qvm.gpu_faults, after.vm.faults);
	EXPECT_LE(1, after.vm.fault_batches);
	EXPECT_GE(after.vm.faults, after.vm.fault_batches);
	EXPECT_EQ(after.vm.faults, after.vm.faults_cancelled + after.vm.fault_duplicates);
	EXPECT_EQ(0, after.vm.faults_resolved);
	EXPECT_LE(before.device.faults + after.vm.faults, after.device.faults);
	EXPECT_LE(before.device.fault_batches + 1, after.device.fault_batches);
	TH_LOG("%llu faults in %llu batches, %llu duplicates",
	       (unsigned long long)after.vm.faults,
	       (unsigned long long)after.vm.fault_batches,
	       (unsigned long long)after.vm.fault_duplicates);
	EXPECT_ERRNO(ECANCELED, prefetch_raw(&self->dev, &(struct drm_vgpu_prefetch){
		.va = VA, .range = 4096, .placement = VGPU_PLACE_VRAM }));
	EXPECT_ERRNO(ECANCELED, advise_raw(&self->dev, &(struct drm_vgpu_advise){
		.va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY }));
}

/* The batch limit is a module parameter, reported by QUERY. */
TEST_F(paging, fault_batch_limit_param)
{
	const char *path = "/sys/module/vgpu/parameters/fault_batch_limit";
	struct drm_vgpu_query_paging pg;
	FILE *f = fopen(path, "w");

	if (!f)
		SKIP(return, "no %s", path);
	fprintf(f, "1\n");
	fclose(f);
	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &pg));
	EXPECT_EQ(1, pg.fault_batch_limit);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "1000\n");	/* clamped */
	fclose(f);
	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &pg));
	EXPECT_EQ(256, pg.fault_batch_limit);
}

TEST_HARNESS_MAIN
