// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DRM_IOCTL_VERSION and DRM_IOCTL_VGPU_GET_PARAM: values against what QEMU
 * was given, and every refused argument.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "vgpu_test.h"
#include "vgpu_hw.h"

FIXTURE(param) {
	int fd;
};

FIXTURE_SETUP(param)
{
	self->fd = vgpu_test_open();
	if (self->fd < 0)
		SKIP(return, "no vgpu render node");
}

FIXTURE_TEARDOWN(param)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vgpu_get_param gp = { .param = param };
	int ret = ioctl(fd, DRM_IOCTL_VGPU_GET_PARAM, &gp);

	*value = gp.value;
	return ret;
}

TEST_F(param, version_name_is_vgpu)
{
	drmVersionPtr v = drmGetVersion(self->fd);

	ASSERT_NE(NULL, v);
	EXPECT_STREQ("vgpu", v->name);
	EXPECT_EQ(0, v->version_major);
	drmFreeVersion(v);
}

TEST_F(param, vram_size_matches_qemu)
{
	uint64_t expect = vgpu_test_env_u64("VGPU_VRAM_SIZE");
	uint64_t v;

	ASSERT_NE(0, expect) TH_LOG("launcher did not pass VGPU_VRAM_SIZE");
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_VRAM_SIZE, &v));
	EXPECT_EQ(expect, v);
}

TEST_F(param, visible_size_matches_qemu)
{
	uint64_t expect = vgpu_test_env_u64("VGPU_VISIBLE_SIZE");
	uint64_t v;

	ASSERT_NE(0, expect);
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE, &v));
	EXPECT_EQ(expect, v);
}

TEST_F(param, geometry)
{
	uint64_t v;

	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_HW_VERSION, &v));
	EXPECT_EQ(1, v >> 16);
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_NUM_QUEUES, &v));
	EXPECT_EQ(8, v);
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_NUM_CONTEXTS, &v));
	EXPECT_EQ(16, v);
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_VA_BITS, &v));
	EXPECT_EQ(48, v);
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_PAGE_SIZES, &v));
	EXPECT_NE(0, v & 4096);
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_PCI_ID, &v));
	EXPECT_EQ(0x1b360120, v);
}

TEST_F(param, unknown_param_einval)
{
	struct drm_vgpu_get_param gp = { .param = 0x7fffffff, .value = 42 };

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp));
	EXPECT_EQ(42, gp.value);
}

TEST_F(param, nonzero_flags_einval)
{
	struct drm_vgpu_get_param gp = {
		.param = DRM_VGPU_PARAM_VRAM_SIZE, .flags = 1,
	};

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp));
	gp.flags = 0x80000000u;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp));
}

TEST_F(param, nonzero_pad_einval)
{
	struct drm_vgpu_get_param gp = {
		.param = DRM_VGPU_PARAM_VRAM_SIZE, .pad = 1,
	};

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp));
}

TEST_F(param, null_pointer_efault)
{
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, DRM_IOCTL_VGPU_GET_PARAM, NULL));
}

TEST_F(param, bad_pointer_efault)
{
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, DRM_IOCTL_VGPU_GET_PARAM,
				   (void *)16));
}

TEST_F(param, unknown_driver_ioctl_einval)
{
	struct drm_vgpu_get_param gp = { 0 };
	unsigned long nr = DRM_IOWR(DRM_COMMAND_BASE + 0x3f,
				    struct drm_vgpu_get_param);

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, nr, &gp));
}

TEST_F(param, every_param_answers)
{
	uint64_t v;
	uint32_t p;

	for (p = DRM_VGPU_PARAM_HW_VERSION; p <= DRM_VGPU_PARAM_LANES; p++)
		EXPECT_EQ(0, get_param(self->fd, p, &v)) TH_LOG("param %u", p);
	EXPECT_ERRNO(EINVAL, get_param(self->fd, DRM_VGPU_PARAM_LANES + 1, &v));
}

/* The lanes an access kernel runs as: the device's register, 1..256. */
TEST_F(param, lanes_match_the_device)
{
	uint64_t caps, lanes;

	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_CAPS, &caps));
	ASSERT_EQ(0, get_param(self->fd, DRM_VGPU_PARAM_LANES, &lanes));
	ASSERT_TRUE(caps & VGPU_CAPS_LANES);
	EXPECT_GE(lanes, 1);
	EXPECT_LE(lanes, VGPU_LANES_MAX);
}

TEST_HARNESS_MAIN
