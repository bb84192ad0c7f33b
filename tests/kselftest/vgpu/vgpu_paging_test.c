// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Demand paging: PREFETCH and ADVISE (every refused argument, and what
 * they move, with the data checked by the GPU and the CPU afterwards),
 * QUERY_PAGING (policies, chunk size, fault and batch counters consistent
 * with the faults taken), the fault_batch_limit module parameter; and
 * pageable BOs (DRM_VGPU_BO_PAGEABLE): fault-driven chunk migration, 4x
 * oversubscription with the data checked, chunk granularity, LRU vs
 * LRU-2, thrashing, map-remote, prefetch and advice, a job faulting for
 * longer than the job timeout, running out of memory; and coherence: a
 * CPU touch moves one chunk, CPU stores racing migrations and writes
 * through a second mapping (same VM or another process) are never lost,
 * and ptrace sees and writes what the GPU does; READ_MOSTLY duplication
 * (two VMs and the CPU read one chunk, duplicated once, evicted without
 * a copy back) and its collapse by a GPU write, a CPU write, the advice
 * cleared, and a CPU writer racing GPU readers; a write through a
 * read-only mapping of it refused.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_paging.h"

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
		{ "pad", { .va = VA, .range = 4096, .placement = VGPU_PLACE_VRAM, .pad = 1 }, EINVAL },
		{ "unknown vm", { .va = VA, .range = 4096, .placement = VGPU_PLACE_VRAM, .vm_id = 1 }, ENOENT },
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
		{ "placement high bits", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, .value = 0x100000001ull }, EINVAL },
		{ "bad read-mostly", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .value = 2 }, EINVAL },
		{ "bad accessor", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_ACCESSED_BY, .value = 2 }, EINVAL },
		{ "flags", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .flags = 1 }, EINVAL },
		{ "pad", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .pad = 1 }, EINVAL },
		{ "unknown vm", { .va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY, .vm_id = 1 }, ENOENT },
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
	char dir[128], path[192], cur[32] = "";
	FILE *f;

	ASSERT_EQ(0, drmIoctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	EXPECT_EQ(sizeof(pg), q.size);
	ASSERT_EQ(0, vgpu_query_paging(&self->dev, &pg));
	/* The policy sysfs names, whichever the driver has. */
	ASSERT_EQ(0, vgpu_test_sysfs_dir(self->dev.fd, dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/eviction_policy", dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(cur, sizeof(cur), f));
	fclose(f);
	cur[strcspn(cur, "\n")] = 0;
	EXPECT_STREQ(cur, pg.eviction_policy);
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

/* ------------------------------------------------------- pageable BOs --- */

#define PVA	(1ull << 36)	/* where the pageable fixture maps */

static int read_str(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

/* The device's sysfs directory. */
static void sysfs_path(struct vgpu_dev *dev, const char *name, char *out, size_t size)
{
	struct stat st;

	fstat(dev->fd, &st);
	snprintf(out, size, "/sys/dev/char/%u:%u/device/%s",
		 major(st.st_rdev), minor(st.st_rdev), name);
}

static int set_policy(struct vgpu_dev *dev, const char *file, const char *val)
{
	char path[256];

	sysfs_path(dev, file, path, sizeof(path));
	return vgpu_test_write(path, val);
}

static int set_param(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/vgpu/parameters/%s", name);
	return vgpu_test_write(path, val);
}

static int get_param(const char *name, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/vgpu/parameters/%s", name);
	return read_str(path, buf, size);
}

FIXTURE(pageable) {
	struct vgpu_dev dev;
	uint64_t vram;
	char prefetch[16];
	char thrash[16];
	char evict[16];
	char place[16];
};

FIXTURE_SETUP(pageable)
{
	char path[256];

	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_get_param(&self->dev, DRM_VGPU_PARAM_VRAM_SIZE, &self->vram));
	get_param("prefetch", self->prefetch, sizeof(self->prefetch));
	get_param("thrash_count", self->thrash, sizeof(self->thrash));
	sysfs_path(&self->dev, "eviction_policy", path, sizeof(path));
	read_str(path, self->evict, sizeof(self->evict));
	sysfs_path(&self->dev, "placement_policy", path, sizeof(path));
	read_str(path, self->place, sizeof(self->place));
}

FIXTURE_TEARDOWN(pageable)
{
	char slow[PATH_MAX];

	/* pageable.slow_fault_batch_is_not_a_hang, should it stop midway. */
	if (!vgpu_test_debugfs_path(self->dev.fd, "slow_fault_pages_ms", slow,
				    sizeof(slow)))
		vgpu_test_write(slow, "0");
	if (self->prefetch[0])
		set_param("prefetch", self->prefetch);
	if (self->thrash[0])
		set_param("thrash_count", self->thrash);
	if (self->evict[0])
		set_policy(&self->dev, "eviction_policy", self->evict);
	if (self->place[0])
		set_policy(&self->dev, "placement_policy", self->place);
	vgpu_close(&self->dev);
}

/*
 * A pageable BO of @size bytes, mapped for the CPU at *@p and filled
 * with pattern(@seed, i) by CPU stores (its system pages populated).
 */
static int filled_pbo(struct vgpu_dev *dev, uint64_t size, uint32_t seed,
		      uint32_t *h, uint64_t **p)
{
	uint64_t i;
	int ret = vgpu_bo_create_pageable(dev, size, h, NULL);

	if (!ret)
		ret = vgpu_bo_map(dev, *h, size, (void **)p);
	for (i = 0; !ret && i < size / 8; i++)
		(*p)[i] = pattern(seed, i);
	return ret;
}

/*
 * A 4 KiB system BO for a GPU job's results, mapped for the CPU at *@res
 * and in the GPU VM at PVA - 2 MiB.
 */
static int result_bo(struct vgpu_dev *dev, uint32_t *rh, uint64_t **res)
{
	int ret = vgpu_bo_create(dev, 4096, VGPU_PLACE_SYSTEM, 0, rh);

	if (!ret)
		ret = vgpu_bo_map(dev, *rh, 4096, (void **)res);
	if (!ret)
		ret = vgpu_vm_map(dev, *rh, 0, PVA - 2 * MiB, 4096, VGPU_MAP_RW);
	return ret;
}

/* counters/<name> of the device, or ~0 when it cannot be read. */
static uint64_t dev_counter(struct vgpu_dev *dev, const char *name)
{
	char file[64], path[256];

	snprintf(file, sizeof(file), "counters/%s", name);
	sysfs_path(dev, file, path, sizeof(path));
	return vgpu_test_read_u64(path);
}

TEST_F(pageable, create_errnos)
{
	struct drm_vgpu_bo_create bad[] = {
		{ .size = MiB, .placements = VGPU_PLACE_VRAM, .flags = DRM_VGPU_BO_PAGEABLE },
		{ .size = MiB, .placements = VGPU_PLACE_ALL, .preferred = VGPU_PLACE_VRAM,
		  .flags = DRM_VGPU_BO_PAGEABLE },
		{ .size = MiB, .placements = VGPU_PLACE_SYSTEM, .alignment = 2 * MiB,
		  .flags = DRM_VGPU_BO_PAGEABLE },
		{ .size = MiB, .placements = VGPU_PLACE_ALL,
		  .flags = DRM_VGPU_BO_PAGEABLE | DRM_VGPU_BO_CONTIGUOUS },
		{ .size = MiB, .placements = VGPU_PLACE_ALL, .flags = 1u << 3 },
	};
	struct drm_vgpu_bo_create ok = {
		.size = 3 * MiB, .placements = VGPU_PLACE_ALL, .flags = DRM_VGPU_BO_PAGEABLE,
	};
	unsigned int i;
	uint32_t h;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, vgpu_bo_create_ex(&self->dev, &bad[i])) TH_LOG("case %u", i);
	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &ok));
	EXPECT_EQ(4 * MiB, ok.size);	/* a whole number of 2 MiB chunks */
	EXPECT_EQ(-E2BIG, vgpu_bo_create_pageable(&self->dev, 1ull << 40, &h, NULL));
}

/*
 * CPU pattern -> GPU checksum (faults migrate) -> GPU writes -> CPU reads
 * them back (the CPU fault takes the chunks home).
 */
TEST_F(pageable, fault_migrates_and_keeps_data)
{
	const uint64_t size = 8 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	struct drm_vgpu_query_vm qvm;
	uint64_t *p, *res, i;
	struct vgpu_cmd cmd;
	uint32_t h, rh;

	ASSERT_EQ(0, filled_pbo(&self->dev, size, 1, &h, &p));
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096, VGPU_PLACE_SYSTEM, 0, &rh));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, rh, 4096, (void **)&res));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, rh, 0, PVA - 2 * MiB, 4096, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(0, pg0.vm.faults);

	vgpu_cmd_init(&cmd);
	vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	EXPECT_EQ(vgpu_fnv1a64(p, size), res[0]);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_LE(1, pg.vm.faults_resolved);
	EXPECT_EQ(0, pg.vm.faults_cancelled);
	EXPECT_LE(size, pg.vm.bytes_to_vram);
	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &qvm));
	EXPECT_EQ(0, qvm.state & DRM_VGPU_VM_STATE_BANNED);

	/* The GPU writes half; the CPU sees it. */
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_fill(&cmd, PVA + 2 * MiB, 4 * MiB, 0x5a5a5a5a);
	ASSERT_EQ(0, vgpu_run(&self->dev, 1 % self->dev.exec_queues, &cmd, 60 * SEC));
	vgpu_cmd_fini(&cmd);
	for (i = 0; i < size / 8; i++) {
		uint64_t want = i >= (2 * MiB / 8) && i < (6 * MiB / 8) ?
				0x5a5a5a5a5a5a5a5aull : pattern(1, i);
		if (p[i] != want)
			break;
	}
	EXPECT_EQ(size / 8, i) TH_LOG("first bad qword %llu", (unsigned long long)i);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_LE(4 * MiB, pg.vm.bytes_to_system);	/* the dirty chunks went home */
	vgpu_bo_unmap(p, size);
	vgpu_bo_unmap(res, 4096);
}

/*
 * A copy into VRAM that fails (debugfs fail_chunk_copies: the batch's
 * fence ends with -EIO, as after a device reset) leaves the chunk in
 * system memory with its VRAM given back: the fault is resolved again,
 * the job reads the right bytes, nothing is cancelled, and no VRAM is
 * left behind.
 */
/* VRAM in use, chunks included (debugfs vram_mm "used:"), or ~0. */
static uint64_t vram_mm_used(struct vgpu_dev *dev)
{
	char path[PATH_MAX], line[128];
	uint64_t v = ~0ull;
	FILE *f;

	if (vgpu_test_debugfs_path(dev->fd, "vram_mm", path, sizeof(path)))
		return v;
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "used: %" SCNu64, &v) == 1)
			break;
	fclose(f);
	return v;
}

TEST_F(pageable, failed_copy_leaves_system_pages)
{
	const uint64_t size = 8 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	struct drm_vgpu_query_vm qvm;
	uint64_t *p, *res, i, used0, sum;
	char fail[PATH_MAX];
	struct vgpu_cmd cmd;
	uint32_t h, rh;

	if (vgpu_test_debugfs_path(self->dev.fd, "fail_chunk_copies", fail,
				   sizeof(fail)))
		SKIP(return, "no debugfs");
	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, filled_pbo(&self->dev, size, 7, &h, &p));
	sum = vgpu_fnv1a64(p, size);	/* the CPU reads before the GPU */
	ASSERT_EQ(0, result_bo(&self->dev, &rh, &res));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	used0 = vram_mm_used(&self->dev);
	ASSERT_NE(~0ull, used0);

	ASSERT_EQ(0, vgpu_test_write(fail, "1"));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	vgpu_cmd_fini(&cmd);
	EXPECT_EQ(sum, res[0]);
	EXPECT_EQ(0, vgpu_test_read_u64(fail));	/* the failure happened */
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.faults_cancelled, pg.vm.faults_cancelled);
	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &qvm));
	EXPECT_EQ(0, qvm.state & DRM_VGPU_VM_STATE_BANNED);
	/* Four chunks moved in, one of them twice; only four hold VRAM. */
	EXPECT_LE(pg0.vm.bytes_to_vram + size + 2 * MiB, pg.vm.bytes_to_vram);
	EXPECT_LE(used0 + size, vram_mm_used(&self->dev));
	EXPECT_GT(used0 + size + 2 * MiB, vram_mm_used(&self->dev));

	/* The CPU takes the chunks back: the bytes it wrote. */
	for (i = 0; i < size / 8 && p[i] == pattern(7, i); i++)
		;
	EXPECT_EQ(size / 8, i) TH_LOG("first bad qword %llu", (unsigned long long)i);
	vgpu_bo_unmap(p, size);
	vgpu_bo_unmap(res, 4096);
}

/*
 * PREFETCH, and ADVISE PREFERRED_PLACEMENT acting on a preference, report
 * a copy the engine failed as -EIO (their uapi errors): the chunk stays in
 * system memory with its bytes, the hint stays recorded, and the next
 * PREFETCH moves it.
 */
TEST_F(pageable, failed_copy_fails_prefetch_and_advise)
{
	const uint64_t size = 4 * MiB;
	uint64_t *p, i, moved = ~0ull;
	char fail[PATH_MAX];
	uint32_t h;

	if (vgpu_test_debugfs_path(self->dev.fd, "fail_chunk_copies", fail,
				   sizeof(fail)))
		SKIP(return, "no debugfs");
	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, filled_pbo(&self->dev, size, 9, &h, &p));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));

	ASSERT_EQ(0, vgpu_test_write(fail, "1"));
	EXPECT_EQ(-EIO, vgpu_prefetch(&self->dev, PVA, 2 * MiB, VGPU_PLACE_VRAM,
				      &moved));
	EXPECT_EQ(0, vgpu_test_read_u64(fail));
	ASSERT_EQ(0, vgpu_test_write(fail, "1"));
	EXPECT_EQ(-EIO, vgpu_advise(&self->dev, PVA + 2 * MiB, 2 * MiB,
				    DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
				    VGPU_PLACE_VRAM));
	EXPECT_EQ(0, vgpu_test_read_u64(fail));

	/* Nothing lost; the engine works again and the chunks move. */
	for (i = 0; i < size / 8 && p[i] == pattern(9, i); i++)
		;
	EXPECT_EQ(size / 8, i) TH_LOG("first bad qword %llu", (unsigned long long)i);
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(size, moved);
	vgpu_bo_unmap(p, size);
}

/*
 * Touching 10 MiB of a 1 GiB pageable BO moves 10 MiB: one stream (one
 * lane) faults once per chunk, every lane of the device at most once per
 * chunk it enters.
 */
TEST_F(pageable, chunk_granularity)
{
	const uint64_t size = 1ull << 30;
	struct drm_vgpu_query_paging pg;
	uint32_t h;

	if (mem_total() < 3 * size / 2)
		SKIP(return, "guest RAM too small for a 1 GiB BO");
	set_param("prefetch", "0");
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch_run_lanes(&self->dev, 1, 0, VGPU_TOUCH_SEQUENTIAL,
				     VGPU_TOUCH_READ, PVA + 512 * MiB, 10 * MiB, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(10 * MiB, pg.vm.bytes_to_vram);
	EXPECT_EQ(5, pg.vm.faults_resolved);
	TH_LOG("one lane: %llu faults, %llu bytes to VRAM", (unsigned long long)pg.vm.faults,
	       (unsigned long long)pg.vm.bytes_to_vram);

	/* The next 10 MiB on every lane: 5 chunks, at most one fault per lane and chunk. */
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA + 522 * MiB, 10 * MiB, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(20 * MiB, pg.vm.bytes_to_vram);
	EXPECT_LE(10, pg.vm.faults_resolved);
	EXPECT_GE(10 + dev_lanes(&self->dev) - 1, pg.vm.faults_resolved);
	TH_LOG("%u lanes: %llu faults in all", dev_lanes(&self->dev),
	       (unsigned long long)pg.vm.faults_resolved);
}

/*
 * One process's share of the oversubscription test: @n BOs of @bo_size,
 * CPU pattern, random RMW over all of them on the GPU, then every byte
 * checked by the CPU against the pattern plus the simulated increments.
 */
static int oversub_worker(struct __test_metadata *_metadata, struct vgpu_dev *dev,
			  unsigned int n, uint64_t bo_size, uint64_t seed)
{
	const uint64_t lines = bo_size / 64;
	uint64_t *cnt = calloc(lines, sizeof(*cnt));
	uint64_t **p = calloc(n, sizeof(*p));
	uint32_t *h = calloc(n, sizeof(*h));
	unsigned int b, round, bad = 0;
	uint64_t i;

	if (!cnt || !p || !h)
		return -ENOMEM;
	for (b = 0; b < n; b++) {
		if (vgpu_bo_create_pageable(dev, bo_size, &h[b], NULL) ||
		    vgpu_bo_map(dev, h[b], bo_size, (void **)&p[b]) ||
		    vgpu_vm_map(dev, h[b], 0, PVA + b * bo_size, bo_size, VGPU_MAP_RW))
			return -EIO;
		for (i = 0; i < bo_size / 8; i++)
			p[b][i] = pattern(seed + b, i);
	}
	/* Two sweeps over every BO, each BO touched at random lines. */
	for (round = 0; round < 2; round++) {
		for (b = 0; b < n; b++) {
			uint32_t s = seed * 1000 + round * 100 + b + 1;

			if (touch_run(dev, b % dev->exec_queues, VGPU_TOUCH_RANDOM,
				      VGPU_TOUCH_RMW, PVA + b * bo_size, bo_size, 0,
				      4096, s))
				return -EFAULT;
		}
	}
	for (b = 0; b < n; b++) {
		memset(cnt, 0, lines * sizeof(*cnt));
		for (round = 0; round < 2; round++)
			rmw_expect(dev, cnt, lines, seed * 1000 + round * 100 + b + 1, 4096);
		for (i = 0; i < bo_size / 8; i++) {
			uint64_t want = pattern(seed + b, i) + (i % 8 ? 0 : cnt[i / 8]);

			if (p[b][i] != want && bad++ < 4)
				TH_LOG("bo %u qword %llu: %#llx, want %#llx", b,
				       (unsigned long long)i, (unsigned long long)p[b][i],
				       (unsigned long long)want);
		}
		vgpu_bo_unmap(p[b], bo_size);
	}
	free(cnt);
	free(p);
	free(h);
	return bad ? -EILSEQ : 0;
}

/* 4x VRAM in pageable BOs, two processes at once, every byte checked. */
TEST_F(pageable, oversub_4x_integrity)
{
	const uint64_t bo_size = 32 * MiB;
	uint64_t total = 4 * self->vram;
	struct drm_vgpu_query_paging pg;
	unsigned int n;
	int st, ret;
	pid_t pid;

	if (total > mem_total() * 6 / 10)
		SKIP(return, "guest RAM too small for 4x VRAM (run with --mem 2G)");
	n = total / bo_size / 2;
	set_param("prefetch", "1");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vgpu_dev dev;

		if (vgpu_open(&dev))
			_exit(2);
		_exit(oversub_worker(_metadata, &dev, n, bo_size, 7) ? 1 : 0);
	}
	ret = oversub_worker(_metadata, &self->dev, n, bo_size, 3);
	EXPECT_EQ(0, ret);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("child status %#x", st);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(0, pg.vm.faults_cancelled);
	EXPECT_LE(n * bo_size, pg.vm.bytes_to_vram);
	EXPECT_LE(1, pg.device.evictions);
	TH_LOG("%u x 32 MiB per process: %llu faults, %llu batches, %llu MiB in, %llu MiB out, %llu evictions",
	       n, (unsigned long long)pg.vm.faults, (unsigned long long)pg.vm.fault_batches,
	       (unsigned long long)(pg.vm.bytes_to_vram >> 20),
	       (unsigned long long)(pg.vm.bytes_to_system >> 20),
	       (unsigned long long)pg.vm.evictions);
}

/*
 * A hot set of half of VRAM touched every round, between scans of new
 * chunks larger than the rest of VRAM: LRU-2 keeps the hot set, LRU does
 * not.  Returns the bytes moved into VRAM.  Both run as @lanes lanes (0:
 * every lane).  Scanned by every lane, 24 chunks of a 64 MiB VRAM fault in
 * one batch, whose own chunks are no victims, so any policy must give up
 * part of the hot set.
 */
static uint64_t scan_polluted(struct __test_metadata *_metadata, struct vgpu_dev *dev,
			      uint64_t vram, const char *policy, uint32_t lanes)
{
	const uint64_t hot = vram / 2, seg = vram * 3 / 4;
	const unsigned int rounds = 4;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t size = hot + rounds * seg;
	unsigned int r;
	uint32_t h;

	if (set_policy(dev, "eviction_policy", policy))
		return 0;
	if (vgpu_bo_create_pageable(dev, size, &h, NULL) ||
	    vgpu_vm_map(dev, h, 0, PVA, size, VGPU_MAP_R) || paging(dev, &pg0))
		return 0;
	for (r = 0; r < rounds; r++) {
		if (touch_run_lanes(dev, lanes, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ, PVA,
				    hot, 64 * 1024, 0, 0) ||
		    touch_run_lanes(dev, lanes, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
				    PVA + hot + r * seg, seg, 64 * 1024, 0, 0))
			return 0;
	}
	if (paging(dev, &pg))
		return 0;
	vgpu_vm_unmap(dev, PVA, size);
	vgpu_bo_close(dev, h);
	TH_LOG("%s: %llu MiB moved in, %llu evictions", policy,
	       (unsigned long long)((pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram) >> 20),
	       (unsigned long long)(pg.vm.evictions - pg0.vm.evictions));
	return pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram;
}

/* Two policies over 4.5x of VRAM: slow under KASAN and lockdep. */
TEST_F_TIMEOUT(pageable, lru2_resists_scans, 300)
{
	uint64_t lru, lru2;

	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	set_param("prefetch", "0");
	lru = scan_polluted(_metadata, &self->dev, self->vram, "lru", 1);
	lru2 = scan_polluted(_metadata, &self->dev, self->vram, "lru2", 1);
	ASSERT_NE(0, lru);
	ASSERT_NE(0, lru2);
	/* The hot set (half of VRAM) comes back every round under LRU. */
	EXPECT_LT(lru2 + self->vram / 2, lru);
}

/*
 * The same with prefetch on and every lane, as vgpu-bench's oversub suite
 * runs it.  A batch prefetches at most a quarter of VRAM: before that
 * bound, the stream detector, fed by every lane's faults at once, pulled
 * in enough of the scan in one batch to push out much of the hot set
 * under any policy (at 256 MiB of VRAM LRU-2 moved 90 % of LRU's bytes,
 * 76 % with the bound).
 */
TEST_F_TIMEOUT(pageable, lru2_resists_scans_with_prefetch, 300)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t lru, lru2, lanes;

	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	/*
	 * Room for the hot set (half), one batch of every lane's faults and
	 * the batch's prefetch (a quarter): a lane faults on its own chunk.
	 */
	ASSERT_EQ(0, vgpu_get_param(&self->dev, DRM_VGPU_PARAM_LANES, &lanes));
	if (self->vram < 4 * lanes * 2 * MiB)
		SKIP(return, "%llu MiB of VRAM: a batch of %llu lanes leaves no room for the hot set",
		     (unsigned long long)(self->vram >> 20), (unsigned long long)lanes);
	ASSERT_EQ(0, set_param("prefetch", "1"));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	lru = scan_polluted(_metadata, &self->dev, self->vram, "lru", 0);
	lru2 = scan_polluted(_metadata, &self->dev, self->vram, "lru2", 0);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	ASSERT_NE(0, lru);
	ASSERT_NE(0, lru2);
	/* Prefetch ran, and the hot set still survives LRU-2's rounds. */
	EXPECT_LT(pg0.vm.prefetch_bytes, pg.vm.prefetch_bytes);
	EXPECT_LT(lru2 * 5, lru * 4);
}

/*
 * Sweeps over the even chunks of a buffer of 4x VRAM, 64 KiB further into
 * each chunk every sweep, on every lane (vgpu-bench oversub's strided
 * pattern, one half).  Returns the bytes moved into VRAM; *@thrash gets
 * the thrash events.
 */
static uint64_t strided_sweeps(struct __test_metadata *_metadata, struct vgpu_dev *dev,
			       uint64_t vram, const char *prefetch, uint64_t *thrash)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t size = 4 * vram, s;
	uint32_t h;

	if (set_param("prefetch", prefetch) || vgpu_bo_create_pageable(dev, size, &h, NULL) ||
	    vgpu_vm_map(dev, h, 0, PVA, size, VGPU_MAP_R) || paging(dev, &pg0))
		return 0;
	for (s = 0; s < 2 * MiB; s += 128 * 1024)
		if (touch_run(dev, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ, PVA + s, size - s,
			      4 * MiB, 0, 0))
			return 0;
	if (paging(dev, &pg))
		return 0;
	vgpu_vm_unmap(dev, PVA, size);
	vgpu_bo_close(dev, h);
	*thrash = pg.vm.thrash_events - pg0.vm.thrash_events;
	TH_LOG("prefetch %s: %llu MiB moved in, %llu prefetched, %llu thrash events", prefetch,
	       (unsigned long long)((pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram) >> 20),
	       (unsigned long long)((pg.vm.prefetch_bytes - pg0.vm.prefetch_bytes) >> 20),
	       (unsigned long long)*thrash);
	return pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram;
}

/*
 * A chunk that prefetch keeps bringing back thrashes as one that faults
 * back does: with prefetch on, sweeps that bounce every chunk move about
 * the bytes they move without it (about five times as many when prefetch
 * was not watched by the thrashing detector).
 */
TEST_F_TIMEOUT(pageable, prefetch_returns_count_as_thrashing, 300)
{
	uint64_t off, on, thrash_off, thrash_on;

	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	off = strided_sweeps(_metadata, &self->dev, self->vram, "0", &thrash_off);
	on = strided_sweeps(_metadata, &self->dev, self->vram, "1", &thrash_on);
	ASSERT_NE(0, off);
	ASSERT_NE(0, on);
	/* The window is wall time (1 s): a slow guest may not see a chunk bounce. */
	if (!thrash_off)
		SKIP(return, "no chunk returned %s times within the thrashing window",
		     self->thrash);
	EXPECT_LT(0, thrash_on);
	EXPECT_LE(on * 4, off * 5);
}

/*
 * A chunk that keeps bouncing is pinned to system memory and mapped
 * there; with vgpu.thrash_count 0 none is.
 */
TEST_F(pageable, thrashing_chunk_is_pinned)
{
	struct drm_vgpu_query_paging pg, pg0;
	uint64_t moved;
	unsigned int i;
	uint32_t h;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, 2 * MiB, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, 2 * MiB, VGPU_MAP_RW));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL,
				       VGPU_TOUCH_READ, PVA, 4096, 0, 0, 0));
		ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, 2 * MiB, VGPU_PLACE_SYSTEM, &moved));
	}
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(1, pg.vm.thrash_events);
	EXPECT_LE(1, pg.vm.remote_maps);
	EXPECT_EQ(0, pg.vm.faults_cancelled);

	/* With the detection off (thrash_count 0) a chunk bounces freely. */
	ASSERT_EQ(0, set_param("thrash_count", "0"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, 2 * MiB, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA + 2 * MiB, 2 * MiB, VGPU_MAP_RW));
	pg0 = pg;
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL,
				       VGPU_TOUCH_READ, PVA + 2 * MiB, 4096, 0, 0, 0));
		ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA + 2 * MiB, 2 * MiB,
					   VGPU_PLACE_SYSTEM, &moved));
	}
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(1, pg.vm.thrash_events);
	EXPECT_EQ(pg0.vm.remote_maps, pg.vm.remote_maps);
	EXPECT_EQ(pg0.vm.bytes_to_vram + 6 * 2 * MiB, pg.vm.bytes_to_vram);
}

/*
 * A chunk pinned to system memory while the GPU keeps using it comes back
 * to VRAM once the pin (2 s) runs out: its remote mapping goes, the next
 * access faults and migrates it.  Before, the remote mapping stayed and
 * the chunk was served from system memory for good.
 */
TEST_F_TIMEOUT(pageable, pinned_chunk_comes_back_when_used, 120)
{
	struct drm_vgpu_query_paging pg0, pg;
	char unpins0[32], unpins[32];
	uint64_t moved;
	unsigned int i;
	uint32_t h;

	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, 2 * MiB, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, 2 * MiB, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL,
				       VGPU_TOUCH_READ, PVA, 4096, 0, 0, 0));
		ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, 2 * MiB, VGPU_PLACE_SYSTEM, &moved));
	}
	/* Pinned and mapped remotely: a touch hits system memory. */
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, PVA,
			       4096, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	ASSERT_EQ(pg0.vm.thrash_events + 1, pg.vm.thrash_events);
	ASSERT_LT(pg0.vm.remote_maps, pg.vm.remote_maps);
	pg0 = pg;
	ASSERT_EQ(0, vgpu_test_sysfs(self->dev.fd, "counters/thrash_unpins", NULL, unpins0,
				sizeof(unpins0)));

	/* Used on past the pin: it comes back, once. */
	for (i = 0; i < 50; i++) {
		usleep(100 * 1000);
		ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL,
				       VGPU_TOUCH_READ, PVA, 4096, 0, 0, 0));
		ASSERT_EQ(0, paging(&self->dev, &pg));
		if (pg.vm.bytes_to_vram > pg0.vm.bytes_to_vram)
			break;
	}
	TH_LOG("back after %u ms", i * 100);
	EXPECT_EQ(pg0.vm.bytes_to_vram + 2 * MiB, pg.vm.bytes_to_vram);
	EXPECT_EQ(pg0.vm.thrash_events, pg.vm.thrash_events);
	EXPECT_EQ(pg0.vm.remote_maps, pg.vm.remote_maps);
	ASSERT_EQ(0, vgpu_test_sysfs(self->dev.fd, "counters/thrash_unpins", NULL, unpins,
				sizeof(unpins)));
	EXPECT_EQ(strtoull(unpins0, NULL, 10) + 1, strtoull(unpins, NULL, 10));
	/* In VRAM now: the next touches hit. */
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, PVA,
			       4096, 0, 0, 0));
	pg0 = pg;
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
	vgpu_vm_unmap(&self->dev, PVA, 2 * MiB);
	vgpu_bo_close(&self->dev, h);
}

/* Placement policy "remote": faults map system memory, nothing migrates. */
TEST_F(pageable, map_remote)
{
	const uint64_t size = 8 * MiB;
	struct drm_vgpu_query_paging pg;
	uint32_t h;

	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "remote"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch_run_lanes(&self->dev, 1, 0, VGPU_TOUCH_SEQUENTIAL,
				     VGPU_TOUCH_WRITE, PVA, size, 0, 0, 0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, size, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(0, pg.vm.bytes_to_vram);
	EXPECT_EQ(size / (2 * MiB), pg.vm.remote_maps);
	EXPECT_EQ(size / (2 * MiB), pg.vm.faults_resolved);
}

/* PREFETCH and ADVISE act per chunk on pageable memory. */
TEST_F(pageable, prefetch_and_advise)
{
	const uint64_t size = 16 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t moved;
	uint32_t h;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));

	/* Explicit prefetch of part of the range: exactly those chunks, no fault. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA + 2 * MiB, 4 * MiB, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(4 * MiB, moved);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA + 2 * MiB, 4 * MiB, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
	EXPECT_EQ(4 * MiB, pg.vm.prefetch_bytes);

	/* Preferred placement system: leaves VRAM, faults map remotely. */
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA, 8 * MiB,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_SYSTEM));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, 8 * MiB, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.bytes_to_vram, pg.vm.bytes_to_vram);
	EXPECT_EQ(pg0.vm.remote_maps + 4, pg.vm.remote_maps);

	/* Accessed-by: an evicted chunk stays mapped, in system memory. */
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA + 8 * MiB, 8 * MiB,
				 DRM_VGPU_ADVICE_ACCESSED_BY, DRM_VGPU_ACCESSOR_GPU));
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA + 8 * MiB, 8 * MiB,
				 DRM_VGPU_ADVICE_READ_MOSTLY, 1));
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA + 8 * MiB, 8 * MiB, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(8 * MiB, moved);
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA + 8 * MiB, 8 * MiB, VGPU_PLACE_SYSTEM, &moved));
	EXPECT_EQ(8 * MiB, moved);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(pg.vm.bytes_to_system, pg0.vm.bytes_to_system);	/* read-mostly: clean */
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA + 8 * MiB, 8 * MiB, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
}

/*
 * Hints belong to the VA range, not to the memory: a preference for
 * system memory given through one mapping of a BO goes away with that
 * mapping, and another mapping of the same chunks never had it.  Part
 * of a range unmapped loses its hints; the rest keeps them.
 */
TEST_F(pageable, advice_goes_with_the_range)
{
	const uint64_t size = 8 * MiB, chunk = 2 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint32_t h;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA, size,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_SYSTEM));

	/* Advised: every chunk is mapped remotely, none migrates. */
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, chunk, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.bytes_to_vram, pg.vm.bytes_to_vram);
	EXPECT_EQ(pg0.vm.remote_maps + 1, pg.vm.remote_maps);

	/* The upper half unmapped and mapped again: no hint there any more. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, PVA + size / 2, size / 2));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, size / 2, PVA + size / 2, size / 2,
				 VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA + size / 2, size / 2, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.bytes_to_vram + size / 2, pg.vm.bytes_to_vram);
	EXPECT_EQ(pg0.vm.remote_maps, pg.vm.remote_maps);

	/* The lower half kept it: still remote. */
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA + chunk, chunk, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.bytes_to_vram, pg.vm.bytes_to_vram);
	EXPECT_EQ(pg0.vm.remote_maps + 1, pg.vm.remote_maps);

	/* All of it unmapped: a new mapping of the BO migrates it all. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, PVA, size));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA + 64 * MiB, size, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA + 64 * MiB, size / 2, 0, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.bytes_to_vram + size / 2, pg.vm.bytes_to_vram);
	EXPECT_EQ(pg0.vm.remote_maps, pg.vm.remote_maps);
}

/*
 * Two mappings of one BO, READ_MOSTLY advised through one of them: the
 * chunks act on the union of the hints of the ranges that map them, so
 * reads duplicate while that range exists; unmapping it collapses the
 * duplicates (the other mapping never asked), and later reads through
 * the other mapping duplicate nothing.
 */
TEST_F(pageable, advice_union_of_the_mappings)
{
	const uint64_t size = 4 * MiB, other = PVA + 32 * MiB;
	uint64_t dups0, dups, coll0, coll, moved;
	uint32_t h;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, other, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA, size, DRM_VGPU_ADVICE_READ_MOSTLY, 1));

	dups0 = dev_counter(&self->dev, "read_mostly_dups");
	coll0 = dev_counter(&self->dev, "read_mostly_collapses");
	ASSERT_NE(~0ull, dups0);
	ASSERT_NE(~0ull, coll0);
	/* Read through the other mapping: the union says read-mostly. */
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       other, size, 0, 0, 0));
	dups = dev_counter(&self->dev, "read_mostly_dups") - dups0;
	EXPECT_EQ(2, dups);

	/* The advised range goes: the duplicates collapse to VRAM. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, PVA, size));
	coll = dev_counter(&self->dev, "read_mostly_collapses") - coll0;
	EXPECT_EQ(2, coll);

	/* Home and back through the other mapping: no duplicate now. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, other, size, VGPU_PLACE_SYSTEM, &moved));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       other, size, 0, 0, 0));
	EXPECT_EQ(dups0 + 2, dev_counter(&self->dev, "read_mostly_dups"));
}

/*
 * Streams the GPU once through @big bytes at PVA + 64 MiB, one lane (with
 * every lane, 32 chunks in flight fill a 64 MiB VRAM by themselves), then
 * reads the @size bytes at PVA; the paging counters before and after the
 * read.
 */
static int stream_then_read(struct vgpu_dev *dev, uint64_t big, uint64_t size,
			    struct drm_vgpu_query_paging *before,
			    struct drm_vgpu_query_paging *after)
{
	int ret = touch_run_lanes(dev, 1, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
				  PVA + 64 * MiB, big, 0, 0, 0);

	ret = ret ?: paging(dev, before);
	ret = ret ?: touch_run(dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
			       PVA, size, 0, 0, 0);
	return ret ?: paging(dev, after);
}

/*
 * A preference for VRAM keeps chunks there longest: with VRAM streamed
 * through twice over by another BO, the advised chunks are never the
 * victims, and reading them afterwards faults on none.
 */
TEST_F(pageable, advice_vram_is_evicted_last)
{
	const uint64_t size = 4 * MiB, big = 2 * self->vram;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t moved;
	uint32_t h, hb;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, set_policy(&self->dev, "eviction_policy", "lru"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, big, &hb, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, hb, 0, PVA + 64 * MiB, big, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA, size,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_VRAM));
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));

	/* The advised chunks are the coldest, yet the stream evicts the rest. */
	ASSERT_EQ(0, stream_then_read(&self->dev, big, size, &pg0, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
	EXPECT_EQ(pg0.vm.bytes_to_vram, pg.vm.bytes_to_vram);

	/* Unmapped, the hint goes: the next stream may evict them. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, PVA, size));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, stream_then_read(&self->dev, big, size, &pg0, &pg));
	EXPECT_LT(pg0.vm.faults, pg.vm.faults);
}

/*
 * Dirtiness comes from the device's DIRTY bits, not from how a chunk is
 * mapped: chunks mapped writable (by PREFETCH, and by a read fault) but
 * only read go home without a copy back; a write needs no second fault;
 * only the chunk written is copied back, and every byte survives.
 */
TEST_F(pageable, dirty_bits_decide_copy_back)
{
	const uint64_t size = 4 * MiB, chunk = 2 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t *p, *res, i, moved;
	struct vgpu_cmd cmd;
	uint32_t h, rh;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, filled_pbo(&self->dev, size, 7, &h, &p));
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096, VGPU_PLACE_SYSTEM, 0, &rh));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, rh, 4096, (void **)&res));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, rh, 0, PVA - 2 * MiB, 4096, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);

	/* Prefetched (mapped writable), read by the GPU only: no copy back. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(size, moved);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_SYSTEM, &moved));
	EXPECT_EQ(size, moved);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
	EXPECT_EQ(pg0.vm.evictions + 2, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.bytes_to_system, pg.vm.bytes_to_system);
	EXPECT_EQ(pg0.device.bytes_to_system, pg.device.bytes_to_system);
	EXPECT_EQ(vgpu_fnv1a64(p, size), res[0]);	/* the CPU faults them home */

	/* Faulted in by a read, then written: no write-protect fault. */
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_LE(pg.vm.faults + 2, pg0.vm.faults);
	EXPECT_EQ(pg.vm.bytes_to_vram + size, pg0.vm.bytes_to_vram);
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_fill(&cmd, PVA + chunk, chunk, 0xc3c3c3c3);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);

	/* Only the written chunk is copied back, and every byte is right. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_SYSTEM, &moved));
	EXPECT_EQ(size, moved);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(pg.vm.evictions + 2, pg0.vm.evictions);
	EXPECT_EQ(pg.vm.bytes_to_system + chunk, pg0.vm.bytes_to_system);
	EXPECT_EQ(pg.device.bytes_to_system + chunk, pg0.device.bytes_to_system);
	for (i = 0; i < size / 8; i++) {
		uint64_t want = i >= chunk / 8 ? 0xc3c3c3c3c3c3c3c3ull : pattern(7, i);

		if (p[i] != want)
			break;
	}
	EXPECT_EQ(size / 8, i) TH_LOG("first bad qword %llu", (unsigned long long)i);
	vgpu_cmd_fini(&cmd);
	vgpu_bo_unmap(p, size);
	vgpu_bo_unmap(res, 4096);
}

/*
 * Automatic prefetch on a sequential stream (one lane: every lane of the
 * device would fault on every chunk at once): far fewer faults.
 */
TEST_F(pageable, stream_prefetch)
{
	const uint64_t size = 64 * MiB;
	struct drm_vgpu_query_paging a, b;
	uint32_t h;

	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, 2 * size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, 2 * size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch_run_lanes(&self->dev, 1, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
				     PVA, size, 64 * 1024, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &a));
	ASSERT_EQ(0, set_param("prefetch", "1"));
	ASSERT_EQ(0, touch_run_lanes(&self->dev, 1, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
				     PVA + size, size, 64 * 1024, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &b));
	EXPECT_EQ(size / (2 * MiB), a.vm.faults_resolved);
	EXPECT_GT(a.vm.faults_resolved / 3, b.vm.faults_resolved - a.vm.faults_resolved);
	EXPECT_LT(0, b.vm.prefetch_bytes);
	TH_LOG("faults: %llu without prefetch, %llu with",
	       (unsigned long long)a.vm.faults_resolved,
	       (unsigned long long)(b.vm.faults_resolved - a.vm.faults_resolved));
}

/*
 * One command faults on many chunks at once when it runs as many lanes:
 * 16 chunks read by one lane each fault together and are resolved in a
 * batch or a few, while one lane faults them one batch at a time.
 */
TEST_F(pageable, lanes_fault_at_once)
{
	const uint64_t size = 32 * MiB;
	struct drm_vgpu_query_paging a, b;
	uint32_t h;

	if (dev_lanes(&self->dev) < 16)
		SKIP(return, "device has %u lanes", dev_lanes(&self->dev));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, 2 * size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, 2 * size, VGPU_MAP_RW));
	ASSERT_EQ(0, touch_run_lanes(&self->dev, 1, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
				     PVA, size, 64 * 1024, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &a));
	ASSERT_EQ(0, touch_run_lanes(&self->dev, 16, 0, VGPU_TOUCH_STRIDED, VGPU_TOUCH_READ,
				     PVA + size, size, 64 * 1024, 0, 0));
	ASSERT_EQ(0, paging(&self->dev, &b));
	/* Both move the same 16 chunks, one fault each. */
	EXPECT_EQ(16, a.vm.faults);
	EXPECT_EQ(16, a.vm.fault_batches);
	EXPECT_EQ(16, b.vm.faults - a.vm.faults);
	EXPECT_EQ(2 * size, b.vm.bytes_to_vram);
	/*
	 * The 16 lanes' records arrive together (the handler may start on
	 * the first ones while the device writes the rest): a few batches.
	 */
	EXPECT_GT(4, b.vm.fault_batches - a.vm.fault_batches);
	TH_LOG("one lane: %llu faults in %llu batches; 16 lanes: %llu in %llu",
	       (unsigned long long)a.vm.faults, (unsigned long long)a.vm.fault_batches,
	       (unsigned long long)(b.vm.faults - a.vm.faults),
	       (unsigned long long)(b.vm.fault_batches - a.vm.fault_batches));
	vgpu_bo_close(&self->dev, h);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Sequential reads over @size, @passes times in one job. */
static int seq_passes(struct vgpu_dev *dev, uint64_t size, uint32_t passes)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, PVA, size,
		       0, 0, 0, passes);
	ret = vgpu_run(dev, 0, &cmd, 300 * SEC);
	vgpu_cmd_fini(&cmd);
	return ret;
}

/*
 * One job making progress through faults for more than the job timeout
 * completes: each REPLAY extends its timeout.  Sequential passes over
 * twice VRAM (and at least 512 MiB), with thrashing detection off, fault
 * on every chunk, pass after pass.  A
 * job that does not move still times out
 * (exec.hang_times_out_other_queues_carry_on).  Up to three rounds of
 * passes, each beyond three job timeouts: on a loaded host that takes
 * longer than the harness's default 30 s.
 */
TEST_F_TIMEOUT(pageable, faulting_job_outlives_timeout, 120)
{
	uint64_t size = 2 * self->vram > 512 * MiB ? 2 * self->vram : 512 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t timeout_ns, t, passes;
	unsigned int tries;
	char buf[32];
	uint32_t h;

	if (get_param("job_timeout_ms", buf, sizeof(buf)))
		SKIP(return, "no job_timeout_ms parameter");
	timeout_ns = strtoull(buf, NULL, 0) * 1000000ull;
	if (size > mem_total() / 2)
		SKIP(return, "guest RAM too small (run with --mem 2G)");
	set_param("prefetch", "0");
	/*
	 * No chunk pinned as thrashing: a pinned chunk is mapped remotely
	 * and faults no more, and a job that no longer faults inside one
	 * long TOUCH shows no progress (the thrashing window is wall time:
	 * on a fast run every chunk could be pinned at once).
	 */
	ASSERT_EQ(0, set_param("thrash_count", "0"));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));

	/* One warm pass (in a job of its own) tells how many make 3 timeouts. */
	ASSERT_EQ(0, seq_passes(&self->dev, size, 1));
	t = now_ns();
	ASSERT_EQ(0, seq_passes(&self->dev, size, 1));
	t = now_ns() - t;
	passes = timeout_ns * 3 / (t ?: 1) + 1;
	for (tries = 0; tries < 3; tries++, passes *= 2) {
		if (passes > 64)
			passes = 64;
		ASSERT_EQ(0, paging(&self->dev, &pg0));
		t = now_ns();
		ASSERT_EQ(0, seq_passes(&self->dev, size, passes));
		t = now_ns() - t;
		ASSERT_EQ(0, paging(&self->dev, &pg));
		if (t > timeout_ns || passes == 64)
			break;
	}
	TH_LOG("%llu passes over %llu MiB in %llu ms (timeout %llu ms), %llu faults resolved",
	       (unsigned long long)passes, (unsigned long long)(size >> 20),
	       (unsigned long long)(t / 1000000),
	       (unsigned long long)(timeout_ns / 1000000),
	       (unsigned long long)(pg.vm.faults_resolved - pg0.vm.faults_resolved));
	EXPECT_EQ(0, pg.vm.faults_cancelled);
	EXPECT_EQ(0, pg.vm.thrash_events - pg0.vm.thrash_events);
	EXPECT_LE(passes * (size / (2 * MiB)) / 2,
		  pg.vm.faults_resolved - pg0.vm.faults_resolved);
	if (t <= timeout_ns)
		SKIP(return, "could not make a job run longer than the timeout");
}

/*
 * One batch of faults that takes longer than two job timeouts is no hang
 * when its pages keep being handled: each faulting page the fault thread
 * handles counts as progress of its queue, not only the REPLAY at the end
 * of the batch.  (A debug kernel under TCG took 7 s for a batch of 17
 * pages of a CPU-address mirror, each evicting a block and bringing one
 * in.)  Debugfs slow_fault_pages_ms makes every page slow: eight lanes
 * fault on eight chunks at once, in one batch or two, each page handled
 * in 0.4 of a timeout per pass.
 */
TEST_F_TIMEOUT(pageable, slow_fault_batch_is_not_a_hang, 180)
{
	const uint64_t lanes = 8, size = lanes * 2 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t timeout_ms, batches, ns;
	char slow[PATH_MAX], buf[32];
	struct drm_vgpu_query_vm qvm;
	uint32_t h;

	if (dev_lanes(&self->dev) < lanes)
		SKIP(return, "device has %u lanes", dev_lanes(&self->dev));
	if (get_param("job_timeout_ms", buf, sizeof(buf)))
		SKIP(return, "no job_timeout_ms parameter");
	timeout_ms = strtoull(buf, NULL, 0);
	if (vgpu_test_debugfs_path(self->dev.fd, "slow_fault_pages_ms", slow,
				   sizeof(slow)))
		SKIP(return, "no debugfs");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(timeout_ms * 2 / 5));
	ASSERT_EQ(0, vgpu_test_write(slow, buf));
	EXPECT_EQ(0, touch_run_lanes(&self->dev, lanes, 0, VGPU_TOUCH_STRIDED,
				     VGPU_TOUCH_READ, PVA, size, 64 * 1024, 0, 0));
	ASSERT_EQ(0, vgpu_test_write(slow, "0"));
	ASSERT_EQ(0, paging(&self->dev, &pg));

	batches = pg.device.fault_batches - pg0.device.fault_batches;
	ns = pg.device.fault_ns - pg0.device.fault_ns;
	TH_LOG("%llu faults in %llu batches, %llu ms handling them (timeout %llu ms)",
	       (unsigned long long)(pg.vm.faults - pg0.vm.faults),
	       (unsigned long long)batches, (unsigned long long)(ns / 1000000),
	       (unsigned long long)timeout_ms);
	EXPECT_EQ(lanes, pg.vm.faults_resolved - pg0.vm.faults_resolved);
	EXPECT_EQ(0, pg.vm.faults_cancelled - pg0.vm.faults_cancelled);
	EXPECT_EQ(size, pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram);
	ASSERT_EQ(0, vgpu_query_vm(&self->dev, &qvm));
	EXPECT_EQ(0, qvm.state & DRM_VGPU_VM_STATE_BANNED);
	/* What makes it a test: some batch outlasted two timeouts. */
	ASSERT_LT(0, batches);
	EXPECT_LT(2 * timeout_ms * 1000000, ns / batches);
	vgpu_bo_close(&self->dev, h);
}

/* Pageable BOs beyond guest memory fail cleanly. */
TEST_F(pageable, out_of_memory_errno)
{
	const uint64_t step = 256 * MiB;
	uint64_t limit = 2 * mem_total();
	uint64_t made = 0;
	uint32_t h;
	int ret = 0;

	while (made < limit) {
		ret = vgpu_bo_create_pageable(&self->dev, step, &h, NULL);
		if (ret)
			break;
		made += step;
	}
	EXPECT_TRUE(ret == -ENOMEM || ret == -ENOSPC) TH_LOG("ret %d after %llu MiB", ret,
							     (unsigned long long)(made >> 20));
	EXPECT_GT(limit, made);
}

/* A CPU touch of one chunk of a 64 MiB pageable BO moves exactly that chunk. */
TEST_F(pageable, cpu_touch_moves_one_chunk)
{
	const uint64_t size = 64 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t moved, chunk, n, i, vram0;
	volatile uint32_t *p;
	uint32_t h;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	chunk = pg0.chunk_size;
	/* As many chunks as fit in half of VRAM, written by the GPU: dirty. */
	n = self->vram / 2 / chunk;
	if (n > size / chunk)
		n = size / chunk;
	ASSERT_LE(2, n);
	vram0 = fdinfo_u64(self->dev.fd, "drm-resident-vram");
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, n * chunk, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(n * chunk, moved);
	/* The chunks in VRAM are charged to the client that owns the BO. */
	EXPECT_EQ(vram0 + n * chunk, fdinfo_u64(self->dev.fd, "drm-resident-vram"));
	EXPECT_EQ(size, fdinfo_u64(self->dev.fd, "drm-resident-system"));
	ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_WRITE,
			       PVA, n * chunk, 0, 0, 7));
	ASSERT_EQ(0, paging(&self->dev, &pg0));

	/* One load from the CPU in the second chunk. */
	(void)p[(chunk + 12345 * 4) / 4];
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.evictions + 1, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.bytes_to_system + chunk, pg.vm.bytes_to_system);
	EXPECT_EQ(pg0.vm.bytes_to_vram, pg.vm.bytes_to_vram);
	EXPECT_EQ(vram0 + (n - 1) * chunk, fdinfo_u64(self->dev.fd, "drm-resident-vram"));

	/* A store in another chunk moves that one, and only it. */
	p[((n - 1) * chunk + 100) / 4] = 1;
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(pg.vm.evictions + 1, pg0.vm.evictions);

	/* The other chunks are still in VRAM: the GPU reads them without a fault. */
	pg = pg0;
	for (i = 2; i < n - 1; i++) {
		ASSERT_EQ(0, touch_run(&self->dev, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ,
				       PVA + i * chunk, chunk, 0, 0, 0));
	}
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(pg.vm.faults, pg0.vm.faults);
	vgpu_bo_unmap((void *)p, size);
}

/*
 * ptrace (/proc/<pid>/mem) on a CPU mapping of pageable memory sees what
 * the GPU wrote to a chunk in VRAM, and what it writes there is what the
 * GPU reads next: the chunk comes home for the access, and only it.
 */
TEST_F(pageable, ptrace_access_sees_the_gpus_writes)
{
	const uint64_t size = 4 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t chunk, moved, *res, want;
	struct vgpu_cmd cmd;
	uint32_t h, rh, *expect, word;
	uint8_t *p;
	off_t at;
	int mem;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, result_bo(&self->dev, &rh, &res));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	chunk = pg0.chunk_size;
	ASSERT_LE(2 * chunk, size);
	memset(p, 0x11, size);
	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, mem);

	/* The GPU fills the second chunk in VRAM; ptrace reads its data. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, PVA + chunk, chunk, 0x5a5a5a5a);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	at = (off_t)(uintptr_t)(p + chunk + 4096);
	ASSERT_EQ(4, pread(mem, &word, 4, at));
	EXPECT_EQ(0x5a5a5a5au, word);
	/* That chunk came home, written back; nothing else moved. */
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.evictions + 1, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.bytes_to_system + chunk, pg.vm.bytes_to_system);

	/* Into VRAM again; a ptrace write there is what the GPU then reads. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA + chunk, chunk, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(chunk, moved);
	word = 0xc0ffee;
	ASSERT_EQ(4, pwrite(mem, &word, 4, at + 8));
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_checksum(&cmd, PVA + chunk, chunk, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	expect = malloc(chunk);
	ASSERT_NE(NULL, expect);
	for (uint64_t i = 0; i < chunk / 4; i++)
		expect[i] = 0x5a5a5a5a;
	expect[(4096 + 8) / 4] = word;
	want = vgpu_fnv1a64(expect, chunk);
	EXPECT_EQ(want, res[0]);
	/* The CPU's own mapping agrees; the first chunk never left home. */
	EXPECT_EQ(0, memcmp(expect, p + chunk, chunk));
	EXPECT_EQ(0x11, p[100]);
	free(expect);
	close(mem);
	vgpu_cmd_fini(&cmd);
	vgpu_bo_unmap(res, 4096);
	vgpu_bo_unmap(p, size);
}

struct cpu_writer {
	volatile uint64_t *p;
	uint64_t n;
	volatile int stop;
	uint64_t rounds;
	uint64_t lost;
};

/*
 * Round r stores r in every qword, in order, after checking that the
 * qword still holds r - 1: anything else is a store of ours that was lost.
 */
static void *cpu_writer_main(void *arg)
{
	struct cpu_writer *w = arg;
	uint64_t r, i;

	for (r = 1; !w->stop; r++) {
		for (i = 0; i < w->n; i++) {
			if (w->p[i] != r - 1)
				w->lost++;
			w->p[i] = r;
		}
		w->rounds = r;
	}
	return NULL;
}

/*
 * A CPU thread stores counters through an mmap while the chunks move
 * into VRAM (prefetch, writable, so they are dirty) and back (prefetch to
 * system, CPU faults), and the GPU reads them: every store survives.
 */
TEST_F(pageable, cpu_stores_survive_migration)
{
	const uint64_t size = 8 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	struct cpu_writer w = { 0 };
	struct vgpu_cmd cmd;
	uint64_t moved, i, *res, bad = 0;
	struct timespec t0, t;
	pthread_t thr;
	uint32_t h, rh;
	int loops = 0;

	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&w.p));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, result_bo(&self->dev, &rh, &res));
	w.n = size / 8;
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	ASSERT_EQ(0, pthread_create(&thr, NULL, cpu_writer_main, &w));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	vgpu_cmd_init(&cmd);
	do {
		EXPECT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
		vgpu_cmd_reset(&cmd);
		vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
		EXPECT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
		EXPECT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_SYSTEM, &moved));
		loops++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4 || w.rounds < 3);
	w.stop = 1;
	pthread_join(thr, NULL);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	TH_LOG("%d migration loops, %llu CPU rounds, %llu stores lost, %llu MiB to VRAM",
	       loops, (unsigned long long)w.rounds, (unsigned long long)w.lost,
	       (unsigned long long)((pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram) >> 20));
	EXPECT_EQ(0, w.lost);
	EXPECT_LE(size, pg.vm.bytes_to_vram - pg0.vm.bytes_to_vram);
	/* The GPU only read: the CPU's stores stay home, nothing is copied back. */
	EXPECT_EQ(pg0.vm.bytes_to_system, pg.vm.bytes_to_system);

	/* The last round is whole, for the GPU and for the CPU. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	vgpu_cmd_fini(&cmd);
	for (i = 0; i < w.n; i++)
		bad += w.p[i] != w.rounds;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(vgpu_fnv1a64((const void *)w.p, size), res[0]);
	vgpu_bo_unmap((void *)w.p, size);
	vgpu_bo_unmap(res, 4096);
}

/*
 * How mapping A comes to map the chunk's system pages while mapping B
 * brings it into VRAM: the four orderings a review found writes lost in.
 */
enum two_maps_order {
	ORDER_POLICY_SWITCH,	/* A under "remote", B under "migrate" (writes) */
	ORDER_ACCESSED_BY,	/* evicted ACCESSED_BY: both remote; B prefetches */
	ORDER_ADVICE,		/* A preferred-system; B's range advised VRAM */
	ORDER_READ_ONLY,	/* A under "remote", B reads it into VRAM (clean) */
	ORDER_NR,
};

static const char *const two_maps_order_name[ORDER_NR] = {
	"policy switch", "accessed-by", "advice", "read-only use",
};

/* One side of the two-mappings test: a file, its VM and its VA. */
struct side {
	struct vgpu_dev *dev;
	uint64_t va;
};

/* Steps run by side A, maybe in another process. */
enum a_step { A_READ, A_FILL, A_ADVISE_SYSTEM, A_DONE };

static int side_touch(struct side *sd, uint32_t access)
{
	return touch_run(sd->dev, 0, VGPU_TOUCH_SEQUENTIAL, access, sd->va,
			 2 * MiB, 0, 0, 0);
}

static int side_fill(struct side *sd, uint64_t off, uint64_t len, uint32_t v)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, sd->va + off, len, v);
	ret = vgpu_run(sd->dev, 0, &cmd, 60 * SEC);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int a_step(struct side *a, enum a_step step)
{
	switch (step) {
	case A_READ:
		return side_touch(a, VGPU_TOUCH_READ);
	case A_FILL:
		return side_fill(a, 0, MiB, 0xaaaaaaaa);
	case A_ADVISE_SYSTEM:
		return vgpu_advise(a->dev, a->va, 2 * MiB,
				   DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_SYSTEM);
	case A_DONE:
		break;
	}
	return 0;
}

/* Side A in a child process: steps come down @cmd, results go up @res. */
struct remote_a {
	pid_t pid;
	int cmd, res;
};

static int run_a(struct side *a, struct remote_a *r, enum a_step step)
{
	int ret;

	if (!r)
		return a_step(a, step);
	if (write(r->cmd, &step, sizeof(step)) != sizeof(step) ||
	    read(r->res, &ret, sizeof(ret)) != sizeof(ret))
		return -EPIPE;
	return ret;
}

static int start_remote_a(struct remote_a *r, int dmabuf, uint64_t va)
{
	int down[2], up[2];

	if (pipe(down) || pipe(up))
		return -errno;
	r->pid = fork();
	if (r->pid < 0)
		return -errno;
	if (r->pid == 0) {
		struct vgpu_dev dev;
		struct side a = { &dev, va };
		enum a_step step;
		uint32_t h;
		int ret;

		close(down[1]);
		close(up[0]);
		ret = vgpu_open(&dev);
		if (!ret)
			ret = vgpu_bo_import(&dev, dmabuf, &h);
		if (!ret)
			ret = vgpu_vm_map(&dev, h, 0, va, 2 * MiB, VGPU_MAP_RW);
		if (write(up[1], &ret, sizeof(ret)) != sizeof(ret) || ret)
			_exit(1);
		while (read(down[0], &step, sizeof(step)) == sizeof(step) &&
		       step != A_DONE) {
			ret = a_step(&a, step);
			if (write(up[1], &ret, sizeof(ret)) != sizeof(ret))
				_exit(2);
		}
		vgpu_close(&dev);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	r->cmd = down[1];
	r->res = up[0];
	{
		int ret;

		if (read(r->res, &ret, sizeof(ret)) != sizeof(ret))
			return -EPIPE;
		return ret;
	}
}

static int stop_remote_a(struct remote_a *r)
{
	enum a_step step = A_DONE;
	int status;

	(void)!write(r->cmd, &step, sizeof(step));
	close(r->cmd);
	close(r->res);
	if (waitpid(r->pid, &status, 0) != r->pid)
		return -ECHILD;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/*
 * One 2 MiB chunk mapped at A and at B.  A comes to map its system pages
 * and B brings it into VRAM (@order); then A writes the first half, B the
 * second, B reads it all, the chunk is evicted, and the CPU reads it all.
 */
static void two_maps(struct __test_metadata *_metadata, struct vgpu_dev *dev,
		     enum two_maps_order order, bool other_process)
{
	const uint64_t size = 2 * MiB;
	uint64_t va_a = PVA, va_b = PVA + 64 * MiB, moved, i, *res, bad = 0;
	struct side b = { dev, va_b }, a = { dev, va_a };
	struct remote_a r, *ra = other_process ? &r : NULL;
	uint32_t h, rh, *p, want;
	struct vgpu_cmd cmd;
	int dmabuf = -1;

	ASSERT_EQ(0, set_policy(dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(dev, h, size, (void **)&p));
	memset(p, 0, size);
	ASSERT_EQ(0, vgpu_vm_map(dev, h, 0, va_b, size, VGPU_MAP_RW));
	if (ra) {
		ASSERT_EQ(0, vgpu_bo_export(dev, h, &dmabuf));
		ASSERT_EQ(0, start_remote_a(ra, dmabuf, va_a));
		close(dmabuf);
	} else {
		ASSERT_EQ(0, vgpu_vm_map(dev, h, 0, va_a, size, VGPU_MAP_RW));
	}
	ASSERT_EQ(0, vgpu_bo_create(dev, 4096, VGPU_PLACE_SYSTEM, 0, &rh));
	ASSERT_EQ(0, vgpu_bo_map(dev, rh, 4096, (void **)&res));
	ASSERT_EQ(0, vgpu_vm_map(dev, rh, 0, PVA - 2 * MiB, 4096, VGPU_MAP_RW));

	switch (order) {
	case ORDER_POLICY_SWITCH:
	case ORDER_READ_ONLY:
		ASSERT_EQ(0, set_policy(dev, "placement_policy", "remote"));
		ASSERT_EQ(0, run_a(&a, ra, A_READ));
		ASSERT_EQ(0, set_policy(dev, "placement_policy", "migrate"));
		ASSERT_EQ(0, side_touch(&b, order == ORDER_READ_ONLY ?
					VGPU_TOUCH_READ : VGPU_TOUCH_WRITE));
		break;
	case ORDER_ACCESSED_BY:
		ASSERT_EQ(0, vgpu_advise(dev, va_b, size, DRM_VGPU_ADVICE_ACCESSED_BY,
					 DRM_VGPU_ACCESSOR_GPU));
		ASSERT_EQ(0, vgpu_prefetch(dev, va_b, size, VGPU_PLACE_VRAM, &moved));
		ASSERT_EQ(0, vgpu_prefetch(dev, va_b, size, VGPU_PLACE_SYSTEM, &moved));
		ASSERT_EQ(0, vgpu_prefetch(dev, va_b, size, VGPU_PLACE_VRAM, &moved));
		EXPECT_EQ(size, moved);
		break;
	case ORDER_ADVICE:
		ASSERT_EQ(0, run_a(&a, ra, A_ADVISE_SYSTEM));
		ASSERT_EQ(0, run_a(&a, ra, A_READ));
		ASSERT_EQ(0, vgpu_advise(dev, va_b, size, DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
					 VGPU_PLACE_VRAM));
		break;
	default:
		break;
	}

	ASSERT_EQ(0, run_a(&a, ra, A_FILL));
	ASSERT_EQ(0, side_fill(&b, MiB, MiB, 0xbbbbbbbb));
	/* B sees A's half. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_checksum(&cmd, va_b, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(dev, 0, &cmd, 60 * SEC));
	vgpu_cmd_fini(&cmd);
	/* Back home, written back: the CPU sees both halves. */
	ASSERT_EQ(0, vgpu_prefetch(dev, va_b, size, VGPU_PLACE_SYSTEM, &moved));
	for (i = 0; i < size / 4; i++) {
		want = i < MiB / 4 ? 0xaaaaaaaa : 0xbbbbbbbb;
		bad += p[i] != want;
	}
	EXPECT_EQ(0, bad) TH_LOG("%s%s: %llu words lost", two_maps_order_name[order],
				 ra ? ", two processes" : "", (unsigned long long)bad);
	EXPECT_EQ(vgpu_fnv1a64(p, size), res[0]) TH_LOG("%s%s: B read stale data",
						       two_maps_order_name[order],
						       ra ? ", two processes" : "");
	if (ra)
		EXPECT_EQ(0, stop_remote_a(ra));
	vgpu_bo_unmap(p, size);
	vgpu_bo_unmap(res, 4096);
	ASSERT_EQ(0, vgpu_vm_unmap(dev, PVA - 2 * MiB, 4096));
	ASSERT_EQ(0, vgpu_vm_unmap(dev, va_b, size));
	if (!ra)
		ASSERT_EQ(0, vgpu_vm_unmap(dev, va_a, size));
	ASSERT_EQ(0, vgpu_bo_close(dev, h));
	ASSERT_EQ(0, vgpu_bo_close(dev, rh));
}

/* Every ordering, with A in this process or in another. */
static void two_maps_all(struct __test_metadata *_metadata, struct vgpu_dev *dev,
			 bool other_process)
{
	int o;

	set_param("prefetch", "0");
	for (o = 0; o < ORDER_NR; o++)
		two_maps(_metadata, dev, o, other_process);
}

/* One chunk at two VAs of one VM: writes through each survive. */
TEST_F(pageable, writes_through_two_vas_survive)
{
	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	two_maps_all(_metadata, &self->dev, false);
}

/* One chunk shared by two processes: writes through each survive. */
TEST_F(pageable, writes_from_two_processes_survive)
{
	if (geteuid())
		SKIP(return, "needs root to write sysfs");
	two_maps_all(_metadata, &self->dev, true);
}

/*
 * A fault's victims are written back in the fault's own batch: with VRAM
 * full of chunks the GPU wrote, each fault batch evicts a dirty chunk,
 * queues its copy back and the copy into the VRAM it gives up in one copy
 * job, and waits once: copy jobs stay at one per batch, not one more per
 * victim.  Every chunk keeps what the GPU wrote.
 */
TEST_F(pageable, victims_written_back_in_the_batch)
{
	const uint64_t chunk = 2 * MiB, size = 2 * self->vram;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t jobs0, jobs, batches, back, i;
	struct vgpu_cmd cmd;
	uint32_t *p, h;

	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, set_policy(&self->dev, "eviction_policy", "lru"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	jobs0 = dev_counter(&self->dev, "copy_jobs");
	ASSERT_NE(~0ull, jobs0);

	/* Each chunk its own value: the second half evicts the first. */
	vgpu_cmd_init(&cmd);
	for (i = 0; i < size / chunk; i++)
		vgpu_cmd_fill(&cmd, PVA + i * chunk, chunk, 0x5a000000u + (uint32_t)i);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 120 * SEC));
	vgpu_cmd_fini(&cmd);

	jobs = dev_counter(&self->dev, "copy_jobs") - jobs0;
	ASSERT_EQ(0, paging(&self->dev, &pg));
	batches = pg.vm.fault_batches - pg0.vm.fault_batches;
	back = (pg.vm.bytes_to_system - pg0.vm.bytes_to_system) / chunk;
	TH_LOG("%llu batches, %llu chunks written back, %llu copy jobs",
	       (unsigned long long)batches, (unsigned long long)back,
	       (unsigned long long)jobs);
	EXPECT_EQ(0, pg.vm.faults_cancelled - pg0.vm.faults_cancelled);
	/* Dirty victims: about half the BO went back while the rest came in. */
	EXPECT_LE(size / chunk / 2 - 4, back);
	/* One job per batch, copies back included (page tables: none). */
	EXPECT_GE(batches + 2, jobs);
	EXPECT_LT(jobs, batches + back);

	/* The CPU takes every chunk home: each holds its value. */
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	for (i = 0; i < size / 4; i++)
		if (p[i] != 0x5a000000u + (uint32_t)(i * 4 / chunk))
			break;
	EXPECT_EQ(size / 4, i) TH_LOG("first bad word %llu", (unsigned long long)i);
	vgpu_bo_unmap(p, size);
}

/*
 * A batch's victims give up their mappings first and wait for the TLB
 * once, together: sending sixteen chunks home (eight the GPU wrote, eight
 * it only read) takes one or two invalidations, not sixteen, copies back
 * exactly the eight written (the clean ones' copies back, queued before
 * the bits were final, are cancelled), and every byte arrives.
 */
TEST_F(pageable, victims_share_one_tlb_invalidation)
{
	const uint64_t chunk = 2 * MiB, size = 16 * chunk;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t *p, *res, i, moved, inval0, inval, jobs0, jobs;
	struct vgpu_cmd cmd;
	uint32_t h, rh;

	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, filled_pbo(&self->dev, size, 13, &h, &p));
	ASSERT_EQ(0, result_bo(&self->dev, &rh, &res));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));

	/* All in VRAM and mapped; the GPU writes every other chunk. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
	ASSERT_EQ(size, moved);
	vgpu_cmd_init(&cmd);
	for (i = 0; i < size / chunk; i += 2)
		vgpu_cmd_fill(&cmd, PVA + i * chunk, chunk, 0x77000000u + (uint32_t)i);
	vgpu_cmd_checksum(&cmd, PVA + chunk, chunk, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	vgpu_cmd_fini(&cmd);

	ASSERT_EQ(0, paging(&self->dev, &pg0));
	inval0 = dev_counter(&self->dev, "tlb_invalidations");
	jobs0 = dev_counter(&self->dev, "copy_jobs");
	ASSERT_NE(~0ull, inval0);
	ASSERT_NE(~0ull, jobs0);
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_SYSTEM, &moved));
	inval = dev_counter(&self->dev, "tlb_invalidations") - inval0;
	jobs = dev_counter(&self->dev, "copy_jobs") - jobs0;
	ASSERT_EQ(0, paging(&self->dev, &pg));
	TH_LOG("16 victims: %llu TLB invalidations, %llu copy jobs",
	       (unsigned long long)inval, (unsigned long long)jobs);
	EXPECT_EQ(size, moved);
	EXPECT_EQ(pg0.vm.evictions + 16, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.bytes_to_system + 8 * chunk, pg.vm.bytes_to_system);
	EXPECT_EQ(pg0.device.bytes_to_system + 8 * chunk, pg.device.bytes_to_system);
	EXPECT_LE(1, inval);
	EXPECT_GE(2, inval);
	EXPECT_GE(2, jobs);

	for (i = 0; i < size / 8; i++) {
		uint64_t c = i * 8 / chunk, v = 0x77000000u + c;
		uint64_t want = c & 1 ? pattern(13, i) : v << 32 | v;

		if (p[i] != want)
			break;
	}
	EXPECT_EQ(size / 8, i) TH_LOG("first bad qword %llu", (unsigned long long)i);
	vgpu_bo_unmap(p, size);
	vgpu_bo_unmap(res, 4096);
}

/*
 * GPU stores racing evictions for a batch: job j stores its own value in
 * line j of every 4 KiB page of a BO while the CPU sends the BO home and
 * back, job after job.  Each store must survive every later eviction: a
 * victim the device wrote before its leaves went, or through a
 * translation it still cached until the batch's one TLB invalidation, is
 * copied back, never cancelled.
 */
TEST_F(pageable, gpu_stores_survive_batched_evictions)
{
	const uint64_t size = 4 * MiB, page = 4096, line = 64, jobs = 24;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t moved, i, j, bad = 0;
	struct vgpu_cmd cmd;
	uint32_t h, sync, *p;

	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &sync));
	ASSERT_EQ(0, paging(&self->dev, &pg0));

	vgpu_cmd_init(&cmd);
	for (j = 0; j < jobs; j++) {
		vgpu_cmd_reset(&cmd);
		for (i = 0; i < size / page; i++)
			vgpu_cmd_fill(&cmd, PVA + i * page + j * line, line,
				      0x3c000000u + (uint32_t)(j << 12 | i));
		ASSERT_EQ(0, vgpu_submit(&self->dev, 1, &cmd, NULL, 0, sync));
		EXPECT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_SYSTEM,
					   &moved));
		EXPECT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM,
					   &moved));
		ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, sync, 60 * SEC));
		EXPECT_EQ(1, vgpu_syncobj_status(&self->dev, sync));
	}
	vgpu_cmd_fini(&cmd);
	/* Home once more, by a batch: what the CPU reads went through one. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_SYSTEM, &moved));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	TH_LOG("%llu MiB written back, %llu faults", (unsigned long long)
	       ((pg.vm.bytes_to_system - pg0.vm.bytes_to_system) >> 20),
	       (unsigned long long)(pg.vm.faults - pg0.vm.faults));
	EXPECT_EQ(0, pg.vm.faults_cancelled - pg0.vm.faults_cancelled);

	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	for (i = 0; i < size / page; i++)
		for (j = 0; j < jobs; j++)
			bad += p[(i * page + j * line) / 4] !=
			       0x3c000000u + (uint32_t)(j << 12 | i);
	EXPECT_EQ(0, bad);
	vgpu_bo_unmap(p, size);
}

/*
 * PREFETCH queues the copies of its whole range in one batch, waited for
 * once: eight chunks take one or two copy jobs (a job holds at least four
 * chunks of 4 KiB pieces), not eight; the data arrives and is mapped.
 */
TEST_F(pageable, prefetch_batches_its_copies)
{
	const uint64_t size = 16 * MiB;
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t *p, *res, sum, jobs0, jobs, moved = 0;
	struct vgpu_cmd cmd;
	uint32_t h, rh;

	ASSERT_EQ(0, set_param("prefetch", "0"));
	ASSERT_EQ(0, set_policy(&self->dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, filled_pbo(&self->dev, size, 11, &h, &p));
	sum = vgpu_fnv1a64(p, size);
	ASSERT_EQ(0, result_bo(&self->dev, &rh, &res));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, PVA, size, VGPU_MAP_RW));

	jobs0 = dev_counter(&self->dev, "copy_jobs");
	ASSERT_NE(~0ull, jobs0);
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
	jobs = dev_counter(&self->dev, "copy_jobs") - jobs0;
	EXPECT_EQ(size, moved);
	EXPECT_LE(1, jobs);
	EXPECT_GE(2, jobs) TH_LOG("%llu copy jobs for 8 chunks", (unsigned long long)jobs);

	/* In VRAM and mapped: the GPU reads the CPU's bytes without a fault. */
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_checksum(&cmd, PVA, size, PVA - 2 * MiB);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
	vgpu_cmd_fini(&cmd);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(sum, res[0]);
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
	EXPECT_EQ(pg0.vm.bytes_to_vram, pg.vm.bytes_to_vram);
	EXPECT_EQ(size, pg.vm.prefetch_bytes);

	/* Again: nothing to copy, nothing submitted. */
	jobs0 = dev_counter(&self->dev, "copy_jobs");
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, size, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(jobs0, dev_counter(&self->dev, "copy_jobs"));
	vgpu_bo_unmap(p, size);
	vgpu_bo_unmap(res, 4096);
}

/*
 * A READ_MOSTLY pageable BO of @size at PVA, filled by the CPU with
 * pattern(@seed), shared with another process that maps its first chunk
 * at PVA + 64 MiB (side A); a result BO at PVA - 2 MiB.
 */
struct rm {
	struct vgpu_dev *dev;
	uint64_t size, *p, *res;
	uint32_t h, rh;
	struct side a;
	struct remote_a r;
	struct vgpu_cmd cmd;
};

static void rm_setup(struct __test_metadata *_metadata, struct rm *rm,
		     struct vgpu_dev *dev, uint64_t size, uint64_t seed)
{
	struct drm_vgpu_query_paging pg;
	uint64_t i;
	int dmabuf;

	rm->dev = dev;
	rm->size = size;
	rm->a = (struct side){ dev, PVA + 64 * MiB };
	set_param("prefetch", "0");
	ASSERT_EQ(0, set_policy(dev, "placement_policy", "migrate"));
	ASSERT_EQ(0, paging(dev, &pg));
	ASSERT_EQ(2 * MiB, pg.chunk_size);	/* side A maps one chunk */
	ASSERT_EQ(0, vgpu_bo_create_pageable(dev, size, &rm->h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(dev, rm->h, size, (void **)&rm->p));
	for (i = 0; i < size / 8; i++)
		rm->p[i] = pattern(seed, i);
	ASSERT_EQ(0, vgpu_vm_map(dev, rm->h, 0, PVA, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_bo_create(dev, 4096, VGPU_PLACE_SYSTEM, 0, &rm->rh));
	ASSERT_EQ(0, vgpu_bo_map(dev, rm->rh, 4096, (void **)&rm->res));
	ASSERT_EQ(0, vgpu_vm_map(dev, rm->rh, 0, PVA - 2 * MiB, 4096, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_bo_export(dev, rm->h, &dmabuf));
	ASSERT_EQ(0, start_remote_a(&rm->r, dmabuf, rm->a.va));
	close(dmabuf);
	ASSERT_EQ(0, vgpu_advise(dev, PVA, size, DRM_VGPU_ADVICE_READ_MOSTLY, 1));
	vgpu_cmd_init(&rm->cmd);
}

/* The GPU reads the whole BO in this VM: the checksum of what it read. */
static uint64_t rm_gpu_sum(struct __test_metadata *_metadata, struct rm *rm)
{
	vgpu_cmd_reset(&rm->cmd);
	vgpu_cmd_checksum(&rm->cmd, PVA, rm->size, PVA - 2 * MiB);
	EXPECT_EQ(0, vgpu_run(rm->dev, 0, &rm->cmd, 60 * SEC));
	return rm->res[0];
}

static void rm_teardown(struct __test_metadata *_metadata, struct rm *rm)
{
	EXPECT_EQ(0, stop_remote_a(&rm->r));
	vgpu_cmd_fini(&rm->cmd);
	vgpu_bo_unmap(rm->p, rm->size);
	vgpu_bo_unmap(rm->res, 4096);
	EXPECT_EQ(0, vgpu_bo_close(rm->dev, rm->h));
	EXPECT_EQ(0, vgpu_bo_close(rm->dev, rm->rh));
}

/*
 * READ_MOSTLY: the GPU's reads, from two VMs in two processes, and the
 * CPU's see the same data; the chunk is duplicated once (the CPU's reads
 * do not send it home, the GPU's do not fault again), and evicting it
 * copies nothing back.
 */
TEST_F(pageable, read_mostly_duplicates)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t dups, moved, want;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 2 * MiB, 21);
	dups = dev_counter(&self->dev, "read_mostly_dups");
	EXPECT_NE(~0ull, dups);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	want = vgpu_fnv1a64(rm.p, rm.size);
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, run_a(&rm.a, &rm.r, A_READ));
	/* The CPU reads its pages while the VRAM copy stays. */
	EXPECT_EQ(want, vgpu_fnv1a64(rm.p, rm.size));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.evictions, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.bytes_to_vram + rm.size, pg.vm.bytes_to_vram);
	EXPECT_EQ(dups + 1, dev_counter(&self->dev, "read_mostly_dups"));
	/* Still mapped for the GPU: no fault. */
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(pg.vm.faults, pg0.vm.faults);
	/* Eviction: both copies valid, nothing to copy back. */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, rm.size, VGPU_PLACE_SYSTEM, &moved));
	EXPECT_EQ(rm.size, moved);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.evictions + 1, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.bytes_to_system, pg.vm.bytes_to_system);
	EXPECT_EQ(pg0.device.bytes_to_system, pg.device.bytes_to_system);
	EXPECT_EQ(want, vgpu_fnv1a64(rm.p, rm.size));
	rm_teardown(_metadata, &rm);
}

/*
 * A GPU write collapses a duplicated chunk to its VRAM copy: the CPU,
 * which had the system pages mapped read-only, then reads the GPU's data.
 */
TEST_F(pageable, read_mostly_gpu_write_collapses)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t col, i, bad = 0;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 2 * MiB, 22);
	EXPECT_EQ(vgpu_fnv1a64(rm.p, rm.size), rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, run_a(&rm.a, &rm.r, A_READ));
	EXPECT_EQ(pattern(22, 5), rm.p[5]);	/* mapped by the CPU again */
	col = dev_counter(&self->dev, "read_mostly_collapses");
	EXPECT_NE(~0ull, col);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	/* Side A writes its first half, then this VM the second. */
	ASSERT_EQ(0, run_a(&rm.a, &rm.r, A_FILL));
	ASSERT_EQ(0, side_fill(&(struct side){ &self->dev, PVA }, MiB, MiB, 0x5a5a5a5a));
	EXPECT_EQ(col + 1, dev_counter(&self->dev, "read_mostly_collapses"));
	for (i = 0; i < rm.size / 8; i++)
		bad += rm.p[i] != (i < MiB / 8 ? 0xaaaaaaaaaaaaaaaaull : 0x5a5a5a5a5a5a5a5aull);
	EXPECT_EQ(0, bad);
	/* The CPU's read copied the written copy back (duplicating it). */
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.device.bytes_to_system + rm.size, pg.device.bytes_to_system);
	rm_teardown(_metadata, &rm);
}

/*
 * A CPU write collapses a duplicated chunk to its system pages: the VRAM
 * copy goes without a copy back, and the GPU then reads the CPU's data.
 */
TEST_F(pageable, read_mostly_cpu_write_collapses)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t col, i, want;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 2 * MiB, 23);
	EXPECT_EQ(vgpu_fnv1a64(rm.p, rm.size), rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, run_a(&rm.a, &rm.r, A_READ));
	EXPECT_EQ(pattern(23, 7), rm.p[7]);	/* a read-only CPU mapping */
	col = dev_counter(&self->dev, "read_mostly_collapses");
	EXPECT_NE(~0ull, col);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	for (i = 0; i < rm.size / 8; i++)
		rm.p[i] = pattern(24, i);
	want = vgpu_fnv1a64(rm.p, rm.size);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(col + 1, dev_counter(&self->dev, "read_mostly_collapses"));
	EXPECT_EQ(pg0.device.bytes_to_system, pg.device.bytes_to_system);
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, run_a(&rm.a, &rm.r, A_READ));
	EXPECT_EQ(want, vgpu_fnv1a64(rm.p, rm.size));
	rm_teardown(_metadata, &rm);
}

/*
 * Clearing the advice collapses a duplicated chunk to its VRAM copy: the
 * CPU then brings it home like any chunk in VRAM, and is never duplicated
 * again by a GPU read.
 */
TEST_F(pageable, read_mostly_cleared_collapses)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t col, dups, want, moved;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 2 * MiB, 25);
	want = vgpu_fnv1a64(rm.p, rm.size);
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	col = dev_counter(&self->dev, "read_mostly_collapses");
	EXPECT_NE(~0ull, col);
	ASSERT_EQ(0, vgpu_advise(&self->dev, PVA, rm.size, DRM_VGPU_ADVICE_READ_MOSTLY, 0));
	EXPECT_EQ(col + 1, dev_counter(&self->dev, "read_mostly_collapses"));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(want, vgpu_fnv1a64(rm.p, rm.size));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.evictions + 1, pg.vm.evictions);	/* one copy, sent home */
	dups = dev_counter(&self->dev, "read_mostly_dups");
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, PVA, rm.size, VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(rm.size, moved);
	EXPECT_EQ(dups, dev_counter(&self->dev, "read_mostly_dups"));
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	rm_teardown(_metadata, &rm);
}

/*
 * A CPU read of a READ_MOSTLY chunk the GPU wrote (in VRAM only)
 * duplicates it back instead of bringing it home: the dirty copy is
 * copied back, the VRAM copy stays, and the GPU reads it again without a
 * migration; a CPU write then collapses it without a copy back.
 */
TEST_F(pageable, read_mostly_cpu_read_duplicates_back)
{
	struct drm_vgpu_query_paging pg0, pg;
	uint64_t dups, col, used, i, bad = 0, want;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 2 * MiB, 26);
	EXPECT_EQ(vgpu_fnv1a64(rm.p, rm.size), rm_gpu_sum(_metadata, &rm));
	/* A GPU write collapses it to VRAM, dirty. */
	ASSERT_EQ(0, side_fill(&(struct side){ &self->dev, PVA }, 0, rm.size, 0x3c3c3c3c));
	dups = dev_counter(&self->dev, "read_mostly_dups");
	ASSERT_NE(~0ull, dups);
	used = vram_mm_used(&self->dev);
	ASSERT_NE(~0ull, used);
	ASSERT_EQ(0, paging(&self->dev, &pg0));

	for (i = 0; i < rm.size / 8; i++)
		bad += rm.p[i] != 0x3c3c3c3c3c3c3c3cull;
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(dups + 1, dev_counter(&self->dev, "read_mostly_dups"));
	EXPECT_EQ(pg0.device.bytes_to_system + rm.size, pg.device.bytes_to_system);
	EXPECT_EQ(pg0.device.evictions, pg.device.evictions);
	EXPECT_EQ(used, vram_mm_used(&self->dev));

	/* The GPU reads the VRAM copy again: nothing moves. */
	want = vgpu_fnv1a64(rm.p, rm.size);
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	EXPECT_EQ(pg.device.bytes_to_vram, pg0.device.bytes_to_vram);

	/* A CPU write drops the clean VRAM copy: no copy back. */
	col = dev_counter(&self->dev, "read_mostly_collapses");
	for (i = 0; i < rm.size / 8; i++)
		rm.p[i] = pattern(27, i);
	want = vgpu_fnv1a64(rm.p, rm.size);
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(col + 1, dev_counter(&self->dev, "read_mostly_collapses"));
	EXPECT_EQ(pg0.device.bytes_to_system, pg.device.bytes_to_system);
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	rm_teardown(_metadata, &rm);
}

/*
 * Hostile: a GPU write through a read-only mapping (another file's VM)
 * of a duplicated chunk is refused, collapses nothing and writes nothing:
 * both copies stay valid and in use.
 */
TEST_F(pageable, read_mostly_write_through_read_only_mapping_refused)
{
	struct drm_vgpu_query_paging pg0, pg;
	struct vgpu_dev other;
	struct vgpu_cmd cmd;
	uint64_t col, want;
	uint32_t oh;
	int dmabuf;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 2 * MiB, 26);
	want = vgpu_fnv1a64(rm.p, rm.size);
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, vgpu_open(&other));
	ASSERT_EQ(0, vgpu_bo_export(&self->dev, rm.h, &dmabuf));
	ASSERT_EQ(0, vgpu_bo_import(&other, dmabuf, &oh));
	close(dmabuf);
	ASSERT_EQ(0, vgpu_vm_map(&other, oh, 0, PVA, rm.size, VGPU_MAP_R));
	col = dev_counter(&self->dev, "read_mostly_collapses");
	EXPECT_NE(~0ull, col);
	ASSERT_EQ(0, paging(&self->dev, &pg0));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, PVA, 4096, 0x66666666);
	EXPECT_NE(0, vgpu_run(&other, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
	vgpu_close(&other);
	EXPECT_EQ(col, dev_counter(&self->dev, "read_mostly_collapses"));
	/* Still duplicated: the CPU reads home, the GPU reads VRAM. */
	EXPECT_EQ(want, vgpu_fnv1a64(rm.p, rm.size));
	EXPECT_EQ(want, rm_gpu_sum(_metadata, &rm));
	ASSERT_EQ(0, paging(&self->dev, &pg));
	EXPECT_EQ(pg0.vm.evictions, pg.vm.evictions);
	EXPECT_EQ(pg0.vm.faults, pg.vm.faults);
	rm_teardown(_metadata, &rm);
}

/*
 * A CPU thread stores counters into a READ_MOSTLY BO while the GPU reads
 * it from two VMs and PREFETCH duplicates it again and again: no store
 * is lost, and the GPU reads the last round.
 */
TEST_F(pageable, read_mostly_cpu_writer_gpu_readers)
{
	struct cpu_writer w = { 0 };
	struct timespec t0, t;
	uint64_t dups, moved, i, bad = 0;
	pthread_t thr;
	int loops = 0;
	struct rm rm;

	rm_setup(_metadata, &rm, &self->dev, 4 * MiB, 0);
	memset(rm.p, 0, rm.size);
	dups = dev_counter(&self->dev, "read_mostly_dups");
	EXPECT_NE(~0ull, dups);
	w.p = rm.p;
	w.n = rm.size / 8;
	ASSERT_EQ(0, pthread_create(&thr, NULL, cpu_writer_main, &w));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		EXPECT_EQ(0, vgpu_prefetch(&self->dev, PVA, rm.size, VGPU_PLACE_VRAM, &moved));
		rm_gpu_sum(_metadata, &rm);
		EXPECT_EQ(0, run_a(&rm.a, &rm.r, A_READ));
		loops++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4 || w.rounds < 3);
	w.stop = 1;
	pthread_join(thr, NULL);
	TH_LOG("%d loops, %llu CPU rounds, %llu stores lost, %llu duplications",
	       loops, (unsigned long long)w.rounds, (unsigned long long)w.lost,
	       (unsigned long long)(dev_counter(&self->dev, "read_mostly_dups") - dups));
	EXPECT_EQ(0, w.lost);
	EXPECT_LE(dups + 2, dev_counter(&self->dev, "read_mostly_dups"));
	for (i = 0; i < w.n; i++)
		bad += rm.p[i] != w.rounds;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(vgpu_fnv1a64(rm.p, rm.size), rm_gpu_sum(_metadata, &rm));
	rm_teardown(_metadata, &rm);
}

TEST_HARNESS_MAIN
