/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_STREAM_TYPES_H__
#define __VGPU_STREAM_TYPES_H__

#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_suballoc.h>

/**
 * struct vgpu_stream - a VM's buffer of inline command streams
 * @lock: protects the allocation of the buffer.
 * @cpu: the buffer, coherent system memory mapped read-only at
 *	%VGPU_VM_STREAM_VA; NULL until the VM's first inline EXEC.
 * @dma: its DMA address.
 * @sa: pieces of the buffer, one per job in flight.
 * @sa_ready: @sa is initialised (and outlives the buffer on unplug).
 * @gone: the device was unplugged; the buffer is freed.
 */
struct vgpu_stream {
	struct mutex lock;
	void *cpu;
	dma_addr_t dma;
	struct drm_suballoc_manager sa;
	bool sa_ready;
	bool gone;
};

#endif /* __VGPU_STREAM_TYPES_H__ */
