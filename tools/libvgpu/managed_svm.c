// SPDX-License-Identifier: MIT
/*
 * libvgpu: the SVM backend of managed memory (managed.h).
 *
 * An allocation is anonymous private process memory, reserved chunk
 * aligned and readable and writable at once, that the default VM mirrors
 * at the same address (a CPU-address mirror, svm.rst).  Used only where
 * the kernel migrates mirrored memory into VRAM (%DRM_VGPU_SVM_VRAM): the
 * GPU's first touch of a chunk moves it there, a CPU touch brings it
 * back, and PREFETCH and ADVISE act on the mirror's ranges.
 *
 * Nothing in the kernel ties a job to the memory it used, so freeing
 * waits for every job of the default VM's fixed queues first: an empty
 * job on each, whose completion follows every job queued before it.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "libvgpu.h"
#include "managed.h"

static int msvm_probe(struct vgpu_dev *dev, struct vgpu_managed *m)
{
	if (!(vgpu_svm_mode(dev) & DRM_VGPU_SVM_VRAM))
		return -EOPNOTSUPP;
	return vgpu_managed_granule(dev, m);
}

static int msvm_alloc(struct vgpu_dev *dev, struct vgpu_managed *m, size_t size,
		      struct vgpu_managed_alloc *a)
{
	int64_t addr;
	uint64_t rsize;
	int ret;

	addr = vgpu_managed_reserve(dev, m, size, PROT_READ | PROT_WRITE, &rsize);
	if (addr < 0)
		return addr;
	ret = vgpu_vm_mirror(dev, (void *)(uintptr_t)addr, rsize,
			     VGPU_MAP_R | VGPU_MAP_W);
	if (ret) {
		munmap((void *)(uintptr_t)addr, rsize);
		return ret;
	}
	a->addr = addr;
	a->size = rsize;
	a->handle = 0;
	return 0;
}

/* Every job queued so far on the default VM's fixed queues is done. */
static int msvm_sync(struct vgpu_dev *dev)
{
	struct vgpu_cmd cmd;
	uint32_t q;
	int ret = 0;

	vgpu_cmd_init(&cmd);
	vgpu_cmd_nop(&cmd, 1);
	for (q = 0; q < dev->exec_queues; q++) {
		int r = vgpu_run(dev, q, &cmd, -1);

		/* A queue's earlier failure is not this free's. */
		if (r && r != -EFAULT && r != -ETIMEDOUT && r != -EIO && !ret)
			ret = r;
	}
	vgpu_cmd_fini(&cmd);
	return ret;
}

static int msvm_free(struct vgpu_dev *dev, struct vgpu_managed_alloc *a)
{
	int ret = msvm_sync(dev);
	int r;

	r = vgpu_vm_unmap(dev, a->addr, a->size);
	ret = ret ?: r;
	r = munmap((void *)(uintptr_t)a->addr, a->size) ? -errno : 0;
	return ret ?: r;
}

const struct vgpu_managed_backend vgpu_managed_svm_backend = {
	.name = "svm",
	.probe = msvm_probe,
	.alloc = msvm_alloc,
	.free = msvm_free,
};
