// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DRM_IOCTL_VGPU_VM_BIND: maps, unmaps, splits, several operations per
 * call, leaf sizes chosen, page tables freed, VMs binding at once from
 * one page-table pool, every refused argument, 1,000 binds and unbinds.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB (1ull << 20)

FIXTURE(vm) {
	struct vgpu_dev dev;
	uint32_t bo;		/* 4 MiB VRAM, 2 MiB aligned */
	uint64_t va;		/* 2 MiB aligned */
};

FIXTURE_SETUP(vm)
{
	struct drm_vgpu_bo_create bc = {
		.size = 4 * MiB, .placements = VGPU_PLACE_VRAM,
		.alignment = 2 * MiB,
	};

	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &bc));
	self->bo = bc.handle;
	self->va = 1ull << 32;
}

FIXTURE_TEARDOWN(vm)
{
	vgpu_close(&self->dev);
}

static struct drm_vgpu_query_vm qvm(struct vgpu_dev *dev)
{
	struct drm_vgpu_query_vm q;

	vgpu_query_vm(dev, &q);
	return q;
}

TEST_F(vm, map_unmap)
{
	struct drm_vgpu_query_vm q;

	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 4 * MiB, VGPU_MAP_RW));
	q = qvm(&self->dev);
	EXPECT_EQ(1, q.mappings);
	EXPECT_EQ(4 * MiB, q.mapped_bytes);
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 4 * MiB));
	q = qvm(&self->dev);
	EXPECT_EQ(0, q.mappings);
	/* Unmapping nothing is fine. */
	EXPECT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 4 * MiB));
}

TEST_F(vm, same_bo_twice_and_close_while_mapped)
{
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 4 * MiB, VGPU_MAP_R));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 2 * MiB, self->va + 8 * MiB,
				 2 * MiB, VGPU_MAP_RW));
	EXPECT_EQ(2, qvm(&self->dev).mappings);
	/* The mapping keeps the BO alive after its handle goes. */
	EXPECT_EQ(0, vgpu_bo_close(&self->dev, self->bo));
	EXPECT_EQ(2, qvm(&self->dev).mappings);
	EXPECT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 16 * MiB));
	EXPECT_EQ(0, qvm(&self->dev).mappings);
}

TEST_F(vm, huge_leaves_when_aligned)
{
	struct drm_vgpu_query_vm q0, q1;

	if (!(self->dev.page_sizes & (2 * MiB)))
		SKIP(return, "no 2 MiB pages");
	q0 = qvm(&self->dev);
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 4 * MiB, VGPU_MAP_RW));
	q1 = qvm(&self->dev);
	EXPECT_EQ(2, q1.leaves_2m - q0.leaves_2m);
	EXPECT_EQ(0, q1.leaves_4k - q0.leaves_4k);
	EXPECT_EQ(0, q1.leaves_64k - q0.leaves_64k);

	/* 64 KiB aligned but not 2 MiB aligned VA: 64 KiB fragments. */
	q0 = q1;
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va + 16 * MiB + 64 * 1024,
				 2 * MiB, VGPU_MAP_RW));
	q1 = qvm(&self->dev);
	if (self->dev.page_sizes & (64 * 1024))
		EXPECT_EQ(32, q1.leaves_64k - q0.leaves_64k);
	EXPECT_EQ(0, q1.leaves_2m - q0.leaves_2m);

	/* 4 KiB aligned only: 4 KiB pages. */
	q0 = q1;
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va + 32 * MiB + 4096,
				 1 * MiB, VGPU_MAP_RW));
	q1 = qvm(&self->dev);
	EXPECT_EQ(256, q1.leaves_4k - q0.leaves_4k);
	TH_LOG("page-table pages: %llu", (unsigned long long)q1.pt_pages);
}

TEST_F(vm, partial_unmap_splits)
{
	struct drm_vgpu_query_vm q;

	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 4 * MiB, VGPU_MAP_RW));
	/* Punch a 4 KiB hole into the first 2 MiB leaf. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, self->va + MiB, 4096));
	q = qvm(&self->dev);
	EXPECT_EQ(2, q.mappings);
	EXPECT_EQ(4 * MiB - 4096, q.mapped_bytes);
	/* Trim both ends. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 4096));
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, self->va + 4 * MiB - 8192, 8192));
	q = qvm(&self->dev);
	EXPECT_EQ(2, q.mappings);
	EXPECT_EQ(4 * MiB - 4 * 4096, q.mapped_bytes);
	/* One unmap across both pieces and the hole. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 4 * MiB));
	q = qvm(&self->dev);
	EXPECT_EQ(0, q.mappings);
}

TEST_F(vm, several_ops_remap_in_one_call)
{
	struct drm_vgpu_vm_bind_op ops[3] = {
		{ .op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		  .handle = self->bo, .va = self->va, .range = 4 * MiB },
		{ .op = DRM_VGPU_VM_BIND_OP_UNMAP, .va = self->va + 2 * MiB,
		  .range = 64 * 1024 },
		{ .op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_R,
		  .handle = self->bo, .va = self->va + 2 * MiB,
		  .range = 64 * 1024, .bo_offset = 0 },
	};
	struct drm_vgpu_query_vm q;

	ASSERT_EQ(0, vgpu_vm_bind(&self->dev, ops, 3));
	q = qvm(&self->dev);
	EXPECT_EQ(3, q.mappings);
	EXPECT_EQ(4 * MiB, q.mapped_bytes);
	EXPECT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 4 * MiB));
}

TEST_F(vm, overlapping_map_eexist)
{
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 2 * MiB, VGPU_MAP_RW));
	EXPECT_EQ(-EEXIST, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 2 * MiB, VGPU_MAP_RW));
	EXPECT_EQ(-EEXIST, vgpu_vm_map(&self->dev, self->bo, 0, self->va + MiB,
				       2 * MiB, VGPU_MAP_RW));
	EXPECT_EQ(-EEXIST, vgpu_vm_map(&self->dev, self->bo, 0, self->va - MiB,
				       2 * MiB, VGPU_MAP_RW));
	EXPECT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va + 2 * MiB,
				 2 * MiB, VGPU_MAP_RW));
	EXPECT_EQ(2, qvm(&self->dev).mappings);
}

TEST_F(vm, page_tables_freed)
{
	struct drm_vgpu_query_vm q0, q1;
	uint64_t far = 1ull << 46;

	/* An open file pins no page table: the root comes with a mapping. */
	q0 = qvm(&self->dev);
	EXPECT_EQ(0, q0.pt_pages);
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 4096, far + 4096, 8192, VGPU_MAP_RW));
	q1 = qvm(&self->dev);
	EXPECT_EQ(4, q1.pt_pages - q0.pt_pages);	/* root, levels 2, 1, 0 */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, far, 2 * MiB));
	q1 = qvm(&self->dev);
	EXPECT_EQ(1, q1.pt_pages);			/* the root stays */
}

/*
 * VM_BIND while the CPU-visible window is full of mapped BOs: growing the
 * page-table pool (which lives in that window) makes TTM evict one of
 * them, whose move takes its gpuva lock.  The bind must not hold another
 * BO's gpuva lock then (lockdep: recursive locking on the debug kernel),
 * and every evicted BO keeps its data.
 */
TEST_F(vm, bind_grows_pool_over_mapped_bos)
{
	uint64_t n = self->dev.visible_size / MiB, i, bad = 0;
	struct drm_vgpu_query_memory m0, m1;
	uint32_t *bo = calloc(n + 1, sizeof(*bo));
	uint32_t **cpu = calloc(n + 1, sizeof(*cpu));

	ASSERT_NE(NULL, bo);
	ASSERT_NE(NULL, cpu);
	for (i = 0; i <= n; i++) {
		ASSERT_EQ(0, vgpu_bo_create(&self->dev, MiB, VGPU_PLACE_VRAM,
					    DRM_VGPU_BO_CPU_ACCESS, &bo[i]));
		ASSERT_EQ(0, vgpu_bo_map(&self->dev, bo[i], MiB, (void **)&cpu[i]));
		for (uint64_t j = 0; j < MiB / 4; j += 1024)
			cpu[i][j] = (uint32_t)(i * 0x01000193u + j);
	}
	vgpu_query_memory(&self->dev, &m0);
	/* 512 GiB apart: three new tables each, the pool grows several times. */
	for (i = 0; i <= n; i++)
		ASSERT_EQ(0, vgpu_vm_map(&self->dev, bo[i], 0, (i + 1) << 39, MiB,
					 VGPU_MAP_RW)) TH_LOG("bind %llu", (unsigned long long)i);
	/* Some bind evicted a mapped BO (whose tables went with it). */
	vgpu_query_memory(&self->dev, &m1);
	TH_LOG("%llu binds: %llu evictions, %llu page tables",
	       (unsigned long long)n + 1,
	       (unsigned long long)(m1.evictions - m0.evictions),
	       (unsigned long long)qvm(&self->dev).pt_pages);
	EXPECT_LT(m0.evictions, m1.evictions);
	for (i = 0; i <= n; i++) {
		for (uint64_t j = 0; j < MiB / 4; j += 1024)
			bad += cpu[i][j] != (uint32_t)(i * 0x01000193u + j);
		vgpu_bo_unmap(cpu[i], MiB);
	}
	EXPECT_EQ(0, bad);
	free(bo);
	free(cpu);
}

/* One binder of concurrent_binds_share_the_table_pool. */
struct binder {
	int rounds, failed_at, err;
	uint64_t pt_pages;
};

#define BINDER_OPS	32

/*
 * Each round maps a 64 KiB BO at BINDER_OPS places 512 GiB apart in one
 * VM_BIND (three new tables each, every page reserved is drawn), then
 * unmaps them all (the tables go, the pool is trimmed).
 */
static void *binder_main(void *arg)
{
	struct drm_vgpu_vm_bind_op ops[BINDER_OPS];
	struct binder *b = arg;
	struct drm_vgpu_query_vm q;
	struct vgpu_dev dev;
	uint32_t bo;
	int r, i;

	b->failed_at = -1;
	b->err = vgpu_open(&dev) ?:
		 vgpu_bo_create(&dev, 64 * 1024, VGPU_PLACE_VRAM, 0, &bo);
	if (b->err)
		return NULL;
	for (r = 0; r < b->rounds && !b->err; r++) {
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < BINDER_OPS; i++) {
			ops[i].op = DRM_VGPU_VM_BIND_OP_MAP;
			ops[i].flags = VGPU_MAP_RW;
			ops[i].handle = bo;
			ops[i].va = (uint64_t)(i + 1) << 39;
			ops[i].range = 64 * 1024;
		}
		b->err = vgpu_vm_bind(&dev, ops, BINDER_OPS);
		for (i = 0; i < BINDER_OPS && !b->err; i++) {
			ops[i].op = DRM_VGPU_VM_BIND_OP_UNMAP;
			ops[i].flags = 0;
			ops[i].handle = 0;
		}
		if (!b->err)
			b->err = vgpu_vm_bind(&dev, ops, BINDER_OPS);
		if (b->err)
			b->failed_at = r;
	}
	vgpu_query_vm(&dev, &q);
	b->pt_pages = q.pt_pages;
	vgpu_close(&dev);
	return NULL;
}

/*
 * Four processes' worth of VMs bind and unbind at once, each drawing
 * every page it reserved from the one page-table pool while the others
 * reserve, grow the pool and trim it: the pool's free pages must cover
 * every reservation at all times (on the debug kernel a race here once
 * handed out no page and crashed the walker), and every table comes back.
 */
TEST_F(vm, concurrent_binds_share_the_table_pool)
{
	struct binder b[4];
	struct drm_vgpu_query_memory m0, m1;
	pthread_t th[4];
	int t;

	vgpu_query_memory(&self->dev, &m0);
	for (t = 0; t < 4; t++) {
		b[t] = (struct binder){ .rounds = 40 };
		ASSERT_EQ(0, pthread_create(&th[t], NULL, binder_main, &b[t]));
	}
	for (t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	for (t = 0; t < 4; t++) {
		EXPECT_EQ(0, b[t].err) TH_LOG("binder %d, round %d", t, b[t].failed_at);
		/* The root stays while the VM lives; nothing else. */
		EXPECT_EQ(1, b[t].pt_pages);
	}
	vgpu_query_memory(&self->dev, &m1);
	EXPECT_EQ(m0.pt_pages, m1.pt_pages);
}

/* ---------------------------------------------------------- errnos --- */

static int bind1(struct vgpu_dev *dev, struct drm_vgpu_vm_bind_op *op)
{
	struct drm_vgpu_vm_bind vb = {
		.num_ops = 1, .ops = (uintptr_t)op, .op_size = sizeof(*op),
	};

	return ioctl(dev->fd, DRM_IOCTL_VGPU_VM_BIND, &vb);
}

TEST_F(vm, bad_header_einval)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_UNMAP, .va = self->va, .range = 4096,
	};
	struct drm_vgpu_vm_bind vb = {
		.num_ops = 1, .ops = (uintptr_t)&op, .op_size = sizeof(op),
	};

	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.vm_id = 1;	/* no VM created: unknown id */
	EXPECT_ERRNO(ENOENT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.vm_id = 0;
	vb.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.flags = 0;
	vb.num_ops = 0;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.num_ops = 1025;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.num_ops = 1;
	vb.op_size = sizeof(op) - 8;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.op_size = sizeof(op);
	vb.ops = 0;
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	vb.ops = 64;
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, &vb));
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_VM_BIND, NULL));
}

TEST_F(vm, too_short_struct_einval)
{
	/* Zero-extended by the core: op_size reads as 0. */
	unsigned long nr = DRM_IOC(DRM_IOC_WRITE, DRM_IOCTL_BASE,
				   DRM_COMMAND_BASE + DRM_VGPU_VM_BIND, 16);
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_UNMAP, .va = self->va, .range = 4096,
	};
	struct { uint32_t vm_id, num_ops; uint64_t ops; } shortvb = {
		0, 1, (uintptr_t)&op,
	};

	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, nr, &shortvb));
}

TEST_F(vm, bad_op_einval)
{
	struct drm_vgpu_vm_bind_op map = {
		.op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		.handle = self->bo, .va = self->va, .range = 4096,
	}, op;

	op = map; op.op = 7;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.pad = 1;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.reserved = 1;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.flags = 0;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.flags = 1u << 8;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.op = DRM_VGPU_VM_BIND_OP_UNMAP;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));	/* flags + handle */
	op = map; op.op = DRM_VGPU_VM_BIND_OP_UNMAP; op.flags = 0; op.handle = 0;
	op.bo_offset = 4096;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
}

TEST_F(vm, bad_ranges_einval)
{
	struct drm_vgpu_vm_bind_op map = {
		.op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		.handle = self->bo, .va = self->va, .range = 4096,
	}, op;

	op = map; op.range = 0;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.va += 1;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.range = 4095;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.bo_offset = 512;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.va = 0;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.va = self->dev.va_start - 4096;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.va = self->dev.va_end - 4096; op.range = 8192;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.va = self->dev.va_end;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.va = 1ull << 48;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.range = ~0ull & ~4095ull;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	/* Past the end of the BO. */
	op = map; op.range = 8 * MiB;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.bo_offset = 4 * MiB;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	op = map; op.bo_offset = ~0ull & ~4095ull;
	EXPECT_ERRNO(EINVAL, bind1(&self->dev, &op));
	/* The last page of the user range works. */
	op = map; op.va = self->dev.va_end - 4096;
	EXPECT_EQ(0, bind1(&self->dev, &op));
	EXPECT_EQ(0, qvm(&self->dev).mappings - 1);
}

TEST_F(vm, bad_handle_enoent)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		.handle = 0x7ffffff0, .va = self->va, .range = 4096,
	};

	EXPECT_ERRNO(ENOENT, bind1(&self->dev, &op));
	op.handle = 0;
	EXPECT_ERRNO(ENOENT, bind1(&self->dev, &op));
}

/* An error in op 2 leaves op 1 done and op 3 not tried. */
TEST_F(vm, error_stops_at_failing_op)
{
	struct drm_vgpu_vm_bind_op ops[3] = {
		{ .op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		  .handle = self->bo, .va = self->va, .range = 4096 },
		{ .op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		  .handle = self->bo, .va = self->va, .range = 4096 },
		{ .op = DRM_VGPU_VM_BIND_OP_MAP, .flags = VGPU_MAP_RW,
		  .handle = self->bo, .va = self->va + MiB, .range = 4096 },
	};

	EXPECT_EQ(-EEXIST, vgpu_vm_bind(&self->dev, ops, 3));
	EXPECT_EQ(1, qvm(&self->dev).mappings);
	/* A bad argument anywhere refuses the whole call up front. */
	vgpu_vm_unmap(&self->dev, self->va, 4096);
	ops[1].reserved = 1;
	EXPECT_EQ(-EINVAL, vgpu_vm_bind(&self->dev, ops, 3));
	EXPECT_EQ(0, qvm(&self->dev).mappings);
}

TEST_F(vm, stress_1000_bind_unbind)
{
	struct drm_vgpu_query_memory m0, m1;
	struct drm_vgpu_query_vm q0, q1;
	struct timespec t0, t1;
	int i;

	/* The root, allocated with the first mapping, stays. */
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, self->va, 4096, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, self->va, 4096));
	q0 = qvm(&self->dev);
	vgpu_query_memory(&self->dev, &m0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 1000; i++) {
		uint64_t va = self->va + (uint64_t)(i % 64) * 8 * MiB +
			      (i % 3) * 64 * 1024;
		uint64_t size = (i % 2) ? 2 * MiB : 64 * 1024 * (1 + i % 7);

		ASSERT_EQ(0, vgpu_vm_map(&self->dev, self->bo, 0, va, size,
					 VGPU_MAP_RW)) TH_LOG("bind %d", i);
		if (i % 4 == 3)
			ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, va + 4096, 4096));
		ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, va, size));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	q1 = qvm(&self->dev);
	vgpu_query_memory(&self->dev, &m1);
	TH_LOG("1000 binds + unbinds in %.3f s",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	EXPECT_EQ(0, q1.mappings);
	EXPECT_EQ(q0.pt_pages, q1.pt_pages);
	EXPECT_EQ(m0.pt_pages, m1.pt_pages);
}

TEST_HARNESS_MAIN
