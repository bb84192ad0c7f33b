// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * More VMs per file (VM_CREATE, VM_DESTROY) and created exec queues with a
 * priority (EXEC_QUEUE_CREATE, EXEC_QUEUE_DESTROY): ids and limits, every
 * ioctl on a destroyed or unknown id, isolation of two VMs of one file
 * (same VA, different BOs; a fault bans only its VM), destroy with jobs in
 * flight, more VMs than hardware contexts, fdinfo sums over the VMs,
 * priority ordering observed in memory, every refused argument.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"

#define MiB (1ull << 20)
#define SEC 1000000000ll
#define VA (1ull << 32)

/* A BO in system memory, mapped at @va in VM @vm and for the CPU. */
struct vbuf {
	uint32_t bo;
	uint64_t va;
	uint64_t size;
	void *cpu;
};

static int vbuf_create(struct vgpu_dev *dev, uint32_t vm, struct vbuf *b,
		       uint64_t size, uint64_t va)
{
	int ret = vgpu_bo_create(dev, size, VGPU_PLACE_SYSTEM, 0, &b->bo);

	if (ret)
		return ret;
	b->va = va;
	b->size = size;
	ret = vgpu_vm_map_in(dev, vm, b->bo, 0, va, size, VGPU_MAP_RW);
	return ret ? ret : vgpu_bo_map(dev, b->bo, size, &b->cpu);
}

/* FILL @va with @value in VM @vm on @queue and wait. */
static int run_fill(struct vgpu_dev *dev, uint32_t vm, uint32_t queue,
		    uint64_t va, uint32_t value)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, va, 4096, value);
	ret = vgpu_run_in(dev, vm, queue, &cmd, 30 * SEC);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int vm_destroy_raw(int fd, uint32_t id, uint32_t pad)
{
	struct drm_vgpu_vm_destroy vd = { .vm_id = id, .pad = pad };

	return ioctl(fd, DRM_IOCTL_VGPU_VM_DESTROY, &vd);
}

static uint64_t vm_state(struct vgpu_dev *dev, uint32_t vm)
{
	struct drm_vgpu_query_vm q;

	if (vgpu_query_vm_in(dev, vm, &q))
		return ~0ull;
	return q.state;
}

FIXTURE(mvm) {
	struct vgpu_dev dev;
};

FIXTURE_SETUP(mvm)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
	if (!self->dev.exec_queues)
		SKIP(return, "no exec queues");
}

FIXTURE_TEARDOWN(mvm)
{
	vgpu_close(&self->dev);
}

/* ------------------------------------------------------- ids, limits --- */

TEST_F(mvm, create_destroy_and_dead_ids)
{
	struct vgpu_dev *dev = &self->dev;
	struct drm_vgpu_vm_create vc = { 0 };
	struct drm_vgpu_query_paging pg;
	struct drm_vgpu_query_vm q;
	struct drm_vgpu_prefetch pf = {
		.va = VA, .range = 4096, .placement = VGPU_PLACE_SYSTEM,
	};
	struct drm_vgpu_advise ad = {
		.va = VA, .range = 4096, .advice = DRM_VGPU_ADVICE_READ_MOSTLY,
	};
	struct vgpu_cmd cmd;
	struct vbuf b;
	uint32_t id;

	ASSERT_EQ(0, vgpu_vm_create(dev, &id));
	EXPECT_LE(1, id);
	EXPECT_GE(DRM_VGPU_MAX_VMS, id);
	ASSERT_EQ(0, vgpu_query_vm_in(dev, id, &q));
	EXPECT_EQ(0, q.mappings);
	EXPECT_EQ(0, q.pt_pages);	/* nothing allocated before a mapping */
	ASSERT_EQ(0, vbuf_create(dev, id, &b, 4096, VA));
	ASSERT_EQ(0, run_fill(dev, id, 0, VA, 0x5a5a5a5a));
	EXPECT_EQ(0x5a5a5a5a, ((uint32_t *)b.cpu)[0]);
	pf.vm_id = ad.vm_id = id;
	EXPECT_EQ(0, ioctl(dev->fd, DRM_IOCTL_VGPU_PREFETCH, &pf));
	EXPECT_EQ(0, ioctl(dev->fd, DRM_IOCTL_VGPU_ADVISE, &ad));
	/* The range is mapped in VM id only, not in the default VM. */
	pf.vm_id = ad.vm_id = 0;
	EXPECT_ERRNO(ENOENT, ioctl(dev->fd, DRM_IOCTL_VGPU_PREFETCH, &pf));
	EXPECT_ERRNO(ENOENT, ioctl(dev->fd, DRM_IOCTL_VGPU_ADVISE, &ad));

	EXPECT_EQ(0, vgpu_vm_destroy(dev, id));
	/* Every ioctl naming the dead id: -ENOENT. */
	EXPECT_EQ(-ENOENT, vgpu_vm_destroy(dev, id));
	EXPECT_EQ(-ENOENT, vgpu_query_vm_in(dev, id, &q));
	EXPECT_EQ(-ENOENT, vgpu_vm_unmap_in(dev, id, VA, 4096));
	EXPECT_EQ(-ENOENT, vgpu_vm_map_in(dev, id, b.bo, 0, VA, 4096, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, VA, 4096, 1);
	EXPECT_EQ(-ENOENT, vgpu_submit_in(dev, id, 0, &cmd, NULL, 0, 0));
	vgpu_cmd_fini(&cmd);
	pf.vm_id = ad.vm_id = id;
	EXPECT_ERRNO(ENOENT, ioctl(dev->fd, DRM_IOCTL_VGPU_PREFETCH, &pf));
	EXPECT_ERRNO(ENOENT, ioctl(dev->fd, DRM_IOCTL_VGPU_ADVISE, &ad));
	EXPECT_EQ(-ENOENT, vgpu_query_in(dev, id, DRM_VGPU_QUERY_PAGING,
					 &pg, sizeof(pg)));
	EXPECT_EQ(0, vgpu_query_in(dev, 0, DRM_VGPU_QUERY_PAGING, &pg,
				   sizeof(pg)));
	/* The BO lives on: its handle is the file's, not the VM's. */
	EXPECT_EQ(0x5a5a5a5a, ((uint32_t *)b.cpu)[0]);

	/* The default VM cannot go; unknown ids; hostile arguments. */
	EXPECT_ERRNO(EINVAL, vm_destroy_raw(dev->fd, 0, 0));
	EXPECT_ERRNO(ENOENT, vm_destroy_raw(dev->fd, DRM_VGPU_MAX_VMS, 0));
	EXPECT_ERRNO(ENOENT, vm_destroy_raw(dev->fd, DRM_VGPU_MAX_VMS + 1, 0));
	EXPECT_ERRNO(ENOENT, vm_destroy_raw(dev->fd, ~0u, 0));
	ASSERT_EQ(0, vgpu_vm_create(dev, &id));
	EXPECT_ERRNO(EINVAL, vm_destroy_raw(dev->fd, id, 1));
	EXPECT_EQ(0, vm_destroy_raw(dev->fd, id, 0));
	vc.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(dev->fd, DRM_IOCTL_VGPU_VM_CREATE, &vc));
	vc.flags = 0;
	vc.reserved = 1;
	EXPECT_ERRNO(EINVAL, ioctl(dev->fd, DRM_IOCTL_VGPU_VM_CREATE, &vc));
	EXPECT_ERRNO(EFAULT, ioctl(dev->fd, DRM_IOCTL_VGPU_VM_CREATE, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(dev->fd, DRM_IOCTL_VGPU_VM_DESTROY, NULL));
	/* The default VM still works. */
	EXPECT_EQ(0, vgpu_vm_map(dev, b.bo, 0, VA, 4096, VGPU_MAP_RW));
	EXPECT_EQ(0, run_fill(dev, 0, 0, VA, 7));
	EXPECT_EQ(7, ((uint32_t *)b.cpu)[0]);
}

TEST_F(mvm, create_until_the_limit)
{
	struct vgpu_dev *dev = &self->dev;
	uint32_t ids[DRM_VGPU_MAX_VMS], id;
	uint64_t seen[(DRM_VGPU_MAX_VMS + 64) / 64] = { 0 };
	struct vbuf b;
	int i;

	for (i = 0; i < DRM_VGPU_MAX_VMS; i++) {
		ASSERT_EQ(0, vgpu_vm_create(dev, &ids[i]));
		ASSERT_LE(1, ids[i]);
		ASSERT_GE(DRM_VGPU_MAX_VMS, ids[i]);
		EXPECT_FALSE(seen[ids[i] / 64] & (1ull << (ids[i] % 64)));
		seen[ids[i] / 64] |= 1ull << (ids[i] % 64);
	}
	EXPECT_EQ(-EBUSY, vgpu_vm_create(dev, &id));
	EXPECT_EQ(DRM_VGPU_MAX_VMS + 1, fdinfo_u64(dev->fd, "drm-vgpu-vms"));
	/* A destroyed id is free again. */
	ASSERT_EQ(0, vgpu_vm_destroy(dev, ids[7]));
	ASSERT_EQ(0, vgpu_vm_create(dev, &id));
	EXPECT_EQ(ids[7], id);
	EXPECT_EQ(-EBUSY, vgpu_vm_create(dev, &id));
	/* A full file works: the last VM runs a job. */
	ASSERT_EQ(0, vbuf_create(dev, ids[DRM_VGPU_MAX_VMS - 1], &b, 4096, VA));
	EXPECT_EQ(0, run_fill(dev, ids[DRM_VGPU_MAX_VMS - 1], 0, VA, 3));
	EXPECT_EQ(3, ((uint32_t *)b.cpu)[0]);
	/* close() takes every VM down (the kernel log stays clean). */
}

/*
 * More VMs in one file than the device lends contexts (module parameter
 * max_contexts = 2): they take turns, every job completes.
 */
TEST_F(mvm, more_vms_than_contexts)
{
	struct vgpu_dev *dev = &self->dev;
	char old[32];
	uint32_t ids[6];
	struct vbuf b[6];
	uint64_t switches = 0;
	int i, round, ok = 0;

	if (vgpu_test_param("max_contexts", "2", old, sizeof(old)))
		SKIP(return, "max_contexts not writable");
	ids[0] = 0;
	for (i = 1; i < 6; i++)
		ASSERT_EQ(0, vgpu_vm_create(dev, &ids[i]));
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, vbuf_create(dev, ids[i], &b[i], 4096, VA));
	for (round = 0; round < 2; round++)
		for (i = 0; i < 6; i++)
			ok += !run_fill(dev, ids[i], i % dev->exec_queues, VA,
					0x100 * round + i) &&
			      ((uint32_t *)b[i].cpu)[0] == 0x100u * round + i;
	for (i = 0; i < 6; i++) {
		struct drm_vgpu_query_vm q;

		ASSERT_EQ(0, vgpu_query_vm_in(dev, ids[i], &q));
		switches += q.context_switches;
		EXPECT_EQ(2, q.jobs_completed);
	}
	vgpu_test_param("max_contexts", old, NULL, 0);
	EXPECT_EQ(12, ok);
	/* Six VMs on two contexts, in turn: every job took one again. */
	EXPECT_LE(12, switches);
	EXPECT_EQ(12, fdinfo_u64(dev->fd, "drm-vgpu-jobs-completed"));
}

/* ---------------------------------------------------------- isolation --- */

TEST_F(mvm, two_vms_isolated)
{
	struct vgpu_dev *dev = &self->dev;
	struct drm_vgpu_query_vm q0, q1;
	struct vbuf a, b, only0;
	struct vgpu_cmd cmd;
	uint32_t vm;

	ASSERT_EQ(0, vgpu_vm_create(dev, &vm));
	/* Same VA, different BOs. */
	ASSERT_EQ(0, vbuf_create(dev, 0, &a, 4096, VA));
	ASSERT_EQ(0, vbuf_create(dev, vm, &b, 4096, VA));
	ASSERT_EQ(0, vbuf_create(dev, 0, &only0, 4096, VA + 2 * MiB));
	memset(only0.cpu, 0xab, 4096);
	ASSERT_EQ(0, run_fill(dev, 0, 0, VA, 0x11111111));
	ASSERT_EQ(0, run_fill(dev, vm, 0, VA, 0x22222222));
	EXPECT_EQ(0x11111111, ((uint32_t *)a.cpu)[0]);
	EXPECT_EQ(0x22222222, ((uint32_t *)b.cpu)[0]);
	EXPECT_EQ(0x11111111, ((uint32_t *)a.cpu)[1023]);

	/* The new VM cannot reach what only the default VM maps. */
	EXPECT_EQ(-EFAULT, run_fill(dev, vm, 0, VA + 2 * MiB, 0));
	EXPECT_EQ(0xabababab, ((uint32_t *)only0.cpu)[0]);
	ASSERT_EQ(0, vgpu_query_vm_in(dev, vm, &q1));
	ASSERT_EQ(0, vgpu_query_vm_in(dev, 0, &q0));
	EXPECT_TRUE(q1.state & DRM_VGPU_VM_STATE_BANNED);
	EXPECT_LE(1, q1.gpu_faults);
	EXPECT_EQ(1, q1.jobs_failed);
	EXPECT_FALSE(q0.state & DRM_VGPU_VM_STATE_BANNED);
	EXPECT_EQ(0, q0.gpu_faults);
	EXPECT_EQ(0, q0.jobs_failed);
	EXPECT_EQ(1, fdinfo_u64(dev->fd, "drm-vgpu-vms-banned"));
	EXPECT_EQ(2, fdinfo_u64(dev->fd, "drm-vgpu-vms"));
	EXPECT_EQ(1, fdinfo_u64(dev->fd, "drm-vgpu-jobs-failed"));

	/* Only the faulting VM is banned. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, VA, 4096, 1);
	EXPECT_EQ(-ECANCELED, vgpu_submit_in(dev, vm, 0, &cmd, NULL, 0, 0));
	vgpu_cmd_fini(&cmd);
	EXPECT_EQ(-ECANCELED, vgpu_vm_unmap_in(dev, vm, VA, 4096));
	EXPECT_EQ(0, run_fill(dev, 0, 0, VA + 2 * MiB, 0x33333333));
	EXPECT_EQ(0x33333333, ((uint32_t *)only0.cpu)[0]);
	EXPECT_EQ(0x22222222, ((uint32_t *)b.cpu)[0]);

	/* A banned VM is destroyed like any other; the file carries on. */
	EXPECT_EQ(0, vgpu_vm_destroy(dev, vm));
	EXPECT_EQ(0, fdinfo_u64(dev->fd, "drm-vgpu-vms-banned"));
	EXPECT_EQ(1, fdinfo_u64(dev->fd, "drm-vgpu-jobs-failed"));
	ASSERT_EQ(0, vgpu_vm_create(dev, &vm));
	EXPECT_EQ(0, vm_state(dev, vm));
}

/* --------------------------------------------- destroy with jobs in flight */

/* A job in VM @vm that sets flag @started, then waits for flag 0. */
static int submit_blocker(struct vgpu_dev *dev, uint32_t vm, uint32_t queue,
			  struct vbuf *flags, int started, uint32_t sync)
{
	volatile uint64_t *flag = flags->cpu;
	struct vgpu_cmd cmd;
	uint32_t one[2] = { 1, 0 };
	int i, ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_write(&cmd, flags->va + 8 * started, one, 2);
	vgpu_cmd_wait(&cmd, flags->va, 1);
	ret = vgpu_submit_in(dev, vm, queue, &cmd, NULL, 0, sync);
	vgpu_cmd_fini(&cmd);
	for (i = 0; !ret && i < 3000 && !flag[started]; i++)
		usleep(10000);
	return ret ? ret : flag[started] ? 0 : -ETIMEDOUT;
}

/* A child that sets flag 0 of @flags after @us microseconds. */
static pid_t release_later(struct vbuf *flags, unsigned int us)
{
	pid_t pid = fork();

	if (pid == 0) {
		usleep(us);
		((volatile uint64_t *)flags->cpu)[0] = 1;
		_exit(0);
	}
	return pid;
}

/*
 * VM_DESTROY of @vm while a child releases flag 0 after @release_us;
 * the seconds it took, or -1 if it failed.  The child goes in @pid.
 */
static double destroy_timed(struct vgpu_dev *dev, uint32_t vm,
			    struct vbuf *flags, unsigned int release_us,
			    pid_t *pid)
{
	struct timespec t0, t1;
	int ret;

	*pid = release_later(flags, release_us);
	if (*pid < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = vgpu_vm_destroy(dev, vm);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret)
		return -1;
	return t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

/* Page-table pages of the device once they are back to @want, or not. */
static uint64_t pt_pages_settle(struct vgpu_dev *dev, uint64_t want)
{
	struct drm_vgpu_query_memory m;
	int i;

	for (i = 0; i < 500; i++) {
		if (vgpu_query_memory(dev, &m))
			return ~0ull;
		if (m.pt_pages == want)
			break;
		usleep(10000);
	}
	return m.pt_pages;
}

/*
 * VM_DESTROY with a job on the device that outlives the bounded wait: the
 * ioctl returns after about a second, the job runs on, the page tables go
 * when it ends (the deferred teardown of close()).
 */
TEST_F(mvm, destroy_defers_teardown_of_a_running_job)
{
	struct vgpu_dev *dev = &self->dev;
	struct drm_vgpu_query_memory m0, m1;
	uint32_t vm, s_run;
	struct vbuf flags, own;
	double took;
	int status;
	pid_t pid;

	ASSERT_EQ(0, vbuf_create(dev, 0, &own, 4096, VA + 4 * MiB));
	ASSERT_EQ(0, run_fill(dev, 0, 0, VA + 4 * MiB, 1));	/* stream tables */
	ASSERT_EQ(0, vgpu_query_memory(dev, &m0));
	ASSERT_EQ(0, vgpu_vm_create(dev, &vm));
	ASSERT_EQ(0, vbuf_create(dev, vm, &flags, 4096, VA));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_run));
	ASSERT_EQ(0, submit_blocker(dev, vm, 0, &flags, 1, s_run));
	ASSERT_EQ(0, vgpu_query_memory(dev, &m1));
	EXPECT_LT(m0.pt_pages, m1.pt_pages);

	took = destroy_timed(dev, vm, &flags, 2500000, &pid);
	ASSERT_LE(0, pid);
	TH_LOG("VM_DESTROY returned after %.2f s", took);
	/* Waited about VGPU_VM_CLOSE_WAIT_MS for the job, then deferred. */
	EXPECT_LE(0.8, took);
	EXPECT_GE(2.0, took);
	EXPECT_EQ(0, vgpu_syncobj_status(dev, s_run));
	/* The id is gone at once, the page tables are still the job's. */
	EXPECT_EQ(-ENOENT, vgpu_vm_destroy(dev, vm));
	EXPECT_EQ(1, fdinfo_u64(dev->fd, "drm-vgpu-vms"));
	ASSERT_EQ(0, vgpu_query_memory(dev, &m1));
	EXPECT_LT(m0.pt_pages, m1.pt_pages);
	/* The default VM is not disturbed meanwhile, on the same ring. */
	EXPECT_EQ(0, run_fill(dev, 0, dev->exec_queues > 1, VA + 4 * MiB, 4));
	EXPECT_EQ(4, ((uint32_t *)own.cpu)[0]);

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, s_run, 30 * SEC));
	/* Released before the job timeout: it completed. */
	EXPECT_EQ(1, vgpu_syncobj_status(dev, s_run));
	EXPECT_EQ(m0.pt_pages, pt_pages_settle(dev, m0.pt_pages));
}

/*
 * VM_DESTROY with a job still in the scheduler, behind a dependency: like
 * close(), it lets the job reach the device first (a killable wait), then
 * bans the VM; the job either ran before the ban or fails with
 * -ECANCELED, and the memory says which.
 */
TEST_F(mvm, destroy_with_queued_jobs)
{
	struct vgpu_dev *dev = &self->dev;
	struct drm_vgpu_query_memory m0;
	uint32_t vm, s_run, s_queued;
	struct vbuf flags, own;
	struct vgpu_cmd cmd;
	double took;
	int st, status;
	pid_t pid;

	if (dev->exec_queues < 2)
		SKIP(return, "needs two rings");
	ASSERT_EQ(0, vbuf_create(dev, 0, &own, 4096, VA + 4 * MiB));
	ASSERT_EQ(0, run_fill(dev, 0, 0, VA + 4 * MiB, 1));
	ASSERT_EQ(0, vgpu_query_memory(dev, &m0));
	ASSERT_EQ(0, vgpu_vm_create(dev, &vm));
	ASSERT_EQ(0, vbuf_create(dev, vm, &flags, 4096, VA));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_run));
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_queued));
	ASSERT_EQ(0, submit_blocker(dev, vm, 0, &flags, 1, s_run));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, VA + 2048, 1024, 9);
	ASSERT_EQ(0, vgpu_submit_in(dev, vm, 1, &cmd, &s_run, 1, s_queued));
	vgpu_cmd_fini(&cmd);

	took = destroy_timed(dev, vm, &flags, 1000000, &pid);
	ASSERT_LE(0, pid);
	TH_LOG("VM_DESTROY returned after %.2f s", took);
	EXPECT_LE(0.5, took);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, s_run, 30 * SEC));
	ASSERT_EQ(0, vgpu_syncobj_wait(dev, s_queued, 30 * SEC));
	EXPECT_EQ(1, vgpu_syncobj_status(dev, s_run));
	st = vgpu_syncobj_status(dev, s_queued);
	TH_LOG("queued job: %d", st);
	if (st == 1) {
		EXPECT_EQ(9, ((uint32_t *)flags.cpu)[512]);
	} else {
		EXPECT_EQ(-ECANCELED, st);
		EXPECT_EQ(0, ((uint32_t *)flags.cpu)[512]);
	}
	EXPECT_EQ(-ENOENT, run_fill(dev, vm, 1, VA, 1));
	EXPECT_EQ(m0.pt_pages, pt_pages_settle(dev, m0.pt_pages));
	EXPECT_EQ(0, run_fill(dev, 0, 1, VA + 4 * MiB, 4));
	EXPECT_EQ(4, ((uint32_t *)own.cpu)[0]);
}

/*
 * Ioctls racing VM_DESTROY on the same file: a child process (same open
 * file) maps, unmaps, submits and queries in a loop until the id is gone;
 * every call either works on the VM or sees -ENOENT, nothing else.
 */
static int race_vm(struct vgpu_dev *dev, uint32_t vm, uint32_t bo)
{
	struct drm_vgpu_query_vm q;
	struct vgpu_cmd cmd;
	int i, ret = 0;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, VA, 4096, 1);
	for (i = 0; i < 100000 && ret != -ENOENT; i++) {
		switch (i % 4) {
		case 0:
			ret = vgpu_vm_map_in(dev, vm, bo, 0, VA + 2 * MiB, 4096,
					     VGPU_MAP_RW);
			break;
		case 1:
			ret = vgpu_vm_unmap_in(dev, vm, VA + 2 * MiB, 4096);
			break;
		case 2:
			ret = vgpu_submit_in(dev, vm, 0, &cmd, NULL, 0, 0);
			break;
		default:
			ret = vgpu_query_vm_in(dev, vm, &q);
			break;
		}
		/* EXEC may meet the ban VM_DESTROY sets before the id goes. */
		if (ret && ret != -ENOENT && ret != -ECANCELED)
			return 1;
	}
	vgpu_cmd_fini(&cmd);
	return ret == -ENOENT ? 0 : 2;
}

TEST_F(mvm, destroy_races_ioctls)
{
	struct vgpu_dev *dev = &self->dev;
	struct vbuf b;
	int round, status;
	uint32_t vm;
	pid_t pid;

	for (round = 0; round < 8; round++) {
		ASSERT_EQ(0, vgpu_vm_create(dev, &vm));
		ASSERT_EQ(0, vbuf_create(dev, vm, &b, 4096, VA));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(race_vm(dev, vm, b.bo));
		usleep(20000 + 10000 * round);
		EXPECT_EQ(0, vgpu_vm_destroy(dev, vm));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
		vgpu_bo_unmap(b.cpu, b.size);
		vgpu_bo_close(dev, b.bo);
	}
	EXPECT_EQ(1, fdinfo_u64(dev->fd, "drm-vgpu-vms"));
	/* The file goes on with its default VM. */
	ASSERT_EQ(0, vbuf_create(dev, 0, &b, 4096, VA));
	EXPECT_EQ(0, run_fill(dev, 0, 0, VA, 6));
	EXPECT_EQ(6, ((uint32_t *)b.cpu)[0]);
}

/* ------------------------------------------------------------- fdinfo --- */

TEST_F(mvm, fdinfo_sums_the_vms)
{
	struct vgpu_dev *dev = &self->dev;
	struct drm_vgpu_query_vm q[3];
	uint64_t pt = 0, maps = 0, jobs = 0, s1, engine, sub;
	uint32_t ids[3] = { 0 };
	struct vbuf b[3];
	int i;

	for (i = 1; i < 3; i++)
		ASSERT_EQ(0, vgpu_vm_create(dev, &ids[i]));
	EXPECT_EQ(3, fdinfo_u64(dev->fd, "drm-vgpu-vms"));
	EXPECT_EQ(0, fdinfo_u64(dev->fd, "drm-vgpu-pt-bytes"));
	ASSERT_EQ(0, vbuf_create(dev, 0, &b[0], 4096, VA));
	ASSERT_EQ(0, run_fill(dev, 0, 0, VA, 1));
	s1 = fdinfo_u64(dev->fd, "drm-vgpu-stream-bytes");
	EXPECT_LT(0, s1);
	for (i = 1; i < 3; i++) {
		/* Different VAs and sizes: different page-table shapes. */
		ASSERT_EQ(0, vbuf_create(dev, ids[i], &b[i], 4096 * (i + 1),
					 VA << i));
		ASSERT_EQ(0, run_fill(dev, ids[i], 0, VA << i, i + 1));
		ASSERT_EQ(0, run_fill(dev, ids[i], 0, VA << i, i + 1));
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, vgpu_query_vm_in(dev, ids[i], &q[i]));
		pt += q[i].pt_pages * 4096;
		maps += q[i].mappings;
		jobs += q[i].jobs_submitted;
		EXPECT_LT(0, q[i].pt_pages);
	}
	EXPECT_EQ(5, jobs);
	EXPECT_EQ(pt, fdinfo_u64(dev->fd, "drm-vgpu-pt-bytes"));
	EXPECT_EQ(maps, fdinfo_u64(dev->fd, "drm-vgpu-mappings"));
	EXPECT_EQ(3, maps);
	EXPECT_EQ(jobs, fdinfo_u64(dev->fd, "drm-vgpu-jobs-submitted"));
	EXPECT_EQ(jobs, fdinfo_u64(dev->fd, "drm-vgpu-jobs-completed"));
	/* Each VM has its own stream buffer. */
	EXPECT_EQ(3 * s1, fdinfo_u64(dev->fd, "drm-vgpu-stream-bytes"));
	engine = fdinfo_u64(dev->fd, "drm-engine-q0");
	EXPECT_LT(0, engine);

	/* Destroyed: its holdings leave the sums, its counters stay. */
	ASSERT_EQ(0, vgpu_vm_destroy(dev, ids[2]));
	EXPECT_EQ(2, fdinfo_u64(dev->fd, "drm-vgpu-vms"));
	EXPECT_EQ(pt - q[2].pt_pages * 4096,
		  fdinfo_u64(dev->fd, "drm-vgpu-pt-bytes"));
	EXPECT_EQ(2, fdinfo_u64(dev->fd, "drm-vgpu-mappings"));
	EXPECT_EQ(2 * s1, fdinfo_u64(dev->fd, "drm-vgpu-stream-bytes"));
	sub = fdinfo_u64(dev->fd, "drm-vgpu-jobs-submitted");
	EXPECT_EQ(jobs, sub);
	EXPECT_EQ(jobs, fdinfo_u64(dev->fd, "drm-vgpu-jobs-completed"));
	EXPECT_LE(engine, fdinfo_u64(dev->fd, "drm-engine-q0"));
	/* One more job in VM 1: the sum goes on from there. */
	ASSERT_EQ(0, run_fill(dev, ids[1], 0, VA << 1, 5));
	EXPECT_EQ(jobs + 1, fdinfo_u64(dev->fd, "drm-vgpu-jobs-submitted"));
	EXPECT_EQ(5, ((uint32_t *)b[1].cpu)[0]);
}

/* ------------------------------------------------------ exec queues --- */

static int queue_create_raw(int fd, struct drm_vgpu_exec_queue_create *qc)
{
	return ioctl(fd, DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE, qc);
}

TEST_F(mvm, queue_bad_args)
{
	struct vgpu_dev *dev = &self->dev;
	struct drm_vgpu_exec_queue_create ok = {
		.priority = DRM_VGPU_QUEUE_PRIORITY_NORMAL,
	}, qc;
	struct drm_vgpu_exec_queue_destroy qd = { 0 };
	uint32_t vm, q, ids[DRM_VGPU_MAX_EXEC_QUEUES], extra;
	struct vgpu_cmd cmd;
	struct vbuf b;
	int i;

	ASSERT_EQ(0, vgpu_vm_create(dev, &vm));
	ASSERT_EQ(0, vbuf_create(dev, vm, &b, 4096, VA));
	qc = ok; qc.priority = DRM_VGPU_QUEUE_PRIORITY_HIGH + 1;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.priority = ~0u;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.flags = 1;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.pad = 1;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.reserved = 1;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.ring = dev->exec_queues;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.ring = ~0u;
	EXPECT_ERRNO(EINVAL, queue_create_raw(dev->fd, &qc));
	qc = ok; qc.vm_id = vm + 1;
	EXPECT_ERRNO(ENOENT, queue_create_raw(dev->fd, &qc));
	EXPECT_ERRNO(EFAULT, ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC_QUEUE_CREATE, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC_QUEUE_DESTROY, NULL));

	ASSERT_EQ(0, vgpu_exec_queue_create(dev, vm, 0,
					    DRM_VGPU_QUEUE_PRIORITY_LOW, &q));
	EXPECT_LE(DRM_VGPU_EXEC_QUEUE_ID_BASE, q);
	/* A queue is bound to its VM. */
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, VA, 4096, 0x44);
	EXPECT_EQ(-EINVAL, vgpu_submit_in(dev, 0, q, &cmd, NULL, 0, 0));
	/* Unknown ids in the created range; ids outside every range. */
	EXPECT_EQ(-ENOENT, vgpu_submit_in(dev, vm, q + 1, &cmd, NULL, 0, 0));
	EXPECT_EQ(-EINVAL, vgpu_submit_in(dev, vm, dev->exec_queues, &cmd,
					  NULL, 0, 0));
	EXPECT_EQ(-EINVAL, vgpu_submit_in(dev, vm, DRM_VGPU_EXEC_QUEUE_ID_BASE - 1,
					  &cmd, NULL, 0, 0));
	EXPECT_EQ(-EINVAL, vgpu_submit_in(dev, vm, DRM_VGPU_EXEC_QUEUE_ID_BASE +
					  DRM_VGPU_MAX_EXEC_QUEUES, &cmd, NULL, 0, 0));
	EXPECT_EQ(-EINVAL, vgpu_submit_in(dev, vm, ~0u, &cmd, NULL, 0, 0));
	vgpu_cmd_fini(&cmd);
	EXPECT_EQ(0, run_fill(dev, vm, q, VA, 0x44));
	EXPECT_EQ(0x44, ((uint32_t *)b.cpu)[0]);

	/* A VM with a queue cannot be destroyed; the queue goes first. */
	EXPECT_EQ(-EBUSY, vgpu_vm_destroy(dev, vm));
	qd.queue_id = q;
	qd.pad = 1;
	EXPECT_ERRNO(EINVAL, ioctl(dev->fd, DRM_IOCTL_VGPU_EXEC_QUEUE_DESTROY, &qd));
	EXPECT_EQ(0, vgpu_exec_queue_destroy(dev, q));
	EXPECT_EQ(-ENOENT, vgpu_exec_queue_destroy(dev, q));
	EXPECT_EQ(-ENOENT, vgpu_exec_queue_destroy(dev, 0));
	EXPECT_EQ(-ENOENT, vgpu_exec_queue_destroy(dev, ~0u));
	EXPECT_EQ(-ENOENT, run_fill(dev, vm, q, VA, 1));
	EXPECT_EQ(0, vgpu_vm_destroy(dev, vm));
	EXPECT_EQ(-ENOENT, vgpu_exec_queue_create(dev, vm, 0,
						  DRM_VGPU_QUEUE_PRIORITY_LOW, &q));

	/* The limit, on the default VM. */
	for (i = 0; i < DRM_VGPU_MAX_EXEC_QUEUES; i++) {
		ASSERT_EQ(0, vgpu_exec_queue_create(dev, 0, i % dev->exec_queues,
						    DRM_VGPU_QUEUE_PRIORITY_NORMAL,
						    &ids[i]));
		ASSERT_LE(DRM_VGPU_EXEC_QUEUE_ID_BASE, ids[i]);
		ASSERT_GT(DRM_VGPU_EXEC_QUEUE_ID_BASE + DRM_VGPU_MAX_EXEC_QUEUES,
			  ids[i]);
	}
	EXPECT_EQ(-EBUSY, vgpu_exec_queue_create(dev, 0, 0,
						 DRM_VGPU_QUEUE_PRIORITY_NORMAL,
						 &extra));
	/* The default VM can never be destroyed, queues or not. */
	EXPECT_ERRNO(EINVAL, vm_destroy_raw(dev->fd, 0, 0));
	/* close() takes the queues down. */
}

/* HIGH needs CAP_SYS_NICE: a child that dropped root gets -EPERM. */
TEST_F(mvm, high_priority_needs_cap_sys_nice)
{
	struct vgpu_dev *dev = &self->dev;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop it");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint32_t q;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (vgpu_exec_queue_create(dev, 0, 0,
					   DRM_VGPU_QUEUE_PRIORITY_HIGH, &q) != -EPERM)
			_exit(11);
		if (vgpu_exec_queue_create(dev, 0, 0,
					   DRM_VGPU_QUEUE_PRIORITY_NORMAL, &q))
			_exit(12);
		if (vgpu_exec_queue_create(dev, 0, 0,
					   DRM_VGPU_QUEUE_PRIORITY_LOW, &q))
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Jobs of a LOW, a NORMAL and a HIGH queue on one ring, all held back by
 * the same gate (a job on another ring that waits for a flag), submitted
 * LOW first, then the NORMAL ones, HIGH last.  When the gate opens, the
 * scheduler takes HIGH first, then the NORMAL ones in order, LOW last.
 * Each job copies the id of the job before it (the ring runs them one by
 * one) into its own record, then writes its id: the records give the
 * order the device ran them in.
 */
#define NORMAL_JOBS	4
#define ID_HIGH		100
#define ID_LOW		200

static int submit_logged(struct vgpu_dev *dev, uint32_t queue,
			 struct vbuf *log, uint32_t id, int slot,
			 uint32_t gate, uint32_t out)
{
	uint32_t me[2] = { id, 0 };
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, log->va, log->va + 64 + 8 * slot, 8);
	vgpu_cmd_write(&cmd, log->va, me, 2);
	ret = vgpu_submit_in(dev, 0, queue, &cmd, &gate, 1, out);
	vgpu_cmd_fini(&cmd);
	return ret;
}

TEST_F(mvm, high_priority_runs_first)
{
	struct vgpu_dev *dev = &self->dev;
	uint32_t s_gate, s[NORMAL_JOBS + 2], qlow, qnorm, qhigh;
	volatile uint64_t *rec;
	struct vbuf log, gate;
	struct vgpu_cmd cmd;
	int i;

	if (dev->exec_queues < 2)
		SKIP(return, "needs two rings");
	ASSERT_EQ(0, vbuf_create(dev, 0, &log, 4096, VA));
	ASSERT_EQ(0, vbuf_create(dev, 0, &gate, 4096, VA + 2 * MiB));
	rec = (volatile uint64_t *)((char *)log.cpu + 64);
	for (i = 0; i < NORMAL_JOBS + 2; i++) {
		rec[i] = ~0ull;
		ASSERT_EQ(0, vgpu_syncobj_create(dev, &s[i]));
	}
	ASSERT_EQ(0, vgpu_exec_queue_create(dev, 0, 0, DRM_VGPU_QUEUE_PRIORITY_LOW,
					    &qlow));
	ASSERT_EQ(0, vgpu_exec_queue_create(dev, 0, 0,
					    DRM_VGPU_QUEUE_PRIORITY_NORMAL, &qnorm));
	ASSERT_EQ(0, vgpu_exec_queue_create(dev, 0, 0, DRM_VGPU_QUEUE_PRIORITY_HIGH,
					    &qhigh));

	/* The gate: ring 1, until the CPU sets the flag. */
	ASSERT_EQ(0, vgpu_syncobj_create(dev, &s_gate));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_wait(&cmd, gate.va, 1);
	ASSERT_EQ(0, vgpu_submit_in(dev, 0, 1, &cmd, NULL, 0, s_gate));
	vgpu_cmd_fini(&cmd);

	ASSERT_EQ(0, submit_logged(dev, qlow, &log, ID_LOW, NORMAL_JOBS + 1,
				   s_gate, s[NORMAL_JOBS + 1]));
	for (i = 0; i < NORMAL_JOBS; i++)
		ASSERT_EQ(0, submit_logged(dev, qnorm, &log, i + 1, i, s_gate, s[i]));
	ASSERT_EQ(0, submit_logged(dev, qhigh, &log, ID_HIGH, NORMAL_JOBS,
				   s_gate, s[NORMAL_JOBS]));
	/* Nothing ran yet: every job waits for the gate. */
	usleep(100000);
	for (i = 0; i < NORMAL_JOBS + 2; i++)
		EXPECT_EQ(~0ull, rec[i]);

	((volatile uint64_t *)gate.cpu)[0] = 1;
	for (i = 0; i < NORMAL_JOBS + 2; i++) {
		ASSERT_EQ(0, vgpu_syncobj_wait(dev, s[i], 30 * SEC));
		EXPECT_EQ(1, vgpu_syncobj_status(dev, s[i]));
	}
	TH_LOG("before HIGH: %llu, before NORMAL 1: %llu, before LOW: %llu",
	       (unsigned long long)rec[NORMAL_JOBS], (unsigned long long)rec[0],
	       (unsigned long long)rec[NORMAL_JOBS + 1]);
	EXPECT_EQ(0, rec[NORMAL_JOBS]);		/* HIGH ran first */
	EXPECT_EQ(ID_HIGH, rec[0]);		/* then the NORMAL ones, in order */
	for (i = 1; i < NORMAL_JOBS; i++)
		EXPECT_EQ(i, rec[i]);
	EXPECT_EQ(NORMAL_JOBS, rec[NORMAL_JOBS + 1]);	/* LOW last */
	EXPECT_EQ(ID_LOW, *(volatile uint64_t *)log.cpu);
}

TEST_HARNESS_MAIN
