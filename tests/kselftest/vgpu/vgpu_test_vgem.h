/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * vgem, the other driver the kselftest suites share dma-bufs with.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_TEST_VGEM_H
#define VGPU_TEST_VGEM_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

/* Exists while vgem.ko is loaded because of this program. */
#define VGEM_MARK "/tmp/.vgpu_test_loaded_vgem"

/* Open vgem's card node (loading vgem.ko if needed), or -1. */
static inline int vgem_open(void)
{
	char path[64];
	int tries, i;

	for (tries = 0; tries < 2; tries++) {
		for (i = 0; i < 16; i++) {
			drmVersionPtr v;
			int fd;

			snprintf(path, sizeof(path), "/dev/dri/card%d", i);
			fd = open(path, O_RDWR | O_CLOEXEC);
			if (fd < 0)
				continue;
			v = drmGetVersion(fd);
			if (v && !strcmp(v->name, "vgem")) {
				drmFreeVersion(v);
				return fd;
			}
			drmFreeVersion(v);
			close(fd);
		}
		if (system("modprobe vgem 2>/dev/null") != 0)
			break;
		close(open(VGEM_MARK, O_CREAT | O_WRONLY, 0600));
		usleep(200000);
	}
	return -1;
}

/*
 * Leave the module list as found (vgem pins drm.ko): unload vgem if
 * vgem_open() loaded it.  BOs are freed asynchronously, so the last
 * reference to vgem may take a moment.
 */
static inline void vgem_release(void)
{
	int i;

	if (access(VGEM_MARK, F_OK))
		return;
	for (i = 0; i < 20; i++) {
		if (!system("modprobe -r vgem 2>/dev/null")) {
			unlink(VGEM_MARK);
			break;
		}
		usleep(100000);
	}
}

#endif /* VGPU_TEST_VGEM_H */
