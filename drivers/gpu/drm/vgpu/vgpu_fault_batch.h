/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_FAULT_BATCH_H__
#define __VGPU_FAULT_BATCH_H__

#include <linux/types.h>

#include "vgpu_fault_batch_types.h"

struct vgpu_fault;
struct vgpu_vm;

struct vgpu_fault_batch *vgpu_fault_batch_alloc(unsigned int limit,
						unsigned int chunk_shift);
void vgpu_fault_batch_free(struct vgpu_fault_batch *b);
void vgpu_fault_batch_set_limit(struct vgpu_fault_batch *b, unsigned int limit);
void vgpu_fault_batch_reset(struct vgpu_fault_batch *b);
bool vgpu_fault_batch_add(struct vgpu_fault_batch *b, struct vgpu_vm *vm,
			  const struct vgpu_fault *f);
void vgpu_fault_batch_sort(struct vgpu_fault_batch *b);

/**
 * vgpu_fault_batch_full() - may another record be added?
 * @b: batch
 *
 * Return: true once the batch holds @b->limit records.
 */
static inline bool vgpu_fault_batch_full(const struct vgpu_fault_batch *b)
{
	return b->nr_records >= b->limit;
}

/**
 * vgpu_fault_batch_for_each_group() - iterate the groups of a sorted batch
 * @b: batch, after vgpu_fault_batch_sort()
 * @g: cursor (&struct vgpu_fault_group *)
 */
#define vgpu_fault_batch_for_each_group(b, g) \
	for ((g) = (b)->groups; (g) < (b)->groups + (b)->nr_groups; (g)++)

#endif /* __VGPU_FAULT_BATCH_H__ */
