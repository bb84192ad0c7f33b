// SPDX-License-Identifier: MIT
/*
 * Helpers of the demand-paging suites.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "bench.h"
#include "bench_paging.h"

static int write_str(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(value, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

static int read_str(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

static void sysfs_path(int fd, const char *name, char *out, size_t size)
{
	struct stat st;

	fstat(fd, &st);
	snprintf(out, size, "/sys/dev/char/%u:%u/device/%s",
		 major(st.st_rdev), minor(st.st_rdev), name);
}

int bench_set_policy(int fd, const char *name, const char *value)
{
	char path[256];

	sysfs_path(fd, name, path, sizeof(path));
	return write_str(path, value);
}

int bench_get_policy(int fd, const char *name, char *buf, size_t size)
{
	char path[256];

	sysfs_path(fd, name, path, sizeof(path));
	return read_str(path, buf, size);
}

int bench_counter(int fd, const char *name, uint64_t *value)
{
	char path[64], buf[32];
	int ret;

	snprintf(path, sizeof(path), "counters/%s", name);
	ret = bench_get_policy(fd, path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (!buf[0])
		return -ENOENT;
	*value = strtoull(buf, NULL, 0);
	return 0;
}

void bench_settings_save(int fd, struct bench_settings *s)
{
	memset(s, 0, sizeof(*s));
	bench_get_policy(fd, "eviction_policy", s->evict, sizeof(s->evict));
	bench_get_policy(fd, "placement_policy", s->place, sizeof(s->place));
	bench_get_param("prefetch", s->prefetch, sizeof(s->prefetch));
}

void bench_settings_restore(int fd, const struct bench_settings *s)
{
	if (s->evict[0])
		bench_set_policy(fd, "eviction_policy", s->evict);
	if (s->place[0])
		bench_set_policy(fd, "placement_policy", s->place);
	if (s->prefetch[0])
		bench_set_param("prefetch", s->prefetch);
}

int bench_list_policies(int fd, const char *name, char (*names)[16], int max)
{
	char buf[256], *save, *tok;
	int n = 0, ret;

	ret = bench_get_policy(fd, name, buf, sizeof(buf));
	if (ret)
		return ret;
	for (tok = strtok_r(buf, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save))
		snprintf(names[n++], sizeof(names[0]), "%s", tok);
	return n;
}

int bench_set_param(const char *name, const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/vgpu/parameters/%s", name);
	return write_str(path, value);
}

int bench_get_param(const char *name, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/vgpu/parameters/%s", name);
	return read_str(path, buf, size);
}

int bench_pbo_create(struct vgpu_dev *dev, uint64_t size, uint64_t va,
		     struct bench_pbo *b)
{
	int ret;

	ret = vgpu_bo_create_pageable(dev, size, &b->handle, &b->size);
	if (ret)
		return ret;
	b->va = va;
	ret = vgpu_vm_map(dev, b->handle, 0, va, b->size, VGPU_MAP_RW);
	if (ret)
		vgpu_bo_close(dev, b->handle);
	return ret;
}

void bench_pbo_destroy(struct vgpu_dev *dev, struct bench_pbo *b)
{
	vgpu_vm_unmap(dev, b->va, b->size);
	vgpu_bo_close(dev, b->handle);
}

int bench_pbo_populate(struct vgpu_dev *dev, struct bench_pbo *b)
{
	volatile uint8_t *p;
	void *map;
	uint64_t off;
	int ret;

	ret = vgpu_bo_map(dev, b->handle, b->size, &map);
	if (ret)
		return ret;
	p = map;
	for (off = 0; off < b->size; off += 4096)
		p[off] = 0;
	return vgpu_bo_unmap(map, b->size);
}

int bench_touch(struct vgpu_dev *dev, uint32_t queue, uint32_t pattern,
		uint32_t access, uint64_t va, uint64_t size, uint32_t stride,
		uint32_t count, uint32_t seed)
{
	struct vgpu_cmd cmd;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_touch(&cmd, pattern, access, va, size, stride, count, seed, 1);
	ret = vgpu_run(dev, queue, &cmd, 600ll * 1000000000ll);
	vgpu_cmd_fini(&cmd);
	return ret;
}

int bench_paging(struct vgpu_dev *dev, struct drm_vgpu_paging_counters *c)
{
	struct drm_vgpu_query_paging pg;
	int ret;

	memset(&pg, 0, sizeof(pg));
	ret = vgpu_query_paging(dev, &pg);
	if (!ret) {
		*c = pg.vm;
		/*
		 * The fault thread's time, and what became of prefetched
		 * chunks (counted when they are used or evicted, whichever
		 * VM brought them in), are only kept for the device.
		 */
		c->fault_ns = pg.device.fault_ns;
		c->prefetch_used_bytes = pg.device.prefetch_used_bytes;
		c->prefetch_wasted_bytes = pg.device.prefetch_wasted_bytes;
	}
	return ret;
}

int bench_policies_begin(int fd, char (*names)[16], int max,
			 struct bench_settings *saved)
{
	int n = bench_list_policies(fd, "available_eviction_policies", names, max);

	if (n == 0)
		return -ENOENT;
	if (n > 0)
		bench_settings_save(fd, saved);
	return n;
}

int bench_time(struct vgpu_dev *dev, struct drm_vgpu_query_time *t)
{
	int ret = vgpu_query_time(dev, t);

	if (ret == -EOPNOTSUPP) {
		memset(t, 0, sizeof(*t));
		return 0;
	}
	return ret;
}

double bench_modeled_s(uint64_t then_ns, uint64_t now_ns)
{
	return (now_ns - then_ns) / 1e9;
}

int bench_span_begin(struct vgpu_dev *dev, struct bench_span *s)
{
	int ret = bench_paging(dev, &s->c0);

	if (!ret)
		ret = bench_time(dev, &s->m0);
	s->t0 = bench_now();
	return ret;
}

int bench_span_end(struct vgpu_dev *dev, struct bench_span *s)
{
	int ret;

	s->seconds = bench_now() - s->t0;
	ret = bench_paging(dev, &s->c1);
	if (!ret)
		ret = bench_time(dev, &s->m1);
	return ret;
}
