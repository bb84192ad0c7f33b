// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/device.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "vgpu_ctx.h"
#include "vgpu_drv.h"
#include "vgpu_stats.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: counter registry
 *
 * Every counter the driver shows is one line of VGPU_STATS_LIST() in
 * ``vgpu_stats_list.h``: its id in code (``VGPU_STAT_<ID>``), its name in
 * sysfs ``counters/`` and debugfs ``counters``, its fdinfo key
 * (``drm-vgpu-<key>``), its unit, its debugfs group, where its value comes
 * from device-wide and per client, which views show it, and a line of
 * documentation.  The views are loops over that table: sysfs
 * (vgpu_stats_sysfs_group), debugfs (vgpu_stats_debugfs_show()), fdinfo
 * (vgpu_stats_fdinfo_show()) and QUERY, whose fixed uapi structs name
 * their fields' counters in small tables (vgpu_query.c, vgpu_paging.c,
 * vgpu_vm.c).  A new counter is one line of the list and its increment.
 *
 * Sources: ``VGPU_SRC_HW(CTR)`` is the device's own counter ``VGPU_CTR_*``
 * (device-wide the global bank, per client the banks of the contexts its
 * VMs ran on); ``VGPU_SRC_SW`` a driver counter, kept in a bank of
 * &struct vgpu_stats, one for the device and one per VM; ``VGPU_SRC_FN``
 * a figure the driver keeps elsewhere (the VRAM allocator's, the context
 * manager's, the fault buffer's), read here.
 *
 * An event is counted once, where it happens: vgpu_stats_add() adds to
 * the device's bank and to the bank of the VM it happened for (if any);
 * vgpu_stats_vm_add() to a VM's bank only, for the events charged to every
 * VM that maps a BO or a chunk while the device counts them once.  Moves
 * of whole BOs (TTM) and of chunks (demand paging) feed the same
 * ``evictions``, ``bytes_to_vram`` and ``bytes_to_system``.
 *
 * tests/kselftest/vgpu/vgpu_stats_test.c checks, from the same list, that
 * every counter is in each view its line names, and
 * tests/host/docs-counters.sh that user-guide.rst documents each of them
 * with its unit.
 */

enum vgpu_src_kind {
	VGPU_SRC_KIND_NONE,
	VGPU_SRC_KIND_HW,
	VGPU_SRC_KIND_SW,
	VGPU_SRC_KIND_FN,
};

/* A counter's source: its kind and, for VGPU_SRC_KIND_HW, the VGPU_CTR_*. */
struct vgpu_src {
	u8 kind;
	u8 idx;
};

#define VGPU_SRC_HW(ctr)	{ VGPU_SRC_KIND_HW, VGPU_CTR_##ctr }
#define VGPU_SRC_SW		{ VGPU_SRC_KIND_SW, 0 }
#define VGPU_SRC_FN		{ VGPU_SRC_KIND_FN, 0 }
#define VGPU_SRC_NONE		{ VGPU_SRC_KIND_NONE, 0 }

/**
 * struct vgpu_stat_desc - one line of the counter registry
 * @name: name in sysfs ``counters/`` and debugfs ``counters``.
 * @fdinfo: key after ``drm-vgpu-``, or NULL.
 * @unit: ``VGPU_STAT_UNIT_*``.
 * @group: ``VGPU_STAT_GROUP_*``.
 * @views: ``VGPU_STAT_SYSFS``, ``VGPU_STAT_DEBUGFS``, ``VGPU_STAT_GAUGE``.
 * @dev: device-wide source.
 * @client: per-client source.
 */
struct vgpu_stat_desc {
	const char *name;
	const char *fdinfo;
	u8 unit;
	u8 group;
	u8 views;
	struct vgpu_src dev;
	struct vgpu_src client;
};

#define VGPU_STAT_DESC(id, _name, _fdinfo, _unit, _group, _dev, _client, \
		       _views, _doc)					\
	[VGPU_STAT_##id] = {						\
		.name = #_name,						\
		.fdinfo = _fdinfo,					\
		.unit = VGPU_STAT_UNIT_##_unit,				\
		.group = VGPU_STAT_GROUP_##_group,			\
		.views = _views,					\
		.dev = _dev,						\
		.client = _client,					\
	},

static const struct vgpu_stat_desc vgpu_stats_desc[VGPU_STAT_NR] = {
	VGPU_STATS_LIST(VGPU_STAT_DESC)
};

/* The device group has a line per device counter. */
#define VGPU_STAT_IS_HW(id, name, fdinfo, unit, group, ...)		\
	+ (VGPU_STAT_GROUP_##group == VGPU_STAT_GROUP_DEVICE)
static_assert((0 VGPU_STATS_LIST(VGPU_STAT_IS_HW)) == VGPU_CTR_NR);

/* ------------------------------------------------------------ counting --- */

/**
 * vgpu_stats_add() - count an event in the device's bank and its VM's
 * @vdev: vgpu device
 * @vm: the VM the event happened for, or NULL
 * @id: counter
 * @n: amount
 *
 * Context: any.
 */
void vgpu_stats_add(struct vgpu_device *vdev, struct vgpu_vm *vm,
		    enum vgpu_stat id, s64 n)
{
	atomic64_add(n, &vdev->stats.v[id]);
	if (vm)
		atomic64_add(n, &vm->stats.v[id]);
}

/**
 * vgpu_stats_vm_add() - count an event in a VM's bank only
 * @vm: VM
 * @id: counter
 * @n: amount
 *
 * For events the device counts once and charges to each VM concerned
 * (every VM that maps a moved BO or chunk), and for per-client counters.
 *
 * Context: any.
 */
void vgpu_stats_vm_add(struct vgpu_vm *vm, enum vgpu_stat id, s64 n)
{
	atomic64_add(n, &vm->stats.v[id]);
}

/* ------------------------------------------------------------- reading --- */

/**
 * vgpu_counter_read() - a device counter as every view shows it
 * @vdev: vgpu device
 * @i: ``VGPU_CTR_*``
 *
 * The device's global bank, plus, for the counters debugfs'
 * ``reset_counters`` must not hide (%VGPU_CTR_KEPT: the strict-mode
 * counters), what they had counted before each reset.
 *
 * Context: inside drm_dev_enter().
 * Return: the count.
 */
u64 vgpu_counter_read(struct vgpu_device *vdev, unsigned int i)
{
	return vgpu_rd64(vdev, VGPU_COUNTER_GLOBAL(i)) + vdev->ctr_kept[i];
}

static u64 vgpu_stats_fn_read(struct vgpu_device *vdev, enum vgpu_stat id)
{
	struct vgpu_vram_stats st;
	u64 v;

	switch (id) {
	case VGPU_STAT_CONTEXT_STEALS:
		mutex_lock(&vdev->ctx.lock);
		v = vdev->ctx.steals;
		mutex_unlock(&vdev->ctx.lock);
		return v;
	case VGPU_STAT_FAULT_RECORDS_READ:
		return READ_ONCE(vdev->fault.total);
	case VGPU_STAT_DEVICE_RESETS:
		return READ_ONCE(vdev->reset.count);
	default:
		break;
	}
	vgpu_vram_mgr_stats(vdev, &st);
	switch (id) {
	case VGPU_STAT_VRAM_ALLOCS:
		return st.allocs;
	case VGPU_STAT_VRAM_ALLOC_FAILURES:
		return st.failures;
	case VGPU_STAT_VRAM_CONTIGUOUS:
		return st.contiguous;
	case VGPU_STAT_VRAM_PEAK_USED:
		return st.peak_used;
	default:
		WARN_ONCE(1, "vgpu: no reader for counter %s\n",
			  vgpu_stats_desc[id].name);
		return 0;
	}
}

/**
 * vgpu_stats_read() - the device-wide value of a counter
 * @vdev: vgpu device
 * @id: counter
 *
 * Context: process.  A device counter reads 0 once the device is gone.
 * Return: the value.
 */
u64 vgpu_stats_read(struct vgpu_device *vdev, enum vgpu_stat id)
{
	const struct vgpu_src *src = &vgpu_stats_desc[id].dev;
	u64 v = 0;
	int idx;

	switch (src->kind) {
	case VGPU_SRC_KIND_HW:
		if (drm_dev_enter(&vdev->drm, &idx)) {
			v = vgpu_counter_read(vdev, src->idx);
			drm_dev_exit(idx);
		}
		return v;
	case VGPU_SRC_KIND_SW:
		return atomic64_read(&vdev->stats.v[id]);
	case VGPU_SRC_KIND_FN:
		return vgpu_stats_fn_read(vdev, id);
	}
	return 0;
}

/**
 * vgpu_stats_vm_read() - a counter of a VM's bank
 * @vm: VM
 * @id: counter whose per-client source is %VGPU_SRC_SW
 *
 * Return: the value.
 */
u64 vgpu_stats_vm_read(struct vgpu_vm *vm, enum vgpu_stat id)
{
	return atomic64_read(&vm->stats.v[id]);
}

/**
 * vgpu_stats_name() - name of a counter in sysfs and debugfs
 * @id: counter
 *
 * Return: the name.
 */
const char *vgpu_stats_name(enum vgpu_stat id)
{
	return vgpu_stats_desc[id].name;
}

/**
 * vgpu_stats_fill() - fill the counter fields of a QUERY struct
 * @out: the struct
 * @fields: its counter fields
 * @n: number of @fields
 * @vdev: vgpu device
 * @vm: the VM whose bank to read, or NULL for the device-wide values
 */
void vgpu_stats_fill(void *out, const struct vgpu_stats_field *fields,
		     unsigned int n, struct vgpu_device *vdev,
		     struct vgpu_vm *vm)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(u64 *)(out + fields[i].offset) =
			vm ? vgpu_stats_vm_read(vm, fields[i].id) :
			     vgpu_stats_read(vdev, fields[i].id);
}

/**
 * vgpu_stats_client_add() - add a VM's counters to a client's sum
 * @c: the sum
 * @vm: VM
 */
void vgpu_stats_client_add(struct vgpu_stats_client *c, struct vgpu_vm *vm)
{
	u64 hw[VGPU_CTR_NR];
	int hw_ctx, i;

	for (i = 0; i < VGPU_STAT_NR; i++)
		c->stats[i] += atomic64_read(&vm->stats.v[i]);
	for (i = 0; i < VGPU_NUM_QUEUES; i++) {
		c->engine_ns[i] += atomic64_read(&vm->engine_ns[i]);
		c->modeled_ns[i] += atomic64_read(&vm->modeled_ns[i]);
	}
	vgpu_ctx_counters(vm, hw, &hw_ctx);
	for (i = 0; i < VGPU_CTR_NR; i++)
		c->hw[i] += hw[i];
}

static u64 vgpu_stats_client_read(const struct vgpu_stats_client *c,
				  enum vgpu_stat id)
{
	const struct vgpu_src *src = &vgpu_stats_desc[id].client;

	switch (src->kind) {
	case VGPU_SRC_KIND_HW:
		return c->hw[src->idx];
	case VGPU_SRC_KIND_SW:
		return c->stats[id];
	}
	return 0;
}

/**
 * vgpu_stats_reset() - zero the device's bank
 * @vdev: vgpu device
 *
 * Gauges (``bo_count``) and the VMs' banks stay as they are.
 */
void vgpu_stats_reset(struct vgpu_device *vdev)
{
	int i;

	for (i = 0; i < VGPU_STAT_NR; i++)
		if (!(vgpu_stats_desc[i].views & VGPU_STAT_GAUGE))
			atomic64_set(&vdev->stats.v[i], 0);
}

/* --------------------------------------------------------------- sysfs --- */

struct vgpu_stats_attr {
	struct device_attribute attr;
	enum vgpu_stat id;
};

static ssize_t vgpu_stats_sysfs_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = dev_get_drvdata(dev);
	enum vgpu_stat id = container_of(attr, struct vgpu_stats_attr, attr)->id;
	u64 v;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;
	v = vgpu_stats_read(vdev, id);
	drm_dev_exit(idx);
	return sysfs_emit(buf, "%llu\n", v);
}

#define VGPU_STAT_ATTR(_id, _name, ...)					\
	[VGPU_STAT_##_id] = {						\
		.attr = __ATTR(_name, 0444, vgpu_stats_sysfs_show, NULL), \
		.id = VGPU_STAT_##_id,					\
	},

static struct vgpu_stats_attr vgpu_stats_attrs[VGPU_STAT_NR] = {
	VGPU_STATS_LIST(VGPU_STAT_ATTR)
};

#define VGPU_STAT_ATTR_PTR(id, ...)	&vgpu_stats_attrs[VGPU_STAT_##id].attr.attr,

static struct attribute *vgpu_stats_attr_ptrs[VGPU_STAT_NR + 1] = {
	VGPU_STATS_LIST(VGPU_STAT_ATTR_PTR)
	NULL
};

static umode_t vgpu_stats_sysfs_visible(struct kobject *kobj,
					struct attribute *attr, int n)
{
	return vgpu_stats_desc[n].views & VGPU_STAT_SYSFS ? attr->mode : 0;
}

/* ``counters/``: the lines of the registry with %VGPU_STAT_SYSFS. */
const struct attribute_group vgpu_stats_sysfs_group = {
	.name = "counters",
	.attrs = vgpu_stats_attr_ptrs,
	.is_visible = vgpu_stats_sysfs_visible,
};

/* ------------------------------------------------------------- debugfs --- */

static void vgpu_stats_hit_rate(struct seq_file *m, const char *name,
				u64 hits, u64 misses)
{
	u64 total = hits + misses;
	u64 permille = total ? div64_u64(hits * 1000, total) : 0;

	seq_printf(m, "%-22s %llu.%llu%%\n", name, permille / 10, permille % 10);
}

/**
 * vgpu_stats_debugfs_bank() - print a bank of device counters
 * @m: debugfs file
 * @ctr: %VGPU_CTR_NR counters
 *
 * One line per device counter, in ``VGPU_CTR_*`` order, named by the
 * registry's device group (whose lines all have a %VGPU_SRC_HW device
 * source), then the L1 and L2 hit rates.
 */
void vgpu_stats_debugfs_bank(struct seq_file *m, const u64 *ctr)
{
	const struct vgpu_stat_desc *d;
	unsigned int i;

	for (i = 0; i < VGPU_CTR_NR; i++)
		for (d = vgpu_stats_desc; d < vgpu_stats_desc + VGPU_STAT_NR; d++)
			if (d->group == VGPU_STAT_GROUP_DEVICE && d->dev.idx == i)
				seq_printf(m, "%-22s %llu\n", d->name, ctr[i]);
	vgpu_stats_hit_rate(m, "tlb_l1_hit_rate", ctr[VGPU_CTR_L1_HIT],
			    ctr[VGPU_CTR_L1_MISS]);
	vgpu_stats_hit_rate(m, "tlb_l2_hit_rate", ctr[VGPU_CTR_L2_HIT],
			    ctr[VGPU_CTR_L2_MISS]);
}

/**
 * vgpu_stats_debugfs_show() - print the driver's counters, by group
 * @vdev: vgpu device
 * @m: debugfs file
 *
 * The ``[driver]`` and ``[paging]`` sections of debugfs ``counters``: the
 * lines of the registry with %VGPU_STAT_DEBUGFS in those groups.
 */
void vgpu_stats_debugfs_show(struct vgpu_device *vdev, struct seq_file *m)
{
	static const char *const sections[] = {
		[VGPU_STAT_GROUP_DRIVER] = "driver",
		[VGPU_STAT_GROUP_PAGING] = "paging",
	};
	unsigned int g, i;

	for (g = VGPU_STAT_GROUP_DRIVER; g <= VGPU_STAT_GROUP_PAGING; g++) {
		seq_printf(m, "\n[%s]\n", sections[g]);
		for (i = 0; i < VGPU_STAT_NR; i++)
			if (vgpu_stats_desc[i].group == g &&
			    vgpu_stats_desc[i].views & VGPU_STAT_DEBUGFS)
				seq_printf(m, "%-22s %llu\n", vgpu_stats_desc[i].name,
					   vgpu_stats_read(vdev, i));
	}
}

/* -------------------------------------------------------------- fdinfo --- */

/**
 * vgpu_stats_fdinfo_show() - print a client's ``drm-vgpu-*`` counters
 * @p: printer into the fdinfo file
 * @c: the client's counters
 *
 * The lines of the registry with an fdinfo key.
 */
void vgpu_stats_fdinfo_show(struct drm_printer *p,
			    const struct vgpu_stats_client *c)
{
	unsigned int i;

	for (i = 0; i < VGPU_STAT_NR; i++)
		if (vgpu_stats_desc[i].fdinfo)
			drm_printf(p, "drm-vgpu-%s:\t%llu%s\n",
				   vgpu_stats_desc[i].fdinfo,
				   vgpu_stats_client_read(c, i),
				   vgpu_stats_desc[i].unit == VGPU_STAT_UNIT_NS ?
				   " ns" : "");
}
