/*
 * vgpu qtests: faults: records, REPLAY, CANCEL, overflow, walk faults.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

/* --------------------------------------------------------------- Faults --- */


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

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_fault(void)
{
    qtest_add_func("/vgpu/fault/not-present-replay", test_fault_replay);
    qtest_add_func("/vgpu/fault/mid-copy-replay", test_fault_mid_copy);
    qtest_add_func("/vgpu/fault/cancel", test_fault_cancel);
    qtest_add_func("/vgpu/fault/overflow", test_fault_overflow);
    qtest_add_func("/vgpu/fault/no-buffer", test_fault_no_buffer);
    ADD_TABLE("fault/walk", walk_fault_cases, test_walk_fault);
}
