/*
 * vgpu engines: hardware queues, their rings and doorbells, and the
 * round-robin scheduler that runs them.
 *
 * A queue is a ring of RING_SIZE bytes (a power of two) in VRAM or system
 * memory, named by the RING memory descriptor.  The driver writes commands
 * at TAIL, writes TAIL, then rings the DOORBELL; the device runs commands
 * from HEAD and advances HEAD past each command it completes.
 *
 * Nothing runs inside an MMIO write.  A doorbell only marks the queue
 * RUNNING and schedules the scheduler bottom half.  Each pass of the bottom
 * half first completes pending TLB invalidations, then gives every
 * runnable queue one time slice of at most VGPU_SLICE_BUDGET units of work
 * (starting one queue further each pass), then reschedules itself while
 * any queue is runnable, pausing now and then (VGPU_BUSY_NS).  A long COPY
 * is carried over several slices, so a long or stalled queue never holds up
 * the others.  Queues blocked on WAIT
 * are re-polled each pass, or by a timer when nothing else runs.  While
 * the VM is stopped nothing runs.
 *
 * A CALL makes the queue run an indirect stream in memory (through its
 * context, see vgpu-cmd.c) before the ring continues: HEAD stays on the
 * CALL until the stream's last command completed, and CMD_OFFSET names the
 * CALL while CALL_OFFSET names the command inside the stream.  A fault in
 * the stream stalls the queue as anywhere else; REPLAY resumes at the
 * faulting command, CANCEL aborts the whole CALL.
 *
 * Each queue keeps a clock in modeled time (vgpu-cost.c): a command is
 * charged when it completes, a stall when REPLAY or CANCEL ends it.  With
 * pacing on, a queue whose clock is ahead of the device clock (dilated)
 * waits for the pace timer before it starts its next command.
 *
 * Queue states: DISABLED -> (ENABLE) IDLE <-> RUNNING, RUNNING -> WAITING
 * (a WAIT not yet satisfied), RUNNING -> STALLED (a fault; REPLAY resumes,
 * CANCEL aborts the command into ERROR), RUNNING -> ERROR (a bad command or
 * ring; ENABLE resumes at HEAD, RESET empties the ring).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "vgpu-internal.h"
#include "trace.h"

static bool vgpu_ring_size_ok(uint32_t size)
{
    return is_power_of_2(size) && size >= VGPU_RING_SIZE_MIN &&
           size <= VGPU_RING_SIZE_MAX;
}

static bool vgpu_ring_offset_ok(VGPUQueue *q, uint32_t off)
{
    return off < q->ring_size && !(off & 3);
}

/*
 * Can the queue run with its set-up (what ENABLE checks)?  Returns
 * VGPU_QUEUE_ERROR_NONE, or the cause with *@why saying what is wrong.
 */
static uint32_t vgpu_queue_setup_check(VGPUQueue *q, const char **why)
{
    if (q->context >= VGPU_NUM_CONTEXTS) {
        *why = "context out of range";
        return VGPU_QUEUE_ERROR_CONTEXT;
    }
    if (!vgpu_desc_valid(q->ring)) {
        *why = "ring descriptor not valid";
        return VGPU_QUEUE_ERROR_RING;
    }
    if (!vgpu_ring_size_ok(q->ring_size)) {
        *why = "ring size not a power of two in range";
        return VGPU_QUEUE_ERROR_RING;
    }
    if (!vgpu_ring_offset_ok(q, q->head) || !vgpu_ring_offset_ok(q, q->tail)) {
        *why = "HEAD or TAIL not a dword offset in the ring";
        return VGPU_QUEUE_ERROR_RING;
    }
    return VGPU_QUEUE_ERROR_NONE;
}

void vgpu_queue_set_error(VGPUState *s, VGPUQueue *q, uint32_t cause)
{
    unsigned qi = vgpu_queue_index(s, q);

    q->state = VGPU_QUEUE_STATE_ERROR;
    q->error = cause;
    q->busy = false;
    s->error_queues |= BIT(qi);
    trace_vgpu_queue_error(qi, cause, q->cmd.offset);
    vgpu_irq_raise(s, VGPU_INT_QUEUE_ERROR);
}

/* Read @n dwords of the ring from byte offset @off, wrapping at its end. */
bool vgpu_ring_read(VGPUState *s, VGPUQueue *q, uint32_t off,
                    uint32_t *buf, uint32_t n)
{
    uint32_t i;

    while (n) {
        uint32_t chunk = MIN(n, (q->ring_size - off) / 4);

        if (!vgpu_phys_read(s, q->ring, off, buf, chunk * 4)) {
            return false;
        }
        for (i = 0; i < chunk; i++) {
            buf[i] = le32_to_cpu(buf[i]);
        }
        buf += chunk;
        n -= chunk;
        off = (off + chunk * 4) & (q->ring_size - 1);
    }
    return true;
}

/*
 * Decode the next command: at HEAD, or at the current offset of the CALL's
 * stream.  False: the queue went into ERROR, or STALLED on a fault reading
 * the stream.
 */
static bool vgpu_queue_fetch(VGPUState *s, VGPUQueue *q)
{
    unsigned qi = vgpu_queue_index(s, q);
    uint32_t off = q->in_call ? q->call_pos : q->head;
    uint32_t avail = q->in_call ? q->call_size - q->call_pos
                                : (q->tail - q->head) & (q->ring_size - 1);
    VGPUCmd *cmd = &q->cmd;
    uint32_t cause;

    memset(cmd, 0, sizeof(*cmd));
    cmd->offset = off;
    if (!vgpu_cmd_stream_read(s, q, off, &cmd->header, 1)) {
        return false;
    }
    cmd->len = VGPU_FIELD_GET(cmd->header, VGPU_CMD_LEN);
    if (q->in_call) {
        trace_vgpu_call_fetch(qi, off, cmd->header);
    } else {
        trace_vgpu_cmd_fetch(qi, off, cmd->header);
    }
    if (!cmd->len || (uint64_t)cmd->len * 4 > avail) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: command at %s "
                      "offset 0x%x has length %u dwords, %u bytes %s\n", qi,
                      q->in_call ? "stream" : "ring", off, cmd->len, avail,
                      q->in_call ? "left in the stream" : "submitted");
        vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_LENGTH);
        return false;
    }
    if (!vgpu_cmd_stream_read(s, q, off + 4, cmd->arg,
                              MIN(cmd->len - 1, VGPU_CMD_MAX_ARGS))) {
        return false;
    }
    cause = vgpu_cmd_decode(s, q);
    if (cause != VGPU_QUEUE_ERROR_NONE) {
        vgpu_queue_set_error(s, q, cause);
        return false;
    }
    if (!vgpu_desc_valid(s->ctx_root[q->context])) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: context %u has no "
                      "page-table root\n", qi, q->context);
        vgpu_count(s, q->context, VGPU_CTR_STRICT_BAD_CONTEXT, 1);
        vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_CONTEXT);
        return false;
    }
    q->busy = true;
    return true;
}

/* The CALL's stream ran to its end: the CALL completes. */
static void vgpu_queue_call_done(VGPUState *s, VGPUQueue *q)
{
    trace_vgpu_call_return(vgpu_queue_index(s, q), q->call_ring_offset);
    q->in_call = false;
    q->head = (q->call_ring_offset + VGPU_CALL_LEN * 4) & (q->ring_size - 1);
    vgpu_count(s, q->context, VGPU_CTR_COMMANDS, 1);
    vgpu_cost_cmd_done(s, q);
}

/* Leave the CALL in flight, if any: it restarts or is skipped. */
static void vgpu_queue_call_drop(VGPUQueue *q)
{
    q->in_call = false;
    q->call_ring_offset = 0;
    q->call_va = 0;
    q->call_size = 0;
    q->call_pos = 0;
}

/* One time slice of queue @q. */
static void vgpu_queue_run(VGPUState *s, VGPUQueue *q)
{
    int64_t budget = VGPU_SLICE_BUDGET;

    if (q->state == VGPU_QUEUE_STATE_WAITING) {
        q->state = VGPU_QUEUE_STATE_RUNNING;    /* poll the WAIT again */
        vgpu_cost_anchor(s, q);                 /* pacing: it waited */
    }
    s->cost_queue = q;
    while (q->state == VGPU_QUEUE_STATE_RUNNING && budget > 0 &&
           !s->reset_pending) {
        VGPUCmdStatus st;

        if (!q->busy) {
            if (q->in_call && q->call_pos == q->call_size) {
                vgpu_queue_call_done(s, q);
                continue;
            }
            if (!q->in_call && q->head == q->tail) {
                q->state = VGPU_QUEUE_STATE_IDLE;
                break;
            }
            if (vgpu_cost_pace_until(s, q)) {
                break;                  /* ahead of the dilated clock */
            }
            if (!vgpu_queue_fetch(s, q)) {
                break;
            }
            budget -= VGPU_CMD_COST;
        }
        st = vgpu_cmd_exec(s, q, &budget);
        if (st == VGPU_CMD_CALL) {
            q->busy = false;            /* next: the stream's first command */
            continue;
        }
        if (st != VGPU_CMD_DONE) {
            break;
        }
        if (q->in_call) {
            q->call_pos = q->cmd.offset + q->cmd.len * 4;
        } else {
            q->head = (q->cmd.offset + q->cmd.len * 4) & (q->ring_size - 1);
        }
        q->busy = false;
        vgpu_count(s, q->context, VGPU_CTR_COMMANDS, 1);
        vgpu_cost_cmd_done(s, q);
    }
    s->cost_queue = NULL;
}

/* Can RUNNING queue @q start a command now?  Else arm the pace timer. */
static bool vgpu_queue_paced(VGPUState *s, VGPUQueue *q)
{
    int64_t until = q->busy ? 0 : vgpu_cost_pace_until(s, q);

    if (!until) {
        return false;
    }
    trace_vgpu_cost_pace(vgpu_queue_index(s, q), until);
    if (!timer_pending(s->pace_timer) ||
        until < timer_expire_time_ns(s->pace_timer)) {
        timer_mod(s->pace_timer, until);
    }
    return true;
}

static void vgpu_sched_update(VGPUState *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    bool run = s->inval_req_seqno != s->inval_done_seqno;
    bool wait = false;
    int i;

    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        VGPUQueue *q = &s->queue[i];

        run |= q->state == VGPU_QUEUE_STATE_RUNNING && !vgpu_queue_paced(s, q);
        wait |= q->state == VGPU_QUEUE_STATE_WAITING;
    }
    if (!run) {
        s->busy_since = 0;
        if (wait) {
            timer_mod(s->poll_timer, now + VGPU_WAIT_POLL_NS);
        }
        return;
    }
    if (!s->busy_since) {
        s->busy_since = now;
    }
    if (now - s->busy_since < VGPU_BUSY_NS) {
        qemu_bh_schedule(s->sched_bh);
        return;
    }
    /* Let the vCPUs have the BQL for a while (see vgpu-internal.h). */
    s->busy_since = 0;
    timer_mod(s->poll_timer, now + VGPU_YIELD_NS);
}

static void vgpu_sched_bh(void *opaque)
{
    VGPUState *s = opaque;
    int i;

    if (!runstate_is_running()) {
        return;                 /* vgpu_vm_state_change() restarts us */
    }
    s->in_engine = true;
    vgpu_inval_process(s);
    for (i = 0; i < VGPU_NUM_QUEUES && !s->reset_pending; i++) {
        VGPUQueue *q = &s->queue[(s->rr_next + i) % VGPU_NUM_QUEUES];

        if (q->state == VGPU_QUEUE_STATE_RUNNING ||
            q->state == VGPU_QUEUE_STATE_WAITING) {
            vgpu_queue_run(s, q);
        }
    }
    s->rr_next = (s->rr_next + 1) % VGPU_NUM_QUEUES;
    s->in_engine = false;
    if (s->reset_pending) {
        s->reset_pending = false;
        vgpu_reset_state(s);            /* see vgpu_qdev_reset() */
        return;
    }
    vgpu_fault_publish(s);
    vgpu_sched_update(s);
}

static void vgpu_poll_timer(void *opaque)
{
    vgpu_engine_kick(opaque);
}

static void vgpu_vm_state_change(void *opaque, bool running, RunState state)
{
    if (running) {
        vgpu_engine_kick(opaque);
    }
}

void vgpu_engine_kick(VGPUState *s)
{
    qemu_bh_schedule(s->sched_bh);
}

void vgpu_engine_init(VGPUState *s)
{
    /* Guarded: the engine's DMA cannot reach the device's own MMIO. */
    s->sched_bh = qemu_bh_new_guarded(vgpu_sched_bh, s,
                                      &DEVICE(s)->mem_reentrancy_guard);
    s->poll_timer = timer_new_ns(QEMU_CLOCK_REALTIME, vgpu_poll_timer, s);
    s->pace_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, vgpu_poll_timer, s);
    s->vmstate_entry = qemu_add_vm_change_state_handler(vgpu_vm_state_change,
                                                        s);
}

void vgpu_engine_fini(VGPUState *s)
{
    qemu_del_vm_change_state_handler(s->vmstate_entry);
    timer_free(s->poll_timer);
    timer_free(s->pace_timer);
    qemu_bh_delete(s->sched_bh);
}

void vgpu_queue_reset_all(VGPUState *s)
{
    int i;

    qemu_bh_cancel(s->sched_bh);
    timer_del(s->poll_timer);
    timer_del(s->pace_timer);
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        VGPUQueue *q = &s->queue[i];
        VGPUTlb l1 = q->l1;

        memset(q, 0, sizeof(*q));
        q->state = VGPU_QUEUE_STATE_DISABLED;
        q->l1 = l1;
        vgpu_tlb_flush(&q->l1);
    }
    s->rr_next = 0;
}

/* ------------------------------------------------------------ Migration --- */

/* Why a loaded CALL in flight cannot be resumed; NULL if it can. */
static const char *vgpu_queue_call_load_why(VGPUQueue *q)
{
    if (!q->call_size || q->call_size % 4 ||
        q->call_size / 4 > VGPU_CALL_SIZE_MAX_DW) {
        return "CALL stream size not 1..CALL_SIZE_MAX_DW dwords";
    }
    if (q->call_pos > q->call_size || q->call_pos % 4 || q->call_va % 4) {
        return "CALL stream position not a dword in the stream";
    }
    if (!vgpu_ring_size_ok(q->ring_size) ||
        !vgpu_ring_offset_ok(q, q->call_ring_offset)) {
        return "CALL not at a dword offset in the ring";
    }
    /* HEAD stays on the CALL until it completes (CANCEL moves it on). */
    if (q->state != VGPU_QUEUE_STATE_ERROR && q->head != q->call_ring_offset) {
        return "HEAD not on the CALL in flight";
    }
    return NULL;
}

/* The loaded command in flight: where it is, what it is, how far it got. */
static bool vgpu_queue_cmd_load_ok(VGPUState *s, VGPUQueue *q, char **why)
{
    VGPUCmd *cmd = &q->cmd;
    const char *progress_why;

    if (cmd->offset != (q->in_call ? q->call_pos : q->head) ||
        cmd->len != VGPU_FIELD_GET(cmd->header, VGPU_CMD_LEN) || !cmd->len ||
        (q->in_call &&
         (uint64_t)cmd->offset + cmd->len * 4ull > q->call_size)) {
        *why = g_strdup_printf("command in flight at 0x%x (length %u) not "
                               "where the queue is", cmd->offset, cmd->len);
        return false;
    }
    if (vgpu_cmd_check(s, q, why) != VGPU_QUEUE_ERROR_NONE) {
        return false;
    }
    if (!vgpu_cmd_progress_ok(cmd, &progress_why)) {
        *why = g_strdup_printf("command in flight at 0x%x: %s", cmd->offset,
                               progress_why);
        return false;
    }
    return true;
}

/*
 * Why queue @q, as migration loaded it, is in no state the engine can
 * leave it in; NULL if it is in one.  Such a state could make the engine
 * loop, assert or divide by zero: registers out of range, a ring set-up
 * ENABLE would refuse while the queue is enabled, a CALL in flight where
 * none can be, a command in flight that vgpu_cmd_check() refuses or with
 * progress outside it.  A message built for the reason is left in *@buf.
 */
static const char *vgpu_queue_load_why(VGPUState *s, VGPUQueue *q,
                                       char **buf)
{
    uint32_t op = VGPU_FIELD_GET(q->cmd.header, VGPU_CMD_OPCODE);
    bool enabled = q->state != VGPU_QUEUE_STATE_DISABLED &&
                   q->state != VGPU_QUEUE_STATE_ERROR;
    bool runs = q->state == VGPU_QUEUE_STATE_RUNNING ||
                q->state == VGPU_QUEUE_STATE_WAITING ||
                q->state == VGPU_QUEUE_STATE_STALLED;
    const char *why;

    if (q->state > VGPU_QUEUE_STATE_ERROR) {
        return "state unknown";
    }
    if (q->error > VGPU_QUEUE_ERROR_LAST) {
        return "error cause unknown";
    }
    if (enabled &&
        vgpu_queue_setup_check(q, &why) != VGPU_QUEUE_ERROR_NONE) {
        return why;
    }
    if (q->busy && !runs) {
        return "command in flight in a state that runs none";
    }
    if (q->in_call && !runs && q->state != VGPU_QUEUE_STATE_ERROR) {
        return "CALL in flight in a state that runs none";
    }
    if (q->state == VGPU_QUEUE_STATE_WAITING &&
        (!q->busy || op != VGPU_OP_WAIT)) {
        return "WAITING without a WAIT in flight";
    }
    if (q->state == VGPU_QUEUE_STATE_STALLED && !q->busy && !q->in_call) {
        return "STALLED with nothing in flight";
    }
    why = q->in_call ? vgpu_queue_call_load_why(q) : NULL;
    if (why) {
        return why;
    }
    if (q->busy && !vgpu_queue_cmd_load_ok(s, q, buf)) {
        return *buf;
    }
    if (q->busy && !vgpu_lanes_load_check(s, q, &why)) {
        return why;
    }
    return NULL;
}

/* The command in flight goes: what it moved is not charged. */
static void vgpu_queue_tally_drop(VGPUQueue *q)
{
    memset(&q->time.tally, 0, sizeof(q->time.tally));
}

/* Check queue @q as migration loaded it.  False: @errp says why. */
bool vgpu_queue_load_check(VGPUState *s, VGPUQueue *q, Error **errp)
{
    g_autofree char *buf = NULL;
    const char *why = vgpu_queue_load_why(s, q, &buf);

    if (why) {
        error_setg(errp, "queue %u (state %u, error %u, head 0x%x, tail 0x%x, "
                   "ring size 0x%x, context %u): %s", vgpu_queue_index(s, q),
                   q->state, q->error, q->head, q->tail, q->ring_size,
                   q->context, why);
        return false;
    }
    return vgpu_cost_load_check(s, q, errp);
}

/* ------------------------------------------------------------ Registers --- */

bool vgpu_queue_reg64(VGPUState *s, unsigned qi, hwaddr reg, uint64_t *val)
{
    VGPUQueue *q = &s->queue[qi];

    switch (reg) {
    case VGPU_QUEUE_RING_LO:
        *val = q->ring;
        return true;
    case VGPU_QUEUE_FENCE_LO:
        *val = q->fence;
        return true;
    case VGPU_QUEUE_FAULT_VA_LO:
        *val = q->fault_va;
        return true;
    default:
        return false;
    }
}

uint32_t vgpu_queue_read(VGPUState *s, unsigned qi, hwaddr reg)
{
    VGPUQueue *q = &s->queue[qi];

    switch (reg) {
    case VGPU_QUEUE_RING_SIZE:
        return q->ring_size;
    case VGPU_QUEUE_CONTEXT:
        return q->context;
    case VGPU_QUEUE_HEAD:
        return q->head;
    case VGPU_QUEUE_TAIL:
        return q->tail;
    case VGPU_QUEUE_STATUS:
        return VGPU_FIELD_PREP(VGPU_QUEUE_STATUS_STATE, q->state) |
               VGPU_FIELD_PREP(VGPU_QUEUE_STATUS_ERROR, q->error) |
               (q->in_call ? VGPU_QUEUE_STATUS_IN_CALL : 0);
    case VGPU_QUEUE_CMD_OFFSET:
        return q->in_call ? q->call_ring_offset : q->cmd.offset;
    case VGPU_QUEUE_CALL_OFFSET:
        return q->in_call ? q->call_pos : 0;
    case VGPU_QUEUE_FAULT_INFO:
        return q->fault_info;
    default:
        return 0;
    }
}

/* Ring set-up may change only while the queue is disabled. */
static bool vgpu_queue_config_ok(VGPUState *s, VGPUQueue *q, const char *reg)
{
    if (q->state == VGPU_QUEUE_STATE_DISABLED) {
        return true;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: %s written while "
                  "enabled\n", vgpu_queue_index(s, q), reg);
    vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_RING);
    return false;
}

void vgpu_queue_write64(VGPUState *s, unsigned qi, hwaddr reg, uint64_t val)
{
    VGPUQueue *q = &s->queue[qi];

    if (reg == VGPU_QUEUE_RING_LO && vgpu_queue_config_ok(s, q, "RING")) {
        q->ring = val;
    }
}

/*
 * Check the set-up before the queue may run again; false: it is bad and
 * the queue went into ERROR with the cause.
 */
static bool vgpu_queue_setup_ok(VGPUState *s, VGPUQueue *q)
{
    const char *why;
    uint32_t cause = vgpu_queue_setup_check(q, &why);

    if (cause == VGPU_QUEUE_ERROR_NONE) {
        return true;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: %s (context %u, ring "
                  "0x%" PRIx64 ", size 0x%x, head 0x%x, tail 0x%x)\n",
                  vgpu_queue_index(s, q), why, q->context, q->ring,
                  q->ring_size, q->head, q->tail);
    vgpu_queue_set_error(s, q, cause);
    return false;
}

static void vgpu_queue_enable(VGPUState *s, VGPUQueue *q)
{
    if (q->state != VGPU_QUEUE_STATE_DISABLED &&
        q->state != VGPU_QUEUE_STATE_ERROR) {
        return;
    }
    if (!vgpu_queue_setup_ok(s, q)) {
        return;
    }
    q->error = VGPU_QUEUE_ERROR_NONE;
    vgpu_queue_call_drop(q);            /* a CALL restarts from HEAD */
    vgpu_queue_tally_drop(q);
    q->state = q->head != q->tail ? VGPU_QUEUE_STATE_RUNNING
                                  : VGPU_QUEUE_STATE_IDLE;
    vgpu_cost_anchor(s, q);
    vgpu_engine_kick(s);
}

/* REPLAY: every lane waiting retries, whether or not the queue stalled. */
static void vgpu_queue_replay(VGPUState *s, VGPUQueue *q)
{
    bool lanes = vgpu_lanes_resume(q);

    if (q->state == VGPU_QUEUE_STATE_STALLED) {
        vgpu_cost_stall_end(s, q);
        q->state = VGPU_QUEUE_STATE_RUNNING;
        vgpu_cost_anchor(s, q);
        vgpu_engine_kick(s);
    } else if (lanes && q->state == VGPU_QUEUE_STATE_RUNNING) {
        vgpu_engine_kick(s);
    }
}

/*
 * Deterministic mode (vgpu-fault.c): once every queue stalled at the last
 * publication is answered, the held REPLAYs take effect together, and the
 * scheduler starts its round from queue 0.
 */
static void vgpu_answers_release(VGPUState *s)
{
    uint32_t held = s->answer_replay;
    int i;

    if (s->answer_wait || !held) {
        return;
    }
    trace_vgpu_answer_release(held);
    s->answer_replay = 0;
    s->rr_next = 0;
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (held & BIT(i)) {
            vgpu_queue_replay(s, &s->queue[i]);
        }
    }
}

static void vgpu_queue_control(VGPUState *s, VGPUQueue *q, uint32_t val)
{
    unsigned qi = vgpu_queue_index(s, q);

    trace_vgpu_queue_control(qi, val, q->state);
    if (val & VGPU_QUEUE_CONTROL_RESET) {
        q->busy = false;
        q->head = q->tail = 0;
        q->error = VGPU_QUEUE_ERROR_NONE;
        q->fault_va = 0;
        q->fault_info = 0;
        memset(&q->cmd, 0, sizeof(q->cmd));
        vgpu_queue_call_drop(q);
        vgpu_queue_tally_drop(q);
        /* An ENABLE refused left ERROR with a bad set-up: it stays. */
        if (q->state != VGPU_QUEUE_STATE_DISABLED &&
            vgpu_queue_setup_ok(s, q)) {
            q->state = VGPU_QUEUE_STATE_IDLE;
        }
    }
    if (val & VGPU_QUEUE_CONTROL_DISABLE) {
        q->busy = false;            /* the command restarts on ENABLE */
        vgpu_queue_call_drop(q);    /* so does a CALL, from its start */
        vgpu_queue_tally_drop(q);
        q->state = VGPU_QUEUE_STATE_DISABLED;
    }
    if ((val & VGPU_QUEUE_CONTROL_CANCEL) &&
        (q->state == VGPU_QUEUE_STATE_STALLED ||
         (q->state == VGPU_QUEUE_STATE_RUNNING && vgpu_lanes_waiting(q)))) {
        /* Charged: the wait, and what the command did before it. */
        if (q->state == VGPU_QUEUE_STATE_STALLED) {
            vgpu_cost_stall_end(s, q);
        }
        vgpu_cost_cmd_done(s, q);
        /* Inside a CALL the whole CALL is aborted. */
        if (q->in_call) {
            q->head = (q->call_ring_offset + VGPU_CALL_LEN * 4) &
                      (q->ring_size - 1);
        } else {
            q->head = (q->cmd.offset + q->cmd.len * 4) & (q->ring_size - 1);
        }
        vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_CANCELLED);
    }
    if (val & (VGPU_QUEUE_CONTROL_RESET | VGPU_QUEUE_CONTROL_DISABLE |
               VGPU_QUEUE_CONTROL_CANCEL)) {
        /* Answered, and no held REPLAY of it survives. */
        s->answer_wait &= ~BIT(qi);
        s->answer_replay &= ~BIT(qi);
        s->fault_new &= ~BIT(qi);
    }
    if ((val & VGPU_QUEUE_CONTROL_REPLAY) &&
        ((s->answer_wait | s->answer_replay) & BIT(qi))) {
        /* Held, and held again if answered twice. */
        s->answer_wait &= ~BIT(qi);
        s->answer_replay |= BIT(qi);
        trace_vgpu_answer_held(qi, s->answer_wait);
    } else if (val & VGPU_QUEUE_CONTROL_REPLAY) {
        vgpu_queue_replay(s, q);
    }
    vgpu_answers_release(s);
    if (val & VGPU_QUEUE_CONTROL_ENABLE) {
        vgpu_queue_enable(s, q);
    }
    /* A queue that stopped running may complete a quiescence. */
    vgpu_fault_publish(s);
}

void vgpu_queue_write(VGPUState *s, unsigned qi, hwaddr reg, uint32_t val)
{
    VGPUQueue *q = &s->queue[qi];

    switch (reg) {
    case VGPU_QUEUE_RING_SIZE:
        if (vgpu_queue_config_ok(s, q, "RING_SIZE")) {
            q->ring_size = val;
        }
        break;
    case VGPU_QUEUE_CONTEXT:
        if (vgpu_queue_config_ok(s, q, "CONTEXT")) {
            q->context = val;
        }
        break;
    case VGPU_QUEUE_TAIL:
        q->tail = val;
        if (q->state != VGPU_QUEUE_STATE_DISABLED &&
            q->state != VGPU_QUEUE_STATE_ERROR &&
            !vgpu_ring_offset_ok(q, val)) {
            qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: TAIL 0x%x outside "
                          "the 0x%x-byte ring\n", qi, val, q->ring_size);
            vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_RING);
        }
        break;
    case VGPU_QUEUE_DOORBELL:
        trace_vgpu_doorbell(qi, q->head, q->tail, q->state);
        if (q->state == VGPU_QUEUE_STATE_IDLE && q->head != q->tail) {
            q->state = VGPU_QUEUE_STATE_RUNNING;
            vgpu_cost_anchor(s, q);
        }
        if (q->state == VGPU_QUEUE_STATE_RUNNING) {
            vgpu_engine_kick(s);
        }
        break;
    case VGPU_QUEUE_CONTROL:
        vgpu_queue_control(s, q, val);
        break;
    default:
        break;
    }
}
