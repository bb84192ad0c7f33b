/*
 * vgpu qtests: translation, permissions, TLB and invalidation, A/D bits,
 * the page-table exchange (PT_XCHG).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

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

/* ------------------------------------------------------------------ TLB --- */

typedef struct StaleCase {
    const char *name;
    int op;                 /* -1: no invalidation */
    int ctx;
    uint64_t va;
    uint64_t size;
    bool fresh;             /* the new mapping is seen afterwards */
} StaleCase;


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
 * driver invalidates it; strict mode counts each such use, except those
 * an invalidation of the entry then forgives (the driver did its part).
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
                     c->fresh ? 0 : 2);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_STRICT_STALE), ==,
                     c->fresh ? 0 : 2);
    vgpu_test_stop(&t);
}

/*
 * A stale entry the device drops by itself (a write through a read-only
 * leaf walks again) before the driver invalidated: its stale hits still
 * count, until an invalidation that covers its page forgives them (the
 * driver writes the tables, then invalidates; the device may drop the
 * entry in between).  One that does not cover it forgives nothing.
 */
static void test_tlb_stale_gone(void)
{
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,strict=on");
    basic_setup(&t);
    mem_wq(&t, false, STALE_PA_A + 8, 0xaaaaaaaa);
    mem_wq(&t, false, STALE_PA_B + 8, 0xbbbbbbbb);
    map4k(&t, CTX, STALE_VA, STALE_PA_A, VGPU_PTE_READ);
    g_assert_cmphex(stale_read(&t), ==, 0xaaaaaaaa);

    /* Remapped (and made writable) without telling the device. */
    pt_set(&t, CTX, STALE_VA, 0, STALE_PA_B | PTE_RW | VGPU_PTE_VALID);
    g_assert_cmphex(stale_read(&t), ==, 0xaaaaaaaa);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==, 1);

    /* The write walks again: the read-only entry goes, uninvalidated. */
    cmd_copy(&t, 0, SCRATCH_VA, STALE_VA + 16, 8);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmphex(stale_read(&t), ==, 0xbbbbbbbb);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==, 1);
    inval(&t, VGPU_INVAL_OP_RANGE, CTX, STALE_VA + VGPU_PAGE_SIZE_4K,
          VGPU_PAGE_SIZE_4K);
    inval(&t, VGPU_INVAL_OP_CONTEXT, CTX + 1, 0, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==, 1);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_STRICT_STALE), ==, 1);
    inval(&t, VGPU_INVAL_OP_RANGE, CTX, STALE_VA, VGPU_PAGE_SIZE_4K);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STRICT_STALE), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_STRICT_STALE), ==, 0);
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

/*
 * 32 fragments of 64 KiB, 2 MiB apart (the pages of 32 lanes of a kernel
 * over 2 MiB each): they fit the default L1 (16 sets x 4 ways), so a
 * second pass hits every time.  Indexed by the low bits of the page
 * number alone they would all share one set of 4 ways and miss.
 */
#define STRIDE_VA   0x2000000000ull
#define STRIDE_PA   (20 * MiB)
#define STRIDE_N    32

static void tlb_stride_pass(VGPUTest *t)
{
    int i;

    for (i = 0; i < STRIDE_N; i++) {
        cmd_fill(t, 0, STRIDE_VA + (uint64_t)i * 2 * MiB, 64, i);
    }
    q_submit(t, 0);
    q_wait_done(t, 0);
}

static void test_tlb_stride_spreads(void)
{
    VGPUTest t;
    uint32_t geo;
    int i;

    vgpu_test_start(&t, "vram_size=64M");
    basic_setup(&t);
    geo = rd(&t, VGPU_REG_TLB_L1_GEOMETRY);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_SETS), ==, 16);
    g_assert_cmpuint(FIELD_GET(geo, VGPU_TLB_GEOMETRY_WAYS), ==, 4);
    for (i = 0; i < STRIDE_N; i++) {
        map(&t, CTX, STRIDE_VA + (uint64_t)i * 2 * MiB,
            STRIDE_PA + (uint64_t)i * 64 * KiB, 64 * KiB, PTE_RW,
            VGPU_PAGE_SIZE_64K);
    }
    tlb_stride_pass(&t);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
    tlb_stride_pass(&t);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_MISS), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_HIT), ==, STRIDE_N);
    for (i = 0; i < STRIDE_N; i++) {
        g_assert_cmphex(mem_rq(&t, false, STRIDE_PA + (uint64_t)i * 64 * KiB)
                        & 0xffffffff, ==, i);
    }
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

/* ----------------------------------------------- Page-table exchange --- */

#define XCHG_PA             (9 * MiB)
#define XCHG_VRAM_SIZE      (64 * MiB)      /* vgpu_test_start()'s default */

/* Exchange through the registers; the previous word is returned. */
static uint64_t pt_xchg(VGPUTest *t, uint64_t addr, uint64_t val)
{
    wr64(t, VGPU_REG_PT_XCHG_ADDR_LO, addr);
    wr64(t, VGPU_REG_PT_XCHG_DATA_LO, val);
    return rd64(t, VGPU_REG_PT_XCHG_DATA_LO);
}

static void test_pt_xchg(void)
{
    uint64_t last = XCHG_VRAM_SIZE - 8;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    g_assert_true(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_PT_XCHG);
    g_assert_cmphex(rd64(&t, VGPU_REG_PT_XCHG_ADDR_LO), ==,
                    VGPU_PT_XCHG_ADDR_NONE);
    mem_wq(&t, false, XCHG_PA, 0x1111222233334444ull);
    mem_wq(&t, false, XCHG_PA + 8, 0x5555666677778888ull);

    /* The old word comes back, the new one is in VRAM, the next is not. */
    g_assert_cmphex(pt_xchg(&t, XCHG_PA, 0xaaaabbbbccccddddull), ==,
                    0x1111222233334444ull);
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA), ==, 0xaaaabbbbccccddddull);
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA + 8), ==,
                    0x5555666677778888ull);
    g_assert_cmphex(rd64(&t, VGPU_REG_PT_XCHG_ADDR_LO), ==, XCHG_PA);
    g_assert_cmphex(rd(&t, VGPU_REG_STATUS), ==, VGPU_STATUS_READY);

    /* A second exchange returns the first one's value; reads repeat. */
    g_assert_cmphex(pt_xchg(&t, XCHG_PA, 0), ==, 0xaaaabbbbccccddddull);
    g_assert_cmphex(rd64(&t, VGPU_REG_PT_XCHG_DATA_LO), ==,
                    0xaaaabbbbccccddddull);
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA), ==, 0);

    /* 32-bit halves: nothing happens until _HI is written. */
    wr(&t, VGPU_REG_PT_XCHG_DATA_LO, 0x9abcdef0);
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA), ==, 0);
    wr(&t, VGPU_REG_PT_XCHG_DATA_HI, 0x12345678);
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA), ==, 0x123456789abcdef0ull);
    g_assert_cmphex(rd(&t, VGPU_REG_PT_XCHG_DATA_LO), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_PT_XCHG_DATA_HI), ==, 0);

    /* 8-byte accesses, as the driver makes them; the last word of VRAM. */
    mem_wq(&t, false, last, 0x0123456789abcdefull);
    qpci_io_writeq(t.dev, t.mmio, VGPU_REG_PT_XCHG_ADDR_LO, last);
    qpci_io_writeq(t.dev, t.mmio, VGPU_REG_PT_XCHG_DATA_LO, 0xfedcba98ull);
    g_assert_cmphex(qpci_io_readq(t.dev, t.mmio, VGPU_REG_PT_XCHG_DATA_LO),
                    ==, 0x0123456789abcdefull);
    g_assert_cmphex(mem_rq(&t, false, last), ==, 0xfedcba98ull);
    g_assert_cmphex(rd(&t, VGPU_REG_STATUS), ==, VGPU_STATUS_READY);

    /* A reset forgets the address: the next exchange is refused. */
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_RESET);
    g_assert_cmphex(rd64(&t, VGPU_REG_PT_XCHG_ADDR_LO), ==,
                    VGPU_PT_XCHG_ADDR_NONE);
    g_assert_cmphex(rd64(&t, VGPU_REG_PT_XCHG_DATA_LO), ==, 0);
    vgpu_test_stop(&t);
}

typedef struct XchgBadCase {
    const char *name;
    bool set_addr;          /* false: ADDR keeps its reset value */
    uint64_t addr;
} XchgBadCase;

static const XchgBadCase xchg_bad_cases[] = {
    { "never-set", false, 0 },
    { "unaligned", true, XCHG_PA + 4 },
    { "unaligned-by-one", true, XCHG_PA + 1 },
    { "straddles-end", true, XCHG_VRAM_SIZE - 4 },
    { "at-end", true, XCHG_VRAM_SIZE },
    { "far-beyond", true, 1ull << 40 },
    { "wraps", true, ~7ull },
};

/* A refused exchange: guest error, STATUS bit, DATA 0, memory untouched. */
static void test_pt_xchg_refused(const void *opaque)
{
    const XchgBadCase *c = opaque;
    static const uint64_t watch[] = {
        XCHG_PA, XCHG_PA + 8, XCHG_VRAM_SIZE - 16, XCHG_VRAM_SIZE - 8, 0,
    };
    uint64_t before[ARRAY_SIZE(watch)];
    VGPUTest t;
    int i;

    vgpu_test_start(&t, NULL);
    for (i = 0; i < ARRAY_SIZE(watch); i++) {
        before[i] = 0x0101010101010101ull * (i + 1) ^ 0x8000000000000001ull;
        mem_wq(&t, false, watch[i], before[i]);
    }
    /* A good exchange first, so that DATA holds something to lose. */
    g_assert_cmphex(pt_xchg(&t, XCHG_PA + 16, 0x42), ==, 0);
    if (c->set_addr) {
        wr64(&t, VGPU_REG_PT_XCHG_ADDR_LO, c->addr);
    } else {
        wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_RESET);
    }
    wr64(&t, VGPU_REG_PT_XCHG_DATA_LO, 0xdeadbeefdeadbeefull);
    g_assert_cmphex(rd(&t, VGPU_REG_STATUS), ==,
                    VGPU_STATUS_READY | VGPU_STATUS_PT_XCHG_ERROR);
    g_assert_cmphex(rd64(&t, VGPU_REG_PT_XCHG_DATA_LO), ==, 0);
    for (i = 0; i < ARRAY_SIZE(watch); i++) {
        g_assert_cmphex(mem_rq(&t, false, watch[i]), ==, before[i]);
    }
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA + 16), ==, 0x42);

    /* The next accepted exchange clears the error. */
    g_assert_cmphex(pt_xchg(&t, XCHG_PA + 16, 0), ==, 0x42);
    g_assert_cmphex(rd(&t, VGPU_REG_STATUS), ==, VGPU_STATUS_READY);
    vgpu_test_stop(&t);
}

#define XCHG_VA             0xa00000000ull
#define XCHG_LEAF           (VGPU_PTE_VALID | PTE_RW | XCHG_PA)

static uint64_t xchg_leaf_addr(VGPUTest *t)
{
    bool sys;
    uint64_t addr = pt_entry(t, CTX, XCHG_VA, 0, &sys);

    g_assert_false(sys);
    return addr;
}

/*
 * A write through a leaf, then the CPU clears the leaf with the exchange:
 * the old value carries DIRTY.  Once the TLB is invalidated, a write
 * faults as not present at level 0, and nothing reaches memory or the
 * cleared entry.
 */
static void test_pt_xchg_dirty(void)
{
    uint32_t data = 0x600dda7a;
    uint64_t leaf, old, faults;
    FaultRec r;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    map4k(&t, CTX, XCHG_VA, XCHG_PA, PTE_RW);
    mem_fill(&t, false, XCHG_PA, 0, 4 * KiB);
    leaf = xchg_leaf_addr(&t);
    g_assert_cmphex(mem_rq(&t, false, leaf), ==, XCHG_LEAF);

    cmd_write(&t, 0, XCHG_VA + 0x100, &data, 1);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    old = pt_xchg(&t, leaf, 0);
    g_assert_cmphex(old, ==, XCHG_LEAF | VGPU_PTE_ACCESSED | VGPU_PTE_DIRTY);
    g_assert_cmphex(mem_rq(&t, false, leaf), ==, 0);

    inval(&t, VGPU_INVAL_OP_RANGE, CTX, XCHG_VA, 4 * KiB);
    faults = ctr(&t, CTX, VGPU_CTR_FAULTS);
    data = 0xbadbad;
    cmd_write(&t, 0, XCHG_VA + 0x200, &data, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, faults + 1);
    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, XCHG_VA);
    g_assert_cmphex(r.info, ==, fault_info(0, CTX, VGPU_ACCESS_WRITE,
                                           VGPU_FAULT_NOT_PRESENT, 0));
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA + 0x200), ==, 0);
    g_assert_cmphex(mem_rq(&t, false, leaf), ==, 0);

    /* The driver maps the page again and replays: the write lands. */
    g_assert_cmphex(pt_xchg(&t, leaf, XCHG_LEAF), ==, 0);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);
    g_assert_cmphex(mem_rq(&t, false, XCHG_PA + 0x200) & 0xffffffff, ==,
                    0xbadbad);
    g_assert_cmphex(mem_rq(&t, false, leaf), ==,
                    XCHG_LEAF | VGPU_PTE_ACCESSED | VGPU_PTE_DIRTY);
    vgpu_test_stop(&t);
}

#define XCHG_ROUNDS         40
#define XCHG_FILLS          8               /* 2 MiB each before the write */

/*
 * The race itself: a queue, its translation cached by a read (without
 * DIRTY), fills 16 MiB elsewhere and then writes through the leaf; the
 * CPU clears the leaf with the exchange after a delay that varies from
 * round to round, so it lands before or after the write.  Either way no
 * write is lost: the data is in memory only if the old value has DIRTY;
 * otherwise the write faults (not present, level 0) once it comes, and
 * lands after the driver maps the page again and replays.
 */
static void test_pt_xchg_race(void)
{
    unsigned before = 0, after = 0;
    uint64_t leaf, old;
    VGPUTest t;
    uint32_t i, j;

    vgpu_test_start(&t, NULL);
    cmd_setup(&t);
    map4k(&t, CTX, XCHG_VA, XCHG_PA, PTE_RW);
    leaf = xchg_leaf_addr(&t);
    for (i = 1; i <= XCHG_ROUNDS; i++) {
        bool landed;
        FaultRec r;

        mem_wq(&t, false, XCHG_PA, 0);
        mem_wq(&t, false, leaf, XCHG_LEAF);
        inval(&t, VGPU_INVAL_OP_CONTEXT, CTX, 0, 0);
        cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, XCHG_VA,
                  VGPU_TOUCH_LINE, 0, 0, 0, 1);
        for (j = 0; j < XCHG_FILLS; j++) {
            cmd_fill(&t, 0, CMD_VA, CMD_SIZE, i + j);
        }
        cmd_write(&t, 0, XCHG_VA, &i, 1);
        q_submit(&t, 0);
        g_usleep((i % 10) * 400);

        old = pt_xchg(&t, leaf, 0);
        landed = (mem_rq(&t, false, XCHG_PA) & 0xffffffff) == i;
        if (old & VGPU_PTE_DIRTY) {
            /* The write came first. */
            before++;
            q_wait_done(&t, 0);
            g_assert_cmphex(mem_rq(&t, false, XCHG_PA) & 0xffffffff, ==, i);
            continue;
        }
        /* The exchange came first: the write has not landed, and faults. */
        g_assert_false(landed);
        after++;
        inval(&t, VGPU_INVAL_OP_RANGE, CTX, XCHG_VA, 4 * KiB);
        q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
        r = fault_rec(&t, (after - 1) % 64);
        g_assert_cmphex(r.va, ==, XCHG_VA);
        g_assert_cmphex(r.info, ==, fault_info(0, CTX, VGPU_ACCESS_WRITE,
                                               VGPU_FAULT_NOT_PRESENT, 0));
        wr(&t, VGPU_REG_FAULT_BUF_HEAD, after % 64);
        g_assert_cmphex(mem_rq(&t, false, XCHG_PA), ==, 0);
        g_assert_cmphex(pt_xchg(&t, leaf, XCHG_LEAF), ==, 0);
        qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
        q_wait_done(&t, 0);
        g_assert_cmphex(mem_rq(&t, false, XCHG_PA) & 0xffffffff, ==, i);
        g_assert_true(mem_rq(&t, false, leaf) & VGPU_PTE_DIRTY);
    }
    g_test_message("write before the exchange %u times, after it %u times",
                   before, after);
    g_assert_cmpuint(before + after, ==, XCHG_ROUNDS);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_FAULTS), ==, after);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_mmu(void)
{
    ADD_TABLE("translate", xlate_cases, test_translate);
    ADD_TABLE("permission", perm_cases, test_permission);
    ADD_TABLE("tlb/stale", stale_cases, test_tlb_stale);
    qtest_add_func("/vgpu/tlb/stale-gone", test_tlb_stale_gone);
    qtest_add_func("/vgpu/tlb/invalidate-protocol", test_inval_protocol);
    qtest_add_func("/vgpu/tlb/counters", test_tlb_counters);
    qtest_add_func("/vgpu/tlb/l1-eviction", test_tlb_l1_eviction);
    qtest_add_func("/vgpu/tlb/stride-spreads", test_tlb_stride_spreads);
    ADD_TABLE("mmu/ad-bits", ad_cases, test_ad_bits);
    qtest_add_func("/vgpu/mmu/dirty-after-read", test_ad_dirty_after_read);
    qtest_add_func("/vgpu/mmu/pt-xchg/exchange", test_pt_xchg);
    ADD_TABLE("mmu/pt-xchg/refused", xchg_bad_cases, test_pt_xchg_refused);
    qtest_add_func("/vgpu/mmu/pt-xchg/dirty", test_pt_xchg_dirty);
    qtest_add_func("/vgpu/mmu/pt-xchg/race", test_pt_xchg_race);
}
