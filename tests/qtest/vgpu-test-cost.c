/*
 * vgpu qtests: the cost model (vgpu-cost.c, hardware.rst "Cost model").
 *
 * Exact modeled times of simple commands under two presets, checked
 * against the formula of hardware.rst computed here from the preset's
 * published numbers and against the device counters the cost comes from;
 * the stall accounting; TIMESTAMP; pacing on and off.  Refused property
 * values are in vgpu-test-regs.c (config/refused).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

/* The presets as hardware.rst lists them. */
typedef struct CostModel {
    const char *name;           /* the link property */
    uint32_t link;              /* COST_LINK */
    uint32_t vram_bw, link_bw, link_lat, tlb_miss, walk_level, fault, cmd;
} CostModel;

static const CostModel presets[] = {
    { "pcie3", VGPU_LINK_PCIE3, 900000, 15754, 1000, 100, 300, 20000, 1000 },
    { "pcie4", VGPU_LINK_PCIE4, 1555000, 31508, 1000, 100, 300, 20000, 1000 },
    { "pcie5", VGPU_LINK_PCIE5, 2000000, 63015, 1000, 100, 300, 20000, 1000 },
    { "c2c", VGPU_LINK_C2C, 4000000, 450000, 500, 100, 300, 20000, 1000 },
};

/* What a command did, as the cost formula takes it. */
typedef struct Work {
    uint64_t vram_bytes, link_bytes, l1_misses, pt_vram, pt_sys;
} Work;

/* The formula of hardware.rst, "Cost model", for one command. */
static uint64_t model_ns(const CostModel *m, const Work *w)
{
    uint64_t vram = w->vram_bytes * 1000 / m->vram_bw;
    uint64_t link = w->link_bytes * 1000 / m->link_bw;

    return m->cmd + MAX(vram, link) + (w->link_bytes ? m->link_lat : 0) +
           w->l1_misses * m->tlb_miss + w->pt_vram * m->walk_level +
           w->pt_sys * m->link_lat;
}

static uint64_t qclock(VGPUTest *t, int q)
{
    return rd64(t, VGPU_QTIME_REG(q, VGPU_QTIME_CLOCK_LO));
}

static uint64_t qstall(VGPUTest *t, int q)
{
    return rd64(t, VGPU_QTIME_REG(q, VGPU_QTIME_STALL_LO));
}

static void start_preset(VGPUTest *t, const CostModel *m, const char *more)
{
    g_autofree char *props = g_strdup_printf("vram_size=64M,link=%s%s%s",
                                             m->name, more ? "," : "",
                                             more ? more : "");

    vgpu_test_start(t, props);
}

/* ------------------------------------------------------- Registers --- */

/* Each preset reads back as hardware.rst lists it; the CAPS bit is set. */
static void test_cost_regs(const void *opaque)
{
    const CostModel *m = opaque;
    VGPUTest t;

    start_preset(&t, m, NULL);
    g_assert(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_COST_MODEL);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_LINK), ==, m->link);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_VRAM_BW), ==, m->vram_bw);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_LINK_BW), ==, m->link_bw);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_LINK_LAT), ==, m->link_lat);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_TLB_MISS), ==, m->tlb_miss);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_WALK_LEVEL), ==, m->walk_level);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_FAULT), ==, m->fault);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_CMD), ==, m->cmd);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_DILATION), ==, 0);
    g_assert_cmpuint(qclock(&t, 0), ==, 0);
    g_assert_cmpuint(qstall(&t, 0), ==, 0);
    vgpu_test_stop(&t);
}

/* Overrides replace the preset's values one by one; the default is pcie4. */
static void test_cost_overrides(void)
{
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,link_bw=1234,cmd_cost=7,"
                    "walk_level=9,dilation=3");
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_LINK), ==, VGPU_LINK_PCIE4);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_LINK_BW), ==, 1234);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_CMD), ==, 7);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_WALK_LEVEL), ==, 9);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_DILATION), ==, 3);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_VRAM_BW), ==, 1555000);
    g_assert_cmpuint(rd(&t, VGPU_REG_COST_FAULT), ==, 20000);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------ Copies --- */

#define COPY_SIZE       MiB
#define SRC_VA          0x40000000ull       /* 2 MiB leaves */
#define DST_VA          0x40200000ull
#define SRC_VRAM_PA     (16 * MiB)
#define DST_VRAM_PA     (18 * MiB)
#define SRC_SYS_PA      SYS_DATA

typedef struct CopyCase {
    const char *name;
    const CostModel *m;
    bool src_sys;
    uint64_t expect_ns;     /* worked out by hand in hardware.rst */
} CopyCase;

static const CopyCase copy_cases[] = {
    { "pcie4/vram-to-vram", &presets[VGPU_LINK_PCIE4], false, 4348 },
    { "pcie4/system-to-vram", &presets[VGPU_LINK_PCIE4], true, 37279 },
    { "pcie3/vram-to-vram", &presets[VGPU_LINK_PCIE3], false, 5330 },
    { "pcie3/system-to-vram", &presets[VGPU_LINK_PCIE3], true, 70559 },
};

/*
 * A COPY of 1 MiB between two 2 MiB leaves: two L1 misses, two walks of
 * three entries (tables in VRAM), 1 MiB read and 1 MiB written.
 */
static void test_cost_copy(const void *opaque)
{
    const CopyCase *c = opaque;
    Work w = {
        .vram_bytes = c->src_sys ? COPY_SIZE : 2 * COPY_SIZE,
        .link_bytes = c->src_sys ? COPY_SIZE : 0,
        .l1_misses = 2, .pt_vram = 6,
    };
    VGPUTest t;

    start_preset(&t, c->m, NULL);
    basic_setup(&t);
    map(&t, CTX, SRC_VA, c->src_sys ? SRC_SYS_PA : SRC_VRAM_PA, 2 * MiB,
        PTE_RW | (c->src_sys ? VGPU_PTE_SYSTEM : 0), VGPU_PAGE_SIZE_2M);
    map(&t, CTX, DST_VA, DST_VRAM_PA, 2 * MiB, PTE_RW, VGPU_PAGE_SIZE_2M);
    cmd_copy(&t, 0, SRC_VA, DST_VA, COPY_SIZE);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_MISS), ==, w.l1_misses);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_PT_READS), ==, w.pt_vram);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_SYS_READ_BYTES), ==, w.link_bytes);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==, COPY_SIZE);
    g_assert_cmpuint(model_ns(c->m, &w), ==, c->expect_ns);
    g_assert_cmpuint(qclock(&t, 0), ==, c->expect_ns);
    g_assert_cmpuint(qstall(&t, 0), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==, c->expect_ns);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_MODELED_NS), ==, c->expect_ns);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STALL_NS), ==, 0);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------- TOUCH --- */

typedef struct TouchCase {
    const char *name;
    const CostModel *m;
    bool pt_sys;            /* page tables in system memory */
    uint64_t expect_ns;
} TouchCase;

static const TouchCase touch_cases[] = {
    { "pcie4/tables-in-vram", &presets[VGPU_LINK_PCIE4], false, 21842 },
    { "pcie4/tables-in-system", &presets[VGPU_LINK_PCIE4], true, 66642 },
    { "c2c/tables-in-vram", &presets[VGPU_LINK_C2C], false, 21816 },
    { "c2c/tables-in-system", &presets[VGPU_LINK_C2C], true, 34616 },
};

/*
 * A sequential read TOUCH of the 64 KiB scratch mapping (sixteen 4 KiB
 * pages, never used before): 1024 lines, 16 L1 misses, 16 walks of four
 * entries.  With the tables in system memory (the root too), every entry
 * is read across the link.
 */
static void test_cost_touch(const void *opaque)
{
    const TouchCase *c = opaque;
    Work w = { .vram_bytes = 64 * KiB, .l1_misses = 16 };
    VGPUTest t;

    start_preset(&t, c->m, NULL);
    t.pt_sys = c->pt_sys;
    basic_setup(&t);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, SCRATCH_VA,
              64 * KiB, 0, 0, 0, 1);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_MISS), ==, 16);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_PT_READS), ==, 64);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES), ==, 64 * KiB);
    w.pt_sys = c->pt_sys ? 64 : 0;
    w.pt_vram = 64 - w.pt_sys;
    g_assert_cmpuint(model_ns(c->m, &w), ==, c->expect_ns);
    g_assert_cmpuint(qclock(&t, 0), ==, c->expect_ns);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==, c->expect_ns);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------ GATHER --- */

/*
 * A GATHER of sixteen 64-byte elements in the cold scratch mapping: the
 * indices in page 0, the elements spread over pages 4..7, the packed
 * result in page 8; six pages, six L1 misses and walks of four entries.
 * Under pcie4: 1,000 + 2,112 B x 1000 / 1,555,000 (1) + 6 x 100 + 24 x
 * 300 = 8,801 ns (hardware.rst, "Cost model").
 */
static void test_cost_gather(void)
{
    const CostModel *m = &presets[VGPU_LINK_PCIE4];
    Work w = { .vram_bytes = 16 * (4 + 64 + 64), .l1_misses = 6,
               .pt_vram = 24 };
    uint32_t idx[16];
    VGPUTest t;
    int i;

    start_preset(&t, m, NULL);
    basic_setup(&t);
    for (i = 0; i < 16; i++) {
        idx[i] = cpu_to_le32((i % 4) * 64 + i);
    }
    mem_write(&t, false, SCRATCH_PA, idx, sizeof(idx));
    cmd_gather(&t, 0, VGPU_OP_GATHER, 6 << VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT,
               SCRATCH_VA, SCRATCH_VA + 0x4000, 16, 256, SCRATCH_VA + 0x8000);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_VRAM_READ_BYTES) +
                     ctr(&t, CTX, VGPU_CTR_VRAM_WRITE_BYTES), ==,
                     w.vram_bytes);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_MISS), ==, w.l1_misses);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_PT_READS), ==, w.pt_vram);
    g_assert_cmpuint(model_ns(m, &w), ==, 8801);
    g_assert_cmpuint(qclock(&t, 0), ==, 8801);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==, 8801);
    vgpu_test_stop(&t);
}

/* --------------------------------------------------------- TIMESTAMP --- */

/*
 * TIMESTAMP writes the queue's clock as it starts: 0 first, then the cost
 * of everything before it; with FLAG_WALL the device clock instead.
 */
static void test_cost_timestamp(void)
{
    const CostModel *m = &presets[VGPU_LINK_PCIE4];
    VGPUTest t;
    uint64_t c1, c2, wall;

    start_preset(&t, m, NULL);
    cmd_setup(&t);
    cmd_timestamp(&t, 0, 0, CMD_VA);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, CMD_PA), ==, 0);
    c1 = qclock(&t, 0);
    /* An 8-byte write to a fresh 4 KiB page: 0 ns of data, one walk. */
    g_assert_cmpuint(c1, ==, m->cmd + m->tlb_miss + 4 * m->walk_level);

    cmd_nop(&t, 0, 1);
    cmd_timestamp(&t, 0, 0, CMD_VA + 8);
    cmd_timestamp(&t, 0, VGPU_TIMESTAMP_FLAG_WALL, CMD_VA + 16);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    c2 = mem_rq(&t, false, CMD_PA + 8);
    g_assert_cmpuint(c2, ==, c1 + m->cmd);
    /* Same page again: an L1 hit each; the clock moved by two commands. */
    g_assert_cmpuint(qclock(&t, 0), ==, c2 + 2 * m->cmd);
    wall = mem_rq(&t, false, CMD_PA + 16);
    g_assert_cmpuint(wall, <=, rd64(&t, VGPU_REG_TIMESTAMP_LO));
    /* Unknown TIMESTAMP flags are still refused. */
    cmd_timestamp(&t, 0, VGPU_TIMESTAMP_FLAG_WALL << 1, CMD_VA);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_ARGUMENT);
    vgpu_test_stop(&t);
}

/*
 * A ring FENCE with FENCE_FLAG_CLOCK writes the queue's clock once it
 * completes, its own cost included, to a bus address, by DMA and not
 * through the context: so consecutive FENCEs split the queue's time
 * exactly between the jobs they end.  Bad forms are refused before
 * anything is written.
 */
#define CLOCK_SLOT      (SYS_DATA + 0x3000)

static void test_cost_fence_clock(void)
{
    const CostModel *m = &presets[VGPU_LINK_PCIE4];
    g_autoptr(GArray) s = stream_new();
    uint64_t job1, job2, l1;
    VGPUTest t;

    start_preset(&t, m, NULL);
    g_assert_cmphex(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_FENCE_CLOCK, ==,
                    VGPU_CAPS_FENCE_CLOCK);
    cmd_setup(&t);
    mem_wq(&t, true, CLOCK_SLOT, ~0ull);
    mem_wq(&t, true, CLOCK_SLOT + 8, ~0ull);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);

    /* Job 1: a COMPUTE and the kernel's FENCE. */
    cmd_compute(&t, 0, 5000);
    st_fence(s, VGPU_FENCE_FLAG_CLOCK, CLOCK_SLOT, 11);
    q_emit_stream(&t, 0, s);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    job1 = mem_rq(&t, true, CLOCK_SLOT);
    g_assert_cmpuint(job1, ==, qclock(&t, 0));
    g_assert_cmpuint(job1, ==, 2 * m->cmd + 5000);
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==,
                     11);
    /* Its write is no data access: no byte, walk or miss counted. */
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_SYS_WRITE_BYTES), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_PT_READS), ==, 0);

    /* Job 2: a TIMESTAMP (one walk) and the FENCE: the clock moved by it. */
    g_array_set_size(s, 0);
    cmd_timestamp(&t, 0, 0, CMD_VA);
    st_fence(s, VGPU_FENCE_FLAG_CLOCK | VGPU_FENCE_FLAG_IRQ,
             CLOCK_SLOT + 8, 12);
    q_emit_stream(&t, 0, s);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    job2 = mem_rq(&t, true, CLOCK_SLOT + 8);
    g_assert_cmpuint(job2, ==, qclock(&t, 0));
    l1 = m->tlb_miss + 4 * m->walk_level;
    g_assert_cmpuint(job2 - job1, ==, 2 * m->cmd + l1);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, 1);
    /* The context's modeled time is the sum of the jobs'. */
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==, job2);
    g_assert_cmpuint(mem_rq(&t, false, CMD_PA), ==, job1);
    vgpu_test_stop(&t);
}

typedef struct ClockBadCase {
    const char *name;
    uint32_t flags;
    uint64_t dst;
    uint32_t cause;
} ClockBadCase;

static const ClockBadCase clock_bad[] = {
    { "with-nowrite", VGPU_FENCE_FLAG_CLOCK | VGPU_FENCE_FLAG_NOWRITE,
      CLOCK_SLOT, VGPU_QUEUE_ERROR_ARGUMENT },
    { "misaligned", VGPU_FENCE_FLAG_CLOCK, CLOCK_SLOT + 4,
      VGPU_QUEUE_ERROR_ARGUMENT },
    { "unknown-flag", VGPU_FENCE_FLAG_CLOCK << 1, CLOCK_SLOT,
      VGPU_QUEUE_ERROR_ARGUMENT },
    /* Nothing answers there: the queue stops, nothing is signalled. */
    { "no-memory", VGPU_FENCE_FLAG_CLOCK | VGPU_FENCE_FLAG_IRQ,
      1ull << 44, VGPU_QUEUE_ERROR_RING_DMA },
};

static void test_cost_fence_clock_bad(const void *opaque)
{
    const ClockBadCase *c = opaque;
    g_autoptr(GArray) s = stream_new();
    VGPUTest t;

    start_preset(&t, &presets[VGPU_LINK_PCIE4], NULL);
    cmd_setup(&t);
    mem_wq(&t, true, CLOCK_SLOT, 0x5a5a);
    st_fence(s, c->flags, c->dst, 21);
    q_emit_stream(&t, 0, s);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 0), ==, c->cause);
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, 0);
    g_assert_cmphex(mem_rq(&t, true, CLOCK_SLOT), ==, 0x5a5a);
    vgpu_test_stop(&t);
}

/*
 * COMPUTE adds its argument to the queue's clock and to the context's
 * modeled time, on top of its command overhead, and moves no byte; a CALL
 * stream may run it too (it is unprivileged work).  A wrong length or a
 * flag is refused.
 */
static void test_cost_compute(void)
{
    const CostModel *m = &presets[VGPU_LINK_PCIE4];
    const uint64_t miss = m->tlb_miss + 4 * m->walk_level;
    g_autoptr(GArray) s = stream_new();
    g_autoptr(GArray) bad = stream_new();
    uint64_t c1, c2, ts, modeled, bytes;
    VGPUTest t;
    int i;

    start_preset(&t, m, NULL);
    g_assert(rd(&t, VGPU_REG_CAPS) & VGPU_CAPS_COMPUTE);
    cmd_setup(&t);
    cmd_timestamp(&t, 0, 0, CMD_VA);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    c1 = qclock(&t, 0);
    modeled = ctr(&t, CTX, VGPU_CTR_MODELED_NS);
    bytes = 0;
    for (i = VGPU_CTR_VRAM_READ_BYTES; i <= VGPU_CTR_SYS_WRITE_BYTES; i++) {
        bytes += ctr(&t, -1, i);
    }
    cmd_compute(&t, 0, 123456);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(qclock(&t, 0), ==, c1 + m->cmd + 123456);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==,
                     modeled + m->cmd + 123456);
    for (i = VGPU_CTR_VRAM_READ_BYTES; i <= VGPU_CTR_SYS_WRITE_BYTES; i++) {
        bytes -= ctr(&t, -1, i);
    }
    g_assert_cmpuint(bytes, ==, 0);

    /* From a CALL stream: the TIMESTAMP after it sees its time. */
    st_compute(s, 0, VGPU_COMPUTE_LEN, 5000);
    st_timestamp(s, 0, CMD_VA + 8);
    mem_write(&t, false, CMD_PA + 0x1000, s->data, s->len * 4);
    c2 = qclock(&t, 0);
    cmd_call(&t, 0, CMD_VA + 0x1000, s->len);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    ts = mem_rq(&t, false, CMD_PA + 8);
    g_assert_cmpuint(ts, >=, c2 + 5000 + m->cmd);
    g_assert_cmpuint(ts, <=, c2 + 5000 + 2 * (m->cmd + miss));

    /* Refused: a length other than VGPU_COMPUTE_LEN, and any flag. */
    st_compute(bad, 0, VGPU_COMPUTE_LEN + 1, 1);
    q_emit_stream(&t, 0, bad);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_LENGTH);
    g_array_set_size(bad, 0);
    q_init(&t, 1, CTX);
    st_compute(bad, 1, VGPU_COMPUTE_LEN, 1);
    q_emit_stream(&t, 1, bad);
    q_submit(&t, 1);
    q_wait_state(&t, 1, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, 1), ==, VGPU_QUEUE_ERROR_ARGUMENT);
    vgpu_test_stop(&t);
}

/*
 * A WAIT satisfied by another queue's FENCE waited for it: queue 1 WAITs
 * for a value queue 0 FENCEs after a long TOUCH.  Queue 1's TIMESTAMP
 * after the WAIT reads queue 0's clock at its FENCE (its TIMESTAMP before
 * the FENCE plus that TIMESTAMP's command) plus the WAIT's own command:
 * queue 1 did no work, but it could not go on before queue 0 got there.
 * A value the CPU writes carries no modeled time: a WAIT on it costs its
 * command only.
 */
static void test_cost_wait(void)
{
    const CostModel *m = &presets[VGPU_LINK_PCIE4];
    const uint64_t miss = m->tlb_miss + 4 * m->walk_level;
    uint64_t a, b, c, before;
    VGPUTest t;

    start_preset(&t, m, NULL);
    cmd_setup(&t);
    q_init(&t, 1, CTX);
    cmd_wait(&t, 1, CMD_VA + 0x800, 5);
    cmd_timestamp(&t, 1, 0, CMD_VA + 0x808);
    q_submit(&t, 1);
    q_wait_state(&t, 1, VGPU_QUEUE_STATE_WAITING);
    cmd_touch(&t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, CMD_VA,
              CMD_SIZE, 0, 0, 0, 4);
    cmd_timestamp(&t, 0, 0, CMD_VA + 0x810);
    cmd_fence(&t, 0, CMD_VA + 0x800, 5, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    q_wait_done(&t, 1);
    a = mem_rq(&t, false, CMD_PA + 0x810);
    b = mem_rq(&t, false, CMD_PA + 0x808);
    g_assert_cmpuint(a, >, 100 * m->cmd);       /* the TOUCH took a while */
    g_assert_cmpuint(b, >=, a + 2 * m->cmd);
    g_assert_cmpuint(b, <=, a + 2 * (m->cmd + miss));

    /* The CPU's value: no time to wait for. */
    before = qclock(&t, 1);
    cmd_wait(&t, 1, CMD_VA + 0x900, 1);
    cmd_timestamp(&t, 1, 0, CMD_VA + 0x908);
    q_submit(&t, 1);
    q_wait_state(&t, 1, VGPU_QUEUE_STATE_WAITING);
    mem_wq(&t, false, CMD_PA + 0x900, 1);
    q_wait_done(&t, 1);
    c = mem_rq(&t, false, CMD_PA + 0x908);
    g_assert_cmpuint(c, >=, before + m->cmd);
    g_assert_cmpuint(c, <=, before + m->cmd + miss);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------ Stalls --- */

#define OTHER_CTX       2

/*
 * Queue 0 stalls on a fault; queue 1 (another context) runs a COPY of
 * known cost meanwhile; then REPLAY.  The stall costs fault_cost plus that
 * COPY, however long the test took; the stalled queue's clock is its
 * stall plus its own commands, each from its context's counters.
 */
static void test_cost_stall(const void *opaque)
{
    const CostModel *m = opaque;
    const uint64_t fault = 12345;
    g_autofree char *more = g_strdup_printf("fault_cost=%" PRIu64, fault);
    Work other = { .vram_bytes = 2 * COPY_SIZE, .l1_misses = 2, .pt_vram = 6 };
    Work own;
    uint64_t other_ns = model_ns(m, &other), stall;
    VGPUTest t;

    start_preset(&t, m, more);
    basic_setup(&t);
    ctx_init(&t, OTHER_CTX);
    map(&t, OTHER_CTX, SRC_VA, SRC_VRAM_PA, 2 * MiB, PTE_RW,
        VGPU_PAGE_SIZE_2M);
    map(&t, OTHER_CTX, DST_VA, DST_VRAM_PA, 2 * MiB, PTE_RW,
        VGPU_PAGE_SIZE_2M);
    q_init(&t, 1, OTHER_CTX);

    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 256);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    g_usleep(20000);            /* wall time: charged nothing */
    cmd_copy(&t, 1, SRC_VA, DST_VA, COPY_SIZE);
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    g_assert_cmpuint(qclock(&t, 1), ==, other_ns);
    g_assert_cmpuint(qclock(&t, 0), ==, 0);     /* charged on completion */

    map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&t, 0);

    stall = fault + other_ns;
    g_assert_cmpuint(qstall(&t, 0), ==, stall);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_STALL_NS), ==, stall);
    g_assert_cmpuint(ctr(&t, OTHER_CTX, VGPU_CTR_STALL_NS), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_STALL_NS), ==, stall);
    /* The COPY: a walk to the missing level-2 entry, then two full ones. */
    own = (Work) {
        .vram_bytes = 2 * 256,
        .l1_misses = ctr(&t, CTX, VGPU_CTR_L1_MISS),
        .pt_vram = ctr(&t, CTX, VGPU_CTR_PT_READS),
    };
    g_assert_cmpuint(own.l1_misses, ==, 3);
    g_assert_cmpuint(own.pt_vram, ==, 2 + 4 + 4);
    g_assert_cmpuint(qclock(&t, 0), ==, stall + model_ns(m, &own));
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==, qclock(&t, 0));
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_MODELED_NS), ==,
                     qclock(&t, 0) + qclock(&t, 1));

    /* COUNTERS_RESET clears the counters, not the queues' clocks. */
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_MODELED_NS), ==, 0);
    g_assert_cmpuint(qstall(&t, 0), ==, stall);
    vgpu_test_stop(&t);
}

/* A CANCEL ends the stall too: it is charged, and so is the command. */
static void test_cost_stall_cancel(void)
{
    const CostModel *m = &presets[VGPU_LINK_PCIE4];
    Work own;
    VGPUTest t;

    start_preset(&t, m, NULL);
    basic_setup(&t);
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 256);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_CANCEL);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_ERROR);
    own = (Work) { .l1_misses = 1, .pt_vram = 2 };
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_L1_MISS), ==, own.l1_misses);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_PT_READS), ==, own.pt_vram);
    g_assert_cmpuint(qstall(&t, 0), ==, m->fault);
    g_assert_cmpuint(qclock(&t, 0), ==, m->fault + model_ns(m, &own));
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------ Pacing --- */

#define PACE_NS         (1000 * 1000)   /* a 1000 ns NOP at dilation 1000 */

static bool cond_fenced(VGPUTest *t, int q, uint64_t seqno)
{
    return mem_rq(t, false, SCRATCH_PA + 0x100) == seqno;
}

/*
 * With dilation 1000, a FENCE behind a 1000 ns NOP may start only 1 ms of
 * device (virtual) time after the doorbell; qtest moves that clock.
 */
static void test_cost_pacing_on(void)
{
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,cmd_cost=1000,dilation=1000");
    basic_setup(&t);
    cmd_nop(&t, 0, 1);
    cmd_fence(&t, 0, SCRATCH_VA + 0x100, 5, false);
    q_submit(&t, 0);
    /* The NOP ran; the FENCE waits for the device clock. */
    g_assert(wait_for(&t, cond_state, 0, VGPU_QUEUE_STATE_RUNNING));
    g_assert_false(wait_for_ms(&t, cond_fenced, 0, 5, 100));
    g_assert_cmpuint(qclock(&t, 0), ==, 1000);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_RUNNING);
    qtest_clock_step(t.qts, PACE_NS - 1);
    g_assert_false(wait_for_ms(&t, cond_fenced, 0, 5, 100));
    qtest_clock_step(t.qts, 1);
    g_assert(wait_for(&t, cond_fenced, 0, 5));
    q_wait_done(&t, 0);
    g_assert_cmpuint(qclock(&t, 0), >, 2000);   /* and the FENCE's walk */
    vgpu_test_stop(&t);
}

/* Without pacing (the default), the same work needs no clock step. */
static void test_cost_pacing_off(void)
{
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,cmd_cost=1000");
    basic_setup(&t);
    cmd_nop(&t, 0, 1);
    cmd_fence(&t, 0, SCRATCH_VA + 0x100, 5, false);
    q_submit(&t, 0);
    g_assert(wait_for(&t, cond_fenced, 0, 5));
    q_wait_done(&t, 0);
    vgpu_test_stop(&t);
}

void vgpu_test_add_cost(void)
{
    int i;

    for (i = 0; i < ARRAY_SIZE(presets); i++) {
        g_autofree char *path = g_strdup_printf("/vgpu/cost/regs/%s",
                                                presets[i].name);

        qtest_add_data_func(path, &presets[i], test_cost_regs);
    }
    qtest_add_func("/vgpu/cost/overrides", test_cost_overrides);
    ADD_TABLE("cost/copy", copy_cases, test_cost_copy);
    ADD_TABLE("cost/touch", touch_cases, test_cost_touch);
    qtest_add_func("/vgpu/cost/gather", test_cost_gather);
    qtest_add_func("/vgpu/cost/timestamp", test_cost_timestamp);
    qtest_add_func("/vgpu/cost/compute", test_cost_compute);
    qtest_add_func("/vgpu/cost/fence-clock", test_cost_fence_clock);
    for (i = 0; i < ARRAY_SIZE(clock_bad); i++) {
        g_autofree char *path =
            g_strdup_printf("/vgpu/cost/fence-clock/bad/%s", clock_bad[i].name);

        qtest_add_data_func(path, &clock_bad[i], test_cost_fence_clock_bad);
    }
    qtest_add_func("/vgpu/cost/wait", test_cost_wait);
    qtest_add_data_func("/vgpu/cost/stall/pcie4", &presets[VGPU_LINK_PCIE4],
                        test_cost_stall);
    qtest_add_data_func("/vgpu/cost/stall/c2c", &presets[VGPU_LINK_C2C],
                        test_cost_stall);
    qtest_add_func("/vgpu/cost/stall-cancel", test_cost_stall_cancel);
    qtest_add_func("/vgpu/cost/pacing-on", test_cost_pacing_on);
    qtest_add_func("/vgpu/cost/pacing-off", test_cost_pacing_off);
}
