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
#include "vgpu_query.h"
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
 *   the memory admission refused) and
 *   those of the paging code (faults handled in batches, duplicates,
 *   resolved and cancelled faults, remote mappings, thrashing, prefetch)
 *   and of the VRAM pool (``pool_*``: victims and their bytes per kind of
 *   unit, searches, searches without a victim),
 *   all monotonic until reset through debugfs ``reset_counters``.
 *
 * The files are created by the driver core after probe and removed before
 * remove() (&pci_driver.dev_groups), so they never see a
 * half-initialised device; after a hot unplug they fail with ENODEV.
 */

static const char *const vgpu_hw_counter_names[VGPU_CTR_NR] = {
	[VGPU_CTR_L1_HIT] = "tlb_l1_hits",
	[VGPU_CTR_L1_MISS] = "tlb_l1_misses",
	[VGPU_CTR_L2_HIT] = "tlb_l2_hits",
	[VGPU_CTR_L2_MISS] = "tlb_l2_misses",
	[VGPU_CTR_WALKS] = "pt_walks",
	[VGPU_CTR_PT_READS] = "pt_reads",
	[VGPU_CTR_FAULTS] = "gpu_faults",
	[VGPU_CTR_VRAM_READ_BYTES] = "vram_read_bytes",
	[VGPU_CTR_VRAM_WRITE_BYTES] = "vram_write_bytes",
	[VGPU_CTR_SYS_READ_BYTES] = "sys_read_bytes",
	[VGPU_CTR_SYS_WRITE_BYTES] = "sys_write_bytes",
	[VGPU_CTR_INVALIDATIONS] = "tlb_invalidations",
	[VGPU_CTR_COMMANDS] = "commands",
	[VGPU_CTR_STRICT_STALE] = "strict_stale",
	[VGPU_CTR_STRICT_BAD_CONTEXT] = "strict_bad_context",
	[VGPU_CTR_FAULT_OVERFLOWS] = "fault_overflows",
};

/**
 * vgpu_hw_counter_name() - name of a device counter (``VGPU_CTR_*``)
 * @idx: counter index
 *
 * Return: the name used in sysfs and debugfs, or "unknown".
 */
const char *vgpu_hw_counter_name(unsigned int idx)
{
	return idx < VGPU_CTR_NR && vgpu_hw_counter_names[idx] ?
	       vgpu_hw_counter_names[idx] : "unknown";
}

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
		v = atomic64_read(&vdev->stats.bo_count);
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
	&dev_attr_eviction_policy.attr,
	&dev_attr_available_eviction_policies.attr,
	&dev_attr_placement_policy.attr,
	&dev_attr_available_placement_policies.attr,
	NULL
};

static const struct attribute_group vgpu_attr_group = {
	.attrs = vgpu_attrs,
};

/* ----------------------------------------------------------- counters --- */

static ssize_t vgpu_hw_counter_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = dev_to_vgpu(dev);
	u64 v;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	v = vgpu_counter_read(vdev, to_vgpu_sysfs_attr(attr)->idx);
	drm_dev_exit(idx);
	return sysfs_emit(buf, "%llu\n", v);
}

#define VGPU_HW_COUNTER_ATTR(_name, _idx)				\
	VGPU_SYSFS_ATTR_RO(vgpu_ctr_##_name, _name, vgpu_hw_counter_show, _idx)

VGPU_HW_COUNTER_ATTR(tlb_l1_hits, VGPU_CTR_L1_HIT);
VGPU_HW_COUNTER_ATTR(tlb_l1_misses, VGPU_CTR_L1_MISS);
VGPU_HW_COUNTER_ATTR(tlb_l2_hits, VGPU_CTR_L2_HIT);
VGPU_HW_COUNTER_ATTR(tlb_l2_misses, VGPU_CTR_L2_MISS);
VGPU_HW_COUNTER_ATTR(pt_walks, VGPU_CTR_WALKS);
VGPU_HW_COUNTER_ATTR(pt_reads, VGPU_CTR_PT_READS);
VGPU_HW_COUNTER_ATTR(gpu_faults, VGPU_CTR_FAULTS);
VGPU_HW_COUNTER_ATTR(vram_read_bytes, VGPU_CTR_VRAM_READ_BYTES);
VGPU_HW_COUNTER_ATTR(vram_write_bytes, VGPU_CTR_VRAM_WRITE_BYTES);
VGPU_HW_COUNTER_ATTR(sys_read_bytes, VGPU_CTR_SYS_READ_BYTES);
VGPU_HW_COUNTER_ATTR(sys_write_bytes, VGPU_CTR_SYS_WRITE_BYTES);
VGPU_HW_COUNTER_ATTR(tlb_invalidations, VGPU_CTR_INVALIDATIONS);
VGPU_HW_COUNTER_ATTR(commands, VGPU_CTR_COMMANDS);
VGPU_HW_COUNTER_ATTR(strict_stale, VGPU_CTR_STRICT_STALE);
VGPU_HW_COUNTER_ATTR(strict_bad_context, VGPU_CTR_STRICT_BAD_CONTEXT);
VGPU_HW_COUNTER_ATTR(fault_overflows, VGPU_CTR_FAULT_OVERFLOWS);

enum vgpu_drv_counter {
	VGPU_DRV_EVICTIONS,
	VGPU_DRV_BYTES_TO_VRAM,
	VGPU_DRV_BYTES_TO_SYSTEM,
	VGPU_DRV_CPU_FAULT_MOVES,
	VGPU_DRV_VRAM_ALLOCS,
	VGPU_DRV_VRAM_ALLOC_FAILURES,
	VGPU_DRV_VRAM_PEAK_USED,
	VGPU_DRV_CONTEXT_STEALS,
	VGPU_DRV_ADMIT_REFUSALS,
};

static ssize_t vgpu_drv_counter_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = dev_to_vgpu(dev);
	struct vgpu_vram_stats st;
	u64 v = 0;

	switch (to_vgpu_sysfs_attr(attr)->idx) {
	case VGPU_DRV_EVICTIONS:
		v = atomic64_read(&vdev->stats.evictions);
		break;
	case VGPU_DRV_BYTES_TO_VRAM:
		v = atomic64_read(&vdev->stats.bytes_to_vram);
		break;
	case VGPU_DRV_BYTES_TO_SYSTEM:
		v = atomic64_read(&vdev->stats.bytes_to_system);
		break;
	case VGPU_DRV_CPU_FAULT_MOVES:
		v = atomic64_read(&vdev->stats.cpu_fault_moves);
		break;
	case VGPU_DRV_VRAM_ALLOCS:
		vgpu_vram_mgr_stats(vdev, &st);
		v = st.allocs;
		break;
	case VGPU_DRV_VRAM_ALLOC_FAILURES:
		vgpu_vram_mgr_stats(vdev, &st);
		v = st.failures;
		break;
	case VGPU_DRV_VRAM_PEAK_USED:
		vgpu_vram_mgr_stats(vdev, &st);
		v = st.peak_used;
		break;
	case VGPU_DRV_CONTEXT_STEALS:
		mutex_lock(&vdev->ctx.lock);
		v = vdev->ctx.steals;
		mutex_unlock(&vdev->ctx.lock);
		break;
	case VGPU_DRV_ADMIT_REFUSALS:
		v = atomic64_read(&vdev->stats.admit_refusals);
		break;
	}
	return sysfs_emit(buf, "%llu\n", v);
}

#define VGPU_DRV_COUNTER_ATTR(_name, _idx)				\
	VGPU_SYSFS_ATTR_RO(vgpu_ctr_##_name, _name, vgpu_drv_counter_show, _idx)

VGPU_DRV_COUNTER_ATTR(evictions, VGPU_DRV_EVICTIONS);
VGPU_DRV_COUNTER_ATTR(bytes_to_vram, VGPU_DRV_BYTES_TO_VRAM);
VGPU_DRV_COUNTER_ATTR(bytes_to_system, VGPU_DRV_BYTES_TO_SYSTEM);
VGPU_DRV_COUNTER_ATTR(cpu_fault_moves, VGPU_DRV_CPU_FAULT_MOVES);
VGPU_DRV_COUNTER_ATTR(vram_allocs, VGPU_DRV_VRAM_ALLOCS);
VGPU_DRV_COUNTER_ATTR(vram_alloc_failures, VGPU_DRV_VRAM_ALLOC_FAILURES);
VGPU_DRV_COUNTER_ATTR(vram_peak_used, VGPU_DRV_VRAM_PEAK_USED);
VGPU_DRV_COUNTER_ATTR(context_steals, VGPU_DRV_CONTEXT_STEALS);
VGPU_DRV_COUNTER_ATTR(admit_refusals, VGPU_DRV_ADMIT_REFUSALS);

/* An atomic64_t counter of the device, at offset idx in &struct vgpu_device. */
static ssize_t vgpu_atomic_counter_show(struct device *dev,
					struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = dev_to_vgpu(dev);
	const atomic64_t *v = (const void *)vdev + to_vgpu_sysfs_attr(attr)->idx;

	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(v));
}

/* The paging code's device-wide counters (vgpu_paging_types.h). */
#define VGPU_PAGING_COUNTER_ATTR(_name, _field)				\
	VGPU_SYSFS_ATTR_RO(vgpu_ctr_##_name, _name, vgpu_atomic_counter_show, \
			   offsetof(struct vgpu_device, paging.ctr._field))

VGPU_PAGING_COUNTER_ATTR(faults_handled, faults);
VGPU_PAGING_COUNTER_ATTR(fault_batches, fault_batches);
VGPU_PAGING_COUNTER_ATTR(fault_duplicates, fault_duplicates);
VGPU_PAGING_COUNTER_ATTR(faults_resolved, faults_resolved);
VGPU_PAGING_COUNTER_ATTR(faults_cancelled, faults_cancelled);
VGPU_PAGING_COUNTER_ATTR(remote_maps, remote_maps);
VGPU_PAGING_COUNTER_ATTR(thrash_events, thrash_events);
VGPU_PAGING_COUNTER_ATTR(prefetch_bytes, prefetch_bytes);
VGPU_PAGING_COUNTER_ATTR(prefetch_used_bytes, prefetch_used_bytes);
VGPU_PAGING_COUNTER_ATTR(prefetch_wasted_bytes, prefetch_wasted_bytes);
VGPU_PAGING_COUNTER_ATTR(fault_ns, fault_ns);

/* The VRAM pool's counters (vgpu_pool_types.h), per kind of unit. */
#define VGPU_POOL_COUNTER_ATTR(_name, _field)				\
	VGPU_SYSFS_ATTR_RO(vgpu_ctr_##_name, _name, vgpu_atomic_counter_show, \
			   offsetof(struct vgpu_device, pool.stats._field))

VGPU_POOL_COUNTER_ATTR(pool_evictions_bo, evictions[VGPU_POOL_BO]);
VGPU_POOL_COUNTER_ATTR(pool_evictions_chunk, evictions[VGPU_POOL_CHUNK]);
VGPU_POOL_COUNTER_ATTR(pool_bytes_bo, bytes[VGPU_POOL_BO]);
VGPU_POOL_COUNTER_ATTR(pool_bytes_chunk, bytes[VGPU_POOL_CHUNK]);
VGPU_POOL_COUNTER_ATTR(pool_make_room, make_room);
VGPU_POOL_COUNTER_ATTR(pool_no_victim, no_victim);

static struct attribute *vgpu_counter_attrs[] = {
	&vgpu_ctr_tlb_l1_hits.attr.attr,
	&vgpu_ctr_tlb_l1_misses.attr.attr,
	&vgpu_ctr_tlb_l2_hits.attr.attr,
	&vgpu_ctr_tlb_l2_misses.attr.attr,
	&vgpu_ctr_pt_walks.attr.attr,
	&vgpu_ctr_pt_reads.attr.attr,
	&vgpu_ctr_gpu_faults.attr.attr,
	&vgpu_ctr_vram_read_bytes.attr.attr,
	&vgpu_ctr_vram_write_bytes.attr.attr,
	&vgpu_ctr_sys_read_bytes.attr.attr,
	&vgpu_ctr_sys_write_bytes.attr.attr,
	&vgpu_ctr_tlb_invalidations.attr.attr,
	&vgpu_ctr_commands.attr.attr,
	&vgpu_ctr_strict_stale.attr.attr,
	&vgpu_ctr_strict_bad_context.attr.attr,
	&vgpu_ctr_fault_overflows.attr.attr,
	&vgpu_ctr_evictions.attr.attr,
	&vgpu_ctr_bytes_to_vram.attr.attr,
	&vgpu_ctr_bytes_to_system.attr.attr,
	&vgpu_ctr_cpu_fault_moves.attr.attr,
	&vgpu_ctr_vram_allocs.attr.attr,
	&vgpu_ctr_vram_alloc_failures.attr.attr,
	&vgpu_ctr_vram_peak_used.attr.attr,
	&vgpu_ctr_context_steals.attr.attr,
	&vgpu_ctr_admit_refusals.attr.attr,
	&vgpu_ctr_faults_handled.attr.attr,
	&vgpu_ctr_fault_batches.attr.attr,
	&vgpu_ctr_fault_duplicates.attr.attr,
	&vgpu_ctr_faults_resolved.attr.attr,
	&vgpu_ctr_faults_cancelled.attr.attr,
	&vgpu_ctr_remote_maps.attr.attr,
	&vgpu_ctr_thrash_events.attr.attr,
	&vgpu_ctr_prefetch_bytes.attr.attr,
	&vgpu_ctr_prefetch_used_bytes.attr.attr,
	&vgpu_ctr_prefetch_wasted_bytes.attr.attr,
	&vgpu_ctr_fault_ns.attr.attr,
	&vgpu_ctr_pool_evictions_bo.attr.attr,
	&vgpu_ctr_pool_evictions_chunk.attr.attr,
	&vgpu_ctr_pool_bytes_bo.attr.attr,
	&vgpu_ctr_pool_bytes_chunk.attr.attr,
	&vgpu_ctr_pool_make_room.attr.attr,
	&vgpu_ctr_pool_no_victim.attr.attr,
	NULL
};

static const struct attribute_group vgpu_counter_group = {
	.name = "counters",
	.attrs = vgpu_counter_attrs,
};

const struct attribute_group *vgpu_sysfs_groups[] = {
	&vgpu_attr_group,
	&vgpu_counter_group,
	NULL
};
