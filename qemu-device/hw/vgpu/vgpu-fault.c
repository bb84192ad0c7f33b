/*
 * vgpu faults: fault records, the fault buffer, and stalling the queue.
 *
 * The fault buffer is a ring of FAULT_BUF_ENTRIES 32-byte records in VRAM
 * or system memory (FAULT_BUF is a memory descriptor).  The device writes
 * at FAULT_BUF_TAIL, the driver consumes from FAULT_BUF_HEAD; the ring is
 * full when advancing the tail would make it equal to the head (one slot
 * stays empty).  A record's VALID flag (dw3) is written last, after the
 * rest of the record.
 *
 * A fault stalls only the queue that took it: the queue's state becomes
 * STALLED and its FAULT_VA/FAULT_INFO registers hold the fault until the
 * driver answers REPLAY or CANCEL.  A stalled queue does not run, so it
 * reports its page once.  In an access kernel the fault stalls only the
 * lane that took it (vgpu-kernels.c): the queue runs on, and stalls when
 * no lane can; its registers hold the last fault reported.  When the record cannot be written (buffer full,
 * not set up, or not writable) it is dropped, FAULT_BUF_OVERFLOWS and the
 * FAULT_OVERFLOWS counter count it and INT_FAULT_OVERFLOW is raised; the
 * queue still stalls and its registers still describe the fault, so the
 * driver recovers by scanning the stalled queues.
 *
 * Deterministic mode (property deterministic, CAPS_DETERMINISTIC): what
 * the driver sees must not depend on how far the other queues got by the
 * time it looked.  A record is written at once but without VALID, and the
 * device *publishes* (sets VALID on every record written since the last
 * publication and raises INT_FAULT, and INT_FAULT_OVERFLOW if a record
 * was dropped) only when no queue is RUNNING.  The queues STALLED then
 * that faulted since the last publication must all be answered before
 * any resumes (one stalled long ago and abandoned holds nobody up): a
 * REPLAY of one of them (or a second one) is held until the last of them
 * is answered (REPLAY, CANCEL, DISABLE or RESET), and then every held
 * queue resumes at once.  So each
 * publication holds the same records, and the queues run again from the
 * same point, whatever the host's timing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "vgpu-internal.h"
#include "trace.h"

static bool vgpu_fault_entries_ok(uint32_t entries)
{
    return is_power_of_2(entries) && entries >= VGPU_FAULT_BUF_ENTRIES_MIN &&
           entries <= VGPU_FAULT_BUF_ENTRIES_MAX;
}

static bool vgpu_fault_buf_valid(VGPUState *s)
{
    return vgpu_desc_valid(s->fault_buf) &&
           vgpu_fault_entries_ok(s->fault_entries) &&
           s->fault_head < s->fault_entries &&
           s->fault_tail < s->fault_entries;
}

/*
 * Re-evaluate STATUS.FAULT_BUF_ERROR after the driver changed the fault
 * buffer registers.  A buffer that is not VALID is simply absent.
 */
void vgpu_fault_buf_check(VGPUState *s)
{
    if (!vgpu_desc_valid(s->fault_buf) || vgpu_fault_buf_valid(s)) {
        s->status &= ~VGPU_STATUS_FAULT_BUF_ERROR;
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "vgpu: fault buffer set-up invalid "
                  "(entries %u, head %u, tail %u); faults will be dropped\n",
                  s->fault_entries, s->fault_head, s->fault_tail);
    s->status |= VGPU_STATUS_FAULT_BUF_ERROR;
}

static bool vgpu_fault_record_write(VGPUState *s, uint64_t va, uint32_t info)
{
    uint32_t rec[VGPU_FAULT_RECORD_SIZE / 4] = { 0 };
    uint32_t valid = cpu_to_le32(VGPU_FAULT_DW3_VALID);
    uint64_t now = vgpu_now_ns();
    uint64_t off;
    uint32_t next;

    if (!vgpu_fault_buf_valid(s)) {
        return false;
    }
    next = (s->fault_tail + 1) & (s->fault_entries - 1);
    if (next == s->fault_head) {
        return false;
    }
    rec[VGPU_FAULT_DW_VA_LO] = cpu_to_le32(va);
    rec[VGPU_FAULT_DW_VA_HI] = cpu_to_le32(va >> 32);
    rec[VGPU_FAULT_DW_INFO] = cpu_to_le32(info);
    rec[VGPU_FAULT_DW_TIME_LO] = cpu_to_le32(now);
    rec[VGPU_FAULT_DW_TIME_HI] = cpu_to_le32(now >> 32);
    off = (uint64_t)s->fault_tail * VGPU_FAULT_RECORD_SIZE;
    if (!vgpu_phys_write(s, s->fault_buf, off, rec, sizeof(rec)) ||
        (!s->deterministic &&
         !vgpu_phys_write(s, s->fault_buf, off + VGPU_FAULT_DW_FLAGS * 4,
                          &valid, sizeof(valid)))) {
        qemu_log_mask(LOG_GUEST_ERROR, "vgpu: fault buffer not writable at "
                      "entry %u; fault record dropped\n", s->fault_tail);
        s->status |= VGPU_STATUS_FAULT_BUF_ERROR;
        return false;
    }
    s->fault_tail = next;
    return true;
}

void vgpu_fault_raise(VGPUState *s, VGPUQueue *q, uint64_t va,
                      unsigned access, const VGPUFaultInfo *f)
{
    unsigned qi = vgpu_queue_index(s, q);
    uint64_t page = va & ~(VGPU_PAGE_SIZE_4K - 1);
    uint32_t info = VGPU_FIELD_PREP(VGPU_FAULT_INFO_QUEUE, qi) |
                    VGPU_FIELD_PREP(VGPU_FAULT_INFO_CTX, q->context) |
                    VGPU_FIELD_PREP(VGPU_FAULT_INFO_ACCESS, access) |
                    VGPU_FIELD_PREP(VGPU_FAULT_INFO_REASON, f->reason) |
                    VGPU_FIELD_PREP(VGPU_FAULT_INFO_LEVEL, f->level);

    if (vgpu_lanes_wait(q, page, access)) {
        trace_vgpu_fault_coalesced(qi, va, access);
        return;
    }
    if (!q->lane_running) {
        q->state = VGPU_QUEUE_STATE_STALLED;
        vgpu_cost_stall_begin(s, q);
    }
    q->fault_va = page;
    q->fault_info = info;
    s->fault_new |= BIT(qi);
    vgpu_count(s, q->context, VGPU_CTR_FAULTS, 1);
    trace_vgpu_fault(qi, q->context, va, access, f->reason, f->level);

    if (vgpu_fault_record_write(s, page, info)) {
        if (!s->deterministic) {
            vgpu_irq_raise(s, VGPU_INT_FAULT);
        }
        return;
    }
    s->fault_overflows++;
    vgpu_count(s, UINT32_MAX, VGPU_CTR_FAULT_OVERFLOWS, 1);
    trace_vgpu_fault_overflow(qi, s->fault_overflows);
    if (s->deterministic) {
        s->overflow_pending = true;
    } else {
        vgpu_irq_raise(s, VGPU_INT_FAULT_OVERFLOW);
    }
}

/* Deterministic mode: publish what faulted, once no queue runs. */
void vgpu_fault_publish(VGPUState *s)
{
    uint32_t valid = cpu_to_le32(VGPU_FAULT_DW3_VALID);
    bool records = false;
    int i;

    if (!s->deterministic ||
        (s->fault_published == s->fault_tail && !s->overflow_pending)) {
        return;
    }
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (s->queue[i].state == VGPU_QUEUE_STATE_RUNNING) {
            return;
        }
    }
    while (vgpu_fault_buf_valid(s) && s->fault_published != s->fault_tail) {
        uint64_t off = (uint64_t)s->fault_published * VGPU_FAULT_RECORD_SIZE +
                       VGPU_FAULT_DW_FLAGS * 4;

        if (!vgpu_phys_write(s, s->fault_buf, off, &valid, sizeof(valid))) {
            qemu_log_mask(LOG_GUEST_ERROR, "vgpu: fault buffer not writable "
                          "at entry %u; fault record not published\n",
                          s->fault_published);
            s->status |= VGPU_STATUS_FAULT_BUF_ERROR;
        }
        s->fault_published = (s->fault_published + 1) &
                             (s->fault_entries - 1);
        records = true;
    }
    s->fault_published = s->fault_tail;
    for (i = 0; i < VGPU_NUM_QUEUES; i++) {
        if (s->queue[i].state == VGPU_QUEUE_STATE_STALLED &&
            (s->fault_new & BIT(i)) && !(s->answer_replay & BIT(i))) {
            s->answer_wait |= BIT(i);
        }
    }
    s->fault_new = 0;
    trace_vgpu_fault_publish(s->fault_tail, s->answer_wait);
    if (records) {
        vgpu_irq_raise(s, VGPU_INT_FAULT);
    }
    if (s->overflow_pending) {
        s->overflow_pending = false;
        vgpu_irq_raise(s, VGPU_INT_FAULT_OVERFLOW);
    }
}

/*
 * Check the fault buffer registers migration loaded: TAIL, which only the
 * device moves, is inside a ring of a valid size and 0 otherwise (every
 * write of the set-up resets it).  FAULT_BUF and HEAD are the driver's and
 * checked at every use.
 */
bool vgpu_fault_load_check(VGPUState *s, Error **errp)
{
    if (vgpu_fault_entries_ok(s->fault_entries) ?
        s->fault_tail >= s->fault_entries : s->fault_tail) {
        error_setg(errp, "fault buffer TAIL %u outside its %u entries",
                   s->fault_tail, s->fault_entries);
        return false;
    }
    if (vgpu_fault_entries_ok(s->fault_entries) ?
        s->fault_published >= s->fault_entries : s->fault_published) {
        error_setg(errp, "fault buffer publication %u outside its %u entries",
                   s->fault_published, s->fault_entries);
        return false;
    }
    if (((s->answer_wait | s->answer_replay | s->fault_new) >>
         VGPU_NUM_QUEUES) ||
        (s->answer_wait & s->answer_replay) ||
        (!s->answer_wait && s->answer_replay)) {
        error_setg(errp, "held answers 0x%x / 0x%x inconsistent",
                   s->answer_wait, s->answer_replay);
        return false;
    }
    return true;
}
