// SPDX-License-Identifier: MIT
/*
 * vgpu-smi - show vgpu devices and what their memory is doing.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <xf86drm.h>

#include "vgpu_drm.h"

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vgpu_get_param gp = { .param = param };

	if (ioctl(fd, DRM_IOCTL_VGPU_GET_PARAM, &gp))
		return -errno;
	*value = gp.value;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vgpu-smi [--json]\n");
}

int main(int argc, char **argv)
{
	drmDevicePtr devs[16];
	int json = 0, found = 0, n, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}

	n = drmGetDevices2(0, devs, 16);
	if (n < 0) {
		fprintf(stderr, "vgpu-smi: cannot list DRM devices: %s\n",
			strerror(-n));
		return 1;
	}
	if (json)
		printf("{\"devices\": [");
	for (i = 0; i < n; i++) {
		uint64_t ver, vram, vis, nq, nc, ps;
		drmVersionPtr v;
		const char *node;
		int fd;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		node = devs[i]->nodes[DRM_NODE_RENDER];
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (!v || strcmp(v->name, "vgpu")) {
			drmFreeVersion(v);
			close(fd);
			continue;
		}
		drmFreeVersion(v);
		if (get_param(fd, DRM_VGPU_PARAM_HW_VERSION, &ver) ||
		    get_param(fd, DRM_VGPU_PARAM_VRAM_SIZE, &vram) ||
		    get_param(fd, DRM_VGPU_PARAM_VISIBLE_VRAM_SIZE, &vis) ||
		    get_param(fd, DRM_VGPU_PARAM_NUM_QUEUES, &nq) ||
		    get_param(fd, DRM_VGPU_PARAM_NUM_CONTEXTS, &nc) ||
		    get_param(fd, DRM_VGPU_PARAM_PAGE_SIZES, &ps)) {
			fprintf(stderr, "vgpu-smi: %s: GET_PARAM failed: %s\n",
				node, strerror(errno));
			close(fd);
			continue;
		}
		close(fd);
		if (json) {
			printf("%s{\"node\": \"%s\", \"pci\": \"%04x:%02x:%02x.%u\", "
			       "\"hw_version\": \"%u.%u\", \"vram_bytes\": %" PRIu64 ", "
			       "\"visible_vram_bytes\": %" PRIu64 ", \"queues\": %" PRIu64 ", "
			       "\"contexts\": %" PRIu64 ", \"page_sizes\": %" PRIu64 "}",
			       found ? ", " : "", node,
			       devs[i]->businfo.pci->domain, devs[i]->businfo.pci->bus,
			       devs[i]->businfo.pci->dev, devs[i]->businfo.pci->func,
			       (unsigned int)(ver >> 16), (unsigned int)(ver & 0xffff),
			       vram, vis, nq, nc, ps);
		} else {
			printf("vgpu %u  %s  pci %04x:%02x:%02x.%u  hw %u.%u\n",
			       found, node, devs[i]->businfo.pci->domain,
			       devs[i]->businfo.pci->bus, devs[i]->businfo.pci->dev,
			       devs[i]->businfo.pci->func,
			       (unsigned int)(ver >> 16), (unsigned int)(ver & 0xffff));
			printf("  VRAM         %8" PRIu64 " MiB (%" PRIu64 " MiB CPU-visible)\n",
			       vram >> 20, vis >> 20);
			printf("  queues       %8" PRIu64 "\n  contexts     %8" PRIu64 "\n",
			       nq, nc);
			printf("  page sizes  %s%s%s%s\n", ps & (1ull << 12) ? " 4K" : "",
			       ps & (1ull << 16) ? " 64K" : "",
			       ps & (1ull << 21) ? " 2M" : "",
			       ps & (1ull << 30) ? " 1G" : "");
		}
		found++;
	}
	if (json)
		printf("]}\n");
	drmFreeDevices(devs, n);
	if (!found) {
		fprintf(stderr, "vgpu-smi: no vgpu device found\n");
		return 1;
	}
	return 0;
}
