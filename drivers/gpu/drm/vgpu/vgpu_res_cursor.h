/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_RES_CURSOR_H__
#define __VGPU_RES_CURSOR_H__

#include <linux/errno.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_tt.h>

#include "vgpu_vram_mgr.h"

/**
 * struct vgpu_res_cursor - walks the device addresses backing a BO
 * @vram: the resource is VRAM (addresses are VRAM offsets), else system
 *	memory (DMA addresses).  With @dma too, @dma holds VRAM offsets.
 * @linear: a plain contiguous range, not a resource.
 * @cur: VRAM: position in the buddy blocks.
 * @dma: system, or an array of pages: the pages' device addresses.
 * @page: system or array: current page.
 * @npages: system or array: pages of the BO or array.
 * @addr: device address of the current position.
 * @contig: bytes contiguous in device memory from @addr (0 at the end);
 *	for system memory at most %VGPU_RES_CURSOR_SCAN.
 */
struct vgpu_res_cursor {
	bool vram;
	bool linear;
	struct vgpu_vram_cursor cur;
	const dma_addr_t *dma;
	unsigned long page;
	unsigned long npages;
	u64 addr;
	u64 contig;
};

/** VGPU_RES_CURSOR_SCAN - how far ahead system pages are checked for contiguity */
#define VGPU_RES_CURSOR_SCAN	SZ_2M

static inline void vgpu_res_cursor_load(struct vgpu_res_cursor *c)
{
	unsigned long n = 1;

	if (c->linear)
		return;
	if (c->vram && !c->dma) {
		c->addr = c->cur.start;
		c->contig = c->cur.remaining;
		return;
	}
	if (c->page >= c->npages) {
		c->contig = 0;
		return;
	}
	c->addr = c->dma[c->page];
	while (c->page + n < c->npages &&
	       n < VGPU_RES_CURSOR_SCAN / PAGE_SIZE &&
	       c->dma[c->page + n] == c->addr + n * PAGE_SIZE)
		n++;
	c->contig = (u64)n * PAGE_SIZE;
}

/**
 * vgpu_res_cursor_init() - start walking a BO's resource
 * @c: cursor
 * @tbo: the BO (for its pages)
 * @res: %TTM_PL_VRAM or a populated %TTM_PL_TT resource of @tbo
 * @offset: byte offset into the BO, page aligned
 *
 * Return: 0, or -ENXIO if the device cannot reach @res.
 */
static inline int vgpu_res_cursor_init(struct vgpu_res_cursor *c,
				       struct ttm_buffer_object *tbo,
				       struct ttm_resource *res, u64 offset)
{
	memset(c, 0, sizeof(*c));
	if (res->mem_type == TTM_PL_VRAM) {
		c->vram = true;
		vgpu_vram_cursor_init(&c->cur, res, offset);
	} else if (res->mem_type == TTM_PL_TT && tbo->ttm &&
		   tbo->ttm->dma_address) {
		c->dma = tbo->ttm->dma_address;
		c->npages = tbo->ttm->num_pages;
		c->page = offset >> PAGE_SHIFT;
	} else {
		/* Swapped out or not populated: the device cannot reach it. */
		return -ENXIO;
	}
	vgpu_res_cursor_load(c);
	return 0;
}

/**
 * vgpu_res_cursor_init_dma() - walk an array of pages instead
 * @c: cursor
 * @dma: device address of each page
 * @npages: pages in @dma
 * @vram: the addresses are VRAM offsets, else DMA addresses
 *
 * For memory that is not a BO's (a process's pages, CPU-address mirrors,
 * in system memory or migrated into VRAM).
 */
static inline void vgpu_res_cursor_init_dma(struct vgpu_res_cursor *c,
					    const dma_addr_t *dma,
					    unsigned long npages, bool vram)
{
	memset(c, 0, sizeof(*c));
	c->vram = vram;
	c->dma = dma;
	c->npages = npages;
	vgpu_res_cursor_load(c);
}

/**
 * vgpu_res_cursor_init_linear() - walk a plain contiguous range instead
 * @c: cursor
 * @addr: device address of the start
 * @size: bytes
 * @vram: @addr is a VRAM offset
 */
static inline void vgpu_res_cursor_init_linear(struct vgpu_res_cursor *c,
					       u64 addr, u64 size, bool vram)
{
	memset(c, 0, sizeof(*c));
	c->linear = true;
	c->vram = vram;
	c->addr = addr;
	c->contig = size;
}

/**
 * vgpu_res_cursor_next() - advance
 * @c: cursor
 * @size: bytes, page aligned, at most @c->contig for a linear range
 */
static inline void vgpu_res_cursor_next(struct vgpu_res_cursor *c, u64 size)
{
	if (c->linear) {
		c->addr += size;
		c->contig -= size;
		return;
	}
	if (c->vram && !c->dma)
		vgpu_vram_cursor_next(&c->cur, size);
	else
		c->page += size >> PAGE_SHIFT;
	vgpu_res_cursor_load(c);
}

#endif /* __VGPU_RES_CURSOR_H__ */
