// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/device.h>
#include <linux/pci.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>

#include "vgpu_admit.h"
#include "vgpu_drv.h"
#include "vgpu_evict_policy.h"
#include "vgpu_policy.h"
#include "vgpu_stats.h"
#include "vgpu_sysfs.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: sysfs
 *
 * The PCI device of a vgpu (``/sys/bus/pci/devices/<bdf>/``, also
 * ``/sys/class/drm/renderD<N>/device/``) carries, while the driver is
 * bound, one value per file:
 *
 * - memory, in bytes: ``vram_total``, ``vram_used``, ``vram_kernel_used``,
 *   ``visible_vram_total``, ``visible_vram_used``, ``gtt_total``,
 *   ``gtt_used`` (system memory held by BOs in the system placement),
 *   ``bo_count``, and the memory admission's ``admit_used`` (system memory
 *   the device's BOs may need at worst) and ``admit_limit`` (what they may
 *   have; see "memory admission");
 * - policies, read/write: ``eviction_policy`` and ``placement_policy``,
 *   with ``available_eviction_policies`` and
 *   ``available_placement_policies``; writing an unknown name fails with
 *   EINVAL, a known but unimplemented one with EOPNOTSUPP, and changes
 *   nothing;
 * - ``counters/``: the device's global counter bank (TLB, walks, faults,
 *   bytes per aperture, strict-mode checks) and the driver's own
 *   counters (evictions, bytes migrated, VRAM allocator, contexts, BOs
 *   the memory admission refused, ``device_resets``: whole-device resets
 *   since probe, see "device reset") and
 *   those of the paging code (faults handled in batches, duplicates,
 *   resolved and cancelled faults, remote mappings, thrashing, prefetch)
 *   and of the VRAM pool (``pool_*``: victims and their bytes per kind of
 *   unit, searches, searches without a victim), all monotonic until reset
 *   through debugfs ``reset_counters`` (``device_resets`` excepted): the
 *   lines of the counter registry marked for sysfs (vgpu_stats.c).
 *
 * The files are created by the driver core after probe and removed before
 * remove() (&pci_driver.dev_groups), so they never see a
 * half-initialised device; after a hot unplug they fail with ENODEV.
 */

static struct vgpu_device *dev_to_vgpu(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/* ------------------------------------------------------------- memory --- */

enum vgpu_mem_attr {
	VGPU_MEM_VRAM_TOTAL,
	VGPU_MEM_VRAM_USED,
	VGPU_MEM_VRAM_KERNEL_USED,
	VGPU_MEM_VISIBLE_TOTAL,
	VGPU_MEM_VISIBLE_USED,
	VGPU_MEM_GTT_TOTAL,
	VGPU_MEM_GTT_USED,
	VGPU_MEM_BO_COUNT,
	VGPU_MEM_ADMIT_USED,
	VGPU_MEM_ADMIT_LIMIT,
};

struct vgpu_sysfs_attr {
	struct device_attribute attr;
	unsigned int idx;
};

#define to_vgpu_sysfs_attr(a) container_of(a, struct vgpu_sysfs_attr, attr)

/* A read-only u64 attribute @_name: @_show prints the value @_idx selects. */
#define VGPU_SYSFS_ATTR_RO(_var, _name, _show, _idx)			\
	static struct vgpu_sysfs_attr _var = {				\
		.attr = __ATTR(_name, 0444, _show, NULL),		\
		.idx = _idx,						\
	}

static ssize_t vgpu_mem_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct vgpu_device *vdev = dev_to_vgpu(dev);
	unsigned int idx = to_vgpu_sysfs_attr(attr)->idx;
	struct vgpu_admit_stats ad;
	struct vgpu_vram_stats st;
	u64 v = 0;

	if (idx == VGPU_MEM_ADMIT_USED || idx == VGPU_MEM_ADMIT_LIMIT) {
		vgpu_admit_stats(vdev, &ad);
		return sysfs_emit(buf, "%llu\n", idx == VGPU_MEM_ADMIT_USED ?
				  ad.demand : ad.limit);
	}
	vgpu_vram_mgr_stats(vdev, &st);
	switch (idx) {
	case VGPU_MEM_VRAM_TOTAL:
		v = st.size;
		break;
	case VGPU_MEM_VRAM_USED:
		v = st.used;
		break;
	case VGPU_MEM_VRAM_KERNEL_USED:
		v = st.kernel_used;
		break;
	case VGPU_MEM_VISIBLE_TOTAL:
		v = st.visible_size;
		break;
	case VGPU_MEM_VISIBLE_USED:
		v = st.visible_used;
		break;
	case VGPU_MEM_GTT_TOTAL:
		v = vdev->sys_mgr.size;
		break;
	case VGPU_MEM_GTT_USED:
		v = ttm_resource_manager_usage(&vdev->sys_mgr);
		break;
	case VGPU_MEM_BO_COUNT:
		v = vgpu_stats_read(vdev, VGPU_STAT_BO_COUNT);
		break;
	}
	return sysfs_emit(buf, "%llu\n", v);
}

#define VGPU_MEM_ATTR(_name, _idx)					\
	VGPU_SYSFS_ATTR_RO(vgpu_attr_##_name, _name, vgpu_mem_show, _idx)

VGPU_MEM_ATTR(vram_total, VGPU_MEM_VRAM_TOTAL);
VGPU_MEM_ATTR(vram_used, VGPU_MEM_VRAM_USED);
VGPU_MEM_ATTR(vram_kernel_used, VGPU_MEM_VRAM_KERNEL_USED);
VGPU_MEM_ATTR(visible_vram_total, VGPU_MEM_VISIBLE_TOTAL);
VGPU_MEM_ATTR(visible_vram_used, VGPU_MEM_VISIBLE_USED);
VGPU_MEM_ATTR(gtt_total, VGPU_MEM_GTT_TOTAL);
VGPU_MEM_ATTR(gtt_used, VGPU_MEM_GTT_USED);
VGPU_MEM_ATTR(bo_count, VGPU_MEM_BO_COUNT);
VGPU_MEM_ATTR(admit_used, VGPU_MEM_ADMIT_USED);
VGPU_MEM_ATTR(admit_limit, VGPU_MEM_ADMIT_LIMIT);

/* Lanes an access kernel runs as: how many of its faults come at once. */
static ssize_t lanes_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_vgpu(dev)->lanes);
}
static DEVICE_ATTR_RO(lanes);

/* 1: the device runs in deterministic mode (hardware.rst). */
static ssize_t deterministic_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  !!(dev_to_vgpu(dev)->caps & VGPU_CAPS_DETERMINISTIC));
}
static DEVICE_ATTR_RO(deterministic);

/* ----------------------------------------------------------- policies --- */

/*
 * <file>_policy (rw) and available_<file>_policies (ro) for one policy kind
 * of vgpu_policy.h: @_kind is its infix there (evict, place), @_nr the
 * number of policies.
 */
#define VGPU_POLICY_ATTRS(_file, _kind, _nr)				\
static ssize_t _file##_policy_show(struct device *dev,			\
				   struct device_attribute *attr, char *buf) \
{									\
	struct vgpu_device *vdev = dev_to_vgpu(dev);			\
									\
	return sysfs_emit(buf, "%s\n",					\
			  vgpu_policy_##_kind##_name(vgpu_policy_##_kind(vdev))); \
}									\
									\
static ssize_t _file##_policy_store(struct device *dev,			\
				    struct device_attribute *attr,	\
				    const char *buf, size_t count)	\
{									\
	int policy = vgpu_policy_##_kind##_parse(buf);			\
	int ret;							\
									\
	if (policy < 0)							\
		return policy;						\
	ret = vgpu_policy_set_##_kind(dev_to_vgpu(dev), policy);	\
	return ret ?: count;						\
}									\
static DEVICE_ATTR_RW(_file##_policy);					\
									\
static ssize_t available_##_file##_policies_show(struct device *dev,	\
						 struct device_attribute *attr, \
						 char *buf)		\
{									\
	struct vgpu_device *vdev = dev_to_vgpu(dev);			\
	int len = 0;							\
	u32 i;								\
									\
	for (i = 0; i < (_nr); i++)					\
		if (vgpu_policy_##_kind##_supported(vdev, i))		\
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "", \
					     vgpu_policy_##_kind##_name(i)); \
	return len + sysfs_emit_at(buf, len, "\n");			\
}									\
static DEVICE_ATTR_RO(available_##_file##_policies)

VGPU_POLICY_ATTRS(eviction, evict, VGPU_EVICT_NR);
VGPU_POLICY_ATTRS(placement, place, VGPU_PLACE_NR);

static struct attribute *vgpu_attrs[] = {
	&vgpu_attr_vram_total.attr.attr,
	&vgpu_attr_vram_used.attr.attr,
	&vgpu_attr_vram_kernel_used.attr.attr,
	&vgpu_attr_visible_vram_total.attr.attr,
	&vgpu_attr_visible_vram_used.attr.attr,
	&vgpu_attr_gtt_total.attr.attr,
	&vgpu_attr_gtt_used.attr.attr,
	&vgpu_attr_bo_count.attr.attr,
	&vgpu_attr_admit_used.attr.attr,
	&vgpu_attr_admit_limit.attr.attr,
	&dev_attr_lanes.attr,
	&dev_attr_deterministic.attr,
	&dev_attr_eviction_policy.attr,
	&dev_attr_available_eviction_policies.attr,
	&dev_attr_placement_policy.attr,
	&dev_attr_available_placement_policies.attr,
	NULL
};

static const struct attribute_group vgpu_attr_group = {
	.attrs = vgpu_attrs,
};

const struct attribute_group *vgpu_sysfs_groups[] = {
	&vgpu_attr_group,
	&vgpu_stats_sysfs_group,
	NULL
};
