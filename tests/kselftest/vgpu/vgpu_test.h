/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers shared by the vgpu kselftest suites.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_SELFTEST_H
#define VGPU_SELFTEST_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
 * Open node @type (DRM_NODE_RENDER or DRM_NODE_PRIMARY) of the first DRM
 * device whose driver is "vgpu".  Returns the fd, or -1 with errno ENODEV
 * when there is none.
 */
static inline int vgpu_test_open_node(int type)
{
	drmDevicePtr devs[16];
	int n, i, fd = -1;

	n = drmGetDevices2(0, devs, 16);
	for (i = 0; i < n && fd < 0; i++) {
		drmVersionPtr v;
		int f;

		if (!(devs[i]->available_nodes & (1 << type)))
			continue;
		f = open(devs[i]->nodes[type], O_RDWR | O_CLOEXEC);
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

/* Open the render node of the first vgpu device (see vgpu_test_open_node()). */
static inline int vgpu_test_open(void)
{
	return vgpu_test_open_node(DRM_NODE_RENDER);
}

/* A size the launcher passed in the environment (bytes), or 0. */
static inline uint64_t vgpu_test_env_u64(const char *name)
{
	const char *s = getenv(name);

	return s ? strtoull(s, NULL, 0) : 0;
}

/* fdinfo: the drm-* keys of a file, units applied. */

struct kv {
	char key[64];
	char val[64];
	uint64_t num;		/* value in bytes / ns, units applied */
	int numeric;
};

#define FDINFO_MAX_KEYS	256

struct fdinfo {
	int n;
	struct kv kv[FDINFO_MAX_KEYS];
};

static inline int fdinfo_read(int fd, struct fdinfo *fi)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	fi->n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct kv *kv = &fi->kv[fi->n];
		char *colon = strchr(line, ':'), *v, *end;

		line[strcspn(line, "\n")] = '\0';
		if (!colon || strncmp(line, "drm-", 4))
			continue;
		/* More keys than we can hold: say so, never drop them. */
		if (fi->n == FDINFO_MAX_KEYS) {
			fclose(f);
			return -E2BIG;
		}
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		snprintf(kv->key, sizeof(kv->key), "%.63s", line);
		snprintf(kv->val, sizeof(kv->val), "%.63s", v);
		kv->numeric = 0;
		if (isdigit((unsigned char)*v)) {
			kv->num = strtoull(v, &end, 10);
			while (*end == ' ')
				end++;
			kv->numeric = 1;
			if (!strcmp(end, "KiB"))
				kv->num <<= 10;
			else if (!strcmp(end, "MiB"))
				kv->num <<= 20;
			else if (*end && strcmp(end, "ns"))
				kv->numeric = 0;
		}
		fi->n++;
	}
	fclose(f);
	return 0;
}

static inline const struct kv *fdinfo_get(const struct fdinfo *fi, const char *key)
{
	int i;

	for (i = 0; i < fi->n; i++)
		if (!strcmp(fi->kv[i].key, key))
			return &fi->kv[i];
	return NULL;
}

/* A numeric key, or ~0 when missing or not a number. */
static inline uint64_t fdinfo_u64(int fd, const char *key)
{
	struct fdinfo fi;
	const struct kv *kv;

	if (fdinfo_read(fd, &fi))
		return ~0ull;
	kv = fdinfo_get(&fi, key);
	return kv && kv->numeric ? kv->num : ~0ull;
}

/*
 * Read file @path into @old (its first line, without the newline), then
 * write @set into it; either may be NULL.  0 or a negative errno.
 */
static inline int vgpu_test_file(const char *path, const char *set,
				 char *old, size_t size)
{
	FILE *f;
	int ret = 0;

	if (old) {
		f = fopen(path, "re");
		if (!f)
			return -errno;
		if (!fgets(old, size, f))
			ret = -EIO;
		old[strcspn(old, "\n")] = '\0';
		fclose(f);
	}
	if (set && !ret) {
		f = fopen(path, "we");
		if (!f)
			return -errno;
		if (fputs(set, f) < 0)
			ret = -EIO;
		if (fclose(f))
			ret = -errno;
	}
	return ret;
}

/* Read or write a vgpu.ko module parameter; 0 or a negative errno. */
static inline int vgpu_test_param(const char *name, const char *set,
				  char *old, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/vgpu/parameters/%s", name);
	return vgpu_test_file(path, set, old, size);
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

/* Write @val to a sysfs/debugfs/proc file: 0 or -errno. */
static inline int vgpu_test_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "we");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/* A number from a sysfs file, or ~0 when it cannot be read. */
static inline uint64_t vgpu_test_read_u64(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return ~0ull;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	return ok ? strtoull(buf, NULL, 0) : ~0ull;
}

/*
 * The path of file @name in the debugfs directory of the device behind
 * render node @fd: 0, or -errno when it is not there (no debugfs).
 */
static inline int vgpu_test_debugfs_path(int fd, const char *name, char *out,
					 size_t size)
{
	char sys[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int ret = vgpu_test_sysfs_dir(fd, sys, sizeof(sys));

	if (ret)
		return ret;
	if (!realpath(sys, real))
		return -errno;
	snprintf(out, size, "/sys/kernel/debug/dri/%s/%s",
		 strrchr(real, '/') + 1, name);
	return stat(out, &st) ? -errno : 0;
}

/*
 * Read or write file @name (e.g. "eviction_policy", "counters/evictions")
 * in the sysfs directory of the device behind render node @fd, as
 * vgpu_test_file().
 */
static inline int vgpu_test_sysfs(int fd, const char *name, const char *set,
				  char *old, size_t size)
{
	char dir[96], path[192];
	int ret = vgpu_test_sysfs_dir(fd, dir, sizeof(dir));

	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return vgpu_test_file(path, set, old, size);
}

#endif /* VGPU_SELFTEST_H */
