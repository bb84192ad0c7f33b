// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Modeled GPU time (hardware.rst "Cost model"): QUERY_TIME and the fdinfo
 * keys drm-vgpu-modeled-time and drm-vgpu-stall-time after jobs, checked
 * against each other (the exec queue's clock and the VM's counter are
 * charged the same amounts), against the model's formula over the VM's
 * device counters, and for a demand-paged BO against the stall rule
 * (fault service plus the kernel's copies meanwhile); COMPUTE charged as
 * hardware.rst says.  Per exec queue and client (drm-vgpu-modeled-time-q<N>,
 * vm_queue_ns): jobs of one client on two queues, of two clients on one
 * queue, and a job the ring stopped in.  Hostile QUERY arguments too.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB (1ull << 20)
#define TIMEOUT_NS (10ll * 1000 * 1000 * 1000)

/* What the model charges and what the counters say, at one moment. */
struct snap {
	struct drm_vgpu_query_time t;
	struct drm_vgpu_query_vm vm;
	uint64_t fdinfo_modeled, fdinfo_stall;
};

static int snap_take(struct vgpu_dev *dev, struct snap *s)
{
	int ret = vgpu_query_time(dev, &s->t);

	if (ret)
		return ret;
	ret = vgpu_query_vm(dev, &s->vm);
	if (ret)
		return ret;
	s->fdinfo_modeled = fdinfo_u64(dev->fd, "drm-vgpu-modeled-time");
	s->fdinfo_stall = fdinfo_u64(dev->fd, "drm-vgpu-stall-time");
	return 0;
}

#define D(a, b, field)	((b)->field - (a)->field)
#define DCTR(a, b, i)	D(a, b, vm.device[i])

static int touch(struct vgpu_dev *dev, uint64_t va, uint64_t size)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch(&cmd, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, va, size,
		       0, 0, 0, 1);
	ret = vgpu_run(dev, 0, &cmd, TIMEOUT_NS);
	vgpu_cmd_fini(&cmd);
	return ret;
}

FIXTURE(time) {
	struct vgpu_dev dev;
};

FIXTURE_SETUP(time)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	if (!(self->dev.caps & VGPU_CAPS_COST_MODEL))
		SKIP(return, "device without the cost model (caps %#x)",
		     self->dev.caps);
}

FIXTURE_TEARDOWN(time)
{
	vgpu_close(&self->dev);
}

/* The model's parameters come back as the device has them. */
TEST_F(time, parameters)
{
	struct drm_vgpu_query_time t;

	ASSERT_EQ(0, vgpu_query_time(&self->dev, &t));
	EXPECT_GE(VGPU_LINK_C2C, t.link);
	EXPECT_LT(0, t.vram_bw);
	EXPECT_LT(0, t.link_bw);
	EXPECT_LT(0, t.link_lat_ns);
	EXPECT_LT(0, t.tlb_miss_ns);
	EXPECT_LT(0, t.walk_level_ns);
	EXPECT_LT(0, t.fault_ns);
	EXPECT_LT(0, t.cmd_ns);
	EXPECT_EQ(self->dev.exec_queues, t.num_queues);
	EXPECT_GE(t.modeled_ns, t.stall_ns);
	EXPECT_GE(t.modeled_ns, t.vm_modeled_ns);
}

/* Size 0 asks for the size; a short buffer gets a prefix; bad ids fail. */
TEST_F(time, query_arguments)
{
	struct drm_vgpu_query_time t;
	struct drm_vgpu_query q = {
		.type = DRM_VGPU_QUERY_TIME, .data = (uintptr_t)&t,
	};

	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	EXPECT_EQ(sizeof(t), q.size);
	memset(&t, 0xff, sizeof(t));
	q.size = 8;
	ASSERT_EQ(0, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	EXPECT_EQ(8, q.size);
	EXPECT_EQ(0xffffffffu, t.vram_bw);		/* not written */
	q.size = sizeof(t);
	q.vm_id = 12345;
	EXPECT_ERRNO(ENOENT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	q.vm_id = 0;
	q.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
	q.flags = 0;
	q.data = 8;
	EXPECT_ERRNO(EFAULT, ioctl(self->dev.fd, DRM_IOCTL_VGPU_QUERY, &q));
}

/*
 * A TOUCH job over a VRAM BO: the exec queue's clock and the VM's modeled
 * time move by the same amount, fdinfo shows the VM's, and the amount is
 * what the formula gives for the VM's counters, within the rounding of a
 * per-command formula applied to sums (each command rounds down once and
 * takes the larger of its VRAM and link times).
 */
TEST_F(time, job_against_model)
{
	const uint64_t size = 8 * MiB;
	struct snap a, b;
	uint64_t dt, cmds, vram, link, misses, reads, lo, hi, vns, lns;
	uint32_t h;

	if (vgpu_bo_create(&self->dev, size, VGPU_PLACE_VRAM, 0, &h))
		SKIP(return, "no 8 MiB VRAM BO on this device");
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, self->dev.va_start, size,
				 VGPU_MAP_RW));
	ASSERT_EQ(0, snap_take(&self->dev, &a));
	EXPECT_EQ(a.t.vm_modeled_ns, a.fdinfo_modeled);
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size));
	ASSERT_EQ(0, snap_take(&self->dev, &b));

	dt = D(&a, &b, t.vm_modeled_ns);
	EXPECT_EQ(dt, D(&a, &b, t.queue_ns[0]));
	EXPECT_EQ(0, D(&a, &b, t.vm_stall_ns));
	EXPECT_EQ(0, D(&a, &b, t.queue_stall_ns[0]));
	EXPECT_EQ(b.t.vm_modeled_ns, b.fdinfo_modeled);
	EXPECT_EQ(b.t.vm_stall_ns, b.fdinfo_stall);
	EXPECT_LE(dt, D(&a, &b, t.modeled_ns));

	cmds = DCTR(&a, &b, VGPU_CTR_COMMANDS);
	vram = DCTR(&a, &b, VGPU_CTR_VRAM_READ_BYTES) +
	       DCTR(&a, &b, VGPU_CTR_VRAM_WRITE_BYTES);
	link = DCTR(&a, &b, VGPU_CTR_SYS_READ_BYTES) +
	       DCTR(&a, &b, VGPU_CTR_SYS_WRITE_BYTES);
	misses = DCTR(&a, &b, VGPU_CTR_L1_MISS);
	reads = DCTR(&a, &b, VGPU_CTR_PT_READS);
	EXPECT_LE(size, vram);
	EXPECT_LE(1, cmds);
	vns = vram * 1000 / b.t.vram_bw;
	lns = link * 1000 / b.t.link_bw;
	lo = cmds * b.t.cmd_ns + (vns > lns ? vns : lns) - cmds +
	     misses * b.t.tlb_miss_ns + (link ? b.t.link_lat_ns : 0) +
	     reads * (b.t.walk_level_ns < b.t.link_lat_ns ?
		      b.t.walk_level_ns : b.t.link_lat_ns);
	hi = cmds * (b.t.cmd_ns + b.t.link_lat_ns) + vns + lns +
	     misses * b.t.tlb_miss_ns +
	     reads * (b.t.walk_level_ns > b.t.link_lat_ns ?
		      b.t.walk_level_ns : b.t.link_lat_ns);
	EXPECT_LE(lo, dt) TH_LOG("modeled %llu ns below the model's %llu",
				 (unsigned long long)dt, (unsigned long long)lo);
	EXPECT_GE(hi, dt) TH_LOG("modeled %llu ns above the model's %llu",
				 (unsigned long long)dt, (unsigned long long)hi);
	vgpu_bo_close(&self->dev, h);
}

/*
 * COMPUTE through EXEC, from a user's command stream: the exec queue's
 * clock, the VM's modeled time and fdinfo move by its nanoseconds plus
 * the command overheads of the job, and no byte of data moves.
 */
TEST_F(time, compute_charges_its_time)
{
	const uint32_t ns = 2500000;
	struct vgpu_cmd cmd;
	struct snap a, b;
	uint64_t dt, cmds, bytes;
	int i;

	if (!(self->dev.caps & VGPU_CAPS_COMPUTE))
		SKIP(return, "device without COMPUTE (caps %#x)", self->dev.caps);
	ASSERT_EQ(0, snap_take(&self->dev, &a));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_compute(&cmd, ns);
	vgpu_cmd_compute(&cmd, 0);
	ASSERT_EQ(0, vgpu_run(&self->dev, 0, &cmd, TIMEOUT_NS));
	vgpu_cmd_fini(&cmd);
	ASSERT_EQ(0, snap_take(&self->dev, &b));

	dt = D(&a, &b, t.vm_modeled_ns);
	cmds = DCTR(&a, &b, VGPU_CTR_COMMANDS);
	bytes = 0;
	for (i = VGPU_CTR_VRAM_READ_BYTES; i <= VGPU_CTR_SYS_WRITE_BYTES; i++)
		bytes += DCTR(&a, &b, i);
	EXPECT_EQ(dt, D(&a, &b, t.queue_ns[0]));
	EXPECT_EQ(b.t.vm_modeled_ns, b.fdinfo_modeled);
	EXPECT_LE(3, cmds);	/* the CALL and the two COMPUTEs at least */
	/* Each command's overhead, and a TLB miss and walk per page fetched. */
	EXPECT_LE(ns + cmds * b.t.cmd_ns, dt);
	EXPECT_GE(ns + cmds * (b.t.cmd_ns + b.t.tlb_miss_ns + 4 * b.t.link_lat_ns) +
		  bytes * 1000 / b.t.link_bw + b.t.link_lat_ns, dt);
	/* Only the command fetches moved bytes: no data. */
	EXPECT_GE(cmds * 64, bytes);
}

/*
 * A pageable BO faults in on first touch: the job stalls.  Each stall
 * costs the fault service plus the modeled work the device did meanwhile
 * (the kernel ring's migrations), so the VM's stall time is at least one
 * fault_ns and at most one per fault plus all of the kernel's work.
 */
TEST_F(time, stalls_against_model)
{
	const uint64_t size = 4 * MiB;
	struct snap a, b;
	uint64_t stall, faults, rounded;
	uint32_t h;

	ASSERT_EQ(0, vgpu_bo_create_pageable(&self->dev, size, &h, &rounded));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, h, 0, self->dev.va_start, rounded,
				 VGPU_MAP_RW));
	ASSERT_EQ(0, snap_take(&self->dev, &a));
	ASSERT_EQ(0, touch(&self->dev, self->dev.va_start, size));
	ASSERT_EQ(0, snap_take(&self->dev, &b));

	stall = D(&a, &b, t.vm_stall_ns);
	faults = DCTR(&a, &b, VGPU_CTR_FAULTS);
	ASSERT_LE(1, faults);
	EXPECT_EQ(stall, D(&a, &b, t.queue_stall_ns[0]));
	EXPECT_EQ(D(&a, &b, t.vm_modeled_ns), D(&a, &b, t.queue_ns[0]));
	EXPECT_LE(b.t.fault_ns, stall);
	EXPECT_GE(faults * b.t.fault_ns + D(&a, &b, t.kernel_ns), stall);
	EXPECT_LT(0, D(&a, &b, t.kernel_ns));		/* the migrations */
	EXPECT_LE(stall, D(&a, &b, t.stall_ns));
	EXPECT_EQ(b.t.vm_stall_ns, b.fdinfo_stall);
	EXPECT_EQ(b.t.vm_modeled_ns, b.fdinfo_modeled);
	vgpu_bo_close(&self->dev, h);
}

/*
 * Per exec queue, per client (FENCE_FLAG_CLOCK): each job is charged the
 * ring's modeled clock as it ended less the clock as the job before it
 * ended.  A job of COMPUTE(ns) costs ns plus the overheads of its CALL,
 * its COMPUTE and the kernel's FENCE, plus fetching its stream.
 */
#define JOB_SLACK_NS	100000ull

static int compute_job(struct vgpu_dev *dev, uint32_t queue, uint32_t ns,
		       bool bad, uint32_t *sync)
{
	struct vgpu_cmd cmd;
	int ret;

	if (sync && vgpu_syncobj_create(dev, sync))
		return -ENOMEM;
	vgpu_cmd_init(&cmd);
	vgpu_cmd_compute(&cmd, ns);
	if (bad) {
		vgpu_cmd_nop(&cmd, 1);
		cmd.dw[cmd.len - 1] = VGPU_CMD_HEADER(0x7f, 0, 1);
	}
	if (sync)
		ret = vgpu_submit(dev, queue, &cmd, NULL, 0, *sync);
	else
		ret = vgpu_run(dev, queue, &cmd, TIMEOUT_NS);
	vgpu_cmd_fini(&cmd);
	return ret;
}

/* @dt, one job's modeled time, against COMPUTE(@ns) and its overheads. */
#define EXPECT_JOB_TIME(dt, ns, t) do {					\
	EXPECT_LE((ns) + 3 * (uint64_t)(t)->cmd_ns, (dt))			\
		TH_LOG("job charged %llu ns for COMPUTE %llu",		\
		       (unsigned long long)(dt), (unsigned long long)(ns)); \
	EXPECT_GE((ns) + JOB_SLACK_NS, (dt))				\
		TH_LOG("job charged %llu ns for COMPUTE %llu",		\
		       (unsigned long long)(dt), (unsigned long long)(ns)); \
} while (0)

static bool has_fence_clock(struct vgpu_dev *dev)
{
	return (dev->caps & VGPU_CAPS_FENCE_CLOCK) &&
	       (dev->caps & VGPU_CAPS_COMPUTE);
}

/*
 * One client, two exec queues: each queue's figure is its own job's, the
 * ring's clock moved by as much, the figures add up to the VM's modeled
 * time, and fdinfo shows them.
 */
TEST_F(time, per_exec_queue)
{
	const uint32_t ns[2] = { 1000000, 3000000 };
	struct snap a, b;
	uint64_t sum = 0;
	char key[40];
	uint32_t i;

	if (!has_fence_clock(&self->dev))
		SKIP(return, "device without FENCE CLOCK (caps %#x)",
		     self->dev.caps);
	if (self->dev.exec_queues < 2)
		SKIP(return, "one exec queue");
	ASSERT_EQ(0, snap_take(&self->dev, &a));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, compute_job(&self->dev, i, ns[i], false, NULL));
	ASSERT_EQ(0, snap_take(&self->dev, &b));

	for (i = 0; i < b.t.num_queues; i++) {
		uint64_t dt = D(&a, &b, t.vm_queue_ns[i]);

		sum += dt;
		snprintf(key, sizeof(key), "drm-vgpu-modeled-time-q%u", i);
		EXPECT_EQ(b.t.vm_queue_ns[i], fdinfo_u64(self->dev.fd, key));
		if (i >= 2) {
			EXPECT_EQ(0, dt);
			continue;
		}
		EXPECT_JOB_TIME(dt, ns[i], &b.t);
		EXPECT_EQ(D(&a, &b, t.queue_ns[i]), dt);
	}
	EXPECT_EQ(D(&a, &b, t.vm_modeled_ns), sum);
}

/*
 * Two clients' jobs in flight on one ring at once: each is charged its
 * own job, whatever order the scheduler ran them in, and together they
 * are exactly what the ring ran.
 */
TEST_F(time, two_clients_one_queue)
{
	const uint32_t ns[2] = { 1000000, 3000000 };
	struct vgpu_dev *dev[2], other;
	struct snap a[2], b[2];
	uint32_t sync[2];
	int i;

	if (!has_fence_clock(&self->dev))
		SKIP(return, "device without FENCE CLOCK (caps %#x)",
		     self->dev.caps);
	ASSERT_EQ(0, vgpu_open(&other));
	dev[0] = &self->dev;
	dev[1] = &other;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, snap_take(dev[i], &a[i]));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, compute_job(dev[i], 0, ns[i], false, &sync[i]));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, vgpu_syncobj_wait(dev[i], sync[i], TIMEOUT_NS));
		EXPECT_EQ(1, vgpu_syncobj_status(dev[i], sync[i]));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, snap_take(dev[i], &b[i]));

	for (i = 0; i < 2; i++)
		EXPECT_JOB_TIME(D(&a[i], &b[i], t.vm_queue_ns[0]), ns[i],
				&b[i].t);
	EXPECT_EQ(D(&a[0], &b[1], t.queue_ns[0]),
		  D(&a[0], &b[0], t.vm_queue_ns[0]) +
		  D(&a[1], &b[1], t.vm_queue_ns[0]));
	vgpu_close(&other);
}

/*
 * A job the ring stops in (a bad command after COMPUTE) is charged its
 * time until then, not the job that runs after the recovery; the ring's
 * time is still split exactly.
 */
TEST_F(time, failed_job_keeps_its_time)
{
	const uint32_t bad_ns = 2000000, good_ns = 1000000;
	struct vgpu_dev other;
	struct snap a[2], b[2];
	uint32_t sync[2];

	if (!has_fence_clock(&self->dev))
		SKIP(return, "device without FENCE CLOCK (caps %#x)",
		     self->dev.caps);
	ASSERT_EQ(0, vgpu_open(&other));
	ASSERT_EQ(0, snap_take(&self->dev, &a[0]));
	ASSERT_EQ(0, snap_take(&other, &a[1]));
	ASSERT_EQ(0, compute_job(&self->dev, 0, bad_ns, true, &sync[0]));
	ASSERT_EQ(0, compute_job(&other, 0, good_ns, false, &sync[1]));
	ASSERT_EQ(0, vgpu_syncobj_wait(&self->dev, sync[0], TIMEOUT_NS));
	ASSERT_EQ(0, vgpu_syncobj_wait(&other, sync[1], TIMEOUT_NS));
	EXPECT_EQ(-EIO, vgpu_syncobj_status(&self->dev, sync[0]));
	EXPECT_EQ(1, vgpu_syncobj_status(&other, sync[1]));
	ASSERT_EQ(0, snap_take(&self->dev, &b[0]));
	ASSERT_EQ(0, snap_take(&other, &b[1]));

	EXPECT_JOB_TIME(D(&a[0], &b[0], t.vm_queue_ns[0]), bad_ns, &b[0].t);
	EXPECT_JOB_TIME(D(&a[1], &b[1], t.vm_queue_ns[0]), good_ns, &b[1].t);
	EXPECT_EQ(D(&a[0], &b[1], t.queue_ns[0]),
		  D(&a[0], &b[0], t.vm_queue_ns[0]) +
		  D(&a[1], &b[1], t.vm_queue_ns[0]));
	vgpu_close(&other);
}

TEST_HARNESS_MAIN
