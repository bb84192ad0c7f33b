/*
 * vgpu qtests: the worked examples of hardware.rst, the COPY benchmark.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

/* ----------------------------------------------------- Worked examples --- */

/*
 * The two worked examples of Documentation/gpu/vgpu/hardware.rst, step by
 * step with the same numbers, so the document stays true.
 */
/* The third example, continuing the first two: a user's stream. */
static void worked_example_call(VGPUTest *t, uint64_t l0, uint64_t fbuf)
{
    g_autoptr(GArray) st = stream_new();
    g_autoptr(GArray) ring = stream_new();
    uint64_t cmds = ctr(t, 1, VGPU_CTR_COMMANDS);
    FaultRec r;

    mem_wq(t, false, l0 + 8 * 0x50, 0x400000 | VGPU_PTE_VALID |
           VGPU_PTE_READ);
    st_fill(st, 0x11000, 0x1000, 0x5a5a5a5a);
    st_pad_to(st, 1024);
    st_fence(st, 0, 0x11ff8, 2);
    g_assert_cmpuint(st->len, ==, 1029);
    mem_write(t, false, 0x400000, st->data, st->len * 4);
    st_call(ring, 0x50000, 1029);
    st_fence(ring, VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_NOWRITE, 0, 3);
    mem_write(t, false, 0x2800000 + 76, ring->data, ring->len * 4);
    t->tail[0] = 112;
    qwr(t, 0, VGPU_QUEUE_TAIL, 112);
    qwr(t, 0, VGPU_QUEUE_DOORBELL, 1);

    q_wait_state(t, 0, VGPU_QUEUE_STATE_STALLED);
    r = fault_rec(t, 1);
    g_assert_cmphex(r.va, ==, 0x51000);
    g_assert_cmphex(r.info, ==, fault_info(0, 1, VGPU_ACCESS_READ,
                                           VGPU_FAULT_NOT_PRESENT, 0));
    g_assert_cmphex(qrd(t, 0, VGPU_QUEUE_STATUS), ==,
                    VGPU_QUEUE_STATE_STALLED | VGPU_QUEUE_STATUS_IN_CALL);
    g_assert_cmpuint(qrd(t, 0, VGPU_QUEUE_CMD_OFFSET), ==, 76);
    g_assert_cmpuint(qrd(t, 0, VGPU_QUEUE_CALL_OFFSET), ==, 0x1000);
    g_assert_cmpuint(qrd(t, 0, VGPU_QUEUE_HEAD), ==, 76);
    g_assert_cmpuint(rd64(t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 1);
    mem_wq(t, false, fbuf + VGPU_FAULT_RECORD_SIZE + VGPU_FAULT_DW_FLAGS * 4,
           0);
    wr(t, VGPU_REG_FAULT_BUF_HEAD, 2);
    wr(t, VGPU_REG_INT_STATUS, VGPU_INT_FAULT);

    mem_wq(t, false, l0 + 8 * 0x51, 0x401000 | VGPU_PTE_VALID |
           VGPU_PTE_READ);
    qwr(t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(t, 0);
    g_assert_cmpuint(mem_rq(t, false, 0x200ff8), ==, 2);
    g_assert_cmphex(mem_rq(t, false, 0x200000), ==, 0x5a5a5a5a5a5a5a5aull);
    g_assert_cmpuint(rd64(t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 3);
    g_assert_cmphex(rd(t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FENCE);
    g_assert_cmphex(qrd(t, 0, VGPU_QUEUE_STATUS), ==, VGPU_QUEUE_STATE_IDLE);
    g_assert_cmpuint(ctr(t, 1, VGPU_CTR_COMMANDS), ==, cmds + 5);
}

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

    /* Run a batch buffer with CALL. */
    worked_example_call(&t, l0, fbuf);
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
        map_bulk(&t, CTX, BENCH_SRC_VA, 64 * MiB, BENCH_SIZE, PTE_RW, pages[p]);
        map_bulk(&t, CTX, BENCH_DST_VA, 128 * MiB, BENCH_SIZE, PTE_RW, pages[p]);
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

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_system(void)
{
    qtest_add_func("/vgpu/worked-example", test_worked_example);
    if (g_getenv("VGPU_BENCH")) {
        qtest_add_func("/vgpu/bench/copy", test_bench_copy);
    }
}
