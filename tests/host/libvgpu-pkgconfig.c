// SPDX-License-Identifier: MIT
/*
 * Built by tests/host/install.sh with nothing but `pkg-config --cflags
 * --libs libvgpu` against `make install DESTDIR=...`: the pkg-config file
 * and the installed headers are enough to build a libvgpu program.  On the host
 * (no vgpu device) opening must fail cleanly with ENODEV.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libvgpu.h>

int main(void)
{
	struct vgpu_cmd cmd;
	struct vgpu_dev dev;
	int ret;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_nop(&cmd, 1);
	vgpu_cmd_fini(&cmd);

	ret = vgpu_open(&dev);
	if (ret == 0) {
		vgpu_close(&dev);
		printf("opened a vgpu device\n");
		return 0;
	}
	if (ret != -ENODEV) {
		fprintf(stderr, "vgpu_open: %d, expected -ENODEV without a device\n", ret);
		return 1;
	}
	return 0;
}
