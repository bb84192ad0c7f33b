/*
 * QTest testcases for the vgpu device.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/vgpu/vgpu_hw.h"

typedef struct VGPUTest {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar mmio;
    QPCIBar vram;
    uint64_t mmio_size;
    uint64_t vram_bar_size;
} VGPUTest;

/*
 * A QEMU built from Debian's source has no firmware of its own: point it at
 * the seabios and qemu-system-data packages.
 */
static const char *firmware_args(void)
{
    static const char *const dirs[] = { "/usr/share/seabios", "/usr/share/qemu" };
    static char args[256];
    int i;

    if (!args[0]) {
        for (i = 0; i < ARRAY_SIZE(dirs); i++) {
            if (g_file_test(dirs[i], G_FILE_TEST_IS_DIR)) {
                g_strlcat(args, " -L ", sizeof(args));
                g_strlcat(args, dirs[i], sizeof(args));
            }
        }
        g_strlcat(args, " ", sizeof(args));
    }
    return args;
}

static void vgpu_test_start(VGPUTest *t, const char *props)
{
    t->qts = qtest_initf("%s-nodefaults -machine pc -device vgpu,addr=04.0%s%s",
                         firmware_args(), props && *props ? "," : "",
                         props ? props : "");
    t->bus = qpci_new_pc(t->qts, NULL);
    t->dev = qpci_device_find(t->bus, QPCI_DEVFN(4, 0));
    g_assert(t->dev);
    qpci_device_enable(t->dev);
    t->mmio = qpci_iomap(t->dev, VGPU_BAR_MMIO, &t->mmio_size);
    t->vram = qpci_iomap(t->dev, VGPU_BAR_VRAM, &t->vram_bar_size);
}

static void vgpu_test_stop(VGPUTest *t)
{
    g_free(t->dev);
    qpci_free_pc(t->bus);
    qtest_quit(t->qts);
}

static uint32_t rd(VGPUTest *t, uint64_t reg)
{
    return qpci_io_readl(t->dev, t->mmio, reg);
}

static uint64_t rd64(VGPUTest *t, uint64_t reg)
{
    uint64_t lo = rd(t, reg);

    return lo | (uint64_t)rd(t, reg + 4) << 32;
}

typedef struct IdentCase {
    const char *name;
    const char *props;
    uint64_t vram_size;
    uint64_t visible_size;
} IdentCase;

static const IdentCase ident_cases[] = {
    { "64M", "vram_size=64M", 64 * MiB, 64 * MiB },
    { "256M", "vram_size=256M", 256 * MiB, 256 * MiB },
    { "1G-small-bar", "vram_size=1G,visible_size=64M", 1 * GiB, 64 * MiB },
};

static void test_ident(const void *opaque)
{
    const IdentCase *c = opaque;
    VGPUTest t = { 0 };

    vgpu_test_start(&t, c->props);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    VGPU_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    VGPU_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_CLASS_DEVICE), ==,
                    VGPU_PCI_CLASS);
    g_assert_cmphex(rd(&t, VGPU_REG_ID), ==, VGPU_ID_MAGIC);
    g_assert_cmphex(rd(&t, VGPU_REG_VERSION) >> VGPU_VERSION_MAJOR_SHIFT, ==,
                    VGPU_VERSION_MAJOR);
    g_assert_cmphex(rd64(&t, VGPU_REG_VRAM_SIZE_LO), ==, c->vram_size);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_SIZE_LO), ==, c->visible_size);
    g_assert_cmpuint(rd(&t, VGPU_REG_NUM_QUEUES), ==, VGPU_NUM_QUEUES);
    g_assert_cmpuint(rd(&t, VGPU_REG_NUM_CONTEXTS), ==, VGPU_NUM_CONTEXTS);
    g_assert_cmpuint(t.mmio_size, ==, VGPU_MMIO_SIZE);
    g_assert_cmpuint(t.vram_bar_size, ==, c->visible_size);
    vgpu_test_stop(&t);
}

int main(int argc, char **argv)
{
    int i;

    g_test_init(&argc, &argv, NULL);
    for (i = 0; i < ARRAY_SIZE(ident_cases); i++) {
        g_autofree char *path =
            g_strdup_printf("/vgpu/ident/%s", ident_cases[i].name);
        qtest_add_data_func(path, &ident_cases[i], test_ident);
    }
    return g_test_run();
}
