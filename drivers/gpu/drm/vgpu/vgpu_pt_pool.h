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
struct vgpu_pt;
struct vgpu_pt_chunk;

/** VGPU_PT_CHUNK_SIZE - VRAM the pool grows and shrinks by */
#define VGPU_PT_CHUNK_SIZE	(512u << 10)
#define VGPU_PT_CHUNK_PAGES	(VGPU_PT_CHUNK_SIZE / 4096)
/** VGPU_PT_POOL_SPARE_SHADOWS - freed table shadows kept beyond reservations */
#define VGPU_PT_POOL_SPARE_SHADOWS	64

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
 * @shadows: spare &struct vgpu_pt, linked by &vgpu_pt.free_link; at
 *	least @nr_reserved of them.
 * @nr_shadows: entries of @shadows.
 * @dirs: spare child arrays of directories; at least @nr_reserved.
 * @nr_dirs: entries of @dirs.
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
	struct list_head shadows;
	unsigned int nr_shadows;
	struct list_head dirs;
	unsigned int nr_dirs;
	spinlock_t xchg_lock;	/* the PT_XCHG register sequence */
};

int vgpu_pt_pool_init(struct vgpu_device *vdev);
void vgpu_pt_pool_fini(struct vgpu_device *vdev);
int vgpu_pt_pool_reserve(struct vgpu_device *vdev, unsigned int n);
void vgpu_pt_pool_unreserve(struct vgpu_device *vdev, unsigned int n);
void vgpu_pt_pool_get(struct vgpu_device *vdev, struct vgpu_pt_page *page);
void vgpu_pt_pool_put(struct vgpu_device *vdev, struct vgpu_pt_page *page);
struct vgpu_pt *vgpu_pt_pool_shadow_get(struct vgpu_device *vdev, bool dir);
void vgpu_pt_pool_shadow_put(struct vgpu_device *vdev, struct vgpu_pt *pt);
u64 vgpu_pt_pool_xchg(struct vgpu_device *vdev, struct vgpu_pt_page *page,
		      unsigned int idx, u64 val);
void vgpu_pt_pool_trim(struct vgpu_device *vdev);
u64 vgpu_pt_pool_pages(struct vgpu_device *vdev);

#endif /* __VGPU_PT_POOL_H__ */
