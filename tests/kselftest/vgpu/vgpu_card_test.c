// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The primary node (/dev/dri/card<N>) beside the render node: the same
 * device; master and authentication as the DRM core gives any driver
 * (first opener is master, SET_MASTER/DROP_MASTER, AUTH_MAGIC needs the
 * master), all of vgpu's ioctls (DRM_RENDER_ALLOW, no DRM_AUTH) work for a
 * file that is neither master nor authenticated, KMS ioctls fail with
 * EOPNOTSUPP (no DRIVER_MODESET), and the render node refuses the master
 * ioctls.  Run as root (CAP_SYS_ADMIN), as in the test guest; one test
 * gives it up.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <sys/ioctl.h>

#include <drm_mode.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "libvgpu.h"
#include "vgpu_test_buf.h"

#define SEC 1000000000ll

FIXTURE(card) {
	int card;	/* the first opener of the primary node */
	int render;
};

FIXTURE_SETUP(card)
{
	self->render = -1;
	self->card = vgpu_test_open_node(DRM_NODE_PRIMARY);
	if (self->card < 0)
		SKIP(return, "no vgpu primary node");
	self->render = vgpu_test_open_node(DRM_NODE_RENDER);
	ASSERT_LE(0, self->render) TH_LOG("a primary node but no render node");
}

FIXTURE_TEARDOWN(card)
{
	if (self->card >= 0)
		close(self->card);
	if (self->render >= 0)
		close(self->render);
}

/* Another file of the primary node, opened while self->card is master. */
static int open_card_again(int card)
{
	drmDevicePtr d;
	int fd;

	if (drmGetDevice2(card, 0, &d))
		return -1;
	fd = open(d->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
	drmFreeDevice(&d);
	return fd;
}

/* Fill a BO through the GPU on @fd; returns the VM's jobs_completed. */
static int run_fill(struct __test_metadata *_metadata, int fd)
{
	struct drm_vgpu_query_vm vm;
	struct vgpu_dev dev;
	struct vgpu_cmd cmd;
	struct buf b;
	size_t i, bad = 0;
	uint32_t *p;

	ASSERT_EQ(0, vgpu_open_fd(&dev, fd));
	ASSERT_EQ(0, buf_create(&dev, &b, 64 << 10, VGPU_PLACE_SYSTEM,
				1ull << 32, VGPU_MAP_RW));
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, b.va, b.size, 0x5ca1ab1e);
	ASSERT_EQ(0, vgpu_run(&dev, 0, &cmd, 30 * SEC));
	vgpu_cmd_fini(&cmd);
	p = b.cpu;
	for (i = 0; i < b.size / 4; i++)
		bad += p[i] != 0x5ca1ab1e;
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, vgpu_query_vm(&dev, &vm));
	buf_destroy(&dev, &b);
	return vm.jobs_completed;	/* the caller closes @fd */
}

TEST_F(card, same_device_as_render_node)
{
	drmDevicePtr a, b;
	drmVersionPtr v;

	ASSERT_EQ(0, drmGetDevice2(self->card, 0, &a));
	ASSERT_EQ(0, drmGetDevice2(self->render, 0, &b));
	EXPECT_TRUE(drmDevicesEqual(a, b));
	EXPECT_TRUE(a->available_nodes & (1 << DRM_NODE_PRIMARY));
	EXPECT_TRUE(a->available_nodes & (1 << DRM_NODE_RENDER));
	drmFreeDevice(&a);
	drmFreeDevice(&b);
	EXPECT_EQ(DRM_NODE_PRIMARY, drmGetNodeTypeFromFd(self->card));
	EXPECT_EQ(DRM_NODE_RENDER, drmGetNodeTypeFromFd(self->render));
	v = drmGetVersion(self->card);
	ASSERT_NE(NULL, v);
	EXPECT_STREQ("vgpu", v->name);
	drmFreeVersion(v);
}

TEST_F(card, first_opener_is_master)
{
	EXPECT_EQ(0, ioctl(self->card, DRM_IOCTL_DROP_MASTER, 0));
	/* No longer master: dropping again is refused. */
	EXPECT_ERRNO(EINVAL, ioctl(self->card, DRM_IOCTL_DROP_MASTER, 0));
	EXPECT_EQ(0, ioctl(self->card, DRM_IOCTL_SET_MASTER, 0));
	/* Setting it while master is a no-op. */
	EXPECT_EQ(0, ioctl(self->card, DRM_IOCTL_SET_MASTER, 0));
}

TEST_F(card, one_master_at_a_time)
{
	int other = open_card_again(self->card);

	ASSERT_LE(0, other);
	EXPECT_ERRNO(EBUSY, ioctl(other, DRM_IOCTL_SET_MASTER, 0));
	EXPECT_ERRNO(EINVAL, ioctl(other, DRM_IOCTL_DROP_MASTER, 0));
	ASSERT_EQ(0, ioctl(self->card, DRM_IOCTL_DROP_MASTER, 0));
	EXPECT_EQ(0, ioctl(other, DRM_IOCTL_SET_MASTER, 0));
	EXPECT_ERRNO(EBUSY, ioctl(self->card, DRM_IOCTL_SET_MASTER, 0));
	close(other);
	/* The master's close leaves the device without one. */
	EXPECT_EQ(0, ioctl(self->card, DRM_IOCTL_SET_MASTER, 0));
}

/* Without CAP_SYS_ADMIN only a file that was master, in its opener, may
 * set master again.
 */
TEST_F(card, set_master_without_cap_sys_admin)
{
	int other = open_card_again(self->card);

	ASSERT_LE(0, other);
	ASSERT_EQ(0, ioctl(self->card, DRM_IOCTL_DROP_MASTER, 0));
	ASSERT_EQ(0, setuid(65534));
	EXPECT_ERRNO(EACCES, ioctl(other, DRM_IOCTL_SET_MASTER, 0));
	EXPECT_EQ(0, ioctl(self->card, DRM_IOCTL_SET_MASTER, 0));
	EXPECT_EQ(0, ioctl(self->card, DRM_IOCTL_DROP_MASTER, 0));
	close(other);
}

TEST_F(card, auth_magic_needs_the_master)
{
	int other = open_card_again(self->card);
	drm_magic_t magic;

	ASSERT_LE(0, other);
	ASSERT_EQ(0, drmGetMagic(other, &magic));
	EXPECT_ERRNO(EACCES, ioctl(other, DRM_IOCTL_AUTH_MAGIC,
				   &(struct drm_auth){ .magic = magic }));
	EXPECT_EQ(0, drmAuthMagic(self->card, magic));
	close(other);
}

/* vgpu's ioctls carry no DRM_AUTH: a file that is neither master nor
 * authenticated runs jobs on the primary node like on the render node.
 */
TEST_F(card, jobs_run_unauthenticated)
{
	int other = open_card_again(self->card);

	ASSERT_LE(0, other);
	EXPECT_ERRNO(EINVAL, ioctl(other, DRM_IOCTL_DROP_MASTER, 0));
	EXPECT_EQ(1, run_fill(_metadata, other));
	close(other);
}

TEST_F(card, master_runs_jobs)
{
	EXPECT_EQ(1, run_fill(_metadata, self->card));
}

TEST_F(card, no_kms)
{
	struct drm_mode_card_res res = { 0 };

	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->card, DRM_IOCTL_MODE_GETRESOURCES, &res));
	EXPECT_ERRNO(EACCES, ioctl(self->render, DRM_IOCTL_MODE_GETRESOURCES, &res));
}

TEST_F(card, render_node_refuses_master_ioctls)
{
	EXPECT_ERRNO(EACCES, ioctl(self->render, DRM_IOCTL_SET_MASTER, 0));
	EXPECT_ERRNO(EACCES, ioctl(self->render, DRM_IOCTL_DROP_MASTER, 0));
}

TEST_HARNESS_MAIN
