/*
 * vgpu TLBs: one L1 per queue and a shared L2, set-associative, tagged by
 * context, and the asynchronous invalidation engine.
 *
 * An entry caches one leaf (4 KiB, a 64 KiB fragment, 2 MiB or 1 GiB) as
 * the walk found it.  Nothing but an invalidation request or a device reset
 * removes an entry for a change in the page tables: a driver that rewrites
 * a PTE and does not invalidate keeps reading through the old translation,
 * exactly as it would on real hardware.
 *
 * Lookup probes one set per leaf size (the set index is a hash of the
 * context and the VA bits above that size), skipping sizes the TLB holds
 * no entry of.  Replacement is least-recently-used within a set.
 *
 * Invalidation requests (all, context, range) are queued by an MMIO write
 * to INVAL_CMD and carried out later by the scheduler bottom half, in
 * order, between queue time slices; each completed request advances
 * INVAL_DONE_SEQNO and raises INT_INVAL_DONE.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "vgpu-internal.h"
#include "trace.h"

const uint8_t vgpu_leaf_shifts[VGPU_TLB_NR_SIZES] = { 12, 16, 21, 30 };

static int vgpu_size_index(uint8_t shift)
{
    int i;

    for (i = 0; i < VGPU_TLB_NR_SIZES; i++) {
        if (vgpu_leaf_shifts[i] == shift) {
            return i;
        }
    }
    g_assert_not_reached();
}

bool vgpu_tlb_init(VGPUTlb *tlb, VGPUState *s, uint32_t sets, uint32_t ways,
                   Error **errp)
{
    tlb->s = s;
    if (!sets || !is_power_of_2(sets) || sets > 32768) {
        error_setg(errp, "vgpu: TLB sets must be a power of two, 1..32768 "
                   "(got %u)", sets);
        return false;
    }
    if (!ways || ways > 64) {
        error_setg(errp, "vgpu: TLB ways must be 1..64 (got %u)", ways);
        return false;
    }
    tlb->sets = sets;
    tlb->set_bits = ctz32(sets);
    tlb->ways = ways;
    tlb->entries = g_new0(VGPUTlbEntry, (size_t)sets * ways);
    vgpu_tlb_flush(tlb);
    return true;
}

void vgpu_tlb_free(VGPUTlb *tlb)
{
    g_free(tlb->entries);
    tlb->entries = NULL;
}

void vgpu_tlb_flush(VGPUTlb *tlb)
{
    memset(tlb->entries, 0, sizeof(VGPUTlbEntry) * tlb->sets * tlb->ways);
    memset(tlb->nr_by_size, 0, sizeof(tlb->nr_by_size));
    tlb->clock = 0;
}

/*
 * The set of a leaf: its page number folded onto the set index (every
 * set_bits-wide slice XORed in) and its context.  Pages a power-of-two
 * stride apart (a kernel's lanes 2 MiB apart over 64 KiB pages) spread
 * over the sets instead of piling into one, and an aligned run of
 * consecutive pages still fills every set once.
 */
static VGPUTlbEntry *vgpu_tlb_set(VGPUTlb *tlb, uint32_t ctx, uint64_t tag)
{
    uint64_t h = (uint64_t)ctx * 0x9e3779b1u;

    if (tlb->set_bits) {
        for (; tag; tag >>= tlb->set_bits) {
            h ^= tag;
        }
    }
    return &tlb->entries[(h & (tlb->sets - 1)) * tlb->ways];
}

VGPUTlbEntry *vgpu_tlb_lookup(VGPUTlb *tlb, uint32_t ctx, uint64_t va)
{
    int i;
    uint32_t w;

    for (i = 0; i < VGPU_TLB_NR_SIZES; i++) {
        uint8_t shift = vgpu_leaf_shifts[i];
        uint64_t tag = va >> shift;
        VGPUTlbEntry *set;

        if (!tlb->nr_by_size[i]) {
            continue;
        }
        set = vgpu_tlb_set(tlb, ctx, tag);
        for (w = 0; w < tlb->ways; w++) {
            VGPUTlbEntry *e = &set[w];

            if (e->shift == shift && e->ctx == ctx && e->tag == tag) {
                e->lru = ++tlb->clock;
                return e;
            }
        }
    }
    return NULL;
}

/*
 * Drop @e.  Its stale hits (strict mode) wait, with its VA range, for an
 * invalidation that covers them: the driver may not have asked yet (it
 * writes the tables, then invalidates, and the device may drop the entry
 * in between).  With no room to wait they are confirmed at once.
 */
void vgpu_tlb_drop(VGPUTlb *tlb, VGPUTlbEntry *e)
{
    VGPUState *s = tlb->s;

    if (e->stale_hits && s->nr_stale_gone < VGPU_STALE_GONE) {
        s->stale_gone[s->nr_stale_gone++] = (VGPUStaleGone) {
            .start = e->tag << e->shift, .end = (e->tag + 1) << e->shift,
            .ctx = e->ctx, .hits = e->stale_hits,
        };
    } else if (e->stale_hits) {
        vgpu_count(s, e->ctx, VGPU_CTR_STRICT_STALE, e->stale_hits);
    }
    e->stale_hits = 0;
    if (e->shift) {
        tlb->nr_by_size[vgpu_size_index(e->shift)]--;
        e->shift = 0;
    }
}

void vgpu_tlb_insert(VGPUTlb *tlb, const VGPUTlbEntry *ne)
{
    VGPUTlbEntry *set = vgpu_tlb_set(tlb, ne->ctx, ne->tag);
    VGPUTlbEntry *victim = NULL;
    uint32_t w;

    for (w = 0; w < tlb->ways; w++) {
        VGPUTlbEntry *e = &set[w];

        if (e->shift == ne->shift && e->ctx == ne->ctx && e->tag == ne->tag) {
            victim = e;             /* refill of the same page */
            break;
        }
        if (!victim || (victim->shift && (!e->shift || e->lru < victim->lru))) {
            victim = e;
        }
    }
    vgpu_tlb_drop(tlb, victim);
    *victim = *ne;
    victim->stale_hits = 0;
    victim->lru = ++tlb->clock;
    tlb->nr_by_size[vgpu_size_index(ne->shift)]++;
}

/* Does invalidation @op (@ctx, [@va, @va + @size)) cover [@start, @last)? */
static bool vgpu_inval_covers(unsigned op, uint32_t ctx, uint64_t va,
                              uint64_t size, uint32_t e_ctx, uint64_t start,
                              uint64_t last)
{
    uint64_t end = va + size < va ? UINT64_MAX : va + size;

    switch (op) {
    case VGPU_INVAL_OP_CONTEXT:
        return e_ctx == ctx;
    case VGPU_INVAL_OP_RANGE:
        return e_ctx == ctx && size && start < end && last > va;
    default:
        return true;
    }
}

/* Strict mode: forgive the stale hits of gone entries a request covers. */
static void vgpu_stale_gone_forgive(VGPUState *s, unsigned op, uint32_t ctx,
                                    uint64_t va, uint64_t size)
{
    uint32_t i, n = 0;

    for (i = 0; i < s->nr_stale_gone; i++) {
        VGPUStaleGone *g = &s->stale_gone[i];

        if (!vgpu_inval_covers(op, ctx, va, size, g->ctx, g->start, g->end)) {
            s->stale_gone[n++] = *g;
        }
    }
    s->nr_stale_gone = n;
}

/* Drop the entries a request covers; returns how many were dropped. */
static uint32_t vgpu_tlb_invalidate(VGPUTlb *tlb, unsigned op, uint32_t ctx,
                                    uint64_t va, uint64_t size)
{
    uint32_t i, n = 0;

    for (i = 0; i < tlb->sets * tlb->ways; i++) {
        VGPUTlbEntry *e = &tlb->entries[i];
        uint64_t start = e->tag << e->shift;

        if (!e->shift ||
            !vgpu_inval_covers(op, ctx, va, size, e->ctx, start,
                               start + (1ull << e->shift))) {
            continue;
        }
        e->stale_hits = 0;      /* the driver invalidated: forgiven */
        vgpu_tlb_drop(tlb, e);
        n++;
    }
    return n;
}

/*
 * Strict mode: stale hits of the entries in the TLBs, of context @ctx
 * (UINT32_MAX: every context), which no invalidation has forgiven yet;
 * with @clear, forget them.
 */
static uint64_t vgpu_tlb_stale_walk(VGPUState *s, uint32_t ctx, bool clear)
{
    VGPUTlb *tlbs[VGPU_NUM_QUEUES + 1];
    uint64_t n = 0;
    uint32_t i, j;

    tlbs[0] = &s->l2;
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        tlbs[i + 1] = &s->queue[i].l1;
    }
    for (i = 0; i < ARRAY_SIZE(tlbs); i++) {
        VGPUTlb *tlb = tlbs[i];

        for (j = 0; tlb->entries && j < tlb->sets * tlb->ways; j++) {
            VGPUTlbEntry *e = &tlb->entries[j];

            if (e->shift && (ctx == UINT32_MAX || e->ctx == ctx)) {
                n += e->stale_hits;
                if (clear) {
                    e->stale_hits = 0;
                }
            }
        }
    }
    for (i = 0; i < s->nr_stale_gone; i++) {
        if (ctx == UINT32_MAX || s->stale_gone[i].ctx == ctx) {
            n += s->stale_gone[i].hits;
        }
    }
    if (clear) {
        s->nr_stale_gone = 0;
    }
    return n;
}

uint64_t vgpu_tlb_pending_stale(VGPUState *s, uint32_t ctx)
{
    return vgpu_tlb_stale_walk(s, ctx, false);
}

void vgpu_tlb_forget_stale(VGPUState *s)
{
    vgpu_tlb_stale_walk(s, UINT32_MAX, true);
}

void vgpu_tlb_flush_all(VGPUState *s)
{
    int i;

    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        vgpu_tlb_flush(&s->queue[i].l1);
    }
    vgpu_tlb_flush(&s->l2);
}

/*
 * INVAL_CMD: accept a request.  Returns false when the request queue is
 * full; the caller reports that in STATUS.
 */
bool vgpu_inval_submit(VGPUState *s, uint32_t cmd)
{
    VGPUInval *req;

    if (s->inval_req_seqno - s->inval_done_seqno >= VGPU_INVAL_QUEUE_DEPTH) {
        return false;
    }
    req = &s->inval_fifo[s->inval_req_seqno % VGPU_INVAL_QUEUE_DEPTH];
    req->cmd = cmd;
    req->va = s->inval_va;
    req->size = s->inval_size;
    s->inval_req_seqno++;
    trace_vgpu_inval_submit(s->inval_req_seqno,
                            VGPU_FIELD_GET(cmd, VGPU_INVAL_CMD_OP),
                            VGPU_FIELD_GET(cmd, VGPU_INVAL_CMD_CTX),
                            req->va, req->size);
    return true;
}

/* Carry out every accepted request.  Returns true if any completed. */
bool vgpu_inval_process(VGPUState *s)
{
    bool any = false;

    while (s->inval_done_seqno != s->inval_req_seqno) {
        VGPUInval *req =
            &s->inval_fifo[s->inval_done_seqno % VGPU_INVAL_QUEUE_DEPTH];
        unsigned op = VGPU_FIELD_GET(req->cmd, VGPU_INVAL_CMD_OP);
        uint32_t ctx = VGPU_FIELD_GET(req->cmd, VGPU_INVAL_CMD_CTX);
        uint32_t n;
        int i;

        vgpu_stale_gone_forgive(s, op, ctx, req->va, req->size);
        n = vgpu_tlb_invalidate(&s->l2, op, ctx, req->va, req->size);
        for (i = 0; i < VGPU_NUM_QUEUES; i++) {
            n += vgpu_tlb_invalidate(&s->queue[i].l1, op, ctx, req->va,
                                     req->size);
        }
        s->inval_done_seqno++;
        vgpu_count(s, op == VGPU_INVAL_OP_ALL ? UINT32_MAX : ctx,
                   VGPU_CTR_INVALIDATIONS, 1);
        trace_vgpu_inval_done(s->inval_done_seqno, n);
        any = true;
    }
    if (any) {
        vgpu_irq_raise(s, VGPU_INT_INVAL_DONE);
    }
    return any;
}

/*
 * Check the request queue migration loaded: no more requests pending
 * than it holds (vgpu_inval_process() runs every pending one), and only
 * requests INVAL_CMD would have accepted.
 */
bool vgpu_inval_load_check(VGPUState *s, Error **errp)
{
    uint32_t pending = s->inval_req_seqno - s->inval_done_seqno;
    int i;

    if (pending > VGPU_INVAL_QUEUE_DEPTH) {
        error_setg(errp, "%u invalidation requests pending, at most %u",
                   pending, VGPU_INVAL_QUEUE_DEPTH);
        return false;
    }
    for (i = 0; i < VGPU_INVAL_QUEUE_DEPTH; i++) {
        uint32_t cmd = s->inval_fifo[i].cmd;

        if (VGPU_FIELD_GET(cmd, VGPU_INVAL_CMD_OP) > VGPU_INVAL_OP_RANGE ||
            VGPU_FIELD_GET(cmd, VGPU_INVAL_CMD_CTX) >= VGPU_NUM_CONTEXTS) {
            error_setg(errp, "invalidation request %d: command 0x%x refused "
                       "by INVAL_CMD", i, cmd);
            return false;
        }
    }
    return true;
}
