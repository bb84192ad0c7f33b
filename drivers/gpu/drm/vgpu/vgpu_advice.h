/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_ADVICE_H__
#define __VGPU_ADVICE_H__

#include <linux/types.h>

struct vgpu_vm;

/* Hints of a VA range (the same bits as &vgpu_chunk.flags carries). */
/** VGPU_ADVICE_PREF_SYSTEM - preferred placement: system memory */
#define VGPU_ADVICE_PREF_SYSTEM	BIT(2)
/** VGPU_ADVICE_PREF_VRAM - preferred placement: VRAM */
#define VGPU_ADVICE_PREF_VRAM	BIT(3)
/** VGPU_ADVICE_READ_MOSTLY - rarely written */
#define VGPU_ADVICE_READ_MOSTLY	BIT(4)
/** VGPU_ADVICE_ACCESSED_BY - the GPU keeps a mapping wherever it lives */
#define VGPU_ADVICE_ACCESSED_BY	BIT(5)
/** VGPU_ADVICE_ALL - every hint */
#define VGPU_ADVICE_ALL		(VGPU_ADVICE_PREF_SYSTEM | VGPU_ADVICE_PREF_VRAM | \
				 VGPU_ADVICE_READ_MOSTLY | VGPU_ADVICE_ACCESSED_BY)

void vgpu_advice_init(struct vgpu_vm *vm);
void vgpu_advice_fini(struct vgpu_vm *vm);
int vgpu_advice_set(struct vgpu_vm *vm, u64 va, u64 range, u32 mask, u32 bits);
void vgpu_advice_clear(struct vgpu_vm *vm, u64 va, u64 range);
u32 vgpu_advice_get(struct vgpu_vm *vm, u64 va, u64 range);
bool vgpu_advice_bounds(struct vgpu_vm *vm, u64 va, u32 bits, u64 *lo, u64 *hi);
bool vgpu_advice_find(struct vgpu_vm *vm, u32 bits, u64 *lo, u64 *hi);

#endif /* __VGPU_ADVICE_H__ */
