/*
 * vgpu device model: state shared by the files of hw/vgpu/.
 *
 *   vgpu.c         PCI identity, BARs, register file, interrupts, reset,
 *                  migration
 *   vgpu-tlb.c     the set-associative TLBs and asynchronous invalidation
 *   vgpu-mmu.c     page-table walks, A/D bits, translation, device memory
 *                  access through the VRAM and system apertures
 *   vgpu-engine.c  hardware queues: rings, doorbells, the round-robin
 *                  scheduler, queue states and errors
 *   vgpu-cmd.c     the commands a queue executes, and the streams (ring
 *                  or CALL) it reads them from
 *   vgpu-kernels.c the access kernels (TOUCH, GATHER, SCATTER, TILE) and
 *                  the lanes they run as
 *   vgpu-fault.c   fault records and the fault buffer
 *   vgpu-cost.c    the cost model: modeled time of commands and stalls,
 *                  presets, pacing
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_VGPU_INTERNAL_H
#define HW_VGPU_INTERNAL_H

#include "qemu/units.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "qom/object.h"
#include "qapi/error.h"
#include "sysemu/runstate.h"
#include "hw/vgpu/vgpu_hw.h"

#define TYPE_VGPU "vgpu"
OBJECT_DECLARE_SIMPLE_TYPE(VGPUState, VGPU)

/*
 * Scheduling: each queue gets at most VGPU_SLICE_BUDGET units of work per
 * round (a unit is a byte moved or checksummed; a command costs
 * VGPU_CMD_COST, a TOUCH or TILE access VGPU_TOUCH_COST, a GATHER or
 * SCATTER element VGPU_TOUCH_COST or its size if larger).  Queues blocked
 * on WAIT
 * are re-polled every VGPU_WAIT_POLL_NS of host time.  After
 * VGPU_BUSY_NS of host time running without a break, the scheduler pauses
 * for VGPU_YIELD_NS: it runs under the BQL, and a main loop that only drops
 * the lock for a moment starves the vCPUs that need it for MMIO and
 * interrupts.
 */
#define VGPU_SLICE_BUDGET       (512 * KiB)
#define VGPU_CMD_COST           64
#define VGPU_TOUCH_COST         128
#define VGPU_WAIT_POLL_NS       (100 * SCALE_US)
#define VGPU_BUSY_NS            (2 * SCALE_MS)
#define VGPU_YIELD_NS           (200 * SCALE_US)
#define VGPU_BOUNCE_SIZE        (64 * KiB)

/*
 * Field helpers for the contract header's _SHIFT/_MASK pairs:
 * VGPU_FIELD_GET(hdr, VGPU_CMD_OPCODE), VGPU_FIELD_PREP(VGPU_CMD_LEN, 7).
 */
#define VGPU_FIELD_GET(val, f)  (((val) & f##_MASK) >> f##_SHIFT)
#define VGPU_FIELD_PREP(f, v)   (((uint32_t)(v) << f##_SHIFT) & f##_MASK)

/* The last queue error cause the device reports. */
#define VGPU_QUEUE_ERROR_LAST   VGPU_QUEUE_ERROR_INDEX

/*
 * Longest fixed part of a command: the header and 8 arguments (TOUCH,
 * GATHER, SCATTER, TILE).
 */
#define VGPU_CMD_MAX_ARGS       8

/* Leaf sizes a TLB entry can hold, smallest first. */
#define VGPU_TLB_NR_SIZES       4
extern const uint8_t vgpu_leaf_shifts[VGPU_TLB_NR_SIZES];

typedef struct VGPUTlbEntry {
    uint64_t tag;           /* va >> shift */
    uint64_t pte;           /* the leaf entry as the walk left it */
    uint32_t lru;           /* last use, for replacement */
    uint8_t ctx;
    uint8_t shift;          /* page size; 0: entry invalid */
    uint8_t level;          /* level of the leaf */
    uint32_t stale_hits;    /* strict: hits since its PTE changed */
} VGPUTlbEntry;

/*
 * Strict mode: the stale hits of a TLB entry that went (replaced, or
 * dropped to walk again) before an invalidation covered it, waiting for
 * one that does.
 */
#define VGPU_STALE_GONE 64

typedef struct VGPUStaleGone {
    uint64_t start;         /* the VA range the entry translated */
    uint64_t end;
    uint32_t ctx;
    uint32_t hits;
} VGPUStaleGone;

typedef struct VGPUTlb {
    uint32_t sets;
    uint32_t set_bits;                      /* log2(sets) */
    uint32_t ways;
    uint32_t clock;
    uint32_t nr_by_size[VGPU_TLB_NR_SIZES];  /* valid entries per size */
    VGPUTlbEntry *entries;                  /* sets * ways */
    VGPUState *s;                           /* counts confirmed stale hits */
} VGPUTlb;

/* A translation: where a VA lives and how much of its page follows. */
typedef struct VGPUXlate {
    uint64_t pa;            /* VRAM offset or system DMA address */
    uint64_t avail;         /* bytes from pa to the end of the page */
    bool system;
    uint8_t level;
} VGPUXlate;

/* Why a translation or an access failed (fault record dw2 fields). */
typedef struct VGPUFaultInfo {
    uint8_t reason;
    uint8_t level;
} VGPUFaultInfo;

/* A pending TLB invalidation request. */
typedef struct VGPUInval {
    uint32_t cmd;
    uint64_t va;
    uint64_t size;
} VGPUInval;

/* The command a queue is executing, decoded once. */
typedef struct VGPUCmd {
    uint32_t header;
    uint32_t offset;        /* offset of the header in its stream */
    uint32_t len;           /* dwords, header included */
    uint32_t arg[VGPU_CMD_MAX_ARGS];
    uint64_t done;          /* progress: bytes or accesses */
    uint64_t acc;           /* checksum accumulator, TOUCH seed */
    uint32_t pass;          /* unused, kept for the migration stream */
    uint32_t lanes;         /* access kernel: lanes it runs as, 0 before */
} VGPUCmd;

/*
 * Access kernels run as lanes, as a GPU runs a kernel as warps
 * (vgpu-kernels.c): each lane works through its share of the accesses,
 * and one that faults waits for REPLAY while the others go on.
 */
#define VGPU_LANE_QUANTUM       4   /* accesses a lane runs per turn */

typedef struct VGPULane {
    uint64_t done;          /* accesses completed */
    uint64_t acc;           /* TOUCH RANDOM: generator state */
    uint64_t fault_page;    /* while waiting: the page it faulted on */
    uint32_t fault_access;
    bool waiting;           /* on a fault, until REPLAY */
} VGPULane;

/*
 * What the command in flight moved and missed so far, for its modeled
 * cost (vgpu-cost.c): charged when the command completes.
 */
typedef struct VGPUCostTally {
    uint64_t vram_bytes;    /* data read and written in VRAM */
    uint64_t link_bytes;    /* data read and written in system memory */
    uint64_t l1_misses;
    uint64_t pt_reads;      /* table entries read */
    uint64_t pt_sys;        /* of which in system memory */
} VGPUCostTally;

/* A queue's modeled time (vgpu-cost.c). */
typedef struct VGPUQueueTime {
    uint64_t clock;         /* QTIME_CLOCK: modeled ns run and stalled */
    uint64_t stall;         /* QTIME_STALL */
    uint64_t stall_mark;    /* work_ns when the queue stalled */
    VGPUCostTally tally;    /* of the command in flight */
    /* pacing anchor, derived, not migrated */
    int64_t pace_wall;      /* device clock (ns) when ... */
    uint64_t pace_clock;    /* ... the queue clock was this */
} VGPUQueueTime;

/*
 * A FENCE's memory write, remembered for the WAITs that see it: the
 * writer's context, the VA and value, and the writer's clock.
 */
#define VGPU_SIGNALS 16

typedef struct VGPUSignal {
    uint64_t va;
    uint64_t value;
    uint64_t clock;
    uint32_t ctx;
    bool valid;
} VGPUSignal;

/* The cost model's parameters (COST_* registers). */
typedef struct VGPUCostModel {
    uint32_t link;          /* VGPU_LINK_* preset */
    uint32_t vram_bw;       /* MB/s */
    uint32_t link_bw;       /* MB/s */
    uint32_t link_lat;      /* ns */
    uint32_t tlb_miss;      /* ns */
    uint32_t walk_level;    /* ns */
    uint32_t fault;         /* ns */
    uint32_t cmd;           /* ns */
    uint32_t dilation;      /* 0: no pacing */
} VGPUCostModel;

typedef struct VGPUQueue {
    /* registers */
    uint64_t ring;          /* memory descriptor */
    uint32_t ring_size;
    uint32_t context;
    uint32_t head;
    uint32_t tail;
    uint32_t state;
    uint32_t error;
    uint64_t fence;
    uint64_t fault_va;
    uint32_t fault_info;

    /* command in flight */
    bool busy;
    VGPUCmd cmd;

    /*
     * Indirect stream in flight: set by a CALL, cleared when its stream
     * ends, by CANCEL, DISABLE, RESET and ENABLE.  While set, commands come
     * from the stream (cmd.offset is a stream offset) and HEAD stays on
     * the CALL.
     */
    bool in_call;
    uint32_t call_ring_offset;  /* ring offset of the CALL */
    uint64_t call_va;           /* stream start */
    uint32_t call_size;         /* stream bytes */
    uint32_t call_pos;          /* stream offset of the current command */

    VGPUQueueTime time;         /* modeled time (vgpu-cost.c) */

    /* access kernel in flight: cmd.lanes of these */
    VGPULane lane[VGPU_LANES_MAX];
    uint32_t lane_next;         /* the lane whose turn it is */

    /* derived, not migrated */
    VGPUTlb l1;
    VGPULane *lane_running;     /* in an access; its fault stalls it */
} VGPUQueue;

struct VGPUState {
    /*< private >*/
    PCIDevice parent_obj;

    /*< public >*/
    MemoryRegion mmio;
    MemoryRegion vram;          /* all of VRAM */
    MemoryRegion vram_bar;      /* BAR2 container, power-of-two sized */
    MemoryRegion vram_window;   /* alias of vram at visible_base */
    uint8_t *vram_ptr;
    QEMUBH *sched_bh;
    QEMUTimer *poll_timer;
    QEMUTimer *pace_timer;      /* a paced queue may run again */
    int64_t busy_since;         /* host ns the engine started running; 0 */
    VMChangeStateEntry *vmstate_entry;
    uint8_t *bounce;

    /* configuration (properties) */
    uint64_t vram_size;
    uint64_t visible_size;
    uint32_t l1_sets;
    uint32_t l1_ways;
    uint32_t l2_sets;
    uint32_t l2_ways;
    bool strict;
    bool deterministic;         /* faults published at quiescence */
    uint32_t lanes;             /* per access kernel, 1..VGPU_LANES_MAX */
    uint32_t chunk_shift;
    uint32_t nr_chunks;
    char *link;                 /* cost model preset, then overrides: */
    VGPUCostModel cost_prop;    /* VGPU_COST_UNSET: the preset's value */
    VGPUCostModel cost;         /* what realize() made of them */

    /* registers */
    uint64_t visible_base;
    uint32_t status;
    uint32_t int_status;
    uint32_t int_enable;
    uint32_t fence_queues;
    uint32_t error_queues;
    uint64_t inval_va;
    uint64_t inval_size;
    uint32_t inval_req_seqno;
    uint32_t inval_done_seqno;
    VGPUInval inval_fifo[VGPU_INVAL_QUEUE_DEPTH];
    uint64_t fault_buf;
    uint32_t fault_entries;
    uint32_t fault_head;
    uint32_t fault_tail;
    uint32_t fault_overflows;
    /* deterministic mode (vgpu-fault.c) */
    uint32_t fault_published;   /* records before it are VALID */
    bool overflow_pending;      /* INT_FAULT_OVERFLOW at publication */
    uint32_t fault_new;         /* queues that faulted since publication */
    uint32_t answer_wait;       /* queues stalled at publication, unanswered */
    uint32_t answer_replay;     /* answered REPLAY, held until all answer */
    uint32_t access_ctr_index;
    uint64_t pt_xchg_addr;      /* PT_XCHG_ADDR */
    uint64_t pt_xchg_old;       /* PT_XCHG_DATA: the word last replaced */
    uint64_t ctx_root[VGPU_NUM_CONTEXTS];
    VGPUQueue queue[VGPU_NUM_QUEUES];
    uint64_t ctr_global[VGPU_CTR_NR];
    uint64_t ctr_ctx[VGPU_NUM_CONTEXTS][VGPU_CTR_NR];
    uint64_t *access_ctr;       /* nr_chunks */

    /* 64-bit register halves: the _LO written, the _HI read snapshot */
    uint32_t wlatch_addr;
    uint32_t wlatch_val;
    uint32_t rlatch_addr;
    uint32_t rlatch_val;

    /* modeled time */
    uint64_t work_ns;           /* cost of every command completed */
    VGPUSignal signal[VGPU_SIGNALS];    /* the last FENCE writes */
    uint32_t signal_next;               /* the slot the next one takes */
    VGPUQueue *cost_queue;      /* the queue running, charged for access */

    /* scheduler */
    uint32_t rr_next;
    bool in_engine;             /* the scheduler is running (not migrated) */
    bool reset_pending;         /* reset by its own DMA, after the pass */

    /* derived, not migrated */
    VGPUTlb l2;
    VGPUStaleGone stale_gone[VGPU_STALE_GONE];
    uint32_t nr_stale_gone;
};

/* vgpu.c */
void vgpu_irq_raise(VGPUState *s, uint32_t causes);
void vgpu_reset_state(VGPUState *s);
uint64_t vgpu_now_ns(void);

/* vgpu-cost.c */
#define VGPU_COST_UNSET         UINT32_MAX
bool vgpu_cost_realize(VGPUState *s, Error **errp);
void vgpu_cost_tally(VGPUState *s, unsigned ctr, uint64_t n);
void vgpu_cost_cmd_done(VGPUState *s, VGPUQueue *q);
void vgpu_cost_compute(VGPUState *s, VGPUQueue *q, uint32_t ns);
uint64_t vgpu_cost_clock_done(VGPUState *s, VGPUQueue *q);
void vgpu_cost_stall_begin(VGPUState *s, VGPUQueue *q);
void vgpu_cost_stall_end(VGPUState *s, VGPUQueue *q);
void vgpu_cost_anchor(VGPUState *s, VGPUQueue *q);
void vgpu_cost_signal(VGPUState *s, VGPUQueue *q, uint64_t va,
                      uint64_t value);
void vgpu_cost_wait_done(VGPUState *s, VGPUQueue *q, uint64_t va,
                         uint64_t target);
int64_t vgpu_cost_pace_until(VGPUState *s, VGPUQueue *q);
bool vgpu_cost_reg_read(VGPUState *s, hwaddr addr, uint32_t *val);
bool vgpu_cost_reg64_read(VGPUState *s, hwaddr addr, uint64_t *val);
bool vgpu_cost_load_check(VGPUState *s, VGPUQueue *q, Error **errp);

static inline void vgpu_count(VGPUState *s, uint32_t ctx, unsigned ctr,
                              uint64_t n)
{
    s->ctr_global[ctr] += n;
    if (ctx < VGPU_NUM_CONTEXTS) {
        s->ctr_ctx[ctx][ctr] += n;
    }
    if (s->cost_queue) {
        vgpu_cost_tally(s, ctr, n);
    }
}

/* Memory descriptors (roots, rings, fault buffer) are encoded as PDEs. */
static inline bool vgpu_desc_valid(uint64_t desc)
{
    return desc & VGPU_PTE_VALID;
}

static inline bool vgpu_desc_system(uint64_t desc)
{
    return desc & VGPU_PTE_SYSTEM;
}

static inline uint64_t vgpu_desc_addr(uint64_t desc)
{
    return desc & VGPU_PTE_ADDR_MASK;
}

/* vgpu-tlb.c */
bool vgpu_tlb_init(VGPUTlb *tlb, VGPUState *s, uint32_t sets, uint32_t ways,
                   Error **errp);
uint64_t vgpu_tlb_pending_stale(VGPUState *s, uint32_t ctx);
void vgpu_tlb_forget_stale(VGPUState *s);
void vgpu_tlb_free(VGPUTlb *tlb);
void vgpu_tlb_flush(VGPUTlb *tlb);
VGPUTlbEntry *vgpu_tlb_lookup(VGPUTlb *tlb, uint32_t ctx, uint64_t va);
void vgpu_tlb_insert(VGPUTlb *tlb, const VGPUTlbEntry *e);
void vgpu_tlb_drop(VGPUTlb *tlb, VGPUTlbEntry *e);
void vgpu_tlb_flush_all(VGPUState *s);
bool vgpu_inval_submit(VGPUState *s, uint32_t cmd);
bool vgpu_inval_process(VGPUState *s);
bool vgpu_inval_load_check(VGPUState *s, Error **errp);

/* vgpu-mmu.c */
bool vgpu_mmu_translate(VGPUState *s, VGPUQueue *q, uint64_t va,
                        unsigned access, VGPUXlate *x, VGPUFaultInfo *f);
bool vgpu_pt_xchg(VGPUState *s, uint64_t addr, uint64_t val, uint64_t *old);
bool vgpu_mem_read(VGPUState *s, uint32_t ctx, const VGPUXlate *x,
                   void *buf, uint64_t len);
bool vgpu_mem_write(VGPUState *s, uint32_t ctx, const VGPUXlate *x,
                    const void *buf, uint64_t len);
bool vgpu_mem_copy(VGPUState *s, uint32_t ctx, const VGPUXlate *dst,
                   const VGPUXlate *src, uint64_t len, bool *dst_failed);
bool vgpu_phys_read(VGPUState *s, uint64_t desc, uint64_t off,
                    void *buf, uint64_t len);
bool vgpu_phys_write(VGPUState *s, uint64_t desc, uint64_t off,
                     const void *buf, uint64_t len);

/* vgpu-engine.c */
void vgpu_engine_init(VGPUState *s);
void vgpu_engine_fini(VGPUState *s);
void vgpu_engine_kick(VGPUState *s);
void vgpu_queue_reset_all(VGPUState *s);
uint32_t vgpu_queue_read(VGPUState *s, unsigned qi, hwaddr reg);
void vgpu_queue_write(VGPUState *s, unsigned qi, hwaddr reg, uint32_t val);
bool vgpu_queue_reg64(VGPUState *s, unsigned qi, hwaddr reg, uint64_t *val);
void vgpu_queue_write64(VGPUState *s, unsigned qi, hwaddr reg, uint64_t val);
void vgpu_queue_set_error(VGPUState *s, VGPUQueue *q, uint32_t cause);
bool vgpu_ring_read(VGPUState *s, VGPUQueue *q, uint32_t off,
                    uint32_t *buf, uint32_t n);
bool vgpu_queue_load_check(VGPUState *s, VGPUQueue *q, Error **errp);

static inline unsigned vgpu_queue_index(VGPUState *s, VGPUQueue *q)
{
    return q - s->queue;
}

/* vgpu-cmd.c */
typedef enum VGPUCmdStatus {
    VGPU_CMD_DONE,          /* completed; advance the head */
    VGPU_CMD_YIELD,         /* budget used up; continue next slice */
    VGPU_CMD_BLOCKED,       /* queue left RUNNING (fault, wait, error) */
    VGPU_CMD_CALL,          /* a CALL: the queue now runs its stream */
} VGPUCmdStatus;

static inline uint64_t vgpu_cmd_arg64(const VGPUCmd *cmd, int i)
{
    return cmd->arg[i] | (uint64_t)cmd->arg[i + 1] << 32;
}

static inline uint32_t vgpu_cmd_flags(const VGPUCmd *cmd)
{
    return VGPU_FIELD_GET(cmd->header, VGPU_CMD_FLAGS);
}

bool vgpu_cmd_stream_read(VGPUState *s, VGPUQueue *q, uint32_t off,
                          uint32_t *buf, uint32_t n);
/* Access helpers the kernels share (vgpu-cmd.c). */
bool vgpu_xlate(VGPUState *s, VGPUQueue *q, uint64_t va, unsigned access,
                VGPUXlate *x);
void vgpu_access_fault(VGPUState *s, VGPUQueue *q, uint64_t va,
                       unsigned access, const VGPUXlate *x);
bool vgpu_xlate_read(VGPUState *s, VGPUQueue *q, uint64_t va,
                     unsigned access, const VGPUXlate *x, void *buf,
                     uint64_t len);
bool vgpu_va_read(VGPUState *s, VGPUQueue *q, uint64_t va, unsigned access,
                  void *buf, uint64_t len);
uint32_t vgpu_cmd_check(VGPUState *s, const VGPUQueue *q, char **why);
uint32_t vgpu_cmd_decode(VGPUState *s, VGPUQueue *q);
bool vgpu_cmd_progress_ok(const VGPUCmd *cmd, const char **why);
VGPUCmdStatus vgpu_cmd_exec(VGPUState *s, VGPUQueue *q, int64_t *budget);

bool vgpu_va_write(VGPUState *s, VGPUQueue *q, uint64_t va, const void *buf,
                   uint64_t len);

/* vgpu-kernels.c */
uint64_t vgpu_kernel_total(const VGPUCmd *cmd);
bool vgpu_kernel_args_ok(const VGPUCmd *cmd, const char **why);
VGPUCmdStatus vgpu_cmd_kernel(VGPUState *s, VGPUQueue *q, int64_t *budget);
bool vgpu_lanes_wait(VGPUQueue *q, uint64_t page, unsigned access);
bool vgpu_lanes_waiting(const VGPUQueue *q);
bool vgpu_lanes_resume(VGPUQueue *q);
bool vgpu_lanes_load_check(VGPUState *s, VGPUQueue *q, const char **why);

/* vgpu-fault.c */
void vgpu_fault_raise(VGPUState *s, VGPUQueue *q, uint64_t va,
                      unsigned access, const VGPUFaultInfo *f);
void vgpu_fault_buf_check(VGPUState *s);
void vgpu_fault_publish(VGPUState *s);
bool vgpu_fault_load_check(VGPUState *s, Error **errp);

#endif /* HW_VGPU_INTERNAL_H */
