/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (c) 2026 The vgpu authors
 */
#ifndef __VGPU_SYSFS_H__
#define __VGPU_SYSFS_H__

#include <linux/types.h>

struct attribute_group;

/* Attribute groups of the PCI device, for &pci_driver.dev_groups. */
extern const struct attribute_group *vgpu_sysfs_groups[];

#endif /* __VGPU_SYSFS_H__ */
