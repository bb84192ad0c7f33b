/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_IOCTL_H__
#define __VGPU_IOCTL_H__

#include <drm/drm_print.h>

/**
 * VGPU_IOCTL_DBG() - evaluate an ioctl argument check, log it if it fails
 * @drm: DRM device
 * @cond: condition that makes the ioctl fail
 *
 * Logs the failed check's text at DRM debug level (drm.debug=0x2), so a user
 * told -EINVAL can find out which field was refused.
 *
 * Return: the truth value of @cond.
 */
#define VGPU_IOCTL_DBG(drm, cond) ({					\
	bool __failed = !!(cond);					\
	if (unlikely(__failed))						\
		drm_dbg_driver((drm), "ioctl check failed: %s (%s:%d)\n",	\
			       #cond, __func__, __LINE__);		\
	__failed;							\
})

#endif /* __VGPU_IOCTL_H__ */
