/*
 * vgpu qtests: indirect streams (CALL), their privilege level, and FENCE
 * without a memory write.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libvgpu-qtest.h"

/* ------------------------------------------------ CALL, FENCE NOWRITE --- */

/*
 * Indirect streams: built in a GArray of dwords, stored at STREAM_PA (VRAM)
 * or SYS_STREAM (system memory) and mapped at STREAM_VA with 4 KiB pages.
 */
#define STREAM_VA           0xa00000000ull
#define STREAM_PA           (20 * MiB)
#define SYS_STREAM          (SYS_DATA + 16 * MiB)
#define STREAM_PAGES        4
#define PAGE_DW             (VGPU_PAGE_SIZE_4K / 4)
/* The device fetches a header and at most 8 argument dwords at once. */
#define VGPU_CMD_MAX_ARGS_FETCHED 8

/*
 * Store stream @s and map it at STREAM_VA, except page @hole (-1: none).
 * Returns the number of commands it holds (for CTR_COMMANDS).
 */
static void stream_store(VGPUTest *t, GArray *s, bool sys, int hole)
{
    uint64_t pa = sys ? SYS_STREAM : STREAM_PA;
    int i;

    g_assert_cmpuint(s->len, <=, STREAM_PAGES * PAGE_DW);
    mem_fill(t, sys, pa, 0, STREAM_PAGES * VGPU_PAGE_SIZE_4K);
    mem_write(t, sys, pa, s->data, s->len * 4);
    for (i = 0; i < STREAM_PAGES; i++) {
        if (i != hole) {
            map4k(t, CTX, STREAM_VA + i * VGPU_PAGE_SIZE_4K,
                  pa + i * VGPU_PAGE_SIZE_4K,
                  VGPU_PTE_READ | (sys ? VGPU_PTE_SYSTEM : 0));
        }
    }
}

static bool q_in_call(VGPUTest *t, int q)
{
    return qrd(t, q, VGPU_QUEUE_STATUS) & VGPU_QUEUE_STATUS_IN_CALL;
}

typedef struct CallOkCase {
    const char *name;
    bool sys;               /* stream in system memory */
    uint32_t nops;          /* 1-dword NOPs first: a long stream */
} CallOkCase;

static const CallOkCase call_ok_cases[] = {
    { "vram", false, 0 },
    { "system", true, 0 },
    /* 2 MiB of commands, many time slices' worth of fetches. */
    { "long", false, 2 * MiB / 4 - 2 * PAGE_DW },
};

/*
 * A CALL runs its stream — commands spanning pages, a WRITE whose data
 * crosses a page — then the ring continues after it.
 */
static void test_call_ok(const void *opaque)
{
    const CallOkCase *c = opaque;
    g_autoptr(GArray) s = stream_new();
    uint32_t data[600], got[600];
    uint64_t stream_va = STREAM_VA, cmds;
    VGPUTest t;
    uint32_t i, ncmds = 0, after;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    for (i = 0; i < ARRAY_SIZE(data); i++) {
        data[i] = 0xc0de0000 + i;
    }
    st_write1(s, SCRATCH_VA, 0x1111);
    st_copy(s, SCRATCH_VA, SCRATCH_VA + 0x10, 4);
    st_pad_to(s, PAGE_DW - 2);          /* the next header ends page 0 */
    st_write1(s, SCRATCH_VA + 0x20, 0x2222);
    st_write(s, SCRATCH_VA + 0x2000, data, ARRAY_SIZE(data));
    st_fence(s, 0, SCRATCH_VA + 0x38, 77);    /* writes, QUEUE_FENCE stays */
    ncmds = 6;
    if (c->nops) {
        /* A long stream of NOPs first, in CMD_PA's 2 MiB. */
        g_autoptr(GArray) l = stream_new();

        for (i = 0; i < c->nops; i++) {
            st_nop(l, 1);
        }
        g_array_append_vals(l, s->data, s->len);
        map(&t, CTX, CMD_VA, CMD_PA, CMD_SIZE, VGPU_PTE_READ,
            VGPU_PAGE_SIZE_4K);
        g_assert_cmpuint(l->len * 4, <=, CMD_SIZE);
        mem_write(&t, false, CMD_PA, l->data, l->len * 4);
        stream_va = CMD_VA;
        ncmds += c->nops;
        g_array_set_size(s, 0);
        g_array_append_vals(s, l->data, l->len);
    } else {
        stream_store(&t, s, c->sys, -1);
    }

    cmd_call(&t, 0, stream_va, s->len);
    after = t.tail[0];
    cmd_fence(&t, 0, SCRATCH_VA + 0x30, 78, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA) & 0xffffffff, ==, 0x1111);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x10) & 0xffffffff, ==,
                    0x1111);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x20) & 0xffffffff, ==,
                    0x2222);
    mem_read(&t, false, SCRATCH_PA + 0x2000, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), data, sizeof(data));
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x30), ==, 78);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x38), ==, 77);
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 78);
    g_assert_false(q_in_call(&t, 0));
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, after);
    /* The stream's commands, the CALL and the FENCE after it. */
    cmds = ctr(&t, CTX, VGPU_CTR_COMMANDS);
    g_assert_cmpuint(cmds, ==, ncmds + 2);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_FAULTS), ==, 0);
    if (c->sys) {
        /* Fetches read headers and arguments (not a NOP's padding). */
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_SYS_READ_BYTES), >=,
                         sizeof(data));
    }
    vgpu_test_stop(&t);
}

typedef enum CallFaultAt {
    CF_FIRST_FETCH,         /* the stream's first page is not mapped */
    CF_FETCH,               /* a command header starts the unmapped page */
    CF_ARGS,                /* a command's arguments cross into it */
    CF_DATA,                /* a WRITE's data crosses into it */
    CF_TARGET,              /* a COPY in the stream reads unmapped data */
} CallFaultAt;

typedef struct CallFaultCase {
    const char *name;
    CallFaultAt at;
    bool cancel;            /* answer CANCEL, else map and REPLAY */
} CallFaultCase;

static const CallFaultCase call_fault_cases[] = {
    { "unmapped-va-replay", CF_FIRST_FETCH, false },
    { "unmapped-va-cancel", CF_FIRST_FETCH, true },
    { "fetch-replay", CF_FETCH, false },
    { "fetch-cancel", CF_FETCH, true },
    { "args-replay", CF_ARGS, false },
    { "data-replay", CF_DATA, false },
    { "data-cancel", CF_DATA, true },
    { "target-replay", CF_TARGET, false },
    { "target-cancel", CF_TARGET, true },
};

/*
 * A fault inside a CALL's stream stalls the queue inside the CALL.  REPLAY
 * resumes at the faulting command, so nothing runs twice (the command
 * counter is exact); CANCEL aborts the rest of the CALL and the ring goes
 * on after it once re-enabled.
 */
static void test_call_fault(const void *opaque)
{
    const CallFaultCase *c = opaque;
    g_autoptr(GArray) s = stream_new();
    uint32_t data[16], got[16];
    uint64_t fault_va = STREAM_VA + VGPU_PAGE_SIZE_4K;
    uint32_t fault_cmd, call_off, after, ncmds;
    int hole = 1, i;
    VGPUTest t;
    FaultRec r;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    for (i = 0; i < ARRAY_SIZE(data); i++) {
        data[i] = 0x3330 + i;
    }
    st_write1(s, SCRATCH_VA, 0x1111);
    switch (c->at) {
    case CF_FIRST_FETCH:
        hole = 0;
        fault_va = STREAM_VA;
        fault_cmd = 0;
        st_write(s, SCRATCH_VA + 0x100, data, ARRAY_SIZE(data));
        break;
    case CF_FETCH:
        st_pad_to(s, PAGE_DW);
        fault_cmd = s->len * 4;
        st_write(s, SCRATCH_VA + 0x100, data, ARRAY_SIZE(data));
        break;
    case CF_ARGS:
        st_pad_to(s, PAGE_DW - 1);      /* header ends page 0 */
        fault_cmd = s->len * 4;
        st_write(s, SCRATCH_VA + 0x100, data, ARRAY_SIZE(data));
        break;
    case CF_DATA:
        /* Header and the 8 dwords fetched with it in page 0, data on. */
        st_pad_to(s, PAGE_DW - 1 - VGPU_CMD_MAX_ARGS_FETCHED);
        fault_cmd = s->len * 4;
        st_write(s, SCRATCH_VA + 0x100, data, ARRAY_SIZE(data));
        break;
    case CF_TARGET:
        hole = -1;
        fault_va = FAULT_VA;
        fault_cmd = s->len * 4;
        st_copy(s, FAULT_VA, SCRATCH_VA + 0x100, sizeof(data));
        mem_write(&t, false, FAULT_PA, data, sizeof(data));
        break;
    default:
        g_assert_not_reached();
    }
    st_write1(s, SCRATCH_VA + 0x200, 0x5555);
    ncmds = 3 + (c->at == CF_FETCH || c->at == CF_ARGS || c->at == CF_DATA);
    stream_store(&t, s, false, hole);

    cmd_nop(&t, 0, 2);                  /* the CALL is not at offset 0 */
    call_off = t.tail[0];
    cmd_call(&t, 0, STREAM_VA, s->len);
    after = t.tail[0];
    cmd_write(&t, 0, SCRATCH_VA + 0x300, (uint32_t[]){ 0x7777 }, 1);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_STALLED);

    r = fault_rec(&t, 0);
    g_assert_cmphex(r.va, ==, fault_va);
    g_assert_cmphex(r.info, ==, fault_info(0, CTX, VGPU_ACCESS_READ,
                                           VGPU_FAULT_NOT_PRESENT,
                                           c->at == CF_TARGET ? 2 : 0));
    g_assert_true(q_in_call(&t, 0));
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, call_off);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CALL_OFFSET), ==, fault_cmd);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, call_off);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA) & 0xffffffff, ==,
                    c->at == CF_FIRST_FETCH ? 0 : 0x1111);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x100), ==, 0);
    mem_wq(&t, false, VRAM_FAULT_BUF + VGPU_FAULT_DW_FLAGS * 4, 0);
    wr(&t, VGPU_REG_FAULT_BUF_HEAD, 1);

    if (!c->cancel) {
        if (c->at == CF_TARGET) {
            map4k(&t, CTX, FAULT_VA, FAULT_PA, PTE_RW);
        } else {
            map4k(&t, CTX, STREAM_VA + hole * VGPU_PAGE_SIZE_4K,
                  STREAM_PA + hole * VGPU_PAGE_SIZE_4K, VGPU_PTE_READ);
        }
        qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_REPLAY);
        q_wait_done(&t, 0);
        g_assert_false(q_in_call(&t, 0));
        g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA) & 0xffffffff, ==,
                        0x1111);
        mem_read(&t, false, SCRATCH_PA + 0x100, got, sizeof(got));
        g_assert_cmpmem(got, sizeof(got), data, sizeof(data));
        g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x200) & 0xffffffff,
                        ==, 0x5555);
        /* NOP, CALL, WRITE in the ring and the stream's commands, once. */
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, 3 + ncmds);
        g_assert_cmpuint(rd(&t, VGPU_REG_FAULT_BUF_TAIL), ==, 1);
    } else {
        wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_QUEUE_ERROR);
        qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_CANCEL);
        g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_ERROR);
        g_assert_cmpuint(q_error(&t, 0), ==, VGPU_QUEUE_ERROR_CANCELLED);
        /* The driver sees where: inside the CALL at call_off. */
        g_assert_true(q_in_call(&t, 0));
        g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, call_off);
        g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CALL_OFFSET), ==, fault_cmd);
        g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, after);
        g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 1);
        wr(&t, VGPU_REG_ERROR_QUEUES, 1);
        qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_ENABLE);
        q_wait_done(&t, 0);
        g_assert_false(q_in_call(&t, 0));
        g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x100), ==, 0);
        g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x200), ==, 0);
    }
    /* The ring's WRITE after the CALL ran either way. */
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x300) & 0xffffffff, ==,
                    0x7777);
    vgpu_test_stop(&t);
}

typedef enum CallBadKind {
    CB_NESTED,              /* a CALL in the stream */
    CB_PAST_END,            /* a command longer than what is left */
    CB_OPCODE,              /* an unknown opcode in the stream */
    CB_ARGUMENT,            /* a bad argument in the stream */
} CallBadKind;

typedef struct CallBadCase {
    const char *name;
    CallBadKind kind;
    uint32_t cause;
} CallBadCase;

static const CallBadCase call_bad_cases[] = {
    { "nested", CB_NESTED, VGPU_QUEUE_ERROR_CALL_NESTED },
    { "past-end", CB_PAST_END, VGPU_QUEUE_ERROR_LENGTH },
    { "opcode", CB_OPCODE, VGPU_QUEUE_ERROR_OPCODE },
    { "argument", CB_ARGUMENT, VGPU_QUEUE_ERROR_ARGUMENT },
};

/*
 * A bad command inside a stream is a queue error that names both places:
 * CMD_OFFSET the CALL (HEAD stays on it), CALL_OFFSET the bad command.
 */
static void test_call_bad(const void *opaque)
{
    const CallBadCase *c = opaque;
    g_autoptr(GArray) s = stream_new();
    uint32_t len, bad;
    VGPUTest t;

    vgpu_test_start(&t, "vram_size=64M,strict=on");
    basic_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_QUEUE_ERROR);
    st_write1(s, SCRATCH_VA, 0x1111);
    bad = s->len * 4;
    switch (c->kind) {
    case CB_NESTED:
        st_call(s, STREAM_VA, 4);
        break;
    case CB_PAST_END:
        st_dw(s, VGPU_CMD_HEADER(VGPU_OP_NOP, 0, 8));   /* 4 dwords left */
        st_dw(s, 0);
        st_dw(s, 0);
        st_dw(s, 0);
        break;
    case CB_OPCODE:
        st_dw(s, VGPU_CMD_HEADER(0x7f, 0, 1));
        break;
    case CB_ARGUMENT:
        st_fence(s, 0, SCRATCH_VA + 4, 1);              /* misaligned */
        break;
    }
    len = s->len;
    st_write1(s, SCRATCH_VA + 8, 0x2222);               /* never runs */
    if (c->kind == CB_PAST_END) {
        g_array_set_size(s, len);
    }
    stream_store(&t, s, false, -1);
    cmd_call(&t, 0, STREAM_VA, s->len);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);

    g_assert_cmpuint(q_error(&t, 0), ==, c->cause);
    g_assert_true(q_in_call(&t, 0));
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, 0);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CALL_OFFSET), ==, bad);
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 1);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA) & 0xffffffff, ==, 0x1111);
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 8), ==, 0);

    /* RESET leaves the CALL. */
    qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_RESET);
    g_assert_false(q_in_call(&t, 0));
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CALL_OFFSET), ==, 0);
    t.tail[0] = 0;
    cmd_fence(&t, 0, SCRATCH_VA + 0x10, 5, false);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x10), ==, 5);
    vgpu_test_stop(&t);
}

/* While queue 0 runs a long CALL, queue 1 still gets its slices. */
static void test_call_timeslice(void)
{
    g_autoptr(GArray) s = stream_new();
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    q_init(&t, 1, CTX);
    /* Each TOUCH is about a million line reads. */
    while (s->len + VGPU_TOUCH_LEN <= 4 * PAGE_DW) {
        st_touch(s, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_READ, SCRATCH_VA,
                 0x10000, 0, 0, 0, 1024);
    }
    stream_store(&t, s, false, -1);
    cmd_call(&t, 0, STREAM_VA, s->len);
    q_submit(&t, 0);
    q_wait_state(&t, 0, VGPU_QUEUE_STATE_RUNNING);
    cmd_fence(&t, 1, SCRATCH_VA + 0x1000, 1, false);
    q_submit(&t, 1);
    q_wait_done(&t, 1);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_RUNNING);
    g_assert_true(q_in_call(&t, 0));
    g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, 0);
    /* DISABLE leaves the CALL; RESET empties the ring. */
    qwr(&t, 0, VGPU_QUEUE_CONTROL,
        VGPU_QUEUE_CONTROL_DISABLE | VGPU_QUEUE_CONTROL_RESET);
    g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_DISABLED);
    g_assert_false(q_in_call(&t, 0));
    vgpu_test_stop(&t);
}

typedef struct NowriteCase {
    const char *name;
    uint64_t dst;
    bool irq;
} NowriteCase;

static const NowriteCase nowrite_cases[] = {
    { "mapped-dst", SCRATCH_VA, true },
    { "unmapped-dst", FAULT_VA, true },
    { "misaligned-dst", SCRATCH_VA + 4, false },
    { "zero-dst", 0, true },
};

/*
 * FENCE with NOWRITE updates QUEUE_FENCE (and interrupts with IRQ) without
 * touching memory: whatever dst is, nothing is translated or written.
 */
static void test_fence_nowrite(const void *opaque)
{
    const NowriteCase *c = opaque;
    uint32_t flags = VGPU_FENCE_FLAG_NOWRITE |
                     (c->irq ? VGPU_FENCE_FLAG_IRQ : 0);
    g_autoptr(GArray) s = stream_new();
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE);
    wr(&t, VGPU_REG_CONTROL, VGPU_CONTROL_COUNTERS_RESET);
    st_fence(s, flags, c->dst, 0x123489abcdefull);
    q_emit_stream(&t, 0, s);
    q_submit(&t, 0);
    q_wait_done(&t, 0);
    g_assert_cmphex(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==,
                    0x123489abcdefull);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, c->irq ? 1 : 0);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FENCE, ==,
                    c->irq ? VGPU_INT_FENCE : 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA), ==, 0);
    g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 8), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_VRAM_WRITE_BYTES), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_L1_MISS), ==, 0);
    g_assert_cmpuint(ctr(&t, -1, VGPU_CTR_FAULTS), ==, 0);
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, 1);
    vgpu_test_stop(&t);
}

/* ---------------------------------------------------- Privilege levels --- */

#define PRIV_RING_SEQNO     7       /* the kernel's seqno before the CALL */

/* A ring FENCE with IRQ moves QUEUE_FENCE to @seqno and interrupts. */
static void priv_ring_fence(VGPUTest *t, uint64_t seqno)
{
    cmd_fence(t, 0, SCRATCH_VA + 0x80, seqno, true);
    q_submit(t, 0);
    q_wait_done(t, 0);
    g_assert_cmpuint(rd64(t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==,
                     seqno);
    g_assert_cmphex(rd(t, VGPU_REG_FENCE_QUEUES), ==, 1);
    g_assert_cmphex(rd(t, VGPU_REG_INT_STATUS), ==, VGPU_INT_FENCE);
    g_assert_cmpuint(mem_rq(t, false, SCRATCH_PA + 0x80), ==, seqno);
    wr(t, VGPU_REG_FENCE_QUEUES, 1);
    wr(t, VGPU_REG_INT_STATUS, VGPU_INT_FENCE);
}

typedef struct PrivCase {
    const char *name;
    uint32_t fence_flags;   /* of the stream's FENCE(~0) */
    bool then_wait;         /* then a WAIT on a value nobody writes */
    uint32_t cause;         /* NONE: the stream completes */
} PrivCase;

static const PrivCase priv_cases[] = {
    { "fence-irq", VGPU_FENCE_FLAG_IRQ, false, VGPU_QUEUE_ERROR_PRIVILEGE },
    { "fence-nowrite", VGPU_FENCE_FLAG_NOWRITE, false,
      VGPU_QUEUE_ERROR_PRIVILEGE },
    /* The attack: claim every seqno done, then hold the queue. */
    { "fence-irq-nowrite-then-wait",
      VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_NOWRITE, true,
      VGPU_QUEUE_ERROR_PRIVILEGE },
    /* CLOCK would write the kernel's memory by bus address. */
    { "fence-clock", VGPU_FENCE_FLAG_CLOCK, false, VGPU_QUEUE_ERROR_PRIVILEGE },
    { "fence-plain", 0, false, VGPU_QUEUE_ERROR_NONE },
};

/*
 * A CALL's stream is unprivileged: a FENCE there that would move the
 * kernel's seqno or raise its interrupt stops the queue in ERROR
 * (PRIVILEGE) before it does anything; a plain FENCE only writes memory.
 * Either way QUEUE_FENCE keeps the ring's value, and the ring's own FENCE
 * still moves it afterwards.
 */
static void test_priv_fence(const void *opaque)
{
    const PrivCase *c = opaque;
    g_autoptr(GArray) s = stream_new();
    uint32_t call_off, fence_off;
    uint64_t cmds;
    VGPUTest t;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE | VGPU_INT_QUEUE_ERROR);
    priv_ring_fence(&t, PRIV_RING_SEQNO);
    cmds = ctr(&t, CTX, VGPU_CTR_COMMANDS);

    st_write1(s, SCRATCH_VA, 0x1111);
    fence_off = s->len * 4;
    st_fence(s, c->fence_flags, SCRATCH_VA + 0x40, ~0ull);
    if (c->then_wait) {
        st_wait(s, SCRATCH_VA + 0x50, 1);
    }
    st_write1(s, SCRATCH_VA + 0x58, 0x2222);
    stream_store(&t, s, false, -1);
    call_off = t.tail[0];
    cmd_call(&t, 0, STREAM_VA, s->len);
    q_submit(&t, 0);

    if (c->cause == VGPU_QUEUE_ERROR_NONE) {
        q_wait_done(&t, 0);
        g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x40), ==, ~0ull);
        g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA + 0x58), ==, 0x2222);
        g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 0);
        /* WRITE, FENCE, WRITE and the CALL. */
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, cmds + 4);
    } else {
        q_wait_state(&t, 0, VGPU_QUEUE_STATE_ERROR);
        if (c->then_wait) {
            g_usleep(50 * 1000);        /* nothing moves later either */
        }
        g_assert_cmpuint(q_state(&t, 0), ==, VGPU_QUEUE_STATE_ERROR);
        g_assert_cmpuint(q_error(&t, 0), ==, c->cause);
        g_assert_true(q_in_call(&t, 0));
        g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CMD_OFFSET), ==, call_off);
        g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_CALL_OFFSET), ==, fence_off);
        g_assert_cmpuint(qrd(&t, 0, VGPU_QUEUE_HEAD), ==, call_off);
        g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 1);
        g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==,
                        VGPU_INT_QUEUE_ERROR);
        /* The FENCE did nothing at all, and nothing after it ran. */
        g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x40), ==, 0);
        g_assert_cmpuint(mem_rq(&t, false, SCRATCH_PA + 0x58), ==, 0);
        g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, cmds + 1);
        wr(&t, VGPU_REG_ERROR_QUEUES, 1);
        wr(&t, VGPU_REG_INT_STATUS, VGPU_INT_QUEUE_ERROR);
        qwr(&t, 0, VGPU_QUEUE_CONTROL, VGPU_QUEUE_CONTROL_RESET);
        t.tail[0] = 0;
    }
    g_assert_cmphex(mem_rq(&t, false, SCRATCH_PA) & 0xffffffff, ==, 0x1111);
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==,
                     PRIV_RING_SEQNO);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS) & VGPU_INT_FENCE, ==, 0);

    /* The ring is still privileged. */
    priv_ring_fence(&t, PRIV_RING_SEQNO + 1);
    vgpu_test_stop(&t);
}

/*
 * Every command but CALL and FENCE's IRQ/NOWRITE is a user command: a
 * stream holding one of each runs to its end with every effect in memory,
 * and changes no queue state (QUEUE_FENCE, FENCE_QUEUES, interrupts).
 */
static void test_priv_user_stream(void)
{
    g_autoptr(GArray) s = stream_new();
    const uint64_t a = SCRATCH_VA + 0x1000, b = SCRATCH_VA + 0x1100;
    const uint64_t pa = SCRATCH_PA + 0x1000;
    uint8_t buf[0x100];
    uint64_t ts;
    VGPUTest t;
    int i;

    vgpu_test_start(&t, NULL);
    basic_setup(&t);
    wr(&t, VGPU_REG_INT_ENABLE, VGPU_INT_FENCE | VGPU_INT_QUEUE_ERROR);
    qtest_clock_step(t.qts, 1000);
    st_nop(s, 3);
    st_fill(s, a, sizeof(buf), 0xabababab);
    st_copy(s, a, b, sizeof(buf));
    st_write1(s, SCRATCH_VA + 0x1200, 3);
    st_wait(s, SCRATCH_VA + 0x1200, 3);
    st_timestamp(s, 0, SCRATCH_VA + 0x1208);
    st_touch(s, VGPU_TOUCH_SEQUENTIAL, VGPU_TOUCH_WRITE, SCRATCH_VA + 0x1400,
             VGPU_TOUCH_LINE, 0, 0, 0, 1);
    st_checksum(s, b, sizeof(buf), SCRATCH_VA + 0x1300);
    st_fence(s, 0, SCRATCH_VA + 0x1308, 5);
    stream_store(&t, s, false, -1);
    cmd_call(&t, 0, STREAM_VA, s->len);
    q_submit(&t, 0);
    q_wait_done(&t, 0);

    memset(buf, 0xab, sizeof(buf));
    g_assert_cmpuint(ctr(&t, CTX, VGPU_CTR_COMMANDS), ==, 10);
    g_assert_cmpuint(mem_rq(&t, false, pa + 0x308), ==, 5);
    g_assert_cmphex(mem_rq(&t, false, pa + 0x300), ==,
                    fnv1a64(buf, sizeof(buf)));
    g_assert_cmphex(mem_rq(&t, false, pa + 0x1f8), ==, 0xababababababababull);
    ts = mem_rq(&t, false, pa + 0x208);
    g_assert_cmpuint(ts, >=, 1000);
    for (i = 0; i < VGPU_TOUCH_LINE / 8; i++) {
        g_assert_cmphex(mem_rq(&t, false, pa + 0x400 + 8 * i), ==,
                        SCRATCH_VA + 0x1400);
    }
    g_assert_cmpuint(rd64(&t, VGPU_QUEUE_REG(0, VGPU_QUEUE_FENCE_LO)), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_FENCE_QUEUES), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_ERROR_QUEUES), ==, 0);
    g_assert_cmphex(rd(&t, VGPU_REG_INT_STATUS), ==, 0);
    vgpu_test_stop(&t);
}

/* ------------------------------------------------------------- Tests --- */

void vgpu_test_add_call(void)
{
    ADD_TABLE("cmd/call/ok", call_ok_cases, test_call_ok);
    ADD_TABLE("cmd/call/fault", call_fault_cases, test_call_fault);
    ADD_TABLE("cmd/call/bad", call_bad_cases, test_call_bad);
    qtest_add_func("/vgpu/cmd/call/timeslice", test_call_timeslice);
    ADD_TABLE("cmd/fence-nowrite", nowrite_cases, test_fence_nowrite);
    ADD_TABLE("cmd/call/priv", priv_cases, test_priv_fence);
    qtest_add_func("/vgpu/cmd/call/priv/user-commands", test_priv_user_stream);
}
