/*
 * vgpu qtests: identification, properties, registers, interrupts, access
 * counters, small BAR, reset.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

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
    VGPUTest t;
    uint32_t geo;

    vgpu_test_start(&t, c->props);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    VGPU_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    VGPU_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_CLASS_DEVICE), ==,
                    VGPU_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_REVISION_ID), ==,
                    VGPU_PCI_REVISION);
    g_assert_cmphex(rd(&t, VGPU_REG_ID), ==, VGPU_ID_MAGIC);
    g_assert_cmphex(FIELD_GET(rd(&t, VGPU_REG_VERSION), VGPU_VERSION_MAJOR),
                    ==, VGPU_VERSION_MAJOR);
    g_assert_cmphex(FIELD_GET(rd(&t, VGPU_REG_VERSION), VGPU_VERSION_MINOR),
                    ==, VGPU_VERSION_MINOR);
    g_assert_cmphex(rd(&t, VGPU_REG_CAPS), ==,
                    VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M | VGPU_CAPS_PAGE_1G |
                    VGPU_CAPS_AD_BITS | VGPU_CAPS_ACCESS_COUNTERS |
                    VGPU_CAPS_CALL | VGPU_CAPS_FENCE_NOWRITE |
                    VGPU_CAPS_PRIV_LEVELS | VGPU_CAPS_PT_XCHG |
                    VGPU_CAPS_COST_MODEL | VGPU_CAPS_GATHER | VGPU_CAPS_LANES |
                    VGPU_CAPS_COMPUTE | VGPU_CAPS_FENCE_CLOCK);
    g_assert_cmpuint(rd(&t, VGPU_REG_LANES), ==, 32);
    g_assert_cmphex(rd64(&t, VGPU_REG_VRAM_SIZE_LO), ==, c->vram_size);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_SIZE_LO), ==, c->visible_size);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_BASE_LO), ==, 0);
    g_assert_cmpuint(rd(&t, VGPU_REG_NUM_QUEUES), ==, VGPU_NUM_QUEUES);
    g_assert_cmpuint(rd(&t, VGPU_REG_NUM_CONTEXTS), ==, VGPU_NUM_CONTEXTS);
    geo = rd(&t, VGPU_REG_TLB_L1_GEOMETRY);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_SETS), ==, 16);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_WAYS), ==, 4);
    geo = rd(&t, VGPU_REG_TLB_L2_GEOMETRY);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_SETS), ==, 256);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_WAYS), ==, 8);
    g_assert_cmpuint(rd(&t, VGPU_REG_ACCESS_CHUNK_SHIFT), ==,
                     VGPU_ACCESS_CHUNK_SHIFT_DEFAULT);
    g_assert_cmphex(rd(&t, VGPU_REG_STATUS), ==, VGPU_STATUS_READY);
    g_assert_cmpuint(t.mmio_size, ==, VGPU_MMIO_SIZE);
    g_assert_cmpuint(t.vram_bar_size, ==, c->visible_size);
    /* BAR2 is 64-bit prefetchable memory. */
    g_assert_cmphex(qpci_config_readl(t.dev, PCI_BASE_ADDRESS_2) &
                    (PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH), ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    g_assert_cmpuint(qpci_msix_table_size(t.dev), ==, VGPU_MSIX_NR_VECTORS);
    vgpu_test_stop(&t);
}

static void test_geometry_props(void)
{
    VGPUTest t;
    uint32_t geo;

    vgpu_test_start(&t, "vram_size=32M,tlb_l1_sets=4,tlb_l1_ways=2,"
                        "tlb_l2_sets=64,tlb_l2_ways=16,strict=on");
    geo = rd(&t, VGPU_REG_TLB_L1_GEOMETRY);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_SETS), ==, 4);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_WAYS), ==, 2);
    geo = rd(&t, VGPU_REG_TLB_L2_GEOMETRY);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_SETS), ==, 64);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_WAYS), ==, 16);
    g_assert(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_STRICT);
    vgpu_test_stop(&t);
}

typedef struct BadPropCase {
    const char *name;
    const char *props;
    const char *message;
} BadPropCase;

static const BadPropCase bad_prop_cases[] = {
    { "vram-too-small", "vram_size=15M", "vram_size" },
    { "vram-too-big", "vram_size=17G", "vram_size" },
    { "vram-not-mib", "vram_size=20971521", "vram_size" },
    { "visible-too-big", "vram_size=32M,visible_size=64M", "visible_size" },
    { "visible-not-mib", "visible_size=1000000", "visible_size" },
    { "tlb-sets", "tlb_l1_sets=3", "TLB sets" },
    { "tlb-ways", "tlb_l2_ways=0", "TLB ways" },
    { "link-unknown", "link=pcie9", "link 'pcie9' is not a preset" },
    { "link-bw-zero", "link_bw=0", "link_bw 0 is invalid" },
    { "vram-bw-overflow", "vram_bw=100000001", "vram_bw 100000001 is invalid" },
    { "fault-cost-zero", "link=c2c,fault_cost=0", "fault_cost 0 is invalid" },
    { "cmd-cost-overflow", "cmd_cost=1000000001", "cmd_cost 1000000001" },
    { "dilation-overflow", "dilation=1000001", "dilation 1000001 is invalid" },
    { "link-bw-not-uint32", "link_bw=4294967296", "link_bw" },
    { "lanes-zero", "lanes=0", "lanes 0 is invalid" },
    { "lanes-too-many", "lanes=257", "lanes 257 is invalid" },
};

/* QEMU refuses to start, with a message naming the property. */
static void test_bad_props(const void *opaque)
{
    const BadPropCase *c = opaque;
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *cmd = g_strdup_printf("%s %s -nodefaults -machine pc "
                                           "-display none -device vgpu,%s",
                                           qemu, firmware_args(), c->props);
    g_autofree char *out = NULL, *err = NULL;
    g_auto(GStrv) argv = NULL;
    int status;

    g_assert(g_shell_parse_argv(cmd, NULL, &argv, NULL));
    g_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                          &out, &err, &status, NULL));
    g_assert_false(g_spawn_check_exit_status(status, NULL));
    g_assert_nonnull(strstr(err, c->message));
}

/* 64-bit registers: _LO is held until _HI is written. */
static void test_reg64_latch(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    wr(&t, VGPU_REG_INVAL_VA_LO, 0x12345000);
    g_assert_cmphex(rd64(&t, VGPU_REG_INVAL_VA_LO), ==, 0);
    wr(&t, VGPU_REG_INVAL_VA_HI, 0x7f);
    g_assert_cmphex(rd64(&t, VGPU_REG_INVAL_VA_LO), ==, 0x7f12345000ull);
    /* An 8-byte access is a _LO then _HI pair. */
    qpci_io_writeq(t.dev, t.mmio, VGPU_CTX_REG(3, VGPU_CTX_ROOT_LO),
                   0x1234567000ull | VGPU_PTE_VALID);
    g_assert_cmphex(qpci_io_readq(t.dev, t.mmio,
                                  VGPU_CTX_REG(3, VGPU_CTX_ROOT_LO)), ==,
                    0x1234567000ull | VGPU_PTE_VALID);
    vgpu_test_stop(&t);
}

/* ----------------------------------------------------------- Interrupts --- */


static void test_irq_msix(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    msix_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_GENERAL_MASK | VGPU_INT_FAULT_MASK);

    /* A fence without IRQ: no message. */
    cmd_fence(&t, 0, SCRATCH_VA, 1, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(msi_take(&t, VGPU_MSIX_VEC_GENERAL), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, 0);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_FENCE_LO), ==, 1);

    /* A fence with IRQ: the general vector. */
    cmd_fence(&t, 0, SCRATCH_VA, 2, true);
    q_submit(&t, 0);
    g_assert(wait_for(&t, cond_mem_sys, 0, MSI_ADDR(VGPU_MSIX_VEC_GENERAL)));
    g_assert_cmphex(msi_take(&t, VGPU_MSIX_VEC_GENERAL), ==,
                    MSI_DATA(VGPU_MSIX_VEC_GENERAL));
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FENCE);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, 1);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 2);
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 2);
    g_assert_cmpuint(msi_take(&t, VGPU_MSIX_VEC_FAULT), ==, 0);
    wr(&t, VGPU_REG_INT_STATUS, VGPU_INT_FENCE);
    wr(&t, VGPU_REG_FENCE_QUEUES, 1);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, 0);

    /* A fault: the fault vector. */
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 8);
    q_submit(&t, 0);
    g_assert(wait_for(&t, cond_mem_sys, 0, MSI_ADDR(VGPU_MSIX_VEC_FAULT)));
    g_assert_cmphex(msi_take(&t, VGPU_MSIX_VEC_FAULT), ==,
                    MSI_DATA(VGPU_MSIX_VEC_FAULT));
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FAULT);
    g_assert_cmpuint(msi_take(&t, VGPU_MSIX_VEC_GENERAL), ==, 0);
    wr(&t, VGPU_REG_INT_STATUS, VGPU_INT_FAULT);

    /* A masked cause is latched but not signalled until enabled. */
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_RESET);
    t.tail[0] = 0;
    wr(&t, VGPU_REG_INT_ENABLE, 0);
    cmd_fence(&t, 0, SCRATCH_VA, 3, true);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FENCE);
    g_assert_cmpuint(msi_take(&t, VGPU_MSIX_VEC_GENERAL), ==, 0);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE);
    g_assert_cmphex(msi_take(&t, VGPU_MSIX_VEC_GENERAL), ==,
                    MSI_DATA(VGPU_MSIX_VEC_GENERAL));
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------ Access counters --- */

static uint32_t access_ctr(VGPUTest *t, uint32_t chunk)
{
    wr(t, VGPU_REG_ACCESS_CTR_INDEX, chunk);
    return rd(t, VGPU_REG_ACCESS_CTR_VALUE);
}

static void test_access_counters(void)
{
    const uint32_t shift = VGPU_ACCESS_CHUNK_SHIFT_DEFAULT;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    map(&t, CTX, CMD_VA, 16 * MiB, 4 * MiB, PTE_RW, VGPU_PAGE_SIZE_2M);
    wr(&t, VGPU_REG_ACCESS_CTR_CLEAR, VGPU_ACCESS_CTR_CLEAR_ALL);
    /* 100 line reads in chunk 8 (16 MiB), 7 in chunk 9. */
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, CMD_VA,
              100 * 64, 0, 0, 0, 1);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, CMD_VA + 2 * MiB,
              7 * 64, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(access_ctr(&t, (16 * MiB) >> shift), ==, 100);
    g_assert_cmpuint(access_ctr(&t, (18 * MiB) >> shift), ==, 7);
    g_assert_cmpuint(access_ctr(&t, (20 * MiB) >> shift), ==, 0);
    g_assert_cmpuint(access_ctr(&t, 1000), ==, 0);      /* no such chunk */
    wr(&t, VGPU_REG_ACCESS_CTR_CLEAR, (16 * MiB) >> shift);
    g_assert_cmpuint(access_ctr(&t, (16 * MiB) >> shift), ==, 0);
    g_assert_cmpuint(access_ctr(&t, (18 * MiB) >> shift), ==, 7);
    wr(&t, VGPU_REG_ACCESS_CTR_CLEAR, VGPU_ACCESS_CTR_CLEAR_ALL);
    g_assert_cmpuint(access_ctr(&t, (18 * MiB) >> shift), ==, 0);
    vgpu_test_stop(&t);
}

/* ----------------------------------------------------------- Small BAR --- */

static void test_small_bar_window(void)
{
    VGPUTest t;
    uint64_t marker = 0x77696e646f77ull;

    vgpu_test_start(&t, "vram_size=64M,visible_size=16M");
    g_assert_cmpuint(t.vram_bar_size, ==, 16 * MiB);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_SIZE_LO), ==, 16 * MiB);

    /* Window at 32M: tables and rings (32M..44M) are reachable. */
    wr64(&t, VGPU_REG_VISIBLE_BASE_LO, 32 * MiB);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_BASE_LO), ==, 32 * MiB);
    g_assert_false(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_WINDOW_ERROR);
    t.visible_base = 32 * MiB;
    qtest_writeq(t.qts, t.vram.addr + 0x10, marker);

    /* The device reads the CPU's write at VRAM 32M + 0x10 into VRAM 0x20. */
    t.pt_next[0] = 33 * MiB;
    ctx_init(&t, CTX);
    map4k(&t, CTX, SCRATCH_VA, 32 * MiB, PTE_RW);
    map4k(&t, CTX, SCRATCH_VA + 0x1000, 0, PTE_RW);
    q_init(&t, 0, CTX);
    cmd_copy(&t, 0, SCRATCH_VA + 0x10, SCRATCH_VA + 0x1000 + 0x20, 8);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    /* Move the window to 0: there it is. */
    wr64(&t, VGPU_REG_VISIBLE_BASE_LO, 0);
    t.visible_base = 0;
    g_assert_cmphex(qtest_readq(t.qts, t.vram.addr + 0x20), ==, marker);
    g_assert_cmphex(qtest_readq(t.qts, t.vram.addr + 0x10), ==, 0);

    /* Refused moves (misaligned, past the end) leave the window alone. */
    wr64(&t, VGPU_REG_VISIBLE_BASE_LO, 0x1000);
    g_assert(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_WINDOW_ERROR);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_BASE_LO), ==, 0);
    wr64(&t, VGPU_REG_VISIBLE_BASE_LO, 49 * MiB);
    g_assert(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_WINDOW_ERROR);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_BASE_LO), ==, 0);
    g_assert_cmphex(qtest_readq(t.qts, t.vram.addr + 0x20), ==, marker);
    wr64(&t, VGPU_REG_VISIBLE_BASE_LO, 48 * MiB);
    g_assert_false(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_WINDOW_ERROR);
    g_assert_cmphex(rd64(&t, VGPU_REG_VISIBLE_BASE_LO), ==, 48 * MiB);
    vgpu_test_stop(&t);
}

/* --------------------------------------------------------------- Reset --- */

/* Set up non-default state everywhere reset must clear. */
static void dirty_device(VGPUTest *t)
{
    basic_setup(t);
    map4k(t, CTX, STALE_VA, STALE_PA_A, PTE_RW);
    mem_wq(t, false, STALE_PA_A, 0xaaaa);
    mem_wq(t, false, STALE_PA_B, 0xbbbb);
    cmd_copy(t, 0, STALE_VA, SCRATCH_VA, 8);
    cmd_copy(t, 0, FAULT_VA, SCRATCH_VA, 8);
    q_submit(t, 0);
    q_wait_state(t, 0, VGPU_QUEUE_STATE_STALLED);
    wr(t, VGPU_REG_INT_ENABLE, VGPU_INT_FAULT);
    wr64(t, VGPU_REG_VISIBLE_BASE_LO, 0);
    wr64(t, VGPU_REG_INVAL_VA_LO, 0x1000);
    g_assert(ctr(t, -1, VGPU_CTR_WALKS));
}

static void check_power_on_state(VGPUTest *t)
{
    int i;

    g_assert_cmphex(rd(t, VGPU_REG_STATUS), ==, VGPU_STATUS_READY);
    g_assert_cmphex(rd(t, VGPU_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(t, VGPU_REG_INT_ENABLE), ==, 0);
    g_assert_cmphex(rd(t, VGPU_REG_FENCE_QUEUES), ==, 0);
    g_assert_cmphex(rd(t, VGPU_REG_ERROR_QUEUES), ==, 0);
    g_assert_cmphex(rd64(t, VGPU_REG_VISIBLE_BASE_LO), ==, 0);
    g_assert_cmphex(rd64(t, VGPU_REG_INVAL_VA_LO), ==, 0);
    g_assert_cmphex(rd(t, VGPU_REG_INVAL_REQ_SEQNO), ==, 0);
    g_assert_cmphex(rd64(t, VGPU_REG_FAULT_BUF_LO), ==, 0);
    g_assert_cmphex(rd(t, VGPU_REG_FAULT_BUF_TAIL), ==, 0);
    for (i = 0; i < VGPU_NUM_CONTEXTS; i++) {
        g_assert_cmphex(rd64(t, VGPU_CTX_REG(i, VGPU_CTX_ROOT_LO)), ==, 0);
    }
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        g_assert_cmphex(qrd(t, i, VGPU_QUEUE_STATUS), ==,
                        VGPU_QUEUE_STATE_DISABLED);
        g_assert_cmphex(qrd(t, i, VGPU_QUEUE_HEAD), ==, 0);
        g_assert_cmphex(rd64(t, VGPU_QUEUE_REG(i, VGPU_QUEUE_RING_LO)), ==, 0);
    }
    for (i = 0; i < VGPU_CTR_NR; i++) {
        g_assert_cmpuint(ctr(t, -1, i), ==, 0);
        g_assert_cmpuint(ctr(t, CTX, i), ==, 0);
    }
}

/* After reset, the same set-up walks again: the TLB was emptied too. */
static void check_tlb_empty_after_reset(VGPUTest *t)
{
    memset(t->root, 0, sizeof(t->root));
    t->pt_next[0] = VRAM_PT + 1 * MiB;
    ctx_init(t, CTX);
    map4k(t, CTX, SCRATCH_VA, SCRATCH_PA, PTE_RW);
    map4k(t, CTX, STALE_VA, STALE_PA_B, PTE_RW);
    q_init(t, 0, CTX);
    cmd_copy(t, 0, STALE_VA, SCRATCH_VA, 8);
    q_submit(t, 0);
    q_wait_done(t, 0);
    g_assert_cmphex(mem_rq(t, false, SCRATCH_PA), ==, 0xbbbb);
    g_assert_cmpuint(ctr(t, -1, VGPU_CTR_L1_HIT), ==, 0);
    g_assert_cmpuint(ctr(t, -1, VGPU_CTR_WALKS), ==, 2);
}

static void test_reset_register(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    dirty_device(&t);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_RESET);
    check_power_on_state(&t);
    check_tlb_empty_after_reset(&t);
    vgpu_test_stop(&t);
}

static void test_reset_flr(void)
{
    VGPUTest t;
    uint8_t cap;

    vgpu_test_start(&t, NULL);
    dirty_device(&t);
    cap = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(cap, !=, 0);
    g_assert(qpci_config_readl(t.dev, cap + PCI_EXP_DEVCAP) &
             PCI_EXP_DEVCAP_FLR);
    qpci_config_writew(t.dev, cap + PCI_EXP_DEVCTL, PCI_EXP_DEVCTL_BCR_FLR);
    /* A function reset also clears the BARs: map them again. */
    g_free(t.dev);
    qpci_free_pc(t.bus);
    vgpu_attach(&t);
    check_power_on_state(&t);
    check_tlb_empty_after_reset(&t);
    vgpu_test_stop(&t);
}

/* q35's MMCONFIG window, enabled by hand (no firmware runs under qtest). */
#define Q35_PCIEXBAR        0x60
#define MMCONFIG_BASE       0xb0000000ull
#define OWN_CONFIG_VA       0x500000000ull

/*
 * The device resets itself by its own DMA: a COPY whose destination is
 * its configuration space (through q35's MMCONFIG) writes FLR into
 * DEVCTL.  The reset waits for the engine pass to end, and the COPY stops
 * there: without that, the reset happened under the command, which then
 * went on with the zeroed queue (a fault on context 0 of a queue that was
 * just reset, counters counting after the reset).
 */
static void test_reset_flr_by_own_dma(void)
{
    uint64_t cfg = MMCONFIG_BASE + (QPCI_DEVFN(4, 0) << 12);
    QPCIDevice *host;
    VGPUTest t;
    uint8_t cap;
    int i;

    vgpu_test_launch(&t, "vram_size=64M", "-machine q35");
    vgpu_attach(&t);
    host = qpci_device_find(t.bus, 0);
    qpci_config_writel(host, Q35_PCIEXBAR + 4, 0);
    qpci_config_writel(host, Q35_PCIEXBAR, MMCONFIG_BASE | 1);
    g_free(host);
    g_assert_cmphex(qtest_readw(t.qts, cfg + PCI_VENDOR_ID), ==,
                    VGPU_PCI_VENDOR_ID);
    cap = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);

    basic_setup(&t);
    map4k(&t, CTX, OWN_CONFIG_VA, cfg, PTE_RW | VGPU_PTE_SYSTEM);
    map4k(&t, CTX, OWN_CONFIG_VA + 0x1000, SCRATCH_PA + 0x3000, PTE_RW);
    mem_wq(&t, false, SCRATCH_PA, PCI_EXP_DEVCTL_BCR_FLR);
    /* The copy's second piece lands in VRAM, after the reset. */
    cmd_copy(&t, 0, SCRATCH_VA, OWN_CONFIG_VA + cap + PCI_EXP_DEVCTL,
             0x1000 - cap - PCI_EXP_DEVCTL + 8);
    cmd_fence(&t, 0, SCRATCH_VA + 0x100, 1, false);
    q_submit(&t, 0);
    for (i = 0; qpci_config_readw(t.dev, PCI_COMMAND); i++) {
        g_assert_cmpint(i, <, 100000);              /* the FLR happened */
        g_usleep(20);
    }
    g_free(t.dev);
    qpci_free_pc(t.bus);
    vgpu_attach(&t);
    check_power_on_state(&t);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x3000), ==, 0);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x100), ==, 0);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_regs(void)
{
    ADD_TABLE("ident", ident_cases, test_ident);
    qtest_add_func("/vgpu/config/geometry-props", test_geometry_props);
    ADD_TABLE("config/refused", bad_prop_cases, test_bad_props);
    qtest_add_func("/vgpu/regs/latch64", test_reg64_latch);
    qtest_add_func("/vgpu/irq/msix", test_irq_msix);
    qtest_add_func("/vgpu/access-counters", test_access_counters);
    qtest_add_func("/vgpu/small-bar-window", test_small_bar_window);
    qtest_add_func("/vgpu/reset/register", test_reset_register);
    qtest_add_func("/vgpu/reset/flr", test_reset_flr);
    qtest_add_func("/vgpu/reset/flr-by-own-dma", test_reset_flr_by_own_dma);
}
