// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/debugfs.h>
#include <linux/gpu_buddy.h>
#include <linux/kstrtox.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_placement.h>

#include "vgpu_admit.h"
#include "vgpu_bo.h"
#include "vgpu_ctx.h"
#include "vgpu_debugfs.h"
#include "vgpu_drv.h"
#include "vgpu_fault_log.h"
#include "vgpu_file.h"
#include "vgpu_policy.h"
#include "vgpu_pool.h"
#include "vgpu_pt.h"
#include "vgpu_pt_geom.h"
#include "vgpu_query.h"
#include "vgpu_stats.h"
#include "vgpu_sysfs.h"
#include "vgpu_vm.h"
#include "vgpu_vram_mgr.h"

/**
 * DOC: debugfs
 *
 * ``/sys/kernel/debug/dri/<bdf>/`` (also reached as ``dri/<minor>``) holds
 * the driver's internals, for people, in text:
 *
 * - ``vram_mm``: the VRAM buddy allocator: totals, largest free block,
 *   fragmentation index, free blocks per order, a one-character-per-cell
 *   map and the list of free and used runs.
 * - ``vms``: every VM of every open file (client id, process, hardware
 *   context, state, VM id) and its mappings (VA range, BO offset, permissions, where the BO
 *   is, whether the page tables hold it).
 * - ``page_tables``: every VM's page tables, as runs of entries with
 *   contiguous addresses and equal flags.
 * - ``fault_log``: the last faults, decoded (see "fault log").
 * - ``admission``: every term of the memory admission rule (BOs admitted
 *   by kind, demand, memory held, available and free swap, reserves,
 *   limit) and the number of refusals; see "memory admission".
 * - ``counters``: the device's counters, global and per context (with the
 *   owning client), TLB hit rates, and the driver's eviction, migration
 *   and fault counters: the lines of the counter registry marked for
 *   debugfs, by group (vgpu_stats.c).
 * - ``reset_counters`` (write-only): writing 1 zeroes the device counters
 *   (CONTROL.COUNTERS_RESET) and the driver's device-wide counters.
 *   Per-client counters (fdinfo) are not reset: they stay monotonic, and
 *   so do the strict-mode counters (``STRICT_STALE``,
 *   ``STRICT_BAD_CONTEXT``), whose counts since probe every view keeps
 *   showing, so that a reset cannot hide a stale-TLB use.
 * - ``reset`` (write-only): writing 1 resets the whole device now, as the
 *   driver does when the device stops answering (see "device reset"), and
 *   returns when it runs again.
 *
 * The files read live state under the locks that protect it; none of
 * them changes anything except ``reset_counters`` and ``reset``.
 */

static struct vgpu_device *m_to_vgpu(struct seq_file *m)
{
	struct drm_debugfs_entry *entry = m->private;

	return to_vgpu(entry->dev);
}

/* ------------------------------------------------------------ vram_mm --- */

#define VGPU_MM_MAP_CELLS	256
#define VGPU_MM_MAP_COLUMNS	64

struct vgpu_mm_walk {
	struct seq_file *m;
	struct gpu_buddy *mm;
	u64 *cell_used;			/* used bytes per map cell */
	u64 cell_size;
	u64 free_blocks, used_blocks, largest_free, free;
	u64 free_by_order[GPU_BUDDY_MAX_ORDER + 1];
	u64 run_start, run_end;		/* current run of equal state */
	bool run_used;
	bool print_runs;
};

static void vgpu_mm_run_flush(struct vgpu_mm_walk *w)
{
	if (w->run_end > w->run_start && w->print_runs)
		seq_printf(w->m, "  0x%010llx-0x%010llx %10llu KiB %s\n",
			   w->run_start, w->run_end - 1,
			   (w->run_end - w->run_start) >> 10,
			   w->run_used ? "used" : "free");
	w->run_start = w->run_end;
}

static void vgpu_mm_leaf(struct vgpu_mm_walk *w, struct gpu_buddy_block *b)
{
	u64 start = gpu_buddy_block_offset(b);
	u64 size = gpu_buddy_block_size(w->mm, b);
	bool used = gpu_buddy_block_is_allocated(b);
	u64 pos, end = start + size;

	if (used) {
		w->used_blocks++;
	} else {
		w->free_blocks++;
		w->free += size;
		w->largest_free = max(w->largest_free, size);
		w->free_by_order[gpu_buddy_block_order(b)]++;
	}

	if (start != w->run_end || used != w->run_used) {
		vgpu_mm_run_flush(w);
		w->run_start = start;
		w->run_used = used;
	}
	w->run_end = end;

	if (!used || !w->cell_used)
		return;
	for (pos = start; pos < end; ) {
		u64 cell = div64_u64(pos, w->cell_size);
		u64 cell_end = min((cell + 1) * w->cell_size, end);

		if (cell >= VGPU_MM_MAP_CELLS)
			break;
		w->cell_used[cell] += cell_end - pos;
		pos = cell_end;
	}
}

/* Visits the leaves (free or allocated blocks) of the buddy trees in address order. */
static void vgpu_mm_walk(struct vgpu_mm_walk *w)
{
	struct gpu_buddy_block *stack[GPU_BUDDY_MAX_ORDER + 2];
	unsigned int i, sp;

	for (i = 0; i < w->mm->n_roots; i++) {
		sp = 0;
		stack[sp++] = w->mm->roots[i];
		while (sp) {
			struct gpu_buddy_block *b = stack[--sp];

			if (gpu_buddy_block_is_split(b)) {
				if (WARN_ON_ONCE(sp + 2 > ARRAY_SIZE(stack)))
					return;
				stack[sp++] = b->right;
				stack[sp++] = b->left;
			} else {
				vgpu_mm_leaf(w, b);
			}
		}
	}
	vgpu_mm_run_flush(w);
}

static int vgpu_debugfs_vram_mm(struct seq_file *m, void *data)
{
	struct vgpu_device *vdev = m_to_vgpu(m);
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;
	struct vgpu_mm_walk *w;
	unsigned int i, frag_milli = 0;
	char line[VGPU_MM_MAP_COLUMNS + 1];

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->cell_used = kcalloc(VGPU_MM_MAP_CELLS, sizeof(u64), GFP_KERNEL);
	if (!w->cell_used) {
		kfree(w);
		return -ENOMEM;
	}
	w->m = m;
	w->mm = &mgr->mm;

	mutex_lock(&mgr->lock);
	w->cell_size = max_t(u64, DIV_ROUND_UP_ULL(mgr->mm.size, VGPU_MM_MAP_CELLS),
			     mgr->mm.chunk_size);
	/* Pass 1: totals and the map; pass 2 prints the runs. */
	vgpu_mm_walk(w);
	if (w->free)
		frag_milli = 1000 - div64_u64(w->largest_free * 1000, w->free);

	seq_printf(m, "size:              %llu\n", mgr->mm.size);
	seq_printf(m, "used:              %llu\n", mgr->mm.size - mgr->mm.avail);
	seq_printf(m, "free:              %llu\n", mgr->mm.avail);
	seq_printf(m, "kernel_used:       %llu\n", mgr->kernel_used);
	seq_printf(m, "visible_size:      %llu\n", mgr->visible_size);
	seq_printf(m, "visible_free:      %llu\n", mgr->visible_avail);
	seq_printf(m, "chunk_size:        %llu\n", mgr->mm.chunk_size);
	seq_printf(m, "used_blocks:       %llu\n", w->used_blocks);
	seq_printf(m, "free_blocks:       %llu\n", w->free_blocks);
	seq_printf(m, "largest_free:      %llu\n", w->largest_free);
	seq_printf(m, "fragmentation:     0.%03u\n", frag_milli);
	seq_puts(m, "free_by_order:    ");
	for (i = 0; i <= mgr->mm.max_order; i++)
		if (w->free_by_order[i])
			seq_printf(m, " %lluK:%llu",
				   (mgr->mm.chunk_size << i) >> 10,
				   w->free_by_order[i]);
	seq_printf(m, "\nmap: one character per %llu KiB; '#' full, '+' partly used, '.' free\n",
		   w->cell_size >> 10);
	for (i = 0; i < VGPU_MM_MAP_CELLS; i++) {
		u64 cstart = i * w->cell_size;
		u64 cend = min(cstart + w->cell_size, mgr->mm.size);
		unsigned int col = i % VGPU_MM_MAP_COLUMNS;

		if (cstart >= mgr->mm.size)
			break;
		line[col] = !w->cell_used[i] ? '.' :
			    w->cell_used[i] >= cend - cstart ? '#' : '+';
		if (col == VGPU_MM_MAP_COLUMNS - 1 || cend == mgr->mm.size) {
			line[col + 1] = '\0';
			seq_printf(m, "  0x%010llx %s\n",
				   (u64)(i - col) * w->cell_size, line);
		}
	}

	seq_puts(m, "runs:\n");
	memset(w->free_by_order, 0, sizeof(w->free_by_order));
	w->run_start = w->run_end = 0;
	w->print_runs = true;
	kfree(w->cell_used);
	w->cell_used = NULL;
	vgpu_mm_walk(w);
	mutex_unlock(&mgr->lock);

	kfree(w);
	return 0;
}

/* ---------------------------------------------------------------- vms --- */

static void vgpu_debugfs_client(struct seq_file *m, struct drm_file *file,
				struct vgpu_vm *vm)
{
	struct task_struct *task;
	struct pid *pid;
	u64 ctr[VGPU_CTR_NR];
	int hw_ctx;

	vgpu_ctx_counters(vm, ctr, &hw_ctx);
	rcu_read_lock();
	pid = rcu_dereference(file->pid);
	task = pid_task(pid, PIDTYPE_TGID);
	seq_printf(m, "client %llu pid %d comm %s context %d state %s vm %u\n",
		   file->client_id, pid_vnr(pid), task ? task->comm : "?",
		   hw_ctx, vgpu_vm_banned(vm) ? "banned" : "ok", vm->id);
	rcu_read_unlock();
}

static const char *vgpu_debugfs_bo_place(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *tbo = &gem_to_vgpu_bo(obj)->tbo;
	const char *where = "?";

	/* Never wait for a BO here: a move may be under way. */
	if (!dma_resv_trylock(obj->resv))
		return "busy";
	if (tbo->resource)
		where = tbo->resource->mem_type == TTM_PL_VRAM ? "vram" : "system";
	dma_resv_unlock(obj->resv);
	return where;
}

static void vgpu_debugfs_vm_mappings(struct seq_file *m, struct vgpu_vm *vm)
{
	struct drm_gpuva *va;

	down_read(&vm->lock);
	drm_gpuvm_for_each_va_range(va, &vm->gpuvm, VGPU_VM_USER_START,
				    VGPU_VM_USER_END) {
		struct vgpu_vma *vma = container_of(va, struct vgpu_vma, base);
		bool mapped;

		mutex_lock(&vm->pt_lock);
		mapped = vma->mapped;
		mutex_unlock(&vm->pt_lock);
		seq_printf(m, "  0x%012llx-0x%012llx %10llu KiB bo-size %llu KiB bo-offset 0x%llx %c%c%c %s %s\n",
			   va->va.addr, va->va.addr + va->va.range - 1,
			   va->va.range >> 10,
			   va->gem.obj ? (u64)va->gem.obj->size >> 10 : 0,
			   va->gem.offset,
			   vma->pte_flags & VGPU_PTE_READ ? 'r' : '-',
			   vma->pte_flags & VGPU_PTE_WRITE ? 'w' : '-',
			   vma->pte_flags & VGPU_PTE_EXEC ? 'x' : '-',
			   va->gem.obj ? vgpu_debugfs_bo_place(va->gem.obj) : "-",
			   mapped ? "mapped" : "unmapped");
	}
	up_read(&vm->lock);
}

static int vgpu_debugfs_vms(struct seq_file *m, void *data)
{
	struct vgpu_device *vdev = m_to_vgpu(m);
	struct drm_file *file;

	mutex_lock(&vdev->drm.filelist_mutex);
	list_for_each_entry(file, &vdev->drm.filelist, lhead) {
		struct vgpu_file *vfile = file->driver_priv;
		struct vgpu_vm *vm;
		unsigned long id;

		if (!vfile)
			continue;
		mutex_lock(&vfile->lock);
		xa_for_each(&vfile->vms, id, vm) {
			vgpu_debugfs_client(m, file, vm);
			vgpu_debugfs_vm_mappings(m, vm);
		}
		mutex_unlock(&vfile->lock);
	}
	mutex_unlock(&vdev->drm.filelist_mutex);
	return 0;
}

/* -------------------------------------------------------- page_tables --- */

/*
 * A run of entries that translate a contiguous VA range to a contiguous
 * address range with the same flags and page size.
 */
struct vgpu_pt_run {
	struct seq_file *m;
	u64 va, size, addr, flags, page;
	u64 entries;
	unsigned int tables[VGPU_PT_LEVELS];
};

#define VGPU_PTE_SHOWN_FLAGS	(VGPU_PTE_READ | VGPU_PTE_WRITE | VGPU_PTE_EXEC | \
				 VGPU_PTE_SYSTEM | VGPU_PTE_ACCESSED | VGPU_PTE_DIRTY)

static void vgpu_pt_run_flush(struct seq_file *m, struct vgpu_pt_run *r)
{
	if (!r->entries)
		return;
	seq_printf(m, "  0x%012llx-0x%012llx -> %s 0x%011llx %4lluK x%-6llu %c%c%c%s%s\n",
		   r->va, r->va + r->size - 1,
		   r->flags & VGPU_PTE_SYSTEM ? "sys " : "vram", r->addr,
		   r->page >> 10, r->entries,
		   r->flags & VGPU_PTE_READ ? 'r' : '-',
		   r->flags & VGPU_PTE_WRITE ? 'w' : '-',
		   r->flags & VGPU_PTE_EXEC ? 'x' : '-',
		   r->flags & VGPU_PTE_ACCESSED ? " A" : "",
		   r->flags & VGPU_PTE_DIRTY ? " D" : "");
	r->entries = 0;
}

static void vgpu_pt_run_add(struct seq_file *m, struct vgpu_pt_run *r, u64 va,
			    u64 pte, u64 page)
{
	u64 addr = pte & VGPU_PTE_ADDR_MASK;
	u64 flags = pte & VGPU_PTE_SHOWN_FLAGS;

	/* A 64 KiB fragment is 16 PTEs of one translation: one entry each. */
	if (r->entries && r->va + r->size == va && r->addr + r->size == addr &&
	    r->flags == flags && r->page == page) {
		r->size += page == SZ_64K ? SZ_4K : page;
		r->entries++;
		return;
	}
	vgpu_pt_run_flush(m, r);
	r->va = va;
	r->addr = addr;
	r->flags = flags;
	r->page = page;
	r->size = page == SZ_64K ? SZ_4K : page;
	r->entries = 1;
}

/* A walker READ visit: one entry of the tree. */
static void vgpu_pt_dump_entry(void *arg, unsigned int level, u64 va, u64 pte,
			       bool table)
{
	struct vgpu_pt_run *r = arg;

	if (table)
		r->tables[level - 1]++;
	else if (!level)
		vgpu_pt_run_add(r->m, r, va, pte,
				pte & VGPU_PTE_FRAG64K ? SZ_64K : SZ_4K);
	else if (pte & VGPU_PTE_LEAF)
		vgpu_pt_run_add(r->m, r, va, pte,
				1ull << VGPU_PT_LEVEL_SHIFT(level));
	else
		seq_printf(r->m, "  0x%012llx: level %u entry 0x%016llx has no table\n",
			   va, level, pte);
}

static void vgpu_debugfs_vm_pt(struct seq_file *m, struct vgpu_pt_run *r,
			       struct vgpu_vm *vm)
{
	memset(r, 0, sizeof(*r));
	r->m = m;
	mutex_lock(&vm->pt_lock);
	if (vm->root) {
		seq_printf(m, "  root 0x%011llx\n", vm->root->page.addr);
		r->tables[VGPU_PT_LEVELS - 1]++;
		vgpu_pt_walk(VGPU_PT_OP_READ, NULL, vm->root, 0, VGPU_VA_END,
			     NULL, 0, vgpu_pt_dump_entry, r);
		vgpu_pt_run_flush(m, r);
	}
	mutex_unlock(&vm->pt_lock);
	seq_printf(m, "  tables: L3 %u L2 %u L1 %u L0 %u\n", r->tables[3],
		   r->tables[2], r->tables[1], r->tables[0]);
}

static int vgpu_debugfs_page_tables(struct seq_file *m, void *data)
{
	struct vgpu_device *vdev = m_to_vgpu(m);
	struct vgpu_pt_run *r;
	struct drm_file *file;
	int idx;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (!drm_dev_enter(&vdev->drm, &idx)) {
		kfree(r);
		return -ENODEV;
	}
	seq_puts(m, "# VA range -> aperture address page-size xentries perms [A]ccessed [D]irty\n");
	mutex_lock(&vdev->drm.filelist_mutex);
	list_for_each_entry(file, &vdev->drm.filelist, lhead) {
		struct vgpu_file *vfile = file->driver_priv;
		struct vgpu_vm *vm;
		unsigned long id;

		if (!vfile)
			continue;
		mutex_lock(&vfile->lock);
		xa_for_each(&vfile->vms, id, vm) {
			vgpu_debugfs_client(m, file, vm);
			vgpu_debugfs_vm_pt(m, r, vm);
		}
		mutex_unlock(&vfile->lock);
	}
	mutex_unlock(&vdev->drm.filelist_mutex);
	if (READ_ONCE(vdev->migrate.ready)) {
		seq_puts(m, "kernel (copy engine)\n");
		vgpu_debugfs_vm_pt(m, r, vdev->migrate.vm);
	}
	drm_dev_exit(idx);
	kfree(r);
	return 0;
}

/* ---------------------------------------------------------- fault_log --- */

static int vgpu_debugfs_fault_log(struct seq_file *m, void *data)
{
	vgpu_fault_log_show(m_to_vgpu(m), m);
	return 0;
}

/* ---------------------------------------------------------- admission --- */

static int vgpu_debugfs_admission(struct seq_file *m, void *data)
{
	struct drm_printer p = drm_seq_file_printer(m);

	vgpu_admit_print(m_to_vgpu(m), &p);
	return 0;
}

/* ----------------------------------------------------------- counters --- */

static int vgpu_debugfs_counters(struct seq_file *m, void *data)
{
	struct vgpu_device *vdev = m_to_vgpu(m);
	u64 ctr[VGPU_CTR_NR];
	unsigned int c, i;
	int idx;

	if (!drm_dev_enter(&vdev->drm, &idx))
		return -ENODEV;

	seq_puts(m, "[device]\n");
	for (i = 0; i < VGPU_CTR_NR; i++)
		ctr[i] = vgpu_counter_read(vdev, i);
	vgpu_stats_debugfs_bank(m, ctr);

	mutex_lock(&vdev->ctx.lock);
	for (c = 0; c < vdev->num_contexts && c < VGPU_NUM_CONTEXTS; c++) {
		struct vgpu_vm *vm = vdev->ctx.owner[c];

		if (c >= vdev->ctx.first && !vm)
			continue;
		for (i = 0; i < VGPU_CTR_NR; i++)
			ctr[i] = vgpu_rd64(vdev, VGPU_COUNTER_CTX(c, i));
		if (vm && vm->client_id)
			seq_printf(m, "\n[context %u: client %llu]\n", c, vm->client_id);
		else
			seq_printf(m, "\n[context %u: kernel]\n", c);
		vgpu_stats_debugfs_bank(m, ctr);
	}
	mutex_unlock(&vdev->ctx.lock);
	drm_dev_exit(idx);

	vgpu_stats_debugfs_show(vdev, m);
	seq_puts(m, "\n[policy]\n");
	seq_printf(m, "%-22s %s\n", "eviction_policy",
		   vgpu_policy_evict_name(vgpu_policy_evict(vdev)));
	seq_printf(m, "%-22s %s\n", "placement_policy",
		   vgpu_policy_place_name(vgpu_policy_place(vdev)));
	return 0;
}

/* ----------------------------------------------------- reset_counters --- */

/**
 * vgpu_counters_reset() - zero the device's and the driver's global counters
 * @vdev: vgpu device
 *
 * Writes CONTROL.COUNTERS_RESET, which zeroes every counter bank of the
 * device, then the driver's device-wide counters (the device's bank of
 * &struct vgpu_stats but its gauges, which holds the paging code's and
 * the VRAM pool's too; the VRAM allocator's; the fault log's
 * per-resolution counts).  Each VM's share of its context's counters is
 * folded into the VM's accumulator first, and its base snapshot moved to
 * zero, so that per-client counters (fdinfo, QUERY) neither jump nor go
 * backwards.
 */
void vgpu_counters_reset(struct vgpu_device *vdev)
{
	struct vgpu_ctx_mgr *cm = &vdev->ctx;
	struct vgpu_vram_mgr *mgr = &vdev->vram_mgr;
	int idx;

	if (drm_dev_enter(&vdev->drm, &idx)) {
		mutex_lock(&cm->lock);
		vgpu_ctx_fold_counters_locked(vdev);
		vgpu_wr32(vdev, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
		cm->steals = 0;
		mutex_unlock(&cm->lock);
		drm_dev_exit(idx);
	}

	vgpu_stats_reset(vdev);

	mutex_lock(&mgr->lock);
	mgr->allocs = 0;
	mgr->failures = 0;
	mgr->contiguous = 0;
	mgr->peak_used = mgr->mm.size - mgr->mm.avail;
	mutex_unlock(&mgr->lock);

	vgpu_fault_log_reset_counters(vdev);
}

/* A write-only file: writing true runs @action, false does nothing. */
static ssize_t vgpu_debugfs_trigger(struct file *f, const char __user *ubuf,
				    size_t len,
				    int (*action)(struct vgpu_device *vdev))
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &on);
	if (!ret && on)
		ret = action(file_inode(f)->i_private);
	return ret ?: len;
}

/*
 * VGPU_DEBUGFS_TRIGGER(name) - &name_fops: a write-only file that calls
 * name_action() when "1" (any true kstrtobool value) is written.
 */
#define VGPU_DEBUGFS_TRIGGER(name)					\
static ssize_t name##_write(struct file *f, const char __user *ubuf,	\
			    size_t len, loff_t *pos)			\
{									\
	return vgpu_debugfs_trigger(f, ubuf, len, name##_action);	\
}									\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.write = name##_write,						\
	.llseek = noop_llseek,						\
}

static int vgpu_reset_counters_action(struct vgpu_device *vdev)
{
	vgpu_counters_reset(vdev);
	return 0;
}

VGPU_DEBUGFS_TRIGGER(vgpu_reset_counters);

/* -------------------------------------------------------------- reset --- */

static int vgpu_reset_action(struct vgpu_device *vdev)
{
	return vgpu_reset_now(vdev, "requested through debugfs");
}

VGPU_DEBUGFS_TRIGGER(vgpu_reset);

static const struct drm_debugfs_info vgpu_debugfs_list[] = {
	{ "vram_mm", vgpu_debugfs_vram_mm },
	{ "vms", vgpu_debugfs_vms },
	{ "page_tables", vgpu_debugfs_page_tables },
	{ "fault_log", vgpu_debugfs_fault_log },
	{ "counters", vgpu_debugfs_counters },
	{ "admission", vgpu_debugfs_admission },
};

/**
 * vgpu_debugfs_register() - create the driver's debugfs files
 * @vdev: vgpu device, set up
 *
 * The DRM core calls &drm_driver.debugfs_init for primary nodes only, and
 * vgpu has just a render node, so probe calls this.  The files live in the
 * device's directory, removed by drm_dev_unregister().
 */
void vgpu_debugfs_register(struct vgpu_device *vdev)
{
	struct drm_device *drm = &vdev->drm;

	if (!drm->debugfs_root)
		return;
	drm_debugfs_add_files(drm, vgpu_debugfs_list,
			      ARRAY_SIZE(vgpu_debugfs_list));
	debugfs_create_file("reset_counters", 0200, drm->debugfs_root, vdev,
			    &vgpu_reset_counters_fops);
	debugfs_create_file("reset", 0200, drm->debugfs_root, vdev,
			    &vgpu_reset_fops);
	debugfs_create_atomic_t("fail_chunk_copies", 0600, drm->debugfs_root,
				&vdev->migrate.fail_chunk_copies);
	debugfs_create_u32("slow_fault_pages_ms", 0600, drm->debugfs_root,
			   &vdev->paging.slow_fault_pages_ms);
}
