// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * PRIME: dma-buf export and import between two vgpu files and with vgem,
 * CPU and GPU access to shared BOs, refused arguments.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "vgpu_test_vgem.h"
#include "libvgpu.h"

#define SEC 1000000000ll

FIXTURE(prime) {
	struct vgpu_dev a, b;
};

FIXTURE_SETUP(prime)
{
	if (vgpu_open(&self->a))
		SKIP(return, "no vgpu render node");
	ASSERT_EQ(0, vgpu_open(&self->b));
}

FIXTURE_TEARDOWN(prime)
{
	vgpu_close(&self->a);
	vgpu_close(&self->b);
	vgem_release();
}

TEST_F(prime, self_import_same_handle)
{
	uint32_t h, h2;
	int fd;

	ASSERT_EQ(0, vgpu_bo_create(&self->a, 65536, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_bo_export(&self->a, h, &fd));
	ASSERT_EQ(0, vgpu_bo_import(&self->a, fd, &h2));
	EXPECT_EQ(h, h2);
	close(fd);
}

TEST_F(prime, share_between_files_cpu_and_gpu)
{
	uint32_t ha, hb;
	uint32_t *pa, *pb;
	struct vgpu_cmd cmd;
	int fd;

	ASSERT_EQ(0, vgpu_bo_create(&self->a, 65536, VGPU_PLACE_ALL, 0, &ha));
	ASSERT_EQ(0, vgpu_bo_map(&self->a, ha, 65536, (void **)&pa));
	pa[0] = 0x1234;
	ASSERT_EQ(0, vgpu_bo_export(&self->a, ha, &fd));
	ASSERT_EQ(0, vgpu_bo_import(&self->b, fd, &hb));
	close(fd);
	ASSERT_EQ(0, vgpu_bo_map(&self->b, hb, 65536, (void **)&pb));
	EXPECT_EQ(0x1234, pb[0]);

	/* The GPU, through the second file's VM, writes; the first sees it. */
	ASSERT_EQ(0, vgpu_vm_map(&self->b, hb, 0, 1ull << 32, 65536, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, (1ull << 32) + 4096, 4096, 0x5678);
	ASSERT_EQ(0, vgpu_run(&self->b, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
	EXPECT_EQ(0x5678, pa[1024]);
	/* Implicit sync: the importer's job fence is on the shared BO. */
	EXPECT_EQ(0, vgpu_bo_wait(&self->a, ha, SEC));
	vgpu_bo_unmap(pa, 65536);
	vgpu_bo_unmap(pb, 65536);
}

TEST_F(prime, dmabuf_mmap)
{
	uint32_t h;
	uint32_t *p, *q;
	int fd;

	ASSERT_EQ(0, vgpu_bo_create(&self->a, 65536, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_bo_map(&self->a, h, 65536, (void **)&p));
	p[7] = 0xfeed;
	ASSERT_EQ(0, vgpu_bo_export(&self->a, h, &fd));
	q = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0xfeed, q[7]);
	munmap(q, 65536);
	close(fd);
}

TEST_F(prime, import_from_vgem)
{
	struct drm_mode_create_dumb cd = { .width = 1024, .height = 16, .bpp = 32 };
	struct drm_mode_map_dumb md = { 0 };
	uint32_t *pv, *pg, h;
	struct vgpu_cmd cmd;
	int vgem, fd;

	vgem = vgem_open();
	if (vgem < 0)
		SKIP(return, "no vgem");
	ASSERT_EQ(0, drmIoctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &cd));
	md.handle = cd.handle;
	ASSERT_EQ(0, drmIoctl(vgem, DRM_IOCTL_MODE_MAP_DUMB, &md));
	pv = mmap(NULL, cd.size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem, md.offset);
	ASSERT_NE(MAP_FAILED, pv);
	pv[0] = 0xabc;
	ASSERT_EQ(0, drmPrimeHandleToFD(vgem, cd.handle, DRM_CLOEXEC | DRM_RDWR, &fd));
	ASSERT_EQ(0, vgpu_bo_import(&self->a, fd, &h));
	ASSERT_EQ(0, vgpu_bo_map(&self->a, h, cd.size, (void **)&pg));
	EXPECT_EQ(0xabc, pg[0]);

	/* The GPU reads and writes vgem's pages. */
	ASSERT_EQ(0, vgpu_vm_map(&self->a, h, 0, 1ull << 32, cd.size, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_copy(&cmd, 1ull << 32, (1ull << 32) + 4096, 4);
	ASSERT_EQ(0, vgpu_run(&self->a, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
	EXPECT_EQ(0xabc, pv[1024]);
	vgpu_bo_unmap(pg, cd.size);
	munmap(pv, cd.size);
	vgpu_vm_unmap(&self->a, 1ull << 32, cd.size);
	vgpu_bo_close(&self->a, h);
	close(fd);
	close(vgem);
}

TEST_F(prime, export_to_vgem)
{
	uint32_t h, hv, hv2;
	uint32_t *p, *q;
	int vgem, fd, fd2;

	vgem = vgem_open();
	if (vgem < 0)
		SKIP(return, "no vgem");
	ASSERT_EQ(0, vgpu_bo_create(&self->a, 65536, VGPU_PLACE_VRAM, 0, &h));
	ASSERT_EQ(0, vgpu_bo_map(&self->a, h, 65536, (void **)&p));
	p[3] = 0xbeef;
	vgpu_bo_unmap(p, 65536);
	ASSERT_EQ(0, vgpu_bo_export(&self->a, h, &fd));
	/* vgem attaches: the BO is pinned in system memory. */
	ASSERT_EQ(0, drmPrimeFDToHandle(vgem, fd, &hv));
	q = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0xbeef, q[3]);
	munmap(q, 65536);
	/* Round trip: vgem hands our own dma-buf back. */
	ASSERT_EQ(0, drmPrimeHandleToFD(vgem, hv, DRM_CLOEXEC, &fd2));
	ASSERT_EQ(0, vgpu_bo_import(&self->a, fd2, &hv2));
	EXPECT_EQ(h, hv2);
	close(fd2);
	close(fd);
	close(vgem);
}

TEST_F(prime, bad_fd_and_handle)
{
	uint32_t h;
	int fd;

	EXPECT_NE(0, vgpu_bo_import(&self->a, -1, &h));
	EXPECT_NE(0, vgpu_bo_import(&self->a, 0, &h));
	EXPECT_EQ(-ENOENT, vgpu_bo_export(&self->a, 0x7ffff, &fd));
}

TEST_HARNESS_MAIN
