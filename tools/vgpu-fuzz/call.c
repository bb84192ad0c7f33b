// SPDX-License-Identifier: MIT
/*
 * vgpu-fuzz: every system call the fuzzer makes against the driver goes
 * through here: it is counted per kind, traced, timed for the hang
 * watchdog, and its errno checked against what the uapi promises.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include "fuzz.h"
#include "ioctls.h"

/* Call kinds, for the statistics: the ioctls by type and number. */
static const struct {
	unsigned long req;
	const char *name;
} kinds[] = {
	{ DRM_IOCTL_VERSION, "VERSION" },
	{ DRM_IOCTL_GET_CAP, "GET_CAP" },
	{ DRM_IOCTL_SET_CLIENT_CAP, "SET_CLIENT_CAP" },
	{ DRM_IOCTL_GEM_CLOSE, "GEM_CLOSE" },
	{ DRM_IOCTL_PRIME_HANDLE_TO_FD, "PRIME_HANDLE_TO_FD" },
	{ DRM_IOCTL_PRIME_FD_TO_HANDLE, "PRIME_FD_TO_HANDLE" },
	{ DRM_IOCTL_SYNCOBJ_CREATE, "SYNCOBJ_CREATE" },
	{ DRM_IOCTL_SYNCOBJ_DESTROY, "SYNCOBJ_DESTROY" },
	{ DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, "SYNCOBJ_HANDLE_TO_FD" },
	{ DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, "SYNCOBJ_FD_TO_HANDLE" },
	{ DRM_IOCTL_SYNCOBJ_WAIT, "SYNCOBJ_WAIT" },
	{ DRM_IOCTL_SYNCOBJ_RESET, "SYNCOBJ_RESET" },
	{ DRM_IOCTL_SYNCOBJ_SIGNAL, "SYNCOBJ_SIGNAL" },
	{ DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, "SYNCOBJ_TIMELINE_WAIT" },
	{ DRM_IOCTL_SYNCOBJ_QUERY, "SYNCOBJ_QUERY" },
	{ DRM_IOCTL_SYNCOBJ_TRANSFER, "SYNCOBJ_TRANSFER" },
	{ DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, "SYNCOBJ_TIMELINE_SIGNAL" },
	{ FZ_IOCTL_SYNCOBJ_EVENTFD, "SYNCOBJ_EVENTFD" },
	{ DRM_IOCTL_VGPU_GET_PARAM, "VGPU_GET_PARAM" },
	{ DRM_IOCTL_VGPU_BO_CREATE, "VGPU_BO_CREATE" },
	{ DRM_IOCTL_VGPU_BO_MMAP_OFFSET, "VGPU_BO_MMAP_OFFSET" },
	{ DRM_IOCTL_VGPU_VM_BIND, "VGPU_VM_BIND" },
	{ DRM_IOCTL_VGPU_EXEC, "VGPU_EXEC" },
	{ DRM_IOCTL_VGPU_WAIT_BO, "VGPU_WAIT_BO" },
	{ DRM_IOCTL_VGPU_QUERY, "VGPU_QUERY" },
	{ DRM_IOCTL_VGPU_PREFETCH, "VGPU_PREFETCH" },
	{ DRM_IOCTL_VGPU_ADVISE, "VGPU_ADVISE" },
	{ SYNC_IOC_MERGE, "SYNC_IOC_MERGE" },
	{ SYNC_IOC_FILE_INFO, "SYNC_IOC_FILE_INFO" },
	{ DMA_BUF_IOCTL_SYNC, "DMA_BUF_IOCTL_SYNC" },
};

#define NR_KINDS	(sizeof(kinds) / sizeof(kinds[0]))
#define KIND_OTHER	NR_KINDS		/* ioctls not listed */
#define KIND_MMAP	(NR_KINDS + 1)
#define KIND_MUNMAP	(NR_KINDS + 2)
#define KIND_READ	(NR_KINDS + 3)		/* fdinfo, sysfs */
#define KIND_OPEN	(NR_KINDS + 4)		/* the render node */
_Static_assert(NR_KINDS + 5 <= FZ_NR_STATS, "FZ_NR_STATS too small");

/* Same ioctl whatever size and direction the request encodes. */
static unsigned int kind_of(unsigned long req)
{
	unsigned long key = req & (_IOC_TYPEMASK << _IOC_TYPESHIFT |
				   _IOC_NRMASK << _IOC_NRSHIFT);
	unsigned int i;

	for (i = 0; i < NR_KINDS; i++)
		if ((kinds[i].req & (_IOC_TYPEMASK << _IOC_TYPESHIFT |
				     _IOC_NRMASK << _IOC_NRSHIFT)) == key)
			return i;
	return KIND_OTHER;
}

const char *fz_kind_name(unsigned int kind)
{
	static const char *const extra[] = {
		"other ioctls", "mmap", "munmap", "read (fdinfo, sysfs)",
		"open",
	};

	if (kind < NR_KINDS)
		return kinds[kind].name;
	if (kind - NR_KINDS < sizeof(extra) / sizeof(extra[0]))
		return extra[kind - NR_KINDS];
	return NULL;
}

const char *fz_ioctl_name(unsigned long req)
{
	unsigned int k = kind_of(req);

	return k < NR_KINDS ? kinds[k].name : "ioctl";
}

void fz_call_begin(struct fz_thread *t, const char *what)
{
	atomic_store(&t->slot->call_start_ns, fz_now_ns());
	(void)what;
}

void fz_call_end(struct fz_thread *t)
{
	atomic_store(&t->slot->call_start_ns, 0);
	t->slot->calls++;
	t->ncalls++;
}

static void count(struct fz_thread *t, unsigned int kind, bool ok)
{
	t->slot->kind_calls[kind]++;
	if (ok)
		t->slot->kind_ok[kind]++;
}

int fz_ioctl(struct fz_thread *t, int fd, unsigned long req, void *arg)
{
	int ret;

	fz_call_begin(t, fz_ioctl_name(req));
	ret = ioctl(fd, req, arg);
	if (ret < 0)
		ret = -errno;
	fz_call_end(t);
	count(t, kind_of(req), ret >= 0);
	fz_trace(t, "%s(fd %d, size %u) = %d%s%s", fz_ioctl_name(req), fd,
		 (unsigned int)_IOC_SIZE(req), ret, ret < 0 ? " " : "",
		 ret < 0 ? strerror(-ret) : "");
	return ret;
}

void *fz_mmap(struct fz_thread *t, size_t len, int prot, int flags, int fd,
	      uint64_t off)
{
	void *p;

	fz_call_begin(t, "mmap");
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	fz_call_end(t);
	count(t, KIND_MMAP, p != MAP_FAILED);
	fz_trace(t, "mmap(len 0x%zx, prot %d, flags 0x%x, fd %d, off 0x%llx) = %s",
		 len, prot, flags, fd, (unsigned long long)off,
		 p == MAP_FAILED ? strerror(errno) : "ok");
	return p == MAP_FAILED ? NULL : p;
}

void fz_munmap(struct fz_thread *t, void *p, size_t len)
{
	int ret;

	fz_call_begin(t, "munmap");
	ret = munmap(p, len);
	fz_call_end(t);
	count(t, KIND_MUNMAP, !ret);
	fz_trace(t, "munmap(len 0x%zx) = %d", len, ret);
}

void fz_count_read(struct fz_thread *t, bool ok)
{
	count(t, KIND_READ, ok);
}

void fz_count_open(struct fz_thread *t, bool ok)
{
	count(t, KIND_OPEN, ok);
}

/*
 * @ret is what a call returned whose arguments break exactly one rule of
 * the uapi, which says it fails with -@err.  Only private contexts are
 * checked: in a shared one another thread may have closed a handle the
 * call names, which changes the error.
 */
void fz_expect(struct fz_thread *t, struct fz_ctx *c, int ret, int err,
	       const char *what)
{
	if (!c->private)
		return;
	if (ret >= 0)
		fz_finding(t, "%s: accepted, the uapi says -%s", what,
			   strerrorname_np(err));
	else if (-ret != err)
		fz_finding(t, "%s: -%s, the uapi says -%s", what,
			   strerrorname_np(-ret), strerrorname_np(err));
}

/* fz_ioctl() in @c, and fz_expect() of it when the call is @broken. */
int fz_ioctl_check(struct fz_thread *t, struct fz_ctx *c, unsigned long req,
		   void *arg, bool broken, int err, const char *what)
{
	int ret = fz_ioctl(t, c->dev.fd, req, arg);

	if (broken)
		fz_expect(t, c, ret, err, what);
	return ret;
}
