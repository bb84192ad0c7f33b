/*
 * vgpu qtests: migration.  A device with work stalled in it saved and
 * loaded; streams crafted from a real one, which the destination must
 * refuse with a message instead of looping, asserting or dividing by zero;
 * and a live migration while the engine writes VRAM, which must bring
 * every byte across.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

/* ------------------------------------------------------------ Helpers --- */

/* Wait until query-status says @state ("running", "paused"). */
static void wait_runstate(QTestState *qts, const char *state)
{
    gint64 end = g_get_monotonic_time() + MIG_TIMEOUT_S * G_USEC_PER_SEC;

    for (;;) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-status' }");
        bool done = !strcmp(qdict_get_str(qdict_get_qdict(rsp, "return"),
                                          "status"), state);

        qobject_unref(rsp);
        if (done) {
            return;
        }
        g_assert(g_get_monotonic_time() < end);
        g_usleep(10 * 1000);
    }
}

/*
 * A QEMU that will load @file, its stderr going to @err; @refused: it must
 * refuse the stream and exit with status 1, perhaps before it answers.
 */
static void launch_incoming_props(VGPUTest *d, const char *props,
                                  const char *file, const char *err,
                                  const char *more, bool refused)
{
    g_autofree char *extra = g_strdup_printf("-incoming defer %s%s%s",
                                             more ? more : "",
                                             err ? " 2>" : "", err ? err : "");

    vgpu_test_launch(d, props, extra);
    if (refused) {
        qtest_set_expected_status(d->qts, 1);
    }
    vgpu_migrate_from_file(d->qts, file, !refused);
}

static void launch_incoming(VGPUTest *d, const char *file, const char *err,
                            const char *more, bool refused)
{
    launch_incoming_props(d, "vram_size=64M", file, err, more, refused);
}

/* Read @len bytes of VRAM from @addr, in pieces qtest handles well. */
static void vram_read(VGPUTest *t, uint64_t addr, uint8_t *buf, uint64_t len)
{
    uint64_t off, n;

    for (off = 0; off < len; off += n) {
        n = MIN(len - off, 4 * MiB);
        mem_read(t, false, addr + off, buf + off, n);
    }
}

/* --------------------------------------------------------- Save, load --- */

/* Deterministic mode: @n records published (the last one VALID). */
static bool cond_fault_published(VGPUTest *t, int q, uint64_t n)
{
    return rd(t, VGPU_REG_FAULT_BUF_TAIL) >= n &&
           (fault_rec(t, n - 1).flags & VGPU_FAULT_DW3_VALID);
}

/*
 * Save a device to a file and load it into a new QEMU: registers, queues
 * (one stalled on a fault, one in ERROR with a context out of range, as a
 * refused ENABLE leaves it), an invalidation request with bits INVAL_CMD
 * ignores (the device fuzzer found the load refusing one), the
 * page-table exchange's address and old value, counters, the queues'
 * modeled clocks and the stall in progress, and VRAM come back; the TLB
 * starts empty.
 */
static void test_migration(void)
{
    g_autofree char *dir = g_dir_make_tmp("vgpu-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/state", dir);
    uint64_t walks, fault_va, counters[VGPU_CTR_NR], clock0;
    uint32_t fault_info_reg;
    VGPUTest t, d;
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
    qwr(&t, 5, VGPU_QUEUE_CONTEXT, 99);
    qwr(&t, 5, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
    g_assert_cmpuint(q_error(&t, 5), ==, VGPU_QUEUE_ERROR_CONTEXT);
    /* INVAL_CMD ignores bits beyond OP and CTX; so must the load. */
    wr(&t, VGPU_REG_INVAL_CMD, 0xff0040);
    g_assert(wait_for(&t, cond_inval_done, 0, 0));
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE);
    /* The page-table exchange's registers (a subsection of the stream). */
    mem_wq(&t, false, SCRATCH_PA + 32, 0x1234);
    wr64(&t, VGPU_REG_PT_XCHG_ADDR_LO, SCRATCH_PA + 32);
    wr64(&t, VGPU_REG_PT_XCHG_DATA_LO, 0x5678);
    walks = ctr(&t, CTX, VGPU_CTR_WALKS);
    for (i = 0; i < VGPU_CTR_NR; i++) {
        counters[i] = ctr(&t, CTX, i);
    }
    fault_va = rd64(&t, VGPU_QUEUE_REG(3, VGPU_QUEUE_FAULT_VA_LO));
    fault_info_reg = qrd(&t, 3, VGPU_QUEUE_FAULT_INFO);
    clock0 = rd64(&t, VGPU_QTIME_REG(0, VGPU_QTIME_CLOCK_LO));
    g_assert_cmpuint(clock0, >, 0);
    g_assert_true(vgpu_migrate_to_file(t.qts, file));
    vgpu_test_stop(&t);

    /* Touch nothing until the state is in. */
    launch_incoming(&d, file, NULL, NULL, false);
    wait_runstate(d.qts, "running");
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
    g_assert_cmpuint(q_state(&d, 5), ==, VGPU_QUEUE_STATE_ERROR);
    g_assert_cmpuint(q_error(&d, 5), ==, VGPU_QUEUE_ERROR_CONTEXT);
    g_assert_cmpuint(qrd(&d, 5, VGPU_QUEUE_CONTEXT), ==, 99);
    for (i = 0; i < VGPU_CTR_NR; i++) {
        g_assert_cmpuint(ctr(&d, CTX, i), ==, counters[i]);
    }
    g_assert_cmpuint(rd64(&d, VGPU_QTIME_REG(0, VGPU_QTIME_CLOCK_LO)), ==,
                     clock0);
    g_assert_cmpuint(rd64(&d, VGPU_QTIME_REG(3, VGPU_QTIME_CLOCK_LO)), ==, 0);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA), ==, 0x5a5a);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA + 8), ==, 17);
    g_assert_cmphex(rd64(&d, VGPU_REG_PT_XCHG_ADDR_LO), ==, SCRATCH_PA + 32);
    g_assert_cmphex(rd64(&d, VGPU_REG_PT_XCHG_DATA_LO), ==, 0x1234);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA + 32), ==, 0x5678);

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
    /* Its stall: the fault service and queue 0's COPY, on either side. */
    g_assert_cmpuint(rd64(&d, VGPU_QTIME_REG(3, VGPU_QTIME_STALL_LO)), ==,
                     rd(&d, VGPU_REG_COST_FAULT) +
                     rd64(&d, VGPU_QTIME_REG(0, VGPU_QTIME_CLOCK_LO)) -
                     clock0);
    vgpu_test_stop(&d);
    unlink(file);
    rmdir(dir);
}

/*
 * Deterministic mode's state migrates: queues 0 and 3 stall on two
 * missing pages and are published together; queue 0's REPLAY is held
 * when the device is saved.  On the new side queue 0 is still STALLED,
 * and queue 3's REPLAY resumes both.
 */
static void test_migration_deterministic(void)
{
    g_autofree char *dir = g_dir_make_tmp("vgpu-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/state", dir);
    const char *props = "vram_size=64M,deterministic=on";
    VGPUTest t, d;

    vgpu_test_start(&t, props);
    basic_setup(&t);
    q_init(&t, 3, CTX);
    mem_wq(&t, false, FAULT_PA, 0x1111);
    mem_wq(&t, false, FAULT_PA + VGPU_PAGE_SIZE_4K, 0x3333);
    cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 8);
    cmd_copy(&t, 3, FAULT_VA + VGPU_PAGE_SIZE_4K, SCRATCH_VA + 8, 8);
    q_submit(&t, 0);
    q_submit(&t, 3);
    g_assert_true(wait_for(&t, cond_fault_published, 0, 2));
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(q_state(&t, 3), ==, VGPU_QUEUE_STATE_STALLED);
    map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_STALLED);
    g_assert_true(vgpu_migrate_to_file(t.qts, file));
    vgpu_test_stop(&t);

    launch_incoming_props(&d, props, file, NULL, NULL, false);
    wait_runstate(d.qts, "running");
    vgpu_attach(&d);
    g_assert_true(rd(&d, VGPU_REG_CAPS) & VGPU_CAPS_DETERMINISTIC);
    g_assert_false(wait_for_ms(&d, cond_state, 0, VGPU_QUEUE_STATE_IDLE,
                               100));
    g_assert_cmpuint(q_state(&d, 0), ==, VGPU_QUEUE_STATE_STALLED);
    memcpy(d.tail, t.tail, sizeof(d.tail));
    d.root[CTX] = desc(false, VRAM_PT);
    d.pt_next[0] = t.pt_next[0];
    map4k(&d, CTX, FAULT_VA + VGPU_PAGE_SIZE_4K,
          FAULT_PA + VGPU_PAGE_SIZE_4K, PTE_RW);
    qwr(&d, 3, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&d, 0);
    q_wait_done(&d, 3);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA), ==, 0x1111);
    g_assert_cmphex(mem_rq(&d, false, SCRATCH_PA + 8), ==, 0x3333);
    vgpu_test_stop(&d);
    unlink(file);
    rmdir(dir);
}

/* ---------------------------------------------------- Crafted streams --- */

/*
 * A real stream is saved, then fields of the vgpu section are patched.
 * They are found from markers the source writes into registers that take
 * any value: queue 1's ring descriptor (queue 1 disabled), INVAL_VA, and
 * the 64-bit write latch (INVAL_SIZE_LO written alone).  The offsets from
 * a marker mirror vmstate_vgpu in vgpu.c; the test checks them against
 * values it knows before patching, so a change of the layout fails here.
 * Fields are big endian, booleans one byte.
 */
#define MARK_QUEUE1         0x5147505551554531ull     /* queue 1 ring */
#define MARK_INVAL_VA       0x5147505549564131ull     /* INVAL_VA */
#define MARK_LATCH          0x5eed1234u                /* INVAL_SIZE_LO */

#define VMS_QUEUE_SIZE      138     /* one vgpu/queue */
enum {                              /* in vgpu/queue */
    Q_RING = 0, Q_RING_SIZE = 8, Q_CONTEXT = 12, Q_HEAD = 16, Q_TAIL = 20,
    Q_STATE = 24, Q_ERROR = 28, Q_BUSY = 52, Q_CMD_HEADER = 53,
    Q_CMD_OFFSET = 57, Q_CMD_LEN = 61, Q_CMD_ARG = 65, Q_CMD_DONE = 97,
    Q_IN_CALL = 117, Q_CALL_RING_OFFSET = 118, Q_CALL_VA = 122,
    Q_CALL_SIZE = 130, Q_CALL_POS = 134,
};
enum {                              /* from INVAL_VA */
    G_STATUS = -20, G_INT_STATUS = -16, G_FENCE_QUEUES = -8,
    G_INVAL_REQ = 16, G_INVAL_FIFO = 24, G_FAULT_ENTRIES = 1312,
    G_FAULT_TAIL = 1320, G_QUEUE0 = 1460,
};
enum { W_RR_NEXT = 16 };            /* from the write latch */

typedef enum MigAt { AT_Q0, AT_Q1, AT_G, AT_W } MigAt;

typedef struct MigPatch {
    MigAt at;
    int off;
    int size;               /* 0 ends the list */
    uint64_t val;
} MigPatch;

typedef struct BadStreamCase {
    const char *name;
    MigPatch p[12];
    const char *why;        /* in the destination's error message */
} BadStreamCase;

#define P(at, off, size, val)   { at, off, size, val }
#define Q0(off, val)            P(AT_Q0, off, 4, val)
/* Queue 0 RUNNING with the command @hdr in flight at HEAD (0). */
#define IN_FLIGHT(hdr)                                                      \
    Q0(Q_STATE, VGPU_QUEUE_STATE_RUNNING), P(AT_Q0, Q_BUSY, 1, 1),          \
    Q0(Q_CMD_HEADER, hdr), Q0(Q_CMD_LEN, FIELD_GET(hdr, VGPU_CMD_LEN)),     \
    Q0(Q_TAIL, 0x100)       /* list elements: no parentheses */
#define ARG(i, val)             Q0(Q_CMD_ARG + 4 * (i), val)
/* Queue 0 RUNNING inside a CALL of @size bytes at stream offset @pos. */
#define IN_CALL(size, pos)                                                  \
    Q0(Q_STATE, VGPU_QUEUE_STATE_RUNNING), P(AT_Q0, Q_IN_CALL, 1, 1),       \
    Q0(Q_CALL_SIZE, size), Q0(Q_CALL_POS, pos), Q0(Q_TAIL, 0x100)
#define HDR(op, flags, len)     VGPU_CMD_HEADER(op, flags, len)

static const BadStreamCase bad_stream_cases[] = {
    { "ring-size-below-4", { Q0(Q_RING_SIZE, 2) }, "ring size" },
    { "ring-size-not-power-of-2", { Q0(Q_RING_SIZE, 0x3000) }, "ring size" },
    { "head-near-ring-end", { Q0(Q_HEAD, RING_SIZE - 2) }, "HEAD or TAIL" },
    { "tail-beyond-ring", { Q0(Q_TAIL, RING_SIZE + 64) }, "HEAD or TAIL" },
    { "context-out-of-range", { Q0(Q_CONTEXT, 99) }, "context out of range" },
    { "state-unknown", { Q0(Q_STATE, 9) }, "state unknown" },
    { "error-unknown", { Q0(Q_ERROR, 200) }, "error cause unknown" },
    { "busy-while-idle", { P(AT_Q0, Q_BUSY, 1, 1) },
      "command in flight in a state" },
    { "waiting-without-wait", { Q0(Q_STATE, VGPU_QUEUE_STATE_WAITING) },
      "WAITING without a WAIT" },
    { "stalled-without-command", { Q0(Q_STATE, VGPU_QUEUE_STATE_STALLED) },
      "STALLED with nothing" },
    { "opcode-in-flight", { IN_FLIGHT(HDR(0x7f, 0, 1)) }, "unknown opcode" },
    { "length-in-flight", { IN_FLIGHT(HDR(VGPU_OP_COPY, 0, 6)) },
      "has length 6" },
    { "command-not-at-head", { IN_FLIGHT(HDR(VGPU_OP_NOP, 0, 1)),
      Q0(Q_CMD_OFFSET, 0x40) }, "not where the queue is" },
    { "touch-zero-stride", { IN_FLIGHT(HDR(VGPU_OP_TOUCH, VGPU_TOUCH_STRIDED,
                                           VGPU_TOUCH_LEN)),
      ARG(0, LO(SCRATCH_VA)), ARG(1, HI(SCRATCH_VA)), ARG(2, 0x1000),
      ARG(4, 0) }, "stride" },
    { "touch-random-below-a-line", { IN_FLIGHT(HDR(VGPU_OP_TOUCH,
                                                   VGPU_TOUCH_RANDOM,
                                                   VGPU_TOUCH_LEN)),
      ARG(0, LO(SCRATCH_VA)), ARG(1, HI(SCRATCH_VA)), ARG(2, 32),
      ARG(5, 5) }, "64-byte lines" },
    { "progress-beyond-copy", { IN_FLIGHT(HDR(VGPU_OP_COPY, 0, VGPU_COPY_LEN)),
      ARG(4, 0x100), P(AT_Q0, Q_CMD_DONE, 8, 0x200) }, "progress beyond" },
    { "progress-beyond-gather", { IN_FLIGHT(HDR(VGPU_OP_GATHER,
                                    6 << VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT,
                                    VGPU_GATHER_LEN)),
      ARG(4, 4), ARG(5, 1), P(AT_Q0, Q_CMD_DONE, 8, 5) }, "progress beyond" },
    { "tile-block-with-radius", { IN_FLIGHT(HDR(VGPU_OP_TILE,
                                    1 << VGPU_TILE_FLAG_RADIUS_SHIFT,
                                    VGPU_TILE_LEN)),
      ARG(2, 64), ARG(3, 64), ARG(4, 1), ARG(5, 1), ARG(6, 1) }, "radius" },
    { "call-position-beyond-stream", { IN_CALL(16, 32) },
      "CALL stream position" },
    { "call-size-zero", { IN_CALL(0, 0) }, "CALL stream size" },
    { "call-not-at-head", { IN_CALL(64, 0), Q0(Q_CALL_RING_OFFSET, 0x20) },
      "HEAD not on the CALL" },
    { "call-on-disabled-queue", { P(AT_Q1, Q_IN_CALL, 1, 1) },
      "CALL in flight in a state" },
    { "privileged-in-call", { IN_CALL(64, 0),
      IN_FLIGHT(HDR(VGPU_OP_FENCE, VGPU_FENCE_FLAG_IRQ, VGPU_FENCE_LEN)) },
      "privileged" },
    { "nested-call", { IN_CALL(64, 0),
      IN_FLIGHT(HDR(VGPU_OP_CALL, 0, VGPU_CALL_LEN)), ARG(2, 4) },
      "only the ring may run it" },
    { "invalidations-unbounded", { P(AT_G, G_INVAL_REQ, 4, 1000) },
      "invalidation requests pending" },
    { "invalidation-bad-op", { P(AT_G, G_INVAL_FIFO, 4, 3) },
      "refused by INVAL_CMD" },
    { "fault-tail-outside", { P(AT_G, G_FAULT_TAIL, 4, 64) },
      "fault buffer TAIL" },
    { "status-not-ready", { P(AT_G, G_STATUS, 4, 0) }, "STATUS" },
    { "int-status-unknown", { P(AT_G, G_INT_STATUS, 4, 0x100) },
      "INT_STATUS" },
    { "fence-queues-beyond", { P(AT_G, G_FENCE_QUEUES, 4, 0x100) },
      "FENCE_QUEUES" },
    { "scheduler-position", { P(AT_W, W_RR_NEXT, 4, 1000) },
      "scheduler position" },
};

/* The only offset of @pat in @buf; fails unless there is exactly one. */
static size_t find_once(const uint8_t *buf, size_t len, const void *pat,
                        size_t plen)
{
    const uint8_t *at = memmem(buf, len, pat, plen);

    g_assert(at);
    g_assert_null(memmem(at + 1, len - (at + 1 - buf), pat, plen));
    return at - buf;
}

static uint64_t be_get(const uint8_t *p, int size)
{
    return size == 8 ? ldq_be_p(p) : size == 4 ? ldl_be_p(p) : *p;
}

static void be_put(uint8_t *p, int size, uint64_t val)
{
    if (size == 8) {
        stq_be_p(p, val);
    } else if (size == 4) {
        stl_be_p(p, val);
    } else {
        *p = val;
    }
}

/* A source to craft streams from: queue 0 idle, markers in place. */
static void bad_stream_source(const char *file)
{
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    wr64(&t, VGPU_QUEUE_REG(1, VGPU_QUEUE_RING_LO), MARK_QUEUE1);
    wr64(&t, VGPU_REG_INVAL_VA_LO, MARK_INVAL_VA);
    wr(&t, VGPU_REG_INVAL_SIZE_LO, MARK_LATCH);     /* last MMIO write */
    g_assert_true(vgpu_migrate_to_file(t.qts, file));
    vgpu_test_stop(&t);
}

/* Where each marker base is in @buf, checked against the known layout. */
static void bad_stream_bases(const uint8_t *buf, size_t len, size_t base[4])
{
    uint8_t mark[8];
    const uint8_t *q0;

    stq_be_p(mark, MARK_QUEUE1);
    base[AT_Q1] = find_once(buf, len, mark, 8);
    base[AT_Q0] = base[AT_Q1] - VMS_QUEUE_SIZE;
    stq_be_p(mark, MARK_INVAL_VA);
    base[AT_G] = find_once(buf, len, mark, 8);
    stl_be_p(mark, VGPU_REG_INVAL_SIZE_LO);
    stl_be_p(mark + 4, MARK_LATCH);
    base[AT_W] = find_once(buf, len, mark, 8);

    q0 = buf + base[AT_Q0];
    g_assert_cmpuint(base[AT_G] + G_QUEUE0, ==, base[AT_Q0]);
    g_assert_cmphex(ldq_be_p(q0 + Q_RING), ==, desc(false, VRAM_RING));
    g_assert_cmpuint(ldl_be_p(q0 + Q_RING_SIZE), ==, RING_SIZE);
    g_assert_cmpuint(ldl_be_p(q0 + Q_CONTEXT), ==, CTX);
    g_assert_cmpuint(ldl_be_p(q0 + Q_STATE), ==, VGPU_QUEUE_STATE_IDLE);
    g_assert_cmpuint(ldl_be_p(buf + base[AT_G] + G_STATUS), ==,
                     VGPU_STATUS_READY);
    g_assert_cmpuint(ldl_be_p(buf + base[AT_G] + G_FAULT_ENTRIES), ==, 64);
    g_assert_cmpuint(ldl_be_p(buf + base[AT_W] + W_RR_NEXT), <,
                     VGPU_NUM_QUEUES);
}

/*
 * A stream with one field (or a few, for a consistent command in
 * flight) out of what the device can reach: the destination refuses it,
 * names the field in its error, and exits with status 1 (a failed
 * incoming migration) — no abort, no hang.
 */
static void test_bad_stream(const void *opaque)
{
    const BadStreamCase *c = opaque;
    g_autofree char *dir = g_dir_make_tmp("vgpu-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/state", dir);
    g_autofree char *bad = g_strdup_printf("%s/bad", dir);
    g_autofree char *err = g_strdup_printf("%s/err", dir);
    g_autofree char *msg = NULL;
    g_autofree uint8_t *buf = NULL;
    gint64 end;
    size_t len, base[4];
    const MigPatch *p;
    bool changed = false;
    VGPUTest d;

    bad_stream_source(file);
    g_assert(g_file_get_contents(file, (char **)&buf, &len, NULL));
    bad_stream_bases(buf, len, base);
    for (p = c->p; p->size; p++) {
        uint8_t *at = buf + base[p->at] + p->off;

        changed |= be_get(at, p->size) != p->val;
        be_put(at, p->size, p->val);
    }
    g_assert_true(changed);
    g_assert(g_file_set_contents(bad, (char *)buf, len, NULL));

    launch_incoming(&d, bad, err, NULL, true);
    end = g_get_monotonic_time() + MIG_TIMEOUT_S * G_USEC_PER_SEC;
    while (qtest_probe_child(d.qts)) {
        g_assert(g_get_monotonic_time() < end);     /* refused, not hung */
        g_usleep(10 * 1000);
    }
    qtest_quit(d.qts);      /* checks the exit status: 1, no signal */
    g_assert(g_file_get_contents(err, &msg, NULL, NULL));
    if (!strstr(msg, "vgpu: migration stream refused") ||
        !strstr(msg, c->why)) {
        g_error("destination said \"%s\", expected \"%s\"", msg, c->why);
    }
    unlink(file);
    unlink(bad);
    unlink(err);
    rmdir(dir);
}

/* ------------------------------------------------------ Live migration --- */

/*
 * The engine writes VRAM with every kind of write while a live migration
 * runs: per round FILL A, COPY A to B, WRITE, CHECKSUM B, TOUCH RMW over
 * one MiB of D (a new MiB of 4 KiB pages for the first 8 rounds, so walks
 * set A/D bits in tables in VRAM as it goes) and a FENCE.  Before the
 * last round a copy from FAULT_VA stalls the queue: however the engine and
 * the migration are scheduled, work is left for the destination.
 */
#define LIVE_VA             0x40000000000ull
#define LIVE_PA             (16 * MiB)
#define LIVE_SIZE           (10 * MiB)
#define LIVE_A              0
#define LIVE_B              (256 * KiB)
#define LIVE_C              (512 * KiB)     /* checksums, 8 bytes a round */
#define LIVE_W              (516 * KiB)     /* WRITE data, 16 bytes a round */
#define LIVE_F              (520 * KiB)     /* the FENCE */
#define LIVE_D              (1 * MiB)
#define LIVE_D_PARTS        8
#define LIVE_AB_SIZE        (256 * KiB)
#define LIVE_ROUNDS         40
#define LIVE_TOUCH_REPEAT   30

static uint32_t live_value(uint32_t r)
{
    return 0xa5000000u | r;
}

static void live_round(VGPUTest *t, uint32_t r)
{
    uint32_t w[] = { r, ~r, r * 3, 0x5eed };

    cmd_fill(t, 0, LIVE_VA + LIVE_A, LIVE_AB_SIZE, live_value(r));
    cmd_copy(t, 0, LIVE_VA + LIVE_A, LIVE_VA + LIVE_B, LIVE_AB_SIZE);
    cmd_write(t, 0, LIVE_VA + LIVE_W + 16 * r, w, ARRAY_SIZE(w));
    cmd_checksum(t, 0, LIVE_VA + LIVE_B, LIVE_AB_SIZE,
                 LIVE_VA + LIVE_C + 8 * r);
    cmd_touch(t, 0, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_RMW,
              LIVE_VA + LIVE_D + (r % LIVE_D_PARTS) * MiB, MiB, 0, 0, 0,
              LIVE_TOUCH_REPEAT);
    cmd_fence(t, 0, LIVE_VA + LIVE_F, r + 1, false);
}

/* What the destination holds once every round ran. */
static void live_check_final(VGPUTest *t)
{
    g_autofree uint8_t *buf = g_malloc(MiB);
    uint32_t r, k, i;

    vram_read(t, LIVE_PA + LIVE_A, buf, 2 * LIVE_AB_SIZE);
    for (i = 0; i < 2 * LIVE_AB_SIZE; i += 4) {
        g_assert_cmphex((uint32_t)ldl_le_p(buf + i), ==,
                        live_value(LIVE_ROUNDS - 1));
    }
    for (r = 0; r < LIVE_ROUNDS; r++) {
        uint32_t *v = (uint32_t *)buf;

        for (i = 0; i < LIVE_AB_SIZE / 4; i++) {
            v[i] = cpu_to_le32(live_value(r));
        }
        g_assert_cmphex(mem_rq(t, false, LIVE_PA + LIVE_C + 8 * r), ==,
                        fnv1a64(buf, LIVE_AB_SIZE));
        g_assert_cmphex(mem_rq(t, false, LIVE_PA + LIVE_W + 16 * r), ==,
                        (uint64_t)~r << 32 | r);
        g_assert_cmphex(mem_rq(t, false, LIVE_PA + LIVE_W + 16 * r + 8), ==,
                        0x5eedull << 32 | (r * 3));
    }
    g_assert_cmpuint(mem_rq(t, false, LIVE_PA + LIVE_F), ==, LIVE_ROUNDS);
    for (k = 0; k < LIVE_D_PARTS; k++) {
        uint64_t touched = (LIVE_ROUNDS - k + LIVE_D_PARTS - 1) /
                           LIVE_D_PARTS * LIVE_TOUCH_REPEAT;

        vram_read(t, LIVE_PA + LIVE_D + k * MiB, buf, MiB);
        for (i = 0; i < MiB; i += 8) {
            g_assert_cmpuint(ldq_le_p(buf + i), ==,
                             i % VGPU_TOUCH_LINE ? 0 : touched);
        }
    }
}

/*
 * Migrate while the engine writes, into a file and from there into a
 * paused destination: its VRAM must equal, byte for byte, the source's
 * VRAM when the source stopped.  Then the destination finishes the work
 * and every value is what all rounds together make: a page the migration
 * missed would have lost the increments counted in it.
 */
static void test_live_migration(void)
{
    g_autofree char *dir = g_dir_make_tmp("vgpu-test-XXXXXX", NULL);
    g_autofree char *file = g_strdup_printf("%s/state", dir);
    g_autofree uint8_t *src = g_malloc(64 * MiB);
    g_autofree uint8_t *dst = g_malloc(4 * MiB);
    uint64_t fence_start, fence_end, written, off;
    gint64 start;
    uint32_t r;
    VGPUTest t, d;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    map_bulk(&t, CTX, LIVE_VA, LIVE_PA, LIVE_SIZE, PTE_RW, VGPU_PAGE_SIZE_4K);
    for (r = 0; r < LIVE_ROUNDS; r++) {
        if (r == LIVE_ROUNDS - 1) {
            cmd_copy(&t, 0, FAULT_VA, SCRATCH_VA, 8);     /* stalls */
        }
        live_round(&t, r);
    }
    /*
     * Slow enough that the engine writes while pages are sent, with a
     * downtime that lets the migration converge although it does.
     */
    qtest_qmp_assert_success(t.qts, "{ 'execute': 'migrate-set-parameters', "
                             "'arguments': { 'max-bandwidth': %d, "
                             "'downtime-limit': 1000 } }", 32 * 1024 * 1024);
    q_submit(&t, 0);
    while (!(fence_start = rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)))) {
        g_usleep(1000);
    }
    start = g_get_monotonic_time();
    written = ctr(&t, -1, VGPU_CTR_VRAM_WRITE_BYTES);
    g_assert_true(vgpu_migrate_to_file(t.qts, file));
    written = ctr(&t, -1, VGPU_CTR_VRAM_WRITE_BYTES) - written;
    fence_end = rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO));
    g_test_message("rounds done: %" PRIu64 " when the migration started, "
                   "%" PRIu64 " when it completed %.2f s later, of %u; "
                   "%" PRIu64 " MiB written meanwhile", fence_start,
                   fence_end, (g_get_monotonic_time() - start) / 1e6,
                   LIVE_ROUNDS, written / MiB);
    g_assert_cmpuint(written, >, 0);                /* written meanwhile */
    g_assert_cmpuint(fence_end, <, LIVE_ROUNDS);    /* the stall held */
    vram_read(&t, 0, src, 64 * MiB);
    vgpu_test_stop(&t);

    launch_incoming(&d, file, NULL, "-S", false);
    wait_runstate(d.qts, "paused");
    vgpu_attach(&d);
    for (off = 0; off < 64 * MiB; off += 4 * MiB) {
        uint64_t i;

        vram_read(&d, off, dst, 4 * MiB);
        for (i = 0; i < 4 * MiB && dst[i] == src[off + i]; i++) {
            ;
        }
        if (i < 4 * MiB) {
            g_error("VRAM 0x%" PRIx64 ": 0x%02x on the destination, 0x%02x "
                    "on the source", off + i, dst[i], src[off + i]);
        }
    }
    g_assert_cmpuint(rd64(&d, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==,
                     fence_end);

    qtest_qmp_assert_success(d.qts, "{ 'execute': 'cont' }");
    memcpy(d.tail, t.tail, sizeof(d.tail));
    memcpy(d.root, t.root, sizeof(d.root));
    memcpy(d.pt_next, t.pt_next, sizeof(d.pt_next));
    q_wait_state(&d, 0, VGPU_QUEUE_STATE_STALLED);
    g_assert_cmpuint(rd64(&d, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==,
                     LIVE_ROUNDS - 1);
    map4k(&d, CTX, FAULT_VA, FAULT_PA, PTE_RW);
    qwr(&d, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
    q_wait_done(&d, 0);
    live_check_final(&d);
    vgpu_test_stop(&d);
    unlink(file);
    rmdir(dir);
}

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_migration(void)
{
    qtest_add_func("/vgpu/migration/save-load", test_migration);
    qtest_add_func("/vgpu/migration/deterministic",
                   test_migration_deterministic);
    ADD_TABLE("migration/refused", bad_stream_cases, test_bad_stream);
    qtest_add_func("/vgpu/migration/live-vram", test_live_migration);
}
