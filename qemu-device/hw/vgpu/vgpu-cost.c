/*
 * vgpu cost model: the modeled time of commands and of fault stalls.
 *
 * The device runs at host memory speed, so wall time says nothing about a
 * GPU.  Instead each queue keeps a clock in modeled ns (QTIME_CLOCK, what
 * TIMESTAMP writes): a command completed adds its cost, a stall answered by
 * REPLAY or CANCEL adds the time the queue waited.  The same amounts go to
 * the MODELED_NS counter of the queue's context (and the global bank), the
 * stall part also to STALL_NS.  Nothing here reads the wall clock, except
 * pacing.
 *
 * A command's cost, from what it did (VGPUCostTally, gathered by
 * vgpu_count() while its queue runs), plus for COMPUTE its argument:
 *
 *   cmd
 *   + max(vram_bytes * 1000 / vram_bw, link_bytes * 1000 / link_bw)
 *   + link_lat                         if it moved any byte over the link
 *   + l1_misses * tlb_miss
 *   + table entries read in VRAM * walk_level
 *   + table entries read in system memory * link_lat
 *
 * in ns (integer division once per command, so the cost does not depend on
 * how the command was cut into pieces or time slices).  VRAM and the link
 * work in parallel; walk steps are dependent reads and add up.
 *
 * A stall lasts from the fault to the REPLAY (or CANCEL): the queue waits
 * fault ns of fault service plus the modeled cost of every command the
 * device completed on the other queues meanwhile, which is where the
 * driver's migration copies run (work_ns counts the cost of every command
 * completed; the stall takes its difference).  Both are exact and do not
 * depend on how long the driver or the host took.
 *
 * A WAIT that another queue's FENCE satisfies moves its queue's clock up
 * to the writer's clock at that FENCE (vgpu_cost_wait_done()), from the
 * last VGPU_SIGNALS FENCE writes the device remembers.
 *
 * Pacing (dilation > 0): a queue starts its next command only once
 * the device clock (QEMU_CLOCK_VIRTUAL) has gone (clock - anchor) *
 * dilation past the anchor, the device clock and queue clock when the
 * queue last started running (doorbell, ENABLE, REPLAY, end of a WAIT).
 * So a FENCE signals no earlier than the modeled time of the work before
 * it, dilated; a host slower than that is not made any slower.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "vgpu-internal.h"
#include "trace.h"

#define VGPU_COST_BW_MAX        100000000u      /* 100 TB/s */
#define VGPU_COST_NS_MAX        1000000000u     /* 1 s */
#define VGPU_COST_DILATION_MAX  1000000u

/*
 * The presets.  Sources in Documentation/gpu/vgpu/hardware.rst, "Cost
 * model": link rates from the PCIe specifications (x16, one direction,
 * after line coding) and NVIDIA's NVLink-C2C figure, VRAM bandwidth of a
 * GPU of each link's generation (V100, A100, H100 PCIe; GH200).
 */
static const struct {
    const char *name;
    VGPUCostModel m;
} vgpu_cost_presets[] = {
    [VGPU_LINK_PCIE3] = { "pcie3", {
        .vram_bw = 900000, .link_bw = 15754, .link_lat = 1000,
        .tlb_miss = 100, .walk_level = 300, .fault = 20000, .cmd = 1000 } },
    [VGPU_LINK_PCIE4] = { "pcie4", {
        .vram_bw = 1555000, .link_bw = 31508, .link_lat = 1000,
        .tlb_miss = 100, .walk_level = 300, .fault = 20000, .cmd = 1000 } },
    [VGPU_LINK_PCIE5] = { "pcie5", {
        .vram_bw = 2000000, .link_bw = 63015, .link_lat = 1000,
        .tlb_miss = 100, .walk_level = 300, .fault = 20000, .cmd = 1000 } },
    [VGPU_LINK_C2C] = { "c2c", {
        .vram_bw = 4000000, .link_bw = 450000, .link_lat = 500,
        .tlb_miss = 100, .walk_level = 300, .fault = 20000, .cmd = 1000 } },
};

/* The parameters as properties: name, field, largest value, unit. */
static const struct {
    const char *prop;
    size_t off;
    uint32_t max;
    const char *unit;
} vgpu_cost_params[] = {
    { "vram_bw", offsetof(VGPUCostModel, vram_bw), VGPU_COST_BW_MAX, "MB/s" },
    { "link_bw", offsetof(VGPUCostModel, link_bw), VGPU_COST_BW_MAX, "MB/s" },
    { "link_lat", offsetof(VGPUCostModel, link_lat), VGPU_COST_NS_MAX, "ns" },
    { "tlb_miss", offsetof(VGPUCostModel, tlb_miss), VGPU_COST_NS_MAX, "ns" },
    { "walk_level", offsetof(VGPUCostModel, walk_level), VGPU_COST_NS_MAX,
      "ns" },
    { "fault_cost", offsetof(VGPUCostModel, fault), VGPU_COST_NS_MAX, "ns" },
    { "cmd_cost", offsetof(VGPUCostModel, cmd), VGPU_COST_NS_MAX, "ns" },
};

static uint32_t *vgpu_cost_field(VGPUCostModel *m, size_t off)
{
    return (uint32_t *)((char *)m + off);
}

/* Make the model from the link preset and the overrides; false: @errp. */
bool vgpu_cost_realize(VGPUState *s, Error **errp)
{
    const char *link = s->link ? s->link : "pcie4";
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(vgpu_cost_presets); i++) {
        if (!strcmp(link, vgpu_cost_presets[i].name)) {
            break;
        }
    }
    if (i == ARRAY_SIZE(vgpu_cost_presets)) {
        error_setg(errp, "vgpu: link '%s' is not a preset: it must be "
                   "pcie3, pcie4, pcie5 or c2c", link);
        return false;
    }
    s->cost = vgpu_cost_presets[i].m;
    s->cost.link = i;
    for (i = 0; i < ARRAY_SIZE(vgpu_cost_params); i++) {
        uint32_t v = *vgpu_cost_field(&s->cost_prop, vgpu_cost_params[i].off);

        if (v == VGPU_COST_UNSET) {
            continue;
        }
        if (!v || v > vgpu_cost_params[i].max) {
            error_setg(errp, "vgpu: %s %u is invalid: it must be between 1 "
                       "and %u %s", vgpu_cost_params[i].prop, v,
                       vgpu_cost_params[i].max, vgpu_cost_params[i].unit);
            return false;
        }
        *vgpu_cost_field(&s->cost, vgpu_cost_params[i].off) = v;
    }
    if (s->cost_prop.dilation > VGPU_COST_DILATION_MAX) {
        error_setg(errp, "vgpu: dilation %u is invalid: it must be at most "
                   "%u (0: no pacing)", s->cost_prop.dilation,
                   VGPU_COST_DILATION_MAX);
        return false;
    }
    s->cost.dilation = s->cost_prop.dilation;
    return true;
}

/* A device counter moved by @n while s->cost_queue ran: note its cost. */
void vgpu_cost_tally(VGPUState *s, unsigned ctr, uint64_t n)
{
    VGPUCostTally *t = &s->cost_queue->time.tally;

    switch (ctr) {
    case VGPU_CTR_VRAM_READ_BYTES:
    case VGPU_CTR_VRAM_WRITE_BYTES:
        t->vram_bytes += n;
        break;
    case VGPU_CTR_SYS_READ_BYTES:
    case VGPU_CTR_SYS_WRITE_BYTES:
        t->link_bytes += n;
        break;
    case VGPU_CTR_L1_MISS:
        t->l1_misses += n;
        break;
    case VGPU_CTR_PT_READS:
        t->pt_reads += n;
        break;
    default:
        break;
    }
}

static uint64_t vgpu_cost_of(const VGPUCostModel *m, const VGPUCostTally *t)
{
    uint64_t vram = muldiv64(t->vram_bytes, 1000, m->vram_bw);
    uint64_t link = muldiv64(t->link_bytes, 1000, m->link_bw);

    return m->cmd + MAX(vram, link) + (t->link_bytes ? m->link_lat : 0) +
           t->l1_misses * m->tlb_miss +
           (t->pt_reads - t->pt_sys) * m->walk_level +
           t->pt_sys * m->link_lat;
}

/* Add @ns to queue @q's clock and its context's MODELED_NS. */
static void vgpu_cost_charge(VGPUState *s, VGPUQueue *q, uint64_t ns)
{
    q->time.clock += ns;
    vgpu_count(s, q->context, VGPU_CTR_MODELED_NS, ns);
}

/*
 * COMPUTE on @q: @ns of modeled work that touches no memory, charged as
 * the command's own cost is (the command overhead comes on top).
 */
void vgpu_cost_compute(VGPUState *s, VGPUQueue *q, uint32_t ns)
{
    trace_vgpu_cost_compute(vgpu_queue_index(s, q), ns);
    s->work_ns += ns;
    vgpu_cost_charge(s, q, ns);
}

/* The command in flight on @q completed (or was cancelled): charge it. */
void vgpu_cost_cmd_done(VGPUState *s, VGPUQueue *q)
{
    VGPUCostTally *t = &q->time.tally;
    uint64_t ns = vgpu_cost_of(&s->cost, t);

    trace_vgpu_cost_cmd(vgpu_queue_index(s, q), q->cmd.header, t->vram_bytes,
                        t->link_bytes, t->l1_misses, t->pt_reads, ns);
    s->work_ns += ns;
    vgpu_cost_charge(s, q, ns);
    memset(t, 0, sizeof(*t));
}

/*
 * Queue @q's clock once the command in flight completes: what a FENCE with
 * FENCE_FLAG_CLOCK writes, so that the clocks of a ring's FENCEs split its
 * time exactly between the jobs they end.
 */
uint64_t vgpu_cost_clock_done(VGPUState *s, VGPUQueue *q)
{
    return q->time.clock + vgpu_cost_of(&s->cost, &q->time.tally);
}

void vgpu_cost_stall_begin(VGPUState *s, VGPUQueue *q)
{
    q->time.stall_mark = s->work_ns;
}

/* REPLAY or CANCEL of stalled queue @q: charge the wait. */
void vgpu_cost_stall_end(VGPUState *s, VGPUQueue *q)
{
    uint64_t meanwhile = s->work_ns - q->time.stall_mark;
    uint64_t ns = s->cost.fault + meanwhile;

    trace_vgpu_cost_stall(vgpu_queue_index(s, q), meanwhile, ns);
    q->time.stall += ns;
    vgpu_count(s, q->context, VGPU_CTR_STALL_NS, ns);
    vgpu_cost_charge(s, q, ns);
}

/* A FENCE of queue @q wrote @value at @va: remember when, for WAITs. */
void vgpu_cost_signal(VGPUState *s, VGPUQueue *q, uint64_t va,
                      uint64_t value)
{
    s->signal[s->signal_next] = (VGPUSignal) {
        .va = va, .value = value, .clock = q->time.clock,
        .ctx = q->context, .valid = true,
    };
    s->signal_next = (s->signal_next + 1) % VGPU_SIGNALS;
}

/*
 * A WAIT of queue @q for @target at @va is satisfied: the queue waited
 * until the earliest remembered FENCE of its context that wrote a value
 * >= @target there; its clock moves up to that writer's clock.  A value
 * from anywhere else (the CPU, a FENCE forgotten) moves nothing.
 */
void vgpu_cost_wait_done(VGPUState *s, VGPUQueue *q, uint64_t va,
                         uint64_t target)
{
    uint64_t at = UINT64_MAX;
    int i;

    for (i = 0; i < VGPU_SIGNALS; i++) {
        VGPUSignal *w = &s->signal[i];

        if (w->valid && w->ctx == q->context && w->va == va &&
            w->value >= target) {
            at = MIN(at, w->clock);
        }
    }
    if (at == UINT64_MAX || at <= q->time.clock) {
        return;
    }
    trace_vgpu_cost_wait(vgpu_queue_index(s, q), at - q->time.clock);
    vgpu_cost_charge(s, q, at - q->time.clock);
}

/* Queue @q starts running: pacing counts from here. */
void vgpu_cost_anchor(VGPUState *s, VGPUQueue *q)
{
    q->time.pace_wall = vgpu_now_ns();
    q->time.pace_clock = q->time.clock;
}

/*
 * With pacing on, the device clock before which queue @q may not start
 * its next command; 0 if it may now.
 */
int64_t vgpu_cost_pace_until(VGPUState *s, VGPUQueue *q)
{
    uint64_t ahead;
    int64_t until;

    if (!s->cost.dilation) {
        return 0;
    }
    ahead = q->time.clock - q->time.pace_clock;
    if (ahead > (uint64_t)(INT64_MAX - q->time.pace_wall) / s->cost.dilation) {
        until = INT64_MAX;
    } else {
        until = q->time.pace_wall + ahead * s->cost.dilation;
    }
    return until > vgpu_now_ns() ? until : 0;
}

/* The COST_* registers. */
bool vgpu_cost_reg_read(VGPUState *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case VGPU_REG_COST_LINK:
        *val = s->cost.link;
        return true;
    case VGPU_REG_COST_VRAM_BW:
        *val = s->cost.vram_bw;
        return true;
    case VGPU_REG_COST_LINK_BW:
        *val = s->cost.link_bw;
        return true;
    case VGPU_REG_COST_LINK_LAT:
        *val = s->cost.link_lat;
        return true;
    case VGPU_REG_COST_TLB_MISS:
        *val = s->cost.tlb_miss;
        return true;
    case VGPU_REG_COST_WALK_LEVEL:
        *val = s->cost.walk_level;
        return true;
    case VGPU_REG_COST_FAULT:
        *val = s->cost.fault;
        return true;
    case VGPU_REG_COST_CMD:
        *val = s->cost.cmd;
        return true;
    case VGPU_REG_COST_DILATION:
        *val = s->cost.dilation;
        return true;
    }
    return false;
}

/* The QTIME_* registers (64-bit, at their _LO). */
bool vgpu_cost_reg64_read(VGPUState *s, hwaddr addr, uint64_t *val)
{
    VGPUQueue *q;

    if (addr < VGPU_QTIME_BASE ||
        addr >= VGPU_QTIME_BASE + VGPU_NUM_QUEUES * VGPU_QTIME_STRIDE) {
        return false;
    }
    q = &s->queue[(addr - VGPU_QTIME_BASE) / VGPU_QTIME_STRIDE];
    switch ((addr - VGPU_QTIME_BASE) % VGPU_QTIME_STRIDE) {
    case VGPU_QTIME_CLOCK_LO:
        *val = q->time.clock;
        return true;
    case VGPU_QTIME_STALL_LO:
        *val = q->time.stall;
        return true;
    }
    return false;
}

/* The modeled time of queue @q as migration loaded it. */
bool vgpu_cost_load_check(VGPUState *s, VGPUQueue *q, Error **errp)
{
    if (q->state == VGPU_QUEUE_STATE_STALLED &&
        q->time.stall_mark > s->work_ns) {
        error_setg(errp, "queue %u stalled at modeled work %" PRIu64
                   " ns, after the device's %" PRIu64 " ns",
                   vgpu_queue_index(s, q), q->time.stall_mark, s->work_ns);
        return false;
    }
    if (q->time.stall > q->time.clock ||
        q->time.tally.pt_sys > q->time.tally.pt_reads) {
        error_setg(errp, "queue %u modeled time inconsistent",
                   vgpu_queue_index(s, q));
        return false;
    }
    /* Pacing starts again from the load. */
    vgpu_cost_anchor(s, q);
    return true;
}
