// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/maple_tree.h>
#include <linux/xarray.h>

#include "vgpu_advice.h"
#include "vgpu_vm_types.h"

/**
 * DOC: ADVISE hints per VA range
 *
 * ADVISE records its hints for a range of a VM's address space, as the
 * uapi promises (&struct drm_vgpu_advise), not for the memory behind it:
 * each VM keeps a maple tree from VA ranges to hint bits
 * (``VGPU_ADVICE_*``, &vgpu_vm.advice).  A later ADVISE of the same kind
 * over part of a range replaces the bits of that kind there and keeps
 * the others; unmapping a range (VM_BIND UNMAP, a MAP over it, the VM
 * going away) erases its hints with it.
 *
 * Pageable memory acts on the hints of every range that maps it: a
 * chunk's hint flags (&vgpu_chunk.flags) are the union of the hints of
 * the ranges, in every VM and at every VA, that map some of it, computed
 * again whenever one of those ranges is advised or unmapped
 * (vgpu_chunk_advice_update()).  When both placements are preferred
 * through different mappings, system memory wins: it is the placement
 * every mapping can reach.
 *
 * Locking: &vgpu_vm.advice_lock, the tree's external lock, ranks below
 * &vgpu_pool.lock and a BO's gpuva lock; nothing is taken under it.
 */

/**
 * vgpu_advice_init() - no hints yet
 * @vm: new VM
 */
void vgpu_advice_init(struct vgpu_vm *vm)
{
	mutex_init(&vm->advice_lock);
	mt_init_flags(&vm->advice, MT_FLAGS_LOCK_EXTERN);
	mt_set_external_lock(&vm->advice, &vm->advice_lock);
}

/**
 * vgpu_advice_fini() - drop every hint
 * @vm: VM being freed
 */
void vgpu_advice_fini(struct vgpu_vm *vm)
{
	mutex_lock(&vm->advice_lock);
	__mt_destroy(&vm->advice);
	mutex_unlock(&vm->advice_lock);
	mutex_destroy(&vm->advice_lock);
}

/**
 * vgpu_advice_set() - replace hints of some kinds over a range
 * @vm: VM
 * @va: start
 * @range: bytes, not zero
 * @mask: the ``VGPU_ADVICE_*`` bits replaced
 * @bits: their new value (within @mask)
 *
 * Return: 0 or -ENOMEM (the hints may then be replaced in part of the
 * range only).
 */
int vgpu_advice_set(struct vgpu_vm *vm, u64 va, u64 range, u32 mask, u32 bits)
{
	MA_STATE(mas, &vm->advice, va, va);
	u64 pos = va, last = va + range - 1;
	int ret = 0;

	mutex_lock(&vm->advice_lock);
	while (!ret && pos <= last) {
		void *old, *new;
		u64 end;
		u32 v;

		/* The entry, or the gap, at @pos and how far it reaches. */
		mas_set(&mas, pos);
		old = mas_walk(&mas);
		end = min_t(u64, mas.last, last);
		v = old ? xa_to_value(old) : 0;
		v = (v & ~mask) | bits;
		new = v ? xa_mk_value(v) : NULL;
		if (new != old) {
			mas_set_range(&mas, pos, end);
			ret = mas_store_gfp(&mas, new, GFP_KERNEL);
		}
		if (end == last)
			break;
		pos = end + 1;
	}
	mutex_unlock(&vm->advice_lock);
	return ret;
}

/**
 * vgpu_advice_clear() - a range is unmapped: its hints go with it
 * @vm: VM
 * @va: start
 * @range: bytes, not zero
 *
 * Cutting an entry at the ends of the range takes a node or two, small
 * allocations with GFP_KERNEL that do not fail.
 */
void vgpu_advice_clear(struct vgpu_vm *vm, u64 va, u64 range)
{
	MA_STATE(mas, &vm->advice, va, va + range - 1);

	mutex_lock(&vm->advice_lock);
	mas_store_gfp(&mas, NULL, GFP_KERNEL);
	mutex_unlock(&vm->advice_lock);
}

/**
 * vgpu_advice_get() - the hints somewhere in a range
 * @vm: VM
 * @va: start
 * @range: bytes, not zero
 *
 * Return: the OR of the ``VGPU_ADVICE_*`` bits of every part of the range.
 */
u32 vgpu_advice_get(struct vgpu_vm *vm, u64 va, u64 range)
{
	MA_STATE(mas, &vm->advice, va, va);
	void *entry;
	u32 bits = 0;

	mutex_lock(&vm->advice_lock);
	mas_for_each(&mas, entry, va + range - 1)
		bits |= xa_to_value(entry);
	mutex_unlock(&vm->advice_lock);
	return bits;
}

/**
 * vgpu_advice_bounds() - the run around a VA that has none of some hints
 * @vm: VM
 * @va: the address
 * @bits: ``VGPU_ADVICE_*`` bits
 * @lo: in: the start of the run to consider; out: where the run starts
 * @hi: in: its end (exclusive); out: where the run ends
 *
 * Return: false if @va itself has one of @bits; else true, with
 * [@lo, @hi) narrowed to the pages around @va that have none of them.
 */
bool vgpu_advice_bounds(struct vgpu_vm *vm, u64 va, u32 bits, u64 *lo, u64 *hi)
{
	MA_STATE(mas, &vm->advice, *lo, *lo);
	bool ok = true;
	void *entry;

	if (*lo >= *hi)
		return true;
	mutex_lock(&vm->advice_lock);
	mas_for_each(&mas, entry, *hi - 1) {
		if (!(xa_to_value(entry) & bits))
			continue;
		if (mas.last < va) {
			*lo = max_t(u64, *lo, mas.last + 1);
		} else if (mas.index > va) {
			*hi = min_t(u64, *hi, mas.index);
			break;
		} else {
			ok = false;
			break;
		}
	}
	mutex_unlock(&vm->advice_lock);
	return ok;
}

/**
 * vgpu_advice_find() - the first part of a range with some hints
 * @vm: VM
 * @bits: ``VGPU_ADVICE_*`` bits
 * @lo: in: the start of the range; out: where that part starts
 * @hi: in: its end (exclusive); out: where that part ends
 *
 * Return: false if no part of [@lo, @hi) has one of @bits; else true,
 * with [@lo, @hi) narrowed to the first entry that has one.
 */
bool vgpu_advice_find(struct vgpu_vm *vm, u32 bits, u64 *lo, u64 *hi)
{
	MA_STATE(mas, &vm->advice, *lo, *lo);
	bool found = false;
	void *entry;

	if (*lo >= *hi)
		return false;
	mutex_lock(&vm->advice_lock);
	mas_for_each(&mas, entry, *hi - 1) {
		if (!(xa_to_value(entry) & bits))
			continue;
		*lo = max_t(u64, *lo, mas.index);
		*hi = min_t(u64, *hi, mas.last + 1);
		found = true;
		break;
	}
	mutex_unlock(&vm->advice_lock);
	return found;
}
