/*
 * vgpu commands: decoding and executing what a queue's ring holds.
 *
 * Every data access goes through the queue's context: translated by the
 * MMU (TLB, then walk), checked against the leaf's permissions, then
 * carried out in VRAM or by PCI DMA.  A command is executed in pieces that
 * never cross a page on either side; a piece either completes or faults
 * before it changes anything, and the command's progress is kept in the
 * queue, so a fault answered by REPLAY resumes exactly where it stopped
 * and a command longer than a time slice continues in the next one.
 *
 * Commands come from a stream: the queue's ring, or the indirect stream of
 * a CALL, read through the queue's context like any data (so a bad stream
 * faults, and REPLAY refetches the command it stopped at).  A CALL inside a
 * CALL is a CALL_NESTED error.
 *
 * Privilege: the ring, written by the kernel, is privileged; the stream of
 * a CALL, written by a user, is not.  What a stream may not do is a column
 * of the command table below: a command it may not run at all names the
 * error it gets there (CALL: CALL_NESTED), and flags only the ring may set
 * are a PRIVILEGE error (FENCE's IRQ and NOWRITE, which would move the
 * kernel's seqno or raise its interrupt, and CLOCK, which writes memory
 * outside the context).  A FENCE in a stream only writes
 * its value to memory; QUEUE_FENCE is the ring's alone.  Every other
 * command touches nothing but memory through the queue's context (and the
 * counters), so it is the same in both.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "vgpu-internal.h"
#include "trace.h"

typedef struct VGPUCmdDesc {
    const char *name;
    uint32_t len;           /* exact length, or minimum if !fixed */
    bool fixed;
    uint32_t flags;         /* flags the command accepts */
    /* privilege: what an unprivileged (CALL) stream may not do */
    uint32_t ring_flags;    /* flags only the ring may set (PRIVILEGE) */
    uint32_t stream_error;  /* the command in a stream is this error; 0: ok */
} VGPUCmdDesc;

#define VGPU_FENCE_FLAGS    (VGPU_FENCE_FLAG_IRQ | VGPU_FENCE_FLAG_NOWRITE | \
                             VGPU_FENCE_FLAG_CLOCK)
#define VGPU_TOUCH_FLAGS    (VGPU_TOUCH_FLAG_PATTERN_MASK | \
                             VGPU_TOUCH_FLAG_ACCESS_MASK | \
                             VGPU_TOUCH_FLAG_LANES_MASK)

static const VGPUCmdDesc vgpu_cmds[] = {
    [VGPU_OP_NOP] = { "NOP", 1, false },
    [VGPU_OP_COPY] = { "COPY", VGPU_COPY_LEN, true },
    [VGPU_OP_FILL] = { "FILL", VGPU_FILL_LEN, true },
    [VGPU_OP_WRITE] = { "WRITE", VGPU_WRITE_LEN_MIN, false },
    [VGPU_OP_FENCE] = { "FENCE", VGPU_FENCE_LEN, true,
                        .flags = VGPU_FENCE_FLAGS,
                        .ring_flags = VGPU_FENCE_FLAGS },
    [VGPU_OP_WAIT] = { "WAIT", VGPU_WAIT_LEN, true },
    [VGPU_OP_TIMESTAMP] = { "TIMESTAMP", VGPU_TIMESTAMP_LEN, true,
                            .flags = VGPU_TIMESTAMP_FLAG_WALL },
    [VGPU_OP_TOUCH] = { "TOUCH", VGPU_TOUCH_LEN, true,
                        .flags = VGPU_TOUCH_FLAGS },
    [VGPU_OP_CHECKSUM] = { "CHECKSUM", VGPU_CHECKSUM_LEN, true },
    [VGPU_OP_CALL] = { "CALL", VGPU_CALL_LEN, true,
                       .stream_error = VGPU_QUEUE_ERROR_CALL_NESTED },
    [VGPU_OP_GATHER] = { "GATHER", VGPU_GATHER_LEN, true,
                         .flags = VGPU_GATHER_FLAG_ELEM_SHIFT_MASK |
                                  VGPU_GATHER_FLAG_NODST },
    [VGPU_OP_SCATTER] = { "SCATTER", VGPU_GATHER_LEN, true,
                          .flags = VGPU_GATHER_FLAG_ELEM_SHIFT_MASK },
    [VGPU_OP_TILE] = { "TILE", VGPU_TILE_LEN, true,
                       .flags = VGPU_TILE_FLAG_MODE_MASK |
                                VGPU_TILE_FLAG_ACCESS_MASK |
                                VGPU_TILE_FLAG_COLUMNS |
                                VGPU_TILE_FLAG_RADIUS_MASK },
    [VGPU_OP_COMPUTE] = { "COMPUTE", VGPU_COMPUTE_LEN, true },
};

/* The ring is privileged, the stream of a CALL is not. */
static bool vgpu_cmd_privileged(const VGPUQueue *q)
{
    return !q->in_call;
}

/*
 * How far a command's progress (cmd->done) goes: bytes for the commands
 * that move data, accesses for TOUCH, elements for GATHER and SCATTER,
 * access slots for TILE (vgpu-kernels.c), 0 for the rest.
 */
static uint64_t vgpu_cmd_total(const VGPUCmd *cmd)
{
    switch (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE)) {
    case VGPU_OP_COPY:
        return vgpu_cmd_arg64(cmd, 4);
    case VGPU_OP_FILL:
    case VGPU_OP_CHECKSUM:
        return vgpu_cmd_arg64(cmd, 2);
    case VGPU_OP_WRITE:
        return (uint64_t)(cmd->len - 3) * 4;
    case VGPU_OP_TOUCH:
    case VGPU_OP_GATHER:
    case VGPU_OP_SCATTER:
    case VGPU_OP_TILE:
        return vgpu_kernel_total(cmd);
    default:
        return 0;
    }
}

/*
 * Is the progress of a checked command (vgpu_cmd_check()) one its
 * execution can have reached?  For a command loaded by migration.
 */
bool vgpu_cmd_progress_ok(const VGPUCmd *cmd, const char **why)
{
    uint32_t op = VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE);

    *why = "progress beyond the end of the command";
    if (cmd->done > vgpu_cmd_total(cmd)) {
        return false;
    }
    *why = "progress not a multiple of 4 bytes";
    return (op != VGPU_OP_FILL && op != VGPU_OP_WRITE) || !(cmd->done & 3);
}

/* Check a command's arguments; returns false (and says why) if bad. */
static bool vgpu_cmd_args_ok(const VGPUCmd *cmd, const char **why)
{
    uint32_t flags = vgpu_cmd_flags(cmd);

    switch (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE)) {
    case VGPU_OP_FILL:
        *why = "FILL destination and size must be multiples of 4";
        return !(vgpu_cmd_arg64(cmd, 0) & 3) && !(vgpu_cmd_arg64(cmd, 2) & 3);
    case VGPU_OP_WRITE:
        *why = "WRITE destination must be 4-byte aligned";
        return !(vgpu_cmd_arg64(cmd, 0) & 3);
    case VGPU_OP_FENCE:
        if ((flags & VGPU_FENCE_FLAG_CLOCK) &&
            (flags & VGPU_FENCE_FLAG_NOWRITE)) {
            *why = "CLOCK writes the clock, NOWRITE writes nothing";
            return false;
        }
        *why = "address must be 8-byte aligned";
        return (flags & VGPU_FENCE_FLAG_NOWRITE) ||
               !(vgpu_cmd_arg64(cmd, 0) & 7);
    case VGPU_OP_WAIT:
    case VGPU_OP_TIMESTAMP:
        *why = "address must be 8-byte aligned";
        return !(vgpu_cmd_arg64(cmd, 0) & 7);
    case VGPU_OP_CHECKSUM:
        *why = "CHECKSUM destination must be 8-byte aligned";
        return !(vgpu_cmd_arg64(cmd, 4) & 7);
    case VGPU_OP_CALL:
        *why = "CALL stream must be 4-byte aligned";
        return !(vgpu_cmd_arg64(cmd, 0) & 3);
    case VGPU_OP_TOUCH:
        *why = "TOUCH range must be a non-empty run of 64-byte lines";
        if ((vgpu_cmd_arg64(cmd, 0) | vgpu_cmd_arg64(cmd, 2)) %
            VGPU_TOUCH_LINE ||
            !vgpu_cmd_arg64(cmd, 2)) {
            return false;
        }
        *why = "TOUCH lanes field beyond 2^8 lanes";
        if (VGPU_FIELD_GET(flags, VGPU_TOUCH_FLAG_LANES) >
            VGPU_TOUCH_LANES_LOG2_MAX + 1) {
            return false;
        }
        switch (VGPU_FIELD_GET(flags, VGPU_TOUCH_FLAG_PATTERN)) {
        case VGPU_TOUCH_SEQUENTIAL:
            return true;
        case VGPU_TOUCH_STRIDED:
            *why = "TOUCH stride must be a non-zero multiple of 64";
            return cmd->arg[4] && !(cmd->arg[4] % VGPU_TOUCH_LINE);
        case VGPU_TOUCH_RANDOM:
            *why = "TOUCH random count must not be zero";
            return cmd->arg[5];
        default:
            *why = "TOUCH pattern unknown";
            return false;
        }
    case VGPU_OP_GATHER:
    case VGPU_OP_SCATTER:
    case VGPU_OP_TILE:
        return vgpu_kernel_args_ok(cmd, why);
    default:
        return true;
    }
}

/*
 * Check the command in @q->cmd against the command table, its arguments
 * and the privilege of the stream it came from.  Returns a
 * VGPU_QUEUE_ERROR_* cause, NONE if the command may run; otherwise *@why
 * says why (free it with g_free()).  Nothing is changed, so a command
 * loaded by migration is checked the same way.
 */
uint32_t vgpu_cmd_check(VGPUState *s, const VGPUQueue *q, char **why)
{
    const VGPUCmd *cmd = &q->cmd;
    uint32_t op = VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE);
    uint32_t flags = vgpu_cmd_flags(cmd);
    const char *where = q->in_call ? "stream offset" : "ring offset";
    const char *arg_why = "";
    const VGPUCmdDesc *d;

    if (op >= ARRAY_SIZE(vgpu_cmds) || !vgpu_cmds[op].name) {
        *why = g_strdup_printf("unknown opcode 0x%x at %s 0x%x", op, where,
                               cmd->offset);
        return VGPU_QUEUE_ERROR_OPCODE;
    }
    d = &vgpu_cmds[op];
    if (!vgpu_cmd_privileged(q) && d->stream_error) {
        *why = g_strdup_printf("%s at %s 0x%x inside the CALL at 0x%x: "
                               "only the ring may run it", d->name, where,
                               cmd->offset, q->call_ring_offset);
        return d->stream_error;
    }
    if (d->fixed ? cmd->len != d->len : cmd->len < d->len) {
        *why = g_strdup_printf("%s at %s 0x%x has length %u, needs %s%u",
                               d->name, where, cmd->offset, cmd->len,
                               d->fixed ? "" : "at least ", d->len);
        return VGPU_QUEUE_ERROR_LENGTH;
    }
    if (flags & ~d->flags) {
        *why = g_strdup_printf("%s at %s 0x%x has unknown flags 0x%x",
                               d->name, where, cmd->offset, flags & ~d->flags);
        return VGPU_QUEUE_ERROR_ARGUMENT;
    }
    if (!vgpu_cmd_privileged(q) && (flags & d->ring_flags)) {
        *why = g_strdup_printf("%s at %s 0x%x inside the CALL at 0x%x: "
                               "flags 0x%x are privileged (ring only)",
                               d->name, where, cmd->offset,
                               q->call_ring_offset, flags & d->ring_flags);
        return VGPU_QUEUE_ERROR_PRIVILEGE;
    }
    if (!vgpu_cmd_args_ok(cmd, &arg_why)) {
        *why = g_strdup_printf("%s at %s 0x%x: %s", d->name, where,
                               cmd->offset, arg_why);
        return VGPU_QUEUE_ERROR_ARGUMENT;
    }
    if (op == VGPU_OP_CALL &&
        (!cmd->arg[2] || cmd->arg[2] > VGPU_CALL_SIZE_MAX_DW)) {
        *why = g_strdup_printf("CALL at %s 0x%x has a stream of %u dwords, "
                               "allowed 1..%u", where, cmd->offset,
                               cmd->arg[2], VGPU_CALL_SIZE_MAX_DW);
        return VGPU_QUEUE_ERROR_LENGTH;
    }
    return VGPU_QUEUE_ERROR_NONE;
}

/*
 * Validate the command just fetched and set up its progress state.
 * Returns a VGPU_QUEUE_ERROR_* cause, NONE if the command may run.
 */
uint32_t vgpu_cmd_decode(VGPUState *s, VGPUQueue *q)
{
    VGPUCmd *cmd = &q->cmd;
    unsigned qi = vgpu_queue_index(s, q);
    g_autofree char *why = NULL;
    uint32_t cause = vgpu_cmd_check(s, q, &why);

    if (cause != VGPU_QUEUE_ERROR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: %s\n", qi, why);
        if (cause == VGPU_QUEUE_ERROR_PRIVILEGE) {
            trace_vgpu_cmd_privilege(qi, q->call_ring_offset, cmd->offset,
                                     cmd->header);
        }
        return cause;
    }
    switch (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE)) {
    case VGPU_OP_CHECKSUM:
        cmd->acc = VGPU_FNV64_OFFSET;
        break;
    case VGPU_OP_TOUCH:
        cmd->acc = cmd->arg[6] ? cmd->arg[6] : 0x9e3779b97f4a7c15ull;
        break;
    default:
        break;
    }
    return VGPU_QUEUE_ERROR_NONE;
}

/* ------------------------------------------------------------ Helpers --- */

/*
 * Translate @va for an access, or raise its fault.  False: the command
 * stops (BLOCKED); also when the device's own DMA asked for a reset, which
 * ends the engine pass here (see vgpu_qdev_reset()).
 */
bool vgpu_xlate(VGPUState *s, VGPUQueue *q, uint64_t va,
                       unsigned access, VGPUXlate *x)
{
    VGPUFaultInfo f;

    if (s->reset_pending) {
        return false;
    }
    if (vgpu_mmu_translate(s, q, va, access, x, &f)) {
        return true;
    }
    vgpu_fault_raise(s, q, va, access, &f);
    return false;
}

/* A translated access the aperture refused (outside VRAM, DMA error). */
void vgpu_access_fault(VGPUState *s, VGPUQueue *q, uint64_t va,
                              unsigned access, const VGPUXlate *x)
{
    VGPUFaultInfo f = { .reason = VGPU_FAULT_BAD_ADDRESS, .level = x->level };

    vgpu_fault_raise(s, q, va, access, &f);
}

/*
 * Read or write @len bytes through the translation @x of @va; when the
 * aperture refuses the access, raise the fault and return false.
 */
bool vgpu_xlate_read(VGPUState *s, VGPUQueue *q, uint64_t va,
                            unsigned access, const VGPUXlate *x,
                            void *buf, uint64_t len)
{
    if (!vgpu_mem_read(s, q->context, x, buf, len)) {
        vgpu_access_fault(s, q, va, access, x);
        return false;
    }
    return true;
}

static bool vgpu_xlate_write(VGPUState *s, VGPUQueue *q, uint64_t va,
                             const VGPUXlate *x, const void *buf,
                             uint64_t len)
{
    if (!vgpu_mem_write(s, q->context, x, buf, len)) {
        vgpu_access_fault(s, q, va, VGPU_ACCESS_WRITE, x);
        return false;
    }
    return true;
}

bool vgpu_va_read(VGPUState *s, VGPUQueue *q, uint64_t va,
                         unsigned access, void *buf, uint64_t len)
{
    VGPUXlate x;

    return vgpu_xlate(s, q, va, access, &x) &&
           vgpu_xlate_read(s, q, va, access, &x, buf, len);
}

/* Write @len bytes that do not cross a page (aligned qwords, lines). */
bool vgpu_va_write(VGPUState *s, VGPUQueue *q, uint64_t va, const void *buf,
                   uint64_t len)
{
    VGPUXlate x;

    return vgpu_xlate(s, q, va, VGPU_ACCESS_WRITE, &x) &&
           vgpu_xlate_write(s, q, va, &x, buf, len);
}

static bool vgpu_va_write64(VGPUState *s, VGPUQueue *q, uint64_t va,
                            uint64_t val)
{
    uint64_t le = cpu_to_le64(val);

    return vgpu_va_write(s, q, va, &le, sizeof(le));
}

/* ------------------------------------------------------------ Streams --- */

/*
 * Read @n dwords at byte offset @off of the stream queue @q runs from: its
 * ring (wrapping at the end), or the stream of the CALL in flight, through
 * the queue's context.  The dwords come back in host order.  False: the
 * queue went into ERROR (ring not readable) or STALLED (a fault reading
 * the stream); nothing was changed.
 */
bool vgpu_cmd_stream_read(VGPUState *s, VGPUQueue *q, uint32_t off,
                          uint32_t *buf, uint32_t n)
{
    uint64_t len = (uint64_t)n * 4, done = 0;
    uint32_t i;

    if (!q->in_call) {
        off &= q->ring_size - 1;
        if (!vgpu_ring_read(s, q, off, buf, n)) {
            qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: ring not "
                          "readable at offset 0x%x\n",
                          vgpu_queue_index(s, q), off);
            vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_RING_DMA);
            return false;
        }
        return true;
    }
    while (done < len) {
        uint64_t va = q->call_va + off + done;
        VGPUXlate x;
        uint64_t chunk;

        if (!vgpu_xlate(s, q, va, VGPU_ACCESS_READ, &x)) {
            return false;
        }
        chunk = MIN(len - done, x.avail);
        if (!vgpu_xlate_read(s, q, va, VGPU_ACCESS_READ, &x,
                             (uint8_t *)buf + done, chunk)) {
            return false;
        }
        done += chunk;
    }
    for (i = 0; i < n; i++) {
        buf[i] = le32_to_cpu(buf[i]);
    }
    return true;
}

/* ----------------------------------------------------------- Commands --- */

static VGPUCmdStatus vgpu_cmd_copy(VGPUState *s, VGPUQueue *q,
                                   int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    uint64_t src = vgpu_cmd_arg64(cmd, 0), dst = vgpu_cmd_arg64(cmd, 2);
    uint64_t size = vgpu_cmd_arg64(cmd, 4);

    while (cmd->done < size) {
        VGPUXlate xs, xd;
        uint64_t n;
        bool dst_failed;

        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        if (!vgpu_xlate(s, q, src + cmd->done, VGPU_ACCESS_READ, &xs) ||
            !vgpu_xlate(s, q, dst + cmd->done, VGPU_ACCESS_WRITE, &xd)) {
            return VGPU_CMD_BLOCKED;
        }
        n = MIN(size - cmd->done, MIN(xs.avail, xd.avail));
        n = MIN(n, (uint64_t)*budget);
        if (!vgpu_mem_copy(s, q->context, &xd, &xs, n, &dst_failed)) {
            if (dst_failed) {
                vgpu_access_fault(s, q, dst + cmd->done, VGPU_ACCESS_WRITE,
                                  &xd);
            } else {
                vgpu_access_fault(s, q, src + cmd->done, VGPU_ACCESS_READ,
                                  &xs);
            }
            return VGPU_CMD_BLOCKED;
        }
        cmd->done += n;
        *budget -= n;
    }
    return VGPU_CMD_DONE;
}

static VGPUCmdStatus vgpu_cmd_fill(VGPUState *s, VGPUQueue *q,
                                   int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    uint64_t dst = vgpu_cmd_arg64(cmd, 0), size = vgpu_cmd_arg64(cmd, 2);
    uint32_t value = cpu_to_le32(cmd->arg[4]);
    uint64_t i;

    for (i = 0; i < MIN(size, VGPU_BOUNCE_SIZE); i += 4) {
        memcpy(s->bounce + i, &value, 4);
    }
    while (cmd->done < size) {
        VGPUXlate xd;
        uint64_t n;

        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        if (!vgpu_xlate(s, q, dst + cmd->done, VGPU_ACCESS_WRITE, &xd)) {
            return VGPU_CMD_BLOCKED;
        }
        n = MIN(size - cmd->done, MIN(xd.avail, VGPU_BOUNCE_SIZE));
        if (!vgpu_xlate_write(s, q, dst + cmd->done, &xd, s->bounce, n)) {
            return VGPU_CMD_BLOCKED;
        }
        cmd->done += n;
        *budget -= n;
    }
    return VGPU_CMD_DONE;
}

static VGPUCmdStatus vgpu_cmd_write(VGPUState *s, VGPUQueue *q,
                                    int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    uint64_t dst = vgpu_cmd_arg64(cmd, 0);
    uint64_t size = (uint64_t)(cmd->len - 3) * 4;
    uint32_t *data = (uint32_t *)s->bounce;

    while (cmd->done < size) {
        VGPUXlate xd;
        uint32_t off, i;
        uint64_t n;

        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        if (!vgpu_xlate(s, q, dst + cmd->done, VGPU_ACCESS_WRITE, &xd)) {
            return VGPU_CMD_BLOCKED;
        }
        n = MIN(size - cmd->done, MIN(xd.avail, VGPU_BOUNCE_SIZE));
        off = cmd->offset + 12 + cmd->done;
        if (!vgpu_cmd_stream_read(s, q, off, data, n / 4)) {
            return VGPU_CMD_BLOCKED;
        }
        for (i = 0; i < n / 4; i++) {
            data[i] = cpu_to_le32(data[i]);
        }
        if (!vgpu_xlate_write(s, q, dst + cmd->done, &xd, data, n)) {
            return VGPU_CMD_BLOCKED;
        }
        cmd->done += n;
        *budget -= n;
    }
    return VGPU_CMD_DONE;
}

static VGPUCmdStatus vgpu_cmd_fence(VGPUState *s, VGPUQueue *q)
{
    VGPUCmd *cmd = &q->cmd;
    unsigned qi = vgpu_queue_index(s, q);
    uint64_t seqno = vgpu_cmd_arg64(cmd, 2);

    if (vgpu_cmd_flags(cmd) & VGPU_FENCE_FLAG_CLOCK) {
        /* The ring's only (decoded privileged): a bus address, no context. */
        uint64_t clock = cpu_to_le64(vgpu_cost_clock_done(s, q));
        MemTxResult r;

        r = pci_dma_write(PCI_DEVICE(s), vgpu_cmd_arg64(cmd, 0), &clock,
                          sizeof(clock));
        trace_vgpu_dma("fence-clock", vgpu_cmd_arg64(cmd, 0), sizeof(clock),
                       r);
        if (r != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "vgpu: queue %u: FENCE CLOCK slot 0x%" PRIx64
                          " not writable\n", qi, vgpu_cmd_arg64(cmd, 0));
            vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_RING_DMA);
            return VGPU_CMD_BLOCKED;
        }
    } else if (!(vgpu_cmd_flags(cmd) & VGPU_FENCE_FLAG_NOWRITE)) {
        if (!vgpu_va_write64(s, q, vgpu_cmd_arg64(cmd, 0), seqno)) {
            return VGPU_CMD_BLOCKED;
        }
        vgpu_cost_signal(s, q, vgpu_cmd_arg64(cmd, 0), seqno);
    }
    trace_vgpu_fence(qi, seqno, vgpu_cmd_flags(cmd), vgpu_cmd_privileged(q));
    if (!vgpu_cmd_privileged(q)) {
        return VGPU_CMD_DONE;       /* a user's fence: its memory write only */
    }
    q->fence = seqno;
    if (vgpu_cmd_flags(cmd) & VGPU_FENCE_FLAG_IRQ) {
        s->fence_queues |= BIT(qi);
        vgpu_irq_raise(s, VGPU_INT_FENCE);
    }
    return VGPU_CMD_DONE;
}

static VGPUCmdStatus vgpu_cmd_wait(VGPUState *s, VGPUQueue *q)
{
    VGPUCmd *cmd = &q->cmd;
    uint64_t value;

    if (!vgpu_va_read(s, q, vgpu_cmd_arg64(cmd, 0), VGPU_ACCESS_READ, &value,
                      sizeof(value))) {
        return VGPU_CMD_BLOCKED;
    }
    value = le64_to_cpu(value);
    if (value >= vgpu_cmd_arg64(cmd, 2)) {
        vgpu_cost_wait_done(s, q, vgpu_cmd_arg64(cmd, 0),
                            vgpu_cmd_arg64(cmd, 2));
        return VGPU_CMD_DONE;
    }
    /* A poll costs nothing: the WAIT is charged for its last read only. */
    memset(&q->time.tally, 0, sizeof(q->time.tally));
    q->state = VGPU_QUEUE_STATE_WAITING;
    return VGPU_CMD_BLOCKED;
}

/*
 * The queue's clock when the TIMESTAMP starts (modeled ns, vgpu-cost.c),
 * or with FLAG_WALL the device clock (REG_TIMESTAMP).
 */
static VGPUCmdStatus vgpu_cmd_timestamp(VGPUState *s, VGPUQueue *q)
{
    bool wall = vgpu_cmd_flags(&q->cmd) & VGPU_TIMESTAMP_FLAG_WALL;

    if (!vgpu_va_write64(s, q, vgpu_cmd_arg64(&q->cmd, 0),
                         wall ? vgpu_now_ns() : q->time.clock)) {
        return VGPU_CMD_BLOCKED;
    }
    return VGPU_CMD_DONE;
}

static VGPUCmdStatus vgpu_cmd_checksum(VGPUState *s, VGPUQueue *q,
                                       int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    uint64_t src = vgpu_cmd_arg64(cmd, 0), size = vgpu_cmd_arg64(cmd, 2);
    uint64_t h = cmd->acc, i;

    while (cmd->done < size) {
        VGPUXlate xs;
        uint64_t n;

        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        if (!vgpu_xlate(s, q, src + cmd->done, VGPU_ACCESS_READ, &xs)) {
            return VGPU_CMD_BLOCKED;
        }
        n = MIN(size - cmd->done, MIN(xs.avail, VGPU_BOUNCE_SIZE));
        if (!vgpu_xlate_read(s, q, src + cmd->done, VGPU_ACCESS_READ, &xs,
                             s->bounce, n)) {
            return VGPU_CMD_BLOCKED;
        }
        for (i = 0; i < n; i++) {
            h = (h ^ s->bounce[i]) * VGPU_FNV64_PRIME;
        }
        cmd->acc = h;
        cmd->done += n;
        *budget -= n;
    }
    if (!vgpu_va_write64(s, q, vgpu_cmd_arg64(cmd, 4), cmd->acc)) {
        return VGPU_CMD_BLOCKED;
    }
    return VGPU_CMD_DONE;
}

/* The queue computes for dw1 ns of modeled time; nothing else happens. */
static VGPUCmdStatus vgpu_cmd_compute(VGPUState *s, VGPUQueue *q)
{
    vgpu_cost_compute(s, q, q->cmd.arg[0]);
    return VGPU_CMD_DONE;
}

/* Enter the CALL's stream: the next command comes from its start. */
static VGPUCmdStatus vgpu_cmd_call(VGPUState *s, VGPUQueue *q)
{
    VGPUCmd *cmd = &q->cmd;

    q->in_call = true;
    q->call_ring_offset = cmd->offset;
    q->call_va = vgpu_cmd_arg64(cmd, 0);
    q->call_size = cmd->arg[2] * 4;
    q->call_pos = 0;
    trace_vgpu_call(vgpu_queue_index(s, q), q->call_va, q->call_size);
    return VGPU_CMD_CALL;
}

VGPUCmdStatus vgpu_cmd_exec(VGPUState *s, VGPUQueue *q, int64_t *budget)
{
    switch (VGPU_FIELD_GET(q->cmd.header, VGPU_CMD_OPCODE)) {
    case VGPU_OP_NOP:
        return VGPU_CMD_DONE;
    case VGPU_OP_COPY:
        return vgpu_cmd_copy(s, q, budget);
    case VGPU_OP_FILL:
        return vgpu_cmd_fill(s, q, budget);
    case VGPU_OP_WRITE:
        return vgpu_cmd_write(s, q, budget);
    case VGPU_OP_FENCE:
        return vgpu_cmd_fence(s, q);
    case VGPU_OP_WAIT:
        return vgpu_cmd_wait(s, q);
    case VGPU_OP_TIMESTAMP:
        return vgpu_cmd_timestamp(s, q);

    case VGPU_OP_CHECKSUM:
        return vgpu_cmd_checksum(s, q, budget);
    case VGPU_OP_CALL:
        return vgpu_cmd_call(s, q);
    case VGPU_OP_COMPUTE:
        return vgpu_cmd_compute(s, q);
    case VGPU_OP_TOUCH:
    case VGPU_OP_GATHER:
    case VGPU_OP_SCATTER:
    case VGPU_OP_TILE:
        return vgpu_cmd_kernel(s, q, budget);
    default:
        g_assert_not_reached();     /* vgpu_cmd_decode() refused it */
    }
}
