/*
 * vgpu MMU: page-table walks, accessed/dirty bits, translation through the
 * TLBs, and device memory access through the two apertures.
 *
 * Page tables are four levels of 512 little-endian 64-bit entries (see
 * vgpu_hw.h).  A context's root descriptor and every directory entry name
 * the next table by aperture (VRAM offset or system DMA address) and
 * address, so tables may live in VRAM, in system memory, or both.  A leaf
 * is a level-0 PTE (4 KiB, or a 64 KiB fragment when FRAG64K is set), a
 * level-1 entry with LEAF (2 MiB) or a level-2 entry with LEAF (1 GiB).
 *
 * Every device write to VRAM (data, A/D bits, fault records) is logged
 * dirty through vgpu_vram_wptr(), so migration sees it.
 *
 * Every table read is checked: an unreadable table is a PT_DMA fault at the
 * level being read.  After a successful walk the device sets ACCESSED (and
 * DIRTY for a write) in the leaf it walked, before the access, like a CPU.
 * For a 64 KiB fragment that is the PTE of the 4 KiB page actually walked;
 * software ORs the sixteen.  A TLB entry whose permissions or dirty state
 * do not allow an access is dropped and the tables are walked again, so
 * adding permissions needs no invalidation while removing them does.
 *
 * In strict mode every TLB hit is checked against a side-effect-free walk;
 * a hit whose translation differs from the tables counts as a stale-TLB
 * use (the stale translation is still used, as the hardware would).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "vgpu-internal.h"
#include "trace.h"

/* The bits of a leaf that make up its translation (not A/D). */
#define VGPU_PTE_XLATE_BITS (VGPU_PTE_VALID | VGPU_PTE_READ | VGPU_PTE_WRITE | \
                             VGPU_PTE_EXEC | VGPU_PTE_SYSTEM)

typedef struct VGPUWalk {
    uint64_t pte;           /* the leaf */
    uint64_t pte_addr;      /* where the leaf lives */
    bool pte_system;
    uint8_t shift;
    uint8_t level;
} VGPUWalk;

static bool vgpu_vram_range_ok(VGPUState *s, uint64_t pa, uint64_t len)
{
    return pa < s->vram_size && len <= s->vram_size - pa;
}

/*
 * The host address of VRAM [pa, pa + len) for a device write.  Every
 * write the device makes to VRAM takes its pointer from here, which first
 * marks the range dirty in QEMU's memory API: the raw pointer bypasses
 * dirty logging, and live migration (or anything else logging VRAM) would
 * otherwise miss the write.  The caller checked the range.
 */
static void *vgpu_vram_wptr(VGPUState *s, uint64_t pa, uint64_t len)
{
    memory_region_set_dirty(&s->vram, pa, len);
    return s->vram_ptr + pa;
}

static void vgpu_access_count(VGPUState *s, uint64_t pa, uint64_t len)
{
    uint64_t c, last;

    if (!len) {
        return;
    }
    last = (pa + len - 1) >> s->chunk_shift;
    for (c = pa >> s->chunk_shift; c <= last; c++) {
        s->access_ctr[c]++;
    }
}

static bool vgpu_pt_read(VGPUState *s, bool system, uint64_t addr,
                         uint64_t *pte)
{
    MemTxResult r;

    if (!system) {
        if (!vgpu_vram_range_ok(s, addr, sizeof(*pte))) {
            return false;
        }
        *pte = ldq_le_p(s->vram_ptr + addr);
        return true;
    }
    r = ldq_le_pci_dma(PCI_DEVICE(s), addr, pte, MEMTXATTRS_UNSPECIFIED);
    trace_vgpu_dma("pt-read", addr, sizeof(*pte), r);
    return r == MEMTX_OK;
}

/*
 * Set ACCESSED/DIRTY in a leaf.  In VRAM this is an atomic OR; in system
 * memory a read-modify-write through PCI DMA.
 */
static bool vgpu_pt_set_bits(VGPUState *s, bool system, uint64_t addr,
                             uint64_t bits)
{
    uint64_t pte;
    MemTxResult r;

    if (!system) {
        if (!vgpu_vram_range_ok(s, addr, sizeof(pte))) {
            return false;
        }
        qatomic_or((uint64_t *)vgpu_vram_wptr(s, addr, sizeof(pte)),
                   cpu_to_le64(bits));
        return true;
    }
    r = ldq_le_pci_dma(PCI_DEVICE(s), addr, &pte, MEMTXATTRS_UNSPECIFIED);
    if (r == MEMTX_OK) {
        r = stq_le_pci_dma(PCI_DEVICE(s), addr, pte | bits,
                           MEMTXATTRS_UNSPECIFIED);
    }
    trace_vgpu_dma("pt-update", addr, sizeof(pte), r);
    return r == MEMTX_OK;
}

/*
 * PT_XCHG: store @val in the VRAM word at @addr and return the word it
 * replaced in *@old.  Atomic with the walks and A/D updates above: those
 * run under the BQL like this MMIO access, and both the A/D OR and this
 * exchange are single atomic host operations, so CPU stores through the
 * BAR window (which need no BQL) cannot tear either.  False, with memory
 * untouched, if @addr is not 8-byte aligned or not inside VRAM.
 */
bool vgpu_pt_xchg(VGPUState *s, uint64_t addr, uint64_t val, uint64_t *old)
{
    uint64_t *p;

    if (addr % sizeof(*p) || !vgpu_vram_range_ok(s, addr, sizeof(*p))) {
        return false;
    }
    p = vgpu_vram_wptr(s, addr, sizeof(*p));
    *old = le64_to_cpu(qatomic_xchg(p, cpu_to_le64(val)));
    trace_vgpu_pt_xchg(addr, val, *old);
    return true;
}

static bool vgpu_fail(VGPUFaultInfo *f, uint8_t reason, uint8_t level)
{
    f->reason = reason;
    f->level = level;
    return false;
}

/*
 * Walk the tables of @ctx for @va.  @count: account the walk in the
 * counters (false for strict-mode re-walks, which are invisible).
 */
static bool vgpu_walk(VGPUState *s, uint32_t ctx, uint64_t va, bool count,
                      VGPUWalk *w, VGPUFaultInfo *f)
{
    uint64_t desc = s->ctx_root[ctx];
    uint64_t table = vgpu_desc_addr(desc);
    bool system = vgpu_desc_system(desc);
    int level;

    if (count) {
        vgpu_count(s, ctx, VGPU_CTR_WALKS, 1);
    }
    if (!vgpu_desc_valid(desc)) {
        return vgpu_fail(f, VGPU_FAULT_NOT_PRESENT, VGPU_FAULT_LEVEL_ROOT);
    }
    for (level = VGPU_PT_LEVELS - 1; level >= 0; level--) {
        uint64_t addr = table + VGPU_PT_INDEX(va, level) * sizeof(uint64_t);
        uint64_t pte;
        bool leaf;

        if (count) {
            vgpu_count(s, ctx, VGPU_CTR_PT_READS, 1);
            if (system && s->cost_queue) {
                s->cost_queue->time.tally.pt_sys++;
            }
        }
        if (!vgpu_pt_read(s, system, addr, &pte)) {
            return vgpu_fail(f, VGPU_FAULT_PT_DMA, level);
        }
        if (count) {
            trace_vgpu_walk_level(ctx, va, level, system, addr, pte);
        }
        if (!(pte & VGPU_PTE_VALID)) {
            return vgpu_fail(f, VGPU_FAULT_NOT_PRESENT, level);
        }
        if (level == VGPU_PT_LEVELS - 1 && (pte & VGPU_PTE_LEAF)) {
            return vgpu_fail(f, VGPU_FAULT_BAD_ENTRY, level);
        }
        leaf = level == 0 || (pte & VGPU_PTE_LEAF);
        if (leaf) {
            w->pte = pte;
            w->pte_addr = addr;
            w->pte_system = system;
            w->level = level;
            if (level == 0) {
                w->shift = (pte & VGPU_PTE_FRAG64K) ? 16 : VGPU_PAGE_SHIFT;
            } else {
                w->shift = VGPU_PT_LEVEL_SHIFT(level);
            }
            return true;
        }
        table = pte & VGPU_PTE_ADDR_MASK;
        system = pte & VGPU_PTE_SYSTEM;
    }
    g_assert_not_reached();
}

static uint64_t vgpu_leaf_base(uint64_t pte, uint8_t shift)
{
    return pte & VGPU_PTE_ADDR_MASK & ~((1ull << shift) - 1);
}

/* Does @pte allow @access?  If not, say why in @reason. */
static bool vgpu_access_allowed(uint64_t pte, unsigned access,
                                uint8_t *reason)
{
    switch (access) {
    case VGPU_ACCESS_WRITE:
        *reason = VGPU_FAULT_WRITE_DENIED;
        return pte & VGPU_PTE_WRITE;
    case VGPU_ACCESS_EXEC:
        *reason = VGPU_FAULT_EXEC_DENIED;
        return pte & VGPU_PTE_EXEC;
    default:
        *reason = VGPU_FAULT_READ_DENIED;
        return pte & VGPU_PTE_READ;
    }
}

/* Can a cached leaf serve @access without a walk? */
static bool vgpu_tlb_usable(const VGPUTlbEntry *e, unsigned access)
{
    uint8_t reason;

    if (!vgpu_access_allowed(e->pte, access, &reason)) {
        return false;
    }
    return access != VGPU_ACCESS_WRITE || (e->pte & VGPU_PTE_DIRTY);
}

static void vgpu_strict_check(VGPUState *s, uint32_t ctx, uint64_t va,
                              VGPUTlbEntry *e)
{
    VGPUWalk w;
    VGPUFaultInfo f;
    bool stale;

    if (!vgpu_desc_valid(s->ctx_root[ctx])) {
        vgpu_count(s, ctx, VGPU_CTR_STRICT_BAD_CONTEXT, 1);
    }
    if (!vgpu_walk(s, ctx, va, false, &w, &f)) {
        stale = true;
    } else {
        stale = w.shift != e->shift ||
                ((w.pte ^ e->pte) & VGPU_PTE_XLATE_BITS) ||
                vgpu_leaf_base(w.pte, w.shift) != vgpu_leaf_base(e->pte,
                                                                 e->shift);
    }
    if (stale) {
        /* Counted unless an invalidation covering @e follows. */
        e->stale_hits++;
        trace_vgpu_strict_stale(ctx, va, e->pte);
    }
}

static void vgpu_xlate_fill(const VGPUTlbEntry *e, uint64_t va, VGPUXlate *x)
{
    uint64_t mask = (1ull << e->shift) - 1;

    x->pa = vgpu_leaf_base(e->pte, e->shift) | (va & mask);
    x->avail = (mask + 1) - (va & mask);
    x->system = e->pte & VGPU_PTE_SYSTEM;
    x->level = e->level;
}

/*
 * Translate @va for queue @q.  On failure fill @f with the fault reason
 * and level; the caller raises the fault.
 */
bool vgpu_mmu_translate(VGPUState *s, VGPUQueue *q, uint64_t va,
                        unsigned access, VGPUXlate *x, VGPUFaultInfo *f)
{
    uint32_t ctx = q->context;
    VGPUTlbEntry *e, ne;
    VGPUWalk w;
    uint64_t bits;
    uint8_t reason;

    if (va >> VGPU_VA_BITS) {
        return vgpu_fail(f, VGPU_FAULT_BAD_ADDRESS, VGPU_FAULT_LEVEL_ROOT);
    }

    e = vgpu_tlb_lookup(&q->l1, ctx, va);
    if (e) {
        vgpu_count(s, ctx, VGPU_CTR_L1_HIT, 1);
        if (vgpu_tlb_usable(e, access)) {
            goto hit;
        }
        vgpu_tlb_drop(&q->l1, e);
    } else {
        vgpu_count(s, ctx, VGPU_CTR_L1_MISS, 1);
        e = vgpu_tlb_lookup(&s->l2, ctx, va);
        if (e) {
            vgpu_count(s, ctx, VGPU_CTR_L2_HIT, 1);
            if (vgpu_tlb_usable(e, access)) {
                vgpu_tlb_insert(&q->l1, e);
                goto hit;
            }
            vgpu_tlb_drop(&s->l2, e);
        } else {
            vgpu_count(s, ctx, VGPU_CTR_L2_MISS, 1);
        }
    }

    if (!vgpu_walk(s, ctx, va, true, &w, f)) {
        return false;
    }
    if (!vgpu_access_allowed(w.pte, access, &reason)) {
        return vgpu_fail(f, reason, w.level);
    }
    bits = VGPU_PTE_ACCESSED;
    if (access == VGPU_ACCESS_WRITE) {
        bits |= VGPU_PTE_DIRTY;
    }
    if ((w.pte & bits) != bits) {
        if (!vgpu_pt_set_bits(s, w.pte_system, w.pte_addr, bits)) {
            return vgpu_fail(f, VGPU_FAULT_PT_DMA, w.level);
        }
        w.pte |= bits;
    }
    ne = (VGPUTlbEntry) {
        .tag = va >> w.shift,
        .pte = w.pte,
        .ctx = ctx,
        .shift = w.shift,
        .level = w.level,
    };
    vgpu_tlb_insert(&s->l2, &ne);
    vgpu_tlb_insert(&q->l1, &ne);
    vgpu_xlate_fill(&ne, va, x);
    return true;

hit:
    if (s->strict) {
        vgpu_strict_check(s, ctx, va, e);
    }
    vgpu_xlate_fill(e, va, x);
    return true;
}

/* ----------------------------------------------------------- Access --- */

static void vgpu_count_bytes(VGPUState *s, uint32_t ctx, bool system,
                             bool write, uint64_t len)
{
    static const unsigned ctr[2][2] = {
        { VGPU_CTR_VRAM_READ_BYTES, VGPU_CTR_VRAM_WRITE_BYTES },
        { VGPU_CTR_SYS_READ_BYTES, VGPU_CTR_SYS_WRITE_BYTES },
    };

    vgpu_count(s, ctx, ctr[system][write], len);
}

bool vgpu_mem_read(VGPUState *s, uint32_t ctx, const VGPUXlate *x,
                   void *buf, uint64_t len)
{
    MemTxResult r;

    if (!x->system) {
        if (!vgpu_vram_range_ok(s, x->pa, len)) {
            return false;
        }
        memcpy(buf, s->vram_ptr + x->pa, len);
        vgpu_access_count(s, x->pa, len);
    } else {
        r = pci_dma_read(PCI_DEVICE(s), x->pa, buf, len);
        trace_vgpu_dma("read", x->pa, len, r);
        if (r != MEMTX_OK) {
            return false;
        }
    }
    vgpu_count_bytes(s, ctx, x->system, false, len);
    return true;
}

bool vgpu_mem_write(VGPUState *s, uint32_t ctx, const VGPUXlate *x,
                    const void *buf, uint64_t len)
{
    MemTxResult r;

    if (!x->system) {
        if (!vgpu_vram_range_ok(s, x->pa, len)) {
            return false;
        }
        memcpy(vgpu_vram_wptr(s, x->pa, len), buf, len);
        vgpu_access_count(s, x->pa, len);
    } else {
        r = pci_dma_write(PCI_DEVICE(s), x->pa, buf, len);
        trace_vgpu_dma("write", x->pa, len, r);
        if (r != MEMTX_OK) {
            return false;
        }
    }
    vgpu_count_bytes(s, ctx, x->system, true, len);
    return true;
}

/*
 * Copy @len bytes (within one page on both sides).  On failure
 * *dst_failed says which side could not be accessed.
 */
bool vgpu_mem_copy(VGPUState *s, uint32_t ctx, const VGPUXlate *dst,
                   const VGPUXlate *src, uint64_t len, bool *dst_failed)
{
    uint64_t off, n;

    *dst_failed = false;
    if (!src->system && !vgpu_vram_range_ok(s, src->pa, len)) {
        return false;
    }
    *dst_failed = true;
    if (!dst->system && !vgpu_vram_range_ok(s, dst->pa, len)) {
        return false;
    }
    if (!src->system) {
        if (!dst->system) {
            memmove(vgpu_vram_wptr(s, dst->pa, len), s->vram_ptr + src->pa,
                    len);
            vgpu_access_count(s, dst->pa, len);
            vgpu_count_bytes(s, ctx, false, true, len);
        } else if (!vgpu_mem_write(s, ctx, dst, s->vram_ptr + src->pa, len)) {
            return false;
        }
        vgpu_access_count(s, src->pa, len);
        vgpu_count_bytes(s, ctx, false, false, len);
        return true;
    }
    if (!dst->system) {
        *dst_failed = false;
        if (!vgpu_mem_read(s, ctx, src, vgpu_vram_wptr(s, dst->pa, len),
                           len)) {
            return false;
        }
        vgpu_access_count(s, dst->pa, len);
        vgpu_count_bytes(s, ctx, false, true, len);
        return true;
    }
    for (off = 0; off < len; off += n) {
        VGPUXlate xs = *src, xd = *dst;

        n = MIN(len - off, VGPU_BOUNCE_SIZE);
        xs.pa += off;
        xd.pa += off;
        *dst_failed = false;
        if (!vgpu_mem_read(s, ctx, &xs, s->bounce, n)) {
            return false;
        }
        *dst_failed = true;
        if (!vgpu_mem_write(s, ctx, &xd, s->bounce, n)) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------- Descriptor-addressed memory --- */

static bool vgpu_phys_rw(VGPUState *s, uint64_t desc, uint64_t off,
                         void *buf, uint64_t len, bool write)
{
    uint64_t addr = vgpu_desc_addr(desc) + off;
    MemTxResult r;

    if (!vgpu_desc_system(desc)) {
        if (!vgpu_vram_range_ok(s, addr, len)) {
            return false;
        }
        if (write) {
            memcpy(vgpu_vram_wptr(s, addr, len), buf, len);
        } else {
            memcpy(buf, s->vram_ptr + addr, len);
        }
        return true;
    }
    r = pci_dma_rw(PCI_DEVICE(s), addr, buf, len,
                   write ? DMA_DIRECTION_FROM_DEVICE : DMA_DIRECTION_TO_DEVICE,
                   MEMTXATTRS_UNSPECIFIED);
    trace_vgpu_dma(write ? "desc-write" : "desc-read", addr, len, r);
    return r == MEMTX_OK;
}

/* Read from the memory a descriptor (ring, fault buffer) names. */
bool vgpu_phys_read(VGPUState *s, uint64_t desc, uint64_t off,
                    void *buf, uint64_t len)
{
    return vgpu_phys_rw(s, desc, off, buf, len, false);
}

bool vgpu_phys_write(VGPUState *s, uint64_t desc, uint64_t off,
                     const void *buf, uint64_t len)
{
    return vgpu_phys_rw(s, desc, off, (void *)buf, len, true);
}
