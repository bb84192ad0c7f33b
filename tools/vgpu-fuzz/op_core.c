// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: everything else a client can do to the device: the DRM core's
 * VERSION and GET_CAP, the core ioctls a render node refuses, GET_PARAM
 * and QUERY, ioctl numbers nobody defined and known ones with struct
 * sizes of the wrong length, fdinfo and sysfs reads while the others
 * work, closing and reopening a context with everything in flight, and
 * fork() with the file open.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"
#include "ops.h"

static void op_version(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	char name[64], date[64], desc[64];
	struct drm_version v = { 0 };
	bool valid = fz_chance(r, 70);
	int ret;

	v.name_len = valid ? sizeof(name) : fz_interesting64(r);
	v.name = valid ? name : (char *)(uintptr_t)fz_user_ptr(r, name);
	v.date_len = valid ? sizeof(date) : fz_below(r, sizeof(date) + 1);
	v.date = date;
	v.desc_len = valid ? sizeof(desc) : fz_below(r, sizeof(desc) + 1);
	v.desc = desc;
	if (!valid && v.name_len > sizeof(name) && v.name == name)
		v.name_len = sizeof(name);
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VERSION, &v);
	if (valid && c->private &&
	    (ret || v.name_len != 4 || memcmp(name, "vgpu", 4)))
		fz_finding(t, "VERSION: %d, name '%.*s'", ret,
			   (int)(v.name_len < sizeof(name) ? v.name_len : sizeof(name)),
			   name);
}

static void op_get_cap(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_get_cap gc = { 0 };
	struct drm_set_client_cap sc = { 0 };

	if (fz_chance(r, 80)) {
		gc.capability = fz_chance(r, 80) ? fz_below(r, 0x20) :
						   fz_interesting64(r);
		fz_ioctl(t, c->dev.fd, DRM_IOCTL_GET_CAP, &gc);
		return;
	}
	/* Not for render nodes. */
	sc.capability = fz_below(r, 8);
	sc.value = fz_below(r, 3);
	fz_ioctl_check(t, c, DRM_IOCTL_SET_CLIENT_CAP, &sc, true, EACCES,
			"SET_CLIENT_CAP on a render node");
}

static void op_get_param(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_get_param gp = { 0 };
	int ret;

	gp.param = fz_chance(r, 85) ? fz_below(r, DRM_VGPU_PARAM_LANES + 1) :
				      fz_interesting32(r);
	if (fz_chance(r, 5))
		gp.flags = fz_interesting32(r) | 1;
	else if (fz_chance(r, 5))
		gp.pad = fz_interesting64(r) | 1;
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_GET_PARAM, &gp);
	if (gp.flags || gp.pad)
		fz_expect(t, c, ret, EINVAL, "GET_PARAM with flags or pad set");
	else if (gp.param > DRM_VGPU_PARAM_LANES)
		fz_expect(t, c, ret, EINVAL, "GET_PARAM of an unknown parameter");
	else if (ret && c->private)
		fz_finding(t, "GET_PARAM %u: %s", gp.param, strerror(-ret));
}

static void op_query(struct fz_thread *t, struct fz_ctx *c)
{
	static const uint32_t sizes[] = {
		sizeof(struct drm_vgpu_query_memory),
		sizeof(struct drm_vgpu_query_vm),
		sizeof(struct drm_vgpu_query_counters),
		sizeof(struct drm_vgpu_query_paging),
		sizeof(struct drm_vgpu_query_time),
	};
	const uint32_t ntypes = sizeof(sizes) / sizeof(sizes[0]);
	static __thread uint8_t buf[4096];
	struct fz_rng *r = &t->rng;
	struct drm_vgpu_query q = { 0 };
	int ret;

	q.type = fz_chance(r, 90) ? fz_below(r, ntypes) : fz_interesting32(r);
	switch (fz_below(r, 4)) {
	case 0:
		q.size = 0;
		break;
	case 1:
		q.size = fz_below(r, sizeof(buf));
		break;
	default:
		q.size = q.type < ntypes ? sizes[q.type] : 64;
		break;
	}
	q.data = fz_user_ptr(r, buf);
	if (fz_chance(r, 5))
		q.flags = fz_interesting32(r) | 1;
	else if (fz_chance(r, 5))
		q.vm_id = fz_interesting32(r) | 1;
	ret = fz_ioctl(t, c->dev.fd, DRM_IOCTL_VGPU_QUERY, &q);
	if (q.flags)
		fz_expect(t, c, ret, EINVAL, "QUERY with flags set");
	else if (q.type >= ntypes)
		fz_expect(t, c, ret, EINVAL, "QUERY of an unknown type");
	else if (q.vm_id && (q.type == DRM_VGPU_QUERY_VM ||
			     q.type == DRM_VGPU_QUERY_PAGING ||
			     q.type == DRM_VGPU_QUERY_TIME))
		fz_expect(t, c, ret, ENOENT, "QUERY of an unknown vm_id");
	else if (q.vm_id)
		fz_expect(t, c, ret, EINVAL, "QUERY with a vm_id for a device report");
	else if (!ret && q.size > sizes[q.type] && c->private)
		fz_finding(t, "QUERY %u reported %u bytes, the report has %u",
			   q.type, q.size, sizes[q.type]);
}

/* The core ioctls of Linux 6.12 flagged DRM_RENDER_ALLOW. */
static bool render_allowed(unsigned int nr)
{
	return nr == 0x00 || nr == 0x09 || nr == 0x0c || nr == 0x2d ||
	       nr == 0x2e || (nr >= 0xbf && nr <= 0xc5) ||
	       (nr >= 0xca && nr <= 0xcd) || nr == 0xcf;
}

/*
 * ioctl numbers nobody defined, core ioctls a render node must refuse,
 * and the driver's own with a struct of the wrong size and random bytes
 * (those that create or map nothing, so that the tables stay right).
 */
static void op_raw_ioctl(struct fz_thread *t, struct fz_ctx *c)
{
	static const unsigned long harmless[] = {
		DRM_IOCTL_VGPU_GET_PARAM, DRM_IOCTL_VGPU_BO_MMAP_OFFSET,
		DRM_IOCTL_VGPU_WAIT_BO, DRM_IOCTL_VGPU_QUERY,
		DRM_IOCTL_VGPU_PREFETCH, DRM_IOCTL_VGPU_ADVISE,
		DRM_IOCTL_GET_CAP, DRM_IOCTL_VERSION,
	};
	static __thread uint64_t buf[512];
	struct fz_rng *r = &t->rng;
	unsigned long req;
	unsigned int i, nr, size = fz_chance(r, 50) ? fz_below(r, 256) : fz_below(r, 4096);
	const char *what = NULL;
	int ret;

	for (i = 0; i < size / 8 + 1; i++)
		buf[i] = fz_chance(r, 30) ? 0 : fz_chance(r, 50) ?
			 fz_interesting64(r) : fz_next(r);
	switch (fz_below(r, 3)) {
	case 0:
		/* Past the driver's last ioctl, and unused core numbers. */
		req = _IOC(fz_below(r, 4), DRM_IOCTL_BASE,
			   fz_chance(r, 50) ? DRM_COMMAND_BASE +
					      fz_range(r, DRM_VGPU_EXEC_QUEUE_DESTROY + 1, 0x5f) :
					      fz_range(r, 0xd1, 0xff), size);
		what = "an ioctl number nobody defined";
		break;
	case 1:
		do
			nr = fz_below(r, 0xd1);
		while (render_allowed(nr) ||
		       (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END));
		req = _IOC(fz_below(r, 4), DRM_IOCTL_BASE, nr, size);
		what = "a core ioctl that render nodes refuse";
		break;
	default:
		req = fz_resize_req(harmless[fz_below(r, sizeof(harmless) /
						      sizeof(harmless[0]))], size);
		if (_IOC_NR(req) == _IOC_NR(DRM_IOCTL_VERSION))
			memset(buf, 0, sizeof(struct drm_version));
		if (_IOC_NR(req) == _IOC_NR(DRM_IOCTL_VGPU_WAIT_BO))
			buf[1] = fz_timeout_abs(r, false);	/* a deadline */
		break;
	}
	ret = fz_ioctl(t, c->dev.fd, req, buf);
	if (what && ret >= 0)
		fz_finding(t, "%s (0x%lx) succeeded", what, req);
}

/* Read /proc/self/fdinfo of the file, or of one of its fds. */
static void op_fdinfo(struct fz_thread *t, struct fz_ctx *c)
{
	struct fz_fd *e = fz_chance(&t->rng, 70) ? NULL :
			  fz_pick_fd(t, c, FZ_FD_NONE);
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", e ? e->fd : c->dev.fd);
	fz_call_begin(t, "fdinfo");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	fz_call_end(t);
	fz_count_read(t, n >= 0);
	if (!e && c->private && (n <= 0 || !memmem(buf, n, "drm-driver:\tvgpu", 16)))
		fz_finding(t, "fdinfo of the render node has no drm-driver line (%zd bytes)", n);
}

/* Read one of the device's sysfs files. */
static void op_sysfs(struct fz_thread *t, struct fz_ctx *c)
{
	char path[512], buf[4096];
	struct dirent *d;
	unsigned int n = 0, want = fz_below(&t->rng, 64);
	DIR *dir;
	int fd;

	(void)c;
	dir = opendir(fz_dev.sysfs);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_type != DT_REG || !strncmp(d->d_name, "resource", 8) ||
		    !strcmp(d->d_name, "rom") || !strcmp(d->d_name, "config") ||
		    !strcmp(d->d_name, "vpd"))
			continue;
		if (n++ != want)
			continue;
		snprintf(path, sizeof(path), "%s/%s", fz_dev.sysfs, d->d_name);
		fz_call_begin(t, "sysfs");
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			fz_count_read(t, read(fd, buf, sizeof(buf)) >= 0);
			close(fd);
		}
		fz_call_end(t);
		break;
	}
	closedir(dir);
}

/* Close the file with everything in it, then open a new one (ops.c). */
static void op_reopen(struct fz_thread *t, struct fz_ctx *c)
{
	if (c->private || fz_chance(&t->rng, 10))
		c->want_reopen = true;	/* the others use a shared one: seldom */
}

/*
 * fork() with the files open: the child shares them (and the mappings),
 * asks a few harmless things, and exits, dropping its references.
 */
static void op_fork(struct fz_thread *t, struct fz_ctx *c)
{
	struct drm_vgpu_query_memory mem;
	pid_t pid;
	int st;

	fz_call_begin(t, "fork");
	pid = fork();
	if (pid == 0) {
		vgpu_query_memory(&c->dev, &mem);
		vgpu_query_memory(&t->priv->dev, &mem);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	fz_call_end(t);
	fz_trace(t, "fork: %d", pid);
}

static void op_resync(struct fz_thread *t, struct fz_ctx *c)
{
	fz_resync(t, c);
}

const struct fz_op fz_core_ops[] = {
	{ "version", 1, 0, op_version },
	{ "get_cap", 1, 0, op_get_cap },
	{ "get_param", 2, 0, op_get_param },
	{ "query", 3, 0, op_query },
	{ "raw_ioctl", 3, FZ_OP_SHARED, op_raw_ioctl },
	{ "fdinfo", 2, 0, op_fdinfo },
	{ "sysfs", 1, 0, op_sysfs },
	{ "reopen", 1, 0, op_reopen },
	{ "fork", 1, 0, op_fork },
	{ "resync", 3, FZ_OP_PRIVATE, op_resync },
	{ NULL },
};
