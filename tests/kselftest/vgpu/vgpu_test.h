/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers shared by the vgpu kselftest suites.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_SELFTEST_H
#define VGPU_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "vgpu_drm.h"

/* Assert that EXPR fails with errno E (kselftest_harness.h context). */
#define EXPECT_ERRNO(e, expr) ({			\
	errno = 0;					\
	EXPECT_EQ(-1, (expr));				\
	EXPECT_EQ((e), errno);				\
})
#define ASSERT_ERRNO(e, expr) ({			\
	errno = 0;					\
	ASSERT_EQ(-1, (expr));				\
	ASSERT_EQ((e), errno);				\
})

/*
 * Open the render node of the first DRM device whose driver is "vgpu".
 * Returns the fd, or -1 with errno ENODEV when there is none.
 */
static inline int vgpu_test_open(void)
{
	drmDevicePtr devs[16];
	int n, i, fd = -1;

	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n && fd < 0; i++) {
		drmVersionPtr v;
		int f;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		f = open(devs[i]->nodes[DRM_NODE_RENDER], O_RDWR | O_CLOEXEC);
		if (f < 0)
			continue;
		v = drmGetVersion(f);
		if (v && !strcmp(v->name, "vgpu"))
			fd = f;
		else
			close(f);
		drmFreeVersion(v);
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	if (fd < 0)
		errno = ENODEV;
	return fd;
}

/* A size the launcher passed in the environment (bytes), or 0. */
static inline uint64_t vgpu_test_env_u64(const char *name)
{
	const char *s = getenv(name);

	return s ? strtoull(s, NULL, 0) : 0;
}

/* The sysfs directory of the device behind render node @fd: 0 or -errno. */
static inline int vgpu_test_sysfs_dir(int fd, char *out, size_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	snprintf(out, size, "/sys/dev/char/%u:%u/device", major(st.st_rdev),
		 minor(st.st_rdev));
	return 0;
}

#endif /* VGPU_SELFTEST_H */
