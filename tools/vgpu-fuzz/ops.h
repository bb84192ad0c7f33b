/* SPDX-License-Identifier: MIT */
/*
 * vgpu-fuzz: the operation tables, one per op_*.c file.
 *
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef VGPU_FUZZ_OPS_H
#define VGPU_FUZZ_OPS_H

#include <sys/ioctl.h>

#include "fuzz.h"

#define FZ_OP_PRIVATE	(1u << 0)	/* needs shadows: private contexts only */
#define FZ_OP_SHARED	(1u << 1)	/* may confuse tables: shared contexts only */

/**
 * struct fz_op - one kind of operation
 * @name: for the trace and the hang report
 * @weight: how often it is picked, relative to the others
 * @flags: ``FZ_OP_*``
 * @run: does it in a context
 */
struct fz_op {
	const char *name;
	unsigned int weight;
	unsigned int flags;
	void (*run)(struct fz_thread *t, struct fz_ctx *c);
};

extern const struct fz_op fz_bo_ops[];
extern const struct fz_op fz_vm_ops[];
extern const struct fz_op fz_exec_ops[];
extern const struct fz_op fz_sync_ops[];
extern const struct fz_op fz_prime_ops[];
extern const struct fz_op fz_core_ops[];

/* @req with the struct size it encodes changed to @size. */
static inline unsigned long fz_resize_req(unsigned long req, unsigned int size)
{
	return (req & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       ((unsigned long)(size & _IOC_SIZEMASK) << _IOC_SIZESHIFT);
}

#endif /* VGPU_FUZZ_OPS_H */
