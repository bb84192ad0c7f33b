// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Robustness under load: a queue reset by the timeout handler; whole-device
 * resets (debugfs ``reset`` and a PCI function-level reset) while two VMs'
 * jobs run, while they share one hardware context, while a job waits and
 * while jobs fault on pageable memory; hot-unplug with live clients (jobs
 * in flight, CPU mmaps of VRAM, system and pageable BOs, bound BOs,
 * dma-bufs, a vgem import, a sleeping waiter), then a re-plug through a
 * PCI rescan.
 *
 * Resets and the re-plug zero the device's counters, so run-suite.sh runs
 * this program after the strict-mode check.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <limits.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "vgpu_test_vgem.h"
#include "libvgpu.h"
#include "vgpu_test_buf.h"

#define MiB (1ull << 20)
#define SEC 1000000000ll
#define LOAD_JOBS 24
#define LOAD_SIZE (4 * MiB)
/* Where in res a gated load's first job waits for 1 (see load_submit()). */
#define LOAD_GATE 4088

static void pattern(void *p, size_t size, uint64_t seed)
{
	uint64_t *q = p;
	size_t i;

	for (i = 0; i < size / 8; i++)
		q[i] = seed ^ (i * 0x9e3779b97f4a7c15ull);
}

/* sysfs file of the PCI device behind @fd ("remove", "reset", ...). */
static int dev_path(int fd, const char *file, char *out, size_t size)
{
	char dir[96], real[PATH_MAX];
	int ret = vgpu_test_sysfs_dir(fd, dir, sizeof(dir));

	if (ret)
		return ret;
	if (!realpath(dir, real))
		return -errno;
	snprintf(out, size, "%.400s/%.60s", real, file);
	return 0;
}

/*
 * A VM's load: LOAD_JOBS jobs on one exec queue, each copying src (a
 * pattern) to dst and summing dst into its own slot of res; a bystander
 * VRAM BO that no job touches keeps another pattern.
 */
struct load {
	struct vgpu_dev dev;
	struct buf src, dst, res, keep;
	uint32_t sync[LOAD_JOBS];
	uint32_t queue;
	uint64_t seed, want;
};

static int load_init(struct load *l, uint32_t queue, uint64_t seed)
{
	int ret = vgpu_open(&l->dev);

	if (ret)
		return ret;
	l->queue = queue % l->dev.exec_queues;
	l->seed = seed;
	ret = buf_create(&l->dev, &l->src, LOAD_SIZE, VGPU_PLACE_VRAM,
			 1ull << 32, VGPU_MAP_R) ?:
	      buf_create(&l->dev, &l->dst, LOAD_SIZE, VGPU_PLACE_VRAM,
			 2ull << 32, VGPU_MAP_RW) ?:
	      buf_create(&l->dev, &l->res, 4096, VGPU_PLACE_SYSTEM,
			 3ull << 32, VGPU_MAP_RW) ?:
	      buf_create(&l->dev, &l->keep, MiB, VGPU_PLACE_VRAM,
			 4ull << 32, VGPU_MAP_RW);
	if (ret)
		return ret;
	pattern(l->src.cpu, l->src.size, seed);
	pattern(l->keep.cpu, l->keep.size, ~seed);
	l->want = vgpu_fnv1a64(l->src.cpu, l->src.size);
	return 0;
}

/*
 * Submit the jobs, each with its syncobj.  With @gate, the first job
 * first waits for load_open_gate(), so that all of them are still pending
 * however fast the kernel submits.
 */
static int load_submit_gated(struct load *l, bool gate)
{
	struct vgpu_cmd cmd;
	int i, ret = 0;

	((volatile uint64_t *)l->res.cpu)[LOAD_GATE / 8] = 0;
	vgpu_cmd_init(&cmd);
	for (i = 0; i < LOAD_JOBS && !ret; i++) {
		vgpu_cmd_reset(&cmd);
		if (gate && !i)
			vgpu_cmd_wait(&cmd, l->res.va + LOAD_GATE, 1);
		vgpu_cmd_copy(&cmd, l->src.va, l->dst.va, l->src.size);
		vgpu_cmd_checksum(&cmd, l->dst.va, l->dst.size, l->res.va + 8 * i);
		ret = vgpu_syncobj_create(&l->dev, &l->sync[i]) ?:
		      vgpu_submit(&l->dev, l->queue, &cmd, NULL, 0, l->sync[i]);
	}
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int load_submit(struct load *l)
{
	return load_submit_gated(l, false);
}

static void load_open_gate(struct load *l)
{
	((volatile uint64_t *)l->res.cpu)[LOAD_GATE / 8] = 1;
}

/* Jobs not finished yet. */
static int load_pending(struct load *l)
{
	int i, n = 0;

	for (i = 0; i < LOAD_JOBS; i++)
		n += vgpu_syncobj_status(&l->dev, l->sync[i]) == 0;
	return n;
}

static void load_fini(struct load *l)
{
	vgpu_close(&l->dev);
}

/* Every job ended without error and summed the right data; keep is intact. */
static void expect_load_done(struct __test_metadata *_metadata, struct load *l)
{
	uint64_t *sums = l->res.cpu;
	void *ref;
	int i;

	for (i = 0; i < LOAD_JOBS; i++) {
		ASSERT_EQ(0, vgpu_syncobj_wait(&l->dev, l->sync[i], 60 * SEC));
		EXPECT_EQ(1, vgpu_syncobj_status(&l->dev, l->sync[i])) {
			TH_LOG("job %d", i);
		}
		EXPECT_EQ(l->want, sums[i]) {
			TH_LOG("job %d", i);
		}
	}
	EXPECT_EQ(0, memcmp(l->src.cpu, l->dst.cpu, l->src.size));
	EXPECT_EQ(l->want, vgpu_fnv1a64(l->src.cpu, l->src.size));
	ref = malloc(l->keep.size);
	ASSERT_NE(NULL, ref);
	pattern(ref, l->keep.size, ~l->seed);
	EXPECT_EQ(0, memcmp(ref, l->keep.cpu, l->keep.size));
	free(ref);
}

FIXTURE(robust) {
	struct load a, b;
	char resets[512];
	char max_contexts[32];	/* the parameter to restore, if changed */
};

FIXTURE_SETUP(robust)
{
	struct vgpu_dev probe;

	if (vgpu_open(&probe))
		SKIP(return, "no vgpu render node");
	vgpu_close(&probe);
	ASSERT_EQ(0, load_init(&self->a, 0, 1));
	ASSERT_EQ(0, load_init(&self->b, 1, 2));
	ASSERT_EQ(0, dev_path(self->a.dev.fd, "counters/device_resets",
			      self->resets, sizeof(self->resets)));
}

FIXTURE_TEARDOWN(robust)
{
	load_fini(&self->a);
	load_fini(&self->b);
	if (self->max_contexts[0])
		vgpu_test_param("max_contexts", self->max_contexts, NULL, 0);
}

/* Two VMs' loads, a whole-device reset through @path in the middle. */
static void reset_under_load(struct __test_metadata *_metadata,
			     FIXTURE_DATA(robust) *self, const char *path)
{
	uint64_t before = vgpu_test_read_u64(self->resets);
	int pending;

	ASSERT_NE(~0ull, before);
	ASSERT_EQ(0, load_submit_gated(&self->a, true));
	ASSERT_EQ(0, load_submit_gated(&self->b, true));
	pending = load_pending(&self->a) + load_pending(&self->b);
	ASSERT_EQ(0, vgpu_test_write(path, "1"));
	/* The gated first jobs ran again from their WAIT; let them go. */
	load_open_gate(&self->a);
	load_open_gate(&self->b);
	/* The reset must have met work, or this tests nothing. */
	ASSERT_GT(pending, 0);
	TH_LOG("%d of %d jobs pending at the reset", pending, 2 * LOAD_JOBS);
	EXPECT_EQ(before + 1, vgpu_test_read_u64(self->resets));
	expect_load_done(_metadata, &self->a);
	expect_load_done(_metadata, &self->b);
	/* And the device works afterwards. */
	memset(self->a.res.cpu, 0, 4096);
	memset(self->a.dst.cpu, 0, self->a.dst.size);
	ASSERT_EQ(0, load_submit(&self->a));
	expect_load_done(_metadata, &self->a);
}

TEST_F(robust, debugfs_reset_under_load)
{
	char dev[512], path[512];

	/* dev_path() ends in "/", after the PCI address. */
	ASSERT_EQ(0, dev_path(self->a.dev.fd, "", dev, sizeof(dev)));
	dev[strlen(dev) - 1] = '\0';
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%.64s/reset",
		 strrchr(dev, '/') + 1);
	ASSERT_EQ(0, access(path, W_OK)) {
		TH_LOG("no %s", path);
	}
	reset_under_load(_metadata, self, path);
}

/*
 * The same with one hardware context for both VMs: they take it over
 * from each other between jobs (context invalidations, roots rewritten)
 * while the reset comes.
 */
TEST_F(robust, flr_under_load_one_context)
{
	char path[512], steals[512];
	uint64_t before;

	ASSERT_EQ(0, dev_path(self->a.dev.fd, "reset", path, sizeof(path)));
	ASSERT_EQ(0, dev_path(self->a.dev.fd, "counters/context_steals",
			      steals, sizeof(steals)));
	ASSERT_EQ(0, vgpu_test_param("max_contexts", "1", self->max_contexts,
				     sizeof(self->max_contexts)));
	before = vgpu_test_read_u64(steals);
	reset_under_load(_metadata, self, path);
	EXPECT_LT(before, vgpu_test_read_u64(steals));
}

TEST_F(robust, flr_under_load)
{
	char path[512];

	ASSERT_EQ(0, dev_path(self->a.dev.fd, "reset", path, sizeof(path)));
	ASSERT_EQ(0, access(path, W_OK));
	reset_under_load(_metadata, self, path);
}

/*
 * A job the device is running when the FLR comes (a WAIT for a value no
 * one has written yet) is not failed: it runs again after the reset and
 * completes once the value is written.
 */
TEST_F(robust, job_running_at_flr_runs_again)
{
	struct vgpu_dev *dev = &self->a.dev;
	volatile uint32_t *flag = self->a.res.cpu;
	struct vgpu_cmd cmd;
	char path[512];
	uint32_t sync;

	ASSERT_EQ(0, dev_path(dev->fd, "reset", path, sizeof(path)));
	flag[0] = 0;
	vgpu_cmd_init(&cmd);
	vgpu_cmd_wait(&cmd, self->a.res.va, 1);
	vgpu_cmd_fill(&cmd, self->a.res.va + 64, 64, 0x77777777);
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &sync));
	ASSERT_EQ(0, vgpu_submit(dev, self->a.queue, &cmd, NULL, 0, sync));
	vgpu_cmd_fini(&cmd);
	usleep(200000);
	ASSERT_EQ(0, vgpu_syncobj_status(dev, sync));
	ASSERT_EQ(0, vgpu_test_write(path, "1"));
	usleep(200000);
	/* Still waiting, not failed by the reset. */
	EXPECT_EQ(0, vgpu_syncobj_status(dev, sync));
	flag[0] = 1;
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, sync, 30 * SEC));
	EXPECT_EQ(1, vgpu_syncobj_status(dev, sync));
	EXPECT_EQ(0x77777777u, flag[16]);
}

/*
 * An FLR while jobs fault on a pageable BO (its chunks migrating into
 * VRAM under the fault thread): every job ends without error with the
 * right sum, nothing is cancelled, and the VM is not banned.
 */
TEST_F(robust, flr_during_gpu_faults)
{
	const uint64_t size = 16 * MiB;
	struct drm_vgpu_query_paging pg;
	struct drm_vgpu_query_vm qvm;
	struct vgpu_dev *dev = &self->a.dev;
	uint64_t before = vgpu_test_read_u64(self->resets), want, *p, *sums;
	uint32_t h, sync[4];
	struct vgpu_cmd cmd;
	char path[512];
	int i, pending = 0;

	ASSERT_EQ(0, dev_path(dev->fd, "reset", path, sizeof(path)));
	ASSERT_EQ(0, vgpu_bo_create_pageable(dev, size, &h, NULL));
	ASSERT_EQ(0, vgpu_bo_map(dev, h, size, (void **)&p));
	pattern(p, size, 9);
	want = vgpu_fnv1a64(p, size);
	ASSERT_EQ(0, vgpu_vm_map(dev, h, 0, 1ull << 36, size, VGPU_MAP_R));
	sums = self->a.res.cpu;
	memset(sums, 0, 4096);

	vgpu_cmd_init(&cmd);
	for (i = 0; i < 4; i++) {
		vgpu_cmd_reset(&cmd);
		vgpu_cmd_checksum(&cmd, 1ull << 36, size, self->a.res.va + 8 * i);
		ASSERT_EQ(0, vgpu_syncobj_create(dev, &sync[i]));
		ASSERT_EQ(0, vgpu_submit(dev, self->a.queue, &cmd, NULL, 0, sync[i]));
	}
	vgpu_cmd_fini(&cmd);
	/* Reset once the first job has faulted chunks in, not all of them. */
	for (i = 0; i < 5000; i++) {
		ASSERT_EQ(0, vgpu_query_paging(dev, &pg));
		if (pg.vm.faults_resolved)
			break;
		usleep(1000);
	}
	ASSERT_LT(0, pg.vm.faults_resolved);
	TH_LOG("%llu faults resolved, %llu bytes in at the reset",
	       (unsigned long long)pg.vm.faults_resolved,
	       (unsigned long long)pg.vm.bytes_to_vram);
	for (i = 0; i < 4; i++)
		pending += vgpu_syncobj_status(dev, sync[i]) == 0;
	ASSERT_EQ(0, vgpu_test_write(path, "1"));
	ASSERT_GT(pending, 0);
	TH_LOG("%d of 4 jobs pending at the reset", pending);

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, vgpu_syncobj_wait(dev, sync[i], 60 * SEC));
		EXPECT_EQ(1, vgpu_syncobj_status(dev, sync[i]));
		EXPECT_EQ(want, sums[i]);
	}
	EXPECT_EQ(before + 1, vgpu_test_read_u64(self->resets));
	ASSERT_EQ(0, vgpu_query_paging(dev, &pg));
	EXPECT_LE(1, pg.vm.faults_resolved);
	EXPECT_EQ(0, pg.vm.faults_cancelled);
	ASSERT_EQ(0, vgpu_query_vm(dev, &qvm));
	EXPECT_EQ(0, qvm.state & DRM_VGPU_VM_STATE_BANNED);
	/* The CPU still sees the pattern. */
	EXPECT_EQ(want, vgpu_fnv1a64(p, size));
	vgpu_bo_unmap(p, size);
}

/*
 * A hang on a queue: the timeout handler resets that queue only; the hung
 * job fails with -ETIMEDOUT and every other job, its own VM's behind it
 * and another VM's on the same queue, completes with the right data.
 */
TEST_F(robust, queue_reset_keeps_innocent_jobs)
{
	uint64_t before = vgpu_test_read_u64(self->resets);
	struct vgpu_cmd hang;
	uint32_t s_hang;

	self->b.queue = self->a.queue;
	vgpu_cmd_init(&hang);
	vgpu_cmd_wait(&hang, self->a.res.va + 4000, 1);	/* never true */
	ASSERT_EQ(0, vgpu_syncobj_create(&self->a.dev, &s_hang));
	ASSERT_EQ(0, vgpu_submit(&self->a.dev, self->a.queue, &hang, NULL, 0, s_hang));
	ASSERT_EQ(0, load_submit(&self->a));
	ASSERT_EQ(0, load_submit(&self->b));
	ASSERT_EQ(0, vgpu_syncobj_wait(&self->a.dev, s_hang, 60 * SEC));
	EXPECT_EQ(-ETIMEDOUT, vgpu_syncobj_status(&self->a.dev, s_hang));
	expect_load_done(_metadata, &self->a);
	expect_load_done(_metadata, &self->b);
	/* A queue reset is not a device reset. */
	EXPECT_EQ(before, vgpu_test_read_u64(self->resets));
	vgpu_cmd_fini(&hang);
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

/* Read and write every page of @p; -1 on SIGBUS, else the first word. */
static int64_t touch(volatile uint64_t *p, size_t size)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int64_t first = -1;
	size_t i;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(bus_jmp, 1)) {
		first = p[0];
		for (i = 0; i < size / 8; i += 4096 / 8)
			p[i] = p[i] + 1;
	}
	sigaction(SIGBUS, &old, NULL);
	return first;
}

/* The status of the fence a sync_file holds (1, 0 or a negative errno). */
static int sync_file_status(int fd)
{
	struct sync_file_info info = { 0 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1)
		return 0;
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	return info.status;
}

static int wait_for_device(struct vgpu_dev *dev, int seconds)
{
	int i;

	for (i = 0; i < seconds * 10; i++) {
		if (!vgpu_open(dev))
			return 0;
		usleep(100000);
	}
	return -ENODEV;
}

/*
 * Unplug while a client holds everything it can: jobs on a queue (one
 * hung, one behind it), CPU mappings of a VRAM, a system and a pageable
 * BO (with chunks in VRAM) and of a dma-buf, mappings in its VM, a
 * dma-buf imported by vgem and one not imported yet, and a process asleep
 * in WAIT_BO on the hung job, anonymous memory the GPU wrote through a
 * CPU-address mirror (in VRAM, where the kernel migrates SVM memory: the
 * removal brings it back, data intact).  Every ioctl of the file then fails with
 * ENODEV, the sleeper wakes, the jobs' fences end with -ENODEV, the CPU mappings read the zero page (upstream's
 * ttm_bo_vm_dummy_page()) instead of raising SIGBUS, ptrace access to
 * VRAM fails with EIO, a late import fails with ENODEV, and everything
 * closes; after a rescan the device is back and works.
 */
/*
 * Waits up to @secs seconds for a kernel log record containing @what
 * after the position of @kmsg, a non-blocking fd of /dev/kmsg.
 */
static bool klog_wait(int kmsg, const char *what, int secs)
{
	char rec[1024];
	ssize_t n;
	int i;

	for (i = 0; i < secs * 10; i++) {
		/* EPIPE: records were overwritten; the next read goes on. */
		while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 ||
		       (n < 0 && errno == EPIPE)) {
			if (n <= 0)
				continue;
			rec[n] = 0;
			if (strstr(rec, what))
				return true;
		}
		usleep(100000);
	}
	return false;
}

TEST(unplug_with_live_clients)
{
	struct vgpu_dev dev, again;
	struct buf vram, sys, res, shared;
	struct vgpu_cmd hang, fill;
	uint32_t s_hang, s_fill, vgem_handle, h, late, pageable;
	char remove[512];
	int dmabuf, late_dmabuf, vgem, sf_hang, sf_fill, mem, i, status, kmsg;
	pid_t waiter;
	uint64_t word, k;
	struct drm_vgpu_get_param gp = { .param = DRM_VGPU_PARAM_VRAM_SIZE };
	struct drm_vgpu_vm_bind_op mop = {
		.op = DRM_VGPU_VM_BIND_OP_MAP,
		.flags = DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR | VGPU_MAP_RW,
		.range = 4 * MiB,
	};
	struct vgpu_cmd svm;
	uint32_t *anon;
	void *dmap, *pmap;

	if (vgpu_open(&dev))
		SKIP(return, "no vgpu render node");
	vgem = vgem_open();
	ASSERT_LE(0, vgem) {
		TH_LOG("vgem.ko is needed");
	}
	ASSERT_EQ(0, dev_path(dev.fd, "remove", remove, sizeof(remove)));

	ASSERT_EQ(0, buf_create(&dev, &vram, 2 * MiB, VGPU_PLACE_VRAM,
				1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&dev, &sys, 2 * MiB, VGPU_PLACE_SYSTEM,
				2ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&dev, &res, 4096, VGPU_PLACE_SYSTEM,
				3ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&dev, &shared, MiB, VGPU_PLACE_VRAM,
				4ull << 32, VGPU_MAP_RW));
	pattern(vram.cpu, vram.size, 3);
	pattern(sys.cpu, sys.size, 4);
	pattern(shared.cpu, shared.size, 5);

	/* One dma-buf vgem imports (and pins) now, one it tries later. */
	ASSERT_EQ(0, vgpu_bo_export(&dev, shared.bo, &dmabuf));
	ASSERT_EQ(0, drmPrimeFDToHandle(vgem, dmabuf, &vgem_handle));
	dmap = mmap(NULL, shared.size, PROT_READ, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, dmap);
	EXPECT_EQ(0, memcmp(dmap, shared.cpu, 4096));
	ASSERT_EQ(0, vgpu_bo_create(&dev, MiB, VGPU_PLACE_VRAM, 0, &late));
	ASSERT_EQ(0, vgpu_bo_export(&dev, late, &late_dmabuf));

	/* A pageable BO with chunks in VRAM, faulted in by a job. */
	ASSERT_EQ(0, vgpu_bo_create_pageable(&dev, 4 * MiB, &pageable, NULL));
	ASSERT_EQ(0, vgpu_bo_map(&dev, pageable, 4 * MiB, &pmap));
	pattern(pmap, 4 * MiB, 6);
	ASSERT_EQ(0, vgpu_vm_map(&dev, pageable, 0, 1ull << 36, 4 * MiB, VGPU_MAP_R));
	vgpu_cmd_init(&fill);
	vgpu_cmd_checksum(&fill, 1ull << 36, 4 * MiB, res.va + 8);
	ASSERT_EQ(0, vgpu_run(&dev, 1 % dev.exec_queues, &fill, 30 * SEC));
	EXPECT_EQ(vgpu_fnv1a64(pmap, 4 * MiB), ((uint64_t *)res.cpu)[1]);

	/* Anonymous memory the GPU wrote through a mirror, not read since. */
	anon = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	mop.va = (uintptr_t)anon;
	ASSERT_EQ(0, vgpu_vm_bind(&dev, &mop, 1));
	vgpu_cmd_init(&svm);
	vgpu_cmd_fill(&svm, (uintptr_t)anon, 4 * MiB, 0x6b6b6b6b);
	ASSERT_EQ(0, vgpu_run(&dev, 1 % dev.exec_queues, &svm, 30 * SEC));
	vgpu_cmd_fini(&svm);

	vgpu_cmd_init(&hang);
	vgpu_cmd_reset(&fill);
	vgpu_cmd_wait(&hang, res.va, 1);			/* never true */
	vgpu_cmd_fill(&fill, sys.va, sys.size, 0x5a5a5a5a);
	ASSERT_EQ(0, vgpu_syncobj_create(&dev, &s_hang));
	ASSERT_EQ(0, vgpu_syncobj_create(&dev, &s_fill));
	ASSERT_EQ(0, vgpu_submit(&dev, 0, &hang, NULL, 0, s_hang));
	ASSERT_EQ(0, vgpu_submit(&dev, 0, &fill, NULL, 0, s_fill));
	ASSERT_EQ(0, drmSyncobjExportSyncFile(dev.fd, s_hang, &sf_hang));
	ASSERT_EQ(0, drmSyncobjExportSyncFile(dev.fd, s_fill, &sf_fill));
	EXPECT_EQ(0, vgpu_syncobj_status(&dev, s_hang));
	/* A process asleep in WAIT_BO on the hung job, across the unplug. */
	waiter = fork();
	ASSERT_LE(0, waiter);
	if (!waiter)
		_exit(vgpu_bo_wait(&dev, res.bo, 60 * SEC) ? 1 : 0);
	usleep(300000);
	ASSERT_EQ(0, waitpid(waiter, &status, WNOHANG));

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, kmsg);
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	ASSERT_EQ(0, vgpu_test_write(remove, "1"));

	/* The sleeper wakes: the job's fence has signalled (with -ENODEV). */
	for (i = 0; i < 100 && !waitpid(waiter, &status, WNOHANG); i++)
		usleep(100000);
	ASSERT_GT(100, i);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	/* Every ioctl of the open file: ENODEV. */
	EXPECT_ERRNO(ENODEV, ioctl(dev.fd, DRM_IOCTL_VGPU_GET_PARAM, &gp));
	EXPECT_EQ(-ENODEV, vgpu_bo_create(&dev, 4096, VGPU_PLACE_SYSTEM, 0, &h));
	EXPECT_EQ(-ENODEV, vgpu_submit(&dev, 1, &fill, NULL, 0, 0));
	EXPECT_EQ(-ENODEV, vgpu_vm_unmap(&dev, sys.va, sys.size));
	/* The jobs that were on the ring: -ENODEV, not left hanging. */
	EXPECT_EQ(-ENODEV, sync_file_status(sf_hang));
	EXPECT_EQ(-ENODEV, sync_file_status(sf_fill));
	/* CPU mappings: the zero page, no SIGBUS, whatever was there. */
	EXPECT_EQ(0, touch(vram.cpu, vram.size));
	EXPECT_EQ(0, touch(sys.cpu, sys.size));
	EXPECT_EQ(0, touch(pmap, 4 * MiB));
	/* Process memory is the process's: what the GPU wrote is there. */
	for (k = 0; k < 4 * MiB / 4 && anon[k] == 0x6b6b6b6b; k++)
		;
	EXPECT_EQ(4 * MiB / 4, k);
	EXPECT_EQ(-ENODEV, vgpu_prefetch(&dev, 1ull << 36, 4 * MiB,
					   DRM_VGPU_PLACE_SYSTEM, NULL));
	EXPECT_EQ(0, *(volatile uint64_t *)dmap);
	/* ptrace access to VRAM (TTM's access_memory): the BAR is gone. */
	mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, mem);
	EXPECT_ERRNO(EIO, pread(mem, &word, 8, (off_t)(uintptr_t)vram.cpu));
	close(mem);
	/* An importer that comes too late: vgpu cannot pin a BO any more. */
	EXPECT_ERRNO(ENODEV, drmPrimeFDToHandle(vgem, late_dmabuf, &h));

	/* Everything closes. */
	EXPECT_EQ(0, munmap(dmap, shared.size));
	EXPECT_EQ(0, drmCloseBufferHandle(vgem, vgem_handle));
	close(dmabuf);
	close(late_dmabuf);
	close(sf_hang);
	close(sf_fill);
	vgpu_bo_unmap(vram.cpu, vram.size);
	vgpu_bo_unmap(sys.cpu, sys.size);
	vgpu_bo_unmap(res.cpu, res.size);
	vgpu_bo_unmap(shared.cpu, shared.size);
	vgpu_bo_unmap(pmap, 4 * MiB);
	vgpu_close(&dev);
	close(vgem);
	vgem_release();
	/*
	 * The last user gone, the device is released (its VRAM manager
	 * reports last), whichever reference went last: a job freed by its
	 * scheduler must not release it in the scheduler's own work.
	 */
	EXPECT_TRUE(klog_wait(kmsg, "VRAM manager: all VRAM returned", 20));
	close(kmsg);

	/* Re-plug: a new device that works. */
	ASSERT_EQ(0, vgpu_test_write("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, wait_for_device(&again, 10));
	ASSERT_EQ(0, buf_create(&again, &sys, 2 * MiB, VGPU_PLACE_VRAM,
				1ull << 32, VGPU_MAP_RW));
	vgpu_cmd_reset(&fill);
	vgpu_cmd_fill(&fill, sys.va, sys.size, 0x12345678);
	ASSERT_EQ(0, vgpu_run(&again, 0, &fill, 30 * SEC));
	for (i = 0; i < (int)(sys.size / 4); i += 1024)
		ASSERT_EQ(0x12345678u, ((uint32_t *)sys.cpu)[i]);
	buf_destroy(&again, &sys);
	vgpu_close(&again);
	vgpu_cmd_fini(&hang);
	vgpu_cmd_fini(&fill);
}

TEST_HARNESS_MAIN
