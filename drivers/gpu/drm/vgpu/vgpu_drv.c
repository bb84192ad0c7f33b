// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (c) 2026 The vgpu authors
 */

#include <linux/module.h>
#include <linux/pci.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/vgpu_drm.h>

#include "vgpu_bo.h"
#include "vgpu_ctx.h"
#include "vgpu_debugfs.h"
#include "vgpu_drv.h"
#include "vgpu_fault.h"
#include "vgpu_fault_log.h"
#include "vgpu_fdinfo.h"
#include "vgpu_file.h"
#include "vgpu_irq.h"
#include "vgpu_job.h"
#include "vgpu_migrate.h"
#include "vgpu_paging.h"
#include "vgpu_policy.h"
#include "vgpu_pt_pool.h"
#include "vgpu_query.h"
#include "vgpu_queue.h"
#include "vgpu_reset.h"
#include "vgpu_svm_dmem.h"
#include "vgpu_sysfs.h"
#include "vgpu_tlb.h"
#include "vgpu_ttm.h"
#include "vgpu_user_queue.h"
#include "vgpu_vm.h"

/**
 * DOC: vgpu driver overview
 *
 * vgpu.ko drives the vgpu virtual PCIe GPU (Documentation/gpu/vgpu/
 * hardware.rst).  Probe checks the identification registers, maps the
 * register BAR, reserves the VRAM aperture and the MSI-X vectors, sets up
 * TTM (VRAM and system placements), the page-table pool, the hardware
 * contexts, the interrupts, the fault buffer and one scheduler per
 * hardware queue, and registers a DRM device with a render node
 * (renderD<N>) and, as the DRM core gives every device, a primary node
 * (card<N>) without KMS, where the same ioctls work (Documentation/gpu/
 * vgpu/uapi.rst, "Device nodes").  Each open file of either node gets a
 * default GPU VM and may create more (vgpu_file.c); a VM allocates nothing
 * on the device until its first mapping.  Probe refuses a device without
 * %VGPU_CAPS_REQUIRED: user commands run only through CALL, unprivileged,
 * and page-table entries the device may be updating are cleared with its
 * exchange (vgpu_pt.c, "page tables").
 *
 * Teardown is in two halves.  remove() stops everything that touches the
 * device (interrupts, the copy engine, the fault buffer, the queues),
 * fails the jobs still in the rings with -ENODEV, waits for the closes it
 * deferred, and frees every DMA allocation and mapping (rings, the VMs'
 * stream buffers, TTM's DMA mappings).  The schedulers, memory management
 * (TTM, the page-table pool) and the VMs of files still open go when the
 * last reference to the DRM device does.
 */

/**
 * DOC: hot-unplug
 *
 * A PCI remove (``echo 1 > /sys/bus/pci/devices/<bdf>/remove``, a
 * surprise removal, or unbinding the driver) may come while clients hold
 * everything: jobs on the rings, CPU mappings of BOs in VRAM and system
 * memory, mappings in their VMs, dma-bufs exported to other drivers.
 * drm_dev_unplug() comes first: from then on drm_dev_enter() fails, and
 * every path that reaches the device checks it — ioctls (the DRM core
 * refuses them all with -ENODEV), the scheduler's prepare_job, run_job
 * and timeout handler, both interrupt threads, TLB invalidations, context
 * switches, counter reads in sysfs and debugfs, the CPU fault handler, BO
 * moves that copy to or from VRAM and populating a tt (-ENODEV: no new
 * DMA mapping for a device that is gone), pinning for a dma-buf importer
 * (-ENODEV, so an importer that comes after the unplug gets nothing),
 * ptrace access to VRAM (-ENODEV, read(2) of ``/proc/<pid>/mem`` gives
 * EIO) and the stream buffer copy.  vgpu_remove() then drops the
 * device's DMA mappings of every tt; the pages of a BO pinned for an
 * importer stay until the BO goes, since the importer may still map
 * them (vgpu_ttm_tt_share()).
 * What a client of the file sees:
 *
 * - the jobs still on the rings end with -ENODEV, as does every job
 *   submitted after;
 * - drm_dev_unplug() zaps every CPU mapping of the device's BOs (through
 *   the DRM device's address space, which dma-buf mappings share), and a
 *   later CPU fault maps a zero page (ttm_bo_vm_dummy_page(), as upstream
 *   TTM drivers do): reads give zeros, writes are lost, nothing raises
 *   SIGBUS;
 * - close() of the file, of dma-bufs, of an importer's handle and munmap()
 *   work; the BOs and VMs go with the last reference.
 *
 * A PCI rescan (``echo 1 > /sys/bus/pci/rescan``) probes the device again
 * as a new DRM device with a new render node (with another minor while
 * the old device's files are still open).
 */

static const struct drm_ioctl_desc vgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VGPU_GET_PARAM, vgpu_get_param_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_BO_CREATE, vgpu_bo_create_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_BO_MMAP_OFFSET, vgpu_bo_mmap_offset_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_VM_BIND, vgpu_vm_bind_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_EXEC, vgpu_exec_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_WAIT_BO, vgpu_wait_bo_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_QUERY, vgpu_query_ioctl, DRM_RENDER_ALLOW),
	/* Demand paging (vgpu_paging.c) */
	DRM_IOCTL_DEF_DRV(VGPU_PREFETCH, vgpu_prefetch_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_ADVISE, vgpu_advise_ioctl, DRM_RENDER_ALLOW),
	/* More VMs and exec queues per file (vgpu_file.c, vgpu_user_queue.c) */
	DRM_IOCTL_DEF_DRV(VGPU_VM_CREATE, vgpu_vm_create_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_VM_DESTROY, vgpu_vm_destroy_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_EXEC_QUEUE_CREATE, vgpu_exec_queue_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_EXEC_QUEUE_DESTROY, vgpu_exec_queue_destroy_ioctl,
			  DRM_RENDER_ALLOW),
};

static const struct file_operations vgpu_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver vgpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_GEM_GPUVA | DRIVER_RENDER |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
	.open = vgpu_file_open,
	.postclose = vgpu_file_postclose,
	.ioctls = vgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(vgpu_ioctls),
	.fops = &vgpu_fops,
	.show_fdinfo = vgpu_show_fdinfo,
	.gem_prime_import_sg_table = vgpu_gem_prime_import_sg_table,
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.major = DRIVER_MAJOR,
	.minor = DRIVER_MINOR,
};

static void vgpu_drm_release(struct drm_device *drm, void *arg)
{
	struct vgpu_device *vdev = arg;

	/* Open files kept entities on the schedulers until now. */
	vgpu_queues_fini(vdev);
	vgpu_pt_pool_fini(vdev);
	vgpu_ttm_fini(vdev);
}

static void vgpu_wq_release(struct drm_device *drm, void *arg)
{
	destroy_workqueue(arg);
}

/* Everything that talks to the device, in the order it is set up. */
static int vgpu_hw_init(struct vgpu_device *vdev)
{
	int ret;

	vgpu_tlb_init(vdev);
	vgpu_ctx_init(vdev);
	vgpu_reset_init(vdev);

	/* Whatever a previous driver left (roots, rings, TLBs) goes. */
	ret = vgpu_reset_hw(vdev);
	if (ret) {
		drm_err(&vdev->drm, "device not ready after reset\n");
		return ret;
	}

	ret = vgpu_irq_init(vdev);
	if (ret)
		return ret;
	ret = vgpu_fault_init(vdev);
	if (ret)
		goto err_irq_fini;
	ret = vgpu_queues_init(vdev);
	if (ret)
		goto err_fault_fini;
	vgpu_irq_enable(vdev);
	ret = vgpu_migrate_init(vdev);
	if (ret)
		goto err_queues_fini;
	return 0;

err_queues_fini:
	vgpu_queues_unplug(vdev);
	vgpu_queues_fini(vdev);
err_fault_fini:
	vgpu_fault_fini(vdev);
err_irq_fini:
	vgpu_irq_fini(vdev);
	return ret;
}

static void vgpu_hw_fini(struct vgpu_device *vdev)
{
	vgpu_migrate_fini(vdev);
	vgpu_irq_fini(vdev);
	cancel_work_sync(&vdev->reset.work);
	vgpu_queues_unplug(vdev);
	vgpu_fault_fini(vdev);
}

static int vgpu_hw_identify(struct vgpu_device *vdev)
{
	struct drm_device *drm = &vdev->drm;
	u32 id = vgpu_rd32(vdev, VGPU_REG_ID);
	u32 major;

	if (id != VGPU_ID_MAGIC) {
		drm_err(drm, "bad ID register %#010x, expected %#010x\n",
			id, VGPU_ID_MAGIC);
		return -ENODEV;
	}

	vdev->hw_version = vgpu_rd32(vdev, VGPU_REG_VERSION);
	major = (vdev->hw_version & VGPU_VERSION_MAJOR_MASK) >>
		VGPU_VERSION_MAJOR_SHIFT;
	if (major != VGPU_VERSION_MAJOR) {
		drm_err(drm, "unsupported hardware version %u.%u\n", major,
			vdev->hw_version & VGPU_VERSION_MINOR_MASK);
		return -ENODEV;
	}

	vdev->caps = vgpu_rd32(vdev, VGPU_REG_CAPS);
	vdev->vram_size = vgpu_rd64(vdev, VGPU_REG_VRAM_SIZE_LO);
	vdev->visible_size = vgpu_rd64(vdev, VGPU_REG_VISIBLE_SIZE_LO);
	vdev->num_queues = vgpu_rd32(vdev, VGPU_REG_NUM_QUEUES);
	vdev->num_contexts = vgpu_rd32(vdev, VGPU_REG_NUM_CONTEXTS);
	vdev->lanes = vdev->caps & VGPU_CAPS_LANES ?
		      vgpu_rd32(vdev, VGPU_REG_LANES) : 1;

	if (!vdev->vram_size || vdev->visible_size > vdev->vram_size ||
	    !vdev->num_queues || !vdev->num_contexts || !vdev->lanes ||
	    vdev->lanes > VGPU_LANES_MAX) {
		drm_err(drm, "inconsistent device parameters\n");
		return -ENODEV;
	}
	/*
	 * User streams run only through CALL, unprivileged (vgpu_stream.c);
	 * live page-table entries are cleared with PT_XCHG (vgpu_pt.c).
	 */
	if ((vdev->caps & VGPU_CAPS_REQUIRED) != VGPU_CAPS_REQUIRED) {
		drm_err(drm, "device lacks CALL, FENCE_NOWRITE, privilege levels or PT_XCHG (caps %#x)\n",
			vdev->caps);
		return -ENODEV;
	}

	return 0;
}

static int vgpu_pci_setup(struct vgpu_device *vdev, struct pci_dev *pdev)
{
	struct drm_device *drm = &vdev->drm;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		drm_err(drm, "no usable DMA mask: %d\n", ret);
		return ret;
	}

	vdev->mmio = pcim_iomap_region(pdev, VGPU_BAR_MMIO, DRIVER_NAME);
	if (IS_ERR(vdev->mmio)) {
		drm_err(drm, "cannot map register BAR: %pe\n", vdev->mmio);
		return PTR_ERR(vdev->mmio);
	}

	ret = pcim_request_region(pdev, VGPU_BAR_VRAM, DRIVER_NAME);
	if (ret) {
		drm_err(drm, "cannot reserve VRAM BAR: %d\n", ret);
		return ret;
	}
	vdev->visible_base = pci_resource_start(pdev, VGPU_BAR_VRAM);

	ret = pci_alloc_irq_vectors(pdev, VGPU_MSIX_NR_VECTORS,
				    VGPU_MSIX_NR_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0) {
		drm_err(drm, "cannot allocate %d MSI-X vectors: %d\n",
			VGPU_MSIX_NR_VECTORS, ret);
		return ret;
	}

	return 0;
}

static int vgpu_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct vgpu_device *vdev;
	struct drm_device *drm;
	int ret;

	vdev = devm_drm_dev_alloc(&pdev->dev, &vgpu_drm_driver,
				  struct vgpu_device, drm);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	drm = &vdev->drm;
	pci_set_drvdata(pdev, vdev);

	ret = vgpu_pci_setup(vdev, pdev);
	if (ret)
		return ret;

	ret = vgpu_hw_identify(vdev);
	if (ret)
		goto err_free_irq_vectors;

	if (pci_resource_len(pdev, VGPU_BAR_VRAM) < vdev->visible_size) {
		drm_err(drm, "VRAM BAR (%llu bytes) smaller than the visible window\n",
			(u64)pci_resource_len(pdev, VGPU_BAR_VRAM));
		ret = -ENODEV;
		goto err_free_irq_vectors;
	}

	ret = vgpu_ttm_init(vdev);
	if (ret)
		goto err_free_irq_vectors;
	vgpu_pt_pool_init(vdev);
	/* BOs may outlive the PCI device in open files: TTM goes last. */
	ret = drmm_add_action_or_reset(drm, vgpu_drm_release, vdev);
	if (ret)
		goto err_free_irq_vectors;

	mutex_init(&vdev->vms_lock);
	INIT_LIST_HEAD(&vdev->vms);
	spin_lock_init(&vdev->inval_lock);
	INIT_LIST_HEAD(&vdev->inval_vms);
	vdev->wq = alloc_ordered_workqueue("vgpu-close", 0);
	if (!vdev->wq) {
		ret = -ENOMEM;
		goto err_free_irq_vectors;
	}
	ret = drmm_add_action_or_reset(drm, vgpu_wq_release, vdev->wq);
	if (ret)
		goto err_free_irq_vectors;

	vgpu_fault_log_init(&vdev->fault_log);
	vgpu_policy_init(vdev);
	ret = vgpu_hw_init(vdev);
	if (ret)
		goto err_free_irq_vectors;

	vgpu_svm_dmem_init(vdev);
	vgpu_debugfs_register(vdev);
	ret = drm_dev_register(drm, 0);
	if (ret)
		goto err_hw_fini;

	drm_info(drm, "vgpu %u.%u: %llu MiB VRAM (%llu MiB CPU-visible), %u queues, %u contexts\n",
		 (vdev->hw_version & VGPU_VERSION_MAJOR_MASK) >> VGPU_VERSION_MAJOR_SHIFT,
		 vdev->hw_version & VGPU_VERSION_MINOR_MASK,
		 vdev->vram_size >> 20, vdev->visible_size >> 20,
		 vdev->num_queues, vdev->num_contexts);
	return 0;

err_hw_fini:
	vgpu_svm_dmem_fini(vdev);
	vgpu_hw_fini(vdev);
err_free_irq_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

static void vgpu_remove(struct pci_dev *pdev)
{
	struct vgpu_device *vdev = pci_get_drvdata(pdev);

	/* SVM memory leaves VRAM while the copy engine still runs. */
	vgpu_svm_dmem_fini(vdev);
	drm_dev_unplug(&vdev->drm);
	vgpu_hw_fini(vdev);
	/* Every job fence has signalled: deferred closes finish now. */
	flush_workqueue(vdev->wq);
	/* Open files keep their BOs and VMs, but not their DMA mappings. */
	vgpu_vm_unplug_all(vdev);
	ttm_device_clear_dma_mappings(&vdev->ttm);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id vgpu_pci_ids[] = {
	{ PCI_DEVICE(VGPU_PCI_VENDOR_ID, VGPU_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, vgpu_pci_ids);

static struct pci_driver vgpu_pci_driver = {
	.name = DRIVER_NAME,
	.id_table = vgpu_pci_ids,
	.probe = vgpu_probe,
	.remove = vgpu_remove,
	.err_handler = &vgpu_pci_err_handlers,
	.dev_groups = vgpu_sysfs_groups,
};

/* Last VM references dropped away from the schedulers (vgpu_vm_put_async()). */
struct workqueue_struct *vgpu_release_wq;

static int __init vgpu_init(void)
{
	int ret;

	vgpu_release_wq = alloc_workqueue("vgpu-release", WQ_UNBOUND, 0);
	if (!vgpu_release_wq)
		return -ENOMEM;
	ret = pci_register_driver(&vgpu_pci_driver);
	if (ret)
		destroy_workqueue(vgpu_release_wq);
	return ret;
}
module_init(vgpu_init);

static void __exit vgpu_exit(void)
{
	pci_unregister_driver(&vgpu_pci_driver);
	/* Devices released by a job's end after their remove go first. */
	destroy_workqueue(vgpu_release_wq);
}
module_exit(vgpu_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
MODULE_AUTHOR("The vgpu authors");
