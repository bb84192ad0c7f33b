/* SPDX-License-Identifier: MIT */
/*
 * vgpu-fuzz: DRM core ioctls of Linux 6.12 that Debian 12's libdrm
 * headers do not have yet.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_FUZZ_IOCTLS_H
#define VGPU_FUZZ_IOCTLS_H

#include <linux/types.h>

#include "vgpu_drm.h"

/* include/uapi/drm/drm.h of Linux 6.12: struct drm_syncobj_eventfd */
struct fz_syncobj_eventfd {
	__u32 handle;
	__u32 flags;
	__u64 point;
	__s32 fd;
	__u32 pad;
};

#define FZ_IOCTL_SYNCOBJ_EVENTFD	DRM_IOWR(0xCF, struct fz_syncobj_eventfd)

/* struct drm_syncobj_wait of Linux 6.12, with deadline_nsec */
struct fz_syncobj_wait {
	__u64 handles;
	__s64 timeout_nsec;
	__u32 count_handles;
	__u32 flags;
	__u32 first_signaled;
	__u32 pad;
	__u64 deadline_nsec;
};

#define FZ_IOCTL_SYNCOBJ_WAIT		DRM_IOWR(0xC3, struct fz_syncobj_wait)

#ifndef DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE
#define DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE	(1 << 3)
#endif

#endif /* VGPU_FUZZ_IOCTLS_H */
