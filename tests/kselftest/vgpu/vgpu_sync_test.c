// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * EXEC's synchronisation beyond binary syncobjs: DRM_CAP_SYNCOBJ_TIMELINE,
 * jobs ordered by timeline points only (in order, signalled out of order,
 * mixed with binary syncobjs), DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, sync_file
 * out-fences polled and fed back as in-fences to another queue, another
 * file and another process, SYNC_IOC_MERGE, the old (shorter, DRM_IOW)
 * struct, and every refused argument, with nothing signalled and no fd
 * left behind by a refused EXEC.
 *
 * A job that must wait is made to wait on the GPU: job A's stream WAITs
 * for a flag in user memory that the test sets later, so a job ordered
 * after A that ran early would be seen (its write is already there, or
 * copies A's result before A wrote it).
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_buf.h"

#define SEC 1000000000ll
#define MSEC 1000000ll
/* How long a job ordered after a blocked one is given to run early. */
#define EARLY_NS (200 * MSEC)

/* Slots of the result buffer, one 64-bit value each. */
enum { R_A, R_B, R_C, R_D };

FIXTURE(sync) {
	struct vgpu_dev dev;
	struct buf flags;	/* flag[i]: job i may go on */
	struct buf res;		/* what the jobs wrote */
	/*
	 * Different exec queues, so that only the syncs order their jobs:
	 * a job blocked in a WAIT holds its hardware queue, whatever file
	 * the next job on it comes from.  @qc is @qb with two queues only.
	 */
	uint32_t qa, qb, qc;
};

FIXTURE_SETUP(sync)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	if (self->dev.exec_queues < 2)
		SKIP(return, "needs two exec queues");
	self->qa = 0;
	self->qb = self->dev.exec_queues - 1;
	self->qc = self->dev.exec_queues > 2 ? 1 : self->qb;
	ASSERT_EQ(0, buf_create(&self->dev, &self->flags, 4096, VGPU_PLACE_SYSTEM,
				1ull << 32, VGPU_MAP_RW));
	ASSERT_EQ(0, buf_create(&self->dev, &self->res, 4096, VGPU_PLACE_SYSTEM,
				2ull << 32, VGPU_MAP_RW));
}

FIXTURE_TEARDOWN(sync)
{
	vgpu_close(&self->dev);
}

static volatile uint64_t *slot(struct buf *b, unsigned int i)
{
	return (volatile uint64_t *)b->cpu + i;
}

/* A stream that waits for flag @flag (if >= 0), then writes @value to @va. */
static void cmd_wait_write(struct vgpu_cmd *cmd, struct buf *flags, int flag,
			   uint64_t va, uint64_t value)
{
	uint32_t dw[2] = { (uint32_t)value, (uint32_t)(value >> 32) };

	vgpu_cmd_reset(cmd);
	if (flag >= 0)
		vgpu_cmd_wait(cmd, flags->va + 8 * flag, 1);
	vgpu_cmd_write(cmd, va, dw, 2);
}

/* No sync at all, as a starting point: in_fence_fd -1. */
static const struct vgpu_sync no_sync = { .in_fence_fd = -1 };

/* Submit "wait for @flag, write @value to slot @r" with @s. */
static int submit_write(struct vgpu_dev *dev, uint32_t queue, struct buf *flags,
			int flag, struct buf *res, unsigned int r,
			uint64_t value, const struct vgpu_sync *s)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	cmd_wait_write(&cmd, flags, flag, res->va + 8 * r, value);
	ret = vgpu_submit_sync(dev, queue, &cmd, s);
	vgpu_cmd_fini(&cmd);
	return ret;
}

/* Submit "copy slot @from to slot @to" with @s. */
static int submit_copy(struct vgpu_dev *dev, uint32_t queue, struct buf *res,
		       unsigned int from, unsigned int to,
		       const struct vgpu_sync *s)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, res->va + 8 * from, res->va + 8 * to, 8);
	ret = vgpu_submit_sync(dev, queue, &cmd, s);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static uint64_t jobs(struct vgpu_dev *dev, int completed)
{
	struct drm_vgpu_query_vm vm;

	if (vgpu_query_vm(dev, &vm))
		return ~0ull;
	return completed ? vm.jobs_completed : vm.jobs_submitted;
}

/* Open fds of this process. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* opendir's own */
}

/*
 * The lowest free fd: an fd the kernel reserved and never installed is
 * not in /proc/self/fd, but is not free either.
 */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Whether a syncobj holds a fence (signalled or not). */
static int has_fence(struct vgpu_dev *dev, uint32_t h)
{
	int fd;

	if (drmSyncobjExportSyncFile(dev->fd, h, &fd))
		return 0;
	close(fd);
	return 1;
}

TEST_F(sync, cap_syncobj_timeline)
{
	uint64_t v = 0;

	ASSERT_EQ(0, drmGetCap(self->dev.fd, DRM_CAP_SYNCOBJ, &v));
	EXPECT_EQ(1, v);
	v = 0;
	ASSERT_EQ(0, drmGetCap(self->dev.fd, DRM_CAP_SYNCOBJ_TIMELINE, &v));
	EXPECT_EQ(1, v);
}

/*
 * B waits only for point 2 of a timeline that A signals, on another
 * queue: B copies A's result, so it must not have run before A.
 */
TEST_F(sync, timeline_point_orders_jobs)
{
	struct vgpu_dev *dev = &self->dev;
	uint64_t two = 2, payload = ~0ull, done0 = jobs(dev, 1);
	uint32_t tl;
	struct vgpu_sync a = no_sync, b = no_sync;

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &tl));
	a.out_sync = tl;
	a.out_point = 2;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 0xa11ce, &a));
	b.in_syncs = &tl;
	b.in_points = &two;
	b.num_in_syncs = 1;
	b.out_sync = tl;
	b.out_point = 3;
	ASSERT_EQ(0, submit_copy(dev, self->qb, &self->res, R_A, R_B, &b));

	usleep(EARLY_NS / 1000);
	EXPECT_EQ(0, *slot(&self->res, R_A));
	EXPECT_EQ(0, *slot(&self->res, R_B));
	EXPECT_EQ(-ETIME, vgpu_timeline_wait(dev, tl, 2, 0));
	EXPECT_EQ(-ETIME, vgpu_timeline_wait(dev, tl, 3, 0));
	ASSERT_EQ(0, vgpu_timeline_query(dev, tl, &payload));
	EXPECT_EQ(0, payload);

	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(0, vgpu_timeline_wait(dev, tl, 3, 30 * SEC));
	EXPECT_EQ(0, vgpu_timeline_wait(dev, tl, 2, 0));
	EXPECT_EQ(0xa11ce, *slot(&self->res, R_A));
	EXPECT_EQ(0xa11ce, *slot(&self->res, R_B));
	ASSERT_EQ(0, vgpu_timeline_query(dev, tl, &payload));
	EXPECT_EQ(3, payload);
	EXPECT_EQ(done0 + 2, jobs(dev, 1));
	vgpu_syncobj_destroy(dev, tl);
}

/*
 * Point 2's job finishes before point 1's: the timeline does not reach
 * 2 until 1 has signalled too, and a job waiting for point 2 waits for
 * both.
 */
TEST_F(sync, timeline_point_signalled_out_of_order)
{
	struct vgpu_dev *dev = &self->dev;
	uint64_t two = 2, payload = ~0ull;
	struct vgpu_sync a = no_sync, b = no_sync, c = no_sync;
	uint32_t tl;
	int i;

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &tl));
	a.out_sync = tl;
	a.out_point = 1;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 0xaaaa, &a));
	b.out_sync = tl;
	b.out_point = 2;
	ASSERT_EQ(0, submit_write(dev, self->qb, &self->flags, -1, &self->res,
				  R_B, 0xbbbb, &b));
	c.in_syncs = &tl;
	c.in_points = &two;
	c.num_in_syncs = 1;
	ASSERT_EQ(0, submit_write(dev, self->qb, &self->flags, -1, &self->res,
				  R_C, 0xcccc, &c));

	/* B's job is done... */
	for (i = 0; i < 3000 && *slot(&self->res, R_B) != 0xbbbb; i++)
		usleep(10000);
	ASSERT_EQ(0xbbbb, *slot(&self->res, R_B));
	usleep(EARLY_NS / 1000);
	/* ...but its point is not reached, and C waits. */
	EXPECT_EQ(-ETIME, vgpu_timeline_wait(dev, tl, 2, 0));
	ASSERT_EQ(0, vgpu_timeline_query(dev, tl, &payload));
	EXPECT_EQ(0, payload);
	EXPECT_EQ(0, *slot(&self->res, R_C));
	EXPECT_EQ(0, *slot(&self->res, R_A));

	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(0, vgpu_timeline_wait(dev, tl, 2, 30 * SEC));
	ASSERT_EQ(0, vgpu_timeline_query(dev, tl, &payload));
	EXPECT_EQ(2, payload);
	EXPECT_EQ(0xaaaa, *slot(&self->res, R_A));
	/* C was pushed before the wait returned; give it the time to run. */
	for (i = 0; i < 3000 && *slot(&self->res, R_C) != 0xcccc; i++)
		usleep(10000);
	EXPECT_EQ(0xcccc, *slot(&self->res, R_C));
	vgpu_syncobj_destroy(dev, tl);
}

/* A binary syncobj (point 0) and a timeline point in one EXEC. */
TEST_F(sync, binary_and_timeline_in_one_exec)
{
	struct vgpu_dev *dev = &self->dev;
	struct vgpu_sync a = no_sync, b = no_sync, c = no_sync;
	uint32_t in[2], bin, tl, done;
	uint64_t points[2] = { 0, 7 };

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &bin));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &tl));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &done));
	a.out_sync = bin;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 1, &a));
	b.out_sync = tl;
	b.out_point = 7;
	ASSERT_EQ(0, submit_write(dev, self->qb, &self->flags, 1, &self->res,
				  R_B, 2, &b));
	in[0] = bin;
	in[1] = tl;
	c.in_syncs = in;
	c.in_points = points;
	c.num_in_syncs = 2;
	c.out_sync = done;
	ASSERT_EQ(0, submit_write(dev, self->qc, &self->flags, -1,
				  &self->res, R_C, 3, &c));

	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, bin, 30 * SEC));
	usleep(EARLY_NS / 1000);
	EXPECT_EQ(0, vgpu_syncobj_status(dev, done));
	EXPECT_EQ(0, *slot(&self->res, R_C));

	*slot(&self->flags, 1) = 1;
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, done, 30 * SEC));
	EXPECT_EQ(1, vgpu_syncobj_status(dev, done));
	EXPECT_EQ(3, *slot(&self->res, R_C));
	EXPECT_EQ(2, *slot(&self->res, R_B));
	vgpu_syncobj_destroy(dev, bin);
	vgpu_syncobj_destroy(dev, tl);
	vgpu_syncobj_destroy(dev, done);
}

/*
 * DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT by hand: waiting for a point not yet
 * submitted, for any of two points, for all of them.  EXEC refuses to
 * wait for a point not yet submitted (no wait-for-submit).
 */
TEST_F(sync, timeline_wait_ioctl)
{
	struct vgpu_dev *dev = &self->dev;
	struct vgpu_sync a = no_sync, b = no_sync;
	uint32_t h[2];
	uint64_t p[2] = { 5, 9 }, five = 5;
	struct drm_syncobj_timeline_wait w = {
		.handles = (uintptr_t)h, .points = (uintptr_t)p,
		.count_handles = 2,
	};

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &h[0]));
	h[1] = h[0];

	/* Nothing submitted: without WAIT_FOR_SUBMIT, -EINVAL; with, -ETIME. */
	w.timeout_nsec = 0;
	EXPECT_ERRNO(EINVAL, ioctl(dev->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	EXPECT_ERRNO(ETIME, ioctl(dev->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));
	b.in_syncs = h;
	b.in_points = &five;
	b.num_in_syncs = 1;
	EXPECT_EQ(-EINVAL, submit_write(dev, self->qb, &self->flags, -1,
					&self->res, R_B, 1, &b));

	/* Point 5, blocked: available, not signalled. */
	a.out_sync = h[0];
	a.out_point = 5;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 1, &a));
	w.count_handles = 1;
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
	EXPECT_EQ(0, ioctl(dev->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));
	w.flags = 0;
	EXPECT_ERRNO(ETIME, ioctl(dev->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));
	/* Now EXEC may wait for point 5, and for 3 (covered by 5), not 6. */
	ASSERT_EQ(0, submit_write(dev, self->qb, &self->flags, -1, &self->res,
				  R_B, 0xb, &b));
	five = 3;
	ASSERT_EQ(0, submit_write(dev, self->qb, &self->flags, -1, &self->res,
				  R_C, 0xc, &b));
	five = 6;
	EXPECT_EQ(-EINVAL, submit_write(dev, self->qb, &self->flags, -1,
					&self->res, R_D, 0xd, &b));

	/* Any of points 5 and 9, 9 not submitted: waits for submission. */
	w.count_handles = 2;
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	w.timeout_nsec = 0;
	EXPECT_ERRNO(ETIME, ioctl(dev->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));

	*slot(&self->flags, 0) = 1;
	w.count_handles = 1;
	w.timeout_nsec = INT64_MAX;
	w.flags = 0;
	ASSERT_EQ(0, ioctl(dev->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w));
	EXPECT_EQ(0, w.first_signaled);
	ASSERT_EQ(0, vgpu_timeline_wait(dev, h[0], 5, 30 * SEC));
	EXPECT_EQ(1, *slot(&self->res, R_A));
	/* Both EXECs that waited for point 5 (or 3) ran; the refused did not. */
	usleep(EARLY_NS / 1000);
	EXPECT_EQ(0xb, *slot(&self->res, R_B));
	EXPECT_EQ(0xc, *slot(&self->res, R_C));
	EXPECT_EQ(0, *slot(&self->res, R_D));
	vgpu_syncobj_destroy(dev, h[0]);
}

/* A sync_file of the job's fence: close-on-exec, poll()s when the job is done. */
TEST_F(sync, out_fence_fd_polls)
{
	struct vgpu_dev *dev = &self->dev;
	struct vgpu_sync a = no_sync;
	uint32_t bin;
	int fd = -1;

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &bin));
	a.out_sync = bin;
	a.out_fence_fd = &fd;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 0xf00d, &a));
	ASSERT_LE(0, fd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(-ETIME, vgpu_sync_file_wait(fd, 0));
	EXPECT_EQ(-ETIME, vgpu_sync_file_wait(fd, EARLY_NS));
	EXPECT_EQ(0, vgpu_sync_file_status(fd));
	EXPECT_EQ(0, vgpu_syncobj_status(dev, bin));

	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(0, vgpu_sync_file_wait(fd, 30 * SEC));
	EXPECT_EQ(1, vgpu_sync_file_status(fd));
	EXPECT_EQ(1, vgpu_syncobj_status(dev, bin));
	EXPECT_EQ(0xf00d, *slot(&self->res, R_A));
	close(fd);
	vgpu_syncobj_destroy(dev, bin);
}

/*
 * The out sync_file fed back as in_fence_fd: to a job on another queue of
 * the same file and to a job of another file of the same process.
 */
TEST_F(sync, in_fence_fd_orders_jobs)
{
	struct vgpu_dev *dev = &self->dev, dev2;
	struct vgpu_sync a = no_sync, b = no_sync, c = no_sync;
	struct buf res2;
	int fa = -1, fb = -1, fc = -1;

	ASSERT_EQ(0, vgpu_open(&dev2));
	ASSERT_EQ(0, buf_create(&dev2, &res2, 4096, VGPU_PLACE_SYSTEM,
				2ull << 32, VGPU_MAP_RW));
	a.out_fence_fd = &fa;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 0x5eed, &a));
	b.in_fence_fd = fa;
	b.out_fence_fd = &fb;
	ASSERT_EQ(0, submit_copy(dev, self->qb, &self->res, R_A, R_B, &b));
	c.in_fence_fd = fa;
	c.out_fence_fd = &fc;
	ASSERT_EQ(0, submit_write(&dev2, self->qc, &self->flags, -1, &res2, R_C,
				  0xc0de, &c));
	/* The in fd stays the caller's. */
	EXPECT_LE(0, fcntl(fa, F_GETFD));

	EXPECT_EQ(-ETIME, vgpu_sync_file_wait(fb, EARLY_NS));
	EXPECT_EQ(-ETIME, vgpu_sync_file_wait(fc, 0));
	EXPECT_EQ(0, *slot(&self->res, R_B));
	EXPECT_EQ(0, *slot(&res2, R_C));

	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(0, vgpu_sync_file_wait(fb, 30 * SEC));
	ASSERT_EQ(0, vgpu_sync_file_wait(fc, 30 * SEC));
	EXPECT_EQ(1, vgpu_sync_file_status(fb));
	EXPECT_EQ(1, vgpu_sync_file_status(fc));
	EXPECT_EQ(0x5eed, *slot(&self->res, R_B));
	EXPECT_EQ(0xc0de, *slot(&res2, R_C));
	close(fa);
	close(fb);
	close(fc);
	vgpu_close(&dev2);
}

/* The sync_file crosses fork(): another process's job waits for ours. */
TEST_F(sync, in_fence_fd_cross_process)
{
	struct vgpu_dev *dev = &self->dev;
	struct vgpu_sync a = no_sync;
	int fa = -1, ready[2], status;
	pid_t pid;
	char byte;

	a.out_fence_fd = &fa;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 0xfeed, &a));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct vgpu_sync b = { .in_fence_fd = fa };
		struct vgpu_dev own;
		struct buf r;
		int fb = -1, ret = 0;

		b.out_fence_fd = &fb;
		if (vgpu_open(&own) ||
		    buf_create(&own, &r, 4096, VGPU_PLACE_SYSTEM, 2ull << 32,
			       VGPU_MAP_RW))
			_exit(10);
		if (submit_write(&own, self->qb, &r, -1, &r, R_B, 0xbeef, &b))
			_exit(11);
		close(fa);	/* the job holds the fence, not the fd */
		usleep(EARLY_NS / 1000);
		if (*slot(&r, R_B) || vgpu_sync_file_wait(fb, 0) != -ETIME)
			ret = 12;
		if (write(ready[1], "", 1) != 1)
			_exit(13);
		if (!ret && vgpu_sync_file_wait(fb, 30 * SEC))
			ret = 14;
		if (!ret && *slot(&r, R_B) != 0xbeef)
			ret = 15;
		vgpu_close(&own);
		_exit(ret);
	}
	ASSERT_EQ(1, read(ready[0], &byte, 1));
	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, vgpu_sync_file_wait(fa, 30 * SEC));
	EXPECT_EQ(0xfeed, *slot(&self->res, R_A));
	close(fa);
	close(ready[0]);
	close(ready[1]);
}

/* SYNC_IOC_MERGE of two jobs' sync_files: the next job waits for both. */
TEST_F(sync, merged_sync_file)
{
	struct vgpu_dev *dev = &self->dev;
	struct vgpu_sync a1 = no_sync, a2 = no_sync, b = no_sync;
	int f1 = -1, f2 = -1, fm = -1, fb = -1;

	a1.out_fence_fd = &f1;
	a2.out_fence_fd = &f2;
	ASSERT_EQ(0, submit_write(dev, self->qa, &self->flags, 0, &self->res,
				  R_A, 1, &a1));
	ASSERT_EQ(0, submit_write(dev, self->qb, &self->flags, 1, &self->res,
				  R_B, 2, &a2));
	ASSERT_EQ(0, vgpu_sync_file_merge(f1, f2, &fm));
	b.in_fence_fd = fm;
	b.out_fence_fd = &fb;
	ASSERT_EQ(0, submit_write(dev, self->qc, &self->flags, -1,
				  &self->res, R_C, 3, &b));

	*slot(&self->flags, 0) = 1;
	ASSERT_EQ(0, vgpu_sync_file_wait(f1, 30 * SEC));
	EXPECT_EQ(-ETIME, vgpu_sync_file_wait(fm, 0));
	EXPECT_EQ(-ETIME, vgpu_sync_file_wait(fb, EARLY_NS));
	EXPECT_EQ(0, *slot(&self->res, R_C));

	*slot(&self->flags, 1) = 1;
	ASSERT_EQ(0, vgpu_sync_file_wait(fb, 30 * SEC));
	EXPECT_EQ(1, vgpu_sync_file_status(fm));
	EXPECT_EQ(3, *slot(&self->res, R_C));
	close(f1);
	close(f2);
	close(fm);
	close(fb);
}

/*
 * A program built against the header of before the sync fields passes a
 * 64-byte struct with the DRM_IOW request code: it still works (and gets
 * the new fields as zeros).
 */
TEST_F(sync, old_struct_still_works)
{
	struct vgpu_dev *dev = &self->dev;
	const unsigned long old_req =
		DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_EXEC, char[64]);
	struct vgpu_cmd cmd;
	struct drm_vgpu_exec ex;
	uint32_t bin;

	ASSERT_EQ(88, sizeof(struct drm_vgpu_exec));
	ASSERT_EQ(64, offsetof(struct drm_vgpu_exec, in_points));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &bin));
	vgpu_cmd_init(&cmd);
	cmd_wait_write(&cmd, &self->flags, -1, self->res.va, 0x01d);
	vgpu_exec_inline(&ex, self->qa, &cmd);
	ex.out_sync = bin;
	/* Garbage past the old end must not be read. */
	ex.in_fence_fd = 0x7eadbeef;
	ex.out_point = ~0ull;
	ASSERT_EQ(0, ioctl(dev->fd, old_req, &ex));
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, bin, 30 * SEC));
	EXPECT_EQ(1, vgpu_syncobj_status(dev, bin));
	EXPECT_EQ(0x01d, *slot(&self->res, R_A));
	vgpu_cmd_fini(&cmd);
	vgpu_syncobj_destroy(dev, bin);
}

/* ------------------------------------------------------------- errnos --- */

/*
 * Each refused EXEC: its errno, no job submitted, the out syncobjs
 * untouched (the binary one still empty, the timeline still without
 * point 1), no fd left.
 */
static void expect_refused(struct __test_metadata *_metadata,
			   struct vgpu_dev *dev, struct drm_vgpu_exec *ex,
			   int err, uint32_t bin, uint32_t tl)
{
	uint64_t sub = jobs(dev, 0);
	int fds = open_fds(), lowest = lowest_free_fd();

	errno = 0;
	EXPECT_EQ(-1, ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC, ex));
	EXPECT_EQ(err, errno);
	EXPECT_EQ(sub, jobs(dev, 0));
	EXPECT_EQ(fds, open_fds());
	EXPECT_EQ(lowest, lowest_free_fd());
	EXPECT_FALSE(has_fence(dev, bin));
	EXPECT_EQ(-ETIME, vgpu_timeline_wait(dev, tl, 1, 0));
}

TEST_F(sync, bad_args)
{
	struct vgpu_dev *dev = &self->dev;
	uint32_t nop = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, 1);
	uint32_t bin, tl, other, empty, in[2], bad_sync = 0x7ffff;
	uint64_t pts[2] = { 0, 0 };
	struct drm_vgpu_exec ok = {
		.cmds = (uintptr_t)&nop, .cmds_size = 4,
	}, ex;
	int devnull, closed;

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &bin));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &tl));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &other));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &empty));
	/* @other: a binary syncobj with a fence. */
	ex = ok;
	ex.out_sync = other;
	ASSERT_EQ(0, ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC, &ex));
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, other, 30 * SEC));
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, devnull);
	closed = dup(devnull);
	ASSERT_LE(0, closed);
	close(closed);

	/* Unknown flag. */
	ex = ok; ex.flags = 1u << 3; ex.out_sync = bin;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex = ok; ex.flags = ~DRM_VGPU_EXEC_FLAGS_ALL; ex.out_sync = bin;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	/* Fence fds without their flags. */
	ex = ok; ex.in_fence_fd = devnull; ex.out_sync = bin;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex = ok; ex.out_fence_fd = -1; ex.out_sync = bin;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	/* A point without a syncobj to signal. */
	ex = ok; ex.out_point = 1;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	/* An unknown syncobj for the point. */
	ex = ok; ex.out_sync = bad_sync; ex.out_point = 1;
	expect_refused(_metadata, dev, &ex, ENOENT, bin, tl);
	/* In fds that are not sync_files: -1, closed, not a sync_file, the DRM fd. */
	ex = ok; ex.flags = DRM_VGPU_EXEC_IN_FENCE_FD; ex.in_fence_fd = -1;
	ex.out_sync = tl; ex.out_point = 1;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex.in_fence_fd = closed;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex.in_fence_fd = devnull;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex.in_fence_fd = dev->fd;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex.in_fence_fd = INT32_MAX;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);

	/* In points: unreadable, a point on a binary syncobj, not submitted. */
	in[0] = other;
	in[1] = tl;
	ex = ok; ex.in_syncs = (uintptr_t)in; ex.num_in_syncs = 2;
	ex.in_points = 16; ex.out_sync = bin;
	ex.flags = DRM_VGPU_EXEC_OUT_FENCE_FD;
	expect_refused(_metadata, dev, &ex, EFAULT, bin, tl);
	ex.in_points = (uintptr_t)pts;
	pts[0] = 1;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	pts[0] = 0;
	pts[1] = 1;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	/* ...and an empty syncobj, an unknown one, too many, an unreadable array. */
	pts[1] = 0;
	in[1] = empty;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	in[1] = bad_sync;
	expect_refused(_metadata, dev, &ex, ENOENT, bin, tl);
	ex.num_in_syncs = DRM_VGPU_EXEC_MAX_SYNCS + 1;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex.num_in_syncs = ~0u;
	expect_refused(_metadata, dev, &ex, EINVAL, bin, tl);
	ex.num_in_syncs = 2;
	ex.in_syncs = 16;
	expect_refused(_metadata, dev, &ex, EFAULT, bin, tl);

	/* Failures after the out fd is reserved give it back. */
	ex = ok; ex.flags = DRM_VGPU_EXEC_OUT_FENCE_FD; ex.cmds = 16;
	ex.out_sync = tl; ex.out_point = 1;
	expect_refused(_metadata, dev, &ex, EFAULT, bin, tl);
	ex = ok; ex.flags = DRM_VGPU_EXEC_OUT_FENCE_FD | DRM_VGPU_EXEC_CMDS_BO;
	ex.cmds = 0; ex.cmds_handle = 0x7fffff; ex.out_sync = bin;
	expect_refused(_metadata, dev, &ex, ENOENT, bin, tl);
	/* A BO the VM does not map. */
	{
		uint32_t bo;

		ASSERT_EQ(0, vgpu_bo_create(dev, 4096, VGPU_PLACE_SYSTEM, 0, &bo));
		ex.cmds_handle = bo;
		ex.cmds_size = 4;
		expect_refused(_metadata, dev, &ex, ENXIO, bin, tl);
		vgpu_bo_close(dev, bo);
	}

	/* And what was refused is still accepted once right. */
	ex = ok; ex.flags = DRM_VGPU_EXEC_OUT_FENCE_FD;
	ex.out_sync = tl; ex.out_point = 1; ex.out_fence_fd = 12345;
	ASSERT_EQ(0, ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC, &ex));
	EXPECT_NE(12345, ex.out_fence_fd);
	EXPECT_EQ(0, vgpu_sync_file_wait(ex.out_fence_fd, 30 * SEC));
	EXPECT_EQ(0, vgpu_timeline_wait(dev, tl, 1, 30 * SEC));
	close(ex.out_fence_fd);

	close(devnull);
	vgpu_syncobj_destroy(dev, bin);
	vgpu_syncobj_destroy(dev, tl);
	vgpu_syncobj_destroy(dev, other);
	vgpu_syncobj_destroy(dev, empty);
}

/* No fd free for the out sync_file: -EMFILE, nothing signalled. */
TEST_F(sync, out_fence_fd_emfile)
{
	struct vgpu_dev *dev = &self->dev;
	uint32_t nop = VGPU_CMD_HEADER(VGPU_OP_NOP, 0, 1), bin;
	int status;
	pid_t pid;

	ASSERT_EQ(0, vgpu_syncobj_create(dev, &bin));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct drm_vgpu_exec ex = {
			.cmds = (uintptr_t)&nop, .cmds_size = 4,
			.flags = DRM_VGPU_EXEC_OUT_FENCE_FD, .out_sync = bin,
		};
		struct rlimit rl;
		int lowest = lowest_free_fd();

		if (lowest < 0)
			_exit(10);
		/* Every fd below the lowest free one is in use. */
		rl.rlim_cur = rl.rlim_max = lowest;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(11);
		if (ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC, &ex) != -1)
			_exit(12);
		_exit(errno == EMFILE ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_FALSE(has_fence(dev, bin));
	vgpu_syncobj_destroy(dev, bin);
}

TEST_HARNESS_MAIN
