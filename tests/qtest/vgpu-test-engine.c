/*
 * vgpu qtests: engines and commands: scheduling, WAIT, bad commands,
 * COPY/FILL/WRITE/TOUCH/CHECKSUM.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

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
    { "touch-lanes-too-wide", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TOUCH, (VGPU_TOUCH_LANES_LOG2_MAX + 2) <<
                           VGPU_TOUCH_FLAG_LANES_SHIFT, VGPU_TOUCH_LEN),
        0, 0, 64 } },
    { "touch-unaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 9,
      { HDR(VGPU_OP_TOUCH, 0, VGPU_TOUCH_LEN), 32, 0, 64 } },
    { "checksum-misaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 7,
      { HDR(VGPU_OP_CHECKSUM, 0, VGPU_CHECKSUM_LEN), 0, 0, 0, 0, 3 } },
    { "call-zero-size", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 4,
      { HDR(VGPU_OP_CALL, 0, VGPU_CALL_LEN), 0x1000, 0, 0 } },
    { "call-too-large", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 4,
      { HDR(VGPU_OP_CALL, 0, VGPU_CALL_LEN), 0x1000, 0,
        VGPU_CALL_SIZE_MAX_DW + 1 } },
    { "call-short", BAD_DWORDS, VGPU_QUEUE_ERROR_LENGTH, 3,
      { HDR(VGPU_OP_CALL, 0, 3), 0x1000, 0 } },
    { "call-misaligned", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 4,
      { HDR(VGPU_OP_CALL, 0, VGPU_CALL_LEN), 0x1002, 0, 4 } },
    { "call-unknown-flag", BAD_DWORDS, VGPU_QUEUE_ERROR_ARGUMENT, 4,
      { HDR(VGPU_OP_CALL, 1, VGPU_CALL_LEN), 0x1000, 0, 4 } },
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
    cmd_timestamp(&t, 0, VGPU_TIMESTAMP_FLAG_WALL, CMD_VA);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    t1 = mem_rq(&t, false, CMD_PA);
    qtest_clock_step(t.qts, 1000000);
    cmd_timestamp(&t, 0, VGPU_TIMESTAMP_FLAG_WALL, CMD_VA + 8);
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

/*
 * Model of TOUCH: which line each access hits.  The random pattern runs a
 * generator per lane (hardware.rst, "Lanes"): lane i of @lanes owns the
 * i-th share of the count and starts from the seed XOR i times the golden
 * ratio constant.
 */
static void touch_model(const TouchCase *c, uint64_t size, uint32_t seed,
                        unsigned lanes, uint32_t *hits)
{
    const uint64_t golden = 0x9e3779b97f4a7c15ull;
    uint64_t lines = size / VGPU_TOUCH_LINE, per_pass, i, p;
    unsigned l;

    per_pass = c->pattern == VGPU_TOUCH_SEQUENTIAL ? lines :
               c->pattern == VGPU_TOUCH_STRIDED ?
               DIV_ROUND_UP(size, c->stride) : c->count;
    lanes = MIN(lanes, per_pass);
    for (l = 0; l < lanes; l++) {
        uint64_t n = per_pass / lanes + (l < per_pass % lanes);
        uint64_t first = l * (per_pass / lanes) + MIN(l, per_pass % lanes);
        uint64_t x = (seed ? seed : golden) ^ (l * golden);

        x = x ? x : golden;
        for (p = 0; p < MAX(c->repeat, 1); p++) {
            for (i = 0; i < n; i++) {
                uint64_t line;

                if (c->pattern == VGPU_TOUCH_SEQUENTIAL) {
                    line = first + i;
                } else if (c->pattern == VGPU_TOUCH_STRIDED) {
                    line = (first + i) * c->stride / VGPU_TOUCH_LINE;
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
    touch_model(c, size, 1234, 32, hits);
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

typedef struct BadSetupCase {
    const char *name;
    uint32_t reg;           /* the queue register made bad */
    uint64_t val;
    uint32_t cause;
} BadSetupCase;

static const BadSetupCase bad_setup_cases[] = {
    { "context", VGPU_QUEUE_CONTEXT, 99, VGPU_QUEUE_ERROR_CONTEXT },
    { "ring-size", VGPU_QUEUE_RING_SIZE, 2, VGPU_QUEUE_ERROR_RING },
    { "ring-descriptor", VGPU_QUEUE_RING_LO, 0, VGPU_QUEUE_ERROR_RING },
};

/*
 * A queue whose ENABLE was refused for its set-up stays in ERROR through
 * RESET (found by vgpu-fuzz: RESET made it IDLE, and a doorbell then ran
 * it with a context out of range, reading past the context roots).
 */
static void test_reset_bad_setup(const void *opaque)
{
    const BadSetupCase *c = opaque;
    const int q = 2;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, q, CTX);
    qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_DISABLE);
    if (c->reg == VGPU_QUEUE_RING_LO) {
        wr64(&t, VGPU_QUEUE_REG(q, c->reg), c->val);
    } else {
        qwr(&t, q, c->reg, c->val);
    }
    qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
    g_assert_cmpuint(q_state(&t, q), ==, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, q), ==, c->cause);
    wr(&t, VGPU_REG_ERROR_QUEUES, (1u << q));

    qwr(&t, q, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_RESET);
    g_assert_cmpuint(q_state(&t, q), ==, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&t, q), ==, c->cause);
    g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, (1u << q));
    cmd_fence(&t, q, SCRATCH_VA, 5, false);
    q_submit(&t, q);
    g_assert_cmpuint(q_state(&t, q), ==, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(qrd(&t, q, VGPU_QUEUE_HEAD), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_COMMANDS), ==, 0);

    /* A good set-up runs again. */
    qwr(&t, q, VGPU_QUEUE_CONTROL,
        VGPU_QUEUE_CONTROL_DISABLE | VGPU_QUEUE_CONTROL_RESET);
    q_init(&t, q, CTX);
    cmd_fence(&t, q, SCRATCH_VA, 6, false);
    q_submit(&t, q);
    q_wait_done(&t, q);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 6);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_engine(void)
{
    qtest_add_func("/vgpu/engine/wait-between-queues",
                   test_wait_between_queues);
    qtest_add_func("/vgpu/engine/wait-on-cpu", test_wait_on_cpu);
    qtest_add_func("/vgpu/engine/stall-isolation", test_stall_isolation);
    qtest_add_func("/vgpu/engine/timeslice", test_timeslice);
    qtest_add_func("/vgpu/engine/ring-in-system", test_ring_in_system);
    ADD_TABLE("engine/bad-command", bad_cmd_cases, test_bad_command);
    ADD_TABLE("engine/reset-keeps-bad-setup", bad_setup_cases,
              test_reset_bad_setup);
    qtest_add_func("/vgpu/cmd/fill-write", test_cmd_fill_write);
    qtest_add_func("/vgpu/cmd/timestamp", test_cmd_timestamp);
    ADD_TABLE("cmd/touch", touch_cases, test_cmd_touch);
    qtest_add_func("/vgpu/cmd/checksum", test_cmd_checksum);
    qtest_add_func("/vgpu/cmd/copy-large", test_cmd_copy_large);
}
