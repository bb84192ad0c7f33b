// SPDX-License-Identifier: MIT
/*
 * Built by tests/host/install.sh with nothing but `pkg-config --cflags
 * --libs libvgpu` against `make install DESTDIR=...`: the pkg-config file
 * and the installed headers are enough to build a libvgpu program.  On the host
 * (no vgpu device) opening must fail cleanly with ENODEV.  check.sh also
 * runs the same binary, dynamically linked against the host's libdrm, in a
 * guest (tools/vm/vgpu-run --add): there it fills a BO through the GPU,
 * checks every dword and prints "ran a job".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libvgpu.h>

#define SIZE (64u << 10)
#define VALUE 0x600dcafeu

/* Fill a system-memory BO with VALUE through the GPU; 0 if the CPU sees it. */
static int fill_job(struct vgpu_dev *dev)
{
	struct vgpu_cmd cmd;
	uint32_t bo, *p;
	unsigned int i, bad = 0;
	void *cpu;
	int ret;

	ret = vgpu_bo_create(dev, SIZE, VGPU_PLACE_SYSTEM, 0, &bo);
	if (!ret)
		ret = vgpu_vm_map(dev, bo, 0, 1ull << 32, SIZE, VGPU_MAP_RW);
	if (!ret)
		ret = vgpu_bo_map(dev, bo, SIZE, &cpu);
	if (ret)
		return ret;
	vgpu_cmd_init(&cmd);
	vgpu_cmd_fill(&cmd, 1ull << 32, SIZE, VALUE);
	ret = vgpu_run(dev, 0, &cmd, 30000000000ll);
	vgpu_cmd_fini(&cmd);
	p = cpu;
	for (i = 0; !ret && i < SIZE / 4; i++)
		bad += p[i] != VALUE;
	vgpu_bo_unmap(cpu, SIZE);
	if (ret)
		return ret;
	printf("ran a job: %u of %u dwords filled\n", SIZE / 4 - bad, SIZE / 4);
	return bad ? -EIO : 0;
}

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
		printf("opened a vgpu device\n");
		ret = fill_job(&dev);
		vgpu_close(&dev);
		if (ret)
			fprintf(stderr, "fill job: %s\n", strerror(-ret));
		return !!ret;
	}
	if (ret != -ENODEV) {
		fprintf(stderr, "vgpu_open: %d, expected -ENODEV without a device\n", ret);
		return 1;
	}
	return 0;
}
