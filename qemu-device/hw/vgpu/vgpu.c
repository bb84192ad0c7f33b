/*
 * vgpu: a virtual PCIe GPU with VRAM, an MMU and hardware queues.
 *
 * Device core: PCI identity, BARs, the register file, interrupts, reset and
 * migration.  The hardware contract (offsets, fields, formats) is
 * include/hw/vgpu/vgpu_hw.h, shared with the Linux driver; its prose is
 * Documentation/gpu/vgpu/hardware.rst.
 *
 *   BAR0  64 KiB of registers
 *   BAR2  the CPU window into VRAM (64-bit, prefetchable): an alias of
 *         visible_size bytes of VRAM starting at VISIBLE_BASE
 *   BAR4  MSI-X table and PBA: vector 0 general, vector 1 faults
 *
 * Registers are 32 bits.  A 64-bit register is a _LO/_HI pair: a write to
 * _LO is held until _HI is written, then both take effect at once; a read
 * of _LO snapshots _HI, so _LO-then-_HI reads are consistent.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "vgpu-internal.h"
#include "trace.h"

#define VGPU_PCIE_CAP_OFFSET    0x80
#define VGPU_VRAM_MIN           (16 * MiB)
#define VGPU_VRAM_MAX           (16 * GiB)
#define VGPU_SIZE_GRANULE       MiB

uint64_t vgpu_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* ---------------------------------------------------------- Interrupts --- */

static void vgpu_irq_update(VGPUState *s, uint32_t new_causes)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (msix_enabled(pdev)) {
        pci_set_irq(pdev, 0);
        if (new_causes & VGPU_INT_GENERAL_MASK) {
            msix_notify(pdev, VGPU_MSIX_VEC_GENERAL);
        }
        if (new_causes & VGPU_INT_FAULT_MASK) {
            msix_notify(pdev, VGPU_MSIX_VEC_FAULT);
        }
        return;
    }
    pci_set_irq(pdev, !!(s->int_status & s->int_enable));
}

/* Latch @causes in INT_STATUS and signal those that are enabled. */
void vgpu_irq_raise(VGPUState *s, uint32_t causes)
{
    s->int_status |= causes;
    trace_vgpu_irq(causes, s->int_status, s->int_enable);
    vgpu_irq_update(s, causes & s->int_enable);
}

/* ------------------------------------------------------- CPU window --- */

static void vgpu_window_update(VGPUState *s)
{
    memory_region_transaction_begin();
    memory_region_set_alias_offset(&s->vram_window, s->visible_base);
    memory_region_transaction_commit();
}

static void vgpu_window_move(VGPUState *s, uint64_t base)
{
    if (base % VGPU_VISIBLE_BASE_ALIGN || base > s->vram_size ||
        s->visible_size > s->vram_size - base) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: VISIBLE_BASE 0x%" PRIx64
                      " refused: not 1 MiB aligned or window past the end "
                      "of VRAM\n", base);
        s->status |= VGPU_STATUS_WINDOW_ERROR;
        return;
    }
    s->status &= ~VGPU_STATUS_WINDOW_ERROR;
    s->visible_base = base;
    trace_vgpu_window_move(base);
    vgpu_window_update(s);
}

/* ---------------------------------------------------------------- Reset --- */

static void vgpu_counters_reset(VGPUState *s)
{
    memset(s->ctr_global, 0, sizeof(s->ctr_global));
    memset(s->ctr_ctx, 0, sizeof(s->ctr_ctx));
    memset(s->access_ctr, 0, sizeof(uint64_t) * s->nr_chunks);
    vgpu_tlb_forget_stale(s);
}

/* Everything back to its power-on state; VRAM contents are kept. */
void vgpu_reset_state(VGPUState *s)
{
    trace_vgpu_reset();
    vgpu_queue_reset_all(s);
    s->work_ns = 0;
    memset(s->signal, 0, sizeof(s->signal));
    s->signal_next = 0;
    vgpu_tlb_flush(&s->l2);
    s->visible_base = 0;
    vgpu_window_update(s);
    s->status = VGPU_STATUS_READY;
    s->int_status = 0;
    s->int_enable = 0;
    s->fence_queues = 0;
    s->error_queues = 0;
    s->inval_va = 0;
    s->inval_size = 0;
    s->inval_req_seqno = 0;
    s->inval_done_seqno = 0;
    memset(s->inval_fifo, 0, sizeof(s->inval_fifo));
    s->fault_buf = 0;
    s->fault_entries = 0;
    s->fault_head = 0;
    s->fault_tail = 0;
    s->fault_overflows = 0;
    s->fault_published = 0;
    s->overflow_pending = false;
    s->fault_new = 0;
    s->answer_wait = 0;
    s->answer_replay = 0;
    s->access_ctr_index = 0;
    s->pt_xchg_addr = VGPU_PT_XCHG_ADDR_NONE;
    s->pt_xchg_old = 0;
    memset(s->ctx_root, 0, sizeof(s->ctx_root));
    vgpu_counters_reset(s);
    s->wlatch_addr = 0;
    s->wlatch_val = 0;
    s->rlatch_addr = 0;
    s->rlatch_val = 0;
    pci_set_irq(PCI_DEVICE(s), 0);
}

/* ------------------------------------------------------------ Registers --- */

static bool vgpu_in_ctx_bank(hwaddr addr, unsigned *ctx, hwaddr *reg)
{
    if (addr < VGPU_CTX_BASE ||
        addr >= VGPU_CTX_BASE + VGPU_NUM_CONTEXTS * VGPU_CTX_STRIDE) {
        return false;
    }
    *ctx = (addr - VGPU_CTX_BASE) / VGPU_CTX_STRIDE;
    *reg = (addr - VGPU_CTX_BASE) % VGPU_CTX_STRIDE;
    return true;
}

static bool vgpu_in_queue_bank(hwaddr addr, unsigned *qi, hwaddr *reg)
{
    if (addr < VGPU_QUEUE_BASE ||
        addr >= VGPU_QUEUE_BASE + VGPU_NUM_QUEUES * VGPU_QUEUE_STRIDE) {
        return false;
    }
    *qi = (addr - VGPU_QUEUE_BASE) / VGPU_QUEUE_STRIDE;
    *reg = (addr - VGPU_QUEUE_BASE) % VGPU_QUEUE_STRIDE;
    return true;
}

/* Counter registers: the global bank, then one bank per context. */
static uint64_t *vgpu_counter(VGPUState *s, hwaddr addr)
{
    hwaddr off;
    unsigned bank, i;

    if (addr < VGPU_COUNTER_GLOBAL_BASE ||
        addr >= VGPU_COUNTER_CTX_BASE +
                VGPU_NUM_CONTEXTS * VGPU_COUNTER_BANK_SIZE) {
        return NULL;
    }
    off = addr - VGPU_COUNTER_GLOBAL_BASE;
    bank = off / VGPU_COUNTER_BANK_SIZE;
    off %= VGPU_COUNTER_BANK_SIZE;
    i = off / 8;
    if (off % 8 || i >= VGPU_CTR_NR) {
        return NULL;
    }
    return bank ? &s->ctr_ctx[bank - 1][i] : &s->ctr_global[i];
}

/* The value of the 64-bit register whose _LO is at @addr, if it is one. */
static bool vgpu_reg64_read(VGPUState *s, hwaddr addr, uint64_t *val)
{
    uint64_t *ctr;
    unsigned i;
    hwaddr reg;

    switch (addr) {
    case VGPU_REG_VRAM_SIZE_LO:
        *val = s->vram_size;
        return true;
    case VGPU_REG_VISIBLE_SIZE_LO:
        *val = s->visible_size;
        return true;
    case VGPU_REG_VISIBLE_BASE_LO:
        *val = s->visible_base;
        return true;
    case VGPU_REG_TIMESTAMP_LO:
        *val = vgpu_now_ns();
        return true;
    case VGPU_REG_INVAL_VA_LO:
        *val = s->inval_va;
        return true;
    case VGPU_REG_INVAL_SIZE_LO:
        *val = s->inval_size;
        return true;
    case VGPU_REG_FAULT_BUF_LO:
        *val = s->fault_buf;
        return true;
    case VGPU_REG_PT_XCHG_ADDR_LO:
        *val = s->pt_xchg_addr;
        return true;
    case VGPU_REG_PT_XCHG_DATA_LO:
        *val = s->pt_xchg_old;
        return true;
    }
    if (vgpu_in_ctx_bank(addr, &i, &reg)) {
        if (reg == VGPU_CTX_ROOT_LO) {
            *val = s->ctx_root[i];
            return true;
        }
        return false;
    }
    if (vgpu_in_queue_bank(addr, &i, &reg)) {
        return vgpu_queue_reg64(s, i, reg, val);
    }
    if (vgpu_cost_reg64_read(s, addr, val)) {
        return true;
    }
    ctr = vgpu_counter(s, addr);
    if (ctr) {
        *val = *ctr;
        /* Stale hits not forgiven by an invalidation yet count too. */
        if (ctr == &s->ctr_global[VGPU_CTR_STRICT_STALE]) {
            *val += vgpu_tlb_pending_stale(s, UINT32_MAX);
        }
        for (i = 0; i < VGPU_NUM_CONTEXTS; i++) {
            if (ctr == &s->ctr_ctx[i][VGPU_CTR_STRICT_STALE]) {
                *val += vgpu_tlb_pending_stale(s, i);
            }
        }
        return true;
    }
    return false;
}

static bool vgpu_reg64_writable(hwaddr addr)
{
    unsigned i;
    hwaddr reg;

    switch (addr) {
    case VGPU_REG_VISIBLE_BASE_LO:
    case VGPU_REG_INVAL_VA_LO:
    case VGPU_REG_INVAL_SIZE_LO:
    case VGPU_REG_FAULT_BUF_LO:
    case VGPU_REG_PT_XCHG_ADDR_LO:
    case VGPU_REG_PT_XCHG_DATA_LO:
        return true;
    }
    if (vgpu_in_ctx_bank(addr, &i, &reg)) {
        return reg == VGPU_CTX_ROOT_LO;
    }
    if (vgpu_in_queue_bank(addr, &i, &reg)) {
        return reg == VGPU_QUEUE_RING_LO;
    }
    return false;
}

/* A write of PT_XCHG_DATA: exchange it with the word at PT_XCHG_ADDR. */
static void vgpu_pt_xchg_write(VGPUState *s, uint64_t val)
{
    if (!vgpu_pt_xchg(s, s->pt_xchg_addr, val, &s->pt_xchg_old)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: PT_XCHG at 0x%" PRIx64
                      " refused: not 8-byte aligned or outside VRAM\n",
                      s->pt_xchg_addr);
        s->pt_xchg_old = 0;
        s->status |= VGPU_STATUS_PT_XCHG_ERROR;
        return;
    }
    s->status &= ~VGPU_STATUS_PT_XCHG_ERROR;
}

static void vgpu_reg64_write(VGPUState *s, hwaddr addr, uint64_t val)
{
    unsigned i;
    hwaddr reg;

    switch (addr) {
    case VGPU_REG_VISIBLE_BASE_LO:
        vgpu_window_move(s, val);
        return;
    case VGPU_REG_INVAL_VA_LO:
        s->inval_va = val;
        return;
    case VGPU_REG_INVAL_SIZE_LO:
        s->inval_size = val;
        return;
    case VGPU_REG_FAULT_BUF_LO:
        s->fault_buf = val;
        s->fault_head = 0;
        s->fault_tail = 0;
        s->fault_published = 0;
        vgpu_fault_buf_check(s);
        return;
    case VGPU_REG_PT_XCHG_ADDR_LO:
        s->pt_xchg_addr = val;
        return;
    case VGPU_REG_PT_XCHG_DATA_LO:
        vgpu_pt_xchg_write(s, val);
        return;
    }
    if (vgpu_in_ctx_bank(addr, &i, &reg)) {
        trace_vgpu_ctx_root(i, val);
        s->ctx_root[i] = val;
        return;
    }
    if (vgpu_in_queue_bank(addr, &i, &reg)) {
        vgpu_queue_write64(s, i, reg, val);
    }
}

static uint32_t vgpu_tlb_geometry(uint32_t sets, uint32_t ways)
{
    return VGPU_FIELD_PREP(VGPU_TLB_GEOMETRY_SETS, sets) |
           VGPU_FIELD_PREP(VGPU_TLB_GEOMETRY_WAYS, ways);
}

static uint32_t vgpu_reg32_read(VGPUState *s, hwaddr addr)
{
    uint32_t val;
    unsigned i;
    hwaddr reg;

    if (vgpu_cost_reg_read(s, addr, &val)) {
        return val;
    }
    switch (addr) {
    case VGPU_REG_ID:
        return VGPU_ID_MAGIC;
    case VGPU_REG_VERSION:
        return VGPU_FIELD_PREP(VGPU_VERSION_MAJOR, VGPU_VERSION_MAJOR) |
               VGPU_FIELD_PREP(VGPU_VERSION_MINOR, VGPU_VERSION_MINOR);
    case VGPU_REG_CAPS:
        return VGPU_CAPS_PAGE_64K | VGPU_CAPS_PAGE_2M | VGPU_CAPS_PAGE_1G |
               VGPU_CAPS_AD_BITS | VGPU_CAPS_ACCESS_COUNTERS |
               VGPU_CAPS_CALL | VGPU_CAPS_FENCE_NOWRITE |
               VGPU_CAPS_PRIV_LEVELS | VGPU_CAPS_PT_XCHG |
               VGPU_CAPS_COST_MODEL | VGPU_CAPS_GATHER | VGPU_CAPS_LANES |
               VGPU_CAPS_COMPUTE | VGPU_CAPS_FENCE_CLOCK |
               (s->strict ? VGPU_CAPS_STRICT : 0) |
               (s->deterministic ? VGPU_CAPS_DETERMINISTIC : 0);
    case VGPU_REG_NUM_QUEUES:
        return VGPU_NUM_QUEUES;
    case VGPU_REG_NUM_CONTEXTS:
        return VGPU_NUM_CONTEXTS;
    case VGPU_REG_TLB_L1_GEOMETRY:
        return vgpu_tlb_geometry(s->l1_sets, s->l1_ways);
    case VGPU_REG_TLB_L2_GEOMETRY:
        return vgpu_tlb_geometry(s->l2_sets, s->l2_ways);
    case VGPU_REG_ACCESS_CHUNK_SHIFT:
        return s->chunk_shift;
    case VGPU_REG_LANES:
        return s->lanes;
    case VGPU_REG_STATUS:
        return s->status;
    case VGPU_REG_INT_STATUS:
        return s->int_status;
    case VGPU_REG_INT_ENABLE:
        return s->int_enable;
    case VGPU_REG_FENCE_QUEUES:
        return s->fence_queues;
    case VGPU_REG_ERROR_QUEUES:
        return s->error_queues;
    case VGPU_REG_INVAL_REQ_SEQNO:
        return s->inval_req_seqno;
    case VGPU_REG_INVAL_DONE_SEQNO:
        return s->inval_done_seqno;
    case VGPU_REG_FAULT_BUF_ENTRIES:
        return s->fault_entries;
    case VGPU_REG_FAULT_BUF_HEAD:
        return s->fault_head;
    case VGPU_REG_FAULT_BUF_TAIL:
        return s->fault_tail;
    case VGPU_REG_FAULT_BUF_OVERFLOWS:
        return s->fault_overflows;
    case VGPU_REG_ACCESS_CTR_INDEX:
        return s->access_ctr_index;
    case VGPU_REG_ACCESS_CTR_VALUE:
        if (s->access_ctr_index >= s->nr_chunks) {
            return 0;
        }
        return MIN(s->access_ctr[s->access_ctr_index], UINT32_MAX);
    }
    if (vgpu_in_queue_bank(addr, &i, &reg)) {
        return vgpu_queue_read(s, i, reg);
    }
    return 0;
}

static void vgpu_inval_cmd(VGPUState *s, uint32_t val)
{
    unsigned op = VGPU_FIELD_GET(val, VGPU_INVAL_CMD_OP);
    unsigned ctx = VGPU_FIELD_GET(val, VGPU_INVAL_CMD_CTX);

    if (op > VGPU_INVAL_OP_RANGE || ctx >= VGPU_NUM_CONTEXTS) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: INVAL_CMD 0x%x refused: bad "
                      "operation or context\n", val);
        s->status |= VGPU_STATUS_INVAL_REFUSED;
        return;
    }
    if (!vgpu_inval_submit(s, val)) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: INVAL_CMD refused: %u requests "
                      "already pending\n", VGPU_INVAL_QUEUE_DEPTH);
        s->status |= VGPU_STATUS_INVAL_REFUSED;
        return;
    }
    s->status &= ~VGPU_STATUS_INVAL_REFUSED;
    vgpu_engine_kick(s);
}

static void vgpu_access_ctr_clear(VGPUState *s, uint32_t val)
{
    if (val == VGPU_ACCESS_CTR_CLEAR_ALL) {
        memset(s->access_ctr, 0, sizeof(uint64_t) * s->nr_chunks);
    } else if (val < s->nr_chunks) {
        s->access_ctr[val] = 0;
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: ACCESS_CTR_CLEAR: no chunk %u "
                      "(VRAM has %u)\n", val, s->nr_chunks);
    }
}

static void vgpu_reg32_write(VGPUState *s, hwaddr addr, uint32_t val)
{
    uint32_t newly;
    unsigned i;
    hwaddr reg;

    switch (addr) {
    case VGPU_REG_CONTROL:
        if (val & VGPU_CONTROL_RESET) {
            vgpu_reset_state(s);
        }
        if (val & VGPU_CONTROL_COUNTERS_RESET) {
            vgpu_counters_reset(s);
        }
        return;
    case VGPU_REG_INT_STATUS:
        s->int_status &= ~val;
        vgpu_irq_update(s, 0);
        return;
    case VGPU_REG_INT_ENABLE:
        newly = val & ~s->int_enable;
        s->int_enable = val;
        vgpu_irq_update(s, newly & s->int_status);
        return;
    case VGPU_REG_FENCE_QUEUES:
        s->fence_queues &= ~val;
        return;
    case VGPU_REG_ERROR_QUEUES:
        s->error_queues &= ~val;
        return;
    case VGPU_REG_INVAL_CMD:
        vgpu_inval_cmd(s, val);
        return;
    case VGPU_REG_FAULT_BUF_ENTRIES:
        s->fault_entries = val;
        s->fault_head = 0;
        s->fault_tail = 0;
        s->fault_published = 0;
        vgpu_fault_buf_check(s);
        return;
    case VGPU_REG_FAULT_BUF_HEAD:
        s->fault_head = val;
        vgpu_fault_buf_check(s);
        return;
    case VGPU_REG_ACCESS_CTR_INDEX:
        s->access_ctr_index = val;
        return;
    case VGPU_REG_ACCESS_CTR_CLEAR:
        vgpu_access_ctr_clear(s, val);
        return;
    }
    if (vgpu_in_queue_bank(addr, &i, &reg)) {
        vgpu_queue_write(s, i, reg, val);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vgpu: write 0x%x to read-only or "
                  "unknown register 0x%" HWADDR_PRIx "\n", val, addr);
}

/*
 * CPU accesses cannot arrive while the engine runs (both need the BQL): an
 * access then is the device's own DMA aimed at its registers.  It fails,
 * so the command that made it faults.
 */
static bool vgpu_mmio_from_self(VGPUState *s, hwaddr addr)
{
    if (!s->in_engine) {
        return false;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vgpu: device DMA to its own register "
                  "0x%" HWADDR_PRIx " refused\n", addr);
    return true;
}

static MemTxResult vgpu_mmio_read(void *opaque, hwaddr addr, uint64_t *data,
                                  unsigned size, MemTxAttrs attrs)
{
    VGPUState *s = opaque;
    uint64_t v64;
    uint32_t val;

    if (vgpu_mmio_from_self(s, addr)) {
        return MEMTX_ERROR;
    }
    if (vgpu_reg64_read(s, addr, &v64)) {
        s->rlatch_addr = addr + 4;
        s->rlatch_val = v64 >> 32;
        val = v64;
    } else if (addr >= 4 && vgpu_reg64_read(s, addr - 4, &v64)) {
        val = s->rlatch_addr == addr ? s->rlatch_val : v64 >> 32;
        s->rlatch_addr = 0;
    } else {
        val = vgpu_reg32_read(s, addr);
    }
    trace_vgpu_mmio_read(addr, val);
    *data = val;
    return MEMTX_OK;
}

static MemTxResult vgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                                   unsigned size, MemTxAttrs attrs)
{
    VGPUState *s = opaque;
    uint64_t lo;

    trace_vgpu_mmio_write(addr, val);
    if (vgpu_mmio_from_self(s, addr)) {
        return MEMTX_ERROR;
    }
    if (vgpu_reg64_writable(addr)) {
        s->wlatch_addr = addr;
        s->wlatch_val = val;
    } else if (addr >= 4 && vgpu_reg64_writable(addr - 4)) {
        if (s->wlatch_addr == addr - 4) {
            lo = s->wlatch_val;
        } else {
            vgpu_reg64_read(s, addr - 4, &lo);
            lo = (uint32_t)lo;
        }
        s->wlatch_addr = 0;
        vgpu_reg64_write(s, addr - 4, lo | val << 32);
    } else {
        vgpu_reg32_write(s, addr, val);
    }
    return MEMTX_OK;
}

static const MemoryRegionOps vgpu_mmio_ops = {
    .read_with_attrs = vgpu_mmio_read,
    .write_with_attrs = vgpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* ------------------------------------------------------------ Migration --- */

static const VMStateDescription vmstate_vgpu_cmd = {
    .name = "vgpu/cmd",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(header, VGPUCmd),
        VMSTATE_UINT32(offset, VGPUCmd),
        VMSTATE_UINT32(len, VGPUCmd),
        VMSTATE_UINT32_ARRAY(arg, VGPUCmd, VGPU_CMD_MAX_ARGS),
        VMSTATE_UINT64(done, VGPUCmd),
        VMSTATE_UINT64(acc, VGPUCmd),
        VMSTATE_UINT32(pass, VGPUCmd),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * A queue's modeled time (version 1.4): clock, stall mark, the command's
 * tally.  Sent in the vgpu/time subsection, after every queue's registers.
 */
static const VMStateDescription vmstate_vgpu_queue_time = {
    .name = "vgpu/queue-time",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(time.clock, VGPUQueue),
        VMSTATE_UINT64(time.stall, VGPUQueue),
        VMSTATE_UINT64(time.stall_mark, VGPUQueue),
        VMSTATE_UINT64(time.tally.vram_bytes, VGPUQueue),
        VMSTATE_UINT64(time.tally.link_bytes, VGPUQueue),
        VMSTATE_UINT64(time.tally.l1_misses, VGPUQueue),
        VMSTATE_UINT64(time.tally.pt_reads, VGPUQueue),
        VMSTATE_UINT64(time.tally.pt_sys, VGPUQueue),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu_queue = {
    .name = "vgpu/queue",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(ring, VGPUQueue),
        VMSTATE_UINT32(ring_size, VGPUQueue),
        VMSTATE_UINT32(context, VGPUQueue),
        VMSTATE_UINT32(head, VGPUQueue),
        VMSTATE_UINT32(tail, VGPUQueue),
        VMSTATE_UINT32(state, VGPUQueue),
        VMSTATE_UINT32(error, VGPUQueue),
        VMSTATE_UINT64(fence, VGPUQueue),
        VMSTATE_UINT64(fault_va, VGPUQueue),
        VMSTATE_UINT32(fault_info, VGPUQueue),
        VMSTATE_BOOL(busy, VGPUQueue),
        VMSTATE_STRUCT(cmd, VGPUQueue, 1, vmstate_vgpu_cmd, VGPUCmd),
        VMSTATE_BOOL(in_call, VGPUQueue),
        VMSTATE_UINT32(call_ring_offset, VGPUQueue),
        VMSTATE_UINT64(call_va, VGPUQueue),
        VMSTATE_UINT32(call_size, VGPUQueue),
        VMSTATE_UINT32(call_pos, VGPUQueue),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu_inval = {
    .name = "vgpu/inval",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(cmd, VGPUInval),
        VMSTATE_UINT64(va, VGPUInval),
        VMSTATE_UINT64(size, VGPUInval),
        VMSTATE_END_OF_LIST()
    }
};

#define VGPU_STATUS_BITS    (VGPU_STATUS_READY | VGPU_STATUS_WINDOW_ERROR | \
                             VGPU_STATUS_INVAL_REFUSED | \
                             VGPU_STATUS_FAULT_BUF_ERROR | \
                             VGPU_STATUS_PT_XCHG_ERROR)

/*
 * Check what a migration stream loaded before anything uses it: a
 * stream is input like any other, and a bad one must be refused, never
 * make the device loop, assert or divide by zero.  Every field with a
 * range is checked here or by the owner of its state (queues, TLB
 * invalidation, fault buffer); the rest (counters, roots, descriptors
 * and latches the driver may set to anything) is checked at every use.
 */
static bool vgpu_load_check(VGPUState *s, Error **errp)
{
    int i;

    if (s->visible_base % VGPU_VISIBLE_BASE_ALIGN ||
        s->visible_base > s->vram_size - s->visible_size) {
        error_setg(errp, "CPU window at 0x%" PRIx64 " not 1 MiB aligned or "
                   "past the end of VRAM", s->visible_base);
        return false;
    }
    if ((s->status & ~VGPU_STATUS_BITS) || !(s->status & VGPU_STATUS_READY)) {
        error_setg(errp, "STATUS 0x%x has unknown bits or not READY",
                   s->status);
        return false;
    }
    if (s->int_status & ~(VGPU_INT_GENERAL_MASK | VGPU_INT_FAULT_MASK)) {
        error_setg(errp, "INT_STATUS 0x%x has unknown causes", s->int_status);
        return false;
    }
    if ((s->fence_queues | s->error_queues) >> VGPU_NUM_QUEUES) {
        error_setg(errp, "FENCE_QUEUES 0x%x or ERROR_QUEUES 0x%x name queues "
                   "beyond %u", s->fence_queues, s->error_queues,
                   VGPU_NUM_QUEUES);
        return false;
    }
    if (s->signal_next >= VGPU_SIGNALS) {
        error_setg(errp, "signal slot %u beyond %u", s->signal_next,
                   VGPU_SIGNALS);
        return false;
    }
    if (s->rr_next >= VGPU_NUM_QUEUES) {
        error_setg(errp, "scheduler position %u beyond %u queues", s->rr_next,
                   VGPU_NUM_QUEUES);
        return false;
    }
    if (!vgpu_inval_load_check(s, errp) || !vgpu_fault_load_check(s, errp)) {
        return false;
    }
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (!vgpu_queue_load_check(s, &s->queue[i], errp)) {
            return false;
        }
    }
    return true;
}

static int vgpu_post_load(void *opaque, int version_id)
{
    VGPUState *s = opaque;
    Error *err = NULL;

    if (!vgpu_load_check(s, &err)) {
        error_reportf_err(err, "vgpu: migration stream refused: ");
        return -EINVAL;
    }
    /* The TLBs are not migrated: they start empty. */
    vgpu_tlb_flush_all(s);
    vgpu_window_update(s);
    vgpu_engine_kick(s);
    return 0;
}

/* The PT_XCHG registers (version 1.3), sent once the driver used them. */
static bool vgpu_pt_xchg_needed(void *opaque)
{
    VGPUState *s = opaque;

    return s->pt_xchg_addr != VGPU_PT_XCHG_ADDR_NONE || s->pt_xchg_old;
}

static const VMStateDescription vmstate_vgpu_pt_xchg = {
    .name = "vgpu/pt-xchg",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vgpu_pt_xchg_needed,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(pt_xchg_addr, VGPUState),
        VMSTATE_UINT64(pt_xchg_old, VGPUState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu_time = {
    .name = "vgpu/time",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(work_ns, VGPUState),
        VMSTATE_STRUCT_ARRAY(queue, VGPUState, VGPU_NUM_QUEUES, 1,
                             vmstate_vgpu_queue_time, VGPUQueue),
        VMSTATE_END_OF_LIST()
    }
};

/* The FENCE writes remembered for WAITs (version 1.7). */
static bool vgpu_signals_needed(void *opaque)
{
    VGPUState *s = opaque;
    int i;

    for (i = 0; i < VGPU_SIGNALS; i++) {
        if (s->signal[i].valid) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_vgpu_signal = {
    .name = "vgpu/signal",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(va, VGPUSignal),
        VMSTATE_UINT64(value, VGPUSignal),
        VMSTATE_UINT64(clock, VGPUSignal),
        VMSTATE_UINT32(ctx, VGPUSignal),
        VMSTATE_BOOL(valid, VGPUSignal),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu_signals = {
    .name = "vgpu/signals",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vgpu_signals_needed,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(signal, VGPUState, VGPU_SIGNALS, 1,
                             vmstate_vgpu_signal, VGPUSignal),
        VMSTATE_UINT32(signal_next, VGPUState),
        VMSTATE_END_OF_LIST()
    }
};

/* The lanes of an access kernel in flight (version 1.6). */
static bool vgpu_lanes_needed(void *opaque)
{
    VGPUState *s = opaque;
    int i;

    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (s->queue[i].busy && s->queue[i].cmd.lanes) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_vgpu_lane = {
    .name = "vgpu/lane",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT64(done, VGPULane),
        VMSTATE_UINT64(acc, VGPULane),
        VMSTATE_UINT64(fault_page, VGPULane),
        VMSTATE_UINT32(fault_access, VGPULane),
        VMSTATE_BOOL(waiting, VGPULane),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu_queue_lanes = {
    .name = "vgpu/queue-lanes",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(cmd.lanes, VGPUQueue),
        VMSTATE_UINT32(lane_next, VGPUQueue),
        VMSTATE_STRUCT_ARRAY(lane, VGPUQueue, VGPU_LANES_MAX, 1,
                             vmstate_vgpu_lane, VGPULane),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu_lanes = {
    .name = "vgpu/lanes",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vgpu_lanes_needed,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(queue, VGPUState, VGPU_NUM_QUEUES, 1,
                             vmstate_vgpu_queue_lanes, VGPUQueue),
        VMSTATE_END_OF_LIST()
    }
};

/* Deterministic mode: publication and held answers (version 1.7). */
static bool vgpu_deterministic_needed(void *opaque)
{
    VGPUState *s = opaque;

    return s->deterministic;
}

static const VMStateDescription vmstate_vgpu_deterministic = {
    .name = "vgpu/deterministic",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vgpu_deterministic_needed,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(fault_published, VGPUState),
        VMSTATE_BOOL(overflow_pending, VGPUState),
        VMSTATE_UINT32(fault_new, VGPUState),
        VMSTATE_UINT32(answer_wait, VGPUState),
        VMSTATE_UINT32(answer_replay, VGPUState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_vgpu = {
    .name = TYPE_VGPU,
    .version_id = 3,                /* 2: CALL state; 3: 18 counters */
    .minimum_version_id = 3,
    .post_load = vgpu_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, VGPUState),
        VMSTATE_MSIX(parent_obj, VGPUState),
        VMSTATE_UINT64(visible_base, VGPUState),
        VMSTATE_UINT32(status, VGPUState),
        VMSTATE_UINT32(int_status, VGPUState),
        VMSTATE_UINT32(int_enable, VGPUState),
        VMSTATE_UINT32(fence_queues, VGPUState),
        VMSTATE_UINT32(error_queues, VGPUState),
        VMSTATE_UINT64(inval_va, VGPUState),
        VMSTATE_UINT64(inval_size, VGPUState),
        VMSTATE_UINT32(inval_req_seqno, VGPUState),
        VMSTATE_UINT32(inval_done_seqno, VGPUState),
        VMSTATE_STRUCT_ARRAY(inval_fifo, VGPUState, VGPU_INVAL_QUEUE_DEPTH, 1,
                             vmstate_vgpu_inval, VGPUInval),
        VMSTATE_UINT64(fault_buf, VGPUState),
        VMSTATE_UINT32(fault_entries, VGPUState),
        VMSTATE_UINT32(fault_head, VGPUState),
        VMSTATE_UINT32(fault_tail, VGPUState),
        VMSTATE_UINT32(fault_overflows, VGPUState),
        VMSTATE_UINT32(access_ctr_index, VGPUState),
        VMSTATE_UINT64_ARRAY(ctx_root, VGPUState, VGPU_NUM_CONTEXTS),
        VMSTATE_STRUCT_ARRAY(queue, VGPUState, VGPU_NUM_QUEUES, 1,
                             vmstate_vgpu_queue, VGPUQueue),
        VMSTATE_UINT64_ARRAY(ctr_global, VGPUState, VGPU_CTR_NR),
        VMSTATE_UINT64_2DARRAY(ctr_ctx, VGPUState, VGPU_NUM_CONTEXTS,
                               VGPU_CTR_NR),
        VMSTATE_VARRAY_UINT32(access_ctr, VGPUState, nr_chunks, 1,
                              vmstate_info_uint64, uint64_t),
        VMSTATE_UINT32(wlatch_addr, VGPUState),
        VMSTATE_UINT32(wlatch_val, VGPUState),
        VMSTATE_UINT32(rlatch_addr, VGPUState),
        VMSTATE_UINT32(rlatch_val, VGPUState),
        VMSTATE_UINT32(rr_next, VGPUState),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_vgpu_pt_xchg,
        &vmstate_vgpu_time,
        &vmstate_vgpu_lanes,
        &vmstate_vgpu_deterministic,
        &vmstate_vgpu_signals,
        NULL
    }
};

/* ------------------------------------------------------------------ QOM --- */

static bool vgpu_check_config(VGPUState *s, Error **errp)
{
    if (s->vram_size < VGPU_VRAM_MIN || s->vram_size > VGPU_VRAM_MAX ||
        s->vram_size % VGPU_SIZE_GRANULE) {
        error_setg(errp, "vgpu: vram_size %" PRIu64 " is invalid: it must be "
                   "a multiple of 1 MiB between 16 MiB and 16 GiB",
                   s->vram_size);
        return false;
    }
    if (!s->lanes || s->lanes > VGPU_LANES_MAX) {
        error_setg(errp, "vgpu: lanes %u is invalid: it must be between 1 "
                   "and %u", s->lanes, VGPU_LANES_MAX);
        return false;
    }
    if (!s->visible_size) {
        s->visible_size = s->vram_size;
    }
    if (s->visible_size > s->vram_size || s->visible_size < VGPU_SIZE_GRANULE ||
        s->visible_size % VGPU_SIZE_GRANULE) {
        error_setg(errp, "vgpu: visible_size %" PRIu64 " is invalid: it must "
                   "be a multiple of 1 MiB, at least 1 MiB and at most "
                   "vram_size (%" PRIu64 ")", s->visible_size, s->vram_size);
        return false;
    }
    return true;
}

static void vgpu_realize(PCIDevice *pdev, Error **errp)
{
    VGPUState *s = VGPU(pdev);
    Error *err = NULL;
    int i;

    if (!vgpu_check_config(s, errp) || !vgpu_cost_realize(s, errp)) {
        return;
    }
    if (!vgpu_tlb_init(&s->l2, s, s->l2_sets, s->l2_ways, errp)) {
        return;
    }
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (!vgpu_tlb_init(&s->queue[i].l1, s, s->l1_sets, s->l1_ways, errp)) {
            goto fail_tlb;
        }
    }

    pdev->config[PCI_INTERRUPT_PIN] = 1;
    if (pcie_endpoint_cap_init(pdev, VGPU_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "vgpu: cannot add the PCI Express capability");
        goto fail_tlb;
    }
    pcie_cap_flr_init(pdev);

    memory_region_init_io(&s->mmio, OBJECT(s), &vgpu_mmio_ops, s,
                          "vgpu-mmio", VGPU_MMIO_SIZE);
    pci_register_bar(pdev, VGPU_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    memory_region_init_ram(&s->vram, OBJECT(s), "vgpu.vram", s->vram_size,
                           &err);
    if (err) {
        error_propagate(errp, err);
        goto fail_tlb;
    }
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);
    memory_region_init(&s->vram_bar, OBJECT(s), "vgpu-vram-bar",
                       pow2ceil(s->visible_size));
    memory_region_init_alias(&s->vram_window, OBJECT(s), "vgpu-vram-window",
                             &s->vram, 0, s->visible_size);
    memory_region_add_subregion(&s->vram_bar, 0, &s->vram_window);
    pci_register_bar(pdev, VGPU_BAR_VRAM, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->vram_bar);

    if (msix_init_exclusive_bar(pdev, VGPU_MSIX_NR_VECTORS, VGPU_BAR_MSIX,
                                errp)) {
        goto fail_tlb;
    }
    for (i = 0; i < VGPU_MSIX_NR_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }

    s->chunk_shift = VGPU_ACCESS_CHUNK_SHIFT_DEFAULT;
    s->nr_chunks = DIV_ROUND_UP(s->vram_size, 1ull << s->chunk_shift);
    s->access_ctr = g_new0(uint64_t, s->nr_chunks);
    s->bounce = g_malloc(VGPU_BOUNCE_SIZE);
    vgpu_engine_init(s);
    vgpu_reset_state(s);
    return;

fail_tlb:
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        vgpu_tlb_free(&s->queue[i].l1);
    }
    vgpu_tlb_free(&s->l2);
}

static void vgpu_exit(PCIDevice *pdev)
{
    VGPUState *s = VGPU(pdev);
    int i;

    vgpu_engine_fini(s);
    msix_uninit_exclusive_bar(pdev);
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        vgpu_tlb_free(&s->queue[i].l1);
    }
    vgpu_tlb_free(&s->l2);
    g_free(s->access_ctr);
    g_free(s->bounce);
}

/*
 * Power-on, system reset, PCI bus reset and function-level reset.  A reset
 * that arrives while the engine runs comes from the device's own DMA (an
 * FLR written into its configuration space through MMCONFIG): the state
 * the engine is using must not vanish under it, so the reset is done when
 * the engine pass ends, and the pass ends at the next access.
 */
static void vgpu_qdev_reset(DeviceState *dev)
{
    VGPUState *s = VGPU(dev);

    if (s->in_engine) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: reset by the device's own "
                      "DMA; done when the engine pass ends\n");
        s->reset_pending = true;
        return;
    }
    vgpu_reset_state(s);
}

static void vgpu_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
}

static Property vgpu_properties[] = {
    DEFINE_PROP_SIZE("vram_size", VGPUState, vram_size, 256 * MiB),
    DEFINE_PROP_SIZE("visible_size", VGPUState, visible_size, 0),
    DEFINE_PROP_UINT32("tlb_l1_sets", VGPUState, l1_sets, 16),
    DEFINE_PROP_UINT32("tlb_l1_ways", VGPUState, l1_ways, 4),
    DEFINE_PROP_UINT32("tlb_l2_sets", VGPUState, l2_sets, 256),
    DEFINE_PROP_UINT32("tlb_l2_ways", VGPUState, l2_ways, 8),
    DEFINE_PROP_BOOL("strict", VGPUState, strict, false),
    DEFINE_PROP_BOOL("deterministic", VGPUState, deterministic, false),
    DEFINE_PROP_UINT32("lanes", VGPUState, lanes, 32),
    /* The cost model (vgpu-cost.c): a preset, then overrides. */
    DEFINE_PROP_STRING("link", VGPUState, link),
    DEFINE_PROP_UINT32("vram_bw", VGPUState, cost_prop.vram_bw,
                       VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("link_bw", VGPUState, cost_prop.link_bw,
                       VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("link_lat", VGPUState, cost_prop.link_lat,
                       VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("tlb_miss", VGPUState, cost_prop.tlb_miss,
                       VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("walk_level", VGPUState, cost_prop.walk_level,
                       VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("fault_cost", VGPUState, cost_prop.fault,
                       VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("cmd_cost", VGPUState, cost_prop.cmd, VGPU_COST_UNSET),
    DEFINE_PROP_UINT32("dilation", VGPUState, cost_prop.dilation, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static void vgpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = vgpu_realize;
    k->exit = vgpu_exit;
    k->config_write = vgpu_write_config;
    k->vendor_id = VGPU_PCI_VENDOR_ID;
    k->device_id = VGPU_PCI_DEVICE_ID;
    k->revision = VGPU_PCI_REVISION;
    k->class_id = VGPU_PCI_CLASS;
    dc->desc = "vgpu virtual GPU (VRAM, MMU with TLB, queues, faults)";
    dc->reset = vgpu_qdev_reset;
    dc->vmsd = &vmstate_vgpu;
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
    device_class_set_props(dc, vgpu_properties);
}

static const TypeInfo vgpu_info = {
    .name = TYPE_VGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(VGPUState),
    .class_init = vgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { },
    },
};

static void vgpu_register_types(void)
{
    type_register_static(&vgpu_info);
}

type_init(vgpu_register_types)
