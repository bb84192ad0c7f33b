/*
 * QTest testcases for the vgpu device.
 *
 * Everything goes through the device's registers, its VRAM BAR and guest
 * memory, as a driver would: page tables and rings are written into VRAM or
 * system memory, commands are submitted through doorbells, results are read
 * back from memory, fault records, status registers and counters.
 *
 * Memory layout used by the tests (vram_size 64 MiB unless a test says
 * otherwise; guest RAM 256 MiB):
 *
 *   VRAM  0 .. 32M   data            system  64M .. 72M   page tables
 *         32M .. 40M page tables             72M .. 76M   rings
 *         40M .. 44M rings                   76M .. 80M   MSI-X targets
 *         44M .. 48M fault buffer            128M .. 256M data
 *
 * With VGPU_BENCH=1 in the environment the binary also registers
 * /vgpu/bench/copy, the COPY benchmark (see tools/bench-device/).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "qapi/qmp/qdict.h"
#include "qemu/bswap.h"
#include "qemu/madvise.h"
#include "qemu/memalign.h"
#include "hw/vgpu/vgpu_hw.h"

#define FIELD_GET(val, f)   (((val) & f##_MASK) >> f##_SHIFT)

#define VRAM_DATA           0
#define VRAM_PT             (32 * MiB)
#define VRAM_RING           (40 * MiB)
#define VRAM_FAULT_BUF      (44 * MiB)
#define SYS_PT              (64 * MiB)
#define SYS_RING            (72 * MiB)
#define SYS_MSI             (76 * MiB)
#define SYS_DATA            (128 * MiB)
#define RING_SIZE           (16 * KiB)
#define RING_SLOT           (64 * KiB)

#define PTE_RW              (VGPU_PTE_READ | VGPU_PTE_WRITE)
#define PTE_RWX             (PTE_RW | VGPU_PTE_EXEC)

#define WAIT_TIMEOUT_US     (10 * 1000 * 1000)

typedef struct VGPUTest {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar mmio;
    QPCIBar vram;
    uint64_t mmio_size;
    uint64_t vram_bar_size;
    uint64_t visible_base;              /* VRAM offset BAR2 starts at */
    bool pt_sys;                        /* new page tables in system memory */
    bool ring_sys;                      /* new rings in system memory */
    uint64_t pt_next[2];                /* [0] VRAM, [1] system */
    uint64_t root[VGPU_NUM_CONTEXTS];   /* root descriptors set up */
    uint64_t ring_addr[VGPU_NUM_QUEUES];
    bool ring_in_sys[VGPU_NUM_QUEUES];
    uint32_t tail[VGPU_NUM_QUEUES];
} VGPUTest;

/* ------------------------------------------------------- Start/stop --- */

/*
 * A QEMU built from Debian's source has no firmware of its own: point it at
 * the seabios and qemu-system-data packages.
 */
static const char *firmware_args(void)
{
    static const char *const dirs[] = { "/usr/share/seabios",
                                        "/usr/share/qemu" };
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

static void vgpu_attach(VGPUTest *t)
{
    t->bus = qpci_new_pc(t->qts, NULL);
    t->dev = qpci_device_find(t->bus, QPCI_DEVFN(4, 0));
    g_assert(t->dev);
    qpci_device_enable(t->dev);
    t->mmio = qpci_iomap(t->dev, VGPU_BAR_MMIO, &t->mmio_size);
    t->vram = qpci_iomap(t->dev, VGPU_BAR_VRAM, &t->vram_bar_size);
    t->pt_next[0] = VRAM_PT;
    t->pt_next[1] = SYS_PT;
}

static void vgpu_test_launch(VGPUTest *t, const char *props,
                             const char *extra)
{
    memset(t, 0, sizeof(*t));
    t->qts = qtest_initf("%s-nodefaults -machine pc -m 256 "
                         "-device vgpu,addr=04.0%s%s %s",
                         firmware_args(), props && *props ? "," : "",
                         props ? props : "", extra ? extra : "");
}

static void vgpu_test_start(VGPUTest *t, const char *props)
{
    vgpu_test_launch(t, props ? props : "vram_size=64M", NULL);
    vgpu_attach(t);
}

static void vgpu_test_stop(VGPUTest *t)
{
    g_free(t->dev);
    qpci_free_pc(t->bus);
    qtest_quit(t->qts);
}

/* ------------------------------------------------------------ Registers --- */

static uint32_t rd(VGPUTest *t, uint64_t reg)
{
    return qpci_io_readl(t->dev, t->mmio, reg);
}

static void wr(VGPUTest *t, uint64_t reg, uint32_t val)
{
    qpci_io_writel(t->dev, t->mmio, reg, val);
}

static uint64_t rd64(VGPUTest *t, uint64_t reg)
{
    uint64_t lo = rd(t, reg);

    return lo | (uint64_t)rd(t, reg + 4) << 32;
}

static void wr64(VGPUTest *t, uint64_t reg, uint64_t val)
{
    wr(t, reg, val);
    wr(t, reg + 4, val >> 32);
}

static uint64_t ctr(VGPUTest *t, int ctx, int i)
{
    return rd64(t, ctx < 0 ? VGPU_COUNTER_GLOBAL(i) : VGPU_COUNTER_CTX(ctx, i));
}

static uint32_t qrd(VGPUTest *t, int q, uint64_t reg)
{
    return rd(t, VGPU_QUEUE_REG(q, reg));
}

static void qwr(VGPUTest *t, int q, uint64_t reg, uint32_t val)
{
    wr(t, VGPU_QUEUE_REG(q, reg), val);
}

static uint32_t q_state(VGPUTest *t, int q)
{
    return FIELD_GET(qrd(t, q, VGPU_QUEUE_STATUS), VGPU_QUEUE_STATUS_STATE);
}

static uint32_t q_error(VGPUTest *t, int q)
{
    return FIELD_GET(qrd(t, q, VGPU_QUEUE_STATUS), VGPU_QUEUE_STATUS_ERROR);
}

/* --------------------------------------------------------------- Memory --- */

/* Where the CPU reaches @addr: VRAM through BAR2, from VISIBLE_BASE. */
static uint64_t cpu_addr(VGPUTest *t, bool sys, uint64_t addr)
{
    if (sys) {
        return addr;
    }
    g_assert(addr >= t->visible_base &&
             addr - t->visible_base < t->vram_bar_size);
    return t->vram.addr + addr - t->visible_base;
}

static void mem_write(VGPUTest *t, bool sys, uint64_t addr, const void *buf,
                      size_t len)
{
    qtest_bufwrite(t->qts, cpu_addr(t, sys, addr), buf, len);
}

static void mem_read(VGPUTest *t, bool sys, uint64_t addr, void *buf,
                     size_t len)
{
    qtest_bufread(t->qts, cpu_addr(t, sys, addr), buf, len);
}

static void mem_wq(VGPUTest *t, bool sys, uint64_t addr, uint64_t val)
{
    qtest_writeq(t->qts, cpu_addr(t, sys, addr), val);
}

static uint64_t mem_rq(VGPUTest *t, bool sys, uint64_t addr)
{
    return qtest_readq(t->qts, cpu_addr(t, sys, addr));
}

static void mem_fill(VGPUTest *t, bool sys, uint64_t addr, uint8_t byte,
                     size_t len)
{
    g_autofree uint8_t *buf = g_malloc(len);

    memset(buf, byte, len);
    mem_write(t, sys, addr, buf, len);
}

static void mem_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        buf[i] = (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ seed);
    }
}

/* --------------------------------------------------------- Page tables --- */

static uint64_t desc(bool sys, uint64_t addr)
{
    return addr | VGPU_PTE_VALID | (sys ? VGPU_PTE_SYSTEM : 0);
}

static uint64_t pt_alloc(VGPUTest *t, bool sys)
{
    uint64_t addr = t->pt_next[sys];

    t->pt_next[sys] += VGPU_PT_SIZE;
    mem_fill(t, sys, addr, 0, VGPU_PT_SIZE);
    return addr;
}

static void ctx_init(VGPUTest *t, int ctx)
{
    t->root[ctx] = desc(t->pt_sys, pt_alloc(t, t->pt_sys));
    wr64(t, VGPU_CTX_REG(ctx, VGPU_CTX_ROOT_LO), t->root[ctx]);
}

static int leaf_level(uint64_t page_size)
{
    switch (page_size) {
    case VGPU_PAGE_SIZE_1G:
        return 2;
    case VGPU_PAGE_SIZE_2M:
        return 1;
    default:
        return 0;
    }
}

/*
 * Address (and aperture) of the entry at @level for @va, creating the
 * directories above it.
 */
static uint64_t pt_entry(VGPUTest *t, int ctx, uint64_t va, int level,
                         bool *sys)
{
    uint64_t d = t->root[ctx];
    int l;

    g_assert(d & VGPU_PTE_VALID);
    for (l = VGPU_PT_LEVELS - 1; l > level; l--) {
        bool tsys = d & VGPU_PTE_SYSTEM;
        uint64_t addr = (d & VGPU_PTE_ADDR_MASK) + VGPU_PT_INDEX(va, l) * 8;

        d = mem_rq(t, tsys, addr);
        if (!(d & VGPU_PTE_VALID)) {
            d = desc(t->pt_sys, pt_alloc(t, t->pt_sys));
            mem_wq(t, tsys, addr, d);
        }
    }
    *sys = d & VGPU_PTE_SYSTEM;
    return (d & VGPU_PTE_ADDR_MASK) + VGPU_PT_INDEX(va, level) * 8;
}

static void pt_set(VGPUTest *t, int ctx, uint64_t va, int level, uint64_t e)
{
    bool sys;
    uint64_t addr = pt_entry(t, ctx, va, level, &sys);

    mem_wq(t, sys, addr, e);
}

static uint64_t pt_get(VGPUTest *t, int ctx, uint64_t va, int level)
{
    bool sys;
    uint64_t addr = pt_entry(t, ctx, va, level, &sys);

    return mem_rq(t, sys, addr);
}

/* Map [va, va + size) to [pa, pa + size) with leaves of @page_size. */
static void map(VGPUTest *t, int ctx, uint64_t va, uint64_t pa, uint64_t size,
                uint64_t flags, uint64_t page_size)
{
    int level = leaf_level(page_size);
    uint64_t off, i;

    for (off = 0; off < size; off += page_size) {
        if (page_size != VGPU_PAGE_SIZE_64K) {
            pt_set(t, ctx, va + off, level, (pa + off) | flags |
                   VGPU_PTE_VALID | (level ? VGPU_PTE_LEAF : 0));
            continue;
        }
        /* A fragment: 16 aligned 4 KiB PTEs, each marked FRAG64K. */
        for (i = 0; i < page_size; i += VGPU_PAGE_SIZE_4K) {
            pt_set(t, ctx, va + off + i, 0, (pa + off + i) | flags |
                   VGPU_PTE_VALID | VGPU_PTE_FRAG64K);
        }
    }
}

static void map4k(VGPUTest *t, int ctx, uint64_t va, uint64_t pa,
                  uint64_t flags)
{
    map(t, ctx, va, pa, VGPU_PAGE_SIZE_4K, flags, VGPU_PAGE_SIZE_4K);
}

/* ------------------------------------------------------------- Queues --- */

static void q_init(VGPUTest *t, int q, int ctx)
{
    bool sys = t->ring_sys;
    uint64_t addr = (sys ? SYS_RING : VRAM_RING) + q * RING_SLOT;

    t->ring_addr[q] = addr;
    t->ring_in_sys[q] = sys;
    t->tail[q] = 0;
    mem_fill(t, sys, addr, 0, RING_SIZE);
    wr64(t, VGPU_QUEUE_REG(q, VGPU_QUEUE_RING_LO), desc(sys, addr));
    qwr(t, q, VGPU_QUEUE_RING_SIZE, RING_SIZE);
    qwr(t, q, VGPU_QUEUE_CONTEXT, ctx);
    qwr(t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
    g_assert_cmpuint(q_state(t, q), ==, VGPU_QUEUE_STATE_IDLE);
}

static void q_emit(VGPUTest *t, int q, const uint32_t *dw, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint64_t addr = t->ring_addr[q] + t->tail[q];

        qtest_writel(t->qts, cpu_addr(t, t->ring_in_sys[q], addr), dw[i]);
        t->tail[q] = (t->tail[q] + 4) % RING_SIZE;
    }
}

static void q_submit(VGPUTest *t, int q)
{
    qwr(t, q, VGPU_QUEUE_TAIL, t->tail[q]);
    qwr(t, q, VGPU_QUEUE_DOORBELL, 1);
}

#define LO(x) ((uint32_t)(x))
#define HI(x) ((uint32_t)((uint64_t)(x) >> 32))

static void cmd_nop(VGPUTest *t, int q, uint32_t len)
{
    uint32_t dw[16] = { VGPU_CMD_HEADER(VGPU_OP_NOP, 0, len) };

    g_assert(len <= ARRAY_SIZE(dw));
    q_emit(t, q, dw, len);
}

static void cmd_copy(VGPUTest *t, int q, uint64_t src, uint64_t dst,
                     uint64_t size)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_COPY, 0, VGPU_COPY_LEN),
                      LO(src), HI(src), LO(dst), HI(dst), LO(size), HI(size) };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

static void cmd_fill(VGPUTest *t, int q, uint64_t dst, uint64_t size,
                     uint32_t value)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_FILL, 0, VGPU_FILL_LEN),
                      LO(dst), HI(dst), LO(size), HI(size), value };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

static void cmd_write(VGPUTest *t, int q, uint64_t dst, const uint32_t *data,
                      uint32_t n)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_WRITE, 0, 3 + n),
                      LO(dst), HI(dst) };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
    q_emit(t, q, data, n);
}

static void cmd_fence(VGPUTest *t, int q, uint64_t dst, uint64_t seqno,
                      bool irq)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_FENCE,
                                      irq ? VGPU_FENCE_FLAG_IRQ : 0,
                                      VGPU_FENCE_LEN),
                      LO(dst), HI(dst), LO(seqno), HI(seqno) };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

static void cmd_wait(VGPUTest *t, int q, uint64_t addr, uint64_t value)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_WAIT, 0, VGPU_WAIT_LEN),
                      LO(addr), HI(addr), LO(value), HI(value) };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

static void cmd_timestamp(VGPUTest *t, int q, uint64_t dst)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_TIMESTAMP, 0,
                                      VGPU_TIMESTAMP_LEN),
                      LO(dst), HI(dst) };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

static void cmd_touch(VGPUTest *t, int q, unsigned pattern, unsigned access,
                      uint64_t va, uint64_t size, uint32_t stride,
                      uint32_t count, uint32_t seed, uint32_t repeat)
{
    uint32_t flags = (pattern << VGPU_TOUCH_FLAG_PATTERN_SHIFT) |
                     (access << VGPU_TOUCH_FLAG_ACCESS_SHIFT);
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_TOUCH, flags, VGPU_TOUCH_LEN),
                      LO(va), HI(va), LO(size), HI(size), stride, count,
                      seed, repeat };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

static void cmd_checksum(VGPUTest *t, int q, uint64_t src, uint64_t size,
                         uint64_t dst)
{
    uint32_t dw[] = { VGPU_CMD_HEADER(VGPU_OP_CHECKSUM, 0, VGPU_CHECKSUM_LEN),
                      LO(src), HI(src), LO(size), HI(size), LO(dst),
                      HI(dst) };

    q_emit(t, q, dw, ARRAY_SIZE(dw));
}

typedef bool (*WaitCond)(VGPUTest *t, int q, uint64_t arg);

static bool wait_for(VGPUTest *t, WaitCond cond, int q, uint64_t arg)
{
    gint64 end = g_get_monotonic_time() + WAIT_TIMEOUT_US;

    while (!cond(t, q, arg)) {
        if (g_get_monotonic_time() > end) {
            return false;
        }
        g_usleep(20);
    }
    return true;
}

static bool cond_state(VGPUTest *t, int q, uint64_t state)
{
    return q_state(t, q) == state;
}

static bool cond_done(VGPUTest *t, int q, uint64_t unused)
{
    return q_state(t, q) == VGPU_QUEUE_STATE_IDLE &&
           qrd(t, q, VGPU_QUEUE_HEAD) == t->tail[q];
}

static bool cond_inval_done(VGPUTest *t, int q, uint64_t unused)
{
    return rd(t, VGPU_REG_INVAL_DONE_SEQNO) == rd(t, VGPU_REG_INVAL_REQ_SEQNO);
}

static bool cond_mem_sys(VGPUTest *t, int q, uint64_t addr)
{
    return qtest_readl(t->qts, addr) != 0;
}

static void q_wait_state(VGPUTest *t, int q, uint32_t state)
{
    if (!wait_for(t, cond_state, q, state)) {
        g_error("queue %d: state %u, expected %u (status 0x%x)", q,
                q_state(t, q), state, qrd(t, q, VGPU_QUEUE_STATUS));
    }
}

/* Wait until queue @q ran everything submitted. */
static void q_wait_done(VGPUTest *t, int q)
{
    if (!wait_for(t, cond_done, q, 0)) {
        g_error("queue %d not done: status 0x%x head 0x%x tail 0x%x "
                "fault va 0x%" PRIx64 " info 0x%x", q,
                qrd(t, q, VGPU_QUEUE_STATUS), qrd(t, q, VGPU_QUEUE_HEAD),
                t->tail[q], rd64(t, VGPU_QUEUE_REG(q, VGPU_QUEUE_FAULT_VA_LO)),
                qrd(t, q, VGPU_QUEUE_FAULT_INFO));
    }
}

static void inval(VGPUTest *t, unsigned op, int ctx, uint64_t va,
                  uint64_t size)
{
    uint32_t req = rd(t, VGPU_REG_INVAL_REQ_SEQNO);

    wr64(t, VGPU_REG_INVAL_VA_LO, va);
    wr64(t, VGPU_REG_INVAL_SIZE_LO, size);
    wr(t, VGPU_REG_INVAL_CMD, (op << VGPU_INVAL_CMD_OP_SHIFT) |
                              (ctx << VGPU_INVAL_CMD_CTX_SHIFT));
    g_assert_cmpuint(rd(t, VGPU_REG_INVAL_REQ_SEQNO), ==, req + 1);
    g_assert(wait_for(t, cond_inval_done, 0, 0));
    g_assert(rd(t, VGPU_REG_INT_STATUS) & VGPU_INT_INVAL_DONE);
    wr(t, VGPU_REG_INT_STATUS, VGPU_INT_INVAL_DONE);
}

/* ------------------------------------------------------- Fault buffer --- */

typedef struct FaultRec {
    uint64_t va;
    uint32_t info;
    uint32_t flags;
} FaultRec;

static void fault_buf_init(VGPUTest *t, uint32_t entries)
{
    mem_fill(t, false, VRAM_FAULT_BUF, 0, entries * VGPU_FAULT_RECORD_SIZE);
    wr64(t, VGPU_REG_FAULT_BUF_LO, desc(false, VRAM_FAULT_BUF));
    wr(t, VGPU_REG_FAULT_BUF_ENTRIES, entries);
    g_assert_cmphex(rd(t, VGPU_REG_STATUS) & VGPU_STATUS_FAULT_BUF_ERROR, ==,
                    0);
}

static FaultRec fault_rec(VGPUTest *t, uint32_t idx)
{
    uint32_t dw[VGPU_FAULT_RECORD_SIZE / 4];
    FaultRec r;

    mem_read(t, false, VRAM_FAULT_BUF + idx * VGPU_FAULT_RECORD_SIZE, dw,
             sizeof(dw));
    r.va = dw[VGPU_FAULT_DW_VA_LO] | (uint64_t)dw[VGPU_FAULT_DW_VA_HI] << 32;
    r.info = dw[VGPU_FAULT_DW_INFO];
    r.flags = dw[VGPU_FAULT_DW_FLAGS];
    return r;
}

static uint32_t fault_info(int q, int ctx, unsigned access, unsigned reason,
                           unsigned level)
{
    return (q << VGPU_FAULT_INFO_QUEUE_SHIFT) |
           (ctx << VGPU_FAULT_INFO_CTX_SHIFT) |
           (access << VGPU_FAULT_INFO_ACCESS_SHIFT) |
           (reason << VGPU_FAULT_INFO_REASON_SHIFT) |
           (level << VGPU_FAULT_INFO_LEVEL_SHIFT);
}

/* -------------------------------------------------- Common setting up --- */

/* Context 1, queue 0, a fault buffer, a 4 KiB scratch page at SCRATCH_VA. */
#define CTX                 1
#define SCRATCH_VA          0x7f0000000ull
#define SCRATCH_PA          (31 * MiB)

static void basic_setup(VGPUTest *t)
{
    ctx_init(t, CTX);
    map(t, CTX, SCRATCH_VA, SCRATCH_PA, 64 * KiB, PTE_RW, VGPU_PAGE_SIZE_4K);
    mem_fill(t, false, SCRATCH_PA, 0, 64 * KiB);
    fault_buf_init(t, 64);
    q_init(t, 0, CTX);
}

/* =============================================================== Tests === */

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
                    VGPU_CAPS_AD_BITS | VGPU_CAPS_ACCESS_COUNTERS);
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

/* ---------------------------------------------------------- Translation --- */

typedef struct XlateCase {
    const char *name;
    uint64_t page_size;
    bool data_sys;          /* leaf aperture */
    bool pt_sys;            /* tables in system memory */
    uint64_t pa;            /* page base */
    uint64_t off;           /* first access, into the page */
    uint64_t off2;          /* second access, same page, other 4 KiB */
} XlateCase;

#define XLATE_VA            0x4000000000ull     /* 256 GiB, 1 GiB aligned */
#define XLATE_DST_VA        0x10000000ull
#define XLATE_DST_PA        (24 * MiB)

static const XlateCase xlate_cases[] = {
    { "4k-vram", VGPU_PAGE_SIZE_4K, false, false, 1 * MiB, 0xfc0, 0x40 },
    { "4k-system", VGPU_PAGE_SIZE_4K, true, false, SYS_DATA + 0x3000, 0x80,
      0x800 },
    { "4k-vram-tables-in-system", VGPU_PAGE_SIZE_4K, false, true, 2 * MiB,
      0x100, 0x200 },
    { "64k-vram", VGPU_PAGE_SIZE_64K, false, false, 3 * MiB, 0xffc0, 0x5040 },
    { "64k-system-tables-in-system", VGPU_PAGE_SIZE_64K, true, true,
      SYS_DATA + 0x50000, 0x1040, 0xe000 },
    { "2m-vram", VGPU_PAGE_SIZE_2M, false, false, 4 * MiB, 0x1fffc0,
      0x10000 },
    { "2m-system-tables-in-system", VGPU_PAGE_SIZE_2M, true, true,
      SYS_DATA + 2 * MiB, 0x123440, 0x40 },
    { "1g-vram", VGPU_PAGE_SIZE_1G, false, false, 0, 8 * MiB + 0x1240,
      30 * MiB },
    { "1g-system", VGPU_PAGE_SIZE_1G, true, false, 0, SYS_DATA + 0x7240,
      SYS_DATA + 5 * MiB },
};

static void test_translate(const void *opaque)
{
    const XlateCase *c = opaque;
    uint8_t pat[64], pat2[64], got[64];
    VGPUTest t;
    uint64_t walks;

    vgpu_test_start(&t, NULL);
    t.pt_sys = c->pt_sys;
    basic_setup(&t);
    map(&t, CTX, XLATE_VA, c->pa, c->page_size,
        PTE_RW | (c->data_sys ? VGPU_PTE_SYSTEM : 0), c->page_size);
    map4k(&t, CTX, XLATE_DST_VA, XLATE_DST_PA, PTE_RW);
    mem_pattern(pat, sizeof(pat), 1);
    mem_pattern(pat2, sizeof(pat2), 2);
    mem_write(&t, c->data_sys, c->pa + c->off, pat, sizeof(pat));
    mem_write(&t, c->data_sys, c->pa + c->off2, pat2, sizeof(pat2));

    /* Read through the leaf. */
    cmd_copy(&t, 0, XLATE_VA + c->off, XLATE_DST_VA, sizeof(pat));
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    mem_read(&t, false, XLATE_DST_PA, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), pat, sizeof(pat));
    walks = ctr(&t, CTX, VGPU_CTR_WALKS);
    g_assert_cmpuint(walks, ==, 2);

    /* Another 4 KiB of the same leaf: one TLB entry, no new walk. */
    cmd_copy(&t, 0, XLATE_VA + c->off2, XLATE_DST_VA + 64, sizeof(pat2));
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    mem_read(&t, false, XLATE_DST_PA + 64, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), pat2, sizeof(pat2));
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_WALKS), ==, walks);

    /* Write through the leaf. */
    cmd_copy(&t, 0, XLATE_DST_VA, XLATE_VA + c->off2 + 64, sizeof(pat));
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    mem_read(&t, c->data_sys, c->pa + c->off2 + 64, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), pat, sizeof(pat));

    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 0);
    if (c->data_sys) {
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_SYS_READ_BYTES), ==, 128);
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_SYS_WRITE_BYTES), ==, 64);
    } else {
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==, 192);
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==, 192);
    }
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_COMMANDS), ==, 3);
    vgpu_test_stop(&t);
}

/* ---------------------------------------------------------- Permissions --- */

typedef enum PermOp {
    OP_READ,                /* COPY from the page */
    OP_WRITE,               /* WRITE to the page */
    OP_EXEC,                /* TOUCH with EXEC access */
    OP_RMW,                 /* TOUCH read-modify-write */
} PermOp;

typedef struct PermCase {
    const char *name;
    uint64_t pte_flags;
    PermOp op;
    bool faults;
    unsigned access;
    unsigned reason;
} PermCase;

static const PermCase perm_cases[] = {
    { "write-to-readonly", VGPU_PTE_READ, OP_WRITE, true,
      VGPU_ACCESS_WRITE, VGPU_FAULT_WRITE_DENIED },
    { "read-from-writeonly", VGPU_PTE_WRITE, OP_READ, true,
      VGPU_ACCESS_READ, VGPU_FAULT_READ_DENIED },
    { "exec-where-forbidden", PTE_RW, OP_EXEC, true,
      VGPU_ACCESS_EXEC, VGPU_FAULT_EXEC_DENIED },
    { "exec-allowed", VGPU_PTE_READ | VGPU_PTE_EXEC, OP_EXEC, false },
    { "rmw-on-readonly", VGPU_PTE_READ, OP_RMW, true,
      VGPU_ACCESS_WRITE, VGPU_FAULT_WRITE_DENIED },
    { "rmw-allowed", PTE_RW, OP_RMW, false },
};

#define PERM_VA             0x200000000ull
#define PERM_PA             (5 * MiB)

static void test_permission(const void *opaque)
{
    const PermCase *c = opaque;
    uint32_t data[2] = { 0xdeadbeef, 0xcafe };
    VGPUTest t;
    FaultRec r;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    map4k(&t, CTX, PERM_VA, PERM_PA, c->pte_flags);
    mem_fill(&t, false, PERM_PA, 0x11, 4096);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FAULT);
    switch (c->op) {
    case OP_READ:
        cmd_copy(&t, 0, PERM_VA + 0x100, SCRATCH_VA, 64);
        break;
    case OP_WRITE:
        cmd_write(&t, 0, PERM_VA + 0x100, data, ARRAY_SIZE(data));
        break;
    case OP_EXEC:
        cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_EXEC,
                  PERM_VA + 0x100, 64, 0, 0, 0, 1);
        break;
    case OP_RMW:
        cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW,
                  PERM_VA + 0x100, 64, 0, 0, 0, 1);
        break;
    }
    q_submit(&t, 0);
    if (!c->faults) {
        q_wait_done(&t, 0);
        g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 0);
        if (c->op == OP_RMW) {
            g_assert_cmphex(mem_rq(&t, false, PERM_PA + 0x100), ==,
                            0x1111111111111112ull);
        }
        vgpu_test_stop(&t);
        return;
    }
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, PERM_VA);
    g_assert_cmphex(r.info, ==, fault_info(0, CTX, c->access, c->reason, 0));
    g_assert_cmphex(r.flags, ==, VGPU_FAULT_DW3_VALID);
    g_assert_cmphex(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FAULT_VA_LO)), ==,
                    PERM_VA);
    g_assert_cmphex(qrd(&t, 0, VGPU_QUEUE_FAULT_INFO), ==, r.info);
    g_assert(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 1);
    /* Nothing was written. */
    g_assert_cmphex(mem_rq(&t, false, PERM_PA + 0x100), ==,
                    0x1111111111111111ull);
    vgpu_test_stop(&t);
}

/* --------------------------------------------------------------- Faults --- */

#define FAULT_VA            0x300000000ull      /* level-2 table absent */
#define FAULT_PA            (6 * MiB)

static void test_fault_replay(void)
{
    uint8_t pat[256], got[256];
    VGPUTest t;
    FaultRec r;
    int i;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    mem_pattern(pat, sizeof(pat), 3);
    mem_write(&t, false, FAULT_PA + 0x80, pat, sizeof(pat));
    cmd_copy(&t, 0, FAULT_VA + 0x80, SCRATCH_VA, sizeof(pat));
    cmd_fence(&t, 0, SCRATCH_VA + 0x1000, 7, false);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, FAULT_VA);
    /* The root has an entry for SCRATCH_VA's 512 GiB, not for FAULT_VA's. */
    g_assert_cmphex(r.info, ==, fault_info(0, CTX, VGPU_ACCESS_READ,
                                           VGPU_FAULT_NOT_PRESENT, 2));
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, 0);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 0);

    /* A stalled queue reports its page once. */
    for (i = 0; i < 50; i++) {
        g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_STALLED);
    }
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_FAULTS), ==, 1);

    /* The driver consumes the record, maps the page and replays. */
    mem_wq(&t, false, VRAM_FAULT_BUF + VGPU_FAULT_DW_FLAGS * 4, 0);
    wr(&t, VGPU_REG_FAULT_BUF_HEAD, 1);
    map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);
    mem_read(&t, false, SCRATCH_PA, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), pat, sizeof(pat));
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x1000), ==, 7);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 1);
    vgpu_test_stop(&t);
}

/* A fault in the middle of a long copy resumes where it stopped. */
static void test_fault_mid_copy(void)
{
    g_autofree uint8_t *pat = g_malloc(16 * KiB);
    g_autofree uint8_t *got = g_malloc(16 * KiB);
    VGPUTest t;
    FaultRec r;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    mem_pattern(pat, 16 * KiB, 4);
    mem_write(&t, false, FAULT_PA, pat, 16 * KiB);
    /* Pages 0, 1 and 3 mapped; page 2 is not. */
    map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    map4k(&t, CTX, FAULT_VA + 0x1000, FAULT_PA + 0x1000, PTE_RW);
    map4k(&t, CTX, FAULT_VA + 0x3000, FAULT_PA + 0x3000, PTE_RW);
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 16 * KiB);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, FAULT_VA + 0x2000);
    g_assert_cmphex(r.info, ==, fault_info(0, CTX, VGPU_ACCESS_READ,
                                           VGPU_FAULT_NOT_PRESENT, 0));
    map4k(&t, CTX, FAULT_VA + 0x2000, FAULT_PA + 0x2000, PTE_RW);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);
    mem_read(&t, false, SCRATCH_PA, got, 16 * KiB);
    g_assert_cmpmem(got, 16 * KiB, pat, 16 * KiB);
    vgpu_test_stop(&t);
}

static void test_fault_cancel(void)
{
    VGPUTest t;
    uint32_t after;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_QUEUE_ERROR);
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 64);
    after = t.tail[0];
    cmd_fence(&t, 0, SCRATCH_VA + 0x100, 9, false);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);

    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_CANCEL);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_CANCELLED);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, 0);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, after);
    g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 1);
    g_assert(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_QUEUE_ERROR);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x100), ==, 0);

    /* The driver acknowledges and resumes after the cancelled command. */
    wr(&t, VGPU_REG_ERROR_QUEUES, 1);
    g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 0);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
    q_wait_done(&t, 0);
    g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_NONE);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x100), ==, 9);
    vgpu_test_stop(&t);
}

/* Faults with no buffer room are counted and survivable. */
static void test_fault_overflow(void)
{
    const uint32_t entries = 16;       /* 15 records fit */
    VGPUTest t;
    int q, round, i;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    fault_buf_init(&t, entries);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FAULT_MASK);
    for (q = 1; q < VGPU_NUM_QUEUES; q++) {
        q_init(&t, q, CTX);
    }
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        cmd_copy(&t, q, FAULT_VA + q * 0x1000, SCRATCH_VA + q * 64, 64);
        cmd_fence(&t, q, SCRATCH_VA + 0x1000 + q * 8, 1, false);
        q_submit(&t, q);
    }
    /* 8 faults, then every queue replays without a fix: 16 faults. */
    for (round = 0; round < 2; round++) {
        for (q = 0; q < VGPU_NUM_QUEUES; q++) {
            q_wait_state(&t, q, VGPU_QUEUE_STATE_STALLED);
        }
        if (round == 0) {
            g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 8);
            for (q = 0; q < VGPU_NUM_QUEUES; q++) {
                qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
            }
        }
    }
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_FAULTS), ==, 16);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, entries - 1);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_OVERFLOWS), ==, 1);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_FAULT_OVERFLOWS), ==, 1);
    g_assert(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT_OVERFLOW);
    /* Every record in the buffer is complete. */
    for (i = 0; i < entries - 1; i++) {
        FaultRec r = fault_rec(&t, i);

        g_assert_cmphex(r.flags, ==, VGPU_FAULT_DW3_VALID);
        q = FIELD_GET(r.info, VGPU_FAULT_INFO_QUEUE);
        g_assert_cmphex(r.va, ==, FAULT_VA + q * 0x1000);
    }
    /* The dropped fault is still described by its queue's registers. */
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        g_assert_cmphex(rd64(&t, VGPU_QUEUE_REG(q, VGPU_QUEUE_FAULT_VA_LO)),
                        ==, FAULT_VA + q * 0x1000);
    }

    /* The driver drains the buffer, maps everything and replays. */
    wr(&t, VGPU_REG_FAULT_BUF_HEAD, rd(&t, VGPU_REG_FAULT_BUF_TAIL));
    map(&t, CTX, FAULT_VA, FAULT_PA, 8 * 0x1000, PTE_RW, VGPU_PAGE_SIZE_4K);
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    }
    for (q = 0; q < VGPU_NUM_QUEUES; q++) {
        q_wait_done(&t, q);
        g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x1000 + q * 8), ==,
                         1);
    }
    /* And a new fault is recorded again. */
    cmd_copy(&t, 0, FAULT_VA + 0x100000, SCRATCH_VA, 64);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 0);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_OVERFLOWS), ==, 1);
    vgpu_test_stop(&t);
}

/* Faults with no fault buffer at all are counted as overflows. */
static void test_fault_no_buffer(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    wr64(&t, VGPU_REG_FAULT_BUF_LO, 0);
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 64);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_OVERFLOWS), ==, 1);
    g_assert(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FAULT_OVERFLOW);
    g_assert_cmphex(qrd(&t, 0, VGPU_QUEUE_FAULT_INFO), ==,
                    fault_info(0, CTX, VGPU_ACCESS_READ,
                               VGPU_FAULT_NOT_PRESENT, 2));
    /* A bad size is reported in STATUS. */
    wr64(&t, VGPU_REG_FAULT_BUF_LO, desc(false, VRAM_FAULT_BUF));
    wr(&t, VGPU_REG_FAULT_BUF_ENTRIES, 48);
    g_assert(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_FAULT_BUF_ERROR);
    wr(&t, VGPU_REG_FAULT_BUF_ENTRIES, 32);
    g_assert_false(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_FAULT_BUF_ERROR);
    vgpu_test_stop(&t);
}

typedef struct WalkFaultCase {
    const char *name;
    uint64_t va;
    unsigned reason;
    unsigned level;
} WalkFaultCase;

#define WALK_VA             0x500000000ull      /* its level-1 table is bad */
#define WALK_TARGET_VA      0x540000000ull

static const WalkFaultCase walk_fault_cases[] = {
    { "va-beyond-48-bits", 1ull << 48, VGPU_FAULT_BAD_ADDRESS,
      VGPU_FAULT_LEVEL_ROOT },
    { "table-outside-vram", WALK_VA, VGPU_FAULT_PT_DMA, 1 },
    { "leaf-at-level-3", 0x800000000000ull - 0x8000000000ull,
      VGPU_FAULT_BAD_ENTRY, 3 },
    { "target-outside-vram", WALK_TARGET_VA, VGPU_FAULT_BAD_ADDRESS, 0 },
    { "target-not-in-system-memory", WALK_TARGET_VA + 0x1000,
      VGPU_FAULT_BAD_ADDRESS, 0 },
    { "target-is-own-registers", WALK_TARGET_VA + 0x2000,
      VGPU_FAULT_BAD_ADDRESS, 0 },
};

/* Walks that end in a typed fault rather than a guess. */
static void test_walk_fault(const void *opaque)
{
    const WalkFaultCase *c = opaque;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    /* A level-2 entry pointing past the end of VRAM. */
    pt_set(&t, CTX, WALK_VA, 2, desc(false, 128 * MiB));
    pt_set(&t, CTX, 0x800000000000ull - 0x8000000000ull, 3,
           VGPU_PTE_VALID | VGPU_PTE_LEAF | VGPU_PTE_READ);
    map4k(&t, CTX, WALK_TARGET_VA, 64 * MiB, PTE_RW);
    map4k(&t, CTX, WALK_TARGET_VA + 0x1000, 0xfee00000000ull,
          PTE_RW | VGPU_PTE_SYSTEM);
    map4k(&t, CTX, WALK_TARGET_VA + 0x2000, t.mmio.addr,
          PTE_RW | VGPU_PTE_SYSTEM);
    cmd_copy(&t, 0, c->va, SCRATCH_VA, 64);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmphex(fault_rec(&t, 0).info, ==,
                    fault_info(0, CTX, VGPU_ACCESS_READ, c->reason, c->level));
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------------ TLB --- */

typedef struct StaleCase {
    const char *name;
    int op;                 /* -1: no invalidation */
    int ctx;
    uint64_t va;
    uint64_t size;
    bool fresh;             /* the new mapping is seen afterwards */
} StaleCase;

#define STALE_VA            0x600000000ull
#define STALE_PA_A          (7 * MiB)
#define STALE_PA_B          (8 * MiB)

static const StaleCase stale_cases[] = {
    { "none", -1, CTX, 0, 0, false },
    { "all", VGPU_INVAL_OP_ALL, 0, 0, 0, true },
    { "context", VGPU_INVAL_OP_CONTEXT, CTX, 0, 0, true },
    { "other-context", VGPU_INVAL_OP_CONTEXT, CTX + 1, 0, 0, false },
    { "range", VGPU_INVAL_OP_RANGE, CTX, STALE_VA, 0x1000, true },
    { "wide-range", VGPU_INVAL_OP_RANGE, CTX, 0, 1ull << 47, true },
    { "other-range", VGPU_INVAL_OP_RANGE, CTX, STALE_VA + 0x1000, 0x1000,
      false },
    { "range-other-context", VGPU_INVAL_OP_RANGE, CTX + 1, STALE_VA, 0x1000,
      false },
};

static uint64_t stale_read(VGPUTest *t)
{
    cmd_copy(t, 0, STALE_VA + 8, SCRATCH_VA, 8);
    q_submit(t, 0);
    q_wait_done(t, 0);
    return mem_rq(t, false, SCRATCH_PA);
}

/*
 * A remapped page keeps being read through the stale TLB entry until the
 * driver invalidates it; strict mode counts each such use.
 */
static void test_tlb_stale(const void *opaque)
{
    const StaleCase *c = opaque;
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,strict=on");
    basic_setup(&t);
    ctx_init(&t, CTX + 1);
    mem_wq(&t, false, STALE_PA_A + 8, 0xaaaaaaaa);
    mem_wq(&t, false, STALE_PA_B + 8, 0xbbbbbbbb);
    map4k(&t, CTX, STALE_VA, STALE_PA_A, PTE_RW);
    g_assert_cmphex(stale_read(&t), ==, 0xaaaaaaaa);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==, 0);

    /* Remap without telling the device. */
    pt_set(&t, CTX, STALE_VA, 0, STALE_PA_B | PTE_RW | VGPU_PTE_VALID);
    g_assert_cmphex(stale_read(&t), ==, 0xaaaaaaaa);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==, 1);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_STRICT_STALE), ==, 1);

    if (c->op >= 0) {
        inval(&t, c->op, c->ctx, c->va, c->size);
        g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_INVALIDATIONS), ==, 1);
    }
    g_assert_cmphex(stale_read(&t), ==, c->fresh ? 0xbbbbbbbb : 0xaaaaaaaa);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==,
                     c->fresh ? 1 : 2);
    vgpu_test_stop(&t);
}

/* Invalidation is asynchronous: accepted at once, completed later. */
static void test_inval_protocol(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_INVAL_DONE);
    inval(&t, VGPU_INVAL_OP_ALL, 0, 0, 0);
    inval(&t, VGPU_INVAL_OP_CONTEXT, 15, 0, 0);
    g_assert_cmpuint(rd(&t, VGPU_REG_INVAL_REQ_SEQNO), ==, 2);
    g_assert_cmpuint(rd(&t, VGPU_REG_INVAL_DONE_SEQNO), ==, 2);
    g_assert_cmpuint(ctr(&t, 15, VGPU_CTR_INVALIDATIONS), ==, 1);
    /* Bad context and bad operation are refused and reported. */
    wr(&t, VGPU_REG_INVAL_CMD, (VGPU_INVAL_OP_CONTEXT <<
                                VGPU_INVAL_CMD_OP_SHIFT) |
                               (16 << VGPU_INVAL_CMD_CTX_SHIFT));
    g_assert(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_INVAL_REFUSED);
    wr(&t, VGPU_REG_INVAL_CMD, 3 << VGPU_INVAL_CMD_OP_SHIFT);
    g_assert(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_INVAL_REFUSED);
    g_assert_cmpuint(rd(&t, VGPU_REG_INVAL_REQ_SEQNO), ==, 2);
    inval(&t, VGPU_INVAL_OP_ALL, 0, 0, 0);
    g_assert_false(rd(&t, VGPU_REG_STATUS) & VGPU_STATUS_INVAL_REFUSED);
    vgpu_test_stop(&t);
}

typedef struct CtrExpect {
    uint64_t l1_hit, l1_miss, l2_hit, l2_miss, walks;
} CtrExpect;

static void check_tlb_ctrs(VGPUTest *t, const CtrExpect *e)
{
    int bank;

    for (bank = -1; bank <= CTX; bank += CTX + 1) {
        g_assert_cmpuint(ctr(t, bank, VGPU_CTR_L1_HIT), ==, e->l1_hit);
        g_assert_cmpuint(ctr(t, bank, VGPU_CTR_L1_MISS), ==, e->l1_miss);
        g_assert_cmpuint(ctr(t, bank, VGPU_CTR_L2_HIT), ==, e->l2_hit);
        g_assert_cmpuint(ctr(t, bank, VGPU_CTR_L2_MISS), ==, e->l2_miss);
        g_assert_cmpuint(ctr(t, bank, VGPU_CTR_WALKS), ==, e->walks);
        g_assert_cmpuint(ctr(t, bank, VGPU_CTR_PT_READS), ==, e->walks * 4);
    }
}

#define CTR_VA              0x700000000ull

static void test_tlb_counters(void)
{
    VGPUTest t;
    CtrExpect e = { 0 };

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, 1, CTX);
    map4k(&t, CTX, CTR_VA, 9 * MiB, PTE_RW);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
    check_tlb_ctrs(&t, &e);

    /* Queue 0: source read, destination write; both miss everywhere. */
    cmd_copy(&t, 0, CTR_VA, SCRATCH_VA, 64);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    e = (CtrExpect) { .l1_miss = 2, .l2_miss = 2, .walks = 2 };
    check_tlb_ctrs(&t, &e);

    /* Again on queue 0: both hit its L1. */
    cmd_copy(&t, 0, CTR_VA, SCRATCH_VA, 64);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    e.l1_hit += 2;
    check_tlb_ctrs(&t, &e);

    /* Queue 1, same context: its own L1 misses, the shared L2 hits. */
    q_wait_done(&t, 0);
    cmd_copy(&t, 1, CTR_VA, SCRATCH_VA, 64);
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    e.l1_miss += 2;
    e.l2_hit += 2;
    check_tlb_ctrs(&t, &e);

    /* Counters of another context are untouched. */
    g_assert_cmpuint(ctr(&t, CTX + 1, VGPU_CTR_L1_MISS), ==, 0);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
    e = (CtrExpect) { 0 };
    check_tlb_ctrs(&t, &e);
    vgpu_test_stop(&t);
}

/* A one-entry L1 thrashes between source and destination; L2 catches it. */
static void test_tlb_l1_eviction(void)
{
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,tlb_l1_sets=1,tlb_l1_ways=1");
    basic_setup(&t);
    map(&t, CTX, CTR_VA, 9 * MiB, 4 * 0x1000, PTE_RW, VGPU_PAGE_SIZE_4K);
    cmd_copy(&t, 0, CTR_VA, SCRATCH_VA, 4 * 0x1000);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
    cmd_copy(&t, 0, CTR_VA, SCRATCH_VA, 4 * 0x1000);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_HIT), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_MISS), ==, 8);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L2_HIT), ==, 8);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_WALKS), ==, 0);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------ A/D bits --- */

typedef struct ADCase {
    const char *name;
    bool pt_sys;
    uint64_t page_size;
} ADCase;

static const ADCase ad_cases[] = {
    { "4k-tables-in-vram", false, VGPU_PAGE_SIZE_4K },
    { "4k-tables-in-system", true, VGPU_PAGE_SIZE_4K },
    { "2m-tables-in-vram", false, VGPU_PAGE_SIZE_2M },
    { "2m-tables-in-system", true, VGPU_PAGE_SIZE_2M },
};

#define AD_VA               0x800000000ull
#define AD_PA               (10 * MiB)

static void test_ad_bits(const void *opaque)
{
    const ADCase *c = opaque;
    int level = leaf_level(c->page_size);
    uint32_t data = 0x5a5a5a5a;
    uint64_t pte;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    t.pt_sys = c->pt_sys;
    basic_setup(&t);
    map(&t, CTX, AD_VA, AD_PA, c->page_size, PTE_RW, c->page_size);
    pte = pt_get(&t, CTX, AD_VA, level);
    g_assert_false(pte & (VGPU_PTE_ACCESSED | VGPU_PTE_DIRTY));

    /* A read sets ACCESSED only. */
    cmd_copy(&t, 0, AD_VA + 0x40, SCRATCH_VA, 8);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    pte = pt_get(&t, CTX, AD_VA, level);
    g_assert_true(pte & VGPU_PTE_ACCESSED);
    g_assert_false(pte & VGPU_PTE_DIRTY);

    /* The driver clears ACCESSED and invalidates; a write sets both. */
    pt_set(&t, CTX, AD_VA, level, pte & ~VGPU_PTE_ACCESSED);
    inval(&t, VGPU_INVAL_OP_RANGE, CTX, AD_VA, c->page_size);
    cmd_write(&t, 0, AD_VA + 0x80, &data, 1);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    pte = pt_get(&t, CTX, AD_VA, level);
    g_assert_true(pte & VGPU_PTE_ACCESSED);
    g_assert_true(pte & VGPU_PTE_DIRTY);
    g_assert_cmphex(pte & VGPU_PTE_ADDR_MASK, ==, AD_PA);
    g_assert_cmphex(mem_rq(&t, false, AD_PA + 0x80) & 0xffffffff, ==, data);
    vgpu_test_stop(&t);
}

/* A write through an entry cached by a read walks again to set DIRTY. */
static void test_ad_dirty_after_read(void)
{
    uint32_t data = 1;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    map4k(&t, CTX, AD_VA, AD_PA, PTE_RW);
    cmd_copy(&t, 0, AD_VA, SCRATCH_VA, 8);
    cmd_write(&t, 0, AD_VA + 8, &data, 1);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_true(pt_get(&t, CTX, AD_VA, 0) & VGPU_PTE_DIRTY);
    vgpu_test_stop(&t);
}

/* ----------------------------------------------------------- Interrupts --- */

#define MSI_ADDR(v)         (SYS_MSI + (v) * 0x100)
#define MSI_DATA(v)         (0x4000 + (v))

static void msix_setup(VGPUTest *t)
{
    int v;

    qpci_msix_enable(t->dev);
    for (v = 0; v < VGPU_MSIX_NR_VECTORS; v++) {
        uint64_t off = t->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        qtest_writel(t->qts, MSI_ADDR(v), 0);
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_LOWER_ADDR, MSI_ADDR(v));
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_DATA, MSI_DATA(v));
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
}

static uint32_t msi_take(VGPUTest *t, int v)
{
    uint32_t val = qtest_readl(t->qts, MSI_ADDR(v));

    qtest_writel(t->qts, MSI_ADDR(v), 0);
    return val;
}

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

/* ---------------------------------------------------------- Engines --- */

/* Queue 0 waits for a value that queue 1 writes. */
static void test_wait_between_queues(void)
{
    uint32_t marker = 0x600d;
    VGPUTest t;
    int i;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, 1, CTX);
    cmd_wait(&t, 0, SCRATCH_VA + 0x800, 5);
    cmd_write(&t, 0, SCRATCH_VA + 0x900, &marker, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_WAITING);
    for (i = 0; i < 20; i++) {
        g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_WAITING);
    }
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x900), ==, 0);

    /* Not yet: 4 < 5. */
    cmd_fence(&t, 1, SCRATCH_VA + 0x800, 4, false);
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    for (i = 0; i < 20; i++) {
        g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_WAITING);
    }
    cmd_fence(&t, 1, SCRATCH_VA + 0x800, 5, false);
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x900), ==, marker);
    vgpu_test_stop(&t);
}

/* A WAIT satisfied by the CPU (the poll timer notices). */
static void test_wait_on_cpu(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    cmd_wait(&t, 0, SCRATCH_VA, 0x100000000ull);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_WAITING);
    mem_wq(&t, false, SCRATCH_PA, 0x100000001ull);
    q_wait_done(&t, 0);
    vgpu_test_stop(&t);
}

/* One queue stalled on a fault while another runs to completion. */
static void test_stall_isolation(void)
{
    VGPUTest t;
    int i;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, 1, CTX);
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 64);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    for (i = 0; i < 4; i++) {
        cmd_fill(&t, 1, SCRATCH_VA + 0x2000, 0x1000, 0x01010101 * (i + 1));
        cmd_fence(&t, 1, SCRATCH_VA + 0x3000, i + 1, false);
    }
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x3000), ==, 4);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x2ff8), ==,
                    0x0404040404040404ull);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    vgpu_test_stop(&t);
}

/* A long-running queue is time-sliced: a short one finishes meanwhile. */
static void test_timeslice(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, 1, CTX);
    /* About 16 million line reads on queue 0. */
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, SCRATCH_VA,
              0x10000, 0, 0, 0, 16384);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_RUNNING);
    cmd_fence(&t, 1, SCRATCH_VA + 0x1000, 1, false);
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_RUNNING);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 0);
    /* Stop it: DISABLE then RESET empties the ring. */
    qwr(&t, 0, VGPU_QUEUE_CONTROL,
        VGPU_QUEUE_CONTROL_DISABLE | VGPU_QUEUE_CONTROL_RESET);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_DISABLED);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 0);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_TAIL), ==, 0);
    vgpu_test_stop(&t);
}

typedef enum BadKind {
    BAD_DWORDS,             /* emit dwords[] and submit */
    BAD_TAIL,               /* TAIL outside the ring */
    BAD_RING_SIZE,          /* RING_SIZE not a power of two at ENABLE */
    BAD_RING_DMA,           /* ring in system memory nobody decodes */
    BAD_CONTEXT_NUMBER,     /* CONTEXT >= NUM_CONTEXTS at ENABLE */
    BAD_CONTEXT_ROOT,       /* context has no root when work runs */
    BAD_CONFIG_WHILE_ON,    /* RING_SIZE written while enabled */
} BadKind;

typedef struct BadCmdCase {
    const char *name;
    BadKind kind;
    uint32_t cause;
    uint32_t n;
    uint32_t dw[8];
} BadCmdCase;

#define HDR VGPU_CMD_HEADER

static const BadCmdCase bad_cmd_cases[] = {
    { "unknown-opcode", BAD_DWORDS, VGPU_QUEUE_ERROR_OPCODE, 1,
      { HDR(0x7f, 0, 1) } },
    { "zero-length", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 1,
      { HDR(VGPU_OP_NOP, 0, 0) } },
    { "copy-short", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 6,
      { HDR(VGPU_OP_COPY, 0, 6) } },
    { "fence-long", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 6,
      { HDR(VGPU_OP_FENCE, 0, 6) } },
    { "write-without-data", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 3,
      { HDR(VGPU_OP_WRITE, 0, 3) } },
    { "past-tail", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 3,
      { HDR(VGPU_OP_NOP, 0, 4) } },
    { "fence-unknown-flag", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 5,
      { HDR(VGPU_OP_FENCE, 0x80, VGPU_FENCE_LEN) } },
    { "fence-misaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 5,
      { HDR(VGPU_OP_FENCE, 0, VGPU_FENCE_LEN), 4 } },
    { "fill-misaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 6,
      { HDR(VGPU_OP_FILL, 0, VGPU_FILL_LEN), 0, 0, 6 } },
    { "touch-bad-pattern", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TOUCH, 3, VGPU_TOUCH_LEN), 0, 0, 64 } },
    { "touch-zero-stride", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TOUCH, VGPU_TOUCH_STRIDED, VGPU_TOUCH_LEN), 0, 0, 64 } },
    { "touch-unaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TOUCH, 0, VGPU_TOUCH_LEN), 32, 0, 64 } },
    { "checksum-misaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 7,
      { HDR(VGPU_OP_CHECKSUM, 0, VGPU_CHECKSUM_LEN), 0, 0, 0, 0, 3 } },
    { "tail-outside-ring", BAD_TAIL, VGPU_QUEUE_ERROR_RING },
    { "ring-size", BAD_RING_SIZE, VGPU_QUEUE_ERROR_RING },
    { "ring-not-readable", BAD_RING_DMA, VGPU_QUEUE_ERROR_RING_DMA },
    { "context-number", BAD_CONTEXT_NUMBER, VGPU_QUEUE_ERROR_CONTEXT },
    { "context-without-root", BAD_CONTEXT_ROOT, VGPU_QUEUE_ERROR_CONTEXT },
    { "ring-changed-while-enabled", BAD_CONFIG_WHILE_ON,
      VGPU_QUEUE_ERROR_RING },
};

/* Every bad-command cause: that queue errors, the others carry on. */
static void test_bad_command(const void *opaque)
{
    const BadCmdCase *c = opaque;
    const int q = 2;
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,strict=on");
    basic_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_QUEUE_ERROR);
    switch (c->kind) {
    case BAD_DWORDS:
        q_init(&t, q, CTX);
        q_emit(&t, q, c->dw, c->n);
        q_submit(&t, q);
        break;
    case BAD_TAIL:
        q_init(&t, q, CTX);
        qwr(&t, q, VGPU_QUEUE_TAIL, RING_SIZE);
        break;
    case BAD_RING_SIZE:
        wr64(&t, VGPU_QUEUE_REG(q, VGPU_QUEUE_RING_LO),
             desc(false, VRAM_RING + q * RING_SLOT));
        qwr(&t, q, VGPU_QUEUE_RING_SIZE, RING_SIZE + 4);
        qwr(&t, q, VGPU_QUEUE_CONTEXT, CTX);
        qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
        break;
    case BAD_RING_DMA:
        wr64(&t, VGPU_QUEUE_REG(q, VGPU_QUEUE_RING_LO),
             desc(true, 0xfd0000000000ull));
        qwr(&t, q, VGPU_QUEUE_RING_SIZE, RING_SIZE);
        qwr(&t, q, VGPU_QUEUE_CONTEXT, CTX);
        qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
        qwr(&t, q, VGPU_QUEUE_TAIL, 4);
        qwr(&t, q, VGPU_QUEUE_DOORBELL, 1);
        break;
    case BAD_CONTEXT_NUMBER:
        wr64(&t, VGPU_QUEUE_REG(q, VGPU_QUEUE_RING_LO),
             desc(false, VRAM_RING + q * RING_SLOT));
        qwr(&t, q, VGPU_QUEUE_RING_SIZE, RING_SIZE);
        qwr(&t, q, VGPU_QUEUE_CONTEXT, VGPU_NUM_CONTEXTS);
        qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
        break;
    case BAD_CONTEXT_ROOT:
        q_init(&t, q, CTX + 3);
        cmd_nop(&t, q, 1);
        q_submit(&t, q);
        break;
    case BAD_CONFIG_WHILE_ON:
        q_init(&t, q, CTX);
        qwr(&t, q, VGPU_QUEUE_RING_SIZE, 2 * RING_SIZE);
        break;
    }
    q_wait_state(&t, q, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, q), ==, c->cause);
    g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 1u << q);
    g_assert(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_QUEUE_ERROR);
    if (c->kind == BAD_DWORDS) {
        g_assert_cmpuint(qrd(&t, q, VGPU_QUEUE_CMD_OFFSET), ==, 0);
        g_assert_cmpuint(qrd(&t, q, VGPU_QUEUE_HEAD), ==, 0);
    }
    if (c->kind == BAD_CONTEXT_ROOT) {
        g_assert_cmpuint(ctr(&t, CTX + 3, VGPU_CTR_STRICT_BAD_CONTEXT), ==, 1);
    }

    /* The other queues carry on. */
    cmd_fence(&t, 0, SCRATCH_VA, 42, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 42);
    g_assert_cmpuint(q_state(&t, q), ==, VGPU_QUEUE_STATE_ERROR);

    /* RESET recovers the queue. */
    if (c->kind == BAD_DWORDS || c->kind == BAD_TAIL) {
        qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_RESET);
        g_assert_cmpuint(q_state(&t, q), ==, VGPU_QUEUE_STATE_IDLE);
        g_assert_cmpuint(q_error(&t, q), ==, VGPU_QUEUE_ERROR_NONE);
        t.tail[q] = 0;
        cmd_fence(&t, q, SCRATCH_VA + 8, 43, false);
        q_submit(&t, q);
        q_wait_done(&t, q);
        g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 8), ==, 43);
    }
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------- Commands --- */

#define CMD_VA              0x900000000ull
#define CMD_PA              (12 * MiB)
#define CMD_SIZE            (2 * MiB)

static uint64_t fnv1a64(const uint8_t *p, size_t len)
{
    uint64_t h = VGPU_FNV64_OFFSET;
    size_t i;

    for (i = 0; i < len; i++) {
        h = (h ^ p[i]) * VGPU_FNV64_PRIME;
    }
    return h;
}

static void cmd_setup(VGPUTest *t)
{
    basic_setup(t);
    map(t, CTX, CMD_VA, CMD_PA, CMD_SIZE, PTE_RW, VGPU_PAGE_SIZE_4K);
}

static void test_cmd_fill_write(void)
{
    uint32_t data[300];
    uint32_t got[300];
    VGPUTest t;
    int i;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    cmd_fill(&t, 0, CMD_VA + 0xff0, 0x3000, 0xa1b2c3d4);
    cmd_nop(&t, 0, 16);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0xff0), ==,
                    0xa1b2c3d4a1b2c3d4ull);
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0x3fe8), ==,
                    0xa1b2c3d4a1b2c3d4ull);
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0x3ff0), ==, 0);
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0xfe8), ==, 0);

    /* Move to 64 bytes before the end of the ring ... */
    while (t.tail[0] != RING_SIZE - 64) {
        cmd_nop(&t, 0, 1);
    }
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    /* ... so this WRITE wraps around it, and spans two pages. */
    for (i = 0; i < ARRAY_SIZE(data); i++) {
        data[i] = 0x1000 + i;
    }
    cmd_write(&t, 0, CMD_VA + 0x1e00, data, ARRAY_SIZE(data));
    g_assert_cmpuint(t.tail[0], <, RING_SIZE / 2);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    mem_read(&t, false, CMD_PA + 0x1e00, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), data, sizeof(data));
    vgpu_test_stop(&t);
}

static void test_cmd_timestamp(void)
{
    VGPUTest t;
    uint64_t t1, t2, now;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    cmd_nop(&t, 0, 1);
    cmd_timestamp(&t, 0, CMD_VA);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    t1 = mem_rq(&t, false, CMD_PA);
    qtest_clock_step(t.qts, 1000000);
    cmd_timestamp(&t, 0, CMD_VA + 8);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    t2 = mem_rq(&t, false, CMD_PA + 8);
    now = rd64(&t, VGPU_REG_TIMESTAMP_LO);
    g_assert_cmpuint(t2, >=, t1 + 1000000);
    g_assert_cmpuint(now, >=, t2);
    vgpu_test_stop(&t);
}

typedef struct TouchCase {
    const char *name;
    unsigned pattern;
    uint32_t stride;
    uint32_t count;
    uint32_t repeat;
} TouchCase;

static const TouchCase touch_cases[] = {
    { "sequential", VGPU_TOUCH_SEQUENTIAL, 0, 0, 1 },
    { "strided", VGPU_TOUCH_STRIDED, 4096 + 128, 0, 2 },
    { "random", VGPU_TOUCH_RANDOM, 0, 500, 3 },
};

/* Model of TOUCH: which line each access hits. */
static void touch_model(const TouchCase *c, uint64_t size, uint32_t seed,
                        uint32_t *hits)
{
    uint64_t lines = size / VGPU_TOUCH_LINE, per_pass, i, p;
    uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;

    per_pass = c->pattern == VGPU_TOUCH_SEQUENTIAL ? lines :
               c->pattern == VGPU_TOUCH_STRIDED ?
               DIV_ROUND_UP(size, c->stride) : c->count;
    for (p = 0; p < MAX(c->repeat, 1); p++) {
        for (i = 0; i < per_pass; i++) {
            uint64_t line;

            if (c->pattern == VGPU_TOUCH_SEQUENTIAL) {
                line = i;
            } else if (c->pattern == VGPU_TOUCH_STRIDED) {
                line = i * c->stride / VGPU_TOUCH_LINE;
            } else {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                line = (x * 0x2545f4914f6cdd1dull) % lines;
            }
            hits[line]++;
        }
    }
}

/*
 * TOUCH read-modify-write increments each line's first qword once per
 * access: the memory afterwards is the access histogram.
 */
static void test_cmd_touch(const void *opaque)
{
    const TouchCase *c = opaque;
    const uint64_t size = 64 * KiB, lines = size / VGPU_TOUCH_LINE;
    g_autofree uint32_t *hits = g_new0(uint32_t, lines);
    g_autofree uint8_t *mem = g_malloc(size);
    uint64_t i, total = 0;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    mem_fill(&t, false, CMD_PA, 0, size);
    cmd_touch(&t, 0, c->pattern, VGPU_TOUCH_RMW, CMD_VA, size, c->stride,
              c->count, 1234, c->repeat);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    touch_model(c, size, 1234, hits);
    mem_read(&t, false, CMD_PA, mem, size);
    for (i = 0; i < lines; i++) {
        uint64_t v = ldq_le_p(mem + i * VGPU_TOUCH_LINE);

        g_assert_cmpuint(v, ==, hits[i]);
        total += hits[i];
    }
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==,
                     total * VGPU_TOUCH_LINE);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==,
                     total * VGPU_TOUCH_LINE);

    /* TOUCH write stores each line's own VA. */
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_WRITE, CMD_VA + 0x4000,
              128, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0x4040 + 56), ==,
                    CMD_VA + 0x4040);
    vgpu_test_stop(&t);
}

/* CHECKSUM is FNV-1a 64 over any byte range, across pages and apertures. */
static void test_cmd_checksum(void)
{
    const uint64_t size = 3 * 4096 + 77;
    g_autofree uint8_t *buf = g_malloc(size);
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map(&t, CTX, CMD_VA + CMD_SIZE, SYS_DATA, 4 * 4096,
        PTE_RW | VGPU_PTE_SYSTEM, VGPU_PAGE_SIZE_4K);
    mem_pattern(buf, size, 9);
    mem_write(&t, false, CMD_PA + 0x123, buf, size);
    mem_write(&t, true, SYS_DATA + 0x10, buf, size);
    cmd_checksum(&t, 0, CMD_VA + 0x123, size, CMD_VA + 0x100000);
    cmd_checksum(&t, 0, CMD_VA + CMD_SIZE + 0x10, size, CMD_VA + 0x100008);
    cmd_checksum(&t, 0, CMD_VA, 0, CMD_VA + 0x100010);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0x100000), ==,
                    fnv1a64(buf, size));
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0x100008), ==,
                    fnv1a64(buf, size));
    g_assert_cmphex(mem_rq(&t, false, CMD_PA + 0x100010), ==,
                    VGPU_FNV64_OFFSET);
    vgpu_test_stop(&t);
}

/* A copy longer than a time slice, across apertures, in every direction. */
static void test_cmd_copy_large(void)
{
    const uint64_t size = 1 * MiB + 512 * KiB + 4096 + 17;
    g_autofree uint8_t *pat = g_malloc(size);
    g_autofree uint8_t *got = g_malloc(size);
    const uint64_t vva = 0xa00000000ull, sva = 0xb00000000ull;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    map(&t, CTX, vva, 0, 16 * MiB, PTE_RW, VGPU_PAGE_SIZE_2M);
    map(&t, CTX, sva, SYS_DATA, 4 * MiB, PTE_RW | VGPU_PTE_SYSTEM,
        VGPU_PAGE_SIZE_64K);
    mem_pattern(pat, size, 11);
    mem_write(&t, false, 0x3, pat, size);
    cmd_copy(&t, 0, vva + 0x3, sva + 0x5, size);            /* VRAM -> sys */
    cmd_copy(&t, 0, sva + 0x5, sva + 2 * MiB + 1, size);    /* sys -> sys */
    cmd_copy(&t, 0, sva + 2 * MiB + 1, vva + 8 * MiB, size); /* sys -> VRAM */
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    mem_read(&t, true, SYS_DATA + 0x5, got, size);
    g_assert_cmpmem(got, size, pat, size);
    mem_read(&t, false, 8 * MiB, got, size);
    g_assert_cmpmem(got, size, pat, size);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_SYS_READ_BYTES), ==, 2 * size);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_SYS_WRITE_BYTES), ==, 2 * size);
    vgpu_test_stop(&t);
}

/* Rings may live in system memory too. */
static void test_ring_in_system(void)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    t.ring_sys = true;
    basic_setup(&t);
    cmd_fence(&t, 0, SCRATCH_VA, 77, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 77);
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

/* ----------------------------------------------------------- Migration --- */

static void wait_migration(QTestState *qts)
{
    gint64 end = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;

    for (;;) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "none";
        bool done = !strcmp(status, "completed");

        g_assert_cmpstr(status, !=, "failed");
        qobject_unref(rsp);
        if (done) {
            return;
        }
        g_assert(g_get_monotonic_time() < end);
        g_usleep(10 * 1000);
    }
}

static void wait_running(QTestState *qts)
{
    gint64 end = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;

    for (;;) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-status' }");
        bool running = qdict_get_bool(qdict_get_qdict(rsp, "return"),
                                      "running");

        qobject_unref(rsp);
        if (running) {
            return;
        }
        g_assert(g_get_monotonic_time() < end);
        g_usleep(10 * 1000);
    }
}

/*
 * Save an idle device to a file and load it into a new QEMU: registers,
 * queues, counters and VRAM come back; the TLB starts empty.
 */
static void test_migration(void)
{
    g_autofree char *dir = g_dir_make_tmp("vgpu-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/state", dir);
    g_autofree char *incoming = g_strdup_printf("-incoming 'exec:cat %s'",
                                                file);
    g_autofree char *uri = g_strdup_printf("exec:cat > %s", file);
    uint64_t walks, fault_va, counters[VGPU_CTR_NR];
    uint32_t fault_info_reg;
    VGPUTest t, d;
    QDict *rsp;
    int i;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, 3, CTX);
    map4k(&t, CTX, STALE_VA, STALE_PA_A, PTE_RW);
    mem_wq(&t, false, STALE_PA_A, 0x5a5a);
    cmd_copy(&t, 0, STALE_VA, SCRATCH_VA, 8);
    cmd_fence(&t, 0, SCRATCH_VA + 8, 17, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    cmd_copy(&t, 3, FAULT_VA, SCRATCH_VA, 8);          /* stalls */
    q_submit(&t, 3);
    q_wait_state(&t, 3, VGPU_QUEUE_STATE_STALLED);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE);
    walks = ctr(&t, CTX, VGPU_CTR_WALKS);
    for (i = 0; i < VGPU_CTR_NR; i++) {
        counters[i] = ctr(&t, CTX, i);
    }
    fault_va = rd64(&t, VGPU_QUEUE_REG(3, VGPU_QUEUE_FAULT_VA_LO));
    fault_info_reg = qrd(&t, 3, VGPU_QUEUE_FAULT_INFO);

    rsp = qtest_qmp(t.qts, "{ 'execute': 'migrate', 'arguments': "
                           "{ 'uri': %s } }", uri);
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    wait_migration(t.qts);
    vgpu_test_stop(&t);

    /* Touch nothing until the state is in. */
    vgpu_test_launch(&d, "vram_size=64M", incoming);
    wait_running(d.qts);
    vgpu_attach(&d);
    g_assert_cmphex(rd64(&d, VGPU_CTX_REG(CTX, VGPU_CTX_ROOT_LO)), ==,
                    desc(false, VRAM_PT));
    g_assert_cmphex(rd(&d, VGPU_REG_INT_ENABLE), ==, VGPU_INT_FENCE);
    g_assert_cmpuint(rd(&d, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmpuint(q_state(&d, 0), ==, VGPU_QUEUE_STATE_IDLE);
    g_assert_cmpuint(qrd(&d, 0, VGPU_QUEUE_HEAD), ==, t.tail[0]);
    g_assert_cmpuint(rd64(&d, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 17);
    g_assert_cmpuint(q_state(&d, 3), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmphex(rd64(&d, VGPU_QUEUE_REG(3, VGPU_QUEUE_FAULT_VA_LO)), ==,
                    fault_va);
    g_assert_cmphex(qrd(&d, 3, VGPU_QUEUE_FAULT_INFO), ==, fault_info_reg);
    for (i = 0; i < VGPU_CTR_NR; i++) {
        g_assert_cmpuint(ctr(&d, CTX, i), ==, counters[i]);
    }
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA), ==, 0x5a5a);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA + 8), ==, 17);

    /* The TLB was not migrated: the same copy walks the tables again. */
    memcpy(d.tail, t.tail, sizeof(d.tail));
    memcpy(d.ring_addr, t.ring_addr, sizeof(d.ring_addr));
    cmd_copy(&d, 0, STALE_VA, SCRATCH_VA + 16, 8);
    q_submit(&d, 0);
    q_wait_done(&d, 0);
    g_assert_cmpuint(ctr(&d, CTX, VGPU_CTR_WALKS), ==, walks + 2);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA + 16), ==, 0x5a5a);

    /* And the stalled queue resumes on the new side. */
    d.root[CTX] = desc(false, VRAM_PT);
    d.pt_next[0] = VRAM_PT + 2 * MiB;
    map4k(&d, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&d, 3, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&d, 3);
    vgpu_test_stop(&d);
    unlink(file);
    rmdir(dir);
}

/* ----------------------------------------------------- Worked examples --- */

/*
 * The two worked examples of Documentation/gpu/vgpu/hardware.rst, step by
 * step with the same numbers, so the document stays true.
 */
static void test_worked_example(void)
{
    const uint64_t l3 = 0x2000000, l2 = 0x2001000, l1 = 0x2002000;
    const uint64_t l0 = 0x2003000, ring = 0x2800000, fbuf = 0x2c00000;
    const uint32_t cmds[] = {
        VGPU_CMD_HEADER(VGPU_OP_COPY, 0, 7), 0x10000, 0, 0x11000, 0, 0x800, 0,
        VGPU_CMD_HEADER(VGPU_OP_FENCE, VGPU_FENCE_FLAG_IRQ, 5), 0x11ff8, 0,
        1, 0,
        VGPU_CMD_HEADER(VGPU_OP_COPY, 0, 7), 0x40000, 0, 0x11000, 0, 0x100, 0,
    };
    uint8_t pat[0x800], got[0x800];
    VGPUTest t;
    FaultRec r;
    int i;

    vgpu_test_start(&t, NULL);
    mem_pattern(pat, sizeof(pat), 21);
    mem_write(&t, false, 0x100000, pat, sizeof(pat));
    mem_fill(&t, false, l3, 0, 4 * VGPU_PT_SIZE);
    mem_wq(&t, false, l3 + 8 * VGPU_PT_INDEX(0x10000ull, 3),
           l2 | VGPU_PTE_VALID);
    mem_wq(&t, false, l2 + 8 * VGPU_PT_INDEX(0x10000ull, 2),
           l1 | VGPU_PTE_VALID);
    mem_wq(&t, false, l1 + 8 * VGPU_PT_INDEX(0x10000ull, 1),
           l0 | VGPU_PTE_VALID);
    mem_wq(&t, false, l0 + 8 * 0x10, 0x100000 | VGPU_PTE_VALID |
           VGPU_PTE_READ);
    mem_wq(&t, false, l0 + 8 * 0x11, 0x200000 | VGPU_PTE_VALID | PTE_RW);

    wr64(&t, VGPU_CTX_REG(1, VGPU_CTX_ROOT_LO), l3 | VGPU_PTE_VALID);
    wr64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_RING_LO), ring | VGPU_PTE_VALID);
    qwr(&t, 0, VGPU_QUEUE_RING_SIZE, 4096);
    qwr(&t, 0, VGPU_QUEUE_CONTEXT, 1);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_IDLE);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE);
    for (i = 0; i < ARRAY_SIZE(cmds); i++) {
        mem_wq(&t, false, ring + 4 * i, cmds[i]);
    }
    t.tail[0] = 48;
    qwr(&t, 0, VGPU_QUEUE_TAIL, 48);
    qwr(&t, 0, VGPU_QUEUE_DOORBELL, 1);
    q_wait_done(&t, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FENCE);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, 1);
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 1);
    mem_read(&t, false, 0x200000, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), pat, sizeof(pat));
    g_assert_cmpuint(mem_rq(&t, false, 0x200ff8), ==, 1);
    g_assert_true(mem_rq(&t, false, l0 + 8 * 0x10) & VGPU_PTE_ACCESSED);
    g_assert_false(mem_rq(&t, false, l0 + 8 * 0x10) & VGPU_PTE_DIRTY);
    g_assert_true(mem_rq(&t, false, l0 + 8 * 0x11) & VGPU_PTE_DIRTY);
    wr(&t, VGPU_REG_FENCE_QUEUES, 1);
    wr(&t, VGPU_REG_INT_STATUS, VGPU_INT_FENCE);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_L1_MISS), ==, 2);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_L1_HIT), ==, 1);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_L2_MISS), ==, 2);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_WALKS), ==, 2);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_PT_READS), ==, 8);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_VRAM_READ_BYTES), ==, 0x800);
    g_assert_cmpuint(ctr(&t, 1, VGPU_CTR_VRAM_WRITE_BYTES), ==, 0x808);

    /* Take a fault and replay. */
    mem_fill(&t, false, fbuf, 0, 64 * VGPU_FAULT_RECORD_SIZE);
    wr64(&t, VGPU_REG_FAULT_BUF_LO, fbuf | VGPU_PTE_VALID);
    wr(&t, VGPU_REG_FAULT_BUF_ENTRIES, 64);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE | VGPU_INT_FAULT);
    t.tail[0] = 76;
    qwr(&t, 0, VGPU_QUEUE_TAIL, 76);
    qwr(&t, 0, VGPU_QUEUE_DOORBELL, 1);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FAULT);
    g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, 48);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 48);
    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, 0x40000);
    g_assert_cmphex(r.info, ==, fault_info(0, 1, VGPU_ACCESS_READ,
                                           VGPU_FAULT_NOT_PRESENT, 0));
    g_assert_cmphex(r.flags, ==, VGPU_FAULT_DW3_VALID);
    mem_wq(&t, false, fbuf + VGPU_FAULT_DW_FLAGS * 4, 0);
    wr(&t, VGPU_REG_FAULT_BUF_HEAD, 1);
    wr(&t, VGPU_REG_INT_STATUS, VGPU_INT_FAULT);
    mem_write(&t, false, 0x300000, pat, 0x100);
    mem_wq(&t, false, l0 + 8 * 0x40, 0x300000 | VGPU_PTE_VALID |
           VGPU_PTE_READ);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 76);
    vgpu_test_stop(&t);
}

/* ----------------------------------------------------------- Benchmark --- */

#define BENCH_SIZE          (64 * MiB)
#define BENCH_SRC_VA        0x10000000000ull
#define BENCH_DST_VA        0x20000000000ull

static double now_s(void)
{
    return g_get_monotonic_time() / 1e6;
}

/* Write page tables for [va, va + size) -> [pa, ...) in bulk. */
static void bench_map(VGPUTest *t, uint64_t va, uint64_t pa, uint64_t size,
                      uint64_t page)
{
    uint64_t *pt = g_new0(uint64_t, VGPU_PT_ENTRIES);
    uint64_t off, i;

    if (page == VGPU_PAGE_SIZE_2M) {
        map(t, CTX, va, pa, size, PTE_RW, page);
        g_free(pt);
        return;
    }
    for (off = 0; off < size; off += VGPU_PAGE_SIZE_2M) {
        uint64_t table = pt_alloc(t, false);

        for (i = 0; i < VGPU_PT_ENTRIES; i++) {
            pt[i] = (pa + off + i * page) | PTE_RW | VGPU_PTE_VALID;
        }
        mem_write(t, false, table, pt, VGPU_PT_SIZE);
        pt_set(t, CTX, va + off, 1, desc(false, table));
    }
    g_free(pt);
}

static double bench_copy_once(VGPUTest *t, uint64_t seq)
{
    double start;

    cmd_copy(t, 0, BENCH_SRC_VA, BENCH_DST_VA, BENCH_SIZE);
    cmd_fence(t, 0, SCRATCH_VA, seq, false);
    start = now_s();
    q_submit(t, 0);
    while (mem_rq(t, false, SCRATCH_PA) != seq) {
        g_usleep(50);
    }
    return now_s() - start;
}

/*
 * Best-of-5 host memcpy of BENCH_SIZE, in seconds, in one call or in
 * @piece-sized calls (the device copies at most a time slice at once).
 */
static double bench_memcpy(bool huge, uint64_t piece)
{
    uint8_t *a = qemu_memalign(2 * MiB, BENCH_SIZE);
    uint8_t *b = qemu_memalign(2 * MiB, BENCH_SIZE);
    double best = 1e9;
    int i;

    if (huge) {
        qemu_madvise(a, BENCH_SIZE, QEMU_MADV_HUGEPAGE);
        qemu_madvise(b, BENCH_SIZE, QEMU_MADV_HUGEPAGE);
    }
    memset(a, 1, BENCH_SIZE);
    memset(b, 2, BENCH_SIZE);
    for (i = 0; i < 5; i++) {
        double start = now_s();
        uint64_t off;

        for (off = 0; off < BENCH_SIZE; off += piece) {
            memcpy(b + off, a + off, piece);
        }
        best = MIN(best, now_s() - start);
        a[i] = b[i + 1];
    }
    qemu_vfree(a);
    qemu_vfree(b);
    return best;
}

/*
 * COPY VRAM->VRAM with 2 MiB and 4 KiB pages against a host memcpy of the
 * same size.  QEMU backs VRAM with transparent huge pages, so the fair
 * host baseline is a memcpy between huge-page-backed buffers; the plain
 * (4 KiB-page) memcpy is printed too.
 */
static void test_bench_copy(void)
{
    static const uint64_t pages[] = { VGPU_PAGE_SIZE_2M, VGPU_PAGE_SIZE_4K };
    double best, memcpy_gbs;
    uint64_t seq = 1;
    int p, i;

    best = bench_memcpy(false, BENCH_SIZE);
    g_test_message("host memcpy     %4" PRIu64 " MiB, 4 KiB host pages: "
                   "%7.2f ms  %6.2f GB/s", BENCH_SIZE / MiB, best * 1e3,
                   BENCH_SIZE / best / 1e9);
    best = bench_memcpy(true, 512 * KiB);
    g_test_message("host memcpy     %4" PRIu64 " MiB, huge pages, 512 KiB "
                   "calls: %7.2f ms  %6.2f GB/s", BENCH_SIZE / MiB,
                   best * 1e3, BENCH_SIZE / best / 1e9);
    best = bench_memcpy(true, BENCH_SIZE);
    memcpy_gbs = BENCH_SIZE / best / 1e9;
    g_test_message("host memcpy     %4" PRIu64 " MiB, huge host pages:  "
                   "%7.2f ms  %6.2f GB/s  (the baseline)", BENCH_SIZE / MiB,
                   best * 1e3, memcpy_gbs);

    for (p = 0; p < ARRAY_SIZE(pages); p++) {
        VGPUTest t;
        double gbs;

        vgpu_test_start(&t, "vram_size=256M");
        t.pt_next[0] = 200 * MiB;
        ctx_init(&t, CTX);
        map4k(&t, CTX, SCRATCH_VA, SCRATCH_PA, PTE_RW);
        q_init(&t, 0, CTX);
        bench_map(&t, BENCH_SRC_VA, 64 * MiB, BENCH_SIZE, pages[p]);
        bench_map(&t, BENCH_DST_VA, 128 * MiB, BENCH_SIZE, pages[p]);
        bench_copy_once(&t, seq++);     /* warm up: fault in host pages */
        best = 1e9;
        for (i = 0; i < 5; i++) {
            best = MIN(best, bench_copy_once(&t, seq++));
        }
        gbs = BENCH_SIZE / best / 1e9;
        g_test_message("COPY VRAM->VRAM %4" PRIu64 " MiB, %s pages: %7.2f ms  "
                       "%6.2f GB/s  (%3.0f%% of memcpy)", BENCH_SIZE / MiB,
                       pages[p] == VGPU_PAGE_SIZE_2M ? "2 MiB" : "4 KiB",
                       best * 1e3, gbs, 100 * gbs / memcpy_gbs);
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, 0);
        vgpu_test_stop(&t);
    }
}

/* ------------------------------------------------------------- Main --- */

#define ADD_TABLE(prefix, cases, fn)                                        \
    do {                                                                    \
        int i_;                                                             \
        for (i_ = 0; i_ < ARRAY_SIZE(cases); i_++) {                        \
            g_autofree char *path_ =                                        \
                g_strdup_printf("/vgpu/" prefix "/%s", (cases)[i_].name);   \
            qtest_add_data_func(path_, &(cases)[i_], fn);                   \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    ADD_TABLE("ident", ident_cases, test_ident);
    qtest_add_func("/vgpu/config/geometry-props", test_geometry_props);
    ADD_TABLE("config/refused", bad_prop_cases, test_bad_props);
    qtest_add_func("/vgpu/regs/latch64", test_reg64_latch);
    ADD_TABLE("translate", xlate_cases, test_translate);
    ADD_TABLE("permission", perm_cases, test_permission);
    qtest_add_func("/vgpu/fault/not-present-replay", test_fault_replay);
    qtest_add_func("/vgpu/fault/mid-copy-replay", test_fault_mid_copy);
    qtest_add_func("/vgpu/fault/cancel", test_fault_cancel);
    qtest_add_func("/vgpu/fault/overflow", test_fault_overflow);
    qtest_add_func("/vgpu/fault/no-buffer", test_fault_no_buffer);
    ADD_TABLE("fault/walk", walk_fault_cases, test_walk_fault);
    ADD_TABLE("tlb/stale", stale_cases, test_tlb_stale);
    qtest_add_func("/vgpu/tlb/invalidate-protocol", test_inval_protocol);
    qtest_add_func("/vgpu/tlb/counters", test_tlb_counters);
    qtest_add_func("/vgpu/tlb/l1-eviction", test_tlb_l1_eviction);
    ADD_TABLE("mmu/ad-bits", ad_cases, test_ad_bits);
    qtest_add_func("/vgpu/mmu/dirty-after-read", test_ad_dirty_after_read);
    qtest_add_func("/vgpu/irq/msix", test_irq_msix);
    qtest_add_func("/vgpu/engine/wait-between-queues",
                   test_wait_between_queues);
    qtest_add_func("/vgpu/engine/wait-on-cpu", test_wait_on_cpu);
    qtest_add_func("/vgpu/engine/stall-isolation", test_stall_isolation);
    qtest_add_func("/vgpu/engine/timeslice", test_timeslice);
    qtest_add_func("/vgpu/engine/ring-in-system", test_ring_in_system);
    ADD_TABLE("engine/bad-command", bad_cmd_cases, test_bad_command);
    qtest_add_func("/vgpu/cmd/fill-write", test_cmd_fill_write);
    qtest_add_func("/vgpu/cmd/timestamp", test_cmd_timestamp);
    ADD_TABLE("cmd/touch", touch_cases, test_cmd_touch);
    qtest_add_func("/vgpu/cmd/checksum", test_cmd_checksum);
    qtest_add_func("/vgpu/cmd/copy-large", test_cmd_copy_large);
    qtest_add_func("/vgpu/access-counters", test_access_counters);
    qtest_add_func("/vgpu/small-bar-window", test_small_bar_window);
    qtest_add_func("/vgpu/reset/register", test_reset_register);
    qtest_add_func("/vgpu/reset/flr", test_reset_flr);
    qtest_add_func("/vgpu/migration/save-load", test_migration);
    qtest_add_func("/vgpu/worked-example", test_worked_example);
    if (g_getenv("VGPU_BENCH")) {
        qtest_add_func("/vgpu/bench/copy", test_bench_copy);
    }
    return g_test_run();
}
