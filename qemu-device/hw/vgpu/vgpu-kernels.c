/*
 * vgpu access kernels whose addresses come from data or from a 2D grid:
 * GATHER and SCATTER (addresses read from an index buffer in GPU memory,
 * as graph traversal and sparse codes do) and TILE (GEMM-like blocks and
 * stencil neighbourhoods over a pitched grid).
 *
 * Like TOUCH, every access goes through the queue's context (TLB, walk,
 * permissions, A/D bits, access counters, the cost model's tally) and
 * never crosses a page, and cmd->done counts the accesses (GATHER,
 * SCATTER: elements; TILE: access slots) that completed: a fault leaves
 * it on the access that faulted, so REPLAY resumes exactly there.  An
 * element re-reads its index when it is replayed; an index read changes
 * nothing, so that is invisible.
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

VGPUCmdStatus vgpu_cmd_gather(VGPUState *s, VGPUQueue *q, int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    bool scatter = VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE) ==
                   VGPU_OP_SCATTER;
    int64_t cost = MAX(VGPU_TOUCH_COST, 1 << vgpu_gather_shift(cmd));
    bool bad_index;

    while (cmd->done < G_COUNT(cmd)) {
        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        if (!vgpu_gather_one(s, q, cmd->done, scatter, &bad_index)) {
            if (bad_index) {
                vgpu_queue_set_error(s, q, VGPU_QUEUE_ERROR_INDEX);
            }
            return VGPU_CMD_BLOCKED;
        }
        cmd->done++;
        *budget -= cost;
    }
    return VGPU_CMD_DONE;
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

VGPUCmdStatus vgpu_cmd_tile(VGPUState *s, VGPUQueue *q, int64_t *budget)
{
    VGPUCmd *cmd = &q->cmd;
    unsigned kind = VGPU_FIELD_GET(vgpu_cmd_flags(cmd), VGPU_TILE_FLAG_ACCESS);
    unsigned nkind = kind == VGPU_TOUCH_EXEC ? VGPU_TOUCH_EXEC
                                             : VGPU_TOUCH_READ;
    uint64_t slots = vgpu_tile_slots(cmd), lines = vgpu_tile_lines(cmd);
    uint64_t total = lines * slots * T_PASSES(cmd);

    while (cmd->done < total) {
        uint64_t k = cmd->done % slots, row, col, va;

        if (*budget <= 0) {
            return VGPU_CMD_YIELD;
        }
        vgpu_tile_line_at(cmd, cmd->done / slots % lines, &row, &col);
        if (vgpu_tile_slot_va(cmd, row, col, k, &va)) {
            if (!vgpu_touch_line(s, q, va, k == slots - 1 ? kind : nkind)) {
                return VGPU_CMD_BLOCKED;
            }
            *budget -= VGPU_TOUCH_COST;
        }
        cmd->done++;
    }
    return VGPU_CMD_DONE;
}

/* ------------------------------------------------------------ Common --- */

uint64_t vgpu_kernel_total(const VGPUCmd *cmd)
{
    if (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE) == VGPU_OP_TILE) {
        return vgpu_tile_lines(cmd) * vgpu_tile_slots(cmd) * T_PASSES(cmd);
    }
    return G_COUNT(cmd);
}

bool vgpu_kernel_args_ok(const VGPUCmd *cmd, const char **why)
{
    if (VGPU_FIELD_GET(cmd->header, VGPU_CMD_OPCODE) == VGPU_OP_TILE) {
        return vgpu_tile_args_ok(cmd, why);
    }
    return vgpu_gather_args_ok(cmd, why);
}
