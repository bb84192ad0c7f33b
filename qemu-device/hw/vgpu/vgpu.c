/*
 * vgpu: a virtual PCIe GPU with VRAM, an MMU and hardware queues.
 *
 * Device core: PCI identity, BARs, the register file, interrupts, reset,
 * migration.  The hardware contract (offsets, fields, formats) is
 * include/hw/vgpu/vgpu_hw.h; its prose is Documentation/gpu/vgpu/hardware.rst.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "hw/vgpu/vgpu_hw.h"
#include "trace.h"

#define TYPE_VGPU "vgpu"
OBJECT_DECLARE_SIMPLE_TYPE(VGPUState, VGPU)

struct VGPUState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion vram;
    MemoryRegion vram_bar;
    MemoryRegion vram_window;

    uint64_t vram_size;
    uint64_t visible_size;
    bool strict;

    uint64_t visible_base;
};

static uint64_t vgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    VGPUState *s = opaque;
    uint64_t val = 0;

    switch (addr) {
    case VGPU_REG_ID:
        val = VGPU_ID_MAGIC;
        break;
    case VGPU_REG_VERSION:
        val = (VGPU_VERSION_MAJOR << VGPU_VERSION_MAJOR_SHIFT) |
              (VGPU_VERSION_MINOR << VGPU_VERSION_MINOR_SHIFT);
        break;
    case VGPU_REG_VRAM_SIZE_LO:
        val = (uint32_t)s->vram_size;
        break;
    case VGPU_REG_VRAM_SIZE_HI:
        val = s->vram_size >> 32;
        break;
    case VGPU_REG_VISIBLE_SIZE_LO:
        val = (uint32_t)s->visible_size;
        break;
    case VGPU_REG_VISIBLE_SIZE_HI:
        val = s->visible_size >> 32;
        break;
    case VGPU_REG_NUM_QUEUES:
        val = VGPU_NUM_QUEUES;
        break;
    case VGPU_REG_NUM_CONTEXTS:
        val = VGPU_NUM_CONTEXTS;
        break;
    case VGPU_REG_STATUS:
        val = VGPU_STATUS_READY;
        break;
    default:
        break;
    }
    trace_vgpu_mmio_read(addr, val);
    return val;
}

static void vgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    trace_vgpu_mmio_write(addr, val);
}

static const MemoryRegionOps vgpu_mmio_ops = {
    .read = vgpu_mmio_read,
    .write = vgpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

static void vgpu_realize(PCIDevice *pdev, Error **errp)
{
    VGPUState *s = VGPU(pdev);

    if (s->vram_size < 16 * MiB || s->vram_size > 16 * GiB ||
        s->vram_size % MiB) {
        error_setg(errp, "vgpu: vram_size must be a multiple of 1 MiB "
                   "between 16 MiB and 16 GiB");
        return;
    }
    if (!s->visible_size) {
        s->visible_size = s->vram_size;
    }
    pdev->config[PCI_INTERRUPT_PIN] = 1;
    if (pcie_endpoint_cap_init(pdev, 0x80) < 0) {
        error_setg(errp, "vgpu: cannot add the PCIe capability");
        return;
    }
    memory_region_init_io(&s->mmio, OBJECT(s), &vgpu_mmio_ops, s,
                          "vgpu-mmio", VGPU_MMIO_SIZE);
    pci_register_bar(pdev, VGPU_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    memory_region_init_ram(&s->vram, OBJECT(s), "vgpu.vram", s->vram_size,
                           errp);
    memory_region_init(&s->vram_bar, OBJECT(s), "vgpu-vram-bar",
                       pow2ceil(s->visible_size));
    memory_region_init_alias(&s->vram_window, OBJECT(s), "vgpu-vram-window",
                             &s->vram, 0, s->visible_size);
    memory_region_add_subregion(&s->vram_bar, 0, &s->vram_window);
    pci_register_bar(pdev, VGPU_BAR_VRAM, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->vram_bar);
    if (msix_init_exclusive_bar(pdev, VGPU_MSIX_NR_VECTORS, VGPU_BAR_MSIX,
                                errp)) {
        return;
    }
}

static void vgpu_exit(PCIDevice *pdev)
{
    msix_uninit_exclusive_bar(pdev);
}

static Property vgpu_properties[] = {
    DEFINE_PROP_SIZE("vram_size", VGPUState, vram_size, 256 * MiB),
    DEFINE_PROP_SIZE("visible_size", VGPUState, visible_size, 0),
    DEFINE_PROP_BOOL("strict", VGPUState, strict, false),
    DEFINE_PROP_END_OF_LIST(),
};

static void vgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = vgpu_realize;
    k->exit = vgpu_exit;
    k->vendor_id = VGPU_PCI_VENDOR_ID;
    k->device_id = VGPU_PCI_DEVICE_ID;
    k->revision = VGPU_PCI_REVISION;
    k->class_id = VGPU_PCI_CLASS;
    dc->desc = "vgpu virtual GPU (VRAM, MMU, queues)";
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
    device_class_set_props(dc, vgpu_properties);
}

static const TypeInfo vgpu_info = {
    .name = TYPE_VGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VGPUState),
    .class_init = vgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { },
    },
};

static void vgpu_register_types(void)
{
    type_register_static(&vgpu_info);
}

type_init(vgpu_register_types)
