// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DRM_IOCTL_VGPU_EXEC: data integrity through the GPU (CPU pattern, GPU
 * COPY and CHECKSUM, CPU read-back) in VRAM and system memory and across
 * eviction, syncobj ordering, GPU faults and their containment, job
 * timeouts, isolation between processes, huge-leaf walk counts, hardware
 * context sharing, strict-mode counters, closing a banned VM with jobs on
 * the rings, exiting with a job waiting for its queue, rate-limited
 * recovery messages, every refused argument.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_buf.h"

#define MiB (1ull << 20)
#define SEC 1000000000ll

static void pattern(void *p, size_t size, uint64_t seed)
{
	uint64_t *q = p;
	size_t i;

	for (i = 0; i < size / 8; i++)
		q[i] = seed ^ (i * 0x9e3779b97f4a7c15ull);
}

static int copy_and_sum(struct vgpu_dev *dev, struct buf *src, struct buf *dst,
			struct buf *res)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, src->va, dst->va, src->size);
	vgpu_cmd_checksum(&cmd, dst->va, dst->size, res->va);
	ret = vgpu_run(dev, 0, &cmd, 30 * SEC);
	vgpu_cmd_fini(&cmd);
	return ret;
}

FIXTURE(exec) {
	struct vgpu_dev dev;
	struct buf res;
};

FIXTURE_VARIANT(exec) {
	uint32_t place;
};

FIXTURE_VARIANT_ADD(exec, vram) { .place = VGPU_PLACE_VRAM };
FIXTURE_VARIANT_ADD(exec, system) { .place = VGPU_PLACE_SYSTEM };

FIXTURE_SETUP(exec)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	if (!self->dev.exec_queues)
		SKIP(return, "no exec queues");
	ASSERT_EQ(0, buf_create(&self->dev, &self->res, 4096, VGPU_PLACE_SYSTEM,
				1ull << 40, VGPU_MAP_RW));
}

FIXTURE_TEARDOWN(exec)
{
	vgpu_close(&self->dev);
}

TEST_F(exec, fill_then_cpu_reads)
{
	struct buf b;
	struct vgpu_cmd cmd;
	uint32_t *p;
	size_t i, bad = 0;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 1 * MiB, variant->place,
				1ull << 32, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, b.size, 0xc0ffee00);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
	p = b.cpu;
	for (i = 0; i < b.size / 4; i++)
		bad += p[i] != 0xc0ffee00;
	EXPECT_EQ(0, bad);
	buf_destroy(&self->dev, &b);
}

TEST_F(exec, copy_and_checksum)
{
	struct buf src, dst;

	ASSERT_EQ(0, buf_create(&self->dev, &src, 4 * MiB, variant->place,
				1ull << 32, VGPU_MAP_R));
	ASSERT_EQ(0, buf_create(&self->dev, &dst, 4 * MiB, variant->place,
				2ull << 32, VGPU_MAP_RW));
	pattern(src.cpu, src.size, 7);
	ASSERT_EQ(0, copy_and_sum(&self->dev, &src, &dst, &self->res));
	EXPECT_EQ(vgpu_fnv1a64(src.cpu, src.size), *(uint64_t *)self->res.cpu);
	EXPECT_EQ(0, memcmp(src.cpu, dst.cpu, src.size));
	buf_destroy(&self->dev, &src);
	buf_destroy(&self->dev, &dst);
}

/* Fill VRAM with other BOs so that TTM evicts ours, then use them again. */
TEST_F(exec, integrity_across_eviction)
{
	struct drm_vgpu_query_memory m0, m1;
	struct buf src, dst;
	uint64_t sum, limit;
	uint32_t *hogs;
	int i, n;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "VRAM only");
	ASSERT_EQ(0, buf_create(&self->dev, &src, 4 * MiB, VGPU_PLACE_VRAM,
				1ull << 32, VGPU_MAP_R));
	ASSERT_EQ(0, buf_create(&self->dev, &dst, 4 * MiB, VGPU_PLACE_VRAM,
				2ull << 32, VGPU_MAP_RW));
	pattern(src.cpu, src.size, 99);
	sum = vgpu_fnv1a64(src.cpu, src.size);
	ASSERT_EQ(0, copy_and_sum(&self->dev, &src, &dst, &self->res));
	ASSERT_EQ(sum, *(uint64_t *)self->res.cpu);

	vgpu_query_memory(&self->dev, &m0);
	limit = self->dev.vram_size;
	n = limit / (4 * MiB) + 4;
	hogs = calloc(n, sizeof(*hogs));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4 * MiB, VGPU_PLACE_VRAM,
					    0, &hogs[i]));
	vgpu_query_memory(&self->dev, &m1);
	EXPECT_LT(m0.evictions, m1.evictions);

	memset(dst.cpu, 0, dst.size);
	*(uint64_t *)self->res.cpu = 0;
	ASSERT_EQ(0, copy_and_sum(&self->dev, &src, &dst, &self->res));
	EXPECT_EQ(sum, *(uint64_t *)self->res.cpu);
	EXPECT_EQ(0, memcmp(src.cpu, dst.cpu, src.size));
	for (i = 0; i < n; i++)
		vgpu_bo_close(&self->dev, hogs[i]);
	free(hogs);
	buf_destroy(&self->dev, &src);
	buf_destroy(&self->dev, &dst);
}

TEST_F(exec, syncobj_chain_across_queues)
{
	struct buf b;
	struct vgpu_cmd c1, c2;
	uint32_t s1, s2;
	uint32_t last = self->dev.exec_queues - 1;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 2 * MiB, variant->place,
				1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &s1));
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &s2));
	vgpu_cmd_init(&c1);
	vgpu_cmd_init(&c2);
	vgpu_cmd_fill(&c1, b.va, b.size, 0x11111111);
	vgpu_cmd_checksum(&c2, b.va, b.size, self->res.va);
	ASSERT_EQ(0, vgpu_submit(&self->dev, 0, &c1, NULL, 0, s1));
	ASSERT_EQ(0, vgpu_submit(&self->dev, last, &c2, &s1, 1, s2));
	ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, s2, 30 * SEC));
	EXPECT_EQ(1, vgpu_syncobj_status(&self->dev, s2));
	memset(b.cpu, 0x11, b.size);	/* same bytes: the expected sum */
	EXPECT_EQ(vgpu_fnv1a64(b.cpu, b.size), *(uint64_t *)self->res.cpu);
	EXPECT_EQ(0, vgpu_bo_wait(&self->dev, b.bo, SEC));
	vgpu_cmd_fini(&c1);
	vgpu_cmd_fini(&c2);
	buf_destroy(&self->dev, &b);
}

TEST_F(exec, cmds_from_bo)
{
	struct buf b, cmdbuf;
	struct vgpu_cmd cmd;
	struct drm_vgpu_exec ex = {
		.flags = DRM_VGPU_EXEC_CMDS_BO,
	};
	uint32_t sync;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&self->dev, &cmdbuf, 64 * 1024, variant->place,
				2ull << 32, VGPU_MAP_R));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, b.size, 0xabcdabcd);
	memcpy((char *)cmdbuf.cpu + 256, cmd.dw, cmd.len * 4);
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &sync));
	ex.cmds_handle = cmdbuf.bo;
	ex.cmds_offset = 256;
	ex.cmds_size = cmd.len * 4;
	ex.out_sync = sync;
	ASSERT_EQ(0, vgpu_exec(&self->dev, &ex)) TH_LOG("errno %d", errno);
	ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, sync, 30 * SEC));
	EXPECT_EQ(0xabcdabcd, ((uint32_t *)b.cpu)[100]);
	vgpu_cmd_fini(&cmd);
}

/* ------------------------------------------------- streams in BOs (CALL) --- */

/*
 * EXEC with DRM_VGPU_EXEC_CMDS_BO from @b at @offset: the device runs the
 * stream in place, through the VM.  Returns the ioctl's errno, or the
 * job's fence status (0, or the error) when it was accepted.
 */
static int run_bo_stream(struct vgpu_dev *dev, struct buf *b, uint64_t offset,
			 uint32_t size)
{
	struct drm_vgpu_exec ex = {
		.flags = DRM_VGPU_EXEC_CMDS_BO,
		.cmds_handle = b->bo, .cmds_offset = offset, .cmds_size = size,
	};
	uint32_t sync;
	int ret;

	ret = vgpu_syncobj_create(dev, &sync);
	if (ret)
		return ret;
	ex.out_sync = sync;
	ret = vgpu_exec(dev, &ex);
	if (!ret)
		ret = vgpu_syncobj_wait(dev, sync, 60 * SEC);
	if (!ret) {
		ret = vgpu_syncobj_status(dev, sync);
		if (ret > 0)
			ret = 0;
	}
	vgpu_syncobj_destroy(dev, sync);
	return ret;
}

/* Far beyond the inline limit: 512 KiB of WRITEs, one dword each. */
TEST_F(exec, cmds_from_bo_large)
{
	const uint32_t n = 32768;
	struct buf dst, cmdbuf;
	struct vgpu_cmd cmd;
	uint32_t *p, i, bad = 0;

	ASSERT_EQ(0, buf_create(&self->dev, &dst, n * 4, variant->place,
				1ull << 32, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	for (i = 0; i < n; i++) {
		uint32_t v = i ^ 0x5a5a0000;

		vgpu_cmd_write(&cmd, dst.va + i * 4, &v, 1);
	}
	ASSERT_EQ(0, cmd.error);
	ASSERT_LT(DRM_VGPU_EXEC_MAX_CMDS_SIZE, cmd.len * 4);
	ASSERT_EQ(0, buf_create(&self->dev, &cmdbuf, cmd.len * 4, variant->place,
				2ull << 32, VGPU_MAP_R));
	memcpy(cmdbuf.cpu, cmd.dw, cmd.len * 4);
	/* Inline, it is too long; from the BO it runs. */
	EXPECT_EQ(-EINVAL, vgpu_submit(&self->dev, 0, &cmd, NULL, 0, 0));
	ASSERT_EQ(0, run_bo_stream(&self->dev, &cmdbuf, 0, cmd.len * 4));
	p = dst.cpu;
	for (i = 0; i < n; i++)
		bad += p[i] != (i ^ 0x5a5a0000);
	EXPECT_EQ(0, bad);
	vgpu_cmd_fini(&cmd);
	buf_destroy(&self->dev, &cmdbuf);
	buf_destroy(&self->dev, &dst);
}

/*
 * On a small-BAR device, a stream in VRAM outside the CPU-visible window
 * runs where it is: nothing is moved into the window for it.  The window
 * is filled with CPU_ACCESS BOs first, so the stream BO lands above it;
 * the GPU writes the stream (no CPU access to it ever).
 */
TEST_F(exec, cmds_from_bo_outside_visible_window)
{
	struct drm_vgpu_query_memory m0, m1, m2;
	struct drm_vgpu_bo_create bc = {
		.size = 1 * MiB, .placements = VGPU_PLACE_VRAM,
		.flags = DRM_VGPU_BO_CONTIGUOUS,
	};
	struct buf dst, staging, cmdbuf = { .va = 3ull << 32, .size = 1 * MiB };
	struct vgpu_cmd cmd, stream;
	uint32_t hogs[512], nhogs = 0;
	uint32_t i;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "VRAM only");
	if (self->dev.visible_size >= self->dev.vram_size)
		SKIP(return, "all of VRAM is CPU-visible (run with --visible)");
	ASSERT_EQ(0, buf_create(&self->dev, &dst, 64 * 1024, VGPU_PLACE_SYSTEM,
				1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&self->dev, &staging, 64 * 1024,
				VGPU_PLACE_SYSTEM, 2ull << 32, VGPU_MAP_R));
	vgpu_cmd_init(&stream);
	vgpu_cmd_fill(&stream, dst.va, dst.size, 0x600dcafe);
	vgpu_cmd_write(&stream, dst.va + 8, (uint32_t[]){ 0x1234 }, 1);
	memcpy(staging.cpu, stream.dw, stream.len * 4);

	/* Fill the window, then the stream BO cannot be in it. */
	for (;;) {
		ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m0));
		if (m0.visible_size - m0.visible_used < 1 * MiB ||
		    nhogs == ARRAY_SIZE(hogs))
			break;
		ASSERT_EQ(0, vgpu_bo_create(&self->dev, 1 * MiB, VGPU_PLACE_VRAM,
					    DRM_VGPU_BO_CPU_ACCESS,
					    &hogs[nhogs]));
		nhogs++;
	}
	ASSERT_EQ(0, vgpu_bo_create_ex(&self->dev, &bc));
	cmdbuf.bo = bc.handle;
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m1));
	EXPECT_EQ(m0.visible_used, m1.visible_used)
		TH_LOG("the stream BO took CPU-visible VRAM");
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, cmdbuf.bo, 0, cmdbuf.va,
				 cmdbuf.size, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, staging.va, cmdbuf.va + 4096, stream.len * 4);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));

	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m1));
	ASSERT_EQ(0, run_bo_stream(&self->dev, &cmdbuf, 4096, stream.len * 4));
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m2));
	EXPECT_EQ(0x600dcafe, ((uint32_t *)dst.cpu)[1000]);
	EXPECT_EQ(0x1234, ((uint32_t *)dst.cpu)[2]);
	/* Nothing moved into (or out of) the window to run it. */
	EXPECT_EQ(m1.visible_used, m2.visible_used);
	EXPECT_EQ(m1.evictions, m2.evictions);
	TH_LOG("%u MiB of hogs fill the window; visible used %llu of %llu KiB",
	       nhogs, (unsigned long long)m2.visible_used >> 10,
	       (unsigned long long)m2.visible_size >> 10);

	vgpu_vm_unmap(&self->dev, cmdbuf.va, cmdbuf.size);
	vgpu_bo_close(&self->dev, cmdbuf.bo);
	for (i = 0; i < nhogs; i++)
		vgpu_bo_close(&self->dev, hogs[i]);
	vgpu_cmd_fini(&cmd);
	vgpu_cmd_fini(&stream);
	buf_destroy(&self->dev, &staging);
	buf_destroy(&self->dev, &dst);
}

/* The BO range must be mapped, readable, by one mapping: checked at EXEC. */
TEST_F(exec, cmds_from_bo_must_be_mapped)
{
	uint32_t nop = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, 1), bo;
	struct drm_vgpu_query_vm q;
	struct buf b;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_R));
	((uint32_t *)b.cpu)[0] = nop;
	ASSERT_EQ(0, run_bo_stream(&self->dev, &b, 0, 4));

	/* Not mapped at all. */
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096, variant->place, 0, &bo));
	EXPECT_EQ(-ENXIO, run_bo_stream(&self->dev,
					&(struct buf){ .bo = bo }, 0, 4));
	/* A range past the BO's end; then one past the end of a mapping. */
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, bo, 0, 3ull << 32, 4096,
				 VGPU_MAP_R));
	EXPECT_EQ(-EINVAL, run_bo_stream(&self->dev,
					 &(struct buf){ .bo = bo }, 0, 8192));
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, b.va + 32 * 1024, 32 * 1024));
	EXPECT_EQ(-ENXIO, run_bo_stream(&self->dev, &b, 28 * 1024, 8192));
	EXPECT_EQ(0, run_bo_stream(&self->dev, &b, 0, 4));
	/* Mapped without read permission. */
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, 3ull << 32, 4096));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, bo, 0, 3ull << 32, 4096,
				 VGPU_MAP_W));
	EXPECT_EQ(-EACCES, run_bo_stream(&self->dev,
					 &(struct buf){ .bo = bo }, 0, 4));
	/* Too long even for a BO stream. */
	EXPECT_EQ(-EINVAL, run_bo_stream(&self->dev, &b, 0,
					 DRM_VGPU_EXEC_MAX_BO_CMDS_SIZE + 4));
	/* None of this was a GPU fault. */
	vgpu_query_vm(&self->dev, &q);
	EXPECT_FALSE(q.state & DRM_VGPU_VM_STATE_BANNED);
	EXPECT_EQ(0, q.gpu_faults);
	vgpu_vm_unmap(&self->dev, 3ull << 32, 4096);
	vgpu_bo_close(&self->dev, bo);
	vgpu_vm_unmap(&self->dev, b.va, 32 * 1024);
	vgpu_bo_unmap(b.cpu, b.size);
	vgpu_bo_close(&self->dev, b.bo);
}

/* A stream that faults while it runs fails its job and bans the VM. */
TEST_F(exec, cmds_from_bo_fault_bans_vm)
{
	struct drm_vgpu_query_vm q;
	struct vgpu_cmd cmd;
	struct buf b, cmdbuf;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&self->dev, &cmdbuf, 64 * 1024, variant->place,
				2ull << 32, VGPU_MAP_R));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, 4096, 0x11);
	vgpu_cmd_fill(&cmd, 5ull << 32, 4096, 0x22);	/* nothing mapped there */
	vgpu_cmd_fill(&cmd, b.va + 4096, 4096, 0x33);
	memcpy(cmdbuf.cpu, cmd.dw, cmd.len * 4);
	EXPECT_EQ(-EFAULT, run_bo_stream(&self->dev, &cmdbuf, 0, cmd.len * 4));
	EXPECT_EQ(0x11, ((uint32_t *)b.cpu)[0]);
	EXPECT_EQ(0, ((uint32_t *)b.cpu)[1024]);	/* after the fault: never ran */
	vgpu_query_vm(&self->dev, &q);
	EXPECT_TRUE(q.state & DRM_VGPU_VM_STATE_BANNED);
	EXPECT_LE(1, q.gpu_faults);
	EXPECT_LE(1, q.jobs_failed);
	EXPECT_EQ(-ECANCELED, run_bo_stream(&self->dev, &cmdbuf, 0, 4));
	vgpu_cmd_fini(&cmd);
}

/* A CALL in a user stream is a bad command (no nesting): -EIO, no ban. */
TEST_F(exec, cmds_from_bo_nested_call_eio)
{
	struct drm_vgpu_query_vm q;
	struct buf cmdbuf;
	uint32_t *p;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	ASSERT_EQ(0, buf_create(&self->dev, &cmdbuf, 4096, VGPU_PLACE_SYSTEM,
				2ull << 32, VGPU_MAP_R));
	p = cmdbuf.cpu;
	p[0] = VGPU_CMD_HEADER(VGPU_OP_CALL, 0, VGPU_CALL_LEN);
	p[1] = (uint32_t)cmdbuf.va;
	p[2] = cmdbuf.va >> 32;
	p[3] = 4;
	EXPECT_EQ(-EIO, run_bo_stream(&self->dev, &cmdbuf, 0, 16));
	vgpu_query_vm(&self->dev, &q);
	EXPECT_FALSE(q.state & DRM_VGPU_VM_STATE_BANNED);
	p[0] = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, 4);
	EXPECT_EQ(0, run_bo_stream(&self->dev, &cmdbuf, 0, 16));
	buf_destroy(&self->dev, &cmdbuf);
}

/* ------------------------------------------------------------- faults --- */

TEST_F(exec, fault_on_unmapped_bans_vm_only)
{
	struct vgpu_dev other;
	struct buf b;
	struct vgpu_cmd cmd;
	struct drm_vgpu_query_vm q;

	ASSERT_EQ(0, vgpu_open(&other));
	ASSERT_EQ(0, buf_create(&other, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));

	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, 3ull << 32, 4096, 1);	/* nothing mapped there */
	EXPECT_EQ(-EFAULT, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	vgpu_query_vm(&self->dev, &q);
	EXPECT_TRUE(q.state & DRM_VGPU_VM_STATE_BANNED);
	EXPECT_LE(1, q.gpu_faults);
	EXPECT_LE(1, q.jobs_failed);
	EXPECT_EQ(-ECANCELED, vgpu_submit(&self->dev, 0, &cmd, NULL, 0, 0));
	EXPECT_EQ(-ECANCELED, vgpu_vm_unmap(&self->dev, 1ull << 32, 4096));

	/* The other VM, same queue, carries on. */
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_fill(&cmd, b.va, b.size, 0x77);
	EXPECT_EQ(0, vgpu_run(&other, 0, &cmd, 30 * SEC));
	EXPECT_EQ(0x77, ((uint32_t *)b.cpu)[0]);
	vgpu_query_vm(&other, &q);
	EXPECT_FALSE(q.state & DRM_VGPU_VM_STATE_BANNED);
	vgpu_cmd_fini(&cmd);
	vgpu_close(&other);
}

TEST_F(exec, write_through_readonly_mapping_faults)
{
	struct buf b;
	struct vgpu_cmd cmd;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_R));
	memset(b.cpu, 0x42, b.size);
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, 4096, 0);
	EXPECT_EQ(-EFAULT, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	EXPECT_EQ(0x42424242, ((uint32_t *)b.cpu)[0]);
	vgpu_cmd_fini(&cmd);
}

/* Another process cannot use our handles, and its GPU cannot see our memory. */
TEST_F(exec, isolation_between_processes)
{
	struct buf b;
	pid_t pid;
	int status;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));
	memset(b.cpu, 0x33, b.size);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vgpu_dev dev;
		struct vgpu_cmd cmd;
		uint32_t h;
		int fails = 0;

		if (vgpu_open(&dev))
			_exit(10);
		/* Handles are per file. */
		fails += vgpu_bo_close(&dev, b.bo) != -EINVAL;
		fails += vgpu_vm_map(&dev, b.bo, 0, b.va, 4096, VGPU_MAP_RW) != -ENOENT;
		/* Same VA, own VM: nothing there. */
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fill(&cmd, b.va, 4096, 0xdead);
		fails += vgpu_run(&dev, 0, &cmd, 30 * SEC) != -EFAULT;
		vgpu_cmd_fini(&cmd);
		/*
		 * The fault banned our VM: BOs can still be created (the ban
		 * is about GPU work, uapi.rst), but not bound or run.
		 */
		fails += vgpu_bo_create(&dev, 4096, VGPU_PLACE_VRAM, 0, &h) != 0;
		fails += vgpu_vm_map(&dev, h, 0, b.va, 4096, VGPU_MAP_RW) != -ECANCELED;
		vgpu_close(&dev);
		_exit(fails);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0x33333333, ((uint32_t *)b.cpu)[0]);
	EXPECT_FALSE(vgpu_query_vm(&self->dev, &(struct drm_vgpu_query_vm){0}));
}

/* ----------------------------------------------------------- timeouts --- */

TEST_F(exec, hang_times_out_other_queues_carry_on)
{
	struct buf b;
	struct vgpu_cmd hang, work;
	uint32_t s_hang;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, VGPU_PLACE_SYSTEM,
				1ull << 32, VGPU_MAP_RW));
	vgpu_cmd_init(&hang);
	vgpu_cmd_init(&work);
	vgpu_cmd_wait(&hang, b.va, 1);		/* never true */
	vgpu_cmd_fill(&work, b.va + 4096, 4096, 0x99);
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &s_hang));
	ASSERT_EQ(0, vgpu_submit(&self->dev, 0, &hang, NULL, 0, s_hang));
	/* Another queue works while queue 0 hangs. */
	EXPECT_EQ(0, vgpu_run(&self->dev, 1, &work, 2 * SEC));
	EXPECT_EQ(0x99, ((uint32_t *)b.cpu)[1024]);
	ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, s_hang, 60 * SEC));
	EXPECT_EQ(-ETIMEDOUT, vgpu_syncobj_status(&self->dev, s_hang));
	/* A hang is not a fault: the VM is still usable, even queue 0. */
	vgpu_cmd_reset(&work);
	vgpu_cmd_fill(&work, b.va + 8192, 4096, 0x98);
	EXPECT_EQ(0, vgpu_run(&self->dev, 0, &work, 30 * SEC));
	EXPECT_EQ(0x98, ((uint32_t *)b.cpu)[2048]);
	vgpu_cmd_fini(&hang);
	vgpu_cmd_fini(&work);
}

TEST_F(exec, bad_command_fails_job_with_eio)
{
	struct vgpu_cmd cmd;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	vgpu_cmd_init(&cmd);
	vgpu_cmd_nop(&cmd, 1);
	cmd.dw[0] = VGPU_CMD_HEADER(0x7f, 0, 1);	/* unknown opcode */
	EXPECT_EQ(-EIO, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_nop(&cmd, 4);
	EXPECT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
}

/* ---------------------------------------------------------- privilege --- */

/*
 * Submit @cmd inline, or from a BO mapped read-only at @bo_va, with an
 * out-syncobj; the job's status once it ends (0, or the fence's error).
 */
static int run_stream(struct vgpu_dev *dev, uint32_t queue,
		      const struct vgpu_cmd *cmd, bool in_bo, uint64_t bo_va)
{
	struct buf sb;
	uint32_t sync;
	int ret;

	ret = vgpu_syncobj_create(dev, &sync);
	if (ret)
		return ret;
	if (in_bo) {
		struct drm_vgpu_exec ex = {
			.queue = queue, .flags = DRM_VGPU_EXEC_CMDS_BO,
			.cmds_size = cmd->len * 4, .out_sync = sync,
		};

		ret = buf_create(dev, &sb, 64 * 1024, VGPU_PLACE_SYSTEM, bo_va,
				 VGPU_MAP_R);
		if (!ret) {
			memcpy(sb.cpu, cmd->dw, cmd->len * 4);
			ex.cmds_handle = sb.bo;
			ret = vgpu_exec(dev, &ex);
		}
	} else {
		ret = vgpu_submit(dev, queue, cmd, NULL, 0, sync);
	}
	if (!ret)
		ret = vgpu_syncobj_wait(dev, sync, 60 * SEC);
	if (!ret) {
		ret = vgpu_syncobj_status(dev, sync);
		if (ret > 0)
			ret = 0;
	}
	if (in_bo)
		buf_destroy(dev, &sb);
	vgpu_syncobj_destroy(dev, sync);
	return ret;
}

/* FENCE(flags, dst, seqno) as a user would write it by hand. */
static void raw_fence(struct vgpu_cmd *cmd, uint32_t flags, uint64_t dst,
		      uint64_t seqno)
{
	uint32_t fence[VGPU_FENCE_LEN] = {
		VGPU_CMD_HEADER(VGPU_OP_FENCE, flags, VGPU_FENCE_LEN),
		(uint32_t)dst, dst >> 32, (uint32_t)seqno, seqno >> 32,
	};

	vgpu_cmd_nop(cmd, 1);	/* room, then overwrite it */
	cmd->len--;
	for (int i = 0; i < VGPU_FENCE_LEN; i++) {
		vgpu_cmd_nop(cmd, 1);
		cmd->dw[cmd->len - 1] = fence[i];
	}
}

/*
 * A user stream that forges the kernel's FENCE (seqno ~0, interrupt)
 * and then blocks must not complete its job: the device stops it with
 * a privilege error, the job fails with -EPERM, the queue carries on.
 */
TEST_F(exec, user_fence_cannot_complete_job)
{
	static const uint32_t forged[] = {
		VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_NOWRITE,
		VGPU_FENCE_FLAG_IRQ,
		VGPU_FENCE_FLAG_NOWRITE,
	};
	struct drm_vgpu_query_vm q0, q1;
	struct vgpu_cmd cmd;
	struct buf b;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));
	memset(b.cpu, 0, b.size);
	for (int in_bo = 0; in_bo < 2; in_bo++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(forged); i++) {
			vgpu_query_vm(&self->dev, &q0);
			vgpu_cmd_init(&cmd);
			raw_fence(&cmd, forged[i], b.va, ~0ull);
			vgpu_cmd_wait(&cmd, b.va + 4096, 1);	/* nobody writes it */
			vgpu_cmd_fill(&cmd, b.va + 8192, 4096, 0xbad);
			EXPECT_EQ(-EPERM, run_stream(&self->dev, 0, &cmd, in_bo,
						     2ull << 32)) {
				TH_LOG("%s stream, FENCE flags %#x",
				       in_bo ? "BO" : "inline", forged[i]);
			}
			vgpu_cmd_fini(&cmd);
			/* Nothing after the forged FENCE ran, nothing was written. */
			EXPECT_EQ(0, ((uint64_t *)b.cpu)[0]);
			EXPECT_EQ(0, ((uint32_t *)b.cpu)[2048]);
			vgpu_query_vm(&self->dev, &q1);
			EXPECT_EQ(q0.jobs_failed + 1, q1.jobs_failed);
			EXPECT_EQ(q0.jobs_completed, q1.jobs_completed);
			EXPECT_FALSE(q1.state & DRM_VGPU_VM_STATE_BANNED);
		}
	}
	/* The queue recovered: the next job runs. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va + 8192, 4096, 0x600d);
	EXPECT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	EXPECT_EQ(0x600d, ((uint32_t *)b.cpu)[2048]);
	vgpu_cmd_fini(&cmd);
	buf_destroy(&self->dev, &b);
}

/* A user FENCE without flags only writes its value to the user's VA. */
TEST_F(exec, user_fence_writes_memory_only)
{
	struct vgpu_cmd cmd;
	struct buf b;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));
	for (int in_bo = 0; in_bo < 2; in_bo++) {
		memset(b.cpu, 0, b.size);
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fence(&cmd, b.va, 0x1234567800000000ull + in_bo);
		vgpu_cmd_fill(&cmd, b.va + 4096, 4096, 0x77);
		EXPECT_EQ(0, run_stream(&self->dev, 0, &cmd, in_bo, 2ull << 32));
		EXPECT_EQ(0x1234567800000000ull + in_bo, ((uint64_t *)b.cpu)[0]);
		EXPECT_EQ(0x77, ((uint32_t *)b.cpu)[1024]);
		vgpu_cmd_fini(&cmd);
	}
	buf_destroy(&self->dev, &b);
}

/*
 * Across processes: an attacker's forged FENCE on the victim's queue
 * neither completes the attacker's job early nor lets its commands run
 * in the victim's VM.  The victim's memory is untouched, its job
 * succeeds, its VM is not banned.
 */
TEST_F(exec, user_fence_isolation_between_processes)
{
	struct drm_vgpu_query_vm q;
	struct vgpu_cmd cmd;
	struct buf b;

	ASSERT_EQ(0, buf_create(&self->dev, &b, 64 * 1024, variant->place,
				1ull << 32, VGPU_MAP_RW));
	for (int in_bo = 0; in_bo < 2; in_bo++) {
		int go[2], status;
		pid_t pid;
		char c;

		memset(b.cpu, 0x55, b.size);
		ASSERT_EQ(0, pipe(go));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			struct vgpu_dev dev;
			struct buf own;
			int ret;

			close(go[0]);
			if (vgpu_open(&dev) ||
			    buf_create(&dev, &own, 4096, VGPU_PLACE_SYSTEM,
				       3ull << 32, VGPU_MAP_RW))
				_exit(10);
			memset(own.cpu, 0, 4096);
			vgpu_cmd_init(&cmd);
			raw_fence(&cmd, VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_NOWRITE,
				  0, ~0ull);
			vgpu_cmd_wait(&cmd, own.va, 1);
			/* The victim's VA: only reachable in its context. */
			vgpu_cmd_fill(&cmd, b.va, 4096, 0xdead);
			(void)!write(go[1], "g", 1);
			ret = run_stream(&dev, 0, &cmd, in_bo, 2ull << 32);
			vgpu_cmd_fini(&cmd);
			vgpu_close(&dev);
			_exit(ret == -EPERM ? 0 : 20);
		}
		close(go[1]);
		ASSERT_EQ(1, read(go[0], &c, 1));
		close(go[0]);
		/* The victim's job on the same queue, right behind. */
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fill(&cmd, b.va + 8192, 4096, 0x77);
		EXPECT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
		vgpu_cmd_fini(&cmd);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) {
			TH_LOG("%s stream: attacker's job did not end with -EPERM",
			       in_bo ? "BO" : "inline");
		}
		EXPECT_EQ(0x55555555, ((uint32_t *)b.cpu)[0]);
		EXPECT_EQ(0x77, ((uint32_t *)b.cpu)[2048]);
		vgpu_query_vm(&self->dev, &q);
		EXPECT_FALSE(q.state & DRM_VGPU_VM_STATE_BANNED);
	}
	buf_destroy(&self->dev, &b);
}

/* ------------------------------------------------ counters and leaves --- */

static uint64_t walks_for_touch(struct vgpu_dev *dev, struct buf *b, uint64_t va)
{
	struct drm_vgpu_query_vm q0, q1;
	struct vgpu_cmd cmd;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, va,
		       b->size, 0, 0, 0, 1);
	vgpu_query_vm(dev, &q0);
	if (vgpu_run(dev, 0, &cmd, 30 * SEC))
		return ~0ull;
	vgpu_query_vm(dev, &q1);
	vgpu_cmd_fini(&cmd);
	return q1.device[VGPU_CTR_WALKS] - q0.device[VGPU_CTR_WALKS];
}

TEST_F(exec, huge_leaves_cut_walks)
{
	struct buf b;
	uint64_t w2m, w4k, va4k = 5ull << 32;

	if (!(self->dev.page_sizes & (2 * MiB)))
		SKIP(return, "no 2 MiB pages");
	ASSERT_EQ(0, buf_create(&self->dev, &b, 8 * MiB, variant->place,
				4ull << 32, VGPU_MAP_RW));
	/* The same BO at a VA that only allows 4 KiB pages. */
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, b.bo, 0, va4k + 4096, b.size - 4096,
				 VGPU_MAP_RW));
	w2m = walks_for_touch(&self->dev, &b, b.va);
	b.size -= 4096;
	w4k = walks_for_touch(&self->dev, &b, va4k + 4096);
	TH_LOG("%s: sequential read of 8 MiB: %llu walks with 2 MiB leaves, %llu with 4 KiB",
	       variant->place == VGPU_PLACE_VRAM ? "VRAM" : "system",
	       (unsigned long long)w2m, (unsigned long long)w4k);
	if (variant->place == VGPU_PLACE_VRAM) {
		EXPECT_GE(8, w2m);
		EXPECT_LE(2000, w4k);
	}
	EXPECT_LT(w2m, w4k);
}

TEST_F(exec, strict_counters_stay_zero)
{
	struct drm_vgpu_query_counters c;

	ASSERT_EQ(0, vgpu_query_counters(&self->dev, &c));
	if (!(self->dev.caps & VGPU_CAPS_STRICT))
		TH_LOG("device not in strict mode (--prop strict=on): counters zero by construction");
	TH_LOG("stale TLB uses %llu, bad-context work %llu, walks %llu, invalidations %llu",
	       (unsigned long long)c.counters[VGPU_CTR_STRICT_STALE],
	       (unsigned long long)c.counters[VGPU_CTR_STRICT_BAD_CONTEXT],
	       (unsigned long long)c.counters[VGPU_CTR_WALKS],
	       (unsigned long long)c.counters[VGPU_CTR_INVALIDATIONS]);
	EXPECT_EQ(0, c.counters[VGPU_CTR_STRICT_STALE]);
	EXPECT_EQ(0, c.counters[VGPU_CTR_STRICT_BAD_CONTEXT]);
}

/* More VMs than hardware contexts, all running jobs. */
TEST_F(exec, more_vms_than_contexts)
{
	int n = self->dev.num_contexts + 8, i, ok = 0;
	struct vgpu_dev *devs = calloc(n, sizeof(*devs));
	struct buf *bufs = calloc(n, sizeof(*bufs));
	uint64_t switches = 0;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, vgpu_open(&devs[i]));
		ASSERT_EQ(0, buf_create(&devs[i], &bufs[i], 4096, VGPU_PLACE_SYSTEM,
					1ull << 32, VGPU_MAP_RW));
	}
	for (int round = 0; round < 2; round++) {
		for (i = 0; i < n; i++) {
			struct vgpu_cmd cmd;

			vgpu_cmd_init(&cmd);
			vgpu_cmd_fill(&cmd, bufs[i].va, 4096, i + round);
			ok += vgpu_run(&devs[i], i % devs[i].exec_queues, &cmd, 30 * SEC) == 0 &&
			      ((uint32_t *)bufs[i].cpu)[0] == (uint32_t)(i + round);
			vgpu_cmd_fini(&cmd);
		}
	}
	for (i = 0; i < n; i++) {
		struct drm_vgpu_query_vm q;

		vgpu_query_vm(&devs[i], &q);
		switches += q.context_switches;
		vgpu_close(&devs[i]);
	}
	EXPECT_EQ(2 * n, ok);
	TH_LOG("%d VMs on %u contexts: %llu context acquisitions for %d jobs", n,
	       self->dev.num_contexts, (unsigned long long)switches, 2 * n);
	EXPECT_LE(n + 8, switches);
	free(devs);
	free(bufs);
}

/* ------------------------------------------------------------- errnos --- */

TEST_F(exec, bad_args)
{
	uint32_t nop = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, 1), bad_sync = 0x7ffff;
	uint32_t empty_sync;
	struct drm_vgpu_exec ok = {
		.cmds = (uintptr_t)&nop, .cmds_size = 4,
	}, ex;
	int fd = self->dev.fd;

	ex = ok;
	EXPECT_EQ(0, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.vm_id = 1;	/* no VM created: unknown id */
	EXPECT_ERRNO(ENOENT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.pad = 1;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.reserved = 1;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.flags = DRM_VGPU_EXEC_FLAGS_ALL + 1;	/* first unknown bit */
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.queue = self->dev.exec_queues;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds_size = 0;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds_size = 6;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds_size = DRM_VGPU_EXEC_MAX_CMDS_SIZE + 4;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.num_in_syncs = DRM_VGPU_EXEC_MAX_SYNCS + 1;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds_handle = 1;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds_offset = 4;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds = 0;
	EXPECT_ERRNO(EFAULT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.cmds = 16;
	EXPECT_ERRNO(EFAULT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.num_in_syncs = 1; ex.in_syncs = 0;
	EXPECT_ERRNO(EFAULT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.num_in_syncs = 1; ex.in_syncs = (uintptr_t)&bad_sync;
	EXPECT_ERRNO(ENOENT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex = ok; ex.out_sync = bad_sync;
	EXPECT_ERRNO(ENOENT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	/* An in-syncobj that holds no fence yet: nothing to wait for. */
	ASSERT_EQ(0, vgpu_syncobj_create(&self->dev, &empty_sync));
	ex = ok; ex.num_in_syncs = 1; ex.in_syncs = (uintptr_t)&empty_sync;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	vgpu_syncobj_destroy(&self->dev, empty_sync);
	ex = ok; ex.flags = DRM_VGPU_EXEC_CMDS_BO; ex.cmds = 0;
	ex.cmds_handle = 0x7fffff;
	EXPECT_ERRNO(ENOENT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex.cmds_handle = self->res.bo; ex.cmds_offset = 4096;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ex.cmds_offset = 2;
	EXPECT_ERRNO(EINVAL, ioctl(fd, DRM_IOCTL_VGPU_EXEC, &ex));
	EXPECT_ERRNO(EFAULT, ioctl(fd, DRM_IOCTL_VGPU_EXEC, NULL));
}

/*
 * Submit to @queue a job that sets the 64-bit flag @started of @flags,
 * then runs until the CPU sets flag 0; wait until it runs on the GPU.
 */
static int start_job_until_flag(struct vgpu_dev *dev, struct buf *flags,
				uint32_t queue, unsigned int started,
				uint32_t sync)
{
	volatile uint64_t *flag = flags->cpu;
	struct vgpu_cmd cmd;
	uint32_t one = 1;
	int i, ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_write(&cmd, flags->va + 8 * started, &one, 1);
	vgpu_cmd_wait(&cmd, flags->va, 1);
	ret = vgpu_submit(dev, queue, &cmd, NULL, 0, sync);
	vgpu_cmd_fini(&cmd);
	for (i = 0; !ret && i < 3000 && !flag[started]; i++)
		usleep(10000);
	return ret ? ret : flag[started] == 1 ? 0 : -ETIMEDOUT;
}

/*
 * Closing a file whose VM was banned waits for the VM's jobs still on the
 * hardware.  A job that runs after the ban fails at once, before the jobs
 * queued ahead of it on other rings: it must not let close() free the
 * page tables and the context of a job still running (found by
 * vgpu-fuzz: "WARNING ... vgpu_ctx_release" from close()).
 */
TEST_F(exec, close_after_ban_waits_for_running_jobs)
{
	struct vgpu_dev *dev = &self->dev;
	uint32_t s_run, s_fault, s_late;
	struct vgpu_cmd cmd;
	struct timespec t0, t1;
	struct buf flags;
	volatile uint64_t *flag;
	double closed_after;
	int status, ready[2], dmabuf;
	pid_t pid;
	char byte;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	if (dev->exec_queues < 2)
		SKIP(return, "needs two exec queues");
	ASSERT_EQ(0, buf_create(dev, &flags, 4096, VGPU_PLACE_SYSTEM,
				1ull << 32, VGPU_MAP_RW));
	flag = flags.cpu;
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_run));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_fault));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_late));
	/* Queue 0: a job that runs until flag 0 is set. */
	ASSERT_EQ(0, start_job_until_flag(dev, &flags, 0, 2, s_run));
	/* Queue 1: once flag 1 is set, a fault that bans the VM. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_wait(&cmd, flags.va + 8, 1);
	vgpu_cmd_fill(&cmd, 3ull << 32, 4096, 1);	/* nothing mapped there */
	ASSERT_EQ(0, vgpu_submit(dev, 1, &cmd, NULL, 0, s_fault));
	/* Queue 0 again, after the fault: fails at once, banned. */
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_nop(&cmd, 1);
	ASSERT_EQ(0, vgpu_submit(dev, 0, &cmd, &s_fault, 1, s_late));
	vgpu_cmd_fini(&cmd);

	/* Now the fault. */
	flag[1] = 1;
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, s_late, 30 * SEC));
	EXPECT_EQ(-EFAULT, vgpu_syncobj_status(dev, s_fault));
	EXPECT_EQ(-ECANCELED, vgpu_syncobj_status(dev, s_late));
	/* The first job is still running. */
	ASSERT_EQ(0, vgpu_syncobj_status(dev, s_run));

	/*
	 * Let it finish one second from now, while the file closes: a child
	 * that has closed its copy of the file first writes the flag through
	 * a dma-buf mapping (a mapping of the render node would keep the
	 * file open).
	 */
	ASSERT_EQ(0, vgpu_bo_export(dev, flags.bo, &dmabuf));
	flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, flag);
	vgpu_bo_unmap(flags.cpu, flags.size);
	vgpu_bo_unmap(self->res.cpu, self->res.size);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(dev->fd);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		usleep(1000000);
		flag[0] = 1;
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &byte, 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	vgpu_close(dev);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	close(ready[0]);
	close(ready[1]);
	closed_after = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	TH_LOG("close() returned after %.2f s", closed_after);
	/* close() waited for the running job, which needed the flag. */
	EXPECT_LE(0.5, closed_after);
	munmap((void *)flag, 4096);
	close(dmabuf);
}

/* Lines of the kernel log that contain @what so far, or -1. */
static int kernel_log_count(const char *what)
{
	static char log[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	char *p = log;
	int count = 0;

	if (n < 0)
		return -1;
	log[n] = 0;
	while ((p = strstr(p, what))) {
		count++;
		p++;
	}
	return count;
}

static int kernel_warnings(void)
{
	return kernel_log_count("WARNING:");
}

/*
 * A process that exits with a job still waiting for its queue: the job
 * took its VM's hardware context in prepare_job, and the scheduler kills
 * it when the exiting file's entity does not drain within a second.  The
 * killed job must give the context back (found by vgpu-fuzz: "WARNING
 * ... vgpu_ctx_release" from do_exit()).
 */
TEST_F(exec, exit_with_a_job_waiting_for_its_queue)
{
	struct vgpu_dev *dev = &self->dev;
	uint32_t s_run;
	struct buf flags;
	volatile uint64_t *flag;
	int status, warnings;
	pid_t pid;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	warnings = kernel_warnings();
	if (warnings < 0)
		SKIP(return, "cannot read the kernel log");
	ASSERT_EQ(0, buf_create(dev, &flags, 4096, VGPU_PLACE_SYSTEM,
				1ull << 32, VGPU_MAP_RW));
	flag = flags.cpu;
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_run));
	/* This VM holds queue 0 until flag 0 is set. */
	ASSERT_EQ(0, start_job_until_flag(dev, &flags, 0, 1, s_run));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vgpu_dev other;
		struct vgpu_cmd nop;

		if (vgpu_open(&other))
			_exit(10);
		vgpu_cmd_init(&nop);
		vgpu_cmd_nop(&nop, 1);
		if (vgpu_submit(&other, 0, &nop, NULL, 0, 0))
			_exit(11);
		/* Its job waits for queue 0 to go idle; exit with it. */
		usleep(300000);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/* The entity of the exited file gives up after a second. */
	usleep(1500000);
	flag[0] = 1;
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, s_run, 30 * SEC));
	EXPECT_EQ(1, vgpu_syncobj_status(dev, s_run));
	EXPECT_EQ(warnings, kernel_warnings());
	buf_destroy(dev, &flags);
}

/*
 * Any client can make jobs fail, one per new file: the kernel log gets a
 * bounded number of recovery messages however many (found by vgpu-fuzz:
 * thousands of lines a minute, printed on the serial console by the
 * timeout worker, stalled the guest).
 */
TEST_F(exec, recovery_messages_are_ratelimited)
{
	const int jobs = 40;
	struct timespec t0, t1;
	int before, after, i;
	double secs;

	if (variant->place != VGPU_PLACE_VRAM)
		SKIP(return, "once is enough");
	before = kernel_log_count("resetting the queue");
	if (before < 0)
		SKIP(return, "cannot read the kernel log");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < jobs; i++) {
		struct vgpu_dev dev;
		struct vgpu_cmd cmd;

		ASSERT_EQ(0, vgpu_open(&dev));
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fill(&cmd, 3ull << 32, 4096, 1);	/* nothing mapped */
		EXPECT_EQ(-EFAULT, vgpu_run(&dev, 0, &cmd, 30 * SEC));
		vgpu_cmd_fini(&cmd);
		vgpu_close(&dev);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	after = kernel_log_count("resetting the queue");
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	TH_LOG("%d failed jobs in %.1f s: %d recovery messages", jobs, secs,
	       after - before);
	/*
	 * printk's default: 10 messages per 5 s window.  The window in force
	 * at t0 may have begun before it (earlier tests' messages), so the
	 * run may meet one window more than its length makes.
	 */
	EXPECT_GE(10 * (2 + (int)(secs / 5)), after - before);
	EXPECT_GT(jobs, after - before);
}

TEST_HARNESS_MAIN
