/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_PT_POOL_H__
#define __VGPU_PT_POOL_H__

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct vgpu_device;
struct vgpu_pt_chunk;

/** VGPU_PT_CHUNK_SIZE - VRAM the pool grows and shrinks by */
#define VGPU_PT_CHUNK_SIZE	(512u << 10)
#define VGPU_PT_CHUNK_PAGES	(VGPU_PT_CHUNK_SIZE / 4096)

/**
 * struct vgpu_pt_page - one 4 KiB page of the pool
 * @chunk: chunk it belongs to.
 * @addr: VRAM offset, as written into PDEs and context roots.
 * @cpu: CPU mapping through the BAR window.
 */
struct vgpu_pt_page {
	struct vgpu_pt_chunk *chunk;
	u64 addr;
	void __iomem *cpu;
};

/**
 * struct vgpu_pt_pool - page-table pages in CPU-visible VRAM
 * @lock: protects every field below.
 * @chunks: the &struct vgpu_pt_chunk, emptiest last.
 * @nr_chunks: chunks allocated.
 * @nr_free: free pages over all chunks.
 * @nr_reserved: free pages promised by vgpu_pt_pool_reserve().
 * @nr_used: pages handed out.
 * @xchg_lock: serialises the two-register sequence of the device's
 *	page-table exchange (vgpu_pt_pool_xchg()); innermost, nothing is
 *	taken under it.
 */
struct vgpu_pt_pool {
	struct mutex lock;
	struct list_head chunks;
	unsigned int nr_chunks;
	unsigned int nr_free;
	unsigned int nr_reserved;
	unsigned int nr_used;
	spinlock_t xchg_lock;	/* the PT_XCHG register sequence */
};

int vgpu_pt_pool_init(struct vgpu_device *vdev);
void vgpu_pt_pool_fini(struct vgpu_device *vdev);
int vgpu_pt_pool_reserve(struct vgpu_device *vdev, unsigned int n);
void vgpu_pt_pool_unreserve(struct vgpu_device *vdev, unsigned int n);
void vgpu_pt_pool_get(struct vgpu_device *vdev, struct vgpu_pt_page *page);
void vgpu_pt_pool_put(struct vgpu_device *vdev, struct vgpu_pt_page *page);
u64 vgpu_pt_pool_xchg(struct vgpu_device *vdev, struct vgpu_pt_page *page,
		      unsigned int idx, u64 val);
void vgpu_pt_pool_trim(struct vgpu_device *vdev);
u64 vgpu_pt_pool_pages(struct vgpu_device *vdev);

#endif /* __VGPU_PT_POOL_H__ */
