// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DRM_IOCTL_VGPU_BO_CREATE, BO_MMAP_OFFSET, WAIT_BO, QUERY(MEMORY): every
 * placement, zeroed memory, CPU data integrity through mmap, eviction when
 * VRAM is full, every refused argument, allocator accounting back to zero.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

static uint64_t user_vram(struct vgpu_dev *dev)
{
	struct drm_vgpu_query_memory m;

	if (vgpu_query_memory(dev, &m))
		return ~0ull;
	return m.vram_used - m.vram_kernel_used;
}

static void fill_pattern(uint64_t *p, size_t size, uint64_t seed)
{
	size_t i;

	for (i = 0; i < size / 8; i++)
		p[i] = seed ^ (i * 0x9e3779b97f4a7c15ull);
}

static size_t check_pattern(const uint64_t *p, size_t size, uint64_t seed)
{
	size_t i, bad = 0;

	for (i = 0; i < size / 8; i++)
		bad += p[i] != (seed ^ (i * 0x9e3779b97f4a7c15ull));
	return bad;
}

FIXTURE(bo) {
	struct vgpu_dev dev;
};

FIXTURE_VARIANT(bo) {
	uint32_t placements;
	uint32_t flags;
};

FIXTURE_VARIANT_ADD(bo, vram) { .placements = VGPU_PLACE_VRAM };
FIXTURE_VARIANT_ADD(bo, system) { .placements = VGPU_PLACE_SYSTEM };
FIXTURE_VARIANT_ADD(bo, both) { .placements = VGPU_PLACE_ALL };
FIXTURE_VARIANT_ADD(bo, vram_contiguous) {
	.placements = VGPU_PLACE_VRAM, .flags = DRM_VGPU_BO_CONTIGUOUS,
};
FIXTURE_VARIANT_ADD(bo, vram_cpu_access) {
	.placements = VGPU_PLACE_VRAM, .flags = DRM_VGPU_BO_CPU_ACCESS,
};

FIXTURE_SETUP(bo)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
}

FIXTURE_TEARDOWN(bo)
{
	vgpu_close(&self->dev);
}

TEST_F(bo, create_rounds_and_closes)
{
	struct drm_vgpu_bo_create bc = {
		.size = 5000, .placements = variant->placements,
		.flags = variant->flags,
	};

	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &bc));
	EXPECT_EQ(8192, bc.size);
	EXPECT_NE(0, bc.handle);
	EXPECT_EQ(0, vgpu_bo_close(&self->dev, bc.handle));
	EXPECT_EQ(-EINVAL, vgpu_bo_close(&self->dev, bc.handle));
}

TEST_F(bo, memory_is_zeroed_and_keeps_data)
{
	const size_t size = 1 << 20;
	uint32_t h;
	uint64_t *p;
	size_t i, nonzero = 0;

	/* Dirty memory first, so a missing clear would show. */
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, variant->placements,
				    variant->flags, &h));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	memset(p, 0xa5, size);
	vgpu_bo_unmap(p, size);
	vgpu_bo_close(&self->dev, h);

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, variant->placements,
				    variant->flags, &h));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	for (i = 0; i < size / 8; i++)
		nonzero += p[i] != 0;
	EXPECT_EQ(0, nonzero);
	fill_pattern(p, size, 42);
	vgpu_bo_unmap(p, size);
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	EXPECT_EQ(0, check_pattern(p, size, 42));
	vgpu_bo_unmap(p, size);
	EXPECT_EQ(0, vgpu_bo_close(&self->dev, h));
}

TEST_F(bo, wait_idle_bo)
{
	uint32_t h;

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096, variant->placements,
				    variant->flags, &h));
	EXPECT_EQ(0, vgpu_bo_wait(&self->dev, h, 0));
	EXPECT_EQ(0, vgpu_bo_wait(&self->dev, h, 1000000));
	vgpu_bo_close(&self->dev, h);
}

TEST_F(bo, alignment_2m)
{
	struct drm_vgpu_bo_create bc = {
		.size = 3 << 20, .placements = variant->placements,
		.flags = variant->flags, .alignment = 2 << 20,
	};

	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &bc));
	/* The alignment is VRAM's: a system-only BO is not rounded to it. */
	EXPECT_EQ(variant->placements & VGPU_PLACE_VRAM ? 4 << 20 : 3 << 20, bc.size);
	vgpu_bo_close(&self->dev, bc.handle);
}

/*
 * Small BAR: a VRAM BO larger than the CPU-visible window is seen by the
 * CPU in system memory; mapping never fails because of the window.
 */
TEST_F(bo, larger_than_window_maps)
{
	const uint64_t size = self->dev.visible_size + (1 << 20);
	struct drm_vgpu_query_memory before, after;
	uint64_t *p;
	uint32_t h;

	if (!(variant->placements & VGPU_PLACE_VRAM) ||
	    (variant->flags & DRM_VGPU_BO_CPU_ACCESS))
		SKIP(return, "VRAM placements outside the window only");
	if (size + (8 << 20) > self->dev.vram_size)
		SKIP(return, "no VRAM beyond the CPU-visible window (run with --visible)");
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, variant->placements,
				    variant->flags, &h));
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &before));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	fill_pattern(p, size, 7);
	vgpu_bo_unmap(p, size);
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &after));
	EXPECT_LE(before.system_used + size, after.system_used);
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
	EXPECT_EQ(0, check_pattern(p, size, 7));
	vgpu_bo_unmap(p, size);
	EXPECT_EQ(0, vgpu_bo_close(&self->dev, h));
}

/*
 * Fill VRAM twice over with VRAM-preferring BOs, each with its own pattern
 * written and read back through the CPU (so each one also passes through
 * the CPU-visible window): TTM must evict, and nothing may be lost.
 */
TEST_F(bo, eviction_keeps_contents)
{
	struct drm_vgpu_query_memory before, after;
	const size_t size = 4 << 20;
	uint64_t limit;
	uint32_t *h;
	int i, n;

	if (!(variant->placements & VGPU_PLACE_VRAM))
		SKIP(return, "VRAM placements only");
	limit = self->dev.vram_size;
	if (variant->flags & DRM_VGPU_BO_CPU_ACCESS)
		limit = self->dev.visible_size;
	n = 2 * limit / size;
	h = calloc(n, sizeof(*h));
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &before));

	for (i = 0; i < n; i++) {
		uint64_t *p;

		ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, variant->placements,
					    variant->flags, &h[i])) TH_LOG("BO %d", i);
		ASSERT_EQ(0, vgpu_bo_map(&self->dev, h[i], size, (void **)&p));
		fill_pattern(p, size, i);
		vgpu_bo_unmap(p, size);
	}
	for (i = 0; i < n; i++) {
		uint64_t *p;

		ASSERT_EQ(0, vgpu_bo_map(&self->dev, h[i], size, (void **)&p));
		EXPECT_EQ(0, check_pattern(p, size, i)) TH_LOG("BO %d", i);
		vgpu_bo_unmap(p, size);
	}
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &after));
	EXPECT_LT(before.evictions, after.evictions);
	EXPECT_LT(before.bytes_to_system, after.bytes_to_system);
	TH_LOG("%d x 4 MiB BOs, %llu evictions, %llu MiB out of VRAM", n,
	       (unsigned long long)(after.evictions - before.evictions),
	       (unsigned long long)(after.bytes_to_system - before.bytes_to_system) >> 20);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, vgpu_bo_close(&self->dev, h[i]));
	free(h);
	EXPECT_EQ(0, user_vram(&self->dev));
}

/*
 * A mapping keeps its BO alive after the handle is closed, with its
 * contents, while other BOs come and go and VRAM is evicted.
 */
TEST_F(bo, mapping_outlives_handle)
{
	const size_t small = 4096, size = 4 << 20;
	uint64_t *keep[2], *p;
	uint32_t h, k[2];
	int i, n;

	n = 2 * self->dev.vram_size / size;
	for (i = 0; i < 2; i++) {
		size_t sz = i ? size : small;

		ASSERT_EQ(0, vgpu_bo_create(&self->dev, sz, variant->placements,
					    variant->flags, &k[i]));
		ASSERT_EQ(0, vgpu_bo_map(&self->dev, k[i], sz, (void **)&keep[i]));
		fill_pattern(keep[i], sz, 0x1000 + i);
		ASSERT_EQ(0, vgpu_bo_close(&self->dev, k[i]));
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, variant->placements,
					    variant->flags, &h)) TH_LOG("BO %d", i);
		ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, size, (void **)&p));
		fill_pattern(p, size, i);
		vgpu_bo_unmap(p, size);
		if (i % 2)
			EXPECT_EQ(0, vgpu_bo_close(&self->dev, h));
	}
	EXPECT_EQ(0, check_pattern(keep[0], small, 0x1000));
	EXPECT_EQ(0, check_pattern(keep[1], size, 0x1001));
	vgpu_bo_unmap(keep[0], small);
	vgpu_bo_unmap(keep[1], size);
}

TEST_F(bo, accounting_back_to_zero)
{
	struct drm_vgpu_query_memory m0, m1;
	uint32_t h[16];
	int i;

	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m0));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, vgpu_bo_create(&self->dev, 64 << 10, variant->placements,
					    variant->flags, &h[i]));
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m1));
	EXPECT_EQ(m0.bo_count + 16, m1.bo_count);
	if (variant->placements == VGPU_PLACE_VRAM)
		EXPECT_EQ(m0.vram_used + (16 << 16), m1.vram_used);
	if (variant->placements == VGPU_PLACE_SYSTEM)
		EXPECT_EQ(m0.system_used + (16 << 16), m1.system_used);
	for (i = 0; i < 16; i++)
		vgpu_bo_close(&self->dev, h[i]);
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m1));
	EXPECT_EQ(m0.bo_count, m1.bo_count);
	EXPECT_EQ(m0.vram_used, m1.vram_used);
	EXPECT_EQ(m0.system_used, m1.system_used);
}

/* ------------------------------------------------------------ errnos --- */

FIXTURE(bo_args) {
	struct vgpu_dev dev;
	struct drm_vgpu_bo_create bc;
};

FIXTURE_SETUP(bo_args)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	self->bc = (struct drm_vgpu_bo_create){
		.size = 4096, .placements = VGPU_PLACE_VRAM,
	};
}

FIXTURE_TEARDOWN(bo_args)
{
	vgpu_close(&self->dev);
}

#define CREATE_ERRNO(e) \
	EXPECT_ERRNO(e, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_CREATE, &self->bc))

TEST_F(bo_args, good_baseline)
{
	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_CREATE, &self->bc));
	vgpu_bo_close(&self->dev, self->bc.handle);
}

TEST_F(bo_args, zero_size_einval)
{
	self->bc.size = 0;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, overflowing_size_einval)
{
	self->bc.size = ~0ull;
	CREATE_ERRNO(EINVAL);
	self->bc.size = ~0ull - 4095;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, too_big_e2big)
{
	self->bc.size = self->dev.max_bo_size + 4096;
	self->bc.placements = VGPU_PLACE_ALL;
	CREATE_ERRNO(E2BIG);
	self->bc.size = self->dev.vram_size + 4096;
	self->bc.placements = VGPU_PLACE_VRAM;
	CREATE_ERRNO(E2BIG);
}

TEST_F(bo_args, placements_einval)
{
	self->bc.placements = 0;
	CREATE_ERRNO(EINVAL);
	self->bc.placements = 1u << 5;
	CREATE_ERRNO(EINVAL);
	self->bc.placements = VGPU_PLACE_VRAM | (1u << 31);
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, preferred_einval)
{
	self->bc.preferred = VGPU_PLACE_SYSTEM;
	CREATE_ERRNO(EINVAL);
	self->bc.placements = VGPU_PLACE_ALL;
	self->bc.preferred = VGPU_PLACE_ALL;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, unknown_flags_einval)
{
	self->bc.flags = 1u << 7;
	CREATE_ERRNO(EINVAL);
	self->bc.flags = 1u << 31;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, contiguous_system_einval)
{
	self->bc.placements = VGPU_PLACE_SYSTEM;
	self->bc.flags = DRM_VGPU_BO_CONTIGUOUS;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, alignment_einval)
{
	self->bc.alignment = 3 << 12;
	CREATE_ERRNO(EINVAL);
	self->bc.alignment = 2048;
	CREATE_ERRNO(EINVAL);
	self->bc.alignment = 2ull << 30;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, reserved_einval)
{
	self->bc.reserved = 1;
	CREATE_ERRNO(EINVAL);
}

TEST_F(bo_args, null_and_bad_pointer_efault)
{
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_CREATE, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_CREATE,
				   (void *)8));
}

/* The core zero-extends a short struct: placements reads as 0. */
TEST_F(bo_args, too_short_struct_einval)
{
	unsigned long nr = DRM_IOC(DRM_IOC_READWRITE, DRM_IOCTL_BASE,
				   DRM_COMMAND_BASE + DRM_VGPU_BO_CREATE, 8);
	uint64_t size = 4096;

	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, nr, &size));
}

TEST_F(bo_args, mmap_offset_errors)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = 0x7fffffff };

	EXPECT_ERRNO(ENOENT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo));
	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_CREATE, &self->bc));
	mo.handle = self->bc.handle;
	mo.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo));
	mo.flags = 0;
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, NULL));
	EXPECT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo));
	EXPECT_NE(0, mo.offset);
	/* Beyond the BO: refused by the mmap itself. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 8192, PROT_READ, MAP_SHARED,
				   self->dev.fd, mo.offset));
	/* Private (COW) mappings are refused. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->dev.fd, mo.offset));
	vgpu_bo_close(&self->dev, self->bc.handle);
}

TEST_F(bo_args, wait_bo_errors)
{
	struct drm_vgpu_wait_bo wb = { .handle = 0x7fffffff };

	EXPECT_ERRNO(ENOENT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));
	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_BO_CREATE, &self->bc));
	wb.handle = self->bc.handle;
	wb.flags = 2;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, NULL));
	vgpu_bo_close(&self->dev, self->bc.handle);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void wait_bo_alarm(int sig)
{
}

/*
 * A BO a job still uses: WAIT_BO polls (timeout 0) and times out with
 * -ETIMEDOUT, is interrupted by a signal with -EINTR (no SA_RESTART), and
 * returns 0 once the job is done.  The job WAITs on a value in the BO that
 * the CPU writes at the end, well before the job timeout (5 s).
 */
TEST_F(bo_args, wait_bo_busy_etimedout_eintr)
{
	const uint64_t va = 1ull << 32;
	struct sigaction sa = { .sa_handler = wait_bo_alarm }, old;
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };
	struct drm_vgpu_wait_bo wb = { 0 };
	volatile uint64_t *cpu;
	struct vgpu_cmd cmd;
	uint32_t h, s;

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096, VGPU_PLACE_SYSTEM, 0, &h));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, va, 4096, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, h, 4096, (void **)&cpu));
	cpu[0] = 0;
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &s));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_wait(&cmd, va, 1);
	ASSERT_EQ(0, vgpu_submit(&self->dev, 0, &cmd, NULL, 0, s));
	vgpu_cmd_fini(&cmd);

	wb.handle = h;
	wb.timeout_ns = 0;
	EXPECT_ERRNO(ETIMEDOUT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));
	wb.timeout_ns = now_ns() + 50000000;
	EXPECT_ERRNO(ETIMEDOUT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));
	/* Already past: polls. */
	wb.timeout_ns = now_ns() - 1000000;
	EXPECT_ERRNO(ETIMEDOUT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	wb.timeout_ns = now_ns() + 2000000000ll;
	EXPECT_ERRNO(EINTR, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));
	sigaction(SIGALRM, &old, NULL);

	/* Release the WAIT: the job completes and the BO goes idle. */
	cpu[0] = 1;
	wb.timeout_ns = now_ns() + 30000000000ll;
	EXPECT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_WAIT_BO, &wb));
	EXPECT_EQ(0, vgpu_syncobj_wait(&self->dev, s, 30000000000ll));
	EXPECT_EQ(1, vgpu_syncobj_status(&self->dev, s));	/* signalled, no error */
	vgpu_syncobj_destroy(&self->dev, s);
	vgpu_bo_unmap((void *)cpu, 4096);
	vgpu_vm_unmap(&self->dev, va, 4096);
	vgpu_bo_close(&self->dev, h);
}

TEST_F(bo_args, query_errors)
{
	struct drm_vgpu_query_memory m;
	struct drm_vgpu_query q = {
		.type = DRM_VGPU_QUERY_MEMORY, .size = sizeof(m),
		.data = (uintptr_t)&m,
	};

	q.type = 77;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	q.type = DRM_VGPU_QUERY_MEMORY;
	q.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	q.flags = 0;
	q.vm_id = 1;	/* the memory report is the device's */
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	q.vm_id = 0;
	q.data = 16;
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	q.size = 0;
	EXPECT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	EXPECT_EQ(sizeof(m), q.size);
	q.size = 8;
	q.data = (uintptr_t)&m;
	EXPECT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	EXPECT_EQ(8, q.size);
	EXPECT_EQ(self->dev.vram_size, m.vram_size);
}

/* ------------------------------------------------------------ stress --- */

/* 24 s on the KASAN kernel alone: room for a busy host. */
TEST_F_TIMEOUT(bo_args, stress_10000_bos, 180)
{
	struct timespec t0, t1;
	static uint32_t h[10000];
	uint32_t place[3] = { VGPU_PLACE_VRAM, VGPU_PLACE_SYSTEM, VGPU_PLACE_ALL };
	uint64_t base = user_vram(&self->dev);
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 10000; i++)
		ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096 << (i % 4),
					    place[i % 3], 0, &h[i])) TH_LOG("BO %d", i);
	for (i = 0; i < 10000; i++)
		ASSERT_EQ(0, vgpu_bo_close(&self->dev, h[i]));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("10000 BOs created and freed in %.3f s",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	EXPECT_EQ(base, user_vram(&self->dev));
	EXPECT_EQ(0, user_vram(&self->dev));
}

TEST_HARNESS_MAIN
