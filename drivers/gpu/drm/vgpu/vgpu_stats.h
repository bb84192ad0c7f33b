/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_STATS_H__
#define __VGPU_STATS_H__

#include <linux/stddef.h>
#include <linux/types.h>

#include "vgpu_hw.h"
#include "vgpu_stats_types.h"

struct attribute_group;
struct drm_printer;
struct seq_file;
struct vgpu_device;
struct vgpu_vm;

/**
 * struct vgpu_stats_client - counters of a client: a file's VMs, summed
 * @stats: the VMs' banks.
 * @engine_ns: busy time per hardware queue, ns (``drm-engine-q<N>``).
 * @modeled_ns: modeled time of the jobs per hardware queue, ns
 *	(``drm-vgpu-modeled-time-q<N>``).
 * @hw: device counters (``VGPU_CTR_*``) of the contexts the VMs ran on.
 *
 * A file keeps those of its destroyed VMs (&vgpu_file.retired), so that
 * its fdinfo figures never go back.
 */
struct vgpu_stats_client {
	u64 stats[VGPU_STAT_NR];
	u64 engine_ns[VGPU_NUM_QUEUES];
	u64 modeled_ns[VGPU_NUM_QUEUES];
	u64 hw[VGPU_CTR_NR];
};

u64 vgpu_counter_read(struct vgpu_device *vdev, unsigned int i);
/**
 * struct vgpu_stats_field - a u64 field of a QUERY struct and its counter
 * @offset: of the field in the struct.
 * @id: counter.
 */
struct vgpu_stats_field {
	u16 offset;
	u16 id;
};

/* A field of a QUERY struct @type that reports counter VGPU_STAT_<@id>. */
#define VGPU_STATS_FIELD(type, field, id)				\
	{ offsetof(type, field), VGPU_STAT_##id }

void vgpu_stats_add(struct vgpu_device *vdev, struct vgpu_vm *vm,
		    enum vgpu_stat id, s64 n);
void vgpu_stats_vm_add(struct vgpu_vm *vm, enum vgpu_stat id, s64 n);
u64 vgpu_stats_read(struct vgpu_device *vdev, enum vgpu_stat id);
u64 vgpu_stats_vm_read(struct vgpu_vm *vm, enum vgpu_stat id);
const char *vgpu_stats_name(enum vgpu_stat id);
void vgpu_stats_fill(void *out, const struct vgpu_stats_field *fields,
		     unsigned int n, struct vgpu_device *vdev,
		     struct vgpu_vm *vm);
void vgpu_stats_client_add(struct vgpu_stats_client *c, struct vgpu_vm *vm);
void vgpu_stats_reset(struct vgpu_device *vdev);

extern const struct attribute_group vgpu_stats_sysfs_group;
void vgpu_stats_debugfs_show(struct vgpu_device *vdev, struct seq_file *m);
void vgpu_stats_debugfs_bank(struct seq_file *m, const u64 *ctr);
void vgpu_stats_fdinfo_show(struct drm_printer *p,
			    const struct vgpu_stats_client *c);

#endif /* __VGPU_STATS_H__ */
