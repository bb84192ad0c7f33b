// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What one client may hold, and for how long: an open file pins nothing,
 * what a VM pins is bounded and charged in fdinfo, a job never fails for
 * want of a hardware context, close() is bounded even when a job would
 * run forever, and unbinding the driver ends the jobs in flight.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <limits.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_buf.h"

#define MiB (1ull << 20)
#define SEC 1000000000ll

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Submit @cmd on @queue with a new out-syncobj (returned). */
static int submit(struct vgpu_dev *dev, uint32_t queue, struct vgpu_cmd *cmd,
		  uint32_t *sync)
{
	int ret = vgpu_syncobj_create(dev, sync);

	return ret ?: vgpu_submit(dev, queue, cmd, NULL, 0, *sync);
}

/* The status of a finished job (0 or its error), waiting up to @ns. */
static int job_status(struct vgpu_dev *dev, uint32_t sync, int64_t ns)
{
	int ret = vgpu_syncobj_wait(dev, sync, ns);

	if (ret)
		return ret;
	ret = vgpu_syncobj_status(dev, sync);
	return ret > 0 ? 0 : ret;
}

FIXTURE(limits) {
	struct vgpu_dev dev;
	char saved[32];
	const char *param;
};

FIXTURE_SETUP(limits)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	self->param = NULL;
}

FIXTURE_TEARDOWN(limits)
{
	if (self->param)
		vgpu_test_param(self->param, self->saved, NULL, 0);
	vgpu_close(&self->dev);
}

/* Set a module parameter for the test; the teardown restores it. */
static int set_param(FIXTURE_DATA(limits) *self, const char *name,
		     const char *value)
{
	self->param = name;
	return vgpu_test_param(name, value, self->saved, sizeof(self->saved));
}

/*
 * 5,000 open files pin no VRAM and no page table; another process can
 * still create, map and use a VRAM BO of half of VRAM.
 */
TEST_F(limits, open_5000_files_pins_nothing)
{
	struct rlimit rl = { 5200, 5200 };
	struct drm_vgpu_query_memory m0, m1;
	char path[PATH_MAX], link[64];
	int *fds, i, n = 5000, status;
	ssize_t len;
	pid_t pid;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		SKIP(return, "cannot raise RLIMIT_NOFILE (not root)");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", self->dev.fd);
	len = readlink(link, path, sizeof(path) - 1);
	ASSERT_LT(0, len);
	path[len] = '\0';
	fds = calloc(n, sizeof(*fds));
	ASSERT_NE(NULL, fds);

	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m0));
	for (i = 0; i < n; i++) {
		fds[i] = open(path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fds[i]) TH_LOG("open %d: %s", i, strerror(errno));
	}
	ASSERT_EQ(0, vgpu_query_memory(&self->dev, &m1));
	TH_LOG("%d files: VRAM used by the kernel %llu -> %llu KiB, page tables %llu -> %llu",
	       n, (unsigned long long)m0.vram_kernel_used >> 10,
	       (unsigned long long)m1.vram_kernel_used >> 10,
	       (unsigned long long)m0.pt_pages, (unsigned long long)m1.pt_pages);
	EXPECT_EQ(m0.vram_kernel_used, m1.vram_kernel_used);
	EXPECT_EQ(m0.pt_pages, m1.pt_pages);
	EXPECT_EQ(0, fdinfo_u64(fds[n - 1], "drm-vgpu-pt-bytes"));
	EXPECT_EQ(0, fdinfo_u64(fds[n - 1], "drm-vgpu-stream-bytes"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint64_t size = self->dev.vram_size / 2, probe = 64 * 1024;
		struct vgpu_dev dev;
		struct vgpu_cmd cmd;
		struct buf b, out;
		uint64_t bad = 0;

		/* The BO may not fit the CPU window: read it back by COPY. */
		if (vgpu_open(&dev) ||
		    buf_create(&dev, &b, size, VGPU_PLACE_VRAM, 1ull << 32,
			       VGPU_MAP_RW) ||
		    buf_create(&dev, &out, 2 * probe, VGPU_PLACE_SYSTEM,
			       1ull << 40, VGPU_MAP_RW))
			_exit(10);
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fill(&cmd, b.va, size, 0x5a5a5a5a);
		vgpu_cmd_copy(&cmd, b.va, out.va, probe);
		vgpu_cmd_copy(&cmd, b.va + size - probe, out.va + probe, probe);
		if (vgpu_run(&dev, 0, &cmd, 60 * SEC))
			_exit(11);
		for (uint64_t j = 0; j < 2 * probe / 4; j++)
			bad += ((uint32_t *)out.cpu)[j] != 0x5a5a5a5a;
		vgpu_cmd_fini(&cmd);
		vgpu_close(&dev);
		_exit(bad ? 12 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

/* What a VM pins is charged to its file: page tables, stream buffer. */
TEST_F(limits, pinned_memory_in_fdinfo)
{
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	struct buf b;

	ASSERT_EQ(0, vgpu_open(&dev));
	EXPECT_EQ(0, fdinfo_u64(dev.fd, "drm-vgpu-pt-bytes"));
	EXPECT_EQ(0, fdinfo_u64(dev.fd, "drm-vgpu-stream-bytes"));
	ASSERT_EQ(0, buf_create(&dev, &b, 64 * 1024, VGPU_PLACE_SYSTEM,
					1ull << 32, VGPU_MAP_RW));
	/* Root and levels 2, 1, 0. */
	EXPECT_EQ(4 * 4096, fdinfo_u64(dev.fd, "drm-vgpu-pt-bytes"));
	EXPECT_EQ(0, fdinfo_u64(dev.fd, "drm-vgpu-stream-bytes"));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, 4096, 1);
	ASSERT_EQ(0, vgpu_run(&dev, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
	/* The inline stream went through the VM's stream buffer. */
	EXPECT_EQ(128 * 1024, fdinfo_u64(dev.fd, "drm-vgpu-stream-bytes"));
	/* Its page tables: levels 2, 1, 0 in the kernel's GiB. */
	EXPECT_EQ(7 * 4096, fdinfo_u64(dev.fd, "drm-vgpu-pt-bytes"));
	EXPECT_EQ(1, ((uint32_t *)b.cpu)[0]);
	vgpu_close(&dev);
}

/* vm_max_pt_kib bounds one VM's page tables: -ENOSPC, others unharmed. */
TEST_F(limits, page_tables_bounded_per_vm)
{
	struct vgpu_dev other;
	uint32_t bo, obo;
	int i, ret = 0;

	ASSERT_EQ(0, set_param(self, "vm_max_pt_kib", "64"));	/* 16 tables */
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, 4096, VGPU_PLACE_SYSTEM, 0, &bo));
	/* 512 GiB apart: each mapping needs tables at levels 2, 1 and 0. */
	for (i = 0; i < 16 && !ret; i++)
		ret = vgpu_vm_map(&self->dev, bo, 0, (uint64_t)(i + 1) << 39,
				  4096, VGPU_MAP_RW);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(6, i);		/* root + 5 * 3 = 16 tables mapped */
	EXPECT_GE(64 * 1024, fdinfo_u64(self->dev.fd, "drm-vgpu-pt-bytes"));
	/* Another VM still maps. */
	ASSERT_EQ(0, vgpu_open(&other));
	ASSERT_EQ(0, vgpu_bo_create(&other, 4096, VGPU_PLACE_SYSTEM, 0, &obo));
	EXPECT_EQ(0, vgpu_vm_map(&other, obo, 0, 1ull << 32, 4096, VGPU_MAP_RW));
	vgpu_close(&other);
	/* Unmapping gives the room back. */
	EXPECT_EQ(0, vgpu_vm_unmap(&self->dev, 1ull << 39, 1ull << 39));
	EXPECT_EQ(0, vgpu_vm_map(&self->dev, bo, 0, 13ull << 39, 4096, VGPU_MAP_RW));
}

/*
 * Every hardware context in use: a job waits for one instead of failing.
 * With one context for users, VM A holds it with a job on queue 0 while
 * its job on queue 1 ends; VM B's job then finds the context busy and no
 * unfinished fence of A's last job to wait on.  It must wait, then run.
 */
TEST_F(limits, job_waits_for_a_context)
{
	struct vgpu_dev b_dev;
	struct vgpu_cmd cmd;
	struct buf a, b;
	uint32_t s1, s2, s3;

	if (self->dev.exec_queues < 3)
		SKIP(return, "needs 3 exec queues");
	ASSERT_EQ(0, set_param(self, "max_contexts", "1"));
	ASSERT_EQ(0, vgpu_open(&b_dev));
	ASSERT_EQ(0, buf_create(&self->dev, &a, 4096, VGPU_PLACE_SYSTEM,
					1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&b_dev, &b, 4096, VGPU_PLACE_SYSTEM,
					1ull << 32, VGPU_MAP_RW));
	memset(a.cpu, 0, 4096);
	memset(b.cpu, 0, 4096);

	vgpu_cmd_init(&cmd);
	vgpu_cmd_wait(&cmd, a.va, 1);
	ASSERT_EQ(0, submit(&self->dev, 0, &cmd, &s1));
	vgpu_cmd_reset(&cmd);
	vgpu_cmd_wait(&cmd, a.va + 8, 1);
	ASSERT_EQ(0, submit(&self->dev, 1, &cmd, &s2));
	usleep(200000);
	((volatile uint64_t *)a.cpu)[1] = 1;	/* the job on queue 1 ends */
	ASSERT_EQ(0, job_status(&self->dev, s2, 10 * SEC));

	vgpu_cmd_reset(&cmd);
	vgpu_cmd_fill(&cmd, b.va, 4096, 0xb0b0b0b0);
	ASSERT_EQ(0, submit(&b_dev, 2, &cmd, &s3));
	/* B waits: A's job on queue 0 still holds the only context. */
	EXPECT_EQ(-ETIME, vgpu_syncobj_wait(&b_dev, s3, SEC / 2));
	EXPECT_EQ(0, ((uint32_t *)b.cpu)[0]);
	((volatile uint64_t *)a.cpu)[0] = 1;	/* A's last job ends */
	EXPECT_EQ(0, job_status(&self->dev, s1, 10 * SEC));
	EXPECT_EQ(0, job_status(&b_dev, s3, 10 * SEC));
	EXPECT_EQ(0xb0b0b0b0, ((uint32_t *)b.cpu)[0]);
	vgpu_cmd_fini(&cmd);
	vgpu_close(&b_dev);
}

/*
 * A job that keeps making progress (GPU faults on pageable memory larger
 * than VRAM, resolved one by one) is never timed out while its file is
 * open, with job_timeout_max_ms=0.  close() must not wait for it: it
 * returns within its bound, and the job ends soon after.
 */
TEST_F(limits, close_with_endless_job_is_bounded)
{
	uint64_t size = 2 * self->dev.vram_size;
	double t0, t1, closed;
	int go[2], status;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, set_param(self, "job_timeout_max_ms", "0"));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vgpu_dev dev;
		struct vgpu_cmd cmd;
		uint32_t h, sync;
		double t;

		close(go[0]);
		if (vgpu_open(&dev) ||
		    vgpu_bo_create_pageable(&dev, size, &h, NULL) ||
		    vgpu_vm_map(&dev, h, 0, 1ull << 32, size, VGPU_MAP_RW))
			_exit(10);
		vgpu_cmd_init(&cmd);
		vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_WRITE,
			       1ull << 32, size, 0, 0, 0, 1u << 30);
		if (submit(&dev, 0, &cmd, &sync))
			_exit(11);
		/* Well past the job timeout: the job is alive. */
		sleep(7);
		if (!vgpu_syncobj_wait(&dev, sync, 0))
			_exit(12);
		t = now_s();
		vgpu_close(&dev);
		t = now_s() - t;
		(void)!write(go[1], &t, sizeof(t));
		_exit(0);
	}
	close(go[1]);
	n = read(go[0], &closed, sizeof(closed));
	close(go[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(sizeof(closed), n);
	TH_LOG("close() with an endless job in flight took %.2f s", closed);
	EXPECT_GT(3, closed);

	/* The queue is free again soon: the banned job got no extension. */
	t0 = now_s();
	{
		struct vgpu_cmd cmd;
		struct buf b;

		ASSERT_EQ(0, buf_create(&self->dev, &b, 4096, VGPU_PLACE_SYSTEM,
						1ull << 32, VGPU_MAP_RW));
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fill(&cmd, b.va, 4096, 0x12);
		EXPECT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 60 * SEC));
		EXPECT_EQ(0x12, ((uint32_t *)b.cpu)[0]);
		vgpu_cmd_fini(&cmd);
	}
	t1 = now_s();
	TH_LOG("next job on the queue ran %.1f s after the close", t1 - t0);
	EXPECT_GT(30, t1 - t0);
}

/* The PCI address of the device behind a render node fd. */
static int pci_addr(int fd, char *out, size_t size)
{
	char path[128], target[256], *base;
	ssize_t n;
	int ret;

	ret = vgpu_test_sysfs_dir(fd, path, sizeof(path));
	if (ret)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(out, size, "%.63s", base ? base + 1 : target);
	return 0;
}

static int sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Unbinding the driver with a job in flight ends the job with -ENODEV
 * (its fence signals), every later ioctl of the open file gets -ENODEV,
 * close() returns, and the device works again once bound.
 */
TEST_F(limits, unbind_with_job_in_flight)
{
	struct sync_file_info info = {};
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	struct pollfd pfd;
	char addr[64];
	struct buf b;
	uint32_t sync, h;
	double t;
	int fence;

	ASSERT_EQ(0, pci_addr(self->dev.fd, addr, sizeof(addr)));
	vgpu_close(&self->dev);
	ASSERT_EQ(0, vgpu_open(&dev));
	ASSERT_EQ(0, buf_create(&dev, &b, 4096, VGPU_PLACE_SYSTEM,
					1ull << 32, VGPU_MAP_RW));
	memset(b.cpu, 0, 4096);
	vgpu_cmd_init(&cmd);
	vgpu_cmd_wait(&cmd, b.va, 1);		/* never true */
	ASSERT_EQ(0, submit(&dev, 0, &cmd, &sync));
	vgpu_cmd_fini(&cmd);
	ASSERT_EQ(0, drmSyncobjExportSyncFile(dev.fd, sync, &fence));
	usleep(200000);

	ASSERT_EQ(0, sysfs_write("/sys/bus/pci/drivers/vgpu/unbind", addr));
	pfd = (struct pollfd){ .fd = fence, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	ASSERT_EQ(0, ioctl(fence, SYNC_IOC_FILE_INFO, &info));
	EXPECT_EQ(-ENODEV, info.status);
	close(fence);
	EXPECT_EQ(-ENODEV, vgpu_bo_create(&dev, 4096, VGPU_PLACE_SYSTEM, 0, &h));
	vgpu_bo_unmap(b.cpu, b.size);
	t = now_s();
	vgpu_close(&dev);
	EXPECT_GT(2, now_s() - t);

	ASSERT_EQ(0, sysfs_write("/sys/bus/pci/drivers/vgpu/bind", addr));
	usleep(500000);
	ASSERT_EQ(0, vgpu_open(&self->dev));
	ASSERT_EQ(0, buf_create(&self->dev, &b, 4096, VGPU_PLACE_SYSTEM,
					1ull << 32, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, 4096, 0x77);
	EXPECT_EQ(0, vgpu_run(&self->dev, 0, &cmd, 30 * SEC));
	EXPECT_EQ(0x77, ((uint32_t *)b.cpu)[0]);
	vgpu_cmd_fini(&cmd);
}

TEST_HARNESS_MAIN
