// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CPU-address mirrors (SVM, DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR): the GPU
 * on the process's own memory at the same addresses.  GET_PARAM reports
 * the mode; the GPU writes malloc'd memory (mapped, and small blocks on
 * the brk heap beside others) the CPU then reads and reads what the CPU
 * wrote; an anonymous, a memfd, a file (shared and private)
 * and a stack mirror; munmap, mprotect and fork change what the GPU sees
 * (a GPU access where the CPU has no mapping, or a write to a read-only
 * one, fails the job and bans the VM; parent and child keep their own
 * data); a process exiting with GPU work in flight; 4x VRAM through a
 * mirror, verified by checksum; and hostile binds.  Every test checks the svm_* counters too.
 * Where the kernel migrates mirrored memory into VRAM (DEVICE_PRIVATE, the
 * debug kernel; GET_PARAM says DRM_VGPU_SVM_VRAM): a GPU write lands in
 * VRAM and a CPU read brings it back, checksummed; CPU touches while the
 * GPU copies; fork, munmap and exit with pages in VRAM; advice dropped
 * with its mirror; 4x VRAM migrating through the one pool.  Those SKIP,
 * with the reason, in system-memory mode.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_paging.h"

#define MiB	(1ull << 20)
#define SEC	1000000000ll
/* A job over 4x VRAM of migrating memory takes minutes on the debug kernel. */
#define JOB_NS	(400 * SEC)
#define PAGE	4096ull
#define MIRROR	DRM_VGPU_VM_BIND_CPU_ADDR_MIRROR

static uint64_t down(const void *p)
{
	return (uintptr_t)p & ~(PAGE - 1);
}

static uint64_t up(const void *p)
{
	return ((uintptr_t)p + PAGE - 1) & ~(PAGE - 1);
}

static int bind_raw(struct vgpu_dev *dev, uint32_t flags, uint32_t handle,
		    uint64_t bo_offset, uint64_t va, uint64_t range)
{
	struct drm_vgpu_vm_bind_op op = {
		.op = DRM_VGPU_VM_BIND_OP_MAP, .flags = flags, .handle = handle,
		.bo_offset = bo_offset, .va = va, .range = range,
	};

	return vgpu_vm_bind(dev, &op, 1);
}

/* Mirror the pages holding [p, p + size). */
static int mirror(struct vgpu_dev *dev, const void *p, uint64_t size,
		  uint32_t perms)
{
	return bind_raw(dev, MIRROR | perms, 0, 0, down(p),
			up((const char *)p + size) - down(p));
}

static int unmirror(struct vgpu_dev *dev, const void *p, uint64_t size)
{
	return vgpu_vm_unmap(dev, down(p), up((const char *)p + size) - down(p));
}

static int gpu_fill(struct vgpu_dev *dev, void *p, uint64_t size, uint32_t v)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, (uintptr_t)p, size, v);
	ret = vgpu_run(dev, 0, &cmd, JOB_NS);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int gpu_copy(struct vgpu_dev *dev, const void *src, void *dst,
		    uint64_t size)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, (uintptr_t)src, (uintptr_t)dst, size);
	ret = vgpu_run(dev, 0, &cmd, JOB_NS);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int gpu_checksum(struct vgpu_dev *dev, const void *src, uint64_t size,
			uint64_t *sum)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_checksum(&cmd, (uintptr_t)src, size, (uintptr_t)sum);
	ret = vgpu_run(dev, 0, &cmd, 300 * SEC);
	vgpu_cmd_fini(&cmd);
	return ret;
}

static uint64_t ctr(struct vgpu_dev *dev, const char *key)
{
	char name[64];

	snprintf(name, sizeof(name), "drm-vgpu-%s", key);
	return fdinfo_u64(dev->fd, name);
}

/* A number from the device's sysfs directory, or ~0. */
static uint64_t sysfs_u64(struct vgpu_dev *dev, const char *name)
{
	char buf[32] = "";

	if (vgpu_test_sysfs(dev->fd, name, NULL, buf, sizeof(buf)))
		return ~0ull;
	return strtoull(buf, NULL, 0);
}

static uint64_t dev_ctr(struct vgpu_dev *dev, const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "counters/%s", name);
	return sysfs_u64(dev, path);
}

static uint64_t vm_to_vram(struct vgpu_dev *dev)
{
	struct drm_vgpu_query_paging pg;

	return vgpu_query_paging(dev, &pg) ? ~0ull : pg.vm.bytes_to_vram;
}

static int count_u32(const void *p, uint64_t size, uint32_t v)
{
	const uint32_t *w = p;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		if (w[i] != v)
			return 0;
	return 1;
}

static void *anon(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Two anonymous buffers of @size, both mirrored read-write. */
static int anon_pair(struct vgpu_dev *dev, uint64_t size, char **a, char **b)
{
	*a = anon(size);
	*b = anon(size);
	if (!*a || !*b)
		return -ENOMEM;
	return mirror(dev, *a, size, VGPU_MAP_RW) ?:
	       mirror(dev, *b, size, VGPU_MAP_RW);
}

FIXTURE(svm) {
	struct vgpu_dev dev;
};

FIXTURE_SETUP(svm)
{
	if (vgpu_open(&self->dev))
		SKIP(return, "no vgpu render node");
}

FIXTURE_TEARDOWN(svm)
{
	vgpu_close(&self->dev);
}

/* Does the kernel migrate mirrored memory into VRAM? */
static int svm_vram(struct vgpu_dev *dev)
{
	uint64_t v = 0;

	return !vgpu_get_param(dev, DRM_VGPU_PARAM_SVM, &v) &&
	       (v & DRM_VGPU_SVM_VRAM);
}

/* Why the tests of migration SKIP in system-memory mode. */
#define NO_VRAM_MODE \
	"SVM memory stays in system memory (the kernel has no DEVICE_PRIVATE)"

/*
 * The mode: mirrors always; VRAM exactly on the debug kernel (the only
 * one with DEVICE_PRIVATE, vgpu-run exports VGPU_KERNEL into the guest).
 */
TEST_F(svm, param_reports_mode)
{
	const char *k = getenv("VGPU_KERNEL");
	uint64_t v = ~0ull;

	ASSERT_EQ(0, vgpu_get_param(&self->dev, DRM_VGPU_PARAM_SVM, &v));
	EXPECT_EQ(DRM_VGPU_SVM_MIRROR, v & DRM_VGPU_SVM_MIRROR);
	EXPECT_EQ(0, v & ~(DRM_VGPU_SVM_MIRROR | DRM_VGPU_SVM_VRAM));
	if (k && !strcmp(k, "debug")) {
		EXPECT_EQ(DRM_VGPU_SVM_VRAM, v & DRM_VGPU_SVM_VRAM);
	} else if (k && !strcmp(k, "debian")) {
		EXPECT_EQ(0, v & DRM_VGPU_SVM_VRAM);
	}
}

/* malloc: the GPU writes, the CPU reads; the CPU writes, the GPU reads. */
TEST_F(svm, malloc_both_ways)
{
	uint64_t size = 1 * MiB;
	char *a = malloc(size), *b = malloc(size);
	uint64_t i;

	ASSERT_TRUE(a && b);
	memset(a, 0, size);
	for (i = 0; i < size / 8; i++)
		((uint64_t *)b)[i] = pattern(7, i);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, b, size, VGPU_MAP_RW));
	EXPECT_EQ(0, ctr(&self->dev, "svm-faults"));

	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x5a5a5a5a));
	EXPECT_TRUE(count_u32(a, size, 0x5a5a5a5a));
	EXPECT_LE(1, ctr(&self->dev, "svm-faults"));
	EXPECT_LE(size / PAGE, ctr(&self->dev, "svm-pages-mapped"));

	/* b as the CPU wrote it, copied into a by the GPU. */
	ASSERT_EQ(0, gpu_copy(&self->dev, b, a, size));
	EXPECT_EQ(0, memcmp(a, b, size));
	EXPECT_LE(2 * size / PAGE, ctr(&self->dev, "svm-pages-mapped"));

	/* Unbinding gives every page back. */
	ASSERT_EQ(0, unmirror(&self->dev, a, size));
	ASSERT_EQ(0, unmirror(&self->dev, b, size));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	free(a);
	free(b);
}

/*
 * Small malloc()s live on the brk heap, several to a page: the GPU writes
 * one of them through the mirror of its pages and its neighbours, which
 * the CPU wrote, keep their bytes.
 */
TEST_F(svm, small_malloc_on_the_brk_heap)
{
	size_t n = 3000;
	char *x = malloc(n), *y = malloc(n), *z = malloc(n);

	ASSERT_TRUE(x && y && z);
	/* Below glibc's mmap threshold: the heap, not a mapping of its own. */
	EXPECT_LT((uintptr_t)y, (uintptr_t)sbrk(0));
	memset(x, 0x11, n);
	memset(y, 0x22, n);
	memset(z, 0x33, n);
	ASSERT_EQ(0, mirror(&self->dev, y, n, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_fill(&self->dev, y, n, 0x44444444));
	EXPECT_TRUE(count_u32(y, n, 0x44444444));
	EXPECT_TRUE(count_u32(x, n, 0x11111111));
	EXPECT_TRUE(count_u32(z, n, 0x33333333));
	ASSERT_EQ(0, unmirror(&self->dev, y, n));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	free(z);
	free(y);
	free(x);
}

/* A read fault maps read-only; a GPU write then takes the pages writable. */
TEST_F(svm, read_then_write_upgrades)
{
	uint64_t size = 64 * 1024;
	uint64_t faults;
	char *a, *b;

	ASSERT_EQ(0, anon_pair(&self->dev, size, &a, &b));
	memset(a, 0x11, size);
	ASSERT_EQ(0, gpu_copy(&self->dev, a, b, size));
	EXPECT_EQ(0, memcmp(a, b, size));
	faults = ctr(&self->dev, "svm-faults");
	EXPECT_LE(2, faults);
	/* a was mapped read-only: the write faults again. */
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x22222222));
	EXPECT_TRUE(count_u32(a, size, 0x22222222));
	EXPECT_LT(faults, ctr(&self->dev, "svm-faults"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/* munmap while bound: the GPU loses the pages; touching them fails. */
TEST_F(svm, munmap_then_gpu_access_cancels)
{
	uint64_t size = 256 * 1024;
	char *a = anon(size);
	uint64_t inv;

	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 1));
	EXPECT_TRUE(count_u32(a, size, 1));
	/* The GPU has them again: in VRAM mode the CPU's read took them. */
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 1));
	inv = ctr(&self->dev, "svm-invalidations");
	ASSERT_EQ(0, munmap(a, size));
	EXPECT_EQ(inv + 1, ctr(&self->dev, "svm-invalidations"));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));

	EXPECT_NE(0, gpu_fill(&self->dev, a, size, 2));
	EXPECT_EQ(1, ctr(&self->dev, "faults-cancelled"));
	/* Banned, like any VM whose job made a bad access. */
	EXPECT_EQ(-ECANCELED, mirror(&self->dev, a, size, VGPU_MAP_RW));
}

/* madvise(DONTNEED) drops the pages: the GPU sees the zeroes the CPU sees. */
TEST_F(svm, madvise_dontneed_invalidates)
{
	uint64_t size = 128 * 1024;
	uint64_t inv;
	char *a, *b;

	ASSERT_EQ(0, anon_pair(&self->dev, size, &a, &b));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x33333333));
	inv = ctr(&self->dev, "svm-invalidations");
	ASSERT_EQ(0, madvise(a, size, MADV_DONTNEED));
	EXPECT_EQ(inv + 1, ctr(&self->dev, "svm-invalidations"));
	EXPECT_TRUE(count_u32(a, size, 0));
	memset(b, 0xff, size);
	ASSERT_EQ(0, gpu_copy(&self->dev, a, b, size));
	EXPECT_TRUE(count_u32(b, size, 0));
}

/* mprotect read-only: GPU reads still work, a GPU write fails the job. */
TEST_F(svm, mprotect_readonly_write_faults)
{
	uint64_t size = 64 * 1024;
	uint64_t inv;
	char *a, *b;

	ASSERT_EQ(0, anon_pair(&self->dev, size, &a, &b));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x44444444));
	inv = ctr(&self->dev, "svm-invalidations");
	ASSERT_EQ(0, mprotect(a, size, PROT_READ));
	EXPECT_EQ(inv + 1, ctr(&self->dev, "svm-invalidations"));
	ASSERT_EQ(0, gpu_copy(&self->dev, a, b, size));
	EXPECT_TRUE(count_u32(b, size, 0x44444444));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));

	EXPECT_NE(0, gpu_fill(&self->dev, a, size, 0x55555555));
	EXPECT_TRUE(count_u32(a, size, 0x44444444));
	EXPECT_EQ(1, ctr(&self->dev, "faults-cancelled"));
}

/* A bind without WRITE: a GPU write fails even where the CPU may write. */
TEST_F(svm, readonly_bind_write_faults)
{
	uint64_t size = 16 * 1024;
	char *a = anon(size);

	ASSERT_TRUE(a != NULL);
	memset(a, 0x66, size);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_R));
	EXPECT_NE(0, gpu_fill(&self->dev, a, size, 0));
	EXPECT_TRUE(count_u32(a, size, 0x66666666));
	EXPECT_EQ(1, ctr(&self->dev, "faults-cancelled"));
	EXPECT_EQ(0, ctr(&self->dev, "svm-faults"));
}

/* fork: copy-on-write keeps the parent's and the child's data apart. */
TEST_F(svm, fork_keeps_data_apart)
{
	uint64_t size = 64 * 1024;
	uint32_t *a = anon(size);
	uint64_t inv;
	int go[2], status;
	pid_t pid;

	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0xaaaaaaaa));
	inv = ctr(&self->dev, "svm-invalidations");

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(10);
		/* The parent's GPU write after fork is not ours. */
		if (!count_u32(a, size, 0xaaaaaaaa))
			_exit(11);
		memset(a, 0xcc, size);
		_exit(count_u32(a, size, 0xcccccccc) ? 0 : 12);
	}
	close(go[0]);
	/* fork write-protected the parent's pages: the GPU lost them. */
	EXPECT_EQ(inv + 1, ctr(&self->dev, "svm-invalidations"));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0xbbbbbbbb));
	EXPECT_TRUE(count_u32(a, size, 0xbbbbbbbb));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(count_u32(a, size, 0xbbbbbbbb));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	close(go[1]);
}

/* A shared file mapping (memfd): the GPU's writes reach the file. */
TEST_F(svm, memfd_shared_mapping)
{
	uint64_t size = 256 * 1024;
	uint32_t *copy = anon(size), *back = anon(size);
	int fd = memfd_create("vgpu-svm", 0);
	uint32_t *f;
	uint64_t i;

	ASSERT_LE(0, fd);
	ASSERT_TRUE(copy && back);
	ASSERT_EQ(0, ftruncate(fd, size));
	f = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, f);
	for (i = 0; i < size / 4; i++)
		f[i] = (uint32_t)pattern(3, i);
	ASSERT_EQ(0, mirror(&self->dev, f, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, copy, size, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_copy(&self->dev, f, copy, size));
	EXPECT_EQ(0, memcmp(f, copy, size));

	ASSERT_EQ(0, gpu_fill(&self->dev, f, size, 0x77777777));
	ASSERT_EQ((ssize_t)size, pread(fd, back, size, 0));
	EXPECT_TRUE(count_u32(back, size, 0x77777777));
	EXPECT_LE(3 * size / PAGE, ctr(&self->dev, "svm-pages-mapped"));
	ASSERT_EQ(0, unmirror(&self->dev, f, size));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	munmap(f, size);
	close(fd);
}

/* The stack: a local array, written by the GPU. */
TEST_F(svm, stack)
{
	uint32_t buf[8192] __attribute__((aligned(4096)));
	uint64_t mapped = ctr(&self->dev, "svm-pages-mapped");

	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, mirror(&self->dev, buf, sizeof(buf), VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_fill(&self->dev, buf, sizeof(buf), 0x99999999));
	EXPECT_TRUE(count_u32(buf, sizeof(buf), 0x99999999));
	EXPECT_LE(mapped + sizeof(buf) / PAGE, ctr(&self->dev, "svm-pages-mapped"));
	ASSERT_EQ(0, unmirror(&self->dev, buf, sizeof(buf)));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
}

/* An UNMAP cutting a mirror leaves mirrors of the parts outside it. */
TEST_F(svm, partial_unmap_keeps_the_rest)
{
	uint64_t size = 64 * 1024;
	char *a = anon(size);

	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 5));
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, (uintptr_t)a + 16 * 1024, 16 * 1024));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, 16 * 1024, 6));
	ASSERT_EQ(0, gpu_fill(&self->dev, a + 32 * 1024, 32 * 1024, 7));
	EXPECT_TRUE(count_u32(a, 16 * 1024, 6));
	EXPECT_TRUE(count_u32(a + 16 * 1024, 16 * 1024, 5));
	EXPECT_TRUE(count_u32(a + 32 * 1024, 32 * 1024, 7));
	/* The hole is no longer mirrored. */
	EXPECT_EQ(0, bind_raw(&self->dev, MIRROR | VGPU_MAP_RW, 0, 0,
			      (uintptr_t)a + 16 * 1024, 16 * 1024));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, (uintptr_t)a, size));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
}

/* A BO's CPU mapping inside a mirror is no process memory HMM hands out. */
TEST_F(svm, bo_mapping_in_mirror_faults)
{
	uint64_t size = 64 * 1024;
	uint32_t bo;
	void *p;

	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, VGPU_PLACE_SYSTEM, 0, &bo));
	ASSERT_EQ(0, vgpu_bo_map(&self->dev, bo, size, &p));
	memset(p, 0x5c, size);
	ASSERT_EQ(0, mirror(&self->dev, p, size, VGPU_MAP_RW));
	EXPECT_NE(0, gpu_fill(&self->dev, p, size, 0));
	EXPECT_TRUE(count_u32(p, size, 0x5c5c5c5c));
	EXPECT_EQ(1, ctr(&self->dev, "faults-cancelled"));
	EXPECT_EQ(0, ctr(&self->dev, "svm-pages-mapped"));
	vgpu_bo_unmap(p, size);
}

struct toggler {
	void *p;
	uint64_t size;
	volatile int stop;
	unsigned int rounds;
};

/* Flip the protection of t->p back and forth: each flip invalidates. */
static void *toggle(void *arg)
{
	struct toggler *t = arg;

	while (!t->stop) {
		if (mprotect(t->p, t->size, PROT_READ) ||
		    mprotect(t->p, t->size, PROT_READ | PROT_WRITE))
			break;
		t->rounds++;
		/*
		 * Room for a fault to be resolved between two changes: one
		 * that loses the race to every change for a second gives up
		 * and cancels (svm.rst), and under KASAN resolving the 512
		 * pages of a block takes milliseconds.
		 */
		usleep(5000);
	}
	return NULL;
}

/*
 * Invalidations racing GPU faults: while a CPU thread keeps changing the
 * protection of the source (each change takes its pages from the GPU),
 * the GPU copies it again and again; every copy is right.
 */
TEST_F_TIMEOUT(svm, invalidations_racing_faults, 300)
{
	uint64_t size = 4 * MiB, i, inv;
	struct toggler t = { .size = size };
	uint64_t *src = anon(size), *dst = anon(size);
	pthread_t th;
	int n;

	ASSERT_TRUE(src && dst);
	for (i = 0; i < size / 8; i++)
		src[i] = pattern(5, i);
	ASSERT_EQ(0, mirror(&self->dev, src, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, dst, size, VGPU_MAP_RW));
	inv = ctr(&self->dev, "svm-invalidations");
	t.p = src;
	ASSERT_EQ(0, pthread_create(&th, NULL, toggle, &t));
	for (n = 0; n < 20; n++) {
		memset(dst, 0, size);
		ASSERT_EQ(0, gpu_copy(&self->dev, src, dst, size)) TH_LOG("copy %d", n);
		ASSERT_EQ(0, memcmp(src, dst, size)) TH_LOG("copy %d", n);
	}
	t.stop = 1;
	pthread_join(th, NULL);
	EXPECT_LT(0, t.rounds);
	/* A change counts when the GPU had pages there: at most two a round. */
	EXPECT_LT(inv, ctr(&self->dev, "svm-invalidations"));
	EXPECT_GE(inv + 2 * t.rounds, ctr(&self->dev, "svm-invalidations"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

TEST_F(svm, hostile_binds)
{
	uint64_t size = 64 * 1024;
	char *a = anon(2 * size);
	uint64_t va = (uintptr_t)a;
	static const struct {
		const char *what;
		uint32_t flags, handle;
		uint64_t bo_offset, va_off, range;
		int err;
	} cases[] = {
		{ "unknown flag", MIRROR | VGPU_MAP_RW | (1u << 4), 0, 0, 0, 4096, EINVAL },
		{ "no permission", MIRROR, 0, 0, 0, 4096, EINVAL },
		{ "write only", MIRROR | VGPU_MAP_W, 0, 0, 0, 4096, EINVAL },
		{ "exec", MIRROR | VGPU_MAP_R | VGPU_MAP_X, 0, 0, 0, 4096, EINVAL },
		{ "a BO handle", MIRROR | VGPU_MAP_RW, 1, 0, 0, 4096, EINVAL },
		{ "a BO offset", MIRROR | VGPU_MAP_RW, 0, 4096, 0, 4096, EINVAL },
		{ "unaligned va", MIRROR | VGPU_MAP_RW, 0, 0, 8, 4096, EINVAL },
		{ "unaligned range", MIRROR | VGPU_MAP_RW, 0, 0, 0, 4095, EINVAL },
		{ "empty", MIRROR | VGPU_MAP_RW, 0, 0, 0, 0, EINVAL },
		{ "overflowing", MIRROR | VGPU_MAP_RW, 0, 0, 0, -4096ull, EINVAL },
	};
	unsigned int i;
	uint32_t bo;
	int status;
	pid_t pid;

	ASSERT_TRUE(a != NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(-cases[i].err,
			  bind_raw(&self->dev, cases[i].flags, cases[i].handle,
				   cases[i].bo_offset, va + cases[i].va_off,
				   cases[i].range)) TH_LOG("case %u", i);
	/* Past the CPU's address space, and in the GPU's kernel range. */
	EXPECT_EQ(-EINVAL, bind_raw(&self->dev, MIRROR | VGPU_MAP_R, 0, 0,
				    1ull << 47, 4096));
	EXPECT_EQ(-EINVAL, bind_raw(&self->dev, MIRROR | VGPU_MAP_R, 0, 0,
				    (1ull << 47) - 4096, 8192));
	EXPECT_EQ(-EINVAL, bind_raw(&self->dev, MIRROR | VGPU_MAP_R, 0, 0,
				    (1ull << 48) - 4096, 4096));
	EXPECT_EQ(-EINVAL, bind_raw(&self->dev, MIRROR | VGPU_MAP_R, 0, 0, 0, 4096));

	/* Overlaps: a BO mapping, another mirror. */
	ASSERT_EQ(0, vgpu_bo_create(&self->dev, size, VGPU_PLACE_SYSTEM, 0, &bo));
	ASSERT_EQ(0, vgpu_vm_map(&self->dev, bo, 0, va, size, VGPU_MAP_RW));
	EXPECT_EQ(-EEXIST, bind_raw(&self->dev, MIRROR | VGPU_MAP_RW, 0, 0,
				    va + size - 4096, 8192));
	ASSERT_EQ(0, bind_raw(&self->dev, MIRROR | VGPU_MAP_RW, 0, 0, va + size, size));
	EXPECT_EQ(-EEXIST, bind_raw(&self->dev, MIRROR | VGPU_MAP_RW, 0, 0,
				    va + size, 4096));
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, va, 2 * size));

	/* Another process, with the file passed to it: not its VM's memory. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(bind_raw(&self->dev, MIRROR | VGPU_MAP_RW, 0, 0, va, size) ==
		      -EPERM ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, ctr(&self->dev, "svm-faults"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * A process exits while its GPU job still works on a mirror: the job
 * fills the memory, then WAITs on a mirrored word nobody writes.  Exit
 * takes the pages away from the GPU (the WAIT's next read faults, with
 * the process gone, and is cancelled), and every page mapped is unmapped.
 */
TEST_F_TIMEOUT(svm, exit_with_work_in_flight, 120)
{
	uint64_t size = 8 * MiB, mapped0, unmapped0, cancelled0, inv0;
	uint64_t mapped = 0, unmapped = 0, cancelled = 0;
	int status, i;
	pid_t pid;

	mapped0 = dev_ctr(&self->dev, "svm_pages_mapped");
	unmapped0 = dev_ctr(&self->dev, "svm_pages_unmapped");
	cancelled0 = dev_ctr(&self->dev, "faults_cancelled");
	inv0 = dev_ctr(&self->dev, "svm_invalidations");
	ASSERT_NE(~0ull, mapped0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct vgpu_dev dev;
		struct vgpu_cmd cmd;
		uint64_t *a = anon(size + PAGE);

		if (!a || vgpu_open(&dev) ||
		    mirror(&dev, a, size + PAGE, VGPU_MAP_RW))
			_exit(1);
		vgpu_cmd_init(&cmd);
		vgpu_cmd_fill(&cmd, (uintptr_t)a, size, 0x12345678);
		/* The page past the fill stays 0. */
		vgpu_cmd_wait(&cmd, (uintptr_t)a + size, 1);
		if (vgpu_submit(&dev, 0, &cmd, NULL, 0, 0))
			_exit(2);
		/* Wait until the fill is done and the job is WAITING. */
		for (i = 0; i < 1000 && a[size / 8 - 1] != 0x1234567812345678ull; i++)
			usleep(10 * 1000);
		_exit(i < 1000 ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	for (i = 0; i < 300; i++) {
		mapped = dev_ctr(&self->dev, "svm_pages_mapped") - mapped0;
		unmapped = dev_ctr(&self->dev, "svm_pages_unmapped") - unmapped0;
		cancelled = dev_ctr(&self->dev, "faults_cancelled") - cancelled0;
		if (mapped == unmapped && cancelled)
			break;
		usleep(100 * 1000);
	}
	EXPECT_LE(size / PAGE, mapped);
	EXPECT_EQ(mapped, unmapped);
	EXPECT_EQ(1, cancelled);
	EXPECT_EQ(inv0 + 1, dev_ctr(&self->dev, "svm_invalidations"));
}

/* ------------------------------------------ migration into VRAM --- */

/*
 * The CPU writes, the GPU reads (the pages migrate into VRAM), the GPU
 * writes them in VRAM, checksums them there, and the CPU reads them back
 * (migrate_to_ram): data intact both ways, bytes counted both ways.
 */
TEST_F_TIMEOUT(svm, migrate_to_vram_and_back, 300)
{
	uint64_t size = 8 * MiB, i, *p = anon(size), *sum = anon(PAGE);
	uint64_t to_vram, to_sys, want;

	if (!svm_vram(&self->dev))
		SKIP(return, NO_VRAM_MODE);
	ASSERT_TRUE(p && sum);
	for (i = 0; i < size / 8; i++)
		p[i] = pattern(21, i);
	want = vgpu_fnv1a64(p, size);
	to_vram = ctr(&self->dev, "migrated-to-vram");
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	ASSERT_EQ(0, mirror(&self->dev, p, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, sum, PAGE, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	/* The CPU's read of the sum brings its page back, not the data. */
	EXPECT_EQ(want, *sum);
	EXPECT_LE(to_vram + size, ctr(&self->dev, "migrated-to-vram"));

	ASSERT_EQ(0, gpu_fill(&self->dev, p, size, 0x3c3c3c3c));
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	want = *sum;
	/* No CPU access to p yet: nothing of it went back. */
	EXPECT_GT(to_sys + size, dev_ctr(&self->dev, "bytes_to_system"));
	EXPECT_TRUE(count_u32(p, size, 0x3c3c3c3c));
	EXPECT_EQ(want, vgpu_fnv1a64(p, size));
	EXPECT_LE(to_sys + size, dev_ctr(&self->dev, "bytes_to_system"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	ASSERT_EQ(0, unmirror(&self->dev, p, size));
	ASSERT_EQ(0, unmirror(&self->dev, sum, PAGE));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
	munmap(p, size);
}

struct cpu_reader {
	const uint64_t *p;
	uint64_t size;
	volatile int stop;
	unsigned int rounds, bad;
};

/* Read one word of each 64 KiB again and again: each read migrates back. */
static void *cpu_read(void *arg)
{
	struct cpu_reader *r = arg;
	uint64_t i;

	while (!r->stop) {
		for (i = 0; i < r->size / 8; i += 8192)
			if (r->p[i] != pattern(23, i))
				r->bad++;
		r->rounds++;
		usleep(2000);
	}
	return NULL;
}

/*
 * A CPU thread keeps reading the source while the GPU copies it: each
 * read takes its block back to system memory under the GPU's feet, the
 * GPU's next access faults it back into VRAM; every copy is right.
 */
TEST_F_TIMEOUT(svm, cpu_touch_during_gpu_use, 300)
{
	uint64_t size = 4 * MiB, i, to_sys;
	uint64_t *src = anon(size), *dst = anon(size);
	struct cpu_reader r = { .size = size };
	pthread_t th;
	int n;

	if (!svm_vram(&self->dev))
		SKIP(return, NO_VRAM_MODE);
	ASSERT_TRUE(src && dst);
	for (i = 0; i < size / 8; i++)
		src[i] = pattern(23, i);
	ASSERT_EQ(0, mirror(&self->dev, src, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, dst, size, VGPU_MAP_RW));
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	r.p = src;
	ASSERT_EQ(0, pthread_create(&th, NULL, cpu_read, &r));
	for (n = 0; n < 10; n++) {
		memset(dst, 0, size);
		ASSERT_EQ(0, gpu_copy(&self->dev, src, dst, size)) TH_LOG("copy %d", n);
		ASSERT_EQ(0, memcmp(src, dst, size)) TH_LOG("copy %d", n);
	}
	r.stop = 1;
	pthread_join(th, NULL);
	EXPECT_LT(0, r.rounds);
	EXPECT_EQ(0, r.bad);
	/* dst went back for every memcmp, src for the reader. */
	EXPECT_LE(to_sys + 10 * size, dev_ctr(&self->dev, "bytes_to_system"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/* fork with the pages in VRAM: parent and child keep their own data. */
TEST_F_TIMEOUT(svm, fork_after_migration, 120)
{
	uint64_t size = 2 * MiB, to_vram;
	uint32_t *a = anon(size);
	int status;
	pid_t pid;

	if (!svm_vram(&self->dev))
		SKIP(return, NO_VRAM_MODE);
	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	to_vram = ctr(&self->dev, "migrated-to-vram");
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0xabababab));
	EXPECT_LE(to_vram + size, ctr(&self->dev, "migrated-to-vram"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The child reads the device pages it shares, then writes. */
		if (!count_u32(a, size, 0xabababab))
			_exit(11);
		memset(a, 0xcd, size);
		_exit(count_u32(a, size, 0xcdcdcdcd) ? 0 : 12);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The child's write is not ours; the GPU writes ours again. */
	EXPECT_TRUE(count_u32(a, size, 0xabababab));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0xefefefef));
	EXPECT_TRUE(count_u32(a, size, 0xefefefef));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * A process exits with its pages in VRAM: they are freed, not copied
 * back, and the VRAM goes back to the pool.
 */
TEST_F_TIMEOUT(svm, exit_with_pages_in_vram, 120)
{
	uint64_t size = 16 * MiB, used0, used = 0, to_sys;
	int status, i;
	pid_t pid;

	if (!svm_vram(&self->dev))
		SKIP(return, NO_VRAM_MODE);
	used0 = sysfs_u64(&self->dev, "vram_used");
	ASSERT_NE(~0ull, used0);
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct vgpu_dev dev;
		void *a = anon(size);

		if (!a || vgpu_open(&dev) || mirror(&dev, a, size, VGPU_MAP_RW) ||
		    gpu_fill(&dev, a, size, 0x5e5e5e5e))
			_exit(1);
		if (sysfs_u64(&dev, "vram_used") < used0 + size)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	for (i = 0; i < 100; i++) {
		used = sysfs_u64(&self->dev, "vram_used");
		if (used <= used0)
			break;
		usleep(50 * 1000);
	}
	EXPECT_EQ(used0, used);
	EXPECT_EQ(to_sys, dev_ctr(&self->dev, "bytes_to_system"));
}

/*
 * munmap while the mirror is bound and its pages are in VRAM: the pages
 * are freed, not copied back, and their VRAM goes back to the pool.
 */
TEST_F_TIMEOUT(svm, munmap_frees_vram_without_a_copy, 120)
{
	uint64_t size = 8 * MiB, used0, used, to_sys;
	char *a = anon(size);
	int i;

	if (!svm_vram(&self->dev))
		SKIP(return, NO_VRAM_MODE);
	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	used0 = sysfs_u64(&self->dev, "vram_used");
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x4d4d4d4d));
	EXPECT_LE(used0 + size, sysfs_u64(&self->dev, "vram_used"));
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	ASSERT_EQ(0, munmap(a, size));
	/* The blocks go back from a worker, one by one: give it a moment. */
	for (i = 0, used = sysfs_u64(&self->dev, "vram_used"); i < 100 && used >= used0 + MiB;
	     i++, used = sysfs_u64(&self->dev, "vram_used"))
		usleep(50 * 1000);
	/* What may be left is the mirror's page tables. */
	EXPECT_GT(used0 + MiB, used);
	EXPECT_EQ(to_sys, dev_ctr(&self->dev, "bytes_to_system"));
	ASSERT_EQ(0, unmirror(&self->dev, a, size));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * Hints belong to the VA range: unmapping the mirror drops them, and a
 * new mirror at the same address migrates as if never advised.
 */
TEST_F_TIMEOUT(svm, advice_goes_with_the_mirror, 120)
{
	uint64_t size = 2 * MiB, to_vram, remote;
	char *a = anon(size);

	if (!svm_vram(&self->dev))
		SKIP(return, NO_VRAM_MODE);
	ASSERT_TRUE(a != NULL);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)a, size,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
				 VGPU_PLACE_SYSTEM));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)a, size,
				 DRM_VGPU_ADVICE_ACCESSED_BY, DRM_VGPU_ACCESSOR_GPU));
	to_vram = vm_to_vram(&self->dev);
	remote = ctr(&self->dev, "remote-maps");
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x51515151));
	EXPECT_EQ(to_vram, vm_to_vram(&self->dev));
	EXPECT_LT(remote, ctr(&self->dev, "remote-maps"));

	/* Unmapped and mirrored again: no hint is left. */
	ASSERT_EQ(0, unmirror(&self->dev, a, size));
	EXPECT_EQ(-ENOENT, vgpu_advise(&self->dev, (uintptr_t)a, size,
				       DRM_VGPU_ADVICE_READ_MOSTLY, 1));
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	remote = ctr(&self->dev, "remote-maps");
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x52525252));
	EXPECT_EQ(to_vram + size, vm_to_vram(&self->dev));
	EXPECT_EQ(remote, ctr(&self->dev, "remote-maps"));
	EXPECT_TRUE(count_u32(a, size, 0x52525252));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * A regular file (on ramfs: page cache that is not shmem, unlike the
 * memfd above): a shared mapping's GPU writes reach the file; a private
 * one's are the process's own (copy on write) and leave the file as it
 * was, while the GPU reads the file's data through both.
 */
TEST_F(svm, file_mappings_shared_and_private)
{
	uint64_t size = 512 * 1024, i;
	char dir[] = "/tmp/vgpu-svm-XXXXXX", path[64];
	uint32_t *data = anon(size), *back = anon(size), *copy = anon(size);
	uint32_t *sh, *pv;
	int fd, ramfs;

	ASSERT_TRUE(data && back && copy);
	ASSERT_NE(NULL, mkdtemp(dir));
	/* As root (the guest), a ramfs; else whatever /tmp is. */
	ramfs = !mount("vgpu-svm", dir, "ramfs", 0, NULL);
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	for (i = 0; i < size / 4; i++)
		data[i] = (uint32_t)pattern(41, i);
	ASSERT_EQ((ssize_t)size, pwrite(fd, data, size, 0));
	sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pv = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_NE(MAP_FAILED, pv);
	ASSERT_EQ(0, mirror(&self->dev, sh, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, pv, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, copy, size, VGPU_MAP_RW));

	/* The GPU reads the file through the private mapping. */
	ASSERT_EQ(0, gpu_copy(&self->dev, pv, copy, size));
	EXPECT_EQ(0, memcmp(copy, data, size));
	/* Its writes there are the process's, not the file's. */
	ASSERT_EQ(0, gpu_fill(&self->dev, pv, size, 0x2a2a2a2a));
	EXPECT_TRUE(count_u32(pv, size, 0x2a2a2a2a));
	ASSERT_EQ((ssize_t)size, pread(fd, back, size, 0));
	EXPECT_EQ(0, memcmp(back, data, size));
	EXPECT_EQ(0, memcmp(sh, data, size));
	/* Through the shared mapping they reach the file. */
	ASSERT_EQ(0, gpu_fill(&self->dev, sh, size, 0x2b2b2b2b));
	ASSERT_EQ(0, msync(sh, size, MS_SYNC));
	ASSERT_EQ((ssize_t)size, pread(fd, back, size, 0));
	EXPECT_TRUE(count_u32(back, size, 0x2b2b2b2b));
	/* The private copy kept its own data. */
	EXPECT_TRUE(count_u32(pv, size, 0x2a2a2a2a));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));

	ASSERT_EQ(0, unmirror(&self->dev, sh, size));
	ASSERT_EQ(0, unmirror(&self->dev, pv, size));
	munmap(sh, size);
	munmap(pv, size);
	close(fd);
	unlink(path);
	if (ramfs)
		umount(dir);
	rmdir(dir);
}

/*
 * PREFETCH on a mirror: VRAM migrates it (VRAM mode; system mode moves
 * nothing) and, in both modes, maps it, so that the GPU's reads do not
 * fault; SYSTEM brings it back.  The bytes are counted where QUERY_PAGING
 * and fdinfo show them.
 */
TEST_F_TIMEOUT(svm, prefetch_mirror, 300)
{
	uint64_t size = 4 * MiB, i, *p = anon(size), *sum = anon(PAGE);
	uint64_t moved = ~0ull, to_vram, pf, to_sys, faults, mapped, want;
	int vram = svm_vram(&self->dev);

	ASSERT_TRUE(p && sum);
	for (i = 0; i < size / 8; i++)
		p[i] = pattern(31, i);
	want = vgpu_fnv1a64(p, size);
	ASSERT_EQ(0, mirror(&self->dev, p, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, sum, PAGE, VGPU_MAP_RW));
	to_vram = vm_to_vram(&self->dev);
	pf = ctr(&self->dev, "prefetch-bytes");
	mapped = ctr(&self->dev, "svm-pages-mapped");
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, (uintptr_t)p, size,
				   VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(vram ? size : 0, moved);
	EXPECT_EQ(to_vram + moved, vm_to_vram(&self->dev));
	EXPECT_EQ(pf + moved, ctr(&self->dev, "prefetch-bytes"));
	EXPECT_EQ(mapped + size / PAGE, ctr(&self->dev, "svm-pages-mapped"));

	/* Mapped already: only the sum's page faults. */
	faults = ctr(&self->dev, "svm-faults");
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	EXPECT_GT(faults + 2, ctr(&self->dev, "svm-faults"));
	EXPECT_EQ(want, *sum);

	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, (uintptr_t)p, size,
				   VGPU_PLACE_SYSTEM, &moved));
	EXPECT_EQ(vram ? size : 0, moved);
	EXPECT_LE(to_sys + moved, dev_ctr(&self->dev, "bytes_to_system"));
	faults = ctr(&self->dev, "svm-faults");
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	EXPECT_GT(faults + 2, ctr(&self->dev, "svm-faults"));
	EXPECT_EQ(want, *sum);
	EXPECT_EQ(want, vgpu_fnv1a64(p, size));

	/* Hostile: a range not all mapped, a bad placement. */
	EXPECT_EQ(-ENOENT, vgpu_prefetch(&self->dev, (uintptr_t)p, size + 64 * MiB,
					 VGPU_PLACE_VRAM, NULL));
	EXPECT_EQ(-EINVAL, vgpu_prefetch(&self->dev, (uintptr_t)p, size,
					 VGPU_PLACE_VRAM | VGPU_PLACE_SYSTEM, NULL));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * ADVISE PREFERRED_PLACEMENT system on a mirror: GPU faults leave the
 * pages in system memory, pages already in VRAM come back at once; the
 * advice VRAM lifts it and moves the range in at once.  In system mode
 * nothing moves either way.
 */
TEST_F_TIMEOUT(svm, advise_system_keeps_mirror_in_system_memory, 300)
{
	uint64_t size = 2 * MiB, to_vram, to_sys, faults;
	char *a, *b;
	int vram = svm_vram(&self->dev);

	ASSERT_EQ(0, anon_pair(&self->dev, size, &a, &b));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)a, size,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
				 VGPU_PLACE_SYSTEM));
	to_vram = vm_to_vram(&self->dev);
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x61616161));
	EXPECT_EQ(to_vram, vm_to_vram(&self->dev));
	EXPECT_TRUE(count_u32(a, size, 0x61616161));

	/*
	 * VRAM preferred: the range moves in now, as PREFETCH moves it
	 * (where the kernel can), and is mapped: the GPU's read does not
	 * fault.  The CPU's read brings it back; the next GPU fault
	 * migrates again.
	 */
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)a, size,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
				 VGPU_PLACE_VRAM));
	EXPECT_EQ(to_vram + (vram ? size : 0), vm_to_vram(&self->dev));
	faults = ctr(&self->dev, "svm-faults");
	ASSERT_EQ(0, gpu_copy(&self->dev, a, b, size));
	EXPECT_GT(faults + 2, ctr(&self->dev, "svm-faults"));
	EXPECT_TRUE(count_u32(a, size, 0x61616161));
	EXPECT_TRUE(count_u32(b, size, 0x61616161));
	ASSERT_EQ(0, madvise(a, size, MADV_DONTNEED));
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x62626262));
	EXPECT_EQ(to_vram + (vram ? 3 * size : 0), vm_to_vram(&self->dev));

	/* b in VRAM, then advised system: it comes back now, not at a read. */
	ASSERT_EQ(0, gpu_fill(&self->dev, b, size, 0x63636363));
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)b, size,
				 DRM_VGPU_ADVICE_PREFERRED_PLACEMENT,
				 VGPU_PLACE_SYSTEM));
	EXPECT_EQ(to_sys + (vram ? size : 0), dev_ctr(&self->dev, "bytes_to_system"));
	EXPECT_TRUE(count_u32(b, size, 0x63636363));
	EXPECT_EQ(to_sys + (vram ? size : 0), dev_ctr(&self->dev, "bytes_to_system"));
	EXPECT_TRUE(count_u32(a, size, 0x62626262));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/* A page for GPU results that ADVISE keeps in system memory. */
static uint64_t *sum_page(struct vgpu_dev *dev)
{
	uint64_t *sum = anon(PAGE);

	if (!sum || mirror(dev, sum, PAGE, VGPU_MAP_RW) ||
	    vgpu_advise(dev, (uintptr_t)sum, PAGE,
			DRM_VGPU_ADVICE_PREFERRED_PLACEMENT, VGPU_PLACE_SYSTEM))
		return NULL;
	return sum;
}

/* A counter of fdinfo once it stopped moving for 200 ms (10 s at most). */
static uint64_t settled(struct vgpu_dev *dev, const char *key)
{
	uint64_t v = ctr(dev, key), last = ~0ull;
	int i;

	for (i = 0; i < 50 && v != last; i++) {
		usleep(200 * 1000);
		last = v;
		v = ctr(dev, key);
	}
	return v;
}

/*
 * ADVISE ACCESSED_BY the GPU on a mirror: GPU reads and writes map the
 * pages where they are and never migrate them; PREFETCH still moves
 * them, and a CPU touch brings them back, after which the driver maps
 * them again in system memory: the GPU's next reads do not fault.  In
 * system mode nothing moves either way.
 */
TEST_F_TIMEOUT(svm, accessed_by_maps_in_place, 300)
{
	uint64_t size = 2 * MiB, to_vram, to_sys, remote, moved = ~0ull;
	uint64_t *sum = sum_page(&self->dev), want, remaps, faults;
	int vram = svm_vram(&self->dev);
	char *a = anon(size), *b = anon(size);

	ASSERT_TRUE(a && b && sum);
	ASSERT_EQ(0, mirror(&self->dev, a, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, b, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)a, size,
				 DRM_VGPU_ADVICE_ACCESSED_BY, DRM_VGPU_ACCESSOR_GPU));
	to_vram = vm_to_vram(&self->dev);
	remote = ctr(&self->dev, "remote-maps");
	ASSERT_EQ(0, gpu_fill(&self->dev, a, size, 0x71717171));
	EXPECT_EQ(to_vram, vm_to_vram(&self->dev));
	if (vram)
		EXPECT_LT(remote, ctr(&self->dev, "remote-maps"));
	EXPECT_TRUE(count_u32(a, size, 0x71717171));

	/*
	 * PREFETCH moves it all the same; a CPU touch brings it back, and
	 * the driver maps it again where it is then (VRAM mode).
	 */
	ASSERT_EQ(0, vgpu_prefetch(&self->dev, (uintptr_t)a, size,
				   VGPU_PLACE_VRAM, &moved));
	EXPECT_EQ(vram ? size : 0, moved);
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	remaps = ctr(&self->dev, "svm-remaps");
	EXPECT_TRUE(count_u32(a, size, 0x71717171));
	EXPECT_EQ(to_sys + (vram ? size : 0), dev_ctr(&self->dev, "bytes_to_system"));
	if (vram)
		EXPECT_LT(remaps, settled(&self->dev, "svm-remaps"));
	/* The GPU reads it where it is now: no fault, nothing moves in. */
	to_vram = vm_to_vram(&self->dev);
	want = vgpu_fnv1a64(a, size);
	ASSERT_EQ(0, gpu_checksum(&self->dev, sum, PAGE, sum));
	faults = ctr(&self->dev, "svm-faults");
	ASSERT_EQ(0, gpu_checksum(&self->dev, a, size, sum));
	EXPECT_EQ(want, *sum);
	EXPECT_EQ(to_vram, vm_to_vram(&self->dev));
	if (vram)
		EXPECT_EQ(faults, ctr(&self->dev, "svm-faults"));

	/* Set and cleared: the GPU's first write migrates (VRAM mode). */
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)b, size,
				 DRM_VGPU_ADVICE_ACCESSED_BY, DRM_VGPU_ACCESSOR_GPU));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)b, size,
				 DRM_VGPU_ADVICE_ACCESSED_BY, 0));
	ASSERT_EQ(0, gpu_fill(&self->dev, b, size, 0x72727272));
	EXPECT_EQ(to_vram + (vram ? size : 0), vm_to_vram(&self->dev));
	EXPECT_TRUE(count_u32(b, size, 0x72727272));
	/* Hostile: an accessor vgpu does not know. */
	EXPECT_EQ(-EINVAL, vgpu_advise(&self->dev, (uintptr_t)a, size,
				       DRM_VGPU_ADVICE_ACCESSED_BY, 1ull << 40));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * ADVISE READ_MOSTLY on a mirror: one copy, kept where both sides read
 * it.  GPU reads use the system pages; a GPU write migrates them (VRAM
 * mode), a CPU read brings them back, and the GPU's next reads leave them
 * there.  Cleared, the GPU's first read migrates again.
 */
TEST_F_TIMEOUT(svm, read_mostly_reads_in_place, 300)
{
	uint64_t size = 2 * MiB, i, to_vram, to_sys, *p = anon(size);
	uint64_t *sum = sum_page(&self->dev), *q = anon(size), want;
	int vram = svm_vram(&self->dev);

	ASSERT_TRUE(p && q && sum);
	for (i = 0; i < size / 8; i++) {
		p[i] = pattern(41, i);
		q[i] = pattern(43, i);
	}
	want = vgpu_fnv1a64(p, size);
	ASSERT_EQ(0, mirror(&self->dev, p, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, q, size, VGPU_MAP_RW));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)p, size,
				 DRM_VGPU_ADVICE_READ_MOSTLY, 1));
	to_vram = vm_to_vram(&self->dev);
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	EXPECT_EQ(want, *sum);
	EXPECT_EQ(to_vram, vm_to_vram(&self->dev));
	EXPECT_EQ(want, vgpu_fnv1a64(p, size));

	/* A GPU write migrates; a CPU read brings it back. */
	ASSERT_EQ(0, gpu_fill(&self->dev, p, size, 0x73737373));
	EXPECT_EQ(to_vram + (vram ? size : 0), vm_to_vram(&self->dev));
	to_sys = dev_ctr(&self->dev, "bytes_to_system");
	EXPECT_TRUE(count_u32(p, size, 0x73737373));
	EXPECT_EQ(to_sys + (vram ? size : 0), dev_ctr(&self->dev, "bytes_to_system"));
	/* The next GPU reads leave it in system memory. */
	to_vram = vm_to_vram(&self->dev);
	want = vgpu_fnv1a64(p, size);
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	EXPECT_EQ(want, *sum);
	EXPECT_EQ(to_vram, vm_to_vram(&self->dev));

	/* Set and cleared: a read migrates as without advice. */
	want = vgpu_fnv1a64(q, size);
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)q, size,
				 DRM_VGPU_ADVICE_READ_MOSTLY, 1));
	ASSERT_EQ(0, vgpu_advise(&self->dev, (uintptr_t)q, size,
				 DRM_VGPU_ADVICE_READ_MOSTLY, 0));
	ASSERT_EQ(0, gpu_checksum(&self->dev, q, size, sum));
	EXPECT_EQ(want, *sum);
	EXPECT_EQ(to_vram + (vram ? size : 0), vm_to_vram(&self->dev));
	/* Hostile: a value READ_MOSTLY does not take. */
	EXPECT_EQ(-EINVAL, vgpu_advise(&self->dev, (uintptr_t)p, size,
				       DRM_VGPU_ADVICE_READ_MOSTLY, 2));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
}

/*
 * Four times VRAM of process memory, through one mirror; where it
 * migrates, the pool evicts it to make room as it goes, and the
 * evictions are charged to the VM.
 */
TEST_F_TIMEOUT(svm, four_times_vram_checksum, 900)
{
	uint64_t vram, size, i, *sum = anon(PAGE), *p, fnv_of_pattern;
	uint64_t to_vram = ctr(&self->dev, "migrated-to-vram");
	uint64_t evicted = dev_ctr(&self->dev, "pool_evictions_svm");
	uint64_t vm_evicted = ctr(&self->dev, "evictions");

	ASSERT_EQ(0, vgpu_get_param(&self->dev, DRM_VGPU_PARAM_VRAM_SIZE, &vram));
	size = 4 * vram;
	p = anon(size);
	ASSERT_TRUE(p && sum);
	for (i = 0; i < size / 8; i++)
		p[i] = pattern(11, i);
	ASSERT_EQ(0, mirror(&self->dev, p, size, VGPU_MAP_RW));
	ASSERT_EQ(0, mirror(&self->dev, sum, PAGE, VGPU_MAP_RW));
	ASSERT_EQ(0, gpu_checksum(&self->dev, p, size, sum));
	EXPECT_EQ(vgpu_fnv1a64(p, size), *sum);
	fnv_of_pattern = vgpu_fnv1a64(p + (vram + 4 * MiB) / 8, size - vram - 4 * MiB);
	EXPECT_LE(size / PAGE, ctr(&self->dev, "svm-pages-mapped"));
	if (svm_vram(&self->dev)) {
		EXPECT_LE(to_vram + size, ctr(&self->dev, "migrated-to-vram"));
		EXPECT_LE(evicted + (size - vram) / (2 * MiB),
			  dev_ctr(&self->dev, "pool_evictions_svm"));
		/* Charged to this VM, which filled the blocks. */
		EXPECT_LE(vm_evicted + (size - vram) / (2 * MiB),
			  ctr(&self->dev, "evictions"));
	}

	/*
	 * And written by the GPU, more than VRAM of it (not all four times:
	 * minutes more on the debug kernel), read back by the CPU.
	 */
	ASSERT_EQ(0, gpu_fill(&self->dev, p, vram + 4 * MiB, 0x0f0f0f0f));
	EXPECT_TRUE(count_u32(p, vram + 4 * MiB, 0x0f0f0f0f));
	EXPECT_EQ(vgpu_fnv1a64(p + (vram + 4 * MiB) / 8, size - vram - 4 * MiB),
		  fnv_of_pattern);
	ASSERT_EQ(0, vgpu_vm_unmap(&self->dev, (uintptr_t)p, size));
	ASSERT_EQ(0, unmirror(&self->dev, sum, PAGE));
	EXPECT_EQ(ctr(&self->dev, "svm-pages-mapped"),
		  ctr(&self->dev, "svm-pages-unmapped"));
	EXPECT_EQ(0, ctr(&self->dev, "faults-cancelled"));
	munmap(p, size);
}


TEST_HARNESS_MAIN
