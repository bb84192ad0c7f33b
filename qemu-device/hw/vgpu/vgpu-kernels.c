/*
 * vgpu access kernels: TOUCH (linear, strided and random ranges), GATHER
 * and SCATTER (addresses read from an index buffer in GPU memory, as graph
 * traversal and sparse codes do) and TILE (GEMM-like blocks and stencil
 * neighbourhoods over a pitched grid), and the lanes they run as.
 *
 * Every access goes through the queue's context (TLB, walk, permissions,
 * A/D bits, access counters, the cost model's tally) and never crosses a
 * page.
 *
 * Lanes.  A kernel is a number of units per pass (TOUCH: accesses, GATHER
 * and SCATTER: elements, TILE: lines, each with its slots), run for some
 * passes.  The device runs it as min(LANES, units) lanes (a TOUCH may ask
 * for fewer, its launch width), as a GPU runs a kernel as warps: lane i owns the i-th contiguous share of the units and
 * makes every access to them, pass after pass, in order; lanes take turns
 * of VGPU_LANE_QUANTUM accesses.  A lane whose access faults waits (its
 * fault record is written, INT_FAULT raised) while the others go on, so
 * one command raises up to LANES faults at once; the queue stalls when no
 * lane can run.  REPLAY sends every waiting lane back to the access that
 * faulted (a fault not fixed is raised again), CANCEL aborts the command
 * as soon as any lane waits.  A lane that faults on a page another lane of
 * the queue is already waiting on, for the same access, waits on that
 * fault without a second record, as a GPU's TLB coalesces them.
 *
 * Because a lane owns its units in every pass, each address is written by
 * one lane in program order and the memory a kernel leaves does not depend
 * on the lane count or on faults, except for SCATTER with repeated
 * indices, where which element lands is undefined as on a GPU.  With one
 * lane a kernel makes exactly the accesses of the sequential definition
 * in hardware.rst, in that order.  cmd->done counts the accesses (TOUCH,
 * TILE slots) or elements completed by all lanes together; an element
 * re-reads its index when it is replayed, which an index read makes
 * invisible.
 *
 * TILE is its own opcode rather than a fourth TOUCH pattern: TOUCH's
 * arguments are a linear range (VA, size, stride, count, seed), a grid
 * needs six others (pitch, tile width and height, tiles across and down,
 * repeat) plus an order and a stencil radius, and reusing TOUCH's dwords
 * under other meanings would make every TOUCH field mean two things.  The
 * access kinds (flags 3:2) are TOUCH's, and so is the per-line access.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "vgpu-internal.h"
#include "trace.h"

/* -------------------------------------------------------------- Lanes --- */

/* An access kernel as its lanes see it. */
typedef struct VGPUKernel {
    uint64_t units;     /* per pass, shared out among the lanes */
    uint64_t slots;     /* accesses per unit */
    uint64_t passes;
    uint32_t max_lanes; /* the command's launch width, 0: REG_LANES */
    /* Access @slot of @unit; false: it faulted or the queue left RUNNING. */
    bool (*access)(VGPUState *s, VGPUQueue *q, VGPULane *lane,
                   uint64_t unit, uint64_t slot, int64_t *budget);
} VGPUKernel;

/* Lane @i's share of @k's units: returns how many, *@first the first. */
static uint64_t vgpu_lane_share(const VGPUKernel *k, unsigned lanes,
                                unsigned i, uint64_t *first)
{
    uint64_t base = k->units / lanes, rem = k->units % lanes;

    *first = i * base + MIN(i, rem);
    return base + (i < rem);
}

static uint64_t vgpu_lane_total(const VGPUKernel *k, unsigned lanes,
                                unsigned i)
{
    uint64_t first;

    return vgpu_lane_share(k, lanes, i, &first) * k->slots * k->passes;
}

/* xorshift64*: the TOUCH RANDOM pattern's generator, one per lane. */
static uint64_t vgpu_prng_next(uint64_t x)
{
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x;
}

static uint64_t vgpu_prng_value(uint64_t x)
{
    return x * 0x2545f4914f6cdd1dull;
}

/* Lane @i's generator: lane 0 starts from the seed itself. */
static uint64_t vgpu_lane_seed(const VGPUCmd *cmd, unsigned i)
{
    uint64_t x = cmd->acc ^ (i * 0x9e3779b97f4a7c15ull);

    return x ? x : 0x9e3779b97f4a7c15ull;
}

/* How many lanes kernel @k runs as: at least one, at most one per unit. */
static uint32_t vgpu_kernel_lanes(VGPUState *s, const VGPUKernel *k)
{
    uint64_t n = MIN(s->lanes, k->max_lanes ? k->max_lanes : UINT32_MAX);

    return MAX(MIN(n, k->units), 1);
}

static void vgpu_lanes_start(VGPUState *s, VGPUQueue *q, const VGPUKernel *k)
{
    VGPUCmd *cmd = &q->cmd;
    unsigned i;

    cmd->lanes = vgpu_kernel_lanes(s, k);
    q->lane_next = 0;
    for (i = 0; i < cmd->lanes; i++) {
        q->lane[i] = (VGPULane) { .acc = vgpu_lane_seed(cmd, i) };
    }
}

/*
 * Lane @i's turn: at most VGPU_LANE_QUANTUM accesses.  False: an access
 * failed (the lane waits on a fault, or the queue left RUNNING).
 */
static bool vgpu_lane_run(VGPUState *s, VGPUQueue *q, const VGPUKernel *k,
                          unsigned i, int64_t *budget)
{
    VGPULane *l = &q->lane[i];
    uint64_t first, per_pass, total;
    unsigned n;
    bool ok = true;

    per_pass = vgpu_lane_share(k, q->cmd.lanes, i, &first) * k->slots;
    total = per_pass * k->passes;
    q->lane_running = l;
    for (n = 0; n < VGPU_LANE_QUANTUM && l->done < total; n++) {
        uint64_t r = l->done % per_pass;

        ok = k->access(s, q, l, first + r / k->slots, r % k->slots, budget);
        if (!ok) {
            break;
        }
        l->done++;
        q->cmd.done++;
    }
    q->lane_running = NULL;
    return ok;
}

/*
 * Run kernel @k's lanes in turn until all are done (DONE), the budget is
 * used up (YIELD), or none can run: each waits on a fault or is done, and
 * the queue stalls (BLOCKED), as it does when the queue leaves RUNNING.
 */
static VGPUCmdStatus vgpu_kernel_run(VGPUState *s, VGPUQueue *q,
                                     const VGPUKernel *k, int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    unsigned idle = 0;
    bool waiting = false;

    if (!cmd->lanes) {
        vgpu_lanes_start(s, q, k);
    }
    while (idle < cmd->lanes) {
        unsigned i = q->lane_next;
        VGPULane *l = &q->lane[i];

        if (l->waiting || l->done == vgpu_lane_total(k, cmd->lanes, i)) {
            waiting |= l->waiting;
            idle++;
            q->lane_next = (i + 1) % cmd->lanes;
            continue;
        }
        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        if (!vgpu_lane_run(s, q, k, i, budget) &&
            (q->state != VGPU_QUEUE_STATE_RUNNING || s->reset_pending ||
             !l->waiting)) {
            return VGPU_CMD_BLOCKED;
        }
        idle = 0;
        waiting = false;
        q->lane_next = (i + 1) % cmd->lanes;
    }
    if (!waiting) {
        return VGPU_CMD_DONE;
    }
    q->state = VGPU_QUEUE_STATE_STALLED;
    vgpu_cost_stall_begin(s, q);
    trace_vgpu_lanes_stall(vgpu_queue_index(s, q), cmd->lanes);
    return VGPU_CMD_BLOCKED;
}

/*
 * A fault in the access of the lane running on @q (none: false, the queue
 * stalls as for any command): the lane waits on @page.  True if another
 * lane already waits on the same page for the same access, so the fault
 * is not reported again.
 */
bool vgpu_lanes_wait(VGPUQueue *q, uint64_t page, unsigned access)
{
    VGPULane *l = q->lane_running;
    unsigned i;

    if (!l) {
        return false;
    }
    l->waiting = true;
    l->fault_page = page;
    l->fault_access = access;
    for (i = 0; i < q->cmd.lanes; i++) {
        if (&q->lane[i] != l && q->lane[i].waiting &&
            q->lane[i].fault_page == page &&
            q->lane[i].fault_access == access) {
            return true;
        }
    }
    return false;
}

/* Does a lane of the command in flight on @q wait on a fault? */
bool vgpu_lanes_waiting(const VGPUQueue *q)
{
    unsigned i;

    for (i = 0; q->busy && i < q->cmd.lanes; i++) {
        if (q->lane[i].waiting) {
            return true;
        }
    }
    return false;
}

/* REPLAY: every waiting lane retries its access.  False: none waited. */
bool vgpu_lanes_resume(VGPUQueue *q)
{
    bool any = vgpu_lanes_waiting(q);
    unsigned i;

    for (i = 0; q->busy && i < q->cmd.lanes; i++) {
        q->lane[i].waiting = false;
    }
    return any;
}

static void vgpu_kernel_describe(const VGPUCmd *cmd, VGPUKernel *k);

/* The lanes of a busy queue @q as migration loaded them; false: @why. */
bool vgpu_lanes_load_check(VGPUState *s, VGPUQueue *q, const char **why)
{
    uint32_t op = VGPU_FIELD_GET(q->cmd.header, VGPU_CMD_OPCODE);
    VGPUKernel k;
    uint64_t sum = 0;
    unsigned i;

    *why = "lanes for a command that is not an access kernel";
    if (op != VGPU_OP_TOUCH && op != VGPU_OP_GATHER &&
        op != VGPU_OP_SCATTER && op != VGPU_OP_TILE) {
        return !q->cmd.lanes;
    }
    vgpu_kernel_describe(&q->cmd, &k);
    *why = "lane count not the command's, or lane turn beyond the lanes";
    if ((q->cmd.lanes && q->cmd.lanes != vgpu_kernel_lanes(s, &k)) ||
        (q->cmd.lanes && q->lane_next >= q->cmd.lanes)) {
        return false;
    }
    for (i = 0; i < q->cmd.lanes; i++) {
        *why = "lane progress beyond its share of the kernel";
        if (q->lane[i].done > vgpu_lane_total(&k, q->cmd.lanes, i)) {
            return false;
        }
        sum += q->lane[i].done;
    }
    *why = "lanes' progress does not add up to the command's";
    if (q->cmd.lanes && sum != q->cmd.done) {
        return false;
    }
    *why = "STALLED with no lane waiting on a fault";
    return q->state != VGPU_QUEUE_STATE_STALLED || !q->cmd.lanes ||
           vgpu_lanes_waiting(q);
}

/* -------------------------------------------------------------- TOUCH --- */

static uint64_t vgpu_touch_per_pass(const VGPUCmd *cmd)
{
    uint64_t size = vgpu_cmd_arg64(cmd, 2);

    switch (VGPU_FIELD_GET(vgpu_cmd_flags(cmd), VGPU_TOUCH_FLAG_PATTERN)) {
    case VGPU_TOUCH_SEQUENTIAL:
        return size / VGPU_TOUCH_LINE;
    case VGPU_TOUCH_STRIDED:
        return DIV_ROUND_UP(size, cmd->arg[4]);
    default:
        return cmd->arg[5];
    }
}

/* One TOUCH access of the 64-byte line at @va. */
static bool vgpu_touch_line(VGPUState *s, VGPUQueue *q, uint64_t va,
                            unsigned kind)
{
    uint64_t line[VGPU_TOUCH_LINE / 8];
    int i;

    switch (kind) {
    case VGPU_TOUCH_READ:
        return vgpu_va_read(s, q, va, VGPU_ACCESS_READ, line, sizeof(line));
    case VGPU_TOUCH_EXEC:
        return vgpu_va_read(s, q, va, VGPU_ACCESS_EXEC, line, sizeof(line));
    case VGPU_TOUCH_WRITE:
        for (i = 0; i < ARRAY_SIZE(line); i++) {
            line[i] = cpu_to_le64(va);
        }
        return vgpu_va_write(s, q, va, line, sizeof(line));
    default:
        /* RMW: translate for write too before changing anything. */
        if (!vgpu_va_read(s, q, va, VGPU_ACCESS_READ, line, sizeof(line))) {
            return false;
        }
        line[0] = cpu_to_le64(le64_to_cpu(line[0]) + 1);
        return vgpu_va_write(s, q, va, line, sizeof(line));
    }
}

/* Access @unit of a TOUCH: its line, or the lane's next random line. */
static bool vgpu_touch_access(VGPUState *s, VGPUQueue *q, VGPULane *l,
                              uint64_t unit, uint64_t slot, int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    uint32_t flags = vgpu_cmd_flags(cmd);
    uint64_t va = vgpu_cmd_arg64(cmd, 0), size = vgpu_cmd_arg64(cmd, 2);
    uint64_t off, next = l->acc;

    switch (VGPU_FIELD_GET(flags, VGPU_TOUCH_FLAG_PATTERN)) {
    case VGPU_TOUCH_SEQUENTIAL:
        off = unit * VGPU_TOUCH_LINE;
        break;
    case VGPU_TOUCH_STRIDED:
        off = unit * cmd->arg[4];
        break;
    default:
        next = vgpu_prng_next(l->acc);
        off = (vgpu_prng_value(next) % (size / VGPU_TOUCH_LINE)) *
              VGPU_TOUCH_LINE;
        break;
    }
    if (!vgpu_touch_line(s, q, va + off,
                         VGPU_FIELD_GET(flags, VGPU_TOUCH_FLAG_ACCESS))) {
        return false;
    }
    l->acc = next;
    *budget -= VGPU_TOUCH_COST;
    return true;
}


/* ------------------------------------------------- GATHER, SCATTER --- */

/* dw1-2 index VA, dw3-4 base, dw5 count, dw6 bound, dw7-8 packed VA. */
#define G_INDEX(cmd)    vgpu_cmd_arg64(cmd, 0)
#define G_BASE(cmd)     vgpu_cmd_arg64(cmd, 2)
#define G_COUNT(cmd)    ((cmd)->arg[4])
#define G_BOUND(cmd)    ((cmd)->arg[5])
#define G_PACKED(cmd)   vgpu_cmd_arg64(cmd, 6)

static unsigned vgpu_gather_shift(const VGPUCmd *cmd)
{
    return VGPU_FIELD_GET(vgpu_cmd_flags(cmd), VGPU_GATHER_FLAG_ELEM_SHIFT);
}

static bool vgpu_gather_nodst(const VGPUCmd *cmd)
{
    return VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE) == VGPU_OP_GATHER &&
           (vgpu_cmd_flags(cmd) & VGPU_GATHER_FLAG_NODST);
}

/* Does [va, va + n * size) stay below 2^64?  (n < 2^32, size <= 4 KiB) */
static bool vgpu_span_ok(uint64_t va, uint64_t n, uint64_t size)
{
    return va + n * size >= va;
}

static bool vgpu_gather_args_ok(const VGPUCmd *cmd, const char **why)
{
    unsigned shift = vgpu_gather_shift(cmd);
    uint64_t elem = 1ull << shift;

    *why = "element size must be 4 bytes .. 4 KiB";
    if (shift < VGPU_GATHER_ELEM_SHIFT_MIN ||
        shift > VGPU_GATHER_ELEM_SHIFT_MAX) {
        return false;
    }
    *why = "index buffer must be 4-byte aligned";
    if (G_INDEX(cmd) & 3) {
        return false;
    }
    *why = "base and packed elements must be aligned to the element size";
    if ((G_BASE(cmd) & (elem - 1)) ||
        (!vgpu_gather_nodst(cmd) && (G_PACKED(cmd) & (elem - 1)))) {
        return false;
    }
    *why = "bound must not be zero";
    if (!G_BOUND(cmd)) {
        return false;
    }
    *why = "index buffer, elements or packed elements wrap around 2^64";
    return vgpu_span_ok(G_INDEX(cmd), G_COUNT(cmd), 4) &&
           vgpu_span_ok(G_BASE(cmd), G_BOUND(cmd), elem) &&
           (vgpu_gather_nodst(cmd) ||
            vgpu_span_ok(G_PACKED(cmd), G_COUNT(cmd), elem));
}

/*
 * One element of a GATHER (dst[i] = base[idx[i]]) or SCATTER
 * (base[idx[i]] = src[i]): read the index, translate both sides (the
 * read side first), then move the element.  Nothing changes before the
 * last translation succeeded.
 */
static bool vgpu_gather_one(VGPUState *s, VGPUQueue *q, uint64_t i,
                            bool scatter, bool *bad_index)
{
    VGPUCmd *cmd = &q->cmd;
    uint64_t elem = 1ull << vgpu_gather_shift(cmd);
    uint64_t ia = G_INDEX(cmd) + i * 4, ea, pa, src, dst;
    VGPUXlate xs, xd;
    uint32_t idx;
    bool dst_failed;

    *bad_index = false;
    if (!vgpu_va_read(s, q, ia, VGPU_ACCESS_READ, &idx, sizeof(idx))) {
        return false;
    }
    idx = le32_to_cpu(idx);
    if (idx >= G_BOUND(cmd)) {
        *bad_index = true;
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: queue %u: %s at offset 0x%x: "
                      "index %u (element %" PRIu64 ", at 0x%" PRIx64 ") is "
                      "not below the bound %u\n", vgpu_queue_index(s, q),
                      scatter ? "SCATTER" : "GATHER", cmd->offset, idx, i,
                      ia, G_BOUND(cmd));
        trace_vgpu_cmd_index(vgpu_queue_index(s, q), cmd->offset, i, idx,
                             G_BOUND(cmd));
        return false;
    }
    ea = G_BASE(cmd) + (uint64_t)idx * elem;
    pa = G_PACKED(cmd) + i * elem;
    src = scatter ? pa : ea;
    dst = scatter ? ea : pa;
    if (!vgpu_xlate(s, q, src, VGPU_ACCESS_READ, &xs)) {
        return false;
    }
    if (vgpu_gather_nodst(cmd)) {
        return vgpu_xlate_read(s, q, src, VGPU_ACCESS_READ, &xs, s->bounce,
                               elem);
    }
    if (!vgpu_xlate(s, q, dst, VGPU_ACCESS_WRITE, &xd)) {
        return false;
    }
    if (!vgpu_mem_copy(s, q->context, &xd, &xs, elem, &dst_failed)) {
        if (dst_failed) {
            vgpu_access_fault(s, q, dst, VGPU_ACCESS_WRITE, &xd);
        } else {
            vgpu_access_fault(s, q, src, VGPU_ACCESS_READ, &xs);
        }
        return false;
    }
    return true;
}

static bool vgpu_gather_access(VGPUState *s, VGPUQueue *q, VGPULane *l,
                               uint64_t unit, uint64_t slot, int64_t *budget)
{
    bool scatter = VGPU_FIELD_GET(q->cmd.header, VGPU_CMD_OPCODE) ==
                   VGPU_OP_SCATTER;
    bool bad_index;

    if (!vgpu_gather_one(s, q, unit, scatter, &bad_index)) {
        if (bad_index) {
            vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_INDEX);
        }
        return false;
    }
    *budget -= MAX(VGPU_TOUCH_COST, 1 << vgpu_gather_shift(&q->cmd));
    return true;
}


/* --------------------------------------------------------------- TILE --- */

/*
 * dw1-2 VA, dw3 pitch, dw4 width, dw5 height, dw6 across, dw7 down,
 * dw8 repeat.
 */
#define T_VA(cmd)       vgpu_cmd_arg64(cmd, 0)
#define T_PITCH(cmd)    ((cmd)->arg[2])
#define T_WIDTH(cmd)    ((cmd)->arg[3])
#define T_HEIGHT(cmd)   ((cmd)->arg[4])
#define T_ACROSS(cmd)   ((cmd)->arg[5])
#define T_DOWN(cmd)     ((cmd)->arg[6])
#define T_PASSES(cmd)   MAX((cmd)->arg[7], 1)

static unsigned vgpu_tile_radius(const VGPUCmd *cmd)
{
    return VGPU_FIELD_GET(vgpu_cmd_flags(cmd), VGPU_TILE_FLAG_RADIUS);
}

/* Access slots per line: its 4 x radius neighbours, then the line. */
static uint64_t vgpu_tile_slots(const VGPUCmd *cmd)
{
    return 4 * vgpu_tile_radius(cmd) + 1;
}

/* Lines of the grid, each the centre of one set of slots; 0 on overflow. */
static uint64_t vgpu_tile_lines(const VGPUCmd *cmd)
{
    uint64_t per_tile = (uint64_t)T_HEIGHT(cmd) * (T_WIDTH(cmd) /
                                                   VGPU_TOUCH_LINE);
    uint64_t tiles = (uint64_t)T_ACROSS(cmd) * T_DOWN(cmd), lines;

    return __builtin_mul_overflow(per_tile, tiles, &lines) ? 0 : lines;
}

static bool vgpu_tile_args_ok(const VGPUCmd *cmd, const char **why)
{
    uint32_t flags = vgpu_cmd_flags(cmd);
    unsigned radius = vgpu_tile_radius(cmd);
    uint64_t rows = (uint64_t)T_DOWN(cmd) * T_HEIGHT(cmd);
    uint64_t span, per_pass, total;

    switch (VGPU_FIELD_GET(flags, VGPU_TILE_FLAG_MODE)) {
    case VGPU_TILE_BLOCK:
        *why = "TILE radius must be 0 for BLOCK";
        if (radius) {
            return false;
        }
        break;
    case VGPU_TILE_STENCIL:
        *why = "TILE radius must be 1..7 for STENCIL";
        if (!radius) {
            return false;
        }
        break;
    default:
        *why = "TILE mode unknown";
        return false;
    }
    *why = "TILE VA, pitch and width must be multiples of 64";
    if ((T_VA(cmd) | T_PITCH(cmd) | T_WIDTH(cmd)) % VGPU_TOUCH_LINE) {
        return false;
    }
    *why = "TILE width, height, tiles across and down must not be zero";
    if (!T_WIDTH(cmd) || !T_HEIGHT(cmd) || !T_ACROSS(cmd) || !T_DOWN(cmd)) {
        return false;
    }
    *why = "TILE tiles across times width must not exceed the pitch";
    if ((uint64_t)T_ACROSS(cmd) * T_WIDTH(cmd) > T_PITCH(cmd)) {
        return false;
    }
    *why = "TILE grid wraps around 2^64, or its accesses do not fit 64 bits";
    return !__builtin_mul_overflow(rows, (uint64_t)T_PITCH(cmd), &span) &&
           T_VA(cmd) + span >= T_VA(cmd) && vgpu_tile_lines(cmd) &&
           !__builtin_mul_overflow(vgpu_tile_lines(cmd), vgpu_tile_slots(cmd),
                                   &per_pass) &&
           !__builtin_mul_overflow(per_pass, (uint64_t)T_PASSES(cmd), &total);
}

/*
 * Line @j of a pass, in tile order: tiles across then down (down then
 * across with FLAG_COLUMNS), each tile's rows top to bottom, each row's
 * lines left to right.  Returns its grid row and line in *@row, *@col.
 */
static void vgpu_tile_line_at(const VGPUCmd *cmd, uint64_t j, uint64_t *row,
                              uint64_t *col)
{
    uint64_t wl = T_WIDTH(cmd) / VGPU_TOUCH_LINE;
    uint64_t per_tile = T_HEIGHT(cmd) * wl;
    uint64_t t = j / per_tile, w = j % per_tile, tx, ty;

    if (vgpu_cmd_flags(cmd) & VGPU_TILE_FLAG_COLUMNS) {
        ty = t % T_DOWN(cmd);
        tx = t / T_DOWN(cmd);
    } else {
        tx = t % T_ACROSS(cmd);
        ty = t / T_ACROSS(cmd);
    }
    *row = ty * T_HEIGHT(cmd) + w / wl;
    *col = tx * wl + w % wl;
}

/*
 * The line slot @k of the line at (@row, @col) reaches: slot 4 (d - 1) +
 * 0..3 the neighbour d rows up, d rows down, d lines left, d lines right;
 * slot 4 x radius the line itself.  False: the neighbour is outside the
 * grid and the slot is skipped.
 */
static bool vgpu_tile_slot_va(const VGPUCmd *cmd, uint64_t row, uint64_t col,
                              uint64_t k, uint64_t *va)
{
    uint64_t rows = (uint64_t)T_DOWN(cmd) * T_HEIGHT(cmd);
    uint64_t cols = (uint64_t)T_ACROSS(cmd) * T_WIDTH(cmd) / VGPU_TOUCH_LINE;
    uint64_t d = k / 4 + 1;

    if (k < vgpu_tile_slots(cmd) - 1) {
        switch (k % 4) {
        case 0:
            if (row < d) {
                return false;
            }
            row -= d;
            break;
        case 1:
            if (row + d >= rows) {
                return false;
            }
            row += d;
            break;
        case 2:
            if (col < d) {
                return false;
            }
            col -= d;
            break;
        default:
            if (col + d >= cols) {
                return false;
            }
            col += d;
            break;
        }
    }
    *va = T_VA(cmd) + row * T_PITCH(cmd) + col * VGPU_TOUCH_LINE;
    return true;
}

/* Access slot @slot of line @unit: skipped if it falls outside the grid. */
static bool vgpu_tile_access(VGPUState *s, VGPUQueue *q, VGPULane *l,
                             uint64_t unit, uint64_t slot, int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    unsigned kind = VGPU_FIELD_GET(vgpu_cmd_flags(cmd), VGPU_TILE_FLAG_ACCESS);
    unsigned nkind = kind == VGPU_TOUCH_EXEC ? VGPU_TOUCH_EXEC
                                             : VGPU_TOUCH_READ;
    uint64_t row, col, va;

    vgpu_tile_line_at(cmd, unit, &row, &col);
    if (!vgpu_tile_slot_va(cmd, row, col, slot, &va)) {
        return true;
    }
    if (!vgpu_touch_line(s, q, va,
                         slot == vgpu_tile_slots(cmd) - 1 ? kind : nkind)) {
        return false;
    }
    *budget -= VGPU_TOUCH_COST;
    return true;
}


/* ------------------------------------------------------------ Common --- */

/* Command @cmd (TOUCH, GATHER, SCATTER or TILE) as its lanes see it. */
static void vgpu_kernel_describe(const VGPUCmd *cmd, VGPUKernel *k)
{
    unsigned lanes;

    switch (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE)) {
    case VGPU_OP_TOUCH:
        lanes = VGPU_FIELD_GET(vgpu_cmd_flags(cmd), VGPU_TOUCH_FLAG_LANES);
        *k = (VGPUKernel) {
            .units = vgpu_touch_per_pass(cmd),
            .slots = 1,
            .passes = MAX(cmd->arg[7], 1),
            .max_lanes = lanes ? 1u << (lanes - 1) : 0,
            .access = vgpu_touch_access,
        };
        break;
    case VGPU_OP_TILE:
        *k = (VGPUKernel) {
            .units = vgpu_tile_lines(cmd),
            .slots = vgpu_tile_slots(cmd),
            .passes = T_PASSES(cmd),
            .access = vgpu_tile_access,
        };
        break;
    default:
        *k = (VGPUKernel) {
            .units = G_COUNT(cmd),
            .slots = 1,
            .passes = 1,
            .access = vgpu_gather_access,
        };
        break;
    }
}

/* Accesses (TOUCH, TILE slots) or elements (GATHER, SCATTER) in all. */
uint64_t vgpu_kernel_total(const VGPUCmd *cmd)
{
    VGPUKernel k;

    vgpu_kernel_describe(cmd, &k);
    return k.units * k.slots * k.passes;
}

VGPUCmdStatus vgpu_cmd_kernel(VGPUState *s, VGPUQueue *q, int64_t *budget)
{
    VGPUKernel k;

    vgpu_kernel_describe(&q->cmd, &k);
    return vgpu_kernel_run(s, q, &k, budget);
}

bool vgpu_kernel_args_ok(const VGPUCmd *cmd, const char **why)
{
    if (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE) == VGPU_OP_TILE) {
        return vgpu_tile_args_ok(cmd, why);
    }
    return vgpu_gather_args_ok(cmd, why);
}
